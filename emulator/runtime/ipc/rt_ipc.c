/**
 * @file rt_ipc.c
 * @brief The runtime stand-in: CUDA IPC, device memory and events shared between processes.
 *
 * Each process has its own device memory (a memfd, mem.h) and its own device server. A memory
 * handle names the exporter's process, its memfd's descriptor number and the allocation's
 * offset and size; the importer opens /proc/PID/fd/N (allowed to the same user), allocates a
 * range of its own address space and maps the exporter's pages over it, in its own alias and,
 * through a MAP message carrying the descriptor, in its server's. So copies, launches and the
 * checks see an ordinary allocation whose bytes are the exporter's. cudaIpcCloseMemHandle puts
 * the importer's own memory back and frees the range.
 *
 * An interprocess event's state is a small memfd both processes map: tickets taken and the
 * highest done. A record takes a ticket at once and queues a host function that marks it done
 * when its stream reaches it; a wait reads the latest ticket at once and queues a host function
 * that waits, when its stream reaches it, until that ticket is done. Both run on the host
 * thread that synchronises or on the progress thread (rt_queue.c), so a process that records
 * while its host thread waits on a CPU barrier still makes progress, as a GPU would.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

enum { MEM_HANDLE_MAGIC = 0x4d435049, EVENT_HANDLE_MAGIC = 0x45435049 };

/* How long a waiting stream sleeps between looks at another process's ticket. */
enum { POLL_NS = 200000 };

/* What cudaIpcMemHandle_t carries here (it has 64 bytes of room). */
struct mem_handle {
    uint32_t magic;
    int32_t pid, fd;       /* the exporter and its device memfd's number */
    int32_t device;        /* the GPU it belongs to */
    uint64_t offset, size; /* the allocation in that memfd */
};

/* What cudaIpcEventHandle_t carries. */
struct event_handle {
    uint32_t magic;
    int32_t pid, fd; /* the exporter and the number of the event's memfd */
};

/* The state processes share: tickets taken, and the highest done. */
struct ipc_counts {
    _Atomic uint64_t taken, done;
};

struct rt_ipc_event {
    struct ipc_counts *c;
    int fd;   /* the memfd, kept by the creator for its handles; -1 in an importer */
    int refs; /* the event, and each queued record or wait */
};

/* One opened memory handle. */
struct import {
    struct mem_handle h;
    uint64_t addr; /* where it is mapped here: a block of this process's table */
    int refs;      /* opens not yet closed */
    struct import *next;
};

static struct import *imports;

_Static_assert(sizeof(struct mem_handle) <= sizeof(cudaIpcMemHandle_t), "handle too big");
_Static_assert(sizeof(struct event_handle) <= sizeof(cudaIpcEventHandle_t), "handle too big");

/* Open descriptor @p fd of process @p pid, or -1 after saying why (as @p who). */
static int open_remote(int pid, int fd, const char *who)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    int got = open(path, O_RDWR | O_CLOEXEC);
    if (got < 0)
        emu_say("%s: cannot open the memory of process %d that the handle names (%s): the "
                "process has gone, or the handle is not one cudaIpcGet*Handle made",
                who, pid, strerror(errno));
    return got;
}

/* Map the shared counts of memfd @p fd into @p ev. */
static cudaError_t map_counts(struct rt_ipc_event *ev, int fd)
{
    ev->c = mmap(NULL, sizeof *ev->c, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ev->c == MAP_FAILED) {
        ev->c = NULL;
        return cudaErrorMapBufferObjectFailed;
    }
    ev->refs = 1;
    return cudaSuccess;
}

static void release(struct rt_ipc_event *ev)
{
    if (--ev->refs)
        return;
    munmap(ev->c, sizeof *ev->c);
    if (ev->fd >= 0)
        close(ev->fd);
    free(ev);
}

cudaError_t rt_ipc_event_new(struct rt_event *e)
{
    if (!(e->flags & cudaEventDisableTiming)) {
        emu_say("cudaEventCreateWithFlags: cudaEventInterprocess needs cudaEventDisableTiming too");
        return cudaErrorInvalidValue;
    }
    struct rt_ipc_event *ev = emu_calloc(1, sizeof *ev);
    ev->fd = memfd_create("course-emu-ipc-event", MFD_CLOEXEC);
    if (ev->fd < 0 || ftruncate(ev->fd, sizeof *ev->c) || map_counts(ev, ev->fd)) {
        emu_say("cudaEventCreateWithFlags: cannot make an interprocess event (%s)",
                strerror(errno));
        if (ev->fd >= 0)
            close(ev->fd);
        free(ev);
        return cudaErrorMemoryAllocation;
    }
    e->ipc = ev;
    return cudaSuccess;
}

void rt_ipc_event_drop(struct rt_event *e)
{
    if (e->ipc)
        release(e->ipc);
    e->ipc = NULL;
}

/* A queued record's or wait's ticket. */
struct ticket {
    struct rt_ipc_event *ev;
    uint64_t n;
};

