/* The fast f32 Conv (kernels/conv/fast.c: im2col + GEMM, the 1x1 shortcut,
 * the direct depthwise kernel) against a direct convolution computed in
 * double here, on random data over many geometries (1x1, 3x3, strided,
 * dilated, padded, grouped, depthwise, 1-D, 3-D, odd sizes, batch > 1),
 * with and without the fused epilogue (activation, residual, activation
 * after the residual); plus Conv
 * through the public API (plan-time workspace). ctest runs it under
 * CAIRN_ISA=ref/avx2/avx512 as well. Tolerance grows with the reduction
 * length (f32 accumulation). */
#include "check.h"
#include "kernels/conv/conv.h"

#include "base/alloc.h"
#include "base/cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct tcase {
    const char *name;
    int nsp;
    int64_t N, C, M, group;
    int64_t in[3], k[3], s[3], d[3], pb[3], pe[3];
} tcase_t;

/* Fills p (spatial dims right-aligned) from a case. */
static void params_of(const tcase_t *t, conv_params_t *p)
{
    memset(p, 0, sizeof *p);
    p->N = t->N, p->C = t->C, p->M = t->M, p->group = t->group;
    for (int i = 0; i < CONV_SP; i++)
        p->in[i] = p->out[i] = p->kernel[i] = p->stride[i] = p->dilation[i] = 1;
    const int off = CONV_SP - t->nsp;
    for (int i = 0; i < t->nsp; i++) {
        int64_t eff = (t->k[i] - 1) * t->d[i] + 1;
        p->in[off + i] = t->in[i];
        p->kernel[off + i] = t->k[i];
        p->stride[off + i] = t->s[i];
        p->dilation[off + i] = t->d[i];
        p->pad[off + i] = t->pb[i];
        p->out[off + i] = (t->in[i] + t->pb[i] + t->pe[i] - eff) / t->s[i] + 1;
    }
}

static double act_d(gemm_act_t a, double v, double lo, double hi)
{
    switch (a) {
    case GEMM_ACT_RELU: return v > 0 ? v : 0;
    case GEMM_ACT_CLIP: return v < lo ? lo : v > hi ? hi : v;
    case GEMM_ACT_SIGMOID: return 1.0 / (1.0 + exp(-v));
    case GEMM_ACT_SILU: return v / (1.0 + exp(-v));
    default: return v;
    }
}

/* Direct convolution in double, written independently of the kernels. */
static void oracle(const conv_params_t *p, const float *X, const float *W, const float *B,
                   const conv_post_t *post, double *Y)
{
    const int64_t cg = p->C / p->group, mg = p->M / p->group;
    const int64_t isz = p->in[0] * p->in[1] * p->in[2], osz = p->out[0] * p->out[1] * p->out[2];
    const int64_t ksz = p->kernel[0] * p->kernel[1] * p->kernel[2];
    for (int64_t n = 0; n < p->N; n++)
        for (int64_t m = 0; m < p->M; m++)
            for (int64_t o = 0; o < osz; o++) {
                int64_t oi[3] = {o / (p->out[1] * p->out[2]), (o / p->out[2]) % p->out[1],
                                 o % p->out[2]};
                double acc = B ? B[m] : 0;
                int64_t g = m / mg;
                for (int64_t c = 0; c < cg; c++)
                    for (int64_t t = 0; t < ksz; t++) {
                        int64_t ki[3] = {t / (p->kernel[1] * p->kernel[2]),
                                         (t / p->kernel[2]) % p->kernel[1], t % p->kernel[2]};
                        int64_t ii[3], ok = 1;
                        for (int d = 0; d < 3; d++) {
                            ii[d] = oi[d] * p->stride[d] - p->pad[d] + ki[d] * p->dilation[d];
                            ok &= ii[d] >= 0 && ii[d] < p->in[d];
                        }
                        if (!ok)
                            continue;
                        double xv = X[(n * p->C + g * cg + c) * isz +
                                      (ii[0] * p->in[1] + ii[1]) * p->in[2] + ii[2]];
                        acc += xv * W[(m * cg + c) * ksz + t];
                    }
                int64_t yi = (n * p->M + m) * osz + o;
                if (post) {
                    acc = act_d(post->act, acc, post->clip_lo, post->clip_hi);
                    if (post->residual)
                        acc += post->residual[yi];
                    acc = act_d(post->post_act, acc, post->post_lo, post->post_hi);
                }
                Y[yi] = acc;
            }
}

