/*
 * Depthwise convolution of 8-bit x and W (quant.h's quant_dwconv and
 * quant_dwconv_f32): QLinearConv, ConvInteger and FusedConvInteger with
 * one channel a group, MobileNetV2's 3x3 layers in onnxruntime's
 * QOperator and dynamically quantised forms.
 *
 * Per plane (image n, channel c), in the worker's scratch:
 *   1. x - xz as f32 into P, a zero-padded copy of the input rows and
 *      columns the outputs read, its columns split into the column
 *      stride's phases (quant_dw_geom_t), so that every tap of a row of
 *      outputs reads consecutive floats whatever the stride;
 *   2. each output the sum of its taps' products w'[t] P[...], w' = w -
 *      wz[c] as f32: every product is an integer of at most 255 x 255 in
 *      magnitude and every partial sum of at most 258 of them stays below
 *      2^24, so the f32 sums, in any order, are the exact integers;
 *   3. the sums as int32 (ConvInteger), requantised by quant_requant_row
 *      (QLinearConv: the reference's arithmetic, bit for bit) or
 *      dequantised (FusedConvInteger: times the scale, the bias, the
 *      activation and a residual, quant_conv_f32's f32 operations).
 * The padding adds nothing, as the reference's x - xz of a padded tap (xz
 * - xz) is 0. P's padding positions are the same for every plane of a
 * call: zeroed once per worker, each plane writes only its inputs'.
 *
 * Cost: K^2 multiply-adds an output (MobileNetV2's 17 depthwise layers:
 * 20.7 M in 2.3 M outputs), each input byte widened once and each output
 * requantised once; the plane (P: 58 KB for 112 x 112, the sums 50 KB)
 * stays in L2. Floor on Zen 4 (one 16-lane FMA a cycle): 9 cycles per 16
 * outputs of a 3x3 layer, ~0.35 ms for those layers on one core, beside
 * the requantisation's ~0.6 cycles an output.
 *
 * The route before this one (ir/ops/quant.c's grouped route) widened all
 * of x to f32, ran the f32 convolution and converted its sums back, four
 * passes over tensors 4 times x's size.
 *
 * A 3x3 layer at stride 1 or 2 whose w - wz all fit in s8 (symmetric
 * weights: i8 with zero point 0, u8 with 128) takes the integer plane
 * instead where the CPU has AVX512_VNNI and VBMI (quant_dw3_plane_vnni):
 * x copied as bytes into a plane padded with its zero point, each
 * output's three taps of a row gathered into a 32-bit lane by vpermb and
 * multiplied and added by one vpdpbusd, 3 instructions per 16 outputs
 * where the f32 plane takes 9 FMAs and the widening. MobileNetV2
 * QOperator 5.26 -> 4.61 ms on 1 thread (Zen 4).
 */
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_internal.h"

#include "base/alloc.h"
#include "base/threadpool.h"

#include <string.h>

static inline int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

int quant_dw_fits(const conv_params_t *g)
{
    if (!g || g->group < 1 || g->group != g->C || g->M != g->C)
        return 0;
    /* two spatial dims at most: the leading one of CONV_SP unused */
    if (g->in[0] != 1 || g->out[0] != 1 || g->kernel[0] != 1 || g->pad[0] != 0)
        return 0;
    for (int d = 0; d < CONV_SP; d++)
        if (g->dilation[d] != 1)
            return 0;
    if (g->kernel[1] < 1 || g->kernel[2] < 1 || g->kernel[1] * g->kernel[2] > QUANT_DW_MAX_TAPS)
        return 0;
    /* strides and paddings of real networks: the padded copy (rows (OH - 1)
     * SH + KH of about OW SW floats) then stays near the input plane's
     * size; other geometries take the grouped route */
    if (g->stride[1] < 1 || g->stride[1] > 16 || g->stride[2] < 1 || g->stride[2] > 4 ||
        g->pad[1] < 0 || g->pad[2] < 0 || g->pad[1] > 255 || g->pad[2] > 255)
        return 0;
    const int64_t lim = (int64_t)1 << 20;
    return g->in[1] >= 1 && g->in[2] >= 1 && g->out[1] >= 1 && g->out[2] >= 1 && g->in[1] <= lim &&
           g->in[2] <= lim && g->out[1] * g->out[2] <= lim * 16;
}

/* 1 when g's planes can take the integer 3x3 plane (the weights' w - wz
 * must also fit in s8: dw_run_all checks them) */
