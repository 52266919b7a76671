/* The quant family through the public API: Quantize/Dequantize/Dynamic
 * QuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv,
 * GatherND, ScatterND, ScatterElements, Einsum, BitShift, NonMaxSuppression
 * and Det: literal cases, random cases against formulations written out
 * here in double, and error paths. */
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define U CAIRN_DTYPE_UNDEFINED

static cairn_tensor_t T(cairn_dtype_t t, int rank, const int64_t *shape, void *data)
{
    cairn_tensor_t x;
    memset(&x, 0, sizeof x);
    x.dtype = t, x.rank = rank, x.data = data;
    for (int i = 0; i < rank; i++)
        x.shape[i] = shape[i];
    return x;
}
static const int64_t S0[1] = {0};

/* Builds one node over ins (absent ones: dtype U); inputs whose bit is set
 * in const_mask are constants, the others graph inputs fed at run time.
 * out->data non-NULL: written there (must match the shape); NULL: the
 * session's buffer is copied to copy (cap bytes) and out's shape set. */
static cairn_status_t run1(const char *op, const cairn_attr_t *attrs, int na,
                           const cairn_tensor_t *ins, int n_in, unsigned const_mask,
                           cairn_tensor_t *out, void *copy, size_t cap)
{
    cairn_graph_t *g;
    cairn_status_t s = cairn_graph_create(&g);
    if (s)
        return s;
    cairn_value_id ids[12], y;
    cairn_tensor_t feed[12];
    int nf = 0;
    for (int i = 0; i < n_in && s == CAIRN_OK; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "in%d", i);
        if (ins[i].dtype == U)
            ids[i] = -1;
        else if (const_mask & (1u << i))
            s = cairn_graph_add_constant(g, nm, &ins[i], &ids[i]);
        else {
            s = cairn_graph_add_input(g, nm, ins[i].dtype, ins[i].rank, ins[i].shape, NULL,
                                      &ids[i]);
            feed[nf++] = ins[i];
        }
    }
    if (s == CAIRN_OK)
        s = cairn_graph_add_node(g, op, "n", ids, n_in, attrs, na, &y, 1, NULL);
    if (s == CAIRN_OK)
        s = cairn_graph_mark_output(g, y);
    cairn_session_t *ss = NULL;
    if (s == CAIRN_OK)
        s = cairn_session_create(g, NULL, &ss);
    cairn_graph_destroy(g);
    if (s == CAIRN_OK) {
        if (out->data) {
            s = cairn_session_run(ss, feed, nf, out, 1);
        } else {
            cairn_tensor_t o;
            memset(&o, 0, sizeof o);
            s = cairn_session_run(ss, feed, nf, &o, 1);
            if (s == CAIRN_OK) {
                size_t b = cairn_tensor_bytes(&o);
                if (b > cap)
                    b = cap;
                if (b)
                    memcpy(copy, o.data, b);
                o.data = NULL;
                *out = o;
            }
        }
    }
    cairn_session_destroy(ss);
    return s;
}

static double rnd_even(double v) { return nearbyint(v); }
static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* ======================= Quantize / Dequantize ======================= */

static void test_quantize_literal(void)
{
    /* ties go to even: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2; saturation at 255 / 0 */
    float x[8] = {0, 2, 3, 1000, -254, -1000, 5, 7};
    float s = 2;
    uint8_t z = 128, y[8];
    memset(y, 0xAB, sizeof y);
    int64_t sx[1] = {8};
    cairn_tensor_t in[3] = {T(CAIRN_F32, 1, sx, x), T(CAIRN_F32, 0, S0, &s),
                            T(CAIRN_U8, 0, S0, &z)};
    cairn_tensor_t o = T(CAIRN_U8, 1, sx, y);
    CHECK_OK(run1("QuantizeLinear", NULL, 0, in, 3, 0, &o, NULL, 0));
    const uint8_t want[8] = {128, 129, 130, 255, 1, 0, 130, 132};
    CHECK(memcmp(y, want, 8) == 0);

    /* i8, per-axis along axis 1 (negative: -1 of a rank-2 tensor) */
    float x2[6] = {1, 2, 3, -4, -5, 300};
    float s2[3] = {1, 2, 0.5f};
    int8_t z2[3] = {0, -1, 10}, y2[6];
    int64_t sh2[2] = {2, 3}, s3[1] = {3};
    cairn_tensor_t in2[3] = {T(CAIRN_F32, 2, sh2, x2), T(CAIRN_F32, 1, s3, s2),
                             T(CAIRN_I8, 1, s3, z2)};
    cairn_attr_t ax = cairn_attr_int("axis", -1);
    cairn_tensor_t o2 = T(CAIRN_I8, 2, sh2, y2);
    CHECK_OK(run1("QuantizeLinear", &ax, 1, in2, 3, 0x6, &o2, NULL, 0));
    /* by hand: 1/1+0, 2/2-1, 3/.5+10, -4/1+0, -5/2 = -2.5 -> -2 (even), -1 -> -3,
     * 300/.5+10 saturates */
    const int8_t w2[6] = {1, 0, 16, -4, -3, 127};
    CHECK(memcmp(y2, w2, 6) == 0);

    /* no zero point: u8 output */
    uint8_t y3[8];
    cairn_tensor_t o3 = T(CAIRN_U8, 1, sx, y3);
    CHECK_OK(run1("QuantizeLinear", NULL, 0, in, 2, 0, &o3, NULL, 0));
    CHECK(y3[0] == 0 && y3[1] == 1 && y3[2] == 2 && y3[3] == 255 && y3[4] == 0);
}

static void test_quantize_random(void)
{
    check_rng_t r = {11};
    enum { A = 3, C = 4, B = 5 };
    float x[A * C * B], s[C];
    int8_t z[C], y[A * C * B];
    check_fill_f32(&r, x, A * C * B, -40, 40);
    for (int c = 0; c < C; c++) {
        s[c] = (float)check_rng_uniform(&r, 0.05, 0.5);
        z[c] = (int8_t)(int)check_rng_uniform(&r, -20, 20);
    }
    memset(y, 0x55, sizeof y);
    int64_t sh[3] = {A, C, B}, sc[1] = {C};
    cairn_tensor_t in[3] = {T(CAIRN_F32, 3, sh, x), T(CAIRN_F32, 1, sc, s),
                            T(CAIRN_I8, 1, sc, z)};
    cairn_tensor_t o = T(CAIRN_I8, 3, sh, y);
    CHECK_OK(run1("QuantizeLinear", NULL, 0, in, 3, 0, &o, NULL, 0)); /* axis defaults to 1 */
    int bad = 0;
    for (int a = 0; a < A; a++)
        for (int c = 0; c < C; c++)
            for (int b = 0; b < B; b++) {
                int i = (a * C + c) * B + b;
                double w = clampd(rnd_even((double)(x[i] / s[c])) + z[c], -128, 127);
                bad += y[i] != (int8_t)w;
            }
    CHECK_MSG(bad == 0, "%d quantised values differ", bad);

    /* dequantize them back per axis: (y - z) * s */
    float d[A * C * B];
    for (int i = 0; i < A * C * B; i++)
        d[i] = NAN;
    cairn_tensor_t din[3] = {T(CAIRN_I8, 3, sh, y), T(CAIRN_F32, 1, sc, s),
                             T(CAIRN_I8, 1, sc, z)};
    cairn_tensor_t dout = T(CAIRN_F32, 3, sh, d);
    CHECK_OK(run1("DequantizeLinear", NULL, 0, din, 3, 0, &dout, NULL, 0));
    double want[A * C * B];
    for (int a = 0; a < A; a++)
        for (int c = 0; c < C; c++)
            for (int b = 0; b < B; b++) {
                int i = (a * C + c) * B + b;
                want[i] = ((double)y[i] - z[c]) * s[c];
            }
    check_close_f32(d, want, A * C * B, 0, 1e-6, "DequantizeLinear per-axis");
}

static void test_dequantize_literal(void)
{
    uint8_t x[4] = {0, 3, 128, 255};
    float s = 2, y[4] = {NAN, NAN, NAN, NAN};
    uint8_t z = 128;
    int64_t sx[1] = {4};
    cairn_tensor_t in[3] = {T(CAIRN_U8, 1, sx, x), T(CAIRN_F32, 0, S0, &s),
                            T(CAIRN_U8, 0, S0, &z)};
    cairn_tensor_t o = T(CAIRN_F32, 1, sx, y);
    CHECK_OK(run1("DequantizeLinear", NULL, 0, in, 3, 0, &o, NULL, 0));
    CHECK(y[0] == -256 && y[1] == -250 && y[2] == 0 && y[3] == 254);
    /* i32 input without a zero point */
    int32_t xi[4] = {-7, 0, 100000, 3};
    cairn_tensor_t in2[2] = {T(CAIRN_I32, 1, sx, xi), T(CAIRN_F32, 0, S0, &s)};
    CHECK_OK(run1("DequantizeLinear", NULL, 0, in2, 2, 0, &o, NULL, 0));
    CHECK(y[0] == -14 && y[1] == 0 && y[2] == 200000 && y[3] == 6);
}

