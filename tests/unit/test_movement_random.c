/* Movement ops on random shapes, dtypes and parameters, checked against
 * brute-force formulations written here: every output element is located
 * by unravelling its index and mapping coordinates back to the input one
 * dimension at a time (loops, not the kernels' stride arithmetic). Every
 * element size (1, 2, 4, 8 bytes) and every cairn dtype is exercised. */
#include "test_movement_util.h"

static const cairn_dtype_t dtypes[] = {CAIRN_F32, CAIRN_U8,  CAIRN_I8,  CAIRN_I16, CAIRN_I32,
                                       CAIRN_I64, CAIRN_BOOL, CAIRN_F16, CAIRN_F64, CAIRN_BF16};
#define N_DTYPES 10

static check_rng_t rng = {0x9E3779B97F4A7C15ull};

static int64_t rnd(int64_t lo, int64_t hi) /* inclusive */
{
    return lo + (int64_t)(check_rng_next(&rng) % (uint64_t)(hi - lo + 1));
}

static void *rand_data(cairn_dtype_t t, int64_t n)
{
    size_t es = cairn_dtype_size(t);
    unsigned char *p = malloc((size_t)n * es + 1);
    for (int64_t i = 0; i < n * (int64_t)es; i++)
        p[i] = (unsigned char)(t == CAIRN_BOOL ? rnd(0, 1) : rnd(0, 255));
    return p;
}

static void unravel(int64_t i, int r, const int64_t *shape, int64_t *c)
{
    for (int d = r - 1; d >= 0; d--) {
        c[d] = i % shape[d];
        i /= shape[d];
    }
}

static int64_t ravel(int r, const int64_t *shape, const int64_t *c)
{
    int64_t i = 0;
    for (int d = 0; d < r; d++)
        i = i * shape[d] + c[d];
    return i;
}

static void compare(const char *what, int iter, const mt_out_t *o, int rank, const int64_t *shape,
                    const void *want, size_t es)
{
    int ok = o->rank == rank;
    for (int d = 0; ok && d < rank; d++)
        ok = o->shape[d] == shape[d];
    CHECK_MSG(ok, "%s #%d: wrong shape", what, iter);
    if (ok)
        CHECK_MSG(memcmp(o->data, want, (size_t)mt_numel(rank, shape) * es) == 0,
                  "%s #%d: wrong values", what, iter);
}

static void rand_shape(int r, int64_t lo, int64_t hi, int64_t *s)
{
    for (int d = 0; d < r; d++)
        s[d] = rnd(lo, hi);
}

static void test_transpose(void)
{
    for (int it = 0; it < 40; it++) {
        cairn_dtype_t t = dtypes[it % N_DTYPES];
        size_t es = cairn_dtype_size(t);
        int r = (int)rnd(1, 5);
        int64_t s[8], os[8], perm[8], c[8], oc[8];
        rand_shape(r, 1, 4, s);
        for (int d = 0; d < r; d++)
            perm[d] = d;
        for (int d = r - 1; d > 0; d--) {
            int j = (int)rnd(0, d);
            int64_t tmp = perm[d];
            perm[d] = perm[j];
            perm[j] = tmp;
        }
        for (int d = 0; d < r; d++)
            os[d] = s[perm[d]];
        int64_t n = mt_numel(r, s);
        unsigned char *x = rand_data(t, n), *want = malloc((size_t)n * es + 1);
        for (int64_t i = 0; i < n; i++) {
            unravel(i, r, os, oc);
            for (int d = 0; d < r; d++)
                c[perm[d]] = oc[d];
            memcpy(want + i * (int64_t)es, x + ravel(r, s, c) * (int64_t)es, es);
        }
        mt_arg_t a = {t, r, {0}, x, 0};
        memcpy(a.shape, s, sizeof s);
        cairn_attr_t ap = cairn_attr_ints("perm", perm, (size_t)r);
        mt_out_t o;
        CHECK_OK(mt_run("Transpose", &a, 1, &ap, 1, &o, 1));
        if (o.data)
            compare("transpose", it, &o, r, os, want, es);
        mt_free(&o, 1);
        free(x);
        free(want);
    }
}

