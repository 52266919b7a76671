/*
 * Two AVX-512 f32 tile shapes on the same work, apart from the library:
 * cairn's 14 x 32 (28 zmm accumulators, 2 B vectors and 14 broadcasts of A
 * a k step) and oneDNN's 8 x 48 (24 accumulators, 3 B vectors and 8
 * broadcasts), each over 112 rows x 384 columns x KC: A read in place
 * (rows lda floats apart, as the library's in-place tiles read it), B in
 * packed micro-panels of KC x NR (from L2: 384 x KC floats), C stored.
 * The two alternate, 50 blocks each of 41 rounds; medians and bests.
 * The question it answers: is the 8 x 48 tile faster per FMA (measured
 * 2026-12-08 on Zen 5: 0-1 %; docs/performance.md, f32 GEMM). Not a
 * test: prints, asserts nothing.
 *
 * usage: bench_tile_shapes [KC [lda]]   (default: KC 512, lda 1536)
 */
#include "base/alloc.h"
#include "base/clock.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__x86_64__)
#include <immintrin.h>

enum { M = 112, N = 384, ROUNDS = 41, REPS = 50 };

__attribute__((target("avx512f"), noinline)) static void tile_14x32(int64_t kc, const float *A,
                                                                    int64_t lda, const float *B,
                                                                    float *C, int64_t ldc)
{
    __m512 c[14][2];
    for (int r = 0; r < 14; r++)
        c[r][0] = c[r][1] = _mm512_setzero_ps();
    /* four row pointers and the addressing modes' scales, as the library */
    const float *a0 = A, *a3 = A + 3 * lda, *a4 = A + 4 * lda, *a9 = A + 9 * lda;
    for (int64_t k = 0; k < kc; k++) {
        const __m512 b0 = _mm512_load_ps(B), b1 = _mm512_load_ps(B + 16);
        const float *ar[14] = {a0,           a0 + lda,     a0 + 2 * lda, a3,
                               a0 + 4 * lda, a3 + 2 * lda, a4 + 2 * lda, a3 + 4 * lda,
                               a0 + 8 * lda, a9,           a9 + lda,     a3 + 8 * lda,
                               a4 + 8 * lda, a9 + 4 * lda};
#pragma GCC unroll 16
        for (int r = 0; r < 14; r++) {
            const __m512 av = _mm512_set1_ps(*ar[r]);
            c[r][0] = _mm512_fmadd_ps(av, b0, c[r][0]);
            c[r][1] = _mm512_fmadd_ps(av, b1, c[r][1]);
        }
        B += 32;
        a0++, a3++, a4++, a9++;
    }
#pragma GCC unroll 16
    for (int r = 0; r < 14; r++) {
        _mm512_storeu_ps(C + r * ldc, c[r][0]);
        _mm512_storeu_ps(C + r * ldc + 16, c[r][1]);
    }
}

__attribute__((target("avx512f"), noinline)) static void tile_8x48(int64_t kc, const float *A,
                                                                   int64_t lda, const float *B,
                                                                   float *C, int64_t ldc)
{
    __m512 c[8][3];
    for (int r = 0; r < 8; r++)
        c[r][0] = c[r][1] = c[r][2] = _mm512_setzero_ps();
    const float *a0 = A, *a3 = A + 3 * lda, *a5 = A + 5 * lda;
    for (int64_t k = 0; k < kc; k++) {
        const __m512 b0 = _mm512_load_ps(B), b1 = _mm512_load_ps(B + 16),
                     b2 = _mm512_load_ps(B + 32);
        const float *ar[8] = {a0, a0 + lda, a0 + 2 * lda, a3, a0 + 4 * lda, a5, a3 + 2 * lda,
                              a3 + 4 * lda};
#pragma GCC unroll 8
        for (int r = 0; r < 8; r++) {
            const __m512 av = _mm512_set1_ps(*ar[r]);
            c[r][0] = _mm512_fmadd_ps(av, b0, c[r][0]);
            c[r][1] = _mm512_fmadd_ps(av, b1, c[r][1]);
            c[r][2] = _mm512_fmadd_ps(av, b2, c[r][2]);
        }
        B += 48;
        a0++, a3++, a5++;
    }
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) {
        _mm512_storeu_ps(C + r * ldc, c[r][0]);
        _mm512_storeu_ps(C + r * ldc + 16, c[r][1]);
        _mm512_storeu_ps(C + r * ldc + 32, c[r][2]);
    }
}

/* one block: every B panel, every A panel of it (the library's B-in-L1 order) */
static void block(int shape, int64_t kc, const float *A, int64_t lda, const float *B, float *C)
{
    if (shape == 0) {
        for (int64_t p = 0; p < N / 32; p++)
            for (int64_t i = 0; i < M / 14; i++)
                tile_14x32(kc, A + i * 14 * lda, lda, B + p * 32 * kc, C + i * 14 * N + p * 32, N);
    } else {
        for (int64_t p = 0; p < N / 48; p++)
            for (int64_t i = 0; i < M / 8; i++)
                tile_8x48(kc, A + i * 8 * lda, lda, B + p * 48 * kc, C + i * 8 * N + p * 48, N);
    }
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (!__builtin_cpu_supports("avx512f")) {
        printf("bench_tile_shapes: this CPU has no AVX-512F; nothing to measure\n");
        return 0;
    }
    const int64_t kc = argc > 1 ? atoll(argv[1]) : 512, lda = argc > 2 ? atoll(argv[2]) : 1536;
    if (argc > 3 || kc < 1 || kc > 8192 || lda < kc || lda > (1 << 20)) {
        fprintf(stderr, "usage: bench_tile_shapes [KC [lda]]  (1 <= KC <= 8192, KC <= lda)\n");
        return 2;
    }
    float *A = base_aligned_alloc((size_t)(M * lda) * sizeof(float), 64);
    float *B = base_aligned_alloc((size_t)(kc * N) * sizeof(float), 64);
    float *C = base_aligned_alloc((size_t)(M * N) * sizeof(float), 64);
    if (!A || !B || !C) {
        fprintf(stderr, "bench_tile_shapes: out of memory\n");
        return 1;
    }
    for (int64_t i = 0; i < M * lda; i++)
        A[i] = 1e-3f * (float)(i % 13);
    for (int64_t i = 0; i < kc * N; i++)
        B[i] = 1e-3f * (float)(i % 7);
    double t[2][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int s = 0; s < 2; s++) {
            const uint64_t t0 = base_now_ns();
            for (int i = 0; i < REPS; i++)
                block(s, kc, A, lda, B, C);
            t[s][r] = (double)(base_now_ns() - t0) * 1e-9 / REPS;
        }
    const double flop = 2.0 * (double)M * (double)N * (double)kc;
    printf("%d x %d x %lld, A in place (lda %lld), B packed from L2; GFLOP/s, median (best) of %d:\n",
           M, N, (long long)kc, (long long)lda, ROUNDS);
    const char *name[2] = {"14 x 32", "8 x 48"};
    for (int s = 0; s < 2; s++) {
        qsort(t[s], ROUNDS, sizeof(double), cmp_d);
        printf("  %-8s %7.1f (%.1f)\n", name[s], flop / t[s][ROUNDS / 2] * 1e-9,
               flop / t[s][0] * 1e-9);
    }
    base_aligned_free(A), base_aligned_free(B), base_aligned_free(C);
    return 0;
}
#else
int main(void)
{
    printf("bench_tile_shapes: x86-64 only\n");
    return 0;
}
#endif
