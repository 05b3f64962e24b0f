/**
 * @file gpus.c
 * @brief The time model's GPU table, with its sources, and the reader of a GPU file.
 *
 * Sources, per field (every row unless a row's own source says otherwise):
 *  - SMs, boost clock, fp32 and Tensor Core TFLOP/s, DRAM bandwidth, L2 size: NVIDIA's
 *    datasheets (T4, RTX A6000, A100 80GB and 40GB SXM, L4, H100 SXM5, H200 SXM; GeForce RTX
 *    3090 from the GA102 whitepaper's table, where the reduction ladder of emulator/MODEL.md
 *    was measured) and architecture whitepapers (Turing TU104, Ampere GA102 and GA100, Hopper
 *    GH100). Tensor rates are dense (the datasheets' "with sparsity" numbers halved).
 *  - registers, shared memory and L1 per SM, resident warps and blocks: the CUDA C++
 *    Programming Guide's table of technical specifications per compute capability
 *    (7.5, 8.0, 8.6, 8.9, 9.0).
 *  - L2 bandwidth: measured, not the whitepapers' peaks (the A100's 5120 bytes a clock, which
 *    every row took per SM until 2026-12-02). gpu-benches' gpu-l2-cache (Dominik Ernst,
 *    github.com/te42kyfo/gpu-benches at 1c36d50; 200,000 blocks of 1024 threads, each reading
 *    512 KiB of a data set that stays in the L2) reads, over its points from 4 MiB to half the
 *    L2: 5397 GB/s on an A100 80GB (3828 bytes a clock at 1410 MHz, 75% of the whitepaper's),
 *    10028 GB/s on an H200 (5065 at 1980 MHz; an H100 PCIe's 6996 GB/s is 35.0 bytes a clock an
 *    SM at its 1755 MHz, the H200's 38.4) and 5208 GB/s on an L40 (AD102: 14.7 bytes a clock an
 *    SM at 2490 MHz). GA102 has no gpu-l2-cache file; the same repository's gpu-cache (one block
 *    of 256 threads an SM, every SM reading one data set) reads 2419 GB/s on an A40 between 512
 *    KiB and 3 MiB at the 1740 MHz its file records: 16.6 bytes a clock an SM (gpu-cache gives
 *    0.85, 1.18 and 1.10 times gpu-l2-cache's rate on the A100, the H100 PCIe and the L40). The
 *    GA100 and GH100 rows take their chip's rate a clock, the GA102 rows and the L4 (AD104) their
 *    chip's or AD102's an SM, and the T4 (TU104, no measurement found) GA102's an SM: the nearest
 *    measured chip, an inference.
 *  - latencies: rounded from published pointer-chasing microbenchmarks (Jia et al.,
 *    "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", 2018, and the
 *    Turing T4 follow-up, 2019; Chips and Cheese's Ampere and Hopper articles); approximate.
 *  - DRAM_STREAM_SHARE and DRAM_COPY_SHARE (gpus.h): the datasheets' DRAM bandwidth is the
 *    interface's peak. A kernel that reads and writes as many bytes reaches about 88% of it: an
 *    H200 copying device to device at 4226.9 of 4800 GB/s (88.1%, this project's `./course
 *    gpu-report`, 2026-11-30, docs/gpu-reports/2026-11-30-h200) and an RTX 5090's
 *    cub::DeviceTransform BabelStream at 87.8% (NVIDIA/cccl pull request 9881, 16-byte elements,
 *    2^28 of them). A kernel that only reads reaches more: gpu-benches' gpu-stream (Dominik
 *    Ernst, github.com/te42kyfo/gpu-benches at 1c36d50, its best occupancy) reads at 1490 of an
 *    A100 40GB's 1555 GB/s (95.8%), 1942 of an H100 PCIe's 2000 (97.1%) and 866 of a V100's 900
 *    (96.2%): 0.964, their mean. The same files write only (init) at 96.8%, 100.9% and 99.4%,
 *    copy (scale) at 88.8%, 85.2% and 89.3%, and add two streams into a third (triad) at 88.4%,
 *    91.6% and 90.4%, where the rule below gives 90.6% (an RTX 2060's BabelStream triad: 304 of
 *    336 GB/s, 90.5%, alpaka-group/alpaka issue 1874). Its a100_80 file (the board not given, so
 *    no datasheet rate) and h200 file (2756 of 4800 GB/s reading and 3165 copying: two blocks an
 *    SM did not keep the H200's memory busy, which copied at 4227 here) are left out. The model
 *    charges R bytes read and W written (R + W) / DRAM_STREAM_SHARE + 2 (1 / DRAM_COPY_SHARE -
 *    1 / DRAM_STREAM_SHARE) min(R, W) over the datasheet's rate: a stream's share, and the copy's
 *    for every read paired with a write. On every row; measured on none of the validation sets'
 *    GPUs but the H200 (its copy). The read share was looked for because of the H100 vector-sum
 *    set (emulator/MODEL.md), which reads at 96.4%.
 *  - launch overhead: 3 us assumed, the order of a short kernel's launch in NVIDIA's
 *    "Getting Started with CUDA Graphs" (2019); not measured here.
 *  - issue: 4 schedulers per SM, one warp instruction each per clock (every whitepaper above).
 *  - mma.sync rate: the dense Tensor Core rate before Hopper; on Hopper the measured share
 *    HOPPER_MMA_SYNC of it (below), since the full rate needs wgmma.
 *  - wgmma rate: Hopper only, the measured share HOPPER_WGMMA of the dense rate (below); 0 on
 *    the rows without wgmma. wgmma on 8-bit inputs (e4m3, e5m2, s8, u8) runs at
 *    WGMMA_8BIT_SPEEDUP (gpus.h) times it: the H100 SXM5 datasheet's dense FP8 and INT8 rates,
 *    1,979 TFLOPS and TOPS, are twice its FP16 and BF16 989 (the H200 SXM's the same).
 *  - fp32 atomic adds to one address: ATOM_F32_CLOCKS (below), measured on an RTX A6000 and
 *    assumed for every row (no measurement of another chip was found).
 *  - special functions: SFU (below), 16 a clock an SM on every row.
 *  - barriers: BAR_THREADS_CLK (gpus.h), 16 threads a clock an SM through __syncthreads(): the
 *    CUDA C++ Best Practices Guide (13.2, "Synchronization Instruction") for compute capability
 *    7.x and 8.x; assumed for 9.0, which it does not name.
 *  - FP64 units: the whitepapers' SM diagrams (2 an SM on Turing TU104, GA102 and Ada AD104,
 *    1/32 and 1/64 of their fp32 rates; 32 on GA100, 64 on GH100, half of fp32); f64 Tensor
 *    Core rates from the A100 (19.5 TFLOP/s) and H100 SXM and H200 (67) datasheets, none on
 *    the other chips.
 */
