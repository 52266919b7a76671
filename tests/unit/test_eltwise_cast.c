/* Cast through the public API: every (source, target) pair, float to int
 * truncation/saturation/NaN, round-to-nearest-even into f16/bf16 (with no
 * double rounding from f64 or i64), exhaustive f16/bf16 round trips, and
 * bad `to` values. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers (test-local, independent of cairn's converters) ---- */

#include "eltwise_test_util.h"
}


static cairn_status_t cast(cairn_tensor_t x, cairn_dtype_t to, cairn_tensor_t *out)
{
    cairn_attr_t a = cairn_attr_int("to", to);
    return run_node("Cast", &x, 1, &a, 1, out);
}

static void test_float_to_int(void)
{
    float x[8] = {1.9f, -1.9f, 0.5f, -0.5f, NAN, 1e10f, -1e10f, INFINITY};
    int32_t o[8];
    cairn_tensor_t out = tens(CAIRN_I32, 1, SHAPE(8), o);
    CHECK_OK(cast(tens(CAIRN_F32, 1, SHAPE(8), x), CAIRN_I32, &out));
    CHECK(o[0] == 1 && o[1] == -1 && o[2] == 0 && o[3] == 0);
    CHECK(o[4] == 0 && o[5] == INT32_MAX && o[6] == INT32_MIN && o[7] == INT32_MAX);
    float xu[6] = {-1, 255.9f, 256, 3.7f, -0.9f, -INFINITY};
    uint8_t ou[6];
    cairn_tensor_t outu = tens(CAIRN_U8, 1, SHAPE(6), ou);
    CHECK_OK(cast(tens(CAIRN_F32, 1, SHAPE(6), xu), CAIRN_U8, &outu));
    CHECK(ou[0] == 0 && ou[1] == 255 && ou[2] == 255 && ou[3] == 3 && ou[4] == 0 && ou[5] == 0);
    double xl[5] = {9.3e18, -9.3e18, -9223372036854775808.0, 123.9, 9223372036854774784.0};
    int64_t ol[5];
    cairn_tensor_t outl = tens(CAIRN_I64, 1, SHAPE(5), ol);
    CHECK_OK(cast(tens(CAIRN_F64, 1, SHAPE(5), xl), CAIRN_I64, &outl));
    CHECK(ol[0] == INT64_MAX && ol[1] == INT64_MIN && ol[2] == INT64_MIN && ol[3] == 123 &&
          ol[4] == 9223372036854774784LL);
    float xs[4] = {127.9f, -128.9f, -129, 200};
    int8_t os[4];
    cairn_tensor_t outs = tens(CAIRN_I8, 1, SHAPE(4), os);
    CHECK_OK(cast(tens(CAIRN_F32, 1, SHAPE(4), xs), CAIRN_I8, &outs));
    CHECK(os[0] == 127 && os[1] == -128 && os[2] == -128 && os[3] == 127);
    uint16_t xh[3] = {enc_f16(-300.5), 0x7e00 /* NaN */, 0x7c00 /* inf */};
    int16_t oh[3];
    cairn_tensor_t outh = tens(CAIRN_I16, 1, SHAPE(3), oh);
    CHECK_OK(cast(tens(CAIRN_F16, 1, SHAPE(3), xh), CAIRN_I16, &outh));
    CHECK(oh[0] == -300 && oh[1] == 0 && oh[2] == INT16_MAX);
    /* to bool: x != 0, so NaN is true and -0 false */
    float xb[4] = {0, -0.0f, 0.1f, NAN};
    uint8_t ob[4];
    cairn_tensor_t outb = tens(CAIRN_BOOL, 1, SHAPE(4), ob);
    CHECK_OK(cast(tens(CAIRN_F32, 1, SHAPE(4), xb), CAIRN_BOOL, &outb));
    CHECK(ob[0] == 0 && ob[1] == 0 && ob[2] == 1 && ob[3] == 1);
    /* int -> narrower int wraps */
    int32_t xi[3] = {300, -129, 65535};
    int8_t oi[3];
    cairn_tensor_t outi = tens(CAIRN_I8, 1, SHAPE(3), oi);
    CHECK_OK(cast(tens(CAIRN_I32, 1, SHAPE(3), xi), CAIRN_I8, &outi));
    CHECK(oi[0] == 44 && oi[1] == 127 && oi[2] == -1);
}

