/**
 * @file count.c
 * @brief The counters: what Nsight Compute's instruction and memory sections show,
 *        counted exactly.
 *
 * A global request touches the 32-byte sectors its lanes' bytes fall in; a
 * shared request takes as many wavefronts as its worst bank needs distinct
 * 4-byte words, per phase of 128 bytes (one phase for 4-byte accesses, two
 * half-warps for 8-byte ones, four quarter-warps for 16-byte ones). Unique
 * bytes are distinct sectors over the whole launch, times 32 (not kept for a launch
 * counted for the time model alone, VM_COUNT_MODEL). An atomic (atom, red)
 * is also counted per lane and by space, with the lanes that update an address an
 * earlier lane of the same instruction updates (they serialise), and the distinct
 * global addresses the launch updated atomically.
 *
 * A bulk or tensor copy's global bytes are the copy engine's: counted as its own sectors
 * (tma_*), never as thread requests, and in the unique bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "count.h"

#include "model.h"

/* A set of sector numbers (open addressing; 0 marks an empty slot, so sectors are stored +1). */
struct sector_set {
    uint64_t *slot;
    size_t cap, count;
};

/* The mbarriers of a block that copies complete on, the most count_copy_issued() tells apart,
 * and the warps of a block (1024 threads). */
#define COPY_BARRIERS 64
#define BLOCK_WARPS 32

/* Sectors added to a set lately, by hash: a filter in front of it that fits the CPU's cache
 * (a set never loses a sector, so a sector found here is in the set). */
#define RECENT 4096

struct count_state {
    struct sector_set seen[2];  /* read, written */
    uint64_t recent[2][RECENT]; /* sector + 1 */
    struct sector_set atom;     /* global addresses updated atomically (bytes, not sectors) */
    const struct insn *in_atom; /* the instruction being counted, when it is an atomic */
    int unique;                 /* the sets seen are kept (VM_COUNT_ALL) */
    /* The running block's copies by the mbarrier they complete on: how many were issued, and
     * how many of them each warp had when it last saw a phase of that mbarrier complete. */
    uint64_t copy_bar[COPY_BARRIERS];
    uint32_t copy_issued[COPY_BARRIERS];
    uint32_t copy_seen[BLOCK_WARPS][COPY_BARRIERS];
    int copy_bars;
    uint64_t copies; /* every copy the block issued */
};

static void set_add(struct sector_set *s, uint64_t sector)
{
    if (2 * (s->count + 1) > s->cap) {
        struct sector_set bigger = {emu_calloc(s->cap ? 2 * s->cap : 4096, 8),
                                    s->cap ? 2 * s->cap : 4096, 0};
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i])
                set_add(&bigger, s->slot[i] - 1);
        free(s->slot);
        *s = bigger;
    }
    uint64_t key = sector + 1;
    size_t i = (size_t)(key * 0x9E3779B97F4A7C15ull) & (s->cap - 1);
    while (s->slot[i] && s->slot[i] != key)
        i = (i + 1) & (s->cap - 1);
    if (!s->slot[i]) {
        s->slot[i] = key;
        s->count++;
    }
}

/* Sector @p sector read (@p store 0) or written (1): into its set of sectors seen. */
static void seen_add(struct count_state *st, int store, uint64_t sector)
{
    if (!st->unique)
        return;
    uint64_t *r = &st->recent[store][(sector * 0x9E3779B97F4A7C15ull) >> 52];
    if (*r != sector + 1) {
        *r = sector + 1;
        set_add(&st->seen[store], sector);
    }
}

void count_begin(struct exec *x)
{
    if (!x->cnt)
        return;
    struct count_state *st = emu_calloc(1, sizeof(struct count_state));
    st->unique = x->launch->count == VM_COUNT_ALL;
    x->count_state = st;
}

void count_merge(struct exec *x, struct exec *from)
{
    struct count_state *st = x->count_state, *o = from->count_state;
    if (!st || !o)
        return;
    uint64_t *sum = (uint64_t *)x->cnt, *add = (uint64_t *)from->cnt;
    for (size_t i = 0; i < sizeof *x->cnt / sizeof *sum; i++)
        sum[i] += add[i];
    struct sector_set *into[3] = {&st->seen[0], &st->seen[1], &st->atom};
    struct sector_set *sets[3] = {&o->seen[0], &o->seen[1], &o->atom};
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < sets[k]->cap; i++)
            if (sets[k]->slot[i])
                set_add(into[k], sets[k]->slot[i] - 1);
        free(sets[k]->slot);
    }
    free(o);
    from->count_state = NULL;
}

