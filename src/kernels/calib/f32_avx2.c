/*
 * f32 FMA throughput on ymm registers (compiled with -mavx2 -mfma).
 *
 * 12 independent accumulators (latency 4 x 2 ports = 8 needed) plus the two
 * operands fit in the 16 ymm registers without spills.
 */
#include "kernels/calib/calib.h"

#if defined(__x86_64__)
#include <immintrin.h>

double calib_loop_f32_ymm(uint64_t iters)
{
    __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-6f);
    /* distinct start values: identical chains would be merged into one */
    __m256 a0 = _mm256_set1_ps(1.000f), a1 = _mm256_set1_ps(1.001f), a2 = _mm256_set1_ps(1.002f),
           a3 = _mm256_set1_ps(1.003f), a4 = _mm256_set1_ps(1.004f), a5 = _mm256_set1_ps(1.005f),
           a6 = _mm256_set1_ps(1.006f), a7 = _mm256_set1_ps(1.007f), a8 = _mm256_set1_ps(1.008f),
           a9 = _mm256_set1_ps(1.009f), a10 = _mm256_set1_ps(1.010f), a11 = _mm256_set1_ps(1.011f);
    for (uint64_t i = 0; i < iters; i++) {
        a0 = _mm256_fmadd_ps(a0, x, y), a1 = _mm256_fmadd_ps(a1, x, y);
        a2 = _mm256_fmadd_ps(a2, x, y), a3 = _mm256_fmadd_ps(a3, x, y);
        a4 = _mm256_fmadd_ps(a4, x, y), a5 = _mm256_fmadd_ps(a5, x, y);
        a6 = _mm256_fmadd_ps(a6, x, y), a7 = _mm256_fmadd_ps(a7, x, y);
        a8 = _mm256_fmadd_ps(a8, x, y), a9 = _mm256_fmadd_ps(a9, x, y);
        a10 = _mm256_fmadd_ps(a10, x, y), a11 = _mm256_fmadd_ps(a11, x, y);
    }
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                             _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
    s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
    float lanes[8];
    _mm256_storeu_ps(lanes, s);
    volatile float sink = lanes[0] + lanes[7];
    (void)sink;
    return (double)iters * 12 * 8 * 2;
}
#else
/* not an x86-64 build: calib_compute_available() never offers these */
double calib_loop_f32_ymm(uint64_t iters)
{
    (void)iters;
    return 0;
}
#endif