#include "gpus.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KIB 1024u
#define MIB (1024.0 * 1024.0)
/* L2 read bandwidth (the sources above): bytes a clock for the whole chip, or an SM's share. */
#define GA100_L2_CLK (5397e3 / 1410.0)
#define GH100_L2_CLK (10028e3 / 1980.0)
#define GA102_L2_PER_SM (2419e3 / 1740.0 / 84.0)
#define AD10X_L2_PER_SM (5208e3 / 2490.0 / 142.0)
/* mma.sync m16n8k16 fp16 on Hopper: 494.4 of 756.5 dense TFLOP/s on an H800 (Luo et al.,
 * "Dissecting the NVIDIA Hopper Architecture through Microbenchmarking and Multiple Level
 * Analysis", arXiv:2501.12084, 2025), where wgmma reaches 96%. */
#define HOPPER_MMA_SYNC (494.4 / 756.5)
/* wgmma.mma_async m64nNk16 fp16 on Hopper: 96% of the dense rate, the same paper's measurement
 * (its Tensor Core section), where mma.sync reaches the share above. */
#define HOPPER_WGMMA 0.96
/* atomicAdd of a float to one address: 33,554,432 of them in 55.93 ms on an RTX A6000, 1.667 ns
 * each, 3.0 clocks at its 1800 MHz ("CUDA Kernel Study: Reduction", a public GitHub README found
 * through the project's code search; its repository's name was not recoverable there). The same
 * page's int32 kernel is faster because ptxas sums a warp's values first (REDUX) when the address
 * is the same for every lane; with an address from data it cannot, and an RTX 3080 updates one
 * unsigned counter 2^26 times in 36.17 ms, 0.54 ns each, 0.93 clocks at the 1725 MHz its NvBench
 * log reports (R100001/Programming-Massively-Parallel-Processors, a histogram of zeros): the one
 * clock an integer update takes in the model. */
