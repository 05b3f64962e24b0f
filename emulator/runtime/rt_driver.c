/**
 * @file rt_driver.c
 * @brief The runtime stand-in's side of the driver API: what it lends libcuda.so.1
 *        (rt_driver.h), and cudaGetDriverEntryPoint, which answers from it.
 *
 * A module the driver loads from PTX text is an rt_module like a registered fat binary's,
 * loaded at once; a function found in it by name is an rt_function whose host key is itself,
 * so every runtime call that takes a kernel's host stub takes it too (as CUDA 12's runtime
 * takes a CUfunction). cudaGetDriverEntryPoint opens the driver stand-in that sits beside
 * this library and asks its cuGetProcAddress, as the real runtime asks the real driver; CUDA
 * 12's libraries (cudaLibrary*) are the driver's, reached the same way.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "rt_driver.h"

void *course_emu_drv_load(const char *ptx, size_t len, const char *origin, int *err)
{
    cudaError_t e;
    rt_lock();
    struct rt_module *m = rt_module_from_ptx(ptx, len, origin, &e);
    rt_unlock();
    *err = (int)e;
    return m;
}

void course_emu_drv_unload(void *module)
{
    struct rt_module *m = module;
    rt_lock();
    m->state = -1;
    m->error = cudaErrorInvalidResourceHandle;
    rt_unlock();
}

unsigned course_emu_drv_kernel_count(void *module)
{
    return ((struct rt_module *)module)->nkernels;
}

const void *course_emu_drv_function(void *module, const char *name)
{
    rt_lock();
    struct rt_function *f = rt_function_named(module, name);
    rt_unlock();
    return f ? f->host : NULL;
}

const void *course_emu_drv_function_at(void *module, unsigned index)
{
    struct rt_module *m = module;
    return index < m->nkernels ? course_emu_drv_function(module, m->kernels[index].name) : NULL;
}

void *course_emu_drv_function_module(const void *f)
{
    rt_lock();
    struct rt_function *fn = rt_function_of(f);
    rt_unlock();
    return fn ? fn->module : NULL;
}

const char *course_emu_drv_function_name(const void *f)
{
    rt_lock();
    struct rt_function *fn = rt_function_of(f);
    rt_unlock();
    return fn ? fn->name : NULL;
}

int course_emu_drv_params(const void *f, uint32_t *n, const struct proto_param **params,
                          uint32_t *bytes)
{
    cudaError_t err = cudaSuccess;
    rt_lock();
    struct rt_function *fn = rt_function_of(f);
    const struct rt_kernel *k = fn ? rt_kernel_of(fn, &err) : NULL;
    if (k)
        *n = k->nparams, *params = k->params, *bytes = k->param_bytes;
    rt_unlock();
    return k ? 0 : -1;
}

int course_emu_drv_global(void *module, const char *name, uint64_t *addr, size_t *size)
{
    struct rt_module *m = module;
    struct proto_symbol q = {m->id};
    struct iovec parts[2] = {{&q, sizeof q}, {(void *)name, strlen(name) + 1}};
    struct proto_msg reply;
    struct proto_symbol_at at = {0, 0};
    rt_lock();
    cudaError_t err = m->state > 0 ? rt_device() : m->error;
    if (err == cudaSuccess && rt_call(PROTO_SYMBOL, parts, 2, &reply) == 0) {
        if (reply.op == PROTO_SYMBOL_AT && reply.len == sizeof at)
            memcpy(&at, reply.data, sizeof at);
        free(reply.data);
    } else if (err == cudaSuccess) {
        err = rt.sticky;
    }
    rt_unlock();
    if (err == cudaSuccess && !at.addr)
        err = cudaErrorSymbolNotFound;
    *addr = at.addr;
    *size = (size_t)at.size;
    return (int)err;
}

int course_emu_drv_malloc(void **p, size_t size, const void *caller)
{
    return (int)rt_malloc_at(p, size, caller);
}

int course_emu_drv_started(void)
{
    return rt.started || rt.device_set;
}

void course_emu_drv_use_device(int device)
{
    rt_self()->device = device;
}

/* The runtime has been asked about devices (rt.gpus read) or started the device: CUDA would have
 * initialised the driver then. */
int course_emu_drv_runtime_used(void)
{
    return rt.started || rt.gpus;
}

/* --- cudaGetDriverEntryPoint ------------------------------------------------------------ */

/** cuGetProcAddress_v2's type (cuda.h), spelled without the driver's headers. */
typedef int (*get_proc_fn)(const char *symbol, void **pfn, int version, unsigned long long flags,
                           int *status);

/* The driver stand-in's cuGetProcAddress_v2: libcuda.so.1 beside this library (the loader may
 * hold it already, when the program links it), or NULL after one line. */
