/* quant_dwconv (the depthwise convolution of 8-bit x and W behind
 * QLinearConv and ConvInteger with one channel a group) against a direct
 * integer reference, bit for bit: x and W u8 / i8 with zero points (W's
 * one or one per channel), outputs i32 (the sums) and u8 / i8
 * (requantised: bias, multipliers one or per channel, saturating ones)
 * and f32 (dequantised: scales, f32 bias, relu or clip, residual;
 * quant_dwconv_f32);
 * the 3x3 kernel at strides 1 and 2 (its AVX-512 form's own path) and
 * other kernels, strides and paddings (1x1, 5x5, 3x1, 1x3, 7x7, 16x16 =
 * 256 taps, stride 3 and 4, mixed strides, asymmetric padding, padding
 * wider than the plane); planes around the 16-lane chunks and the 8-, 4-
 * and 2-row blocks; one spatial dim; batches; 1 and 2 threads; sums at
 * their largest (255 x 255 x 256); and the shapes it must refuse. Run
 * under CAIRN_ISA=ref/avx2/avx512 by ctest (the portable and AVX-512
 * planes) and without a cap (with AVX512_VNNI and VBMI, the 3x3 layers
 * whose w - wz fit in s8 then take the integer plane; those that do not,
 * random u8 weights with a random zero point, the f32 one). */
#include "base/threadpool.h"
#include "check.h"
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static check_rng_t rng = {0xd3c0};
static base_pool_t *pool2;

static int64_t rnd(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(check_rng_next(&rng) % (uint64_t)(hi - lo + 1));
}

static void fill(cairn_dtype_t t, void *p, int64_t n, int mode)
{
    for (int64_t i = 0; i < n; i++) {
        if (t == CAIRN_U8)
            ((uint8_t *)p)[i] = mode ? (mode > 0 ? 255 : 0) : (uint8_t)rnd(0, 255);
        else
            ((int8_t *)p)[i] = mode ? (int8_t)(mode > 0 ? 127 : -128) : (int8_t)rnd(-128, 127);
    }
}

typedef struct dw_case {
    int64_t N, C, IH, IW;
    int KH, KW, SH, SW;
    int64_t ph0, pw0, ph1, pw1; /* padding before and after */
} dw_case_t;

/* mode 0 random data; 1: sums at their largest (x at one end of its range
 * with zero point at the other, w likewise); 2: random data with W's zero
 * points those of symmetric quantisation (0 for i8, 128 for u8), so that
 * every w - wz fits in s8 (the integer 3x3 plane's condition); 3: 1's
 * extremes with 2's zero points (w - wz = -128, x - xz = 255) */
