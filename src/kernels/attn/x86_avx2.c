/*
 * avx2 instance of the fast attention work item (fast_impl.h over
 * vmath_avx2.h). Compiled with this ISA's flags (CMakeLists.txt) and
 * called only after the CPU check in fast.c.
 */
#include "kernels/attn/attn.h"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
#include "kernels/vmath/vmath_avx2.h"
#define KA(name) kattn_##name##_f32_avx2
#define KA_SCALE_BITS(p, t)                                                            \
    _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32(_mm256_castps_si256(t), 23)))
#define KA_KEEP(m, x) _mm256_and_ps((m), (x))
#include "kernels/attn/fast_impl.h"
#else
void kattn_block_f32_avx2(const kattn_params_t *p, int64_t bh, int64_t q0, int64_t q1,
                            float *ws)
{
    (void)p, (void)bh, (void)q0, (void)q1, (void)ws;
}
void kattn_exp2_neg_f32_avx2(const float *x, float *y, int64_t n)
{
    (void)x, (void)y, (void)n;
}
#endif
