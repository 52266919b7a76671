/*
 * Reference convolution kernels: Conv and ConvTranspose on NC[D][H]W
 * tensors with 1 to 3 spatial dims, groups, strides, dilations, padding,
 * optional bias. The caller resolves ONNX attributes (auto_pad,
 * output_shape, ...) into the explicit geometry below.
 *
 * Spatial arrays always hold 3 entries: an op with fewer spatial dims puts
 * its dims last and fills the leading ones with size 1, stride 1, pad 0,
 * dilation 1, which leaves the flat layout unchanged.
 */
#ifndef CAIRN_KERNELS_CONV_H
#define CAIRN_KERNELS_CONV_H

#include "kernels/gemm/gemm.h"
#include "kernels/ktensor.h"

#include <stdint.h>

#define CONV_SP 3

typedef struct conv_params {
    int64_t N;          /* batch */
    int64_t C;          /* input channels (of X) */
    int64_t M;          /* output channels (of Y) */
    int64_t group;
    int64_t in[CONV_SP];     /* X spatial dims */
    int64_t out[CONV_SP];    /* Y spatial dims */
    int64_t kernel[CONV_SP]; /* W spatial dims */
    int64_t stride[CONV_SP];
    int64_t dilation[CONV_SP];
    int64_t pad[CONV_SP];    /* padding before each spatial dim (may be < 0 for ConvTranspose) */
} conv_params_t;

/* Conv: X (N, C, in...), W (M, C/group, kernel...), B (M) or NULL,
 * Y (N, M, out...). y = b + sum x[o*stride - pad + k*dilation] * w[k]. */
cairn_status_t conv_ref(const kctx_t *k, cairn_dtype_t t, const conv_params_t *p, const void *X,
                        const void *W, const void *B, void *Y);

/* ConvTranspose: X (N, C, in...), W (C, M/group, kernel...), B (M) or NULL,
 * Y (N, M, out...): each x[i] adds x[i] * w[k] to y[i*stride - pad + k*dilation]
 * (computed here as a gather, one output element at a time). */
cairn_status_t conv_transpose_ref(const kctx_t *k, cairn_dtype_t t, const conv_params_t *p,
                                  const void *X, const void *W, const void *B, void *Y);

/* ============================ fast f32 Conv ============================
 *
 * conv_f32 computes the same Conv as conv_ref for f32 (with f32
 * accumulation, so results differ from the double-accumulating reference
 * by rounding that grows with the reduction length C/group * taps):
 *  - depthwise (group == C == M, 1-D/2-D): a direct kernel over the output
 *    width (AVX-512 or AVX2 + FMA where the CPU and CAIRN_ISA allow, else
 *    portable C);
 *  - 1x1, stride 1, no padding: Y[n, g] = W[g] x X[n, g], the input
 *    already being the GEMM's right-hand matrix;
 *  - everything else: im2col of X[n, g] into the workspace, then the GEMM
 *    Y[Mg, out] = W[Mg, Cg*taps] x col[Cg*taps, out].
 * The bias (per output channel), then post->act (with clip bounds), then
 * post->residual (a tensor of Y's shape, may be NULL), then post->post_act
 * (the activation after the residual add, bounds post_lo/post_hi) are
 * applied as the GEMM's epilogue (or by the depthwise kernel). ws must
 * hold conv_f32_workspace(p) bytes (64-byte aligned); the kernel never
 * allocates. Y must not alias X, W or the residual (the GEMM's first K
 * block overwrites Y before the epilogue reads the residual). */
typedef struct conv_post {
    gemm_act_t act;
    float clip_lo, clip_hi;
    const float *residual; /* Y's shape, or NULL */
    gemm_act_t post_act;   /* applied after the residual add */
    float post_lo, post_hi;
} conv_post_t;

/* Pre-packed weights (group 1, not depthwise): W packed once, as the
 * GEMM's left operand (gemm_f32_prepack_a), into conv_f32_packed_w_size
 * bytes (64-byte aligned); conv_f32_packed_w is conv_f32 with them. The
 * compiler's prepack pass makes them at compile time. */
