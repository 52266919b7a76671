/*
 * The fast attention work item, written once over the vector macros of
 * vmath_avx512.h / vmath_avx2.h (V, VLEN, V_*) and instantiated per ISA
 * with KA(name) naming the entry point; the including file also defines
 * KA_SCALE_BITS(p, t) (the float whose bits are p's plus t's shifted left
 * by 23, i.e. p 2^n when t's low bits hold n) and KA_KEEP(m, x) (x where
 * compare mask m is set, else +0).
 *
 * It works on the transposed problem, queries along vector lanes: a group
 * of G = 2 VLEN query rows keeps Q^T (pre-multiplied by scale log2(e),
 * [D][G], so scores come out in base-2 units) and
 * the output accumulator O^T ([Dv][G]) in scratch, and for each tile of
 * BK keys
 *   1. forms the score tile S^T [BK][G] by broadcasting K elements against
 *      Q^T rows, KB keys x 2 vectors of accumulators per step, and adds the
 *      mask (a padding mask, one value per key for every query, is the
 *      accumulators' starting value instead), applies the causal limit
 *      (only on the steps that straddle the diagonal) and takes the tile's
 *      column max as the step's results are stored (no separate pass over
 *      the tile);
 *   2. updates the online softmax column-wise, which needs no horizontal
 *      reductions:
 *        m' = max(m, max_j S^T[j]),  alpha = e^(m - m'),  P^T = e^(S^T - m'),
 *        l' = alpha l + sum_j P^T[j],  O^T' = alpha O^T + V^T P^T
 *      (in base 2, the exponent always <= 0: KA(exp2_neg_v) below);
 *   3. the last by broadcasting V elements against P^T rows, FB features x
 *      2 vectors of accumulators per step.
 * On avx2 (16 registers, FMA latency 5 x 2 ports on Zen 2, 4 x 2 on Intel)
 * KB = FB = 6: 12 accumulators, enough independent chains to keep both FMA
 * ports busy, + 2 loaded vectors + 1 broadcast; 8 loads per 12 FMAs. On
 * avx512 (32 registers) KB = FB = 8: 16 accumulators. Causal groups stop at
 * their last visible key, so fully masked key tiles are never touched.
 *
 * K and V are read in place through their strides, so they are never
 * packed or transposed; only Q^T (once per group) and the final O = O^T / l
 * are rearranged (O(G D) per group against O(G Sk D) FMAs).
 *
 * FLOP floor of one head: 2 Sq Sk D (Q K^T) + 2 Sq Sk Dv (P V) FMA-FLOPs
 * (halved under the causal mask with Sq = Sk) and Sq Sk exponentials; the
 * work here beyond that is ~11 vector ops per VLEN exponentials, the
 * softmax bookkeeping of O(G) per key, and the O^T rescale (Dv x 2 vector
 * multiplies per tile, folded into the P.V accumulators' initial loads).
 *
 * Errors: f32 dot products of length D (relative ~D 2^-24 of sum |q k|),
 * 2^x <= 2.2e-7 relative (KA(exp2_neg_v)), each rescaling adds ~1 ulp.
 * Weights below 2^-125 are flushed to exact zeros (masked keys would
 * otherwise give denormals, which make the FMAs crawl).
 * Measured (Zen 2, 1 thread, [B,S,H,D] layout, MiniLM head dim 32, 12
 * heads, seq 512): 8.7 -> 7.1-7.6 ms a step, ~55 GFLOP/s against a floor
 * of ~4.2 ms (402.7 MFLOP at ~104 GFLOP/s FMA peak + 3.1M exponentials).
 * Then registers kept across the score step and Q^T / O transposed by
 * 8 x 8 blocks: seq 128 405-420 -> 370 us (68 GFLOP/s), seq 512 6.7-7.0 ->
 * 6.0-6.4 ms. Where the rest goes (seq 128, ablations): the score and P.V
 * loops at ~80 % of the FMA peak each (32-step dot products, 6-key tiles),
 * the exponentials ~12 %, the tile bookkeeping ~10 %. Copying each head's
 * K and V rows contiguous first (the [B,S,H,D] rows are 1.5 KB apart and
 * share few L1 sets) measured no faster at seq 128, 2 % at seq 512; an
 * even split of Dv = 32 over the P.V steps (6,6,5,5,5,5) slower than
 * 6,6,6,6,4,4.
 */
