/*
 * AVX2 + FMA depthwise Conv (f32). conv_dw_planes8_f32_avx2 (at the end of
 * the file) runs 8 channels at once with the channels as the lanes; fast.c
 * uses it for every plane geometry it fits (rows up to 512 outputs wide).
 * The plane kernel below, one (n, c) plane at a time, runs the others; the
 * same contract and layout as the AVX-512 kernel (x86_avx512.c) at 8 lanes.
 *
 * Each input row is copied once into a ring of padded rows on the stack
 * (zero margins for the padding and for the spare lanes of a row's last
 * vector), so every output vector, borders included, is 8 outputs computed
 * with plain loads, up to eight vectors at once (eight independent FMA
 * chains cover the FMA latency). Kernel rows that fall outside the input
 * are dropped once per output row. Rows too wide for the ring (more than
 * 8192 floats for all kernel rows) run the direct path: interior vectors
 * straight from x, border vectors with loads masked to the row. The bias
 * starts the accumulators; ReLU and Clip (ReLU6) and the residual are
 * applied in registers before the one store; other activations go through
 * the scalar epilogue. A row's partial last vector is stored with plain
 * 4/2/1-float stores (masked stores are microcoded on AMD).
 *
 * Loads:
 *  - stride 1: 8 contiguous inputs, one unaligned load;
 *  - stride 2: inputs b[0], b[2], ..., b[14] come from the two loads
 *    b[0..7] and b[7..14] (not b[8..15], which would read one float past
 *    the last tap), de-interleaved by one shuffle and one lane permute;
 *  - larger strides: a gather;
 *  - direct-path borders: vmaskmovps, which never faults on a masked-off
 *    lane.
 *
 * Floor: the kernel is memory-bound (K*K FMAs per output against 4 bytes
 * read and 4 written per element): bytes = 4 * (C*IH*IW + C*OH*OW)
 * (+ the residual), e.g. 32x112x112 3x3 stride 1: 3.2 MB, 0.22 ms at the
 * 14.8 GB/s one-thread DRAM roof, less when the planes come from L3.
 * Compute: 9 FMAs and 9 loads (stride 2: 18 loads and 18 shuffle uops) per
 * 8 outputs. Compiled with -mavx2 -mfma (CMakeLists.txt); called only
 * after the CPU check in fast.c.
 */
#include "kernels/conv/conv.h"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include "kernels/vmath/transpose_avx2.h"

/* lanes i with lo <= i < hi */
static inline __m256i mask_range(int64_t lo, int64_t hi)
{
    lo = lo < -1 ? -1 : lo > 8 ? 8 : lo;
    hi = hi < -1 ? -1 : hi > 8 ? 8 : hi;
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_and_si256(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32((int)lo - 1)),
                            _mm256_cmpgt_epi32(_mm256_set1_epi32((int)hi), idx));
}

/* b[0], b[2], ..., b[14] from lo = b[0..7] and hi = b[7..14]. */
static inline __m256 even_of(__m256 lo, __m256 hi)
{
    /* per 128-bit lane: lo[0], lo[2], hi[1], hi[3] -> b0 b2 b8 b10 | b4 b6 b12 b14 */
    __m256 t = _mm256_shuffle_ps(lo, hi, 0xD8);
    /* 64-bit quarters 0 2 1 3 -> b0 b2 b4 b6 b8 b10 b12 b14 */
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(t), 0xD8));
}

/* Eight interior inputs b[0], b[s], ..., b[7s] (every one inside the row;
 * stride 2 reads b[0..14] only). */
static inline __m256 load_full(const float *b, int64_t s, __m256i gidx)
{
    if (s == 1)
        return _mm256_loadu_ps(b);
    if (s == 2)
        return even_of(_mm256_loadu_ps(b), _mm256_loadu_ps(b + 7));
    return _mm256_i32gather_ps(b, gidx, 4);
}

/* The same eight inputs where some fall outside the row: row[pos + j*s]
 * for lanes whose position lies in [0, IW), 0 for the others (the
 * padding). Masked-off lanes read nothing. */
static inline __m256 load_clipped(const float *row, int64_t IW, int64_t pos, int64_t s)
{
    if (s == 1)
        return _mm256_maskload_ps(row + pos, mask_range(-pos, IW - pos));
    if (s == 2) {
        __m256 lo = _mm256_maskload_ps(row + pos, mask_range(-pos, IW - pos));
        __m256 hi = _mm256_maskload_ps(row + pos + 7, mask_range(-pos - 7, IW - pos - 7));
        return even_of(lo, hi);
    }
    float t[8];
    for (int j = 0; j < 8; j++) {
        const int64_t q = pos + j * s;
        t[j] = q >= 0 && q < IW ? row[q] : 0.0f;
    }
    return _mm256_loadu_ps(t);
}

/* ReLU and Clip as gemm_act_apply_f32 computes them: maxps returns its
 * second operand for a NaN, as fmaxf(NaN, lo) = lo and (NaN > 0 ? : 0). */
static inline __m256 dw_act_vec(__m256 v, gemm_act_t act, float lo, float hi)
{
    if (act == GEMM_ACT_RELU)
        return _mm256_max_ps(v, _mm256_setzero_ps());
    if (act == GEMM_ACT_CLIP)
        return _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
    return v;
}

static inline int dw_act_simple(gemm_act_t act)
{
    return act == GEMM_ACT_NONE || act == GEMM_ACT_RELU || act == GEMM_ACT_CLIP;
}

/* The whole post-op on one output: act, + residual (res: NULL for none), post_act. */
static inline float dw_post_one(float v, const conv_post_t *post, const float *res)
{
    if (!post)
        return v;
    v = gemm_act_apply_f32(post->act, v, post->clip_lo, post->clip_hi);
    if (res)
        v += *res;
    return gemm_act_apply_f32(post->post_act, v, post->post_lo, post->post_hi);
}