/* The indices a Slice visits along one axis, by walking the range. */
static int slice_walk(int64_t s, int64_t e, int64_t step, int64_t dim, int64_t *list)
{
    if (s < 0)
        s += dim;
    if (e < 0)
        e += dim;
    int n = 0;
    if (step > 0) {
        if (s < 0)
            s = 0;
        for (int64_t i = s; i < e && i < dim; i += step)
            list[n++] = i;
    } else {
        /* ONNX clamps a negative-step start into [0, dim-1] (numpy would
         * give nothing for a start below -dim; ONNX gives element 0) */
        if (s > dim - 1)
            s = dim - 1;
        if (s < 0)
            s = 0;
        if (e < -1)
            e = -1;
        for (int64_t i = s; i > e && i >= 0 && i < dim; i += step)
            list[n++] = i;
    }
    return n;
}

static int64_t rand_bound(void)
{
    switch (rnd(0, 9)) {
    case 0: return INT64_MAX;
    case 1: return INT64_MIN;
    default: return rnd(-9, 9);
    }
}

static void test_slice(void)
{
    for (int it = 0; it < 60; it++) {
        cairn_dtype_t t = dtypes[it % N_DTYPES];
        size_t es = cairn_dtype_size(t);
        int r = (int)rnd(1, 4);
        int64_t s[8], os[8], c[8], oc[8];
        rand_shape(r, 0, 6, s);
        int k = (int)rnd(1, r);
        int64_t starts[8], ends[8], axes[8], steps[8];
        int64_t lists[8][16];
        int used[8] = {0};
        for (int d = 0; d < r; d++) {
            os[d] = s[d];
            for (int j = 0; j < s[d]; j++)
                lists[d][j] = j;
        }
        for (int j = 0; j < k; j++) {
            int a;
            do
                a = (int)rnd(0, r - 1);
            while (used[a]);
            used[a] = 1;
            axes[j] = rnd(0, 1) ? a : a - r;
            starts[j] = rand_bound();
            ends[j] = rand_bound();
            do
                steps[j] = rnd(-3, 3);
            while (!steps[j]);
            os[a] = slice_walk(starts[j], ends[j], steps[j], s[a], lists[a]);
        }
        int64_t n = mt_numel(r, s), on = mt_numel(r, os);
        unsigned char *x = rand_data(t, n), *want = malloc((size_t)on * es + 1);
        for (int64_t i = 0; i < on; i++) {
            unravel(i, r, os, oc);
            for (int d = 0; d < r; d++)
                c[d] = lists[d][oc[d]];
            memcpy(want + i * (int64_t)es, x + ravel(r, s, c) * (int64_t)es, es);
        }
        int32_t st32[8], en32[8];
        int use32 = it % 3 == 0;
        for (int j = 0; j < k; j++) {
            st32[j] = starts[j] > INT32_MAX ? INT32_MAX : starts[j] < INT32_MIN ? INT32_MIN : (int32_t)starts[j];
            en32[j] = ends[j] > INT32_MAX ? INT32_MAX : ends[j] < INT32_MIN ? INT32_MIN : (int32_t)ends[j];
        }
        mt_arg_t a[5] = {{t, r, {0}, x, 0}};
        memcpy(a[0].shape, s, sizeof s);
        cairn_dtype_t it_t = use32 ? CAIRN_I32 : CAIRN_I64;
        a[1] = MT_CONST(it_t, use32 ? (void *)st32 : (void *)starts, 1, k);
        a[2] = MT_CONST(it_t, use32 ? (void *)en32 : (void *)ends, 1, k);
        a[3] = MT_CONST(CAIRN_I64, axes, 1, k);
        a[4] = MT_CONST(CAIRN_I64, steps, 1, k);
        mt_out_t o;
        /* with INT32 bounds the clamping still lands in the same place for dims this small */
        CHECK_OK(mt_run("Slice", a, 5, NULL, 0, &o, 1));
        if (o.data)
            compare("slice", it, &o, r, os, want, es);
        mt_free(&o, 1);
        free(x);
        free(want);
    }
}

