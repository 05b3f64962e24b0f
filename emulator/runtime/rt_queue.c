/**
 * @file rt_queue.c
 * @brief The runtime stand-in: every stream's queued work, and when it runs.
 *
 * Launches, asynchronous copies and fills, event records and host functions queue on their
 * stream and return at once, as on a GPU. The work runs as late as CUDA's rules allow: only
 * when the host needs it (a synchronising call: cudaDeviceSynchronize, stream and event
 * synchronisation, a copy to or from pageable memory, a free) or when work the host needs
 * waits for it. So a program that reads a result without the synchronisation CUDA requires
 * reads what was there before, as it may on a GPU.
 *
 * Stream order: the operations of one stream run in the order they were queued. Across
 * streams, only dependencies order them: an event wait (cudaStreamWaitEvent) makes the next
 * operation of the waiting stream wait for the event's record, and the legacy default stream
 * is a barrier: its operations wait for everything queued before them on every blocking
 * stream (not cudaStreamNonBlocking ones), and an operation on a blocking stream waits for
 * the legacy stream's work queued before it. Per-thread default streams (code built with
 * --default-stream per-thread) are blocking streams of their own, one per host thread.
 * Everything runs on the host thread that asked for it, under the runtime lock, but for host
 * functions no thread asks for (the progress thread below). A stream holds at most MAX_QUEUED
 * operations; past that, its oldest runs as the next is queued.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

/* Operations one stream holds queued at most: past it, the oldest runs (a GPU's queue is
 * bounded too, and a program that never synchronises must not grow without end). */
enum { MAX_QUEUED = 4096 };

/* How long queued host functions wait, at most, for a host thread to run them (below). */
enum { PROGRESS_MS = 100 };

/* 1: @p s takes part in the legacy stream's barrier. */
static int blocking(const struct rt_stream *s)
{
    return !(s->flags & cudaStreamNonBlocking);
}

/* Append "after everything @p s has queued" to @p deps, when something is pending there. */
static void add_tail(struct rt_dep *deps, int *n, struct rt_stream *s)
{
    if (s->issued > s->done)
        deps[(*n)++] = (struct rt_dep){s, s->issued};
}

/* The dependencies a new operation on @p s has beyond its stream: @p extra, and the legacy
 * stream's barrier. Returns how many, into a new array in *out. */
static int deps_for(struct rt_stream *s, const struct rt_dep *extra, struct rt_dep **out)
{
    int room = 2, n = 0;
    for (const struct rt_stream *t = rt_streams(); t; t = t->next)
        room++;
    struct rt_dep *deps = emu_malloc((size_t)room * sizeof *deps);
    if (extra && extra->s != s)
        deps[n++] = *extra;
    if (s == rt_legacy()) {
        for (struct rt_stream *t = rt_streams(); t; t = t->next)
            if (t != s && blocking(t))
                add_tail(deps, &n, t);
    } else if (blocking(s)) {
        add_tail(deps, &n, rt_legacy());
    }
    *out = deps;
    return n;
}

static int is_host_fn(const struct rt_work *w)
{
    return w->kind == RT_HOST_FN || w->kind == RT_CALLBACK;
}

/*
 * Host functions run even when no host thread synchronises: a program may wait on a condition
 * of its own that a callback signals (cuda-samples' simpleCallback waits at a barrier its
 * callbacks' threads reach), and a GPU runs them on a driver thread once the work before them
 * is done. This thread does the same, late: every PROGRESS_MS it runs each stream up to its
 * last queued host function (and what that waits for), under the runtime lock.
 */
static void *progress(void *unused)
{
    (void)unused;
    const struct timespec tick = {0, PROGRESS_MS * 1000000L};
    for (;;) {
        nanosleep(&tick, NULL);
        rt_lock();
        for (struct rt_stream *t = rt_streams(); t; t = t->next) {
            uint64_t seq = t->done, last = 0;
            for (struct rt_op *op = t->head; op; op = op->next)
                last = is_host_fn(&op->w) ? seq + 1 : last, seq++;
            if (last)
                rt_run_to(t, last);
        }
        rt_unlock();
    }
    return NULL;
}

