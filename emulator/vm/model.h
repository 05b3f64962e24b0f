/**
 * @file model.h
 * @brief The time model: one launch, as the VM executes it, to an estimated time on a named
 *        GPU (gpus.h) and the resource that bounds it. An estimate, never a measurement.
 *
 * The device server creates a model when COURSE_EMU_MODEL names a GPU (or a GPU file) and
 * sets vm_launch::model; the VM then calls model_block() before each block (it may skip the
 * block: sampling) and model_global() for each global request, and the server reads the
 * estimate with model_finish(). With no model nothing here runs.
 *
 * What it contains: occupancy from registers (the 4 sub-partitions' register files, 256
 * registers per warp allocation), shared memory and block size; waves over the SMs; a time
 * bound per resource (fp32 pipe, Tensor Cores, issue, L1/shared wavefronts, L2 and DRAM
 * bytes); a per-SM L1 and one L2 at sector granularity fed the launch's own sector stream,
 * warps interleaved round robin as the schedulers issue them; Little's law for the loads in
 * flight; the latency of barrier-separated load phases that no other resident block covers;
 * launch overhead. Sampling runs the first wave and the tail (of a grid of like blocks, its last
 * row) and scales the middle waves.
 */
#ifndef EMU_MODEL_H
#define EMU_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "gpus.h"
#include "model_code.h"
#include "vm.h"

/** The resources a launch's time is bounded by. */
enum model_bound {
    MODEL_FP32,
    MODEL_TENSOR,
    MODEL_ISSUE,
    MODEL_LSU, /**< L1/shared wavefronts: 128 bytes per clock per SM */
    MODEL_L2,
    MODEL_DRAM,
    MODEL_LATENCY, /**< loads in flight too few for their latency (Little's law), or a block's
                        exposed load latency sets the time and is the larger part of it */
    MODEL_ATOMIC,  /**< global atomics on one address, applied one at a time */
    MODEL_FP64,    /**< f64 arithmetic over the SM's FP64 units */
    MODEL_SFU,     /**< fp32 special functions over the SM's special function units (MUFU) */
    MODEL_BARRIER, /**< bar.sync's threads at BAR_THREADS_CLK a clock an SM */
    MODEL_BLOCKS,  /**< the grid's blocks started at the GPU's blocks_per_clk */
    MODEL_NBOUNDS
};

/** What model_finish() reports about a launch. */
struct model_estimate {
    double ms;                      /**< estimated time, launch overhead included */
    enum model_bound bound;         /**< the largest bound; latency or barrier when the chain
                                         of the blocks' waits and work is longer and that wait
                                         is the larger part of it */
    double bound_ms[MODEL_NBOUNDS]; /**< each resource's time */
    double exposed_ms;              /**< latency of barrier phases no other block hides */
    double starts_ms;               /**< the rounds of resident blocks' starts and ends (each
                                         round's, model_gpu::block_clk) */
    unsigned regs;                  /**< registers per thread the occupancy used */
    int regs_known;                 /**< 0: not given, 32 assumed */
    unsigned blocks_per_sm, warps_per_sm;
    double waves;
    uint64_t blocks, sampled;    /**< blocks in the grid, blocks run */
    double l1_hit, l2_hit;       /**< load sector hit rates */
    double l2_bytes, dram_bytes; /**< traffic the caches let through */
    double smem_wavefronts;      /**< shared wavefronts, adjacent accesses merged */
    double sass_insts;           /**< warp instructions in SASS (0: not known, PTX counted) */
    double producer_insts;       /**< of those, producer warps' (TMA copies for other warps'
                                      wgmma, none of their own): they take no issue slots from
                                      the consumers */
    double tma_stages;           /**< mbarriers a block's TMA loads complete on (its stages) */
    double tma_round_trip;       /**< cycles a stage takes from its copy's issue to its reuse, in a
                                      block alone on its SM: the copy's latency, its transfer and
                                      the tile's math (0: no TMA stages) */
    struct vm_counters counters; /**< the launch's counters, scaled from the sample */
};

