/*
 * Normalisation kernels: Softmax / LogSoftmax along one axis, layer
 * normalisation and RMS normalisation over the trailing dims, batch
 * normalisation (inference) and instance normalisation over the spatial dims
 * of (N, C, ...) tensors.
 *
 * All take dense row-major ktensor_t views of f32, f64, f16 or bf16 data and
 * a few plain parameters; parameter tensors (scale, bias, statistics) may
 * have any float dtype. Callers validate shapes; the kernels only trust
 * them as far as stated below and never read outside the views.
 */
#ifndef CAIRN_KERNELS_NORM_NORM_H
#define CAIRN_KERNELS_NORM_NORM_H

#include "kernels/ktensor.h"

/* y = softmax(x) along `axis` (0 <= axis < rank), or log-softmax when
 * log_softmax != 0. x and y have the same shape and dtype. */
cairn_status_t knorm_softmax(const ktensor_t *x, ktensor_t *y, int axis, int log_softmax,
                             const kctx_t *k);

/* Layer norm's and RMS norm's parameters. */
typedef struct knorm_layer_params {
    int axis;       /* first normalised dim, 0 <= axis < rank */
    double epsilon;
} knorm_layer_params_t;

/* Scratch knorm_layernorm needs for x: 2 * prod(shape[axis..]) doubles. */
size_t knorm_layernorm_ws_bytes(const ktensor_t *x, int axis);

/* Layer normalisation over dims [axis, rank). scale (required) and bias
 * (NULL or dtype UNDEFINED: none) broadcast unidirectionally to
 * shape[axis..]. mean / inv_std_dev (NULL: not wanted) hold one value per
 * leading row, of dtype f32 or bf16. ws: knorm_layernorm_ws_bytes bytes. */
cairn_status_t knorm_layernorm(const ktensor_t *x, const ktensor_t *scale, const ktensor_t *bias,
                               ktensor_t *y, ktensor_t *mean, ktensor_t *inv_std_dev,
                               const knorm_layer_params_t *p, void *ws, const kctx_t *k);

/* Scratch knorm_rmsnorm needs for x: prod(shape[axis..]) doubles. */
size_t knorm_rmsnorm_ws_bytes(const ktensor_t *x, int axis);

/* RMS normalisation over dims [axis, rank) (ONNX RMSNormalization):
 * y = x / sqrt(mean(x^2) + epsilon) * scale, the mean over each leading
 * row's d = prod(shape[axis..]) elements. scale (required) broadcasts
 * unidirectionally to shape[axis..]. p->axis is the first normalised dim.
 * ws: knorm_rmsnorm_ws_bytes bytes. */
cairn_status_t knorm_rmsnorm(const ktensor_t *x, const ktensor_t *scale, ktensor_t *y,
                             const knorm_layer_params_t *p, void *ws, const kctx_t *k);

/* Scratch knorm_batchnorm needs: 2 * C doubles. */
size_t knorm_batchnorm_ws_bytes(const ktensor_t *x);

/* Inference-mode batch normalisation of x (N, C, ...): per channel c,
 * y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c]. The four
 * parameter tensors hold C elements each. */
cairn_status_t knorm_batchnorm(const ktensor_t *x, const ktensor_t *scale, const ktensor_t *bias,
                               const ktensor_t *mean, const ktensor_t *var, ktensor_t *y,
                               double epsilon, void *ws, const kctx_t *k);

/* Instance normalisation of x (N, C, ...): each (n, c) plane is normalised
 * over its spatial elements, then scaled by scale[c] and shifted by
 * bias[c] (C elements each). */
cairn_status_t knorm_instancenorm(const ktensor_t *x, const ktensor_t *scale,
                                  const ktensor_t *bias, ktensor_t *y, double epsilon,
                                  const kctx_t *k);

#endif
