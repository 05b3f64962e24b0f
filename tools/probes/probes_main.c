/**
 * @file probes_main.c
 * @brief course_probes: what the time model assumes of a GPU, measured on it, beside the model's
 *        value (emulator/vm/gpus.c) for the row it is compared with.
 *
 *   course_probes [--gpu=GPU|FILE] [--csv=FILE] [--gpu-file=FILE]
 *   course_probes --row-of=NAME
 *
 * One row per probe (probes.cu): the load latencies from the L1, the L2, DRAM, shared memory
 * and ldmatrix; the SM clock and the fp32 and mma.sync rates at it; the L2's read rate; atomic
 * adds to one address and to 256; 4-byte stores each to a sector of its own; blocks of one warp
 * started, and held to two an SM; __syncthreads() in blocks of 1024; a device copy's and a read's
 * shares of the datasheet's DRAM bandwidth. The rates in clocks take the SM clock the fp32 probe
 * ran at. Every probe checks what its kernel computed (a chain's end, every sum, count and store),
 * and a failed check exits 1 naming the probe. On the CPU emulator the kernels run small and are
 * checked; no time is taken ("not run").
 * --gpu-file writes the model's row with what was measured in place of its latencies, clock,
 * mma.sync rate, L2 rate, fp32 atomic clocks and blocks' rate and clocks: a GPU file that
 * `./course estimate --gpu=FILE` reads (on the emulator, the row unchanged). `./course
 * gpu-report` runs it first on a GPU (probes.csv, probes.gpu), and asks --row-of which row the
 * GPU's name is.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuda_check.h"
#include "device.h"
#include "gpus.h"
#include "mat.h"
#include "probes.h"
#include "ref.h"
#include "timer.h"

#define LINE_WORDS 32 /* 128 bytes: one chain entry a cache line */

/** One probe's result: its value on this GPU, the model's, and whether its kernel was right. */
struct probe_row {
    const char *name;
    const char *unit;
    double measured; /* NAN: not run (the emulator) */
    double model;    /* NAN: the model has no such value */
    int ok;
};

/** What a run measures with: the GPU, the sizes, and the SM clock the fp32 probe found. */
struct probe_run {
    struct device_info dev;
    const struct model_gpu *gpu;
    int small; /* the emulator: small sizes, checked, not timed */
    double mhz;
    struct probe_row rows[20];
    int nrows;
};

static void add_row(struct probe_run *r, const char *name, const char *unit, double measured,
                    double model, int ok)
{
    struct probe_row row = {name, unit, r->small ? NAN : measured, model, ok};
    r->rows[r->nrows++] = row;
}

static void *dev_alloc(size_t bytes)
{
    void *p;
    CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
}

static void to_host(void *h, const void *d, size_t bytes)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
}

/* A chain of @p n entries @p stride words apart in one random cycle (Sattolo's shuffle): entry
 * i * stride holds the index of the next; the words between are zero. */
static unsigned *chain(size_t n, size_t stride)
{
    unsigned *order = mat_alloc(n * sizeof *order);
    unsigned *next = mat_alloc(n * stride * sizeof *next);
    uint64_t seed = 12345;
    for (size_t i = 0; i < n; i++)
        order[i] = (unsigned)i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = mat_rand_next(&seed) % i;
        unsigned t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    memset(next, 0, n * stride * sizeof *next);
    for (size_t i = 0; i < n; i++)
        next[order[i] * stride] = (unsigned)(order[(i + 1) % n] * stride);
    free(order);
    return next;
}

static unsigned chain_end(const unsigned *next, int steps)
{
    unsigned p = 0;
    for (int i = 0; i < steps; i++)
        p = next[p];
    return p;
}

/* Clocks a load of a chain through @p bytes of global memory, one entry a 128-byte line. Through
 * the L1, the launch first follows the whole cycle untimed (a launch may start with the L1
 * empty); around it, a first launch warms the L2 with the same lines, unless @p cold (then
 * 2 x L2 of other bytes are written between the copy and the chase). */
