/**
 * @file drv_memory.c
 * @brief The driver stand-in: memory, copies, fills, streams and events, through the runtime.
 *
 * A CUdeviceptr is the runtime's device pointer, a CUstream a cudaStream_t and a CUevent a
 * cudaEvent_t (CUDA defines them as the same objects), so the runtime's rules hold: copies and
 * fills queue on their stream and run as late as CUDA allows, a pageable host copy runs at
 * the call, and a fault is sticky. The _ptds and _ptsz entry points (code built with a
 * per-thread default stream) use this thread's stream where the program names stream 0.
 * cuMemsetD16 and D32 of a value whose bytes differ copy the pattern from the host (the
 * runtime fills bytes only), so initcheck and the grader see those bytes as the host's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drv.h"
#include "rt_driver.h"

#define DPTR(p) ((void *)(uintptr_t)(p))

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    void *p = NULL;
    CUresult r = drv_args(drv_ready("cuMemAlloc"), !dptr || !bytesize);
    if (r == CUDA_SUCCESS)
        r = drv_result(
            (cudaError_t)course_emu_drv_malloc(&p, bytesize, __builtin_return_address(0)));
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)(uintptr_t)p;
    return r;
}

CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    DRV_FORWARD("cuMemFree", cudaFree(DPTR(dptr)));
}

/* The allocation holding @p dptr: a query, so an address in none is CUDA_ERROR_NOT_FOUND without
 * a line (programs ask it of pointers they do not know, as NCCL does). */
CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    uint64_t base = 0, size = 0;
    CUresult r = drv_ready("cuMemGetAddressRange");
    if (r == CUDA_SUCCESS && !course_emu_drv_range(dptr, &base, &size))
        r = CUDA_ERROR_NOT_FOUND;
    if (r == CUDA_SUCCESS && pbase)
        *pbase = (CUdeviceptr)base;
    if (r == CUDA_SUCCESS && psize)
        *psize = (size_t)size;
    return r;
}

/* One attribute of the memory @p ptr addresses, from the runtime's view of it
 * (cudaPointerGetAttributes) and the allocation it falls in: memory not allocated, mapped or
 * registered through CUDA is CUDA_ERROR_INVALID_VALUE, as the driver answers, without a line. */
static CUresult pointer_attribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    struct cudaPointerAttributes a;
    uint64_t base = 0, size = 0;
    if (cudaPointerGetAttributes(&a, DPTR(ptr)) != cudaSuccess ||
        a.type == cudaMemoryTypeUnregistered)
        return CUDA_ERROR_INVALID_VALUE;
    int in_range = course_emu_drv_range(ptr, &base, &size);
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: /* managed memory answers as the device's */
        *(unsigned *)data =
            a.type == cudaMemoryTypeHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = (CUdeviceptr)(uintptr_t)a.devicePointer;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (!a.hostPointer)
            return CUDA_ERROR_INVALID_VALUE; /* device memory has no host address */
        *(void **)data = a.hostPointer;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(int *)data = a.type == cudaMemoryTypeManaged;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = a.device >= 0 ? a.device : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(int *)data = 1;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: /* the emulator's copies are always synchronous */
        *(int *)data = 1;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID: /* unique while allocated: the allocation's base */
        *(unsigned long long *)data = in_range ? base : (uint64_t)ptr;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        if (!in_range)
            return CUDA_ERROR_INVALID_VALUE;
        if (attribute == CU_POINTER_ATTRIBUTE_RANGE_SIZE)
            *(size_t *)data = (size_t)size;
        else
            *(CUdeviceptr *)data = (CUdeviceptr)base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_CONTEXT: {
        CUcontext ctx = NULL;
        CUdevice dev = 0;
        if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx || cuCtxGetDevice(&dev) != CUDA_SUCCESS ||
            dev != (a.device >= 0 ? a.device : 0))
            break; /* the allocation's device is not the current context's */
        *(CUcontext *)data = ctx;
        return CUDA_SUCCESS;
    }
    default:
        break;
    }
    emu_say("cuPointerGetAttribute: attribute %d of this pointer is not emulated "
            "(CUDA_ERROR_NOT_SUPPORTED)",
            (int)attribute);
    return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    CUresult r = drv_args(drv_ready("cuPointerGetAttribute"), !data);
    return r == CUDA_SUCCESS ? pointer_attribute(data, attribute, ptr) : r;
}

CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes,
                                void **data, CUdeviceptr ptr)
{
    CUresult r = drv_args(drv_ready("cuPointerGetAttributes"), !attributes || !data);
    for (unsigned i = 0; r == CUDA_SUCCESS && i < numAttributes; i++)
        r = data[i] ? pointer_attribute(data[i], attributes[i], ptr) : CUDA_ERROR_INVALID_VALUE;
    return r;
}

CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
    DRV_FORWARD("cuMemGetInfo", cudaMemGetInfo(free, total));
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    DRV_FORWARD("cuMemAllocHost", cudaMallocHost(pp, bytesize));
}

/* CU_MEMHOSTALLOC_* are cudaHostAlloc*'s numbers. */
CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    DRV_FORWARD("cuMemHostAlloc", cudaHostAlloc(pp, bytesize, Flags));
}

CUresult cuMemFreeHost(void *p)
{
    DRV_FORWARD("cuMemFreeHost", cudaFreeHost(p));
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    void *d = NULL;
    CUresult r = drv_args(drv_ready("cuMemHostGetDevicePointer"), !pdptr);
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaHostGetDevicePointer(&d, p, Flags));
    if (r == CUDA_SUCCESS)
        *pdptr = (CUdeviceptr)(uintptr_t)d;
    return r;
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    void *p = NULL;
    CUresult r = drv_args(drv_ready("cuMemAllocManaged"), !dptr);
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaMallocManaged(&p, bytesize, flags));
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)(uintptr_t)p;
    return r;
}

/* --- copies ------------------------------------------------------------------------------- */

/* Every cuMemcpy*: synchronous (@p sync) or on @p s. */
static CUresult copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, int sync,
                     CUstream s, int per_thread, const char *who)
{
    CUresult r = drv_ready(who);
    if (r != CUDA_SUCCESS)
        return r;
    if (sync)
        return drv_result(per_thread ? cudaMemcpy_ptds(dst, src, n, kind)
                                     : cudaMemcpy(dst, src, n, kind));
    return drv_result(cudaMemcpyAsync(dst, src, n, kind, drv_stream(s, per_thread)));
}

