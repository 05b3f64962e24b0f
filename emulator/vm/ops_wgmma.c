/**
 * @file ops_wgmma.c
 * @brief Warpgroup instructions (sm_90a): wgmma.fence, wgmma.mma_async, wgmma.commit_group,
 *        wgmma.wait_group and setmaxnreg (PTX ISA, "Asynchronous Warpgroup Level Matrix
 *        Multiply-Accumulate Instructions", "setmaxnreg").
 *
 * A warpgroup is warps 4g .. 4g + 3 of a block; every thread of it executes each of these
 * instructions (.sync.aligned), or the launch fails with one line. Each warp's k-th
 * wgmma.mma_async is the warpgroup's k-th operation: the first warp to issue it queues it, the
 * others join it (the same instruction, descriptors and scale-d, or the launch fails). It runs
 * when a wgmma.wait_group that covers its commit group executes, once all four warps have issued
 * it (a warp whose wait covers an operation others have not issued yet waits for them), reading
 * shared memory as it is then: the latest a GPU may read it, so a buffer refilled before the wait
 * gives the wrong answer here every time. Reading or writing its accumulator or A-fragment
 * registers in between is undefined in the PTX ISA: ptxas waits for the wgmma there (its warning
 * C7517), and so does the VM, the warp waiting for the warpgroup's other warps to issue it;
 * racecheck reports it at its line.
 *
 * The operands follow the PTX ISA's layouts: A's and D's register fragments (warp j of the
 * warpgroup holds rows 16 j .. 16 j + 15, as mma.m16n8kK holds its tile: ops_tensor.c's
 * mma_pos()), and A and B in shared memory through 64-bit matrix descriptors: start address,
 * leading and stride byte offsets (each (x & 0x3FFFF) >> 4), base offset and swizzle (none, 128,
 * 64 or 32 bytes), read K-major (the default) or MN-major (imm-trans-a / -b), with the canonical
 * layouts of "Shared Memory Matrix Layout" (a core matrix is 8 rows of 16 bytes: 8 f16, 16 fp8
 * or 8-bit integers, 128 b1, low bit first) and the swizzle XORing address bits 4.. with bits
 * 7.. (see wg_addr()). K is 32 bytes of a row of A whatever the type.
 *
 * Arithmetic, mma.sync's (ops_tensor.c's tile functions, on the whole 64 x N x K tile): products
 * of f16, bf16, tf32, e4m3 and e5m2 values are exact in fp32; each element of D adds its K
 * products in k order in fp32, one rounding per addition; an f16 D is read as fp32 and rounded
 * once to f16 at the end, the emulator's one rounding model for fp16 accumulators
 * (emulator/README.md). s8 and u8 products (b1: the bits' and) are summed exactly into the s32
 * D, wrapping, or clamped with .satfinite. imm-scale-a/b = -1 negate A or B, scale-d = 0 drops
 * D.
 */
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "count.h"
#include "fp.h"
#include "hopper.h"

/* ---- state -------------------------------------------------------------------------------- */

/* One wgmma.mma_async of a warpgroup, issued by some of its warps and not yet run. */
struct wg_op {
    uint32_t pc;      /* the instruction */
    uint32_t group;   /* its commit group: commit_groups before it */
    uint8_t issued;   /* warps of the warpgroup (bits 0-3) that issued it */
    uint8_t scale_d;  /* 1: D = A B + D; 0: D = A B */
    uint64_t desc[2]; /* A's descriptor (unused with A in registers) and B's */
    /* Counting: the block's copies issued when the first warp issued it, and whether a copy was
     * in flight for a warp when it issued it (count.h). */
    uint64_t copies;
    uint8_t in_flight;
    uint8_t waited; /* a wait_group that retires it has let the block's other warps run once */
};

