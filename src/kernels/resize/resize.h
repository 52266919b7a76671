/*
 * Reference kernels of the resize family: Resize (N-d nearest / linear /
 * cubic with the ONNX coordinate transforms), DepthToSpace, SpaceToDepth,
 * GridSample, MaxUnpool, RoiAlign and ReverseSequence. The op adapters in
 * src/ir/ops/resize.c validate shapes and attributes and fill the parameter
 * structs; these functions trust them except for values that only the data
 * can tell (indices, sequence lengths, roi batch indices), which they check.
 */
#ifndef CAIRN_KERNELS_RESIZE_RESIZE_H
#define CAIRN_KERNELS_RESIZE_RESIZE_H

#include "kernels/ktensor.h"

typedef enum { KRESIZE_NEAREST, KRESIZE_LINEAR, KRESIZE_CUBIC } kresize_mode_t;

typedef enum {
    KRESIZE_HALF_PIXEL,
    KRESIZE_PYTORCH_HALF_PIXEL,
    KRESIZE_ALIGN_CORNERS,
    KRESIZE_ASYMMETRIC,
    KRESIZE_TF_CROP_AND_RESIZE,
    KRESIZE_TF_HALF_PIXEL_FOR_NN
} kresize_coord_t;

typedef enum {
    KRESIZE_ROUND_PREFER_FLOOR,
    KRESIZE_ROUND_PREFER_CEIL,
    KRESIZE_FLOOR,
    KRESIZE_CEIL
} kresize_nearest_t;

typedef struct kresize_params {
    kresize_mode_t mode;
    kresize_coord_t coord;
    kresize_nearest_t nearest;
    double cubic_a;
    int exclude_outside;
    double extrapolation;         /* tf_crop_and_resize: value outside the roi's image */
    /* Per axis: the scale, and the resized length before flooring
     * (scale * input length), which the coordinate transforms use. */
    double scale[CAIRN_MAX_RANK];
    double len_resized[CAIRN_MAX_RANK];
    double roi_start[CAIRN_MAX_RANK], roi_end[CAIRN_MAX_RANK]; /* tf_crop_and_resize */
} kresize_params_t;

/* y's shape is the output shape; x and y have the same dtype and rank.
 * Nearest copies elements (any dtype); linear/cubic need a float dtype and
 * accumulate in double. */
cairn_status_t kresize_ref(const ktensor_t *x, ktensor_t *y, const kresize_params_t *p);

/* DepthToSpace (crd: 0 = DCR, 1 = CRD) and SpaceToDepth, 4-D, any dtype. */
void kdepth_to_space_ref(const ktensor_t *x, ktensor_t *y, int64_t block, int crd);
void kspace_to_depth_ref(const ktensor_t *x, ktensor_t *y, int64_t block);

typedef enum { KGRID_BILINEAR, KGRID_NEAREST, KGRID_BICUBIC } kgrid_mode_t;
typedef enum { KGRID_ZEROS, KGRID_BORDER, KGRID_REFLECTION } kgrid_pad_t;

/* X (N,C,H,W) float, grid (N,Ho,Wo,2) float, y (N,C,Ho,Wo). */
void kgrid_sample_ref(const ktensor_t *x, const ktensor_t *grid, ktensor_t *y, kgrid_mode_t mode,
                      kgrid_pad_t pad, int align_corners);

/* y zero-filled, then x[i] goes to the element that index idx[i] names in
 * a tensor of shape idx_dims (MaxPool's output indices count in the default
 * unpooled shape; y may have another, given by output_shape). An index
 * outside idx_dims or landing outside y is an error (CAIRN_ERR_RUNTIME).
 * idx is int64 with x's shape; idx_dims has y's rank. */
cairn_status_t kmax_unpool_ref(const ktensor_t *x, const ktensor_t *idx, ktensor_t *y,
                               const int64_t *idx_dims);

typedef struct kroi_align_params {
    int mode_max;          /* 0: avg */
    int half_pixel;        /* 1: half_pixel, 0: output_half_pixel (legacy) */
    int64_t sampling_ratio;
    double spatial_scale;
} kroi_align_params_t;

/* X (N,C,H,W), rois (R,4) of X's dtype or another float type, batch (R)
 * int64 checked against N, y (R,C,oh,ow). */
cairn_status_t kroi_align_ref(const ktensor_t *x, const ktensor_t *rois, const ktensor_t *batch,
                              ktensor_t *y, const kroi_align_params_t *p);

/* Reverses the first lens[b] elements along time_axis for each b along
 * batch_axis (axes 0 and 1 in some order); lens int64 or int32, checked to
 * lie in [0, time]. */
cairn_status_t kreverse_sequence_ref(const ktensor_t *x, const ktensor_t *lens, ktensor_t *y,
                                     int batch_axis, int time_axis);

#endif
