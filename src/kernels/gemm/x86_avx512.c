/*
 * AVX-512 f32 GEMM micro-kernel: a 14 x 32 tile of C held in 28 zmm
 * accumulators (2 vectors of 16 per row), which leaves 4 registers for the
 * two B vectors and the broadcast A element. Each k step issues 28 FMAs
 * against 2 vector loads and 14 broadcast loads (folded into the FMAs as
 * {1to16} memory operands), enough independent chains to cover the FMA
 * latency on both ports. Edge tiles use masked loads and stores.
 *
 * This file is compiled with -mavx512f/bw/vl/dq -mfma and must only be
 * called when the CPU has those features (the variant table sees to it).
 */
#include "kernels/gemm/gemm_f32_internal.h"

#include "base/cpu.h"
#include "base/dtype.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__) && defined(__AVX512F__)
#include "kernels/vmath/act_avx512.h"
#include "kernels/vmath/transpose_avx512.h"
#include <immintrin.h>

#ifndef MR
#define MR 14
#endif
#ifndef NV
#define NV 2 /* vectors of 16 per row */
#endif
#define NR (16 * NV)

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* The epilogue's transcendental activations: the same formulas as the
 * AVX2 ones in x86_avx2.c (see there for their derivation and measured
 * errors; tests/unit/test_gemm_act.c checks every variant the CPU runs),
 * on 16 lanes. NaN in gives NaN out. */

/* min(max(x, lo), hi) that keeps a NaN x */
ALWAYS_INLINE __m512 clamp_nan512(__m512 x, float lo, float hi)
{
    return _mm512_min_ps(_mm512_set1_ps(hi), _mm512_max_ps(_mm512_set1_ps(lo), x));
}

/* e^x for x clamped to [-87, 88] (x86_avx2.c's exp256) */
ALWAYS_INLINE __m512 exp512(__m512 x)
{
    const __m512 magic = _mm512_set1_ps(12582912.0f + 127.0f);
    x = clamp_nan512(x, -87.0f, 88.0f);
    __m512 k = _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), magic);
    __m512 n = _mm512_sub_ps(k, magic);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187e-06f), r);
    __m512 p = _mm512_set1_ps(1.384364255e-03f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.374155314e-03f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.166800219e-02f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.666643126e-01f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.999999421e-01f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.000000032e+00f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    __m512 scale = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(k), 23));
    return _mm512_mul_ps(p, scale);
}

/* num / (1 + e^-x) */
ALWAYS_INLINE __m512 mul_sigmoid512(__m512 num, __m512 x)
{
    __m512 d = _mm512_add_ps(_mm512_set1_ps(1.0f), exp512(_mm512_sub_ps(_mm512_setzero_ps(), x)));
    return _mm512_div_ps(num, d);
}

/* x P(x^2) / Q(x^2) on x clamped to [-6, 6], clamped to [-1, 1] */
ALWAYS_INLINE __m512 odd_rational512(__m512 x, const float p[6], const float q[6])
{
    __m512 xc = clamp_nan512(x, -6.0f, 6.0f);
    __m512 t = _mm512_mul_ps(xc, xc);
    __m512 P = _mm512_set1_ps(p[5]), Q = _mm512_set1_ps(q[5]);
#pragma GCC unroll 5
    for (int i = 4; i >= 0; i--) {
        P = _mm512_fmadd_ps(P, t, _mm512_set1_ps(p[i]));
        Q = _mm512_fmadd_ps(Q, t, _mm512_set1_ps(q[i]));
    }
    return clamp_nan512(_mm512_div_ps(_mm512_mul_ps(xc, P), Q), -1.0f, 1.0f);
}

/* x86_avx2.c's fits of erf(x / sqrt 2) and tanh(sqrt(2/pi)(x + 0.044715 x^3)) */
static const float gelu_erf_p[6] = {7.978843940e-01f, 7.047743310e-02f, 9.517868455e-03f,
                                    3.647149921e-04f, 1.277638666e-05f, 4.262767143e-08f};
static const float gelu_erf_q[6] = {1.0f, 2.549956948e-01f, 2.943060170e-02f,
                                    1.961463321e-03f, 7.768083792e-05f, 1.158164870e-06f};
static const float gelu_tanh_p[6] = {7.978846605e-01f, 6.011580211e-02f, 7.262762068e-03f,
                                     2.638132774e-04f, 1.437300724e-05f, 5.065378501e-08f};
static const float gelu_tanh_q[6] = {1.0f, 2.428364853e-01f, 2.420216496e-02f,
                                     1.292277071e-03f, 7.593547031e-05f, 1.362398435e-06f};

ALWAYS_INLINE __m512 gelu512(__m512 x, const float p[6], const float q[6])
{
    __m512 h = _mm512_mul_ps(x, _mm512_set1_ps(0.5f));
    return _mm512_fmadd_ps(h, odd_rational512(x, p, q), h);
}

/* act applied to v (lo, hi: clip bounds); used before and after the residual add */
static __m512 act512(__m512 v, gemm_act_t act, float lo, float hi)
{
    switch (act) {
    case GEMM_ACT_NONE:
        return v;
    case GEMM_ACT_RELU:
        return _mm512_max_ps(v, _mm512_setzero_ps());
    case GEMM_ACT_GELU_ERF:
        return gelu512(v, gelu_erf_p, gelu_erf_q);
    case GEMM_ACT_GELU_TANH:
        return gelu512(v, gelu_tanh_p, gelu_tanh_q);
    case GEMM_ACT_SILU:
        return mul_sigmoid512(_mm512_max_ps(_mm512_set1_ps(-88.0f), v), v);
    case GEMM_ACT_SIGMOID:
        return mul_sigmoid512(_mm512_set1_ps(1.0f), v);
    case GEMM_ACT_CLIP:
        return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
    }
    return v;
}

ALWAYS_INLINE __mmask16 lanes(int w);

/* act applied to u[r NR + c] for r < m, c < n (whole vectors), the
 * activation chosen once outside the loops: act512 per vector was a call
 * and a switch each, and its constants were reloaded every time (GELU
 * epilogues: 128 x 1536 x 384 with a column bias, 1 thread, Xeon, 0.83 ms
 * against 0.73 without the GELU). */
static void act_tile512(float *u, int m, int n, gemm_act_t act, float lo, float hi)
{
#define ACT_TILE(expr)                                                                            \
    for (int r = 0; r < m; r++)                                                                   \
        for (int c0 = 0; c0 < n; c0 += 16) {                                                      \
            __m512 x = _mm512_load_ps(u + r * NR + c0);                                           \
            _mm512_store_ps(u + r * NR + c0, (expr));                                             \
        }
    switch (act) {
    case GEMM_ACT_GELU_ERF:
        ACT_TILE(gelu512(x, gelu_erf_p, gelu_erf_q));
        break;
    case GEMM_ACT_GELU_TANH:
        ACT_TILE(gelu512(x, gelu_tanh_p, gelu_tanh_q));
        break;
    case GEMM_ACT_SILU:
        ACT_TILE(mul_sigmoid512(_mm512_max_ps(_mm512_set1_ps(-88.0f), x), x));
        break;
    case GEMM_ACT_SIGMOID:
        ACT_TILE(mul_sigmoid512(_mm512_set1_ps(1.0f), x));
        break;
    default:
        ACT_TILE(act512(x, act, lo, hi));
        break;
    }
#undef ACT_TILE
}

/* The epilogue over a finished tile t (alpha already applied) kept on the
 * stack next to the registers, then the only store to C: beta, biases,
 * act, scale, residual, post_act, in three passes over a second tile so
 * that the activation runs as one loop (act_tile512). */
/* the epilogue's first steps on vector c0 of row r of the stack tile t:
 * beta C, then the biases */
ALWAYS_INLINE __m512 epi_in(const float *t, const float *C, int64_t ldc, int r, int c0,
                            __mmask16 mk, float beta, const gemm_tile_epi_t *e)
{
    __m512 v = _mm512_loadu_ps(t + r * NR + c0);
    if (beta != 0.0f)
        v = _mm512_fmadd_ps(_mm512_set1_ps(beta), _mm512_maskz_loadu_ps(mk, C + r * ldc + c0), v);
    if (e->bias_row)
        v = _mm512_add_ps(v, _mm512_set1_ps(e->bias_row[r]));
    if (e->bias_col)
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, e->bias_col + c0));
    return v;
}

static void epi_store(const float *t, float *C, int64_t ldc, int m, int n, float beta,
                      const gemm_tile_epi_t *e)
{
    if (gemm_act_is_simple(e->act) && gemm_act_is_simple(e->post_act)) {
        /* no transcendental: one pass, the activations inline (the
         * direct convolution's tiles that straddle an output row's end,
         * 28 % of ResNet-50's stem, come through here) */
        for (int r = 0; r < m; r++) {
            for (int c0 = 0; c0 < n; c0 += 16) {
                const __mmask16 mk = lanes(n - c0);
                __m512 v = epi_in(t, C, ldc, r, c0, mk, beta, e);
                v = vm512_act_simple(v, e->act, e->lo, e->hi);
                if (e->scale != 1.0f)
                    v = _mm512_mul_ps(v, _mm512_set1_ps(e->scale));
                if (e->res)
                    v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, e->res + r * e->ldr + c0));
                v = vm512_act_simple(v, e->post_act, e->post_lo, e->post_hi);
                _mm512_mask_storeu_ps(C + r * ldc + c0, mk, v);
            }
        }
        return;
    }
    float u[MR * NR] __attribute__((aligned(64)));
    for (int r = 0; r < m; r++)
        for (int c0 = 0; c0 < n; c0 += 16)
            _mm512_store_ps(u + r * NR + c0, epi_in(t, C, ldc, r, c0, lanes(n - c0), beta, e));
    if (e->act != GEMM_ACT_NONE)
        act_tile512(u, m, n, e->act, e->lo, e->hi);
    const int post = e->post_act != GEMM_ACT_NONE;
    for (int r = 0; r < m; r++) {
        for (int c0 = 0; c0 < n; c0 += 16) {
            const __mmask16 mk = lanes(n - c0);
            __m512 v = _mm512_load_ps(u + r * NR + c0);
            if (e->scale != 1.0f)
                v = _mm512_mul_ps(v, _mm512_set1_ps(e->scale));
            if (e->res)
                v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, e->res + r * e->ldr + c0));
            if (post)
                v = act512(v, e->post_act, e->post_lo, e->post_hi);
            _mm512_mask_storeu_ps(C + r * ldc + c0, mk, v);
        }
    }
}

/* lanes [0, w) of a 16-lane vector, w clamped to [0, 16] */
ALWAYS_INLINE __mmask16 lanes(int w)
{
    return w >= 16 ? (__mmask16)0xFFFF : w <= 0 ? (__mmask16)0 : (__mmask16)((1u << w) - 1u);
}

/* the lines of an m-row C tile of NR elements of esz bytes, into L1 */
ALWAYS_INLINE void prefetch_c(const void *C, int64_t ldc, int m, int esz)
{
    for (int r = 0; r < m; r++)
        for (int v = 0; v < NV; v++)
            _mm_prefetch((const char *)C + (r * ldc + 16 * v) * esz, _MM_HINT_T0);
}

/* The k steps before the end of a K block at which a tile asks for its C
 * lines (prefetch_c): about 700 cycles, a miss to L3 or memory, before the
 * C tile is needed, and late enough that the streaming B panel does not
 * evict them. A 14 x 32 step takes 28 cycles where zmm runs as two halves
 * (Zen 4: 24 steps) and 14 where it runs whole (Zen 5: 48). Zen 5, 1
 * thread, the two builds alternating, 24 -> 48: 2048^3 235 -> 237
 * GFLOP/s, 512 x 768 x 3072 231 -> 234 (medians of 3 and 5); 128 x 384 x
 * 1536 and 2 threads level; 96 steps no better than 48. */
static _Atomic int c_pf_steps_v;
ALWAYS_INLINE int64_t c_pf_steps(void)
{
    int s = atomic_load_explicit(&c_pf_steps_v, memory_order_relaxed);
    if (!s) {
        s = base_cpu()->zmm_halves ? 24 : 48;
        atomic_store_explicit(&c_pf_steps_v, s, memory_order_relaxed);
    }
    return s;
}

/* The epilogue of epi_store (same order: beta, biases, act, scale,
 * residual, post_act) applied to the accumulators themselves when both
 * activations are simple (gemm_act_is_simple): a short K block (a 1x1 convolution over 16
 * channels) spent more on the trip through the stack tile than on its FMAs. */
ALWAYS_INLINE void store_tile_simple(__m512 acc[MR][NV], int rows, float *C, int64_t ldc, int m,
                                     int n, float alpha, float beta, const gemm_tile_epi_t *e)
{
    __mmask16 mk[NV];
    __m512 bc[NV];
    for (int v = 0; v < NV; v++) {
        mk[v] = lanes(n - 16 * v);
        bc[v] = e->bias_col ? _mm512_maskz_loadu_ps(mk[v], e->bias_col + 16 * v)
                            : _mm512_setzero_ps();
    }
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    const __m512 vs = _mm512_set1_ps(e->scale);
#pragma GCC unroll 16
    for (int r = 0; r < rows; r++) {
        if (r < m) {
            float *cp = C + r * ldc;
            const float *rp = e->res ? e->res + r * e->ldr : NULL;
            const __m512 br = e->bias_row ? _mm512_set1_ps(e->bias_row[r]) : _mm512_setzero_ps();
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) {
                __m512 x = _mm512_mul_ps(va, acc[r][v]);
                if (beta != 0.0f)
                    x = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(mk[v], cp + 16 * v), x);
                if (e->bias_row)
                    x = _mm512_add_ps(x, br);
                if (e->bias_col)
                    x = _mm512_add_ps(x, bc[v]);
                x = vm512_act_simple(x, e->act, e->lo, e->hi);
                if (e->scale != 1.0f)
                    x = _mm512_mul_ps(x, vs);
                if (rp)
                    x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(mk[v], rp + 16 * v));
                x = vm512_act_simple(x, e->post_act, e->post_lo, e->post_hi);
                _mm512_mask_storeu_ps(cp + 16 * v, mk[v], x);
            }
        }
    }
}

/* store_tile_simple for one epilogue fixed at compile time, on a whole
 * MR x NR tile (alpha 1, scale 1; BETA 0 or 1, the last K block adding to
 * C; BIAS 0 none, 1 per row, 2 per column; ACT and POST 0 none, 1 ReLU, 2
 * clip, ACT also 3 GELU (erf), 4 GELU (tanh); RES a residual or not): the
 * general form tests each field for each vector, and with a tile's 28
 * accumulators live the compiler spilled them around those branches. A K =
 * 16 product with a column bias and a clip (MobileNetV2's expansion 16 ->
 * 96 at 112x112, 448 pixels a call) ran 90 GFLOP/s that way, 124 this way,
 * against 135 with no epilogue at all. A transformer's first FFN layer
 * (column bias, GELU; 128 x 1536 x 384, 1 thread, Xeon, alternating) 0.83
 * ms through the stack tile and act512, 0.81 with act_tile512, 0.77 this
 * way, 0.73 with no GELU; the division in odd_rational512 replaced by
 * rcp14 and a Newton step ran 1 % slower. No masks and no row tests: edge
 * tiles take the general form. */
