/*
 * Reference kernels of the quant family (see quant.h). Plain C, obviously
 * correct first; integer accumulations are exact (int64 or double, which is
 * exact for the u8/i8 products and sums here), and float paths follow the
 * ONNX reference arithmetic (f32 division for quantisation).
 */
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_internal.h"

#include "base/dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void quant_quantize_ref(cairn_dtype_t xt, const void *x, const float *scale, const void *zp,
                        cairn_dtype_t yt, void *y, const quant_axis_t *ax)
{
    int64_t i = 0;
    for (int64_t o = 0; o < ax->outer; o++)
        for (int64_t c = 0; c < ax->C; c++) {
            int32_t z = zp ? q_load(zp, yt, c) : 0;
            float s = scale[c];
            for (int64_t j = 0; j < ax->inner; j++, i++) {
                double q;
                if (xt == CAIRN_F32) /* the spec's x / y_scale is an f32 division */
                    q = (double)(((const float *)x)[i] / s);
                else if (xt == CAIRN_I32)
                    q = (double)((float)((const int32_t *)x)[i] / s);
                else
                    q = base_load_as_double(x, xt, i) / (double)s;
                if (isnan(q))
                    q = 0;
                q_store(y, yt, i, nearbyint(q) + z);
            }
        }
}

void quant_dequantize_ref(cairn_dtype_t xt, const void *x, const float *scale, const void *zp,
                          float *y, const quant_axis_t *ax)
{
    int64_t i = 0;
    for (int64_t o = 0; o < ax->outer; o++)
        for (int64_t c = 0; c < ax->C; c++) {
            int32_t z = zp ? q_load(zp, xt, c) : 0;
            for (int64_t j = 0; j < ax->inner; j++, i++)
                y[i] = (float)((int64_t)q_load(x, xt, i) - z) * scale[c];
        }
}

void quant_dynamic_ref(const float *x, int64_t n, uint8_t *y, float *scale, uint8_t *zp)
{
    float mn = 0, mx = 0;
    for (int64_t i = 0; i < n; i++) {
        if (x[i] < mn)
            mn = x[i];
        if (x[i] > mx)
            mx = x[i];
    }
    float s = (mx - mn) / 255.0f;
    float z = 0;
    if (s > 0) {
        z = 0.0f - mn / s; /* clipped, then rounded, as the spec orders it */
        z = z < 0 ? 0 : z > 255 ? 255 : z;
        z = nearbyintf(z);
    }
    *scale = s;
    *zp = (uint8_t)z;
    for (int64_t i = 0; i < n; i++) {
        if (s > 0)
            q_store(y, CAIRN_U8, i, nearbyint((double)(x[i] / s)) + z);
        else
            y[i] = *zp; /* all-zero input: every value is the zero point */
    }
}

cairn_status_t quant_matmul_ref(const quant_mm_params_t *p, const void *A, const void *B,
                                void *Y)
{
    const int64_t M = p->M, K = p->K, N = p->N;
    int64_t *acc = NULL;
    /* row accumulators: i-k-j order walks B and the row contiguously */
    acc = malloc((size_t)(N > 0 ? N : 1) * sizeof *acc);
    int32_t *bz = malloc((size_t)(N > 0 ? N : 1) * sizeof *bz);
    if (!acc || !bz) {
        free(acc), free(bz);
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "MatMulInteger: no memory for %lld columns",
                          (long long)N);
    }
    for (int64_t j = 0; j < N; j++)
        bz[j] = p->bzp ? q_load(p->bzp, p->bt, p->bzp_vec ? j : 0) : 0;
    for (int64_t i = 0; i < M; i++) {
        int32_t az = p->azp ? q_load(p->azp, p->at, p->azp_vec ? i : 0) : 0;
        for (int64_t j = 0; j < N; j++)
            acc[j] = 0;
        for (int64_t kk = 0; kk < K; kk++) {
            int64_t a = (int64_t)q_load(A, p->at, i * K + kk) - az;
            if (!a)
                continue;
            for (int64_t j = 0; j < N; j++)
                acc[j] += a * ((int64_t)q_load(B, p->bt, kk * N + j) - bz[j]);
        }
        for (int64_t j = 0; j < N; j++) {
            if (p->yt == CAIRN_DTYPE_UNDEFINED) {
                ((int32_t *)Y)[i * N + j] = (int32_t)acc[j];
            } else {
                /* the multiplier is formed in f32 as the spec's numpy does;
                 * acc * multiplier is exact enough in double */
                float m = p->as[p->as_vec ? i : 0] * p->bs[p->bs_vec ? j : 0] / p->ys;
                int32_t yz = p->yzp ? q_load(p->yzp, p->yt, 0) : 0;
                q_store(Y, p->yt, i * N + j, nearbyint((double)acc[j] * (double)m) + yz);
            }
        }
    }
    free(acc);
    free(bz);
    return CAIRN_OK;
}

