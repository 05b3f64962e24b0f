/**
 * @file rt_memory.c
 * @brief The runtime stand-in: device, managed and pinned host memory, copies and fills.
 *
 * The allocator is the client's (mem_alloc on the shared span); every block
 * is mirrored to the server (ALLOC/FREE) so that kernels are checked against
 * the same table. Copies and fills are checked against the table when they
 * are called (a range outside every live block is refused with
 * cudaErrorInvalidValue and one line saying whether it runs past a block's end
 * or into a freed one), queued on their stream, and run here, on the alias,
 * when the stream reaches them (rt_queue.c): before the call returns for a
 * copy to or from host memory that CUDA completes at once (cudaMemcpy, pageable
 * memory), later for the rest. Managed memory
 * is a device block whose pages are also mapped, readable and writable, at the
 * device address itself, so host code may use the pointer too. Pinned host
 * memory is host memory with pages of its own (hostcheck protects them).
 *
 * Every range the host writes (copies, fills, library stand-ins: course_emu_wrote) is
 * announced to the server (WRITTEN), for initcheck. With memcheck on (COURSE_EMU_CHECKS
 * names mem), allocations remember the code that made them, and those never freed are
 * reported when the process exits.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "proto.h"
#include "rt.h"

/* Bytes of address space a block covers once placed (mem.c starts blocks on a page). */
static size_t pages_of(size_t bytes)
{
    return (bytes + 4095) / 4096 * 4096;
}

int rt_is_device(const void *p)
{
    return rt.started && mem_in_span(&rt.mem, (uint64_t)(uintptr_t)p);
}

static struct rt_host_block *find_block(struct rt_host_block *list, const void *p)
{
    for (; list; list = list->next)
        if ((const char *)p >= (const char *)list->ptr &&
            (const char *)p < (const char *)list->ptr + list->size)
            return list;
    return NULL;
}

void *rt_host(const void *p, size_t bytes, const char *who)
{
    uint64_t a = (uint64_t)(uintptr_t)p;
    if (!rt_is_device(p)) {
        emu_say("%s: %p is not a device pointer", who, p);
        return NULL;
    }
    if (mem_find(&rt.mem, a, bytes))
        return mem_host(&rt.mem, a);
    const struct mem_block *b = mem_find(&rt.mem, a, 0);
    const struct mem_block *gone = mem_find_freed(&rt.mem, a);
    if (b)
        emu_say("%s: %zu bytes at %p run %llu bytes past the end of a %llu-byte allocation", who,
                bytes, p, (unsigned long long)(a + bytes - b->addr - b->size),
                (unsigned long long)b->size);
    else if (gone)
        emu_say("%s: %p lies in a %llu-byte allocation that was freed (use after free)", who, p,
                (unsigned long long)gone->size);
    else
        emu_say("%s: %p is not inside any device allocation", who, p);
    return NULL;
}

void rt_wrote(const void *dev, size_t bytes, uint32_t how, uint64_t from)
{
    struct proto_block b = {(uint64_t)(uintptr_t)dev, bytes, 0, how, from};
    if (bytes)
        rt_post(PROTO_WRITTEN, &b, sizeof b);
}

/* The leak check's record: each live allocation's address and the code that made it. */
struct site {
    uint64_t addr;
    const void *caller;
};
static struct site *sites;
static size_t nsites, capsites;

static void remember_site(uint64_t addr, const void *caller)
{
    if (nsites == capsites) {
        size_t cap = capsites ? 2 * capsites : 64;
        sites = emu_realloc(sites, cap * sizeof *sites);
        capsites = cap;
    }
    sites[nsites++] = (struct site){addr, caller};
}

static void forget_site(uint64_t addr)
{
    for (size_t i = 0; i < nsites; i++)
        if (sites[i].addr == addr) {
            sites[i] = sites[--nsites];
            return;
        }
}

/* "in FUNCTION()", or "from OBJECT+0xOFFSET" where no exported symbol holds the address (a
 * static function: addr2line -f -e OBJECT 0xOFFSET names it). */
static void caller_name(const void *caller, char *buf, size_t size)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!dladdr1(caller, &info, (void **)&sym, RTLD_DL_SYMENT) || !info.dli_fname)
        snprintf(buf, size, "at %p", caller);
    else if (info.dli_sname && sym &&
             (const char *)caller < (const char *)info.dli_saddr + sym->st_size)
        snprintf(buf, size, "in %s()", info.dli_sname);
    else
        snprintf(buf, size, "from %s+0x%zx", info.dli_fname,
                 (size_t)((const char *)caller - (const char *)info.dli_fbase));
}

/* As the process ends, when this library is unloaded: after the program's atexit() handlers
 * and static destructors (a global that frees its device memory in its destructor has freed
 * it) and the work still queued, one line per allocation never freed (stderr and the report),
 * then the total. */
__attribute__((destructor)) static void report_leaks(void)
{
    if (!nsites || getpid() != rt.pid)
        return; /* nothing held, or a forked child: the allocations are its parent's */
    rt_lock();
    rt_run_all();
    rt_unlock();
    const char *path = getenv("COURSE_EMU_REPORT");
    FILE *report = path && *path ? fopen(path, "a") : NULL;
    uint64_t bytes = 0;
    for (size_t i = 0; i < nsites; i++) {
        const struct mem_block *b = mem_find(&rt.mem, sites[i].addr, 0);
        char who[4200], line[4400];
        caller_name(sites[i].caller, who, sizeof who);
        snprintf(line, sizeof line, "leak-check: %llu bytes at %p allocated %s never freed",
                 b ? (unsigned long long)b->size : 0ULL, (void *)(uintptr_t)sites[i].addr, who);
        emu_say("%s", line);
        if (report)
            fprintf(report, "%s\n", line);
        bytes += b ? b->size : 0;
    }
    rt.findings += nsites;
    if (nsites)
        emu_say("leak-check: %zu allocation%s (%llu bytes) never freed", nsites,
                nsites == 1 ? "" : "s", (unsigned long long)bytes);
    if (report)
        fclose(report);
}

