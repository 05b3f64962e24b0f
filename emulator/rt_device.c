/**
 * @file rt_device.c
 * @brief The runtime stand-in: emulated devices, their properties, errors, and emu.h.
 *
 * COURSE_EMU_GPUS (default 2) GPUs, each an sm_90 part named "Course CPU
 * emulator (sm_90)". They share one device memory whose size is half of what
 * this machine has available (MemAvailable in /proc/meminfo) when the process
 * starts, so a cudaMalloc beyond it fails cleanly instead of waking the OOM
 * killer.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu.h"
#include "proto.h"
#include "rt.h"

struct rt_state rt = {.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, .sock = -1};

static _Thread_local struct rt_thread self_state;

struct rt_thread *rt_self(void)
{
    return &self_state;
}

void rt_lock(void)
{
    pthread_mutex_lock(&rt.lock);
}

void rt_unlock(void)
{
    pthread_mutex_unlock(&rt.lock);
}

cudaError_t rt_error(cudaError_t err)
{
    if (err != cudaSuccess)
        rt_self()->last_error = err;
    return err;
}

void rt_say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "emulator: %s\n", line);
}

double rt_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Half of MemAvailable, in whole MiB (4 GiB when /proc/meminfo cannot be read). */
static uint64_t spare_memory(void)
{
    unsigned long long kib = 0;
    char line[256];
    FILE *f = fopen("/proc/meminfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    uint64_t bytes = kib ? (uint64_t)kib * 1024 / 2 : (uint64_t)4 << 30;
    return bytes >> 20 << 20;
}

/* Read COURSE_EMU_GPUS and the memory size once. Returns the GPU count, or 0 after saying why. */
static int gpus(void)
{
    if (rt.gpus == 0) {
        const char *env = getenv("COURSE_EMU_GPUS");
        char *end = NULL;
        long n = env && *env ? strtol(env, &end, 10) : 2;
        if (end && (*end || n < 1 || n > RT_MAX_GPUS)) {
            rt_say("COURSE_EMU_GPUS='%s' must be a number from 1 to %d", env, RT_MAX_GPUS);
            return 0;
        }
        rt.gpus = (int)n;
        rt.capacity = spare_memory();
    }
    return rt.gpus;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    rt_lock();
    int n = gpus();
    rt_unlock();
    *count = n;
    return n ? cudaSuccess : rt_error(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int device)
{
    rt_lock();
    int n = gpus();
    rt_unlock();
    if (device < 0 || device >= n)
        return rt_error(cudaErrorInvalidDevice);
    rt_self()->device = device;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    *device = rt_self()->device;
    return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    (void)deviceFlags, (void)flags;
    return cudaSetDevice(device);
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    (void)flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    *flags = 0;
    return cudaSuccess;
}

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    (void)prop;
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    int n;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess || device < 0 || device >= n || peerDevice < 0 || peerDevice >= n)
        return rt_error(cudaErrorInvalidDevice);
    *canAccessPeer = device != peerDevice;
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    (void)peerDevice, (void)flags;
    return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    (void)peerDevice;
    return cudaSuccess;
}

/* The properties of emulated GPU @p device (the memory fields come from rt). */
static void fill_props(struct cudaDeviceProp *p, int device)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "Course CPU emulator (sm_90)");
    p->uuid.bytes[0] = (char)(0xC0 + device);
    p->totalGlobalMem = rt.capacity;
    p->sharedMemPerBlock = RT_SMEM_DEFAULT;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = (size_t)1 << 31;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->totalConstMem = 65536;
    p->major = 9;
    p->minor = 0;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = 132;
    p->canMapHostMemory = 1;
    p->concurrentKernels = 1;
    p->pciBusID = device + 1;
    p->asyncEngineCount = 2;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = 5120;
    p->l2CacheSize = 50 * 1024 * 1024;
    p->maxThreadsPerMultiProcessor = 2048;
    p->globalL1CacheSupported = p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = 228 * 1024;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->sharedMemPerBlockOptin = RT_SMEM_OPTIN;
    p->maxBlocksPerMultiProcessor = 32;
    p->reservedSharedMemPerBlock = 1024;
    p->cooperativeLaunch = 1;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    rt_lock();
    int n = gpus();
    if (device >= 0 && device < n)
        fill_props(prop, device);
    rt_unlock();
    return device >= 0 && device < n ? cudaSuccess : rt_error(cudaErrorInvalidDevice);
}

