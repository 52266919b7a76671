/*
 * AVX2 + FMA transforms of the Winograd F(4x4, 3x3) and F(2x2, 3x3)
 * convolutions (winograd.c has the algorithm, the layouts and the driver);
 * described for F(4x4): F(2x2) has 4 input rows, 4x4 input tiles, 16
 * products and 2x2 outputs (the tile size a constant after inlining).
 * Eight channels are the eight lanes everywhere:
 *  - conv_wino_in_f32_avx2: the 6 input rows under one row of tiles, for
 *    a block of 8 input channels, are copied into zero-padded pixel-major
 *    rows on the stack (8 floats per pixel, 8x8 register transposes from
 *    the channel planes; 32 tiles' width at a time, so the copy stays in
 *    L1), then each 6x6 input tile is transformed, V = B^T d B, and its 36
 *    vectors stored to the 36 GEMM operands (row = tile, 8 channels at the
 *    block's column);
 *  - conv_wino_out_f32_avx2: the 36 product vectors of one tile and 8
 *    output channels are transformed back, Y = A^T m A (4x4 outputs), and
 *    the epilogue (bias, activation, residual, activation after it) is
 *    applied on 4-pixel vectors after a 4x4 transpose, stored straight
 *    into Y's channel planes.
 * Per tile and 8 channels the input transform costs 12 one-dimensional
 * transforms of ~10 vector operations (36 loads, 36 stores), the output
 * one 10 of ~8; against the 36 x M (or 36 x C) multiply-adds per tile and
 * channel of the GEMMs they are a few percent for M, C >= 64.
 * Compiled with -mavx2 -mfma (CMakeLists.txt); called only after the CPU
 * check in winograd.c.
 */
#include "kernels/conv/winograd.h"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include "kernels/vmath/transpose_avx2.h"
#include <string.h>

/* the 1-D input transform B^T d (rows of B^T: (4, 0, -5, 0, 1, 0),
 * (0, -4, -4, 1, 1, 0), (0, 4, -4, -1, 1, 0), (0, -2, -1, 2, 1, 0),
 * (0, 2, -1, -2, 1, 0), (0, 4, 0, -5, 0, 1)) */
static inline void bt6(const __m256 d[6], __m256 r[6])
{
    const __m256 four = _mm256_set1_ps(4.0f), m4 = _mm256_set1_ps(-4.0f),
                 m5 = _mm256_set1_ps(-5.0f), two = _mm256_set1_ps(2.0f);
    const __m256 a = _mm256_fmadd_ps(m4, d[2], d[4]); /* d4 - 4 d2 */
    const __m256 b = _mm256_fmadd_ps(m4, d[1], d[3]); /* d3 - 4 d1 */
    const __m256 c = _mm256_sub_ps(d[4], d[2]);
    const __m256 e = _mm256_mul_ps(two, _mm256_sub_ps(d[3], d[1]));
    r[0] = _mm256_fmadd_ps(four, d[0], _mm256_fmadd_ps(m5, d[2], d[4]));
    r[1] = _mm256_add_ps(a, b);
    r[2] = _mm256_sub_ps(a, b);
    r[3] = _mm256_add_ps(c, e);
    r[4] = _mm256_sub_ps(c, e);
    r[5] = _mm256_fmadd_ps(four, d[1], _mm256_fmadd_ps(m5, d[3], d[5]));
}

/* the 1-D output transform A^T m (rows of A^T: (1, 1, 1, 1, 1, 0),
 * (0, 1, -1, 2, -2, 0), (0, 1, 1, 4, 4, 0), (0, 1, -1, 8, -8, 1)) */
static inline void at6(const __m256 m[6], __m256 y[4])
{
    const __m256 s12 = _mm256_add_ps(m[1], m[2]), d12 = _mm256_sub_ps(m[1], m[2]);
    const __m256 s34 = _mm256_add_ps(m[3], m[4]), d34 = _mm256_sub_ps(m[3], m[4]);
    y[0] = _mm256_add_ps(_mm256_add_ps(m[0], s12), s34);
    y[1] = _mm256_fmadd_ps(_mm256_set1_ps(2.0f), d34, d12);
    y[2] = _mm256_fmadd_ps(_mm256_set1_ps(4.0f), s34, s12);
    y[3] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8.0f), d34, d12), m[5]);
}

/* F(2x2, 3x3): B^T = (1, 0, -1, 0), (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, 0, -1) */
static inline void bt4(const __m256 d[4], __m256 r[4])
{
    r[0] = _mm256_sub_ps(d[0], d[2]);
    r[1] = _mm256_add_ps(d[1], d[2]);
    r[2] = _mm256_sub_ps(d[2], d[1]);
    r[3] = _mm256_sub_ps(d[1], d[3]);
}

