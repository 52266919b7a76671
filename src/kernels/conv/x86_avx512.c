/*
 * AVX-512 depthwise Conv (f32), one (n, c) plane at a time: each output row
 * is split into the interior, where every tap of every kernel column lands
 * inside the input row, computed 16 outputs per vector and up to four
 * vectors at once (independent FMA chains hide the FMA latency), and the
 * borders, computed one output at a time with bounds checks. Stride 1 loads
 * contiguous inputs, stride 2 de-interleaves two loads, larger strides
 * gather. Masked loads keep every access inside the input row. Compiled
 * with AVX-512 flags (CMakeLists.txt); called only after the CPU check in
 * fast.c.
 */
#include "kernels/conv/conv.h"

#if defined(__x86_64__)
#include <immintrin.h>

static inline __mmask16 mask_n(int n)
{
    return n >= 16 ? (__mmask16)0xFFFF : n <= 0 ? (__mmask16)0 : (__mmask16)((1u << n) - 1u);
}

/* n (1..16) outputs whose inputs are b[0], b[s], ..., b[(n-1)*s]. */
static inline __m512 dw_load(const float *b, int n, int64_t s)
{
    if (s == 1)
        return _mm512_maskz_loadu_ps(mask_n(n), b);
    if (s == 2) {
        const int cnt = 2 * n - 1;
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                               28, 30);
        __m512 lo = _mm512_maskz_loadu_ps(mask_n(cnt), b);
        __m512 hi = _mm512_maskz_loadu_ps(mask_n(cnt - 16), b + 16);
        return _mm512_permutex2var_ps(lo, even, hi);
    }
    const __m512i idx = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32((int)s));
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mask_n(n), idx, b, 4);
}

static float dw_one(const conv_params_t *p, const float *x, const float *w, float bias,
                    const int64_t *khs, int nkh, int64_t oh, int64_t ow)
{
    const int64_t IW = p->in[2], KW = p->kernel[2];
    float acc = bias;
    for (int i = 0; i < nkh; i++) {
        const int64_t kh = khs[i], ih = oh * p->stride[1] - p->pad[1] + kh * p->dilation[1];
        const float *xr = x + ih * IW;
        for (int64_t kw = 0; kw < KW; kw++) {
            const int64_t iw = ow * p->stride[2] - p->pad[2] + kw * p->dilation[2];
            if (iw >= 0 && iw < IW)
                acc += w[kh * KW + kw] * xr[iw];
        }
    }
    return acc;
}

/* act on a vector: only none, Relu and Clip (the others take the scalar path) */
static inline __m512 dw_act_vec(__m512 v, gemm_act_t act, float lo, float hi)
{
    if (act == GEMM_ACT_RELU)
        return _mm512_max_ps(v, _mm512_setzero_ps());
    if (act == GEMM_ACT_CLIP)
        return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
    return v;
}

static inline int dw_act_simple(gemm_act_t act)
{
    return act == GEMM_ACT_NONE || act == GEMM_ACT_RELU || act == GEMM_ACT_CLIP;
}

/* The whole post-op on one output: act, + residual r (NULL: none), post_act. */
static inline float dw_post_one(float v, const conv_post_t *post, const float *r)
{
    if (!post)
        return v;
    v = gemm_act_apply_f32(post->act, v, post->clip_lo, post->clip_hi);
    if (r)
        v += *r;
    return gemm_act_apply_f32(post->post_act, v, post->post_lo, post->post_hi);
}

/* nv (1..4) vectors of outputs starting at ow, the last holding `last`
 * outputs (1..16), all interior. */
static inline __attribute__((always_inline)) void
dw_block(const conv_params_t *p, const float *x, const float *w, float bias, const int64_t *khs,
         int nkh, int64_t oh, int64_t ow, int nv, int last, const conv_post_t *post,
         const float *res, float *yr)
{
    const int64_t IW = p->in[2], KW = p->kernel[2], sw = p->stride[2];
    __m512 acc[4];
    for (int v = 0; v < nv; v++)
        acc[v] = _mm512_set1_ps(bias);
    for (int i = 0; i < nkh; i++) {
        const int64_t kh = khs[i], ih = oh * p->stride[1] - p->pad[1] + kh * p->dilation[1];
        const float *xr = x + ih * IW + ow * sw - p->pad[2];
        const float *wr = w + kh * KW;
        for (int64_t kw = 0; kw < KW; kw++) {
            const __m512 wv = _mm512_set1_ps(wr[kw]);
            const float *b = xr + kw * p->dilation[2];
            for (int v = 0; v < nv; v++)
                acc[v] = _mm512_fmadd_ps(wv, dw_load(b + 16 * v * sw, v == nv - 1 ? last : 16, sw),
                                         acc[v]);
        }
    }
    const int simple = !post || (dw_act_simple(post->act) && dw_act_simple(post->post_act));
    for (int v = 0; v < nv; v++) {
        const __mmask16 m = mask_n(v == nv - 1 ? last : 16);
        float *yo = yr + ow + 16 * v;
        __m512 r = acc[v];
        if (simple) {
            if (post)
                r = dw_act_vec(r, post->act, post->clip_lo, post->clip_hi);
            if (res)
                r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(m, res + ow + 16 * v));
            if (post)
                r = dw_act_vec(r, post->post_act, post->post_lo, post->post_hi);
            _mm512_mask_storeu_ps(yo, m, r);
        } else {
            _mm512_mask_storeu_ps(yo, m, r);
            const int n = v == nv - 1 ? last : 16;
            for (int j = 0; j < n; j++)
                yo[j] = dw_post_one(yo[j], post, res ? res + ow + 16 * v + j : NULL);
        }
    }
}

