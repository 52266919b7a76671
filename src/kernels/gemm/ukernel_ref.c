/*
 * The portable f32 micro-kernel (4 x 8 tile, plain C), the variant used
 * when CAIRN_ISA=ref or the CPU has no AVX2. It follows the same tile
 * contract as the vector kernels (gemm_f32_internal.h) and accumulates in
 * f32 in k order, like them. The fixed-size accumulator lets the compiler
 * vectorise it for the baseline ISA.
 */
#include "kernels/gemm/gemm_f32_internal.h"
#include "kernels/gemm/smallm_generic.h"

#define MR 4
#define NR 8 /* 4 x 8 accumulators + a B row fit the 16 baseline xmm registers */

void gemm_f32_ukernel_ref_4x8(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                              const float *B, int64_t ldb, float *C, int64_t ldc, int m, int n,
                              float alpha, float beta, const gemm_tile_epi_t *e)
{
    float acc[MR][NR] = {{0}};
    if (rs_a == 0) {
        /* packed, zero-padded panels: fixed trip counts the compiler vectorises */
        for (int64_t k = 0; k < kc; k++) {
            const float *a = A + k * MR, *b = B + k * NR;
            for (int r = 0; r < MR; r++)
                for (int c = 0; c < NR; c++)
                    acc[r][c] += a[r] * b[c];
        }
    } else {
        /* unpacked: rows past m read row m-1 and columns past n read as 0,
         * so nothing outside the matrices is touched */
        const float *ar[MR];
        for (int r = 0; r < MR; r++)
            ar[r] = A + (r < m ? r : m - 1) * rs_a;
        for (int64_t k = 0; k < kc; k++) {
            const float *b = B + k * ldb;
            float bk[NR];
            for (int c = 0; c < NR; c++)
                bk[c] = c < n ? b[c] : 0.0f;
            for (int r = 0; r < MR; r++) {
                float a = ar[r][k * cs_a];
                for (int c = 0; c < NR; c++)
                    acc[r][c] += a * bk[c];
            }
        }
    }
    for (int r = 0; r < m; r++) {
        for (int c = 0; c < n; c++) {
            float *cp = C + r * ldc + c;
            float v = alpha * acc[r][c];
            if (beta != 0.0f)
                v += beta * *cp;
            if (e) {
                if (e->bias_row)
                    v += e->bias_row[r];
                if (e->bias_col)
                    v += e->bias_col[c];
                v = gemm_act_apply_f32(e->act, v, e->lo, e->hi);
                v *= e->scale;
                if (e->res)
                    v += e->res[r * e->ldr + c];
                v = gemm_act_apply_f32(e->post_act, v, e->post_lo, e->post_hi);
            }
            *cp = v;
        }
    }
}

static float indb_clamp(int kind, float v, float lo, float hi)
{
    if (kind >= 1)
        v = v > lo ? v : lo; /* NaN -> lo, as vmaxps(v, lo) */
    if (kind == 2)
        v = v < hi ? v : hi;
    return v;
}

void gemm_f32_indb_ref_4x8(int64_t kc, const float *A, const float *B, const int64_t *off,
                           float *T, int acc, const gemm_indb_epi_t *ep)
{
    float t[MR][NR];
    for (int r = 0; r < MR; r++)
        for (int c = 0; c < NR; c++)
            t[r][c] = acc ? T[r * NR + c] : 0.0f;
    for (int64_t k = 0; k < kc; k++) {
        const float *a = A + k * MR, *b = B + off[k];
        for (int r = 0; r < MR; r++)
            for (int c = 0; c < NR; c++)
                t[r][c] += a[r] * b[c];
    }
    if (ep) {
        for (int r = 0; r < MR; r++) {
            float *c = (float *)((char *)ep->C + r * ep->ldc_bytes);
            const float *res =
                ep->res ? (const float *)((const char *)ep->res + r * ep->ldr_bytes) : NULL;
            for (int j = 0; j < NR; j++) {
                float v = t[r][j] + (ep->acc_c ? c[j] : 0.0f);
                v += ep->bias ? ep->bias[r] : 0.0f;
                if (ep->bcol)
                    v += ep->bcol[j];
                v = indb_clamp(ep->act, v, ep->lo, ep->hi);
                if (res)
                    v += res[j];
                c[j] = indb_clamp(ep->post, v, ep->plo, ep->phi);
            }
        }
        return;
    }
    for (int r = 0; r < MR; r++)
        for (int c = 0; c < NR; c++)
            T[r * NR + c] = t[r][c];
}

void gemm_f32_tile_store_ref_4x8(const float *T, int m, int n, float *C, int64_t ldc,
                                 const gemm_tile_epi_t *e)
{
    for (int r = 0; r < m; r++)
        for (int c = 0; c < n; c++) {
            float v = T[r * NR + c];
            if (e) {
                if (e->bias_row)
                    v += e->bias_row[r];
                if (e->bias_col)
                    v += e->bias_col[c];
                v = gemm_act_apply_f32(e->act, v, e->lo, e->hi) * e->scale;
                if (e->res)
                    v += e->res[r * e->ldr + c];
                v = gemm_act_apply_f32(e->post_act, v, e->post_lo, e->post_hi);
            }
            C[r * ldc + c] = v;
        }
}

void gemm_f32_inda_ref_4x8(int64_t kc, const float *const *px, const int64_t *off,
                           const float *Bp, float *T, int acc)
{
    float t[MR][NR];
    for (int r = 0; r < MR; r++)
        for (int c = 0; c < NR; c++)
            t[r][c] = acc ? T[r * NR + c] : 0.0f;
    for (int64_t k = 0; k < kc; k++) {
        const float *b = Bp + k * NR;
        for (int r = 0; r < MR; r++) {
            const float a = px[r][off[k]];
            for (int c = 0; c < NR; c++)
                t[r][c] += a * b[c];
        }
    }
    for (int r = 0; r < MR; r++)
        for (int c = 0; c < NR; c++)
            T[r * NR + c] = t[r][c];
}

void gemm_f32_tile_store_t_ref_4x8(const float *T, int npx, int nch, float *C, int64_t ldc,
                                   const gemm_tile_epi_t *e)
{
    for (int r = 0; r < npx; r++)
        for (int c = 0; c < nch; c++) {
            float v = T[r * NR + c];
            if (e) {
                if (e->bias_row)
                    v += e->bias_row[c];
                v = gemm_act_apply_f32(e->act, v, e->lo, e->hi) * e->scale;
                if (e->res)
                    v += e->res[c * e->ldr + r];
                v = gemm_act_apply_f32(e->post_act, v, e->post_lo, e->post_hi);
            }
            C[c * ldc + r] = v;
        }
}

void gemm_f32_smallm_ref(int m, int64_t n, int64_t K, float alpha, const float *A, int64_t rs_a,
                         int64_t cs_a, const float *B, int64_t ldb, float beta, float *C,
                         int64_t ldc)
{
    smallm_generic(m, n, K, alpha, A, rs_a, cs_a, B, ldb, beta, C, ldc);
}
