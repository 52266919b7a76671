/*
 * Quick timing of the inverted-residual block kernel (kernels/conv/mbconv.c)
 * on MobileNetV2's blocks (224x224 input, batch 1): best-of-9 microseconds
 * of the fused block, of its three stages run whole-plane one after the
 * other (expansion GEMM into a full NHWC buffer, depthwise rows, indirect-A
 * projection), and of the three unfused convolutions as the model ran them
 * before (FusedConv's packed paths, NCHW depthwise). Usage: bench_mbconv_f32
 * [--threads T] [--only I] [--fused] [--cold] (I = the number of blocks: the
 * stem form alone; --fused: the fused block and its stages only, for perf;
 * --cold: the fused block and the two GEMM stages with their packed weights
 * flushed from the caches before each call, medians of 41, as a model's
 * weights come from memory once per run). Not a test: prints numbers,
 * asserts nothing.
 */
#include "base/alloc.h"
#include "base/clock.h"
#include "base/threadpool.h"
#include "kernels/conv/conv.h"
#include "kernels/conv/mbconv.h"

#include <float.h>
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape {
    int64_t C, E, M, H, s, res;
} shape_t;

static const shape_t shapes[] = {
    {16, 96, 24, 112, 2, 0}, {24, 144, 24, 56, 1, 1}, {24, 144, 32, 56, 2, 0},
    {32, 192, 32, 28, 1, 1}, {32, 192, 64, 28, 2, 0}, {64, 384, 64, 14, 1, 1},
    {64, 384, 96, 14, 1, 0}, {96, 576, 96, 14, 1, 1}, {96, 576, 160, 14, 2, 0},
    {160, 960, 160, 7, 1, 1}, {160, 960, 320, 7, 1, 0},
};

static int g_cold;  /* --cold: the packed weights flushed from the caches before each call */
static int g_fused; /* --fused: the fused block alone (for perf) */

static void flush(const void *p, size_t n)
{
    for (size_t o = 0; o < n; o += 64)
        _mm_clflush((const char *)p + o);
    _mm_mfence();
}

/* median us of 41 runs of stmt, each after pre (not timed): with pre
 * flushing the packed weights, the block as a model runs it, its weights
 * coming from memory once per run (--cold) */
#define TIME_COLD(med, pre, stmt)                                                              \
    do {                                                                                       \
        double t_[41];                                                                         \
        for (int r_ = 0; r_ < 41; r_++) {                                                      \
            pre;                                                                               \
            uint64_t t0_ = base_now_ns();                                                      \
            stmt;                                                                              \
            t_[r_] = (double)(base_now_ns() - t0_) / 1e3;                                      \
        }                                                                                      \
        for (int a_ = 1; a_ < 41; a_++)                                                        \
            for (int b_ = a_; b_ > 0 && t_[b_] < t_[b_ - 1]; b_--) {                           \
                double x_ = t_[b_];                                                            \
                t_[b_] = t_[b_ - 1], t_[b_ - 1] = x_;                                          \
            }                                                                                  \
        med = t_[20];                                                                          \
    } while (0)

static float *rnd(int64_t n, float scale)
{
    float *p = base_aligned_alloc((size_t)n * 4, 64);
    for (int64_t i = 0; i < n; i++)
        p[i] = ((float)((i * 7919) % 1009) / 1009.0f - 0.5f) * scale;
    return p;
}

#define TIME(best, reps, stmt)                                                                 \
    do {                                                                                       \
        for (int t_ = 0; t_ < 9; t_++) {                                                       \
            uint64_t t0_ = base_now_ns();                                                      \
            for (int r_ = 0; r_ < (reps); r_++) {                                              \
                stmt;                                                                          \
            }                                                                                  \
            double d_ = (double)(base_now_ns() - t0_) / (reps) / 1e3;                          \
            best = d_ < best ? d_ : best;                                                      \
        }                                                                                      \
    } while (0)

/* The block's three convolutions run apart with packed weights (the
 * expansion KxK / s1 in the stem form), best-of-9 us each into u[0..2]. */
