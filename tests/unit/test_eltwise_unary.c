/* Unary eltwise ops through the public API: literal cases, random inputs
 * against libm in double (formulas written out here), every float dtype
 * (f16/bf16 within their rounding), the integer ops, and error paths. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers (test-local, independent of cairn's converters) ---- */

#include "eltwise_test_util.h"
}


/* |got - want| <= atol + rtol |want| for a typed output, NaN == NaN. */
static int close_typed(cairn_dtype_t dt, const void *got, const double *want, int64_t n,
                       double atol, double rtol, const char *what)
{
    for (int64_t i = 0; i < n; i++) {
        double g = get(dt, got, i), w = want[i];
        if (isnan(w) && isnan(g))
            continue;
        if (isinf(w) && g == w)
            continue;
        if (!(fabs(g - w) <= atol + rtol * fabs(w))) {
            fprintf(stderr, "%s (%s): element %lld: got %.9g want %.9g\n", what,
                    cairn_dtype_name(dt), (long long)i, g, w);
            return 0;
        }
    }
    return 1;
}

static cairn_status_t run1(const char *op, cairn_tensor_t x, const cairn_attr_t *attrs, int n_attrs,
                           cairn_tensor_t *out)
{
    return run_node(op, &x, 1, attrs, n_attrs, out);
}

#define F32(n, arr) tens(CAIRN_F32, 1, SHAPE(n), arr)

/* ---- literal cases ---- */

