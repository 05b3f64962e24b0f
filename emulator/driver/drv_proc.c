/**
 * @file drv_proc.c
 * @brief The driver stand-in: cuGetProcAddress, which the runtime's cudaGetDriverEntryPoint
 *        and programs that never link libcuda (CUTLASS, many Hopper kernels) call for
 *        cuTensorMapEncodeTiled and the rest.
 *
 * A symbol is asked for by its base name and the CUDA version the caller was built for; CUDA
 * answers the newest entry point that version knows. libcuda exports a symbol's versions as
 * NAME, NAME_v2, NAME_v3, ... in the order cudaTypedefs.h dates them (PFN_NAME_v3020 and so
 * on): versions[] lists, for each symbol with more than one, the CUDA version that introduced
 * each of _v2, _v3, _v4 (emulator.driver.proc_address_versions checks the table against the
 * toolkit's cudaTypedefs.h). With CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM the _ptds or
 * _ptsz form is answered where there is one. Every name libcuda exports resolves, to this
 * library's function or to its one-line refusal (drv_unsupported.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "drv.h"

/** The CUDA versions that introduced NAME_v2, NAME_v3 and NAME_v4 (0: none). */
static const struct {
    const char *name;
    int since[3];
} versions[] = {
    {"cuArray3DCreate", {3020}},
    {"cuArray3DGetDescriptor", {3020}},
    {"cuArrayCreate", {3020}},
    {"cuArrayGetDescriptor", {3020}},
    {"cuCtxCreate", {3020, 11040, 12050}},
    {"cuCtxDestroy", {4000}},
    {"cuCtxGetDevice", {13000}},
    {"cuCtxPopCurrent", {4000}},
    {"cuCtxPushCurrent", {4000}},
    {"cuCtxSynchronize", {13000}},
    {"cuDeviceGetUuid", {11040}},
    {"cuDevicePrimaryCtxRelease", {11000}},
    {"cuDevicePrimaryCtxReset", {11000}},
    {"cuDevicePrimaryCtxSetFlags", {11000}},
    {"cuDeviceTotalMem", {3020}},
    {"cuEventDestroy", {4000}},
    {"cuEventElapsedTime", {12080}},
    {"cuGetProcAddress", {12000}},
    {"cuGraphAddDependencies", {12030}},
    {"cuGraphAddKernelNode", {12000}},
    {"cuGraphAddNode", {12030}},
    {"cuGraphExecKernelNodeSetParams", {12000}},
    {"cuGraphExecUpdate", {12000}},
    {"cuGraphGetEdges", {12030}},
    {"cuGraphInstantiate", {11000}},
    {"cuGraphKernelNodeGetParams", {12000}},
    {"cuGraphKernelNodeSetParams", {12000}},
    {"cuGraphNodeGetDependencies", {12030}},
    {"cuGraphNodeGetDependentNodes", {12030}},
    {"cuGraphRemoveDependencies", {12030}},
    {"cuGraphicsResourceGetMappedPointer", {3020}},
    {"cuGraphicsResourceSetMapFlags", {6050}},
    {"cuIpcOpenMemHandle", {11000}},
    {"cuLinkAddData", {6050}},
    {"cuLinkAddFile", {6050}},
    {"cuLinkCreate", {6050}},
    {"cuMemAdvise", {12020}},
    {"cuMemAlloc", {3020}},
    {"cuMemAllocHost", {3020}},
    {"cuMemAllocPitch", {3020}},
    {"cuMemFree", {3020}},
    {"cuMemGetAddressRange", {3020}},
    {"cuMemGetInfo", {3020}},
    {"cuMemHostGetDevicePointer", {3020}},
    {"cuMemHostRegister", {6050}},
    {"cuMemPrefetchAsync", {12020}},
    {"cuMemcpy2D", {3020}},
    {"cuMemcpy2DAsync", {3020}},
    {"cuMemcpy2DUnaligned", {3020}},
    {"cuMemcpy3D", {3020}},
    {"cuMemcpy3DAsync", {3020}},
    {"cuMemcpy3DBatchAsync", {13000}},
    {"cuMemcpyAtoA", {3020}},
    {"cuMemcpyAtoD", {3020}},
    {"cuMemcpyAtoH", {3020}},
    {"cuMemcpyAtoHAsync", {3020}},
    {"cuMemcpyBatchAsync", {13000}},
    {"cuMemcpyDtoA", {3020}},
    {"cuMemcpyDtoD", {3020}},
    {"cuMemcpyDtoDAsync", {3020}},
    {"cuMemcpyDtoH", {3020}},
    {"cuMemcpyDtoHAsync", {3020}},
    {"cuMemcpyHtoA", {3020}},
    {"cuMemcpyHtoAAsync", {3020}},
    {"cuMemcpyHtoD", {3020}},
    {"cuMemcpyHtoDAsync", {3020}},
    {"cuMemsetD16", {3020}},
    {"cuMemsetD2D16", {3020}},
    {"cuMemsetD2D32", {3020}},
    {"cuMemsetD2D8", {3020}},
    {"cuMemsetD32", {3020}},
    {"cuMemsetD8", {3020}},
    {"cuModuleGetGlobal", {3020}},
    {"cuStreamBatchMemOp", {11070}},
    {"cuStreamBeginCapture", {10010}},
    {"cuStreamDestroy", {4000}},
    {"cuStreamGetCaptureInfo", {11030, 12030}},
    {"cuStreamGetCtx", {12050}},
    {"cuStreamUpdateCaptureDependencies", {12030}},
    {"cuStreamWaitValue32", {11070}},
    {"cuStreamWaitValue64", {11070}},
    {"cuStreamWriteValue32", {11070}},
    {"cuStreamWriteValue64", {11070}},
    {"cuTexRefGetAddress", {3020}},
    {"cuTexRefSetAddress", {3020}},
    {"cuTexRefSetAddress2D", {3020, 4010}},
};