ALWAYS_INLINE void store_tile_fixed(__m512 acc[MR][NV], float *C, int64_t ldc,
                                    const gemm_tile_epi_t *e, const int BETA, const int BIAS,
                                    const int ACT, const int RES, const int POST)
{
    __m512 bc[NV];
    const __m512 lo = _mm512_set1_ps(e->lo), hi = _mm512_set1_ps(e->hi);
    const __m512 plo = _mm512_set1_ps(e->post_lo), phi = _mm512_set1_ps(e->post_hi);
    const float *bias_row = e->bias_row, *res = e->res;
    const int64_t ldr = e->ldr;
    for (int v = 0; v < NV; v++)
        bc[v] = BIAS == 2 ? _mm512_loadu_ps(e->bias_col + 16 * v) : _mm512_setzero_ps();
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++) {
        float *cp = C + r * ldc;
        const __m512 br = BIAS == 1 ? _mm512_set1_ps(bias_row[r]) : _mm512_setzero_ps();
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            __m512 x = acc[r][v];
            if (BETA)
                x = _mm512_add_ps(x, _mm512_loadu_ps(cp + 16 * v));
            if (BIAS == 1)
                x = _mm512_add_ps(x, br);
            if (BIAS == 2)
                x = _mm512_add_ps(x, bc[v]);
            if (ACT == 1)
                x = _mm512_max_ps(x, _mm512_setzero_ps());
            if (ACT == 2)
                x = _mm512_min_ps(_mm512_max_ps(x, lo), hi);
            if (ACT == 3)
                x = gelu512(x, gelu_erf_p, gelu_erf_q);
            if (ACT == 4)
                x = gelu512(x, gelu_tanh_p, gelu_tanh_q);
            if (RES)
                x = _mm512_add_ps(x, _mm512_loadu_ps(res + r * ldr + 16 * v));
            if (POST == 1)
                x = _mm512_max_ps(x, _mm512_setzero_ps());
            if (POST == 2)
                x = _mm512_min_ps(_mm512_max_ps(x, plo), phi);
            _mm512_storeu_ps(cp + 16 * v, x);
        }
    }
}

/* Under AddressSanitizer the per-kind epilogues are left out (the general
 * forms run): instrumented, each unrolled copy took clang several seconds,
 * and the fuzzing test builds this file so. They read and write whole
 * tiles only, which the normal build's tests check. */
#if defined(__SANITIZE_ADDRESS__)
#define FIXED_EPILOGUES 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIXED_EPILOGUES 0
#endif
#endif
#ifndef FIXED_EPILOGUES
#define FIXED_EPILOGUES 1
#endif

/* 0 none, 1 ReLU, 2 clip, 3 GELU (erf), 4 GELU (tanh), -1 another activation */
ALWAYS_INLINE int act_code(gemm_act_t act)
{
    return act == GEMM_ACT_NONE        ? 0
           : act == GEMM_ACT_RELU      ? 1
           : act == GEMM_ACT_CLIP      ? 2
           : act == GEMM_ACT_GELU_ERF  ? 3
           : act == GEMM_ACT_GELU_TANH ? 4
                                       : -1;
}

#define FIXED_KEY(b, a, r, p) ((((b) * 5 + (a)) * 2 + (r)) * 5 + (p))
#define FIXED_CASE(b, a, r, p)                                                                   \
    case FIXED_KEY(b, a, r, p):                                                                  \
        if (beta == 0.0f)                                                                        \
            store_tile_fixed(acc, C, ldc, e, 0, b, a, r, p);                                     \
        else                                                                                     \
            store_tile_fixed(acc, C, ldc, e, 1, b, a, r, p);                                     \
        return 1;

/* The epilogues the models run most, on full tiles, through
 * store_tile_fixed (1); 0: not one of them. Column bias: a linear layer (+
 * the residual of a transformer block), the pixel-major expansion of
 * MobileNetV2 (+ clip); row bias: convolutions with W as A (+ ReLU, or the
 * residual then ReLU of ResNet's blocks). Beta 0, or 1 on the last of
 * several K blocks. Each case is a whole unrolled store: few of them, and
 * only in the packed kernel's full tiles (store_tile's FIX), since every
 * copy costs compile time (clang with AddressSanitizer took minutes over
 * this file with nine cases in every kernel). */
ALWAYS_INLINE int store_tile_common(__m512 acc[MR][NV], int rows, float *C, int64_t ldc, int m,
                                    int n, float alpha, float beta, const gemm_tile_epi_t *e)
{
    if (!FIXED_EPILOGUES || rows != MR || m != MR || n != NR || alpha != 1.0f ||
        (beta != 0.0f && beta != 1.0f) ||
        e->scale != 1.0f || (e->bias_row && e->bias_col))
        return 0;
    const int a = act_code(e->act), p = act_code(e->post_act);
    if (a < 0 || p < 0)
        return 0;
    switch (FIXED_KEY(e->bias_row ? 1 : e->bias_col ? 2 : 0, a, e->res != NULL, p)) {
        FIXED_CASE(2, 0, 0, 0)
        FIXED_CASE(2, 2, 0, 0)
        FIXED_CASE(2, 3, 0, 0)
        FIXED_CASE(2, 4, 0, 0)
        FIXED_CASE(2, 0, 1, 0)
        FIXED_CASE(1, 0, 0, 0)
        FIXED_CASE(1, 1, 0, 0)
        FIXED_CASE(1, 0, 1, 1)
    default:
        return 0;
    }
}

/* Final store of the accumulators: alpha, beta, epilogue, masks; FIX (a
 * compile-time flag) lets the common epilogues take store_tile_fixed. */
ALWAYS_INLINE void store_tile(__m512 acc[MR][NV], int rows, float *C, int64_t ldc, int m, int n,
                              float alpha, float beta, const gemm_tile_epi_t *e, const int FIX)
{
    __m512 va = _mm512_set1_ps(alpha);
    if (FIX && e && store_tile_common(acc, rows, C, ldc, m, n, alpha, beta, e))
        return;
    if (e && gemm_act_is_simple(e->act) && gemm_act_is_simple(e->post_act)) {
        store_tile_simple(acc, rows, C, ldc, m, n, alpha, beta, e);
        return;
    }
    if (e) {
        float t[MR * NR] __attribute__((aligned(64)));
        /* unrolled, as every loop over acc: one indexed at run time puts
         * the whole tile in memory (kernel_packed_full) */
#pragma GCC unroll 16
        for (int r = 0; r < rows; r++)
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                _mm512_store_ps(t + r * NR + 16 * v, _mm512_mul_ps(va, acc[r][v]));
        epi_store(t, C, ldc, m, n, beta, e);
        return;
    }
    __mmask16 mk[NV];
    for (int v = 0; v < NV; v++)
        mk[v] = lanes(n - 16 * v);
    __m512 vb = _mm512_set1_ps(beta);
#pragma GCC unroll 16
    for (int r = 0; r < rows; r++) {
        if (r < m) {
            float *cp = C + r * ldc;
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) {
                __m512 x = _mm512_mul_ps(va, acc[r][v]);
                if (beta != 0.0f)
                    x = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(mk[v], cp + 16 * v), x);
                _mm512_mask_storeu_ps(cp + 16 * v, mk[v], x);
            }
        }
    }
}

/* The accumulator tile's rows [0, ROWS) (a compile-time count): set to T's
 * rows (row stride NR) when acc, else to 0; one k step adding a[r] b; and
 * saved to T. Shared by the packed, indirect-B and indirect-A kernels. */
ALWAYS_INLINE void tile_init(const int ROWS, __m512 c[MR][NV], const float *T, int acc)
{
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; r++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            c[r][v] = acc ? _mm512_load_ps(T + r * NR + 16 * v) : _mm512_setzero_ps();
}

/* the k step on the tile's first W (a compile-time count) vectors of each row */
ALWAYS_INLINE void tile_fma_w(const int ROWS, const int W, __m512 c[MR][NV], const float *a,
                              const __m512 b[NV])
{
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; r++) {
        const __m512 av = _mm512_set1_ps(a[r]);
#pragma GCC unroll 4
        for (int v = 0; v < W; v++)
            c[r][v] = _mm512_fmadd_ps(av, b[v], c[r][v]);
    }
}

ALWAYS_INLINE void tile_fma(const int ROWS, __m512 c[MR][NV], const float *a, const __m512 b[NV])
{
    tile_fma_w(ROWS, NV, c, a, b);
}

ALWAYS_INLINE void tile_save(const int ROWS, __m512 c[MR][NV], float *T)
{
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; r++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            _mm512_store_ps(T + r * NR + 16 * v, c[r][v]);
}

/* One k step's share of npf lines at *pf prefetched into L2 over a loop of
 * kc steps (uk_pf, inda_pf): a credit of npf per step buys a line per kc,
 * npf lines in all, evenly spaced. npf = 0 (a constant where the kernels
 * inline it) costs nothing. */
ALWAYS_INLINE void spread_prefetch(const char **pf, int64_t *credit, int64_t npf, int64_t kc)
{
    if (npf <= 0)
        return;
    *credit += npf;
    while (*credit >= kc) {
        _mm_prefetch(*pf, _MM_HINT_T1);
        *pf += 64;
        *credit -= kc;
    }
}

/* Packed panels: A[k*MR + r], B[k*NR + c], all in bounds. ROWS (a
 * compile-time count, at most MR) rows of the panel are computed: a last
 * panel of m < MR rows (M = 128 is 9 panels of 14 and one of 2) costs its
 * rows rather than a whole tile's. */
