/*
 * Softmax, LogSoftmax, LayerNormalization, RMSNormalization,
 * BatchNormalization and InstanceNormalization through the public API: literal hand-computed
 * cases, random cases against double-precision formulations written here
 * (softmax without the max shift, variance as E[x^2] - E[x]^2), every dtype,
 * every axis of ranks 1..5, and the error paths.
 */
#include "check.h"

#include "base/dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- harness ---- */
#include "op_test_util.h"

static void rand_shape(check_rng_t *r, int rank, int64_t *shape, int max_dim)
{
    for (int i = 0; i < rank; i++)
        shape[i] = 1 + (int64_t)(check_rng_next(r) % (uint64_t)max_dim);
}

/* ---- Softmax / LogSoftmax ---- */

static void test_softmax_literal(void)
{
    const double want_sm[3] = {0.0900305731703804562, 0.244728471054797619, 0.665240955774821924};
    const double want_lsm[3] = {-2.40760596444437921, -1.40760596444437921, -0.407605964444379211};
    int64_t sh[1] = {3};
    const double small[3] = {1, 2, 3}, big[3] = {1000, 1001, 1002}, neg[3] = {-1002, -1001, -1000};
    const double *rows[3] = {small, big, neg};
    for (int r = 0; r < 3; r++) {
        cairn_tensor_t x = from_doubles(CAIRN_F32, 1, sh, rows[r]);
        cairn_tensor_t y = make_out(CAIRN_F32, 1, sh);
        CHECK_OK(run_op("Softmax", &x, 1, 0, NULL, 0, &y, 1));
        check_near(&y, want_sm, 1e-6, "softmax literal");
        CHECK_OK(run_op("LogSoftmax", &x, 1, 0, NULL, 0, &y, 1));
        /* big inputs lose absolute precision in f32 only through the input */
        check_near(&y, want_lsm, 1e-6, "log-softmax literal");
        drop(&x), drop(&y);
    }
    /* axis 0 of [[1,2,3],[1,4,1]] */
    int64_t sh2[2] = {2, 3};
    const double xv[6] = {1, 2, 3, 1, 4, 1};
    const double s = 0.119202922022117574, b = 0.880797077977882444;
    const double want[6] = {0.5, s, b, 0.5, b, s};
    cairn_tensor_t x = from_doubles(CAIRN_F64, 2, sh2, xv);
    cairn_tensor_t y = make_out(CAIRN_F64, 2, sh2);
    cairn_attr_t a0 = cairn_attr_int("axis", 0);
    CHECK_OK(run_op("Softmax", &x, 1, 0, &a0, 1, &y, 1));
    check_near(&y, want, 1e-15, "softmax axis 0");
    cairn_attr_t am2 = cairn_attr_int("axis", -2);
    memset(y.data, 0xff, cairn_tensor_bytes(&y));
    CHECK_OK(run_op("Softmax", &x, 1, 1, &am2, 1, &y, 1)); /* constant input: folded */
    check_near(&y, want, 1e-15, "softmax axis -2 (folded)");
    drop(&x), drop(&y);
}

