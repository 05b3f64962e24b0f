/**
 * @file checks_global.c
 * @brief racecheck for global memory (COURSE_EMU_CHECKS names race-global): two threads of a
 *        launch touching one word, one writing, with nothing that orders them.
 *
 * No GPU tool reports these (compute-sanitizer's racecheck sees shared memory only), yet they
 * are the bugs a block-level reduction through global memory or a grid that assumes its blocks
 * run in order makes. The VM runs blocks one after another, so such a program often gives the
 * right answer here and a wrong one on a GPU; this check judges the program's order instead.
 *
 * Shadow memory: per 4-byte word of global memory a launch touches, its last writer and one
 * reader since (block, thread, instruction, the block's barriers then, the warp's stamp then
 * (check_stamp_of()), the launch's fence clock then, which bytes, and whether the access was
 * strong). Pages of 1024 words are made on first touch and all freed when the launch ends, so
 * the cost is bounded by what the launch touches (64 bytes of record per word touched).
 *
 * An access is ordered after an earlier one of another thread (no finding) when
 *   - both are strong (atomics, and ld/st .volatile, .relaxed, .acquire, .release), the PTX
 *     memory model's "morally strong" pairs, unless one is .cta-scoped and they are in two blocks;
 *   - they are in one block and a barrier of the whole block opened between, or a __syncwarp
 *     inside one warp, or the later access's warp waited (at a barrier with a thread count or
 *     an mbarrier) past an arrival the earlier access's warp made after it;
 *   - the earlier thread executed a fence after its access (membar, fence.sc, fence.acq_rel, or
 *     a .release store or atomic) before this access ran: gpu or sys scope across blocks, any
 *     scope inside one; or, across blocks, any thread of the earlier block fenced after a barrier
 *     that followed the access (a cooperative grid.sync() is such a barrier and fence).
 * The reading side of a fence+flag protocol is not checked: a read of a word whose writer fenced
 * before the read ran is taken as ordered, whether or not the reader waited for the flag.
 */
#define _GNU_SOURCE
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PAGE_WORDS = 1024, PAGE_SHIFT = 12 }; /* a page is 1024 words, 4096 bytes */

/* How an access was made (gacc::flags). */
enum { GA_STRONG = 1, GA_CTA = 2, GA_ATOMIC = 4 };

/* One access of a word: block + 1 (0: none), thread, instruction, the block's barriers of
 * either kind (check_generation()), the warp's stamp, fence clock, flags and the bytes of the
 * word touched. */
struct gacc {
    uint32_t block, pc, gen, clk;
    struct check_stamp stamp;
    uint16_t tid;
    uint8_t flags, mask;
};

struct gword {
    struct gacc w, r; /* the last write, and a read since */
};

struct gpage {
    uint64_t key; /* address >> PAGE_SHIFT, + 1 (0: a free slot) */
    struct gword *words;
};

/* A block some thread of which fenced: each thread's last fence (any scope, gpu or wider), as
 * the fence clock then, and 1 + the block's barrier generation at its last gpu-scope fence. */
struct gfence {
    uint64_t key;  /* block + 1 (0: a free slot) */
    uint32_t *clk; /* 2 per thread: any scope, gpu scope */
    uint32_t gen_gpu;
};

struct grace {
    const struct exec *owner; /* the launch's plan: it reports, and frees this */
    struct gpage *pages;
    size_t npages, pages_cap; /* a power of two */
    struct gfence *fences;
    size_t nfences, fences_cap;
    struct gpage *last; /* the page last looked up */
    uint32_t clock;     /* fences executed in the launch so far */
};

enum { KIND_BASE = 200 }; /* finding kinds: KIND_BASE + 2 * hazard + (two blocks) */
enum hazard { H_RAW, H_WAW, H_WAR };

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    return k ^ k >> 29;
}

/* The slot of key @p key in an open-addressed table of @p cap entries of @p size bytes whose
 * first field is the key: its own, or the free one where it would go. */
static void *slot(void *table, size_t cap, size_t size, uint64_t key)
{
    for (size_t i = mix(key) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        uint64_t *k = (uint64_t *)((char *)table + i * size);
        if (*k == key || !*k)
            return k;
    }
}

