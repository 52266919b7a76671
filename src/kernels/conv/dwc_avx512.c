/*
 * AVX-512 depthwise row over channel-contiguous rows (mbconv.h's
 * conv_dwc_row contract), 16 channels a vector, the channels past the last
 * multiple of 16 under a mask (MobileNetV2's expansions are 96 to 960
 * channels, all multiples of 16).
 *
 * A 3x3 row at stride 1 or 2 goes one 16-channel slice at a time along
 * the whole row: the slice's nine weight vectors stay in registers and the
 * pixels slide, each loading only the input columns the pixel before it
 * did not read (3 vectors at stride 1, 6 at stride 2) for its 9 FMAs, the
 * padding columns at the row's ends as zeros. One offset register walks
 * the row; the three kernel rows are base registers. Floor: 9 FMAs per 16
 * outputs (Zen 4 issues one 512-bit FMA a cycle), plus the store.
 * Measured on Zen 4 (1 thread, the rows in L1 or L2, cycles per 16
 * outputs): stride 1 14.5-16 -> 10.6-13.7 against the 8-pixel blocks this
 * replaced (their 3 x (8 S + 2) input addresses a row, a runtime stride
 * apart, did not fit the general registers: gcc kept them in xmm
 * registers and on the stack and reloaded them in the loop), stride 2
 * 17-28 -> 16-21 (where the three rows are over L1, six new lines from L2
 * per 16 outputs bound it: 11 with the rows in L1), 7-pixel rows 24 ->
 * 19.7. Other kernel sizes and rows too short for an interior take the
 * per-pixel path (taps clipped to the row). Compiled with -mavx512f
 * (CMakeLists.txt); called only after the CPU check in mbconv.c.
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

/* The input vector at p: all 16 lanes, or those of m (zeros above) */
static inline __attribute__((always_inline)) __m512 ld16(const int FULL, __mmask16 m,
                                                          const char *p)
{
    return FULL ? _mm512_loadu_ps((const float *)p) : _mm512_maskz_loadu_ps(m, (const float *)p);
}

/* One pixel of dwc_slide3 at offset off (q S ldb; its output at o + q
 * ldb): loads the columns it does not share with the pixel before (ZR: its
 * right column is the padding), sums, stores, and shifts x for the next.
 * Three partial sums (one per kernel row) shorten the FMA chain to 3 FMAs
 * and 2 adds. */
static inline __attribute__((always_inline)) void
dwc_px3(__m512 x[3][3], const __m512 w[9], __m512 b, const int FULL, __mmask16 m, const int S,
        const int ZR, const char *p0, const char *p1, const char *p2, int64_t off, int64_t ldb,
        __m512 vlo, __m512 vhi, char *o)
{
    if (S == 2) {
        x[0][1] = ld16(FULL, m, p0 + off + ldb);
        x[1][1] = ld16(FULL, m, p1 + off + ldb);
        x[2][1] = ld16(FULL, m, p2 + off + ldb);
    }
    if (ZR) {
        x[0][2] = x[1][2] = x[2][2] = _mm512_setzero_ps();
    } else {
        x[0][2] = ld16(FULL, m, p0 + off + 2 * ldb);
        x[1][2] = ld16(FULL, m, p1 + off + 2 * ldb);
        x[2][2] = ld16(FULL, m, p2 + off + 2 * ldb);
    }
    __m512 a0 = _mm512_fmadd_ps(w[0], x[0][0], b);
    __m512 a1 = _mm512_mul_ps(w[3], x[1][0]);
    __m512 a2 = _mm512_mul_ps(w[6], x[2][0]);
    a0 = _mm512_fmadd_ps(w[1], x[0][1], a0);
    a1 = _mm512_fmadd_ps(w[4], x[1][1], a1);
    a2 = _mm512_fmadd_ps(w[7], x[2][1], a2);
    a0 = _mm512_fmadd_ps(w[2], x[0][2], a0);
    a1 = _mm512_fmadd_ps(w[5], x[1][2], a1);
    a2 = _mm512_fmadd_ps(w[8], x[2][2], a2);
    const __m512 y = clamp16(_mm512_add_ps(_mm512_add_ps(a0, a1), a2), vlo, vhi);
    if (FULL)
        _mm512_storeu_ps((float *)o, y);
    else
        _mm512_mask_storeu_ps((float *)o, m, y);
#pragma GCC unroll 3
    for (int kh = 0; kh < 3; kh++) {
        if (S == 1)
            x[kh][0] = x[kh][1], x[kh][1] = x[kh][2];
        else
            x[kh][0] = x[kh][2];
    }
}

