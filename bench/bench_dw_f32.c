/*
 * Quick f32 depthwise convolution timing on MobileNetV2's depthwise layers
 * (224x224 input, batch 1, 3x3, ReLU6 epilogue): best-of-9 microseconds
 * of conv_f32's depthwise path, the bytes it must move (input + output
 * planes) and the rate that makes, next to a memcpy of the same bytes
 * (cache-resident at these sizes, as in the model, where the input was
 * just written by the previous layer). Usage: bench_dw_f32 [--threads T]
 * [--only I]. Not a test: prints numbers, asserts nothing.
 */
#include "base/alloc.h"
#include "base/clock.h"
#include "base/threadpool.h"
#include "kernels/conv/conv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape {
    int64_t C, H, s;
} shape_t;

static const shape_t shapes[] = {
    {32, 112, 1}, {96, 112, 2}, {144, 56, 1}, {144, 56, 2}, {192, 28, 1},
    {192, 28, 2}, {384, 14, 1}, {576, 14, 1}, {576, 14, 2}, {960, 7, 1},
};

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
    printf("%-18s %9s %9s %8s %9s\n", "depthwise 3x3", "us", "memcpy us", "GB/s", "GFLOP/s");
    const int ns = (int)(sizeof shapes / sizeof shapes[0]);
    for (int i = 0; i < ns; i++) {
        if (only >= 0 && i != only)
            continue;
        const shape_t *s = &shapes[i];
        conv_params_t p = {1, s->C, s->C, s->C, {1, s->H, s->H}, {1, 0, 0}, {1, 3, 3},
                           {1, s->s, s->s}, {1, 1, 1}, {0, 1, 1}};
        p.out[1] = p.out[2] = (s->H + 2 - 3) / s->s + 1;
        const int64_t isz = s->C * s->H * s->H, osz = s->C * p.out[1] * p.out[2];
        float *X = base_aligned_alloc((size_t)isz * 4, 64);
        float *W = base_aligned_alloc((size_t)s->C * 9 * 4, 64);
        float *B = base_aligned_alloc((size_t)s->C * 4, 64);
        float *Y = base_aligned_alloc((size_t)osz * 4, 64);
        for (int64_t j = 0; j < isz; j++)
            X[j] = (float)(j % 17) * 0.1f - 0.8f;
        for (int64_t j = 0; j < s->C * 9; j++)
            W[j] = (float)(j % 13) * 0.01f - 0.06f;
        for (int64_t j = 0; j < s->C; j++)
            B[j] = 0.1f;
        conv_post_t post = {GEMM_ACT_CLIP, 0, 6, NULL, GEMM_ACT_NONE, 0, 0};
        const double bytes = (double)(isz + osz) * 4, flops = 2.0 * 9 * (double)osz;
        const int reps = 50;
        double best = 1e30, bestc = 1e30;
        for (int t = 0; t < 9; t++) {
            uint64_t t0 = base_now_ns();
            for (int r = 0; r < reps; r++)
                if (conv_f32(&k, &p, X, W, B, &post, Y, NULL, 0) != CAIRN_OK) {
                    fprintf(stderr, "conv failed: %s\n", cairn_last_error());
                    return 1;
                }
            double d = (double)(base_now_ns() - t0) / reps / 1e3;
            best = d < best ? d : best;
            t0 = base_now_ns();
            for (int r = 0; r < reps; r++) {
                memcpy(Y, X, (size_t)(osz < isz ? osz : isz) * 4);
                __asm__ volatile("" ::"r"(Y) : "memory");
            }
            /* memcpy moves min(in, out) twice; scale to in + out */
            d = (double)(base_now_ns() - t0) / reps / 1e3 * bytes /
                (2.0 * (double)(osz < isz ? osz : isz) * 4);
            bestc = d < bestc ? d : bestc;
        }
        char name[32];
        snprintf(name, sizeof name, "%lldch %lld s%lld", (long long)s->C, (long long)s->H,
                 (long long)s->s);
        printf("%-18s %9.1f %9.1f %8.1f %9.1f\n", name, best, bestc, bytes / best / 1e3,
               flops / best / 1e3);
        base_aligned_free(X), base_aligned_free(W), base_aligned_free(B), base_aligned_free(Y);
    }
    if (pool)
        base_pool_destroy(pool);
    return 0;
}