static void test_half_rounding(void)
{
    /* f32 -> f16, ties to even */
    float x[9] = {1 + 0x1p-11f, 1 + 3 * 0x1p-11f, 65519, 65520, NAN, 0x1p-25f, 3 * 0x1p-25f,
                  -(1 + 0x1p-11f + 0x1p-20f), 0x1p-24f};
    uint16_t o[9];
    cairn_tensor_t out = tens(CAIRN_F16, 1, SHAPE(9), o);
    CHECK_OK(cast(tens(CAIRN_F32, 1, SHAPE(9), x), CAIRN_F16, &out));
    CHECK(dec_f16(o[0]) == 1.0);
    CHECK(dec_f16(o[1]) == 1 + 0x1p-9);
    CHECK(dec_f16(o[2]) == 65504);
    CHECK(isinf(dec_f16(o[3])));
    CHECK(isnan(dec_f16(o[4])));
    CHECK(o[5] == 0);                     /* half the smallest subnormal: ties to 0 */
    CHECK(dec_f16(o[6]) == 0x1p-23);      /* 1.5 subnormal units: ties to 2 */
    CHECK(dec_f16(o[7]) == -(1 + 0x1p-10)); /* above the tie: rounds away */
    CHECK(dec_f16(o[8]) == 0x1p-24);
    /* f32 -> bf16 */
    float xb[4] = {1 + 0x1p-8f, 1 + 3 * 0x1p-8f, NAN, -INFINITY};
    uint16_t ob[4];
    cairn_tensor_t outb = tens(CAIRN_BF16, 1, SHAPE(4), ob);
    CHECK_OK(cast(tens(CAIRN_F32, 1, SHAPE(4), xb), CAIRN_BF16, &outb));
    CHECK(dec_bf16(ob[0]) == 1 && dec_bf16(ob[1]) == 1 + 0x1p-6 && isnan(dec_bf16(ob[2])) &&
          dec_bf16(ob[3]) == -INFINITY);
    /* f64 / i64 -> f16/bf16 must not round twice (through f32 the sticky
     * bit below f32 precision would be lost and the tie go to even) */
    double xd[2] = {1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-8 + 0x1p-40};
    uint16_t od;
    cairn_tensor_t outd = tens(CAIRN_F16, 0, SHAPE(0), &od);
    CHECK_OK(cast(tens(CAIRN_F64, 0, SHAPE(0), &xd[0]), CAIRN_F16, &outd));
    CHECK(dec_f16(od) == 1 + 0x1p-10);
    cairn_tensor_t outdb = tens(CAIRN_BF16, 0, SHAPE(0), &od);
    CHECK_OK(cast(tens(CAIRN_F64, 0, SHAPE(0), &xd[1]), CAIRN_BF16, &outdb));
    CHECK(dec_bf16(od) == 1 + 0x1p-7);
    int64_t big = (1LL << 31) + (1LL << 23) + 1;
    CHECK_OK(cast(tens(CAIRN_I64, 0, SHAPE(0), &big), CAIRN_BF16, &outdb));
    CHECK(dec_bf16(od) == 0x1p31 + 0x1p24);
    int32_t i16 = 70000;
    CHECK_OK(cast(tens(CAIRN_I32, 0, SHAPE(0), &i16), CAIRN_F16, &outd));
    CHECK(isinf(dec_f16(od)));
}

/* Every f16 and bf16 value through f32 and f64 and back is unchanged
 * (NaN stays NaN), and decodes to what this test's own decoder says. */
