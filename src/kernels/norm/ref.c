/*
 * Reference normalisation kernels (see norm.h).
 *
 * Precision: every kernel here computes in double whatever the storage type
 * (f32, f64, f16, bf16): softmax subtracts the row maximum, then sums the
 * exponentials in double; the norms use a two-pass mean/variance in double
 * (mean first, then the mean of squared deviations), which does not suffer
 * the cancellation of the one-pass E[x^2] - E[x]^2 form; RMS norm needs only
 * the sum of squares, a sum of non-negative terms (no cancellation either).
 * Results are rounded to the storage type once, at the store.
 *
 * Each kernel body is written once over a dtype argument and forced inline
 * into per-dtype wrappers, so the dtype switch in the loads and stores is
 * resolved at compile time instead of per element. Work is split over
 * independent rows / (n, c) planes with the kctx thread pool.
 */
#include "kernels/norm/norm.h"

#include "base/dtype.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define KN_INLINE static inline __attribute__((always_inline))
#else
#define KN_INLINE static inline
#endif

KN_INLINE double kn_ld(const void *p, cairn_dtype_t t, int64_t i)
{
    switch (t) {
    case CAIRN_F32: return ((const float *)p)[i];
    case CAIRN_F64: return ((const double *)p)[i];
    case CAIRN_F16: return base_f16_to_f32(((const uint16_t *)p)[i]);
    case CAIRN_BF16: return base_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return 0.0;
    }
}

KN_INLINE void kn_st(void *p, cairn_dtype_t t, int64_t i, double v)
{
    switch (t) {
    case CAIRN_F32: ((float *)p)[i] = (float)v; break;
    case CAIRN_F64: ((double *)p)[i] = v; break;
    case CAIRN_F16: ((uint16_t *)p)[i] = base_f32_to_f16((float)v); break;
    case CAIRN_BF16: ((uint16_t *)p)[i] = base_f32_to_bf16((float)v); break;
    default: break;
    }
}

static int kn_float_dtype(cairn_dtype_t t)
{
    return t == CAIRN_F32 || t == CAIRN_F64 || t == CAIRN_F16 || t == CAIRN_BF16;
}

static base_pool_t *kn_pool(const kctx_t *k) { return k ? k->pool : NULL; }

/* Items per task so one task does roughly 32k elements of work. */
static size_t kn_grain(int64_t work_per_item)
{
    int64_t g = work_per_item > 0 ? 32768 / work_per_item : 32768;
    return (size_t)(g < 1 ? 1 : g);
}

static cairn_status_t kn_bad_dtype(const char *what, cairn_dtype_t t)
{
    return base_error(CAIRN_ERR_DTYPE, "%s: element type %s is not supported (need f32, f64, f16 "
                      "or bf16)", what, cairn_dtype_name(t));
}

/* ---- softmax ---- */

typedef struct kn_softmax_job {
    const void *x;
    void *y;
    int64_t len, inner; /* axis length; stride between axis neighbours */
    int log_mode;
} kn_softmax_job_t;

KN_INLINE void kn_softmax_lines(const kn_softmax_job_t *j, size_t b, size_t e, cairn_dtype_t t)
{
    const int64_t len = j->len, inner = j->inner;
    for (size_t line = b; line < e; line++) {
        int64_t o = (int64_t)line / inner, i = (int64_t)line % inner;
        int64_t base = o * len * inner + i;
        /* NaN never wins the max, but still reaches the sum and so every
         * output of its line, as it should */
        double m = -INFINITY;
        for (int64_t a = 0; a < len; a++) {
            double v = kn_ld(j->x, t, base + a * inner);
            if (v > m)
                m = v;
        }
        if (m == -INFINITY) /* all -inf: the exps below are exp(-inf - 0) */
            m = 0.0;
        double sum = 0.0;
        for (int64_t a = 0; a < len; a++)
            sum += exp(kn_ld(j->x, t, base + a * inner) - m);
        if (j->log_mode) {
            double shift = m + log(sum);
            for (int64_t a = 0; a < len; a++)
                kn_st(j->y, t, base + a * inner, kn_ld(j->x, t, base + a * inner) - shift);
        } else {
            double inv = 1.0 / sum;
            for (int64_t a = 0; a < len; a++)
                kn_st(j->y, t, base + a * inner, exp(kn_ld(j->x, t, base + a * inner) - m) * inv);
        }
    }
}

