/*
 * AVX2 + FMA f32 GEMM micro-kernel: a 6 x 16 tile of C in 12 ymm
 * accumulators (2 vectors of 8 per row), with 2 registers for B and one for
 * the broadcast A element out of 16. Edge tiles use vmaskmov loads and
 * stores driven by a sliding mask table.
 *
 * Compiled with -mavx2 -mfma -mf16c; only called when the CPU has them.
 */
#include "kernels/gemm/gemm_f32_internal.h"

#include <string.h>

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include "kernels/vmath/transpose_avx2.h"

#define MR 6
#define NR 16

#define ALWAYS_INLINE static inline __attribute__((always_inline))

static const int32_t mask_tab[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

/* lanes [0, w) set, w clamped to [0, 8] */
ALWAYS_INLINE __m256i lane_mask(int w)
{
    w = w < 0 ? 0 : w > 8 ? 8 : w;
    return _mm256_loadu_si256((const __m256i *)(mask_tab + 8 - w));
}

/*
 * The epilogue's transcendental activations. They run on every output of
 * a fused GEMM (a transformer FFN's first product: 128 x 1536 per layer),
 * and their cost is mostly FMA-unit work: GELU is 17 vector operations (14
 * of them FMA or multiply) and one vdivps, sigmoid 15 (10) and one vdivps.
 * The division stays: it runs on its own unit beside the FMAs, and vrcpps +
 * a Newton step (2-3 more FMA-unit operations, ~1e-7 relative error of
 * its own) measured slower on Zen 2 (5.9 vs 5.3 ns per 8 GELUs).
 * The errors quoted below were measured by tests/unit/test_gemm_act.c
 * over [-10, 10] in steps of 1e-4 plus huge, tiny, denormal, infinite and
 * NaN inputs against the double formulas. NaN in gives NaN out.
 */

/* min(max(x, lo), hi) that keeps a NaN x (maxps/minps return their second
 * operand when either is NaN) */
ALWAYS_INLINE __m256 clamp_nan256(__m256 x, float lo, float hi)
{
    return _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), x));
}

/* e^x for x clamped to [-87, 88]: x = n ln 2 + r with |r| <= ln2 / 2, e^r
 * = 1 + r c(r), c a degree-5 minimax polynomial (relative error 2e-9 on
 * that range in exact arithmetic), times 2^n built in the exponent field.
 * Adding 1.5 * 2^23 + 127 to x log2(e) rounds it to an integer held in the
 * low mantissa bits, so shifting the sum's bits left by 23 gives 2^n's
 * bits directly (n + 127 is in [1, 254]; a NaN x gives a NaN p, so the
 * product stays NaN). Max relative error 8.8e-8 on [-87, 88) (measured on
 * a 1e-5 grid). */
ALWAYS_INLINE __m256 exp256(__m256 x)
{
    const __m256 magic = _mm256_set1_ps(12582912.0f + 127.0f);
    x = clamp_nan256(x, -87.0f, 88.0f);
    __m256 k = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), magic);
    __m256 n = _mm256_sub_ps(k, magic);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606765330187e-06f), r);
    __m256 p = _mm256_set1_ps(1.384364255e-03f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.374155314e-03f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.166800219e-02f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.666643126e-01f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.999999421e-01f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.000000032e+00f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    __m256 scale = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(k), 23));
    return _mm256_mul_ps(p, scale);
}

/* num * sigmoid(x) = num / (1 + e^-x), 1 + e^-x in [1, 1.7e38]. Measured:
 * sigmoid max relative error 1.3e-7, x sigmoid(x) 1.4e-7, for results
 * down to 1e-36 (sigmoid(x <= -88) is 1 / (1 + e^88) = 6e-39). */
ALWAYS_INLINE __m256 mul_sigmoid256(__m256 num, __m256 x)
{
    __m256 d = _mm256_add_ps(_mm256_set1_ps(1.0f), exp256(_mm256_sub_ps(_mm256_setzero_ps(), x)));
    return _mm256_div_ps(num, d);
}

/* x P(x^2) / Q(x^2) for x clamped to [-6, 6], then clamped to [-1, 1]: an
 * odd rational approximation (p[0..5], q[0..5], q[0] = 1, all positive, so
 * Q >= 1) of a function saturating to +-1 near +-5.7. Both fits exceed 1
 * by over 5e-7 at 6, so the clamp to +-1 makes the saturated value exact
 * and h + h g is exactly 0 or 2h for huge |x| (no cancellation). */
ALWAYS_INLINE __m256 odd_rational256(__m256 x, const float p[6], const float q[6])
{
    __m256 xc = clamp_nan256(x, -6.0f, 6.0f);
    __m256 t = _mm256_mul_ps(xc, xc);
    __m256 P = _mm256_set1_ps(p[5]), Q = _mm256_set1_ps(q[5]);
#pragma GCC unroll 5
    for (int i = 4; i >= 0; i--) {
        P = _mm256_fmadd_ps(P, t, _mm256_set1_ps(p[i]));
        Q = _mm256_fmadd_ps(Q, t, _mm256_set1_ps(q[i]));
    }
    return clamp_nan256(_mm256_div_ps(_mm256_mul_ps(xc, P), Q), -1.0f, 1.0f);
}

/* GELU = h (1 + g(x)), h = x / 2, g = erf(x / sqrt 2) or tanh(sqrt(2/pi)
 * (x + 0.044715 x^3)), as h + h g, with no exp. The rational forms (fitted
 * for this file by Lawson-weighted linearised least squares, degree 5 over
 * 5 in x^2, rounded to float) are within 2.7e-8 of erf(x / sqrt 2) on [0,
 * 5.75] (1 - erf(5.75 / sqrt 2) = 9e-9) and 1.5e-8 of the tanh on [0, 5.6]
 * (1 - tanh = 1e-9 there); float evaluation adds up to ~4 ulp of g.
 * Measured GELU error (both forms): |err| <= 1.5e-7 |x| + 2.5e-7 |GELU(x)|
 * (max |err| 9.5e-7, at x = 5.68, 2 ulp of the result). Where GELU is
 * tiny (x < -3) the error is a fraction of |x| rather than of the result
 * (relative 3.5e-4 at x = -3.4, GELU = -1e-3), since 1 + g is there a
 * difference of two numbers near 1 (the exp-based erfc form this replaced
 * had 1.7e-4 there). */
static const float gelu_erf_p[6] = {7.978843940e-01f, 7.047743310e-02f, 9.517868455e-03f,
                                    3.647149921e-04f, 1.277638666e-05f, 4.262767143e-08f};
static const float gelu_erf_q[6] = {1.0f, 2.549956948e-01f, 2.943060170e-02f,
                                    1.961463321e-03f, 7.768083792e-05f, 1.158164870e-06f};
static const float gelu_tanh_p[6] = {7.978846605e-01f, 6.011580211e-02f, 7.262762068e-03f,
                                     2.638132774e-04f, 1.437300724e-05f, 5.065378501e-08f};
static const float gelu_tanh_q[6] = {1.0f, 2.428364853e-01f, 2.420216496e-02f,
                                     1.292277071e-03f, 7.593547031e-05f, 1.362398435e-06f};

ALWAYS_INLINE __m256 gelu256(__m256 x, const float p[6], const float q[6])
{
    __m256 h = _mm256_mul_ps(x, _mm256_set1_ps(0.5f));
    return _mm256_fmadd_ps(h, odd_rational256(x, p, q), h);
}

/* act applied to v (lo, hi: clip bounds); used before and after the residual add */
static __m256 act256_call(__m256 v, gemm_act_t act, float lo, float hi);

/* The cheap activations inline (they run on every tile of every conv);
 * the transcendental ones out of line. */
ALWAYS_INLINE __m256 act256(__m256 v, gemm_act_t act, float lo, float hi)
{
    if (act == GEMM_ACT_NONE)
        return v;
    if (act == GEMM_ACT_RELU)
        return _mm256_max_ps(v, _mm256_setzero_ps());
    if (act == GEMM_ACT_CLIP)
        return _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
    return act256_call(v, act, lo, hi);
}

static __m256 act256_call(__m256 v, gemm_act_t act, float lo, float hi)
{
    switch (act) {
    case GEMM_ACT_NONE:
        return v;
    case GEMM_ACT_RELU:
        return _mm256_max_ps(v, _mm256_setzero_ps());
    case GEMM_ACT_GELU_ERF:
        return gelu256(v, gelu_erf_p, gelu_erf_q);
    case GEMM_ACT_GELU_TANH:
        return gelu256(v, gelu_tanh_p, gelu_tanh_q);
    case GEMM_ACT_SILU:
        /* x < -88: |x sigmoid(x)| < 6e-37, and so is -88 / (1 + e^88); x / (1 +
         * e^88) itself would be -2 for x = -FLT_MAX (e^-x is clamped) */
        return mul_sigmoid256(_mm256_max_ps(_mm256_set1_ps(-88.0f), v), v);
    case GEMM_ACT_SIGMOID:
        return mul_sigmoid256(_mm256_set1_ps(1.0f), v);
    case GEMM_ACT_CLIP:
        return _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
    }
    return v;
}

/* The GELU polynomial's coefficients for act (p, and q into *q), NULL
 * when act is not a GELU. */
static inline const float *gelu_coeffs(gemm_act_t act, const float **q)
{
    *q = act == GEMM_ACT_GELU_ERF ? gelu_erf_q : gelu_tanh_q;
    return act == GEMM_ACT_GELU_ERF    ? gelu_erf_p
           : act == GEMM_ACT_GELU_TANH ? gelu_tanh_p
                                       : NULL;
}

/* The epilogue after the bias on one vector: act (GELU inline: a call
 * per vector cost the encoder's FFN GEMM 1.83 -> 1.80 ms; gp, gq: its
 * coefficients, NULL for the other activations), scale, the residual
 * vector rv (when res), post_act. */
ALWAYS_INLINE __m256 epi_after_bias(__m256 v, const gemm_tile_epi_t *e, const float *gp,
                                    const float *gq, int res, __m256 rv)
{
    if (gp)
        v = gelu256(v, gp, gq);
    else
        v = act256(v, e->act, e->lo, e->hi);
    if (e->scale != 1.0f)
        v = _mm256_mul_ps(v, _mm256_set1_ps(e->scale));
    if (res)
        v = _mm256_add_ps(v, rv);
    return act256(v, e->post_act, e->post_lo, e->post_hi);
}

/* n (<= 8) floats at p, lanes past n zero / stored; whole vectors with
 * plain moves (vmaskmovps is microcoded and slow on AMD) */
ALWAYS_INLINE __m256 load_upto8(const float *p, int64_t n)
{
    return n >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, lane_mask((int)n));
}
ALWAYS_INLINE void store_upto8(float *p, int64_t n, __m256 v)
{
    if (n >= 8)
        _mm256_storeu_ps(p, v);
    else
        _mm256_maskstore_ps(p, lane_mask((int)n), v);
}

static void epi_store(const float *t, float *C, int64_t ldc, int m, int n, float beta,
                      const gemm_tile_epi_t *e)
{
    const float *gq, *gp = gelu_coeffs(e->act, &gq);
    for (int r = 0; r < m; r++) {
        for (int c0 = 0; c0 < n; c0 += 8) {
            __m256 v = _mm256_loadu_ps(t + r * NR + c0);
            float *cp = C + r * ldc + c0;
            if (beta != 0.0f)
                v = _mm256_fmadd_ps(_mm256_set1_ps(beta), load_upto8(cp, n - c0), v);
            if (e->bias_row)
                v = _mm256_add_ps(v, _mm256_set1_ps(e->bias_row[r]));
            if (e->bias_col)
                v = _mm256_add_ps(v, load_upto8(e->bias_col + c0, n - c0));
            const __m256 rv = e->res ? load_upto8(e->res + r * e->ldr + c0, n - c0)
                                     : _mm256_setzero_ps();
            store_upto8(cp, n - c0, epi_after_bias(v, e, gp, gq, e->res != NULL, rv));
        }
    }
}