ALWAYS_INLINE void kernel_packed(const int ROWS, int64_t kc, const float *A, const float *B,
                                 float *C, int64_t ldc, int m, int n, float alpha, float beta,
                                 const gemm_tile_epi_t *e, const char *pf, int64_t npf)
{
    __m512 acc[MR][NV];
    tile_init(ROWS, acc, NULL, 0);
    /* the C tile is touched once, at the end: ask for its lines a few
     * hundred cycles before (earlier, the streaming B panel evicts them) */
    const int64_t cpf = c_pf_steps();
    int64_t kpf = kc > cpf ? kc - cpf : 0;
    int64_t credit = 0;
    for (int64_t k = 0; k < kc; k++) {
        if (k == kpf)
            prefetch_c(C, ldc, m, 4);
        spread_prefetch(&pf, &credit, npf, kc);
        __m512 b[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            b[v] = _mm512_load_ps(B + 16 * v);
        tile_fma(ROWS, acc, A, b);
        A += MR;
        B += NR;
    }
    store_tile(acc, ROWS, C, ldc, m, n, alpha, beta, e, ROWS == MR);
}

/* kernel_packed for a whole-width tile whose B micro-panel comes from
 * op(B) = B in place (rows ldb floats apart) and is written, packed, to Bp
 * as it goes by (uk_packb). The rows are asked for PACKB_PF steps ahead
 * (about 450 cycles on Zen 4, an L3 miss's time; Zen 5 below): they are
 * ldb apart, a stride the L1 prefetcher does not follow over the few
 * hundred rows of a K block. 128 x 384 x 1536, 1 thread, Zen 4: 8 steps
 * 109.0, 16 109.7, 32 104.6-106.8 GFLOP/s. */
#define PACKB_PF 16
/* Zen 5 (the YMM form) runs a k step in half of Zen 4's time (zmm whole,
 * 14 cycles), so the same ~450 cycles ahead is 32 steps; and the first 32
 * rows, which no earlier step asks for, are asked for all at once as the
 * tile starts rather than found one by one as they miss. Alternating,
 * 1 thread, cold (`--cold --iters 150`), medians of 5: 128 x 1536 x 384
 * 227 -> 233 GFLOP/s (cairn / oneDNN 0.90-0.92 -> 0.94 in three paired
 * runs), 128 x 384 x 1536 208.5 -> 213.6; 24 and 48 steps as good as 32,
 * 64 worse; 32 without the rows at the start between the two. Warm, 1 and
 * 2 threads, 128-row shapes, 256^3, 512^3, 1024^3: level. */
#define PACKB_PF_ZEN5 32
/* YMM (a constant): the form for cores where zmm runs whole (Zen 5), with
 * ymm stores of the packed rows and the next panel's prefetch (below).
 * NEAR (a constant, YMM only): the panel's rows are in L2 already, asked
 * for by the packing tile of the panel before or the tiles of the block
 * before (gemm.c, run_packed_range: where the packed copy does not stream
 * through L2), and the row PD steps ahead is not asked into L1: the loads
 * find it in L2 in ~14 cycles, which the out-of-order window covers, and
 * the two prefetches a step took load slots and fill buffers for nothing
 * (`perf`: the packing tiles ran at 0.74-0.80 of the in-place tiles' rate,
 * their samples on the row loads and this prefetch). The rows of the
 * first PD steps are still asked for as the tile starts. bench_ab_gemm
 * against the build before (with the ring of gemm.c), medians of 30
 * rounds: 1 thread 128 x 1536 x 384 +1.9 %, 128 x 384 x 1536 +1.4 %,
 * 256^3 +0.4 %; 2 threads +1.5 %, +1.4 %, +4.3 %. Without the prefetch
 * everywhere 1024^3 (a packed block of 1.7 MB going through L2, which
 * evicts the rows asked for before) ran 2-3 % slower. With the operands
 * from memory (bench_ab_gemm --cold, as fixed in the twenty-second
 * session) near costs: turned off, 1 thread, 128 x 384 x 1536 +1.2 %,
 * 128 x 1536 x 384 +2.1 %, 256^3 level (quartiles +-2 %); kept for the
 * warm case, which the packing tiles meet most (B an activation). */
/* packb_tile's steps [k0, k1); PF (a constant): with the prefetch of the
 * row PD steps ahead (the steps up to kc - PD) */
ALWAYS_INLINE void packb_steps(const int YMM, const int NEAR, const int PF, __m512 acc[MR][NV],
                               const float **A, const float **B, float **Bp, int64_t ldb,
                               int64_t PD, int64_t k0, int64_t k1)
{
    const float *a = *A, *b0 = *B;
    float *bp = *Bp;
    for (int64_t k = k0; k < k1; k++) {
        if (PF) {
            if (!NEAR) {
                _mm_prefetch((const char *)(b0 + PD * ldb), _MM_HINT_T0);
                _mm_prefetch((const char *)(b0 + PD * ldb + 16), _MM_HINT_T0);
            }
            /* Zen 5: the next B panel's two lines of the same row into L2
             * (its packing tile runs after this panel's other tiles):
             * B from memory (`cairn bench gemm --cold`), each row's 128
             * bytes asked for alone opened a DRAM page for them; with the
             * neighbour's 128 the page serves both. Alternating, 1
             * thread, cold, medians of 3-4: 128 x 1536 x 384 197 -> 211
             * and 191 -> 197.5 GFLOP/s, 128 x 384 x 1536 195 -> 207 and
             * 179 -> 180; cairn / oneDNN 0.83 -> 0.845 (mean of 4 runs);
             * the next two panels (4 lines) no better; warm level. Past
             * B's last column or last row the prefetch asks for lines
             * outside B, which is harmless: prefetches do not fault. */
            if (YMM) {
                _mm_prefetch((const char *)(b0 + PD * ldb + 32), _MM_HINT_T1);
                _mm_prefetch((const char *)(b0 + PD * ldb + 48), _MM_HINT_T1);
            }
        }
        __m512 b[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            b[v] = _mm512_loadu_ps(b0 + 16 * v);
            if (YMM) {
                const __m256d hi = _mm512_extractf64x4_pd(_mm512_castps_pd(b[v]), 1);
                _mm256_storeu_ps(bp + 16 * v, _mm512_castps512_ps256(b[v]));
                _mm256_storeu_ps(bp + 16 * v + 8, _mm256_castpd_ps(hi));
            } else {
                _mm512_storeu_ps(bp + 16 * v, b[v]);
            }
        }
        tile_fma(MR, acc, a, b);
        a += MR;
        b0 += ldb;
        bp += NR;
    }
    *A = a, *B = b0, *Bp = bp;
}

ALWAYS_INLINE void packb_tile(const int YMM, const int NEAR, int64_t kc, const float *A,
                              const float *B, int64_t ldb, float *Bp, float *C, int64_t ldc, int m,
                              float alpha, float beta, const gemm_tile_epi_t *e)
{
    __m512 acc[MR][NV];
    tile_init(MR, acc, NULL, 0);
    const int64_t cpf = c_pf_steps();
    const int64_t kpf = kc > cpf ? kc - cpf : 0;
    const int64_t PD = YMM ? PACKB_PF_ZEN5 : PACKB_PF;
    if (YMM)
        for (int64_t k = 0; k < PD && k < kc; k++) {
            _mm_prefetch((const char *)(B + k * ldb), _MM_HINT_T0);
            _mm_prefetch((const char *)(B + k * ldb + 16), _MM_HINT_T0);
        }
    /* steps [0, pfe) ask for the row PD ahead, and the C tile's lines are
     * asked for at kpf: each range a loop of its own (packa_tile) */
    const int64_t pfe = kc > PD ? kc - PD : 0;
    if (kpf <= pfe) {
        packb_steps(YMM, NEAR, 1, acc, &A, &B, &Bp, ldb, PD, 0, kpf);
        prefetch_c(C, ldc, m, 4);
        packb_steps(YMM, NEAR, 1, acc, &A, &B, &Bp, ldb, PD, kpf, pfe);
        packb_steps(YMM, NEAR, 0, acc, &A, &B, &Bp, ldb, PD, pfe, kc);
    } else {
        packb_steps(YMM, NEAR, 1, acc, &A, &B, &Bp, ldb, PD, 0, pfe);
        packb_steps(YMM, NEAR, 0, acc, &A, &B, &Bp, ldb, PD, pfe, kpf);
        prefetch_c(C, ldc, m, 4);
        packb_steps(YMM, NEAR, 0, acc, &A, &B, &Bp, ldb, PD, kpf, kc);
    }
    store_tile(acc, MR, C, ldc, m, NR, alpha, beta, e, 1);
}

/* Where zmm runs whole (Zen 5) the packed rows go out as four ymm stores
 * (the upper halves by vextractf64x4 to memory) rather than two zmm ones:
 * a stand-alone copy of this loop over a B block in L2 ran at 231-239
 * GFLOP/s with zmm stores, 256-264 with ymm ones and 264-274 storing
 * nothing (Zen 5, 1 thread, best of 200); stores into a ring in L1 were
 * as slow as into the block, so it is the zmm store itself, not the
 * lines it writes (the C tile's zmm stores, a burst at the tile's end,
 * measured the same either way). `cairn bench gemm`, the two builds
 * alternating, medians of 4: 1 thread 128 x 384 x 1536 248.9 -> 251.0
 * GFLOP/s, 128 x 1536 x 384 251.4 -> 253.0; 2 threads 491 -> 497 and
 * 497.5 -> 503.4; 256^3, 512^3 and 1024^3 level. Zen 4 keeps the zmm
 * stores (not measured there). */
static __attribute__((noinline)) void packb_tile_ymm(int64_t kc, const float *A, const float *B,
                                                      int64_t ldb, float *Bp, float *C, int64_t ldc,
                                                      int m, float alpha, float beta,
                                                      const gemm_tile_epi_t *e)
{
    packb_tile(1, 0, kc, A, B, ldb, Bp, C, ldc, m, alpha, beta, e);
}

static __attribute__((noinline)) void packb_tile_ymm_near(int64_t kc, const float *A,
                                                           const float *B, int64_t ldb, float *Bp,
                                                           float *C, int64_t ldc, int m,
                                                           float alpha, float beta,
                                                           const gemm_tile_epi_t *e)
{
    packb_tile(1, 1, kc, A, B, ldb, Bp, C, ldc, m, alpha, beta, e);
}

static __attribute__((noinline)) void packb_tile_zmm(int64_t kc, const float *A, const float *B,
                                                      int64_t ldb, float *Bp, float *C, int64_t ldc,
                                                      int m, float alpha, float beta,
                                                      const gemm_tile_epi_t *e)
{
    packb_tile(0, 0, kc, A, B, ldb, Bp, C, ldc, m, alpha, beta, e);
}

static int packb_ymm = -1; /* gemm_f32_set_packb_ymm */

void gemm_f32_set_packb_ymm(int mode)
{
    packb_ymm = mode < 0 ? -1 : mode > 0;
}

void gemm_f32_ukernel_packb_14x32_avx512(int64_t kc, const float *A, const float *B, int64_t ldb,
                                         float *Bp, float *C, int64_t ldc, int m, float alpha,
                                         float beta, const gemm_tile_epi_t *e, int near)
{
    if (packb_ymm < 0 ? base_cpu()->zmm_halves : !packb_ymm)
        packb_tile_zmm(kc, A, B, ldb, Bp, C, ldc, m, alpha, beta, e);
    else if (near)
        packb_tile_ymm_near(kc, A, B, ldb, Bp, C, ldc, m, alpha, beta, e);
    else
        packb_tile_ymm(kc, A, B, ldb, Bp, C, ldc, m, alpha, beta, e);
}

/* kernel_packed for a whole MR-row tile whose A micro-panel comes from
 * op(A) = A in place (row r at A + r * lda), with STORE (a compile-time
 * flag) written, packed, to Ap (A[k*MR + r], pack_a's layout) as it goes
 * by (uk_packa); B a packed micro-panel, n <= NR of C's columns stored.
 * With STORE each A row's next lines are asked for PACKA_PF steps ahead,
 * every 16 steps: the rows are lda apart, fourteen streams of a float per
 * step. The form that reads A in place and stores nothing (Zen 5, where
 * it is the only one used) asks for nothing: its A block is in L2 for
 * every B panel but the first, and Zen 5's prefetchers follow the
 * fourteen streams from memory. bench_ab_gemm against the build that
 * asked, medians of 15-25 rounds, 1 thread: 128 x 384 x 1536 +1.0 %,
 * 256^3 +0.9 %, 512^3 +0.8 %, 128 x 1536 x 384 +0.5 %, 512 x 768 x 3072
 * +0.5 %, 1024^3 level; 2 threads 256^3 +0.8 %, 512 x 768 x 3072
 * +2.8 %, 128 x 384 x 1536 and 2048^3 level; operands from memory
 * (bench_ab_gemm --cold, fixed later) 128 x 384 x 1536 +1.5 %, 256^3
 * -1.5 %, 128 x 1536 x 384 +1.5 % (quartiles +-2-3 %).
 * With npf > 0 also uk_pf's spread prefetch. Each form runs in a function
 * of its own (packa_tile_store, packa_tile_inplace) for the reason of
 * kernel_packed_full. */
#define PACKA_PF 32
/* packa_tile's steps [k0, k1) of kc; SPREAD (a constant) with uk_pf's
 * spread prefetch. The state (rows, B, Ap, spread) goes on from one range
 * to the next.
 *
 * This loop and packb_steps test nothing a step but (STORE) the prefetch
 * of A's rows: the C prefetch's step splits the loop in two, and the spread
 * prefetch and the B rows' prefetch have loops with and without them. The
 * single loops had compared k with the C prefetch's step and loaded npf,
 * both kept on the stack, every step (59 instructions, 18 loads for 28
 * FMAs; now 54-55 and 16). bench_ab_gemm, Zen 5, 1 thread: in contended
 * stretches of the host (the core shared, ~185-220 GFLOP/s) 128 x 384 x
 * 1536 1.043-1.060, 256^3 1.021-1.036, 512^3 1.030, 128 x 1536 x 384
 * 1.035-1.039; in quieter ones 0.997-1.011 on those and 1024^3; 2
 * threads 1.033-1.050 on 256^3 and the 128-row shapes in a contended
 * stretch, 0.991-1.008 in a quieter one; 512 x 768 x 3072 and 2048^3
 * level; ResNet-50 and the MiniLM encoder level. The same
 * split of kernel_packed's loop (49 and 58 instructions a step against 62)
 * ran 2048^3 on 2 threads (A packed, lda 2048) 3-4 % slower in three
 * runs, for no reason found, and nothing faster elsewhere, so kernel_packed
 * keeps its single loop. gcc spills accumulators if such a loop is
 * unrolled (a chunk of 16 steps was), so it is not. */
typedef struct packa_state {
    const float *p0, *p3, *p4, *p9, *B;
    float *Ap;
    const char *pf;
    int64_t credit;
} packa_state_t;

ALWAYS_INLINE void packa_steps(const int STORE, const int SPREAD, __m512 acc[MR][NV],
                               packa_state_t *st, const float *A, int64_t lda, int64_t k0,
                               int64_t k1, int64_t kc, int64_t npf)
{
    const float *p0 = st->p0, *p3 = st->p3, *p4 = st->p4, *p9 = st->p9, *B = st->B;
    float *Ap = st->Ap;
    const char *pf = st->pf; /* in registers, not through st */
    int64_t credit = st->credit;
    for (int64_t k = k0; k < k1; k++) {
        if (STORE && (k & 15) == 0 && k + PACKA_PF < kc) {
#pragma GCC unroll 16
            for (int r = 0; r < MR; r++)
                _mm_prefetch((const char *)(A + r * lda + k + PACKA_PF), _MM_HINT_T0);
        }
        if (SPREAD)
            spread_prefetch(&pf, &credit, npf, kc);
        __m512 b[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            b[v] = _mm512_load_ps(B + 16 * v);
        /* the 14 rows from four pointers at rows 0, 3, 4 and 9, each row
         * a pointer plus 0, 1, 2, 4 or 8 times lda (one register and the
         * addressing modes' scales) rather than fourteen pointers, which
         * gcc kept partly on the stack */
        const float *ar[MR] = {p0,          p0 + lda,     p0 + 2 * lda, p3,          p0 + 4 * lda,
                               p3 + 2 * lda, p4 + 2 * lda, p3 + 4 * lda, p0 + 8 * lda, p9,
                               p9 + lda,    p3 + 8 * lda, p4 + 8 * lda, p9 + 4 * lda};
#pragma GCC unroll 16
        for (int r = 0; r < MR; r++) {
            const float a = *ar[r];
            if (STORE)
                Ap[r] = a;
            const __m512 av = _mm512_set1_ps(a);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                acc[r][v] = _mm512_fmadd_ps(av, b[v], acc[r][v]);
        }
        if (STORE)
            Ap += MR;
        B += NR;
        p0++, p3++, p4++, p9++;
    }
    st->p0 = p0, st->p3 = p3, st->p4 = p4, st->p9 = p9, st->B = B, st->Ap = Ap;
    st->pf = pf, st->credit = credit;
}

ALWAYS_INLINE void packa_tile(const int STORE, int64_t kc, const float *A, int64_t lda,
                              float *Ap, const float *B, float *C, int64_t ldc, int n, float alpha,
                              float beta, const gemm_tile_epi_t *e, const char *pf, int64_t npf)
{
    __m512 acc[MR][NV];
    tile_init(MR, acc, NULL, 0);
    const int64_t cpf = c_pf_steps();
    const int64_t kpf = kc > cpf ? kc - cpf : 0;
    packa_state_t st = {A, A + 3 * lda, A + 4 * lda, A + 9 * lda, B, Ap, pf, 0};
    /* the steps before and after the C prefetch's, in loops of their own,
     * and the spread prefetch only in a loop for it: no test a step */
    if (npf > 0) {
        packa_steps(STORE, 1, acc, &st, A, lda, 0, kpf, kc, npf);
        prefetch_c(C, ldc, MR, 4);
        packa_steps(STORE, 1, acc, &st, A, lda, kpf, kc, kc, npf);
    } else {
        packa_steps(STORE, 0, acc, &st, A, lda, 0, kpf, kc, 0);
        prefetch_c(C, ldc, MR, 4);
        packa_steps(STORE, 0, acc, &st, A, lda, kpf, kc, kc, 0);
    }
    store_tile(acc, MR, C, ldc, MR, n, alpha, beta, e, 1);
}

static __attribute__((noinline)) void packa_tile_store(int64_t kc, const float *A, int64_t lda,
                                                       float *Ap, const float *B, float *C,
                                                       int64_t ldc, int n, float alpha, float beta,
                                                       const gemm_tile_epi_t *e, const char *pf,
                                                       int64_t npf)
{
    packa_tile(1, kc, A, lda, Ap, B, C, ldc, n, alpha, beta, e, pf, npf);
}

static __attribute__((noinline)) void packa_tile_inplace(int64_t kc, const float *A, int64_t lda,
                                                         const float *B, float *C, int64_t ldc,
                                                         int n, float alpha, float beta,
                                                         const gemm_tile_epi_t *e, const char *pf,
                                                         int64_t npf)
{
    packa_tile(0, kc, A, lda, NULL, B, C, ldc, n, alpha, beta, e, pf, npf);
}

void gemm_f32_ukernel_packa_14x32_avx512(int64_t kc, const float *A, int64_t lda, float *Ap,
                                         const float *B, float *C, int64_t ldc, int n,
                                         float alpha, float beta, const gemm_tile_epi_t *e,
                                         const char *pf, int64_t npf)
{
    if (Ap)
        packa_tile_store(kc, A, lda, Ap, B, C, ldc, n, alpha, beta, e, pf, npf);
    else
        packa_tile_inplace(kc, A, lda, B, C, ldc, n, alpha, beta, e, pf, npf);
}

/* Unpacked operands for ROWS rows (a compile-time count so the loops
 * unroll): never reads past row m or column n. */
ALWAYS_INLINE void kernel_direct(const int ROWS, int64_t kc, const float *A, int64_t rs_a,
                                 int64_t cs_a, const float *B, int64_t ldb, float *C, int64_t ldc,
                                 int m, int n, float alpha, float beta, const gemm_tile_epi_t *e)
{
    __m512 acc[MR][NV];
    const float *ar[MR];
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; r++) {
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            acc[r][v] = _mm512_setzero_ps();
        ar[r] = A + (r < m ? r : m - 1) * rs_a;
    }
    __mmask16 mk[NV];
    for (int v = 0; v < NV; v++)
        mk[v] = lanes(n - 16 * v);
    for (int64_t k = 0; k < kc; k++) {
        __m512 b[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            b[v] = _mm512_maskz_loadu_ps(mk[v], B + 16 * v);
        int64_t ka = k * cs_a;
#pragma GCC unroll 16
        for (int r = 0; r < ROWS; r++) {
            __m512 a = _mm512_set1_ps(ar[r][ka]);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);
        }
        B += ldb;
    }
    store_tile(acc, ROWS, C, ldc, m, n, alpha, beta, e, 0);
}

/* one k step of a whole-row packed tile on its first W vectors */
ALWAYS_INLINE void kstep_w(const int W, __m512 acc[MR][NV], const float *A, const float *B)
{
    __m512 bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < W; v++)
        bv[v] = _mm512_load_ps(B + 16 * v);
    tile_fma_w(MR, W, acc, A, bv);
}

/* A tile of all MR rows and 32 or 16 columns (W vectors) over a short K
 * block (at most SHORT_KC), a column bias and a
 * clip (or ReLU: hi = +inf), beta 0: the pixel-major 1x1 expansions of
 * MobileNetV2's blocks (K = 16 to 96 input channels). The bias starts the
 * accumulators and the store clamps straight from the registers; K = 16,
 * 24 and 32 (KC, a compile-time count) unroll the k loop whole, others
 * (KC 0) loop over kc. Against the general kernel (loop exit, the C
 * prefetch and the epilogue's dispatch cost about as much as 16 FMA
 * steps), MobileNetV2's fused blocks on 1 thread, `cairn profile` medians
 * alternating (Xeon): 16>96>24 at 112x112 0.598 -> 0.549 ms, 24>144>24
 * 0.509 -> 0.489, 24>144>32 0.298 -> 0.282 (K <= 32), the 14x14 blocks 3-5
 * % (K = 64, 96); longer K blocks (the 7x7 blocks' 160) ran no faster or
 * slower, so they keep the general kernel and its C prefetch. The 16-wide
 * form (the general kernel computes a full 32-wide tile there): 24>144>24
 * 0.50 -> 0.455 ms, 24>144>32 0.288 -> 0.250. */