static int dw_vnni_geometry(const conv_params_t *g)
{
    return quant_use_vnni() && g->kernel[1] == 3 && g->kernel[2] == 3 &&
           g->stride[1] == g->stride[2] && g->stride[2] <= 2;
}

const char *quant_dw_variant(const conv_params_t *g)
{
    return g && dw_vnni_geometry(g) ? "avx512_vnni" : quant_use_avx512() ? "avx512" : "c";
}

/* ------------------------- the portable plane ------------------------- */

static void dw_widen_c(const quant_dw_geom_t *g, const void *x, float *P)
{
    const int64_t phase = g->rows * g->ld;
    for (int64_t ih = 0; ih < g->ih1; ih++) {
        const int64_t r = ih + g->PH;
        for (int64_t iw = 0; iw < g->iw1; iw++) {
            const int64_t q = iw + g->PW;
            const int32_t v = g->x_u8 ? ((const uint8_t *)x)[ih * g->IW + iw]
                                      : ((const int8_t *)x)[ih * g->IW + iw];
            P[(q % g->SW) * phase + r * g->ld + q / g->SW] = (float)(v - g->xz);
        }
    }
}

/* runs of DW_RUN outputs: the tap loop outside, the outputs inside (a loop
 * the compiler vectorises) */
#define DW_RUN 64

void quant_dw_plane_c(const quant_dw_geom_t *g, const void *x, const float *wf, float *P,
                      int32_t *acc, const quant_dw_out_t *o)
{
    (void)acc;
    dw_widen_c(g, x, P);
    const int64_t taps = (int64_t)g->KH * g->KW;
    float s[DW_RUN];
    int32_t a[DW_RUN];
    for (int64_t oh = 0; oh < g->OH; oh++) {
        for (int64_t ow0 = 0; ow0 < g->OW; ow0 += DW_RUN) {
            const int64_t n = min64(DW_RUN, g->OW - ow0), at = oh * g->OW + ow0;
            for (int64_t t = 0; t < n; t++)
                s[t] = 0.0f;
            const float *row = P + oh * g->SH * g->ld + ow0;
            for (int64_t k = 0; k < taps; k++) {
                const float w = wf[k], *src = row + g->off[k];
                for (int64_t t = 0; t < n; t++)
                    s[t] += w * src[t];
            }
            if (o->yt == CAIRN_F32) { /* s[t] is the exact sum: (float)sum */
                const float m = (float)o->m, b = (float)o->b;
                float *y = (float *)o->y + at;
                for (int64_t t = 0; t < n; t++) {
                    float v = s[t] * m; /* separate statements: no contraction */
                    if (o->has_b)
                        v += b;
                    if (o->act == GEMM_ACT_RELU)
                        v = v > 0.0f ? v : 0.0f;
                    else if (o->act == GEMM_ACT_CLIP)
                        v = v < o->lo ? o->lo : v > o->hi ? o->hi : v;
                    if (o->res)
                        v += o->res[at + t];
                    y[t] = v;
                }
                continue;
            }
            int32_t *d = o->yt == CAIRN_I32 ? (int32_t *)o->y + at : a;
            for (int64_t t = 0; t < n; t++)
                d[t] = (int32_t)s[t];
            if (o->yt != CAIRN_I32)
                quant_requant_row(a, n, o->b, o->m, o->z, o->yt, (char *)o->y + at, o->acc_max);
        }
    }
}

/* ------------------------------ driver ------------------------------ */

typedef struct dw_job {
    const quant_conv_params_t *p;
    quant_dw_geom_t g;
    void (*plane)(const quant_dw_geom_t *, const void *, const float *, float *, int32_t *,
                  const quant_dw_out_t *);
    const void *X, *W;
    const int32_t *bias;
    int32_t yz;
    cairn_dtype_t yt;
    void *Y;
    const gemm_epilogue_t *epi; /* yt F32: the bias, activation and residual */
    const float *wf;            /* w - wz as f32, C x taps */
    int vnni;                   /* the integer 3x3 plane (quant_dw3_plane_vnni) */
    const int32_t *wd;          /* its kernel rows' w - wz bytes, C x 3 */
    const int32_t *corr;        /* its sums' start, -xzb sum(w - wz), C */
    int lazy;                   /* vnni with every w - wz in s8 by its types: each
                                 * plane makes its channel's wd and corr (dw_wd) */
    char *scratch;              /* per worker: P, then the sums of a plane */
    size_t per_worker, p_bytes;
    int64_t taps;
} dw_job_t;