void quant_widen_ref(cairn_dtype_t xt, const void *x, const void *zp, int zp_vec, double *y,
                     const quant_axis_t *ax)
{
    int64_t i = 0;
    for (int64_t o = 0; o < ax->outer; o++)
        for (int64_t c = 0; c < ax->C; c++) {
            int32_t z = zp ? q_load(zp, xt, zp_vec ? c : 0) : 0;
            for (int64_t j = 0; j < ax->inner; j++, i++)
                y[i] = (double)(q_load(x, xt, i) - z);
        }
}

void quant_requant_ref(const double *acc, const int32_t *bias, const float *mult,
                       const void *yzp, cairn_dtype_t yt, void *y, const quant_axis_t *ax)
{
    int64_t i = 0;
    int32_t yz = yzp ? q_load(yzp, yt, 0) : 0;
    for (int64_t o = 0; o < ax->outer; o++)
        for (int64_t c = 0; c < ax->C; c++) {
            double b = bias ? (double)bias[c] : 0.0;
            for (int64_t j = 0; j < ax->inner; j++, i++) {
                double a = acc[i] + b;
                if (yt == CAIRN_I32)
                    q_store(y, yt, i, a);
                else
                    q_store(y, yt, i, nearbyint(a * (double)mult[c]) + yz);
            }
        }
}

/* ---- GatherND / ScatterND / ScatterElements ---- */

cairn_status_t quant_gather_nd_ref(const void *data, const int64_t *dshape, int drank,
                                   const int64_t *idx, const int64_t *ishape, int irank,
                                   int batch_dims, size_t esz, void *out)
{
    const int64_t q = ishape[irank - 1];
    int64_t nbatch = 1, ntup = 1, slice = 1, dbatch_stride = 1;
    for (int i = 0; i < batch_dims; i++)
        nbatch *= ishape[i];
    for (int i = batch_dims; i < irank - 1; i++)
        ntup *= ishape[i];
    for (int i = batch_dims + (int)q; i < drank; i++)
        slice *= dshape[i];
    for (int i = batch_dims; i < drank; i++)
        dbatch_stride *= dshape[i];
    int64_t dst[CAIRN_MAX_RANK];
    int64_t s = 1;
    for (int i = drank - 1; i >= 0; i--) {
        dst[i] = s;
        s *= dshape[i];
    }
    char *o = out;
    const char *d = data;
    for (int64_t b = 0; b < nbatch; b++)
        for (int64_t t = 0; t < ntup; t++) {
            const int64_t *tu = idx + (b * ntup + t) * q;
            int64_t off = b * dbatch_stride;
            for (int64_t k = 0; k < q; k++) {
                int64_t dim = dshape[batch_dims + k], v = tu[k];
                if (v < -dim || v >= dim)
                    return base_error(CAIRN_ERR_RUNTIME,
                                      "GatherND: index %lld (tuple %lld, entry %lld) is out of "
                                      "range for dim %d of size %lld",
                                      (long long)v, (long long)(b * ntup + t), (long long)k,
                                      batch_dims + (int)k, (long long)dim);
                off += (v < 0 ? v + dim : v) * dst[batch_dims + k];
            }
            memcpy(o, d + (size_t)off * esz, (size_t)slice * esz);
            o += (size_t)slice * esz;
        }
    return CAIRN_OK;
}

