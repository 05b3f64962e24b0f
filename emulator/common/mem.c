/**
 * @file mem.c
 * @brief The emulated device memory (see mem.h).
 */
#define _GNU_SOURCE
#include "mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "alloc.h"

/* Blocks start on a page, so that freeing one can give its pages back, and
 * sit GAP bytes apart, so that running a little past the end of one lands in
 * no block at all and is reported rather than read from a neighbour. */
enum { PAGE = 4096 };
#define GAP ((uint64_t)1 << 20)

static uint64_t round_up(uint64_t x, uint64_t to)
{
    return (x + to - 1) / to * to;
}

static void reset(struct emu_mem *m)
{
    memset(m, 0, sizeof *m);
    m->fd = -1;
}

int mem_create(struct emu_mem *m, uint64_t span, uint64_t capacity, char *err, size_t err_size)
{
    reset(m);
    m->fd = memfd_create("course-emu-device-memory", MFD_CLOEXEC);
    if (m->fd < 0 || ftruncate(m->fd, (off_t)span) != 0) {
        snprintf(err, err_size, "cannot create the device memory (%s)", strerror(errno));
        mem_destroy(m);
        return -1;
    }
    m->reserve = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m->reserve == MAP_FAILED) {
        m->reserve = NULL;
        snprintf(err, err_size, "cannot reserve %llu bytes of address space (%s)",
                 (unsigned long long)span, strerror(errno));
        mem_destroy(m);
        return -1;
    }
    if (mem_attach(m, m->fd, (uint64_t)(uintptr_t)m->reserve, span, capacity, err, err_size))
        return -1;
    return 0;
}

int mem_attach(struct emu_mem *m, int fd, uint64_t base, uint64_t span, uint64_t capacity,
               char *err, size_t err_size)
{
    if (!m->reserve)
        reset(m);
    m->fd = fd;
    m->base = base;
    m->span = span;
    m->capacity = capacity;
    void *alias = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (alias == MAP_FAILED) {
        snprintf(err, err_size, "cannot map the device memory (%s)", strerror(errno));
        mem_destroy(m);
        return -1;
    }
    m->alias = alias;
    return 0;
}

int mem_map(struct emu_mem *m, uint64_t addr, uint64_t bytes, int fd, uint64_t offset)
{
    if (fd < 0) {
        fd = m->fd;
        offset = addr - m->base;
    }
    void *at = mem_host(m, addr);
    void *got = mmap(at, round_up(bytes, PAGE), PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, (off_t)offset);
    return got == at ? 0 : -1;
}

/* ---- the record of who wrote each byte: a state byte per byte of a block, and a value ---- */

void mem_track_writes(struct emu_mem *m, int values)
{
    m->track = values ? 2 : 1;
}

/* Give @p b its record when tracking (calloc'd: the kernel hands zero pages out lazily). */
static void record_new(const struct emu_mem *m, struct mem_block *b)
{
    if (!m->track)
        return;
    b->state = emu_calloc(b->size, 1);
    b->shadow = m->track == 2 ? emu_calloc(b->size, 1) : NULL;
}

static void record_free(struct mem_block *b)
{
    free(b->state);
    free(b->shadow);
    b->state = b->shadow = NULL;
}

/* The block holding [addr, addr + bytes) when it has a record, and the offset into it. */
static const struct mem_block *recorded(struct emu_mem *m, uint64_t addr, uint64_t bytes,
                                        uint64_t *off)
{
    const struct mem_block *b = m->track ? mem_find(m, addr, bytes) : NULL;
    if (!b || !b->state)
        return NULL;
    *off = addr - b->addr;
    return b;
}

/* Bytes [o, o + bytes) of @p b were written by @p who (a writer, with MEM_DERIVED or not); 1
 * when one of them is a guard byte. */