/* One output row's setup: the valid kernel rows, each as its input row
 * and its weight row. */
typedef struct dw_row {
    const float *xr[64]; /* input row of each valid kernel row */
    const float *wr[64]; /* its weights */
    int nkh;
    int64_t IW, KW, sw, dw, pad;
    const conv_post_t *post;
    int simple; /* activation done in registers */
    float bias;
} dw_row_t;

/* Stores lanes [0, n) of v, n in 1..7, with plain stores (a masked store
 * is microcoded on AMD). */
static inline void store_part(float *yo, __m256 v, int n)
{
    __m128 h = _mm256_castps256_ps128(v);
    if (n & 4) {
        _mm_storeu_ps(yo, h);
        h = _mm256_extractf128_ps(v, 1);
        yo += 4;
    }
    if (n & 2) {
        _mm_storel_pi((__m64 *)(void *)yo, h);
        h = _mm_movehl_ps(h, h);
        yo += 2;
    }
    if (n & 1)
        _mm_store_ss(yo, h);
}

/* Applies the epilogue to acc (outputs yo[0 .. n), n in 1..8) and stores. */
static inline void dw_store(const dw_row_t *r, __m256 acc, const float *res, float *yo, int n)
{
    const conv_post_t *post = r->post;
    if (r->simple) {
        if (post)
            acc = dw_act_vec(acc, post->act, post->clip_lo, post->clip_hi);
        if (n >= 8) {
            if (res)
                acc = _mm256_add_ps(acc, _mm256_loadu_ps(res));
        } else {
            if (res)
                acc = _mm256_add_ps(acc, _mm256_maskload_ps(res, mask_range(0, n)));
        }
        if (post)
            acc = dw_act_vec(acc, post->post_act, post->post_lo, post->post_hi);
        if (n >= 8)
            _mm256_storeu_ps(yo, acc);
        else
            store_part(yo, acc, n);
    } else {
        float t[8];
        _mm256_storeu_ps(t, acc);
        for (int j = 0; j < n; j++)
            yo[j] = dw_post_one(t[j], post, res ? res + j : NULL);
    }
}

/* NV (1, 2, 4 or 8) vectors of outputs from ow, the last holding `last`
 * (1..8) outputs, with plain loads: every input they read lies in the
 * row (the interior of an unpadded row, or a padded row copy whose zero
 * margins cover the padding and the last vector's spare lanes). NV
 * independent FMA chains: a chain adds one FMA per tap, so 8 of them keep
 * both FMA pipes busy through the 5-cycle latency. S: the stride when
 * known at compile time (1, 2), else 0 (r->sw, by gather). */
static inline __attribute__((always_inline)) void
dw_bulk(const dw_row_t *r, int64_t ow, int NV, int64_t S, int last, const float *res, float *yr)
{
    const int64_t s = S ? S : r->sw, KW = r->KW, dw = r->dw;
    const __m256i gidx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                            _mm256_set1_epi32((int)s));
    __m256 a[8];
    for (int v = 0; v < NV; v++)
        a[v] = _mm256_set1_ps(r->bias);
    for (int i = 0; i < r->nkh; i++) {
        const float *b = r->xr[i] + ow * s - r->pad;
        const float *wr = r->wr[i];
        for (int64_t kw = 0; kw < KW; kw++, b += dw) {
            const __m256 wv = _mm256_broadcast_ss(wr + kw);
#pragma GCC unroll 8
            for (int v = 0; v < NV; v++)
                a[v] = _mm256_fmadd_ps(wv, load_full(b + 8 * v * s, s, gidx), a[v]);
        }
    }
#pragma GCC unroll 8
    for (int v = 0; v < NV; v++)
        dw_store(r, a[v], res ? res + ow + 8 * v : NULL, yr + ow + 8 * v, v == NV - 1 ? last : 8);
}

/* Outputs [a, b) in vectors: blocks of 8, 4, 2, 1 vectors, the last one
 * partial when b - a is not a multiple of 8. Inlined per stride, so no
 * call (and no vzeroupper) separates the blocks of a row. */
static inline __attribute__((always_inline)) void
dw_run(const dw_row_t *r, int64_t S, int64_t a, int64_t b, const float *res, float *yr)
{
    for (; a + 64 <= b; a += 64)
        dw_bulk(r, a, 8, S, 8, res, yr);
    while (a < b) {
        const int64_t nvec = (b - a + 7) / 8;
        const int nv = nvec >= 4 ? 4 : nvec >= 2 ? 2 : 1;
        const int last = a + 8 * nv <= b ? 8 : (int)(b - (a + 8 * nv - 8));
        if (nv == 4)
            dw_bulk(r, a, 4, S, last, res, yr);
        else if (nv == 2)
            dw_bulk(r, a, 2, S, last, res, yr);
        else
            dw_bulk(r, a, 1, S, last, res, yr);
        a += 8 * nv;
    }
}

/* Outputs [ow, ow1) (at most 16) touching the padding or the row's end:
 * every load masked to the row, up to two independent chains. */
static void dw_edge(const dw_row_t *r, int64_t ow, int64_t ow1, const float *res, float *yr)
{
    const int64_t s = r->sw;
    const int two = ow1 - ow > 8;
    __m256 a0 = _mm256_set1_ps(r->bias), a1 = a0;
    for (int i = 0; i < r->nkh; i++) {
        const float *row = r->xr[i];
        int64_t pos = ow * s - r->pad;
        for (int64_t kw = 0; kw < r->KW; kw++, pos += r->dw) {
            const __m256 wv = _mm256_broadcast_ss(r->wr[i] + kw);
            a0 = _mm256_fmadd_ps(wv, load_clipped(row, r->IW, pos, s), a0);
            if (two)
                a1 = _mm256_fmadd_ps(wv, load_clipped(row, r->IW, pos + 8 * s, s), a1);
        }
    }
    const int64_t n0 = ow1 - ow < 8 ? ow1 - ow : 8;
    dw_store(r, a0, res ? res + ow : NULL, yr + ow, (int)n0);
    if (two)
        dw_store(r, a1, res ? res + ow + 8 : NULL, yr + ow + 8, (int)(ow1 - ow - 8));
}

