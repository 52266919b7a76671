/*
 * Fused f32 elementwise programs (fused.h): the checker, the printer, the
 * reference evaluator, the variant table and its dispatch, and the driver
 * that splits the output into chunks over the thread pool.
 *
 * The reference evaluates one element at a time over an array of float
 * registers with the same float libm formulas as unary.c's f32 loops (so
 * at the reference ISA level a fused chain equals the unfused ops bit for
 * bit). The vector variants (fused_impl.h, instantiated by x86_avx2.c and
 * x86_avx512.c) interpret the program once per block of EFUSED_BLOCK
 * elements, so the switch costs little next to the block's work.
 */
#include "kernels/eltwise/fused.h"

#include "base/cpu.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const opc_names[EFU_OPC_COUNT] = {
    "imm", "add",     "sub", "mul", "div",      "min",       "max",  "neg",  "abs", "relu", "sqrt",
    "recip", "exp",   "log", "tanh", "sigmoid", "erf", "gelu_erf", "gelu_tanh", "clip", "leaky_relu", "qdq", "dequant", "quant"};

const char *efused_opc_name(int opc)
{
    return opc >= 0 && opc < EFU_OPC_COUNT ? opc_names[opc] : "?";
}

static int opc_binary(int opc) { return opc >= EFU_ADD && opc <= EFU_MAX; }
/* opcodes whose b operand indexes the immediates (and how many) */
static int opc_imm_b(int opc)
{
    return opc == EFU_QDQ || opc == EFU_QUANT ? 4 : opc == EFU_CLIP || opc == EFU_DEQUANT ? 2
           : opc == EFU_LEAKY                    ? 1
                                                 : 0;
}

cairn_status_t efused_check(const efused_prog_t *p)
{
    if (!p || p->n_in < 1 || p->n_in > EFUSED_MAX_IN)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "fused elementwise: %d inputs, expected 1 to %d", p ? p->n_in : -1,
                          EFUSED_MAX_IN);
    if (p->n_instr < 1 || p->n_instr > EFUSED_MAX_INSTR || !p->code)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "fused elementwise: %d instructions, expected 1 to %d", p->n_instr,
                          EFUSED_MAX_INSTR);
    if (p->n_imm < 0 || p->n_imm > EFUSED_MAX_IMM || (p->n_imm && !p->imm))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "fused elementwise: %d immediates, expected 0 to %d", p->n_imm,
                          EFUSED_MAX_IMM);
    for (int j = 0; j < p->n_instr; j++) {
        int opc = p->code[3 * j], a = p->code[3 * j + 1], b = p->code[3 * j + 2];
        int nreg = p->n_in + j; /* registers defined before instruction j */
        if (opc < 0 || opc >= EFU_OPC_COUNT)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "fused elementwise: instruction %d has unknown opcode %d", j, opc);
        if (opc == EFU_IMM) {
            if (a < 0 || a >= p->n_imm)
                return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                                  "fused elementwise: instruction %d (imm) reads immediate %d "
                                  "of %d", j, a, p->n_imm);
            if (j == p->n_instr - 1)
                return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                                  "fused elementwise: the last instruction is a constant");
            continue;
        }
        if (a < 0 || a >= nreg)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "fused elementwise: instruction %d (%s) reads r%d, defined: r0-r%d",
                              j, opc_names[opc], a, nreg - 1);
        if (opc_binary(opc) && (b < 0 || b >= nreg))
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "fused elementwise: instruction %d (%s) reads r%d, defined: r0-r%d",
                              j, opc_names[opc], b, nreg - 1);
        int ni = opc_imm_b(opc);
        if (ni && (b < 0 || b + ni > p->n_imm))
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "fused elementwise: instruction %d (%s) reads immediates %d..%d "
                              "of %d", j, opc_names[opc], b, b + ni - 1, p->n_imm);
    }
    return CAIRN_OK;
}

static int ef_q8(cairn_dtype_t t) { return t == CAIRN_U8 || t == CAIRN_I8; }

