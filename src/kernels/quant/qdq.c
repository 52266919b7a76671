/*
 * QuantizeLinear (f32 -> u8 / i8) and DequantizeLinear (u8 / i8 -> f32)
 * in vector loops over k's pool (quant.h's quant_quantize /
 * quant_dequantize): quant_quantize_ref's and quant_dequantize_ref's
 * results bit for bit; other types go to them. A statically quantised
 * model (onnxruntime's QDQ form) runs one of each around every quantised
 * activation. 1M elements, 1 thread, Zen 4: quantise 3.17 -> 0.31 ms
 * (the reference's double division and nearbyint), dequantise 1.14 ->
 * 0.11 ms.
 *
 * Quantise, per run of one scale / zero point (AVX-512 in x86_avx512.c
 * where quant_use_avx512, else SSE2, the x86-64 baseline, with plain C for
 * the last elements): q = x / s in f32 (divps rounds as the
 * scalar division), NaN -> 0 (the reference's rule for QuantizeLinear),
 * rounded half to even by adding and subtracting 1.5 2^23, + zp, clamped
 * to the type (any |q| >= 2^22, where that rounding is not nearbyint's,
 * saturates either way), packed with saturation. Dequantise: (x - zp) is
 * a small integer, exact in f32, times the scale: one rounding, as the
 * reference's; a plain loop the compiler vectorises.
 */
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_internal.h"

#include "base/threadpool.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#define QDQ_SSE2 1
#else
#define QDQ_SSE2 0
#endif

#define QDQ_CHUNK 32768

static void quantize_run(const float *x, int64_t n, float s, int32_t z, cairn_dtype_t yt,
                         void *y)
{
    int64_t i = 0;
    if (quant_use_avx512()) {
        quant_ql_quantize_avx512(x, n, s, z, yt == CAIRN_U8, y);
        return;
    }
#if QDQ_SSE2
    const int u8 = yt == CAIRN_U8;
    const __m128 vs = _mm_set1_ps(s), vz = _mm_set1_ps((float)z);
    const __m128 magic = _mm_set1_ps(12582912.0f);
    const __m128 lo = _mm_set1_ps(u8 ? 0.0f : -128.0f), hi = _mm_set1_ps(u8 ? 255.0f : 127.0f);
    for (; i + 16 <= n; i += 16) {
        __m128i q[4];
        for (int b = 0; b < 4; b++) {
            __m128 v = _mm_div_ps(_mm_loadu_ps(x + i + 4 * b), vs);
            v = _mm_and_ps(v, _mm_cmpeq_ps(v, v)); /* NaN -> +0 */
            v = _mm_add_ps(_mm_sub_ps(_mm_add_ps(v, magic), magic), vz);
            v = _mm_min_ps(_mm_max_ps(v, lo), hi);
            q[b] = _mm_cvtps_epi32(v);
        }
        const __m128i w0 = _mm_packs_epi32(q[0], q[1]), w1 = _mm_packs_epi32(q[2], q[3]);
        _mm_storeu_si128((__m128i *)((char *)y + i),
                         u8 ? _mm_packus_epi16(w0, w1) : _mm_packs_epi16(w0, w1));
    }
#endif
    for (; i < n; i++) {
        double q = (double)(x[i] / s);
        if (isnan(q))
            q = 0;
        q_store(y, yt, i, nearbyint(q) + z);
    }
}

static void dequantize_run(cairn_dtype_t xt, const void *x, int64_t n, int32_t z, float s,
                           float *restrict y)
{
    if (xt == CAIRN_U8) {
        const uint8_t *restrict q = x;
        for (int64_t i = 0; i < n; i++)
            y[i] = (float)((int32_t)q[i] - z) * s;
    } else {
        const int8_t *restrict q = x;
        for (int64_t i = 0; i < n; i++)
            y[i] = (float)((int32_t)q[i] - z) * s;
    }
}

/* QLinearConv's requantisation of one channel's int32 sums, as
 * quant_requant_ref computes it: ((double)acc + b) * m (b and acc integers,
 * their sum exact; one rounding), rounded half to even, + z, NaN to 0,
 * saturated. AVX-512 in x86_avx512.c (8 doubles a step: the same double
 * operations, vrndscalepd for nearbyint), else the reference's loop. Also
 * the epilogue of mm.c's requantising form (quant_matmul_q8). */