/* Outputs [a, b) by edge calls of up to 16. */
static void dw_edges(const dw_row_t *r, int64_t a, int64_t b, const float *res, float *yr)
{
    for (; a < b; a += 16)
        dw_edge(r, a, b - a < 16 ? b : a + 16, res, yr);
}

/* Padded-row path: each input row is copied once into a ring of padded
 * rows (zero margins for the padding and for the last vector's spare
 * lanes), so every output vector, borders included, runs the plain-load
 * bulk kernels. The copy costs one load and store per input element
 * against KH*KW FMAs per output. Ring: R = (KH-1)*dilation + 1 rows (the
 * rows one output row spans, distinct modulo R) of PW floats, on the stack. */
#define DW_RING_FLOATS 8192

/* Geometry of the padded-row path; 0 when the plane does not fit it. */
static int dw_padded_fits(const conv_params_t *p, int64_t *pw)
{
    const int64_t IW = p->in[2], OW = p->out[2], KW = p->kernel[2], PL = p->pad[2];
    const int64_t R = (p->kernel[1] - 1) * p->dilation[1] + 1;
    if (PL < 0 || PL > 4096 || R > 64)
        return 0;
    const int64_t owv = (OW + 7) / 8 * 8;
    int64_t need = (owv - 1) * p->stride[2] + (KW - 1) * p->dilation[2] + 1;
    if (need < PL + IW)
        need = PL + IW;
    *pw = (need + 7) / 8 * 8;
    return R * *pw <= DW_RING_FLOATS;
}

static inline __attribute__((always_inline)) void
dw_padded(const conv_params_t *p, const float *x, int64_t S, int64_t PW, dw_row_t *r,
          const float *res, float *y)
{
    const int64_t IH = p->in[1], IW = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t KH = p->kernel[1], KW = p->kernel[2], PL = p->pad[2];
    const int64_t R = (KH - 1) * p->dilation[1] + 1;
    float ring[DW_RING_FLOATS] __attribute__((aligned(32)));
    int64_t tag[64];
    for (int64_t i = 0; i < R * PW; i += 8)
        _mm256_store_ps(ring + i, _mm256_setzero_ps());
    for (int64_t i = 0; i < R; i++)
        tag[i] = -1;
    const float *w0 = r->wr[0]; /* the plane's weights */
    r->pad = 0;
    for (int64_t oh = 0; oh < OH; oh++) {
        r->nkh = 0;
        const int64_t ih0 = oh * p->stride[1] - p->pad[1];
        int64_t slot = ih0 % R; /* slot of ih = ih mod R (ih0 may be negative) */
        if (slot < 0)
            slot += R;
        for (int64_t kh = 0; kh < KH; kh++) {
            const int64_t ih = ih0 + kh * p->dilation[1];
            if (kh) {
                slot += p->dilation[1];
                while (slot >= R)
                    slot -= R;
            }
            if (ih < 0 || ih >= IH)
                continue;
            float *pr = ring + slot * PW;
            if (tag[slot] != ih) {
                const float *src = x + ih * IW;
                float *dst = pr + PL;
                int64_t i = 0;
                for (; i + 8 <= IW; i += 8) {
                    __m256 v = _mm256_loadu_ps(src + i);
                    /* an empty asm on the value keeps GCC from turning the loop
                     * into a memcpy call (with a vzeroupper) per row */
                    __asm__("" : "+x"(v));
                    _mm256_storeu_ps(dst + i, v);
                }
                for (; i < IW; i++)
                    dst[i] = src[i];
                tag[slot] = ih;
            }
            r->xr[r->nkh] = pr;
            r->wr[r->nkh++] = w0 + kh * KW;
        }
        dw_run(r, S, 0, OW, res ? res + oh * OW : NULL, y + oh * OW);
    }
}

static void dw_padded_s1(const conv_params_t *p, const float *x, int64_t PW, dw_row_t *r,
                         const float *res, float *y)
{
    dw_padded(p, x, 1, PW, r, res, y);
}
static void dw_padded_s2(const conv_params_t *p, const float *x, int64_t PW, dw_row_t *r,
                         const float *res, float *y)
{
    dw_padded(p, x, 2, PW, r, res, y);
}
static void dw_padded_sn(const conv_params_t *p, const float *x, int64_t PW, dw_row_t *r,
                         const float *res, float *y)
{
    dw_padded(p, x, 0, PW, r, res, y);
}

/* Rows too wide for the ring: interior outputs by the bulk kernels straight
 * from x, the borders by masked loads. */