static void test_softmax_random(void)
{
    check_rng_t r = {0x5eed1234u};
    for (int rank = 1; rank <= 5; rank++) {
        for (int axis = -rank; axis < rank; axis++) {
            cairn_dtype_t t = float_types[(rank + axis + 8) % 4];
            int64_t sh[5];
            rand_shape(&r, rank, sh, rank >= 4 ? 4 : 7);
            cairn_tensor_t x = make_rand(&r, t, rank, sh, -6, 6);
            int ax = axis < 0 ? axis + rank : axis;
            int64_t outer = 1, len = sh[ax], inner = 1;
            for (int i = 0; i < ax; i++)
                outer *= sh[i];
            for (int i = ax + 1; i < rank; i++)
                inner *= sh[i];
            int64_t n = numel(&x);
            double *want = malloc((size_t)n * sizeof *want), *wantl = malloc((size_t)n * sizeof *wantl);
            for (int64_t o = 0; o < outer; o++)
                for (int64_t i = 0; i < inner; i++) {
                    double sum = 0;
                    for (int64_t a = 0; a < len; a++)
                        sum += exp(at(&x, (o * len + a) * inner + i));
                    for (int64_t a = 0; a < len; a++) {
                        int64_t k = (o * len + a) * inner + i;
                        want[k] = exp(at(&x, k)) / sum;
                        wantl[k] = at(&x, k) - log(sum);
                    }
                }
            cairn_attr_t aa = cairn_attr_int("axis", axis);
            cairn_tensor_t y = make_out(t, rank, sh);
            CHECK_OK(run_op("Softmax", &x, 1, 0, &aa, 1, &y, 1));
            check_near(&y, want, tol_of(t), "softmax random");
            memset(y.data, 0xff, cairn_tensor_bytes(&y));
            CHECK_OK(run_op("LogSoftmax", &x, 1, 0, &aa, 1, &y, 1));
            check_near(&y, wantl, 2 * tol_of(t), "log-softmax random");
            free(want), free(wantl);
            drop(&x), drop(&y);
        }
    }
    /* a long row and the default axis on a size-1 last dim */
    int64_t sh[2] = {3, 1000};
    cairn_tensor_t x = make_rand(&r, CAIRN_F32, 2, sh, -20, 20);
    double *want = malloc(3000 * sizeof *want);
    for (int o = 0; o < 3; o++) {
        double sum = 0;
        for (int a = 0; a < 1000; a++)
            sum += exp(at(&x, o * 1000 + a));
        for (int a = 0; a < 1000; a++)
            want[o * 1000 + a] = exp(at(&x, o * 1000 + a)) / sum;
    }
    cairn_tensor_t y = make_out(CAIRN_F32, 2, sh);
    CHECK_OK(run_op("Softmax", &x, 1, 0, NULL, 0, &y, 1));
    check_near(&y, want, 2e-6, "softmax long row");
    free(want), drop(&x), drop(&y);
    int64_t sh1[3] = {2, 3, 1};
    const double v[6] = {5, -3, 2, 0, 1, 9};
    const double ones[6] = {1, 1, 1, 1, 1, 1}, zeros[6] = {0};
    x = from_doubles(CAIRN_F32, 3, sh1, v);
    y = make_out(CAIRN_F32, 3, sh1);
    CHECK_OK(run_op("Softmax", &x, 1, 0, NULL, 0, &y, 1));
    check_near(&y, ones, 0, "softmax size-1 axis");
    CHECK_OK(run_op("LogSoftmax", &x, 1, 0, NULL, 0, &y, 1));
    check_near(&y, zeros, 0, "log-softmax size-1 axis");
    drop(&x), drop(&y);
}

static void test_softmax_errors(void)
{
    int64_t sh[2] = {2, 3};
    cairn_tensor_t x = make(CAIRN_F32, 2, sh), y = make_out(CAIRN_F32, 2, sh);
    memset(x.data, 0, cairn_tensor_bytes(&x));
    cairn_attr_t a = cairn_attr_int("axis", 2);
    CHECK_FAILS(run_op("Softmax", &x, 1, 0, &a, 1, &y, 1), CAIRN_ERR_SHAPE, "axis 2");
    a = cairn_attr_int("axis", -3);
    CHECK_FAILS(run_op("LogSoftmax", &x, 1, 0, &a, 1, &y, 1), CAIRN_ERR_SHAPE, "axis -3");
    cairn_tensor_t xi = make(CAIRN_I32, 2, sh);
    memset(xi.data, 0, cairn_tensor_bytes(&xi));
    CHECK_FAILS(run_op("Softmax", &xi, 1, 0, NULL, 0, &y, 1), CAIRN_ERR_DTYPE, "i32");
    cairn_tensor_t x0 = make(CAIRN_F32, 0, sh);
    memset(x0.data, 0, 4);
    CHECK_FAILS(run_op("Softmax", &x0, 1, 0, NULL, 0, &y, 1), CAIRN_ERR_SHAPE, "rank 0");
    drop(&x), drop(&y), drop(&xi), drop(&x0);
}

/* ---- LayerNormalization ---- */

static void test_layernorm_literal(void)
{
    int64_t sh[2] = {1, 4}, psh[1] = {4}, msh[2] = {1, 1};
    const double xv[4] = {1, 2, 3, 4}, sc[4] = {2, 2, 2, 2}, bv[4] = {1, 1, 1, 1};
    const double z = 1.34164078649987382, w = 0.447213595499957939;
    const double want[4] = {-2 * z + 1, -2 * w + 1, 2 * w + 1, 2 * z + 1};
    const double want_mean[1] = {2.5}, want_isd[1] = {0.894427190999915879};
    for (int ti = 0; ti < 4; ti++) {
        cairn_dtype_t t = float_types[ti];
        cairn_tensor_t in[3] = {from_doubles(t, 2, sh, xv), from_doubles(t, 1, psh, sc),
                                from_doubles(t, 1, psh, bv)};
        cairn_tensor_t out[3] = {make_out(t, 2, sh), make_out(CAIRN_F32, 2, msh),
                                 make_out(CAIRN_F32, 2, msh)};
        cairn_attr_t eps = cairn_attr_float("epsilon", 0.0f);
        CHECK_OK(run_op("LayerNormalization", in, 3, 0, &eps, 1, out, 3));
        check_near(&out[0], want, tol_of(t), "layernorm literal Y");
        check_near(&out[1], want_mean, 1e-7, "layernorm literal Mean");
        check_near(&out[2], want_isd, 1e-7, "layernorm literal InvStdDev");
        for (int i = 0; i < 3; i++)
            drop(&in[i]), drop(&out[i]);
    }
}