static get_proc_fn driver_lookup(void)
{
    static get_proc_fn fn;
    Dl_info info;
    char path[4096] = "libcuda.so.1";
    if (fn)
        return fn;
    const char *slash;
    if (dladdr((void *)driver_lookup, &info) && info.dli_fname &&
        (slash = strrchr(info.dli_fname, '/')))
        snprintf(path, sizeof path, "%.*s/libcuda.so.1", (int)(slash - info.dli_fname),
                 info.dli_fname);
    void *lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    fn = lib ? (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2") : NULL;
    if (!fn)
        emu_say("cudaGetDriverEntryPoint: the driver stand-in %s cannot be opened (%s)", path,
                dlerror());
    return fn;
}

/* What both entry points do: the driver's answer for CUDA version @p version. */
static cudaError_t entry_point(const char *symbol, void **funcPtr, int version,
                               unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *driverStatus)
{
    get_proc_fn lookup = driver_lookup();
    int status = cudaDriverEntryPointSymbolNotFound;
    if (!symbol || !funcPtr)
        return rt_error(cudaErrorInvalidValue);
    *funcPtr = NULL;
    int err = lookup ? lookup(symbol, funcPtr, version, flags, &status) : 1;
    if (driverStatus)
        *driverStatus = (enum cudaDriverEntryPointQueryResult)status;
    /* CUDA answers a symbol it does not know with success and a NULL pointer, and the status. */
    return lookup && (err == 0 || err == 500) ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                             unsigned int cudaVersion, unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, (int)cudaVersion, flags, driverStatus);
}

cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                         unsigned long long flags,
                                         enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

cudaError_t
cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                      unsigned long long flags,
                                      enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, (int)cudaVersion, flags, driverStatus);
}

/* --- libraries: the driver's cuLibrary*, asked through its cuGetProcAddress as the real
 * runtime asks the real driver. Only with CUDA 13: the driver's stand-in is built with CUDA 13
 * alone (emulator/CMakeLists.txt), and CUDA 12.4's headers have no cudaLibrary_t ----------- */
#if CUDART_VERSION >= 13000

/* The body of a library call: the device started (the driver needs its context), then the
 * driver's @p name, of type @p type, called with the arguments that follow. */
#define DRIVER_CALL(name, type, ...)                                                               \
    do {                                                                                           \
        void *fn_ = NULL;                                                                          \
        rt_lock();                                                                                 \
        cudaError_t err_ = rt_device();                                                            \
        rt_unlock();                                                                               \
        if (err_ == cudaSuccess)                                                                   \
            err_ = entry_point(name, &fn_, CUDART_VERSION, 0, NULL);                               \
        if (err_ == cudaSuccess && !fn_)                                                           \
            err_ = cudaErrorNotSupported;                                                          \
        return rt_error(err_ == cudaSuccess ? (cudaError_t)((type)fn_)(__VA_ARGS__) : err_);       \
    } while (0)

/* cudaJitOption and cudaLibraryOption number their options as CUjit_option and CUlibraryOption
 * do, and CUresult its codes as cudaError_t does where these calls can fail. */
typedef int (*load_data_fn)(void **, const void *, int *, void **, unsigned, int *, void **,
                            unsigned);
typedef int (*load_file_fn)(void **, const char *, int *, void **, unsigned, int *, void **,
                            unsigned);
typedef int (*by_name_fn)(void **, void *, const char *);
typedef int (*global_fn)(void **, size_t *, void *, const char *);

cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code,
                                enum cudaJitOption *jitOptions, void **jitOptionsValues,
                                unsigned int numJitOptions, enum cudaLibraryOption *libraryOptions,
                                void **libraryOptionValues, unsigned int numLibraryOptions)
{
    DRIVER_CALL("cuLibraryLoadData", load_data_fn, (void **)library, code, (int *)jitOptions,
                jitOptionsValues, numJitOptions, (int *)libraryOptions, libraryOptionValues,
                numLibraryOptions);
}

cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t *library, const char *fileName,
                                    enum cudaJitOption *jitOptions, void **jitOptionsValues,
                                    unsigned int numJitOptions,
                                    enum cudaLibraryOption *libraryOptions,
                                    void **libraryOptionValues, unsigned int numLibraryOptions)
{
    DRIVER_CALL("cuLibraryLoadFromFile", load_file_fn, (void **)library, fileName,
                (int *)jitOptions, jitOptionsValues, numJitOptions, (int *)libraryOptions,
                libraryOptionValues, numLibraryOptions);
}

cudaError_t cudaLibraryUnload(cudaLibrary_t library)
{
    DRIVER_CALL("cuLibraryUnload", int (*)(void *), library);
}

/* A library's kernel is the CUfunction the runtime launches as it launches a host stub. */
cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library, const char *name)
{
    DRIVER_CALL("cuLibraryGetKernel", by_name_fn, (void **)pKernel, library, name);
}

cudaError_t cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t lib)
{
    DRIVER_CALL("cuLibraryGetKernelCount", int (*)(unsigned *, void *), count, lib);
}

cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t *kernels, unsigned int numKernels,
                                        cudaLibrary_t lib)
{
    DRIVER_CALL("cuLibraryEnumerateKernels", int (*)(void **, unsigned, void *), (void **)kernels,
                numKernels, lib);
}

cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library,
                                 const char *name)
{
    DRIVER_CALL("cuLibraryGetGlobal", global_fn, dptr, bytes, library, name);
}

cudaError_t cudaLibraryGetManaged(void **dptr, size_t *bytes, cudaLibrary_t library,
                                  const char *name)
{
    DRIVER_CALL("cuLibraryGetManaged", global_fn, dptr, bytes, library, name);
}

cudaError_t cudaLibraryGetUnifiedFunction(void **fptr, cudaLibrary_t library, const char *symbol)
{
    DRIVER_CALL("cuLibraryGetUnifiedFunction", by_name_fn, fptr, library, symbol);
}
#endif
