/**
 * @file rt_managed.c
 * @brief The runtime stand-in: managed memory's advice and prefetches, and the range attributes
 *        that read them back (cudaMemRangeGetAttribute).
 *
 * Managed memory lives in one place both the host and every emulated GPU reach, so advice and
 * prefetches move nothing. They are remembered, as a driver remembers them per page: a sorted
 * list of spans, each with the advice given over it and the last place it was prefetched to, so
 * a program that sets read-mostly or a preferred location and asks gets its answer, for the whole
 * range or for part of it (an attribute the range does not have throughout answers "none", as
 * CUDA answers it).
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/** A span of managed memory [lo, hi) and what was said of it. */
struct span {
    uintptr_t lo, hi;
    int read_mostly;
    struct cudaMemLocation preferred, prefetched; /* type cudaMemLocationTypeInvalid: none */
    uint64_t accessed_by;                         /* bit d: device d; bit 63: the host */
};

static struct {
    struct span *s;
    size_t n, cap;
} spans;

enum { HOST_BIT = 63 };

/* Make a span boundary at @p at (splitting the span that holds it). */
static void cut(uintptr_t at)
{
    for (size_t i = 0; i < spans.n; i++) {
        struct span *s = &spans.s[i];
        if (s->lo >= at || s->hi <= at)
            continue;
        if (spans.n == spans.cap) {
            spans.cap = spans.cap ? 2 * spans.cap : 16;
            spans.s = emu_realloc(spans.s, spans.cap * sizeof *spans.s);
            s = &spans.s[i];
        }
        memmove(s + 1, s, (spans.n - i) * sizeof *s);
        spans.n++;
        s->hi = at;
        s[1].lo = at;
        return;
    }
}

/* Add a span [lo, hi) with nothing said of it, in order (no existing span overlaps it). */
static void add(uintptr_t lo, uintptr_t hi)
{
    if (spans.n == spans.cap) {
        spans.cap = spans.cap ? 2 * spans.cap : 16;
        spans.s = emu_realloc(spans.s, spans.cap * sizeof *spans.s);
    }
    size_t i = 0;
    while (i < spans.n && spans.s[i].lo < lo)
        i++;
    memmove(&spans.s[i + 1], &spans.s[i], (spans.n - i) * sizeof *spans.s);
    spans.n++;
    spans.s[i] = (struct span){.lo = lo, .hi = hi};
}

/* The spans exactly covering [lo, hi), made where there were none; their first index into
 * *@p first and their count returned. */
static size_t cover(uintptr_t lo, uintptr_t hi, size_t *first)
{
    cut(lo);
    cut(hi);
    for (uintptr_t at = lo; at < hi;) {
        size_t i = 0;
        while (i < spans.n && spans.s[i].hi <= at)
            i++;
        uintptr_t next = i < spans.n && spans.s[i].lo < hi ? spans.s[i].lo : hi;
        if (next > at)
            add(at, next);
        at = i < spans.n && spans.s[i].lo <= at ? spans.s[i].hi : next;
    }
    size_t i = 0, k = 0;
    while (i < spans.n && spans.s[i].hi <= lo)
        i++;
    *first = i;
    while (i + k < spans.n && spans.s[i + k].lo < hi)
        k++;
    return k;
}

/* The bit of accessed_by for location @p l. */
static uint64_t bit_of(struct cudaMemLocation l)
{
    return l.type == cudaMemLocationTypeDevice && l.id >= 0 && l.id < HOST_BIT
               ? (uint64_t)1 << l.id
               : (uint64_t)1 << HOST_BIT;
}

/* Advice @p advice for location @p l over span @p s. */
static void advise(struct span *s, enum cudaMemoryAdvise advice, struct cudaMemLocation l)
{
    switch (advice) {
    case cudaMemAdviseSetReadMostly:
    case cudaMemAdviseUnsetReadMostly:
        s->read_mostly = advice == cudaMemAdviseSetReadMostly;
        break;
    case cudaMemAdviseSetPreferredLocation:
        s->preferred = l;
        break;
    case cudaMemAdviseUnsetPreferredLocation:
        s->preferred = (struct cudaMemLocation){0};
        break;
    case cudaMemAdviseSetAccessedBy:
        s->accessed_by |= bit_of(l);
        break;
    default:
        s->accessed_by &= ~bit_of(l);
        break;
    }
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location)
{
    if (!devPtr || !count || advice < cudaMemAdviseSetReadMostly ||
        advice > cudaMemAdviseUnsetAccessedBy)
        return rt_error(cudaErrorInvalidValue);
    size_t first, n;
    rt_lock();
    n = cover((uintptr_t)devPtr, (uintptr_t)devPtr + count, &first);
    for (size_t i = first; i < first + n; i++)
        advise(&spans.s[i], advice, location);
    rt_unlock();
    return cudaSuccess;
}

/* Prefetches move nothing: they take effect in stream order only as what the range answers. */
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream)
{
    (void)flags, (void)stream;
    if (!devPtr || !count)
        return rt_error(cudaErrorInvalidValue);
    size_t first, n;
    rt_lock();
    n = cover((uintptr_t)devPtr, (uintptr_t)devPtr + count, &first);
    for (size_t i = first; i < first + n; i++)
        spans.s[i].prefetched = location;
    rt_unlock();
    return cudaSuccess;
}

cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
                                      struct cudaMemLocation location, unsigned int flags,
                                      cudaStream_t stream)
{
    return cudaMemPrefetchAsync(devPtr, count, location, flags, rt_ptsz(stream));
}

void rt_managed_forget(const void *p, size_t size)
{
    size_t first, n = cover((uintptr_t)p, (uintptr_t)p + size, &first);
    memmove(&spans.s[first], &spans.s[first + n], (spans.n - first - n) * sizeof *spans.s);
    spans.n -= n;
}

/* --- range attributes ---------------------------------------------------------------------- */

/* What every span of [lo, hi) says, where spans without advice count as saying nothing. */
struct said {
    int read_mostly, preferred_same, prefetched_same;
    struct cudaMemLocation preferred, prefetched;
    uint64_t accessed_by;
};

static struct said range_said(uintptr_t lo, uintptr_t hi)
{
    size_t first, n = cover(lo, hi, &first);
    struct said r = {1, 1, 1, spans.s[first].preferred, spans.s[first].prefetched, ~0ull};
    for (size_t i = first; i < first + n; i++) {
        const struct span *s = &spans.s[i];
        r.read_mostly &= s->read_mostly;
        r.preferred_same &= !memcmp(&s->preferred, &r.preferred, sizeof r.preferred);
        r.prefetched_same &= !memcmp(&s->prefetched, &r.prefetched, sizeof r.prefetched);
        r.accessed_by &= s->accessed_by;
    }
    return r;
}

/* A location as CUDA's device-number attributes give it: a device, cudaCpuDeviceId for the
 * host, cudaInvalidDeviceId for none or for a range whose parts differ. */
static int device_number(struct cudaMemLocation l, int same)
{
    if (!same || l.type == cudaMemLocationTypeInvalid)
        return cudaInvalidDeviceId;
    return l.type == cudaMemLocationTypeDevice ? l.id : cudaCpuDeviceId;
}

/* Attribute @p a of what @p r says, into @p data (@p size bytes). */
static cudaError_t answer(const struct said *r, enum cudaMemRangeAttribute a, void *data,
                          size_t size)
{
    int *out = data;
    size_t words = size / sizeof *out;
    if (!words || (a != cudaMemRangeAttributeAccessedBy && size != sizeof *out))
        return cudaErrorInvalidValue;
    struct cudaMemLocation pref = r->preferred_same ? r->preferred : (struct cudaMemLocation){0};
    struct cudaMemLocation pre = r->prefetched_same ? r->prefetched : (struct cudaMemLocation){0};
    switch (a) {
    case cudaMemRangeAttributeReadMostly:
        *out = r->read_mostly;
        return cudaSuccess;
    case cudaMemRangeAttributePreferredLocation:
        *out = device_number(r->preferred, r->preferred_same);
        return cudaSuccess;
    case cudaMemRangeAttributeLastPrefetchLocation:
        *out = device_number(r->prefetched, r->prefetched_same);
        return cudaSuccess;
    case cudaMemRangeAttributePreferredLocationType:
    case cudaMemRangeAttributeLastPrefetchLocationType:
        *out = (int)(a == cudaMemRangeAttributePreferredLocationType ? pref : pre).type;
        return cudaSuccess;
    case cudaMemRangeAttributePreferredLocationId:
    case cudaMemRangeAttributeLastPrefetchLocationId:
        *out = (a == cudaMemRangeAttributePreferredLocationId ? pref : pre).id;
        return cudaSuccess;
    case cudaMemRangeAttributeAccessedBy:
        for (size_t k = 0, d = 0; k < words; k++) {
            while (d <= HOST_BIT && !(r->accessed_by >> d & 1))
                d++;
            out[k] = d > HOST_BIT ? cudaInvalidDeviceId : d == HOST_BIT ? cudaCpuDeviceId : (int)d;
            d++;
        }
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

/* Is [@p p, @p p + @p count) inside one cudaMallocManaged block? */
static int managed_range(const void *p, size_t count)
{
    for (const struct rt_host_block *m = rt.managed; m; m = m->next)
        if ((const char *)p >= (const char *)m->ptr &&
            (const char *)p + count <= (const char *)m->ptr + m->size)
            return 1;
    return 0;
}

cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize,
                                     enum cudaMemRangeAttribute attribute, const void *devPtr,
                                     size_t count)
{
    if (!data || !devPtr || !count)
        return rt_error(cudaErrorInvalidValue);
    rt_lock();
    cudaError_t err = managed_range(devPtr, count) ? cudaSuccess : cudaErrorInvalidValue;
    struct said r = {0};
    if (err == cudaSuccess)
        r = range_said((uintptr_t)devPtr, (uintptr_t)devPtr + count);
    else
        emu_say("cudaMemRangeGetAttribute: %zu bytes at %p are not inside one cudaMallocManaged "
                "allocation (cudaErrorInvalidValue)",
                count, devPtr);
    if (err == cudaSuccess)
        err = answer(&r, attribute, data, dataSize);
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
                                      enum cudaMemRangeAttribute *attributes, size_t numAttributes,
                                      const void *devPtr, size_t count)
{
    cudaError_t err = cudaSuccess;
    for (size_t i = 0; err == cudaSuccess && i < numAttributes; i++)
        err = cudaMemRangeGetAttribute(data[i], dataSizes[i], attributes[i], devPtr, count);
    return err;
}
