/**
 * @file model.c
 * @brief The time model (model.h): occupancy, caches fed the sector stream, bounds, sampling.
 *
 * Each block's global requests are kept until a wave of resident blocks has run (at most
 * WINDOW_SECTORS of them: a wave that asks for more is fed in parts) and then fed to the caches
 * with its blocks' warps interleaved (request i of every warp of every block before request
 * i + 1 of any), because the VM runs a block to its end and a warp until it waits, while a GPU
 * runs a wave's blocks together and its schedulers interleave their warps: a sector one warp
 * brings into L1 is found there by the others of its SM, and one a block brings into L2 by the
 * blocks beside it, as on the GPU. Blocks reach SM (linear index mod SMs). A load sector
 * missing L1 goes to L2 and, missing there, to DRAM; a store goes to L2 (L1 writes through) and
 * costs DRAM bytes when L2 lacks its sector. Caches are 16-way LRU with 128-byte lines of four
 * 32-byte sectors, hashed set indices, sized from the GPU row (L1: what the blocks' shared memory
 * leaves of the SM's L1).
 *
 * Per-SM bounds use the busiest SM's share of the blocks (ceil(blocks / SMs) of them):
 *   fp32    thread fp32 instructions (the FP class but f64 and special functions) / fp32 lanes
 *   fp64    thread f64 arithmetic instructions / FP64 lanes
 *   sfu     thread fp32 special functions (ex2, sin, rcp, ...) / the SM's special function units
 *   tensor  mma.sync flops / the SM's mma.sync rate + f64 mma flops / its f64 Tensor Core rate
 *           (its FP64 units' without one) + wgmma flops / its wgmma rate
 *   issue   warp instructions / schedulers, but a producer warp's (TMA copies for other warps'
 *           wgmma and none of its own: it issues from its own warp slots)
 *   lsu     shared wavefronts (a thread's adjacent aligned accesses merged into one of up to
 *           16 bytes, as ptxas merges them) + a global load's L1 wavefronts (its data's by the
 *           banks, or 1 + a quarter for each 128-byte line past its first, whichever are more:
 *           l1_load_wavefronts()) + one per 128-byte line a global store touches, one per clock
 *   latency each batch's slowest load's latency, summed / resident warps (Little's law: a
 *           warp waits at the first use of a batch of loads for all of them)
 *   barrier bar.sync's threads / BAR_THREADS_CLK
 * and chip-wide ones: L2 bytes / L2 bytes per clock, DRAM bytes at a stream's share of the DRAM
 * bandwidth with each byte written and read in pairs at a copy's (dram_ms()), and the
 * clocks of the global atomics on the busiest address (model_atomic()). The time is
 * the resident warps' time on the SM's pipes with the latency between their visits (mean value
 * analysis: shared_pipes_ms(); the largest bound when many warps share them), at least each
 * chip-wide bound (chip_ms()) and, for blocks that load once and wait at a barrier, their rounds
 * (short_blocks_ms(): the resident blocks queue for the SM's pipes and its share of the chip's
 * bandwidth, each waiting its round's latency and barriers in between), or the waits of
 * barrier-separated load phases (a tile loop has two barriers per tile, one of them after the
 * tile's loads: each waits for its loads' latency and, in a tile loop, their bytes' transfer at the
 * SM's share of the L2 or DRAM bandwidth), which the resident blocks reach and wait for together,
 * less the work a block does between its loads and their first use, plus the SM's barriers, which
 * its resident blocks likewise go through together, plus the pipes' work, whichever is longer, plus
 * the launch overhead. Every round of resident blocks also waits for its blocks to start and end
 * (model_gpu::block_clk), in the warps' latency and in the blocks' chain of waits. TMA copies are
 * the copy engine's: their sectors go to L2 (never L1, never an LSU wavefront), and a block's
 * stages (the mbarriers its copies complete on) hide their latency behind the work of the tiles
 * ahead (exposed_tma()).
 */
#include "model.h"

#include "count.h"
#include "model_code.h"
#include "vm_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- caches ------------------------------------------------------------------------------ */

#define WAYS 16

/* A set's ways side by side, so that a lookup touches one block of memory: 256 bytes. */
struct ways {
    uint64_t tag[WAYS];   /* line number + 1 (0: empty) */
    uint32_t stamp[WAYS]; /* last use, for LRU */
    uint8_t valid[WAYS];  /* sectors present, 4 bits */
    uint8_t pad[256 - WAYS * 13];
};

struct cache {
    struct ways *set;
    uint32_t sets, now;
    struct ways *last; /* the set and way last used: a request's sorted sectors come a line at */
    int last_way;      /* a time */
};

static void cache_init(struct cache *c, double bytes)
{
    c->sets = (uint32_t)(bytes / (128.0 * WAYS));
    if (c->sets < 1)
        c->sets = 1;
    c->set = emu_calloc(c->sets, sizeof *c->set);
    c->now = 0;
    c->last = c->set;
    c->last_way = 0;
}

static void cache_free(struct cache *c)
{
    free(c->set);
    memset(c, 0, sizeof *c);
}

/* Use way @p w of set @p s for sector bit @p bit; 1 when the sector was there. */
static int cache_use(struct cache *c, struct ways *s, int w, uint8_t bit)
{
    int hit = (s->valid[w] & bit) != 0;
    s->valid[w] |= bit;
    s->stamp[w] = c->now;
    c->last = s;
    c->last_way = w;
    return hit;
}

/* Look sector @p s up; 1: a hit. A miss brings the sector in (evicting the set's LRU line
 * when its line is absent). */
static int cache_access(struct cache *c, uint64_t s)
{
    uint64_t line = s >> 2;
    uint8_t bit = (uint8_t)(1u << (s & 3));
    c->now++;
    if (c->last->tag[c->last_way] == line + 1) /* the line the last access found (tags unique) */
        return cache_use(c, c->last, c->last_way, bit);
    /* Hashed set index, as GPU caches hash addresses: a power-of-two stride (matrix rows)
     * must not fall into one set. The hash's top 32 bits scaled onto the sets (a remainder of
     * them would take its middle bits, which leave most of 2^14 or more sets unused). */
    uint64_t hash = (line * 0x9E3779B97F4A7C15ull) >> 32;
    struct ways *set = &c->set[hash * c->sets >> 32];
    uint32_t match = 0; /* a branch-free pass, so that it vectorises */
    for (int w = 0; w < WAYS; w++)
        match |= (uint32_t)(set->tag[w] == line + 1) << w;
    if (match)
        return cache_use(c, set, __builtin_ctz(match), bit);
    int victim = 0;
    for (int w = 1; w < WAYS; w++)
        victim = set->stamp[w] < set->stamp[victim] ? w : victim;
    set->tag[victim] = line + 1;
    set->valid[victim] = 0;
    cache_use(c, set, victim, bit);
    return 0;
}

/* ---- the model's state --------------------------------------------------------------------- */

/* What the caches found, summed (doubles: scaled by sampling). */
struct tally {
    double l1_wavefronts, smem_wavefronts, load_sectors, l1_hits, l2_sectors, l2_hits, dram_sectors;
    double dram_writes;                /* the DRAM sectors stores wrote (the rest were read) */
    double loads, latency;             /* synchronous loads, and their latencies summed */
    double stall;                      /* their batches' latencies: each batch its slowest load's */
    double async_loads, async_latency; /* cp.async requests, and their latencies summed */
    double async_ahead; /* warp 0's cp.async requests before its block's first barrier */
    double async_groups, async_waits, async_kept; /* warp 0's cp.async commit groups, its waits,
                                                     and the groups each left in flight */
    double load_phases;  /* warp 0's load phases: barrier intervals in which it loads */
    double loop_phases;  /* those whose first load began an earlier one of its block: a loop's */
    double smem_phases;  /* warp 0's barrier intervals in which it loads from shared memory */
    double sass;         /* warp instructions issued, in SASS (model_code.h's weights) */
    double producer;     /* the same, of producer warps (TMA copies for the wgmma of other warps,
                            none of their own): not counted against the schedulers' issue slots */
    double atom_clocks;  /* global atomics: the clocks their updates take where they are applied
                            (an integer update one, an fp32 add atom_f32_clk; a warp's summed
                            updates one) */
    double satom_serial; /* shared atomics' lanes on an address an earlier lane has, but in the
                            atomics a warp sums first or ptxas's increments: a wavefront each */
    double tma_loads, tma_latency; /* TMA load pieces (copy engine), and their latencies summed */
    double tma_phases; /* runs of TMA loads on one mbarrier with no wgmma between: the stages
                          a block fills, one per tile of its loop */
    double tma_depth;  /* distinct mbarriers a block's TMA loads complete on: its stages */
    double filled, fill_warps; /* loads that waited for a fill (an L1 miss, theirs or another
                                  warp's in the same step), and the warps each fill released */
    double lead, covered;      /* warp 0's instructions, and those it issued between its loads and
                                  their first use (SASS-weighted) */
    double lead_loading;       /* warp 0's instructions in its load phases, from a phase's first
                                  load to the barrier that ends it */
    double lead_waits;         /* warp 0's waits for its loads, as ptxas orders them: each load
                                  1/k of one (model_load_waits()) */
};
#define TALLY_N (sizeof(struct tally) / sizeof(double))
#define COUNTERS_N (sizeof(struct vm_counters) / sizeof(uint64_t))