static void run_case(const tcase_t *t, uint64_t seed)
{
    conv_params_t p;
    params_of(t, &p);
    const int64_t isz = p.in[0] * p.in[1] * p.in[2], osz = p.out[0] * p.out[1] * p.out[2];
    const int64_t ksz = p.kernel[0] * p.kernel[1] * p.kernel[2];
    const int64_t nx = p.N * p.C * isz, nw = p.M * (p.C / p.group) * ksz, ny = p.N * p.M * osz;
    float *X = malloc((size_t)nx * sizeof(float)), *W = malloc((size_t)nw * sizeof(float));
    float *B = malloc((size_t)p.M * sizeof(float)), *Y = malloc((size_t)ny * sizeof(float));
    float *R = malloc((size_t)ny * sizeof(float));
    double *want = malloc((size_t)ny * sizeof(double));
    check_rng_t r = {seed};
    check_fill_f32(&r, X, nx, -1, 1);
    check_fill_f32(&r, W, nw, -1, 1);
    check_fill_f32(&r, B, p.M, -1, 1);
    check_fill_f32(&r, R, ny, -1, 1);
    /* the workspace for both packed-weight paths (direct and im2col) */
    conv_f32_set_direct(0);
    size_t wsb = conv_f32_workspace(&p);
    conv_f32_set_direct(1);
    size_t wsd = conv_f32_workspace(&p);
    wsb = wsd > wsb ? wsd : wsb;
    void *ws = wsb ? base_aligned_alloc(wsb, 64) : NULL;
    const double K = (double)(p.C / p.group * ksz);
    const double atol = 1e-6 + 3e-7 * K, rtol = 1e-5;
    base_pool_t *pool = NULL;
    CHECK_OK(base_pool_create(2, &pool));
    kctx_t k2 = {pool, 2};
    /* the last three set post_act (after the residual): ResNet's
     * Add -> Relu, a clip after a sigmoid (the depthwise kernel's scalar
     * path), and a post_act with no residual */
    conv_post_t posts[7] = {{.act = GEMM_ACT_NONE},
                            {.act = GEMM_ACT_RELU, .residual = R},
                            {.act = GEMM_ACT_CLIP, .clip_lo = 0.0f, .clip_hi = 0.5f},
                            {.act = GEMM_ACT_SIGMOID, .residual = R},
                            {.act = GEMM_ACT_NONE, .residual = R, .post_act = GEMM_ACT_RELU},
                            {.act = GEMM_ACT_SIGMOID,
                             .residual = R,
                             .post_act = GEMM_ACT_CLIP,
                             .post_lo = 0.2f,
                             .post_hi = 0.9f},
                            {.act = GEMM_ACT_RELU,
                             .post_act = GEMM_ACT_CLIP,
                             .post_lo = -0.25f,
                             .post_hi = 0.3f}};
    for (int v = 0; v < 8; v++) {
        const conv_post_t *post = v == 0 ? NULL : &posts[v - 1];
        const float *bias = v == 2 ? NULL : B;
        for (int64_t i = 0; i < ny; i++)
            Y[i] = NAN;
        oracle(&p, X, W, bias, post, want);
        CHECK_OK(conv_f32(v & 1 ? &k2 : NULL, &p, X, W, bias, post, Y, ws, wsb));
        char what[160];
        snprintf(what, sizeof what, "%s (variant %d, %s)", t->name, v,
                 conv_f32_is_depthwise(&p) ? "depthwise" : conv_f32_is_pointwise(&p) ? "1x1" : "im2col");
        check_close_f32(Y, want, ny, atol, rtol, what);
    }
    /* pre-packed weights (group 1): the same results with W poisoned after packing */
    if (p.group == 1 && !conv_f32_is_depthwise(&p)) {
      float *Wcopy = malloc((size_t)nw * sizeof(float));
      memcpy(Wcopy, W, (size_t)nw * sizeof(float));
      /* with Winograd (where it is chosen), then without */
      const int wino_case = conv_wino_chosen(&p);
      for (int wino = wino_case; wino >= 0; wino--) {
        conv_f32_set_winograd(wino);
        size_t psz = conv_f32_packed_w_size(&p);
        void *Wp = base_aligned_alloc(psz, 64);
        CHECK_OK(conv_f32_pack_w(&p, Wcopy, Wp, psz));
        for (int64_t i = 0; i < nw; i++)
            W[i] = NAN;
        const int kind = conv_f32_packed_kind(Wp);
        CHECK(wino ? kind == 'W' : kind == 'A' || kind == 'B');
        /* the cases named "winograd" are meant for it wherever the CPU
         * runs it; those named "direct" or "indirect-A" for those paths
         * wherever the GEMM variant has the indirect kernel (once
         * Winograd is off) */
        if (wino)
            CHECK(!strncmp(conv_f32_packed_path(&p), "winograd", 8) &&
                  conv_wino_packed_tile(Wp) == conv_wino_chosen(&p));
        else if (!strncmp(t->name, "winograd", 8) && conv_wino_possible(&p) &&
                 (strncmp(t->name, "winograd 2x2", 12) ||
                  base_isa_select(CAIRN_ISA_AUTO) < CAIRN_ISA_AVX512))
            /* F(2x2) is taken only below AVX-512 (wino_tile_for) */
            CHECK_MSG(wino_case, "%s: Winograd not chosen", t->name);
        if (!wino && !strncmp(t->name, "direct", 6) && gemm_f32_indb_min_n() > 0)
            CHECK(!strncmp(conv_f32_packed_path(&p), "direct", 6));
        if (!wino && !strncmp(t->name, "indirect-A", 10) && gemm_f32_inda_available())
            CHECK_MSG(!strcmp(conv_f32_packed_path(&p),
                              ksz == 1 ? "1x1 pixel-major" : "indirect-A"),
                      "%s: path %s", t->name, conv_f32_packed_path(&p));
        /* both packed-weight paths: reading the input in place (direct,
         * where it applies) and im2col; 1x1s packed for indirect A also
         * through its kernel instead of the pixel-major GEMM */
        const int pix_lo = kind == 'B' && ksz == 1 ? 0 : 1;
        for (int pix = 1; pix >= pix_lo; pix--)
        for (int direct = 1; direct >= 0; direct--) {
            conv_f32_set_pixels(pix);
            conv_f32_set_direct(direct);
            /* every epilogue: those the direct kernel applies from its
             * registers (bias, ReLU / clip, residual, post ReLU / clip) and
             * those it leaves to the tile store (sigmoid) */
            for (int v = 0; v < 8; v++) {
                const conv_post_t *post = v == 0 ? NULL : &posts[v - 1];
                const float *bias = v == 2 ? NULL : B;
                for (int64_t i = 0; i < ny; i++)
                    Y[i] = NAN;
                /* a workspace left from the previous variant holds the same
                 * intermediate values and would hide a part not recomputed */
                if (ws)
                    memset(ws, 0xff, wsb);
                oracle(&p, X, Wcopy, bias, post, want);
                CHECK_OK(
                    conv_f32_packed_w(v & 1 ? &k2 : NULL, &p, X, Wp, bias, post, Y, ws, wsb));
                char what[160];
                snprintf(what, sizeof what, "%s (packed W, %s%s, variant %d)", t->name,
                         wino ? "winograd" : direct ? "direct where it applies" : "im2col",
                         pix ? "" : ", pixel-major off", v);
                check_close_f32(Y, want, ny, wino ? 3 * atol : atol, wino ? 3 * rtol : rtol,
                                what);
            }
        }
        conv_f32_set_direct(1);
        conv_f32_set_pixels(1);
        CHECK(conv_f32_pack_w(&p, Wcopy, Wp, psz - 1) == CAIRN_ERR_INVALID_ARGUMENT);
        if (wino) {
            /* Winograd weights for another channel count are refused */
            conv_params_t q = p;
            q.M = p.M - 1;
            CHECK_FAILS(conv_f32_packed_w(NULL, &q, X, Wp, B, NULL, Y, ws, wsb),
                        CAIRN_ERR_INVALID_ARGUMENT, "Winograd");
        }
        base_aligned_free(Wp);
      }
      conv_f32_set_winograd(1);
      memcpy(W, Wcopy, (size_t)nw * sizeof(float));
      free(Wcopy);
    } else {
        /* grouped and depthwise convolutions do not take packed weights */
        size_t psz = conv_f32_packed_w_size(&p);
        void *Wp = base_aligned_alloc(psz ? psz : 64, 64);
        CHECK(conv_f32_pack_w(&p, W, Wp, psz) == CAIRN_ERR_INVALID_ARGUMENT);
        base_aligned_free(Wp);
    }
    /* a workspace that is too small is an error, never an overrun */
    if (wsb)
        CHECK_FAILS(conv_f32(NULL, &p, X, W, B, NULL, Y, ws, wsb - 4), CAIRN_ERR_INTERNAL,
                    "workspace");
    base_pool_destroy(pool);
    base_aligned_free(ws);
    free(X), free(W), free(B), free(Y), free(R), free(want);
}