static void kn_softmax_f32(void *c, size_t b, size_t e, int w) { (void)w; kn_softmax_lines(c, b, e, CAIRN_F32); }
static void kn_softmax_f64(void *c, size_t b, size_t e, int w) { (void)w; kn_softmax_lines(c, b, e, CAIRN_F64); }
static void kn_softmax_f16(void *c, size_t b, size_t e, int w) { (void)w; kn_softmax_lines(c, b, e, CAIRN_F16); }
static void kn_softmax_bf16(void *c, size_t b, size_t e, int w) { (void)w; kn_softmax_lines(c, b, e, CAIRN_BF16); }

cairn_status_t knorm_softmax(const ktensor_t *x, ktensor_t *y, int axis, int log_softmax,
                             const kctx_t *k)
{
    if (axis < 0 || axis >= x->rank)
        return base_error(CAIRN_ERR_SHAPE, "softmax axis %d is out of range for rank %d", axis,
                          x->rank);
    base_task_1d_fn fn;
    switch (x->dtype) {
    case CAIRN_F32: fn = kn_softmax_f32; break;
    case CAIRN_F64: fn = kn_softmax_f64; break;
    case CAIRN_F16: fn = kn_softmax_f16; break;
    case CAIRN_BF16: fn = kn_softmax_bf16; break;
    default: return kn_bad_dtype("softmax", x->dtype);
    }
    kn_softmax_job_t j = {x->data, y->data, x->shape[axis], 1, log_softmax};
    int64_t outer = 1;
    for (int d = 0; d < axis; d++)
        outer *= x->shape[d];
    for (int d = axis + 1; d < x->rank; d++)
        j.inner *= x->shape[d];
    int64_t lines = outer * j.inner;
    if (lines == 0 || j.len == 0)
        return CAIRN_OK;
    base_pool_parallel_for_1d(kn_pool(k), (size_t)lines, kn_grain(3 * j.len), fn, &j);
    return CAIRN_OK;
}

/* ---- layer normalisation ---- */

typedef struct kn_layer_job {
    const void *x;
    void *y, *mean, *isd;
    cairn_dtype_t mean_t, isd_t;
    int64_t d;             /* elements per row */
    const double *sc, *bi; /* scale and bias expanded to d elements */
    double eps;
} kn_layer_job_t;

KN_INLINE void kn_layer_rows(const kn_layer_job_t *j, size_t b, size_t e, cairn_dtype_t t)
{
    const int64_t d = j->d;
    for (size_t r = b; r < e; r++) {
        int64_t base = (int64_t)r * d;
        double mu, inv;
        if (d == 0) {
            mu = NAN, inv = NAN;
        } else {
            double s = 0.0;
            for (int64_t i = 0; i < d; i++)
                s += kn_ld(j->x, t, base + i);
            mu = s / (double)d;
            double ss = 0.0;
            for (int64_t i = 0; i < d; i++) {
                double dv = kn_ld(j->x, t, base + i) - mu;
                ss += dv * dv;
            }
            inv = 1.0 / sqrt(ss / (double)d + j->eps);
            for (int64_t i = 0; i < d; i++)
                kn_st(j->y, t, base + i,
                      (kn_ld(j->x, t, base + i) - mu) * inv * j->sc[i] + j->bi[i]);
        }
        if (j->mean)
            kn_st(j->mean, j->mean_t, (int64_t)r, mu);
        if (j->isd)
            kn_st(j->isd, j->isd_t, (int64_t)r, inv);
    }
}