size_t conv_f32_packed_w_size(const conv_params_t *p);
/* The packed-weight paths that read the input in place, without im2col
 * (fast.c: the direct path over indirect B, and the indirect-A path for
 * small planes, which conv_f32_pack_w chooses when it packs). enable = 0
 * turns both off for the whole process, for weights packed afterwards
 * (tests and benchmarks compare the paths); weights packed for indirect A
 * keep using it. Call it only while no convolution runs, as
 * conv_f32_workspace depends on it. */
void conv_f32_set_direct(int enable);
/* The 1x1s packed for the indirect-A path run as a pixel-major packed GEMM
 * plus a transposed store (fast.c, conv_1x1_pixels); enable = 0 sends them
 * through the indirect-A kernel instead (tests and benchmarks compare the
 * two; the packed weights serve both). Call it only while no convolution
 * runs. */
void conv_f32_set_pixels(int enable);
/* How conv_f32_packed_w computes p with weights packed now: "indirect-A",
 * "direct 1x1" (X read in place), "direct" (the stride-phase planes), "1x1"
 * or "im2col" (packed GEMM). */
const char *conv_f32_packed_path(const conv_params_t *p);
/* The same for weights packed as the GEMM's A (not for indirect A). */
const char *conv_f32_packed_a_path(const conv_params_t *p);
cairn_status_t conv_f32_pack_w(const conv_params_t *p, const float *W, void *packed, size_t size);
cairn_status_t conv_f32_packed_w(const kctx_t *k, const conv_params_t *p, const float *X,
                                 const void *Wp, const float *B, const conv_post_t *post,
                                 float *Y, void *ws, size_t ws_bytes);

/* Winograd F(4x4, 3x3) or F(2x2, 3x3) (winograd.c) for 3x3 stride-1 group-1 2-D
 * convolutions with AVX2: conv_f32_pack_w packs W this way when
 * conv_wino_chosen (the plane and channel counts make it pay, and
 * CAIRN_CONV_WINOGRAD=0 or conv_f32_set_winograd(0) did not turn it off);
 * conv_f32_packed_w then runs it. conv_wino_possible: the geometry and CPU
 * it can run (weights packed for it keep using it). */
int conv_wino_possible(const conv_params_t *p);
int conv_wino_chosen(const conv_params_t *p);
void conv_f32_set_winograd(int enable);
/* Bytes of the buffer for M x C filters at tile 4 (F(4x4, 3x3)) or 2
 * (F(2x2, 3x3)); conv_wino_chosen returns the tile (0: not chosen). */
size_t conv_wino_packed_size(int64_t M, int64_t C, int tile);
/* The tile a Winograd buffer was packed for (0: not one; reads 64 bytes). */
int conv_wino_packed_tile(const void *packed);
cairn_status_t conv_wino_pack(const conv_params_t *p, const float *W, void *packed, size_t size);
/* 1 when packed starts with the Winograd buffer's magic (reads 4 bytes). */
int conv_wino_is_packed(const void *packed);
size_t conv_wino_workspace(const conv_params_t *p);
cairn_status_t conv_wino_run(const kctx_t *k, const conv_params_t *p, const float *X,
                             const void *Wp, const float *B, const conv_post_t *post, float *Y,
                             void *ws, size_t ws_bytes);
/* The layout conv_f32_pack_w gave a buffer: 'A' (the GEMM's A: im2col,
 * 1x1 and direct paths), 'B' (indirect A), 'W' (Winograd), 0 unknown. The
 * caller guarantees at least 64 readable bytes. */
int conv_f32_packed_kind(const void *packed);

/* 1 when conv_f32 runs p with the direct depthwise kernel. */
int conv_f32_is_depthwise(const conv_params_t *p);
/* 1 when conv_f32 runs p as a GEMM straight on X (1x1, stride 1, no pad). */
int conv_f32_is_pointwise(const conv_params_t *p);
/* Scratch bytes conv_f32 needs for p (0 when it needs none). */
size_t conv_f32_workspace(const conv_params_t *p);
cairn_status_t conv_f32(const kctx_t *k, const conv_params_t *p, const float *X, const float *W,
                        const float *B, const conv_post_t *post, float *Y, void *ws,
                        size_t ws_bytes);