/* Make room for one more entry in a table of @p *n entries out of @p *cap (at most half full). */
static void *grow(void *table, size_t *n, size_t *cap, size_t size)
{
    if (2 * (*n + 1) <= *cap)
        return table;
    size_t ncap = *cap ? 2 * *cap : 64;
    void *t = emu_calloc(ncap, size);
    for (size_t i = 0; i < *cap; i++) {
        uint64_t *k = (uint64_t *)((char *)table + i * size);
        if (*k)
            memcpy(slot(t, ncap, size, *k), k, size);
    }
    free(table);
    *cap = ncap;
    return t;
}

static struct gword *word_at(struct grace *g, uint64_t addr)
{
    uint64_t key = (addr >> PAGE_SHIFT) + 1;
    if (!g->last || g->last->key != key) {
        g->pages = grow(g->pages, &g->npages, &g->pages_cap, sizeof *g->pages);
        struct gpage *p = slot(g->pages, g->pages_cap, sizeof *p, key);
        if (!p->key) {
            p->key = key;
            p->words = emu_calloc(PAGE_WORDS, sizeof *p->words);
            g->npages++;
        }
        g->last = p;
    }
    return &g->last->words[(addr >> 2) & (PAGE_WORDS - 1)];
}

/* Block @p key's fences (block + 1), made when @p make, else NULL if it never fenced. */
static struct gfence *fences_of(struct grace *g, uint64_t key, uint32_t nthreads, int make)
{
    if (make)
        g->fences = grow(g->fences, &g->nfences, &g->fences_cap, sizeof *g->fences);
    if (!g->fences_cap)
        return NULL;
    struct gfence *f = slot(g->fences, g->fences_cap, sizeof *f, key);
    if (f->key || !make)
        return f->key ? f : NULL;
    f->key = key;
    f->clk = emu_calloc(2 * (size_t)nthreads, sizeof *f->clk);
    g->nfences++;
    return f;
}

void check_global_begin(struct exec *x)
{
    if (x->grace)
        return; /* a context of the launch: the plan's records are its records */
    struct grace *g = emu_calloc(1, sizeof *g);
    g->owner = x;
    x->grace = g;
}

void check_global_end(struct exec *x)
{
    struct grace *g = x->grace;
    if (!g || g->owner != x)
        return;
    for (size_t i = 0; i < g->pages_cap; i++)
        free(g->pages[i].words);
    for (size_t i = 0; i < g->fences_cap; i++)
        free(g->fences[i].clk);
    free(g->pages);
    free(g->fences);
    free(g);
    x->grace = NULL;
}

/* Thread @p tid of the running block fences at @p gpu scope (0: the block's only). */
static void fence(struct exec *x, uint32_t tid, int gpu)
{
    struct grace *g = x->grace;
    struct gfence *f = fences_of(g, x->block + 1, x->nthreads, 1);
    f->clk[2 * tid] = ++g->clock;
    if (gpu) {
        f->clk[2 * tid + 1] = g->clock;
        f->gen_gpu = check_generation(x) + 1;
    }
}

void check_global_fence(struct exec *x, const struct warp *w, uint32_t m, int gpu)
{
    for (; m; m &= m - 1)
        fence(x, w->index * 32 + (uint32_t)__builtin_ctz(m), gpu);
}

/* Is access @p a (this one, in the running block) ordered after @p p (an earlier one)? */
static int ordered(struct exec *x, const struct gacc *p, const struct gacc *a)
{
    int same = p->block == a->block;
    if (!p->block || (same && p->tid == a->tid))
        return 1;
    if ((p->flags & a->flags & GA_STRONG) && (same || !((p->flags | a->flags) & GA_CTA)))
        return 1;
    if (same && check_stamp_ordered(x, a->tid, p->tid + 1u, p->stamp))
        return 1;
    const struct gfence *f = fences_of(x->grace, p->block, x->nthreads, 0);
    if (!f)
        return 0;
    if (f->clk[2 * p->tid + !same] > p->clk)
        return 1;                            /* the earlier thread fenced since */
    return !same && f->gen_gpu > p->gen + 1; /* a barrier since, then a fence in its block */
}

/* "block (x,y,z) thread (x,y,z) at FILE:LINE" of access @p p, for a message (in a cluster
 * launch, whose blocks run cluster after cluster, the block's number in that order). */
