/*
 * Reference kernels of the resize family (see resize.h). Interpolating
 * kernels compute coordinates and accumulate in double whatever the
 * element type: the ONNX reference does its arithmetic in float64 and the
 * coordinate transforms (e.g. (x + 0.5) / scale - 0.5) decide which input
 * element is nearest, so doing them in float would round the other way at
 * exact ties. Copying kernels (nearest, DepthToSpace, MaxUnpool,
 * ReverseSequence) move bytes and so work for every dtype exactly.
 */
#include "kernels/resize/resize.h"

#include "base/dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline double rz_load(const void *p, cairn_dtype_t t, int64_t i)
{
    switch (t) {
    case CAIRN_F32: return ((const float *)p)[i];
    case CAIRN_F64: return ((const double *)p)[i];
    case CAIRN_F16: return base_f16_to_f32(((const uint16_t *)p)[i]);
    case CAIRN_BF16: return base_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return base_load_as_double(p, t, i);
    }
}

static inline void rz_store(void *p, cairn_dtype_t t, int64_t i, double v)
{
    switch (t) {
    case CAIRN_F32: ((float *)p)[i] = (float)v; break;
    case CAIRN_F64: ((double *)p)[i] = v; break;
    case CAIRN_F16: ((uint16_t *)p)[i] = base_f32_to_f16((float)v); break;
    case CAIRN_BF16: ((uint16_t *)p)[i] = base_f32_to_bf16((float)v); break;
    default: base_store_from_double(p, t, i, v); break;
    }
}

/* ---- Resize ------------------------------------------------------------ */

/* Input coordinate of output coordinate xo along axis d (ONNX's
 * coordinate_transformation_mode table, with length_resized = scale * in
 * before flooring, as the ONNX reference uses it). */
static double rz_coord(const kresize_params_t *p, int d, double xo, int64_t in_len)
{
    double s = p->scale[d], lr = p->len_resized[d], li = (double)in_len;
    switch (p->coord) {
    case KRESIZE_PYTORCH_HALF_PIXEL: return lr > 1 ? (xo + 0.5) / s - 0.5 : 0.0;
    case KRESIZE_ALIGN_CORNERS: return lr == 1 ? 0.0 : xo * (li - 1) / (lr - 1);
    case KRESIZE_ASYMMETRIC: return xo / s;
    case KRESIZE_TF_CROP_AND_RESIZE: {
        double a = p->roi_start[d], b = p->roi_end[d];
        return lr > 1 ? a * (li - 1) + xo * (b - a) * (li - 1) / (lr - 1)
                      : 0.5 * (a + b) * (li - 1);
    }
    case KRESIZE_TF_HALF_PIXEL_FOR_NN: return (xo + 0.5) / s;
    case KRESIZE_HALF_PIXEL:
    default: return (xo + 0.5) / s - 0.5;
    }
}

