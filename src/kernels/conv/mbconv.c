/*
 * The inverted-residual block in one pass (mbconv.h): drivers, the
 * portable depthwise row and the dispatch.
 *
 * Per thread and image, output rows [o0, o1) in bands of rb rows:
 *   1. the expanded rows the band reads that the ring does not hold yet
 *      (input rows band_lo*s - pad ... + K, clipped to the plane) are one
 *      or two GEMMs E^T[rows*W, E] = X^T[rows*W, C] W1^T into the ring's
 *      slots (row ih in slot ih mod R; two calls when the run wraps), with
 *      bias and act1 in the epilogue (the stem form: stem_rows' indirect-A
 *      GEMM over a zero-padded copy of the input rows they read);
 *   2. each output row of the band is the depthwise row kernel over the
 *      K ring rows it reads (a zero row for those outside the plane) into
 *      the band buffer D (rb*OW pixels x E, pixel-major);
 *   3. the projection is the indirect-A GEMM over D's pixels (A(p, k) =
 *      D[p E + k]) against packed W2^T, stored transposed into Y's planes
 *      at the band's offset, with bias, act3, the residual and post3.
 * R = (rb - 1) s + K ring rows hold every row one band reads; the band is
 * the most rows whose ring and D fit MB_BUDGET bytes (L2-sized), so the
 * expanded tensor is written and read in cache. Threads split the output
 * rows of an image when there are fewer images than threads; each range
 * recomputes the K - s expanded rows it shares with the one before it.
 *
 * Cost: FLOPs 2 (C K1^2 E EH EW + K^2 E OH OW + E M OH OW) (EH x EW the
 * expanded plane: H x W for the 1x1 form); bytes moved to and
 * from memory: X, Y, R and the weights once per band (W1, W2: 4 E (C + M)
 * bytes; the band is chosen large enough that this stays a fraction of
 * the activations' bytes where the plane allows).
 */
#include "kernels/conv/mbconv.h"

#include "base/alloc.h"
#include "base/cpu.h"
#include "base/threadpool.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ring + band buffer bytes per thread: most of a 512 KB L2, leaving room
 * for the weights' panels and X's and Y's rows going by */
#define MB_BUDGET (384 * 1024)
/* the whole-plane form (several threads, few images): planes of at most
 * this many input pixels, E + D at most these bytes (the cores' L2s and
 * the shared L3 keep them) */
#define MB_PLANES_PIXELS 256
#define MB_PLANES_MAX (1536 * 1024)

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* ------------------------- the depthwise row ------------------------- */

void conv_dwc_row_f32_ref(const float *const *rows, int64_t W, int64_t ld, int64_t c0,
                          int64_t c1, int K, int s, const float *wt, const float *bias, float lo,
                          float hi, float *out, int64_t OW)
{
    for (int64_t ow = 0; ow < OW; ow++) {
        int64_t iw0;
        int kw0, kw1;
        conv_dwc_taps(W, K, s, ow, &iw0, &kw0, &kw1);
        for (int64_t c = c0; c < c1; c++) {
            float acc = bias ? bias[c] : 0.0f;
            for (int kh = 0; kh < K; kh++)
                for (int kw = kw0; kw < kw1; kw++)
                    acc += wt[((int64_t)kh * K + kw) * ld + c] * rows[kh][(iw0 + kw) * ld + c];
            out[ow * ld + c] = acc < lo ? lo : acc > hi ? hi : acc;
        }
    }
}

typedef struct dwc_variant {
    const char *name;
    cairn_isa_t isa;
    conv_dwc_row_fn fn;
} dwc_variant_t;

/* Best first. The depthwise stage of MobileNetV2's blocks alone
 * (bench_mbconv_f32, Xeon, 1 thread), avx512 against avx2: 28x28 43 -> 32
 * us, 14x14 19 -> 16 and 30 -> 25, 7x7 16.8 -> 15.8; 112x112 and 56x56
 * level (bound by the expanded tensor's traffic). */