#define ATOM_F32_CLOCKS 3.0
/* fp32 special functions (MUFU: reciprocal, reciprocal square root, base-2 logarithm and
 * exponential, sine, cosine) an SM completes a clock: 16 for compute capability 7.x to 9.0, the
 * CUDA C++ Programming Guide's table of arithmetic instruction throughput. The FlashAttention-3
 * paper's "3.9 TFLOPS of special functions" on an H100 SXM5 is the same rate (132 SMs x 16 x
 * 1830 MHz). */
#define SFU 16
/* Thread blocks the GPU starts a clock, whole GPU: gpu-benches' gpu-small-kernels
 * (github.com/te42kyfo/gpu-benches at 1c36d50, each GPU's .txt: back-to-back launches of a kernel
 * that scales one double a thread, at blocks of 4 or 32 to 1024 threads) runs blocks too small for
 * the memory to be the limit at one rate whatever their size: an A100 80GB 1.34 G blocks a second
 * with blocks of 4 to 64 threads (0.95 a clock at 1410 MHz), an H200 1.65 and 1.63 G with 32 and
 * 64 (0.83 at 1980 MHz), an L40 1.86 and 1.82 G (0.75 at 2490 MHz). GA102 (an A40 reaches 1.27 G,
 * 0.73 a clock at 1740 MHz, where its DRAM is the limit) and TU104 (not measured) take GA100's, the
 * L4 (AD104) AD102's: inferences. */
#define GA100_BLOCKS_CLK (1.34e3 / 1410.0)
#define GH100_BLOCKS_CLK (1.65e3 / 1980.0)
#define AD10X_BLOCKS_CLK (1.86e3 / 2490.0)
/* The clocks a block takes to start and end on its SM: gpu-benches' gpu-stream (the same commit,
 * each GPU's .txt; blocks of 32 to 1024 threads, each thread writing or reading one double, two
 * blocks an SM, held there by their shared memory, and 2^27 doubles: millions of blocks, one
 * after another) writes at one block rate whatever the block's size up to 128 threads, where
 * neither the memory nor the start of blocks across the chip is the limit: an SM's two blocks
 * each last 229 ns on an H200 (297, 590 and 1163 GB/s at 32, 64 and 128 threads; 450 clocks at
 * 1980 MHz; an H100 PCIe's 256 and 258 ns, 451 clocks at 1755), 275 ns on an A100 80GB (the
 * median of 323, 267 and 275: 388 clocks at 1410), 216 ns on an A40 (376 clocks at 1740) and 226
 * ns on an L40 (563 clocks at 2490). Its blocks that read instead last those clocks and about one
 * DRAM latency more (H200 1087 clocks at 32 threads; the row's 600 and these 450 make 1050). The
 * RTX A6000 and RTX 3090 take the A40's (GA102), the T4 GA102's and the L4 (AD104) AD102's:
 * inferences. */
#define GA100_BLOCK_CLK 388
#define GH100_BLOCK_CLK 450
#define GA102_BLOCK_CLK 376
#define AD10X_BLOCK_CLK 563

/* The RTX A6000 and the GeForce RTX 3090 are one chip, GA102 (compute capability 8.6), in
 * different boards: SMs, clocks, the Tensor Core rate (mma.sync's too), the DRAM bandwidth and the
 * source are the board's; the rest (registers, shared memory, L1, L2, latencies) the chip's. */
#define GA102_ROW(key, what, sms, mhz, tensor, dram, src)                                          \
    {                                                                                              \
        key, what, sms, mhz, 128, tensor, tensor, 0, 4, 65536, 100 * KIB, 128 * KIB, 6 * MIB,      \
            (sms)*GA102_L2_PER_SM, dram, 48, 16, 33, 200, 500, 3.0, ATOM_F32_CLOCKS, 2, SFU, 0,    \
            GA100_BLOCKS_CLK, GA102_BLOCK_CLK, src                                                 \
    }

/* The A100 80GB and 40GB SXM boards are one chip, GA100, with different memory: every field of
 * their rows but the name, the DRAM bandwidth and the source is the chip's. */