/* One random LayerNormalization case: x of shape sh, axis, scale of rank
 * sr (its dims: 1 where bit d of ones_mask is set, else x's), optional B. */
static void layernorm_case(check_rng_t *r, cairn_dtype_t t, int rank, const int64_t *sh, int axis,
                           int sr, unsigned ones_mask, int with_b, int n_out)
{
    int ax = axis < 0 ? axis + rank : axis;
    int nd = rank - ax;
    int64_t psh[8];
    for (int d = 0; d < sr; d++)
        psh[d] = (ones_mask >> d) & 1 ? 1 : sh[rank - sr + d];
    cairn_tensor_t in[3];
    in[0] = make_rand(r, t, rank, sh, -3, 3);
    in[1] = make_rand(r, t, sr, psh, 0.5, 2);
    if (with_b)
        in[2] = make_rand(r, t, sr, psh, -1, 1);
    else
        memset(&in[2], 0, sizeof in[2]);
    int64_t rows = 1, d = 1, msh[8];
    for (int i = 0; i < rank; i++) {
        if (i < ax)
            rows *= sh[i];
        else
            d *= sh[i];
        msh[i] = i < ax ? sh[i] : 1;
    }
    int64_t n = rows * d;
    double *want = malloc((size_t)(n ? n : 1) * sizeof *want);
    double *wm = malloc((size_t)rows * sizeof *wm), *wi = malloc((size_t)rows * sizeof *wi);
    const double eps = 1e-3;
    for (int64_t row = 0; row < rows; row++) {
        double s = 0, s2 = 0;
        for (int64_t j = 0; j < d; j++) {
            double v = at(&in[0], row * d + j);
            s += v, s2 += v * v;
        }
        double mean = s / (double)d, var = s2 / (double)d - mean * mean;
        wm[row] = mean, wi[row] = 1 / sqrt(var + eps);
        for (int64_t j = 0; j < d; j++) {
            /* the scale element for normalised offset j, by explicit index math */
            int64_t rem = j, so = 0, stride = 1;
            int64_t idx[8];
            for (int q = nd - 1; q >= 0; q--) {
                idx[q] = rem % sh[ax + q];
                rem /= sh[ax + q];
            }
            for (int q = sr - 1; q >= 0; q--) {
                int64_t di = idx[nd - sr + q];
                so += (psh[q] == 1 ? 0 : di) * stride;
                stride *= psh[q];
            }
            double b = with_b ? at(&in[2], so) : 0;
            want[row * d + j] = (at(&in[0], row * d + j) - mean) * wi[row] * at(&in[1], so) + b;
        }
    }
    cairn_tensor_t out[3] = {make_out(t, rank, sh), make_out(CAIRN_F32, rank, msh),
                             make_out(CAIRN_F32, rank, msh)};
    cairn_attr_t attrs[2] = {cairn_attr_int("axis", axis), cairn_attr_float("epsilon", (float)eps)};
    CHECK_OK(run_op("LayerNormalization", in, with_b ? 3 : 2, 0, attrs, 2, out, n_out));
    check_near(&out[0], want, 2 * tol_of(t) + 1e-9, "layernorm random Y");
    if (n_out > 1)
        check_near(&out[1], wm, 1e-6, "layernorm random Mean");
    if (n_out > 2)
        check_near(&out[2], wi, 1e-6, "layernorm random InvStdDev");
    free(want), free(wm), free(wi);
    for (int i = 0; i < 3; i++)
        drop(&in[i]), drop(&out[i]);
}

static void test_layernorm_random(void)
{
    check_rng_t r = {0xabcdef01u};
    int k = 0;
    for (int rank = 1; rank <= 5; rank++)
        for (int axis = -rank; axis < rank; axis++, k++) {
            int64_t sh[5];
            rand_shape(&r, rank, sh, rank >= 4 ? 4 : 6);
            int ax = axis < 0 ? axis + rank : axis;
            int nd = rank - ax;
            cairn_dtype_t t = float_types[k % 4];
            layernorm_case(&r, t, rank, sh, axis, nd, 0, k % 2, 1 + k % 3);
            /* broadcast scale: fewer dims, and dims of 1 */
            if (nd >= 2) {
                layernorm_case(&r, t, rank, sh, axis, nd - 1, 0, 1, 3);
                layernorm_case(&r, t, rank, sh, axis, nd, 1u, 1, 3);
            }
            layernorm_case(&r, t, rank, sh, axis, 1, 1u, (k + 1) % 2, 3);
        }
    /* size-1 normalised dim: Y = B, InvStdDev = 1/sqrt(eps) */
    int64_t sh[3] = {2, 3, 1};
    layernorm_case(&r, CAIRN_F32, 3, sh, -1, 1, 0, 1, 3);
}

