/**
 * @file drv.h
 * @brief Inside the driver stand-in (libcuda.so.1): the state its files share.
 *
 * The driver API is a thin layer over the runtime stand-in, which owns the one device
 * (rt_driver.h): memory, copies, streams, events and launches go through the CUDA runtime API,
 * so a program may mix both APIs and see one device whichever it calls first. The driver adds
 * what the runtime has no words for: contexts, modules loaded from PTX at run time, functions
 * found by name, tensor maps and the versioned entry points of cuGetProcAddress.
 *
 * Files: drv_init.c (cuInit, devices, contexts, errors), drv_module.c (modules, functions,
 * launches), drv_memory.c (memory, copies, fills, streams, events), drv_vmm.c (virtual memory
 * management: reservations, physical allocations, mappings), drv_array.c (arrays, 2D and
 * 3D copies, texture objects), drv_tensor.c (tensor maps), drv_graph.c and drv_graph_edit.c
 * (graphs and stream capture, through the runtime's), drv_library.c (libraries and their kernels),
 * drv_pool.c (pools, managed and registered memory, peers, IPC), drv_proc.c (cuGetProcAddress),
 * drv_unsupported.c (every other function libcuda exports).
 *
 * Every entry point is defined under its exported name (cuMemAlloc_v2, cuMemcpyHtoD_v2_ptds):
 * cuda.h is included as the driver's own build includes it (__CUDA_API_VERSION_INTERNAL), so
 * each has its prototype and the unversioned names mean the legacy functions.
 */
#ifndef EMU_DRV_H
#define EMU_DRV_H

#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "say.h"

/** The CUresult a runtime error stands for (most codes are the same number). */
CUresult drv_result(cudaError_t err);

/** CUDA_SUCCESS when the driver may be used: cuInit was called (or the runtime started the
 *  device) and a context is current on this thread; otherwise the error, after one line naming
 *  @p who. */
CUresult drv_ready(const char *who);

/** drv_ready() without the context: initialised is enough (device queries). */
CUresult drv_initialised(const char *who);

/** CUDA_SUCCESS when @p dev is an emulated device; else CUDA_ERROR_INVALID_DEVICE (or
 *  drv_initialised's error) after one line naming @p who. */
CUresult drv_device_ok(CUdevice dev, const char *who);

/** The whole body of a driver call the runtime answers: @p who's readiness (drv_ready), then,
 *  only if ready, the runtime's @p call, its result in the driver's terms. */
#define DRV_FORWARD(who, call)                                                                     \
    do {                                                                                           \
        CUresult ready_ = drv_ready(who);                                                          \
        return ready_ != CUDA_SUCCESS ? ready_ : drv_result(call);                                 \
    } while (0)

/** @p r, or CUDA_ERROR_INVALID_VALUE where @p r is CUDA_SUCCESS but the call's arguments are
 *  @p bad (a NULL place to write the answer, a zero size): the driver's first checks in order. */
CUresult drv_args(CUresult r, int bad);

/** The stream a driver call names: 0 is the legacy stream, or this thread's own in a _ptsz or
 *  _ptds entry point (@p per_thread). */
cudaStream_t drv_stream(CUstream s, int per_thread);

/** CUDA_SUCCESS when @p f is a function cuModuleGetFunction returned; else
 *  CUDA_ERROR_INVALID_HANDLE after one line naming @p who (drv_module.c). */
CUresult drv_valid_function(CUfunction f, const char *who);

/** The argument pointers of a launch of @p f into *@p args: @p params as given, or pointers into
 *  the buffer @p extra names (valid until this thread's next call); after drv_valid_function. */
CUresult drv_kernel_args(CUfunction f, void **params, void **extra, void ***args, const char *who);

/** The runtime's parameters of 3D copy @p c into *@p p (drv_array.c); an error after one line
 *  naming @p who when they cannot be. */
CUresult drv_copy_parms(const CUDA_MEMCPY3D *c, struct cudaMemcpy3DParms *p, const char *who);

/** Load @p image (PTX text, nvcc's -ptx or -fatbin output, a fat binary) as a module into
 *  *@p module for call @p who; @p origin names it in messages, and the JIT options' error log
 *  says why it failed (drv_module.c). */
CUresult drv_load(CUmodule *module, const void *image, const char *who, const char *origin,
                  unsigned nopts, CUjit_option *options, void **values);

/** The whole file @p path, NUL-terminated (malloc'd), or NULL. */
char *drv_read_file(const char *path);

/** Graph node parameters @p p as the runtime's, into @p q, for call @p who (drv_graph.c);
 *  CUDA_ERROR_NOT_SUPPORTED after one line for the node kinds the runtime does not take. */
CUresult drv_node_params(const CUgraphNodeParams *p, struct cudaGraphNodeParams *q,
                         const char *who);

/** Say "NAME is not emulated" in one line and return CUDA_ERROR_NOT_SUPPORTED
 *  (drv_unsupported.c's stubs). */
int drv_not_supported(const char *name);

#endif /* EMU_DRV_H */
