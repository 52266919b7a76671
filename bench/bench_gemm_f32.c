/*
 * Quick f32 GEMM timing: median GFLOP/s of gemm_f32 (and, with --ref, of
 * gemm_ref_f32) on the shapes at 1 and 2 threads.
 * Usage: bench_gemm_f32 [--ref] [--threads T] [M N K [transA transB]]
 * Not a test: prints numbers, asserts nothing.
 */
#include "base/alloc.h"
#include "base/clock.h"
#include "base/threadpool.h"
#include "kernels/gemm/gemm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double run(int ref, const kctx_t *k, int ta, int tb, int64_t M, int64_t N, int64_t K,
                  const float *A, const float *B, float *C)
{
    double flops = 2.0 * (double)M * (double)N * (double)K;
    int reps = (int)(2e9 / flops);
    if (ref)
        reps = reps / 20;
    reps = reps < 1 ? 1 : reps > 200 ? 200 : reps;
    int trials = ref ? 3 : 7;
    double t[16];
    int64_t lda = ta ? M : K, ldb = tb ? K : N;
    for (int tr = 0; tr < trials; tr++) {
        uint64_t t0 = base_now_ns();
        for (int r = 0; r < reps; r++) {
            if (ref)
                gemm_ref_f32(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, N);
            else
                gemm_f32(k, ta, tb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, N);
        }
        t[tr] = (double)(base_now_ns() - t0) / reps;
    }
    qsort(t, (size_t)trials, sizeof t[0], cmp_d);
    return flops / t[trials / 2];
}

int main(int argc, char **argv)
{
    static const int64_t shapes[][3] = {{256, 256, 256},    {512, 512, 512},    {1024, 1024, 1024},
                                        {2048, 2048, 2048}, {128, 1536, 384},   {128, 384, 1536},
                                        {1, 4096, 4096},    {8, 4096, 4096},    {512, 768, 3072}};
    int ref = 0, only_threads = 0, ta = 0, tb = 0;
    int64_t one[3] = {0, 0, 0};
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "--ref"))
            ref = 1;
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc)
            only_threads = atoi(argv[++a]);
    }
    if (argc - a >= 3) {
        for (int i = 0; i < 3; i++)
            one[i] = atoll(argv[a + i]);
        if (argc - a >= 5) {
            ta = atoi(argv[a + 3]);
            tb = atoi(argv[a + 4]);
        }
    }
    printf("variant %s\n", gemm_f32_variant_name());
    int ns = one[0] ? 1 : (int)(sizeof shapes / sizeof shapes[0]);
    for (int s = 0; s < ns; s++) {
        int64_t M = one[0] ? one[0] : shapes[s][0], N = one[0] ? one[1] : shapes[s][1],
                K = one[0] ? one[2] : shapes[s][2];
        float *A = base_aligned_alloc((size_t)(M * K) * 4, 64);
        float *B = base_aligned_alloc((size_t)(K * N) * 4, 64);
        float *C = base_aligned_alloc((size_t)(M * N) * 4, 64);
        for (int64_t i = 0; i < M * K; i++)
            A[i] = (float)((i * 7) % 13) * 0.1f - 0.6f;
        for (int64_t i = 0; i < K * N; i++)
            B[i] = (float)((i * 5) % 11) * 0.1f - 0.5f;
        printf("%5lld x %5lld x %5lld%s:", (long long)M, (long long)N, (long long)K,
               ta || tb ? " (trans)" : "");
        for (int th = 1; th <= 2; th++) {
            if (only_threads && th != only_threads)
                continue;
            base_pool_t *pool = NULL;
            if (th > 1 && base_pool_create(th, &pool) != CAIRN_OK)
                return 1;
            kctx_t k = {pool, th};
            printf("  %dT %7.1f GFLOP/s", th, run(0, &k, ta, tb, M, N, K, A, B, C));
            base_pool_destroy(pool);
        }
        if (ref)
            printf("  ref %6.1f", run(1, NULL, ta, tb, M, N, K, A, B, C));
        printf("\n");
        fflush(stdout);
        base_aligned_free(A);
        base_aligned_free(B);
        base_aligned_free(C);
    }
    return 0;
}
