/*
 * Convolution of 8-bit x and W through the int8 GEMM, dequantised
 * (quant.h's quant_conv_f32: FusedConvInteger, which fuse_qdq makes of a
 * statically quantised model's Conv(DequantizeLinear(x),
 * DequantizeLinear(W))).
 *
 * Per image, as the f32 convolution (kernels/conv) does it:
 * Y[M, P] = W[M, K] col[K, P], K = C kd kh kw the taps of one output
 * channel and P the output pixels, col the im2col of the image (the image
 * itself for a 1x1 kernel of stride 1 without padding). A tap that falls
 * in the padding takes x's zero point, so that it adds (xz - xz)(w - wz) =
 * 0, which is what the dequantised zero padding of the f32 Conv adds. The
 * product, its zero-point corrections and its dequantisation (a scale per
 * output channel, a row of W, then the bias per channel and the rest of
 * the epilogue) are quant_matmul_f32's, W as its A: the sums are exact,
 * then scaled once in f32.
 *
 * The GEMM multiplies u8 by s8, so a u8 x is flipped to s8 (x ^ 0x80 =
 * x - 128, its zero point moved with it) as the im2col writes it, or for
 * a 1x1 kernel (read in place) as the GEMM packs it; an i8 x needs
 * neither.
 *
 * Cost beyond the GEMM: the im2col (K P bytes written, each input byte
 * read kd kh kw times: rows of 16-byte blocks, or for a stride-1 'same'
 * convolution one shifted copy of the plane per tap), and
 * quant_matmul_f32's own (col packed, K P; the dequantising pass over the
 * sums, in L2-sized column chunks when W comes prepared; unless W comes
 * prepared by quant_pack_a, as the prepack pass leaves it, W flipped to u8
 * with a row of ones and its row sums, M K, on every call). Group 1 only
 * (quant_conv_fast): a depthwise convolution runs in dw.c (quant_dwconv),
 * other grouped ones as exact f32 sums (ir/ops/quant.c).
 * ResNet-50 QOperator, 1 thread, Zen 4: 27.3 ms, the requantising int8
 * tiles ~63 % of it, the im2col ~6 % (docs/performance.md).
 */
#include "kernels/quant/quant.h"

#include "base/alloc.h"
#include "base/threadpool.h"

#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#define QC_SSE2 1
#else
#define QC_SSE2 0
#endif

int quant_conv_fast(const conv_params_t *g)
{
    int64_t taps = 1;
    for (int d = 0; d < CONV_SP; d++)
        taps *= g->kernel[d];
    return g->group == 1 && quant_matmul_fast(g->C * taps);
}

typedef struct qc_job {
    const conv_params_t *g;
    const uint8_t *x; /* one image, C x in... */
    uint8_t *col;     /* K x P */
    uint8_t pad;      /* the padding byte (x's zero point, flipped with the rest) */
    uint8_t flip;     /* 0x80: every byte's sign bit flipped (u8 x to s8) */
    int64_t P;
    uint8_t *pads;    /* the padded form's planes, pad_bytes a worker (qc_padded) */
    size_t pad_bytes;
} qc_job_t;

/* n bytes of v at dst: the im2col's padding runs are mostly 0 to 3 bytes
 * (a 3x3 tap's border columns, row by row), for which a call to memset
 * cost more than the bytes (2.4 % of ResNet-50 QOperator in perf) */