/* Start the progress thread once, when the first host function is queued. The lock is held. */
static void start_progress(void)
{
    static int started;
    pthread_t t;
    if (started || pthread_create(&t, NULL, progress, NULL))
        return;
    pthread_detach(t);
    started = 1;
}

/* At exit, the work still queued runs (its printf output appears), as a GPU finishes it. */
static void run_at_exit(void)
{
    if (getpid() != rt.pid)
        return; /* a forked child: the queues are its parent's */
    rt_lock();
    rt_run_all();
    rt_unlock();
}

cudaError_t (*rt_capture_hook)(struct rt_stream *s, const struct rt_work *w);

uint64_t rt_enqueue(struct rt_stream *s, const struct rt_work *w, const struct rt_dep *dep)
{
    static int exit_hooked;
    if (s->capture) {
        rt_capture_hook(s, w);
        return 0;
    }
    if (!exit_hooked)
        exit_hooked = atexit(run_at_exit) == 0;
    struct rt_op *op = emu_malloc(sizeof *op);
    int n = deps_for(s, dep, &op->deps);
    if (w->queued)
        w->queued(w, s);
    if (is_host_fn(w))
        start_progress();
    op->w = *w;
    op->ndeps = n;
    op->next = NULL;
    if (s->tail)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    if (s->issued - s->done >= MAX_QUEUED) /* a full queue: the oldest operation runs */
        rt_run_to(s, s->done + 1);
    return ++s->issued;
}

void rt_run_to(struct rt_stream *s, uint64_t seq)
{
    while (s->done < seq && s->head) {
        struct rt_op *op = s->head;
        /* Everything an operation waits for was queued before it: no cycle. */
        for (int i = 0; i < op->ndeps; i++)
            rt_run_to(op->deps[i].s, op->deps[i].seq);
        s->head = op->next;
        if (!s->head)
            s->tail = NULL;
        s->done++; /* counted first: a host function that synchronises sees itself done */
        rt_execute(&op->w, s, s->done);
        free(op->deps);
        free(op);
    }
}

void rt_run_stream(struct rt_stream *s)
{
    if (s == rt_legacy()) /* syncing the legacy stream waits for the blocking streams too */
        for (struct rt_stream *t = rt_streams(); t; t = t->next)
            if (blocking(t))
                rt_run_to(t, t->issued);
    rt_run_to(s, s->issued);
}

void rt_run_all(void)
{
    for (struct rt_stream *t = rt_streams(); t; t = t->next)
        rt_run_to(t, t->issued);
}

void rt_work_free(struct rt_work *w)
{
    if (w->kind == RT_KERNEL) {
        free(w->u.kernel.params);
        w->u.kernel.params = NULL;
    }
}

void rt_work_clone(struct rt_work *out, const struct rt_work *w)
{
    *out = *w;
    if (w->kind != RT_KERNEL)
        return;
    out->u.kernel.params = emu_malloc(w->u.kernel.bytes + 1);
    memcpy(out->u.kernel.params, w->u.kernel.params, w->u.kernel.bytes);
}

/* Record @p e's completion, if this is its latest record; free it after its last. */
static void run_record(struct rt_event *e, struct rt_stream *s, uint64_t seq)
{
    if (e->s == s && e->seq == seq) {
        e->complete = 1;
        e->ms = rt_now_ms();
    }
    if (--e->pending == 0 && e->magic == 0)
        free(e);
}

/* Launches, copies and fills run themselves (w->run, from rt_launch.c and rt_memory.c), and
 * after a fault do nothing, as a GPU's broken context drops them; records and host functions
 * still complete. */
void rt_execute(const struct rt_work *w, struct rt_stream *s, uint64_t seq)
{
    if (w->run) {
        w->run(w, s, seq);
        return;
    }
    switch (w->kind) {
    case RT_NOP:
    case RT_KERNEL:
    case RT_COPY:
    case RT_FILL:
        break;
    case RT_RECORD:
        run_record(w->event, s, seq);
        break;
    case RT_HOST_FN:
        w->u.host.fn(w->u.host.data);
        break;
    case RT_CALLBACK:
        w->u.callback.fn(w->u.callback.stream, rt.sticky, w->u.callback.data);
        break;
    }
}