static void test_dynamic_quantize(void)
{
    /* the ONNX operator example */
    float x[6] = {0, 2, -3, -2.5f, 1.34f, 0.5f};
    int64_t sx[1] = {6};
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    cairn_value_id xi, outs[3];
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 1, sx, NULL, &xi));
    CHECK_OK(cairn_graph_add_node(g, "DynamicQuantizeLinear", "d", &xi, 1, NULL, 0, outs, 3, NULL));
    for (int i = 0; i < 3; i++)
        CHECK_OK(cairn_graph_mark_output(g, outs[i]));
    cairn_session_t *s;
    CHECK_OK(cairn_session_create(g, NULL, &s));
    cairn_graph_destroy(g);
    uint8_t y[6], zp = 7;
    float sc = NAN;
    memset(y, 0xEE, sizeof y);
    cairn_tensor_t in = T(CAIRN_F32, 1, sx, x);
    cairn_tensor_t o[3] = {T(CAIRN_U8, 1, sx, y), T(CAIRN_F32, 0, S0, &sc),
                           T(CAIRN_U8, 0, S0, &zp)};
    CHECK_OK(cairn_session_run(s, &in, 1, o, 3));
    const uint8_t want[6] = {153, 255, 0, 26, 221, 179};
    CHECK(memcmp(y, want, 6) == 0);
    CHECK(fabs(sc - 5.0 / 255) < 1e-7 && zp == 153);
    /* all zeros: scale 0, zero point 0 */
    float x0[6] = {0};
    in.data = x0;
    CHECK_OK(cairn_session_run(s, &in, 1, o, 3));
    CHECK(sc == 0 && zp == 0 && y[0] == 0 && y[5] == 0);
    cairn_session_destroy(s);
}

static void test_quantize_errors(void)
{
    float x[6] = {0}, s2[2] = {1, 1}, s = 1;
    uint8_t y[6] = {0};
    int64_t sh[2] = {2, 3}, s2sh[1] = {2}, bad2[2] = {1, 1};
    cairn_tensor_t o = T(CAIRN_U8, 2, sh, y);
    /* per-axis scale of the wrong length for axis 1 */
    cairn_tensor_t in[2] = {T(CAIRN_F32, 2, sh, x), T(CAIRN_F32, 1, s2sh, s2)};
    CHECK_FAILS(run1("QuantizeLinear", NULL, 0, in, 2, 0, &o, NULL, 0), CAIRN_ERR_SHAPE,
                "y_scale has 2 entries");
    /* a 2-D scale */
    cairn_tensor_t in2[2] = {T(CAIRN_F32, 2, sh, x), T(CAIRN_F32, 2, bad2, s2)};
    CHECK_FAILS(run1("QuantizeLinear", NULL, 0, in2, 2, 0, &o, NULL, 0), CAIRN_ERR_SHAPE,
                "scalar or 1-D");
    /* an f64 scale, an i16 zero point, a bad axis */
    double sd = 1;
    cairn_tensor_t in3[2] = {T(CAIRN_F32, 2, sh, x), T(CAIRN_F64, 0, S0, &sd)};
    CHECK_FAILS(run1("QuantizeLinear", NULL, 0, in3, 2, 0, &o, NULL, 0), CAIRN_ERR_DTYPE,
                "input 1");
    int16_t z16 = 0;
    cairn_tensor_t in4[3] = {T(CAIRN_F32, 2, sh, x), T(CAIRN_F32, 0, S0, &s),
                             T(CAIRN_I16, 0, S0, &z16)};
    CHECK_FAILS(run1("QuantizeLinear", NULL, 0, in4, 3, 0, &o, NULL, 0), CAIRN_ERR_DTYPE,
                "input 2");
    cairn_attr_t ax = cairn_attr_int("axis", 5);
    cairn_tensor_t in5[2] = {T(CAIRN_F32, 2, sh, x), T(CAIRN_F32, 1, s2sh, s2)};
    CHECK_FAILS(run1("QuantizeLinear", &ax, 1, in5, 2, 0, &o, NULL, 0), CAIRN_ERR_SHAPE, "axis 5");
    /* Dequantize: zero point of another type than x */
    uint8_t xq[6] = {0};
    int8_t zi = 0;
    float yf[6];
    cairn_tensor_t of = T(CAIRN_F32, 2, sh, yf);
    cairn_tensor_t in6[3] = {T(CAIRN_U8, 2, sh, xq), T(CAIRN_F32, 0, S0, &s),
                             T(CAIRN_I8, 0, S0, &zi)};
    CHECK_FAILS(run1("DequantizeLinear", NULL, 0, in6, 3, 0, &of, NULL, 0), CAIRN_ERR_DTYPE,
                "same type");
    cairn_tensor_t in7[1] = {T(CAIRN_F64, 2, sh, x)};
    CHECK_FAILS(run1("DynamicQuantizeLinear", NULL, 0, in7, 1, 0, &o, NULL, 0), CAIRN_ERR_DTYPE,
                "f64");
}

/* ======================= MatMulInteger / QLinearMatMul ======================= */

static void test_matmul_integer(void)
{
    /* literal: the ONNX example */
    uint8_t a[12] = {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0};
    uint8_t b[6] = {1, 4, 2, 5, 3, 6}, az = 12, bz = 0;
    int32_t y[8] = {0};
    int64_t sa[2] = {4, 3}, sb[2] = {3, 2}, sy[2] = {4, 2};
    cairn_tensor_t in[4] = {T(CAIRN_U8, 2, sa, a), T(CAIRN_U8, 2, sb, b), T(CAIRN_U8, 0, S0, &az),
                            T(CAIRN_U8, 0, S0, &bz)};
    cairn_tensor_t o = T(CAIRN_I32, 2, sy, y);
    CHECK_OK(run1("MatMulInteger", NULL, 0, in, 4, 0, &o, NULL, 0));
    const int32_t want[8] = {-38, -83, -44, -98, -50, -113, -56, -128};
    CHECK(memcmp(y, want, sizeof want) == 0);

    /* random: batch broadcasting (2,1,3,4) x (3,4,5), i8 x u8, per-row and
     * per-column zero points */
    check_rng_t r = {5};
    enum { P = 2, Q = 3, M = 3, K = 4, N = 5 };
    int8_t A[P * M * K], azv[M];
    uint8_t B[Q * K * N], bzv[N];
    for (int i = 0; i < P * M * K; i++)
        A[i] = (int8_t)(int)check_rng_uniform(&r, -128, 128);
    for (int i = 0; i < Q * K * N; i++)
        B[i] = (uint8_t)(int)check_rng_uniform(&r, 0, 256);
    for (int i = 0; i < M; i++)
        azv[i] = (int8_t)(int)check_rng_uniform(&r, -10, 10);
    for (int i = 0; i < N; i++)
        bzv[i] = (uint8_t)(int)check_rng_uniform(&r, 100, 150);
    int32_t Y[P * Q * M * N];
    memset(Y, 0x7f, sizeof Y);
    int64_t sA[4] = {P, 1, M, K}, sB[3] = {Q, K, N}, sY[4] = {P, Q, M, N}, sm[1] = {M},
            sn[1] = {N};
    cairn_tensor_t in2[4] = {T(CAIRN_I8, 4, sA, A), T(CAIRN_U8, 3, sB, B),
                             T(CAIRN_I8, 1, sm, azv), T(CAIRN_U8, 1, sn, bzv)};
    cairn_tensor_t o2 = T(CAIRN_I32, 4, sY, Y);
    CHECK_OK(run1("MatMulInteger", NULL, 0, in2, 4, 0x2, &o2, NULL, 0));
    int bad = 0;
    for (int p = 0; p < P; p++)
        for (int q = 0; q < Q; q++)
            for (int m = 0; m < M; m++)
                for (int n = 0; n < N; n++) {
                    long acc = 0;
                    for (int kk = 0; kk < K; kk++)
                        acc += (long)(A[(p * M + m) * K + kk] - azv[m]) *
                               (B[(q * K + kk) * N + n] - bzv[n]);
                    bad += Y[((p * Q + q) * M + m) * N + n] != acc;
                }
    CHECK_MSG(bad == 0, "%d MatMulInteger outputs differ", bad);

    /* 1-D A (K) x 2-D B (K, N) -> (N) */
    uint8_t a1[3] = {1, 2, 3};
    int32_t y1[2];
    int64_t s1[1] = {3}, so1[1] = {2};
    cairn_tensor_t in3[2] = {T(CAIRN_U8, 1, s1, a1), T(CAIRN_U8, 2, sb, b)};
    cairn_tensor_t o3 = T(CAIRN_I32, 1, so1, y1);
    CHECK_OK(run1("MatMulInteger", NULL, 0, in3, 2, 0, &o3, NULL, 0));
    CHECK(y1[0] == 1 * 1 + 2 * 2 + 3 * 3 && y1[1] == 4 + 10 + 18);

    /* errors: inner dims, f32 operand, zero point of the wrong length */
    int64_t sb_bad[2] = {4, 2};
    cairn_tensor_t e1[2] = {T(CAIRN_U8, 2, sa, a), T(CAIRN_U8, 2, sb_bad, a)};
    CHECK_FAILS(run1("MatMulInteger", NULL, 0, e1, 2, 0, &o, NULL, 0), CAIRN_ERR_SHAPE,
                "inner dims");
    float af[12] = {0};
    cairn_tensor_t e2[2] = {T(CAIRN_F32, 2, sa, af), T(CAIRN_U8, 2, sb, b)};
    CHECK_FAILS(run1("MatMulInteger", NULL, 0, e2, 2, 0, &o, NULL, 0), CAIRN_ERR_DTYPE, "f32");
    uint8_t zz[3] = {0};
    cairn_tensor_t e3[3] = {T(CAIRN_U8, 2, sa, a), T(CAIRN_U8, 2, sb, b), T(CAIRN_U8, 1, s1, zz)};
    CHECK_FAILS(run1("MatMulInteger", NULL, 0, e3, 3, 0, &o, NULL, 0), CAIRN_ERR_SHAPE,
                "a_zero_point");
}

