/**
 * @file curand_histogram.h
 * @brief The square histogram (Marsaglia, Tsang and Wang's method II, cuRAND's CURAND_M2) the
 *        cuRAND stand-in (curand.c) draws Poisson numbers from, built as NVIDIA's library
 *        builds it for a given lambda.
 */
#ifndef CURAND_HISTOGRAM_H
#define CURAND_HISTOGRAM_H

#include <stdint.h>

/** Values shift .. shift + length - 1: value shift + j in bin j below V[j], else shift + K[j]. */
struct histogram {
    unsigned shift, length;
    double *V;
    unsigned *K;
};

/** The histogram of Poisson(@p lambda), lambda in (0, HISTOGRAM_MAX_LAMBDA). */
#define HISTOGRAM_MAX_LAMBDA 2000.0
void histogram_poisson(double lambda, struct histogram *h);

/** The value for 32-bit draw @p x (curand_poisson.h's _curand_M2_double). */
unsigned histogram_draw(const struct histogram *h, uint32_t x);

void histogram_free(struct histogram *h);

#endif /* CURAND_HISTOGRAM_H */
