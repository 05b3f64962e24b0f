/**
 * @file drv_library.c
 * @brief The driver stand-in: CUDA 12's libraries (cuLibraryLoadData and the rest), which load
 *        code for every context at once, as NVIDIA's cuda.core and newer driver-API code load
 *        it, and their kernels (CUkernel).
 *
 * There is one device state (drv.h), so a library is a module loaded once (drv_load(), the same
 * images cuModuleLoadData takes), and a CUkernel is that module's CUfunction: CUDA lets a
 * program pass a CUkernel where a CUfunction goes, and cuKernelGetFunction hands back the same
 * handle. Library options (code kept by the caller, and the like) change nothing here.
 */
#include <stdlib.h>

#include "alloc.h"
#include "drv.h"

enum { LIBRARY_MAGIC = 0x4C1B4A11u };

struct CUlib_st {
    unsigned magic;
    CUmodule mod;
    struct CUlib_st *next;
};

/** The libraries loaded and not unloaded (cuKernelGetLibrary finds a kernel's among them). */
static struct CUlib_st *libraries;

static int valid_library(CUlibrary l)
{
    return l && l->magic == LIBRARY_MAGIC;
}

/* A library of @p image for @p who (origin @p origin), or an error after one line. */
static CUresult load_library(CUlibrary *library, const void *image, const char *who,
                             const char *origin, CUjit_option *jitOptions, void **jitOptionsValues,
                             unsigned int numJitOptions)
{
    CUmodule mod;
    CUresult r = drv_args(CUDA_SUCCESS, !library);
    if (r == CUDA_SUCCESS)
        r = drv_load(&mod, image, who, origin, numJitOptions, jitOptions, jitOptionsValues);
    if (r != CUDA_SUCCESS)
        return r;
    struct CUlib_st *l = emu_calloc(1, sizeof *l);
    *l = (struct CUlib_st){LIBRARY_MAGIC, mod, libraries};
    libraries = l;
    *library = l;
    return CUDA_SUCCESS;
}

CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                           void **jitOptionsValues, unsigned int numJitOptions,
                           CUlibraryOption *libraryOptions, void **libraryOptionValues,
                           unsigned int numLibraryOptions)
{
    (void)libraryOptions, (void)libraryOptionValues, (void)numLibraryOptions;
    return load_library(library, code, "cuLibraryLoadData", "the image cuLibraryLoadData was given",
                        jitOptions, jitOptionsValues, numJitOptions);
}

CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName, CUjit_option *jitOptions,
                               void **jitOptionsValues, unsigned int numJitOptions,
                               CUlibraryOption *libraryOptions, void **libraryOptionValues,
                               unsigned int numLibraryOptions)
{
    (void)libraryOptions, (void)libraryOptionValues, (void)numLibraryOptions;
    CUresult r = drv_args(drv_ready("cuLibraryLoadFromFile"), !fileName);
    char *image = r == CUDA_SUCCESS ? drv_read_file(fileName) : NULL;
    if (r == CUDA_SUCCESS && !image) {
        emu_say("cuLibraryLoadFromFile: cannot read %s (CUDA_ERROR_FILE_NOT_FOUND)", fileName);
        return CUDA_ERROR_FILE_NOT_FOUND;
    }
    if (r == CUDA_SUCCESS)
        r = load_library(library, image, "cuLibraryLoadFromFile", fileName, jitOptions,
                         jitOptionsValues, numJitOptions);
    free(image);
    return r;
}

CUresult cuLibraryUnload(CUlibrary library)
{
    if (!valid_library(library))
        return CUDA_ERROR_INVALID_HANDLE;
    for (struct CUlib_st **p = &libraries; *p; p = &(*p)->next)
        if (*p == library) {
            *p = library->next;
            break;
        }
    CUresult r = cuModuleUnload(library->mod);
    library->magic = 0;
    free(library);
    return r;
}

CUresult cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
    if (!valid_library(library) || !pMod)
        return !valid_library(library) ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE;
    *pMod = library->mod;
    return CUDA_SUCCESS;
}

CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
    if (!valid_library(library))
        return CUDA_ERROR_INVALID_HANDLE;
    return cuModuleGetFunction((CUfunction *)pKernel, library->mod, name);
}

CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib)
{
    if (!valid_library(lib))
        return CUDA_ERROR_INVALID_HANDLE;
    return cuModuleGetFunctionCount(count, lib->mod);
}

CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int numKernels, CUlibrary lib)
{
    if (!valid_library(lib))
        return CUDA_ERROR_INVALID_HANDLE;
    return cuModuleEnumerateFunctions((CUfunction *)kernels, numKernels, lib->mod);
}

CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name)
{
    if (!valid_library(library))
        return CUDA_ERROR_INVALID_HANDLE;
    return cuModuleGetGlobal_v2(dptr, bytes, library->mod, name);
}

/* A __managed__ variable is one the host reaches at its device address. */
CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name)
{
    return cuLibraryGetGlobal(dptr, bytes, library, name);
}

CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    CUresult r = drv_args(drv_valid_function((CUfunction)kernel, "cuKernelGetFunction"), !pFunc);
    if (r == CUDA_SUCCESS)
        *pFunc = (CUfunction)kernel;
    return r;
}

CUresult cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel)
{
    CUmodule mod;
    CUresult r = drv_args(CUDA_SUCCESS, !pLib);
    if (r == CUDA_SUCCESS)
        r = cuFuncGetModule(&mod, (CUfunction)kernel);
    struct CUlib_st *l = libraries;
    while (r == CUDA_SUCCESS && l && l->mod != mod)
        l = l->next;
    if (r == CUDA_SUCCESS && !l)
        return CUDA_ERROR_NOT_FOUND; /* a module's function, not a library's */
    if (r == CUDA_SUCCESS)
        *pLib = l;
    return r;
}

/* A kernel's attributes are the same on every emulated device. */
CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev)
{
    CUresult r = drv_device_ok(dev, "cuKernelGetAttribute");
    return r != CUDA_SUCCESS ? r : cuFuncGetAttribute(pi, attrib, (CUfunction)kernel);
}

CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev)
{
    CUresult r = drv_device_ok(dev, "cuKernelSetAttribute");
    return r != CUDA_SUCCESS ? r : cuFuncSetAttribute((CUfunction)kernel, attrib, val);
}

CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev)
{
    CUresult r = drv_device_ok(dev, "cuKernelSetCacheConfig");
    return r != CUDA_SUCCESS ? r : cuFuncSetCacheConfig((CUfunction)kernel, config);
}

CUresult cuKernelGetName(const char **name, CUkernel hfunc)
{
    return cuFuncGetName(name, (CUfunction)hfunc);
}

CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset,
                              size_t *paramSize)
{
    return cuFuncGetParamInfo((CUfunction)kernel, paramIndex, paramOffset, paramSize);
}
