/**
 * @file gpus.h
 * @brief The GPUs the time model (model.h) knows, each with its sources, and the same fields
 *        read from a file for any other GPU (COURSE_EMU_MODEL=FILE, ./course estimate
 *        --gpu=FILE).
 */
#ifndef EMU_GPUS_H
#define EMU_GPUS_H

#include <stddef.h>
#include <stdio.h>

/** One GPU: what the model's occupancy, bounds and caches need. */
struct model_gpu {
    char name[32];           /**< the key: t4, a6000, rtx3090, a100, a100-40gb, l4, h100, h200 */
    char full[80];           /**< what it is called */
    unsigned sms;            /**< streaming multiprocessors */
    double clock_mhz;        /**< boost clock */
    unsigned fp32_lanes;     /**< fp32 FMAs per SM per clock */
    double tensor_tflops;    /**< dense fp16/bf16 Tensor Core TFLOP/s (fp32 accumulate) */
    double mma_tflops;       /**< the same through warp-level mma.sync (and wmma, which lowers to
                                  it): tensor_tflops before Hopper; on Hopper the full rate needs
                                  warpgroup wgmma. Optional in a GPU file (tensor_tflops) */
    double wgmma_tflops;     /**< the same through warpgroup wgmma.mma_async (sm_90): 0 where
                                  the GPU has none (its kernels then count at mma_tflops).
                                  Optional in a GPU file (tensor_tflops) */
    unsigned schedulers;     /**< warp instructions issued per SM per clock (sub-partitions) */
    unsigned regs_per_sm;    /**< 32-bit registers per SM */
    unsigned smem_per_sm;    /**< the most shared memory an SM gives its blocks (bytes) */
    unsigned l1_per_sm;      /**< L1 and shared memory together (bytes) */
    double l2_bytes;         /**< L2 size */
    double l2_bytes_per_clk; /**< L2 bandwidth, whole GPU, bytes per clock */
    double dram_gbs;         /**< DRAM bandwidth, GB/s, the datasheet's (the model streams at
                                  DRAM_STREAM_SHARE and copies at DRAM_COPY_SHARE of it) */
    unsigned max_warps;      /**< resident warps per SM */
    unsigned max_blocks;     /**< resident blocks per SM */
    unsigned lat_l1;         /**< load latency, L1 hit (cycles) */
    unsigned lat_l2;         /**< load latency, L2 hit (cycles) */
    unsigned lat_dram;       /**< load latency, DRAM (cycles) */
    double launch_us;        /**< launch overhead per kernel (microseconds) */
    double atom_f32_clk;     /**< clocks one fp32 atomic add to an address takes where that address
                                  lives (L2); an integer update takes one. Optional in a GPU
                                  file (ATOM_F32_CLOCKS, gpus.c) */
    unsigned fp64_lanes;     /**< f64 FMAs per SM per clock (the FP64 units). Optional in a GPU
                                  file: 2, an SM's since Turing on every GeForce, RTX, T- and
                                  L-series GPU */
    unsigned sfu_lanes;      /**< fp32 special functions (ex2, sin, rcp, rsqrt, ...) per SM per
                                  clock. Optional in a GPU file (16) */
    double dmma_tflops;      /**< f64 Tensor Core TFLOP/s (mma.sync and wmma in f64): 0 where
                                  the GPU has none, and f64 mma runs at its FP64 units' rate.
                                  Optional in a GPU file (0) */
    double blocks_per_clk;   /**< thread blocks the GPU starts a clock, whole GPU (its work
                                  distributor): the cap of a grid of many short blocks.
                                  Optional in a GPU file (BLOCKS_PER_CLK) */
    unsigned block_clk;      /**< clocks a block takes to start and end on its SM, besides its
                                  work and its loads' latency: each round of resident blocks
                                  waits them. Optional in a GPU file (BLOCK_CLOCKS) */
    char source[400];        /**< where the numbers come from */
};

/** How many times faster than the wgmma rate wgmma.mma_async runs on 8-bit inputs (e4m3, e5m2,
 *  s8, u8): the sources are in gpus.c. */
#define WGMMA_8BIT_SPEEDUP 2.0

/** The share of a row's DRAM bandwidth (its datasheet's) that a kernel streaming through memory
 *  in one direction (reading only, or writing only) reaches: the sources are in gpus.c. */
#define DRAM_STREAM_SHARE 0.964

/** The share a kernel that reads and writes as many bytes (a copy) reaches: the bus turning
 *  between reads and writes costs the rest. The sources are in gpus.c. */
#define DRAM_COPY_SHARE 0.88

/** Thread blocks a GPU starts a clock when a GPU file gives none: GH100's, the sources are in
 *  gpus.c. */
#define BLOCKS_PER_CLK 0.83

/** Clocks a block takes to start and end when a GPU file gives none: GH100's, the sources are in
 *  gpus.c. */
#define BLOCK_CLOCKS 450

/** Threads an SM takes through a bar.sync (__syncthreads()) a clock: the sources are in gpus.c. */
#define BAR_THREADS_CLK 16.0

/** The GPU named @p name (case-insensitive), or NULL. */
const struct model_gpu *gpus_find(const char *name);

/** The row of a GPU the CUDA runtime or nvidia-smi calls @p device ("NVIDIA A100-SXM4-40GB"),
 *  or NULL for a GPU the table lacks. */
const struct model_gpu *gpus_of_device(const char *device);

/** Every row, in order; @p n receives how many. */
const struct model_gpu *gpus_all(size_t *n);

/**
 * Read a GPU from @p path: "field = value" lines with the names of struct model_gpu ('#'
 * starts a comment; name, full and source are text). Every numeric field must be given but
 * mma_tflops, wgmma_tflops, atom_f32_clk, fp64_lanes, sfu_lanes, dmma_tflops, blocks_per_clk and
 * block_clk.
 * Returns 0, or -1 with one line in @p err naming the file, line or missing field.
 */
int gpus_load(const char *path, struct model_gpu *g, char *err, size_t err_size);

/**
 * Write @p g to @p f as a GPU file gpus_load() reads back: its name, full name and source, then
 * every numeric field. Returns 0, or -1 when @p f reports a write error.
 */
int gpus_save(const struct model_gpu *g, FILE *f);

#endif /* EMU_GPUS_H */