/* Warp 0's loads not yet used: the registers they write (arena offsets, the first LEAD_REGS; a
 * 64-bit filter of them first) and its instructions when the last of them issued. */
#define LEAD_REGS 64
struct lead_wait {
    uint32_t reg[LEAD_REGS];
    uint64_t filter;
    int n;
    uint64_t issued; /* SASS_ONE units */
};

/* One global request, kept until its block ends; async: ASYNC_CP (cp.async) or ASYNC_TMA (the
 * copy engine's, which reads L2 and skips L1). */
enum { ASYNC_NONE, ASYNC_CP, ASYNC_TMA };
struct req {
    uint32_t warp, seq, first, n;
    uint32_t slot;               /* its block's place in the window (feed_window()) */
    uint8_t store, async, batch; /* batch: the load's batch size (0: a store) */
    uint8_t filled;              /* some sector of it waited for a fill (feed()) */
};
#define MBARS 32       /* distinct TMA mbarriers a block's stages are counted up to */
#define PHASE_STARTS 8 /* a block's distinct load phases whose first loads are remembered */

/* A sector a block's L1 miss is fetching in the step (a request's seq: the warps' loads
 * interleaved) being fed, and its warps waiting for it; a table of FILLS_PER_WARP slots for each
 * warp of the window, emptied by moving to the next step's stamp. Another block finds the sector
 * in the caches as a block a little behind it would, not waiting for the fill: the blocks of a
 * wave start together, but the waves after it start as blocks end, out of step. */
#define FILLS_PER_WARP 64
struct fill {
    uint64_t sector;
    uint32_t stamp, slot; /* slot: the block's place in the window */
    unsigned latency, warps;
};

/* A warp's open batch of loads (model_code.h): its size, the loads to come, its slowest so far. */
struct batch {
    uint8_t size, left;
    unsigned worst;
};

/* The requests a window of blocks keeps at most, in sectors, before they are fed (its last block
 * whole): 2^24, 128 MiB of them. A wave whose blocks ask for more is fed in parts. */
#define WINDOW_SECTORS (1u << 24)

/* A warp's shared accesses not counted yet: a run of adjacent ones ptxas would merge. Each warp
 * keeps RUNS open, since the PTX interleaves loads from several arrays and rows: a thread's 8
 * rows of a tile read a column at a time, which ptxas reads as 16-byte pieces of each row. */
#define RUNS 16
struct pending_shared {
    uint32_t mask;
    uint8_t bytes, store;
    uint64_t used; /* when it last grew: the least recent run is counted first */
};

/* The global atomics' update clocks at each address they touch, for the busiest one (open
 * addressing; address + 1 is the key, 0 an empty slot). */
struct atom_map {
    uint64_t *key;
    double *clocks;
    size_t cap, n;
    double busiest; /* the most clocks at one address */
};

struct vm_model {
    struct model_gpu gpu;
    int sample;
    /* this launch */
    const struct vm_launch *launch;
    const struct vm_counters *live;
    unsigned regs, threads, bps, warps_per_block;
    uint32_t smem;
    uint64_t blocks, first, tail, sampled, block;
    uint32_t stride; /* blocks each block that ran stands for (model_resident()) */
    int begun, in_tail;
    int noting;           /* the block that ran last is not yet in least/most */
    uint64_t block_insts; /* the warp instructions counted when it began */
    uint64_t least, most; /* the first wave's blocks' warp instructions */
    struct cache *l1;     /* one per SM, made on first use */
    struct cache l2;
    struct req *req;
    size_t nreq, capreq;
    uint64_t *sec;
    size_t nsec, capsec;
    uint32_t seq[32];
    struct pending_shared pend[32][RUNS]; /* apart from their lanes' addresses, so that a */
    uint64_t pend_addr[32][RUNS][32];     /* warp's runs are looked through in 4 lines */
    uint64_t pend_next[32][RUNS]; /* the address a run's first lane reads next to extend it */
    uint64_t shared_clock;        /* shared accesses seen, for the runs' LRU */
    const struct insn *code;      /* the kernel's first instruction */
    uint32_t ncode;
    uint8_t *batch;      /* each instruction's batch size (model_code.h) */
    uint8_t *warp_sum;   /* each atomic's enum model_warp_sum (model_code.h) */
    uint32_t *sass_w;    /* each instruction's SASS instructions in SASS_ONE units, or NULL */
    float *load_w;       /* each global load's waits (model_load_waits()), or NULL */
    uint64_t block_bars; /* barriers counted when this block began */
    uint64_t phase_mark; /* 1 + the barriers counted at warp 0's last load phase (0: none) */
    uint64_t smem_mark;  /* the same for its last shared load's barrier interval */
    const struct insn *phase_start[PHASE_STARTS]; /* this block's load phases' first loads */
    unsigned nphase_start;
    uint32_t cp_groups, cp_landed; /* warp 0's cp.async groups committed and landed, this block */
    uint64_t warp_insts[32];       /* this block's instructions per warp, SASS_ONE units */
    int open;                      /* a block of the sample is running (flush_block() ends it) */
    uint32_t *win_sm;              /* the SM of each of the window's blocks (feed_window()) */
    uint32_t win_n, win_cap;       /* how many, and the most: a wave of resident blocks */
    struct batch *batch_open;      /* each window block's warps' open batches, 32 a block */
    struct fill *fill;             /* the step's fills: nfill slots this launch, of fill_cap */
    uint32_t nfill, fill_cap, win_alloc;  /* win_alloc: win_sm's and batch_open's blocks */
    uint8_t warp_tma[32], warp_wgmma[32]; /* the warp issued TMA copies, wgmma */
    uint64_t mbar[MBARS];                 /* this block's TMA mbarriers, + 1 */
    unsigned nmbar;
    uint64_t last_mbar; /* the last TMA load's mbarrier + 1 (0: none yet, or a wgmma since) */
    struct lead_wait lead;
    struct tally t, t_first;
    struct atom_map atoms;
    struct vm_counters c_first;
    uint32_t stamp;  /* the step being fed, counted over the launch */
    uint64_t origin; /* the device memory's first sector: sectors are counted from it, so that
                        where the process mapped that memory moves no set index (the same
                        program, the same estimate) */
};

struct vm_model *model_new(const struct model_gpu *gpu, int sample)
{
    struct vm_model *m = emu_calloc(1, sizeof *m);
    m->gpu = *gpu;
    m->sample = sample;
    return m;
}

static void drop_caches(struct vm_model *m)
{
    if (m->l1)
        for (unsigned i = 0; i < m->gpu.sms; i++)
            cache_free(&m->l1[i]);
    free(m->l1);
    m->l1 = NULL;
    cache_free(&m->l2);
}

void model_free(struct vm_model *m)
{
    if (!m)
        return;
    drop_caches(m);
    free(m->req);
    free(m->sec);
    free(m->batch);
    free(m->warp_sum);
    free(m->sass_w);
    free(m->load_w);
    free(m->win_sm);
    free(m->batch_open);
    free(m->fill);
    free(m->atoms.key);
    free(m->atoms.clocks);
    free(m);
}

/* ---- occupancy ----------------------------------------------------------------------------- */

/* Resident blocks per SM: the least of the warp, block, register and shared-memory limits.
 * Registers are allocated per warp in units of 256, and each of the SM's four sub-partitions
 * holds a quarter of the register file and its own warps (NVIDIA's occupancy calculator). */
static unsigned blocks_per_sm(const struct model_gpu *g, unsigned warps, unsigned regs,
                              uint32_t smem)
{
    unsigned by_warps = g->max_warps / warps,
             best = by_warps < g->max_blocks ? by_warps : g->max_blocks;
    unsigned per_warp = (regs * 32 + 255) / 256 * 256;
    unsigned sub = g->regs_per_sm / 4 / per_warp * 4;
    unsigned by_regs = sub / warps;
    best = by_regs < best ? by_regs : best;
    if (smem) {
        uint32_t need = (smem + 1024 + 127) / 128 * 128; /* 1 KiB the driver reserves (sm_80+) */
        unsigned by_smem = g->smem_per_sm / need;
        best = by_smem < best ? by_smem : best;
    }
    return best ? best : 1;
}

void model_begin(struct vm_model *m, const struct vm_launch *L, unsigned regs,
                 const struct model_sass_line *sass, size_t n, const struct vm_counters *live)
{
    m->launch = L;
    m->live = live;
    m->regs = regs;
    m->threads = L->block[0] * L->block[1] * L->block[2];
    m->warps_per_block = (m->threads + 31) / 32;
    m->blocks = (uint64_t)L->grid[0] * L->grid[1] * L->grid[2];
    m->origin = L->mem ? L->mem->base >> 5 : 0;
    m->begun = 0;
    m->in_tail = 0;
    m->sampled = 0;
    m->stride = 1;
    m->noting = 0;
    m->least = UINT64_MAX;
    m->most = 0;
    m->nreq = m->nsec = 0;
    m->open = 0;
    m->win_n = 0;
    const struct func *f = &L->module->funcs[L->kernel];
    free(m->batch);
    m->batch = model_batches(L->module, L->kernel);
    free(m->warp_sum);
    m->warp_sum = model_warp_sums(L->module, L->kernel);
    free(m->sass_w);
    m->sass_w = model_sass_weights(L->module, L->kernel, sass, n, m->batch);
    free(m->load_w);
    m->load_w = m->sass_w ? model_load_waits(L->module, L->kernel, sass, n, m->batch) : NULL;
    m->code = L->module->code + f->first;
    m->ncode = f->count;
    memset(m->pend, 0, sizeof m->pend);
    memset(&m->t, 0, sizeof m->t);
    memset(&m->t_first, 0, sizeof m->t_first);
    memset(&m->c_first, 0, sizeof m->c_first);
    if (m->atoms.n)
        memset(m->atoms.key, 0, m->atoms.cap * sizeof *m->atoms.key);
    m->atoms.n = 0;
    m->atoms.busiest = 0;
}