/* One warpgroup. */
struct warpgroup {
    struct wg_op *ops; /* issued and not yet run, oldest first */
    uint32_t nops, cap;
    uint64_t first;        /* the sequence number of ops[0] */
    uint64_t issued[4];    /* wgmma.mma_async each warp has issued */
    uint32_t committed[4]; /* wgmma.commit_group each warp has executed */
    uint32_t nreg[4];      /* each warp's registers after its last setmaxnreg (0: unknown) */
    uint32_t nreg_seen[4]; /* setmaxnreg each warp has executed */
    uint32_t nreg_pc[8];   /* the warpgroup's first setmaxnreg instructions, in order */
};

/* A register a wgmma in flight owns (racecheck): how many own it, and the latest one. */
struct watch_unit {
    uint32_t n, pc;
};

struct hopper {
    uint32_t nwg;
    struct warpgroup *wg;
    struct cluster *own;       /* barrier.cluster of a block alone (no cluster launch) */
    struct watch_unit **watch; /* per warp, per 4 bytes of its registers, or NULL */
    size_t units;              /* 4-byte units of a warp's registers */
    uint8_t *scratch;          /* one wgmma's tiles (run_op()), grown to the largest */
    size_t scratch_size;
};

/* 1 when a function the kernel reaches executes one of these instructions. */
static int uses_hopper(const struct exec *x)
{
    for (uint32_t f = 0; f < x->mod->nfuncs; f++) {
        const struct func *fn = &x->mod->funcs[f];
        for (uint32_t pc = fn->first; x->fbase[f] != NO_REG && pc < fn->first + fn->count; pc++) {
            uint16_t op = x->code[pc].op;
            if (op == OP_WGMMA_MMA || op == OP_WGMMA_COMMIT || op == OP_WGMMA_WAIT ||
                op == OP_SETMAXNREG || op == OP_BAR_CLUSTER || op == OP_FENCE_PROXY_ASYNC)
                return 1;
        }
    }
    return 0;
}

void vm_hopper_make(struct exec *x)
{
    x->hop = NULL;
    x->wgmma_watch = 0;
    if (!uses_hopper(x))
        return;
    struct hopper *h = emu_calloc(1, sizeof *h);
    h->nwg = (x->nwarps + 3) / 4;
    h->wg = emu_calloc(h->nwg, sizeof *h->wg);
    h->watch = emu_calloc(x->nwarps, sizeof *h->watch);
    h->units = (size_t)(x->warps[0].local - x->warps[0].arena) / 4;
    x->hop = h;
}

void vm_hopper_free(struct exec *x)
{
    struct hopper *h = x->hop;
    if (!h)
        return;
    for (uint32_t i = 0; i < h->nwg; i++)
        free(h->wg[i].ops);
    for (uint32_t i = 0; i < x->nwarps; i++)
        free(h->watch[i]);
    vm_cluster_free(h->own);
    free(h->watch);
    free(h->wg);
    free(h->scratch);
    free(h);
    x->hop = NULL;
}

void vm_hopper_block_start(struct exec *x)
{
    struct hopper *h = x->hop;
    for (uint32_t i = 0; i < h->nwg; i++) {
        struct warpgroup *g = &h->wg[i];
        struct wg_op *ops = g->ops;
        uint32_t cap = g->cap;
        memset(g, 0, sizeof *g);
        g->ops = ops, g->cap = cap;
    }
    for (uint32_t i = 0; i < x->nwarps && x->wgmma_watch; i++) /* the last block left some */
        if (h->watch[i])
            memset(h->watch[i], 0, h->units * sizeof *h->watch[i]);
    x->wgmma_watch = 0;
    if (h->own)
        vm_cluster_reset(h->own);
}

struct cluster *vm_hopper_own_cluster(struct exec *x)
{
    struct hopper *h = x->hop;
    if (!h->own) {
        static const uint32_t one[3] = {1, 1, 1};
        h->own = vm_cluster_new(one, x->nthreads);
        h->own->cta[0] = x;
    }
    return h->own;
}

/* Warp @p w's warpgroup, once checked that the whole warp executes @p in and the warpgroup is
 * whole (four warps of 32 threads); NULL when the launch failed. */
