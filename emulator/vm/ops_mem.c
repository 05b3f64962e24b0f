/**
 * @file ops_mem.c
 * @brief Loads, stores, atomics and asynchronous copies, in every state space.
 *
 * Every access goes through resolve(): the lanes' addresses, checked
 * (alignment, bounds, freed memory) and turned into host pointers. The
 * counters and checks see each warp-level access there, once.
 */
#include <stdio.h>
#include <string.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "checks.h"
#include "count.h"
#include "footprint.h"
#include "fp.h"
#include "hopper.h"
#include "model.h"
#include "prov.h"

/* Every active lane's address: base register (32 or 64 bits, or none) plus displacement. */
static void lane_addrs(const struct warp *w, const struct insn *in, uint32_t m, int base32,
                       uint64_t *addr)
{
    if (in->o[0] == NO_REG) {
        LANES(m, addr[l] = (uint64_t)in->imm);
    } else if (base32) {
        const uint32_t *b = R32(w, in->o[0]);
        LANES(m, addr[l] = (uint32_t)(b[l] + (uint32_t)in->imm));
    } else {
        const uint64_t *b = R64(w, in->o[0]);
        LANES(m, addr[l] = b[l] + (uint64_t)in->imm);
    }
}

/* Why a global access at @p a is invalid, for the message. */
static void global_why(struct emu_mem *mem, uint64_t a, unsigned bytes, char *buf, size_t size)
{
    const struct mem_block *freed = mem_find_freed(mem, a);
    const struct mem_block *near = NULL;
    for (size_t i = 0; i < mem->nlive; i++)
        if (mem->live[i].addr <= a)
            near = &mem->live[i];
    if (freed) {
        snprintf(buf, size, "inside a %llu-byte allocation that was freed",
                 (unsigned long long)freed->size);
    } else if (near && a >= near->addr && a - near->addr < near->size + (1u << 20)) {
        snprintf(buf, size, "%llu bytes past the end of a %llu-byte allocation, from its byte %llu",
                 (unsigned long long)(a + bytes - near->addr - near->size),
                 (unsigned long long)near->size, (unsigned long long)(a - near->addr));
    } else if (!mem_in_span(mem, a)) {
        snprintf(buf, size, "outside device memory (a host pointer, or an uninitialised one?)");
    } else {
        snprintf(buf, size, "in no allocation");
    }
}

static enum event fault(struct exec *x, struct warp *w, const struct insn *in, int lane,
                        const char *space, int store, unsigned bytes, uint64_t a, const char *why)
{
    return vm_fail(x, w, in, lane, VM_FAULT, "invalid %s %s of %u bytes at 0x%llx (%s)", space,
                   store ? "write" : "read", bytes, (unsigned long long)a, why);
}

/* Global lanes: one allocation holds them all (the usual case), or each is looked up. */
static enum event resolve_global(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                                 const uint64_t *addr, unsigned bytes, unsigned align, int store,
                                 uint8_t **host)
{
    uint64_t lo = UINT64_MAX, hi = 0, misaligned = 0;
    LANES(m, {
        lo = addr[l] < lo ? addr[l] : lo;
        hi = addr[l] > hi ? addr[l] : hi;
        misaligned |= addr[l] & (align - 1);
    });
    if (misaligned) {
        for (uint32_t mm = m; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            if (addr[l] & (align - 1))
                return vm_fail(x, w, in, l, VM_FAULT,
                               "misaligned global %s of %u bytes at 0x%llx (it must be a multiple "
                               "of %u)",
                               store ? "write" : "read", bytes, (unsigned long long)addr[l], align);
        }
    }
    if (!mem_find(x->mem, lo, hi - lo + bytes)) {
        for (uint32_t mm = m; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            if (!mem_find(x->mem, addr[l], bytes)) {
                char why[160];
                global_why(x->mem, addr[l], bytes, why, sizeof why);
                return fault(x, w, in, l, "global", store, bytes, addr[l], why);
            }
        }
    }
    LANES(m, host[l] = mem_host(x->mem, addr[l]));
    if (x->launch->prov) {
        prov_global(x, w, in, addr, m, bytes, store);
        footprint_global(x, addr, m, bytes, store || in->op == OP_ATOM,
                         !store || in->op == OP_ATOM);
    }
    return EV_NONE;
}

static enum event resolve_shared(struct exec *x, struct warp *w, const struct insn *in, int lane,
                                 uint64_t a, unsigned bytes, unsigned align, int store,
                                 uint8_t **host)
{
    if (a & (align - 1))
        return vm_fail(x, w, in, lane, VM_FAULT, "misaligned shared %s of %u bytes at offset %llu",
                       store ? "write" : "read", bytes, (unsigned long long)a);
    uint8_t *smem = x->smem; /* or another block's of the cluster (cluster.c) */
    uint32_t size = x->smem_bytes;
    if (a >> CLUSTER_SHIFT && vm_cluster_resolve(x, w, in, lane, &a, &smem, &size, NULL))
        return EV_ERROR;
    if (a + bytes > size) {
        char why[120];
        snprintf(why, sizeof why, "the block has %u bytes of shared memory", size);
        return fault(x, w, in, lane, "shared", store, bytes, a, why);
    }
    *host = smem + a;
    return EV_NONE;
}

