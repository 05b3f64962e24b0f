/**
 * @file rt_stream.c
 * @brief The runtime stand-in: streams and events.
 *
 * Every operation completes before its call returns, so streams are ordered
 * and synchronous: a stream is a handle, waiting on an event succeeds at
 * once, and an event records the host's monotonic clock when it is recorded.
 * Elapsed times are the host's time between two records, not a GPU's.
 */
#include <cuda_profiler_api.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

enum { STREAM_MAGIC = 0x5354524d, EVENT_MAGIC = 0x45564e54 };

/** A stream: the handle cudaStreamCreate returns. */
struct rt_stream {
    uint32_t magic;
    unsigned flags;
    int priority;
    int device;
};

/** An event. */
struct rt_event {
    uint32_t magic;
    unsigned flags;
    int recorded;
    double ms; /**< host time of the last record */
};

/* The sticky error, if a fault left one. */
static cudaError_t sticky(void)
{
    rt_lock();
    cudaError_t err = rt.sticky;
    rt_unlock();
    return err;
}

/* cudaSuccess for the default streams (0, legacy, per-thread) and live streams. */
static cudaError_t stream_ok(cudaStream_t s)
{
    const struct rt_stream *st = (const struct rt_stream *)s;
    if (s == 0 || s == cudaStreamLegacy || s == cudaStreamPerThread || st->magic == STREAM_MAGIC)
        return sticky();
    return cudaErrorInvalidResourceHandle;
}

static struct rt_event *event_of(cudaEvent_t e)
{
    struct rt_event *ev = (struct rt_event *)e;
    return ev && ev->magic == EVENT_MAGIC ? ev : NULL;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    struct rt_stream *s = malloc(sizeof *s);
    if (!s)
        return rt_error(cudaErrorMemoryAllocation);
    *s = (struct rt_stream){STREAM_MAGIC, flags, priority, rt_self()->device};
    *pStream = (cudaStream_t)s;
    return rt_error(sticky());
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(pStream, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    return cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    struct rt_stream *s = (struct rt_stream *)stream;
    if (!s || s->magic != STREAM_MAGIC)
        return rt_error(cudaErrorInvalidResourceHandle);
    s->magic = 0;
    free(s);
    return rt_error(sticky());
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    return rt_error(stream_ok(stream));
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    return rt_error(stream_ok(stream));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    (void)flags;
    cudaError_t err = stream_ok(stream);
    if (err == cudaSuccess && !event_of(event))
        err = cudaErrorInvalidResourceHandle;
    return rt_error(err);
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    cudaError_t err = stream_ok(hStream);
    *flags = err == cudaSuccess && hStream && hStream != cudaStreamLegacy &&
                     hStream != cudaStreamPerThread
                 ? ((struct rt_stream *)hStream)->flags
                 : 0;
    return rt_error(err);
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    cudaError_t err = stream_ok(hStream);
    *priority = err == cudaSuccess && hStream && hStream != cudaStreamLegacy &&
                        hStream != cudaStreamPerThread
                    ? ((struct rt_stream *)hStream)->priority
                    : 0;
    return rt_error(err);
}

/* The stream @p s names, or NULL for a default stream. */
static const struct rt_stream *user_stream(cudaStream_t s)
{
    return s && s != cudaStreamLegacy && s != cudaStreamPerThread ? (const struct rt_stream *)s
                                                                  : NULL;
}

cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device)
{
    cudaError_t err = stream_ok(hStream);
    *device = user_stream(hStream) ? user_stream(hStream)->device : rt_self()->device;
    return rt_error(err);
}

/* A stream's id: its address, and 0 for the default streams. */
cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
    cudaError_t err = stream_ok(hStream);
    *streamId = (unsigned long long)(uintptr_t)user_stream(hStream);
    return rt_error(err);
}

/* No stream is ever captured: graphs are not emulated (cudaStreamBeginCapture says so). */
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
    cudaError_t err = stream_ok(stream);
    *pCaptureStatus = cudaStreamCaptureStatusNone;
    return rt_error(err);
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    (void)mode; /* the mode matters only while a stream captures */
    return cudaSuccess;
}

/* Stream attributes (access policy windows, synchronisation policy, priority) change nothing
 * here: caches and scheduling are not modelled. A read answers zeros. */
cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                   const cudaStreamAttrValue *value)
{
    (void)attr, (void)value;
    return rt_error(stream_ok(hStream));
}

cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                   cudaStreamAttrValue *value_out)
{
    (void)attr;
    memset(value_out, 0, sizeof *value_out);
    return rt_error(stream_ok(hStream));
}

/* Managed memory is reachable from every stream and the host at once. */
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                     unsigned int flags)
{
    (void)devPtr, (void)length, (void)flags;
    return rt_error(stream_ok(stream));
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    cudaError_t err = stream_ok(stream);
    if (err == cudaSuccess)
        fn(userData);
    return rt_error(err);
}

/* The callback runs at once (the work before it is done), told the stream's error if any. */
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags)
{
    cudaError_t err = flags ? cudaErrorInvalidValue : stream_ok(stream);
    if (err == cudaErrorInvalidValue || err == cudaErrorInvalidResourceHandle)
        return rt_error(err);
    callback(stream, err, userData);
    return rt_error(err);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    struct rt_event *e = malloc(sizeof *e);
    if (!e)
        return rt_error(cudaErrorMemoryAllocation);
    *e = (struct rt_event){EVENT_MAGIC, flags, 0, 0.0};
    *event = (cudaEvent_t)e;
    return rt_error(sticky());
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    struct rt_event *e = event_of(event);
    if (!e)
        return rt_error(cudaErrorInvalidResourceHandle);
    e->magic = 0;
    free(e);
    return rt_error(sticky());
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    struct rt_event *e = event_of(event);
    cudaError_t err = e ? stream_ok(stream) : cudaErrorInvalidResourceHandle;
    if (err == cudaSuccess) {
        e->recorded = 1;
        e->ms = rt_now_ms();
    }
    return rt_error(err);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    (void)flags;
    return cudaEventRecord(event, stream);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    return rt_error(event_of(event) ? sticky() : cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    return rt_error(event_of(event) ? sticky() : cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    const struct rt_event *a = event_of(start), *b = event_of(end);
    if (!a || !b || !a->recorded || !b->recorded || (a->flags | b->flags) & cudaEventDisableTiming)
        return rt_error(cudaErrorInvalidResourceHandle);
    *ms = (float)(b->ms - a->ms);
    return rt_error(sticky());
}

/* Profiler ranges: nothing to start or stop (issue 8's counters come through emu.h). */
cudaError_t cudaProfilerStart(void)
{
    return cudaSuccess;
}

cudaError_t cudaProfilerStop(void)
{
    return cudaSuccess;
}
