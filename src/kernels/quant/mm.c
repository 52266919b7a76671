/*
 * MatMulInteger / QLinearMatMul through the int8 GEMM (quant.h's
 * quant_matmul): the same results as quant_matmul_ref, bit for bit.
 *
 * The GEMM multiplies u8 by s8 (vpdpbusd where the CPU has it), so the
 * operands are brought to those types first: an i8 A becomes u8 by
 * flipping its sign bit (a' = a + 128) and a u8 B becomes s8 the same way
 * (b' = b - 128), each with its zero point moved to match (za' = za + 128,
 * zb' = zb - 128), which leaves every (a - za)(b - zb) unchanged. With
 * C = A' B' from the GEMM,
 *
 *   sum_k (a'_ik - za'_i)(b'_kj - zb'_j)
 *     = C_ij - zb'_j R_i + za'_i (K zb'_j - S_j),
 *
 * R_i = sum_k a'_ik (A's row sums), S_j = sum_k b'_kj (B's column sums,
 * needed when some za' is not 0: the GEMM computes them as one more row of
 * C, from a row of ones under A'; summing B's K x N bytes apart took 7 % of
 * a quantised MiniLM encoder): a pass over C after the GEMM, by rows on
 * the pool, which for QLinearMatMul also requantises: saturate(round(acc
 * (as bs / ys)) + yzp) with the multiplier formed in f32 and the product
 * rounded in double, as the reference does.
 *
 * Exactness: |C_ij| <= 255 * 128 * K and |acc| <= 255 * 255 * K stay
 * below 2^31 for K <= QMM_MAX_K, so the GEMM's int32 sums are exact and
 * the correction, done in wrapping 32-bit arithmetic, lands on the exact
 * value; longer K (and other types) take the reference.
 *
 * Cost beyond the GEMM: the sign flips (M K or K N bytes, only for i8 A /
 * u8 B), the row and column sums (M K + K N) and one pass over M N.
 *
 * quant_matmul_f32 (FusedMatMulInteger) makes the same sums and, in that
 * pass, multiplies them by the scales into f32 tiles that the f32 GEMM's
 * epilogue (tile_store: bias, activation, residual) stores;
 * quant_matmul_q8 (QLinearConv as FusedConvInteger requant = 1) instead
 * requantises them to 8 bits with QLinearConv's reference arithmetic. A B packed
 * ahead (quant_pack_b, the prepack pass) is flipped already and carries
 * its column sums, so neither the flip nor the ones row runs per call; an
 * A prepared ahead (quant_pack_a: a convolution's weights) is flipped and
 * carries its ones row and its row sums.
 */
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_internal.h"

#include "base/alloc.h"
#include "base/cpu.h"
#include "base/threadpool.h"
#include "kernels/gemm/gemm.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define QMM_MAX_K 32768

/* A B packed ahead by quant_pack_b, opened (qmm_packed_open) */
typedef struct qmm_packed {
    cairn_dtype_t bt;      /* its type as given */
    const int32_t *colsum; /* sum over k of each column (after the u8 flip) */
    const void *gemm;      /* gemm_s8_pack_b's buffer */
} qmm_packed_t;

typedef struct qmm_job {
    const quant_mm_params_t *p;
    const int32_t *c;    /* the GEMM's M x N sums */
    int32_t *y32;        /* MatMulInteger's output (may be c), or NULL */
    const int32_t *za;   /* za'_i (M), or NULL when every za' is 0 */
    const int32_t *rs;   /* R_i (M), or NULL when every zb' is 0 */
    const uint32_t *z1;  /* -zb'_j (N) */
    const uint32_t *z2;  /* K zb'_j - S_j (N) */
    const uint32_t *zt;  /* z2_j za' when za' is one value, else NULL */
    int z1_one;          /* every z1_j the same (zb' one value) */
    /* for qmm_col_terms and the chunked form (qmm_chunk) */
    int64_t K, Mg;       /* the GEMM's depth and rows (M, or M + 1 with a ones row) */
    int any_za;
    const struct qmm_packed *pk;
    const struct qmm_packed_a *pa;
    const int8_t *b;     /* B (s8) as the GEMM reads it */
    int flipb;           /* b is the u8 B, flipped as the GEMM packs it (gemm_u8u8s32_packed_a) */
    /* the requantising form in the GEMM's tiles (qmm_chunk_rq): its
     * constants, chunks of nrq columns, a packed-B buffer per worker */
    quant_rq_gemm_t rq;
    int64_t nrq, rq_parts; /* chunks of nrq columns; A's panels in rq_parts parts a chunk */
    uint8_t *bpk;
    size_t bpk_bytes;
    int64_t nc;          /* columns a chunk */
    int32_t *cbuf;       /* a chunk's sums per worker, Mg x nc each */
    _Atomic int failed;
    int correct;
    void *y; /* QLinearMatMul's output, NULL for MatMulInteger's (c is Y) */
    /* the dequantising form (quant_matmul_f32): f32 output, scales and the
     * f32 epilogue; work items are blocks of mr rows */
    float *yf;
    const float *scale;
    int scale_kind, mr, nr;
    int plain; /* qmm_plain: the one-pass epilogue */
    const gemm_epilogue_t *epi;
    /* the requantising form (quant_matmul_q8): 8-bit output, scale the
     * multipliers, a bias per row */
    void *yq;
    cairn_dtype_t yqt;
    const int32_t *qbias;
    int32_t qz;
} qmm_job_t;

/* round half to even as nearbyint does in the default rounding mode, for
 * |v| < 2^51 */
static inline double qmm_round(double v)
{
    const double magic = 6755399441055744.0; /* 1.5 * 2^52 */
    return (v + magic) - magic;
}