ALWAYS_INLINE void store_tile(__m256 acc[MR][2], int rows, float *C, int64_t ldc, int m, int n,
                              float alpha, float beta, const gemm_tile_epi_t *e)
{
    __m256 va = _mm256_set1_ps(alpha);
    if (e) {
        float t[MR * NR] __attribute__((aligned(32)));
        for (int r = 0; r < rows; r++) {
            _mm256_store_ps(t + r * NR, _mm256_mul_ps(va, acc[r][0]));
            _mm256_store_ps(t + r * NR + 8, _mm256_mul_ps(va, acc[r][1]));
        }
        epi_store(t, C, ldc, m, n, beta, e);
        return;
    }
    __m256 vb = _mm256_set1_ps(beta);
    if (n == NR) {
        /* full width: plain moves (vmaskmovps stores are microcoded and slow on AMD) */
#pragma GCC unroll 8
        for (int r = 0; r < rows; r++) {
            if (r < m) {
                float *cp = C + r * ldc;
                __m256 v0 = _mm256_mul_ps(va, acc[r][0]);
                __m256 v1 = _mm256_mul_ps(va, acc[r][1]);
                if (beta != 0.0f) {
                    v0 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(cp), v0);
                    v1 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(cp + 8), v1);
                }
                _mm256_storeu_ps(cp, v0);
                _mm256_storeu_ps(cp + 8, v1);
            }
        }
        return;
    }
    __m256i m0 = lane_mask(n), m1 = lane_mask(n - 8);
#pragma GCC unroll 8
    for (int r = 0; r < rows; r++) {
        if (r < m) {
            float *cp = C + r * ldc;
            __m256 v0 = _mm256_mul_ps(va, acc[r][0]);
            __m256 v1 = _mm256_mul_ps(va, acc[r][1]);
            if (beta != 0.0f) {
                v0 = _mm256_fmadd_ps(vb, _mm256_maskload_ps(cp, m0), v0);
                v1 = _mm256_fmadd_ps(vb, _mm256_maskload_ps(cp + 8, m1), v1);
            }
            _mm256_maskstore_ps(cp, m0, v0);
            _mm256_maskstore_ps(cp + 8, m1, v1);
        }
    }
}

/* the 12 accumulators ymm4-ymm15 set to 0 */
#define IB_ZERO12                                                                                 \
    "vxorps %%ymm4, %%ymm4, %%ymm4\n\t" "vxorps %%ymm5, %%ymm5, %%ymm5\n\t"                       \
    "vxorps %%ymm6, %%ymm6, %%ymm6\n\t" "vxorps %%ymm7, %%ymm7, %%ymm7\n\t"                       \
    "vxorps %%ymm8, %%ymm8, %%ymm8\n\t" "vxorps %%ymm9, %%ymm9, %%ymm9\n\t"                       \
    "vxorps %%ymm10, %%ymm10, %%ymm10\n\t" "vxorps %%ymm11, %%ymm11, %%ymm11\n\t"                 \
    "vxorps %%ymm12, %%ymm12, %%ymm12\n\t" "vxorps %%ymm13, %%ymm13, %%ymm13\n\t"                 \
    "vxorps %%ymm14, %%ymm14, %%ymm14\n\t" "vxorps %%ymm15, %%ymm15, %%ymm15\n\t"

#define IB_TILE_REGS_ST                                                                           \
    "vmovups %%ymm4, 0(%[T])\n\t" "vmovups %%ymm5, 32(%[T])\n\t" "vmovups %%ymm6, 64(%[T])\n\t"       \
    "vmovups %%ymm7, 96(%[T])\n\t" "vmovups %%ymm8, 128(%[T])\n\t" "vmovups %%ymm9, 160(%[T])\n\t"    \
    "vmovups %%ymm10, 192(%[T])\n\t" "vmovups %%ymm11, 224(%[T])\n\t"                            \
    "vmovups %%ymm12, 256(%[T])\n\t" "vmovups %%ymm13, 288(%[T])\n\t"                            \
    "vmovups %%ymm14, 320(%[T])\n\t" "vmovups %%ymm15, 352(%[T])\n\t"

/* The epilogue on the 12 accumulators (gemm_indb_epi_t at %[ep]) */
#define IB_ALL12(op, reg)                                                                         \
    op " " reg ", %%ymm4, %%ymm4\n\t" op " " reg ", %%ymm5, %%ymm5\n\t"                          \
    op " " reg ", %%ymm6, %%ymm6\n\t" op " " reg ", %%ymm7, %%ymm7\n\t"                          \
    op " " reg ", %%ymm8, %%ymm8\n\t" op " " reg ", %%ymm9, %%ymm9\n\t"                          \
    op " " reg ", %%ymm10, %%ymm10\n\t" op " " reg ", %%ymm11, %%ymm11\n\t"                      \
    op " " reg ", %%ymm12, %%ymm12\n\t" op " " reg ", %%ymm13, %%ymm13\n\t"                      \
    op " " reg ", %%ymm14, %%ymm14\n\t" op " " reg ", %%ymm15, %%ymm15\n\t"
#define IB_BIAS_ROW(off, r0, r1)                                                                  \
    "vbroadcastss " #off "(%[t]), %%ymm0\n\t"                                                      \
    "vaddps %%ymm0, %%" #r0 ", %%" #r0 "\n\t"                                                       \
    "vaddps %%ymm0, %%" #r1 ", %%" #r1 "\n\t"
#define IB_RES_ROW(r0, r1)                                                                        \
    "vaddps (%[t]), %%" #r0 ", %%" #r0 "\n\t"                                                       \
    "vaddps 32(%[t]), %%" #r1 ", %%" #r1 "\n\t"                                                     \
    "addq %[u], %[t]\n\t"
#define IB_ST_ROW(r0, r1)                                                                         \
    "vmovups %%" #r0 ", (%[t])\n\t"                                                                \
    "vmovups %%" #r1 ", 32(%[t])\n\t"                                                              \
    "addq %[u], %[t]\n\t"
/* a bias per column: ymm0 (columns 0-7) and ymm1 (8-15) added to every row */
#define IB_COLS12                                                                                 \
    "vaddps %%ymm0, %%ymm4, %%ymm4\n\t" "vaddps %%ymm1, %%ymm5, %%ymm5\n\t"                       \
    "vaddps %%ymm0, %%ymm6, %%ymm6\n\t" "vaddps %%ymm1, %%ymm7, %%ymm7\n\t"                       \
    "vaddps %%ymm0, %%ymm8, %%ymm8\n\t" "vaddps %%ymm1, %%ymm9, %%ymm9\n\t"                       \
    "vaddps %%ymm0, %%ymm10, %%ymm10\n\t" "vaddps %%ymm1, %%ymm11, %%ymm11\n\t"                   \
    "vaddps %%ymm0, %%ymm12, %%ymm12\n\t" "vaddps %%ymm1, %%ymm13, %%ymm13\n\t"                   \
    "vaddps %%ymm0, %%ymm14, %%ymm14\n\t" "vaddps %%ymm1, %%ymm15, %%ymm15\n\t"
/* clamp by the kind at koff (0 none, 1 max lo, 2 max lo and min hi), bounds at boff, boff+4 */
#define IB_CLAMP(koff, boff, lbl)                                                                 \
    "movl " #koff "(%[ep]), %k[t]\n\t"                                                              \
    "testl %k[t], %k[t]\n\t"                                                                       \
    "jz " #lbl "f\n\t"                                                                             \
    "vbroadcastss " #boff "(%[ep]), %%ymm0\n\t"                                                    \
    IB_ALL12("vmaxps", "%%ymm0")                                                                  \
    "cmpl $2, %k[t]\n\t"                                                                           \
    "jne " #lbl "f\n\t"                                                                            \
    "vbroadcastss " #boff "+4(%[ep]), %%ymm0\n\t"                                                  \
    IB_ALL12("vminps", "%%ymm0")                                                                  \
    #lbl ":\n\t"

/* After the k loop: with ep (a gemm_indb_epi_t), its epilogue on the
 * registers and the store to C; without, the tile to %[T]. Uses the
 * scratch registers %[t], %[u]. */
#define IB_EPILOGUE \
    "testq %[ep], %[ep]\n\t" \
    "jz 20f\n\t" \
    "movl 72(%[ep]), %k[t]\n\t" \
    "testl %k[t], %k[t]\n\t" \
    "jz 17f\n\t" \
    "movq 24(%[ep]), %[t]\n\t" \
    "movq 32(%[ep]), %[u]\n\t" \
    IB_RES_ROW(ymm4, ymm5) \
    IB_RES_ROW(ymm6, ymm7) \
    IB_RES_ROW(ymm8, ymm9) \
    IB_RES_ROW(ymm10, ymm11) \
    IB_RES_ROW(ymm12, ymm13) \
    IB_RES_ROW(ymm14, ymm15) \
    "17:\n\t" \
    "movq 0(%[ep]), %[t]\n\t" \
    "testq %[t], %[t]\n\t" \
    "jz 11f\n\t" \
    IB_BIAS_ROW(0, ymm4, ymm5) \
    IB_BIAS_ROW(4, ymm6, ymm7) \
    IB_BIAS_ROW(8, ymm8, ymm9) \
    IB_BIAS_ROW(12, ymm10, ymm11) \
    IB_BIAS_ROW(16, ymm12, ymm13) \
    IB_BIAS_ROW(20, ymm14, ymm15) \
    "11:\n\t" \
    "movq 64(%[ep]), %[t]\n\t" \
    "testq %[t], %[t]\n\t" \
    "jz 16f\n\t" \
    "vmovups (%[t]), %%ymm0\n\t" \
    "vmovups 32(%[t]), %%ymm1\n\t" \
    IB_COLS12 \
    "16:\n\t" \
    IB_CLAMP(40, 48, 12) \
    "movq 8(%[ep]), %[t]\n\t" \
    "testq %[t], %[t]\n\t" \
    "jz 13f\n\t" \
    "movq 16(%[ep]), %[u]\n\t" \
    IB_RES_ROW(ymm4, ymm5) \
    IB_RES_ROW(ymm6, ymm7) \
    IB_RES_ROW(ymm8, ymm9) \
    IB_RES_ROW(ymm10, ymm11) \
    IB_RES_ROW(ymm12, ymm13) \
    IB_RES_ROW(ymm14, ymm15) \
    "13:\n\t" \
    IB_CLAMP(44, 56, 14) \
    "movq 24(%[ep]), %[t]\n\t" \
    "movq 32(%[ep]), %[u]\n\t" \
    IB_ST_ROW(ymm4, ymm5) \
    IB_ST_ROW(ymm6, ymm7) \
    IB_ST_ROW(ymm8, ymm9) \
    IB_ST_ROW(ymm10, ymm11) \
    IB_ST_ROW(ymm12, ymm13) \
    IB_ST_ROW(ymm14, ymm15) \
    "jmp 21f\n\t" \
    "20:\n\t" \
    IB_TILE_REGS_ST \
    "21:\n\t"

/* The packed 6 x 16 tile's k loop is written in assembly: from intrinsics
 * GCC 12 spilled accumulators (with an accumulator array it stored all 12 to
 * the stack every k step, which halved the speed on Zen 2). 15 of the 16 ymm
 * registers are used: 12 accumulators, two B vectors and the broadcast A.
 * Per k step: 2 aligned B loads, 6 broadcasts, 12 FMAs; the B micro-panel
 * streams from L2 (the A micro-panel stays in L1 across the jr loop), so B
 * is prefetched 8 k steps ahead. */
#define UK_ASM_STEP(ao, bo)                                                                       \
    "vmovaps " #bo "(%[b]), %%ymm0\n\t"                                                           \
    "vmovaps " #bo "+32(%[b]), %%ymm1\n\t"                                                        \
    "vbroadcastss " #ao "(%[a]), %%ymm2\n\t"                                                      \
    "vfmadd231ps %%ymm0, %%ymm2, %%ymm4\n\t"                                                      \
    "vfmadd231ps %%ymm1, %%ymm2, %%ymm5\n\t"                                                      \
    "vbroadcastss " #ao "+4(%[a]), %%ymm3\n\t"                                                    \
    "vfmadd231ps %%ymm0, %%ymm3, %%ymm6\n\t"                                                      \
    "vfmadd231ps %%ymm1, %%ymm3, %%ymm7\n\t"                                                      \
    "vbroadcastss " #ao "+8(%[a]), %%ymm2\n\t"                                                    \
    "vfmadd231ps %%ymm0, %%ymm2, %%ymm8\n\t"                                                      \
    "vfmadd231ps %%ymm1, %%ymm2, %%ymm9\n\t"                                                      \
    "vbroadcastss " #ao "+12(%[a]), %%ymm3\n\t"                                                   \
    "vfmadd231ps %%ymm0, %%ymm3, %%ymm10\n\t"                                                     \
    "vfmadd231ps %%ymm1, %%ymm3, %%ymm11\n\t"                                                     \
    "vbroadcastss " #ao "+16(%[a]), %%ymm2\n\t"                                                   \
    "vfmadd231ps %%ymm0, %%ymm2, %%ymm12\n\t"                                                     \
    "vfmadd231ps %%ymm1, %%ymm2, %%ymm13\n\t"                                                     \
    "vbroadcastss " #ao "+20(%[a]), %%ymm3\n\t"                                                   \
    "vfmadd231ps %%ymm0, %%ymm3, %%ymm14\n\t"                                                     \
    "vfmadd231ps %%ymm1, %%ymm3, %%ymm15\n\t"