/* im2col of output columns [j0, j1) for one image and group:
 * col[(c*taps + t) * (j1 - j0) + o - j0] = x[c][o*stride - pad + t*dilation]
 * (0 outside X), x the group's first channel plane. Rows (c*taps + t) in
 * [r0, r1) only (for splitting). The GEMM path runs it a chunk of columns
 * at a time, so the workspace holds C/group*taps x chunk floats. */
void conv_im2col_f32(const conv_params_t *p, const float *x, float *col, int64_t r0, int64_t r1,
                     int64_t j0, int64_t j1);

/* Depthwise plane kernels (one (n, c) plane, 2-D geometry in dims 1 and 2
 * of p): y = post(bias + sum x * w). res is the plane's residual or NULL. */
typedef void (*conv_dw_plane_fn)(const conv_params_t *p, const float *x, const float *w,
                                  float bias, const conv_post_t *post, const float *res,
                                  float *y);
void conv_dw_plane_f32_ref(const conv_params_t *p, const float *x, const float *w, float bias,
                           const conv_post_t *post, const float *res, float *y);
void conv_dw_plane_f32_avx2(const conv_params_t *p, const float *x, const float *w, float bias,
                            const conv_post_t *post, const float *res, float *y);
/* Depthwise, nc (1..8) consecutive planes at once (x, w, bias, res, y at the
 * first plane's; planes p->in / p->out apart, weights KH*KW apart, bias
 * NULL for none), output rows [oh0, oh1) only (rows may be split between
 * threads). Returns 1 when done, 0 when p's geometry does not fit the
 * kernel (then the caller runs the plane kernel); _fits says which ahead. */
typedef int (*conv_dw_planes_fn)(const conv_params_t *p, const float *x, const float *w,
                                 const float *bias, const conv_post_t *post, const float *res,
                                 float *y, int nc, int64_t oh0, int64_t oh1);
int conv_dw_planes8_f32_avx2(const conv_params_t *p, const float *x, const float *w,
                             const float *bias, const conv_post_t *post, const float *res,
                             float *y, int nc, int64_t oh0, int64_t oh1);
int conv_dw_planes8_f32_avx2_fits(const conv_params_t *p);
/* Name of the depthwise variant in use ("avx2" or "ref"). */
const char *conv_dw_variant_name(void);

/* The pixel-major 1x1 path's store (fast.c): channels [c0, c1) of
 * y[c * ldy + p] = post_act(act(ct[p * M + c] + bias[c]) * scale
 *                            + residual[c * ldr + p]),  p < P,
 * from ct, P rows of a product with a row per pixel (ldy >= P: a block of
 * pixels of a wider plane takes ct, y and the residual offset to it), with e's bias (one per
 * channel, i.e. GEMM_BIAS_ROW of y; may be NULL), activations, scale and
 * residual (may be NULL). The avx2 form transposes 8 x 8 blocks in
 * registers for none / relu / clip, the avx512 one 16 x 16 blocks with
 * masked edges (x86_avx512.c), and both leave other activations to the
 * portable one. */
void conv_store_t_f32_ref(const float *ct, int64_t P, int64_t M, int64_t c0, int64_t c1,
                          const gemm_epilogue_t *e, float *y, int64_t ldy);
void conv_store_t_f32_avx2(const float *ct, int64_t P, int64_t M, int64_t c0, int64_t c1,
                           const gemm_epilogue_t *e, float *y, int64_t ldy);
void conv_store_t_f32_avx512(const float *ct, int64_t P, int64_t M, int64_t c0, int64_t c1,
                             const gemm_epilogue_t *e, float *y, int64_t ldy);

/* d[i] = s[2 i], i < n: a row of a stride-2 phase plane (the direct
 * path's zero-padded copy, fast.c's pad_planes). Reads s[0 .. 2 n - 2]
 * only. */
void conv_copy_s2_f32_ref(float *d, const float *s, int64_t n);
void conv_copy_s2_f32_avx512(float *d, const float *s, int64_t n);

#endif