void count_end(struct exec *x)
{
    struct count_state *st = x->count_state;
    if (!st)
        return;
    x->cnt->unique_read_bytes = 32 * (uint64_t)st->seen[0].count;
    x->cnt->unique_write_bytes = 32 * (uint64_t)st->seen[1].count;
    x->cnt->gatom_addrs = (uint64_t)st->atom.count;
    free(st->seen[0].slot);
    free(st->seen[1].slot);
    free(st->atom.slot);
    free(st);
    x->count_state = NULL;
}

/* Floating-point operations one lane of @p in does: arithmetic only (an FMA is 2); compares,
 * min, max, abs, neg and moves are not flops, as in Nsight Compute's counts. */
static uint64_t flops(const struct insn *in)
{
    switch (in->op) {
    case OP_FMA_F32:
        return 2;
    case OP_ARITH_F32_X:
    case OP_ARITH_F64:
        return in->width == 3 ? 2 : 1;
    case OP_HALF_ARITH:
        return (uint64_t)(in->width == 3 ? 2 : in->width <= 2 ? 1 : 0) * ((in->mod & 2) ? 2 : 1);
    case OP_ADD_F32:
    case OP_SUB_F32:
    case OP_MUL_F32:
    case OP_DIV_F32:
    case OP_RCP_F32:
    case OP_SQRT_F32:
    case OP_RSQRT_F32:
    case OP_SIN_F32:
    case OP_COS_F32:
    case OP_LG2_F32:
    case OP_EX2_F32:
    case OP_TANH_F32:
    case OP_RSQRT_F64:
        return 1;
    default:
        return 0;
    }
}

/* 1 for an f64 instruction of the FP64 units (DADD, DMUL, DFMA, DSETP, DMNMX and the sequences
 * ptxas makes of division, reciprocal and square roots); f64 abs, neg and copysign are operand
 * modifiers and bit operations. */
static int fp64_unit(enum op op)
{
    return op == OP_ARITH_F64 || op == OP_RSQRT_F64 || op == OP_SETP_F64 || op == OP_MIN_F64 ||
           op == OP_MAX_F64;
}

/* 1 for an fp32 instruction that is, or whose SASS sequence holds, one operation of the SM's
 * special function units (MUFU: EX2, LG2, SIN, COS, TANH, RCP, SQRT, RSQ; a division's and an
 * IEEE reciprocal's or square root's refinement is fp32 arithmetic around one of them). */
static int special_function(enum op op)
{
    switch (op) {
    case OP_EX2_F32:
    case OP_LG2_F32:
    case OP_SIN_F32:
    case OP_COS_F32:
    case OP_TANH_F32:
    case OP_RCP_F32:
    case OP_SQRT_F32:
    case OP_RSQRT_F32:
    case OP_DIV_F32:
    case OP_APPROX_HALF: /* MUFU.EX2 and MUFU.TANH on 16-bit floats */
        return 1;
    default:
        return 0;
    }
}

/* The multiply-adds of one mma instruction: M * N * K of its shape, M * N * K / 2 for a sparse
 * mma.sp (the products of A's kept elements, those it does). */
static uint64_t mma_macs(const struct insn *in)
{
    static const uint64_t wmma_mnk[5] = {16 * 16 * 16, 32 * 8 * 16, 8 * 32 * 16, 16 * 16 * 8,
                                         8 * 8 * 4};
    int shape = (int)MMA_SHAPE(in->mod);
    if (in->op == OP_WMMA_MMA)
        return wmma_mnk[shape];
    uint64_t macs = (uint64_t)(mma_shape_m(shape) * 8 * mma_shape_k(shape) *
                               mma_products(shape, (int)MMA_AT(in->mod)));
    return in->mod & MMA_SPARSE_BIT ? macs / 2 : macs;
}

void count_insn(struct exec *x, const struct warp *w, const struct insn *in, uint32_t active,
                uint32_t m)
{
    struct vm_counters *c = x->cnt;
    uint64_t n = (uint64_t)__builtin_popcount(m);
    c->warp_insts++;
    c->thread_insts += (uint64_t)__builtin_popcount(active);
    c->class_insts[vm_op_class[in->op]] += n;
    c->flops += n * flops(in);
    if (vm_op_class[in->op] == VM_CLASS_FP) { /* the FP64 units' and the SFUs' work among it */
        c->fp64_insts += fp64_unit(in->op) ? n : 0;
        c->sfu_insts += special_function(in->op) ? n : 0;
    }
    if (x->model)
        model_insn(x->model, w->index, in);
    ((struct count_state *)x->count_state)->in_atom = in->op == OP_ATOM ? in : NULL;
    if (in->op == OP_BRA)
        c->branches++;
    else if (in->op == OP_BAR_SYNC && in->width == 0 && m)
        c->barriers++;
    else if ((in->op == OP_WMMA_MMA || in->op == OP_MMA_SYNC) && m) {
        uint64_t f = 2 * mma_macs(in);
        c->flops += f;
        c->tensor_flops += f;
        c->dmma_flops += MMA_AT(in->mod) == MT_F64 ? f : 0;
        c->overlapped_flops += vm_async_pending(w) ? f : 0;
    }
}