static void rz_cubic_coeffs(double r, double A, double *c)
{
    double t0 = r + 1, t3 = 2 - r;
    c[0] = ((A * t0 - 5 * A) * t0 + 8 * A) * t0 - 4 * A;
    c[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
    c[2] = ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1;
    c[3] = ((A * t3 - 5 * A) * t3 + 8 * A) * t3 - 4 * A;
}

/* Taps of one axis: for each output coordinate up to 4 (input offset,
 * weight) pairs, zero-weight taps dropped so that identity axes cost one
 * tap; oob marks tf_crop_and_resize coordinates outside the image. */
typedef struct rz_axis {
    int nt;
    int64_t *off;
    double *w;
    unsigned char *oob;
} rz_axis_t;

static cairn_status_t rz_axis_build(const kresize_params_t *p, int d, int64_t in_len,
                                    int64_t out_len, int64_t stride, rz_axis_t *ax)
{
    int K = p->mode == KRESIZE_CUBIC ? 4 : p->mode == KRESIZE_LINEAR ? 2 : 1;
    size_t n = (size_t)(out_len ? out_len : 1) * (size_t)K;
    ax->off = malloc(n * sizeof *ax->off);
    ax->w = malloc(n * sizeof *ax->w);
    ax->oob = calloc((size_t)(out_len ? out_len : 1), 1);
    if (!ax->off || !ax->w || !ax->oob)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "Resize: out of memory for %lld taps",
                          (long long)n);
    ax->nt = 1;
    for (int64_t o = 0; o < out_len; o++) {
        double x = rz_coord(p, d, (double)o, in_len);
        int64_t idx[4];
        double w[4];
        if (p->coord == KRESIZE_TF_CROP_AND_RESIZE && (x < 0 || x > (double)(in_len - 1)))
            ax->oob[o] = 1;
        if (p->mode == KRESIZE_NEAREST) {
            double f = floor(x), r = x - f;
            int64_t i = (int64_t)f;
            if (r != 0) {
                switch (p->nearest) {
                case KRESIZE_ROUND_PREFER_FLOOR: i += r > 0.5; break;
                case KRESIZE_ROUND_PREFER_CEIL: i += r >= 0.5; break;
                case KRESIZE_FLOOR: break;
                case KRESIZE_CEIL: i += 1; break;
                }
            }
            idx[0] = i, w[0] = 1;
        } else {
            /* the left neighbour is strictly left of x, so r is in (0, 1] */
            double f = floor(x);
            if (f == x)
                f -= 1;
            double r = x - f;
            int64_t i0 = (int64_t)f;
            if (K == 2) {
                idx[0] = i0, idx[1] = i0 + 1, w[0] = 1 - r, w[1] = r;
            } else {
                rz_cubic_coeffs(r, p->cubic_a, w);
                for (int t = 0; t < 4; t++)
                    idx[t] = i0 - 1 + t;
                if (p->exclude_outside) {
                    double sum = 0;
                    for (int t = 0; t < 4; t++) {
                        if (idx[t] < 0 || idx[t] >= in_len)
                            w[t] = 0;
                        sum += w[t];
                    }
                    for (int t = 0; t < 4; t++)
                        w[t] = sum != 0 ? w[t] / sum : 0;
                }
            }
        }
        int m = 0;
        for (int t = 0; t < K; t++) {
            if (w[t] == 0 && !(K == 1))
                continue;
            int64_t i = idx[t] < 0 ? 0 : idx[t] >= in_len ? in_len - 1 : idx[t];
            ax->off[o * K + m] = i * stride;
            ax->w[o * K + m] = w[t];
            m++;
        }
        if (m == 0) /* all weights zero: any in-range tap with weight 0 */
            ax->off[o * K] = 0, ax->w[o * K] = 0, m = 1;
        for (int t = m; t < K; t++)
            ax->off[o * K + t] = 0, ax->w[o * K + t] = 0;
        if (m > ax->nt)
            ax->nt = m;
    }
    /* stored with stride K; remember it in nt's upper bits would be
     * obscure, so compact to stride nt instead */
    if (ax->nt < K)
        for (int64_t o = 0; o < out_len; o++)
            for (int t = 0; t < ax->nt; t++) {
                ax->off[o * ax->nt + t] = ax->off[o * K + t];
                ax->w[o * ax->nt + t] = ax->w[o * K + t];
            }
    return CAIRN_OK;
}