static inline __attribute__((always_inline)) void
dw_direct(const conv_params_t *p, const float *x, const float *w, int64_t S, dw_row_t *r,
          const float *res, float *y)
{
    const int64_t IH = p->in[1], IW = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t KH = p->kernel[1], KW = p->kernel[2], sw = p->stride[2];
    /* interior outputs [lo, hi): every kw in range; the first tap bounds
     * the start, the last the end */
    const int64_t off0 = -p->pad[2], offl = (KW - 1) * p->dilation[2] - p->pad[2];
    int64_t lo = off0 >= 0 ? 0 : (-off0 + sw - 1) / sw;
    int64_t hi = IW - 1 - offl < 0 ? 0 : (IW - 1 - offl) / sw + 1;
    if (hi > OW)
        hi = OW;
    if (lo > OW)
        lo = OW;
    if (hi < lo)
        hi = lo;
    /* bulk vectors: full ones only, from the first multiple of 8 at or past lo */
    const int64_t b0 = (lo + 7) / 8 * 8;
    const int64_t nbulk = hi > b0 ? (hi - b0) / 8 : 0, b1 = b0 + 8 * nbulk;
    r->pad = p->pad[2];
    for (int64_t oh = 0; oh < OH; oh++) {
        float *yr = y + oh * OW;
        const float *rr = res ? res + oh * OW : NULL;
        r->nkh = 0;
        for (int64_t kh = 0; kh < KH; kh++) {
            const int64_t ih = oh * p->stride[1] - p->pad[1] + kh * p->dilation[1];
            if (ih >= 0 && ih < IH) {
                r->xr[r->nkh] = x + ih * IW;
                r->wr[r->nkh++] = w + kh * KW;
            }
        }
        if (nbulk == 0) {
            dw_edges(r, 0, OW, rr, yr);
            continue;
        }
        dw_edges(r, 0, b0, rr, yr);
        dw_run(r, S, b0, b1, rr, yr);
        dw_edges(r, b1, OW, rr, yr);
    }
}

static void dw_direct_s1(const conv_params_t *p, const float *x, const float *w, dw_row_t *r,
                         const float *res, float *y)
{
    dw_direct(p, x, w, 1, r, res, y);
}
static void dw_direct_s2(const conv_params_t *p, const float *x, const float *w, dw_row_t *r,
                         const float *res, float *y)
{
    dw_direct(p, x, w, 2, r, res, y);
}
static void dw_direct_sn(const conv_params_t *p, const float *x, const float *w, dw_row_t *r,
                         const float *res, float *y)
{
    dw_direct(p, x, w, 0, r, res, y);
}

/* Small planes at stride 1 (MobileNet's 7x7 to 56x56): the row path pays a
 * setup per output row that outweighs the few vectors of a 7- or 14-wide
 * row. Here the plane is copied once into a zero-padded PH x PW buffer and
 * the output computed on the flattened padded grid: output (oh, ow) sits at
 * flat index oh*PW + ow, and tap (kh, kw) reads flat index + kh*dh*PW +
 * kw*dw, so every output vector is a run of plain loads whatever its row.
 * The PW - OW columns past each row's end are computed and dropped (2 of 9
 * on a 7x7 plane); the rows are then stored with the epilogue. 8 vectors
 * (8 FMA chains) at a time, the last block running into the buffers'
 * slack rather than falling back to single, latency-bound vectors. */
#define DW_FLAT_FLOATS 4096

/* The padded grid a stride-1 plane reads: PH x PW = (OH + (KH-1)*dh) x
 * (OW + (KW-1)*dw), the input at (pad_top, pad_left), zeros elsewhere
 * (input rows or columns past the grid, when the end padding is negative,
 * are never read). The blocks of 64 flat outputs run up to 63 past the
 * last one, and their taps reach up to (KW-1)*dw further: the buffer holds
 * that many zeros after the grid (dw_flat_floats). */
static int64_t dw_flat_floats(int64_t PH, int64_t PW, int64_t KW, int64_t dw)
{
    return (PH * PW + 64 + (KW - 1) * dw + 7) / 8 * 8;
}

static int dw_flat_fits(const conv_params_t *p)
{
    const int64_t PH = p->out[1] + (p->kernel[1] - 1) * p->dilation[1];
    const int64_t PW = p->out[2] + (p->kernel[2] - 1) * p->dilation[2];
    return p->stride[1] == 1 && p->stride[2] == 1 && p->out[2] < 64 && p->pad[1] >= 0 &&
           p->pad[2] >= 0 && p->pad[1] < PH && p->pad[2] < PW && PH <= DW_FLAT_FLOATS &&
           PW <= DW_FLAT_FLOATS &&
           dw_flat_floats(PH, PW, p->kernel[2], p->dilation[2]) <= DW_FLAT_FLOATS;
}

static void dw_flat_s1(const conv_params_t *p, const float *x, const float *w, const dw_row_t *r,
                       const float *res, float *y)
{
    const int64_t IH = p->in[1], IW = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t KH = p->kernel[1], KW = p->kernel[2], dh = p->dilation[1], dwl = p->dilation[2];
    const int64_t PH = OH + (KH - 1) * dh, PW = OW + (KW - 1) * dwl;
    const int64_t rows = IH < PH - p->pad[1] ? IH : PH - p->pad[1];
    const int64_t cols = IW < PW - p->pad[2] ? IW : PW - p->pad[2];
    float pad[DW_FLAT_FLOATS] __attribute__((aligned(32)));
    float out[DW_FLAT_FLOATS] __attribute__((aligned(32)));
    /* zeros past the grid for the last block's spare outputs (dw_flat_floats) */
    const int64_t npad = dw_flat_floats(PH, PW, KW, dwl);
    for (int64_t i = 0; i < npad; i += 8)
        _mm256_storeu_ps(pad + i, _mm256_setzero_ps());
    for (int64_t ih = 0; ih < rows; ih++) {
        const float *src = x + ih * IW;
        float *dst = pad + (ih + p->pad[1]) * PW + p->pad[2];
        int64_t i = 0;
        for (; i + 8 <= cols; i += 8) {
            __m256 v = _mm256_loadu_ps(src + i);
            __asm__("" : "+x"(v)); /* a vector loop, not a memcpy call */
            _mm256_storeu_ps(dst + i, v);
        }
        /* the row's tail: a masked load (nothing past the row is read) and a
         * full store, whose spare zero lanes land in this row's right
         * padding, the next row's cells (written after) or the slack */
        if (i < cols)
            _mm256_storeu_ps(dst + i, _mm256_maskload_ps(src + i, mask_range(0, (int)(cols - i))));
    }
    const int64_t n = OH * PW; /* flat outputs; the last block of 64 runs past them */
    const __m256 vb = _mm256_set1_ps(r->bias);
    for (int64_t i = 0; i < n; i += 64) {
        __m256 a[8];
        for (int v = 0; v < 8; v++)
            a[v] = vb;
        for (int64_t kh = 0; kh < KH; kh++)
            for (int64_t kw = 0; kw < KW; kw++) {
                const __m256 wv = _mm256_broadcast_ss(w + kh * KW + kw);
                const float *b = pad + i + kh * dh * PW + kw * dwl;
#pragma GCC unroll 8
                for (int v = 0; v < 8; v++)
                    a[v] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(b + 8 * v), a[v]);
            }
        for (int v = 0; v < 8; v++)
            _mm256_store_ps(out + i + 8 * v, a[v]);
    }
    for (int64_t oh = 0; oh < OH; oh++) {
        const float *o = out + oh * PW;
        const float *rr = res ? res + oh * OW : NULL;
        float *yr = y + oh * OW;
        for (int64_t ow = 0; ow < OW; ow += 8)
            dw_store(r, _mm256_loadu_ps(o + ow), rr ? rr + ow : NULL, yr + ow,
                     OW - ow < 8 ? (int)(OW - ow) : 8);
    }
}

