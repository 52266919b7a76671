/*
 * AVX-512 passes of DynamicQuantizeLinear (dyn.c picks them where the CPU
 * and the CAIRN_ISA cap allow), of QuantizeLinear and of QLinearConv's
 * requantisation (qdq.c, mm.c): the SSE2 passes on 16 lanes, the tail
 * under a mask, the same results bit for bit (vminps / vmaxps keep the
 * running value for a NaN, vdivps rounds as the scalar division, the
 * 1.5 2^23 add and subtract rounds half to even). Each quantise step is a
 * division, which bounds the pass: 16 lanes a vdivps against SSE2's 4.
 * Then quant_dwconv's planes (the f32 one; the integer 3x3 one, which
 * also needs AVX512_VNNI and VBMI) and the requantising int8 GEMM tile of
 * a convolution (quant_rq_gemm_vnni); the VNNI / VBMI functions carry
 * their own target attributes and run only where quant_use_vnni().
 * Compiled with -mavx512f/bw/vl/dq (CMakeLists.txt).
 */
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_internal.h"

#if defined(__x86_64__) && defined(__AVX512F__)
#include <immintrin.h>
#include <math.h>
#include <string.h>

void quant_dyn_minmax_avx512(const float *x, int64_t n, float *mn_out, float *mx_out)
{
    __m512 mn = _mm512_setzero_ps(), mx = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        mn = _mm512_min_ps(v, mn);
        mx = _mm512_max_ps(v, mx);
    }
    if (i < n) { /* the masked-off lanes load 0, which changes neither */
        const __m512 v = _mm512_maskz_loadu_ps((__mmask16)((1u << (n - i)) - 1u), x + i);
        mn = _mm512_min_ps(v, mn);
        mx = _mm512_max_ps(v, mx);
    }
    *mn_out = _mm512_reduce_min_ps(mn);
    *mx_out = _mm512_reduce_max_ps(mx);
}

void quant_dyn_quantize_avx512(const float *x, int64_t n, float s, float z, uint8_t *y)
{
    const __m512 vs = _mm512_set1_ps(s), vz = _mm512_set1_ps(z);
    const __m512 magic = _mm512_set1_ps(12582912.0f), zero = _mm512_setzero_ps();
    const __m512 top = _mm512_set1_ps(255.0f);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1u);
        __m512 v = _mm512_div_ps(_mm512_maskz_loadu_ps(m, x + i), vs);
        v = _mm512_add_ps(_mm512_sub_ps(_mm512_add_ps(v, magic), magic), vz);
        v = _mm512_min_ps(_mm512_max_ps(v, zero), top);
        _mm512_mask_cvtusepi32_storeu_epi8(y + i, m, _mm512_cvtps_epu32(v));
    }
}

void quant_ql_quantize_avx512(const float *x, int64_t n, float s, int32_t z, int y_u8, void *y)
{
    const __m512 vs = _mm512_set1_ps(s), vz = _mm512_set1_ps((float)z);
    const __m512 magic = _mm512_set1_ps(12582912.0f);
    const __m512 lo = _mm512_set1_ps(y_u8 ? 0.0f : -128.0f);
    const __m512 hi = _mm512_set1_ps(y_u8 ? 255.0f : 127.0f);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1u);
        __m512 v = _mm512_div_ps(_mm512_maskz_loadu_ps(m, x + i), vs);
        v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v); /* NaN -> 0 */
        v = _mm512_add_ps(_mm512_sub_ps(_mm512_add_ps(v, magic), magic), vz);
        v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
        const __m512i q = _mm512_cvtps_epi32(v);
        if (y_u8)
            _mm512_mask_cvtusepi32_storeu_epi8((uint8_t *)y + i, m, q);
        else
            _mm512_mask_cvtsepi32_storeu_epi8((int8_t *)y + i, m, q);
    }
}

/* 16 sums in double, the reference's operations (quant_requant_avx512's
 * fallback) */
static inline __m512i rq_double(__m512i a, __m512d vb, __m512d vm, __m512d vz, __m512d lo,
                                __m512d hi)
{
    const __m512d zero = _mm512_setzero_pd();
    __m256i h[2];
    for (int p = 0; p < 2; p++) {
        const __m256i a8 = p ? _mm512_extracti64x4_epi64(a, 1) : _mm512_castsi512_si256(a);
        __m512d v = _mm512_mul_pd(_mm512_add_pd(_mm512_cvtepi32_pd(a8), vb), vm);
        v = _mm512_roundscale_pd(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v = _mm512_add_pd(v, vz);
        v = _mm512_mask_mov_pd(v, _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q), zero);
        v = _mm512_min_pd(_mm512_max_pd(v, lo), hi);
        h[p] = _mm512_cvtpd_epi32(v);
    }
    return _mm512_inserti64x4(_mm512_castsi256_si512(h[0]), h[1], 1);
}

/* The requantisation in single precision where it provably gives the
 * double's result: with x = acc + b exact in int32 (no overflow: checked
 * per vector unless acc_max + |b| < 2^31), m an f32 value, p = fl(fl(x) m)
 * is within |x m| 2^-22.9 of x m and the reference's fl64(x m) within |x
 * m| 2^-53, so for |p| <= 512 the two are within 2^-14 of each other and
 * round to the same integer unless p lies within 2^-13 of a half-integer
 * (those vectors, ~1 in 250, take the double path); for |p| > 512, |x m|
 * > 511.99 and both saturate with the same sign (|z| <= 255), whatever
 * p's rounding (the tie check may still send such a vector to the double
 * path, which is right too). The clamp before the conversion to int32 is
 * needed only where |x m| can reach 2^31 (|m| >= 1/2). 16 lanes in single
 * precision against two 8-lane halves in double. */
typedef struct rq_consts {
    __m512d vb, vm, vz, lo, hi;
    __m512i vbi, vzi, ilo;
    __m512 vmf, near, cap, ncap;
    int fast, check_ovf, clamp, y_u8;
} rq_consts_t;

static inline void rq_setup(rq_consts_t *c, double b, double m, int32_t z, int y_u8,
                            int64_t acc_max)
{
    c->vb = _mm512_set1_pd(b), c->vm = _mm512_set1_pd(m), c->vz = _mm512_set1_pd((double)z);
    c->lo = _mm512_set1_pd(y_u8 ? 0.0 : -128.0);
    c->hi = _mm512_set1_pd(y_u8 ? 255.0 : 127.0);
    c->fast = isfinite(m) && (double)(float)m == m && b >= -2147483648.0 && b <= 2147483647.0 &&
              b == (double)(int32_t)b;
    c->check_ovf = !(acc_max >= 0 && (double)acc_max + fabs(b) < 2147483648.0);
    c->clamp = !(fabs(m) < 0.5);
    c->vbi = _mm512_set1_epi32(c->fast ? (int32_t)b : 0), c->vzi = _mm512_set1_epi32(z);
    c->vmf = _mm512_set1_ps((float)m), c->near = _mm512_set1_ps(0.5f - 0x1p-13f);
    c->cap = _mm512_set1_ps(1024.0f), c->ncap = _mm512_set1_ps(-1024.0f);
    c->ilo = _mm512_set1_epi32(y_u8 ? 0 : -128);
    c->y_u8 = y_u8;
}