cairn_status_t kresize_ref(const ktensor_t *x, ktensor_t *y, const kresize_params_t *p)
{
    int R = x->rank;
    int64_t n_out = kt_numel(y);
    if (n_out == 0)
        return CAIRN_OK;
    int64_t xs[CAIRN_MAX_RANK];
    kt_strides(x, xs);
    rz_axis_t ax[CAIRN_MAX_RANK];
    memset(ax, 0, sizeof ax);
    cairn_status_t st = CAIRN_OK;
    for (int d = 0; d < R && st == CAIRN_OK; d++)
        st = rz_axis_build(p, d, x->shape[d], y->shape[d], xs[d], &ax[d]);
    if (st == CAIRN_OK) {
        size_t es = cairn_dtype_size(x->dtype);
        const char *xb = x->data;
        char *yb = y->data;
        int act[CAIRN_MAX_RANK], na = 0;
        for (int d = 0; d < R; d++)
            if (ax[d].nt > 1)
                act[na++] = d;
        int64_t oi[CAIRN_MAX_RANK] = {0};
        for (int64_t e = 0; e < n_out; e++) {
            int oob = 0;
            int64_t base = 0;
            double wb = 1;
            for (int d = 0; d < R; d++) {
                oob |= ax[d].oob[oi[d]];
                if (ax[d].nt == 1)
                    base += ax[d].off[oi[d]], wb *= ax[d].w[oi[d]];
            }
            if (oob) {
                rz_store(yb, y->dtype, e, p->extrapolation);
            } else if (p->mode == KRESIZE_NEAREST) {
                memcpy(yb + (size_t)e * es, xb + (size_t)base * es, es);
            } else {
                double acc = 0;
                int t[CAIRN_MAX_RANK] = {0};
                for (;;) {
                    int64_t off = base;
                    double w = wb;
                    for (int j = 0; j < na; j++) {
                        const rz_axis_t *a = &ax[act[j]];
                        int64_t k = oi[act[j]] * a->nt + t[j];
                        off += a->off[k];
                        w *= a->w[k];
                    }
                    if (w != 0)
                        acc += w * rz_load(xb, x->dtype, off);
                    int j = na - 1;
                    while (j >= 0 && ++t[j] == ax[act[j]].nt)
                        t[j--] = 0;
                    if (j < 0)
                        break;
                }
                rz_store(yb, y->dtype, e, acc);
            }
            for (int d = R - 1; d >= 0; d--) {
                if (++oi[d] < y->shape[d])
                    break;
                oi[d] = 0;
            }
        }
    }
    for (int d = 0; d < R; d++) {
        free(ax[d].off);
        free(ax[d].w);
        free(ax[d].oob);
    }
    return st;
}

/* ---- DepthToSpace / SpaceToDepth ------------------------------------- */

void kdepth_to_space_ref(const ktensor_t *x, ktensor_t *y, int64_t b, int crd)
{
    int64_t N = y->shape[0], C = y->shape[1], H = y->shape[2], W = y->shape[3];
    int64_t h_in = x->shape[2], w_in = x->shape[3];
    size_t es = cairn_dtype_size(x->dtype);
    const char *xb = x->data;
    char *yb = y->data;
    int64_t e = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t w = 0; w < W; w++, e++) {
                    int64_t bh = h % b, bw = w % b;
                    int64_t ic = crd ? (c * b + bh) * b + bw : (bh * b + bw) * C + c;
                    int64_t src = ((n * x->shape[1] + ic) * h_in + h / b) * w_in + w / b;
                    memcpy(yb + (size_t)e * es, xb + (size_t)src * es, es);
                }
}

void kspace_to_depth_ref(const ktensor_t *x, ktensor_t *y, int64_t b)
{
    int64_t N = y->shape[0], OC = y->shape[1], H = y->shape[2], W = y->shape[3];
    int64_t C = x->shape[1], h_in = x->shape[2], w_in = x->shape[3];
    size_t es = cairn_dtype_size(x->dtype);
    const char *xb = x->data;
    char *yb = y->data;
    int64_t e = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t oc = 0; oc < OC; oc++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t w = 0; w < W; w++, e++) {
                    int64_t c = oc % C, blk = oc / C, bh = blk / b, bw = blk % b;
                    int64_t src = ((n * C + c) * h_in + h * b + bh) * w_in + w * b + bw;
                    memcpy(yb + (size_t)e * es, xb + (size_t)src * es, es);
                }
}

/* ---- GridSample ------------------------------------------------------ */

/* Reflects x into [lo, hi] as often as needed (a mirror at each end). */
static double gs_reflect(double x, double lo, double hi)
{
    double rng = hi - lo;
    if (rng <= 0)
        return lo;
    if (x < lo) {
        double dx = lo - x;
        double k = floor(dx / rng), r = dx - k * rng;
        return fmod(k, 2) == 0 ? lo + r : hi - r;
    }
    if (x > hi) {
        double dx = x - hi;
        double k = floor(dx / rng), r = dx - k * rng;
        return fmod(k, 2) == 0 ? hi - r : lo + r;
    }
    return x;
}

typedef struct gs_img {
    const ktensor_t *x;
    int64_t base, H, W;
    kgrid_pad_t pad;
    double lo_x, hi_x, lo_y, hi_y; /* the reflection borders */
} gs_img_t;

