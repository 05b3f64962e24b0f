/**
 * @file fp.h
 * @brief Floating-point formats and rounding, bit-exact: the VM's float, conversion and tensor
 *        families and the library stand-ins' narrow types share them.
 */
#ifndef EMU_FP_H
#define EMU_FP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/** A rounding: PTX's modifiers (.rn .rz .rm .rp, .rna for cvt; the integer roundings .rni
 *  .rzi .rmi .rpi), RND_NONE where an instruction names none. */
enum rnd { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNA, RND_RNI, RND_RZI, RND_RMI, RND_RPI };

/* The bits of a float or a double, and the float or double of bits: C11 reads a union's other
 * member as the same bytes. */
union fp_bits32 {
    float f;
    uint32_t u;
};
union fp_bits64 {
    double d;
    uint64_t u;
};

static inline uint32_t f2u(float f)
{
    return (union fp_bits32){.f = f}.u;
}

static inline float u2f(uint32_t u)
{
    return (union fp_bits32){.u = u}.f;
}

static inline uint64_t d2u(double d)
{
    return (union fp_bits64){.d = d}.u;
}

static inline double u2d(uint64_t u)
{
    return (union fp_bits64){.u = u}.d;
}

/** A narrow IEEE-style format: mantissa and exponent bits. */
struct fp_fmt {
    int man, exp;
};

#define FMT_F16 ((struct fp_fmt){10, 5})
#define FMT_BF16 ((struct fp_fmt){7, 8})
#define FMT_F32 ((struct fp_fmt){23, 8})

/**
 * The bits of @p x rounded once to format @p f with rounding @p r (RND_RN, RND_RZ,
 * RND_RM, RND_RP, RND_RNA); NaN gives the canonical NaN (all exponent and mantissa
 * bits set, sign clear); with @p ftz a subnormal result becomes a signed zero.
 * @p x must be the exact value, or rounded to odd at 53 bits (fp_add_odd()).
 */
uint32_t fp_round(double x, struct fp_fmt f, enum rnd r, int ftz);

/** The value of bits @p b in format @p f, exactly. */
double fp_value(uint32_t b, struct fp_fmt f);

/** f32 to binary16, round to nearest even (the fast path of fp_round), inline: the Tensor Core
 *  instructions round every element of their f16 results. */
static inline uint16_t fp_f32_to_f16(float x)
{
    uint32_t u = f2u(x);
    uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return 0x7FFF;
    if (a >= 0x477FF000u) /* 65520 and up round to infinity */
        return (uint16_t)(sign | 0x7C00u);
    if (a < 0x38800000u) /* below 2^-14: subnormal or zero */
        return (uint16_t)(sign | (a ? fp_round(u2f(a), FMT_F16, RND_RN, 0) : 0));
    uint32_t r = a + 0xFFFu + ((a >> 13) & 1) - 0x38000000u; /* rebias, round to even */
    return (uint16_t)(sign | (r >> 13));
}
/** f32 to bfloat16, round to nearest even (the fast path of fp_round). */
uint16_t fp_f32_to_bf16(float x);
/** binary16 to f32, exactly. */
static inline float fp_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1F, man = h & 0x3FFu;
    if (e == 0) /* zero or subnormal: man * 2^-24, exact in float */
        return sign ? -(float)man * 0x1p-24f : (float)man * 0x1p-24f;
    if (e == 31)
        return u2f(sign | 0x7F800000u | man << 13);
    return u2f(sign | (e + 112) << 23 | man << 13);
}
/** bfloat16 to f32, exactly. */
static inline float fp_bf16_to_f32(uint16_t b)
{
    return u2f((uint32_t)b << 16);
}

/*
 * @p x rounded to nearest even in a format of @p man mantissa bits whose normal values are
 * [2^emin, 2^emax * (2 - 2^-man)] (binary16, bfloat16), as the bits of that format. A normal
 * result takes a few integer operations on the bits of @p x; zero, subnormal, overflowing,
 * infinite and NaN results go through fp_round(), with @p ftz. @p x as for fp_round().
 */
static inline uint32_t fp_round_rn_narrow(double x, struct fp_fmt f, int ftz)
{
    int bias = (1 << (f.exp - 1)) - 1, drop = 52 - f.man;
    uint64_t a = d2u(x) & 0x7FFFFFFFFFFFFFFFull;
    uint64_t lo = (uint64_t)(1023 + 1 - bias) << 52; /* 2^emin */
    /* the first value that rounds past the largest: 2^emax (2 - 2^-(man + 1)) */
    uint64_t hi = ((uint64_t)(1023 + bias) << 52) | (((1ull << (f.man + 1)) - 1) << (drop - 1));
    if (a < lo || a >= hi)
        return fp_round(x, f, RND_RN, ftz);
    uint64_t r = a + ((1ull << (drop - 1)) - 1) + ((a >> drop) & 1); /* ties to even */
    uint32_t sign = (uint32_t)(d2u(x) >> 63) << (f.man + f.exp);
    return sign | (uint32_t)((r - ((uint64_t)(1023 - bias) << 52)) >> drop);
}

/** a + b rounded to odd at double precision, so that rounding it again to any format of at
 *  most 51 significant bits gives the correctly rounded sum. */
static inline double fp_add_odd(double a, double b)
{
    double s = a + b;
    if (!__builtin_isfinite(s))
        return s;
    /* Knuth's TwoSum: err is exactly (a + b) - s. */
    double bb = s - a;
    double err = (a - (s - bb)) + (b - bb);
    if (err == 0)
        return s;
    uint64_t u = d2u(s);
    /* Truncate toward zero (s may have rounded away), then set the last bit: round to odd. */
    if ((err > 0) != (s > 0))
        u -= 1;
    return u2d(u | 1);
}

/** fma(a, b, c) on floats, rounded once to nearest even. Inline, so that a lane loop of it
 *  vectorises where the CPU has FMA. */
static inline float fp_fmaf(float a, float b, float c)
{
#ifdef __FP_FAST_FMAF
    return fmaf(a, b, c);
#else
    /* a * b is exact in double; one rounding to odd, then one to float, is correct. */
    double p = (double)a * b;
    if (!isfinite(p) || c == 0 || p == 0)
        return (float)(p + c);
    return (float)fp_add_odd(p, c);
#endif
}

/** @p x with a subnormal flushed to a zero of the same sign. */
static inline float fp_ftz(float x)
{
    uint32_t u = f2u(x);
    return (u & 0x7F800000u) == 0 ? u2f(u & 0x80000000u) : x;
}

#endif /* EMU_FP_H */