static const dwc_variant_t dwc_variants[] = {
#if defined(__x86_64__)
    {"avx512", CAIRN_ISA_AVX512, conv_dwc_row_f32_avx512},
    {"avx2", CAIRN_ISA_AVX2, conv_dwc_row_f32_avx2},
#endif
    {"ref", CAIRN_ISA_REF, conv_dwc_row_f32_ref},
};

static _Atomic(const dwc_variant_t *) g_dwc;

static const dwc_variant_t *dwc_best(cairn_isa_t cap)
{
    const cairn_isa_t level = base_isa_select(cap);
    const int nv = (int)(sizeof dwc_variants / sizeof dwc_variants[0]);
    for (int i = 0; i < nv; i++)
        if (dwc_variants[i].isa <= level)
            return &dwc_variants[i];
    return &dwc_variants[nv - 1];
}

conv_dwc_row_fn conv_dwc_row_for(cairn_isa_t cap, const char **name)
{
    const dwc_variant_t *v = dwc_best(cap);
    if (name)
        *name = v->name;
    return v->fn;
}

conv_dwc_row_fn conv_dwc_row_select(const char **name)
{
    const dwc_variant_t *v = atomic_load_explicit(&g_dwc, memory_order_acquire);
    if (!v) {
        v = dwc_best(CAIRN_ISA_AUTO);
        const dwc_variant_t *expected = NULL;
        if (atomic_compare_exchange_strong(&g_dwc, &expected, v)) {
            const char *verbose = getenv("CAIRN_VERBOSE");
            if (verbose && *verbose && strcmp(verbose, "0"))
                fprintf(stderr, "cairn: inverted-residual depthwise row f32: using %s\n",
                        v->name);
        } else {
            v = expected;
        }
    }
    if (name)
        *name = v->name;
    return v->fn;
}

/* ------------------------------ weights ------------------------------ */

size_t conv_mb_packed_size(int64_t rows, int64_t cols)
{
    return gemm_f32_packed_b_size(cols, rows);
}

cairn_status_t conv_mb_pack(int64_t rows, int64_t cols, const float *W, void *packed,
                            size_t size)
{
    /* W (rows x cols) as B^T: B = W^T is cols x rows, the GEMM's K x N */
    return gemm_f32_pack_b(1, cols, rows, W, cols, packed, size);
}

int conv_mb_available(void) { return gemm_f32_inda_available(); }

/* The fused expansion is the GEMM E^T = X^T W1^T with X^T packed per band
 * and K = C; the projection stores 16-channel tiles. Over few input
 * channels that GEMM is per-tile overhead more than FMAs, and a projection
 * to M = 24 channels fills its second 16-channel panel half, which costs
 * most where the projection is a large part of the block (stride 1: as
 * many pixels as the expansion). bench_mbconv_f32 on MobileNetV2's blocks,
 * Zen 2, fused / unfused, 1 / 2 threads: C = 16, M = 24, stride 2: 0.95 /
 * 0.97; C = 24, M = 24, stride 1: 1.01 / 1.02 alone, but in the model
 * (where the unfused block's 1.7 MB expanded tensor does not stay in
 * cache) fusing it too made the whole run 0.7-0.8 % faster on 1 and 2
 * threads; C = 24, M = 32: 0.88 / 0.91; C = 32: 0.86-0.89; C = 64-160:
 * 0.85-0.92. */
int conv_mb_pays(int64_t C, int stride)
{
    /* CAIRN_MBCONV=0: never fuse; =1: fuse every block it can (tests run
     * the small test models' blocks through it this way) */
    const char *env = getenv("CAIRN_MBCONV");
    if (env && !strcmp(env, "0"))
        return 0;
    if (env && !strcmp(env, "1"))
        return 1;
    return C >= 24 || (C >= 16 && stride >= 2);
}

/* The stem form measured on MobileNetV2's stem and first block (3 input
 * channels, 3x3/2, 32 expanded, 16 out; see conv_mb_f32's notes); other
 * image-sized inputs of a few channels are the same kind of work. */
int conv_mb_stem_pays(int64_t C, int K1, int s1)
{
    const char *env = getenv("CAIRN_MBCONV");
    if (env && !strcmp(env, "0"))
        return 0;
    if (env && !strcmp(env, "1"))
        return 1;
    return C <= 4 && K1 <= 5 && s1 <= 2;
}

