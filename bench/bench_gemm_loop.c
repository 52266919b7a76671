/*
 * What the AVX-512 14 x 32 GEMM loop can do on its own, apart from the
 * library's packing, epilogues and blocking: a stripped copy of the k loop
 * (28 zmm accumulators, 2 B vectors and 14 broadcasts per step, C += the
 * tile at the end) timed
 *   1. on one A and one B micro-panel that stay in L1, for KC 64 to 512;
 *   2. over a whole M x N x K product whose A and B were packed ahead
 *      (K blocks of KC, B micro-panels outer and A panels inner, as the
 *      library's B-in-L1 order, but no M blocking: keep M x KC within
 *      L2), with B's packed copy rotated through
 *      `copies` buffers (copies x K x N floats: past L2, B comes from L3 as
 *      a model's weights do) and the next B micro-panel prefetched `dist`
 *      panels ahead into L2 a slice per tile (0: none).
 * The gap between these and `cairn bench gemm` is what lies outside the k
 * loop (docs/performance.md, f32 GEMM). Not a test: prints, asserts nothing.
 *
 * usage: bench_gemm_loop [M N K KC copies dist]   (default: the L1 sweep,
 *        then 140 1152 384 192 16 2 with dist 0, 1 and 2)
 */
#include "base/alloc.h"
#include "base/clock.h"
#include "base/cpu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

#define MR 14
#define NR 32

__attribute__((target("avx512f"), noinline)) static void tile(int64_t kc, const float *A,
                                                              const float *B, float *C,
                                                              int64_t ldc, const char *pf,
                                                              int64_t npf)
{
    __m512 c[MR][2];
    for (int r = 0; r < MR; r++)
        c[r][0] = c[r][1] = _mm512_setzero_ps();
    int64_t credit = 0;
    for (int64_t k = 0; k < kc; k++) {
        if (npf > 0) { /* npf lines over the kc steps, as the library's spread_prefetch */
            credit += npf;
            while (credit >= kc) {
                _mm_prefetch(pf, _MM_HINT_T1);
                pf += 64;
                credit -= kc;
            }
        }
        const __m512 b0 = _mm512_load_ps(B), b1 = _mm512_load_ps(B + 16);
#pragma GCC unroll 14
        for (int r = 0; r < MR; r++) {
            const __m512 a = _mm512_set1_ps(A[r]);
            c[r][0] = _mm512_fmadd_ps(a, b0, c[r][0]);
            c[r][1] = _mm512_fmadd_ps(a, b1, c[r][1]);
        }
        A += MR;
        B += NR;
    }
    for (int r = 0; r < MR; r++) {
        _mm512_storeu_ps(C + r * ldc, _mm512_add_ps(c[r][0], _mm512_loadu_ps(C + r * ldc)));
        _mm512_storeu_ps(C + r * ldc + 16,
                         _mm512_add_ps(c[r][1], _mm512_loadu_ps(C + r * ldc + 16)));
    }
}

static double best_of(int trials, double flops, void (*fn)(void *), void *ctx)
{
    double best = 0;
    for (int t = 0; t < trials; t++) {
        uint64_t t0 = base_now_ns();
        fn(ctx);
        double g = flops / (double)(base_now_ns() - t0);
        best = g > best ? g : best;
    }
    return best;
}

typedef struct l1case {
    int64_t kc, reps;
    const float *A, *B;
    float *C;
} l1case_t;

static void run_l1(void *p)
{
    const l1case_t *c = p;
    for (int64_t i = 0; i < c->reps; i++)
        tile(c->kc, c->A, c->B, c->C, NR, NULL, 0);
}

typedef struct prodcase {
    int64_t M, N, K, KC, copies, dist, iters;
    const float *Ap, *Bp;
    float *C;
} prodcase_t;