static struct warpgroup *group_of(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    uint32_t g = w->index / 4;
    if (m != FULL_MASK) {
        vm_fail(x, w, in, __builtin_ctz(m), VM_UNSUPPORTED,
                "%s with part of the warp (lanes 0x%08x): every thread of the warpgroup must "
                "execute it",
                vm_op_names[in->op], m);
        return NULL;
    }
    if (x->nthreads < 128 * (g + 1)) {
        vm_fail(x, w, in, 0, VM_UNSUPPORTED,
                "%s in warp %u, whose warpgroup (warps %u to %u) is not whole: the block has %u "
                "threads, and a warpgroup is 4 warps of 32",
                vm_op_names[in->op], w->index, 4 * g, 4 * g + 3, x->nthreads);
        return NULL;
    }
    return &x->hop->wg[g];
}

/* ---- the registers a wgmma in flight owns ---------------------------------------------------- */

/* Warp @p w's accumulator and A-fragment registers of @p in: owned (+1) or given back (-1). */
static void watch(struct exec *x, struct warp *w, const struct insn *in, int delta)
{
    struct hopper *h = x->hop;
    if (!h->watch[w->index])
        h->watch[w->index] = emu_calloc(h->units, sizeof *h->watch[w->index]);
    const uint32_t *pool = &x->mod->pool[in->o[5]];
    uint32_t base = x->fbase[x->mod->func_at[in - x->code]];
    for (uint32_t i = 0; i < pool[0] + pool[1]; i++) {
        struct watch_unit *u = &h->watch[w->index][(base + pool[2 + i]) / 4];
        u->n += (uint32_t)delta;
        u->pc = (uint32_t)(in - x->code);
    }
    x->wgmma_watch += (uint32_t)delta;
}

/* ---- shared-memory operands ----------------------------------------------------------------- */

/* The descriptor's fields, in bytes (PTX ISA, "Matrix Descriptor Format"). */
struct desc {
    uint64_t start, lbo, sbo;
    uint32_t base, swizzle; /* swizzle: the XOR's width in 16-byte units' bits: 0, 1, 2, 3 */
};

static struct desc desc_of(uint64_t d)
{
    static const uint32_t bits[4] = {0, 3, 2, 1}; /* none, 128B, 64B, 32B */
    return (struct desc){(d & 0x3FFF) << 4, (d >> 16 & 0x3FFF) << 4, (d >> 32 & 0x3FFF) << 4,
                         (uint32_t)(d >> 49 & 7), bits[d >> 62]};
}

/*
 * The shared-memory offset of element (mn, k) of an operand (A's row m, or B's column n) of
 * @p e-byte elements, K-major or (@p mn_major) MN-major, with the canonical layouts of the PTX
 * ISA. No swizzle: 8 x 16-byte core matrices, LBO apart along the leading dimension and SBO along
 * the other. Swizzle of W = 16 << s bytes: K-major rows W bytes apart, 8 rows to an atom, atoms
 * SBO apart; MN-major rows of W bytes along MN, LBO apart, 8 rows of k to an atom, atoms SBO
 * apart. Then bits 4 .. 4 + s of the address are XORed with bits 7 .. 7 + s, less the base offset
 * (the pattern's row where it starts).
 */
static uint64_t wg_addr(const struct desc *d, uint32_t mn, uint32_t k, uint32_t e, int mn_major)
{
    uint32_t t = 16 / e, w = 16u << d->swizzle; /* t: elements per 16 bytes */
    uint64_t off;
    if (!d->swizzle && !mn_major)
        off = (mn % 8) * 16 + (mn / 8) * d->sbo + (k % t) * e + (k / t) * d->lbo;
    else if (!d->swizzle)
        off = (mn % t) * e + (mn / t) * d->sbo + (k % 8) * 16 + (k / 8) * d->lbo;
    else if (!mn_major)
        off = (mn % 8) * w + (mn / 8) * d->sbo + k * e;
    else
        off = (mn % (w / e)) * e + (mn / (w / e)) * d->lbo + (k % 8) * w + (k / 8) * d->sbo;
    uint64_t a = d->start + off;
    if (d->swizzle) {
        uint64_t mask = (1u << d->swizzle) - 1;
        a ^= (((a >> 7) - d->base) & mask) << 4;
    }
    return a;
}

