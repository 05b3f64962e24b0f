/**
 * @file drv_vmm.c
 * @brief The driver stand-in: virtual memory management (cuMemAddressReserve, cuMemCreate,
 *        cuMemMap, cuMemSetAccess and the calls that undo them).
 *
 * Design: device memory is one memfd seen at base + offset (common/mem.h); the span's second
 * half is address space cudaMalloc never uses (runtime/rt_vmm.c). A reservation is a range of
 * it, kept here. A handle is an ordinary device block (so cuMemGetInfo and the leak check see
 * it). cuMemMap maps the block's pages of the memfd at the reserved address in this process
 * and in the device server, so both see the same bytes there. cuMemSetAccess enters each run
 * of contiguous accessible mappings in both allocation tables as one allocation (a view), so a
 * kernel or copy may cross handles mapped side by side, and a mapping without access, like an
 * unmapped address, is the illegal address it is on a GPU. Every emulated GPU reaches the one
 * memory: access given to any device opens a mapping to all; read-only access is recorded
 * (cuMemGetAccess) but does not stop writes.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "drv.h"
#include "rt_driver.h"

/** Minimum and recommended granularity, as NVIDIA's GPUs report for device memory. */
#define GRANULARITY ((uint64_t)2 << 20)
/** Devices whose access flags a mapping records. */
enum { MAX_DEVICES = 16 };

/** A physical allocation: cuMemCreate's handle. */
struct handle {
    CUmemGenericAllocationHandle id;
    uint64_t block; /**< the device block holding its bytes */
    CUmemAllocationProp prop;
    size_t size;
    int refs; /**< cuMemCreate and each retain, less each release: 0 is no handle any more */
    int maps; /**< its mappings: the block is freed when both counts reach 0 */
    struct handle *next;
};

/** A reserved range, or a run of mappings entered in the tables. */
struct range {
    uint64_t addr, size;
};

/** A mapping: [addr, addr + size) shows bytes of @p h. */
struct mapping {
    uint64_t addr, size;
    struct handle *h;
    unsigned char access[MAX_DEVICES]; /**< CUmemAccess_flags per device */
};

/** An array of @p T and its count, grown by emu_realloc. */
#define ARRAY(T)                                                                                   \
    struct {                                                                                       \
        T *at;                                                                                     \
        size_t n;                                                                                  \
    }

static struct {
    pthread_mutex_t lock;
    struct handle *handles;
    CUmemGenericAllocationHandle last_id;
    ARRAY(struct range) reserved;  /**< sorted by address */
    ARRAY(struct mapping) mapped;  /**< sorted by address */
    ARRAY(struct range) published; /**< the runs entered in the allocation tables */
} vmm = {.lock = PTHREAD_MUTEX_INITIALIZER};

#define DPTR(p) ((void *)(uintptr_t)(p))

static uint64_t round_up(uint64_t x, uint64_t to)
{
    return (x + to - 1) / to * to;
}

/* Open a gap of one element at @p i of the array at *@p at (*@p n elements of @p size bytes). */
static void *open_at(void **at, size_t *n, size_t size, size_t i)
{
    *at = emu_realloc(*at, (*n + 1) * size);
    memmove((char *)*at + (i + 1) * size, (char *)*at + i * size, (*n - i) * size);
    (*n)++;
    return (char *)*at + i * size;
}

/* Close element @p i of the array at @p at (*@p n elements of @p size bytes). */
static void close_at(void *at, size_t *n, size_t size, size_t i)
{
    memmove((char *)at + i * size, (char *)at + (i + 1) * size, (*n - i - 1) * size);
    (*n)--;
}

/* The live handle @p id (refs > 0), or NULL after one line naming @p who. */
static struct handle *handle_of(CUmemGenericAllocationHandle id, const char *who)
{
    for (struct handle *h = vmm.handles; h; h = h->next)
        if (h->id == id && h->refs > 0)
            return h;
    emu_say("%s: 0x%llx is not a live allocation handle (cuMemCreate's, not yet released) "
            "(CUDA_ERROR_INVALID_VALUE)",
            who, (unsigned long long)id);
    return NULL;
}

