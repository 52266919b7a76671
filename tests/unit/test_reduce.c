/* The Reduce* ops: literal cases, every axes subset of a rank-3 tensor
 * against a brute-force double reference, dtypes, empty dims, errors. */
#include "test_reduce_common.h"

static const char *const ops[] = {"ReduceSum",  "ReduceMean",   "ReduceMax",      "ReduceMin",
                                  "ReduceProd", "ReduceL1",     "ReduceL2",       "ReduceLogSum",
                                  "ReduceLogSumExp", "ReduceSumSquare"};
enum { N_OPS = 10 };

/* Runs op on x with the given axes (NULL: none given), keepdims, into y
 * (shape set by the caller). ReduceSum gets its axes as a constant input;
 * the others as the attribute. */
static cairn_status_t run_reduce(const char *op, const cairn_tensor_t *x, const int64_t *axes,
                                 int n_axes, int keepdims, int noop, cairn_tensor_t *y)
{
    cairn_attr_t at[3];
    int na = 0;
    at[na++] = cairn_attr_int("keepdims", keepdims);
    if (noop >= 0)
        at[na++] = cairn_attr_int("noop_with_empty_axes", noop);
    cairn_tensor_t ax = {CAIRN_I64, 1, {n_axes}, (void *)axes};
    rt_in_t in[2] = {{x, 0}, {NULL, 1}};
    int n_in = 1;
    if (!strcmp(op, "ReduceSum")) {
        if (axes) {
            in[1].t = &ax;
            n_in = 2;
        }
    } else if (axes) {
        at[na++] = cairn_attr_ints("axes", axes, (size_t)n_axes);
    }
    rt_poison(y);
    return rt_run(op, in, n_in, at, na, y, 1);
}

/* Brute force: each x[i] goes to the output whose coordinates are i's kept
 * ones; every statistic is gathered in double, then the op's is picked. */
static void ref_reduce(const char *op, const double *x, const int64_t *shape, int rank,
                       uint32_t mask, double *y, int64_t ny)
{
    int64_t nx = rt_numel(shape, rank);
    double *acc = calloc((size_t)(ny + 1) * 7, sizeof(double));
    int64_t *cnt = calloc((size_t)ny + 1, sizeof(int64_t));
    double *sum = acc, *asum = acc + ny, *sq = acc + 2 * ny, *prod = acc + 3 * ny,
           *mx = acc + 4 * ny, *mn = acc + 5 * ny, *se = acc + 6 * ny;
    for (int64_t o = 0; o < ny; o++)
        prod[o] = 1, mx[o] = -INFINITY, mn[o] = INFINITY;
    for (int64_t i = 0; i < nx; i++) {
        int64_t rem = i, o = 0, mul = 1;
        for (int d = rank - 1; d >= 0; d--) {
            int64_t c = rem % shape[d];
            rem /= shape[d];
            if (!(mask >> d & 1)) {
                o += c * mul;
                mul *= shape[d];
            }
        }
        double v = x[i];
        sum[o] += v, asum[o] += fabs(v), sq[o] += v * v, prod[o] *= v, se[o] += exp(v), cnt[o]++;
        if (v > mx[o])
            mx[o] = v;
        if (v < mn[o])
            mn[o] = v;
    }
    for (int64_t o = 0; o < ny; o++) {
        double r = 0;
        if (!strcmp(op, "ReduceSum")) r = sum[o];
        else if (!strcmp(op, "ReduceMean")) r = cnt[o] ? sum[o] / (double)cnt[o] : NAN;
        else if (!strcmp(op, "ReduceMax")) r = mx[o];
        else if (!strcmp(op, "ReduceMin")) r = mn[o];
        else if (!strcmp(op, "ReduceProd")) r = prod[o];
        else if (!strcmp(op, "ReduceL1")) r = asum[o];
        else if (!strcmp(op, "ReduceL2")) r = sqrt(sq[o]);
        else if (!strcmp(op, "ReduceLogSum")) r = log(sum[o]);
        else if (!strcmp(op, "ReduceLogSumExp")) r = log(se[o]);
        else if (!strcmp(op, "ReduceSumSquare")) r = sq[o];
        y[o] = r;
    }
    free(acc);
    free(cnt);
}