/* The lanes of @p m whose shared::cluster address names a block of the cluster (hopper.h): the
 * checks see each block's accesses to its own shared memory only. */
static uint32_t cluster_lanes(uint32_t m, const uint64_t *addr)
{
    uint32_t far = 0;
    LANES(m, far |= (uint32_t)(addr[l] >> CLUSTER_SHIFT != 0) << l);
    return far;
}

/* All lanes of a shared access at once (the hot path): each lane alone only to say what failed. */
static enum event resolve_shared_warp(struct exec *x, struct warp *w, const struct insn *in,
                                      uint32_t m, const uint64_t *addr, unsigned bytes, int store,
                                      uint8_t **host)
{
    uint64_t bad = 0;
    LANES(m, bad |= (addr[l] & (bytes - 1)) | (uint64_t)(addr[l] + bytes > x->smem_bytes));
    for (uint32_t mm = bad ? m : 0; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        enum event ev = resolve_shared(x, w, in, l, addr[l], bytes, bytes, store, &host[l]);
        if (ev != EV_NONE)
            return ev;
    }
    if (!bad)
        LANES(m, host[l] = x->smem + addr[l]);
    return EV_NONE;
}

static enum event resolve_local(struct exec *x, struct warp *w, const struct insn *in, int lane,
                                uint64_t a, unsigned bytes, unsigned align, int store,
                                uint8_t **host)
{
    if (a + bytes > x->local_frame || (a & (align - 1))) {
        char why[120];
        snprintf(why, sizeof why, "a thread has %u bytes of local memory", x->local_frame);
        return fault(x, w, in, lane, "local", store, bytes, a, why);
    }
    *host = w->local + (size_t)lane * x->local_frame + a;
    return EV_NONE;
}

/* A kernel parameter read through its generic address (a __grid_constant__ parameter's). */
static enum event resolve_param(struct exec *x, struct warp *w, const struct insn *in, int lane,
                                uint64_t a, unsigned bytes, int store, uint8_t **host)
{
    if (store || a + bytes > x->fn->info.param_bytes)
        return fault(x, w, in, lane, "parameter", store, bytes, a,
                     store ? "kernel parameters are read-only" : "past the parameters");
    *host = (uint8_t *)x->params + a;
    return EV_NONE;
}

/* The space all of @p m's generic addresses fall in, made window offsets; SP_GENERIC if mixed
 * (or in the parameters' window, which resolve_mixed() reads). */
static enum space sort_generic(uint32_t m, uint64_t *addr)
{
    uint32_t shared = 0, local = 0, param = 0;
    LANES(m, {
        shared |= (uint32_t)(addr[l] - SHARED_WINDOW < WINDOW_SIZE) << l;
        local |= (uint32_t)(addr[l] - LOCAL_WINDOW < WINDOW_SIZE) << l;
        param |= (uint32_t)(addr[l] - PARAM_WINDOW < WINDOW_SIZE) << l;
    });
    if (param)
        return SP_GENERIC;
    if (shared == m) {
        LANES(m, addr[l] -= SHARED_WINDOW);
        return SP_SHARED;
    }
    if (local == m) {
        LANES(m, addr[l] -= LOCAL_WINDOW);
        return SP_LOCAL;
    }
    return shared | local ? SP_GENERIC : SP_GLOBAL;
}

/* A warp whose generic addresses span windows: each lane alone, uncounted and unchecked. */
static enum event resolve_mixed(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                                const uint64_t *addr, unsigned bytes, int store, uint8_t **host)
{
    uint32_t glob = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t a = addr[l];
        enum event ev = EV_NONE;
        if (a - SHARED_WINDOW < WINDOW_SIZE)
            ev = resolve_shared(x, w, in, l, a - SHARED_WINDOW, bytes, bytes, store, &host[l]);
        else if (a - LOCAL_WINDOW < WINDOW_SIZE)
            ev = resolve_local(x, w, in, l, a - LOCAL_WINDOW, bytes, bytes, store, &host[l]);
        else if (a - PARAM_WINDOW < WINDOW_SIZE)
            ev = resolve_param(x, w, in, l, a - PARAM_WINDOW, bytes, store, &host[l]);
        else
            glob |= 1u << l;
        if (ev != EV_NONE)
            return ev;
    }
    return glob ? resolve_global(x, w, in, glob, addr, bytes, bytes, store, host) : EV_NONE;
}

/* A global or shared request of lanes @p m by instruction @p in (NULL: not one instruction's),
 * to the counters and the time model when they run (shared addresses are window offsets). */