#define SHORT_KC 96
ALWAYS_INLINE void kernel_short_bias_clip(const int KC, const int W, int64_t kc, const float *A,
                                          const float *B, float *C, int64_t ldc,
                                          const gemm_tile_epi_t *e)
{
    /* W: the vectors of the tile's width, 2 (32 columns) or 1 (the first
     * 16 of a panel whose last 16 are past N: an expansion to 144
     * channels ends on one) */
    __m512 acc[MR][NV];
    const __m512 b0 = _mm512_loadu_ps(e->bias_col);
    const __m512 b1 = W > 1 ? _mm512_loadu_ps(e->bias_col + 16) : b0;
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++)
        acc[r][0] = b0, acc[r][1] = b1;
    if (KC) {
#pragma GCC unroll 32
        for (int k = 0; k < KC; k++)
            kstep_w(W, acc, A + k * MR, B + k * NR);
    } else {
        for (int64_t k = 0; k < kc; k++)
            kstep_w(W, acc, A + k * MR, B + k * NR);
    }
    const __m512 lo = _mm512_set1_ps(e->lo), hi = _mm512_set1_ps(e->hi);
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 4
        for (int v = 0; v < W; v++)
            _mm512_storeu_ps(C + r * ldc + 16 * v, _mm512_min_ps(_mm512_max_ps(acc[r][v], lo), hi));
}

/* 1 when kernel_short_bias_clip ran the tile (the uk_pf prefetch of the
 * next B panel is left out there: a short K's panel is a few KB) */
ALWAYS_INLINE int short_bias_clip(int64_t kc, const float *A, const float *B, float *C, int64_t ldc,
                                  int m, int n, float alpha, float beta, const gemm_tile_epi_t *e)
{
    if (!FIXED_EPILOGUES || !e || m < MR || (n != NR && n != 16) || alpha != 1.0f ||
        beta != 0.0f || !e->bias_col || e->bias_row || e->res || e->scale != 1.0f ||
        e->post_act != GEMM_ACT_NONE || (e->act != GEMM_ACT_CLIP && e->act != GEMM_ACT_RELU))
        return 0;
    gemm_tile_epi_t q = *e;
    if (e->act == GEMM_ACT_RELU)
        q.lo = 0.0f, q.hi = INFINITY;
    if (n == 16)
        kernel_short_bias_clip(kc == 24 ? 24 : 0, 1, kc, A, B, C, ldc, &q);
    else if (kc == 16)
        kernel_short_bias_clip(16, 2, kc, A, B, C, ldc, &q);
    else if (kc == 24)
        kernel_short_bias_clip(24, 2, kc, A, B, C, ldc, &q);
    else if (kc == 32)
        kernel_short_bias_clip(32, 2, kc, A, B, C, ldc, &q);
    else
        kernel_short_bias_clip(0, 2, kc, A, B, C, ldc, &q);
    return 1;
}

/* The whole-tile kernel_packed in a function of its own, shared by uk and
 * uk_pf: with 28 accumulators, two B vectors and a broadcast the k loop
 * takes 31 of the 32 zmm registers, and what gcc made of it depended on
 * what else the function held. Inlined beside kernel_direct's row counts,
 * one build spilled accumulators inside the unprefetched kernel's k loop
 * (those tiles, 1/12 of 128 x 384 x 1536, ran at half speed: 8 -> 14 % of
 * the time in perf), and every build kept the tile in a stack array,
 * stored and reloaded around each k loop (store_tile's general path
 * indexed it in a loop gcc did not unroll, so the array was not split into
 * registers). Here the loop holds the tile in registers and the epilogue
 * takes them from there. `cairn bench gemm`, 1 thread, Zen 4, alternating,
 * medians of 5: 128 x 384 x 1536 107.5 -> 108.6 GFLOP/s, 128 x 1536 x 384
 * 108.7 -> 110.9, 512^3 110.2 -> 111.8, 256^3 111.1 -> 112.8; the models'
 * GEMM steps level (their epilogues keep registers busy either way).
 * Check after changing a kernel: `objdump -d` the object and look for
 * zmm moves to or from (%rbp) between a loop's vfmadd231ps. */
static __attribute__((noinline)) void kernel_packed_full(int64_t kc, const float *A,
                                                         const float *B, float *C, int64_t ldc,
                                                         int m, int n, float alpha, float beta,
                                                         const gemm_tile_epi_t *e, const char *pf,
                                                         int64_t npf)
{
    kernel_packed(MR, kc, A, B, C, ldc, m, n, alpha, beta, e, pf, npf);
}

/* Packed panels, the tile's rows picked at compile time (a last panel of m
 * < MR rows costs its rows); with npf > 0 also the prefetch of uk_pf. */
ALWAYS_INLINE void kernel_packed_m(int64_t kc, const float *A, const float *B, float *C,
                                   int64_t ldc, int m, int n, float alpha, float beta,
                                   const gemm_tile_epi_t *e, const char *pf, int64_t npf)
{
    if (kc <= SHORT_KC && short_bias_clip(kc, A, B, C, ldc, m, n, alpha, beta, e))
        return;
    if (m >= MR)
        kernel_packed_full(kc, A, B, C, ldc, m, n, alpha, beta, e, pf, npf);
    else if (m <= 2)
        kernel_packed(2, kc, A, B, C, ldc, m, n, alpha, beta, e, pf, npf);
    else if (m <= 4)
        kernel_packed(4, kc, A, B, C, ldc, m, n, alpha, beta, e, pf, npf);
    else if (m <= 6)
        kernel_packed(6, kc, A, B, C, ldc, m, n, alpha, beta, e, pf, npf);
    else if (m <= 8)
        kernel_packed(8, kc, A, B, C, ldc, m, n, alpha, beta, e, pf, npf);
    else if (m <= 10)
        kernel_packed(10, kc, A, B, C, ldc, m, n, alpha, beta, e, pf, npf);
    else
        kernel_packed_full(kc, A, B, C, ldc, m, n, alpha, beta, e, pf, npf);
}

void gemm_f32_ukernel_pf_14x32_avx512(int64_t kc, const float *A, const float *B, float *C,
                                      int64_t ldc, int m, int n, float alpha, float beta,
                                      const gemm_tile_epi_t *e, const char *pf, int64_t npf)
{
    kernel_packed_m(kc, A, B, C, ldc, m, n, alpha, beta, e, pf, npf);
}

void gemm_f32_ukernel_14x32_avx512(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                                   const float *B, int64_t ldb, float *C, int64_t ldc, int m,
                                   int n, float alpha, float beta, const gemm_tile_epi_t *e)
{
    if (rs_a == 0) {
        kernel_packed_m(kc, A, B, C, ldc, m, n, alpha, beta, e, NULL, 0);
        return;
    }
    if (m <= 1)
        kernel_direct(1, kc, A, rs_a, cs_a, B, ldb, C, ldc, m, n, alpha, beta, e);
    else if (m <= 2)
        kernel_direct(2, kc, A, rs_a, cs_a, B, ldb, C, ldc, m, n, alpha, beta, e);
    else if (m <= 4)
        kernel_direct(4, kc, A, rs_a, cs_a, B, ldb, C, ldc, m, n, alpha, beta, e);
    else if (m <= 8)
        kernel_direct(8, kc, A, rs_a, cs_a, B, ldb, C, ldc, m, n, alpha, beta, e);
    else
        kernel_direct(MR, kc, A, rs_a, cs_a, B, ldb, C, ldc, m, n, alpha, beta, e);
}

/* ---- convolution hooks (gemm_f32_variant_t: indb, tile_store, inda,
 * tile_store_t and their partial-tile forms) on the same 14 x 32 tile ----
 *
 * Indirect B: a(r, k) from the packed A panel, row k of B at B + off[k]
 * (unaligned: a padded input plane at a tap's offset). Indirect A: a(r, k)
 * = px[r][off[k]] (one pointer per pixel of the tile), B a packed panel. */

/* The lines of the tile's rows of C (lines per row, 64 bytes each) into
 * L1 before its k loop: an indirect-B tile's rows are output channel
 * planes, which no hardware prefetcher follows, and the driver's lookahead
 * (two panels ahead in gemm.c) does not cover a tile's first two panels,
 * i.e. all but one of a 32-channel stem's three. MobileNetV2's stem (K =
 * 27) in the model, Zen 4, per-step medians alternating 13 times: 0.438
 * -> 0.374 ms on 1 thread (0.25 -> 0.18-0.22 on 2); the same prefetches
 * issued from the driver, two panels' worth before the first kernel, ran
 * slower (0.488). Prefetch for writing (prefetchw) measured slower than
 * T0 (0.466 against 0.404 in another run). */
ALWAYS_INLINE void prefetch_out(const gemm_indb_epi_t *ep, int rows, int lines)
{
    for (int r = 0; r < rows; r++)
        for (int v = 0; v < lines; v++)
            _mm_prefetch((const char *)ep->C + r * ep->ldc_bytes + 64 * v, _MM_HINT_T0);
}

/* min(max(v, lo), hi) in gemm_indb_epi_t's coding: 0 none, 1 max(v, lo), 2
 * both; a NaN v becomes lo (vmaxps returns its second operand) */
ALWAYS_INLINE __m512 indb_clamp512(__m512 v, int kind, float lo, float hi)
{
    if (kind >= 1)
        v = _mm512_max_ps(v, _mm512_set1_ps(lo));
    if (kind == 2)
        v = _mm512_min_ps(v, _mm512_set1_ps(hi));
    return v;
}

/* rows [0, ROWS) of acc through ep's epilogue into ep->C (all NR columns) */
ALWAYS_INLINE void indb_epi_store(const int ROWS, __m512 acc[MR][NV], const gemm_indb_epi_t *ep)
{
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; r++) {
        float *c = (float *)((char *)ep->C + r * ep->ldc_bytes);
        const float *res =
            ep->res ? (const float *)((const char *)ep->res + r * ep->ldr_bytes) : NULL;
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            __m512 x = acc[r][v];
            if (ep->acc_c)
                x = _mm512_add_ps(x, _mm512_loadu_ps(c + 16 * v));
            if (ep->bias)
                x = _mm512_add_ps(x, _mm512_set1_ps(ep->bias[r]));
            if (ep->bcol)
                x = _mm512_add_ps(x, _mm512_loadu_ps(ep->bcol + 16 * v));
            x = indb_clamp512(x, ep->act, ep->lo, ep->hi);
            if (res)
                x = _mm512_add_ps(x, _mm512_loadu_ps(res + 16 * v));
            _mm512_storeu_ps(c + 16 * v, indb_clamp512(x, ep->post, ep->plo, ep->phi));
        }
    }
}

/* indb_epi_store on a full tile for one epilogue fixed at compile time
 * (ACC: C added first; BIAS per row; ACT and POST in indb_clamp512's
 * coding; RES a residual), as store_tile_fixed for the same reason: the
 * general form re-tested ep's fields for each vector around its stores.
 * ResNet-50's 7x7 stem (bias, ReLU) and MobileNetV2's (bias, clip) through
 * the direct path. */
ALWAYS_INLINE void indb_epi_fixed(__m512 acc[MR][NV], const gemm_indb_epi_t *ep, const int ACC,
                                  const int BIAS, const int ACT, const int RES, const int POST)
{
    char *C = (char *)ep->C;
    const char *res = (const char *)ep->res;
    const int64_t ldc = ep->ldc_bytes, ldr = ep->ldr_bytes;
    const float *bias = ep->bias;
    const __m512 lo = _mm512_set1_ps(ep->lo), hi = _mm512_set1_ps(ep->hi);
    const __m512 plo = _mm512_set1_ps(ep->plo), phi = _mm512_set1_ps(ep->phi);
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++) {
        float *c = (float *)(C + r * ldc);
        const float *rr = RES ? (const float *)(res + r * ldr) : NULL;
        const __m512 br = BIAS ? _mm512_set1_ps(bias[r]) : _mm512_setzero_ps();
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            __m512 x = acc[r][v];
            if (ACC)
                x = _mm512_add_ps(x, _mm512_loadu_ps(c + 16 * v));
            if (BIAS)
                x = _mm512_add_ps(x, br);
            if (ACT >= 1)
                x = _mm512_max_ps(x, lo);
            if (ACT == 2)
                x = _mm512_min_ps(x, hi);
            if (RES)
                x = _mm512_add_ps(x, _mm512_loadu_ps(rr + 16 * v));
            if (POST >= 1)
                x = _mm512_max_ps(x, plo);
            if (POST == 2)
                x = _mm512_min_ps(x, phi);
            _mm512_storeu_ps(c + 16 * v, x);
        }
    }
}

#define INDB_KEY(a, b, t, r, p) (((((a) * 2 + (b)) * 3 + (t)) * 2 + (r)) * 3 + (p))
#define INDB_CASE(a, b, t, r, p)                                                                 \
    case INDB_KEY(a, b, t, r, p):                                                                \
        indb_epi_fixed(acc, ep, a, b, t, r, p);                                                  \
        return 1;

/* A full tile's common epilogues through indb_epi_fixed (1); 0: another
 * (acc_c is the AVX2 kernel's: this driver accumulates K passes in T) */
ALWAYS_INLINE int indb_epi_common(__m512 acc[MR][NV], const gemm_indb_epi_t *ep)
{
    if (!FIXED_EPILOGUES || ep->bcol || ep->act < 0 || ep->act > 2 || ep->post < 0 ||
        ep->post > 2)
        return 0;
    switch (INDB_KEY(ep->acc_c != 0, ep->bias != NULL, ep->act, ep->res != NULL, ep->post)) {
        INDB_CASE(0, 1, 0, 0, 0)
        INDB_CASE(0, 1, 1, 0, 0)
        INDB_CASE(0, 1, 2, 0, 0)
        INDB_CASE(0, 1, 0, 1, 1)
    default:
        return 0;
    }
}

/* c (rows [0, ROWS)) = (T if acc, else 0) + the packed A panel times the
 * rows at B + off[k], k < kc */
