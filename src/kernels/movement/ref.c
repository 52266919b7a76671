/*
 * Reference data-movement kernels. Everything reduces to mv_copy_nd: the
 * caller describes the output as a box of dims and, for each dim, how far a
 * step moves in the destination and in the source. mv_copy_nd first drops
 * size-1 dims and merges dims that are contiguous in both buffers, so that
 * the common cases (a slice of whole rows, a concat, an outer transpose)
 * become a few long memcpy calls; only truly strided inner dims fall back to
 * an element loop, specialised by element size.
 */
#include "kernels/movement/movement.h"

#include "base/dtype.h"

#include <string.h>

static void copy_elems(char *d, int64_t dst_st, const char *s, int64_t src_st, int64_t n,
                       size_t es)
{
    /* strides here are in bytes */
    switch (es) {
    case 1:
        for (int64_t i = 0; i < n; i++)
            d[i * dst_st] = s[i * src_st];
        break;
    case 2:
        for (int64_t i = 0; i < n; i++)
            memcpy(d + i * dst_st, s + i * src_st, 2);
        break;
    case 4:
        for (int64_t i = 0; i < n; i++)
            memcpy(d + i * dst_st, s + i * src_st, 4);
        break;
    case 8:
        for (int64_t i = 0; i < n; i++)
            memcpy(d + i * dst_st, s + i * src_st, 8);
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(d + i * dst_st, s + i * src_st, es);
    }
}

void mv_copy_nd(int rank, const int64_t *shape, void *dst, const int64_t *dst_st,
                const void *src, const int64_t *src_st, size_t esize)
{
    int64_t n[MV_MAX_DIMS], ds[MV_MAX_DIMS], ss[MV_MAX_DIMS];
    int r = 0;
    for (int i = 0; i < rank; i++) {
        if (shape[i] == 0)
            return;
        if (shape[i] == 1)
            continue;
        /* merge into the previous dim when stepping it equals a full sweep of this one */
        if (r > 0 && ds[r - 1] == dst_st[i] * shape[i] && ss[r - 1] == src_st[i] * shape[i]) {
            n[r - 1] *= shape[i];
            ds[r - 1] = dst_st[i];
            ss[r - 1] = src_st[i];
            continue;
        }
        n[r] = shape[i];
        ds[r] = dst_st[i];
        ss[r] = src_st[i];
        r++;
    }
    char *d = dst;
    const char *s = src;
    const int64_t es = (int64_t)esize;
    if (r == 0) {
        memcpy(d, s, esize);
        return;
    }
    /* the innermost dim is one memcpy when contiguous on both sides */
    const int contiguous = ds[r - 1] == 1 && ss[r - 1] == 1;
    const int64_t inner = n[r - 1];
    int64_t idx[MV_MAX_DIMS] = {0};
    int64_t outer = 1;
    for (int i = 0; i < r - 1; i++)
        outer *= n[i];
    for (int64_t o = 0; o < outer; o++) {
        if (contiguous)
            memcpy(d, s, (size_t)(inner * es));
        else if (ss[r - 1] == 0)
            for (int64_t i = 0; i < inner; i++)
                memcpy(d + i * ds[r - 1] * es, s, esize);
        else
            copy_elems(d, ds[r - 1] * es, s, ss[r - 1] * es, inner, esize);
        /* odometer over the outer dims, moving both pointers incrementally */
        for (int k = r - 2; k >= 0; k--) {
            d += ds[k] * es;
            s += ss[k] * es;
            if (++idx[k] < n[k])
                break;
            idx[k] = 0;
            d -= ds[k] * n[k] * es;
            s -= ss[k] * n[k] * es;
        }
    }
}

void mv_transpose(const ktensor_t *in, const int *perm, ktensor_t *out)
{
    int64_t ist[CAIRN_MAX_RANK], ost[CAIRN_MAX_RANK], sst[CAIRN_MAX_RANK];
    kt_strides(in, ist);
    kt_strides(out, ost);
    for (int d = 0; d < out->rank; d++)
        sst[d] = ist[perm[d]];
    mv_copy_nd(out->rank, out->shape, out->data, ost, in->data, sst,
               cairn_dtype_size(in->dtype));
}