/* Count warp @p w's pending run @p r of shared accesses as one access of its width rounded up
 * to a vector width, with count.c's wavefront rule. */
static void flush_shared(struct vm_model *m, uint32_t w, int r)
{
    struct pending_shared *p = &m->pend[w][r];
    if (!p->mask)
        return;
    unsigned width = p->bytes <= 4 ? p->bytes : p->bytes <= 8 ? 8 : 16;
    uint64_t phases;
    m->t.smem_wavefronts +=
        (double)count_wavefronts(m->pend_addr[w][r], p->mask, width, p->store, &phases);
    p->mask = 0;
}

/* 1 when @p bytes at @p addr extend run @p p (its lanes at @p at) into an aligned access of at
 * most 16 bytes. The lanes are checked all at once, without a branch, so that it vectorises. */
static int extends(const struct pending_shared *p, const uint64_t *at, const uint64_t *addr,
                   uint32_t mask, unsigned bytes, int store)
{
    unsigned total = p->bytes + bytes, align = total <= 4 ? total : total <= 8 ? 8 : 16;
    if (p->mask != mask || p->store != store || total > 16 || (p->bytes & (bytes - 1)))
        return 0;
    uint64_t off = 0;
    for (int l = 0; l < 32; l++)
        off |= ((addr[l] - at[l] - p->bytes) | (at[l] & (align - 1))) & (0ull - (mask >> l & 1));
    return off == 0;
}

void model_shared(struct vm_model *m, uint32_t warp, const uint64_t *addr, uint32_t mask,
                  unsigned bytes, int store, int atomic)
{
    if (atomic) { /* its bank conflicts, not merged (model_atomic() adds its serial lanes) */
        uint64_t phases;
        m->t.smem_wavefronts += (double)count_wavefronts(addr, mask, bytes, store, &phases);
        return;
    }
    uint32_t w = warp < 32 ? warp : 31;
    struct pending_shared *run = m->pend[w];
    uint64_t *next = m->pend_next[w];
    uint64_t lead = mask ? addr[__builtin_ctz(mask)] : 0;
    m->shared_clock++;
    if (!store && warp == 0 && m->smem_mark != m->live->barriers + 1) {
        m->t.smem_phases++; /* a barrier interval whose shared loads warp 0 waits for */
        m->smem_mark = m->live->barriers + 1;
    }
    for (int r = 0; mask && r < RUNS; r++)
        if (next[r] == lead && run[r].mask &&
            extends(&run[r], m->pend_addr[w][r], addr, mask, bytes, store)) {
            run[r].bytes += bytes;
            run[r].used = m->shared_clock;
            next[r] += bytes;
            if (run[r].bytes == 16)
                flush_shared(m, w, r);
            return;
        }
    int r = 0; /* a free run, or the least recent one, counted now */
    for (int i = 1; i < RUNS && run[r].mask; i++)
        if (!run[i].mask || run[i].used < run[r].used)
            r = i;
    flush_shared(m, w, r);
    memcpy(m->pend_addr[w][r], addr, sizeof m->pend_addr[w][r]);
    run[r].mask = mask;
    run[r].bytes = (uint8_t)bytes;
    run[r].store = (uint8_t)store;
    run[r].used = m->shared_clock;
    next[r] = lead + bytes;
}

/* The place of @p sector in the current step's fills of the window's block @p slot: where it
 * is, or an empty one. */
static struct fill *fill_slot(struct vm_model *m, uint64_t sector, uint32_t slot)
{
    uint64_t key = (sector ^ (uint64_t)slot << 44) * 0x9E3779B97F4A7C15ull;
    uint32_t h = (uint32_t)(key >> 32) % m->nfill;
    struct fill *f = &m->fill[h];
    for (int probe = 0;
         probe < 16 && f->stamp == m->stamp && (f->sector != sector || f->slot != slot); probe++)
        f = &m->fill[(h + probe + 1) % m->nfill];
    return f;
}

/* The fill of @p sector in the current step of the window's block @p slot, or NULL. */
static struct fill *in_flight(struct vm_model *m, uint64_t sector, uint32_t slot)
{
    struct fill *f = fill_slot(m, sector, slot);
    return f->stamp == m->stamp && f->sector == sector && f->slot == slot ? f : NULL;
}

/* Where the request an L1 was last fed found each of its sectors (the set and way, and the fill
 * it waited for, if any), so that the next request, when it asks for the same sectors in the
 * same step (all the warps of a block reading one row), is fed without looking them up again,
 * with the same effect on the caches, the fills and the counts. */
struct last_feed {
    const struct req *r; /* that request, or NULL */
    struct ways *set[64];
    uint8_t way[64];
    struct fill *fill[64];
};

/* 1 when request @p r asks for the sectors @p last found, each still where it was found, and
 * each fill it waited for still the step's. */
static int repeats(const struct vm_model *m, const struct last_feed *last, const struct req *r)
{
    const struct req *p = last->r;
    if (!p || p->slot != r->slot || p->seq != r->seq || p->n != r->n || p->async != r->async ||
        memcmp(&m->sec[p->first], &m->sec[r->first], r->n * sizeof *m->sec))
        return 0;
    for (uint32_t i = 0; i < r->n; i++) {
        uint64_t s = m->sec[r->first + i];
        const struct ways *set = last->set[i];
        const struct fill *f = last->fill[i];
        if (set->tag[last->way[i]] != (s >> 2) + 1 || !(set->valid[last->way[i]] >> (s & 3) & 1) ||
            (f && (f->stamp != m->stamp || f->sector != s)))
            return 0;
    }
    return 1;
}

/* Feed request @p r, which repeats the one @p last found: every sector an L1 hit, waiting for
 * the fill it found, if any. */
static unsigned feed_again(struct vm_model *m, struct cache *l1, const struct last_feed *last,
                           struct req *r)
{
    unsigned worst = m->gpu.lat_l1;
    for (uint32_t i = 0; i < r->n; i++) {
        l1->now++;
        cache_use(l1, last->set[i], last->way[i], (uint8_t)(1u << (m->sec[r->first + i] & 3)));
        m->t.l1_hits++;
        struct fill *f = last->fill[i];
        if (f) {
            f->warps++;
            r->filled = 1;
            worst = worst > f->latency ? worst : f->latency;
        }
    }
    return worst;
}

/* Feed request @p r to the caches; the latency it waits, its slowest sector's. A sector that
 * hits the L1 while another warp's miss fetches it in the same step waits for that fill. */
static unsigned feed(struct vm_model *m, struct cache *l1, struct req *r, struct last_feed *last)
{
    const struct model_gpu *g = &m->gpu;
    int cached = !r->store && r->async != ASYNC_TMA;
    if (cached && repeats(m, last, r))
        return feed_again(m, l1, last, r);
    last->r = cached && r->n <= 64 ? r : NULL;
    unsigned worst = g->lat_l1;
    for (uint32_t i = r->first, k = 0; i < r->first + r->n; i++, k++) {
        uint64_t s = m->sec[i];
        unsigned lat;
        int hit = cached && cache_access(l1, s);
        if (last->r) {
            last->set[k] = l1->last;
            last->way[k] = (uint8_t)l1->last_way;
            last->fill[k] = NULL;
        }
        if (hit) {
            m->t.l1_hits++;
            struct fill *f = in_flight(m, s, r->slot);
            if (f) {
                f->warps++;
                r->filled = 1;
            }
            lat = f ? f->latency : g->lat_l1;
            worst = worst > lat ? worst : lat;
            if (last->r)
                last->fill[k] = f;
            continue;
        }
        m->t.l2_sectors++;
        if (cache_access(&m->l2, s)) {
            m->t.l2_hits++;
            lat = g->lat_l2;
        } else {
            m->t.dram_sectors++;
            m->t.dram_writes += r->store;
            lat = g->lat_dram;
        }
        worst = worst > lat ? worst : lat;
        if (cached) {
            struct fill *f = fill_slot(m, s, r->slot);
            *f = (struct fill){s, m->stamp, r->slot, lat, 1};
            r->filled = 1;
            if (last->r)
                last->fill[k] = f;
        }
    }
    return worst;
}

/* After a step's requests @p k0 to @p k1 (of @p order) are fed: each load that waited for a
 * fill, and the most warps any of its fills released at once (all of a block's warps that read
 * the same row in a step leave together: they are one customer of the SM's pipes, not many). */