static void test_expand_tile(void)
{
    for (int it = 0; it < 40; it++) {
        cairn_dtype_t t = dtypes[it % N_DTYPES];
        size_t es = cairn_dtype_size(t);
        int r = (int)rnd(1, 3), R = r + (int)rnd(0, 2);
        int64_t s[8], want_shape[8], os[8], c[8], oc[8];
        rand_shape(r, 1, 3, s);
        for (int d = 0; d < R; d++) {
            int j = d - (R - r);
            int64_t in_d = j >= 0 ? s[j] : 1;
            int64_t pick = rnd(0, 2);
            want_shape[d] = pick == 0 ? 1 : in_d == 1 ? rnd(0, 4) : in_d;
            os[d] = in_d == 1 ? want_shape[d] : in_d;
        }
        int64_t n = mt_numel(r, s), on = mt_numel(R, os);
        unsigned char *x = rand_data(t, n), *want = malloc((size_t)on * es + 1);
        for (int64_t i = 0; i < on; i++) {
            unravel(i, R, os, oc);
            for (int j = 0; j < r; j++)
                c[j] = s[j] == 1 ? 0 : oc[j + R - r];
            memcpy(want + i * (int64_t)es, x + ravel(r, s, c) * (int64_t)es, es);
        }
        mt_arg_t a[2] = {{t, r, {0}, x, 0}, MT_CONST(CAIRN_I64, want_shape, 1, R)};
        memcpy(a[0].shape, s, sizeof s);
        mt_out_t o;
        CHECK_OK(mt_run("Expand", a, 2, NULL, 0, &o, 1));
        if (o.data)
            compare("expand", it, &o, R, os, want, es);
        mt_free(&o, 1);
        free(want);

        /* Tile of the same input */
        int64_t rep[8], ts[8];
        for (int d = 0; d < r; d++) {
            rep[d] = rnd(0, 3);
            ts[d] = s[d] * rep[d];
        }
        int64_t tn = mt_numel(r, ts);
        want = malloc((size_t)tn * es + 1);
        for (int64_t i = 0; i < tn; i++) {
            unravel(i, r, ts, oc);
            for (int d = 0; d < r; d++)
                c[d] = oc[d] % s[d];
            memcpy(want + i * (int64_t)es, x + ravel(r, s, c) * (int64_t)es, es);
        }
        a[1] = MT_CONST(CAIRN_I64, rep, 1, r);
        CHECK_OK(mt_run("Tile", a, 2, NULL, 0, &o, 1));
        if (o.data)
            compare("tile", it, &o, r, ts, want, es);
        mt_free(&o, 1);
        free(x);
        free(want);
    }
}

