/*
 * Reference pooling kernels (see pool.h).
 *
 * One (n, c) plane is one task item; for each output point the valid tap
 * range of every spatial dim is worked out once (so the tap loop has no
 * bounds tests), then the taps are walked with an odometer over the outer
 * dims and a plain loop over the innermost one. Values are compared and
 * summed in double: exact for every supported storage type when comparing,
 * and a sum that does not lose small terms for large windows.
 *
 * The body is written once over (dtype, max-or-average) and forced inline
 * into per-dtype wrappers, so those switches vanish at compile time.
 */
#include "kernels/pool/pool.h"
#include "kernels/pool/fast.h"

#include "base/dtype.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#define KP_INLINE static inline __attribute__((always_inline))
#else
#define KP_INLINE static inline
#endif

KP_INLINE double kp_ld(const void *p, cairn_dtype_t t, int64_t i)
{
    switch (t) {
    case CAIRN_F32: return ((const float *)p)[i];
    case CAIRN_F64: return ((const double *)p)[i];
    case CAIRN_F16: return base_f16_to_f32(((const uint16_t *)p)[i]);
    case CAIRN_BF16: return base_bf16_to_f32(((const uint16_t *)p)[i]);
    case CAIRN_I8: return ((const int8_t *)p)[i];
    case CAIRN_U8: return ((const uint8_t *)p)[i];
    default: return 0.0;
    }
}

/* Integer stores only ever see values loaded from the same type. */
KP_INLINE void kp_st(void *p, cairn_dtype_t t, int64_t i, double v)
{
    switch (t) {
    case CAIRN_F32: ((float *)p)[i] = (float)v; break;
    case CAIRN_F64: ((double *)p)[i] = v; break;
    case CAIRN_F16: ((uint16_t *)p)[i] = base_f32_to_f16((float)v); break;
    case CAIRN_BF16: ((uint16_t *)p)[i] = base_f32_to_bf16((float)v); break;
    case CAIRN_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case CAIRN_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    default: break;
    }
}

KP_INLINE double kp_lowest(cairn_dtype_t t)
{
    return t == CAIRN_I8 ? -128.0 : t == CAIRN_U8 ? 0.0 : -INFINITY;
}

typedef struct kp_job {
    const void *x;
    void *y;
    int64_t *ind;
    const kpool_params_t *p;
    int64_t in_sp[KPOOL_MAX_SPATIAL], out_sp[KPOOL_MAX_SPATIAL];
    int64_t ist[KPOOL_MAX_SPATIAL]; /* row-major spatial strides of x */
    int64_t in_plane, out_plane;
} kp_job_t;

/* Spatial offset `off` (row-major) re-expressed column-major. */
static int64_t kp_col_major(const kp_job_t *jb, int64_t off)
{
    int64_t r = 0, m = 1;
    int64_t pos[KPOOL_MAX_SPATIAL];
    for (int d = jb->p->nsp - 1; d >= 0; d--) {
        pos[d] = off % jb->in_sp[d];
        off /= jb->in_sp[d];
    }
    for (int d = 0; d < jb->p->nsp; d++) {
        r += pos[d] * m;
        m *= jb->in_sp[d];
    }
    return r;
}