void conv_dw_plane_f32_avx2(const conv_params_t *p, const float *x, const float *w, float bias,
                            const conv_post_t *post, const float *res, float *y)
{
    const int64_t KH = p->kernel[1], sw = p->stride[2];
    /* taller kernels, and strides whose 8 lanes overflow the gather's 32-bit
     * offsets, take the portable kernel */
    if (KH > 64 || sw > (int64_t)(0x7FFFFFFF / 8)) {
        conv_dw_plane_f32_ref(p, x, w, bias, post, res, y);
        return;
    }
    dw_row_t r;
    r.IW = p->in[2], r.KW = p->kernel[2], r.sw = sw, r.dw = p->dilation[2], r.pad = p->pad[2];
    r.post = post, r.bias = bias;
    r.simple = !post || (dw_act_simple(post->act) && dw_act_simple(post->post_act));
    r.wr[0] = w;
    int64_t pw;
    if (dw_flat_fits(p)) {
        dw_flat_s1(p, x, w, &r, res, y);
    } else if (dw_padded_fits(p, &pw)) {
        if (sw == 1)
            dw_padded_s1(p, x, pw, &r, res, y);
        else if (sw == 2)
            dw_padded_s2(p, x, pw, &r, res, y);
        else
            dw_padded_sn(p, x, pw, &r, res, y);
    } else if (sw == 1) {
        dw_direct_s1(p, x, w, &r, res, y);
    } else if (sw == 2) {
        dw_direct_s2(p, x, w, &r, res, y);
    } else {
        dw_direct_sn(p, x, w, &r, res, y);
    }
}

/* ==================== eight planes at once (HWC8) ====================
 *
 * Small and strided planes pay the row kernels' per-row setup and border
 * handling for a few vectors (a 7x7 plane is 7 rows of one partial
 * vector), and stride 2 pays 2 loads and 2 shuffles per tap. Here 8
 * channels go together with the channels as the vector lanes: each input
 * row of the 8 planes is transposed once (8x8 blocks) into a ring of
 * channel-interleaved padded rows (pixel i of the row at floats
 * [8i, 8i + 8), zero margins for the padding), so an output pixel of the
 * 8 channels is KH*KW FMAs of one plain load each with a per-channel
 * weight vector, whatever the stride, dilation or position: no masks, no
 * shuffles, no gathers. Kernel rows outside the input read a zero row.
 * 8 pixels at a time (8 independent FMA chains); a row's last block runs
 * into the ring row's spare zero pixels and its extra pixels are dropped.
 * The output pixels go to a band buffer (a few rows, flat), which is
 * transposed back 8 pixels at a time with the epilogue (act, residual,
 * post_act) into the 8 output planes, whose rows are contiguous, so only
 * the band's end can be a partial vector.
 * Cost per 64 outputs (8 pixels x 8 channels): KH*KW*8 FMAs and loads
 * (72 for 3x3) plus two 8x8 transposes (24 shuffles each) for the output
 * and, per input pixel, 3/8 shuffles per channel: stride 2 transposes 4
 * inputs per output but skips the even/odd shuffles of the row kernel.
 * Floor: the same bytes as the plane kernel (in + out planes, + residual).
 * Missing channels (nc < 8) are zero lanes that are never stored. */
#define DW8_RING_FLOATS 16384 /* (R + 1) rows of PW pixels x 8 floats */
#define DW8_OUT_PIX 512       /* output band buffer, pixels */
#define DW8_MAX_TAPS 64

typedef struct dw8 {
    int64_t IH, IW, OH, OW, KH, KW, sh, sw, dh, dw, pt, pl;
    int64_t in_sz, out_sz; /* floats per input / output plane */
    int64_t PW, R;         /* ring row pixels, ring rows */
    int nb;                /* output pixels per block: 8 or 12 */
    int nc;                /* channels present (lanes 0 .. nc-1) */
} dw8_t;

