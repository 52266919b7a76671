/*
 * Two (or more) builds of the library timed against each other in one
 * process: each libcairn.so is loaded with dlopen (RTLD_LOCAL, so each
 * keeps its own symbols, workspace and thread pool) and their gemm_f32 run
 * in alternating blocks of calls, the order rotated every round. The host
 * of the development VM moves every figure by 10-30 % within minutes;
 * blocks a few milliseconds apart see the same phase, so the per-round
 * ratio of medians is steady where two runs of `cairn bench gemm` minutes
 * apart are not. The quartiles of that ratio say whether a difference is
 * more than the noise (two copies of one build differ by up to ~1 %: code
 * placement). With THREADS > 1 each build has its own pool, and each block
 * starts 2 ms after the last so that the other pools' workers are asleep.
 *
 *   build/bench/bench_ab_gemm [--cold] [--s8] M N K THREADS ROUNDS base.so other.so [more.so ...]
 *
 * --s8 times gemm_u8s8s32 (A u8, B s8, C s32) instead of gemm_f32.
 *
 * --cold reads and writes a byte of every line of a buffer of twice the
 * last-level cache before each timed call (not timed), so that A, B and C
 * come from memory, as `cairn bench gemm --cold` does.
 *
 * The builds' results must be equal (A and B hold small integers, so
 * every order of the sums is exact): a build that is fast and wrong is
 * reported and the run fails. Prints each build's median GFLOP/s over all
 * its calls and, for each
 * build after the first, the median and quartiles over rounds of
 * (base's median time / its median time): above 1 it is faster. A second
 * build comes from a worktree, e.g.
 *
 *   git worktree add /tmp/old HEAD~1 && cmake -S /tmp/old -B /tmp/old/build \
 *     && make -C /tmp/old/build cairn_shared
 *   build/bench/bench_ab_gemm 256 256 256 1 40 /tmp/old/build/libcairn.so build/libcairn.so
 *
 * Copy a .so aside before rebuilding over it: dlopen of the same path twice
 * returns the same library.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "base/clock.h"
#include "base/cpu.h"
#include "kernels/gemm/gemm.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PER_BLOCK = 20, WARM = 3, MAX_LIBS = 6 };

typedef void (*gemm_fn)(const kctx_t *, int, int, int64_t, int64_t, int64_t, float, const float *,
                        int64_t, const float *, int64_t, float, float *, int64_t);
typedef void (*s8_fn)(const kctx_t *, int, int, int64_t, int64_t, int64_t, const uint8_t *,
                      int64_t, const int8_t *, int64_t, int32_t *, int64_t, int);
typedef cairn_status_t (*pool_create_fn)(int, base_pool_t **);

/* one call of a build: its gemm_f32 (f), or with --s8 its gemm_u8s8s32 (g)
 * on the same buffers, read as bytes and written as int32 */