static void test_concat_split(void)
{
    for (int it = 0; it < 40; it++) {
        cairn_dtype_t t = dtypes[it % N_DTYPES];
        size_t es = cairn_dtype_size(t);
        int r = (int)rnd(1, 4), ni = (int)rnd(1, 4), axis = (int)rnd(0, r - 1);
        int64_t s[8], os[8], c[8], oc[8], sizes[4];
        rand_shape(r, 1, 3, s);
        memcpy(os, s, sizeof s);
        os[axis] = 0;
        mt_arg_t a[4];
        unsigned char *x[4];
        for (int i = 0; i < ni; i++) {
            sizes[i] = rnd(0, 3);
            os[axis] += sizes[i];
            a[i] = (mt_arg_t){t, r, {0}, NULL, 0};
            memcpy(a[i].shape, s, sizeof s);
            a[i].shape[axis] = sizes[i];
            x[i] = rand_data(t, mt_numel(r, a[i].shape));
            a[i].data = x[i];
        }
        int64_t on = mt_numel(r, os);
        unsigned char *want = malloc((size_t)on * es + 1);
        for (int64_t i = 0; i < on; i++) {
            unravel(i, r, os, oc);
            int src = 0;
            memcpy(c, oc, sizeof c);
            while (c[axis] >= sizes[src])
                c[axis] -= sizes[src++];
            memcpy(want + i * (int64_t)es, x[src] + ravel(r, a[src].shape, c) * (int64_t)es, es);
        }
        cairn_attr_t ax = cairn_attr_int("axis", rnd(0, 1) ? axis : axis - r);
        mt_out_t o, so[4];
        CHECK_OK(mt_run("Concat", a, ni, &ax, 1, &o, 1));
        if (o.data)
            compare("concat", it, &o, r, os, want, es);
        /* and split it back, sizes given as the split input */
        mt_arg_t sa[2] = {{t, r, {0}, want, 0}, MT_CONST(CAIRN_I64, sizes, 1, ni)};
        memcpy(sa[0].shape, os, sizeof os);
        CHECK_OK(mt_run("Split", sa, 2, &ax, 1, so, ni));
        for (int i = 0; i < ni && so[0].data; i++)
            compare("split", it, &so[i], r, a[i].shape, x[i], es);
        mt_free(so, ni);
        mt_free(&o, 1);
        for (int i = 0; i < ni; i++)
            free(x[i]);
        free(want);
    }
}

static void test_gather(void)
{
    for (int it = 0; it < 40; it++) {
        cairn_dtype_t t = dtypes[it % N_DTYPES];
        size_t es = cairn_dtype_size(t);
        int r = (int)rnd(1, 3), q = (int)rnd(0, 2), axis = (int)rnd(0, r - 1);
        int64_t s[8], is[8], os[8], c[8], oc[8];
        rand_shape(r, 1, 4, s);
        rand_shape(q, 0, 3, is);
        int64_t nidx = mt_numel(q, is);
        int64_t idx64[64];
        int32_t idx32[64];
        for (int64_t j = 0; j < nidx; j++) {
            idx64[j] = rnd(-s[axis], s[axis] - 1);
            idx32[j] = (int32_t)idx64[j];
        }
        int R = 0;
        for (int d = 0; d < axis; d++)
            os[R++] = s[d];
        for (int d = 0; d < q; d++)
            os[R++] = is[d];
        for (int d = axis + 1; d < r; d++)
            os[R++] = s[d];
        int64_t n = mt_numel(r, s), on = mt_numel(R, os);
        unsigned char *x = rand_data(t, n), *want = malloc((size_t)on * es + 1);
        for (int64_t i = 0; i < on; i++) {
            unravel(i, R, os, oc);
            int64_t ic[8];
            for (int d = 0; d < q; d++)
                ic[d] = oc[axis + d];
            int64_t ix = idx64[ravel(q, is, ic)];
            for (int d = 0; d < r; d++)
                c[d] = d < axis ? oc[d] : d == axis ? (ix < 0 ? ix + s[axis] : ix) : oc[d + q - 1];
            memcpy(want + i * (int64_t)es, x + ravel(r, s, c) * (int64_t)es, es);
        }
        int use32 = it & 1;
        mt_arg_t a[2] = {{t, r, {0}, x, 0},
                         {use32 ? CAIRN_I32 : CAIRN_I64, q, {0}, use32 ? (void *)idx32 : (void *)idx64, 0}};
        memcpy(a[0].shape, s, sizeof s);
        memcpy(a[1].shape, is, sizeof is);
        cairn_attr_t ax = cairn_attr_int("axis", rnd(0, 1) ? axis : axis - r);
        mt_out_t o;
        CHECK_OK(mt_run("Gather", a, 2, &ax, 1, &o, 1));
        if (o.data)
            compare("gather", it, &o, R, os, want, es);
        mt_free(&o, 1);
        free(want);

        /* GatherElements on the same data: indices no larger than data off the axis */
        int64_t es_shape[8];
        for (int d = 0; d < r; d++)
            es_shape[d] = d == axis ? rnd(1, 4) : rnd(1, s[d]);
        int64_t ne = mt_numel(r, es_shape);
        for (int64_t j = 0; j < ne; j++)
            idx64[j] = rnd(-s[axis], s[axis] - 1);
        want = malloc((size_t)ne * es + 1);
        for (int64_t i = 0; i < ne; i++) {
            unravel(i, r, es_shape, c);
            c[axis] = idx64[i] < 0 ? idx64[i] + s[axis] : idx64[i];
            memcpy(want + i * (int64_t)es, x + ravel(r, s, c) * (int64_t)es, es);
        }
        a[1] = (mt_arg_t){CAIRN_I64, r, {0}, idx64, 0};
        memcpy(a[1].shape, es_shape, sizeof es_shape);
        CHECK_OK(mt_run("GatherElements", a, 2, &ax, 1, &o, 1));
        if (o.data)
            compare("gather elements", it, &o, r, es_shape, want, es);
        mt_free(&o, 1);
        free(x);
        free(want);
    }
}