/* Geometry of the 8-plane path; 0 when p does not fit it. */
static int dw8_geom(const conv_params_t *p, dw8_t *g)
{
    g->IH = p->in[1], g->IW = p->in[2], g->OH = p->out[1], g->OW = p->out[2];
    g->KH = p->kernel[1], g->KW = p->kernel[2];
    g->sh = p->stride[1], g->sw = p->stride[2], g->dh = p->dilation[1], g->dw = p->dilation[2];
    g->pt = p->pad[1], g->pl = p->pad[2];
    g->in_sz = g->IH * g->IW, g->out_sz = g->OH * g->OW;
    if (g->pt < 0 || g->pl < 0 || g->KH < 1 || g->KW < 1 || g->KH * g->KW > DW8_MAX_TAPS ||
        g->OW < 1 || g->OW > DW8_OUT_PIX || g->IW < 1 || g->IH < 1 || g->pl > 4096 ||
        g->sw > 4096 || g->dw > 4096 || g->dh > 4096 || g->sh > (int64_t)1 << 40)
        return 0;
    g->R = (g->KH - 1) * g->dh + 1;
    /* 12 FMA chains cover the FMA latency (5 cycles x 2 pipes), 8 reach
     * about 80% of it: blocks of 12 unless the row's last block wastes
     * more than that (OW = 7 or 14: 8) */
    g->nb = (g->OW + 11) / 12 * 12 * 8 <= (g->OW + 7) / 8 * 8 * 10 ? 12 : 8;
    const int64_t owv = (g->OW + g->nb - 1) / g->nb * g->nb;
    int64_t need = (owv - 1) * g->sw + (g->KW - 1) * g->dw + 1;
    if (need < g->pl + g->IW)
        need = g->pl + g->IW;
    g->PW = need;
    return g->R <= 64 && (g->R + 1) * g->PW * 8 <= DW8_RING_FLOATS;
}

int conv_dw_planes8_f32_avx2_fits(const conv_params_t *p)
{
    dw8_t g;
    return dw8_geom(p, &g);
}

/* Input row ih of the nc planes into ring row dst (pixels [pl, pl + IW)). */
static void dw8_fill_row(const dw8_t *g, const float *x, int64_t ih, float *dst)
{
    const float *src = x + ih * g->IW;
    dst += g->pl * 8;
    /* a row's tail block may read on into the next rows of its plane, never
     * past the plane's end: a block that would is loaded masked */
    const int64_t room = g->in_sz - ih * g->IW; /* floats from src to the plane's end */
    for (int64_t i = 0; i < g->IW; i += 8) {
        __m256 v[8];
        const int n = g->IW - i < 8 ? (int)(g->IW - i) : 8;
        if (i + 8 <= room) {
            for (int c = 0; c < 8; c++)
                v[c] = c < g->nc ? _mm256_loadu_ps(src + c * g->in_sz + i) : _mm256_setzero_ps();
        } else {
            const __m256i m = mask_range(0, n);
            for (int c = 0; c < 8; c++)
                v[c] = c < g->nc ? _mm256_maskload_ps(src + c * g->in_sz + i, m)
                                 : _mm256_setzero_ps();
        }
        vm256_transpose8(v);
        float *d = dst + i * 8;
        if (n == 8) {
            for (int j = 0; j < 8; j++)
                _mm256_store_ps(d + 8 * j, v[j]);
        } else {
            for (int j = 0; j < n; j++)
                _mm256_store_ps(d + 8 * j, v[j]);
        }
    }
}

/* One output row: pixels [0, OW) of the 8 channels into ob (OW x 8
 * floats), from the KH ring rows rows[kh] (a zero row for those outside
 * the input). S: the stride when known at compile time, else 0. */
static inline __attribute__((always_inline)) void
dw8_row(const dw8_t *g, const float *const *rows, const float *wt, __m256 vb, int64_t S,
        const int NB, float *ob)
{
    const int64_t s8 = (S ? S : g->sw) * 8, kw8 = g->dw * 8;
    const int64_t KH = g->KH, KW = g->KW, OW = g->OW;
    for (int64_t ow = 0; ow < OW; ow += NB) {
        __m256 a[12];
        for (int v = 0; v < NB; v++)
            a[v] = vb;
        const float *wk = wt;
        for (int64_t kh = 0; kh < KH; kh++) {
            const float *b = rows[kh] + ow * s8;
            for (int64_t kw = 0; kw < KW; kw++, b += kw8, wk += 8) {
                const __m256 wv = _mm256_load_ps(wk);
#pragma GCC unroll 12
                for (int v = 0; v < NB; v++)
                    a[v] = _mm256_fmadd_ps(wv, _mm256_load_ps(b + v * s8), a[v]);
            }
        }
        float *o = ob + ow * 8;
        if (ow + NB <= OW) {
#pragma GCC unroll 12
            for (int v = 0; v < NB; v++)
                _mm256_store_ps(o + 8 * v, a[v]);
        } else {
            for (int v = 0; v < NB; v++)
                if (ow + v < OW)
                    _mm256_store_ps(o + 8 * v, a[v]);
        }
    }
}

/* The epilogue on 8 outputs of one channel in registers: ACT / POST: clamp
 * to [lo, hi] (ReLU is [0, +inf]: maxps returns lo for a NaN, as the scalar
 * ReLU and Clip do), RES: add the residual. */
static inline __attribute__((always_inline)) __m256
dw8_epi(__m256 v, int ACT, int RES, int POST, const float *res, __m256 lo, __m256 hi,
        __m256 plo, __m256 phi)
{
    if (ACT)
        v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    if (RES)
        v = _mm256_add_ps(v, _mm256_loadu_ps(res));
    if (POST)
        v = _mm256_min_ps(_mm256_max_ps(v, plo), phi);
    return v;
}

/* Full blocks of 8 pixels x 8 channels from ob back into the planes at
 * flat index j0 + j, with the epilogue in registers; returns the pixels
 * done (the rest go through dw8_store_band). */
static inline __attribute__((always_inline)) int64_t
dw8_store_full(const dw8_t *g, const float *ob, int64_t n, const float *res, float *y,
               int64_t j0, int ACT, int RES, int POST, __m256 lo, __m256 hi, __m256 plo,
               __m256 phi)
{
    const int64_t osz = g->out_sz;
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256 v[8];
        for (int k = 0; k < 8; k++)
            v[k] = _mm256_load_ps(ob + (j + k) * 8);
        vm256_transpose8(v);
        float *yo = y + j0 + j;
        const float *ro = RES ? res + j0 + j : NULL;
#pragma GCC unroll 8
        for (int c = 0; c < 8; c++)
            _mm256_storeu_ps(yo + c * osz, dw8_epi(v[c], ACT, RES, POST, RES ? ro + c * osz : NULL,
                                                   lo, hi, plo, phi));
    }
    return j;
}

