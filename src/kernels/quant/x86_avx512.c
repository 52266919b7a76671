/*
 * AVX-512 passes of DynamicQuantizeLinear (dyn.c picks them where the CPU
 * and the CAIRN_ISA cap allow), of QuantizeLinear and of QLinearConv's
 * requantisation (qdq.c): the SSE2
 * passes on 16 lanes, the tail
 * under a mask, the same results bit for bit (vminps / vmaxps keep the
 * running value for a NaN, vdivps rounds as the scalar division, the
 * 1.5 2^23 add and subtract rounds half to even). Each quantise step is a
 * division, which bounds the pass: 16 lanes a vdivps against SSE2's 4.
 * Compiled with -mavx512f (CMakeLists.txt).
 */
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_internal.h"

#if defined(__x86_64__) && defined(__AVX512F__)
#include <immintrin.h>
#include <math.h>

void quant_dyn_minmax_avx512(const float *x, int64_t n, float *mn_out, float *mx_out)
{
    __m512 mn = _mm512_setzero_ps(), mx = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        mn = _mm512_min_ps(v, mn);
        mx = _mm512_max_ps(v, mx);
    }
    if (i < n) { /* the masked-off lanes load 0, which changes neither */
        const __m512 v = _mm512_maskz_loadu_ps((__mmask16)((1u << (n - i)) - 1u), x + i);
        mn = _mm512_min_ps(v, mn);
        mx = _mm512_max_ps(v, mx);
    }
    *mn_out = _mm512_reduce_min_ps(mn);
    *mx_out = _mm512_reduce_max_ps(mx);
}

void quant_dyn_quantize_avx512(const float *x, int64_t n, float s, float z, uint8_t *y)
{
    const __m512 vs = _mm512_set1_ps(s), vz = _mm512_set1_ps(z);
    const __m512 magic = _mm512_set1_ps(12582912.0f), zero = _mm512_setzero_ps();
    const __m512 top = _mm512_set1_ps(255.0f);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1u);
        __m512 v = _mm512_div_ps(_mm512_maskz_loadu_ps(m, x + i), vs);
        v = _mm512_add_ps(_mm512_sub_ps(_mm512_add_ps(v, magic), magic), vz);
        v = _mm512_min_ps(_mm512_max_ps(v, zero), top);
        _mm512_mask_cvtusepi32_storeu_epi8(y + i, m, _mm512_cvtps_epu32(v));
    }
}

void quant_ql_quantize_avx512(const float *x, int64_t n, float s, int32_t z, int y_u8, void *y)
{
    const __m512 vs = _mm512_set1_ps(s), vz = _mm512_set1_ps((float)z);
    const __m512 magic = _mm512_set1_ps(12582912.0f);
    const __m512 lo = _mm512_set1_ps(y_u8 ? 0.0f : -128.0f);
    const __m512 hi = _mm512_set1_ps(y_u8 ? 255.0f : 127.0f);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1u);
        __m512 v = _mm512_div_ps(_mm512_maskz_loadu_ps(m, x + i), vs);
        v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v); /* NaN -> 0 */
        v = _mm512_add_ps(_mm512_sub_ps(_mm512_add_ps(v, magic), magic), vz);
        v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
        const __m512i q = _mm512_cvtps_epi32(v);
        if (y_u8)
            _mm512_mask_cvtusepi32_storeu_epi8((uint8_t *)y + i, m, q);
        else
            _mm512_mask_cvtsepi32_storeu_epi8((int8_t *)y + i, m, q);
    }
}

/* 16 sums in double, the reference's operations (quant_requant_avx512's
 * fallback) */
static inline __m512i rq_double(__m512i a, __m512d vb, __m512d vm, __m512d vz, __m512d lo,
                                __m512d hi)
{
    const __m512d zero = _mm512_setzero_pd();
    __m256i h[2];
    for (int p = 0; p < 2; p++) {
        const __m256i a8 = p ? _mm512_extracti64x4_epi64(a, 1) : _mm512_castsi512_si256(a);
        __m512d v = _mm512_mul_pd(_mm512_add_pd(_mm512_cvtepi32_pd(a8), vb), vm);
        v = _mm512_roundscale_pd(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v = _mm512_add_pd(v, vz);
        v = _mm512_mask_mov_pd(v, _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q), zero);
        v = _mm512_min_pd(_mm512_max_pd(v, lo), hi);
        h[p] = _mm512_cvtpd_epi32(v);
    }
    return _mm512_inserti64x4(_mm512_castsi256_si512(h[0]), h[1], 1);
}