/* dst[i] (op)= src[j] for the dtype t */
static void q_reduce(cairn_dtype_t t, void *dst, int64_t i, const void *src, int64_t j, int red)
{
#define Q_RED(T)                                                                \
    do {                                                                        \
        T *a = (T *)dst + i;                                                    \
        T b = ((const T *)src)[j];                                              \
        switch (red) {                                                          \
        case QUANT_RED_ADD: *a = (T)(*a + b); break;                            \
        case QUANT_RED_MUL: *a = (T)(*a * b); break;                            \
        case QUANT_RED_MAX: *a = *a > b ? *a : b; break;                        \
        case QUANT_RED_MIN: *a = *a < b ? *a : b; break;                        \
        default: *a = b;                                                        \
        }                                                                       \
    } while (0)
    switch (t) {
    case CAIRN_F32: Q_RED(float); return;
    case CAIRN_F64: Q_RED(double); return;
    case CAIRN_I8: Q_RED(int8_t); return;
    case CAIRN_U8: Q_RED(uint8_t); return;
    case CAIRN_BOOL: Q_RED(uint8_t); return;
    case CAIRN_I16: Q_RED(int16_t); return;
    case CAIRN_I32: Q_RED(int32_t); return;
    case CAIRN_I64: Q_RED(int64_t); return;
    case CAIRN_F16:
    case CAIRN_BF16: {
        if (red == QUANT_RED_NONE) {
            ((uint16_t *)dst)[i] = ((const uint16_t *)src)[j];
            return;
        }
        double a = base_load_as_double(dst, t, i), b = base_load_as_double(src, t, j);
        double r = red == QUANT_RED_ADD   ? a + b
                   : red == QUANT_RED_MUL ? a * b
                   : red == QUANT_RED_MAX ? (a > b ? a : b)
                                          : (a < b ? a : b);
        base_store_from_double(dst, t, i, r);
        return;
    }
    default: return;
    }
#undef Q_RED
}

cairn_status_t quant_scatter_nd_ref(cairn_dtype_t t, void *out, const int64_t *dshape, int drank,
                                    const int64_t *idx, const int64_t *ishape, int irank,
                                    const void *upd, int reduction)
{
    const int64_t q = ishape[irank - 1];
    int64_t ntup = 1, slice = 1;
    for (int i = 0; i < irank - 1; i++)
        ntup *= ishape[i];
    for (int i = (int)q; i < drank; i++)
        slice *= dshape[i];
    int64_t dst[CAIRN_MAX_RANK], s = 1;
    for (int i = drank - 1; i >= 0; i--) {
        dst[i] = s;
        s *= dshape[i];
    }
    for (int64_t tt = 0; tt < ntup; tt++) {
        int64_t off = 0;
        for (int64_t k = 0; k < q; k++) {
            int64_t dim = dshape[k], v = idx[tt * q + k];
            if (v < -dim || v >= dim)
                return base_error(CAIRN_ERR_RUNTIME,
                                  "ScatterND: index %lld (tuple %lld, entry %lld) is out of range "
                                  "for dim %lld of size %lld",
                                  (long long)v, (long long)tt, (long long)k, (long long)k,
                                  (long long)dim);
            off += (v < 0 ? v + dim : v) * dst[k];
        }
        for (int64_t e = 0; e < slice; e++)
            q_reduce(t, out, off + e, upd, tt * slice + e, reduction);
    }
    return CAIRN_OK;
}

cairn_status_t quant_scatter_elements_ref(cairn_dtype_t t, void *out, const int64_t *dshape,
                                          int rank, cairn_dtype_t it, const void *idx,
                                          const int64_t *ushape, const void *upd, int axis,
                                          int reduction)
{
    int64_t dst[CAIRN_MAX_RANK], s = 1, n = 1;
    for (int i = rank - 1; i >= 0; i--) {
        dst[i] = s;
        s *= dshape[i];
        n *= ushape[i];
    }
    int64_t pos[CAIRN_MAX_RANK] = {0};
    for (int64_t e = 0; e < n; e++) {
        int64_t v = it == CAIRN_I32 ? ((const int32_t *)idx)[e] : ((const int64_t *)idx)[e];
        int64_t dim = dshape[axis];
        if (v < -dim || v >= dim)
            return base_error(CAIRN_ERR_RUNTIME,
                              "ScatterElements: index %lld (element %lld) is out of range for "
                              "axis %d of size %lld",
                              (long long)v, (long long)e, axis, (long long)dim);
        int64_t off = 0;
        for (int i = 0; i < rank; i++)
            off += (i == axis ? (v < 0 ? v + dim : v) : pos[i]) * dst[i];
        q_reduce(t, out, off, upd, e, reduction);
        for (int i = rank - 1; i >= 0; i--) {
            if (++pos[i] < ushape[i])
                break;
            pos[i] = 0;
        }
    }
    return CAIRN_OK;
}

/* ---- Einsum ---- */

