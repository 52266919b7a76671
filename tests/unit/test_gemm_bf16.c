/*
 * bf16: the f32 <-> bf16 array conversions bit for bit against
 * base_f32_to_bf16 / base_bf16_to_f32 (every path the CPU has: scalar,
 * AVX-512 integer, vcvtne2ps2bf16), and the bf16 GEMM (f32 C) against
 * products of the bf16 values summed here in double: every variant at every
 * ISA level allowed, sizes around its tile, odd K, KC +- 1, 127, every
 * transpose, leading dimensions with sentinels, beta = 0 on a NaN C, alpha
 * and beta, an epilogue, 1 and 2 threads, and the public entry points.
 *
 * Tolerance: 4 * (K + 2) * 2^-24 * (|alpha| sum|a b| + |beta c|): the
 * inputs are exact, only the f32 accumulation rounds.
 */
#include "base/alloc.h"
#include "base/dtype.h"
#include "base/threadpool.h"
#include "gemm_lowp_cases.h"

#include <math.h>
#include <stdlib.h>

#define C_SENTINEL 7777.0f

static check_rng_t rng = {0x13198a2e03707344ull};
static base_pool_t *pool2;

static int64_t rnd(int64_t lo, int64_t hi) { return lo + (int64_t)(check_rng_next(&rng) % (uint64_t)(hi - lo + 1)); }

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void conversions(void)
{
    enum { N = 1 << 20 };
    float *f = malloc(N * sizeof(float)), *back = malloc(N * sizeof(float));
    uint16_t *h = malloc(N * sizeof(uint16_t));
    uint32_t edge[] = {0, 0x80000000u, 1, 0x807fffffu, 0x007fffffu, 0x00008000u, 0x00018000u,
                       0x00800000u, 0x3f800000u, 0x3f808000u, 0x3f818000u, 0x3f80ffffu,
                       0x3f7fffffu, 0x7f7fffffu, 0xff7fffffu, 0x7f7f8000u, 0x7f800000u,
                       0xff800000u, 0x7f800001u, 0x7fc00000u, 0xffffffffu, 0x7fbfffffu,
                       0xff800001u, 0x7fff8000u, 0x4b7fffffu, 0xc0490fdbu};
    size_t ne = sizeof edge / sizeof edge[0];
    for (size_t i = 0; i < N; i++) {
        uint32_t u = i < ne ? edge[i]
                     : i < N / 2 ? (uint32_t)check_rng_next(&rng)
                                 : (uint32_t)(i - N / 2) * 8191u + 0x10000u * (uint32_t)(i & 7);
        f[i] = from_bits(u);
    }
    for (cairn_isa_t cap = base_isa_select(CAIRN_ISA_AUTO); cap >= CAIRN_ISA_REF; cap--) {
        /* odd lengths exercise the masked tails */
        size_t lens[] = {N, 1, 17, 31};
        for (size_t li = 0; li < 4; li++) {
            memset(h, 0xAB, N * sizeof(uint16_t));
            gemm_cvt_f32_to_bf16_isa(cap, f, h, lens[li]);
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < lens[li]; i++)
                if (h[i] != base_f32_to_bf16(f[i]) && !bad++)
                    first = i;
            if (lens[li] < N)
                bad += h[lens[li]] != 0xABAB;
            uint32_t fu;
            memcpy(&fu, &f[first], 4);
            CHECK_MSG(bad == 0, "cap %s, n=%zu: %zu wrong conversions, first 0x%08x -> 0x%04x",
                      cairn_isa_name(cap), lens[li], bad, fu, h[first]);
        }
        uint16_t all[65536];
        for (uint32_t i = 0; i < 65536; i++)
            all[i] = (uint16_t)i;
        gemm_cvt_bf16_to_f32_isa(cap, all, back, 65536);
        int ok = 1;
        for (uint32_t i = 0; i < 65536; i++) {
            float want = base_bf16_to_f32((uint16_t)i);
            ok &= !memcmp(&back[i], &want, 4);
        }
        CHECK_MSG(ok, "cap %s: bf16 -> f32 not bit exact", cairn_isa_name(cap));
    }
    /* round trip of the public forms */
    gemm_cvt_f32_to_bf16(f, h, N);
    gemm_cvt_bf16_to_f32(h, back, N);
    int ok = 1;
    for (size_t i = 0; i < N; i++) {
        float want = base_bf16_to_f32(base_f32_to_bf16(f[i]));
        ok &= !memcmp(&back[i], &want, 4);
    }
    CHECK_MSG(ok, "public f32 -> bf16 -> f32 differs from base_*");
    free(f), free(back), free(h);
}