ALWAYS_INLINE void indb_rows(const int ROWS, int64_t kc, const float *A, const float *B,
                             const int64_t *off, const float *T, int acc, __m512 c[MR][NV])
{
    tile_init(ROWS, c, T, acc);
    for (int64_t k = 0; k < kc; k++) {
        const float *b = B + off[k];
        __m512 bv[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            bv[v] = _mm512_loadu_ps(b + 16 * v);
        tile_fma(ROWS, c, A, bv);
        A += MR;
    }
}

void gemm_f32_indb_14x32_avx512(int64_t kc, const float *A, const float *B, const int64_t *off,
                                float *T, int acc, const gemm_indb_epi_t *ep)
{
    __m512 c[MR][NV];
    if (ep)
        prefetch_out(ep, MR, NV);
    indb_rows(MR, kc, A, B, off, T, acc, c);
    if (ep && indb_epi_common(c, ep))
        return;
    if (ep)
        indb_epi_store(MR, c, ep);
    else
        tile_save(MR, c, T);
}

/* the switch over a partial tile's row count (1 to 13) that instantiates
 * CALL(r) with a compile-time row count */
#define PART_ROWS(n, CALL)                                                                        \
    switch (n) {                                                                                  \
    case 1: CALL(1); break;                                                                       \
    case 2: CALL(2); break;                                                                       \
    case 3: CALL(3); break;                                                                       \
    case 4: CALL(4); break;                                                                       \
    case 5: CALL(5); break;                                                                       \
    case 6: CALL(6); break;                                                                       \
    case 7: CALL(7); break;                                                                       \
    case 8: CALL(8); break;                                                                       \
    case 9: CALL(9); break;                                                                       \
    case 10: CALL(10); break;                                                                     \
    case 11: CALL(11); break;                                                                     \
    case 12: CALL(12); break;                                                                     \
    default: CALL(13); break;                                                                     \
    }

void gemm_f32_indb_part_avx512(int rows, int64_t kc, const float *A, const float *B,
                               const int64_t *off, const gemm_indb_epi_t *ep)
{
    __m512 c[MR][NV];
    prefetch_out(ep, rows, NV);
#define INDB_PART(r) (indb_rows(r, kc, A, B, off, NULL, 0, c), indb_epi_store(r, c, ep))
    PART_ROWS(rows, INDB_PART)
#undef INDB_PART
}

/* rows [0, ROWS) x 16 columns: one B vector and ROWS broadcasts a k step
 * (14 accumulators cover the FMA latency), then ep's epilogue and the
 * stores from the registers */
ALWAYS_INLINE void indb_half_rows(const int ROWS, int64_t kc, const float *A, const float *B,
                                  const int64_t *off, const gemm_indb_epi_t *ep)
{
    __m512 c[MR];
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; r++)
        c[r] = _mm512_setzero_ps();
    for (int64_t k = 0; k < kc; k++) {
        const __m512 b = _mm512_loadu_ps(B + off[k]);
#pragma GCC unroll 16
        for (int r = 0; r < ROWS; r++)
            c[r] = _mm512_fmadd_ps(_mm512_set1_ps(A[r]), b, c[r]);
        A += MR;
    }
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; r++) {
        __m512 x = c[r];
        if (ep->bias)
            x = _mm512_add_ps(x, _mm512_set1_ps(ep->bias[r]));
        x = indb_clamp512(x, ep->act, ep->lo, ep->hi);
        if (ep->res)
            x = _mm512_add_ps(x, _mm512_loadu_ps((const float *)((const char *)ep->res +
                                                                 r * ep->ldr_bytes)));
        _mm512_storeu_ps((float *)((char *)ep->C + r * ep->ldc_bytes),
                         indb_clamp512(x, ep->post, ep->plo, ep->phi));
    }
}

void gemm_f32_indb_half_avx512(int rows, int64_t kc, const float *A, const float *B,
                               const int64_t *off, const gemm_indb_epi_t *ep)
{
    prefetch_out(ep, rows < MR ? rows : MR, 1);
    if (rows >= MR) {
        indb_half_rows(MR, kc, A, B, off, ep);
        return;
    }
#define INDB_HALF(r) indb_half_rows(r, kc, A, B, off, ep)
    PART_ROWS(rows, INDB_HALF)
#undef INDB_HALF
}

/* T's rows through a column bias and ReLU / clip (or nothing) into C,
 * e's fields read once: epi_store re-reads them after every store to C
 * (which may alias them), 16 cycles a vector where this takes 2-3.
 * MobileNetV2's stem form stores its 112 x 112 x 32 expanded pixels this
 * way (75 -> 15 us of 575). */
ALWAYS_INLINE void tile_store_bias_clamp(const float *T, int m, int n, float *C, int64_t ldc,
                                         const float *bias, gemm_act_t act, float lo, float hi)
{
    __mmask16 mk[NV];
    __m512 b[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++) {
        mk[v] = lanes(n - 16 * v);
        b[v] = bias ? _mm512_maskz_loadu_ps(mk[v], bias + 16 * v) : _mm512_setzero_ps();
    }
    for (int r = 0; r < m; r++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            if (mk[v])
                _mm512_mask_storeu_ps(
                    C + r * ldc + 16 * v, mk[v],
                    vm512_act_simple(_mm512_add_ps(_mm512_loadu_ps(T + r * NR + 16 * v), b[v]),
                                     act, lo, hi));
}

void gemm_f32_tile_store_avx512(const float *T, int m, int n, float *C, int64_t ldc,
                                const gemm_tile_epi_t *e)
{
    if (e && !e->bias_row && !e->res && e->scale == 1.0f && e->post_act == GEMM_ACT_NONE) {
        const float lo = e->lo, hi = e->hi;
        switch (e->act) {
        case GEMM_ACT_NONE:
            tile_store_bias_clamp(T, m, n, C, ldc, e->bias_col, GEMM_ACT_NONE, lo, hi);
            return;
        case GEMM_ACT_RELU:
            tile_store_bias_clamp(T, m, n, C, ldc, e->bias_col, GEMM_ACT_RELU, lo, hi);
            return;
        case GEMM_ACT_CLIP:
            tile_store_bias_clamp(T, m, n, C, ldc, e->bias_col, GEMM_ACT_CLIP, lo, hi);
            return;
        default:
            break;
        }
    }
    if (e) {
        epi_store(T, C, ldc, m, n, 0.0f, e);
        return;
    }
    for (int r = 0; r < m; r++)
        for (int c0 = 0; c0 < n; c0 += 16)
            _mm512_mask_storeu_ps(C + r * ldc + c0, lanes(n - c0),
                                  _mm512_loadu_ps(T + r * NR + c0));
}

ALWAYS_INLINE void inda_rows(const int ROWS, int64_t kc, const float *const *px,
                             const int64_t *off, const float *Bp, float *T, int acc,
                             const char *pf, int64_t npf)
{
    __m512 c[MR][NV];
    const float *p[MR];
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; r++)
        p[r] = px[r];
    tile_init(ROWS, c, T, acc);
    int64_t credit = 0;
    for (int64_t k = 0; k < kc; k++) {
        const int64_t o = off[k];
        spread_prefetch(&pf, &credit, npf, kc);
        __m512 bv[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            bv[v] = _mm512_load_ps(Bp + 16 * v);
#pragma GCC unroll 16
        for (int r = 0; r < ROWS; r++) {
            __m512 a = _mm512_set1_ps(p[r][o]);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                c[r][v] = _mm512_fmadd_ps(a, bv[v], c[r][v]);
        }
        Bp += NR;
    }
    tile_save(ROWS, c, T);
}

/* inda_rows for a whole tile whose pixels are evenly spaced, pixel r at
 * p0 + r ps (a row of a convolution's output, a stride-2 phase plane, the
 * inverted-residual block's pixel-major band): the 14 rows are read from
 * five bases (rows 0, 3, 6, 9, 12) at 0, 1, 2, 4 and 8 strides, the way
 * the addressing modes scale an index, instead of 14 pointers, which with
 * the loop's other registers did not fit in the 15 general registers (the
 * compiler kept 8 of them on the stack and reloaded them every k step). */
/* ROW(r, q, i) for the 14 rows of an evenly spaced tile, row r at q + i
 * bytes, q advanced by sb3 = 3 sb between groups: 0, 1, 2, 4, 8 rows from
 * row 0, then from rows 3, 6, 9, 12 (the scales an address can take) */
#define EVEN_SCHEDULE(ROW, q, sb, sb3)                                                            \
    do {                                                                                          \
        ROW(0, q, 0);                                                                             \
        ROW(1, q, sb);                                                                            \
        ROW(2, q, sb * 2);                                                                        \
        ROW(4, q, sb * 4);                                                                        \
        ROW(8, q, sb * 8);                                                                        \
        q += sb3;                                                                                 \
        ROW(3, q, 0);                                                                             \
        ROW(5, q, sb * 2);                                                                        \
        ROW(7, q, sb * 4);                                                                        \
        ROW(11, q, sb * 8);                                                                       \
        q += sb3;                                                                                 \
        ROW(6, q, 0);                                                                             \
        ROW(10, q, sb * 4);                                                                       \
        q += sb3;                                                                                 \
        ROW(9, q, 0);                                                                             \
        ROW(13, q, sb * 4);                                                                       \
        q += sb3;                                                                                 \
        ROW(12, q, 0);                                                                            \
    } while (0)

ALWAYS_INLINE void inda_rows_even(int64_t kc, const float *p0, int64_t ps, const int64_t *off,
                                  const float *Bp, float *T, int acc, const char *pf,
                                  int64_t npf)
{
    __m512 c[MR][NV];
    tile_init(MR, c, T, acc);
    int64_t credit = 0;
    const int64_t sb = ps * (int64_t)sizeof(float), sb3 = 3 * sb; /* bytes */
#define EVEN_ROW(r, q, i)                                                                         \
    do {                                                                                          \
        const __m512 a_ = _mm512_set1_ps(*(const float *)((q) + (i)));                            \
        c[r][0] = _mm512_fmadd_ps(a_, bv[0], c[r][0]);                                            \
        c[r][1] = _mm512_fmadd_ps(a_, bv[1], c[r][1]);                                            \
    } while (0)
    for (int64_t k = 0; k < kc; k++) {
        spread_prefetch(&pf, &credit, npf, kc);
        const __m512 bv[NV] = {_mm512_load_ps(Bp), _mm512_load_ps(Bp + 16)};
        const char *q = (const char *)(p0 + off[k]);
        EVEN_SCHEDULE(EVEN_ROW, q, sb, sb3);
        Bp += NR;
    }
#undef EVEN_ROW
    tile_save(MR, c, T);
}

/* the even spacing of px's MR pixels, or 0 when they are not evenly spaced */
ALWAYS_INLINE int64_t inda_spacing(const float *const *px)
{
    const int64_t ps = px[1] - px[0];
    for (int r = 2; r < MR; r++)
        if (px[r] - px[0] != r * ps)
            return 0;
    return ps;
}

void gemm_f32_inda_14x32_avx512(int64_t kc, const float *const *px, const int64_t *off,
                                const float *Bp, float *T, int acc)
{
    const int64_t ps = inda_spacing(px);
    if (ps)
        inda_rows_even(kc, px[0], ps, off, Bp, T, acc, NULL, 0);
    else
        inda_rows(MR, kc, px, off, Bp, T, acc, NULL, 0);
}

void gemm_f32_inda_pf_14x32_avx512(int64_t kc, const float *const *px, const int64_t *off,
                                   const float *Bp, float *T, int acc, const char *pf,
                                   int64_t npf)
{
    const int64_t ps = inda_spacing(px);
    if (ps)
        inda_rows_even(kc, px[0], ps, off, Bp, T, acc, pf, npf);
    else
        inda_rows(MR, kc, px, off, Bp, T, acc, pf, npf);
}

/* inda_rows_even on the first 16 (H 0) or 24 (H 1) columns of the tile: a
 * zmm accumulator per row, and with H a ymm one for columns 16-23 fed by
 * the zmm broadcast's lower half. Zen 4 runs a zmm FMA as two 256-bit
 * halves, so 24 columns cost 3 halves a row where the whole tile costs 4
 * (a projection to 24 channels: 21 cycles a k step instead of 28); cores
 * with 512-bit FMA ports issue a ymm FMA in a zmm's slot and run it level. */
ALWAYS_INLINE void inda_rows_even_narrow(const int H, int64_t kc, const float *p0, int64_t ps,
                                         const int64_t *off, const float *Bp, float *T, int acc,
                                         const char *pf, int64_t npf)
{
    __m512 c[MR];
    __m256 h[MR];
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++) {
        c[r] = acc ? _mm512_load_ps(T + r * NR) : _mm512_setzero_ps();
        h[r] = H && acc ? _mm256_load_ps(T + r * NR + 16) : _mm256_setzero_ps();
    }
    int64_t credit = 0;
    const int64_t sb = ps * (int64_t)sizeof(float), sb3 = 3 * sb; /* bytes */
    /* Each FMA broadcasts a[r] from memory itself ({1to16}, {1to8}; the
     * ymm one in asm, which the compiler would otherwise fold into one
     * vbroadcastss shared by both): on Zen 4 a separate broadcast costs
     * FMA-port time the embedded one does not. A loop of the k step alone:
     * 14 x 24 23.3 -> 21.2 cycles (21 is the FMAs' own); 14 x 16 (one
     * FMA, which the compiler folds anyway) 18.6 against 14.1. */
#define NARROW_ROW(r, q, i)                                                                       \
    do {                                                                                          \
        const float *a_ = (const float *)((q) + (i));                                             \
        c[r] = _mm512_fmadd_ps(_mm512_set1_ps(*a_), b0, c[r]);                                    \
        if (H)                                                                                    \
            __asm__("vfmadd231ps %2%{1to8%}, %1, %0" : "+v"(h[r]) : "v"(b1), "m"(*a_));           \
    } while (0)
    for (int64_t k = 0; k < kc; k++) {
        spread_prefetch(&pf, &credit, npf, kc);
        const __m512 b0 = _mm512_load_ps(Bp);
        const __m256 b1 = H ? _mm256_load_ps(Bp + 16) : _mm256_setzero_ps();
        const char *q = (const char *)(p0 + off[k]);
        EVEN_SCHEDULE(NARROW_ROW, q, sb, sb3);
        Bp += NR;
    }
#undef NARROW_ROW
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++) {
        _mm512_store_ps(T + r * NR, c[r]);
        if (H)
            _mm256_store_ps(T + r * NR + 16, h[r]);
    }
}

void gemm_f32_inda_narrow_avx512(int nch, int64_t kc, const float *const *px, const int64_t *off,
                                 const float *Bp, float *T, int acc, const char *pf, int64_t npf)
{
    const int64_t ps = inda_spacing(px);
    if (ps && nch <= 16)
        inda_rows_even_narrow(0, kc, px[0], ps, off, Bp, T, acc, pf, npf);
    else if (ps && nch <= 24)
        inda_rows_even_narrow(1, kc, px[0], ps, off, Bp, T, acc, pf, npf);
    else if (ps)
        inda_rows_even(kc, px[0], ps, off, Bp, T, acc, pf, npf);
    else
        inda_rows(MR, kc, px, off, Bp, T, acc, pf, npf);
}

void gemm_f32_inda_part_avx512(int npx, int64_t kc, const float *const *px, const int64_t *off,
                               const float *Bp, float *T, int acc)
{
#define INDA_PART(r) inda_rows(r, kc, px, off, Bp, T, acc, NULL, 0)
    PART_ROWS(npx, INDA_PART)
#undef INDA_PART
}

/* Columns [c0, c0 + 16) of T's first npx rows, transposed: r[c] holds
 * channel c0 + c's npx pixels (lanes past npx zero). */
ALWAYS_INLINE void tile_t_block(const float *T, int npx, int c0, __m512 r[16])
{
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++)
        r[i] = i < npx ? _mm512_load_ps(T + i * NR + c0) : _mm512_setzero_ps();
    vm512_transpose16(r);
}

/* T's npx pixel rows through e into C's channel rows, e's fields read once
 * (e's floats would otherwise be reloaded after every store to C); SIMPLE
 * (a constant): both activations clamp-type, inline, else act512 (a call
 * per vector, the transcendental ones) */
ALWAYS_INLINE void tile_store_t_epi(const float *T, int npx, int nch, float *C, int64_t ldc,
                                    const gemm_tile_epi_t *e, const int SIMPLE)
{
    const __mmask16 mk = lanes(npx);
    const float *bias = e->bias_row, *res = e->res;
    const int64_t ldr = e->ldr;
    const gemm_act_t act = e->act, post = e->post_act;
    const float lo = e->lo, hi = e->hi, plo = e->post_lo, phi = e->post_hi;
    const int scaled = e->scale != 1.0f;
    const __m512 vs = _mm512_set1_ps(e->scale);
    __m512 r[16];
    for (int c0 = 0; c0 < nch; c0 += 16) {
        tile_t_block(T, npx, c0, r);
#pragma GCC unroll 16
        for (int cc = 0; cc < 16; cc++) {
            const int c = c0 + cc;
            if (c >= nch)
                break;
            __m512 v = r[cc];
            if (bias)
                v = _mm512_add_ps(v, _mm512_set1_ps(bias[c]));
            v = SIMPLE ? vm512_act_simple(v, act, lo, hi) : act512(v, act, lo, hi);
            if (scaled)
                v = _mm512_mul_ps(v, vs);
            if (res)
                v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, res + c * ldr));
            v = SIMPLE ? vm512_act_simple(v, post, plo, phi) : act512(v, post, plo, phi);
            _mm512_mask_storeu_ps(C + c * ldc, mk, v);
        }
    }
}

