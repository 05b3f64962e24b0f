/**
 * @file cufft_unsupported.h
 * @brief FFT_UNSUPPORTED(name): a libcufft entry point the stand-in exports but does not
 *        emulate, answering CUFFT_NOT_SUPPORTED and one line naming it (fft_not_supported(),
 *        cufft.c).
 *
 * For cufft_unsupported.c, which includes no cuFFT header on purpose: each stub is defined
 * without parameters, which the x86-64 calling convention lets any caller call; the return
 * value is cufftResult's.
 */
#ifndef EMU_CUFFT_UNSUPPORTED_H
#define EMU_CUFFT_UNSUPPORTED_H

#include "say.h"

/** Print "emulator: cuFFT: NAME is not in the emulator's cuFFT stand-in" and return
    CUFFT_NOT_SUPPORTED. */
int fft_not_supported(const char *name);

#define FFT_UNSUPPORTED(name) EMU_STUB(name, fft_not_supported)

#endif