static int s8_mode;
static void call(gemm_fn f, s8_fn g, const kctx_t *ctx, int64_t M, int64_t N, int64_t K,
                 const float *A, const float *B, float *C)
{
    if (s8_mode)
        g(ctx, 0, 0, M, N, K, (const uint8_t *)A, K, (const int8_t *)B, N, (int32_t *)C, N, 0);
    else
        f(ctx, 0, 0, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
}

static double now_s(void) { return (double)base_now_ns() * 1e-9; }

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int cold = 0, s8 = 0;
    while (argc > 1 && (strcmp(argv[1], "--cold") == 0 || strcmp(argv[1], "--s8") == 0)) {
        if (strcmp(argv[1], "--cold") == 0)
            cold = 1;
        else
            s8 = 1;
        argv[1] = argv[0];
        argv++, argc--;
    }
    if (argc < 8 || argc - 6 > MAX_LIBS) {
        fprintf(stderr,
                "usage: %s [--cold] [--s8] M N K THREADS ROUNDS base.so other.so [more.so ...] (at "
                "most %d)\n",
                argv[0], MAX_LIBS);
        return 2;
    }
    const int64_t M = atoll(argv[1]), N = atoll(argv[2]), K = atoll(argv[3]);
    const int threads = atoi(argv[4]), rounds = atoi(argv[5]), nl = argc - 6;
    if (M < 1 || N < 1 || K < 1 || threads < 1 || rounds < 1 || M * K > (1 << 28) ||
        K * N > (1 << 28) || M * N > (1 << 28)) {
        fprintf(stderr, "%s: M, N, K, THREADS and ROUNDS must be positive, each matrix at most "
                        "2^28 elements\n",
                argv[0]);
        return 2;
    }
    gemm_fn gemm[MAX_LIBS];
    s8_fn gemm_s8[MAX_LIBS];
    kctx_t ctx[MAX_LIBS];
    for (int l = 0; l < nl; l++) {
        void *h = dlopen(argv[6 + l], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "%s: %s\n", argv[0], dlerror());
            return 1;
        }
        gemm[l] = (gemm_fn)dlsym(h, "gemm_f32");
        gemm_s8[l] = (s8_fn)dlsym(h, "gemm_u8s8s32");
        if (s8 && !gemm_s8[l]) {
            fprintf(stderr, "%s: %s has no gemm_u8s8s32\n", argv[0], argv[6 + l]);
            return 1;
        }
        pool_create_fn pool_create = (pool_create_fn)dlsym(h, "base_pool_create");
        if (!gemm[l] || !pool_create) {
            fprintf(stderr, "%s: %s has no gemm_f32 or base_pool_create\n", argv[0], argv[6 + l]);
            return 1;
        }
        for (int p = 0; p < l; p++)
            if (gemm[p] == gemm[l]) {
                fprintf(stderr, "%s: %s is the library already loaded as %s (copy it aside)\n",
                        argv[0], argv[6 + l], argv[6 + p]);
                return 1;
            }
        ctx[l].pool = NULL;
        ctx[l].threads = threads;
        if (threads > 1 && pool_create(threads, &ctx[l].pool) != CAIRN_OK) {
            fprintf(stderr, "%s: no thread pool from %s\n", argv[0], argv[6 + l]);
            return 1;
        }
    }
    float *A = malloc((size_t)(M * K) * sizeof(float)), *B = malloc((size_t)(K * N) * sizeof(float));
    float *C = malloc((size_t)(M * N) * sizeof(float));
    double *t[MAX_LIBS], *ratio = malloc((size_t)rounds * (size_t)nl * sizeof(double));
    int fail = !A || !B || !C || !ratio;
    for (int l = 0; l < nl; l++)
        fail |= !(t[l] = malloc((size_t)rounds * PER_BLOCK * sizeof(double)));
    if (fail) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    /* --cold: twice the last-level cache (32 MiB where the CPU does not say),
     * as cairn bench gemm --cold */
    size_t flush_n = 0;
    char *flush = NULL;
    if (cold) {
        flush_n = 2 * (base_cpu()->l3 ? base_cpu()->l3 : (size_t)32 << 20);
        if (!(flush = malloc(flush_n))) {
            fprintf(stderr, "%s: out of memory\n", argv[0]);
            return 1;
        }
        memset(flush, 0, flush_n);
    }
    s8_mode = s8;
    if (s8) {
        for (int64_t i = 0; i < M * K; i++)
            ((uint8_t *)A)[i] = (uint8_t)(i % 7 * 30);
        for (int64_t i = 0; i < K * N; i++)
            ((int8_t *)B)[i] = (int8_t)(i % 5 * 50 - 100);
    } else {
        for (int64_t i = 0; i < M * K; i++)
            A[i] = (float)(i % 7) - 3.0f;
        for (int64_t i = 0; i < K * N; i++)
            B[i] = (float)(i % 5) - 2.0f;
    }

    for (int r = 0; r < rounds; r++) {
        double med[MAX_LIBS], blk[PER_BLOCK];
        for (int o = 0; o < nl; o++) {
            const int l = (o + r) % nl;
            /* the last block's pool workers spin for a while after their
             * job (threadpool.c, SPIN_NS): let them go to sleep first, or
             * they take a CPU from this block's threads */
            if (threads > 1)
                nanosleep(&(struct timespec){0, 2000000}, NULL);
            for (int w = 0; w < WARM; w++)
                call(gemm[l], gemm_s8[l], &ctx[l], M, N, K, A, B, C);
            for (int i = 0; i < PER_BLOCK; i++) {
                if (cold) /* a read and a write a line, as cairn bench gemm's
                           * evict_caches: a memset this large goes out by
                           * streaming stores, which leave the caches as
                           * they were (the first --cold measured warm) */
                    for (size_t b = 0; b < flush_n; b += 64)
                        ((volatile char *)flush)[b] = (char)(((volatile char *)flush)[b] + 1);
                double t0 = now_s();
                call(gemm[l], gemm_s8[l], &ctx[l], M, N, K, A, B, C);
                blk[i] = t[l][r * PER_BLOCK + i] = now_s() - t0;
            }
            med[l] = median(blk, PER_BLOCK);
        }
        for (int l = 1; l < nl; l++)
            ratio[(l - 1) * rounds + r] = med[0] / med[l];
    }
    /* the builds must agree: each one's C against the first's (the same
     * small integers in A and B, so any order of the sums is exact) */
    float *C0 = malloc((size_t)(M * N) * sizeof(float));
    if (!C0) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    call(gemm[0], gemm_s8[0], &ctx[0], M, N, K, A, B, C0);
    for (int l = 1; l < nl; l++) {
        call(gemm[l], gemm_s8[l], &ctx[l], M, N, K, A, B, C);
        if (memcmp(C, C0, (size_t)(M * N) * sizeof(float)) != 0) {
            fprintf(stderr, "%s: %s and %s give different results\n", argv[0], argv[6 + l],
                    argv[6]);
            return 1;
        }
    }
    const double flop = 2.0 * (double)M * (double)N * (double)K;
    printf("%lld x %lld x %lld%s, %d thread%s, %d rounds of %d calls each%s\n", (long long)M,
           (long long)N, (long long)K, s8 ? " u8 x s8" : "", threads, threads > 1 ? "s" : "",
           rounds, PER_BLOCK, cold ? ", operands from memory (--cold)" : "");
    for (int l = 0; l < nl; l++)
        printf("  %-40s %8.1f %s (median)\n", argv[6 + l], 
               flop / median(t[l], rounds * PER_BLOCK) * 1e-9, s8 ? "GOP/s" : "GFLOP/s");
    for (int l = 1; l < nl; l++) {
        double *v = ratio + (l - 1) * rounds;
        qsort(v, (size_t)rounds, sizeof *v, cmp_d);
        printf("  speed of %s / %s: median %.4f, quartiles %.4f-%.4f\n", argv[6 + l], argv[6],
               v[rounds / 2], v[rounds / 4], v[(3 * rounds) / 4]);
    }
    return 0;
}