static void tally_fills(struct vm_model *m, const size_t *order, size_t k0, size_t k1)
{
    for (size_t k = k0; k < k1; k++) {
        const struct req *r = &m->req[order[k]];
        if (r->store || r->async || !r->filled)
            continue;
        unsigned most = 0;
        for (uint32_t i = r->first; i < r->first + r->n; i++) {
            const struct fill *f = in_flight(m, m->sec[i], r->slot);
            most = f && f->warps > most ? f->warps : most;
        }
        m->t.filled += most > 0;
        m->t.fill_warps += most;
    }
}

/* Open batch @p b, closed: its warp waits for its slowest load. */
static void close_wait(struct vm_model *m, struct batch *b)
{
    if (b->size)
        m->t.stall += b->worst;
    *b = (struct batch){0, 0, 0};
}

/* Load @p r, which waited @p worst cycles, in its warp's batch (model_code.h): a warp stalls at
 * the first use of a batch's results, so a batch costs its slowest load. A load of another size
 * begins another batch (its batch was left by a branch: the loads of the other are not run). */
static void batch_wait(struct vm_model *m, const struct req *r, unsigned worst)
{
    struct batch *b = &m->batch_open[r->slot * 32 + r->warp];
    if (b->size != r->batch)
        close_wait(m, b);
    if (!b->size)
        b->size = b->left = r->batch;
    b->worst = worst > b->worst ? worst : b->worst;
    if (!--b->left)
        close_wait(m, b);
}

/* Tally a load request @p r that waited @p worst cycles. */
static void tally_load(struct vm_model *m, const struct req *r, unsigned worst)
{
    m->t.load_sectors += r->n;
    if (r->async == ASYNC_TMA) {
        m->t.tma_loads++;
        m->t.tma_latency += worst;
    } else if (r->async) {
        m->t.async_loads++;
        m->t.async_latency += worst;
    } else {
        m->t.loads++;
        m->t.latency += worst;
        batch_wait(m, r, worst);
    }
}

/* SM @p sm's L1, made on first use: what its resident blocks' shared memory leaves of it. */
static struct cache *sm_l1(struct vm_model *m, uint32_t sm)
{
    struct cache *l1 = &m->l1[sm];
    if (!l1->set) {
        double carve = m->gpu.l1_per_sm - (double)m->bps * m->smem;
        double least = (double)m->gpu.l1_per_sm - m->gpu.smem_per_sm;
        cache_init(l1, carve > least ? carve : least);
    }
    return l1;
}

/* Feed the window's blocks to the caches, as the GPU runs a wave of resident blocks: together,
 * each step (a request's seq) of every block before the next step of any, and in a step the
 * blocks in the order they ran, each one's warps round robin. Each block's requests go to its
 * SM's L1 and all of them to the one L2, so that a tile one block brings into the L2 is found
 * there by the blocks beside it that read it in the same steps. */
static void feed_window(struct vm_model *m)
{
    if (!m->nreq) {
        m->win_n = 0;
        return;
    }
    uint32_t most = 0;
    for (size_t i = 0; i < m->nreq; i++)
        most = m->req[i].seq > most ? m->req[i].seq : most;
    size_t *start = emu_calloc((size_t)most + 2, sizeof *start),
           *order = emu_malloc(m->nreq * sizeof *order);
    for (size_t i = 0; i < m->nreq; i++)
        start[m->req[i].seq + 1]++;
    for (uint32_t s = 0; s <= most; s++)
        start[s + 1] += start[s];
    for (size_t i = 0; i < m->nreq; i++) /* stable: blocks, then warps, stay in their order */
        order[start[m->req[i].seq]++] = i;
    size_t k0 = 0;
    struct last_feed last = {.r = NULL};
    for (size_t k = 0; k < m->nreq; k++) {
        struct req *r = &m->req[order[k]];
        if (k == 0 || r->seq != m->req[order[k - 1]].seq) {
            tally_fills(m, order, k0, k);
            k0 = k;
            m->stamp++;
        }
        unsigned worst = feed(m, sm_l1(m, m->win_sm[r->slot]), r, &last);
        if (!r->store)
            tally_load(m, r, worst);
    }
    tally_fills(m, order, k0, m->nreq);
    for (uint32_t b = 0; b < m->win_n * 32; b++) /* a batch a block ended in */
        close_wait(m, &m->batch_open[b]);
    free(start);
    free(order);
    m->nreq = m->nsec = 0;
    m->win_n = 0;
}

/* End the block just run: count its shared runs and its instructions, and keep its requests in
 * the window, which is fed when it holds a wave (or WINDOW_SECTORS). */
static void flush_block(struct vm_model *m)
{
    if (!m->open)
        return;
    m->open = 0;
    int consumers = memchr(m->warp_wgmma, 1, sizeof m->warp_wgmma) != NULL;
    for (int w = 0; w < 32; w++) { /* a producer: TMA copies for other warps' wgmma */
        for (int r = 0; r < RUNS; r++)
            flush_shared(m, (uint32_t)w, r);
        int producer = consumers && m->warp_tma[w] && !m->warp_wgmma[w];
        *(producer ? &m->t.producer : &m->t.sass) += (double)m->warp_insts[w] / SASS_ONE;
    }
    memset(m->warp_insts, 0, sizeof m->warp_insts);
    memset(m->warp_tma, 0, sizeof m->warp_tma);
    memset(m->warp_wgmma, 0, sizeof m->warp_wgmma);
    m->t.tma_depth += m->nmbar;
    m->nmbar = 0;
    m->last_mbar = 0;
    m->win_sm[m->win_n++] = (uint32_t)(m->block % m->gpu.sms);
    if (m->win_n == m->win_cap || m->nsec >= WINDOW_SECTORS)
        feed_window(m);
}

/* @p n rounded up to whole resident groups (model_resident()): a group runs whole or not at all. */
static uint64_t whole_groups(const struct vm_model *m, uint64_t n)
{
    return (n + m->stride - 1) / m->stride * m->stride;
}

/* Sampling: run every block of a grid of at most two waves; otherwise the first wave and the
 * tail (the last blocks that do not fill a wave, or the last wave when they all do; shrunk by
 * shrink_tail() once the first wave has run), each in whole resident groups. */
static void plan_sample(struct vm_model *m)
{
    uint64_t wave = (uint64_t)m->gpu.sms * m->bps;
    m->first = m->blocks;
    m->tail = 0;
    if (!m->sample || m->blocks <= 2 * wave)
        return;
    m->first = whole_groups(m, wave);
    m->tail = whole_groups(m, m->blocks % wave ? m->blocks % wave : wave);
}

/* The warp instructions of the block that ran last, once: the first wave's least and most. */
static void note_block(struct vm_model *m)
{
    if (!m->noting)
        return;
    m->noting = 0;
    uint64_t n = m->live->warp_insts - m->block_insts;
    if (m->block < m->first) {
        m->least = n < m->least ? n : m->least;
        m->most = n > m->most ? n : m->most;
    }
}

/* A first wave whose blocks all ran the same number of instructions is a grid of like blocks
 * (no edge, no data-dependent loop among them): its tail is the blocks that may still differ,
 * the last row of the grid (blocks with the last y and z; a 1D grid's last block), and the
 * rest of the tail counts as the first wave's average block, as the middle waves do. */
static void shrink_tail(struct vm_model *m)
{
    if (m->least != m->most)
        return;
    const uint32_t *g = m->launch->grid;
    uint64_t row = whole_groups(m, (uint64_t)g[1] * g[2] > 1 ? g[0] : 1);
    m->tail = row < m->tail ? row : m->tail;
}

/* The window (feed_window()): a wave of resident blocks, each of the sample's standing for its
 * group, their warps' open batches and the fills of a step of all of them. The arrays are kept
 * from launch to launch, grown when a launch needs more; a fill is current only with the step's
 * stamp, so the table needs no clearing. */
static void open_window(struct vm_model *m)
{
    uint64_t wave = (uint64_t)m->gpu.sms * m->bps;
    m->win_cap = (uint32_t)((wave + m->stride - 1) / m->stride);
    if (m->win_cap > m->win_alloc) {
        m->win_alloc = m->win_cap;
        m->win_sm = emu_realloc(m->win_sm, m->win_alloc * sizeof *m->win_sm);
        m->batch_open =
            emu_realloc(m->batch_open, (size_t)m->win_alloc * 32 * sizeof *m->batch_open);
    }
    memset(m->batch_open, 0, (size_t)m->win_cap * 32 * sizeof *m->batch_open);
    uint32_t warps = m->warps_per_block < 32 ? m->warps_per_block : 32;
    m->nfill = FILLS_PER_WARP * (m->win_cap * warps > 32 ? m->win_cap * warps : 32);
    if (m->nfill > m->fill_cap) {
        free(m->fill);
        m->fill_cap = m->nfill;
        m->fill = emu_calloc(m->fill_cap, sizeof *m->fill);
    }
}