/* Allocate a device block for @p caller and mirror it; 0 when the memory is full. */
static uint64_t alloc_block(size_t size, const void *caller)
{
    uint64_t a = mem_alloc(&rt.mem, size, rt_self()->device);
    struct proto_block b = {a, size ? size : 1, rt_self()->device, 0, 0};
    if (a && rt_post(PROTO_ALLOC, &b, sizeof b)) {
        mem_free(&rt.mem, a);
        return 0;
    }
    if (a && rt.leak_check && caller)
        remember_site(a, caller);
    return a;
}

/* cudaMalloc on behalf of @p caller (the user's code that asked). */
static cudaError_t malloc_for(void **devPtr, size_t size, const void *caller)
{
    rt_lock();
    cudaError_t err = rt_device();
    uint64_t a = 0;
    if (err == cudaSuccess && size > 0 && !(a = alloc_block(size, caller)))
        err = rt.sticky != cudaSuccess ? rt.sticky : cudaErrorMemoryAllocation;
    rt_unlock();
    *devPtr = (void *)(uintptr_t)a;
    return rt_error(err);
}

cudaError_t rt_malloc_at(void **devPtr, size_t size, const void *caller)
{
    return malloc_for(devPtr, size, caller);
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    if (!devPtr)
        return rt_null("cudaMalloc", "devPtr");
    return malloc_for(devPtr, size, __builtin_return_address(0));
}

/* --- stream-ordered allocation ----------------------------------------------------------------
 * Allocations are immediate (a legal schedule of stream order), so a pool is its attributes: the
 * reuse policies and release threshold a program sets and reads back. The usage attributes
 * answer 0: the emulator keeps no memory aside. */

/** A memory pool: the value of each cudaMemPoolAttr (1 .. 8). */
struct rt_pool {
    uint64_t attr[9];
};

static struct rt_pool default_pools[RT_MAX_GPUS];
static struct rt_pool *current_pools[RT_MAX_GPUS];

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    if (device < 0 || device >= rt_gpus())
        return rt_error(cudaErrorInvalidDevice);
    *memPool = (cudaMemPool_t)&default_pools[device];
    return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    cudaError_t err = cudaDeviceGetDefaultMemPool(memPool, device);
    if (err == cudaSuccess && current_pools[device])
        *memPool = (cudaMemPool_t)current_pools[device];
    return err;
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    cudaMemPool_t any;
    cudaError_t err = cudaDeviceGetDefaultMemPool(&any, device);
    if (err == cudaSuccess)
        current_pools[device] = (struct rt_pool *)memPool;
    return err;
}

/* CUDA 13's pools by location: a device's are those above; host memory's are not emulated. */
static cudaError_t device_location(const struct cudaMemLocation *location,
                                   enum cudaMemAllocationType type, const char *who)
{
    if (location && location->type == cudaMemLocationTypeDevice &&
        type == cudaMemAllocationTypePinned)
        return cudaSuccess;
    emu_say("%s: only a device's pinned pools are emulated (a location of type %d, allocation "
            "type %d asked) (cudaErrorNotSupported)",
            who, location ? (int)location->type : -1, (int)type);
    return cudaErrorNotSupported;
}

cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                                     enum cudaMemAllocationType type)
{
    cudaError_t err = device_location(location, type, "cudaMemGetDefaultMemPool");
    return err != cudaSuccess ? rt_error(err) : cudaDeviceGetDefaultMemPool(memPool, location->id);
}

cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                              enum cudaMemAllocationType type)
{
    cudaError_t err = device_location(location, type, "cudaMemGetMemPool");
    return err != cudaSuccess ? rt_error(err) : cudaDeviceGetMemPool(memPool, location->id);
}

cudaError_t cudaMemSetMemPool(struct cudaMemLocation *location, enum cudaMemAllocationType type,
                              cudaMemPool_t memPool)
{
    cudaError_t err = device_location(location, type, "cudaMemSetMemPool");
    return err != cudaSuccess ? rt_error(err) : cudaDeviceSetMemPool(location->id, memPool);
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)
{
    if (!poolProps || poolProps->allocType != cudaMemAllocationTypePinned)
        return rt_error(cudaErrorInvalidValue);
    struct rt_pool *p = emu_calloc(1, sizeof *p);
    *memPool = (cudaMemPool_t)p;
    return cudaSuccess;
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    struct rt_pool *p = (struct rt_pool *)memPool;
    if (p >= default_pools && p < default_pools + RT_MAX_GPUS)
        return rt_error(cudaErrorInvalidValue);
    free(p);
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    struct rt_pool *p = (struct rt_pool *)memPool;
    if (!p || attr < cudaMemPoolReuseFollowEventDependencies || attr > cudaMemPoolAttrUsedMemHigh ||
        attr == cudaMemPoolAttrReservedMemCurrent || attr == cudaMemPoolAttrUsedMemCurrent)
        return rt_error(cudaErrorInvalidValue);
    p->attr[attr] =
        attr == cudaMemPoolAttrReleaseThreshold || attr >= cudaMemPoolAttrReservedMemHigh
            ? *(uint64_t *)value
            : (uint64_t) * (int *)value;
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    struct rt_pool *p = (struct rt_pool *)memPool;
    if (!p || attr < cudaMemPoolReuseFollowEventDependencies || attr > cudaMemPoolAttrUsedMemHigh)
        return rt_error(cudaErrorInvalidValue);
    if (attr >= cudaMemPoolAttrReleaseThreshold)
        *(uint64_t *)value = attr == cudaMemPoolAttrReleaseThreshold ? p->attr[attr] : 0;
    else
        *(int *)value = (int)p->attr[attr];
    return cudaSuccess;
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    (void)minBytesToKeep;
    return memPool ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList,
                                 size_t count)
{
    (void)descList, (void)count; /* every GPU reaches all device memory */
    return memPool ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                 struct cudaMemLocation *location)
{
    if (!memPool || !flags || !location)
        return rt_error(cudaErrorInvalidValue);
    *flags = cudaMemAccessFlagsProtReadWrite; /* every GPU reaches all device memory */
    return cudaSuccess;
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                    cudaStream_t stream)
{
    (void)stream;
    if (!memPool)
        return rt_error(cudaErrorInvalidValue);
    return malloc_for(ptr, size, __builtin_return_address(0));
}

cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    rt_lock();
    int pinned = find_block(rt.host_blocks, pHost) != NULL;
    rt_unlock();
    *pFlags = cudaHostAllocMapped | cudaHostAllocPortable;
    return pinned ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

/* A channel format: the bits per component and their kind (textures are not emulated, but
 * programs build the descriptor before they find out). */
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   enum cudaChannelFormatKind f)
{
    return (struct cudaChannelFormatDesc){x, y, z, w, f};
}

int rt_show_host(void *dev, size_t size, const char *who)
{
    uintptr_t page = (uintptr_t)dev & ~(uintptr_t)4095;
    size_t len = pages_of((uintptr_t)dev + (size ? size : 1) - page);
    rt_wrote(dev, size, PROTO_WROTE_HOST, 0); /* the host may write it directly */
    if (mmap((void *)page, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, rt.mem.fd,
             (off_t)(page - rt.mem.base)) == MAP_FAILED) {
        emu_say("%s: cannot map %zu bytes for the host", who, size);
        return -1;
    }
    struct rt_host_block *m = emu_malloc(sizeof *m);
    *m = (struct rt_host_block){.ptr = dev, .size = size, .next = rt.managed};
    rt.managed = m;
    if (rt.remote) /* a server that holds the device memory must see these pages as they are */
        rt_remote_show_host((void *)page, len);
    return 0;
}

/* A device block of @p size for @p caller, also mapped, readable and writable, at its device
 * address for the host (managed and pinned memory): rt_show_host(). */
static cudaError_t host_visible_block(void **devPtr, size_t size, const char *who,
                                      const void *caller)
{
    cudaError_t err = malloc_for(devPtr, size ? size : 1, caller);
    if (err != cudaSuccess || !*devPtr)
        return err;
    rt_lock();
    int failed = rt_show_host(*devPtr, size, who);
    rt_unlock();
    if (failed) {
        cudaFree(*devPtr);
        *devPtr = NULL;
        return rt_error(cudaErrorMemoryAllocation);
    }
    return cudaSuccess;
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    if (!devPtr)
        return rt_null("cudaMallocManaged", "devPtr");
    (void)flags;
    if (size == 0) {
        *devPtr = NULL;
        return cudaSuccess;
    }
    return host_visible_block(devPtr, size, "cudaMallocManaged", __builtin_return_address(0));
}