static void test_qlinear_matmul(void)
{
    check_rng_t r = {9};
    enum { M = 3, K = 7, N = 4 };
    uint8_t A[M * K], az = 113, yz = 120;
    int8_t B[K * N], bz = -3;
    for (int i = 0; i < M * K; i++)
        A[i] = (uint8_t)(int)check_rng_uniform(&r, 0, 256);
    for (int i = 0; i < K * N; i++)
        B[i] = (int8_t)(int)check_rng_uniform(&r, -128, 128);
    float as = 0.0066f, bs = 0.00705f, ys = 0.0107f;
    uint8_t Y[M * N];
    memset(Y, 0xcd, sizeof Y);
    int64_t sa[2] = {M, K}, sb[2] = {K, N}, sy[2] = {M, N};
    cairn_tensor_t in[8] = {T(CAIRN_U8, 2, sa, A),  T(CAIRN_F32, 0, S0, &as),
                            T(CAIRN_U8, 0, S0, &az), T(CAIRN_I8, 2, sb, B),
                            T(CAIRN_F32, 0, S0, &bs), T(CAIRN_I8, 0, S0, &bz),
                            T(CAIRN_F32, 0, S0, &ys), T(CAIRN_U8, 0, S0, &yz)};
    cairn_tensor_t o = T(CAIRN_U8, 2, sy, Y);
    CHECK_OK(run1("QLinearMatMul", NULL, 0, in, 8, 0xfe, &o, NULL, 0));
    int bad = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            long acc = 0;
            for (int kk = 0; kk < K; kk++)
                acc += (long)(A[m * K + kk] - az) * (B[kk * N + n] - bz);
            double real = (double)acc * as * bs; /* the real-valued product */
            double w = clampd(rnd_even(real / ys) + yz, 0, 255);
            /* the multiplier is formed in f32, so allow one step at exact ties */
            bad += abs((int)Y[m * N + n] - (int)w) > (fabs(fmod(real / ys, 1.0)) > 0.499 ? 1 : 0);
        }
    CHECK_MSG(bad == 0, "%d QLinearMatMul outputs differ", bad);

    /* literal: 1x2 x 2x1, scales 1, zero points 0: 2*3 + 4*5 = 26; saturates at 127 */
    int8_t a2[2] = {2, 4}, b2[2] = {3, 5}, z0 = 0, y2 = 0;
    float one = 1, half = 0.5f;
    int64_t s12[2] = {1, 2}, s21[2] = {2, 1}, s11[2] = {1, 1};
    cairn_tensor_t in2[8] = {T(CAIRN_I8, 2, s12, a2),  T(CAIRN_F32, 0, S0, &one),
                             T(CAIRN_I8, 0, S0, &z0),  T(CAIRN_I8, 2, s21, b2),
                             T(CAIRN_F32, 0, S0, &one), T(CAIRN_I8, 0, S0, &z0),
                             T(CAIRN_F32, 0, S0, &half), T(CAIRN_I8, 0, S0, &z0)};
    cairn_tensor_t o2 = T(CAIRN_I8, 2, s11, &y2);
    CHECK_OK(run1("QLinearMatMul", NULL, 0, in2, 8, 0, &o2, NULL, 0));
    CHECK(y2 == 52);
    a2[0] = 100;
    CHECK_OK(run1("QLinearMatMul", NULL, 0, in2, 8, 0, &o2, NULL, 0));
    CHECK(y2 == 127);
    /* a per-tensor y_scale that is a vector */
    float ysv[2] = {1, 1};
    int64_t s2[1] = {2};
    in2[6] = T(CAIRN_F32, 1, s2, ysv);
    CHECK_FAILS(run1("QLinearMatMul", NULL, 0, in2, 8, 0, &o2, NULL, 0), CAIRN_ERR_SHAPE,
                "y_scale");
}

/* ======================= ConvInteger / QLinearConv ======================= */

/* direct 2-D convolution with zero points, padding, stride and groups */
static void naive_conv(const uint8_t *x, int xz, const int8_t *w, const int8_t *wz, int N, int C,
                       int H, int W, int M, int G, int KH, int KW, int pad, int st, int OH,
                       int OW, long *y)
{
    int cg = C / G, mg = M / G;
    for (int n = 0; n < N; n++)
        for (int m = 0; m < M; m++)
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    long acc = 0;
                    int g = m / mg;
                    for (int c = 0; c < cg; c++)
                        for (int kh = 0; kh < KH; kh++)
                            for (int kw = 0; kw < KW; kw++) {
                                int ih = oh * st - pad + kh, iw = ow * st - pad + kw;
                                if (ih < 0 || iw < 0 || ih >= H || iw >= W)
                                    continue;
                                int xv = x[((n * C + g * cg + c) * H + ih) * W + iw] - xz;
                                int wv = w[((m * cg + c) * KH + kh) * KW + kw] - wz[m];
                                acc += (long)xv * wv;
                            }
                    y[((n * M + m) * OH + oh) * OW + ow] = acc;
                }
}