#define GA100_ROW(key, what, dram, src)                                                            \
    {                                                                                              \
        key, what, 108, 1410, 64, 312, 312, 0, 4, 65536, 164 * KIB, 192 * KIB, 40 * MIB,           \
            GA100_L2_CLK, dram, 64, 32, 33, 200, 500, 3.0, ATOM_F32_CLOCKS, 32, SFU, 19.5,         \
            GA100_BLOCKS_CLK, GA100_BLOCK_CLK, src                                                 \
    }

/* The H100 SXM5 and the H200 are one chip, GH100, with different memory: every field of their
 * rows but the name, the DRAM bandwidth, the L2's size and the source is the chip's. */
#define GH100_ROW(key, what, dram, l2, src)                                                        \
    {                                                                                              \
        key, what, 132, 1980, 128, 989.4, HOPPER_MMA_SYNC * 989.4, HOPPER_WGMMA * 989.4, 4, 65536, \
            228 * KIB, 256 * KIB, l2, GH100_L2_CLK, dram, 64, 32, 33, 260, 600, 3.0,               \
            ATOM_F32_CLOCKS, 64, SFU, 67, GH100_BLOCKS_CLK, GH100_BLOCK_CLK, src                   \
    }

static const struct model_gpu table[] = {
    {"t4",
     "NVIDIA T4 (sm_75)",
     40,
     1590,
     64,
     65,
     65,
     0,
     4,
     65536,
     64 * KIB,
     96 * KIB,
     4 * MIB,
     40 * GA102_L2_PER_SM,
     320,
     32,
     16,
     32,
     190,
     450,
     3.0,
     ATOM_F32_CLOCKS,
     2,
     SFU,
     0,
     GA100_BLOCKS_CLK,
     GA102_BLOCK_CLK,
     "T4 datasheet (40 SMs, 1590 MHz, 8.1 TFLOP/s fp32, 65 TFLOP/s fp16, 320 GB/s); Turing "
     "whitepaper (4 MB L2); Programming Guide, compute capability 7.5"},
    GA102_ROW(
        "a6000", "NVIDIA RTX A6000 (sm_86)", 84, 1800, 154.8, 768,
        "RTX A6000 datasheet (10752 cores = 84 SMs, 1800 MHz, 38.7 TFLOP/s fp32, 309.7 "
        "TFLOP/s sparse tensor, 768 GB/s); GA102 whitepaper (6 MB L2); Programming Guide, 8.6"),
    GA102_ROW("rtx3090", "NVIDIA GeForce RTX 3090 (sm_86)", 82, 1695, 71, 936,
              "GA102 whitepaper, GeForce RTX 3090 column (82 SMs, 1695 MHz boost, 35.6 TFLOP/s "
              "fp32, 71 TFLOP/s dense fp16 Tensor with fp32 accumulate, 6 MB L2, 936 GB/s); "
              "latencies as the A6000's (the same GA102 chip); Programming Guide, 8.6"),
    GA100_ROW("a100", "NVIDIA A100 80GB SXM (sm_80)", 2039,
              "A100 datasheet (108 SMs, 1410 MHz, 19.5 TFLOP/s fp32, 312 TFLOP/s fp16, 2039 GB/s); "
              "A100 whitepaper (40 MB L2); Programming Guide, 8.0"),
    GA100_ROW("a100-40gb", "NVIDIA A100 40GB SXM4 (sm_80)", 1555,
              "A100 datasheet (A100 40GB SXM: 1555 GB/s of HBM2); the same GA100 chip as the A100 "
              "80GB SXM (108 SMs, 1410 MHz, 40 MB L2, A100 whitepaper), so every other field is "
              "the a100 row's; Programming Guide, 8.0"),
    {"l4",
     "NVIDIA L4 (sm_89)",
     58,
     2040,
     128,
     121,
     121,
     0,
     4,
     65536,
     100 * KIB,
     128 * KIB,
     48 * MIB,
     58 * AD10X_L2_PER_SM,
     300,
     48,
     24,
     33,
     220,
     500,
     3.0,
     ATOM_F32_CLOCKS,
     2,
     SFU,
     0,
     AD10X_BLOCKS_CLK,
     AD10X_BLOCK_CLK,
     "L4 datasheet (7424 cores = 58 SMs, 2040 MHz, 30.3 TFLOP/s fp32, 242 TFLOP/s sparse fp16, "
     "300 GB/s, 48 MB L2); Programming Guide, 8.9"},
    GH100_ROW("h100", "NVIDIA H100 SXM5 80GB (sm_90)", 3350, 50 * MIB,
              "H100 SXM5 datasheet (132 SMs, 1980 MHz, 67 TFLOP/s fp32, 989 TFLOP/s dense fp16, "
              "3.35 TB/s, 50 MB L2); Hopper whitepaper; Programming Guide, 9.0"),
    GH100_ROW(
        "h200", "NVIDIA H200 SXM 141GB (sm_90)", 4800, 60 * MIB,
        "H200 datasheet (H200 SXM: 67 TFLOP/s fp32, 1979 TFLOP/s sparse fp16 Tensor, 141 GB HBM3e "
        "at 4.8 TB/s); its L2, 60 MiB, as an H200 reported it (cudaDeviceProp::l2CacheSize, "
        "./course doctor, 2026-11-30); the same GH100 chip as the H100 SXM5 (132 SMs, 1980 MHz, "
        "Hopper whitepaper), so every other field is the h100 row's; Programming Guide, 9.0"),
};
#undef GH100_ROW
#undef GA100_ROW
#undef GA102_ROW