cairn_status_t efused_check_types(const efused_prog_t *p, const cairn_dtype_t *in_dt,
                                  cairn_dtype_t out_dt)
{
    if (!ef_q8(out_dt) && out_dt != CAIRN_F32)
        return base_error(CAIRN_ERR_DTYPE, "fused elementwise: the output must be f32, u8 or "
                          "i8, not %s", cairn_dtype_name(out_dt));
    if (ef_q8(out_dt) != (p->code[3 * (p->n_instr - 1)] == EFU_QUANT))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "fused elementwise: %s",
                          ef_q8(out_dt) ? "an 8-bit output needs a quant as the last "
                                          "instruction"
                                        : "a quant as the last instruction needs an 8-bit "
                                          "output");
    for (int i = 0; i < p->n_in; i++) {
        if (!ef_q8(in_dt[i]) && in_dt[i] != CAIRN_F32)
            return base_error(CAIRN_ERR_DTYPE, "fused elementwise: input %d must be f32, u8 or "
                              "i8, not %s", i, in_dt[i] == CAIRN_DTYPE_UNDEFINED
                                                   ? "nothing (no input is optional)"
                                                   : cairn_dtype_name(in_dt[i]));
        for (int j = 0; ef_q8(in_dt[i]) && j < p->n_instr; j++) {
            const int32_t *c = p->code + 3 * j;
            const int reads = c[0] != EFU_IMM && (c[1] == i || (opc_binary(c[0]) && c[2] == i));
            if (reads && c[0] != EFU_DEQUANT)
                return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                                  "fused elementwise: instruction %d (%s) reads the 8-bit input "
                                  "r%d; only dequant may", j, opc_names[c[0]], i);
        }
    }
    return CAIRN_OK;
}

void efused_format(const efused_prog_t *p, char *buf, size_t cap)
{
    if (!cap)
        return;
    buf[0] = 0;
    size_t u = 0;
#define EF_PUT(...)                                                           \
    do {                                                                      \
        if (u < cap) {                                                        \
            int w_ = snprintf(buf + u, cap - u, __VA_ARGS__);                 \
            u = w_ < 0 ? cap : u + (size_t)w_;                                \
        }                                                                     \
    } while (0)
    for (int j = 0; j < p->n_instr; j++) {
        int opc = p->code[3 * j], a = p->code[3 * j + 1], b = p->code[3 * j + 2];
        EF_PUT("%sr%d = %s(", j ? "; " : "", p->n_in + j, efused_opc_name(opc));
        if (opc == EFU_IMM)
            EF_PUT("%g)", a >= 0 && a < p->n_imm ? (double)p->imm[a] : NAN);
        else if (opc_binary(opc))
            EF_PUT("r%d, r%d)", a, b);
        else if (opc == EFU_CLIP && b >= 0 && b + 1 < p->n_imm)
            EF_PUT("r%d, %g, %g)", a, (double)p->imm[b], (double)p->imm[b + 1]);
        else if (opc == EFU_QDQ && b >= 0 && b + 3 < p->n_imm)
            EF_PUT("r%d, scale %g, zero %g, [%g, %g])", a, (double)p->imm[b],
                   (double)p->imm[b + 1], (double)p->imm[b + 2], (double)p->imm[b + 3]);
        else if (opc == EFU_LEAKY && b >= 0 && b < p->n_imm)
            EF_PUT("r%d, %g)", a, (double)p->imm[b]);
        else
            EF_PUT("r%d)", a);
    }
#undef EF_PUT
}

double efused_flops_per_element(const efused_prog_t *p)
{
    double f = 0;
    for (int j = 0; j < p->n_instr; j++) {
        switch (p->code[3 * j]) {
        case EFU_IMM: break;
        case EFU_EXP:
        case EFU_LOG:
        case EFU_TANH:
        case EFU_SIGMOID:
        case EFU_ERF:
        case EFU_GELU_ERF:
        case EFU_GELU_TANH: f += 10; break;
        case EFU_LEAKY:
        case EFU_CLIP: f += 2; break;
        case EFU_QDQ: f += 6; break; /* divide, round, add, clamp (2), subtract, multiply */
        default: f += 1; break;
        }
    }
    return f;
}

/* ---- the reference ---- */

#define EF_SQRT1_2 0.70710678118654752440
#define EF_SQRT_2_OVER_PI 0.79788456080286535588

/* One instruction on scalars: the f32 formulas of unary.c and ref.c. */
/* quant_quantize_ref's rule for q (imm: scale, zero point, low, high): the
 * f32 quotient, NaN -> 0, nearbyint, + z, saturated; a whole number */