static int set_writer(const struct mem_block *b, uint64_t o, uint64_t bytes, unsigned who)
{
    unsigned guarded = 0;
    for (uint64_t i = o; i < o + bytes; i++) {
        guarded |= b->state[i];
        b->state[i] = (uint8_t)((b->state[i] & MEM_GUARDED) | who);
    }
    return (guarded & MEM_GUARDED) != 0;
}

int mem_mark_written(struct emu_mem *m, uint64_t addr, uint64_t bytes, enum mem_writer who)
{
    uint64_t o;
    const struct mem_block *b = recorded(m, addr, bytes, &o);
    if (!b)
        return 0;
    if (b->shadow && (who & MEM_WRITER) != MEM_KERNEL)
        memcpy(b->shadow + o, mem_host(m, addr), bytes);
    return set_writer(b, o, bytes, who);
}

void mem_keep_values(struct emu_mem *m, uint64_t addr, uint64_t bytes)
{
    uint64_t o;
    const struct mem_block *b = recorded(m, addr, bytes, &o);
    if (b && b->shadow)
        memcpy(b->shadow + o, mem_host(m, addr), bytes);
}

uint8_t *mem_shadow(struct emu_mem *m, uint64_t addr, uint64_t bytes)
{
    uint64_t o;
    const struct mem_block *b = recorded(m, addr, bytes, &o);
    return b && b->shadow ? b->shadow + o : NULL;
}

void mem_mark_filled(struct emu_mem *m, uint64_t addr, uint64_t bytes, uint8_t value)
{
    uint64_t o;
    struct mem_block *b = (struct mem_block *)recorded(m, addr, bytes, &o);
    if (!b)
        return;
    int constant = value == 0 || ++b->fills <= MEM_FILL_CONSTANTS;
    set_writer(b, o, bytes, constant ? MEM_FILL : MEM_HOST);
    if (b->shadow)
        memset(b->shadow + o, value, bytes);
}

int64_t mem_first_derived(struct emu_mem *m, uint64_t addr, uint64_t bytes)
{
    uint64_t o;
    const struct mem_block *b = recorded(m, addr, bytes, &o);
    for (uint64_t i = 0; b && i < bytes; i++)
        if (b->state[o + i] & MEM_DERIVED)
            return (int64_t)i;
    return -1;
}

void mem_mark_copied(struct emu_mem *m, uint64_t dst, uint64_t src, uint64_t bytes)
{
    uint64_t od, os;
    const struct mem_block *d = recorded(m, dst, bytes, &od);
    const struct mem_block *s = recorded(m, src, bytes, &os);
    if (!d)
        return;
    if (!s) { /* a source without a record: the copy counts as the host's */
        mem_mark_written(m, dst, bytes, MEM_HOST);
        return;
    }
    for (uint64_t i = 0; i < bytes; i++)
        d->state[od + i] = (uint8_t)((d->state[od + i] & MEM_GUARDED) |
                                     (s->state[os + i] & (MEM_WRITER | MEM_DERIVED)));
    if (d->shadow && s->shadow)
        memmove(d->shadow + od, s->shadow + os, bytes);
}

void mem_guard(struct emu_mem *m, uint64_t addr, uint64_t bytes)
{
    uint64_t o;
    const struct mem_block *b = recorded(m, addr, bytes, &o);
    for (uint64_t i = o; b && i < o + bytes; i++)
        b->state[i] |= MEM_GUARDED;
}

void mem_new_call(struct emu_mem *m)
{
    for (size_t k = 0; k < m->nlive; k++) {
        m->live[k].fills = 0;
        for (uint64_t i = 0; m->live[k].state && i < m->live[k].size; i++)
            m->live[k].state[i] &= (uint8_t)~MEM_READ;
    }
}

/* The state of byte @p i of @p b, with MEM_CHANGED when its value is not its writer's. */
static unsigned state_of(const struct emu_mem *m, const struct mem_block *b, uint64_t i)
{
    unsigned st = b->state[i];
    if (b->shadow && (st & MEM_WRITER) != MEM_NOBODY &&
        *(const uint8_t *)mem_host(m, b->addr + i) != b->shadow[i])
        st |= MEM_CHANGED;
    return st;
}

