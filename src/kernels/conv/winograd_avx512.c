/*
 * AVX-512 transforms of the Winograd F(4x4, 3x3) convolution (winograd.c
 * has the algorithm, the layouts and the driver; winograd_avx2.c the
 * 8-lane forms, which these follow step for step): sixteen channels are
 * the sixteen lanes, a block of 16 channels writing 16 columns of V (or 8,
 * the last block of an odd count of 8-channel blocks, under a mask).
 *  - conv_wino_in_f32_avx512: the 6 input rows under one row of tiles are
 *    copied into zero-padded pixel-major rows on the stack by 16 x 16
 *    register transposes from the channel planes (16 tiles' width at a
 *    time: 6 x 66 pixels x 16 channels = 25 KB, in L1), then each 6x6
 *    tile is transformed, V = B^T d B, and its 36 vectors stored;
 *  - conv_wino_out_f32_avx512: the 36 product vectors of one tile and 16
 *    output channels are transformed back, Y = A^T m A, bias and the first
 *    activation applied on the 16-channel vectors, then a 4 x 4 transpose
 *    in each 128-bit lane gives every channel its 4 pixels of an output
 *    row for the residual, the activation after it and the store.
 * Per tile the arithmetic is the AVX2 forms' on twice the channels.
 * ResNet-50's 3x3s alone (bench_conv_f32, 1 thread, Xeon, medians of 5
 * alternating): 56x56 0.755 -> 0.721 ms, 28x28 0.514 -> 0.485, 14x14
 * 0.614 -> 0.575; the model 43.3 -> 43.0 ms, 2 threads 25.1 -> 24.8.
 * F(2x2, 3x3), which only AVX2-width GEMMs
 * take, and activations other than ReLU / clip stay with the AVX2 forms.
 * Compiled with -mavx512f -mfma (CMakeLists.txt); called only after the
 * CPU check in winograd.c.
 */
#include "kernels/conv/winograd.h"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__FMA__)
#include "kernels/vmath/act_avx512.h"
#include "kernels/vmath/transpose_avx512.h"
#include <immintrin.h>
#include <string.h>

static inline __mmask16 lanes16(int64_t w)
{
    return w >= 16 ? (__mmask16)0xFFFF : w <= 0 ? (__mmask16)0 : (__mmask16)((1u << w) - 1u);
}

/* B^T d, as winograd_avx2.c's bt6 */
static inline __attribute__((always_inline)) void bt6(const __m512 d[6], __m512 r[6])
{
    const __m512 four = _mm512_set1_ps(4.0f), m4 = _mm512_set1_ps(-4.0f),
                 m5 = _mm512_set1_ps(-5.0f), two = _mm512_set1_ps(2.0f);
    const __m512 a = _mm512_fmadd_ps(m4, d[2], d[4]); /* d4 - 4 d2 */
    const __m512 b = _mm512_fmadd_ps(m4, d[1], d[3]); /* d3 - 4 d1 */
    const __m512 c = _mm512_sub_ps(d[4], d[2]);
    const __m512 e = _mm512_mul_ps(two, _mm512_sub_ps(d[3], d[1]));
    r[0] = _mm512_fmadd_ps(four, d[0], _mm512_fmadd_ps(m5, d[2], d[4]));
    r[1] = _mm512_add_ps(a, b);
    r[2] = _mm512_sub_ps(a, b);
    r[3] = _mm512_add_ps(c, e);
    r[4] = _mm512_sub_ps(c, e);
    r[5] = _mm512_fmadd_ps(four, d[1], _mm512_fmadd_ps(m5, d[3], d[5]));
}

/* A^T m, as winograd_avx2.c's at6 */
static inline __attribute__((always_inline)) void at6(const __m512 m[6], __m512 y[4])
{
    const __m512 s12 = _mm512_add_ps(m[1], m[2]), d12 = _mm512_sub_ps(m[1], m[2]);
    const __m512 s34 = _mm512_add_ps(m[3], m[4]), d34 = _mm512_sub_ps(m[3], m[4]);
    y[0] = _mm512_add_ps(_mm512_add_ps(m[0], s12), s34);
    y[1] = _mm512_fmadd_ps(_mm512_set1_ps(2.0f), d34, d12);
    y[2] = _mm512_fmadd_ps(_mm512_set1_ps(4.0f), s34, s12);
    y[3] = _mm512_add_ps(_mm512_fmadd_ps(_mm512_set1_ps(8.0f), d34, d12), m[5]);
}