static void test_conv_integer(void)
{
    /* the ONNX example: 3x3 x, 2x2 w of ones, x_zero_point 1 */
    uint8_t x[9] = {2, 3, 4, 5, 6, 7, 8, 9, 10}, xz = 1, w[4] = {1, 1, 1, 1};
    int32_t y[4] = {0};
    int64_t sx[4] = {1, 1, 3, 3}, sw[4] = {1, 1, 2, 2}, sy[4] = {1, 1, 2, 2};
    cairn_tensor_t in[3] = {T(CAIRN_U8, 4, sx, x), T(CAIRN_U8, 4, sw, w), T(CAIRN_U8, 0, S0, &xz)};
    cairn_tensor_t o = T(CAIRN_I32, 4, sy, y);
    CHECK_OK(run1("ConvInteger", NULL, 0, in, 3, 0, &o, NULL, 0));
    CHECK(y[0] == 12 && y[1] == 16 && y[2] == 24 && y[3] == 28);

    /* random: groups 2, pads 1, stride 2, per-channel w zero points */
    enum { N = 2, C = 4, H = 5, W = 6, M = 6, G = 2, KH = 3, KW = 2, PAD = 1, ST = 2 };
    enum { OH = (H + 2 * PAD - KH) / ST + 1, OW = (W + 2 * PAD - KW) / ST + 1 };
    check_rng_t r = {17};
    uint8_t X[N * C * H * W], xzr = 77;
    int8_t Wt[M * (C / G) * KH * KW], wz[M];
    for (int i = 0; i < N * C * H * W; i++)
        X[i] = (uint8_t)(int)check_rng_uniform(&r, 0, 256);
    for (int i = 0; i < M * (C / G) * KH * KW; i++)
        Wt[i] = (int8_t)(int)check_rng_uniform(&r, -128, 128);
    for (int i = 0; i < M; i++)
        wz[i] = (int8_t)(int)check_rng_uniform(&r, -5, 5);
    long want[N * M * OH * OW];
    naive_conv(X, xzr, Wt, wz, N, C, H, W, M, G, KH, KW, PAD, ST, OH, OW, want);
    int32_t Y[N * M * OH * OW];
    memset(Y, 0x7f, sizeof Y);
    int64_t sX[4] = {N, C, H, W}, sW[4] = {M, C / G, KH, KW}, sY[4] = {N, M, OH, OW}, sm[1] = {M};
    int64_t pads[4] = {PAD, PAD, PAD, PAD}, strides[2] = {ST, ST};
    cairn_attr_t at[3] = {cairn_attr_int("group", G), cairn_attr_ints("pads", pads, 4),
                          cairn_attr_ints("strides", strides, 2)};
    cairn_tensor_t in2[4] = {T(CAIRN_U8, 4, sX, X), T(CAIRN_I8, 4, sW, Wt),
                             T(CAIRN_U8, 0, S0, &xzr), T(CAIRN_I8, 1, sm, wz)};
    cairn_tensor_t o2 = T(CAIRN_I32, 4, sY, Y);
    CHECK_OK(run1("ConvInteger", at, 3, in2, 4, 0x2, &o2, NULL, 0));
    int bad = 0;
    for (int i = 0; i < N * M * OH * OW; i++)
        bad += Y[i] != want[i];
    CHECK_MSG(bad == 0, "%d ConvInteger outputs differ", bad);

    /* grouped ConvIntegers run as exact f32 convolutions (at most 258 taps a
     * group): depthwise 3x3, groups of 2 x 129 taps at the operands'
     * extremes (|x - xz| = |w - wz| = 255 everywhere: 258 x 255^2 is just
     * under 2^24), and 259 taps (an odd sum past 2^24, which f32 cannot
     * hold: the reference's) */
    for (int cs = 0; cs < 3; cs++) {
        const int gN = 1, gC = cs == 0 ? 8 : 4, gM = gC, gG = cs == 0 ? 8 : cs == 1 ? 2 : 4;
        const int gH = 6, gW = cs == 0 ? 7 : 262, gKH = cs == 0 ? 3 : 1;
        const int gKW = cs == 0 ? 3 : cs == 1 ? 129 : 259, gP = cs == 0 ? 1 : 0;
        const int gOH = gH + 2 * gP - gKH + 1, gOW = gW + 2 * gP - gKW + 1;
        const int nx = gN * gC * gH * gW, nw = gM * (gC / gG) * gKH * gKW;
        const int ny = gN * gM * gOH * gOW;
        uint8_t *gx = malloc((size_t)nx), gxz = 0;
        int8_t *gw = malloc((size_t)nw), gwz[8];
        for (int i = 0; i < nx; i++)
            gx[i] = cs == 0 && i % 7 == 3 ? 17 : 255;
        for (int i = 0; i < nw; i++)
            gw[i] = cs == 0 && i % 5 == 1 ? 60 : -128;
        for (int i = 0; i < gM; i++)
            gwz[i] = 127;
        long *gwant = malloc(sizeof(long) * (size_t)ny);
        int32_t *gy = malloc(sizeof(int32_t) * (size_t)ny);
        naive_conv(gx, gxz, gw, gwz, gN, gC, gH, gW, gM, gG, gKH, gKW, gP, 1, gOH, gOW, gwant);
        memset(gy, 0x7f, sizeof(int32_t) * (size_t)ny);
        int64_t gsX[4] = {gN, gC, gH, gW}, gsW[4] = {gM, gC / gG, gKH, gKW};
        int64_t gsY[4] = {gN, gM, gOH, gOW}, gsm[1] = {gM}, gpads[4] = {gP, gP, gP, gP};
        cairn_attr_t ga[2] = {cairn_attr_int("group", gG), cairn_attr_ints("pads", gpads, 4)};
        cairn_tensor_t gin[4] = {T(CAIRN_U8, 4, gsX, gx), T(CAIRN_I8, 4, gsW, gw),
                                 T(CAIRN_U8, 0, S0, &gxz), T(CAIRN_I8, 1, gsm, gwz)};
        cairn_tensor_t go = T(CAIRN_I32, 4, gsY, gy);
        CHECK_OK(run1("ConvInteger", ga, 2, gin, 4, 0x2, &go, NULL, 0));
        int gbad = 0;
        for (int i = 0; i < ny; i++)
            gbad += gy[i] != gwant[i];
        CHECK_MSG(gbad == 0, "grouped ConvInteger case %d (%d taps a group): %d outputs differ",
                  cs, (gC / gG) * gKH * gKW, gbad);
        free(gx), free(gw), free(gwant), free(gy);
    }
    /* the grouped route with an i8 x (its widening pass has a loop per
     * type): depthwise 3x3, pad 1, over 3 x 5 x 7, against the direct sums */
    {
        enum { DC = 3, DH = 5, DW = 7 };
        int8_t dx[DC * DH * DW], dw[DC * 9], dxz = -7, dwz[DC] = {1, -2, 0};
        for (int i = 0; i < DC * DH * DW; i++)
            dx[i] = (int8_t)(int)check_rng_uniform(&r, -128, 128);
        for (int i = 0; i < DC * 9; i++)
            dw[i] = (int8_t)(int)check_rng_uniform(&r, -128, 128);
        int32_t dy[DC * DH * DW];
        memset(dy, 0x7f, sizeof dy);
        int64_t dsx[4] = {1, DC, DH, DW}, dsw[4] = {DC, 1, 3, 3}, dsy[4] = {1, DC, DH, DW};
        int64_t dsm[1] = {DC}, dpads[4] = {1, 1, 1, 1};
        cairn_attr_t da[2] = {cairn_attr_int("group", DC), cairn_attr_ints("pads", dpads, 4)};
        cairn_tensor_t din[4] = {T(CAIRN_I8, 4, dsx, dx), T(CAIRN_I8, 4, dsw, dw),
                                 T(CAIRN_I8, 0, S0, &dxz), T(CAIRN_I8, 1, dsm, dwz)};
        cairn_tensor_t dout = T(CAIRN_I32, 4, dsy, dy);
        CHECK_OK(run1("ConvInteger", da, 2, din, 4, 0x2, &dout, NULL, 0));
        int dbad = 0;
        for (int c = 0; c < DC; c++)
            for (int h = 0; h < DH; h++)
                for (int ow = 0; ow < DW; ow++) {
                    long acc = 0;
                    for (int ky = 0; ky < 3; ky++)
                        for (int kx = 0; kx < 3; kx++) {
                            const int ih = h - 1 + ky, iw = ow - 1 + kx;
                            if (ih >= 0 && iw >= 0 && ih < DH && iw < DW)
                                acc += (long)(dx[(c * DH + ih) * DW + iw] - dxz) *
                                       (dw[c * 9 + ky * 3 + kx] - dwz[c]);
                        }
                    dbad += dy[(c * DH + h) * DW + ow] != acc;
                }
        CHECK_MSG(dbad == 0, "grouped ConvInteger, i8 x: %d outputs differ", dbad);
    }

    /* QLinearConv on the same data: per-channel w_scale, bias */
    float xs = 0.02f, wsc[M], ys = 0.9f;
    int32_t bias[M];
    uint8_t yz = 100, QY[N * M * OH * OW];
    for (int i = 0; i < M; i++) {
        wsc[i] = (float)check_rng_uniform(&r, 0.01, 0.05);
        bias[i] = (int32_t)check_rng_uniform(&r, -2000, 2000);
    }
    memset(QY, 0xcd, sizeof QY);
    cairn_tensor_t in3[9] = {T(CAIRN_U8, 4, sX, X),     T(CAIRN_F32, 0, S0, &xs),
                             T(CAIRN_U8, 0, S0, &xzr),  T(CAIRN_I8, 4, sW, Wt),
                             T(CAIRN_F32, 1, sm, wsc),  T(CAIRN_I8, 1, sm, wz),
                             T(CAIRN_F32, 0, S0, &ys),  T(CAIRN_U8, 0, S0, &yz),
                             T(CAIRN_I32, 1, sm, bias)};
    cairn_tensor_t o3 = T(CAIRN_U8, 4, sY, QY);
    CHECK_OK(run1("QLinearConv", at, 3, in3, 9, 0x1f8, &o3, NULL, 0));
    bad = 0;
    for (int n = 0; n < N; n++)
        for (int m = 0; m < M; m++)
            for (int i = 0; i < OH * OW; i++) {
                int e = (n * M + m) * OH * OW + i;
                double real = (double)(want[e] + bias[m]) * xs * wsc[m] / ys;
                double wv = clampd(rnd_even(real) + yz, 0, 255);
                bad += abs((int)QY[e] - (int)wv) > (fabs(fmod(real, 1.0)) > 0.499 ? 1 : 0);
            }
    CHECK_MSG(bad == 0, "%d QLinearConv outputs differ", bad);

    /* errors: channels vs group, f32 weights, bias of the wrong length */
    cairn_attr_t g3 = cairn_attr_int("group", 3);
    CHECK_FAILS(run1("ConvInteger", &g3, 1, in2, 4, 0, &o2, NULL, 0), CAIRN_ERR_SHAPE,
                "not divisible by group");
    float wf[4] = {0};
    cairn_tensor_t e1[2] = {T(CAIRN_U8, 4, sx, x), T(CAIRN_F32, 4, sw, wf)};
    CHECK_FAILS(run1("ConvInteger", NULL, 0, e1, 2, 0, &o, NULL, 0), CAIRN_ERR_DTYPE, "f32");
    int64_t s2[1] = {2};
    in3[8] = T(CAIRN_I32, 1, s2, bias);
    CHECK_FAILS(run1("QLinearConv", at, 3, in3, 9, 0, &o3, NULL, 0), CAIRN_ERR_SHAPE, "bias");
    cairn_attr_t badpad = cairn_attr_string("auto_pad", "MIDDLE");
    CHECK_FAILS(run1("ConvInteger", &badpad, 1, in, 3, 0, &o, NULL, 0),
                CAIRN_ERR_INVALID_ARGUMENT, "auto_pad");
}

/* ======================= GatherND / ScatterND / ScatterElements ======================= */

