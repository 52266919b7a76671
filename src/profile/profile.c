/* Profile records, analysis against a roofline, and advice (see profile.h). */
#include "profile/profile.h"

#include "base/alloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

profile_t *profile_create(int want_counters)
{
    profile_t *p = calloc(1, sizeof *p);
    if (p)
        p->want_counters = want_counters;
    return p;
}

static void free_records(profile_t *p)
{
    free(p->t0), free(p->t1), free(p->ctr), free(p->busy);
    p->t0 = p->t1 = p->ctr = p->busy = NULL;
    p->iters = p->cap_iters = 0;
}

void profile_reset(profile_t *p)
{
    if (!p)
        return;
    free_records(p);
    free(p->steps);
    p->steps = NULL;
    p->n_steps = 0;
    p->plan = NULL;
}

void profile_destroy(profile_t *p)
{
    if (!p)
        return;
    profile_detach(p);
    profile_reset(p);
    pc_close(p->pc);
    base_aligned_free(p->tstat);
    free(p);
}

int profile_set_steps(profile_t *p, int n)
{
    profile_reset(p);
    p->steps = calloc((size_t)n + 1, sizeof *p->steps);
    if (!p->steps)
        return 0;
    p->n_steps = n;
    return 1;
}

int profile_attach(profile_t *p, base_pool_t *pool)
{
    int threads = base_pool_threads(pool);
    if (threads > PROFILE_MAX_THREADS)
        threads = PROFILE_MAX_THREADS;
    if (threads != p->threads || !p->tstat) {
        /* records of another thread count cannot be mixed with these */
        free_records(p);
        base_aligned_free(p->tstat);
        p->tstat = base_aligned_alloc(sizeof(base_pool_tstat_t) * (size_t)threads, 64);
        if (!p->tstat)
            return 0;
        memset(p->tstat, 0, sizeof(base_pool_tstat_t) * (size_t)threads);
        p->threads = threads;
    }
    p->pool_stats.t = p->tstat;
    p->pool = pool;
    base_pool_set_stats(pool, &p->pool_stats);
    if (p->want_counters && !p->pc_tried) {
        int tids[PROFILE_MAX_THREADS];
        int n = base_pool_thread_ids(pool, tids, threads);
        p->pc_tried = 1;
        p->pc = pc_open(tids, n);
        p->counters = pc_available(p->pc);
    }
    return 1;
}

void profile_detach(profile_t *p)
{
    if (p && p->pool) {
        base_pool_set_stats(p->pool, NULL);
        p->pool = NULL;
    }
}

int profile_iter_begin(profile_t *p)
{
    if (p->iters == p->cap_iters) {
        int cap = p->cap_iters ? 2 * p->cap_iters : 16;
        size_t recs = (size_t)cap * (size_t)(p->n_steps ? p->n_steps : 1);
        uint64_t *t0 = realloc(p->t0, recs * sizeof *t0);
        if (t0)
            p->t0 = t0;
        uint64_t *t1 = realloc(p->t1, recs * sizeof *t1);
        if (t1)
            p->t1 = t1;
        uint64_t *ctr = realloc(p->ctr, recs * PC_N * sizeof *ctr);
        if (ctr)
            p->ctr = ctr;
        uint64_t *busy = realloc(p->busy, recs * (size_t)p->threads * sizeof *busy);
        if (busy)
            p->busy = busy;
        if (!t0 || !t1 || !ctr || !busy)
            return 0;
        p->cap_iters = cap;
    }
    pc_read(p->pc, p->last_ctr);
    return 1;
}

void profile_step_begin(profile_t *p)
{
    p->pool_stats.region_ns = 0;
    p->pool_stats.jobs = 0;
    for (int t = 0; t < p->threads; t++)
        p->tstat[t].busy_ns = 0;
}

void profile_step_end(profile_t *p, int s, uint64_t t0, uint64_t t1)
{
    size_t r = (size_t)p->iters * (size_t)p->n_steps + (size_t)s;
    p->t0[r] = t0;
    p->t1[r] = t1;
    uint64_t now[PC_N];
    pc_read(p->pc, now);
    for (int c = 0; c < PC_N; c++) {
        p->ctr[r * PC_N + c] = now[c] - p->last_ctr[c];
        p->last_ctr[c] = now[c];
    }
    /* the caller is busy outside parallel regions and inside its own chunks;
     * the other threads only inside their chunks */
    uint64_t span = t1 - t0, region = p->pool_stats.region_ns;
    uint64_t *b = p->busy + r * (size_t)p->threads;
    uint64_t own = (region < span ? span - region : 0) + p->tstat[0].busy_ns;
    b[0] = own < span ? own : span;
    for (int t = 1; t < p->threads; t++)
        b[t] = p->tstat[t].busy_ns < span ? p->tstat[t].busy_ns : span;
}