/* T (npx pixel rows of NR channels) into C's channel rows: C[c * ldc + r],
 * 16 channels at a time transposed in registers. A gather per channel (14
 * lanes from T's column) took a fifth of a projection to 24 channels on
 * Zen 4, whose gathers move about one element a cycle; the transpose is
 * 64 shuffles per 16 channels. */
void gemm_f32_tile_store_t_avx512(const float *T, int npx, int nch, float *C, int64_t ldc,
                                  const gemm_tile_epi_t *e)
{
    static const gemm_tile_epi_t none = {NULL, NULL, GEMM_ACT_NONE, 0.0f, 0.0f, 1.0f,
                                         NULL, 0, GEMM_ACT_NONE, 0.0f, 0.0f};
    if (!e)
        e = &none;
    if (gemm_act_is_simple(e->act) && gemm_act_is_simple(e->post_act))
        tile_store_t_epi(T, npx, nch, C, ldc, e, 1);
    else
        tile_store_t_epi(T, npx, nch, C, ldc, e, 0);
}

/* ---- GEMV-like products against a packed B (gemm_f32_variant_t.gemv_packed) ----
 *
 * ROWS (1 to 4) rows of A, used in place, times PW consecutive NR-column
 * panels of B at once: PW streams of B in flight and 2 ROWS PW independent
 * accumulator chains. Columns [n0, n1) of C, n1 - n0 <= PW NR; B is padded
 * to whole panels, so only the store is masked. */
ALWAYS_INLINE void gemv_panels(const int ROWS, const int PW, int64_t K, int64_t kc, int64_t npad,
                               float alpha, const float *A, int64_t rs_a, int64_t cs_a,
                               const float *Bp, int64_t n0, int64_t n1, float *C, int64_t ldc)
{
    __m512 acc[4][4][NV];
#pragma GCC unroll 4
    for (int r = 0; r < ROWS; r++)
#pragma GCC unroll 4
        for (int q = 0; q < PW; q++)
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                acc[r][q][v] = _mm512_setzero_ps();
    for (int64_t pc = 0; pc < K; pc += kc) {
        const int64_t kcb = K - pc < kc ? K - pc : kc;
        const float *b = Bp + pc * npad + n0 * kcb;
        const int64_t ps = kcb * NR; /* panel stride */
        const float *a = A + pc * cs_a;
        for (int64_t k = 0; k < kcb; k++, b += NR, a += cs_a) {
            __m512 bv[4][NV];
#pragma GCC unroll 4
            for (int q = 0; q < PW; q++)
#pragma GCC unroll 4
                for (int v = 0; v < NV; v++)
                    bv[q][v] = _mm512_load_ps(b + q * ps + 16 * v);
#pragma GCC unroll 4
            for (int r = 0; r < ROWS; r++) {
                const __m512 av = _mm512_set1_ps(a[r * rs_a]);
#pragma GCC unroll 4
                for (int q = 0; q < PW; q++)
#pragma GCC unroll 4
                    for (int v = 0; v < NV; v++)
                        acc[r][q][v] = _mm512_fmadd_ps(av, bv[q][v], acc[r][q][v]);
            }
        }
    }
    const __m512 va = _mm512_set1_ps(alpha);
#pragma GCC unroll 4
    for (int r = 0; r < ROWS; r++)
#pragma GCC unroll 4
        for (int q = 0; q < PW; q++)
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) {
                const int64_t c0 = n0 + q * NR + 16 * v;
                _mm512_mask_storeu_ps(C + r * ldc + c0, lanes((int)(n1 - c0 < 16 ? n1 - c0 : 16)),
                                      _mm512_mul_ps(va, acc[r][q][v]));
            }
}

/* one row: 4 panels at a time (the classifiers, 1 x 1280 x 1000 with B
 * from memory); 2 to 4 rows: 2 panels; the last group takes the panels
 * that are left (B is padded only to whole panels) */
void gemm_f32_gemv_packed_avx512(int m, int64_t K, int64_t kc, int64_t npad, float alpha,
                                 const float *A, int64_t rs_a, int64_t cs_a, const float *Bp,
                                 int64_t n0, int64_t n1, float *C, int64_t ldc)
{
    for (int r0 = 0; r0 < m; r0 += 4) {
        const int rows = m - r0 < 4 ? m - r0 : 4;
        const float *a = A + r0 * rs_a;
        float *c = C + r0 * ldc;
        const int width = rows == 1 ? 4 : 2;
        for (int64_t j = n0; j < n1;) {
            const int64_t left = (n1 - j + NR - 1) / NR;
            const int pw = left < width ? (int)left : width;
            const int64_t e = j + pw * NR < n1 ? j + pw * NR : n1;
#define GEMV(R, P) gemv_panels(R, P, K, kc, npad, alpha, a, rs_a, cs_a, Bp, j, e, c, ldc)
            switch (rows * 8 + pw) {
            case 8 + 4: GEMV(1, 4); break;
            case 8 + 3: GEMV(1, 3); break;
            case 8 + 2: GEMV(1, 2); break;
            case 8 + 1: GEMV(1, 1); break;
            case 16 + 2: GEMV(2, 2); break;
            case 16 + 1: GEMV(2, 1); break;
            case 24 + 2: GEMV(3, 2); break;
            case 24 + 1: GEMV(3, 1); break;
            case 32 + 2: GEMV(4, 2); break;
            default: GEMV(4, 1); break;
            }
#undef GEMV
            j = e;
        }
    }
}

/* Packing when the panel's lanes are rows of the source, contiguous in k
 * (op(A) = A, op(B) = B^T), while panels want k-major order: 16 k values of
 * up to 16 lanes are loaded as 16 row vectors, transposed in registers
 * (unpack, shuffle, two lane shuffles) and stored as 16 columns. Panels of
 * width p (<= 32) are done 16 lanes at a time; lanes past `lanes_valid`
 * are zero. src points at lane 0, k 0; lane i starts at src + i*ld. */
static void pack_kmajor(const float *src, int64_t ld, int lanes_valid, int64_t kc, int p,
                        float *d)
{
    for (int l0 = 0; l0 < p; l0 += 16) {
        int lw = p - l0 < 16 ? p - l0 : 16;
        int valid = lanes_valid - l0;
        const __mmask16 colmask = lanes(lw);
        for (int64_t k0 = 0; k0 < kc; k0 += 16) {
            int w = (int)(kc - k0 < 16 ? kc - k0 : 16);
            __mmask16 km = lanes(w);
            __m512 r[16];
            for (int i = 0; i < 16; i++)
                r[i] = i < valid ? _mm512_maskz_loadu_ps(km, src + (l0 + i) * ld + k0)
                                 : _mm512_setzero_ps();
            vm512_transpose16(r); /* r[kk]: k0 + kk of the 16 lanes */
            for (int kk = 0; kk < w; kk++)
                _mm512_mask_storeu_ps(d + (k0 + kk) * p + l0, colmask, r[kk]);
        }
    }
}

/* op(A) = A^T (a convolution's channel planes: its pixels are the rows of
 * the product) into panels of mr <= 16 rows: each k step of a panel is mr
 * consecutive floats of one row of A, one masked vector in and one out,
 * the rows past the block's end zero. K in steps of 8 rows of A across
 * every panel, a few long runs for the prefetchers (as pack.c). */
static void pack_a_t16(const float *A, int64_t lda, int64_t i0, int64_t p0, int64_t mc,
                       int64_t kc, int mr, float *dst)
{
    const __mmask16 out = lanes(mr);
    for (int64_t k0 = 0; k0 < kc; k0 += 8) {
        const int64_t kn = kc - k0 < 8 ? kc - k0 : 8;
        for (int64_t q = 0; q < mc; q += mr) {
            const __mmask16 in = lanes((int)(mc - q < mr ? mc - q : mr));
            const float *r = A + (p0 + k0) * lda + i0 + q;
            float *d = dst + q * kc + k0 * mr;
            for (int64_t k = 0; k < kn; k++)
                _mm512_mask_storeu_ps(d + k * mr, out, _mm512_maskz_loadu_ps(in, r + k * lda));
        }
    }
}

void gemm_f32_pack_a_avx512(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0,
                            int64_t mc, int64_t kc, int mr, float *dst)
{
    if (transA && mr <= 16) {
        pack_a_t16(A, lda, i0, p0, mc, kc, mr, dst);
        return;
    }
    if (transA || mr > 32) {
        gemm_f32_pack_a(transA, A, lda, i0, p0, mc, kc, mr, dst);
        return;
    }
    for (int64_t q = 0; q < mc; q += mr)
        pack_kmajor(A + (i0 + q) * lda + p0, lda, (int)(mc - q < mr ? mc - q : mr), kc, mr,
                    dst + q * kc);
}

/* op(B) = B into NR-wide panels with zmm copies: a block's rows are read
 * 8 at a time across every panel (the order of gemm_f32_pack_b_block, a few
 * long runs for the prefetchers), the last partial panel by masked loads
 * with its padding zeroed. The portable copy (128-bit moves in a baseline
 * build) packed ResNet-50's activations for its 1x1 convolutions. */
static void pack_b_rows32(const float *B, int64_t ldb, int64_t p0, int64_t j0, int64_t kc,
                          int64_t nc, float *dst)
{
    for (int64_t k0 = 0; k0 < kc; k0 += 8) {
        const int64_t kn = kc - k0 < 8 ? kc - k0 : 8;
        for (int64_t q = 0; q < nc; q += NR) {
            const int w = (int)(nc - q < NR ? nc - q : NR);
            const __mmask16 m0 = lanes(w), m1 = lanes(w - 16);
            float *d = dst + q * kc + k0 * NR;
            const float *src = B + (p0 + k0) * ldb + j0 + q;
            for (int64_t k = 0; k < kn; k++, d += NR, src += ldb) {
                _mm512_store_ps(d, _mm512_maskz_loadu_ps(m0, src));
                _mm512_store_ps(d + 16, _mm512_maskz_loadu_ps(m1, src + 16));
            }
        }
    }
}

void gemm_f32_pack_b_avx512(int transB, const float *B, int64_t ldb, int64_t p0, int64_t j0,
                            int64_t kc, int64_t nc, int nr, float *dst)
{
    if (!transB && nr == NR && ((uintptr_t)dst & 63) == 0) {
        pack_b_rows32(B, ldb, p0, j0, kc, nc, dst);
        return;
    }
    if (!transB || nr > 32) {
        gemm_f32_pack_b_block(transB, B, ldb, p0, j0, kc, nc, nr, dst);
        return;
    }
    for (int64_t q = 0; q < nc; q += nr)
        pack_kmajor(B + (j0 + q) * ldb + p0, ldb, (int)(nc - q < nr ? nc - q : nr), kc, nr,
                    dst + q * kc);
}

/* One row of C, columns [j, j + 16) at cp, plus a[0..7] times B's 8 rows
 * bv (two chains of four FMAs); MASKED (compile-time) under mk. */
ALWAYS_INLINE void smallm_row(const int MASKED, __mmask16 mk, float *cp, const __m512 bv[8],
                              const __m512 a[8])
{
    __m512 c = MASKED ? _mm512_maskz_loadu_ps(mk, cp) : _mm512_loadu_ps(cp);
    __m512 c2 = _mm512_mul_ps(a[4], bv[4]);
    c = _mm512_fmadd_ps(a[0], bv[0], c);
    c2 = _mm512_fmadd_ps(a[5], bv[5], c2);
    c = _mm512_fmadd_ps(a[1], bv[1], c);
    c2 = _mm512_fmadd_ps(a[6], bv[6], c2);
    c = _mm512_fmadd_ps(a[2], bv[2], c);
    c2 = _mm512_fmadd_ps(a[7], bv[7], c2);
    c = _mm512_fmadd_ps(a[3], bv[3], c);
    if (MASKED)
        _mm512_mask_storeu_ps(cp, mk, _mm512_add_ps(c, c2));
    else
        _mm512_storeu_ps(cp, _mm512_add_ps(c, c2));
}

/* One 16-column step of smallm's 8-row group (gemm_f32_smallm_avx512):
 * rows k0..k0+7 of B (at b) times aa's 8 x m values (av's broadcasts, row r
 * at av[8 r], where MM, the rows, is a compile-time count) into C's m rows,
 * columns [j, j + 16), with pf the next group's lines asked for into L2.
 * MASKED (a compile-time flag) loads and stores under mk: the last, partial
 * step, and where smallm_groups says so. */
ALWAYS_INLINE void smallm_group(const int MASKED, __mmask16 mk, int pf, const float *b,
                                int64_t ldb, int64_t j, float aa[8][16], int m, float *C,
                                int64_t ldc, const int MM, const __m512 *av)
{
    if (pf)
        for (int i = 8; i < 16; i++)
            _mm_prefetch((const char *)(b + i * ldb + j), _MM_HINT_T1);
    __m512 bv[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
        bv[i] = MASKED ? _mm512_maskz_loadu_ps(mk, b + i * ldb + j)
                       : _mm512_loadu_ps(b + i * ldb + j);
    if (MM) {
#pragma GCC unroll 4
        for (int r = 0; r < MM; r++)
            smallm_row(MASKED, mk, C + r * ldc + j, bv, av + 8 * r);
        return;
    }
    for (int r = 0; r < m; r++) {
        __m512 a[8];
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++)
            a[i] = _mm512_set1_ps(aa[i][r]);
        smallm_row(MASKED, mk, C + r * ldc + j, bv, a);
    }
}

/* smallm's whole 8-row groups of K (MM > 0: m = MM at compile time);
 * returns the first k not done */
ALWAYS_INLINE int64_t smallm_groups(const int MM, int m, int stream, int64_t n, int64_t K,
                                    float alpha, const float *A, int64_t rs_a, int64_t cs_a,
                                    const float *B, int64_t ldb, float *C, int64_t ldc)
{
    if (MM)
        m = MM;
    /* With 8 rows of C or more, a multiple of 4 KB apart, and B in cache,
     * each row's load of C waited for the row before's store at the same
     * address bits: Zen 5, unmasked, 16 x 1024 x 1024 105 GFLOP/s, 8 x 1024 x
     * 1024 152; masked loads and stores under a mask the compiler cannot fold
     * away do not (130-135, 175), so those rows keep them. B from memory
     * hides it (8 x 4096 x 4096 unmasked 140, masked 117-139). */
    const int alias = m >= 8 && !stream && ldc % 1024 == 0;
    unsigned ones = 0xFFFF;
    __asm__("" : "+r"(ones));
    const __mmask16 full = (__mmask16)ones;
    float aa[8][16];
    int64_t k0 = 0;
    for (; k0 + 8 <= K; k0 += 8) {
        for (int i = 0; i < 8; i++)
            for (int r = 0; r < m; r++)
                aa[i][r] = alpha * A[r * rs_a + (k0 + i) * cs_a];
        __m512 av[8 * (MM ? MM : 1)];
#pragma GCC unroll 16
        for (int q = 0; q < 8 * MM; q++)
            av[q] = _mm512_set1_ps(aa[q % 8][q / 8]);
        const float *b = B + k0 * ldb;
        const int pf = stream && k0 + 16 <= K;
        int64_t j = 0;
        if (alias)
            for (; j + 16 <= n; j += 16)
                smallm_group(1, full, pf, b, ldb, j, aa, m, C, ldc, MM, av);
        else
            for (; j + 16 <= n; j += 16)
                smallm_group(0, 0xFFFF, pf, b, ldb, j, aa, m, C, ldc, MM, av);
        if (j < n)
            smallm_group(1, (__mmask16)((1u << (n - j)) - 1u), pf, b, ldb, j, aa, m, C, ldc, MM,
                         av);
    }
    return k0;
}