static void qmm_rows(void *ctx, size_t i0, size_t i1, int worker)
{
    (void)worker;
    const qmm_job_t *j = ctx;
    const quant_mm_params_t *p = j->p;
    const int64_t N = p->N;
    for (size_t i = i0; i < i1; i++) {
        const int32_t *c = j->c + (int64_t)i * N;
        if (j->y32) {
            int32_t *o = j->y32 + (int64_t)i * N;
            const uint32_t r = j->rs ? (uint32_t)j->rs[i] : 0, a = j->za ? (uint32_t)j->za[i] : 0;
            if (j->correct && !j->rs && j->zt)
                /* zb' all 0, one za': a column term (dynamically quantised
                 * activations against symmetric weights) */
                for (int64_t n = 0; n < N; n++)
                    o[n] = (int32_t)((uint32_t)c[n] + j->zt[n]);
            else if (j->correct)
                for (int64_t n = 0; n < N; n++)
                    o[n] = (int32_t)((uint32_t)c[n] + j->z1[n] * r + j->z2[n] * a);
            else if (o != c)
                memcpy(o, c, sizeof(int32_t) * (size_t)N);
            continue;
        }
        const uint32_t r = j->rs ? (uint32_t)j->rs[i] : 0, a = j->za ? (uint32_t)j->za[i] : 0;
        const int32_t yz = p->yzp ? q_load(p->yzp, p->yt, 0) : 0;
        const double lo = p->yt == CAIRN_U8 ? 0 : -128, hi = p->yt == CAIRN_U8 ? 255 : 127;
        const float as = p->as[p->as_vec ? (int64_t)i : 0];
        if (!p->bs_vec) {
            /* one multiplier for the row (formed in f32 as below): the
             * corrected sums a piece at a time through quant_requant_row,
             * the same double arithmetic in vector loops (the loop below,
             * a division and a scalar rounding per element, took a fifth
             * of a QOperator encoder's time in its attention products) */
            const double m = (double)(as * p->bs[0] / p->ys);
            int32_t t[512] __attribute__((aligned(64)));
            for (int64_t c0 = 0; c0 < N; c0 += 512) {
                const int64_t w = N - c0 < 512 ? N - c0 : 512;
                if (j->correct)
                    for (int64_t n = 0; n < w; n++)
                        t[n] = (int32_t)((uint32_t)c[c0 + n] + j->z1[c0 + n] * r +
                                         j->z2[c0 + n] * a);
                else
                    memcpy(t, c + c0, (size_t)w * sizeof(int32_t));
                quant_requant_row(t, w, 0.0, m, yz, p->yt, (char *)j->y + (int64_t)i * N + c0,
                                  p->K * 65025);
            }
            continue;
        }
        for (int64_t n = 0; n < N; n++) {
            const float m = as * p->bs[p->bs_vec ? n : 0] / p->ys;
            const int32_t acc =
                j->correct ? (int32_t)((uint32_t)c[n] + j->z1[n] * r + j->z2[n] * a) : c[n];
            double v = (double)acc * (double)m, rr;
            if (v != v) {
                rr = 0; /* NaN (0 times an infinite multiplier): 0, as q_store */
            } else {
                v = v < -1e15 ? -1e15 : v > 1e15 ? 1e15 : v; /* saturates either way */
                rr = qmm_round(v) + (double)yz;
                rr = rr < lo ? lo : rr > hi ? hi : rr;
            }
            if (p->yt == CAIRN_U8)
                ((uint8_t *)j->y)[(int64_t)i * N + n] = (uint8_t)rr;
            else
                ((int8_t *)j->y)[(int64_t)i * N + n] = (int8_t)rr;
        }
    }
}

/* blocks [b0, b1) of mr rows, columns [nlo, nhi) (sums: the GEMM's from
 * column nlo on, rows ldc apart): T = (float)acc * scale tile by tile (the
 * zero-point terms as in qmm_rows, each case its own loop over the tile's
 * contiguous columns so that it vectorises), then the f32 epilogue into yf */
/* The epilogue is a bias at most (no activation, residual or alpha), along
 * the scales' axis, and the zero-point terms are none or a row term plus a
 * column term: one pass over whole rows, y = (float)(acc + terms) * s + b
 * (the multiply and the add rounded apart, as T and the tile store do):
 * an 8-bit convolution's and most projections' form. */
static int qmm_plain(const qmm_job_t *j)
{
    const gemm_epilogue_t *e = j->epi;
    const int terms_ok = !j->correct || (j->zt && (!j->rs || j->z1_one));
    if (!e)
        return terms_ok;
    const int bias_ok = e->bias_kind == GEMM_BIAS_NONE ||
                        (e->bias_kind == GEMM_BIAS_ROW && j->scale_kind != QUANT_SCALE_COL) ||
                        (e->bias_kind == GEMM_BIAS_COL && j->scale_kind != QUANT_SCALE_ROW);
    return terms_ok && bias_ok && e->act == GEMM_ACT_NONE && e->post_act == GEMM_ACT_NONE &&
           !e->residual && e->scale == 1.0f;
}

static void qmm_plain_rows(const qmm_job_t *j, int64_t i0, int64_t i1, const int32_t *sums,
                           int64_t ldc, int64_t nlo, int64_t nhi)
{
    const int64_t N = j->p->N, w = nhi - nlo;
    const gemm_epilogue_t *e = j->epi;
    const int bias = e && e->bias_kind != GEMM_BIAS_NONE && e->bias;
    const int col = j->scale_kind == QUANT_SCALE_COL || (bias && e->bias_kind == GEMM_BIAS_COL);
    for (int64_t i = i0; i < i1; i++) {
        const int32_t *restrict cr = sums + i * ldc;
        float *restrict y = (float *)j->yf + i * N + nlo;
        const uint32_t rt = j->correct && j->rs ? j->z1[0] * (uint32_t)j->rs[i] : 0;
        const uint32_t *restrict zt = j->correct ? j->zt + nlo : NULL;
        if (!col) { /* one scale and bias for the row */
            const float sr = j->scale[j->scale_kind == QUANT_SCALE_ROW ? i : 0];
            const float br = bias ? e->bias[i] : 0.0f;
            if (zt && bias)
                for (int64_t c = 0; c < w; c++)
                    y[c] = (float)(int32_t)((uint32_t)cr[c] + rt + zt[c]) * sr + br;
            else if (zt)
                for (int64_t c = 0; c < w; c++)
                    y[c] = (float)(int32_t)((uint32_t)cr[c] + rt + zt[c]) * sr;
            else if (bias)
                for (int64_t c = 0; c < w; c++)
                    y[c] = (float)cr[c] * sr + br;
            else
                for (int64_t c = 0; c < w; c++)
                    y[c] = (float)cr[c] * sr;
        } else { /* scales and biases along the columns: a loop for each
                  * form, so that each vectorises */
            const int sv = j->scale_kind == QUANT_SCALE_COL;
            const float *restrict sc = j->scale + (sv ? nlo : 0);
            const float *restrict bc = bias ? e->bias + nlo : NULL;
#define QMM_COLS(ACC, SC)                                                      \
    do {                                                                       \
        if (bc)                                                                \
            for (int64_t c = 0; c < w; c++)                                    \
                y[c] = (float)(ACC) * (SC) + bc[c];                            \
        else                                                                   \
            for (int64_t c = 0; c < w; c++)                                    \
                y[c] = (float)(ACC) * (SC);                                    \
    } while (0)
            if (zt && sv)
                QMM_COLS((int32_t)((uint32_t)cr[c] + rt + zt[c]), sc[c]);
            else if (zt)
                QMM_COLS((int32_t)((uint32_t)cr[c] + rt + zt[c]), sc[0]);
            else if (sv)
                QMM_COLS(cr[c], sc[c]);
            else
                QMM_COLS(cr[c], sc[0]);
#undef QMM_COLS
        }
    }
}