int model_block(struct vm_model *m, uint32_t smem, uint64_t linear)
{
    if (!m->begun) {
        m->begun = 1;
        m->smem = smem;
        m->bps = blocks_per_sm(&m->gpu, m->warps_per_block, m->regs ? m->regs : 32, smem);
        drop_caches(m);
        m->l1 = emu_calloc(m->gpu.sms, sizeof *m->l1);
        cache_init(&m->l2, m->gpu.l2_bytes);
        plan_sample(m);
        open_window(m);
    }
    note_block(m);
    if (linear == m->first && m->tail) /* the first wave has run */
        shrink_tail(m);
    int tail = linear >= m->blocks - m->tail;
    if (linear >= m->first && !tail)
        return 0;
    flush_block(m);
    if (tail && !m->in_tail && m->tail) {
        feed_window(m); /* the first wave's tally, whole */
        m->in_tail = 1;
        m->t_first = m->t;
        m->c_first = *m->live;
    }
    m->block = linear;
    m->block_bars = m->live->barriers;
    m->phase_mark = 0;
    m->nphase_start = 0;
    m->smem_mark = 0;
    m->lead.n = 0;
    m->lead.filter = 0;
    m->cp_groups = m->cp_landed = 0;
    m->sampled++;
    m->open = 1;
    m->noting = 1;
    m->block_insts = m->live->warp_insts;
    memset(m->seq, 0, sizeof m->seq);
    return 1;
}

void model_resident(struct vm_model *m, uint32_t group)
{
    m->stride = group;
}

/* The index of @p in among the kernel's instructions, or -1 (a device function's, or a copy a
 * handler made). */
static long insn_index(const struct vm_model *m, const struct insn *in)
{
    uintptr_t at = (uintptr_t)in, lo = (uintptr_t)m->code;
    if (!in || at < lo || at >= lo + (uintptr_t)m->ncode * sizeof *in)
        return -1;
    return (long)((at - lo) / sizeof *in);
}

/* How far ahead of its use warp 0's cp.async pipeline copies: at each cp.async.wait_group N, the
 * N newest groups it leaves in flight (none at wait_all, which waits for every copy). A
 * one-stage loop copies a tile and waits for all of it before using it. */
static void cp_async_depth(struct vm_model *m, const struct insn *in)
{
    if (in->op == OP_CP_ASYNC_COMMIT) {
        m->cp_groups++;
        m->t.async_groups++;
    }
    if (in->op != OP_CP_ASYNC_WAIT)
        return;
    uint32_t open = m->cp_groups - m->cp_landed, keep = in->width ? 0 : (uint32_t)in->imm;
    keep = keep < open ? keep : open;
    m->cp_landed = m->cp_groups - keep;
    m->t.async_waits++;
    m->t.async_kept += keep;
}

/* Warp 0's first instruction that names a register its loads not yet used write (a read, or
 * an overwrite, which waits for the load too): the instructions it issued since the last of
 * those loads ran while they were on their way. */
static void lead_use(struct vm_model *m, const struct insn *in)
{
    struct lead_wait *l = &m->lead;
    for (int k = 0; l->n && k < INSN_OPS; k++) {
        uint32_t r = in->o[k];
        if (r == NO_REG || !(l->filter >> (r % 64) & 1))
            continue;
        for (int i = 0; i < l->n; i++)
            if (l->reg[i] == r) {
                m->t.covered += (double)(m->warp_insts[0] - l->issued) / SASS_ONE;
                l->n = 0;
                l->filter = 0;
                return;
            }
    }
}

/* Warp 0's global load @p in: its registers wait for their first use. */
static void lead_load(struct vm_model *m, const struct insn *in)
{
    struct lead_wait *l = &m->lead;
    int before = l->n;
    l->n = model_load_regs(in, l->reg, l->n, LEAD_REGS);
    for (int i = before; i < l->n; i++)
        l->filter |= 1ull << (l->reg[i] % 64);
    l->issued = m->warp_insts[0];
}

void model_insn(struct vm_model *m, uint32_t warp, const struct insn *in)
{
    long i = m->sass_w ? insn_index(m, in) : -1;
    uint32_t w = warp < 32 ? warp : 31;
    uint32_t weight = i >= 0 ? m->sass_w[i] : SASS_ONE;
    m->warp_insts[w] += weight;
    if (in->op == OP_WGMMA_MMA) {
        m->warp_wgmma[w] = 1;
        m->last_mbar = 0; /* the next TMA load fills another stage */
    }
    if (warp == 0) {
        cp_async_depth(m, in);
        lead_use(m, in);
        m->t.lead += (double)weight / SASS_ONE;
        if (m->phase_mark == m->live->barriers + 1)
            m->t.lead_loading += (double)weight / SASS_ONE;
    }
}

/* @p clocks more of updates at @p addr. */
static void atom_add(struct atom_map *a, uint64_t addr, double clocks)
{
    if (2 * (a->n + 1) > a->cap) {
        struct atom_map big = {emu_calloc(a->cap ? 2 * a->cap : 1024, sizeof *a->key),
                               emu_calloc(a->cap ? 2 * a->cap : 1024, sizeof *a->clocks),
                               a->cap ? 2 * a->cap : 1024, 0, a->busiest};
        for (size_t i = 0; i < a->cap; i++)
            if (a->key[i])
                atom_add(&big, a->key[i] - 1, a->clocks[i]);
        free(a->key);
        free(a->clocks);
        *a = big;
    }
    size_t i = (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 20) & (a->cap - 1);
    while (a->key[i] && a->key[i] != addr + 1)
        i = (i + 1) & (a->cap - 1);
    if (!a->key[i]) {
        a->key[i] = addr + 1;
        a->clocks[i] = 0;
        a->n++;
    }
    a->clocks[i] += clocks;
    a->busiest = a->clocks[i] > a->busiest ? a->clocks[i] : a->busiest;
}

void model_atomic(struct vm_model *m, const struct insn *in, const uint64_t *addr, uint32_t mask,
                  uint64_t same, int global)
{
    long i = insn_index(m, in);
    int sum = i >= 0 ? m->warp_sum[i] : WARP_SUM_NONE;
    int summed = sum == WARP_SUM_ANY || (sum == WARP_SUM_FULL && mask == 0xffffffffu);
    if (!global) { /* lanes on one address wait for one another, but in ATOMS.POPC.INC */
        m->t.satom_serial += summed || sum == WARP_SUM_INC ? 0 : (double)same;
        return;
    }
    int f32 = ATOM_OP(in->mod) == AT_ADD && ATOM_TYPE(in->mod) == CT_F32;
    double clk = f32 ? m->gpu.atom_f32_clk : 1.0;
    if (summed) { /* one update, the warp's sum, at its one address */
        m->t.atom_clocks += clk;
        atom_add(&m->atoms, addr[__builtin_ctz(mask)], clk);
        return;
    }
    m->t.atom_clocks += __builtin_popcount(mask) * clk;
    for (uint32_t l = mask; l; l &= l - 1)
        atom_add(&m->atoms, addr[__builtin_ctz(l)], clk);
}

/* The batch size of load @p in (model_code.h): 1 when it is not one of the kernel's own. */
static uint8_t batch_of(const struct vm_model *m, const struct insn *in)
{
    long i = insn_index(m, in);
    return i >= 0 && m->batch[i] ? m->batch[i] : 1;
}

/* Room for one more request of up to @p sectors sectors. */
static void reserve(struct vm_model *m, uint64_t sectors)
{
    while (m->nsec + sectors > m->capsec) {
        m->capsec = m->capsec ? 2 * m->capsec : 1 << 16;
        m->sec = emu_realloc(m->sec, m->capsec * sizeof *m->sec);
    }
    if (m->nreq == m->capreq) {
        m->capreq = m->capreq ? 2 * m->capreq : 1 << 12;
        m->req = emu_realloc(m->req, m->capreq * sizeof *m->req);
    }
}

void model_tma(struct vm_model *m, uint32_t warp, uint64_t addr, uint64_t bytes, int store,
               uint64_t mbar)
{
    uint32_t w = warp < 32 ? warp : 31;
    m->warp_tma[w] = 1;
    if (!bytes)
        return;
    if (!store && mbar + 1 != m->last_mbar) { /* another stage: a new phase */
        m->t.tma_phases++;
        m->last_mbar = mbar + 1;
        unsigned k = 0;
        while (k < m->nmbar && m->mbar[k] != mbar + 1)
            k++;
        if (k == m->nmbar && m->nmbar < MBARS)
            m->mbar[m->nmbar++] = mbar + 1;
    }
    uint64_t first = addr >> 5, n = ((addr + bytes - 1) >> 5) - first + 1;
    reserve(m, n);
    for (uint64_t i = 0; i < n; i++)
        m->sec[m->nsec + i] = first + i - m->origin;
    m->req[m->nreq++] = (struct req){w,           m->seq[w]++,   (uint32_t)m->nsec,
                                     (uint32_t)n, m->win_n,      (uint8_t)store,
                                     ASYNC_TMA,   store ? 0 : 1, 0};
    m->nsec += n;
}

/* The L1's wavefronts for a warp's global load of lanes @p mask at @p addr, @p bytes each, in
 * @p lines 128-byte lines: its data's (shared memory's rule: 32 banks of 4 bytes) or its tag
 * stage's (the first line, and a quarter for each other), whichever are more. Nsight Compute
 * counts both on an A100, an A40 and an H200 for gpu-benches' strided loads, and the loads take
 * the larger (MODEL.md, "Strided loads"). */