/* Forget managed block @p p, making its pages inaccessible to the host again. */
static void unmap_managed(void *p)
{
    for (struct rt_host_block **at = &rt.managed; *at; at = &(*at)->next) {
        struct rt_host_block *m = *at;
        if (m->ptr != p)
            continue;
        mmap(p, pages_of(m->size), PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
        rt_managed_forget(p, m->size);
        *at = m->next;
        free(m);
        return;
    }
}

int (*rt_free_hook)(const void *p);

cudaError_t cudaFree(void *devPtr)
{
    if (!devPtr)
        return cudaSuccess;
    rt_lock();
    cudaError_t err = rt_device();
    rt_run_all(); /* cudaFree synchronises the device: no queued work still uses the block */
    uint64_t a = (uint64_t)(uintptr_t)devPtr;
    /* graph memory goes out of use, its block kept for the graph's next launch */
    int mine = err == cudaSuccess && !(rt_free_hook && rt_free_hook(devPtr));
    const struct mem_block *b = mine ? mem_find(&rt.mem, a, 0) : NULL;
    if (b && b->view) {
        emu_say("cudaFree: %p is mapped with cuMemMap, not allocated: cuMemUnmap it", devPtr);
        err = cudaErrorInvalidValue;
    } else if (mine && mem_free(&rt.mem, a)) {
        emu_say("cudaFree: %p is not the start of a live device allocation%s", devPtr,
                mem_find_freed(&rt.mem, a) ? " (it was freed already)" : "");
        err = cudaErrorInvalidValue;
    } else if (mine) {
        forget_site(a);
        unmap_managed(devPtr);
        struct proto_block b = {a, 0, 0, 0, 0};
        if (rt_post(PROTO_FREE, &b, sizeof b))
            err = rt.sticky;
    }
    rt_unlock();
    return rt_error(err);
}

/* --- pinned memory --------------------------------------------------------------------------- */

/* The pinned blocks copy @p w writes (*d) and reads (*s), or NULL. */
static void copy_blocks(const struct rt_work *w, struct rt_host_block **d, struct rt_host_block **s)
{
    size_t h = w->u.copy.height - 1, len = w->u.copy.width;
    *d = w->u.copy.sides & 1 ? NULL : rt_pinned(w->u.copy.d, w->u.copy.dpitch * h + len);
    *s = w->u.copy.sides & 2 ? NULL : rt_pinned(w->u.copy.s, w->u.copy.spitch * h + len);
}

/* Queued copy @p w on @p s: the pinned memory it uses is in flight until it runs. */
static void hold_copy(const struct rt_work *w, struct rt_stream *s)
{
    struct rt_host_block *d, *src;
    copy_blocks(w, &d, &src);
    cudaStream_t handle = s == rt_legacy() ? NULL : (cudaStream_t)s;
    if (d)
        rt_hostcheck_hold(d, w, handle, 1);
    if (src)
        rt_hostcheck_hold(src, w, handle, 0);
}

/* Row @p r of copy @p w through a server that holds the device memory (rt_remote.c): the sides
 * it holds (@p dst_held, @p src_held: device memory, or a pinned block shown to it at the same
 * address) by their addresses, the others by this process's pointers. A copy between device
 * and pinned memory is the server's own, so its bytes keep their record. */
static void remote_row(const struct rt_work *w, size_t r, int dst_held, int src_held)
{
    size_t len = w->u.copy.width;
    const char *dst = (const char *)w->u.copy.dst + r * w->u.copy.dpitch;
    const char *src = (const char *)w->u.copy.src + r * w->u.copy.spitch;
    if ((w->u.copy.sides & 3) == 3)
        rt_remote_copy(dst, src, len);
    else if (dst_held && src_held)
        rt_remote_copy_pinned(dst, src, len);
    else if (dst_held)
        rt_remote_write(dst, w->u.copy.s + r * w->u.copy.spitch, len);
    else
        rt_remote_read(w->u.copy.d + r * w->u.copy.dpitch, src, len);
}

/* What a copy runs (its rt_work's run): its rows (none after a fault), and what the server must
 * know of the device bytes it wrote: pinned memory is device memory the host maps, so a copy into
 * it is recorded too, and a copy from it carries its bytes' record along (a grader's pinned input
 * stays the grader's). */
static void run_copy(const struct rt_work *w, struct rt_stream *on, uint64_t seq)
{
    (void)on, (void)seq;
    int dead = rt.sticky != cudaSuccess;
    size_t len = w->u.copy.width;
    struct rt_host_block *d, *s;
    copy_blocks(w, &d, &s);
    int recorded = (w->u.copy.sides & 1) || d, from_device = (w->u.copy.sides & 2) || s;
    if (d) {
        rt_hostcheck_release(d, 1);
        rt_hostcheck_open(d, 1);
    }
    if (s) {
        rt_hostcheck_release(s, 0);
        rt_hostcheck_open(s, 1);
    }
    for (size_t r = 0; !dead && r < w->u.copy.height; r++) {
        if (rt.remote && (w->u.copy.sides & 3)) {
            remote_row(w, r, recorded, from_device);
            continue;
        }
        memmove(w->u.copy.d + r * w->u.copy.dpitch, w->u.copy.s + r * w->u.copy.spitch, len);
        if (recorded)
            rt_wrote((const char *)w->u.copy.dst + r * w->u.copy.dpitch, len,
                     from_device ? PROTO_WROTE_COPY : PROTO_WROTE_HOST,
                     (uint64_t)(uintptr_t)((const char *)w->u.copy.src + r * w->u.copy.spitch));
    }
    if (d)
        rt_hostcheck_open(d, 0);
    if (s)
        rt_hostcheck_open(s, 0);
}

/* A fill of 2- or 4-byte elements: each row written as the host writes a copy's. */
static void run_pattern(const struct rt_work *w)
{
    size_t width = w->u.fill.width;
    char *row = emu_malloc(width ? width : 1);
    for (size_t i = 0; i < width; i += w->u.fill.elem)
        memcpy(row + i, &w->u.fill.value, w->u.fill.elem); /* little-endian, as the GPU's */
    for (size_t r = 0; r < w->u.fill.height; r++) {
        const char *dev = (const char *)w->u.fill.p + r * w->u.fill.pitch;
        if (rt.remote) {
            rt_remote_write(dev, row, width);
            continue;
        }
        memcpy(w->u.fill.h + r * w->u.fill.pitch, row, width);
        rt_wrote(dev, width, PROTO_WROTE_HOST, (uint64_t)(uintptr_t)row);
    }
    free(row);
}

/* What a fill runs (its rt_work's run): its rows, unless a fault broke the device. */
static void run_fill(const struct rt_work *w, struct rt_stream *on, uint64_t seq)
{
    (void)on, (void)seq;
    if (rt.sticky != cudaSuccess)
        return;
    if (w->u.fill.elem > 1) {
        run_pattern(w);
        return;
    }
    for (size_t r = 0; r < w->u.fill.height; r++) {
        if (rt.remote) {
            rt_remote_fill((const char *)w->u.fill.p + r * w->u.fill.pitch, w->u.fill.value,
                           w->u.fill.width);
            continue;
        }
        memset(w->u.fill.h + r * w->u.fill.pitch, w->u.fill.value, w->u.fill.width);
        rt_wrote((const char *)w->u.fill.p + r * w->u.fill.pitch, w->u.fill.width, PROTO_WROTE_FILL,
                 (uint8_t)w->u.fill.value);
    }
}

/* Pinned memory has pages of its own, so that hostcheck can protect exactly them. They are a
 * device block mapped at its device address (as managed memory is), so that a kernel reaches
 * them through the same pointer (zero-copy, unified addressing). */
static cudaError_t pinned_for(void **ptr, size_t size, const void *caller)
{
    void *p = NULL;
    struct rt_host_block *h = emu_malloc(sizeof *h);
    cudaError_t err = host_visible_block(&p, size, "cudaMallocHost", caller);
    if (err == cudaSuccess) {
        rt_lock();
        *h = (struct rt_host_block){.ptr = p, .size = size, .next = rt.host_blocks};
        rt.host_blocks = h;
        rt_unlock();
    } else {
        free(h);
    }
    *ptr = p;
    return err == cudaSuccess ? cudaSuccess : rt_error(cudaErrorMemoryAllocation);
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    if (!ptr)
        return rt_null("cudaMallocHost", "ptr");
    return pinned_for(ptr, size, __builtin_return_address(0));
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    (void)flags;
    return pinned_for(pHost, size, __builtin_return_address(0));
}

/* Synchronises the device first, as CUDA does: no queued copy still uses the block. */
cudaError_t cudaFreeHost(void *ptr)
{
    if (!ptr)
        return cudaSuccess;
    rt_lock();
    rt_run_all();
    struct rt_host_block **at = &rt.host_blocks;
    while (*at && (*at)->ptr != ptr)
        at = &(*at)->next;
    struct rt_host_block *h = *at;
    if (h)
        *at = h->next;
    rt_unlock();
    if (!h) {
        emu_say("cudaFreeHost: %p was not allocated by cudaMallocHost or cudaHostAlloc", ptr);
        return rt_error(cudaErrorInvalidValue);
    }
    free(h);
    return cudaFree(ptr);
}

/** A cudaHostRegister'ed range: its pages alias those of a device block, so kernels reach it.
 *  Ranges within the pages of one registered before share its pages and block. */
struct registered {
    char *start; /**< the range the program registered */
    size_t size;
    char *page; /**< the first page of the pages it aliases */
    size_t len; /**< bytes of whole pages they cover */
    char *dev;  /**< the device block the pages alias (its address is the device pointer) */
    struct registered *next;
};
static struct registered *registered; /* under rt_lock */

/* The registration whose pages hold @p p, or NULL. The lock is held. */
static struct registered *registration(const void *p)
{
    struct registered *r = registered;
    while (r && ((const char *)p < r->page || (const char *)p >= r->page + r->len))
        r = r->next;
    return r;
}

/* The pages a registration moves: host pages [page, page + len) and the device block at dev,
 * whose offset in the device memory's file is off; map says which way they go. */
struct page_move {
    char *page;
    size_t len;
    void *dev;
    uint64_t off;
    int map; /* 1: onto the device block; 0: private memory again */
};

/* Move the pages as @p arg says (run by swap_pages()). */
static void move_pages(void *arg)
{
    struct page_move *m = arg;
    if (m->map) {
        memcpy(m->dev, m->page, m->len);
        if (mmap(m->page, m->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, rt.mem.fd,
                 (off_t)m->off) != MAP_FAILED)
            return;
    } else {
        void *copy = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (copy != MAP_FAILED)
            memcpy(copy, m->page, m->len);
        if (copy != MAP_FAILED &&
            mremap(copy, m->len, m->len, MREMAP_MAYMOVE | MREMAP_FIXED, m->page) != MAP_FAILED)
            return;
    }
    emu_say("%s: cannot map %zu bytes at %p (its pages are lost)",
            m->map ? "cudaHostRegister" : "cudaHostUnregister", m->len, (void *)m->page);
    abort();
}

/* What the signal swap_pages() raises runs. */
static struct page_move *page_job;

static void page_signal(int sig)
{
    (void)sig;
    move_pages(page_job);
}

enum { PAGE_SIGNAL_OFFSET = 3 }; /* SIGRTMAX - 3: held for the call only */

/*
 * Move pages as @p m says with this thread's stack frozen: they may be the stack's own (a local
 * array registered), and a return address pushed between the copy and the mapping over it would
 * be lost. So the move runs in a signal handler on an alternate stack, during which nothing of
 * the thread's own stack changes. The lock is held (one move at a time).
 */
static void swap_pages(struct page_move *m)
{
    static char alt[64 * 1024] __attribute__((aligned(16)));
    int sig = SIGRTMAX - PAGE_SIGNAL_OFFSET;
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt}, old_ss;
    struct sigaction sa = {.sa_handler = page_signal, .sa_flags = SA_ONSTACK}, old_sa;
    sigset_t only, old_mask;
    sigfillset(&sa.sa_mask);
    sigemptyset(&only);
    sigaddset(&only, sig);
    page_job = m;
    sigaltstack(&ss, &old_ss);
    sigaction(sig, &sa, &old_sa);
    pthread_sigmask(SIG_UNBLOCK, &only, &old_mask);
    raise(sig);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    sigaction(sig, &old_sa, NULL);
    sigaltstack(&old_ss, NULL);
}

