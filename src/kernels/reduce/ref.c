/*
 * Reference reduction kernels (see reduce.h): plain C, one element type
 * switch per contiguous run rather than per element where it is easy.
 *
 * Reduce views the tensor after dropping size-1 dims and merging neighbours
 * that are both kept or both reduced. When one reduced group remains the
 * tensor is (outer, reduced, inner) and runs of `inner` are accumulated
 * side by side (so reads stay sequential); otherwise each output element
 * walks its reduced index set with an odometer. Work is split over output
 * elements on the context's pool when there is enough of it.
 *
 * Accumulation: floats (f16, bf16, f32, f64) in double; the integer Sum,
 * Mean, Prod, L1, SumSquare in uint64 (wrapping, as numpy's int64 does),
 * Max/Min exactly in int64; integer L2/LogSum/LogSumExp go through double
 * and saturate when narrowed.
 */
#include "kernels/reduce/reduce.h"

#include "base/dtype.h"

#include <math.h>
#include <string.h>

#define CH 256 /* elements per contiguous chunk held on the stack */
#define PAR_MIN_WORK 32768 /* below this many input elements, run serially */

static base_pool_t *pool_for(const kctx_t *k, int64_t work)
{
    return (k && work >= PAR_MIN_WORK) ? k->pool : NULL;
}

static int is_float(cairn_dtype_t t)
{
    return t == CAIRN_F32 || t == CAIRN_F64 || t == CAIRN_F16 || t == CAIRN_BF16;
}

/* ---- loads and stores ---- */

static void load_f64(const void *p, cairn_dtype_t t, int64_t off, int64_t n, double *d)
{
    int64_t i;
    switch (t) {
    case CAIRN_F32: { const float *s = (const float *)p + off; for (i = 0; i < n; i++) d[i] = s[i]; } break;
    case CAIRN_F64: memcpy(d, (const double *)p + off, (size_t)n * sizeof(double)); break;
    case CAIRN_F16: { const uint16_t *s = (const uint16_t *)p + off; for (i = 0; i < n; i++) d[i] = base_f16_to_f32(s[i]); } break;
    case CAIRN_BF16: { const uint16_t *s = (const uint16_t *)p + off; for (i = 0; i < n; i++) d[i] = base_bf16_to_f32(s[i]); } break;
    case CAIRN_U8: case CAIRN_BOOL: { const uint8_t *s = (const uint8_t *)p + off; for (i = 0; i < n; i++) d[i] = s[i]; } break;
    case CAIRN_I8: { const int8_t *s = (const int8_t *)p + off; for (i = 0; i < n; i++) d[i] = s[i]; } break;
    case CAIRN_I16: { const int16_t *s = (const int16_t *)p + off; for (i = 0; i < n; i++) d[i] = s[i]; } break;
    case CAIRN_I32: { const int32_t *s = (const int32_t *)p + off; for (i = 0; i < n; i++) d[i] = s[i]; } break;
    case CAIRN_I64: { const int64_t *s = (const int64_t *)p + off; for (i = 0; i < n; i++) d[i] = (double)s[i]; } break;
    default: for (i = 0; i < n; i++) d[i] = 0; break;
    }
}

static void load_i64(const void *p, cairn_dtype_t t, int64_t off, int64_t n, int64_t *d)
{
    int64_t i;
    switch (t) {
    case CAIRN_U8: case CAIRN_BOOL: { const uint8_t *s = (const uint8_t *)p + off; for (i = 0; i < n; i++) d[i] = s[i]; } break;
    case CAIRN_I8: { const int8_t *s = (const int8_t *)p + off; for (i = 0; i < n; i++) d[i] = s[i]; } break;
    case CAIRN_I16: { const int16_t *s = (const int16_t *)p + off; for (i = 0; i < n; i++) d[i] = s[i]; } break;
    case CAIRN_I32: { const int32_t *s = (const int32_t *)p + off; for (i = 0; i < n; i++) d[i] = s[i]; } break;
    case CAIRN_I64: memcpy(d, (const int64_t *)p + off, (size_t)n * sizeof(int64_t)); break;
    default: for (i = 0; i < n; i++) d[i] = 0; break;
    }
}

