/*
 * The vectorised f32 math of vmath_impl.h on 8-lane AVX2+FMA vectors
 * (functions vm256_exp, vm256_log, ...). Include only from files compiled
 * with -mavx2 -mfma. 2^n is built in the exponent field; exp scales in two
 * steps (2^(n/2) twice) so that subnormal and overflowing results round
 * once, like VSCALEFPS; frexp pre-scales subnormal inputs by 2^23.
 */
#ifndef CAIRN_KERNELS_VMATH_AVX2_H
#define CAIRN_KERNELS_VMATH_AVX2_H

#include <immintrin.h>
#include <math.h>
#include <stdint.h>

static inline __m256 vm256_pow2i(__m256i n) /* 2^n for n in [-126, 127] */
{
    return _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_add_epi32(n, _mm256_set1_epi32(127)), 23));
}

static inline __m256 vm256_scale2n(__m256 p, __m256 n) /* n integral in [-252, 254] */
{
    __m256i ni = _mm256_cvtps_epi32(n);
    __m256i n1 = _mm256_srai_epi32(ni, 1);
    __m256i n2 = _mm256_sub_epi32(ni, n1);
    return _mm256_mul_ps(_mm256_mul_ps(p, vm256_pow2i(n1)), vm256_pow2i(n2));
}

static inline void vm256_frexp(__m256 x, __m256 *m, __m256 *e)
{
    __m256 sub = _mm256_cmp_ps(x, _mm256_set1_ps(1.17549435e-38f), _CMP_LT_OQ);
    __m256 xs = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(8388608.0f)), sub);
    __m256i b = _mm256_castps_si256(xs);
    __m256i ei = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_and_si256(b, _mm256_set1_epi32(0x7f800000)), 23),
                                  _mm256_set1_epi32(127));
    *e = _mm256_sub_ps(_mm256_cvtepi32_ps(ei), _mm256_and_ps(sub, _mm256_set1_ps(23.0f)));
    *m = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi32(0x007fffff)),
                                             _mm256_set1_epi32(0x3f800000)));
}

#define V __m256
#define M __m256
#define VM(name) vm256_##name
#define V_SET1(c) _mm256_set1_ps(c)
#define V_ADD _mm256_add_ps
#define V_SUB _mm256_sub_ps
#define V_MUL _mm256_mul_ps
#define V_DIV _mm256_div_ps
#define V_FMA _mm256_fmadd_ps
#define V_FMS _mm256_fmsub_ps
#define V_FNMA _mm256_fnmadd_ps
#define V_MIN _mm256_min_ps
#define V_MAX _mm256_max_ps
#define V_AND _mm256_and_ps
#define V_OR _mm256_or_ps
#define V_ANDNOT _mm256_andnot_ps
#define V_ABS(x) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), (x))
#define V_ROUND(x) _mm256_round_ps((x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define V_CMP_LT(a, b) _mm256_cmp_ps((a), (b), _CMP_LT_OQ)
#define V_CMP_GT(a, b) _mm256_cmp_ps((a), (b), _CMP_GT_OQ)
#define V_CMP_EQ(a, b) _mm256_cmp_ps((a), (b), _CMP_EQ_OQ)
#define V_CMP_NGE(a, b) _mm256_cmp_ps((a), (b), _CMP_NGE_UQ)
#define V_BLEND(m, a, b) _mm256_blendv_ps((a), (b), (m))
#define V_SCALE2N(p, n) vm256_scale2n((p), (n))
#define V_POW2N_SMALL(n) vm256_pow2i(_mm256_cvtps_epi32(n))
#define V_FREXP(x, m, e) vm256_frexp((x), &(m), &(e))

#define VLEN 8
#define V_ZERO() _mm256_setzero_ps()
#define V_LOAD(p) _mm256_loadu_ps(p)
#define V_STORE(p, v) _mm256_storeu_ps((p), (v))
static inline __m256i vm256_tailmask(int64_t n) /* 0 < n < 8 */
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline __m256 vm256_loadn(const float *p, int64_t n, float fill)
{
    __m256i m = vm256_tailmask(n);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m));
}
static inline float vm256_hsum(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
static inline float vm256_hmax(__m256 v)
{
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
#define V_LOADN(p, n, fill) vm256_loadn((p), (n), (fill))
#define V_STOREN(p, n, v) _mm256_maskstore_ps((p), vm256_tailmask(n), (v))
#define V_HSUM(v) vm256_hsum(v)
#define V_HMAX(v) vm256_hmax(v)

#include "kernels/vmath/vmath_impl.h"

#endif
