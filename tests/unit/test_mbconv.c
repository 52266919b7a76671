/* The inverted-residual block kernel (kernels/conv/mbconv.c) against the
 * three convolutions computed in double here (expansion, depthwise,
 * projection, each with its epilogue), on random data over edge
 * geometries: planes 1 to 3 pixels wide, odd sizes, kernel 3 and 5,
 * strides 1 to 3, channel counts off multiples of 8, with and without
 * biases and residual, batch 1 to 3, the stem form (a KxK expansion
 * with stride), on 1 and 2 threads (so rows are
 * split between threads and bands); the AVX2 depthwise row against the
 * portable one; and the errors for bad arguments. ctest runs it under
 * CAIRN_ISA=ref/avx2/avx512 too. Tolerance: f32 accumulation over the
 * three reductions, scaled by the magnitude of the terms. */
#include "check.h"
#include "kernels/conv/mbconv.h"

#include "base/alloc.h"
#include "base/threadpool.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;
static float frand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static double act_d(gemm_act_t a, double v, double lo, double hi)
{
    switch (a) {
    case GEMM_ACT_RELU: return v > 0 ? v : 0;
    case GEMM_ACT_CLIP: return v < lo ? lo : v > hi ? hi : v;
    case GEMM_ACT_SIGMOID: return 1.0 / (1.0 + exp(-v));
    case GEMM_ACT_SILU: return v / (1.0 + exp(-v));
    default: return v;
    }
}

/* The block in double; mag gets the same computation over |terms| (the
 * scale of each output's rounding error). */
static void oracle(const conv_mb_params_t *p, const float *X, const float *W1, const float *b1,
                   const float *Wd, const float *bd, const float *W2, const float *b2,
                   const float *R, double *Y, double *mag)
{
    /* HW: the expanded plane (the depthwise's input), XHW: X's */
    const int64_t EH = p->EH, EW = p->EW, HW = EH * EW, XHW = p->H * p->W;
    const int64_t OHW = p->OH * p->OW, K = p->K, pad = K / 2;
    const int64_t K1 = p->K1 > 1 ? p->K1 : 1, s1 = p->s1 > 1 ? p->s1 : 1, p1 = K1 / 2;
    const int64_t CK = p->C * K1 * K1; /* W1's row length */
    double *e = malloc(sizeof(double) * (size_t)(p->E * HW));
    double *em = malloc(sizeof(double) * (size_t)(p->E * HW));
    double *d = malloc(sizeof(double) * (size_t)(p->E * OHW));
    double *dm = malloc(sizeof(double) * (size_t)(p->E * OHW));
    for (int64_t n = 0; n < p->N; n++) {
        const float *x = X + n * p->C * XHW;
        for (int64_t c = 0; c < p->E; c++)
            for (int64_t i = 0; i < HW; i++) {
                double v = b1 ? b1[c] : 0, m = b1 ? fabs(b1[c]) : 0;
                const int64_t eh = i / EW, ew = i % EW;
                for (int64_t ci = 0; ci < p->C; ci++)
                    for (int64_t kh = 0; kh < K1; kh++)
                        for (int64_t kw = 0; kw < K1; kw++) {
                            const int64_t ih = eh * s1 - p1 + kh, iw = ew * s1 - p1 + kw;
                            if (ih < 0 || ih >= p->H || iw < 0 || iw >= p->W)
                                continue;
                            const double t = (double)W1[c * CK + (ci * K1 + kh) * K1 + kw] *
                                             x[ci * XHW + ih * p->W + iw];
                            v += t, m += fabs(t);
                        }
                e[c * HW + i] = act_d(p->act1, v, p->lo1, p->hi1);
                em[c * HW + i] = m;
            }
        for (int64_t c = 0; c < p->E; c++)
            for (int64_t oh = 0; oh < p->OH; oh++)
                for (int64_t ow = 0; ow < p->OW; ow++) {
                    double v = bd ? bd[c] : 0, m = bd ? fabs(bd[c]) : 0;
                    for (int64_t kh = 0; kh < K; kh++)
                        for (int64_t kw = 0; kw < K; kw++) {
                            const int64_t ih = oh * p->stride - pad + kh;
                            const int64_t iw = ow * p->stride - pad + kw;
                            if (ih < 0 || ih >= EH || iw < 0 || iw >= EW)
                                continue;
                            const double w = Wd[(c * K + kh) * K + kw];
                            v += w * e[c * HW + ih * EW + iw];
                            m += fabs(w) * em[c * HW + ih * EW + iw];
                        }
                    d[c * OHW + oh * p->OW + ow] = v < p->lo2 ? p->lo2 : v > p->hi2 ? p->hi2 : v;
                    dm[c * OHW + oh * p->OW + ow] = m;
                }
        for (int64_t m_ = 0; m_ < p->M; m_++)
            for (int64_t i = 0; i < OHW; i++) {
                double v = b2 ? b2[m_] : 0, m = b2 ? fabs(b2[m_]) : 0;
                for (int64_t c = 0; c < p->E; c++)
                    v += (double)W2[m_ * p->E + c] * d[c * OHW + i],
                        m += fabs((double)W2[m_ * p->E + c]) * dm[c * OHW + i];
                v = act_d(p->act3, v, p->lo3, p->hi3);
                const int64_t o = (n * p->M + m_) * OHW + i;
                if (R)
                    v += R[o], m += fabs(R[o]);
                Y[o] = act_d(p->post3, v, p->plo3, p->phi3);
                mag[o] = m;
            }
    }
    free(e), free(em), free(d), free(dm);
}