/* The single-precision product of 16 sums x (acc + b, exact in int32) and
 * the multiplier vm, p = fl(fl(x) m), with in *tie the lanes where p lies
 * within 2^-13 of a half-integer: only there can its rounding differ from
 * the double's (rq_setup's argument), so those lanes take rq_double.
 * pf - round(pf) comes from one vreduceps (a round and a subtract took
 * two: 8.5 -> 7.0 cycles per 16 on Zen 4); the callers round p by the
 * conversion, which rounds half to even as vrndscaleps does. Every form of
 * the requantisation goes through it. */
static inline __attribute__((always_inline)) __m512 rq_product(__m512i x, __m512 vm, __m512 near,
                                                               __mmask16 *tie)
{
    const __m512 pf = _mm512_mul_ps(_mm512_cvtepi32_ps(x), vm);
    const __m512 d = _mm512_reduce_round_ps(pf, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC,
                                            _MM_FROUND_NO_EXC);
    *tie = _mm512_cmp_ps_mask(_mm512_abs_ps(d), near, _CMP_GE_OQ);
    return pf;
}

/* 64 bytes of four vectors of results (+ z, not yet saturated) in lane
 * order: vpackssdw then vpackuswb (u8) / vpacksswb (i8), which saturate as
 * the output wants, then one vpermd (dword 4 j + v of the packs holds
 * vector v's elements 4 j .. 4 j + 3) */
static inline __attribute__((always_inline)) __m512i rq_pack4(__m512i q0, __m512i q1, __m512i q2,
                                                              __m512i q3, const int U8)
{
    const __m512i order = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    const __m512i w01 = _mm512_packs_epi32(q0, q1), w23 = _mm512_packs_epi32(q2, q3);
    const __m512i b8 = U8 ? _mm512_packus_epi16(w01, w23) : _mm512_packs_epi16(w01, w23);
    return _mm512_permutexvar_epi32(order, b8);
}

/* The fast form's 16 results of sums a (quant_requant_avx512's single
 * precision), and in *bad the lanes it cannot vouch for (acc + b
 * overflowed, or p within 2^-13 of a half-integer): those take rq_double.
 * HASB: a is acc + b already (no overflow possible: OVF 0) */
static inline __attribute__((always_inline)) __m512i rq_fast(const rq_consts_t *c, __m512i a,
                                                             __mmask16 *bad, const int OVF,
                                                             const int CLAMP, const int HASB)
{
    const __m512i x = HASB ? a : _mm512_add_epi32(a, c->vbi);
    __mmask16 ovf = 0;
    if (OVF) /* acc + b overflowed: both operands' signs differ from the sum's */
        ovf = _mm512_cmplt_epi32_mask(
            _mm512_and_si512(_mm512_xor_si512(a, x), _mm512_xor_si512(c->vbi, x)),
            _mm512_setzero_si512());
    __mmask16 tie;
    __m512 pf = rq_product(x, c->vmf, c->near, &tie);
    *bad = _kor_mask16(ovf, tie);
    if (CLAMP) /* |pf| > 1024 saturates either way; int32's range kept */
        pf = _mm512_min_ps(_mm512_max_ps(pf, c->ncap), c->cap);
    return _mm512_max_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(pf), c->vzi), c->ilo);
}

static inline __attribute__((always_inline)) void rq_put(const int U8, __m512i q, __mmask16 k,
                                                         void *y)
{
    if (U8)
        _mm512_mask_cvtusepi32_storeu_epi8(y, k, q);
    else
        _mm512_mask_cvtsepi32_storeu_epi8(y, k, q);
}

/* 16 sums a (lanes k) requantised and stored to y as u8 / i8 */
static inline __attribute__((always_inline)) void rq_store(const rq_consts_t *c, __m512i a,
                                                           __mmask16 k, void *y)
{
    __m512i q = _mm512_setzero_si512();
    __mmask16 bad = 0;
    if (c->fast)
        q = rq_fast(c, a, &bad, c->check_ovf, c->clamp, 0);
    if (!c->fast || !_kortestz_mask16_u8(_kand_mask16(bad, k), _kand_mask16(bad, k)))
        q = rq_double(a, c->vb, c->vm, c->vz, c->lo, c->hi);
    rq_put(c->y_u8, q, k, y);
}

/* Whole vectors of requant_cols, two at a time, through the fast form
 * with one test of both vectors' doubtful lanes (with a vector at a time,
 * the test, a mask moved to a general register and a branch on it, was
 * the loop's critical path); the flags fixed at compile time (gcc left the
 * overflow and clamp tests in the loop). Without the overflow check the
 * bias joins the row term (one addition a vector fewer; the rare vector
 * for rq_double takes it off again). Returns the sums done. */
static inline __attribute__((always_inline)) int64_t
rq_pairs(const rq_consts_t *c, const int32_t *acc, const int32_t *zt, __m512i vrt, int64_t n,
         void *y, const int OVF, const int CLAMP, const int U8, const int ZT)
{
    int64_t i = 0;
    if (!OVF)
        vrt = _mm512_add_epi32(vrt, c->vbi);
    for (; i + 32 <= n; i += 32) {
        __m512i a0 = _mm512_add_epi32(_mm512_loadu_si512(acc + i), vrt);
        __m512i a1 = _mm512_add_epi32(_mm512_loadu_si512(acc + i + 16), vrt);
        if (ZT) {
            a0 = _mm512_add_epi32(a0, _mm512_loadu_si512(zt + i));
            a1 = _mm512_add_epi32(a1, _mm512_loadu_si512(zt + i + 16));
        }
        __mmask16 bad0, bad1;
        __m512i q0 = rq_fast(c, a0, &bad0, OVF, CLAMP, !OVF);
        __m512i q1 = rq_fast(c, a1, &bad1, OVF, CLAMP, !OVF);
        if (!_kortestz_mask16_u8(bad0, bad1)) {
            if (!OVF) /* the sums without b, as rq_double takes them */
                a0 = _mm512_sub_epi32(a0, c->vbi), a1 = _mm512_sub_epi32(a1, c->vbi);
            q0 = rq_double(a0, c->vb, c->vm, c->vz, c->lo, c->hi);
            q1 = rq_double(a1, c->vb, c->vm, c->vz, c->lo, c->hi);
        }
        rq_put(U8, q0, 0xFFFF, (char *)y + i);
        rq_put(U8, q1, 0xFFFF, (char *)y + i + 16);
    }
    return i;
}

