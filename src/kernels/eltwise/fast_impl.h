/*
 * The loops of the fast f32 elementwise kernels, written over the vector
 * macros of one vmath ISA header and instantiated by x86_avx512.c and
 * x86_avx2.c (KF(name) names the instance). Tails use masked loads and
 * stores, so no element outside [0, n) is touched.
 */
#ifndef KF
#error "include from an ISA file that defines KF"
#endif

static inline V KF(unop)(eltwise_f32_unop_t op, V x)
{
    switch (op) {
    case EF32_RELU: return V_MAX(V_ZERO(), x); /* NaN and -0 pass through (second operand) */
    case EF32_EXP: return VM(exp)(x);
    case EF32_LOG: return VM(log)(x);
    case EF32_ERF: return VM(erf)(x);
    case EF32_TANH: return VM(tanh)(x);
    case EF32_SIGMOID: return VM(sigmoid)(x);
    case EF32_GELU_ERF: return VM(gelu_erf)(x);
    case EF32_GELU_TANH: return VM(gelu_tanh)(x);
    case EF32_SILU: return V_MUL(x, VM(sigmoid)(x));
    default: return x;
    }
}

/* One loop per op, so the switch is outside the loop. */
#define KF_UNARY_CASE(OPC)                                      \
    case OPC: {                                                 \
        int64_t i = 0;                                          \
        for (; i + VLEN <= n; i += VLEN)                        \
            V_STORE(y + i, KF(unop)(OPC, V_LOAD(x + i)));       \
        if (i < n)                                              \
            V_STOREN(y + i, n - i, KF(unop)(OPC, V_LOADN(x + i, n - i, 0.0f))); \
        break;                                                  \
    }

void KF(unary)(eltwise_f32_unop_t op, const float *x, float *y, int64_t n)
{
    switch (op) {
        KF_UNARY_CASE(EF32_RELU)
        KF_UNARY_CASE(EF32_EXP)
        KF_UNARY_CASE(EF32_LOG)
        KF_UNARY_CASE(EF32_ERF)
        KF_UNARY_CASE(EF32_TANH)
        KF_UNARY_CASE(EF32_SIGMOID)
        KF_UNARY_CASE(EF32_GELU_ERF)
        KF_UNARY_CASE(EF32_GELU_TANH)
        KF_UNARY_CASE(EF32_SILU)
    default: break;
    }
}

static inline V KF(binop)(eltwise_binop_t op, V a, V b)
{
    switch (op) {
    case ELTWISE_ADD: return V_ADD(a, b);
    case ELTWISE_SUB: return V_SUB(a, b);
    case ELTWISE_MUL: return V_MUL(a, b);
    default: return V_DIV(a, b);
    }
}

/* LA / LB: how each operand is loaded (vector from memory or broadcast) */
#define KF_LD_VEC(p, i) V_LOAD((p) + (i))
#define KF_LD_VECN(p, i, r) V_LOADN((p) + (i), (r), 1.0f)
#define KF_LD_BC(p, i) pb_##p
#define KF_LD_BCN(p, i, r) pb_##p
#define KF_BIN_LOOP(OPC, LA, LAN, LB, LBN)                                        \
    do {                                                                          \
        int64_t i = 0;                                                            \
        for (; i + VLEN <= n; i += VLEN)                                          \
            V_STORE(o + i, KF(binop)(OPC, LA(a, i), LB(b, i)));                   \
        if (i < n)                                                                \
            V_STOREN(o + i, n - i, KF(binop)(OPC, LAN(a, i, n - i), LBN(b, i, n - i))); \
    } while (0)
#define KF_BIN_CASE(OPC)                                                                \
    case OPC:                                                                           \
        if (sa && sb)                                                                   \
            KF_BIN_LOOP(OPC, KF_LD_VEC, KF_LD_VECN, KF_LD_VEC, KF_LD_VECN);             \
        else if (sa)                                                                    \
            KF_BIN_LOOP(OPC, KF_LD_VEC, KF_LD_VECN, KF_LD_BC, KF_LD_BCN);               \
        else if (sb)                                                                    \
            KF_BIN_LOOP(OPC, KF_LD_BC, KF_LD_BCN, KF_LD_VEC, KF_LD_VECN);               \
        else                                                                            \
            KF_BIN_LOOP(OPC, KF_LD_BC, KF_LD_BCN, KF_LD_BC, KF_LD_BCN);                 \
        break;

void KF(binary)(eltwise_binop_t op, const float *a, int64_t sa, const float *b, int64_t sb,
                float *o, int64_t n)
{
    if (n <= 0)
        return;
    const V pb_a = V_SET1(a[0]), pb_b = V_SET1(b[0]);
    switch (op) {
        KF_BIN_CASE(ELTWISE_ADD)
        KF_BIN_CASE(ELTWISE_SUB)
        KF_BIN_CASE(ELTWISE_MUL)
        KF_BIN_CASE(ELTWISE_DIV)
    default: break;
    }
}
