/*
 * The fast attention work item, written once over the vector macros of
 * vmath_avx512.h / vmath_avx2.h (V, VLEN, V_*, VM(exp)) and instantiated
 * per ISA with KA(name) naming the entry point.
 *
 * It works on the transposed problem, queries along vector lanes: a group
 * of G = 2 VLEN query rows keeps Q^T (pre-multiplied by scale, [D][G]) and
 * the output accumulator O^T ([Dv][G]) in scratch, and for each tile of
 * BK keys forms the score tile S^T [BK][G] by broadcasting K elements
 * against Q^T rows (4 keys x 2 vectors of FMAs per step), then updates the
 * online softmax column-wise, which needs no horizontal reductions:
 *   m' = max(m, max_j S^T[j]),  alpha = e^(m - m'),  P^T = e^(S^T - m'),
 *   l' = alpha l + sum_j P^T[j],  O^T' = alpha O^T + V^T P^T
 * (the last by broadcasting V elements against P^T rows, 4 features x 2
 * vectors per step). K and V are read in place through their strides, so
 * they are never packed or transposed; only Q^T (once per group) and the
 * final O = O^T / l are rearranged. Weights below e^-87 are flushed to
 * exact zeros (masked keys would otherwise give denormals, which make the
 * FMAs crawl). The score matrix never exists beyond one BK x G tile.
 * Errors: f32 dot products of length D (relative ~D 2^-24 of sum |q k|),
 * exp <= 1 ulp, each rescaling adds ~1 ulp.
 */
#include <math.h>
#include <string.h>

#define KA_G (2 * VLEN)
#define KA_KB (VLEN == 16 ? 8 : 4) /* keys per score step (register budget) */
#define KA_FB (VLEN == 16 ? 8 : 4) /* features per P.V step */

static inline V KA(flush_exp)(V x)
{
    return V_BLEND(V_CMP_GT(x, V_SET1(-87.0f)), V_ZERO(), VM(exp)(x));
}

