/*
 * The fused elementwise kernels (src/kernels/eltwise/fused*.{c,h}): every
 * variant this CPU runs plus the dispatched one (CAIRN_ISA caps it: ctest
 * runs this under ref, avx2 and avx512), on random data with NaN, Inf,
 * -0 and huge/tiny values mixed in, at lengths 1..67 and past the block
 * and parallel-chunk sizes, with poisoned outputs.
 *
 * The oracle is the unfused ops: each instruction run on whole arrays by
 * the kernel the unfused op would use at the same ISA level (the fast
 * unary/binary variant where it covers the op, else the reference). The
 * fused program must give the same bits (NaN matches any NaN), since it
 * uses the same formulas and the same vmath functions. The oracle of the
 * qdq opcode (a QuantizeLinear -> DequantizeLinear pair) is the two ops'
 * references, through an 8-bit tensor.
 */
#include "base/threadpool.h"
#include "check.h"
#include "kernels/eltwise/eltwise.h"
#include "kernels/eltwise/fast.h"
#include "kernels/eltwise/fused.h"
#include "kernels/quant/quant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ktensor_t t1(const float *p, int64_t n)
{
    ktensor_t t;
    memset(&t, 0, sizeof t);
    t.dtype = CAIRN_F32;
    t.rank = 1;
    t.shape[0] = n;
    t.data = (void *)p;
    return t;
}

static void poison(float *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        p[i] = NAN;
}