cairn_status_t conv_mb_check(conv_mb_params_t *p)
{
    if (!p)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "conv_mb: null parameters");
    if (p->N < 0 || p->C < 1 || p->E < 1 || p->M < 1 || p->H < 1 || p->W < 1)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "conv_mb: sizes N=%lld C=%lld E=%lld M=%lld H=%lld W=%lld out of range",
                          (long long)p->N, (long long)p->C, (long long)p->E, (long long)p->M,
                          (long long)p->H, (long long)p->W);
    if (p->K < 1 || p->K > 15 || p->K % 2 == 0)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "conv_mb: the depthwise kernel must be odd, 1 to 15, got %d", p->K);
    if (p->stride < 1 || p->stride > 4)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "conv_mb: stride %d is not 1 to 4", p->stride);
    const int K1 = p->K1 ? p->K1 : 1, s1 = p->s1 ? p->s1 : 1;
    if (K1 < 1 || K1 > 15 || K1 % 2 == 0)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "conv_mb: the expansion kernel must be odd, 1 to 15, got %d", p->K1);
    if (s1 < 1 || s1 > 4 || (K1 == 1 && s1 != 1))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "conv_mb: expansion stride %d is not 1 to 4 (1 for a 1x1 expansion)",
                          p->s1);
    const int64_t lim = (int64_t)1 << 24;
    if (p->C > lim || p->E > lim || p->M > lim || p->H > lim || p->W > lim ||
        p->C * K1 * K1 > lim)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "conv_mb: a size is over 2^24");
    /* with pad K / 2 on both sides every plane of at least 1 x 1 is wide
     * enough for an odd K */
    p->EH = (p->H + 2 * (K1 / 2) - K1) / s1 + 1;
    p->EW = (p->W + 2 * (K1 / 2) - K1) / s1 + 1;
    const int pad = p->K / 2;
    p->OH = (p->EH + 2 * pad - p->K) / p->stride + 1;
    p->OW = (p->EW + 2 * pad - p->K) / p->stride + 1;
    return CAIRN_OK;
}

/* ------------------------------- driver ------------------------------- */

typedef struct mb_job {
    const conv_mb_params_t *p;
    const float *X, *b1, *bd, *b2, *R;
    const void *W1p, *W2p;
    float *Y;
    const float *wt;     /* depthwise taps, [K*K][E] */
    const float *zero;   /* a zero row, W x E */
    const int64_t *off;  /* off[k] = k: D's columns for the projection */
    conv_dwc_row_fn row;
    int64_t rb, R_rows;  /* band rows, ring rows */
    int64_t parts;       /* row ranges per image */
    char *scratch;       /* per worker: ring, D, pix (and the stem form's xb, pix1) */
    size_t per_worker;
    /* the stem form (K1 > 1; p's H, W are then the expanded plane): X's
     * plane, the expansion's kernel and stride, a padded input band of
     * xrows rows of xw floats per channel, and the taps' offsets in it */
    int64_t XH, XW;
    int K1, s1;
    int64_t xrows, xw;
    const int64_t *off1;
    gemm_epilogue_t e1, e3;
    _Atomic cairn_status_t status; /* first failure of a worker (never expected) */
} mb_job_t;

static size_t ring_floats(const mb_job_t *j) { return (size_t)(j->R_rows * j->p->W * j->p->E); }
static size_t band_floats(const mb_job_t *j) { return (size_t)(j->rb * j->p->OW * j->p->E); }

static size_t round64(size_t b) { return (b + 63) / 64 * 64; }
/* the stem form's per-worker extras: the padded input band, its pixels */
static size_t xband_floats(const mb_job_t *j) { return (size_t)(j->p->C * j->xrows * j->xw); }
static size_t pix1_count(const mb_job_t *j) { return (size_t)(j->R_rows * j->p->W); }

/* The stem form's expanded rows [r0, r1) (at most R_rows of them) of image
 * n into C (rows of W pixels, E floats each): the input rows they read,
 * zero-padded, into the band xb (channel c's row t at xb + (c xrows + t)
 * xw, column K1 / 2 the input's column 0), then the indirect-A GEMM with
 * pixel (r, w) at row (r - r0) s1, column w s1 of the band and tap (c, kh,
 * kw) at c xrows xw + kh xw + kw (pix[r W + w] = r s1 xw + w s1, set once by
 * mb_range). */