/* 1 when a registration's bytes meet [@p ptr, + @p size). The lock is held. */
static int bytes_taken(const char *ptr, size_t size)
{
    for (const struct registered *r = registered; r; r = r->next)
        if (ptr < r->start + r->size && r->start < ptr + size)
            return 1;
    return 0;
}

/* Why [@p ptr, + @p size) (whole pages [@p page, + @p len)) cannot be registered, or cudaSuccess
 * (after one line saying why not); @p shared receives the registration whose pages hold all of
 * them (a range beside another in its pages, as two members of one object), or NULL. */
static cudaError_t registrable(char *ptr, size_t size, char *page, size_t len,
                               struct registered **shared)
{
    rt_lock();
    int taken = ptr && size && bytes_taken(ptr, size);
    struct registered *first = ptr && size ? registration(page) : NULL;
    struct registered *last = ptr && size ? registration(page + len - 1) : NULL;
    int device = rt_is_device(ptr);
    rt_unlock();
    *shared = first && first == last && page + len <= first->page + first->len ? first : NULL;
    const char *why = !ptr || !size   ? "a NULL pointer or 0 bytes"
                      : taken         ? "its bytes are registered already"
                      : *shared       ? NULL
                      : first || last ? "it shares a page with a registered range and reaches "
                                        "past that range's pages (not emulated)"
                      : device        ? "it is device, pinned or managed memory"
                      : msync(page, len, MS_ASYNC) ? "its pages are not mapped"
                                                   : NULL;
    if (why)
        emu_say("cudaHostRegister: cannot register %zu bytes at %p: %s", size, (void *)ptr, why);
    return !why            ? cudaSuccess
           : taken         ? cudaErrorHostMemoryAlreadyRegistered
           : first || last ? cudaErrorNotSupported
                           : cudaErrorInvalidValue;
}

/* Host memory the program allocated becomes pinned and mapped: its pages are moved, content and
 * all, onto a device block's (MAP_SHARED at the same address), whose address is the device
 * pointer (cudaHostGetDevicePointer); cudaDevAttrCanUseHostPointerForRegisteredMem says 0. */
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    (void)flags;
    char *page = (char *)((uintptr_t)ptr & ~(uintptr_t)4095);
    size_t len = pages_of((size_t)((char *)ptr + size - page));
    struct registered *shared;
    cudaError_t err = registrable(ptr, size, page, len, &shared);
    void *dev = shared ? shared->dev : NULL;
    if (err == cudaSuccess && !shared)
        err = host_visible_block(&dev, len, "cudaHostRegister", __builtin_return_address(0));
    if (err != cudaSuccess)
        return rt_error(err);
    struct registered *r = emu_malloc(sizeof *r);
    rt_lock();
    if (shared)
        *r = (struct registered){ptr, size, shared->page, shared->len, dev, registered};
    else {
        swap_pages(&(struct page_move){page, len, dev, (uint64_t)(uintptr_t)dev - rt.mem.base, 1});
        *r = (struct registered){ptr, size, page, len, dev, registered};
    }
    registered = r;
    rt_unlock();
    return cudaSuccess;
}

