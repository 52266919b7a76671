/*
 * Reference reduction kernels: Reduce{Sum,Mean,Max,Min,Prod,L1,L2,LogSum,
 * LogSumExp,SumSquare} over any set of axes, ArgMax/ArgMin, CumSum, TopK.
 *
 * Tensors are dense row-major ktensor_t views. Reductions name their axes by
 * a bit mask (bit d set: dimension d is reduced); the output holds the kept
 * dims in order (its rank may include size-1 dims for keepdims: only its
 * element count and data are used). Floating-point data are accumulated in
 * double whatever their storage type; integer sums, products and means wrap
 * in 64-bit two's complement and are narrowed to the output type as C does.
 */
#ifndef CAIRN_KERNELS_REDUCE_REDUCE_H
#define CAIRN_KERNELS_REDUCE_REDUCE_H

#include "kernels/ktensor.h"

#include <stddef.h>
#include <stdint.h>

typedef enum kreduce_op {
    KREDUCE_SUM = 0,
    KREDUCE_MEAN,
    KREDUCE_MAX,
    KREDUCE_MIN,
    KREDUCE_PROD,
    KREDUCE_L1,
    KREDUCE_L2,
    KREDUCE_LOGSUM,
    KREDUCE_LOGSUMEXP,
    KREDUCE_SUMSQUARE
} kreduce_op_t;

/* y[kept index] = op over x's elements at that kept index. An empty set
 * (a reduced dim of size 0) gives the identity: 0 for Sum/L1/L2/SumSquare,
 * 1 for Prod, -inf for Max/LogSum/LogSumExp (the type's minimum for ints),
 * +inf for Min (the type's maximum), NaN for Mean (0 for ints). Max and Min
 * propagate NaN. x and y share a dtype. */
cairn_status_t kreduce_ref(kreduce_op_t op, const ktensor_t *x, uint32_t axes_mask, ktensor_t *y,
                           const kctx_t *k);

/* Index (int64) of the largest (want_max) or smallest element along axis;
 * ties go to the first index, or the last when select_last. NaN counts as
 * the extreme for both (as numpy does): the first (last) NaN wins. The axis
 * must not be empty. y holds int64. */
cairn_status_t kargreduce_ref(int want_max, const ktensor_t *x, int axis, int select_last,
                              ktensor_t *y, const kctx_t *k);

/* Running sum along axis; exclusive leaves out the current element, reverse
 * runs from the end. Floats accumulate in double. y has x's dtype/shape. */
cairn_status_t kcumsum_ref(const ktensor_t *x, int axis, int exclusive, int reverse, ktensor_t *y,
                           const kctx_t *k);

/* Scratch bytes ktopk_ref needs for x, axis and K. */
size_t ktopk_workspace(const ktensor_t *x, int axis, int64_t kk);

/* The K largest (or smallest) elements along axis, best first, with their
 * int64 indices; equal values keep the lower index first. NaN orders above
 * every number (so it comes first for largest, last for smallest). The
 * output is always sorted (allowed when sorted=0). */
cairn_status_t ktopk_ref(const ktensor_t *x, int axis, int64_t kk, int largest, ktensor_t *values,
                         ktensor_t *indices, void *ws, const kctx_t *k);

#endif
