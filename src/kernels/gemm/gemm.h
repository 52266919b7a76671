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

/* ============================ optimised f32 GEMM ============================
 *
 * gemm_f32 computes C = alpha*op(A)*op(B) + beta*C with the same contract as
 * gemm_ref_f32 (row-major, any leading dimensions, beta == 0 never reads C),
 * using the best micro-kernel variant the CPU allows (see variants.c;
 * CAIRN_ISA caps the choice, CAIRN_VERBOSE=1 reports it). k may be NULL or
 * have no pool: then it runs on the calling thread.
 */
void gemm_f32(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
              float alpha, const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
              float *C, int64_t ldc);

/* Activations of the fused epilogue. */
typedef enum gemm_act {
    GEMM_ACT_NONE = 0,
    GEMM_ACT_RELU,
    GEMM_ACT_GELU_ERF,  /* x/2 * (1 + erf(x/sqrt 2)) */
    GEMM_ACT_GELU_TANH, /* x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) */
    GEMM_ACT_SILU,      /* x * sigmoid(x) */
    GEMM_ACT_SIGMOID,
    GEMM_ACT_CLIP       /* min(max(x, clip_lo), clip_hi) */
} gemm_act_t;

/* 1 for the activations without a transcendental (none, ReLU, clip), which
 * the vector kernels apply inline on their registers */
static inline int gemm_act_is_simple(gemm_act_t act)
{
    return act == GEMM_ACT_NONE || act == GEMM_ACT_RELU || act == GEMM_ACT_CLIP;
}

typedef enum gemm_bias_kind {
    GEMM_BIAS_NONE = 0,
    GEMM_BIAS_ROW, /* bias[i] added to row i (length M) */
    GEMM_BIAS_COL  /* bias[j] added to column j (length N) */
} gemm_bias_kind_t;

/* The fused epilogue, applied to each register tile before it is stored:
 *   v = alpha*op(A)op(B) + beta*C          (the GEMM itself)
 *   v = v + bias                           (per row or per column)
 *   v = act(v)
 *   v = v * scale
 *   v = v + residual[i*ldr + j]            (residual may be NULL)
 *   C = post_act(v)                        (bounds post_lo, post_hi for clip)
 * post_act is the activation after the residual add (ResNet's Add -> Relu
 * at the end of each block); act and post_act may both be set. A
 * zero-initialised struct with scale = 1 is the identity (GEMM_ACT_NONE is
 * 0); pass NULL for no epilogue. residual may be C itself (an in-place
 * residual add) or overlap it: the GEMM then reads C's old values (it
 * copies an overlapping residual aside first, since its first K block
 * overwrites C). */
typedef struct gemm_epilogue {
    gemm_bias_kind_t bias_kind;
    const float *bias;
    gemm_act_t act;
    float clip_lo, clip_hi;
    float scale;
    const float *residual;
    int64_t ldr;
    gemm_act_t post_act;
    float post_lo, post_hi;
} gemm_epilogue_t;

/* Scalar form of the epilogue's activation (the oracle tests use and the
 * reference variant applies). */
float gemm_act_apply_f32(gemm_act_t act, float x, float lo, float hi);

void gemm_f32_ex(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
                 float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                 float beta, float *C, int64_t ldc, const gemm_epilogue_t *epi);

/* Pre-packed B: pack op(B) (K x N) once into an opaque buffer of
 * gemm_f32_packed_b_size bytes (64-byte aligned, e.g. base_aligned_alloc),
 * then multiply by it any number of times. The buffer records the variant
 * it was packed for, so it stays valid for this process. */
size_t gemm_f32_packed_b_size(int64_t K, int64_t N);
cairn_status_t gemm_f32_pack_b(int transB, int64_t K, int64_t N, const float *B, int64_t ldb,
                               void *packed, size_t size);
cairn_status_t gemm_f32_packed(const kctx_t *k, int transA, int64_t M, int64_t N, int64_t K,
                               float alpha, const float *A, int64_t lda, const void *packed,
                               float beta, float *C, int64_t ldc, const gemm_epilogue_t *epi);