typedef struct mcase {
    int64_t N, C, E, M, H, W;
    int K, s, bias, res;
    gemm_act_t act1;
    int K1, s1; /* the stem form's expansion (0: 1x1) */
} mcase_t;

static void run_case(const mcase_t *t, const kctx_t *k, const char *label)
{
    conv_mb_params_t p;
    memset(&p, 0, sizeof p);
    p.N = t->N, p.C = t->C, p.E = t->E, p.M = t->M, p.H = t->H, p.W = t->W;
    p.K = t->K, p.stride = t->s, p.K1 = t->K1, p.s1 = t->s1;
    p.act1 = t->act1, p.lo1 = 0.0f, p.hi1 = 6.0f;
    p.lo2 = 0.0f, p.hi2 = 6.0f;
    p.act3 = GEMM_ACT_NONE, p.lo3 = -FLT_MAX, p.hi3 = FLT_MAX;
    p.post3 = t->res ? GEMM_ACT_RELU : GEMM_ACT_NONE;
    CHECK_OK(conv_mb_check(&p));
    const int64_t HW = p.H * p.W, OHW = p.OH * p.OW, taps = (int64_t)p.K * p.K;
    const int64_t CK = p.C * (p.K1 > 1 ? (int64_t)p.K1 * p.K1 : 1);
    float *X = malloc(sizeof(float) * (size_t)(p.N * p.C * HW));
    float *W1 = malloc(sizeof(float) * (size_t)(p.E * CK));
    float *W2 = malloc(sizeof(float) * (size_t)(p.M * p.E));
    float *Wd = malloc(sizeof(float) * (size_t)(p.E * taps));
    float *b1 = malloc(sizeof(float) * (size_t)p.E), *bd = malloc(sizeof(float) * (size_t)p.E);
    float *b2 = malloc(sizeof(float) * (size_t)p.M);
    const size_t ny = (size_t)(p.N * p.M * OHW);
    float *R = malloc(sizeof(float) * ny), *Y = malloc(sizeof(float) * ny);
    double *ref = malloc(sizeof(double) * ny), *mag = malloc(sizeof(double) * ny);
    for (int64_t i = 0; i < p.N * p.C * HW; i++)
        X[i] = frand();
    for (int64_t i = 0; i < p.E * CK; i++)
        W1[i] = frand();
    for (int64_t i = 0; i < p.M * p.E; i++)
        W2[i] = frand() * 0.5f;
    for (int64_t i = 0; i < p.E * taps; i++)
        Wd[i] = frand();
    for (int64_t i = 0; i < p.E; i++)
        b1[i] = frand(), bd[i] = frand();
    for (int64_t i = 0; i < p.M; i++)
        b2[i] = frand();
    for (size_t i = 0; i < ny; i++)
        R[i] = frand(), Y[i] = NAN;
    const size_t s1 = conv_mb_packed_size(p.E, CK), s2 = conv_mb_packed_size(p.M, p.E);
    void *w1p = base_aligned_alloc(s1, 64), *w2p = base_aligned_alloc(s2, 64);
    CHECK_OK(conv_mb_pack(p.E, CK, W1, w1p, s1));
    CHECK_OK(conv_mb_pack(p.M, p.E, W2, w2p, s2));
    const float *B1 = t->bias ? b1 : NULL, *BD = t->bias ? bd : NULL, *B2 = t->bias ? b2 : NULL;
    const float *RR = t->res ? R : NULL;
    CHECK_OK(conv_mb_f32(k, &p, X, w1p, B1, Wd, BD, w2p, B2, RR, Y));
    oracle(&p, X, W1, B1, Wd, BD, W2, B2, RR, ref, mag);
    const double eps = 4.0 * FLT_EPSILON * (double)(CK + taps + p.E);
    double worst = 0;
    size_t bad = 0;
    for (size_t i = 0; i < ny; i++) {
        const double err = fabs((double)Y[i] - ref[i]), tol = eps * (mag[i] + 1.0);
        if (!(err <= tol))
            bad++;
        if (err / (mag[i] + 1.0) > worst || Y[i] != Y[i])
            worst = Y[i] != Y[i] ? INFINITY : err / (mag[i] + 1.0);
    }
    CHECK_MSG(bad == 0,
              "%s: N%lld C%lld E%lld M%lld %lldx%lld K1 %d s1 %d K%d s%d bias%d res%d: %zu of %zu "
              "outputs off (worst relative error %.3g, allowed %.3g)",
              label, (long long)p.N, (long long)p.C, (long long)p.E, (long long)p.M,
              (long long)p.H, (long long)p.W, p.K1, p.s1, p.K, p.stride, t->bias, t->res, bad, ny,
              worst, eps);
    free(X), free(W1), free(W2), free(Wd), free(b1), free(bd), free(b2), free(R), free(Y);
    free(ref), free(mag);
    base_aligned_free(w1p), base_aligned_free(w2p);
}