/* The value of @p attr, from the properties; -1 for an attribute the emulator does not know. */
static long attribute(const struct cudaDeviceProp *p, enum cudaDeviceAttr attr)
{
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
        return p->maxThreadsPerBlock;
    case cudaDevAttrMaxBlockDimX:
        return p->maxThreadsDim[0];
    case cudaDevAttrMaxBlockDimY:
        return p->maxThreadsDim[1];
    case cudaDevAttrMaxBlockDimZ:
        return p->maxThreadsDim[2];
    case cudaDevAttrMaxGridDimX:
        return p->maxGridSize[0];
    case cudaDevAttrMaxGridDimY:
        return p->maxGridSize[1];
    case cudaDevAttrMaxGridDimZ:
        return p->maxGridSize[2];
    case cudaDevAttrMaxSharedMemoryPerBlock:
        return (long)p->sharedMemPerBlock;
    case cudaDevAttrTotalConstantMemory:
        return (long)p->totalConstMem;
    case cudaDevAttrWarpSize:
        return p->warpSize;
    case cudaDevAttrMaxRegistersPerBlock:
        return p->regsPerBlock;
    case cudaDevAttrMultiProcessorCount:
        return p->multiProcessorCount;
    case cudaDevAttrComputeCapabilityMajor:
        return p->major;
    case cudaDevAttrComputeCapabilityMinor:
        return p->minor;
    case cudaDevAttrL2CacheSize:
        return p->l2CacheSize;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
        return p->maxThreadsPerMultiProcessor;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
        return (long)p->sharedMemPerMultiprocessor;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
        return p->regsPerMultiprocessor;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
        return (long)p->sharedMemPerBlockOptin;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
        return p->maxBlocksPerMultiProcessor;
    case cudaDevAttrGlobalMemoryBusWidth:
        return p->memoryBusWidth;
    case cudaDevAttrUnifiedAddressing:
        return 1;
    case cudaDevAttrManagedMemory:
        return 1;
    case cudaDevAttrConcurrentKernels:
        return 1;
    case cudaDevAttrCooperativeLaunch:
        return 1;
    case cudaDevAttrPciBusId:
        return p->pciBusID;
    case cudaDevAttrIntegrated:
        return 0;
    case cudaDevAttrEccEnabled:
        return 0;
    case cudaDevAttrAsyncEngineCount:
        return p->asyncEngineCount;
    case cudaDevAttrCanMapHostMemory:
        return 1;
    default:
        return -1;
    }
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    struct cudaDeviceProp p;
    cudaError_t err = cudaGetDeviceProperties(&p, device);
    if (err != cudaSuccess)
        return err;
    long v = attribute(&p, attr);
    if (v < 0) {
        rt_say("cudaDeviceGetAttribute: attribute %d is not emulated", (int)attr);
        return rt_error(cudaErrorInvalidValue);
    }
    *value = (int)v;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    switch (limit) {
    case cudaLimitStackSize:
        *pValue = 1024;
        return cudaSuccess;
    case cudaLimitPrintfFifoSize:
        *pValue = (size_t)1 << 20;
        return cudaSuccess;
    case cudaLimitMallocHeapSize:
        *pValue = (size_t)8 << 20;
        return cudaSuccess;
    default:
        return rt_error(cudaErrorUnsupportedLimit);
    }
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    size_t now;
    (void)value;
    return cudaDeviceGetLimit(&now, limit);
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    (void)cacheConfig;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    *driverVersion = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    rt_lock();
    cudaError_t err = rt.started ? rt.sticky : cudaSuccess;
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaGetLastError(void)
{
    rt_lock();
    cudaError_t err = rt.sticky;
    rt_unlock();
    if (err == cudaSuccess) {
        err = rt_self()->last_error;
        rt_self()->last_error = cudaSuccess;
    }
    return err;
}

cudaError_t cudaPeekAtLastError(void)
{
    rt_lock();
    cudaError_t err = rt.sticky;
    rt_unlock();
    return err != cudaSuccess ? err : rt_self()->last_error;
}

