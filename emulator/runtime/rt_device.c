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
#include <limits.h>
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
    rt.device_set = 1; /* the primary context exists now (the driver stand-in's current one) */
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

/* What an H100 SXM5 (80 GB HBM3) reports and cudaDeviceProp has no field for (CUDA 13 dropped
 * clockRate, memoryClockRate, computeMode and their kin from it): NVIDIA's deviceQuery on that
 * part prints "GPU Max Clock rate: 1980 MHz" and "Memory Clock rate: 2619 Mhz". */
enum {
    H100_CLOCK_KHZ = 1980000,
    H100_MEMORY_CLOCK_KHZ = 2619000,
    H100_SINGLE_TO_DOUBLE = 2, /* 67 TFLOP/s fp32, 34 fp64 */
    H100_MEM_SYNC_DOMAINS = 4,
    H100_PCI_ID = 0x233010de, /* device 0x2330, vendor 0x10de (NVIDIA) */
    NO_NUMA_ID = -1,          /* the GPU is no NUMA node; nor is the host one here */
};

/* The texture and surface limits of compute capability 9.0 (CUDA Programming Guide,
 * "Technical Specifications per Compute Capability"). */
static void fill_texture_limits(struct cudaDeviceProp *p)
{
    p->maxTexture1D = 131072;
    p->maxTexture1DMipmap = 32768;
    p->maxTexture2D[0] = 131072, p->maxTexture2D[1] = 65536;
    p->maxTexture2DMipmap[0] = p->maxTexture2DMipmap[1] = 32768;
    p->maxTexture2DLinear[0] = 131072, p->maxTexture2DLinear[1] = 65000;
    p->maxTexture2DLinear[2] = 2097120;
    p->maxTexture2DGather[0] = p->maxTexture2DGather[1] = 32768;
    p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
    p->maxTexture3DAlt[0] = p->maxTexture3DAlt[1] = 8192, p->maxTexture3DAlt[2] = 32768;
    p->maxTextureCubemap = 32768;
    p->maxTexture1DLayered[0] = 32768, p->maxTexture1DLayered[1] = 2048;
    p->maxTexture2DLayered[0] = p->maxTexture2DLayered[1] = 32768;
    p->maxTexture2DLayered[2] = 2048;
    p->maxTextureCubemapLayered[0] = 32768, p->maxTextureCubemapLayered[1] = 2046;
    p->maxSurface1D = 32768;
    p->maxSurface2D[0] = 131072, p->maxSurface2D[1] = 65536;
    p->maxSurface3D[0] = p->maxSurface3D[1] = p->maxSurface3D[2] = 16384;
    p->maxSurface1DLayered[0] = 32768, p->maxSurface1DLayered[1] = 2048;
    p->maxSurface2DLayered[0] = p->maxSurface2DLayered[1] = 32768;
    p->maxSurface2DLayered[2] = 2048;
    p->maxSurfaceCubemap = 32768;
    p->maxSurfaceCubemapLayered[0] = 32768, p->maxSurfaceCubemapLayered[1] = 2046;
    p->surfaceAlignment = 512;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
}

/* What an H100 SXM5 supports beyond the basics: memory pools, clusters, managed memory. */
static void fill_features(struct cudaDeviceProp *p)
{
    p->canMapHostMemory = p->concurrentKernels = p->unifiedAddressing = 1;
    p->ECCEnabled = 1;
    p->asyncEngineCount = 3;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = p->localL1CacheSupported = 1;
    p->managedMemory = p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    /* 0: registered memory's device pointer is another address (cudaHostRegister). */
    p->canUseHostPointerForRegisteredMem = 0;
    p->cooperativeLaunch = p->clusterLaunch = 1;
    p->hostRegisterSupported = p->hostRegisterReadOnlySupported = 1;
    p->sparseCudaArraySupported = p->deferredMappingCudaArraySupported = 1;
    p->timelineSemaphoreInteropSupported = 1;
    p->memoryPoolsSupported = 1;
    p->memoryPoolSupportedHandleTypes = cudaMemHandleTypePosixFileDescriptor;
    p->gpuDirectRDMASupported = 1;
    p->gpuDirectRDMAFlushWritesOptions = cudaFlushGPUDirectRDMAWritesOptionHost;
    p->gpuDirectRDMAWritesOrdering = cudaGPUDirectRDMAWritesOrderingNone;
    p->ipcEventSupported = 1;
    p->unifiedFunctionPointers = 1;
#if CUDART_VERSION >= 13000
    p->deviceNumaConfig = cudaDeviceNumaConfigNone;
    p->deviceNumaId = p->hostNumaId = NO_NUMA_ID;
#endif
}