static __attribute__((noinline)) int64_t smallm_groups_any(int m, int stream, int64_t n,
                                                           int64_t K, float alpha, const float *A,
                                                           int64_t rs_a, int64_t cs_a,
                                                           const float *B, int64_t ldb, float *C,
                                                           int64_t ldc)
{
    return smallm_groups(0, m, stream, n, K, alpha, A, rs_a, cs_a, B, ldb, C, ldc);
}

#define SMALLM_GROUPS_FN(R)                                                                       \
    static __attribute__((noinline)) int64_t smallm_groups##R(                                   \
        int stream, int64_t n, int64_t K, float alpha, const float *A, int64_t rs_a,           \
        int64_t cs_a, const float *B, int64_t ldb, float *C, int64_t ldc)                       \
    {                                                                                            \
        return smallm_groups(R, R, stream, n, K, alpha, A, rs_a, cs_a, B, ldb, C, ldc);         \
    }
SMALLM_GROUPS_FN(1)

/* See gemm_f32_smallm_fn. K is taken 8 rows of B at a time: each C vector
 * is loaded and stored once per 8 FMAs, and the 8 B rows are 8 sequential
 * streams the hardware prefetcher follows. Where B is larger than half the
 * last-level cache (a decoder's weights, streamed from memory every run),
 * the next 8 rows' lines are asked for into L2 as this group passes their
 * columns, a group (8 rows of n floats) ahead: Zen 4, 1 x 4096 x 4096,
 * alternating, medians of 5, 13.7 -> 14.8 GFLOP/s on 1 thread and 19.9 ->
 * 21.8 on 2, 8 x 4096 x 4096 69.9 -> 76.5 and 104 -> 118; a B within
 * the cache (1 x 1024 x 1024, 4 x 768 x 3072) level or slower with them,
 * so there they are not issued (T0 and NTA hints measured slower than
 * T1).
 * Zen 5: the whole 16-column steps load and store C and B unmasked (the
 * mask was set every step), one row (a decoder's GEMV) has its own copy
 * with the 8 broadcasts in registers, and there no prefetches (its
 * hardware prefetchers keep up with 8 streams of one row; with them 18 ->
 * 20.5 GFLOP/s without). The two builds alternating, medians of 3, 1
 * thread: 1 x 4096 x 4096 17.7 -> 24.4 GFLOP/s, 2 x 4096 x 4096 32 ->
 * 39, 8 x 4096 x 4096 120-142 -> 146-151, 4 x 1024 x 1024 142 -> 150, 12 x
 * 1000 x 1000 147 -> 153; 2 threads 1 x 4096 x 4096 27 -> 34; 8 x 1024 x
 * 1024 and 16 x 1024 x 1024 level (smallm_groups keeps their masks). */
void gemm_f32_smallm_avx512(int m, int64_t n, int64_t K, float alpha, const float *A,
                            int64_t rs_a, int64_t cs_a, const float *B, int64_t ldb, float beta,
                            float *C, int64_t ldc)
{
    const size_t l3 = base_cpu()->l3 ? base_cpu()->l3 : 32u * 1024 * 1024;
    const int stream = (double)K * (double)n * sizeof(float) > (double)(l3 / 2) &&
                       (m > 1 || base_cpu()->zmm_halves);
    for (int r = 0; r < m; r++) {
        float *cr = C + r * ldc;
        for (int64_t j = 0; j < n; j += 16) {
            __mmask16 mk = n - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1u);
            __m512 v = beta == 0.0f ? _mm512_setzero_ps()
                                    : _mm512_mul_ps(_mm512_set1_ps(beta),
                                                    _mm512_maskz_loadu_ps(mk, cr + j));
            _mm512_mask_storeu_ps(cr + j, mk, v);
        }
    }
    int64_t k0 = m == 1 ? smallm_groups1(stream, n, K, alpha, A, rs_a, cs_a, B, ldb, C, ldc)
                        : smallm_groups_any(m, stream, n, K, alpha, A, rs_a, cs_a, B, ldb, C, ldc);
    float aa[8][16];
    for (; k0 < K; k0++) {
        for (int r = 0; r < m; r++)
            aa[0][r] = alpha * A[r * rs_a + k0 * cs_a];
        const float *b = B + k0 * ldb;
        for (int64_t j = 0; j < n; j += 16) {
            __mmask16 mk = n - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1u);
            __m512 b0 = _mm512_maskz_loadu_ps(mk, b + j);
            for (int r = 0; r < m; r++) {
                float *cp = C + r * ldc + j;
                __m512 c = _mm512_maskz_loadu_ps(mk, cp);
                c = _mm512_fmadd_ps(_mm512_set1_ps(aa[0][r]), b0, c);
                _mm512_mask_storeu_ps(cp, mk, c);
            }
        }
    }
}

/* ---- bf16 and int8 (lowp.c) ----
 *
 * The same 14 x 32 register tile over grouped-K panels (gemm_kern_t): one
 * k group is 2 zmm of B and 14 32-bit broadcasts of A, each broadcast one
 * row's group (a bf16 pair, a u8 quad, an s16 pair). The bf16 kernel keeps
 * f32 accumulators and shares store_tile (alpha, beta, epilogue) with f32.
 * The int8 kernels' C is s32: beta != 0 adds C, nothing else. */

#define LOWP_TARGET_BF16 __attribute__((target("avx512bf16")))
#define LOWP_TARGET_VNNI __attribute__((target("avx512vnni")))

ALWAYS_INLINE __m512i bcast32(const void *p)
{
    int32_t x;
    memcpy(&x, p, 4);
    return _mm512_set1_epi32(x);
}

/* The bf16 tile over R of the panel's rows (R = MR: the whole panel), CH
 * chains of accumulators over the k pairs (as S8_TILE_ROWS, below, for
 * the int8 tile: the whole panel's 14 rows of work whatever m is made a
 * one-row product 14 times as long: 1 x 4096 x 4096 4.7 ms, the time of
 * 14 rows). Each form a function of its own, so that each keeps its
 * accumulators in registers. */
#define BF16_TILE_FN(name, R, CH)                                                                 \
    LOWP_TARGET_BF16 static __attribute__((noinline)) GEMM_LOWP_UK(name)                         \
    {                                                                                             \
        (void)kn;                                                                                 \
        const uint16_t *a = A, *b = B;                                                            \
        __m512 acc[CH][R][NV], out[MR][NV];                                                       \
        _Pragma("GCC unroll 4") for (int h = 0; h < CH; h++)                                      \
            _Pragma("GCC unroll 16") for (int r = 0; r < R; r++)                                  \
                _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[h][r][v] =               \
                    _mm512_setzero_ps();                                                          \
        const int64_t ng = (kc + 1) / 2, kpf = ng > 12 ? ng - 12 : 0;                             \
        float *cf = C;                                                                            \
        for (int64_t g = 0; g < ng; g += CH) {                                                    \
            if (g <= kpf && kpf < g + CH)                                                         \
                prefetch_c(cf, ldc, m, 4);                                                        \
            _Pragma("GCC unroll 4") for (int h = 0; h < CH; h++)                                  \
            {                                                                                     \
                if (CH > 1 && g + h >= ng)                                                        \
                    break;                                                                        \
                __m512bh bv[NV];                                                                  \
                _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) bv[v] =                      \
                    (__m512bh)_mm512_load_si512(b + 32 * v);                                      \
                _Pragma("GCC unroll 16") for (int r = 0; r < R; r++)                              \
                {                                                                                 \
                    __m512bh av = (__m512bh)bcast32(a + 2 * r);                                   \
                    _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[h][r][v] =           \
                        _mm512_dpbf16_ps(acc[h][r][v], av, bv[v]);                                \
                }                                                                                 \
                a += 2 * MR;                                                                      \
                b += 2 * NR;                                                                      \
            }                                                                                     \
        }                                                                                         \
        _Pragma("GCC unroll 16") for (int r = 0; r < MR; r++)                                     \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                  \
        {                                                                                         \
            __m512 x = _mm512_setzero_ps();                                                       \
            if (r < R)                                                                            \
                _Pragma("GCC unroll 4") for (int h = 0; h < CH; h++) x =                          \
                    _mm512_add_ps(x, acc[h][r < R ? r : 0][v]);                                   \
            out[r][v] = x;                                                                        \
        }                                                                                         \
        store_tile(out, MR, cf, ldc, m, n, alpha, beta, e, 0);                                    \
    }
BF16_TILE_FN(bf16_tile, MR, 1)
BF16_TILE_FN(bf16_rows1, 1, 4)
BF16_TILE_FN(bf16_rows4, 4, 1)
BF16_TILE_FN(bf16_rows8, 8, 1)

LOWP_TARGET_BF16 GEMM_LOWP_UK(gemm_bf16_ukernel_14x32_avx512bf16)
{
    (m <= 1 ? bf16_rows1
     : m <= 4 ? bf16_rows4
     : m <= 8 ? bf16_rows8
              : bf16_tile)(kn, kc, A, B, C, ldc, m, n, alpha, beta, e);
}

ALWAYS_INLINE void store_tile_s32(__m512i acc[MR][NV], int32_t *C, int64_t ldc, int m, int n,
                                  int add)
{
    __mmask16 mk[NV];
    for (int v = 0; v < NV; v++)
        mk[v] = lanes(n - 16 * v);
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++) {
        if (r < m) {
            int32_t *cp = C + r * ldc;
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) {
                __m512i x = acc[r][v];
                if (add)
                    x = _mm512_add_epi32(x, _mm512_maskz_loadu_epi32(mk[v], cp + 16 * v));
                _mm512_mask_storeu_epi32(cp + 16 * v, mk[v], x);
            }
        }
    }
}

/* The int8 tile over groups of G elements of ES bytes; STEP(acc, a, b)
 * accumulates one group (a macro, so each kernel is compiled only with the
 * instructions of its own target). */
#define S8_TILE(G, ES, STEP) S8_TILE_R(MR, G, ES, STEP)
/* ... over the panel's first R rows (a compile-time count, m <= R): the
 * other rows' accumulators stay zero and are never stored */
#define S8_TILE_R(R, G, ES, STEP)                                                                 \
    do {                                                                                          \
        const char *a = A, *b = B;                                                                \
        int32_t *c = C;                                                                           \
        __m512i acc[MR][NV];                                                                      \
        _Pragma("GCC unroll 16") for (int r = 0; r < MR; r++)                                     \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[r][v] =                      \
                _mm512_setzero_si512();                                                           \
        int64_t ng = (kc + G - 1) / G, kpf = ng > 12 ? ng - 12 : 0;                               \
        for (int64_t g = 0; g < ng; g++) {                                                        \
            if (g == kpf)                                                                         \
                prefetch_c(c, ldc, m, 4);                                                         \
            __m512i bv[NV];                                                                       \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) bv[v] =                          \
                _mm512_load_si512(b + 64 * v);                                                    \
            _Pragma("GCC unroll 16") for (int r = 0; r < (R); r++)                                \
            {                                                                                     \
                __m512i av = bcast32(a + 4 * r);                                                  \
                _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[r][v] =                  \
                    STEP(acc[r][v], av, bv[v]);                                                   \
            }                                                                                     \
            a += G * ES * MR;                                                                     \
            b += G * ES * NR;                                                                     \
        }                                                                                         \
        store_tile_s32(acc, c, ldc, m, n, beta != 0.0f);                                          \
    } while (0)

/* The tile for the first R of the panel's rows (m <= R < MR): S8_TILE
 * does all MR rows' multiply-adds whatever m is, 14 times the work of a
 * one-row product (a classifier's 1 x 1280 x 1000: 81 us, the same hot or
 * cold). CH chains of accumulators, each taking every CH-th group, so that
 * R NV of them cover the multiply-add's latency; summed at the end. For R
 * of 1 and 4 (their loops unroll whole); the whole panel keeps S8_TILE and
 * 8 rows S8_TILE_R: as this macro's R = MR form (BF16_TILE_FN's way), gcc
 * kept its accumulators on the stack, 1024^3 445 -> 147 GOP/s. */
#define S8_TILE_ROWS(R, CH, G, ES, STEP)                                                          \
    do {                                                                                          \
        const char *a = A, *b = B;                                                                \
        __m512i acc[CH][R][NV], out[MR][NV];                                                      \
        _Pragma("GCC unroll 4") for (int h = 0; h < CH; h++)                                      \
            _Pragma("GCC unroll 4") for (int r = 0; r < R; r++)                                   \
                _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[h][r][v] =               \
                    _mm512_setzero_si512();                                                       \
        const int64_t ng = (kc + G - 1) / G;                                                      \
        int64_t g = 0;                                                                            \
        for (; g + CH <= ng; g += CH) {                                                           \
            _Pragma("GCC unroll 4") for (int h = 0; h < CH; h++)                                  \
            {                                                                                     \
                __m512i bv[NV];                                                                   \
                _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) bv[v] =                      \
                    _mm512_load_si512(b + G * ES * NR * h + 64 * v);                              \
                _Pragma("GCC unroll 4") for (int r = 0; r < R; r++)                               \
                {                                                                                 \
                    __m512i av = bcast32(a + G * ES * MR * h + 4 * r);                            \
                    _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[h][r][v] =           \
                        STEP(acc[h][r][v], av, bv[v]);                                            \
                }                                                                                 \
            }                                                                                     \
            a += G * ES * MR * CH;                                                                \
            b += G * ES * NR * CH;                                                                \
        }                                                                                         \
        for (; g < ng; g++) {                                                                     \
            __m512i bv[NV];                                                                       \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) bv[v] =                          \
                _mm512_load_si512(b + 64 * v);                                                    \
            _Pragma("GCC unroll 4") for (int r = 0; r < R; r++)                                   \
            {                                                                                     \
                __m512i av = bcast32(a + 4 * r);                                                  \
                _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[0][r][v] =               \
                    STEP(acc[0][r][v], av, bv[v]);                                                \
            }                                                                                     \
            a += G * ES * MR;                                                                     \
            b += G * ES * NR;                                                                     \
        }                                                                                         \
        _Pragma("GCC unroll 16") for (int r = 0; r < MR; r++)                                     \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                  \
        {                                                                                         \
            __m512i x = _mm512_setzero_si512();                                                   \
            if (r < R)                                                                            \
                _Pragma("GCC unroll 4") for (int h = 0; h < CH; h++) x =                          \
                    _mm512_add_epi32(x, acc[h][r < R ? r : 0][v]);                                \
            out[r][v] = x;                                                                        \
        }                                                                                         \
        store_tile_s32(out, C, ldc, m, n, beta != 0.0f);                                          \
    } while (0)

#define STEP_VNNI(s, x, y) _mm512_dpbusd_epi32(s, x, y)
#define STEP_S16(s, x, y) _mm512_add_epi32(s, _mm512_madd_epi16(x, y))

/* The whole-panel tile and the few-row ones, each a function of its own
 * behind the kernel's choice by m: written as branches of one function,
 * gcc kept some of the whole tile's 28 accumulators on the stack, stored
 * on every k step (1024^3 int8: 397 -> 286 GOP/s). */