static int same(float a, float b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* random values in [lo, hi] with about one in eight special */
static void fill(check_rng_t *r, float *p, int64_t n, double lo, double hi)
{
    static const float special[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e30f, -1e30f,
                                    1e-40f, -3.0f, 88.5f, -104.0f};
    check_fill_f32(r, p, n, lo, hi);
    for (int64_t i = 0; i < n; i++)
        if (check_rng_next(r) % 8 == 0)
            p[i] = special[check_rng_next(r) % (sizeof special / sizeof special[0])];
}

/* One instruction over whole arrays as the unfused op runs it at the
 * level of fast variant fv. */
static void unfused(const eltwise_f32_variant_t *fv, int opc, const float *a, const float *b,
                    const float *imm, int bi, float *d, int64_t n)
{
    ktensor_t ta = t1(a, n), tb = t1(b, n), td = t1(d, n);
    eltwise_params_t p = eltwise_params_default();
    switch (opc) {
    case EFU_ADD:
    case EFU_SUB:
    case EFU_MUL:
    case EFU_DIV: {
        eltwise_binop_t op = opc == EFU_ADD   ? ELTWISE_ADD
                             : opc == EFU_SUB ? ELTWISE_SUB
                             : opc == EFU_MUL ? ELTWISE_MUL
                                              : ELTWISE_DIV;
        if (fv->binary)
            fv->binary(op, a, 1, b, 1, d, n);
        else
            CHECK_OK(eltwise_binary_ref(op, &ta, &tb, &td));
        return;
    }
    case EFU_MIN: CHECK_OK(eltwise_binary_ref(ELTWISE_MIN, &ta, &tb, &td)); return;
    case EFU_QDQ: { /* QuantizeLinear then DequantizeLinear, per tensor */
        const float sc = imm[bi];
        const cairn_dtype_t qt = imm[bi + 2] < 0 ? CAIRN_I8 : CAIRN_U8;
        const uint8_t zu = (uint8_t)imm[bi + 1];
        const int8_t zi = (int8_t)imm[bi + 1];
        const void *zp = qt == CAIRN_U8 ? (const void *)&zu : (const void *)&zi;
        unsigned char *q = malloc((size_t)(n ? n : 1));
        const quant_axis_t ax = {1, 1, n};
        quant_quantize_ref(CAIRN_F32, a, &sc, zp, qt, q, &ax);
        quant_dequantize_ref(qt, q, &sc, zp, d, &ax);
        free(q);
        return;
    }
    case EFU_MAX: CHECK_OK(eltwise_binary_ref(ELTWISE_MAX, &ta, &tb, &td)); return;
    default: break;
    }
    eltwise_unop_t u = ELTWISE_UNOP_COUNT;
    int fast = -1;
    switch (opc) {
    case EFU_NEG: u = ELTWISE_NEG; break;
    case EFU_ABS: u = ELTWISE_ABS; break;
    case EFU_RELU: u = ELTWISE_RELU, fast = EF32_RELU; break;
    case EFU_SQRT: u = ELTWISE_SQRT; break;
    case EFU_RECIP: u = ELTWISE_RECIPROCAL; break;
    case EFU_EXP: u = ELTWISE_EXP, fast = EF32_EXP; break;
    case EFU_LOG: u = ELTWISE_LOG, fast = EF32_LOG; break;
    case EFU_TANH: u = ELTWISE_TANH, fast = EF32_TANH; break;
    case EFU_SIGMOID: u = ELTWISE_SIGMOID, fast = EF32_SIGMOID; break;
    case EFU_ERF: u = ELTWISE_ERF, fast = EF32_ERF; break;
    case EFU_GELU_ERF: u = ELTWISE_GELU, fast = EF32_GELU_ERF; break;
    case EFU_GELU_TANH: u = ELTWISE_GELU, fast = EF32_GELU_TANH, p.gelu_tanh = 1; break;
    case EFU_CLIP:
        u = ELTWISE_CLIP;
        p.clip_min = &imm[bi];
        p.clip_max = &imm[bi + 1];
        break;
    case EFU_LEAKY: u = ELTWISE_LEAKY_RELU, p.alpha = imm[bi]; break;
    default: CHECK_MSG(0, "unfused: opcode %d", opc); return;
    }
    if (fast >= 0 && fv->unary)
        fv->unary((eltwise_f32_unop_t)fast, a, d, n);
    else
        CHECK_OK(eltwise_unary_ref(u, &p, &ta, &td));
}

/* The whole program through the unfused oracle: inputs expanded to n
 * elements, one array per register. */
static void run_unfused(const eltwise_f32_variant_t *fv, const efused_prog_t *pg,
                        const efused_input_t *in, float *out, int64_t n)
{
    int nr = pg->n_in + pg->n_instr;
    float **r = calloc((size_t)nr, sizeof *r);
    for (int k = 0; k < nr; k++)
        r[k] = malloc((size_t)(n ? n : 1) * sizeof(float));
    for (int k = 0; k < pg->n_in; k++)
        for (int64_t i = 0; i < n; i++)
            r[k][i] = ((const float *)in[k].p)[in[k].len == 1 ? 0 : i % in[k].len];
    for (int j = 0; j < pg->n_instr; j++) {
        int opc = pg->code[3 * j], a = pg->code[3 * j + 1], b = pg->code[3 * j + 2];
        float *d = r[pg->n_in + j];
        if (opc == EFU_IMM) {
            for (int64_t i = 0; i < n; i++)
                d[i] = pg->imm[a];
            continue;
        }
        int bin = opc >= EFU_ADD && opc <= EFU_MAX;
        unfused(fv, opc, r[a], bin ? r[b] : r[a], pg->imm, b, d, n);
    }
    memcpy(out, r[nr - 1], (size_t)n * sizeof(float));
    for (int k = 0; k < nr; k++)
        free(r[k]);
    free(r);
}

/* Runs pg through variant v (NULL: dispatched) and the oracle at the same
 * level; every element must match. */
static void compare(const efused_variant_t *v, const kctx_t *k, const efused_prog_t *pg,
                    const efused_input_t *in, int64_t n, const char *what)
{
    const efused_variant_t *sel = v ? v : efused_select();
    const eltwise_f32_variant_t *fv =
        v ? eltwise_f32_variant_for(v->isa) : eltwise_f32_select();
    float *o = malloc((size_t)(n + 1) * sizeof *o), *want = malloc((size_t)(n + 1) * sizeof *o);
    poison(o, n + 1);
    o[n] = 12345.0f; /* a guard just past the end */
    CHECK_OK(efused_f32(v, pg, in, o, n, k));
    run_unfused(fv, pg, in, want, n);
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 3; i++)
        if (!same(o[i], want[i])) {
            bad++;
            CHECK_MSG(0, "%s %s n=%lld [%lld]: got %.9g, unfused %.9g (r0 %.9g)", sel->name,
                      what, (long long)n, (long long)i, (double)o[i], (double)want[i],
                      (double)((const float *)in[0].p)[in[0].len == 1 ? 0 : i % in[0].len]);
        }
    CHECK_MSG(o[n] == 12345.0f, "%s %s n=%lld wrote past the end", sel->name, what, (long long)n);
    free(o), free(want);
}