static void time_unfused(const kctx_t *k, const conv_mb_params_t *p, const float *X,
                         const float *W1, const float *b1, const float *Wd, const float *bd,
                         const float *W2, const float *b2, const float *R, float *Y, double u[3])
{
    const int64_t K1 = p->K1 > 1 ? p->K1 : 1, s1 = p->s1 > 1 ? p->s1 : 1;
    conv_params_t c1 = {1, p->C, p->E, 1, {1, p->H, p->W}, {1, p->EH, p->EW}, {1, K1, K1},
                        {1, s1, s1}, {1, 1, 1}, {0, K1 / 2, K1 / 2}};
    conv_params_t c2 = {1, p->E, p->E, p->E, {1, p->EH, p->EW}, {1, p->OH, p->OW}, {1, 3, 3},
                        {1, p->stride, p->stride}, {1, 1, 1}, {0, 1, 1}};
    conv_params_t c3 = {1, p->E, p->M, 1, {1, p->OH, p->OW}, {1, p->OH, p->OW}, {1, 1, 1},
                        {1, 1, 1}, {1, 1, 1}, {0, 0, 0}};
    size_t q1 = conv_f32_packed_w_size(&c1), q3 = conv_f32_packed_w_size(&c3);
    void *p1 = base_aligned_alloc(q1, 64), *p3 = base_aligned_alloc(q3, 64);
    conv_f32_pack_w(&c1, W1, p1, q1);
    conv_f32_pack_w(&c3, W2, p3, q3);
    size_t wsb = conv_f32_workspace(&c1) + conv_f32_workspace(&c3) + 64;
    void *ws = base_aligned_alloc(wsb, 64);
    float *Ec = rnd(p->E * p->EH * p->EW, 1), *Dc = rnd(p->E * p->OH * p->OW, 1);
    conv_post_t post1 = {GEMM_ACT_CLIP, 0, 6, NULL, GEMM_ACT_NONE, 0, 0};
    conv_post_t post3 = {GEMM_ACT_NONE, 0, 0, R, GEMM_ACT_NONE, 0, 0};
    const int reps = 20;
    u[0] = u[1] = u[2] = 1e30;
    TIME(u[0], reps, conv_f32_packed_w(k, &c1, X, p1, b1, &post1, Ec, ws, wsb));
    TIME(u[1], reps, conv_f32(k, &c2, Ec, Wd, bd, &post1, Dc, NULL, 0));
    TIME(u[2], reps, conv_f32_packed_w(k, &c3, Dc, p3, b2, &post3, Y, ws, wsb));
    base_aligned_free(p1), base_aligned_free(p3), base_aligned_free(ws);
    base_aligned_free(Ec), base_aligned_free(Dc);
}

/* MobileNetV2's stem and first block as the stem form (3 -> 32 channels
 * 3x3/2 at 224x224, depthwise 3x3, projection to 16) against its three
 * convolutions run apart. */
