/* TopK: the spec's example, ties (lower index first), NaN, random data for
 * every axis, K, direction and dtype against a selection-sort reference,
 * the workspace path with many rows and threads, errors. */
#include "test_reduce_common.h"

static cairn_status_t run_topk(const cairn_tensor_t *x, int64_t kk, int k_const, int64_t axis,
                               int largest, int sorted, cairn_tensor_t *vals, cairn_tensor_t *idx)
{
    cairn_attr_t at[3] = {cairn_attr_int("axis", axis), cairn_attr_int("largest", largest),
                          cairn_attr_int("sorted", sorted)};
    cairn_tensor_t kt = {CAIRN_I64, 1, {1}, &kk};
    rt_in_t in[2] = {{x, 0}, {&kt, k_const}};
    cairn_tensor_t outs[2] = {*vals, *idx};
    rt_poison(&outs[0]);
    rt_poison(&outs[1]);
    return rt_run("TopK", in, 2, at, 3, outs, 2);
}

static void test_literals(void)
{
    float xb[12];
    for (int i = 0; i < 12; i++)
        xb[i] = (float)i;
    cairn_tensor_t x = {CAIRN_F32, 2, {3, 4}, xb};
    float vb[9];
    int64_t ib[9];
    cairn_tensor_t v = {CAIRN_F32, 2, {3, 3}, vb}, ix = {CAIRN_I64, 2, {3, 3}, ib};
    CHECK_OK(run_topk(&x, 3, 1, 1, 1, 1, &v, &ix));
    const float wv[9] = {3, 2, 1, 7, 6, 5, 11, 10, 9};
    const int64_t wi[9] = {3, 2, 1, 3, 2, 1, 3, 2, 1};
    CHECK(!memcmp(vb, wv, sizeof wv) && !memcmp(ib, wi, sizeof wi));
    /* smallest along axis 0, negative axis spelling */
    cairn_tensor_t v2 = {CAIRN_F32, 2, {2, 4}, vb}, i2 = {CAIRN_I64, 2, {2, 4}, ib};
    CHECK_OK(run_topk(&x, 2, 1, -2, 0, 1, &v2, &i2));
    const float wv2[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const int64_t wi2[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    CHECK(!memcmp(vb, wv2, sizeof wv2) && !memcmp(ib, wi2, sizeof wi2));
    /* ties: the lower index first */
    float tb[5] = {1, 3, 3, 2, 3};
    cairn_tensor_t t = {CAIRN_F32, 1, {5}, tb};
    cairn_tensor_t v1 = {CAIRN_F32, 1, {2}, vb}, i1 = {CAIRN_I64, 1, {2}, ib};
    CHECK_OK(run_topk(&t, 2, 1, 0, 1, 1, &v1, &i1));
    CHECK(vb[0] == 3 && vb[1] == 3 && ib[0] == 1 && ib[1] == 2);
    float sb[5] = {2, 1, 1, 3, 1};
    cairn_tensor_t s = {CAIRN_F32, 1, {5}, sb};
    cairn_tensor_t v3 = {CAIRN_F32, 1, {3}, vb}, i3 = {CAIRN_I64, 1, {3}, ib};
    CHECK_OK(run_topk(&s, 3, 1, 0, 0, 1, &v3, &i3));
    CHECK(vb[0] == 1 && vb[1] == 1 && vb[2] == 1 && ib[0] == 1 && ib[1] == 2 && ib[2] == 4);
    /* NaN orders above every number */
    float nb[3] = {1, NAN, 3};
    cairn_tensor_t xn = {CAIRN_F32, 1, {3}, nb};
    CHECK_OK(run_topk(&xn, 2, 1, 0, 1, 1, &v1, &i1));
    CHECK(isnan(vb[0]) && vb[1] == 3 && ib[0] == 1 && ib[1] == 2);
    CHECK_OK(run_topk(&xn, 2, 1, 0, 0, 1, &v1, &i1));
    CHECK(vb[0] == 1 && vb[1] == 3 && ib[0] == 0 && ib[1] == 2);
    /* K = 0 and K = the whole axis */
    cairn_tensor_t v0 = {CAIRN_F32, 2, {3, 0}, vb}, i0 = {CAIRN_I64, 2, {3, 0}, ib};
    CHECK_OK(run_topk(&x, 0, 1, 1, 1, 1, &v0, &i0));
    /* int64 ordered exactly */
    int64_t lb[3] = {((int64_t)1 << 60) + 1, ((int64_t)1 << 60) + 3, ((int64_t)1 << 60) + 2};
    int64_t lv[3];
    cairn_tensor_t xl = {CAIRN_I64, 1, {3}, lb}, vl = {CAIRN_I64, 1, {3}, lv},
                   il = {CAIRN_I64, 1, {3}, ib};
    CHECK_OK(run_topk(&xl, 3, 1, 0, 1, 0, &vl, &il));
    CHECK(lv[0] == lb[1] && lv[1] == lb[2] && lv[2] == lb[0] && ib[0] == 1 && ib[2] == 0);
}

static void run_case(cairn_dtype_t dt, const int64_t *shape, int rank, int64_t axis, int64_t kk,
                     int largest, int ties, check_rng_t *rng)
{
    int64_t n = rt_numel(shape, rank);
    size_t es = cairn_dtype_size(dt);
    void *xb = malloc(es * (size_t)n);
    double *xd = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        double v = ties ? (double)(int64_t)check_rng_uniform(rng, dt == CAIRN_U8 ? 0 : -4, 5)
                        : check_rng_uniform(rng, -100, 100);
        base_store_from_double(xb, dt, i, v);
        xd[i] = base_load_as_double(xb, dt, i);
    }
    int ax = (int)(axis < 0 ? axis + rank : axis);
    int64_t O = 1, D = shape[ax], I = 1;
    for (int d = 0; d < ax; d++)
        O *= shape[d];
    for (int d = ax + 1; d < rank; d++)
        I *= shape[d];
    cairn_tensor_t x = {dt, rank, {0}, xb};
    memcpy(x.shape, shape, sizeof(int64_t) * (size_t)rank);
    cairn_tensor_t v = x, ix = x;
    v.shape[ax] = ix.shape[ax] = kk;
    ix.dtype = CAIRN_I64;
    int64_t no = O * kk * I;
    v.data = malloc(es * (size_t)(no + 1));
    ix.data = malloc(sizeof(int64_t) * (size_t)(no + 1));
    double *wv = malloc(sizeof(double) * (size_t)(no + 1)), *wi = malloc(sizeof(double) * (size_t)(no + 1));
    char *used = malloc((size_t)D + 1);
    /* selection: K times take the best unused element, lower index on ties */
    for (int64_t o = 0; o < O; o++)
        for (int64_t i = 0; i < I; i++) {
            memset(used, 0, (size_t)D);
            for (int64_t j = 0; j < kk; j++) {
                int64_t best = -1;
                for (int64_t d = 0; d < D; d++) {
                    if (used[d])
                        continue;
                    double a = xd[(o * D + d) * I + i];
                    if (best < 0) {
                        best = d;
                        continue;
                    }
                    double b = xd[(o * D + best) * I + i];
                    if (largest ? a > b : a < b)
                        best = d;
                }
                used[best] = 1;
                wv[(o * kk + j) * I + i] = xd[(o * D + best) * I + i];
                wi[(o * kk + j) * I + i] = (double)best;
            }
        }
    char what[128];
    snprintf(what, sizeof what, "TopK %s axis %lld K %lld largest %d", cairn_dtype_name(dt),
             (long long)axis, (long long)kk, largest);
    cairn_status_t s = run_topk(&x, kk, 1, axis, largest, (int)(kk & 1), &v, &ix);
    CHECK_MSG(s == CAIRN_OK, "%s: %s", what, cairn_last_error());
    if (s == CAIRN_OK) {
        rt_close(&v, wv, 0, 0, what);
        rt_close(&ix, wi, 0, 0, what);
    }
    free(xb), free(xd), free(v.data), free(ix.data), free(wv), free(wi), free(used);
}

static void test_random(void)
{
    check_rng_t rng = {2024};
    const int64_t s3[3] = {3, 6, 5};
    for (int64_t axis = -3; axis < 3; axis++) {
        int64_t dim = s3[axis < 0 ? axis + 3 : axis];
        const int64_t ks[3] = {1, (dim + 1) / 2, dim};
        for (int k = 0; k < 3; k++)
            for (int largest = 0; largest <= 1; largest++)
                for (int ties = 0; ties <= 1; ties++)
                    run_case(CAIRN_F32, s3, 3, axis, ks[k], largest, ties, &rng);
    }
    const cairn_dtype_t dts[] = {CAIRN_F64, CAIRN_F16, CAIRN_BF16, CAIRN_I32,
                                 CAIRN_I64, CAIRN_I8,  CAIRN_U8,   CAIRN_I16};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
        for (int largest = 0; largest <= 1; largest++)
            run_case(dts[d], s3, 3, (int64_t)(d % 3), 2, largest, 1, &rng);
    /* many rows (more than the kernel's scratch slots), threads */
    const int64_t big[3] = {4, 100, 50}, row[1] = {1000};
    rt_threads = 2;
    run_case(CAIRN_F32, big, 3, 1, 10, 1, 0, &rng);
    run_case(CAIRN_F32, big, 3, 2, 7, 0, 1, &rng);
    run_case(CAIRN_F32, row, 1, 0, 100, 1, 1, &rng);
    rt_threads = 1;
}

static void test_errors(void)
{
    float xb[6] = {0}, vb[6];
    int64_t ib[6];
    cairn_tensor_t x = {CAIRN_F32, 2, {2, 3}, xb};
    cairn_tensor_t v = {CAIRN_F32, 2, {2, 2}, vb}, ix = {CAIRN_I64, 2, {2, 2}, ib};
    CHECK_FAILS(run_topk(&x, 5, 1, 1, 1, 1, &v, &ix), CAIRN_ERR_SHAPE, "K = 5");
    CHECK_FAILS(run_topk(&x, 5, 1, 1, 1, 1, &v, &ix), CAIRN_ERR_SHAPE, "size 3");
    CHECK_FAILS(run_topk(&x, -1, 1, 1, 1, 1, &v, &ix), CAIRN_ERR_SHAPE, "negative");
    CHECK_FAILS(run_topk(&x, 2, 1, 2, 1, 1, &v, &ix), CAIRN_ERR_SHAPE, "out of range");
    CHECK_FAILS(run_topk(&x, 2, 1, 1, 2, 1, &v, &ix), CAIRN_ERR_INVALID_ARGUMENT, "largest");
    /* K fed at run time: the plan is specialised on its value */
    CHECK_OK(run_topk(&x, 2, 0, 1, 1, 1, &v, &ix));
    /* K must be int64 [1] */
    int32_t k32 = 2;
    cairn_tensor_t kt32 = {CAIRN_I32, 1, {1}, &k32};
    rt_in_t in[2] = {{&x, 0}, {&kt32, 1}};
    cairn_tensor_t outs[2] = {v, ix};
    CHECK_FAILS(rt_run("TopK", in, 2, NULL, 0, outs, 2), CAIRN_ERR_DTYPE, "input 1");
    int64_t k2[2] = {1, 1};
    cairn_tensor_t kt2 = {CAIRN_I64, 1, {2}, k2};
    rt_in_t in2[2] = {{&x, 0}, {&kt2, 1}};
    CHECK_FAILS(rt_run("TopK", in2, 2, NULL, 0, outs, 2), CAIRN_ERR_SHAPE, "one element");
    uint8_t bb[2] = {0};
    cairn_tensor_t xbool = {CAIRN_BOOL, 1, {2}, bb};
    CHECK_FAILS(run_topk(&xbool, 1, 1, 0, 1, 1, &v, &ix), CAIRN_ERR_DTYPE, "bool");
}

int main(void)
{
    test_literals();
    test_random();
    test_errors();
    return check_finish("test_reduce_topk");
}