/* padded pixels [q0, q0 + n) of input row iy of the block's nc channels:
 * pixel q at xr[(q - q0) * 16 + l] holds channel l's input column q - pl
 * (0 outside the input or past channel nc) */
static void pad_row16(const wino_geom_t *g, const float *x, int nc, int64_t iy, int64_t q0,
                      int64_t n, float *xr)
{
    if (iy < 0 || iy >= g->H) {
        memset(xr, 0, (size_t)n * 16 * sizeof(float));
        return;
    }
    const float *src = x + iy * g->W;
    int64_t c0 = q0 - g->pl, c1 = q0 + n - g->pl;
    c0 = c0 < 0 ? 0 : c0;
    c1 = c1 > g->W ? g->W : c1;
    if (c1 < c0)
        c1 = c0;
    const int64_t lead = c0 + g->pl - q0, tail = q0 + n - (c1 + g->pl);
    memset(xr, 0, (size_t)lead * 16 * sizeof(float));
    float *d = xr + lead * 16;
    for (int64_t c = c0; c < c1; c += 16) {
        const int64_t w = c1 - c < 16 ? c1 - c : 16;
        const __mmask16 m = lanes16(w);
        __m512 r[16];
        for (int l = 0; l < 16; l++)
            r[l] = l < nc ? _mm512_maskz_loadu_ps(m, src + l * g->plane + c) : _mm512_setzero_ps();
        vm512_transpose16(r); /* r[k]: pixel c + k, the 16 channels */
        for (int k = 0; k < w; k++)
            _mm512_storeu_ps(d + k * 16, r[k]);
        d += w * 16;
    }
    memset(d, 0, (size_t)tail * 16 * sizeof(float));
}

#define WIN_TILES16 16
#define WIN_PX16 (4 * WIN_TILES16 + 2)

void conv_wino_in_f32_avx512(const wino_geom_t *g, const float *x, int nc, int nw, int64_t th,
                             float *v)
{
    float xp[6 * WIN_PX16 * 16] __attribute__((aligned(64)));
    const __mmask16 wm = lanes16(nw);
    for (int64_t t0 = 0; t0 < g->tw; t0 += WIN_TILES16) {
        const int64_t nt = g->tw - t0 < WIN_TILES16 ? g->tw - t0 : WIN_TILES16, npx = 4 * nt + 2;
        for (int64_t r = 0; r < 6; r++)
            pad_row16(g, x, nc, 4 * th + r - g->pt, 4 * t0, npx, xp + r * npx * 16);
        float *vt = v + (th * g->tw + t0) * g->ldv;
        for (int64_t tw = 0; tw < nt; tw++, vt += g->ldv) {
            const float *base = xp + 4 * tw * 16;
            __m512 t[6][6];
            for (int j = 0; j < 6; j++) {
                __m512 d[6], r[6];
                for (int i = 0; i < 6; i++)
                    d[i] = _mm512_loadu_ps(base + (i * npx + j) * 16);
                bt6(d, r);
                for (int i = 0; i < 6; i++)
                    t[i][j] = r[i];
            }
            for (int i = 0; i < 6; i++) {
                __m512 r[6];
                bt6(t[i], r);
                for (int j = 0; j < 6; j++)
                    _mm512_mask_storeu_ps(vt + (i * 6 + j) * g->xs_v, wm, r[j]);
            }
        }
    }
}

static inline __m128 act4(__m128 v, gemm_act_t act, float lo, float hi)
{
    if (act == GEMM_ACT_RELU)
        return _mm_max_ps(v, _mm_setzero_ps());
    if (act == GEMM_ACT_CLIP)
        return _mm_min_ps(_mm_max_ps(v, _mm_set1_ps(lo)), _mm_set1_ps(hi));
    return v;
}

/* channel ch (4 pixels, w of them inside the plane) of an output row at y
 * + at: the residual, the activation after it, the store */
static inline __attribute__((always_inline)) void out4(__m128 v, const conv_post_t *post,
                                                       const float *res, float *y, int64_t at,
                                                       int w)
{
    if (res) {
        __m128 r;
        if (w == 4) {
            r = _mm_loadu_ps(res + at);
        } else {
            float f[4] = {0};
            memcpy(f, res + at, (size_t)w * sizeof(float));
            r = _mm_loadu_ps(f);
        }
        v = _mm_add_ps(v, r);
    }
    if (post)
        v = act4(v, post->post_act, post->post_lo, post->post_hi);
    if (w == 4) {
        _mm_storeu_ps(y + at, v);
    } else {
        float f[4];
        _mm_storeu_ps(f, v);
        memcpy(y + at, f, (size_t)w * sizeof(float));
    }
}

