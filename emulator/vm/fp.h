/**
 * @file fp.h
 * @brief Floating-point formats and rounding, bit-exact, shared by the float,
 *        conversion and tensor families.
 */
#ifndef EMU_FP_H
#define EMU_FP_H

#include <stdint.h>
#include <string.h>

#include "vm_impl.h"

static inline uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint64_t d2u(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static inline double u2d(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/** A narrow IEEE-style format: mantissa and exponent bits. */
struct fmt {
    int man, exp;
};

#define FMT_F16 ((struct fmt){10, 5})
#define FMT_BF16 ((struct fmt){7, 8})
#define FMT_F32 ((struct fmt){23, 8})

/**
 * The bits of @p x rounded once to format @p f with rounding @p r (RND_RN, RND_RZ,
 * RND_RM, RND_RP, RND_RNA); NaN gives the canonical NaN (all exponent and mantissa
 * bits set, sign clear); with @p ftz a subnormal result becomes a signed zero.
 * @p x must be the exact value, or rounded to odd at 53 bits (fp_add_odd()).
 */
uint32_t fp_round(double x, struct fmt f, enum rnd r, int ftz);

/** The value of bits @p b in format @p f, exactly. */
double fp_value(uint32_t b, struct fmt f);

/** f32 to binary16, round to nearest even (the fast path of fp_round). */
uint16_t fp_f32_to_f16(float x);
/** f32 to bfloat16, round to nearest even (the fast path of fp_round). */
uint16_t fp_f32_to_bf16(float x);
/** binary16 to f32, exactly. */
float fp_f16_to_f32(uint16_t h);
/** bfloat16 to f32, exactly. */
static inline float fp_bf16_to_f32(uint16_t b)
{
    return u2f((uint32_t)b << 16);
}

/** a + b rounded to odd at double precision, so that rounding it again to any format of at
 *  most 51 significant bits gives the correctly rounded sum. */
double fp_add_odd(double a, double b);

/** fma(a, b, c) on floats, rounded once to nearest even. */
float fp_fmaf(float a, float b, float c);

/** @p x with a subnormal flushed to a zero of the same sign. */
static inline float fp_ftz(float x)
{
    uint32_t u = f2u(x);
    return (u & 0x7F800000u) == 0 ? u2f(u & 0x80000000u) : x;
}

#endif /* EMU_FP_H */