static void test_gather_nd(void)
{
    /* ONNX examples 1..3, and 5 (batch_dims 1) */
    int32_t d[8] = {0, 1, 2, 3, 4, 5, 6, 7}, y[4] = {0};
    int64_t sd2[2] = {2, 2}, sd3[3] = {2, 2, 2};
    int64_t i1[4] = {0, 0, 1, 1}, si1[2] = {2, 2}, so1[1] = {2};
    cairn_tensor_t in[2] = {T(CAIRN_I32, 2, sd2, d), T(CAIRN_I64, 2, si1, i1)};
    cairn_tensor_t o = T(CAIRN_I32, 1, so1, y);
    CHECK_OK(run1("GatherND", NULL, 0, in, 2, 0, &o, NULL, 0));
    CHECK(y[0] == 0 && y[1] == 3);
    int64_t i2[2] = {1, 0}, si2[2] = {2, 1}, so2[2] = {2, 2};
    in[1] = T(CAIRN_I64, 2, si2, i2);
    o = T(CAIRN_I32, 2, so2, y);
    CHECK_OK(run1("GatherND", NULL, 0, in, 2, 0, &o, NULL, 0));
    CHECK(y[0] == 2 && y[1] == 3 && y[2] == 0 && y[3] == 1);
    int64_t i3[4] = {0, 1, -1, 0}, so3[2] = {2, 2};
    in[0] = T(CAIRN_I32, 3, sd3, d);
    in[1] = T(CAIRN_I64, 2, si1, i3);
    o = T(CAIRN_I32, 2, so3, y);
    CHECK_OK(run1("GatherND", NULL, 0, in, 2, 0, &o, NULL, 0));
    CHECK(y[0] == 2 && y[1] == 3 && y[2] == 4 && y[3] == 5); /* negative index -1 -> 1 */
    cairn_attr_t bd = cairn_attr_int("batch_dims", 1);
    int64_t i5[2] = {1, 0};
    in[1] = T(CAIRN_I64, 2, si2, i5);
    o = T(CAIRN_I32, 2, so2, y);
    CHECK_OK(run1("GatherND", &bd, 1, in, 2, 0, &o, NULL, 0));
    CHECK(y[0] == 2 && y[1] == 3 && y[2] == 4 && y[3] == 5);
    /* errors: out-of-range index at run time, q too large, f32 indices */
    i5[1] = 2;
    CHECK_FAILS(run1("GatherND", &bd, 1, in, 2, 0, &o, NULL, 0), CAIRN_ERR_RUNTIME, "index 2");
    int64_t i4[3] = {0, 0, 0}, si4[2] = {1, 3};
    in[0] = T(CAIRN_I32, 2, sd2, d);
    in[1] = T(CAIRN_I64, 2, si4, i4);
    CHECK_FAILS(run1("GatherND", NULL, 0, in, 2, 0, &o, NULL, 0), CAIRN_ERR_SHAPE, "last dim");
    float fi[2] = {0};
    in[1] = T(CAIRN_F32, 2, si2, fi);
    CHECK_FAILS(run1("GatherND", NULL, 0, in, 2, 0, &o, NULL, 0), CAIRN_ERR_DTYPE, "input 1");
}

static void test_scatter(void)
{
    /* ScatterND, ONNX example 1 with reduction none / add / mul */
    float d[8] = {1, 2, 3, 4, 5, 6, 7, 8}, u[4] = {9, 10, 11, 12}, y[8] = {0};
    int64_t idx[4] = {4, 3, 1, 7}, sd[1] = {8}, si[2] = {4, 1}, su[1] = {4};
    cairn_tensor_t in[3] = {T(CAIRN_F32, 1, sd, d), T(CAIRN_I64, 2, si, idx),
                            T(CAIRN_F32, 1, su, u)};
    cairn_tensor_t o = T(CAIRN_F32, 1, sd, y);
    for (int i = 0; i < 8; i++)
        y[i] = NAN;
    CHECK_OK(run1("ScatterND", NULL, 0, in, 3, 0, &o, NULL, 0));
    const float w1[8] = {1, 11, 3, 10, 9, 6, 7, 12};
    CHECK(memcmp(y, w1, sizeof w1) == 0);
    idx[1] = 4; /* duplicate index: add and mul combine both updates */
    cairn_attr_t add = cairn_attr_string("reduction", "add");
    CHECK_OK(run1("ScatterND", &add, 1, in, 3, 0, &o, NULL, 0));
    CHECK(y[4] == 5 + 9 + 10 && y[1] == 2 + 11 && y[7] == 8 + 12 && y[0] == 1);
    cairn_attr_t mul = cairn_attr_string("reduction", "mul");
    CHECK_OK(run1("ScatterND", &mul, 1, in, 3, 0, &o, NULL, 0));
    CHECK(y[4] == 5 * 9 * 10 && y[1] == 22 && y[3] == 4);
    idx[0] = -9;
    CHECK_FAILS(run1("ScatterND", NULL, 0, in, 3, 0, &o, NULL, 0), CAIRN_ERR_RUNTIME, "-9");
    idx[0] = 4;
    cairn_attr_t badr = cairn_attr_string("reduction", "avg");
    CHECK_FAILS(run1("ScatterND", &badr, 1, in, 3, 0, &o, NULL, 0), CAIRN_ERR_INVALID_ARGUMENT,
                "avg");
    int64_t su_bad[1] = {3};
    in[2] = T(CAIRN_F32, 1, su_bad, u);
    CHECK_FAILS(run1("ScatterND", NULL, 0, in, 3, 0, &o, NULL, 0), CAIRN_ERR_SHAPE, "updates");

    /* ScatterElements: ONNX example 2 (axis 1) with a negative index */
    float d2[5] = {1, 2, 3, 4, 5}, u2[2] = {1.1f, 2.1f}, y2[5];
    int64_t i2[2] = {1, -2}, sd2[2] = {1, 5}, si2[2] = {1, 2};
    cairn_tensor_t in2[3] = {T(CAIRN_F32, 2, sd2, d2), T(CAIRN_I64, 2, si2, i2),
                             T(CAIRN_F32, 2, si2, u2)};
    cairn_attr_t ax1 = cairn_attr_int("axis", 1);
    cairn_tensor_t o2 = T(CAIRN_F32, 2, sd2, y2);
    CHECK_OK(run1("ScatterElements", &ax1, 1, in2, 3, 0, &o2, NULL, 0));
    CHECK(y2[0] == 1 && y2[1] == 1.1f && y2[2] == 3 && y2[3] == 2.1f && y2[4] == 5);
    /* axis 0 on a 3x3 with i32 indices and reduction mul */
    int32_t d3[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, u3[6] = {2, 3, 4, 5, 6, 7}, y3[9];
    int32_t i3[6] = {1, 0, 2, 0, 2, 1};
    int64_t s33[2] = {3, 3}, s23[2] = {2, 3};
    cairn_tensor_t in3[3] = {T(CAIRN_I32, 2, s33, d3), T(CAIRN_I32, 2, s23, i3),
                             T(CAIRN_I32, 2, s23, u3)};
    cairn_attr_t at3[2] = {cairn_attr_int("axis", -2), cairn_attr_string("reduction", "mul")};
    cairn_tensor_t o3 = T(CAIRN_I32, 2, s33, y3);
    CHECK_OK(run1("ScatterElements", at3, 2, in3, 3, 0, &o3, NULL, 0));
    /* (1,0)*=2 (0,1)*=3 (2,2)*=4 (0,0)*=5 (2,1)*=6 (1,2)*=7 */
    const int32_t w3[9] = {5, 6, 3, 8, 5, 42, 7, 48, 36};
    CHECK(memcmp(y3, w3, sizeof w3) == 0);
    i3[4] = 3;
    CHECK_FAILS(run1("ScatterElements", at3, 2, in3, 3, 0, &o3, NULL, 0), CAIRN_ERR_RUNTIME,
                "index 3");
    cairn_attr_t ax5 = cairn_attr_int("axis", 2);
    CHECK_FAILS(run1("ScatterElements", &ax5, 1, in3, 3, 0, &o3, NULL, 0), CAIRN_ERR_SHAPE,
                "axis 2");
    in3[2] = T(CAIRN_I32, 2, s33, d3);
    CHECK_FAILS(run1("ScatterElements", NULL, 0, in3, 3, 0, &o3, NULL, 0), CAIRN_ERR_SHAPE,
                "same shape");
}

/* ======================= Einsum ======================= */

static void test_einsum(void)
{
    check_rng_t r = {23};
    /* batch matmul bij,bjk->bik */
    enum { B = 3, I = 2, J = 5, K = 4 };
    float a[B * I * J], b[B * J * K], y[B * I * K];
    check_fill_f32(&r, a, B * I * J, -1, 1);
    check_fill_f32(&r, b, B * J * K, -1, 1);
    for (int i = 0; i < B * I * K; i++)
        y[i] = NAN;
    double want[B * I * K];
    for (int bb = 0; bb < B; bb++)
        for (int i = 0; i < I; i++)
            for (int k = 0; k < K; k++) {
                double acc = 0;
                for (int j = 0; j < J; j++)
                    acc += (double)a[(bb * I + i) * J + j] * b[(bb * J + j) * K + k];
                want[(bb * I + i) * K + k] = acc;
            }
    int64_t sa[3] = {B, I, J}, sb[3] = {B, J, K}, sy[3] = {B, I, K};
    cairn_attr_t eq = cairn_attr_string("equation", "bij, bjk -> bik");
    cairn_tensor_t in[2] = {T(CAIRN_F32, 3, sa, a), T(CAIRN_F32, 3, sb, b)};
    cairn_tensor_t o = T(CAIRN_F32, 3, sy, y);
    CHECK_OK(run1("Einsum", &eq, 1, in, 2, 0, &o, NULL, 0));
    check_close_f32(y, want, B * I * K, 1e-6, 1e-5, "Einsum batch matmul");

    /* transpose (implicit output: letters in order -> "ij,?"): "ji" gives ij */
    float t[6] = {1, 2, 3, 4, 5, 6}, ty[6];
    int64_t s23[2] = {2, 3}, s32[2] = {3, 2};
    cairn_attr_t eqt = cairn_attr_string("equation", "ji");
    cairn_tensor_t it = T(CAIRN_F32, 2, s23, t);
    cairn_tensor_t ot = T(CAIRN_F32, 2, s32, ty);
    CHECK_OK(run1("Einsum", &eqt, 1, &it, 1, 0, &ot, NULL, 0));
    CHECK(ty[0] == 1 && ty[1] == 4 && ty[2] == 2 && ty[3] == 5 && ty[4] == 3 && ty[5] == 6);
    /* sum over everything, inner product, row sums */
    float s = NAN;
    cairn_attr_t eqs = cairn_attr_string("equation", "ij->");
    cairn_tensor_t os = T(CAIRN_F32, 0, S0, &s);
    CHECK_OK(run1("Einsum", &eqs, 1, &it, 1, 0, &os, NULL, 0));
    CHECK(s == 21);
    float rs[2];
    int64_t s2[1] = {2};
    cairn_attr_t eqr = cairn_attr_string("equation", "ij->i");
    cairn_tensor_t orr = T(CAIRN_F32, 1, s2, rs);
    CHECK_OK(run1("Einsum", &eqr, 1, &it, 1, 0, &orr, NULL, 0));
    CHECK(rs[0] == 6 && rs[1] == 15);
    int64_t v[3] = {1, 2, 3}, w[3] = {4, -5, 6}, ip = 0, s3[1] = {3};
    cairn_attr_t eqi = cairn_attr_string("equation", "i,i");
    cairn_tensor_t ii[2] = {T(CAIRN_I64, 1, s3, v), T(CAIRN_I64, 1, s3, w)};
    cairn_tensor_t oi = T(CAIRN_I64, 0, S0, &ip);
    CHECK_OK(run1("Einsum", &eqi, 1, ii, 2, 0, &oi, NULL, 0));
    CHECK(ip == 4 - 10 + 18);
    /* i8 sums wrap like the type: 100*100 + 100*100 = 20000 = 32 mod 256 */
    int8_t v8[2] = {100, 100}, ip8 = 0;
    int64_t s2b[1] = {2};
    cairn_tensor_t i8in[2] = {T(CAIRN_I8, 1, s2b, v8), T(CAIRN_I8, 1, s2b, v8)};
    cairn_tensor_t o8 = T(CAIRN_I8, 0, S0, &ip8);
    CHECK_OK(run1("Einsum", &eqi, 1, i8in, 2, 0, &o8, NULL, 0));
    CHECK(ip8 == 32);
    /* batch diagonal with an ellipsis: ...ii->...i on (2, 3, 3) */
    double dg[18], dy[6];
    for (int i = 0; i < 18; i++)
        dg[i] = i;
    int64_t s233[3] = {2, 3, 3}, s2x3[2] = {2, 3};
    cairn_attr_t eqd = cairn_attr_string("equation", "...ii ->...i");
    cairn_tensor_t id = T(CAIRN_F64, 3, s233, dg);
    cairn_tensor_t od = T(CAIRN_F64, 2, s2x3, dy);
    CHECK_OK(run1("Einsum", &eqd, 1, &id, 1, 0, &od, NULL, 0));
    CHECK(dy[0] == 0 && dy[1] == 4 && dy[2] == 8 && dy[3] == 9 && dy[4] == 13 && dy[5] == 17);
    /* three operands with an implicit output: ij,jk,kl (-> il) */
    float e1[4] = {1, 2, 3, 4}, e2[4] = {0, 1, 1, 0}, e3[4] = {2, 0, 0, 3}, ey[4];
    int64_t s22[2] = {2, 2};
    cairn_attr_t eq3 = cairn_attr_string("equation", "ij,jk,kl");
    cairn_tensor_t i3[3] = {T(CAIRN_F32, 2, s22, e1), T(CAIRN_F32, 2, s22, e2),
                            T(CAIRN_F32, 2, s22, e3)};
    cairn_tensor_t o3 = T(CAIRN_F32, 2, s22, ey);
    CHECK_OK(run1("Einsum", &eq3, 1, i3, 3, 0, &o3, NULL, 0));
    /* e1 * e2 swaps columns: {2,1,4,3}; * diag(2,3): {4,3,8,9} */
    CHECK(ey[0] == 4 && ey[1] == 3 && ey[2] == 8 && ey[3] == 9);

    /* ellipsis broadcasting: "...ij,...jk->...ik" on (2,1,2,3) and (4,3,2) -> (2,4,2,2) */
    {
        float ea[2 * 2 * 3], eb[4 * 3 * 2], ey2[2 * 4 * 2 * 2];
        double ew[2 * 4 * 2 * 2];
        check_fill_f32(&r, ea, 12, -1, 1);
        check_fill_f32(&r, eb, 24, -1, 1);
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 4; q++)
                for (int i = 0; i < 2; i++)
                    for (int k = 0; k < 2; k++) {
                        double acc = 0;
                        for (int j = 0; j < 3; j++)
                            acc += (double)ea[(p * 2 + i) * 3 + j] * eb[(q * 3 + j) * 2 + k];
                        ew[((p * 4 + q) * 2 + i) * 2 + k] = acc;
                        ey2[((p * 4 + q) * 2 + i) * 2 + k] = NAN;
                    }
        int64_t sea[4] = {2, 1, 2, 3}, seb[3] = {4, 3, 2}, sey[4] = {2, 4, 2, 2};
        cairn_attr_t eqe = cairn_attr_string("equation", "...ij,...jk->...ik");
        cairn_tensor_t ine[2] = {T(CAIRN_F32, 4, sea, ea), T(CAIRN_F32, 3, seb, eb)};
        cairn_tensor_t oe = T(CAIRN_F32, 4, sey, ey2);
        CHECK_OK(run1("Einsum", &eqe, 1, ine, 2, 0, &oe, NULL, 0));
        check_close_f32(ey2, ew, 32, 1e-6, 1e-5, "Einsum ellipsis broadcast");
        /* a letter of size 1 does not broadcast against 2 */
        int64_t s13[2] = {1, 3};
        cairn_attr_t eqx = cairn_attr_string("equation", "ij,ij->ij");
        cairn_tensor_t inx[2] = {T(CAIRN_F32, 2, s13, ea), T(CAIRN_F32, 2, s23, t)};
        CHECK_FAILS(run1("Einsum", &eqx, 1, inx, 2, 0, &ot, NULL, 0), CAIRN_ERR_SHAPE,
                    "label 'i'");
    }
    /* errors */
    cairn_attr_t bad1 = cairn_attr_string("equation", "ij,jk->ik");
    CHECK_FAILS(run1("Einsum", &bad1, 1, &it, 1, 0, &ot, NULL, 0), CAIRN_ERR_INVALID_ARGUMENT,
                "input terms");
    cairn_attr_t bad2 = cairn_attr_string("equation", "ijk->i");
    CHECK_FAILS(run1("Einsum", &bad2, 1, &it, 1, 0, &ot, NULL, 0), CAIRN_ERR_SHAPE, "rank 2");
    cairn_attr_t bad3 = cairn_attr_string("equation", "ij->iz");
    CHECK_FAILS(run1("Einsum", &bad3, 1, &it, 1, 0, &ot, NULL, 0), CAIRN_ERR_INVALID_ARGUMENT,
                "'z'");
    cairn_attr_t bad4 = cairn_attr_string("equation", "ij,ij->ij");
    cairn_tensor_t mism[2] = {T(CAIRN_F32, 2, s23, t), T(CAIRN_F32, 2, s32, t)};
    CHECK_FAILS(run1("Einsum", &bad4, 1, mism, 2, 0, &ot, NULL, 0), CAIRN_ERR_SHAPE, "label");
    CHECK_FAILS(run1("Einsum", NULL, 0, &it, 1, 0, &ot, NULL, 0), CAIRN_ERR_INVALID_ARGUMENT,
                "equation");
}

