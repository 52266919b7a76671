#include "base/dtype.h"

#include <math.h>

size_t cairn_dtype_size(cairn_dtype_t t)
{
    switch (t) {
    case CAIRN_F32: return 4;
    case CAIRN_U8: return 1;
    case CAIRN_I8: return 1;
    case CAIRN_I16: return 2;
    case CAIRN_I32: return 4;
    case CAIRN_I64: return 8;
    case CAIRN_BOOL: return 1;
    case CAIRN_F16: return 2;
    case CAIRN_F64: return 8;
    case CAIRN_BF16: return 2;
    case CAIRN_DTYPE_UNDEFINED: return 0;
    }
    return 0;
}

const char *cairn_dtype_name(cairn_dtype_t t)
{
    switch (t) {
    case CAIRN_F32: return "f32";
    case CAIRN_U8: return "u8";
    case CAIRN_I8: return "i8";
    case CAIRN_I16: return "i16";
    case CAIRN_I32: return "i32";
    case CAIRN_I64: return "i64";
    case CAIRN_BOOL: return "bool";
    case CAIRN_F16: return "f16";
    case CAIRN_F64: return "f64";
    case CAIRN_BF16: return "bf16";
    case CAIRN_DTYPE_UNDEFINED: return "undefined";
    }
    return "?";
}

int base_dtype_valid(cairn_dtype_t t) { return t != CAIRN_DTYPE_UNDEFINED && cairn_dtype_size(t) != 0; }

int base_dtype_is_float(cairn_dtype_t t)
{
    return t == CAIRN_F32 || t == CAIRN_F64 || t == CAIRN_F16 || t == CAIRN_BF16;
}

int base_dtype_is_int(cairn_dtype_t t)
{
    return t == CAIRN_U8 || t == CAIRN_I8 || t == CAIRN_I16 || t == CAIRN_I32 || t == CAIRN_I64;
}

int base_dtype_is_signed(cairn_dtype_t t)
{
    return base_dtype_is_float(t) || t == CAIRN_I8 || t == CAIRN_I16 || t == CAIRN_I32 ||
           t == CAIRN_I64;
}

float base_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t u;
    if (exp == 0) {
        if (man == 0) {
            u = sign;
        } else { /* subnormal: normalise */
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 0x400u));
            u = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        u = sign | 0x7f800000u | (man << 13) | (man ? 0x400000u : 0);
    } else {
        u = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t base_f32_to_f16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t ax = u & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u);
    if (ax >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) { /* below the smallest normal half: subnormal or 0 */
        if (ax < 0x33000000u) /* below half the smallest subnormal */
            return (uint16_t)sign;
        /* value = man * 2^(e-150); in units of the half subnormal 2^-24 that
         * is man >> (126 - e), with 14 <= 126 - e <= 24 here */
        uint32_t e = ax >> 23;
        uint32_t man = (ax & 0x7fffffu) | 0x800000u;
        uint32_t drop = 126u - e;
        uint32_t r = man >> drop;
        uint32_t rem = man & ((1u << drop) - 1u);
        uint32_t halfw = 1u << (drop - 1);
        if (rem > halfw || (rem == halfw && (r & 1u)))
            r++;
        return (uint16_t)(sign | r);
    }
    /* normal: rebias exponent, round mantissa to 10 bits, nearest even */
    uint32_t v = ax - ((127u - 15u) << 23);
    uint32_t r = v >> 13;
    uint32_t rem = v & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))
        r++;
    return (uint16_t)(sign | r);
}

double base_load_as_double(const void *p, cairn_dtype_t t, int64_t i)
{
    switch (t) {
    case CAIRN_F32: return ((const float *)p)[i];
    case CAIRN_F64: return ((const double *)p)[i];
    case CAIRN_F16: return base_f16_to_f32(((const uint16_t *)p)[i]);
    case CAIRN_BF16: return base_bf16_to_f32(((const uint16_t *)p)[i]);
    case CAIRN_U8: return ((const uint8_t *)p)[i];
    case CAIRN_I8: return ((const int8_t *)p)[i];
    case CAIRN_I16: return ((const int16_t *)p)[i];
    case CAIRN_I32: return ((const int32_t *)p)[i];
    case CAIRN_I64: return (double)((const int64_t *)p)[i];
    case CAIRN_BOOL: return ((const uint8_t *)p)[i] ? 1.0 : 0.0;
    case CAIRN_DTYPE_UNDEFINED: break;
    }
    return 0.0;
}

/* v clamped to [lo, hi] (so the integer conversion below is defined). */
static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

void base_store_from_double(void *p, cairn_dtype_t t, int64_t i, double v)
{
    if (!base_dtype_is_float(t) && isnan(v))
        v = 0.0;
    /* out-of-range values saturate: a double outside int64 has no defined
     * conversion, and wrapping would hide a bug in whatever produced it */
    if (base_dtype_is_int(t))
        v = clampd(v, -9223372036854775808.0, 9223372036854774784.0);
    switch (t) {
    case CAIRN_F32: ((float *)p)[i] = (float)v; break;
    case CAIRN_F64: ((double *)p)[i] = v; break;
    case CAIRN_F16: ((uint16_t *)p)[i] = base_f32_to_f16((float)v); break;
    case CAIRN_BF16: ((uint16_t *)p)[i] = base_f32_to_bf16((float)v); break;
    case CAIRN_U8: ((uint8_t *)p)[i] = (uint8_t)clampd(v, 0, 255); break;
    case CAIRN_I8: ((int8_t *)p)[i] = (int8_t)clampd(v, -128, 127); break;
    case CAIRN_I16: ((int16_t *)p)[i] = (int16_t)clampd(v, -32768, 32767); break;
    case CAIRN_I32: ((int32_t *)p)[i] = (int32_t)clampd(v, -2147483648.0, 2147483647.0); break;
    case CAIRN_I64: ((int64_t *)p)[i] = (int64_t)v; break;
    case CAIRN_BOOL: ((uint8_t *)p)[i] = v != 0.0; break;
    case CAIRN_DTYPE_UNDEFINED: break;
    }
}