/* K of a wgmma.mma_async whose A has type @p at: 32 bytes of a row of A (16 f16 or bf16, 8
 * tf32, 32 fp8 or 8-bit integers, 256 bits). */
static uint32_t wg_k(uint32_t at)
{
    return 256u / (uint32_t)mma_elem_bits((int)at);
}

/* How operand @p which (0 A, 1 B) of @p in lies along K in shared memory: @p e bytes read at
 * once (an element, or eight b1 elements, low bit first), @p units of them. */
static void wg_units(const struct insn *in, int which, uint32_t *e, uint32_t *units)
{
    uint32_t at = WG_AT(in->mod),
             bits = (uint32_t)mma_elem_bits((int)(which ? WG_BT(in->mod) : at));
    *e = bits < 8 ? 1 : bits / 8;
    *units = wg_k(at) * bits / (8 * *e);
}

/*
 * Operand @p which (0 A: rows m; 1 B: columns n) of @p rows x K elements through descriptor
 * @p d into @p out as raw elements (A: out[m * K + k]; B: out[k * N + n]). Fails the launch (as
 * warp @p w's) on an element outside the block's shared memory.
 */
static enum event read_operand(struct exec *x, struct warp *w, const struct insn *in, int which,
                               uint64_t desc, uint32_t rows, uint32_t K, uint64_t *out)
{
    uint32_t e, units, per;
    wg_units(in, which, &e, &units);
    per = K / units; /* elements a unit: 1, or 8 of b1 */
    int mn_major = which ? (int)WG_TB(in->mod) : (int)WG_TA(in->mod);
    struct desc d = desc_of(desc);
    for (uint32_t mn = 0; mn < rows; mn++)
        for (uint32_t u = 0; u < units; u++) {
            uint64_t a = wg_addr(&d, mn, u, e, mn_major), raw = 0;
            if (a + e > x->smem_bytes)
                return vm_fail(x, w, in, 0, VM_FAULT,
                               "wgmma.mma_async reads %s's element (%u, %u) at shared offset %llu, "
                               "past the block's %u bytes of shared memory (descriptor 0x%016llx)",
                               which ? "B" : "A", which ? u * per : mn, which ? mn : u * per,
                               (unsigned long long)a, x->smem_bytes, (unsigned long long)desc);
            memcpy(&raw, x->smem + a, e);
            for (uint32_t j = 0, k = u * per; j < per; j++, k++)
                out[which ? k * rows + mn : mn * K + k] = per == 1 ? raw : raw >> j & 1;
        }
    return EV_NONE;
}

/* Element i of a fragment in registers @p regs (32-bit ones, each holding 32 / @p bits
 * elements, low first) of lane @p l, read (NULL @p set) or written. */
static uint32_t frag_elem(uint8_t *arena, const uint32_t *regs, uint32_t bits, uint32_t l,
                          uint32_t i, const uint32_t *set)
{
    uint32_t per = 32 / bits, *r = (uint32_t *)(arena + regs[i / per]) + l;
    uint32_t shift = bits * (i % per), mask = (bits == 32 ? ~0u : (1u << bits) - 1) << shift;
    if (set)
        *r = (*r & ~mask) | (*set << shift & mask);
    return (*r & mask) >> shift;
}

/* Where element i of lane @p l's accumulator fragment in warp @p j of the warpgroup sits in the
 * row-major 64 x @p N tile: warp j holds rows 16 j .. 16 j + 15, each four elements an 8-column
 * tile of mma.m16n8's accumulator layout (PTX ISA, "Register Fragments", wgmma's D). */