static cairn_status_t stem_rows(const mb_job_t *j, int64_t n, int64_t r0, int64_t r1, float *C,
                                float *xb, int64_t *pix)
{
    const conv_mb_params_t *p = j->p;
    const int64_t s1 = j->s1, p1 = j->K1 / 2, XW = j->XW, xw = j->xw;
    const int64_t ih0 = r0 * s1 - p1, nin = (r1 - 1 - r0) * s1 + j->K1;
    for (int64_t c = 0; c < p->C; c++) {
        const float *xc = j->X + (n * p->C + c) * j->XH * XW;
        for (int64_t t = 0; t < nin; t++) {
            float *d = xb + (c * j->xrows + t) * xw;
            const int64_t ih = ih0 + t;
            if (ih < 0 || ih >= j->XH) {
                memset(d, 0, (size_t)xw * sizeof(float));
                continue;
            }
            memset(d, 0, (size_t)p1 * sizeof(float));
            memcpy(d + p1, xc + ih * XW, (size_t)XW * sizeof(float));
            memset(d + p1 + XW, 0, (size_t)(xw - p1 - XW) * sizeof(float));
        }
    }
    const gemm_inda_t a = {xb, pix, (r1 - r0) * p->W, j->off1}; /* pix: mb_range's */
    return gemm_f32_packed_inda_px(NULL, p->E, p->C * j->K1 * j->K1, j->W1p, &a, C, p->E,
                                   &j->e1);
}

/* Expanded rows [r0, r1) of image n into their ring slots. */
static cairn_status_t expand_rows(const mb_job_t *j, int64_t n, int64_t r0, int64_t r1,
                                  float *ring, float *xb, int64_t *pix1)
{
    const conv_mb_params_t *p = j->p;
    const int64_t plane = p->H * p->W, rowf = p->W * p->E;
    while (r0 < r1) {
        const int64_t slot = r0 % j->R_rows, cnt = min64(r1 - r0, j->R_rows - slot);
        if (j->K1 > 1) {
            BASE_TRY(stem_rows(j, n, r0, r0 + cnt, ring + slot * rowf, xb, pix1));
            r0 += cnt;
            continue;
        }
        const float *A = j->X + (n * p->C) * plane + r0 * p->W;
        cairn_status_t s = gemm_f32_packed(NULL, 1, cnt * p->W, p->E, p->C, 1.0f, A, plane,
                                           j->W1p, 0.0f, ring + slot * rowf, p->E, &j->e1);
        if (s != CAIRN_OK)
            return s;
        r0 += cnt;
    }
    return CAIRN_OK;
}

