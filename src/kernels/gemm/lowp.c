/*
 * bf16 and int8 GEMM: the variant tables, the portable packers into the
 * grouped-K panels of gemm_kern_t (gemm_f32_internal.h), the reference
 * int8 micro-kernel, the public entry points and the f32 <-> bf16 array
 * conversions. The loops, blocking, threading and epilogue are the f32
 * driver's (gemm_kern_run in gemm.c); only packers and micro-kernels differ.
 *
 * bf16 rows: vdpbf16ps on bf16 pairs (AVX512_BF16), else the f32 variant of
 * the same ISA with packers that convert bf16 to f32 (exact: bf16 is the top
 * half of an f32). int8 rows: vpdpbusd on u8/s8 quads (AVX512_VNNI), else
 * u8 and s8 widened to 16 bits in the packers and multiplied pairwise into
 * 32 bits (vpmaddwd on AVX-512BW / AVX2, plain C for the reference): every
 * product and pair sum is exact, so all rows give identical results.
 */
#include "kernels/gemm/gemm_f32_internal.h"

#include "base/cpu.h"
#include "base/dtype.h"

#include <stdatomic.h>
#include <stdio.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#define LOWP_SSE2 1
#else
#define LOWP_SSE2 0
#endif
#include <stdlib.h>
#include <string.h>

/* ---- packers ----
 *
 * One template for both operands: a block of `nl` lanes (rows of op(A) or
 * columns of op(B)) by kc values of K, lane l at src + l*ls, k at + k*ks,
 * into w-lane panels of G-groups (see gemm_kern_t). CONV widens or converts
 * one element. */