/* The requantising form's rows [i0, i1), columns [nlo, nhi): the exact
 * sums (the zero-point terms as in qmm_rows), then QLinearConv's
 * requantisation of them (quant_requant_row: (acc + bias) * multiplier in
 * double, half to even, + the zero point, saturated) into the 8-bit
 * output. With AVX-512 and at most a row term and a column term (one zero
 * point each side: a convolution's), the terms are added inside the
 * requantising loop (quant_requant_cols_avx512); otherwise a piece of a
 * row at a time goes through an L1 buffer. */
static void qmm_q8_rows(const qmm_job_t *j, int64_t i0, int64_t i1, const int32_t *sums,
                        int64_t ldc, int64_t nlo, int64_t nhi)
{
    const int64_t N = j->p->N;
    int32_t t[512] __attribute__((aligned(64)));
    const int simple = j->zt && (!j->rs || j->z1_one);
    const int avx512 = quant_use_avx512() && (j->yqt == CAIRN_U8 || j->yqt == CAIRN_I8);
    for (int64_t i = i0; i < i1; i++) {
        const int32_t *restrict cr = sums + i * ldc;
        const double m = j->scale[j->scale_kind == QUANT_SCALE_ROW ? i : 0];
        const double b = j->qbias ? (double)j->qbias[i] : 0.0;
        const uint32_t rt = j->correct && j->rs ? j->z1[0] * (uint32_t)j->rs[i] : 0;
        const uint32_t rr = j->rs ? (uint32_t)j->rs[i] : 0, a = j->za ? (uint32_t)j->za[i] : 0;
        if (avx512 && (!j->correct || simple)) {
            /* the zero-point terms inside the requantising loop */
            quant_requant_cols_avx512(cr, j->correct ? (const int32_t *)(j->zt + nlo) : NULL,
                                      (int32_t)rt, nhi - nlo, b, m, j->qz, j->yqt == CAIRN_U8,
                                      (char *)j->yq + i * N + nlo, j->p->K * 65025);
            continue;
        }
        for (int64_t c0 = nlo; c0 < nhi; c0 += 512) {
            const int64_t w = nhi - c0 < 512 ? nhi - c0 : 512;
            const int32_t *restrict cc = cr + (c0 - nlo);
            if (!j->correct) {
                memcpy(t, cc, (size_t)w * sizeof(int32_t));
            } else if (simple) {
                const uint32_t *restrict zt = j->zt + c0;
                for (int64_t c = 0; c < w; c++)
                    t[c] = (int32_t)((uint32_t)cc[c] + rt + zt[c]);
            } else {
                const uint32_t *restrict z1 = j->z1 + c0, *restrict z2 = j->z2 + c0;
                for (int64_t c = 0; c < w; c++)
                    t[c] = (int32_t)((uint32_t)cc[c] + z1[c] * rr + z2[c] * a);
            }
            quant_requant_row(t, w, b, m, j->qz, j->yqt, (char *)j->yq + i * N + c0,
                              j->p->K * 65025);
        }
    }
}

static void qmm_f32_range(const qmm_job_t *j, size_t b0, size_t b1, const int32_t *sums,
                          int64_t ldc, int64_t nlo, int64_t nhi)
{
    const int64_t M = j->p->M, N = j->p->N;
    if (j->yq) {
        const int64_t i1 = (int64_t)b1 * j->mr;
        qmm_q8_rows(j, (int64_t)b0 * j->mr, i1 < M ? i1 : M, sums, ldc, nlo, nhi);
        return;
    }
    if (j->plain) {
        const int64_t i1 = (int64_t)b1 * j->mr;
        qmm_plain_rows(j, (int64_t)b0 * j->mr, i1 < M ? i1 : M, sums, ldc, nlo, nhi);
        return;
    }
    float T[16 * 32] __attribute__((aligned(64)));
    /* scales as a row of the tile's width: one value repeated (row r of
     * rowsc; per row: each row's own, filled once per block) */
    float rowsc[16][32];
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 32; c++)
            rowsc[r][c] = j->scale[0];
    for (size_t b = b0; b < b1; b++) {
        const int64_t i0 = (int64_t)b * j->mr, m = M - i0 < j->mr ? M - i0 : j->mr;
        if (j->scale_kind == QUANT_SCALE_ROW)
            for (int64_t r = 0; r < m; r++)
                for (int c = 0; c < 32; c++)
                    rowsc[r][c] = j->scale[i0 + r];
        for (int64_t n0 = nlo; n0 < nhi; n0 += j->nr) {
            const int64_t nn = nhi - n0 < j->nr ? nhi - n0 : j->nr;
            for (int64_t r = 0; r < m; r++) {
                const float *restrict sc =
                    j->scale_kind == QUANT_SCALE_COL ? j->scale + n0 : rowsc[r];
                const int32_t *restrict cr = sums + (i0 + r) * ldc + (n0 - nlo);
                float *restrict t = T + r * j->nr;
                if (!j->correct) {
                    for (int64_t c = 0; c < nn; c++)
                        t[c] = (float)cr[c] * sc[c];
                } else if (j->zt && (!j->rs || j->z1_one)) {
                    /* one za' and one zb' (or none): a row term and a
                     * column term (an 8-bit convolution's activations
                     * against its weights) */
                    const uint32_t rt = j->rs ? j->z1[0] * (uint32_t)j->rs[i0 + r] : 0;
                    const uint32_t *restrict zt = j->zt + n0;
                    for (int64_t c = 0; c < nn; c++)
                        t[c] = (float)(int32_t)((uint32_t)cr[c] + rt + zt[c]) * sc[c];
                } else {
                    const uint32_t rr = j->rs ? (uint32_t)j->rs[i0 + r] : 0;
                    const uint32_t a = j->za ? (uint32_t)j->za[i0 + r] : 0;
                    const uint32_t *restrict z1 = j->z1 + n0, *restrict z2 = j->z2 + n0;
                    for (int64_t c = 0; c < nn; c++)
                        t[c] = (float)(int32_t)((uint32_t)cr[c] + z1[c] * rr + z2[c] * a) * sc[c];
                }
            }
            gemm_f32_epilogue_tile(T, (int)m, (int)nn, j->yf + i0 * N + n0, N, j->epi, i0, n0);
        }
    }
}