/* Output rows [o0, o1) of image n on this worker's scratch. */
static cairn_status_t mb_range(const mb_job_t *j, int64_t n, int64_t o0, int64_t o1, int worker)
{
    const conv_mb_params_t *p = j->p;
    const int64_t E = p->E, s = p->stride, pad = p->K / 2, OHW = p->OH * p->OW;
    char *base = j->scratch + (size_t)worker * j->per_worker;
    float *ring = (float *)base;
    float *D = (float *)(base + round64(ring_floats(j) * sizeof(float)));
    int64_t *pix = (int64_t *)((char *)D + round64(band_floats(j) * sizeof(float)));
    float *xb = (float *)((char *)pix + round64((size_t)(j->rb * p->OW) * sizeof(int64_t)));
    int64_t *pix1 = (int64_t *)((char *)xb + round64(xband_floats(j) * sizeof(float)));
    const int64_t rowf = p->W * E;
    /* the projection's pixels in D, the stem form's in its input band:
     * the same for every band */
    for (int64_t q = 0; q < j->rb * p->OW; q++)
        pix[q] = q * E;
    if (j->K1 > 1)
        for (int64_t r = 0; r < j->R_rows; r++)
            for (int64_t w = 0; w < p->W; w++)
                pix1[r * p->W + w] = r * j->s1 * j->xw + w * j->s1;
    int64_t have = -1; /* the ring holds the expanded rows up to `have` */
    const float *rows[15];
    for (int64_t a = o0; a < o1; a += j->rb) {
        const int64_t b = min64(a + j->rb, o1);
        const int64_t need_lo = max64(0, a * s - pad);
        const int64_t need_hi = min64(p->H, (b - 1) * s - pad + p->K);
        const int64_t from = have < 0 ? need_lo : max64(have, need_lo);
        if (from < need_hi) {
            BASE_TRY(expand_rows(j, n, from, need_hi, ring, xb, pix1));
            have = need_hi;
        }
        for (int64_t oh = a; oh < b; oh++) {
            for (int kh = 0; kh < p->K; kh++) {
                const int64_t ih = oh * s - pad + kh;
                rows[kh] = ih < 0 || ih >= p->H ? j->zero : ring + (ih % j->R_rows) * rowf;
            }
            j->row(rows, p->W, E, 0, E, p->K, (int)s, j->wt, j->bd, p->lo2, p->hi2,
                   D + (oh - a) * p->OW * E, p->OW);
        }
        const int64_t P = (b - a) * p->OW, yoff = n * p->M * OHW + a * p->OW;
        const gemm_inda_t ia = {D, pix, P, j->off};
        gemm_epilogue_t e3 = j->e3;
        if (j->R)
            e3.residual = j->R + yoff;
        BASE_TRY(gemm_f32_packed_inda(NULL, p->M, E, j->W2p, &ia, j->Y + yoff, OHW, &e3));
    }
    return CAIRN_OK;
}

static void mb_task(void *ctx, size_t begin, size_t end, int worker)
{
    mb_job_t *j = ctx;
    for (size_t t = begin; t < end; t++) {
        const int64_t n = (int64_t)t / j->parts, part = (int64_t)t % j->parts;
        const int64_t OH = j->p->OH;
        cairn_status_t s = mb_range(j, n, OH * part / j->parts, OH * (part + 1) / j->parts, worker);
        if (s != CAIRN_OK) {
            cairn_status_t ok = CAIRN_OK;
            atomic_compare_exchange_strong(&j->status, &ok, s);
        }
    }
}

/* ---- whole planes, each stage on all threads (few images, small planes) ---- */

/* The plane's stages split by pixels, the same rows on the same task in
 * every stage: task t expands the pixels of output rows [o0, o1) (the
 * input rows, for stride 1 the same ones), then runs the depthwise rows
 * [o0, o1) (reading one expanded row either side from the neighbour
 * task) and projects those pixels. Two pool loops, task t their item t:
 * the expansion, then the depthwise rows with their projection (which
 * reads only this task's rows, so no barrier between those two; with a
 * third loop for the projection MobileNetV2 on 2 threads measured the
 * same, 2.50 ms, per-step medians of 9 profiles).
 *
 * Where the output rows do not split evenly (bypx: MobileNetV2's 7 x 7
 * blocks on 2 threads, 3 rows against 4, the slower task 57 % of the
 * work) the expansion is one GEMM over the plane on all threads (its grid
 * splits E's channels: equal work, each thread reading half of W1; equal
 * runs of pixels, 25 + 24, left the 11-pixel tile costing 14 pixels'
 * FMAs and took 92 us of the 160 > 960 > 160 block on 2 threads against
 * 70), the depthwise rows stay whole rows (a few percent of the block),
 * and the projection, a third loop, takes equal runs of output pixels
 * (its partial tiles cost their pixels), reading part of a row of D the
 * other task wrote. */
typedef struct px_job {
    const mb_job_t *j;
    int64_t n, parts;
    int stage, bypx;
    float *E, *D;
    const int64_t *pix;
    atomic_int status;
} px_job_t;

/* the projection of output pixels [q0, q1) of D into Y */
static cairn_status_t px_project(const px_job_t *x, int64_t q0, int64_t q1)
{
    const mb_job_t *j = x->j;
    const conv_mb_params_t *p = j->p;
    const int64_t OHW = p->OH * p->OW, yoff = x->n * p->M * OHW + q0;
    const gemm_inda_t ia = {x->D, x->pix + q0, q1 - q0, j->off};
    gemm_epilogue_t e3 = j->e3;
    if (j->R)
        e3.residual = j->R + yoff;
    return gemm_f32_packed_inda(NULL, p->M, p->E, j->W2p, &ia, j->Y + yoff, OHW, &e3);
}