#if CUDART_VERSION < 13000
/* The fields CUDA 12's cudaDeviceProp has and 13's dropped (cudaDeviceGetAttribute answers the
 * same): a CUDA 12 program reads its clocks here. */
static void fill_cuda12_fields(struct cudaDeviceProp *p)
{
    p->clockRate = H100_CLOCK_KHZ;
    p->memoryClockRate = H100_MEMORY_CLOCK_KHZ;
    p->deviceOverlap = 1;
    p->kernelExecTimeoutEnabled = 0;
    p->computeMode = cudaComputeModeDefault;
    p->maxTexture1DLinear = 1 << 28;
    p->singleToDoublePrecisionPerfRatio = H100_SINGLE_TO_DOUBLE;
    p->cooperativeMultiDeviceLaunch = 0;
}
#endif

/* The properties of emulated GPU @p device: an H100 SXM5's, but for the name, the memory size
 * (from rt) and the PCI bus. */
static void fill_props(struct cudaDeviceProp *p, int device)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "Course CPU emulator (sm_90)");
    p->uuid.bytes[0] = (char)(0xC0 + device);
    p->totalGlobalMem = rt.capacity;
    p->sharedMemPerBlock = RT_SMEM_DEFAULT;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = 0x7fffffff;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->totalConstMem = 65536;
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = 132;
    p->pciBusID = device + 1;
    p->pciDeviceID = 0;
#if CUDART_VERSION >= 13000
    p->gpuPciDeviceID = H100_PCI_ID;
#else
    fill_cuda12_fields(p);
#endif
    p->memoryBusWidth = 5120;
    p->l2CacheSize = 50 * 1024 * 1024;
    p->persistingL2CacheMaxSize = p->l2CacheSize / 8 * 5;
    p->accessPolicyMaxWindowSize = 134213632;
    p->maxThreadsPerMultiProcessor = 2048;
    p->sharedMemPerMultiprocessor = 228 * 1024;
    p->regsPerMultiprocessor = 65536;
    p->sharedMemPerBlockOptin = RT_SMEM_OPTIN;
    p->maxBlocksPerMultiProcessor = 32;
    p->reservedSharedMemPerBlock = 1024;
    fill_texture_limits(p);
    fill_features(p);
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

/* What attribute() answers for a number that names no attribute. */
#define NO_ATTRIBUTE LONG_MIN