/* channel c's kernel rows' w - wz bytes for the integer plane and its
 * sums' start (-xzb sum(w - wz)); w - wz in s8 (dw_run_all's `lazy`) */
static void dw_wd(const dw_job_t *j, int64_t c, int32_t wd[3], int32_t *corr)
{
    const quant_conv_params_t *p = j->p;
    const int32_t wz = p->wz ? q_load(p->wz, p->wt, p->wz_vec ? c : 0) : 0;
    const uint8_t *w = (const uint8_t *)j->W + c * 9;
    int32_t sum = 0;
    for (int kh = 0; kh < 3; kh++) {
        uint32_t d = 0;
        for (int kw = 0; kw < 3; kw++) {
            const uint8_t b = w[kh * 3 + kw];
            const int32_t v = (p->wt == CAIRN_I8 ? (int32_t)(int8_t)b : (int32_t)b) - wz;
            sum += v;
            d |= (uint32_t)(uint8_t)(int8_t)v << (8 * kw);
        }
        wd[kh] = (int32_t)d;
    }
    *corr = -j->g.xzb * sum;
}

static void dw_task(void *ctx, size_t b, size_t e, int worker)
{
    const dw_job_t *j = ctx;
    const quant_conv_params_t *p = j->p;
    const int64_t C = p->g.C, in_plane = j->g.IH * j->g.IW, out_plane = j->g.OH * j->g.OW;
    float *P = (float *)(j->scratch + (size_t)worker * j->per_worker);
    int32_t *acc = (int32_t *)((char *)P + j->p_bytes);
    const size_t ysz = j->yt == CAIRN_U8 || j->yt == CAIRN_I8 ? 1 : 4;
    /* the f32 form's epilogue (bias, activation, residual), the 8-bit
     * form's int32 bias */
    const gemm_epilogue_t *ep = j->yt == CAIRN_F32 ? j->epi : NULL;
    for (size_t t = b; t < e; t++) {
        const int64_t c = (int64_t)t % C;
        const double bc =
            ep ? (ep->bias ? (double)ep->bias[c] : 0.0) : (j->bias ? (double)j->bias[c] : 0.0);
        const quant_dw_out_t o = {j->yt,
                                  (char *)j->Y + t * (size_t)out_plane * ysz,
                                  bc,
                                  j->yt == CAIRN_I32 ? 1.0 : (double)p->scale[p->scale_vec ? c : 0],
                                  j->yz,
                                  j->taps * 255 * 255,
                                  ep && ep->residual ? ep->residual + t * (size_t)out_plane : NULL,
                                  ep && ep->bias,
                                  ep ? (int)ep->act : GEMM_ACT_NONE,
                                  ep ? ep->clip_lo : 0.0f,
                                  ep ? ep->clip_hi : 0.0f};
        const void *xp = (const char *)j->X + t * (size_t)in_plane;
        if (j->lazy) {
            int32_t wd[3], corr;
            dw_wd(j, c, wd, &corr);
            quant_dw3_plane_vnni(&j->g, xp, wd, corr, (uint8_t *)P, acc, &o);
        } else if (j->vnni)
            quant_dw3_plane_vnni(&j->g, xp, j->wd + c * 3, j->corr[c], (uint8_t *)P, acc, &o);
        else
            j->plane(&j->g, xp, j->wf + c * j->taps, P, acc, &o);
    }
}