static void test_roundtrips(void)
{
    enum { N = 65536 };
    uint16_t *h = malloc(N * 2), *back = malloc(N * 2);
    float *f = malloc(N * 4);
    double *d = malloc(N * 8);
    for (int i = 0; i < N; i++)
        h[i] = (uint16_t)i;
    for (int bf = 0; bf < 2; bf++) {
        cairn_dtype_t ht = bf ? CAIRN_BF16 : CAIRN_F16;
        cairn_tensor_t th = tens(ht, 1, SHAPE(N), h), tf = tens(CAIRN_F32, 1, SHAPE(N), f);
        cairn_tensor_t td = tens(CAIRN_F64, 1, SHAPE(N), d), tb = tens(ht, 1, SHAPE(N), back);
        CHECK_OK(cast(th, CAIRN_F32, &tf));
        int ok = 1, okb = 1;
        for (int i = 0; i < N; i++) {
            double want = bf ? dec_bf16(h[i]) : dec_f16(h[i]);
            ok &= isnan(want) ? isnan(f[i]) : (double)f[i] == want && !signbit(f[i]) == !signbit(want);
        }
        CHECK_MSG(ok, "%s -> f32 decodes", cairn_dtype_name(ht));
        CHECK_OK(cast(tf, ht, &tb));
        for (int i = 0; i < N; i++) {
            double v = bf ? dec_bf16(h[i]) : dec_f16(h[i]);
            okb &= isnan(v) ? isnan(bf ? dec_bf16(back[i]) : dec_f16(back[i])) : back[i] == h[i];
        }
        CHECK_MSG(okb, "%s -> f32 -> %s", cairn_dtype_name(ht), cairn_dtype_name(ht));
        CHECK_OK(cast(th, CAIRN_F64, &td));
        CHECK_OK(cast(td, ht, &tb));
        okb = 1;
        for (int i = 0; i < N; i++) {
            double v = bf ? dec_bf16(h[i]) : dec_f16(h[i]);
            okb &= isnan(v) ? isnan(bf ? dec_bf16(back[i]) : dec_f16(back[i])) : back[i] == h[i];
        }
        CHECK_MSG(okb, "%s -> f64 -> %s", cairn_dtype_name(ht), cairn_dtype_name(ht));
    }
    /* every i8 through f16 and back; every u8 through bf16 and back */
    int8_t i8[256], i8b[256];
    uint8_t u8[256], u8b[256];
    uint16_t mid[256];
    for (int i = 0; i < 256; i++) {
        i8[i] = (int8_t)(i - 128);
        u8[i] = (uint8_t)i;
    }
    cairn_tensor_t tm = tens(CAIRN_F16, 1, SHAPE(256), mid);
    CHECK_OK(cast(tens(CAIRN_I8, 1, SHAPE(256), i8), CAIRN_F16, &tm));
    cairn_tensor_t ti = tens(CAIRN_I8, 1, SHAPE(256), i8b);
    CHECK_OK(cast(tm, CAIRN_I8, &ti));
    CHECK(memcmp(i8, i8b, 256) == 0);
    cairn_tensor_t tmb = tens(CAIRN_BF16, 1, SHAPE(256), mid);
    CHECK_OK(cast(tens(CAIRN_U8, 1, SHAPE(256), u8), CAIRN_BF16, &tmb));
    cairn_tensor_t tu = tens(CAIRN_U8, 1, SHAPE(256), u8b);
    CHECK_OK(cast(tmb, CAIRN_U8, &tu));
    CHECK(memcmp(u8, u8b, 256) == 0);
    free(h), free(back), free(f), free(d);
}

/* Every (source, target) pair on values exact in every type. */
static void test_all_pairs(void)
{
    static const cairn_dtype_t types[] = {CAIRN_F32, CAIRN_F64, CAIRN_F16, CAIRN_BF16, CAIRN_I8,
                                          CAIRN_I16, CAIRN_I32, CAIRN_I64, CAIRN_U8, CAIRN_BOOL};
    const double vals[6] = {0, 1, 3, 100, -5, -1};
    for (int s = 0; s < 10; s++) {
        cairn_dtype_t st = types[s];
        int s_unsigned = st == CAIRN_U8 || st == CAIRN_BOOL;
        int s_float = s < 4;
        int nv = s_unsigned ? 4 : 6;
        uint64_t xb[6];
        double src[6];
        for (int i = 0; i < nv; i++) {
            put(st, xb, i, vals[i]);
            src[i] = get(st, xb, i); /* bool: 0/1 */
        }
        for (int d = 0; d < 10; d++) {
            cairn_dtype_t dt = types[d];
            uint64_t ob[6];
            double want[6];
            for (int i = 0; i < nv; i++) {
                double v = src[i];
                if (dt == CAIRN_BOOL)
                    want[i] = v != 0;
                else if (dt == CAIRN_U8 && v < 0)
                    want[i] = s_float ? 0 : 256 + v; /* floats saturate, ints wrap */
                else
                    want[i] = v;
            }
            cairn_tensor_t out = tens(dt, 1, SHAPE(nv), ob);
            CHECK_OK(cast(tens(st, 1, SHAPE(nv), xb), dt, &out));
            int ok = 1;
            for (int i = 0; i < nv; i++)
                ok &= get(dt, ob, i) == want[i];
            CHECK_MSG(ok, "Cast %s -> %s", cairn_dtype_name(st), cairn_dtype_name(dt));
        }
    }
}

