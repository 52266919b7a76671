/*
 * The fast attention work item, written once over the vector macros of
 * vmath_avx512.h / vmath_avx2.h (V, VLEN, V_*, VM(exp)) and instantiated
 * per ISA with KA(name) naming the entry point.
 *
 * A work item owns query rows [q0, q1) of one (b, h). Its rows are packed
 * pre-multiplied by scale ([BQ][D]); for each tile of BK keys, K is packed
 * transposed ([D][BK]) and V row-major with Dv padded to whole vectors
 * ([BK][Dvp]). Groups of R = 4 query rows then form their 4 x BK score tile
 * in 4 x NV vector registers (one K^T row load feeds 4 broadcast FMAs),
 * add the mask, apply the causal limit, and fold the tile into the online
 * softmax: m' = max(m, max_j s), alpha = e^(m - m'), p = e^(s - m'),
 * l' = alpha l + sum p, acc' = alpha acc + p V. The P.V update keeps a
 * 4-row x up-to-4-vector block of acc in registers across the tile's keys.
 * Finally each row is acc / l. The score matrix never exists beyond one
 * 4 x BK tile. Errors: f32 dot products of length D (relative ~D 2^-24 of
 * sum |q k|), exp <= 1 ulp, online rescaling adds ~1 ulp per tile.
 */
#include <math.h>
#include <string.h>

#define KA_R 4
#define KA_NV (KATTN_BK / VLEN)

/* acc rows r0..r0+3 (stride ldc), vector columns c..c+nvc-1, += p (4 rows of
 * BK, stride BK) times vp (nk rows of ldv). nvc is a literal at each call. */
static inline __attribute__((always_inline)) void KA(pv)(float *acc, int64_t ldc, const float *p, const float *vp,
                         int64_t ldv, int64_t nk, int c, int nvc)
{
    V a[KA_R][4];
    for (int r = 0; r < KA_R; r++)
        for (int v = 0; v < nvc; v++)
            a[r][v] = V_LOAD(acc + r * ldc + (c + v) * VLEN);
    for (int64_t j = 0; j < nk; j++) {
        V bv[4];
        for (int v = 0; v < nvc; v++)
            bv[v] = V_LOAD(vp + j * ldv + (c + v) * VLEN);
        for (int r = 0; r < KA_R; r++) {
            V pr = V_SET1(p[r * KATTN_BK + j]);
            for (int v = 0; v < nvc; v++)
                a[r][v] = V_FMA(pr, bv[v], a[r][v]);
        }
    }
    for (int r = 0; r < KA_R; r++)
        for (int v = 0; v < nvc; v++)
            V_STORE(acc + r * ldc + (c + v) * VLEN, a[r][v]);
}