/* Narrowing an integer wraps (two's complement), as a C cast does. */
static void store_i64(void *p, cairn_dtype_t t, int64_t off, int64_t n, const int64_t *s)
{
    int64_t i;
    switch (t) {
    case CAIRN_U8: case CAIRN_BOOL: for (i = 0; i < n; i++) ((uint8_t *)p)[off + i] = (uint8_t)(uint64_t)s[i]; break;
    case CAIRN_I8: for (i = 0; i < n; i++) ((int8_t *)p)[off + i] = (int8_t)(uint8_t)(uint64_t)s[i]; break;
    case CAIRN_I16: for (i = 0; i < n; i++) ((int16_t *)p)[off + i] = (int16_t)(uint16_t)(uint64_t)s[i]; break;
    case CAIRN_I32: for (i = 0; i < n; i++) ((int32_t *)p)[off + i] = (int32_t)(uint32_t)(uint64_t)s[i]; break;
    case CAIRN_I64: memcpy((int64_t *)p + off, s, (size_t)n * sizeof(int64_t)); break;
    default: break;
    }
}

static void int_range(cairn_dtype_t t, int64_t *lo, int64_t *hi)
{
    switch (t) {
    case CAIRN_U8: case CAIRN_BOOL: *lo = 0; *hi = UINT8_MAX; break;
    case CAIRN_I8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case CAIRN_I16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case CAIRN_I32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
    }
}

/* A double result stored into an integer type saturates (NaN gives 0), so
 * log(0) = -inf in an int32 output is INT32_MIN rather than undefined. */
static int64_t sat_i64(double v, cairn_dtype_t t)
{
    int64_t lo, hi, r;
    int_range(t, &lo, &hi);
    if (isnan(v))
        return 0;
    if (v >= 9223372036854775808.0)
        r = INT64_MAX;
    else if (v <= -9223372036854775808.0)
        r = INT64_MIN;
    else
        r = (int64_t)v;
    return r < lo ? lo : r > hi ? hi : r;
}

static void store_f64(void *p, cairn_dtype_t t, int64_t off, int64_t n, const double *s)
{
    int64_t i;
    switch (t) {
    case CAIRN_F32: for (i = 0; i < n; i++) ((float *)p)[off + i] = (float)s[i]; break;
    case CAIRN_F64: memcpy((double *)p + off, s, (size_t)n * sizeof(double)); break;
    case CAIRN_F16: for (i = 0; i < n; i++) ((uint16_t *)p)[off + i] = base_f32_to_f16((float)s[i]); break;
    case CAIRN_BF16: for (i = 0; i < n; i++) ((uint16_t *)p)[off + i] = base_f32_to_bf16((float)s[i]); break;
    default:
        for (i = 0; i < n; i++) {
            int64_t v = sat_i64(s[i], t);
            store_i64(p, t, off + i, 1, &v);
        }
        break;
    }
}

/* ---- float accumulation ---- */

static double f_init(kreduce_op_t op)
{
    switch (op) {
    case KREDUCE_PROD: return 1.0;
    case KREDUCE_MAX: return -INFINITY;
    case KREDUCE_MIN: return INFINITY;
    default: return 0.0;
    }
}

/* Folds v[0..n) into acc[j*as] (as: 0 folds everything into acc[0], 1 keeps
 * n accumulators side by side). shift[] is the LogSumExp pass-2 maximum.
 * For LogSumExp's first pass the caller passes KREDUCE_MAX. */
static void f_accum(kreduce_op_t op, double *acc, int as, const double *v, int64_t n,
                    const double *shift)
{
    int64_t j;
    switch (op) {
    case KREDUCE_SUM: case KREDUCE_MEAN: case KREDUCE_LOGSUM:
        for (j = 0; j < n; j++) acc[j * as] += v[j];
        break;
    case KREDUCE_MAX: /* NaN sticks: nothing compares greater than it */
        for (j = 0; j < n; j++) if (v[j] > acc[j * as] || isnan(v[j])) acc[j * as] = isnan(acc[j * as]) ? acc[j * as] : v[j];
        break;
    case KREDUCE_MIN:
        for (j = 0; j < n; j++) if (v[j] < acc[j * as] || isnan(v[j])) acc[j * as] = isnan(acc[j * as]) ? acc[j * as] : v[j];
        break;
    case KREDUCE_PROD:
        for (j = 0; j < n; j++) acc[j * as] *= v[j];
        break;
    case KREDUCE_L1:
        for (j = 0; j < n; j++) acc[j * as] += fabs(v[j]);
        break;
    case KREDUCE_L2: case KREDUCE_SUMSQUARE:
        for (j = 0; j < n; j++) acc[j * as] += v[j] * v[j];
        break;
    case KREDUCE_LOGSUMEXP:
        for (j = 0; j < n; j++) acc[j * as] += exp(v[j] - shift[j * as]);
        break;
    }
}

