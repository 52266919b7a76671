/* The quant family's fast kernels against their references, bit for bit.
 * quant_quantize / quant_dequantize (QuantizeLinear / DequantizeLinear):
 * per tensor and per axis, NaN, infinities, ties, saturation.
 * quant_requantize (QLinearConv's requantisation of int32 sums): u8 / i8,
 * bias, zero, infinite and NaN multipliers, sums at int32's extremes.
 * quant_dynamic (DynamicQuantizeLinear): lengths around its 4- and
 * 16-element steps, mixed signs, one-signed and all-zero inputs, NaN and
 * infinities, values at the rounding ties. quant_matmul (MatMulInteger /
 * QLinearMatMul through the int8 GEMM) against quant_matmul_ref: every A / B type pair (u8 / i8,
 * so the sign flips on both operands), MatMulInteger's i32 output and
 * QLinearMatMul's u8 / i8, zero points absent / scalar / one per row of A
 * and per column of B, scales scalar and per row / column, sizes around
 * the GEMM's tile (14 x 32) and K groups (4) and past its K block (2048),
 * 1 and 2 threads; operands at their extremes with K = 32768 (the longest
 * K the GEMM path takes: its int32 sums at their largest) and just past it
 * (the reference); a multiplier of 0 times infinity (NaN: stored 0) and
 * saturating ones. quant_matmul_f32 (FusedMatMulInteger: dequantised sums
 * through the f32 epilogue) against the reference's sums and an epilogue
 * in double. Run under CAIRN_ISA=ref/avx2/avx512/avx512_bf16 by
 * ctest (the VNNI, 16-bit-pair and reference int8 kernels). */
#include "base/alloc.h"
#include "base/threadpool.h"
#include "check.h"
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static check_rng_t rng = {0x5eed};
static base_pool_t *pool2;

static int64_t rnd(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(check_rng_next(&rng) % (uint64_t)(hi - lo + 1));
}

/* mode 0: random; +1 / -1: every element the type's largest / smallest */
static void fill_q(cairn_dtype_t t, void *p, int64_t n, int mode)
{
    for (int64_t i = 0; i < n; i++) {
        if (t == CAIRN_U8)
            ((uint8_t *)p)[i] = mode ? (mode > 0 ? 255 : 0) : (uint8_t)rnd(0, 255);
        else
            ((int8_t *)p)[i] = mode ? (int8_t)(mode > 0 ? 127 : -128) : (int8_t)rnd(-128, 127);
    }
}

static const char *tname(cairn_dtype_t t)
{
    return t == CAIRN_U8 ? "u8" : t == CAIRN_I8 ? "i8" : "i32";
}

/* zp: 0 none, 1 scalar, 2 per row / column, 3 A's alone (scalar: a
 * dynamically quantised activation against symmetric weights); sc: the
 * scales scalar (1) or per row / column (2) */
static int run_case(cairn_dtype_t at, cairn_dtype_t bt, cairn_dtype_t yt, int64_t M, int64_t K,
                    int64_t N, int zp, int sc, int threads, int extreme)
{
    quant_mm_params_t p;
    memset(&p, 0, sizeof p);
    p.M = M, p.K = K, p.N = N, p.at = at, p.bt = bt, p.yt = yt;
    void *A = malloc((size_t)(M * K)), *B = malloc((size_t)(K * N));
    uint8_t azp[512], bzp[512], yzp[1];
    float as[512], bs[512];
    /* extreme +1 / -1: every (a - za)(b - zb) = +-255^2 */
    fill_q(at, A, M * K, extreme ? 1 : 0);
    fill_q(bt, B, K * N, extreme);
    if (zp) {
        fill_q(at, azp, zp == 2 ? M : 1, extreme ? -1 : 0);
        fill_q(bt, bzp, zp == 2 ? N : 1, -extreme);
        p.azp = azp, p.bzp = zp == 3 ? NULL : bzp, p.azp_vec = zp == 2, p.bzp_vec = zp == 2;
    }
    if (yt != CAIRN_DTYPE_UNDEFINED) {
        for (int i = 0; i < 512; i++)
            as[i] = (float)check_rng_uniform(&rng, 1e-4, 2e-3),
            bs[i] = (float)check_rng_uniform(&rng, 1e-3, 3e-2);
        p.as = as, p.bs = bs, p.as_vec = sc == 2, p.bs_vec = sc == 2;
        p.ys = (float)check_rng_uniform(&rng, 1e-3, 1e-2);
        fill_q(yt, yzp, 1, 0);
        p.yzp = yzp;
    }
    const size_t ysz = yt == CAIRN_DTYPE_UNDEFINED ? 4 : 1;
    char *want = malloc(ysz * (size_t)(M * N)), *got = malloc(ysz * (size_t)(M * N));
    memset(got, 0x5a, ysz * (size_t)(M * N));
    CHECK_OK(quant_matmul_ref(&p, A, B, want));
    kctx_t k = {threads > 1 ? pool2 : NULL, threads};
    CHECK_OK(quant_matmul(&k, &p, A, B, got));
    int ok = memcmp(want, got, ysz * (size_t)(M * N)) == 0;
    if (!ok) {
        int64_t e = 0;
        while (memcmp(want + e * ysz, got + e * ysz, ysz) == 0)
            e++;
        CHECK_MSG(0, "A %s B %s Y %s M=%lld K=%lld N=%lld zp %d scales %d threads %d extreme %d: "
                     "first difference at [%lld][%lld]",
                  tname(at), tname(bt), yt == CAIRN_DTYPE_UNDEFINED ? "i32" : tname(yt),
                  (long long)M, (long long)K, (long long)N, zp, sc, threads, extreme,
                  (long long)(e / N), (long long)(e % N));
    }
    /* QLinearMatMul's requantising form as fuse_qdq makes it
     * (FusedMatMulInteger requant = 1: quant_matmul_q8, one multiplier sa
     * sb / sy formed in f32, B as given and packed ahead): the reference's
     * bytes, wherever the scales are one value each and K takes the GEMM */
    if (yt != CAIRN_DTYPE_UNDEFINED && sc == 1 && zp != 2 && quant_matmul_fast(K)) {
        const float m = as[0] * bs[0] / p.ys;
        quant_mm_params_t q = p;
        q.yt = CAIRN_DTYPE_UNDEFINED, q.as = q.bs = NULL;
        memset(got, 0x5a, (size_t)(M * N));
        CHECK_OK(quant_matmul_q8(&k, &q, A, B, 0, &m, QUANT_SCALE_ONE, NULL, yzp, yt, got));
        int q8 = memcmp(want, got, (size_t)(M * N)) == 0;
        const size_t psz = quant_packed_b_size(K, N);
        void *pb = base_aligned_alloc(psz, 64);
        CHECK_OK(quant_pack_b(bt, K, N, B, pb, psz));
        memset(got, 0x5a, (size_t)(M * N));
        q.bt = CAIRN_U8; /* the buffer's type, as FusedMatMulInteger passes it: B's own is in it */
        CHECK_OK(quant_matmul_q8(&k, &q, A, pb, 1, &m, QUANT_SCALE_ONE, NULL, yzp, yt, got));
        q8 += 2 * (memcmp(want, got, (size_t)(M * N)) == 0);
        CHECK_MSG(q8 == 3, "A %s B %s Y %s M=%lld K=%lld N=%lld zp %d: quant_matmul_q8 %s differs",
                  tname(at), tname(bt), tname(yt), (long long)M, (long long)K, (long long)N, zp,
                  q8 == 2 ? "(B as given)" : q8 == 1 ? "(B packed)" : "(both)");
        base_aligned_free(pb);
        ok = ok && q8 == 3;
    }
    free(A), free(B), free(want), free(got);
    return ok;
}