static void test_literals(void)
{
    float o[8];
    uint8_t b[8];
    cairn_tensor_t out3 = F32(3, o), out2 = F32(2, o), out1 = F32(1, o), out4 = F32(4, o);
    CHECK_OK(run1("Relu", F32(3, ((float[]){-1, 0, 2})), NULL, 0, &out3));
    CHECK(o[0] == 0 && o[1] == 0 && o[2] == 2);
    cairn_attr_t a01 = cairn_attr_float("alpha", 0.1f);
    CHECK_OK(run1("LeakyRelu", F32(2, ((float[]){-2, 3})), &a01, 1, &out2));
    CHECK(o[0] == -0.2f && o[1] == 3);
    CHECK_OK(run1("LeakyRelu", F32(2, ((float[]){-2, 3})), NULL, 0, &out2));
    CHECK(o[0] == -0.02f && o[1] == 3); /* default alpha 0.01 */
    CHECK_OK(run1("Sigmoid", F32(1, ((float[]){0})), NULL, 0, &out1));
    CHECK(o[0] == 0.5f);
    CHECK_OK(run1("Tanh", F32(1, ((float[]){0})), NULL, 0, &out1));
    CHECK(o[0] == 0);
    CHECK_OK(run1("Exp", F32(2, ((float[]){0, 1})), NULL, 0, &out2));
    CHECK(o[0] == 1 && fabs(o[1] - 2.718281828) < 1e-6);
    CHECK_OK(run1("Log", F32(2, ((float[]){1, 0})), NULL, 0, &out2));
    CHECK(o[0] == 0 && isinf(o[1]) && o[1] < 0);
    CHECK_OK(run1("Sqrt", F32(3, ((float[]){4, 9, -1})), NULL, 0, &out3));
    CHECK(o[0] == 2 && o[1] == 3 && isnan(o[2]));
    CHECK_OK(run1("Reciprocal", F32(2, ((float[]){4, -0.5f})), NULL, 0, &out2));
    CHECK(o[0] == 0.25f && o[1] == -2);
    CHECK_OK(run1("Neg", F32(2, ((float[]){1, -2})), NULL, 0, &out2));
    CHECK(o[0] == -1 && o[1] == 2);
    CHECK_OK(run1("Abs", F32(2, ((float[]){-3, 2})), NULL, 0, &out2));
    CHECK(o[0] == 3 && o[1] == 2);
    CHECK_OK(run1("Erf", F32(2, ((float[]){0, 10})), NULL, 0, &out2));
    CHECK(o[0] == 0 && o[1] == 1);
    CHECK_OK(run1("Gelu", F32(3, ((float[]){0, 10, -10})), NULL, 0, &out3));
    CHECK(o[0] == 0 && o[1] == 10 && fabs(o[2]) < 1e-6);
    CHECK_OK(run1("Softplus", F32(3, ((float[]){0, 100, -100})), NULL, 0, &out3));
    CHECK(fabs(o[0] - 0.693147181) < 1e-7 && o[1] == 100 && o[2] >= 0 && o[2] < 1e-40);
    CHECK_OK(run1("Softsign", F32(2, ((float[]){1, -3})), NULL, 0, &out2));
    CHECK(o[0] == 0.5f && o[1] == -0.75f);
    cairn_attr_t a2 = cairn_attr_float("alpha", 2.0f);
    CHECK_OK(run1("Elu", F32(3, ((float[]){0, 1, -100})), &a2, 1, &out3));
    CHECK(o[0] == 0 && o[1] == 1 && o[2] == -2);
    CHECK_OK(run1("Selu", F32(2, ((float[]){1, 0})), NULL, 0, &out2));
    CHECK(o[0] == 1.05070102214813232421875f && o[1] == 0);
    CHECK_OK(run1("HardSigmoid", F32(3, ((float[]){0, 10, -10})), NULL, 0, &out3));
    CHECK(o[0] == 0.5f && o[1] == 1 && o[2] == 0);
    CHECK_OK(run1("HardSwish", F32(4, ((float[]){-3, 0, 3, 1})), NULL, 0, &out4));
    CHECK(o[0] == 0 && o[1] == 0 && o[2] == 3 && fabs(o[3] - 2 / 3.0) < 1e-7);
    /* Swish: 0, 1 * sigmoid(1), x for large x, -0 (a tiny negative) for large -x */
    CHECK_OK(run1("Swish", F32(4, ((float[]){0, 1, 100, -100})), NULL, 0, &out4));
    CHECK(o[0] == 0 && fabs(o[1] - 0.731058579) < 1e-7 && o[2] == 100 && o[3] <= 0 &&
          o[3] > -1e-30);
    CHECK_OK(run1("Swish", F32(2, ((float[]){2, -2})), &a2, 1, &out2)); /* alpha 2 */
    CHECK(fabs(o[0] - 2 * 0.982013790) < 2e-7 && fabs(o[1] + 2 * 0.017986210) < 2e-8);
    CHECK_OK(run1("Floor", F32(2, ((float[]){-1.5f, 1.5f})), NULL, 0, &out2));
    CHECK(o[0] == -2 && o[1] == 1);
    CHECK_OK(run1("Ceil", F32(2, ((float[]){-1.5f, 1.5f})), NULL, 0, &out2));
    CHECK(o[0] == -1 && o[1] == 2);
    float r8[8];
    cairn_tensor_t out8 = F32(8, r8);
    CHECK_OK(run1("Round", F32(8, ((float[]){0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, -2.6f, 3.5f})),
                  NULL, 0, &out8));
    CHECK(r8[0] == 0 && r8[1] == 2 && r8[2] == 2 && r8[3] == 0 && r8[4] == -2 && r8[5] == 2 &&
          r8[6] == -3 && r8[7] == 4);
    CHECK_OK(run1("Sign", F32(3, ((float[]){-2, 0, 3})), NULL, 0, &out3));
    CHECK(o[0] == -1 && o[1] == 0 && o[2] == 1);
    CHECK_OK(run1("Sin", F32(1, ((float[]){0})), NULL, 0, &out1));
    CHECK(o[0] == 0);
    CHECK_OK(run1("Cos", F32(1, ((float[]){0})), NULL, 0, &out1));
    CHECK(o[0] == 1);
    CHECK_OK(run1("Acos", F32(1, ((float[]){1})), NULL, 0, &out1));
    CHECK(o[0] == 0);
    CHECK_OK(run1("Cosh", F32(1, ((float[]){0})), NULL, 0, &out1));
    CHECK(o[0] == 1);
    CHECK_OK(run1("Atanh", F32(1, ((float[]){1})), NULL, 0, &out1));
    CHECK(isinf(o[0]));
    /* IsNaN / IsInf -> bool */
    cairn_tensor_t ob4 = tens(CAIRN_BOOL, 1, SHAPE(4), b);
    float sp[4] = {NAN, INFINITY, -INFINITY, 1};
    CHECK_OK(run1("IsNaN", F32(4, sp), NULL, 0, &ob4));
    CHECK(b[0] == 1 && b[1] == 0 && b[2] == 0 && b[3] == 0);
    CHECK_OK(run1("IsInf", F32(4, sp), NULL, 0, &ob4));
    CHECK(b[0] == 0 && b[1] == 1 && b[2] == 1 && b[3] == 0);
    cairn_attr_t dn = cairn_attr_int("detect_negative", 0), dp = cairn_attr_int("detect_positive", 0);
    CHECK_OK(run1("IsInf", F32(4, sp), &dn, 1, &ob4));
    CHECK(b[0] == 0 && b[1] == 1 && b[2] == 0 && b[3] == 0);
    CHECK_OK(run1("IsInf", F32(4, sp), &dp, 1, &ob4));
    CHECK(b[0] == 0 && b[1] == 0 && b[2] == 1 && b[3] == 0);
    /* Not */
    uint8_t nb[3] = {0, 1, 0};
    cairn_tensor_t ob3 = tens(CAIRN_BOOL, 1, SHAPE(3), b);
    CHECK_OK(run1("Not", tens(CAIRN_BOOL, 1, SHAPE(3), nb), NULL, 0, &ob3));
    CHECK(b[0] == 1 && b[1] == 0 && b[2] == 1);
    /* NaN passes through Relu, Clip and Sign */
    CHECK_OK(run1("Relu", F32(1, ((float[]){NAN})), NULL, 0, &out1));
    CHECK(isnan(o[0]));
    /* empty input */
    float dummy = 0;
    cairn_tensor_t empty = tens(CAIRN_F32, 2, SHAPE(0, 3), &dummy);
    CHECK_OK(run1("Exp", empty, NULL, 0, &empty));
}