static int run(const dw_case_t *c, cairn_dtype_t xt, cairn_dtype_t wt, cairn_dtype_t yt, int wz_vec,
               int scale_vec, int bias_on, int threads, int mode)
{
    const int64_t OH = (c->IH + c->ph0 + c->ph1 - c->KH) / c->SH + 1;
    const int64_t OW = (c->IW + c->pw0 + c->pw1 - c->KW) / c->SW + 1;
    const int64_t taps = (int64_t)c->KH * c->KW, nx = c->N * c->C * c->IH * c->IW;
    const int64_t ny = c->N * c->C * OH * OW, nw = c->C * taps;
    uint8_t *x = malloc((size_t)nx), *w = malloc((size_t)nw), *wz = malloc((size_t)c->C);
    int32_t *bias = malloc((size_t)c->C * sizeof(int32_t));
    float *mult = malloc((size_t)c->C * sizeof(float));
    const size_t ysz = yt == CAIRN_I32 || yt == CAIRN_F32 ? 4 : 1;
    float *fbias = malloc((size_t)c->C * sizeof(float)), *res = malloc((size_t)ny * sizeof(float));
    for (int64_t i = 0; i < c->C; i++)
        fbias[i] = (float)rnd(-1000, 1000) / 64.0f;
    for (int64_t i = 0; i < ny; i++)
        res[i] = (float)rnd(-1000, 1000) / 32.0f;
    char *y = malloc((size_t)ny * ysz), *want = malloc((size_t)ny * ysz);
    const int ext = mode == 1 || mode == 3;
    fill(xt, x, nx, ext);
    fill(wt, w, nw, ext ? -1 : 0);
    uint8_t xz;
    fill(xt, &xz, 1, ext ? -1 : 0);
    fill(wt, wz, c->C, ext ? 1 : 0);
    if (mode >= 2)
        memset(wz, wt == CAIRN_I8 ? 0 : 128, (size_t)c->C);
    for (int64_t i = 0; i < c->C; i++) {
        bias[i] = bias_on ? (int32_t)rnd(-100000, 100000) : 0;
        /* most small (a u8 range of outputs), some saturating */
        mult[i] = (float)(rnd(1, 2000) * 1e-6 * (rnd(0, 9) == 0 ? 1000.0 : 1.0));
    }
    const uint8_t yz = (uint8_t)rnd(0, 255);
    const int32_t yzv = yt == CAIRN_I8 ? (int8_t)yz : yz;
    /* f32 outputs: no activation, relu or clip to [-3, 5] by the plane's width */
    const gemm_act_t act = c->IW % 3 == 1   ? GEMM_ACT_RELU
                           : c->IW % 3 == 2 ? GEMM_ACT_CLIP
                                            : GEMM_ACT_NONE;
    /* the reference: integer sums over the taps inside the plane */
    for (int64_t n = 0; n < c->N; n++)
        for (int64_t ch = 0; ch < c->C; ch++) {
            const int64_t wzc = q_load(wz, wt, wz_vec ? ch : 0);
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t s = 0;
                    for (int kh = 0; kh < c->KH; kh++)
                        for (int kw = 0; kw < c->KW; kw++) {
                            const int64_t ih = oh * c->SH - c->ph0 + kh;
                            const int64_t iw = ow * c->SW - c->pw0 + kw;
                            if (ih < 0 || ih >= c->IH || iw < 0 || iw >= c->IW)
                                continue;
                            const int64_t xi = ((n * c->C + ch) * c->IH + ih) * c->IW + iw;
                            s += (q_load(x, xt, xi) - q_load(&xz, xt, 0)) *
                                 (q_load(w, wt, ch * taps + kh * c->KW + kw) - wzc);
                        }
                    const int64_t yi = ((n * c->C + ch) * OH + oh) * OW + ow;
                    if (yt == CAIRN_I32) {
                        ((int32_t *)want)[yi] = (int32_t)s;
                    } else if (yt == CAIRN_F32) { /* quant_conv_f32's order, one rounding each */
                        float v = (float)s * mult[scale_vec ? ch : 0];
                        if (bias_on)
                            v += fbias[ch];
                        if (act == GEMM_ACT_RELU)
                            v = v > 0.0f ? v : 0.0f;
                        else if (act == GEMM_ACT_CLIP)
                            v = v < -3.0f ? -3.0f : v > 5.0f ? 5.0f : v;
                        if (bias_on > 1)
                            v += res[yi];
                        ((float *)want)[yi] = v;
                    } else
                        q_store(
                            want, yt, yi,
                            nearbyint(((double)s + bias[ch]) * (double)mult[scale_vec ? ch : 0]) +
                                yzv);
                }
        }
    quant_conv_params_t p;
    memset(&p, 0, sizeof p);
    p.g.N = c->N, p.g.C = c->C, p.g.M = c->C, p.g.group = c->C;
    p.g.in[0] = p.g.out[0] = p.g.kernel[0] = p.g.stride[0] = p.g.dilation[0] = 1;
    p.g.in[1] = c->IH, p.g.in[2] = c->IW, p.g.out[1] = OH, p.g.out[2] = OW;
    p.g.kernel[1] = c->KH, p.g.kernel[2] = c->KW, p.g.stride[1] = c->SH, p.g.stride[2] = c->SW;
    p.g.dilation[1] = p.g.dilation[2] = 1, p.g.pad[1] = c->ph0, p.g.pad[2] = c->pw0;
    p.xt = xt, p.wt = wt, p.xz = &xz, p.wz = wz, p.wz_vec = wz_vec;
    p.scale = mult, p.scale_vec = scale_vec;
    memset(y, 0xa5, (size_t)ny * ysz);
    kctx_t k = {threads > 1 ? pool2 : NULL, threads};
    char what[256];
    snprintf(what, sizeof what,
             "dw N%lld C%lld %lldx%lld k%dx%d s%dx%d pad %lld,%lld/%lld,%lld -> %lldx%lld x %s w "
             "%s y %s wz%s scale%s bias%d t%d mode %d",
             (long long)c->N, (long long)c->C, (long long)c->IH, (long long)c->IW, c->KH, c->KW,
             c->SH, c->SW, (long long)c->ph0, (long long)c->pw0, (long long)c->ph1,
             (long long)c->pw1, (long long)OH, (long long)OW, xt == CAIRN_U8 ? "u8" : "i8",
             wt == CAIRN_U8 ? "u8" : "i8",
             yt == CAIRN_U8    ? "u8"
             : yt == CAIRN_I8  ? "i8"
             : yt == CAIRN_F32 ? "f32"
                               : "i32",
             wz_vec ? "/ch" : "", scale_vec ? "/ch" : "", bias_on, threads, mode);
    int ok = quant_dw_fits(&p.g);
    CHECK_MSG(ok, "%s: quant_dw_fits refused it", what);
    gemm_epilogue_t epi;
    memset(&epi, 0, sizeof epi);
    epi.scale = 1.0f;
    if (bias_on)
        epi.bias_kind = GEMM_BIAS_ROW, epi.bias = fbias;
    if (bias_on > 1)
        epi.residual = res;
    epi.act = act, epi.clip_lo = -3.0f, epi.clip_hi = 5.0f;
    const cairn_status_t st = yt == CAIRN_F32
                                  ? quant_dwconv_f32(&k, &p, x, w, &epi, (float *)(void *)y)
                                  : quant_dwconv(&k, &p, x, w, bias_on ? bias : NULL, &yz, yt, y);
    CHECK_MSG(st == CAIRN_OK, "%s: %s", what, cairn_last_error());
    ok = ok && st == CAIRN_OK;
    int64_t bad = -1;
    for (int64_t i = 0; ok && i < ny && bad < 0; i++)
        if (memcmp(y + i * ysz, want + i * ysz, ysz))
            bad = i;
    CHECK_MSG(bad < 0, "%s: element %lld differs", what, (long long)bad);
    ok = ok && bad < 0;
    free(x), free(w), free(wz), free(bias), free(mult), free(y), free(want), free(fbias), free(res);
    return ok;
}

