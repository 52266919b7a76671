/*
 * f32 FMA throughput on zmm registers (compiled with -mavx512f).
 *
 * 16 independent accumulators: FMA latency is 4 cycles on current cores with
 * up to 2 zmm FMA ports, so 8 chains would do; 16 leaves margin and still
 * fits in the 32 zmm registers with the two operands. The operands keep the
 * accumulators near 1 so no value becomes denormal or infinite.
 */
#include "kernels/calib/calib.h"

#if defined(__x86_64__)
#include <immintrin.h>

double calib_loop_f32_zmm(uint64_t iters)
{
    __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-6f);
    /* distinct start values: identical chains would be merged into one */
    __m512 a0 = _mm512_set1_ps(1.000f), a1 = _mm512_set1_ps(1.001f), a2 = _mm512_set1_ps(1.002f),
           a3 = _mm512_set1_ps(1.003f), a4 = _mm512_set1_ps(1.004f), a5 = _mm512_set1_ps(1.005f),
           a6 = _mm512_set1_ps(1.006f), a7 = _mm512_set1_ps(1.007f), a8 = _mm512_set1_ps(1.008f),
           a9 = _mm512_set1_ps(1.009f), a10 = _mm512_set1_ps(1.010f), a11 = _mm512_set1_ps(1.011f),
           a12 = _mm512_set1_ps(1.012f), a13 = _mm512_set1_ps(1.013f), a14 = _mm512_set1_ps(1.014f),
           a15 = _mm512_set1_ps(1.015f);
    for (uint64_t i = 0; i < iters; i++) {
        a0 = _mm512_fmadd_ps(a0, x, y), a1 = _mm512_fmadd_ps(a1, x, y);
        a2 = _mm512_fmadd_ps(a2, x, y), a3 = _mm512_fmadd_ps(a3, x, y);
        a4 = _mm512_fmadd_ps(a4, x, y), a5 = _mm512_fmadd_ps(a5, x, y);
        a6 = _mm512_fmadd_ps(a6, x, y), a7 = _mm512_fmadd_ps(a7, x, y);
        a8 = _mm512_fmadd_ps(a8, x, y), a9 = _mm512_fmadd_ps(a9, x, y);
        a10 = _mm512_fmadd_ps(a10, x, y), a11 = _mm512_fmadd_ps(a11, x, y);
        a12 = _mm512_fmadd_ps(a12, x, y), a13 = _mm512_fmadd_ps(a13, x, y);
        a14 = _mm512_fmadd_ps(a14, x, y), a15 = _mm512_fmadd_ps(a15, x, y);
    }
    /* the sum keeps every chain live, so none is optimised away */
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                             _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    s = _mm512_add_ps(
        s, _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)),
                         _mm512_add_ps(_mm512_add_ps(a12, a13), _mm512_add_ps(a14, a15))));
    volatile float sink = _mm512_reduce_add_ps(s);
    (void)sink;
    return (double)iters * 16 * 16 * 2;
}
#else
/* not an x86-64 build: calib_compute_available() never offers these */
double calib_loop_f32_zmm(uint64_t iters)
{
    (void)iters;
    return 0;
}
#endif
