/*
 * AVX2 instances of the fast f32 pooling kernels (fast_impl.h): 8 f32
 * lanes, sums in two 4-lane f64 halves. Compiled with -mavx2 -mfma
 * (CMakeLists.txt) and called only after the CPU check in fast.c.
 */
#include "kernels/pool/fast.h"

#if defined(__x86_64__) && defined(__AVX2__)
#include <immintrin.h>

typedef __m256 pv;
typedef __m256d pd;
#define PN 8
#define PV_SET1(f) _mm256_set1_ps(f)
#define PV_LOADU(p) _mm256_loadu_ps(p)
#define PV_STOREU(p, v) _mm256_storeu_ps((p), (v))
#define PV_STOREN(p, v, n) kp256_store_part((p), (v), (n))
/* b[0], b[2], ..., b[14] from b[0..7] and b[7..14] (never b[15]) */
#define PV_LOAD_S2(b) kp256_even(_mm256_loadu_ps(b), _mm256_loadu_ps((b) + 7))
#define PV_GATHER(b, s) \
    _mm256_i32gather_ps((b), \
                        _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), \
                                           _mm256_set1_epi32((int)(s))), 4)
/* the reference's max step: take v when it is greater, or NaN, unless the
 * running value is already NaN */
#define PV_MAXF(b, v) \
    _mm256_blendv_ps((b), (v), _mm256_and_ps(_mm256_cmp_ps((v), (b), _CMP_NLE_UQ), \
                                             _mm256_cmp_ps((b), (b), _CMP_ORD_Q)))
#define PD_ZERO() _mm256_setzero_pd()
#define PD_SET1(d) _mm256_set1_pd(d)
#define PD_ADD _mm256_add_pd
#define PD_MUL _mm256_mul_pd
#define PD_LOADU(p) _mm256_loadu_pd(p)
#define PD_STOREU(p, v) _mm256_storeu_pd((p), (v))
#define PV_LO_PD(v) _mm256_cvtps_pd(_mm256_castps256_ps128(v))
#define PV_HI_PD(v) _mm256_cvtps_pd(_mm256_extractf128_ps((v), 1))
#define PV_FROM_PD(lo, hi) _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo))
/* s / d, NaN where d is 0 (the reference's value for an empty window) */
#define PD_DIVNZ(s, d) \
    _mm256_blendv_pd(_mm256_div_pd((s), (d)), _mm256_set1_pd(NAN), \
                     _mm256_cmp_pd((d), _mm256_setzero_pd(), _CMP_EQ_OQ))

static inline __m256 kp256_even(__m256 lo, __m256 hi)
{
    /* per 128-bit lane lo[0] lo[2] hi[1] hi[3], then 64-bit quarters 0 2 1 3 */
    __m256 t = _mm256_shuffle_ps(lo, hi, 0xD8);
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(t), 0xD8));
}

/* lanes [0, n), n in 1..7, by plain stores (masked stores are microcoded
 * on AMD) */
static inline void kp256_store_part(float *p, __m256 v, int n)
{
    __m128 h = _mm256_castps256_ps128(v);
    if (n & 4) {
        _mm_storeu_ps(p, h);
        h = _mm256_extractf128_ps(v, 1);
        p += 4;
    }
    if (n & 2) {
        _mm_storel_pi((__m64 *)(void *)p, h);
        h = _mm_movehl_ps(h, h);
        p += 2;
    }
    if (n & 1)
        _mm_store_ss(p, h);
}

#define KP(name) kpool_##name##_f32_avx2
#include "kernels/pool/fast_impl.h"

#else
void kpool_max2d_f32_avx2(const float *x, float *y, int64_t planes, const kpool_geom_t *g)
{
    (void)x, (void)y, (void)planes, (void)g;
}
void kpool_avg2d_f32_avx2(const float *x, float *y, int64_t planes, const kpool_geom_t *g)
{
    (void)x, (void)y, (void)planes, (void)g;
}
void kpool_gavg_f32_avx2(const float *x, float *y, int64_t planes, int64_t n)
{
    (void)x, (void)y, (void)planes, (void)n;
}
#endif