static cairn_status_t dw_run_all(const kctx_t *k, const quant_conv_params_t *p, const void *X,
                                 const void *W, const int32_t *bias, const void *yzp,
                                 cairn_dtype_t yt, const gemm_epilogue_t *epi, void *Y)
{
    if (!p || !X || !W || !Y)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "quant_dwconv: null parameters or data");
    const conv_params_t *g = &p->g;
    if (!quant_dw_fits(g))
        return base_error(CAIRN_ERR_UNSUPPORTED,
                          "quant_dwconv: not a depthwise convolution it runs (group %lld of %lld "
                          "channels into %lld, 1 or 2 spatial dims, dilation 1, at most %d taps, "
                          "strides at most 16 (rows) and 4 (columns), pads at most 255)",
                          (long long)g->group, (long long)g->C, (long long)g->M, QUANT_DW_MAX_TAPS);
    if ((p->xt != CAIRN_U8 && p->xt != CAIRN_I8) || (p->wt != CAIRN_U8 && p->wt != CAIRN_I8) ||
        (yt != CAIRN_I32 && yt != CAIRN_U8 && yt != CAIRN_I8 && yt != CAIRN_F32) ||
        (yt != CAIRN_I32 && !p->scale))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "quant_dwconv: x and W must be u8 or i8 and Y i32, u8, i8 or f32 (with "
                          "multipliers or scales)");
    if (epi &&
        ((epi->act != GEMM_ACT_NONE && epi->act != GEMM_ACT_RELU && epi->act != GEMM_ACT_CLIP) ||
         epi->post_act != GEMM_ACT_NONE || epi->scale != 1.0f ||
         (epi->bias && epi->bias_kind != GEMM_BIAS_ROW)))
        return base_error(CAIRN_ERR_UNSUPPORTED,
                          "quant_dwconv_f32: the epilogue takes a per-channel bias, relu or "
                          "clip, and a residual only");
    if (g->N == 0 || g->C == 0)
        return CAIRN_OK;
    dw_job_t j;
    memset(&j, 0, sizeof j);
    j.p = p, j.X = X, j.W = W, j.bias = bias, j.yt = yt, j.Y = Y, j.epi = epi;
    j.yz = yzp && (yt == CAIRN_U8 || yt == CAIRN_I8) ? q_load(yzp, yt, 0) : 0;
    quant_dw_geom_t *q = &j.g;
    q->IH = g->in[1], q->IW = g->in[2], q->OH = g->out[1], q->OW = g->out[2];
    q->KH = (int)g->kernel[1], q->KW = (int)g->kernel[2];
    q->SH = (int)g->stride[1], q->SW = (int)g->stride[2];
    q->PH = g->pad[1], q->PW = g->pad[2];
    /* rows for OH rounded up to 8: the AVX-512 3x3 kernel's blocks of 8
     * output rows read them (zeros), and drop what they compute there */
    q->rows = ((q->OH + 7) / 8 * 8 - 1) * q->SH + q->KH;
    q->ld = ((q->OW + 15) / 16 * 16 + (q->KW - 1) / q->SW + 15) / 16 * 16;
    /* the inputs the outputs read: padded rows below `rows`, padded columns
     * up to (OW - 1) SW + KW - 1 */
    q->ih1 = min64(q->IH, q->rows - q->PH);
    q->iw1 = min64(q->IW, (q->OW - 1) * q->SW + q->KW - q->PW);
    if (q->ih1 < 0)
        q->ih1 = 0;
    if (q->iw1 < 0)
        q->iw1 = 0;
    q->x_u8 = p->xt == CAIRN_U8;
    q->xz = p->xz ? q_load(p->xz, p->xt, 0) : 0;
    j.taps = (int64_t)q->KH * q->KW;
    j.plane = quant_use_avx512() ? quant_dw_plane_avx512 : quant_dw_plane_c;
    const size_t p_bytes = base_round_up((size_t)(q->SW * q->rows * q->ld) * sizeof(float), 64);
    j.p_bytes = p_bytes;
    j.per_worker = p_bytes + base_round_up((size_t)(q->OH * q->OW) * sizeof(int32_t), 64);
    int workers = k && k->pool && k->threads > 1 ? base_pool_threads(k->pool) : 1;
    if (workers < 1)
        workers = 1;
    /* the integer plane's u8 copy: a 64-byte read from each 16-output chunk
     * (16 S bytes apart) stays in a row; it takes P's place, which is
     * larger (4 S bytes a padded column against about S) */
    const int64_t nch = (q->OW + 15) / 16;
    q->ldb = (16 * (nch - 1) * q->SW + 64 + 63) / 64 * 64;
    q->xzb = q->x_u8 ? q->xz : q->xz + 128;
    j.vnni = dw_vnni_geometry(g) && (size_t)(q->rows * q->ldb) <= p_bytes;
    /* shared: the taps' offsets, w - wz of every channel (as f32, or as
     * the integer plane's bytes and its sums' start); then P per worker */
    const size_t off_bytes = base_round_up((size_t)j.taps * sizeof(int64_t), 64);
    const size_t wf_bytes = base_round_up((size_t)(g->C * j.taps) * sizeof(float), 64);
    const size_t wd_bytes = base_round_up((size_t)(g->C * 4) * sizeof(int32_t), 64);
    const size_t total = off_bytes + wf_bytes + wd_bytes + j.per_worker * (size_t)workers;
    int slot;
    char *mem = base_scratch_get(total, &slot);
    if (!mem)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY,
                          "quant_dwconv: no memory for %zu bytes of scratch", total);
    int64_t *off = (int64_t *)mem;
    float *wf = (float *)(mem + off_bytes);
    for (int64_t t = 0; t < j.taps; t++) {
        const int kh = (int)(t / q->KW), kw = (int)(t % q->KW);
        off[t] = (kw % q->SW) * q->rows * q->ld + kh * q->ld + kw / q->SW;
    }
    q->off = off;
    /* The integer plane with weights whose w - wz fit in s8 by their types
     * (i8 with zero points 0, u8 with 128: what quantize_static writes):
     * each plane makes its channel's bytes (dw_wd) on its own thread. The
     * whole layer's weights made here first, on the calling thread, were a
     * fifth of a 960-channel 7x7 layer on 1 thread (11 of 53 us) and all of
     * it waited on by the other thread. */
    if (j.vnni) {
        const int32_t want = p->wt == CAIRN_I8 ? 0 : 128;
        int fits = 1;
        for (int64_t c = 0; c < (p->wz_vec ? g->C : 1) && fits; c++)
            fits = (p->wz ? q_load(p->wz, p->wt, p->wz_vec ? c : 0) : 0) == want;
        j.lazy = fits;
    }
    /* a loop of one type each (q_load's switch a tap was 9 % of a 7x7 layer) */
    for (int64_t c = 0; c < g->C && !j.lazy; c++) {
        const int32_t wz = p->wz ? q_load(p->wz, p->wt, p->wz_vec ? c : 0) : 0;
        float *restrict d = wf + c * j.taps;
        if (p->wt == CAIRN_I8) {
            const int8_t *restrict s8 = (const int8_t *)W + c * j.taps;
            for (int64_t t = 0; t < j.taps; t++)
                d[t] = (float)(s8[t] - wz);
        } else {
            const uint8_t *restrict u8 = (const uint8_t *)W + c * j.taps;
            for (int64_t t = 0; t < j.taps; t++)
                d[t] = (float)(u8[t] - wz);
        }
    }
    j.wf = wf;
    if (j.vnni && !j.lazy) { /* every w - wz in s8, or the f32 plane after all */
        int32_t *wd = (int32_t *)(mem + off_bytes + wf_bytes), *corr = wd + 3 * g->C;
        for (int64_t c = 0; c < g->C && j.vnni; c++) {
            int32_t sum = 0;
            for (int kh = 0; kh < 3; kh++) {
                uint32_t d = 0;
                for (int kw = 0; kw < 3; kw++) {
                    const float v = wf[c * 9 + kh * 3 + kw];
                    if (v < -128.0f || v > 127.0f)
                        j.vnni = 0;
                    sum += (int32_t)v;
                    d |= (uint32_t)(uint8_t)(int8_t)(int32_t)v << (8 * kw);
                }
                wd[c * 3 + kh] = (int32_t)d;
            }
            corr[c] = -q->xzb * sum;
        }
        j.wd = wd, j.corr = corr;
    }
    j.scratch = mem + off_bytes + wf_bytes + wd_bytes;
    for (int w = 0; w < workers; w++) /* the padding: 0 for P, x's zero point for the u8 copy */
        memset(j.scratch + (size_t)w * j.per_worker, j.vnni ? q->xzb : 0,
               j.vnni ? (size_t)(q->rows * q->ldb) : p_bytes);
    const size_t planes = (size_t)(g->N * g->C);
    /* planes in runs of about an eighth of a thread's share: a plane of a
     * 7x7 layer is ~60 ns of work, and one plane a task cost more in the
     * pool's shared counter than it saved (960 x 7^2 on 2 threads: no
     * faster than on 1) */
    const size_t grain = (planes + 8 * (size_t)workers - 1) / (8 * (size_t)workers);
    if (workers == 1)
        dw_task(&j, 0, planes, 0);
    else
        base_pool_parallel_for_1d(k->pool, planes, grain, dw_task, &j);
    base_scratch_put(mem, slot);
    return CAIRN_OK;
}

cairn_status_t quant_dwconv(const kctx_t *k, const quant_conv_params_t *p, const void *X,
                            const void *W, const int32_t *bias, const void *yzp, cairn_dtype_t yt,
                            void *Y)
{
    if (yt == CAIRN_F32)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "quant_dwconv: f32 outputs go through quant_dwconv_f32");
    return dw_run_all(k, p, X, W, bias, yzp, yt, NULL, Y);
}

cairn_status_t quant_dwconv_f32(const kctx_t *k, const quant_conv_params_t *p, const void *X,
                                const void *W, const gemm_epilogue_t *epi, float *Y)
{
    return dw_run_all(k, p, X, W, NULL, NULL, CAIRN_F32, epi, Y);
}