static void qmm_f32_blocks(void *ctx, size_t b0, size_t b1, int worker)
{
    (void)worker;
    const qmm_job_t *j = ctx;
    qmm_f32_range(j, b0, b1, j->c, j->p->N, 0, j->p->N);
}

int quant_matmul_fast(int64_t K) { return K >= 1 && K <= QMM_MAX_K; }

/* ---- B packed ahead: [header][column sums, int32][gemm_s8_pack_b's buffer] ---- */

#define QMM_PACKED_MAGIC 0x42504d51u /* "QMPB" */
typedef struct qmm_packed_header {
    uint32_t magic;
    int32_t bt; /* B's type as given (u8: flipped to s8 in the buffer) */
    int64_t K, N;
} qmm_packed_header_t;

static size_t qmm_colsum_bytes(int64_t N) { return base_round_up((size_t)N * 4, BASE_ALIGN); }

/* The packers' arguments: an 8-bit operand (A or B: `which`) of depth K
 * within quant_matmul_fast and width W >= 1, and an aligned buffer of at
 * least `need` bytes. */
static cairn_status_t qmm_pack_args(const char *what, char which, cairn_dtype_t t, int64_t K,
                                    int64_t W, const void *src, const void *dst, size_t size,
                                    size_t need)
{
    if ((t != CAIRN_U8 && t != CAIRN_I8) || !quant_matmul_fast(K) || W < 1 || !src || !dst)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "%s: %c must be u8 or i8, K in [1, %d], %s >= 1 (got %s, K=%lld, "
                          "%s=%lld)", what, which, QMM_MAX_K, which == 'A' ? "M" : "N",
                          cairn_dtype_name(t), (long long)K, which == 'A' ? "M" : "N",
                          (long long)W);
    if (size < need || (uintptr_t)dst % BASE_ALIGN)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "%s: the buffer (%zu bytes) must hold %zu and be %d-byte aligned", what,
                          size, need, BASE_ALIGN);
    return CAIRN_OK;
}

size_t quant_packed_b_size(int64_t K, int64_t N)
{
    if (K < 0 || N < 0)
        return 0;
    return BASE_ALIGN + qmm_colsum_bytes(N) + gemm_s8_packed_b_size(K, N);
}

cairn_status_t quant_pack_b(cairn_dtype_t bt, int64_t K, int64_t N, const void *B, void *dst,
                            size_t size)
{
    BASE_TRY(qmm_pack_args("quant_pack_b", 'B', bt, K, N, B, dst, size,
                           quant_packed_b_size(K, N)));
    int8_t *b = (int8_t *)B;
    int slot = -1;
    if (bt == CAIRN_U8) { /* to s8 by its sign bit, as quant_matmul does per call */
        b = base_scratch_get((size_t)(K * N), &slot);
        if (!b)
            return base_error(CAIRN_ERR_OUT_OF_MEMORY, "quant_pack_b: no memory for %lld bytes",
                              (long long)(K * N));
        for (int64_t i = 0; i < K * N; i++)
            b[i] = (int8_t)(((const uint8_t *)B)[i] ^ 0x80u);
    }
    qmm_packed_header_t h = {QMM_PACKED_MAGIC, (int32_t)bt, K, N};
    memset(dst, 0, BASE_ALIGN);
    memcpy(dst, &h, sizeof h);
    int32_t *cs = (int32_t *)((char *)dst + BASE_ALIGN);
    for (int64_t n = 0; n < N; n++)
        cs[n] = 0;
    for (int64_t kk = 0; kk < K; kk++)
        for (int64_t n = 0; n < N; n++)
            cs[n] += b[kk * N + n];
    char *g = (char *)dst + BASE_ALIGN + qmm_colsum_bytes(N);
    cairn_status_t st = gemm_s8_pack_b(K, N, b, N, g, gemm_s8_packed_b_size(K, N));
    if (slot >= 0)
        base_scratch_put(b, slot);
    return st;
}

/* the parts of a buffer from quant_pack_b for a K x N B; NULL if it is not one */
static const qmm_packed_t *qmm_packed_open(const void *buf, int64_t K, int64_t N,
                                           qmm_packed_t *out)
{
    qmm_packed_header_t h;
    if (!buf)
        return NULL;
    memcpy(&h, buf, sizeof h);
    if (h.magic != QMM_PACKED_MAGIC || h.K != K || h.N != N)
        return NULL;
    out->bt = (cairn_dtype_t)h.bt;
    out->colsum = (const int32_t *)((const char *)buf + BASE_ALIGN);
    out->gemm = (const char *)buf + BASE_ALIGN + qmm_colsum_bytes(N);
    return out;
}


/* ---- A prepared ahead: [header][row sums, int32][gemm_u8_pack_a's buffer
 * of M + 1 rows: A' and a row of ones] ---- */

#define QMM_PACKED_A_MAGIC 0x41504d51u /* "QMPA" */
typedef struct qmm_packed_a {
    cairn_dtype_t at;      /* its type as given */
    const int32_t *rowsum; /* sum over k of each row of A' */
    const void *gemm;      /* A' (u8) and a row of ones, packed for the GEMM */
} qmm_packed_a_t;

size_t quant_packed_a_size(int64_t M, int64_t K)
{
    if (M < 0 || K < 0)
        return 0;
    return BASE_ALIGN + qmm_colsum_bytes(M) + gemm_u8_packed_a_size(M + 1, K);
}