/* Free @p h's block once nothing holds it: no reference and no mapping. */
static void forget_if_unused(struct handle *h)
{
    if (h->refs > 0 || h->maps > 0)
        return;
    for (struct handle **at = &vmm.handles; *at; at = &(*at)->next)
        if (*at == h) {
            *at = h->next;
            break;
        }
    cudaFree(DPTR(h->block));
    free(h);
}

/* Index of the mapping holding @p addr, or -1. */
static long mapping_at(uint64_t addr)
{
    for (size_t i = 0; i < vmm.mapped.n; i++)
        if (addr - vmm.mapped.at[i].addr < vmm.mapped.at[i].size)
            return (long)i;
    return -1;
}

/* Whether [addr, addr + size) is exactly mappings *first .. *last, side by side. */
static int whole_mappings(uint64_t addr, uint64_t size, size_t *first, size_t *last)
{
    long i = mapping_at(addr);
    if (i < 0 || vmm.mapped.at[i].addr != addr || !size)
        return 0;
    uint64_t end = addr;
    size_t k = (size_t)i;
    for (; k < vmm.mapped.n && vmm.mapped.at[k].addr == end && end < addr + size; k++)
        end += vmm.mapped.at[k].size;
    *first = (size_t)i;
    *last = k - 1;
    return end == addr + size;
}

static int accessible(const struct mapping *m)
{
    for (int d = 0; d < MAX_DEVICES; d++)
        if (m->access[d])
            return 1;
    return 0;
}

static int has_range(const struct range *r, size_t n, struct range want)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].addr == want.addr && r[i].size == want.size)
            return 1;
    return 0;
}

/* The device a published run belongs to: its first mapping's. */
static int device_at(uint64_t addr)
{
    long i = mapping_at(addr);
    return i < 0 ? 0 : vmm.mapped.at[i].h->prop.location.id;
}

/*
 * Bring the allocation tables to the mappings: each run of contiguous accessible mappings is
 * one allocation there. Runs that changed are taken out, then the new ones entered.
 */
static CUresult republish(void)
{
    struct range *want = emu_calloc(vmm.mapped.n + 1, sizeof *want);
    size_t nwant = 0;
    for (size_t i = 0; i < vmm.mapped.n; i++) {
        const struct mapping *m = &vmm.mapped.at[i];
        if (!accessible(m))
            continue;
        if (nwant && want[nwant - 1].addr + want[nwant - 1].size == m->addr)
            want[nwant - 1].size += m->size;
        else
            want[nwant++] = (struct range){m->addr, m->size};
    }
    int err = 0;
    for (size_t i = vmm.published.n; i-- > 0;)
        if (!has_range(want, nwant, vmm.published.at[i])) {
            err = err ? err
                      : course_emu_vmm_publish(vmm.published.at[i].addr, vmm.published.at[i].size,
                                               0, 0);
            close_at(vmm.published.at, &vmm.published.n, sizeof *want, i);
        }
    for (size_t i = 0; i < nwant && !err; i++)
        if (!has_range(vmm.published.at, vmm.published.n, want[i]) &&
            !(err = course_emu_vmm_publish(want[i].addr, want[i].size, device_at(want[i].addr), 1)))
            *(struct range *)open_at((void **)&vmm.published.at, &vmm.published.n, sizeof *want,
                                     vmm.published.n) = want[i];
    free(want);
    return drv_result((cudaError_t)err);
}

/* CUDA_SUCCESS when @p p describes what the emulator allocates: pinned device memory on an
 * emulated device; else the error after one line naming @p who. */