static const int64_t big_sizes[] = {127, 128, 129, 255, 1000, 16385, 40000};

/* Every opcode alone: unary on r0, binary on r0 and r1. */
static void test_each_opcode(const efused_variant_t *v, const kctx_t *k, check_rng_t *rng)
{
    const int64_t nmax = 40000;
    float *a = malloc(nmax * sizeof *a), *b = malloc(nmax * sizeof *b);
    const float imm[] = {-1.5f, 2.25f, 3.0f, -3.0f, 0.1f};
    for (int opc = EFU_ADD; opc < EFU_OPC_COUNT; opc++) {
        if (opc == EFU_QDQ || opc == EFU_DEQUANT || opc == EFU_QUANT)
            continue; /* test_qdq, test_q8_io: scales, zero points, ranges, 8-bit data */
        int bin = opc <= EFU_MAX;
        int bi = opc == EFU_LEAKY ? 4 : 0;
        int32_t code[3] = {opc, 0, bin ? 1 : bi};
        int32_t code_swapped_clip[3] = {EFU_CLIP, 0, 2}; /* lo 3 > hi -3: hi everywhere */
        efused_prog_t pg = {bin ? 2 : 1, 1, code, 5, imm};
        for (int s = 0; s < 67 + (int)(sizeof big_sizes / sizeof big_sizes[0]); s++) {
            int64_t n = s < 67 ? s + 1 : big_sizes[s - 67];
            double lo = -6, hi = 6;
            if (opc == EFU_EXP)
                lo = -100, hi = 100;
            fill(rng, a, n, lo, hi);
            fill(rng, b, n, lo, hi);
            efused_input_t in[2] = {{a, n, CAIRN_F32}, {b, n, CAIRN_F32}};
            compare(v, k, &pg, in, n, efused_opc_name(opc));
            if (opc == EFU_CLIP) {
                efused_prog_t p2 = pg;
                p2.code = code_swapped_clip;
                compare(v, k, &p2, in, n, "clip lo > hi");
            }
        }
    }
    free(a), free(b);
}

/* QuantizeLinear -> DequantizeLinear as one instruction: u8 and i8 grids,
 * scales that are powers of two (exact ties, half to even) and not, zero
 * points at the range's middle and off it, values far past saturation,
 * NaN and infinities (fill's specials); then inside a chain (add, qdq,
 * relu, qdq), as fuse_eltwise builds from a QDQ model. */
static void test_qdq(const efused_variant_t *v, const kctx_t *k, check_rng_t *rng)
{
    static const float grids[][4] = {
        {0.25f, 128, 0, 255},     {0.0371f, 7, 0, 255}, {0.5f, 0, -128, 127},
        {0.013f, -5, -128, 127},  {3e-5f, 255, 0, 255}, {1e30f, 0, -128, 127},
        /* scales whose reciprocal leaves the normal range (the division
         * throughout), and ones the reciprocal rounds most for */
        {1e-39f, 3, 0, 255},      {3e38f, -2, -128, 127}, {0.1f, 0, 0, 255},
        {0.0078125f * 1.00001f, 128, 0, 255}, {6.1e-3f, 17, 0, 255},
    };
    const int64_t nmax = 40000;
    float *a = malloc(nmax * sizeof *a), *b = malloc(nmax * sizeof *b);
    for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++) {
        const float *gr = grids[gi];
        const int32_t code[3] = {EFU_QDQ, 0, 0};
        efused_prog_t pg = {1, 1, code, 4, gr};
        const double span = 300.0 * (double)gr[0];
        for (int s = 0; s < 67 + (int)(sizeof big_sizes / sizeof big_sizes[0]); s++) {
            int64_t n = s < 67 ? s + 1 : big_sizes[s - 67];
            fill(rng, a, n, -span, span);
            /* a third on the ties, (j + 1/2) * scale, a third an ulp or
             * two either side of them (where x / s and x (1 / s) can round
             * to different integers) */
            for (int64_t i = 0; i < n; i += 3) {
                a[i] = ((float)((int64_t)(check_rng_next(rng) % 600) - 300) + 0.5f) * gr[0];
                if (i + 1 < n) {
                    const uint64_t u = check_rng_next(rng);
                    float t = ((float)((int64_t)(u % 600) - 300) + 0.5f) * gr[0];
                    for (int st = 0; st < (int)(u >> 60) % 3 + 1; st++)
                        t = nextafterf(t, (u >> 40) & 1 ? INFINITY : -INFINITY);
                    a[i + 1] = t;
                }
            }
            efused_input_t in[1] = {{a, n, CAIRN_F32}};
            char what[64];
            snprintf(what, sizeof what, "qdq scale %g zero %g", (double)gr[0], (double)gr[1]);
            compare(v, k, &pg, in, n, what);
        }
    }
    /* r2 = qdq(r0 + r1); r3 = relu(r2); r4 = qdq(r3), two grids */
    const float imm[8] = {0.02f, 130, 0, 255, 0.01f, -3, -128, 127};
    const int32_t chain[] = {EFU_ADD, 0, 1, EFU_QDQ, 2, 0, EFU_RELU, 3, 0, EFU_QDQ, 4, 4};
    efused_prog_t pc = {2, 4, chain, 8, imm};
    const int64_t sizes[] = {1, 17, 129, 1000, 40000};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int64_t n = sizes[si];
        fill(rng, a, n, -4, 4);
        fill(rng, b, n, -2, 2);
        efused_input_t in[2] = {{a, n, CAIRN_F32}, {b, n, CAIRN_F32}};
        compare(v, k, &pc, in, n, "add, qdq, relu, qdq");
    }
    free(a), free(b);
}

