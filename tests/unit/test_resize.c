/* Resize through the public API: hand-computed cases for each mode and
 * coordinate transform, random cases against a separable double-precision
 * reference written here from the ONNX formulas (one axis at a time, while
 * the kernel combines the taps of all axes), dtypes, and error paths. */
#include "op_test_util.h"

static cairn_attr_t S(const char *n, const char *v) { return cairn_attr_string(n, v); }

/* Resize of a 1-D float tensor with scales (or sizes when n_sizes > 0). */
static cairn_status_t resize1(const double *x, int64_t n, const float *scales,
                              const int64_t *sizes, const float *roi, const cairn_attr_t *a,
                              int na, double *y, int64_t ny)
{
    int64_t one = 1, two = 2;
    cairn_tensor_t in[4];
    memset(in, 0, sizeof in);
    in[0] = from_doubles(CAIRN_F32, 1, &n, x);
    if (roi)
        in[1] = (cairn_tensor_t){CAIRN_F32, 1, {two}, (void *)roi};
    if (scales)
        in[2] = (cairn_tensor_t){CAIRN_F32, 1, {one}, (void *)scales};
    if (sizes)
        in[3] = (cairn_tensor_t){CAIRN_I64, 1, {one}, (void *)sizes};
    cairn_tensor_t out = make_out(CAIRN_F32, 1, &ny);
    cairn_status_t s = run_op("Resize", in, 4, 0xe, a, na, &out, 1);
    for (int64_t i = 0; s == CAIRN_OK && i < ny; i++)
        y[i] = at(&out, i);
    drop(&in[0]);
    drop(&out);
    return s;
}

static void expect(const double *got, const double *want, int64_t n, double tol, const char *what)
{
    for (int64_t i = 0; i < n; i++)
        CHECK_MSG(fabs(got[i] - want[i]) <= tol, "%s: element %lld: got %g, want %g", what,
                  (long long)i, got[i], want[i]);
}

