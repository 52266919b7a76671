/*
 * AVX-512 instances of the fast f32 pooling kernels (fast_impl.h): 16 f32
 * lanes, sums in two 8-lane f64 halves; the same loops as the AVX2 file.
 * Compiled with AVX-512 F/BW/VL/DQ flags (CMakeLists.txt) and called only
 * after the CPU check in fast.c.
 */
#include "kernels/pool/fast.h"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>

typedef __m512 pv;
typedef __m512d pd;
#define PN 16
#define PV_SET1(f) _mm512_set1_ps(f)
#define PV_LOADU(p) _mm512_loadu_ps(p)
#define PV_STOREU(p, v) _mm512_storeu_ps((p), (v))
#define PV_STOREN(p, v, n) _mm512_mask_storeu_ps((p), (__mmask16)((1u << (n)) - 1u), (v))
/* b[0], b[2], ..., b[30] from b[0..15] and b[15..30] (never b[31]) */
#define PV_LOAD_S2(b) \
    _mm512_permutex2var_ps(_mm512_loadu_ps(b), \
                           _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, \
                                             29, 31), \
                           _mm512_loadu_ps((b) + 15))
#define PV_GATHER(b, s) \
    _mm512_i32gather_ps(_mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, \
                                                             11, 12, 13, 14, 15), \
                                           _mm512_set1_epi32((int)(s))), \
                        (b), 4)
/* the reference's max step: take v when it is greater, or NaN, unless the
 * running value is already NaN */
#define PV_MAXF(b, v) \
    _mm512_mask_blend_ps(_mm512_cmp_ps_mask((v), (b), _CMP_NLE_UQ) & \
                             _mm512_cmp_ps_mask((b), (b), _CMP_ORD_Q), \
                         (b), (v))
#define PD_ZERO() _mm512_setzero_pd()
#define PD_SET1(d) _mm512_set1_pd(d)
#define PD_ADD _mm512_add_pd
#define PD_MUL _mm512_mul_pd
#define PD_LOADU(p) _mm512_loadu_pd(p)
#define PD_STOREU(p, v) _mm512_storeu_pd((p), (v))
#define PV_LO_PD(v) _mm512_cvtps_pd(_mm512_castps512_ps256(v))
#define PV_HI_PD(v) _mm512_cvtps_pd(_mm512_extractf32x8_ps((v), 1))
#define PV_FROM_PD(lo, hi) \
    _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1)
/* s / d, NaN where d is 0 (the reference's value for an empty window) */
#define PD_DIVNZ(s, d) \
    _mm512_mask_blend_pd(_mm512_cmp_pd_mask((d), _mm512_setzero_pd(), _CMP_EQ_OQ), \
                         _mm512_div_pd((s), (d)), _mm512_set1_pd(NAN))

#define KP(name) kpool_##name##_f32_avx512
#include "kernels/pool/fast_impl.h"

#else
void kpool_max2d_f32_avx512(const float *x, float *y, int64_t planes, const kpool_geom_t *g)
{
    (void)x, (void)y, (void)planes, (void)g;
}
void kpool_avg2d_f32_avx512(const float *x, float *y, int64_t planes, const kpool_geom_t *g)
{
    (void)x, (void)y, (void)planes, (void)g;
}
void kpool_gavg_f32_avx512(const float *x, float *y, int64_t planes, int64_t n)
{
    (void)x, (void)y, (void)planes, (void)n;
}
#endif