static void test_combinations(void)
{
    const cairn_dtype_t qt[2] = {CAIRN_U8, CAIRN_I8};
    const cairn_dtype_t yts[3] = {CAIRN_DTYPE_UNDEFINED, CAIRN_U8, CAIRN_I8};
    int fails = 0;
    for (int ia = 0; ia < 2; ia++)
        for (int ib = 0; ib < 2; ib++)
            for (int iy = 0; iy < 3; iy++)
                for (int zp = 0; zp < 4; zp++)
                    fails += !run_case(qt[ia], qt[ib], yts[iy], rnd(1, 40), rnd(1, 70), rnd(1, 70),
                                       zp, 1 + (zp & 1), 1 + (zp == 1), 0);
    CHECK_MSG(fails == 0, "%d type / zero point combinations differ", fails);
}

static void test_sizes(void)
{
    static const int64_t sz[] = {1, 2, 3, 4, 5, 13, 14, 15, 16, 31, 32, 33, 127};
    static const int64_t ks[] = {1, 3, 4, 5, 63, 64, 65, 255, 2047, 2048, 2049, 4100};
    const int ns = (int)(sizeof sz / sizeof sz[0]), nk = (int)(sizeof ks / sizeof ks[0]);
    int fails = 0;
    for (int i = 0; i < ns; i++) {
        fails += !run_case(CAIRN_U8, CAIRN_I8, CAIRN_DTYPE_UNDEFINED, sz[i], rnd(1, 50), rnd(1, 50),
                           1, 1, 1 + (i & 1), 0);
        fails += !run_case(CAIRN_I8, CAIRN_U8, CAIRN_U8, rnd(1, 50), rnd(1, 50), sz[i], 2, 2,
                           1 + (i & 1), 0);
    }
    for (int i = 0; i < nk; i++)
        fails += !run_case(i & 1 ? CAIRN_I8 : CAIRN_U8, i & 2 ? CAIRN_U8 : CAIRN_I8,
                           i % 3 == 0 ? CAIRN_I8 : CAIRN_DTYPE_UNDEFINED, rnd(1, 30), ks[i],
                           rnd(1, 40), 1 + (i & 1), 1 + (i & 1), 1 + (i & 1), 0);
    /* a block large enough for the pool's rows and the GEMM's threads */
    fails += !run_case(CAIRN_U8, CAIRN_I8, CAIRN_U8, 200, 300, 257, 2, 2, 2, 0);
    fails += !run_case(CAIRN_I8, CAIRN_I8, CAIRN_DTYPE_UNDEFINED, 150, 129, 300, 1, 1, 2, 0);
    CHECK_MSG(fails == 0, "%d sizes differ", fails);
}

/* the int32 sums at their largest: K = 32768 of 255 x -128 (u8 x i8) or
 * -128 x -128 with zero points at the far end; one past it the reference */
static void test_extremes(void)
{
    int fails = 0;
    for (int e = -1; e <= 1; e += 2) {
        fails += !run_case(CAIRN_U8, CAIRN_I8, CAIRN_DTYPE_UNDEFINED, 2, 32768, 3, 1, 1, 1, e);
        fails += !run_case(CAIRN_I8, CAIRN_I8, CAIRN_DTYPE_UNDEFINED, 3, 32768, 2, 1, 1, 2, e);
        fails += !run_case(CAIRN_I8, CAIRN_U8, CAIRN_I8, 2, 32768, 2, 2, 2, 1, e);
        fails += !run_case(CAIRN_U8, CAIRN_U8, CAIRN_DTYPE_UNDEFINED, 2, 32769, 2, 1, 1, 1, e);
    }
    CHECK_MSG(fails == 0, "%d extreme cases differ", fails);
}

/* multipliers of 0 x inf (NaN: the reference stores 0) and inf (saturate) */
static void test_odd_scales(void)
{
    quant_mm_params_t p;
    memset(&p, 0, sizeof p);
    p.M = 3, p.K = 5, p.N = 4, p.at = CAIRN_U8, p.bt = CAIRN_I8, p.yt = CAIRN_U8;
    uint8_t A[15], want[12], got[12], yz = 3;
    int8_t B[20];
    for (int i = 0; i < 15; i++)
        A[i] = (uint8_t)(i * 17);
    for (int i = 0; i < 20; i++)
        B[i] = (int8_t)(i * 13 - 100);
    float as[3] = {0.0f, 1.0f, -1.0f}, bs = INFINITY;
    p.as = as, p.as_vec = 1, p.bs = &bs, p.ys = 1.0f, p.yzp = &yz;
    kctx_t k = {NULL, 1};
    CHECK_OK(quant_matmul_ref(&p, A, B, want));
    CHECK_OK(quant_matmul(&k, &p, A, B, got));
    CHECK_MSG(memcmp(want, got, sizeof want) == 0, "0 x inf / inf multipliers differ");
}

static int dyn_case(const float *x, int64_t n, const char *what)
{
    uint8_t *yw = malloc((size_t)n + 1), *yg = malloc((size_t)n + 1);
    float sw, sg;
    uint8_t zw, zg;
    memset(yg, 0xa5, (size_t)n + 1);
    quant_dynamic_ref(x, n, yw, &sw, &zw);
    kctx_t k = {n > 20000 ? pool2 : NULL, n > 20000 ? 2 : 1};
    quant_dynamic(&k, x, n, yg, &sg, &zg);
    int ok = memcmp(&sw, &sg, sizeof sw) == 0 && zw == zg && memcmp(yw, yg, (size_t)n) == 0 &&
             yg[n] == 0xa5;
    if (!ok) {
        int64_t e = 0;
        while (e < n && yw[e] == yg[e])
            e++;
        CHECK_MSG(0, "quant_dynamic %s n=%lld: scale %.9g / %.9g, zp %d / %d, first y "
                     "difference at %lld (x %.9g: %d / %d), sentinel %d",
                  what, (long long)n, (double)sw, (double)sg, zw, zg, (long long)e,
                  e < n ? (double)x[e] : 0.0, e < n ? yw[e] : 0, e < n ? yg[e] : 0, yg[n]);
    }
    free(yw), free(yg);
    return ok;
}

