/*
 * The optimised f32 GEMM (src/kernels/gemm/gemm.c and its micro-kernels)
 * against an independent double-precision product computed here.
 *
 * Every micro-kernel variant the CPU can run at or below the ISA level in
 * force (CAIRN_ISA; ctest also runs this binary with CAIRN_ISA=ref, avx2 and
 * avx512) is driven through sizes around its tile and blocking (1, 2, 3,
 * MR-1, MR, MR+1, NR-1, NR+1, KC-1, KC+1, 127 and random), every
 * transpose combination, leading dimensions wider than the matrix with
 * sentinels in the padding, alpha/beta cases (beta == 0 on a NaN-poisoned
 * C), 1 and 2 threads, every epilogue (every activation before and after
 * the residual add), pre-packed B and the strided batch.
 *
 * Tolerance: |got - want| <= 4 * (K + 2) * 2^-24 * (|alpha| sum|a b| +
 * |beta c|), the f32 accumulation bound, widened through the epilogue.
 */
#include "base/cpu.h"
#include "base/alloc.h"
#include "check.h"
#include "kernels/gemm/gemm_f32_internal.h"

#include <math.h>
#include <pthread.h>

#define SENTINEL 7777.0f
#define OPERAND_SENTINEL 1e30f

static check_rng_t rng = {0x9e3779b97f4a7c15ull};
static base_pool_t *pool2;

static double act_d(gemm_act_t act, double x, double lo, double hi)
{
    switch (act) {
    case GEMM_ACT_NONE:
        return x;
    case GEMM_ACT_RELU:
        return x > 0 ? x : 0;
    case GEMM_ACT_GELU_ERF:
        return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    case GEMM_ACT_GELU_TANH:
        return 0.5 * x * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    case GEMM_ACT_SILU:
        return x / (1.0 + exp(-x));
    case GEMM_ACT_SIGMOID:
        return 1.0 / (1.0 + exp(-x));
    case GEMM_ACT_CLIP:
        return x < lo ? lo : x > hi ? hi : x;
    }
    return x;
}

typedef enum { VIA_VARIANT, VIA_PUBLIC, VIA_PACKED, VIA_PACKED_A } via_t;

typedef struct gcase {
    const gemm_f32_variant_t *v; /* VIA_VARIANT */
    via_t via;
    int threads;
    int ta, tb;
    int64_t M, N, K;
    float alpha, beta;
    int pad;
    const gemm_epilogue_t *epi; /* residual/bias filled in by run_case when tagged */
    int residual;               /* add a random residual */
} gcase_t;

/* Runs one case; returns 1 when it passed. */
static int run_case(const gcase_t *c)
{
    int64_t M = c->M, N = c->N, K = c->K;
    int64_t ar = c->ta ? K : M, ac = c->ta ? M : K, br = c->tb ? N : K, bc = c->tb ? K : N;
    int64_t lda = ac + c->pad, ldb = bc + c->pad, ldc = N + c->pad, ldr = N + 1;
    size_t na = (size_t)(ar * lda) + 1, nb = (size_t)(br * ldb) + 1, nc = (size_t)(M * ldc) + 1;
    float *A = malloc(na * sizeof(float)), *B = malloc(nb * sizeof(float));
    float *C = malloc(nc * sizeof(float)), *C0 = malloc(nc * sizeof(float));
    float *R = malloc((size_t)(M * ldr + 1) * sizeof(float));
    float *bias = malloc((size_t)(M > N ? M : N) * sizeof(float) + 4);
    for (size_t i = 0; i < na; i++)
        A[i] = OPERAND_SENTINEL;
    for (size_t i = 0; i < nb; i++)
        B[i] = OPERAND_SENTINEL;
    for (int64_t i = 0; i < ar; i++)
        check_fill_f32(&rng, A + i * lda, ac, -1, 1);
    for (int64_t i = 0; i < br; i++)
        check_fill_f32(&rng, B + i * ldb, bc, -1, 1);
    for (size_t i = 0; i < nc; i++)
        C[i] = SENTINEL;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
            C[i * ldc + j] = c->beta == 0 ? NAN : (float)check_rng_uniform(&rng, -1, 1);
    memcpy(C0, C, nc * sizeof(float));
    float *Bref = malloc(nb * sizeof(float)), *Aref = malloc(na * sizeof(float));
    memcpy(Bref, B, nb * sizeof(float));
    memcpy(Aref, A, na * sizeof(float));
    check_fill_f32(&rng, R, M * ldr + 1, -1, 1);
    check_fill_f32(&rng, bias, M > N ? M : N, -1, 1);
    gemm_epilogue_t epi;
    const gemm_epilogue_t *ep = NULL;
    if (c->epi) {
        epi = *c->epi;
        if (epi.bias_kind != GEMM_BIAS_NONE)
            epi.bias = bias;
        if (c->residual) {
            epi.residual = R;
            epi.ldr = ldr;
        }
        ep = &epi;
    }
    kctx_t kc = {c->threads > 1 ? pool2 : NULL, c->threads};
    void *packed = NULL;
    switch (c->via) {
    case VIA_VARIANT:
        gemm_f32_run(c->v, &kc, c->ta, c->tb, M, N, K, c->alpha, A, lda, B, ldb, c->beta, C, ldc,
                     ep);
        break;
    case VIA_PUBLIC:
        if (ep)
            gemm_f32_ex(&kc, c->ta, c->tb, M, N, K, c->alpha, A, lda, B, ldb, c->beta, C, ldc, ep);
        else
            gemm_f32(&kc, c->ta, c->tb, M, N, K, c->alpha, A, lda, B, ldb, c->beta, C, ldc);
        break;
    case VIA_PACKED: {
        size_t sz = gemm_f32_packed_b_size(K, N);
        packed = base_aligned_alloc(sz, 64);
        CHECK_OK(gemm_f32_pack_b(c->tb, K, N, B, ldb, packed, sz));
        /* B is no longer needed: poison it to prove it is not read */
        for (size_t i = 0; i < nb; i++)
            B[i] = NAN;
        CHECK_OK(gemm_f32_packed(&kc, c->ta, M, N, K, c->alpha, A, lda, packed, c->beta, C, ldc,
                                 ep));
        break;
    }
    case VIA_PACKED_A: {
        size_t sz = gemm_f32_packed_a_size(M, K);
        packed = base_aligned_alloc(sz, 64);
        CHECK_OK(gemm_f32_prepack_a(c->ta, M, K, A, lda, packed, sz));
        for (size_t i = 0; i < na; i++)
            A[i] = NAN;
        CHECK_OK(gemm_f32_packed_a(&kc, c->tb, M, N, K, c->alpha, packed, B, ldb, c->beta, C, ldc,
                                   ep));
        break;
    }
    }
    int ok = 1;
    char where[256] = "";
    for (int64_t i = 0; i < M && ok; i++) {
        for (int64_t j = 0; j < N; j++) {
            double s = 0, sabs = 0;
            for (int64_t k = 0; k < K; k++) {
                double a = c->ta ? Aref[k * lda + i] : Aref[i * lda + k];
                double b = c->tb ? Bref[j * ldb + k] : Bref[k * ldb + j];
                s += a * b;
                sabs += fabs(a * b);
            }
            double cold = C0[i * ldc + j];
            double want = c->alpha * s + (c->beta != 0 ? c->beta * cold : 0);
            double tol =
                4.0 * (double)(K + 2) * ldexp(1.0, -24) *
                (fabs(c->alpha) * sabs + (c->beta != 0 ? fabs(c->beta * cold) : 0)) + 1e-30;
            if (ep) {
                if (ep->bias_kind == GEMM_BIAS_ROW)
                    want += bias[i];
                if (ep->bias_kind == GEMM_BIAS_COL)
                    want += bias[j];
                double mag = fabs(want);
                want = act_d(ep->act, want, ep->clip_lo, ep->clip_hi) * ep->scale;
                tol = (1.5 * tol + 4e-7 * (1 + mag)) * fabs(ep->scale);
                if (ep->residual)
                    want += R[i * ldr + j];
                tol += 4e-7 * fabs(want);
                if (ep->post_act != GEMM_ACT_NONE) {
                    /* every activation's slope is below 1.2 */
                    double pmag = fabs(want);
                    want = act_d(ep->post_act, want, ep->post_lo, ep->post_hi);
                    tol = 1.5 * tol + 4e-7 * (1 + pmag);
                }
            }
            double got = C[i * ldc + j];
            if (!(fabs(got - want) <= tol)) {
                snprintf(where, sizeof where, "C[%lld][%lld] = %.9g, want %.9g (tol %.3g)",
                         (long long)i, (long long)j, got, want, tol);
                ok = 0;
                break;
            }
        }
    }
    for (int64_t i = 0; i < M && ok; i++)
        for (int64_t j = N; j < ldc; j++)
            if (C[i * ldc + j] != SENTINEL && i * ldc + j < (int64_t)nc) {
                snprintf(where, sizeof where, "padding C[%lld][%lld] overwritten", (long long)i,
                         (long long)j);
                ok = 0;
                break;
            }
    if (ok && C[nc - 1] != SENTINEL && (int64_t)(nc - 1) >= M * ldc)
        ok = 0, snprintf(where, sizeof where, "wrote past the end of C");
    CHECK_MSG(ok, "%s via=%d threads=%d ta=%d tb=%d M=%lld N=%lld K=%lld alpha=%g beta=%g pad=%d "
                  "act=%d bias=%d res=%d post=%d: %s",
              c->via == VIA_VARIANT ? c->v->name : "public", c->via, c->threads, c->ta, c->tb,
              (long long)M, (long long)N, (long long)K, c->alpha, c->beta, c->pad,
              ep ? (int)ep->act : -1, ep ? (int)ep->bias_kind : -1, c->residual,
              ep ? (int)ep->post_act : -1, where);
    base_aligned_free(packed);
    free(A), free(B), free(Bref), free(Aref), free(C), free(C0), free(R), free(bias);
    return ok;
}

