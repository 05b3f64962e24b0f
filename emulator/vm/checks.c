/**
 * @file checks.c
 * @brief The sanitizer's checks: racecheck, synccheck, initcheck (memcheck's faults are
 *        always on: ops_mem.c), each finding one line, counted.
 *
 * racecheck keeps, per byte of shared memory, the last thread that wrote it and a thread
 * that read it since, each with the block's barrier generation, its warp's __syncwarp
 * generation and its warp's mbarrier arrivals at the time. An access by another thread with no
 * barrier (or, inside one warp, no __syncwarp; or between warps, no mbarrier arrival of the
 * first's warp after it that the second's warp waited past) between is a hazard: read after
 * write, write after read, write after write. Records belong to a block by tag, so nothing is
 * cleared between blocks.
 *
 * An asynchronous copy (cp.async) is checked as a store when it is issued, but it writes no
 * earlier than the wait that lands it (ops_async.c): until then its bytes are marked in flight,
 * and any access to them (the issuing thread's too) is a hazard; at the landing they become the
 * issuing thread's write, which other threads may read after a barrier.
 *
 * initcheck asks the device memory's record of written bytes (mem.h) for global loads, and
 * the shared bytes' records for shared loads. synccheck looks at every barrier (the block meets at
 * one place in the program) and every warp-level mask (no exited, absent or missing lanes).
 * Threads that exited do not hold a barrier up, as on every GPU the course supports, so an early
 * return before a __syncthreads() is no finding; live threads that skip a barrier meet the
 * others at another one, and that is. Lanes of one warp may reach a barrier apart, as they may
 * on sm_70 and newer.
 *
 * A finding is kept once per (kind, source line, other source line) with its first message and
 * a count; check_end() reports them in order of first appearance.
 */
#define _GNU_SOURCE
#include "checks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One byte of shared memory, as racecheck and initcheck see it (no writer: never written). */
struct sbyte {
    uint32_t block;                      /* the block this record belongs to (tag) */
    uint32_t w_tid, w_pc, w_gen, w_sync; /* last writer: thread + 1 (0: none) */
    uint32_t r_tid, r_pc, r_gen, r_sync; /* a reader since: thread + 1 (0: none) */
    uint32_t w_atomic;                   /* the last write was an atomic */
    uint32_t a_tid, a_pc;                /* a cp.async in flight to it: thread + 1 (0: none) */
    uint32_t r_group;                    /* the reader read with its warpgroup (a wgmma) */
    uint32_t w_rel, r_rel;               /* the writer's and reader's warps' mbarrier arrivals */
};

/* A finding: its kind and places (source lines), the first message, how often. */
struct finding {
    int kind;
    uint64_t at, at2;
    uint64_t count;
    char *line;
};

enum { MAX_BARRIER_PCS = 4 };

/* sbyte::w_tid of a byte a bulk or tensor copy wrote (the async proxy, no thread). */
#define ASYNC_WRITER UINT32_MAX

struct check_state {
    struct sbyte *sh;    /* a record per byte of the block's shared memory */
    uint32_t block;      /* the running block's tag (1, 2, ...) */
    uint32_t gen;        /* block-wide barriers opened in this block so far */
    uint32_t named;      /* barriers with a thread count opened (check_barrier_open()) */
    uint32_t sync[32];   /* each warp's __syncwarp count */
    uint32_t rel[32];    /* each warp's arrivals at mbarriers and barriers (check_release()) */
    uint32_t kn[32][32]; /* kn[v][u]: warp u's arrivals warp v has waited past (check_acquire()) */
    uint32_t bar_rel[16][32]; /* each barrier's arrivals so far, released (check_release()) */
    /* synccheck: where each barrier's waiting threads arrived */
    uint32_t bar_pc[16][MAX_BARRIER_PCS], bar_npc[16];
    struct finding *found;
    size_t nfound, cap;
};

enum kind {
    K_RAW,
    K_WAR,
    K_WAW,
    K_INIT_SHARED,
    K_INIT_GLOBAL,
    K_SYNC_MASK,
    K_SYNC_PLACES,
    K_ASYNC,
    K_OTHER /* another family's finding (check_report_at) */
};