void count_block(struct exec *x)
{
    struct count_state *st = x->count_state;
    if (st)
        st->copy_bars = 0, st->copies = 0;
}

/* The slot of mbarrier @p mbar in @p st's table (added when new), or -1 when it is full. */
static int copy_slot(struct count_state *st, uint64_t mbar)
{
    for (int i = 0; i < st->copy_bars; i++)
        if (st->copy_bar[i] == mbar)
            return i;
    if (st->copy_bars == COPY_BARRIERS)
        return -1;
    int i = st->copy_bars++;
    st->copy_bar[i] = mbar;
    st->copy_issued[i] = 0;
    for (int w = 0; w < BLOCK_WARPS; w++)
        st->copy_seen[w][i] = 0;
    return i;
}

void count_copy_issued(struct exec *x, uint64_t mbar)
{
    struct count_state *st = x->count_state;
    int i = st ? copy_slot(st, mbar) : -1;
    if (st)
        st->copies++;
    if (i >= 0)
        st->copy_issued[i]++;
}

void count_copy_waited(struct exec *x, uint32_t warp, uint64_t mbar)
{
    struct count_state *st = x->count_state;
    int i = st && warp < BLOCK_WARPS ? copy_slot(st, mbar) : -1;
    if (i >= 0)
        st->copy_seen[warp][i] = st->copy_issued[i];
}

void count_wgmma(struct exec *x, uint64_t flops, int eight)
{
    x->cnt->wgmma_insts++;
    x->cnt->wgmma_flops += flops;
    x->cnt->wgmma_8bit_flops += eight ? flops : 0;
    x->cnt->flops += flops;
}

int count_copies_in_flight(struct exec *x, uint32_t warp)
{
    struct count_state *st = x->count_state;
    if (!st || warp >= BLOCK_WARPS)
        return 0;
    for (int i = 0; i < st->copy_bars; i++)
        if (st->copy_issued[i] > st->copy_seen[warp][i])
            return 1;
    return 0;
}

uint64_t count_copies_issued(struct exec *x)
{
    struct count_state *st = x->count_state;
    return st ? st->copies : 0;
}

void count_divergence(struct exec *x)
{
    x->cnt->divergent_branches++;
}

void count_sort(uint64_t *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* The lanes of @p m whose address (@p addr) an earlier lane of @p m has too. */
static uint64_t same_addr(const uint64_t *addr, uint32_t m)
{
    uint64_t a[32];
    int n = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1)
        a[n++] = addr[__builtin_ctz(mm)];
    count_sort(a, (unsigned)n);
    uint64_t same = 0;
    for (int i = 1; i < n; i++)
        same += a[i] == a[i - 1];
    return same;
}

/* An atomic's lanes, by space; global ones add their addresses to the launch's set. */
static void count_atomic(struct exec *x, const uint64_t *addr, uint32_t m, int global)
{
    struct vm_counters *c = x->cnt;
    struct count_state *st = x->count_state;
    uint64_t lanes = (uint64_t)__builtin_popcount(m), same = same_addr(addr, m);
    if (x->model)
        model_atomic(x->model, st->in_atom, addr, m, same, global);
    if (!global) {
        c->satom_lanes += lanes;
        c->satom_same_addr += same;
        return;
    }
    c->gatom_lanes += lanes;
    c->gatom_same_addr += same;
    for (uint32_t mm = m; mm; mm &= mm - 1)
        set_add(&st->atom, addr[__builtin_ctz(mm)]);
}

/* The distinct values of sorted @p sec (@p n of them) moved to its front: how many. */
static unsigned distinct(uint64_t *sec, unsigned n)
{
    unsigned d = n > 0; /* without branches: lanes that share sectors are common */
    for (uint64_t i = 1, before = n ? sec[0] : 0; i < n; i++) {
        uint64_t v = sec[i];
        sec[d] = v;
        d += v != before;
        before = v;
    }
    return d;
}

/* count_sectors() of a whole warp whose lanes each touch one sector: every lane at once, so
 * that it vectorises; sorted only when out of order, compacted only when some lanes share a
 * sector but not all. 0 when a lane's access crosses into the next sector. */