static inline void qc_fill(uint8_t *dst, uint8_t v, int64_t n)
{
    if (n > 16) {
        memset(dst, v, (size_t)n);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        dst[i] = v;
}

/* dst[i] = src[i * sx] ^ flip for i < n (sx 1 or 2 in 16-byte SSE2 blocks,
 * the last block overlapping the one before where n is not a multiple of
 * 16: the rows of a 56-wide plane are three blocks, not one and 24 single
 * bytes; reads stay within src[0 .. (n - 1) sx]) */
static void qc_copy_row(uint8_t *restrict dst, const uint8_t *restrict src, int64_t n, int64_t sx,
                        uint8_t flip)
{
    int64_t i = 0;
#if QC_SSE2
    if (n >= 16 && sx <= 2) {
        const __m128i f = _mm_set1_epi8((char)flip), lo = _mm_set1_epi16(0x00ff);
        for (;;) {
            if (i > n - 16)
                i = n - 16;
            __m128i v;
            if (sx == 1) {
                v = _mm_loadu_si128((const __m128i *)(src + i));
            } else { /* the even bytes of 31 (the 32nd may be past the row) */
                const __m128i a = _mm_loadu_si128((const __m128i *)(src + 2 * i));
                __m128i b = _mm_loadu_si128((const __m128i *)(src + 2 * i + 15));
                b = _mm_srli_si128(b, 1); /* bytes 16..30 at 0..14 */
                v = _mm_packus_epi16(_mm_and_si128(a, lo), _mm_and_si128(b, lo));
            }
            _mm_storeu_si128((__m128i *)(dst + i), _mm_xor_si128(v, f));
            if (i == n - 16)
                return;
            i += 16;
        }
    }
#endif
    for (; i < n; i++)
        dst[i] = src[i * sx] ^ flip;
}

/* col row of tap (ty, tx) of channel c for a 2-D stride-1 convolution
 * whose output rows are as wide as the input's (OW == IW: 'same' padding):
 * the plane shifted by dy rows and dx columns, one long copy of the rows
 * that fall inside (the two planes have the same row stride), then the dx
 * columns that wrapped to a neighbouring row set to the padding byte, and
 * the rows above and below. A 56-wide plane's 56 short row copies were
 * most of the im2col's time. */
static void qc_shift_plane(const qc_job_t *j, uint8_t *dst, const uint8_t *plane, int64_t dy,
                           int64_t dx)
{
    const conv_params_t *g = j->g;
    const int64_t IH = g->in[1], W = g->in[2], OH = g->out[1];
    int64_t ylo = dy < 0 ? -dy : 0, yhi = IH - dy < OH ? IH - dy : OH;
    ylo = ylo > OH ? OH : ylo;
    yhi = yhi < ylo ? ylo : yhi;
    qc_fill(dst, j->pad, ylo * W);
    qc_fill(dst + yhi * W, j->pad, (OH - yhi) * W);
    if (yhi == ylo)
        return;
    /* positions p of the rows inside read plane[p + shift]; those whose
     * source would fall before or past the plane are border columns */
    const int64_t shift = dy * W + dx;
    int64_t p0 = ylo * W, p1 = yhi * W;
    if (p0 + shift < 0)
        p0 = -shift;
    if (p1 + shift > IH * W)
        p1 = IH * W - shift;
    if (p1 > p0)
        qc_copy_row(dst + p0, plane + p0 + shift, p1 - p0, 1, j->flip);
    /* the wrapped columns [c0, c1) of each row (all of them when |dx| >= W) */
    const int64_t c0 = dx <= 0 ? 0 : (W - dx > 0 ? W - dx : 0);
    const int64_t c1 = dx >= 0 ? W : (-dx < W ? -dx : W);
    if (dx != 0)
        for (int64_t y = ylo; y < yhi; y++)
            qc_fill(dst + y * W + c0, j->pad, c1 - c0);
}

/* The padded form (qc_im2col's 2-D planes other than the wide stride-1
 * 'same' ones): channel c's plane copied once, flipped, into pp with the
 * padding byte around it, PH x PW bytes (the rows and columns the windows
 * reach) and QC_PAD_SLACK more; each of its taps' rows is then OH runs of
 * OW bytes at a stride, copied 16 output bytes at a time (stride 2: the
 * even bytes of 32) with no bounds to check on the reads; a vector that
 * would end past the col row goes through a small buffer (qc_pad_row).
 * ResNet-50 QOperator's stride-2 3x3s and
 * their 1x1 downsamples (output rows of 7 and 14 bytes, copied a byte at a
 * time by the row path) ran at ~1 byte a ns, the 7x7 and 14x14 stride-1
 * ones (shifted planes of 49 and 196 bytes, a padding fix per row) at 2-5;
 * the im2col was 8.5 % of the model (2.4 ms a run). */
#define QC_PAD_MAX (256 * 1024) /* PH x PW at most (a worker's plane, in L2) */
#define QC_PAD_SLACK 64

static void qc_pad_geom(const conv_params_t *g, int64_t *ph, int64_t *pw)
{
    *ph = (g->out[1] - 1) * g->stride[1] + (g->kernel[1] - 1) * g->dilation[1] + 1;
    *pw = (g->out[2] - 1) * g->stride[2] + (g->kernel[2] - 1) * g->dilation[2] + 1;
}

/* 2-D, stride 1 or 2 across, the padded plane within QC_PAD_MAX; not a
 * stride-1 'same' plane of rows 28 bytes or more (one long shifted copy
 * there: 28x28 and 56x56 planes 20 % slower padded), nor a 1x1 kernel
 * whose rows the row path copies by vectors (16 bytes or more: the plane's
 * copy is then a second pass for one tap; ResNet-50's 56x56 downsample
 * 37 -> 57 us padded, its 28x28 one, rows of 14, 72 -> 47). Per call,
 * ResNet-50 QOperator, 1 thread, Zen 4, row or shifted path -> padded:
 * 3x3/2 at 56x56 172 -> 88 us, at 28x28 322 -> 74, at 14x14 263 -> 97;
 * 3x3/1 at 14x14 86 -> 73, at 7x7 108 -> 86; the 7x7/2 stem 194 -> 165. */
static int qc_padded(const conv_params_t *g)
{
    if (g->in[0] != 1 || g->out[0] != 1 || g->kernel[0] != 1 ||
        (g->stride[2] != 1 && g->stride[2] != 2))
        return 0;
    if (g->stride[1] == 1 && g->stride[2] == 1 && g->out[2] == g->in[2] && g->out[2] >= 28)
        return 0;
    if (g->kernel[1] == 1 && g->kernel[2] == 1 && g->out[2] >= 16)
        return 0;
    int64_t ph, pw;
    qc_pad_geom(g, &ph, &pw);
    return ph * pw <= QC_PAD_MAX - QC_PAD_SLACK;
}

/* channel c's plane into pp: padded row py is input row py - pad[1] */
static void qc_pad_plane(const qc_job_t *j, int64_t c, uint8_t *pp, int64_t PH, int64_t PW)
{
    const conv_params_t *g = j->g;
    const int64_t IH = g->in[1], IW = g->in[2], pt = g->pad[1], pl = g->pad[2];
    const uint8_t *plane = j->x + c * IH * IW;
    /* the input columns inside the padded row: [x0, x1) of it */
    const int64_t x0 = pl < PW ? pl : PW, x1 = pl + IW < PW ? pl + IW : PW;
    for (int64_t py = 0; py < PH; py++) {
        uint8_t *d = pp + py * PW;
        const int64_t iy = py - pt;
        if (iy < 0 || iy >= IH) {
            memset(d, j->pad, (size_t)PW);
            continue;
        }
        qc_fill(d, j->pad, x0);
        if (x1 > x0)
            qc_copy_row(d + x0, plane + iy * IW, x1 - x0, 1, j->flip);
        qc_fill(d + x1, j->pad, PW - x1);
    }
    memset(pp + PH * PW, j->pad, QC_PAD_SLACK);
}

/* 16 output bytes from src at stride sx (1 or 2) into dst, reading up to
 * 16 sx bytes */
static inline void qc_run16(uint8_t *dst, const uint8_t *src, int64_t sx)
{
#if QC_SSE2
    __m128i v;
    if (sx == 1) {
        v = _mm_loadu_si128((const __m128i *)src);
    } else {
        const __m128i lo = _mm_set1_epi16(0x00ff);
        const __m128i a = _mm_loadu_si128((const __m128i *)src);
        const __m128i b = _mm_loadu_si128((const __m128i *)(src + 16));
        v = _mm_packus_epi16(_mm_and_si128(a, lo), _mm_and_si128(b, lo));
    }
    _mm_storeu_si128((__m128i *)dst, v);
#else
    for (int i = 0; i < 16; i++)
        dst[i] = src[i * sx];
#endif
}

/* tap (ty, tx)'s row of col (OH OW bytes at dst) from the padded plane
 * pp: a vector that ends inside the row is stored whole (what it writes
 * past its run is the later runs' place, written after it), one that
 * would end past the row through a buffer (the row's end is the next
 * row's start, another task's, or the end of col) */
static void qc_pad_row(const conv_params_t *g, const uint8_t *pp, int64_t PW, int64_t ty,
                       int64_t tx, uint8_t *dst)
{
    const int64_t OH = g->out[1], OW = g->out[2], sy = g->stride[1], sx = g->stride[2];
    const uint8_t *src = pp + ty * g->dilation[1] * PW + tx * g->dilation[2];
    const uint8_t *end = dst + OH * OW;
    for (int64_t oy = 0; oy < OH; oy++, src += sy * PW, dst += OW)
        for (int64_t i = 0; i < OW; i += 16) {
            if (dst + i + 16 <= end) {
                qc_run16(dst + i, src + i * sx, sx);
            } else {
                uint8_t t[16];
                qc_run16(t, src + i * sx, sx);
                memcpy(dst + i, t, (size_t)(OW - i < 16 ? OW - i : 16));
            }
        }
}

/* rows [r0, r1) of col: row r is channel r / taps, tap r % taps */
static void qc_im2col(void *ctx, size_t r0, size_t r1, int worker)
{
    const qc_job_t *j = ctx;
    const conv_params_t *g = j->g;
    const int64_t kd = g->kernel[0], kh = g->kernel[1], kw = g->kernel[2];
    const int64_t taps = kd * kh * kw;
    const int64_t ID = g->in[0], IH = g->in[1], IW = g->in[2];
    const int64_t OD = g->out[0], OH = g->out[1], OW = g->out[2];
    if (qc_padded(g)) {
        uint8_t *pp = j->pads + (size_t)worker * j->pad_bytes;
        int64_t PH, PW, have = -1;
        qc_pad_geom(g, &PH, &PW);
        for (size_t r = r0; r < r1; r++) {
            const int64_t c = (int64_t)r / taps, t = (int64_t)r % taps;
            if (c != have)
                qc_pad_plane(j, c, pp, PH, PW), have = c;
            qc_pad_row(g, pp, PW, t / kw, t % kw, j->col + (int64_t)r * j->P);
        }
        return;
    }
    const int shifted = ID == 1 && OD == 1 && kd == 1 && g->stride[1] == 1 &&
                        g->stride[2] == 1 && OW == IW;
    for (size_t r = r0; r < r1; r++) {
        if (shifted) {
            const int64_t c = (int64_t)r / taps, t = (int64_t)r % taps;
            const int64_t dy = (t / kw) * g->dilation[1] - g->pad[1];
            const int64_t dx = (t % kw) * g->dilation[2] - g->pad[2];
            qc_shift_plane(j, j->col + (int64_t)r * j->P, j->x + c * IH * IW, dy, dx);
            continue;
        }
        const int64_t c = (int64_t)r / taps, t = (int64_t)r % taps;
        const int64_t tz = t / (kh * kw), ty = (t / kw) % kh, tx = t % kw;
        uint8_t *dst = j->col + (int64_t)r * j->P;
        /* the output columns whose input column is inside: [xlo, xhi) */
        const int64_t x0 = tx * g->dilation[2] - g->pad[2], sx = g->stride[2];
        int64_t xlo = x0 >= 0 ? 0 : (-x0 + sx - 1) / sx;
        int64_t xhi = IW - x0 <= 0 ? 0 : (IW - x0 + sx - 1) / sx;
        xhi = xhi > OW ? OW : xhi;
        xlo = xlo > xhi ? xhi : xlo;
        for (int64_t oz = 0; oz < OD; oz++) {
            const int64_t iz = oz * g->stride[0] - g->pad[0] + tz * g->dilation[0];
            for (int64_t oy = 0; oy < OH; oy++, dst += OW) {
                const int64_t iy = oy * g->stride[1] - g->pad[1] + ty * g->dilation[1];
                if (iz < 0 || iz >= ID || iy < 0 || iy >= IH) {
                    qc_fill(dst, j->pad, OW);
                    continue;
                }
                const uint8_t *row = j->x + ((c * ID + iz) * IH + iy) * IW;
                qc_fill(dst, j->pad, xlo);
                if (xhi > xlo)
                    qc_copy_row(dst + xlo, row + x0 + xlo * sx, xhi - xlo, sx, j->flip);
                qc_fill(dst + xhi, j->pad, OW - xhi);
            }
        }
    }
}

/* quant_conv_f32 (Yf, epi) or quant_conv_i32 (Yi): the im2col per image,
 * then the dequantising or the int32 product */
/* the requantising form's output: 8-bit Y, bias, y's zero point */
typedef struct qc_q8 {
    void *y;
    cairn_dtype_t yt;
    const int32_t *bias;
    const void *yzp;
} qc_q8_t;

static cairn_status_t qc_run(const kctx_t *k, const quant_conv_params_t *p, const void *X,
                             const void *W, const gemm_epilogue_t *epi, float *Yf, int32_t *Yi,
                             const qc_q8_t *yq)
{
    const conv_params_t *g = &p->g;
    if (!quant_conv_fast(g) || (p->xt != CAIRN_U8 && p->xt != CAIRN_I8) ||
        (p->wt != CAIRN_U8 && p->wt != CAIRN_I8) || ((Yf || yq) && !p->scale))
        return base_error(CAIRN_ERR_UNSUPPORTED,
                          "%s: group %lld, %s x, %s W: only group 1, 8-bit operands and a K "
                          "within the int8 GEMM's",
                          Yf ? "quant_conv_f32" : yq ? "quant_conv_q8" : "quant_conv_i32",
                          (long long)g->group, cairn_dtype_name(p->xt), cairn_dtype_name(p->wt));
    int64_t taps = 1, P = 1, HWin = 1;
    int direct = 1;
    for (int d = 0; d < CONV_SP; d++) {
        taps *= g->kernel[d], P *= g->out[d], HWin *= g->in[d];
        direct &= g->kernel[d] == 1 && g->stride[d] == 1 && g->pad[d] == 0 &&
                  g->in[d] == g->out[d];
    }
    const int64_t K = g->C * taps, M = g->M;
    if (g->N <= 0 || M <= 0 || P <= 0)
        return CAIRN_OK;
    /* the GEMM's B is s8: a u8 x is flipped as the im2col writes it, its
     * zero point with it; a 1x1 kernel's x is read in place, a u8 one
     * flipped by the GEMM as it packs it (quant_matmul with a u8 B) */
    const int flip = p->xt == CAIRN_U8, in_place = direct;
    const int32_t xz = p->xz ? (p->xt == CAIRN_U8 ? *(const uint8_t *)p->xz
                                                  : *(const int8_t *)p->xz)
                             : 0;
    const int8_t bz = (int8_t)(flip ? xz - 128 : xz);
    const uint8_t xz_u8 = (uint8_t)xz;
    int slot = -1;
    uint8_t *col = NULL;
    /* the padded form's planes after col, one a worker */
    const int workers = k && k->pool && k->threads > 1 ? base_pool_threads(k->pool) : 1;
    size_t pad_bytes = 0;
    if (!in_place && qc_padded(g)) {
        int64_t PH, PW;
        qc_pad_geom(g, &PH, &PW);
        pad_bytes = ((size_t)(PH * PW) + QC_PAD_SLACK + 63) / 64 * 64;
    }
    const size_t col_bytes = ((size_t)(K * P) + 63) / 64 * 64;
    if (!in_place) {
        col = base_scratch_get(col_bytes + pad_bytes * (size_t)workers, &slot);
        if (!col)
            return base_error(CAIRN_ERR_OUT_OF_MEMORY,
                              "8-bit convolution: no memory for a %lld x %lld im2col",
                              (long long)K, (long long)P);
    }
    quant_mm_params_t mp;
    memset(&mp, 0, sizeof mp);
    mp.M = M, mp.K = K, mp.N = P;
    mp.at = p->wt, mp.bt = in_place && flip ? CAIRN_U8 : CAIRN_I8, mp.yt = CAIRN_DTYPE_UNDEFINED;
    mp.azp = p->wz, mp.azp_vec = p->wz_vec;
    mp.bzp = in_place && flip ? (const void *)&xz_u8 : (const void *)&bz;
    mp.a_packed = p->w_packed;
    gemm_epilogue_t e;
    if (epi)
        e = *epi;
    else
        memset(&e, 0, sizeof e), e.scale = 1.0f;
    cairn_status_t st = CAIRN_OK;
    for (int64_t n = 0; n < g->N && st == CAIRN_OK; n++) {
        const uint8_t *xn = (const uint8_t *)X + n * g->C * HWin;
        const void *B = xn;
        if (!in_place) {
            /* rows of col in four pieces a thread: a row can be 49 bytes
             * (7x7 planes), and one row a task cost more in the pool's
             * shared counter than the rows' copies (ResNet-50's last 3x3
             * convolutions ran no faster on 2 threads than on 1) */
            qc_job_t j = {g, xn, col, (uint8_t)(bz), flip ? 0x80u : 0, P, col + col_bytes,
                          pad_bytes};
            const int par = k && k->pool && k->threads > 1 && K * P >= 65536;
            size_t grain = par ? (size_t)((K + 4 * k->threads - 1) / (4 * k->threads)) : (size_t)K;
            if (qc_padded(g)) /* whole channels a task: each builds its padded plane once */
                grain = (grain + (size_t)taps - 1) / (size_t)taps * (size_t)taps;
            base_pool_parallel_for_1d(par ? k->pool : NULL, (size_t)K, grain,
                                      qc_im2col, &j);
            B = col;
        }
        if (epi && epi->residual)
            e.residual = epi->residual + n * M * P, e.ldr = P;
        if (Yf)
            st = quant_matmul_f32(k, &mp, W, B, 0, p->scale,
                                  p->scale_vec ? QUANT_SCALE_ROW : QUANT_SCALE_ONE, &e,
                                  Yf + n * M * P);
        else if (yq)
            st = quant_matmul_q8(k, &mp, W, B, 0, p->scale,
                                 p->scale_vec ? QUANT_SCALE_ROW : QUANT_SCALE_ONE, yq->bias,
                                 yq->yzp, yq->yt, (char *)yq->y + n * M * P);
        else
            st = quant_matmul(k, &mp, W, B, Yi + n * M * P);
    }
    if (slot >= 0)
        base_scratch_put(col, slot);
    return st;
}

cairn_status_t quant_conv_f32(const kctx_t *k, const quant_conv_params_t *p, const void *X,
                              const void *W, const gemm_epilogue_t *epi, float *Y)
{
    if (!Y)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "quant_conv_f32: null output");
    return qc_run(k, p, X, W, epi, Y, NULL, NULL);
}

cairn_status_t quant_conv_q8(const kctx_t *k, const quant_conv_params_t *p, const void *X,
                             const void *W, const int32_t *bias, const void *yzp,
                             cairn_dtype_t yt, void *Y)
{
    if (!Y || (yt != CAIRN_U8 && yt != CAIRN_I8))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "quant_conv_q8: a u8 / i8 output buffer is needed");
    const qc_q8_t q = {Y, yt, bias, yzp};
    return qc_run(k, p, X, W, NULL, NULL, NULL, &q);
}

cairn_status_t quant_conv_i32(const kctx_t *k, const quant_conv_params_t *p, const void *X,
                              const void *W, int32_t *Y)
{
    if (!Y)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "quant_conv_i32: null output");
    return qc_run(k, p, X, W, NULL, NULL, Y, NULL);
}
