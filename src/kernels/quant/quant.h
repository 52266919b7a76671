/*
 * Reference kernels for the quantisation family and the index/misc ops that
 * share it: Quantize/DequantizeLinear, DynamicQuantizeLinear, integer and
 * QLinear matmul, requantisation of convolution accumulators, GatherND,
 * ScatterND, ScatterElements, Einsum (as an index loop over labels),
 * BitShift, NonMaxSuppression and Det (ref.c); and the fast forms of the
 * first three, with the same results bit for bit: qdq.c, dyn.c (with
 * x86_avx512.c) and mm.c (the matmuls on the int8 GEMM).
 *
 * Quantised values are u8 or i8; zero points have the quantised type.
 * Rounding is to nearest, ties to even (nearbyint in the default rounding
 * mode), and results saturate to the quantised type's range.
 */
#ifndef CAIRN_KERNELS_QUANT_H
#define CAIRN_KERNELS_QUANT_H

#include "kernels/conv/conv.h"
#include "kernels/gemm/gemm.h"
#include "kernels/ktensor.h"

#include <stddef.h>
#include <stdint.h>

/* Per-axis layout: element i uses scale/zero point (i / inner) % C; a
 * per-tensor op passes C = 1. */
typedef struct quant_axis {
    int64_t outer, C, inner;
} quant_axis_t;

/* y = saturate(round(x / scale[c]) + zp[c]). x: f32, f64, f16, bf16, i32;
 * zp (type yt, u8/i8) may be NULL (0). */
void quant_quantize_ref(cairn_dtype_t xt, const void *x, const float *scale, const void *zp,
                        cairn_dtype_t yt, void *y, const quant_axis_t *ax);

/* y = (x - zp[c]) * scale[c] in f32. x: u8, i8, i32; zp of type xt or NULL. */
void quant_dequantize_ref(cairn_dtype_t xt, const void *x, const float *scale, const void *zp,
                          float *y, const quant_axis_t *ax);
/* The same results in vector loops on k's pool (qdq.c) for f32 -> u8 / i8
 * and u8 / i8 -> f32; other types through the references. */
void quant_quantize(const kctx_t *k, cairn_dtype_t xt, const void *x, const float *scale,
                    const void *zp, cairn_dtype_t yt, void *y, const quant_axis_t *ax);
void quant_dequantize(const kctx_t *k, cairn_dtype_t xt, const void *x, const float *scale,
                      const void *zp, float *y, const quant_axis_t *ax);

/* DynamicQuantizeLinear to u8: the scale maps [min(0, min x), max(0, max x)]
 * onto [0, 255]. */
void quant_dynamic_ref(const float *x, int64_t n, uint8_t *y, float *scale, uint8_t *zp);
/* The same results in vector passes (dyn.c) on k's pool (k may be NULL). */
void quant_dynamic(const kctx_t *k, const float *x, int64_t n, uint8_t *y, float *scale,
                   uint8_t *zp);

/* One 2-D integer matmul Y (M, N) = (A - azp) (B - bzp), A (M, K), B (K, N)
 * of u8/i8, accumulated exactly in int64 and stored as i32 (yt UNDEFINED),
 * or requantised (QLinearMatMul: yt u8/i8) as
 * saturate(round(acc * (as * bs / ys)) + yzp). Zero points / scales are
 * scalars or, with the *_vec flags, one per row of A / per column of B. */
struct qmm_packed;
typedef struct quant_mm_params {
    int64_t M, K, N;
    cairn_dtype_t at, bt, yt;
    const void *azp, *bzp, *yzp; /* NULL: 0 */
    int azp_vec, bzp_vec;
    const float *as, *bs;
    int as_vec, bs_vec;
    float ys;
    const struct qmm_packed *b_packed; /* set inside mm.c only (leave NULL) */
    int a_packed; /* A is quant_pack_a's buffer (p->at is then read from it) */
} quant_mm_params_t;
cairn_status_t quant_matmul_ref(const quant_mm_params_t *p, const void *A, const void *B,
                                void *Y);
/* The same results through the int8 GEMM (mm.c) on k's pool: A and B
 * brought to u8 x s8, the zero points applied to the GEMM's sums by row
 * and column sums, then the requantisation; K over 32768 (where the int32
 * sums could overflow) and other types go to quant_matmul_ref. */
cairn_status_t quant_matmul(const kctx_t *k, const quant_mm_params_t *p, const void *A,
                            const void *B, void *Y);