static float ef_quant(float x, const float *q)
{
    double v = (double)(x / q[0]);
    if (isnan(v))
        v = 0;
    v = nearbyint(v) + q[1];
    return (float)(v < q[2] ? q[2] : v > q[3] ? q[3] : v);
}

static float ef_eval1(int opc, float x, float y, const float *imm, int b)
{
    switch (opc) {
    case EFU_ADD: return x + y;
    case EFU_SUB: return x - y;
    case EFU_MUL: return x * y;
    case EFU_DIV: return x / y;
    case EFU_MIN: return (x < y || x != x) ? x : y;
    case EFU_MAX: return (x > y || x != x) ? x : y;
    case EFU_NEG: return -x;
    case EFU_ABS: return fabsf(x);
    case EFU_RELU: return x < 0 ? 0.0f : x;
    case EFU_SQRT: return sqrtf(x);
    case EFU_RECIP: return 1.0f / x;
    case EFU_EXP: return expf(x);
    case EFU_LOG: return logf(x);
    case EFU_TANH: return tanhf(x);
    case EFU_SIGMOID: return x >= 0 ? 1.0f / (1.0f + expf(-x)) : expf(x) / (1.0f + expf(x));
    case EFU_ERF: return erff(x);
    case EFU_GELU_ERF: return 0.5f * x * (1.0f + erff(x * (float)EF_SQRT1_2));
    case EFU_GELU_TANH:
        return 0.5f * x * (1.0f + tanhf((float)EF_SQRT_2_OVER_PI * (x + 0.044715f * x * x * x)));
    case EFU_CLIP: {
        const float lo = imm[b], hi = imm[b + 1];
        return x < lo ? (lo > hi ? hi : lo) : (x > hi ? hi : x);
    }
    case EFU_LEAKY: return x < 0 ? imm[b] * x : x;
    case EFU_QDQ: /* the quant, then quant_dequantize_ref's (q - z) * s */
        return (ef_quant(x, imm + b) - imm[b + 1]) * imm[b];
    case EFU_DEQUANT: return (x - imm[b]) * imm[b + 1];
    case EFU_QUANT: return ef_quant(x, imm + b);
    default: return NAN;
    }
}

void efused_f32_ref(const efused_prog_t *p, const efused_input_t *in, void *out,
                    cairn_dtype_t out_dt, int64_t n, int64_t i0, int64_t i1)
{
    (void)n;
    float r[EFUSED_MAX_REGS];
    const int32_t *code = p->code;
    for (int64_t i = i0; i < i1; i++) {
        for (int k = 0; k < p->n_in; k++) {
            const int64_t e = in[k].len == 1 ? 0 : i % in[k].len;
            r[k] = in[k].dt == CAIRN_U8   ? (float)((const uint8_t *)in[k].p)[e]
                   : in[k].dt == CAIRN_I8 ? (float)((const int8_t *)in[k].p)[e]
                                          : ((const float *)in[k].p)[e];
        }
        for (int j = 0; j < p->n_instr; j++) {
            int opc = code[3 * j], a = code[3 * j + 1], b = code[3 * j + 2];
            float *d = &r[p->n_in + j];
            if (opc == EFU_IMM)
                *d = p->imm[a];
            else
                *d = ef_eval1(opc, r[a], opc_binary(opc) ? r[b] : 0.0f, p->imm, b);
        }
        const float y = r[p->n_in + p->n_instr - 1];
        if (out_dt == CAIRN_U8)
            ((uint8_t *)out)[i - i0] = (uint8_t)(int32_t)y;
        else if (out_dt == CAIRN_I8)
            ((int8_t *)out)[i - i0] = (int8_t)(int32_t)y;
        else
            ((float *)out)[i - i0] = y;
    }
}

/* ---- variants and dispatch ---- */

const efused_variant_t efused_variants[] = {
    {"avx512", CAIRN_ISA_AVX512, efused_f32_avx512},
    {"avx2", CAIRN_ISA_AVX2, efused_f32_avx2},
    {"ref", CAIRN_ISA_REF, efused_f32_ref},
};
const int efused_n_variants = (int)(sizeof efused_variants / sizeof efused_variants[0]);

