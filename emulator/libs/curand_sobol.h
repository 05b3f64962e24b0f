/**
 * @file curand_sobol.h
 * @brief Sobol's quasi-random sequences for the cuRAND stand-in (curand.c): Joe and Kuo's
 *        direction vectors, 32 and 64 bits, and a dimension's points in Gray-code order.
 */
#ifndef CURAND_SOBOL_H
#define CURAND_SOBOL_H

#include <curand.h>
#include <stddef.h>
#include <stdint.h>

/** Dimensions the stand-in has direction vectors for (cuRAND's library: 20000). */
enum { SOBOL_DIMS = 101 };

/** Direction vectors of dimensions 1 .. SOBOL_DIMS, built once: [dim][bit], 32 and 64 bits. */
curandDirectionVectors32_t *sobol_vectors32(void);
curandDirectionVectors64_t *sobol_vectors64(void);

/**
 * Points @p first .. @p first + @p n - 1 of dimension @p dim (0-based, < SOBOL_DIMS) into
 * @p out, as curand_kernel.h's Sobol32 (@p bits 32) or Sobol64 (64) state gives them: point i is
 * the XOR of the direction vectors at the bits set in i's Gray code i ^ (i >> 1).
 */
void sobol_points(unsigned dim, int bits, uint64_t first, size_t n, uint64_t *out);

#endif /* CURAND_SOBOL_H */