/* One depthwise row form against the portable one over random rows:
 * channel counts with and without a partial last vector of 8 or 16, rows
 * wide enough for the AVX-512 form's 8-pixel blocks at stride 1 and 2 (and
 * its 4-pixel ones and per-pixel tails after them). */
static void check_rows(conv_dwc_row_fn row, const char *name)
{
    const int64_t Ws[] = {1, 2, 3, 4, 5, 7, 8, 9, 14, 17, 21, 38};
    const int64_t lds[] = {3, 8, 13, 24, 32, 45};
    for (int K = 1; K <= 5; K += 2)
        for (int s = 1; s <= 3; s++)
            for (size_t wi = 0; wi < sizeof Ws / sizeof Ws[0]; wi++)
                for (size_t li = 0; li < sizeof lds / sizeof lds[0]; li++) {
                    const int64_t W = Ws[wi], ld = lds[li];
                    if (W + 2 * (K / 2) < K)
                        continue;
                    const int64_t OW = (W + 2 * (K / 2) - K) / s + 1;
                    float *rows_mem = malloc(sizeof(float) * (size_t)(K * W * ld));
                    float *wt = malloc(sizeof(float) * (size_t)(K * K * ld));
                    float *bias = malloc(sizeof(float) * (size_t)ld);
                    float *o1 = malloc(sizeof(float) * (size_t)(OW * ld));
                    float *o2 = malloc(sizeof(float) * (size_t)(OW * ld));
                    for (int64_t i = 0; i < K * W * ld; i++)
                        rows_mem[i] = frand();
                    for (int64_t i = 0; i < K * K * ld; i++)
                        wt[i] = frand();
                    for (int64_t i = 0; i < ld; i++)
                        bias[i] = frand();
                    const float *rows[5];
                    for (int kh = 0; kh < K; kh++)
                        rows[kh] = rows_mem + kh * W * ld;
                    /* a channel sub-range starting at 0 or 8 when it fits */
                    const int64_t c0 = ld > 8 ? 8 : 0;
                    for (int64_t i = 0; i < OW * ld; i++)
                        o1[i] = o2[i] = -7.0f;
                    conv_dwc_row_f32_ref(rows, W, ld, c0, ld, K, s, wt, bias, -0.5f, 1.5f, o1, OW);
                    row(rows, W, ld, c0, ld, K, s, wt, bias, -0.5f, 1.5f, o2, OW);
                    double worst = 0;
                    for (int64_t i = 0; i < OW * ld; i++) {
                        const double err = fabs((double)o1[i] - o2[i]);
                        worst = err > worst || o1[i] != o1[i] || o2[i] != o2[i] ? err : worst;
                        if (o1[i] != o1[i] || o2[i] != o2[i])
                            worst = INFINITY;
                    }
                    CHECK_MSG(worst <= 1e-5, "dwc row %s K%d s%d W%lld ld%lld: max diff %.3g",
                              name, K, s, (long long)W, (long long)ld, worst);
                    free(rows_mem), free(wt), free(bias), free(o1), free(o2);
                }
}