static uint32_t d_index(uint32_t N, uint32_t j, uint32_t l, uint32_t i)
{
    return 16 * j * N + 8 * (i >> 2) + (uint32_t)mma_pos(2, 0, (int)N, (int)l, (int)(i & 3));
}

/* ---- running an operation ------------------------------------------------------------------- */

/* D = A B + D (or A B) for operation @p op of warpgroup @p gi, its fragments in its four warps:
 * the tiles gathered as raw elements (A's register fragment as mma.m16n8's, warp j holding rows
 * 16 j .. 16 j + 15), then mma.sync's arithmetic for their types. */
static enum event run_op(struct exec *x, struct warp *w, uint32_t gi, const struct wg_op *op)
{
    const struct insn *in = &x->code[op->pc];
    struct hopper *h = x->hop;
    uint32_t mod = in->mod, N = WG_N(mod), at = WG_AT(mod), bt = WG_BT(mod), dt = WG_DT(mod);
    uint32_t K = wg_k(at), abits = (uint32_t)mma_elem_bits((int)at), dbits = dt == MT_F16 ? 16 : 32;
    const uint32_t *pool = &x->mod->pool[in->o[5]], *dregs = pool + 2, *aregs = dregs + pool[0];
    size_t n = 64 * K + K * N + 64 * N, need = n * (sizeof(uint64_t) + sizeof(float));
    if (h->scratch_size < need) {
        h->scratch = emu_realloc(h->scratch, need);
        h->scratch_size = need;
    }
    uint64_t *A = (uint64_t *)h->scratch, *B = A + 64 * K, *D = B + K * N;
    uint32_t base = x->fbase[x->mod->func_at[op->pc]];
    enum event ev = in->o[0] == NO_REG ? EV_NONE : read_operand(x, w, in, 0, op->desc[0], 64, K, A);
    if (ev == EV_NONE)
        ev = read_operand(x, w, in, 1, op->desc[1], N, K, B);
    if (ev != EV_NONE)
        return ev;
    int log_per = __builtin_ctz(32 / abits); /* A's elements to a register, log 2 */
    for (uint32_t j = 0; j < 4; j++) {
        uint8_t *arena = x->warps[4 * gi + j].arena + base;
        for (uint32_t l = 0; l < 32; l++) {
            for (uint32_t i = 0; in->o[0] == NO_REG && i < K / 2; i++)
                A[16 * j * K + (uint32_t)mma_pos(0, log_per, (int)K, (int)l, (int)i)] =
                    frag_elem(arena, aregs, abits, l, i, NULL);
            for (uint32_t i = 0; i < N / 2; i++)
                D[d_index(N, j, l, i)] =
                    op->scale_d ? frag_elem(arena, dregs, dbits, l, i, NULL) : 0;
        }
    }
    if (dt == MT_S32) {
        const int types[4] = {(int)at, (int)bt, MT_S32, MT_S32};
        mma_tile_exact(64, (int)N, (int)K, types, A, B, D, D, mod & MMA_SATFINITE_BIT);
    } else {
        float *fa = (float *)(D + 64 * N), *fb = fa + 64 * K, *fd = fb + K * N;
        tc_values((int)at, A, (int)(64 * K), fa);
        tc_values((int)bt, B, (int)(K * N), fb);
        tc_values((int)dt, D, (int)(64 * N), fd);
        for (uint32_t i = 0; WG_NA(mod) && i < 64 * K; i++)
            fa[i] = -fa[i];
        for (uint32_t i = 0; WG_NB(mod) && i < K * N; i++)
            fb[i] = -fb[i];
        mma_tile_as(64, (int)N, (int)K, (int)at, (int)dt, fa, fb, fd, fd);
        for (uint32_t i = 0; i < 64 * N; i++)
            D[i] = dt == MT_F32 ? f2u(fd[i]) : fp_f32_to_f16(fd[i]);
    }
    for (uint32_t j = 0; j < 4; j++) {
        uint8_t *arena = x->warps[4 * gi + j].arena + base;
        for (uint32_t l = 0; l < 32; l++)
            for (uint32_t i = 0; i < N / 2; i++) {
                uint32_t raw = (uint32_t)D[d_index(N, j, l, i)];
                frag_elem(arena, dregs, dbits, l, i, &raw);
            }
    }
    return EV_NONE;
}

