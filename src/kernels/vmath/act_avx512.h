/*
 * The activations without a transcendental (gemm_act_is_simple: none,
 * ReLU, clip) on a 16-lane f32 vector, as the AVX-512 GEMM epilogues, the
 * pixel-major 1x1 path's transposed store and the Winograd output
 * transform apply them. A NaN gives what the scalar form
 * (gemm_act_apply_f32) gives: vmaxps returns its second operand when one
 * is NaN, so ReLU gives 0 and clip gives lo. Include only from files
 * compiled with AVX-512F enabled.
 */
#ifndef CAIRN_KERNELS_VMATH_ACT_AVX512_H
#define CAIRN_KERNELS_VMATH_ACT_AVX512_H

#include "kernels/gemm/gemm.h"

#include <immintrin.h>

static inline __attribute__((always_inline)) __m512 vm512_act_simple(__m512 v, gemm_act_t act,
                                                                     float lo, float hi)
{
    if (act == GEMM_ACT_RELU)
        return _mm512_max_ps(v, _mm512_setzero_ps());
    if (act == GEMM_ACT_CLIP)
        return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
    return v;
}

#endif
