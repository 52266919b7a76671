/* ArgMax / ArgMin: literal ties with select_last_index, NaN, random data
 * with many ties against a brute-force scan, dtypes, errors. */
#include "test_reduce_common.h"

static cairn_status_t run_arg(const char *op, const cairn_tensor_t *x, int64_t axis, int keep,
                              int last, cairn_tensor_t *y)
{
    cairn_attr_t at[3] = {cairn_attr_int("axis", axis), cairn_attr_int("keepdims", keep),
                          cairn_attr_int("select_last_index", last)};
    rt_in_t in[1] = {{x, 0}};
    rt_poison(y);
    return rt_run(op, in, 1, at, 3, y, 1);
}

static void test_literals(void)
{
    float xb[6] = {2, 5, 5, 7, 1, 7};
    cairn_tensor_t x = {CAIRN_F32, 2, {2, 3}, xb};
    int64_t yb[3];
    cairn_tensor_t y = {CAIRN_I64, 1, {2}, yb};
    CHECK_OK(run_arg("ArgMax", &x, 1, 0, 0, &y));
    CHECK(yb[0] == 1 && yb[1] == 0);
    CHECK_OK(run_arg("ArgMax", &x, -1, 0, 1, &y));
    CHECK(yb[0] == 2 && yb[1] == 2);
    CHECK_OK(run_arg("ArgMin", &x, 1, 0, 0, &y));
    CHECK(yb[0] == 0 && yb[1] == 1);
    float tb[6] = {3, 1, 1, 0, 0, 2};
    cairn_tensor_t t = {CAIRN_F32, 2, {2, 3}, tb};
    CHECK_OK(run_arg("ArgMin", &t, 1, 0, 1, &y));
    CHECK(yb[0] == 2 && yb[1] == 1);
    cairn_tensor_t y13 = {CAIRN_I64, 2, {1, 3}, yb};
    CHECK_OK(run_arg("ArgMax", &x, 0, 1, 0, &y13));
    CHECK(yb[0] == 1 && yb[1] == 0 && yb[2] == 1);
    CHECK_OK(run_arg("ArgMin", &x, -2, 1, 1, &y13));
    CHECK(yb[0] == 0 && yb[1] == 1 && yb[2] == 0);
    /* NaN wins (as numpy): the first, or the last with select_last_index */
    float nb[4] = {1, NAN, 3, NAN};
    cairn_tensor_t xn = {CAIRN_F32, 1, {4}, nb};
    cairn_tensor_t y0 = {CAIRN_I64, 0, {0}, yb};
    CHECK_OK(run_arg("ArgMax", &xn, 0, 0, 0, &y0));
    CHECK(yb[0] == 1);
    CHECK_OK(run_arg("ArgMax", &xn, 0, 0, 1, &y0));
    CHECK(yb[0] == 3);
    CHECK_OK(run_arg("ArgMin", &xn, 0, 0, 0, &y0));
    CHECK(yb[0] == 1);
    /* int64 compares exactly (beyond double's 53 bits) */
    int64_t ib[3] = {((int64_t)1 << 60) + 1, ((int64_t)1 << 60) + 2, ((int64_t)1 << 60)};
    cairn_tensor_t xi = {CAIRN_I64, 1, {3}, ib};
    CHECK_OK(run_arg("ArgMax", &xi, 0, 0, 0, &y0));
    CHECK(yb[0] == 1);
    CHECK_OK(run_arg("ArgMin", &xi, 0, 0, 0, &y0));
    CHECK(yb[0] == 2);
}