/* Broadcast forms: r = ((r0 + s) * row - full) with s scalar, and a row
 * shorter than a block, of a block, longer, and as long as the output. */
/* 8-bit inputs and outputs (a DequantizeLinear and a QuantizeLinear fused
 * in, as fuse_eltwise makes of QLinearAdd or a QDQ residual):
 * r2 = dequant(r0), r3 = dequant(r1), r4 = add, [r5 = relu,] quant (with
 * both inputs full, the vector variants' one-pass kx_qadd),
 * stored as u8 or i8, against quant_dequantize_ref -> add -> relu ->
 * quant_quantize_ref byte for byte; b full, a scalar or a row (short and
 * long), scales that put a third of the sums on the output grid's ties,
 * lengths around the blocks, 1 and 2 threads. Then the driver's refusals. */
static void test_q8_io(const efused_variant_t *v, const kctx_t *k, check_rng_t *rng)
{
    const int64_t nmax = 40000;
    uint8_t *a = malloc(nmax), *b = malloc(nmax), *o = malloc(nmax + 1), *want = malloc(nmax);
    float *fa = malloc(nmax * sizeof *fa), *fb = malloc(nmax * sizeof *fb);
    const int32_t code[] = {EFU_DEQUANT, 0, 0, EFU_DEQUANT, 1, 2, EFU_ADD, 2, 3,
                            EFU_RELU,    4, 0, EFU_QUANT,   5, 4};
    /* and without the relu (QLinearAdd): r5 = quant(r4) */
    const int32_t code_norelu[] = {EFU_DEQUANT, 0, 0, EFU_DEQUANT, 1, 2,
                                   EFU_ADD,     2, 3, EFU_QUANT,   4, 4};
    /* the add's operands the other way round (a QDQ model's residual Add) */
    const int32_t code_sw[] = {EFU_DEQUANT, 0, 0, EFU_DEQUANT, 1, 2, EFU_ADD, 3, 2,
                               EFU_RELU,    4, 0, EFU_QUANT,   5, 4};
    const int32_t code_sw_norelu[] = {EFU_DEQUANT, 0, 0, EFU_DEQUANT, 1, 2,
                                      EFU_ADD,     3, 2, EFU_QUANT,   4, 4};
    for (int oc = 0; oc < 8; oc++) {
        const int relu = oc % 4 < 2, sw = oc >= 4;
        const cairn_dtype_t at = CAIRN_U8, bt = CAIRN_I8, ot = oc % 2 ? CAIRN_I8 : CAIRN_U8;
        const float sc = 0.05f, za = 131, sa = 0.05f, zb = -3, sb = 0.025f;
        const float zc = oc % 2 ? -100 : 7, lo = oc % 2 ? -128 : 0, hi = oc % 2 ? 127 : 255;
        const float imm[8] = {za, sa, zb, sb, sc, zc, lo, hi};
        const int32_t *cd = sw ? (relu ? code_sw : code_sw_norelu) : (relu ? code : code_norelu);
        const efused_prog_t pg = {2, relu ? 5 : 4, cd, 8, imm};
        const uint8_t uza = (uint8_t)za;
        const int8_t izb = (int8_t)zb, izc = (int8_t)zc;
        const uint8_t uzc = (uint8_t)zc;
        for (int layout = 0; layout < 4; layout++) {
            for (int s = 0; s < 67 + (int)(sizeof big_sizes / sizeof big_sizes[0]); s += 5) {
                int64_t n = s < 67 ? s + 1 : big_sizes[s - 67];
                const int64_t lb = layout == 0 ? n : layout == 1 ? 1 : layout == 2 ? 7 : 200;
                if (n % lb)
                    continue;
                for (int64_t i = 0; i < n; i++)
                    a[i] = (uint8_t)(check_rng_next(rng) % 256);
                for (int64_t i = 0; i < lb; i++)
                    b[i] = (uint8_t)(check_rng_next(rng) % 256);
                const quant_axis_t axa = {1, 1, n}, axb = {1, 1, lb};
                quant_dequantize_ref(at, a, &sa, &uza, fa, &axa);
                quant_dequantize_ref(bt, b, &sb, &izb, fb, &axb);
                for (int64_t i = 0; i < n; i++) {
                    const float t = fa[i] + fb[i % lb];
                    fa[i] = relu && t < 0 ? 0.0f : t;
                }
                quant_quantize_ref(CAIRN_F32, fa, &sc, oc % 2 ? (const void *)&izc : &uzc, ot,
                                   want, &axa);
                efused_input_t in[2] = {{a, n, at}, {b, lb, bt}};
                memset(o, 0xa5, (size_t)n + 1);
                CHECK_OK(efused_run(v, &pg, in, o, ot, n, k));
                int64_t bad = -1;
                for (int64_t i = 0; i < n && bad < 0; i++)
                    if (o[i] != want[i])
                        bad = i;
                CHECK_MSG(bad < 0, "%s 8-bit io (%s out, b of %lld) n=%lld [%lld]: got %d want %d",
                          v ? v->name : "dispatched", oc % 2 ? "i8" : "u8", (long long)lb,
                          (long long)n, (long long)bad, bad < 0 ? 0 : o[bad],
                          bad < 0 ? 0 : want[bad]);
                CHECK_MSG(o[n] == 0xa5, "8-bit io n=%lld wrote past the end", (long long)n);
            }
        }
    }
    /* refusals: an 8-bit input read by anything but dequant; a quant with an
     * f32 output; an 8-bit output whose last instruction is not a quant */
    const float imm[6] = {0, 0.1f, 0.1f, 0, 0, 255};
    const int32_t bad_read[] = {EFU_RELU, 0, 0, EFU_QUANT, 1, 2};
    const efused_prog_t p1 = {1, 2, bad_read, 6, imm};
    efused_input_t in1[1] = {{a, 4, CAIRN_U8}};
    CHECK_FAILS(efused_run(v, &p1, in1, o, CAIRN_U8, 4, k), CAIRN_ERR_INVALID_ARGUMENT,
                "reads the 8-bit input r0");
    const int32_t deq[] = {EFU_DEQUANT, 0, 0, EFU_QUANT, 1, 2};
    const efused_prog_t p2 = {1, 2, deq, 6, imm};
    CHECK_FAILS(efused_run(v, &p2, in1, fa, CAIRN_F32, 4, k), CAIRN_ERR_INVALID_ARGUMENT,
                "needs an 8-bit output");
    const efused_prog_t p3 = {1, 1, deq, 6, imm};
    CHECK_FAILS(efused_run(v, &p3, in1, o, CAIRN_U8, 4, k), CAIRN_ERR_INVALID_ARGUMENT,
                "needs a quant");
    free(a), free(b), free(o), free(want), free(fa), free(fb);
}

