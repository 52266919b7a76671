/*
 * DynamicQuantizeLinear (quant.h's quant_dynamic): quant_dynamic_ref's
 * results, bit for bit, in two vector passes over x (AVX-512 in
 * x86_avx512.c where the CPU and the ISA cap allow; else SSE2, the x86-64
 * baseline; plain C elsewhere and for the last few elements).
 *
 *   1. min and max with 0 (minps / maxps keep the running value when x is
 *      NaN, as the reference's `x < mn` does);
 *   2. q = x / s in f32 (divps rounds as the scalar division), rounded half
 *      to even by adding and subtracting 1.5 2^23 (|q| <= 255 here), plus
 *      the zero point, clamped to [0, 255] (a NaN falls to 0 at the first
 *      clamp, as q_store stores it), packed to bytes.
 *
 * Both passes split into chunks of 16K elements over k's pool (min / max
 * are exact in any order). The reference took ~11 ns an element (a double
 * division and nearbyint each): 44 % of the MiniLM encoder quantised by
 * onnxruntime's quantize_dynamic (24 of them over 128 x 384 and 128 x
 * 1536 activations).
 */
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_internal.h"

#include "base/cpu.h"
#include "base/threadpool.h"

#include <stdatomic.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#define QDYN_SSE2 1
#else
#define QDYN_SSE2 0
#endif

int quant_use_avx512(void)
{
#if defined(__x86_64__)
    static _Atomic int use = -1;
    int u = atomic_load_explicit(&use, memory_order_relaxed);
    if (u < 0) {
        u = base_isa_select(CAIRN_ISA_AUTO) >= CAIRN_ISA_AVX512;
        atomic_store_explicit(&use, u, memory_order_relaxed);
    }
    return u;
#else
    return 0;
#endif
}

int quant_use_vnni(void)
{
#if defined(__x86_64__)
    static _Atomic int use = -1;
    int u = atomic_load_explicit(&use, memory_order_relaxed);
    if (u < 0) {
        const base_cpu_t *c = base_cpu();
        u = base_isa_select(CAIRN_ISA_AUTO) >= CAIRN_ISA_AVX512_BF16_VNNI && c->avx512_vnni &&
            c->avx512_vbmi && c->avx512bw;
        atomic_store_explicit(&use, u, memory_order_relaxed);
    }
    return u;
#else
    return 0;
#endif
}

const char *quant_dynamic_path(void)
{
    return quant_use_avx512() ? "avx512" : QDYN_SSE2 ? "sse2" : "c";
}

/* min and max with 0 of x[0, n) into *mn, *mx */
static void qdyn_minmax(const float *x, int64_t n, float *mn_out, float *mx_out)
{
    if (quant_use_avx512()) {
        quant_dyn_minmax_avx512(x, n, mn_out, mx_out);
        return;
    }
    float mn = 0, mx = 0;
    int64_t i = 0;
#if QDYN_SSE2
    __m128 vmn = _mm_setzero_ps(), vmx = _mm_setzero_ps();
    for (; i + 4 <= n; i += 4) {
        const __m128 v = _mm_loadu_ps(x + i);
        vmn = _mm_min_ps(v, vmn);
        vmx = _mm_max_ps(v, vmx);
    }
    float t[8];
    _mm_storeu_ps(t, vmn);
    _mm_storeu_ps(t + 4, vmx);
    for (int l = 0; l < 4; l++) {
        mn = t[l] < mn ? t[l] : mn;
        mx = t[4 + l] > mx ? t[4 + l] : mx;
    }
#endif
    for (; i < n; i++) {
        if (x[i] < mn)
            mn = x[i];
        if (x[i] > mx)
            mx = x[i];
    }
    *mn_out = mn, *mx_out = mx;
}

