/**
 * @file cufft_fft.h
 * @brief The cuFFT stand-in's one-dimensional complex DFT in double precision (cufft_fft.c):
 *        mixed-radix Cooley-Tukey, Bluestein's chirp for sizes with a large prime factor.
 */
#ifndef EMU_CUFFT_FFT_H
#define EMU_CUFFT_FFT_H

#include <stddef.h>

/** A complex number in double precision, as cufftDoubleComplex lays one out. */
struct fft_cplx {
    double re, im;
};

/** What fft_run needs for one size n: its factors, twiddles and, for Bluestein, its chirp. */
struct fft_plan;

/** A plan for DFTs of @p n >= 1 points (aborts, with the size, when memory runs out). */
struct fft_plan *fft_plan_new(size_t n);

void fft_plan_free(struct fft_plan *p);

/** How many fft_cplx of scratch fft_run needs for @p p. */
size_t fft_work_size(const struct fft_plan *p);

/**
 * x[k] = sum over j of x[j] exp(sign 2 pi i j k / n), in place, unnormalised: @p sign -1 is
 * cuFFT's CUFFT_FORWARD, +1 its CUFFT_INVERSE. @p work holds fft_work_size(p) elements.
 */
void fft_run(const struct fft_plan *p, struct fft_cplx *x, int sign, struct fft_cplx *work);

#endif