static void test_broadcast(const efused_variant_t *v, const kctx_t *k, check_rng_t *rng)
{
    static const int64_t rows[] = {1, 2, 3, 7, 16, 64, 127, 128, 129, 300, 1000};
    static const int64_t reps[] = {1, 2, 5, 33};
    const int32_t code[] = {EFU_ADD, 0, 1, EFU_MUL, 4, 2, EFU_SUB, 5, 3, EFU_TANH, 6, 0};
    for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++)
        for (size_t pi = 0; pi < sizeof reps / sizeof reps[0]; pi++) {
            int64_t L = rows[ri], n = L * reps[pi];
            float *x = malloc((size_t)n * sizeof *x), *row = malloc((size_t)L * sizeof *row);
            float *f = malloc((size_t)n * sizeof *f), s = 0.75f;
            fill(rng, x, n, -3, 3);
            fill(rng, row, L, -2, 2);
            fill(rng, f, n, -3, 3);
            efused_input_t in[4] = {{x, n, CAIRN_F32}, {&s, 1, CAIRN_F32}, {row, L, CAIRN_F32}, {f, n, CAIRN_F32}};
            efused_prog_t pg = {4, 4, code, 0, NULL};
            compare(v, k, &pg, in, n, "broadcast");
            /* every input a scalar but the output */
            efused_input_t in2[4] = {{&s, 1, CAIRN_F32}, {&s, 1, CAIRN_F32}, {row, L, CAIRN_F32}, {&s, 1, CAIRN_F32}};
            compare(v, k, &pg, in2, n, "broadcast scalars");
            free(x), free(row), free(f);
        }
}

