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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu.h"
#include "proto.h"
#include "rt.h"

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return rt_null("cudaGetDeviceCount", "count");
    int n = rt_gpus();
    *count = n;
    return n ? cudaSuccess : rt_error(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int device)
{
    int n = rt_gpus();
    if (device < 0 || device >= n)
        return rt_error(cudaErrorInvalidDevice);
    rt_self()->device = device;
    rt.device_set = 1; /* the primary context exists now (the driver stand-in's current one) */
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return rt_null("cudaGetDevice", "device");
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

/* The emulated GPUs share one memory, so every link between two of them is as good as the best:
 * peer access, native atomics (over all operations) and arrays, at performance rank 0. */
cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr, int srcDevice,
                                      int dstDevice)
{
    int n;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess || srcDevice < 0 || srcDevice >= n || dstDevice < 0 || dstDevice >= n ||
        srcDevice == dstDevice)
        return rt_error(cudaErrorInvalidDevice);
    if (!value)
        return rt_error(cudaErrorInvalidValue);
    switch (attr) {
    case cudaDevP2PAttrPerformanceRank:
#if CUDART_VERSION >= 13000
    case cudaDevP2PAttrOnlyPartialNativeAtomicSupported:
#endif
        *value = 0;
        return cudaSuccess;
    case cudaDevP2PAttrAccessSupported:
    case cudaDevP2PAttrNativeAtomicSupported:
    case cudaDevP2PAttrCudaArrayAccessSupported:
        *value = 1;
        return cudaSuccess;
    }
    return rt_error(cudaErrorInvalidValue);
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
    if (!prop)
        return rt_null("cudaGetDeviceProperties", "prop");
    rt_lock();
    int n = rt_gpus();
    if (device >= 0 && device < n)
        fill_props(prop, device);
    rt_unlock();
    return device >= 0 && device < n ? cudaSuccess : rt_error(cudaErrorInvalidDevice);
}

/* What attribute() answers for a number that names no attribute. */
#define NO_ATTRIBUTE LONG_MIN

/* Where the value of an attribute comes from: a field of the properties (an int, or a size_t
 * where the field is one), or a number of its own where the properties hold none. */
struct attr_source {
    enum cudaDeviceAttr attr;
    unsigned short offset, size; /* the field's place in cudaDeviceProp; size 0: value */
    long value;
};

#define PROP(attr, field)                                                                          \
    {                                                                                              \
        attr, offsetof(struct cudaDeviceProp, field), sizeof(((struct cudaDeviceProp *)0)->field), \
            0                                                                                      \
    }
#define FIXED(attr, v)                                                                             \
    {                                                                                              \
        attr, 0, 0, v                                                                              \
    }

/* Every attribute the toolkit's CUDA (13, or 12) defines: the capability flags, the limits, then
 * the texture and surface limits. */
