/* CumSum: the spec's literal examples for every exclusive/reverse combo,
 * random data for each axis and dtype against a double running sum, the
 * axis fed at run time, errors. */
#include "test_reduce_common.h"

/* axis_const: the axis tensor is a constant (else a graph input). */
static cairn_status_t run_cumsum(const cairn_tensor_t *x, const cairn_tensor_t *axis,
                                 int axis_const, int excl, int rev, cairn_tensor_t *y)
{
    cairn_attr_t at[2] = {cairn_attr_int("exclusive", excl), cairn_attr_int("reverse", rev)};
    rt_in_t in[2] = {{x, 0}, {axis, axis_const}};
    rt_poison(y);
    return rt_run("CumSum", in, 2, at, 2, y, 1);
}

static void test_literals(void)
{
    float xb[5] = {1, 2, 3, 4, 5}, yb[6];
    int32_t a0 = 0;
    cairn_tensor_t x = {CAIRN_F32, 1, {5}, xb}, y = {CAIRN_F32, 1, {5}, yb};
    cairn_tensor_t ax = {CAIRN_I32, 0, {0}, &a0};
    const float want[4][5] = {{1, 3, 6, 10, 15}, {0, 1, 3, 6, 10}, {15, 14, 12, 9, 5},
                              {14, 12, 9, 5, 0}};
    for (int c = 0; c < 4; c++) {
        int excl = c == 1 || c == 3, rev = c >= 2;
        CHECK_OK(run_cumsum(&x, &ax, 1, excl, rev, &y));
        CHECK_MSG(!memcmp(yb, want[c], sizeof want[c]), "exclusive %d reverse %d", excl, rev);
    }
    float m[6] = {1, 2, 3, 4, 5, 6};
    cairn_tensor_t x2 = {CAIRN_F32, 2, {2, 3}, m}, y2 = {CAIRN_F32, 2, {2, 3}, yb};
    int64_t a64 = 0, am1 = -1;
    cairn_tensor_t ax64 = {CAIRN_I64, 0, {0}, &a64}, axm1 = {CAIRN_I64, 1, {1}, &am1};
    CHECK_OK(run_cumsum(&x2, &ax64, 1, 0, 0, &y2));
    const float w0[6] = {1, 2, 3, 5, 7, 9}, w1[6] = {1, 3, 6, 4, 9, 15};
    CHECK(!memcmp(yb, w0, sizeof w0));
    CHECK_OK(run_cumsum(&x2, &axm1, 1, 0, 0, &y2));
    CHECK(!memcmp(yb, w1, sizeof w1));
    /* the axis may come at run time: the shape does not depend on it */
    CHECK_OK(run_cumsum(&x2, &ax64, 0, 0, 0, &y2));
    CHECK(!memcmp(yb, w0, sizeof w0));
    /* int64 wraps like numpy's, exact past 2^53 */
    int64_t ib[2] = {((int64_t)1 << 60) + 1, 1}, iy[2];
    cairn_tensor_t xi = {CAIRN_I64, 1, {2}, ib}, yi = {CAIRN_I64, 1, {2}, iy};
    CHECK_OK(run_cumsum(&xi, &ax, 1, 0, 0, &yi));
    CHECK(iy[0] == ib[0] && iy[1] == ((int64_t)1 << 60) + 2);
    /* empty */
    cairn_tensor_t xe = {CAIRN_F32, 2, {0, 3}, xb}, ye = {CAIRN_F32, 2, {0, 3}, yb};
    CHECK_OK(run_cumsum(&xe, &ax, 1, 1, 1, &ye));
}