void KA(block)(const kattn_params_t *p, int64_t bh, int64_t q0, int64_t q1, float *ws)
{
    const int64_t D = p->D, Dv = p->Dv, off = p->Sk - p->Sq;
    const int64_t b = bh / p->Hq, h = bh % p->Hq, g = h / (p->Hq / p->Hk);
    const int64_t ks2 = p->ks[2], ks3 = p->ks[3], vs2 = p->vs[2], vs3 = p->vs[3];
    float *qt = ws;                        /* [D][G] */
    float *ot = qt + D * KA_G;             /* [Dv][G] */
    float *st = ot + Dv * KA_G;            /* [BK + KB][G] */
    float *ml = st + (KATTN_BK + KA_KB) * KA_G; /* m [G], l [G], iota [G] */
    const float *q = p->q + b * p->qs[0] + h * p->qs[1];
    const float *k = p->k + b * p->ks[0] + g * p->ks[1];
    const float *v = p->v + b * p->vs[0] + g * p->vs[1];
    const float *mk = p->mask ? p->mask + b * p->ms[0] + h * p->ms[1] : NULL;
    float *o = p->o + b * p->os[0] + h * p->os[1];
    for (int l = 0; l < KA_G; l++)
        ml[2 * KA_G + l] = (float)l;
    const V iota0 = V_LOAD(ml + 2 * KA_G), iota1 = V_LOAD(ml + 2 * KA_G + VLEN);

    for (int64_t i0 = q0; i0 < q1; i0 += KA_G) {
        const int64_t n = q1 - i0 < KA_G ? q1 - i0 : KA_G;
        for (int64_t t = 0; t < D; t++)
            for (int64_t l = 0; l < KA_G; l++)
                qt[t * KA_G + l] = l < n ? q[(i0 + l) * p->qs[2] + t * p->qs[3]] * p->scale : 0.0f;
        memset(ot, 0, sizeof(float) * (size_t)(Dv * KA_G));
        V m0 = V_SET1(-INFINITY), m1 = m0, l0 = V_ZERO(), l1 = V_ZERO();
        int64_t kend = p->Sk;
        if (p->causal && i0 + n + off < kend)
            kend = i0 + n + off > 0 ? i0 + n + off : 0;
        for (int64_t k0 = 0; k0 < kend; k0 += KATTN_BK) {
            const int64_t nk = kend - k0 < KATTN_BK ? kend - k0 : KATTN_BK;
            /* S^T = K Q^T, 4 keys at a time (past nk: the last key again) */
            for (int64_t j = 0; j < nk; j += KA_KB) {
                const float *kr[KA_KB];
                for (int u = 0; u < KA_KB; u++)
                    kr[u] = k + (k0 + (j + u < nk ? j + u : nk - 1)) * ks2;
                V a0[KA_KB], a1[KA_KB];
                for (int u = 0; u < KA_KB; u++)
                    a0[u] = V_ZERO(), a1[u] = V_ZERO();
                for (int64_t t = 0; t < D; t++) {
                    V qa = V_LOAD(qt + t * KA_G), qb = V_LOAD(qt + t * KA_G + VLEN);
                    for (int u = 0; u < KA_KB; u++) {
                        V kb = V_SET1(kr[u][t * ks3]);
                        a0[u] = V_FMA(kb, qa, a0[u]);
                        a1[u] = V_FMA(kb, qb, a1[u]);
                    }
                }
                for (int u = 0; u < KA_KB; u++) {
                    V_STORE(st + (j + u) * KA_G, a0[u]);
                    V_STORE(st + (j + u) * KA_G + VLEN, a1[u]);
                }
            }
            /* mask, causal limit, and the tile's column max */
            V x0 = V_SET1(-INFINITY), x1 = x0;
            for (int64_t j = 0; j < nk; j++) {
                float *sr = st + j * KA_G;
                V s0 = V_LOAD(sr), s1 = V_LOAD(sr + VLEN);
                if (mk) {
                    const float *mr = mk + (k0 + j) * p->ms[3] + i0 * p->ms[2];
                    if (p->ms[2] == 0) {
                        V mv = V_SET1(mr[0]);
                        s0 = V_ADD(s0, mv), s1 = V_ADD(s1, mv);
                    } else {
                        float tmp[KA_G];
                        for (int64_t l = 0; l < KA_G; l++)
                            tmp[l] = l < n ? mr[l * p->ms[2]] : 0.0f;
                        s0 = V_ADD(s0, V_LOAD(tmp)), s1 = V_ADD(s1, V_LOAD(tmp + VLEN));
                    }
                }
                if (p->causal) {
                    /* lane l (query i0 + l) sees key k0 + j iff l >= k0 + j - off - i0 */
                    V thr = V_SET1((float)(k0 + j - off - i0));
                    s0 = V_BLEND(V_CMP_LT(iota0, thr), s0, V_SET1(-INFINITY));
                    s1 = V_BLEND(V_CMP_LT(iota1, thr), s1, V_SET1(-INFINITY));
                }
                V_STORE(sr, s0);
                V_STORE(sr + VLEN, s1);
                x0 = V_MAX(x0, s0), x1 = V_MAX(x1, s1);
            }
            V n0 = V_MAX(m0, x0), n1 = V_MAX(m1, x1);
            /* columns with nothing unmasked yet subtract 0: their weights
             * and alpha come out 0 */
            V z0 = V_BLEND(V_CMP_EQ(n0, V_SET1(-INFINITY)), n0, V_ZERO());
            V z1 = V_BLEND(V_CMP_EQ(n1, V_SET1(-INFINITY)), n1, V_ZERO());
            V al0 = KA(flush_exp)(V_SUB(m0, z0)), al1 = KA(flush_exp)(V_SUB(m1, z1));
            V sum0 = V_ZERO(), sum1 = V_ZERO();
            for (int64_t j = 0; j < nk; j++) {
                float *sr = st + j * KA_G;
                V e0 = KA(flush_exp)(V_SUB(V_LOAD(sr), z0));
                V e1 = KA(flush_exp)(V_SUB(V_LOAD(sr + VLEN), z1));
                sum0 = V_ADD(sum0, e0), sum1 = V_ADD(sum1, e1);
                V_STORE(sr, e0);
                V_STORE(sr + VLEN, e1);
            }
            l0 = V_FMA(l0, al0, sum0), l1 = V_FMA(l1, al1, sum1);
            m0 = n0, m1 = n1;
            /* O^T = alpha O^T + V^T P^T, 4 features at a time */
            int64_t f = 0;
            for (; f + KA_FB <= Dv; f += KA_FB) {
                V a0[KA_FB], a1[KA_FB];
                for (int u = 0; u < KA_FB; u++) {
                    a0[u] = V_MUL(al0, V_LOAD(ot + (f + u) * KA_G));
                    a1[u] = V_MUL(al1, V_LOAD(ot + (f + u) * KA_G + VLEN));
                }
                const float *vr = v + k0 * vs2 + f * vs3;
                for (int64_t j = 0; j < nk; j++, vr += vs2) {
                    V pa = V_LOAD(st + j * KA_G), pb = V_LOAD(st + j * KA_G + VLEN);
                    for (int u = 0; u < KA_FB; u++) {
                        V vb = V_SET1(vr[u * vs3]);
                        a0[u] = V_FMA(vb, pa, a0[u]);
                        a1[u] = V_FMA(vb, pb, a1[u]);
                    }
                }
                for (int u = 0; u < KA_FB; u++) {
                    V_STORE(ot + (f + u) * KA_G, a0[u]);
                    V_STORE(ot + (f + u) * KA_G + VLEN, a1[u]);
                }
            }
            for (; f < Dv; f++) {
                V a0 = V_MUL(al0, V_LOAD(ot + f * KA_G));
                V a1 = V_MUL(al1, V_LOAD(ot + f * KA_G + VLEN));
                const float *vr = v + k0 * vs2 + f * vs3;
                for (int64_t j = 0; j < nk; j++, vr += vs2) {
                    V vb = V_SET1(vr[0]);
                    a0 = V_FMA(vb, V_LOAD(st + j * KA_G), a0);
                    a1 = V_FMA(vb, V_LOAD(st + j * KA_G + VLEN), a1);
                }
                V_STORE(ot + f * KA_G, a0);
                V_STORE(ot + f * KA_G + VLEN, a1);
            }
        }
        /* O = O^T / l; l = 0 (no key seen) gives NaN, as Softmax of an
         * all -inf row */
        V_STORE(ml, l0);
        V_STORE(ml + VLEN, l1);
        float inv[KA_G];
        for (int64_t l = 0; l < n; l++)
            inv[l] = ml[l] > 0.0f ? 1.0f / ml[l] : NAN;
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