unsigned mem_read_by_kernel(struct emu_mem *m, uint64_t addr, uint64_t bytes)
{
    uint64_t o;
    const struct mem_block *b = recorded(m, addr, bytes, &o);
    if (!b || !b->shadow)
        return 0;
    unsigned bad = 0, derived = 0;
    for (uint64_t i = o; i < o + bytes; i++) {
        unsigned st = state_of(m, b, i), who = st & MEM_WRITER;
        b->state[i] |= MEM_READ;
        derived |= st & MEM_DERIVED;
        if (!bad && (who == MEM_HOST || who == MEM_NOBODY || (st & (MEM_CHANGED | MEM_GUARDED))))
            bad = st | MEM_ANSWER;
    }
    return bad | (derived ? MEM_SAW_DERIVED : 0);
}

void mem_provenance(struct emu_mem *m, uint64_t addr, uint64_t bytes, struct mem_prov *p)
{
    *p = (struct mem_prov){0, -1, 0, -1};
    uint64_t o;
    const struct mem_block *b = recorded(m, addr, bytes, &o);
    for (uint64_t i = 0; b && i < bytes; i++) {
        unsigned st = state_of(m, b, o + i);
        unsigned who = st & (MEM_WRITER | MEM_CHANGED);
        if (who != MEM_KERNEL && who != MEM_JUDGE && p->first_other < 0) {
            p->first_other = (int64_t)i;
            p->other_state = (uint8_t)st;
        }
        p->read += (st & MEM_READ) != 0;
        if (!(st & MEM_READ) && p->first_unread < 0)
            p->first_unread = (int64_t)i;
    }
}

int64_t mem_first_unwritten(struct emu_mem *m, uint64_t addr, uint64_t bytes)
{
    uint64_t o;
    const struct mem_block *b = recorded(m, addr, bytes, &o);
    for (uint64_t i = 0; b && i < bytes; i++)
        if ((b->state[o + i] & MEM_WRITER) == MEM_NOBODY)
            return (int64_t)i;
    return -1;
}

void mem_destroy(struct emu_mem *m)
{
    for (size_t k = 0; k < m->nlive; k++)
        record_free(&m->live[k]);
    if (m->alias)
        munmap(m->alias, m->span);
    if (m->reserve)
        munmap(m->reserve, m->span);
    if (m->fd >= 0)
        close(m->fd);
    free(m->live);
    reset(m);
}

