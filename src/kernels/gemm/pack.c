/*
 * Packing for the f32 GEMM: copies a block of op(A) into MR-row panels and
 * a block of op(B) into NR-column panels, in the order the micro-kernel
 * reads them (one k step = MR or NR consecutive floats), zero-padding the
 * last panel so the kernel never needs a bounds check on packed data.
 * Layouts are described in gemm_f32_internal.h.
 */
#include "kernels/gemm/gemm_f32_internal.h"

#include <string.h>

#define PACK_KSTEP 8

/* kn rows of w floats, ld apart in s, to consecutive rows of d */
static inline __attribute__((always_inline)) void copy_rows(float *d, const float *s, int64_t ld,
                                                            int64_t kn, const int w)
{
    for (int64_t i = 0; i < kn; i++)
        memcpy(d + i * w, s + i * ld, (size_t)w * sizeof(float));
}

/* op(A)(i, k) = A[k*lda + i], whole MR-row panels (full = their rows),
 * K in steps of PACK_KSTEP rows of A read across every panel: a few long
 * runs the hardware prefetchers follow (see gemm_f32_pack_b_block) */
static inline __attribute__((always_inline)) void pack_a_t_full(const float *s, int64_t lda,
                                                                int64_t full, int64_t kc,
                                                                const int mr, float *dst)
{
    for (int64_t k0 = 0; k0 < kc; k0 += PACK_KSTEP) {
        const int64_t kn = kc - k0 < PACK_KSTEP ? kc - k0 : PACK_KSTEP;
        for (int64_t q = 0; q < full; q += mr)
            copy_rows(dst + q * kc + k0 * mr, s + k0 * lda + q, lda, kn, mr);
    }
}

void gemm_f32_pack_a(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0, int64_t mc,
                     int64_t kc, int mr, float *dst)
{
    if (transA && (mr == 4 || mr == 6 || mr == 8 || mr == 12 || mr == 14 || mr == 16)) {
        const int64_t full = mc / mr * mr;
        const float *s = A + p0 * lda + i0;
        switch (mr) { /* fixed-size copies the compiler inlines */
        case 4: pack_a_t_full(s, lda, full, kc, 4, dst); break;
        case 6: pack_a_t_full(s, lda, full, kc, 6, dst); break;
        case 8: pack_a_t_full(s, lda, full, kc, 8, dst); break;
        case 12: pack_a_t_full(s, lda, full, kc, 12, dst); break;
        case 14: pack_a_t_full(s, lda, full, kc, 14, dst); break; /* the AVX-512 tiles */
        default: pack_a_t_full(s, lda, full, kc, 16, dst); break;
        }
        if (full == mc)
            return;
        /* the last, partial panel below */
        A += full, dst += full * kc, mc -= full;
    }
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
    if (!transB && (nr == 8 || nr == 16 || nr == 32)) {
        /* B's rows are read in order, PACK_KSTEP rows at a time across
         * every panel of the block: a few long runs that the hardware
         * prefetchers follow, where panel by panel the block's kc rows were
         * kc short streams (NR floats each) at once. 128 x 1536 x 384: 1.74
         * -> 1.68 ms, 512 x 768 x 3072: 26.3 -> 25.5 ms on Zen 2. */
        const int64_t full = nc / nr * nr;
        for (int64_t k0 = 0; k0 < kc; k0 += PACK_KSTEP) {
            const int64_t kn = kc - k0 < PACK_KSTEP ? kc - k0 : PACK_KSTEP;
            for (int64_t q = 0; q < full; q += nr) {
                float *d = dst + q * kc + k0 * nr;
                const float *s = B + (p0 + k0) * ldb + j0 + q;
                /* fixed-size copies the compiler inlines */
                if (nr == 8)
                    copy_rows(d, s, ldb, kn, 8);
                else if (nr == 16)
                    copy_rows(d, s, ldb, kn, 16);
                else
                    copy_rows(d, s, ldb, kn, 32);
            }
        }
        if (full == nc)
            return;
        /* the last, partial panel below */
        j0 += full, dst += full * kc, nc -= full;
    }
    for (int64_t q = 0; q < nc; q += nr) {
        int64_t cols = nc - q < nr ? nc - q : nr;
        float *d = dst + q * kc;
        if (!transB) {
            const float *s = B + p0 * ldb + j0 + q;
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