/* rq_pairs' usual case (no overflow check, no clamp) four vectors at a
 * time: the results, + z but not yet saturated, narrowed by vpackssdw and
 * vpackuswb / vpacksswb (which saturate as the output type wants) and one
 * vpermd into lane order, where a vector at a time took a vpmaxsd and a
 * vpmovusdb: 8.2 -> 7.2 cycles per 16 sums in L1 on Zen 4. */
static inline __attribute__((always_inline)) int64_t
rq_quads(const rq_consts_t *c, const int32_t *acc, const int32_t *zt, __m512i vrt, int64_t n,
         void *y, const int U8, const int ZT)
{
    const __m512i vrb = _mm512_add_epi32(vrt, c->vbi); /* the row term and b */
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i a[4], q[4];
        __mmask16 bad[4];
#pragma GCC unroll 4
        for (int v = 0; v < 4; v++) {
            a[v] = _mm512_add_epi32(_mm512_loadu_si512(acc + i + 16 * v), vrb);
            if (ZT)
                a[v] = _mm512_add_epi32(a[v], _mm512_loadu_si512(zt + i + 16 * v));
            const __m512 pf = rq_product(a[v], c->vmf, c->near, &bad[v]);
            q[v] = _mm512_add_epi32(_mm512_cvtps_epi32(pf), c->vzi);
        }
        if (!_kortestz_mask16_u8(_kor_mask16(bad[0], bad[1]), _kor_mask16(bad[2], bad[3])))
#pragma GCC unroll 4
            for (int v = 0; v < 4; v++) /* the sums without b, as rq_double takes them */
                q[v] = rq_double(_mm512_sub_epi32(a[v], c->vbi), c->vb, c->vm, c->vz, c->lo,
                                 c->hi);
        _mm512_storeu_si512((char *)y + i, rq_pack4(q[0], q[1], q[2], q[3], U8));
    }
    return i;
}

/* quant_requant_avx512 with a column term: the sums acc[i] + rt + zt[i]
 * (zt NULL: none), added as wrapping 32-bit integers. */
static void requant_cols(const int32_t *acc, const int32_t *zt, int32_t rt, int64_t n, double b,
                         double m, int32_t z, int y_u8, void *y, int64_t acc_max)
{
    rq_consts_t c;
    rq_setup(&c, b, m, z, y_u8, acc_max);
    const __m512i vrt = _mm512_set1_epi32(rt);
    int64_t i = 0;
    if (c.fast && !c.check_ovf && !c.clamp) { /* the usual case: small multipliers, K known */
        if (zt)
            i = y_u8 ? rq_quads(&c, acc, zt, vrt, n, y, 1, 1) : rq_quads(&c, acc, zt, vrt, n, y, 0, 1);
        else
            i = y_u8 ? rq_quads(&c, acc, zt, vrt, n, y, 1, 0) : rq_quads(&c, acc, zt, vrt, n, y, 0, 0);
        const int32_t *zi = zt ? zt + i : NULL;
        if (zt)
            i += y_u8 ? rq_pairs(&c, acc + i, zi, vrt, n - i, (char *)y + i, 0, 0, 1, 1)
                      : rq_pairs(&c, acc + i, zi, vrt, n - i, (char *)y + i, 0, 0, 0, 1);
        else
            i += y_u8 ? rq_pairs(&c, acc + i, zi, vrt, n - i, (char *)y + i, 0, 0, 1, 0)
                      : rq_pairs(&c, acc + i, zi, vrt, n - i, (char *)y + i, 0, 0, 0, 0);
    } else if (c.fast) {
        i = rq_pairs(&c, acc, zt, vrt, n, y, c.check_ovf, c.clamp, y_u8, zt != NULL);
    }
    for (; i < n; i += 16) {
        const __mmask16 k = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1u);
        __m512i a = _mm512_add_epi32(_mm512_maskz_loadu_epi32(k, acc + i), vrt);
        if (zt)
            a = _mm512_add_epi32(a, _mm512_maskz_loadu_epi32(k, zt + i));
        rq_store(&c, a, k, (char *)y + i);
    }
}

void quant_requant_avx512(const int32_t *acc, int64_t n, double b, double m, int32_t z, int y_u8,
                          void *y, int64_t acc_max)
{
    requant_cols(acc, NULL, 0, n, b, m, z, y_u8, y, acc_max);
}

void quant_requant_cols_avx512(const int32_t *acc, const int32_t *zt, int32_t rt, int64_t n,
                               double b, double m, int32_t z, int y_u8, void *y, int64_t acc_max)
{
    requant_cols(acc, zt, rt, n, b, m, z, y_u8, y, acc_max);
}

/* ---- quant_dwconv's plane (dw.c's layout, quant_internal.h) ---- */

static inline __mmask16 dw_lanes(int64_t n)
{
    return n >= 16 ? (__mmask16)0xFFFF : n <= 0 ? (__mmask16)0 : (__mmask16)((1u << n) - 1u);
}

static inline int64_t dw_min64(int64_t a, int64_t b) { return a < b ? a : b; }

static inline __m512 dw_widen16(__m128i b, int u8, __m512 vz)
{
    const __m512i v = u8 ? _mm512_cvtepu8_epi32(b) : _mm512_cvtepi8_epi32(b);
    return _mm512_sub_ps(_mm512_cvtepi32_ps(v), vz);
}

/* x - xz of input rows [ih0, ih1) into P: stride 1 a masked 16-byte step, stride 2
 * a 32-byte step split into its even and odd inputs, other strides
 * element by element */