static void test_layernorm_errors(void)
{
    int64_t sh[3] = {2, 3, 4}, bad[1] = {3}, ok1[1] = {4}, big[4] = {1, 2, 3, 4};
    cairn_tensor_t x = make(CAIRN_F32, 3, sh), s_bad = make(CAIRN_F32, 1, bad);
    cairn_tensor_t s_ok = make(CAIRN_F32, 1, ok1), s_big = make(CAIRN_F32, 4, big);
    cairn_tensor_t s_f64 = make(CAIRN_F64, 1, ok1);
    memset(x.data, 0, cairn_tensor_bytes(&x));
    memset(s_bad.data, 0, 12), memset(s_ok.data, 0, 16), memset(s_f64.data, 0, 32);
    memset(s_big.data, 0, cairn_tensor_bytes(&s_big));
    cairn_tensor_t y[1] = {make_out(CAIRN_F32, 3, sh)};
    cairn_tensor_t in[3] = {x, s_bad};
    CHECK_FAILS(run_op("LayerNormalization", in, 2, 0, NULL, 0, y, 1), CAIRN_ERR_SHAPE, "Scale");
    in[1] = s_ok, in[2] = s_bad;
    CHECK_FAILS(run_op("LayerNormalization", in, 3, 0, NULL, 0, y, 1), CAIRN_ERR_SHAPE, "B");
    in[1] = s_big;
    CHECK_FAILS(run_op("LayerNormalization", in, 2, 0, NULL, 0, y, 1), CAIRN_ERR_SHAPE, "rank 4");
    in[1] = s_f64;
    CHECK_FAILS(run_op("LayerNormalization", in, 2, 0, NULL, 0, y, 1), CAIRN_ERR_DTYPE, "f64");
    in[1] = s_ok;
    cairn_attr_t a = cairn_attr_int("axis", 3);
    CHECK_FAILS(run_op("LayerNormalization", in, 2, 0, &a, 1, y, 1), CAIRN_ERR_SHAPE, "axis 3");
    a = cairn_attr_int("axis", -4);
    CHECK_FAILS(run_op("LayerNormalization", in, 2, 0, &a, 1, y, 1), CAIRN_ERR_SHAPE, "axis -4");
    a = cairn_attr_int("stash_type", 7);
    CHECK_FAILS(run_op("LayerNormalization", in, 2, 0, &a, 1, y, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "stash_type");
    a = cairn_attr_float("epsilon", -1.0f);
    CHECK_FAILS(run_op("LayerNormalization", in, 2, 0, &a, 1, y, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "epsilon");
    in[1].dtype = CAIRN_DTYPE_UNDEFINED;
    CHECK_FAILS(run_op("LayerNormalization", in, 2, 0, NULL, 0, y, 1), CAIRN_ERR_GRAPH,
                "input 1 is required");
    drop(&x), drop(&s_bad), drop(&s_ok), drop(&s_big), drop(&s_f64), drop(&y[0]);
}

/* ---- RMSNormalization ---- */

static void test_rmsnorm_literal(void)
{
    /* mean of squares 30/4 = 7.5; y = x * 2 / sqrt(7.5) */
    int64_t sh[2] = {1, 4}, psh[1] = {4};
    const double xv[4] = {1, 2, 3, -4}, sc[4] = {2, 2, 2, 2};
    const double k = 2 / 2.73861278752583057;
    const double want[4] = {k, 2 * k, 3 * k, -4 * k};
    for (int ti = 0; ti < 4; ti++) {
        cairn_dtype_t t = float_types[ti];
        cairn_tensor_t in[2] = {from_doubles(t, 2, sh, xv), from_doubles(t, 1, psh, sc)};
        cairn_tensor_t out[1] = {make_out(t, 2, sh)};
        cairn_attr_t eps = cairn_attr_float("epsilon", 0.0f);
        CHECK_OK(run_op("RMSNormalization", in, 2, 0, &eps, 1, out, 1));
        check_near(&out[0], want, tol_of(t), "rmsnorm literal Y");
        drop(&in[0]), drop(&in[1]), drop(&out[0]);
    }
}

/* One random RMSNormalization case: x of shape sh, axis, scale of rank sr
 * (its dims: 1 where bit d of ones_mask is set, else x's). */
static void rmsnorm_case(check_rng_t *r, cairn_dtype_t t, int rank, const int64_t *sh, int axis,
                         int sr, unsigned ones_mask)
{
    int ax = axis < 0 ? axis + rank : axis;
    int nd = rank - ax;
    int64_t psh[8];
    for (int d = 0; d < sr; d++)
        psh[d] = (ones_mask >> d) & 1 ? 1 : sh[rank - sr + d];
    cairn_tensor_t in[2];
    in[0] = make_rand(r, t, rank, sh, -3, 3);
    in[1] = make_rand(r, t, sr, psh, 0.5, 2);
    int64_t rows = 1, d = 1;
    for (int i = 0; i < rank; i++) {
        if (i < ax)
            rows *= sh[i];
        else
            d *= sh[i];
    }
    int64_t n = rows * d;
    double *want = malloc((size_t)(n ? n : 1) * sizeof *want);
    const double eps = (float)1e-3; /* the attribute is a float */
    for (int64_t row = 0; row < rows; row++) {
        double s2 = 0;
        for (int64_t j = 0; j < d; j++) {
            double v = at(&in[0], row * d + j);
            s2 += v * v;
        }
        double rms = sqrt(s2 / (double)d + eps);
        for (int64_t j = 0; j < d; j++) {
            int64_t rem = j, so = 0, stride = 1;
            int64_t idx[8];
            for (int q = nd - 1; q >= 0; q--) {
                idx[q] = rem % sh[ax + q];
                rem /= sh[ax + q];
            }
            for (int q = sr - 1; q >= 0; q--) {
                int64_t di = idx[nd - sr + q];
                so += (psh[q] == 1 ? 0 : di) * stride;
                stride *= psh[q];
            }
            want[row * d + j] = at(&in[0], row * d + j) / rms * at(&in[1], so);
        }
    }
    cairn_tensor_t out[1] = {make_out(t, rank, sh)};
    cairn_attr_t attrs[2] = {cairn_attr_int("axis", axis), cairn_attr_float("epsilon", (float)eps)};
    CHECK_OK(run_op("RMSNormalization", in, 2, 0, attrs, 2, out, 1));
    check_near(&out[0], want, 2 * tol_of(t) + 1e-9, "rmsnorm random Y");
    free(want);
    drop(&in[0]), drop(&in[1]), drop(&out[0]);
}

static void test_rmsnorm_random(void)
{
    check_rng_t r = {0x5eed0123u};
    int k = 0;
    for (int rank = 1; rank <= 5; rank++)
        for (int axis = -rank; axis < rank; axis++, k++) {
            int64_t sh[5];
            rand_shape(&r, rank, sh, rank >= 4 ? 4 : 6);
            int ax = axis < 0 ? axis + rank : axis;
            int nd = rank - ax;
            cairn_dtype_t t = float_types[k % 4];
            rmsnorm_case(&r, t, rank, sh, axis, nd, 0);
            if (nd >= 2) { /* broadcast scale: fewer dims, and dims of 1 */
                rmsnorm_case(&r, t, rank, sh, axis, nd - 1, 0);
                rmsnorm_case(&r, t, rank, sh, axis, nd, 1u);
            }
            rmsnorm_case(&r, t, rank, sh, axis, 1, 1u);
        }
    /* rows long enough for every vector path (and its tail) of the fast kernel */
    int64_t sh[2] = {5, 1031};
    rmsnorm_case(&r, CAIRN_F32, 2, sh, -1, 1, 0);
    /* size-1 normalised dim: y = x / sqrt(x^2 + eps) * scale */
    int64_t sh1[3] = {2, 3, 1};
    rmsnorm_case(&r, CAIRN_F32, 3, sh1, -1, 1, 0);
}

static void test_rmsnorm_errors(void)
{
    int64_t sh[3] = {2, 3, 4}, bad[1] = {3}, ok1[1] = {4}, big[4] = {1, 2, 3, 4};
    cairn_tensor_t x = make(CAIRN_F32, 3, sh), s_bad = make(CAIRN_F32, 1, bad);
    cairn_tensor_t s_ok = make(CAIRN_F32, 1, ok1), s_big = make(CAIRN_F32, 4, big);
    cairn_tensor_t s_f64 = make(CAIRN_F64, 1, ok1), xi = make(CAIRN_I32, 3, sh);
    memset(x.data, 0, cairn_tensor_bytes(&x)), memset(xi.data, 0, cairn_tensor_bytes(&xi));
    memset(s_bad.data, 0, 12), memset(s_ok.data, 0, 16), memset(s_f64.data, 0, 32);
    memset(s_big.data, 0, cairn_tensor_bytes(&s_big));
    cairn_tensor_t y[1] = {make_out(CAIRN_F32, 3, sh)};
    cairn_tensor_t in[2] = {x, s_bad};
    CHECK_FAILS(run_op("RMSNormalization", in, 2, 0, NULL, 0, y, 1), CAIRN_ERR_SHAPE, "scale");
    in[1] = s_big;
    CHECK_FAILS(run_op("RMSNormalization", in, 2, 0, NULL, 0, y, 1), CAIRN_ERR_SHAPE, "rank 4");
    in[1] = s_f64;
    CHECK_FAILS(run_op("RMSNormalization", in, 2, 0, NULL, 0, y, 1), CAIRN_ERR_DTYPE, "f64");
    in[1] = s_ok;
    cairn_attr_t a = cairn_attr_int("axis", 3);
    CHECK_FAILS(run_op("RMSNormalization", in, 2, 0, &a, 1, y, 1), CAIRN_ERR_SHAPE, "axis 3");
    a = cairn_attr_int("axis", -4);
    CHECK_FAILS(run_op("RMSNormalization", in, 2, 0, &a, 1, y, 1), CAIRN_ERR_SHAPE, "axis -4");
    a = cairn_attr_int("stash_type", 7);
    CHECK_FAILS(run_op("RMSNormalization", in, 2, 0, &a, 1, y, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "stash_type");
    a = cairn_attr_float("epsilon", -1.0f);
    CHECK_FAILS(run_op("RMSNormalization", in, 2, 0, &a, 1, y, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "epsilon");
    in[0] = xi;
    CHECK_FAILS(run_op("RMSNormalization", in, 2, 0, NULL, 0, y, 1), CAIRN_ERR_DTYPE, "i32");
    in[0] = x;
    CHECK_FAILS(run_op("RMSNormalization", in, 1, 0, NULL, 0, y, 1), CAIRN_ERR_GRAPH, "");
    drop(&x), drop(&xi), drop(&s_bad), drop(&s_ok), drop(&s_big), drop(&s_f64), drop(&y[0]);
}

/* ---- BatchNormalization, InstanceNormalization ---- */

static void test_batchnorm(void)
{
    int64_t sh[4] = {1, 2, 1, 2}, c[1] = {2};
    const double xv[4] = {1, 2, 3, 4}, sc[2] = {1, 2}, bv[2] = {0, 1}, mv[2] = {1.5, 3},
                 vv[2] = {0.25, 1};
    const double lit[4] = {-1, 1, 1, 3};
    cairn_attr_t eps0 = cairn_attr_float("epsilon", 0.0f);
    for (int ti = 0; ti < 4; ti++) {
        cairn_dtype_t t = float_types[ti], pt = float_types[(ti + 1) % 4];
        cairn_tensor_t in[5] = {from_doubles(t, 4, sh, xv), from_doubles(pt, 1, c, sc),
                                from_doubles(pt, 1, c, bv), from_doubles(CAIRN_F32, 1, c, mv),
                                from_doubles(CAIRN_F32, 1, c, vv)};
        cairn_tensor_t y = make_out(t, 4, sh);
        CHECK_OK(run_op("BatchNormalization", in, 5, ti == 0 ? 0x1eu : 0, &eps0, 1, &y, 1));
        check_near(&y, lit, tol_of(t), "batchnorm literal");
        for (int i = 0; i < 5; i++)
            drop(&in[i]);
        drop(&y);
    }
    /* random, ranks 2..5 */
    check_rng_t r = {0x77u};
    for (int rank = 2; rank <= 5; rank++) {
        cairn_dtype_t t = float_types[rank % 4];
        int64_t xs[5];
        rand_shape(&r, rank, xs, 5);
        int64_t cs[1] = {xs[1]};
        cairn_tensor_t in[5] = {make_rand(&r, t, rank, xs, -4, 4), make_rand(&r, t, 1, cs, -2, 2),
                                make_rand(&r, t, 1, cs, -1, 1), make_rand(&r, t, 1, cs, -1, 1),
                                make_rand(&r, t, 1, cs, 0.1, 3)};
        int64_t n = numel(&in[0]), plane = n / (xs[0] * xs[1]);
        double *want = malloc((size_t)n * sizeof *want);
        for (int64_t i = 0; i < n; i++) {
            int64_t ch = (i / plane) % xs[1];
            want[i] = (at(&in[0], i) - at(&in[3], ch)) / sqrt(at(&in[4], ch) + 1e-5) *
                          at(&in[1], ch) + at(&in[2], ch);
        }
        cairn_tensor_t y = make_out(t, rank, xs);
        CHECK_OK(run_op("BatchNormalization", in, 5, 0, NULL, 0, &y, 1));
        check_near(&y, want, 2 * tol_of(t), "batchnorm random");
        free(want);
        for (int i = 0; i < 5; i++)
            drop(&in[i]);
        drop(&y);
    }
    /* errors */
    int64_t c3[1] = {3};
    cairn_tensor_t in[5] = {from_doubles(CAIRN_F32, 4, sh, xv), from_doubles(CAIRN_F32, 1, c, sc),
                            from_doubles(CAIRN_F32, 1, c, bv), from_doubles(CAIRN_F32, 1, c, mv),
                            from_doubles(CAIRN_F32, 1, c, vv)};
    cairn_tensor_t ys[3] = {make_out(CAIRN_F32, 4, sh), make_out(CAIRN_F32, 1, c),
                            make_out(CAIRN_F32, 1, c)};
    cairn_attr_t tm = cairn_attr_int("training_mode", 1);
    CHECK_FAILS(run_op("BatchNormalization", in, 5, 0, &tm, 1, ys, 3), CAIRN_ERR_UNSUPPORTED,
                "training_mode=1");
    CHECK_FAILS(run_op("BatchNormalization", in, 5, 0, NULL, 0, ys, 3),
                CAIRN_ERR_INVALID_ARGUMENT, "running_mean");
    cairn_tensor_t keep = in[1];
    in[1] = make(CAIRN_F32, 1, c3);
    memset(in[1].data, 0, 12);
    CHECK_FAILS(run_op("BatchNormalization", in, 5, 0, NULL, 0, ys, 1), CAIRN_ERR_SHAPE, "scale");
    drop(&in[1]);
    in[1] = keep;
    in[4].dtype = CAIRN_F64; /* input_mean f32 vs input_var f64: T2 must agree */
    double v64[2] = {0.25, 1};
    void *keep_data = in[4].data;
    in[4].data = v64;
    CHECK_FAILS(run_op("BatchNormalization", in, 5, 0, NULL, 0, ys, 1), CAIRN_ERR_DTYPE, "inputs 3 and 4");
    in[4].data = keep_data, in[4].dtype = CAIRN_F32;
    int64_t sh1[1] = {4};
    cairn_tensor_t x1 = in[0];
    x1.rank = 1, x1.shape[0] = 4;
    in[0] = x1;
    cairn_tensor_t y1 = make_out(CAIRN_F32, 1, sh1);
    CHECK_FAILS(run_op("BatchNormalization", in, 5, 0, NULL, 0, &y1, 1), CAIRN_ERR_SHAPE, "rank");
    for (int i = 0; i < 5; i++)
        drop(&in[i]);
    for (int i = 0; i < 3; i++)
        drop(&ys[i]);
    drop(&y1);
}

static void test_instancenorm(void)
{
    int64_t sh[3] = {1, 1, 4}, c1[1] = {1};
    const double xv[4] = {1, 2, 3, 4}, sc[1] = {2}, bv[1] = {1};
    const double z = 1.34164078649987382, w = 0.447213595499957939;
    const double lit[4] = {-2 * z + 1, -2 * w + 1, 2 * w + 1, 2 * z + 1};
    cairn_attr_t eps0 = cairn_attr_float("epsilon", 0.0f);
    for (int ti = 0; ti < 4; ti++) {
        cairn_dtype_t t = float_types[ti];
        cairn_tensor_t in[3] = {from_doubles(t, 3, sh, xv), from_doubles(t, 1, c1, sc),
                                from_doubles(t, 1, c1, bv)};
        cairn_tensor_t y = make_out(t, 3, sh);
        CHECK_OK(run_op("InstanceNormalization", in, 3, 0, &eps0, 1, &y, 1));
        check_near(&y, lit, tol_of(t), "instancenorm literal");
        for (int i = 0; i < 3; i++)
            drop(&in[i]);
        drop(&y);
    }
    check_rng_t r = {0x99u};
    for (int rank = 3; rank <= 5; rank++) {
        cairn_dtype_t t = float_types[rank % 4];
        int64_t xs[5];
        rand_shape(&r, rank, xs, 5);
        int64_t cs[1] = {xs[1]};
        cairn_tensor_t in[3] = {make_rand(&r, t, rank, xs, -4, 4), make_rand(&r, t, 1, cs, -2, 2),
                                make_rand(&r, t, 1, cs, -1, 1)};
        int64_t n = numel(&in[0]), planes = xs[0] * xs[1], plane = n / planes;
        double *want = malloc((size_t)n * sizeof *want);
        for (int64_t p = 0; p < planes; p++) {
            double s = 0, s2 = 0;
            for (int64_t i = 0; i < plane; i++) {
                double v = at(&in[0], p * plane + i);
                s += v, s2 += v * v;
            }
            double mean = s / (double)plane, var = s2 / (double)plane - mean * mean;
            int64_t ch = p % xs[1];
            for (int64_t i = 0; i < plane; i++)
                want[p * plane + i] = (at(&in[0], p * plane + i) - mean) / sqrt(var + 1e-5) *
                                          at(&in[1], ch) + at(&in[2], ch);
        }
        cairn_tensor_t y = make_out(t, rank, xs);
        CHECK_OK(run_op("InstanceNormalization", in, 3, 0, NULL, 0, &y, 1));
        check_near(&y, want, 3 * tol_of(t) + 1e-9, "instancenorm random");
        free(want);
        for (int i = 0; i < 3; i++)
            drop(&in[i]);
        drop(&y);
    }
    /* errors: channel count, rank, dtype mix */
    int64_t c2[1] = {2}, sh2[2] = {1, 1};
    cairn_tensor_t in[3] = {from_doubles(CAIRN_F32, 3, sh, xv), from_doubles(CAIRN_F32, 1, c2, xv),
                            from_doubles(CAIRN_F32, 1, c1, bv)};
    cairn_tensor_t y = make_out(CAIRN_F32, 3, sh);
    CHECK_FAILS(run_op("InstanceNormalization", in, 3, 0, NULL, 0, &y, 1), CAIRN_ERR_SHAPE, "C = 1");
    drop(&in[1]);
    in[1] = from_doubles(CAIRN_F64, 1, c1, sc);
    CHECK_FAILS(run_op("InstanceNormalization", in, 3, 0, NULL, 0, &y, 1), CAIRN_ERR_DTYPE, NULL);
    drop(&in[1]);
    in[1] = from_doubles(CAIRN_F32, 1, c1, sc);
    in[0].rank = 2, in[0].shape[0] = 1, in[0].shape[1] = 1;
    cairn_tensor_t y2 = make_out(CAIRN_F32, 2, sh2);
    CHECK_FAILS(run_op("InstanceNormalization", in, 3, 0, NULL, 0, &y2, 1), CAIRN_ERR_SHAPE, "rank 2");
    for (int i = 0; i < 3; i++)
        drop(&in[i]);
    drop(&y), drop(&y2);
}

/* Empty dims are legal: nothing to compute, and nothing may break. */
static void test_norm_empty(void)
{
    int64_t sh[3] = {2, 0, 3}, psh[1] = {3}, msh[3] = {2, 0, 1};
    cairn_tensor_t x = make(CAIRN_F32, 3, sh), y = make_out(CAIRN_F32, 3, sh);
    for (int axis = -3; axis < 3; axis++) {
        cairn_attr_t a = cairn_attr_int("axis", axis);
        CHECK_OK(run_op("Softmax", &x, 1, 0, &a, 1, &y, 1));
        CHECK_OK(run_op("LogSoftmax", &x, 1, 0, &a, 1, &y, 1));
    }
    const double ones[3] = {1, 1, 1};
    cairn_tensor_t in[2] = {x, from_doubles(CAIRN_F32, 1, psh, ones)};
    cairn_tensor_t out[3] = {y, make_out(CAIRN_F32, 3, msh), make_out(CAIRN_F32, 3, msh)};
    CHECK_OK(run_op("LayerNormalization", in, 2, 0, NULL, 0, out, 3));
    for (int axis = -3; axis < 3; axis++) { /* empty rows or no rows */
        cairn_attr_t a = cairn_attr_int("axis", axis);
        cairn_tensor_t in1[2] = {x, from_doubles(CAIRN_F32, 0, psh, ones)};
        CHECK_OK(run_op("RMSNormalization", in1, 2, 0, &a, 1, &y, 1));
        drop(&in1[1]);
    }
    drop(&x), drop(&y), drop(&in[1]), drop(&out[1]), drop(&out[2]);
}

int main(void)
{
    test_norm_empty();
    test_softmax_literal();
    test_softmax_random();
    test_softmax_errors();
    test_layernorm_literal();
    test_layernorm_random();
    test_layernorm_errors();
    test_rmsnorm_literal();
    test_rmsnorm_random();
    test_rmsnorm_errors();
    test_batchnorm();
    test_instancenorm();
    return check_finish("test_norm");
}