static int64_t pick(const int64_t *set, int n, int i) { return set[((i % n) + n) % n]; }

/* The size sweep for one variant. */
static void sweep_variant(const gemm_f32_variant_t *v)
{
    gemm_blocking_t bl;
    gemm_f32_blocking(v, &bl);
    int64_t mr = v->mr, nr = v->nr, kc = bl.kc;
    const int64_t ms[] = {1, 2, 3, mr - 1, mr, mr + 1, nr - 1, nr + 1, 17, 127};
    const int64_t ks[] = {1, 2, 3, kc - 1, kc + 1, 127, 5};
    const int nm = (int)(sizeof ms / sizeof ms[0]), nk = (int)(sizeof ks / sizeof ks[0]);
    static const float ab[][2] = {{1, 0}, {0.5f, -1.5f}, {1, 1}, {-2, 0}};
    int cnt = 0;
    for (int t = 0; t < 4; t++) {
        for (int i = 0; i < nm; i++) {
            for (int j = 0; j < nm; j++) {
                gcase_t c = {v, VIA_VARIANT, 1, t & 1, t >> 1, ms[i], ms[j], pick(ks, nk, i + 2 * j + t),
                             ab[cnt % 4][0], ab[cnt % 4][1], (cnt % 3) * 3, NULL, 0};
                /* the biggest ones rarely, to stay fast */
                if (c.M * c.N * c.K > 1500000 && (cnt % 5))
                    c.K = 9;
                run_case(&c);
                cnt++;
            }
        }
    }
    /* random shapes, 1 and 2 threads */
    for (int r = 0; r < 24; r++) {
        gcase_t c = {v, VIA_VARIANT, 1 + (r & 1), r & 1, (r >> 1) & 1,
                     1 + (int64_t)(check_rng_next(&rng) % 150), 1 + (int64_t)(check_rng_next(&rng) % 150),
                     1 + (int64_t)(check_rng_next(&rng) % 300), ab[r % 4][0], ab[r % 4][1], r % 4, NULL, 0};
        run_case(&c);
    }
    /* several MC and NC blocks, several KC slices, both threads */
    gcase_t big1 = {v, VIA_VARIANT, 2, 0, 0, bl.mc + 37, 45, kc * 2 + 3, 1, 1, 1, NULL, 0};
    run_case(&big1);
    gcase_t big2 = {v, VIA_VARIANT, 2, 1, 1, 20, bl.nc + 29, 7, 1, 0, 2, NULL, 0};
    run_case(&big2);
    gcase_t big3 = {v, VIA_VARIANT, 2, 0, 0, 3, bl.nc + 29, 2 * kc + 1, 0.25f, 0, 0, NULL, 0};
    run_case(&big3);
    /* a C larger than L2 (the AVX-512 tile then takes K blocks twice as
     * long, gemm_f32_run): several of them, a ragged last one, 1 and 2
     * threads, beta and a residual through the last block's epilogue */
    if (v->nr >= 32) {
        const int64_t l2 = base_cpu()->l2 ? (int64_t)base_cpu()->l2 : 1 << 20;
        const int64_t bm = 2 * mr + 3, bn = l2 / (4 * bm) + 3 * nr + 5;
        const gemm_epilogue_t res = {GEMM_BIAS_COL, NULL, GEMM_ACT_RELU, 0, 0, 1, NULL, 0,
                                     GEMM_ACT_NONE, 0, 0};
        for (int th = 1; th <= 2; th++) {
            gcase_t bigc = {v, VIA_VARIANT, th, 0, th - 1, bm, bn, 4 * kc + 11, 1, 0.5f, 1,
                            th == 2 ? &res : NULL, th == 2};
            run_case(&bigc);
        }
    }
    /* one thread over several NC blocks: A packed once and reused */
    for (int ta = 0; ta < 2; ta++) {
        gcase_t big4 = {v, VIA_VARIANT, 1, ta, 0, 40, bl.nc + 29, 2 * kc + 1, 1, 0.5f, 1, NULL, 0};
        run_case(&big4);
    }
    /* few rows, N wider than the few-row path's cache chunk */
    gcase_t wide = {v, VIA_VARIANT, 2, 1, 0, 16, 8209, 11, 1, 0.5f, 1, NULL, 0};
    run_case(&wide);
    /* few rows of C 4 KB apart (the AVX-512 path keeps its masks there),
     * and a B over half the last-level cache (one row: its own copy; three:
     * the next group's prefetch), each with a partial last column step and
     * a K tail after the 8-row groups */
    for (int m = 8; m <= 12; m += 4) {
        gcase_t al = {v, VIA_VARIANT, 1, 0, 0, m, 1024, 37, 1, 0.5f, 0, NULL, 0};
        run_case(&al);
    }
    const size_t l3 = base_cpu()->l3 ? base_cpu()->l3 : 32u * 1024 * 1024;
    for (int m = 1; m <= 3; m += 2) {
        gcase_t st = {v, VIA_VARIANT, 1, 0, 0, m, 1100, (int64_t)(l3 / 2 / (4 * 1100)) + 13,
                      0.75f, 0.5f, 0, NULL, 0};
        run_case(&st);
    }
    /* few rows and a long K on 2 threads: split K (partial sums added into
     * C; beta, alpha, both op(A), padded leading dimensions, 1 and 16 rows) */
    for (int ta = 0; ta < 2; ta++) {
        gcase_t sk = {v, VIA_VARIANT, 2, ta, 0, ta ? 16 : 5, 300, 2600, 0.75f, ta ? 0.0f : 0.5f,
                      ta ? 3 : 0, NULL, 0};
        run_case(&sk);
        gcase_t sk1 = {v, VIA_VARIANT, 2, ta, 0, 1, 1500, 2049, 1, 1, 1, NULL, 0};
        run_case(&sk1);
    }
    /* K == 0: C = beta*C (and zero for beta == 0) */
    for (int b = 0; b < 2; b++) {
        gcase_t c0 = {v, VIA_VARIANT, 1, 0, b, 5, 40, 0, 1, (float)b * 0.5f, 1, NULL, 0};
        run_case(&c0);
    }
}