static void chase_global(struct probe_run *r, const char *name, size_t bytes, int around_l1,
                         int cold, double model)
{
    size_t lines = bytes / (LINE_WORDS * 4);
    int steps = r->small ? 100 : 4096, warm = around_l1 ? 0 : (int)lines;
    unsigned *next = chain(lines, LINE_WORDS), *d_next = dev_alloc(lines * LINE_WORDS * 4), end;
    long long clocks, *d_clocks = dev_alloc(sizeof clocks);
    unsigned *d_end = dev_alloc(sizeof end);
    CUDA_CHECK(cudaMemcpy(d_next, next, lines * LINE_WORDS * 4, cudaMemcpyHostToDevice));
    if (cold) {
        void *flush = dev_alloc(2 * r->dev.l2_bytes);
        CUDA_CHECK(cudaMemset(flush, 1, 2 * r->dev.l2_bytes));
        CUDA_CHECK(cudaFree(flush));
    } else if (around_l1) {
        probe_chase(d_next, 0, steps, 1, d_clocks, d_end); /* the same lines into the L2 */
    }
    probe_chase(d_next, warm, steps, around_l1, d_clocks, d_end);
    to_host(&clocks, d_clocks, sizeof clocks);
    to_host(&end, d_end, sizeof end);
    add_row(r, name, "clocks a dependent load", (double)clocks / steps, model,
            end == chain_end(next, warm + steps));
    free(next);
    CUDA_CHECK(cudaFree(d_next));
    CUDA_CHECK(cudaFree(d_clocks));
    CUDA_CHECK(cudaFree(d_end));
}

static void chase_shared(struct probe_run *r)
{
    int n = 1024, steps = r->small ? 100 : 4096;
    unsigned *next = chain(n, 1), *d_next = dev_alloc(n * sizeof *next), end;
    unsigned *d_end = dev_alloc(sizeof end);
    long long clocks, *d_clocks = dev_alloc(sizeof clocks);
    CUDA_CHECK(cudaMemcpy(d_next, next, n * sizeof *next, cudaMemcpyHostToDevice));
    probe_chase_shared(d_next, n, steps, d_clocks, d_end);
    to_host(&clocks, d_clocks, sizeof clocks);
    to_host(&end, d_end, sizeof end);
    add_row(r, "lat_shared", "clocks a dependent load", (double)clocks / steps, NAN,
            end == chain_end(next, steps));
    free(next);
    CUDA_CHECK(cudaFree(d_next));
    CUDA_CHECK(cudaFree(d_end));
    CUDA_CHECK(cudaFree(d_clocks));
}

static void ldmatrix_chain(struct probe_run *r)
{
    int steps = r->small ? 100 : 4096, ok = 1;
    unsigned short tile[128];
    unsigned out[32], *d_out = dev_alloc(sizeof out);
    for (int i = 0; i < 128; i++)
        tile[i] = i < 64 ? 0 : (unsigned short)(0x3c00 + i); /* zeros, then values that show */
    unsigned short *d_tile = dev_alloc(sizeof tile);
    long long clocks, *d_clocks = dev_alloc(sizeof clocks);
    CUDA_CHECK(cudaMemcpy(d_tile, tile, sizeof tile, cudaMemcpyHostToDevice));
    probe_ldmatrix(d_tile, steps, d_clocks, d_out);
    to_host(&clocks, d_clocks, sizeof clocks);
    to_host(out, d_out, sizeof out);
    for (int i = 0; i < 32; i++)
        ok &= out[i] == 0;
    add_row(r, "lat_ldmatrix", "clocks a dependent ldmatrix.x1", (double)clocks / steps, NAN, ok);
    CUDA_CHECK(cudaFree(d_tile));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_clocks));
}

/* The most clocks any of @p blocks blocks took (d_clocks), after the kernel ended. */
static double max_clocks(const long long *d_clocks, int blocks)
{
    long long *c = mat_alloc(blocks * sizeof *c), most = 0;
    to_host(c, d_clocks, blocks * sizeof *c);
    for (int i = 0; i < blocks; i++)
        most = c[i] > most ? c[i] : most;
    free(c);
    return (double)most;
}

/* The median of TIMED_REPS runs after one to warm up: the kernel runs TIMED_RUNS times. */
#define TIMED_REPS 3
#define TIMED_RUNS (1 + TIMED_REPS)

/* The kernel @p launch enqueues (with @p args), timed with CUDA events: its median ms. */
static double time_ms(timer_fn launch, void *args)
{
    struct timer_opts o = {TIMED_RUNS - TIMED_REPS, TIMED_REPS, 1, 0};
    return timer_measure(launch, args, &o).median_ms;
}

