/*
 * Quick f32 convolution timing on ResNet-50's and MobileNetV2's group-1
 * convolutions (224x224 input, batch 1), weights pre-packed as the
 * compiler does: best-of-9 milliseconds of the path cairn picks (named in
 * the last column), of the best path without Winograd, and of the packed
 * GEMM over im2col (or over X for 1x1), same process, alternating; GFLOP/s
 * count the direct convolution's multiply-adds (Winograd does fewer). Usage: bench_conv_f32
 * [--threads T] [--only I]
 * Not a test: prints numbers, asserts nothing.
 */
#include "base/alloc.h"
#include "base/clock.h"
#include "base/threadpool.h"
#include "kernels/conv/conv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape {
    const char *name;
    int64_t C, M, H, W, k, s;
} shape_t;

static const shape_t shapes[] = {
    {"r50 conv1 7x7/2", 3, 64, 224, 224, 7, 2},   {"r50 l1 3x3", 64, 64, 56, 56, 3, 1},
    {"r50 l1 1x1 64>256", 64, 256, 56, 56, 1, 1}, {"r50 l1 1x1 256>64", 256, 64, 56, 56, 1, 1},
    {"r50 l1.0 1x1 64>64", 64, 64, 56, 56, 1, 1},
    {"r50 l2 3x3", 128, 128, 28, 28, 3, 1},       {"r50 l2 1x1 128>512", 128, 512, 28, 28, 1, 1},
    {"r50 l2 1x1 512>128", 512, 128, 28, 28, 1, 1}, {"r50 l3 3x3", 256, 256, 14, 14, 3, 1},
    {"r50 l3 1x1 256>1024", 256, 1024, 14, 14, 1, 1}, {"r50 l3 1x1 1024>256", 1024, 256, 14, 14, 1, 1},
    {"r50 l4 3x3", 512, 512, 7, 7, 3, 1},         {"r50 l4 1x1 512>2048", 512, 2048, 7, 7, 1, 1},
    {"r50 l4 1x1 2048>512", 2048, 512, 7, 7, 1, 1}, {"r50 l2.0 1x1 256>128", 256, 128, 56, 56, 1, 1},
    {"r50 l2 ds 1x1/2", 256, 512, 56, 56, 1, 2},   {"r50 l3 ds 1x1/2", 512, 1024, 28, 28, 1, 2},
    {"r50 l4 ds 1x1/2", 1024, 2048, 14, 14, 1, 2}, {"r50 l2.0 3x3/2", 128, 128, 56, 56, 3, 2},
    {"r50 l3.0 3x3/2", 256, 256, 28, 28, 3, 2},    {"r50 l4.0 3x3/2", 512, 512, 14, 14, 3, 2},
    {"mb stem 3x3/2", 3, 32, 224, 224, 3, 2},     {"mb 1x1 32>16 112", 32, 16, 112, 112, 1, 1},
    {"mb 1x1 16>96 112", 16, 96, 112, 112, 1, 1},
    {"mb 1x1 96>24 56", 96, 24, 56, 56, 1, 1},     {"mb 1x1 24>144 56", 24, 144, 56, 56, 1, 1},
    {"mb 1x1 144>24 56", 144, 24, 56, 56, 1, 1},   {"mb 1x1 32>192 28", 32, 192, 28, 28, 1, 1},
    {"mb 1x1 192>32 28", 192, 32, 28, 28, 1, 1},   {"mb 1x1 64>384 14", 64, 384, 14, 14, 1, 1},
    {"mb 1x1 384>64 14", 384, 64, 14, 14, 1, 1},   {"mb 1x1 160>960 7", 160, 960, 7, 7, 1, 1},
    {"mb 1x1 960>160 7", 960, 160, 7, 7, 1, 1},    {"mb 1x1 320>1280 7", 320, 1280, 7, 7, 1, 1},
};

static double once(const kctx_t *k, const conv_params_t *p, const float *X, const void *Wp,
                   const float *B, const conv_post_t *post, float *Y, void *ws, size_t wsb,
                   int reps)
{
    uint64_t t0 = base_now_ns();
    for (int r = 0; r < reps; r++)
        if (conv_f32_packed_w(k, p, X, Wp, B, post, Y, ws, wsb) != CAIRN_OK) {
            fprintf(stderr, "conv failed: %s\n", cairn_last_error());
            exit(1);
        }
    return (double)(base_now_ns() - t0) / reps / 1e6;
}

