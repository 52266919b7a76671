/*
 * The plane loops of the fast f32 pooling kernels (fast.h), written over
 * the vector macros of one ISA file (x86_avx2.c, x86_avx512.c) and
 * instantiated there; KP(name) names the instance. PN lanes of f32 (pv),
 * PN/2 of f64 (pd) per vector.
 *
 * 2-D Max / Average: input rows are copied once into a ring of padded rows
 * (kh rows, each: pbw fill values, the W inputs, fill up to PW) whose fill
 * is the pooling's neutral element (-inf for max, 0 for average), so every
 * output vector, borders and ceil-mode windows included, is PN outputs
 * computed with plain loads (stride 1), a two-load de-interleave (stride
 * 2) or a gather, with no per-lane window clipping. Input rows outside the
 * image are skipped. Outputs go up to four vectors at a time (independent
 * dependency chains).
 *
 * Why the fill changes nothing: for max, a -inf tap never replaces the
 * running value (it is not greater, and not NaN), and a window of fill
 * only gives -inf, as the reference's lowest value; for average, adding
 * +0.0 to a double sum that starts at +0.0 leaves it bit for bit the same.
 */
#ifndef KP
#error "include from an ISA file that defines KP"
#endif

#include <math.h>

/* Lanes b[0], b[s], ..., b[(PN-1)*s], every one inside the padded row. */
static inline pv KP(load)(const float *b, int64_t S, int64_t s)
{
    if (S == 1)
        return PV_LOADU(b);
    if (S == 2)
        return PV_LOAD_S2(b);
    return PV_GATHER(b, s);
}

/* The ring: padded row of input row ih, copied on first use. */
typedef struct KP(ring) {
    float *buf;
    int64_t tag[64];
    int64_t R, PW;
} KP(ring_t);

static inline void KP(ring_init)(KP(ring_t) *r, float *buf, int64_t R, int64_t PW, float fill)
{
    r->buf = buf, r->R = R, r->PW = PW;
    const pv f = PV_SET1(fill);
    for (int64_t i = 0; i + PN <= R * PW; i += PN)
        PV_STOREU(buf + i, f);
    for (int64_t i = 0; i < R; i++)
        r->tag[i] = -1;
}

/* Pointers to the padded copies of the valid rows of output row oh, in
 * order; returns how many. */
static inline int KP(rows)(KP(ring_t) *r, const float *x, const kpool_geom_t *g, int64_t oh,
                           const float **rows)
{
    const int64_t h0 = oh * g->sh - g->pbh;
    int64_t slot = h0 % r->R;
    if (slot < 0)
        slot += r->R;
    int n = 0;
    for (int64_t kh = 0; kh < g->kh; kh++, slot = slot + 1 == r->R ? 0 : slot + 1) {
        const int64_t ih = h0 + kh;
        if (ih < 0 || ih >= g->H)
            continue;
        float *pr = r->buf + slot * r->PW;
        if (r->tag[slot] != ih) {
            const float *src = x + ih * g->W;
            float *dst = pr + g->pbw;
            int64_t i = 0;
            for (; i + PN <= g->W; i += PN) {
                pv v = PV_LOADU(src + i);
                __asm__("" : "+x"(v)); /* not a memcpy call (see conv/x86_avx2.c) */
                PV_STOREU(dst + i, v);
            }
            for (; i < g->W; i++)
                dst[i] = src[i];
            r->tag[slot] = ih;
        }
        rows[n++] = pr;
    }
    return n;
}

/* NV vectors of max outputs from ow (the last holding `last` lanes). */
static inline __attribute__((always_inline)) void
KP(max_block)(const float *const *rows, int nr, const kpool_geom_t *g, int64_t ow, int NV,
              int64_t S, int last, float *yr)
{
    const int64_t s = S ? S : g->sw;
    pv a[4];
    for (int v = 0; v < NV; v++)
        a[v] = PV_SET1(-INFINITY);
    for (int i = 0; i < nr; i++) {
        const float *b = rows[i] + ow * s;
        for (int64_t kw = 0; kw < g->kw; kw++, b++)
            for (int v = 0; v < NV; v++)
                a[v] = PV_MAXF(a[v], KP(load)(b + (int64_t)PN * v * s, S, s));
    }
    for (int v = 0; v < NV; v++) {
        if (v == NV - 1 && last < PN)
            PV_STOREN(yr + ow + PN * v, a[v], last);
        else
            PV_STOREU(yr + ow + PN * v, a[v]);
    }
}