static void epilogues(const gemm_f32_variant_t *v)
{
    static const gemm_act_t acts[] = {GEMM_ACT_NONE,  GEMM_ACT_RELU,    GEMM_ACT_GELU_ERF,
                                      GEMM_ACT_GELU_TANH, GEMM_ACT_SILU, GEMM_ACT_SIGMOID,
                                      GEMM_ACT_CLIP};
    int cnt = 0;
    for (int a = 0; a < 7; a++) {
        for (int bk = 0; bk < 3; bk++) {
            for (int res = 0; res < 2; res++) {
                gemm_epilogue_t e = {(gemm_bias_kind_t)bk, NULL, acts[a], -0.3f, 0.4f,
                                     res ? 1.0f : -0.75f, NULL, 0, GEMM_ACT_NONE, 0, 0};
                /* both the direct (M small) and the packed path, several K slices */
                int64_t M = cnt % 2 ? 9 : 45, N = 37 + cnt % 5, K = cnt % 3 ? 300 : 600;
                gcase_t c = {v, VIA_VARIANT, 1 + cnt % 2, cnt % 2, (cnt / 2) % 2, M, N, K, 1.5f,
                             cnt % 4 == 0 ? 0.0f : 0.5f, 1, &e, res};
                run_case(&c);
                cnt++;
            }
        }
    }
    /* alpha 1, beta 0: the epilogues the AVX2 kernel finishes on its
     * registers (a bias per row or column, ReLU or clip before and after a
     * residual), on full tiles and ragged edges, one K block (C stored
     * once) and several (the last adding to C); the AVX-512 kernel's
     * store_tile_fixed takes the common ones on full tiles */
    static const gemm_act_t simple[] = {GEMM_ACT_NONE, GEMM_ACT_RELU, GEMM_ACT_CLIP};
    for (int i = 0; i < 3 * 3 * 3 * 2; i++) {
        const int bk = i % 3, a = (i / 3) % 3, pa = (i / 9) % 3, res = i / 27;
        gemm_epilogue_t e = {(gemm_bias_kind_t)bk, NULL, simple[a], -0.3f, 0.4f, 1.0f, NULL, 0,
                             simple[pa], -0.2f, 0.5f};
        /* large enough for the packed path (the direct one takes products
         * under 48^3) */
        gcase_t c = {v, VIA_VARIANT, 1 + i % 2, 0, i % 4 == 3, i % 2 ? 30 : 31, i % 2 ? 48 : 50,
                     (i / 2) % 3 == 0 ? 100 : (i / 2) % 3 == 1 ? 300 : 600, 1.0f, 0.0f, i % 2,
                     &e, res};
        run_case(&c);
    }
    /* a column bias then ReLU or clip, alpha 1, beta 0, K of 16 to 97 in
     * one block: the AVX-512 kernel's short-K form takes the full tiles
     * (K = 16, 24, 32 unrolled whole, others up to 96 looped; 97 the
     * general kernel) and the 16-wide last panel of N = 80, other edges the
     * general form; A transposed as the inverted-residual block's
     * expansion reads it */
    static const int64_t short_k[] = {16, 24, 32, 40, 96, 97};
    for (int i = 0; i < 24; i++) {
        gemm_epilogue_t e = {GEMM_BIAS_COL, NULL, (i / 6) % 2 ? GEMM_ACT_CLIP : GEMM_ACT_RELU,
                             -0.3f, 0.4f, 1.0f, NULL, 0, GEMM_ACT_NONE, 0, 0};
        /* over 48^3: the packed path, not the direct one */
        gcase_t c = {v, VIA_VARIANT, 1 + i / 12, i % 3 == 0, 0, i % 4 < 2 ? 112 : 117,
                     i % 7 < 3 ? 80 : i % 4 < 2 ? 64 : 70, short_k[i % 6], 1.0f, 0.0f,
                     i % 5 == 0, &e, 0};
        run_case(&c);
    }
    /* alpha 1, beta 0 with a transcendental activation: the tiles stored
     * with their bias by the register epilogue, the rest applied over each
     * run of tiles (runs along C's rows for a short K, down its columns
     * for a long one), ragged widths, a residual, post-activations */
    for (int i = 0; i < 16; i++) {
        const gemm_act_t a = acts[2 + i % 4];
        gemm_epilogue_t e = {(gemm_bias_kind_t)(1 + i % 2), NULL, a, 0, 0, i % 3 ? 1.0f : 0.5f,
                             NULL, 0, i % 2 ? GEMM_ACT_RELU : GEMM_ACT_CLIP, -0.2f, 0.5f};
        gcase_t c = {v, VIA_VARIANT, 1 + i % 2, 0, i % 4 == 3, 50 + i % 7, 40 + i * 3,
                     i % 2 ? 20 : 200, 1.0f, 0.0f, i % 2, &e, i % 4 != 1};
        run_case(&c);
    }
    /* a column bias then GELU (erf or tanh), alone: the AVX-512 kernel's
     * store_tile_fixed takes those on full tiles (a transformer's first
     * FFN layer), the edges the general form; one K block and several */
    for (int i = 0; i < 8; i++) {
        gemm_epilogue_t e = {GEMM_BIAS_COL, NULL, acts[2 + i % 2], 0, 0, 1.0f, NULL, 0,
                             GEMM_ACT_NONE, 0, 0};
        gcase_t c = {v, VIA_VARIANT, 1 + (i / 2) % 2, 0, 0, i % 4 < 2 ? 28 : 31,
                     i % 4 < 2 ? 64 : 70, i < 4 ? 100 : 600, 1.0f, 0.0f, i % 2, &e, 0};
        run_case(&c);
    }
    /* large arguments for the activations' tails */
    for (int a = 2; a < 6; a++) {
        gemm_epilogue_t e = {GEMM_BIAS_COL, NULL, acts[a], 0, 0, 1, NULL, 0, GEMM_ACT_NONE, 0, 0};
        gcase_t c = {v, VIA_VARIANT, 1, 0, 0, 20, 33, 200, 30.0f, 0, 0, &e, 0};
        run_case(&c);
    }
    /* every activation after the residual add (post_act), with and without
     * one before it, a residual and a bias, on both paths and edge widths */
    for (int p = 1; p < 7; p++) {
        for (int k = 0; k < 4; k++) {
            gemm_epilogue_t e = {(gemm_bias_kind_t)(k % 3), NULL, k & 1 ? acts[(p + k) % 7]
                                                                        : GEMM_ACT_NONE,
                                 -0.5f, 0.6f, k == 3 ? 0.5f : 1.0f, NULL, 0, acts[p],
                                 -0.2f, 0.35f};
            int64_t M = k % 2 ? 7 : 50, N = k < 2 ? 16 + p : 8 * p + 1, K = k == 2 ? 600 : 77;
            gcase_t c = {v, VIA_VARIANT, 1 + k % 2, k == 1, k == 3, M, N, K, 0.75f,
                         k == 0 ? 0.5f : 0.0f, k % 3, &e, k != 2};
            run_case(&c);
        }
        /* large arguments for the tails, after the residual */
        gemm_epilogue_t e = {GEMM_BIAS_NONE, NULL, GEMM_ACT_NONE, 0, 0, 1, NULL, 0, acts[p],
                             -3.0f, 5.0f};
        gcase_t c = {v, VIA_VARIANT, 1, 0, 0, 20, 33, 200, 30.0f, 0, 0, &e, 1};
        run_case(&c);
    }
}