/* m: LogSumExp's maximum over the set (an infinite or NaN maximum is the
 * answer itself: subtracting it would give NaN). */
static double f_final(kreduce_op_t op, double acc, int64_t count, double m)
{
    switch (op) {
    case KREDUCE_MEAN: return count ? acc / (double)count : NAN;
    case KREDUCE_L2: return sqrt(acc);
    case KREDUCE_LOGSUM: return log(acc);
    case KREDUCE_LOGSUMEXP: return isfinite(m) ? m + log(acc) : m;
    default: return acc;
    }
}

/* ---- integer accumulation (Sum, Mean, Prod, L1, SumSquare, Max, Min) ---- */

static int int_op(kreduce_op_t op)
{
    return op != KREDUCE_L2 && op != KREDUCE_LOGSUM && op != KREDUCE_LOGSUMEXP;
}

static uint64_t i_init(kreduce_op_t op, cairn_dtype_t t)
{
    int64_t lo, hi;
    int_range(t, &lo, &hi);
    switch (op) {
    case KREDUCE_PROD: return 1;
    case KREDUCE_MAX: return (uint64_t)lo;
    case KREDUCE_MIN: return (uint64_t)hi;
    default: return 0;
    }
}

static void i_accum(kreduce_op_t op, uint64_t *acc, int as, const int64_t *v, int64_t n)
{
    int64_t j;
    for (j = 0; j < n; j++) {
        uint64_t *a = &acc[j * as], u = (uint64_t)v[j];
        switch (op) {
        case KREDUCE_SUM: case KREDUCE_MEAN: *a += u; break;
        case KREDUCE_PROD: *a *= u; break;
        case KREDUCE_L1: *a += v[j] < 0 ? (uint64_t)0 - u : u; break;
        case KREDUCE_SUMSQUARE: *a += u * u; break;
        case KREDUCE_MAX: if (v[j] > (int64_t)*a) *a = u; break;
        case KREDUCE_MIN: if (v[j] < (int64_t)*a) *a = u; break;
        default: break;
        }
    }
}

static int64_t i_final(kreduce_op_t op, uint64_t acc, int64_t count)
{
    if (op == KREDUCE_MEAN)
        return count ? (int64_t)acc / count : 0;
    return (int64_t)acc;
}

/* ---- the view ---- */

typedef struct rview {
    kreduce_op_t op;
    const ktensor_t *x;
    ktensor_t *y;
    int fl;                 /* float path */
    int64_t count;          /* elements per reduced set */
    /* (outer, R, inner) when one reduced group */
    int64_t O, R, I, nchunk;
    /* general: kept and reduced groups, outermost first */
    int nk, nr;
    int64_t ksz[CAIRN_MAX_RANK], kst[CAIRN_MAX_RANK];
    int64_t rsz[CAIRN_MAX_RANK], rst[CAIRN_MAX_RANK];
} rview_t;

/* Eight f32 rows' Sum or Mean side by side: each row's double sum in the
 * same order as the one-row loop (so the same bits), the eight chains of
 * dependent adds overlapping instead of one add's latency per element
 * (ReduceMean over a 384-wide row: ~1 ns an element alone). */
static void rows8_f32(const rview_t *v, size_t o)
{
    const float *x = (const float *)v->x->data + (int64_t)o * v->R;
    const int64_t R = v->R;
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t j = 0; j < R; j++)
        for (int r = 0; r < 8; r++)
            acc[r] += x[r * R + j];
    for (int r = 0; r < 8; r++) {
        double out = f_final(v->op, acc[r], v->count, 0);
        store_f64(v->y->data, v->y->dtype, (int64_t)o + r, 1, &out);
    }
}