const struct model_gpu *gpus_all(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

const struct model_gpu *gpus_find(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcasecmp(table[i].name, name))
            return &table[i];
    return NULL;
}

/* A GPU's own name (the CUDA runtime's or nvidia-smi's) and the row it is: the first fragment
 * the name holds, spaces and case aside; a fragment with no row names a GPU the table lacks,
 * which another fragment of it would otherwise match (an L40S is not an L4). */
static const struct {
    const char *fragment, *row;
} device_rows[] = {
    {"h200", "h200"},
    {"h100", "h100"},
    {"a100-sxm4-40gb", "a100-40gb"},
    {"a100-pcie-40gb", "a100-40gb"},
    {"a100", "a100"},
    {"a6000", "a6000"},
    {"rtx3090", "rtx3090"},
    {"l40", NULL},
    {"l4", "l4"},
    {"t4", "t4"},
};

const struct model_gpu *gpus_of_device(const char *device)
{
    char name[256];
    size_t n = 0;
    for (const char *c = device; *c && n + 1 < sizeof name; c++)
        if (*c != ' ')
            name[n++] = (char)tolower((unsigned char)*c);
    name[n] = 0;
    for (size_t i = 0; i < sizeof device_rows / sizeof device_rows[0]; i++)
        if (strstr(name, device_rows[i].fragment))
            return device_rows[i].row ? gpus_find(device_rows[i].row) : NULL;
    return NULL;
}

/* The numeric fields a file gives, by name, as offsets into struct model_gpu. */
#define U(f)                                                                                       \
    {                                                                                              \
#f, offsetof(struct model_gpu, f), 0                                                       \
    }
#define D(f)                                                                                       \
    {                                                                                              \
#f, offsetof(struct model_gpu, f), 1                                                       \
    }
static const struct field {
    const char *name;
    size_t off;
    int is_double;
} fields[] = {
    U(sms),          D(clock_mhz),        U(fp32_lanes),  D(tensor_tflops),  D(mma_tflops),
    D(wgmma_tflops), U(schedulers),       U(regs_per_sm), U(smem_per_sm),    U(l1_per_sm),
    D(l2_bytes),     D(l2_bytes_per_clk), D(dram_gbs),    U(max_warps),      U(max_blocks),
    U(lat_l1),       U(lat_l2),           U(lat_dram),    D(launch_us),      D(atom_f32_clk),
    U(fp64_lanes),   U(sfu_lanes),        D(dmma_tflops), D(blocks_per_clk), U(block_clk)};
#define NFIELDS (sizeof fields / sizeof fields[0])
#define MMA_FIELD 4       /* fields[4], mma_tflops, and fields[5], wgmma_tflops: the ones a file */
#define WGMMA_FIELD 5     /* may leave out (the dense rate) */
#define ATOM_F32_FIELD 19 /* optional too: ATOM_F32_CLOCKS, */
#define FP64_FIELD 20     /* 2 FP64 units an SM, */
#define SFU_FIELD 21      /* SFU results a clock, */
#define DMMA_FIELD 22     /* no f64 Tensor Cores */
#define BLOCKS_FIELD 23   /* BLOCKS_PER_CLK */
#define BLOCK_FIELD 24    /* and BLOCK_CLOCKS */
#define FP64_DEFAULT 2

