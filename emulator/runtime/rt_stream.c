/**
 * @file rt_stream.c
 * @brief The runtime stand-in: streams and events.
 *
 * Streams are queues (rt_queue.c): what is queued on one runs later, in order, when the host
 * needs it. An event record is queued like any operation and completes when it runs; until
 * then cudaEventQuery and cudaStreamQuery answer cudaErrorNotReady (and the work then runs, as
 * a GPU makes progress while the host polls), and cudaEventElapsedTime answers the same.
 * Elapsed times are the host's time between two records' runs, not a GPU's.
 */
#include <cuda_profiler_api.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* The sticky error, if a fault left one; the lock is held. */
static cudaError_t sticky(void)
{
    return rt.sticky;
}

/* Stream @p s's queue with the lock held, or NULL with *err (unlocked again then). */
static struct rt_stream *locked_stream(cudaStream_t s, cudaError_t *err)
{
    rt_lock();
    struct rt_stream *st = rt_stream_of(s);
    *err = st ? sticky() : cudaErrorInvalidResourceHandle;
    if (!st)
        rt_unlock();
    return st;
}

/* cudaSuccess for the default streams (0, legacy, per-thread) and live streams. */
static cudaError_t stream_ok(cudaStream_t s)
{
    cudaError_t err;
    if (locked_stream(s, &err))
        rt_unlock();
    return err;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    if (!pStream)
        return rt_null("cudaStreamCreateWithPriority", "pStream");
    int least = 0, greatest = 0; /* outside the device's range: its nearest end, as CUDA does */
    cudaDeviceGetStreamPriorityRange(&least, &greatest);
    priority = priority < greatest ? greatest : priority > least ? least : priority;
    rt_lock();
    struct rt_stream *s = rt_stream_new(flags, priority);
    cudaError_t err = s ? sticky() : cudaErrorMemoryAllocation;
    rt_unlock();
    *pStream = (cudaStream_t)s;
    return rt_error(err);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    if (!pStream)
        return rt_null("cudaStreamCreateWithFlags", "pStream");
    return cudaStreamCreateWithPriority(pStream, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    if (!pStream)
        return rt_null("cudaStreamCreate", "pStream");
    return cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0);
}

/* @p op applied to stream @p stream's queue with the lock held, given the sticky error: its
 * answer, or the error for a handle that names no stream. cudaErrorNotReady is an answer, not
 * an error: it is never left for cudaGetLastError. */
static cudaError_t on_stream(cudaStream_t stream,
                             cudaError_t (*op)(struct rt_stream *s, cudaError_t err, void *arg),
                             void *arg)
{
    cudaError_t err;
    struct rt_stream *s = locked_stream(stream, &err);
    if (!s)
        return rt_error(err);
    err = op(s, err, arg);
    rt_unlock();
    return err == cudaErrorNotReady ? err : rt_error(err);
}

static cudaError_t destroy(struct rt_stream *s, cudaError_t err, void *arg)
{
    (void)err, (void)arg;
    rt_stream_free(s);
    return sticky();
}

/* Returns at once; its queued work still runs when the device is synchronised, as CUDA
 * promises. */
cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if (!stream || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return rt_error(cudaErrorInvalidResourceHandle);
    return on_stream(stream, destroy, NULL);
}

static cudaError_t synchronize(struct rt_stream *s, cudaError_t err, void *arg)
{
    (void)err, (void)arg;
    if (s->capture)
        return cudaErrorStreamCaptureUnsupported;
    rt_run_stream(s);
    rt_waited_stream(s, "cudaStreamSynchronize");
    return sticky();
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    return on_stream(stream, synchronize, NULL);
}

/* Not ready while work is queued; that work then runs, so that a polling loop ends. */
static cudaError_t query(struct rt_stream *s, cudaError_t err, void *arg)
{
    (void)arg;
    if (err != cudaSuccess)
        return err;
    if (s->done < s->issued) {
        rt_run_stream(s);
        return cudaErrorNotReady;
    }
    rt_waited_stream(s, "cudaStreamQuery"); /* the host knows it is done */
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    return on_stream(stream, query, NULL);
}