/* Contiguous reduced set (inner == 1): outputs [b, e). */
static void task_rows(void *ctx, size_t b, size_t e, int worker)
{
    (void)worker;
    const rview_t *v = ctx;
    double tmp[CH];
    int64_t itmp[CH];
    if (v->x->dtype == CAIRN_F32 && (v->op == KREDUCE_SUM || v->op == KREDUCE_MEAN))
        for (; b + 8 <= e; b += 8)
            rows8_f32(v, b);
    for (size_t o = b; o < e; o++) {
        int64_t base = (int64_t)o * v->R;
        if (v->fl) {
            double acc = f_init(v->op), m = -INFINITY;
            int lse = v->op == KREDUCE_LOGSUMEXP;
            for (int64_t r = 0; r < v->R; r += CH) {
                int64_t n = v->R - r < CH ? v->R - r : CH;
                load_f64(v->x->data, v->x->dtype, base + r, n, tmp);
                f_accum(lse ? KREDUCE_MAX : v->op, lse ? &m : &acc, 0, tmp, n, NULL);
            }
            if (lse && isfinite(m))
                for (int64_t r = 0; r < v->R; r += CH) {
                    int64_t n = v->R - r < CH ? v->R - r : CH;
                    load_f64(v->x->data, v->x->dtype, base + r, n, tmp);
                    f_accum(KREDUCE_LOGSUMEXP, &acc, 0, tmp, n, &m);
                }
            double out = f_final(v->op, acc, v->count, m);
            store_f64(v->y->data, v->y->dtype, (int64_t)o, 1, &out);
        } else {
            uint64_t acc = i_init(v->op, v->x->dtype);
            for (int64_t r = 0; r < v->R; r += CH) {
                int64_t n = v->R - r < CH ? v->R - r : CH;
                load_i64(v->x->data, v->x->dtype, base + r, n, itmp);
                i_accum(v->op, &acc, 0, itmp, n);
            }
            int64_t out = i_final(v->op, acc, v->count);
            store_i64(v->y->data, v->y->dtype, (int64_t)o, 1, &out);
        }
    }
}

/* Strided reduced set (inner > 1): tiles t = (outer o, chunk of inner). */
static void task_cols(void *ctx, size_t b, size_t e, int worker)
{
    (void)worker;
    const rview_t *v = ctx;
    double tmp[CH], acc[CH], m[CH];
    int64_t itmp[CH];
    uint64_t iacc[CH];
    for (size_t t = b; t < e; t++) {
        int64_t o = (int64_t)t / v->nchunk, i0 = ((int64_t)t % v->nchunk) * CH;
        int64_t n = v->I - i0 < CH ? v->I - i0 : CH;
        int64_t base = o * v->R * v->I + i0;
        if (v->fl) {
            int lse = v->op == KREDUCE_LOGSUMEXP;
            for (int64_t j = 0; j < n; j++) {
                acc[j] = f_init(v->op);
                m[j] = -INFINITY;
            }
            for (int64_t r = 0; r < v->R; r++) {
                load_f64(v->x->data, v->x->dtype, base + r * v->I, n, tmp);
                f_accum(lse ? KREDUCE_MAX : v->op, lse ? m : acc, 1, tmp, n, NULL);
            }
            if (lse) {
                /* a non-finite maximum is the answer; keep exp() away from it */
                double sh[CH];
                for (int64_t j = 0; j < n; j++)
                    sh[j] = isfinite(m[j]) ? m[j] : 0.0;
                for (int64_t r = 0; r < v->R; r++) {
                    load_f64(v->x->data, v->x->dtype, base + r * v->I, n, tmp);
                    f_accum(KREDUCE_LOGSUMEXP, acc, 1, tmp, n, sh);
                }
            }
            for (int64_t j = 0; j < n; j++)
                acc[j] = f_final(v->op, acc[j], v->count, m[j]);
            store_f64(v->y->data, v->y->dtype, o * v->I + i0, n, acc);
        } else {
            for (int64_t j = 0; j < n; j++)
                iacc[j] = i_init(v->op, v->x->dtype);
            for (int64_t r = 0; r < v->R; r++) {
                load_i64(v->x->data, v->x->dtype, base + r * v->I, n, itmp);
                i_accum(v->op, iacc, 1, itmp, n);
            }
            for (int64_t j = 0; j < n; j++)
                itmp[j] = i_final(v->op, iacc[j], v->count);
            store_i64(v->y->data, v->y->dtype, o * v->I + i0, n, itmp);
        }
    }
}