/* e as a gemm_indb_epi_t (all but C and ldc_bytes) when it is one
 * (row or column bias, ReLU or clip before and after the residual, scale
 * 1); 0 if not */
static int simple_epi(const gemm_tile_epi_t *e, gemm_indb_epi_t *ep)
{
    memset(ep, 0, sizeof *ep);
    if (!e)
        return 1;
    if (e->scale != 1.0f)
        return 0;
    const gemm_act_t acts[2] = {e->act, e->post_act};
    const float los[2] = {e->lo, e->post_lo}, his[2] = {e->hi, e->post_hi};
    int32_t kind[2];
    for (int i = 0; i < 2; i++) {
        if (acts[i] == GEMM_ACT_NONE)
            kind[i] = 0;
        else if (acts[i] == GEMM_ACT_RELU)
            kind[i] = 1;
        else if (acts[i] == GEMM_ACT_CLIP)
            kind[i] = 2;
        else
            return 0;
    }
    ep->bias = e->bias_row;
    ep->bcol = e->bias_col;
    ep->res = e->res;
    ep->ldr_bytes = e->ldr * (int64_t)sizeof(float);
    ep->act = kind[0];
    ep->post = kind[1];
    ep->lo = kind[0] == 1 ? 0.0f : los[0];
    ep->hi = his[0];
    ep->plo = kind[1] == 1 ? 0.0f : los[1];
    ep->phi = his[1];
    return 1;
}

/* The packed 6 x 16 tile's k loop and the epilogue: into the 12
 * accumulators, then with epp through its epilogue into C, else into T
 * (6 x 16, row stride 16). */
ALWAYS_INLINE void packed_asm(int64_t kc, const float *A, const float *B, float *T,
                              const gemm_indb_epi_t *epp)
{
    int64_t k4 = kc / 4, k1 = kc % 4, t, u;
    __asm__ volatile(IB_ZERO12
                     "testq %[k4], %[k4]\n\t"
                     "jz 2f\n\t"
                     "1:\n\t"
                     "prefetcht0 512(%[b])\n\t"
                     UK_ASM_STEP(0, 0)
                     "prefetcht0 576(%[b])\n\t"
                     UK_ASM_STEP(24, 64)
                     "prefetcht0 640(%[b])\n\t"
                     UK_ASM_STEP(48, 128)
                     "prefetcht0 704(%[b])\n\t"
                     UK_ASM_STEP(72, 192)
                     "addq $96, %[a]\n\t"
                     "addq $256, %[b]\n\t"
                     "decq %[k4]\n\t"
                     "jnz 1b\n\t"
                     "2:\n\t"
                     "testq %[k1], %[k1]\n\t"
                     "jz 4f\n\t"
                     "3:\n\t"
                     UK_ASM_STEP(0, 0)
                     "addq $24, %[a]\n\t"
                     "addq $64, %[b]\n\t"
                     "decq %[k1]\n\t"
                     "jnz 3b\n\t"
                     "4:\n\t"
                     IB_EPILOGUE
                     : [a] "+r"(A), [b] "+r"(B), [k4] "+r"(k4), [k1] "+r"(k1), [t] "=&r"(t),
                       [u] "=&r"(u)
                     : [T] "r"(T), [ep] "r"(epp)
                     : "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                       "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
                       "xmm15");
}

/* The product of a few rows (ROWS < MR) of a tile, added to s[r][0..1]:
 * B's row k is the NR floats at B + boff[k] (indirect B) or B + k NR
 * (packed); A(r, k) is px[r][aoff[k]] (indirect A) or A[k MR + r] (a packed
 * A panel). With the addressing fixed at each call site the compiler
 * specialises it. Up to 2 rows the k steps alternate between two
 * accumulator sets, so 8 chains hide the FMA latency where 2-4 would
 * wait on it; 3-5 rows have 6-10 chains in one set. */
ALWAYS_INLINE void part_rows_acc(const int ROWS, int64_t kc, const float *B, const int64_t *boff,
                                 const float *A, const float *const *px, const int64_t *aoff,
                                 __m256 s[MR - 1][2])
{
#define PR_B(k) (boff ? B + boff[k] : B + (k) * NR)
#define PR_A(r, k) (px ? px[r] + aoff[k] : A + (k) * MR + (r))
    int64_t k = 0;
    if (ROWS <= 2) {
        __m256 o[2][2];
        o[0][0] = o[0][1] = o[1][0] = o[1][1] = _mm256_setzero_ps();
        for (; k + 2 <= kc; k += 2) {
            const float *b = PR_B(k), *c = PR_B(k + 1);
            const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
            const __m256 c0 = _mm256_loadu_ps(c), c1 = _mm256_loadu_ps(c + 8);
#pragma GCC unroll 2
            for (int r = 0; r < ROWS; r++) {
                const __m256 a0 = _mm256_broadcast_ss(PR_A(r, k));
                const __m256 a1 = _mm256_broadcast_ss(PR_A(r, k + 1));
                s[r][0] = _mm256_fmadd_ps(a0, b0, s[r][0]);
                s[r][1] = _mm256_fmadd_ps(a0, b1, s[r][1]);
                o[r][0] = _mm256_fmadd_ps(a1, c0, o[r][0]);
                o[r][1] = _mm256_fmadd_ps(a1, c1, o[r][1]);
            }
        }
#pragma GCC unroll 2
        for (int r = 0; r < ROWS; r++) {
            s[r][0] = _mm256_add_ps(s[r][0], o[r][0]);
            s[r][1] = _mm256_add_ps(s[r][1], o[r][1]);
        }
    }
    for (; k < kc; k++) {
        const float *b = PR_B(k);
        const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 5
        for (int r = 0; r < ROWS; r++) {
            const __m256 a = _mm256_broadcast_ss(PR_A(r, k));
            s[r][0] = _mm256_fmadd_ps(a, b0, s[r][0]);
            s[r][1] = _mm256_fmadd_ps(a, b1, s[r][1]);
        }
    }
#undef PR_B
#undef PR_A
}

/* A tile of at most 2 rows (the last A panel of M = 128 = 21 x 6 + 2, as
 * in every transformer GEMM over 128 tokens): those rows alone
 * (part_rows_acc), where the full 6-row kernel took as long as a whole
 * tile. With B pre-packed: 128 x 384 x 1536 1.62 -> 1.58 ms, 128 x 384 x
 * 384 0.400 -> 0.390 ms. */
static void kernel_packed_2(int64_t kc, const float *A, const float *B, float *C, int64_t ldc,
                            int m, int n, float alpha, float beta, const gemm_tile_epi_t *e)
{
    __m256 acc[MR][2];
    acc[0][0] = acc[0][1] = acc[1][0] = acc[1][1] = _mm256_setzero_ps();
    part_rows_acc(2, kc, B, NULL, A, NULL, NULL, acc);
    store_tile(acc, 2, C, ldc, m, n, alpha, beta, e);
}

static void kernel_packed(int64_t kc, const float *A, const float *B, float *C, int64_t ldc, int m,
                          int n, float alpha, float beta, const gemm_tile_epi_t *e)
{
    if (m <= 2) {
        kernel_packed_2(kc, A, B, C, ldc, m, n, alpha, beta, e);
        return;
    }
    __m256 acc[MR][2];
    for (int r = 0; r < m; r++)
        _mm_prefetch((const char *)(C + r * ldc), _MM_HINT_T0);
    /* a full tile, C = A*B (+ C, a later K block) plus a simple epilogue
     * (or none): applied on the registers and stored from them, not
     * through acc and epi_store */
    gemm_indb_epi_t ep, *epp = NULL;
    if (m == MR && n == NR && alpha == 1.0f && (beta == 0.0f || beta == 1.0f) &&
        simple_epi(e, &ep)) {
        ep.acc_c = beta != 0.0f;
        ep.C = C;
        ep.ldc_bytes = ldc * (int64_t)sizeof(float);
        epp = &ep;
    }
    packed_asm(kc, A, B, (float *)&acc[0][0], epp);
    if (epp)
        return;
    store_tile(acc, MR, C, ldc, m, n, alpha, beta, e);
}

static void ukrun(int64_t kc, int down, const float *A, const float *B, int64_t step, float *C,
                  int64_t ldc, int64_t m, int64_t n, float alpha, float beta,
                  const gemm_tile_epi_t *e, const char *bnext, size_t slice, size_t bytes);

/* The rest of an epilogue whose bias is already in C (rows [0, m), columns
 * [0, n)): act, scale, residual, post_act, in place. */
static void epi_rest(float *C, int64_t ldc, int64_t m, int64_t n, const gemm_tile_epi_t *e)
{
    const float *gq, *gp = gelu_coeffs(e->act, &gq);
    for (int64_t r = 0; r < m; r++)
        for (int64_t c = 0; c < n; c += 8) {
            float *cp = C + r * ldc + c;
            const __m256 rv = e->res ? load_upto8(e->res + r * e->ldr + c, n - c)
                                     : _mm256_setzero_ps();
            store_upto8(cp, n - c,
                        epi_after_bias(load_upto8(cp, n - c), e, gp, gq, e->res != NULL, rv));
        }
}

/* A run whose activation is transcendental (GELU, SiLU, sigmoid): the
 * tiles are stored with their bias alone by the register epilogue, then
 * the rest of the epilogue runs over the run's block of C while it is in
 * L1, hundreds of independent vectors in one loop instead of 12 per tile
 * through the stack (128 x 1536 x 384 with bias and GELU, the encoder's
 * FFN: 1.78 -> 1.69 ms, bias alone 1.56; GPT-2's 128 x 3072 x 768: 6.79 ->
 * 6.60 ms). Interleaving several vectors' polynomials, or vrcpps and a
 * Newton step for the division, measured no faster: GELU's ~16 cycles per
 * 8 values is its throughput here. (The residual is never C here: the
 * driver copies an overlapping residual aside, gemm.c residual_apart.) */
void gemm_f32_ukrun_6x16_avx2(int64_t kc, int down, const float *A, const float *B, int64_t step,
                              float *C, int64_t ldc, int64_t m, int64_t n, float alpha,
                              float beta, const gemm_tile_epi_t *e, const char *bnext,
                              size_t slice, size_t bytes)
{
    if (e && e->act != GEMM_ACT_NONE && e->act != GEMM_ACT_RELU && e->act != GEMM_ACT_CLIP) {
        gemm_tile_epi_t bias_only = {e->bias_row, e->bias_col, GEMM_ACT_NONE, 0.0f, 0.0f,
                                     1.0f, NULL, 0, GEMM_ACT_NONE, 0.0f, 0.0f};
        ukrun(kc, down, A, B, step, C, ldc, m, n, alpha, beta, &bias_only, bnext, slice, bytes);
        epi_rest(C, ldc, m, n, e);
        return;
    }
    ukrun(kc, down, A, B, step, C, ldc, m, n, alpha, beta, e, bnext, slice, bytes);
}