/* The requantisation in single precision where it provably gives the
 * double's result: with x = acc + b exact in int32 (no overflow: checked
 * per vector unless acc_max + |b| < 2^31), m an f32 value, p = fl(fl(x) m)
 * is within |x m| 2^-22.9 of x m and the reference's fl64(x m) within |x
 * m| 2^-53, so for |p| <= 512 the two are within 2^-14 of each other and
 * round to the same integer unless p lies within 2^-13 of a half-integer
 * (those vectors, ~1 in 250, take the double path); for |p| > 512, |x m|
 * > 511.99 and both saturate with the same sign (|z| <= 255), whatever
 * p's rounding (the tie check may still send such a vector to the double
 * path, which is right too). The clamp before the conversion to int32 is
 * needed only where |x m| can reach 2^31 (|m| >= 1/2). 16 lanes in single
 * precision against two 8-lane halves in double. */
void quant_requant_avx512(const int32_t *acc, int64_t n, double b, double m, int32_t z, int y_u8,
                          void *y, int64_t acc_max)
{
    const __m512d vb = _mm512_set1_pd(b), vm = _mm512_set1_pd(m), vz = _mm512_set1_pd((double)z);
    const __m512d lo = _mm512_set1_pd(y_u8 ? 0.0 : -128.0);
    const __m512d hi = _mm512_set1_pd(y_u8 ? 255.0 : 127.0);
    const int fast = isfinite(m) && (double)(float)m == m && b >= -2147483648.0 &&
                     b <= 2147483647.0 && b == (double)(int32_t)b;
    const int check_ovf = !(acc_max >= 0 && (double)acc_max + fabs(b) < 2147483648.0);
    const int clamp = !(fabs(m) < 0.5);
    const __m512i vbi = _mm512_set1_epi32(fast ? (int32_t)b : 0), vzi = _mm512_set1_epi32(z);
    const __m512 vmf = _mm512_set1_ps((float)m), near = _mm512_set1_ps(0.5f - 0x1p-13f);
    const __m512 cap = _mm512_set1_ps(1024.0f), ncap = _mm512_set1_ps(-1024.0f);
    const __m512i ilo = _mm512_set1_epi32(y_u8 ? 0 : -128);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 k = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1u);
        const __m512i a = _mm512_maskz_loadu_epi32(k, acc + i);
        __m512i q;
        int slow = !fast;
        if (fast) {
            const __m512i x = _mm512_add_epi32(a, vbi);
            __mmask16 bad = 0;
            if (check_ovf) /* acc + b overflowed: both operands' signs differ from the sum's */
                bad = _mm512_cmplt_epi32_mask(
                    _mm512_and_si512(_mm512_xor_si512(a, x), _mm512_xor_si512(vbi, x)),
                    _mm512_setzero_si512());
            const __m512 pf = _mm512_mul_ps(_mm512_cvtepi32_ps(x), vmf);
            __m512 r = _mm512_roundscale_ps(pf, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            bad |= _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(pf, r)), near, _CMP_GE_OQ);
            slow = (bad & k) != 0;
            if (clamp)
                r = _mm512_min_ps(_mm512_max_ps(r, ncap), cap);
            q = _mm512_max_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(r), vzi), ilo);
        }
        if (slow)
            q = rq_double(a, vb, vm, vz, lo, hi);
        if (y_u8)
            _mm512_mask_cvtusepi32_storeu_epi8((uint8_t *)y + i, k, q);
        else
            _mm512_mask_cvtsepi32_storeu_epi8((int8_t *)y + i, k, q);
    }
}

#else

void quant_requant_avx512(const int32_t *acc, int64_t n, double b, double m, int32_t z, int y_u8,
                          void *y, int64_t acc_max)
{
    (void)acc, (void)n, (void)b, (void)m, (void)z, (void)y_u8, (void)y, (void)acc_max;
}

void quant_ql_quantize_avx512(const float *x, int64_t n, float s, int32_t z, int y_u8, void *y)
{
    (void)x, (void)n, (void)s, (void)z, (void)y_u8, (void)y;
}

void quant_dyn_minmax_avx512(const float *x, int64_t n, float *mn_out, float *mx_out)
{
    (void)x, (void)n, (void)mn_out, (void)mx_out;
}

void quant_dyn_quantize_avx512(const float *x, int64_t n, float s, float z, uint8_t *y)
{
    (void)x, (void)n, (void)s, (void)z, (void)y;
}

#endif