static const char *who(const struct exec *x, const struct gacc *p, char *buf, size_t size)
{
    const uint32_t *g = x->launch->grid;
    uint64_t b = p->block - 1;
    char them[300], block[80];
    if (x->cluster)
        snprintf(block, sizeof block, "block %llu of the launch's order", (unsigned long long)b);
    else
        snprintf(block, sizeof block, "block (%u,%u,%u)", (uint32_t)(b % g[0]),
                 (uint32_t)(b / g[0] % g[1]), (uint32_t)(b / ((uint64_t)g[0] * g[1])));
    snprintf(buf, size, "%s %s", block, check_thread_at(x, p->tid, p->pc, them, sizeof them));
    return buf;
}

static void report(struct exec *x, struct warp *w, const struct insn *in, int lane, uint64_t addr,
                   enum hazard h, const struct gacc *p)
{
    static const char *const names[] = {"read-after-write", "write-after-write",
                                        "write-after-read"};
    struct exec *owner = (struct exec *)((struct grace *)x->grace)->owner;
    int across = p->block != x->block + 1, kind = KIND_BASE + 2 * (int)h + across;
    uint64_t at = check_place(x, (uint32_t)(in - x->code)), at2 = check_place(x, p->pc);
    if (check_seen(owner, kind, at, at2))
        return;
    char line[1024], me[400], them[400];
    snprintf(line, sizeof line, "racecheck: %s hazard on global 0x%llx %s: %s by %s, %s", names[h],
             (unsigned long long)addr, vm_describe(x, w, in, lane, me, sizeof me),
             h == H_WAR ? "read" : "written", who(x, p, them, sizeof them),
             across ? "another block, with no atomic, grid-wide sync or fence between"
                    : "no barrier or fence between");
    check_add(owner, kind, at, at2, line);
}

/* The access @p a of lane @p lane to word @p r at @p addr: check it against the word's last
 * write (and, for a write, its read since), then record it. */
static void word(struct exec *x, struct warp *w, const struct insn *in, int lane, uint64_t addr,
                 struct gword *r, const struct gacc *a, int store)
{
    if ((r->w.mask & a->mask) && !ordered(x, &r->w, a))
        report(x, w, in, lane, addr, store ? H_WAW : H_RAW, &r->w);
    if (store && (r->r.mask & a->mask) && !ordered(x, &r->r, a))
        report(x, w, in, lane, addr, H_WAR, &r->r);
    if (store) {
        r->w = *a;
        r->r = (struct gacc){0};
    } else if (!r->r.block || ordered(x, &r->r, a)) {
        /* Keep a reader whose read is still unordered: a later writer must be checked
         * against some other thread's read, not only its own. */
        r->r = *a;
    }
}

void check_global_race(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                       uint32_t m, unsigned bytes, int store)
{
    unsigned order = in->op == OP_ATOM ? ATOM_ORDER(in->mod) | MEM_STRONG
                     : in->op == OP_LD_GLOBAL || in->op == OP_ST_GLOBAL ||
                             in->op == OP_LD_GENERIC || in->op == OP_ST_GENERIC
                         ? MEM_ORDER(in->mod)
                         : 0;
    struct gacc a = {.block = (uint32_t)x->block + 1,
                     .pc = (uint32_t)(in - x->code),
                     .gen = check_generation(x),
                     .stamp = check_stamp_of(x, w->index),
                     .flags = (uint8_t)((order & MEM_STRONG ? GA_STRONG : 0) |
                                        (order & MEM_CTA ? GA_CTA : 0) |
                                        (in->op == OP_ATOM ? GA_ATOMIC : 0))};
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        a.tid = (uint16_t)(w->index * 32 + (uint32_t)l);
        if (order & MEM_RELEASE) /* its earlier accesses are ordered before this one */
            fence(x, a.tid, !(order & MEM_CTA));
        a.clk = ((struct grace *)x->grace)->clock;
        for (uint64_t at = addr[l]; at < addr[l] + bytes; at = (at | 3) + 1) {
            uint64_t end = addr[l] + bytes < (at | 3) + 1 ? addr[l] + bytes : (at | 3) + 1;
            a.mask = (uint8_t)(((1u << (end - at)) - 1) << (at & 3));
            word(x, w, in, l, at, word_at(x->grace, at), &a, store);
        }
    }
}