static struct check_state *state(struct exec *x)
{
    return x->check_state;
}

uint64_t check_place(const struct exec *x, uint32_t pc)
{
    if (!x->mod->nlines)
        return (uint64_t)1 << 63 | pc;
    struct srcloc loc = x->mod->lines[x->code[pc].line];
    return (uint64_t)loc.file << 32 | loc.line;
}

int check_seen(struct exec *x, int kind, uint64_t at, uint64_t at2)
{
    struct check_state *s = state(x);
    x->result->reports++;
    for (size_t i = 0; i < s->nfound; i++)
        if (s->found[i].kind == kind && s->found[i].at == at && s->found[i].at2 == at2) {
            s->found[i].count++;
            return 1;
        }
    return 0;
}

void check_add(struct exec *x, int kind, uint64_t at, uint64_t at2, const char *line)
{
    struct check_state *s = state(x);
    if (s->nfound == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->found = emu_realloc(s->found, s->cap * sizeof *s->found);
    }
    s->found[s->nfound++] = (struct finding){kind, at, at2, 1, emu_strdup(line)};
}

/* A new finding at places @p at and @p at2 (FIND() below). */
static void add_found(struct exec *x, int kind, uint64_t at, uint64_t at2, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void add_found(struct exec *x, int kind, uint64_t at, uint64_t at2, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    check_add(x, kind, at, at2, line);
}

/* Record a finding at places @p at and @p at2: counted when it was seen before, else formatted
 * (its arguments evaluated only then: a loop that repeats one finding a million times does not
 * describe it a million times). */
#define FIND(x, kind, at, at2, ...)                                                                \
    do {                                                                                           \
        uint64_t at_ = (at), at2_ = (at2);                                                         \
        if (!check_seen((x), (kind), at_, at2_))                                                   \
            add_found((x), (kind), at_, at2_, __VA_ARGS__);                                        \
    } while (0)

void check_report_at(struct exec *x, uint32_t pc, uint32_t pc2, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    FIND(x, K_OTHER, check_place(x, pc), check_place(x, pc2), "%s", line);
}

void check_begin(struct exec *x)
{
    struct check_state *s = emu_calloc(1, sizeof *s);
    s->sh = emu_calloc(x->smem_bytes ? x->smem_bytes : 1, sizeof *s->sh);
    x->check_state = s;
    check_async_begin(x);
    if (x->launch->checks & VM_CHECK_GLOBAL)
        check_global_begin(x);
}

void check_end(struct exec *x)
{
    struct check_state *s = state(x);
    check_async_end(x);
    check_global_end(x);
    for (size_t i = 0; i < s->nfound; i++) {
        char line[1200];
        int n = snprintf(line, sizeof line, "%s (%llu time%s)\n", s->found[i].line,
                         (unsigned long long)s->found[i].count, s->found[i].count == 1 ? "" : "s");
        if (x->launch->report)
            x->launch->report(x->launch->report_ctx, line, (size_t)n);
        else
            fputs(line, stderr);
        free(s->found[i].line);
    }
    free(s->found);
    free(s->sh);
    free(s);
    x->check_state = NULL;
}

void check_block(struct exec *x)
{
    struct check_state *s = state(x);
    s->block++;
    s->gen = 0;
    s->named = 0;
    memset(s->sync, 0, sizeof s->sync);
    memset(s->rel, 0, sizeof s->rel);
    memset(s->kn, 0, sizeof s->kn);
    memset(s->bar_rel, 0, sizeof s->bar_rel);
    memset(s->bar_npc, 0, sizeof s->bar_npc);
    check_async_block(x);
}

uint32_t check_generation(const struct exec *x)
{
    const struct check_state *s = x->check_state;
    return s->gen + s->named;
}

/* ---- racecheck and shared initcheck --------------------------------------------------- */

/* Is an access by thread @p tid ordered after one by @p other (thread + 1, barrier generation,
 * warp-sync count and its warp's mbarrier arrivals then)? Same thread, a barrier since, a
 * __syncwarp since in one warp, or a wait of @p tid's warp past an arrival @p other's warp made
 * after the access (the mbarrier's release and acquire, carried from warp to warp). */
static int ordered(const struct check_state *s, uint32_t tid, uint32_t other, uint32_t gen,
                   uint32_t sync, uint32_t rel)
{
    if (!other || other - 1 == tid || gen != s->gen)
        return 1;
    if (s->kn[tid / 32][(other - 1) / 32] > rel)
        return 1;
    return (other - 1) / 32 == tid / 32 && sync != s->sync[tid / 32];
}

struct check_stamp check_stamp_of(const struct exec *x, uint32_t warp)
{
    const struct check_state *s = x->check_state;
    return (struct check_stamp){s->gen, s->sync[warp], s->rel[warp]};
}

int check_stamp_ordered(const struct exec *x, uint32_t tid, uint32_t other, struct check_stamp then)
{
    return ordered(x->check_state, tid, other, then.gen, then.sync, then.rel);
}

/* @p into, each of 32 warps' counts, raised to @p from's where that is more. */
static void merge(uint32_t *into, const uint32_t *from)
{
    for (int u = 0; u < 32; u++)
        into[u] = from[u] > into[u] ? from[u] : into[u];
}

void check_release(struct exec *x, uint32_t warp, uint32_t *vec)
{
    struct check_state *s = state(x);
    s->rel[warp]++;
    merge(vec, s->kn[warp]);
    vec[warp] = s->rel[warp] > vec[warp] ? s->rel[warp] : vec[warp];
}

void check_acquire(struct exec *x, uint32_t warp, const uint32_t *vec)
{
    merge(state(x)->kn[warp], vec);
}

const char *check_thread_at(const struct exec *x, uint32_t tid, uint32_t pc, char *buf, size_t size)
{
    const uint32_t *b = x->launch->block;
    char where[200];
    snprintf(buf, size, "thread (%u,%u,%u) at %s", tid % b[0], tid / b[0] % b[1],
             tid / (b[0] * b[1]), vm_where(x->mod, &x->code[pc], where, sizeof where));
    return buf;
}

/* What one lane's access found, byte by byte: the first hazard of each kind. */
struct hazards {
    int unwritten;                  /* a byte read that nobody wrote */
    uint32_t raw, war, waw, flight; /* the other thread + 1 (0: none); flight: a cp.async's */
    uint32_t raw_pc, war_pc, waw_pc, flight_pc;
};

/* How an instruction touches shared memory, for shared_byte(); T_GROUP: a load a warpgroup makes
 * together (a wgmma's operands), after every access its threads made before they issued it. */
enum touch { T_LOAD, T_STORE, T_ATOMIC, T_ASYNC, T_GROUP };

/* Does an access of kind @p how write? */
static int writes(enum touch how)
{
    return how != T_LOAD && how != T_GROUP;
}

/* Are threads @p tid and @p other (thread + 1) of one warpgroup? */
static int same_group(uint32_t tid, uint32_t other)
{
    return other && (other - 1) / 128 == tid / 128;
}

/* Is an access by thread @p tid ordered after byte @p r's reader? A warpgroup's own accesses
 * after its wgmma read come after the wgmma.wait_group that ends it. */
static int after_reader(const struct check_state *s, uint32_t tid, const struct sbyte *r)
{
    return !r->r_tid || r->r_gen != s->gen ||
           ordered(s, tid, r->r_tid, r->r_gen, r->r_sync, r->r_rel) ||
           (r->r_group && same_group(tid, r->r_tid));
}

/* Thread @p tid's access of byte @p r by instruction @p pc: check it, then record it. Two
 * atomics on one byte are no hazard (racecheck's rule); an atomic and a plain access are. A
 * cp.async (T_ASYNC) is checked as a store, but only marks the byte in flight. */
static void shared_byte(struct check_state *s, struct sbyte *r, uint32_t tid, uint32_t pc,
                        enum touch how, struct hazards *h)
{
    uint32_t sync = s->sync[tid / 32];
    int store = writes(how), atomic = how == T_ATOMIC;
    if (r->block != s->block)
        *r = (struct sbyte){.block = s->block};
    if (r->a_tid && !h->flight)
        h->flight = r->a_tid, h->flight_pc = r->a_pc;
    if (how == T_ASYNC) {
        if (!ordered(s, tid, r->w_tid, r->w_gen, r->w_sync, r->w_rel) && !h->waw)
            h->waw = r->w_tid, h->waw_pc = r->w_pc;
        if (!after_reader(s, tid, r) && !h->war)
            h->war = r->r_tid, h->war_pc = r->r_pc;
        r->a_tid = tid + 1, r->a_pc = pc; /* the write itself comes with check_async_land() */
        return;
    }
    if (!store && !r->w_tid) {
        h->unwritten = 1;
    } else if (r->w_tid == ASYNC_WRITER) {
        /* written by a bulk or tensor copy: checks_async.c judges its order */
    } else if (!(atomic && r->w_atomic) &&
               !ordered(s, tid, r->w_tid, r->w_gen, r->w_sync, r->w_rel) &&
               !(how == T_GROUP && same_group(tid, r->w_tid)) && !(store ? h->waw : h->raw)) {
        *(store ? &h->waw : &h->raw) = r->w_tid;
        *(store ? &h->waw_pc : &h->raw_pc) = r->w_pc;
    }
    if (store && !after_reader(s, tid, r) && !h->war)
        h->war = r->r_tid, h->war_pc = r->r_pc;
    if (store) {
        *r = (struct sbyte){.block = s->block,
                            .w_tid = tid + 1,
                            .w_pc = pc,
                            .w_gen = s->gen,
                            .w_sync = sync,
                            .w_atomic = (uint32_t)atomic,
                            .w_rel = s->rel[tid / 32]};
    } else if (!r->r_tid || ordered(s, tid, r->r_tid, r->r_gen, r->r_sync, r->r_rel)) {
        /* Keep a reader whose read is still unordered: a later writer must be checked
         * against some other thread's read, not only its own. */
        r->r_tid = tid + 1, r->r_pc = pc, r->r_gen = s->gen, r->r_sync = sync;
        r->r_group = how == T_GROUP, r->r_rel = s->rel[tid / 32];
    }
}

/* The findings of one lane's access at shared offset @p a. */
static void shared_report(struct exec *x, struct warp *w, const struct insn *in, int lane,
                          uint64_t a, int store, const struct hazards *h)
{
    uint32_t pc = (uint32_t)(in - x->code);
    char me[400], them[300];
    unsigned checks = x->launch->checks;
    if (h->unwritten && (checks & VM_CHECK_INIT))
        FIND(x, K_INIT_SHARED, check_place(x, pc), 0,
             "initcheck: read of shared memory nobody wrote, at 0x%llx %s%s", (unsigned long long)a,
             vm_describe(x, w, in, lane, me, sizeof me),
             h->flight ? " (a cp.async to it is still in flight: wait for its group first)" : "");
    if (!(checks & VM_CHECK_RACE))
        return;
    if (h->flight)
        FIND(x, K_ASYNC, check_place(x, pc), check_place(x, h->flight_pc),
             "racecheck: %s shared 0x%llx %s while the cp.async by %s is in flight: wait for its "
             "group first (cp.async.wait_group or wait_all, then __syncthreads() if other "
             "threads read it)",
             in->op == OP_CP_ASYNC ? "cp.async into"
             : store               ? "write of"
                                   : "read of",
             (unsigned long long)a, vm_describe(x, w, in, lane, me, sizeof me),
             check_thread_at(x, h->flight - 1, h->flight_pc, them, sizeof them));
    if (h->raw || h->waw)
        FIND(x, store ? K_WAW : K_RAW, check_place(x, pc),
             check_place(x, store ? h->waw_pc : h->raw_pc),
             "racecheck: %s hazard on shared 0x%llx %s: written by %s, no barrier between",
             store ? "write-after-write" : "read-after-write", (unsigned long long)a,
             vm_describe(x, w, in, lane, me, sizeof me),
             check_thread_at(x, (store ? h->waw : h->raw) - 1, store ? h->waw_pc : h->raw_pc, them,
                             sizeof them));
    if (h->war)
        FIND(x, K_WAR, check_place(x, pc), check_place(x, h->war_pc),
             "racecheck: write-after-read hazard on shared 0x%llx %s: read by %s, no barrier "
             "between",
             (unsigned long long)a, vm_describe(x, w, in, lane, me, sizeof me),
             check_thread_at(x, h->war - 1, h->war_pc, them, sizeof them));
}

/* Lanes @p m of warp @p w touch shared memory at @p addr, @p how. */
static void shared_access(struct exec *x, struct warp *w, const struct insn *in,
                          const uint64_t *addr, uint32_t m, unsigned bytes, enum touch how)
{
    struct check_state *s = state(x);
    uint32_t pc = (uint32_t)(in - x->code);
    int store = writes(how);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        struct hazards h = {0};
        for (unsigned i = 0; i < bytes; i++)
            shared_byte(s, &s->sh[addr[l] + i], w->index * 32 + (uint32_t)l, pc, how, &h);
        if (h.unwritten || h.raw || h.war || h.waw || h.flight)
            shared_report(x, w, in, l, addr[l], store, &h);
        if (x->launch->checks & VM_CHECK_RACE)
            check_async_access(x, w, in, l, addr[l], bytes, store);
    }
}