static void observe(struct exec *x, const struct warp *w, const struct insn *in, enum space sp,
                    const uint64_t *addr, uint32_t m, unsigned bytes, int store)
{
    struct vm_model *model = x->model;
    if (sp == SP_GLOBAL) {
        uint64_t sec[64];
        unsigned n = x->cnt || model ? count_sectors(addr, m, bytes, sec) : 0;
        if (x->cnt)
            count_global(x, addr, m, store, sec, n);
        if (model)
            model_global(model, w->index, in, addr, m, bytes, sec, n, store);
    } else {
        if (x->cnt)
            count_shared(x, addr, m, bytes, store);
        if (model)
            model_shared(model, w->index, addr, m, bytes, store, in && in->op == OP_ATOM);
    }
}

/*
 * The host pointer of every active lane's access of @p bytes in space @p sp, with the
 * checks and counters. A generic access whose lanes all fall in one window is that
 * space's access, counted and checked as such.
 */
static enum event resolve(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                          enum space sp, int base32, unsigned bytes, int store, uint8_t **host)
{
    uint64_t addr[32];
    lane_addrs(w, in, m, base32, addr);
    if (sp == SP_GENERIC)
        sp = sort_generic(m, addr);
    if (sp == SP_GENERIC)
        return resolve_mixed(x, w, in, m, addr, bytes, store, host);
    if (sp == SP_GLOBAL) {
        enum event ev = resolve_global(x, w, in, m, addr, bytes, bytes, store, host);
        if (ev == EV_NONE && !(in->op == OP_LD_GLOBAL && MEM_CONST(in->mod)))
            observe(x, w, in, SP_GLOBAL, addr, m, bytes, store);
        if (ev == EV_NONE && x->launch->checks)
            check_global(x, w, in, addr, m, bytes, store);
        return ev;
    }
    if (sp == SP_LOCAL) {
        for (uint32_t mm = m; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            enum event ev = resolve_local(x, w, in, l, addr[l], bytes, bytes, store, &host[l]);
            if (ev != EV_NONE)
                return ev;
        }
        return EV_NONE;
    }
    enum event ev = resolve_shared_warp(x, w, in, m, addr, bytes, store, host);
    if (ev == EV_NONE)
        observe(x, w, in, SP_SHARED, addr, m, bytes, store);
    if (ev == EV_NONE && x->launch->checks)
        return check_shared(x, w, in, addr, m & ~cluster_lanes(m, addr), bytes, store);
    return ev;
}

enum event vm_access(struct exec *x, struct warp *w, const struct insn *in, int lane, enum space sp,
                     uint64_t a, unsigned bytes, unsigned align, int store, uint8_t **host)
{
    if (sp == SP_GENERIC)
        sp = a - SHARED_WINDOW < WINDOW_SIZE  ? (a -= SHARED_WINDOW, SP_SHARED)
             : a - LOCAL_WINDOW < WINDOW_SIZE ? (a -= LOCAL_WINDOW, SP_LOCAL)
                                              : SP_GLOBAL;
    uint64_t addr[32];
    addr[lane] = a;
    x->writes += (unsigned)store;
    enum event ev;
    if (sp == SP_SHARED) {
        ev = resolve_shared(x, w, in, lane, a, bytes, align, store, host);
        if (ev == EV_NONE && x->launch->checks && !(a >> CLUSTER_SHIFT))
            ev = check_shared(x, w, in, addr, 1u << lane, bytes, store);
        return ev;
    }
    if (sp == SP_LOCAL)
        return resolve_local(x, w, in, lane, a, bytes, align, store, host);
    uint8_t *hosts[32];
    ev = resolve_global(x, w, in, 1u << lane, addr, bytes, align, store, hosts);
    *host = hosts[lane];
    if (ev == EV_NONE && x->launch->checks)
        check_global(x, w, in, addr, 1u << lane, bytes, store);
    return ev;
}

void vm_count_pieces(struct exec *x, const struct warp *w, enum space sp, const uint64_t *addr,
                     int n, unsigned bytes, int store)
{
    if ((!x->cnt && !x->model) || (sp != SP_GLOBAL && sp != SP_SHARED))
        return;
    for (int at = 0; at < n; at += 32) {
        int lanes = n - at < 32 ? n - at : 32;
        observe(x, w, NULL, sp, addr + at, lanes == 32 ? FULL_MASK : (1u << lanes) - 1, bytes,
                store);
    }
}

/* ---- loads and stores -------------------------------------------------------------------------
 */

/* Lane values from host[l] + off into register @p reg (32- or 64-bit slot). */
static void load_elem(struct warp *w, uint32_t reg, uint8_t **host, size_t off, uint32_t m,
                      unsigned width, uint32_t mod)
{
    int sgn = MEM_SIGNED(mod);
    if (MEM_DST64(mod)) {
        uint64_t *d = R64(w, reg);
        if (width == 8) { /* a pointer: a fixed-size copy (a variable one is a `rep movs`) */
            LANES(m, memcpy(&d[l], host[l] + off, 8));
            return;
        }
        LANES(m, {
            const uint8_t *p = host[l] + off;
            uint64_t v = 0;
            memcpy(&v, p, width);
            if (sgn && width < 8 && (v >> (8 * width - 1)) & 1)
                v |= ~0ull << (8 * width);
            d[l] = v;
        });
        return;
    }
    uint32_t *d = R32(w, reg);
    if (width == 4) {
        LANES(m, memcpy(&d[l], host[l] + off, 4));
        return;
    }
    if (width == 2 && !sgn) { /* f16, bf16, u16: a fixed-size copy, not a call per lane */
        LANES(m, {
            uint16_t h;
            memcpy(&h, host[l] + off, 2);
            d[l] = h;
        });
        return;
    }
    LANES(m, {
        uint32_t v = 0;
        memcpy(&v, host[l] + off, width);
        if (sgn && (v >> (8 * width - 1)) & 1)
            v |= ~0u << (8 * width);
        d[l] = v;
    });
}

