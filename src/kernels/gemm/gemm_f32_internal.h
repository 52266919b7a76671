/*
 * Internals of the optimised f32 GEMM shared by the driver (gemm.c), the
 * packers (pack.c), the variant table (variants.c) and the per-ISA
 * micro-kernels (x86_avx512.c, x86_avx2.c, ukernel_ref.c). Not for use
 * outside src/kernels/gemm and its tests.
 *
 * A micro-kernel computes one MR x NR tile of C from a K-slice of A and B:
 *   C[r][c] = alpha * sum_k a(r,k) * b(k,c) + beta * C[r][c]   (r < m, c < n)
 * with a(r,k) = A[r*rs_a + k*cs_a] and b(k,c) = B[k*ldb + c]. rs_a == 0
 * marks packed operands: then a(r,k) = A[k*MR + r], ldb == NR, and both are
 * zero-padded to the full tile, so the kernel may read all of it. Otherwise
 * ("direct" mode, unpacked operands, rs_a >= 1) rows >= m and columns >= n
 * are never read.
 * beta == 0 never reads C. e, when not NULL, is the fused epilogue with its
 * pointers already offset to the tile's first row/column.
 */
#ifndef CAIRN_KERNELS_GEMM_F32_INTERNAL_H
#define CAIRN_KERNELS_GEMM_F32_INTERNAL_H

#include "kernels/gemm/gemm.h"

#include <stddef.h>
#include <stdint.h>

typedef struct gemm_tile_epi {
    const float *bias_row; /* bias of the tile's row 0, or NULL */
    const float *bias_col; /* bias of the tile's column 0, or NULL */
    gemm_act_t act;
    float lo, hi, scale;
    const float *res; /* residual at the tile's (0, 0), or NULL */
    int64_t ldr;
} gemm_tile_epi_t;

typedef void (*gemm_f32_ukernel_fn)(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                                    const float *B, int64_t ldb, float *C, int64_t ldc, int m,
                                    int n, float alpha, float beta, const gemm_tile_epi_t *e);

/* Few-row GEMM without an epilogue (m <= 16, op(B) = B, columns [0, n)):
 * C = alpha * A B + beta * C, streaming B row by row while the m x n block
 * of C stays in cache, so B (the big operand of decode-style products) is
 * read once, sequentially. A is read as a(r,k) = A[r*rs_a + k*cs_a]. */
typedef void (*gemm_f32_smallm_fn)(int m, int64_t n, int64_t K, float alpha, const float *A,
                                   int64_t rs_a, int64_t cs_a, const float *B, int64_t ldb,
                                   float beta, float *C, int64_t ldc);

typedef struct gemm_f32_variant {
    const char *name;
    cairn_isa_t isa; /* the ISA level it needs */
    int mr, nr;
    gemm_f32_ukernel_fn uk;
    gemm_f32_smallm_fn smallm; /* NULL: the micro-kernel in direct mode */
    /* packs op(A) like gemm_f32_pack_a (NULL: that portable one) */
    void (*pack_a)(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0, int64_t mc,
                   int64_t kc, int mr, float *dst);
    /* packs op(B) like gemm_f32_pack_b_block (NULL: that portable one) */
    void (*pack_b)(int transB, const float *B, int64_t ldb, int64_t p0, int64_t j0, int64_t kc,
                   int64_t nc, int nr, float *dst);
} gemm_f32_variant_t;

/* Best first. */
extern const gemm_f32_variant_t gemm_f32_variants[];
extern const int gemm_f32_n_variants;

/* The variant chosen once for this process (CAIRN_ISA caps it). */
const gemm_f32_variant_t *gemm_f32_select(void);
/* The best variant at or below `cap` that the CPU can run, ignoring the
 * environment (tests use it to exercise every variant in one process). */
const gemm_f32_variant_t *gemm_f32_variant_for(cairn_isa_t cap);

/* gemm_f32_ex on a given variant. */
void gemm_f32_run(const gemm_f32_variant_t *v, const kctx_t *k, int transA, int transB,
                  int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                  const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                  const gemm_epilogue_t *epi);
/* The same with a packed B made for variant v (see gemm_f32_pack_b_for). */
void gemm_f32_run_packed(const gemm_f32_variant_t *v, const kctx_t *k, int transA, int64_t M,
                         int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                         const float *packed_data, float beta, float *C, int64_t ldc,
                         const gemm_epilogue_t *epi);

/* Blocking for a variant: KC, MC, NC (MC a multiple of MR, NC of NR). */
typedef struct gemm_blocking {
    int64_t kc, mc, nc;
} gemm_blocking_t;
void gemm_f32_blocking(const gemm_f32_variant_t *v, gemm_blocking_t *b);

/* Packers. pack_a: mc x kc block of op(A) starting at (i0, p0) into MR-row
 * panels (panel q at dst + q*kc*MR, element (r,k) at [k*MR + r]), rows
 * past mc zero. pack_b: kc x nc block of op(B) at (p0, j0) into NR-column
 * panels (panel q at dst + q*kc*NR, element (k,c) at [k*NR + c]). */
void gemm_f32_pack_a(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0, int64_t mc,
                     int64_t kc, int mr, float *dst);
void gemm_f32_pack_b_block(int transB, const float *B, int64_t ldb, int64_t p0, int64_t j0,
                           int64_t kc, int64_t nc, int nr, float *dst);

/* Micro-kernels. */
void gemm_f32_ukernel_ref_4x8(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                              const float *B, int64_t ldb, float *C, int64_t ldc, int m, int n,
                              float alpha, float beta, const gemm_tile_epi_t *e);
void gemm_f32_ukernel_6x16_avx2(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                                const float *B, int64_t ldb, float *C, int64_t ldc, int m, int n,
                                float alpha, float beta, const gemm_tile_epi_t *e);
void gemm_f32_pack_a_avx512(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0,
                             int64_t mc, int64_t kc, int mr, float *dst);
void gemm_f32_pack_b_avx512(int transB, const float *B, int64_t ldb, int64_t p0, int64_t j0,
                            int64_t kc, int64_t nc, int nr, float *dst);
void gemm_f32_smallm_ref(int m, int64_t n, int64_t K, float alpha, const float *A, int64_t rs_a,
                         int64_t cs_a, const float *B, int64_t ldb, float beta, float *C,
                         int64_t ldc);
void gemm_f32_smallm_avx2(int m, int64_t n, int64_t K, float alpha, const float *A, int64_t rs_a,
                          int64_t cs_a, const float *B, int64_t ldb, float beta, float *C,
                          int64_t ldc);
void gemm_f32_smallm_avx512(int m, int64_t n, int64_t K, float alpha, const float *A,
                             int64_t rs_a, int64_t cs_a, const float *B, int64_t ldb, float beta,
                             float *C, int64_t ldc);
void gemm_f32_ukernel_14x32_avx512(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                                   const float *B, int64_t ldb, float *C, int64_t ldc, int m,
                                   int n, float alpha, float beta, const gemm_tile_epi_t *e);

#endif