void profile_iter_end(profile_t *p) { p->iters++; }

/* ---- analysis ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void profile_analysis_free(profile_analysis_t *a)
{
    if (!a)
        return;
    free(a->rows);
    free(a->ops);
    free(a->thr);
    memset(a, 0, sizeof *a);
}

static int cmp_op_ms(const void *a, const void *b)
{
    const profile_oprow_t *x = a, *y = b;
    return (x->ms < y->ms) - (x->ms > y->ms);
}

int profile_step_int8(const profile_step_t *s)
{
    static const char *const ops[] = {"FusedConvInteger", "FusedMatMulInteger", "MatMulInteger",
                                      "ConvInteger",      "QLinearConv",        "QLinearMatMul"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(s->op, ops[i]))
            return 1;
    return 0;
}

int profile_derive(profile_analysis_t *a)
{
    const profile_roof_t *roof = &a->roof;
    a->total_ms = 0;
    for (int i = 0; i < a->n_rows; i++)
        a->total_ms += a->rows[i].ms;
    free(a->ops);
    a->ops = calloc((size_t)a->n_rows + 1, sizeof *a->ops);
    if (!a->ops)
        return 0;
    a->n_ops = 0;
    for (int i = 0; i < a->n_rows; i++) {
        profile_row_t *r = &a->rows[i];
        double s = r->ms * 1e-3;
        r->share = a->total_ms > 0 ? r->ms / a->total_ms : 0;
        r->gflops = s > 0 ? r->step.flops / s * 1e-9 : 0;
        r->gbs = s > 0 ? r->step.bytes / s * 1e-9 : 0;
        r->intensity = r->step.bytes > 0 ? r->step.flops / r->step.bytes : 0;
        r->peak = profile_step_int8(&r->step) && roof->peak_int8_gops > 0 ? roof->peak_int8_gops
                                                                          : roof->peak_gflops;
        const double ridge = roof->peak_gbs > 0 ? r->peak / roof->peak_gbs : 0;
        r->memory_bound = r->intensity < ridge;
        /* memory-bound: attainable = intensity * bandwidth, so the fraction
         * of it reached is simply achieved GB/s over the bandwidth roof */
        if (r->memory_bound)
            r->frac = roof->peak_gbs > 0 ? r->gbs / roof->peak_gbs : 0;
        else
            r->frac = r->peak > 0 ? r->gflops / r->peak : 0;
        int k = 0;
        while (k < a->n_ops && strcmp(a->ops[k].op, r->step.op))
            k++;
        if (k == a->n_ops)
            snprintf(a->ops[a->n_ops++].op, sizeof a->ops[0].op, "%s", r->step.op);
        a->ops[k].steps++;
        a->ops[k].ms += r->ms;
        a->ops[k].flops += r->step.flops;
        a->ops[k].bytes += r->step.bytes;
    }
    for (int k = 0; k < a->n_ops; k++) {
        profile_oprow_t *o = &a->ops[k];
        double s = o->ms * 1e-3;
        o->share = a->total_ms > 0 ? o->ms / a->total_ms : 0;
        o->gflops = s > 0 ? o->flops / s * 1e-9 : 0;
        o->gbs = s > 0 ? o->bytes / s * 1e-9 : 0;
    }
    qsort(a->ops, (size_t)a->n_ops, sizeof *a->ops, cmp_op_ms);
    return 1;
}

