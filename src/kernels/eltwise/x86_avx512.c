/*
 * AVX-512 instances of the fast f32 elementwise kernels (fast_impl.h over
 * vmath_avx512.h). Compiled with -mavx512f/dq/bw/vl (CMakeLists.txt) and
 * called only after the CPU check in fast.c (fused programs: fused_ref.c).
 */
#include "kernels/eltwise/fast.h"
#include "kernels/eltwise/fused.h"

#if defined(__x86_64__) && defined(__AVX512F__)
#include "kernels/vmath/vmath_avx512.h"
#define KF(name) eltwise_f32_##name##_avx512
#include "kernels/eltwise/fast_impl.h"
/* and the fused-program evaluator (fused.h) */
#define EFUSED_FN efused_f32_avx512
#define KX_WIDEN_U8(p) \
    _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p))))
#define KX_WIDEN_I8(p) \
    _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p))))
#define KX_NARROW_U8(p, v) \
    _mm_storeu_si128((__m128i *)(void *)(p), _mm512_cvtusepi32_epi8(_mm512_cvtps_epi32(v)))
#define KX_NARROW_I8(p, v) \
    _mm_storeu_si128((__m128i *)(void *)(p), _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(v)))
#define KX_SQRT _mm512_sqrt_ps
#define KX_XOR _mm512_xor_ps
#include "kernels/eltwise/fused_impl.h"
#else
void eltwise_f32_unary_avx512(eltwise_f32_unop_t op, const float *x, float *y, int64_t n)
{
    (void)op, (void)x, (void)y, (void)n;
}
void eltwise_f32_binary_avx512(eltwise_binop_t op, const float *a, int64_t sa, const float *b,
                               int64_t sb, float *o, int64_t n)
{
    (void)op, (void)a, (void)sa, (void)b, (void)sb, (void)o, (void)n;
}
/* never selected off x86 (efused_variant_for); the reference keeps it safe */
void efused_f32_avx512(const efused_prog_t *p, const efused_input_t *in, float *out, int64_t n,
                      int64_t i0, int64_t i1)
{
    efused_f32_ref(p, in, out, n, i0, i1);
}
#endif
