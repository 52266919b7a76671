/*
 * The inverted-residual block (MobileNetV2's, EfficientNet's "MBConv") as
 * one kernel: a 1x1 expansion, a KxK depthwise convolution and a 1x1
 * projection, each with its epilogue, computed a band of rows at a time so
 * that the expanded tensor (6x the input's channels) never leaves the
 * cache:
 *
 *   E = act1(W1 . X + b1)                 C -> E channels, 1x1
 *   D = clamp(dw_KxK/s(E) + bd, lo2, hi2)  E channels, depthwise, pad K/2
 *   Y = post3(act3(W2 . D + b2) + R)      E -> M channels, 1x1 (R optional)
 *
 * X, Y and R are NCHW; E and D live only in per-thread scratch, pixel-major
 * (NHWC rows: the E channels of a pixel contiguous), which is the layout
 * each stage wants: the expansion is the GEMM E^T = X^T W1^T (pixels as
 * rows, its packed A read from X's planes), the depthwise kernel runs 8
 * channels per vector with no transposes, and the projection is the
 * indirect-A GEMM over D's rows, whose tiles are stored transposed into
 * Y's planes (with bias, activation and residual in the epilogue).
 *
 * Each thread owns a range of output rows of an image and streams through
 * it: a ring of expanded rows (the band's rows plus the K - s rows the
 * kernel overlaps) is filled by the expansion GEMM as the band advances,
 * so every expanded row is computed once per range (only the K - s rows at
 * a range's start are computed twice, by both of the threads they border).
 *
 * Weights: W1 (E x C) and W2 (M x E) packed by conv_mb_pack (gemm_f32_pack_b
 * with transB = 1: W^T as the GEMM's B), Wd (E x 1 x K x K) as ONNX has it.
 *
 * The stem form (K1 > 1): the expansion is a full K1 x K1 convolution with
 * stride s1 and pad K1 / 2 (MobileNetV2's first layer: 3 -> 32 channels,
 * 3x3/2, then its first block's depthwise and projection without an
 * expansion of their own). W1 is then E x (C K1 K1), packed the same way,
 * and the ring's rows come from the indirect-A GEMM over a zero-padded copy
 * of the few input rows they read, stored pixel-major
 * (gemm_f32_packed_inda_px).
 */
#ifndef CAIRN_KERNELS_CONV_MBCONV_H
#define CAIRN_KERNELS_CONV_MBCONV_H

#include "kernels/gemm/gemm.h"

#include <stddef.h>
#include <stdint.h>

typedef struct conv_mb_params {
    int64_t N, C, E, M;  /* batch; input, expanded, output channels */
    int64_t H, W;        /* input plane */
    int K1, s1;          /* expansion kernel (square, odd; 0 or 1: the 1x1 form) and
                          * stride (0: 1); pad K1 / 2 */
    int64_t EH, EW;      /* expanded plane: (H + 2 (K1 / 2) - K1) / s1 + 1 (set by
                          * conv_mb_check; H, W for the 1x1 form) */
    int64_t OH, OW;      /* output plane: (EH + 2 (K / 2) - K) / s + 1 */
    int K, stride;       /* depthwise kernel (square, odd), stride; pad K / 2 */
    gemm_act_t act1;     /* expansion's activation (any of the GEMM's) */
    float lo1, hi1;
    float lo2, hi2;      /* depthwise: a clamp (ReLU: 0, +inf; none: -inf, +inf) */
    gemm_act_t act3;     /* projection: activation, then + R, then post3 */
    float lo3, hi3;
    gemm_act_t post3;
    float plo3, phi3;
} conv_mb_params_t;

/* The output plane of p's geometry into p->OH, p->OW; CAIRN_ERR_INVALID_ARGUMENT
 * when the sizes, kernel or stride are out of range (named in the error). */
cairn_status_t conv_mb_check(conv_mb_params_t *p);

/* Bytes of one packed weight matrix (rows x cols: E x C K1 K1 for W1, M x
 * E for W2), and packing it (64-byte aligned buffer). */