static uint32_t mask_of(const int64_t *axes, int n, int rank)
{
    uint32_t m = 0;
    if (!axes || n == 0)
        return (1u << rank) - 1u;
    for (int i = 0; i < n; i++)
        m |= 1u << (axes[i] < 0 ? axes[i] + rank : axes[i]);
    return m;
}

static void out_shape(const int64_t *shape, int rank, uint32_t mask, int keep, cairn_tensor_t *y)
{
    y->rank = 0;
    for (int d = 0; d < rank; d++) {
        if (!(mask >> d & 1))
            y->shape[y->rank++] = shape[d];
        else if (keep)
            y->shape[y->rank++] = 1;
    }
}

/* x (dtype dt, shape) filled from rng; checks op over axes vs reference. */
static void check_one(const char *op, cairn_dtype_t dt, const int64_t *shape, int rank,
                      const int64_t *axes, int n_axes, int keep, check_rng_t *rng)
{
    int64_t nx = rt_numel(shape, rank);
    double *xd = malloc(sizeof(double) * (size_t)(nx + 1));
    void *xb = malloc(cairn_dtype_size(dt) * (size_t)(nx + 1));
    cairn_tensor_t x = {dt, rank, {0}, xb};
    memcpy(x.shape, shape, sizeof(int64_t) * (size_t)rank);
    int is_int = dt == CAIRN_I32 || dt == CAIRN_I64 || dt == CAIRN_I8 || dt == CAIRN_U8;
    int prod = !strcmp(op, "ReduceProd"), logsum = !strcmp(op, "ReduceLogSum");
    for (int64_t i = 0; i < nx; i++) {
        double v;
        if (is_int)
            v = (double)(int64_t)check_rng_uniform(rng, dt == CAIRN_U8 ? 0 : -5, 6);
        else if (prod)
            v = check_rng_uniform(rng, 0.8, 1.25) * (check_rng_next(rng) & 1 ? 1 : -1);
        else if (logsum)
            v = check_rng_uniform(rng, 0.1, 2.0);
        else
            v = check_rng_uniform(rng, -2.0, 2.0);
        base_store_from_double(xb, dt, i, v);
        xd[i] = base_load_as_double(xb, dt, i); /* what the op really sees */
    }
    uint32_t mask = mask_of(axes, n_axes, rank);
    cairn_tensor_t y = {dt, 0, {0}, NULL};
    out_shape(shape, rank, mask, keep, &y);
    int64_t ny = rt_numel(y.shape, y.rank);
    double *want = malloc(sizeof(double) * (size_t)(ny + 1));
    y.data = malloc(cairn_dtype_size(dt) * (size_t)(ny + 1));
    ref_reduce(op, xd, shape, rank, mask, want, ny);
    if (is_int) /* integer outputs: truncated (Mean, L2) and wrapped like the type */
        for (int64_t o = 0; o < ny; o++) {
            int64_t w = (int64_t)want[o];
            base_store_from_double(y.data, dt, 0, (double)w);
            want[o] = dt == CAIRN_I64 ? (double)w : base_load_as_double(y.data, dt, 0);
        }
    char what[160];
    snprintf(what, sizeof what, "%s %s rank %d mask %x keep %d", op, cairn_dtype_name(dt), rank,
             mask, keep);
    cairn_status_t s = run_reduce(op, &x, axes, n_axes, keep, -1, &y);
    CHECK_MSG(s == CAIRN_OK, "%s: %s", what, cairn_last_error());
    if (s == CAIRN_OK) {
        double tol = dt == CAIRN_F32 ? 2e-6 : dt == CAIRN_F64 ? 1e-12 : dt == CAIRN_F16 ? 2e-3
                   : dt == CAIRN_BF16 ? 1.6e-2 : 0;
        rt_close(&y, want, tol, tol, what);
    }
    free(xd), free(xb), free(want), free(y.data);
}