/* Queue host function @p fn on @p s with ticket @p n of @p ev. */
static void queue_ticket(struct rt_stream *s, struct rt_ipc_event *ev, uint64_t n,
                         void (*fn)(void *), const char *what)
{
    struct ticket *t = emu_malloc(sizeof *t);
    *t = (struct ticket){ev, n};
    ev->refs++;
    struct rt_work w = {.kind = RT_HOST_FN, .what = what};
    w.u.host.fn = fn;
    w.u.host.data = t;
    rt_enqueue(s, &w, NULL);
}

/* The stream reached a record: its ticket is done (the highest done is kept). */
static void record_done(void *data)
{
    struct ticket *t = data;
    uint64_t done = atomic_load(&t->ev->c->done);
    while (done < t->n && !atomic_compare_exchange_weak(&t->ev->c->done, &done, t->n))
        ;
    release(t->ev);
    free(t);
}

/* Sleep until ticket @p n of @p c is done, in whichever process took it. */
static void wait_for(struct ipc_counts *c, uint64_t n)
{
    const struct timespec nap = {0, POLL_NS};
    while (atomic_load(&c->done) < n)
        nanosleep(&nap, NULL);
}

/* The stream reached a wait. */
static void wait_done(void *data)
{
    struct ticket *t = data;
    wait_for(t->ev->c, t->n);
    release(t->ev);
    free(t);
}

int rt_ipc_done(struct rt_event *e, int wait)
{
    uint64_t n = atomic_load(&e->ipc->c->taken);
    if (wait)
        wait_for(e->ipc->c, n);
    return atomic_load(&e->ipc->c->done) >= n;
}

void rt_ipc_record(struct rt_stream *s, struct rt_event *e)
{
    uint64_t n = atomic_fetch_add(&e->ipc->c->taken, 1) + 1;
    queue_ticket(s, e->ipc, n, record_done, "cudaEventRecord");
}

void rt_ipc_wait(struct rt_stream *s, struct rt_event *e)
{
    uint64_t n = atomic_load(&e->ipc->c->taken);
    if (atomic_load(&e->ipc->c->done) < n)
        queue_ticket(s, e->ipc, n, wait_done, "cudaStreamWaitEvent");
}

cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event)
{
    rt_lock();
    const struct rt_event *e = rt_event_of(event);
    cudaError_t err = cudaSuccess;
    if (!handle) {
        err = cudaErrorInvalidValue;
    } else if (!e || !e->ipc || e->ipc->fd < 0) {
        emu_say("cudaIpcGetEventHandle: the event was not created here with "
                "cudaEventInterprocess | cudaEventDisableTiming");
        err = cudaErrorInvalidResourceHandle;
    } else {
        struct event_handle h = {EVENT_HANDLE_MAGIC, getpid(), e->ipc->fd};
        memset(handle, 0, sizeof *handle);
        memcpy(handle, &h, sizeof h);
    }
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle)
{
    struct event_handle h;
    memcpy(&h, &handle, sizeof h);
    if (!event || h.magic != EVENT_HANDLE_MAGIC) {
        emu_say("cudaIpcOpenEventHandle: not an event handle cudaIpcGetEventHandle made");
        return rt_error(cudaErrorInvalidValue);
    }
    int fd = open_remote(h.pid, h.fd, "cudaIpcOpenEventHandle");
    if (fd < 0)
        return rt_error(cudaErrorInvalidValue);
    struct rt_ipc_event *ev = emu_calloc(1, sizeof *ev);
    cudaError_t err = map_counts(ev, fd);
    close(fd);
    rt_lock();
    err = err == cudaSuccess ? rt.sticky : err;
    struct rt_event *e =
        err == cudaSuccess ? rt_event_new(cudaEventDisableTiming | cudaEventInterprocess) : NULL;
    if (e) {
        ev->fd = -1;
        e->ipc = ev;
        *event = (cudaEvent_t)e;
    } else if (ev) {
        if (ev->c)
            munmap(ev->c, sizeof *ev->c);
        free(ev);
    }
    rt_unlock();
    return e ? cudaSuccess : rt_error(err == cudaSuccess ? cudaErrorMemoryAllocation : err);
}

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
    rt_lock();
    cudaError_t err = rt_device();
    uint64_t a = (uint64_t)(uintptr_t)devPtr;
    const struct mem_block *b = err == cudaSuccess ? mem_find(&rt.mem, a, 1) : NULL;
    if (err == cudaSuccess && rt.remote) {
        emu_say("cudaIpcGetMemHandle: the grader's device shares its memory with no other process");
        err = cudaErrorNotSupported;
    } else if (err == cudaSuccess && (!handle || !b || b->view || b->addr != a)) {
        emu_say("cudaIpcGetMemHandle: %p is not the start of a live cudaMalloc allocation", devPtr);
        err = cudaErrorInvalidValue;
    } else if (err == cudaSuccess) {
        struct mem_handle h = {MEM_HANDLE_MAGIC, getpid(),        rt.mem.fd,
                               b->device,        a - rt.mem.base, b->size};
        memset(handle, 0, sizeof *handle);
        memcpy(handle, &h, sizeof h);
    }
    rt_unlock();
    return rt_error(err);
}

