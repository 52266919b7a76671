/*
 * Packing for the f32 GEMM: copies a block of op(A) into MR-row panels and
 * a block of op(B) into NR-column panels, in the order the micro-kernel
 * reads them (one k step = MR or NR consecutive floats), zero-padding the
 * last panel so the kernel never needs a bounds check on packed data.
 * Layouts are described in gemm_f32_internal.h.
 */
#include "kernels/gemm/gemm_f32_internal.h"

#include <string.h>

void gemm_f32_pack_a(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0, int64_t mc,
                     int64_t kc, int mr, float *dst)
{
    for (int64_t q = 0; q < mc; q += mr) {
        int64_t rows = mc - q < mr ? mc - q : mr;
        float *d = dst + q * kc;
        if (transA) {
            /* op(A)(i, k) = A[k*lda + i]: each k step is a contiguous run of rows */
            const float *s = A + p0 * lda + i0 + q;
            for (int64_t k = 0; k < kc; k++) {
                const float *sk = s + k * lda;
                float *dk = d + k * mr;
                int64_t r = 0;
                for (; r < rows; r++)
                    dk[r] = sk[r];
                for (; r < mr; r++)
                    dk[r] = 0.0f;
            }
        } else {
            /* op(A)(i, k) = A[i*lda + k]: interleave `rows` row streams */
            const float *s = A + (i0 + q) * lda + p0;
            if (rows == mr) {
                for (int64_t k = 0; k < kc; k++)
                    for (int r = 0; r < mr; r++)
                        d[k * mr + r] = s[r * lda + k];
            } else {
                for (int64_t k = 0; k < kc; k++) {
                    int64_t r = 0;
                    for (; r < rows; r++)
                        d[k * mr + r] = s[r * lda + k];
                    for (; r < mr; r++)
                        d[k * mr + r] = 0.0f;
                }
            }
        }
    }
}

void gemm_f32_pack_b_block(int transB, const float *B, int64_t ldb, int64_t p0, int64_t j0,
                           int64_t kc, int64_t nc, int nr, float *dst)
{
    for (int64_t q = 0; q < nc; q += nr) {
        int64_t cols = nc - q < nr ? nc - q : nr;
        float *d = dst + q * kc;
        if (!transB) {
            const float *s = B + p0 * ldb + j0 + q;
            /* whole panels of the common widths: fixed-size copies the
             * compiler inlines instead of a libc call per 64 or 128 bytes */
            if (cols == 32 && nr == 32) {
                for (int64_t k = 0; k < kc; k++)
                    memcpy(d + k * 32, s + k * ldb, 32 * sizeof(float));
                continue;
            }
            if (cols == 16 && nr == 16) {
                for (int64_t k = 0; k < kc; k++)
                    memcpy(d + k * 16, s + k * ldb, 16 * sizeof(float));
                continue;
            }
            for (int64_t k = 0; k < kc; k++) {
                memcpy(d + k * nr, s + k * ldb, (size_t)cols * sizeof(float));
                for (int64_t c = cols; c < nr; c++)
                    d[k * nr + c] = 0.0f;
            }
        } else {
            /* op(B)(k, j) = B[j*ldb + k] */
            const float *s = B + (j0 + q) * ldb + p0;
            for (int64_t k = 0; k < kc; k++) {
                int64_t c = 0;
                for (; c < cols; c++)
                    d[k * nr + c] = s[c * ldb + k];
                for (; c < nr; c++)
                    d[k * nr + c] = 0.0f;
            }
        }
    }
}