static void kn_layer_f32(void *c, size_t b, size_t e, int w) { (void)w; kn_layer_rows(c, b, e, CAIRN_F32); }
static void kn_layer_f64(void *c, size_t b, size_t e, int w) { (void)w; kn_layer_rows(c, b, e, CAIRN_F64); }
static void kn_layer_f16(void *c, size_t b, size_t e, int w) { (void)w; kn_layer_rows(c, b, e, CAIRN_F16); }
static void kn_layer_bf16(void *c, size_t b, size_t e, int w) { (void)w; kn_layer_rows(c, b, e, CAIRN_BF16); }

size_t knorm_layernorm_ws_bytes(const ktensor_t *x, int axis)
{
    int64_t d = 1;
    for (int i = axis < 0 ? 0 : axis; i < x->rank; i++)
        d *= x->shape[i];
    return 2 * (size_t)d * sizeof(double);
}

/* Expands a parameter tensor that broadcasts to dims[0..nd) into d doubles
 * (missing: fill with `fill`). */
static cairn_status_t kn_expand(const ktensor_t *t, const int64_t *dims, int nd, int64_t d,
                                double fill, double *outp, const char *what)
{
    if (!t || t->dtype == CAIRN_DTYPE_UNDEFINED) {
        for (int64_t i = 0; i < d; i++)
            outp[i] = fill;
        return CAIRN_OK;
    }
    if (!kn_float_dtype(t->dtype))
        return kn_bad_dtype(what, t->dtype);
    if (t->rank > nd)
        return base_error(CAIRN_ERR_SHAPE, "%s has rank %d, more than the %d normalised dims",
                          what, t->rank, nd);
    for (int i = 0; i < t->rank; i++) {
        int64_t want = dims[nd - t->rank + i];
        if (t->shape[i] != 1 && t->shape[i] != want)
            return base_error(CAIRN_ERR_SHAPE, "%s dim %d is %lld; it must be 1 or %lld", what, i,
                              (long long)t->shape[i], (long long)want);
    }
    int64_t st[CAIRN_MAX_RANK];
    ktensor_t shp = *t;
    kt_broadcast_strides(&shp, nd, st);
    int64_t idx[CAIRN_MAX_RANK] = {0};
    for (int64_t i = 0; i < d; i++) {
        int64_t off = 0;
        for (int a = 0; a < nd; a++)
            off += idx[a] * st[a];
        outp[i] = kn_ld(t->data, t->dtype, off);
        for (int a = nd - 1; a >= 0; a--) {
            if (++idx[a] < dims[a])
                break;
            idx[a] = 0;
        }
    }
    return CAIRN_OK;
}

cairn_status_t knorm_layernorm(const ktensor_t *x, const ktensor_t *scale, const ktensor_t *bias,
                               ktensor_t *y, ktensor_t *mean, ktensor_t *inv_std_dev,
                               const knorm_layer_params_t *p, void *ws, const kctx_t *k)
{
    if (p->axis < 0 || p->axis >= x->rank)
        return base_error(CAIRN_ERR_SHAPE, "layer norm axis %d is out of range for rank %d",
                          p->axis, x->rank);
    base_task_1d_fn fn;
    switch (x->dtype) {
    case CAIRN_F32: fn = kn_layer_f32; break;
    case CAIRN_F64: fn = kn_layer_f64; break;
    case CAIRN_F16: fn = kn_layer_f16; break;
    case CAIRN_BF16: fn = kn_layer_bf16; break;
    default: return kn_bad_dtype("layer norm", x->dtype);
    }
    if (!scale || scale->dtype == CAIRN_DTYPE_UNDEFINED)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "layer norm needs a scale tensor");
    int64_t rows = 1, d = 1;
    for (int i = 0; i < p->axis; i++)
        rows *= x->shape[i];
    for (int i = p->axis; i < x->rank; i++)
        d *= x->shape[i];
    const int nd = x->rank - p->axis;
    double *sc = ws, *bi = sc + d;
    BASE_TRY(kn_expand(scale, x->shape + p->axis, nd, d, 1.0, sc, "scale"));
    BASE_TRY(kn_expand(bias, x->shape + p->axis, nd, d, 0.0, bi, "bias"));
    kn_layer_job_t j = {x->data, y->data, NULL, NULL, CAIRN_F32, CAIRN_F32, d, sc, bi,
                        p->epsilon};
    if (mean && mean->data) {
        if (mean->dtype != CAIRN_F32 && mean->dtype != CAIRN_BF16 && mean->dtype != CAIRN_F64)
            return kn_bad_dtype("layer norm mean", mean->dtype);
        j.mean = mean->data, j.mean_t = mean->dtype;
    }
    if (inv_std_dev && inv_std_dev->data) {
        if (inv_std_dev->dtype != CAIRN_F32 && inv_std_dev->dtype != CAIRN_BF16 &&
            inv_std_dev->dtype != CAIRN_F64)
            return kn_bad_dtype("layer norm inv_std_dev", inv_std_dev->dtype);
        j.isd = inv_std_dev->data, j.isd_t = inv_std_dev->dtype;
    }
    if (rows > 0)
        base_pool_parallel_for_1d(kn_pool(k), (size_t)rows, kn_grain(3 * d), fn, &j);
    return CAIRN_OK;
}

