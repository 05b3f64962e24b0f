/**
 * @file drv_init.c
 * @brief The driver stand-in: cuInit, versions, devices, contexts and error names.
 *
 * Devices are the runtime's (COURSE_EMU_GPUS of them, sm_90). A context is a device and a
 * handle: every context of one device shares that device's memory and work, as the runtime's
 * primary context does, so a context changes nothing but which device the calls after it use
 * (cudaSetDevice). Each thread keeps a stack of current contexts; with none pushed, once the
 * runtime has started the device, the primary context of the runtime's current device is
 * current, as CUDA makes it for a program that used the runtime first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "drv.h"
#include "rt_driver.h"

/** A context: which device it is for. */
struct CUctx_st {
    unsigned magic;
    int device;
    int primary;    /**< one of the devices' primary contexts (never freed) */
    unsigned flags; /**< as created, or as cuDevicePrimaryCtxSetFlags set them */
    int retained;   /**< primary: cuDevicePrimaryCtxRetain calls not yet released */
};

enum { CTX_MAGIC = 0xC7C7C7C7u, MAX_DEVICES = 16, MAX_PUSHED = 32 };

static int initialised;
static struct CUctx_st primaries[MAX_DEVICES];
static _Thread_local CUcontext pushed[MAX_PUSHED];
static _Thread_local int npushed;