static void test_dynamic(void)
{
    /* past 2 x 16K: the pool's chunks (the last one short) */
    static const int64_t ns[] = {1, 2, 3, 4, 5, 7, 15, 16, 17, 31, 33, 100, 1000, 4099, 50001};
    const int nn = (int)(sizeof ns / sizeof ns[0]);
    float *x = malloc(sizeof(float) * 50001);
    int fails = 0;
    for (int t = 0; t < nn; t++)
        for (int kind = 0; kind < 7; kind++) {
            const int64_t n = ns[t];
            for (int64_t i = 0; i < n; i++) {
                double u = check_rng_uniform(&rng, -1, 1);
                switch (kind) {
                case 0: x[i] = (float)(u * 3.0); break;             /* mixed signs */
                case 1: x[i] = (float)(fabs(u) * 7.0 + 0.5); break; /* positive only */
                case 2: x[i] = (float)(-fabs(u) * 0.01); break;     /* negative only */
                case 3: x[i] = 0.0f; break;                         /* all zero */
                case 4: /* on the grid of steps and between them (rounding ties) */
                    x[i] = (float)((double)rnd(-255, 255) * 0.5 * (2.0 / 255.0));
                    break;
                case 5: /* NaNs among them, one in the last 4-wide step */
                    x[i] = i == n / 2 || i == n / 4 * 4 - 1 ? NAN : (float)u;
                    break;
                default: /* an infinity among them */
                    x[i] = i == n / 3 ? (i & 1 ? -INFINITY : INFINITY) : (float)u;
                    break;
                }
            }
            char what[32];
            snprintf(what, sizeof what, "kind %d", kind);
            fails += !dyn_case(x, n, what);
        }
    free(x);
    CHECK_MSG(fails == 0, "%d DynamicQuantizeLinear cases differ", fails);
}

/* quant_quantize / quant_dequantize (QuantizeLinear, DequantizeLinear)
 * against their references bit for bit: per tensor and per axis (runs of
 * one channel that start and end inside the pool's chunks), u8 and i8,
 * zero points present or not, values on and between the steps (rounding
 * ties), past the type's range, NaN and infinities. */
static int qdq_case(int64_t outer, int64_t C, int64_t inner, cairn_dtype_t qt, int zp, int threads)
{
    const int64_t n = outer * C * inner;
    quant_axis_t ax = {outer, C, inner};
    float *x = malloc(sizeof(float) * (size_t)n), *sc = malloc(sizeof(float) * (size_t)C);
    uint8_t *zpv = malloc((size_t)C), *qw = malloc((size_t)n + 1), *qg = malloc((size_t)n + 1);
    float *fw = malloc(sizeof(float) * (size_t)n), *fg = malloc(sizeof(float) * (size_t)n + 4);
    for (int64_t c = 0; c < C; c++) /* some scales whose reciprocal rounds far (0.1) */
        sc[c] = c % 3 == 0 ? 0.1f : c % 3 == 1 ? 6.1e-3f : (float)check_rng_uniform(&rng, 0.01, 0.1);
    fill_q(qt, zpv, C, 0);
    for (int64_t i = 0; i < n; i++) {
        const int64_t c = (i / inner) % C, kind = i % 11;
        const double u = check_rng_uniform(&rng, -1, 1);
        x[i] = kind == 0   ? (float)((double)rnd(-300, 300) * 0.5 * sc[c]) /* ties */
               : kind == 4 ? ((float)rnd(-300, 300) + 0.5f) * sc[c] /* within an ulp of them */
               : kind == 5 ? nextafterf(((float)rnd(-300, 300) + 0.5f) * sc[c],
                                        i & 2 ? INFINITY : -INFINITY)
               : kind == 1 ? (float)(u * 1e3)                               /* saturates */
               : kind == 2 && i % 7 == 0 ? NAN
               : kind == 3 && i % 5 == 0 ? (i & 1 ? INFINITY : -INFINITY)
                                         : (float)(u * 4.0);
    }
    kctx_t k = {threads > 1 ? pool2 : NULL, threads};
    quant_quantize_ref(CAIRN_F32, x, sc, zp ? zpv : NULL, qt, qw, &ax);
    qg[n] = 0xa5;
    quant_quantize(&k, CAIRN_F32, x, sc, zp ? zpv : NULL, qt, qg, &ax);
    int ok = memcmp(qw, qg, (size_t)n) == 0 && qg[n] == 0xa5;
    quant_dequantize_ref(qt, qw, sc, zp ? zpv : NULL, fw, &ax);
    fg[n] = 12345.0f;
    quant_dequantize(&k, qt, qw, sc, zp ? zpv : NULL, fg, &ax);
    ok = ok && memcmp(fw, fg, sizeof(float) * (size_t)n) == 0 && fg[n] == 12345.0f;
    CHECK_MSG(ok, "QuantizeLinear / DequantizeLinear %s outer %lld C %lld inner %lld zp %d "
                  "threads %d differ from the references",
              tname(qt), (long long)outer, (long long)C, (long long)inner, zp, threads);
    free(x), free(sc), free(zpv), free(qw), free(qg), free(fw), free(fg);
    return ok;
}

static void test_qdq(void)
{
    int fails = 0;
    for (int t = 0; t < 2; t++) {
        const cairn_dtype_t qt = t ? CAIRN_I8 : CAIRN_U8;
        fails += !qdq_case(1, 1, 1, qt, 1, 1);
        fails += !qdq_case(1, 1, 37, qt, 0, 1);
        fails += !qdq_case(1, 1, 100003, qt, 1, 2); /* per tensor, several chunks */
        fails += !qdq_case(3, 5, 17, qt, 1, 1);     /* per axis, short runs */
        fails += !qdq_case(2, 7, 9001, qt, t, 2);   /* runs across chunk edges */
    }
    CHECK_MSG(fails == 0, "%d QuantizeLinear / DequantizeLinear cases differ", fails);
}

/* quant_matmul_f32 (FusedMatMulInteger's kernel) against the reference's
 * int32 sums dequantised and put through the epilogue in double here:
 * v = act(acc * scale + bias) * alpha + residual, then the post-activation.
 * Scales one value and per column, the activations and clip bounds of the
 * f32 epilogue, with and without bias / residual, 1 and 2 threads, K past
 * the GEMM path (the reference's sums then). */