/* The dequantising form (MatMulInteger -> Cast -> Mul(scale) and what
 * follows, fused): Y (f32, M x N) = epilogue(acc * scale), acc the exact
 * (A - azp)(B - bzp) sums (p->yt UNDEFINED), scale one value
 * (QUANT_SCALE_ONE), one per column (QUANT_SCALE_COL) or one per row
 * (QUANT_SCALE_ROW), epi FusedMatMul's epilogue (bias per row or column,
 * activation, residual, post-activation; NULL: none) with its arithmetic.
 * With b_packed B is quant_pack_b's buffer (p->bt is then read from it). */
enum { QUANT_SCALE_ONE = 0, QUANT_SCALE_COL = 1, QUANT_SCALE_ROW = 2 };
cairn_status_t quant_matmul_f32(const kctx_t *k, const quant_mm_params_t *p, const void *A,
                                const void *B, int b_packed, const float *scale, int scale_kind,
                                const gemm_epilogue_t *epi, float *Y);

/* The requantising form (QLinearConv's and QLinearMatMul's arithmetic,
 * quant_requant_ref's bits): Y (yt u8 / i8, M x N) = saturate(round((acc
 * + bias[i]) * mult[i]) + yzp), acc the exact (A - azp)(B - bzp) sums
 * (p->yt UNDEFINED), bias int32 per row of A or NULL, mult one value
 * (QUANT_SCALE_ONE) or one per row (QUANT_SCALE_ROW), the product in
 * double rounded half to even; yzp one value of type yt (NULL: 0). A may
 * be quant_pack_a's buffer (p->a_packed), or with b_packed B quant_pack_b's,
 * as for quant_matmul_f32. */
cairn_status_t quant_matmul_q8(const kctx_t *k, const quant_mm_params_t *p, const void *A,
                               const void *B, int b_packed, const float *mult, int mult_kind,
                               const int32_t *bias, const void *yzp, cairn_dtype_t yt, void *Y);

/* Convolution of 8-bit x (N, C, in...) and W (M, C, kernel...), group 1,
 * dequantised (conv.c; FusedConvInteger): Y (f32, N, M, out...) =
 * epilogue(scale[m] * sum (x - xz)(w - wz[m])) over each output's taps,
 * padding contributing 0, the sums exact (quant_matmul_f32's, W as A). xz
 * one value of x's type (NULL: 0); wz one value or (wz_vec) one per output
 * channel (NULL: 0); scale one value or (scale_vec) one per channel; epi
 * with a per-row bias is the per-channel bias (bias_kind GEMM_BIAS_ROW),
 * and its residual has Y's shape. quant_conv_fast(g): whether g runs here
 * (group 1 and a reduction of at most 32768 taps). */
typedef struct quant_conv_params {
    conv_params_t g;
    cairn_dtype_t xt, wt; /* wt: W's type, or its original type when w_packed */
    int w_packed;         /* W is quant_pack_a's buffer of (M, C kernel...) */
    const void *xz, *wz;
    int wz_vec;
    const float *scale;
    int scale_vec;
} quant_conv_params_t;
int quant_conv_fast(const conv_params_t *g);
cairn_status_t quant_conv_f32(const kctx_t *k, const quant_conv_params_t *p, const void *X,
                              const void *W, const gemm_epilogue_t *epi, float *Y);
/* QLinearConv's form (FusedConvInteger requant = 1): Y (yt u8 / i8, N, M,
 * out...) = saturate(round((sum + bias[m]) * mult[m]) + yz) as
 * quant_matmul_q8 computes it, p->scale the multipliers (one value or,
 * scale_vec, one per channel), bias int32 per channel or NULL, yzp one
 * value of yt. */
cairn_status_t quant_conv_q8(const kctx_t *k, const quant_conv_params_t *p, const void *X,
                             const void *W, const int32_t *bias, const void *yzp,
                             cairn_dtype_t yt, void *Y);
/* The same convolution's exact sums as int32 (ConvInteger): Y (N, M,
 * out...) = sum (x - xz)(w - wz[m]); scale and scale_vec unused. */
cairn_status_t quant_conv_i32(const kctx_t *k, const quant_conv_params_t *p, const void *X,
                              const void *W, int32_t *Y);