static void ukrun(int64_t kc, int down, const float *A, const float *B, int64_t step, float *C,
                  int64_t ldc, int64_t m, int64_t n, float alpha, float beta,
                  const gemm_tile_epi_t *e, const char *bnext, size_t slice, size_t bytes)
{
    /* full tiles with a simple epilogue: one epilogue descriptor for the
     * run, its pointers moved along; the next tile's C (and residual)
     * rows prefetched while this one computes */
    gemm_indb_epi_t ep;
    const int fast = alpha == 1.0f && (beta == 0.0f || beta == 1.0f) && simple_epi(e, &ep);
    const float *brow = fast ? ep.bias : NULL, *bcol = fast ? ep.bcol : NULL;
    const float *res = e ? e->res : NULL;
    const int64_t ldr = e ? e->ldr : 0;
    if (fast) {
        ep.acc_c = beta != 0.0f;
        ep.ldc_bytes = ldc * (int64_t)sizeof(float);
    }
    /* tile t's offsets: rows t*dr, columns t*dc */
    const int64_t dr = down ? MR : 0, dc = down ? 0 : NR, total = down ? m : n;
    const int64_t per = down ? MR : NR;
    gemm_tile_epi_t te;
    int64_t t = 0;
    for (int64_t x = 0; x < total; x += per, t++) {
        const int tm = down ? (int)(m - x < MR ? m - x : MR) : (int)m;
        const int tn = down ? (int)n : (int)(n - x < NR ? n - x : NR);
        const int64_t r0 = t * dr, c0 = t * dc;
        const float *a = down ? A + t * step : A, *b = down ? B : B + t * step;
        float *c = C + r0 * ldc + c0;
        if (x + per < total) { /* the next tile's C and residual rows */
            const int64_t r1 = r0 + dr, c1 = c0 + dc;
            const int rows = down ? (int)(m - x - MR < MR ? m - x - MR : MR) : (int)m;
            for (int r = 0; r < rows; r++) {
                _mm_prefetch((const char *)(C + (r1 + r) * ldc + c1), _MM_HINT_T0);
                _mm_prefetch((const char *)(C + (r1 + r) * ldc + c1 + NR - 1), _MM_HINT_T0);
                if (res) {
                    _mm_prefetch((const char *)(res + (r1 + r) * ldr + c1), _MM_HINT_T0);
                    _mm_prefetch((const char *)(res + (r1 + r) * ldr + c1 + NR - 1), _MM_HINT_T0);
                }
            }
        }
        if (bnext)
            for (size_t off = (size_t)t * slice; off < (size_t)(t + 1) * slice && off < bytes;
                 off += 64)
                _mm_prefetch(bnext + off, _MM_HINT_T0);
        if (fast && tm == MR && tn == NR) {
            ep.C = c;
            ep.bias = brow ? brow + r0 : NULL;
            ep.bcol = bcol ? bcol + c0 : NULL;
            ep.res = res ? res + r0 * ldr + c0 : NULL;
            packed_asm(kc, a, b, NULL, &ep);
            continue;
        }
        const gemm_tile_epi_t *et = NULL;
        if (e) {
            te = *e;
            te.bias_row = e->bias_row ? e->bias_row + r0 : NULL;
            te.bias_col = e->bias_col ? e->bias_col + c0 : NULL;
            te.res = e->res ? e->res + r0 * ldr + c0 : NULL;
            et = &te;
        }
        kernel_packed(kc, a, b, c, ldc, tm, tn, alpha, beta, et);
    }
}
#undef UK_ASM_STEP

/* Indirect-B tile (gemm_f32_variant_t.indb): B's row k is the 16 floats at
 * B + off[k], anywhere in memory (a row of an image for a convolution), so
 * nothing is packed or copied on the B side. Per k step one offset load, 2
 * unaligned B loads, 6 broadcasts of the packed A panel and 12 FMAs: 9
 * loads per 6 cycles of FMA, inside Zen 2's and Intel's 2 loads per cycle.
 * The tile accumulates in T (6 x 16, row stride 16) when acc is set. */
#define IB_STEP(ao, oo)                                                                           \
    "movq " #oo "(%[o]), %[t]\n\t"                                                                \
    "vmovups (%[b],%[t],4), %%ymm0\n\t"                                                           \
    "vmovups 32(%[b],%[t],4), %%ymm1\n\t"                                                         \
    "vbroadcastss " #ao "(%[a]), %%ymm2\n\t"                                                      \
    "vfmadd231ps %%ymm0, %%ymm2, %%ymm4\n\t"                                                      \
    "vfmadd231ps %%ymm1, %%ymm2, %%ymm5\n\t"                                                      \
    "vbroadcastss " #ao "+4(%[a]), %%ymm3\n\t"                                                    \
    "vfmadd231ps %%ymm0, %%ymm3, %%ymm6\n\t"                                                      \
    "vfmadd231ps %%ymm1, %%ymm3, %%ymm7\n\t"                                                      \
    "vbroadcastss " #ao "+8(%[a]), %%ymm2\n\t"                                                    \
    "vfmadd231ps %%ymm0, %%ymm2, %%ymm8\n\t"                                                      \
    "vfmadd231ps %%ymm1, %%ymm2, %%ymm9\n\t"                                                      \
    "vbroadcastss " #ao "+12(%[a]), %%ymm3\n\t"                                                   \
    "vfmadd231ps %%ymm0, %%ymm3, %%ymm10\n\t"                                                     \
    "vfmadd231ps %%ymm1, %%ymm3, %%ymm11\n\t"                                                     \
    "vbroadcastss " #ao "+16(%[a]), %%ymm2\n\t"                                                   \
    "vfmadd231ps %%ymm0, %%ymm2, %%ymm12\n\t"                                                     \
    "vfmadd231ps %%ymm1, %%ymm2, %%ymm13\n\t"                                                     \
    "vbroadcastss " #ao "+20(%[a]), %%ymm3\n\t"                                                   \
    "vfmadd231ps %%ymm0, %%ymm3, %%ymm14\n\t"                                                     \
    "vfmadd231ps %%ymm1, %%ymm3, %%ymm15\n\t"

#define IB_TILE_REGS(op)                                                                          \
    op " 0(%[T]), %%ymm4\n\t" op " 32(%[T]), %%ymm5\n\t" op " 64(%[T]), %%ymm6\n\t"              \
    op " 96(%[T]), %%ymm7\n\t" op " 128(%[T]), %%ymm8\n\t" op " 160(%[T]), %%ymm9\n\t"           \
    op " 192(%[T]), %%ymm10\n\t" op " 224(%[T]), %%ymm11\n\t" op " 256(%[T]), %%ymm12\n\t"       \
    op " 288(%[T]), %%ymm13\n\t" op " 320(%[T]), %%ymm14\n\t" op " 352(%[T]), %%ymm15\n\t"

void gemm_f32_indb_6x16_avx2(int64_t kc, const float *A, const float *B, const int64_t *off,
                             float *T, int acc, const gemm_indb_epi_t *ep)
{
    int64_t k4 = kc / 4, k1 = kc % 4, t, u;
    __asm__ volatile("testl %[acc], %[acc]\n\t"
                     "jz 5f\n\t"
                     IB_TILE_REGS("vmovups")
                     "jmp 6f\n\t"
                     "5:\n\t"
                     IB_ZERO12
                     "6:\n\t"
                     "testq %[k4], %[k4]\n\t"
                     "jz 2f\n\t"
                     "1:\n\t"
                     "prefetcht0 384(%[a])\n\t"
                     IB_STEP(0, 0)
                     IB_STEP(24, 8)
                     IB_STEP(48, 16)
                     IB_STEP(72, 24)
                     "addq $96, %[a]\n\t"
                     "addq $32, %[o]\n\t"
                     "decq %[k4]\n\t"
                     "jnz 1b\n\t"
                     "2:\n\t"
                     "testq %[k1], %[k1]\n\t"
                     "jz 4f\n\t"
                     "3:\n\t"
                     IB_STEP(0, 0)
                     "addq $24, %[a]\n\t"
                     "addq $8, %[o]\n\t"
                     "decq %[k1]\n\t"
                     "jnz 3b\n\t"
                     "4:\n\t"
                     IB_EPILOGUE
                     : [a] "+r"(A), [o] "+r"(off), [k4] "+r"(k4), [k1] "+r"(k1), [t] "=&r"(t),
                       [u] "=&r"(u)
                     : [b] "r"(B), [T] "r"(T), [acc] "r"(acc), [ep] "r"(ep)
                     : "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                       "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
                       "xmm15");
}
/* gemm_indb_epi_t's clamp kinds (0 none, 1 max with lo, 2 min(max(lo), hi)) */
ALWAYS_INLINE __m256 ib_clamp(int kind, __m256 v, __m256 lo, __m256 hi)
{
    if (kind >= 1)
        v = _mm256_max_ps(v, lo);
    if (kind == 2)
        v = _mm256_min_ps(v, hi);
    return v;
}

/* ROWS (< MR) rows of an indirect-B tile, all NR columns, through ep's
 * epilogue into ep->C (see gemm_f32_variant_t.indb_part). */
ALWAYS_INLINE void indb_part_rows(const int ROWS, int64_t kc, const float *A, const float *B,
                                  const int64_t *off, const gemm_indb_epi_t *ep)
{
    __m256 acc[MR - 1][2];
#pragma GCC unroll 5
    for (int r = 0; r < ROWS; r++)
        acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    part_rows_acc(ROWS, kc, B, off, A, NULL, NULL, acc);
    const __m256 lo = _mm256_set1_ps(ep->lo), hi = _mm256_set1_ps(ep->hi);
    const __m256 plo = _mm256_set1_ps(ep->plo), phi = _mm256_set1_ps(ep->phi);
#pragma GCC unroll 5
    for (int r = 0; r < ROWS; r++) {
        __m256 v0 = acc[r][0], v1 = acc[r][1];
        if (ep->bias) {
            const __m256 bv = _mm256_broadcast_ss(ep->bias + r);
            v0 = _mm256_add_ps(v0, bv);
            v1 = _mm256_add_ps(v1, bv);
        }
        v0 = ib_clamp(ep->act, v0, lo, hi);
        v1 = ib_clamp(ep->act, v1, lo, hi);
        if (ep->res) {
            const float *rr = (const float *)((const char *)ep->res + r * ep->ldr_bytes);
            v0 = _mm256_add_ps(v0, _mm256_loadu_ps(rr));
            v1 = _mm256_add_ps(v1, _mm256_loadu_ps(rr + 8));
        }
        v0 = ib_clamp(ep->post, v0, plo, phi);
        v1 = ib_clamp(ep->post, v1, plo, phi);
        float *cr = (float *)((char *)ep->C + r * ep->ldc_bytes);
        _mm256_storeu_ps(cr, v0);
        _mm256_storeu_ps(cr + 8, v1);
    }
}

void gemm_f32_indb_part_avx2(int rows, int64_t kc, const float *A, const float *B,
                             const int64_t *off, const gemm_indb_epi_t *ep)
{
    switch (rows) {
    case 1: indb_part_rows(1, kc, A, B, off, ep); break;
    case 2: indb_part_rows(2, kc, A, B, off, ep); break;
    case 3: indb_part_rows(3, kc, A, B, off, ep); break;
    case 4: indb_part_rows(4, kc, A, B, off, ep); break;
    default: indb_part_rows(5, kc, A, B, off, ep); break;
    }
}
#undef IB_STEP
#undef IB_ALL12
#undef IB_BIAS_ROW
#undef IB_RES_ROW
#undef IB_ST_ROW
#undef IB_CLAMP
#undef IB_COLS12
#undef IB_EPILOGUE

/* Indirect-A tile (gemm_f32_variant_t.inda): row r of A is pixel r of an
 * image, A(r, k) = px[r][off[k]], against a B micro-panel packed as
 * gemm_f32_pack_b lays it out (kc x 16). Per k step one offset load, 2
 * aligned B loads, 6 broadcasts through the pixel pointers, 12 FMAs; the
 * 6 pixel pointers live in registers for the whole loop. T (6 x 16, row
 * stride 16) accumulates when acc is set. */
