/*
 * Direct-loop reference Conv and ConvTranspose: no workspace, no im2col,
 * one output element at a time, parallel over (batch, output channel)
 * planes. Products are accumulated in double for every float type, so the
 * only rounding a user sees is the final store; that makes these kernels
 * usable as oracles for faster convolutions.
 */
#include "kernels/conv/conv.h"

#include "base/dtype.h"

typedef uint16_t f16_t;
typedef uint16_t bf16_t;

static inline double ld_float(float v) { return v; }
static inline double ld_double(double v) { return v; }
static inline double ld_f16_t(f16_t v) { return base_f16_to_f32(v); }
static inline double ld_bf16_t(bf16_t v) { return base_bf16_to_f32(v); }
static inline float st_float(double v) { return (float)v; }
static inline double st_double(double v) { return v; }
static inline f16_t st_f16_t(double v) { return base_f32_to_f16((float)v); }
static inline bf16_t st_bf16_t(double v) { return base_f32_to_bf16((float)v); }

typedef struct conv_job {
    const conv_params_t *p;
    const void *X, *W, *B;
    void *Y;
} conv_job_t;

#define DEFINE_CONV(T)                                                                        \
    static void conv_planes_##T(void *ctx, size_t begin, size_t end, int worker)              \
    {                                                                                         \
        (void)worker;                                                                         \
        const conv_job_t *j = ctx;                                                            \
        const conv_params_t *p = j->p;                                                        \
        const T *X = j->X, *W = j->W, *B = j->B;                                              \
        T *Y = j->Y;                                                                          \
        const int64_t cg = p->C / p->group, mg = p->M / p->group;                             \
        const int64_t in_sz = p->in[0] * p->in[1] * p->in[2];                                 \
        const int64_t out_sz = p->out[0] * p->out[1] * p->out[2];                             \
        const int64_t k_sz = p->kernel[0] * p->kernel[1] * p->kernel[2];                      \
        for (size_t plane = begin; plane < end; plane++) {                                    \
            const int64_t n = (int64_t)plane / p->M, m = (int64_t)plane % p->M;               \
            const int64_t g = m / mg;                                                         \
            const double bias = B ? ld_##T(B[m]) : 0.0;                                       \
            T *y = Y + (int64_t)plane * out_sz;                                               \
            for (int64_t o0 = 0; o0 < p->out[0]; o0++)                                        \
                for (int64_t o1 = 0; o1 < p->out[1]; o1++)                                    \
                    for (int64_t o2 = 0; o2 < p->out[2]; o2++) {                              \
                        double acc = bias;                                                    \
                        for (int64_t c = 0; c < cg; c++) {                                    \
                            const T *x = X + (n * p->C + g * cg + c) * in_sz;                 \
                            const T *w = W + (m * cg + c) * k_sz;                             \
                            for (int64_t k0 = 0; k0 < p->kernel[0]; k0++) {                   \
                                int64_t i0 = o0 * p->stride[0] - p->pad[0] + k0 * p->dilation[0]; \
                                if (i0 < 0 || i0 >= p->in[0])                                 \
                                    continue;                                                 \
                                for (int64_t k1 = 0; k1 < p->kernel[1]; k1++) {               \
                                    int64_t i1 = o1 * p->stride[1] - p->pad[1] + k1 * p->dilation[1]; \
                                    if (i1 < 0 || i1 >= p->in[1])                             \
                                        continue;                                             \
                                    const T *xr = x + (i0 * p->in[1] + i1) * p->in[2];        \
                                    const T *wr = w + (k0 * p->kernel[1] + k1) * p->kernel[2]; \
                                    for (int64_t k2 = 0; k2 < p->kernel[2]; k2++) {           \
                                        int64_t i2 = o2 * p->stride[2] - p->pad[2] + k2 * p->dilation[2]; \
                                        if (i2 >= 0 && i2 < p->in[2])                         \
                                            acc += ld_##T(xr[i2]) * ld_##T(wr[k2]);           \
                                    }                                                         \
                                }                                                             \
                            }                                                                 \
                        }                                                                     \
                        y[(o0 * p->out[1] + o1) * p->out[2] + o2] = st_##T(acc);              \
                    }                                                                         \
        }                                                                                     \
    }                                                                                         \
                                                                                              \
    static void convt_planes_##T(void *ctx, size_t begin, size_t end, int worker)             \
    {                                                                                         \
        (void)worker;                                                                         \
        const conv_job_t *j = ctx;                                                            \
        const conv_params_t *p = j->p;                                                        \
        const T *X = j->X, *W = j->W, *B = j->B;                                              \
        T *Y = j->Y;                                                                          \
        const int64_t cg = p->C / p->group, mg = p->M / p->group;                             \
        const int64_t in_sz = p->in[0] * p->in[1] * p->in[2];                                 \
        const int64_t out_sz = p->out[0] * p->out[1] * p->out[2];                             \
        const int64_t k_sz = p->kernel[0] * p->kernel[1] * p->kernel[2];                      \
        for (size_t plane = begin; plane < end; plane++) {                                    \
            const int64_t n = (int64_t)plane / p->M, m = (int64_t)plane % p->M;               \
            const int64_t g = m / mg, ml = m % mg;                                            \
            const double bias = B ? ld_##T(B[m]) : 0.0;                                       \
            T *y = Y + (int64_t)plane * out_sz;                                               \
            for (int64_t o0 = 0; o0 < p->out[0]; o0++)                                        \
                for (int64_t o1 = 0; o1 < p->out[1]; o1++)                                    \
                    for (int64_t o2 = 0; o2 < p->out[2]; o2++) {                              \
                        double acc = bias;                                                    \
                        for (int64_t c = 0; c < cg; c++) {                                    \
                            const int64_t ch = g * cg + c;                                    \
                            const T *x = X + (n * p->C + ch) * in_sz;                         \
                            const T *w = W + (ch * mg + ml) * k_sz;                           \
                            for (int64_t k0 = 0; k0 < p->kernel[0]; k0++) {                   \
                                int64_t t0 = o0 + p->pad[0] - k0 * p->dilation[0];            \
                                if (t0 < 0 || t0 % p->stride[0] || t0 / p->stride[0] >= p->in[0]) \
                                    continue;                                                 \
                                const int64_t i0 = t0 / p->stride[0];                         \
                                for (int64_t k1 = 0; k1 < p->kernel[1]; k1++) {               \
                                    int64_t t1 = o1 + p->pad[1] - k1 * p->dilation[1];        \
                                    if (t1 < 0 || t1 % p->stride[1] || t1 / p->stride[1] >= p->in[1]) \
                                        continue;                                             \
                                    const int64_t i1 = t1 / p->stride[1];                     \
                                    const T *xr = x + (i0 * p->in[1] + i1) * p->in[2];        \
                                    const T *wr = w + (k0 * p->kernel[1] + k1) * p->kernel[2]; \
                                    for (int64_t k2 = 0; k2 < p->kernel[2]; k2++) {           \
                                        int64_t t2 = o2 + p->pad[2] - k2 * p->dilation[2];    \
                                        if (t2 < 0 || t2 % p->stride[2] ||                    \
                                            t2 / p->stride[2] >= p->in[2])                    \
                                            continue;                                         \
                                        acc += ld_##T(xr[t2 / p->stride[2]]) * ld_##T(wr[k2]); \
                                    }                                                         \
                                }                                                             \
                            }                                                                 \
                        }                                                                     \
                        y[(o0 * p->out[1] + o1) * p->out[2] + o2] = st_##T(acc);              \
                    }                                                                         \
        }                                                                                     \
    }