/* ---- the instructions ------------------------------------------------------------------------ */

/* Lane 0's value of 64-bit register @p off, once checked the same in every lane. */
static int uniform64(const struct warp *w, uint32_t off, uint64_t *v)
{
    const uint64_t *r = R64(w, off);
    uint64_t diff = 0;
    for (int l = 1; l < 32; l++)
        diff |= r[l] ^ r[0];
    *v = r[0];
    return !diff;
}

/* The work of one wgmma.mma_async: 2 M N K, M = 64. */
static uint64_t wg_flops(const struct insn *in)
{
    return 2ull * 64 * WG_N(in->mod) * wg_k(WG_AT(in->mod));
}

/* A fully issued operation: counted, and its shared-memory reads checked (racecheck, initcheck,
 * the async proxy) as the warpgroup's read, spread over warp @p w's lanes, now, in program
 * order: after every access its own threads made before they issued it. */
static void issued_by_all(struct exec *x, struct warp *w, const struct insn *in,
                          const struct wg_op *op)
{
    uint32_t N = WG_N(in->mod);
    if (x->cnt)
        count_wgmma(x, wg_flops(in), mma_elem_bits((int)WG_AT(in->mod)) == 8);
    if (!(x->launch->checks & (VM_CHECK_RACE | VM_CHECK_INIT)))
        return;
    for (int which = in->o[0] == NO_REG; which < 2; which++) {
        struct desc d = desc_of(op->desc[which]);
        uint32_t rows = which ? N : 64, n = 0, e, K;
        uint64_t addr[32];
        wg_units(in, which, &e, &K);
        for (uint32_t mn = 0; mn < rows; mn++)
            for (uint32_t k = 0; k < K; k++) {
                addr[n] = wg_addr(&d, mn, k, e, which ? (int)WG_TB(in->mod) : (int)WG_TA(in->mod));
                if (addr[n] + e > x->smem_bytes)
                    return; /* the wait fails the launch, naming it */
                if (x->launch->checks & VM_CHECK_RACE)
                    check_async_wgmma_read(x, w, in, addr[n], e);
                if (++n == 32 || (mn == rows - 1 && k == K - 1)) {
                    check_shared_group(x, w, in, addr, n == 32 ? FULL_MASK : (1u << n) - 1, e);
                    n = 0;
                }
            }
    }
}

/* wgmma.mma_async: warp @p w issues its next operation of the warpgroup (see the file comment). */
enum event h_WGMMA_MMA(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    struct warpgroup *g = group_of(x, w, in, m);
    if (!g)
        return EV_ERROR;
    uint32_t wi = w->index % 4, pc = (uint32_t)(in - x->code);
    struct wg_op now = {pc, g->committed[wi], 0, (uint8_t)(PRED(w, in->o[2]) & 1), {0, 0}, 0, 0, 0};
    uint32_t scale = PRED(w, in->o[2]);
    if ((in->o[0] != NO_REG && !uniform64(w, in->o[0], &now.desc[0])) ||
        !uniform64(w, in->o[1], &now.desc[1]) || (scale != 0 && scale != FULL_MASK))
        return vm_fail(x, w, in, 0, VM_UNSUPPORTED,
                       "wgmma.mma_async's descriptors and scale-d must be the same in every thread "
                       "of the warpgroup, and they differ between the warp's lanes");
    uint64_t seq = g->issued[wi]++;
    if (seq == g->first + g->nops) { /* the first warp to issue it */
        if (g->nops == g->cap) {
            g->cap = g->cap ? 2 * g->cap : 8;
            g->ops = emu_realloc(g->ops, g->cap * sizeof *g->ops);
        }
        now.copies = x->cnt ? count_copies_issued(x) : 0;
        g->ops[g->nops++] = now;
    }
    struct wg_op *op = &g->ops[seq - g->first];
    if (op->pc != pc || op->group != now.group || memcmp(op->desc, now.desc, sizeof now.desc) ||
        op->scale_d != now.scale_d) {
        char other[200];
        return vm_fail(
            x, w, in, 0, VM_UNSUPPORTED,
            "warps of warpgroup %u issued different wgmma operations as their "
            "operation %llu (another warp issued the wgmma.mma_async at %s, or in another "
            "commit group, or with other descriptors or scale-d)",
            w->index / 4, (unsigned long long)seq,
            vm_where(x->mod, &x->code[op->pc], other, sizeof other));
    }
    op->issued |= (uint8_t)(1u << wi);
    if (x->cnt)
        op->in_flight |= (uint8_t)count_copies_in_flight(x, w->index);
    watch(x, w, in, 1);
    if (op->issued == 0xF)
        issued_by_all(x, w, in, op);
    return EV_NONE;
}