enum event check_shared(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                        uint32_t m, unsigned bytes, int store)
{
    if (!(x->launch->checks & (VM_CHECK_RACE | VM_CHECK_INIT)))
        return EV_NONE;
    enum touch how = in->op == OP_ATOM       ? T_ATOMIC
                     : in->op == OP_CP_ASYNC ? T_ASYNC
                     : store                 ? T_STORE
                                             : T_LOAD;
    shared_access(x, w, in, addr, m, bytes, how);
    return EV_NONE;
}

void check_shared_group(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                        uint32_t m, unsigned bytes)
{
    if (x->launch->checks & (VM_CHECK_RACE | VM_CHECK_INIT))
        shared_access(x, w, in, addr, m, bytes, T_GROUP);
}

void check_async_land(struct exec *x, const struct warp *w, int lane, uint32_t off, unsigned bytes)
{
    struct check_state *s = state(x);
    uint32_t tid = w->index * 32 + (uint32_t)lane;
    for (unsigned i = 0; i < bytes; i++) {
        struct sbyte *r = &s->sh[off + i];
        if (r->block != s->block || r->a_tid != tid + 1)
            continue; /* a later copy of another thread took the byte over: its landing counts */
        *r = (struct sbyte){.block = s->block,
                            .w_tid = tid + 1,
                            .w_pc = r->a_pc,
                            .w_gen = s->gen,
                            .w_sync = s->sync[tid / 32],
                            .w_rel = s->rel[tid / 32]};
    }
}