#define IA_STEP(oo, bo)                                                                           \
    "movq " #oo "(%[o]), %[t]\n\t"                                                                \
    "vmovaps " #bo "(%[b]), %%ymm0\n\t"                                                           \
    "vmovaps " #bo "+32(%[b]), %%ymm1\n\t"                                                        \
    "vbroadcastss (%[p0],%[t],4), %%ymm2\n\t"                                                     \
    "vfmadd231ps %%ymm0, %%ymm2, %%ymm4\n\t"                                                      \
    "vfmadd231ps %%ymm1, %%ymm2, %%ymm5\n\t"                                                      \
    "vbroadcastss (%[p1],%[t],4), %%ymm3\n\t"                                                     \
    "vfmadd231ps %%ymm0, %%ymm3, %%ymm6\n\t"                                                      \
    "vfmadd231ps %%ymm1, %%ymm3, %%ymm7\n\t"                                                      \
    "vbroadcastss (%[p2],%[t],4), %%ymm2\n\t"                                                     \
    "vfmadd231ps %%ymm0, %%ymm2, %%ymm8\n\t"                                                      \
    "vfmadd231ps %%ymm1, %%ymm2, %%ymm9\n\t"                                                      \
    "vbroadcastss (%[p3],%[t],4), %%ymm3\n\t"                                                     \
    "vfmadd231ps %%ymm0, %%ymm3, %%ymm10\n\t"                                                     \
    "vfmadd231ps %%ymm1, %%ymm3, %%ymm11\n\t"                                                     \
    "vbroadcastss (%[p4],%[t],4), %%ymm2\n\t"                                                     \
    "vfmadd231ps %%ymm0, %%ymm2, %%ymm12\n\t"                                                     \
    "vfmadd231ps %%ymm1, %%ymm2, %%ymm13\n\t"                                                     \
    "vbroadcastss (%[p5],%[t],4), %%ymm3\n\t"                                                     \
    "vfmadd231ps %%ymm0, %%ymm3, %%ymm14\n\t"                                                     \
    "vfmadd231ps %%ymm1, %%ymm3, %%ymm15\n\t"

void gemm_f32_inda_6x16_avx2(int64_t kc, const float *const *px, const int64_t *off,
                             const float *Bp, float *T, int acc)
{
    const int64_t *oe = off + kc, *oe4 = off + kc / 4 * 4;
    int64_t t;
    __asm__ volatile("cmpl $0, %[acc]\n\t"
                     "je 5f\n\t"
                     IB_TILE_REGS("vmovups")
                     "jmp 6f\n\t"
                     "5:\n\t"
                     IB_ZERO12
                     "6:\n\t"
                     "cmpq %[oe4], %[o]\n\t"
                     "jae 2f\n\t"
                     "1:\n\t"
                     "prefetcht0 512(%[b])\n\t"
                     IA_STEP(0, 0)
                     "prefetcht0 576(%[b])\n\t"
                     IA_STEP(8, 64)
                     "prefetcht0 640(%[b])\n\t"
                     IA_STEP(16, 128)
                     "prefetcht0 704(%[b])\n\t"
                     IA_STEP(24, 192)
                     "addq $32, %[o]\n\t"
                     "addq $256, %[b]\n\t"
                     "cmpq %[oe4], %[o]\n\t"
                     "jb 1b\n\t"
                     "2:\n\t"
                     "cmpq %[oe], %[o]\n\t"
                     "jae 4f\n\t"
                     "3:\n\t"
                     IA_STEP(0, 0)
                     "addq $8, %[o]\n\t"
                     "addq $64, %[b]\n\t"
                     "cmpq %[oe], %[o]\n\t"
                     "jb 3b\n\t"
                     "4:\n\t"
                     IB_TILE_REGS_ST
                     : [o] "+r"(off), [b] "+r"(Bp), [t] "=&r"(t)
                     : [p0] "r"(px[0]), [p1] "r"(px[1]), [p2] "r"(px[2]), [p3] "r"(px[3]),
                       [p4] "r"(px[4]), [p5] "r"(px[5]), [oe] "r"(oe), [oe4] "r"(oe4),
                       [T] "r"(T), [acc] "m"(acc)
                     : "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                       "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
                       "xmm15");
}

/* ROWS (< MR) pixel rows of an indirect-A tile (see gemm_f32_variant_t.
 * inda_part): rows [0, ROWS) of T only. */
ALWAYS_INLINE void inda_part_rows(const int ROWS, int64_t kc, const float *const *px,
                                  const int64_t *off, const float *Bp, float *T, int acc)
{
    __m256 s[MR - 1][2];
#pragma GCC unroll 5
    for (int r = 0; r < ROWS; r++) {
        s[r][0] = acc ? _mm256_loadu_ps(T + r * NR) : _mm256_setzero_ps();
        s[r][1] = acc ? _mm256_loadu_ps(T + r * NR + 8) : _mm256_setzero_ps();
    }
    part_rows_acc(ROWS, kc, Bp, NULL, NULL, px, off, s);
#pragma GCC unroll 5
    for (int r = 0; r < ROWS; r++) {
        _mm256_storeu_ps(T + r * NR, s[r][0]);
        _mm256_storeu_ps(T + r * NR + 8, s[r][1]);
    }
}

void gemm_f32_inda_part_avx2(int npx, int64_t kc, const float *const *px, const int64_t *off,
                             const float *Bp, float *T, int acc)
{
    switch (npx) {
    case 1: inda_part_rows(1, kc, px, off, Bp, T, acc); break;
    case 2: inda_part_rows(2, kc, px, off, Bp, T, acc); break;
    case 3: inda_part_rows(3, kc, px, off, Bp, T, acc); break;
    case 4: inda_part_rows(4, kc, px, off, Bp, T, acc); break;
    default: inda_part_rows(5, kc, px, off, Bp, T, acc); break;
    }
}
#undef IA_STEP
#undef IB_TILE_REGS
#undef IB_TILE_REGS_ST
#undef IB_ZERO12

/* The 6 x 16 tile T of an indirect-A product (rows pixels, columns
 * channels) stored transposed: C[c * ldc + r] for pixels r < npx and
 * channels c < nch, through e (bias_row: per channel; res: at channel 0,
 * pixel 0, channel rows ldr apart). Bias and the first activation run on
 * the 16-channel vectors; the residual, the second activation and the
 * store go element by element (C's rows are channels). */
/* n (<= 8) floats at p into a vector (lanes past n zero) and back: 6
 * pixels (a full tile) as 4 + 2, others through the stack; no masked
 * accesses (microcoded on AMD) */
ALWAYS_INLINE __m256 load_n(const float *p, int n)
{
    if (n == 6) {
        int64_t two;
        memcpy(&two, p + 4, sizeof two);
        return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)),
                                    _mm_castsi128_ps(_mm_cvtsi64_si128(two)), 1);
    }
    float t[8] __attribute__((aligned(32))) = {0};
    for (int i = 0; i < n; i++)
        t[i] = p[i];
    return _mm256_load_ps(t);
}

ALWAYS_INLINE void store_n(float *p, int n, __m256 v)
{
    if (n == 6) {
        _mm_storeu_ps(p, _mm256_castps256_ps128(v));
        const int64_t two = _mm_cvtsi128_si64(_mm_castps_si128(_mm256_extractf128_ps(v, 1)));
        memcpy(p + 4, &two, sizeof two);
        return;
    }
    float t[8] __attribute__((aligned(32)));
    _mm256_store_ps(t, v);
    for (int i = 0; i < n; i++)
        p[i] = t[i];
}

/* The tile T (npx <= 6 pixel rows of NR channels) stored transposed: the
 * rows through bias / act / scale, two 8x8 register transposes, then per
 * channel the pixels' run of C (and of the residual) at once. */
void gemm_f32_tile_store_t_avx2(const float *T, int npx, int nch, float *C, int64_t ldc,
                                const gemm_tile_epi_t *e)
{
    const __m256i m0 = lane_mask(nch), m1 = lane_mask(nch - 8);
    __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
    if (e && e->bias_row) {
        b0 = _mm256_maskload_ps(e->bias_row, m0);
        b1 = _mm256_maskload_ps(e->bias_row + 8, m1);
    }
    __m256 lo[8], hi[8];
    for (int r = 0; r < 8; r++) {
        if (r >= npx) {
            lo[r] = hi[r] = _mm256_setzero_ps();
            continue;
        }
        __m256 v0 = _mm256_add_ps(_mm256_loadu_ps(T + r * NR), b0);
        __m256 v1 = _mm256_add_ps(_mm256_loadu_ps(T + r * NR + 8), b1);
        if (e) {
            v0 = act256(v0, e->act, e->lo, e->hi);
            v1 = act256(v1, e->act, e->lo, e->hi);
            if (e->scale != 1.0f) {
                v0 = _mm256_mul_ps(v0, _mm256_set1_ps(e->scale));
                v1 = _mm256_mul_ps(v1, _mm256_set1_ps(e->scale));
            }
        }
        lo[r] = v0, hi[r] = v1;
    }
    vm256_transpose8(lo); /* lo[c]: channel c's pixels */
    vm256_transpose8(hi);
    for (int c = 0; c < nch; c++) {
        __m256 v = c < 8 ? lo[c] : hi[c - 8];
        if (e && e->res)
            v = _mm256_add_ps(v, load_n(e->res + c * e->ldr, npx));
        if (e && e->post_act != GEMM_ACT_NONE)
            v = act256(v, e->post_act, e->post_lo, e->post_hi);
        store_n(C + c * ldc, npx, v);
    }
}

/* Columns [0, n) of rows [0, m) of the 6 x 16 tile T (row stride 16)
 * through the epilogue e (NULL: none) into C. */
void gemm_f32_tile_store_avx2(const float *T, int m, int n, float *C, int64_t ldc,
                              const gemm_tile_epi_t *e)
{
    if (e) {
        epi_store(T, C, ldc, m, n, 0.0f, e);
        return;
    }
    for (int r = 0; r < m; r++)
        for (int c0 = 0; c0 < n; c0 += 8) {
            __m256 v = _mm256_loadu_ps(T + r * NR + c0);
            if (n - c0 >= 8)
                _mm256_storeu_ps(C + r * ldc + c0, v);
            else
                _mm256_maskstore_ps(C + r * ldc + c0, lane_mask(n - c0), v);
        }
}

ALWAYS_INLINE void kernel_direct(const int ROWS, int64_t kc, const float *A, int64_t rs_a,
                                 int64_t cs_a, const float *B, int64_t ldb, float *C, int64_t ldc,
                                 int m, int n, float alpha, float beta, const gemm_tile_epi_t *e)
{
    __m256 acc[MR][2];
    const float *ar[MR];
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; r++) {
        acc[r][0] = acc[r][1] = _mm256_setzero_ps();
        ar[r] = A + (r < m ? r : m - 1) * rs_a;
    }
    __m256i m0 = lane_mask(n), m1 = lane_mask(n - 8);
    for (int64_t k = 0; k < kc; k++) {
        __m256 b0 = _mm256_maskload_ps(B, m0);
        __m256 b1 = _mm256_maskload_ps(B + 8, m1);
        int64_t ka = k * cs_a;
#pragma GCC unroll 8
        for (int r = 0; r < ROWS; r++) {
            __m256 a = _mm256_broadcast_ss(ar[r] + ka);
            acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);
        }
        B += ldb;
    }
    store_tile(acc, ROWS, C, ldc, m, n, alpha, beta, e);
}

void gemm_f32_ukernel_6x16_avx2(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                                const float *B, int64_t ldb, float *C, int64_t ldc, int m, int n,
                                float alpha, float beta, const gemm_tile_epi_t *e)
{
    if (rs_a == 0) {
        kernel_packed(kc, A, B, C, ldc, m, n, alpha, beta, e);
        return;
    }
    if (m <= 1)
        kernel_direct(1, kc, A, rs_a, cs_a, B, ldb, C, ldc, m, n, alpha, beta, e);
    else if (m <= 2)
        kernel_direct(2, kc, A, rs_a, cs_a, B, ldb, C, ldc, m, n, alpha, beta, e);
    else if (m <= 4)
        kernel_direct(4, kc, A, rs_a, cs_a, B, ldb, C, ldc, m, n, alpha, beta, e);
    else
        kernel_direct(MR, kc, A, rs_a, cs_a, B, ldb, C, ldc, m, n, alpha, beta, e);
}


/* Packs `rows` (<= w) row streams s + r*ld, contiguous along k, into one
 * k-major panel of width w: element (r, k) at d[k*w + r], rows past `rows`
 * zero. 8 k steps of 8 rows are loaded and transposed in registers; the
 * scalar packers gathered one float per row per k step. A 6-wide column is
 * written as 8 floats whose last two land on the next column's slots and
 * are overwritten by it; the panel's final column is written exactly. */