enum event h_WGMMA_FENCE(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return group_of(x, w, in, m) ? EV_NONE : EV_ERROR;
}

enum event h_WGMMA_COMMIT(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    struct warpgroup *g = group_of(x, w, in, m);
    if (!g)
        return EV_ERROR;
    g->committed[w->index % 4]++;
    return EV_NONE;
}

/* A warp of the warpgroup that has exited with the operation @p op still to issue, or -1. */
static int exited_warp(const struct exec *x, uint32_t gi, const struct wg_op *op)
{
    for (uint32_t j = 0; j < 4; j++)
        if (!(op->issued >> j & 1) && !x->warps[4 * gi + j].live)
            return (int)(4 * gi + j);
    return -1;
}

/* Run the warpgroup's oldest @p upto operations, in order, and give their registers back; one
 * that a warp of the warpgroup has not issued yet keeps warp @p w waiting at @p in, one that a
 * warp exited without issuing fails the launch. */
static enum event retire(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                         struct warpgroup *g, uint32_t upto)
{
    uint32_t gi = w->index / 4, done = 0;
    enum event ev = EV_NONE;
    for (; done < upto; done++) {
        const struct wg_op *op = &g->ops[done];
        if (op->issued != 0xF) {
            int gone = exited_warp(x, gi, op);
            char at[200];
            if (gone < 0)
                ev = vm_yield_here(x, in, m); /* the others must issue it first */
            else
                ev = vm_fail(x, w, in, 0, VM_UNSUPPORTED,
                             "warp %d of warpgroup %u exited without issuing the "
                             "wgmma.mma_async at %s, which this warp waits for: every warp of "
                             "the warpgroup must execute it",
                             gone, gi, vm_where(x->mod, &x->code[op->pc], at, sizeof at));
            break;
        }
        /* Its work overlapped copies when one was in flight as it was issued, or one was issued
         * before this wait retires it (their lifetimes meet). */
        if (x->cnt && (op->in_flight || count_copies_issued(x) > op->copies))
            x->cnt->wgmma_overlapped_flops += wg_flops(&x->code[op->pc]);
        ev = run_op(x, w, gi, op);
        if (ev != EV_NONE)
            break;
        for (uint32_t j = 0; j < 4; j++)
            watch(x, &x->warps[4 * gi + j], &x->code[op->pc], -1);
    }
    memmove(g->ops, g->ops + done, (g->nops - done) * sizeof *g->ops);
    g->nops -= done;
    g->first += done;
    return ev;
}

/* wgmma.wait_group N: every operation of the warp's commit groups but the N latest runs, in
 * order; one that a warp of the warpgroup has not issued yet keeps this warp waiting here. The
 * first time an operation is ready to run, the warp yields once (the math takes time on a GPU,
 * and the block's other warps run meanwhile: a producer issues the next copies during it). */