void check_shared_async_write(struct exec *x, uint64_t addr, uint64_t bytes)
{
    struct check_state *s = state(x);
    for (uint64_t i = 0; i < bytes; i++)
        s->sh[addr + i] = (struct sbyte){.block = s->block, .w_tid = ASYNC_WRITER, .w_gen = s->gen};
}

void check_shared_source(struct exec *x, struct warp *w, const struct insn *in, int lane,
                         uint64_t off, uint64_t bytes, const char *what)
{
    struct check_state *s = state(x);
    if (x->launch->checks & VM_CHECK_RACE)
        check_async_read(x, w, in, lane, off, bytes, what);
    if (!(x->launch->checks & VM_CHECK_INIT))
        return;
    for (uint64_t i = 0; i < bytes; i++) {
        const struct sbyte *r = &s->sh[off + i];
        if (r->block == s->block && r->w_tid)
            continue;
        char me[400];
        FIND(x, K_INIT_SHARED, check_place(x, (uint32_t)(in - x->code)), 0,
             "initcheck: %s reads shared memory nobody wrote, at 0x%llx %s", what,
             (unsigned long long)(off + i), vm_describe(x, w, in, lane, me, sizeof me));
        return;
    }
}

/* ---- global initcheck ------------------------------------------------------------------- */

