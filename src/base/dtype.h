/*
 * Element types: sizes, names, and the f16/bf16 <-> f32 conversions every
 * kernel that touches half types uses (round to nearest even; NaN stays NaN).
 */
#ifndef CAIRN_BASE_DTYPE_H
#define CAIRN_BASE_DTYPE_H

#include "cairn.h"
#include <stdint.h>
#include <string.h>

int base_dtype_is_float(cairn_dtype_t t);   /* f16, bf16, f32, f64 */
int base_dtype_is_int(cairn_dtype_t t);     /* i8..i64, u8 (not bool) */
int base_dtype_is_signed(cairn_dtype_t t);  /* floats and signed ints */
int base_dtype_valid(cairn_dtype_t t);      /* one of the cairn dtypes */

static inline float base_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint16_t base_f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)         /* NaN: keep it quiet NaN */
        return (uint16_t)((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u);              /* round to nearest even */
    return (uint16_t)(u >> 16);
}

float base_f16_to_f32(uint16_t h);
uint16_t base_f32_to_f16(float f);

/* Reads element i of a buffer of type t as double / writes it from double
 * (into integers: NaN -> 0, out-of-range values saturate, fractions
 * truncate toward zero). Slow; for references and tests only. */
double base_load_as_double(const void *p, cairn_dtype_t t, int64_t i);
void base_store_from_double(void *p, cairn_dtype_t t, int64_t i, double v);

#endif