struct rate_args {
    int blocks, iters;
    const void *in;
    float *out;
    long long *clocks;
};

static void launch_fma(void *a)
{
    const struct rate_args *x = a;
    probe_fma(x->blocks, x->iters, x->in, x->out, x->clocks);
}

static void launch_mma(void *a)
{
    const struct rate_args *x = a;
    probe_mma(x->blocks, x->iters, x->in, x->out, x->clocks);
}

/* The SM clock under fp32 FMAs and their rate: four blocks of 256 threads an SM, 8 chains a
 * thread. The clock is every later probe's. */
static void fma_rate(struct probe_run *r)
{
    int per_sm = 4, blocks = r->small ? 2 : r->dev.sms * per_sm, ok = 1;
    int threads = blocks * 256, iters = r->small ? 4 : 1 << 18;
    float ab[2] = {1, 1}, *d_ab = dev_alloc(sizeof ab), *d_out = dev_alloc(threads * 4);
    float *out = mat_alloc(threads * sizeof *out);
    long long *d_clocks = dev_alloc(blocks * sizeof(long long));
    CUDA_CHECK(cudaMemcpy(d_ab, ab, sizeof ab, cudaMemcpyHostToDevice));
    struct rate_args a = {blocks, iters, d_ab, d_out, d_clocks};
    double ms = time_ms(launch_fma, &a), clocks = max_clocks(d_clocks, blocks);
    to_host(out, d_out, threads * sizeof *out);
    for (int i = 0; i < threads; i++)
        ok &= out[i] == 8.0f * iters;
    r->mhz = clocks / (ms * 1e3);
    add_row(r, "sm_mhz_fp32", "MHz (the SM clock under FMAs)", r->mhz, r->gpu->clock_mhz, ok);
    add_row(r, "fp32_lanes", "FMAs a clock an SM", per_sm * 256.0 * 8 * iters / clocks,
            r->gpu->fp32_lanes, ok);
    free(out);
    CUDA_CHECK(cudaFree(d_ab));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_clocks));
}

/* mma.sync's rate and the SM clock under it: two blocks of 8 warps an SM, 4 chains a warp. */
static void mma_rate(struct probe_run *r)
{
    int blocks = r->small ? 1 : r->dev.sms * 2, warps = blocks * 8, ok = 1;
    int iters = r->small ? 2 : 1 << 14;
    unsigned short one = ref_f32_to_f16(1.0f), ab[2] = {one, one}, *d_ab = dev_alloc(sizeof ab);
    float *d_out = dev_alloc(warps * 4), *out = mat_alloc(warps * sizeof *out);
    long long *d_clocks = dev_alloc(blocks * sizeof(long long));
    CUDA_CHECK(cudaMemcpy(d_ab, ab, sizeof ab, cudaMemcpyHostToDevice));
    struct rate_args a = {blocks, iters, d_ab, d_out, d_clocks};
    double ms = time_ms(launch_mma, &a), clocks = max_clocks(d_clocks, blocks);
    to_host(out, d_out, warps * sizeof *out);
    for (int i = 0; i < warps; i++) /* 4 chains x 4 accumulators, each 16 a product */
        ok &= out[i] == 256.0f * iters;
    double flops = 2.0 * 16 * 8 * 16 * 4 * iters * warps;
    add_row(r, "sm_mhz_mma", "MHz (the SM clock under mma.sync)", clocks / (ms * 1e3),
            r->gpu->clock_mhz, ok);
    add_row(r, "mma_tflops", "TFLOP/s (fp16 mma.sync into fp32)", flops / (ms * 1e9),
            r->gpu->mma_tflops, ok);
    free(out);
    CUDA_CHECK(cudaFree(d_ab));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_clocks));
}

struct l2_args {
    int blocks, passes;
    const unsigned *buf;
    long long n;
    unsigned *sum;
};

static void launch_l2(void *a)
{
    const struct l2_args *x = a;
    probe_l2_read(x->blocks, x->buf, x->n, x->passes, x->sum);
}

/* The ms a read of @p words 32-bit words (a multiple of 4, each a value the sum checks), @p passes
 * times around the L1 by eight blocks an SM (two on the emulator), 4 loads of 16 bytes in flight a
 * thread, takes; *@p ok 1 when every thread's sums add up to the words' @p passes times. */
