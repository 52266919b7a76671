/*
 * AVX-512 depthwise row over channel-contiguous rows (mbconv.h's
 * conv_dwc_row contract): dwc_avx2.c's kernel on 16-lane vectors, the
 * channels past the last multiple of 16 under a mask instead of a scalar
 * tail (MobileNetV2's expansions are 96 to 960 channels, all multiples of
 * 16).
 *
 * Interior pixels of a 3x3 kernel, 8 at a time (then 4): per 16 channels
 * and kernel row the (8 - 1) s + 3 input vectors the 8 pixels read are
 * loaded once and each feeds up to 3 FMAs, the tap's weight vector once:
 * 72 FMAs against 39 (stride 1) or 60 (stride 2) loads per 8 pixels, where
 * dwc_avx2.c's 4-pixel blocks of 8 channels take 36 FMAs and 36 or 45
 * loads for a quarter of the outputs. The pixel blocks go along the row
 * with the channels inside them, so the rows are read in order (channel
 * blocks outside, the pixels 384-byte strides apart, measured up to 20 %
 * slower over 112-pixel rows). Floor: 9 FMAs per 16
 * outputs (4.5 cycles at 2 FMAs per cycle) plus the stores; the inputs
 * come from L1/L2 (the ring the expansion just wrote). Border pixels and
 * other kernel sizes take the per-pixel path (taps clipped to the row).
 * Compiled with -mavx512f (CMakeLists.txt); called only after the CPU
 * check in mbconv.c.
 */
#include "kernels/conv/mbconv.h"

#if defined(__x86_64__) && defined(__AVX512F__)
#include <immintrin.h>

static inline __mmask16 lanes16(int64_t w)
{
    return w >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << w) - 1u);
}

static inline __m512 clamp16(__m512 v, __m512 lo, __m512 hi)
{
    return _mm512_min_ps(_mm512_max_ps(v, lo), hi);
}

/* Channels [c0, c1) of output pixel ow, taps clipped to the row. */
static void dwc_pixel16(const float *const *rows, int64_t W, int64_t ld, int64_t c0, int64_t c1,
                        int K, int s, const float *wt, const float *bias, float lo, float hi,
                        float *out, int64_t ow)
{
    int64_t iw0;
    int kw0, kw1;
    conv_dwc_taps(W, K, s, ow, &iw0, &kw0, &kw1);
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    float *o = out + ow * ld;
    for (int64_t c = c0; c < c1; c += 16) {
        const __mmask16 m = lanes16(c1 - c);
        __m512 acc = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
        for (int kh = 0; kh < K; kh++) {
            const float *r = rows[kh] + (iw0 + kw0) * ld + c;
            const float *w = wt + ((int64_t)kh * K + kw0) * ld + c;
            for (int j = 0; j < kw1 - kw0; j++)
                acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, w + j * ld),
                                      _mm512_maskz_loadu_ps(m, r + j * ld), acc);
        }
        _mm512_mask_storeu_ps(o + c, m, clamp16(acc, vlo, vhi));
    }
}

/* Interior pixels ow .. ow + P - 1 (every tap inside the row) of a 3x3
 * kernel at stride S, channels [c0, c1): per 16 channels and kernel row,
 * the (P - 1) S + 3 input vectors the P pixels read loaded once, each
 * tap's weight vector once. */
static inline __attribute__((always_inline)) void
dwc_block3(const float *const *rows, int64_t ld, int64_t c0, int64_t c1, const int P,
           const int S, const float *wt, const float *bias, __m512 vlo, __m512 vhi, float *out,
           int64_t ow)
{
    const int NI = (P - 1) * S + 3;
    const int64_t ib = ow * S - 1;
    const float *r0 = rows[0] + ib * ld, *r1 = rows[1] + ib * ld, *r2 = rows[2] + ib * ld;
    float *o = out + ow * ld;
    for (int64_t c = c0; c < c1; c += 16) {
        const __mmask16 m = lanes16(c1 - c);
        const __m512 b = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
        __m512 a[8];
#pragma GCC unroll 8
        for (int q = 0; q < P; q++)
            a[q] = b;
#pragma GCC unroll 3
        for (int kh = 0; kh < 3; kh++) {
            const float *r = (kh == 0 ? r0 : kh == 1 ? r1 : r2) + c;
            __m512 x[17];
#pragma GCC unroll 17
            for (int j = 0; j < NI; j++)
                x[j] = _mm512_maskz_loadu_ps(m, r + j * ld);
#pragma GCC unroll 3
            for (int kw = 0; kw < 3; kw++) {
                const __m512 wv = _mm512_maskz_loadu_ps(m, wt + (kh * 3 + kw) * ld + c);
#pragma GCC unroll 8
                for (int q = 0; q < P; q++)
                    a[q] = _mm512_fmadd_ps(wv, x[q * S + kw], a[q]);
            }
        }
#pragma GCC unroll 8
        for (int q = 0; q < P; q++)
            _mm512_mask_storeu_ps(o + q * ld + c, m, clamp16(a[q], vlo, vhi));
    }
}

/* One pixel ow of a 3x3 kernel at stride S whose taps inside the row are
 * kw in [KW0, KW1) (compile-time: the row's first and last pixels, and
 * interior ones left over from the blocks), channels [c0, c1): the loop
 * dwc_pixel16 runs with the clipping and trip counts known. A 7-pixel
 * row (MobileNetV2's last blocks) had 3 of its 7 pixels on the per-pixel
 * path, a 14-pixel one 2-4. */