static double act_ref(gemm_act_t a, double v, double lo, double hi)
{
    switch (a) {
    case GEMM_ACT_RELU: return v < 0 ? 0 : v;
    case GEMM_ACT_GELU_ERF: return 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
    case GEMM_ACT_CLIP: return v < lo ? lo : v > hi ? hi : v;
    default: return v;
    }
}

static int f32_case(cairn_dtype_t at, cairn_dtype_t bt, int64_t M, int64_t K, int64_t N,
                    int scale_vec, gemm_act_t act, int bias, int resid, gemm_act_t post,
                    int threads)
{
    quant_mm_params_t p;
    memset(&p, 0, sizeof p);
    p.M = M, p.K = K, p.N = N, p.at = at, p.bt = bt, p.yt = CAIRN_DTYPE_UNDEFINED;
    void *A = malloc((size_t)(M * K)), *B = malloc((size_t)(K * N));
    uint8_t azp = 0, bzp = 0;
    fill_q(at, A, M * K, 0);
    fill_q(bt, B, K * N, 0);
    fill_q(at, &azp, 1, 0);
    fill_q(bt, &bzp, 1, 0);
    p.azp = &azp, p.bzp = &bzp;
    float *sc = malloc(sizeof(float) * (size_t)N), *bi = malloc(sizeof(float) * (size_t)N);
    float *res = malloc(sizeof(float) * (size_t)(M * N)), *y = malloc(sizeof(float) * (size_t)(M * N));
    int32_t *acc = malloc(sizeof(int32_t) * (size_t)(M * N));
    for (int64_t n = 0; n < N; n++)
        sc[n] = (float)check_rng_uniform(&rng, 1e-5, 4e-5), bi[n] = (float)check_rng_uniform(&rng, -1, 1);
    check_fill_f32(&rng, res, M * N, -1, 1);
    gemm_epilogue_t e;
    memset(&e, 0, sizeof e);
    e.scale = 1.0f, e.act = act, e.clip_lo = -0.5f, e.clip_hi = 0.75f;
    e.post_act = post, e.post_lo = -0.25f, e.post_hi = 1.0f;
    if (bias)
        e.bias = bi, e.bias_kind = GEMM_BIAS_COL;
    if (resid)
        e.residual = res, e.ldr = N;
    CHECK_OK(quant_matmul_ref(&p, A, B, acc));
    memset(y, 0xff, sizeof(float) * (size_t)(M * N));
    kctx_t k = {threads > 1 ? pool2 : NULL, threads};
    CHECK_OK(quant_matmul_f32(&k, &p, A, B, 0, sc, scale_vec, &e, y));
    /* B packed ahead (the prepack pass's form): the same bits */
    const size_t psz = quant_packed_b_size(K, N);
    void *pb = base_aligned_alloc(psz, 64);
    float *yp = malloc(sizeof(float) * (size_t)(M * N));
    if (quant_matmul_fast(K)) {
        CHECK_OK(quant_pack_b(bt, K, N, B, pb, psz));
        memset(yp, 0xff, sizeof(float) * (size_t)(M * N));
        CHECK_OK(quant_matmul_f32(&k, &p, A, pb, 1, sc, scale_vec, &e, yp));
        CHECK_MSG(memcmp(y, yp, sizeof(float) * (size_t)(M * N)) == 0,
                  "quant_matmul_f32 with B packed ahead differs: M=%lld K=%lld N=%lld",
                  (long long)M, (long long)K, (long long)N);
    } else {
        CHECK_FAILS(quant_pack_b(bt, K, N, B, pb, psz), CAIRN_ERR_INVALID_ARGUMENT, "K in");
    }
    base_aligned_free(pb);
    free(yp);
    double worst = 0;
    for (int64_t i = 0; i < M; i++)
        for (int64_t n = 0; n < N; n++) {
            double v = (double)((float)acc[i * N + n] * sc[scale_vec ? n : 0]);
            v = act_ref(act, v + (bias ? bi[n] : 0.0), e.clip_lo, e.clip_hi);
            v = act_ref(post, v + (resid ? res[i * N + n] : 0.0), e.post_lo, e.post_hi);
            const double err = fabs((double)y[i * N + n] - v) / (fabs(v) > 1 ? fabs(v) : 1);
            if (!(err <= worst))
                worst = err;
        }
    CHECK_MSG(worst <= 2e-6,
              "quant_matmul_f32 A %s B %s M=%lld K=%lld N=%lld scale_vec %d act %d bias %d "
              "residual %d post %d threads %d: max error %g",
              tname(at), tname(bt), (long long)M, (long long)K, (long long)N, scale_vec, (int)act,
              bias, resid, (int)post, threads, worst);
    free(A), free(B), free(sc), free(bi), free(res), free(y), free(acc);
    return worst <= 2e-6;
}

/* a packed B that is not what quant_pack_b made for this call is refused
 * before anything reads it: another magic, another K, a corrupted kc in
 * the GEMM's header (what a model naming the internal op could pass) */
static void test_bad_packed(void)
{
    const int64_t M = 4, K = 64, N = 40;
    uint8_t A[4 * 64];
    int8_t B[64 * 40];
    fill_q(CAIRN_U8, A, M * K, 0);
    fill_q(CAIRN_I8, B, K * N, 0);
    const size_t sz = quant_packed_b_size(K, N);
    char *pb = base_aligned_alloc(sz, 64);
    float sc = 0.01f, y[4 * 40];
    quant_mm_params_t p;
    memset(&p, 0, sizeof p);
    p.M = M, p.K = K, p.N = N, p.at = CAIRN_U8, p.bt = CAIRN_I8, p.yt = CAIRN_DTYPE_UNDEFINED;
    kctx_t k = {NULL, 1};
    CHECK_OK(quant_pack_b(CAIRN_I8, K, N, B, pb, sz));
    CHECK_OK(quant_matmul_f32(&k, &p, A, pb, 1, &sc, 0, NULL, y));
    quant_mm_params_t q = p;
    q.K = K - 4;
    CHECK_FAILS(quant_matmul_f32(&k, &q, A, pb, 1, &sc, 0, NULL, y), CAIRN_ERR_INVALID_ARGUMENT,
                "quant_pack_b");
    /* the GEMM's header after the quant header (64 bytes) and the column
     * sums (N int32, padded to 64): its kc at byte 24 */
    int64_t kc;
    char *g = pb + 64 + (N * 4 + 63) / 64 * 64;
    memcpy(&kc, g + 24, sizeof kc);
    kc += 8;
    memcpy(g + 24, &kc, sizeof kc);
    CHECK_FAILS(quant_matmul_f32(&k, &p, A, pb, 1, &sc, 0, NULL, y), CAIRN_ERR_INVALID_ARGUMENT,
                "layout");
    pb[0] ^= 1;
    CHECK_FAILS(quant_matmul_f32(&k, &p, A, pb, 1, &sc, 0, NULL, y), CAIRN_ERR_INVALID_ARGUMENT,
                "quant_pack_b");
    base_aligned_free(pb);
}