/* Each depthwise row form the CPU runs (AVX-512, AVX2, as CAIRN_ISA
 * allows); a cap the CPU stops below gives the form of the one above it,
 * checked once. */
static void test_rows(void)
{
    const cairn_isa_t caps[] = {CAIRN_ISA_AVX512, CAIRN_ISA_AVX2};
    for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++) {
        const char *name = NULL;
        const conv_dwc_row_fn row = conv_dwc_row_for(caps[ci], &name);
        if (ci == 0 || row != conv_dwc_row_for(caps[ci - 1], NULL))
            check_rows(row, name);
    }
}

static void test_errors(void)
{
    conv_mb_params_t p;
    memset(&p, 0, sizeof p);
    p.N = 1, p.C = 4, p.E = 8, p.M = 4, p.H = 5, p.W = 5, p.K = 4, p.stride = 1;
    CHECK_FAILS(conv_mb_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "odd");
    p.K = 3, p.K1 = 2;
    CHECK_FAILS(conv_mb_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "expansion kernel");
    p.K1 = 1, p.s1 = 2;
    CHECK_FAILS(conv_mb_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "expansion stride");
    p.K1 = 3, p.s1 = 5;
    CHECK_FAILS(conv_mb_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "expansion stride");
    p.K1 = 0, p.s1 = 0;
    p.K = 3, p.stride = 0;
    CHECK_FAILS(conv_mb_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "stride");
    p.stride = 1, p.C = 0;
    CHECK_FAILS(conv_mb_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "C=0");
    p.C = 4, p.N = -1;
    CHECK_FAILS(conv_mb_check(&p), CAIRN_ERR_INVALID_ARGUMENT, "N=-1");
    p.N = 1;
    CHECK_FAILS(conv_mb_check(NULL), CAIRN_ERR_INVALID_ARGUMENT, NULL);
    p.K = 3, p.H = 5;
    CHECK_OK(conv_mb_check(&p));
    float x[100] = {0};
    CHECK_FAILS(conv_mb_f32(NULL, &p, x, NULL, NULL, x, NULL, x, NULL, NULL, x),
                CAIRN_ERR_INVALID_ARGUMENT, "null");
    p.OH = 4; /* not what the geometry makes */
    CHECK_FAILS(conv_mb_f32(NULL, &p, x, x, NULL, x, NULL, x, NULL, NULL, x), CAIRN_ERR_SHAPE,
                "output plane");
}