static void test_3x3(void)
{
    /* the AVX-512 3x3 path: planes around its chunks (16 columns) and
     * blocks (8 rows of one chunk, 4 of two, 2 of up to four), both strides,
     * 'same' padding and none */
    static const int64_t sz[] = {1, 2, 7, 8, 9, 14, 15, 16, 17, 28, 31, 33, 49, 56, 65, 112};
    for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++)
        for (int s = 1; s <= 2; s++) {
            const int64_t H = sz[i], W = sz[(i * 7 + 3) % (sizeof sz / sizeof sz[0])];
            dw_case_t c = {1, 3, H, W, 3, 3, s, s, 1, 1, 1, 1};
            run(&c, CAIRN_U8, CAIRN_I8, CAIRN_U8, 1, 1, 1, 1, 0);
            run(&c, CAIRN_U8, CAIRN_I8, CAIRN_F32, 1, 1, 1 + (int)(i & 1), 1, 0);
            c.IH = W, c.IW = H;
            run(&c, CAIRN_I8, CAIRN_U8, CAIRN_I32, 0, 0, 0, 1, 0);
            if (H >= 3 && W >= 3) {
                dw_case_t v = {2, 2, H, W, 3, 3, s, s, 0, 0, 0, 0};
                run(&v, CAIRN_U8, CAIRN_U8, CAIRN_I8, 1, 0, 1, 2, 0);
            }
        }
    /* weights whose w - wz fit in s8 (the integer plane where the CPU has
     * it), every type of x, W and y */
    for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++)
        for (int s = 1; s <= 2; s++) {
            const int64_t H = sz[(i * 5 + 1) % (sizeof sz / sizeof sz[0])], W = sz[i];
            dw_case_t c = {1, 3, H, W, 3, 3, s, s, 1, 1, 1, 1};
            run(&c, CAIRN_U8, CAIRN_I8, CAIRN_U8, 1, 1, 1, 1, 2);
            run(&c, CAIRN_I8, CAIRN_U8, CAIRN_F32, 0, 1, 1 + (int)(i & 1), 2, 2);
            run(&c, CAIRN_U8, CAIRN_U8, CAIRN_I32, 1, 0, 0, 1, 2);
            dw_case_t v = {2, 2, H, W, 3, 3, s, s, 0, 0, 0, 0};
            if (H >= 3 && W >= 3)
                run(&v, CAIRN_I8, CAIRN_I8, CAIRN_I8, 0, 0, 1, 2, 2);
        }
    /* odd and even left padding at stride 2 (the column phases swap) */
    dw_case_t c = {1, 4, 20, 37, 3, 3, 2, 2, 0, 1, 2, 2};
    run(&c, CAIRN_U8, CAIRN_I8, CAIRN_U8, 1, 1, 1, 1, 0);
    c.pw0 = 2, c.pw1 = 0;
    run(&c, CAIRN_U8, CAIRN_I8, CAIRN_U8, 1, 1, 1, 2, 0);
}