void check_global(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                  uint32_t m, unsigned bytes, int store)
{
    if (x->launch->checks & VM_CHECK_GLOBAL)
        check_global_race(x, w, in, addr, m, bytes, store);
    if (!(x->launch->checks & VM_CHECK_INIT))
        return;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (store) {
            if (!x->launch->prov) /* else prov.c marked it, derived or not */
                mem_mark_written(x->mem, addr[l], bytes, MEM_KERNEL);
            continue;
        }
        int64_t off = mem_first_unwritten(x->mem, addr[l], bytes);
        if (off >= 0) {
            char me[400];
            const struct mem_block *b = mem_find(x->mem, addr[l], bytes);
            FIND(x, K_INIT_GLOBAL, check_place(x, (uint32_t)(in - x->code)), 0,
                 "initcheck: read of global memory nobody wrote, at 0x%llx (byte %llu of a "
                 "%llu-byte allocation) %s",
                 (unsigned long long)(addr[l] + (uint64_t)off),
                 (unsigned long long)(b ? addr[l] + (uint64_t)off - b->addr : 0),
                 (unsigned long long)(b ? b->size : 0), vm_describe(x, w, in, l, me, sizeof me));
        }
    }
}

/* ---- synccheck -------------------------------------------------------------------------- */

void check_warp_mask(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                     uint32_t mask)
{
    uint32_t pc = (uint32_t)(in - x->code), gone = mask & ~w->live, missing = m & ~mask;
    char me[400];
    if (in->op == OP_BAR_WARP_SYNC) {
        state(x)->sync[w->index]++; /* __syncwarp orders the lanes' shared accesses */
        check_async_warp_sync(x, w->index);
    }
    if (!(x->launch->checks & VM_CHECK_SYNC))
        return;
    if (gone)
        FIND(x, K_SYNC_MASK, check_place(x, pc), 0,
             "synccheck: %s's mask 0x%08x names lanes 0x%08x that have exited or do not exist "
             "%s",
             vm_op_names[in->op], mask, gone,
             vm_describe(x, w, in, __builtin_ctz(m), me, sizeof me));
    if (missing)
        FIND(x, K_SYNC_MASK, check_place(x, pc), 1,
             "synccheck: lanes 0x%08x execute %s but are not in its mask 0x%08x %s", missing,
             vm_op_names[in->op], mask, vm_describe(x, w, in, __builtin_ctz(m), me, sizeof me));
}

