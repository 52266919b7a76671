/*
 * int8 dot-product throughput: the VEX-encoded vpdpbusd of AVX-VNNI on ymm
 * (compiled with -mavx2 -mavxvnni only, so no EVEX instruction sneaks in
 * for CPUs that have AVX-VNNI without AVX-512). One instruction does 32
 * multiply-adds: 64 OP. 12 accumulators fit in the 16 ymm registers.
 */
#include "kernels/calib/calib.h"

#if defined(__x86_64__)
#include <immintrin.h>

double calib_loop_s8_ymm(uint64_t iters)
{
    __m256i x = _mm256_set1_epi8(3), y = _mm256_set1_epi8(-2);
    /* distinct start values: identical chains would be merged into one */
    __m256i a0 = _mm256_set1_epi32(0), a1 = _mm256_set1_epi32(1), a2 = _mm256_set1_epi32(2),
            a3 = _mm256_set1_epi32(3), a4 = _mm256_set1_epi32(4), a5 = _mm256_set1_epi32(5),
            a6 = _mm256_set1_epi32(6), a7 = _mm256_set1_epi32(7), a8 = _mm256_set1_epi32(8),
            a9 = _mm256_set1_epi32(9), a10 = _mm256_set1_epi32(10), a11 = _mm256_set1_epi32(11);
    for (uint64_t i = 0; i < iters; i++) {
        a0 = _mm256_dpbusd_avx_epi32(a0, x, y), a1 = _mm256_dpbusd_avx_epi32(a1, x, y);
        a2 = _mm256_dpbusd_avx_epi32(a2, x, y), a3 = _mm256_dpbusd_avx_epi32(a3, x, y);
        a4 = _mm256_dpbusd_avx_epi32(a4, x, y), a5 = _mm256_dpbusd_avx_epi32(a5, x, y);
        a6 = _mm256_dpbusd_avx_epi32(a6, x, y), a7 = _mm256_dpbusd_avx_epi32(a7, x, y);
        a8 = _mm256_dpbusd_avx_epi32(a8, x, y), a9 = _mm256_dpbusd_avx_epi32(a9, x, y);
        a10 = _mm256_dpbusd_avx_epi32(a10, x, y), a11 = _mm256_dpbusd_avx_epi32(a11, x, y);
    }
    __m256i s =
        _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3)),
                         _mm256_add_epi32(_mm256_add_epi32(a4, a5), _mm256_add_epi32(a6, a7)));
    s = _mm256_add_epi32(s, _mm256_add_epi32(_mm256_add_epi32(a8, a9), _mm256_add_epi32(a10, a11)));
    unsigned lanes[8]; /* summed as unsigned: signed overflow is undefined */
    _mm256_storeu_si256((__m256i *)lanes, s);
    volatile unsigned sink = lanes[0] + lanes[7];
    (void)sink;
    return (double)iters * 12 * 64;
}
#else
/* not an x86-64 build: calib_compute_available() never offers these */
double calib_loop_s8_ymm(uint64_t iters)
{
    (void)iters;
    return 0;
}
#endif