/* Per output column: taps counted by the divisor (see pool.h). */
static inline double KP(count)(int64_t o, int64_t s, int64_t pb, int64_t k, int64_t n,
                               int64_t pe, int include_pad)
{
    const int64_t start = o * s - pb;
    if (include_pad) {
        int64_t c = n + pe - start;
        return (double)(c < 0 ? 0 : c > k ? k : c);
    }
    int64_t lo = start < 0 ? 0 : start, hi = start + k > n ? n : start + k;
    return (double)(hi > lo ? hi - lo : 0);
}

/* NV vectors of average outputs from ow: double sums in the reference's
 * order, divided by rowc * colc[ow + lane]. */
static inline __attribute__((always_inline)) void
KP(avg_block)(const float *const *rows, int nr, const kpool_geom_t *g, int64_t ow, int NV,
              int64_t S, int last, double rowc, const double *colc, float *yr)
{
    const int64_t s = S ? S : g->sw;
    pd lo[4], hi[4];
    for (int v = 0; v < NV; v++)
        lo[v] = hi[v] = PD_ZERO();
    for (int i = 0; i < nr; i++) {
        const float *b = rows[i] + ow * s;
        for (int64_t kw = 0; kw < g->kw; kw++, b++)
            for (int v = 0; v < NV; v++) {
                const pv x = KP(load)(b + (int64_t)PN * v * s, S, s);
                lo[v] = PD_ADD(lo[v], PV_LO_PD(x));
                hi[v] = PD_ADD(hi[v], PV_HI_PD(x));
            }
    }
    const pd rc = PD_SET1(rowc);
    for (int v = 0; v < NV; v++) {
        const double *c = colc + ow + PN * v;
        const pv q = PV_FROM_PD(PD_DIVNZ(lo[v], PD_MUL(rc, PD_LOADU(c))),
                                PD_DIVNZ(hi[v], PD_MUL(rc, PD_LOADU(c + PN / 2))));
        if (v == NV - 1 && last < PN)
            PV_STOREN(yr + ow + PN * v, q, last);
        else
            PV_STOREU(yr + ow + PN * v, q);
    }
}

static inline __attribute__((always_inline)) void
KP(plane2d)(const float *x, float *y, int64_t planes, const kpool_geom_t *g, int64_t S,
            int is_max)
{
    float buf[KPOOL_RING_FLOATS] __attribute__((aligned(64)));
    double colc[KPOOL_MAX_OW + 4 * PN];
    const float *rows[64];
    const int64_t OH = g->OH, OW = g->OW;
    if (!is_max) {
        for (int64_t o = 0; o < OW; o++)
            colc[o] = KP(count)(o, g->sw, g->pbw, g->kw, g->W, g->pew, g->count_include_pad);
        for (int64_t o = OW; o < (OW + PN - 1) / PN * PN; o++)
            colc[o] = 1.0; /* spare lanes, never stored */
    }
    for (int64_t pl = 0; pl < planes; pl++) {
        const float *xp = x + pl * g->H * g->W;
        float *yp = y + pl * OH * OW;
        KP(ring_t) ring;
        KP(ring_init)(&ring, buf, g->kh, g->PW, is_max ? -INFINITY : 0.0f);
        for (int64_t oh = g->oh0; oh < g->oh1; oh++) {
            const int nr = KP(rows)(&ring, xp, g, oh, rows);
            const double rowc =
                is_max ? 0.0
                       : KP(count)(oh, g->sh, g->pbh, g->kh, g->H, g->peh, g->count_include_pad);
            float *yr = yp + oh * OW;
            int64_t ow = 0;
            for (; ow + 4 * PN <= OW; ow += 4 * PN) {
                if (is_max)
                    KP(max_block)(rows, nr, g, ow, 4, S, PN, yr);
                else
                    KP(avg_block)(rows, nr, g, ow, 4, S, PN, rowc, colc, yr);
            }
            while (ow < OW) {
                const int64_t nvec = (OW - ow + PN - 1) / PN;
                const int nv = nvec >= 2 ? 2 : 1;
                const int last =
                    ow + (int64_t)PN * nv <= OW ? PN : (int)(OW - (ow + (int64_t)PN * (nv - 1)));
                if (is_max) {
                    if (nv == 2)
                        KP(max_block)(rows, nr, g, ow, 2, S, last, yr);
                    else
                        KP(max_block)(rows, nr, g, ow, 1, S, last, yr);
                } else {
                    if (nv == 2)
                        KP(avg_block)(rows, nr, g, ow, 2, S, last, rowc, colc, yr);
                    else
                        KP(avg_block)(rows, nr, g, ow, 1, S, last, rowc, colc, yr);
                }
                ow += (int64_t)PN * nv;
            }
        }
    }
}