int drv_not_supported(const char *name)
{
    emu_say("%s is not emulated (CUDA_ERROR_NOT_SUPPORTED)", name);
    return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult drv_result(cudaError_t err)
{
    switch (err) {
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidMemcpyDirection:
    case cudaErrorInvalidHostPointer:
        return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorInvalidDeviceFunction:
        return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorInvalidSymbol:
        return CUDA_ERROR_NOT_FOUND;
    case cudaErrorMissingConfiguration:
        return CUDA_ERROR_INVALID_VALUE;
    default: /* every other runtime code the stand-in returns has the driver's number */
        return (CUresult)err;
    }
}

/* The primary context of device @p dev. */
static CUcontext primary_of(int dev)
{
    struct CUctx_st *c = &primaries[dev];
    if (!c->magic)
        *c = (struct CUctx_st){CTX_MAGIC, dev, 1, 0, 0};
    return c;
}

/* The thread's current context, or NULL. */
static CUcontext current(void)
{
    if (npushed)
        return pushed[npushed - 1];
    int dev = 0;
    if (course_emu_drv_started() && cudaGetDevice(&dev) == cudaSuccess)
        return primary_of(dev);
    return NULL;
}

static int valid_ctx(CUcontext c)
{
    return c && c->magic == CTX_MAGIC;
}

/* Make @p c the device the runtime's calls use. */
static CUresult use(CUcontext c)
{
    if (c)
        course_emu_drv_use_device(c->device);
    return CUDA_SUCCESS;
}

CUresult drv_initialised(const char *who)
{
    if (initialised || course_emu_drv_runtime_used())
        return CUDA_SUCCESS;
    emu_say("%s before cuInit (CUDA_ERROR_NOT_INITIALIZED)", who);
    return CUDA_ERROR_NOT_INITIALIZED;
}

CUresult drv_args(CUresult r, int bad)
{
    return r == CUDA_SUCCESS && bad ? CUDA_ERROR_INVALID_VALUE : r;
}

CUresult drv_ready(const char *who)
{
    CUresult r = drv_initialised(who);
    if (r != CUDA_SUCCESS)
        return r;
    if (!current()) {
        emu_say("%s with no current context: create one (cuCtxCreate), or make a primary one "
                "current (cuDevicePrimaryCtxRetain, cuCtxSetCurrent) (CUDA_ERROR_INVALID_CONTEXT)",
                who);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    return CUDA_SUCCESS;
}

cudaStream_t drv_stream(CUstream s, int per_thread)
{
    return !s && per_thread ? cudaStreamPerThread : (cudaStream_t)s;
}

CUresult cuInit(unsigned int Flags)
{
    if (Flags) {
        emu_say("cuInit: flags must be 0, not %u (CUDA_ERROR_INVALID_VALUE)", Flags);
        return CUDA_ERROR_INVALID_VALUE;
    }
    initialised = 1;
    return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = CUDA_VERSION;
    return CUDA_SUCCESS;
}

/* --- devices ----------------------------------------------------------------------------- */

/* CUDA_SUCCESS when @p dev is a device of this machine (drv.h). */
CUresult drv_device_ok(CUdevice dev, const char *who)
{
    int n = 0;
    CUresult r = drv_initialised(who);
    if (r == CUDA_SUCCESS && (cudaGetDeviceCount(&n) != cudaSuccess || dev < 0 || dev >= n)) {
        emu_say("%s: device %d does not exist (%d emulated) (CUDA_ERROR_INVALID_DEVICE)", who, dev,
                n);
        r = CUDA_ERROR_INVALID_DEVICE;
    }
    return r;
}

CUresult cuDeviceGetCount(int *count)
{
    CUresult r = drv_initialised("cuDeviceGetCount");
    return r != CUDA_SUCCESS ? r
           : !count          ? CUDA_ERROR_INVALID_VALUE
                             : drv_result(cudaGetDeviceCount(count));
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    CUresult r = drv_args(drv_device_ok(ordinal, "cuDeviceGet"), !device);
    if (r == CUDA_SUCCESS)
        *device = ordinal;
    return r;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    struct cudaDeviceProp p;
    CUresult r = drv_args(drv_device_ok(dev, "cuDeviceGetName"), !name || len <= 0);
    if (r == CUDA_SUCCESS && (r = drv_result(cudaGetDeviceProperties(&p, dev))) == CUDA_SUCCESS)
        snprintf(name, (size_t)len, "%s", p.name);
    return r;
}

/** The attributes only the driver defines (the runtime reserves their numbers), as the
 *  stand-in answers them: what it does not emulate (stream memory operations, shareable
 *  handles, compression, multicast objects) is 0. */
static const struct {
    CUdevice_attribute attr;
    int value;
} driver_only[] = {
    {CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER, 1},
    {CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, 0},
    {CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1, 0},
    {CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1, 0},
    {CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, 0},
    {CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0},
    {CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED, 0},
    {CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED, 0},
    {CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, 0},
    {CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, 0},
    {CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, 0},
    {CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, 0},
    {CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, 0},
    {CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 0},
    {CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS, 1},
    {CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0},
    {CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK, 0},
    {CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH, 0},
    {CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0},
    {CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0},
    {CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED, 0},
};

/* Every other CUdevice_attribute number is cudaDeviceAttr's: the runtime answers (and refuses a
 * number CUDA does not define, in one line). */
CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CUresult r = drv_device_ok(dev, "cuDeviceGetAttribute");
    for (size_t i = 0; r == CUDA_SUCCESS && i < sizeof driver_only / sizeof *driver_only; i++)
        if (driver_only[i].attr == attrib) {
            *pi = driver_only[i].value;
            return CUDA_SUCCESS;
        }
    return r != CUDA_SUCCESS
               ? r
               : drv_result(cudaDeviceGetAttribute(pi, (enum cudaDeviceAttr)attrib, dev));
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    struct cudaDeviceProp p;
    CUresult r = drv_args(drv_device_ok(dev, "cuDeviceTotalMem"), !bytes);
    if (r == CUDA_SUCCESS && (r = drv_result(cudaGetDeviceProperties(&p, dev))) == CUDA_SUCCESS)
        *bytes = p.totalGlobalMem;
    return r;
}

/* The legacy form: 32 bits of size (saturated). */
CUresult cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
    size_t b = 0;
    CUresult r = cuDeviceTotalMem_v2(&b, dev);
    if (r == CUDA_SUCCESS)
        *bytes = b > 0xFFFFFFFFu ? 0xFFFFFFFFu : (unsigned)b;
    return r;
}

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    CUresult r = drv_args(drv_device_ok(dev, "cuDeviceComputeCapability"), !major || !minor);
    if (r == CUDA_SUCCESS)
        *major = 9, *minor = 0;
    return r;
}

CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    struct cudaDeviceProp p;
    CUresult r = drv_args(drv_device_ok(dev, "cuDeviceGetUuid"), !uuid);
    if (r == CUDA_SUCCESS && (r = drv_result(cudaGetDeviceProperties(&p, dev))) == CUDA_SUCCESS)
        memcpy(uuid->bytes, p.uuid.bytes, sizeof uuid->bytes);
    return r;
}

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return cuDeviceGetUuid_v2(uuid, dev);
}

/* Every emulated GPU reaches every other's memory (they share one). */
CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    CUresult r = drv_device_ok(dev, "cuDeviceCanAccessPeer");
    if (r == CUDA_SUCCESS)
        r = drv_device_ok(peerDev, "cuDeviceCanAccessPeer");
    return r != CUDA_SUCCESS ? r : drv_result(cudaDeviceCanAccessPeer(canAccessPeer, dev, peerDev));
}

/* --- contexts ------------------------------------------------------------------------------ */

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult r = drv_args(drv_device_ok(dev, "cuDevicePrimaryCtxRetain"), !pctx);
    if (r == CUDA_SUCCESS) {
        *pctx = primary_of(dev);
        (*pctx)->retained++;
    }
    return r;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CUresult r = drv_device_ok(dev, "cuDevicePrimaryCtxRelease");
    if (r == CUDA_SUCCESS && primary_of(dev)->retained == 0) {
        emu_say("cuDevicePrimaryCtxRelease: the primary context of device %d is not retained "
                "(CUDA_ERROR_INVALID_CONTEXT)",
                dev);
        r = CUDA_ERROR_INVALID_CONTEXT;
    }
    if (r == CUDA_SUCCESS)
        primary_of(dev)->retained--;
    return r;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return cuDevicePrimaryCtxRelease_v2(dev);
}

/* A reset runs the device's queued work and keeps its memory (the runtime's cudaDeviceReset
 * does the same here: allocations stay). */
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    CUresult r = drv_device_ok(dev, "cuDevicePrimaryCtxReset");
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaDeviceSynchronize());
    if (r == CUDA_SUCCESS)
        primary_of(dev)->retained = 0;
    return r;
}

CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
    return cuDevicePrimaryCtxReset_v2(dev);
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    CUresult r = drv_args(drv_device_ok(dev, "cuDevicePrimaryCtxGetState"), !flags || !active);
    if (r == CUDA_SUCCESS)
        *flags = primary_of(dev)->flags, *active = primary_of(dev)->retained > 0;
    return r;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    CUresult r = drv_device_ok(dev, "cuDevicePrimaryCtxSetFlags");
    if (r == CUDA_SUCCESS)
        primary_of(dev)->flags = flags;
    return r;
}

CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}

/* A new context of @p dev, pushed on this thread's stack (cuCtxCreate's every form). */
static CUresult create(CUcontext *pctx, unsigned flags, CUdevice dev)
{
    CUresult r = drv_args(drv_device_ok(dev, "cuCtxCreate"), !pctx);
    if (r == CUDA_SUCCESS && npushed == MAX_PUSHED) {
        emu_say("cuCtxCreate: %d contexts are pushed on this thread already", MAX_PUSHED);
        r = CUDA_ERROR_INVALID_VALUE;
    }
    if (r != CUDA_SUCCESS)
        return r;
    struct CUctx_st *c = emu_calloc(1, sizeof *c);
    *c = (struct CUctx_st){CTX_MAGIC, dev, 0, flags, 0};
    pushed[npushed++] = c;
    *pctx = c;
    return use(c);
}

CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return create(pctx, flags, dev);
}

CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return create(pctx, flags, dev);
}

/* Execution affinity (SM counts) has nothing to limit here: the parameters are ignored. */
CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                        unsigned int flags, CUdevice dev)
{
    (void)paramsArray, (void)numParams;
    return create(pctx, flags, dev);
}

CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags,
                        CUdevice dev)
{
    if (ctxCreateParams && ctxCreateParams->cigParams)
        return drv_not_supported("cuCtxCreate with CIG parameters");
    return create(pctx, flags, dev);
}