void KA(block)(const kattn_params_t *p, int64_t bh, int64_t q0, int64_t q1, float *ws)
{
    const int64_t D = p->D, Dv = p->Dv, Dvp = (Dv + VLEN - 1) / VLEN * VLEN;
    const int64_t b = bh / p->Hq, h = bh % p->Hq, g = h / (p->Hq / p->Hk);
    const int64_t nq = q1 - q0, nqp = (nq + KA_R - 1) / KA_R * KA_R, off = p->Sk - p->Sq;
    float *qp = ws;                   /* [BQ][D] */
    float *kt = qp + KATTN_BQ * D;    /* [D][BK] */
    float *vp = kt + D * KATTN_BK;    /* [BK][Dvp] */
    float *acc = vp + KATTN_BK * Dvp; /* [BQ][Dvp] */
    float *sb = acc + KATTN_BQ * Dvp; /* [R][BK] */
    float *m = sb + KA_R * KATTN_BK;  /* [BQ] */
    float *l = m + KATTN_BQ;          /* [BQ] */
    const float *q = p->q + b * p->qs[0] + h * p->qs[1];
    const float *k = p->k + b * p->ks[0] + g * p->ks[1];
    const float *v = p->v + b * p->vs[0] + g * p->vs[1];
    const float *mk = p->mask ? p->mask + b * p->ms[0] + h * p->ms[1] : NULL;

    for (int64_t r = 0; r < nqp; r++)
        for (int64_t t = 0; t < D; t++)
            qp[r * D + t] = r < nq ? q[(q0 + r) * p->qs[2] + t * p->qs[3]] * p->scale : 0.0f;
    memset(acc, 0, sizeof(float) * (size_t)(nqp * Dvp));
    for (int64_t r = 0; r < nqp; r++)
        m[r] = -INFINITY, l[r] = 0.0f;
    memset(vp, 0, sizeof(float) * (size_t)(KATTN_BK * Dvp));

    int64_t kend = p->Sk;
    if (p->causal && q1 - 1 + off + 1 < kend)
        kend = q1 - 1 + off + 1;
    for (int64_t k0 = 0; k0 < kend; k0 += KATTN_BK) {
        const int64_t nk = kend - k0 < KATTN_BK ? kend - k0 : KATTN_BK;
        for (int64_t t = 0; t < D; t++) {
            for (int64_t j = 0; j < nk; j++)
                kt[t * KATTN_BK + j] = k[(k0 + j) * p->ks[2] + t * p->ks[3]];
            for (int64_t j = nk; j < KATTN_BK; j++)
                kt[t * KATTN_BK + j] = 0.0f;
        }
        if (p->vs[3] == 1)
            for (int64_t j = 0; j < nk; j++)
                memcpy(vp + j * Dvp, v + (k0 + j) * p->vs[2], sizeof(float) * (size_t)Dv);
        else
            for (int64_t j = 0; j < nk; j++)
                for (int64_t t = 0; t < Dv; t++)
                    vp[j * Dvp + t] = v[(k0 + j) * p->vs[2] + t * p->vs[3]];

        for (int64_t r0 = 0; r0 < nqp; r0 += KA_R) {
            /* causal: rows whose limit is below this tile have nothing here */
            if (p->causal && q0 + r0 + KA_R - 1 + off < k0)
                continue;
            V s[KA_R][KA_NV];
            for (int r = 0; r < KA_R; r++)
                for (int c = 0; c < KA_NV; c++)
                    s[r][c] = V_ZERO();
            const float *qr = qp + r0 * D;
            for (int64_t t = 0; t < D; t++) {
                V kv[KA_NV];
                for (int c = 0; c < KA_NV; c++)
                    kv[c] = V_LOAD(kt + t * KATTN_BK + c * VLEN);
                for (int r = 0; r < KA_R; r++) {
                    V qb = V_SET1(qr[r * D + t]);
                    for (int c = 0; c < KA_NV; c++)
                        s[r][c] = V_FMA(qb, kv[c], s[r][c]);
                }
            }
            for (int r = 0; r < KA_R; r++)
                for (int c = 0; c < KA_NV; c++)
                    V_STORE(sb + r * KATTN_BK + c * VLEN, s[r][c]);

            /* the softmax update in phases over the 4 rows, so the rows'
             * dependency chains (max, exp, sums) overlap */
            float mnew[KA_R], alpha[KA_R];
            int live[KA_R];
            for (int r = 0; r < KA_R; r++) {
                float *sr = sb + r * KATTN_BK;
                const int64_t row = r0 + r, i = q0 + row;
                live[r] = row < nq;
                if (!live[r])
                    continue;
                if (mk) {
                    const float *mr = mk + i * p->ms[2] + k0 * p->ms[3];
                    if (p->ms[3] == 1)
                        for (int64_t j = 0; j < nk; j++)
                            sr[j] += mr[j];
                    else
                        for (int64_t j = 0; j < nk; j++)
                            sr[j] += mr[j * p->ms[3]];
                }
                int64_t lim = nk; /* keys [lim, BK) of the tile are masked */
                if (p->causal && i + off + 1 - k0 < lim)
                    lim = i + off + 1 - k0 > 0 ? i + off + 1 - k0 : 0;
                for (int64_t j = lim; j < KATTN_BK; j++)
                    sr[j] = -INFINITY;
            }
            for (int r = 0; r < KA_R; r++) {
                const float *sr = sb + r * KATTN_BK;
                V mv = V_LOAD(sr);
                for (int c = 1; c < KA_NV; c++)
                    mv = V_MAX(mv, V_LOAD(sr + c * VLEN));
                float tmax = V_HMAX(mv), mo = live[r] ? m[r0 + r] : 0.0f;
                mnew[r] = tmax > mo ? tmax : mo;
                if (!live[r] || mnew[r] == -INFINITY || mnew[r] != mnew[r]) {
                    /* nothing unmasked yet (or NaN scores: let them through
                     * to the output as Softmax would) */
                    if (live[r] && mnew[r] != mnew[r])
                        l[r0 + r] = NAN;
                    live[r] = 0;
                    mnew[r] = 0.0f;
                    alpha[r] = 1.0f;
                } else {
                    alpha[r] = mo == mnew[r] ? 1.0f : expf(mo - mnew[r]);
                }
            }
            V sum[KA_R];
            for (int r = 0; r < KA_R; r++) {
                float *sr = sb + r * KATTN_BK;
                V mn = V_SET1(mnew[r]);
                sum[r] = V_ZERO();
                for (int c = 0; c < KA_NV; c++) {
                    /* weights below e^-87 become exact zeros: masked keys
                     * would otherwise give denormals, which make the P.V
                     * FMAs crawl; dead rows get zeros throughout */
                    V x = V_SUB(V_LOAD(sr + c * VLEN), mn);
                    if (!live[r])
                        x = V_SET1(-INFINITY);
                    V e = V_BLEND(V_CMP_GT(x, V_SET1(-87.0f)), V_ZERO(), VM(exp)(x));
                    sum[r] = V_ADD(sum[r], e);
                    V_STORE(sr + c * VLEN, e);
                }
            }
            for (int r = 0; r < KA_R; r++) {
                if (!live[r])
                    continue;
                const int64_t row = r0 + r;
                l[row] = l[row] * alpha[r] + V_HSUM(sum[r]);
                m[row] = mnew[r];
                if (alpha[r] != 1.0f) {
                    V av = V_SET1(alpha[r]);
                    float *ar = acc + row * Dvp;
                    for (int64_t t = 0; t < Dvp; t += VLEN)
                        V_STORE(ar + t, V_MUL(av, V_LOAD(ar + t)));
                }
            }
            const int64_t nvt = Dvp / VLEN;
            float *ar = acc + r0 * Dvp;
            int c = 0;
            for (; c + 4 <= nvt; c += 4)
                KA(pv)(ar, Dvp, sb, vp, Dvp, nk, c, 4);
            if (c + 2 <= nvt)
                KA(pv)(ar, Dvp, sb, vp, Dvp, nk, c, 2), c += 2;
            if (c < nvt)
                KA(pv)(ar, Dvp, sb, vp, Dvp, nk, c, 1);
        }
    }
    float *o = p->o + b * p->os[0] + h * p->os[1];
    for (int64_t r = 0; r < nq; r++) {
        float inv = 1.0f / l[r]; /* l = 0: every key masked -> NaN (0 * inf) */
        const float *ar = acc + r * Dvp;
        float *orow = o + (q0 + r) * p->os[2];
        if (l[r] == 0.0f)
            inv = NAN;
        if (p->os[3] == 1)
            for (int64_t t = 0; t < Dv; t++)
                orow[t] = ar[t] * inv;
        else
            for (int64_t t = 0; t < Dv; t++)
                orow[t * p->os[3]] = ar[t] * inv;
    }
}
