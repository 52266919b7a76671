/*
 * AVX-512 instances of the fast f32 elementwise kernels (fast_impl.h over
 * vmath_avx512.h). Compiled with -mavx512f/dq/bw/vl (CMakeLists.txt) and
 * called only after the CPU check in fast.c.
 */
#include "kernels/eltwise/fast.h"

#if defined(__x86_64__) && defined(__AVX512F__)
#include "kernels/vmath/vmath_avx512.h"
#define KF(name) eltwise_f32_##name##_avx512
#include "kernels/eltwise/fast_impl.h"
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
#endif