enum event h_WGMMA_WAIT(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    struct warpgroup *g = group_of(x, w, in, m);
    if (!g)
        return EV_ERROR;
    uint32_t wi = w->index % 4, n = (uint32_t)in->imm, upto = 0;
    if (g->nops && g->ops[0].group + n < g->committed[wi] && g->ops[0].issued == 0xF &&
        !g->ops[0].waited) {
        /* The operation takes time: the warp waits while the block's other warps run. */
        g->ops[0].waited = 1;
        return vm_yield_here(x, in, m);
    }
    while (upto < g->nops && g->ops[upto].group + n < g->committed[wi])
        upto++;
    return retire(x, w, in, m, g, upto);
}

enum event vm_wgmma_watch(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    struct hopper *h = x->hop;
    struct watch_unit *u = h->watch[w->index];
    if (!u || in->op == OP_WGMMA_MMA || in->op == OP_VPRINTF || in->op == OP_MALLOC)
        return EV_NONE;
    uint32_t base = (uint32_t)(w->regs - w->arena);
    for (int i = 0; i < 5; i++) {
        size_t at = in->o[i] == NO_REG ? h->units : (base + in->o[i]) / 4;
        if (at >= h->units || !u[at].n)
            continue;
        uint32_t pc = u[at].pc;
        struct warpgroup *g = &h->wg[w->index / 4];
        while (u[at].n && g->nops) { /* ptxas waits for the wgmma here (its warning C7517) */
            enum event ev = retire(x, w, in, m, g, 1);
            if (ev != EV_NONE)
                return ev;
        }
        if (!(x->launch->checks & VM_CHECK_RACE))
            return EV_NONE;
        char me[400], mma[200];
        check_report_at(x, (uint32_t)(in - x->code), pc,
                        "racecheck: %s reads or writes a register of the wgmma.mma_async at %s "
                        "(its accumulators or A fragment) before a wgmma.wait_group covers it, "
                        "which the PTX ISA leaves undefined (ptxas waits for it there), %s",
                        vm_op_names[in->op], vm_where(x->mod, &x->code[pc], mma, sizeof mma),
                        vm_describe(x, w, in, 0, me, sizeof me));
        return EV_NONE;
    }
    return EV_NONE;
}

/* setmaxnreg.{inc,dec}.sync.aligned.u32 n: no registers to move here, but the ISA's rules hold:
 * every warp of the warpgroup executes the same setmaxnreg, .inc never lowers the count the
 * warp holds and .dec never raises it. */
enum event h_SETMAXNREG(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    struct warpgroup *g = group_of(x, w, in, m);
    if (!g)
        return EV_ERROR;
    uint32_t wi = w->index % 4, k = g->nreg_seen[wi]++, v = (uint32_t)in->imm, pc;
    pc = (uint32_t)(in - x->code);
    uint32_t ahead = 0;
    for (uint32_t j = 0; j < 4; j++)
        ahead |= (uint32_t)(j != wi && g->nreg_seen[j] > k);
    char other[200];
    if (k < 8 && ahead && g->nreg_pc[k] != pc)
        return vm_fail(x, w, in, 0, VM_UNSUPPORTED,
                       "warps of warpgroup %u executed different setmaxnreg instructions (another "
                       "warp's was at %s): the whole warpgroup must execute the same one",
                       w->index / 4,
                       vm_where(x->mod, &x->code[g->nreg_pc[k]], other, sizeof other));
    if (k < 8)
        g->nreg_pc[k] = pc;
    uint32_t now = g->nreg[wi];
    if (now && (in->width ? v < now : v > now))
        return vm_fail(
            x, w, in, 0, VM_UNSUPPORTED,
            "setmaxnreg.%s to %u registers, %s than the %u the warp holds since its last "
            "setmaxnreg",
            in->width ? "inc" : "dec", v, in->width ? "fewer" : "more", now);
    g->nreg[wi] = v;
    return EV_NONE;
}