/* --- error names and messages ------------------------------------------------------ */

/** One error code the runtime may return, its name and its message. */
struct error_text {
    cudaError_t code;
    const char *name, *text;
};

#define ERR(code, text)                                                                            \
    {                                                                                              \
        code, #code, text                                                                          \
    }
static const struct error_text error_texts[] = {
    ERR(cudaSuccess, "no error"),
    ERR(cudaErrorInvalidValue, "invalid argument"),
    ERR(cudaErrorMemoryAllocation, "out of memory"),
    ERR(cudaErrorInitializationError, "initialization error"),
    ERR(cudaErrorCudartUnloading, "driver shutting down"),
    ERR(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    ERR(cudaErrorInvalidPitchValue, "invalid pitch argument"),
    ERR(cudaErrorInvalidSymbol, "invalid device symbol"),
    ERR(cudaErrorInvalidHostPointer, "invalid host pointer"),
    ERR(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    ERR(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    ERR(cudaErrorMissingConfiguration, "__global__ function call is not configured"),
    ERR(cudaErrorInvalidDeviceFunction, "invalid device function"),
    ERR(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    ERR(cudaErrorInvalidDevice, "invalid device ordinal"),
    ERR(cudaErrorInvalidKernelImage, "device kernel image is invalid"),
    ERR(cudaErrorNoKernelImageForDevice,
        "no kernel image is available for execution on the device"),
    ERR(cudaErrorUnsupportedLimit, "limit is not supported on this architecture"),
    ERR(cudaErrorInvalidPtx, "a PTX JIT compilation failed"),
    ERR(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    ERR(cudaErrorSymbolNotFound, "named symbol not found"),
    ERR(cudaErrorNotReady, "device not ready"),
    ERR(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    ERR(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
    ERR(cudaErrorLaunchTimeout, "the launch timed out and was terminated"),
    ERR(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    ERR(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    ERR(cudaErrorAssert, "device-side assert triggered"),
    ERR(cudaErrorIllegalInstruction, "an illegal instruction was encountered"),
    ERR(cudaErrorMisalignedAddress, "misaligned address"),
    ERR(cudaErrorLaunchFailure, "unspecified launch failure"),
    ERR(cudaErrorNotPermitted, "operation not permitted"),
    ERR(cudaErrorNotSupported, "operation not supported"),
    ERR(cudaErrorUnknown, "unknown error"),
};
#undef ERR

static const struct error_text *error_text(cudaError_t code)
{
    for (size_t i = 0; i < sizeof error_texts / sizeof *error_texts; i++)
        if (error_texts[i].code == code)
            return &error_texts[i];
    return NULL;
}

const char *cudaGetErrorName(cudaError_t error)
{
    const struct error_text *t = error_text(error);
    return t ? t->name : "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error)
{
    const struct error_text *t = error_text(error);
    return t ? t->text : "unrecognized error code";
}

/* --- emu.h ------------------------------------------------------------------------- */

int course_emu_active(void)
{
    return 1;
}

void course_emu_set_counting(int on)
{
    rt_lock();
    rt.counting = on != 0;
    rt_unlock();
}

int course_emu_take_launches(struct course_emu_launch *out, int max)
{
    rt_lock();
    int n = rt.nlaunches;
    if (out) {
        n = n < max ? n : (max > 0 ? max : 0);
        if (n > 0)
            memcpy(out, rt.launches, (size_t)n * sizeof *out);
        rt.nlaunches = 0;
    }
    rt_unlock();
    return n;
}

int course_emu_sticky_error(void)
{
    rt_lock();
    cudaError_t err = rt_device();
    rt_unlock();
    return (int)err;
}

void *course_emu_host(const void *dev, size_t bytes, const char *who)
{
    rt_lock();
    void *h = rt_device() == cudaSuccess ? rt_host(dev, bytes, who) : NULL;
    rt_unlock();
    return h;
}

void course_emu_wrote(const void *dev, size_t bytes)
{
    rt_lock();
    if (rt.started)
        rt_wrote(dev, bytes, PROTO_WROTE_HOST, 0);
    rt_unlock();
}
