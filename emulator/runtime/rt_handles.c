/**
 * @file rt_handles.c
 * @brief The runtime stand-in: the stream and event handles a program holds.
 *
 * Streams: the legacy default stream (handle 0 or cudaStreamLegacy), each host thread's
 * per-thread default stream (made on first use), and the streams a program creates; a
 * destroyed stream is recycled. Every stream stays listed while it holds queued work
 * (rt_queue.c runs it). Events: a handle is live from its creation to cudaEventDestroy.
 */
#include <stdlib.h>

#include "rt.h"

enum { EVENT_MAGIC = 0x45564e54 };
enum { STREAM_MAGIC = 0x5354524d };

/* The legacy default stream (handle 0 or cudaStreamLegacy): blocking, never destroyed. */
static struct rt_stream legacy = {.magic = STREAM_MAGIC};
/* Every stream, newest first (the legacy one last); destroyed streams, for reuse. */
static struct rt_stream *streams = &legacy, *spare;
/* This thread's per-thread default stream, made on first use. */
static _Thread_local struct rt_stream *per_thread;

_Thread_local int rt_per_thread;

cudaStream_t rt_default_stream(void)
{
    return rt_per_thread ? cudaStreamPerThread : cudaStreamLegacy;
}

struct rt_stream *rt_stream_new(unsigned flags, int priority)
{
    struct rt_stream *s = spare;
    if (s) {
        spare = s->next;
    } else {
        s = emu_calloc(1, sizeof *s);
    }
    /* A reused stream keeps its counters: a dependency on its earlier work stays met. */
    s->magic = STREAM_MAGIC;
    s->flags = flags;
    s->priority = priority;
    s->device = rt_self()->device;
    s->next = streams;
    streams = s;
    return s;
}

void rt_stream_free(struct rt_stream *s)
{
    s->magic = 0;
    free(s->after);
    s->after = NULL;
    s->nafter = s->capafter = 0;
    s->capture = NULL;
    if (s->done < s->issued)
        return; /* its work still runs, when the device is synchronised: it stays listed */
    for (struct rt_stream **at = &streams; *at; at = &(*at)->next)
        if (*at == s) {
            *at = s->next;
            break;
        }
    s->next = spare;
    spare = s;
}

struct rt_stream *rt_stream_of(cudaStream_t s)
{
    if (s == cudaStreamPerThread || (s == 0 && rt_per_thread)) {
        if (!per_thread)
            per_thread = rt_stream_new(cudaStreamDefault, 0);
        return per_thread;
    }
    if (s == 0 || s == cudaStreamLegacy)
        return &legacy;
    struct rt_stream *st = (struct rt_stream *)s;
    return st->magic == STREAM_MAGIC && st != &legacy ? st : NULL;
}

struct rt_stream *rt_streams(void)
{
    return streams;
}

struct rt_stream *rt_legacy(void)
{
    return &legacy;
}

struct rt_event *rt_event_new(unsigned flags)
{
    struct rt_event *e = emu_calloc(1, sizeof *e);
    e->magic = EVENT_MAGIC;
    e->flags = flags;
    return e;
}

struct rt_event *rt_event_of(cudaEvent_t e)
{
    struct rt_event *ev = (struct rt_event *)e;
    return ev && ev->magic == EVENT_MAGIC ? ev : NULL;
}

void rt_event_will_record(struct rt_event *e, struct rt_stream *s)
{
    e->recorded = 1;
    e->complete = 0;
    e->capture = NULL;
    e->pending++;
    e->s = s;
    e->seq = s->issued + 1;
}