static const struct attr_source attr_sources[] = {
    FIXED(cudaDevAttrGpuOverlap, 1),
    FIXED(cudaDevAttrKernelExecTimeout, 0),
    PROP(cudaDevAttrIntegrated, integrated),
    PROP(cudaDevAttrCanMapHostMemory, canMapHostMemory),
    FIXED(cudaDevAttrComputeMode, cudaComputeModeDefault),
    PROP(cudaDevAttrConcurrentKernels, concurrentKernels),
    PROP(cudaDevAttrEccEnabled, ECCEnabled),
    PROP(cudaDevAttrTccDriver, tccDriver),
    PROP(cudaDevAttrUnifiedAddressing, unifiedAddressing),
    PROP(cudaDevAttrStreamPrioritiesSupported, streamPrioritiesSupported),
    PROP(cudaDevAttrGlobalL1CacheSupported, globalL1CacheSupported),
    PROP(cudaDevAttrLocalL1CacheSupported, localL1CacheSupported),
    PROP(cudaDevAttrManagedMemory, managedMemory),
    PROP(cudaDevAttrIsMultiGpuBoard, isMultiGpuBoard),
    PROP(cudaDevAttrHostNativeAtomicSupported, hostNativeAtomicSupported),
    PROP(cudaDevAttrPageableMemoryAccess, pageableMemoryAccess),
    PROP(cudaDevAttrConcurrentManagedAccess, concurrentManagedAccess),
    PROP(cudaDevAttrComputePreemptionSupported, computePreemptionSupported),
    PROP(cudaDevAttrCanUseHostPointerForRegisteredMem, canUseHostPointerForRegisteredMem),
    PROP(cudaDevAttrCooperativeLaunch, cooperativeLaunch),
    FIXED(cudaDevAttrCanFlushRemoteWrites, 0),
    PROP(cudaDevAttrHostRegisterSupported, hostRegisterSupported),
    PROP(cudaDevAttrPageableMemoryAccessUsesHostPageTables, pageableMemoryAccessUsesHostPageTables),
    PROP(cudaDevAttrDirectManagedMemAccessFromHost, directManagedMemAccessFromHost),
    PROP(cudaDevAttrSparseCudaArraySupported, sparseCudaArraySupported),
    PROP(cudaDevAttrHostRegisterReadOnlySupported, hostRegisterReadOnlySupported),
    PROP(cudaDevAttrTimelineSemaphoreInteropSupported, timelineSemaphoreInteropSupported),
    PROP(cudaDevAttrMemoryPoolsSupported, memoryPoolsSupported),
    PROP(cudaDevAttrGPUDirectRDMASupported, gpuDirectRDMASupported),
    PROP(cudaDevAttrGPUDirectRDMAFlushWritesOptions, gpuDirectRDMAFlushWritesOptions),
    PROP(cudaDevAttrGPUDirectRDMAWritesOrdering, gpuDirectRDMAWritesOrdering),
    PROP(cudaDevAttrMemoryPoolSupportedHandleTypes, memoryPoolSupportedHandleTypes),
    PROP(cudaDevAttrClusterLaunch, clusterLaunch),
    PROP(cudaDevAttrDeferredMappingCudaArraySupported, deferredMappingCudaArraySupported),
    PROP(cudaDevAttrIpcEventSupport, ipcEventSupported),
#if CUDART_VERSION >= 13000
    PROP(cudaDevAttrNumaConfig, deviceNumaConfig),
    PROP(cudaDevAttrMpsEnabled, mpsEnabled),
    FIXED(cudaDevAttrD3D12CigSupported, 0),
    FIXED(cudaDevAttrVulkanCigSupported, 0),
    FIXED(cudaDevAttrHostNumaMemoryPoolsSupported, 0),
    PROP(cudaDevAttrHostNumaMultinodeIpcSupported, hostNumaMultinodeIpcSupported),
    FIXED(cudaDevAttrHostMemoryPoolsSupported, 0),
    FIXED(cudaDevAttrOnlyPartialHostNativeAtomicSupported, 0),
#else
    FIXED(cudaDevAttrNumaConfig, cudaDeviceNumaConfigNone),
    FIXED(cudaDevAttrMpsEnabled, 0),
    FIXED(cudaDevAttrCooperativeMultiDeviceLaunch, 0),
#endif
    PROP(cudaDevAttrMaxThreadsPerBlock, maxThreadsPerBlock),
    PROP(cudaDevAttrMaxBlockDimX, maxThreadsDim[0]),
    PROP(cudaDevAttrMaxBlockDimY, maxThreadsDim[1]),
    PROP(cudaDevAttrMaxBlockDimZ, maxThreadsDim[2]),
    PROP(cudaDevAttrMaxGridDimX, maxGridSize[0]),
    PROP(cudaDevAttrMaxGridDimY, maxGridSize[1]),
    PROP(cudaDevAttrMaxGridDimZ, maxGridSize[2]),
    PROP(cudaDevAttrMaxSharedMemoryPerBlock, sharedMemPerBlock),
    PROP(cudaDevAttrTotalConstantMemory, totalConstMem),
    PROP(cudaDevAttrWarpSize, warpSize),
    PROP(cudaDevAttrMaxPitch, memPitch),
    PROP(cudaDevAttrMaxRegistersPerBlock, regsPerBlock),
    FIXED(cudaDevAttrClockRate, H100_CLOCK_KHZ),
    PROP(cudaDevAttrMultiProcessorCount, multiProcessorCount),
    PROP(cudaDevAttrPciBusId, pciBusID),
    PROP(cudaDevAttrPciDeviceId, pciDeviceID),
    PROP(cudaDevAttrPciDomainId, pciDomainID),
    FIXED(cudaDevAttrMemoryClockRate, H100_MEMORY_CLOCK_KHZ),
    PROP(cudaDevAttrGlobalMemoryBusWidth, memoryBusWidth),
    PROP(cudaDevAttrL2CacheSize, l2CacheSize),
    PROP(cudaDevAttrMaxThreadsPerMultiProcessor, maxThreadsPerMultiProcessor),
    PROP(cudaDevAttrAsyncEngineCount, asyncEngineCount),
    PROP(cudaDevAttrComputeCapabilityMajor, major),
    PROP(cudaDevAttrComputeCapabilityMinor, minor),
    PROP(cudaDevAttrMaxSharedMemoryPerMultiprocessor, sharedMemPerMultiprocessor),
    PROP(cudaDevAttrMaxRegistersPerMultiprocessor, regsPerMultiprocessor),
    PROP(cudaDevAttrMultiGpuBoardGroupID, multiGpuBoardGroupID),
    FIXED(cudaDevAttrSingleToDoublePrecisionPerfRatio, H100_SINGLE_TO_DOUBLE),
    PROP(cudaDevAttrMaxSharedMemoryPerBlockOptin, sharedMemPerBlockOptin),
    PROP(cudaDevAttrMaxBlocksPerMultiprocessor, maxBlocksPerMultiProcessor),
    PROP(cudaDevAttrMaxPersistingL2CacheSize, persistingL2CacheMaxSize),
    PROP(cudaDevAttrMaxAccessPolicyWindowSize, accessPolicyMaxWindowSize),
    PROP(cudaDevAttrReservedSharedMemoryPerBlock, reservedSharedMemPerBlock),
    FIXED(cudaDevAttrMemSyncDomainCount, H100_MEM_SYNC_DOMAINS),
#if CUDART_VERSION >= 13000
    PROP(cudaDevAttrNumaId, deviceNumaId),
    PROP(cudaDevAttrHostNumaId, hostNumaId),
    PROP(cudaDevAttrGpuPciDeviceId, gpuPciDeviceID),
    PROP(cudaDevAttrGpuPciSubsystemId, gpuPciSubsystemID),
#else
    FIXED(cudaDevAttrNumaId, NO_NUMA_ID),
    FIXED(cudaDevAttrHostNumaId, NO_NUMA_ID),
#endif
    PROP(cudaDevAttrMaxTexture1DWidth, maxTexture1D),
    PROP(cudaDevAttrMaxTexture2DWidth, maxTexture2D[0]),
    PROP(cudaDevAttrMaxTexture2DHeight, maxTexture2D[1]),
    PROP(cudaDevAttrMaxTexture3DWidth, maxTexture3D[0]),
    PROP(cudaDevAttrMaxTexture3DHeight, maxTexture3D[1]),
    PROP(cudaDevAttrMaxTexture3DDepth, maxTexture3D[2]),
    PROP(cudaDevAttrMaxTexture2DLayeredWidth, maxTexture2DLayered[0]),
    PROP(cudaDevAttrMaxTexture2DLayeredHeight, maxTexture2DLayered[1]),
    PROP(cudaDevAttrMaxTexture2DLayeredLayers, maxTexture2DLayered[2]),
    PROP(cudaDevAttrSurfaceAlignment, surfaceAlignment),
    PROP(cudaDevAttrTextureAlignment, textureAlignment),
    PROP(cudaDevAttrTexturePitchAlignment, texturePitchAlignment),
    PROP(cudaDevAttrMaxTexture1DLayeredWidth, maxTexture1DLayered[0]),
    PROP(cudaDevAttrMaxTexture1DLayeredLayers, maxTexture1DLayered[1]),
    PROP(cudaDevAttrMaxTexture2DGatherWidth, maxTexture2DGather[0]),
    PROP(cudaDevAttrMaxTexture2DGatherHeight, maxTexture2DGather[1]),
    PROP(cudaDevAttrMaxTexture3DWidthAlt, maxTexture3DAlt[0]),
    PROP(cudaDevAttrMaxTexture3DHeightAlt, maxTexture3DAlt[1]),
    PROP(cudaDevAttrMaxTexture3DDepthAlt, maxTexture3DAlt[2]),
    PROP(cudaDevAttrMaxTextureCubemapWidth, maxTextureCubemap),
    PROP(cudaDevAttrMaxTextureCubemapLayeredWidth, maxTextureCubemapLayered[0]),
    PROP(cudaDevAttrMaxTextureCubemapLayeredLayers, maxTextureCubemapLayered[1]),
    PROP(cudaDevAttrMaxSurface1DWidth, maxSurface1D),
    PROP(cudaDevAttrMaxSurface2DWidth, maxSurface2D[0]),
    PROP(cudaDevAttrMaxSurface2DHeight, maxSurface2D[1]),
    PROP(cudaDevAttrMaxSurface3DWidth, maxSurface3D[0]),
    PROP(cudaDevAttrMaxSurface3DHeight, maxSurface3D[1]),
    PROP(cudaDevAttrMaxSurface3DDepth, maxSurface3D[2]),
    PROP(cudaDevAttrMaxSurface1DLayeredWidth, maxSurface1DLayered[0]),
    PROP(cudaDevAttrMaxSurface1DLayeredLayers, maxSurface1DLayered[1]),
    PROP(cudaDevAttrMaxSurface2DLayeredWidth, maxSurface2DLayered[0]),
    PROP(cudaDevAttrMaxSurface2DLayeredHeight, maxSurface2DLayered[1]),
    PROP(cudaDevAttrMaxSurface2DLayeredLayers, maxSurface2DLayered[2]),
    PROP(cudaDevAttrMaxSurfaceCubemapWidth, maxSurfaceCubemap),
    PROP(cudaDevAttrMaxSurfaceCubemapLayeredWidth, maxSurfaceCubemapLayered[0]),
    PROP(cudaDevAttrMaxSurfaceCubemapLayeredLayers, maxSurfaceCubemapLayered[1]),
    FIXED(cudaDevAttrMaxTexture1DLinearWidth, 1 << 28),
    PROP(cudaDevAttrMaxTexture2DLinearWidth, maxTexture2DLinear[0]),
    PROP(cudaDevAttrMaxTexture2DLinearHeight, maxTexture2DLinear[1]),
    PROP(cudaDevAttrMaxTexture2DLinearPitch, maxTexture2DLinear[2]),
    PROP(cudaDevAttrMaxTexture2DMipmappedWidth, maxTexture2DMipmap[0]),
    PROP(cudaDevAttrMaxTexture2DMipmappedHeight, maxTexture2DMipmap[1]),
    PROP(cudaDevAttrMaxTexture1DMipmappedWidth, maxTexture1DMipmap),
};
#undef PROP
#undef FIXED