static CUresult check_prop(const CUmemAllocationProp *p, const char *who)
{
    if (p->type != CU_MEM_ALLOCATION_TYPE_PINNED) {
        emu_say("%s: allocation type %d is not CU_MEM_ALLOCATION_TYPE_PINNED "
                "(CUDA_ERROR_INVALID_VALUE)",
                who, (int)p->type);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (p->location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
        emu_say("%s: location type %d: only device memory (CU_MEM_LOCATION_TYPE_DEVICE) is "
                "emulated (CUDA_ERROR_NOT_SUPPORTED)",
                who, (int)p->location.type);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    return drv_device_ok(p->location.id, who);
}

/* A line naming @p who and @p why; CUDA_ERROR_INVALID_VALUE. */
static CUresult invalid(const char *who, const char *why, uint64_t addr, uint64_t size)
{
    emu_say("%s: %s (%llu bytes at 0x%llx) (CUDA_ERROR_INVALID_VALUE)", who, why,
            (unsigned long long)size, (unsigned long long)addr);
    return CUDA_ERROR_INVALID_VALUE;
}

/* --- granularity, physical allocations ----------------------------------------------------- */

CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                       CUmemAllocationGranularity_flags option)
{
    CUresult r = drv_args(drv_initialised("cuMemGetAllocationGranularity"),
                          !granularity || !prop ||
                              (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
                               option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    if (r == CUDA_SUCCESS)
        r = check_prop(prop, "cuMemGetAllocationGranularity");
    if (r == CUDA_SUCCESS)
        *granularity = GRANULARITY;
    return r;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                     const CUmemAllocationProp *prop, unsigned long long flags)
{
    CUresult r = drv_args(drv_ready("cuMemCreate"), !handle || !prop || flags);
    if (r == CUDA_SUCCESS)
        r = check_prop(prop, "cuMemCreate");
    if (r == CUDA_SUCCESS && (!size || size % GRANULARITY))
        return invalid("cuMemCreate", "the size is not a multiple of the granularity (2 MiB)", 0,
                       size);
    void *block = NULL;
    if (r == CUDA_SUCCESS)
        r = drv_result(
            (cudaError_t)course_emu_drv_malloc(&block, size, __builtin_return_address(0)));
    if (r != CUDA_SUCCESS)
        return r;
    struct handle *h = emu_calloc(1, sizeof *h);
    pthread_mutex_lock(&vmm.lock);
    *h = (struct handle){++vmm.last_id, (uint64_t)(uintptr_t)block, *prop, size, 1, 0, vmm.handles};
    h->prop.allocFlags.compressionType = 0; /* compression is not emulated: none was given */
    vmm.handles = h;
    *handle = h->id;
    pthread_mutex_unlock(&vmm.lock);
    return CUDA_SUCCESS;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    CUresult r = drv_ready("cuMemRelease");
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&vmm.lock);
    struct handle *h = handle_of(handle, "cuMemRelease");
    if (h) {
        h->refs--;
        forget_if_unused(h);
    }
    pthread_mutex_unlock(&vmm.lock);
    return h ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                CUmemGenericAllocationHandle handle)
{
    CUresult r = drv_args(drv_ready("cuMemGetAllocationPropertiesFromHandle"), !prop);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&vmm.lock);
    struct handle *h = handle_of(handle, "cuMemGetAllocationPropertiesFromHandle");
    if (h)
        *prop = h->prop;
    pthread_mutex_unlock(&vmm.lock);
    return h ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    CUresult r = drv_args(drv_ready("cuMemRetainAllocationHandle"), !handle);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&vmm.lock);
    long i = mapping_at((uint64_t)(uintptr_t)addr);
    if (i >= 0) {
        vmm.mapped.at[i].h->refs++;
        *handle = vmm.mapped.at[i].h->id;
    }
    pthread_mutex_unlock(&vmm.lock);
    return i >= 0 ? CUDA_SUCCESS
                  : invalid("cuMemRetainAllocationHandle", "the address is not mapped",
                            (uint64_t)(uintptr_t)addr, 0);
}

/* --- reservations ----------------------------------------------------------------------- */

/* Whether [addr, addr + size) overlaps no reservation. */
static int unreserved(uint64_t addr, uint64_t size)
{
    for (size_t i = 0; i < vmm.reserved.n; i++)
        if (addr < vmm.reserved.at[i].addr + vmm.reserved.at[i].size &&
            vmm.reserved.at[i].addr < addr + size)
            return 0;
    return 1;
}

/* Where a reservation of @p size bytes aligned to @p align goes in [lo, hi): the hint when it
 * is free, else the first place that leaves a granule unreserved on either side (so running
 * off one reservation lands in none); 0 when none is left. */