cairn_status_t quant_pack_a(cairn_dtype_t at, int64_t M, int64_t K, const void *A, void *dst,
                            size_t size)
{
    BASE_TRY(qmm_pack_args("quant_pack_a", 'A', at, K, M, A, dst, size,
                           quant_packed_a_size(M, K)));
    int slot;
    uint8_t *a = base_scratch_get((size_t)((M + 1) * K), &slot);
    if (!a)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "quant_pack_a: no memory for %lld bytes",
                          (long long)((M + 1) * K));
    qmm_packed_header_t h = {QMM_PACKED_A_MAGIC, (int32_t)at, M, K};
    memset(dst, 0, BASE_ALIGN);
    memcpy(dst, &h, sizeof h);
    int32_t *rs = (int32_t *)((char *)dst + BASE_ALIGN);
    const uint8_t flip = at == CAIRN_I8 ? 0x80u : 0;
    for (int64_t i = 0; i < M; i++) {
        int32_t sum = 0;
        for (int64_t kk = 0; kk < K; kk++)
            sum += a[i * K + kk] = (uint8_t)(((const uint8_t *)A)[i * K + kk] ^ flip);
        rs[i] = sum;
    }
    memset(a + M * K, 1, (size_t)K);
    char *g = (char *)dst + BASE_ALIGN + qmm_colsum_bytes(M);
    cairn_status_t st = gemm_u8_pack_a(M + 1, K, a, K, g, gemm_u8_packed_a_size(M + 1, K));
    base_scratch_put(a, slot);
    return st;
}

/* the parts of a buffer from quant_pack_a for an M x K A; NULL if it is not one */
static const qmm_packed_a_t *qmm_packed_a_open(const void *buf, int64_t M, int64_t K,
                                               qmm_packed_a_t *out)
{
    qmm_packed_header_t h;
    if (!buf)
        return NULL;
    memcpy(&h, buf, sizeof h);
    if (h.magic != QMM_PACKED_A_MAGIC || h.K != M || h.N != K ||
        (h.bt != CAIRN_U8 && h.bt != CAIRN_I8))
        return NULL;
    out->at = (cairn_dtype_t)h.bt;
    out->rowsum = (const int32_t *)((const char *)buf + BASE_ALIGN);
    out->gemm = (const char *)buf + BASE_ALIGN + qmm_colsum_bytes(M);
    return out;
}

static size_t qmm_up(size_t b) { return base_round_up(b, BASE_ALIGN); }

/* The f32 form's pass over the reference's sums (K past QMM_MAX_K):
 * through a scratch int32 product. */
static cairn_status_t qmm_f32_via_ref(const kctx_t *k, const qmm_job_t *f, const void *A,
                                      const void *B)
{
    const quant_mm_params_t *p = f->p;
    int slot;
    int32_t *c = base_scratch_get((size_t)(p->M * p->N) * sizeof(int32_t), &slot);
    if (!c)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY,
                          "quantised matmul: no memory for a %lld x %lld int32 product",
                          (long long)p->M, (long long)p->N);
    quant_mm_params_t q = *p;
    q.yt = CAIRN_DTYPE_UNDEFINED;
    cairn_status_t st = quant_matmul_ref(&q, A, B, c);
    if (st == CAIRN_OK) {
        qmm_job_t j = *f;
        j.c = c;
        j.correct = 0;
        const size_t blocks = (size_t)((p->M + j.mr - 1) / j.mr);
        base_pool_parallel_for_1d(k && k->pool && k->threads > 1 ? k->pool : NULL, blocks, 1,
                                  qmm_f32_blocks, &j);
    }
    base_scratch_put(c, slot);
    return st;
}

/* z2 (K zb' - S_j, S_j from the packed B or the ones row of the sums) and
 * zt (z2 za' when za' is one value) for columns [n0, n1); sums: the GEMM's
 * from column n0 on, rows ldc apart */
static void qmm_col_terms(const qmm_job_t *j, const int32_t *sums, int64_t ldc, int64_t n0,
                          int64_t n1)
{
    const int64_t M = j->p->M;
    uint32_t *z2 = (uint32_t *)j->z2, *zt = (uint32_t *)j->zt;
    for (int64_t n = n0; n < n1; n++) {
        const uint32_t zb = 0u - j->z1[n];
        const uint32_t sj = !j->any_za ? 0u
                            : j->pk    ? (uint32_t)j->pk->colsum[n]
                                       : (uint32_t)sums[M * ldc + (n - n0)];
        z2[n] = (uint32_t)j->K * zb - sj;
        if (zt)
            zt[n] = z2[n] * (uint32_t)j->za[0];
    }
}

/* the product of the prepared A and columns of B starting at b, N' wide */
static cairn_status_t qmm_gemm_pa(const qmm_job_t *j, const kctx_t *k, int64_t n, const int8_t *b,
                                  int32_t *c, int64_t ldc)
{
    return j->flipb ? gemm_u8u8s32_packed_a(k, j->Mg, n, j->K, j->pa->gemm,
                                            (const uint8_t *)b, j->p->N, c, ldc)
                    : gemm_u8s8s32_packed_a(k, j->Mg, n, j->K, j->pa->gemm, b, j->p->N, c, ldc);
}

/* chunk t of the convolution's form: columns [t nc, ...) multiplied on
 * this thread into its worker's buffer, then their terms and epilogue */
static void qmm_chunk(void *ctx, size_t t0, size_t t1, int worker)
{
    qmm_job_t *j = ctx;
    const int64_t N = j->p->N;
    int32_t *sums = j->cbuf + (size_t)worker * (size_t)(j->Mg * j->nc);
    const kctx_t one = {NULL, 1};
    for (size_t t = t0; t < t1; t++) {
        const int64_t n0 = (int64_t)t * j->nc, w = N - n0 < j->nc ? N - n0 : j->nc;
        if (qmm_gemm_pa(j, &one, w, j->b + n0, sums, w) != CAIRN_OK) {
            atomic_store(&j->failed, 1);
            return;
        }
        qmm_col_terms(j, sums, w, n0, n0 + w);
        qmm_f32_range(j, 0, (size_t)((j->p->M + j->mr - 1) / j->mr), sums, w, n0, n0 + w);
    }
}

/* chunk t of the requantising convolution's form in the GEMM's tiles:
 * columns [t nrq, ...) of B packed into this worker's panels, then each
 * 32-column panel against all of A's, requantised from the registers
 * (quant_rq_gemm_vnni): the int32 sums never go to memory */