int profile_analyze(const profile_t *p, const profile_roof_t *roof, profile_analysis_t *a)
{
    memset(a, 0, sizeof *a);
    a->roof = *roof;
    a->iters = p->iters;
    a->threads = p->threads > 0 ? p->threads : 1;
    a->n_rows = p->n_steps;
    a->counters = p->counters;
    a->counter_mask = pc_mask(p->pc);
    a->rows = calloc((size_t)p->n_steps + 1, sizeof *a->rows);
    a->thr = calloc((size_t)a->threads, sizeof *a->thr);
    uint64_t *tmp = malloc(((size_t)p->iters + 1) * sizeof *tmp);
    if (!a->rows || !a->thr || !tmp) {
        free(tmp);
        profile_analysis_free(a);
        return 0;
    }
    double iters = p->iters > 0 ? p->iters : 1;
    double span_total = 0;
    for (int s = 0; s < p->n_steps; s++) {
        profile_row_t *r = &a->rows[s];
        r->step = p->steps[s];
        for (int i = 0; i < p->iters; i++) {
            size_t rec = (size_t)i * (size_t)p->n_steps + (size_t)s;
            tmp[i] = p->t1[rec] - p->t0[rec];
            span_total += (double)tmp[i];
            for (int c = 0; c < PC_N; c++)
                r->ctr[c] += (double)p->ctr[rec * PC_N + c] / iters;
            for (int t = 0; t < p->threads; t++)
                a->thr[t].busy_ms += (double)p->busy[rec * (size_t)p->threads + t] * 1e-6 / iters;
        }
        if (p->iters > 0) {
            qsort(tmp, (size_t)p->iters, sizeof *tmp, cmp_u64);
            int n = p->iters;
            double med = n % 2 ? (double)tmp[n / 2] : 0.5 * ((double)tmp[n / 2 - 1] + (double)tmp[n / 2]);
            r->ms = med * 1e-6;
        }
        for (int c = 0; c < PC_N; c++)
            a->ctr_total[c] += r->ctr[c];
    }
    free(tmp);
    double span_ms = span_total * 1e-6 / iters, max_busy = 0, sum_busy = 0;
    for (int t = 0; t < a->threads; t++) {
        a->thr[t].wait_ms = span_ms > a->thr[t].busy_ms ? span_ms - a->thr[t].busy_ms : 0;
        sum_busy += a->thr[t].busy_ms;
        if (a->thr[t].busy_ms > max_busy)
            max_busy = a->thr[t].busy_ms;
    }
    a->imbalance = a->threads > 1 && max_busy > 0 ? 1.0 - sum_busy / a->threads / max_busy : 0;
    if (!profile_derive(a)) {
        profile_analysis_free(a);
        return 0;
    }
    profile_advise(a);
    return 1;
}

/* ---- advice ---- */

static void add_advice(profile_analysis_t *a, profile_rule_t rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_advice(profile_analysis_t *a, profile_rule_t rule, const char *fmt, ...)
{
    if (a->n_advice >= PROFILE_MAX_ADVICE)
        return;
    profile_advice_t *ad = &a->advice[a->n_advice++];
    ad->rule = rule;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ad->text, sizeof ad->text, fmt, ap);
    va_end(ap);
}

static int is_gemm(const char *op) { return !strcmp(op, "MatMul") || !strcmp(op, "Gemm"); }

static int is_move(const char *op)
{
    static const char *const moves[] = {"Transpose", "Identity", "Reshape",  "Flatten",
                                        "Squeeze",   "Unsqueeze", "Concat",  "Split",
                                        "Slice",     "Expand",   "Tile",     "Pad",
                                        "Gather",    "Copy"};
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++)
        if (!strcmp(op, moves[i]))
            return 1;
    return 0;
}

static void rule_small_gemm(profile_analysis_t *a)
{
    int worst = -1, count = 0;
    double share = 0;
    for (int i = 0; i < a->n_rows; i++) {
        const profile_row_t *r = &a->rows[i];
        if (!is_gemm(r->step.op) || r->step.m <= 0 || r->step.m > PROFILE_SMALL_M ||
            r->share < PROFILE_MIN_SHARE || r->peak <= 0 || r->gflops / r->peak >= PROFILE_GEMM_FAR)
            continue;
        count++;
        share += r->share;
        if (worst < 0 || r->share > a->rows[worst].share)
            worst = i;
    }
    if (worst < 0)
        return;
    const profile_row_t *w = &a->rows[worst];
    add_advice(a, PROFILE_RULE_SMALL_GEMM,
               "%d GEMM step%s with M <= %d run%s far below the compute roof (%.1f%% of the "
               "time; worst '%s', M = %lld, %.1f GFLOP/s = %.1f%% of %.0f): each weight byte "
               "is reused only M times. Batch more rows per call (a larger batch or several "
               "requests together).",
               count, count > 1 ? "s" : "", PROFILE_SMALL_M, count > 1 ? "" : "s", 100 * share,
               w->step.name, (long long)w->step.m, w->gflops,
               100 * w->gflops / w->peak, w->peak);
}

