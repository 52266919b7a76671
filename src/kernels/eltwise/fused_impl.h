/*
 * The vector evaluator of fused elementwise programs (fused.h), written
 * over the macros of one vmath ISA header and instantiated by x86_avx2.c
 * and x86_avx512.c, which define EFUSED_FN (the function's name), KX_SQRT
 * and KX_XOR before including it.
 *
 * The output range is walked in blocks of at most EFUSED_BLOCK elements
 * (cut short where a row input wraps, so every operand of a block is
 * contiguous). Per block, each instruction runs as one vector loop over
 * the block: its operands are pointers straight into the inputs, into the
 * scratch block of an earlier instruction, or into a constant block
 * (immediates and scalar inputs, filled once per call, and rows shorter
 * than a block, tiled once per call); the last
 * instruction writes the output directly. So the program is interpreted
 * once per block, not per element, and each input and the output are
 * touched once. Tails use masked loads and stores: no element outside
 * the range is read or written.
 */
#ifndef EFUSED_FN
#error "include from an ISA file that defines EFUSED_FN"
#endif

/* One loop of the block over the vectors of m elements: x and y are the
 * operands (y == x for unary ops), EXPR the result. Tail lanes load 1.0,
 * harmless to every op, and are not stored. */
#define KX_LOOP(EXPR)                                                       \
    do {                                                                    \
        int64_t t = 0;                                                      \
        for (; t + VLEN <= m; t += VLEN) {                                  \
            const V x = V_LOAD(pa + t), y = V_LOAD(pb + t);                 \
            (void)y;                                                        \
            V_STORE(d + t, (EXPR));                                         \
        }                                                                   \
        if (t < m) {                                                        \
            const V x = V_LOADN(pa + t, m - t, 1.0f);                       \
            const V y = V_LOADN(pb + t, m - t, 1.0f);                       \
            (void)y;                                                        \
            V_STOREN(d + t, m - t, (EXPR));                                 \
        }                                                                   \
    } while (0)

/* x's 8-bit elements [0, m) as floats into d (KX_WIDEN_U8 / _I8: VLEN of
 * them from the ISA file) */
static inline void kx_widen(float *restrict d, const void *x, cairn_dtype_t dt, int64_t m)
{
    int64_t t = 0;
    if (dt == CAIRN_U8) {
        const uint8_t *restrict q = x;
        for (; t + VLEN <= m; t += VLEN)
            V_STORE(d + t, KX_WIDEN_U8(q + t));
        for (; t < m; t++)
            d[t] = (float)q[t];
    } else {
        const int8_t *restrict q = x;
        for (; t + VLEN <= m; t += VLEN)
            V_STORE(d + t, KX_WIDEN_I8(q + t));
        for (; t < m; t++)
            d[t] = (float)q[t];
    }
}

/* s's m floats (whole numbers in the type's range: a quant's values) as u8
 * / i8 into o (KX_NARROW_U8 / _I8: VLEN of them from the ISA file) */
static inline void kx_narrow(void *o, cairn_dtype_t dt, const float *restrict s, int64_t m)
{
    int64_t t = 0;
    if (dt == CAIRN_U8) {
        uint8_t *restrict q = o;
        for (; t + VLEN <= m; t += VLEN)
            KX_NARROW_U8(q + t, V_LOAD(s + t));
        for (; t < m; t++)
            q[t] = (uint8_t)(int32_t)s[t];
    } else {
        int8_t *restrict q = o;
        for (; t + VLEN <= m; t += VLEN)
            KX_NARROW_I8(q + t, V_LOAD(s + t));
        for (; t < m; t++)
            q[t] = (int8_t)(int32_t)s[t];
    }
}

static inline int kx_q8(cairn_dtype_t dt) { return dt == CAIRN_U8 || dt == CAIRN_I8; }

static inline V kx_quant(V x, V s, V z, V lo, V hi, V magic, V zero)
{
    V q = V_DIV(x, s);
    q = V_BLEND(V_CMP_EQ(q, q), zero, q);
    q = V_ADD(V_SUB(V_ADD(q, magic), magic), z);
    return V_MIN(V_MAX(q, lo), hi);
}