#define DEFINE_PACK(NAME, ST, DT, G, CONV)                                                       \
    static void NAME(const ST *src, int64_t ls, int64_t ks, int64_t nl, int64_t kc, int w,      \
                     DT *restrict dst)                                                           \
    {                                                                                            \
        int64_t kcp = (kc + G - 1) / G * G;                                                      \
        for (int64_t q = 0; q < nl; q += w) {                                                    \
            int lanes = (int)(nl - q < w ? nl - q : w);                                          \
            DT *d = dst + q * kcp;                                                               \
            const ST *s = src + q * ls;                                                          \
            for (int64_t k0 = 0; k0 < kcp; k0 += G) {                                            \
                DT *dk = d + k0 * w;                                                             \
                for (int g = 0; g < G; g++) {                                                    \
                    int64_t k = k0 + g;                                                          \
                    int l = 0;                                                                   \
                    if (k < kc) {                                                                \
                        const ST *sk = s + k * ks;                                               \
                        if (ls == 1)                                                             \
                            for (; l < lanes; l++)                                               \
                                dk[l * G + g] = CONV(sk[l]);                                     \
                        else                                                                     \
                            for (; l < lanes; l++)                                               \
                                dk[l * G + g] = CONV(sk[l * ls]);                                \
                    }                                                                            \
                    for (; l < w; l++)                                                           \
                        dk[l * G + g] = 0;                                                       \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }

static inline float bf16_bits_to_f32(uint16_t h) { return base_bf16_to_f32(h); }
#define SAME(x) (x)
#define WIDEN(x) ((int16_t)(x))
/* a u8 value read as the s8 operand x - 128 (its sign bit flipped) */
#define FLIP8(x) ((uint8_t)((x) ^ 0x80u))
#define FLIP16(x) ((int16_t)((int)(x) - 128))

DEFINE_PACK(pack_bf16_pairs, uint16_t, uint16_t, 2, SAME)
DEFINE_PACK(pack_bf16_as_f32, uint16_t, float, 1, bf16_bits_to_f32)
DEFINE_PACK(pack_u8_quads, uint8_t, uint8_t, 4, SAME)
DEFINE_PACK(pack_u8_s16_pairs, uint8_t, int16_t, 2, WIDEN)
DEFINE_PACK(pack_s8_s16_pairs, int8_t, int16_t, 2, WIDEN)
DEFINE_PACK(pack_u8flip_quads, uint8_t, uint8_t, 4, FLIP8)
DEFINE_PACK(pack_u8flip_s16_pairs, uint8_t, int16_t, 2, FLIP16)

/* Lanes whose K runs are contiguous (op(A) = A, op(B) = B^T) when a group
 * is 4 bytes and kc a whole number of groups: each group is one 32-bit
 * copy, so the panels are a transpose of 32-bit units (lane l at src + l
 * ld_bytes, ng groups per lane). On x86-64, 4 x 4 blocks of units are
 * transposed in SSE2 registers (the baseline: every row of the tables runs
 * it); the last lanes and groups one unit at a time. */
static void pack_rows32(const char *src, int64_t ld_bytes, int64_t nl, int64_t ng, int w,
                        char *restrict dst)
{
    for (int64_t q = 0; q < nl; q += w) {
        int lanes = (int)(nl - q < w ? nl - q : w);
        char *dq = dst + q * ng * 4;
        int l0 = 0;
#if LOWP_SSE2
        for (; l0 + 4 <= lanes; l0 += 4) {
            const char *s0 = src + (q + l0) * ld_bytes;
            int64_t g = 0;
            for (; g + 4 <= ng; g += 4) {
                __m128i x0 = _mm_loadu_si128((const __m128i *)(s0 + g * 4));
                __m128i x1 = _mm_loadu_si128((const __m128i *)(s0 + ld_bytes + g * 4));
                __m128i x2 = _mm_loadu_si128((const __m128i *)(s0 + 2 * ld_bytes + g * 4));
                __m128i x3 = _mm_loadu_si128((const __m128i *)(s0 + 3 * ld_bytes + g * 4));
                __m128i t0 = _mm_unpacklo_epi32(x0, x1), t1 = _mm_unpacklo_epi32(x2, x3);
                __m128i t2 = _mm_unpackhi_epi32(x0, x1), t3 = _mm_unpackhi_epi32(x2, x3);
                char *d = dq + (g * w + l0) * 4;
                _mm_storeu_si128((__m128i *)d, _mm_unpacklo_epi64(t0, t1));
                _mm_storeu_si128((__m128i *)(d + w * 4), _mm_unpackhi_epi64(t0, t1));
                _mm_storeu_si128((__m128i *)(d + 2 * w * 4), _mm_unpacklo_epi64(t2, t3));
                _mm_storeu_si128((__m128i *)(d + 3 * w * 4), _mm_unpackhi_epi64(t2, t3));
            }
            for (; g < ng; g++)
                for (int i = 0; i < 4; i++)
                    memcpy(dq + (g * w + l0 + i) * 4, s0 + i * ld_bytes + g * 4, 4);
        }
#endif
        for (int l = l0; l < w; l++) {
            const char *sl = src + (q + l) * ld_bytes;
            for (int64_t g = 0; g < ng; g++) {
                if (l < lanes)
                    memcpy(dq + (g * w + l) * 4, sl + g * 4, 4);
                else
                    memset(dq + (g * w + l) * 4, 0, 4);
            }
        }
    }
}

/* Lanes that are contiguous (op(B) = B, op(A) = A^T) into the same
 * panels, a group being 4 bytes: G = 4 / es consecutive k of one lane
 * (elements of es = 1 or 2 bytes, k at src + k ks_bytes); k past kc and
 * lanes past nl are zero. On x86-64, 16 lanes of a group's G rows at a
 * time are interleaved by SSE2 unpacks (bytes then pairs for es = 1,
 * pairs for es = 2) into the 64 bytes they fill; the scalar loop packed
 * B of a 2048^3 int8 GEMM at ~1.7 GB/s, 5 % of its time on Zen 4. flip
 * (es = 1): each byte inside K and the lanes XOR flip (0x80: a u8 operand
 * packed as the s8 x - 128). */
static void pack_groups32(const char *src, int64_t ks_bytes, int es, int64_t nl, int64_t kc,
                          int w, char *restrict dst, uint8_t flip)
{
    const int G = 4 / es;
    const int64_t kcp = (kc + G - 1) / G * G;
    for (int64_t k0 = 0; k0 < kcp; k0 += G) {
        const int gv = (int)(kc - k0 < G ? kc - k0 : G); /* rows inside K */
        for (int64_t q = 0; q < nl; q += w) {
            const int lanes = (int)(nl - q < w ? nl - q : w);
            char *dk = dst + (q * kcp + k0 * w) * es;
            int l = 0;
#if LOWP_SSE2
            for (; l + 16 <= lanes; l += 16) {
                __m128i r[4];
                for (int g = 0; g < G; g++) {
                    const char *sp = src + (k0 + g) * ks_bytes + (q + l) * es;
                    r[g] = g < gv ? _mm_xor_si128(_mm_loadu_si128((const __m128i *)sp),
                                                  _mm_set1_epi8((char)flip))
                                  : _mm_setzero_si128();
                    if (es == 2) /* lanes 8..15 of the row in r[g + 2] */
                        r[g + 2] = g < gv ? _mm_loadu_si128((const __m128i *)(sp + 16))
                                          : _mm_setzero_si128();
                }
                __m128i o0, o1, o2, o3;
                if (es == 1) {
                    const __m128i a = _mm_unpacklo_epi8(r[0], r[1]), b = _mm_unpackhi_epi8(r[0], r[1]);
                    const __m128i c = _mm_unpacklo_epi8(r[2], r[3]), d = _mm_unpackhi_epi8(r[2], r[3]);
                    o0 = _mm_unpacklo_epi16(a, c), o1 = _mm_unpackhi_epi16(a, c);
                    o2 = _mm_unpacklo_epi16(b, d), o3 = _mm_unpackhi_epi16(b, d);
                } else {
                    o0 = _mm_unpacklo_epi16(r[0], r[1]), o1 = _mm_unpackhi_epi16(r[0], r[1]);
                    o2 = _mm_unpacklo_epi16(r[2], r[3]), o3 = _mm_unpackhi_epi16(r[2], r[3]);
                }
                char *d = dk + l * 4;
                _mm_storeu_si128((__m128i *)d, o0);
                _mm_storeu_si128((__m128i *)(d + 16), o1);
                _mm_storeu_si128((__m128i *)(d + 32), o2);
                _mm_storeu_si128((__m128i *)(d + 48), o3);
            }
#endif
            for (; l < w; l++)
                for (int g = 0; g < G; g++) {
                    char *d = dk + l * 4 + g * es;
                    if (l < lanes && g < gv) {
                        memcpy(d, src + (k0 + g) * ks_bytes + (q + l) * es, (size_t)es);
                        if (es == 1)
                            *d = (char)(*d ^ (char)flip);
                    } else
                        memset(d, 0, (size_t)es);
                }
        }
    }
}

/* lane / k strides and origin of op(A) rows [i0, ..) from K index p0 */
#define A_GEOM(ta, lda, i0, p0, ls, ks, off)                                                     \
    int64_t ls = (ta) ? 1 : (lda), ks = (ta) ? (lda) : 1, off = (i0)*ls + (p0)*ks
/* the same for op(B) columns [j0, ..) */
#define B_GEOM(tb, ldb, p0, j0, ls, ks, off)                                                     \
    int64_t ls = (tb) ? (ldb) : 1, ks = (tb) ? 1 : (ldb), off = (j0)*ls + (p0)*ks

/* The 4-byte-group packers of one operand's lanes: K contiguous (a whole
 * number of groups) by 32-bit transposes, lanes contiguous by interleaving,
 * else element by element. */
static void pack_quads_any(const void *src, int64_t ls, int64_t ks, int es, int64_t nl,
                           int64_t kc, int w, void *dst)
{
    const int G = 4 / es;
    if (ks == 1 && kc % G == 0)
        pack_rows32(src, ls * es, nl, kc / G, w, dst);
    else if (ls == 1)
        pack_groups32(src, ks * es, es, nl, kc, w, dst, 0);
    else if (es == 2)
        pack_bf16_pairs(src, ls, ks, nl, kc, w, dst);
    else
        pack_u8_quads(src, ls, ks, nl, kc, w, dst);
}

static void bf16_pack_a(const gemm_kern_t *kn, int ta, const void *A, int64_t lda, int64_t i0,
                        int64_t p0, int64_t mc, int64_t kc, void *dst)
{
    A_GEOM(ta, lda, i0, p0, ls, ks, off);
    pack_quads_any((const uint16_t *)A + off, ls, ks, 2, mc, kc, kn->mr, dst);
}

static void bf16_pack_b(const gemm_kern_t *kn, int tb, const void *B, int64_t ldb, int64_t p0,
                        int64_t j0, int64_t kc, int64_t nc, void *dst)
{
    B_GEOM(tb, ldb, p0, j0, ls, ks, off);
    pack_quads_any((const uint16_t *)B + off, ls, ks, 2, nc, kc, kn->nr, dst);
}

static void cvt_pack_a(const gemm_kern_t *kn, int ta, const void *A, int64_t lda, int64_t i0,
                       int64_t p0, int64_t mc, int64_t kc, void *dst)
{
    A_GEOM(ta, lda, i0, p0, ls, ks, off);
    pack_bf16_as_f32((const uint16_t *)A + off, ls, ks, mc, kc, kn->mr, dst);
}

static void cvt_pack_b(const gemm_kern_t *kn, int tb, const void *B, int64_t ldb, int64_t p0,
                       int64_t j0, int64_t kc, int64_t nc, void *dst)
{
    B_GEOM(tb, ldb, p0, j0, ls, ks, off);
    pack_bf16_as_f32((const uint16_t *)B + off, ls, ks, nc, kc, kn->nr, dst);
}

/* the f32 micro-kernel of the wrapped variant on converted panels */
static void cvt_uk(const gemm_kern_t *kn, int64_t kc, const void *A, const void *B, void *C,
                   int64_t ldc, int m, int n, float alpha, float beta, const gemm_tile_epi_t *e)
{
    const gemm_f32_variant_t *v = kn->ctx;
    v->uk(kc, A, 0, v->mr, B, v->nr, C, ldc, m, n, alpha, beta, e);
}

static void s8_vnni_pack_a(const gemm_kern_t *kn, int ta, const void *A, int64_t lda, int64_t i0,
                           int64_t p0, int64_t mc, int64_t kc, void *dst)
{
    A_GEOM(ta, lda, i0, p0, ls, ks, off);
    pack_quads_any((const uint8_t *)A + off, ls, ks, 1, mc, kc, kn->mr, dst);
}

static void s8_vnni_pack_b(const gemm_kern_t *kn, int tb, const void *B, int64_t ldb, int64_t p0,
                           int64_t j0, int64_t kc, int64_t nc, void *dst)
{
    B_GEOM(tb, ldb, p0, j0, ls, ks, off);
    if (ls == 1 && kn->nr == 32) /* the VNNI kernel's CPU has AVX-512BW */
        gemm_s8_pack_groups_avx512((const char *)B + off, ks, nc, kc, dst, 0);
    else
        pack_quads_any((const int8_t *)B + off, ls, ks, 1, nc, kc, kn->nr, dst);
}

/* The same panels of a u8 B read as the s8 B - 128 (gemm_u8u8s32_packed_a) */
static void s8_vnni_pack_b_flip(const gemm_kern_t *kn, int tb, const void *B, int64_t ldb,
                                int64_t p0, int64_t j0, int64_t kc, int64_t nc, void *dst)
{
    B_GEOM(tb, ldb, p0, j0, ls, ks, off);
    if (ls == 1 && kn->nr == 32)
        gemm_s8_pack_groups_avx512((const char *)B + off, ks, nc, kc, dst, 0x80);
    else if (ls == 1)
        pack_groups32((const char *)B + off, ks, 1, nc, kc, kn->nr, dst, 0x80);
    else
        pack_u8flip_quads((const uint8_t *)B + off, ls, ks, nc, kc, kn->nr, dst);
}

static void s16_pack_b_flip(const gemm_kern_t *kn, int tb, const void *B, int64_t ldb, int64_t p0,
                            int64_t j0, int64_t kc, int64_t nc, void *dst)
{
    B_GEOM(tb, ldb, p0, j0, ls, ks, off);
    pack_u8flip_s16_pairs((const uint8_t *)B + off, ls, ks, nc, kc, kn->nr, dst);
}

static void s16_pack_a(const gemm_kern_t *kn, int ta, const void *A, int64_t lda, int64_t i0,
                       int64_t p0, int64_t mc, int64_t kc, void *dst)
{
    A_GEOM(ta, lda, i0, p0, ls, ks, off);
    pack_u8_s16_pairs((const uint8_t *)A + off, ls, ks, mc, kc, kn->mr, dst);
}

static void s16_pack_b(const gemm_kern_t *kn, int tb, const void *B, int64_t ldb, int64_t p0,
                       int64_t j0, int64_t kc, int64_t nc, void *dst)
{
    B_GEOM(tb, ldb, p0, j0, ls, ks, off);
    pack_s8_s16_pairs((const int8_t *)B + off, ls, ks, nc, kc, kn->nr, dst);
}

/* ---- reference int8 micro-kernel (4 x 8 on 16-bit pairs) and fallbacks ---- */

#define RMR 4
#define RNR 8

static void s8_ukernel_ref(const gemm_kern_t *kn, int64_t kc, const void *A, const void *B,
                           void *C, int64_t ldc, int m, int n, float alpha, float beta,
                           const gemm_tile_epi_t *e)
{
    (void)kn, (void)alpha, (void)e;
    const int16_t *a = A, *b = B;
    int32_t acc[RMR][RNR] = {{0}};
    for (int64_t p = 0; p < (kc + 1) / 2; p++) {
        for (int r = 0; r < RMR; r++)
            for (int c = 0; c < RNR; c++)
                acc[r][c] += (int32_t)a[2 * r] * b[2 * c] + (int32_t)a[2 * r + 1] * b[2 * c + 1];
        a += 2 * RMR;
        b += 2 * RNR;
    }
    int32_t *cp = C;
    for (int r = 0; r < m; r++)
        for (int c = 0; c < n; c++)
            cp[r * ldc + c] = (beta != 0.0f ? cp[r * ldc + c] : 0) + acc[r][c];
}

static void bf16_fallback(int ta, int tb, int64_t m, int64_t n, int64_t K, float alpha,
                          const void *A, int64_t lda, const void *B, int64_t ldb, float beta,
                          void *C, int64_t ldc)
{
    const uint16_t *a = A, *b = B;
    float *c = C;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            float s = 0.0f;
            for (int64_t p = 0; p < K; p++)
                s += base_bf16_to_f32(ta ? a[p * lda + i] : a[i * lda + p]) *
                     base_bf16_to_f32(tb ? b[j * ldb + p] : b[p * ldb + j]);
            c[i * ldc + j] = alpha * s + (beta != 0.0f ? beta * c[i * ldc + j] : 0.0f);
        }
}

static void s8_fallback(int ta, int tb, int64_t m, int64_t n, int64_t K, float alpha,
                        const void *A, int64_t lda, const void *B, int64_t ldb, float beta,
                        void *C, int64_t ldc)
{
    (void)alpha;
    const uint8_t *a = A;
    const int8_t *b = B;
    int32_t *c = C;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            /* unsigned arithmetic: wraps like the kernels, without overflow UB */
            uint32_t s = beta != 0.0f ? (uint32_t)c[i * ldc + j] : 0u;
            for (int64_t p = 0; p < K; p++)
                s += (uint32_t)((int32_t)(ta ? a[p * lda + i] : a[i * lda + p]) *
                                (tb ? b[j * ldb + p] : b[p * ldb + j]));
            c[i * ldc + j] = (int32_t)s;
        }
}

/* ---- the tables, best first ---- */

static const gemm_kern_t bf16_rows[] = {
    {"avx512bf16_14x32", CAIRN_ISA_AVX512_BF16_VNNI, 14, 32, 2, 2, 4, 2, NULL, bf16_pack_a,
     bf16_pack_b, gemm_bf16_ukernel_14x32_avx512bf16, bf16_fallback, 0, NULL},
    /* mr, nr, ctx filled from the f32 variant of the same ISA */
    {"avx512_14x32_cvt", CAIRN_ISA_AVX512, 0, 0, 1, 4, 4, 2, NULL, cvt_pack_a, cvt_pack_b, cvt_uk,
     bf16_fallback, 0, NULL},
    {"avx2_6x16_cvt", CAIRN_ISA_AVX2, 0, 0, 1, 4, 4, 2, NULL, cvt_pack_a, cvt_pack_b, cvt_uk,
     bf16_fallback, 0, NULL},
    {"ref_4x8_cvt", CAIRN_ISA_REF, 0, 0, 1, 4, 4, 2, NULL, cvt_pack_a, cvt_pack_b, cvt_uk,
     bf16_fallback, 0, NULL},
};

static const gemm_kern_t s8_rows[] = {
    {"avx512vnni_14x32", CAIRN_ISA_AVX512_BF16_VNNI, 14, 32, 4, 1, 4, 1, NULL, s8_vnni_pack_a,
     s8_vnni_pack_b, gemm_s8_ukernel_14x32_avx512vnni, s8_fallback, 0, NULL},
    {"avx512_s16_14x32", CAIRN_ISA_AVX512, 14, 32, 2, 2, 4, 1, NULL, s16_pack_a, s16_pack_b,
     gemm_s8_ukernel_14x32_avx512_s16, s8_fallback, 0, NULL},
    {"avx2_s16_6x16", CAIRN_ISA_AVX2, 6, 16, 2, 2, 4, 1, NULL, s16_pack_a, s16_pack_b,
     gemm_s8_ukernel_6x16_avx2_s16, s8_fallback, 0, NULL},
    {"ref_s16_4x8", CAIRN_ISA_REF, RMR, RNR, 2, 2, 4, 1, NULL, s16_pack_a, s16_pack_b,
     s8_ukernel_ref, s8_fallback, 0, NULL},
};

#define NROWS(t) ((int)(sizeof t / sizeof t[0]))

static int pick(const char *what, const gemm_kern_t *rows, int n, cairn_isa_t cap, int report)
{
    const char *names[8];
    cairn_isa_t isas[8];
    for (int i = 0; i < n; i++) {
        names[i] = rows[i].name;
        isas[i] = rows[i].isa;
    }
    return gemm_table_pick(what, n, names, isas, cap, report);
}

static void make(const gemm_kern_t *row, gemm_kern_t *kn)
{
    *kn = *row;
    if (kn->mr == 0) {
        const gemm_f32_variant_t *v = gemm_f32_variant_for(row->isa);
        kn->ctx = v;
        kn->mr = v->mr;
        kn->nr = v->nr;
        kn->b_in_l1 = v->b_in_l1; /* f32 panels: the f32 variant's loop order and blocking */
    }
}

void gemm_bf16_kern_for(cairn_isa_t cap, gemm_kern_t *kn)
{
    make(&bf16_rows[pick("bf16", bf16_rows, NROWS(bf16_rows), cap, 0)], kn);
}

void gemm_s8_kern_for(cairn_isa_t cap, gemm_kern_t *kn)
{
    make(&s8_rows[pick("s8", s8_rows, NROWS(s8_rows), cap, 0)], kn);
}

static gemm_kern_t g_bf16, g_s8;
static atomic_int g_bf16_state, g_s8_state; /* 0 none, 1 being made, 2 ready */

static const gemm_kern_t *select_once(const char *what, const gemm_kern_t *rows, int n,
                                      gemm_kern_t *slot, atomic_int *state)
{
    if (atomic_load_explicit(state, memory_order_acquire) == 2)
        return slot;
    int z = 0;
    if (atomic_compare_exchange_strong(state, &z, 1)) {
        make(&rows[pick(what, rows, n, base_isa_select(CAIRN_ISA_AUTO), gemm_verbose())], slot);
        atomic_store_explicit(state, 2, memory_order_release);
        return slot;
    }
    while (atomic_load_explicit(state, memory_order_acquire) != 2)
        ; /* another thread is filling it in: a few nanoseconds */
    return slot;
}

const gemm_kern_t *gemm_bf16_select(void)
{
    return select_once("bf16", bf16_rows, NROWS(bf16_rows), &g_bf16, &g_bf16_state);
}

const gemm_kern_t *gemm_s8_select(void)
{
    return select_once("s8", s8_rows, NROWS(s8_rows), &g_s8, &g_s8_state);
}

const char *gemm_bf16_variant_name(void) { return gemm_bf16_select()->name; }
const char *gemm_s8_variant_name(void) { return gemm_s8_select()->name; }

/* ---- entry points ---- */

void gemm_bf16_ex(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
                  float alpha, const uint16_t *A, int64_t lda, const uint16_t *B, int64_t ldb,
                  float beta, float *C, int64_t ldc, const gemm_epilogue_t *epi)
{
    gemm_kern_run(gemm_bf16_select(), k, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C,
                  ldc, epi);
}

void gemm_bf16(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
               float alpha, const uint16_t *A, int64_t lda, const uint16_t *B, int64_t ldb,
               float beta, float *C, int64_t ldc)
{
    gemm_bf16_ex(k, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, NULL);
}

void gemm_u8s8s32(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
                  const uint8_t *A, int64_t lda, const int8_t *B, int64_t ldb, int32_t *C,
                  int64_t ldc, int accumulate)
{
    gemm_kern_run(gemm_s8_select(), k, transA, transB, M, N, K, 1.0f, A, lda, B, ldb,
                  accumulate ? 1.0f : 0.0f, C, ldc, NULL);
}

/* ---- int8 B packed ahead ---- */

#define S8_PACKED_MAGIC 0x42503853u /* "S8PB"; the header's variant: into s8_rows */
#define S8_PACKED_A_MAGIC 0x41503855u /* "U8PA": A packed ahead */
#define S8_PACKED_HEADER GEMM_PACKED_HEADER
typedef gemm_packed_header_t s8_packed_header_t;

static int s8_row_of(const gemm_kern_t *kn)
{
    for (int i = 0; i < NROWS(s8_rows); i++)
        if (!strcmp(s8_rows[i].name, kn->name))
            return i;
    return -1;
}

/* A K-deep operand packed ahead for the selected int8 kernel: B (K x W, W
 * = N columns, padded to NR) or A (W = M rows, padded to MR), behind a
 * header that names the packer (magic), the kernel, K, W, the K block and
 * the padded width */
typedef struct s8_side {
    const char *packer, *runner;
    uint32_t magic;
    int a; /* 1: A (rows), 0: B (columns) */
} s8_side_t;
static const s8_side_t S8_B = {"gemm_s8_pack_b", "gemm_u8s8s32_packed", S8_PACKED_MAGIC, 0};
static const s8_side_t S8_A = {"gemm_u8_pack_a", "gemm_u8s8s32_packed_a", S8_PACKED_A_MAGIC, 1};

static int64_t s8_wpad(const gemm_kern_t *kn, const s8_side_t *sd, int64_t W)
{
    const int t = sd->a ? kn->mr : kn->nr;
    return (W + t - 1) / t * t;
}

static size_t s8_packed_size(const s8_side_t *sd, int64_t K, int64_t W)
{
    const gemm_kern_t *kn = gemm_s8_select();
    if (K < 0 || W < 0)
        return 0;
    int64_t kc;
    const int64_t rows = gemm_kern_packed_rows(kn, K, &kc);
    return S8_PACKED_HEADER + (size_t)(rows * s8_wpad(kn, sd, W)) * (size_t)kn->esz;
}

static cairn_status_t s8_pack(const s8_side_t *sd, int64_t K, int64_t W, const void *src,
                              int64_t ld, void *packed, size_t size)
{
    const gemm_kern_t *kn = gemm_s8_select();
    const int64_t ldmin = sd->a ? K : W;
    if (K < 0 || W < 0 || !packed || (K * W > 0 && !src) || ld < ldmin)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%s: K=%lld %s=%lld ld=%lld, %p, buffer %p",
                          sd->packer, (long long)K, sd->a ? "M" : "N", (long long)W,
                          (long long)ld, src, packed);
    const size_t need = s8_packed_size(sd, K, W);
    if (size < need)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "%s: buffer of %zu bytes, K=%lld x %s=%lld needs %zu", sd->packer, size,
                          (long long)K, sd->a ? "M" : "N", (long long)W, need);
    s8_packed_header_t h = {sd->magic, s8_row_of(kn), K, W, 0, s8_wpad(kn, sd, W)};
    gemm_kern_packed_rows(kn, K, &h.kc);
    memset(packed, 0, S8_PACKED_HEADER);
    memcpy(packed, &h, sizeof h);
    char *d = (char *)packed + S8_PACKED_HEADER;
    if (sd->a)
        gemm_kern_pack_a_all(kn, W, K, src, ld, h.kc, h.npad, d);
    else
        gemm_kern_pack_b_all(kn, K, W, src, ld, h.kc, h.npad, d);
    return CAIRN_OK;
}