static cairn_status_t px_stage(px_job_t *x, int64_t t)
{
    const mb_job_t *j = x->j;
    const conv_mb_params_t *p = j->p;
    const int64_t HW = p->H * p->W, OHW = p->OH * p->OW, E = p->E;
    if (x->stage == 2) { /* bypx: output pixels [q0, q1) */
        const int64_t q0 = OHW * t / x->parts, q1 = OHW * (t + 1) / x->parts;
        return q0 < q1 ? px_project(x, q0, q1) : CAIRN_OK;
    }
    const int64_t o0 = p->OH * t / x->parts, o1 = p->OH * (t + 1) / x->parts;
    if (o0 >= o1)
        return CAIRN_OK;
    if (x->stage == 0) {
        /* input rows this task's output rows start from, up to the next
         * task's: every input row expanded once */
        const int64_t s = p->stride;
        const int64_t h0 = t == 0 ? 0 : min64(p->H, o0 * s);
        const int64_t h1 = t + 1 == x->parts ? p->H : min64(p->H, o1 * s);
        if (h0 >= h1)
            return CAIRN_OK;
        return gemm_f32_packed(NULL, 1, (h1 - h0) * p->W, E, p->C, 1.0f,
                               j->X + x->n * p->C * HW + h0 * p->W, HW, j->W1p, 0.0f,
                               x->E + h0 * p->W * E, E, &j->e1);
    }
    /* stage 1: the depthwise rows, then their projection in the same task
     * (it reads only the depthwise rows this task just wrote) */
    {
        const int64_t pad = p->K / 2, rowf = p->W * E;
        const float *rows[15];
        for (int64_t oh = o0; oh < o1; oh++) {
            for (int kh = 0; kh < p->K; kh++) {
                const int64_t ih = oh * p->stride - pad + kh;
                rows[kh] = ih < 0 || ih >= p->H ? j->zero : x->E + ih * rowf;
            }
            j->row(rows, p->W, E, 0, E, p->K, p->stride, j->wt, j->bd, p->lo2, p->hi2,
                   x->D + oh * p->OW * E, p->OW);
        }
    }
    return x->bypx ? CAIRN_OK : px_project(x, o0 * p->OW, o1 * p->OW);
}

static void px_task(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    px_job_t *x = ctx;
    for (size_t t = begin; t < end; t++) {
        cairn_status_t s = px_stage(x, (int64_t)t);
        if (s != CAIRN_OK) {
            int ok = CAIRN_OK;
            atomic_compare_exchange_strong(&x->status, &ok, (int)s);
        }
    }
}

/* Image n: the three stages over the whole plane (E and D hold it; the
 * caller checked they fit in cache), two parallel loops, each task on the
 * same rows in every stage (px_stage). Splitting each stage
 * its own way (the expansion by channels, the depthwise rows and channel
 * groups claimed dynamically, the projection by channels) was as fast
 * while the two vCPUs shared an L3 and 10 % slower on MobileNetV2's
 * blocks (6.1 against 5.4 ms on 2 threads) while they did not: every
 * stage then read what the other thread wrote (bench/bench_c2c). */
static cairn_status_t mb_planes(const kctx_t *k, const mb_job_t *j, int64_t n, float *E,
                                float *D, int64_t *pix)
{
    const int64_t threads = base_pool_threads(k->pool), OH = j->p->OH;
    const int bypx = threads > 1 && OH % threads != 0;
    px_job_t x = {j, n, bypx ? threads : min64(threads, OH), 0, bypx, E, D, pix, CAIRN_OK};
    for (x.stage = 0; x.stage < 2 + bypx; x.stage++) {
        if (x.stage == 0 && bypx) {
            const conv_mb_params_t *p = j->p;
            const int64_t HW = p->H * p->W;
            const cairn_status_t st =
                gemm_f32_packed(k, 1, HW, p->E, p->C, 1.0f, j->X + n * p->C * HW, HW, j->W1p,
                                0.0f, E, p->E, &j->e1);
            if (st != CAIRN_OK)
                return st;
            continue;
        }
        base_pool_parallel_for_1d(k->pool, (size_t)x.parts, 1, px_task, &x);
        int st = atomic_load(&x.status);
        if (st != CAIRN_OK) /* the GEMM's message is in the worker's buffer */
            return base_error((cairn_status_t)st, "conv_mb_f32: a GEMM of the block failed (%s)",
                              cairn_status_string((cairn_status_t)st));
    }
    return CAIRN_OK;
}