/* Texture or surface attribute @p attr, from the properties; NO_ATTRIBUTE for another. */
static long texture_attribute(const struct cudaDeviceProp *p, enum cudaDeviceAttr attr)
{
    switch (attr) {
    case cudaDevAttrMaxTexture1DWidth:
        return p->maxTexture1D;
    case cudaDevAttrMaxTexture2DWidth:
        return p->maxTexture2D[0];
    case cudaDevAttrMaxTexture2DHeight:
        return p->maxTexture2D[1];
    case cudaDevAttrMaxTexture3DWidth:
        return p->maxTexture3D[0];
    case cudaDevAttrMaxTexture3DHeight:
        return p->maxTexture3D[1];
    case cudaDevAttrMaxTexture3DDepth:
        return p->maxTexture3D[2];
    case cudaDevAttrMaxTexture2DLayeredWidth:
        return p->maxTexture2DLayered[0];
    case cudaDevAttrMaxTexture2DLayeredHeight:
        return p->maxTexture2DLayered[1];
    case cudaDevAttrMaxTexture2DLayeredLayers:
        return p->maxTexture2DLayered[2];
    case cudaDevAttrSurfaceAlignment:
        return (long)p->surfaceAlignment;
    case cudaDevAttrTextureAlignment:
        return (long)p->textureAlignment;
    case cudaDevAttrTexturePitchAlignment:
        return (long)p->texturePitchAlignment;
    case cudaDevAttrMaxTexture1DLayeredWidth:
        return p->maxTexture1DLayered[0];
    case cudaDevAttrMaxTexture1DLayeredLayers:
        return p->maxTexture1DLayered[1];
    case cudaDevAttrMaxTexture2DGatherWidth:
        return p->maxTexture2DGather[0];
    case cudaDevAttrMaxTexture2DGatherHeight:
        return p->maxTexture2DGather[1];
    case cudaDevAttrMaxTexture3DWidthAlt:
        return p->maxTexture3DAlt[0];
    case cudaDevAttrMaxTexture3DHeightAlt:
        return p->maxTexture3DAlt[1];
    case cudaDevAttrMaxTexture3DDepthAlt:
        return p->maxTexture3DAlt[2];
    case cudaDevAttrMaxTextureCubemapWidth:
        return p->maxTextureCubemap;
    case cudaDevAttrMaxTextureCubemapLayeredWidth:
        return p->maxTextureCubemapLayered[0];
    case cudaDevAttrMaxTextureCubemapLayeredLayers:
        return p->maxTextureCubemapLayered[1];
    case cudaDevAttrMaxSurface1DWidth:
        return p->maxSurface1D;
    case cudaDevAttrMaxSurface2DWidth:
        return p->maxSurface2D[0];
    case cudaDevAttrMaxSurface2DHeight:
        return p->maxSurface2D[1];
    case cudaDevAttrMaxSurface3DWidth:
        return p->maxSurface3D[0];
    case cudaDevAttrMaxSurface3DHeight:
        return p->maxSurface3D[1];
    case cudaDevAttrMaxSurface3DDepth:
        return p->maxSurface3D[2];
    case cudaDevAttrMaxSurface1DLayeredWidth:
        return p->maxSurface1DLayered[0];
    case cudaDevAttrMaxSurface1DLayeredLayers:
        return p->maxSurface1DLayered[1];
    case cudaDevAttrMaxSurface2DLayeredWidth:
        return p->maxSurface2DLayered[0];
    case cudaDevAttrMaxSurface2DLayeredHeight:
        return p->maxSurface2DLayered[1];
    case cudaDevAttrMaxSurface2DLayeredLayers:
        return p->maxSurface2DLayered[2];
    case cudaDevAttrMaxSurfaceCubemapWidth:
        return p->maxSurfaceCubemap;
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth:
        return p->maxSurfaceCubemapLayered[0];
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers:
        return p->maxSurfaceCubemapLayered[1];
    case cudaDevAttrMaxTexture1DLinearWidth:
        return 1 << 28;
    case cudaDevAttrMaxTexture2DLinearWidth:
        return p->maxTexture2DLinear[0];
    case cudaDevAttrMaxTexture2DLinearHeight:
        return p->maxTexture2DLinear[1];
    case cudaDevAttrMaxTexture2DLinearPitch:
        return p->maxTexture2DLinear[2];
    case cudaDevAttrMaxTexture2DMipmappedWidth:
        return p->maxTexture2DMipmap[0];
    case cudaDevAttrMaxTexture2DMipmappedHeight:
        return p->maxTexture2DMipmap[1];
    case cudaDevAttrMaxTexture1DMipmappedWidth:
        return p->maxTexture1DMipmap;
    default:
        return NO_ATTRIBUTE;
    }
}