/* The header of a buffer from s8_pack checked against this process's
 * kernel and layout and the call's K x W (a buffer from elsewhere, e.g. a
 * model naming an internal op, must not steer the reads): its K block and
 * padded width in *h. */
static cairn_status_t s8_packed_open(const s8_side_t *sd, const void *packed, int64_t K,
                                     int64_t W, const gemm_kern_t **kno, s8_packed_header_t *h)
{
    if (!packed)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%s: null packed %s", sd->runner,
                          sd->a ? "A" : "B");
    memcpy(h, packed, sizeof *h);
    const gemm_kern_t *kn = gemm_s8_select();
    if (h->magic != sd->magic || h->variant != s8_row_of(kn))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "%s: the buffer was not made by %s for the %s kernel", sd->runner,
                          sd->packer, kn->name);
    if (h->K != K || h->N != W)
        return base_error(CAIRN_ERR_SHAPE,
                          "%s: %s was packed as K=%lld x %lld, called with K=%lld x %lld",
                          sd->runner, sd->a ? "A" : "B", (long long)h->K, (long long)h->N,
                          (long long)K, (long long)W);
    int64_t kc;
    gemm_kern_packed_rows(kn, K, &kc);
    if (h->kc != kc || h->npad != s8_wpad(kn, sd, W))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "%s: the buffer's layout (kc %lld, padded %lld) is not this build's",
                          sd->runner, (long long)h->kc, (long long)h->npad);
    *kno = kn;
    return CAIRN_OK;
}

