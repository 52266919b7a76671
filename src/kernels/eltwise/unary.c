/*
 * Reference kernels for the unary elementwise ops (activations, libm math,
 * rounding, Clip, IsNaN/IsInf, Not).
 *
 * Each dtype gets its own typed loop from one macro: f32 computes in float
 * with the float libm functions, f64 in double, and f16/bf16 load to f32,
 * compute there and round once on store (to nearest even). Integer types
 * support the ops ONNX allows them (Relu, Neg, Abs, Sign, Clip); they work
 * in int64 so that negating INT_MIN wraps instead of being undefined.
 */
#include "kernels/eltwise/eltwise.h"

#include "base/dtype.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const char *const unop_names[ELTWISE_UNOP_COUNT] = {
    "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs",
    "Erf", "Gelu", "Softplus", "Softsign", "Elu", "Selu", "Clip", "HardSigmoid", "HardSwish", "Swish",
    "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh",
    "Cosh", "Asinh", "Acosh", "Atanh", "IsNaN", "IsInf", "Not"};

const char *eltwise_unop_name(eltwise_unop_t op)
{
    return (unsigned)op < ELTWISE_UNOP_COUNT ? unop_names[op] : "?";
}

eltwise_params_t eltwise_params_default(void)
{
    eltwise_params_t p;
    memset(&p, 0, sizeof p);
    p.alpha = 0.01f;
    p.beta = 0.5f;
    p.gamma = 1.05070102214813232421875f;
    p.detect_negative = 1;
    p.detect_positive = 1;
    return p;
}

/* libm by compute type: MF(exp) is expf, MD(exp) is exp. */
#define MF(fn) fn##f
#define MD(fn) fn
#define ELT_ID(v) (v)
#define ELT_LD_F16(v) base_f16_to_f32(v)
#define ELT_ST_F16(v) base_f32_to_f16(v)
#define ELT_LD_BF16(v) base_bf16_to_f32(v)
#define ELT_ST_BF16(v) base_f32_to_bf16(v)

#define ELT_SQRT1_2 0.70710678118654752440
#define ELT_SQRT_2_OVER_PI 0.79788456080286535588

#define ELT_ULOOP(OUT, STORE, EXPR)          \
    do {                                     \
        for (int64_t i = 0; i < n; i++) {    \
            const C x = LD(xs[i]);           \
            OUT[i] = STORE(EXPR);            \
        }                                    \
    } while (0)

/* Round half to even without depending on the FP rounding mode. */
#define ELT_ROUND_EVEN(M, x) \
    (M(fabs)((x) - M(trunc)(x)) == (C)0.5 ? (C)2 * M(round)((x) / (C)2) : M(round)(x))