void mv_slice(const ktensor_t *in, const int64_t *start, const int64_t *step, ktensor_t *out)
{
    if (kt_numel(out) == 0)
        return;
    int64_t ist[CAIRN_MAX_RANK], ost[CAIRN_MAX_RANK], sst[CAIRN_MAX_RANK];
    kt_strides(in, ist);
    kt_strides(out, ost);
    size_t es = cairn_dtype_size(in->dtype);
    int64_t base = 0;
    for (int d = 0; d < in->rank; d++) {
        base += start[d] * ist[d];
        sst[d] = step[d] * ist[d];
    }
    mv_copy_nd(out->rank, out->shape, out->data, ost, (const char *)in->data + base * (int64_t)es,
               sst, es);
}

void mv_expand(const ktensor_t *in, ktensor_t *out)
{
    if (kt_numel(out) == 0)
        return;
    int64_t ost[CAIRN_MAX_RANK], sst[CAIRN_MAX_RANK];
    kt_strides(out, ost);
    kt_broadcast_strides(in, out->rank, sst);
    mv_copy_nd(out->rank, out->shape, out->data, ost, in->data, sst,
               cairn_dtype_size(in->dtype));
}

void mv_tile(const ktensor_t *in, ktensor_t *out)
{
    if (kt_numel(out) == 0)
        return;
    /* view out dim d as (repeat, in dim): the repeat index moves the
     * destination by a whole tile and leaves the source where it is */
    int64_t ist[CAIRN_MAX_RANK], ost[CAIRN_MAX_RANK];
    int64_t shape[MV_MAX_DIMS], ds[MV_MAX_DIMS], ss[MV_MAX_DIMS];
    kt_strides(in, ist);
    kt_strides(out, ost);
    for (int d = 0; d < in->rank; d++) {
        int64_t rep = out->shape[d] / in->shape[d];
        shape[2 * d] = rep;
        ds[2 * d] = ost[d] * in->shape[d];
        ss[2 * d] = 0;
        shape[2 * d + 1] = in->shape[d];
        ds[2 * d + 1] = ost[d];
        ss[2 * d + 1] = ist[d];
    }
    mv_copy_nd(2 * in->rank, shape, out->data, ds, in->data, ss, cairn_dtype_size(in->dtype));
}

/* Both Concat and Split are [outer, axis*inner] blocks side by side. */
static void block_copy(char *dst, int64_t dst_row, const char *src, int64_t src_row,
                       int64_t rows, int64_t row_bytes)
{
    int64_t shape[2] = {rows, row_bytes}, ds[2] = {dst_row, 1}, ss[2] = {src_row, 1};
    if (rows && row_bytes)
        mv_copy_nd(2, shape, dst, ds, src, ss, 1);
}

void mv_concat(const ktensor_t *in, int n_in, int axis, ktensor_t *out)
{
    int64_t outer = 1, inner = (int64_t)cairn_dtype_size(out->dtype);
    for (int d = 0; d < axis; d++)
        outer *= out->shape[d];
    for (int d = axis + 1; d < out->rank; d++)
        inner *= out->shape[d];
    int64_t off = 0, out_row = out->shape[axis] * inner;
    for (int i = 0; i < n_in; i++) {
        int64_t row = in[i].shape[axis] * inner;
        block_copy((char *)out->data + off, out_row, in[i].data, row, outer, row);
        off += row;
    }
}

void mv_split(const ktensor_t *in, int axis, ktensor_t *out, int n_out)
{
    int64_t outer = 1, inner = (int64_t)cairn_dtype_size(in->dtype);
    for (int d = 0; d < axis; d++)
        outer *= in->shape[d];
    for (int d = axis + 1; d < in->rank; d++)
        inner *= in->shape[d];
    int64_t off = 0, in_row = in->shape[axis] * inner;
    for (int i = 0; i < n_out; i++) {
        int64_t row = out[i].shape[axis] * inner;
        block_copy(out[i].data, row, (const char *)in->data + off, in_row, outer, row);
        off += row;
    }
}