static double l1_load_wavefronts(const uint64_t *addr, uint32_t mask, unsigned bytes,
                                 uint32_t lines)
{
    uint64_t lo = UINT64_MAX, hi = 0, off[32] = {0}, phases;
    for (uint32_t mm = mask; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        lo = addr[l] < lo ? addr[l] : lo;
        hi = addr[l] > hi ? addr[l] : hi;
    }
    lo &= ~127ull;             /* a line's start: the offsets keep their banks */
    if (hi - lo >= 1ull << 33) /* lanes further apart than the bank rule's words reach */
        return lines;
    for (uint32_t mm = mask; mm; mm &= mm - 1)
        off[__builtin_ctz(mm)] = addr[__builtin_ctz(mm)] - lo;
    double data = (double)count_wavefronts(off, mask, bytes, 0, &phases);
    double tags = 1.0 + (lines - 1.0) / 4.0;
    return data > tags ? data : tags;
}

/* A load phase of warp 0 that begins with load @p in: a loop's when an earlier phase of its block
 * began with the same instruction (a tile loop's body, again), counted in t.loop_phases. */
static void note_phase_start(struct vm_model *m, const struct insn *in)
{
    for (unsigned i = 0; i < m->nphase_start; i++)
        if (m->phase_start[i] == in) {
            m->t.loop_phases++;
            return;
        }
    if (m->nphase_start < PHASE_STARTS)
        m->phase_start[m->nphase_start++] = in;
}

void model_global(struct vm_model *m, uint32_t warp, const struct insn *in, const uint64_t *addr,
                  uint32_t mask, unsigned bytes, const uint64_t *sec, unsigned n, int store)
{
    int async = in && in->op == OP_CP_ASYNC;
    if (async && warp == 0) /* the copies a pipeline's warp has in flight at once */
        m->t.async_ahead += m->live->barriers == m->block_bars;
    if (!store && warp == 0 && m->phase_mark != m->live->barriers + 1) {
        m->t.load_phases++;
        m->phase_mark = m->live->barriers + 1;
        note_phase_start(m, in);
    }
    if (!store && !async && warp == 0 && in) {
        lead_load(m, in);
        long i = m->load_w ? insn_index(m, in) : -1;
        m->t.lead_waits += i >= 0 ? m->load_w[i] : 0;
    }
    reserve(m, n);
    uint32_t lines = 0;
    for (unsigned i = 0; i < n; i++)
        lines += i == 0 || (sec[i] >> 2) != (sec[i - 1] >> 2);
    m->t.l1_wavefronts += store || !lines ? lines : l1_load_wavefronts(addr, mask, bytes, lines);
    for (unsigned i = 0; i < n; i++)
        m->sec[m->nsec + i] = sec[i] - m->origin;
    uint32_t w = warp < 32 ? warp : 31;
    m->req[m->nreq++] = (struct req){w,
                                     m->seq[w]++,
                                     (uint32_t)m->nsec,
                                     n,
                                     m->win_n,
                                     (uint8_t)store,
                                     (uint8_t)(async ? ASYNC_CP : ASYNC_NONE),
                                     store ? 0 : batch_of(m, in),
                                     0};
    m->nsec += n;
}

/* ---- the estimate -------------------------------------------------------------------------- */

const char *model_bound_name(enum model_bound b)
{
    static const char *const names[MODEL_NBOUNDS] = {"fp32", "tensor", "issue",   "lsu",
                                                     "l2",   "dram",   "latency", "atomic",
                                                     "fp64", "sfu",    "barrier", "blocks"};
    return names[b];
}

/* The whole launch from the sample: the first wave's part times the blocks it stands for,
 * plus the tail's. */
static void scale(struct vm_model *m, const struct vm_counters *c, struct model_estimate *e,
                  struct tally *t)
{
    double f = m->tail ? (double)(m->blocks - m->tail) / (double)m->first : 1.0, k = m->stride;
    const double *t1 = (const double *)&m->t, *t0 = (const double *)&m->t_first;
    double *out = (double *)t;
    for (size_t i = 0; i < TALLY_N; i++)
        out[i] = k * (m->in_tail ? t0[i] * f + (t1[i] - t0[i]) : t1[i] * f);
    const uint64_t *c1 = (const uint64_t *)c, *c0 = (const uint64_t *)&m->c_first;
    uint64_t *co = (uint64_t *)&e->counters;
    for (size_t i = 0; i < COUNTERS_N; i++)
        co[i] = (uint64_t)llround(
            k * (m->in_tail ? (double)c0[i] * f + (double)(c1[i] - c0[i]) : (double)c1[i] * f));
}

/* The busiest SM's blocks: its share of the grid, ceil(blocks / SMs). */
static double busiest_sm_blocks(const struct vm_model *m)
{
    return (double)((m->blocks + m->gpu.sms - 1) / m->gpu.sms);
}

/* The blocks resident on the busiest SM at once: its share of the grid, at most the occupancy. */
static double resident_blocks(const struct vm_model *m)
{
    double per_sm = busiest_sm_blocks(m);
    return per_sm < m->bps ? per_sm : m->bps;
}

/* The rounds of resident blocks the busiest SM runs, one after another. */
static double sm_rounds(const struct vm_model *m)
{
    return ceil(busiest_sm_blocks(m) / m->bps);
}

/* The ms one clock of @p g's SMs takes. */
static double clock_ms(const struct model_gpu *g)
{
    return 1e3 / (g->clock_mhz * 1e6);
}

/* DRAM's time for @p reads and @p writes sectors, in ms: every sector at the share a stream in one
 * direction reaches, and each read paired with a write at what turning the bus costs a copy
 * (gpus.c: the two shares' sources). */
static double dram_ms(const struct model_gpu *g, double reads, double writes)
{
    double turn = 2.0 * (1.0 / DRAM_COPY_SHARE - 1.0 / DRAM_STREAM_SHARE);
    double sectors = (reads + writes) / DRAM_STREAM_SHARE + turn * fmin(reads, writes);
    return sectors * 32.0 / (g->dram_gbs * 1e9) * 1e3;
}

/* Each resource's time in ms, from the scaled counts. */
static void bounds(const struct vm_model *m, const struct tally *t, struct model_estimate *e)
{
    const struct model_gpu *g = &m->gpu;
    const struct vm_counters *c = &e->counters;
    double ms = clock_ms(g);
    double per_sm = busiest_sm_blocks(m), share = per_sm / (double)m->blocks;
    double dmma_flops = (double)c->dmma_flops;
    /* 8-bit wgmma in the time of a 16-bit one of 1 / WGMMA_8BIT_SPEEDUP its flops */
    double wgmma_flops =
        (double)c->wgmma_flops - (double)c->wgmma_8bit_flops * (1.0 - 1.0 / WGMMA_8BIT_SPEEDUP);
    double mma_flops = (double)c->tensor_flops - dmma_flops;
    double wgmma_tflops = g->wgmma_tflops > 0 ? g->wgmma_tflops : g->mma_tflops;
    /* f64 mma on Tensor Cores that have no f64 path runs on the FP64 units */
    double dmma_tflops =
        g->dmma_tflops > 0 ? g->dmma_tflops : 2.0 * g->fp64_lanes * g->sms * g->clock_mhz * 1e-6;
    double fp64 = (double)c->fp64_insts, sfu = (double)c->sfu_insts;
    double resident = resident_blocks(m) * m->warps_per_block;
    /* a pipeline's warp has the copies it issued before its first barrier in flight */
    double ahead = t->async_ahead / (double)m->blocks;
    e->bound_ms[MODEL_FP32] =
        ((double)(c->class_insts[VM_CLASS_FMA32] + c->class_insts[VM_CLASS_FP]) - fp64 - sfu) *
        share / g->fp32_lanes * ms;
    e->bound_ms[MODEL_FP64] = fp64 * share / g->fp64_lanes * ms;
    e->bound_ms[MODEL_SFU] = sfu * share / g->sfu_lanes * ms;
    /* every warp's bar.sync: its 32 threads through the SM's barrier */
    e->bound_ms[MODEL_BARRIER] = (double)c->barriers * 32.0 / BAR_THREADS_CLK * share * ms;
    /* mma.sync, its f64 form and wgmma run at their own rates on the same Tensor Cores: their
     * times add, on the busiest SM (its share of the blocks, at its share of the GPU's rate) */
    e->bound_ms[MODEL_TENSOR] =
        (mma_flops / (g->mma_tflops * 1e12) + dmma_flops / (dmma_tflops * 1e12) +
         wgmma_flops / (wgmma_tflops * 1e12)) *
        share * g->sms * 1e3;
    /* t->sass: every warp's instructions but a producer's (it issues from its own warp slots
     * while the consumers issue theirs, and waits the rest of the time) */
    e->bound_ms[MODEL_ISSUE] = t->sass * share / g->schedulers * ms;
    e->sass_insts = m->sass_w ? t->sass + t->producer : 0;
    e->producer_insts = t->producer;
    /* a shared atomic's lanes on one address take a wavefront each, but in ptxas's increments */
    e->bound_ms[MODEL_LSU] = (t->smem_wavefronts + t->l1_wavefronts + t->satom_serial) * share * ms;
    e->bound_ms[MODEL_L2] = t->l2_sectors * 32.0 / g->l2_bytes_per_clk * ms;
    e->bound_ms[MODEL_DRAM] = dram_ms(g, t->dram_sectors - t->dram_writes, t->dram_writes);
    e->bound_ms[MODEL_LATENCY] =
        (t->stall + t->async_latency / (ahead > 1 ? ahead : 1)) * share / resident * ms;
    /* Global atomics on one address are applied one at a time where the address lives (L2),
     * an integer update in a clock, an fp32 add in g->atom_f32_clk: the launch's update clocks
     * times the busiest address's share of them in the blocks that ran */
    e->bound_ms[MODEL_ATOMIC] =
        m->t.atom_clocks > 0 ? t->atom_clocks * (m->atoms.busiest / m->t.atom_clocks) * ms : 0;
    /* the GPU starts g->blocks_per_clk blocks a clock, whatever their size */
    e->bound_ms[MODEL_BLOCKS] = (double)m->blocks / g->blocks_per_clk * ms;
    e->l1_hit = t->load_sectors ? t->l1_hits / t->load_sectors : 0;
    e->l2_hit = t->l2_sectors ? t->l2_hits / t->l2_sectors : 0;
    e->l2_bytes = t->l2_sectors * 32.0;
    e->smem_wavefronts = t->smem_wavefronts;
    e->dram_bytes = t->dram_sectors * 32.0;
}