/* F(2x2, 3x3): A^T = (1, 1, 1, 0), (0, 1, -1, -1) */
static inline void at4(const __m256 m[4], __m256 y[2])
{
    y[0] = _mm256_add_ps(_mm256_add_ps(m[0], m[1]), m[2]);
    y[1] = _mm256_sub_ps(_mm256_sub_ps(m[1], m[2]), m[3]);
}

/* padded pixels [q0, q0 + n) of input row iy of the 8-channel block:
 * pixel q at xr[(q - q0) * 8 + l] holds channel l's input column q - pl
 * (0 outside the input or past channel nc) */
static void pad_row(const wino_geom_t *g, const float *x, int nc, int64_t iy, int64_t q0, int64_t n,
                    float *xr)
{
    if (iy < 0 || iy >= g->H) {
        memset(xr, 0, (size_t)n * 8 * sizeof(float));
        return;
    }
    const float *src[8];
    for (int l = 0; l < 8; l++)
        src[l] = l < nc ? x + l * g->plane + iy * g->W : NULL;
    /* input columns [c0, c1) land in this window */
    int64_t c0 = q0 - g->pl, c1 = q0 + n - g->pl;
    c0 = c0 < 0 ? 0 : c0;
    c1 = c1 > g->W ? g->W : c1;
    if (c1 < c0)
        c1 = c0;
    const int64_t lead = c0 + g->pl - q0, tail = q0 + n - (c1 + g->pl);
    memset(xr, 0, (size_t)lead * 8 * sizeof(float));
    float *d = xr + lead * 8;
    int64_t c = c0;
    for (; c + 8 <= c1; c += 8, d += 64) {
        __m256 r[8];
        for (int l = 0; l < 8; l++)
            r[l] = src[l] ? _mm256_loadu_ps(src[l] + c) : _mm256_setzero_ps();
        vm256_transpose8(r);
        for (int k = 0; k < 8; k++)
            _mm256_storeu_ps(d + k * 8, r[k]);
    }
    for (; c < c1; c++, d += 8)
        for (int l = 0; l < 8; l++)
            d[l] = src[l] ? src[l][c] : 0.0f;
    memset(d, 0, (size_t)tail * 8 * sizeof(float));
}

/* tiles per padded window: 6 rows x (4 x 32 + 2) pixels x 8 channels = 25 KB
 * on the stack (F(4x4)), kept in L1 while its tiles are transformed */
#define WIN_TILES 32
#define WIN_PX (4 * WIN_TILES + 2)

/* the tiles of one padded window (a = m + 2 a constant after inlining) */
static inline __attribute__((always_inline)) void
in_window(const wino_geom_t *g, const float *xp, int64_t npx, int64_t nt, float *vt, const int a)
{
    const int m = a - 2;
    for (int64_t tw = 0; tw < nt; tw++, vt += g->ldv) {
        const float *base = xp + m * tw * 8;
        __m256 t[6][6];
        for (int j = 0; j < a; j++) {
            __m256 d[6], r[6];
            for (int i = 0; i < a; i++)
                d[i] = _mm256_loadu_ps(base + (i * npx + j) * 8);
            if (a == 6)
                bt6(d, r);
            else
                bt4(d, r);
            for (int i = 0; i < a; i++)
                t[i][j] = r[i];
        }
        for (int i = 0; i < a; i++) {
            __m256 r[6];
            if (a == 6)
                bt6(t[i], r);
            else
                bt4(t[i], r);
            for (int j = 0; j < a; j++)
                _mm256_storeu_ps(vt + (i * a + j) * g->xs_v, r[j]);
        }
    }
}

void conv_wino_in_f32_avx2(const wino_geom_t *g, const float *x, int nc, int64_t th, float *v)
{
    float xp[6 * WIN_PX * 8] __attribute__((aligned(32)));
    const int m = g->m, a = m + 2;
    for (int64_t t0 = 0; t0 < g->tw; t0 += WIN_TILES) {
        const int64_t nt = g->tw - t0 < WIN_TILES ? g->tw - t0 : WIN_TILES, npx = m * nt + 2;
        for (int64_t r = 0; r < a; r++)
            pad_row(g, x, nc, m * th + r - g->pt, m * t0, npx, xp + r * npx * 8);
        float *vt = v + (th * g->tw + t0) * g->ldv;
        if (a == 6)
            in_window(g, xp, npx, nt, vt, 6);
        else
            in_window(g, xp, npx, nt, vt, 4);
    }
}