/* C = op(A) B with B pre-packed, no epilogue, then then(ctx, m0, m1, n0,
 * n1) for each task's block of C (rows [m0, m1) x columns [n0, n1)) once
 * it is complete, on the thread that computed it, while the block is still
 * in its caches: a consumer of C (a transposed store, say) then needs no
 * parallel region of its own and reads no lines another core wrote. On
 * several threads the tasks split M (rows of C) where there are panels
 * enough, so that each holds whole rows. */
typedef void (*gemm_block_fn)(void *ctx, int64_t m0, int64_t m1, int64_t n0, int64_t n1);
cairn_status_t gemm_f32_packed_then(const kctx_t *k, int transA, int64_t M, int64_t N, int64_t K,
                                    const float *A, int64_t lda, const void *packed, float *C,
                                    int64_t ldc, gemm_block_fn then, void *ctx);

/* Pre-packed A, the mirror of pre-packed B for products whose constant
 * operand is on the left (convolution: Y = W * im2col(X)): pack op(A)
 * (M x K) once into gemm_f32_packed_a_size bytes (64-byte aligned), then
 * multiply by any op(B). Valid for this process, like packed B. */
size_t gemm_f32_packed_a_size(int64_t M, int64_t K);
cairn_status_t gemm_f32_prepack_a(int transA, int64_t M, int64_t K, const float *A, int64_t lda,
                                  void *packed, size_t size);
cairn_status_t gemm_f32_packed_a(const kctx_t *k, int transB, int64_t M, int64_t N, int64_t K,
                                 float alpha, const void *packed_a, const float *B, int64_t ldb,
                                 float beta, float *C, int64_t ldc, const gemm_epilogue_t *epi);

/* Indirect B against a pre-packed A, for convolutions without im2col: the
 * K x N operand is B(k, j) = base[off[k] + j], so a 1x1 convolution reads
 * its input planes in place (off[k] = k * plane) and a stride-1 KxK one
 * reads a zero-padded copy of the input, flattened with its padded row
 * width, at tap offsets (off[(c, kh, kw)] = c * plane + kh * row + kw).
 * Only base[off[k] + j] for j in [0, N) is read. Product column j goes to
 * C column j, or with in_w > 0 to (j / in_w) * out_w + j % in_w, and is
 * dropped when j % in_w >= out_w (the padded plane's extra columns).
 * C = epi(A * B) (alpha 1, beta 0); the epilogue's residual and column
 * bias are indexed by C's columns; a column bias is not supported. */
typedef struct gemm_indb {
    const float *base;
    const int64_t *off; /* K offsets, in floats */
    int64_t N;
    int64_t in_w, out_w; /* column map; 0, 0: identity */
} gemm_indb_t;

/* The column count below which gemm_f32_packed_a_indb refuses (its tile
 * width), or 0 when this process's GEMM variant has no indirect kernel. */
int gemm_f32_indb_min_n(void);
cairn_status_t gemm_f32_packed_a_indb(const kctx_t *k, int64_t M, int64_t K,
                                      const void *packed_a, const gemm_indb_t *b, float *C,
                                      int64_t ldc, const gemm_epilogue_t *epi);

/* Indirect A against a pre-packed B, for convolutions whose output planes
 * are small (few pixels, many channels): row p of A is pixel p of an image,
 * A(p, k) = base[pix[p] + off[k]] (a zero-padded input plane and the taps'
 * offsets, or X itself for a 1x1), B is the weights packed by
 * gemm_f32_pack_b(transB = 1, K, M, W, K), and the product is stored
 * transposed, channel-major: C[m * ldc + p] = epi(sum_k A(p, k) W[m][k]).
 * The epilogue's bias is per channel (GEMM_BIAS_ROW of C) and its residual
 * is indexed like C; alpha 1, beta 0. Only base[pix[p] + off[k]] is read. */