static inline V kx_qdq(V x, V s, V z, V lo, V hi, V magic, V zero)
{
    return V_MUL(V_SUB(kx_quant(x, s, z, lo, hi, magic, zero), z), s);
}

/* The commonest 8-bit program, a quantised residual sum (QLinearAdd, a QDQ
 * model's Add -> Relu -> QuantizeLinear): r2 = dequant(r0), r3 =
 * dequant(r1), r4 = add(r2, r3), [r5 = relu(r4),] quant; both inputs full
 * and 8-bit, the output 8-bit. One pass with every value in registers:
 * the interpreter's blocks cost ~2 cycles an element here, mostly in
 * their loads and stores of scratch. The same operations, so the same
 * bits. The add's operands in either order (a QDQ model's Add reads the
 * residual second or first): the sum is the same, and a NaN, whose
 * payload the order picks, quantises to the zero point either way.
 * Returns 0 when the program is not of this form. */
static int kx_qadd(const efused_prog_t *p, const efused_input_t *in, void *out,
                   cairn_dtype_t out_dt, int64_t i0, int64_t i1)
{
    const int32_t *c = p->code;
    const int relu = p->n_instr == 5;
    if (p->n_in != 2 || (p->n_instr != 4 && p->n_instr != 5) || !kx_q8(out_dt) ||
        !kx_q8(in[0].dt) || !kx_q8(in[1].dt) || in[0].len != in[1].len || in[0].len < i1 ||
        c[0] != EFU_DEQUANT || c[1] != 0 || c[3] != EFU_DEQUANT || c[4] != 1 || c[6] != EFU_ADD ||
        !((c[7] == 2 && c[8] == 3) || (c[7] == 3 && c[8] == 2)) ||
        (relu && (c[9] != EFU_RELU || c[10] != 4)) ||
        c[3 * (p->n_instr - 1)] != EFU_QUANT || c[3 * (p->n_instr - 1) + 1] != p->n_instr)
        return 0;
    const float *im = p->imm;
    const V za = V_SET1(im[c[2]]), sa = V_SET1(im[c[2] + 1]);
    const V zb = V_SET1(im[c[5]]), sb = V_SET1(im[c[5] + 1]);
    const int qb = c[3 * (p->n_instr - 1) + 2];
    const V qs = V_SET1(im[qb]), qz = V_SET1(im[qb + 1]), qlo = V_SET1(im[qb + 2]);
    const V qhi = V_SET1(im[qb + 3]), magic = V_SET1(12582912.0f), zero = V_ZERO();
    const char *a = in[0].p, *b = in[1].p;
    char *o = out;
    _Alignas(64) float t[VLEN];
    int64_t i = i0;
    for (; i + VLEN <= i1; i += VLEN) {
        const V xa = in[0].dt == CAIRN_U8 ? KX_WIDEN_U8(a + i) : KX_WIDEN_I8(a + i);
        const V xb = in[1].dt == CAIRN_U8 ? KX_WIDEN_U8(b + i) : KX_WIDEN_I8(b + i);
        V v = V_ADD(V_MUL(V_SUB(xa, za), sa), V_MUL(V_SUB(xb, zb), sb));
        if (relu)
            v = V_MAX(zero, v);
        v = kx_quant(v, qs, qz, qlo, qhi, magic, zero);
        if (out_dt == CAIRN_U8)
            KX_NARROW_U8(o + (i - i0), v);
        else
            KX_NARROW_I8(o + (i - i0), v);
    }
    if (i < i1) { /* the tail through a block of floats */
        const int64_t m = i1 - i;
        float wa[VLEN], wb[VLEN];
        kx_widen(wa, a + i, in[0].dt, m);
        kx_widen(wb, b + i, in[1].dt, m);
        const V xa = V_LOADN(wa, m, 0.0f), xb = V_LOADN(wb, m, 0.0f);
        V v = V_ADD(V_MUL(V_SUB(xa, za), sa), V_MUL(V_SUB(xb, zb), sb));
        if (relu)
            v = V_MAX(zero, v);
        V_STORE(t, kx_quant(v, qs, qz, qlo, qhi, magic, zero));
        kx_narrow(o + (i - i0), out_dt, t, m);
    }
    return 1;
}