static void dw_widen_avx512(const quant_dw_geom_t *g, const void *x, float *P, int64_t ih0,
                            int64_t ih1)
{
    const int64_t phase = g->rows * g->ld, PW = g->PW, iw1 = g->iw1;
    const __m512 vz = _mm512_set1_ps((float)g->xz);
    for (int64_t ih = ih0; ih < ih1; ih++) {
        const uint8_t *src = (const uint8_t *)x + ih * g->IW;
        float *row = P + (ih + g->PH) * g->ld;
        if (g->SW == 1) { /* whole 16-byte steps unmasked, the tail under a mask */
            int64_t i = 0;
            for (; i + 16 <= iw1; i += 16)
                _mm512_storeu_ps(row + PW + i,
                                 dw_widen16(_mm_loadu_si128((const __m128i *)(const void *)(src + i)),
                                            g->x_u8, vz));
            if (i < iw1) {
                const __mmask16 m = dw_lanes(iw1 - i);
                _mm512_mask_storeu_ps(row + PW + i, m,
                                      dw_widen16(_mm_maskz_loadu_epi8(m, src + i), g->x_u8, vz));
            }
        } else if (g->SW == 2) {
            int64_t i = 0;
            if ((PW & 1) && iw1 > 0) { /* input 0 alone: padded column PW, phase 1 */
                const int32_t v = g->x_u8 ? src[0] : (int8_t)src[0];
                row[phase + (PW >> 1)] = (float)(v - g->xz);
                i = 1;
            }
            /* inputs [i, i + 32): (i + PW) even, so i + 2t goes to phase 0
             * and i + 2t + 1 to phase 1, both at column (i + PW) / 2 + t.
             * The 32 bytes as 16 16-bit pairs widened to 32 bits: the even
             * input is the low byte, the odd one the next (one shuffle a
             * step, where splitting widened floats took four) */
            for (; i < iw1; i += 32) {
                const int64_t n = iw1 - i < 32 ? iw1 - i : 32;
                const __mmask32 m = n >= 32 ? (__mmask32)0xFFFFFFFFu : (__mmask32)((1u << n) - 1u);
                const __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi8(m, src + i));
                __m512i lo, hi;
                if (g->x_u8) {
                    lo = _mm512_and_si512(v, _mm512_set1_epi32(0xff));
                    hi = _mm512_srli_epi32(v, 8);
                } else {
                    lo = _mm512_srai_epi32(_mm512_slli_epi32(v, 24), 24);
                    hi = _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 24);
                }
                float *d = row + ((i + PW) >> 1);
                _mm512_mask_storeu_ps(d, dw_lanes((n + 1) / 2),
                                      _mm512_sub_ps(_mm512_cvtepi32_ps(lo), vz));
                _mm512_mask_storeu_ps(d + phase, dw_lanes(n / 2),
                                      _mm512_sub_ps(_mm512_cvtepi32_ps(hi), vz));
            }
        } else {
            for (int64_t iw = 0; iw < iw1; iw++) {
                const int64_t q = iw + PW;
                const int32_t v = g->x_u8 ? src[iw] : (int8_t)src[iw];
                row[(q % g->SW) * phase + q / g->SW] = (float)(v - g->xz);
            }
        }
    }
}

/* 16 sums v (exact integers in f32) of output row oh from column ow: as
 * int32 into acc, or (fo) dequantised into fo's f32 plane: v m, + b, +
 * the residual, separate roundings as quant_conv_f32's epilogue */
static inline __attribute__((always_inline)) void dw_store(const quant_dw_geom_t *g, __m512 v,
                                                           int64_t oh, int64_t ow, int32_t *acc,
                                                           const quant_dw_out_t *fo)
{
    const int64_t at = oh * g->OW + ow;
    const __mmask16 k = dw_lanes(g->OW - ow);
    if (!fo) {
        _mm512_mask_storeu_epi32(acc + at, k, _mm512_cvtps_epi32(v));
        return;
    }
    v = _mm512_mul_ps(v, _mm512_set1_ps((float)fo->m));
    if (fo->has_b)
        v = _mm512_add_ps(v, _mm512_set1_ps((float)fo->b));
    if (fo->act == GEMM_ACT_RELU)
        v = _mm512_max_ps(v, _mm512_setzero_ps());
    else if (fo->act == GEMM_ACT_CLIP)
        v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(fo->lo)), _mm512_set1_ps(fo->hi));
    if (fo->res)
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(k, fo->res + at));
    _mm512_mask_storeu_ps((float *)fo->y + at, k, v);
}

/* ROWS output rows by CH 16-lane chunks from (oh, ow0), the ROWS x CH
 * sums in registers (at most 8, enough FMAs in flight to cover their
 * latency), each tap one broadcast weight and ROWS x CH loads; stored as
 * int32 to acc (OH x OW) */
static inline __attribute__((always_inline)) void
dw_block(const int ROWS, const int CH, const quant_dw_geom_t *g, const float *P, const float *wf,
         int64_t taps, int64_t oh, int64_t ow0, int32_t *acc, const quant_dw_out_t *fo)
{
    __m512 a[8];
#pragma GCC unroll 8
    for (int i = 0; i < ROWS * CH; i++)
        a[i] = _mm512_setzero_ps();
    const int64_t rs = g->SH * g->ld;
    const float *base = P + oh * rs + ow0;
    for (int64_t t = 0; t < taps; t++) {
        const __m512 w = _mm512_set1_ps(wf[t]);
        const float *src = base + g->off[t];
#pragma GCC unroll 8
        for (int r = 0; r < ROWS; r++)
#pragma GCC unroll 4
            for (int c = 0; c < CH; c++)
                a[r * CH + c] = _mm512_fmadd_ps(_mm512_loadu_ps(src + r * rs + 16 * c), w,
                                                a[r * CH + c]);
    }
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; r++)
#pragma GCC unroll 4
        for (int c = 0; c < CH; c++) {
            dw_store(g, a[r * CH + c], oh + r, ow0 + 16 * c, acc, fo);
        }
}

static void dw_run(int rows, int ch, const quant_dw_geom_t *g, const float *P, const float *wf,
                   int64_t taps, int64_t oh, int64_t ow0, int32_t *acc, const quant_dw_out_t *fo)
{
    switch (rows * 16 + ch) {
    case 0x81: dw_block(8, 1, g, P, wf, taps, oh, ow0, acc, fo); break;
    case 0x42: dw_block(4, 2, g, P, wf, taps, oh, ow0, acc, fo); break;
    case 0x41: dw_block(4, 1, g, P, wf, taps, oh, ow0, acc, fo); break;
    case 0x24: dw_block(2, 4, g, P, wf, taps, oh, ow0, acc, fo); break;
    case 0x23: dw_block(2, 3, g, P, wf, taps, oh, ow0, acc, fo); break;
    case 0x22: dw_block(2, 2, g, P, wf, taps, oh, ow0, acc, fo); break;
    case 0x21: dw_block(2, 1, g, P, wf, taps, oh, ow0, acc, fo); break;
    case 0x14: dw_block(1, 4, g, P, wf, taps, oh, ow0, acc, fo); break;
    case 0x13: dw_block(1, 3, g, P, wf, taps, oh, ow0, acc, fo); break;
    case 0x12: dw_block(1, 2, g, P, wf, taps, oh, ow0, acc, fo); break;
    default: dw_block(1, 1, g, P, wf, taps, oh, ow0, acc, fo); break;
    }
}