static void public_paths(void)
{
    /* pre-packed B, every transpose, edge sizes, with and without an epilogue
     * (128 and 25 rows: a last A panel of 2 and 1 rows, odd K) */
    const int64_t sizes[][3] = {{1, 1, 1},    {5, 33, 17},  {16, 100, 300}, {40, 31, 513},
                                {130, 70, 64}, {3, 200, 0}, {128, 50, 127}, {25, 40, 9}};
    for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); s++)
        for (int t = 0; t < 4; t++) {
            gemm_epilogue_t e = {GEMM_BIAS_ROW, NULL, GEMM_ACT_SILU, 0, 0, 2.0f, NULL, 0,
                                 t == 2 ? GEMM_ACT_RELU : GEMM_ACT_NONE, 0, 0};
            gcase_t c = {NULL, VIA_PACKED, 1 + (t & 1), t & 1, t >> 1, sizes[s][0], sizes[s][1],
                         sizes[s][2], 0.75f, t == 3 ? 0.0f : 1.0f, 2, s % 2 ? &e : NULL, s % 3 == 0};
            run_case(&c);
            c.via = VIA_PACKED_A;
            run_case(&c);
            c.via = VIA_PUBLIC;
            run_case(&c);
        }
    /* pre-packed B with at most 4 rows and beta 0: the GEMV-like path that
     * reads A in place (row groups of 4 and a remainder, ragged last panel,
     * several K blocks, both threads, every epilogue kind; rows take groups
     * of 4 or 2 panels at once, then the rest panel by panel, or the AVX-512
     * form a last group of the 1 to 3 panels left) */
    const int64_t gv[][3] = {{1, 1, 1},     {1, 1000, 1280}, {2, 17, 300},  {3, 15, 600},
                             {4, 100, 77},  {5, 40, 33},     {1, 16, 513},  {1, 64, 513},
                             {2, 100, 300}, {3, 70, 600},    {2, 32, 257},  {1, 90, 300},
                             {1, 200, 65},  {1, 50, 40},     {4, 50, 130},  {2, 90, 20}};
    for (int s = 0; s < (int)(sizeof gv / sizeof gv[0]); s++)
        for (int t = 0; t < 4; t++) {
            gemm_epilogue_t e = {t == 3 ? GEMM_BIAS_ROW : GEMM_BIAS_COL, NULL,
                                 t == 1 ? GEMM_ACT_GELU_ERF : GEMM_ACT_RELU, 0, 0, 1.0f, NULL, 0,
                                 t == 3 ? GEMM_ACT_CLIP : GEMM_ACT_NONE, -0.5f, 0.5f};
            gcase_t c = {NULL, VIA_PACKED, 1 + (t & 1), t >> 1, 0, gv[s][0], gv[s][1], gv[s][2],
                         t == 2 ? 0.5f : 1.0f, 0.0f, 3, t ? &e : NULL, t >= 2};
            run_case(&c);
        }
    /* pre-packed A over several K blocks, every transpose, ragged M and N */
    for (int t = 0; t < 4; t++) {
        gemm_epilogue_t e = {GEMM_BIAS_ROW, NULL, GEMM_ACT_RELU, 0, 0, 1.0f, NULL, 0,
                             GEMM_ACT_CLIP, -0.5f, 0.5f};
        gcase_t c = {NULL, VIA_PACKED_A, 1 + (t & 1), t & 1, t >> 1, 71, 45, 1000, 1.0f,
                     t == 1 ? 0.5f : 0.0f, 1, t >= 2 ? &e : NULL, t == 3};
        run_case(&c);
    }
    /* pre-packed A of one M block over a wide B packed per call: column
     * blocks capped by L2 (gemm_task) and, with enough tiles per block
     * (131 rows: 10 panels), the next block's rows of B prefetched a piece
     * of a row per tile; ragged edges, 1 and 2 threads */
    for (int t = 0; t < 2; t++) {
        gemm_epilogue_t e = {GEMM_BIAS_ROW, NULL, GEMM_ACT_RELU, 0, 0, 1.0f, NULL, 0,
                             GEMM_ACT_NONE, 0, 0};
        gcase_t c = {NULL, VIA_PACKED_A, 1 + t, 0, 0, 131 - 67 * t, 3000 + 7 * t, 260 + 145 * t,
                     1.0f, 0.0f, 1, t ? &e : NULL, t};
        run_case(&c);
    }
    /* C blocks over half of a 2 MB L2 (the Xeon's; smaller ones run the
     * usual orders): tiles along C's rows, B packed per call (600 x 500)
     * and pre-packed with many rows (900 x 330); and pre-packed B under
     * 256 rows over several K blocks cut into column blocks (200 x 1400);
     * ragged edges, an epilogue with a residual, 1 and 2 threads */
    {
        const int64_t sh[3][3] = {{600, 500, 300}, {900, 330, 400}, {200, 1400, 400}};
        for (int t = 0; t < 6; t++) {
            gemm_epilogue_t e = {GEMM_BIAS_COL, NULL, GEMM_ACT_RELU, 0, 0, 1.0f, NULL, 0,
                                 GEMM_ACT_NONE, 0, 0};
            gcase_t c = {NULL, t / 2 == 0 ? VIA_PUBLIC : VIA_PACKED, 1 + t % 2, 0, 0,
                         sh[t / 2][0] + t % 2, sh[t / 2][1] + 3 * (t % 2), sh[t / 2][2], 1.0f,
                         t == 2 ? 0.5f : 0.0f, 1, t % 2 ? NULL : &e, t % 2 == 0};
            run_case(&c);
        }
    }
    /* a packed A used for another shape, or a packed B given as packed A, is refused */
    {
        size_t sa = gemm_f32_packed_a_size(6, 4), sb = gemm_f32_packed_b_size(4, 6);
        void *pa = base_aligned_alloc(sa, 64), *pb = base_aligned_alloc(sb, 64);
        float w[24] = {0}, x[24] = {0}, y[36];
        CHECK_OK(gemm_f32_prepack_a(0, 6, 4, w, 4, pa, sa));
        CHECK_OK(gemm_f32_pack_b(0, 4, 6, x, 6, pb, sb));
        CHECK(gemm_f32_packed_a(NULL, 0, 6, 6, 5, 1, pa, x, 6, 0, y, 6, NULL) == CAIRN_ERR_SHAPE);
        CHECK(gemm_f32_packed_a(NULL, 0, 6, 6, 4, 1, pb, x, 6, 0, y, 6, NULL) ==
              CAIRN_ERR_INVALID_ARGUMENT);
        CHECK(gemm_f32_prepack_a(0, 6, 4, w, 4, pa, sa - 1) == CAIRN_ERR_INVALID_ARGUMENT);
        /* a corrupted header (its KC block, at byte 24) is refused, not followed */
        int64_t kc_bad = 0;
        memcpy((char *)pa + 24, &kc_bad, sizeof kc_bad);
        CHECK(gemm_f32_packed_a(NULL, 0, 6, 6, 4, 1, pa, x, 6, 0, y, 6, NULL) ==
              CAIRN_ERR_INVALID_ARGUMENT);
        memcpy((char *)pb + 24, &kc_bad, sizeof kc_bad);
        CHECK(gemm_f32_packed(NULL, 0, 6, 6, 4, 1, w, 4, pb, 0, y, 6, NULL) ==
              CAIRN_ERR_INVALID_ARGUMENT);
        CHECK(gemm_f32_packed(NULL, 0, 6, 6, 4, 1, w, 4, NULL, 0, y, 6, NULL) ==
              CAIRN_ERR_INVALID_ARGUMENT);
        base_aligned_free(pa);
        base_aligned_free(pb);
    }
    /* a packed buffer used for a different shape is refused */
    size_t sz = gemm_f32_packed_b_size(4, 8);
    void *p = base_aligned_alloc(sz, 64);
    float b[32] = {0}, a[8] = {0}, cc[16];
    CHECK_OK(gemm_f32_pack_b(0, 4, 8, b, 8, p, sz));
    CHECK(gemm_f32_packed(NULL, 0, 2, 8, 5, 1, a, 5, p, 0, cc, 8, NULL) == CAIRN_ERR_SHAPE);
    CHECK(gemm_f32_pack_b(0, 4, 8, b, 8, p, sz - 1) == CAIRN_ERR_INVALID_ARGUMENT);
    base_aligned_free(p);
    /* M == 0 or N == 0: nothing is written */
    cc[0] = SENTINEL;
    gemm_f32(NULL, 0, 0, 0, 4, 2, 1, a, 2, b, 4, 0, cc, 4);
    gemm_f32(NULL, 0, 0, 2, 0, 2, 1, a, 2, b, 4, 0, cc, 4);
    CHECK(cc[0] == SENTINEL);
}