/* The pages get private memory of their own again, with the content they hold now: a copy made
 * aside replaces them in one step, so the record, and the allocator's data that may share its
 * pages, are read whole (unmapping first and copying back after lost both). */
cudaError_t cudaHostUnregister(void *ptr)
{
    rt_lock();
    rt_run_all(); /* no queued work still uses the range */
    struct registered **at = &registered;
    while (*at && (*at)->start != (char *)ptr)
        at = &(*at)->next;
    struct registered *r = *at;
    void *dev = r ? r->dev : NULL;
    int found = r != NULL;
    if (r) {
        *at = r->next;
        for (const struct registered *o = registered; o; o = o->next)
            dev = o->dev == r->dev ? NULL : dev; /* another range still shares the pages */
        if (dev)
            swap_pages(&(struct page_move){r->page, r->len, NULL, 0, 0});
        free(r); /* its pages are the program's own again, or still the other range's */
    }
    rt_unlock();
    if (!found) {
        emu_say("cudaHostUnregister: %p was not registered with cudaHostRegister", ptr);
        return rt_error(cudaErrorHostMemoryNotRegistered);
    }
    return dev ? cudaFree(dev) : cudaSuccess;
}

/* Pinned and managed memory: the same address; registered memory: its device block's. */
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    rt_lock();
    struct registered *r = registration(pHost);
    int mapped = r || find_block(rt.host_blocks, pHost) || find_block(rt.managed, pHost);
    *pDevice = r ? r->dev + ((char *)pHost - r->page) : mapped ? pHost : NULL;
    rt_unlock();
    if (flags || !mapped) {
        emu_say("cudaHostGetDevicePointer: %p is not pinned host memory%s", pHost,
                flags ? " (and flags must be 0)" : "");
        return rt_error(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    if (!free_bytes)
        return rt_null("cudaMemGetInfo", "free_bytes");
    if (!rt_gpus())
        return rt_error(cudaErrorNoDevice);
    rt_lock();
    uint64_t used = rt.started ? rt.mem.used : 0;
    *total = rt.capacity;
    *free_bytes = rt.capacity > used ? rt.capacity - used : 0;
    rt_unlock();
    return cudaSuccess;
}

int course_emu_drv_range(uint64_t addr, uint64_t *base, uint64_t *size)
{
    rt_lock();
    const void *p = (const void *)(uintptr_t)addr;
    const struct mem_block *b = rt_is_device(p) ? mem_find(&rt.mem, addr, 1) : NULL;
    if (b) {
        *base = b->addr;
        *size = b->size;
    }
    rt_unlock();
    return b != NULL;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    if (!attributes)
        return rt_null("cudaPointerGetAttributes", "attributes");
    rt_lock();
    uint64_t a = (uint64_t)(uintptr_t)ptr;
    const struct mem_block *b = rt_is_device(ptr) ? mem_find(&rt.mem, a, 1) : NULL;
    memset(attributes, 0, sizeof *attributes);
    attributes->device = -2;
    if (find_block(rt.host_blocks, ptr)) { /* pinned: a device block mapped for the host */
        attributes->type = cudaMemoryTypeHost;
        attributes->devicePointer = attributes->hostPointer = (void *)ptr;
    } else if (b && find_block(rt.managed, ptr)) {
        attributes->type = cudaMemoryTypeManaged;
        attributes->device = b->device;
        attributes->devicePointer = attributes->hostPointer = (void *)ptr;
    } else if (b) {
        attributes->type = cudaMemoryTypeDevice;
        attributes->device = b->device;
        attributes->devicePointer = (void *)ptr;
    } else if (registration(ptr)) {
        struct registered *r = registration(ptr);
        attributes->type = cudaMemoryTypeHost;
        attributes->hostPointer = (void *)ptr;
        attributes->devicePointer = r->dev + ((const char *)ptr - r->page);
    } else {
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->hostPointer = (void *)ptr;
    }
    rt_unlock();
    return cudaSuccess;
}

/* --- copies and fills ---------------------------------------------------------------- */

/*
 * Where one side of a copy lives in this process: a device side (as @p kind
 * says, or as the pointer says for cudaMemcpyDefault) is checked against the
 * table over @p extent bytes; a host side must not point into device memory.
 */
static char *copy_side(const void *p, size_t extent, int device_side, const char *who)
{
    if (device_side)
        return rt_host(p, extent, who);
    if (rt_is_device(p) && !find_block(rt.managed, p)) {
        emu_say("%s: %p is device memory, but the copy direction says host memory", who, p);
        return NULL;
    }
    return (char *)p;
}

/* Which sides @p kind makes device sides (bit 0 destination, bit 1 source); -1 if invalid. */
static int device_sides(enum cudaMemcpyKind kind, const void *dst, const void *src)
{
    switch (kind) {
    case cudaMemcpyHostToHost:
        return 0;
    case cudaMemcpyHostToDevice:
        return 1;
    case cudaMemcpyDeviceToHost:
        return 2;
    case cudaMemcpyDeviceToDevice:
        return 3;
    case cudaMemcpyDefault:
        return (rt_is_device(dst) && !find_block(rt.host_blocks, dst)) |
               (rt_is_device(src) && !find_block(rt.host_blocks, src)) << 1;
    default:
        return -1;
    }
}

/** How a copy or fill was called. */
struct call {
    const char *who;     /**< the API function */
    cudaStream_t stream; /**< its stream (the default one for the synchronous calls) */
    int async;           /**< 1: a cuda*Async call */
    const void *site;    /**< the program's code that called it */
};

/* The synchronous call @p who, made from @p site, on this thread's default stream. */
static struct call sync_call(const char *who, const void *site)
{
    return (struct call){who, rt_default_stream(), 0, site};
}

/* The asynchronous call @p who on @p stream, made from @p site. */
static struct call async_call(const char *who, cudaStream_t stream, const void *site)
{
    return (struct call){who, stream, 1, site};
}

/*
 * Whether a copy between @p sides may return before it ran: device to device always; to or
 * from host memory only for an asynchronous call whose host sides are all pinned (with
 * pageable memory a copy is synchronous, as CUDA's staging through pinned buffers makes it).
 */
static int deferred(int sides, const struct call *c, const void *dst, const void *src, size_t dext,
                    size_t sext)
{
    if (sides == 3)
        return 1;
    return sides && c->async && (sides & 1 || rt_pinned(dst, dext)) &&
           (sides & 2 || rt_pinned(src, sext));
}

/* Queue @p w on @p c's stream; run it (and what it waits for) unless @p later. The lock is
 * held. Returns the error the call returns. */
static cudaError_t issue(const struct call *c, struct rt_work *w, int later)
{
    struct rt_stream *st = rt_stream_of(c->stream);
    if (!st)
        return cudaErrorInvalidResourceHandle;
    w->what = c->who;
    w->site = c->site;
    uint64_t seq = rt_enqueue(st, w, NULL);
    if (seq && !later) {
        rt_run_to(st, seq);
        rt_record_sync(&(struct rt_dep){st, seq}, 1, c->who); /* the host waited for it */
    }
    return rt.sticky;
}

cudaError_t rt_copy_work(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind, const char *who,
                         struct rt_work *w)
{
    if (width > dpitch || width > spitch) {
        emu_say(
            "%s: rows of %zu bytes do not fit a pitch of %zu bytes (cudaErrorInvalidPitchValue)",
            who, width, width > dpitch ? dpitch : spitch);
        return cudaErrorInvalidPitchValue;
    }
    cudaError_t err = rt_device();
    int sides = device_sides(kind, dst, src);
    size_t dext = dpitch * (height - 1) + width, sext = spitch * (height - 1) + width;
    if (err == cudaSuccess && sides < 0)
        err = cudaErrorInvalidMemcpyDirection;
    if (err != cudaSuccess)
        return err;
    char *d = copy_side(dst, dext, sides & 1, who);
    const char *s = copy_side(src, sext, sides & 2, who);
    *w = (struct rt_work){.kind = RT_COPY,
                          .what = who,
                          .run = run_copy,
                          .queued = hold_copy,
                          .u.copy = {d, s, dst, src, dpitch, spitch, width, height, sides}};
    return w->u.copy.d && w->u.copy.s ? cudaSuccess : cudaErrorInvalidValue;
}

/* A pitched copy of @p height rows of @p width bytes (a plain copy is one row). */
static cudaError_t copy_rows(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                             size_t height, enum cudaMemcpyKind kind, const struct call *c)
{
    if (width == 0 || height == 0)
        return cudaSuccess;
    struct rt_work w;
    rt_lock();
    cudaError_t err = rt_copy_work(dst, dpitch, src, spitch, width, height, kind, c->who, &w);
    if (err == cudaSuccess)
        err = issue(c, &w,
                    deferred(w.u.copy.sides, c, dst, src, dpitch * (height - 1) + width,
                             spitch * (height - 1) + width));
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    struct call c = sync_call("cudaMemcpy", __builtin_return_address(0));
    return copy_rows(dst, count, src, count, count, 1, kind, &c);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    struct call c = async_call("cudaMemcpyAsync", stream, __builtin_return_address(0));
    return copy_rows(dst, count, src, count, count, 1, kind, &c);
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind)
{
    struct call c = sync_call("cudaMemcpy2D", __builtin_return_address(0));
    return copy_rows(dst, dpitch, src, spitch, width, height, kind, &c);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t stream)
{
    struct call c = async_call("cudaMemcpy2DAsync", stream, __builtin_return_address(0));
    return copy_rows(dst, dpitch, src, spitch, width, height, kind, &c);
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
    (void)dstDevice, (void)srcDevice;
    struct call c = sync_call("cudaMemcpyPeer", __builtin_return_address(0));
    return copy_rows(dst, count, src, count, count, 1, cudaMemcpyDeviceToDevice, &c);
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                size_t count, cudaStream_t stream)
{
    (void)dstDevice, (void)srcDevice;
    struct call c = async_call("cudaMemcpyPeerAsync", stream, __builtin_return_address(0));
    return copy_rows(dst, count, src, count, count, 1, cudaMemcpyDeviceToDevice, &c);
}

cudaError_t rt_fill_work(void *p, size_t pitch, int value, size_t width, size_t height,
                         const char *who, struct rt_work *w)
{
    return rt_fill_elems(p, pitch, (uint32_t)value & 0xFF, 1, width, height, who, w);
}

cudaError_t rt_fill_elems(void *p, size_t pitch, uint32_t value, unsigned elem, size_t width,
                          size_t height, const char *who, struct rt_work *w)
{
    if (width > pitch) {
        emu_say(
            "%s: rows of %zu bytes do not fit a pitch of %zu bytes (cudaErrorInvalidPitchValue)",
            who, width, pitch);
        return cudaErrorInvalidPitchValue;
    }
    cudaError_t err = rt_device();
    char *h = err == cudaSuccess ? rt_host(p, pitch * (height - 1) + width, who) : NULL;
    if (err != cudaSuccess || !h)
        return err != cudaSuccess ? err : cudaErrorInvalidValue;
    *w = (struct rt_work){.kind = RT_FILL,
                          .what = who,
                          .run = run_fill,
                          .u.fill = {h, p, pitch, width, height, value, elem}};
    return cudaSuccess;
}

/* Fill @p height rows of @p width bytes, @p pitch apart, with byte @p value: queued (a fill of
 * managed memory, which the host reaches, completes before the call returns). */
static cudaError_t fill_rows(void *p, size_t pitch, int value, size_t width, size_t height,
                             const struct call *c)
{
    if (width == 0 || height == 0)
        return cudaSuccess;
    struct rt_work w;
    rt_lock();
    cudaError_t err = rt_fill_work(p, pitch, value, width, height, c->who, &w);
    if (err == cudaSuccess)
        err = issue(c, &w, !find_block(rt.managed, p));
    rt_unlock();
    return rt_error(err);
}

int course_emu_drv_fill(void *dev, size_t pitch, uint32_t value, unsigned elem, size_t width,
                        size_t height, cudaStream_t stream, int async, const char *who)
{
    struct call c = {who, stream, async, __builtin_return_address(0)};
    if (width == 0 || height == 0)
        return cudaSuccess;
    struct rt_work w;
    rt_lock();
    cudaError_t err = rt_fill_elems(dev, pitch, value, elem, width, height, who, &w);
    if (err == cudaSuccess)
        err = issue(&c, &w, !find_block(rt.managed, dev));
    rt_unlock();
    return (int)rt_error(err);
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    struct call c = sync_call("cudaMemset", __builtin_return_address(0));
    return fill_rows(devPtr, count, value, count, 1, &c);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    struct call c = async_call("cudaMemsetAsync", stream, __builtin_return_address(0));
    return fill_rows(devPtr, count, value, count, 1, &c);
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    struct call c = sync_call("cudaMemset2D", __builtin_return_address(0));
    return fill_rows(devPtr, pitch, value, width, height, &c);
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream)
{
    struct call c = async_call("cudaMemset2DAsync", stream, __builtin_return_address(0));
    return fill_rows(devPtr, pitch, value, width, height, &c);
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    *pitch = (width + 511) / 512 * 512;
    return malloc_for(devPtr, *pitch * height, __builtin_return_address(0));
}

/* Rows padded as cudaMallocPitch pads them, slices of extent.height rows (at least one). */
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    size_t pitch = (extent.width + 511) / 512 * 512, rows = extent.height ? extent.height : 1;
    *pitchedDevPtr = (struct cudaPitchedPtr){NULL, pitch, extent.width, extent.height};
    return malloc_for(&pitchedDevPtr->ptr, pitch * rows * (extent.depth ? extent.depth : 1),
                      __builtin_return_address(0));
}