KP_INLINE void kp_planes(const kp_job_t *jb, size_t b, size_t e, cairn_dtype_t t, int is_max)
{
    const kpool_params_t *p = jb->p;
    const int nsp = p->nsp, last = nsp - 1;
    for (size_t plane = b; plane < e; plane++) {
        const int64_t xb = (int64_t)plane * jb->in_plane, yb = (int64_t)plane * jb->out_plane;
        int64_t o[KPOOL_MAX_SPATIAL] = {0};
        for (int64_t oi = 0; oi < jb->out_plane; oi++) {
            int64_t start[KPOOL_MAX_SPATIAL], lo[KPOOL_MAX_SPATIAL], hi[KPOOL_MAX_SPATIAL];
            double padded_taps = 1.0;
            int empty = 0;
            for (int d = 0; d < nsp; d++) {
                const int64_t k = p->kernel[d], dil = p->dilation[d];
                start[d] = o[d] * p->stride[d] - p->pad_begin[d];
                lo[d] = start[d] >= 0 ? 0 : (-start[d] + dil - 1) / dil;
                int64_t room = jb->in_sp[d] - 1 - start[d];
                hi[d] = room < 0 ? 0 : room / dil + 1;
                if (hi[d] > k)
                    hi[d] = k;
                if (lo[d] >= hi[d])
                    empty = 1;
                int64_t proom = jb->in_sp[d] + p->pad_end[d] - 1 - start[d];
                int64_t pt = proom < 0 ? 0 : proom / dil + 1;
                padded_taps *= (double)(pt > k ? k : pt);
            }
            double best = kp_lowest(t), sum = 0.0, taps = 0.0;
            int64_t best_off = -1;
            if (!empty) {
                int64_t j[KPOOL_MAX_SPATIAL];
                for (int d = 0; d < nsp; d++)
                    j[d] = lo[d];
                for (;;) {
                    int64_t off = 0;
                    for (int d = 0; d < last; d++)
                        off += (start[d] + j[d] * p->dilation[d]) * jb->ist[d];
                    off += start[last];
                    const int64_t dl = p->dilation[last];
                    for (int64_t jj = lo[last]; jj < hi[last]; jj++) {
                        double v = kp_ld(jb->x, t, xb + off + jj * dl);
                        if (is_max) {
                            /* first maximum wins; a NaN sticks once seen */
                            if (best_off < 0 || (best == best && !(v <= best))) {
                                best = v;
                                best_off = off + jj * dl;
                            }
                        } else {
                            sum += v;
                        }
                    }
                    taps += (double)(hi[last] - lo[last]);
                    int d = last - 1;
                    for (; d >= 0; d--) {
                        if (++j[d] < hi[d])
                            break;
                        j[d] = lo[d];
                    }
                    if (d < 0)
                        break;
                }
            }
            if (is_max) {
                kp_st(jb->y, t, yb + oi, best);
                if (jb->ind)
                    jb->ind[yb + oi] = best_off < 0 ? -1
                                       : xb + (p->storage_order ? kp_col_major(jb, best_off)
                                                                : best_off);
            } else {
                double div = p->count_include_pad ? padded_taps : taps;
                kp_st(jb->y, t, yb + oi, div > 0 ? sum / div : NAN);
            }
            for (int d = last; d >= 0; d--) {
                if (++o[d] < jb->out_sp[d])
                    break;
                o[d] = 0;
            }
        }
    }
}

#define KP_WRAP(NAME, T, MAX) \
    static void NAME(void *c, size_t b, size_t e, int w) { (void)w; kp_planes(c, b, e, T, MAX); }
KP_WRAP(kp_max_f32, CAIRN_F32, 1)
KP_WRAP(kp_max_f64, CAIRN_F64, 1)
KP_WRAP(kp_max_f16, CAIRN_F16, 1)
KP_WRAP(kp_max_bf16, CAIRN_BF16, 1)
KP_WRAP(kp_max_i8, CAIRN_I8, 1)
KP_WRAP(kp_max_u8, CAIRN_U8, 1)
KP_WRAP(kp_avg_f32, CAIRN_F32, 0)
KP_WRAP(kp_avg_f64, CAIRN_F64, 0)
KP_WRAP(kp_avg_f16, CAIRN_F16, 0)
KP_WRAP(kp_avg_bf16, CAIRN_BF16, 0)
#undef KP_WRAP

