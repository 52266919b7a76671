/*
 * Shared helpers for the reduce-family tests: build a one-node graph
 * through the public API, run it once into poisoned caller buffers, and
 * compare any-dtype outputs against doubles.
 */
#ifndef CAIRN_TEST_REDUCE_COMMON_H
#define CAIRN_TEST_REDUCE_COMMON_H

#include "check.h"

#include "base/dtype.h"

/* One node input: a graph input (fed at run time), a constant, or omitted
 * (t == NULL). */
typedef struct rt_in {
    const cairn_tensor_t *t;
    int is_const;
} rt_in_t;

static int rt_threads = 1;
/* Where the last rt_run stopped: 0 building, 1 session create, 2 run. */
static int rt_stage;

/* Builds op(ins...) with attrs, runs it once writing outs (caller buffers
 * whose dtype/shape must match the inferred ones). Returns the first
 * failing status, message kept. */
static cairn_status_t rt_run(const char *op, const rt_in_t *ins, int n_in, const cairn_attr_t *attrs,
                             int n_attrs, cairn_tensor_t *outs, int n_out)
{
    cairn_graph_t *g = NULL;
    cairn_session_t *s = NULL;
    cairn_value_id ids[8], oids[4];
    cairn_tensor_t feeds[8];
    int n_feed = 0;
    cairn_status_t st = cairn_graph_create(&g);
    if (st != CAIRN_OK)
        return st;
    for (int i = 0; i < n_in && st == CAIRN_OK; i++) {
        char name[16];
        snprintf(name, sizeof name, "in%d", i);
        if (!ins[i].t) {
            ids[i] = -1;
        } else if (ins[i].is_const) {
            st = cairn_graph_add_constant(g, name, ins[i].t, &ids[i]);
        } else {
            st = cairn_graph_add_input(g, name, ins[i].t->dtype, ins[i].t->rank, ins[i].t->shape,
                                       NULL, &ids[i]);
            feeds[n_feed++] = *ins[i].t;
        }
    }
    rt_stage = 0;
    if (st == CAIRN_OK)
        st = cairn_graph_add_node(g, op, "node", ids, n_in, attrs, n_attrs, oids, n_out, NULL);
    for (int o = 0; o < n_out && st == CAIRN_OK; o++)
        st = cairn_graph_mark_output(g, oids[o]);
    cairn_session_options_t opt = cairn_session_options_default();
    opt.threads = rt_threads;
    if (st == CAIRN_OK) {
        rt_stage = 1;
        st = cairn_session_create(g, &opt, &s);
    }
    if (st == CAIRN_OK) {
        rt_stage = 2;
        st = cairn_session_run(s, feeds, n_feed, outs, n_out);
    }
    /* (destroying does not clear the failure's message) */
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
    return st;
}

static int64_t rt_numel(const int64_t *shape, int rank)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    return n;
}

/* Fills a buffer so that unwritten elements are noticed: NaN for floats,
 * 0x5A5A... for integers. */
static void rt_poison(cairn_tensor_t *t)
{
    size_t b = (size_t)rt_numel(t->shape, t->rank) * cairn_dtype_size(t->dtype);
    int fl = t->dtype == CAIRN_F32 || t->dtype == CAIRN_F64 || t->dtype == CAIRN_F16 ||
             t->dtype == CAIRN_BF16;
    memset(t->data, fl ? 0xFF : 0x5A, b);
}

static double rt_get(const cairn_tensor_t *t, int64_t i) { return base_load_as_double(t->data, t->dtype, i); }

/* Compares t against want (NaN matches NaN, inf matches same inf). */
static int rt_close(const cairn_tensor_t *t, const double *want, double atol, double rtol,
                    const char *what)
{
    int64_t n = rt_numel(t->shape, t->rank);
    for (int64_t i = 0; i < n; i++) {
        double g = rt_get(t, i), w = want[i];
        int ok;
        if (isnan(w))
            ok = isnan(g);
        else if (isinf(w))
            ok = g == w;
        else
            ok = fabs(g - w) <= atol + rtol * fabs(w);
        if (!ok) {
            check_count_++;
            check_failures_++;
            fprintf(stderr, "%s: element %lld: got %.9g, want %.9g\n", what, (long long)i, g, w);
            return 0;
        }
    }
    check_count_++;
    return 1;
}

#endif