size_t gemm_s8_packed_b_size(int64_t K, int64_t N) { return s8_packed_size(&S8_B, K, N); }

cairn_status_t gemm_s8_pack_b(int64_t K, int64_t N, const int8_t *B, int64_t ldb, void *packed,
                              size_t size)
{
    return s8_pack(&S8_B, K, N, B, ldb, packed, size);
}

cairn_status_t gemm_u8s8s32_packed(const kctx_t *k, int64_t M, int64_t N, int64_t K,
                                   const uint8_t *A, int64_t lda, const void *packed, int32_t *C,
                                   int64_t ldc)
{
    const gemm_kern_t *kn = NULL;
    s8_packed_header_t h;
    BASE_TRY(s8_packed_open(&S8_B, packed, K, N, &kn, &h));
    gemm_kern_run_packed(kn, k, M, N, K, A, lda, (const char *)packed + S8_PACKED_HEADER, h.kc,
                         h.npad, C, ldc);
    return CAIRN_OK;
}

/* ---- u8 A packed ahead (an 8-bit convolution's weights; the header's N
 * field holds M, npad the padded M) ---- */

size_t gemm_u8_packed_a_size(int64_t M, int64_t K) { return s8_packed_size(&S8_A, K, M); }

cairn_status_t gemm_u8_pack_a(int64_t M, int64_t K, const uint8_t *A, int64_t lda, void *packed,
                              size_t size)
{
    return s8_pack(&S8_A, K, M, A, lda, packed, size);
}