/* Output pixels [0, OW) of a 3x3 row at stride S for the 16 channels at c
 * (FULL: all of them; else those of m): pixel 0's left column is the
 * padding, and with `right` so is the last pixel's right one (every other
 * tap inside the row: the caller checked). x[kh][kw] holds the current
 * pixel's input columns. */
static inline __attribute__((always_inline)) void
dwc_slide3(const float *const *rows, int64_t ld, int64_t c, __mmask16 m, const int FULL,
           const int S, const float *wt, const float *bias, __m512 vlo, __m512 vhi, float *out,
           int64_t OW, int right)
{
    __m512 w[9];
#pragma GCC unroll 9
    for (int t = 0; t < 9; t++)
        w[t] = ld16(FULL, m, (const char *)(wt + t * ld + c));
    const __m512 b = bias ? ld16(FULL, m, (const char *)(bias + c)) : _mm512_setzero_ps();
    const int64_t ldb = ld * (int64_t)sizeof(float);
    /* column -1 of each kernel row: pixel q's kw-th column is at p + (q S + kw) ldb */
    const char *p0 = (const char *)(rows[0] + c) - ldb;
    const char *p1 = (const char *)(rows[1] + c) - ldb;
    const char *p2 = (const char *)(rows[2] + c) - ldb;
    char *o = (char *)(out + c);
    __m512 x[3][3];
#pragma GCC unroll 3
    for (int kh = 0; kh < 3; kh++)
        x[kh][0] = _mm512_setzero_ps(); /* the left padding */
    if (S == 1) {
        x[0][1] = ld16(FULL, m, p0 + ldb);
        x[1][1] = ld16(FULL, m, p1 + ldb);
        x[2][1] = ld16(FULL, m, p2 + ldb);
    }
    const int64_t n = OW - right;
    int64_t q = 0;
#pragma GCC unroll 4
    for (; q < n; q++)
        dwc_px3(x, w, b, FULL, m, S, 0, p0, p1, p2, q * S * ldb, ldb, vlo, vhi, o + q * ldb);
    if (right)
        dwc_px3(x, w, b, FULL, m, S, 1, p0, p1, p2, q * S * ldb, ldb, vlo, vhi, o + q * ldb);
}

/* dwc_slide3 over channels [c0, c1): whole vectors, then a masked one */
static inline __attribute__((always_inline)) void
dwc_row3(const float *const *rows, int64_t ld, int64_t c0, int64_t c1, const int S,
         const float *wt, const float *bias, float lo, float hi, float *out, int64_t OW, int right)
{
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    int64_t c = c0;
    for (; c + 16 <= c1; c += 16)
        dwc_slide3(rows, ld, c, 0xFFFF, 1, S, wt, bias, vlo, vhi, out, OW, right);
    if (c < c1)
        dwc_slide3(rows, ld, c, lanes16(c1 - c), 0, S, wt, bias, vlo, vhi, out, OW, right);
}

void conv_dwc_row_f32_avx512(const float *const *rows, int64_t W, int64_t ld, int64_t c0,
                             int64_t c1, int K, int s, const float *wt, const float *bias,
                             float lo, float hi, float *out, int64_t OW)
{
    int64_t lo_ow, hi_ow; /* interior: every tap inside the row */
    conv_dwc_interior(W, K, s, OW, &lo_ow, &hi_ow);
    /* a 3x3 row whose only clipped taps are pixel 0's left column and
     * perhaps the last pixel's right one */
    if (K == 3 && (s == 1 || s == 2) && lo_ow == 1 && hi_ow > lo_ow && OW - hi_ow <= 1) {
        if (s == 1)
            dwc_row3(rows, ld, c0, c1, 1, wt, bias, lo, hi, out, OW, hi_ow < OW);
        else
            dwc_row3(rows, ld, c0, c1, 2, wt, bias, lo, hi, out, OW, hi_ow < OW);
        return;
    }
    for (int64_t ow = 0; ow < OW; ow++)
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