/* y[0, n) from x[0, n): saturate(round(x / s) + z), s > 0 */
static void qdyn_quantize(const float *x, int64_t n, float s, float z, uint8_t *y)
{
    if (quant_use_avx512()) {
        quant_dyn_quantize_avx512(x, n, s, z, y);
        return;
    }
    int64_t i = 0;
#if QDYN_SSE2
    const __m128 vs = _mm_set1_ps(s), vz = _mm_set1_ps(z), magic = _mm_set1_ps(12582912.0f);
    const __m128 zero = _mm_setzero_ps(), top = _mm_set1_ps(255.0f);
    for (; i + 16 <= n; i += 16) {
        __m128i q[4];
        for (int b = 0; b < 4; b++) {
            __m128 v = _mm_div_ps(_mm_loadu_ps(x + i + 4 * b), vs);
            v = _mm_add_ps(_mm_sub_ps(_mm_add_ps(v, magic), magic), vz);
            v = _mm_min_ps(_mm_max_ps(v, zero), top);
            q[b] = _mm_cvtps_epi32(v);
        }
        const __m128i w0 = _mm_packs_epi32(q[0], q[1]), w1 = _mm_packs_epi32(q[2], q[3]);
        _mm_storeu_si128((__m128i *)(y + i), _mm_packus_epi16(w0, w1));
    }
#endif
    for (; i < n; i++)
        q_store(y, CAIRN_U8, i, nearbyint((double)(x[i] / s)) + z);
}

/* the pool's share: chunks of QDYN_CHUNK elements, a min / max per chunk */
#define QDYN_CHUNK 16384
#define QDYN_MAX_CHUNKS 1024
typedef struct qdyn_job {
    const float *x;
    int64_t n;
    uint8_t *y;
    float s, z;
    float *mn, *mx; /* per chunk (the first pass) */
    int quantize;   /* the second pass */
} qdyn_job_t;

/* chunks [c0, c1): their min / max (first pass) or their bytes (second) */
static void qdyn_task(void *ctx, size_t c0, size_t c1, int worker)
{
    (void)worker;
    const qdyn_job_t *j = ctx;
    for (size_t c = c0; c < c1; c++) {
        const int64_t i0 = (int64_t)c * QDYN_CHUNK;
        const int64_t len = j->n - i0 < QDYN_CHUNK ? j->n - i0 : QDYN_CHUNK;
        if (j->quantize)
            qdyn_quantize(j->x + i0, len, j->s, j->z, j->y + i0);
        else
            qdyn_minmax(j->x + i0, len, &j->mn[c], &j->mx[c]);
    }
}

void quant_dynamic(const kctx_t *k, const float *x, int64_t n, uint8_t *y, float *scale,
                   uint8_t *zp)
{
    const int64_t chunks = (n + QDYN_CHUNK - 1) / QDYN_CHUNK;
    base_pool_t *pool = k && k->pool && k->threads > 1 && chunks >= 2 && chunks <= QDYN_MAX_CHUNKS
                            ? k->pool
                            : NULL;
    float mn = 0, mx = 0;
    qdyn_job_t j = {x, n, y, 0, 0, NULL, NULL, 0};
    if (pool) {
        float cm[2 * QDYN_MAX_CHUNKS];
        j.mn = cm, j.mx = cm + QDYN_MAX_CHUNKS;
        base_pool_parallel_for_1d(pool, (size_t)chunks, 1, qdyn_task, &j);
        for (int64_t c = 0; c < chunks; c++) { /* min / max: exact in any order */
            mn = j.mn[c] < mn ? j.mn[c] : mn;
            mx = j.mx[c] > mx ? j.mx[c] : mx;
        }
    } else {
        qdyn_minmax(x, n, &mn, &mx);
    }
    const float s = (mx - mn) / 255.0f;
    float z = 0;
    if (s > 0) {
        z = 0.0f - mn / s; /* clipped, then rounded, as the spec orders it */
        z = z < 0 ? 0 : z > 255 ? 255 : z;
        z = nearbyintf(z);
    }
    *scale = s;
    *zp = (uint8_t)z;
    if (!(s > 0)) {
        for (int64_t i = 0; i < n; i++)
            y[i] = *zp; /* all-zero input: every value is the zero point */
        return;
    }
    j.s = s, j.z = z, j.quantize = 1;
    if (pool)
        base_pool_parallel_for_1d(pool, (size_t)chunks, 1, qdyn_task, &j);
    else
        qdyn_quantize(x, n, s, z, y);
}
