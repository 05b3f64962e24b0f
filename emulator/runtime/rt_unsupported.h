/**
 * @file rt_unsupported.h
 * @brief UNSUPPORTED(name): a runtime entry point the stand-in exports but does not emulate,
 *        answering cudaErrorNotSupported and one line naming it (rt_not_supported(), rt_core.c).
 *
 * For rt_unsupported.c and rt_cuda12_unsupported.c, which include no CUDA header on purpose:
 * each stub is defined without parameters, which the x86-64 calling convention lets any caller
 * call; the return value is cudaError_t's.
 */
#ifndef EMU_RT_UNSUPPORTED_H
#define EMU_RT_UNSUPPORTED_H

#include "say.h"

int rt_not_supported(const char *name);

#define UNSUPPORTED(name) EMU_STUB(name, rt_not_supported)

#endif
