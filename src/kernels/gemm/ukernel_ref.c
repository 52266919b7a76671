/*
 * The portable f32 micro-kernel (4 x 16 tile, plain C), the variant used
 * when CAIRN_ISA=ref or the CPU has no AVX2. It follows the same tile
 * contract as the vector kernels (gemm_f32_internal.h) and accumulates in
 * f32 in k order, like them. The fixed-size accumulator lets the compiler
 * vectorise it for the baseline ISA.
 */
#include "kernels/gemm/gemm_f32_internal.h"

#define MR 4
#define NR 16

void gemm_f32_ukernel_ref_4x16(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                               const float *B, int64_t ldb, float *C, int64_t ldc, int m, int n,
                               float alpha, float beta, const gemm_tile_epi_t *e)
{
    float acc[MR][NR] = {{0}};
    if (rs_a == 0) { /* packed panels */
        rs_a = 1;
        cs_a = MR;
    }
    for (int64_t k = 0; k < kc; k++) {
        const float *b = B + k * ldb;
        float bk[NR] = {0};
        for (int c = 0; c < n; c++)
            bk[c] = b[c];
        for (int r = 0; r < m; r++) {
            float a = A[r * rs_a + k * cs_a];
            for (int c = 0; c < NR; c++)
                acc[r][c] += a * bk[c];
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
            }
            *cp = v;
        }
    }
}