static int64_t load_index(const ktensor_t *t, int64_t i)
{
    return t->dtype == CAIRN_I32 ? ((const int32_t *)t->data)[i] : ((const int64_t *)t->data)[i];
}

cairn_status_t mv_gather(const ktensor_t *data, const ktensor_t *indices, int axis,
                         ktensor_t *out)
{
    int64_t outer = 1, inner = 1, n_idx = kt_numel(indices), dim = data->shape[axis];
    for (int d = 0; d < axis; d++)
        outer *= data->shape[d];
    for (int d = axis + 1; d < data->rank; d++)
        inner *= data->shape[d];
    /* every index is checked before anything is read */
    for (int64_t j = 0; j < n_idx; j++) {
        int64_t ix = load_index(indices, j);
        if (ix < -dim || ix >= dim)
            return base_error(CAIRN_ERR_RUNTIME,
                              "index %lld (indices element %lld) is out of range for axis %d "
                              "of size %lld; valid indices are %lld..%lld",
                              (long long)ix, (long long)j, axis, (long long)dim, (long long)-dim,
                              (long long)dim - 1);
    }
    if (kt_numel(out) == 0)
        return CAIRN_OK;
    const size_t es = cairn_dtype_size(data->dtype);
    const size_t run = (size_t)inner * es;
    const char *src = data->data;
    char *dst = out->data;
    for (int64_t o = 0; o < outer; o++) {
        const char *slab = src + (size_t)(o * dim) * run;
        for (int64_t j = 0; j < n_idx; j++) {
            int64_t ix = load_index(indices, j);
            if (ix < 0)
                ix += dim;
            memcpy(dst, slab + (size_t)ix * run, run);
            dst += run;
        }
    }
    return CAIRN_OK;
}

cairn_status_t mv_gather_elements(const ktensor_t *data, const ktensor_t *indices, int axis,
                                  ktensor_t *out)
{
    const int r = indices->rank;
    const int64_t n = kt_numel(indices), dim = data->shape[axis];
    for (int64_t j = 0; j < n; j++) {
        int64_t ix = load_index(indices, j);
        if (ix < -dim || ix >= dim)
            return base_error(CAIRN_ERR_RUNTIME,
                              "index %lld (indices element %lld) is out of range for axis %d "
                              "of size %lld; valid indices are %lld..%lld",
                              (long long)ix, (long long)j, axis, (long long)dim, (long long)-dim,
                              (long long)dim - 1);
    }
    if (n == 0)
        return CAIRN_OK;
    int64_t dst_st[CAIRN_MAX_RANK], idx[CAIRN_MAX_RANK] = {0};
    kt_strides(data, dst_st);
    const size_t es = cairn_dtype_size(data->dtype);
    const char *src = data->data;
    char *dst = out->data;
    int64_t base = 0; /* data offset of idx with the axis coordinate zeroed */
    for (int64_t j = 0; j < n; j++) {
        int64_t ix = load_index(indices, j);
        if (ix < 0)
            ix += dim;
        memcpy(dst + (size_t)j * es, src + (size_t)(base + ix * dst_st[axis]) * es, es);
        for (int k = r - 1; k >= 0; k--) {
            if (k != axis)
                base += dst_st[k];
            if (++idx[k] < indices->shape[k])
                break;
            if (k != axis)
                base -= dst_st[k] * indices->shape[k];
            idx[k] = 0;
        }
    }
    return CAIRN_OK;
}

void mv_fill(void *dst, int64_t n, const void *value, size_t esize)
{
    char *d = dst;
    if (n <= 0)
        return;
    memcpy(d, value, esize);
    /* doubling copies: log2(n) memcpy calls */
    int64_t done = 1;
    while (done < n) {
        int64_t k = done < n - done ? done : n - done;
        memcpy(d + (size_t)done * esize, d, (size_t)k * esize);
        done += k;
    }
}

/* Where output position i (already shifted by the begin pad) reads from
 * along a dim of size n, or -1 for the constant. */
