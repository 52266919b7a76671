/*
 * int8 dot-product throughput: vpdpbusd (u8 x s8 -> s32, 4 products per
 * lane) on zmm with AVX512_VNNI (compiled with -mavx512f -mavx512vnni).
 * One instruction does 64 multiply-adds: 128 OP. The s32 sums wrap
 * harmlessly. 16 independent accumulators cover the latency.
 */
#include "kernels/calib/calib.h"

#if defined(__x86_64__)
#include <immintrin.h>

double calib_loop_s8_zmm(uint64_t iters)
{
    __m512i x = _mm512_set1_epi8(3), y = _mm512_set1_epi8(-2);
    /* distinct start values: identical chains would be merged into one */
    __m512i a0 = _mm512_set1_epi32(0), a1 = _mm512_set1_epi32(1), a2 = _mm512_set1_epi32(2),
            a3 = _mm512_set1_epi32(3), a4 = _mm512_set1_epi32(4), a5 = _mm512_set1_epi32(5),
            a6 = _mm512_set1_epi32(6), a7 = _mm512_set1_epi32(7), a8 = _mm512_set1_epi32(8),
            a9 = _mm512_set1_epi32(9), a10 = _mm512_set1_epi32(10), a11 = _mm512_set1_epi32(11),
            a12 = _mm512_set1_epi32(12), a13 = _mm512_set1_epi32(13), a14 = _mm512_set1_epi32(14),
            a15 = _mm512_set1_epi32(15);
    for (uint64_t i = 0; i < iters; i++) {
        a0 = _mm512_dpbusd_epi32(a0, x, y), a1 = _mm512_dpbusd_epi32(a1, x, y);
        a2 = _mm512_dpbusd_epi32(a2, x, y), a3 = _mm512_dpbusd_epi32(a3, x, y);
        a4 = _mm512_dpbusd_epi32(a4, x, y), a5 = _mm512_dpbusd_epi32(a5, x, y);
        a6 = _mm512_dpbusd_epi32(a6, x, y), a7 = _mm512_dpbusd_epi32(a7, x, y);
        a8 = _mm512_dpbusd_epi32(a8, x, y), a9 = _mm512_dpbusd_epi32(a9, x, y);
        a10 = _mm512_dpbusd_epi32(a10, x, y), a11 = _mm512_dpbusd_epi32(a11, x, y);
        a12 = _mm512_dpbusd_epi32(a12, x, y), a13 = _mm512_dpbusd_epi32(a13, x, y);
        a14 = _mm512_dpbusd_epi32(a14, x, y), a15 = _mm512_dpbusd_epi32(a15, x, y);
    }
    __m512i s =
        _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3)),
                         _mm512_add_epi32(_mm512_add_epi32(a4, a5), _mm512_add_epi32(a6, a7)));
    s = _mm512_add_epi32(
        s,
        _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(a8, a9), _mm512_add_epi32(a10, a11)),
                         _mm512_add_epi32(_mm512_add_epi32(a12, a13), _mm512_add_epi32(a14, a15))));
    /* the wrapped sums are summed as unsigned: signed overflow is undefined */
    unsigned lanes[16], sum = 0;
    _mm512_storeu_si512(lanes, s);
    for (int i = 0; i < 16; i++)
        sum += lanes[i];
    volatile unsigned sink = sum;
    (void)sink;
    return (double)iters * 16 * 128;
}
#else
/* not an x86-64 build: calib_compute_available() never offers these */
double calib_loop_s8_zmm(uint64_t iters)
{
    (void)iters;
    return 0;
}
#endif