typedef struct gemm_inda {
    const float *base;
    const int64_t *pix; /* P pixel offsets, in floats */
    int64_t P;
    const int64_t *off; /* K tap offsets, in floats */
} gemm_inda_t;

/* 'A' for a buffer made by gemm_f32_prepack_a, 'B' for one made by
 * gemm_f32_pack_b, 0 otherwise (its first bytes only are read: the caller
 * guarantees at least 64). */
int gemm_f32_packed_kind(const void *packed);

/* 1 when this process's GEMM variant has an indirect-A kernel. */
int gemm_f32_inda_available(void);
cairn_status_t gemm_f32_packed_inda(const kctx_t *k, int64_t M, int64_t K, const void *packed_b,
                                    const gemm_inda_t *a, float *C, int64_t ldc,
                                    const gemm_epilogue_t *epi);
/* The same product stored pixel-major: C[p * ldc + m] = epi(sum_k A(p, k)
 * W[m][k]), the epilogue's bias per channel given as GEMM_BIAS_COL and its
 * residual indexed like C (a convolution's output rows in NHWC order, as
 * the inverted-residual block's stem form wants them). */
cairn_status_t gemm_f32_packed_inda_px(const kctx_t *k, int64_t M, int64_t K,
                                       const void *packed_b, const gemm_inda_t *a, float *C,
                                       int64_t ldc, const gemm_epilogue_t *epi);

/* Strided batch: for b in [0, batch), the GEMM on A + b*stride_a,
 * B + b*stride_b, C + b*stride_c (stride 0 broadcasts an operand). The
 * epilogue's bias and residual are shared by every batch item unless
 * stride_r (residual) is non-zero. */
void gemm_f32_batched(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
                      float alpha, const float *A, int64_t lda, int64_t stride_a, const float *B,
                      int64_t ldb, int64_t stride_b, float beta, float *C, int64_t ldc,
                      int64_t stride_c, int64_t batch, const gemm_epilogue_t *epi,
                      int64_t stride_r);

/* Name of the variant gemm_f32 uses (after dispatch), e.g. "avx512_14x32". */
const char *gemm_f32_variant_name(void);

/* ============================ bf16 and int8 GEMM ============================
 *
 * gemm_bf16: C (f32) = alpha * op(A) * op(B) + beta * C with A, B bf16 (raw
 * uint16_t bits), products accumulated in f32 (vdpbf16ps on AVX512_BF16,
 * else converted to f32 while packing and run by the f32 micro-kernel).
 * Same contract as gemm_f32 (row-major, any leading dimensions, beta == 0
 * never reads C); gemm_bf16_ex adds the fused epilogue.
 *
 * gemm_u8s8s32: C (s32) = op(A) * op(B) (+ C when accumulate), A unsigned
 * 8-bit, B signed 8-bit, exact in 32-bit integers (vpdpbusd on
 * AVX512_VNNI, else both widened to 16 bits and multiplied pairwise).
 * Sums that do not fit 32 bits wrap.
 *
 * Both dispatch by table like gemm_f32 (CAIRN_ISA caps, CAIRN_VERBOSE=1
 * reports the choice). */
void gemm_bf16(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
               float alpha, const uint16_t *A, int64_t lda, const uint16_t *B, int64_t ldb,
               float beta, float *C, int64_t ldc);
void gemm_bf16_ex(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
                  float alpha, const uint16_t *A, int64_t lda, const uint16_t *B, int64_t ldb,
                  float beta, float *C, int64_t ldc, const gemm_epilogue_t *epi);
void gemm_u8s8s32(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
                  const uint8_t *A, int64_t lda, const int8_t *B, int64_t ldb, int32_t *C,
                  int64_t ldc, int accumulate);