static void test_dequantised(void)
{
    int fails = 0;
    fails += !f32_case(CAIRN_U8, CAIRN_I8, 37, 70, 45, 0, GEMM_ACT_NONE, 0, 0, GEMM_ACT_NONE, 1);
    fails += !f32_case(CAIRN_U8, CAIRN_I8, 128, 384, 200, 1, GEMM_ACT_GELU_ERF, 1, 0,
                       GEMM_ACT_NONE, 2);
    fails += !f32_case(CAIRN_I8, CAIRN_U8, 15, 33, 33, 0, GEMM_ACT_RELU, 1, 1, GEMM_ACT_NONE, 1);
    fails += !f32_case(CAIRN_U8, CAIRN_U8, 29, 64, 31, 1, GEMM_ACT_CLIP, 1, 1, GEMM_ACT_RELU, 2);
    fails += !f32_case(CAIRN_I8, CAIRN_I8, 1, 5, 1, 0, GEMM_ACT_NONE, 1, 1, GEMM_ACT_CLIP, 1);
    fails += !f32_case(CAIRN_U8, CAIRN_I8, 3, 32769, 17, 1, GEMM_ACT_RELU, 1, 1, GEMM_ACT_NONE, 2);
    CHECK_MSG(fails == 0, "%d dequantised cases differ", fails);
}

/* quant_conv_f32 (FusedConvInteger) against a direct loop over each
 * output's taps: the exact integer sum of (x - xz)(w - wz[m]) (a padded tap
 * adds 0), times the channel's scale in f32, plus the bias, plus the
 * residual, in f32 in that order (the epilogue's): the same bits. sp: the
 * spatial dims (1 to 3); wz / scale one value or one per channel. */