#include <math.h>
#include <string.h>

#if defined(__AVX2__)
#include "kernels/vmath/transpose_avx2.h"
#endif

#define KA_G (2 * VLEN)
#define KA_KB (VLEN == 16 ? 8 : 6) /* keys per score step (register budget) */
#define KA_FB (VLEN == 16 ? 8 : 6) /* features per P.V step */
#define KA_INLINE static inline __attribute__((always_inline))

/*
 * 2^x for x <= 0, the softmax's exponentials: scores are kept in base-2
 * units (Q^T carries scale log2(e), the mask is added times log2(e)), so
 * the range reduction needs no multiply and no Cody-Waite correction:
 * t = x + 1.5 2^23 rounds x to the integer n in t's low mantissa bits,
 * n = t - 1.5 2^23, r = x - n in [-1/2, 1/2] exactly (two adds and a sub,
 * which run on the FP add ports, leaving the FMA ports to the products).
 * 2^r is a degree-5 polynomial (the minimax fit of relative error to e^s
 * on |s| <= ln2/2, 7.5e-8 before rounding, rescaled to 2^r, constant term
 * 1 so that 2^0 = 1 and 2^-k are exact), and 2^n is applied by adding
 * n << 23 to p's exponent field (p in [0.70, 1.42], n >= -125: the result
 * stays normal). x < -125 (and -inf, NaN) gives +0, so weights are never
 * subnormal and masked keys contribute exact zeros. Max relative error
 * over x in [-125, 0]: 2.2e-7, ~2 ulp (test_attn checks <= 2.5e-7 through
 * kattn_exp2_neg_f32_*). 11 vector ops, 5 of them FMAs, against ~24 (13
 * on the FMA ports) for the general vmath exp.
 */
KA_INLINE V KA(exp2_neg_v)(V x)
{
    const V shift = V_SET1(12582912.0f); /* 1.5 2^23 */
    V t = V_ADD(x, shift);
    V r = V_SUB(x, V_SUB(t, shift));
    V p = V_SET1(1.32764722e-3f);
    p = V_FMA(p, r, V_SET1(9.67554133e-3f));
    p = V_FMA(p, r, V_SET1(5.55071327e-2f));
    p = V_FMA(p, r, V_SET1(2.40221197e-1f));
    p = V_FMA(p, r, V_SET1(6.93146967e-1f));
    p = V_FMA(p, r, V_SET1(1.0f));
    return KA_KEEP(V_CMP_GT(x, V_SET1(-125.0f)), KA_SCALE_BITS(p, t));
}

/* Test hook: y[i] = 2^x[i] for x[i] <= 0 (n a multiple of VLEN). */
void KA(exp2_neg)(const float *x, float *y, int64_t n)
{
    for (int64_t i = 0; i + VLEN <= n; i += VLEN)
        V_STORE(y + i, KA(exp2_neg_v)(V_LOAD(x + i)));
}

/* S^T rows of KA_KB keys (K rows kr[u], element stride ks3) against Q^T
 * [D][G], stored at st (row stride G), each row starting from mv[u] (a
 * mask value of its key for every query, in base-2 units) or with mv NULL
 * from 0; with domax (a constant after inlining) their column max also
 * goes into *x0, *x1 from the registers.
 * One function called twice (the common step and the masked one, which
 * rereads the stored rows) so that the compiler keeps the 12 accumulators
 * in registers: written inline with the masked path after the FMA loop,
 * it sent them through the stack on every step (~5 % of an s128 MiniLM
 * attention). */