/* Several reduced groups: each output walks its set with an odometer. */
static void task_general(void *ctx, size_t b, size_t e, int worker)
{
    (void)worker;
    const rview_t *v = ctx;
    for (size_t o = b; o < e; o++) {
        int64_t base = 0, rem = (int64_t)o;
        for (int g = v->nk - 1; g >= 0; g--) {
            base += (rem % v->ksz[g]) * v->kst[g];
            rem /= v->ksz[g];
        }
        int passes = v->fl && v->op == KREDUCE_LOGSUMEXP ? 2 : 1;
        double acc = f_init(v->op), m = -INFINITY, sh = 0;
        uint64_t iacc = v->fl ? 0 : i_init(v->op, v->x->dtype);
        for (int pass = 0; pass < passes; pass++) {
            if (pass == 1) {
                if (!isfinite(m))
                    break;
                sh = m;
            }
            int64_t idx[CAIRN_MAX_RANK] = {0}, off = base;
            for (int64_t c = 0; c < v->count; c++) {
                if (v->fl) {
                    double val;
                    load_f64(v->x->data, v->x->dtype, off, 1, &val);
                    if (passes == 2 && pass == 0)
                        f_accum(KREDUCE_MAX, &m, 0, &val, 1, NULL);
                    else
                        f_accum(v->op, &acc, 0, &val, 1, &sh);
                } else {
                    int64_t val;
                    load_i64(v->x->data, v->x->dtype, off, 1, &val);
                    i_accum(v->op, &iacc, 0, &val, 1);
                }
                for (int g = v->nr - 1; g >= 0; g--) {
                    off += v->rst[g];
                    if (++idx[g] < v->rsz[g])
                        break;
                    off -= idx[g] * v->rst[g];
                    idx[g] = 0;
                }
            }
        }
        if (v->fl) {
            double out = f_final(v->op, acc, v->count, m);
            store_f64(v->y->data, v->y->dtype, (int64_t)o, 1, &out);
        } else {
            int64_t out = i_final(v->op, iacc, v->count);
            store_i64(v->y->data, v->y->dtype, (int64_t)o, 1, &out);
        }
    }
}

cairn_status_t kreduce_ref(kreduce_op_t op, const ktensor_t *x, uint32_t axes_mask, ktensor_t *y,
                           const kctx_t *k)
{
    rview_t v;
    memset(&v, 0, sizeof v);
    v.op = op;
    v.x = x;
    v.y = y;
    v.fl = is_float(x->dtype) || !int_op(op);
    int64_t out_n = 1, count = 1, st[CAIRN_MAX_RANK];
    for (int d = 0; d < x->rank; d++) {
        if (axes_mask >> d & 1)
            count *= x->shape[d];
        else
            out_n *= x->shape[d];
    }
    if (out_n != kt_numel(y))
        return base_error(CAIRN_ERR_INTERNAL, "reduce: output has %lld elements, expected %lld",
                          (long long)kt_numel(y), (long long)out_n);
    if (out_n == 0)
        return CAIRN_OK;
    v.count = count;
    if (count == 0) { /* every set is empty: the identity everywhere */
        for (int64_t o = 0; o < out_n; o++) {
            if (v.fl) {
                double r = f_final(op, f_init(op), 0, -INFINITY);
                store_f64(y->data, y->dtype, o, 1, &r);
            } else {
                int64_t r = i_final(op, i_init(op, x->dtype), 0);
                store_i64(y->data, y->dtype, o, 1, &r);
            }
        }
        return CAIRN_OK;
    }
    /* size-1 dims go; neighbours of the same kind merge (they are adjacent
     * in memory once the size-1 dims between them are gone) */
    kt_strides(x, st);
    int last = -1; /* 0 kept, 1 reduced */
    for (int d = 0; d < x->rank; d++) {
        if (x->shape[d] == 1)
            continue;
        int red = (int)(axes_mask >> d & 1);
        int64_t *sz = red ? v.rsz : v.ksz, *sd = red ? v.rst : v.kst;
        int *ng = red ? &v.nr : &v.nk;
        if (last == red) {
            sz[*ng - 1] *= x->shape[d];
            sd[*ng - 1] = st[d];
        } else {
            sz[*ng] = x->shape[d];
            sd[*ng] = st[d];
            (*ng)++;
        }
        last = red;
    }
    base_pool_t *pool = pool_for(k, kt_numel(x));
    if (v.nr <= 1) {
        v.R = v.nr ? v.rsz[0] : 1;
        v.I = v.nr ? v.rst[0] : 1;
        v.O = out_n / v.I;
        if (v.I == 1) {
            base_pool_parallel_for_1d(pool, (size_t)v.O, 0, task_rows, &v);
        } else {
            v.nchunk = (v.I + CH - 1) / CH;
            base_pool_parallel_for_1d(pool, (size_t)(v.O * v.nchunk), 0, task_cols, &v);
        }
    } else {
        base_pool_parallel_for_1d(pool, (size_t)out_n, 0, task_general, &v);
    }
    return CAIRN_OK;
}