/* The driver's packing tiles and row split (run_packed_range), against the
 * double reference: A packed by the tiles that first use each A panel
 * (uk_packa) and B by those that first use each B panel (uk_packb); the
 * last two A panels sharing a remainder of 1 or 2 rows (M = 128 as 8 x 14
 * + 8 + 8); in one row block and in the second of two, over several B
 * panels and K blocks, with a ragged last B panel, 1 and 2 threads, a row
 * bias and residual through the split rows, op(B) transposed (B packed by
 * pack_b, A still by the tiles), B pre-packed (A by the tiles, B not),
 * N past one column block (NC).
 * lda a multiple of 1024 floats (A's rows would share an L1 set: A packed
 * by pack_a instead) and not. A's padding holds sentinels, so a tile that
 * read past its K block would show. Every variant runs them; only those
 * with uk_packa and a tile of 12 or more rows take the new paths (each
 * mode of gemm_f32_set_tile_pack_a is forced in turn by the caller). */
static void tile_packing(const gemm_f32_variant_t *v)
{
    gemm_blocking_t bl;
    gemm_f32_blocking(v, &bl);
    const int64_t mr = v->mr, nr = v->nr, kc = bl.kc;
    const int64_t ms[] = {mr + 1,     mr + 2,          2 * mr + 1,          2 * mr + 2,
                          9 * mr + 2, 10 * mr + 1,     bl.mc + mr + 2,      bl.mc + 2 * mr + 1};
    const gemm_epilogue_t e = {GEMM_BIAS_ROW, NULL, GEMM_ACT_RELU, 0, 0, 1.0f, NULL, 0,
                               GEMM_ACT_NONE, 0, 0};
    for (int i = 0; i < (int)(sizeof ms / sizeof ms[0]); i++)
        for (int t = 0; t < 4; t++) {
            gcase_t c = {v, VIA_VARIANT, 1 + (t & 1), 0, t == 3, ms[i], 3 * nr + 5,
                         t < 2 ? kc + 7 : 2 * kc + 3, t == 2 ? 0.5f : 1.0f, t == 0 ? 0.0f : 1.0f,
                         t, t & 1 ? &e : NULL, t == 1};
            run_case(&c);
        }
    for (int pad = 0; pad <= 3; pad += 3)
        for (int th = 1; th <= 2; th++) {
            gcase_t c = {v, VIA_VARIANT, th, 0, 0, 2 * mr + 2, 2 * nr + 3, 1024, 1.0f, 0.0f, pad,
                         NULL, 0};
            run_case(&c);
        }
    /* past one column block (NC): A's block, packed at the first, is used
     * again by the next (and its in-place panels read again) */
    for (int th = 1; th <= 2; th++) {
        gcase_t c = {v, VIA_VARIANT, th, 0, 0, 2 * mr + 3, bl.nc + nr + 5, kc + 7, 1.0f, 0.5f, 1,
                     NULL, 0};
        run_case(&c);
    }
    if (v == gemm_f32_select())
        for (int th = 1; th <= 2; th++) {
            gcase_t c = {NULL, VIA_PACKED, th, 0, 0, 128, 3 * nr + 5, kc + 7, 1.0f, 1.0f, 1, &e,
                         1};
            run_case(&c);
        }
}