static void pack_kmajor(const float *s, int64_t ld, int rows, int64_t kc, int w, float *d)
{
    int64_t k = 0;
    for (; k + 8 <= kc; k += 8) {
        for (int r0 = 0; r0 < w; r0 += 8) {
            __m256 v[8];
            for (int i = 0; i < 8; i++)
                v[i] = r0 + i < rows ? _mm256_loadu_ps(s + (r0 + i) * ld + k) : _mm256_setzero_ps();
            vm256_transpose8(v);
            int cnt = w - r0 < 8 ? w - r0 : 8;
            for (int i = 0; i < 8; i++) {
                float *dk = d + (k + i) * w + r0;
                if (cnt == 8 || (r0 + 8 >= w && k + i + 1 < kc)) {
                    _mm256_storeu_ps(dk, v[i]);
                } else {
                    float t[8];
                    _mm256_storeu_ps(t, v[i]);
                    memcpy(dk, t, (size_t)cnt * sizeof(float));
                }
            }
        }
    }
    for (; k < kc; k++)
        for (int r = 0; r < w; r++)
            d[k * w + r] = r < rows ? s[r * ld + k] : 0.0f;
}

/* A full 6-row panel (the 6x16 kernel's A side): 6 rows x 8 k steps are
 * 48 consecutive floats of the panel, built in 18 shuffles and written as 6
 * whole vectors. As 64-bit pairs, a_k = (row 0, row 1) at step k, b_k rows
 * 2-3, c_k rows 4-5, the panel is a0 b0 c0 a1 b1 c1 ...; unpacking rows in
 * pairs gives [a0 a1 | a4 a5] and [a2 a3 | a6 a7] (and so on for b, c),
 * three 64-bit shuffles per half form [a0 b0 | a4 b4], [c0 a1 | c4 a5],
 * [b1 c1 | b5 c5], and the 128-bit halves are then paired into the six
 * outputs. The 8 x 8 transpose of pack_kmajor took 24 shuffles, 8
 * overlapping stores and branches per block: 48 x 256 (in L2) packed at 12
 * -> 45 GB/s, 128 x 1536 at 11 -> 32 GB/s; 256^3 GEMM on 1 thread 93 -> 97
 * GFLOP/s (Zen 2). */
static void pack_a6(const float *s, int64_t ld, int64_t kc, float *d)
{
    int64_t k = 0;
    for (; k + 8 <= kc; k += 8, d += 48) {
        const __m256 r0 = _mm256_loadu_ps(s + k), r1 = _mm256_loadu_ps(s + ld + k);
        const __m256 r2 = _mm256_loadu_ps(s + 2 * ld + k), r3 = _mm256_loadu_ps(s + 3 * ld + k);
        const __m256 r4 = _mm256_loadu_ps(s + 4 * ld + k), r5 = _mm256_loadu_ps(s + 5 * ld + k);
        const __m256d a_lo = _mm256_castps_pd(_mm256_unpacklo_ps(r0, r1));
        const __m256d a_hi = _mm256_castps_pd(_mm256_unpackhi_ps(r0, r1));
        const __m256d b_lo = _mm256_castps_pd(_mm256_unpacklo_ps(r2, r3));
        const __m256d b_hi = _mm256_castps_pd(_mm256_unpackhi_ps(r2, r3));
        const __m256d c_lo = _mm256_castps_pd(_mm256_unpacklo_ps(r4, r5));
        const __m256d c_hi = _mm256_castps_pd(_mm256_unpackhi_ps(r4, r5));
        const __m256d u0 = _mm256_unpacklo_pd(a_lo, b_lo);   /* a0 b0 | a4 b4 */
        const __m256d x0 = _mm256_shuffle_pd(c_lo, a_lo, 10); /* c0 a1 | c4 a5 */
        const __m256d v0 = _mm256_unpackhi_pd(b_lo, c_lo);   /* b1 c1 | b5 c5 */
        const __m256d u1 = _mm256_unpacklo_pd(a_hi, b_hi);   /* a2 b2 | a6 b6 */
        const __m256d x1 = _mm256_shuffle_pd(c_hi, a_hi, 10); /* c2 a3 | c6 a7 */
        const __m256d v1 = _mm256_unpackhi_pd(b_hi, c_hi);   /* b3 c3 | b7 c7 */
        _mm256_storeu_pd((double *)d, _mm256_permute2f128_pd(u0, x0, 0x20));
        _mm256_storeu_pd((double *)(d + 8), _mm256_permute2f128_pd(v0, u1, 0x20));
        _mm256_storeu_pd((double *)(d + 16), _mm256_permute2f128_pd(x1, v1, 0x20));
        _mm256_storeu_pd((double *)(d + 24), _mm256_permute2f128_pd(u0, x0, 0x31));
        _mm256_storeu_pd((double *)(d + 32), _mm256_permute2f128_pd(v0, u1, 0x31));
        _mm256_storeu_pd((double *)(d + 40), _mm256_permute2f128_pd(x1, v1, 0x31));
    }
    for (; k < kc; k++, d += 6)
        for (int r = 0; r < 6; r++)
            d[r] = s[r * ld + k];
}

void gemm_f32_pack_a_avx2(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0,
                          int64_t mc, int64_t kc, int mr, float *dst)
{
    if (transA || mr > 16) {
        gemm_f32_pack_a(transA, A, lda, i0, p0, mc, kc, mr, dst);
        return;
    }
    int64_t q = 0;
    if (mr == 6)
        for (; q + 6 <= mc; q += 6)
            pack_a6(A + (i0 + q) * lda + p0, lda, kc, dst + q * kc);
    for (; q < mc; q += mr)
        pack_kmajor(A + (i0 + q) * lda + p0, lda, (int)(mc - q < mr ? mc - q : mr), kc, mr,
                    dst + q * kc);
}

void gemm_f32_pack_b_avx2(int transB, const float *B, int64_t ldb, int64_t p0, int64_t j0,
                          int64_t kc, int64_t nc, int nr, float *dst)
{
    if (!transB && nr == 16) {
        /* B's rows in order, 8 at a time across every panel of the block
         * (see gemm_f32_pack_b_block), in whole vectors where the portable
         * copy moved 16 bytes at a time (1536 x 384: 36 -> 42 GB/s); the
         * last partial panel's columns past nc are zero */
        const int64_t full = nc / 16 * 16;
        for (int64_t k0 = 0; k0 < kc; k0 += 8) {
            const int64_t kn = kc - k0 < 8 ? kc - k0 : 8;
            for (int64_t q = 0; q < full; q += 16) {
                float *d = dst + q * kc + k0 * 16;
                const float *s = B + (p0 + k0) * ldb + j0 + q;
                for (int64_t i = 0; i < kn; i++) {
                    _mm256_storeu_ps(d + i * 16, _mm256_loadu_ps(s + i * ldb));
                    _mm256_storeu_ps(d + i * 16 + 8, _mm256_loadu_ps(s + i * ldb + 8));
                }
            }
            if (full < nc) {
                float *d = dst + full * kc + k0 * 16;
                const float *s = B + (p0 + k0) * ldb + j0 + full;
                for (int64_t i = 0; i < kn; i++) {
                    _mm256_storeu_ps(d + i * 16, load_upto8(s + i * ldb, nc - full));
                    _mm256_storeu_ps(d + i * 16 + 8, load_upto8(s + i * ldb + 8, nc - full - 8));
                }
            }
        }
        return;
    }
    if (!transB || nr > 16) {
        gemm_f32_pack_b_block(transB, B, ldb, p0, j0, kc, nc, nr, dst);
        return;
    }
    for (int64_t q = 0; q < nc; q += nr)
        pack_kmajor(B + (j0 + q) * ldb + p0, ldb, (int)(nc - q < nr ? nc - q : nr), kc, nr,
                    dst + q * kc);
}

/* Few-row GEMM (see gemm_f32_smallm_fn): B streams through once, row by
 * row, while the caller's chunk of C stays in cache. Rows go in groups of RB <= 3 and K in
 * steps of 4: the group's 12 alpha * A values sit in registers, and each 8
 * columns of C cost 4 B loads, 3 C loads and 3 C stores for 12 FMAs, so the
 * loop is bound by the FMAs rather than by loads (the portable version
 * loaded and stored C once per 4 FMAs). */

ALWAYS_INLINE void smallm_group(const int RB, const int KB, const int PF, int64_t n, int64_t k0,
                                float alpha,
                                const float *A, int64_t rs_a, int64_t cs_a, const float *B,
                                int64_t ldb, float *C, int64_t ldc)
{
    __m256 a[3][4];
    float as[3][4];
    for (int r = 0; r < RB; r++)
        for (int i = 0; i < KB; i++) {
            as[r][i] = alpha * A[r * rs_a + (k0 + i) * cs_a];
            a[r][i] = _mm256_set1_ps(as[r][i]);
        }
    /* rows past KB are never read (a zero weight would turn an Inf in B into a NaN) */
    const float *b0 = B + k0 * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        if (PF && (j & 15) == 0) {
            /* the next K step's rows of this chunk: B comes from memory once */
            _mm_prefetch((const char *)(b0 + 4 * ldb + j), _MM_HINT_T0);
            _mm_prefetch((const char *)(b1 + 4 * ldb + j), _MM_HINT_T0);
            _mm_prefetch((const char *)(b2 + 4 * ldb + j), _MM_HINT_T0);
            _mm_prefetch((const char *)(b3 + 4 * ldb + j), _MM_HINT_T0);
        }
        __m256 x0 = _mm256_loadu_ps(b0 + j), x1 = x0, x2 = x0, x3 = x0;
        if (KB > 1)
            x1 = _mm256_loadu_ps(b1 + j);
        if (KB > 2)
            x2 = _mm256_loadu_ps(b2 + j);
        if (KB > 3)
            x3 = _mm256_loadu_ps(b3 + j);
        for (int r = 0; r < RB; r++) {
            float *c = C + r * ldc + j;
            __m256 v = _mm256_fmadd_ps(a[r][0], x0, _mm256_loadu_ps(c));
            if (KB > 1)
                v = _mm256_fmadd_ps(a[r][1], x1, v);
            if (KB > 2)
                v = _mm256_fmadd_ps(a[r][2], x2, v);
            if (KB > 3)
                v = _mm256_fmadd_ps(a[r][3], x3, v);
            _mm256_storeu_ps(c, v);
        }
    }
    for (; j < n; j++)
        for (int r = 0; r < RB; r++) {
            float v = C[r * ldc + j] + as[r][0] * b0[j];
            if (KB > 1)
                v += as[r][1] * b1[j];
            if (KB > 2)
                v += as[r][2] * b2[j];
            if (KB > 3)
                v += as[r][3] * b3[j];
            C[r * ldc + j] = v;
        }
}

/* One K step group of kb (1..4) rows of B for rows of C in groups of 3. */
ALWAYS_INLINE void smallm_kstep(const int KB, int prefetch, int m, int64_t nc, int64_t k0,
                                float alpha,
                                const float *A, int64_t rs_a, int64_t cs_a, const float *B,
                                int64_t ldb, float *C, int64_t ldc)
{
    /* the first group prefetches the next step's B rows (prefetches past
     * the end of B are harmless hints, but the last step issues none).
     * Not for 1 or 2 rows: there the loop is bound by streaming B, which
     * the hardware prefetchers do better alone (1 x 4096 x 4096, Zen 2:
     * 3.35 -> 3.0 ms, 21.6 GB/s; from 3 rows on the hints win, 4.2 vs
     * 4.45 ms at 3 rows, 4.8 vs 5.25 at 4). */
    const int pf = KB == 4 && prefetch && m >= 3;
    int r = 0;
    if (m >= 3) {
        if (pf)
            smallm_group(3, KB, 1, nc, k0, alpha, A, rs_a, cs_a, B, ldb, C, ldc);
        else
            smallm_group(3, KB, 0, nc, k0, alpha, A, rs_a, cs_a, B, ldb, C, ldc);
        r = 3;
    }
    for (; r + 3 <= m; r += 3)
        smallm_group(3, KB, 0, nc, k0, alpha, A + r * rs_a, rs_a, cs_a, B, ldb, C + r * ldc, ldc);
    if (m - r == 2)
        smallm_group(2, KB, pf && r == 0, nc, k0, alpha, A + r * rs_a, rs_a, cs_a, B, ldb,
                     C + r * ldc, ldc);
    else if (m - r == 1)
        smallm_group(1, KB, pf && r == 0, nc, k0, alpha, A + r * rs_a, rs_a, cs_a, B, ldb,
                     C + r * ldc, ldc);
}