/* one tile (th, tw), output channels [m0, m0 + nm), lw lanes of the
 * products loaded (8 or 16) */
static inline __attribute__((always_inline)) void
out_tile16(const wino_geom_t *g, const float *mt, int64_t m0, int nm, int lw, int64_t th,
           int64_t tw, __m512 b, const conv_post_t *post, const float *res, float *y)
{
    const int64_t OH = g->oh, OW = g->ow, plane = OH * OW;
    const __mmask16 lm = lanes16(lw);
    __m512 s[4][6];
    for (int j = 0; j < 6; j++) {
        __m512 m[6], r[4];
        for (int i = 0; i < 6; i++)
            m[i] = _mm512_maskz_loadu_ps(lm, mt + (i * 6 + j) * g->xs_m);
        at6(m, r);
        for (int i = 0; i < 4; i++)
            s[i][j] = r[i];
    }
    const int64_t ow = 4 * tw;
    const int w = OW - ow < 4 ? (int)(OW - ow) : 4;
    for (int i = 0; i < 4; i++) {
        const int64_t oh = 4 * th + i;
        if (oh >= OH)
            break;
        __m512 o[4];
        at6(s[i], o);
        for (int j = 0; j < 4; j++) {
            o[j] = _mm512_add_ps(o[j], b);
            if (post)
                o[j] = vm512_act_simple(o[j], post->act, post->clip_lo, post->clip_hi);
        }
        /* q[k], 128-bit lane l: channel 4 l + k's 4 pixels */
        const __m512 t0 = _mm512_unpacklo_ps(o[0], o[1]), t1 = _mm512_unpackhi_ps(o[0], o[1]);
        const __m512 t2 = _mm512_unpacklo_ps(o[2], o[3]), t3 = _mm512_unpackhi_ps(o[2], o[3]);
        const __m512 q[4] = {_mm512_shuffle_ps(t0, t2, 0x44), _mm512_shuffle_ps(t0, t2, 0xEE),
                             _mm512_shuffle_ps(t1, t3, 0x44), _mm512_shuffle_ps(t1, t3, 0xEE)};
        const int64_t at0 = m0 * plane + oh * OW + ow;
#define OUT_LANE(l)                                                                               \
    for (int k = 0; k < 4 && 4 * (l) + k < nm; k++)                                               \
        out4(_mm512_extractf32x4_ps(q[k], (l)), post, res, y, at0 + (4 * (l) + k) * plane, w);
        OUT_LANE(0)
        OUT_LANE(1)
        OUT_LANE(2)
        OUT_LANE(3)
#undef OUT_LANE
    }
}

void conv_wino_out_f32_avx512(const wino_geom_t *g, const float *mo, int64_t m0, int64_t m1,
                              int64_t M, int64_t th, const float *bias, const conv_post_t *post,
                              const float *res, float *y)
{
    if (g->m != 4 || (post && (!gemm_act_is_simple(post->act) || !gemm_act_is_simple(post->post_act)))) {
        conv_wino_out_f32_avx2(g, mo, m0, m1, M, th, bias, post, res, y);
        return;
    }
    for (int64_t tw = 0; tw < g->tw; tw++) {
        const float *mt = mo + (th * g->tw + tw) * g->ldm;
        for (int64_t c = m0; c < m1; c += 16) {
            const int lw = m1 - c < 16 ? (int)(m1 - c) : 16;
            const int nm = M - c < lw ? (int)(M - c) : lw;
            const __m512 b =
                bias ? _mm512_maskz_loadu_ps(lanes16(nm), bias + c) : _mm512_setzero_ps();
            out_tile16(g, mt + c, c, nm, lw, th, tw, b, post, res, y);
        }
    }
}

int conv_wino_avx512_compiled(void)
{
    return 1;
}

#else

void conv_wino_in_f32_avx512(const wino_geom_t *g, const float *x, int nc, int nw, int64_t th,
                             float *v)
{
    (void)g, (void)x, (void)nc, (void)nw, (void)th, (void)v;
}
void conv_wino_out_f32_avx512(const wino_geom_t *g, const float *mo, int64_t m0, int64_t m1,
                              int64_t M, int64_t th, const float *bias, const conv_post_t *post,
                              const float *res, float *y)
{
    (void)g, (void)mo, (void)m0, (void)m1, (void)M, (void)th, (void)bias, (void)post, (void)res,
        (void)y;
}
int conv_wino_avx512_compiled(void)
{
    return 0;
}

#endif