/* The 3x3 kernel at stride S (1 or 2, both ways): its taps read three
 * columns of P a row, at phase kw % S, kw / S columns on. Every load is
 * aligned (P's rows and the chunks are 64-byte aligned), the shifted taps
 * made by valignd from a chunk and the next: Zen 4 splits a 64-byte load
 * that crosses a line, and the unaligned loads of dw_block ran at 16
 * cycles per 16 outputs of a 112-wide plane against 9.5 this way (the FMAs'
 * floor is 9). And each input row is loaded once for the R output rows it
 * serves (up to 3), not once per output row. R x CH outputs' vectors in
 * registers with the 9 weights; rows past OH are computed and dropped (P
 * has the zero rows they read). */
static inline __attribute__((always_inline)) void
dw3_block(const int S, const int R, const int CH, const quant_dw_geom_t *g, const float *P,
          const __m512 w[9], int64_t oh, int64_t ow0, int32_t *acc, const quant_dw_out_t *fo)
{
    __m512 a[8];
#pragma GCC unroll 8
    for (int i = 0; i < R * CH; i++)
        a[i] = _mm512_setzero_ps();
    const int64_t ld = g->ld, phase = g->rows * ld;
    const float *base = P + oh * S * ld + ow0;
#pragma GCC unroll 17
    for (int ir = 0; ir < (R - 1) * S + 3; ir++) {
#pragma GCC unroll 4
        for (int c = 0; c < CH; c++) {
            const float *e = base + ir * ld + 16 * c;
            const __m512i e0 = _mm512_castps_si512(_mm512_load_ps(e));
            const __m512i e1 = _mm512_castps_si512(_mm512_load_ps(e + 16));
            __m512 x[3];
            x[0] = _mm512_castsi512_ps(e0);
            if (S == 1) {
                x[1] = _mm512_castsi512_ps(_mm512_alignr_epi32(e1, e0, 1));
                x[2] = _mm512_castsi512_ps(_mm512_alignr_epi32(e1, e0, 2));
            } else { /* the odd columns' phase, then the even one a column on */
                x[1] = _mm512_load_ps(e + phase);
                x[2] = _mm512_castsi512_ps(_mm512_alignr_epi32(e1, e0, 1));
            }
#pragma GCC unroll 3
            for (int kh = 0; kh < 3; kh++) {
                const int d = ir - kh, r = d / S;
                if (d < 0 || d % S || r >= R)
                    continue;
#pragma GCC unroll 3
                for (int kw = 0; kw < 3; kw++)
                    a[r * CH + c] = _mm512_fmadd_ps(x[kw], w[kh * 3 + kw], a[r * CH + c]);
            }
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) {
        if (oh + r >= g->OH)
            break;
#pragma GCC unroll 4
        for (int c = 0; c < CH; c++)
            dw_store(g, a[r * CH + c], oh + r, ow0 + 16 * c, acc, fo);
    }
}

/* one stride's plane: 8 rows of a 16-wide chunk, 4 rows of two, or 2 rows
 * of up to 4 (then the rest of the row's chunks) */
static inline __attribute__((always_inline)) void
dw3_plane(const int S, const quant_dw_geom_t *g, const void *x, float *P, const float *wf,
          int32_t *acc, const quant_dw_out_t *o)
{
    __m512 w[9];
    for (int t = 0; t < 9; t++)
        w[t] = _mm512_set1_ps(wf[t]);
    const quant_dw_out_t *fo = o->yt == CAIRN_F32 ? o : NULL;
    const int64_t nch = (g->OW + 15) / 16;
    const int R = nch == 1 ? 8 : nch == 2 ? 4 : 2;
    int64_t have = 0; /* input rows [0, have) widened */
    for (int64_t oh = 0; oh < g->OH; oh += R) {
        /* the input rows this block reads, widened just before (P's rows
         * then come from L1, where a whole plane of a 112-wide layer, 58
         * to 72 KB, would not stay) */
        const int64_t need = dw_min64(g->ih1, (oh + R - 1) * S + 3 - g->PH);
        if (need > have) {
            dw_widen_avx512(g, x, P, have, need);
            have = need;
        }
        if (nch == 1) {
            dw3_block(S, 8, 1, g, P, w, oh, 0, acc, fo);
        } else if (nch == 2) {
            dw3_block(S, 4, 2, g, P, w, oh, 0, acc, fo);
        } else {
            for (int64_t c0 = 0; c0 < nch; c0 += 4) {
                switch (nch - c0 >= 4 ? 4 : nch - c0) {
                case 4: dw3_block(S, 2, 4, g, P, w, oh, 16 * c0, acc, fo); break;
                case 3: dw3_block(S, 2, 3, g, P, w, oh, 16 * c0, acc, fo); break;
                case 2: dw3_block(S, 2, 2, g, P, w, oh, 16 * c0, acc, fo); break;
                default: dw3_block(S, 2, 1, g, P, w, oh, 16 * c0, acc, fo); break;
                }
            }
        }
        if (o->yt == CAIRN_U8 || o->yt == CAIRN_I8) /* these rows requantised while in L1 */
            quant_requant_avx512(acc + oh * g->OW, dw_min64(R, g->OH - oh) * g->OW, o->b, o->m,
                                 o->z, o->yt == CAIRN_U8, (char *)o->y + oh * g->OW,
                                 o->acc_max);
    }
}

static void dw3_plane_s1(const quant_dw_geom_t *g, const void *x, float *P, const float *wf,
                         int32_t *acc, const quant_dw_out_t *o)
{
    dw3_plane(1, g, x, P, wf, acc, o);
}

static void dw3_plane_s2(const quant_dw_geom_t *g, const void *x, float *P, const float *wf,
                         int32_t *acc, const quant_dw_out_t *o)
{
    dw3_plane(2, g, x, P, wf, acc, o);
}

void quant_dw_plane_avx512(const quant_dw_geom_t *g, const void *x, const float *wf, float *P,
                           int32_t *acc, const quant_dw_out_t *o)
{
    if (o->yt == CAIRN_I32)
        acc = o->y;
    const quant_dw_out_t *fo = o->yt == CAIRN_F32 ? o : NULL;
    if (g->KH == 3 && g->KW == 3 && g->SH == g->SW && g->SW <= 2) {
        if (g->SW == 1)
            dw3_plane_s1(g, x, P, wf, acc, o);
        else
            dw3_plane_s2(g, x, P, wf, acc, o);
        return;
    }
    /* other kernels: the whole plane widened, then blocks of CH chunks (up
     * to 4 along the row) by R rows, R x CH = 8 where the plane allows, the
     * last rows in halving blocks, then the requantisation */
    dw_widen_avx512(g, x, P, 0, g->ih1);
    const int64_t taps = (int64_t)g->KH * g->KW, nch = (g->OW + 15) / 16;
    const int CH = nch >= 4 ? 4 : (int)nch, R = CH == 1 ? 8 : CH == 2 ? 4 : 2;
    int64_t oh = 0;
    for (int rows = R; rows >= 1; rows /= 2)
        for (; oh + rows <= g->OH; oh += rows)
            for (int64_t c0 = 0; c0 < nch; c0 += CH) {
                const int ch = nch - c0 < CH ? (int)(nch - c0) : CH;
                dw_run(rows, ch, g, P, wf, taps, oh, 16 * c0, acc, fo);
            }
    if (o->yt == CAIRN_U8 || o->yt == CAIRN_I8)
        quant_requant_avx512(acc, g->OH * g->OW, o->b, o->m, o->z, o->yt == CAIRN_U8, o->y,
                             o->acc_max);
}


/* ---- quant_dwconv's 3x3 plane in integers (AVX512_VNNI + AVX512_VBMI) ----
 *
 * x (flipped to u8 where it is i8) copied into U, a u8 plane padded with
 * x's zero point (quant_dw_geom_t's ldb, xzb): a padded tap then adds xz
 * w', which the correction takes back, as the reference's (xz - xz) w'.
 * Per 16 outputs and input row, one 64-byte load and one vpermb put the
 * three taps of each output in a 32-bit lane ([x(S o), x(S o + 1), x(S o +
 * 2), any] against the kernel row's weights [w'0, w'1, w'2, 0]), and one
 * vpdpbusd per output row the input row serves adds their products: 3
 * multiply-add instructions per 16 outputs where the f32 plane takes 9
 * FMAs, and no widening of x to f32. The sums start at -xzb sum(w'), so
 * they are the reference's sum (x - xz)(w - wz), exact in int32; w - wz
 * must fit in s8 (dw.c checks). */
#define VN_TARGET __attribute__((target("avx512vnni,avx512vbmi,avx512bw")))

/* Padded row pr of a plane of at most 64 padded columns, built in a
 * register from x (as vn_plane copies it into U): x's zero point (xzb)
 * outside the input rows and columns it reads (kcols: lanes PW .. PW +
 * iw1 - 1), x's bytes, flipped to u8, inside. */
static inline __attribute__((always_inline)) VN_TARGET __m512i
vn_row(const quant_dw_geom_t *g, const uint8_t *x, __m512i flip, __m512i vxzb, __mmask64 kcols,
       int64_t pr)
{
    const int64_t ih = pr - g->PH;
    if (ih < 0 || ih >= g->ih1)
        return vxzb;
    /* lanes below PW are masked off: nothing before x is read */
    return _mm512_mask_mov_epi8(
        vxzb, kcols,
        _mm512_xor_si512(_mm512_maskz_loadu_epi8(kcols, x + ih * g->IW - g->PW), flip));
}

/* R output rows x CH chunks of 16 outputs from U's padded rows, or with
 * REG (one chunk, a plane of at most 64 padded columns) from rows built
 * in registers from x: a small plane's rows copied into U and read back
 * at once waited on the stores each time (the loads overlap several of
 * them), most of a 7x7 plane's time (rq: x, flip, vxzb, kcols) */
static inline __attribute__((always_inline)) VN_TARGET void
vn_block(const int S, const int R, const int CH, const quant_dw_geom_t *g, const uint8_t *U,
         __m512i idx, const __m512i wd[3], __m512i init, int64_t oh, int64_t ow0, int32_t *acc,
         const quant_dw_out_t *fo, const int REG, const uint8_t *x, __m512i flip, __m512i vxzb,
         __mmask64 kcols)
{
    __m512i a[8];
#pragma GCC unroll 8
    for (int i = 0; i < R * CH; i++)
        a[i] = init;
    const int64_t ldb = g->ldb;
    const uint8_t *base = U + oh * S * ldb + ow0 * S;
#pragma GCC unroll 17
    for (int ir = 0; ir < (R - 1) * S + 3; ir++) {
#pragma GCC unroll 4
        for (int c = 0; c < CH; c++) {
            const __m512i raw =
                REG ? vn_row(g, x, flip, vxzb, kcols, oh * S + ir)
                    : _mm512_loadu_si512((const void *)(base + ir * ldb + 16 * S * c));
            const __m512i p = _mm512_permutexvar_epi8(idx, raw);
#pragma GCC unroll 3
            for (int kh = 0; kh < 3; kh++) {
                const int d = ir - kh, r = d / S;
                if (d < 0 || d % S || r >= R)
                    continue;
                a[r * CH + c] = _mm512_dpbusd_epi32(a[r * CH + c], p, wd[kh]);
            }
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) {
        if (oh + r >= g->OH)
            break;
#pragma GCC unroll 4
        for (int c = 0; c < CH; c++) {
            const int64_t ow = ow0 + 16 * c;
            if (fo) /* exact in f32: |sum| < 2^24 */
                dw_store(g, _mm512_cvtepi32_ps(a[r * CH + c]), oh + r, ow, acc, fo);
            else
                _mm512_mask_storeu_epi32(acc + (oh + r) * g->OW + ow, dw_lanes(g->OW - ow),
                                         a[r * CH + c]);
        }
    }
}

static inline __attribute__((always_inline)) VN_TARGET void
vn_plane(const int S, const quant_dw_geom_t *g, const void *x, const int32_t *wd3, int32_t corr,
         uint8_t *U, int32_t *acc, const quant_dw_out_t *o)
{
    /* the plane's input rows into U (the padding stays as dw.c filled it),
     * unless one chunk of outputs a row reads at most 64 padded columns:
     * then the blocks build the rows in registers (vn_row) */
    const __m512i flip = _mm512_set1_epi8(g->x_u8 ? 0 : (char)0x80);
    const int64_t nch = (g->OW + 15) / 16;
    const int reg = nch == 1 && g->PW + g->iw1 <= 64;
    const __m512i vxzb = _mm512_set1_epi8((char)g->xzb);
    const __mmask64 kcols = reg ? ((g->iw1 >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << g->iw1) - 1))
                                   << g->PW)
                                : 0;
    for (int64_t ih = 0; !reg && ih < g->ih1; ih++) {
        const uint8_t *src = (const uint8_t *)x + ih * g->IW;
        uint8_t *dst = U + (ih + g->PH) * g->ldb + g->PW;
        for (int64_t i = 0; i < g->iw1; i += 64) {
            const int64_t n = g->iw1 - i;
            const __mmask64 k = n >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
            _mm512_mask_storeu_epi8(dst + i, k,
                                    _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, src + i), flip));
        }
    }
    /* byte b of lane o: input column S o + min(b, 2) of the chunk */
    uint8_t ix[64];
    for (int i = 0; i < 64; i++)
        ix[i] = (uint8_t)(S * (i / 4) + (i % 4 < 2 ? i % 4 : 2));
    const __m512i idx = _mm512_loadu_si512((const void *)ix);
    __m512i wd[3];
    for (int kh = 0; kh < 3; kh++)
        wd[kh] = _mm512_set1_epi32(wd3[kh]);
    const __m512i init = _mm512_set1_epi32(corr);
    const quant_dw_out_t *fo = o->yt == CAIRN_F32 ? o : NULL;
    const uint8_t *xb = x;
    const int R = nch == 1 ? 8 : nch == 2 ? 4 : 2;