void EFUSED_FN(const efused_prog_t *p, const efused_input_t *in, void *out, cairn_dtype_t out_dt,
               int64_t n, int64_t i0, int64_t i1)
{
    (void)n;
    if (kx_qadd(p, in, out, out_dt, i0, i1))
        return;
    const int n_in = p->n_in, n_instr = p->n_instr;
    const int32_t *code = p->code;
    /* one block per register: inputs (scalar, or a short row tiled) and
     * instruction results */
    _Alignas(64) float scratch[EFUSED_MAX_REGS][EFUSED_BLOCK];
    /* a row shorter than a block, repeated over a block plus one row, so
     * that the block starting at any phase i % len is contiguous in it */
    _Alignas(64) float tile[EFUSED_MAX_IN][2 * EFUSED_BLOCK];
    const float *src[EFUSED_MAX_REGS];
    /* an 8-bit input's values as floats: for a scalar or a short row the
     * one element or the row first (then filled as an f32 one), a full
     * input per block into its scratch block */
    _Alignas(64) float wide[EFUSED_MAX_IN][EFUSED_BLOCK];
    const float *fp[EFUSED_MAX_IN];
    for (int k = 0; k < n_in; k++) {
        const int64_t len = in[k].len;
        fp[k] = in[k].p;
        if (kx_q8(in[k].dt) && len < EFUSED_BLOCK) {
            kx_widen(wide[k], in[k].p, in[k].dt, len);
            fp[k] = wide[k];
        }
        if (len == 1) {
            for (int t = 0; t < EFUSED_BLOCK; t++)
                scratch[k][t] = fp[k][0];
        } else if (len < EFUSED_BLOCK) {
            for (int64_t t = 0, f = 0; t < EFUSED_BLOCK + len; t++) {
                tile[k][t] = fp[k][f];
                if (++f == len)
                    f = 0;
            }
        }
    }
    for (int j = 0; j < n_instr; j++)
        if (code[3 * j] == EFU_IMM) {
            float c = p->imm[code[3 * j + 1]];
            for (int t = 0; t < EFUSED_BLOCK; t++)
                scratch[n_in + j][t] = c;
        }
    const V vzero = V_ZERO(), vone = V_SET1(1.0f);
    for (int64_t i = i0; i < i1;) {
        int64_t m = i1 - i < EFUSED_BLOCK ? i1 - i : EFUSED_BLOCK;
        /* rows of at least a block are read in place (the block ends where
         * one wraps); shorter rows from their tile */
        for (int k = 0; k < n_in; k++) {
            const int64_t len = in[k].len;
            if (len == 1 || len < EFUSED_BLOCK)
                continue;
            const int64_t left = len - i % len;
            if (left < m)
                m = left;
        }
        for (int k = 0; k < n_in; k++) {
            const int64_t len = in[k].len;
            if (len == 1) {
                src[k] = scratch[k];
            } else if (len < EFUSED_BLOCK) {
                src[k] = tile[k] + i % len;
            } else if (kx_q8(in[k].dt)) {
                kx_widen(scratch[k], (const char *)in[k].p + i % len, in[k].dt, m);
                src[k] = scratch[k];
            } else {
                src[k] = (const float *)in[k].p + i % len;
            }
        }
        for (int j = 0; j < n_instr; j++) {
            const int opc = code[3 * j], r = n_in + j, b = code[3 * j + 2];
            if (opc == EFU_IMM) {
                src[r] = scratch[r];
                continue;
            }
            const float *pa = src[code[3 * j + 1]];
            const float *pb = opc >= EFU_ADD && opc <= EFU_MAX ? src[b] : pa;
            /* the last instruction straight into an f32 output; an 8-bit
             * output's block through its scratch, narrowed after */
            float *d = j == n_instr - 1 && !kx_q8(out_dt) ? (float *)out + (i - i0) : scratch[r];
            switch (opc) {
            case EFU_ADD: KX_LOOP(V_ADD(x, y)); break;
            case EFU_SUB: KX_LOOP(V_SUB(x, y)); break;
            case EFU_MUL: KX_LOOP(V_MUL(x, y)); break;
            case EFU_DIV: KX_LOOP(V_DIV(x, y)); break;
            /* x86 min/max give y when x is NaN; Min/Max keep x's NaN */
            case EFU_MIN: KX_LOOP(V_BLEND(V_CMP_EQ(x, x), x, V_MIN(x, y))); break;
            case EFU_MAX: KX_LOOP(V_BLEND(V_CMP_EQ(x, x), x, V_MAX(x, y))); break;
            case EFU_NEG: KX_LOOP(KX_XOR(x, V_SET1(-0.0f))); break;
            case EFU_ABS: KX_LOOP(V_ABS(x)); break;
            case EFU_RELU: KX_LOOP(V_MAX(vzero, x)); break; /* NaN, -0 pass (second operand) */
            case EFU_SQRT: KX_LOOP(KX_SQRT(x)); break;
            case EFU_RECIP: KX_LOOP(V_DIV(vone, x)); break;
            case EFU_EXP: KX_LOOP(VM(exp)(x)); break;
            case EFU_LOG: KX_LOOP(VM(log)(x)); break;
            case EFU_TANH: KX_LOOP(VM(tanh)(x)); break;
            case EFU_SIGMOID: KX_LOOP(VM(sigmoid)(x)); break;
            case EFU_ERF: KX_LOOP(VM(erf)(x)); break;
            case EFU_GELU_ERF: KX_LOOP(VM(gelu_erf)(x)); break;
            case EFU_GELU_TANH: KX_LOOP(VM(gelu_tanh)(x)); break;
            case EFU_CLIP: {
                /* x < lo ? (lo > hi ? hi : lo) : (x > hi ? hi : x), as unary.c */
                const float lo = p->imm[b], hi = p->imm[b + 1];
                const V vlo = V_SET1(lo > hi ? hi : lo), vhi = V_SET1(hi), vl = V_SET1(lo);
                KX_LOOP(V_BLEND(V_CMP_LT(x, vl), V_BLEND(V_CMP_GT(x, vhi), x, vhi), vlo));
                break;
            }
            case EFU_LEAKY: {
                const V va = V_SET1(p->imm[b]);
                KX_LOOP(V_BLEND(V_CMP_LT(x, vzero), x, V_MUL(va, x)));
                break;
            }
            case EFU_QDQ:
            case EFU_QUANT: {
                /* q = x / s, NaN -> 0, rounded half to even by adding and
                 * subtracting 1.5 2^23 (exact below 2^22; any larger |q|
                 * saturates either way), + z, clamped; qdq: (q - z) * s */
                const V vs = V_SET1(p->imm[b]), vz = V_SET1(p->imm[b + 1]);
                const V vlo = V_SET1(p->imm[b + 2]), vhi = V_SET1(p->imm[b + 3]);
                const V magic = V_SET1(12582912.0f);
                if (opc == EFU_QDQ)
                    KX_LOOP(kx_qdq(x, vs, vz, vlo, vhi, magic, vzero));
                else
                    KX_LOOP(kx_quant(x, vs, vz, vlo, vhi, magic, vzero));
                break;
            }
            case EFU_DEQUANT: {
                const V vz = V_SET1(p->imm[b]), vs = V_SET1(p->imm[b + 1]);
                KX_LOOP(V_MUL(V_SUB(x, vz), vs));
                break;
            }
            default: break;
            }
            src[r] = d;
        }
        if (kx_q8(out_dt))
            kx_narrow((char *)out + (i - i0), out_dt, scratch[n_in + n_instr - 1], m);
        i += m;
    }
}

#undef KX_LOOP
