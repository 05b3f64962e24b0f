/**
 * @file half.h
 * @brief 16-bit and TF32 floating point on the host, bit-exact.
 *
 * binary16 (fp16) and bfloat16 conversions round to nearest, ties to even
 * (cvt.rn.f16.f32, cvt.rn.bf16.f32), with overflow to infinity, subnormals,
 * and NaN kept a quiet NaN. TF32 rounding is cvt.rna.tf32.f32: to nearest,
 * ties away from zero, keeping 10 mantissa bits in an fp32 container.
 */
#ifndef EMU_HALF_H
#define EMU_HALF_H

#include <stdint.h>

/** Round @p f to binary16. */
uint16_t half_from_float(float f);

/** The value of binary16 @p h (exact). */
float half_to_float(uint16_t h);

/** Round @p f to bfloat16. */
uint16_t bf16_from_float(float f);

/** The value of bfloat16 @p b (exact). */
float bf16_to_float(uint16_t b);

/** Round @p f to TF32 (the result is an fp32 whose low 13 mantissa bits are zero). */
float tf32_round(float f);

#endif /* EMU_HALF_H */