/* ---- RMS normalisation ---- */

typedef struct kn_rms_job {
    const void *x;
    void *y;
    int64_t d;         /* elements per row */
    const double *sc;  /* scale expanded to d elements */
    double eps;
} kn_rms_job_t;

KN_INLINE void kn_rms_rows(const kn_rms_job_t *j, size_t b, size_t e, cairn_dtype_t t)
{
    const int64_t d = j->d;
    for (size_t r = b; r < e; r++) {
        int64_t base = (int64_t)r * d;
        double ss = 0.0; /* sum of squares in double: no overflow or loss for float data */
        for (int64_t i = 0; i < d; i++) {
            double v = kn_ld(j->x, t, base + i);
            ss += v * v;
        }
        double inv = 1.0 / sqrt(ss / (double)d + j->eps);
        for (int64_t i = 0; i < d; i++)
            kn_st(j->y, t, base + i, kn_ld(j->x, t, base + i) * inv * j->sc[i]);
    }
}

static void kn_rms_f32(void *c, size_t b, size_t e, int w) { (void)w; kn_rms_rows(c, b, e, CAIRN_F32); }
static void kn_rms_f64(void *c, size_t b, size_t e, int w) { (void)w; kn_rms_rows(c, b, e, CAIRN_F64); }
static void kn_rms_f16(void *c, size_t b, size_t e, int w) { (void)w; kn_rms_rows(c, b, e, CAIRN_F16); }
static void kn_rms_bf16(void *c, size_t b, size_t e, int w) { (void)w; kn_rms_rows(c, b, e, CAIRN_BF16); }

size_t knorm_rmsnorm_ws_bytes(const ktensor_t *x, int axis)
{
    int64_t d = 1;
    for (int i = axis < 0 ? 0 : axis; i < x->rank; i++)
        d *= x->shape[i];
    return (size_t)d * sizeof(double);
}

cairn_status_t knorm_rmsnorm(const ktensor_t *x, const ktensor_t *scale, ktensor_t *y,
                             const knorm_layer_params_t *p, void *ws, const kctx_t *k)
{
    if (p->axis < 0 || p->axis >= x->rank)
        return base_error(CAIRN_ERR_SHAPE, "RMS norm axis %d is out of range for rank %d",
                          p->axis, x->rank);
    base_task_1d_fn fn;
    switch (x->dtype) {
    case CAIRN_F32: fn = kn_rms_f32; break;
    case CAIRN_F64: fn = kn_rms_f64; break;
    case CAIRN_F16: fn = kn_rms_f16; break;
    case CAIRN_BF16: fn = kn_rms_bf16; break;
    default: return kn_bad_dtype("RMS norm", x->dtype);
    }
    if (!scale || scale->dtype == CAIRN_DTYPE_UNDEFINED)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "RMS norm needs a scale tensor");
    int64_t rows = 1, d = 1;
    for (int i = 0; i < p->axis; i++)
        rows *= x->shape[i];
    for (int i = p->axis; i < x->rank; i++)
        d *= x->shape[i];
    if (rows == 0 || d == 0)
        return CAIRN_OK; /* no elements */
    double *sc = ws;
    BASE_TRY(kn_expand(scale, x->shape + p->axis, x->rank - p->axis, d, 1.0, sc, "scale"));
    kn_rms_job_t j = {x->data, y->data, d, sc, p->epsilon};
    base_pool_parallel_for_1d(kn_pool(k), (size_t)rows, kn_grain(2 * d), fn, &j);
    return CAIRN_OK;
}

