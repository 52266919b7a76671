/*
 * Reference kernels of the misc family: the losses (NegativeLogLikelihoodLoss,
 * SoftmaxCrossEntropyLoss), Trilu, Hardmax, EyeLike, OneHot, the pointwise
 * ThresholdedRelu/Shrink/Celu, Compress, MeanVarianceNormalization and LRN.
 * Callers have validated shapes and attributes; kernels validate the values
 * they read (targets, labels) and report CAIRN_ERR_RUNTIME for bad ones.
 */
#ifndef CAIRN_KERNELS_MISC_H
#define CAIRN_KERNELS_MISC_H

#include "kernels/ktensor.h"

enum { KMISC_RED_NONE, KMISC_RED_SUM, KMISC_RED_MEAN };

typedef struct kmisc_loss_params {
    int reduction;       /* KMISC_RED_* */
    int has_ignore;      /* ignore_index given */
    int64_t ignore_index;
} kmisc_loss_params_t;

/* x (N,C,d1..dk) float, target (N,d1..dk) i32/i64, weight (C) or NULL.
 * loss: target's shape for NONE, a scalar otherwise. */
cairn_status_t kmisc_nll(const ktensor_t *x, const ktensor_t *target, const ktensor_t *weight,
                         const kmisc_loss_params_t *p, ktensor_t *loss);

/* As kmisc_nll on log_softmax(scores, axis 1). log_prob may be NULL; ws holds
 * numel(scores) doubles. */
cairn_status_t kmisc_sce(const ktensor_t *scores, const ktensor_t *labels,
                         const ktensor_t *weight, const kmisc_loss_params_t *p, ktensor_t *loss,
                         ktensor_t *log_prob, double *ws);

/* Keeps the elements with j - i >= k (upper) or j - i <= k (lower) of the
 * last two dims; zeroes the rest. Any dtype. */
cairn_status_t kmisc_trilu(const ktensor_t *x, ktensor_t *y, int upper, int64_t k);

/* 1 at the first maximum along axis, 0 elsewhere (a NaN counts as the max). */
cairn_status_t kmisc_hardmax(const ktensor_t *x, ktensor_t *y, int axis);

/* 2-D y: 1 where j - i == k, 0 elsewhere. Any dtype. */
cairn_status_t kmisc_eyelike(ktensor_t *y, int64_t k);

/* y = indices' shape with depth inserted at axis; values holds {off, on}.
 * Negative indices count from depth; others outside [0, depth) give an
 * all-off row. */
cairn_status_t kmisc_onehot(const ktensor_t *indices, int64_t depth, const ktensor_t *values,
                            int axis, ktensor_t *y);

enum { KMISC_THRESHOLDED_RELU, KMISC_SHRINK, KMISC_CELU };
/* ThresholdedRelu (a = alpha), Shrink (a = bias, b = lambd), Celu (a = alpha). */
cairn_status_t kmisc_pointwise(const ktensor_t *x, ktensor_t *y, int op, double a, double b);

/* Slices of x along axis whose condition entry is true (axis < 0: of the
 * flattened x). cond may be shorter than the dim. Any dtype. */
cairn_status_t kmisc_compress(const ktensor_t *x, const ktensor_t *cond, int axis, ktensor_t *y);

/* (x - mean) / (std + 1e-9) with the statistics over the dims whose bit is
 * set in axes_mask; ws holds 2 * (numel / reduced size) doubles. */
cairn_status_t kmisc_mvn(const ktensor_t *x, ktensor_t *y, unsigned axes_mask, double *ws);

/* Local response normalisation across channels (dim 1). */
cairn_status_t kmisc_lrn(const ktensor_t *x, ktensor_t *y, int64_t size, double alpha,
                         double beta, double bias);

#endif