static void qmm_chunk_rq(void *ctx, size_t t0, size_t t1, int worker)
{
    const qmm_job_t *j = ctx;
    const int64_t N = j->p->N, panels = (j->Mg + 13) / 14;
    uint8_t *bp = j->bpk + (size_t)worker * j->bpk_bytes;
    for (size_t t = t0; t < t1; t++) {
        /* task t: chunk t / parts, A's panels of part t % parts */
        const int64_t c = (int64_t)t / j->rq_parts, part = (int64_t)t % j->rq_parts;
        const int64_t n0 = c * j->nrq, w = N - n0 < j->nrq ? N - n0 : j->nrq;
        const int64_t p0 = panels * part / j->rq_parts, p1 = panels * (part + 1) / j->rq_parts;
        gemm_s8_pack_b_panels(j->b + n0, N, j->K, w, j->flipb ? 0x80u : 0, bp);
        for (int64_t q = 0; q < w; q += 32)
            quant_rq_gemm_vnni(&j->rq, bp + q * j->rq.kcp, (int)(w - q < 32 ? w - q : 32),
                               (uint8_t *)j->yq + n0 + q, N, p0, p1);
    }
}

/* The requantising convolution's chunk on several threads, in 32-column
 * panels: the c (at most maxc, what fits the L2 budget, and at least two
 * chunks a thread) whose busiest thread has the least work, the chunks
 * dealt out in turn (the pool's threads claim them in order), a last
 * panel of at most 16 columns counting half (it runs one vector a row);
 * equal work goes to the larger c. Two chunks a thread alone, as it was,
 * cut 3136 columns (56x56) into 7 of 14 panels, 4 against 3 on 2
 * threads, and 196 (14x14) into 64 + 64 + 64 + 4 columns: ResNet-50's
 * 8-bit 3x3s ran 1.5-1.7x faster on 2 threads than on 1. */
static int64_t qmm_rq_chunk(int64_t N, int64_t maxc, int workers)
{
    const int64_t np = (N + 31) / 32, half = N % 32 > 0 && N % 32 <= 16;
    int64_t best = -1, bc = 1;
    /* at least two chunks a thread, so that one held up is covered */
    const int64_t two = (np + 2 * workers - 1) / (2 * workers);
    maxc = maxc > two ? two : maxc;
    maxc = maxc < 1 ? 1 : maxc;
    for (int64_t c = maxc; c >= 1; c--) {
        /* in half-panel units: t chunks, the last of r panels; thread j
         * takes chunks j, j + w, ...: the first g threads ceil(t / w) of
         * them, the last of these the last chunk */
        const int64_t w = workers, t = (np + c - 1) / c, r = np - (t - 1) * c;
        const int64_t most = (t + w - 1) / w, g = t % w ? t % w : w;
        int64_t span = 2 * c * (most - 1) + 2 * r - half; /* the last chunk's thread */
        if (g >= 2 && 2 * c * most > span)
            span = 2 * c * most;
        if (2 * c * (most - 1) > span)
            span = 2 * c * (most - 1);
        if (best < 0 || span < best)
            best = span, bc = c;
    }
    return bc;
}

