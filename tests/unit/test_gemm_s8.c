/*
 * The int8 GEMM (C s32 = op(A u8) * op(B s8) [+ C]) against an exact int64
 * product computed here: every variant (VNNI quads, 16-bit pairs on
 * AVX-512 / AVX2, the reference) at every ISA level allowed, sizes around
 * its tile, K not a multiple of 2 or 4, KC +- 1, 127, every transpose,
 * leading dimensions with sentinels in the padding, overwrite and
 * accumulate, 1 and 2 threads, few rows cut into column blocks (gemm_block),
 * and the public entry point; A packed ahead
 * (gemm_u8_pack_a) against the unpacked product.
 */
#include "base/alloc.h"
#include "base/threadpool.h"
#include "gemm_lowp_cases.h"

#include <stdlib.h>

#define C_SENTINEL 0x5A5A5A5A

static check_rng_t rng = {0x243f6a8885a308d3ull};
static base_pool_t *pool2;

static int64_t rnd(int64_t lo, int64_t hi) { return lo + (int64_t)(check_rng_next(&rng) % (uint64_t)(hi - lo + 1)); }

/* one case; returns 1 when it matched */
static int run_case(const gemm_kern_t *kn, int via_public, int threads, int ta, int tb, int64_t M,
                    int64_t N, int64_t K, int accumulate)
{
    int64_t pad = rnd(0, 3);
    int64_t ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
    int64_t lda = ac + pad, ldb = bc + pad, ldc = N + pad;
    uint8_t *A = malloc((size_t)(ar * lda) + 1);
    int8_t *B = malloc((size_t)(br * ldb) + 1);
    int32_t *C = malloc((size_t)(M * ldc) * sizeof(int32_t));
    int32_t *C0 = malloc((size_t)(M * ldc) * sizeof(int32_t));
    for (int64_t i = 0; i < ar * lda; i++)
        A[i] = (uint8_t)check_rng_next(&rng);
    for (int64_t i = 0; i < br * ldb; i++)
        B[i] = (int8_t)check_rng_next(&rng);
    for (int64_t i = 0; i < M * ldc; i++)
        C[i] = C0[i] = (i % ldc) < N ? (int32_t)(check_rng_next(&rng) % 2001) - 1000 : C_SENTINEL;
    kctx_t k = {0};
    k.pool = threads > 1 ? pool2 : NULL;
    k.threads = threads;
    if (via_public)
        gemm_u8s8s32(&k, ta, tb, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
    else
        gemm_kern_run(kn, &k, ta, tb, M, N, K, 1.0f, A, lda, B, ldb, accumulate ? 1.0f : 0.0f, C,
                      ldc, NULL);
    int ok = 1;
    for (int64_t i = 0; i < M && ok; i++)
        for (int64_t j = 0; j < ldc && ok; j++) {
            int64_t want;
            if (j >= N) {
                want = C_SENTINEL;
            } else {
                want = accumulate ? C0[i * ldc + j] : 0;
                for (int64_t p = 0; p < K; p++)
                    want += (int64_t)(ta ? A[p * lda + i] : A[i * lda + p]) *
                            (int64_t)(tb ? B[j * ldb + p] : B[p * ldb + j]);
            }
            if (C[i * ldc + j] != want) {
                CHECK_MSG(0,
                          "%s: M=%lld N=%lld K=%lld ta=%d tb=%d acc=%d threads=%d: C[%lld][%lld] "
                          "= %d, want %lld",
                          kn->name, (long long)M, (long long)N, (long long)K, ta, tb, accumulate,
                          threads, (long long)i, (long long)j, C[i * ldc + j], (long long)want);
                ok = 0;
            }
        }
    free(A), free(B), free(C), free(C0);
    return ok;
}

static void sweep(const gemm_kern_t *kn)
{
    gemm_blocking_t bl;
    gemm_kern_blocking(kn, &bl); /* the driver's */
    int64_t sz[16];
    int ns = lowp_sizes(kn, bl.kc, sz);
    int fails = 0;
    for (int t = 0; t < 4; t++) {
        int ta = t & 1, tb = t >> 1;
        for (int i = 0; i < ns && fails < 3; i++) {
            int acc = (int)(check_rng_next(&rng) & 1);
            fails += !run_case(kn, 0, 1, ta, tb, sz[i], rnd(1, 40), rnd(1, 40), acc);
            fails += !run_case(kn, 0, 1, ta, tb, rnd(1, 40), sz[i], rnd(1, 40), acc);
            fails += !run_case(kn, 0, 1, ta, tb, rnd(1, 20), rnd(1, 20), sz[i], acc);
        }
        /* several blocks in every direction, and both threads */
        fails += !run_case(kn, 0, 2, ta, tb, rnd(100, 200), rnd(100, 200), bl.kc + rnd(1, 7), t & 1);
    }
    /* the few-row tiles (1, up to 4, up to 8 rows: S8_TILE_ROWS), their
     * chains over whole and partial runs of K groups */
    static const int64_t fk[] = {1, 4, 13, 16, 19, 64, 257};
    for (int64_t m = 1; m <= 9; m++)
        for (size_t i = 0; i < sizeof fk / sizeof fk[0]; i++)
            fails += !run_case(kn, 0, 1, (int)(i & 1), 0, m, rnd(1, 70), fk[i], (int)(m & 1));
    fails += !run_case(kn, 0, 2, 0, 0, 3, bl.nc + bl.nc / 2 + 5, 9, 0); /* several NC blocks */
    int64_t cm, cn, ck; /* few rows in column blocks (gemm_block's lowp cut) */
    lowp_colblock_shape(kn, bl.kc, &cm, &cn, &ck);
    fails += !run_case(kn, 0, 1, 0, 0, cm, cn, ck, 1);
    fails += !run_case(kn, 0, 2, 1, 1, cm, 2 * cn, ck, 0); /* each task half the columns */
    fails += !run_case(kn, 0, 1, 0, 0, 5, 7, 0, 0);    /* K = 0 writes zeros */
    fails += !run_case(kn, 0, 1, 1, 1, 5, 7, 0, 1);    /* ... or keeps C */
    CHECK_MSG(fails == 0, "%s: %d failing cases", kn->name, fails);
}

/* A packed ahead (gemm_u8_pack_a, the public kernel's layout): the same
 * sums as gemm_u8s8s32 bit for bit, M around the tile's rows, K within one
 * K block, at it, past it and over two, 1 and 2 threads, and with B given
 * as u8 (gemm_u8u8s32_packed_a: B ^ 0x80 read as B - 128, flipped as it is
 * packed); buffers of another shape or kind refused before any read */
static void packed_a_cases(void)
{
    const gemm_kern_t *kn = gemm_s8_select();
    gemm_blocking_t bl;
    gemm_kern_blocking(kn, &bl);
    const int64_t Ms[] = {1, kn->mr - 1, kn->mr + 1, 3 * kn->mr + 2, 65};
    const int64_t Ks[] = {1, 7, bl.kc - 1, bl.kc, bl.kc + 1, 2 * bl.kc + 5};
    int fails = 0;
    for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; mi++)
        for (size_t ki = 0; ki < sizeof Ks / sizeof Ks[0]; ki++) {
            const int64_t M = Ms[mi], K = Ks[ki], N = rnd(1, 70);
            uint8_t *A = malloc((size_t)(M * K));
            int8_t *B = malloc((size_t)(K * N));
            int32_t *C = malloc((size_t)(M * N) * sizeof(int32_t)), *Cp = malloc((size_t)(M * N) * sizeof(int32_t));
            for (int64_t i = 0; i < M * K; i++)
                A[i] = (uint8_t)check_rng_next(&rng);
            for (int64_t i = 0; i < K * N; i++)
                B[i] = (int8_t)check_rng_next(&rng);
            const size_t sz = gemm_u8_packed_a_size(M, K);
            void *pa = base_aligned_alloc(sz, 64);
            CHECK_OK(gemm_u8_pack_a(M, K, A, K, pa, sz));
            const int threads = (int)(ki % 2) + 1;
            kctx_t k = {threads > 1 ? pool2 : NULL, threads};
            gemm_u8s8s32(&k, 0, 0, M, N, K, A, K, B, N, C, N, 0);
            memset(Cp, 0x5a, (size_t)(M * N) * sizeof(int32_t));
            CHECK_OK(gemm_u8s8s32_packed_a(&k, M, N, K, pa, B, N, Cp, N));
            if (memcmp(C, Cp, (size_t)(M * N) * sizeof(int32_t)) && fails++ < 3)
                CHECK_MSG(0, "packed A: M=%lld N=%lld K=%lld threads %d differs", (long long)M,
                          (long long)N, (long long)K, threads);
            uint8_t *Bu = malloc((size_t)(K * N));
            for (int64_t i = 0; i < K * N; i++)
                Bu[i] = (uint8_t)((uint8_t)B[i] ^ 0x80u);
            memset(Cp, 0x5a, (size_t)(M * N) * sizeof(int32_t));
            CHECK_OK(gemm_u8u8s32_packed_a(&k, M, N, K, pa, Bu, N, Cp, N));
            if (memcmp(C, Cp, (size_t)(M * N) * sizeof(int32_t)) && fails++ < 3)
                CHECK_MSG(0, "packed A, u8 B: M=%lld N=%lld K=%lld threads %d differs",
                          (long long)M, (long long)N, (long long)K, threads);
            free(Bu);
            if (mi == 0 && ki == 1) {
                CHECK_FAILS(gemm_u8s8s32_packed_a(&k, M + 1, N, K, pa, B, N, Cp, N),
                            CAIRN_ERR_SHAPE, "packed as");
                memcpy(pa, "XXXX", 4);
                CHECK_FAILS(gemm_u8s8s32_packed_a(&k, M, N, K, pa, B, N, Cp, N),
                            CAIRN_ERR_INVALID_ARGUMENT, "gemm_u8_pack_a");
            }
            base_aligned_free(pa);
            free(A), free(B), free(C), free(Cp);
        }
    CHECK_MSG(fails == 0, "%d packed-A cases differ", fails);
}