static void test_literal_1d(void)
{
    double y[8];
    double x2[2] = {0, 10};
    int64_t four = 4;
    /* half_pixel: x = (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25 */
    cairn_attr_t lin[2] = {S("mode", "linear"), S("coordinate_transformation_mode", "half_pixel")};
    CHECK_OK(resize1(x2, 2, NULL, &four, NULL, lin, 2, y, 4));
    expect(y, (double[]){0, 2.5, 7.5, 10}, 4, 1e-6, "linear half_pixel");
    lin[1] = S("coordinate_transformation_mode", "asymmetric");
    CHECK_OK(resize1(x2, 2, NULL, &four, NULL, lin, 2, y, 4));
    expect(y, (double[]){0, 5, 10, 10}, 4, 1e-6, "linear asymmetric");
    lin[1] = S("coordinate_transformation_mode", "align_corners");
    CHECK_OK(resize1(x2, 2, NULL, &four, NULL, lin, 2, y, 4));
    expect(y, (double[]){0, 10.0 / 3, 20.0 / 3, 10}, 4, 1e-5, "linear align_corners");
    lin[1] = S("coordinate_transformation_mode", "pytorch_half_pixel");
    CHECK_OK(resize1(x2, 2, NULL, &four, NULL, lin, 2, y, 4));
    expect(y, (double[]){0, 2.5, 7.5, 10}, 4, 1e-6, "linear pytorch_half_pixel");

    /* nearest, asymmetric, scale 2: x = 0, .5, 1, 1.5, 2, 2.5 */
    double x3[3] = {10, 20, 30};
    float two = 2;
    static const char *modes[4] = {"floor", "ceil", "round_prefer_floor", "round_prefer_ceil"};
    static const double want[4][6] = {{10, 10, 20, 20, 30, 30},
                                      {10, 20, 20, 30, 30, 30},
                                      {10, 10, 20, 20, 30, 30},
                                      {10, 20, 20, 30, 30, 30}};
    for (int m = 0; m < 4; m++) {
        cairn_attr_t a[2] = {S("nearest_mode", modes[m]),
                             S("coordinate_transformation_mode", "asymmetric")};
        CHECK_OK(resize1(x3, 3, &two, NULL, NULL, a, 2, y, 6));
        expect(y, want[m], 6, 0, modes[m]);
    }
    /* tf_half_pixel_for_nn, downsample 4 -> 2: x = (o + .5) * 2 = 1, 3 */
    double x4[4] = {0, 10, 20, 30};
    int64_t twoi = 2;
    cairn_attr_t nn[1] = {S("coordinate_transformation_mode", "tf_half_pixel_for_nn")};
    CHECK_OK(resize1(x4, 4, NULL, &twoi, NULL, nn, 1, y, 2));
    expect(y, (double[]){10, 30}, 2, 0, "tf_half_pixel_for_nn");

    /* cubic with A = -0.5 reproduces a linear ramp where all four taps
     * are inside: scale 2, half_pixel: o = 3 -> x = 1.25, o = 4 -> 1.75 */
    cairn_attr_t cu[2] = {S("mode", "cubic"), cairn_attr_float("cubic_coeff_a", -0.5f)};
    CHECK_OK(resize1(x4, 4, &two, NULL, NULL, cu, 2, y, 8));
    expect(y + 3, (double[]){12.5, 17.5}, 2, 1e-5, "cubic interior");
    CHECK_OK(resize1(x4, 4, &two, NULL, NULL, cu, 1, y, 8));
    /* at x = 0.75 (o = 2) the left tap is clamped: taps 0,0,10,20 with
     * A = -0.75 weights for t = .75: W(1.75), W(.75), W(.25), W(1.25) */
    {
        double A = -0.75, t = 0.75, s[4] = {1 + t, t, 1 - t, 2 - t}, w[4];
        for (int i = 0; i < 4; i++) {
            double u = s[i];
            w[i] = u <= 1 ? (A + 2) * u * u * u - (A + 3) * u * u + 1
                          : A * u * u * u - 5 * A * u * u + 8 * A * u - 4 * A;
        }
        double want2 = w[0] * 0 + w[1] * 0 + w[2] * 10 + w[3] * 20;
        expect(y + 2, &want2, 1, 1e-5, "cubic clamped");
    }

    /* tf_crop_and_resize: roi [0.5, 1.5] of 4 elements, 3 outputs:
     * x = 1.5 + o * 1.5 = 1.5, 3, 4.5 (outside: extrapolation_value) */
    float roi[2] = {0.5f, 1.5f};
    int64_t three = 3;
    cairn_attr_t cr[3] = {S("mode", "linear"), S("coordinate_transformation_mode", "tf_crop_and_resize"),
                          cairn_attr_float("extrapolation_value", -1)};
    CHECK_OK(resize1(x4, 4, NULL, &three, roi, cr, 3, y, 3));
    expect(y, (double[]){15, 30, -1}, 3, 1e-5, "tf_crop_and_resize");
}

/* The ONNX example: 2x2 -> 4x6 nearest with the defaults. */
static void test_literal_2d(void)
{
    int64_t xs[4] = {1, 1, 2, 2}, ys[4] = {1, 1, 4, 6}, four = 4;
    cairn_tensor_t in[3];
    memset(in, 0, sizeof in);
    in[0] = from_doubles(CAIRN_F32, 4, xs, (double[]){1, 2, 3, 4});
    float sc[4] = {1, 1, 2, 3};
    in[2] = (cairn_tensor_t){CAIRN_F32, 1, {four}, sc};
    cairn_tensor_t out = make_out(CAIRN_F32, 4, ys);
    CHECK_OK(run_op("Resize", in, 3, 4, NULL, 0, &out, 1));
    double want[24] = {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4};
    check_near(&out, want, 0, "nearest 2x3");
    drop(&out);

    /* linear with align_corners downsampling by 0.6: the resized length is
     * 4 * 0.6 = 2.4 before flooring, so x = 1 * 3 / 1.4 (ONNX's test) */
    int64_t xs2[4] = {1, 1, 2, 4}, ys2[4] = {1, 1, 1, 2};
    drop(&in[0]);
    in[0] = from_doubles(CAIRN_F32, 4, xs2, (double[]){1, 2, 3, 4, 5, 6, 7, 8});
    float sc2[4] = {1, 1, 0.6f, 0.6f};
    in[2].data = sc2;
    cairn_attr_t a[2] = {S("mode", "linear"), S("coordinate_transformation_mode", "align_corners")};
    out = make_out(CAIRN_F32, 4, ys2);
    CHECK_OK(run_op("Resize", in, 3, 4, a, 2, &out, 1));
    check_near(&out, (double[]){1, 1 + 3 / 1.4}, 1e-6, "linear align_corners 0.6");
    drop(&out);
    drop(&in[0]);
}