static void test_clip(void)
{
    float x[5] = {-3, -1, 0, 2, NAN}, o[5], lo = -1.5f, hi = 1;
    cairn_tensor_t out = F32(5, o);
    cairn_tensor_t in[3] = {F32(5, x), tens(CAIRN_F32, 0, SHAPE(0), &lo), tens(CAIRN_F32, 0, SHAPE(0), &hi)};
    CHECK_OK(run_node("Clip", in, 3, NULL, 0, &out));
    CHECK(o[0] == -1.5f && o[1] == -1 && o[2] == 0 && o[3] == 1 && isnan(o[4]));
    /* min omitted */
    in[1] = tens(CAIRN_DTYPE_UNDEFINED, 0, SHAPE(0), NULL);
    CHECK_OK(run_node("Clip", in, 3, NULL, 0, &out));
    CHECK(o[0] == -3 && o[1] == -1 && o[2] == 0 && o[3] == 1);
    /* no bounds: identity */
    CHECK_OK(run_node("Clip", in, 1, NULL, 0, &out));
    CHECK(o[0] == -3 && o[3] == 2);
    /* min > max: everything is max (ONNX) */
    float lo2 = 5, hi2 = 2;
    cairn_tensor_t in2[3] = {F32(5, x), tens(CAIRN_F32, 1, SHAPE(1), &lo2), tens(CAIRN_F32, 0, SHAPE(0), &hi2)};
    CHECK_OK(run_node("Clip", in2, 3, NULL, 0, &out));
    CHECK(o[0] == 2 && o[1] == 2 && o[2] == 2 && o[3] == 2);
    /* ints */
    int64_t xi[4] = {INT64_MIN, -5, 5, INT64_MAX}, loi = -4, hii = 100, oi[4];
    cairn_tensor_t iin[3] = {tens(CAIRN_I64, 1, SHAPE(4), xi), tens(CAIRN_I64, 0, SHAPE(0), &loi),
                             tens(CAIRN_I64, 0, SHAPE(0), &hii)};
    cairn_tensor_t iout = tens(CAIRN_I64, 1, SHAPE(4), oi);
    CHECK_OK(run_node("Clip", iin, 3, NULL, 0, &iout));
    CHECK(oi[0] == -4 && oi[1] == -4 && oi[2] == 5 && oi[3] == 100);
    uint8_t xu[3] = {0, 100, 255}, lou = 10, ou[3];
    cairn_tensor_t uin[2] = {tens(CAIRN_U8, 1, SHAPE(3), xu), tens(CAIRN_U8, 0, SHAPE(0), &lou)};
    cairn_tensor_t uout = tens(CAIRN_U8, 1, SHAPE(3), ou);
    CHECK_OK(run_node("Clip", uin, 2, NULL, 0, &uout));
    CHECK(ou[0] == 10 && ou[1] == 100 && ou[2] == 255);
    /* f16 */
    uint16_t xh[3] = {enc_f16(-2), enc_f16(0.5), enc_f16(3)}, loh = enc_f16(-1), hih = enc_f16(1), oh[3];
    cairn_tensor_t hin[3] = {tens(CAIRN_F16, 1, SHAPE(3), xh), tens(CAIRN_F16, 0, SHAPE(0), &loh),
                             tens(CAIRN_F16, 0, SHAPE(0), &hih)};
    cairn_tensor_t hout = tens(CAIRN_F16, 1, SHAPE(3), oh);
    CHECK_OK(run_node("Clip", hin, 3, NULL, 0, &hout));
    CHECK(dec_f16(oh[0]) == -1 && dec_f16(oh[1]) == 0.5 && dec_f16(oh[2]) == 1);
    /* errors: non-scalar bound, wrong bound type */
    float two[2] = {0, 1};
    cairn_tensor_t bad[2] = {F32(5, x), F32(2, two)};
    CHECK_FAILS(run_node("Clip", bad, 2, NULL, 0, &out), CAIRN_ERR_SHAPE, "scalar");
    int32_t ilo = 0;
    cairn_tensor_t bad2[2] = {F32(5, x), tens(CAIRN_I32, 0, SHAPE(0), &ilo)};
    CHECK_FAILS(run_node("Clip", bad2, 2, NULL, 0, &out), CAIRN_ERR_DTYPE, "i32");
}