/* ======================= BitShift ======================= */

static void test_bitshift(void)
{
    uint8_t x[4] = {16, 4, 1, 255}, sh[4] = {1, 2, 3, 8}, y[4];
    int64_t s4[1] = {4};
    cairn_attr_t l = cairn_attr_string("direction", "LEFT"), rr = cairn_attr_string("direction", "RIGHT");
    cairn_tensor_t in[2] = {T(CAIRN_U8, 1, s4, x), T(CAIRN_U8, 1, s4, sh)};
    cairn_tensor_t o = T(CAIRN_U8, 1, s4, y);
    CHECK_OK(run1("BitShift", &l, 1, in, 2, 0, &o, NULL, 0));
    CHECK(y[0] == 32 && y[1] == 16 && y[2] == 8 && y[3] == 0);
    CHECK_OK(run1("BitShift", &rr, 1, in, 2, 0, &o, NULL, 0));
    CHECK(y[0] == 8 && y[1] == 1 && y[2] == 0 && y[3] == 0);
    /* broadcasting a scalar shift; bits shifted out of 8 are lost */
    uint8_t one = 1;
    in[1] = T(CAIRN_U8, 0, S0, &one);
    CHECK_OK(run1("BitShift", &l, 1, in, 2, 0, &o, NULL, 0));
    CHECK(y[0] == 32 && y[3] == 254);
    int8_t xi[4] = {0};
    in[0] = T(CAIRN_I8, 1, s4, xi);
    CHECK_FAILS(run1("BitShift", &l, 1, in, 2, 0, &o, NULL, 0), CAIRN_ERR_DTYPE, "i8");
    in[0] = T(CAIRN_U8, 1, s4, x);
    cairn_attr_t up = cairn_attr_string("direction", "UP");
    CHECK_FAILS(run1("BitShift", &up, 1, in, 2, 0, &o, NULL, 0), CAIRN_ERR_INVALID_ARGUMENT,
                "UP");
}

/* ======================= NonMaxSuppression ======================= */