/* ---- (outer, D, inner) helpers for ArgMax, CumSum, TopK ---- */

static void axis_view(const ktensor_t *x, int axis, int64_t *O, int64_t *D, int64_t *I)
{
    *O = 1;
    *I = 1;
    for (int d = 0; d < axis; d++)
        *O *= x->shape[d];
    for (int d = axis + 1; d < x->rank; d++)
        *I *= x->shape[d];
    *D = x->shape[axis];
}

typedef struct argctx {
    const ktensor_t *x;
    int64_t *y;
    int64_t O, D, I, nchunk;
    int want_max, last;
} argctx_t;

/* Does candidate c replace the best b so far (c comes later in the scan)? */
static int arg_better_f(double c, double b, int want_max, int last)
{
    int cn = isnan(c), bn = isnan(b);
    if (bn)
        return cn && last;
    if (cn)
        return 1;
    if (c == b)
        return last;
    return want_max ? c > b : c < b;
}

static int arg_better_i(int64_t c, int64_t b, int want_max, int last)
{
    if (c == b)
        return last;
    return want_max ? c > b : c < b;
}

static void task_arg(void *ctx, size_t b, size_t e, int worker)
{
    (void)worker;
    const argctx_t *a = ctx;
    int fl = is_float(a->x->dtype);
    double tmp[CH], best[CH];
    int64_t itmp[CH], ibest[CH], bi[CH];
    for (size_t t = b; t < e; t++) {
        int64_t o = (int64_t)t / a->nchunk, i0 = ((int64_t)t % a->nchunk) * CH;
        int64_t n = a->I - i0 < CH ? a->I - i0 : CH;
        int64_t base = o * a->D * a->I + i0;
        for (int64_t d = 0; d < a->D; d++) {
            if (fl)
                load_f64(a->x->data, a->x->dtype, base + d * a->I, n, tmp);
            else
                load_i64(a->x->data, a->x->dtype, base + d * a->I, n, itmp);
            for (int64_t j = 0; j < n; j++) {
                int take = d == 0 || (fl ? arg_better_f(tmp[j], best[j], a->want_max, a->last)
                                         : arg_better_i(itmp[j], ibest[j], a->want_max, a->last));
                if (take) {
                    if (fl)
                        best[j] = tmp[j];
                    else
                        ibest[j] = itmp[j];
                    bi[j] = d;
                }
            }
        }
        memcpy(a->y + o * a->I + i0, bi, (size_t)n * sizeof(int64_t));
    }
}

cairn_status_t kargreduce_ref(int want_max, const ktensor_t *x, int axis, int select_last,
                              ktensor_t *y, const kctx_t *k)
{
    argctx_t a;
    memset(&a, 0, sizeof a);
    a.x = x;
    a.y = y->data;
    a.want_max = want_max;
    a.last = select_last;
    axis_view(x, axis, &a.O, &a.D, &a.I);
    if (a.O * a.I == 0)
        return CAIRN_OK;
    if (a.D == 0)
        return base_error(CAIRN_ERR_SHAPE, "%s of an empty axis (dimension %d has size 0)",
                          want_max ? "ArgMax" : "ArgMin", axis);
    a.nchunk = (a.I + CH - 1) / CH;
    base_pool_parallel_for_1d(pool_for(k, kt_numel(x)), (size_t)(a.O * a.nchunk), 0, task_arg, &a);
    return CAIRN_OK;
}