static const tcase_t cases[] = {
    /* name, nsp, N, C, M, group, in, k, s, d, pb, pe */
    {"1x1", 2, 1, 16, 24, 1, {7, 9}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    {"1x1 batch 3", 2, 3, 5, 7, 1, {5, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    {"1x1 stride 2", 2, 2, 8, 12, 1, {9, 8}, {1, 1}, {2, 2}, {1, 1}, {0, 0}, {0, 0}},
    {"1x1 padded", 2, 1, 4, 6, 1, {5, 5}, {1, 1}, {1, 1}, {1, 1}, {1, 0}, {0, 2}},
    {"3x3 pad 1", 2, 1, 8, 16, 1, {13, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"3x3 stride 2", 2, 2, 6, 10, 1, {15, 14}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}},
    {"7x7 stride 2 pad 3", 2, 1, 3, 8, 1, {23, 21}, {7, 7}, {2, 2}, {1, 1}, {3, 3}, {3, 3}},
    {"3x3 dilated", 2, 1, 5, 7, 1, {12, 13}, {3, 3}, {1, 1}, {2, 3}, {2, 1}, {0, 3}},
    {"asym", 2, 1, 3, 5, 1, {9, 17}, {2, 5}, {3, 2}, {1, 1}, {0, 2}, {1, 0}},
    {"grouped", 2, 2, 12, 18, 3, {8, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"grouped 1x1", 2, 1, 8, 8, 4, {6, 6}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    {"depthwise 3x3", 2, 2, 8, 8, 8, {37, 40}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"depthwise 3x3 stride 2", 2, 1, 5, 5, 5, {113, 70}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}},
    {"depthwise 3x3 stride 2 odd", 2, 1, 3, 3, 3, {7, 35}, {3, 3}, {2, 2}, {1, 1}, {0, 1}, {1, 0}},
    {"depthwise 5x5 stride 3", 2, 1, 4, 4, 4, {20, 53}, {5, 5}, {3, 3}, {1, 1}, {2, 2}, {2, 2}},
    {"depthwise dilated", 2, 1, 4, 4, 4, {19, 80}, {3, 3}, {1, 1}, {2, 2}, {2, 2}, {2, 2}},
    {"depthwise big pad", 2, 1, 2, 2, 2, {4, 5}, {3, 3}, {1, 1}, {1, 1}, {4, 6}, {3, 5}},
    /* the AVX2 flattened-plane path near its buffer's limit, and with wide
     * dilated taps reaching past the padded grid */
    {"depthwise flat limit", 2, 1, 3, 3, 3, {61, 61}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"depthwise flat dilated 5x5", 2, 1, 3, 3, 3, {40, 47}, {5, 5}, {1, 1}, {2, 2}, {4, 4}, {4, 4}},
    /* rows too wide for the AVX2 kernel's padded-row ring: its direct path */
    {"depthwise wide rows", 2, 1, 3, 3, 3, {4, 3001}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"depthwise wide rows stride 2", 2, 1, 2, 2, 2, {5, 6003}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {0, 1}},
    {"depthwise wide rows stride 3", 2, 1, 2, 2, 2, {4, 9001}, {3, 5}, {1, 3}, {1, 2}, {1, 3}, {1, 2}},
    {"depthwise tall kernel wide", 2, 1, 2, 2, 2, {9, 1500}, {9, 3}, {1, 1}, {1, 1}, {4, 1}, {4, 1}},
    {"depthwise 1-D", 1, 2, 6, 6, 6, {100}, {5}, {1}, {1}, {2}, {2}},
    {"depthwise 3-D", 3, 1, 4, 4, 4, {4, 5, 6}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    /* MobileNet-like: groups of 8 channels and a partial last group, split
     * in row bands across the 2 threads */
    {"depthwise 112 stride 1", 2, 1, 12, 12, 12, {112, 112}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"depthwise 112 stride 2", 2, 1, 10, 10, 10, {112, 112}, {3, 3}, {2, 2}, {1, 1}, {0, 1}, {1, 0}},
    {"depthwise 7x7 many", 2, 2, 40, 40, 40, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"depthwise x2 multiplier", 2, 1, 4, 8, 4, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"1-D", 1, 2, 5, 6, 1, {31}, {4}, {2}, {1}, {1}, {2}},
    {"3-D", 3, 2, 3, 4, 1, {5, 6, 7}, {3, 2, 3}, {1, 2, 1}, {1, 1, 2}, {1, 0, 2}, {1, 1, 1}},
    {"3-D grouped strided", 3, 1, 4, 6, 2, {6, 5, 7}, {2, 3, 3}, {2, 1, 2}, {1, 2, 1}, {0, 1, 1}, {1, 1, 0}},
    {"k larger than rows", 2, 1, 2, 3, 1, {1, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"deep", 2, 1, 64, 8, 1, {6, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    /* deep and wide: the im2col runs in several column chunks */
    {"chunked", 2, 1, 256, 8, 1, {20, 30}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"chunked stride 2", 2, 2, 128, 4, 1, {41, 45}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}},
    /* the direct (indirect-B) path with packed weights: more A panels than
     * one block keeps (200 rows), rows narrower than a tile (several column
     * runs per tile, the padded columns dropped), K in several packed
     * blocks and passes, the last tile shifted back, stride phases with
     * dilation and uneven pads, too few tiles to split (the rows are) */
    {"direct 3x3 deep", 2, 2, 40, 200, 1, {9, 17}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    /* indirect A (small planes, many channels, K >= 256): partial pixel
     * tiles and channel panels, K in several packed blocks, strides,
     * dilation, uneven pads, a 1x1 read in place, batch 2 */
    {"indirect-A 3x3", 2, 2, 32, 70, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"indirect-A 3x3 deep", 2, 1, 64, 100, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    /* more pixel tiles than one accumulator group (32 tiles), K in 2 blocks */
    {"indirect-A tall", 2, 1, 32, 64, 1, {40, 13}, {3, 3}, {1, 1}, {2, 1}, {1, 1}, {1, 1}},
    /* weights over 1.5 L2 (3.3 MB; L2 2 MB): the 2-thread runs split the
     * output channels, smaller ones the pixels */
    {"indirect-A 3x3 heavy weights", 2, 1, 720, 128, 1, {5, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"indirect-A 3x3 stride 2 dilated", 2, 1, 40, 64, 1, {13, 10}, {3, 3}, {2, 2}, {2, 1}, {2, 0}, {1, 2}},
    {"indirect-A 1x1", 2, 2, 300, 65, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    /* a 14x14 1x1: pixel-major with the AVX-512 tiles, the packed GEMM
     * with the AVX2 ones (so no path is asserted) */
    {"1x1 14x14", 2, 1, 96, 80, 1, {14, 14}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    /* a strided 1x1 onto a 7x7 plane: a compact copy of the pixels read
     * (with pads: zeros), planes 64-byte aligned; a 1x1 whose planes are
     * 16 floats (read in place, no copy) */
    {"indirect-A strided 1x1", 2, 1, 260, 64, 1, {14, 13}, {1, 1}, {2, 2}, {1, 1}, {0, 0}, {0, 0}},
    {"indirect-A strided 1x1 padded", 2, 2, 257, 67, 1, {11, 9}, {1, 1}, {2, 2}, {1, 1}, {1, 1}, {1, 0}},
    {"indirect-A 1x1 aligned planes", 2, 1, 300, 80, 1, {4, 4}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    /* pixel-major 1x1s: K under 256 (72 channels = 9 blocks of 8, 42
     * pixels = 5 x 8 + 2), and enough output (P x M >= 16384) for the
     * threaded transposed store, channels in 7 blocks of 64 (the last 16) */
    {"indirect-A 1x1 short K", 2, 2, 96, 72, 1, {6, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    {"indirect-A 1x1 threaded store", 2, 1, 256, 400, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    {"indirect-A 5x3 few pixels", 2, 1, 20, 96, 1, {3, 4}, {5, 3}, {1, 1}, {1, 1}, {2, 1}, {2, 1}},
    {"direct 3x3 K blocks", 2, 1, 70, 13, 1, {12, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"direct 5x5 stride 2 dilated", 2, 1, 6, 9, 1, {30, 33}, {5, 5}, {2, 2}, {2, 1}, {3, 2}, {1, 4}},
    {"direct stride 3", 2, 1, 4, 6, 1, {31, 29}, {3, 3}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"direct 1x1 stride 2", 2, 1, 24, 20, 1, {20, 34}, {1, 1}, {2, 2}, {1, 1}, {0, 0}, {0, 0}},
    {"direct 1x1 tail", 2, 1, 33, 50, 1, {5, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    {"direct 1x1 few tiles", 2, 1, 300, 17, 1, {4, 9}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    {"direct 7x7 stride 2", 2, 1, 3, 16, 1, {40, 37}, {7, 7}, {2, 2}, {1, 1}, {3, 3}, {3, 3}},
    /* output rows a multiple of the tile wide: tiles laid out by rows (a
     * MobileNet-like stem with a partial channel panel, a stride-1 3x3 with
     * 16-wide rows, batch 2) */
    {"direct stem rows", 2, 1, 3, 32, 1, {11, 64}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}},
    {"direct 3x3 rows of 16", 2, 2, 5, 13, 1, {6, 16}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    /* a stem-like short-K layer whose output rows (103 wide) are not a
     * multiple of the tile width: tiles by rows, the last of each partial */
    {"direct stem rows, partial last tile", 2, 1, 3, 20, 1, {8, 205}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}},
    /* rows an odd multiple of half the tile wide (the stems' 112 = 3 x 32
     * + 16 with the AVX-512 tiles): each row's last 16 columns through the
     * half-tile kernel, partial channel panels (20 = 14 + 6, 30 = 14 + 14 +
     * 2), a short K and the 7x7 stem's K = 147 */
    {"direct stem rows 48 wide", 2, 1, 3, 20, 1, {10, 96}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}},
    {"direct 7x7 stride 2 rows 80 wide", 2, 1, 3, 30, 1, {17, 160}, {7, 7}, {2, 2}, {1, 1}, {3, 3}, {3, 3}},
    /* phase planes large enough (24 planes of 59 x 59) to be copied in row
     * bands on 2 threads */
    {"direct 7x7 stride 2 banded copy", 2, 1, 6, 16, 1, {112, 112}, {7, 7}, {2, 2}, {1, 1}, {3, 3}, {3, 3}},
    /* a last channel panel of 3, 4 and 5 rows (of 6) with whole-tile runs:
     * those rows alone, stored from the registers */
    {"direct 1x1 last panel 3", 2, 1, 20, 9, 1, {8, 16}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    {"direct 1x1 last panel 4", 2, 2, 7, 16, 1, {4, 32}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    {"direct 1x1 last panel 5", 2, 1, 33, 11, 1, {2, 48}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    /* Winograd F(4x4, 3x3): planes not a multiple of 4 (partial tiles),
     * channel counts not a multiple of 8 (partial blocks), pads 0 to 2 on
     * either side, batch 2, K in several GEMM blocks, the smallest plane
     * it takes (8x8), rows wider than its 32-tile window */
    {"winograd 24x24", 2, 1, 16, 24, 1, {24, 24}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"winograd odd", 2, 2, 13, 21, 1, {10, 15}, {3, 3}, {1, 1}, {1, 1}, {0, 2}, {2, 0}},
    {"winograd no pad", 2, 1, 9, 17, 1, {11, 12}, {3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
    {"winograd pad 2", 2, 1, 8, 16, 1, {9, 13}, {3, 3}, {1, 1}, {1, 1}, {2, 1}, {1, 2}},
    {"winograd deep", 2, 1, 300, 24, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"winograd 8x8", 2, 1, 8, 40, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    /* rows wider than one padded window (32 tiles) */
    {"winograd wide", 2, 1, 9, 16, 1, {9, 150}, {3, 3}, {1, 1}, {1, 1}, {1, 0}, {1, 1}},
    /* F(2x2, 3x3) on planes under 8x8 (ResNet-50's 7x7 stage), partial
     * tiles and channel blocks, batch 2 */
    {"winograd 2x2 7x7", 2, 1, 64, 72, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"winograd 2x2 odd", 2, 2, 70, 66, 1, {5, 6}, {3, 3}, {1, 1}, {1, 1}, {0, 1}, {1, 1}},
};

/* The depthwise kernel the dispatch selected (AVX2 / AVX-512 / portable
 * under CAIRN_ISA) on random 2-D geometries at edge sizes: channels 1..17,
 * 1x1 to odd-sized images, kernels 1..5, strides 1..3 (1 and 2 most
 * often), dilations 1..2, pads 0..k on each side, every fused epilogue
 * (none, ReLU, Clip as ReLU6 and a narrow band, Sigmoid, SiLU, each with
 * and without bias and residual); against the double oracle through
 * conv_f32, and against the portable plane kernel plane by plane. Buffers
 * are allocated at their exact sizes, so the sanitizer build catches any
 * read past a plane. */
/* The plane kernel conv_f32 dispatches to (by its variant's name). */
static conv_dw_plane_fn dw_selected(void)
{
    const char *n = conv_dw_variant_name();
    return strcmp(n, "avx2") == 0 ? conv_dw_plane_f32_avx2 : conv_dw_plane_f32_ref;
}

static void test_depthwise_sweep(void)
{
    check_rng_t r = {4242};
    const gemm_act_t acts[] = {GEMM_ACT_NONE, GEMM_ACT_RELU, GEMM_ACT_CLIP, GEMM_ACT_CLIP,
                               GEMM_ACT_SIGMOID, GEMM_ACT_SILU};
    const int nacts = (int)(sizeof acts / sizeof acts[0]);
    int ran = 0;
    for (int it = 0; it < 360; it++) {
        tcase_t t;
        memset(&t, 0, sizeof t);
        t.name = "depthwise sweep";
        t.nsp = 2;
        t.N = 1 + (int64_t)(check_rng_next(&r) % 2);
        t.C = t.M = t.group = 1 + (int64_t)(it % 17);
        int ok = 1;
        for (int d = 0; d < 2; d++) {
            uint64_t u = check_rng_next(&r) % 8;
            t.in[d] = u == 0 ? 1 : u < 3 ? 1 + (int64_t)(check_rng_next(&r) % 9)
                                         : 1 + (int64_t)(check_rng_next(&r) % 70);
            t.k[d] = 1 + (int64_t)(check_rng_next(&r) % 5);
            if (check_rng_next(&r) % 3)
                t.k[d] = 3;
            uint64_t su = check_rng_next(&r) % 8;
            t.s[d] = su < 4 ? 1 : su < 7 ? 2 : 3;
            t.d[d] = check_rng_next(&r) % 6 ? 1 : 2;
            t.pb[d] = (int64_t)(check_rng_next(&r) % (uint64_t)(t.k[d] + 1));
            t.pe[d] = (int64_t)(check_rng_next(&r) % (uint64_t)(t.k[d] + 1));
            if (t.in[d] + t.pb[d] + t.pe[d] < (t.k[d] - 1) * t.d[d] + 1)
                ok = 0;
        }
        if (!ok)
            continue;
        conv_params_t p;
        params_of(&t, &p);
        /* C = 1 (group 1) is an ordinary Conv to conv_f32 (im2col); the
         * plane kernel below still runs it as depthwise */
        CHECK_MSG(conv_f32_is_depthwise(&p) == (p.C > 1), "sweep case %d: depthwise test", it);
        ran++;
        const int64_t isz = p.in[1] * p.in[2], osz = p.out[1] * p.out[2],
                      ksz = p.kernel[1] * p.kernel[2];
        const int64_t nx = p.N * p.C * isz, nw = p.C * ksz, ny = p.N * p.C * osz;
        float *X = malloc((size_t)nx * sizeof(float)), *W = malloc((size_t)nw * sizeof(float));
        float *B = malloc((size_t)p.C * sizeof(float)), *Y = malloc((size_t)ny * sizeof(float));
        float *Yr = malloc((size_t)ny * sizeof(float)), *R = malloc((size_t)ny * sizeof(float));
        double *want = malloc((size_t)ny * sizeof(double));
        check_fill_f32(&r, X, nx, -1, 1);
        check_fill_f32(&r, W, nw, -1, 1);
        check_fill_f32(&r, B, p.C, -1, 1);
        check_fill_f32(&r, R, ny, -1, 1);
        const gemm_act_t act = acts[it % nacts];
        const int use_bias = (int)(check_rng_next(&r) % 4 != 0);
        const int use_res = (int)(check_rng_next(&r) % 2);
        const int no_post = act == GEMM_ACT_NONE && !use_res && (check_rng_next(&r) & 1);
        conv_post_t post = {.act = act, .clip_lo = 0.0f, .clip_hi = 6.0f, .residual = use_res ? R : NULL};
        if (act == GEMM_ACT_CLIP && (it / nacts) % 2)
            post.clip_lo = -0.25f, post.clip_hi = 0.3f;
        for (int64_t i = 0; i < ny; i++)
            Y[i] = Yr[i] = NAN;
        const float *bias = use_bias ? B : NULL;
        oracle(&p, X, W, bias, no_post ? NULL : &post, want);
        size_t wsb = conv_f32_workspace(&p);
        void *ws = wsb ? base_aligned_alloc(wsb, 64) : NULL;
        CHECK_OK(conv_f32(NULL, &p, X, W, bias, no_post ? NULL : &post, Y, ws, wsb));
        base_aligned_free(ws);
        for (int64_t pl = 0; pl < p.N * p.C; pl++)
            conv_dw_plane_f32_ref(&p, X + pl * isz, W + (pl % p.C) * ksz,
                                  bias ? bias[pl % p.C] : 0.0f, no_post ? NULL : &post,
                                  use_res && !no_post ? R + pl * osz : NULL, Yr + pl * osz);
        if (p.C == 1) { /* the selected plane kernel itself, which conv_f32 did not run */
            for (int64_t i = 0; i < ny; i++)
                Y[i] = NAN;
            for (int64_t pl = 0; pl < p.N; pl++)
                dw_selected()(&p, X + pl * isz, W, bias ? bias[0] : 0.0f, no_post ? NULL : &post,
                              use_res && !no_post ? R + pl * osz : NULL, Y + pl * osz);
        }
        char what[200];
        snprintf(what, sizeof what,
                 "dw sweep %d: N%lld C%lld %lldx%lld k%lldx%lld s%lldx%lld d%lldx%lld "
                 "pads %lld,%lld/%lld,%lld act %d bias %d res %d",
                 it, (long long)p.N, (long long)p.C, (long long)p.in[1], (long long)p.in[2],
                 (long long)p.kernel[1], (long long)p.kernel[2], (long long)p.stride[1],
                 (long long)p.stride[2], (long long)p.dilation[1], (long long)p.dilation[2],
                 (long long)t.pb[0], (long long)t.pb[1], (long long)t.pe[0], (long long)t.pe[1],
                 (int)act, use_bias, use_res);
        const double K = (double)ksz;
        check_close_f32(Y, want, ny, 1e-6 + 3e-7 * K, 1e-5, what);
        /* the selected variant and the portable kernel differ only by f32
         * rounding order (FMA vs multiply-add) */
        double *yr_d = malloc((size_t)ny * sizeof(double));
        for (int64_t i = 0; i < ny; i++)
            yr_d[i] = Yr[i];
        check_close_f32(Y, yr_d, ny, 1e-6 + 3e-7 * K, 1e-5, what);
        free(yr_d);
        free(X), free(W), free(B), free(Y), free(Yr), free(R), free(want);
    }
    CHECK(ran > 250);
}

/* The AVX2 eight-plane depthwise kernel (conv_dw_planes8_f32_avx2) called
 * directly, against the portable plane kernel plane by plane: channel
 * counts that are not multiples of 8 (partial last group), planes from 1x1
 * to 112x112, odd sizes, strides 1 to 3, pads 0 to 2 (asymmetric),
 * dilation 2, 3x3, 5x5 and non-square kernels, every epilogue (none, bias
 * only, ReLU6, ReLU + residual, Clip + residual + post Clip, Sigmoid +
 * residual by the scalar path, post_act alone), each run whole and split
 * into 3 row bands. The first band of the first group runs alone first:
 * nothing outside its rows and channels may be written. Buffers are exact
 * sizes (the sanitizer build catches reads past the planes). */
typedef struct dw8case {
    int64_t C, IH, IW, KH, KW, sh, sw, dh, dw, pt, pl, pb, pr;
} dw8case_t;

static void test_depthwise_planes8(void)
{
    if (base_isa_select(CAIRN_ISA_AUTO) < CAIRN_ISA_AVX2)
        return; /* the kernel needs AVX2 + FMA (and CAIRN_ISA=ref caps it off) */
    static const dw8case_t cs[] = {
        {8, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},       {3, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {13, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},      {20, 13, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
        {8, 13, 13, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0},     {16, 112, 112, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {9, 112, 112, 3, 3, 2, 2, 1, 1, 0, 1, 1, 0},   {11, 14, 14, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
        {5, 13, 13, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},     {10, 28, 28, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2},
        {7, 9, 30, 5, 3, 1, 3, 2, 1, 4, 1, 4, 1},      {8, 1, 70, 1, 5, 1, 1, 1, 1, 0, 2, 0, 2},
        {17, 7, 7, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0},      {24, 56, 56, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
        {12, 2, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},      {6, 15, 22, 5, 5, 2, 1, 2, 2, 4, 3, 4, 4},
    };
    check_rng_t r = {777};
    for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++) {
        const dw8case_t *t = &cs[ci];
        const int64_t OH = (t->IH + t->pt + t->pb - (t->KH - 1) * t->dh - 1) / t->sh + 1;
        const int64_t OW = (t->IW + t->pl + t->pr - (t->KW - 1) * t->dw - 1) / t->sw + 1;
        conv_params_t p = {1,       t->C,    t->C,          t->C,
                           {1, t->IH, t->IW},     {1, OH, OW},         {1, t->KH, t->KW},
                           {1, t->sh, t->sw},     {1, t->dh, t->dw},   {0, t->pt, t->pl}};
        CHECK_MSG(conv_dw_planes8_f32_avx2_fits(&p), "planes8 case %zu fits", ci);
        const int64_t isz = t->IH * t->IW, osz = OH * OW, taps = t->KH * t->KW;
        const int64_t nx = t->C * isz, ny = t->C * osz;
        float *X = malloc((size_t)nx * sizeof(float)), *W = malloc((size_t)(t->C * taps) * sizeof(float));
        float *B = malloc((size_t)t->C * sizeof(float)), *R = malloc((size_t)ny * sizeof(float));
        float *Y = malloc((size_t)ny * sizeof(float)), *Yr = malloc((size_t)ny * sizeof(float));
        double *want = malloc((size_t)ny * sizeof(double));
        check_fill_f32(&r, X, nx, -1, 1);
        check_fill_f32(&r, W, t->C * taps, -1, 1);
        check_fill_f32(&r, B, t->C, -1, 1);
        check_fill_f32(&r, R, ny, -1, 1);
        const conv_post_t posts[6] = {
            {.act = GEMM_ACT_NONE},
            {.act = GEMM_ACT_CLIP, .clip_lo = 0.0f, .clip_hi = 6.0f},
            {.act = GEMM_ACT_RELU, .residual = R},
            {.act = GEMM_ACT_CLIP, .clip_lo = -0.5f, .clip_hi = 0.5f, .residual = R,
             .post_act = GEMM_ACT_CLIP, .post_lo = -0.25f, .post_hi = 0.75f},
            {.act = GEMM_ACT_SIGMOID, .residual = R},
            {.act = GEMM_ACT_NONE, .post_act = GEMM_ACT_RELU}};
        for (int v = 0; v < 7; v++) {
            const conv_post_t *post = v == 0 ? NULL : &posts[v - 1];
            const float *bias = v == 1 || v == 6 ? NULL : B;
            const int has_res = post && post->residual;
            for (int64_t c = 0; c < t->C; c++)
                conv_dw_plane_f32_ref(&p, X + c * isz, W + c * taps, bias ? bias[c] : 0.0f, post,
                                      has_res ? R + c * osz : NULL, Yr + c * osz);
            for (int64_t i = 0; i < ny; i++)
                want[i] = Yr[i];
            for (int bands = 1; bands <= 3; bands += 2) {
                for (int64_t i = 0; i < ny; i++)
                    Y[i] = NAN;
                int ok = 1;
                for (int64_t c0 = 0; c0 < t->C; c0 += 8) {
                    const int nc = t->C - c0 < 8 ? (int)(t->C - c0) : 8;
                    for (int b = 0; b < bands; b++) {
                        const int64_t oh0 = OH * b / bands, oh1 = OH * (b + 1) / bands;
                        ok &= conv_dw_planes8_f32_avx2(
                            &p, X + c0 * isz, W + c0 * taps, bias ? bias + c0 : NULL, post,
                            has_res ? R + c0 * osz : NULL, Y + c0 * osz, nc, oh0, oh1);
                        if (c0 == 0 && b == 0 && bands == 3) {
                            /* only channels [0, nc), rows [0, oh1) written so far */
                            int64_t bad = 0;
                            for (int64_t c = 0; c < t->C; c++)
                                for (int64_t i = 0; i < osz; i++)
                                    if (!(c < nc && i < oh1 * OW) && !isnan(Y[c * osz + i]))
                                        bad++;
                            CHECK_MSG(bad == 0, "planes8 case %zu: %lld outputs written outside "
                                      "the band", ci, (long long)bad);
                        }
                    }
                }
                CHECK_MSG(ok, "planes8 case %zu: kernel declined a fitting geometry", ci);
                char what[200];
                snprintf(what, sizeof what,
                         "planes8 case %zu: C%lld %lldx%lld k%lldx%lld s%lldx%lld d%lldx%lld "
                         "post %d bands %d",
                         ci, (long long)t->C, (long long)t->IH, (long long)t->IW,
                         (long long)t->KH, (long long)t->KW, (long long)t->sh, (long long)t->sw,
                         (long long)t->dh, (long long)t->dw, v, bands);
                check_close_f32(Y, want, ny, 1e-6 + 3e-7 * (double)taps, 1e-5, what);
            }
        }
        free(X), free(W), free(B), free(R), free(Y), free(Yr), free(want);
    }
    /* geometries the kernel declines (the plane kernel runs them): rows
     * wider than its band buffer, negative padding, too many taps */
    conv_params_t wide = {1, 8, 8, 8, {1, 3, 3001}, {1, 3, 3001}, {1, 3, 3}, {1, 1, 1}, {1, 1, 1},
                          {0, 1, 1}};
    CHECK(!conv_dw_planes8_f32_avx2_fits(&wide));
    CHECK(conv_dw_planes8_f32_avx2(&wide, NULL, NULL, NULL, NULL, NULL, NULL, 8, 0, 3) == 0);
    conv_params_t neg = {1, 8, 8, 8, {1, 6, 6}, {1, 4, 4}, {1, 3, 3}, {1, 1, 1}, {1, 1, 1},
                         {0, -1, 1}};
    CHECK(!conv_dw_planes8_f32_avx2_fits(&neg));
    conv_params_t big = {1, 8, 8, 8, {1, 20, 20}, {1, 10, 10}, {1, 11, 11}, {1, 1, 1}, {1, 1, 1},
                         {0, 0, 0}};
    CHECK(!conv_dw_planes8_f32_avx2_fits(&big));
}

/* Conv through the public API (the plan gives the workspace): output
 * against the oracle. */
static void test_session(void)
{
    tcase_t t = {"session", 2, 2, 6, 8, 2, {10, 9}, {3, 3}, {2, 1}, {1, 2}, {1, 2}, {0, 1}};
    conv_params_t p;
    params_of(&t, &p);
    cairn_graph_t *g = NULL;
    CHECK_OK(cairn_graph_create(&g));
    int64_t xd[4] = {2, 6, 10, 9}, wd[4] = {8, 3, 3, 3}, bd[1] = {8};
    float W[8 * 3 * 9], B[8];
    check_rng_t r = {11};
    check_fill_f32(&r, W, 8 * 27, -1, 1);
    check_fill_f32(&r, B, 8, -1, 1);
    cairn_tensor_t wt = {CAIRN_F32, 4, {8, 3, 3, 3}, W}, bt = {CAIRN_F32, 1, {8}, B};
    (void)wd, (void)bd;
    cairn_value_id x, w, b, y;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, xd, NULL, &x));
    CHECK_OK(cairn_graph_add_constant(g, "w", &wt, &w));
    CHECK_OK(cairn_graph_add_constant(g, "b", &bt, &b));
    int64_t st[2] = {2, 1}, dl[2] = {1, 2}, pads[4] = {1, 2, 0, 1};
    cairn_attr_t a[4] = {cairn_attr_ints("strides", st, 2), cairn_attr_ints("dilations", dl, 2),
                         cairn_attr_ints("pads", pads, 4), cairn_attr_int("group", 2)};
    cairn_value_id ins[3] = {x, w, b};
    CHECK_OK(cairn_graph_add_node(g, "Conv", "conv", ins, 3, a, 4, &y, 1, NULL));
    CHECK_OK(cairn_graph_mark_output(g, y));
    cairn_session_options_t so = cairn_session_options_default();
    so.threads = 2;
    cairn_session_t *s = NULL;
    CHECK_OK(cairn_session_create(g, &so, &s));
    float X[2 * 6 * 90];
    check_fill_f32(&r, X, 2 * 6 * 90, -1, 1);
    cairn_tensor_t xin = {CAIRN_F32, 4, {2, 6, 10, 9}, X}, out;
    memset(&out, 0, sizeof out);
    if (s) {
        CHECK_OK(cairn_session_run(s, &xin, 1, &out, 1));
        int64_t ny = p.N * p.M * p.out[1] * p.out[2];
        CHECK(out.rank == 4 && out.shape[2] == p.out[1] && out.shape[3] == p.out[2]);
        double *want = malloc((size_t)ny * sizeof(double));
        oracle(&p, X, W, B, NULL, want);
        if (out.data && out.rank == 4)
            check_close_f32(out.data, want, ny, 1e-5, 1e-5, "session conv");
        free(want);
    }
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
}

/* Winograd's rounding error against the direct GEMM's, on one layer
 * shaped like ResNet-50's second stage (128 input channels, 16x16 plane):
 * max over outputs of |y - exact| / sum |x||w| (the bound the rounding of
 * a dot product scales with). winograd.c states the bound asserted here. */
static void test_winograd_accuracy(void)
{
    const tcase_t t = {"acc", 2, 1, 128, 16, 1, {16, 16}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
    conv_params_t p;
    params_of(&t, &p);
    if (!conv_wino_possible(&p))
        return;
    const int64_t nx = p.C * 256, nw = p.M * p.C * 9, ny = p.M * 256;
    float *X = malloc((size_t)nx * sizeof(float)), *W = malloc((size_t)nw * sizeof(float));
    float *Y = malloc((size_t)ny * sizeof(float));
    double *want = malloc((size_t)ny * sizeof(double)), *mag = malloc((size_t)ny * sizeof(double));
    check_rng_t r = {777};
    check_fill_f32(&r, X, nx, -1, 1);
    check_fill_f32(&r, W, nw, -1, 1);
    oracle(&p, X, W, NULL, NULL, want);
    /* sum |x||w| per output: the oracle on |X| and |W| */
    float *aX = malloc((size_t)nx * sizeof(float)), *aW = malloc((size_t)nw * sizeof(float));
    for (int64_t i = 0; i < nx; i++)
        aX[i] = fabsf(X[i]);
    for (int64_t i = 0; i < nw; i++)
        aW[i] = fabsf(W[i]);
    oracle(&p, aX, aW, NULL, NULL, mag);
    size_t wsb = conv_f32_workspace(&p);
    void *ws = base_aligned_alloc(wsb, 64);
    double err[2] = {0, 0};
    for (int wino = 1; wino >= 0; wino--) {
        conv_f32_set_winograd(wino);
        size_t psz = conv_f32_packed_w_size(&p);
        void *Wp = base_aligned_alloc(psz, 64);
        CHECK_OK(conv_f32_pack_w(&p, W, Wp, psz));
        CHECK(!strcmp(conv_f32_packed_path(&p), wino ? "winograd" : "direct") ||
              (!wino && gemm_f32_indb_min_n() == 0));
        CHECK_OK(conv_f32_packed_w(NULL, &p, X, Wp, NULL, NULL, Y, ws, wsb));
        for (int64_t i = 0; i < ny; i++) {
            double e = fabs((double)Y[i] - want[i]) / mag[i];
            err[wino] = e > err[wino] ? e : err[wino];
        }
        base_aligned_free(Wp);
    }
    conv_f32_set_winograd(1);
    printf("winograd error %.2e, direct %.2e (max |y - exact| / sum |x||w|)\n", err[1], err[0]);
    CHECK_MSG(err[1] <= 3e-6, "Winograd error %.3g over the stated 3e-6", err[1]);
    CHECK_MSG(err[0] <= 1e-6, "direct error %.3g", err[0]);
    base_aligned_free(ws);
    free(X), free(W), free(Y), free(want), free(mag), free(aX), free(aW);
}

/* The pixel-major 1x1 path's transposed store: each vector form against
 * the portable one (which the convolution cases check against the
 * oracle), bit for bit, over plane sizes around the 8- and 16-pixel blocks
 * (49 and 196: ResNet-50's 7x7 and 14x14), channel ranges that start and
 * end off the blocks, and every epilogue field; other activations go to
 * the portable form. */
static void test_store_t(void)
{
    typedef void (*store_fn)(const float *, int64_t, int64_t, int64_t, int64_t,
                             const gemm_epilogue_t *, float *, int64_t);
    const struct { const char *name; cairn_isa_t isa; store_fn f; } forms[] = {
        {"avx2", CAIRN_ISA_AVX2, conv_store_t_f32_avx2},
        {"avx512", CAIRN_ISA_AVX512, conv_store_t_f32_avx512},
    };
    static const int64_t planes[] = {1, 7, 8, 15, 16, 17, 33, 49, 196};
    static const int64_t chans[][3] = {{40, 0, 40}, {40, 3, 37}, {16, 0, 16}, {70, 16, 64}, {9, 0, 9}};
    check_rng_t r = {77};
    for (int fi = 0; fi < 2; fi++) {
        if (forms[fi].isa > base_cpu()->best_isa)
            continue;
        for (int pi = 0; pi < (int)(sizeof planes / sizeof planes[0]); pi++)
            for (int ci = 0; ci < (int)(sizeof chans / sizeof chans[0]); ci++)
                for (int ek = 0; ek < 6; ek++) {
                    const int64_t P = planes[pi], M = chans[ci][0], c0 = chans[ci][1],
                                  c1 = chans[ci][2];
                    float *ct = malloc(sizeof(float) * (size_t)(P * M));
                    float *bias = malloc(sizeof(float) * (size_t)M);
                    float *res = malloc(sizeof(float) * (size_t)(M * (P + 3)));
                    /* y's rows wider than the plane on some cases (a block
                     * of pixels of a wider plane): the gaps stay untouched */
                    const int64_t ldy = P + (ek % 3 == 2 ? 5 : 0);
                    float *y0 = malloc(sizeof(float) * (size_t)(M * ldy));
                    float *y1 = malloc(sizeof(float) * (size_t)(M * ldy));
                    float *y2 = malloc(sizeof(float) * (size_t)(M * P));
                    check_fill_f32(&r, ct, P * M, -2, 2);
                    check_fill_f32(&r, bias, M, -1, 1);
                    check_fill_f32(&r, res, M * (P + 3), -1, 1);
                    if (P > 3)
                        ct[3 * M + c0] = NAN; /* activations keep the portable form's NaN rule */
                    static const gemm_act_t acts[] = {GEMM_ACT_NONE, GEMM_ACT_RELU, GEMM_ACT_CLIP,
                                                      GEMM_ACT_RELU, GEMM_ACT_NONE, GEMM_ACT_SILU};
                    gemm_epilogue_t e = {GEMM_BIAS_ROW, ek % 2 ? bias : NULL, acts[ek], -0.5f,
                                         0.7f, ek == 4 ? 0.5f : 1.0f, ek >= 2 ? res : NULL,
                                         P + 3, ek == 3 ? GEMM_ACT_CLIP : GEMM_ACT_NONE, -0.2f,
                                         0.9f};
                    for (int64_t i = 0; i < M * ldy; i++)
                        y0[i] = y1[i] = -7.0f; /* channels outside [c0, c1) stay untouched */
                    for (int64_t i = 0; i < M * P; i++)
                        y2[i] = -7.0f;
                    conv_store_t_f32_ref(ct, P, M, c0, c1, &e, y0, ldy);
                    conv_store_t_f32_ref(ct, P, M, c0, c1, &e, y2, P);
                    forms[fi].f(ct, P, M, c0, c1, &e, y1, ldy);
                    int64_t gap = -1; /* the portable form at ldy against itself at P */
                    for (int64_t c = 0; c < M && gap < 0; c++)
                        for (int64_t q = 0; q < ldy && gap < 0; q++)
                            if (memcmp(&y0[c * ldy + q], q < P ? &y2[c * P + q] : &(float){-7.0f},
                                       sizeof(float)) != 0 &&
                                !(q < P && isnan(y0[c * ldy + q]) && isnan(y2[c * P + q])))
                                gap = c * ldy + q;
                    CHECK_MSG(gap < 0, "store_t ref: P %lld, ldy %lld, epilogue %d: y[%lld] wrong",
                              (long long)P, (long long)ldy, ek, (long long)gap);
                    int64_t bad = -1;
                    for (int64_t i = 0; i < M * ldy && bad < 0; i++)
                        if (memcmp(&y0[i], &y1[i], sizeof(float)) != 0 &&
                            !(isnan(y0[i]) && isnan(y1[i])))
                            bad = i;
                    CHECK_MSG(bad < 0,
                              "store_t %s: P %lld, M %lld, channels [%lld, %lld), epilogue %d: "
                              "y[%lld] = %g, want %g",
                              forms[fi].name, (long long)P, (long long)M, (long long)c0,
                              (long long)c1, ek, (long long)bad, bad < 0 ? 0.0 : (double)y1[bad],
                              bad < 0 ? 0.0 : (double)y0[bad]);
                    free(ct), free(bias), free(res), free(y0), free(y1), free(y2);
                }
    }
}

/* The stride-2 phase row copy: each vector form against the portable one
 * for lengths around the 16-lane blocks, from a source of exactly 2 n - 1
 * floats (a read past it is a heap overflow under the sanitizers) into a
 * destination whose tail must stay untouched. */
static void test_copy_s2(void)
{
    check_rng_t r = {91};
    for (int64_t n = 1; n <= 50; n++) {
        float *src = malloc(sizeof(float) * (size_t)(2 * n - 1));
        float *d0 = malloc(sizeof(float) * (size_t)(n + 3));
        float *d1 = malloc(sizeof(float) * (size_t)(n + 3));
        check_fill_f32(&r, src, 2 * n - 1, -3, 3);
        for (int64_t i = 0; i < n + 3; i++)
            d0[i] = d1[i] = -9.0f;
        conv_copy_s2_f32_ref(d0, src, n);
        int64_t bad = -1;
        for (int64_t i = 0; i < n + 3 && bad < 0; i++)
            if (d0[i] != (i < n ? src[2 * i] : -9.0f))
                bad = i;
        CHECK_MSG(bad < 0, "copy_s2 ref, n %lld: element %lld", (long long)n, (long long)bad);
        if (base_cpu()->best_isa >= CAIRN_ISA_AVX512) {
            conv_copy_s2_f32_avx512(d1, src, n);
            CHECK_MSG(!memcmp(d0, d1, sizeof(float) * (size_t)(n + 3)),
                      "copy_s2 avx512, n %lld: differs from the portable copy", (long long)n);
        }
        free(src), free(d0), free(d1);
    }
}

int main(void)
{
    test_winograd_accuracy();
    test_copy_s2();
    test_store_t();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], 100 + i);
    test_depthwise_sweep();
    test_depthwise_planes8();
    test_session();
    printf("depthwise variant: %s\n", conv_dw_variant_name());
    return check_finish("test_conv_fast");
}
