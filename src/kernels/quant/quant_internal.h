/*
 * Element access shared by the quant family's kernels (ref.c, mm.c): one
 * u8 / i8 / i32 element as int32, and the store that rounds half to even
 * and saturates to the quantised type (the ONNX reference's arithmetic).
 */
#ifndef CAIRN_KERNELS_QUANT_INTERNAL_H
#define CAIRN_KERNELS_QUANT_INTERNAL_H

#include "cairn.h"

#include <math.h>
#include <stdint.h>

static inline int32_t q_load(const void *p, cairn_dtype_t t, int64_t i)
{
    switch (t) {
    case CAIRN_U8: return ((const uint8_t *)p)[i];
    case CAIRN_I8: return ((const int8_t *)p)[i];
    case CAIRN_I32: return ((const int32_t *)p)[i];
    default: return 0;
    }
}

/* rounds half to even, then saturates to yt and stores */
static inline void q_store(void *y, cairn_dtype_t yt, int64_t i, double v)
{
    double r = isnan(v) ? 0 : nearbyint(v); /* e.g. 0 * an infinite multiplier */
    if (yt == CAIRN_U8) {
        r = r < 0 ? 0 : r > 255 ? 255 : r;
        ((uint8_t *)y)[i] = (uint8_t)r;
    } else if (yt == CAIRN_I8) {
        r = r < -128 ? -128 : r > 127 ? 127 : r;
        ((int8_t *)y)[i] = (int8_t)r;
    } else {
        r = r < -2147483648.0 ? -2147483648.0 : r > 2147483647.0 ? 2147483647.0 : r;
        ((int32_t *)y)[i] = (int32_t)r;
    }
}

/* Whether the quant kernels take their AVX-512 passes (x86_avx512.c):
 * the CPU has them and the CAIRN_ISA cap allows (chosen once; dyn.c). */
int quant_use_avx512(void);

/* QuantizeLinear's pass in AVX-512 (qdq.c calls it where quant_use_avx512):
 * y = saturate(round(x / s) + z) to u8 or i8, NaN quotients as 0, the
 * same bits as quant_quantize_ref. */
void quant_ql_quantize_avx512(const float *x, int64_t n, float s, int32_t z, int y_u8, void *y);
/* QLinearConv's requantisation of n int32 sums of one channel (qdq.c):
 * saturate(nearbyint(((double)acc + b) * m) + z) to yt, NaN to 0, as
 * quant_requant_ref computes it. acc_max: a bound on |acc| the caller
 * knows (K 255^2 for sums over K products), QUANT_ACC_ANY when none; it
 * spares the AVX-512 pass its overflow check. */
#define QUANT_ACC_ANY INT64_C(2147483648)
void quant_requant_row(const int32_t *acc, int64_t n, double b, double m, int32_t z,
                       cairn_dtype_t yt, void *y, int64_t acc_max);
/* The same in AVX-512 for u8 (y_u8) or i8 (quant_requant_row calls it). */
void quant_requant_avx512(const int32_t *acc, int64_t n, double b, double m, int32_t z, int y_u8,
                          void *y, int64_t acc_max);

#endif
