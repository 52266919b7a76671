/* Shared helpers for the linalg tests: run one op through the public API. */
#ifndef CAIRN_TESTS_TEST_LINALG_UTIL_H
#define CAIRN_TESTS_TEST_LINALG_UTIL_H

#include "check.h"

#include "base/dtype.h"
#include "base/status.h"

/* Builds a graph with one node `op`: ins[i] with dtype UNDEFINED is an
 * omitted optional input; the others are graph inputs (or constants when
 * as_const). Runs it into *out (dtype/shape/data given by the caller, so a
 * shape that inference got wrong fails the run). Returns the first failure. */
static cairn_status_t lt_run(const char *op, const cairn_tensor_t *ins, int n_in,
                             const cairn_attr_t *attrs, int n_attrs, cairn_tensor_t *out,
                             int threads, int as_const)
{
    cairn_graph_t *g;
    cairn_status_t s = cairn_graph_create(&g);
    if (s)
        return s;
    cairn_value_id ids[8];
    cairn_tensor_t feed[8];
    int n_feed = 0;
    for (int i = 0; i < n_in; i++) {
        char name[16];
        snprintf(name, sizeof name, "in%d", i);
        if (ins[i].dtype == CAIRN_DTYPE_UNDEFINED) {
            ids[i] = -1;
            continue;
        }
        if (as_const)
            s = cairn_graph_add_constant(g, name, &ins[i], &ids[i]);
        else {
            s = cairn_graph_add_input(g, name, ins[i].dtype, ins[i].rank, ins[i].shape, NULL,
                                      &ids[i]);
            feed[n_feed++] = ins[i];
        }
        if (s)
            goto done;
    }
    if (as_const && n_feed == 0) {
        /* a graph without inputs trips a memcpy(NULL, .., 0) in ir_graph_clone
         * (UBSan); give it an unused one */
        static float dummy;
        cairn_value_id unused;
        int64_t one = 1;
        if ((s = cairn_graph_add_input(g, "unused", CAIRN_F32, 1, &one, NULL, &unused)))
            goto done;
        feed[n_feed++] = (cairn_tensor_t){CAIRN_F32, 1, {1}, &dummy};
    }
    cairn_value_id y;
    if ((s = cairn_graph_add_node(g, op, "node", ids, n_in, attrs, n_attrs, &y, 1, NULL)))
        goto done;
    if ((s = cairn_graph_mark_output(g, y)))
        goto done;
    cairn_session_t *sess;
    cairn_session_options_t o = cairn_session_options_default();
    o.threads = threads;
    if ((s = cairn_session_create(g, &o, &sess)))
        goto done;
    s = cairn_session_run(sess, feed, n_feed, out, 1);
    cairn_session_destroy(sess);
done:
    cairn_graph_destroy(g);
    return s;
}

static int64_t lt_numel(const cairn_tensor_t *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

/* Fills a buffer of any float/int dtype with values from [lo, hi) (ints: rounded). */
static void lt_fill(check_rng_t *r, void *p, cairn_dtype_t t, int64_t n, double lo, double hi)
{
    for (int64_t i = 0; i < n; i++) {
        double v = check_rng_uniform(r, lo, hi);
        if (!base_dtype_is_float(t))
            v = floor(v);
        base_store_from_double(p, t, i, v);
    }
}

static void lt_poison(void *p, cairn_dtype_t t, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        base_store_from_double(p, t, i, base_dtype_is_float(t) ? NAN : -777777.0);
}

#endif