/* The value of attribute @p attr, from the properties; NO_ATTRIBUTE for a number the toolkit's
 * CUDA (13, or 12) does not define (the reserved numbers). */
static long attribute(const struct cudaDeviceProp *p, enum cudaDeviceAttr attr)
{
    for (size_t i = 0; i < sizeof attr_sources / sizeof *attr_sources; i++) {
        const struct attr_source *a = &attr_sources[i];
        if (a->attr != attr)
            continue;
        if (a->size == sizeof(size_t)) {
            size_t v;
            memcpy(&v, (const char *)p + a->offset, sizeof v);
            return (long)v;
        }
        if (a->size == sizeof(int)) {
            int v;
            memcpy(&v, (const char *)p + a->offset, sizeof v);
            return v;
        }
        return a->value;
    }
    return NO_ATTRIBUTE;
}

/* Every attribute the toolkit's CUDA defines is answered; a reserved or unknown number is refused
 * with cudaErrorInvalidValue and one line, and, unlike a fault, leaves no error behind for a later
 * cudaGetLastError (a program probing attributes must not fail its next kernel's check). */
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (!value)
        return rt_null("cudaDeviceGetAttribute", "value");
    struct cudaDeviceProp p;
    cudaError_t err = cudaGetDeviceProperties(&p, device);
    if (err != cudaSuccess)
        return err;
    long v = attribute(&p, attr);
    if (v == NO_ATTRIBUTE) {
        emu_say("cudaDeviceGetAttribute: %d is not a device attribute CUDA %d defines", (int)attr,
                CUDART_VERSION / 1000);
        return cudaErrorInvalidValue;
    }
    *value = (int)v;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    if ((unsigned)limit >= RT_LIMITS)
        return rt_error(cudaErrorUnsupportedLimit);
    *pValue = rt_limits[limit];
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    struct cudaDeviceProp p;
    fill_props(&p, 0);
    if ((unsigned)limit >= RT_LIMITS)
        return rt_error(cudaErrorUnsupportedLimit);
    if ((limit == cudaLimitMaxL2FetchGranularity && value > 128) ||
        (limit == cudaLimitPersistingL2CacheSize && value > (size_t)p.persistingL2CacheMaxSize))
        return rt_error(cudaErrorInvalidValue);
    if (limit == cudaLimitMallocHeapSize && rt.heap_made) {
        emu_say("cudaDeviceSetLimit: the device heap already holds %zu bytes: "
                "cudaLimitMallocHeapSize must be set before the first kernel that uses malloc or "
                "free is launched",
                rt_limits[limit]);
        return rt_error(cudaErrorInvalidValue);
    }
    rt_limits[limit] = value;
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