/* Queued even when the record has run: the stream record keeps the dependency. */
static cudaError_t wait_event(struct rt_stream *s, cudaError_t err, void *arg)
{
    struct rt_event *e = rt_event_of(arg);
    if (!e)
        return cudaErrorInvalidResourceHandle;
    if (e->capture)
        return rt_capture_wait(s, e);
    if (e->recorded) {
        struct rt_work nop = {.kind = RT_NOP, .what = "cudaStreamWaitEvent"};
        nop.event = s->capture ? NULL : e; /* a wait, in the stream record */
        rt_enqueue(s, &nop, &(struct rt_dep){e->s, e->seq});
    }
    if (e->ipc) /* after this process's own record, what another process recorded */
        rt_ipc_wait(s, e);
    return err;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    (void)flags;
    return on_stream(stream, wait_event, event);
}

/* The stream @p s names, or NULL for a default stream. */
static const struct rt_stream *user_stream(cudaStream_t s)
{
    return s && s != cudaStreamLegacy && s != cudaStreamPerThread ? (const struct rt_stream *)s
                                                                  : NULL;
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    cudaError_t err = stream_ok(hStream);
    *flags = err == cudaSuccess && user_stream(hStream) ? user_stream(hStream)->flags : 0;
    return rt_error(err);
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    if (!priority)
        return rt_null("cudaStreamGetPriority", "priority");
    cudaError_t err = stream_ok(hStream);
    *priority = err == cudaSuccess && user_stream(hStream) ? user_stream(hStream)->priority : 0;
    return rt_error(err);
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

/* No stream keeps attributes (above): both must be streams, and there is nothing to copy. */
cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src)
{
    cudaError_t err = stream_ok(dst);
    return rt_error(err == cudaSuccess ? stream_ok(src) : err);
}

/* Managed memory is reachable from every stream and the host at once. */
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                     unsigned int flags)
{
    (void)devPtr, (void)length, (void)flags;
    return rt_error(stream_ok(stream));
}

/* Queue @p w on @p stream. */
static cudaError_t queue(cudaStream_t stream, const struct rt_work *w)
{
    cudaError_t err;
    struct rt_stream *s = locked_stream(stream, &err);
    if (!s)
        return rt_error(err);
    if (err == cudaSuccess)
        rt_enqueue(s, w, NULL);
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    if (!fn)
        return rt_null("cudaLaunchHostFunc", "fn");
    struct rt_work w = {.kind = RT_HOST_FN, .what = "cudaLaunchHostFunc"};
    w.u.host.fn = fn;
    w.u.host.data = userData;
    return queue(stream, &w);
}

/* The callback runs when the stream reaches it, told the stream's error if any. */
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags)
{
    if (!callback)
        return rt_null("cudaStreamAddCallback", "callback");
    if (flags)
        return rt_error(cudaErrorInvalidValue);
    struct rt_work w = {.kind = RT_CALLBACK, .what = "cudaStreamAddCallback"};
    w.u.callback.fn = callback;
    w.u.callback.data = userData;
    w.u.callback.stream = stream;
    return queue(stream, &w);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    if (!event)
        return rt_null("cudaEventCreateWithFlags", "event");
    struct rt_event *e = rt_event_new(flags);
    if (!e)
        return rt_error(cudaErrorMemoryAllocation);
    *event = (cudaEvent_t)e;
    rt_lock();
    cudaError_t err = sticky();
    if (err == cudaSuccess && (flags & cudaEventInterprocess) &&
        (err = rt_ipc_event_new(e)) != cudaSuccess) {
        free(e);
        *event = NULL;
    }
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    if (!event)
        return rt_null("cudaEventCreate", "event");
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

/* An event with a record still queued is freed when that record runs, as CUDA promises. */
cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    rt_lock();
    struct rt_event *e = rt_event_of(event);
    cudaError_t err = e ? sticky() : cudaErrorInvalidResourceHandle;
    if (e) {
        e->magic = 0;
        free(e->after);
        rt_ipc_event_drop(e);
        if (!e->pending)
            free(e);
    }
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    cudaError_t err;
    struct rt_stream *s = locked_stream(stream, &err);
    if (!s)
        return rt_error(err);
    struct rt_event *e = rt_event_of(event);
    if (!e) {
        err = cudaErrorInvalidResourceHandle;
    } else if (s->capture) {
        err = rt_capture_record(s, e);
    } else {
        struct rt_work w = {.kind = RT_RECORD, .what = "cudaEventRecord", .event = e};
        if (e->ipc) /* its ticket first: running to the record below marks it done too */
            rt_ipc_record(s, e);
        rt_event_will_record(e, s);
        rt_enqueue(s, &w, NULL);
    }
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    (void)flags;
    return cudaEventRecord(event, stream);
}

