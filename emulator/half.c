/**
 * @file half.c
 * @brief 16-bit and TF32 floating point on the host (see half.h).
 */
#include "half.h"

#include <math.h>
#include <string.h>

static uint32_t bits_of(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

static float float_of(uint32_t x)
{
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* @p value shifted right by @p shift, rounded to nearest, ties to even. */
static uint32_t shift_rne(uint32_t value, unsigned shift)
{
    uint32_t kept = value >> shift, rest = value & ((1u << shift) - 1), half = 1u << (shift - 1);
    return kept + (rest > half || (rest == half && (kept & 1)));
}

uint16_t half_from_float(float f)
{
    uint32_t x = bits_of(f), sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
    if (exp == 0xff) /* infinity, or NaN made quiet */
        return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
    int e = (int)exp - 127 + 15; /* the binary16 biased exponent */
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) { /* subnormal in binary16: units of 2^-24 */
        if (e < -10)
            return (uint16_t)sign;
        return (uint16_t)(sign | shift_rne(man | 0x800000, (unsigned)(14 - e)));
    }
    /* A carry out of the mantissa moves into the exponent, up to infinity: still correct. */
    return (uint16_t)(sign | shift_rne(((uint32_t)e << 23) | man, 13));
}

float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f)
        return float_of(sign | 0x7f800000 | man << 13);
    if (exp)
        return float_of(sign | (exp + 112) << 23 | man << 13);
    float sub = ldexpf((float)man, -24);
    return sign ? -sub : sub;
}

uint16_t bf16_from_float(float f)
{
    uint32_t x = bits_of(f);
    if ((x & 0x7fffffff) > 0x7f800000) /* NaN: keep it, quiet */
        return (uint16_t)((x >> 16) | 0x40);
    return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

float bf16_to_float(uint16_t b)
{
    return float_of((uint32_t)b << 16);
}

float tf32_round(float f)
{
    uint32_t x = bits_of(f);
    if ((x & 0x7f800000) == 0x7f800000) /* infinity and NaN pass through */
        return f;
    return float_of((x + 0x1000) & 0xffffe000);
}
