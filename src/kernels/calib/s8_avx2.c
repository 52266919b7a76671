/*
 * int8 throughput without VNNI: the AVX2 path of the int8 GEMM widens u8
 * and s8 to 16 bits and multiplies pairs with vpmaddwd (16 multiply-adds,
 * 32 OP, into 8 s32 lanes), accumulating with vpaddd. This loop runs that
 * pair of instructions, so its rate is the ceiling of the AVX2 int8 GEMM
 * (on Zen 2 about the f32 FMA rate: one vpmaddwd per cycle).
 */
#include "kernels/calib/calib.h"

#if defined(__x86_64__)
#include <immintrin.h>

double calib_loop_s8_madd_ymm(uint64_t iters)
{
    /* as in the GEMM, the products do not depend on the accumulators: the
     * adds are 1-cycle chains and vpmaddwd's issue rate is the limit */
    __m256i x = _mm256_set1_epi16(3), y0 = _mm256_set1_epi16(-2), y1 = _mm256_set1_epi16(5),
            y2 = _mm256_set1_epi16(-7), y3 = _mm256_set1_epi16(11);
    __m256i a0 = _mm256_set1_epi32(0), a1 = _mm256_set1_epi32(1), a2 = _mm256_set1_epi32(2),
            a3 = _mm256_set1_epi32(3), a4 = _mm256_set1_epi32(4), a5 = _mm256_set1_epi32(5),
            a6 = _mm256_set1_epi32(6), a7 = _mm256_set1_epi32(7);
    for (uint64_t i = 0; i < iters; i++) {
        x = _mm256_add_epi16(x, y0); /* x changes every step: nothing can be hoisted */
        a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(x, y0));
        a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(x, y1));
        a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(x, y2));
        a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(x, y3));
        a4 = _mm256_add_epi32(a4, _mm256_madd_epi16(y0, x));
        a5 = _mm256_add_epi32(a5, _mm256_madd_epi16(y1, x));
        a6 = _mm256_add_epi32(a6, _mm256_madd_epi16(y2, x));
        a7 = _mm256_add_epi32(a7, _mm256_madd_epi16(y3, x));
    }
    __m256i s =
        _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3)),
                         _mm256_add_epi32(_mm256_add_epi32(a4, a5), _mm256_add_epi32(a6, a7)));
    unsigned lanes[8]; /* summed as unsigned: signed overflow is undefined */
    _mm256_storeu_si256((__m256i *)lanes, s);
    volatile unsigned sink = lanes[0] + lanes[7];
    (void)sink;
    return (double)iters * 8 * 32;
}
#else
double calib_loop_s8_madd_ymm(uint64_t iters)
{
    (void)iters;
    return 0;
}
#endif