#define ELT_FLOAT_UNARY(NAME, T, C_, LD_, ST, M)                                               \
    static cairn_status_t NAME(eltwise_unop_t op, const eltwise_params_t *p, int64_t n,        \
                               const void *xv, void *yv)                                       \
    {                                                                                          \
        typedef C_ C;                                                                          \
        const T *xs = xv;                                                                      \
        T *ys = yv;                                                                            \
        uint8_t *yb = yv;                                                                      \
        const C alpha = (C)p->alpha, beta = (C)p->beta, gamma = (C)p->gamma;                   \
        switch (op) {                                                                          \
        case ELTWISE_RELU: ELT_ULOOP(ys, ST, x < 0 ? (C)0 : x); break;                         \
        case ELTWISE_LEAKY_RELU: ELT_ULOOP(ys, ST, x < 0 ? alpha * x : x); break;              \
        case ELTWISE_SIGMOID: /* never exp of a large positive number */                      \
            ELT_ULOOP(ys, ST, x >= 0 ? (C)1 / ((C)1 + M(exp)(-x))                              \
                                     : M(exp)(x) / ((C)1 + M(exp)(x)));                        \
            break;                                                                             \
        case ELTWISE_TANH: ELT_ULOOP(ys, ST, M(tanh)(x)); break;                               \
        case ELTWISE_EXP: ELT_ULOOP(ys, ST, M(exp)(x)); break;                                 \
        case ELTWISE_LOG: ELT_ULOOP(ys, ST, M(log)(x)); break;                                 \
        case ELTWISE_SQRT: ELT_ULOOP(ys, ST, M(sqrt)(x)); break;                               \
        case ELTWISE_RECIPROCAL: ELT_ULOOP(ys, ST, (C)1 / x); break;                           \
        case ELTWISE_NEG: ELT_ULOOP(ys, ST, -x); break;                                        \
        case ELTWISE_ABS: ELT_ULOOP(ys, ST, M(fabs)(x)); break;                                \
        case ELTWISE_ERF: ELT_ULOOP(ys, ST, M(erf)(x)); break;                                 \
        case ELTWISE_GELU:                                                                     \
            if (p->gelu_tanh)                                                                  \
                ELT_ULOOP(ys, ST, (C)0.5 * x * ((C)1 + M(tanh)((C)ELT_SQRT_2_OVER_PI *        \
                                                             (x + (C)0.044715 * x * x * x)))); \
            else                                                                               \
                ELT_ULOOP(ys, ST, (C)0.5 * x * ((C)1 + M(erf)(x * (C)ELT_SQRT1_2)));          \
            break;                                                                             \
        case ELTWISE_SOFTPLUS: /* log(1 + e^x) without overflow */                            \
            ELT_ULOOP(ys, ST, x > 0 ? x + M(log1p)(M(exp)(-x)) : M(log1p)(M(exp)(x)));         \
            break;                                                                             \
        case ELTWISE_SOFTSIGN: ELT_ULOOP(ys, ST, x / ((C)1 + M(fabs)(x))); break;              \
        case ELTWISE_ELU: ELT_ULOOP(ys, ST, x < 0 ? alpha * M(expm1)(x) : x); break;           \
        case ELTWISE_SELU:                                                                     \
            ELT_ULOOP(ys, ST, x <= 0 ? gamma * alpha * M(expm1)(x) : gamma * x);               \
            break;                                                                             \
        case ELTWISE_CLIP: {                                                                   \
            /* min(max(x, lo), hi): lo > hi gives hi everywhere, as ONNX says; NaN stays */   \
            const C lo = p->clip_min ? LD(*(const T *)p->clip_min) : (C)-INFINITY;             \
            const C hi = p->clip_max ? LD(*(const T *)p->clip_max) : (C)INFINITY;              \
            ELT_ULOOP(ys, ST, x < lo ? (lo > hi ? hi : lo) : (x > hi ? hi : x));               \
            break;                                                                             \
        }                                                                                      \
        case ELTWISE_HARD_SIGMOID:                                                             \
            ELT_ULOOP(ys, ST, M(fmax)((C)0, M(fmin)((C)1, alpha * x + beta)));                 \
            break;                                                                             \
        case ELTWISE_HARD_SWISH:                                                               \
            ELT_ULOOP(ys, ST, x * M(fmax)((C)0, M(fmin)((C)1, x / (C)6 + (C)0.5)));            \
            break;                                                                             \
        case ELTWISE_SWISH: /* x * sigmoid(alpha x), as Sigmoid: no exp of a large z */     \
            ELT_ULOOP(ys, ST, alpha * x >= 0 ? x / ((C)1 + M(exp)(-alpha * x))                 \
                                             : x * M(exp)(alpha * x) / ((C)1 + M(exp)(alpha * x))); \
            break;                                                                             \
        case ELTWISE_FLOOR: ELT_ULOOP(ys, ST, M(floor)(x)); break;                             \
        case ELTWISE_CEIL: ELT_ULOOP(ys, ST, M(ceil)(x)); break;                               \
        case ELTWISE_ROUND: ELT_ULOOP(ys, ST, ELT_ROUND_EVEN(M, x)); break;                    \
        case ELTWISE_SIGN: ELT_ULOOP(ys, ST, x > 0 ? (C)1 : x < 0 ? (C)-1 : x); break;         \
        case ELTWISE_SIN: ELT_ULOOP(ys, ST, M(sin)(x)); break;                                 \
        case ELTWISE_COS: ELT_ULOOP(ys, ST, M(cos)(x)); break;                                 \
        case ELTWISE_TAN: ELT_ULOOP(ys, ST, M(tan)(x)); break;                                 \
        case ELTWISE_ASIN: ELT_ULOOP(ys, ST, M(asin)(x)); break;                               \
        case ELTWISE_ACOS: ELT_ULOOP(ys, ST, M(acos)(x)); break;                               \
        case ELTWISE_ATAN: ELT_ULOOP(ys, ST, M(atan)(x)); break;                               \
        case ELTWISE_SINH: ELT_ULOOP(ys, ST, M(sinh)(x)); break;                               \
        case ELTWISE_COSH: ELT_ULOOP(ys, ST, M(cosh)(x)); break;                               \
        case ELTWISE_ASINH: ELT_ULOOP(ys, ST, M(asinh)(x)); break;                             \
        case ELTWISE_ACOSH: ELT_ULOOP(ys, ST, M(acosh)(x)); break;                             \
        case ELTWISE_ATANH: ELT_ULOOP(ys, ST, M(atanh)(x)); break;                             \
        case ELTWISE_ISNAN: ELT_ULOOP(yb, ELT_ID, (uint8_t)(x != x)); break;                   \
        case ELTWISE_ISINF:                                                                    \
            ELT_ULOOP(yb, ELT_ID,                                                              \
                      (uint8_t)((p->detect_positive && x == (C)INFINITY) ||                    \
                                (p->detect_negative && x == (C)-INFINITY)));                   \
            break;                                                                             \
        default: return CAIRN_ERR_DTYPE;                                                       \
        }                                                                                      \
        return CAIRN_OK;                                                                       \
    }

