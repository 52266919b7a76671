/*
 * Pooling kernels over the spatial dims of (N, C, D1, ..., Dk) tensors:
 * max pooling (with optional argmax indices) and average pooling, for any
 * number k >= 1 of spatial dims. Global pooling is the special case of a
 * window as large as the input with no padding.
 *
 * The geometry (window, strides, dilations, padding) is resolved by the
 * caller; output spatial sizes are taken from y's shape. Every tap is
 * bounds-checked, so no geometry makes a kernel read outside x.
 */
#ifndef CAIRN_KERNELS_POOL_POOL_H
#define CAIRN_KERNELS_POOL_POOL_H

#include "kernels/ktensor.h"

#define KPOOL_MAX_SPATIAL (CAIRN_MAX_RANK - 2)

typedef struct kpool_params {
    int nsp;                              /* spatial dims: x->rank - 2 */
    int64_t kernel[KPOOL_MAX_SPATIAL];    /* window size per dim, >= 1 */
    int64_t stride[KPOOL_MAX_SPATIAL];    /* >= 1 */
    int64_t dilation[KPOOL_MAX_SPATIAL];  /* >= 1 */
    int64_t pad_begin[KPOOL_MAX_SPATIAL]; /* >= 0 */
    int64_t pad_end[KPOOL_MAX_SPATIAL];   /* >= 0; counts for count_include_pad */
    int count_include_pad;                /* average: divide by taps inside the padded input */
    int storage_order;                    /* max indices: 0 row-major, 1 column-major spatial */
} kpool_params_t;

/* Max pooling. x: f32, f64, f16, bf16, i8 or u8; y: same dtype. indices
 * (NULL: not wanted) is i64 of y's shape and receives, per output, the
 * flat index into x of the first maximal tap: ((n * C + c) * S + s), with s
 * the row-major (storage_order 0) or column-major (1) spatial offset. A NaN
 * in a window makes that output NaN. A window with no tap inside x (only
 * possible with dilation and padding) gives the type's lowest value and
 * index -1. */
cairn_status_t kpool_max(const ktensor_t *x, ktensor_t *y, ktensor_t *indices,
                         const kpool_params_t *p, const kctx_t *k);

/* Average pooling (sums in double). The divisor is the number of taps
 * inside x, or with count_include_pad the number inside the padded input
 * [-pad_begin, size + pad_end); a zero divisor gives NaN. */
cairn_status_t kpool_avg(const ktensor_t *x, ktensor_t *y, const kpool_params_t *p,
                         const kctx_t *k);

#endif