/* ---- batch / instance normalisation over (n, c) planes ---- */

typedef struct kn_plane_job {
    const void *x;
    void *y;
    int64_t c, plane;     /* channels; elements per (n, c) plane */
    const double *a, *b; /* batch norm: y = x * a[c] + b[c] */
    const ktensor_t *scale, *bias; /* instance norm */
    double eps;
} kn_plane_job_t;

KN_INLINE void kn_batch_planes(const kn_plane_job_t *j, size_t b, size_t e, cairn_dtype_t t)
{
    for (size_t pl = b; pl < e; pl++) {
        int64_t c = (int64_t)pl % j->c, base = (int64_t)pl * j->plane;
        double a = j->a[c], s = j->b[c];
        for (int64_t i = 0; i < j->plane; i++)
            kn_st(j->y, t, base + i, kn_ld(j->x, t, base + i) * a + s);
    }
}

KN_INLINE void kn_inst_planes(const kn_plane_job_t *j, size_t b, size_t e, cairn_dtype_t t)
{
    const int64_t n = j->plane;
    for (size_t pl = b; pl < e; pl++) {
        int64_t c = (int64_t)pl % j->c, base = (int64_t)pl * n;
        double s = 0.0;
        for (int64_t i = 0; i < n; i++)
            s += kn_ld(j->x, t, base + i);
        double mu = s / (double)n, ss = 0.0;
        for (int64_t i = 0; i < n; i++) {
            double dv = kn_ld(j->x, t, base + i) - mu;
            ss += dv * dv;
        }
        double a = kn_ld(j->scale->data, j->scale->dtype, c) / sqrt(ss / (double)n + j->eps);
        double sh = kn_ld(j->bias->data, j->bias->dtype, c);
        for (int64_t i = 0; i < n; i++)
            kn_st(j->y, t, base + i, (kn_ld(j->x, t, base + i) - mu) * a + sh);
    }
}

static void kn_batch_f32(void *c, size_t b, size_t e, int w) { (void)w; kn_batch_planes(c, b, e, CAIRN_F32); }
static void kn_batch_f64(void *c, size_t b, size_t e, int w) { (void)w; kn_batch_planes(c, b, e, CAIRN_F64); }
static void kn_batch_f16(void *c, size_t b, size_t e, int w) { (void)w; kn_batch_planes(c, b, e, CAIRN_F16); }
static void kn_batch_bf16(void *c, size_t b, size_t e, int w) { (void)w; kn_batch_planes(c, b, e, CAIRN_BF16); }
static void kn_inst_f32(void *c, size_t b, size_t e, int w) { (void)w; kn_inst_planes(c, b, e, CAIRN_F32); }
static void kn_inst_f64(void *c, size_t b, size_t e, int w) { (void)w; kn_inst_planes(c, b, e, CAIRN_F64); }
static void kn_inst_f16(void *c, size_t b, size_t e, int w) { (void)w; kn_inst_planes(c, b, e, CAIRN_F16); }
static void kn_inst_bf16(void *c, size_t b, size_t e, int w) { (void)w; kn_inst_planes(c, b, e, CAIRN_BF16); }