/* The event's error (never recorded is complete), after running its record when @p run. */
static cudaError_t event_state(cudaEvent_t event, int run)
{
    rt_lock();
    struct rt_event *e = rt_event_of(event);
    cudaError_t err = e ? sticky() : cudaErrorInvalidResourceHandle;
    if (err == cudaSuccess && e->recorded && !e->complete) {
        rt_run_to(e->s, e->seq);
        err = run ? sticky() : cudaErrorNotReady;
    }
    if (err == cudaSuccess && e->ipc && !rt_ipc_done(e, run)) /* another process's record */
        err = cudaErrorNotReady;
    if (err == cudaSuccess && e->recorded) /* the host knows the record has run */
        rt_record_sync(&(struct rt_dep){e->s, e->seq}, 1,
                       run ? "cudaEventSynchronize" : "cudaEventQuery");
    rt_unlock();
    return err;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    return rt_error(event_state(event, 1));
}

/* Not ready while its record is queued; the record then runs, so that a polling loop ends. */
cudaError_t cudaEventQuery(cudaEvent_t event)
{
    cudaError_t err = event_state(event, 0);
    return err == cudaErrorNotReady ? err : rt_error(err);
}

/* cudaErrorNotReady while either record is queued (a missing cudaEventSynchronize). */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms)
        return rt_null("cudaEventElapsedTime", "ms");
    rt_lock();
    const struct rt_event *a = rt_event_of(start), *b = rt_event_of(end);
    cudaError_t err = sticky();
    if (!a || !b || !a->recorded || !b->recorded || (a->flags | b->flags) & cudaEventDisableTiming)
        err = cudaErrorInvalidResourceHandle;
    else if (err == cudaSuccess && (!a->complete || !b->complete))
        err = cudaErrorNotReady;
    else if (err == cudaSuccess)
        *ms = (float)(b->ms - a->ms);
    rt_unlock();
    return err == cudaErrorNotReady ? err : rt_error(err);
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

/* --- per-thread default streams: stream 0 in these (code built with --default-stream
 * per-thread) is the calling thread's own stream --------------------------------------------- */

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    return cudaStreamSynchronize(rt_ptsz(stream));
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    return cudaStreamQuery(rt_ptsz(stream));
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    return cudaStreamWaitEvent(rt_ptsz(stream), event, flags);
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecord(event, rt_ptsz(stream));
}

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
                                          unsigned int flags)
{
    return cudaEventRecordWithFlags(event, rt_ptsz(stream), flags);
}

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    return cudaLaunchHostFunc(rt_ptsz(stream), fn, userData);
}

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                       void *userData, unsigned int flags)
{
    return cudaStreamAddCallback(rt_ptsz(stream), callback, userData, flags);
}

cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags)
{
    return cudaStreamGetFlags(rt_ptsz(hStream), flags);
}

cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority)
{
    return cudaStreamGetPriority(rt_ptsz(hStream), priority);
}

cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device)
{
    return cudaStreamGetDevice(rt_ptsz(hStream), device);
}

cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId)
{
    return cudaStreamGetId(rt_ptsz(hStream), streamId);
}

cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr,
                                        const cudaStreamAttrValue *value)
{
    return cudaStreamSetAttribute(rt_ptsz(hStream), attr, value);
}

cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr,
                                        cudaStreamAttrValue *value_out)
{
    return cudaStreamGetAttribute(rt_ptsz(hStream), attr, value_out);
}

cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src)
{
    return cudaStreamCopyAttributes(rt_ptsz(dst), rt_ptsz(src));
}

cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
                                          unsigned int flags)
{
    return cudaStreamAttachMemAsync(rt_ptsz(stream), devPtr, length, flags);
}