#define LD ELT_ID
ELT_FLOAT_UNARY(elt_un_f32, float, float, ELT_ID, ELT_ID, MF)
ELT_FLOAT_UNARY(elt_un_f64, double, double, ELT_ID, ELT_ID, MD)
#undef LD
#define LD ELT_LD_F16
ELT_FLOAT_UNARY(elt_un_f16, uint16_t, float, ELT_LD_F16, ELT_ST_F16, MF)
#undef LD
#define LD ELT_LD_BF16
ELT_FLOAT_UNARY(elt_un_bf16, uint16_t, float, ELT_LD_BF16, ELT_ST_BF16, MF)
#undef LD

#define LD(v) (int64_t)(v)
#define ELT_INT_UNARY(NAME, T, TMIN, TMAX)                                                     \
    static cairn_status_t NAME(eltwise_unop_t op, const eltwise_params_t *p, int64_t n,        \
                               const void *xv, void *yv)                                       \
    {                                                                                          \
        typedef int64_t C;                                                                     \
        const T *xs = xv;                                                                      \
        T *ys = yv;                                                                            \
        switch (op) {                                                                          \
        case ELTWISE_RELU: ELT_ULOOP(ys, (T), x < 0 ? 0 : x); break;                           \
        case ELTWISE_NEG: ELT_ULOOP(ys, (T), (int64_t)(0 - (uint64_t)x)); break;               \
        case ELTWISE_ABS: ELT_ULOOP(ys, (T), x < 0 ? (int64_t)(0 - (uint64_t)x) : x); break;   \
        case ELTWISE_SIGN: ELT_ULOOP(ys, (T), (x > 0) - (x < 0)); break;                       \
        case ELTWISE_CLIP: {                                                                   \
            const C lo = p->clip_min ? LD(*(const T *)p->clip_min) : (C)(TMIN);                \
            const C hi = p->clip_max ? LD(*(const T *)p->clip_max) : (C)(TMAX);                \
            ELT_ULOOP(ys, (T), x < lo ? (lo > hi ? hi : lo) : (x > hi ? hi : x));              \
            break;                                                                             \
        }                                                                                      \
        default: return CAIRN_ERR_DTYPE;                                                       \
        }                                                                                      \
        return CAIRN_OK;                                                                       \
    }