static unsigned warp_sectors(const uint64_t *addr, unsigned bytes, uint64_t *sec)
{
    uint64_t cross = 0, down = 0, same = 0;
    for (int l = 0; l < 32; l++) {
        sec[l] = addr[l] >> 5;
        cross |= ((addr[l] + bytes - 1) >> 5) ^ sec[l];
    }
    if (cross)
        return 0;
    for (int l = 1; l < 32; l++) {
        down |= sec[l] < sec[l - 1];
        same += sec[l] == sec[l - 1];
    }
    if (down)
        count_sort(sec, 32);
    return !down && same == 0 ? 32 : !down && same == 31 ? 1 : distinct(sec, 32);
}

unsigned count_sectors(const uint64_t *addr, uint32_t m, unsigned bytes, uint64_t *sec)
{
    unsigned n = m == FULL_MASK ? warp_sectors(addr, bytes, sec) : 0;
    if (n)
        return n;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t s = addr[l] >> 5, last = (addr[l] + bytes - 1) >> 5;
        sec[n++] = s; /* a lane's first sector; more only for a vector across sectors */
        for (s++; s <= last && n < 64; s++)
            sec[n++] = s;
    }
    count_sort(sec, n);
    return distinct(sec, n);
}

void count_global(struct exec *x, const uint64_t *addr, uint32_t m, int store, const uint64_t *sec,
                  unsigned n)
{
    struct count_state *st = x->count_state;
    if (store && st->in_atom)
        count_atomic(x, addr, m, 1);
    for (unsigned i = 0; i < n; i++)
        seen_add(st, store, sec[i]);
    if (store) {
        x->cnt->gst_requests++;
        x->cnt->gst_sectors += n;
    } else {
        x->cnt->gld_requests++;
        x->cnt->gld_sectors += n;
    }
}

void count_tma(struct exec *x, uint64_t addr, uint64_t bytes, int store)
{
    uint64_t first = addr >> 5, last = (addr + bytes - 1) >> 5;
    for (uint64_t s = first; bytes && s <= last; s++)
        seen_add(x->count_state, store, s);
    *(store ? &x->cnt->tma_st_sectors : &x->cnt->tma_ld_sectors) += bytes ? last - first + 1 : 0;
}

/* The most distinct words any bank holds among lanes @p phase, when every word's row (word /
 * 32) is within 64 of @p base: a bank's distinct words are its distinct rows, one bit each. */
static uint64_t rows_wavefronts(const uint64_t *addr, uint32_t phase, unsigned bytes, uint32_t base)
{
    uint64_t rows[32] = {0};
    for (uint32_t mm = phase; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        for (uint32_t word = (uint32_t)(addr[l] >> 2); word <= (addr[l] + bytes - 1) >> 2; word++)
            rows[word & 31] |= 1ull << ((word >> 5) - base);
    }
    int worst = 1;
    for (int b = 0; b < 32; b++) {
        int n = __builtin_popcountll(rows[b]);
        worst = n > worst ? n : worst;
    }
    return (uint64_t)worst;
}

/* The wavefronts of one phase (lanes @p phase): the most distinct words any bank holds. The
 * common case, every word within a span of 32, is found in one pass. */
static uint64_t phase_wavefronts(const uint64_t *addr, uint32_t phase, unsigned bytes)
{
    /* Words within a span of 32 fall in distinct banks. Shared addresses are window offsets
     * (below 2^34: 32-bit words), and the loop has no branch, so that it vectorises: the
     * lanes outside the phase count as an empty span. */
    uint32_t lo = UINT32_MAX, hi = 0;
    for (int l = 0; l < 32; l++) {
        uint32_t on = 0u - (phase >> l & 1), first = (uint32_t)(addr[l] >> 2) | ~on;
        uint32_t last = (uint32_t)((addr[l] + bytes - 1) >> 2) & on;
        lo = first < lo ? first : lo;
        hi = last > hi ? last : hi;
    }
    if (hi - lo < 32)
        return 1;
    if ((hi >> 5) - (lo >> 5) < 64) /* each bank's rows (word / 32) as bits from lo's row */
        return rows_wavefronts(addr, phase, bytes, lo >> 5);
    /* Distinct words per bank: the worst bank sets this phase's wavefronts. */
    uint64_t words[32][32];
    int nw[32] = {0}, worst = 1;
    for (uint32_t mm = phase; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        for (uint64_t word = addr[l] >> 2; word <= (addr[l] + bytes - 1) >> 2; word++) {
            int bank = (int)(word & 31), seen = 0;
            for (int i = 0; i < nw[bank]; i++)
                seen |= words[bank][i] == word;
            if (!seen && nw[bank] < 32)
                words[bank][nw[bank]++] = word;
            worst = nw[bank] > worst ? nw[bank] : worst;
        }
    }
    return (uint64_t)worst;
}