/* quant_matmul, or with f (its yf, scale, epi, mr, nr set) quant_matmul_f32 */
static cairn_status_t qmm(const kctx_t *k, const quant_mm_params_t *p, const void *A,
                          const void *B, void *Y, const qmm_job_t *f)
{
    const int64_t M = p->M, K = p->K, N = p->N;
    /* A prepared ahead (quant_pack_a): flipped, its ones row and row sums
     * there; p->at is then the type it was given as */
    qmm_packed_a_t pa_;
    const qmm_packed_a_t *pa = NULL;
    quant_mm_params_t q;
    if (p->a_packed && M > 0 && N > 0) {
        if (!(pa = qmm_packed_a_open(A, M, K, &pa_)))
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "quantised matmul: A is not a buffer from quant_pack_a for %lld x "
                              "%lld", (long long)M, (long long)K);
        q = *p;
        q.at = pa->at;
        p = &q;
    }
    const int types_ok = (p->at == CAIRN_U8 || p->at == CAIRN_I8) &&
                         (p->bt == CAIRN_U8 || p->bt == CAIRN_I8) &&
                         (p->yt == CAIRN_DTYPE_UNDEFINED || p->yt == CAIRN_U8 ||
                          p->yt == CAIRN_I8);
    if (M <= 0 || N <= 0)
        return CAIRN_OK;
    if ((!quant_matmul_fast(K) || !types_ok) && (p->b_packed || pa)) /* the packers refuse */
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "quantised matmul: a packed %s with K=%lld or these types cannot run",
                          pa ? "A" : "B", (long long)K);
    if (!quant_matmul_fast(K) || !types_ok)
        return f ? qmm_f32_via_ref(k, f, A, B) : quant_matmul_ref(p, A, B, Y);
    /* B packed ahead (quant_pack_b): flipped already, its column sums kept */
    const qmm_packed_t *pk = p->b_packed;
    if (pa && pk)
        return base_error(CAIRN_ERR_UNSUPPORTED,
                          "quantised matmul: A and B cannot both come packed ahead");
    /* a u8 B flipped to s8: by a copy, or as the GEMM packs it when A is
     * prepared (gemm_u8u8s32_packed_a) */
    const int flip_a = p->at == CAIRN_I8, shift_b = p->bt == CAIRN_U8;
    const int flip_b = shift_b && !pk && !pa, flip_in_pack = shift_b && pa;
    const int out32 = p->yt == CAIRN_DTYPE_UNDEFINED && !f;
    /* the zero points in the operands' new domains decide what is needed:
     * B's column sums (a row of ones under A', or the packed B's) when
     * some za' is not 0 */
    int any_za = 0;
    for (int64_t i = 0; i < M && !any_za; i++)
        any_za = (p->azp ? q_load(p->azp, p->at, p->azp_vec ? i : 0) : 0) + (flip_a ? 128 : 0) != 0;
    const int ones = (any_za && !pk) || pa; /* a prepared A has its ones row */
    const int64_t Mg = M + ones; /* the GEMM's rows */
    const int copy_a = (flip_a || ones) && !pa, own_c = !out32 || ones || f;
    const size_t sa = copy_a ? qmm_up((size_t)(Mg * K)) : 0;
    const size_t sb = flip_b ? qmm_up((size_t)(K * N)) : 0;
    /* the dequantising form with A prepared (a convolution: W x im2col)
     * whose int32 sums would leave L2: column chunks whose sums stay in
     * the worker's L2 (nc columns, a multiple of 64, half of L2), one per
     * task, when there are at least two */
    const int workers = k && k->pool && k->threads > 1 ? base_pool_threads(k->pool) : 1;
    const size_t l2 = base_cpu()->l2 ? base_cpu()->l2 : 1024 * 1024;
    int64_t nc = (int64_t)(l2 / 2 / ((size_t)Mg * sizeof(int32_t))) / 64 * 64;
    nc = nc < 64 ? 64 : nc;
    /* the requantising form of a convolution (A prepared, one K block for
     * the VNNI kernel, one zero point each side, multipliers below 1/2 and
     * biases that keep the sums in int32: quant_rq_gemm_vnni's conditions)
     * requantises in the GEMM's tiles, in chunks of nrq columns (B's
     * panels a quarter of L2; on several threads small enough for two
     * chunks a thread, down to one 32-column panel, the rows split below
     * where that is still too few) */
    int64_t kcp = 0, nrq = 0;
    const uint8_t *apn = f && f->yq && pa && !p->bzp_vec && !pk
                             ? gemm_u8_packed_a_panels(pa->gemm, Mg, K, &kcp)
                             : NULL;
    int fused = apn != NULL;
    const int32_t za0 = (p->azp ? q_load(p->azp, p->at, 0) : 0) + (flip_a ? 128 : 0);
    for (int64_t i = 0; fused && i < M; i++) {
        const float m = f->scale[f->scale_kind == QUANT_SCALE_ROW ? i : 0];
        const int64_t bi = f->qbias ? llabs((long long)f->qbias[i]) : 0;
        const int32_t zai = (p->azp ? q_load(p->azp, p->at, p->azp_vec ? i : 0) : 0) +
                            (flip_a ? 128 : 0);
        fused = fabsf(m) < 0.5f && (double)K * 65025.0 + (double)bi < 2147483648.0 &&
                (zai == za0 || !any_za);
    }
    if (fused) {
        nrq = (int64_t)(l2 / 4 / (size_t)kcp) / 32 * 32;
        nrq = nrq < 32 ? 32 : nrq;
        if (workers > 1)
            nrq = 32 * qmm_rq_chunk(N, nrq / 32, workers);
    }
    const int chunked = !fused && f && pa && N >= 2 * nc;
    const size_t sc = fused    ? qmm_up((size_t)(kcp * nrq * workers))
                      : !own_c ? 0
                      : chunked ? qmm_up((size_t)(Mg * nc * workers) * sizeof(int32_t))
                                : qmm_up((size_t)(Mg * N) * sizeof(int32_t));
    const size_t sm = qmm_up((size_t)(2 * M) * sizeof(int32_t));
    const size_t sv = sm + qmm_up((size_t)(3 * N) * sizeof(uint32_t));
    int slot;
    char *ws = base_scratch_get(sa + sb + sc + sv, &slot);
    if (!ws && pk)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY,
                          "quantised matmul: no memory for %zu bytes of scratch",
                          sa + sb + sc + sv);
    if (!ws) /* the reference needs no scratch but a row */
        return f ? qmm_f32_via_ref(k, f, A, B) : quant_matmul_ref(p, A, B, Y);
    uint8_t *a = copy_a ? (uint8_t *)ws : (uint8_t *)A; /* not read when pa */
    int8_t *b = flip_b ? (int8_t *)(ws + sa) : (int8_t *)B;
    int32_t *c = own_c ? (int32_t *)(ws + sa + sb) : (int32_t *)Y;
    int32_t *za = (int32_t *)(ws + sa + sb + sc), *rs = za + M;
    uint32_t *z1 = (uint32_t *)(ws + sa + sb + sc + sm), *z2 = z1 + N, *zt = z2 + N;
    if (copy_a) {
        const uint8_t flip = flip_a ? 0x80u : 0;
        for (int64_t i = 0; i < M * K; i++)
            a[i] = (uint8_t)(((const uint8_t *)A)[i] ^ flip);
        if (ones)
            memset(a + M * K, 1, (size_t)K);
    }
    if (flip_b)
        for (int64_t i = 0; i < K * N; i++)
            b[i] = (int8_t)(((const uint8_t *)B)[i] ^ 0x80u);
    /* the zero-point terms that do not need the product: za', zb' (z1), A's
     * row sums */
    int any_zb = 0;
    for (int64_t i = 0; i < M; i++)
        za[i] = (p->azp ? q_load(p->azp, p->at, p->azp_vec ? i : 0) : 0) + (flip_a ? 128 : 0);
    if (p->bzp_vec) {
        for (int64_t n = 0; n < N; n++) {
            const int32_t zb = q_load(p->bzp, p->bt, n) - (shift_b ? 128 : 0);
            any_zb |= zb != 0;
            z1[n] = 0u - (uint32_t)zb;
        }
    } else { /* one zero point: a fill (q_load a column was 2-3 % of an 8-bit CNN) */
        const int32_t zb = (p->bzp ? q_load(p->bzp, p->bt, 0) : 0) - (shift_b ? 128 : 0);
        any_zb = zb != 0;
        for (int64_t n = 0; n < N; n++)
            z1[n] = 0u - (uint32_t)zb;
    }
    if (any_zb && pa)
        memcpy(rs, pa->rowsum, sizeof(int32_t) * (size_t)M);
    else if (any_zb)
        for (int64_t i = 0; i < M; i++) {
            int32_t s = 0;
            for (int64_t kk = 0; kk < K; kk++)
                s += a[i * K + kk];
            rs[i] = s;
        }
    int one_za = any_za;
    for (int64_t i = 1; i < M && one_za; i++)
        one_za = za[i] == za[0];
    qmm_job_t j;
    if (f)
        j = *f;
    else
        memset(&j, 0, sizeof j);
    j.p = p, j.c = c, j.y32 = out32 ? (int32_t *)Y : NULL;
    j.za = any_za ? za : NULL, j.rs = any_zb ? rs : NULL;
    j.z1 = z1, j.z2 = z2, j.zt = one_za ? zt : NULL, j.correct = any_za || any_zb;
    j.z1_one = !p->bzp_vec;
    j.y = out32 || f ? NULL : Y;
    j.K = K, j.Mg = Mg, j.any_za = any_za, j.pk = pk, j.b = b, j.flipb = flip_in_pack;
    j.plain = f && qmm_plain(&j);
    const int threads = k && k->pool && M * N >= 16384 ? k->threads : 1;
    base_pool_t *pool = threads > 1 ? k->pool : NULL;
    cairn_status_t st = CAIRN_OK;
    if (fused) {
        quant_rq_gemm_t *g = &j.rq;
        g->ap = apn, g->kcp = kcp, g->M = M, g->Mg = Mg;
        g->mult = f->scale, g->mult_vec = f->scale_kind == QUANT_SCALE_ROW;
        g->bias = f->qbias, g->rs = j.rs, g->z1 = z1[0];
        g->kzb = (uint32_t)K * (0u - z1[0]), g->za = any_za ? za0 : 0;
        g->z = f->qz, g->y_u8 = f->yqt == CAIRN_U8;
        j.nrq = nrq, j.bpk = (uint8_t *)c, j.bpk_bytes = (size_t)(kcp * nrq);
        /* too few chunks for two tasks a thread (a 7x7 plane is 49
         * columns): each chunk's rows in parts, every part computing the
         * panel of the ones row for its column terms */
        const int64_t chunks = (N + nrq - 1) / nrq, panels = (Mg + 13) / 14;
        int64_t parts = workers > 1 && chunks < 2 * workers ? (2 * workers + chunks - 1) / chunks : 1;
        parts = parts > panels / 2 ? (panels / 2 > 1 ? panels / 2 : 1) : parts;
        j.rq_parts = parts;
        /* parallel by the work (as the GEMM's driver decides), not by
         * M N: a 7x7 layer's 160 x 49 x 960 is 7.5 M multiply-adds */
        const int par = workers > 1 && (double)M * (double)N * (double)K >= 262144.0;
        base_pool_parallel_for_1d(par ? k->pool : NULL, (size_t)(chunks * parts), 1,
                                  qmm_chunk_rq, &j);
    } else if (chunked) {
        /* the convolution's form: column chunks, each multiplied and
         * dequantised by one task while its sums are in that core's L2 */
        j.pa = pa, j.nc = nc, j.cbuf = c;
        base_pool_parallel_for_1d(pool, (size_t)((N + nc - 1) / nc), 1, qmm_chunk, &j);
        if (j.failed) /* the one way a chunk's GEMM fails: its header check */
            st = base_error(CAIRN_ERR_INVALID_ARGUMENT,
                            "quantised matmul: A's packed panels were not made by this "
                            "process's int8 kernel (gemm_u8_pack_a)");
    } else {
        j.pa = pa;
        st = pa   ? qmm_gemm_pa(&j, k, N, b, c, N)
             : pk ? gemm_u8s8s32_packed(k, M, N, K, a, K, pk->gemm, c, N)
                  : (gemm_u8s8s32(k, 0, 0, Mg, N, K, a, K, b, N, c, N, 0), CAIRN_OK);
        if (st == CAIRN_OK) {
            qmm_col_terms(&j, c, N, 0, N);
            if (f)
                base_pool_parallel_for_1d(pool, (size_t)((M + j.mr - 1) / j.mr), 1,
                                          qmm_f32_blocks, &j);
            else if (j.correct || !j.y32 || j.y32 != j.c)
                base_pool_parallel_for_1d(pool, (size_t)M, 0, qmm_rows, &j);
        }
    }
    base_scratch_put(ws, slot);
    return st;
}