/* The indirect-A product (gemm_f32_packed_inda: the convolutions' path for
 * small planes and the inverted-residual block's projection; and
 * gemm_f32_packed_inda_px, stored pixel-major: the block's stem form) against the
 * double reference: channel counts around the tile's width and its
 * narrower forms (1, 8, 15-17, 23-25, 31-33, 40, 56), pixel counts around
 * the tile's height, pixels evenly spaced (the kernels' fast addressing)
 * and not, tap offsets contiguous and strided, K over several K blocks,
 * 1 and 2 threads, every epilogue kind the convolutions use (channel bias,
 * clip, residual, post clip, scale) and one whose activation takes the
 * general path. Everything in the input plane that A does not name is NaN,
 * C's padding holds sentinels. */
static void indirect_a_case(int64_t M, int64_t K, int64_t P, int even, int tapstride, int epi,
                            int threads, int pxm)
{
    const int64_t ps = K * tapstride + 3; /* floats per pixel slot */
    /* C's rows: channels (M of P + 3 floats), or with pxm pixels (P of M + 3) */
    const int64_t rows = pxm ? P : M, cols = pxm ? M : P, slots = P + 5;
    const int64_t ldc = cols + 3, ldr = cols + 2;
    float *X = malloc((size_t)(slots * ps) * sizeof(float));
    float *W = malloc((size_t)(M * K) * sizeof(float));
    float *C = malloc((size_t)(rows * ldc) * sizeof(float));
    float *R = malloc((size_t)(rows * ldr) * sizeof(float));
    float *bias = malloc((size_t)M * sizeof(float));
    int64_t *pix = malloc((size_t)P * sizeof(int64_t)), *off = malloc((size_t)K * sizeof(int64_t));
    for (int64_t i = 0; i < slots * ps; i++)
        X[i] = NAN;
    for (int64_t k = 0; k < K; k++)
        off[k] = k * tapstride;
    for (int64_t q = 0; q < P; q++) /* uneven: slots in a scrambled order, with gaps */
        pix[q] = (even ? q + 1 : (q * 7 + 3) % (P + 5)) * ps;
    if (!even) /* (q * 7 + 3) mod (P + 5) repeats when 7 divides P + 5: make them distinct */
        for (int64_t q = 0; q < P; q++)
            for (int64_t r = 0; r < q; r++)
                if (pix[r] == pix[q]) {
                    pix[q] = (q + 1) * ps;
                    break;
                }
    for (int64_t q = 0; q < P; q++)
        for (int64_t k = 0; k < K; k++)
            X[pix[q] + off[k]] = (float)check_rng_uniform(&rng, -1, 1);
    check_fill_f32(&rng, W, M * K, -1, 1);
    check_fill_f32(&rng, R, rows * ldr, -1, 1);
    check_fill_f32(&rng, bias, M, -1, 1);
    for (int64_t i = 0; i < rows * ldc; i++)
        C[i] = SENTINEL;
    const size_t sz = gemm_f32_packed_b_size(K, M);
    void *Wp = base_aligned_alloc(sz, 64);
    CHECK_OK(gemm_f32_pack_b(1, K, M, W, K, Wp, sz));
    /* epi 0: none; 1: bias, clip (the projection of a block without a
     * residual); 2: bias, ReLU, scale, residual, post clip; 3: bias, GELU
     * (the general path) */
    gemm_epilogue_t e = {pxm ? GEMM_BIAS_COL : GEMM_BIAS_ROW, bias, GEMM_ACT_CLIP, -0.5f, 0.75f, 1.0f, NULL, 0,
                         GEMM_ACT_NONE, 0.0f, 0.0f};
    if (epi == 2)
        e.act = GEMM_ACT_RELU, e.scale = 0.5f, e.residual = R, e.ldr = ldr,
        e.post_act = GEMM_ACT_CLIP, e.post_lo = -0.25f, e.post_hi = 0.5f;
    if (epi == 3)
        e.act = GEMM_ACT_GELU_ERF;
    const gemm_inda_t a = {X, pix, P, off};
    kctx_t kx = {threads > 1 ? pool2 : NULL, threads};
    if (pxm)
        CHECK_OK(gemm_f32_packed_inda_px(&kx, M, K, Wp, &a, C, ldc, epi ? &e : NULL));
    else
        CHECK_OK(gemm_f32_packed_inda(&kx, M, K, Wp, &a, C, ldc, epi ? &e : NULL));
    char where[200] = "";
    for (int64_t i = 0; i < rows && !where[0]; i++)
        for (int64_t jc = 0; jc < ldc && !where[0]; jc++) {
            const float got = C[i * ldc + jc];
            if (jc >= cols) {
                if (got != SENTINEL)
                    snprintf(where, sizeof where, "padding C[%lld][%lld] overwritten",
                             (long long)i, (long long)jc);
                continue;
            }
            const int64_t m = pxm ? jc : i, q = pxm ? i : jc;
            double s = 0, sabs = 0;
            for (int64_t k = 0; k < K; k++) {
                const double t = (double)X[pix[q] + off[k]] * W[m * K + k];
                s += t, sabs += fabs(t);
            }
            double tol = 4.0 * (double)(K + 2) * ldexp(1.0, -24) * sabs + 1e-30;
            if (epi) {
                s += bias[m];
                const double mag = fabs(s);
                s = act_d(e.act, s, e.clip_lo, e.clip_hi) * e.scale;
                tol = (1.5 * tol + 4e-7 * (1 + mag)) * e.scale;
                if (e.residual)
                    s += R[i * ldr + jc];
                tol += 4e-7 * fabs(s);
                if (e.post_act != GEMM_ACT_NONE) {
                    const double pmag = fabs(s);
                    s = act_d(e.post_act, s, e.post_lo, e.post_hi);
                    tol = 1.5 * tol + 4e-7 * (1 + pmag);
                }
            }
            if (!(fabs(got - s) <= tol))
                snprintf(where, sizeof where, "C[%lld][%lld] = %.9g, want %.9g (tol %.3g)",
                         (long long)i, (long long)jc, got, s, tol);
        }
    CHECK_MSG(!where[0],
              "inda%s %s M=%lld K=%lld P=%lld even=%d tapstride=%d epi=%d threads=%d: %s",
              pxm ? "_px" : "", gemm_f32_variant_name(), (long long)M, (long long)K,
              (long long)P, even, tapstride, epi, threads, where);
    base_aligned_free(Wp);
    free(X), free(W), free(C), free(R), free(bias), free(pix), free(off);
}

