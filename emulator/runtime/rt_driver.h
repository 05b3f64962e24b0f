/**
 * @file rt_driver.h
 * @brief What the runtime stand-in lends the driver stand-in (libcuda.so.1, emulator/driver/).
 *
 * The two libraries share one device: the driver's memory, streams, events and launches are
 * the runtime's, called through the CUDA runtime API, and the few things that API cannot say
 * (a module loaded from PTX text, a function found by name) are these. They are exported by
 * libcudart.so.13 (its version script exports course_emu_*), declared here only: programs
 * never call them.
 */
#ifndef EMU_RT_DRIVER_H
#define EMU_RT_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/**
 * Load the @p len bytes of PTX text at @p ptx as a module now (cuModuleLoadData); @p origin
 * names it in messages. Returns the module, or NULL with the cudaError_t in *err after one line
 * on stderr saying why.
 */
void *course_emu_drv_load(const char *ptx, size_t len, const char *origin, int *err);

/** Forget module @p module's functions (cuModuleUnload): launches through them fail. */
void course_emu_drv_unload(void *module);

/** How many kernels module @p module holds. */
unsigned course_emu_drv_kernel_count(void *module);

/**
 * The kernel named @p name (mangled, as in the PTX) of module @p module, or NULL. The value is a
 * key that cudaLaunchKernel, cudaLaunchKernelExC, cudaFuncGetAttributes and cudaFuncSetAttribute
 * take as they take a kernel's host stub; asking again returns the same key.
 */
const void *course_emu_drv_function(void *module, const char *name);

/** The function key of module @p module's kernel number @p index (in PTX order), or NULL. */
const void *course_emu_drv_function_at(void *module, unsigned index);

/** The module function key @p f belongs to, or NULL. */
void *course_emu_drv_function_module(const void *f);

/** The name of function key @p f (course_emu_drv_function()'s, or a registered host stub's). */
const char *course_emu_drv_function_name(const void *f);

/** Parameter layout of function key @p f: 0 with *n, *params and *bytes, or -1. */
int course_emu_drv_params(const void *f, uint32_t *n, const struct proto_param **params,
                          uint32_t *bytes);

/** A fill of @p height rows, @p pitch apart, of @p width bytes of @p elem-byte elements (1, 2
 *  or 4) holding @p value, on @p stream (cuMemsetD8 to D32 and their 2D and Async forms; a
 *  synchronous one, @p async 0, on the stream that call names): 0, or the cudaError_t. */
int course_emu_drv_fill(void *dev, size_t pitch, uint32_t value, unsigned elem, size_t width,
                        size_t height, cudaStream_t stream, int async, const char *who);

/** Address and size of module variable @p name (cuModuleGetGlobal): 0, or the cudaError_t. */
int course_emu_drv_global(void *module, const char *name, uint64_t *addr, size_t *size);

/** cudaMalloc on behalf of the program's code at @p caller (the leak check names it). */
int course_emu_drv_malloc(void **p, size_t size, const void *caller);

/** The allocation holding device address @p addr (cuMemGetAddressRange): 1 with its first
 *  byte's address in *base and its size in *size, or 0 when no allocation holds it. */
int course_emu_drv_range(uint64_t addr, uint64_t *base, uint64_t *size);

/** 1 once the program made the runtime's primary context (cudaSetDevice, or anything that
 *  started the device): it is then current on every thread that pushed no context of its own. */
int course_emu_drv_started(void);

/** The runtime's calls on this thread go to device @p device (a context made current). */
void course_emu_drv_use_device(int device);

/** 1 once the runtime was used (a device query, or the device started): as CUDA's runtime
 *  initialises the driver, the driver needs no cuInit then. */
int course_emu_drv_runtime_used(void);

/* --- virtual memory management (rt_vmm.c; the driver's drv_vmm.c) ------------------------ */

/** The device addresses reservations may use, [*lo, *hi) (starts the device): 0, or the
 *  cudaError_t. */
int course_emu_vmm_area(uint64_t *lo, uint64_t *hi);

/** Show the memory of the device block at @p backing at [@p addr, @p addr + @p size), a range
 *  of that area, here and on the server (cuMemMap): 0, or the cudaError_t after one line. */
int course_emu_vmm_map(uint64_t addr, uint64_t size, uint64_t backing);

/** Take a mapping's memory away from [@p addr, @p addr + @p size) again (cuMemUnmap). */
int course_emu_vmm_unmap(uint64_t addr, uint64_t size);

/** Enter [@p addr, @p addr + @p size), mapped, in the allocation tables as one allocation of
 *  device @p device (@p on), or take it out: what kernels, copies and fills may touch. */
int course_emu_vmm_publish(uint64_t addr, uint64_t size, int device, int on);

#endif /* EMU_RT_DRIVER_H */