/* Copy @p bytes (8 or 16, aligned) from @p src to @p dst in one move: while several host threads
 * run blocks, another block then never sees half of a vector access, as no thread sees half of
 * a GPU's (CUB's look-back publishes a status and a value with one st.relaxed.v2.u32). */
static void move_whole(uint8_t *dst, const uint8_t *src, unsigned bytes)
{
    typedef uint8_t v16 __attribute__((vector_size(16), aligned(16)));
    if (bytes == 8)
        __atomic_store_n((uint64_t *)dst, __atomic_load_n((const uint64_t *)src, __ATOMIC_RELAXED),
                         __ATOMIC_RELAXED);
    else
        *(volatile v16 *)dst = *(const volatile v16 *)src;
}

/* A global vector access of 8 or 16 bytes of 32- or 64-bit elements (each filling its register)
 * while several host threads run blocks: each lane's elements move in one piece. */
static int whole_vectors(const struct exec *x, const struct insn *in, enum space sp)
{
    unsigned count = MEM_COUNT(in->mod), width = in->width;
    return x->atomics && count > 1 && (count * width == 8 || count * width == 16) &&
           (width == 8 || (width == 4 && !MEM_DST64(in->mod))) && sp != SP_SHARED && sp != SP_LOCAL;
}

/* whole_vectors()'s access: lane by lane, the lane's elements gathered in @p v. */
static void vector_lanes(struct warp *w, const struct insn *in, uint8_t **host, uint32_t m,
                         int store)
{
    unsigned count = MEM_COUNT(in->mod), width = in->width;
    LANES(m, {
        _Alignas(16) uint8_t v[16] = {0}; /* every byte set, for the compiler */
        if (!store)
            move_whole(v, host[l], count * width);
        for (unsigned i = 0; i < count; i++) {
            if (in->o[1 + i] == NO_REG)
                continue;
            uint8_t *r = width == 8 ? (uint8_t *)&R64(w, in->o[1 + i])[l]
                                    : (uint8_t *)&R32(w, in->o[1 + i])[l];
            if (store)
                memcpy(v + i * width, r, width);
            else
                memcpy(r, v + i * width, width);
        }
        if (store)
            move_whole(host[l], v, count * width);
    });
}

/* 1 when nothing watches this launch's accesses (no counters, time model or checks): a shared
 * access then needs only its bounds and alignment. */
static int unobserved(const struct exec *x)
{
    return !x->cnt && !x->model && !x->launch->checks;
}

/* 1 when every lane of @p m can access @p bytes of shared memory at b[l] + @p imm: in bounds
 * and aligned (one branch-free pass over the lanes). */
static int shared_ok(const struct exec *x, const uint32_t *b, uint32_t imm, uint32_t bytes,
                     uint32_t m)
{
    uint32_t last = x->smem_bytes - bytes, bad = 0; /* the last address a whole access fits at */
    LANES(m, bad |= ((b[l] + imm) & (bytes - 1)) | (uint32_t)(b[l] + imm > last));
    return !bad && x->smem_bytes >= bytes;
}

/* 1 when the 32 lanes' words b[l] + @p imm lie in order, one row. */
static int row_of_words(const uint32_t *b, uint32_t imm)
{
    uint32_t a0 = b[0] + imm, row = 0;
    for (uint32_t l = 0; l < 32; l++)
        row |= (b[l] + imm) ^ (a0 + 4 * l);
    return !row;
}

/* Register @p d of every lane in @p m from shared memory at x->smem + b[l] + @p imm, offsets
 * already checked. */
static void gather_shared(const struct exec *x, uint32_t *d, const uint32_t *b, uint32_t imm,
                          uint32_t m)
{
    if (m == FULL_MASK) { /* a row read in order, or one word for every lane: no gather */
        uint32_t a0 = b[0] + imm, same = 0;
        for (uint32_t l = 0; l < 32; l++)
            same |= (b[l] + imm) ^ a0;
        if (row_of_words(b, imm)) {
            memcpy(d, x->smem + a0, 128);
            return;
        }
        if (!same) {
            uint32_t v;
            memcpy(&v, x->smem + a0, 4);
            for (int l = 0; l < 32; l++)
                d[l] = v;
            return;
        }
    }
#ifdef __AVX2__
    if (m == FULL_MASK) { /* eight lanes a gather: the offsets are below 2^31 */
        for (int l = 0; l < 32; l += 8) {
            __m256i a = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(b + l)),
                                         _mm256_set1_epi32((int)imm));
            _mm256_storeu_si256((__m256i *)(d + l),
                                _mm256_i32gather_epi32((const int *)x->smem, a, 1));
        }
        return;
    }