static void test_int_ops(void)
{
    static const cairn_dtype_t types[] = {CAIRN_I8, CAIRN_I16, CAIRN_I32, CAIRN_I64};
    const double x[5] = {-7, -1, 0, 1, 100};
    for (int t = 0; t < 4; t++) {
        cairn_dtype_t dt = types[t];
        uint64_t xb[5], ob[5];
        for (int i = 0; i < 5; i++)
            put(dt, xb, i, x[i]);
        cairn_tensor_t in = tens(dt, 1, SHAPE(5), xb), out = tens(dt, 1, SHAPE(5), ob);
        const double relu[5] = {0, 0, 0, 1, 100}, neg[5] = {7, 1, 0, -1, -100},
                     ab[5] = {7, 1, 0, 1, 100}, sg[5] = {-1, -1, 0, 1, 1};
        CHECK_OK(run1("Relu", in, NULL, 0, &out));
        CHECK(close_typed(dt, ob, relu, 5, 0, 0, "Relu"));
        CHECK_OK(run1("Neg", in, NULL, 0, &out));
        CHECK(close_typed(dt, ob, neg, 5, 0, 0, "Neg"));
        CHECK_OK(run1("Abs", in, NULL, 0, &out));
        CHECK(close_typed(dt, ob, ab, 5, 0, 0, "Abs"));
        CHECK_OK(run1("Sign", in, NULL, 0, &out));
        CHECK(close_typed(dt, ob, sg, 5, 0, 0, "Sign"));
    }
    /* negating the minimum wraps (no undefined behaviour) */
    int8_t m[2] = {-128, 127}, mo[2];
    cairn_tensor_t mout = tens(CAIRN_I8, 1, SHAPE(2), mo);
    CHECK_OK(run1("Neg", tens(CAIRN_I8, 1, SHAPE(2), m), NULL, 0, &mout));
    CHECK(mo[0] == -128 && mo[1] == -127);
    CHECK_OK(run1("Abs", tens(CAIRN_I8, 1, SHAPE(2), m), NULL, 0, &mout));
    CHECK(mo[0] == -128 && mo[1] == 127);
    int32_t mi = INT32_MIN, moi;
    cairn_tensor_t oi = tens(CAIRN_I32, 0, SHAPE(0), &moi);
    CHECK_OK(run1("Neg", tens(CAIRN_I32, 0, SHAPE(0), &mi), NULL, 0, &oi));
    CHECK(moi == INT32_MIN);
    uint8_t u[3] = {0, 5, 255}, uo[3];
    cairn_tensor_t uout = tens(CAIRN_U8, 1, SHAPE(3), uo);
    CHECK_OK(run1("Abs", tens(CAIRN_U8, 1, SHAPE(3), u), NULL, 0, &uout));
    CHECK(uo[0] == 0 && uo[1] == 5 && uo[2] == 255);
    CHECK_OK(run1("Sign", tens(CAIRN_U8, 1, SHAPE(3), u), NULL, 0, &uout));
    CHECK(uo[0] == 0 && uo[1] == 1 && uo[2] == 1);
}

