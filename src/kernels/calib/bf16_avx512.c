/*
 * bf16 dot-product throughput: vdpbf16ps on zmm (compiled with
 * -mavx512f -mavx512bf16). Each instruction does 32 bf16 multiply-adds into
 * 16 f32 lanes: 64 FLOP. 16 independent accumulators cover its latency.
 * The inputs are small so the f32 sums stay finite for any run length.
 */
#include "kernels/calib/calib.h"

#if defined(__x86_64__)
#include <immintrin.h>

double calib_loop_bf16_zmm(uint64_t iters)
{
    /* 0x3A83 is bf16 ~1e-3; the product 1e-6 per pair keeps sums small */
    __m512bh x = (__m512bh)_mm512_set1_epi16(0x3A83), y = x;
    /* distinct start values: identical chains would be merged into one */
    __m512 a0 = _mm512_set1_ps(0.0f), a1 = _mm512_set1_ps(1.0f), a2 = _mm512_set1_ps(2.0f),
           a3 = _mm512_set1_ps(3.0f), a4 = _mm512_set1_ps(4.0f), a5 = _mm512_set1_ps(5.0f),
           a6 = _mm512_set1_ps(6.0f), a7 = _mm512_set1_ps(7.0f), a8 = _mm512_set1_ps(8.0f),
           a9 = _mm512_set1_ps(9.0f), a10 = _mm512_set1_ps(10.0f), a11 = _mm512_set1_ps(11.0f),
           a12 = _mm512_set1_ps(12.0f), a13 = _mm512_set1_ps(13.0f), a14 = _mm512_set1_ps(14.0f),
           a15 = _mm512_set1_ps(15.0f);
    for (uint64_t i = 0; i < iters; i++) {
        a0 = _mm512_dpbf16_ps(a0, x, y), a1 = _mm512_dpbf16_ps(a1, x, y);
        a2 = _mm512_dpbf16_ps(a2, x, y), a3 = _mm512_dpbf16_ps(a3, x, y);
        a4 = _mm512_dpbf16_ps(a4, x, y), a5 = _mm512_dpbf16_ps(a5, x, y);
        a6 = _mm512_dpbf16_ps(a6, x, y), a7 = _mm512_dpbf16_ps(a7, x, y);
        a8 = _mm512_dpbf16_ps(a8, x, y), a9 = _mm512_dpbf16_ps(a9, x, y);
        a10 = _mm512_dpbf16_ps(a10, x, y), a11 = _mm512_dpbf16_ps(a11, x, y);
        a12 = _mm512_dpbf16_ps(a12, x, y), a13 = _mm512_dpbf16_ps(a13, x, y);
        a14 = _mm512_dpbf16_ps(a14, x, y), a15 = _mm512_dpbf16_ps(a15, x, y);
    }
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                             _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    s = _mm512_add_ps(
        s, _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)),
                         _mm512_add_ps(_mm512_add_ps(a12, a13), _mm512_add_ps(a14, a15))));
    volatile float sink = _mm512_reduce_add_ps(s);
    (void)sink;
    return (double)iters * 16 * 64;
}
#else
/* not an x86-64 build: calib_compute_available() never offers these */
double calib_loop_bf16_zmm(uint64_t iters)
{
    (void)iters;
    return 0;
}
#endif
