/*
 * Plans: a graph compiled for one set of concrete input shapes.
 *
 * plan_build binds every symbolic dim from the input shapes, infers each
 * value's concrete type, folds nodes whose inputs are all known (constants,
 * and Shape/Size of anything), and turns the rest into a flat array of
 * steps (Reshape, Flatten, Squeeze, Unsqueeze and Identity whose output is
 * not a graph output make no step: their output is a view of the input's
 * storage). Every intermediate gets a fixed offset in one arena, assigned by a
 * liveness pass (values whose lifetimes do not overlap share bytes). Graph
 * outputs are written straight into the output buffers and graph inputs are
 * read straight from the user's buffers.
 *
 * plan_run walks the steps: it points each step's tensors at the arena,
 * the inputs and the outputs of this run, and calls the op's kernel. It
 * allocates nothing.
 */
#ifndef CAIRN_RUNTIME_PLAN_H
#define CAIRN_RUNTIME_PLAN_H

#include "ir/op_table.h"

typedef enum plan_buf_kind {
    PLAN_BUF_NONE = 0, /* an omitted optional input */
    PLAN_BUF_ARENA,    /* offset into the arena */
    PLAN_BUF_INPUT,    /* graph input `index` */
    PLAN_BUF_OUTPUT,   /* graph output `index` */
    PLAN_BUF_CONST     /* fixed pointer (weights, folded values) */
} plan_buf_kind_t;

typedef struct plan_ref {
    plan_buf_kind_t kind;
    int index;
    size_t offset;
    void *ptr;
} plan_ref_t;

typedef struct plan_step {
    int node;              /* index in the graph */
    const ir_node_t *n;
    ir_exec_fn exec;
    int n_in, n_out;
    ktensor_t *in, *out;   /* shapes fixed; data set on each run */
    plan_ref_t *in_ref, *out_ref;
    size_t ws_bytes;
    ir_cost_t cost;
} plan_step_t;

typedef struct plan {
    const ir_graph_t *graph;
    int n_steps;
    plan_step_t *steps;
    ir_type_t *types;      /* concrete type of every value */
    void **value_data;     /* constant/folded payload per value, or NULL */
    unsigned char *owned;  /* value_data[v] was allocated by the plan */
    int64_t *sym_values;   /* bound value of each symbol */
    size_t arena_bytes, ws_bytes, const_bytes;
    void *arena, *ws;
    void **out_bufs;       /* plan-owned buffer per graph output */
    size_t *out_bytes;
    plan_ref_t *out_src;   /* where output i comes from when it must be copied */
    unsigned char *out_copy; /* 1 if output i is copied at the end of a run */
} plan_t;

/* Builds a plan for input types in_types[graph input i] (concrete).
 *
 * in_values (may be NULL) specialises the plan on the values of some
 * inputs: where in_values[i] is non-NULL, graph input i's data are copied
 * into the plan and treated as a constant while planning, so ops whose
 * output shape depends on them (Reshape's shape, Slice's starts, ...) can be
 * planned; the plan is then valid only for those values.
 *
 * When planning fails because an op needs the value of something computed
 * from a graph input that is not specialised, *need_input (if given) is set
 * to that input's index (else -1), so the caller can specialise on it and
 * try again. */
cairn_status_t plan_build(const ir_graph_t *g, const ir_type_t *in_types,
                          const void *const *in_values, const kctx_t *k, plan_t **out,
                          int *need_input);

/* The largest input (in elements) the runtime specialises a plan on. */
#define PLAN_MAX_VALUE_INPUT 4096
void plan_destroy(plan_t *p);

/* Runs the plan. in_data[i] is graph input i's data; out_data[i] is where
 * output i goes (NULL: the plan's own buffer, returned in out_data[i]). */
cairn_status_t plan_run(plan_t *p, const void *const *in_data, void **out_data, const kctx_t *k);

/* plan_run with every step timed and its counters read into prof (whose
 * pool accounting the caller has attached: profile_attach). A separate
 * function so plan_run carries no timing code at all. The first call for a
 * plan (or after the step count changes) describes the steps in prof. */
struct profile;
cairn_status_t plan_run_profiled(plan_t *p, const void *const *in_data, void **out_data,
                                 const kctx_t *k, struct profile *prof);

/* Names the kernel a step runs, e.g. "gemm avx512_14x32 packed-B, epilogue:
 * bias +gelu_erf", or "ref" for a reference kernel. For --explain and the
 * profiler; ops that gain fast variants say so here. */
void plan_step_kernel(const plan_step_t *st, char *buf, size_t cap);

#endif