static uint64_t place(uint64_t size, uint64_t align, uint64_t hint, uint64_t lo, uint64_t hi)
{
    if (hint && hint % align == 0 && hint >= lo && hint <= hi - size && unreserved(hint, size))
        return hint;
    uint64_t at = round_up(lo + GRANULARITY, align);
    for (size_t i = 0; i < vmm.reserved.n; i++) {
        const struct range *r = &vmm.reserved.at[i];
        if (at + size + GRANULARITY <= r->addr)
            break;
        if (r->addr + r->size + GRANULARITY > at)
            at = round_up(r->addr + r->size + GRANULARITY, align);
    }
    return at + size <= hi ? at : 0;
}

CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long flags)
{
    CUresult r =
        drv_args(drv_ready("cuMemAddressReserve"), !ptr || flags || (alignment & (alignment - 1)));
    if (r == CUDA_SUCCESS && (!size || size % 4096 || addr % 4096))
        return invalid("cuMemAddressReserve", "the size and address must be whole pages", addr,
                       size);
    uint64_t lo, hi;
    if (r == CUDA_SUCCESS)
        r = drv_result((cudaError_t)course_emu_vmm_area(&lo, &hi));
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&vmm.lock);
    uint64_t align = alignment > GRANULARITY ? alignment : GRANULARITY;
    uint64_t at = size <= hi - lo ? place(size, align, addr, lo, hi) : 0;
    size_t i = 0;
    while (at && i < vmm.reserved.n && vmm.reserved.at[i].addr < at)
        i++;
    if (at)
        *(struct range *)open_at((void **)&vmm.reserved.at, &vmm.reserved.n, sizeof(struct range),
                                 i) = (struct range){at, size};
    pthread_mutex_unlock(&vmm.lock);
    if (!at) {
        emu_say("cuMemAddressReserve: no room for %zu bytes of address space "
                "(CUDA_ERROR_OUT_OF_MEMORY)",
                size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *ptr = (CUdeviceptr)at;
    return CUDA_SUCCESS;
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    CUresult r = drv_ready("cuMemAddressFree");
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&vmm.lock);
    size_t i = 0;
    while (i < vmm.reserved.n && vmm.reserved.at[i].addr != ptr)
        i++;
    int found = i < vmm.reserved.n && vmm.reserved.at[i].size == size, in_use = 0;
    for (size_t k = 0; found && k < vmm.mapped.n; k++)
        in_use |= vmm.mapped.at[k].addr - ptr < size;
    if (found && !in_use)
        close_at(vmm.reserved.at, &vmm.reserved.n, sizeof(struct range), i);
    pthread_mutex_unlock(&vmm.lock);
    if (!found)
        return invalid("cuMemAddressFree", "not a reservation cuMemAddressReserve made", ptr, size);
    if (in_use)
        return invalid("cuMemAddressFree", "the reservation is still mapped (cuMemUnmap first)",
                       ptr, size);
    return CUDA_SUCCESS;
}

/* --- mappings and access ------------------------------------------------------------------ */