/* The synchronous and asynchronous copy of one direction, with their per-thread forms. */
#define COPIES(name, dtype, stype, D, S, kind)                                                     \
    CUresult cuMemcpy##name##_v2(dtype dst, stype src, size_t n)                                   \
    {                                                                                              \
        return copy(D(dst), S(src), n, kind, 1, NULL, 0, "cuMemcpy" #name);                        \
    }                                                                                              \
    CUresult cuMemcpy##name##_v2_ptds(dtype dst, stype src, size_t n)                              \
    {                                                                                              \
        return copy(D(dst), S(src), n, kind, 1, NULL, 1, "cuMemcpy" #name);                        \
    }                                                                                              \
    CUresult cuMemcpy##name##Async_v2(dtype dst, stype src, size_t n, CUstream s)                  \
    {                                                                                              \
        return copy(D(dst), S(src), n, kind, 0, s, 0, "cuMemcpy" #name "Async");                   \
    }                                                                                              \
    CUresult cuMemcpy##name##Async_v2_ptsz(dtype dst, stype src, size_t n, CUstream s)             \
    {                                                                                              \
        return copy(D(dst), S(src), n, kind, 0, s, 1, "cuMemcpy" #name "Async");                   \
    }

#define HOST(p) ((void *)(p))
COPIES(HtoD, CUdeviceptr, const void *, DPTR, HOST, cudaMemcpyHostToDevice)
COPIES(DtoH, void *, CUdeviceptr, HOST, DPTR, cudaMemcpyDeviceToHost)
COPIES(DtoD, CUdeviceptr, CUdeviceptr, DPTR, DPTR, cudaMemcpyDeviceToDevice)
#undef HOST

/* Unified addressing: the runtime tells host from device by the pointer. */
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    return copy(DPTR(dst), DPTR(src), ByteCount, cudaMemcpyDefault, 1, NULL, 0, "cuMemcpy");
}

CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    return copy(DPTR(dst), DPTR(src), ByteCount, cudaMemcpyDefault, 1, NULL, 1, "cuMemcpy");
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
    return copy(DPTR(dst), DPTR(src), ByteCount, cudaMemcpyDefault, 0, hStream, 0, "cuMemcpyAsync");
}

CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
    return copy(DPTR(dst), DPTR(src), ByteCount, cudaMemcpyDefault, 0, hStream, 1, "cuMemcpyAsync");
}

/* --- fills -------------------------------------------------------------------------------- */

/* Fill @p height rows, @p pitch bytes apart, of @p n elements of @p width bytes at @p dst with
 * @p value (a stream's own fill, which a capture records as a fill node). */
static CUresult fill(CUdeviceptr dst, size_t pitch, uint32_t value, unsigned width, size_t n,
                     size_t height, int sync, CUstream s, int per_thread, const char *who)
{
    CUresult r = drv_ready(who);
    cudaStream_t st = sync ? (per_thread ? cudaStreamPerThread : NULL) : drv_stream(s, per_thread);
    return r != CUDA_SUCCESS ? r
                             : drv_result((cudaError_t)course_emu_drv_fill(
                                   DPTR(dst), height > 1 ? pitch : n * width, value, width,
                                   n * width, height, st, !sync, who));
}

/* The synchronous and asynchronous fill of one width, 1D and 2D, with their per-thread forms. */
#define FILLS(bits, type, width)                                                                   \
    CUresult cuMemsetD##bits##_v2(CUdeviceptr d, type v, size_t n)                                 \
    {                                                                                              \
        return fill(d, 0, v, width, n, 1, 1, NULL, 0, "cuMemsetD" #bits);                          \
    }                                                                                              \
    CUresult cuMemsetD##bits##_v2_ptds(CUdeviceptr d, type v, size_t n)                            \
    {                                                                                              \
        return fill(d, 0, v, width, n, 1, 1, NULL, 1, "cuMemsetD" #bits);                          \
    }                                                                                              \
    CUresult cuMemsetD##bits##Async(CUdeviceptr d, type v, size_t n, CUstream s)                   \
    {                                                                                              \
        return fill(d, 0, v, width, n, 1, 0, s, 0, "cuMemsetD" #bits "Async");                     \
    }                                                                                              \
    CUresult cuMemsetD##bits##Async_ptsz(CUdeviceptr d, type v, size_t n, CUstream s)              \
    {                                                                                              \
        return fill(d, 0, v, width, n, 1, 0, s, 1, "cuMemsetD" #bits "Async");                     \
    }                                                                                              \
    CUresult cuMemsetD2D##bits##_v2(CUdeviceptr d, size_t pitch, type v, size_t w, size_t h)       \
    {                                                                                              \
        return fill(d, pitch, v, width, w, h, 1, NULL, 0, "cuMemsetD2D" #bits);                    \
    }                                                                                              \
    CUresult cuMemsetD2D##bits##_v2_ptds(CUdeviceptr d, size_t pitch, type v, size_t w, size_t h)  \
    {                                                                                              \
        return fill(d, pitch, v, width, w, h, 1, NULL, 1, "cuMemsetD2D" #bits);                    \
    }                                                                                              \
    CUresult cuMemsetD2D##bits##Async(CUdeviceptr d, size_t pitch, type v, size_t w, size_t h,     \
                                      CUstream s)                                                  \
    {                                                                                              \
        return fill(d, pitch, v, width, w, h, 0, s, 0, "cuMemsetD2D" #bits "Async");               \
    }                                                                                              \
    CUresult cuMemsetD2D##bits##Async_ptsz(CUdeviceptr d, size_t pitch, type v, size_t w,          \
                                           size_t h, CUstream s)                                   \
    {                                                                                              \
        return fill(d, pitch, v, width, w, h, 0, s, 1, "cuMemsetD2D" #bits "Async");               \
    }

FILLS(8, unsigned char, 1)
FILLS(16, unsigned short, 2)
FILLS(32, unsigned int, 4)

/* --- streams and events --------------------------------------------------------------------- */

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    DRV_FORWARD("cuStreamCreate", cudaStreamCreateWithFlags((cudaStream_t *)phStream, Flags));
}

CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    DRV_FORWARD("cuStreamCreateWithPriority",
                cudaStreamCreateWithPriority((cudaStream_t *)phStream, flags, priority));
}

CUresult cuStreamDestroy_v2(CUstream hStream)
{
    DRV_FORWARD("cuStreamDestroy", cudaStreamDestroy((cudaStream_t)hStream));
}

CUresult cuStreamSynchronize(CUstream hStream)
{
    DRV_FORWARD("cuStreamSynchronize", cudaStreamSynchronize((cudaStream_t)hStream));
}

CUresult cuStreamSynchronize_ptsz(CUstream hStream)
{
    DRV_FORWARD("cuStreamSynchronize", cudaStreamSynchronize(drv_stream(hStream, 1)));
}

/* A stream's device, flags, priority and number, per thread where the name says so. */
#define STREAM_QUERIES(suffix, per_thread)                                                         \
    CUresult cuStreamGetDevice##suffix(CUstream hStream, CUdevice *device)                         \
    {                                                                                              \
        DRV_FORWARD("cuStreamGetDevice",                                                           \
                    cudaStreamGetDevice(drv_stream(hStream, per_thread), (int *)device));          \
    }                                                                                              \
    CUresult cuStreamGetFlags##suffix(CUstream hStream, unsigned int *flags)                       \
    {                                                                                              \
        DRV_FORWARD("cuStreamGetFlags",                                                            \
                    cudaStreamGetFlags(drv_stream(hStream, per_thread), flags));                   \
    }                                                                                              \
    CUresult cuStreamGetPriority##suffix(CUstream hStream, int *priority)                          \
    {                                                                                              \
        DRV_FORWARD("cuStreamGetPriority",                                                         \
                    cudaStreamGetPriority(drv_stream(hStream, per_thread), priority));             \
    }                                                                                              \
    CUresult cuStreamGetId##suffix(CUstream hStream, unsigned long long *streamId)                 \
    {                                                                                              \
        DRV_FORWARD("cuStreamGetId", cudaStreamGetId(drv_stream(hStream, per_thread), streamId));  \
    }

STREAM_QUERIES(, 0)
STREAM_QUERIES(_ptsz, 1)

CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    DRV_FORWARD("cuEventRecordWithFlags",
                cudaEventRecordWithFlags((cudaEvent_t)hEvent, (cudaStream_t)hStream, flags));
}

CUresult cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    DRV_FORWARD("cuEventRecordWithFlags",
                cudaEventRecordWithFlags((cudaEvent_t)hEvent, drv_stream(hStream, 1), flags));
}

CUresult cuStreamQuery(CUstream hStream)
{
    DRV_FORWARD("cuStreamQuery", cudaStreamQuery((cudaStream_t)hStream));
}

CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    DRV_FORWARD("cuStreamWaitEvent",
                cudaStreamWaitEvent((cudaStream_t)hStream, (cudaEvent_t)hEvent, Flags));
}

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    DRV_FORWARD("cuEventCreate", cudaEventCreateWithFlags((cudaEvent_t *)phEvent, Flags));
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    DRV_FORWARD("cuEventRecord", cudaEventRecord((cudaEvent_t)hEvent, (cudaStream_t)hStream));
}

CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream)
{
    DRV_FORWARD("cuEventRecord", cudaEventRecord((cudaEvent_t)hEvent, drv_stream(hStream, 1)));
}

CUresult cuEventSynchronize(CUevent hEvent)
{
    DRV_FORWARD("cuEventSynchronize", cudaEventSynchronize((cudaEvent_t)hEvent));
}

CUresult cuEventQuery(CUevent hEvent)
{
    DRV_FORWARD("cuEventQuery", cudaEventQuery((cudaEvent_t)hEvent));
}

/* The host's clock between the two records, as the runtime's events keep it: no GPU time. */
CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    DRV_FORWARD("cuEventElapsedTime",
                cudaEventElapsedTime(pMilliseconds, (cudaEvent_t)hStart, (cudaEvent_t)hEnd));
}

CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}

CUresult cuEventDestroy_v2(CUevent hEvent)
{
    DRV_FORWARD("cuEventDestroy", cudaEventDestroy((cudaEvent_t)hEvent));
}