static int64_t pad_source(int64_t i, int64_t n, mv_pad_mode_t mode)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == MV_PAD_CONSTANT || n == 0)
        return -1;
    if (mode == MV_PAD_EDGE)
        return i < 0 ? 0 : n - 1;
    if (n == 1)
        return 0;
    /* reflection without repeating the edge is periodic with period 2(n-1) */
    int64_t p = 2 * (n - 1), m = i % p;
    if (m < 0)
        m += p;
    return m < n ? m : p - m;
}

void mv_pad(const ktensor_t *in, const int64_t *begin, mv_pad_mode_t mode, const void *value,
            ktensor_t *out)
{
    const int r = out->rank;
    const size_t es = cairn_dtype_size(out->dtype);
    const int64_t total = kt_numel(out);
    if (total == 0)
        return;
    if (r == 0) {
        memcpy(out->data, in->data, es);
        return;
    }
    int64_t ist[CAIRN_MAX_RANK];
    kt_strides(in, ist);
    const int64_t w = out->shape[r - 1], iw = in->shape[r - 1], b = begin[r - 1];
    /* the part of an output row that is a straight copy of the input row */
    int64_t lo = b > 0 ? b : 0, hi = b + iw < w ? b + iw : w;
    if (hi < lo)
        hi = lo;
    const int64_t rows = total / w;
    int64_t idx[CAIRN_MAX_RANK] = {0};
    char *d = out->data;
    const char *s = in->data;
    for (int64_t row = 0; row < rows; row++, d += (size_t)w * es) {
        int64_t off = 0;
        int is_const = 0;
        for (int k = 0; k < r - 1; k++) {
            int64_t src = pad_source(idx[k] - begin[k], in->shape[k], mode);
            if (src < 0) {
                is_const = 1;
                break;
            }
            off += src * ist[k];
        }
        if (is_const) {
            mv_fill(d, w, value, es);
        } else {
            const char *srow = s + (size_t)off * es;
            for (int64_t j = 0; j < lo; j++) {
                int64_t src = pad_source(j - b, iw, mode);
                memcpy(d + (size_t)j * es, src < 0 ? value : srow + (size_t)src * es, es);
            }
            if (hi > lo)
                memcpy(d + (size_t)lo * es, srow + (size_t)(lo - b) * es, (size_t)(hi - lo) * es);
            for (int64_t j = hi; j < w; j++) {
                int64_t src = pad_source(j - b, iw, mode);
                memcpy(d + (size_t)j * es, src < 0 ? value : srow + (size_t)src * es, es);
            }
        }
        for (int k = r - 2; k >= 0; k--) {
            if (++idx[k] < out->shape[k])
                break;
            idx[k] = 0;
        }
    }
}

void mv_range_int(cairn_dtype_t t, int64_t start, int64_t delta, void *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        /* wraps only where the count check upstream already refused */
        int64_t v = (int64_t)((uint64_t)start + (uint64_t)i * (uint64_t)delta);
        switch (t) {
        case CAIRN_I8: ((int8_t *)out)[i] = (int8_t)v; break;
        case CAIRN_U8: ((uint8_t *)out)[i] = (uint8_t)v; break;
        case CAIRN_I16: ((int16_t *)out)[i] = (int16_t)v; break;
        case CAIRN_I32: ((int32_t *)out)[i] = (int32_t)v; break;
        default: ((int64_t *)out)[i] = v; break;
        }
    }
}

void mv_range_float(cairn_dtype_t t, double start, double delta, void *out, int64_t n)
{
    /* start + i*delta rather than repeated addition: no error build-up */
    for (int64_t i = 0; i < n; i++) {
        double v = start + (double)i * delta;
        switch (t) {
        case CAIRN_F32: ((float *)out)[i] = (float)v; break;
        case CAIRN_F64: ((double *)out)[i] = v; break;
        case CAIRN_F16: ((uint16_t *)out)[i] = base_f32_to_f16((float)v); break;
        case CAIRN_BF16: ((uint16_t *)out)[i] = base_f32_to_bf16((float)v); break;
        default: break;
        }
    }
}
