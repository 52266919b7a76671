/* The harness shared by the norm and pool tests: run one op through the
 * public API with given inputs and caller-owned outputs, and small helpers. */
#ifndef CAIRN_TESTS_OP_TEST_UTIL_H
#define CAIRN_TESTS_OP_TEST_UTIL_H

#include "check.h"

#include "base/dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* Builds a graph whose inputs are ins[] (dtype UNDEFINED: omitted, -1;
 * constant when bit i of const_mask is set), runs op once on 2 threads and
 * writes outs[] (caller-owned buffers, which fixes the expected shapes).
 * Returns the first failing status; the error message survives cleanup. */
static cairn_status_t run_op(const char *op, const cairn_tensor_t *ins, int n_in,
                             unsigned const_mask, const cairn_attr_t *attrs, int n_attrs,
                             cairn_tensor_t *outs, int n_out)
{
    cairn_graph_t *g = NULL;
    cairn_session_t *s = NULL;
    cairn_status_t st = cairn_graph_create(&g);
    cairn_value_id iv[8], ov[8];
    cairn_tensor_t run_in[8];
    int n_run = 0;
    for (int i = 0; i < n_in && st == CAIRN_OK; i++) {
        char name[16];
        snprintf(name, sizeof name, "in%d", i);
        if (ins[i].dtype == CAIRN_DTYPE_UNDEFINED)
            iv[i] = -1;
        else if (const_mask & (1u << i))
            st = cairn_graph_add_constant(g, name, &ins[i], &iv[i]);
        else {
            st = cairn_graph_add_input(g, name, ins[i].dtype, ins[i].rank, ins[i].shape, NULL,
                                       &iv[i]);
            run_in[n_run++] = ins[i];
        }
    }
    if (st == CAIRN_OK)
        st = cairn_graph_add_node(g, op, "node", iv, n_in, attrs, n_attrs, ov, n_out, NULL);
    for (int o = 0; o < n_out && st == CAIRN_OK; o++)
        st = cairn_graph_mark_output(g, ov[o]);
    cairn_session_options_t opt = cairn_session_options_default();
    opt.threads = 2;
    if (st == CAIRN_OK)
        st = cairn_session_create(g, &opt, &s);
    if (st == CAIRN_OK)
        st = cairn_session_run(s, run_in, n_run, outs, n_out);
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
    return st;
}

static int64_t numel(const cairn_tensor_t *t) { return cairn_tensor_numel(t); }

/* A tensor of dtype t and the given shape with a fresh buffer. */
static cairn_tensor_t make(cairn_dtype_t t, int rank, const int64_t *shape)
{
    cairn_tensor_t x;
    memset(&x, 0, sizeof x);
    x.dtype = t;
    x.rank = rank;
    for (int i = 0; i < rank; i++)
        x.shape[i] = shape[i];
    size_t bytes = cairn_tensor_bytes(&x);
    x.data = malloc(bytes ? bytes : 1);
    return x;
}

/* Output buffer poisoned with all-ones bytes (NaN in every float type). */
static cairn_tensor_t make_out(cairn_dtype_t t, int rank, const int64_t *shape)
{
    cairn_tensor_t x = make(t, rank, shape);
    memset(x.data, 0xff, cairn_tensor_bytes(&x));
    return x;
}

static cairn_tensor_t from_doubles(cairn_dtype_t t, int rank, const int64_t *shape,
                                   const double *v)
{
    cairn_tensor_t x = make(t, rank, shape);
    for (int64_t i = 0; i < numel(&x); i++)
        base_store_from_double(x.data, t, i, v[i]);
    return x;
}

/* Random values in [lo, hi), rounded to dtype t (so references see what
 * the kernel sees). */
static cairn_tensor_t make_rand(check_rng_t *r, cairn_dtype_t t, int rank, const int64_t *shape,
                                double lo, double hi)
{
    cairn_tensor_t x = make(t, rank, shape);
    for (int64_t i = 0; i < numel(&x); i++)
        base_store_from_double(x.data, t, i, check_rng_uniform(r, lo, hi));
    return x;
}

static double at(const cairn_tensor_t *t, int64_t i) { return base_load_as_double(t->data, t->dtype, i); }

static double tol_of(cairn_dtype_t t)
{
    switch (t) {
    case CAIRN_F64: return 1e-12;
    case CAIRN_F32: return 2e-6;
    case CAIRN_F16: return 2e-3;
    default: return 1.6e-2;
    }
}

/* |got - want| <= tol * (1 + |want|) everywhere; reports the worst. */
static int check_near(const cairn_tensor_t *got, const double *want, double tol, const char *what)
{
    int64_t n = numel(got), worst = -1;
    double excess = 0;
    for (int64_t i = 0; i < n; i++) {
        double g = at(got, i), err = fabs(g - want[i]), lim = tol * (1 + fabs(want[i]));
        if (g == want[i]) /* also equal infinities */
            continue;
        if (!(err <= lim) && (worst < 0 || err - lim > excess))
            worst = i, excess = err - lim;
    }
    check_count_++;
    if (worst >= 0) {
        check_failures_++;
        fprintf(stderr, "%s (%s): element %lld: got %.10g, want %.10g\n", what,
                cairn_dtype_name(got->dtype), (long long)worst, at(got, worst), want[worst]);
        return 0;
    }
    return 1;
}

static void drop(cairn_tensor_t *t)
{
    free(t->data);
    t->data = NULL;
}

static const cairn_dtype_t float_types[4] = {CAIRN_F32, CAIRN_F64, CAIRN_F16, CAIRN_BF16};
#endif