static void KP(max_s1)(const float *x, float *y, int64_t n, const kpool_geom_t *g)
{
    KP(plane2d)(x, y, n, g, 1, 1);
}
static void KP(max_s2)(const float *x, float *y, int64_t n, const kpool_geom_t *g)
{
    KP(plane2d)(x, y, n, g, 2, 1);
}
static void KP(max_sn)(const float *x, float *y, int64_t n, const kpool_geom_t *g)
{
    KP(plane2d)(x, y, n, g, 0, 1);
}
static void KP(avg_s1)(const float *x, float *y, int64_t n, const kpool_geom_t *g)
{
    KP(plane2d)(x, y, n, g, 1, 0);
}
static void KP(avg_s2)(const float *x, float *y, int64_t n, const kpool_geom_t *g)
{
    KP(plane2d)(x, y, n, g, 2, 0);
}
static void KP(avg_sn)(const float *x, float *y, int64_t n, const kpool_geom_t *g)
{
    KP(plane2d)(x, y, n, g, 0, 0);
}

void KP(max2d)(const float *x, float *y, int64_t planes, const kpool_geom_t *g)
{
    if (g->sw == 1)
        KP(max_s1)(x, y, planes, g);
    else if (g->sw == 2)
        KP(max_s2)(x, y, planes, g);
    else
        KP(max_sn)(x, y, planes, g);
}

void KP(avg2d)(const float *x, float *y, int64_t planes, const kpool_geom_t *g)
{
    if (g->sw == 1)
        KP(avg_s1)(x, y, planes, g);
    else if (g->sw == 2)
        KP(avg_s2)(x, y, planes, g);
    else
        KP(avg_sn)(x, y, planes, g);
}

/* Mean of each plane: four double accumulators of PN/2 lanes, then the
 * lanes in a fixed order, the tail, and one division (n > 0). */
void KP(gavg)(const float *x, float *y, int64_t planes, int64_t n)
{
    for (int64_t pl = 0; pl < planes; pl++) {
        const float *xp = x + pl * n;
        pd a0 = PD_ZERO(), a1 = a0, a2 = a0, a3 = a0;
        int64_t i = 0;
        for (; i + 2 * PN <= n; i += 2 * PN) {
            const pv u = PV_LOADU(xp + i), v = PV_LOADU(xp + i + PN);
            a0 = PD_ADD(a0, PV_LO_PD(u));
            a1 = PD_ADD(a1, PV_HI_PD(u));
            a2 = PD_ADD(a2, PV_LO_PD(v));
            a3 = PD_ADD(a3, PV_HI_PD(v));
        }
        double lanes[PN / 2];
        PD_STOREU(lanes, PD_ADD(PD_ADD(a0, a1), PD_ADD(a2, a3)));
        double s = 0.0;
        for (int j = 0; j < PN / 2; j++)
            s += lanes[j];
        for (; i < n; i++)
            s += xp[i];
        y[pl] = (float)(s / (double)n);
    }
}
