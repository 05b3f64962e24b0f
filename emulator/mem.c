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

/* ---- initcheck's record of written bytes: a bitmap per 4 KiB page, pages in a hash ---- */

enum { INIT_PAGE = 4096, INIT_BUCKETS = 4096 };

struct init_page {
    uint64_t page; /* address / INIT_PAGE */
    uint8_t bits[INIT_PAGE / 8];
    struct init_page *next;
};

struct mem_init {
    struct init_page *bucket[INIT_BUCKETS];
};

void mem_track_writes(struct emu_mem *m)
{
    if (!m->init && !(m->init = calloc(1, sizeof *m->init))) {
        fprintf(stderr, "emulator: out of host memory for initcheck\n");
        abort();
    }
}

static struct init_page *init_page(const struct emu_mem *m, uint64_t page, int create)
{
    struct init_page **head = &m->init->bucket[page % INIT_BUCKETS];
    for (struct init_page *p = *head; p; p = p->next)
        if (p->page == page)
            return p;
    if (!create)
        return NULL;
    struct init_page *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->page = page;
    p->next = *head;
    *head = p;
    return p;
}

/* Set (@p on) or clear the bits of [addr, addr + bytes), a page at a time. */
static void init_set(struct emu_mem *m, uint64_t addr, uint64_t bytes, int on)
{
    uint64_t a = addr, end = addr + bytes;
    while (a < end) {
        uint64_t page_end = (a / INIT_PAGE + 1) * INIT_PAGE, stop = end < page_end ? end : page_end;
        struct init_page *p = init_page(m, a / INIT_PAGE, on);
        for (; p && a < stop; a++) {
            uint64_t i = a % INIT_PAGE;
            if (on)
                p->bits[i / 8] |= (uint8_t)(1u << (i % 8));
            else
                p->bits[i / 8] &= (uint8_t) ~(1u << (i % 8));
        }
        a = stop; /* a page never written needs no clearing */
    }
}

void mem_mark_written(struct emu_mem *m, uint64_t addr, uint64_t bytes)
{
    if (m->init)
        init_set(m, addr, bytes, 1);
}

int64_t mem_first_unwritten(const struct emu_mem *m, uint64_t addr, uint64_t bytes)
{
    if (!m->init)
        return -1;
    for (uint64_t a = addr; a < addr + bytes; a++) {
        const struct init_page *p = init_page(m, a / INIT_PAGE, 0);
        uint64_t i = a % INIT_PAGE;
        if (!p || !(p->bits[i / 8] >> (i % 8) & 1))
            return (int64_t)(a - addr);
    }
    return -1;
}

static void free_init(struct mem_init *init)
{
    if (!init)
        return;
    for (int b = 0; b < INIT_BUCKETS; b++)
        for (struct init_page *p = init->bucket[b], *next; p; p = next) {
            next = p->next;
            free(p);
        }
    free(init);
}

void mem_destroy(struct emu_mem *m)
{
    free_init(m->init);
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
        struct mem_block *bigger = realloc(m->live, m->cap * sizeof *bigger);
        if (!bigger) {
            fprintf(stderr, "emulator: out of host memory for %zu blocks\n", m->cap);
            abort();
        }
        m->live = bigger;
    }
    memmove(&m->live[i + 1], &m->live[i], (m->nlive - i) * sizeof *m->live);
    m->live[i] = b;
    m->nlive++;
    m->used += round_up(b.size, MEM_ALIGN);
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
    uint64_t need = round_up(bytes, PAGE);
    if (bytes > m->capacity || m->used + round_up(bytes, MEM_ALIGN) > m->capacity ||
        need + 2 * GAP > m->span)
        return 0;
    /* Next fit from the cursor, wrapping to the start of the span once; a
     * block in the way moves the candidate past it and its gap. */
    for (int pass = 0; pass < 2; pass++) {
        uint64_t off = pass ? GAP : m->cursor < GAP ? GAP : m->cursor;
        while (off + need + GAP <= m->span) {
            size_t i = lower_bound(m, m->base + off);
            if (i > 0 && end_of(m, &m->live[i - 1]) > off) {
                off = end_of(m, &m->live[i - 1]);
            } else if (i < m->nlive && m->live[i].addr - m->base < off + need + GAP) {
                off = end_of(m, &m->live[i]);
            } else {
                insert_at(m, i, (struct mem_block){m->base + off, bytes, device});
                m->cursor = off + need + GAP;
                return m->base + off;
            }
        }
    }
    return 0;
}

int mem_insert(struct emu_mem *m, uint64_t addr, uint64_t bytes, int device)
{
    if (!mem_in_span(m, addr) || bytes > m->span - (addr - m->base))
        return -1;
    size_t i = lower_bound(m, addr);
    if (i < m->nlive && m->live[i].addr < addr + bytes)
        return -1;
    if (i > 0 && m->live[i - 1].addr + m->live[i - 1].size > addr)
        return -1;
    insert_at(m, i, (struct mem_block){addr, bytes ? bytes : 1, device});
    return 0;
}

int mem_free(struct emu_mem *m, uint64_t addr)
{
    size_t i = lower_bound(m, addr);
    if (i == m->nlive || m->live[i].addr != addr)
        return -1;
    struct mem_block b = m->live[i];
    memmove(&m->live[i], &m->live[i + 1], (m->nlive - i - 1) * sizeof *m->live);
    m->nlive--;
    m->used -= round_up(b.size, MEM_ALIGN);
    m->hint = 0;
    m->freed[m->nfreed++ % MEM_FREED_RING] = b;
    if (m->init)
        init_set(m, addr, b.size, 0);
    /* Give the pages back; the range reads as zeros if it is ever handed out again. */
    madvise(mem_host(m, addr), round_up(b.size, PAGE), MADV_REMOVE);
    return 0;
}

const struct mem_block *mem_find(struct emu_mem *m, uint64_t addr, uint64_t bytes)
{
    if (m->hint < m->nlive) {
        const struct mem_block *b = &m->live[m->hint];
        if (addr >= b->addr && addr - b->addr <= b->size && bytes <= b->size - (addr - b->addr))
            return b;
    }
    size_t i = lower_bound(m, addr + 1);
    if (i == 0)
        return NULL;
    const struct mem_block *b = &m->live[i - 1];
    if (addr - b->addr > b->size || bytes > b->size - (addr - b->addr))
        return NULL;
    m->hint = i - 1;
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