KA_INLINE void KA(score_step)(const float *const kr[KA_KB], int64_t ks3, const float *qt,
                              int64_t D, float *st, V *x0, V *x1, const int domax,
                              const float *mv)
{
    V a0[KA_KB], a1[KA_KB];
    for (int u = 0; u < KA_KB; u++)
        a0[u] = a1[u] = mv ? V_SET1(mv[u]) : V_ZERO();
    const float *qr = qt;
    /* this loop and the P.V step's unrolled by 4: 12 MiniLM heads at seq
     * 512 3.16-3.25 -> 3.08-3.18 ms, seq 128 0.198-0.205 -> 0.194-0.200
     * (Xeon, 1 thread, alternating) */
#pragma GCC unroll 4
    for (int64_t t = 0, kt = 0; t < D; t++, kt += ks3, qr += KA_G) {
        V qa = V_LOAD(qr), qb = V_LOAD(qr + VLEN);
        for (int u = 0; u < KA_KB; u++) {
            V kb = V_SET1(kr[u][kt]);
            a0[u] = V_FMA(kb, qa, a0[u]);
            a1[u] = V_FMA(kb, qb, a1[u]);
        }
    }
    V m0 = *x0, m1 = *x1;
    for (int u = 0; u < KA_KB; u++) {
        V_STORE(st + u * KA_G, a0[u]);
        V_STORE(st + u * KA_G + VLEN, a1[u]);
        if (domax)
            m0 = V_MAX(m0, a0[u]), m1 = V_MAX(m1, a1[u]);
    }
    *x0 = m0, *x1 = m1;
}

#if defined(__AVX2__)
/* A full group's Q^T [D][G] = s Q rows (query l at q + l qs2, contiguous
 * along d), and its output rows O (row l at o + l os2, contiguous) =
 * O^T [Dv][G] / l, by 8 x 8 transposes in registers; D, Dv multiples of 8.
 * The scalar element-by-element copies they replace took ~10 % of an s128
 * MiniLM attention (head dim 32: 2 x 512 strided elements per 16 queries
 * against 16 x 128 x 64 FMAs). Both ISA instances are built with AVX2. */
KA_INLINE void KA(load_qt8)(float *qt, const float *q, int64_t qs2, int64_t D, float s)
{
    const __m256 vs = _mm256_set1_ps(s);
    for (int64_t l0 = 0; l0 < KA_G; l0 += 8)
        for (int64_t t0 = 0; t0 < D; t0 += 8) {
            __m256 r[8];
            for (int i = 0; i < 8; i++)
                r[i] = _mm256_loadu_ps(q + (l0 + i) * qs2 + t0);
            vm256_transpose8(r);
            for (int c = 0; c < 8; c++)
                _mm256_storeu_ps(qt + (t0 + c) * KA_G + l0, _mm256_mul_ps(r[c], vs));
        }
}

KA_INLINE void KA(store_o8)(float *o, int64_t os2, const float *ot, const float *inv,
                            int64_t Dv)
{
    for (int64_t l0 = 0; l0 < KA_G; l0 += 8) {
        const __m256 vi = _mm256_loadu_ps(inv + l0);
        for (int64_t t0 = 0; t0 < Dv; t0 += 8) {
            __m256 r[8];
            for (int c = 0; c < 8; c++)
                r[c] = _mm256_mul_ps(_mm256_loadu_ps(ot + (t0 + c) * KA_G + l0), vi);
            vm256_transpose8(r);
            for (int i = 0; i < 8; i++)
                _mm256_storeu_ps(o + (l0 + i) * os2 + t0, r[i]);
        }
    }
}
#define KA_T8 1
#else
#define KA_T8 0
#endif

/* Asks for rows [r0, r1) of `bytes` bytes, row r at base + r rs (floats),
 * into L2 (into L1 they evicted the key tile's rows: B = 1 at seq 128 on 2
 * threads, all in L2 already, ran 2-3 % slower); nothing when base is
 * NULL. */
KA_INLINE void KA(prefetch_rows)(const float *base, int64_t rs, int64_t r0, int64_t r1,
                                 size_t bytes)
{
    if (!base)
        return;
    for (int64_t r = r0; r < r1; r++) {
        const char *row = (const char *)(base + r * rs);
        for (size_t b = 0; b < bytes; b += 64)
            __builtin_prefetch(row + b, 0, 2);
        __builtin_prefetch(row + bytes - 1, 0, 2);
    }
}

/* O^T[f + u] = alpha O^T[f + u] + sum_j V[j][f + u] P^T[j] for u < nf
 * (nf <= KA_FB, a constant after inlining): 2 nf accumulators. */