/* A fill of @p e (its width in bytes) in pitched memory @p p, slice after slice (each
 * p.ysize rows apart). */
static cudaError_t fill_box(struct cudaPitchedPtr p, int value, struct cudaExtent e,
                            const struct call *c)
{
    cudaError_t err = cudaSuccess;
    for (size_t z = 0; err == cudaSuccess && z < e.depth; z++)
        err =
            fill_rows((char *)p.ptr + z * p.pitch * p.ysize, p.pitch, value, e.width, e.height, c);
    return err;
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent)
{
    struct call c = sync_call("cudaMemset3D", __builtin_return_address(0));
    return fill_box(pitchedDevPtr, value, extent, &c);
}

cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                              struct cudaExtent extent, cudaStream_t stream)
{
    struct call c = async_call("cudaMemset3DAsync", stream, __builtin_return_address(0));
    return fill_box(pitchedDevPtr, value, extent, &c);
}

cudaError_t cudaDeviceReset(void)
{
    /* Clears a fault's sticky error, as a reset does; allocations are kept (they end with the
     * process). A server that stopped cannot be reset. */
    rt_lock();
    rt_run_all();
    if (rt.sock >= 0)
        rt.sticky = cudaSuccess;
    rt_self()->last_error = cudaSuccess;
    cudaError_t err = rt.sticky;
    rt_unlock();
    return err;
}