static void test_errors(void)
{
    float x[2] = {1, 2}, o[2];
    cairn_tensor_t out = tens(CAIRN_F32, 1, SHAPE(2), o);
    cairn_tensor_t in = tens(CAIRN_F32, 1, SHAPE(2), x);
    CHECK_FAILS(cast(in, (cairn_dtype_t)8, &out), CAIRN_ERR_UNSUPPORTED, "8");
    CHECK_FAILS(cast(in, (cairn_dtype_t)99, &out), CAIRN_ERR_INVALID_ARGUMENT, "99");
    CHECK_FAILS(cast(in, (cairn_dtype_t)0, &out), CAIRN_ERR_INVALID_ARGUMENT, "0");
    CHECK_FAILS(run_node("Cast", &in, 1, NULL, 0, &out), CAIRN_ERR_INVALID_ARGUMENT, "to");
    /* saturate is accepted and ignored (no float8 types in cairn) */
    cairn_attr_t a[2] = {cairn_attr_int("to", CAIRN_F64), cairn_attr_int("saturate", 0)};
    double od[2];
    cairn_tensor_t outd = tens(CAIRN_F64, 1, SHAPE(2), od);
    CHECK_OK(run_node("Cast", &in, 1, a, 2, &outd));
    CHECK(od[0] == 1 && od[1] == 2);
}

/* int32 -> f32 on two threads (the op splits it over the pool past 64K
 * elements): every value rounded once, as (float) of the int */
static void test_i32_to_f32_threads(void)
{
    enum { N = 100003 };
    int32_t *x = malloc(sizeof(int32_t) * N);
    float *y = malloc(sizeof(float) * N);
    uint64_t r = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        x[i] = i % 5 == 0 ? (int32_t)(16777217 + i) : (int32_t)(uint32_t)r; /* 2^24 + odd: ties */
    }
    cairn_graph_t *g = NULL;
    cairn_session_t *ss = NULL;
    cairn_value_id xi, yi;
    int64_t dims[1] = {N};
    cairn_attr_t a = cairn_attr_int("to", CAIRN_F32);
    CHECK_OK(cairn_graph_create(&g));
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_I32, 1, dims, NULL, &xi));
    CHECK_OK(cairn_graph_add_node(g, "Cast", "c", &xi, 1, &a, 1, &yi, 1, NULL));
    CHECK_OK(cairn_graph_mark_output(g, yi));
    cairn_session_options_t o = cairn_session_options_default();
    o.threads = 2;
    CHECK_OK(cairn_session_create(g, &o, &ss));
    cairn_tensor_t in = tens(CAIRN_I32, 1, SHAPE(N), x), out = tens(CAIRN_F32, 1, SHAPE(N), y);
    memset(y, 0xff, sizeof(float) * N);
    CHECK_OK(cairn_session_run(ss, &in, 1, &out, 1));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        const float want = (float)x[i];
        bad += memcmp(&y[i], &want, sizeof want) != 0;
    }
    CHECK_MSG(bad == 0, "%d of %d int32 -> f32 values differ on 2 threads", bad, N);
    cairn_session_destroy(ss);
    cairn_graph_destroy(g);
    free(x), free(y);
}

int main(void)
{
    test_float_to_int();
    test_half_rounding();
    test_roundtrips();
    test_all_pairs();
    test_errors();
    test_i32_to_f32_threads();
    return check_finish("test_eltwise_cast");
}