/* A few rows (ROWS <= 4) times a pre-packed B (gemm_f32_pack_b's panels:
 * K block pc at Bp + pc * npad, NR-column panel jr at + jr * kcb, element
 * (k, c) at [k * NR + c]): C columns [n0, n1) = alpha * A * B. Bound by
 * reading B (a 1 x 1280 x 1000 classifier reads 5 MB for 2.6 MFLOP), so B
 * is prefetched 1 KiB ahead; the 2 * ROWS accumulators stay in registers. */
ALWAYS_INLINE void gemv_packed_rows(const int ROWS, int64_t K, int64_t kc, int64_t npad,
                                    float alpha, const float *A, int64_t rs_a, int64_t cs_a,
                                    const float *Bp, int64_t n0, int64_t n1, float *C,
                                    int64_t ldc)
{
    for (int64_t jr = n0; jr < n1; jr += NR) {
        __m256 acc[4][2];
#pragma GCC unroll 4
        for (int r = 0; r < ROWS; r++)
            acc[r][0] = acc[r][1] = _mm256_setzero_ps();
        for (int64_t pc = 0; pc < K; pc += kc) {
            const int64_t kcb = K - pc < kc ? K - pc : kc;
            const float *b = Bp + pc * npad + jr * kcb;
            for (int64_t k = 0; k < kcb; k++, b += NR) {
                _mm_prefetch((const char *)(b + 256), _MM_HINT_T0);
                const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
#pragma GCC unroll 4
                for (int r = 0; r < ROWS; r++) {
                    const __m256 a = _mm256_broadcast_ss(A + r * rs_a + (pc + k) * cs_a);
                    acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);
                    acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);
                }
            }
        }
        const int n = n1 - jr < NR ? (int)(n1 - jr) : NR;
        const __m256 va = _mm256_set1_ps(alpha);
#pragma GCC unroll 4
        for (int r = 0; r < ROWS; r++) {
            float *c = C + r * ldc + jr;
            const __m256 v0 = _mm256_mul_ps(va, acc[r][0]), v1 = _mm256_mul_ps(va, acc[r][1]);
            if (n == NR) {
                _mm256_storeu_ps(c, v0);
                _mm256_storeu_ps(c + 8, v1);
            } else {
                _mm256_maskstore_ps(c, lane_mask(n), v0);
                _mm256_maskstore_ps(c + 8, lane_mask(n - 8), v1);
            }
        }
    }
}

/* ROWS rows of A times PW whole NR-column panels at once, columns [n0, n0
 * + PW NR): PW streams of B in flight instead of one, and 2 ROWS PW
 * independent accumulator chains. Panel by panel, one stream read B at
 * 14-15 GB/s (1 x 1280 x 1000 with B from memory, Zen 2: 0.34 ms); four at
 * once reach 24-27 GB/s (0.21 ms). */
ALWAYS_INLINE void gemv_packed_wide(const int ROWS, const int PW, int64_t K, int64_t kc,
                                    int64_t npad, float alpha, const float *A, int64_t rs_a,
                                    int64_t cs_a, const float *Bp, int64_t n0, float *C,
                                    int64_t ldc)
{
    __m256 acc[3][4][2];
#pragma GCC unroll 3
    for (int r = 0; r < ROWS; r++)
#pragma GCC unroll 4
        for (int q = 0; q < PW; q++)
            acc[r][q][0] = acc[r][q][1] = _mm256_setzero_ps();
    for (int64_t pc = 0; pc < K; pc += kc) {
        const int64_t kcb = K - pc < kc ? K - pc : kc;
        const float *b = Bp + pc * npad + n0 * kcb;
        const int64_t ps = kcb * NR; /* panel stride */
        for (int64_t k = 0; k < kcb; k++, b += NR) {
            __m256 bv[4][2];
#pragma GCC unroll 4
            for (int q = 0; q < PW; q++) {
                bv[q][0] = _mm256_load_ps(b + q * ps);
                bv[q][1] = _mm256_load_ps(b + q * ps + 8);
            }
#pragma GCC unroll 3
            for (int r = 0; r < ROWS; r++) {
                const __m256 a = _mm256_broadcast_ss(A + r * rs_a + (pc + k) * cs_a);
#pragma GCC unroll 4
                for (int q = 0; q < PW; q++) {
                    acc[r][q][0] = _mm256_fmadd_ps(a, bv[q][0], acc[r][q][0]);
                    acc[r][q][1] = _mm256_fmadd_ps(a, bv[q][1], acc[r][q][1]);
                }
            }
        }
    }
    const __m256 va = _mm256_set1_ps(alpha);
#pragma GCC unroll 3
    for (int r = 0; r < ROWS; r++)
#pragma GCC unroll 4
        for (int q = 0; q < PW; q++) {
            float *c = C + r * ldc + n0 + q * NR;
            _mm256_storeu_ps(c, _mm256_mul_ps(va, acc[r][q][0]));
            _mm256_storeu_ps(c + 8, _mm256_mul_ps(va, acc[r][q][1]));
        }
}

void gemm_f32_gemv_packed_avx2(int m, int64_t K, int64_t kc, int64_t npad, float alpha,
                               const float *A, int64_t rs_a, int64_t cs_a, const float *Bp,
                               int64_t n0, int64_t n1, float *C, int64_t ldc)
{
    /* whole groups of panels several at a time (1 row: 4 panels, 2 or 3
     * rows: 2), the rest one by one */
    if (m <= 3) {
        const int pw = m == 1 ? 4 : 2;
        for (; n0 + pw * NR <= n1; n0 += pw * NR) {
            if (m == 1)
                gemv_packed_wide(1, 4, K, kc, npad, alpha, A, rs_a, cs_a, Bp, n0, C, ldc);
            else if (m == 2)
                gemv_packed_wide(2, 2, K, kc, npad, alpha, A, rs_a, cs_a, Bp, n0, C, ldc);
            else
                gemv_packed_wide(3, 2, K, kc, npad, alpha, A, rs_a, cs_a, Bp, n0, C, ldc);
        }
        if (n0 >= n1)
            return;
    }
    for (int r0 = 0; r0 < m; r0 += 4) {
        const float *a = A + r0 * rs_a;
        float *c = C + r0 * ldc;
        switch (m - r0 < 4 ? m - r0 : 4) {
        case 1:
            gemv_packed_rows(1, K, kc, npad, alpha, a, rs_a, cs_a, Bp, n0, n1, c, ldc);
            break;
        case 2:
            gemv_packed_rows(2, K, kc, npad, alpha, a, rs_a, cs_a, Bp, n0, n1, c, ldc);
            break;
        case 3:
            gemv_packed_rows(3, K, kc, npad, alpha, a, rs_a, cs_a, Bp, n0, n1, c, ldc);
            break;
        default:
            gemv_packed_rows(4, K, kc, npad, alpha, a, rs_a, cs_a, Bp, n0, n1, c, ldc);
            break;
        }
    }
}

/* One row of C (a matrix-vector product): 8 rows of B per pass, so each
 * 8 columns of C are loaded and stored once per 8 FMAs and 8 streams of B
 * are in flight. */
static void gemv1_step8(int64_t n, int64_t k0, float alpha, const float *A, int64_t cs_a,
                        const float *B, int64_t ldb, float *C)
{
    __m256 a[8];
    float as[8];
    const float *b[8];
    for (int i = 0; i < 8; i++) {
        as[i] = alpha * A[(k0 + i) * cs_a];
        a[i] = _mm256_set1_ps(as[i]);
        b[i] = B + (k0 + i) * ldb;
    }
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256 v = _mm256_loadu_ps(C + j);
        __m256 w = _mm256_mul_ps(a[1], _mm256_loadu_ps(b[1] + j));
        v = _mm256_fmadd_ps(a[0], _mm256_loadu_ps(b[0] + j), v);
        w = _mm256_fmadd_ps(a[3], _mm256_loadu_ps(b[3] + j), w);
        v = _mm256_fmadd_ps(a[2], _mm256_loadu_ps(b[2] + j), v);
        w = _mm256_fmadd_ps(a[5], _mm256_loadu_ps(b[5] + j), w);
        v = _mm256_fmadd_ps(a[4], _mm256_loadu_ps(b[4] + j), v);
        w = _mm256_fmadd_ps(a[7], _mm256_loadu_ps(b[7] + j), w);
        v = _mm256_fmadd_ps(a[6], _mm256_loadu_ps(b[6] + j), v);
        _mm256_storeu_ps(C + j, _mm256_add_ps(v, w));
    }
    for (; j < n; j++) {
        float v = C[j];
        for (int i = 0; i < 8; i++)
            v += as[i] * b[i][j];
        C[j] = v;
    }
}

void gemm_f32_smallm_avx2(int m, int64_t n, int64_t K, float alpha, const float *A, int64_t rs_a,
                          int64_t cs_a, const float *B, int64_t ldb, float beta, float *C,
                          int64_t ldc)
{
    /* The caller's chunk of C (m x n, a quarter of L2) in one pass: each
     * row of B is read in one contiguous run of n floats. Cutting it into
     * L1-sized pieces (16 KiB of C) made the runs short, and B's streaming,
     * not C's trips to L2, is what bounds the loop: 6 x 4096 x 4096 6.5 ->
     * 5.0 ms, 8 x 4096 x 4096 8.7 -> 7.7 ms on Zen 2. */
    for (int r = 0; r < m; r++) {
        float *c = C + r * ldc;
        for (int64_t j = 0; j < n; j++)
            c[j] = beta == 0.0f ? 0.0f : beta * c[j];
    }
    int64_t k0 = 0;
    if (m == 1)
        for (; k0 + 8 <= K; k0 += 8)
            gemv1_step8(n, k0, alpha, A, cs_a, B, ldb, C);
    for (; k0 + 4 <= K; k0 += 4)
        smallm_kstep(4, k0 + 8 <= K, m, n, k0, alpha, A, rs_a, cs_a, B, ldb, C, ldc);
    if (K - k0 == 3)
        smallm_kstep(3, 0, m, n, k0, alpha, A, rs_a, cs_a, B, ldb, C, ldc);
    else if (K - k0 == 2)
        smallm_kstep(2, 0, m, n, k0, alpha, A, rs_a, cs_a, B, ldb, C, ldc);
    else if (K - k0 == 1)
        smallm_kstep(1, 0, m, n, k0, alpha, A, rs_a, cs_a, B, ldb, C, ldc);
}

#define S16_STEP(ao, bo)                                                                          \
    "vmovdqa " #bo "(%[b]), %%ymm0\n\t"                                                           \
    "vmovdqa " #bo "+32(%[b]), %%ymm1\n\t"                                                        \
    "vbroadcastss " #ao "(%[a]), %%ymm2\n\t"                                                      \
    "vpmaddwd %%ymm0, %%ymm2, %%ymm3\n\t"                                                         \
    "vpaddd %%ymm3, %%ymm4, %%ymm4\n\t"                                                           \
    "vpmaddwd %%ymm1, %%ymm2, %%ymm3\n\t"                                                         \
    "vpaddd %%ymm3, %%ymm5, %%ymm5\n\t"                                                           \
    "vbroadcastss " #ao "+4(%[a]), %%ymm2\n\t"                                                    \
    "vpmaddwd %%ymm0, %%ymm2, %%ymm3\n\t"                                                         \
    "vpaddd %%ymm3, %%ymm6, %%ymm6\n\t"                                                           \
    "vpmaddwd %%ymm1, %%ymm2, %%ymm3\n\t"                                                         \
    "vpaddd %%ymm3, %%ymm7, %%ymm7\n\t"                                                           \
    "vbroadcastss " #ao "+8(%[a]), %%ymm2\n\t"                                                    \
    "vpmaddwd %%ymm0, %%ymm2, %%ymm3\n\t"                                                         \
    "vpaddd %%ymm3, %%ymm8, %%ymm8\n\t"                                                           \
    "vpmaddwd %%ymm1, %%ymm2, %%ymm3\n\t"                                                         \
    "vpaddd %%ymm3, %%ymm9, %%ymm9\n\t"                                                           \
    "vbroadcastss " #ao "+12(%[a]), %%ymm2\n\t"                                                   \
    "vpmaddwd %%ymm0, %%ymm2, %%ymm3\n\t"                                                         \
    "vpaddd %%ymm3, %%ymm10, %%ymm10\n\t"                                                         \
    "vpmaddwd %%ymm1, %%ymm2, %%ymm3\n\t"                                                         \
    "vpaddd %%ymm3, %%ymm11, %%ymm11\n\t"                                                         \
    "vbroadcastss " #ao "+16(%[a]), %%ymm2\n\t"                                                   \
    "vpmaddwd %%ymm0, %%ymm2, %%ymm3\n\t"                                                         \
    "vpaddd %%ymm3, %%ymm12, %%ymm12\n\t"                                                         \
    "vpmaddwd %%ymm1, %%ymm2, %%ymm3\n\t"                                                         \
    "vpaddd %%ymm3, %%ymm13, %%ymm13\n\t"                                                         \
    "vbroadcastss " #ao "+20(%[a]), %%ymm2\n\t"                                                   \
    "vpmaddwd %%ymm0, %%ymm2, %%ymm3\n\t"                                                         \
    "vpaddd %%ymm3, %%ymm14, %%ymm14\n\t"                                                         \
    "vpmaddwd %%ymm1, %%ymm2, %%ymm3\n\t"                                                         \
    "vpaddd %%ymm3, %%ymm15, %%ymm15\n\t"