/* This library's own symbol @p name, or NULL. */
static void *own(const char *name)
{
    static void *self;
    Dl_info info;
    if (!self && dladdr((void *)own, &info) && info.dli_fname)
        self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    return self ? dlsym(self, name) : NULL;
}

/* The exported name a caller built for CUDA @p version means by @p symbol, into @p out. */
static void versioned(const char *symbol, int version, char *out, size_t size)
{
    snprintf(out, size, "%s", symbol);
    for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
        if (strcmp(versions[i].name, symbol))
            continue;
        int v = 0;
        while (v < 3 && versions[i].since[v] && versions[i].since[v] <= version)
            v++;
        if (v)
            snprintf(out, size, "%s_v%d", symbol, v + 1);
        return;
    }
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus)
{
    char name[256], per_thread[280];
    if (!symbol || !pfn)
        return CUDA_ERROR_INVALID_VALUE;
    versioned(symbol, cudaVersion, name, sizeof name);
    *pfn = NULL;
    if (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) {
        snprintf(per_thread, sizeof per_thread, "%s_ptds", name);
        *pfn = own(per_thread);
        snprintf(per_thread, sizeof per_thread, "%s_ptsz", name);
        *pfn = *pfn ? *pfn : own(per_thread);
    }
    if (!*pfn && strncmp(symbol, "cu", 2) == 0 && symbol[2] >= 'A' && symbol[2] <= 'Z')
        *pfn = own(name);
    if (symbolStatus)
        *symbolStatus = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, NULL);
}

/* NVIDIA's own compilers (NVRTC, nvJitLink, the PTX compiler) ask a loaded libcuda for private
 * tables by UUID, and go on without them: they are not blamed for a call the program never
 * made. */
static int compiler(const char *file)
{
    return strstr(file, "nvrtc") || strstr(file, "nvJitLink") || strstr(file, "nvptxcompiler");
}

/* NVIDIA's libraries the emulator has no stand-in for (cuDNN, cuSPARSE, cuSOLVER, NPP, nvJPEG,
 * cuTENSOR, CUPTI and its profiler host, nvperf), which hold NVIDIA's runtime: no rebuild of them
 * is possible, only another library. */
static int nvidia_library(const char *file)
{
    static const char *const names[] = {"libcudnn",  "libcusparse", "libcusolver", "libnpp",
                                        "libnvjpeg", "libcutensor", "libcupti",    "libnvperf"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strstr(file, names[i]))
            return 1;
    return 0;
}

/* So does NVIDIA's CUDA runtime linked into a program or a library (nvcc's default, -cudart
 * static; the wheels of cuda.bindings.runtime and CuPy), which drives a GPU itself and never
 * reaches the emulator's libcudart. There are none here: its file is named once, with what runs
 * on the emulator instead. */
CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    static int told;
    Dl_info caller;
    (void)pExportTableId;
    if (ppExportTable)
        *ppExportTable = NULL;
    if (!told && dladdr(__builtin_return_address(0), &caller) && caller.dli_fname &&
        !compiler(caller.dli_fname)) {
        told = 1;
        if (nvidia_library(caller.dli_fname))
            emu_say("%s is NVIDIA's own library, which drives a GPU through NVIDIA's runtime: it "
                    "has no stand-in in the emulator (cuBLAS, cuBLASLt, cuFFT, cuRAND and NCCL "
                    "have), and its calls fail",
                    caller.dli_fname);
        else
            emu_say(
                "%s holds NVIDIA's CUDA runtime linked in (nvcc's default, -cudart static), which "
                "needs a GPU's driver: a program or library built with -cudart shared (CMake: "
                "CUDA_RUNTIME_LIBRARY Shared) runs on the emulator, and so do driver API calls "
                "(cuda.bindings.driver, cuda.core's)",
                caller.dli_fname);
    }
    return CUDA_ERROR_NOT_SUPPORTED;
}
