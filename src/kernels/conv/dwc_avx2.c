/*
 * AVX2 + FMA depthwise row over channel-contiguous rows (mbconv.h's
 * conv_dwc_row contract): the inverted-residual block's middle stage,
 * where the expanded tensor is pixel-major, so 8 channels of one pixel are
 * one vector and no transposes are needed (the NCHW depthwise kernel in
 * x86_avx2.c spends about as many shuffles on them as FMAs).
 *
 * Interior pixels of a 3x3 kernel, 4 at a time: per 8 channels and kernel
 * row, the (P - 1) s + 3 input vectors the 4 pixels read (6 at stride 1,
 * 9 at stride 2) are loaded once and each feeds up to 3 FMAs, the tap's
 * weight vector once per row and tap: 12 FMAs against 9 (stride 1) or 12
 * (stride 2) loads per kernel row, so the loop runs near the 2 FMAs per
 * cycle. The 4 accumulators' chains are short (9 FMAs); consecutive
 * channel vectors are independent, which the out-of-order core overlaps.
 * The row's border pixels, other kernel sizes and the channels past the
 * last multiple of 8 take the per-pixel path (taps clipped to the row).
 * Floor: 9 FMAs per 8 outputs, i.e. 4.5 cycles per 8 outputs, plus the
 * stores; its inputs come from L1/L2 (the ring the expansion just wrote).
 * Compiled with -mavx2 -mfma (CMakeLists.txt); called only after the CPU
 * check in mbconv.c.
 */
#include "kernels/conv/mbconv.h"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include <math.h>

static inline __m256 clampv(__m256 v, __m256 lo, __m256 hi)
{
    return _mm256_min_ps(_mm256_max_ps(v, lo), hi);
}

/* Channels [c0, c1) of output pixel ow, taps clipped to the row. */
static void dwc_pixel(const float *const *rows, int64_t W, int64_t ld, int64_t c0, int64_t c1,
                      int K, int s, const float *wt, const float *bias, float lo, float hi,
                      float *out, int64_t ow)
{
    int64_t iw0;
    int kw0, kw1;
    conv_dwc_taps(W, K, s, ow, &iw0, &kw0, &kw1);
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    float *o = out + ow * ld;
    int64_t c = c0;
    for (; c + 8 <= c1; c += 8) {
        __m256 acc = bias ? _mm256_loadu_ps(bias + c) : _mm256_setzero_ps();
        for (int kh = 0; kh < K; kh++) {
            const float *r = rows[kh] + (iw0 + kw0) * ld + c;
            const float *w = wt + ((int64_t)kh * K + kw0) * ld + c;
            for (int j = 0; j < kw1 - kw0; j++)
                acc = _mm256_fmadd_ps(_mm256_loadu_ps(w + j * ld), _mm256_loadu_ps(r + j * ld),
                                      acc);
        }
        _mm256_storeu_ps(o + c, clampv(acc, vlo, vhi));
    }
    for (; c < c1; c++) {
        float acc = bias ? bias[c] : 0.0f;
        for (int kh = 0; kh < K; kh++)
            for (int kw = kw0; kw < kw1; kw++)
                acc = fmaf(wt[((int64_t)kh * K + kw) * ld + c], rows[kh][(iw0 + kw) * ld + c], acc);
        o[c] = acc < lo ? lo : acc > hi ? hi : acc;
    }
}

/* Interior pixels ow .. ow + 3 of a 3x3 kernel at stride S (all taps in
 * the row), channels [c0, c1). */
