/*
 * avx512 instance of the fast attention work item (fast_impl.h over
 * vmath_avx512.h). Compiled with this ISA's flags (CMakeLists.txt) and
 * called only after the CPU check in fast.c.
 */
#include "kernels/attn/attn.h"

#if defined(__x86_64__) && defined(__AVX512F__)
#include "kernels/vmath/vmath_avx512.h"
#define KA(name) kattn_##name##_f32_avx512
#include "kernels/attn/fast_impl.h"
#else
void kattn_block_f32_avx512(const kattn_params_t *p, int64_t bh, int64_t q0, int64_t q1,
                            float *ws)
{
    (void)p, (void)bh, (void)q0, (void)q1, (void)ws;
}
#endif