/* ---- the independent reference ---- */

typedef struct ref_p {
    int mode; /* 0 nearest 1 linear 2 cubic */
    int coord; /* index into coords[] */
    int nearest;
    double A;
    int exclude;
    double extrap;
} ref_p_t;

static const char *coords[6] = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                "asymmetric", "tf_crop_and_resize", "tf_half_pixel_for_nn"};
static const char *nmodes[4] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
static const char *imodes[3] = {"nearest", "linear", "cubic"};

static double keys(double s, double A)
{
    s = fabs(s);
    if (s <= 1)
        return (A + 2) * s * s * s - (A + 3) * s * s + 1;
    if (s < 2)
        return A * s * s * s - 5 * A * s * s + 8 * A * s - 4 * A;
    return 0;
}

static int64_t clampi(int64_t i, int64_t n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }

/* One output coordinate of a 1-D resample. */
static double ref_sample(const double *src, int64_t sstride, int64_t in, double x,
                         const ref_p_t *p)
{
    if (p->coord == 4 && (x < 0 || x > (double)(in - 1)))
        return p->extrap;
    if (p->mode == 0) {
        double r;
        switch (p->nearest) {
        case 0: r = ceil(x - 0.5); break;
        case 1: r = floor(x + 0.5); break;
        case 2: r = floor(x); break;
        default: r = ceil(x); break;
        }
        return src[clampi((int64_t)r, in) * sstride];
    }
    int64_t i0 = (int64_t)floor(x);
    double t = x - floor(x);
    if (p->mode == 1)
        return (1 - t) * src[clampi(i0, in) * sstride] + t * src[clampi(i0 + 1, in) * sstride];
    double w[4], sum = 0, v = 0;
    for (int k = 0; k < 4; k++) {
        int64_t j = i0 - 1 + k;
        w[k] = keys(x - (double)j, p->A);
        if (p->exclude && (j < 0 || j >= in))
            w[k] = 0;
        sum += w[k];
    }
    for (int k = 0; k < 4; k++)
        v += (p->exclude ? w[k] / sum : w[k]) * src[clampi(i0 - 1 + k, in) * sstride];
    return v;
}

static double ref_coord(const ref_p_t *p, double o, int64_t in, double scale, double lr,
                        double a, double b)
{
    switch (p->coord) {
    case 0: return (o + 0.5) / scale - 0.5;
    case 1: return lr > 1 ? (o + 0.5) / scale - 0.5 : 0;
    case 2: return lr == 1 ? 0 : o * (double)(in - 1) / (lr - 1);
    case 3: return o / scale;
    case 4: return lr > 1 ? a * (double)(in - 1) + o * (b - a) * (double)(in - 1) / (lr - 1)
                          : 0.5 * (a + b) * (double)(in - 1);
    default: return (o + 0.5) / scale;
    }
}