/* Drop every place @p c holds on this thread's stack. */
static void unpush(CUcontext c)
{
    int n = 0;
    for (int i = 0; i < npushed; i++)
        if (pushed[i] != c)
            pushed[n++] = pushed[i];
    npushed = n;
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    if (!valid_ctx(ctx) || ctx->primary) {
        emu_say("cuCtxDestroy: %p is not a context cuCtxCreate made (CUDA_ERROR_INVALID_CONTEXT)",
                (void *)ctx);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    cudaError_t err = cudaSuccess;
    course_emu_drv_use_device(ctx->device);
    if (course_emu_drv_started())
        err = cudaDeviceSynchronize(); /* its queued work runs; the device's memory stays */
    unpush(ctx);
    ctx->magic = 0;
    free(ctx);
    CUresult r = use(current());
    return err != cudaSuccess ? drv_result(err) : r;
}

CUresult cuCtxDestroy(CUcontext ctx)
{
    return cuCtxDestroy_v2(ctx);
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    if (!valid_ctx(ctx) || npushed == MAX_PUSHED)
        return CUDA_ERROR_INVALID_CONTEXT;
    pushed[npushed++] = ctx;
    return use(ctx);
}

CUresult cuCtxPushCurrent(CUcontext ctx)
{
    return cuCtxPushCurrent_v2(ctx);
}

CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    if (!npushed)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUcontext c = pushed[--npushed];
    if (pctx)
        *pctx = c;
    return use(current());
}

CUresult cuCtxPopCurrent(CUcontext *pctx)
{
    return cuCtxPopCurrent_v2(pctx);
}

/* The top of the stack becomes @p ctx (NULL: popped), as CUDA defines cuCtxSetCurrent. */
CUresult cuCtxSetCurrent(CUcontext ctx)
{
    if (ctx && !valid_ctx(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!ctx) {
        npushed -= npushed > 0;
        return CUDA_SUCCESS;
    }
    if (npushed)
        pushed[npushed - 1] = ctx;
    else
        pushed[npushed++] = ctx;
    return use(ctx);
}

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    CUresult r = drv_args(drv_initialised("cuCtxGetCurrent"), !pctx);
    if (r == CUDA_SUCCESS)
        *pctx = current();
    return r;
}

/* With no current context this answers CUDA_ERROR_INVALID_CONTEXT without a line: libraries
 * (NVIDIA's cuda.core among them) ask it to learn whether there is one. */
CUresult cuCtxGetDevice(CUdevice *device)
{
    CUresult r = drv_args(drv_initialised("cuCtxGetDevice"), !device);
    if (r == CUDA_SUCCESS && !current())
        return CUDA_ERROR_INVALID_CONTEXT;
    if (r == CUDA_SUCCESS)
        *device = current()->device;
    return r;
}

CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
    CUresult r = drv_args(drv_ready("cuStreamGetCtx"), !pctx);
    int dev = 0;
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaStreamGetDevice((cudaStream_t)hStream, &dev));
    if (r == CUDA_SUCCESS)
        *pctx =
            npushed && pushed[npushed - 1]->device == dev ? pushed[npushed - 1] : primary_of(dev);
    return r;
}

CUresult cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx)
{
    return cuStreamGetCtx(drv_stream(hStream, 1), pctx);
}

CUresult cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    if (pGreenCtx)
        *pGreenCtx = NULL; /* green contexts are not emulated */
    return cuStreamGetCtx(hStream, pCtx);
}

CUresult cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    return cuStreamGetCtx_v2(drv_stream(hStream, 1), pCtx, pGreenCtx);
}

CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    CUresult r = drv_args(drv_device_ok(dev, "cuDeviceGetPCIBusId"), !pciBusId || len < 1);
    return r != CUDA_SUCCESS ? r : drv_result(cudaDeviceGetPCIBusId(pciBusId, len, (int)dev));
}

CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
    CUresult r = drv_args(drv_initialised("cuDeviceGetByPCIBusId"), !dev || !pciBusId);
    return r != CUDA_SUCCESS ? r : drv_result(cudaDeviceGetByPCIBusId((int *)dev, pciBusId));
}