const efused_variant_t *efused_variant_for(cairn_isa_t cap)
{
    cairn_isa_t best = base_cpu()->best_isa;
    cairn_isa_t level = cap != CAIRN_ISA_AUTO && cap < best ? cap : best;
    for (int i = 0; i < efused_n_variants; i++) {
#if !defined(__x86_64__)
        if (efused_variants[i].isa != CAIRN_ISA_REF)
            continue;
#endif
        if (efused_variants[i].isa <= level)
            return &efused_variants[i];
    }
    return &efused_variants[efused_n_variants - 1];
}

static _Atomic(const efused_variant_t *) g_chosen;

const efused_variant_t *efused_select(void)
{
    const efused_variant_t *v = atomic_load_explicit(&g_chosen, memory_order_acquire);
    if (v)
        return v;
    v = efused_variant_for(base_isa_select(CAIRN_ISA_AUTO));
    const efused_variant_t *expected = NULL;
    if (atomic_compare_exchange_strong(&g_chosen, &expected, v)) {
        const char *verbose = getenv("CAIRN_VERBOSE");
        if (verbose && verbose[0] && verbose[0] != '0')
            fprintf(stderr, "cairn: fused eltwise f32: using %s (ISA %s)\n", v->name,
                    cairn_isa_name(v->isa));
        return v;
    }
    return expected;
}

/* ---- the driver ---- */

/* Elements per parallel task: 64 KiB of output, enough that the pool's
 * dispatch (~0.5 us) is small next to the task. */
#define EF_TASK 16384

typedef struct ef_job {
    efused_fn fn;
    const efused_prog_t *prog;
    const efused_input_t *in;
    void *out;
    cairn_dtype_t out_dt;
    int64_t n;
} ef_job_t;

/* elements [i0, i1) */
static void ef_range(const ef_job_t *j, int64_t i0, int64_t i1)
{
    const size_t es = j->out_dt == CAIRN_U8 || j->out_dt == CAIRN_I8 ? 1 : sizeof(float);
    j->fn(j->prog, j->in, (char *)j->out + (size_t)i0 * es, j->out_dt, j->n, i0, i1);
}

static void ef_task(void *c, size_t b, size_t e, int w)
{
    (void)w;
    const ef_job_t *j = c;
    int64_t i0 = (int64_t)b * EF_TASK, i1 = (int64_t)e * EF_TASK;
    if (i1 > j->n)
        i1 = j->n;
    ef_range(j, i0, i1);
}

cairn_status_t efused_run(const efused_variant_t *v, const efused_prog_t *prog,
                          const efused_input_t *in, void *out, cairn_dtype_t out_dt, int64_t n,
                          const kctx_t *k)
{
    if (!v)
        v = efused_select();
    BASE_TRY(efused_check(prog));
    cairn_dtype_t in_dt[EFUSED_MAX_IN];
    for (int i = 0; i < prog->n_in; i++) /* 0: f32, as the struct's default */
        in_dt[i] = in[i].dt == CAIRN_DTYPE_UNDEFINED ? CAIRN_F32 : in[i].dt;
    BASE_TRY(efused_check_types(prog, in_dt, out_dt));
    if (n <= 0)
        return CAIRN_OK;
    for (int i = 0; i < prog->n_in; i++) {
        int64_t len = in[i].len;
        if (len < 1 || len > n || n % len != 0 || !in[i].p)
            return base_error(CAIRN_ERR_SHAPE,
                              "fused elementwise: input %d has %lld elements, which is neither "
                              "1, the output's %lld, nor a row that repeats in it",
                              i, (long long)len, (long long)n);
    }
    ef_job_t j = {v->fn, prog, in, out, out_dt, n};
    size_t tasks = (size_t)((n + EF_TASK - 1) / EF_TASK);
    if (tasks == 1 || !k || !k->pool)
        ef_range(&j, 0, n);
    else
        base_pool_parallel_for_1d(k->pool, tasks, 1, ef_task, &j);
    return CAIRN_OK;
}

cairn_status_t efused_f32(const efused_variant_t *v, const efused_prog_t *prog,
                          const efused_input_t *in, float *out, int64_t n, const kctx_t *k)
{
    return efused_run(v, prog, in, out, CAIRN_F32, n, k);
}