int main(int argc, char **argv)
{
    int threads = 1, only = -1;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--threads") && a + 1 < argc)
            threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--only") && a + 1 < argc)
            only = atoi(argv[++a]);
    }
    base_pool_t *pool = NULL;
    if (threads > 1 && base_pool_create(threads, &pool) != CAIRN_OK)
        return 1;
    kctx_t k = {pool, threads};
    printf("%-22s %9s %9s %9s %8s %8s %6s  %s\n", "conv", "ms", "no-wino", "im2col ms", "GF/s",
           "GF/s i", "ratio", "path");
    const int ns = (int)(sizeof shapes / sizeof shapes[0]);
    for (int i = 0; i < ns; i++) {
        if (only >= 0 && i != only)
            continue;
        const shape_t *s = &shapes[i];
        conv_params_t p = {1, s->C, s->M, 1, {1, s->H, s->W}, {1, 0, 0}, {1, s->k, s->k},
                           {1, s->s, s->s}, {1, 1, 1}, {0, s->k / 2, s->k / 2}};
        p.out[1] = (s->H + 2 * (s->k / 2) - s->k) / s->s + 1;
        p.out[2] = (s->W + 2 * (s->k / 2) - s->k) / s->s + 1;
        const int64_t K = s->C * s->k * s->k, osz = p.out[1] * p.out[2];
        float *X = base_aligned_alloc((size_t)(s->C * s->H * s->W) * 4, 64);
        float *W = base_aligned_alloc((size_t)(s->M * K) * 4, 64);
        float *B = base_aligned_alloc((size_t)s->M * 4, 64);
        float *Y = base_aligned_alloc((size_t)(s->M * osz) * 4, 64);
        for (int64_t j = 0; j < s->C * s->H * s->W; j++)
            X[j] = (float)(j % 17) * 0.1f - 0.8f;
        for (int64_t j = 0; j < s->M * K; j++)
            W[j] = (float)(j % 13) * 0.01f - 0.06f;
        for (int64_t j = 0; j < s->M; j++)
            B[j] = 0.1f;
        /* the weights packed for each setting (the path is chosen at
         * packing time): cairn's choice, the best without Winograd, and
         * the packed GEMM over im2col (or X for a 1x1) */
        const char *path = conv_f32_packed_path(&p);
        void *wp[3];
        size_t wsb = 0;
        for (int v = 0; v < 3; v++) {
            conv_f32_set_winograd(v == 0);
            conv_f32_set_direct(v < 2);
            size_t pws = conv_f32_packed_w_size(&p);
            wp[v] = base_aligned_alloc(pws, 64);
            conv_f32_pack_w(&p, W, wp[v], pws);
            size_t w = conv_f32_workspace(&p);
            wsb = w > wsb ? w : wsb;
        }
        conv_f32_set_winograd(1);
        conv_f32_set_direct(1);
        wsb = wsb > conv_f32_workspace(&p) ? wsb : conv_f32_workspace(&p);
        void *ws = base_aligned_alloc(wsb ? wsb : 64, 64);
        conv_post_t post = {GEMM_ACT_RELU, 0, 0, NULL, GEMM_ACT_NONE, 0, 0};
        double flops = 2.0 * (double)s->M * (double)osz * (double)K;
        int reps = (int)(2e8 / flops);
        reps = reps < 1 ? 1 : reps > 100 ? 100 : reps;
        double best[3] = {1e30, 1e30, 1e30};
        for (int t = 0; t < 9; t++)
            for (int v = 0; v < 3; v++) {
                /* the direct setting decides the A-layout paths at run time */
                conv_f32_set_direct(v < 2);
                double d = once(&k, &p, X, wp[v], B, &post, Y, ws, wsb, reps);
                best[v] = d < best[v] ? d : best[v];
            }
        conv_f32_set_direct(1);
        const double bd = best[0], bn = best[1], bi = best[2];
        printf("%-22s %9.3f %9.3f %9.3f %8.1f %8.1f %6.2f  %s\n", s->name, bd, bn, bi,
               flops / bd / 1e6, flops / bi / 1e6, bd / bi, path);
        base_aligned_free(X), base_aligned_free(W), base_aligned_free(B), base_aligned_free(Y);
        for (int v = 0; v < 3; v++)
            base_aligned_free(wp[v]);
        base_aligned_free(ws);
    }
    if (pool)
        base_pool_destroy(pool);
    return 0;
}