CUresult cuCtxGetFlags(unsigned int *flags)
{
    CUresult r = drv_args(drv_ready("cuCtxGetFlags"), !flags);
    if (r == CUDA_SUCCESS)
        *flags = current()->flags;
    return r;
}

CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    if ((ctx && !valid_ctx(ctx)) || !version)
        return CUDA_ERROR_INVALID_VALUE;
    *version = 3020; /* the version every context of CUDA 3.2 and later reports */
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
    DRV_FORWARD("cuCtxSynchronize", cudaDeviceSynchronize());
}

/* CUlimit's numbers are cudaLimit's. */
CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
    DRV_FORWARD("cuCtxSetLimit", cudaDeviceSetLimit((enum cudaLimit)limit, value));
}

CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
    DRV_FORWARD("cuCtxGetLimit", cudaDeviceGetLimit(pvalue, (enum cudaLimit)limit));
}

CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    DRV_FORWARD("cuCtxGetStreamPriorityRange",
                cudaDeviceGetStreamPriorityRange(leastPriority, greatestPriority));
}

/* --- error names ---------------------------------------------------------------------------- */

#define E(code)                                                                                    \
    {                                                                                              \
        code, #code                                                                                \
    }
/** Every CUresult cuda.h defines, and its name. */
static const struct {
    CUresult code;
    const char *name;
} names[] = {
    E(CUDA_SUCCESS),
    E(CUDA_ERROR_INVALID_VALUE),
    E(CUDA_ERROR_OUT_OF_MEMORY),
    E(CUDA_ERROR_NOT_INITIALIZED),
    E(CUDA_ERROR_DEINITIALIZED),
    E(CUDA_ERROR_PROFILER_DISABLED),
    E(CUDA_ERROR_PROFILER_NOT_INITIALIZED),
    E(CUDA_ERROR_PROFILER_ALREADY_STARTED),
    E(CUDA_ERROR_PROFILER_ALREADY_STOPPED),
    E(CUDA_ERROR_STUB_LIBRARY),
    E(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER),
    E(CUDA_ERROR_DEVICE_UNAVAILABLE),
    E(CUDA_ERROR_NO_DEVICE),
    E(CUDA_ERROR_INVALID_DEVICE),
    E(CUDA_ERROR_DEVICE_NOT_LICENSED),
    E(CUDA_ERROR_INVALID_IMAGE),
    E(CUDA_ERROR_INVALID_CONTEXT),
    E(CUDA_ERROR_CONTEXT_ALREADY_CURRENT),
    E(CUDA_ERROR_MAP_FAILED),
    E(CUDA_ERROR_UNMAP_FAILED),
    E(CUDA_ERROR_ARRAY_IS_MAPPED),
    E(CUDA_ERROR_ALREADY_MAPPED),
    E(CUDA_ERROR_NO_BINARY_FOR_GPU),
    E(CUDA_ERROR_ALREADY_ACQUIRED),
    E(CUDA_ERROR_NOT_MAPPED),
    E(CUDA_ERROR_NOT_MAPPED_AS_ARRAY),
    E(CUDA_ERROR_NOT_MAPPED_AS_POINTER),
    E(CUDA_ERROR_ECC_UNCORRECTABLE),
    E(CUDA_ERROR_UNSUPPORTED_LIMIT),
    E(CUDA_ERROR_CONTEXT_ALREADY_IN_USE),
    E(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED),
    E(CUDA_ERROR_INVALID_PTX),
    E(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT),
    E(CUDA_ERROR_NVLINK_UNCORRECTABLE),
    E(CUDA_ERROR_JIT_COMPILER_NOT_FOUND),
    E(CUDA_ERROR_UNSUPPORTED_PTX_VERSION),
    E(CUDA_ERROR_JIT_COMPILATION_DISABLED),
    E(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY),
    E(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC),
    E(CUDA_ERROR_CONTAINED),
    E(CUDA_ERROR_INVALID_SOURCE),
    E(CUDA_ERROR_FILE_NOT_FOUND),
    E(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND),
    E(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED),
    E(CUDA_ERROR_OPERATING_SYSTEM),
    E(CUDA_ERROR_INVALID_HANDLE),
    E(CUDA_ERROR_ILLEGAL_STATE),
    E(CUDA_ERROR_LOSSY_QUERY),
    E(CUDA_ERROR_NOT_FOUND),
    E(CUDA_ERROR_NOT_READY),
    E(CUDA_ERROR_ILLEGAL_ADDRESS),
    E(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES),
    E(CUDA_ERROR_LAUNCH_TIMEOUT),
    E(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING),
    E(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED),
    E(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED),
    E(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE),
    E(CUDA_ERROR_CONTEXT_IS_DESTROYED),
    E(CUDA_ERROR_ASSERT),
    E(CUDA_ERROR_TOO_MANY_PEERS),
    E(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED),
    E(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED),
    E(CUDA_ERROR_HARDWARE_STACK_ERROR),
    E(CUDA_ERROR_ILLEGAL_INSTRUCTION),
    E(CUDA_ERROR_MISALIGNED_ADDRESS),
    E(CUDA_ERROR_INVALID_ADDRESS_SPACE),
    E(CUDA_ERROR_INVALID_PC),
    E(CUDA_ERROR_LAUNCH_FAILED),
    E(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE),
    E(CUDA_ERROR_TENSOR_MEMORY_LEAK),
    E(CUDA_ERROR_NOT_PERMITTED),
    E(CUDA_ERROR_NOT_SUPPORTED),
    E(CUDA_ERROR_SYSTEM_NOT_READY),
    E(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH),
    E(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE),
    E(CUDA_ERROR_MPS_CONNECTION_FAILED),
    E(CUDA_ERROR_MPS_RPC_FAILURE),
    E(CUDA_ERROR_MPS_SERVER_NOT_READY),
    E(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED),
    E(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED),
    E(CUDA_ERROR_MPS_CLIENT_TERMINATED),
    E(CUDA_ERROR_CDP_NOT_SUPPORTED),
    E(CUDA_ERROR_CDP_VERSION_MISMATCH),
    E(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED),
    E(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED),
    E(CUDA_ERROR_STREAM_CAPTURE_MERGE),
    E(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED),
    E(CUDA_ERROR_STREAM_CAPTURE_UNJOINED),
    E(CUDA_ERROR_STREAM_CAPTURE_ISOLATION),
    E(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT),
    E(CUDA_ERROR_CAPTURED_EVENT),
    E(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD),
    E(CUDA_ERROR_TIMEOUT),
    E(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE),
    E(CUDA_ERROR_EXTERNAL_DEVICE),
    E(CUDA_ERROR_INVALID_CLUSTER_SIZE),
    E(CUDA_ERROR_FUNCTION_NOT_LOADED),
    E(CUDA_ERROR_INVALID_RESOURCE_TYPE),
    E(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION),
    E(CUDA_ERROR_KEY_ROTATION),
    E(CUDA_ERROR_UNKNOWN),
};
#undef E

/* The entry of @p error, or NULL for a number cuda.h does not define. */
static const char *name_of(CUresult error)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].code == error)
            return names[i].name;
    return NULL;
}

CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    const char *n = name_of(error);
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    *pStr = n;
    return n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The description is the name in words ("CUDA_ERROR_INVALID_VALUE": "invalid value"), one
 * buffer per code, made once. */
CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    static char texts[sizeof names / sizeof *names][64];
    const char *n = name_of(error);
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    *pStr = NULL;
    if (!n)
        return CUDA_ERROR_INVALID_VALUE;
    size_t i = 0;
    while (names[i].code != error)
        i++;
    if (!texts[i][0]) {
        const char *s = error == CUDA_SUCCESS ? "no error" : n + strlen("CUDA_ERROR_");
        size_t k = 0;
        for (; s[k] && k + 1 < sizeof texts[i]; k++)
            texts[i][k] = s[k] == '_' ? ' ' : (char)(s[k] >= 'A' && s[k] <= 'Z' ? s[k] + 32 : s[k]);
        texts[i][k] = 0;
    }
    *pStr = texts[i];
    return CUDA_SUCCESS;
}