static void test_other_kernels(void)
{
    static const dw_case_t cases[] = {
        {1, 5, 9, 13, 1, 1, 1, 1, 0, 0, 0, 0},
        {1, 3, 11, 19, 5, 5, 1, 1, 2, 2, 2, 2},
        {1, 3, 11, 19, 5, 5, 2, 2, 2, 2, 2, 2},
        {2, 2, 10, 18, 3, 1, 1, 1, 1, 0, 1, 0},
        {1, 2, 10, 35, 1, 3, 1, 1, 0, 1, 0, 1},
        {1, 2, 17, 17, 7, 7, 1, 1, 3, 3, 3, 3},
        {1, 2, 20, 20, 16, 16, 1, 1, 0, 0, 0, 0},
        {1, 2, 21, 22, 3, 3, 3, 3, 1, 1, 1, 1},
        {1, 2, 21, 40, 4, 4, 4, 4, 0, 0, 3, 3},
        {1, 2, 21, 40, 3, 3, 1, 2, 1, 1, 1, 1},
        {1, 2, 21, 40, 3, 3, 2, 1, 1, 1, 1, 1},
        {1, 2, 9, 12, 3, 3, 1, 1, 2, 0, 0, 2},
        {1, 2, 3, 4, 3, 3, 1, 1, 4, 5, 4, 5},
        {1, 3, 1, 50, 1, 3, 1, 1, 0, 1, 0, 1},
        /* stride 2 with padding wider than the plane: no input column read
         * by the first outputs, an odd left pad (the column phases) */
        {1, 2, 5, 3, 3, 3, 2, 2, 7, 9, 7, 9},
        {1, 2, 6, 2, 3, 3, 2, 2, 1, 33, 1, 33},
        {1, 2, 4, 1, 3, 3, 1, 2, 1, 3, 1, 0},
        {1, 3, 1, 50, 1, 5, 1, 2, 0, 2, 0, 2},
        {3, 1, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int t = 1; t <= 2; t++) {
            run(&cases[i], CAIRN_U8, CAIRN_I8, CAIRN_U8, 1, 1, 1, t, 0);
            run(&cases[i], CAIRN_I8, CAIRN_I8, CAIRN_I32, 0, 0, 0, t, 0);
            run(&cases[i], CAIRN_U8, CAIRN_U8, CAIRN_F32, 1, 0, t, t, 0);
        }
}

static void test_extremes(void)
{
    /* 256 taps of 255 x 255 (16.6 M, the f32 sums' exact limit is 2^24),
     * and the 3x3 path's; every output type */
    dw_case_t big = {1, 2, 18, 18, 16, 16, 1, 1, 0, 0, 0, 0};
    dw_case_t c3 = {1, 2, 18, 35, 3, 3, 1, 1, 1, 1, 1, 1};
    static const cairn_dtype_t ys[] = {CAIRN_I32, CAIRN_U8, CAIRN_I8, CAIRN_F32};
    for (int i = 0; i < 4; i++) {
        run(&big, CAIRN_U8, CAIRN_I8, ys[i], 0, 0, 1, 1, 1);
        run(&big, CAIRN_I8, CAIRN_U8, ys[i], 1, 1, 0, 1, 1);
        run(&c3, CAIRN_U8, CAIRN_U8, ys[i], 1, 1, 1, 2, 1);
        run(&c3, CAIRN_U8, CAIRN_I8, ys[i], 0, 1, 1, 1, 3);
        run(&c3, CAIRN_I8, CAIRN_U8, ys[i], 1, 0, 1, 2, 3);
    }
}

static void test_refused(void)
{
    quant_conv_params_t p;
    memset(&p, 0, sizeof p);
    p.g.N = 1, p.g.C = 4, p.g.M = 4, p.g.group = 4;
    for (int d = 0; d < CONV_SP; d++)
        p.g.in[d] = p.g.out[d] = d ? 8 : 1, p.g.kernel[d] = d ? 3 : 1, p.g.stride[d] = 1,
        p.g.dilation[d] = 1, p.g.pad[d] = d ? 1 : 0;
    p.xt = CAIRN_U8, p.wt = CAIRN_I8;
    CHECK(quant_dw_fits(&p.g) == 1);
    uint8_t x[256] = {0}, y[256];
    int8_t w[36] = {0};
    kctx_t k = {NULL, 1};
    conv_params_t g = p.g;
    p.g.group = 2, p.g.M = 4; /* two channels a group */
    CHECK(!quant_dw_fits(&p.g));
    CHECK_FAILS(quant_dwconv(&k, &p, x, w, NULL, NULL, CAIRN_I32, y), CAIRN_ERR_UNSUPPORTED,
                "depthwise");
    p.g = g, p.g.dilation[2] = 2;
    CHECK(!quant_dw_fits(&p.g));
    p.g = g, p.g.in[0] = 2, p.g.out[0] = 2; /* three spatial dims */
    CHECK(!quant_dw_fits(&p.g));
    p.g = g, p.g.stride[2] = 5;
    CHECK(!quant_dw_fits(&p.g));
    p.g = g, p.g.stride[1] = 17; /* past the strides and paddings of real networks */
    CHECK(!quant_dw_fits(&p.g));
    p.g = g, p.g.pad[2] = 256;
    CHECK(!quant_dw_fits(&p.g));
    p.g = g, p.g.kernel[1] = 17, p.g.kernel[2] = 16; /* 272 taps */
    CHECK(!quant_dw_fits(&p.g));
    p.g = g;
    p.xt = CAIRN_F32;
    CHECK_FAILS(quant_dwconv(&k, &p, x, w, NULL, NULL, CAIRN_I32, y), CAIRN_ERR_INVALID_ARGUMENT,
                "u8 or i8");
    p.xt = CAIRN_U8; /* requantised output without multipliers */
    CHECK_FAILS(quant_dwconv(&k, &p, x, w, NULL, NULL, CAIRN_U8, y), CAIRN_ERR_INVALID_ARGUMENT,
                "multipliers");
    CHECK_FAILS(quant_dwconv(&k, &p, x, w, NULL, NULL, CAIRN_F32, y), CAIRN_ERR_INVALID_ARGUMENT,
                "quant_dwconv_f32");
    float sc = 0.5f, yf[256];
    p.scale = &sc;
    gemm_epilogue_t e;
    memset(&e, 0, sizeof e);
    e.scale = 1.0f, e.act = GEMM_ACT_SIGMOID;
    CHECK_FAILS(quant_dwconv_f32(&k, &p, x, w, &e, yf), CAIRN_ERR_UNSUPPORTED, "epilogue");
    p.scale = NULL;
    CHECK_FAILS(quant_dwconv(&k, NULL, x, w, NULL, NULL, CAIRN_I32, y), CAIRN_ERR_INVALID_ARGUMENT,
                "null");
    CHECK_FAILS(quant_dwconv(&k, &p, NULL, w, NULL, NULL, CAIRN_I32, y), CAIRN_ERR_INVALID_ARGUMENT,
                "null");
}

int main(void)
{
    CHECK_OK(base_pool_create(2, &pool2));
    conv_params_t g3;
    memset(&g3, 0, sizeof g3);
    g3.kernel[1] = g3.kernel[2] = 3, g3.stride[1] = g3.stride[2] = 1;
    fprintf(stderr, "quant_dwconv planes: %s (3x3), %s (others)\n", quant_dw_variant(&g3),
            quant_dw_variant(NULL));
    test_3x3();
    test_other_kernels();
    test_extremes();
    test_refused();
    base_pool_destroy(pool2);
    return check_finish("test_quant_dw");
}