static inline __m128 act4(gemm_act_t act, __m128 v, float lo, float hi)
{
    switch (act) {
    case GEMM_ACT_NONE: return v;
    case GEMM_ACT_RELU:
        /* maxps returns its second operand for a NaN: 0, as the scalar form */
        return _mm_max_ps(v, _mm_setzero_ps());
    case GEMM_ACT_CLIP: /* fminf(fmaxf(v, lo), hi): NaN gives lo */
        return _mm_min_ps(_mm_max_ps(v, _mm_set1_ps(lo)), _mm_set1_ps(hi));
    default: {
        float f[4];
        _mm_storeu_ps(f, v);
        for (int i = 0; i < 4; i++)
            f[i] = gemm_act_apply_f32(act, f[i], lo, hi);
        return _mm_loadu_ps(f);
    }
    }
}

/* one tile (th, tw), output channels [m0, m0 + nm) */
static inline __attribute__((always_inline)) void
out_tile(const wino_geom_t *g, const float *mt, int64_t m0, int nm, int64_t th, int64_t tw,
         __m256 b, const conv_post_t *post, const float *res, float *y, const int a)
{
    const int64_t OH = g->oh, OW = g->ow, plane = OH * OW;
    const gemm_act_t act = post ? post->act : GEMM_ACT_NONE;
    const gemm_act_t pact = post ? post->post_act : GEMM_ACT_NONE;
    const int tm = a - 2;
    __m256 s[4][6];
    for (int j = 0; j < a; j++) {
        __m256 m[6], r[4];
        for (int i = 0; i < a; i++)
            m[i] = _mm256_loadu_ps(mt + (i * a + j) * g->xs_m);
        if (a == 6)
            at6(m, r);
        else
            at4(m, r);
        for (int i = 0; i < tm; i++)
            s[i][j] = r[i];
    }
    const int64_t ow = tm * tw;
    const int w = OW - ow < tm ? (int)(OW - ow) : tm;
    for (int i = 0; i < tm; i++) {
        const int64_t oh = tm * th + i;
        if (oh >= OH)
            break;
        __m256 o[4];
        if (a == 6) {
            at6(s[i], o);
        } else {
            at4(s[i], o);
            o[2] = o[3] = _mm256_setzero_ps();
        }
        __m128 lo[4], hi[4];
        for (int j = 0; j < 4; j++) {
            o[j] = _mm256_add_ps(o[j], b);
            lo[j] = _mm256_castps256_ps128(o[j]);
            hi[j] = _mm256_extractf128_ps(o[j], 1);
        }
        _MM_TRANSPOSE4_PS(lo[0], lo[1], lo[2], lo[3]);
        _MM_TRANSPOSE4_PS(hi[0], hi[1], hi[2], hi[3]);
        for (int l = 0; l < nm; l++) {
            const int64_t at = (m0 + l) * plane + oh * OW + ow;
            __m128 v = l < 4 ? lo[l] : hi[l - 4];
            v = act4(act, v, post ? post->clip_lo : 0, post ? post->clip_hi : 0);
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
            v = act4(pact, v, post ? post->post_lo : 0, post ? post->post_hi : 0);
            if (w == 4) {
                _mm_storeu_ps(y + at, v);
            } else {
                float f[4];
                _mm_storeu_ps(f, v);
                memcpy(y + at, f, (size_t)w * sizeof(float));
            }
        }
    }
}

void conv_wino_out_f32_avx2(const wino_geom_t *g, const float *mo, int64_t m0, int64_t m1,
                            int64_t M, int64_t th, const float *bias, const conv_post_t *post,
                            const float *res, float *y)
{
    for (int64_t tw = 0; tw < g->tw; tw++) {
        const float *mt = mo + (th * g->tw + tw) * g->ldm;
        for (int64_t c = m0; c < m1; c += 8) {
            const int nm = M - c < 8 ? (int)(M - c) : 8;
            __m256 b = _mm256_setzero_ps();
            if (bias && nm == 8) {
                b = _mm256_loadu_ps(bias + c);
            } else if (bias) {
                float bv[8] = {0};
                memcpy(bv, bias + c, (size_t)nm * sizeof(float));
                b = _mm256_loadu_ps(bv);
            }
            if (g->m == 4)
                out_tile(g, mt + c, c, nm, th, tw, b, post, res, y, 6);
            else
                out_tile(g, mt + c, c, nm, th, tw, b, post, res, y, 4);
        }
    }
}

int conv_wino_avx2_compiled(void)
{
    return 1;
}

#else

void conv_wino_in_f32_avx2(const wino_geom_t *g, const float *x, int nc, int64_t th, float *v)
{
    (void)g, (void)x, (void)nc, (void)th, (void)v;
}
void conv_wino_out_f32_avx2(const wino_geom_t *g, const float *mo, int64_t m0, int64_t m1,
                            int64_t M, int64_t th, const float *bias, const conv_post_t *post,
                            const float *res, float *y)
{
    (void)g, (void)mo, (void)m0, (void)m1, (void)M, (void)th, (void)bias, (void)post, (void)res,
        (void)y;
}
int conv_wino_avx2_compiled(void)
{
    return 0;
}

#endif
