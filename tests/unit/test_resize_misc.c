/* DepthToSpace, SpaceToDepth, GridSample, MaxUnpool, RoiAlign and
 * ReverseSequence through the public API: hand-computed cases, random
 * cases against formulations written here from the ONNX definitions, and
 * error paths. */
#include "op_test_util.h"

static cairn_attr_t S(const char *n, const char *v) { return cairn_attr_string(n, v); }

static cairn_tensor_t iota(cairn_dtype_t t, int rank, const int64_t *shape)
{
    cairn_tensor_t x = make(t, rank, shape);
    for (int64_t i = 0; i < numel(&x); i++)
        base_store_from_double(x.data, t, i, (double)i);
    return x;
}

static void test_depth_space(void)
{
    int64_t xs[4] = {1, 8, 1, 1}, ys[4] = {1, 2, 2, 2};
    cairn_tensor_t x = iota(CAIRN_F32, 4, xs);
    cairn_attr_t a[2] = {cairn_attr_int("blocksize", 2), S("mode", "DCR")};
    cairn_tensor_t y = make_out(CAIRN_F32, 4, ys);
    CHECK_OK(run_op("DepthToSpace", &x, 1, 0, a, 2, &y, 1));
    check_near(&y, (double[]){0, 2, 4, 6, 1, 3, 5, 7}, 0, "DCR");
    a[1] = S("mode", "CRD");
    CHECK_OK(run_op("DepthToSpace", &x, 1, 0, a, 2, &y, 1));
    check_near(&y, (double[]){0, 1, 2, 3, 4, 5, 6, 7}, 0, "CRD");
    drop(&x), drop(&y);

    int64_t xs2[4] = {1, 2, 2, 2}, ys2[4] = {1, 8, 1, 1};
    x = iota(CAIRN_I64, 4, xs2);
    y = make_out(CAIRN_I64, 4, ys2);
    CHECK_OK(run_op("SpaceToDepth", &x, 1, 0, a, 1, &y, 1));
    check_near(&y, (double[]){0, 4, 1, 5, 2, 6, 3, 7}, 0, "SpaceToDepth");
    drop(&x), drop(&y);

    /* random: DepthToSpace as the spec's reshape + transpose, and
     * SpaceToDepth as its inverse in DCR order */
    check_rng_t r = {42};
    for (int it = 0; it < 40; it++) {
        int64_t b = 1 + (int64_t)(check_rng_next(&r) % 3), N = 1 + (int64_t)(check_rng_next(&r) % 2);
        int64_t C = 1 + (int64_t)(check_rng_next(&r) % 3), H = 1 + (int64_t)(check_rng_next(&r) % 3);
        int64_t W = 1 + (int64_t)(check_rng_next(&r) % 4);
        int crd = it % 2;
        int64_t in_s[4] = {N, C * b * b, H, W}, out_s[4] = {N, C, H * b, W * b};
        cairn_dtype_t dt = float_types[it % 4];
        x = make_rand(&r, dt, 4, in_s, -5, 5);
        double *want = malloc((size_t)numel(&x) * sizeof *want);
        /* DCR: tmp[n][b1][b2][c][h][w] -> out[n][c][h][b1][w][b2];
         * CRD: tmp[n][c][b1][b2][h][w] -> same output order */
        for (int64_t n = 0; n < N; n++)
            for (int64_t b1 = 0; b1 < b; b1++)
                for (int64_t b2 = 0; b2 < b; b2++)
                    for (int64_t c = 0; c < C; c++)
                        for (int64_t h = 0; h < H; h++)
                            for (int64_t w = 0; w < W; w++) {
                                int64_t ch = crd ? (c * b + b1) * b + b2 : (b1 * b + b2) * C + c;
                                int64_t src = ((n * C * b * b + ch) * H + h) * W + w;
                                int64_t dst = ((n * C + c) * H * b + h * b + b1) * W * b + w * b + b2;
                                want[dst] = at(&x, src);
                            }
        cairn_attr_t aa[2] = {cairn_attr_int("blocksize", b), S("mode", crd ? "CRD" : "DCR")};
        y = make_out(dt, 4, out_s);
        CHECK_OK(run_op("DepthToSpace", &x, 1, 0, aa, 2, &y, 1));
        check_near(&y, want, 0, "DepthToSpace random");
        if (!crd) {
            cairn_tensor_t back = make_out(dt, 4, in_s);
            CHECK_OK(run_op("SpaceToDepth", &y, 1, 0, aa, 1, &back, 1));
            for (int64_t i = 0; i < numel(&x); i++)
                want[i] = at(&x, i);
            check_near(&back, want, 0, "SpaceToDepth inverts DCR");
            drop(&back);
        }
        free(want);
        drop(&x), drop(&y);
    }

    /* errors */
    int64_t bad_s[4] = {1, 3, 2, 2}, o4[4] = {1, 0, 4, 4};
    x = iota(CAIRN_F32, 4, bad_s);
    y = make_out(CAIRN_F32, 4, o4);
    CHECK_FAILS(run_op("DepthToSpace", &x, 1, 0, a, 1, &y, 1), CAIRN_ERR_SHAPE,
                "multiple of blocksize^2");
    cairn_attr_t m[2] = {cairn_attr_int("blocksize", 2), S("mode", "XYZ")};
    CHECK_FAILS(run_op("DepthToSpace", &x, 1, 0, m, 2, &y, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "mode is 'XYZ'");
    cairn_attr_t b0[1] = {cairn_attr_int("blocksize", 0)};
    CHECK_FAILS(run_op("SpaceToDepth", &x, 1, 0, b0, 1, &y, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "blocksize is 0");
    int64_t odd[4] = {1, 1, 3, 2};
    drop(&x);
    x = iota(CAIRN_F32, 4, odd);
    CHECK_FAILS(run_op("SpaceToDepth", &x, 1, 0, a, 1, &y, 1), CAIRN_ERR_SHAPE,
                "height (3) must be a multiple");
    drop(&x), drop(&y);
}

/* ---- GridSample ---- */

static double gs_px(const double *img, int64_t H, int64_t W, int64_t r, int64_t c, int pad)
{
    if (pad == 0)
        return (r < 0 || r >= H || c < 0 || c >= W) ? 0 : img[r * W + c];
    r = r < 0 ? 0 : r >= H ? H - 1 : r;
    c = c < 0 ? 0 : c >= W ? W - 1 : c;
    return img[r * W + c];
}

static void test_grid_sample(void)
{
    int64_t xs[4] = {1, 1, 2, 2}, gs[4] = {1, 1, 3, 2}, ys[4] = {1, 1, 1, 3};
    cairn_tensor_t in[2];
    in[0] = from_doubles(CAIRN_F32, 4, xs, (double[]){1, 2, 3, 4});
    in[1] = from_doubles(CAIRN_F32, 4, gs, (double[]){-1, -1, 1, 1, 0, 0});
    cairn_tensor_t y = make_out(CAIRN_F32, 4, ys);
    cairn_attr_t a[3] = {cairn_attr_int("align_corners", 1), S("mode", "bilinear"),
                         S("padding_mode", "zeros")};
    CHECK_OK(run_op("GridSample", in, 2, 0, a, 3, &y, 1));
    check_near(&y, (double[]){1, 4, 2.5}, 1e-6, "corners align");
    /* align_corners 0: (-1,-1) is (-0.5,-0.5), a quarter of pixel (0,0) */
    a[0] = cairn_attr_int("align_corners", 0);
    CHECK_OK(run_op("GridSample", in, 2, 0, a, 3, &y, 1));
    check_near(&y, (double[]){0.25, 1, 2.5}, 1e-6, "zeros");
    a[2] = S("padding_mode", "border");
    CHECK_OK(run_op("GridSample", in, 2, 0, a, 3, &y, 1));
    check_near(&y, (double[]){1, 4, 2.5}, 1e-6, "border");
    /* nearest: (0,0) is x = y = 0.5, which rounds to even (0); (1,1) is
     * 1.5, which rounds to 2, outside the image */
    a[1] = S("mode", "nearest");
    a[2] = S("padding_mode", "zeros");
    CHECK_OK(run_op("GridSample", in, 2, 0, a, 3, &y, 1));
    check_near(&y, (double[]){1, 0, 1}, 0, "nearest");

    /* random bilinear/nearest with zeros/border padding */
    check_rng_t r = {7};
    for (int it = 0; it < 40; it++) {
        int64_t N = 1 + (int64_t)(check_rng_next(&r) % 2), C = 1 + (int64_t)(check_rng_next(&r) % 2);
        int64_t H = 1 + (int64_t)(check_rng_next(&r) % 4), W = 1 + (int64_t)(check_rng_next(&r) % 4);
        int64_t Ho = 1 + (int64_t)(check_rng_next(&r) % 3), Wo = 1 + (int64_t)(check_rng_next(&r) % 3);
        int align = (int)(check_rng_next(&r) % 2), pad = (int)(check_rng_next(&r) % 2);
        int nearest = it % 3 == 0;
        int64_t x4[4] = {N, C, H, W}, g4[4] = {N, Ho, Wo, 2}, y4[4] = {N, C, Ho, Wo};
        cairn_tensor_t ii[2] = {make_rand(&r, CAIRN_F64, 4, x4, -3, 3),
                                make_rand(&r, CAIRN_F64, 4, g4, -1.3, 1.3)};
        const double *xv = ii[0].data, *gv = ii[1].data;
        double *want = malloc((size_t)(N * C * Ho * Wo) * sizeof *want);
        for (int64_t n = 0; n < N; n++)
            for (int64_t c = 0; c < C; c++)
                for (int64_t i = 0; i < Ho; i++)
                    for (int64_t j = 0; j < Wo; j++) {
                        const double *g = gv + ((n * Ho + i) * Wo + j) * 2;
                        /* pixel centres at -1 + (2k + 1) / W, or at -1 + 2k / (W - 1) */
                        double px = align ? (g[0] + 1) * (double)(W - 1) / 2 : (g[0] + 1) * (double)W / 2 - 0.5;
                        double py = align ? (g[1] + 1) * (double)(H - 1) / 2 : (g[1] + 1) * (double)H / 2 - 0.5;
                        if (pad == 1) {
                            px = fmin(fmax(px, 0), (double)(W - 1));
                            py = fmin(fmax(py, 0), (double)(H - 1));
                        }
                        const double *img = xv + (n * C + c) * H * W;
                        double v;
                        if (nearest) {
                            v = gs_px(img, H, W, (int64_t)nearbyint(py), (int64_t)nearbyint(px), pad);
                        } else {
                            int64_t c0 = (int64_t)floor(px), r0 = (int64_t)floor(py);
                            double fx = px - (double)c0, fy = py - (double)r0;
                            v = 0;
                            for (int dy = 0; dy < 2; dy++)
                                for (int dx = 0; dx < 2; dx++)
                                    v += (dy ? fy : 1 - fy) * (dx ? fx : 1 - fx) *
                                         gs_px(img, H, W, r0 + dy, c0 + dx, pad);
                        }
                        want[((n * C + c) * Ho + i) * Wo + j] = v;
                    }
        cairn_attr_t aa[3] = {cairn_attr_int("align_corners", align),
                              S("mode", nearest ? "nearest" : "bilinear"),
                              S("padding_mode", pad ? "border" : "zeros")};
        cairn_tensor_t out = make_out(CAIRN_F64, 4, y4);
        CHECK_OK(run_op("GridSample", ii, 2, 0, aa, 3, &out, 1));
        check_near(&out, want, 1e-9, "GridSample random");
        free(want);
        drop(&out), drop(&ii[0]), drop(&ii[1]);
    }

    /* errors */
    a[1] = S("mode", "area");
    CHECK_FAILS(run_op("GridSample", in, 2, 0, a, 3, &y, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "mode is 'area'");
    a[1] = S("mode", "bilinear");
    a[2] = S("padding_mode", "wrap");
    CHECK_FAILS(run_op("GridSample", in, 2, 0, a, 3, &y, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "padding_mode is 'wrap'");
    drop(&in[1]);
    int64_t g3[4] = {1, 1, 3, 3};
    in[1] = make_rand(&r, CAIRN_F32, 4, g3, -1, 1);
    CHECK_FAILS(run_op("GridSample", in, 2, 0, NULL, 0, &y, 1), CAIRN_ERR_SHAPE,
                "last dim must be 2");
    drop(&in[0]), drop(&in[1]), drop(&y);
}

/* ---- MaxUnpool ---- */

static void test_max_unpool(void)
{
    int64_t xs[4] = {1, 1, 2, 2}, ys[4] = {1, 1, 4, 4}, ys5[4] = {1, 1, 5, 5};
    int64_t idx[4] = {5, 7, 13, 15};
    cairn_tensor_t in[3];
    in[0] = from_doubles(CAIRN_F32, 4, xs, (double[]){5, 6, 7, 8});
    in[1] = (cairn_tensor_t){CAIRN_I64, 4, {1, 1, 2, 2}, idx};
    int64_t ks[2] = {2, 2};
    cairn_attr_t a[2] = {cairn_attr_ints("kernel_shape", ks, 2), cairn_attr_ints("strides", ks, 2)};
    cairn_tensor_t y = make_out(CAIRN_F32, 4, ys);
    CHECK_OK(run_op("MaxUnpool", in, 2, 0, a, 2, &y, 1));
    double want[25] = {0};
    want[5] = 5, want[7] = 6, want[13] = 7, want[15] = 8;
    check_near(&y, want, 0, "MaxUnpool");
    drop(&y);
    /* output_shape: the indices count in the default 4x4 shape */
    in[2] = (cairn_tensor_t){CAIRN_I64, 1, {4}, ys5};
    y = make_out(CAIRN_F32, 4, ys5);
    CHECK_OK(run_op("MaxUnpool", in, 3, 4, a, 2, &y, 1));
    memset(want, 0, sizeof want);
    want[6] = 5, want[8] = 6, want[16] = 7, want[18] = 8;
    check_near(&y, want, 0, "MaxUnpool output_shape");
    drop(&y);

    /* random: scatter of distinct random positions, checked element-wise */
    check_rng_t r = {99};
    for (int it = 0; it < 20; it++) {
        int64_t H = 1 + (int64_t)(check_rng_next(&r) % 4), W = 1 + (int64_t)(check_rng_next(&r) % 4);
        int64_t k = 1 + (int64_t)(check_rng_next(&r) % 3);
        int64_t x4[4] = {2, 2, H, W}, y4[4] = {2, 2, (H - 1) * k + k, (W - 1) * k + k};
        int64_t ny = 4 * y4[2] * y4[3], nx = 4 * H * W;
        cairn_tensor_t ii[2] = {make_rand(&r, CAIRN_F64, 4, x4, 1, 2), make(CAIRN_I64, 4, x4)};
        int64_t *iv = ii[1].data;
        /* a window's maximum lies in its window: pick one cell per window */
        for (int64_t nc = 0; nc < 4; nc++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t w = 0; w < W; w++) {
                    int64_t dh = (int64_t)(check_rng_next(&r) % (uint64_t)k), dw = (int64_t)(check_rng_next(&r) % (uint64_t)k);
                    iv[(nc * H + h) * W + w] = (nc * y4[2] + h * k + dh) * y4[3] + w * k + dw;
                }
        double *wv = calloc((size_t)ny, sizeof *wv);
        for (int64_t i = 0; i < nx; i++)
            wv[iv[i]] = at(&ii[0], i);
        int64_t kk[2] = {k, k};
        cairn_attr_t aa[2] = {cairn_attr_ints("kernel_shape", kk, 2), cairn_attr_ints("strides", kk, 2)};
        cairn_tensor_t out = make_out(CAIRN_F64, 4, y4);
        CHECK_OK(run_op("MaxUnpool", ii, 2, 0, aa, 2, &out, 1));
        check_near(&out, wv, 0, "MaxUnpool random");
        free(wv);
        drop(&out), drop(&ii[0]), drop(&ii[1]);
    }

    /* errors */
    idx[3] = 16;
    y = make_out(CAIRN_F32, 4, ys);
    CHECK_FAILS(run_op("MaxUnpool", in, 2, 0, a, 2, &y, 1), CAIRN_ERR_RUNTIME, "index 16");
    idx[3] = -1;
    CHECK_FAILS(run_op("MaxUnpool", in, 2, 0, a, 2, &y, 1), CAIRN_ERR_RUNTIME, "index -1");
    int64_t k3[3] = {2, 2, 2};
    cairn_attr_t b[1] = {cairn_attr_ints("kernel_shape", k3, 3)};
    CHECK_FAILS(run_op("MaxUnpool", in, 2, 0, b, 1, &y, 1), CAIRN_ERR_SHAPE,
                "kernel_shape has 3 values");
    drop(&y), drop(&in[0]);
}

/* ---- RoiAlign ---- */

static double ra_bilinear(const double *img, int64_t H, int64_t W, double y, double x)
{
    if (y < -1 || y > (double)H || x < -1 || x > (double)W)
        return 0;
    y = fmin(fmax(y, 0), (double)(H - 1));
    x = fmin(fmax(x, 0), (double)(W - 1));
    int64_t y0 = (int64_t)floor(y), x0 = (int64_t)floor(x);
    int64_t y1 = y0 + 1 < H ? y0 + 1 : y0, x1 = x0 + 1 < W ? x0 + 1 : x0;
    double fy = y - (double)y0, fx = x - (double)x0;
    return (1 - fy) * ((1 - fx) * img[y0 * W + x0] + fx * img[y0 * W + x1]) +
           fy * ((1 - fx) * img[y1 * W + x0] + fx * img[y1 * W + x1]);
}

static void test_roi_align(void)
{
    int64_t xs[4] = {1, 1, 2, 2}, rs[2] = {1, 4}, ys[4] = {1, 1, 1, 1};
    int64_t bi[1] = {0};
    cairn_tensor_t in[3];
    in[0] = from_doubles(CAIRN_F32, 4, xs, (double[]){1, 2, 3, 4});
    in[1] = from_doubles(CAIRN_F32, 2, rs, (double[]){0, 0, 2, 2});
    in[2] = (cairn_tensor_t){CAIRN_I64, 1, {1}, bi};
    cairn_tensor_t y = make_out(CAIRN_F32, 4, ys);
    cairn_attr_t a[3] = {cairn_attr_int("sampling_ratio", 2), S("mode", "avg"),
                         S("coordinate_transformation_mode", "half_pixel")};
    CHECK_OK(run_op("RoiAlign", in, 3, 0, a, 3, &y, 1));
    check_near(&y, (double[]){2.5}, 1e-6, "RoiAlign avg half_pixel");
    a[1] = S("mode", "max");
    CHECK_OK(run_op("RoiAlign", in, 3, 0, a, 3, &y, 1));
    check_near(&y, (double[]){4}, 1e-6, "RoiAlign max");
    a[1] = S("mode", "avg");
    a[2] = S("coordinate_transformation_mode", "output_half_pixel");
    CHECK_OK(run_op("RoiAlign", in, 3, 0, a, 3, &y, 1));
    check_near(&y, (double[]){3.25}, 1e-6, "RoiAlign avg output_half_pixel");

    /* random avg, half_pixel, against the sample-grid definition */
    check_rng_t r = {5};
    for (int it = 0; it < 20; it++) {
        int64_t N = 2, C = 2, H = 2 + (int64_t)(check_rng_next(&r) % 5), W = 2 + (int64_t)(check_rng_next(&r) % 5);
        int64_t R = 1 + (int64_t)(check_rng_next(&r) % 3), OH = 1 + (int64_t)(check_rng_next(&r) % 3);
        int64_t OW = 1 + (int64_t)(check_rng_next(&r) % 3), sr = (int64_t)(check_rng_next(&r) % 3);
        double ss = it % 2 ? 0.5 : 1.0;
        int64_t x4[4] = {N, C, H, W}, r2[2] = {R, 4}, y4[4] = {R, C, OH, OW};
        cairn_tensor_t ii[3] = {make_rand(&r, CAIRN_F64, 4, x4, -2, 2), make(CAIRN_F64, 2, r2),
                                make(CAIRN_I64, 1, &R)};
        double *rv = ii[1].data;
        int64_t *bv = ii[2].data;
        for (int64_t k = 0; k < R; k++) {
            double x1 = check_rng_uniform(&r, -1, (double)W / ss), y1 = check_rng_uniform(&r, -1, (double)H / ss);
            rv[k * 4] = x1, rv[k * 4 + 1] = y1;
            rv[k * 4 + 2] = x1 + check_rng_uniform(&r, 0, 3 / ss);
            rv[k * 4 + 3] = y1 + check_rng_uniform(&r, 0, 3 / ss);
            bv[k] = (int64_t)(check_rng_next(&r) % 2);
        }
        double *want = malloc((size_t)(R * C * OH * OW) * sizeof *want);
        for (int64_t k = 0; k < R; k++) {
            double sx = rv[k * 4] * ss - 0.5, sy = rv[k * 4 + 1] * ss - 0.5;
            double rw = rv[k * 4 + 2] * ss - 0.5 - sx, rh = rv[k * 4 + 3] * ss - 0.5 - sy;
            int64_t gh = sr ? sr : (int64_t)ceil(rh / (double)OH), gw = sr ? sr : (int64_t)ceil(rw / (double)OW);
            for (int64_t c = 0; c < C; c++)
                for (int64_t i = 0; i < OH; i++)
                    for (int64_t j = 0; j < OW; j++) {
                        double s = 0;
                        for (int64_t u = 0; u < gh; u++)
                            for (int64_t v = 0; v < gw; v++)
                                s += ra_bilinear((const double *)ii[0].data + (bv[k] * C + c) * H * W, H, W,
                                                 sy + rh / (double)OH * ((double)i + ((double)u + 0.5) / (double)gh),
                                                 sx + rw / (double)OW * ((double)j + ((double)v + 0.5) / (double)gw));
                        want[((k * C + c) * OH + i) * OW + j] = s / (double)(gh * gw > 0 ? gh * gw : 1);
                    }
        }
        cairn_attr_t aa[4] = {cairn_attr_int("sampling_ratio", sr), cairn_attr_int("output_height", OH),
                              cairn_attr_int("output_width", OW), cairn_attr_float("spatial_scale", (float)ss)};
        cairn_tensor_t out = make_out(CAIRN_F64, 4, y4);
        CHECK_OK(run_op("RoiAlign", ii, 3, 0, aa, 4, &out, 1));
        check_near(&out, want, 1e-9, "RoiAlign random");
        free(want);
        drop(&out), drop(&ii[0]), drop(&ii[1]), drop(&ii[2]);
    }

    bi[0] = 1;
    CHECK_FAILS(run_op("RoiAlign", in, 3, 0, a, 3, &y, 1), CAIRN_ERR_RUNTIME,
                "batch_indices[0] = 1");
    bi[0] = 0;
    a[1] = S("mode", "median");
    CHECK_FAILS(run_op("RoiAlign", in, 3, 0, a, 3, &y, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "mode is 'median'");
    drop(&y), drop(&in[0]), drop(&in[1]);
}

/* ---- ReverseSequence ---- */

static void test_reverse_sequence(void)
{
    int64_t xs[2] = {4, 4};
    int64_t lens[4] = {4, 3, 2, 1};
    cairn_tensor_t in[2];
    in[0] = from_doubles(CAIRN_F32, 2, xs,
                         (double[]){0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15});
    in[1] = (cairn_tensor_t){CAIRN_I64, 1, {4}, lens};
    cairn_tensor_t y = make_out(CAIRN_F32, 2, xs);
    CHECK_OK(run_op("ReverseSequence", in, 2, 0, NULL, 0, &y, 1));
    check_near(&y, (double[]){3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}, 0,
               "time-major");

    check_rng_t r = {3};
    for (int it = 0; it < 20; it++) {
        int ba = it % 2, ta = 1 - ba;
        int64_t B = 1 + (int64_t)(check_rng_next(&r) % 4), T = 1 + (int64_t)(check_rng_next(&r) % 5);
        int64_t I = 1 + (int64_t)(check_rng_next(&r) % 3);
        int64_t s3[3];
        s3[ba] = B, s3[ta] = T, s3[2] = I;
        cairn_tensor_t ii[2] = {make_rand(&r, CAIRN_F32, 3, s3, -1, 1), make(CAIRN_I64, 1, &B)};
        int64_t *lv = ii[1].data;
        for (int64_t b = 0; b < B; b++)
            lv[b] = (int64_t)(check_rng_next(&r) % (uint64_t)(T + 1));
        double *want = malloc((size_t)(B * T * I) * sizeof *want);
        for (int64_t b = 0; b < B; b++)
            for (int64_t t = 0; t < T; t++)
                for (int64_t i = 0; i < I; i++) {
                    int64_t st = t < lv[b] ? lv[b] - 1 - t : t;
                    int64_t dst = (ba == 0 ? b * T + t : t * B + b) * I + i;
                    int64_t src = (ba == 0 ? b * T + st : st * B + b) * I + i;
                    want[dst] = at(&ii[0], src);
                }
        cairn_attr_t aa[2] = {cairn_attr_int("batch_axis", ba), cairn_attr_int("time_axis", ta)};
        cairn_tensor_t out = make_out(CAIRN_F32, 3, s3);
        CHECK_OK(run_op("ReverseSequence", ii, 2, 0, aa, 2, &out, 1));
        check_near(&out, want, 0, "ReverseSequence random");
        free(want);
        drop(&out), drop(&ii[0]), drop(&ii[1]);
    }

    lens[0] = 5;
    CHECK_FAILS(run_op("ReverseSequence", in, 2, 0, NULL, 0, &y, 1), CAIRN_ERR_RUNTIME,
                "sequence_lens[0] = 5");
    lens[0] = 4;
    cairn_attr_t bad[2] = {cairn_attr_int("batch_axis", 0), cairn_attr_int("time_axis", 0)};
    CHECK_FAILS(run_op("ReverseSequence", in, 2, 0, bad, 2, &y, 1), CAIRN_ERR_INVALID_ARGUMENT,
                "batch_axis is 0 and time_axis 0");
    drop(&y), drop(&in[0]);
}

static int run_all(void)
{
    test_depth_space();
    test_grid_sample();
    test_max_unpool();
    test_roi_align();
    test_reverse_sequence();
    return check_finish("test_resize_misc");
}

int main(void)
{
    (void)tol_of;
    return run_all();
}