static void test_random(void)
{
    check_rng_t r = {0x12345678abcdefull};
    static const float scale_set[8] = {0.5f, 0.6f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 0.75f};
    for (int it = 0; it < 300; it++) {
        int rank = 1 + (int)(check_rng_next(&r) % 4);
        ref_p_t p = {(int)(check_rng_next(&r) % 3), (int)(check_rng_next(&r) % 6),
                     (int)(check_rng_next(&r) % 4), check_rng_uniform(&r, -0.9, -0.4),
                     (int)(check_rng_next(&r) % 2), check_rng_uniform(&r, -5, 5)};
        p.A = (float)p.A; /* as the attribute carries it */
        int use_sizes = (int)(check_rng_next(&r) % 2);
        cairn_dtype_t dt = it % 7 == 3 ? CAIRN_F64 : it % 11 == 5 ? CAIRN_F16 : CAIRN_F32;
        if (p.mode == 0 && it % 13 == 1)
            dt = CAIRN_I8;
        int64_t xs[4], ys[4], n_in = 1;
        float sc[4], roi[8];
        int64_t sz[4];
        double scale[4], lr[4];
        for (int d = 0; d < rank; d++) {
            xs[d] = 1 + (int64_t)(check_rng_next(&r) % 5);
            n_in *= xs[d];
            roi[d] = (float)check_rng_uniform(&r, -0.2, 0.5);
            roi[d + rank] = (float)check_rng_uniform(&r, 0.5, 1.2);
            double crop = p.coord == 4 ? (double)roi[d + rank] - (double)roi[d] : 1.0;
            if (use_sizes) {
                sz[d] = 1 + (int64_t)(check_rng_next(&r) % 7);
                ys[d] = sz[d];
                scale[d] = (double)sz[d] / (double)xs[d];
                lr[d] = (double)sz[d];
            } else {
                sc[d] = scale_set[check_rng_next(&r) % 8];
                scale[d] = sc[d];
                lr[d] = (double)xs[d] * crop * scale[d];
                ys[d] = (int64_t)floor(lr[d]);
            }
        }
        int64_t n_out = 1;
        for (int d = 0; d < rank; d++)
            n_out *= ys[d];
        /* reference: resample axis by axis in double */
        cairn_tensor_t x = make_rand(&r, dt, rank, xs, -10, 10);
        int64_t cur[4];
        memcpy(cur, xs, sizeof cur);
        int64_t cap = 1;
        for (int d = 0; d < rank; d++)
            cap *= (xs[d] > ys[d] ? xs[d] : ys[d]);
        double *a = malloc((size_t)(cap ? cap : 1) * sizeof *a);
        double *b = malloc((size_t)(cap ? cap : 1) * sizeof *b);
        for (int64_t i = 0; i < n_in; i++)
            a[i] = at(&x, i);
        for (int d = 0; d < rank; d++) {
            int64_t outer = 1, inner = 1;
            for (int e = 0; e < d; e++)
                outer *= cur[e];
            for (int e = d + 1; e < rank; e++)
                inner *= cur[e];
            for (int64_t o = 0; o < outer; o++)
                for (int64_t j = 0; j < ys[d]; j++) {
                    double xc = ref_coord(&p, (double)j, xs[d], scale[d], lr[d], roi[d],
                                          roi[d + rank]);
                    for (int64_t i = 0; i < inner; i++)
                        b[(o * ys[d] + j) * inner + i] =
                            xs[d] ? ref_sample(a + o * xs[d] * inner + i, inner, xs[d], xc, &p) : 0;
                }
            cur[d] = ys[d];
            double *t = a;
            a = b, b = t;
        }
        cairn_tensor_t in[4];
        memset(in, 0, sizeof in);
        in[0] = x;
        if (p.coord == 4)
            in[1] = (cairn_tensor_t){CAIRN_F32, 1, {2 * rank}, roi};
        int64_t rk = rank;
        if (use_sizes)
            in[3] = (cairn_tensor_t){CAIRN_I64, 1, {rk}, sz};
        else
            in[2] = (cairn_tensor_t){CAIRN_F32, 1, {rk}, sc};
        cairn_attr_t at_[5] = {S("mode", imodes[p.mode]),
                               S("coordinate_transformation_mode", coords[p.coord]),
                               S("nearest_mode", nmodes[p.nearest]),
                               cairn_attr_float("cubic_coeff_a", (float)p.A),
                               cairn_attr_int("exclude_outside", p.exclude)};
        cairn_tensor_t out = make_out(dt, rank, ys);
        /* every other case feeds scales/sizes as graph inputs, so the plan
         * specialises on their values */
        unsigned mask = it % 2 ? 0xe : 0x0;
        cairn_status_t s = run_op("Resize", in, 4, mask, at_, 5, &out, 1);
        CHECK_MSG(s == CAIRN_OK, "case %d: %s", it, cairn_last_error());
        /* recompute the reference with the extrapolation value Resize
         * used (default 0: the attribute is not set here) */
        if (s == CAIRN_OK && p.coord != 4) {
            double tol = dt == CAIRN_I8 ? 0 : tol_of(dt) * 10;
            if (dt == CAIRN_I8)
                for (int64_t i = 0; i < n_out; i++)
                    a[i] = (double)(int8_t)a[i];
            char what[128];
            snprintf(what, sizeof what, "case %d: %s %s %s rank %d", it, imodes[p.mode],
                     coords[p.coord], use_sizes ? "sizes" : "scales", rank);
            check_near(&out, a, tol, what);
        }
        drop(&out);
        drop(&x);
        free(a);
        free(b);
    }
}