#endif
    LANES(m, memcpy(&d[l], x->smem + (uint32_t)(b[l] + imm), 4));
}

/* ld.shared of 1, 2 or 4 32-bit values from a 32-bit address, unobserved (the inner loop of
 * every tiled kernel): the lanes' checks in one pass, then one gather per register, with no
 * array of host pointers. Returns 0, having done nothing, when a lane is out of bounds or
 * misaligned: resolve() then names it. */
static int load_shared_words(const struct exec *x, struct warp *w, const struct insn *in,
                             uint32_t m)
{
    const uint32_t *b = R32(w, in->o[0]);
    uint32_t count = MEM_COUNT(in->mod), imm = (uint32_t)in->imm;
    if (!shared_ok(x, b, imm, 4 * count, m))
        return 0;
    uint32_t base[32]; /* a vector's first register may be its base: keep the addresses */
    if (count > 1)
        b = memcpy(base, b, sizeof base);
    for (uint32_t i = 0; i < count; i++)
        if (in->o[1 + i] != NO_REG)
            gather_shared(x, R32(w, in->o[1 + i]), b, imm + 4 * i, m);
    return 1;
}

/* st.shared's twin of load_shared_words(): lanes in order (the last of several lanes writing
 * one word wins, as in store()), a full warp's row in order as one copy. */
static int store_shared_words(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    const uint32_t *b = R32(w, in->o[0]);
    uint32_t count = MEM_COUNT(in->mod), imm = (uint32_t)in->imm;
    if (!shared_ok(x, b, imm, 4 * count, m))
        return 0;
    x->writes++;
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t *v = R32(w, in->o[1 + i]);
        uint32_t off = imm + 4 * i;
        if (m == FULL_MASK && count == 1 && row_of_words(b, off))
            memcpy(x->smem + (uint32_t)(b[0] + off), v, 128);
        else
            LANES(m, memcpy(x->smem + (uint32_t)(b[l] + off), &v[l], 4));
    }
    return 1;
}

/* The loaded values of every lane of @p m, from its host address host[l], into the registers. */
static void load_lanes(const struct exec *x, struct warp *w, const struct insn *in, uint8_t **host,
                       uint32_t m, enum space sp)
{
    unsigned count = MEM_COUNT(in->mod), width = in->width;
    if (whole_vectors(x, in, sp)) {
        vector_lanes(w, in, host, m, 0);
        return;
    }
    for (unsigned i = 0; i < count; i++)
        if (in->o[1 + i] != NO_REG)
            load_elem(w, in->o[1 + i], host, i * width, m, width, in->mod);
}

static enum event load(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                       enum space sp)
{
    uint8_t *host[32];
    enum event ev =
        resolve(x, w, in, m, sp, MEM_BASE32(in->mod), in->width * MEM_COUNT(in->mod), 0, host);
    if (ev == EV_NONE)
        load_lanes(x, w, in, host, m, sp);
    return ev;
}

/* The stored values of every lane of @p m, from the registers to its host address host[l]. */
static void store_lanes(struct exec *x, struct warp *w, const struct insn *in, uint8_t **host,
                        uint32_t m, enum space sp)
{
    unsigned count = MEM_COUNT(in->mod), width = in->width;
    x->writes++;
    if (whole_vectors(x, in, sp)) {
        vector_lanes(w, in, host, m, 1);
        return;
    }
    for (unsigned i = 0; i < count; i++) {
        size_t off = i * width;
        if (width == 8) {
            const uint64_t *s = R64(w, in->o[1 + i]);
            LANES(m, memcpy(host[l] + off, &s[l], 8));
        } else if (MEM_DST64(in->mod)) { /* a wider register: its low bytes */
            const uint64_t *s = R64(w, in->o[1 + i]);
            LANES(m, memcpy(host[l] + off, &s[l], width));
        } else if (width == 4) {
            const uint32_t *s = R32(w, in->o[1 + i]);
            LANES(m, memcpy(host[l] + off, &s[l], 4));
        } else {
            const uint32_t *s = R32(w, in->o[1 + i]);
            LANES(m, memcpy(host[l] + off, &s[l], width));
        }
    }
}

static enum event store(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                        enum space sp)
{
    uint8_t *host[32], *shadow[32];
    unsigned bytes = in->width * MEM_COUNT(in->mod);
    enum event ev = resolve(x, w, in, m, sp, MEM_BASE32(in->mod), bytes, 1, host);
    if (ev != EV_NONE)
        return ev;
    if (x->launch->prov && sp != SP_SHARED && sp != SP_LOCAL) { /* the values, as stored */
        prov_shadow(x, m, host, bytes, shadow);
        store_lanes(x, w, in, shadow, m, sp);
    }
    store_lanes(x, w, in, host, m, sp);
    return ev;
}