/* --- per-thread default streams ----------------------------------------------------------------
 * Code built with --default-stream per-thread calls these: the synchronous calls go to the
 * calling thread's default stream (_ptds), and stream 0 names it (_ptsz). */

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    struct call c = {"cudaMemcpy", cudaStreamPerThread, 0, __builtin_return_address(0)};
    return copy_rows(dst, count, src, count, count, 1, kind, &c);
}

cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind)
{
    struct call c = {"cudaMemcpy2D", cudaStreamPerThread, 0, __builtin_return_address(0)};
    return copy_rows(dst, dpitch, src, spitch, width, height, kind, &c);
}

cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count)
{
    struct call c = {"cudaMemset", cudaStreamPerThread, 0, __builtin_return_address(0)};
    return fill_rows(devPtr, count, value, count, 1, &c);
}

cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    struct call c = {"cudaMemset2D", cudaStreamPerThread, 0, __builtin_return_address(0)};
    return fill_rows(devPtr, pitch, value, width, height, &c);
}

cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr pitchedDevPtr, int value,
                              struct cudaExtent extent)
{
    struct call c = {"cudaMemset3D", cudaStreamPerThread, 0, __builtin_return_address(0)};
    return fill_box(pitchedDevPtr, value, extent, &c);
}

cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pitchedDevPtr, int value,
                                   struct cudaExtent extent, cudaStream_t stream)
{
    struct call c = async_call("cudaMemset3DAsync", rt_ptsz(stream), __builtin_return_address(0));
    return fill_box(pitchedDevPtr, value, extent, &c);
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                 cudaStream_t stream)
{
    struct call c = async_call("cudaMemcpyAsync", rt_ptsz(stream), __builtin_return_address(0));
    return copy_rows(dst, count, src, count, count, 1, kind, &c);
}

cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
                                   size_t width, size_t height, enum cudaMemcpyKind kind,
                                   cudaStream_t stream)
{
    struct call c = async_call("cudaMemcpy2DAsync", rt_ptsz(stream), __builtin_return_address(0));
    return copy_rows(dst, dpitch, src, spitch, width, height, kind, &c);
}

cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    struct call c = async_call("cudaMemsetAsync", rt_ptsz(stream), __builtin_return_address(0));
    return fill_rows(devPtr, count, value, count, 1, &c);
}

cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                                   size_t height, cudaStream_t stream)
{
    struct call c = async_call("cudaMemset2DAsync", rt_ptsz(stream), __builtin_return_address(0));
    return fill_rows(devPtr, pitch, value, width, height, &c);
}

cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                         cudaStream_t stream)
{
    return cudaMallocFromPoolAsync(ptr, size, memPool, rt_ptsz(stream));
}