static void indirect_a(void)
{
    if (!gemm_f32_inda_available())
        return;
    gemm_blocking_t bl;
    gemm_f32_blocking(gemm_f32_select(), &bl);
    const int64_t ms[] = {1, 8, 15, 16, 17, 23, 24, 25, 31, 32, 33, 40, 56};
    const int64_t ks[] = {1, 5, 16, 144, bl.kc + 7};
    const int64_t ps[] = {1, 13, 14, 15, 28, 29, 45};
    int i = 0;
    for (int mi = 0; mi < (int)(sizeof ms / sizeof ms[0]); mi++)
        for (int ki = 0; ki < (int)(sizeof ks / sizeof ks[0]); ki++)
            for (int pi = 0; pi < (int)(sizeof ps / sizeof ps[0]); pi++, i++)
                indirect_a_case(ms[mi], ks[ki], ps[pi], i % 3 != 0, 1 + (i % 4 == 1), i % 4,
                                1 + (i % 5 == 2), i % 7 < 3);
}

/* The residual given as C itself (gemm.h allows it): every path writes C
 * before its epilogue reads the residual (the first of several K blocks,
 * the GEMV's store), so the GEMM must read the old C first. Through the
 * public, pre-packed-B (tiles and the GEMV-like path) and pre-packed-A
 * entries, one K block and several, 1 and 2 threads, with an activation
 * before the add and one after. */
static void residual_in_place(void)
{
    const int64_t sizes[][3] = {{3, 70, 600}, {5, 33, 17}, {16, 100, 700},
                                {40, 31, 1000}, {130, 70, 300}, {1, 300, 2000}};
    for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); s++)
        for (int via = 0; via < 3; via++)
            for (int th = 1; th <= 2; th++) {
                const int64_t M = sizes[s][0], N = sizes[s][1], K = sizes[s][2];
                float *A = malloc(sizeof(float) * (size_t)(M * K));
                float *B = malloc(sizeof(float) * (size_t)(K * N));
                float *C = malloc(sizeof(float) * (size_t)(M * N));
                float *bias = malloc(sizeof(float) * (size_t)N);
                double *want = malloc(sizeof(double) * (size_t)(M * N));
                check_fill_f32(&rng, A, M * K, -1, 1);
                check_fill_f32(&rng, B, K * N, -1, 1);
                check_fill_f32(&rng, C, M * N, -1, 1);
                check_fill_f32(&rng, bias, N, -1, 1);
                gemm_epilogue_t e = {GEMM_BIAS_COL, bias, GEMM_ACT_CLIP, -2.0f, 2.0f, 0.5f, C, N,
                                     GEMM_ACT_RELU, 0, 0};
                for (int64_t i = 0; i < M; i++)
                    for (int64_t j = 0; j < N; j++) {
                        double d = 0;
                        for (int64_t k = 0; k < K; k++)
                            d += (double)A[i * K + k] * (double)B[k * N + j];
                        d = act_d(GEMM_ACT_CLIP, d + bias[j], -2.0, 2.0) * 0.5 + C[i * N + j];
                        want[i * N + j] = d > 0 ? d : 0;
                    }
                kctx_t kc = {th > 1 ? pool2 : NULL, th};
                void *pk = NULL;
                if (via == 0) {
                    gemm_f32_ex(&kc, 0, 0, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N, &e);
                } else if (via == 1) {
                    size_t sz = gemm_f32_packed_b_size(K, N);
                    pk = base_aligned_alloc(sz, 64);
                    CHECK_OK(gemm_f32_pack_b(0, K, N, B, N, pk, sz));
                    CHECK_OK(gemm_f32_packed(&kc, 0, M, N, K, 1.0f, A, K, pk, 0.0f, C, N, &e));
                } else {
                    size_t sz = gemm_f32_packed_a_size(M, K);
                    pk = base_aligned_alloc(sz, 64);
                    CHECK_OK(gemm_f32_prepack_a(0, M, K, A, K, pk, sz));
                    CHECK_OK(gemm_f32_packed_a(&kc, 0, M, N, K, 1.0f, pk, B, N, 0.0f, C, N, &e));
                }
                char what[96];
                snprintf(what, sizeof what, "residual == C, %lldx%lldx%lld, entry %d, %d threads",
                         (long long)M, (long long)N, (long long)K, via, th);
                check_close_f32(C, want, M * N, 1e-5 + 3e-7 * (double)K, 1e-5, what);
                base_aligned_free(pk);
                free(A), free(B), free(C), free(bias), free(want);
            }
}

/* Strided batch: each item against the plain GEMM checked above. */
static void batched(void)
{
    const int64_t M = 19, N = 35, K = 40, batch = 5;
    for (int mode = 0; mode < 4; mode++) {
        int ta = mode & 1, tb = mode >> 1;
        int64_t lda = (ta ? M : K) + 1, ldb = (tb ? K : N) + 2, ldc = N + 3;
        int64_t sa = (ta ? K : M) * lda, sb = (tb ? N : K) * ldb, sc = M * ldc + 5, sr = M * N;
        if (mode == 1)
            sa = 0; /* A broadcast over the batch */
        float *A = malloc((size_t)(sa ? sa * batch : (ta ? K : M) * lda) * sizeof(float));
        float *B = malloc((size_t)(sb * batch) * sizeof(float));
        float *C = malloc((size_t)(sc * batch) * sizeof(float));
        float *W = malloc((size_t)(sc * batch) * sizeof(float));
        float *R = malloc((size_t)(sr * batch) * sizeof(float));
        float bias[64];
        check_fill_f32(&rng, A, sa ? sa * batch : (ta ? K : M) * lda, -1, 1);
        check_fill_f32(&rng, B, sb * batch, -1, 1);
        check_fill_f32(&rng, C, sc * batch, -1, 1);
        check_fill_f32(&rng, R, sr * batch, -1, 1);
        check_fill_f32(&rng, bias, 64, -1, 1);
        memcpy(W, C, (size_t)(sc * batch) * sizeof(float));
        gemm_epilogue_t e = {GEMM_BIAS_COL, bias, GEMM_ACT_RELU, 0, 0, 1, R, N,
                             mode == 3 ? GEMM_ACT_CLIP : GEMM_ACT_NONE, 0.1f, 0.8f};
        const gemm_epilogue_t *ep = mode >= 2 ? &e : NULL;
        kctx_t k = {mode % 2 ? pool2 : NULL, mode % 2 ? 2 : 1};
        gemm_f32_batched(&k, ta, tb, M, N, K, 0.5f, A, lda, sa, B, ldb, sb, 0.25f, C, ldc, sc,
                         batch, ep, ep ? sr : 0);
        /* the same items one by one through gemm_f32_ex (checked in the sweep) */
        for (int64_t b = 0; b < batch; b++) {
            gemm_epilogue_t eb = e;
            eb.residual = R + b * sr;
            gemm_f32_ex(NULL, ta, tb, M, N, K, 0.5f, A + b * sa, lda, B + b * sb, ldb, 0.25f,
                        W + b * sc, ldc, ep ? &eb : NULL);
        }
        int same = 1;
        for (int64_t i = 0; i < sc * batch; i++)
            if (fabsf(C[i] - W[i]) > 1e-5f * (1 + fabsf(W[i])))
                same = 0;
        CHECK_MSG(same, "batched mode %d differs from item-by-item GEMMs", mode);
        free(A), free(B), free(C), free(W), free(R);
    }
}