/* Bounds of a simple activation as a clamp: 0 when it is none. */
static int dw8_clamp(gemm_act_t act, float lo, float hi, __m256 *vlo, __m256 *vhi)
{
    if (act == GEMM_ACT_RELU) {
        *vlo = _mm256_setzero_ps(), *vhi = _mm256_set1_ps(__builtin_inff());
        return 1;
    }
    if (act == GEMM_ACT_CLIP) {
        *vlo = _mm256_set1_ps(lo), *vhi = _mm256_set1_ps(hi);
        return 1;
    }
    *vlo = *vhi = _mm256_setzero_ps();
    return 0;
}

/* The band's n pixels (from ob) back into the nc output planes at flat
 * index j0, with the epilogue: full blocks of all 8 channels with a simple
 * epilogue in registers (one instance per epilogue), the rest (a partial
 * last block, nc < 8, other activations) by dw_store. */
static void dw8_store_band(const dw8_t *g, const dw_row_t *r, const float *ob, int64_t n,
                           const float *res, float *y, int64_t j0)
{
    int64_t j = 0;
    if (g->nc == 8 && r->simple) {
        const conv_post_t *post = r->post;
        __m256 lo, hi, plo, phi;
        const int a = post && dw8_clamp(post->act, post->clip_lo, post->clip_hi, &lo, &hi);
        const int pa = post && dw8_clamp(post->post_act, post->post_lo, post->post_hi, &plo, &phi);
        if (!post)
            lo = hi = plo = phi = _mm256_setzero_ps();
        const int rs = res != NULL;
        switch (a * 4 + rs * 2 + pa) {
#define DW8_CASE(A, R, P)                                                                      \
    case A * 4 + R * 2 + P:                                                                    \
        j = dw8_store_full(g, ob, n, res, y, j0, A, R, P, lo, hi, plo, phi);                   \
        break;
            DW8_CASE(0, 0, 0)
            DW8_CASE(0, 0, 1)
            DW8_CASE(0, 1, 0)
            DW8_CASE(0, 1, 1)
            DW8_CASE(1, 0, 0)
            DW8_CASE(1, 0, 1)
            DW8_CASE(1, 1, 0)
            DW8_CASE(1, 1, 1)
#undef DW8_CASE
        default:
            break;
        }
    }
    for (; j < n; j += 8) {
        const int m = n - j < 8 ? (int)(n - j) : 8;
        __m256 v[8];
        for (int k = 0; k < 8; k++)
            v[k] = k < m ? _mm256_load_ps(ob + (j + k) * 8) : _mm256_setzero_ps();
        vm256_transpose8(v);
        for (int c = 0; c < g->nc; c++) {
            const int64_t off = c * g->out_sz + j0 + j;
            dw_store(r, v[c], res ? res + off : NULL, y + off, m);
        }
    }
}

static inline __attribute__((always_inline)) void
dw8_run(const dw8_t *g, const float *x, const float *wt, __m256 vb, const dw_row_t *r,
        const float *res, float *y, int64_t oh0, int64_t oh1, int64_t S, const int NB)
{
    float ring[DW8_RING_FLOATS] __attribute__((aligned(32)));
    float ob[DW8_OUT_PIX * 8] __attribute__((aligned(32)));
    int64_t tag[64];
    const int64_t rowf = g->PW * 8, R = g->R;
    float *zero = ring + R * rowf;
    for (int64_t i = 0; i < (R + 1) * rowf; i += 8)
        _mm256_store_ps(ring + i, _mm256_setzero_ps());
    for (int64_t i = 0; i < R; i++)
        tag[i] = -1;
    /* band rows: the whole range when it fits the buffer, else a few rows,
     * a multiple of 8 pixels where one fits */
    int64_t band = oh1 - oh0;
    if (band * g->OW > DW8_OUT_PIX) {
        band = 256 / g->OW > 0 ? 256 / g->OW : 1;
        for (int64_t b = band; b > 1; b--)
            if (b * g->OW % 8 == 0) {
                band = b;
                break;
            }
    }
    const float *rows[64];
    for (int64_t b0 = oh0; b0 < oh1; b0 += band) {
        const int64_t b1 = b0 + band < oh1 ? b0 + band : oh1;
        for (int64_t oh = b0; oh < b1; oh++) {
            const int64_t ih0 = oh * g->sh - g->pt;
            int64_t slot = ih0 % R; /* ring slot of ih: ih mod R (ih0 may be negative) */
            if (slot < 0)
                slot += R;
            for (int64_t kh = 0; kh < g->KH; kh++) {
                const int64_t ih = ih0 + kh * g->dh;
                if (kh) {
                    slot += g->dh;
                    while (slot >= R)
                        slot -= R;
                }
                if (ih < 0 || ih >= g->IH) {
                    rows[kh] = zero;
                    continue;
                }
                float *pr = ring + slot * rowf;
                if (tag[slot] != ih) {
                    dw8_fill_row(g, x, ih, pr);
                    tag[slot] = ih;
                }
                rows[kh] = pr;
            }
            dw8_row(g, rows, wt, vb, S, NB, ob + (oh - b0) * g->OW * 8);
        }
        dw8_store_band(g, r, ob, (b1 - b0) * g->OW, res, y, b0 * g->OW);
    }
}

#define DW8_RUN(NAME, S, NB)                                                                   \
    static void NAME(const dw8_t *g, const float *x, const float *wt, __m256 vb,               \
                     const dw_row_t *r, const float *res, float *y, int64_t oh0, int64_t oh1)  \
    {                                                                                          \
        dw8_run(g, x, wt, vb, r, res, y, oh0, oh1, S, NB);                                     \
    }