/* A limit or identity attribute @p attr; otherwise texture_attribute(). */
static long limit_attribute(const struct cudaDeviceProp *p, enum cudaDeviceAttr attr)
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
    case cudaDevAttrMaxPitch:
        return (long)p->memPitch;
    case cudaDevAttrMaxRegistersPerBlock:
        return p->regsPerBlock;
    case cudaDevAttrClockRate:
        return H100_CLOCK_KHZ;
    case cudaDevAttrMultiProcessorCount:
        return p->multiProcessorCount;
    case cudaDevAttrPciBusId:
        return p->pciBusID;
    case cudaDevAttrPciDeviceId:
        return p->pciDeviceID;
    case cudaDevAttrPciDomainId:
        return p->pciDomainID;
    case cudaDevAttrMemoryClockRate:
        return H100_MEMORY_CLOCK_KHZ;
    case cudaDevAttrGlobalMemoryBusWidth:
        return p->memoryBusWidth;
    case cudaDevAttrL2CacheSize:
        return p->l2CacheSize;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
        return p->maxThreadsPerMultiProcessor;
    case cudaDevAttrAsyncEngineCount:
        return p->asyncEngineCount;
    case cudaDevAttrComputeCapabilityMajor:
        return p->major;
    case cudaDevAttrComputeCapabilityMinor:
        return p->minor;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
        return (long)p->sharedMemPerMultiprocessor;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
        return p->regsPerMultiprocessor;
    case cudaDevAttrMultiGpuBoardGroupID:
        return p->multiGpuBoardGroupID;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio:
        return H100_SINGLE_TO_DOUBLE;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
        return (long)p->sharedMemPerBlockOptin;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
        return p->maxBlocksPerMultiProcessor;
    case cudaDevAttrMaxPersistingL2CacheSize:
        return p->persistingL2CacheMaxSize;
    case cudaDevAttrMaxAccessPolicyWindowSize:
        return p->accessPolicyMaxWindowSize;
    case cudaDevAttrReservedSharedMemoryPerBlock:
        return (long)p->reservedSharedMemPerBlock;
    case cudaDevAttrMemSyncDomainCount:
        return H100_MEM_SYNC_DOMAINS;
#if CUDART_VERSION >= 13000
    case cudaDevAttrNumaId:
        return p->deviceNumaId;
    case cudaDevAttrHostNumaId:
        return p->hostNumaId;
    case cudaDevAttrGpuPciDeviceId:
        return p->gpuPciDeviceID;
    case cudaDevAttrGpuPciSubsystemId:
        return p->gpuPciSubsystemID;
#else
    case cudaDevAttrNumaId:
    case cudaDevAttrHostNumaId:
        return NO_NUMA_ID;
#endif
    default:
        return texture_attribute(p, attr);
    }
}

/* The value of attribute @p attr, from the properties; NO_ATTRIBUTE for a number the toolkit's
 * CUDA (13, or 12) does not define (the reserved numbers). The capability flags come first, then
 * the limits. */