/* 1 when every active lane of @p m has its partner lane (its number xor @p x) active and at
 * the same address. */
static int pairs_share(const uint64_t *addr, uint32_t m, int x)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (!(m >> (l ^ x) & 1) || addr[l ^ x] != addr[l])
            return 0;
    }
    return 1;
}

static uint64_t wavefronts_of(const uint64_t *addr, uint32_t m, unsigned bytes, int store,
                              uint64_t *phases)
{
    int per_phase = bytes <= 4 ? 32 : (int)(128 / bytes);
    /* A 16-byte load whose lanes share addresses in pairs (lane n and n ^ 1, or n and n ^ 2,
     * all of them: a broadcast among them) returns two lanes' registers at once: half-warp
     * phases, two wavefronts where quarter-warps take four (an NVIDIA engineer's answer for
     * Volta and Turing; Nsight Compute counts the same on Ampere and Hopper: MODEL.md). */
    if (!store && bytes == 16 && (pairs_share(addr, m, 1) || pairs_share(addr, m, 2)))
        per_phase = 16;
    uint64_t waves = 0;
    *phases = 0;
    for (int p = 0; p < 32; p += per_phase) {
        uint32_t phase = m & (per_phase == 32 ? FULL_MASK : ((1u << per_phase) - 1) << p);
        if (!phase)
            continue;
        ++*phases;
        waves += phase_wavefronts(addr, phase, bytes);
    }
    return waves;
}

/* The wavefronts of the access patterns met last, by content. A pattern moved by whole words
 * takes the wavefronts it took before (its words move to other banks together, in the same
 * groups), and a loop meets the same few patterns at every step, so a pattern is known by its
 * active lanes, width, kind, the first lane's byte in its word and every lane's distance from
 * the first lane. A table each thread of the emulator owns. */
#define MEMO_SLOTS 256
struct wave_memo {
    uint32_t mask, key, delta[32];
    uint64_t waves, phases;
};

uint64_t count_wavefronts(const uint64_t *addr, uint32_t m, unsigned bytes, int store,
                          uint64_t *phases)
{
    static _Thread_local struct wave_memo memo[MEMO_SLOTS];
    if (!m)
        return wavefronts_of(addr, m, bytes, store, phases);
    uint64_t first = addr[__builtin_ctz(m)], wide[32], far = 0;
    for (int l = 0; l < 32; l++) { /* lane by lane in 64 bits, so that it vectorises */
        wide[l] = (addr[l] - first) & (0ull - (m >> l & 1));
        far |= (wide[l] + 0x80000000ull) >> 32; /* lanes 2 GiB apart: not kept */
    }
    if (far)
        return wavefronts_of(addr, m, bytes, store, phases);
    uint32_t delta[32], differ = 0;
    for (int l = 0; l < 32; l++)
        delta[l] = (uint32_t)wide[l];
    uint32_t key = (uint32_t)(first & 3) | bytes << 2 | (uint32_t)store << 8;
    uint32_t h = m * 2654435761u ^ delta[1] * 97u ^ delta[16] * 7919u ^ delta[31] * 40503u ^ key;
    struct wave_memo *e = &memo[(h ^ h >> 8 ^ h >> 16) % MEMO_SLOTS];
    for (int l = 0; l < 32; l++)
        differ |= delta[l] ^ e->delta[l];
    if (differ || e->mask != m || e->key != key) {
        e->mask = m;
        e->key = key;
        memcpy(e->delta, delta, sizeof delta);
        e->waves = wavefronts_of(addr, m, bytes, store, &e->phases);
    }
    *phases = e->phases;
    return e->waves;
}

void count_shared(struct exec *x, const uint64_t *addr, uint32_t m, unsigned bytes, int store)
{
    if (store && ((struct count_state *)x->count_state)->in_atom)
        count_atomic(x, addr, m, 0);
    uint64_t phases, waves = count_wavefronts(addr, m, bytes, store, &phases);
    if (store) {
        x->cnt->sts_requests++;
        x->cnt->sts_wavefronts += waves;
        x->cnt->sts_conflicts += waves - phases;
    } else {
        x->cnt->lds_requests++;
        x->cnt->lds_wavefronts += waves;
        x->cnt->lds_conflicts += waves - phases;
    }
}
