/**
 * @file cufft_unsupported.c
 * @brief The cuFFT stand-in: every other function libcufft exports, answered with
 *        CUFFT_NOT_SUPPORTED and one line naming it (fft_not_supported(), cufft.c).
 *
 * A program that calls one of these (multi-GPU plans and descriptors, callbacks, the cufftXt
 * plans of other precisions, work-area policies) must not die at load time for a missing
 * symbol: it gets a cufftResult it can report. tests/emulator/test_cufft.c compares the
 * stand-in's exports with the toolkit's libcufft and fails on any it lacks.
 *
 * It includes no cuFFT header on purpose (cufft_unsupported.h says why). cufftDebug and
 * cufftXtMakePlanGuru64 are exported by libcufft but declared by no header of the toolkit.
 */
#include "cufft_unsupported.h"

FFT_UNSUPPORTED(cufftDebug)
FFT_UNSUPPORTED(cufftXtClearCallback)
FFT_UNSUPPORTED(cufftXtExecDescriptor)
FFT_UNSUPPORTED(cufftXtExecDescriptorC2C)
FFT_UNSUPPORTED(cufftXtExecDescriptorC2R)
FFT_UNSUPPORTED(cufftXtExecDescriptorD2Z)
FFT_UNSUPPORTED(cufftXtExecDescriptorR2C)
FFT_UNSUPPORTED(cufftXtExecDescriptorZ2D)
FFT_UNSUPPORTED(cufftXtExecDescriptorZ2Z)
FFT_UNSUPPORTED(cufftXtFree)
FFT_UNSUPPORTED(cufftXtGetSizeMany)
FFT_UNSUPPORTED(cufftXtMakePlanGuru64)
FFT_UNSUPPORTED(cufftXtMalloc)
FFT_UNSUPPORTED(cufftXtMemcpy)
FFT_UNSUPPORTED(cufftXtQueryPlan)
FFT_UNSUPPORTED(cufftXtSetCallback)
FFT_UNSUPPORTED(cufftXtSetCallbackSharedSize)
FFT_UNSUPPORTED(cufftXtSetGPUs)
FFT_UNSUPPORTED(cufftXtSetJITCallback)
FFT_UNSUPPORTED(cufftXtSetWorkArea)
FFT_UNSUPPORTED(cufftXtSetWorkAreaPolicy)