static int conv_case(int sp, int64_t N, int64_t C, int64_t M, const int64_t *in,
                     const int64_t *kern, const int64_t *stride, const int64_t *pad,
                     const int64_t *dil, cairn_dtype_t xt, cairn_dtype_t wt, int per_ch,
                     int resid, int threads)
{
    conv_params_t g;
    memset(&g, 0, sizeof g);
    g.N = N, g.C = C, g.M = M, g.group = 1;
    int64_t HW = 1, P = 1, taps = 1;
    for (int d = 0; d < CONV_SP; d++) {
        const int i = d - (CONV_SP - sp);
        g.in[d] = i >= 0 ? in[i] : 1, g.kernel[d] = i >= 0 ? kern[i] : 1;
        g.stride[d] = i >= 0 ? stride[i] : 1, g.pad[d] = i >= 0 ? pad[i] : 0;
        g.dilation[d] = i >= 0 ? dil[i] : 1;
        const int64_t eff = (g.kernel[d] - 1) * g.dilation[d] + 1;
        g.out[d] = (g.in[d] + 2 * g.pad[d] - eff) / g.stride[d] + 1;
        HW *= g.in[d], P *= g.out[d], taps *= g.kernel[d];
    }
    const int64_t nx = N * C * HW, nw = M * C * taps, ny = N * M * P;
    uint8_t *x = malloc((size_t)nx), *w = malloc((size_t)nw), xz = 0, wz[640];
    float *sc = malloc(sizeof(float) * (size_t)M), *bias = malloc(sizeof(float) * (size_t)M);
    float *res = malloc(sizeof(float) * (size_t)ny), *y = malloc(sizeof(float) * (size_t)ny);
    fill_q(xt, x, nx, 0);
    fill_q(wt, w, nw, 0);
    fill_q(xt, &xz, 1, 0);
    fill_q(wt, wz, 640, 0);
    for (int64_t m = 0; m < M; m++)
        sc[m] = (float)check_rng_uniform(&rng, 1e-4, 3e-4), bias[m] = (float)check_rng_uniform(&rng, -1, 1);
    check_fill_f32(&rng, res, ny, -1, 1);
    quant_conv_params_t qp;
    memset(&qp, 0, sizeof qp);
    qp.g = g, qp.xt = xt, qp.wt = wt, qp.xz = &xz, qp.wz = wz, qp.wz_vec = per_ch;
    qp.scale = sc, qp.scale_vec = per_ch;
    gemm_epilogue_t e;
    memset(&e, 0, sizeof e);
    e.scale = 1.0f, e.bias_kind = GEMM_BIAS_ROW, e.bias = bias;
    e.residual = resid ? res : NULL;
    memset(y, 0xff, sizeof(float) * (size_t)ny);
    kctx_t k = {threads > 1 ? pool2 : NULL, threads};
    CHECK_OK(quant_conv_f32(&k, &qp, x, w, &e, y));
    /* W prepared ahead (the prepack pass's form): the same bits */
    const size_t psz = quant_packed_a_size(M, C * taps);
    void *pw = base_aligned_alloc(psz, 64);
    float *yp = malloc(sizeof(float) * (size_t)ny);
    CHECK_OK(quant_pack_a(wt, M, C * taps, w, pw, psz));
    quant_conv_params_t qpp = qp;
    qpp.w_packed = 1;
    memset(yp, 0xff, sizeof(float) * (size_t)ny);
    CHECK_OK(quant_conv_f32(&k, &qpp, x, pw, &e, yp));
    CHECK_MSG(memcmp(y, yp, sizeof(float) * (size_t)ny) == 0,
              "conv %dd N%lld C%lld M%lld: W packed ahead differs", sp, (long long)N,
              (long long)C, (long long)M);
    /* a buffer packed for another shape is refused before any read */
    qpp.g.M = M - 1;
    CHECK_FAILS(quant_conv_f32(&k, &qpp, x, pw, &e, yp), CAIRN_ERR_INVALID_ARGUMENT,
                "quant_pack_a");
    base_aligned_free(pw);
    free(yp);
    /* the int32 form (ConvInteger): the exact sums themselves */
    int32_t *yi = malloc(sizeof(int32_t) * (size_t)ny);
    memset(yi, 0x5a, sizeof(int32_t) * (size_t)ny);
    CHECK_OK(quant_conv_i32(&k, &qp, x, w, yi));
    int bad = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t m = 0; m < M; m++)
            for (int64_t o = 0; o < P; o++) {
                const int64_t oo[3] = {o / (g.out[1] * g.out[2]), (o / g.out[2]) % g.out[1],
                                       o % g.out[2]};
                const int32_t zw = q_load(wz, wt, per_ch ? m : 0), zx = q_load(&xz, xt, 0);
                int64_t acc = 0;
                for (int64_t c = 0; c < C; c++)
                    for (int64_t t = 0; t < taps; t++) {
                        const int64_t tt[3] = {t / (g.kernel[1] * g.kernel[2]),
                                               (t / g.kernel[2]) % g.kernel[1], t % g.kernel[2]};
                        int64_t xi = 0, inside = 1;
                        for (int d = 0; d < 3; d++) {
                            const int64_t ii = oo[d] * g.stride[d] - g.pad[d] + tt[d] * g.dilation[d];
                            inside &= ii >= 0 && ii < g.in[d];
                            xi = xi * g.in[d] + ii;
                        }
                        if (inside)
                            acc += (int64_t)(q_load(x, xt, (n * C + c) * HW + xi) - zx) *
                                   (q_load(w, wt, (m * C + c) * taps + t) - zw);
                    }
                float want = (float)acc * sc[per_ch ? m : 0] + bias[m];
                const int64_t at = (n * M + m) * P + o;
                if (resid)
                    want += res[at];
                if (memcmp(&want, &y[at], sizeof want) && bad++ < 3)
                    CHECK_MSG(0, "conv %dd N%lld C%lld M%lld %s x %s W: y[%lld] = %.9g, want %.9g",
                              sp, (long long)N, (long long)C, (long long)M, tname(xt), tname(wt),
                              (long long)at, (double)y[at], (double)want);
                if (yi[at] != acc && bad++ < 3)
                    CHECK_MSG(0, "conv %dd N%lld C%lld M%lld %s x %s W, int32: y[%lld] = %d, "
                              "want %lld", sp, (long long)N, (long long)C, (long long)M,
                              tname(xt), tname(wt), (long long)at, yi[at], (long long)acc);
            }
    /* the requantising form (QLinearConv's, FusedConvInteger requant = 1)
     * with W as given and prepared ahead: quant_requant_ref on the exact
     * sums just checked, bit for bit; multipliers that take the largest
     * sum past the 8-bit range (saturation) and an int32 bias per channel */
    int64_t amax = 1;
    for (int64_t i = 0; i < ny; i++)
        amax = llabs((long long)yi[i]) > amax ? llabs((long long)yi[i]) : amax;
    const cairn_dtype_t yt = xt == CAIRN_U8 ? CAIRN_I8 : CAIRN_U8; /* both kinds across cases */
    uint8_t yz;
    fill_q(yt, &yz, 1, 0);
    float *mult = malloc(sizeof(float) * (size_t)M);
    int32_t *ib = malloc(sizeof(int32_t) * (size_t)M);
    double *accd = malloc(sizeof(double) * (size_t)ny);
    uint8_t *yq = malloc((size_t)ny), *wq = malloc((size_t)ny);
    for (int64_t m = 0; m < M; m++) {
        mult[m] = (float)(check_rng_uniform(&rng, 80, 400) / (double)amax);
        ib[m] = (int32_t)rnd(-amax / 4, amax / 4);
    }
    for (int64_t i = 0; i < ny; i++)
        accd[i] = yi[i];
    quant_axis_t ax = {N, M, P};
    quant_requant_ref(accd, ib, mult, &yz, yt, wq, &ax);
    quant_conv_params_t qq = qp;
    qq.scale = mult;
    qq.scale_vec = 1;
    memset(yq, 0x5a, (size_t)ny);
    CHECK_OK(quant_conv_q8(&k, &qq, x, w, ib, &yz, yt, yq));
    int qbad = memcmp(yq, wq, (size_t)ny) != 0;
    const size_t psz2 = quant_packed_a_size(M, C * taps);
    void *pw2 = base_aligned_alloc(psz2, 64);
    CHECK_OK(quant_pack_a(wt, M, C * taps, w, pw2, psz2));
    qq.w_packed = 1;
    memset(yq, 0x5a, (size_t)ny);
    CHECK_OK(quant_conv_q8(&k, &qq, x, pw2, ib, &yz, yt, yq));
    qbad += 2 * (memcmp(yq, wq, (size_t)ny) != 0);
    CHECK_MSG(qbad == 0, "conv %dd N%lld C%lld M%lld %s x %s W, requantised to %s: %s differs",
              sp, (long long)N, (long long)C, (long long)M, tname(xt), tname(wt), tname(yt),
              qbad == 1 ? "W as given" : qbad == 2 ? "W packed" : "both");
    base_aligned_free(pw2);
    free(mult), free(ib), free(accd), free(yq), free(wq);
    free(x), free(w), free(sc), free(bias), free(res), free(y), free(yi);
    return bad == 0 && qbad == 0;
}