/* Pixel (r, c) of the current image with the padding rule applied. */
static double gs_pixel(const gs_img_t *g, int64_t r, int64_t c)
{
    if (g->pad == KGRID_ZEROS) {
        if (r < 0 || r >= g->H || c < 0 || c >= g->W)
            return 0;
    } else if (g->pad == KGRID_BORDER) {
        r = r < 0 ? 0 : r >= g->H ? g->H - 1 : r;
        c = c < 0 ? 0 : c >= g->W ? g->W - 1 : c;
    } else {
        c = (int64_t)gs_reflect((double)c, g->lo_x, g->hi_x);
        r = (int64_t)gs_reflect((double)r, g->lo_y, g->hi_y);
        r = r < 0 ? 0 : r >= g->H ? g->H - 1 : r;
        c = c < 0 ? 0 : c >= g->W ? g->W - 1 : c;
    }
    return rz_load(g->x->data, g->x->dtype, g->base + r * g->W + c);
}

void kgrid_sample_ref(const ktensor_t *x, const ktensor_t *grid, ktensor_t *y, kgrid_mode_t mode,
                      kgrid_pad_t pad, int align_corners)
{
    int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
    int64_t Ho = grid->shape[1], Wo = grid->shape[2];
    gs_img_t g = {x, 0, H, W, pad, 0, 0, 0, 0};
    if (align_corners)
        g.lo_x = 0, g.hi_x = (double)(W - 1), g.lo_y = 0, g.hi_y = (double)(H - 1);
    else
        g.lo_x = -0.5, g.hi_x = (double)W - 0.5, g.lo_y = -0.5, g.hi_y = (double)H - 0.5;
    for (int64_t n = 0; n < N; n++)
        for (int64_t oy = 0; oy < Ho; oy++)
            for (int64_t ox = 0; ox < Wo; ox++) {
                int64_t gi = ((n * Ho + oy) * Wo + ox) * 2;
                double nx = rz_load(grid->data, grid->dtype, gi);
                double ny = rz_load(grid->data, grid->dtype, gi + 1);
                double fx, fy;
                if (align_corners)
                    fx = (nx + 1) / 2 * (double)(W - 1), fy = (ny + 1) / 2 * (double)(H - 1);
                else
                    fx = ((nx + 1) * (double)W - 1) / 2, fy = ((ny + 1) * (double)H - 1) / 2;
                if (mode == KGRID_NEAREST)
                    fx = nearbyint(fx), fy = nearbyint(fy);
                /* bicubic pads each of its 16 taps instead (as PyTorch does) */
                if (mode != KGRID_BICUBIC && pad == KGRID_BORDER) {
                    if (fx < g.lo_x || fx > g.hi_x)
                        fx = fx < 0 ? 0 : fx > (double)(W - 1) ? (double)(W - 1) : fx;
                    if (fy < g.lo_y || fy > g.hi_y)
                        fy = fy < 0 ? 0 : fy > (double)(H - 1) ? (double)(H - 1) : fy;
                } else if (mode != KGRID_BICUBIC && pad == KGRID_REFLECTION) {
                    fx = gs_reflect(fx, g.lo_x, g.hi_x);
                    fy = gs_reflect(fy, g.lo_y, g.hi_y);
                }
                for (int64_t c = 0; c < C; c++) {
                    g.base = (n * C + c) * H * W;
                    double v;
                    if (!isfinite(fx) || !isfinite(fy)) {
                        v = pad == KGRID_ZEROS ? 0 : NAN;
                    } else if (mode == KGRID_NEAREST) {
                        v = gs_pixel(&g, (int64_t)fy, (int64_t)fx);
                    } else if (mode == KGRID_BILINEAR) {
                        double x1 = floor(fx), y1 = floor(fy);
                        double dx = fx - x1, dy = fy - y1;
                        int64_t c1 = (int64_t)x1, r1 = (int64_t)y1;
                        v = (1 - dy) * ((1 - dx) * gs_pixel(&g, r1, c1) + dx * gs_pixel(&g, r1, c1 + 1)) +
                            dy * ((1 - dx) * gs_pixel(&g, r1 + 1, c1) + dx * gs_pixel(&g, r1 + 1, c1 + 1));
                    } else {
                        double x0 = floor(fx), y0 = floor(fy), cx[4], cy[4];
                        rz_cubic_coeffs(fx - x0, -0.75, cx);
                        rz_cubic_coeffs(fy - y0, -0.75, cy);
                        v = 0;
                        for (int i = 0; i < 4; i++) {
                            double row = 0;
                            for (int j = 0; j < 4; j++)
                                row += cx[j] * gs_pixel(&g, (int64_t)y0 - 1 + i, (int64_t)x0 - 1 + j);
                            v += cy[i] * row;
                        }
                    }
                    rz_store(y->data, y->dtype, ((n * C + c) * Ho + oy) * Wo + ox, v);
                }
            }
}

