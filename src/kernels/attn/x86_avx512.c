/*
 * avx512 instance of the fast attention work item (fast_impl.h over
 * vmath_avx512.h). Compiled with this ISA's flags (CMakeLists.txt) and
 * called only after the CPU check in fast.c.
 */
#include "kernels/attn/attn.h"

#if defined(__x86_64__) && defined(__AVX512F__)
#include "kernels/vmath/vmath_avx512.h"
#define KA(name) kattn_##name##_f32_avx512
#define KA_SCALE_BITS(p, t)                                                            \
    _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), _mm512_slli_epi32(_mm512_castps_si512(t), 23)))
#define KA_KEEP(m, x) _mm512_maskz_mov_ps((m), (x))
#include "kernels/attn/fast_impl.h"
#else
void kattn_block_f32_avx512(const kattn_params_t *p, int64_t bh, int64_t q0, int64_t q1,
                            float *ws)
{
    (void)p, (void)bh, (void)q0, (void)q1, (void)ws;
}
void kattn_exp2_neg_f32_avx512(const float *x, float *y, int64_t n)
{
    (void)x, (void)y, (void)n;
}
#endif