static double read_ms(const struct probe_run *r, size_t words, int passes, int *ok)
{
    int blocks = r->small ? 2 : r->dev.sms * 8, threads = blocks * 256;
    unsigned *buf = mat_alloc(words * 4), *sum = mat_alloc(threads * 4), want = 0, got = 0;
    for (size_t i = 0; i < words; i++)
        want += buf[i] = (unsigned)(i % 7);
    unsigned *d_buf = dev_alloc(words * 4), *d_sum = dev_alloc(threads * 4);
    CUDA_CHECK(cudaMemcpy(d_buf, buf, words * 4, cudaMemcpyHostToDevice));
    struct l2_args a = {blocks, passes, d_buf, (long long)words / 4, d_sum};
    double ms = time_ms(launch_l2, &a);
    to_host(sum, d_sum, threads * 4);
    for (int i = 0; i < threads; i++)
        got += sum[i];
    *ok = got == want * (unsigned)passes;
    free(buf);
    free(sum);
    CUDA_CHECK(cudaFree(d_buf));
    CUDA_CHECK(cudaFree(d_sum));
    return ms;
}

/* The L2's read rate: a quarter of the L2 read again and again (read_ms()), in bytes a clock for
 * the whole GPU. */
static void l2_rate(struct probe_run *r)
{
    size_t words = r->small ? 12308 : r->dev.l2_bytes / 4 / 4 / 4 * 4; /* whole 16-byte vectors */
    int passes = r->small ? 2 : 200, ok;
    double ms = read_ms(r, words, passes, &ok);
    add_row(r, "l2_bytes_per_clk", "bytes a clock (the GPU's L2 reads)",
            words * 4.0 * passes / (ms * 1e3 * r->mhz), r->gpu->l2_bytes_per_clk, ok);
}

struct atomic_args {
    int blocks, per_thread, f32;
    const unsigned *idx;
    unsigned mask;
    unsigned *counts;
    float *fcounts;
};

static void launch_atomics(void *a)
{
    const struct atomic_args *x = a;
    probe_atomics(x->blocks, x->per_thread, x->idx, x->mask, x->f32, x->counts, x->fcounts);
}

/* Atomic adds to @p mask + 1 addresses: clocks an update at one address, or updates a clock on
 * the GPU for several. The counters keep every run's updates (at most 2^24 on one address, so
 * that fp32 counts them exactly). */
static void atomic_rate(struct probe_run *r, const char *name, unsigned mask, int f32, double model)
{
    int blocks = r->small ? 1 : r->dev.sms * 8, threads = blocks * 256;
    int per_thread = r->small ? 4 : (1 << 22) / threads;
    unsigned *idx = mat_alloc(threads * 4), counts[256];
    float fcounts[256];
    uint64_t seed = 99;
    for (int i = 0; i < threads; i++)
        idx[i] = (unsigned)mat_rand_next(&seed);
    unsigned *d_idx = dev_alloc(threads * 4), *d_counts = dev_alloc(sizeof counts);
    float *d_fcounts = dev_alloc(sizeof fcounts);
    CUDA_CHECK(cudaMemcpy(d_idx, idx, threads * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_counts, 0, sizeof counts));
    CUDA_CHECK(cudaMemset(d_fcounts, 0, sizeof fcounts));
    struct atomic_args a = {blocks, per_thread, f32, d_idx, mask, d_counts, d_fcounts};
    double ms = time_ms(launch_atomics, &a), updates = (double)threads * per_thread, total = 0;
    to_host(counts, d_counts, sizeof counts);
    to_host(fcounts, d_fcounts, sizeof fcounts);
    for (unsigned i = 0; i <= mask; i++)
        total += f32 ? fcounts[i] : counts[i];
    double clocks = ms * 1e3 * r->mhz;
    add_row(r, name, mask ? "updates a clock (the GPU)" : "clocks an update",
            mask ? updates / clocks : clocks / updates, model, total == TIMED_RUNS * updates);
    free(idx);
    CUDA_CHECK(cudaFree(d_idx));
    CUDA_CHECK(cudaFree(d_counts));
    CUDA_CHECK(cudaFree(d_fcounts));
}

struct store_args {
    int n;
    float *out;
    int smem; /* shared memory a block (probe_small_blocks()) */
};

static void launch_stores(void *a)
{
    const struct store_args *x = a;
    probe_column_stores(x->n, x->out);
}