/* tf_crop_and_resize with extrapolation, 2-D, against the reference. */
static void test_crop_random(void)
{
    check_rng_t r = {0xfeedbeefull};
    for (int it = 0; it < 60; it++) {
        ref_p_t p = {(int)(check_rng_next(&r) % 3), 4, 0, -0.75, 0,
                     (float)check_rng_uniform(&r, -5, 5)};
        int64_t xs[2] = {2 + (int64_t)(check_rng_next(&r) % 4), 2 + (int64_t)(check_rng_next(&r) % 4)};
        int64_t ys[2] = {1 + (int64_t)(check_rng_next(&r) % 6), 1 + (int64_t)(check_rng_next(&r) % 6)};
        float roi[4] = {(float)check_rng_uniform(&r, -0.5, 0.5), (float)check_rng_uniform(&r, -0.5, 0.5),
                        (float)check_rng_uniform(&r, 0.5, 1.5), (float)check_rng_uniform(&r, 0.5, 1.5)};
        cairn_tensor_t x = make_rand(&r, CAIRN_F64, 2, xs, -3, 3);
        double *want = malloc((size_t)(ys[0] * ys[1]) * sizeof *want);
        double *tmp = malloc((size_t)(ys[0] * xs[1]) * sizeof *tmp);
        const double *xv = x.data;
        for (int64_t i = 0; i < ys[0]; i++) {
            double yc = ref_coord(&p, (double)i, xs[0], 0, (double)ys[0], roi[0], roi[2]);
            for (int64_t j = 0; j < xs[1]; j++)
                tmp[i * xs[1] + j] = ref_sample(xv + j, xs[1], xs[0], yc, &p);
        }
        for (int64_t i = 0; i < ys[0]; i++)
            for (int64_t j = 0; j < ys[1]; j++) {
                double xc = ref_coord(&p, (double)j, xs[1], 0, (double)ys[1], roi[1], roi[3]);
                want[i * ys[1] + j] = ref_sample(tmp + i * xs[1], 1, xs[1], xc, &p);
            }
        cairn_tensor_t in[4];
        memset(in, 0, sizeof in);
        in[0] = x;
        in[1] = (cairn_tensor_t){CAIRN_F32, 1, {4}, roi};
        in[3] = (cairn_tensor_t){CAIRN_I64, 1, {2}, ys};
        cairn_attr_t a[3] = {S("mode", imodes[p.mode]),
                             S("coordinate_transformation_mode", "tf_crop_and_resize"),
                             cairn_attr_float("extrapolation_value", (float)p.extrap)};
        cairn_tensor_t out = make_out(CAIRN_F64, 2, ys);
        CHECK_OK(run_op("Resize", in, 4, 0xe, a, 3, &out, 1));
        char what[64];
        snprintf(what, sizeof what, "crop case %d (%s)", it, imodes[p.mode]);
        check_near(&out, want, 1e-9, what);
        drop(&out);
        drop(&x);
        free(want);
        free(tmp);
    }
}

static void test_dtypes(void)
{
    int64_t xs[2] = {2, 2}, ys[2] = {2, 4}, two = 2;
    float sc[2] = {1, 2};
    for (int t = 0; t < 4; t++) {
        cairn_tensor_t in[3];
        memset(in, 0, sizeof in);
        in[0] = from_doubles(float_types[t], 2, xs, (double[]){1, 2, 3, 4});
        in[2] = (cairn_tensor_t){CAIRN_F32, 1, {two}, sc};
        cairn_attr_t a[2] = {S("mode", "linear"), S("coordinate_transformation_mode", "asymmetric")};
        cairn_tensor_t out = make_out(float_types[t], 2, ys);
        CHECK_OK(run_op("Resize", in, 3, 4, a, 2, &out, 1));
        check_near(&out, (double[]){1, 1.5, 2, 2, 3, 3.5, 4, 4}, 1e-6, "linear dtypes");
        drop(&out);
        drop(&in[0]);
    }
    /* nearest on integers copies exactly, even beyond 2^53 */
    int64_t big[2] = {INT64_MAX, -3}, got[4];
    int64_t one = 2;
    cairn_tensor_t in[3];
    memset(in, 0, sizeof in);
    in[0] = (cairn_tensor_t){CAIRN_I64, 1, {one}, big};
    float s2 = 2;
    in[2] = (cairn_tensor_t){CAIRN_F32, 1, {1}, &s2};
    cairn_tensor_t out = {CAIRN_I64, 1, {4}, got};
    CHECK_OK(run_op("Resize", in, 3, 4, NULL, 0, &out, 1));
    CHECK(got[0] == INT64_MAX && got[1] == INT64_MAX && got[2] == -3 && got[3] == -3);
}