/* Chains as the pass builds them: SiLU, tanh GELU written out, a
 * LayerNorm tail, and a long one over every kind of instruction. */
static void test_chains(const efused_variant_t *v, const kctx_t *k, check_rng_t *rng)
{
    const float imm[] = {0.5f, 1.0f, 0.044715f, 0.7978845608f, 0.0f, 6.0f, 0.2f, 1e-5f};
    /* r1 = sigmoid(r0); r2 = r0 * r1 */
    const int32_t silu[] = {EFU_SIGMOID, 0, 0, EFU_MUL, 0, 1};
    /* x*0.5*(1+tanh(c*(x+0.044715*x*x*x))) */
    const int32_t gelu[] = {EFU_MUL, 0, 0,   EFU_MUL, 1, 0,    EFU_IMM, 2, 0, EFU_MUL, 3, 2,
                            EFU_ADD, 0, 4,   EFU_IMM, 3, 0,    EFU_MUL, 5, 6, EFU_TANH, 7, 0,
                            EFU_IMM, 1, 0,   EFU_ADD, 8, 9,    EFU_IMM, 0, 0, EFU_MUL, 0, 11,
                            EFU_MUL, 12, 10};
    /* (x - mean) / sqrt(var + eps) * gamma + beta, with mean, var per row of 1 */
    const int32_t ln[] = {EFU_SUB, 0, 1, EFU_IMM, 7, 0, EFU_ADD, 2, 6, EFU_SQRT, 7, 0,
                          EFU_DIV, 5, 8, EFU_MUL, 9, 3, EFU_ADD, 10, 4};
    /* everything once */
    const int32_t all[] = {EFU_EXP, 0, 0,  EFU_LOG, 2, 0,    EFU_ERF, 1, 0,   EFU_MIN, 3, 4,
                           EFU_MAX, 5, 0,  EFU_NEG, 6, 0,    EFU_ABS, 7, 0,   EFU_RELU, 7, 0,
                           EFU_RECIP, 8, 0, EFU_DIV, 10, 9,  EFU_CLIP, 11, 4, EFU_LEAKY, 12, 6,
                           EFU_GELU_ERF, 13, 0, EFU_GELU_TANH, 14, 0, EFU_SIGMOID, 15, 0,
                           EFU_SUB, 16, 1};
    const int64_t sizes[] = {1, 5, 8, 9, 16, 17, 67, 128, 1000, 40000};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int64_t n = sizes[si];
        float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
        float stats[2][4];
        fill(rng, x, n, -5, 5);
        fill(rng, y, n, -5, 5);
        check_fill_f32(rng, stats[0], 4, -1, 1);
        check_fill_f32(rng, stats[1], 4, 0.1, 2);
        efused_input_t in1[1] = {{x, n, CAIRN_F32}};
        efused_prog_t p_silu = {1, 2, silu, 0, NULL};
        compare(v, k, &p_silu, in1, n, "silu");
        efused_prog_t p_gelu = {1, 13, gelu, 8, imm};
        compare(v, k, &p_gelu, in1, n, "gelu tanh chain");
        efused_input_t in5[5] = {{x, n, CAIRN_F32}, {&stats[0][0], 1, CAIRN_F32}, {&stats[1][0], 1, CAIRN_F32}, {y, n, CAIRN_F32}, {x, n, CAIRN_F32}};
        efused_prog_t p_ln = {5, 7, ln, 8, imm};
        compare(v, k, &p_ln, in5, n, "layernorm tail");
        efused_input_t in2[2] = {{x, n, CAIRN_F32}, {y, n, CAIRN_F32}};
        efused_prog_t p_all = {2, 16, all, 8, imm};
        compare(v, k, &p_all, in2, n, "every kind");
        free(x), free(y);
    }
}