/* Checks x is (N, C, ...) and each parameter is a float vector of C. */
static cairn_status_t kn_check_channels(const char *op, const ktensor_t *x,
                                        const ktensor_t *const *params, const char *const *names,
                                        int n_params)
{
    if (x->rank < 2)
        return base_error(CAIRN_ERR_SHAPE, "%s needs an input of rank >= 2 (N, C, ...), got rank %d",
                          op, x->rank);
    for (int i = 0; i < n_params; i++) {
        const ktensor_t *t = params[i];
        if (!t || !kn_float_dtype(t->dtype))
            return kn_bad_dtype(names[i], t ? t->dtype : CAIRN_DTYPE_UNDEFINED);
        if (kt_numel(t) != x->shape[1])
            return base_error(CAIRN_ERR_SHAPE, "%s: %s has %lld elements, need C = %lld", op,
                              names[i], (long long)kt_numel(t), (long long)x->shape[1]);
    }
    return CAIRN_OK;
}

size_t knorm_batchnorm_ws_bytes(const ktensor_t *x)
{
    return x->rank >= 2 ? 2 * (size_t)x->shape[1] * sizeof(double) : 0;
}

cairn_status_t knorm_batchnorm(const ktensor_t *x, const ktensor_t *scale, const ktensor_t *bias,
                               const ktensor_t *mean, const ktensor_t *var, ktensor_t *y,
                               double epsilon, void *ws, const kctx_t *k)
{
    const ktensor_t *params[4] = {scale, bias, mean, var};
    const char *names[4] = {"scale", "B", "input_mean", "input_var"};
    BASE_TRY(kn_check_channels("batch norm", x, params, names, 4));
    base_task_1d_fn fn;
    switch (x->dtype) {
    case CAIRN_F32: fn = kn_batch_f32; break;
    case CAIRN_F64: fn = kn_batch_f64; break;
    case CAIRN_F16: fn = kn_batch_f16; break;
    case CAIRN_BF16: fn = kn_batch_bf16; break;
    default: return kn_bad_dtype("batch norm", x->dtype);
    }
    const int64_t c = x->shape[1];
    double *a = ws, *b = a + c;
    /* fold the four parameters into one multiply-add per element */
    for (int64_t i = 0; i < c; i++) {
        a[i] = kn_ld(scale->data, scale->dtype, i) /
               sqrt(kn_ld(var->data, var->dtype, i) + epsilon);
        b[i] = kn_ld(bias->data, bias->dtype, i) - kn_ld(mean->data, mean->dtype, i) * a[i];
    }
    kn_plane_job_t j = {x->data, y->data, c, 1, a, b, NULL, NULL, epsilon};
    for (int d = 2; d < x->rank; d++)
        j.plane *= x->shape[d];
    int64_t planes = x->shape[0] * c;
    if (planes > 0 && j.plane > 0)
        base_pool_parallel_for_1d(kn_pool(k), (size_t)planes, kn_grain(j.plane), fn, &j);
    return CAIRN_OK;
}

cairn_status_t knorm_instancenorm(const ktensor_t *x, const ktensor_t *scale,
                                  const ktensor_t *bias, ktensor_t *y, double epsilon,
                                  const kctx_t *k)
{
    const ktensor_t *params[2] = {scale, bias};
    const char *names[2] = {"scale", "B"};
    BASE_TRY(kn_check_channels("instance norm", x, params, names, 2));
    base_task_1d_fn fn;
    switch (x->dtype) {
    case CAIRN_F32: fn = kn_inst_f32; break;
    case CAIRN_F64: fn = kn_inst_f64; break;
    case CAIRN_F16: fn = kn_inst_f16; break;
    case CAIRN_BF16: fn = kn_inst_bf16; break;
    default: return kn_bad_dtype("instance norm", x->dtype);
    }
    kn_plane_job_t j = {x->data, y->data, x->shape[1], 1, NULL, NULL, scale, bias, epsilon};
    for (int d = 2; d < x->rank; d++)
        j.plane *= x->shape[d];
    int64_t planes = x->shape[0] * x->shape[1];
    if (planes > 0 && j.plane > 0)
        base_pool_parallel_for_1d(kn_pool(k), (size_t)planes, kn_grain(3 * j.plane), fn, &j);
    return CAIRN_OK;
}
