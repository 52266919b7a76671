/*
 * Winograd F(4x4, 3x3) and F(2x2, 3x3) convolution, internal to the conv kernels (conv.h
 * has what the rest of the library calls). winograd.c holds the algorithm
 * and the driver; winograd_avx2.c and winograd_avx512.c the transforms.
 */
#ifndef CAIRN_KERNELS_CONV_WINOGRAD_H
#define CAIRN_KERNELS_CONV_WINOGRAD_H

#include "kernels/conv/conv.h"

/* One image's geometry and the workspace layouts (in floats). */
typedef struct wino_geom {
    int m, nxi;          /* outputs per tile side (4 or 2); (m + 2)^2 products */
    int64_t H, W, plane; /* input plane */
    int64_t pt, pl;      /* padding before rows and columns */
    int64_t oh, ow;      /* output plane */
    int64_t th, tw;      /* m x m output tiles down and across */
    int64_t C8, M8;      /* channel counts rounded up to 8 */
    int64_t ldv, xs_v;   /* V: a row per tile (C8 floats), the 36 matrices xs_v apart */
    int64_t ldm, xs_m;   /* products: a row per tile (M8 floats), xs_m apart */
} wino_geom_t;

/* Tile row th of channels [8 cb, 8 cb + nc) of one image (x at the first,
 * planes g->plane apart): the m + 2 input rows under it padded (on the stack)
 * and its tiles transformed into V (v at column 8 cb of tile 0, matrix 0). */
void conv_wino_in_f32_avx2(const wino_geom_t *g, const float *x, int nc, int64_t th, float *v);
/* Output channels [m0, m1) (multiples of 8, the last block holding
 * channels up to M only) of tile row th: the products mo (matrix 0, tile
 * 0, column 0) transformed back, bias (NULL for none) and post applied,
 * stored into the image's Y planes (res: the image's residual planes or
 * NULL). */
void conv_wino_out_f32_avx2(const wino_geom_t *g, const float *mo, int64_t m0, int64_t m1,
                            int64_t M, int64_t th, const float *bias, const conv_post_t *post,
                            const float *res, float *y);
/* 1 when winograd_avx2.c was built with AVX2 + FMA (x86-64). */
int conv_wino_avx2_compiled(void);
/* The AVX-512 forms (winograd_avx512.c), F(4x4) only: the input transform
 * of up to 16 channels (nc of them real) writing nw (8 or 16) columns of
 * V; the output transform of channels [m0, m1) (multiples of 8), which
 * hands F(2x2) and activations other than ReLU / clip to the AVX2 form. */
void conv_wino_in_f32_avx512(const wino_geom_t *g, const float *x, int nc, int nw, int64_t th,
                             float *v);
void conv_wino_out_f32_avx512(const wino_geom_t *g, const float *mo, int64_t m0, int64_t m1,
                              int64_t M, int64_t th, const float *bias, const conv_post_t *post,
                              const float *res, float *y);
/* 1 when winograd_avx512.c was built with AVX-512F + FMA (x86-64). */
int conv_wino_avx512_compiled(void);

#endif