static void run_case(cairn_dtype_t dt, const int64_t *shape, int rank, int64_t axis, int excl,
                     int rev, check_rng_t *rng)
{
    int64_t n = rt_numel(shape, rank);
    void *xb = malloc(cairn_dtype_size(dt) * (size_t)n);
    double *xd = malloc(sizeof(double) * (size_t)n), *want = malloc(sizeof(double) * (size_t)n);
    int is_int = dt == CAIRN_I32 || dt == CAIRN_I64;
    for (int64_t i = 0; i < n; i++) {
        double v = is_int ? (double)(int64_t)check_rng_uniform(rng, -50, 50)
                          : check_rng_uniform(rng, -1, 1);
        base_store_from_double(xb, dt, i, v);
        xd[i] = base_load_as_double(xb, dt, i);
    }
    cairn_tensor_t x = {dt, rank, {0}, xb}, y = {dt, rank, {0}, malloc(cairn_dtype_size(dt) * (size_t)n)};
    memcpy(x.shape, shape, sizeof(int64_t) * (size_t)rank);
    memcpy(y.shape, shape, sizeof(int64_t) * (size_t)rank);
    int ax = (int)(axis < 0 ? axis + rank : axis);
    int64_t st = 1;
    for (int d = ax + 1; d < rank; d++)
        st *= shape[d];
    /* y[i] = sum of x[j] on i's line with j before i (or after, reversed);
     * exclusive leaves out j == i */
    for (int64_t i = 0; i < n; i++) {
        int64_t pos = (i / st) % shape[ax], line0 = i - pos * st;
        double s = 0;
        for (int64_t p = 0; p < shape[ax]; p++) {
            int take = rev ? p > pos : p < pos;
            if (take || (p == pos && !excl))
                s += xd[line0 + p * st];
        }
        want[i] = s;
    }
    int64_t a = axis;
    int32_t a32 = (int32_t)axis;
    cairn_tensor_t at = (rev ^ excl) ? (cairn_tensor_t){CAIRN_I32, 0, {0}, &a32}
                                     : (cairn_tensor_t){CAIRN_I64, 0, {0}, &a};
    char what[128];
    snprintf(what, sizeof what, "CumSum %s axis %lld excl %d rev %d", cairn_dtype_name(dt),
             (long long)axis, excl, rev);
    cairn_status_t s = run_cumsum(&x, &at, (int)(axis & 1), excl, rev, &y);
    CHECK_MSG(s == CAIRN_OK, "%s: %s", what, cairn_last_error());
    double tol = dt == CAIRN_F32 ? 1e-6 : dt == CAIRN_F64 ? 1e-12 : dt == CAIRN_F16 ? 1e-3
               : dt == CAIRN_BF16 ? 8e-3 : 0;
    if (s == CAIRN_OK)
        rt_close(&y, want, tol, tol, what);
    free(xb), free(xd), free(want), free(y.data);
}

static void test_random(void)
{
    check_rng_t rng = {99};
    const int64_t s3[3] = {3, 4, 5};
    for (int64_t axis = -3; axis < 3; axis++)
        for (int c = 0; c < 4; c++)
            run_case(CAIRN_F32, s3, 3, axis, c & 1, c >> 1, &rng);
    const cairn_dtype_t dts[] = {CAIRN_F64, CAIRN_F16, CAIRN_BF16, CAIRN_I32, CAIRN_I64};
    for (int d = 0; d < 5; d++)
        for (int c = 0; c < 4; c++)
            run_case(dts[d], s3, 3, (d + c) % 3, c & 1, c >> 1, &rng);
    const int64_t wide[3] = {3, 7, 600}, big[2] = {300, 200};
    rt_threads = 2;
    run_case(CAIRN_F32, wide, 3, 1, 1, 0, &rng);
    run_case(CAIRN_F32, wide, 3, -1, 0, 1, &rng);
    run_case(CAIRN_I32, big, 2, 0, 1, 1, &rng);
    rt_threads = 1;
}

static void test_errors(void)
{
    float xb[6] = {0}, yb[6];
    cairn_tensor_t x = {CAIRN_F32, 2, {2, 3}, xb}, y = {CAIRN_F32, 2, {2, 3}, yb};
    int64_t a2 = 2, am3 = -3, pair[2] = {0, 1};
    cairn_tensor_t ax2 = {CAIRN_I64, 0, {0}, &a2}, axm3 = {CAIRN_I64, 0, {0}, &am3};
    CHECK_FAILS(run_cumsum(&x, &ax2, 1, 0, 0, &y), CAIRN_ERR_SHAPE, "axis 2 is out of range");
    CHECK_FAILS(run_cumsum(&x, &axm3, 1, 0, 0, &y), CAIRN_ERR_SHAPE, "out of range");
    /* fed at run time: caught when it is read */
    CHECK_FAILS(run_cumsum(&x, &ax2, 0, 0, 0, &y), CAIRN_ERR_RUNTIME, "axis = 2 is out of range");
    cairn_tensor_t axv = {CAIRN_I64, 1, {2}, pair};
    CHECK_FAILS(run_cumsum(&x, &axv, 1, 0, 0, &y), CAIRN_ERR_SHAPE, "scalar");
    float af = 0;
    cairn_tensor_t axf = {CAIRN_F32, 0, {0}, &af};
    CHECK_FAILS(run_cumsum(&x, &axf, 1, 0, 0, &y), CAIRN_ERR_DTYPE, "input 1");
    int8_t x8[2] = {0}, y8[2];
    cairn_tensor_t xi8 = {CAIRN_I8, 1, {2}, x8}, yi8 = {CAIRN_I8, 1, {2}, y8};
    int64_t a0 = 0;
    cairn_tensor_t ax0 = {CAIRN_I64, 0, {0}, &a0};
    CHECK_FAILS(run_cumsum(&xi8, &ax0, 1, 0, 0, &yi8), CAIRN_ERR_DTYPE, "i8");
    CHECK_FAILS(run_cumsum(&x, &ax0, 1, 3, 0, &y), CAIRN_ERR_INVALID_ARGUMENT, "exclusive = 3");
}

int main(void)
{
    test_literals();
    test_random();
    test_errors();
    return check_finish("test_reduce_cumsum");
}