cairn_status_t conv_mb_f32(const kctx_t *k, const conv_mb_params_t *p, const float *X,
                           const void *W1p, const float *b1, const float *Wd, const float *bd,
                           const void *W2p, const float *b2, const float *R, float *Y)
{
    if (!p || !X || !W1p || !Wd || !W2p || !Y)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "conv_mb_f32: null parameters, input, weights or output");
    conv_mb_params_t q = *p;
    BASE_TRY(conv_mb_check(&q));
    if (q.OH != p->OH || q.OW != p->OW)
        return base_error(CAIRN_ERR_SHAPE,
                          "conv_mb_f32: output plane %lldx%lld given, the geometry makes %lldx%lld",
                          (long long)p->OH, (long long)p->OW, (long long)q.OH, (long long)q.OW);
    if (!conv_mb_available())
        return base_error(CAIRN_ERR_UNSUPPORTED,
                          "conv_mb_f32: this CPU's GEMM variant has no indirect-A kernel");
    if (p->N == 0)
        return CAIRN_OK;
    mb_job_t j;
    memset(&j, 0, sizeof j);
    /* from here on p's plane is the expanded one, the depthwise's input;
     * X's is kept in j for the stem form's expansion */
    j.XH = q.H, j.XW = q.W, j.K1 = q.K1 > 1 ? q.K1 : 1, j.s1 = q.s1 > 1 ? q.s1 : 1;
    q.H = q.EH, q.W = q.EW;
    p = &q;
    j.p = p, j.X = X, j.b1 = b1, j.bd = bd, j.b2 = b2, j.R = R, j.W1p = W1p, j.W2p = W2p, j.Y = Y;
    j.row = conv_dwc_row_select(NULL);
    j.status = CAIRN_OK;
    j.e1 = (gemm_epilogue_t){b1 ? GEMM_BIAS_COL : GEMM_BIAS_NONE, b1, p->act1, p->lo1, p->hi1,
                             1.0f, NULL, 0, GEMM_ACT_NONE, 0.0f, 0.0f};
    j.e3 = (gemm_epilogue_t){b2 ? GEMM_BIAS_ROW : GEMM_BIAS_NONE, b2, p->act3, p->lo3, p->hi3,
                             1.0f, NULL, p->OH * p->OW, p->post3, p->plo3, p->phi3};
    /* the band: the most rows whose ring and D fit the budget (at least 1) */
    const int64_t s = p->stride, rowb = p->W * p->E * 4, drow = p->OW * p->E * 4;
    j.rb = 1;
    while (j.rb < p->OH && (j.rb * s + p->K) * rowb + (j.rb + 1) * drow <= MB_BUDGET)
        j.rb++; /* band rb + 1: (rb + 1 - 1) s + K ring rows, rb + 1 rows of D */
    j.R_rows = (j.rb - 1) * s + p->K;
    j.xrows = (min64(j.R_rows, p->H) - 1) * j.s1 + j.K1;
    j.xw = j.XW + 2 * (j.K1 / 2);
    int workers = k && k->pool && k->threads > 1 ? base_pool_threads(k->pool) : 1;
    if (workers < 1)
        workers = 1;
    /* fewer images than threads: split each image's rows */
    j.parts = p->N >= workers ? 1 : min64((workers + p->N - 1) / p->N, p->OH);
    /* ... unless the planes are small: then each stage runs over the whole
     * plane on all threads (a 7x7 plane split in two would expand 9 of its
     * 7 rows, and its bands' GEMMs would be a few pixels tall). Measured
     * on 2 threads (bench_mbconv_f32): 14x14 and 7x7 blocks 10-15 % faster
     * this way, 28x28 ones 15 % slower. */
    const size_t eplane = (size_t)(p->H * p->W * p->E) * sizeof(float);
    const size_t dplane = (size_t)(p->OH * p->OW * p->E) * sizeof(float);
    const int planes = j.parts > 1 && j.K1 == 1 && p->H * p->W <= MB_PLANES_PIXELS &&
                       eplane + dplane <= MB_PLANES_MAX;
    if (planes) /* one E, D and pix for the whole plane, in worker 0's place */
        j.per_worker = round64(eplane) + round64(dplane) +
                       round64((size_t)(p->OH * p->OW) * sizeof(int64_t));
    else
    j.per_worker = round64(ring_floats(&j) * sizeof(float)) +
                   round64(band_floats(&j) * sizeof(float)) +
                   round64((size_t)(j.rb * p->OW) * sizeof(int64_t)) +
                   (j.K1 > 1 ? round64(xband_floats(&j) * sizeof(float)) +
                                   round64(pix1_count(&j) * sizeof(int64_t))
                             : 0);
    const int64_t taps = (int64_t)p->K * p->K, taps1 = p->C * j.K1 * j.K1;
    const size_t shared = round64((size_t)(taps * p->E) * sizeof(float)) +
                          round64((size_t)(p->W * p->E) * sizeof(float)) +
                          round64((size_t)p->E * sizeof(int64_t)) +
                          (j.K1 > 1 ? round64((size_t)taps1 * sizeof(int64_t)) : 0);
    const size_t total = shared + j.per_worker * (size_t)(planes ? 1 : workers);
    int slot;
    char *mem = base_scratch_get(total, &slot);
    if (!mem)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY,
                          "conv_mb_f32: no memory for %zu bytes of scratch", total);
    float *wt = (float *)mem;
    float *zero = (float *)(mem + round64((size_t)(taps * p->E) * sizeof(float)));
    int64_t *off = (int64_t *)((char *)zero + round64((size_t)(p->W * p->E) * sizeof(float)));
    for (int64_t c = 0; c < p->E; c++)
        for (int64_t t = 0; t < taps; t++)
            wt[t * p->E + c] = Wd[c * taps + t];
    memset(zero, 0, (size_t)(p->W * p->E) * sizeof(float));
    for (int64_t c = 0; c < p->E; c++)
        off[c] = c;
    j.wt = wt, j.zero = zero, j.off = off;
    if (j.K1 > 1) { /* tap (c, kh, kw), W1's column order, in the padded band */
        int64_t *off1 = (int64_t *)((char *)off + round64((size_t)p->E * sizeof(int64_t)));
        for (int64_t c = 0; c < p->C; c++)
            for (int kh = 0; kh < j.K1; kh++)
                for (int kw = 0; kw < j.K1; kw++)
                    off1[(c * j.K1 + kh) * j.K1 + kw] = (c * j.xrows + kh) * j.xw + kw;
        j.off1 = off1;
    }
    j.scratch = mem + shared;
    if (planes) {
        float *E = (float *)j.scratch, *D = (float *)(j.scratch + round64(eplane));
        int64_t *pix = (int64_t *)(j.scratch + round64(eplane) + round64(dplane));
        for (int64_t px = 0; px < p->OH * p->OW; px++)
            pix[px] = px * p->E;
        cairn_status_t st = CAIRN_OK;
        for (int64_t n = 0; n < p->N && st == CAIRN_OK; n++)
            st = mb_planes(k, &j, n, E, D, pix);
        base_scratch_put(mem, slot);
        return st;
    }
    const size_t items = (size_t)(p->N * j.parts);
    if (workers == 1 || items == 1)
        mb_task(&j, 0, items, 0);
    else
        base_pool_parallel_for_1d(k->pool, items, 1, mb_task, &j);
    base_scratch_put(mem, slot);
    if (j.status != CAIRN_OK)
        return base_error(j.status, "conv_mb_f32: a GEMM of the block failed (%s)",
                          cairn_status_string(j.status));
    return CAIRN_OK;
}