static void test_conv(void)
{
    int fails = 0;
    const int64_t one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    /* 1x1 (the direct path, the image as the GEMM's B), batch 2 */
    const int64_t i1[2] = {7, 9};
    fails += !conv_case(2, 2, 19, 23, i1, one, one, zero, one, CAIRN_U8, CAIRN_I8, 0, 0, 1);
    /* 3x3 pad 1, strides 1 and 2; per-channel scales and zero points */
    const int64_t i2[2] = {13, 11}, k3[2] = {3, 3}, s2[2] = {2, 2}, p1[2] = {1, 1};
    fails += !conv_case(2, 1, 16, 40, i2, k3, one, p1, one, CAIRN_U8, CAIRN_I8, 1, 1, 2);
    fails += !conv_case(2, 2, 5, 17, i2, k3, s2, p1, one, CAIRN_I8, CAIRN_U8, 1, 0, 2);
    /* a stem: 7x7 stride 2 pad 3 over 3 channels */
    const int64_t i3[2] = {30, 29}, k7[2] = {7, 7}, p3[2] = {3, 3};
    fails += !conv_case(2, 1, 3, 16, i3, k7, s2, p3, one, CAIRN_U8, CAIRN_I8, 0, 0, 2);
    /* dilation 2, a rectangular kernel, 1x1 stride 2 (not the direct path) */
    const int64_t k13[2] = {1, 3}, d2[2] = {2, 2}, p02[2] = {0, 2};
    fails += !conv_case(2, 1, 6, 9, i2, k13, one, p02, d2, CAIRN_I8, CAIRN_I8, 1, 1, 1);
    fails += !conv_case(2, 1, 8, 12, i2, one, s2, zero, one, CAIRN_U8, CAIRN_U8, 0, 1, 2);
    /* 1-D and 3-D */
    const int64_t i4[1] = {50}, k5[1] = {5}, p2[1] = {2};
    fails += !conv_case(1, 2, 7, 10, i4, k5, one, p2, one, CAIRN_U8, CAIRN_I8, 1, 0, 2);
    const int64_t i5[3] = {4, 5, 6}, k333[3] = {3, 3, 3}, p111[3] = {1, 1, 1};
    fails += !conv_case(3, 1, 3, 5, i5, k333, one, p111, one, CAIRN_I8, CAIRN_I8, 0, 1, 1);
    /* many output channels over a large plane: with W prepared, the sums
     * go in column chunks that stay in L2 (qmm_chunk), a partial last one */
    /* rows of 16 and more at strides 1 and 2 (the SSE2 row copies, their
     * overlapping last block), 1 to 3 columns of padding */
    const int64_t i7[2] = {9, 70}, k5w[2] = {1, 5}, p02b[2] = {0, 2};
    fails += !conv_case(2, 1, 3, 7, i7, k3, s2, p1, one, CAIRN_U8, CAIRN_I8, 0, 0, 1);
    fails += !conv_case(2, 1, 2, 5, i7, k5w, s2, p02b, one, CAIRN_I8, CAIRN_I8, 1, 0, 1);
    fails += !conv_case(2, 1, 2, 5, i7, k5w, one, p02b, one, CAIRN_U8, CAIRN_U8, 1, 0, 2);
    /* padding wider than the plane: taps shifted by more than its width */
    const int64_t i8[2] = {5, 3}, k19[2] = {3, 9}, p14[2] = {1, 4};
    fails += !conv_case(2, 1, 3, 4, i8, k19, one, p14, one, CAIRN_U8, CAIRN_I8, 0, 0, 1);
    /* the padded-plane im2col (qc_padded): stride 2 on 2 threads (tasks of
     * whole channels), small stride-1 planes (runs of 7 and 14 bytes, the
     * last through a buffer), a 1x1 stride 2 with rows under 16, i8 x */
    const int64_t i9[2] = {60, 61}, i10[2] = {7, 7}, i11[2] = {14, 14}, i12[2] = {28, 27};
    fails += !conv_case(2, 1, 16, 12, i9, k3, s2, p1, one, CAIRN_U8, CAIRN_I8, 1, 0, 2);
    fails += !conv_case(2, 2, 32, 9, i10, k3, one, p1, one, CAIRN_I8, CAIRN_I8, 0, 1, 2);
    fails += !conv_case(2, 1, 64, 10, i11, k3, one, p1, one, CAIRN_U8, CAIRN_I8, 1, 0, 2);
    fails += !conv_case(2, 1, 24, 6, i12, one, s2, zero, one, CAIRN_U8, CAIRN_I8, 0, 0, 2);
    fails += !conv_case(2, 1, 24, 6, i12, k3, s2, p1, d2, CAIRN_I8, CAIRN_U8, 0, 0, 1);
    const int64_t i6[2] = {64, 65};
    fails += !conv_case(2, 1, 8, 600, i6, one, one, zero, one, CAIRN_U8, CAIRN_I8, 1, 1, 2);
    fails += !conv_case(2, 1, 4, 520, i6, k3, one, p1, one, CAIRN_I8, CAIRN_I8, 0, 0, 1);
    CHECK_MSG(fails == 0, "%d convolution cases differ", fails);
    /* grouped convolutions are not this kernel's */
    conv_params_t g;
    memset(&g, 0, sizeof g);
    g.N = 1, g.C = 4, g.M = 4, g.group = 4;
    for (int d = 0; d < 3; d++)
        g.in[d] = g.out[d] = g.kernel[d] = g.stride[d] = g.dilation[d] = 1;
    CHECK(!quant_conv_fast(&g));
    quant_conv_params_t qp;
    memset(&qp, 0, sizeof qp);
    qp.g = g, qp.xt = CAIRN_U8, qp.wt = CAIRN_I8;
    float sc = 1, y[4];
    uint8_t x[4] = {0}, w[4] = {0};
    qp.scale = &sc;
    kctx_t k = {NULL, 1};
    CHECK_FAILS(quant_conv_f32(&k, &qp, x, w, NULL, y), CAIRN_ERR_UNSUPPORTED, "group 4");
}

/* A 1x1 QLinearConv on prepared weights whose multipliers are powers of
 * two, so that many sums land exactly on k + 0.5 (the requantising tiles'
 * doubtful lanes, then the double path) and others just beside: against
 * quant_requant_ref on the exact sums, bit for bit. Row counts around the
 * 14-row panels (the ones row alone in the last one, or beside others),
 * columns around the 32-column panels and chunks, K not a multiple of 4,
 * x's and W's zero points (the row and column terms) or none, u8 and i8
 * x and y, biases near the int32 limit the tiles take, 1 and 2 threads
 * (on 2, a few columns split by A's panels as well). */