/* ---- MaxUnpool ------------------------------------------------------- */

cairn_status_t kmax_unpool_ref(const ktensor_t *x, const ktensor_t *idx, ktensor_t *y,
                               const int64_t *idx_dims)
{
    size_t es = cairn_dtype_size(x->dtype);
    int64_t n = kt_numel(x), ny = kt_numel(y), ni = 1;
    int R = y->rank, same = 1;
    int64_t ys[CAIRN_MAX_RANK];
    kt_strides(y, ys);
    for (int d = 0; d < R; d++) {
        ni *= idx_dims[d];
        same &= idx_dims[d] == y->shape[d];
    }
    memset(y->data, 0, (size_t)ny * es);
    const int64_t *ip = idx->data;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = ip[i], dst = v;
        if (v < 0 || v >= ni)
            return base_error(CAIRN_ERR_RUNTIME,
                              "MaxUnpool: index %lld (element %lld of I) is outside [0, %lld), "
                              "the elements of the unpooled shape the indices refer to",
                              (long long)v, (long long)i, (long long)ni);
        if (!same) {
            /* the indices count in the default output shape; keep each
             * element's coordinates in the given, larger or smaller, one */
            dst = 0;
            int64_t rem = v;
            for (int d = R - 1; d >= 0; d--) {
                int64_t q = rem % idx_dims[d];
                rem /= idx_dims[d];
                if (q >= y->shape[d])
                    return base_error(CAIRN_ERR_RUNTIME,
                                      "MaxUnpool: index %lld (element %lld of I) has coordinate "
                                      "%lld on axis %d, outside output_shape's %lld",
                                      (long long)v, (long long)i, (long long)q, d,
                                      (long long)y->shape[d]);
                dst += q * ys[d];
            }
        }
        memcpy((char *)y->data + (size_t)dst * es, (const char *)x->data + (size_t)i * es, es);
    }
    return CAIRN_OK;
}

/* ---- RoiAlign -------------------------------------------------------- */