/* ---- random inputs against double references ---- */

static const double SELU_A = 1.67326319217681884765625, SELU_G = 1.05070102214813232421875;

static double r_relu(double x) { return x < 0 ? 0 : x; }
static double r_leaky(double x) { return x < 0 ? 0.2f * x : x; } /* alpha given as 0.2f */
static double r_sigmoid(double x) { return 1 / (1 + exp(-x)); }
static double r_recip(double x) { return 1 / x; }
static double r_neg(double x) { return -x; }
static double r_gelu(double x) { return 0.5 * x * (1 + erf(x / sqrt(2.0))); }
static double r_gelu_tanh(double x)
{
    return 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
}
static double r_softplus(double x) { return log(1 + exp(x)); }
static double r_softsign(double x) { return x / (1 + fabs(x)); }
static double r_elu(double x) { return x < 0 ? 0.7f * (exp(x) - 1) : x; } /* alpha 0.7f */
static double r_selu(double x) { return x > 0 ? SELU_G * x : SELU_G * (SELU_A * exp(x) - SELU_A); }
static double r_hsig(double x)
{
    double v = 0.3f * x + 0.4f; /* alpha 0.3f, beta 0.4f */
    return v < 0 ? 0 : v > 1 ? 1 : v;
}
static double r_hswish(double x)
{
    double v = x / 6 + 0.5;
    return x * (v < 0 ? 0 : v > 1 ? 1 : v);
}
static double r_swish(double x) { return x / (1 + exp(-x)); }
static double r_swish_half(double x) { return x / (1 + exp(-0.5 * x)); } /* alpha 0.5 */
static double r_round(double x)
{
    double f = floor(x), d = x - f;
    if (d > 0.5 || (d == 0.5 && fmod(f, 2) != 0))
        return f + 1;
    return f;
}
static double r_sign(double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }

typedef struct uop {
    const char *name;
    double (*ref)(double);
    double lo, hi;
    const char *attr_name; /* one float or string attribute, or NULL */
    float attr_f;
    const char *attr_s;
    const char *attr2_name;
    float attr2_f;
} uop_t;

