/*
 * The few-row GEMM (see gemm_f32_smallm_fn in gemm_f32_internal.h) in plain
 * C, included by the files that want it compiled for their own ISA (the
 * reference kernel at baseline x86-64, the AVX2 file with AVX2): the j loop
 * is a contiguous multiply-add over 4 rows of B that compilers vectorise.
 * K is taken 4 rows of B at a time so each C element is loaded and stored
 * once per 4 multiply-adds while B streams through row by row.
 */
#ifndef CAIRN_KERNELS_GEMM_SMALLM_GENERIC_H
#define CAIRN_KERNELS_GEMM_SMALLM_GENERIC_H

#include <stdint.h>

static void smallm_generic(int m, int64_t n, int64_t K, float alpha, const float *A,
                           int64_t rs_a, int64_t cs_a, const float *B, int64_t ldb, float beta,
                           float *C, int64_t ldc)
{
    for (int r = 0; r < m; r++) {
        float *restrict c = C + r * ldc;
        for (int64_t j = 0; j < n; j++)
            c[j] = beta == 0.0f ? 0.0f : beta * c[j];
    }
    int64_t k = 0;
    for (; k + 4 <= K; k += 4) {
        const float *restrict b0 = B + k * ldb, *restrict b1 = b0 + ldb, *restrict b2 = b1 + ldb,
                              *restrict b3 = b2 + ldb;
        for (int r = 0; r < m; r++) {
            const float *a = A + r * rs_a + k * cs_a;
            float a0 = alpha * a[0], a1 = alpha * a[cs_a], a2 = alpha * a[2 * cs_a],
                  a3 = alpha * a[3 * cs_a];
            float *restrict c = C + r * ldc;
            for (int64_t j = 0; j < n; j++)
                c[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
        }
    }
    for (; k < K; k++) {
        const float *restrict b0 = B + k * ldb;
        for (int r = 0; r < m; r++) {
            float a0 = alpha * A[r * rs_a + k * cs_a];
            float *restrict c = C + r * ldc;
            for (int64_t j = 0; j < n; j++)
                c[j] += a0 * b0[j];
        }
    }
}

#endif