/* exact integer element access (wrapping like the type on store) */
static int64_t q_load_int(const void *p, cairn_dtype_t t, int64_t i)
{
    switch (t) {
    case CAIRN_I8: return ((const int8_t *)p)[i];
    case CAIRN_U8: return ((const uint8_t *)p)[i];
    case CAIRN_I16: return ((const int16_t *)p)[i];
    case CAIRN_I32: return ((const int32_t *)p)[i];
    default: return ((const int64_t *)p)[i];
    }
}
static void q_store_int(void *p, cairn_dtype_t t, int64_t i, int64_t v)
{
    uint64_t u = (uint64_t)v;
    switch (t) {
    case CAIRN_I8: ((int8_t *)p)[i] = (int8_t)(uint8_t)u; return;
    case CAIRN_U8: ((uint8_t *)p)[i] = (uint8_t)u; return;
    case CAIRN_I16: ((int16_t *)p)[i] = (int16_t)(uint16_t)u; return;
    case CAIRN_I32: ((int32_t *)p)[i] = (int32_t)(uint32_t)u; return;
    default: ((int64_t *)p)[i] = v; return;
    }
}

void quant_einsum_ref(const quant_einsum_params_t *p, cairn_dtype_t t, const void *const *in,
                      void *out, void *ws)
{
    const int isint = base_dtype_is_int(t);
    double *accd = ws;
    int64_t *acci = ws;
    for (int64_t i = 0; i < p->out_numel; i++) {
        if (isint)
            acci[i] = 0;
        else
            accd[i] = 0;
    }
    int64_t total = 1;
    for (int l = 0; l < p->n_labels; l++)
        total *= p->size[l];
    int64_t pos[QUANT_EINSUM_MAX_LABELS] = {0};
    int64_t off[QUANT_EINSUM_MAX_OPS] = {0}, ooff = 0;
    /* accumulate every product of the operands' elements into its output
     * slot; ints in int64 (wrapping like the type), floats in double */
    for (int64_t it = 0; it < total; it++) {
        if (isint) {
            uint64_t prod = 1; /* unsigned: wraps instead of overflowing */
            for (int o = 0; o < p->n_ops; o++)
                prod *= (uint64_t)q_load_int(in[o], t, off[o]);
            acci[ooff] = (int64_t)((uint64_t)acci[ooff] + prod);
        } else {
            double prod = 1;
            for (int o = 0; o < p->n_ops; o++)
                prod *= base_load_as_double(in[o], t, off[o]);
            accd[ooff] += prod;
        }
        for (int l = p->n_labels - 1; l >= 0; l--) {
            for (int o = 0; o < p->n_ops; o++)
                off[o] += p->in_stride[o][l];
            ooff += p->out_stride[l];
            if (++pos[l] < p->size[l])
                break;
            for (int o = 0; o < p->n_ops; o++)
                off[o] -= p->in_stride[o][l] * p->size[l];
            ooff -= p->out_stride[l] * p->size[l];
            pos[l] = 0;
        }
    }
    for (int64_t i = 0; i < p->out_numel; i++) {
        if (!isint)
            base_store_from_double(out, t, i, accd[i]);
        else
            q_store_int(out, t, i, acci[i]);
    }
}

/* ---- BitShift ---- */

void quant_bitshift_u8_ref(const uint8_t *a, const int64_t *ast, const uint8_t *b,
                           const int64_t *bst, uint8_t *y, const int64_t *yshape, int rank,
                           int left)
{
    int64_t n = 1, pos[CAIRN_MAX_RANK] = {0}, oa = 0, ob = 0;
    for (int i = 0; i < rank; i++)
        n *= yshape[i];
    for (int64_t e = 0; e < n; e++) {
        unsigned sh = b[ob], v = a[oa];
        y[e] = sh >= 8 ? 0 : (uint8_t)(left ? (v << sh) : (v >> sh));
        for (int i = rank - 1; i >= 0; i--) {
            oa += ast[i];
            ob += bst[i];
            if (++pos[i] < yshape[i])
                break;
            oa -= ast[i] * yshape[i];
            ob -= bst[i] * yshape[i];
            pos[i] = 0;
        }
    }
}

/* ---- NonMaxSuppression ---- */

typedef struct {
    float score;
    int64_t box;
} q_cand_t;

static int q_cand_cmp(const void *x, const void *y)
{
    const q_cand_t *a = x, *b = y;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->box < b->box ? -1 : a->box > b->box; /* ties: lower index first */
}