#define S8_TILE_FN(name, TARGET, G, ES, STEP)                                                     \
    TARGET static __attribute__((noinline)) GEMM_LOWP_UK(name)                                   \
    {                                                                                             \
        (void)kn, (void)alpha, (void)e;                                                           \
        S8_TILE(G, ES, STEP);                                                                     \
    }
#define S8_ROWS_FN(name, TARGET, R, CH, G, ES, STEP)                                              \
    TARGET static __attribute__((noinline)) GEMM_LOWP_UK(name)                                   \
    {                                                                                             \
        (void)kn, (void)alpha, (void)e;                                                           \
        S8_TILE_ROWS(R, CH, G, ES, STEP);                                                         \
    }
/* The 8-row tile as the whole one over its first 8 rows (S8_TILE_R): as
 * S8_TILE_ROWS(8, 1, ...) its row loop was unrolled by 4, not fully, so its
 * 16 accumulators were indexed and lived in memory (a load, vpdpbusd and a
 * store each, a k step); fully unrolled there, gcc still spilled two a
 * step. Zen 5, bench_ab_gemm --s8 against the build before, medians of
 * 10-15 rounds: 8 x 4096 x 4096 (a decode step) +12 %, 120 x 1024 x 1024
 * +3.0 %, 1024^3 +0.7 %, 1030 x 1024 x 1024 +0.6 %; the int8 encoder at
 * seq 128 4.5-5 % faster on 1 and 2 threads (docs/performance.md). */
#define S8_TILE_R_FN(name, TARGET, R, G, ES, STEP)                                                \
    TARGET static __attribute__((noinline)) GEMM_LOWP_UK(name)                                   \
    {                                                                                             \
        (void)kn, (void)alpha, (void)e;                                                           \
        S8_TILE_R(R, G, ES, STEP);                                                                \
    }
S8_TILE_FN(s8_tile_vnni, LOWP_TARGET_VNNI, 4, 1, STEP_VNNI)
S8_ROWS_FN(s8_rows1_vnni, LOWP_TARGET_VNNI, 1, 4, 4, 1, STEP_VNNI)
S8_ROWS_FN(s8_rows4_vnni, LOWP_TARGET_VNNI, 4, 1, 4, 1, STEP_VNNI)
S8_TILE_R_FN(s8_rows8_vnni, LOWP_TARGET_VNNI, 8, 4, 1, STEP_VNNI)
S8_TILE_FN(s8_tile_s16, , 2, 2, STEP_S16)
S8_ROWS_FN(s8_rows1_s16, , 1, 4, 2, 2, STEP_S16)
S8_ROWS_FN(s8_rows4_s16, , 4, 1, 2, 2, STEP_S16)
S8_TILE_R_FN(s8_rows8_s16, , 8, 2, 2, STEP_S16)

LOWP_TARGET_VNNI GEMM_LOWP_UK(gemm_s8_ukernel_14x32_avx512vnni)
{
    (m <= 1 ? s8_rows1_vnni
     : m <= 4 ? s8_rows4_vnni
     : m <= 8 ? s8_rows8_vnni
              : s8_tile_vnni)(kn, kc, A, B, C, ldc, m, n, alpha, beta, e);
}

GEMM_LOWP_UK(gemm_s8_ukernel_14x32_avx512_s16)
{
    (m <= 1 ? s8_rows1_s16
     : m <= 4 ? s8_rows4_s16
     : m <= 8 ? s8_rows8_s16
              : s8_tile_s16)(kn, kc, A, B, C, ldc, m, n, alpha, beta, e);
}

/* f32 -> bf16, 16 lanes, in integers: round to nearest even, NaN quieted */
ALWAYS_INLINE __m256i f32_to_bf16_int(__m512 x)
{
    __m512i u = _mm512_castps_si512(x);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(
        _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), lsb), 16);
    __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)),
                                            _mm512_set1_epi32(0x7f800000));
    r = _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
    return _mm512_cvtepi32_epi16(r);
}

/* vcvtne2ps2bf16 rounds like the integer form but flushes subnormal inputs
 * to zero, so a vector holding one takes the integer form. */
LOWP_TARGET_BF16 static __m256i f32_to_bf16_native(__m512 x)
{
    __mmask16 sub = _mm512_test_epi32_mask(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff)) &
                    ~_mm512_test_epi32_mask(_mm512_castps_si512(x), _mm512_set1_epi32(0x7f800000));
    if (sub)
        return f32_to_bf16_int(x);
    return (__m256i)_mm512_cvtneps_pbh(x);
}

void gemm_cvt_f32_to_bf16_avx512(const float *src, uint16_t *dst, size_t n, int native)
{
    size_t i = 0;
    for (; i < n; i += 16) {
        __mmask16 mk = lanes(n - i < 16 ? (int)(n - i) : 16);
        __m512 x = _mm512_maskz_loadu_ps(mk, src + i);
        __m256i y = native ? f32_to_bf16_native(x) : f32_to_bf16_int(x);
        _mm256_mask_storeu_epi16(dst + i, mk, y);
    }
}

void gemm_cvt_bf16_to_f32_avx512(const uint16_t *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 mk = lanes(n - i < 16 ? (int)(n - i) : 16);
        __m512i h = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mk, src + i));
        _mm512_mask_storeu_ps(dst + i, mk, _mm512_castsi512_ps(_mm512_slli_epi32(h, 16)));
    }
}


/* The int8 panels' packing of lanes that are contiguous in memory (B = a
 * convolution's activations, K rows of pixels): for each group of 4 rows
 * (k0) and 32-lane panel, lane l's 4 bytes at l * 4. 64 lanes of the 4
 * rows a step: byte then 16-bit unpacks interleave each 128-bit lane's 16
 * lanes into 64 bytes, and a 4 x 4 transpose of 128-bit blocks
 * (vshufi32x4) puts them in lane order, two panels' worth; the last lanes
 * under a mask (zeros past nl, as the panels' padding wants). flip: XOR of
 * the bytes inside K and nl (0x80: a u8 operand read as s8). lowp.c's SSE2
 * form did 16 lanes a step: 5.6 % of MobileNetV2 QOperator on Zen 4. */
void gemm_s8_pack_groups_avx512(const char *src, int64_t ks, int64_t nl, int64_t kc, char *dst,
                                uint8_t flip)
{
    const int64_t kcp = (kc + 3) / 4 * 4;
    const __m512i vf = _mm512_set1_epi8((char)flip);
    for (int64_t k0 = 0; k0 < kcp; k0 += 4) {
        const int gv = (int)(kc - k0 < 4 ? kc - k0 : 4); /* rows inside K */
        for (int64_t q = 0; q < nl; q += 64) {
            const int64_t left = nl - q;
            const __mmask64 m = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
            __m512i r[4];
            for (int g = 0; g < 4; g++) {
                if (g < gv) {
                    const __m512i v = _mm512_maskz_loadu_epi8(m, src + (k0 + g) * ks + q);
                    r[g] = _mm512_maskz_mov_epi8(m, _mm512_xor_si512(v, vf));
                } else {
                    r[g] = _mm512_setzero_si512();
                }
            }
            const __m512i a = _mm512_unpacklo_epi8(r[0], r[1]), b = _mm512_unpackhi_epi8(r[0], r[1]);
            const __m512i c = _mm512_unpacklo_epi8(r[2], r[3]), d = _mm512_unpackhi_epi8(r[2], r[3]);
            const __m512i o0 = _mm512_unpacklo_epi16(a, c), o1 = _mm512_unpackhi_epi16(a, c);
            const __m512i o2 = _mm512_unpacklo_epi16(b, d), o3 = _mm512_unpackhi_epi16(b, d);
            /* block j of o_t holds lanes 16 j + 4 t .. + 3: lane order is
             * (o0.j, o1.j, o2.j, o3.j) for j = 0..3 */
            const __m512i t0 = _mm512_shuffle_i32x4(o0, o1, 0x44), t1 = _mm512_shuffle_i32x4(o2, o3, 0x44);
            const __m512i t2 = _mm512_shuffle_i32x4(o0, o1, 0xEE), t3 = _mm512_shuffle_i32x4(o2, o3, 0xEE);
            char *p0 = dst + q * kcp + k0 * 32; /* the panel of lanes q .. q + 31 */
            _mm512_storeu_si512(p0, _mm512_shuffle_i32x4(t0, t1, 0x88));
            _mm512_storeu_si512(p0 + 64, _mm512_shuffle_i32x4(t0, t1, 0xDD));
            if (left > 32) { /* lanes q + 32 .. q + 63: the next panel */
                char *p1 = dst + (q + 32) * kcp + k0 * 32;
                _mm512_storeu_si512(p1, _mm512_shuffle_i32x4(t2, t3, 0x88));
                _mm512_storeu_si512(p1 + 64, _mm512_shuffle_i32x4(t2, t3, 0xDD));
            }
        }
    }
}

#else
/* Not an AVX-512 build: the table never selects this variant. */
void gemm_f32_set_packb_ymm(int mode)
{
    (void)mode;
}

void gemm_f32_ukernel_packa_14x32_avx512(int64_t kc, const float *A, int64_t lda, float *Ap,
                                         const float *B, float *C, int64_t ldc, int n,
                                         float alpha, float beta, const gemm_tile_epi_t *e,
                                         const char *pf, int64_t npf)
{
    (void)kc, (void)A, (void)lda, (void)Ap, (void)B, (void)C, (void)ldc, (void)n, (void)alpha;
    (void)beta, (void)e, (void)pf, (void)npf;
}
void gemm_f32_ukernel_packb_14x32_avx512(int64_t kc, const float *A, const float *B, int64_t ldb,
                                         float *Bp, float *C, int64_t ldc, int m, float alpha,
                                         float beta, const gemm_tile_epi_t *e, int near)
{
    (void)kc, (void)A, (void)B, (void)ldb, (void)Bp, (void)C, (void)ldc, (void)m, (void)alpha;
    (void)beta, (void)e, (void)near;
}
void gemm_f32_ukernel_pf_14x32_avx512(int64_t kc, const float *A, const float *B, float *C,
                                      int64_t ldc, int m, int n, float alpha, float beta,
                                      const gemm_tile_epi_t *e, const char *pf, int64_t npf)
{
    (void)kc, (void)A, (void)B, (void)C, (void)ldc, (void)m, (void)n, (void)alpha, (void)beta;
    (void)e, (void)pf, (void)npf;
}
void gemm_f32_ukernel_14x32_avx512(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                                   const float *B, int64_t ldb, float *C, int64_t ldc, int m,
                                   int n, float alpha, float beta, const gemm_tile_epi_t *e)
{
    (void)kc, (void)A, (void)rs_a, (void)cs_a, (void)B, (void)ldb, (void)C, (void)ldc, (void)m;
    (void)n, (void)alpha, (void)beta, (void)e;
}
void gemm_f32_pack_a_avx512(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0,
                            int64_t mc, int64_t kc, int mr, float *dst)
{
    gemm_f32_pack_a(transA, A, lda, i0, p0, mc, kc, mr, dst);
}
void gemm_f32_pack_b_avx512(int transB, const float *B, int64_t ldb, int64_t p0, int64_t j0,
                            int64_t kc, int64_t nc, int nr, float *dst)
{
    gemm_f32_pack_b_block(transB, B, ldb, p0, j0, kc, nc, nr, dst);
}
void gemm_f32_smallm_avx512(int m, int64_t n, int64_t K, float alpha, const float *A,
                            int64_t rs_a, int64_t cs_a, const float *B, int64_t ldb, float beta,
                            float *C, int64_t ldc)
{
    (void)m, (void)n, (void)K, (void)alpha, (void)A, (void)rs_a, (void)cs_a, (void)B, (void)ldb;
    (void)beta, (void)C, (void)ldc;
}
void gemm_f32_indb_14x32_avx512(int64_t kc, const float *A, const float *B, const int64_t *off,
                                float *T, int acc, const gemm_indb_epi_t *ep)
{
    (void)kc, (void)A, (void)B, (void)off, (void)T, (void)acc, (void)ep;
}
void gemm_f32_indb_part_avx512(int rows, int64_t kc, const float *A, const float *B,
                               const int64_t *off, const gemm_indb_epi_t *ep)
{
    (void)rows, (void)kc, (void)A, (void)B, (void)off, (void)ep;
}
void gemm_f32_indb_half_avx512(int rows, int64_t kc, const float *A, const float *B,
                               const int64_t *off, const gemm_indb_epi_t *ep)
{
    (void)rows, (void)kc, (void)A, (void)B, (void)off, (void)ep;
}
void gemm_f32_tile_store_avx512(const float *T, int m, int n, float *C, int64_t ldc,
                                const gemm_tile_epi_t *e)
{
    (void)T, (void)m, (void)n, (void)C, (void)ldc, (void)e;
}
void gemm_f32_inda_pf_14x32_avx512(int64_t kc, const float *const *px, const int64_t *off,
                                   const float *Bp, float *T, int acc, const char *pf,
                                   int64_t npf)
{
    (void)kc, (void)px, (void)off, (void)Bp, (void)T, (void)acc, (void)pf, (void)npf;
}
void gemm_f32_inda_14x32_avx512(int64_t kc, const float *const *px, const int64_t *off,
                                const float *Bp, float *T, int acc)
{
    (void)kc, (void)px, (void)off, (void)Bp, (void)T, (void)acc;
}
void gemm_f32_inda_narrow_avx512(int nch, int64_t kc, const float *const *px, const int64_t *off,
                                 const float *Bp, float *T, int acc, const char *pf, int64_t npf)
{
    (void)nch, (void)kc, (void)px, (void)off, (void)Bp, (void)T, (void)acc, (void)pf, (void)npf;
}
void gemm_f32_inda_part_avx512(int npx, int64_t kc, const float *const *px, const int64_t *off,
                               const float *Bp, float *T, int acc)
{
    (void)npx, (void)kc, (void)px, (void)off, (void)Bp, (void)T, (void)acc;
}
void gemm_f32_tile_store_t_avx512(const float *T, int npx, int nch, float *C, int64_t ldc,
                                  const gemm_tile_epi_t *e)
{
    (void)T, (void)npx, (void)nch, (void)C, (void)ldc, (void)e;
}
void gemm_f32_gemv_packed_avx512(int m, int64_t K, int64_t kc, int64_t npad, float alpha,
                                 const float *A, int64_t rs_a, int64_t cs_a, const float *Bp,
                                 int64_t n0, int64_t n1, float *C, int64_t ldc)
{
    (void)m, (void)K, (void)kc, (void)npad, (void)alpha, (void)A, (void)rs_a, (void)cs_a;
    (void)Bp, (void)n0, (void)n1, (void)C, (void)ldc;
}
#define LOWP_STUB(name)                                                                           \
    GEMM_LOWP_UK(name)                                                                            \
    {                                                                                             \
        (void)kn, (void)kc, (void)A, (void)B, (void)C, (void)ldc, (void)m, (void)n, (void)alpha;  \
        (void)beta, (void)e;                                                                      \
    }
LOWP_STUB(gemm_bf16_ukernel_14x32_avx512bf16)
LOWP_STUB(gemm_s8_ukernel_14x32_avx512vnni)
LOWP_STUB(gemm_s8_ukernel_14x32_avx512_s16)
void gemm_s8_pack_groups_avx512(const char *src, int64_t ks, int64_t nl, int64_t kc, char *dst,
                                uint8_t flip)
{
    (void)src, (void)ks, (void)nl, (void)kc, (void)dst, (void)flip;
}
void gemm_cvt_f32_to_bf16_avx512(const float *src, uint16_t *dst, size_t n, int native)
{
    (void)native;
    for (size_t i = 0; i < n; i++)
        dst[i] = base_f32_to_bf16(src[i]);
}
void gemm_cvt_bf16_to_f32_avx512(const uint16_t *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = base_bf16_to_f32(src[i]);
}
#endif