static void test_errors(void)
{
    const float imm[] = {1.0f, 2.0f};
    float x[4] = {1, 2, 3, 4}, o[4];
    efused_input_t in[2] = {{x, 4, CAIRN_F32}, {x, 3, CAIRN_F32}};
    const int32_t bad_opc[] = {99, 0, 0};
    const int32_t fwd[] = {EFU_ADD, 0, 1};
    const int32_t bad_imm[] = {EFU_IMM, 2, 0, EFU_ADD, 0, 1};
    const int32_t clip_imm[] = {EFU_CLIP, 0, 1};
    const int32_t last_imm[] = {EFU_IMM, 0, 0};
    const int32_t ok[] = {EFU_ADD, 0, 1};
    efused_prog_t p = {1, 1, bad_opc, 2, imm};
    CHECK_FAILS(efused_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "unknown opcode 99");
    p.code = fwd;
    CHECK_FAILS(efused_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "reads r1");
    p.code = bad_imm, p.n_instr = 2;
    CHECK_FAILS(efused_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "immediate 2 of 2");
    p.code = clip_imm, p.n_instr = 1;
    CHECK_FAILS(efused_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "immediates 1..2 of 2");
    const int32_t qdq_imm[] = {EFU_QDQ, 0, 0};
    p.code = qdq_imm;
    CHECK_FAILS(efused_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "immediates 0..3 of 2");
    p.code = last_imm;
    CHECK_FAILS(efused_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "constant");
    p.n_in = 0;
    CHECK_FAILS(efused_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "0 inputs");
    p.n_in = 2, p.code = ok;
    CHECK_OK(efused_check(&p));
    /* a row of 3 does not repeat in 4 */
    CHECK_FAILS(efused_f32(NULL, &p, in, o, 4, NULL), CAIRN_ERR_SHAPE, "input 1 has 3");
    CHECK_OK(efused_f32(NULL, &p, in, o, 0, NULL)); /* empty output: nothing to do */
    char buf[256];
    const int32_t fmt[] = {EFU_MUL, 0, 1, EFU_CLIP, 2, 0, EFU_SIGMOID, 3, 0};
    efused_prog_t pf = {2, 3, fmt, 2, imm};
    efused_format(&pf, buf, sizeof buf);
    CHECK_MSG(!strcmp(buf, "r2 = mul(r0, r1); r3 = clip(r2, 1, 2); r4 = sigmoid(r3)"), "%s",
              buf);
    efused_format(&pf, buf, 10); /* truncated, still terminated */
    CHECK(strlen(buf) == 9);
    CHECK(efused_flops_per_element(&pf) == 13);
}

int main(void)
{
    base_pool_t *pool = NULL;
    CHECK_OK(base_pool_create(2, &pool));
    kctx_t k1 = {NULL, 1}, k2 = {pool, 2};
    check_rng_t rng = {0xf05edull};
    const efused_variant_t *vs[5];
    int nv = 0;
    for (int i = 0; i < efused_n_variants; i++)
        if (efused_variant_for(efused_variants[i].isa) == &efused_variants[i])
            vs[nv++] = &efused_variants[i];
    vs[nv++] = NULL; /* the dispatched variant */
    for (int i = 0; i < nv; i++) {
        test_each_opcode(vs[i], &k1, &rng);
        test_qdq(vs[i], &k1, &rng);
        test_qdq(vs[i], &k2, &rng);
        test_q8_io(vs[i], &k1, &rng);
        test_q8_io(vs[i], &k2, &rng);
        test_broadcast(vs[i], &k2, &rng);
        test_chains(vs[i], &k1, &rng);
        test_chains(vs[i], &k2, &rng);
    }
    test_errors();
    base_pool_destroy(pool);
    return check_finish("test_fused_eltwise");
}
