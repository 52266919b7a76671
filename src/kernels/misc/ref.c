/*
 * Reference kernels of the misc family (see misc.h). Floating math is done
 * in double and rounded once into the output type: the loss and
 * normalisation sums then stay accurate for f32 inputs of any length the
 * suite uses, and f16/bf16 need no separate path. Movement-like kernels
 * (Trilu, EyeLike, OneHot, Compress) copy element bytes and so serve every
 * dtype; an all-zero byte pattern is zero in every cairn dtype.
 */
#include "kernels/misc/misc.h"

#include "base/dtype.h"

#include <math.h>
#include <string.h>

static inline double ld(const void *p, cairn_dtype_t t, int64_t i)
{
    switch (t) {
    case CAIRN_F32: return ((const float *)p)[i];
    case CAIRN_F64: return ((const double *)p)[i];
    case CAIRN_F16: return base_f16_to_f32(((const uint16_t *)p)[i]);
    case CAIRN_BF16: return base_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return base_load_as_double(p, t, i);
    }
}

static inline void st(void *p, cairn_dtype_t t, int64_t i, double v)
{
    switch (t) {
    case CAIRN_F32: ((float *)p)[i] = (float)v; break;
    case CAIRN_F64: ((double *)p)[i] = v; break;
    /* via f32 like every f16/bf16 path in cairn; the double->f32 rounding
     * first can differ from direct rounding only at exact ties */
    case CAIRN_F16: ((uint16_t *)p)[i] = base_f32_to_f16((float)v); break;
    case CAIRN_BF16: ((uint16_t *)p)[i] = base_f32_to_bf16((float)v); break;
    default:
        /* integer outputs (Shrink on ints): keep the conversion through
         * int64 defined; narrower types then wrap as base_store does */
        v = v > 9.2e18 ? 9.2e18 : v < -9.2e18 ? -9.2e18 : v;
        base_store_from_double(p, t, i, v);
        break;
    }
}

/* Integer element i exactly (int64 does not round-trip through double). */
static inline int64_t ld_i64(const void *p, cairn_dtype_t t, int64_t i)
{
    switch (t) {
    case CAIRN_I64: return ((const int64_t *)p)[i];
    case CAIRN_I32: return ((const int32_t *)p)[i];
    case CAIRN_I16: return ((const int16_t *)p)[i];
    case CAIRN_I8: return ((const int8_t *)p)[i];
    case CAIRN_U8:
    case CAIRN_BOOL: return ((const uint8_t *)p)[i];
    default: {
        double v = ld(p, t, i);
        /* float indices truncate as a cast does; NaN and huge values map to
         * a value no range check accepts */
        if (!(v > -9.2e18 && v < 9.2e18))
            return INT64_MIN;
        return (int64_t)v;
    }
    }
}

/* ---- losses ---- */

/* NLL over log-probabilities lp (N,C,D) of dtype lt; shared by both losses. */
static cairn_status_t nll_core(const void *lp, cairn_dtype_t lt, int64_t N, int64_t C, int64_t D,
                               const ktensor_t *target, const ktensor_t *weight,
                               const kmisc_loss_params_t *p, ktensor_t *loss)
{
    double sum = 0, wsum = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t d = 0; d < D; d++) {
            int64_t ti = n * D + d;
            int64_t t = ld_i64(target->data, target->dtype, ti);
            double l = 0, w = 0;
            if (!(p->has_ignore && t == p->ignore_index)) {
                if (t < 0 || t >= C) {
                    if (p->has_ignore)
                        return base_error(CAIRN_ERR_RUNTIME,
                                          "target value %lld at flat position %lld is out of "
                                          "range: classes are 0..%lld (ignore_index is %lld)",
                                          (long long)t, (long long)ti, (long long)(C - 1),
                                          (long long)p->ignore_index);
                    return base_error(CAIRN_ERR_RUNTIME,
                                      "target value %lld at flat position %lld is out of range: "
                                      "classes are 0..%lld (no ignore_index is set)",
                                      (long long)t, (long long)ti, (long long)(C - 1));
                }
                w = weight ? ld(weight->data, weight->dtype, t) : 1.0;
                l = -ld(lp, lt, (n * C + t) * D + d) * w;
            }
            if (p->reduction == KMISC_RED_NONE)
                st(loss->data, loss->dtype, ti, l);
            sum += l;
            wsum += w;
        }
    /* mean over zero total weight is 0/0 = NaN, as in the ONNX reference */
    if (p->reduction == KMISC_RED_SUM)
        st(loss->data, loss->dtype, 0, sum);
    else if (p->reduction == KMISC_RED_MEAN)
        st(loss->data, loss->dtype, 0, sum / wsum);
    return CAIRN_OK;
}

static void loss_dims(const ktensor_t *x, int64_t *N, int64_t *C, int64_t *D)
{
    *N = x->shape[0];
    *C = x->shape[1];
    *D = 1;
    for (int i = 2; i < x->rank; i++)
        *D *= x->shape[i];
}