typedef struct cumctx {
    const ktensor_t *x;
    ktensor_t *y;
    int64_t O, D, I, nchunk;
    int exclusive, reverse;
} cumctx_t;

static void task_cum(void *ctx, size_t b, size_t e, int worker)
{
    (void)worker;
    const cumctx_t *c = ctx;
    int fl = is_float(c->x->dtype);
    double tmp[CH], acc[CH], outv[CH];
    int64_t itmp[CH], iout[CH];
    uint64_t iacc[CH];
    for (size_t t = b; t < e; t++) {
        int64_t o = (int64_t)t / c->nchunk, i0 = ((int64_t)t % c->nchunk) * CH;
        int64_t n = c->I - i0 < CH ? c->I - i0 : CH;
        int64_t base = o * c->D * c->I + i0;
        for (int64_t j = 0; j < n; j++) {
            acc[j] = 0;
            iacc[j] = 0;
        }
        for (int64_t s = 0; s < c->D; s++) {
            int64_t off = base + (c->reverse ? c->D - 1 - s : s) * c->I;
            if (fl) {
                load_f64(c->x->data, c->x->dtype, off, n, tmp);
                for (int64_t j = 0; j < n; j++) {
                    if (c->exclusive) {
                        outv[j] = acc[j];
                        acc[j] += tmp[j];
                    } else {
                        acc[j] += tmp[j];
                        outv[j] = acc[j];
                    }
                }
                store_f64(c->y->data, c->y->dtype, off, n, outv);
            } else {
                load_i64(c->x->data, c->x->dtype, off, n, itmp);
                for (int64_t j = 0; j < n; j++) {
                    if (c->exclusive) {
                        iout[j] = (int64_t)iacc[j];
                        iacc[j] += (uint64_t)itmp[j];
                    } else {
                        iacc[j] += (uint64_t)itmp[j];
                        iout[j] = (int64_t)iacc[j];
                    }
                }
                store_i64(c->y->data, c->y->dtype, off, n, iout);
            }
        }
    }
}

cairn_status_t kcumsum_ref(const ktensor_t *x, int axis, int exclusive, int reverse, ktensor_t *y,
                           const kctx_t *k)
{
    cumctx_t c;
    memset(&c, 0, sizeof c);
    c.x = x;
    c.y = y;
    c.exclusive = exclusive;
    c.reverse = reverse;
    axis_view(x, axis, &c.O, &c.D, &c.I);
    if (kt_numel(x) == 0)
        return CAIRN_OK;
    c.nchunk = (c.I + CH - 1) / CH;
    base_pool_parallel_for_1d(pool_for(k, kt_numel(x)), (size_t)(c.O * c.nchunk), 0, task_cum, &c);
    return CAIRN_OK;
}

/* ---- TopK: a bounded heap per row, then heap-sorted ---- */

#define TOPK_SLOTS 16 /* rows processed at once, each with its own scratch */

typedef struct topkctx {
    const ktensor_t *x;
    ktensor_t *val;
    int64_t *idx;
    int64_t O, D, I, K, rows, slots;
    int largest, fl;
    char *ws;
} topkctx_t;

typedef struct topkrow {
    const double *kf;  /* keys of the row (floats) */
    const int64_t *ki; /* keys of the row (ints) */
    int largest;
} topkrow_t;

/* Total order on keys: NaN above every number, NaNs equal. */
static int key_cmp(const topkrow_t *r, int64_t a, int64_t b)
{
    if (r->kf) {
        double x = r->kf[a], y = r->kf[b];
        int xn = isnan(x), yn = isnan(y);
        if (xn || yn)
            return xn - yn;
        return (x > y) - (x < y);
    }
    return (r->ki[a] > r->ki[b]) - (r->ki[a] < r->ki[b]);
}

/* Should element a come before element b in the output? */
static int topk_before(const topkrow_t *r, int64_t a, int64_t b)
{
    int c = key_cmp(r, a, b);
    if (c == 0)
        return a < b;
    return r->largest ? c > 0 : c < 0;
}