DEFINE_CONV(float)
DEFINE_CONV(double)
DEFINE_CONV(f16_t)
DEFINE_CONV(bf16_t)

static cairn_status_t run(const kctx_t *k, cairn_dtype_t t, const conv_params_t *p, int transpose,
                          const void *X, const void *W, const void *B, void *Y)
{
    base_task_1d_fn fn;
    switch (t) {
    case CAIRN_F32: fn = transpose ? convt_planes_float : conv_planes_float; break;
    case CAIRN_F64: fn = transpose ? convt_planes_double : conv_planes_double; break;
    case CAIRN_F16: fn = transpose ? convt_planes_f16_t : conv_planes_f16_t; break;
    case CAIRN_BF16: fn = transpose ? convt_planes_bf16_t : conv_planes_bf16_t; break;
    default:
        return base_error(CAIRN_ERR_DTYPE, "conv_ref: no kernel for %s", cairn_dtype_name(t));
    }
    if (p->group < 1 || p->C % p->group || p->M % p->group)
        return base_error(CAIRN_ERR_SHAPE, "conv_ref: channels %lld -> %lld not divisible by group %lld",
                          (long long)p->C, (long long)p->M, (long long)p->group);
    for (int d = 0; d < CONV_SP; d++)
        if (p->stride[d] < 1 || p->dilation[d] < 1)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "conv_ref: stride and dilation must be >= 1");
    conv_job_t j = {p, X, W, B, Y};
    int64_t planes = p->N * p->M;
    /* work per plane: output size times reduction size */
    int64_t per = p->out[0] * p->out[1] * p->out[2] * (p->C / p->group) * p->kernel[0] *
                  p->kernel[1] * p->kernel[2];
    base_pool_t *pool = k ? k->pool : NULL;
    if (planes * (per > 0 ? per : 1) < 65536)
        pool = NULL;
    base_pool_parallel_for_1d(pool, (size_t)planes, 1, fn, &j);
    return CAIRN_OK;
}

cairn_status_t conv_ref(const kctx_t *k, cairn_dtype_t t, const conv_params_t *p, const void *X,
                        const void *W, const void *B, void *Y)
{
    return run(k, t, p, 0, X, W, B, Y);
}

cairn_status_t conv_transpose_ref(const kctx_t *k, cairn_dtype_t t, const conv_params_t *p,
                                  const void *X, const void *W, const void *B, void *Y)
{
    return run(k, t, p, 1, X, W, B, Y);
}