/* The host address of an unobserved (and unrecorded) global access of a full warp from a 64-bit
 * base whose lanes all name one place (*step = 0) or lie one after the other in order, a row
 * (*step = the access's bytes): the patterns of memory-bound kernels, one lookup for all. NULL,
 * having done nothing, for any other access, which resolve() then takes, its faults included. */
static uint8_t *global_row(struct exec *x, const struct warp *w, const struct insn *in, uint32_t m,
                           uint64_t *step)
{
    uint64_t bytes = in->width * MEM_COUNT(in->mod);
    if (m != FULL_MASK || in->o[0] == NO_REG || MEM_BASE32(in->mod) || !unobserved(x) ||
        x->launch->prov)
        return NULL;
    const uint64_t *b = R64(w, in->o[0]);
    uint64_t a0 = b[0] + (uint64_t)in->imm, out_of_row = 0, spread = 0;
    for (uint32_t l = 0; l < 32; l++) {
        out_of_row |= (b[l] - b[0]) ^ (bytes * l);
        spread |= b[l] ^ b[0];
    }
    *step = spread ? bytes : 0;
    if ((out_of_row && spread) || (a0 & (bytes - 1)) || !mem_find(x->mem, a0, 31 * *step + bytes))
        return NULL;
    return mem_host(x->mem, a0);
}

/* 1 when @p in moves one 32-bit register per lane: a row of words is then one copy. */
static int one_word(const struct insn *in)
{
    return MEM_COUNT(in->mod) == 1 && in->width == 4 && !MEM_DST64(in->mod) && in->o[1] != NO_REG;
}

/* host[] of global_row()'s lanes. */
static void row_lanes(uint8_t *p, uint64_t step, uint8_t **host)
{
    for (uint32_t l = 0; l < 32; l++)
        host[l] = p + step * l;
}

/* A strong load of global memory: the warp's loop yields within SPIN_BRANCHES (vm_impl.h). */
static void strong_load_yields_soon(struct exec *x, const struct insn *in)
{
    if ((MEM_ORDER(in->mod) & MEM_STRONG) && x->back_branches < YIELD_BRANCHES - SPIN_BRANCHES)
        x->back_branches = YIELD_BRANCHES - SPIN_BRANCHES;
}

enum event h_LD_GLOBAL(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    strong_load_yields_soon(x, in);
    uint64_t step;
    uint8_t *p = global_row(x, w, in, m, &step), *host[32];
    if (!p)
        return load(x, w, in, m, SP_GLOBAL);
    if (one_word(in) && step) {
        memcpy(R32(w, in->o[1]), p, 128);
    } else if (one_word(in)) { /* one word for every lane */
        uint32_t *d = R32(w, in->o[1]), v;
        memcpy(&v, p, 4);
        for (int l = 0; l < 32; l++)
            d[l] = v;
    } else {
        row_lanes(p, step, host);
        load_lanes(x, w, in, host, m, SP_GLOBAL);
    }
    return EV_NONE;
}

enum event h_ST_GLOBAL(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    uint64_t step;
    uint8_t *p = global_row(x, w, in, m, &step), *host[32];
    if (!p)
        return store(x, w, in, m, SP_GLOBAL);
    if (!one_word(in)) {
        row_lanes(p, step, host);
        store_lanes(x, w, in, host, m, SP_GLOBAL);
        return EV_NONE;
    }
    const uint32_t *v = R32(w, in->o[1]);
    x->writes++;
    if (step)
        memcpy(p, v, 128);
    else
        memcpy(p, &v[31], 4); /* one word for every lane: the last lane wins, as in store() */
    return EV_NONE;
}

enum event h_LD_SHARED(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    unsigned count = MEM_COUNT(in->mod);
    if ((count == 1 || count == 2 || count == 4) && in->width == 4 && MEM_BASE32(in->mod) &&
        !MEM_DST64(in->mod) && in->o[0] != NO_REG && unobserved(x) &&
        load_shared_words(x, w, in, m))
        return EV_NONE;
    return load(x, w, in, m, SP_SHARED);
}

enum event h_ST_SHARED(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    unsigned count = MEM_COUNT(in->mod);
    if ((count == 1 || count == 2 || count == 4) && in->width == 4 && MEM_BASE32(in->mod) &&
        !MEM_DST64(in->mod) && in->o[0] != NO_REG && unobserved(x) &&
        store_shared_words(x, w, in, m))
        return EV_NONE;
    return store(x, w, in, m, SP_SHARED);
}

enum event h_LD_LOCAL(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return load(x, w, in, m, SP_LOCAL);
}

enum event h_ST_LOCAL(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return store(x, w, in, m, SP_LOCAL);
}

enum event h_LD_GENERIC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    strong_load_yields_soon(x, in);
    return load(x, w, in, m, SP_GENERIC);
}

enum event h_ST_GENERIC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return store(x, w, in, m, SP_GENERIC);
}

/* Register @p reg of lane @p from copied to every other lane of @p m. */
static void broadcast_lane(struct warp *w, uint32_t reg, int from, uint32_t m, int wide)
{
    if (wide) {
        uint64_t *d = R64(w, reg), v = d[from];
        LANES(m, d[l] = v);
    } else {
        uint32_t *d = R32(w, reg), v = d[from];
        LANES(m, d[l] = v);
    }
}