static long attribute(const struct cudaDeviceProp *p, enum cudaDeviceAttr attr)
{
    switch (attr) {
    case cudaDevAttrGpuOverlap:
        return 1;
    case cudaDevAttrKernelExecTimeout:
        return 0;
    case cudaDevAttrIntegrated:
        return p->integrated;
    case cudaDevAttrCanMapHostMemory:
        return p->canMapHostMemory;
    case cudaDevAttrComputeMode:
        return cudaComputeModeDefault;
    case cudaDevAttrConcurrentKernels:
        return p->concurrentKernels;
    case cudaDevAttrEccEnabled:
        return p->ECCEnabled;
    case cudaDevAttrTccDriver:
        return p->tccDriver;
    case cudaDevAttrUnifiedAddressing:
        return p->unifiedAddressing;
    case cudaDevAttrStreamPrioritiesSupported:
        return p->streamPrioritiesSupported;
    case cudaDevAttrGlobalL1CacheSupported:
        return p->globalL1CacheSupported;
    case cudaDevAttrLocalL1CacheSupported:
        return p->localL1CacheSupported;
    case cudaDevAttrManagedMemory:
        return p->managedMemory;
    case cudaDevAttrIsMultiGpuBoard:
        return p->isMultiGpuBoard;
    case cudaDevAttrHostNativeAtomicSupported:
        return p->hostNativeAtomicSupported;
    case cudaDevAttrPageableMemoryAccess:
        return p->pageableMemoryAccess;
    case cudaDevAttrConcurrentManagedAccess:
        return p->concurrentManagedAccess;
    case cudaDevAttrComputePreemptionSupported:
        return p->computePreemptionSupported;
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
        return p->canUseHostPointerForRegisteredMem;
    case cudaDevAttrCooperativeLaunch:
        return p->cooperativeLaunch;
    case cudaDevAttrCanFlushRemoteWrites:
        return 0;
    case cudaDevAttrHostRegisterSupported:
        return p->hostRegisterSupported;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
        return p->pageableMemoryAccessUsesHostPageTables;
    case cudaDevAttrDirectManagedMemAccessFromHost:
        return p->directManagedMemAccessFromHost;
    case cudaDevAttrSparseCudaArraySupported:
        return p->sparseCudaArraySupported;
    case cudaDevAttrHostRegisterReadOnlySupported:
        return p->hostRegisterReadOnlySupported;
    case cudaDevAttrTimelineSemaphoreInteropSupported:
        return p->timelineSemaphoreInteropSupported;
    case cudaDevAttrMemoryPoolsSupported:
        return p->memoryPoolsSupported;
    case cudaDevAttrGPUDirectRDMASupported:
        return p->gpuDirectRDMASupported;
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions:
        return p->gpuDirectRDMAFlushWritesOptions;
    case cudaDevAttrGPUDirectRDMAWritesOrdering:
        return p->gpuDirectRDMAWritesOrdering;
    case cudaDevAttrMemoryPoolSupportedHandleTypes:
        return p->memoryPoolSupportedHandleTypes;
    case cudaDevAttrClusterLaunch:
        return p->clusterLaunch;
    case cudaDevAttrDeferredMappingCudaArraySupported:
        return p->deferredMappingCudaArraySupported;
    case cudaDevAttrIpcEventSupport:
        return p->ipcEventSupported;
#if CUDART_VERSION >= 13000
    case cudaDevAttrNumaConfig:
        return p->deviceNumaConfig;
    case cudaDevAttrMpsEnabled:
        return p->mpsEnabled;
    case cudaDevAttrD3D12CigSupported:
        return 0;
    case cudaDevAttrVulkanCigSupported:
        return 0;
    case cudaDevAttrHostNumaMemoryPoolsSupported:
        return 0;
    case cudaDevAttrHostNumaMultinodeIpcSupported:
        return p->hostNumaMultinodeIpcSupported;
    case cudaDevAttrHostMemoryPoolsSupported:
        return 0;
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported:
        return 0;
#else
    case cudaDevAttrNumaConfig:
        return cudaDeviceNumaConfigNone;
    case cudaDevAttrMpsEnabled:
    case cudaDevAttrCooperativeMultiDeviceLaunch:
        return 0;
#endif
    default:
        return limit_attribute(p, attr);
    }
}

/* Every attribute the toolkit's CUDA defines is answered; a reserved or unknown number is refused
 * with cudaErrorInvalidValue and one line, and, unlike a fault, leaves no error behind for a later
 * cudaGetLastError (a program probing attributes must not fail its next kernel's check). */
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    struct cudaDeviceProp p;
    cudaError_t err = cudaGetDeviceProperties(&p, device);
    if (err != cudaSuccess)
        return err;
    long v = attribute(&p, attr);
    if (v == NO_ATTRIBUTE) {
        rt_say("cudaDeviceGetAttribute: %d is not a device attribute CUDA %d defines", (int)attr,
               CUDART_VERSION / 1000);
        return cudaErrorInvalidValue;
    }
    *value = (int)v;
    return cudaSuccess;
}

/* The limits a program may read and set, with an H100's defaults; a set value reads back. The
 * stack size bounds a recursive kernel's depth and the heap size is the device heap's (fixed
 * once it exists); the rest are hints or sizes the emulator does not bound. */
