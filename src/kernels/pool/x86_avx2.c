/*
 * AVX2 instances of the fast f32 pooling kernels (fast_impl.h): 8 f32
 * lanes, sums in two 4-lane f64 halves. Compiled with -mavx2 -mfma
 * (CMakeLists.txt) and called only after the CPU check in fast.c.
 */
#include "kernels/pool/fast.h"

#include <string.h>

#if defined(__x86_64__) && defined(__AVX2__)
#include <immintrin.h>

typedef __m256 pv;
typedef __m256d pd;
#define PN 8
#define PV_SET1(f) _mm256_set1_ps(f)
#define PV_LOADU(p) _mm256_loadu_ps(p)
#define PV_STOREU(p, v) _mm256_storeu_ps((p), (v))
#define PV_STOREN(p, v, n) kp256_store_part((p), (v), (n))
/* b[0], b[2], ..., b[14] from b[0..7] and b[7..14] (never b[15]) */
#define PV_LOAD_S2(b) kp256_even(_mm256_loadu_ps(b), _mm256_loadu_ps((b) + 7))
#define PV_GATHER(b, s) \
    _mm256_i32gather_ps((b), \
                        _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), \
                                           _mm256_set1_epi32((int)(s))), 4)
/* the reference's max step: take v when it is greater, or NaN, unless the
 * running value is already NaN */
#define PV_MAXF(b, v) \
    _mm256_blendv_ps((b), (v), _mm256_and_ps(_mm256_cmp_ps((v), (b), _CMP_NLE_UQ), \
                                             _mm256_cmp_ps((b), (b), _CMP_ORD_Q)))
#define PD_ZERO() _mm256_setzero_pd()
#define PD_SET1(d) _mm256_set1_pd(d)
#define PD_ADD _mm256_add_pd
#define PD_MUL _mm256_mul_pd
#define PD_LOADU(p) _mm256_loadu_pd(p)
#define PD_STOREU(p, v) _mm256_storeu_pd((p), (v))
#define PV_LO_PD(v) _mm256_cvtps_pd(_mm256_castps256_ps128(v))
#define PV_HI_PD(v) _mm256_cvtps_pd(_mm256_extractf128_ps((v), 1))
#define PV_FROM_PD(lo, hi) _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo))
/* s / d, NaN where d is 0 (the reference's value for an empty window) */
#define PD_DIVNZ(s, d) \
    _mm256_blendv_pd(_mm256_div_pd((s), (d)), _mm256_set1_pd(NAN), \
                     _mm256_cmp_pd((d), _mm256_setzero_pd(), _CMP_EQ_OQ))

static inline __m256 kp256_even(__m256 lo, __m256 hi)
{
    /* per 128-bit lane lo[0] lo[2] hi[1] hi[3], then 64-bit quarters 0 2 1 3 */
    __m256 t = _mm256_shuffle_ps(lo, hi, 0xD8);
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(t), 0xD8));
}

/* lanes [0, n), n in 1..7, by plain stores (masked stores are microcoded
 * on AMD) */
static inline void kp256_store_part(float *p, __m256 v, int n)
{
    __m128 h = _mm256_castps256_ps128(v);
    if (n & 4) {
        _mm_storeu_ps(p, h);
        h = _mm256_extractf128_ps(v, 1);
        p += 4;
    }
    if (n & 2) {
        _mm_storel_pi((__m64 *)(void *)p, h);
        h = _mm_movehl_ps(h, h);
        p += 2;
    }
    if (n & 1)
        _mm_store_ss(p, h);
}

#define KP(name) kpool_##name##_f32_avx2
#include "kernels/pool/fast_impl.h"

/* 32 bytes from p: the even-indexed bytes of p[0..64) (odd: 1), in order */
static inline __m256i kp8_phase(const uint8_t *p, int odd)
{
    const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
    const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    const __m256i lo = _mm256_set1_epi16(0x00ff);
    const __m256i ea = odd ? _mm256_srli_epi16(a, 8) : _mm256_and_si256(a, lo);
    const __m256i eb = odd ? _mm256_srli_epi16(b, 8) : _mm256_and_si256(b, lo);
    /* packus works per 128-bit lane: a0 b0 a1 b1, put back in order */
    return _mm256_permute4x64_epi64(_mm256_packus_epi16(ea, eb), 0xD8);
}