int main(void)
{
    CHECK_OK(base_pool_create(2, &pool2));
    printf("ISA level %s, gemm_u8s8s32 uses %s\n", cairn_isa_name(base_isa_select(CAIRN_ISA_AUTO)),
           gemm_s8_variant_name());
    lowp_each_variant(gemm_s8_kern_for, sweep);
    packed_a_cases();
    CHECK(gemm_s8_select()->isa <= base_isa_select(CAIRN_ISA_AUTO));
    for (int t = 0; t < 4; t++)
        CHECK(run_case(gemm_s8_select(), 1, 2, t & 1, t >> 1, 67, 45, 131, t & 1));
    /* extreme values: 255 * -128 everywhere, K large enough to need 32 bits */
    {
        int64_t M = 3, N = 33, K = 1001;
        uint8_t *A = malloc((size_t)(M * K));
        int8_t *B = malloc((size_t)(K * N));
        int32_t *C = malloc((size_t)(M * N) * sizeof(int32_t));
        memset(A, 255, (size_t)(M * K));
        memset(B, 0x80, (size_t)(K * N));
        gemm_u8s8s32(NULL, 0, 0, M, N, K, A, K, B, N, C, N, 0);
        int ok = 1;
        for (int64_t i = 0; i < M * N; i++)
            ok &= C[i] == -255 * 128 * 1001;
        CHECK_MSG(ok, "255 * -128 * 1001 not exact: C[0] = %d", C[0]);
        free(A), free(B), free(C);
    }
    base_pool_destroy(pool2);
    return check_finish("test_gemm_s8");
}