DW8_RUN(dw8_run_s1, 1, 8)
DW8_RUN(dw8_run_s2, 2, 8)
DW8_RUN(dw8_run_sn, 0, 8)
DW8_RUN(dw8_run_s1_12, 1, 12)
DW8_RUN(dw8_run_s2_12, 2, 12)
DW8_RUN(dw8_run_sn_12, 0, 12)
#undef DW8_RUN

int conv_dw_planes8_f32_avx2(const conv_params_t *p, const float *x, const float *w,
                             const float *bias, const conv_post_t *post, const float *res,
                             float *y, int nc, int64_t oh0, int64_t oh1)
{
    dw8_t g;
    if (nc < 1 || nc > 8 || !dw8_geom(p, &g))
        return 0;
    g.nc = nc;
    if (oh0 < 0)
        oh0 = 0;
    if (oh1 > g.OH)
        oh1 = g.OH;
    if (oh0 >= oh1)
        return 1;
    /* per-tap weight vectors (lane c: channel c's weight), bias vector */
    const int64_t taps = g.KH * g.KW;
    float wt[DW8_MAX_TAPS * 8] __attribute__((aligned(32)));
    float bv[8] = {0};
    for (int64_t t = 0; t < taps; t++)
        for (int c = 0; c < 8; c++)
            wt[t * 8 + c] = c < nc ? w[c * taps + t] : 0.0f;
    for (int c = 0; c < nc && bias; c++)
        bv[c] = bias[c];
    dw_row_t r;
    r.post = post;
    r.simple = !post || (dw_act_simple(post->act) && dw_act_simple(post->post_act));
    const __m256 vb = _mm256_loadu_ps(bv);
    if (g.sw == 1)
        (g.nb == 12 ? dw8_run_s1_12 : dw8_run_s1)(&g, x, wt, vb, &r, res, y, oh0, oh1);
    else if (g.sw == 2)
        (g.nb == 12 ? dw8_run_s2_12 : dw8_run_s2)(&g, x, wt, vb, &r, res, y, oh0, oh1);
    else
        (g.nb == 12 ? dw8_run_sn_12 : dw8_run_sn)(&g, x, wt, vb, &r, res, y, oh0, oh1);
    return 1;
}

/* ---- the pixel-major 1x1 path's transposed store (conv.h) ---- */

void conv_store_t_f32_avx2(const float *ct, int64_t P, int64_t M, int64_t c0, int64_t c1,
                           const gemm_epilogue_t *e, float *y, int64_t ldy)
{
    if (!dw_act_simple(e->act) || !dw_act_simple(e->post_act)) {
        conv_store_t_f32_ref(ct, P, M, c0, c1, e, y, ldy);
        return;
    }
    const int64_t P8 = P / 8 * 8;
    const float *bias = e->bias, *res = e->residual;
    const __m256 vs = _mm256_set1_ps(e->scale);
    int64_t cb = c0;
    for (; cb + 8 <= c1; cb += 8) {
        for (int64_t p0 = 0; p0 < P8; p0 += 8) {
            __m256 v[8];
            for (int i = 0; i < 8; i++)
                v[i] = _mm256_loadu_ps(ct + (p0 + i) * M + cb);
            vm256_transpose8(v); /* v[c]: channel cb + c, pixels p0.. */
            for (int c = 0; c < 8; c++) {
                __m256 w = v[c];
                if (bias)
                    w = _mm256_add_ps(w, _mm256_set1_ps(bias[cb + c]));
                w = dw_act_vec(w, e->act, e->clip_lo, e->clip_hi);
                if (e->scale != 1.0f)
                    w = _mm256_mul_ps(w, vs);
                if (res)
                    w = _mm256_add_ps(w, _mm256_loadu_ps(res + (cb + c) * e->ldr + p0));
                _mm256_storeu_ps(y + (cb + c) * ldy + p0,
                                 dw_act_vec(w, e->post_act, e->post_lo, e->post_hi));
            }
        }
        /* the last P % 8 pixels of these channels */
        for (int c = 0; c < 8; c++)
            for (int64_t q = P8; q < P; q++) {
                float w = ct[q * M + cb + c] + (bias ? bias[cb + c] : 0.0f);
                w = gemm_act_apply_f32(e->act, w, e->clip_lo, e->clip_hi) * e->scale;
                if (res)
                    w += res[(cb + c) * e->ldr + q];
                y[(cb + c) * ldy + q] = gemm_act_apply_f32(e->post_act, w, e->post_lo, e->post_hi);
            }
    }
    if (cb < c1)
        conv_store_t_f32_ref(ct, P, M, cb, c1, e, y, ldy);
}

#else

void conv_dw_plane_f32_avx2(const conv_params_t *p, const float *x, const float *w, float bias,
                            const conv_post_t *post, const float *res, float *y)
{
    conv_dw_plane_f32_ref(p, x, w, bias, post, res, y);
}


int conv_dw_planes8_f32_avx2_fits(const conv_params_t *p)
{
    (void)p;
    return 0;
}

int conv_dw_planes8_f32_avx2(const conv_params_t *p, const float *x, const float *w,
                             const float *bias, const conv_post_t *post, const float *res,
                             float *y, int nc, int64_t oh0, int64_t oh1)
{
    (void)p, (void)x, (void)w, (void)bias, (void)post, (void)res, (void)y, (void)nc, (void)oh0,
        (void)oh1;
    return 0;
}

void conv_store_t_f32_avx2(const float *ct, int64_t P, int64_t M, int64_t c0, int64_t c1,
                           const gemm_epilogue_t *e, float *y, int64_t ldy)
{
    conv_store_t_f32_ref(ct, P, M, c0, c1, e, y, ldy);
}

#endif
