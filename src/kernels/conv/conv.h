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

#endif