/* Every subset of {0,1,2} (also with negative spellings), keepdims 0/1,
 * every op, f32 [3,4,5]. */
static void test_all_axes_rank3(void)
{
    check_rng_t rng = {0x1234567u};
    const int64_t shape[3] = {3, 4, 5};
    static const int64_t sets[][3] = {{0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {0, 1, 2},
                                      {-3}, {-2}, {-1}, {2, -3}, {-1, 1}, {-2, 0, 2}};
    static const int lens[] = {1, 1, 1, 2, 2, 2, 3, 1, 1, 1, 2, 2, 3};
    for (int op = 0; op < N_OPS; op++)
        for (int keep = 0; keep <= 1; keep++) {
            check_one(ops[op], CAIRN_F32, shape, 3, NULL, 0, keep, &rng); /* no axes: all */
            for (size_t s = 0; s < sizeof lens / sizeof lens[0]; s++)
                check_one(ops[op], CAIRN_F32, shape, 3, sets[s], lens[s], keep, &rng);
        }
}

/* Allowed dtypes and the kernel's different paths (contiguous rows with
 * chunking, strided columns wider than a chunk, the general odometer,
 * size-1 dims, parallel). */
static void test_dtypes_and_paths(void)
{
    check_rng_t rng = {42};
    const cairn_dtype_t fdt[] = {CAIRN_F64, CAIRN_F16, CAIRN_BF16};
    const int64_t s3[3] = {3, 4, 5};
    const int64_t a1[1] = {1}, a02[2] = {0, 2}, a2[1] = {-1};
    for (int op = 0; op < N_OPS; op++) {
        for (int d = 0; d < 3; d++) {
            check_one(ops[op], fdt[d], s3, 3, a1, 1, 1, &rng);
            check_one(ops[op], fdt[d], s3, 3, a02, 2, 0, &rng);
        }
        /* integer types: exact integer semantics (L2, LogSum* go through double) */
        if (strcmp(ops[op], "ReduceLogSum") && strcmp(ops[op], "ReduceLogSumExp")) {
            check_one(ops[op], CAIRN_I32, s3, 3, a1, 1, 0, &rng);
            check_one(ops[op], CAIRN_I64, s3, 3, a02, 2, 1, &rng);
            check_one(ops[op], CAIRN_I64, s3, 3, NULL, 0, 0, &rng);
        }
    }
    const char *mm[2] = {"ReduceMax", "ReduceMin"};
    for (int i = 0; i < 2; i++) {
        check_one(mm[i], CAIRN_I8, s3, 3, a2, 1, 0, &rng);
        check_one(mm[i], CAIRN_U8, s3, 3, a02, 2, 1, &rng);
    }
    const int64_t rows[2] = {3, 1000}, cols[3] = {3, 5, 600}, big[3] = {4, 100, 100};
    const int64_t s5[5] = {7, 1, 9, 1, 5}, a024[3] = {0, 2, 4}, a13[2] = {1, 3}, a03[2] = {0, 3};
    rt_threads = 2;
    for (int op = 0; op < N_OPS; op++) {
        check_one(ops[op], CAIRN_F32, rows, 2, a2, 1, 0, &rng);
        check_one(ops[op], CAIRN_F32, cols, 3, a1, 1, 1, &rng);
        check_one(ops[op], CAIRN_F32, big, 3, a1, 1, 0, &rng);
        check_one(ops[op], CAIRN_F32, big, 3, a02, 2, 0, &rng);
        check_one(ops[op], CAIRN_F32, big, 3, a2, 1, 1, &rng);
        check_one(ops[op], CAIRN_F32, s5, 5, a024, 3, 0, &rng);
        check_one(ops[op], CAIRN_F32, s5, 5, a13, 2, 1, &rng);
        check_one(ops[op], CAIRN_F32, s5, 5, a03, 2, 0, &rng);
    }
    rt_threads = 1;
}

static void test_literals(void)
{
    float x23[6] = {1, 2, 3, 4, 5, 6};
    cairn_tensor_t x = {CAIRN_F32, 2, {2, 3}, x23};
    float yb[8];
    cairn_tensor_t y = {CAIRN_F32, 1, {2}, yb};
    const int64_t ax1[1] = {1}, ax0[1] = {0}, axm1[1] = {-1};

    CHECK_OK(run_reduce("ReduceSum", &x, ax1, 1, 0, -1, &y));
    CHECK(yb[0] == 6 && yb[1] == 15);
    CHECK_OK(run_reduce("ReduceMin", &x, axm1, 1, 0, -1, &y));
    CHECK(yb[0] == 1 && yb[1] == 4);
    CHECK_OK(run_reduce("ReduceProd", &x, ax1, 1, 0, -1, &y));
    CHECK(yb[0] == 6 && yb[1] == 120);
    cairn_tensor_t y13 = {CAIRN_F32, 2, {1, 3}, yb};
    CHECK_OK(run_reduce("ReduceMean", &x, ax0, 1, 1, -1, &y13));
    CHECK(yb[0] == 2.5f && yb[1] == 3.5f && yb[2] == 4.5f);
    cairn_tensor_t y11 = {CAIRN_F32, 2, {1, 1}, yb};
    CHECK_OK(run_reduce("ReduceMax", &x, NULL, 0, 1, -1, &y11));
    CHECK(yb[0] == 6);
    cairn_tensor_t y0 = {CAIRN_F32, 0, {0}, yb};
    CHECK_OK(run_reduce("ReduceSumSquare", &x, NULL, 0, 0, -1, &y0));
    CHECK(yb[0] == 91);
    /* ReduceSum: an empty axes input reduces all; with noop it is identity */
    const int64_t none[1] = {0};
    CHECK_OK(run_reduce("ReduceSum", &x, none, 0, 0, 0, &y0));
    CHECK(yb[0] == 21);
    cairn_tensor_t y23 = {CAIRN_F32, 2, {2, 3}, yb};
    CHECK_OK(run_reduce("ReduceSum", &x, none, 0, 1, 1, &y23));
    CHECK(!memcmp(yb, x23, sizeof x23));
    CHECK_OK(run_reduce("ReduceSum", &x, NULL, 0, 1, 1, &y23)); /* axes omitted */
    CHECK(!memcmp(yb, x23, sizeof x23));
    CHECK_OK(run_reduce("ReduceSum", &x, ax1, 1, 0, 1, &y)); /* noop only for empty axes */
    CHECK(yb[0] == 6 && yb[1] == 15);

    float m[4] = {1, -2, 3, -4};
    cairn_tensor_t xm = {CAIRN_F32, 2, {2, 2}, m};
    CHECK_OK(run_reduce("ReduceL1", &xm, ax1, 1, 0, -1, &y));
    CHECK(yb[0] == 3 && yb[1] == 7);
    float l2[4] = {3, 4, 6, 8};
    cairn_tensor_t xl = {CAIRN_F32, 2, {2, 2}, l2};
    CHECK_OK(run_reduce("ReduceL2", &xl, ax1, 1, 0, -1, &y));
    CHECK(yb[0] == 5 && yb[1] == 10);
    float p[4] = {1, 2, 3, 4};
    cairn_tensor_t xp = {CAIRN_F32, 2, {2, 2}, p};
    CHECK_OK(run_reduce("ReduceLogSum", &xp, ax1, 1, 0, -1, &y));
    CHECK(fabsf(yb[0] - 1.0986123f) < 1e-6f && fabsf(yb[1] - 1.9459101f) < 1e-6f);
    CHECK_OK(run_reduce("ReduceSumSquare", &xp, ax0, 1, 0, -1, &y));
    CHECK(yb[0] == 10 && yb[1] == 20);
    /* LogSumExp must not overflow: log(e^1000 + e^1000) = 1000 + log 2 */
    float big[4] = {1000, 1000, -1000, -1000};
    cairn_tensor_t xb = {CAIRN_F32, 2, {2, 2}, big};
    CHECK_OK(run_reduce("ReduceLogSumExp", &xb, ax1, 1, 0, -1, &y));
    CHECK(fabsf(yb[0] - 1000.693147f) < 1e-3f && fabsf(yb[1] + 999.306853f) < 1e-3f);
    /* ... nor on a strided set, nor with -inf everywhere */
    CHECK_OK(run_reduce("ReduceLogSumExp", &xb, ax0, 1, 0, -1, &y));
    CHECK(fabsf(yb[0] - 1000.0f) < 1e-3f && fabsf(yb[1] - 1000.0f) < 1e-3f);
    float ninf[4] = {-INFINITY, -INFINITY, 2, -INFINITY};
    cairn_tensor_t xn = {CAIRN_F32, 2, {2, 2}, ninf};
    CHECK_OK(run_reduce("ReduceLogSumExp", &xn, ax1, 1, 0, -1, &y));
    CHECK(yb[0] == -INFINITY && yb[1] == 2.0f);
    /* Max/Min propagate NaN */
    float nan4[4] = {1, NAN, 3, 4};
    cairn_tensor_t xnan = {CAIRN_F32, 2, {2, 2}, nan4};
    CHECK_OK(run_reduce("ReduceMax", &xnan, ax1, 1, 0, -1, &y));
    CHECK(isnan(yb[0]) && yb[1] == 4);
    CHECK_OK(run_reduce("ReduceMin", &xnan, ax0, 1, 0, -1, &y));
    CHECK(yb[0] == 1 && isnan(yb[1]));
    /* a scalar reduces to itself */
    float sc = -3;
    cairn_tensor_t xs = {CAIRN_F32, 0, {0}, &sc};
    CHECK_OK(run_reduce("ReduceL2", &xs, NULL, 0, 1, -1, &y0));
    CHECK(yb[0] == 3);
    /* int64 sums are exact beyond 2^53 */
    int64_t big64[2] = {(int64_t)1 << 62, 1}, y64[1];
    cairn_tensor_t x64 = {CAIRN_I64, 1, {2}, big64}, o64 = {CAIRN_I64, 0, {0}, y64};
    CHECK_OK(run_reduce("ReduceSum", &x64, NULL, 0, 0, 0, &o64));
    CHECK(y64[0] == ((int64_t)1 << 62) + 1);
    /* opset-18 form: axes as input 1 on ReduceMean */
    cairn_tensor_t ax = {CAIRN_I64, 1, {1}, (void *)ax1};
    rt_in_t in[2] = {{&x, 0}, {&ax, 1}};
    cairn_attr_t k0 = cairn_attr_int("keepdims", 0);
    rt_poison(&y);
    CHECK_OK(rt_run("ReduceMean", in, 2, &k0, 1, &y, 1));
    CHECK(yb[0] == 2 && yb[1] == 5);
}

/* A reduced dim of size 0 gives the identity; a kept one an empty output. */
static void test_empty(void)
{
    const int64_t ax1[1] = {1}, ax0[1] = {0};
    float dummy[1] = {0};
    cairn_tensor_t x = {CAIRN_F32, 3, {2, 0, 3}, dummy};
    const double want[N_OPS] = {0, NAN, -INFINITY, INFINITY, 1, 0, 0, -INFINITY, -INFINITY, 0};
    for (int op = 0; op < N_OPS; op++) {
        float yb[6];
        cairn_tensor_t y = {CAIRN_F32, 2, {2, 3}, yb};
        double w[6];
        for (int i = 0; i < 6; i++)
            w[i] = want[op];
        CHECK_MSG(run_reduce(ops[op], &x, ax1, 1, 0, -1, &y) == CAIRN_OK, "%s: %s", ops[op],
                  cairn_last_error());
        rt_close(&y, w, 0, 0, ops[op]);
        cairn_tensor_t ye = {CAIRN_F32, 3, {1, 0, 3}, yb};
        CHECK_OK(run_reduce(ops[op], &x, ax0, 1, 1, -1, &ye));
    }
    /* integer Max of nothing: the type's minimum */
    int32_t xi[1], yi[2];
    cairn_tensor_t x32 = {CAIRN_I32, 2, {2, 0}, xi}, y32 = {CAIRN_I32, 1, {2}, yi};
    CHECK_OK(run_reduce("ReduceMax", &x32, ax1, 1, 0, -1, &y32));
    CHECK(yi[0] == INT32_MIN && yi[1] == INT32_MIN);
}

static void test_errors(void)
{
    float xb[24] = {0}, yb[24];
    cairn_tensor_t x = {CAIRN_F32, 3, {2, 3, 4}, xb};
    cairn_tensor_t y = {CAIRN_F32, 2, {2, 3}, yb};
    const int64_t bad[1] = {3}, badn[1] = {-4}, dup[2] = {1, -2};
    CHECK_FAILS(run_reduce("ReduceMean", &x, bad, 1, 0, -1, &y), CAIRN_ERR_SHAPE,
                "axes[0] = 3 is out of range");
    CHECK_FAILS(run_reduce("ReduceSum", &x, badn, 1, 0, -1, &y), CAIRN_ERR_SHAPE, "-4");
    CHECK_FAILS(run_reduce("ReduceMax", &x, dup, 2, 0, -1, &y), CAIRN_ERR_INVALID_ARGUMENT,
                "twice");
    CHECK_FAILS(run_reduce("ReduceSum", &x, dup, 2, 0, -1, &y), CAIRN_ERR_INVALID_ARGUMENT,
                "twice");
    CHECK_FAILS(run_reduce("ReduceL1", &x, NULL, 0, 2, -1, &y), CAIRN_ERR_INVALID_ARGUMENT,
                "keepdims = 2");
    /* dtypes: ReduceSum has no int8; axes must be int64 */
    int8_t x8[4] = {0};
    cairn_tensor_t xi8 = {CAIRN_I8, 1, {4}, x8};
    CHECK_FAILS(run_reduce("ReduceSum", &xi8, NULL, 0, 0, -1, &y), CAIRN_ERR_DTYPE, "i8");
    int32_t a32[1] = {0};
    cairn_tensor_t ax32 = {CAIRN_I32, 1, {1}, a32};
    rt_in_t in[2] = {{&x, 0}, {&ax32, 1}};
    CHECK_FAILS(rt_run("ReduceSum", in, 2, NULL, 0, &y, 1), CAIRN_ERR_DTYPE, "input 1");
    /* axes fed at run time: the plan is specialised on their value */
    int64_t a64[1] = {2};
    cairn_tensor_t ax64 = {CAIRN_I64, 1, {1}, a64};
    rt_in_t in2[2] = {{&x, 0}, {&ax64, 0}};
    cairn_tensor_t yk = {CAIRN_F32, 3, {2, 3, 1}, yb};
    CHECK_OK(rt_run("ReduceSum", in2, 2, NULL, 0, &yk, 1));
    /* both the attribute and the input */
    rt_in_t in3[2] = {{&x, 0}, {&ax64, 1}};
    cairn_attr_t at = cairn_attr_ints("axes", a64, 1);
    CHECK_FAILS(rt_run("ReduceMean", in3, 2, &at, 1, &yk, 1), CAIRN_ERR_INVALID_ARGUMENT, "both");
    /* axes given as 2-D */
    cairn_tensor_t ax2d = {CAIRN_I64, 2, {1, 1}, a64};
    rt_in_t in4[2] = {{&x, 0}, {&ax2d, 1}};
    CHECK_FAILS(rt_run("ReduceSum", in4, 2, NULL, 0, &yk, 1), CAIRN_ERR_SHAPE, "1-D");
}

/* A symbolic batch dim survives inference and binds per run. */
static void test_symbolic(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dims[2] = {0, 4};
    const char *names[2] = {"batch", NULL};
    cairn_value_id x, y, y2;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dims, names, &x));
    const int64_t ax[1] = {1};
    cairn_attr_t at[2] = {cairn_attr_ints("axes", ax, 1), cairn_attr_int("keepdims", 0)};
    CHECK_OK(cairn_graph_add_node(g, "ReduceMean", "m", &x, 1, at, 2, &y, 1, NULL));
    cairn_attr_t at2[1] = {cairn_attr_int("keepdims", 1)};
    CHECK_OK(cairn_graph_add_node(g, "ReduceMax", "mx", &x, 1, at2, 1, &y2, 1, NULL));
    CHECK_OK(cairn_graph_mark_output(g, y));
    CHECK_OK(cairn_graph_mark_output(g, y2));
    CHECK_OK(cairn_graph_verify(g));
    char *text = NULL;
    CHECK_OK(cairn_graph_print(g, &text));
    CHECK(text && strstr(text, "[batch]") && strstr(text, "[1,1]"));
    free(text);
    cairn_session_t *s;
    CHECK_OK(cairn_session_create(g, NULL, &s));
    for (int b = 1; b <= 3; b++) {
        float in[12], out[3], out2[1];
        for (int i = 0; i < 4 * b; i++)
            in[i] = (float)i;
        cairn_tensor_t ti = {CAIRN_F32, 2, {b, 4}, in};
        cairn_tensor_t to[2] = {{CAIRN_F32, 1, {b}, out}, {CAIRN_F32, 2, {1, 1}, out2}};
        CHECK_OK(cairn_session_run(s, &ti, 1, to, 2));
        for (int i = 0; i < b; i++)
            CHECK(out[i] == (float)(4 * i) + 1.5f);
        CHECK(out2[0] == (float)(4 * b - 1));
    }
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
}