/* corners (y1, x1, y2, x2) with y1 <= y2, x1 <= x2 */
static void q_corners(const float *b, int center, float *c)
{
    if (center) {
        c[0] = b[1] - b[3] / 2, c[2] = b[1] + b[3] / 2;
        c[1] = b[0] - b[2] / 2, c[3] = b[0] + b[2] / 2;
    } else {
        c[0] = fminf(b[0], b[2]), c[2] = fmaxf(b[0], b[2]);
        c[1] = fminf(b[1], b[3]), c[3] = fmaxf(b[1], b[3]);
    }
}

static int q_suppress(const float *a, const float *b, float th)
{
    float ih = fminf(a[2], b[2]) - fmaxf(a[0], b[0]);
    float iw = fminf(a[3], b[3]) - fmaxf(a[1], b[1]);
    if (ih <= 0 || iw <= 0)
        return 0;
    float inter = ih * iw;
    float area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
    float uni = area_a + area_b - inter;
    if (area_a <= 0 || area_b <= 0 || uni <= 0)
        return 0;
    return inter / uni > th;
}

cairn_status_t quant_nms_ref(const quant_nms_params_t *p, const float *boxes, const float *scores,
                             int64_t *sel, int64_t *count)
{
    int64_t N = p->N, cnt = 0;
    q_cand_t *cand = malloc((size_t)(N ? N : 1) * sizeof *cand);
    int64_t *kept = malloc((size_t)(N ? N : 1) * sizeof *kept);
    float *corn = malloc((size_t)(N ? N : 1) * 4 * sizeof *corn);
    if (!cand || !kept || !corn) {
        free(cand), free(kept), free(corn);
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "NonMaxSuppression: no memory for %lld boxes",
                          (long long)N);
    }
    for (int64_t b = 0; b < p->B; b++) {
        for (int64_t i = 0; i < N; i++)
            q_corners(boxes + (b * N + i) * 4, p->center_point_box, corn + i * 4);
        for (int64_t c = 0; c < p->C; c++) {
            const float *sc = scores + (b * p->C + c) * N;
            int64_t nc = 0, nk = 0;
            for (int64_t i = 0; i < N; i++)
                if (!p->has_score_threshold || sc[i] > p->score_threshold)
                    cand[nc].score = sc[i], cand[nc].box = i, nc++;
            qsort(cand, (size_t)nc, sizeof *cand, q_cand_cmp);
            for (int64_t i = 0; i < nc && nk < p->max_out; i++) {
                int keep = 1;
                for (int64_t j = 0; j < nk && keep; j++)
                    if (q_suppress(corn + cand[i].box * 4, corn + kept[j] * 4, p->iou_threshold))
                        keep = 0;
                if (!keep)
                    continue;
                kept[nk++] = cand[i].box;
                if (sel) {
                    sel[cnt * 3] = b, sel[cnt * 3 + 1] = c, sel[cnt * 3 + 2] = cand[i].box;
                }
                cnt++;
            }
        }
    }
    free(cand), free(kept), free(corn);
    *count = cnt;
    return CAIRN_OK;
}

/* ---- Det ---- */

cairn_status_t quant_det_ref(cairn_dtype_t t, const void *x, int64_t batch, int64_t n, void *y)
{
    double *a = malloc((size_t)(n > 0 ? n * n : 1) * sizeof *a);
    if (!a)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "Det: no memory for a %lldx%lld matrix",
                          (long long)n, (long long)n);
    for (int64_t bi = 0; bi < batch; bi++) {
        for (int64_t i = 0; i < n * n; i++)
            a[i] = base_load_as_double(x, t, bi * n * n + i);
        double det = 1;
        for (int64_t k = 0; k < n && det != 0; k++) {
            int64_t piv = k;
            for (int64_t i = k + 1; i < n; i++)
                if (fabs(a[i * n + k]) > fabs(a[piv * n + k]))
                    piv = i;
            if (a[piv * n + k] == 0) {
                det = 0;
                break;
            }
            if (piv != k) {
                for (int64_t j = 0; j < n; j++) {
                    double tmp = a[k * n + j];
                    a[k * n + j] = a[piv * n + j];
                    a[piv * n + j] = tmp;
                }
                det = -det;
            }
            double d = a[k * n + k];
            det *= d;
            for (int64_t i = k + 1; i < n; i++) {
                double f = a[i * n + k] / d;
                for (int64_t j = k + 1; j < n; j++)
                    a[i * n + j] -= f * a[k * n + j];
            }
        }
        base_store_from_double(y, t, bi, det);
    }
    free(a);
    return CAIRN_OK;
}