void check_barrier_arrive(struct exec *x, const struct insn *in, uint32_t warp, uint32_t id,
                          int anywhere)
{
    struct check_state *s = state(x);
    uint32_t pc = (uint32_t)(in - x->code);
    check_release(x, warp, s->bar_rel[id]);
    if (!(x->launch->checks & VM_CHECK_SYNC) || anywhere)
        return;
    for (uint32_t i = 0; i < s->bar_npc[id]; i++)
        if (s->bar_pc[id][i] == pc)
            return;
    if (s->bar_npc[id] < MAX_BARRIER_PCS)
        s->bar_pc[id][s->bar_npc[id]++] = pc;
}

void check_barrier_pass(struct exec *x, uint32_t warp, uint32_t id)
{
    check_acquire(x, warp, state(x)->bar_rel[id]);
}

void check_barrier_open(struct exec *x, uint32_t id, int all)
{
    struct check_state *s = state(x);
    char a[200], b[200], k[160];
    if (s->bar_npc[id] > 1)
        FIND(x, K_SYNC_PLACES, check_place(x, s->bar_pc[id][0]), check_place(x, s->bar_pc[id][1]),
             "synccheck: threads of block (%u,%u,%u) of %s met at barrier %u from different "
             "places, %s and %s (a __syncthreads() in each branch?)",
             x->ctaid[0], x->ctaid[1], x->ctaid[2], vm_kernel_name(x, k, sizeof k), id,
             vm_where(x->mod, &x->code[s->bar_pc[id][0]], a, sizeof a),
             vm_where(x->mod, &x->code[s->bar_pc[id][1]], b, sizeof b));
    s->bar_npc[id] = 0;
    memset(s->bar_rel[id], 0, sizeof s->bar_rel[id]);
    if (all)
        s->gen++; /* every shared access after this is ordered after every one before */
    else
        s->named++; /* its warps passed it (check_barrier_pass()), the others did not */
    check_async_barrier(x);
}

void check_mbarrier_phase(struct exec *x, uint64_t arrivals)
{
    if (arrivals >= x->nthreads)
        state(x)->gen++; /* as a bar.sync: every thread arrived before any wait returns */
}