static void test_nms(void)
{
    /* the ONNX suppress_by_IOU case */
    float boxes[24] = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f,
                       0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101};
    float scores[6] = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};
    int64_t maxo = 3, sb[3] = {1, 6, 4}, ss[3] = {1, 1, 6}, s1[1] = {1};
    float iou = 0.5f, sth = 0.0f;
    cairn_tensor_t in[5] = {T(CAIRN_F32, 3, sb, boxes), T(CAIRN_F32, 3, ss, scores),
                            T(CAIRN_I64, 1, s1, &maxo), T(CAIRN_F32, 1, s1, &iou),
                            T(CAIRN_F32, 1, s1, &sth)};
    int64_t sel[64];
    /* as constants (folded) and as graph inputs (the plan specialises on them) */
    for (unsigned mask = 0; mask <= 0x1f; mask += 0x1f) {
        cairn_tensor_t o;
        memset(&o, 0, sizeof o);
        memset(sel, 0xff, sizeof sel);
        CHECK_OK(run1("NonMaxSuppression", NULL, 0, in, 5, mask, &o, sel, sizeof sel));
        CHECK(o.dtype == CAIRN_I64 && o.rank == 2 && o.shape[0] == 3 && o.shape[1] == 3);
        const int64_t want[9] = {0, 0, 3, 0, 0, 0, 0, 0, 5};
        CHECK(memcmp(sel, want, sizeof want) == 0);
    }
    /* center_point_box, score threshold 0.55 and max 10: a random check
     * against a brute-force greedy written here */
    check_rng_t r = {31};
    enum { NB = 2, NC = 2, N = 20 };
    float bx[NB * N * 4], sc[NB * NC * N];
    for (int i = 0; i < NB * N; i++) {
        bx[i * 4 + 0] = (float)check_rng_uniform(&r, 0, 10); /* xc */
        bx[i * 4 + 1] = (float)check_rng_uniform(&r, 0, 10); /* yc */
        bx[i * 4 + 2] = (float)check_rng_uniform(&r, 1, 5);  /* w */
        bx[i * 4 + 3] = (float)check_rng_uniform(&r, 1, 5);  /* h */
    }
    check_fill_f32(&r, sc, NB * NC * N, 0, 1);
    int64_t mo = 10, sbx[3] = {NB, N, 4}, ssc[3] = {NB, NC, N};
    float io = 0.3f, st = 0.55f;
    cairn_tensor_t in2[5] = {T(CAIRN_F32, 3, sbx, bx), T(CAIRN_F32, 3, ssc, sc),
                             T(CAIRN_I64, 0, S0, &mo), T(CAIRN_F32, 0, S0, &io),
                             T(CAIRN_F32, 0, S0, &st)};
    cairn_attr_t cp = cairn_attr_int("center_point_box", 1);
    cairn_tensor_t o;
    memset(&o, 0, sizeof o);
    int64_t got[NB * NC * N * 3];
    CHECK_OK(run1("NonMaxSuppression", &cp, 1, in2, 5, 0, &o, got, sizeof got));
    int64_t want[NB * NC * N * 3], nw = 0;
    for (int b = 0; b < NB; b++)
        for (int c = 0; c < NC; c++) {
            int used[N] = {0}, kept[N], nk = 0;
            for (;;) {
                int best = -1;
                for (int i = 0; i < N; i++)
                    if (!used[i] && sc[(b * NC + c) * N + i] > st &&
                        (best < 0 || sc[(b * NC + c) * N + i] > sc[(b * NC + c) * N + best]))
                        best = i;
                if (best < 0 || nk == mo)
                    break;
                used[best] = 1;
                const float *p = bx + (b * N + best) * 4;
                int ok = 1;
                for (int j = 0; j < nk && ok; j++) {
                    const float *q = bx + (b * N + kept[j]) * 4;
                    double ix = fmin(p[0] + p[2] / 2, q[0] + q[2] / 2) -
                                fmax(p[0] - p[2] / 2, q[0] - q[2] / 2);
                    double iy = fmin(p[1] + p[3] / 2, q[1] + q[3] / 2) -
                                fmax(p[1] - p[3] / 2, q[1] - q[3] / 2);
                    double inter = ix > 0 && iy > 0 ? ix * iy : 0;
                    double iou_v = inter / ((double)p[2] * p[3] + (double)q[2] * q[3] - inter);
                    if (iou_v > io)
                        ok = 0;
                }
                if (ok) {
                    kept[nk++] = best;
                    want[nw * 3] = b, want[nw * 3 + 1] = c, want[nw * 3 + 2] = best;
                    nw++;
                }
            }
        }
    CHECK(o.rank == 2 && o.shape[0] == nw && nw > 0);
    CHECK(memcmp(got, want, (size_t)nw * 3 * sizeof(int64_t)) == 0);
    /* errors: boxes of the wrong shape; max_output_boxes_per_class of f32 */
    int64_t sbad[3] = {1, 6, 3};
    in[0] = T(CAIRN_F32, 3, sbad, boxes);
    CHECK_FAILS(run1("NonMaxSuppression", NULL, 0, in, 5, 0x1f, &o, sel, sizeof sel),
                CAIRN_ERR_SHAPE, "boxes");
    in[0] = T(CAIRN_F32, 3, sb, boxes);
    float mf = 3;
    in[2] = T(CAIRN_F32, 1, s1, &mf);
    CHECK_FAILS(run1("NonMaxSuppression", NULL, 0, in, 5, 0x1f, &o, sel, sizeof sel),
                CAIRN_ERR_DTYPE, "input 2");
}

/* ======================= Det ======================= */

/* determinant by Laplace expansion along the first row (independent of LU) */
static double laplace(const double *m, int n)
{
    if (n == 1)
        return m[0];
    double sub[16], det = 0;
    for (int c = 0; c < n; c++) {
        int k = 0;
        for (int i = 1; i < n; i++)
            for (int j = 0; j < n; j++)
                if (j != c)
                    sub[k++] = m[i * n + j];
        det += (c % 2 ? -1 : 1) * m[c] * laplace(sub, n - 1);
    }
    return det;
}

static void test_det(void)
{
    float a[4] = {1, 2, 3, 4}, y = NAN;
    int64_t s22[2] = {2, 2};
    cairn_tensor_t in = T(CAIRN_F32, 2, s22, a);
    cairn_tensor_t o = T(CAIRN_F32, 0, S0, &y);
    CHECK_OK(run1("Det", NULL, 0, &in, 1, 0, &o, NULL, 0));
    CHECK(fabs(y - (-2.0)) < 1e-6);
    float sing[4] = {1, 2, 2, 4};
    in.data = sing;
    CHECK_OK(run1("Det", NULL, 0, &in, 1, 0, &o, NULL, 0));
    CHECK(y == 0);
    /* a pivot is needed: [[0,1],[1,0]] -> -1 */
    float piv[4] = {0, 1, 1, 0};
    in.data = piv;
    CHECK_OK(run1("Det", NULL, 0, &in, 1, 0, &o, NULL, 0));
    CHECK(y == -1);
    /* random batch of 4x4 in f64 and 1x1 */
    check_rng_t r = {41};
    enum { B1 = 2, B2 = 3, N = 4 };
    double m[B1 * B2 * N * N], dy[B1 * B2], want[B1 * B2];
    for (int i = 0; i < B1 * B2 * N * N; i++)
        m[i] = check_rng_uniform(&r, -2, 2);
    for (int b = 0; b < B1 * B2; b++)
        want[b] = laplace(m + b * N * N, N), dy[b] = NAN;
    int64_t sm[4] = {B1, B2, N, N}, so[2] = {B1, B2};
    cairn_tensor_t in2 = T(CAIRN_F64, 4, sm, m);
    cairn_tensor_t o2 = T(CAIRN_F64, 2, so, dy);
    CHECK_OK(run1("Det", NULL, 0, &in2, 1, 0, &o2, NULL, 0));
    int bad = 0;
    for (int b = 0; b < B1 * B2; b++)
        bad += fabs(dy[b] - want[b]) > 1e-12 * (1 + fabs(want[b]));
    CHECK_MSG(bad == 0, "%d determinants differ", bad);
    /* errors: not square, rank 1, int type */
    int64_t s23[2] = {2, 3}, s4[1] = {4};
    in = T(CAIRN_F32, 2, s23, a);
    CHECK_FAILS(run1("Det", NULL, 0, &in, 1, 0, &o, NULL, 0), CAIRN_ERR_SHAPE, "square");
    in = T(CAIRN_F32, 1, s4, a);
    CHECK_FAILS(run1("Det", NULL, 0, &in, 1, 0, &o, NULL, 0), CAIRN_ERR_SHAPE, "rank");
    int32_t ai[4] = {0};
    in = T(CAIRN_I32, 2, s22, ai);
    CHECK_FAILS(run1("Det", NULL, 0, &in, 1, 0, &o, NULL, 0), CAIRN_ERR_DTYPE, "i32");
}


/* ======================= random index ops, symbolic dims, NMS refusal ======================= */