size_t conv_mb_packed_size(int64_t rows, int64_t cols);
cairn_status_t conv_mb_pack(int64_t rows, int64_t cols, const float *W, void *packed,
                            size_t size);

/* 1 when this process's GEMM has the kernels the block needs. */
int conv_mb_available(void);
/* 1 when the fused block is expected to beat its three convolutions run
 * apart (the compiler asks before fusing): see mbconv.c. The environment
 * variable CAIRN_MBCONV=0 makes it 0, CAIRN_MBCONV=1 makes it 1. */
int conv_mb_pays(int64_t C, int stride);
/* The same for the stem form: C input channels, a K1 x K1 expansion with
 * stride s1 (CAIRN_MBCONV overrides it the same way). */
int conv_mb_stem_pays(int64_t C, int K1, int s1);

/* The block on p (after conv_mb_check). b1, bd, b2 and R may be NULL. Y
 * must not alias X or R. Its per-thread scratch (a few hundred KB per
 * thread) comes from base_scratch_get: no allocation once it has grown. */
cairn_status_t conv_mb_f32(const kctx_t *k, const conv_mb_params_t *p, const float *X,
                           const void *W1p, const float *b1, const float *Wd, const float *bd,
                           const void *W2p, const float *b2, const float *R, float *Y);

/* The depthwise stage alone, one output row over channel-contiguous rows:
 * rows[kh] (K pointers to rows of W pixels, `ld` floats apart; rows
 * outside the input point to zeros), channels [c0, c1), taps wt[(kh K +
 * kw) ld + c], bias[c] (or NULL), clamp [lo, hi], output row out (OW
 * pixels, ld floats apart), pad K / 2 on both sides of the row. Exposed
 * for the tests (the AVX2 and AVX-512 forms against the portable one). */
typedef void (*conv_dwc_row_fn)(const float *const *rows, int64_t W, int64_t ld, int64_t c0,
                                int64_t c1, int K, int s, const float *wt, const float *bias,
                                float lo, float hi, float *out, int64_t OW);
void conv_dwc_row_f32_ref(const float *const *rows, int64_t W, int64_t ld, int64_t c0,
                          int64_t c1, int K, int s, const float *wt, const float *bias, float lo,
                          float hi, float *out, int64_t OW);
void conv_dwc_row_f32_avx2(const float *const *rows, int64_t W, int64_t ld, int64_t c0,
                           int64_t c1, int K, int s, const float *wt, const float *bias, float lo,
                           float hi, float *out, int64_t OW);
void conv_dwc_row_f32_avx512(const float *const *rows, int64_t W, int64_t ld, int64_t c0,
                             int64_t c1, int K, int s, const float *wt, const float *bias,
                             float lo, float hi, float *out, int64_t OW);
/* The form this process uses (CAIRN_ISA caps it), and its name. */
conv_dwc_row_fn conv_dwc_row_select(const char **name);

/* Output pixel ow's taps inside the row: input column iw0 + kw for kw in
 * [kw0, kw1) (the row kernels' shared border arithmetic). */
static inline void conv_dwc_taps(int64_t W, int K, int s, int64_t ow, int64_t *iw0, int *kw0,
                                 int *kw1)
{
    *iw0 = ow * s - K / 2;
    *kw0 = *iw0 < 0 ? (int)-*iw0 : 0;
    *kw1 = W - *iw0 < K ? (int)(W - *iw0) : K;
}

/* The interior output pixels [lo, hi) of a row, every tap inside it (lo =
 * hi = OW when there are none). */
static inline void conv_dwc_interior(int64_t W, int K, int s, int64_t OW, int64_t *lo,
                                     int64_t *hi)
{
    const int pad = K / 2;
    *lo = (pad + s - 1) / s;
    *hi = W + pad - K >= 0 ? (W + pad - K) / s + 1 : 0;
    if (*hi > OW)
        *hi = OW;
    if (*lo > *hi)
        *lo = *hi = OW;
}
/* The best form at most `cap` (and what the CPU runs), and its name: for
 * the tests, which check each one. */
conv_dwc_row_fn conv_dwc_row_for(cairn_isa_t cap, const char **name);

#endif