cairn_status_t kroi_align_ref(const ktensor_t *x, const ktensor_t *rois, const ktensor_t *batch,
                              ktensor_t *y, const kroi_align_params_t *p)
{
    int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
    int64_t R = y->shape[0], OH = y->shape[2], OW = y->shape[3];
    for (int64_t r = 0; r < R; r++) {
        int64_t b = (int64_t)base_load_as_double(batch->data, batch->dtype, r);
        if (b < 0 || b >= N)
            return base_error(CAIRN_ERR_RUNTIME,
                              "RoiAlign: batch_indices[%lld] = %lld is outside [0, %lld) (X has "
                              "%lld images)",
                              (long long)r, (long long)b, (long long)N, (long long)N);
    }
    double off = p->half_pixel ? 0.5 : 0.0;
    for (int64_t r = 0; r < R; r++) {
        int64_t b = (int64_t)base_load_as_double(batch->data, batch->dtype, r);
        double x1 = rz_load(rois->data, rois->dtype, r * 4) * p->spatial_scale - off;
        double y1 = rz_load(rois->data, rois->dtype, r * 4 + 1) * p->spatial_scale - off;
        double x2 = rz_load(rois->data, rois->dtype, r * 4 + 2) * p->spatial_scale - off;
        double y2 = rz_load(rois->data, rois->dtype, r * 4 + 3) * p->spatial_scale - off;
        double rw = x2 - x1, rh = y2 - y1;
        if (!p->half_pixel) {
            rw = rw > 1 ? rw : 1;
            rh = rh > 1 ? rh : 1;
        }
        double bh = rh / (double)OH, bw = rw / (double)OW;
        int64_t gh = p->sampling_ratio > 0 ? p->sampling_ratio : (int64_t)ceil(rh / (double)OH);
        int64_t gw = p->sampling_ratio > 0 ? p->sampling_ratio : (int64_t)ceil(rw / (double)OW);
        if (gh < 0)
            gh = 0;
        if (gw < 0)
            gw = 0;
        double count = (double)(gh * gw > 1 ? gh * gw : 1);
        for (int64_t c = 0; c < C; c++) {
            int64_t base = (b * C + c) * H * W;
            for (int64_t ph = 0; ph < OH; ph++)
                for (int64_t pw = 0; pw < OW; pw++) {
                    double acc = 0;
                    int have = 0;
                    for (int64_t iy = 0; iy < gh; iy++) {
                        double yy = y1 + (double)ph * bh + ((double)iy + 0.5) * bh / (double)gh;
                        for (int64_t ix = 0; ix < gw; ix++) {
                            double xx = x1 + (double)pw * bw + ((double)ix + 0.5) * bw / (double)gw;
                            double t[4] = {0, 0, 0, 0};
                            /* a sample more than one pixel outside contributes 0 */
                            if (!(yy < -1.0 || yy > (double)H || xx < -1.0 || xx > (double)W)) {
                                double sy = yy <= 0 ? 0 : yy, sx = xx <= 0 ? 0 : xx;
                                int64_t yl = (int64_t)sy, xl = (int64_t)sx, yh, xh;
                                if (yl >= H - 1)
                                    yh = yl = H - 1, sy = (double)yl;
                                else
                                    yh = yl + 1;
                                if (xl >= W - 1)
                                    xh = xl = W - 1, sx = (double)xl;
                                else
                                    xh = xl + 1;
                                double ly = sy - (double)yl, lx = sx - (double)xl;
                                double hy = 1 - ly, hx = 1 - lx;
                                t[0] = hy * hx * rz_load(x->data, x->dtype, base + yl * W + xl);
                                t[1] = hy * lx * rz_load(x->data, x->dtype, base + yl * W + xh);
                                t[2] = ly * hx * rz_load(x->data, x->dtype, base + yh * W + xl);
                                t[3] = ly * lx * rz_load(x->data, x->dtype, base + yh * W + xh);
                            }
                            if (p->mode_max) {
                                /* max of the weighted corners, as onnxruntime
                                 * and the ONNX reference define it */
                                double m = fmax(fmax(t[0], t[1]), fmax(t[2], t[3]));
                                acc = have ? fmax(acc, m) : m;
                                have = 1;
                            } else {
                                acc += t[0] + t[1] + t[2] + t[3];
                            }
                        }
                    }
                    if (!p->mode_max)
                        acc /= count;
                    rz_store(y->data, y->dtype, ((r * C + c) * OH + ph) * OW + pw, acc);
                }
        }
    }
    return CAIRN_OK;
}

/* ---- ReverseSequence ------------------------------------------------- */

cairn_status_t kreverse_sequence_ref(const ktensor_t *x, const ktensor_t *lens, ktensor_t *y,
                                     int batch_axis, int time_axis)
{
    int64_t B = x->shape[batch_axis], T = x->shape[time_axis];
    int64_t inner = 1;
    for (int d = 2; d < x->rank; d++)
        inner *= x->shape[d];
    size_t es = cairn_dtype_size(x->dtype), row = (size_t)inner * es;
    for (int64_t b = 0; b < B; b++) {
        int64_t L = (int64_t)base_load_as_double(lens->data, lens->dtype, b);
        if (L < 0 || L > T)
            return base_error(CAIRN_ERR_RUNTIME,
                              "ReverseSequence: sequence_lens[%lld] = %lld is outside [0, %lld] "
                              "(the time axis has %lld steps)",
                              (long long)b, (long long)L, (long long)T, (long long)T);
    }
    int64_t s1 = x->shape[1];
    for (int64_t b = 0; b < B; b++) {
        int64_t L = (int64_t)base_load_as_double(lens->data, lens->dtype, b);
        for (int64_t t = 0; t < T; t++) {
            int64_t src_t = t < L ? L - 1 - t : t;
            int64_t di = batch_axis == 0 ? b * s1 + t : t * s1 + b;
            int64_t si = batch_axis == 0 ? b * s1 + src_t : src_t * s1 + b;
            memcpy((char *)y->data + (size_t)di * row, (const char *)x->data + (size_t)si * row,
                   row);
        }
    }
    return CAIRN_OK;
}