/* gemm_u8s8s32_packed_a, with flip B's bytes XOR 0x80 as they are packed
 * (gemm_u8u8s32_packed_a) */
static cairn_status_t s8_run_packed_a(const kctx_t *k, int64_t M, int64_t N, int64_t K,
                                      const void *packed_a, const void *B, int64_t ldb,
                                      int32_t *C, int64_t ldc, int flip)
{
    const gemm_kern_t *kn = NULL;
    s8_packed_header_t h;
    BASE_TRY(s8_packed_open(&S8_A, packed_a, K, M, &kn, &h));
    gemm_kern_t kf = *kn;
    if (flip)
        kf.pack_b = kn->pack_b == s8_vnni_pack_b ? s8_vnni_pack_b_flip : s16_pack_b_flip;
    gemm_kern_run_packed_a(&kf, k, M, N, K, (const char *)packed_a + S8_PACKED_HEADER, h.kc,
                           h.npad, B, ldb, C, ldc);
    return CAIRN_OK;
}

cairn_status_t gemm_u8s8s32_packed_a(const kctx_t *k, int64_t M, int64_t N, int64_t K,
                                     const void *packed_a, const int8_t *B, int64_t ldb,
                                     int32_t *C, int64_t ldc)
{
    return s8_run_packed_a(k, M, N, K, packed_a, B, ldb, C, ldc, 0);
}

