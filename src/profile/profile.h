/*
 * The profiler's records and analysis.
 *
 * A profile_t collects, per plan step and per profiled run, the step's start
 * and end (monotonic ns), hardware counter deltas (perf_counters.h) and each
 * pool thread's busy time inside the step (threadpool.h's stats). The plan
 * fills it through plan_run_profiled; the plain plan_run never touches it.
 *
 * profile_analyze turns the records into rows against a roofline given by
 * the caller (profile_roof_t: peaks for the ISA and thread count in use):
 * median time per step, share, achieved GFLOP/s and GB/s, arithmetic
 * intensity, the bound that applies and the fraction of it reached; the same
 * rolled up per op type; per-thread busy and barrier-wait time; and advice
 * from rules over those rows (profile_advise, also callable on synthetic
 * rows, which is how the rules are tested).
 */
#ifndef CAIRN_PROFILE_PROFILE_H
#define CAIRN_PROFILE_PROFILE_H

#include "base/threadpool.h"
#include "profile/perf_counters.h"

#include <stdint.h>

#define PROFILE_NAME_MAX 128
#define PROFILE_SOURCES_MAX 512
#define PROFILE_MAX_THREADS 256
#define PROFILE_MAX_ADVICE 16

/* Machine peaks the steps are measured against, chosen by the caller. */
typedef struct profile_roof {
    double peak_gflops; /* f32 compute roof */
    double peak_gbs;    /* memory bandwidth roof */
    double peak_int8_gops; /* int8 dot-product roof for the 8-bit steps
                              (profile_step_int8); 0: unknown, they are then
                              held to peak_gflops */
} profile_roof_t;


/* What a step is: fixed when the plan is built. */
typedef struct profile_step {
    char name[PROFILE_NAME_MAX];       /* the node's name */
    char op[32];                       /* op type, e.g. "MatMul" */
    char kernel[32];                   /* kernel variant; "ref" for now */
    char sources[PROFILE_SOURCES_MAX]; /* source-model nodes covered, ", "-joined */
    double flops, bytes;               /* from the op table's cost model */
    int64_t m;           /* rows of a MatMul/Gemm output (batch folded in); 0 otherwise */
    int fusible;         /* elementwise or broadcast fusion class */
    int uses_prev;       /* reads a value the previous step wrote */
    double out_bytes;    /* bytes of its outputs */
} profile_step_t;

/* 1 when the step's multiply-adds run on the int8 kernels (u8 x s8 -> s32:
 * FusedConvInteger, FusedMatMulInteger, MatMulInteger, ConvInteger,
 * QLinearConv, QLinearMatMul), whose roof is the int8 one: their op counts
 * over the f32 peak read 200-300 % (ResNet-50's 8-bit convolutions). */
int profile_step_int8(const profile_step_t *s);

typedef struct profile {
    int n_steps, threads;
    profile_step_t *steps;
    int iters, cap_iters;
    /* per record r = iter * n_steps + step */
    uint64_t *t0, *t1;     /* ns, monotonic clock */
    uint64_t *ctr;         /* [r * PC_N + c] counter deltas */
    uint64_t *busy;        /* [r * threads + t] ns busy in the step */
    /* live state while runs are recorded */
    pc_set_t *pc;
    int pc_tried, counters;   /* counters: pc opened and counting */
    int want_counters;        /* 0 skips perf_event_open entirely */
    uint64_t last_ctr[PC_N];
    base_pool_stats_t pool_stats;
    base_pool_tstat_t *tstat;
    base_pool_t *pool;
    const void *plan;         /* the plan the steps describe */
} profile_t;

/* An empty profile; want_counters 0 skips hardware counters. */
profile_t *profile_create(int want_counters);
void profile_destroy(profile_t *p);
/* Forgets the steps and records (the plan changed). */
void profile_reset(profile_t *p);

/* ---- used by the runtime while recording ---- */

/* Sets up n steps (info to be filled by the caller). */
int profile_set_steps(profile_t *p, int n);
/* Attaches the pool's busy accounting and, the first time, opens counters
 * on its threads. Returns 0 when out of memory. */