/* A naive transpose's stores: clocks an SM takes a sector written by one lane's 4 bytes. */
static void column_store_rate(struct probe_run *r)
{
    int n = r->small ? 97 : 8192, ok = 1;
    size_t count = (size_t)n * n;
    float *out = mat_alloc(count * sizeof *out), *d_out = dev_alloc(count * sizeof *out);
    struct store_args a = {n, d_out, 0};
    double ms = time_ms(launch_stores, &a);
    to_host(out, d_out, count * sizeof *out);
    for (int x = 0; x < n; x++)
        for (int y = 0; y < n; y++)
            ok &= out[(size_t)x * n + y] == (float)((y * 31 + x) & 1023);
    add_row(r, "column_store_clk", "clocks an SM a 4-byte store's sector",
            ms * 1e3 * r->mhz * r->dev.sms / (double)count, 1.0, ok);
    free(out);
    CUDA_CHECK(cudaFree(d_out));
}

static void launch_small_blocks(void *a)
{
    const struct store_args *x = a;
    probe_small_blocks(x->n, x->smem, x->out);
}

/* Blocks of one warp storing @p n floats with @p smem bytes of shared memory each
 * (probe_small_blocks()): their time into @p ms; 1 when every float is right. */
static int time_small_blocks(int n, int smem, double *ms)
{
    int ok = 1;
    float *out = mat_alloc((size_t)n * sizeof *out), *d_out = dev_alloc((size_t)n * sizeof *out);
    struct store_args a = {n, d_out, smem};
    *ms = time_ms(launch_small_blocks, &a);
    to_host(out, d_out, (size_t)n * sizeof *out);
    for (int i = 0; i < n; i++)
        ok &= out[i] == (float)(i & 1023);
    free(out);
    CUDA_CHECK(cudaFree(d_out));
    return ok;
}

/* Blocks of one warp the GPU starts a clock (the model's blocks_per_clk). */
static void block_start_rate(struct probe_run *r)
{
    int n = r->small ? 1000 : 1 << 24;
    double ms;
    int ok = time_small_blocks(n, 0, &ms);
    add_row(r, "blocks_per_clk", "blocks of 32 threads started a clock (the GPU)",
            ((n + 31) / 32) / (ms * 1e3 * r->mhz), r->gpu->blocks_per_clk, ok);
}

/* The clocks a block takes to start and end (the model's block_clk): blocks of one warp held to
 * two an SM, each round of the two lasting that long. */
static void block_life(struct probe_run *r)
{
    int n = r->small ? 1000 : 1 << 22, resident;
    int smem = probe_held_blocks(&resident);
    double ms;
    int ok = time_small_blocks(n, smem, &ms);
    double rounds = resident > 0 ? ((n + 31) / 32) / ((double)r->dev.sms * resident) : NAN;
    add_row(r, "block_clk", "clocks a block takes to start and end (2 an SM)",
            ms * 1e3 * r->mhz / rounds, r->gpu->block_clk, ok);
}

/* Threads an SM takes through __syncthreads() a clock, its blocks of 1024 all resident. */
static void barrier_rate(struct probe_run *r)
{
    int per_sm = probe_barrier_blocks_per_sm(), blocks = r->small ? 1 : r->dev.sms * per_sm;
    int rounds = r->small ? 3 : 4096, ok = 1;
    unsigned *out = mat_alloc(blocks * 1024 * sizeof *out), *d_out = dev_alloc(blocks * 4096);
    long long *d_clocks = dev_alloc(blocks * sizeof(long long));
    probe_barriers(blocks, rounds, d_out, d_clocks);
    double clocks = max_clocks(d_clocks, blocks);
    to_host(out, d_out, blocks * 4096);
    for (int i = 0; i < blocks * 1024; i++)
        ok &= out[i] == (unsigned)((i % 1024 + rounds) % 1024 + rounds);
    add_row(r, "bar_threads_clk", "threads through a barrier a clock an SM",
            per_sm * 1024.0 * 2 * rounds / clocks, BAR_THREADS_CLK, ok);
    free(out);
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_clocks));
}

/* A device copy's share of the datasheet's DRAM bandwidth (the model's DRAM_COPY_SHARE). */
static void dram_share(struct probe_run *r)
{
    double gbs = r->small ? NAN : device_copy_bandwidth_gbs((size_t)1 << 30, 10);
    add_row(r, "dram_share", "share of the datasheet's DRAM rate (1 GiB copy)",
            gbs / r->gpu->dram_gbs, DRAM_COPY_SHARE, 1);
}