/* The reason [ptr, ptr + size) at @p offset of @p h cannot be mapped, or NULL. */
static const char *unmappable(uint64_t ptr, uint64_t size, uint64_t offset, const struct handle *h)
{
    if (!size || ptr % GRANULARITY || size % GRANULARITY || offset % GRANULARITY)
        return "the address, size and offset must be multiples of the granularity (2 MiB)";
    if (offset > h->size || size > h->size - offset)
        return "the range runs past the end of the allocation";
    size_t i = 0;
    while (i < vmm.reserved.n && vmm.reserved.at[i].addr + vmm.reserved.at[i].size <= ptr)
        i++;
    if (i == vmm.reserved.n || vmm.reserved.at[i].addr > ptr ||
        size > vmm.reserved.at[i].addr + vmm.reserved.at[i].size - ptr)
        return "the range lies outside every reservation (cuMemAddressReserve)";
    for (size_t k = 0; k < vmm.mapped.n; k++)
        if (ptr < vmm.mapped.at[k].addr + vmm.mapped.at[k].size &&
            vmm.mapped.at[k].addr < ptr + size)
            return "the range is mapped already (cuMemUnmap it first)";
    return NULL;
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags)
{
    CUresult r = drv_args(drv_ready("cuMemMap"), flags != 0);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&vmm.lock);
    struct handle *h = handle_of(handle, "cuMemMap");
    const char *why = h ? unmappable(ptr, size, offset, h) : NULL;
    r = !h    ? CUDA_ERROR_INVALID_VALUE
        : why ? invalid("cuMemMap", why, ptr, size)
              : drv_result((cudaError_t)course_emu_vmm_map(ptr, size, h->block + offset));
    if (r == CUDA_SUCCESS) {
        size_t i = 0;
        while (i < vmm.mapped.n && vmm.mapped.at[i].addr < ptr)
            i++;
        struct mapping *m = open_at((void **)&vmm.mapped.at, &vmm.mapped.n, sizeof *m, i);
        *m = (struct mapping){.addr = ptr, .size = size, .h = h};
        h->maps++;
    }
    pthread_mutex_unlock(&vmm.lock);
    return r;
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    CUresult r = drv_ready("cuMemUnmap");
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&vmm.lock);
    size_t first = 0, last = 0;
    int whole = whole_mappings(ptr, size, &first, &last);
    struct mapping *gone = NULL;
    size_t n = whole ? last - first + 1 : 0;
    if (whole) { /* out of the tables first: no kernel may reach the range any more */
        gone = emu_malloc(n * sizeof *gone);
        memcpy(gone, &vmm.mapped.at[first], n * sizeof *gone);
        for (size_t k = 0; k < n; k++)
            close_at(vmm.mapped.at, &vmm.mapped.n, sizeof *gone, first);
        r = republish();
    }
    for (size_t k = 0; k < n; k++) {
        CUresult u = drv_result((cudaError_t)course_emu_vmm_unmap(gone[k].addr, gone[k].size));
        r = r != CUDA_SUCCESS ? r : u;
        gone[k].h->maps--;
        forget_if_unused(gone[k].h);
    }
    free(gone);
    pthread_mutex_unlock(&vmm.lock);
    return whole ? r
                 : invalid("cuMemUnmap", "the range is not whole mappings side by side", ptr, size);
}

/* CUDA_SUCCESS when @p d names an emulated device and a flag CUDA defines. */
static CUresult check_access(const CUmemAccessDesc *d)
{
    if (d->location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
        emu_say("cuMemSetAccess: location type %d: only devices' access is emulated "
                "(CUDA_ERROR_INVALID_VALUE)",
                (int)d->location.type);
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = drv_device_ok(d->location.id, "cuMemSetAccess");
    if (r == CUDA_SUCCESS && d->location.id >= MAX_DEVICES)
        return invalid("cuMemSetAccess", "the device is beyond the 16 emulated", 0, 0);
    if (r == CUDA_SUCCESS && d->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
        d->flags != CU_MEM_ACCESS_FLAGS_PROT_READ && d->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
        return invalid("cuMemSetAccess", "the access flags are not a CUmemAccess_flags value", 0,
                       0);
    return r;
}

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    CUresult r = drv_args(drv_ready("cuMemSetAccess"), !desc || !count);
    for (size_t k = 0; k < count && r == CUDA_SUCCESS; k++)
        r = check_access(&desc[k]);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&vmm.lock);
    size_t first = 0, last = 0;
    int whole = whole_mappings(ptr, size, &first, &last);
    for (size_t i = first; whole && i <= last; i++)
        for (size_t k = 0; k < count; k++)
            vmm.mapped.at[i].access[desc[k].location.id] = (unsigned char)desc[k].flags;
    r = whole ? republish() : CUDA_SUCCESS;
    pthread_mutex_unlock(&vmm.lock);
    return whole ? r
                 : invalid("cuMemSetAccess", "the range is not whole mappings side by side", ptr,
                           size);
}

CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr)
{
    CUresult r = drv_args(drv_ready("cuMemGetAccess"), !flags || !location);
    if (r == CUDA_SUCCESS && location->type != CU_MEM_LOCATION_TYPE_DEVICE)
        return invalid("cuMemGetAccess", "only devices' access is emulated", ptr, 0);
    if (r == CUDA_SUCCESS)
        r = drv_device_ok(location->id, "cuMemGetAccess");
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&vmm.lock);
    long i = mapping_at(ptr);
    if (i >= 0)
        *flags = location->id < MAX_DEVICES ? vmm.mapped.at[i].access[location->id] : 0;
    pthread_mutex_unlock(&vmm.lock);
    return i >= 0 ? CUDA_SUCCESS : invalid("cuMemGetAccess", "the address is not mapped", ptr, 0);
}