#define VN_BLOCK(R, CH, W0, REG)                                                                  \
    vn_block(S, R, CH, g, U, idx, wd, init, oh, W0, acc, fo, REG, xb, flip, vxzb, kcols)
    for (int64_t oh = 0; oh < g->OH; oh += R) {
        if (reg) {
            VN_BLOCK(8, 1, 0, 1);
        } else if (nch == 1) {
            VN_BLOCK(8, 1, 0, 0);
        } else if (nch == 2) {
            VN_BLOCK(4, 2, 0, 0);
        } else {
            for (int64_t c0 = 0; c0 < nch; c0 += 4) {
                switch (nch - c0 >= 4 ? 4 : nch - c0) {
                case 4: VN_BLOCK(2, 4, 16 * c0, 0); break;
                case 3: VN_BLOCK(2, 3, 16 * c0, 0); break;
                case 2: VN_BLOCK(2, 2, 16 * c0, 0); break;
                default: VN_BLOCK(2, 1, 16 * c0, 0); break;
                }
            }
        }
        if (o->yt == CAIRN_U8 || o->yt == CAIRN_I8) /* these rows requantised while in L1 */
            quant_requant_avx512(acc + oh * g->OW, dw_min64(R, g->OH - oh) * g->OW, o->b, o->m,
                                 o->z, o->yt == CAIRN_U8, (char *)o->y + oh * g->OW,
                                 o->acc_max);
    }
