/**
 * @file blas_unsupported.h
 * @brief UNSUPPORTED(name): a cuBLAS or cuBLASLt function the stand-ins export but do not
 *        emulate, answering CUBLAS_STATUS_NOT_SUPPORTED and one line naming it.
 *
 * For cublas_unsupported.c and cublaslt_unsupported.c, which include no cuBLAS header on
 * purpose, as runtime/rt_unsupported.c does: each stub is defined without parameters, which the
 * x86-64 calling convention lets any caller call; the return value is cublasStatus_t's. A legacy
 * (cublas.h) function that returns void or a value gets its line, and its caller an undefined
 * value, but cublasInit and cublasGetError, stubs too, answer CUBLAS_STATUS_NOT_SUPPORTED.
 */
#ifndef EMU_BLAS_UNSUPPORTED_H
#define EMU_BLAS_UNSUPPORTED_H

#include "say.h"

/** CUBLAS_STATUS_NOT_SUPPORTED, which this header cannot name (cublas.c checks the two agree). */
enum { BLAS_NOT_SUPPORTED = 15 };

/** What a stub answers: one line naming the call, and CUBLAS_STATUS_NOT_SUPPORTED. */
static inline int blas_not_supported(const char *name)
{
    emu_say("%s is not emulated (CUBLAS_STATUS_NOT_SUPPORTED)", name);
    return BLAS_NOT_SUPPORTED;
}

#define UNSUPPORTED(name) EMU_STUB(name, blas_not_supported)

#endif /* EMU_BLAS_UNSUPPORTED_H */