static int run_case(const gemm_kern_t *kn, int via_public, int threads, int ta, int tb,
                    int64_t M, int64_t N, int64_t K, float alpha, float beta, int with_epi)
{
    int64_t pad = rnd(0, 3);
    int64_t ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
    int64_t lda = ac + pad, ldb = bc + pad, ldc = N + pad;
    uint16_t *A = malloc((size_t)(ar * lda + 1) * 2), *B = malloc((size_t)(br * ldb + 1) * 2);
    float *C = malloc((size_t)(M * ldc) * sizeof(float)), *C0 = malloc((size_t)(M * ldc) * 4);
    float *bias = malloc((size_t)N * sizeof(float));
    for (int64_t i = 0; i < ar * lda; i++)
        A[i] = (i % lda) < ac ? base_f32_to_bf16((float)check_rng_uniform(&rng, -1, 1)) : 0x7f80;
    for (int64_t i = 0; i < br * ldb; i++)
        B[i] = (i % ldb) < bc ? base_f32_to_bf16((float)check_rng_uniform(&rng, -1, 1)) : 0x7f80;
    for (int64_t i = 0; i < M * ldc; i++)
        C[i] = C0[i] = (i % ldc) >= N  ? C_SENTINEL
                       : beta == 0.0f ? NAN
                                      : (float)check_rng_uniform(&rng, -1, 1);
    for (int64_t j = 0; j < N; j++)
        bias[j] = (float)check_rng_uniform(&rng, -1, 1);
    /* with_epi 1: bias + relu; 2: then a clip after the (absent) residual */
    gemm_epilogue_t epi = {GEMM_BIAS_COL, bias, GEMM_ACT_RELU, 0, 0, 1.0f, NULL, 0,
                           with_epi == 2 ? GEMM_ACT_CLIP : GEMM_ACT_NONE, 0.1f, 0.5f};
    kctx_t k = {0};
    k.pool = threads > 1 ? pool2 : NULL;
    k.threads = threads;
    if (via_public == 1 && !with_epi)
        gemm_bf16(&k, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    else if (via_public)
        gemm_bf16_ex(&k, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                     with_epi ? &epi : NULL);
    else
        gemm_kern_run(kn, &k, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                      with_epi ? &epi : NULL);
    int ok = 1;
    for (int64_t i = 0; i < M && ok; i++)
        for (int64_t j = 0; j < ldc && ok; j++) {
            double want, tol = 0;
            if (j >= N) {
                want = C_SENTINEL;
            } else {
                double s = 0, sa = 0;
                for (int64_t p = 0; p < K; p++) {
                    double x = base_bf16_to_f32(ta ? A[p * lda + i] : A[i * lda + p]);
                    double y = base_bf16_to_f32(tb ? B[j * ldb + p] : B[p * ldb + j]);
                    s += x * y;
                    sa += fabs(x * y);
                }
                double c0 = beta == 0.0f ? 0 : C0[i * ldc + j];
                want = alpha * s + beta * c0;
                tol = 4.0 * (double)(K + 2) * 0x1p-24 * (fabs(alpha) * sa + fabs(beta * c0)) + 1e-30;
                if (with_epi) {
                    want += bias[j];
                    want = want > 0 ? want : 0;
                    if (with_epi == 2)
                        want = want < 0.1 ? 0.1 : want > 0.5 ? 0.5 : want;
                    tol += 1e-6;
                }
            }
            double got = C[i * ldc + j];
            if (!(fabs(got - want) <= tol)) {
                CHECK_MSG(0,
                          "%s: M=%lld N=%lld K=%lld ta=%d tb=%d alpha=%g beta=%g epi=%d "
                          "threads=%d: C[%lld][%lld] = %.9g, want %.9g (tol %.3g)",
                          kn->name, (long long)M, (long long)N, (long long)K, ta, tb, alpha, beta,
                          with_epi, threads, (long long)i, (long long)j, got, want, tol);
                ok = 0;
            }
        }
    free(A), free(B), free(C), free(C0), free(bias);
    return ok;
}

static void sweep(const gemm_kern_t *kn)
{
    gemm_blocking_t bl;
    gemm_kern_blocking(kn, &bl); /* the driver's */
    int64_t sz[16];
    int ns = lowp_sizes(kn, bl.kc, sz);
    int fails = 0;
    const float ab[][2] = {{1, 0}, {1, 1}, {0.5f, -2}, {-1.5f, 0}};
    for (int t = 0; t < 4; t++) {
        int ta = t & 1, tb = t >> 1;
        for (int i = 0; i < ns && fails < 3; i++) {
            const float *x = ab[check_rng_next(&rng) % 4];
            fails += !run_case(kn, 0, 1, ta, tb, sz[i], rnd(1, 40), rnd(1, 40), x[0], x[1], 0);
            fails += !run_case(kn, 0, 1, ta, tb, rnd(1, 40), sz[i], rnd(1, 40), x[0], x[1], 0);
            fails += !run_case(kn, 0, 1, ta, tb, rnd(1, 20), rnd(1, 20), sz[i], x[0], x[1], 0);
        }
        fails += !run_case(kn, 0, 2, ta, tb, rnd(100, 200), rnd(100, 200), bl.kc + rnd(1, 7),
                           1.0f, t & 1 ? 0.0f : 0.5f, t == 3 ? 1 : t == 1 ? 2 : 0);
    }
    /* the few-row tiles (1, up to 4, up to 8 rows: BF16_TILE_FN), their
     * chains over whole and partial runs of k pairs, with the epilogues */
    static const int64_t fk[] = {1, 2, 7, 8, 9, 64, 257};
    for (int64_t m = 1; m <= 9; m++)
        for (size_t i = 0; i < sizeof fk / sizeof fk[0]; i++) {
            const float *x = ab[(m + (int64_t)i) % 4];
            fails += !run_case(kn, 0, 1, (int)(i & 1), 0, m, rnd(1, 70), fk[i], x[0], x[1],
                               (int)(m % 3));
        }
    fails += !run_case(kn, 0, 2, 0, 0, 3, bl.nc + bl.nc / 2 + 5, 9, 1, 0, 1); /* several NC blocks */
    int64_t cm, cn, ck; /* few rows in column blocks (gemm_block's lowp cut) */
    lowp_colblock_shape(kn, bl.kc, &cm, &cn, &ck);
    fails += !run_case(kn, 0, 1, 0, 0, cm, cn, ck, 1, 0.5f, 1);
    fails += !run_case(kn, 0, 2, 1, 1, cm, 2 * cn, ck, 1, 0, 0); /* each task half the columns */
    fails += !run_case(kn, 0, 1, 0, 0, 5, 7, 0, 1, 0, 0);    /* K = 0 */
    CHECK_MSG(fails == 0, "%s: %d failing cases", kn->name, fails);
}

int main(void)
{
    CHECK_OK(base_pool_create(2, &pool2));
    printf("ISA level %s, gemm_bf16 uses %s\n", cairn_isa_name(base_isa_select(CAIRN_ISA_AUTO)),
           gemm_bf16_variant_name());
    conversions();
    lowp_each_variant(gemm_bf16_kern_for, sweep);
    CHECK(gemm_bf16_select()->isa <= base_isa_select(CAIRN_ISA_AUTO));
    for (int t = 0; t < 4; t++) {
        CHECK(run_case(gemm_bf16_select(), 1, 2, t & 1, t >> 1, 67, 45, 131, 1, 0, 0));
        CHECK(run_case(gemm_bf16_select(), 2, 1, t & 1, t >> 1, 33, 70, 65, 2, 1, 1 + (t & 1)));
    }
    base_pool_destroy(pool2);
    return check_finish("test_gemm_bf16");
}