/* The slower of the L2's and DRAM's bounds in @p bound_ms: the time the GPU's copies take. */
static double copy_ms(const double *bound_ms)
{
    return fmax(bound_ms[MODEL_L2], bound_ms[MODEL_DRAM]);
}

/* The latency of a TMA pipeline's stages that its blocks do not hide, in ms. A block reuses a
 * stage only when the tile in it has been multiplied, so each stage goes round a loop: the
 * copy's latency, its transfer (the block's bytes a tile at its SM's share of the L2 or DRAM
 * bandwidth, whichever is slower) and the tile's math (its Tensor Core time at its SM's rate),
 * one after the other. With @p depth stages (the distinct mbarriers its loads complete on),
 * depth of those round trips are under way at once, so a block alone takes at least a round trip
 * over depth per tile: one stage leaves its copy and its math in series. Beyond the block's own
 * share of the work (@p work_ms, the SM's pipes' time without the latency, shared by the resident
 * blocks), that is what each tile exposes. The round trip, in cycles, goes to e->tma_round_trip. */
static double exposed_tma(const struct vm_model *m, const struct tally *t, struct model_estimate *e,
                          double work_ms)
{
    const struct model_gpu *g = &m->gpu;
    double ms = clock_ms(g), per_sm = busiest_sm_blocks(m);
    double phases = t->tma_phases / (double)m->blocks, depth = t->tma_depth / (double)m->blocks;
    double resident = resident_blocks(m), rounds = sm_rounds(m);
    e->tma_round_trip = 0;
    if (phases <= 0)
        return 0;
    const double *b = e->bound_ms;
    double copy = copy_ms(b) / ms * g->sms / (double)m->blocks / phases; /* cycles a tile, alone */
    double math = b[MODEL_TENSOR] / ms / per_sm / phases;
    e->tma_round_trip = t->tma_latency / t->tma_loads + copy + math;
    double own = work_ms / ms / (resident * rounds * phases); /* a block's share a tile */
    double wait = e->tma_round_trip / (depth > 1 ? depth : 1) - own;
    return wait > 0 ? rounds * phases * wait * ms : 0;
}

/* The cycles a load phase of the SM's resident blocks waits for its bytes beyond their latency:
 * their transfer at the SM's share of the L2 or DRAM bandwidth (whichever is slower), over the
 * @p phases the busiest SM runs, less the phase's own work (@p work cycles a phase, the share
 * of it the first warp issues in load phases: a pass that streams its row while it computes
 * overlaps the transfer; a tile copy has little to overlap it with). */
static double phase_transfer(const struct vm_model *m, const struct tally *t,
                             const struct model_estimate *e, double phases, double work)
{
    double ms = clock_ms(&m->gpu), share = busiest_sm_blocks(m) / (double)m->blocks;
    double own = t->lead > 0 ? t->lead_loading / t->lead * work : 0;
    double wait = copy_ms(e->bound_ms) * share * m->gpu.sms / ms / phases - own;
    return wait > 0 ? wait : 0;
}

/* The waits of a block's load phases (the barrier intervals in which its first warp loads
 * from global memory: one per tile of a tile loop) that the block's own work does not hide, in
 * ms: per phase and round of resident blocks, one mean latency (in a tile loop with the kernel's
 * SASS, one for each round of warp 0's loads in the phase, as ptxas orders them: t->lead_waits)
 * and, in a tile loop (a phase that begins with the load an earlier one began with: a block of
 * one phase, or of phases of different code, a row read and then read again, is not a loop, and
 * after the first round its SM's blocks start as others end, out of step), the phase's transfer
 * (phase_transfer()); less the work warp 0 does
 * between its loads and their first use (a tile loaded into registers while the one before is
 * worked on), or the work of the phases a cp.async pipeline copies ahead (the groups its
 * cp.async.wait_group leaves in flight); @p work_ms, the SM's pipes' time without the latency,
 * spread over the phases. */
static double exposed(const struct vm_model *m, const struct tally *t, struct model_estimate *e,
                      double work_ms)
{
    const struct model_gpu *g = &m->gpu;
    double ms = clock_ms(g), rounds = sm_rounds(m);
    double phases = t->load_phases / (double)m->blocks;
    if (t->tma_loads > t->loads + t->async_loads)
        return exposed_tma(m, t, e, work_ms);
    if (phases <= 0 || (!t->loads && !t->async_loads))
        return 0;
    double work = work_ms / ms / (rounds * phases); /* cycles a phase */
    double transfer = t->loop_phases > 0 ? phase_transfer(m, t, e, rounds * phases, work) : 0;
    if (t->async_loads <= t->loads) {
        double hidden = t->lead > 0 ? t->covered / t->lead * work : 0;
        double waits = m->load_w && phases >= 2 ? fmax(1, t->lead_waits / t->load_phases) : 1;
        double wait = t->latency / t->loads * waits + transfer - hidden;
        return wait > 0 ? rounds * phases * wait * ms : 0;
    }
    /* phases ahead: the groups its waits leave in flight, in load phases */
    double ahead = t->async_waits && t->async_groups
                       ? t->async_kept / t->async_waits * t->load_phases / t->async_groups
                       : 0;
    double wait = t->async_latency / t->async_loads + transfer - ahead * work;
    return wait > 0 ? rounds * phases * wait * ms : 0;
}

/* The waits of a block's barrier intervals for their shared loads, in ms (kernels with barriers
 * only): the resident blocks reach each interval together, and there each warp's first use of
 * a shared load (a tree reduction's next step, a slice's ldmatrix before its mma) waits for it,
 * so the last warp's load's latency comes after the interval's work and before its barrier.
 * Shared memory is the L1's array: its latency is taken as an L1 hit's. One a block, per
 * interval in which warp 0 loads from shared memory, and per round of resident blocks. */
static double exposed_shared(const struct vm_model *m, const struct tally *t,
                             const struct model_estimate *e)
{
    if (!e->counters.barriers)
        return 0;
    double ms = clock_ms(&m->gpu);
    return sm_rounds(m) * t->smem_phases / (double)m->blocks * m->gpu.lat_l1 * ms;
}

/* The SM's pipes, which every warp visits in turn. */
static const enum model_bound sm_pipes[] = {MODEL_FP32,   MODEL_FP64,  MODEL_SFU,
                                            MODEL_TENSOR, MODEL_ISSUE, MODEL_LSU};
enum { NPIPES = sizeof sm_pipes / sizeof sm_pipes[0] };

/* The time, in ms, of the busiest SM's @p warps resident warps on its pipes: exact mean value
 * analysis of a closed queueing network (Reiser and Lavenberg, 1980). Each warp visits every
 * pipe of the SM in turn (fp32, fp64, sfu, tensor, issue, lsu), taking its share of that pipe's
 * work (the pipe's bound over the warps), and waits @p latency_ms (its loads' latency, per warp) in
 * between. With many warps the busiest pipe sets the time (the largest bound); with few, the
 * pipes a warp feeds in turn add up as well as overlapping with the other warps', as in-order
 * issue makes them. Warps that wait for the same loads leave together, @p group at a time: a
 * group is one customer, whose warps go through the pipes one behind another (its time on
 * them: the busiest pipe's, and the others' for one warp of the group). A warp's mma runs on
 * the Tensor Core of its own sub-partition, one of @p parts, at that one's share of the SM's
 * rate, and queues there only behind the warps of its sub-partition: its visit is its work at
 * that rate (a group's spread over up to @p parts of them), and it finds there the share of the
 * Tensor Cores' queue that the other customers of its sub-partition make. The other pipes are
 * taken SM-wide (emulator/MODEL.md, "Sub-partitions", says why). */