/* The f32 epilogue for products made elsewhere (the quantised matmul's
 * dequantised sums): C (the tile's (0, 0), row stride ldc) rows [0, m) x
 * columns [0, n) = epilogue(T), T a tile of the selected f32 variant
 * (gemm_f32_epilogue_tile_dims: m <= MR, n <= NR, row stride NR), the
 * tile at (i, j) of the whole product for the bias and residual: the
 * arithmetic of FusedMatMul's epilogue (the variant's tile_store). */
void gemm_f32_epilogue_tile_dims(int *mr, int *nr);
void gemm_f32_epilogue_tile(const float *T, int m, int n, float *C, int64_t ldc,
                            const gemm_epilogue_t *epi, int64_t i, int64_t j);
/* B (K x N int8, row stride ldb) packed once for gemm_u8s8s32_packed (a
 * buffer of gemm_s8_packed_b_size bytes, valid in this process: it records
 * the kernel it was made for), then C (M x N int32) = A B with A u8 (row
 * stride lda): a weight packed at compile time rather than on every call. */
size_t gemm_s8_packed_b_size(int64_t K, int64_t N);
cairn_status_t gemm_s8_pack_b(int64_t K, int64_t N, const int8_t *B, int64_t ldb, void *packed,
                              size_t size);
cairn_status_t gemm_u8s8s32_packed(const kctx_t *k, int64_t M, int64_t N, int64_t K,
                                   const uint8_t *A, int64_t lda, const void *packed, int32_t *C,
                                   int64_t ldc);
/* A (M x K u8, row stride lda) packed once for gemm_u8s8s32_packed_a (a
 * buffer of gemm_u8_packed_a_size bytes, valid in this process), then C
 * (M x N int32) = A B with B s8 (row stride ldb) packed per call: an 8-bit
 * convolution's weights, the GEMM's left operand, packed at compile time. */
size_t gemm_u8_packed_a_size(int64_t M, int64_t K);
cairn_status_t gemm_u8_pack_a(int64_t M, int64_t K, const uint8_t *A, int64_t lda, void *packed,
                              size_t size);
cairn_status_t gemm_u8s8s32_packed_a(const kctx_t *k, int64_t M, int64_t N, int64_t K,
                                     const void *packed_a, const int8_t *B, int64_t ldb,
                                     int32_t *C, int64_t ldc);
/* For the requantising convolution tile (kernels/quant): the VNNI
 * kernel's panels of an A from gemm_u8_pack_a (14 rows of *kcp = K rounded
 * up to 4 bytes each, panel p at p 14 kcp) when K is one K block; NULL
 * otherwise (another kernel, a longer K, not such a buffer). And B's (K x
 * n bytes, rows ldb apart, each XOR flip) panels for them: 32 columns of
 * kcp bytes each, the last padded with zeros; only where the first gave
 * panels. */
const uint8_t *gemm_u8_packed_a_panels(const void *packed_a, int64_t M, int64_t K, int64_t *kcp);
void gemm_s8_pack_b_panels(const void *B, int64_t ldb, int64_t K, int64_t n, uint8_t flip,
                           void *dst);
/* The same with B u8, multiplied as B - 128: its bytes' sign bits flip as
 * it is packed (an 8-bit convolution's u8 activations as the s8 operand,
 * without a flipped copy of them first). */
cairn_status_t gemm_u8u8s32_packed_a(const kctx_t *k, int64_t M, int64_t N, int64_t K,
                                     const void *packed_a, const uint8_t *B, int64_t ldb,
                                     int32_t *C, int64_t ldc);
const char *gemm_bf16_variant_name(void);
const char *gemm_s8_variant_name(void);

/* f32 <-> bf16 arrays, round to nearest even, NaN stays (quiet) NaN,
 * subnormals kept: the same results as base_f32_to_bf16 / base_bf16_to_f32,
 * with AVX-512 (vcvtne2ps2bf16 on AVX512_BF16) where the CPU has it. */
void gemm_cvt_f32_to_bf16(const float *src, uint16_t *dst, size_t n);
void gemm_cvt_bf16_to_f32(const uint16_t *src, float *dst, size_t n);

#endif