int main(void)
{
    const mcase_t cases[] = {
        /* MobileNetV2-like blocks, small */
        {1, 16, 96, 24, 16, 16, 3, 2, 1, 0, GEMM_ACT_CLIP, 0, 0},
        {1, 24, 144, 24, 12, 12, 3, 1, 1, 1, GEMM_ACT_CLIP, 0, 0},
        {2, 32, 192, 32, 7, 7, 3, 1, 1, 1, GEMM_ACT_CLIP, 0, 0},
        {1, 64, 384, 96, 5, 5, 3, 1, 1, 0, GEMM_ACT_RELU, 0, 0},
        {3, 8, 48, 8, 9, 11, 3, 2, 1, 1, GEMM_ACT_NONE, 0, 0},
        /* edges: tiny planes, odd channel counts, kernel 5, stride 3 */
        {1, 3, 12, 5, 1, 1, 3, 1, 1, 0, GEMM_ACT_CLIP, 0, 0},
        {1, 5, 20, 7, 2, 3, 3, 1, 0, 1, GEMM_ACT_CLIP, 0, 0},
        {2, 7, 13, 3, 3, 2, 3, 2, 1, 1, GEMM_ACT_SILU, 0, 0},
        {1, 6, 36, 6, 9, 9, 5, 1, 1, 1, GEMM_ACT_CLIP, 0, 0},
        {1, 6, 36, 10, 10, 13, 5, 2, 1, 0, GEMM_ACT_CLIP, 0, 0},
        {1, 4, 24, 4, 11, 10, 3, 3, 1, 0, GEMM_ACT_RELU, 0, 0},
        {1, 16, 17, 9, 6, 5, 1, 1, 1, 1, GEMM_ACT_CLIP, 0, 0},
        /* whole planes whose output rows do not split evenly over 2
         * threads (the stages split by pixels): one row, 7 rows from 13
         * at stride 2 */
        {1, 8, 32, 8, 1, 5, 3, 1, 1, 1, GEMM_ACT_CLIP, 0, 0},
        {1, 16, 64, 24, 13, 13, 3, 2, 1, 0, GEMM_ACT_CLIP, 0, 0},
        /* a tall plane: several bands per thread range */
        {1, 8, 64, 8, 70, 9, 3, 1, 1, 1, GEMM_ACT_CLIP, 0, 0},
        {1, 8, 256, 16, 40, 40, 3, 2, 1, 0, GEMM_ACT_CLIP, 0, 0},
        /* the stem form: MobileNetV2's first layers small, plane edges,
         * kernel 5, stride 1 and 3, tall planes (several bands and ring
         * wraps), pixel counts off the tile's 14, channel counts off 16 */
        {1, 3, 32, 16, 32, 32, 3, 1, 1, 0, GEMM_ACT_CLIP, 3, 2},
        {2, 3, 32, 16, 9, 7, 3, 1, 1, 1, GEMM_ACT_CLIP, 3, 2},
        {1, 3, 24, 8, 1, 1, 3, 1, 1, 0, GEMM_ACT_CLIP, 3, 2},
        {1, 2, 17, 5, 5, 6, 3, 2, 0, 0, GEMM_ACT_RELU, 3, 1},
        {1, 4, 40, 24, 13, 17, 5, 1, 1, 1, GEMM_ACT_CLIP, 5, 3},
        {1, 3, 32, 16, 150, 30, 3, 1, 1, 0, GEMM_ACT_CLIP, 3, 2},
        {1, 1, 8, 3, 90, 20, 3, 1, 1, 1, GEMM_ACT_NONE, 3, 1},
    };
    const int nc = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < nc; i++)
        run_case(&cases[i], NULL, "1 thread");
    base_pool_t *pool = NULL;
    CHECK_OK(base_pool_create(2, &pool));
    kctx_t k2 = {pool, 2};
    for (int i = 0; i < nc; i++)
        run_case(&cases[i], &k2, "2 threads");
    base_pool_destroy(pool);
    test_rows();
    test_errors();
    return check_finish("test_mbconv");
}