/* Kernel parameters: one buffer for the whole grid. An address with no register (the usual
 * `ld.param.u64 %rd1, [name]`) is the same for every lane: one lane loads, the others copy it. */
enum event h_LD_PARAM(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    uint64_t addr[32];
    unsigned count = MEM_COUNT(in->mod), bytes = in->width * count;
    uint8_t *host[32];
    uint32_t size = x->fn->info.param_bytes;
    int first = m ? __builtin_ctz(m) : 0;
    if (m && in->o[0] == NO_REG && (uint64_t)in->imm + bytes <= size) {
        host[first] = (uint8_t *)x->params + in->imm;
        for (unsigned i = 0; i < count; i++)
            if (in->o[1 + i] != NO_REG) {
                load_elem(w, in->o[1 + i], host, i * in->width, 1u << first, in->width, in->mod);
                broadcast_lane(w, in->o[1 + i], first, m, MEM_DST64(in->mod));
            }
        return EV_NONE;
    }
    lane_addrs(w, in, m, MEM_BASE32(in->mod), addr);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (addr[l] + bytes > size)
            return fault(x, w, in, l, "parameter", 0, bytes, addr[l], "past the parameters");
        host[l] = (uint8_t *)x->params + addr[l];
    }
    for (unsigned i = 0; i < count; i++)
        if (in->o[1 + i] != NO_REG)
            load_elem(w, in->o[1 + i], host, i * in->width, m, in->width, in->mod);
    return EV_NONE;
}

/* A call's parameters: each lane's own frame. */
static enum event callparam(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                            uint8_t **host)
{
    unsigned bytes = in->width * MEM_COUNT(in->mod);
    uint32_t frame = x->mod->call_total;
    if ((uint64_t)in->imm + bytes > frame)
        return fault(x, w, in, __builtin_ctz(m), "call parameter", 0, bytes, (uint64_t)in->imm,
                     "past the call's parameters");
    LANES(m, host[l] = w->call_params + (size_t)l * frame + in->imm);
    return EV_NONE;
}

enum event h_LD_CALLPARAM(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    uint8_t *host[32];
    enum event ev = callparam(x, w, in, m, host);
    if (ev != EV_NONE)
        return ev;
    for (unsigned i = 0; i < MEM_COUNT(in->mod); i++)
        if (in->o[1 + i] != NO_REG)
            load_elem(w, in->o[1 + i], host, i * in->width, m, in->width, in->mod);
    return EV_NONE;
}

enum event h_ST_CALLPARAM(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    uint8_t *host[32];
    enum event ev = callparam(x, w, in, m, host);
    if (ev != EV_NONE)
        return ev;
    for (unsigned i = 0; i < MEM_COUNT(in->mod); i++) {
        size_t off = i * in->width;
        if (in->width == 8) {
            const uint64_t *s = R64(w, in->o[1 + i]);
            LANES(m, memcpy(host[l] + off, &s[l], 8));
        } else {
            const uint32_t *s = R32(w, in->o[1 + i]);
            LANES(m, memcpy(host[l] + off, &s[l], in->width));
        }
    }
    return EV_NONE;
}

/* ---- atomics ------------------------------------------------------------------------------------
 */

/* One 16-bit float of an atom (binary16 or bfloat16, by @p t): the sum rounded once to nearest
 * even, not flushed (.noftz), or the least or greatest, a NaN losing to a number and -0 below +0
 * (the PTX ISA's min and max). */
static uint16_t atom_half(int op, int t, uint16_t old, uint16_t b)
{
    struct fp_fmt f = t == CT_F16 ? FMT_F16 : FMT_BF16;
    double x = fp_value(old, f), y = fp_value(b, f);
    if (op == AT_ADD || (isnan(x) && isnan(y)))
        return (uint16_t)fp_round(fp_add_odd(x, y), f, RND_RN, 0);
    if (isnan(x) || isnan(y))
        return isnan(x) ? b : old;
    if (x == y) /* equal, or zeros of either sign: the sign bit of min's is either's */
        return op == AT_MIN ? (uint16_t)(old | b) : (uint16_t)(old & b);
    return (op == AT_MIN) == (y < x) ? b : old;
}