static const uop_t uops[] = {
    {"Relu", r_relu, -3, 3, NULL, 0, NULL, NULL, 0},
    {"LeakyRelu", r_leaky, -3, 3, "alpha", 0.2f, NULL, NULL, 0},
    {"Sigmoid", r_sigmoid, -12, 12, NULL, 0, NULL, NULL, 0},
    {"Tanh", tanh, -5, 5, NULL, 0, NULL, NULL, 0},
    {"Exp", exp, -10, 10, NULL, 0, NULL, NULL, 0},
    {"Log", log, 0.01, 50, NULL, 0, NULL, NULL, 0},
    {"Sqrt", sqrt, 0.01, 50, NULL, 0, NULL, NULL, 0},
    {"Reciprocal", r_recip, 0.25, 8, NULL, 0, NULL, NULL, 0},
    {"Neg", r_neg, -3, 3, NULL, 0, NULL, NULL, 0},
    {"Abs", fabs, -3, 3, NULL, 0, NULL, NULL, 0},
    {"Erf", erf, -3, 3, NULL, 0, NULL, NULL, 0},
    {"Gelu", r_gelu, -5, 5, NULL, 0, NULL, NULL, 0},
    {"Gelu", r_gelu_tanh, -5, 5, "approximate", 0, "tanh", NULL, 0},
    {"Softplus", r_softplus, -15, 15, NULL, 0, NULL, NULL, 0},
    {"Softsign", r_softsign, -5, 5, NULL, 0, NULL, NULL, 0},
    {"Elu", r_elu, -4, 3, "alpha", 0.7f, NULL, NULL, 0},
    {"Selu", r_selu, -4, 3, NULL, 0, NULL, NULL, 0},
    {"HardSigmoid", r_hsig, -5, 5, "alpha", 0.3f, NULL, "beta", 0.4f},
    {"HardSwish", r_hswish, -5, 5, NULL, 0, NULL, NULL, 0},
    {"Swish", r_swish, -20, 20, NULL, 0, NULL, NULL, 0},          /* SiLU: the fast path */
    {"Swish", r_swish_half, -20, 20, "alpha", 0.5f, NULL, NULL, 0}, /* the reference */
    {"Floor", floor, -9, 9, NULL, 0, NULL, NULL, 0},
    {"Ceil", ceil, -9, 9, NULL, 0, NULL, NULL, 0},
    {"Round", r_round, -9, 9, NULL, 0, NULL, NULL, 0},
    {"Sign", r_sign, -2, 2, NULL, 0, NULL, NULL, 0},
    {"Sin", sin, -4, 4, NULL, 0, NULL, NULL, 0},
    {"Cos", cos, -4, 4, NULL, 0, NULL, NULL, 0},
    {"Tan", tan, -1.2, 1.2, NULL, 0, NULL, NULL, 0},
    {"Asin", asin, -0.99, 0.99, NULL, 0, NULL, NULL, 0},
    {"Acos", acos, -0.99, 0.99, NULL, 0, NULL, NULL, 0},
    {"Atan", atan, -5, 5, NULL, 0, NULL, NULL, 0},
    {"Sinh", sinh, -5, 5, NULL, 0, NULL, NULL, 0},
    {"Cosh", cosh, -5, 5, NULL, 0, NULL, NULL, 0},
    {"Asinh", asinh, -5, 5, NULL, 0, NULL, NULL, 0},
    {"Acosh", acosh, 1, 6, NULL, 0, NULL, NULL, 0},
    {"Atanh", atanh, -0.95, 0.95, NULL, 0, NULL, NULL, 0},
};