#undef VN_BLOCK
}

VN_TARGET void quant_dw3_plane_vnni(const quant_dw_geom_t *g, const void *x, const int32_t *wd3,
                                    int32_t corr, uint8_t *U, int32_t *acc,
                                    const quant_dw_out_t *o)
{
    if (o->yt == CAIRN_I32)
        acc = o->y;
    if (g->SW == 1)
        vn_plane(1, g, x, wd3, corr, U, acc, o);
    else
        vn_plane(2, g, x, wd3, corr, U, acc, o);
}


/* ---- the requantising int8 GEMM tile (quant_rq_gemm_vnni) ---- */

#define RQ_TARGET __attribute__((target("avx512vnni")))

/* 32 requantised bytes of row i (two vectors of sums x = acc + zt + rt +
 * b) into y, n of them; the rare doubtful vector through the double path */
static inline __attribute__((always_inline)) void
rqg_row(const quant_rq_gemm_t *g, int64_t i, __m512i x0, __m512i x1, int n, uint8_t *y,
        const int NV)
{
    const float mf = g->mult[g->mult_vec ? i : 0];
    const int32_t b = g->bias ? g->bias[i] : 0;
    const __m512 vm = _mm512_set1_ps(mf);
    const __m512i vz = _mm512_set1_epi32(g->z);
    const __m512 near = _mm512_set1_ps(0.5f - 0x1p-13f);
    __m512i q[2];
    __mmask16 bad[2] = {0, 0};
    const __m512i x[2] = {x0, x1};
#pragma GCC unroll 2
    for (int v = 0; v < NV; v++) {
        const __m512 pf = rq_product(x[v], vm, near, &bad[v]);
        q[v] = _mm512_add_epi32(_mm512_cvtps_epi32(pf), vz);
    }
    if (NV == 1)
        q[1] = q[0]; /* lanes past n <= 16: not stored */
    if (!_kortestz_mask16_u8(bad[0], bad[1])) { /* the row's constants for the double path */
        rq_consts_t c;
        rq_setup(&c, (double)b, (double)mf, g->z, g->y_u8, QUANT_ACC_ANY);
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++) /* the sums without b, as rq_double takes them */
            q[v] = rq_double(_mm512_sub_epi32(x[v], _mm512_set1_epi32(b)), c.vb, c.vm, c.vz,
                             c.lo, c.hi);
    }
    /* the two vectors' 32 bytes: the first half of the four-vector form's */
    const __m256i out = _mm512_castsi512_si256(rq_pack4(q[0], q[1], q[0], q[1], g->y_u8));
    const __mmask32 k = n >= 32 ? ~(__mmask32)0 : (((__mmask32)1 << n) - 1);
    _mm256_mask_storeu_epi8(y, k, out);
}

/* The 14 x 32 tile of panel p of A against the 32-column panel bp of B,
 * then requantised row by row: all in one scope with constant indices, so
 * that the 28 accumulators stay in registers (passed to a helper or
 * indexed by a runtime row, gcc kept them on the stack: 6.0 against 3.9 ms
 * for MobileNetV2). COLS: this is the last panel, whose ones row (row M)
 * gives the column terms into zt. */
static inline __attribute__((always_inline)) RQ_TARGET void
rqg_panel(const quant_rq_gemm_t *g, int64_t p, const uint8_t *bp, int n, uint8_t *y,
          int64_t ldy, __m512i zt[2], const int COLS, int store, const int R, const int NV)
{
    const uint8_t *ap = g->ap + p * 14 * g->kcp;
    __m512i acc[14][2];
#pragma GCC unroll 14
    for (int r = 0; r < R; r++)
        acc[r][0] = acc[r][1] = _mm512_setzero_si512();
    for (int64_t k = 0; k < g->kcp; k += 4) {
        const __m512i b0 = _mm512_loadu_si512(bp + k * 32);
        const __m512i b1 = NV == 2 ? _mm512_loadu_si512(bp + k * 32 + 64) : b0;
#pragma GCC unroll 14
        for (int r = 0; r < R; r++) {
            int32_t a4;
            memcpy(&a4, ap + k * 14 + 4 * r, 4);
            const __m512i av = _mm512_set1_epi32(a4);
            acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], av, b0);
            if (NV == 2)
                acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], av, b1);
        }
    }
    if (COLS && g->za) { /* z2 = K zb' - S_j, zt = z2 za' */
        const int64_t r1 = g->M - 14 * p;
        const __m512i kzb = _mm512_set1_epi32((int32_t)g->kzb), za = _mm512_set1_epi32(g->za);
#pragma GCC unroll 14
        for (int r = 0; r < R; r++)
            if (r == r1) {
                zt[0] = _mm512_mullo_epi32(_mm512_sub_epi32(kzb, acc[r][0]), za);
                zt[1] = _mm512_mullo_epi32(_mm512_sub_epi32(kzb, acc[r][1]), za);
            }
    }
    if (!store)
        return;