/* @p s without leading and trailing blanks (in place). */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

/* One "key = value" line into @p g; @p seen marks the numeric fields given. -1: unknown key
 * or a bad number. */
static int set_field(struct model_gpu *g, const char *key, const char *val, unsigned *seen)
{
    char *end;
    if (!strcmp(key, "name") || !strcmp(key, "full") || !strcmp(key, "source")) {
        char *dst = !strcmp(key, "name") ? g->name : !strcmp(key, "full") ? g->full : g->source;
        size_t cap = !strcmp(key, "name")   ? sizeof g->name
                     : !strcmp(key, "full") ? sizeof g->full
                                            : sizeof g->source;
        snprintf(dst, cap, "%s", val);
        return 0;
    }
    for (size_t i = 0; i < NFIELDS; i++) {
        if (strcmp(key, fields[i].name))
            continue;
        double v = strtod(val, &end);
        if (*end || end == val || v < 0)
            return -1;
        if (fields[i].is_double)
            *(double *)((char *)g + fields[i].off) = v;
        else
            *(unsigned *)((char *)g + fields[i].off) = (unsigned)v;
        *seen |= 1u << i;
        return 0;
    }
    return -1;
}

int gpus_load(const char *path, struct model_gpu *g, char *err, size_t err_size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_size, "cannot read the GPU file %s", path);
        return -1;
    }
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "file");
    snprintf(g->full, sizeof g->full, "%s", path);
    snprintf(g->source, sizeof g->source, "%s (the user's own numbers)", path);
    char line[512];
    unsigned seen = 0;
    for (int n = 1; fgets(line, sizeof line, f); n++) {
        char *hash = strchr(line, '#'), *eq = strchr(line, '=');
        if (hash)
            *hash = 0;
        if (!*trim(line))
            continue;
        if (!eq || (hash && eq > hash) ||
            (*eq = 0, set_field(g, trim(line), trim(eq + 1), &seen))) {
            snprintf(err, err_size, "%s:%d: not a 'field = value' line the GPU table knows", path,
                     n);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    if (!(seen & (1u << MMA_FIELD))) { /* optional: the dense rate */
        g->mma_tflops = g->tensor_tflops;
        seen |= 1u << MMA_FIELD;
    }
    if (!(seen & (1u << WGMMA_FIELD))) {
        g->wgmma_tflops = g->tensor_tflops;
        seen |= 1u << WGMMA_FIELD;
    }
    if (!(seen & (1u << ATOM_F32_FIELD)))
        g->atom_f32_clk = ATOM_F32_CLOCKS;
    if (!(seen & (1u << FP64_FIELD)))
        g->fp64_lanes = FP64_DEFAULT;
    if (!(seen & (1u << SFU_FIELD)))
        g->sfu_lanes = SFU;
    if (!(seen & (1u << BLOCKS_FIELD)) || g->blocks_per_clk <= 0)
        g->blocks_per_clk = BLOCKS_PER_CLK;
    if (!(seen & (1u << BLOCK_FIELD)))
        g->block_clk = BLOCK_CLOCKS;
    seen |= 1u << ATOM_F32_FIELD | 1u << FP64_FIELD | 1u << SFU_FIELD | 1u << DMMA_FIELD |
            1u << BLOCKS_FIELD | 1u << BLOCK_FIELD;
    for (size_t i = 0; i < NFIELDS; i++)
        if (!(seen & (1u << i))) {
            snprintf(err, err_size, "%s: no value for '%s'", path, fields[i].name);
            return -1;
        }
    return 0;
}

int gpus_save(const struct model_gpu *g, FILE *f)
{
    fprintf(f, "name = %s\nfull = %s\nsource = %s\n", g->name, g->full, g->source);
    for (size_t i = 0; i < NFIELDS; i++) {
        const char *at = (const char *)g + fields[i].off;
        if (fields[i].is_double)
            fprintf(f, "%s = %.17g\n", fields[i].name, *(const double *)at);
        else
            fprintf(f, "%s = %u\n", fields[i].name, *(const unsigned *)at);
    }
    return ferror(f) ? -1 : 0;
}