/* Reflection by repeated mirroring, the way one would do it by hand. */
static int64_t reflect_walk(int64_t i, int64_t n)
{
    if (n == 1)
        return 0;
    while (i < 0 || i >= n)
        i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

static void test_pad(void)
{
    static const char *modes[3] = {"constant", "reflect", "edge"};
    for (int it = 0; it < 60; it++) {
        cairn_dtype_t t = dtypes[it % N_DTYPES];
        size_t es = cairn_dtype_size(t);
        int mode = (int)rnd(0, 2);
        int r = (int)rnd(1, 3);
        int64_t s[8], os[8], c[8], oc[8], pads[16];
        rand_shape(r, mode == 0 ? 0 : 1, 4, s);
        for (int d = 0; d < r; d++) {
            do {
                pads[d] = rnd(-2, 4);
                pads[r + d] = rnd(-2, 4);
                os[d] = s[d] + pads[d] + pads[r + d];
            } while (os[d] < 0);
        }
        unsigned char cv[8];
        void *cvp = rand_data(t, 1);
        memcpy(cv, cvp, es);
        free(cvp);
        int64_t n = mt_numel(r, s), on = mt_numel(r, os);
        unsigned char *x = rand_data(t, n), *want = malloc((size_t)on * es + 1);
        for (int64_t i = 0; i < on; i++) {
            unravel(i, r, os, oc);
            int outside = 0;
            for (int d = 0; d < r; d++) {
                int64_t p = oc[d] - pads[d];
                if (p >= 0 && p < s[d])
                    c[d] = p;
                else if (mode == 0)
                    outside = 1;
                else if (mode == 2)
                    c[d] = p < 0 ? 0 : s[d] - 1;
                else
                    c[d] = reflect_walk(p, s[d]);
            }
            memcpy(want + i * (int64_t)es, outside ? cv : x + ravel(r, s, c) * (int64_t)es, es);
        }
        mt_arg_t a[3] = {{t, r, {0}, x, 0}, MT_CONST(CAIRN_I64, pads, 1, 2 * r),
                         MT_CONST(t, cv, 0)};
        memcpy(a[0].shape, s, sizeof s);
        cairn_attr_t am = cairn_attr_string("mode", modes[mode]);
        mt_out_t o;
        CHECK_OK(mt_run("Pad", a, mode == 0 ? 3 : 2, &am, 1, &o, 1));
        if (o.data)
            compare("pad", it, &o, r, os, want, es);
        mt_free(&o, 1);
        free(x);
        free(want);
    }
}

int main(void)
{
    test_transpose();
    test_slice();
    test_expand_tile();
    test_concat_split();
    test_gather();
    test_pad();
    return check_finish("test_movement_random");
}