cairn_status_t kmisc_nll(const ktensor_t *x, const ktensor_t *target, const ktensor_t *weight,
                         const kmisc_loss_params_t *p, ktensor_t *loss)
{
    int64_t N, C, D;
    loss_dims(x, &N, &C, &D);
    return nll_core(x->data, x->dtype, N, C, D, target, weight, p, loss);
}

cairn_status_t kmisc_sce(const ktensor_t *scores, const ktensor_t *labels,
                         const ktensor_t *weight, const kmisc_loss_params_t *p, ktensor_t *loss,
                         ktensor_t *log_prob, double *ws)
{
    int64_t N, C, D;
    loss_dims(scores, &N, &C, &D);
    for (int64_t n = 0; n < N; n++)
        for (int64_t d = 0; d < D; d++) {
            int64_t base = n * C * D + d;
            double m = -INFINITY;
            for (int64_t c = 0; c < C; c++) {
                double v = ld(scores->data, scores->dtype, base + c * D);
                ws[base + c * D] = v;
                m = v > m ? v : m;
            }
            double s = 0;
            for (int64_t c = 0; c < C; c++)
                s += exp(ws[base + c * D] - m);
            double lse = m + log(s);
            for (int64_t c = 0; c < C; c++) {
                ws[base + c * D] -= lse;
                if (log_prob)
                    st(log_prob->data, log_prob->dtype, base + c * D, ws[base + c * D]);
            }
        }
    return nll_core(ws, CAIRN_F64, N, C, D, labels, weight, p, loss);
}

/* ---- Trilu, EyeLike ---- */

cairn_status_t kmisc_trilu(const ktensor_t *x, ktensor_t *y, int upper, int64_t k)
{
    int r = x->rank;
    int64_t M = x->shape[r - 2], W = x->shape[r - 1];
    if (M == 0 || W == 0)
        return CAIRN_OK;
    int64_t batch = kt_numel(x) / (M * W);
    size_t es = cairn_dtype_size(x->dtype);
    /* beyond +-(M + W) every k means the same; clamping keeps i + k exact */
    int64_t lim = M + W;
    k = k > lim ? lim : k < -lim ? -lim : k;
    const char *src = x->data;
    char *dst = y->data;
    for (int64_t b = 0; b < batch; b++)
        for (int64_t i = 0; i < M; i++) {
            size_t row = (size_t)((b * M + i) * W) * es;
            /* kept columns are [lo, hi) */
            int64_t lo = upper ? i + k : 0, hi = upper ? W : i + k + 1;
            lo = lo < 0 ? 0 : lo > W ? W : lo;
            hi = hi < lo ? lo : hi > W ? W : hi;
            memset(dst + row, 0, (size_t)lo * es);
            memcpy(dst + row + (size_t)lo * es, src + row + (size_t)lo * es, (size_t)(hi - lo) * es);
            memset(dst + row + (size_t)hi * es, 0, (size_t)(W - hi) * es);
        }
    return CAIRN_OK;
}

cairn_status_t kmisc_eyelike(ktensor_t *y, int64_t k)
{
    int64_t M = y->shape[0], W = y->shape[1];
    memset(y->data, 0, (size_t)(M * W) * cairn_dtype_size(y->dtype));
    for (int64_t i = 0; i < M; i++) {
        if (k > W || k < -M) /* no diagonal at all; also keeps i + k exact */
            break;
        int64_t j = i + k;
        if (j >= 0 && j < W)
            st(y->data, y->dtype, i * W + j, 1.0);
    }
    return CAIRN_OK;
}

/* ---- Hardmax ---- */

static void split_axis(const ktensor_t *x, int axis, int64_t *outer, int64_t *len, int64_t *inner)
{
    *outer = 1, *inner = 1, *len = x->shape[axis];
    for (int i = 0; i < axis; i++)
        *outer *= x->shape[i];
    for (int i = axis + 1; i < x->rank; i++)
        *inner *= x->shape[i];
}

cairn_status_t kmisc_hardmax(const ktensor_t *x, ktensor_t *y, int axis)
{
    int64_t outer, len, inner;
    split_axis(x, axis, &outer, &len, &inner);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t base = o * len * inner + i, best = 0;
            double bv = len ? ld(x->data, x->dtype, base) : 0;
            for (int64_t a = 1; a < len && !isnan(bv); a++) {
                double v = ld(x->data, x->dtype, base + a * inner);
                if (v > bv || isnan(v))
                    bv = v, best = a;
            }
            for (int64_t a = 0; a < len; a++)
                st(y->data, y->dtype, base + a * inner, a == best ? 1.0 : 0.0);
        }
    return CAIRN_OK;
}

/* ---- OneHot ---- */

cairn_status_t kmisc_onehot(const ktensor_t *indices, int64_t depth, const ktensor_t *values,
                            int axis, ktensor_t *y)
{
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; i++)
        outer *= indices->shape[i];
    for (int i = axis; i < indices->rank; i++)
        inner *= indices->shape[i];
    size_t es = cairn_dtype_size(values->dtype);
    const char *off = values->data, *on = (const char *)values->data + es;
    char *dst = y->data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t d = 0; d < depth; d++)
            for (int64_t i = 0; i < inner; i++) {
                int64_t idx = ld_i64(indices->data, indices->dtype, o * inner + i);
                if (idx < 0 && idx >= -depth)
                    idx += depth;
                memcpy(dst + (size_t)((o * depth + d) * inner + i) * es, idx == d ? on : off, es);
            }
    return CAIRN_OK;
}

