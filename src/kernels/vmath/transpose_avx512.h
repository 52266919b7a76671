/*
 * In-register 16 x 16 transpose of f32 vectors (AVX-512F): r[i] lane j <-
 * r[j] lane i, in 64 shuffles (16 unpacks, 16 in-lane shuffles, 32
 * 128-bit lane shuffles). Shared by the pixel-major 1x1 path's transposed
 * store and the Winograd input copy. Include only from files compiled with
 * AVX-512F enabled.
 */
#ifndef CAIRN_KERNELS_VMATH_TRANSPOSE_AVX512_H
#define CAIRN_KERNELS_VMATH_TRANSPOSE_AVX512_H

#include <immintrin.h>

static inline __attribute__((always_inline)) void vm512_transpose16(__m512 r[16])
{
    __m512 t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    /* u[4g + c], 128-bit lane l: rows 4g..4g+3 of column 4l + c */
    for (int g = 0; g < 16; g += 4) {
        u[g] = _mm512_shuffle_ps(t[g], t[g + 2], 0x44);
        u[g + 1] = _mm512_shuffle_ps(t[g], t[g + 2], 0xEE);
        u[g + 2] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0x44);
        u[g + 3] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
    }
    for (int c = 0; c < 4; c++) {
        const __m512 x0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x44);
        const __m512 x1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xEE);
        const __m512 y0 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x44);
        const __m512 y1 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xEE);
        r[c] = _mm512_shuffle_f32x4(x0, y0, 0x88);
        r[4 + c] = _mm512_shuffle_f32x4(x0, y0, 0xDD);
        r[8 + c] = _mm512_shuffle_f32x4(x1, y1, 0x88);
        r[12 + c] = _mm512_shuffle_f32x4(x1, y1, 0xDD);
    }
}

#endif
