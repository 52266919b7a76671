/*
 * Reference GEMM and batched MatMul kernels.
 *
 * gemm_ref_<t> computes C = alpha * op(A) * op(B) + beta * C on row-major
 * matrices with arbitrary leading dimensions (op(X) is X or X^T), M x N
 * result, K the shared dimension. When beta == 0, C is only written, never
 * read, so garbage or NaN in C does not reach the result. gemm_ref_f32 is
 * the oracle that optimised GEMMs are tested against: keep its contract.
 *
 * Accumulation: f32 in f32, f64 in f64, f16/bf16 in f32 (one rounding at
 * the store), i32/i64 in wrapping 32/64-bit integer arithmetic (as numpy and
 * ONNX runtimes do). For the integer types alpha and beta are applied in
 * double and the result truncated toward zero, except the exact common case
 * alpha == 1, beta in {0, 1}.
 *
 * matmul_ref runs numpy-style batched MatMul (batch dims broadcast by
 * strides) on the kctx thread pool, splitting batch*M rows.
 */
#ifndef CAIRN_KERNELS_GEMM_H
#define CAIRN_KERNELS_GEMM_H

#include "kernels/ktensor.h"

#include <stdint.h>

void gemm_ref_f32(int transA, int transB, int64_t M, int64_t N, int64_t K, float alpha,
                  const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                  int64_t ldc);
void gemm_ref_f64(int transA, int transB, int64_t M, int64_t N, int64_t K, double alpha,
                  const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                  double *C, int64_t ldc);
void gemm_ref_f16(int transA, int transB, int64_t M, int64_t N, int64_t K, float alpha,
                  const uint16_t *A, int64_t lda, const uint16_t *B, int64_t ldb, float beta,
                  uint16_t *C, int64_t ldc);
void gemm_ref_bf16(int transA, int transB, int64_t M, int64_t N, int64_t K, float alpha,
                   const uint16_t *A, int64_t lda, const uint16_t *B, int64_t ldb, float beta,
                   uint16_t *C, int64_t ldc);
void gemm_ref_i32(int transA, int transB, int64_t M, int64_t N, int64_t K, float alpha,
                  const int32_t *A, int64_t lda, const int32_t *B, int64_t ldb, float beta,
                  int32_t *C, int64_t ldc);
void gemm_ref_i64(int transA, int transB, int64_t M, int64_t N, int64_t K, float alpha,
                  const int64_t *A, int64_t lda, const int64_t *B, int64_t ldb, float beta,
                  int64_t *C, int64_t ldc);

/* Any of the dtypes above (f32, f64, f16, bf16, i32, i64); alpha and beta
 * are converted to the type's scalar. CAIRN_ERR_DTYPE for other types. */
cairn_status_t gemm_ref(cairn_dtype_t t, int transA, int transB, int64_t M, int64_t N, int64_t K,
                        double alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                        double beta, void *C, int64_t ldc);

#define MATMUL_MAX_BATCH_RANK (CAIRN_MAX_RANK - 2)

/* Y[b] = A[b] (M x K) * B[b] (K x N) for every batch index b of the
 * broadcast batch shape. a_stride/b_stride are element strides of each
 * batch dim (0 where that operand is broadcast); Y is dense. */
typedef struct matmul_params {
    int batch_rank;
    int64_t batch[MATMUL_MAX_BATCH_RANK];
    int64_t a_stride[MATMUL_MAX_BATCH_RANK];
    int64_t b_stride[MATMUL_MAX_BATCH_RANK];
    int64_t M, N, K;
} matmul_params_t;

cairn_status_t matmul_ref(const kctx_t *k, cairn_dtype_t t, const matmul_params_t *p,
                          const void *A, const void *B, void *Y);

#endif