static void rule_moves(profile_analysis_t *a)
{
    double share = 0;
    int count = 0, worst = -1;
    for (int i = 0; i < a->n_rows; i++)
        if (is_move(a->rows[i].step.op)) {
            share += a->rows[i].share;
            count++;
            if (worst < 0 || a->rows[i].share > a->rows[worst].share)
                worst = i;
        }
    if (share <= PROFILE_MOVES_SHARE || worst < 0)
        return;
    add_advice(a, PROFILE_RULE_MOVES,
               "transposes and copies take %.1f%% of the time (%d step%s, above the %.0f%% "
               "mark; largest '%s' (%s) at %.1f%%): fold the layout change into the "
               "consumer (e.g. a transposed-B GEMM) or make reshapes views.",
               100 * share, count, count > 1 ? "s" : "", 100 * PROFILE_MOVES_SHARE,
               a->rows[worst].step.name, a->rows[worst].step.op, 100 * a->rows[worst].share);
}

static void rule_chain(profile_analysis_t *a)
{
    int best_b = -1, best_e = -1;
    double best_share = 0;
    for (int i = 0; i < a->n_rows;) {
        const profile_row_t *r = &a->rows[i];
        if (!(r->step.fusible && r->memory_bound)) {
            i++;
            continue;
        }
        int e = i + 1;
        double share = r->share;
        while (e < a->n_rows && a->rows[e].step.fusible && a->rows[e].memory_bound &&
               a->rows[e].step.uses_prev) {
            share += a->rows[e].share;
            e++;
        }
        if (e - i >= 2 && share > best_share)
            best_b = i, best_e = e, best_share = share;
        i = e;
    }
    if (best_b < 0 || best_share < PROFILE_CHAIN_SHARE)
        return;
    char names[200];
    size_t u = 0;
    double saved = 0;
    names[0] = 0;
    for (int i = best_b; i < best_e && u < sizeof names; i++) {
        u += (size_t)snprintf(names + u, sizeof names - u, "%s%s", i > best_b ? " -> " : "",
                              a->rows[i].step.op);
        if (i + 1 < best_e)
            saved += 2 * a->rows[i].step.out_bytes; /* written, then read back */
    }
    add_advice(a, PROFILE_RULE_FUSABLE_CHAIN,
               "%d consecutive memory-bound elementwise steps (%s, from '%s') take %.1f%% of "
               "the time, each re-reading what the previous one wrote: fused into one pass they "
               "would move about %.2f MB less per run.",
               best_e - best_b, names, a->rows[best_b].step.name, 100 * best_share, saved * 1e-6);
}

static void rule_imbalance(profile_analysis_t *a)
{
    if (a->threads < 2 || a->imbalance <= PROFILE_IMBALANCE || !a->thr)
        return;
    int hi = 0, lo = 0;
    for (int t = 1; t < a->threads; t++) {
        if (a->thr[t].busy_ms > a->thr[hi].busy_ms)
            hi = t;
        if (a->thr[t].busy_ms < a->thr[lo].busy_ms)
            lo = t;
    }
    add_advice(a, PROFILE_RULE_IMBALANCE,
               "load imbalance %.0f%% (above %.0f%%): thread %d is busy %.3f ms per run, thread "
               "%d only %.3f ms. Serial steps or too few tiles leave threads waiting at "
               "barriers; parallelise the serial steps or use finer tiles.",
               100 * a->imbalance, 100 * PROFILE_IMBALANCE, hi, a->thr[hi].busy_ms, lo,
               a->thr[lo].busy_ms);
}

static void rule_tiny(profile_analysis_t *a)
{
    int count = 0;
    double share = 0;
    for (int i = 0; i < a->n_rows; i++) {
        const profile_row_t *r = &a->rows[i];
        if (r->memory_bound && r->step.bytes < PROFILE_TINY_BYTES && r->frac < PROFILE_TINY_FAR) {
            count++;
            share += r->share;
        }
    }
    if (!count || share < PROFILE_TINY_SHARE)
        return;
    add_advice(a, PROFILE_RULE_TINY_STEPS,
               "%d step%s on tensors under %.0f KiB run%s below %.0f%% of the memory roof and "
               "take %.1f%% of the time together: per-step overhead (dispatch, thread wake-up) "
               "dominates. Fuse them into their neighbours or run them single-threaded.",
               count, count > 1 ? "s" : "", PROFILE_TINY_BYTES / 1024, count > 1 ? "" : "s",
               100 * PROFILE_TINY_FAR, 100 * share);
}

int profile_advise(profile_analysis_t *a)
{
    a->n_advice = 0;
    rule_small_gemm(a);
    rule_moves(a);
    rule_chain(a);
    rule_imbalance(a);
    rule_tiny(a);
    return a->n_advice;
}