const uint8_t *gemm_u8_packed_a_panels(const void *packed_a, int64_t M, int64_t K, int64_t *kcp)
{
    const gemm_kern_t *kn = NULL;
    s8_packed_header_t h;
    if (s8_packed_open(&S8_A, packed_a, K, M, &kn, &h) != CAIRN_OK) {
        base_error_clear();
        return NULL;
    }
    if (kn->pack_a != s8_vnni_pack_a || kn->mr != 14 || kn->nr != 32 || h.kc < K)
        return NULL;
    *kcp = (K + 3) / 4 * 4;
    return (const uint8_t *)packed_a + S8_PACKED_HEADER;
}

void gemm_s8_pack_b_panels(const void *B, int64_t ldb, int64_t K, int64_t n, uint8_t flip,
                           void *dst)
{
    gemm_s8_pack_groups_avx512((const char *)B, ldb, n, K, (char *)dst, flip);
}

cairn_status_t gemm_u8u8s32_packed_a(const kctx_t *k, int64_t M, int64_t N, int64_t K,
                                     const void *packed_a, const uint8_t *B, int64_t ldb,
                                     int32_t *C, int64_t ldc)
{
    return s8_run_packed_a(k, M, N, K, packed_a, B, ldb, C, ldc, 1);
}

/* ---- f32 <-> bf16 arrays ---- */