uint64_t vm_atom1(uint32_t mod, uint8_t *p, uint64_t b, uint64_t c, unsigned width)
{
    uint64_t old = 0, v = 0;
    memcpy(&old, p, width);
    int op = (int)ATOM_OP(mod), t = (int)ATOM_TYPE(mod);
    if (t == CT_F16 || t == CT_BF16) { /* one half, or two: f16x2, bf16x2 */
        for (unsigned i = 0; i < width / 2; i++)
            v |= (uint64_t)atom_half(op, t, (uint16_t)(old >> 16 * i), (uint16_t)(b >> 16 * i))
                 << 16 * i;
        memcpy(p, &v, width);
        return old;
    }
    switch (op) {
    case AT_ADD:
        if (t == CT_F32)
            v = f2u(u2f((uint32_t)old) + u2f((uint32_t)b));
        else if (t == CT_F64)
            v = d2u(u2d(old) + u2d(b));
        else
            v = old + b;
        break;
    case AT_MIN:
    case AT_MAX: {
        int less;
        if (t == CT_F32)
            less = u2f((uint32_t)b) < u2f((uint32_t)old);
        else if (t == CT_F64)
            less = u2d(b) < u2d(old);
        else if (t == CT_S32)
            less = (int32_t)b < (int32_t)old;
        else if (t == CT_S64)
            less = (int64_t)b < (int64_t)old;
        else
            less = b < old;
        v = (op == AT_MIN) == less ? b : old;
        break;
    }
    case AT_INC:
        v = old >= b ? 0 : old + 1;
        break;
    case AT_DEC:
        v = old == 0 || old > b ? b : old - 1;
        break;
    case AT_AND:
        v = old & b;
        break;
    case AT_OR:
        v = old | b;
        break;
    case AT_XOR:
        v = old ^ b;
        break;
    case AT_EXCH:
        v = b;
        break;
    default:
        v = old == b ? c : old;
        break; /* cas */
    }
    memcpy(p, &v, width);
    return old;
}

/* atom / red: lane by lane, in lane order (so results are deterministic). */
enum event h_ATOM(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    uint8_t *host[32];
    unsigned width = in->width;
    enum space sp = (enum space)ATOM_SPACE(in->mod);
    enum event ev = resolve(x, w, in, m, sp, (in->mod & ATOM_BASE32_BIT) != 0, width, 1, host);
    if (ev != EV_NONE)
        return ev;
    if (sp != SP_SHARED)
        vm_atomics_lock(x);
    uint64_t keep = width == 8 ? ~0ull : (1ull << 8 * width) - 1; /* a 16-bit value's bits */
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t b = (width == 8 ? R64(w, in->o[2])[l] : R32(w, in->o[2])[l]) & keep;
        uint64_t c = in->o[3] == NO_REG ? 0
                     : width == 8       ? R64(w, in->o[3])[l]
                                        : R32(w, in->o[3])[l] & keep;
        uint64_t old = vm_atom1(in->mod, host[l], b, c, width), now = 0;
        memcpy(&now, host[l], width);
        x->writes += now != old; /* a failed compare-and-swap changes nothing */
        if (in->o[1] != NO_REG) {
            if (width == 8)
                R64(w, in->o[1])[l] = old;
            else
                R32(w, in->o[1])[l] = (uint32_t)old;
        }
    }
    if (sp != SP_SHARED)
        vm_atomics_unlock(x);
    return EV_NONE;
}

enum event h_NOP(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x, (void)w, (void)in, (void)m;
    return EV_NONE;
}

enum event h_FENCE(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    if (x->launch->checks & VM_CHECK_GLOBAL)
        check_global_fence(x, w, m, in->width);
    return EV_NONE;
}

/* The bytes each lane of a cp.async reads: src_size (o[2]) when given, capped at the width; 0
 * for lanes whose ignore-src predicate (o[3]) is true. */
static unsigned cp_async_size(const struct warp *w, const struct insn *in, int l)
{
    if (in->o[3] != NO_REG && ((PRED(w, in->o[3]) >> l) & 1))
        return 0;
    unsigned n = in->o[2] != NO_REG ? R32(w, in->o[2])[l] : in->width;
    return n < in->width ? n : in->width;
}

/* cp.async: the global bytes are read now (one request for the lanes that read a whole
 * width; a lane reading fewer bytes is checked alone), the shared ones are written at the wait
 * that lands the copy (ops_async.c). A lane with nothing to read touches no global memory. */
enum event h_CP_ASYNC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    uint8_t *dst[32], *src[32];
    unsigned width = in->width, size[32];
    enum event ev = resolve(x, w, in, m, SP_SHARED, MEM_BASE32(in->mod), width, 1, dst);
    if (ev != EV_NONE)
        return ev;
    uint32_t whole = 0;
    LANES(m, {
        size[l] = cp_async_size(w, in, l);
        whole |= (uint32_t)(size[l] == width) << l;
    });
    struct insn from = *in;
    from.o[0] = in->o[1];
    from.imm = 0;
    ev = whole ? resolve(x, w, &from, whole, SP_GLOBAL, 0, width, 0, src) : EV_NONE;
    for (uint32_t mm = m & ~whole; mm && ev == EV_NONE; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (size[l])
            ev = vm_access(x, w, in, l, SP_GLOBAL, R64(w, in->o[1])[l], size[l], 1, 0, &src[l]);
    }
    if (ev != EV_NONE)
        return ev;
    uint32_t pc = (uint32_t)(in - x->code);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint8_t data[16] = {0}; /* past src_size: zeros */
        if (size[l])
            memcpy(data, src[l], size[l]);
        vm_async_issue(w, l, (uint32_t)(dst[l] - x->smem), data, width, pc);
    }
    return EV_NONE;
}