cairn_status_t quant_matmul(const kctx_t *k, const quant_mm_params_t *p, const void *A,
                            const void *B, void *Y)
{
    return qmm(k, p, A, B, Y, NULL);
}

/* a B from quant_pack_b opened into *pk, p copied to *q with it */
static cairn_status_t qmm_with_packed_b(const char *what, const quant_mm_params_t *p,
                                        const void *B, qmm_packed_t *pk, quant_mm_params_t *q)
{
    *q = *p;
    if (!qmm_packed_open(B, p->K, p->N, pk))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "%s: B is not a buffer from quant_pack_b for %lld x %lld", what,
                          (long long)p->K, (long long)p->N);
    q->b_packed = pk;
    q->bt = pk->bt;
    return CAIRN_OK;
}

/* The dequantising and requantising forms' common start: B opened when
 * it is quant_pack_b's buffer, f (its output fields set) given the
 * params and the f32 tile's dimensions, then qmm */
static cairn_status_t qmm_form(const kctx_t *k, const char *what, const quant_mm_params_t *p,
                               const void *A, const void *B, int b_packed, qmm_job_t *f)
{
    qmm_packed_t pk;
    quant_mm_params_t q;
    if (b_packed) {
        BASE_TRY(qmm_with_packed_b(what, p, B, &pk, &q));
        p = &q;
    }
    f->p = p;
    gemm_f32_epilogue_tile_dims(&f->mr, &f->nr);
    if (f->mr > 16 || f->nr > 32)
        return base_error(CAIRN_ERR_UNSUPPORTED, "%s: an f32 tile of %d x %d", what, f->mr,
                          f->nr);
    return qmm(k, p, A, B, NULL, f);
}

cairn_status_t quant_matmul_q8(const kctx_t *k, const quant_mm_params_t *p, const void *A,
                               const void *B, int b_packed, const float *mult, int mult_kind,
                               const int32_t *bias, const void *yzp, cairn_dtype_t yt, void *Y)
{
    if (p->yt != CAIRN_DTYPE_UNDEFINED || !mult || !Y ||
        (mult_kind != QUANT_SCALE_ONE && mult_kind != QUANT_SCALE_ROW) ||
        (yt != CAIRN_U8 && yt != CAIRN_I8))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "quant_matmul_q8: multipliers one or per row, a u8 / i8 output (yt), "
                          "p->yt undefined and an output buffer are needed");
    qmm_job_t f;
    memset(&f, 0, sizeof f);
    f.scale = mult, f.scale_kind = mult_kind;
    f.yq = Y, f.yqt = yt, f.qbias = bias, f.qz = yzp ? q_load(yzp, yt, 0) : 0;
    return qmm_form(k, "quant_matmul_q8", p, A, B, b_packed, &f);
}

cairn_status_t quant_matmul_f32(const kctx_t *k, const quant_mm_params_t *p, const void *A,
                                const void *B, int b_packed, const float *scale, int scale_kind,
                                const gemm_epilogue_t *epi, float *Y)
{
    if (p->yt != CAIRN_DTYPE_UNDEFINED || !scale || scale_kind < QUANT_SCALE_ONE ||
        scale_kind > QUANT_SCALE_ROW)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "quant_matmul_f32: no requantisation (yt must be undefined) and a "
                          "scale is needed");
    qmm_job_t f;
    memset(&f, 0, sizeof f);
    f.yf = Y, f.scale = scale, f.scale_kind = scale_kind, f.epi = epi;
    return qmm_form(k, "quant_matmul_f32", p, A, B, b_packed, &f);
}