static void test_index_random(void)
{
    check_rng_t r = {77};
    /* GatherND, batch_dims 1: data (B, D1, D2, D3), indices (B, T, 2) -> (B, T, D3) */
    enum { B = 3, D1 = 4, D2 = 5, D3 = 2, TT = 6 };
    double data[B * D1 * D2 * D3], y[B * TT * D3];
    int64_t idx[B * TT * 2];
    for (int i = 0; i < B * D1 * D2 * D3; i++)
        data[i] = check_rng_uniform(&r, -5, 5);
    for (int i = 0; i < B * TT; i++) {
        idx[i * 2] = (int64_t)check_rng_uniform(&r, -D1, D1);
        idx[i * 2 + 1] = (int64_t)check_rng_uniform(&r, -D2, D2);
    }
    for (int i = 0; i < B * TT * D3; i++)
        y[i] = NAN;
    int64_t sd[4] = {B, D1, D2, D3}, si[3] = {B, TT, 2}, so[3] = {B, TT, D3};
    cairn_attr_t bd = cairn_attr_int("batch_dims", 1);
    cairn_tensor_t in[2] = {T(CAIRN_F64, 4, sd, data), T(CAIRN_I64, 3, si, idx)};
    cairn_tensor_t o = T(CAIRN_F64, 3, so, y);
    CHECK_OK(run1("GatherND", &bd, 1, in, 2, 0, &o, NULL, 0));
    int bad = 0;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < TT; t++) {
            int64_t i1 = idx[(b * TT + t) * 2], i2 = idx[(b * TT + t) * 2 + 1];
            i1 += i1 < 0 ? D1 : 0, i2 += i2 < 0 ? D2 : 0;
            for (int e = 0; e < D3; e++)
                bad += y[(b * TT + t) * D3 + e] != data[((b * D1 + i1) * D2 + i2) * D3 + e];
        }
    CHECK_MSG(bad == 0, "%d GatherND values differ", bad);

    /* ScatterElements add along axis 1 with duplicates, vs a direct loop */
    enum { R = 4, C = 7, UC = 5 };
    float d[R * C], u[R * UC], ys[R * C];
    int32_t ix[R * UC];
    check_fill_f32(&r, d, R * C, -1, 1);
    check_fill_f32(&r, u, R * UC, -1, 1);
    for (int i = 0; i < R * UC; i++)
        ix[i] = (int32_t)check_rng_uniform(&r, -C, C);
    double want[R * C];
    for (int i = 0; i < R * C; i++)
        want[i] = d[i], ys[i] = NAN;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < UC; j++) {
            int c = ix[i * UC + j] < 0 ? ix[i * UC + j] + C : ix[i * UC + j];
            want[i * C + c] += u[i * UC + j];
        }
    int64_t sdd[2] = {R, C}, su[2] = {R, UC};
    cairn_attr_t at[2] = {cairn_attr_int("axis", 1), cairn_attr_string("reduction", "add")};
    cairn_tensor_t in2[3] = {T(CAIRN_F32, 2, sdd, d), T(CAIRN_I32, 2, su, ix),
                             T(CAIRN_F32, 2, su, u)};
    cairn_tensor_t o2 = T(CAIRN_F32, 2, sdd, ys);
    CHECK_OK(run1("ScatterElements", at, 2, in2, 3, 0, &o2, NULL, 0));
    check_close_f32(ys, want, R * C, 1e-6, 1e-6, "ScatterElements add");

    /* ScatterND on rows of a 2-D tensor: indices (3, 1), updates (3, C) */
    int64_t rows[3] = {2, 0, -1}, sr[2] = {3, 1}, sur[2] = {3, C};
    float ur[3 * C], yr[R * C];
    check_fill_f32(&r, ur, 3 * C, -1, 1);
    for (int i = 0; i < R * C; i++)
        want[i] = d[i], yr[i] = NAN;
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < C; j++)
            want[(rows[k] < 0 ? rows[k] + R : rows[k]) * C + j] = ur[k * C + j];
    cairn_tensor_t in3[3] = {T(CAIRN_F32, 2, sdd, d), T(CAIRN_I64, 2, sr, rows),
                             T(CAIRN_F32, 2, sur, ur)};
    cairn_tensor_t o3 = T(CAIRN_F32, 2, sdd, yr);
    CHECK_OK(run1("ScatterND", NULL, 0, in3, 3, 0x2, &o3, NULL, 0));
    check_close_f32(yr, want, R * C, 0, 0, "ScatterND rows");

    /* Einsum: a permuting contraction "kij,jl->lik" vs a direct loop */
    enum { KK = 2, I = 3, J = 4, L = 5 };
    float a[KK * I * J], bm[J * L], ye[L * I * KK];
    check_fill_f32(&r, a, KK * I * J, -1, 1);
    check_fill_f32(&r, bm, J * L, -1, 1);
    double we[L * I * KK];
    for (int l = 0; l < L; l++)
        for (int i = 0; i < I; i++)
            for (int k = 0; k < KK; k++) {
                double acc = 0;
                for (int j = 0; j < J; j++)
                    acc += (double)a[(k * I + i) * J + j] * bm[j * L + l];
                we[(l * I + i) * KK + k] = acc;
                ye[(l * I + i) * KK + k] = NAN;
            }
    int64_t sa[3] = {KK, I, J}, sb[2] = {J, L}, se[3] = {L, I, KK};
    cairn_attr_t eq = cairn_attr_string("equation", "kij,jl->lik");
    cairn_tensor_t in4[2] = {T(CAIRN_F32, 3, sa, a), T(CAIRN_F32, 2, sb, bm)};
    cairn_tensor_t o4 = T(CAIRN_F32, 3, se, ye);
    CHECK_OK(run1("Einsum", &eq, 1, in4, 2, 0, &o4, NULL, 0));
    check_close_f32(ye, we, L * I * KK, 1e-6, 1e-5, "Einsum kij,jl->lik");
}

static void test_symbolic_and_refusal(void)
{
    /* a symbolic batch through QuantizeLinear -> DequantizeLinear */
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dims[2] = {0, 3};
    const char *names[2] = {"n", NULL};
    cairn_value_id x, sc, q, dq;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dims, names, &x));
    float s = 0.5f;
    cairn_tensor_t st = T(CAIRN_F32, 0, S0, &s);
    CHECK_OK(cairn_graph_add_constant(g, "s", &st, &sc));
    cairn_value_id qin[2] = {x, sc};
    CHECK_OK(cairn_graph_add_node(g, "QuantizeLinear", "q", qin, 2, NULL, 0, &q, 1, NULL));
    cairn_value_id din[2] = {q, sc};
    CHECK_OK(cairn_graph_add_node(g, "DequantizeLinear", "dq", din, 2, NULL, 0, &dq, 1, NULL));
    CHECK_OK(cairn_graph_mark_output(g, dq));
    cairn_session_t *ss;
    CHECK_OK(cairn_session_create(g, NULL, &ss));
    cairn_graph_destroy(g);
    for (int n = 1; n <= 3; n += 2) {
        float xv[9] = {0.2f, 0.3f, 1.1f, -1, 300, 7.76f, 0.74f, 0.76f, 2}, yv[9];
        int64_t sx[2] = {n, 3};
        cairn_tensor_t ti = T(CAIRN_F32, 2, sx, xv), to = T(CAIRN_F32, 2, sx, yv);
        CHECK_OK(cairn_session_run(ss, &ti, 1, &to, 1));
        /* 0.2/0.5 = 0.4 -> 0; 0.3/.5 = .6 -> 1; 1.1 -> 2; -1 -> -2 -> 0 (u8) */
        CHECK(yv[0] == 0 && yv[1] == 0.5f && yv[2] == 1.0f);
        if (n == 3)
            CHECK(yv[3] == 0 && yv[4] == 127.5f && yv[5] == 8 && yv[6] == 0.5f && yv[7] == 1.0f);
    }
    cairn_session_destroy(ss);

    /* NonMaxSuppression whose boxes are too large an input to specialise
     * the plan on: refused with UNSUPPORTED, never a wrong answer */
    enum { NB = 1100 };
    static float boxes[NB * 4], scores[NB];
    for (int i = 0; i < NB; i++) {
        boxes[i * 4] = (float)i, boxes[i * 4 + 1] = 0, boxes[i * 4 + 2] = (float)i + 1;
        boxes[i * 4 + 3] = 1, scores[i] = (float)i / NB;
    }
    int64_t sb[3] = {1, NB, 4}, ssc[3] = {1, 1, NB}, mo = 5;
    cairn_tensor_t in[3] = {T(CAIRN_F32, 3, sb, boxes), T(CAIRN_F32, 3, ssc, scores),
                            T(CAIRN_I64, 0, S0, &mo)};
    cairn_tensor_t o;
    memset(&o, 0, sizeof o);
    int64_t sel[64];
    CHECK_FAILS(run1("NonMaxSuppression", NULL, 0, in, 3, 0x4, &o, sel, sizeof sel),
                CAIRN_ERR_UNSUPPORTED, "input");
    /* the same as constants: boxes do not overlap, so the 5 best win */
    memset(&o, 0, sizeof o);
    CHECK_OK(run1("NonMaxSuppression", NULL, 0, in, 3, 0x7, &o, sel, sizeof sel));
    CHECK(o.shape[0] == 5 && sel[2] == NB - 1 && sel[14] == NB - 5);
}

int main(void)
{
    test_quantize_literal();
    test_quantize_random();
    test_dequantize_literal();
    test_dynamic_quantize();
    test_quantize_errors();
    test_matmul_integer();
    test_qlinear_matmul();
    test_conv_integer();
    test_gather_nd();
    test_scatter();
    test_einsum();
    test_bitshift();
    test_nms();
    test_det();
    test_index_random();
    test_symbolic_and_refusal();
    return check_finish("test_quant");
}