/* ---- ThresholdedRelu, Shrink, Celu ---- */

cairn_status_t kmisc_pointwise(const ktensor_t *x, ktensor_t *y, int op, double a, double b)
{
    int64_t n = kt_numel(x);
    for (int64_t i = 0; i < n; i++) {
        double v = ld(x->data, x->dtype, i), r;
        switch (op) {
        case KMISC_THRESHOLDED_RELU: r = v > a ? v : 0.0; break;
        case KMISC_SHRINK: r = v < -b ? v + a : v > b ? v - a : 0.0; break;
        default: /* Celu; alpha != 0 was checked */
            r = (v > 0 ? v : 0.0) + fmin(0.0, a * expm1(v / a));
            if (isnan(v))
                r = v;
            break;
        }
        st(y->data, y->dtype, i, r);
    }
    return CAIRN_OK;
}

/* ---- Compress ---- */

cairn_status_t kmisc_compress(const ktensor_t *x, const ktensor_t *cond, int axis, ktensor_t *y)
{
    size_t es = cairn_dtype_size(x->dtype);
    const uint8_t *cv = cond->data;
    int64_t clen = kt_numel(cond);
    int64_t outer = 1, len = kt_numel(x), inner = 1;
    if (axis >= 0)
        split_axis(x, axis, &outer, &len, &inner);
    int64_t use = clen < len ? clen : len;
    const char *src = x->data;
    char *dst = y->data;
    size_t blk = (size_t)inner * es;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t a = 0; a < use; a++)
            if (cv[a]) {
                memcpy(dst, src + (size_t)(o * len + a) * blk, blk);
                dst += blk;
            }
    return CAIRN_OK;
}

/* ---- MeanVarianceNormalization ---- */

cairn_status_t kmisc_mvn(const ktensor_t *x, ktensor_t *y, unsigned axes_mask, double *ws)
{
    int r = x->rank;
    int64_t n = kt_numel(x), groups = 1, gst[CAIRN_MAX_RANK], idx[CAIRN_MAX_RANK];
    for (int d = r - 1; d >= 0; d--) {
        gst[d] = (axes_mask >> d) & 1u ? 0 : groups;
        if (!((axes_mask >> d) & 1u))
            groups *= x->shape[d];
    }
    if (n == 0)
        return CAIRN_OK;
    double cnt = (double)n / (double)groups;
    double *mean = ws, *var = ws + groups;
    memset(ws, 0, (size_t)(2 * groups) * sizeof *ws);
    /* two passes (mean, then squared deviations) rather than E[x^2]-E[x]^2,
     * which can go negative for near-constant slices */
    for (int pass = 0; pass < 3; pass++) {
        int64_t g = 0;
        memset(idx, 0, sizeof idx);
        for (int64_t i = 0; i < n; i++) {
            double v = ld(x->data, x->dtype, i);
            if (pass == 0)
                mean[g] += v;
            else if (pass == 1)
                var[g] += (v - mean[g]) * (v - mean[g]);
            else
                st(y->data, y->dtype, i, (v - mean[g]) / (sqrt(var[g]) + 1e-9));
            for (int d = r - 1; d >= 0; d--) { /* odometer step, g follows */
                g += gst[d];
                if (++idx[d] < x->shape[d])
                    break;
                g -= gst[d] * x->shape[d];
                idx[d] = 0;
            }
        }
        for (int64_t k = 0; k < groups; k++) {
            if (pass == 0)
                mean[k] /= cnt;
            else if (pass == 1)
                var[k] /= cnt;
        }
    }
    return CAIRN_OK;
}

/* ---- LRN ---- */

cairn_status_t kmisc_lrn(const ktensor_t *x, ktensor_t *y, int64_t size, double alpha,
                         double beta, double bias)
{
    int64_t N = x->shape[0], C = x->shape[1], inner = 1;
    for (int i = 2; i < x->rank; i++)
        inner *= x->shape[i];
    /* the window is [c - floor((size-1)/2), c + ceil((size-1)/2)] */
    int64_t before = (size - 1) / 2, after = size / 2;
    for (int64_t nn = 0; nn < N; nn++)
        for (int64_t c = 0; c < C; c++) {
            int64_t lo = c - before < 0 ? 0 : c - before;
            int64_t hi = c > C - 1 - after ? C - 1 : c + after;
            for (int64_t i = 0; i < inner; i++) {
                double s = 0;
                for (int64_t cc = lo; cc <= hi; cc++) {
                    double v = ld(x->data, x->dtype, (nn * C + cc) * inner + i);
                    s += v * v;
                }
                int64_t at = (nn * C + c) * inner + i;
                double v = ld(x->data, x->dtype, at);
                st(y->data, y->dtype, at, v / pow(bias + alpha / (double)size * s, beta));
            }
        }
    return CAIRN_OK;
}