static size_t limits[] = {
    [cudaLimitStackSize] = 1024,
    [cudaLimitPrintfFifoSize] = (size_t)1 << 20,
    [cudaLimitMallocHeapSize] = (size_t)8 << 20,
    [cudaLimitDevRuntimeSyncDepth] = 2,
    [cudaLimitDevRuntimePendingLaunchCount] = 2048,
    [cudaLimitMaxL2FetchGranularity] = 64,
    [cudaLimitPersistingL2CacheSize] = 0,
};

cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    if ((unsigned)limit >= sizeof limits / sizeof *limits)
        return rt_error(cudaErrorUnsupportedLimit);
    *pValue = limits[limit];
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    struct cudaDeviceProp p;
    fill_props(&p, 0);
    if ((unsigned)limit >= sizeof limits / sizeof *limits)
        return rt_error(cudaErrorUnsupportedLimit);
    if ((limit == cudaLimitMaxL2FetchGranularity && value > 128) ||
        (limit == cudaLimitPersistingL2CacheSize && value > (size_t)p.persistingL2CacheMaxSize))
        return rt_error(cudaErrorInvalidValue);
    if (limit == cudaLimitMallocHeapSize && rt.heap_made) {
        rt_say("cudaDeviceSetLimit: the device heap already holds %zu bytes: "
               "cudaLimitMallocHeapSize must be set before the first kernel that uses malloc or "
               "free is launched",
               limits[limit]);
        return rt_error(cudaErrorInvalidValue);
    }
    limits[limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    *pCacheConfig = cudaFuncCachePreferNone;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
    *pConfig = cudaSharedMemBankSizeFourByte;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    (void)config; /* sm_90's banks are four bytes wide whatever is asked */
    return cudaSuccess;
}

cudaError_t cudaCtxResetPersistingL2Cache(void)
{
    return cudaSuccess; /* no cache is modelled */
}

cudaError_t cudaSetValidDevices(int *device_arr, int len)
{
    (void)device_arr, (void)len;
    return cudaSuccess;
}

/* "0000:BB:00.0", BB the device's pciBusID. */
cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    struct cudaDeviceProp p;
    cudaError_t err = cudaGetDeviceProperties(&p, device);
    if (err == cudaSuccess)
        snprintf(pciBusId, (size_t)len, "0000:%02x:00.0", p.pciBusID);
    return err;
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
    rt_run_all();
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

/* What rt_unsupported.c's stubs answer: one line naming the call, and cudaErrorNotSupported. */
int rt_not_supported(const char *name)
{
    rt_say("%s is not emulated (cudaErrorNotSupported)", name);
    return rt_error(cudaErrorNotSupported);
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
    ERR(cudaErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch"),
    ERR(cudaErrorInvalidChannelDescriptor, "invalid channel descriptor"),
    ERR(cudaErrorHostMemoryAlreadyRegistered, "part or all of the host memory is registered"),
    ERR(cudaErrorHostMemoryNotRegistered, "the host memory is not registered"),
    ERR(cudaErrorIllegalState, "the operation is not valid in this state"),
    ERR(cudaErrorStreamCaptureUnsupported, "operation not permitted while a stream captures"),
    ERR(cudaErrorStreamCaptureIsolation, "the dependency would cross a capture's boundary"),
    ERR(cudaErrorGraphExecUpdateFailure,
        "the graph update changes what an instantiated graph cannot change"),
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
    rt_run_all(); /* the queued launches have counters only once they ran */
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

/* The library stand-ins compute at the call: what is queued before it runs first. */
int course_emu_sticky_error(void)
{
    rt_lock();
    cudaError_t err = rt_device();
    rt_run_all();
    err = err != cudaSuccess ? err : rt.sticky;
    rt_unlock();
    return (int)err;
}

void *course_emu_host(const void *dev, size_t bytes, const char *who)
{
    rt_lock();
    rt_run_all();
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