/* The device whose pciBusID the id's bus number is (its domain, device and function 0). */
cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    unsigned domain, bus, dev, function;
    int count = 0;
    struct cudaDeviceProp p;
    if (!device || !pciBusId ||
        sscanf(pciBusId, "%x:%x:%x.%x", &domain, &bus, &dev, &function) != 4 || domain || dev ||
        function)
        return rt_error(cudaErrorInvalidValue);
    cudaGetDeviceCount(&count);
    for (int d = 0; d < count; d++)
        if (cudaGetDeviceProperties(&p, d) == cudaSuccess && (unsigned)p.pciBusID == bus) {
            *device = d;
            return cudaSuccess;
        }
    emu_say("cudaDeviceGetByPCIBusId: no emulated GPU is at %s (cudaErrorInvalidDevice)", pciBusId);
    return rt_error(cudaErrorInvalidDevice);
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
    if (!driverVersion)
        return rt_null("cudaDriverGetVersion", "driverVersion");
    *driverVersion = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return rt_null("cudaRuntimeGetVersion", "runtimeVersion");
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
    void *h = rt_device() == cudaSuccess && !rt.remote ? rt_host(dev, bytes, who) : NULL;
    if (rt.remote)
        emu_say("%s: a library stand-in computes on the host, and the grader's device keeps its "
                "memory from the host",
                who);
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