/* gemm_f32_packed_then: every element of C lies in exactly one block the
 * hook is given, the hook sees its block complete (it checks it against a
 * double-precision product then and there), on 1 and 2 threads, over
 * shapes whose grids split M (K long, N narrow), N (N wide) and neither
 * (few tiles); op(A) transposed and not. */
typedef struct then_ctx {
    const float *A, *B, *C;
    int64_t M, N, K, lda, ldc;
    int ta;
    int *seen; /* M x N hit counts */
    int bad, calls;
    pthread_mutex_t mu;
} then_ctx_t;

static void then_check(void *ctx, int64_t m0, int64_t m1, int64_t n0, int64_t n1)
{
    then_ctx_t *t = ctx;
    int bad = 0;
    for (int64_t i = m0; i < m1; i++)
        for (int64_t j = n0; j < n1; j++) {
            double s = 0, sabs = 0;
            for (int64_t k = 0; k < t->K; k++) {
                double a = t->ta ? t->A[k * t->lda + i] : t->A[i * t->lda + k];
                double p = a * (double)t->B[k * t->N + j];
                s += p;
                sabs += fabs(p);
            }
            if (fabs(t->C[i * t->ldc + j] - s) > 4.0 * (double)(t->K + 2) * ldexp(1.0, -24) * sabs)
                bad++;
        }
    pthread_mutex_lock(&t->mu);
    t->calls++;
    t->bad += bad;
    for (int64_t i = m0; i < m1; i++)
        for (int64_t j = n0; j < n1; j++)
            t->seen[i * t->N + j]++;
    pthread_mutex_unlock(&t->mu);
}

static void packed_then(void)
{
    static const int64_t shapes[][3] = {
        {196, 256, 1024}, {196, 1024, 256}, {49, 512, 2048}, {5, 40, 7}, {1, 33, 3}, {30, 700, 70}};
    check_rng_t trng = {4242};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int threads = 1; threads <= 2; threads++)
            for (int ta = 0; ta <= 1; ta++) {
                const int64_t M = shapes[si][0], N = shapes[si][1], K = shapes[si][2];
                const int64_t lda = (ta ? M : K) + 3, ldc = N + 5;
                float *A = malloc(sizeof(float) * (size_t)((ta ? K : M) * lda));
                float *B = malloc(sizeof(float) * (size_t)(K * N));
                float *C = malloc(sizeof(float) * (size_t)(M * ldc));
                int *seen = calloc((size_t)(M * N), sizeof(int));
                check_fill_f32(&trng, A, (ta ? K : M) * lda, -1, 1);
                check_fill_f32(&trng, B, K * N, -1, 1);
                size_t sz = gemm_f32_packed_b_size(K, N);
                void *pk = base_aligned_alloc(sz, 64);
                CHECK_OK(gemm_f32_pack_b(0, K, N, B, N, pk, sz));
                then_ctx_t t = {A, B, C, M, N, K, lda, ldc, ta, seen, 0, 0,
                                PTHREAD_MUTEX_INITIALIZER};
                kctx_t kc = {threads > 1 ? pool2 : NULL, threads};
                CHECK_OK(gemm_f32_packed_then(&kc, ta, M, N, K, A, lda, pk, C, ldc, then_check, &t));
                int64_t wrong = 0;
                for (int64_t i = 0; i < M * N; i++)
                    wrong += seen[i] != 1;
                CHECK_MSG(t.bad == 0 && wrong == 0 && t.calls >= 1 && t.calls <= threads,
                          "packed_then %lldx%lldx%lld ta %d, %d threads: %d wrong in the hook, "
                          "%lld elements not in exactly one block, %d calls",
                          (long long)M, (long long)N, (long long)K, ta, threads, t.bad,
                          (long long)wrong, t.calls);
                base_aligned_free(pk);
                free(A), free(B), free(C), free(seen);
            }
    CHECK(gemm_f32_packed_then(NULL, 0, 2, 2, 2, NULL, 2, NULL, NULL, 2, NULL, NULL) ==
          CAIRN_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    CHECK_OK(base_pool_create(2, &pool2));
    cairn_isa_t level = base_isa_select(CAIRN_ISA_AUTO);
    printf("ISA level %s, gemm_f32 uses %s\n", cairn_isa_name(level), gemm_f32_variant_name());
    const gemm_f32_variant_t *done[8];
    int nd = 0;
    for (cairn_isa_t cap = level; cap >= CAIRN_ISA_REF; cap--) {
        const gemm_f32_variant_t *v = gemm_f32_variant_for(cap);
        int seen = 0;
        for (int i = 0; i < nd; i++)
            seen |= done[i] == v;
        if (seen)
            continue;
        done[nd++] = v;
        printf("variant %s (MR=%d NR=%d)\n", v->name, v->mr, v->nr);
        sweep_variant(v);
        epilogues(v);
        /* A packed by a pass, by the tiles, read in place: every mode,
         * also those the CPU would not pick (the modes need uk_packa) */
        for (int mode = 0; v->uk_packa && mode <= 2; mode++) {
            gemm_f32_set_tile_pack_a(mode);
            tile_packing(v);
        }
        gemm_f32_set_tile_pack_a(-1);
        /* B packed by the tiles: both store forms, also the one the CPU
         * would not pick (A the CPU's mode: with the one B form it picks,
         * these are the defaults' run) */
        for (int ymm = 0; v->uk_packb && ymm <= 1; ymm++) {
            gemm_f32_set_packb_ymm(ymm);
            tile_packing(v);
        }
        gemm_f32_set_packb_ymm(-1);
        /* a variant with neither runs the cases once, as they are */
        if (!v->uk_packa && !v->uk_packb)
            tile_packing(v);
    }
    CHECK(gemm_f32_select()->isa <= level);
    public_paths();
    residual_in_place();
    indirect_a();
    batched();
    packed_then();
    base_pool_destroy(pool2);
    return check_finish("test_gemm_f32");
}