static int conv_ties_case(int64_t C, int64_t M, int64_t P, cairn_dtype_t xt, cairn_dtype_t wt,
                          cairn_dtype_t yt, int zp, int threads)
{
    uint8_t *x = malloc((size_t)(C * P)), *w = malloc((size_t)(M * C));
    uint8_t *y = malloc((size_t)(M * P)), *want = malloc((size_t)(M * P));
    int32_t *bias = malloc(sizeof(int32_t) * (size_t)M);
    float *mult = malloc(sizeof(float) * (size_t)M);
    double *acc = malloc(sizeof(double) * (size_t)(M * P));
    fill_q(xt, x, C * P, 0);
    fill_q(wt, w, M * C, 0);
    uint8_t xz = 0, wz = 0, yz;
    if (zp) {
        fill_q(xt, &xz, 1, 0);
        fill_q(wt, &wz, 1, 0);
    }
    fill_q(yt, &yz, 1, 0);
    for (int64_t m = 0; m < M; m++) {
        /* 2^-2 .. 2^-12 (the tiles take multipliers below 1/2; with M = 13
         * one of 1/2, which sends the whole call to the chunked path) */
        mult[m] = ldexpf(1.0f, -(int)rnd(2, 12));
        if (m % 5 == 4)
            mult[m] = nextafterf(mult[m], 1.0f); /* beside the ties */
        if (M == 13 && m == 6)
            mult[m] = 0.5f;
        bias[m] = m % 7 == 6 ? (int32_t)(2147483647 - (int64_t)C * 65025 - 1)
                             : (int32_t)rnd(-3000, 3000);
    }
    for (int64_t m = 0; m < M; m++)
        for (int64_t p = 0; p < P; p++) {
            int64_t s = 0;
            for (int64_t c = 0; c < C; c++)
                s += (int64_t)(q_load(x, xt, c * P + p) - q_load(&xz, xt, 0)) *
                     (q_load(w, wt, m * C + c) - q_load(&wz, wt, 0));
            acc[m * P + p] = (double)s;
        }
    quant_axis_t ax = {1, M, P};
    quant_requant_ref(acc, bias, mult, &yz, yt, want, &ax);
    quant_conv_params_t qp;
    memset(&qp, 0, sizeof qp);
    qp.g.N = 1, qp.g.C = C, qp.g.M = M, qp.g.group = 1;
    for (int d = 0; d < 3; d++)
        qp.g.kernel[d] = qp.g.stride[d] = qp.g.dilation[d] = 1;
    qp.g.in[0] = qp.g.out[0] = qp.g.in[1] = qp.g.out[1] = 1;
    qp.g.in[2] = qp.g.out[2] = P;
    qp.xt = xt, qp.wt = wt, qp.xz = &xz, qp.wz = &wz, qp.scale = mult, qp.scale_vec = 1;
    const size_t psz = quant_packed_a_size(M, C);
    void *pw = base_aligned_alloc(psz, 64);
    CHECK_OK(quant_pack_a(wt, M, C, w, pw, psz));
    qp.w_packed = 1;
    kctx_t k = {threads > 1 ? pool2 : NULL, threads};
    memset(y, 0x5a, (size_t)(M * P));
    CHECK_OK(quant_conv_q8(&k, &qp, x, pw, bias, &yz, yt, y));
    int64_t bad = -1;
    for (int64_t i = 0; i < M * P && bad < 0; i++)
        if (y[i] != want[i])
            bad = i;
    CHECK_MSG(bad < 0,
              "requantised 1x1 C%lld M%lld P%lld x %s W %s y %s zp %d t%d: y[%lld] = %d, want %d",
              (long long)C, (long long)M, (long long)P, tname(xt), tname(wt), tname(yt), zp,
              threads, (long long)bad, bad < 0 ? 0 : y[bad], bad < 0 ? 0 : want[bad]);
    base_aligned_free(pw);
    free(x), free(w), free(y), free(want), free(bias), free(mult), free(acc);
    return bad < 0;
}

static void test_conv_ties(void)
{
    /* M + 1 rows (the ones row) leave 1 to 14 in the last panel, which the
     * tile computes in R = 4, 6, ..., 14 rows (rqg_last): every R */
    static const int64_t Ms[] = {1, 13, 14, 15, 27, 28, 29, 97, 4, 6, 9, 11, 24, 64};
    static const int64_t Ps[] = {1, 31, 33, 64, 129, 300};
    int fails = 0;
    for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; mi++)
        for (size_t pi = 0; pi < sizeof Ps / sizeof Ps[0]; pi++) {
            const int64_t C = (int64_t)(mi * 7 + pi * 3) % 37 + 1;
            const int v = (int)(mi + pi);
            fails += !conv_ties_case(C, Ms[mi], Ps[pi], v & 1 ? CAIRN_I8 : CAIRN_U8,
                                     v & 2 ? CAIRN_U8 : CAIRN_I8, v & 4 ? CAIRN_I8 : CAIRN_U8,
                                     (int)(pi % 2), 1 + (int)(mi % 2));
        }
    CHECK_MSG(fails == 0, "%d requantised 1x1 cases differ", fails);
}

/* quant_requantize (QLinearConv's requantisation of the fast routes' int32
 * sums) against quant_requant_ref on the same sums as doubles, bit for bit:
 * u8 and i8, with and without bias, per-channel multipliers including 0,
 * ties (sums that land on k + 0.5), saturation both ways, an infinite and a
 * NaN multiplier, sums at int32's extremes, runs shorter and longer than a
 * 16-lane step, 1 and 2 threads. */
static int requant_case(int64_t outer, int64_t C, int64_t inner, cairn_dtype_t yt, int bias_on,
                        int threads)
{
    const int64_t n = outer * C * inner;
    int32_t *acc = malloc((size_t)n * sizeof *acc), *bias = malloc((size_t)C * sizeof *bias);
    double *accd = malloc((size_t)n * sizeof *accd);
    float *mult = malloc((size_t)C * sizeof *mult);
    uint8_t *y = malloc((size_t)n), *want = malloc((size_t)n), yz = yt == CAIRN_U8 ? 128 : 0;
    int8_t yzs = -3;
    const void *yzp = yt == CAIRN_U8 ? (const void *)&yz : (const void *)&yzs;
    for (int64_t c = 0; c < C; c++) {
        const int kind = (int)(c % 6);
        mult[c] = kind == 0 ? 0.5f : kind == 1 ? 0.0f : kind == 2 ? 1e-3f
                : kind == 3 ? 3.7e-6f : kind == 4 ? (c % 12 == 4 ? INFINITY : 0.25f)
                : (c % 12 == 5 ? NAN : 0.0123f);
        bias[c] = (int32_t)rnd(-5000, 5000);
    }
    for (int64_t i = 0; i < n; i++) {
        const int r = (int)(i % 9);
        acc[i] = r == 0 ? INT32_MAX : r == 1 ? INT32_MIN : r == 2 ? 1 : r == 3 ? -1
               : r == 4 ? 0 : (int32_t)rnd(-2000000, 2000000);
        accd[i] = acc[i];
    }
    quant_axis_t ax = {outer, C, inner};
    kctx_t k = {threads > 1 ? pool2 : NULL, threads};
    memset(y, 0xa5, (size_t)n);
    quant_requantize(&k, acc, bias_on ? bias : NULL, mult, yzp, yt, y, &ax);
    quant_requant_ref(accd, bias_on ? bias : NULL, mult, yzp, yt, want, &ax);
    int same = !memcmp(y, want, (size_t)n);
    free(acc), free(bias), free(accd), free(mult), free(y), free(want);
    return same;
}

static void test_requantize(void)
{
    int fails = 0;
    for (int t = 0; t < 2; t++) {
        const cairn_dtype_t yt = t ? CAIRN_I8 : CAIRN_U8;
        fails += !requant_case(1, 1, 1, yt, 1, 1);
        fails += !requant_case(1, 12, 15, yt, 1, 1);
        fails += !requant_case(2, 12, 17, yt, t, 2);
        fails += !requant_case(1, 24, 4099, yt, 1, 2); /* channels across the pool's chunks */
    }
    CHECK_MSG(fails == 0, "%d requantisation cases differ", fails);
}

int main(void)
{
    CHECK_OK(base_pool_create(2, &pool2));
    test_conv();
    test_conv_ties();
    test_dynamic();
    test_qdq();
    test_requantize();
    test_combinations();
    test_sizes();
    test_extremes();
    test_odd_scales();
    test_dequantised();
    test_bad_packed();
    base_pool_destroy(pool2);
    return check_finish("test_quant_fast");
}