static cairn_isa_t cvt_level(cairn_isa_t cap)
{
    cairn_isa_t best = base_cpu()->best_isa;
    return cap != CAIRN_ISA_AUTO && cap < best ? cap : best;
}

void gemm_cvt_f32_to_bf16_isa(cairn_isa_t cap, const float *src, uint16_t *dst, size_t n)
{
#if defined(__x86_64__)
    cairn_isa_t l = cvt_level(cap);
    if (l >= CAIRN_ISA_AVX512) {
        gemm_cvt_f32_to_bf16_avx512(src, dst, n, l >= CAIRN_ISA_AVX512_BF16_VNNI);
        return;
    }
#else
    (void)cap;
#endif
    for (size_t i = 0; i < n; i++)
        dst[i] = base_f32_to_bf16(src[i]);
}

void gemm_cvt_bf16_to_f32_isa(cairn_isa_t cap, const uint16_t *src, float *dst, size_t n)
{
#if defined(__x86_64__)
    if (cvt_level(cap) >= CAIRN_ISA_AVX512) {
        gemm_cvt_bf16_to_f32_avx512(src, dst, n);
        return;
    }
#else
    (void)cap;
#endif
    for (size_t i = 0; i < n; i++)
        dst[i] = base_bf16_to_f32(src[i]);
}

void gemm_cvt_f32_to_bf16(const float *src, uint16_t *dst, size_t n)
{
    gemm_cvt_f32_to_bf16_isa(base_isa_select(CAIRN_ISA_AUTO), src, dst, n);
}

void gemm_cvt_bf16_to_f32(const uint16_t *src, float *dst, size_t n)
{
    gemm_cvt_bf16_to_f32_isa(base_isa_select(CAIRN_ISA_AUTO), src, dst, n);
}