KA_INLINE void KA(pv_step)(float *ot, const float *st, const float *vr, int64_t nk, int64_t vs2,
                           int64_t vs3, V al0, V al1, const int nf)
{
    V a0[KA_FB], a1[KA_FB];
    for (int u = 0; u < nf; u++) {
        a0[u] = V_MUL(al0, V_LOAD(ot + u * KA_G));
        a1[u] = V_MUL(al1, V_LOAD(ot + u * KA_G + VLEN));
    }
#pragma GCC unroll 4
    for (int64_t j = 0; j < nk; j++, vr += vs2) {
        V pa = V_LOAD(st + j * KA_G), pb = V_LOAD(st + j * KA_G + VLEN);
        for (int u = 0; u < nf; u++) {
            V vb = V_SET1(vr[u * vs3]);
            a0[u] = V_FMA(vb, pa, a0[u]);
            a1[u] = V_FMA(vb, pb, a1[u]);
        }
    }
    for (int u = 0; u < nf; u++) {
        V_STORE(ot + u * KA_G, a0[u]);
        V_STORE(ot + u * KA_G + VLEN, a1[u]);
    }
}

void KA(block)(const kattn_params_t *p, int64_t bh, int64_t q0, int64_t q1, float *ws)
{
    const int64_t D = p->D, Dv = p->Dv, off = p->Sk - p->Sq;
    const int64_t b = bh / p->Hq, h = bh % p->Hq, g = h / (p->Hq / p->Hk);
    const int64_t ks2 = p->ks[2], ks3 = p->ks[3], vs2 = p->vs[2], vs3 = p->vs[3];
    float *qt = ws;                        /* [D][G] */
    float *ot = qt + D * KA_G;             /* [Dv][G] */
    float *st = ot + Dv * KA_G;            /* [BK + KB][G] */
    float *ml = st + (KATTN_BK + KA_KB) * KA_G; /* l [G], iota [G] */
    const float *q = p->q + b * p->qs[0] + h * p->qs[1];
    const float *k = p->k + b * p->ks[0] + g * p->ks[1];
    const float *v = p->v + b * p->vs[0] + g * p->vs[1];
    const float *mk = p->mask ? p->mask + b * p->ms[0] + h * p->ms[1] : NULL;
    const int kmask = mk && p->ms[2] == 0; /* one mask row for every query */
    float *o = p->o + b * p->os[0] + h * p->os[1];
    for (int l = 0; l < KA_G; l++)
        ml[KA_G + l] = (float)l;
    const V iota0 = V_LOAD(ml + KA_G), iota1 = V_LOAD(ml + KA_G + VLEN);
    const V ninf = V_SET1(-INFINITY), log2e = V_SET1(1.44269504088896341f);
    /* scores in base-2 units: 2^(s log2 e) = e^s */
    const float qscale = p->scale * 1.44269504088896341f;

    for (int64_t i0 = q0; i0 < q1; i0 += KA_G) {
        const int64_t n = q1 - i0 < KA_G ? q1 - i0 : KA_G;
        if (KA_T8 && n == KA_G && p->qs[3] == 1 && D % 8 == 0)
            KA(load_qt8)(qt, q + i0 * p->qs[2], p->qs[2], D, qscale);
        else
            for (int64_t t = 0; t < D; t++)
                for (int64_t l = 0; l < KA_G; l++)
                    qt[t * KA_G + l] =
                        l < n ? q[(i0 + l) * p->qs[2] + t * p->qs[3]] * qscale : 0.0f;
        memset(ot, 0, sizeof(float) * (size_t)(Dv * KA_G));
        /* asked for during the first key tile: the next group's Q rows and
         * this group's O rows, which come from and go to L3 or memory when
         * the QKV tensor outgrows L2 (`perf`, MiniLM at seq 128, batch 8,
         * 1 thread, Zen 4: loading Q^T 9 % of the time, storing O 6 %;
         * with the prefetches 3 % and 1.4 %, the step 2.42 -> 2.25 ms,
         * alternating medians; 2 threads and batch 1 level) */
        const int64_t nqn = q1 - i0 - KA_G > KA_G ? KA_G : q1 - i0 - KA_G;
        const float *qn = nqn > 0 ? q + (i0 + KA_G) * p->qs[2] : NULL;
        const size_t qbytes = (size_t)((D - 1) * p->qs[3] + 1) * sizeof(float);
        float *on = o + i0 * p->os[2];
        const size_t obytes = (size_t)((Dv - 1) * p->os[3] + 1) * sizeof(float);
        V m0 = ninf, m1 = ninf, l0 = V_ZERO(), l1 = V_ZERO();
        /* causal: lane l (query i0 + l) sees keys up to i0 + l + off */
        int64_t kend = p->Sk;
        if (p->causal && i0 + n + off < kend)
            kend = i0 + n + off > 0 ? i0 + n + off : 0;
        for (int64_t k0 = 0; k0 < kend; k0 += KATTN_BK) {
            const int64_t nk = kend - k0 < KATTN_BK ? kend - k0 : KATTN_BK;
            /* 1. S^T = K Q^T + mask, KB keys at a time (past nk: the last
             * key again, so the max is unchanged), and its column max */
            V x0 = ninf, x1 = ninf;
            /* the first tile's steps share out the prefetches (rps rows
             * of each a step) */
            const int64_t rps = k0 ? 0 : (KA_G * KA_KB + nk - 1) / nk;
            for (int64_t j = 0; j < nk; j += KA_KB) {
                const float *kr[KA_KB];
                int64_t kj[KA_KB];
                for (int u = 0; u < KA_KB; u++) {
                    kj[u] = k0 + (j + u < nk ? j + u : nk - 1);
                    kr[u] = k + kj[u] * ks2;
                }
                if (rps) {
                    const int64_t r0 = j / KA_KB * rps;
                    KA(prefetch_rows)(qn, p->qs[2], r0, r0 + rps < nqn ? r0 + rps : nqn, qbytes);
                    KA(prefetch_rows)(on, p->os[2], r0, r0 + rps < n ? r0 + rps : n, obytes);
                }
                /* the step straddles the causal diagonal of this group
                 * when its last key lies past the first query's limit */
                const int diag = p->causal && kj[KA_KB - 1] > i0 + off;
                if (!mk && !diag) { /* the common step */
                    KA(score_step)(kr, ks3, qt, D, st + j * KA_G, &x0, &x1, 1, NULL);
                    continue;
                }
                /* a mask of keys: it starts the sums (the separate pass
                 * below cost a padding-masked s128 MiniLM attention 11 %:
                 * batch 8, 1 thread, Zen 4, 2.57 -> 2.28 ms with the
                 * prefetches above, as fast as with no mask) */
                if (kmask && !diag) {
                    float mv[KA_KB];
                    for (int u = 0; u < KA_KB; u++)
                        mv[u] = mk[kj[u] * p->ms[3]] * 1.44269504088896341f;
                    KA(score_step)(kr, ks3, qt, D, st + j * KA_G, &x0, &x1, 1, mv);
                    continue;
                }
                KA(score_step)(kr, ks3, qt, D, st + j * KA_G, &x0, &x1, 0, NULL);
                for (int u = 0; u < KA_KB; u++) {
                    V s0 = V_LOAD(st + (j + u) * KA_G), s1 = V_LOAD(st + (j + u) * KA_G + VLEN);
                    if (mk) {
                        const float *mr = mk + kj[u] * p->ms[3] + i0 * p->ms[2];
                        if (p->ms[2] == 0) {
                            V mv = V_SET1(mr[0]);
                            s0 = V_FMA(mv, log2e, s0), s1 = V_FMA(mv, log2e, s1);
                        } else {
                            float tmp[KA_G];
                            for (int64_t l = 0; l < KA_G; l++)
                                tmp[l] = l < n ? mr[l * p->ms[2]] : 0.0f;
                            s0 = V_FMA(V_LOAD(tmp), log2e, s0);
                            s1 = V_FMA(V_LOAD(tmp + VLEN), log2e, s1);
                        }
                    }
                    if (diag) {
                        V thr = V_SET1((float)(kj[u] - off - i0));
                        s0 = V_BLEND(V_CMP_LT(iota0, thr), s0, ninf);
                        s1 = V_BLEND(V_CMP_LT(iota1, thr), s1, ninf);
                    }
                    V_STORE(st + (j + u) * KA_G, s0);
                    V_STORE(st + (j + u) * KA_G + VLEN, s1);
                    x0 = V_MAX(x0, s0), x1 = V_MAX(x1, s1);
                }
            }
            /* 2. the online softmax; columns with nothing unmasked yet
             * subtract 0: their weights and alpha come out 0 */
            V n0 = V_MAX(m0, x0), n1 = V_MAX(m1, x1);
            V z0 = V_BLEND(V_CMP_EQ(n0, ninf), n0, V_ZERO());
            V z1 = V_BLEND(V_CMP_EQ(n1, ninf), n1, V_ZERO());
            V al0 = KA(exp2_neg_v)(V_SUB(m0, z0)), al1 = KA(exp2_neg_v)(V_SUB(m1, z1));
            /* one half of the tile at a time: the exp's 11 constants, z,
             * the sum and the pointer fit in the 16 registers of avx2 */
            V sum0 = V_ZERO(), sum1 = V_ZERO();
            for (float *sr = st; sr < st + nk * KA_G; sr += KA_G) {
                V e = KA(exp2_neg_v)(V_SUB(V_LOAD(sr), z0));
                sum0 = V_ADD(sum0, e);
                V_STORE(sr, e);
            }
            for (float *sr = st + VLEN; sr < st + nk * KA_G; sr += KA_G) {
                V e = KA(exp2_neg_v)(V_SUB(V_LOAD(sr), z1));
                sum1 = V_ADD(sum1, e);
                V_STORE(sr, e);
            }
            l0 = V_FMA(l0, al0, sum0), l1 = V_FMA(l1, al1, sum1);
            m0 = n0, m1 = n1;
            /* 3. O^T = alpha O^T + V^T P^T, FB features at a time; a
             * remainder between FB and 2 FB is split in two near-equal
             * steps (e.g. 8 = 4 + 4, not 6 + 2: 4 accumulators would wait
             * on the FMA latency) */
            const float *vk = v + k0 * vs2;
            for (int64_t f = 0; f < Dv;) {
                const int64_t r = Dv - f;
                const int nf = (int)(r >= 2 * KA_FB ? KA_FB : r > KA_FB ? (r + 1) / 2 : r);
                float *of = ot + f * KA_G;
                const float *vf = vk + f * vs3;
                switch (nf) {
#if KA_FB > 6
                case 8: KA(pv_step)(of, st, vf, nk, vs2, vs3, al0, al1, 8); break;
                case 7: KA(pv_step)(of, st, vf, nk, vs2, vs3, al0, al1, 7); break;
#endif
                case 6: KA(pv_step)(of, st, vf, nk, vs2, vs3, al0, al1, 6); break;
                case 5: KA(pv_step)(of, st, vf, nk, vs2, vs3, al0, al1, 5); break;
                case 4: KA(pv_step)(of, st, vf, nk, vs2, vs3, al0, al1, 4); break;
                case 3: KA(pv_step)(of, st, vf, nk, vs2, vs3, al0, al1, 3); break;
                case 2: KA(pv_step)(of, st, vf, nk, vs2, vs3, al0, al1, 2); break;
                default: KA(pv_step)(of, st, vf, nk, vs2, vs3, al0, al1, 1); break;
                }
                f += nf;
            }
        }
        /* O = O^T / l; l = 0 (no key seen) gives NaN, as Softmax of an
         * all -inf row */
        V_STORE(ml, l0);
        V_STORE(ml + VLEN, l1);
        float inv[KA_G];
        for (int64_t l = 0; l < n; l++)
            inv[l] = ml[l] > 0.0f ? 1.0f / ml[l] : NAN;
        if (KA_T8 && n == KA_G && p->os[3] == 1 && Dv % 8 == 0) {
            KA(store_o8)(o + i0 * p->os[2], p->os[2], ot, inv, Dv);
            continue;
        }
        for (int64_t l = 0; l < n; l++) {
            float *orow = o + (i0 + l) * p->os[2];
            if (p->os[3] == 1)
                for (int64_t t = 0; t < Dv; t++)
                    orow[t] = ot[t * KA_G + l] * inv[l];
            else
                for (int64_t t = 0; t < Dv; t++)
                    orow[t * p->os[3]] = ot[t * KA_G + l] * inv[l];
        }
    }
}