ELT_INT_UNARY(elt_un_i8, int8_t, INT8_MIN, INT8_MAX)
ELT_INT_UNARY(elt_un_i16, int16_t, INT16_MIN, INT16_MAX)
ELT_INT_UNARY(elt_un_i32, int32_t, INT32_MIN, INT32_MAX)
ELT_INT_UNARY(elt_un_i64, int64_t, INT64_MIN, INT64_MAX)
ELT_INT_UNARY(elt_un_u8, uint8_t, 0, UINT8_MAX)
#undef LD

static cairn_status_t elt_un_bool(eltwise_unop_t op, const eltwise_params_t *p, int64_t n,
                                  const void *xv, void *yv)
{
    (void)p;
    const uint8_t *xs = xv;
    uint8_t *ys = yv;
    if (op != ELTWISE_NOT)
        return CAIRN_ERR_DTYPE;
    for (int64_t i = 0; i < n; i++)
        ys[i] = xs[i] == 0;
    return CAIRN_OK;
}

cairn_status_t eltwise_unary_ref(eltwise_unop_t op, const eltwise_params_t *p, const ktensor_t *x,
                                 ktensor_t *y)
{
    if ((unsigned)op >= ELTWISE_UNOP_COUNT)
        return base_error(CAIRN_ERR_INTERNAL, "eltwise: bad unary op %d", (int)op);
    const char *name = eltwise_unop_name(op);
    eltwise_params_t defaults = eltwise_params_default();
    if (!p)
        p = &defaults;
    char sx[128], sy[128];
    if (x->rank != y->rank || memcmp(x->shape, y->shape, sizeof(int64_t) * (size_t)x->rank))
        return base_error(CAIRN_ERR_SHAPE, "%s: output shape %s differs from input shape %s",
                          name, base_fmt_dims(sy, sizeof sy, y->shape, y->rank),
                          base_fmt_dims(sx, sizeof sx, x->shape, x->rank));
    int to_bool = op == ELTWISE_ISNAN || op == ELTWISE_ISINF;
    cairn_dtype_t want = to_bool ? CAIRN_BOOL : x->dtype;
    if (y->dtype != want)
        return base_error(CAIRN_ERR_DTYPE, "%s: output must be %s, got %s", name,
                          cairn_dtype_name(want), cairn_dtype_name(y->dtype));
    cairn_status_t (*fn)(eltwise_unop_t, const eltwise_params_t *, int64_t, const void *, void *);
    switch (x->dtype) {
    case CAIRN_F32: fn = elt_un_f32; break;
    case CAIRN_F64: fn = elt_un_f64; break;
    case CAIRN_F16: fn = elt_un_f16; break;
    case CAIRN_BF16: fn = elt_un_bf16; break;
    case CAIRN_I8: fn = elt_un_i8; break;
    case CAIRN_I16: fn = elt_un_i16; break;
    case CAIRN_I32: fn = elt_un_i32; break;
    case CAIRN_I64: fn = elt_un_i64; break;
    case CAIRN_U8: fn = elt_un_u8; break;
    case CAIRN_BOOL: fn = elt_un_bool; break;
    default: fn = NULL; break;
    }
    if (!fn || fn(op, p, kt_numel(x), x->data, y->data) != CAIRN_OK)
        return base_error(CAIRN_ERR_DTYPE, "%s is not defined for %s inputs", name,
                          cairn_dtype_name(x->dtype));
    return CAIRN_OK;
}