static void run_product(void *p)
{
    const prodcase_t *c = p;
    const int64_t mp = c->M / MR, np = c->N / NR;
    for (int64_t it = 0; it < c->iters; it++) {
        const float *Bp = c->Bp + (it % c->copies) * c->K * c->N;
        for (int64_t pc = 0; pc < c->K; pc += c->KC) {
            const int64_t kc = c->KC < c->K - pc ? c->KC : c->K - pc;
            const float *bp = Bp + pc * c->N, *ap = c->Ap + pc * c->M;
            const size_t panel = (size_t)kc * NR * sizeof(float);
            const size_t slice = (panel / (size_t)mp + 63) / 64 * 64;
            for (int64_t j = 0; j < np; j++) {
                const char *next = c->dist && j + c->dist < np
                                       ? (const char *)(bp + (j + c->dist) * kc * NR)
                                       : NULL;
                for (int64_t q = 0; q < mp; q++) {
                    size_t s0 = (size_t)q * slice, s1 = s0 + slice < panel ? s0 + slice : panel;
                    tile(kc, ap + q * MR * kc, bp + j * kc * NR, c->C + q * MR * c->N + j * NR,
                         c->N, next ? next + s0 : NULL,
                         next && s0 < s1 ? (int64_t)((s1 - s0 + 63) / 64) : 0);
                }
            }
        }
    }
}

static void product(int64_t M, int64_t N, int64_t K, int64_t KC, int64_t copies, int64_t dist)
{
    M = (M + MR - 1) / MR * MR;
    N = (N + NR - 1) / NR * NR;
    float *Ap = base_aligned_alloc((size_t)(M * K) * sizeof(float), 64);
    float *Bp = base_aligned_alloc((size_t)(copies * K * N) * sizeof(float), 64);
    float *C = base_aligned_alloc((size_t)(M * N) * sizeof(float), 64);
    if (!Ap || !Bp || !C) {
        fprintf(stderr, "bench_gemm_loop: out of memory\n");
        exit(1);
    }
    for (int64_t i = 0; i < M * K; i++)
        Ap[i] = 1e-3f * (float)(i % 7);
    for (int64_t i = 0; i < copies * K * N; i++)
        Bp[i] = 1e-3f * (float)(i % 5);
    memset(C, 0, (size_t)(M * N) * sizeof(float));
    prodcase_t c = {M, N, K, KC, copies, dist, copies > 10 ? copies : 10, Ap, Bp, C};
    double g = best_of(9, 2.0 * (double)(M * N * K) * (double)c.iters, run_product, &c);
    printf("%5lld x %5lld x %5lld  KC %4lld  B copies %3lld (%.1f MB)  prefetch %lld ahead: "
           "%6.1f GFLOP/s\n",
           (long long)M, (long long)N, (long long)K, (long long)KC, (long long)copies,
           (double)(copies * K * N) * 4e-6, (long long)dist, g);
    base_aligned_free(Ap), base_aligned_free(Bp), base_aligned_free(C);
}

int main(int argc, char **argv)
{
    if (!__builtin_cpu_supports("avx512f")) {
        printf("bench_gemm_loop: this CPU has no AVX-512F; nothing to measure\n");
        return 0;
    }
    if (argc == 7) {
        product(atoll(argv[1]), atoll(argv[2]), atoll(argv[3]), atoll(argv[4]), atoll(argv[5]),
                atoll(argv[6]));
        return 0;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: bench_gemm_loop [M N K KC copies dist]\n");
        return 2;
    }
    float *A = base_aligned_alloc(MR * 512 * sizeof(float), 64);
    float *B = base_aligned_alloc(NR * 512 * sizeof(float), 64);
    float *C = base_aligned_alloc(MR * NR * sizeof(float), 64);
    for (int i = 0; i < MR * 512; i++)
        A[i] = 1e-3f * (float)(i % 7);
    for (int i = 0; i < NR * 512; i++)
        B[i] = 1e-3f * (float)(i % 5);
    memset(C, 0, MR * NR * sizeof(float));
    for (int64_t kc = 64; kc <= 512; kc *= 2) {
        l1case_t c = {kc, 4000000 / kc, A, B, C};
        double g = best_of(7, 2.0 * MR * NR * (double)kc * (double)c.reps, run_l1, &c);
        printf("one tile in L1, KC %4lld: %6.1f GFLOP/s\n", (long long)kc, g);
    }
    base_aligned_free(A), base_aligned_free(B), base_aligned_free(C);
    product(140, 384, 1536, 192, 1, 0);
    for (int d = 0; d <= 2; d++)
        product(140, 1152, 384, 192, 16, d);
    return 0;
}
#else
int main(void)
{
    printf("bench_gemm_loop: not an x86-64 build; nothing to measure\n");
    return 0;
}
#endif
