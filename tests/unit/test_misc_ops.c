/*
 * Trilu, Hardmax, EyeLike, OneHot, ThresholdedRelu, Shrink, Celu, Compress,
 * MeanVarianceNormalization and LRN through the public API: literal
 * hand-computed cases, random cases against double formulations written here
 * (MVN's variance as E[x^2] - E[x]^2, LRN's window by explicit bounds), and
 * the error paths.
 */
#include "check.h"

#include "base/dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "op_test_util.h"

static const cairn_tensor_t none_tensor = {CAIRN_DTYPE_UNDEFINED, 0, {0}, NULL};

static void rand_shape(check_rng_t *r, int rank, int64_t *shape, int max_dim)
{
    for (int i = 0; i < rank; i++)
        shape[i] = 1 + (int64_t)(check_rng_next(r) % (uint64_t)max_dim);
}

static cairn_tensor_t scalar_i64(int64_t v)
{
    cairn_tensor_t t = make(CAIRN_I64, 0, NULL);
    *(int64_t *)t.data = v;
    return t;
}

/* ---- Trilu ---- */

static void test_trilu(void)
{
    int64_t sh[2] = {3, 4};
    double xv[12];
    for (int i = 0; i < 12; i++)
        xv[i] = i + 1;
    cairn_tensor_t x = from_doubles(CAIRN_F32, 2, sh, xv);
    cairn_tensor_t y = make_out(CAIRN_F32, 2, sh);
    CHECK_OK(run_op("Trilu", &x, 1, 0, NULL, 0, &y, 1));
    check_near(&y, (const double[]){1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}, 0, "triu");
    cairn_tensor_t in[2] = {x, scalar_i64(-1)};
    cairn_attr_t lower = cairn_attr_int("upper", 0);
    CHECK_OK(run_op("Trilu", in, 2, 0, &lower, 1, &y, 1)); /* k a graph input */
    check_near(&y, (const double[]){0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}, 0, "tril k=-1");
    *(int64_t *)in[1].data = 2;
    CHECK_OK(run_op("Trilu", in, 2, 2, NULL, 0, &y, 1));
    check_near(&y, (const double[]){0, 0, 3, 4, 0, 0, 0, 8, 0, 0, 0, 0}, 0, "triu k=2 const");
    *(int64_t *)in[1].data = INT64_MIN; /* far out: lower keeps nothing */
    CHECK_OK(run_op("Trilu", in, 2, 0, &lower, 1, &y, 1));
    check_near(&y, (const double[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, "tril k=min");
    *(int64_t *)in[1].data = INT64_MAX; /* lower keeps everything */
    CHECK_OK(run_op("Trilu", in, 2, 0, &lower, 1, &y, 1));
    check_near(&y, xv, 0, "tril k=max");
    drop(&y);

    /* random: batch dims, every k, several dtypes */
    check_rng_t r = {0x7a11u};
    const cairn_dtype_t types[6] = {CAIRN_F32, CAIRN_I32, CAIRN_BOOL, CAIRN_F16, CAIRN_I64,
                                    CAIRN_U8};
    for (int it = 0; it < 40; it++) {
        int rank = 2 + it % 3;
        int64_t s[4];
        rand_shape(&r, rank, s, 5);
        if (it == 7)
            s[rank - 2] = 0; /* empty */
        cairn_dtype_t t = types[it % 6];
        cairn_tensor_t xr = make_rand(&r, t, rank, s, 1, 9);
        int64_t k = (int64_t)(check_rng_next(&r) % 11) - 5;
        int up = (int)(check_rng_next(&r) % 2);
        cairn_tensor_t ins[2] = {xr, scalar_i64(k)};
        cairn_tensor_t yr = make_out(t, rank, s);
        cairn_attr_t a = cairn_attr_int("upper", up);
        CHECK_OK(run_op("Trilu", ins, 2, 0, &a, 1, &yr, 1));
        int64_t n = numel(&xr), R = s[rank - 2], W = s[rank - 1];
        double *want = malloc((size_t)(n ? n : 1) * sizeof *want);
        for (int64_t e = 0; e < n; e++) {
            int64_t j = e % W, i = (e / W) % R;
            int keep = up ? j - i >= k : j - i <= k;
            want[e] = keep ? at(&xr, e) : 0;
        }
        check_near(&yr, want, 0, "trilu random");
        free(want), drop(&xr), drop(&ins[1]), drop(&yr);
    }

    /* errors */
    int64_t s1[1] = {4};
    cairn_tensor_t x1 = make_rand(&r, CAIRN_F32, 1, s1, 0, 1), y1 = make_out(CAIRN_F32, 1, s1);
    CHECK_FAILS(run_op("Trilu", &x1, 1, 0, NULL, 0, &y1, 1), CAIRN_ERR_SHAPE, "rank >= 2");
    drop(&x1), drop(&y1);
    y = make_out(CAIRN_F32, 2, sh);
    cairn_tensor_t k32 = make(CAIRN_I32, 0, NULL);
    *(int32_t *)k32.data = 1;
    cairn_tensor_t bad[2] = {x, k32};
    CHECK_FAILS(run_op("Trilu", bad, 2, 0, NULL, 0, &y, 1), CAIRN_ERR_DTYPE, "int64");
    int64_t two[1] = {2};
    cairn_tensor_t k2 = from_doubles(CAIRN_I64, 1, two, (const double[]){1, 2});
    bad[1] = k2;
    CHECK_FAILS(run_op("Trilu", bad, 2, 0, NULL, 0, &y, 1), CAIRN_ERR_SHAPE, "scalar");
    cairn_attr_t up2 = cairn_attr_int("upper", 2);
    CHECK_FAILS(run_op("Trilu", &x, 1, 0, &up2, 1, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "upper");
    drop(&k32), drop(&k2), drop(&y), drop(&x), drop(&in[1]);
}

/* ---- Hardmax ---- */

static void test_hardmax(void)
{
    int64_t sh[2] = {2, 3};
    cairn_tensor_t x = from_doubles(CAIRN_F32, 2, sh, (const double[]){1, 3, 3, 2, -1, 0});
    cairn_tensor_t y = make_out(CAIRN_F32, 2, sh);
    CHECK_OK(run_op("Hardmax", &x, 1, 0, NULL, 0, &y, 1));
    check_near(&y, (const double[]){0, 1, 0, 1, 0, 0}, 0, "hardmax axis -1 (first of ties)");
    cairn_attr_t a0 = cairn_attr_int("axis", 0);
    CHECK_OK(run_op("Hardmax", &x, 1, 1, &a0, 1, &y, 1));
    check_near(&y, (const double[]){0, 1, 1, 1, 0, 0}, 0, "hardmax axis 0 (folded)");

    check_rng_t r = {0x4a2du};
    for (int rank = 1; rank <= 4; rank++)
        for (int axis = -rank; axis < rank; axis++) {
            int64_t s[4];
            rand_shape(&r, rank, s, 4);
            cairn_dtype_t t = float_types[(rank + axis + 8) % 4];
            cairn_tensor_t xr = make(t, rank, s);
            for (int64_t i = 0; i < numel(&xr); i++) /* small ints: many ties */
                base_store_from_double(xr.data, t, i, (double)(check_rng_next(&r) % 4));
            cairn_tensor_t yr = make_out(t, rank, s);
            cairn_attr_t aa = cairn_attr_int("axis", axis);
            CHECK_OK(run_op("Hardmax", &xr, 1, 0, &aa, 1, &yr, 1));
            int ax = axis < 0 ? axis + rank : axis;
            int64_t inner = 1, n = numel(&xr);
            for (int d = ax + 1; d < rank; d++)
                inner *= s[d];
            double *want = malloc((size_t)n * sizeof *want);
            for (int64_t e = 0; e < n; e++) {
                /* e wins if no earlier element along the axis is >= and no later one is > */
                int64_t pos = (e / inner) % s[ax], base = e - pos * inner;
                int win = 1;
                for (int64_t q = 0; q < s[ax] && win; q++) {
                    double v = at(&xr, base + q * inner), me = at(&xr, e);
                    if ((q < pos && v >= me) || (q > pos && v > me))
                        win = 0;
                }
                want[e] = win;
            }
            check_near(&yr, want, 0, "hardmax random");
            free(want), drop(&xr), drop(&yr);
        }
    cairn_attr_t a3 = cairn_attr_int("axis", 2);
    CHECK_FAILS(run_op("Hardmax", &x, 1, 0, &a3, 1, &y, 1), CAIRN_ERR_SHAPE, "axis 2");
    cairn_tensor_t xi = from_doubles(CAIRN_I32, 2, sh, (const double[]){1, 3, 3, 2, -1, 0});
    CHECK_FAILS(run_op("Hardmax", &xi, 1, 0, NULL, 0, &y, 1), CAIRN_ERR_DTYPE, "type i32");
    drop(&xi), drop(&x), drop(&y);
}

/* ---- EyeLike ---- */

static void test_eyelike(void)
{
    int64_t sh[2] = {3, 4}, sq[2] = {3, 3};
    cairn_tensor_t x = make_rand(&(check_rng_t){3}, CAIRN_F32, 2, sh, 0, 1);
    cairn_tensor_t y = make_out(CAIRN_F32, 2, sh);
    cairn_attr_t k1 = cairn_attr_int("k", 1);
    CHECK_OK(run_op("EyeLike", &x, 1, 0, &k1, 1, &y, 1));
    check_near(&y, (const double[]){0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, 0, "eyelike k=1");
    cairn_tensor_t yi = make_out(CAIRN_I64, 2, sh);
    cairn_attr_t a[2] = {cairn_attr_int("dtype", CAIRN_I64), cairn_attr_int("k", -2)};
    CHECK_OK(run_op("EyeLike", &x, 1, 0, a, 2, &yi, 1));
    check_near(&yi, (const double[]){0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}, 0, "eyelike i64 k=-2");
    cairn_tensor_t xb = make(CAIRN_BOOL, 2, sq);
    memset(xb.data, 1, 9);
    cairn_tensor_t yb = make_out(CAIRN_BOOL, 2, sq);
    CHECK_OK(run_op("EyeLike", &xb, 1, 0, NULL, 0, &yb, 1));
    check_near(&yb, (const double[]){1, 0, 0, 0, 1, 0, 0, 0, 1}, 0, "eyelike bool");
    cairn_attr_t kbig = cairn_attr_int("k", INT64_MAX);
    CHECK_OK(run_op("EyeLike", &xb, 1, 0, &kbig, 1, &yb, 1));
    check_near(&yb, (const double[]){0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, "eyelike k=max");
    cairn_attr_t ksmall = cairn_attr_int("k", INT64_MIN);
    CHECK_OK(run_op("EyeLike", &xb, 1, 0, &ksmall, 1, &yb, 1));
    check_near(&yb, (const double[]){0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, "eyelike k=min");
    /* random sizes and k, f16 */
    check_rng_t r = {0xe7e};
    for (int it = 0; it < 20; it++) {
        int64_t s[2];
        rand_shape(&r, 2, s, 6);
        int64_t k = (int64_t)(check_rng_next(&r) % 13) - 6;
        cairn_tensor_t xr = make_rand(&r, CAIRN_F16, 2, s, 0, 1), yr = make_out(CAIRN_F16, 2, s);
        cairn_attr_t ka = cairn_attr_int("k", k);
        CHECK_OK(run_op("EyeLike", &xr, 1, 0, &ka, 1, &yr, 1));
        double want[36];
        for (int64_t e = 0; e < s[0] * s[1]; e++)
            want[e] = e % s[1] - e / s[1] == k;
        check_near(&yr, want, 0, "eyelike random");
        drop(&xr), drop(&yr);
    }
    int64_t s3[3] = {2, 2, 2};
    cairn_tensor_t x3 = make_rand(&r, CAIRN_F32, 3, s3, 0, 1), y3 = make_out(CAIRN_F32, 3, s3);
    CHECK_FAILS(run_op("EyeLike", &x3, 1, 0, NULL, 0, &y3, 1), CAIRN_ERR_SHAPE, "2-D");
    cairn_attr_t bad = cairn_attr_int("dtype", 99);
    CHECK_FAILS(run_op("EyeLike", &x, 1, 0, &bad, 1, &y, 1), CAIRN_ERR_DTYPE, "99");
    drop(&x3), drop(&y3), drop(&x), drop(&y), drop(&yi), drop(&xb), drop(&yb);
}

/* ---- OneHot ---- */

static void test_onehot(void)
{
    int64_t is[1] = {4}, one[1] = {1}, two[1] = {2}, os[2] = {4, 4};
    cairn_tensor_t idx = from_doubles(CAIRN_I64, 1, is, (const double[]){0, -1, 3, 5});
    cairn_tensor_t depth = from_doubles(CAIRN_F32, 1, one, (const double[]){4});
    cairn_tensor_t vals = from_doubles(CAIRN_F32, 1, two, (const double[]){-1, 7});
    cairn_tensor_t in[3] = {idx, depth, vals};
    cairn_tensor_t y = make_out(CAIRN_F32, 2, os);
    const double want[16] = {7, -1, -1, -1, -1, -1, -1, 7, -1, -1, -1, 7, -1, -1, -1, -1};
    CHECK_OK(run_op("OneHot", in, 3, 2, NULL, 0, &y, 1)); /* depth constant */
    check_near(&y, want, 0, "onehot axis -1");
    CHECK_OK(run_op("OneHot", in, 3, 0, NULL, 0, &y, 1)); /* depth a graph input */
    check_near(&y, want, 0, "onehot depth input");
    cairn_attr_t a0 = cairn_attr_int("axis", 0);
    CHECK_OK(run_op("OneHot", in, 3, 0, &a0, 1, &y, 1));
    double wt[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            wt[j * 4 + i] = want[i * 4 + j];
    check_near(&y, wt, 0, "onehot axis 0");

    check_rng_t r = {0x0be};
    const cairn_dtype_t itypes[3] = {CAIRN_I64, CAIRN_I32, CAIRN_F32};
    const cairn_dtype_t vtypes[3] = {CAIRN_F32, CAIRN_I64, CAIRN_F16};
    for (int it = 0; it < 30; it++) {
        int rank = it % 4;
        int64_t s[4], dv = 1 + (int64_t)(check_rng_next(&r) % 5);
        rand_shape(&r, rank, s, 4);
        cairn_dtype_t itp = itypes[it % 3], vtp = vtypes[(it / 3) % 3];
        cairn_tensor_t ix = make(itp, rank, s);
        for (int64_t i = 0; i < numel(&ix); i++)
            base_store_from_double(ix.data, itp, i,
                                   (double)((int64_t)(check_rng_next(&r) % (uint64_t)(2 * dv + 5)) - dv - 2));
        cairn_tensor_t dp = from_doubles(CAIRN_I64, 0, NULL, (const double[]){(double)dv});
        cairn_tensor_t vv = from_doubles(vtp, 1, two, (const double[]){3, -2});
        int axis = (int)(check_rng_next(&r) % (uint64_t)(rank + 1));
        int64_t ys[5];
        for (int d = 0, q = 0; d <= rank; d++)
            ys[d] = d == axis ? dv : s[q++];
        cairn_tensor_t yr = make_out(vtp, rank + 1, ys);
        cairn_attr_t aa = cairn_attr_int("axis", it % 2 ? axis : axis - rank - 1);
        cairn_tensor_t ins[3] = {ix, dp, vv};
        CHECK_OK(run_op("OneHot", ins, 3, (unsigned)(it % 2 ? 2 : 0), &aa, 1, &yr, 1));
        int64_t n = numel(&yr), inner = 1;
        for (int d = axis + 1; d <= rank; d++)
            inner *= ys[d];
        double *w = malloc((size_t)(n ? n : 1) * sizeof *w);
        for (int64_t e = 0; e < n; e++) {
            int64_t c = (e / inner) % dv, o = e / (inner * dv), i = e % inner;
            int64_t v = (int64_t)at(&ix, o * inner + i);
            w[e] = (v == c || v + dv == c) ? -2 : 3;
        }
        check_near(&yr, w, 0, "onehot random");
        free(w), drop(&ix), drop(&dp), drop(&vv), drop(&yr);
    }

    int64_t three[1] = {3};
    cairn_tensor_t v3 = from_doubles(CAIRN_F32, 1, three, (const double[]){0, 1, 2});
    cairn_tensor_t b1[3] = {idx, depth, v3};
    CHECK_FAILS(run_op("OneHot", b1, 3, 2, NULL, 0, &y, 1), CAIRN_ERR_SHAPE, "values");
    cairn_tensor_t d0 = from_doubles(CAIRN_I64, 1, one, (const double[]){0});
    cairn_tensor_t b2[3] = {idx, d0, vals};
    CHECK_FAILS(run_op("OneHot", b2, 3, 2, NULL, 0, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "depth");
    cairn_tensor_t d2 = from_doubles(CAIRN_I64, 1, two, (const double[]){4, 4});
    cairn_tensor_t b3[3] = {idx, d2, vals};
    CHECK_FAILS(run_op("OneHot", b3, 3, 2, NULL, 0, &y, 1), CAIRN_ERR_SHAPE, "depth");
    cairn_attr_t a5 = cairn_attr_int("axis", 2);
    CHECK_FAILS(run_op("OneHot", in, 3, 2, &a5, 1, &y, 1), CAIRN_ERR_SHAPE, "axis 2");
    drop(&v3), drop(&d0), drop(&d2);
    drop(&idx), drop(&depth), drop(&vals), drop(&y);
}

/* ---- ThresholdedRelu, Shrink, Celu ---- */

static double ref_pointwise(int op, double v, double a, double b)
{
    if (op == 0)
        return v > a ? v : 0;
    if (op == 1)
        return v < -b ? v + a : v > b ? v - a : 0;
    return v > 0 ? v : a * (exp(v / a) - 1);
}

static void test_pointwise(void)
{
    int64_t s4[1] = {4}, s5[1] = {5}, s3[1] = {3};
    cairn_tensor_t x = from_doubles(CAIRN_F32, 1, s4, (const double[]){-1, 0.5, 1, 2});
    cairn_tensor_t y = make_out(CAIRN_F32, 1, s4);
    CHECK_OK(run_op("ThresholdedRelu", &x, 1, 0, NULL, 0, &y, 1));
    check_near(&y, (const double[]){0, 0, 0, 2}, 0, "thresholdedrelu");
    drop(&x), drop(&y);
    x = from_doubles(CAIRN_F32, 1, s5, (const double[]){-2, -1, 0, 1, 2});
    y = make_out(CAIRN_F32, 1, s5);
    cairn_attr_t hard = cairn_attr_float("lambd", 1.5f);
    CHECK_OK(run_op("Shrink", &x, 1, 0, &hard, 1, &y, 1));
    check_near(&y, (const double[]){-2, 0, 0, 0, 2}, 0, "shrink hard");
    cairn_attr_t soft[2] = {cairn_attr_float("lambd", 1.5f), cairn_attr_float("bias", 0.5f)};
    CHECK_OK(run_op("Shrink", &x, 1, 0, soft, 2, &y, 1));
    check_near(&y, (const double[]){-1.5, 0, 0, 0, 1.5}, 0, "shrink soft");
    cairn_attr_t al = cairn_attr_float("alpha", 2.0f);
    CHECK_OK(run_op("Celu", &x, 1, 0, &al, 1, &y, 1));
    check_near(&y, (const double[]){-1.26424111765711536, -0.786938680574733, 0, 1, 2}, 1e-7,
               "celu alpha 2");
    drop(&x), drop(&y);
    cairn_tensor_t xi = from_doubles(CAIRN_I32, 1, s3, (const double[]){-3, 0, 3});
    cairn_tensor_t yi = make_out(CAIRN_I32, 1, s3);
    cairn_attr_t si[2] = {cairn_attr_float("lambd", 1.5f), cairn_attr_float("bias", 1.0f)};
    CHECK_OK(run_op("Shrink", &xi, 1, 0, si, 2, &yi, 1));
    check_near(&yi, (const double[]){-2, 0, 2}, 0, "shrink int32");

    const char *ops[3] = {"ThresholdedRelu", "Shrink", "Celu"};
    check_rng_t r = {0x9e1};
    for (int it = 0; it < 36; it++) {
        int op = it % 3, rank = 1 + it % 4;
        cairn_dtype_t t = float_types[(it / 3) % 4];
        int64_t s[4];
        rand_shape(&r, rank, s, 5);
        cairn_tensor_t xr = make_rand(&r, t, rank, s, -4, 4), yr = make_out(t, rank, s);
        double a = check_rng_uniform(&r, 0.25, 2), b = check_rng_uniform(&r, 0, 2);
        a = (float)a, b = (float)b;
        cairn_attr_t attrs[2];
        int na = 1;
        if (op == 1) {
            attrs[0] = cairn_attr_float("bias", (float)a);
            attrs[1] = cairn_attr_float("lambd", (float)b);
            na = 2;
        } else {
            attrs[0] = cairn_attr_float("alpha", (float)a);
        }
        CHECK_OK(run_op(ops[op], &xr, 1, (unsigned)(it % 5 == 0), attrs, na, &yr, 1));
        int64_t n = numel(&xr);
        double *w = malloc((size_t)n * sizeof *w);
        for (int64_t e = 0; e < n; e++)
            w[e] = ref_pointwise(op, at(&xr, e), a, b);
        check_near(&yr, w, tol_of(t), ops[op]);
        free(w), drop(&xr), drop(&yr);
    }
    cairn_attr_t a0 = cairn_attr_float("alpha", 0.0f);
    cairn_tensor_t xf = from_doubles(CAIRN_F32, 1, s3, (const double[]){-3, 0, 3});
    cairn_tensor_t yf = make_out(CAIRN_F32, 1, s3);
    CHECK_FAILS(run_op("Celu", &xf, 1, 0, &a0, 1, &yf, 1), CAIRN_ERR_INVALID_ARGUMENT, "alpha");
    CHECK_FAILS(run_op("ThresholdedRelu", &xi, 1, 0, NULL, 0, &yi, 1), CAIRN_ERR_DTYPE, "type i32");
    CHECK_FAILS(run_op("Celu", &xi, 1, 0, NULL, 0, &yi, 1), CAIRN_ERR_DTYPE, "type i32");
    drop(&xf), drop(&yf), drop(&xi), drop(&yi);
}

/* ---- Compress ---- */

static cairn_tensor_t bools(int64_t n, const uint8_t *v)
{
    cairn_tensor_t t = make(CAIRN_BOOL, 1, &n);
    memcpy(t.data, v, (size_t)n);
    return t;
}

static void test_compress(void)
{
    int64_t sh[2] = {3, 2}, o22[2] = {2, 2}, o3[1] = {3}, o2[1] = {2}, o02[2] = {0, 2};
    cairn_tensor_t x = from_doubles(CAIRN_F32, 2, sh, (const double[]){1, 2, 3, 4, 5, 6});
    cairn_tensor_t c0 = bools(3, (const uint8_t[]){0, 1, 1});
    cairn_tensor_t in[2] = {x, c0};
    cairn_tensor_t y = make_out(CAIRN_F32, 2, o22);
    cairn_attr_t ax0 = cairn_attr_int("axis", 0);
    CHECK_OK(run_op("Compress", in, 2, 2, &ax0, 1, &y, 1)); /* condition constant */
    check_near(&y, (const double[]){3, 4, 5, 6}, 0, "compress axis 0");
    CHECK_OK(run_op("Compress", in, 2, 0, &ax0, 1, &y, 1)); /* condition a graph input */
    check_near(&y, (const double[]){3, 4, 5, 6}, 0, "compress axis 0 (input)");
    drop(&y);
    cairn_tensor_t c1 = bools(2, (const uint8_t[]){0, 1});
    in[1] = c1;
    int64_t o31[2] = {3, 1};
    y = make_out(CAIRN_F32, 2, o31);
    cairn_attr_t axm1 = cairn_attr_int("axis", -1);
    CHECK_OK(run_op("Compress", in, 2, 0, &axm1, 1, &y, 1));
    check_near(&y, (const double[]){2, 4, 6}, 0, "compress axis -1");
    drop(&y);
    cairn_tensor_t c2 = bools(5, (const uint8_t[]){0, 1, 0, 0, 1}); /* shorter than 6 */
    in[1] = c2;
    y = make_out(CAIRN_F32, 1, o2);
    CHECK_OK(run_op("Compress", in, 2, 2, NULL, 0, &y, 1));
    check_near(&y, (const double[]){2, 5}, 0, "compress flattened");
    drop(&y);
    cairn_tensor_t cz = bools(3, (const uint8_t[]){0, 0, 0});
    in[1] = cz;
    y = make_out(CAIRN_F32, 2, o02);
    CHECK_OK(run_op("Compress", in, 2, 0, &ax0, 1, &y, 1)); /* empty result */

    check_rng_t r = {0xc0e};
    const cairn_dtype_t types[4] = {CAIRN_F64, CAIRN_I8, CAIRN_BF16, CAIRN_BOOL};
    for (int it = 0; it < 30; it++) {
        int rank = 1 + it % 3;
        int64_t s[3];
        rand_shape(&r, rank, s, 5);
        cairn_dtype_t t = types[it % 4];
        cairn_tensor_t xr = make_rand(&r, t, rank, s, 0, 9);
        int has_axis = it % 4 != 3, ax = (int)(check_rng_next(&r) % (uint64_t)rank);
        int64_t len = has_axis ? s[ax] : numel(&xr);
        int64_t cl = len - (int64_t)(check_rng_next(&r) % (uint64_t)(len < 3 ? len : 3));
        uint8_t cv[64];
        int64_t cnt = 0;
        for (int64_t i = 0; i < cl; i++)
            cnt += cv[i] = (uint8_t)(check_rng_next(&r) % 2);
        cairn_tensor_t cr = bools(cl, cv);
        int64_t ys[3];
        memcpy(ys, s, sizeof ys);
        int yrank = has_axis ? rank : 1;
        if (has_axis)
            ys[ax] = cnt;
        else
            ys[0] = cnt;
        cairn_tensor_t yr = make_out(t, yrank, ys);
        cairn_tensor_t ins[2] = {xr, cr};
        cairn_attr_t aa = cairn_attr_int("axis", it % 2 ? ax : ax - rank);
        CHECK_OK(run_op("Compress", ins, 2, (unsigned)(it % 3 ? 0 : 2), &aa, has_axis, &yr, 1));
        /* reference: walk x, keep elements whose coordinate along the axis is selected */
        int64_t n = numel(&xr), inner = 1, m = 0;
        double *w = malloc((size_t)(n ? n : 1) * sizeof *w);
        for (int d = ax + 1; has_axis && d < rank; d++)
            inner *= s[d];
        for (int64_t e = 0; e < n; e++) {
            int64_t coord = has_axis ? (e / inner) % s[ax] : e;
            if (coord < cl && cv[coord])
                w[m++] = at(&xr, e);
        }
        CHECK(m == numel(&yr));
        check_near(&yr, w, 0, "compress random");
        free(w), drop(&xr), drop(&cr), drop(&yr);
    }

    cairn_tensor_t cl7 = bools(7, (const uint8_t[]){1, 1, 1, 1, 1, 1, 1});
    in[1] = cl7;
    CHECK_FAILS(run_op("Compress", in, 2, 2, NULL, 0, &y, 1), CAIRN_ERR_SHAPE, "7 entries");
    cairn_tensor_t ci = from_doubles(CAIRN_I32, 1, o3, (const double[]){1, 0, 1});
    in[1] = ci;
    CHECK_FAILS(run_op("Compress", in, 2, 2, &ax0, 1, &y, 1), CAIRN_ERR_DTYPE, "bool");
    in[1] = c0;
    cairn_attr_t ax2 = cairn_attr_int("axis", 2);
    CHECK_FAILS(run_op("Compress", in, 2, 2, &ax2, 1, &y, 1), CAIRN_ERR_SHAPE, "axis 2");
    drop(&cl7), drop(&ci), drop(&y);
    drop(&x), drop(&c0), drop(&c1), drop(&c2), drop(&cz);
}

/* ---- MeanVarianceNormalization ---- */

static void test_mvn(void)
{
    int64_t sh[4] = {1, 1, 1, 4};
    cairn_tensor_t x = from_doubles(CAIRN_F32, 4, sh, (const double[]){1, 2, 3, 4});
    cairn_tensor_t y = make_out(CAIRN_F32, 4, sh);
    CHECK_OK(run_op("MeanVarianceNormalization", &x, 1, 0, NULL, 0, &y, 1));
    check_near(&y, (const double[]){-1.34164078649987, -0.447213595499958, 0.447213595499958,
                                    1.34164078649987},
               1e-6, "mvn default axes");
    /* a constant slice gives 0, not NaN */
    cairn_tensor_t xc = from_doubles(CAIRN_F32, 4, sh, (const double[]){3, 3, 3, 3});
    CHECK_OK(run_op("MeanVarianceNormalization", &xc, 1, 0, NULL, 0, &y, 1));
    check_near(&y, (const double[]){0, 0, 0, 0}, 0, "mvn constant");
    drop(&xc);

    check_rng_t r = {0x3e4};
    for (int it = 0; it < 24; it++) {
        int rank = it < 12 ? 4 : 2 + it % 3;
        int64_t s[4];
        rand_shape(&r, rank, s, 4);
        s[rank - 1] += 1;
        cairn_dtype_t t = float_types[it % 4];
        cairn_tensor_t xr = make_rand(&r, t, rank, s, -3, 3), yr = make_out(t, rank, s);
        unsigned mask = 0;
        int64_t axes[4];
        int na = 0;
        if (it < 12) {
            mask = 1 | 4 | 8;
        } else {
            mask = 1u + (unsigned)(check_rng_next(&r) % ((1u << rank) - 1)); /* non-empty */
            for (int d = 0; d < rank; d++)
                if (mask & (1u << d))
                    axes[na++] = d - (it % 2 ? rank : 0);
        }
        cairn_attr_t aa = cairn_attr_ints("axes", axes, (size_t)na);
        CHECK_OK(run_op("MeanVarianceNormalization", &xr, 1, 0, &aa, it < 12 ? 0 : 1, &yr, 1));
        int64_t n = numel(&xr), st[4], q = 1;
        for (int d = rank - 1; d >= 0; d--)
            st[d] = q, q *= s[d];
        double *w = malloc((size_t)n * sizeof *w);
        for (int64_t e = 0; e < n; e++) {
            /* statistics over the elements that agree with e on every kept dim */
            double s1 = 0, s2 = 0, cnt = 0;
            for (int64_t f = 0; f < n; f++) {
                int same = 1;
                for (int d = 0; d < rank && same; d++)
                    if (!(mask & (1u << d)) && (e / st[d]) % s[d] != (f / st[d]) % s[d])
                        same = 0;
                if (same) {
                    double v = at(&xr, f);
                    s1 += v, s2 += v * v, cnt++;
                }
            }
            double mean = s1 / cnt, var = s2 / cnt - mean * mean;
            w[e] = (at(&xr, e) - mean) / (sqrt(var > 0 ? var : 0) + 1e-9);
        }
        check_near(&yr, w, t == CAIRN_F64 ? 1e-9 : tol_of(t) * 4, "mvn random");
        free(w), drop(&xr), drop(&yr);
    }
    int64_t s3[3] = {2, 2, 2};
    cairn_tensor_t x3 = make_rand(&r, CAIRN_F32, 3, s3, 0, 1), y3 = make_out(CAIRN_F32, 3, s3);
    CHECK_FAILS(run_op("MeanVarianceNormalization", &x3, 1, 0, NULL, 0, &y3, 1), CAIRN_ERR_SHAPE,
                "default axes");
    const int64_t rep[2] = {1, -2};
    cairn_attr_t ar = cairn_attr_ints("axes", rep, 2);
    CHECK_FAILS(run_op("MeanVarianceNormalization", &x3, 1, 0, &ar, 1, &y3, 1),
                CAIRN_ERR_INVALID_ARGUMENT, "repeat");
    drop(&x3), drop(&y3), drop(&x), drop(&y);
}

/* ---- LRN ---- */

static void test_lrn(void)
{
    int64_t sh[4] = {1, 3, 1, 1};
    cairn_tensor_t x = from_doubles(CAIRN_F64, 4, sh, (const double[]){1, 2, 3});
    cairn_tensor_t y = make_out(CAIRN_F64, 4, sh);
    cairn_attr_t a[4] = {cairn_attr_int("size", 3), cairn_attr_float("alpha", 3.0f),
                         cairn_attr_float("beta", 1.0f), cairn_attr_float("bias", 1.0f)};
    CHECK_OK(run_op("LRN", &x, 1, 0, a, 4, &y, 1));
    check_near(&y, (const double[]){1.0 / 6, 2.0 / 15, 3.0 / 14}, 1e-15, "lrn size 3");
    /* even size: the window is [c, c + 1] */
    a[0] = cairn_attr_int("size", 2);
    a[1] = cairn_attr_float("alpha", 2.0f);
    CHECK_OK(run_op("LRN", &x, 1, 0, a, 4, &y, 1));
    check_near(&y, (const double[]){1.0 / 6, 2.0 / 14, 3.0 / 10}, 1e-15, "lrn size 2");

    check_rng_t r = {0x14e};
    for (int it = 0; it < 20; it++) {
        int rank = 2 + it % 3;
        int64_t s[4];
        rand_shape(&r, rank, s, 5);
        cairn_dtype_t t = float_types[it % 4];
        cairn_tensor_t xr = make_rand(&r, t, rank, s, -2, 2), yr = make_out(t, rank, s);
        int64_t size = 1 + (int64_t)(check_rng_next(&r) % 6);
        double al = (float)check_rng_uniform(&r, 1e-4, 1), be = (float)check_rng_uniform(&r, 0.2, 1),
               bi = (float)check_rng_uniform(&r, 0.5, 2);
        cairn_attr_t aa[4] = {cairn_attr_int("size", size), cairn_attr_float("alpha", (float)al),
                              cairn_attr_float("beta", (float)be),
                              cairn_attr_float("bias", (float)bi)};
        CHECK_OK(run_op("LRN", &xr, 1, 0, aa, 4, &yr, 1));
        int64_t C = s[1], inner = numel(&xr) / (s[0] * C), n = numel(&xr);
        double *w = malloc((size_t)n * sizeof *w);
        for (int64_t e = 0; e < n; e++) {
            int64_t c = (e / inner) % C, base = e - c * inner;
            double sq = 0;
            for (int64_t cc = 0; cc < C; cc++) {
                double lo = (double)c - floor((double)(size - 1) / 2),
                       hi = (double)c + ceil((double)(size - 1) / 2);
                if (cc >= lo && cc <= hi)
                    sq += at(&xr, base + cc * inner) * at(&xr, base + cc * inner);
            }
            w[e] = at(&xr, e) / pow(bi + al / (double)size * sq, be);
        }
        check_near(&yr, w, tol_of(t), "lrn random");
        free(w), drop(&xr), drop(&yr);
    }
    cairn_attr_t s0 = cairn_attr_int("size", 0);
    CHECK_FAILS(run_op("LRN", &x, 1, 0, &s0, 1, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "size");
    CHECK(run_op("LRN", &x, 1, 0, NULL, 0, &y, 1) != CAIRN_OK); /* size is required */
    int64_t s1[1] = {3};
    cairn_tensor_t x1 = from_doubles(CAIRN_F32, 1, s1, (const double[]){1, 2, 3});
    cairn_tensor_t y1 = make_out(CAIRN_F32, 1, s1);
    cairn_attr_t s3 = cairn_attr_int("size", 3);
    CHECK_FAILS(run_op("LRN", &x1, 1, 0, &s3, 1, &y1, 1), CAIRN_ERR_SHAPE, "(N, C");
    drop(&x1), drop(&y1), drop(&x), drop(&y);
}

int main(void)
{
    (void)none_tensor;
    test_trilu();
    test_hardmax();
    test_eyelike();
    test_onehot();
    test_pointwise();
    test_compress();
    test_mvn();
    test_lrn();
    return check_finish("test_misc_ops");
}