static double shared_pipes_ms(const double *bound_ms, double latency_ms, double warps, double group,
                              double parts)
{
    double queue[NPIPES] = {0}, per_group = 0;
    warps = fmax(warps, 1);
    group = fmin(fmax(group, 1), warps); /* at least one warp, at most all of them */
    int groups = (int)(warps / group);
    double span = fmin(group, parts), local = fmax(groups * span / parts, 1);
    double mine = groups > 1 ? (local - 1) / (groups - 1) : 0; /* the others on its own part */
    for (int n = 1; n <= groups; n++) {
        double visit[NPIPES], sum = 0, most = 0;
        for (int p = 0; p < NPIPES; p++) {
            int own = sm_pipes[p] == MODEL_TENSOR;
            visit[p] = bound_ms[sm_pipes[p]] / groups * (own ? parts / span : 1) *
                       (1 + queue[p] * (own ? mine : 1));
            sum += visit[p];
            most = visit[p] > most ? visit[p] : most;
        }
        double total = latency_ms + most + (sum - most) / group;
        if (total <= 0)
            break;
        per_group = total / n; /* over the throughput: the time for n groups, each its work */
        for (int p = 0; p < NPIPES; p++)
            queue[p] = visit[p] / per_group;
    }
    return per_group * groups;
}

/* The chip's bounds, in ms: the L2's, DRAM's and atomics' bandwidth, spent while a warp waits on
 * its loads or goes on past its stores and asynchronous copies, so they bound the time from
 * below and add nothing to a warp's turn on the SM's pipes. */
static double chip_ms(const double *bound_ms)
{
    static const enum model_bound chip[] = {MODEL_L2, MODEL_DRAM, MODEL_ATOMIC, MODEL_BLOCKS};
    double t = 0;
    for (size_t i = 0; i < sizeof chip / sizeof chip[0]; i++)
        t = bound_ms[chip[i]] > t ? bound_ms[chip[i]] : t;
    return t;
}

/* The time, in ms, of an SM's resident blocks that each load once, wait at a barrier for their
 * loads and go on: each block a customer of a closed queueing network (exact mean value
 * analysis), which waits its round's latency and barrier (@p wait_ms over the @p rounds of
 * resident blocks), then takes its share of the SM's pipes (@p pipes_ms) and of its share of the
 * chip's bandwidth (@p chip_ms), where the other resident blocks queue too. With many blocks the
 * chip's bound sets the time; with few, a block's latency, work and transfer come one after the
 * other, and the memory idles while the blocks wait. */
static double block_rounds_ms(double wait_ms, double pipes_ms, double chip_ms, double blocks,
                              double rounds)
{
    int n_blocks = (int)fmax(blocks, 1);
    double visits = rounds * n_blocks, z = wait_ms / rounds;
    double sp = pipes_ms / visits, sc = chip_ms / visits, qp = 0, qc = 0, cycle = 0;
    for (int n = 1; n <= n_blocks; n++) {
        double rp = sp * (1 + qp), rc = sc * (1 + qc);
        cycle = (z + rp + rc) / n; /* over the throughput: one block's visit */
        qp = rp / cycle;
        qc = rc / cycle;
    }
    return cycle * visits;
}

/* The rounds of an SM's resident blocks (block_rounds_ms()) when each block loads in phases that
 * are not a loop's (one load phase, or a few of different code; no TMA) and waits at a barrier:
 * its warps leave the barrier together, so the block is the customer; 0 for other kernels (a
 * tile loop's phases wait for their transfer in exposed(),
 * and warps without barriers are customers apart). @p pipes_ms, the SM's pipes' time without the
 * latency; @p chip_ms, chip_ms(). */
static double short_blocks_ms(const struct vm_model *m, const struct tally *t,
                              const struct model_estimate *e, double pipes_ms, double chip_ms)
{
    double phases = t->load_phases / (double)m->blocks;
    if (!e->counters.barriers || phases <= 0 || t->loop_phases > 0 || t->tma_loads >= t->loads)
        return 0;
    return block_rounds_ms(e->exposed_ms + e->starts_ms + e->bound_ms[MODEL_BARRIER], pipes_ms,
                           chip_ms, resident_blocks(m), sm_rounds(m));
}

/* What sets the time when the chain of waits and work does (model_finish()): its largest part,
 * the blocks' exposed latency, their barriers or the work of the busiest pipe (@p pipes_ms, the
 * pipes' time without the latency). */
static enum model_bound chain_bound(const struct model_estimate *e, double pipes_ms)
{
    double bar = e->bound_ms[MODEL_BARRIER];
    double waits = e->exposed_ms + e->starts_ms;
    if (waits > pipes_ms || bar > pipes_ms)
        return waits >= bar ? MODEL_LATENCY : MODEL_BARRIER;
    enum model_bound busiest = sm_pipes[0];
    for (int p = 1; p < NPIPES; p++)
        busiest = e->bound_ms[sm_pipes[p]] > e->bound_ms[busiest] ? sm_pipes[p] : busiest;
    return busiest;
}

void model_finish(struct vm_model *m, const struct vm_counters *c, struct model_estimate *e)
{
    memset(e, 0, sizeof *e);
    if (!m->begun) /* a launch that ran no block (it failed first) */
        return;
    flush_block(m);
    feed_window(m);
    struct tally t;
    scale(m, c, e, &t);
    bounds(m, &t, e);
    e->bound = MODEL_FP32;
    for (int b = 1; b < MODEL_NBOUNDS; b++)
        if (e->bound_ms[b] > e->bound_ms[e->bound])
            e->bound = (enum model_bound)b;
    /* The resident blocks of a round start together and run the same loop, so they reach each
     * load phase and each barrier together and wait for them together: the time is the longer of
     * the warps' time on the SM's pipes with their latency among it (and the chip's bounds, and
     * short blocks' rounds), and the blocks' exposed latency, their barriers and the pipes' work
     * one after the other. */
    double warps = resident_blocks(m) * m->warps_per_block;
    double group = t.filled > 0 ? t.fill_warps / t.filled : 1; /* warps a fill releases */
    /* each round of resident blocks waits for its blocks to start and end */
    e->starts_ms = sm_rounds(m) * m->gpu.block_clk * clock_ms(&m->gpu);
    double busy = shared_pipes_ms(e->bound_ms, e->bound_ms[MODEL_LATENCY] + e->starts_ms, warps,
                                  group, m->gpu.schedulers);
    double chip = chip_ms(e->bound_ms),
           pipes = shared_pipes_ms(e->bound_ms, 0, warps, group, m->gpu.schedulers);
    busy = busy > chip ? busy : chip;
    e->exposed_ms = exposed(m, &t, e, pipes) + exposed_shared(m, &t, e);
    e->tma_stages = t.tma_depth / (double)m->blocks;
    busy = fmax(busy, short_blocks_ms(m, &t, e, pipes, chip));
    double chain = e->exposed_ms + e->starts_ms + e->bound_ms[MODEL_BARRIER] + pipes;
    if (chain > busy)
        e->bound = chain_bound(e, pipes);
    e->ms = (busy > chain ? busy : chain) + m->gpu.launch_us * 1e-3;
    e->regs = m->regs ? m->regs : 32;
    e->regs_known = m->regs != 0;
    e->blocks_per_sm = m->bps;
    e->warps_per_sm = m->bps * m->warps_per_block;
    e->waves = (double)m->blocks / ((double)m->gpu.sms * m->bps);
    e->blocks = m->blocks;
    e->sampled = m->sampled;
    drop_caches(m);
}

void model_print(FILE *f, const struct vm_model *m, const char *kernel, const struct vm_launch *L,
                 const struct model_estimate *e)
{
    const struct vm_counters *c = &e->counters;
    fprintf(f,
            "model gpu=%s kernel=%s grid=%u,%u,%u block=%u,%u,%u regs=%u%s smem=%u "
            "blocks_per_sm=%u warps_per_sm=%u/%u waves=%.2f sampled=%llu/%llu ms=%.6g bound=%s",
            m->gpu.name, kernel, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1],
            L->block[2], e->regs, e->regs_known ? "" : "(assumed)", m->smem, e->blocks_per_sm,
            e->warps_per_sm, m->gpu.max_warps, e->waves, (unsigned long long)e->sampled,
            (unsigned long long)e->blocks, e->ms, model_bound_name(e->bound));
    for (int b = 0; b < MODEL_NBOUNDS; b++)
        fprintf(f, " %s_ms=%.4g", model_bound_name((enum model_bound)b), e->bound_ms[b]);
    fprintf(f,
            " exposed_ms=%.4g starts_ms=%.4g l1_hit=%.3f l2_hit=%.3f l2_bytes=%.0f dram_bytes=%.0f "
            "smem_wavefronts=%.0f flops=%llu sass_insts=%.0f producer_insts=%.0f "
            "tma_stages=%.3g tma_round_trip=%.0f warp_insts=%llu gld_sectors=%llu gst_sectors=%llu "
            "tma_ld_sectors=%llu "
            "lds_wavefronts=%llu\n",
            e->exposed_ms, e->starts_ms, e->l1_hit, e->l2_hit, e->l2_bytes, e->dram_bytes,
            e->smem_wavefronts, (unsigned long long)c->flops, e->sass_insts, e->producer_insts,
            e->tma_stages, e->tma_round_trip, (unsigned long long)c->warp_insts,
            (unsigned long long)c->gld_sectors, (unsigned long long)c->gst_sectors,
            (unsigned long long)c->tma_ld_sectors, (unsigned long long)c->lds_wavefronts);
}