static void bench_stem(const kctx_t *k)
{
    conv_mb_params_t p;
    memset(&p, 0, sizeof p);
    p.N = 1, p.C = 3, p.E = 32, p.M = 16, p.H = p.W = 224, p.K1 = 3, p.s1 = 2, p.K = 3;
    p.stride = 1;
    p.act1 = GEMM_ACT_CLIP, p.lo1 = 0, p.hi1 = 6, p.lo2 = 0, p.hi2 = 6;
    p.act3 = p.post3 = GEMM_ACT_NONE;
    conv_mb_check(&p);
    const int64_t HW = p.H * p.W, OHW = p.OH * p.OW, K1 = p.C * 9;
    float *X = rnd(p.C * HW, 1), *W1 = rnd(p.E * K1, 0.5f), *W2 = rnd(p.M * p.E, 0.1f);
    float *Wd = rnd(p.E * 9, 0.5f), *b1 = rnd(p.E, 1), *bd = rnd(p.E, 1), *b2 = rnd(p.M, 1);
    float *Y = rnd(p.M * OHW, 1);
    const size_t s1 = conv_mb_packed_size(p.E, K1), s2 = conv_mb_packed_size(p.M, p.E);
    void *w1p = base_aligned_alloc(s1, 64), *w2p = base_aligned_alloc(s2, 64);
    conv_mb_pack(p.E, K1, W1, w1p, s1);
    conv_mb_pack(p.M, p.E, W2, w2p, s2);
    const int reps = 20;
    double tf = 1e30;
    if (g_cold)
        TIME_COLD(tf, (flush(w1p, s1), flush(w2p, s2)),
                  conv_mb_f32(k, &p, X, w1p, b1, Wd, bd, w2p, b2, NULL, Y));
    else
        TIME(tf, reps, conv_mb_f32(k, &p, X, w1p, b1, Wd, bd, w2p, b2, NULL, Y));
    double u[3] = {0, 0, 0};
    if (!g_fused)
        time_unfused(k, &p, X, W1, b1, Wd, bd, W2, b2, NULL, Y, u);
    printf("%-24s %8.1f %8s %8s %8s %8.1f %8.1f %8.1f %8.1f\n", "stem 3>32>16 224 3x3/2", tf,
           "", "", "", u[0] + u[1] + u[2], u[0], u[1], u[2]);
    base_aligned_free(X), base_aligned_free(W1), base_aligned_free(W2), base_aligned_free(Wd);
    base_aligned_free(b1), base_aligned_free(bd), base_aligned_free(b2), base_aligned_free(Y);
    base_aligned_free(w1p), base_aligned_free(w2p);
}