/* Index of the first live block whose address is >= @p addr. */
static size_t lower_bound(const struct emu_mem *m, uint64_t addr)
{
    size_t lo = 0, hi = m->nlive;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->live[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void insert_at(struct emu_mem *m, size_t i, struct mem_block b)
{
    if (m->nlive == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->live = emu_realloc(m->live, m->cap * sizeof *m->live);
    }
    memmove(&m->live[i + 1], &m->live[i], (m->nlive - i) * sizeof *m->live);
    m->live[i] = b;
    record_new(m, &m->live[i]);
    m->nlive++;
    m->used += b.view ? 0 : round_up(b.size, MEM_ALIGN);
    m->hint = i;
}

/* The span offset just past block @p b and the gap behind it. */
static uint64_t end_of(const struct emu_mem *m, const struct mem_block *b)
{
    return b->addr - m->base + round_up(b->size, PAGE) + GAP;
}

uint64_t mem_alloc(struct emu_mem *m, uint64_t bytes, int device)
{
    if (bytes == 0)
        bytes = 1;
    uint64_t need = round_up(bytes, PAGE), top = m->heap ? m->heap : m->span;
    if (bytes > m->capacity || m->used + round_up(bytes, MEM_ALIGN) > m->capacity ||
        need + 2 * GAP > top)
        return 0;
    /* Next fit from the cursor, wrapping to the start of the span once; a
     * block in the way moves the candidate past it and its gap. */
    for (int pass = 0; pass < 2; pass++) {
        uint64_t off = pass ? GAP : m->cursor < GAP ? GAP : m->cursor;
        while (off + need + GAP <= top) {
            size_t i = lower_bound(m, m->base + off);
            if (i > 0 && end_of(m, &m->live[i - 1]) > off) {
                off = end_of(m, &m->live[i - 1]);
            } else if (i < m->nlive && m->live[i].addr - m->base < off + need + GAP) {
                off = end_of(m, &m->live[i]);
            } else {
                insert_at(
                    m, i,
                    (struct mem_block){.addr = m->base + off, .size = bytes, .device = device});
                m->cursor = off + need + GAP;
                return m->base + off;
            }
        }
    }
    return 0;
}

/* Insert block @p b where it lies, unless it overlaps a live block or leaves the span. */
static int insert(struct emu_mem *m, struct mem_block b)
{
    if (!mem_in_span(m, b.addr) || b.size > m->span - (b.addr - m->base))
        return -1;
    size_t i = lower_bound(m, b.addr);
    if (i < m->nlive && m->live[i].addr < b.addr + b.size)
        return -1;
    if (i > 0 && m->live[i - 1].addr + m->live[i - 1].size > b.addr)
        return -1;
    insert_at(m, i, b);
    return 0;
}

int mem_insert(struct emu_mem *m, uint64_t addr, uint64_t bytes, int device)
{
    return insert(m, (struct mem_block){.addr = addr, .size = bytes ? bytes : 1, .device = device});
}

int mem_insert_view(struct emu_mem *m, uint64_t addr, uint64_t bytes, int device)
{
    return insert(m, (struct mem_block){
                         .addr = addr, .size = bytes ? bytes : 1, .device = device, .view = 1});
}

int mem_free(struct emu_mem *m, uint64_t addr)
{
    size_t i = lower_bound(m, addr);
    if (i == m->nlive || m->live[i].addr != addr)
        return -1;
    struct mem_block b = m->live[i];
    memmove(&m->live[i], &m->live[i + 1], (m->nlive - i - 1) * sizeof *m->live);
    m->nlive--;
    m->used -= b.view ? 0 : round_up(b.size, MEM_ALIGN);
    m->hint = 0;
    record_free(&b);
    m->freed[m->nfreed++ % MEM_FREED_RING] = b;
    /* Give the pages back; the range reads as zeros if it is ever handed out again. */
    if (!b.view)
        madvise(mem_host(m, addr), round_up(b.size, PAGE), MADV_REMOVE);
    return 0;
}

const struct mem_block *mem_find(struct emu_mem *m, uint64_t addr, uint64_t bytes)
{
    /* The VM's threads share the hint (the table itself does not change during a launch). */
    size_t hint = __atomic_load_n(&m->hint, __ATOMIC_RELAXED);
    if (hint < m->nlive) {
        const struct mem_block *b = &m->live[hint];
        if (addr >= b->addr && addr - b->addr <= b->size && bytes <= b->size - (addr - b->addr))
            return b;
    }
    size_t i = lower_bound(m, addr + 1);
    if (i == 0)
        return NULL;
    const struct mem_block *b = &m->live[i - 1];
    if (addr - b->addr > b->size || bytes > b->size - (addr - b->addr))
        return NULL;
    __atomic_store_n(&m->hint, i - 1, __ATOMIC_RELAXED);
    return b;
}

const struct mem_block *mem_find_freed(const struct emu_mem *m, uint64_t addr)
{
    size_t n = m->nfreed < MEM_FREED_RING ? m->nfreed : MEM_FREED_RING;
    for (size_t k = 1; k <= n; k++) {
        const struct mem_block *b = &m->freed[(m->nfreed - k) % MEM_FREED_RING];
        if (addr >= b->addr && addr - b->addr < round_up(b->size, PAGE))
            return b;
    }
    return NULL;
}