static void test_errors(void)
{
    int64_t xs[2] = {2, 2}, ys[2] = {4, 4};
    cairn_tensor_t in[4];
    memset(in, 0, sizeof in);
    in[0] = from_doubles(CAIRN_F32, 2, xs, (double[]){1, 2, 3, 4});
    float sc[3] = {2, 2, 2};
    int64_t sz[2] = {4, 4};
    cairn_tensor_t out = make_out(CAIRN_F32, 2, ys);
    in[2] = (cairn_tensor_t){CAIRN_F32, 1, {2}, sc};
    in[3] = (cairn_tensor_t){CAIRN_I64, 1, {2}, sz};
    CHECK_FAILS(run_op("Resize", in, 4, 0xe, NULL, 0, &out, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "both scales");
    in[3].dtype = CAIRN_DTYPE_UNDEFINED;
    in[2].dtype = CAIRN_DTYPE_UNDEFINED;
    CHECK_FAILS(run_op("Resize", in, 4, 0xe, NULL, 0, &out, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "neither scales nor sizes");
    in[2] = (cairn_tensor_t){CAIRN_F32, 1, {3}, sc};
    CHECK_FAILS(run_op("Resize", in, 3, 4, NULL, 0, &out, 1), CAIRN_ERR_SHAPE,
                "scales has 3 values");
    in[2].shape[0] = 2;
    cairn_attr_t bad[1] = {S("mode", "bilinear")};
    CHECK_FAILS(run_op("Resize", in, 3, 4, bad, 1, &out, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "mode is 'bilinear'");
    bad[0] = S("coordinate_transformation_mode", "corners");
    CHECK_FAILS(run_op("Resize", in, 3, 4, bad, 1, &out, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "coordinate_transformation_mode is 'corners'");
    bad[0] = S("nearest_mode", "round");
    CHECK_FAILS(run_op("Resize", in, 3, 4, bad, 1, &out, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "nearest_mode is 'round'");
    bad[0] = S("coordinate_transformation_mode", "tf_crop_and_resize");
    CHECK_FAILS(run_op("Resize", in, 3, 4, bad, 1, &out, 1), CAIRN_ERR_SHAPE, "roi");
    float neg[2] = {-1, 2};
    in[2].data = neg;
    CHECK_FAILS(run_op("Resize", in, 3, 4, NULL, 0, &out, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "scales[0] is -1");
    in[2].data = sc;
    int8_t xi[4] = {1, 2, 3, 4};
    cairn_tensor_t xint = {CAIRN_I8, 2, {2, 2}, xi};
    cairn_tensor_t in2[3] = {xint, {0}, in[2]};
    cairn_attr_t lin[1] = {S("mode", "linear")};
    int8_t yo[16];
    cairn_tensor_t outi = {CAIRN_I8, 2, {4, 4}, yo};
    CHECK_FAILS(run_op("Resize", in2, 3, 4, lin, 1, &outi, 1), CAIRN_ERR_DTYPE, "input 0 has type i8");
    /* sizes of the wrong type */
    int32_t sz32[2] = {4, 4};
    in[2].dtype = CAIRN_DTYPE_UNDEFINED;
    in[3] = (cairn_tensor_t){CAIRN_I32, 1, {2}, sz32};
    CHECK_FAILS(run_op("Resize", in, 4, 0xe, NULL, 0, &out, 1), CAIRN_ERR_DTYPE, "input 3 has type i32");
    drop(&out);
    drop(&in[0]);
}

int main(void)
{
    test_literal_1d();
    test_literal_2d();
    test_random();
    test_crop_random();
    test_dtypes();
    test_errors();
    return check_finish("test_resize");
}