static inline __attribute__((always_inline)) void
dwc_block3(const float *const *rows, int64_t W, int64_t ld, int64_t c0, int64_t c1, const int S,
           const float *wt, const float *bias, float lo, float hi, float *out, int64_t ow)
{
    enum { P = 4 };
    const int NI = (P - 1) * S + 3;
    const int64_t ib = ow * S - 1;
    const float *r0 = rows[0] + ib * ld, *r1 = rows[1] + ib * ld, *r2 = rows[2] + ib * ld;
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    float *o = out + ow * ld;
    int64_t c = c0;
    for (; c + 8 <= c1; c += 8) {
        const __m256 b = bias ? _mm256_loadu_ps(bias + c) : _mm256_setzero_ps();
        __m256 a0 = b, a1 = b, a2 = b, a3 = b;
        for (int kh = 0; kh < 3; kh++) {
            const float *r = (kh == 0 ? r0 : kh == 1 ? r1 : r2) + c;
            const float *w = wt + (int64_t)kh * 3 * ld + c;
            __m256 x[9];
#pragma GCC unroll 9
            for (int j = 0; j < NI; j++)
                x[j] = _mm256_loadu_ps(r + j * ld);
#pragma GCC unroll 3
            for (int kw = 0; kw < 3; kw++) {
                const __m256 wv = _mm256_loadu_ps(w + kw * ld);
                a0 = _mm256_fmadd_ps(wv, x[0 * S + kw], a0);
                a1 = _mm256_fmadd_ps(wv, x[1 * S + kw], a1);
                a2 = _mm256_fmadd_ps(wv, x[2 * S + kw], a2);
                a3 = _mm256_fmadd_ps(wv, x[3 * S + kw], a3);
            }
        }
        _mm256_storeu_ps(o + c, clampv(a0, vlo, vhi));
        _mm256_storeu_ps(o + ld + c, clampv(a1, vlo, vhi));
        _mm256_storeu_ps(o + 2 * ld + c, clampv(a2, vlo, vhi));
        _mm256_storeu_ps(o + 3 * ld + c, clampv(a3, vlo, vhi));
    }
    if (c < c1)
        for (int p = 0; p < P; p++)
            dwc_pixel(rows, W, ld, c, c1, 3, S, wt, bias, lo, hi, out, ow + p);
}

static void dwc_run3_s1(const float *const *rows, int64_t W, int64_t ld, int64_t c0, int64_t c1,
                        const float *wt, const float *bias, float lo, float hi, float *out,
                        int64_t ow0, int64_t ow1)
{
    for (int64_t ow = ow0; ow + 4 <= ow1; ow += 4)
        dwc_block3(rows, W, ld, c0, c1, 1, wt, bias, lo, hi, out, ow);
}

static void dwc_run3_s2(const float *const *rows, int64_t W, int64_t ld, int64_t c0, int64_t c1,
                        const float *wt, const float *bias, float lo, float hi, float *out,
                        int64_t ow0, int64_t ow1)
{
    for (int64_t ow = ow0; ow + 4 <= ow1; ow += 4)
        dwc_block3(rows, W, ld, c0, c1, 2, wt, bias, lo, hi, out, ow);
}

void conv_dwc_row_f32_avx2(const float *const *rows, int64_t W, int64_t ld, int64_t c0,
                           int64_t c1, int K, int s, const float *wt, const float *bias, float lo,
                           float hi, float *out, int64_t OW)
{
    int64_t lo_ow, hi_ow; /* interior: every tap inside the row */
    conv_dwc_interior(W, K, s, OW, &lo_ow, &hi_ow);
    int64_t done = lo_ow; /* interior pixels before `done` are computed */
    if (K == 3 && (s == 1 || s == 2)) {
        const int64_t n4 = (hi_ow - lo_ow) / 4 * 4;
        (s == 1 ? dwc_run3_s1 : dwc_run3_s2)(rows, W, ld, c0, c1, wt, bias, lo, hi, out, lo_ow,
                                             lo_ow + n4);
        done = lo_ow + n4;
    }
    for (int64_t ow = 0; ow < lo_ow; ow++)
        dwc_pixel(rows, W, ld, c0, c1, K, s, wt, bias, lo, hi, out, ow);
    for (int64_t ow = done; ow < OW; ow++)
        dwc_pixel(rows, W, ld, c0, c1, K, s, wt, bias, lo, hi, out, ow);
}

#else

void conv_dwc_row_f32_avx2(const float *const *rows, int64_t W, int64_t ld, int64_t c0,
                           int64_t c1, int K, int s, const float *wt, const float *bias, float lo,
                           float hi, float *out, int64_t OW)
{
    conv_dwc_row_f32_ref(rows, W, ld, c0, c1, K, s, wt, bias, lo, hi, out, OW);
}

#endif
