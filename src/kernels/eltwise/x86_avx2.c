/*
 * AVX2 instances of the fast f32 elementwise kernels (fast_impl.h over
 * vmath_avx2.h). Compiled with -mavx2 -mfma (CMakeLists.txt) and
 * called only after the CPU check in fast.c (fused programs: fused_ref.c).
 */
#include "kernels/eltwise/fast.h"
#include "kernels/eltwise/fused.h"

#if defined(__x86_64__) && defined(__AVX2__)
#include "kernels/vmath/vmath_avx2.h"
#define KF(name) eltwise_f32_##name##_avx2
#include "kernels/eltwise/fast_impl.h"
/* and the fused-program evaluator (fused.h) */
#define EFUSED_FN efused_f32_avx2
#define KX_WIDEN_U8(p) \
    _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(p))))
#define KX_WIDEN_I8(p) \
    _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(p))))
/* 8 whole numbers in [0, 255] (u8) or [-128, 127] (i8): packed with
 * saturation, which leaves them as they are */
#define KX_NARROW_U8(p, v) kx_narrow8((p), (v), 1)
#define KX_NARROW_I8(p, v) kx_narrow8((p), (v), 0)
static inline void kx_narrow8(void *p, __m256 v, int u8)
{
    const __m256i q = _mm256_cvtps_epi32(v);
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    _mm_storel_epi64((__m128i *)p, u8 ? _mm_packus_epi16(w, w) : _mm_packs_epi16(w, w));
}
#define KX_SQRT _mm256_sqrt_ps
#define KX_XOR _mm256_xor_ps
#include "kernels/eltwise/fused_impl.h"
#else
void eltwise_f32_unary_avx2(eltwise_f32_unop_t op, const float *x, float *y, int64_t n)
{
    (void)op, (void)x, (void)y, (void)n;
}
void eltwise_f32_binary_avx2(eltwise_binop_t op, const float *a, int64_t sa, const float *b,
                               int64_t sb, float *o, int64_t n)
{
    (void)op, (void)a, (void)sa, (void)b, (void)sb, (void)o, (void)n;
}
/* never selected off x86 (efused_variant_for); the reference keeps it safe */
void efused_f32_avx2(const efused_prog_t *p, const efused_input_t *in, float *out, int64_t n,
                     int64_t i0, int64_t i1)
{
    efused_f32_ref(p, in, out, n, i0, i1);
}
#endif