/* Heap whose root is the element that comes last among those kept. */
static void heap_sift(const topkrow_t *r, int64_t *h, int64_t n, int64_t i)
{
    for (;;) {
        int64_t w = i, l = 2 * i + 1, rr = 2 * i + 2;
        if (l < n && topk_before(r, h[w], h[l]))
            w = l;
        if (rr < n && topk_before(r, h[w], h[rr]))
            w = rr;
        if (w == i)
            return;
        int64_t t = h[i];
        h[i] = h[w];
        h[w] = t;
        i = w;
    }
}

static void task_topk(void *ctx, size_t b, size_t e, int worker)
{
    (void)worker;
    const topkctx_t *c = ctx;
    size_t esz = cairn_dtype_size(c->x->dtype);
    for (size_t slot = b; slot < e; slot++) {
        char *ws = c->ws + slot * (size_t)(c->D + c->K) * 8;
        double *kf = (double *)(void *)ws;
        int64_t *ki = (int64_t *)(void *)ws;
        int64_t *h = (int64_t *)(void *)(ws + (size_t)c->D * 8);
        topkrow_t r = {c->fl ? kf : NULL, c->fl ? NULL : ki, c->largest};
        for (int64_t row = (int64_t)slot; row < c->rows; row += c->slots) {
            int64_t o = row / c->I, i = row % c->I, base = o * c->D * c->I + i;
            for (int64_t d = 0; d < c->D; d++) {
                if (c->fl)
                    load_f64(c->x->data, c->x->dtype, base + d * c->I, 1, &kf[d]);
                else
                    load_i64(c->x->data, c->x->dtype, base + d * c->I, 1, &ki[d]);
            }
            for (int64_t j = 0; j < c->K; j++)
                h[j] = j;
            for (int64_t j = c->K / 2 - 1; j >= 0; j--)
                heap_sift(&r, h, c->K, j);
            for (int64_t d = c->K; d < c->D; d++)
                if (topk_before(&r, d, h[0])) {
                    h[0] = d;
                    heap_sift(&r, h, c->K, 0);
                }
            /* popping the last-placed element to the end leaves h best-first */
            for (int64_t n = c->K - 1; n > 0; n--) {
                int64_t t = h[0];
                h[0] = h[n];
                h[n] = t;
                heap_sift(&r, h, n, 0);
            }
            int64_t obase = o * c->K * c->I + i;
            for (int64_t j = 0; j < c->K; j++) {
                int64_t src = base + h[j] * c->I, dst = obase + j * c->I;
                memcpy((char *)c->val->data + (size_t)dst * esz,
                       (const char *)c->x->data + (size_t)src * esz, esz);
                c->idx[dst] = h[j];
            }
        }
    }
}

static int64_t topk_slots(int64_t rows) { return rows < TOPK_SLOTS ? rows : TOPK_SLOTS; }

size_t ktopk_workspace(const ktensor_t *x, int axis, int64_t kk)
{
    int64_t O, D, I;
    axis_view(x, axis, &O, &D, &I);
    if (O * I == 0 || kk == 0)
        return 0;
    return (size_t)topk_slots(O * I) * (size_t)(D + kk) * 8;
}

cairn_status_t ktopk_ref(const ktensor_t *x, int axis, int64_t kk, int largest, ktensor_t *values,
                         ktensor_t *indices, void *ws, const kctx_t *k)
{
    topkctx_t c;
    memset(&c, 0, sizeof c);
    c.x = x;
    c.val = values;
    c.idx = indices->data;
    c.K = kk;
    c.largest = largest;
    c.fl = is_float(x->dtype);
    axis_view(x, axis, &c.O, &c.D, &c.I);
    c.rows = c.O * c.I;
    if (c.rows == 0 || kk == 0)
        return CAIRN_OK;
    if (kk > c.D)
        return base_error(CAIRN_ERR_SHAPE, "TopK: K = %lld is larger than axis %d's size %lld",
                          (long long)kk, axis, (long long)c.D);
    if (!ws)
        return base_error(CAIRN_ERR_INTERNAL, "TopK: no workspace");
    c.slots = topk_slots(c.rows);
    c.ws = ws;
    base_pool_parallel_for_1d(pool_for(k, kt_numel(x)), (size_t)c.slots, 1, task_topk, &c);
    return CAIRN_OK;
}