static cairn_status_t kp_setup(const ktensor_t *x, const ktensor_t *y, const kpool_params_t *p,
                               kp_job_t *jb)
{
    if (x->rank < 3 || p->nsp != x->rank - 2 || y->rank != x->rank)
        return base_error(CAIRN_ERR_SHAPE, "pooling needs (N, C, spatial...) tensors with %d "
                          "spatial dims; got input rank %d, output rank %d",
                          p->nsp, x->rank, y->rank);
    if (y->shape[0] != x->shape[0] || y->shape[1] != x->shape[1])
        return base_error(CAIRN_ERR_SHAPE, "pooling output N, C (%lld, %lld) differ from the "
                          "input's (%lld, %lld)", (long long)y->shape[0], (long long)y->shape[1],
                          (long long)x->shape[0], (long long)x->shape[1]);
    for (int d = 0; d < p->nsp; d++)
        if (p->kernel[d] < 1 || p->stride[d] < 1 || p->dilation[d] < 1 || p->pad_begin[d] < 0 ||
            p->pad_end[d] < 0)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "pooling geometry of spatial dim %d is "
                              "invalid: kernel %lld, stride %lld, dilation %lld, pads %lld/%lld",
                              d, (long long)p->kernel[d], (long long)p->stride[d],
                              (long long)p->dilation[d], (long long)p->pad_begin[d],
                              (long long)p->pad_end[d]);
    jb->x = x->data, jb->y = y->data, jb->ind = NULL, jb->p = p;
    jb->in_plane = jb->out_plane = 1;
    for (int d = p->nsp - 1; d >= 0; d--) {
        jb->in_sp[d] = x->shape[d + 2];
        jb->out_sp[d] = y->shape[d + 2];
        jb->ist[d] = jb->in_plane;
        jb->in_plane *= jb->in_sp[d];
        jb->out_plane *= jb->out_sp[d];
    }
    return CAIRN_OK;
}

static size_t kp_grain(const kp_job_t *jb)
{
    int64_t w = jb->out_plane + jb->in_plane;
    int64_t g = w > 0 ? 32768 / w : 1;
    return (size_t)(g < 1 ? 1 : g);
}

/* f32 2-D max pooling without indices or dilation, where every window has
 * a tap inside x: a plain loop per plane with the window clipped once per
 * output row and column, instead of the general N-d walk in double. Same
 * result bit for bit: the first maximum wins and a NaN sticks. */
static void kp_max2d_f32(void *c, size_t b, size_t e, int w)
{
    (void)w;
    const kp_job_t *jb = c;
    const kpool_params_t *p = jb->p;
    const int64_t H = jb->in_sp[0], W = jb->in_sp[1], OH = jb->out_sp[0], OW = jb->out_sp[1];
    const int64_t kh = p->kernel[0], kw = p->kernel[1], sh = p->stride[0], sw = p->stride[1];
    for (size_t plane = b; plane < e; plane++) {
        const float *x = (const float *)jb->x + (int64_t)plane * jb->in_plane;
        float *y = (float *)jb->y + (int64_t)plane * jb->out_plane;
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t h0 = oh * sh - p->pad_begin[0], h1 = h0 + kh;
            h0 = h0 < 0 ? 0 : h0;
            h1 = h1 > H ? H : h1;
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t w0 = ow * sw - p->pad_begin[1], w1 = w0 + kw;
                w0 = w0 < 0 ? 0 : w0;
                w1 = w1 > W ? W : w1;
                float best = x[h0 * W + w0];
                for (int64_t hh = h0; hh < h1; hh++)
                    for (int64_t ww = (hh == h0 ? w0 + 1 : w0); ww < w1; ww++) {
                        float v = x[hh * W + ww];
                        if (best == best && !(v <= best))
                            best = v;
                    }
                y[oh * OW + ow] = best;
            }
        }
    }
}

/* 8-bit 2-D max pooling (the QOperator form keeps MaxPool on u8 data): per
 * output row the elementwise max of its window's input rows (a loop the
 * compiler vectorises: pmaxub / pmaxsb), then each window's columns of
 * that row, in phases (below). kp_max2d_int_fits: the cases of kp_max2d_fits, rows of at most
 * KP_ROW bytes. ResNet-50's 3x3 / 2 over 64 x 112 x 112 u8: 7.8 ms in the
 * N-D loop, ~0.2 here. */