/* f32 Sum and Mean over the last axis, rows taken eight at a time with a
 * tail: each row's double sum in element order, so the same bits as a
 * plain sequential double loop (not only within a tolerance). */
static void test_rows_exact(void)
{
    check_rng_t rng = {0xace1u};
    static const int64_t shapes[][2] = {{37, 100}, {8, 1}, {7, 384}, {128, 384}, {9, 3}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const int64_t R = shapes[si][0], C = shapes[si][1];
        float *x = malloc(sizeof(float) * (size_t)(R * C)), *y = malloc(sizeof(float) * (size_t)R);
        for (int64_t i = 0; i < R * C; i++)
            x[i] = (float)(check_rng_uniform(&rng, -3.0, 3.0) *
                           (check_rng_next(&rng) % 4 == 0 ? 1e4 : 1.0));
        for (int mean = 0; mean < 2; mean++) {
            cairn_tensor_t xt = {CAIRN_F32, 2, {R, C}, x}, yt = {CAIRN_F32, 1, {R}, y};
            const int64_t ax[1] = {1};
            CHECK_OK(run_reduce(mean ? "ReduceMean" : "ReduceSum", &xt, ax, 1, 0, -1, &yt));
            int bad = 0;
            for (int64_t r = 0; r < R && bad < 3; r++) {
                double acc = 0;
                for (int64_t c = 0; c < C; c++)
                    acc += x[r * C + c];
                const float want = (float)(mean ? acc / (double)C : acc);
                if (memcmp(&want, &y[r], sizeof want)) {
                    bad++;
                    CHECK_MSG(0, "%s [%lld x %lld] row %lld: %.9g, want %.9g",
                              mean ? "mean" : "sum", (long long)R, (long long)C, (long long)r,
                              (double)y[r], (double)want);
                }
            }
        }
        free(x), free(y);
    }
}

int main(void)
{
    test_rows_exact();
    test_symbolic();
    test_literals();
    test_empty();
    test_all_axes_rank3();
    test_dtypes_and_paths();
    test_errors();
    return check_finish("test_reduce");
}