void kpool_max2d_8bit_avx2(const uint8_t *x, uint8_t *y, int64_t planes, const kpool_geom_t *g,
                           uint8_t flip)
{
    const int64_t H = g->H, W = g->W, OW = g->OW, kh = g->kh, kw = g->kw;
    const int64_t sh = g->sh, sw = g->sw, pbh = g->pbh, pbw = g->pbw;
    /* the padded row: pbw zeros, the window rows' max, zeros to the reach
     * of the last 32-output vector (its loads read up to kw - 1 past it) */
    const int64_t owv = (OW + 31) / 32 * 32;
    const int64_t reach = kpool_8bit_reach(g); /* <= KPOOL_8BIT_ROW: fast.c checked */
    uint8_t row[KPOOL_8BIT_ROW] __attribute__((aligned(32)));
    uint8_t ph[2][KPOOL_8BIT_ROW / 2] __attribute__((aligned(32)));
    uint8_t tail[32] __attribute__((aligned(32)));
    const __m256i fl = _mm256_set1_epi8((char)flip);
    memset(row, 0, (size_t)reach);
    for (int64_t pl = 0; pl < planes; pl++) {
        const uint8_t *xp = x + pl * H * W;
        uint8_t *yp = y + pl * g->OH * OW;
        for (int64_t oh = g->oh0; oh < g->oh1; oh++) {
            int64_t h0 = oh * sh - pbh, h1 = h0 + kh;
            h0 = h0 < 0 ? 0 : h0;
            h1 = h1 > H ? H : h1;
            /* the rows' max, flipped to unsigned order (i8: x ^ 0x80); a
             * last part vector overlaps the one before (max is idempotent) */
            int64_t i = 0;
            for (; i < W && W >= 32; i = i + 64 <= W ? i + 32 : (i + 32 < W ? W - 32 : W)) {
                const uint8_t *c = xp + h0 * W + i;
                __m256i v = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)c),
                                             fl);
                for (int64_t hh = h0 + 1; hh < h1; hh++) {
                    c += W;
                    v = _mm256_max_epu8(
                        v, _mm256_xor_si256(
                               _mm256_loadu_si256((const __m256i *)(const void *)c), fl));
                }
                _mm256_storeu_si256((__m256i *)(void *)(row + pbw + i), v);
            }
            for (; i < W; i++) {
                uint8_t m = (uint8_t)(xp[h0 * W + i] ^ flip);
                for (int64_t hh = h0 + 1; hh < h1; hh++) {
                    const uint8_t v = (uint8_t)(xp[hh * W + i] ^ flip);
                    m = v > m ? v : m;
                }
                row[pbw + i] = m;
            }
            /* each window's columns: stride 1 straight from the row, stride
             * 2 from its even and odd phases */
            const uint8_t *src[2] = {row, row};
            if (sw == 2)
                for (int64_t q = 0; q < owv + kw; q += 32) {
                    _mm256_store_si256((__m256i *)(void *)(ph[0] + q), kp8_phase(row + 2 * q, 0));
                    _mm256_store_si256((__m256i *)(void *)(ph[1] + q), kp8_phase(row + 2 * q, 1));
                    src[0] = ph[0], src[1] = ph[1];
                }
            uint8_t *yo = yp + oh * OW;
            for (int64_t o = 0; o < OW; o += 32) {
                __m256i m = _mm256_loadu_si256((const __m256i *)(const void *)(src[0] + o));
                for (int64_t kx = 1; kx < kw; kx++) {
                    const uint8_t *s = sw == 2 ? src[kx & 1] + o + kx / 2 : row + o + kx;
                    m = _mm256_max_epu8(m, _mm256_loadu_si256((const __m256i *)(const void *)s));
                }
                m = _mm256_xor_si256(m, fl);
                if (o + 32 <= OW) {
                    _mm256_storeu_si256((__m256i *)(void *)(yo + o), m);
                } else {
                    _mm256_store_si256((__m256i *)(void *)tail, m);
                    memcpy(yo + o, tail, (size_t)(OW - o));
                }
            }
        }
    }
}

#else
void kpool_max2d_f32_avx2(const float *x, float *y, int64_t planes, const kpool_geom_t *g)
{
    (void)x, (void)y, (void)planes, (void)g;
}
void kpool_avg2d_f32_avx2(const float *x, float *y, int64_t planes, const kpool_geom_t *g)
{
    (void)x, (void)y, (void)planes, (void)g;
}
void kpool_gavg_f32_avx2(const float *x, float *y, int64_t planes, int64_t n)
{
    (void)x, (void)y, (void)planes, (void)n;
}
void kpool_max2d_8bit_avx2(const uint8_t *x, uint8_t *y, int64_t planes, const kpool_geom_t *g,
                           uint8_t flip)
{
    (void)x, (void)y, (void)planes, (void)g, (void)flip;
}
#endif
