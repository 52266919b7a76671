/*
 * The vectorised f32 math of vmath_impl.h on 16-lane AVX-512 vectors
 * (functions vm512_exp, vm512_log, vm512_erf, vm512_tanh, vm512_sigmoid,
 * vm512_gelu_erf, vm512_gelu_tanh) and the load/store/reduce macros the
 * fast kernels are written over (the V_* macros stay defined: one ISA
 * header per translation unit). Include only from files compiled with
 * -mavx512f -mavx512dq. 2^n scaling uses VSCALEFPS (one rounding, so
 * subnormal results are exact to the final rounding); frexp uses
 * VGETEXPPS/VGETMANTPS, which handle subnormal inputs.
 */
#ifndef CAIRN_KERNELS_VMATH_AVX512_H
#define CAIRN_KERNELS_VMATH_AVX512_H

#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#define V __m512
#define M __mmask16
#define VM(name) vm512_##name
#define V_SET1(c) _mm512_set1_ps(c)
#define V_ADD _mm512_add_ps
#define V_SUB _mm512_sub_ps
#define V_MUL _mm512_mul_ps
#define V_DIV _mm512_div_ps
#define V_FMA _mm512_fmadd_ps  /* a*b + c */
#define V_FMS _mm512_fmsub_ps  /* a*b - c */
#define V_FNMA _mm512_fnmadd_ps /* c - a*b */
#define V_MIN _mm512_min_ps
#define V_MAX _mm512_max_ps
#define V_AND _mm512_and_ps
#define V_OR _mm512_or_ps
#define V_ANDNOT _mm512_andnot_ps
#define V_ABS _mm512_abs_ps
#define V_ROUND(x) _mm512_roundscale_ps((x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define V_CMP_LT(a, b) _mm512_cmp_ps_mask((a), (b), _CMP_LT_OQ)
#define V_CMP_GT(a, b) _mm512_cmp_ps_mask((a), (b), _CMP_GT_OQ)
#define V_CMP_EQ(a, b) _mm512_cmp_ps_mask((a), (b), _CMP_EQ_OQ)
#define V_CMP_NGE(a, b) _mm512_cmp_ps_mask((a), (b), _CMP_NGE_UQ) /* !(a >= b), NaN true */
#define V_BLEND(m, a, b) _mm512_mask_blend_ps((m), (a), (b))      /* m ? b : a */
#define V_SCALE2N(p, n) _mm512_scalef_ps((p), (n))
#define V_POW2N_SMALL(n) _mm512_scalef_ps(_mm512_set1_ps(1.0f), (n))
#define V_FREXP(x, m, e)                                                              \
    do {                                                                              \
        (m) = _mm512_getmant_ps((x), _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);          \
        (e) = _mm512_getexp_ps(x);                                                    \
    } while (0)

#define VLEN 16
#define V_ZERO() _mm512_setzero_ps()
#define V_LOAD(p) _mm512_loadu_ps(p)
#define V_STORE(p, v) _mm512_storeu_ps((p), (v))
#define V_TAILMASK(n) ((__mmask16)((1u << (n)) - 1u)) /* 0 < n < 16 */
#define V_LOADN(p, n, fill) _mm512_mask_loadu_ps(_mm512_set1_ps(fill), V_TAILMASK(n), (p))
#define V_STOREN(p, n, v) _mm512_mask_storeu_ps((p), V_TAILMASK(n), (v))
#define V_HSUM(v) _mm512_reduce_add_ps(v)
#define V_HMAX(v) _mm512_reduce_max_ps(v)

#include "kernels/vmath/vmath_impl.h"

#endif