/* Depthwise convolution of 8-bit x and W (dw.c): group = C = M, one or
 * two spatial dims, dilation 1, at most QUANT_DW_MAX_TAPS taps, strides
 * of at most 16 (rows) and 4 (columns), paddings of at most 255
 * (quant_dw_fits). Plane by plane in cache: x - xz
 * widened to f32 into a zero-padded copy (its columns split by the stride's
 * phase), the taps' products summed in f32 (exact: every partial sum is an
 * integer below 2^24 for up to 258 taps of 255 x 255), then Y (N, M,
 * out...) = the int32 sums (yt CAIRN_I32: ConvInteger) or, for yt u8 /
 * i8, saturate(round((sum + bias[m]) * mult[m]) + yz) as quant_conv_q8
 * and the reference compute it, p->scale the multipliers (one value or,
 * scale_vec, one per channel), bias int32 per channel or NULL, yzp one
 * value of yt (NULL: 0). An AVX-512 form where the CPU and the CAIRN_ISA
 * cap allow (x86_avx512.c: a 3x3 layer at stride 1 or 2 in integers with
 * AVX512_VNNI and VBMI), else portable C; quant_dw_variant names it. */
#define QUANT_DW_MAX_TAPS 258
int quant_dw_fits(const conv_params_t *g);
/* The same sums dequantised (FusedConvInteger of a depthwise convolution,
 * made by fuse_qdq from the QDQ form): Y (f32, N, M, out...) = (float)sum
 * * scale[m], then + bias[m] (epi's per-row bias: one per channel), the
 * activation (none, relu or clip), + residual (epi->residual, Y's shape),
 * each a separate f32 operation in the order quant_conv_f32's epilogue
 * applies them, so its bits. epi's post-activation must be none and its
 * scale 1 (FusedConvInteger sets neither). */
cairn_status_t quant_dwconv_f32(const kctx_t *k, const quant_conv_params_t *p, const void *X,
                                const void *W, const gemm_epilogue_t *epi, float *Y);
/* The plane kernel g's layer takes ("avx512_vnni": the integer 3x3 plane,
 * where its w - wz fit in s8; "avx512"; "c"); g NULL: the f32 plane's */
const char *quant_dw_variant(const conv_params_t *g);
cairn_status_t quant_dwconv(const kctx_t *k, const quant_conv_params_t *p, const void *X,
                            const void *W, const int32_t *bias, const void *yzp,
                            cairn_dtype_t yt, void *Y);
/* B (K x N, u8 or i8, K within quant_matmul_fast) packed once for
 * quant_matmul_f32, which takes the buffer in B's place (weights packed at
 * compile time: the prepack pass): the int8 GEMM's packed B (a u8 B
 * flipped to s8 first) and B's column sums. quant_packed_b_size bytes,
 * 64-byte aligned, valid in this process. */
size_t quant_packed_b_size(int64_t K, int64_t N);
cairn_status_t quant_pack_b(cairn_dtype_t bt, int64_t K, int64_t N, const void *B, void *dst,
                            size_t size);
/* A (M x K, u8 or i8, K within quant_matmul_fast) prepared once as the
 * GEMM's A for quant_matmul_f32 (with p->a_packed set, the buffer in A's
 * place): flipped to u8 (an i8 A), a row of ones under it (for B's column
 * sums) and its row sums, so that none of it runs per call: an 8-bit
 * convolution's weights, packed at compile time (the prepack pass).
 * quant_packed_a_size bytes, 64-byte aligned, valid in this process. */
size_t quant_packed_a_size(int64_t M, int64_t K);
cairn_status_t quant_pack_a(cairn_dtype_t at, int64_t M, int64_t K, const void *A, void *dst,
                            size_t size);
/* Whether quant_matmul runs a product of depth K on the int8 GEMM (else
 * the reference), for the plan's description of the step. */
int quant_matmul_fast(int64_t K);
/* The DynamicQuantizeLinear path quant_dynamic takes ("avx512", "sse2" or
 * "c"). */
const char *quant_dynamic_path(void);
/* Its AVX-512 passes (x86_avx512.c; called only where the CPU has them):
 * min and max with 0 of x[0, n); y = saturate(round(x / s) + z). */
void quant_dyn_minmax_avx512(const float *x, int64_t n, float *mn_out, float *mx_out);
void quant_dyn_quantize_avx512(const float *x, int64_t n, float s, float z, uint8_t *y);