#define KP_ROW 4096
/* The horizontal windows: the row, its padding columns at the type's
 * minimum (which a max ignores: every window holds at least one element of
 * the plane, kp_max2d_fits), split into sw phases (sw <= KP_MAX_SW) so that
 * the max over a window's kw columns is kw passes over consecutive
 * elements; wider strides take the scalar loop. */
#define KP_MAX_SW 4
#define KP_MAX2D_INT(name, T, TMIN)                                                            \
    static void name(void *c, size_t b, size_t e, int w)                                       \
    {                                                                                          \
        (void)w;                                                                               \
        const kp_job_t *jb = c;                                                                \
        const kpool_params_t *p = jb->p;                                                       \
        const int64_t H = jb->in_sp[0], W = jb->in_sp[1], OH = jb->out_sp[0];                  \
        const int64_t OW = jb->out_sp[1], kh = p->kernel[0], kw = p->kernel[1];                \
        const int64_t sh = p->stride[0], sw = p->stride[1], pw = p->pad_begin[1];              \
        /* columns a row of windows spans, padding included, and a phase's length */           \
        const int64_t span = (OW - 1) * sw + kw, plen = (span + sw - 1) / sw;                  \
        const int vec = sw <= KP_MAX_SW && span <= KP_ROW;                                     \
        T row[KP_ROW], ph[KP_MAX_SW][KP_ROW];                                                  \
        for (size_t plane = b; plane < e; plane++) {                                           \
            const T *x = (const T *)jb->x + (int64_t)plane * jb->in_plane;                     \
            T *y = (T *)jb->y + (int64_t)plane * jb->out_plane;                                \
            for (int64_t oh = 0; oh < OH; oh++) {                                              \
                int64_t h0 = oh * sh - p->pad_begin[0], h1 = h0 + kh;                          \
                h0 = h0 < 0 ? 0 : h0;                                                          \
                h1 = h1 > H ? H : h1;                                                          \
                memcpy(row, x + h0 * W, (size_t)W * sizeof(T));                                \
                for (int64_t hh = h0 + 1; hh < h1; hh++) {                                     \
                    const T *restrict r = x + hh * W;                                          \
                    for (int64_t i = 0; i < W; i++)                                            \
                        row[i] = r[i] > row[i] ? r[i] : row[i];                                \
                }                                                                              \
                T *restrict yo = y + oh * OW;                                                  \
                if (vec) {                                                                     \
                    for (int64_t q = 0; q < sw; q++)                                           \
                        for (int64_t i = 0; i < plen; i++) {                                   \
                            const int64_t col = i * sw + q - pw;                               \
                            ph[q][i] = col >= 0 && col < W ? row[col] : (T)(TMIN);             \
                        }                                                                      \
                    for (int64_t ow = 0; ow < OW; ow++)                                        \
                        yo[ow] = ph[0][ow];                                                    \
                    for (int64_t kx = 1; kx < kw; kx++) {                                      \
                        const T *restrict s = ph[kx % sw] + kx / sw;                           \
                        for (int64_t ow = 0; ow < OW; ow++)                                    \
                            yo[ow] = s[ow] > yo[ow] ? s[ow] : yo[ow];                          \
                    }                                                                          \
                    continue;                                                                  \
                }                                                                              \
                for (int64_t ow = 0; ow < OW; ow++) {                                          \
                    int64_t w0 = ow * sw - pw, w1 = w0 + kw;                                   \
                    w0 = w0 < 0 ? 0 : w0;                                                      \
                    w1 = w1 > W ? W : w1;                                                      \
                    T best = row[w0];                                                          \
                    for (int64_t ww = w0 + 1; ww < w1; ww++)                                   \
                        best = row[ww] > best ? row[ww] : best;                                \
                    yo[ow] = best;                                                             \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }
KP_MAX2D_INT(kp_max2d_u8, uint8_t, 0)
KP_MAX2D_INT(kp_max2d_i8, int8_t, -128)
#undef KP_MAX2D_INT

/* Whether kp_max2d_f32 (for f32) or kp_max2d_u8 / _i8 computes this case
 * (2-D, no indices): every window keeps at least one
 * tap inside x (pads smaller than the window, output sizes that start
 * inside x). */
static int kp_max2d_fits(const ktensor_t *x, const ktensor_t *indices, const kp_job_t *jb)
{
    const kpool_params_t *p = jb->p;
    if (p->nsp != 2 || (indices && indices->data))
        return 0;
    for (int d = 0; d < 2; d++) {
        if (p->dilation[d] != 1 || p->pad_begin[d] >= p->kernel[d] || jb->in_sp[d] < 1)
            return 0;
        /* the last window must start inside x */
        if ((jb->out_sp[d] - 1) * p->stride[d] - p->pad_begin[d] >= jb->in_sp[d])
            return 0;
    }
    return 1;
}

cairn_status_t kpool_max(const ktensor_t *x, ktensor_t *y, ktensor_t *indices,
                         const kpool_params_t *p, const kctx_t *k)
{
    kp_job_t jb;
    BASE_TRY(kp_setup(x, y, p, &jb));
    base_task_1d_fn fn;
    switch (x->dtype) {
    case CAIRN_F32: fn = kp_max_f32; break;
    case CAIRN_F64: fn = kp_max_f64; break;
    case CAIRN_F16: fn = kp_max_f16; break;
    case CAIRN_BF16: fn = kp_max_bf16; break;
    case CAIRN_I8: fn = kp_max_i8; break;
    case CAIRN_U8: fn = kp_max_u8; break;
    default:
        return base_error(CAIRN_ERR_DTYPE, "max pooling does not support element type %s",
                          cairn_dtype_name(x->dtype));
    }
    if (indices && indices->data) {
        if (indices->dtype != CAIRN_I64)
            return base_error(CAIRN_ERR_DTYPE, "max pooling indices must be i64, got %s",
                              cairn_dtype_name(indices->dtype));
        jb.ind = indices->data;
    }
    /* f32 2-D without indices: the vector kernels (fast.c) when the ISA
     * level allows, else the scalar 2-D loop */
    if (kpool_max_f32_fast(NULL, x, y, indices, p, k))
        return CAIRN_OK;
    if (kp_max2d_fits(x, indices, &jb)) {
        /* 8-bit: the AVX2 rows (fast.c) where the CPU and geometry allow */
        if (kpool_max_8bit_fast(x, y, p, k))
            return CAIRN_OK;
        if (x->dtype == CAIRN_F32)
            fn = kp_max2d_f32;
        else if (x->dtype == CAIRN_U8 && jb.in_sp[1] <= KP_ROW)
            fn = kp_max2d_u8;
        else if (x->dtype == CAIRN_I8 && jb.in_sp[1] <= KP_ROW)
            fn = kp_max2d_i8;
    }
    int64_t planes = x->shape[0] * x->shape[1];
    if (planes > 0 && jb.out_plane > 0)
        base_pool_parallel_for_1d(k ? k->pool : NULL, (size_t)planes, kp_grain(&jb), fn, &jb);
    return CAIRN_OK;
}

cairn_status_t kpool_avg(const ktensor_t *x, ktensor_t *y, const kpool_params_t *p,
                         const kctx_t *k)
{
    kp_job_t jb;
    BASE_TRY(kp_setup(x, y, p, &jb));
    base_task_1d_fn fn;
    switch (x->dtype) {
    case CAIRN_F32: fn = kp_avg_f32; break;
    case CAIRN_F64: fn = kp_avg_f64; break;
    case CAIRN_F16: fn = kp_avg_f16; break;
    case CAIRN_BF16: fn = kp_avg_bf16; break;
    default:
        return base_error(CAIRN_ERR_DTYPE, "average pooling does not support element type %s",
                          cairn_dtype_name(x->dtype));
    }
    if (kpool_avg_f32_fast(NULL, x, y, p, k))
        return CAIRN_OK;
    int64_t planes = x->shape[0] * x->shape[1];
    if (planes > 0 && jb.out_plane > 0)
        base_pool_parallel_for_1d(k ? k->pool : NULL, (size_t)planes, kp_grain(&jb), fn, &jb);
    return CAIRN_OK;
}