void conv_dw_plane_f32_avx512(const conv_params_t *p, const float *x, const float *w, float bias,
                              const conv_post_t *post, const float *res, float *y)
{
    const int64_t IH = p->in[1], IW = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t KH = p->kernel[1], KW = p->kernel[2], sw = p->stride[2];
    /* interior: every kw in range; the first tap bounds the start, the last the end */
    const int64_t off0 = -p->pad[2], offl = (KW - 1) * p->dilation[2] - p->pad[2];
    int64_t lo = off0 >= 0 ? 0 : (-off0 + sw - 1) / sw;
    int64_t hi = IW - 1 - offl < 0 ? 0 : (IW - 1 - offl) / sw + 1;
    if (hi > OW)
        hi = OW;
    if (lo > OW)
        lo = OW;
    if (hi < lo)
        hi = lo;
    int64_t khs_buf[64];
    int64_t *khs = khs_buf;
    /* kernels taller than 64 rows take the slow per-output path */
    const int tall = KH > 64;
    for (int64_t oh = 0; oh < OH; oh++) {
        float *yr = y + oh * OW;
        const float *rr = res ? res + oh * OW : NULL;
        int nkh = 0;
        if (!tall)
            for (int64_t kh = 0; kh < KH; kh++) {
                const int64_t ih = oh * p->stride[1] - p->pad[1] + kh * p->dilation[1];
                if (ih >= 0 && ih < IH)
                    khs[nkh++] = kh;
            }
        if (tall) {
            for (int64_t ow = 0; ow < OW; ow++) {
                float acc = bias;
                for (int64_t kh = 0; kh < KH; kh++) {
                    const int64_t ih = oh * p->stride[1] - p->pad[1] + kh * p->dilation[1];
                    if (ih < 0 || ih >= IH)
                        continue;
                    for (int64_t kw = 0; kw < KW; kw++) {
                        const int64_t iw = ow * sw - p->pad[2] + kw * p->dilation[2];
                        if (iw >= 0 && iw < IW)
                            acc += w[kh * KW + kw] * x[ih * IW + iw];
                    }
                }
                yr[ow] = dw_post_one(acc, post, rr ? rr + ow : NULL);
            }
            continue;
        }
        for (int64_t ow = 0; ow < lo; ow++)
            yr[ow] = dw_post_one(dw_one(p, x, w, bias, khs, nkh, oh, ow), post,
                                 rr ? rr + ow : NULL);
        int64_t ow = lo;
        for (; ow + 64 <= hi; ow += 64)
            dw_block(p, x, w, bias, khs, nkh, oh, ow, 4, 16, post, rr, yr);
        if (ow < hi) {
            const int64_t rem = hi - ow;
            const int nv = (int)((rem + 15) / 16), last = (int)(rem - 16 * (nv - 1));
            switch (nv) {
            case 1: dw_block(p, x, w, bias, khs, nkh, oh, ow, 1, last, post, rr, yr); break;
            case 2: dw_block(p, x, w, bias, khs, nkh, oh, ow, 2, last, post, rr, yr); break;
            case 3: dw_block(p, x, w, bias, khs, nkh, oh, ow, 3, last, post, rr, yr); break;
            default: dw_block(p, x, w, bias, khs, nkh, oh, ow, 4, last, post, rr, yr); break;
            }
        }
        for (ow = hi; ow < OW; ow++)
            yr[ow] = dw_post_one(dw_one(p, x, w, bias, khs, nkh, oh, ow), post,
                                 rr ? rr + ow : NULL);
    }
}

#else

void conv_dw_plane_f32_avx512(const conv_params_t *p, const float *x, const float *w, float bias,
                              const conv_post_t *post, const float *res, float *y)
{
    conv_dw_plane_f32_ref(p, x, w, bias, post, res, y);
}

#endif
