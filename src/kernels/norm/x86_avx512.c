/*
 * avx512 instances of the fast f32 Softmax / LayerNorm / RMSNorm row kernels
 * (fast_impl.h over vmath_avx512.h). Compiled with this ISA's flags
 * (CMakeLists.txt) and called only after the CPU check in fast.c.
 */
#include "kernels/norm/fast.h"

#if defined(__x86_64__) && defined(__AVX512F__)
#include "kernels/vmath/vmath_avx512.h"
#define KN(name) knorm_##name##_f32_avx512
#include "kernels/norm/fast_impl.h"
#else
void knorm_softmax_rows_f32_avx512(const float *x, float *y, int64_t rows, int64_t d, int lg)
{
    (void)x, (void)y, (void)rows, (void)d, (void)lg;
}
void knorm_layernorm_rows_f32_avx512(const float *x, float *y, int64_t rows, int64_t d,
                                     const float *scale, const float *bias, float eps,
                                     float *mean, float *isd)
{
    (void)x, (void)y, (void)rows, (void)d, (void)scale, (void)bias, (void)eps, (void)mean, (void)isd;
}
void knorm_rmsnorm_rows_f32_avx512(const float *x, float *y, int64_t rows, int64_t d,
                                   const float *scale, float eps)
{
    (void)x, (void)y, (void)rows, (void)d, (void)scale, (void)eps;
}
#endif
