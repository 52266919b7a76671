/*
 * AVX-512 form of the pixel-major 1x1 path's transposed store (conv.h,
 * conv_store_t_f32_*): Ct (P x M, a row per pixel) into Y's channel planes
 * with the epilogue, 16 channels x 16 pixels a block transposed in
 * registers, the last pixels of a plane (P % 16: ResNet-50's 7x7 planes
 * leave 1 of 49, its 14x14 ones 4 of 196) and the last channels under
 * masks. The AVX2 form moves 8 x 8 blocks and finishes each plane's last P
 * % 8 pixels one scalar at a time, which at 7x7 cost as much as the rest
 * of the store. Compiled with the AVX-512 flags (CMakeLists.txt); called
 * only after the CPU check in fast.c.
 */
#include "kernels/conv/conv.h"

#if defined(__x86_64__) && defined(__AVX512F__)
#include "kernels/vmath/act_avx512.h"
#include "kernels/vmath/transpose_avx512.h"
#include <immintrin.h>

static inline __mmask16 lanes16(int64_t w)
{
    return w >= 16 ? (__mmask16)0xFFFF : w <= 0 ? (__mmask16)0 : (__mmask16)((1u << w) - 1u);
}

void conv_store_t_f32_avx512(const float *ct, int64_t P, int64_t M, int64_t c0, int64_t c1,
                             const gemm_epilogue_t *e, float *y, int64_t ldy)
{
    if (!gemm_act_is_simple(e->act) || !gemm_act_is_simple(e->post_act)) {
        conv_store_t_f32_ref(ct, P, M, c0, c1, e, y, ldy);
        return;
    }
    const float *bias = e->bias, *res = e->residual;
    const __m512 vs = _mm512_set1_ps(e->scale);
    for (int64_t cb = c0; cb < c1; cb += 16) {
        const int nc = c1 - cb < 16 ? (int)(c1 - cb) : 16;
        const __mmask16 cm = lanes16(nc);
        for (int64_t p0 = 0; p0 < P; p0 += 16) {
            const int np = P - p0 < 16 ? (int)(P - p0) : 16;
            const __mmask16 pm = lanes16(np);
            __m512 v[16];
            for (int i = 0; i < 16; i++)
                v[i] = i < np ? _mm512_maskz_loadu_ps(cm, ct + (p0 + i) * M + cb)
                              : _mm512_setzero_ps();
            vm512_transpose16(v); /* v[c]: channel cb + c, pixels p0.. */
            for (int c = 0; c < nc; c++) {
                __m512 w = v[c];
                if (bias)
                    w = _mm512_add_ps(w, _mm512_set1_ps(bias[cb + c]));
                w = vm512_act_simple(w, e->act, e->clip_lo, e->clip_hi);
                if (e->scale != 1.0f)
                    w = _mm512_mul_ps(w, vs);
                if (res)
                    w = _mm512_add_ps(w, _mm512_maskz_loadu_ps(pm, res + (cb + c) * e->ldr + p0));
                w = vm512_act_simple(w, e->post_act, e->post_lo, e->post_hi);
                _mm512_mask_storeu_ps(y + (cb + c) * ldy + p0, pm, w);
            }
        }
    }
}

/* 16 outputs a step: two loads (the second under a mask at the row's
 * end) and one two-source permute of the even lanes */
void conv_copy_s2_f32_avx512(float *d, const float *s, int64_t n)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28,
                                           30);
    for (int64_t i = 0; i < n; i += 16) {
        /* inputs s[2 i .. 2 i + 30]; the last one read is s[2 n - 2] */
        const int64_t left = 2 * (n - i) - 1;
        const __m512 a = _mm512_maskz_loadu_ps(lanes16(left), s + 2 * i);
        const __m512 b = _mm512_maskz_loadu_ps(lanes16(left - 16), s + 2 * i + 16);
        _mm512_mask_storeu_ps(d + i, lanes16(n - i), _mm512_permutex2var_ps(a, even, b));
    }
}

#else

void conv_copy_s2_f32_avx512(float *d, const float *s, int64_t n)
{
    conv_copy_s2_f32_ref(d, s, n);
}

void conv_store_t_f32_avx512(const float *ct, int64_t P, int64_t M, int64_t c0, int64_t c1,
                             const gemm_epilogue_t *e, float *y, int64_t ldy)
{
    conv_store_t_f32_ref(ct, P, M, c0, c1, e, y, ldy);
}

#endif