#pragma GCC unroll 14
    for (int r = 0; r < R; r++) {
        const int64_t i = 14 * p + r;
        if (i < g->M) {
            /* the row term and b (wrapping 32-bit additions, as the sums') */
            const uint32_t rb = (g->rs ? g->z1 * (uint32_t)g->rs[i] : 0u) +
                                (uint32_t)(g->bias ? g->bias[i] : 0);
            const __m512i vrb = _mm512_set1_epi32((int32_t)rb);
            rqg_row(g, i, _mm512_add_epi32(_mm512_add_epi32(acc[r][0], zt[0]), vrb),
                    _mm512_add_epi32(_mm512_add_epi32(acc[r][1], zt[1]), vrb), n, y + i * ldy,
                    NV);
        }
    }
}

/* The last panel, of its first R rows only (the rest are padding): the
 * tile does R rows' multiply-adds, where 14 did them for M + 1 = 129
 * rows' 3 (ResNet-50's 128-channel layers) or 17's 3 (MobileNetV2's
 * 16-channel projection); R even, at least 4 (8 chains of accumulators
 * for the multiply-add's latency). And a panel of at most 16 columns (a
 * 14x14 plane's 196 pixels end in 4) in one vector a row rather than
 * two. Each form a function of its own, so that each keeps its
 * accumulators in registers (see the int8 GEMM's S8_TILE_ROWS). */
#define RQG_LAST_FN(R, NV)                                                                        \
    static __attribute__((noinline)) RQ_TARGET void rqg_last##R##_##NV(                          \
        const quant_rq_gemm_t *g, int64_t p, const uint8_t *bp, int n, uint8_t *y, int64_t ldy, \
        __m512i zt[2], int store)                                                                 \
    {                                                                                             \
        rqg_panel(g, p, bp, n, y, ldy, zt, 1, store, R, NV);                                      \
    }
RQG_LAST_FN(4, 2)
RQG_LAST_FN(6, 2)
RQG_LAST_FN(8, 2)
RQG_LAST_FN(10, 2)
RQG_LAST_FN(12, 2)
RQG_LAST_FN(14, 2)
RQG_LAST_FN(4, 1)
RQG_LAST_FN(8, 1)
RQG_LAST_FN(14, 1)

/* the whole panels [p0, p1) but the last */
#define RQG_PANELS_FN(NV)                                                                         \
    static __attribute__((noinline)) RQ_TARGET void rqg_panels_##NV(                             \
        const quant_rq_gemm_t *g, const uint8_t *bp, int n, uint8_t *y, int64_t ldy,            \
        __m512i zt[2], int64_t p0, int64_t p1, int64_t last)                                      \
    {                                                                                             \
        for (int64_t p = p0; p < p1 && p < last; p++)                                             \
            rqg_panel(g, p, bp, n, y, ldy, zt, 0, 1, 14, NV);                                     \
    }
RQG_PANELS_FN(2)
RQG_PANELS_FN(1)

RQ_TARGET void quant_rq_gemm_vnni(const quant_rq_gemm_t *g, const uint8_t *bp, int n, uint8_t *y,
                                  int64_t ldy, int64_t p0, int64_t p1)
{
    const int64_t last = (g->Mg + 13) / 14 - 1, rows = g->Mg - 14 * last;
    __m512i zt[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
    /* the last panel first: its ones row gives the column terms (its rows
     * are stored only when it is in [p0, p1)) */
    const int store = last >= p0 && last < p1;
    if (n <= 16) {
        (rows <= 4 ? rqg_last4_1 : rows <= 8 ? rqg_last8_1 : rqg_last14_1)(g, last, bp, n, y, ldy,
                                                                            zt, store);
        rqg_panels_1(g, bp, n, y, ldy, zt, p0, p1, last);
        return;
    }
    (rows <= 4    ? rqg_last4_2
     : rows <= 6  ? rqg_last6_2
     : rows <= 8  ? rqg_last8_2
     : rows <= 10 ? rqg_last10_2
     : rows <= 12 ? rqg_last12_2
                  : rqg_last14_2)(g, last, bp, n, y, ldy, zt, store);
    rqg_panels_2(g, bp, n, y, ldy, zt, p0, p1, last);
}

#else

void quant_requant_avx512(const int32_t *acc, int64_t n, double b, double m, int32_t z, int y_u8,
                          void *y, int64_t acc_max)
{
    (void)acc, (void)n, (void)b, (void)m, (void)z, (void)y_u8, (void)y, (void)acc_max;
}

void quant_requant_cols_avx512(const int32_t *acc, const int32_t *zt, int32_t rt, int64_t n,
                               double b, double m, int32_t z, int y_u8, void *y, int64_t acc_max)
{
    (void)acc, (void)zt, (void)rt, (void)n, (void)b, (void)m, (void)z, (void)y_u8, (void)y;
    (void)acc_max;
}

void quant_ql_quantize_avx512(const float *x, int64_t n, float s, int32_t z, int y_u8, void *y)
{
    (void)x, (void)n, (void)s, (void)z, (void)y_u8, (void)y;
}

void quant_dyn_minmax_avx512(const float *x, int64_t n, float *mn_out, float *mx_out)
{
    (void)x, (void)n, (void)mn_out, (void)mx_out;
}

void quant_dyn_quantize_avx512(const float *x, int64_t n, float s, float z, uint8_t *y)
{
    (void)x, (void)n, (void)s, (void)z, (void)y;
}


void quant_dw_plane_avx512(const quant_dw_geom_t *g, const void *x, const float *wf, float *P,
                           int32_t *acc, const quant_dw_out_t *o)
{
    quant_dw_plane_c(g, x, wf, P, acc, o);
}

void quant_dw3_plane_vnni(const quant_dw_geom_t *g, const void *x, const int32_t *wd3,
                          int32_t corr, uint8_t *U, int32_t *acc, const quant_dw_out_t *o)
{
    (void)g, (void)x, (void)wd3, (void)corr, (void)U, (void)acc, (void)o;
}

void quant_rq_gemm_vnni(const quant_rq_gemm_t *g, const uint8_t *bp, int n, uint8_t *y,
                        int64_t ldy, int64_t p0, int64_t p1)
{
    (void)g, (void)bp, (void)n, (void)y, (void)ldy, (void)p0, (void)p1;
}

#endif