static void test_random(void)
{
    static const cairn_dtype_t types[] = {CAIRN_F32, CAIRN_F64, CAIRN_F16, CAIRN_BF16};
    /* f32 computes in float with float libm (~1-2 ulp, a few ulp for the
     * composite formulas); f64 in double; f16/bf16 compute in f32 and
     * round once, so their error is half an ulp of the type plus that. The
     * atol covers results that cancel to near zero (Gelu for x << 0). */
    static const double atol[4] = {2e-6, 1e-13, 1e-4, 1e-3};
    static const double rtol[4] = {1e-6, 1e-13, 1e-3, 8e-3};
    enum { N = 257 }; /* odd, not a multiple of any vector width */
    check_rng_t rng = {0xfeedbeef};
    for (size_t k = 0; k < sizeof uops / sizeof uops[0]; k++) {
        const uop_t *u = &uops[k];
        cairn_attr_t attrs[2];
        int na = 0;
        if (u->attr_name)
            attrs[na++] = u->attr_s ? cairn_attr_string(u->attr_name, u->attr_s)
                                    : cairn_attr_float(u->attr_name, u->attr_f);
        if (u->attr2_name)
            attrs[na++] = cairn_attr_float(u->attr2_name, u->attr2_f);
        for (int t = 0; t < 4; t++) {
            cairn_dtype_t dt = types[t];
            double xb[N], ob[N], want[N];
            for (int i = 0; i < N; i++) {
                double v = check_rng_uniform(&rng, u->lo, u->hi);
                if (i < 8) /* exact halves, for the rounding ops */
                    v = u->lo + 0.5 * i < u->hi ? floor(u->lo) + 0.5 * i : v;
                if (!strcmp(u->name, "Sign") && i == 9)
                    v = 0;
                put(dt, xb, i, v);
                want[i] = u->ref(get(dt, xb, i));
            }
            cairn_tensor_t out = tens(dt, 2, SHAPE(1, N), ob);
            CHECK_OK(run1(u->name, tens(dt, 2, SHAPE(1, N), xb), attrs, na, &out));
            char what[64];
            snprintf(what, sizeof what, "%s%s", u->name, u->attr_s ? "(tanh)" : "");
            CHECK(close_typed(dt, ob, want, N, atol[t], rtol[t], what));
        }
    }
}

/* ---- errors ---- */

static void test_errors(void)
{
    uint8_t bb[2] = {0, 1};
    float f[2] = {1, 2}, o[2];
    int32_t i[2] = {1, 2};
    cairn_tensor_t out = F32(2, o);
    CHECK_FAILS(run1("Sqrt", tens(CAIRN_BOOL, 1, SHAPE(2), bb), NULL, 0, &out), CAIRN_ERR_DTYPE, "bool");
    CHECK_FAILS(run1("Sqrt", tens(CAIRN_I32, 1, SHAPE(2), i), NULL, 0, &out), CAIRN_ERR_DTYPE, "Sqrt");
    CHECK_FAILS(run1("Exp", tens(CAIRN_I32, 1, SHAPE(2), i), NULL, 0, &out), CAIRN_ERR_DTYPE, "i32");
    CHECK_FAILS(run1("Neg", tens(CAIRN_U8, 1, SHAPE(2), bb), NULL, 0, &out), CAIRN_ERR_DTYPE, "u8");
    CHECK_FAILS(run1("Not", F32(2, f), NULL, 0, &out), CAIRN_ERR_DTYPE, "f32");
    CHECK_FAILS(run1("IsNaN", tens(CAIRN_I32, 1, SHAPE(2), i), NULL, 0, &out), CAIRN_ERR_DTYPE, "i32");
    cairn_attr_t bad = cairn_attr_string("approximate", "fast");
    CHECK_FAILS(run1("Gelu", F32(2, f), &bad, 1, &out), CAIRN_ERR_INVALID_ARGUMENT, "approximate");
    cairn_attr_t unknown = cairn_attr_float("beta", 1);
    CHECK_FAILS(run1("Relu", F32(2, f), &unknown, 1, &out), CAIRN_ERR_UNSUPPORTED, "beta");
    cairn_attr_t wrong_type = cairn_attr_string("alpha", "x");
    CHECK_FAILS(run1("Elu", F32(2, f), &wrong_type, 1, &out), CAIRN_ERR_INVALID_ARGUMENT, "alpha");
}

int main(void)
{
    test_literals();
    test_clip();
    test_int_ops();
    test_random();
    test_errors();
    return check_finish("test_eltwise_unary");
}