/* int8 on 16-bit pairs (lowp.c, gemm_kern_t): a 6 x 16 s32 tile, each k
 * pair one vpmaddwd + vpaddd per accumulator (u8 and s8 were widened when
 * packed, so every product and pair sum is exact). The k loop is assembly
 * for the reason given at kernel_packed (GCC spilled the 12 accumulators);
 * all 16 ymm registers are used. The A pairs are broadcast with
 * vbroadcastss (a plain load on Zen 2; vpbroadcastd also took a vector
 * ALU slot from the vpmaddwd/vpaddd stream: 75 -> 86 GOP/s at 1024^3).
 * beta != 0 adds C. */
/* One row of the panel (m = 1: a classifier's product, which the 6-row
 * tile ran at a sixth of its rate): four chains of accumulators over the
 * k pairs, summed at the end. */
static __attribute__((noinline)) void s16_row1_avx2(int64_t kc, const int16_t *a,
                                                     const int16_t *b, int32_t *c, int n,
                                                     float beta)
{
    enum { SMR = 6, SNR = 16 };
    __m256i acc[4][2];
    for (int h = 0; h < 4; h++)
        acc[h][0] = acc[h][1] = _mm256_setzero_si256();
    const int64_t ng = (kc + 1) / 2;
    int64_t g = 0;
    for (; g + 4 <= ng; g += 4) {
#pragma GCC unroll 4
        for (int h = 0; h < 4; h++) {
            int32_t a2;
            memcpy(&a2, a + 2 * SMR * h, 4);
            const __m256i av = _mm256_set1_epi32(a2);
            const __m256i *bv = (const __m256i *)(b + 2 * SNR * h);
            acc[h][0] = _mm256_add_epi32(acc[h][0], _mm256_madd_epi16(av, _mm256_load_si256(bv)));
            acc[h][1] =
                _mm256_add_epi32(acc[h][1], _mm256_madd_epi16(av, _mm256_load_si256(bv + 1)));
        }
        a += 8 * SMR, b += 8 * SNR;
    }
    for (; g < ng; g++, a += 2 * SMR, b += 2 * SNR) {
        int32_t a2;
        memcpy(&a2, a, 4);
        const __m256i av = _mm256_set1_epi32(a2);
        acc[0][0] = _mm256_add_epi32(acc[0][0], _mm256_madd_epi16(av, _mm256_load_si256((const __m256i *)b)));
        acc[0][1] = _mm256_add_epi32(acc[0][1],
                                     _mm256_madd_epi16(av, _mm256_load_si256((const __m256i *)b + 1)));
    }
    int32_t t[SNR] __attribute__((aligned(32)));
    for (int v = 0; v < 2; v++)
        _mm256_store_si256((__m256i *)t + v,
                           _mm256_add_epi32(_mm256_add_epi32(acc[0][v], acc[1][v]),
                                            _mm256_add_epi32(acc[2][v], acc[3][v])));
    for (int j = 0; j < n; j++)
        c[j] = (int32_t)((beta != 0.0f ? (uint32_t)c[j] : 0u) + (uint32_t)t[j]);
}

GEMM_LOWP_UK(gemm_s8_ukernel_6x16_avx2_s16)
{
    (void)kn, (void)alpha, (void)e;
    enum { SMR = 6, SNR = 16 };
    if (m <= 1) {
        s16_row1_avx2(kc, A, B, C, n, beta);
        return;
    }
    const int16_t *a = A, *b = B;
    int32_t acc[SMR][SNR] __attribute__((aligned(32)));
    int64_t g2 = (kc + 1) / 2 / 2, g1 = (kc + 1) / 2 % 2;
    __asm__ volatile("vpxor %%ymm4, %%ymm4, %%ymm4\n\t"
                     "vpxor %%ymm5, %%ymm5, %%ymm5\n\t"
                     "vpxor %%ymm6, %%ymm6, %%ymm6\n\t"
                     "vpxor %%ymm7, %%ymm7, %%ymm7\n\t"
                     "vpxor %%ymm8, %%ymm8, %%ymm8\n\t"
                     "vpxor %%ymm9, %%ymm9, %%ymm9\n\t"
                     "vpxor %%ymm10, %%ymm10, %%ymm10\n\t"
                     "vpxor %%ymm11, %%ymm11, %%ymm11\n\t"
                     "vpxor %%ymm12, %%ymm12, %%ymm12\n\t"
                     "vpxor %%ymm13, %%ymm13, %%ymm13\n\t"
                     "vpxor %%ymm14, %%ymm14, %%ymm14\n\t"
                     "vpxor %%ymm15, %%ymm15, %%ymm15\n\t"
                     "testq %[g2], %[g2]\n\t"
                     "jz 2f\n\t"
                     "1:\n\t"
                     "prefetcht0 512(%[b])\n\t"
                     S16_STEP(0, 0)
                     "prefetcht0 576(%[b])\n\t"
                     S16_STEP(24, 64)
                     "addq $48, %[a]\n\t"
                     "addq $128, %[b]\n\t"
                     "decq %[g2]\n\t"
                     "jnz 1b\n\t"
                     "2:\n\t"
                     "testq %[g1], %[g1]\n\t"
                     "jz 3f\n\t"
                     S16_STEP(0, 0)
                     "3:\n\t"
                     "vmovdqa %%ymm4, 0(%[t])\n\t"
                     "vmovdqa %%ymm5, 32(%[t])\n\t"
                     "vmovdqa %%ymm6, 64(%[t])\n\t"
                     "vmovdqa %%ymm7, 96(%[t])\n\t"
                     "vmovdqa %%ymm8, 128(%[t])\n\t"
                     "vmovdqa %%ymm9, 160(%[t])\n\t"
                     "vmovdqa %%ymm10, 192(%[t])\n\t"
                     "vmovdqa %%ymm11, 224(%[t])\n\t"
                     "vmovdqa %%ymm12, 256(%[t])\n\t"
                     "vmovdqa %%ymm13, 288(%[t])\n\t"
                     "vmovdqa %%ymm14, 320(%[t])\n\t"
                     "vmovdqa %%ymm15, 352(%[t])\n\t"
                     : [a] "+r"(a), [b] "+r"(b), [g2] "+r"(g2), [g1] "+r"(g1)
                     : [t] "r"(&acc[0][0])
                     : "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                       "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
                       "xmm15");
    int32_t *c = C;
    for (int r = 0; r < m; r++)
        for (int j = 0; j < n; j++)
            c[r * ldc + j] = (int32_t)((beta != 0.0f ? (uint32_t)c[r * ldc + j] : 0u) +
                                       (uint32_t)acc[r][j]);
}
#undef S16_STEP

#else
void gemm_f32_pack_a_avx2(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0,
                          int64_t mc, int64_t kc, int mr, float *dst)
{
    gemm_f32_pack_a(transA, A, lda, i0, p0, mc, kc, mr, dst);
}
void gemm_f32_pack_b_avx2(int transB, const float *B, int64_t ldb, int64_t p0, int64_t j0,
                          int64_t kc, int64_t nc, int nr, float *dst)
{
    gemm_f32_pack_b_block(transB, B, ldb, p0, j0, kc, nc, nr, dst);
}
void gemm_f32_gemv_packed_avx2(int m, int64_t K, int64_t kc, int64_t npad, float alpha,
                               const float *A, int64_t rs_a, int64_t cs_a, const float *Bp,
                               int64_t n0, int64_t n1, float *C, int64_t ldc)
{
    (void)m, (void)K, (void)kc, (void)npad, (void)alpha, (void)A, (void)rs_a, (void)cs_a;
    (void)Bp, (void)n0, (void)n1, (void)C, (void)ldc;
}
void gemm_f32_smallm_avx2(int m, int64_t n, int64_t K, float alpha, const float *A, int64_t rs_a,
                          int64_t cs_a, const float *B, int64_t ldb, float beta, float *C,
                          int64_t ldc)
{
    (void)m, (void)n, (void)K, (void)alpha, (void)A, (void)rs_a, (void)cs_a, (void)B, (void)ldb;
    (void)beta, (void)C, (void)ldc;
}
void gemm_f32_ukernel_6x16_avx2(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                                const float *B, int64_t ldb, float *C, int64_t ldc, int m, int n,
                                float alpha, float beta, const gemm_tile_epi_t *e)
{
    (void)kc, (void)A, (void)rs_a, (void)cs_a, (void)B, (void)ldb, (void)C, (void)ldc, (void)m;
    (void)n, (void)alpha, (void)beta, (void)e;
}
void gemm_f32_indb_part_avx2(int rows, int64_t kc, const float *A, const float *B,
                             const int64_t *off, const gemm_indb_epi_t *ep)
{
    (void)rows, (void)kc, (void)A, (void)B, (void)off, (void)ep;
}
void gemm_f32_indb_6x16_avx2(int64_t kc, const float *A, const float *B, const int64_t *off,
                             float *T, int acc, const gemm_indb_epi_t *ep)
{
    (void)kc, (void)A, (void)B, (void)off, (void)T, (void)acc, (void)ep;
}
void gemm_f32_tile_store_avx2(const float *T, int m, int n, float *C, int64_t ldc,
                              const gemm_tile_epi_t *e)
{
    (void)T, (void)m, (void)n, (void)C, (void)ldc, (void)e;
}
void gemm_f32_indb_6x16_avx2(int64_t kc, const float *A, const float *B, const int64_t *off,
                             float *T, int acc, const gemm_indb_epi_t *ep)
{
    (void)kc, (void)A, (void)B, (void)off, (void)T, (void)acc, (void)ep;
}
void gemm_f32_tile_store_avx2(const float *T, int m, int n, float *C, int64_t ldc,
                              const gemm_tile_epi_t *e)
{
    (void)T, (void)m, (void)n, (void)C, (void)ldc, (void)e;
}
void gemm_f32_inda_6x16_avx2(int64_t kc, const float *const *px, const int64_t *off,
                             const float *Bp, float *T, int acc)
{
    (void)kc, (void)px, (void)off, (void)Bp, (void)T, (void)acc;
}
void gemm_f32_inda_part_avx2(int npx, int64_t kc, const float *const *px, const int64_t *off,
                             const float *Bp, float *T, int acc)
{
    (void)npx, (void)kc, (void)px, (void)off, (void)Bp, (void)T, (void)acc;
}
void gemm_f32_tile_store_t_avx2(const float *T, int npx, int nch, float *C, int64_t ldc,
                                const gemm_tile_epi_t *e)
{
    (void)T, (void)npx, (void)nch, (void)C, (void)ldc, (void)e;
}
GEMM_LOWP_UK(gemm_s8_ukernel_6x16_avx2_s16)
{
    (void)kn, (void)kc, (void)A, (void)B, (void)C, (void)ldc, (void)m, (void)n, (void)alpha;
    (void)beta, (void)e;
}
#endif