static void run_case(const char *op, cairn_dtype_t dt, const int64_t *shape, int rank,
                     int64_t axis, int keep, int last, check_rng_t *rng)
{
    int64_t nx = rt_numel(shape, rank);
    void *xb = malloc(cairn_dtype_size(dt) * (size_t)nx);
    double *xd = malloc(sizeof(double) * (size_t)nx);
    for (int64_t i = 0; i < nx; i++) {
        double v = (double)(int64_t)check_rng_uniform(rng, dt == CAIRN_U8 ? 0 : -3, 4);
        if (dt == CAIRN_F32 || dt == CAIRN_F64)
            v += 0.25 * (double)(check_rng_next(rng) % 2);
        base_store_from_double(xb, dt, i, v);
        xd[i] = base_load_as_double(xb, dt, i);
    }
    cairn_tensor_t x = {dt, rank, {0}, xb};
    memcpy(x.shape, shape, sizeof(int64_t) * (size_t)rank);
    int ax = (int)(axis < 0 ? axis + rank : axis);
    int64_t O = 1, D = shape[ax], I = 1;
    for (int d = 0; d < ax; d++)
        O *= shape[d];
    for (int d = ax + 1; d < rank; d++)
        I *= shape[d];
    cairn_tensor_t y = {CAIRN_I64, 0, {0}, malloc(sizeof(int64_t) * (size_t)(O * I))};
    for (int d = 0; d < rank; d++)
        if (d != ax || keep)
            y.shape[y.rank++] = d == ax ? 1 : shape[d];
    double *want = malloc(sizeof(double) * (size_t)(O * I));
    int is_max = !strcmp(op, "ArgMax");
    for (int64_t o = 0; o < O; o++)
        for (int64_t i = 0; i < I; i++) {
            int64_t best = 0;
            for (int64_t d = 1; d < D; d++) {
                double v = xd[(o * D + d) * I + i], b = xd[(o * D + best) * I + i];
                if ((is_max ? v > b : v < b) || (v == b && last))
                    best = d;
            }
            want[o * I + i] = (double)best;
        }
    char what[128];
    snprintf(what, sizeof what, "%s %s axis %lld keep %d last %d", op, cairn_dtype_name(dt),
             (long long)axis, keep, last);
    cairn_status_t s = run_arg(op, &x, axis, keep, last, &y);
    CHECK_MSG(s == CAIRN_OK, "%s: %s", what, cairn_last_error());
    if (s == CAIRN_OK)
        rt_close(&y, want, 0, 0, what);
    free(xb), free(xd), free(want), free(y.data);
}

static void test_random(void)
{
    check_rng_t rng = {777};
    const int64_t s3[3] = {3, 4, 5};
    const cairn_dtype_t dts[] = {CAIRN_F32, CAIRN_F64, CAIRN_F16, CAIRN_BF16, CAIRN_I32,
                                 CAIRN_I64, CAIRN_I8,  CAIRN_U8,  CAIRN_I16};
    const char *ops[2] = {"ArgMax", "ArgMin"};
    for (int op = 0; op < 2; op++)
        for (int64_t axis = -3; axis < 3; axis++)
            for (int keep = 0; keep <= 1; keep++)
                for (int last = 0; last <= 1; last++)
                    run_case(ops[op], CAIRN_F32, s3, 3, axis, keep, last, &rng);
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
        for (int op = 0; op < 2; op++)
            for (int last = 0; last <= 1; last++)
                run_case(ops[op], dts[d], s3, 3, d % 3, (int)(d & 1), last, &rng);
    /* wide inner (several chunks), parallel, size-1 axis */
    const int64_t wide[3] = {3, 7, 600}, big[3] = {4, 100, 100}, one[3] = {5, 1, 3};
    rt_threads = 2;
    for (int op = 0; op < 2; op++) {
        run_case(ops[op], CAIRN_F32, wide, 3, 1, 0, 1, &rng);
        run_case(ops[op], CAIRN_F16, big, 3, 2, 1, 0, &rng);
        run_case(ops[op], CAIRN_I32, big, 3, 0, 0, 1, &rng);
        run_case(ops[op], CAIRN_F32, one, 3, 1, 0, 0, &rng);
    }
    rt_threads = 1;
}

static void test_errors(void)
{
    float xb[6] = {0};
    int64_t yb[6];
    cairn_tensor_t x = {CAIRN_F32, 2, {2, 3}, xb}, y = {CAIRN_I64, 1, {2}, yb};
    CHECK_FAILS(run_arg("ArgMax", &x, 2, 0, 0, &y), CAIRN_ERR_SHAPE, "axis 2 is out of range");
    CHECK_FAILS(run_arg("ArgMin", &x, -3, 0, 0, &y), CAIRN_ERR_SHAPE, "out of range");
    CHECK_FAILS(run_arg("ArgMax", &x, 1, 0, 2, &y), CAIRN_ERR_INVALID_ARGUMENT,
                "select_last_index");
    cairn_tensor_t xe = {CAIRN_F32, 2, {2, 0}, xb};
    CHECK_FAILS(run_arg("ArgMax", &xe, 1, 0, 0, &y), CAIRN_ERR_SHAPE, "size 0");
    uint8_t bb[2] = {0};
    cairn_tensor_t xbool = {CAIRN_BOOL, 1, {2}, bb};
    cairn_tensor_t y0 = {CAIRN_I64, 0, {0}, yb};
    CHECK_FAILS(run_arg("ArgMax", &xbool, 0, 0, 0, &y0), CAIRN_ERR_DTYPE, "bool");
}

int main(void)
{
    test_literals();
    test_random();
    test_errors();
    return check_finish("test_reduce_arg");
}