int main(int argc, char **argv)
{
    int threads = 1, only = -1;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--threads") && a + 1 < argc)
            threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--only") && a + 1 < argc)
            only = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--cold"))
            g_cold = 1;
        else if (!strcmp(argv[a], "--fused"))
            g_fused = 1;
    }
    base_pool_t *pool = NULL;
    if (threads > 1 && base_pool_create(threads, &pool) != CAIRN_OK)
        return 1;
    kctx_t k = {pool, threads};
    printf("%-24s %8s %8s %8s %8s %8s %8s %8s %8s\n", "block", "fused", "expand", "dw", "project",
           "unfused", "u-exp", "u-dw", "u-proj");
    const int ns = (int)(sizeof shapes / sizeof shapes[0]);
    if (only < 0 || only == ns)
        bench_stem(&k);
    for (int i = 0; i < ns; i++) {
        if (only >= 0 && i != only)
            continue;
        const shape_t *s = &shapes[i];
        conv_mb_params_t p;
        memset(&p, 0, sizeof p);
        p.N = 1, p.C = s->C, p.E = s->E, p.M = s->M, p.H = p.W = s->H, p.K = 3;
        p.stride = (int)s->s;
        p.act1 = GEMM_ACT_CLIP, p.lo1 = 0, p.hi1 = 6, p.lo2 = 0, p.hi2 = 6;
        p.act3 = p.post3 = GEMM_ACT_NONE;
        conv_mb_check(&p);
        const int64_t HW = p.H * p.W, OHW = p.OH * p.OW;
        float *X = rnd(p.C * HW, 1), *W1 = rnd(p.E * p.C, 0.5f), *W2 = rnd(p.M * p.E, 0.1f);
        float *Wd = rnd(p.E * 9, 0.5f), *b1 = rnd(p.E, 1), *bd = rnd(p.E, 1), *b2 = rnd(p.M, 1);
        float *R = s->res ? rnd(p.M * OHW, 1) : NULL, *Y = rnd(p.M * OHW, 1);
        const size_t s1 = conv_mb_packed_size(p.E, p.C), s2 = conv_mb_packed_size(p.M, p.E);
        void *w1p = base_aligned_alloc(s1, 64), *w2p = base_aligned_alloc(s2, 64);
        conv_mb_pack(p.E, p.C, W1, w1p, s1);
        conv_mb_pack(p.M, p.E, W2, w2p, s2);
        const int reps = 20;
        double tf = 1e30, te = 1e30, td = 1e30, tp = 1e30;
        if (g_cold)
            TIME_COLD(tf, (flush(w1p, s1), flush(w2p, s2)),
                      conv_mb_f32(&k, &p, X, w1p, b1, Wd, bd, w2p, b2, R, Y));
        else
            TIME(tf, reps, conv_mb_f32(&k, &p, X, w1p, b1, Wd, bd, w2p, b2, R, Y));
        /* the stages whole-plane */
        float *E = rnd(p.E * HW, 1), *D = rnd(p.E * OHW, 1), *wt = rnd(9 * p.E, 1);
        float *zero = calloc((size_t)(p.W * p.E), 4);
        int64_t *pix = malloc(sizeof(int64_t) * (size_t)OHW), *off = malloc(sizeof(int64_t) * (size_t)p.E);
        for (int64_t q = 0; q < OHW; q++)
            pix[q] = q * p.E;
        for (int64_t c = 0; c < p.E; c++)
            off[c] = c;
        gemm_epilogue_t e1 = {GEMM_BIAS_COL, b1, GEMM_ACT_CLIP, 0, 6, 1.0f, NULL, 0, 0, 0, 0};
        gemm_epilogue_t e3 = {GEMM_BIAS_ROW, b2, GEMM_ACT_NONE, 0, 0, 1.0f, R, OHW, 0, 0, 0};
        if (g_cold)
            TIME_COLD(te, flush(w1p, s1),
                      gemm_f32_packed(&k, 1, HW, p.E, p.C, 1.0f, X, HW, w1p, 0.0f, E, p.E, &e1));
        else
            TIME(te, reps,
                 gemm_f32_packed(&k, 1, HW, p.E, p.C, 1.0f, X, HW, w1p, 0.0f, E, p.E, &e1));
        conv_dwc_row_fn row = conv_dwc_row_select(NULL);
        TIME(td, reps, for (int64_t oh = 0; oh < p.OH; oh++) {
            const float *rows[3];
            for (int kh = 0; kh < 3; kh++) {
                int64_t ih = oh * p.stride - 1 + kh;
                rows[kh] = ih < 0 || ih >= p.H ? zero : E + ih * p.W * p.E;
            }
            row(rows, p.W, p.E, 0, p.E, 3, p.stride, wt, bd, 0, 6, D + oh * p.OW * p.E, p.OW);
        });
        gemm_inda_t ia = {D, pix, OHW, off};
        if (g_cold)
            TIME_COLD(tp, flush(w2p, s2), gemm_f32_packed_inda(&k, p.M, p.E, w2p, &ia, Y, OHW, &e3));
        else
            TIME(tp, reps, gemm_f32_packed_inda(&k, p.M, p.E, w2p, &ia, Y, OHW, &e3));
        /* tried and dropped (2026-12-03, Zen 2, 1 thread): the expansion by
         * indirect A (X^T gathered in place, not packed; 1.1-1.6x slower
         * than packing X^T), the projection with W2 as a packed A and D^T
         * packed per call (faster than indirect A only at M = 24, still
         * slower than the unfused NCHW GEMM) */
        /* unfused: the three convolutions with packed weights */
        double u[3] = {0, 0, 0};
        if (!g_fused)
            time_unfused(&k, &p, X, W1, b1, Wd, bd, W2, b2, R, Y, u);
        char name[48];
        snprintf(name, sizeof name, "%lld>%lld>%lld %lld s%lld%s", (long long)p.C, (long long)p.E,
                 (long long)p.M, (long long)p.H, (long long)p.stride, s->res ? " +r" : "");
        printf("%-24s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f\n", name, tf, te, td, tp,
               u[0] + u[1] + u[2], u[0], u[1], u[2]);
        base_aligned_free(X), base_aligned_free(W1), base_aligned_free(W2), base_aligned_free(Wd);
        base_aligned_free(b1), base_aligned_free(bd), base_aligned_free(b2), base_aligned_free(R);
        base_aligned_free(Y), base_aligned_free(w1p), base_aligned_free(w2p), base_aligned_free(E);
        base_aligned_free(D), base_aligned_free(wt);
        free(zero), free(pix), free(off);
    }
    if (pool)
        base_pool_destroy(pool);
    return 0;
}