/* A read's share of the datasheet's DRAM bandwidth (the model's DRAM_STREAM_SHARE): 1 GiB, far
 * more than any L2 holds, read once (read_ms()). */
static void dram_read_share(struct probe_run *r)
{
    size_t words = r->small ? 12308 : (size_t)1 << 28; /* 4-byte words: 1 GiB */
    int ok;
    double ms = read_ms(r, words, 1, &ok);
    add_row(r, "dram_read_share", "share of the datasheet's DRAM rate (1 GiB read)",
            r->small ? NAN : words * 4.0 / (ms * 1e6) / r->gpu->dram_gbs, DRAM_STREAM_SHARE, ok);
}

static void measure(struct probe_run *r)
{
    const struct model_gpu *g = r->gpu;
    size_t l2 = r->small ? 64 * 1024 : r->dev.l2_bytes;
    chase_global(r, "lat_l1", r->small ? 8192 : 16384, 0, 0, g->lat_l1);
    chase_global(r, "lat_l2", l2 / 8, 1, 0, g->lat_l2);
    chase_global(r, "lat_dram", 8 * l2, 1, 1, g->lat_dram);
    chase_shared(r);
    ldmatrix_chain(r);
    fma_rate(r);
    mma_rate(r);
    l2_rate(r);
    atomic_rate(r, "atom_int_clk", 0, 0, 1.0);
    atomic_rate(r, "atom_f32_clk", 0, 1, g->atom_f32_clk);
    atomic_rate(r, "atom_int_256", 255, 0, 256.0);
    column_store_rate(r);
    block_start_rate(r);
    block_life(r);
    barrier_rate(r);
    dram_share(r);
    dram_read_share(r);
}

static void cell(char *buf, size_t size, double v)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.4g", v);
}

/* The table on stdout (and @p csv): returns how many probes' kernels were wrong, each named on
 * stderr. */
static int print_table(const struct probe_run *r, FILE *csv)
{
    int wrong = 0;
    printf("%-18s %10s %10s %7s  %-6s %s\n", "probe", "measured", "model", "ratio", "check",
           "unit");
    if (csv)
        fprintf(csv, "probe,measured,model,ratio,model_gpu,check,unit\n");
    for (int i = 0; i < r->nrows; i++) {
        const struct probe_row *p = &r->rows[i];
        char got[32], want[32], ratio[32];
        cell(got, sizeof got, p->measured);
        cell(want, sizeof want, p->model);
        cell(ratio, sizeof ratio, p->measured / p->model);
        const char *shown = r->small ? "not run" : got;
        printf("%-18s %10s %10s %7s  %-6s %s\n", p->name, shown, want, ratio,
               p->ok ? "ok" : "WRONG", p->unit);
        if (csv)
            fprintf(csv, "%s,%s,%s,%s,%s,%s,%s\n", p->name, shown, want, ratio, r->gpu->name,
                    p->ok ? "ok" : "wrong", p->unit);
        if (!p->ok)
            fprintf(stderr, "course_probes: %s: the kernel's result is wrong\n", p->name);
        wrong += !p->ok;
    }
    return wrong;
}

/* Where a probe's value goes in a GPU file: the model's field it measures. */
static const struct {
    const char *probe;
    size_t off;
    int is_double;
} probed[] = {
    {"lat_l1", offsetof(struct model_gpu, lat_l1), 0},
    {"lat_l2", offsetof(struct model_gpu, lat_l2), 0},
    {"lat_dram", offsetof(struct model_gpu, lat_dram), 0},
    {"sm_mhz_fp32", offsetof(struct model_gpu, clock_mhz), 1},
    {"mma_tflops", offsetof(struct model_gpu, mma_tflops), 1},
    {"l2_bytes_per_clk", offsetof(struct model_gpu, l2_bytes_per_clk), 1},
    {"atom_f32_clk", offsetof(struct model_gpu, atom_f32_clk), 1},
    {"blocks_per_clk", offsetof(struct model_gpu, blocks_per_clk), 1},
    {"block_clk", offsetof(struct model_gpu, block_clk), 0},
};

/* The model's row with what was measured in place of the fields the probes measure, written to
 * @p path as a GPU file (gpus_save()). Returns 0, or 2 with one line on stderr. */