/* Widens u8/i8 x to double minus its zero point zp[c] (zp NULL: 0) along
 * the axis layout ax; for feeding the double convolution kernel exactly. */
void quant_widen_ref(cairn_dtype_t xt, const void *x, const void *zp, int zp_vec, double *y,
                     const quant_axis_t *ax);

/* quant_requant_ref's results from int32 sums (QLinearConv's fast routes)
 * in vector loops on k's pool (qdq.c); yzp is one zero point of type yt. */
void quant_requantize(const kctx_t *k, const int32_t *acc, const int32_t *bias, const float *mult,
                      const void *yzp, cairn_dtype_t yt, void *y, const quant_axis_t *ax);

/* Stores exact integer accumulators acc (plus bias[c], may be NULL) as i32
 * (yt I32: mult NULL) or requantised saturate(round(acc * mult[c]) + yzp)
 * for yt u8/i8. */
void quant_requant_ref(const double *acc, const int32_t *bias, const float *mult,
                       const void *yzp, cairn_dtype_t yt, void *y, const quant_axis_t *ax);

/* GatherND with batch_dims b: indices (int64) shape I, last dim q;
 * out = batch dims, I[b:-1], data.shape[b+q:]. esz = element size. */
cairn_status_t quant_gather_nd_ref(const void *data, const int64_t *dshape, int drank,
                                   const int64_t *idx, const int64_t *ishape, int irank,
                                   int batch_dims, size_t esz, void *out);

enum { QUANT_RED_NONE, QUANT_RED_ADD, QUANT_RED_MUL, QUANT_RED_MAX, QUANT_RED_MIN };

/* ScatterND: out holds a copy of data; each index tuple (last dim of
 * indices) names a slice of out that updates writes or reduces into. */
cairn_status_t quant_scatter_nd_ref(cairn_dtype_t t, void *out, const int64_t *dshape, int drank,
                                    const int64_t *idx, const int64_t *ishape, int irank,
                                    const void *upd, int reduction);

/* ScatterElements along axis: out holds a copy of data; indices (i32/i64,
 * shape of updates, negative counts from the end). */
cairn_status_t quant_scatter_elements_ref(cairn_dtype_t t, void *out, const int64_t *dshape,
                                          int rank, cairn_dtype_t it, const void *idx,
                                          const int64_t *ushape, const void *upd, int axis,
                                          int reduction);

/* Einsum as one loop over every label: sizes[l], strides per operand and for
 * the output (0 where a label is absent; a label repeated in an operand has
 * the sum of its strides, which walks the diagonal). */
#define QUANT_EINSUM_MAX_LABELS 64
#define QUANT_EINSUM_MAX_OPS 8
typedef struct quant_einsum_params {
    int n_ops, n_labels;
    int64_t size[QUANT_EINSUM_MAX_LABELS];
    int64_t in_stride[QUANT_EINSUM_MAX_OPS][QUANT_EINSUM_MAX_LABELS];
    int64_t out_stride[QUANT_EINSUM_MAX_LABELS];
    int64_t out_numel;
} quant_einsum_params_t;
/* ws: out_numel * 8 bytes (double or int64 accumulators). */
void quant_einsum_ref(const quant_einsum_params_t *p, cairn_dtype_t t, const void *const *in,
                      void *out, void *ws);

/* BitShift on u8: left (a << b) or right (a >> b); shifts >= 8 give 0. */
void quant_bitshift_u8_ref(const uint8_t *a, const int64_t *ast, const uint8_t *b,
                           const int64_t *bst, uint8_t *y, const int64_t *yshape, int rank,
                           int left);

/* NonMaxSuppression: boxes (B, N, 4), scores (B, C, N). Writes up to
 * B*C*max_out triples (batch, class, box) to sel (may be NULL to count
 * only) and their number to *count. */
typedef struct quant_nms_params {
    int64_t B, C, N;
    int center_point_box;
    int64_t max_out;
    float iou_threshold;
    int has_score_threshold;
    float score_threshold;
} quant_nms_params_t;
cairn_status_t quant_nms_ref(const quant_nms_params_t *p, const float *boxes, const float *scores,
                             int64_t *sel, int64_t *count);

/* Determinants of `batch` n x n matrices (type t: f32, f64, f16, bf16), by
 * LU with partial pivoting in double. */
cairn_status_t quant_det_ref(cairn_dtype_t t, const void *x, int64_t batch, int64_t n, void *y);

#endif
