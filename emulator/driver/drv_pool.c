/**
 * @file drv_pool.c
 * @brief The driver stand-in: stream-ordered allocation and memory pools, managed memory's
 *        prefetches, advice and range attributes, registered host memory, peers and IPC: the
 *        runtime's calls (runtime/rt_memory.c, rt_managed.c, ipc/) with the driver's types.
 *
 * A CUmemoryPool is the runtime's cudaMemPool_t, and CUmemPoolProps, CUmemLocation,
 * CUmemAccessDesc and the pool attributes are laid out and numbered as the runtime's are
 * (checked below where the layouts could differ). Every emulated GPU reaches all device memory,
 * so peer access is always enabled and a copy between devices' memories is a copy.
 */
#include <stdint.h>
#include <string.h>

#include "drv.h"

_Static_assert(sizeof(CUmemPoolProps) == sizeof(struct cudaMemPoolProps),
               "CUmemPoolProps and cudaMemPoolProps differ");
_Static_assert(sizeof(CUmemLocation) == sizeof(struct cudaMemLocation),
               "CUmemLocation and cudaMemLocation differ");
_Static_assert(sizeof(CUipcMemHandle) == sizeof(cudaIpcMemHandle_t),
               "CUipcMemHandle and cudaIpcMemHandle_t differ");

/* --- pools and stream-ordered allocation --------------------------------------------------- */

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    DRV_FORWARD("cuDeviceGetDefaultMemPool",
                cudaDeviceGetDefaultMemPool((cudaMemPool_t *)pool_out, (int)dev));
}

CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    DRV_FORWARD("cuDeviceGetMemPool", cudaDeviceGetMemPool((cudaMemPool_t *)pool, (int)dev));
}

CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    DRV_FORWARD("cuDeviceSetMemPool", cudaDeviceSetMemPool((int)dev, (cudaMemPool_t)pool));
}

CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location,
                                CUmemAllocationType type)
{
    DRV_FORWARD("cuMemGetDefaultMemPool",
                cudaMemGetDefaultMemPool((cudaMemPool_t *)pool_out,
                                         (struct cudaMemLocation *)location,
                                         (enum cudaMemAllocationType)type));
}

CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location, CUmemAllocationType type)
{
    DRV_FORWARD("cuMemGetMemPool",
                cudaMemGetMemPool((cudaMemPool_t *)pool, (struct cudaMemLocation *)location,
                                  (enum cudaMemAllocationType)type));
}

CUresult cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type, CUmemoryPool pool)
{
    DRV_FORWARD("cuMemSetMemPool",
                cudaMemSetMemPool((struct cudaMemLocation *)location,
                                  (enum cudaMemAllocationType)type, (cudaMemPool_t)pool));
}

CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    DRV_FORWARD("cuMemPoolCreate", cudaMemPoolCreate((cudaMemPool_t *)pool,
                                                     (const struct cudaMemPoolProps *)poolProps));
}

CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    DRV_FORWARD("cuMemPoolDestroy", cudaMemPoolDestroy((cudaMemPool_t)pool));
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    DRV_FORWARD("cuMemPoolSetAttribute",
                cudaMemPoolSetAttribute((cudaMemPool_t)pool, (enum cudaMemPoolAttr)attr, value));
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    DRV_FORWARD("cuMemPoolGetAttribute",
                cudaMemPoolGetAttribute((cudaMemPool_t)pool, (enum cudaMemPoolAttr)attr, value));
}

CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    DRV_FORWARD("cuMemPoolTrimTo", cudaMemPoolTrimTo((cudaMemPool_t)pool, minBytesToKeep));
}

CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    DRV_FORWARD(
        "cuMemPoolSetAccess",
        cudaMemPoolSetAccess((cudaMemPool_t)pool, (const struct cudaMemAccessDesc *)map, count));
}

CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location)
{
    DRV_FORWARD("cuMemPoolGetAccess",
                cudaMemPoolGetAccess((enum cudaMemAccessFlags *)flags, (cudaMemPool_t)memPool,
                                     (struct cudaMemLocation *)location));
}

/* The allocation on stream @p s (a pool's, with @p pool). */
static CUresult alloc_async(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool, cudaStream_t s)
{
    void *p = NULL;
    CUresult r = drv_args(drv_ready("cuMemAllocAsync"), !dptr);
    if (r == CUDA_SUCCESS)
        r = drv_result(pool ? cudaMallocFromPoolAsync(&p, bytes, (cudaMemPool_t)pool, s)
                            : cudaMallocAsync(&p, bytes, s));
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)(uintptr_t)p;
    return r;
}

CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(dptr, bytesize, NULL, (cudaStream_t)hStream);
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(dptr, bytesize, NULL, drv_stream(hStream, 1));
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                 CUstream hStream)
{
    return pool ? alloc_async(dptr, bytesize, pool, (cudaStream_t)hStream)
                : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                      CUstream hStream)
{
    return pool ? alloc_async(dptr, bytesize, pool, drv_stream(hStream, 1))
                : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    DRV_FORWARD("cuMemFreeAsync", cudaFreeAsync((void *)(uintptr_t)dptr, (cudaStream_t)hStream));
}

CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    DRV_FORWARD("cuMemFreeAsync", cudaFreeAsync((void *)(uintptr_t)dptr, drv_stream(hStream, 1)));
}

/* --- managed memory ------------------------------------------------------------------------- */

CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                               unsigned int flags, CUstream hStream)
{
    struct cudaMemLocation l = {(enum cudaMemLocationType)location.type, location.id};
    DRV_FORWARD("cuMemPrefetchAsync", cudaMemPrefetchAsync((const void *)(uintptr_t)devPtr, count,
                                                           l, flags, (cudaStream_t)hStream));
}

CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                    unsigned int flags, CUstream hStream)
{
    return cuMemPrefetchAsync_v2(devPtr, count, location, flags, (CUstream)drv_stream(hStream, 1));
}

CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                        CUmemLocation location)
{
    struct cudaMemLocation l = {(enum cudaMemLocationType)location.type, location.id};
    DRV_FORWARD("cuMemAdvise", cudaMemAdvise((const void *)(uintptr_t)devPtr, count,
                                             (enum cudaMemoryAdvise)advice, l));
}

CUresult cuMemRangeGetAttribute(void *data, size_t dataSize, CUmem_range_attribute attribute,
                                CUdeviceptr devPtr, size_t count)
{
    DRV_FORWARD("cuMemRangeGetAttribute",
                cudaMemRangeGetAttribute(data, dataSize, (enum cudaMemRangeAttribute)attribute,
                                         (const void *)(uintptr_t)devPtr, count));
}

CUresult cuMemRangeGetAttributes(void **data, size_t *dataSizes, CUmem_range_attribute *attributes,
                                 size_t numAttributes, CUdeviceptr devPtr, size_t count)
{
    DRV_FORWARD("cuMemRangeGetAttributes",
                cudaMemRangeGetAttributes(data, dataSizes, (enum cudaMemRangeAttribute *)attributes,
                                          numAttributes, (const void *)(uintptr_t)devPtr, count));
}

/* --- registered host memory, peers, IPC ----------------------------------------------------- */

CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    DRV_FORWARD("cuMemHostRegister", cudaHostRegister(p, bytesize, Flags));
}

CUresult cuMemHostUnregister(void *p)
{
    DRV_FORWARD("cuMemHostUnregister", cudaHostUnregister(p));
}

CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    DRV_FORWARD("cuMemHostGetFlags", cudaHostGetFlags(pFlags, p));
}

/* Every emulated GPU reaches all device memory: peer access is on from the start. */
CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    return drv_args(drv_ready("cuCtxEnablePeerAccess"), !peerContext || Flags);
}

CUresult cuCtxDisablePeerAccess(CUcontext peerContext)
{
    return drv_args(drv_ready("cuCtxDisablePeerAccess"), !peerContext);
}

CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                      CUcontext srcContext, size_t ByteCount)
{
    (void)dstContext, (void)srcContext;
    DRV_FORWARD("cuMemcpyPeer",
                cudaMemcpy((void *)(uintptr_t)dstDevice, (const void *)(uintptr_t)srcDevice,
                           ByteCount, cudaMemcpyDeviceToDevice));
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                           CUcontext srcContext, size_t ByteCount, CUstream hStream)
{
    (void)dstContext, (void)srcContext;
    DRV_FORWARD("cuMemcpyPeerAsync",
                cudaMemcpyAsync((void *)(uintptr_t)dstDevice, (const void *)(uintptr_t)srcDevice,
                                ByteCount, cudaMemcpyDeviceToDevice, (cudaStream_t)hStream));
}

CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    DRV_FORWARD("cuIpcGetMemHandle",
                cudaIpcGetMemHandle((cudaIpcMemHandle_t *)pHandle, (void *)(uintptr_t)dptr));
}

CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    void *p = NULL;
    cudaIpcMemHandle_t h;
    memcpy(&h, &handle, sizeof h);
    CUresult r = drv_args(drv_ready("cuIpcOpenMemHandle"), !pdptr);
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaIpcOpenMemHandle(&p, h, Flags));
    if (r == CUDA_SUCCESS)
        *pdptr = (CUdeviceptr)(uintptr_t)p;
    return r;
}

CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    DRV_FORWARD("cuIpcCloseMemHandle", cudaIpcCloseMemHandle((void *)(uintptr_t)dptr));
}

CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)
{
    DRV_FORWARD("cuIpcGetEventHandle",
                cudaIpcGetEventHandle((cudaIpcEventHandle_t *)pHandle, (cudaEvent_t)event));
}

CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)
{
    cudaIpcEventHandle_t h;
    memcpy(&h, &handle, sizeof h);
    DRV_FORWARD("cuIpcOpenEventHandle", cudaIpcOpenEventHandle((cudaEvent_t *)phEvent, h));
}