static int write_gpu_file(const struct probe_run *r, const char *path)
{
    struct model_gpu g = *r->gpu;
    snprintf(g.name, sizeof g.name, "%.20s-probed", r->gpu->name);
    snprintf(g.full, sizeof g.full, "%.60s (course_probes)", r->dev.name);
    snprintf(g.source, sizeof g.source,
             "course_probes on %.60s: %s; every other field the %s row's (emulator/vm/gpus.c)",
             r->dev.name,
             r->small ? "not run (the CPU emulator)"
                      : "lat_l1, lat_l2, lat_dram, clock_mhz (under FMAs), mma_tflops, "
                        "l2_bytes_per_clk, atom_f32_clk, blocks_per_clk and block_clk measured",
             r->gpu->name);
    for (int i = 0; i < r->nrows; i++)
        for (size_t k = 0; k < sizeof probed / sizeof probed[0]; k++) {
            double v = r->rows[i].measured;
            if (strcmp(r->rows[i].name, probed[k].probe) || isnan(v) || !r->rows[i].ok)
                continue;
            if (probed[k].is_double)
                *(double *)((char *)&g + probed[k].off) = v;
            else
                *(unsigned *)((char *)&g + probed[k].off) = (unsigned)lround(v);
        }
    FILE *f = fopen(path, "w");
    int bad = !f || gpus_save(&g, f) != 0;
    if (f && fclose(f) != 0)
        bad = 1;
    if (bad)
        fprintf(stderr, "course_probes: cannot write the GPU file %s\n", path);
    return bad ? 2 : 0;
}

/* The name of the model's row for a GPU called @p device (gpus_of_device()), or h100. */
static const char *default_row(const char *device)
{
    const struct model_gpu *g = gpus_of_device(device);
    return g ? g->name : "h100";
}

/* The model's row: a name of the table (gpus.c) or a GPU file. */
static const struct model_gpu *model_row(const char *name, struct model_gpu *file)
{
    const struct model_gpu *g = gpus_find(name);
    char err[256];
    if (g)
        return g;
    if (gpus_load(name, file, err, sizeof err) == 0)
        return file;
    fprintf(stderr,
            "course_probes: --gpu=%s: neither a GPU of the model's table nor a GPU file (%s)\n",
            name, err);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *gpu = NULL, *csv_path = NULL, *gpu_file = NULL, *row_of = NULL;
    const struct cli_opt opts[] = {
        {"gpu", CLI_STRING, &gpu, 0, 0,
         "the model's row to compare with (emulator/vm/gpus.c; default: the GPU's own, or h100)"},
        {"row-of", CLI_STRING, &row_of, 0, 0,
         "print the model's row for a GPU of this name (nvidia-smi's) and exit"},
        {"csv", CLI_STRING, &csv_path, 0, 0, "also write the rows to this CSV file"},
        {"gpu-file", CLI_STRING, &gpu_file, 0, 0,
         "write the model's row with the measured values to this GPU file"},
        {NULL, CLI_INT, NULL, 0, 0, NULL},
    };
    enum cli_status st = cli_parse(argc, argv, "course_probes",
                                   "What the time model assumes of a GPU, measured on it.", opts);
    if (st != CLI_OK)
        return cli_exit_status(st);
    if (row_of) {
        puts(default_row(row_of));
        return 0;
    }
    static struct probe_run r;
    struct model_gpu file;
    int found = device_query(&r.dev);
    if (!(r.gpu = model_row(gpu ? gpu : default_row(found ? r.dev.name : ""), &file)))
        return 2;
    FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv_path && !csv) {
        fprintf(stderr, "course_probes: cannot write %s\n", csv_path);
        return 2;
    }
    if (!found) {
        fprintf(stderr, "course_probes: no GPU: %s\n", r.dev.why);
        return 1;
    }
    r.small = r.dev.emulated;
    printf("course_probes: %s (%d SMs) beside the time model's %s row; %s\n", r.dev.name, r.dev.sms,
           r.gpu->name,
           r.small ? "on the CPU emulator: each probe's result checked, no time taken (not run)"
                   : "measured on this GPU, each probe's result checked");
    measure(&r);
    int wrong = print_table(&r, csv);
    if (csv)
        fclose(csv);
    timer_release();
    if (gpu_file && write_gpu_file(&r, gpu_file))
        return 2;
    return wrong > 0;
}