struct vm_model;

/** A model of GPU @p gpu; @p sample 1: run the first wave and the tail only. */
struct vm_model *model_new(const struct model_gpu *gpu, int sample);
void model_free(struct vm_model *m);

/** Before a launch: its configuration, registers per thread (0: unknown), the SASS ptxas made
 *  of each of the kernel's source lines (@p n entries; none: PTX instructions are counted),
 *  and the counters the VM fills (@p live, read at the sample's seams). */
void model_begin(struct vm_model *m, const struct vm_launch *L, unsigned regs,
                 const struct model_sass_line *sass, size_t n, const struct vm_counters *live);

/** One warp instruction @p in issued by warp @p warp (the counters' path calls it). */
void model_insn(struct vm_model *m, uint32_t warp, const struct insn *in);

/** Before block @p linear, whose shared memory is @p smem bytes: 0 to skip it (not sampled). */
int model_block(struct vm_model *m, uint32_t smem, uint64_t linear);

/** Before the first block of a launch whose blocks run in resident groups of @p group (a
 *  cluster's, or a cooperative grid's): the first block of each group feeds the model and stands
 *  for the group (its counts and tallies times @p group), and model_block() answers for the
 *  group, which is sampled whole or skipped whole. */
void model_resident(struct vm_model *m, uint32_t group);

/** One global request of warp @p warp by instruction @p in (NULL: unknown): lanes @p mask at
 *  @p addr, @p bytes each, and their @p n distinct 32-byte sectors @p sec, sorted
 *  (count_sectors()). */
void model_global(struct vm_model *m, uint32_t warp, const struct insn *in, const uint64_t *addr,
                  uint32_t mask, unsigned bytes, const uint64_t *sec, unsigned n, int store);

/** A piece of a TMA (bulk or tensor) copy issued by warp @p warp: global [@p addr, @p addr +
 *  @p bytes), read (or written, @p store) by the copy engine through L2; a load completes on
 *  the mbarrier at shared offset @p mbar. Loads on one mbarrier with no wgmma between them
 *  fill one stage. */
void model_tma(struct vm_model *m, uint32_t warp, uint64_t addr, uint64_t bytes, int store,
               uint64_t mbar);

/** One shared request of warp @p warp (window offsets), as model_global(). A thread's adjacent
 *  accesses to consecutive, aligned addresses are served as one vector access of up to 16
 *  bytes, as ptxas merges them in SASS; an atomic (@p atomic, a store) is one access of its own
 *  width, which ptxas merges with nothing (MODEL.md, "Shared atomics"). */
void model_shared(struct vm_model *m, uint32_t warp, const uint64_t *addr, uint32_t mask,
                  unsigned bytes, int store, int atomic);

/** An atomic @p in of a warp, by its lanes @p mask at addresses @p addr, on global memory
 *  (@p global) or shared: the updates memory applies at each address (one a lane, or one a
 *  warp where ptxas sums the warp's first: model_code.h); for a shared one, @p same of its
 *  lanes on an address an earlier lane has (count.c), a wavefront each, but in ptxas's
 *  increments (WARP_SUM_INC), whose lanes on one address are one bank access. */
void model_atomic(struct vm_model *m, const struct insn *in, const uint64_t *addr, uint32_t mask,
                  uint64_t same, int global);

/** After the launch: its estimate from its counters @p c (as run). */
void model_finish(struct vm_model *m, const struct vm_counters *c, struct model_estimate *e);

/** The resource's name, as printed. */
const char *model_bound_name(enum model_bound b);

/** One line: "model gpu=... kernel=... ms=... bound=...", every field key=value. */
void model_print(FILE *f, const struct vm_model *m, const char *kernel, const struct vm_launch *L,
                 const struct model_estimate *e);

#endif /* EMU_MODEL_H */