void quant_requant_row(const int32_t *acc, int64_t n, double b, double m, int32_t z,
                       cairn_dtype_t yt, void *y, int64_t acc_max)
{
    if (quant_use_avx512() && (yt == CAIRN_U8 || yt == CAIRN_I8)) {
        quant_requant_avx512(acc, n, b, m, z, yt == CAIRN_U8, y, acc_max);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        q_store(y, yt, i, nearbyint(((double)acc[i] + b) * m) + z);
}

enum { QDQ_DEQUANTIZE, QDQ_QUANTIZE, QDQ_REQUANTIZE };

typedef struct qdq_job {
    int mode;
    cairn_dtype_t xt, yt;
    const void *x, *zp;
    const float *scale;
    void *y;
    quant_axis_t ax;
    const int32_t *bias; /* QDQ_REQUANTIZE: per channel, or NULL */
} qdq_job_t;

/* elements [c0 * QDQ_CHUNK, c1 * QDQ_CHUNK) as runs of one channel */
static void qdq_task(void *ctx, size_t c0, size_t c1, int worker)
{
    (void)worker;
    const qdq_job_t *j = ctx;
    const int64_t total = j->ax.outer * j->ax.C * j->ax.inner;
    int64_t i = (int64_t)c0 * QDQ_CHUNK;
    const int64_t e = (int64_t)c1 * QDQ_CHUNK < total ? (int64_t)c1 * QDQ_CHUNK : total;
    const cairn_dtype_t qt = j->mode == QDQ_DEQUANTIZE ? j->xt : j->yt; /* the zero point's */
    while (i < e) {
        const int64_t blk = i / j->ax.inner, c = blk % j->ax.C;
        const int64_t run = ((blk + 1) * j->ax.inner < e ? (blk + 1) * j->ax.inner : e) - i;
        if (j->mode == QDQ_REQUANTIZE) { /* one zero point for the tensor */
            quant_requant_row((const int32_t *)j->x + i, run, j->bias ? (double)j->bias[c] : 0.0,
                        (double)j->scale[c], j->zp ? q_load(j->zp, qt, 0) : 0, j->yt,
                        (char *)j->y + i, QUANT_ACC_ANY);
            i += run;
            continue;
        }
        const int32_t z = j->zp ? q_load(j->zp, qt, c) : 0;
        if (j->mode == QDQ_QUANTIZE)
            quantize_run((const float *)j->x + i, run, j->scale[c], z, j->yt,
                         (char *)j->y + i);
        else
            dequantize_run(j->xt, (const char *)j->x + i, run, z, j->scale[c],
                           (float *)j->y + i);
        i += run;
    }
}

static void qdq_run(const kctx_t *k, qdq_job_t *j)
{
    const int64_t total = j->ax.outer * j->ax.C * j->ax.inner;
    if (total <= 0 || j->ax.inner <= 0)
        return;
    const int64_t chunks = (total + QDQ_CHUNK - 1) / QDQ_CHUNK;
    base_pool_parallel_for_1d(k && k->pool && k->threads > 1 && chunks > 1 ? k->pool : NULL,
                              (size_t)chunks, 1, qdq_task, j);
}

void quant_quantize(const kctx_t *k, cairn_dtype_t xt, const void *x, const float *scale,
                    const void *zp, cairn_dtype_t yt, void *y, const quant_axis_t *ax)
{
    if (xt != CAIRN_F32 || (yt != CAIRN_U8 && yt != CAIRN_I8)) {
        quant_quantize_ref(xt, x, scale, zp, yt, y, ax);
        return;
    }
    qdq_job_t j = {QDQ_QUANTIZE, xt, yt, x, zp, scale, y, *ax, NULL};
    qdq_run(k, &j);
}

void quant_dequantize(const kctx_t *k, cairn_dtype_t xt, const void *x, const float *scale,
                      const void *zp, float *y, const quant_axis_t *ax)
{
    if (xt != CAIRN_U8 && xt != CAIRN_I8) {
        quant_dequantize_ref(xt, x, scale, zp, y, ax);
        return;
    }
    qdq_job_t j = {QDQ_DEQUANTIZE, xt, CAIRN_F32, x, zp, scale, y, *ax, NULL};
    qdq_run(k, &j);
}

void quant_requantize(const kctx_t *k, const int32_t *acc, const int32_t *bias, const float *mult,
                      const void *yzp, cairn_dtype_t yt, void *y, const quant_axis_t *ax)
{
    qdq_job_t j = {QDQ_REQUANTIZE, CAIRN_I32, yt, acc, yzp, mult, y, *ax, bias};
    qdq_run(k, &j);
}