/* The import of handle @p h already open here, or NULL. */
static struct import *import_of(const struct mem_handle *h)
{
    for (struct import *i = imports; i; i = i->next)
        if (i->h.pid == h->pid && i->h.fd == h->fd && i->h.offset == h->offset)
            return i;
    return NULL;
}

/* Put our own memory back at block [addr, addr + size), here and on the server, and free it. */
static void unmap_import(uint64_t addr, uint64_t size)
{
    mem_map(&rt.mem, addr, size, -1, 0);
    rt_server_map(addr, size, -1, 0, 0);
    mem_free(&rt.mem, addr);
    struct proto_block b = {addr, 0, 0, 0, 0};
    rt_post(PROTO_FREE, &b, sizeof b);
}

/* Map handle @p h's memory, whose memfd is @p fd, into a new block of ours: its address, or 0
 * with *err. The lock is held. */
static uint64_t map_import(const struct mem_handle *h, int fd, cudaError_t *err)
{
    uint64_t a = mem_alloc(&rt.mem, h->size, rt_self()->device);
    struct proto_block b = {a, h->size, rt_self()->device, 0, 0};
    if (!a) {
        *err = cudaErrorMemoryAllocation;
        return 0;
    }
    if (rt_post(PROTO_ALLOC, &b, sizeof b)) {
        *err = rt.sticky;
        return 0;
    }
    if (mem_map(&rt.mem, a, h->size, fd, h->offset)) {
        emu_say("cudaIpcOpenMemHandle: cannot map %llu bytes of process %d (%s)",
                (unsigned long long)h->size, h->pid, strerror(errno));
        *err = cudaErrorMapBufferObjectFailed;
    } else {
        *err = rt_server_map(a, h->size, fd, h->offset, 0);
    }
    if (*err != cudaSuccess) {
        unmap_import(a, h->size);
        return 0;
    }
    /* The exporter's bytes are defined for initcheck: whoever wrote them, it was not here. */
    rt_wrote((const void *)(uintptr_t)a, h->size, PROTO_WROTE_HOST, 0);
    return a;
}

/* The checks cudaIpcOpenMemHandle makes before it maps: cudaSuccess or the error. */
static cudaError_t check_mem_handle(void **devPtr, const struct mem_handle *h)
{
    if (!devPtr || h->magic != MEM_HANDLE_MAGIC || !h->size) {
        emu_say("cudaIpcOpenMemHandle: not a memory handle cudaIpcGetMemHandle made");
        return cudaErrorInvalidValue;
    }
    if (h->pid == getpid()) {
        emu_say("cudaIpcOpenMemHandle: the handle was made by this process; as with CUDA, only "
                "another process may open it (use the pointer itself here)");
        return cudaErrorDeviceUninitialized;
    }
    return cudaSuccess;
}

cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags)
{
    (void)flags; /* every emulated GPU reaches every other's memory */
    struct mem_handle h;
    memcpy(&h, &handle, sizeof h);
    cudaError_t err = check_mem_handle(devPtr, &h);
    if (err != cudaSuccess)
        return rt_error(err);
    rt_lock();
    struct import *i = (err = rt_device()) == cudaSuccess ? import_of(&h) : NULL;
    if (i) {
        i->refs++;
        *devPtr = (void *)(uintptr_t)i->addr;
    } else if (err == cudaSuccess) {
        int fd = open_remote(h.pid, h.fd, "cudaIpcOpenMemHandle");
        i = fd >= 0 ? emu_calloc(1, sizeof *i) : NULL;
        err = fd < 0 ? cudaErrorInvalidValue : cudaSuccess;
        if (i && (i->addr = map_import(&h, fd, &err))) {
            *i = (struct import){h, i->addr, 1, imports};
            imports = i;
            *devPtr = (void *)(uintptr_t)i->addr;
        } else {
            free(i);
        }
        if (fd >= 0)
            close(fd);
    }
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaIpcCloseMemHandle(void *devPtr)
{
    rt_lock();
    struct import **at = &imports;
    while (*at && (*at)->addr != (uint64_t)(uintptr_t)devPtr)
        at = &(*at)->next;
    struct import *i = *at;
    cudaError_t err = rt_device();
    if (!i) {
        emu_say("cudaIpcCloseMemHandle: %p is not memory cudaIpcOpenMemHandle returned", devPtr);
        err = cudaErrorInvalidValue;
    } else if (--i->refs == 0) {
        rt_run_all(); /* queued work that uses the mapping runs before it goes */
        *at = i->next;
        unmap_import(i->addr, i->h.size);
        free(i);
    }
    rt_unlock();
    return rt_error(err);
}