static inline __attribute__((always_inline)) void
dwc_one3(const float *const *rows, int64_t ld, int64_t c0, int64_t c1, const int S,
         const int KW0, const int KW1, const float *wt, const float *bias, __m512 vlo,
         __m512 vhi, float *out, int64_t ow)
{
    const int64_t ib = ow * S - 1;
    float *o = out + ow * ld;
    for (int64_t c = c0; c < c1; c += 16) {
        const __mmask16 m = lanes16(c1 - c);
        __m512 a = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
#pragma GCC unroll 3
        for (int kh = 0; kh < 3; kh++)
#pragma GCC unroll 3
            for (int kw = KW0; kw < KW1; kw++)
                a = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, wt + (kh * 3 + kw) * ld + c),
                                    _mm512_maskz_loadu_ps(m, rows[kh] + (ib + kw) * ld + c), a);
        _mm512_mask_storeu_ps(o + c, m, clamp16(a, vlo, vhi));
    }
}

/* Pixel ow of a 3x3 row at stride S through dwc_one3's form for its taps */
static inline __attribute__((always_inline)) void
dwc_edge3(const float *const *rows, int64_t W, int64_t ld, int64_t c0, int64_t c1, const int S,
          const float *wt, const float *bias, float lo, float hi, float *out, int64_t ow)
{
    int64_t iw0;
    int kw0, kw1;
    conv_dwc_taps(W, 3, S, ow, &iw0, &kw0, &kw1);
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    switch (kw0 * 4 + kw1) {
    case 0 * 4 + 3: dwc_one3(rows, ld, c0, c1, S, 0, 3, wt, bias, vlo, vhi, out, ow); break;
    case 1 * 4 + 3: dwc_one3(rows, ld, c0, c1, S, 1, 3, wt, bias, vlo, vhi, out, ow); break;
    case 0 * 4 + 2: dwc_one3(rows, ld, c0, c1, S, 0, 2, wt, bias, vlo, vhi, out, ow); break;
    default: dwc_pixel16(rows, W, ld, c0, c1, 3, S, wt, bias, lo, hi, out, ow); break;
    }
}

/* Interior pixels [ow0, ow1) of a 3x3 kernel at stride S, 8 at a time and
 * then 4; returns the first one not computed (fewer than 4 left). */
static inline __attribute__((always_inline)) int64_t
dwc_run3(const float *const *rows, int64_t ld, int64_t c0, int64_t c1, const int S,
         const float *wt, const float *bias, float lo, float hi, float *out, int64_t ow0,
         int64_t ow1)
{
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    int64_t ow = ow0;
    for (; ow + 8 <= ow1; ow += 8)
        dwc_block3(rows, ld, c0, c1, 8, S, wt, bias, vlo, vhi, out, ow);
    for (; ow + 4 <= ow1; ow += 4)
        dwc_block3(rows, ld, c0, c1, 4, S, wt, bias, vlo, vhi, out, ow);
    return ow;
}

void conv_dwc_row_f32_avx512(const float *const *rows, int64_t W, int64_t ld, int64_t c0,
                             int64_t c1, int K, int s, const float *wt, const float *bias,
                             float lo, float hi, float *out, int64_t OW)
{
    int64_t lo_ow, hi_ow; /* interior: every tap inside the row */
    conv_dwc_interior(W, K, s, OW, &lo_ow, &hi_ow);
    int64_t done = lo_ow; /* interior pixels before `done` are computed */
    if (K == 3 && (s == 1 || s == 2)) {
        if (s == 1)
            done = dwc_run3(rows, ld, c0, c1, 1, wt, bias, lo, hi, out, lo_ow, hi_ow);
        else
            done = dwc_run3(rows, ld, c0, c1, 2, wt, bias, lo, hi, out, lo_ow, hi_ow);
        for (int64_t ow = 0; ow < lo_ow; ow++)
            if (s == 1)
                dwc_edge3(rows, W, ld, c0, c1, 1, wt, bias, lo, hi, out, ow);
            else
                dwc_edge3(rows, W, ld, c0, c1, 2, wt, bias, lo, hi, out, ow);
        for (int64_t ow = done; ow < OW; ow++)
            if (s == 1)
                dwc_edge3(rows, W, ld, c0, c1, 1, wt, bias, lo, hi, out, ow);
            else
                dwc_edge3(rows, W, ld, c0, c1, 2, wt, bias, lo, hi, out, ow);
        return;
    }
    for (int64_t ow = 0; ow < lo_ow; ow++)
        dwc_pixel16(rows, W, ld, c0, c1, K, s, wt, bias, lo, hi, out, ow);
    for (int64_t ow = done; ow < OW; ow++)
        dwc_pixel16(rows, W, ld, c0, c1, K, s, wt, bias, lo, hi, out, ow);
}

#else

void conv_dwc_row_f32_avx512(const float *const *rows, int64_t W, int64_t ld, int64_t c0,
                             int64_t c1, int K, int s, const float *wt, const float *bias,
                             float lo, float hi, float *out, int64_t OW)
{
    conv_dwc_row_f32_ref(rows, W, ld, c0, c1, K, s, wt, bias, lo, hi, out, OW);
}

#endif