int profile_attach(profile_t *p, base_pool_t *pool);
void profile_detach(profile_t *p);
/* Starts a recorded run: makes room for one more iteration. */
int profile_iter_begin(profile_t *p);
/* Called right before a step's kernel: resets the per-thread accounting. */
void profile_step_begin(profile_t *p);
/* Records step s of the current iteration, run between t0 and t1. */
void profile_step_end(profile_t *p, int s, uint64_t t0, uint64_t t1);
void profile_iter_end(profile_t *p);

/* ---- analysis ---- */

typedef struct profile_row {
    profile_step_t step;
    double ms;            /* median over iterations */
    double share;         /* of the summed step medians, 0..1 */
    double gflops, gbs, intensity; /* intensity: FLOP per byte */
    int memory_bound;     /* under the roof, memory is the limit */
    double frac;          /* achieved / the bound's attainable rate */
    double peak;          /* the compute roof it is held to (f32 or int8) */
    double ctr[PC_N];     /* mean per iteration */
} profile_row_t;

typedef struct profile_oprow {
    char op[32];
    int steps;
    double ms, share, flops, bytes, gflops, gbs;
} profile_oprow_t;

typedef struct profile_thread {
    double busy_ms, wait_ms; /* per iteration, summed over steps */
} profile_thread_t;

typedef enum profile_rule {
    PROFILE_RULE_SMALL_GEMM = 0, /* GEMM far under the compute roof with a small M */
    PROFILE_RULE_MOVES,          /* transposes and copies above 10 % of the time */
    PROFILE_RULE_FUSABLE_CHAIN,  /* consecutive memory-bound elementwise steps */
    PROFILE_RULE_IMBALANCE,      /* threads' busy time uneven by more than 20 % */
    PROFILE_RULE_TINY_STEPS,     /* tiny tensors far under the memory roof */
    PROFILE_RULE_COUNT
} profile_rule_t;

typedef struct profile_advice {
    profile_rule_t rule;
    char text[400];
} profile_advice_t;

typedef struct profile_analysis {
    profile_roof_t roof;
    int iters, threads;
    int n_rows;
    profile_row_t *rows;
    int n_ops;
    profile_oprow_t *ops;       /* by time, largest first */
    profile_thread_t *thr;      /* threads entries */
    double total_ms;            /* sum of step medians */
    double imbalance;           /* 1 - mean busy / max busy over threads */
    int counters;               /* 1 when ctr values are measured */
    unsigned counter_mask;
    double ctr_total[PC_N];     /* per iteration */
    int n_advice;
    profile_advice_t advice[PROFILE_MAX_ADVICE];
} profile_analysis_t;

/* Builds the analysis (0 when out of memory); free with profile_analysis_free. */
int profile_analyze(const profile_t *p, const profile_roof_t *roof, profile_analysis_t *a);
void profile_analysis_free(profile_analysis_t *a);

/* Fills rows' derived fields (share, rates, bound) from ms, step and roof,
 * the op rollup, and total_ms: what profile_analyze does after the medians,
 * exposed so tests can feed synthetic rows. 0 when out of memory. */
int profile_derive(profile_analysis_t *a);

/* Applies every advice rule to a->rows / a->thr / a->imbalance, replacing
 * a->advice. Returns the number of pieces of advice. */
int profile_advise(profile_analysis_t *a);

/* Rule thresholds, named so the tests and the text agree. */
#define PROFILE_SMALL_M 16
#define PROFILE_GEMM_FAR 0.25     /* below a quarter of the compute roof */
#define PROFILE_MOVES_SHARE 0.10
#define PROFILE_CHAIN_SHARE 0.05
#define PROFILE_IMBALANCE 0.20
#define PROFILE_TINY_BYTES (64.0 * 1024)
#define PROFILE_TINY_FAR 0.10
#define PROFILE_TINY_SHARE 0.05
#define PROFILE_MIN_SHARE 0.02    /* a step under 2 % of the time gets no advice alone */

#endif
