/* Helpers shared by the compiler pass tests: build small graphs through the
 * C API, run them with passes on and off, and look at the rewritten IR. */
#ifndef CAIRN_TESTS_COMPILER_TEST_UTIL_H
#define CAIRN_TESTS_COMPILER_TEST_UTIL_H

#include "check.h"
#include "compiler/pass.h"
#include "ir/op_table.h"
#include "ir/ops/fused.h"
#include "runtime/session_internal.h"

#include <math.h>

const ir_graph_t *cairn_graph_ir(const cairn_graph_t *g);

/* ---- building helpers ---- */

static inline cairn_value_id node(cairn_graph_t *g, const char *op, const char *name,
                           const cairn_value_id *in, int n_in, const cairn_attr_t *a, int n_a)
{
    cairn_value_id y = -1;
    CHECK_OK(cairn_graph_add_node(g, op, name, in, n_in, a, n_a, &y, 1, NULL));
    return y;
}

static inline cairn_value_id bin(cairn_graph_t *g, const char *op, const char *name, cairn_value_id a,
                          cairn_value_id b)
{
    cairn_value_id in[2] = {a, b};
    return node(g, op, name, in, 2, NULL, 0);
}

static inline cairn_value_id scalar(cairn_graph_t *g, const char *name, float v)
{
    cairn_tensor_t t = {CAIRN_F32, 0, {0}, &v};
    cairn_value_id id = -1;
    CHECK_OK(cairn_graph_add_constant(g, name, &t, &id));
    return id;
}

static inline cairn_value_id tensor(cairn_graph_t *g, const char *name, int rank, const int64_t *dims,
                             uint64_t seed, double lo, double hi)
{
    cairn_tensor_t t = {CAIRN_F32, rank, {0}, NULL};
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        t.shape[i] = dims[i], n *= dims[i];
    float *buf = malloc((size_t)n * sizeof(float));
    check_rng_t r = {seed};
    check_fill_f32(&r, buf, n, lo, hi);
    t.data = buf;
    cairn_value_id id = -1;
    CHECK_OK(cairn_graph_add_constant(g, name, &t, &id));
    free(buf);
    return id;
}

/* The graph after `passes`: a clone of g's IR, rewritten. */
static inline ir_graph_t *compiled(const cairn_graph_t *g, const char *passes)
{
    ir_graph_t *c = NULL;
    CHECK_OK(ir_graph_clone(cairn_graph_ir(g), &c));
    CHECK_OK(compiler_run(c, NULL, passes, NULL, NULL));
    return c;
}

static inline int count_op(const ir_graph_t *g, int op)
{
    int k = 0;
    for (int i = 0; i < g->n_nodes; i++)
        k += g->nodes[i].op == op;
    return k;
}

static inline const ir_node_t *find_op(const ir_graph_t *g, int op)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == op)
            return &g->nodes[i];
    return NULL;
}

static inline int has_source(const ir_node_t *n, const char *name)
{
    for (int k = 0; n && k < n->n_sources; k++)
        if (!strcmp(n->sources[k], name))
            return 1;
    return 0;
}

/* Runs g with the passes off and with `passes` on the same random inputs
 * (every input f32 of the given shapes); outputs must agree within tol
 * (relative to max(1, |ref|)). Returns the max error seen. */
static inline double compare_runs(const cairn_graph_t *g, const char *passes, int n_in,
                           const int64_t dims[][CAIRN_MAX_RANK], const int *ranks, double tol)
{
    cairn_session_options_t so = cairn_session_options_default();
    so.threads = 2;
    cairn_compile_options_t off = {"none", NULL, NULL}, on = {passes, NULL, NULL};
    cairn_session_t *s0 = NULL, *s1 = NULL;
    CHECK_OK(cairn_session_create_compiled(g, &so, &off, &s0));
    CHECK_OK(cairn_session_create_compiled(g, &so, &on, &s1));
    if (!s0 || !s1) {
        cairn_session_destroy(s0);
        cairn_session_destroy(s1);
        return INFINITY;
    }
    cairn_tensor_t in[4];
    check_rng_t r = {7};
    for (int i = 0; i < n_in; i++) {
        int64_t n = 1;
        in[i].dtype = CAIRN_F32;
        in[i].rank = ranks[i];
        for (int d = 0; d < ranks[i]; d++)
            in[i].shape[d] = dims[i][d], n *= dims[i][d];
        in[i].data = malloc((size_t)n * sizeof(float));
        check_fill_f32(&r, in[i].data, n, -2, 2);
    }
    int no = cairn_session_output_count(s0);
    cairn_tensor_t o0[4], o1[4];
    memset(o0, 0, sizeof o0);
    memset(o1, 0, sizeof o1);
    CHECK_OK(cairn_session_run(s0, in, n_in, o0, no));
    CHECK_OK(cairn_session_run(s1, in, n_in, o1, no));
    double worst = 0;
    for (int o = 0; o < no; o++) {
        CHECK(o0[o].rank == o1[o].rank && o0[o].data && o1[o].data);
        if (!o0[o].data || !o1[o].data)
            continue;
        int64_t n = cairn_tensor_numel(&o0[o]);
        CHECK(n == cairn_tensor_numel(&o1[o]));
        for (int64_t i = 0; i < n; i++) {
            double a = ((float *)o0[o].data)[i], b = ((float *)o1[o].data)[i];
            double e = fabs(a - b) / (fabs(a) > 1 ? fabs(a) : 1);
            if (!(e <= worst))
                worst = e;
        }
    }
    CHECK_MSG(worst <= tol, "passes '%s': max error %g > %g", passes, worst, tol);
    for (int i = 0; i < n_in; i++)
        free(in[i].data);
    cairn_session_destroy(s0);
    cairn_session_destroy(s1);
    return worst;
}

#endif
