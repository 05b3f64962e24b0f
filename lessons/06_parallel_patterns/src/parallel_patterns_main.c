/**
 * @file parallel_patterns_main.c
 * @brief Lesson 06's benchmark: each step of the reduction, scan and histogram ladders against
 *        CUB's device-wide call in the same run.
 *
 *   ./course bench 06 [--len=N] [--reps=10] [--flush-l2] [--csv=FILE]
 *   ./course profile 06 [--csv=FILE]     (on the CPU emulator: counters instead of times)
 *
 * All three are memory-bound: a reduction reads 4n bytes, a scan reads and writes 4n each, a
 * histogram reads n bytes. The rows show GB/s against CUB's and against a device-to-device
 * copy. Inputs are small integers, so every result is exact and compared with ==.
 */
#include "parallel_patterns.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "cub_yardstick.h"
#include "cuda_check.h"
#include "mat.h"
#include "timer.h"

static const char *const PROG = "06_parallel_patterns";

/* One call of a version: which pattern, the launcher, and the device buffers. */
struct call {
    void (*reduce)(const float *, int, float *);
    void (*scan)(const int *, int, int *);
    void (*histogram)(const unsigned char *, int, unsigned int *);
    int n;
    const void *d_in;
    void *d_out;
};

static void run_call(void *arg)
{
    struct call *c = arg;
    if (c->reduce)
        c->reduce(c->d_in, c->n, c->d_out);
    else if (c->scan)
        c->scan(c->d_in, c->n, c->d_out);
    else
        c->histogram(c->d_in, c->n, c->d_out);
}

/* Run @p c, compare its @p out_bytes of output with @p want, and report a row named @p name
 * against @p base_ms (BENCH_SELF for CUB's own row). Returns the row's ms. */
static double report(struct bench_table *t, const char *name, struct call *c, size_t out_bytes,
                     const void *want, double bytes, double base_ms, double peak, int *bad)
{
    void *got = mat_alloc(out_bytes > 0 ? out_bytes : 1);
    mat_poison_device(c->d_out, out_bytes);
    bench_run(t, run_call, c);
    CUDA_CHECK(cudaMemcpy(got, c->d_out, out_bytes, cudaMemcpyDeviceToHost));
    int ok = memcmp(got, want, out_bytes) == 0;
    *bad += !ok;
    struct bench_row row = {.version = name,
                            .flops = c->n,
                            .bytes = bytes,
                            .base_ms = base_ms,
                            .peak_gbs = peak,
                            .check = ok ? "exact" : "WRONG (differs from the CPU's)",
                            .ok = ok,
                            .library = 0};
    free(got);
    return bench_report(t, &row, run_call, c);
}

/* Whether CUB's calls run here: always on a GPU; on the CPU emulator, tried once in a child
 * process before this one touches CUDA (the emulator may lack instructions CUB's kernels use,
 * and a launcher that fails exits). */
static int cub_runs(void)
{
    if (!device_emulated())
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        float *d_x, *d_out;
        if (cudaMalloc((void **)&d_x, 64 * sizeof(float)) != cudaSuccess ||
            cudaMalloc((void **)&d_out, sizeof(float)) != cudaSuccess)
            _exit(1);
        reduce_cub(d_x, 64, d_out);
        _exit(cudaDeviceSynchronize() == cudaSuccess ? 0 : 1);
    }
    int status = 0;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

/* The versions of one pattern, CUB first: rows at n elements. */
struct version {
    const char *name;
    struct call call;
};

/* Each version of @p v (count, the first CUB's), checked against @p want. */
static int bench_pattern(struct bench_table *t, struct version *v, int count, int cub,
                         size_t out_bytes, const void *want, double bytes)
{
    double peak = t->counting ? 0 : device_copy_bandwidth_gbs((size_t)bytes, t->opt->reps);
    int bad = 0;
    double base = 0;
    if (cub)
        base = report(t, v[0].name, &v[0].call, out_bytes, want, bytes, BENCH_SELF, peak, &bad);
    else
        printf("%-24s not run (the CPU emulator lacks instructions CUB's kernels use)\n",
               v[0].name);
    for (int i = 1; i < count; i++)
        report(t, v[i].name, &v[i].call, out_bytes, want, bytes, cub ? base : 0, peak, &bad);
    return bad;
}

static int bench_reduce(struct bench_table *t, int n, int cub)
{
    float *h = mat_alloc_f32((size_t)n), want = 0;
    mat_fill_int(h, (size_t)n, (uint64_t)t->opt->seed);
    for (int i = 0; i < n; i++)
        h[i] = h[i] > 0 ? 1.0f : h[i] < 0 ? -1.0f : 0.0f; /* |partial sums| <= n < 2^24: exact */
    for (int i = 0; i < n; i++)
        want += h[i];
    float *d_x, *d_out;
    CUDA_CHECK(cudaMalloc((void **)&d_x, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, h, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    struct version v[] = {
        {"reduce_cub", {.reduce = reduce_cub}},
        {"reduce_atomic", {.reduce = reduce_atomic}},
        {"reduce_tree", {.reduce = reduce_tree}},
        {"reduce_warp", {.reduce = reduce_warp}},
        {"reduce_grid", {.reduce = reduce_grid}},
        {"reduce_deterministic", {.reduce = reduce_deterministic}},
    };
    int count = (int)(sizeof v / sizeof *v);
    for (int i = 0; i < count; i++)
        v[i].call.n = n, v[i].call.d_in = d_x, v[i].call.d_out = d_out;
    int bad = bench_pattern(t, v, count, cub, sizeof(float), &want, 4.0 * n);
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_out));
    free(h);
    return bad;
}

static int bench_scan(struct bench_table *t, int n, int cub)
{
    int *h = mat_alloc((size_t)n * sizeof(int)), *want = mat_alloc((size_t)n * sizeof(int));
    uint64_t s = (uint64_t)t->opt->seed;
    for (int i = 0, sum = 0; i < n; i++) {
        h[i] = (int)(mat_rand_next(&s) % 9) - 4; /* small: no overflow */
        want[i] = sum;
        sum += h[i];
    }
    int *d_in, *d_out;
    CUDA_CHECK(cudaMalloc((void **)&d_in, (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_in, h, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    struct version v[] = {
        {"scan_cub", {.scan = scan_cub}},
        {"scan_three_phase", {.scan = scan_three_phase}},
        {"scan_lookback", {.scan = scan_lookback}},
    };
    int count = (int)(sizeof v / sizeof *v);
    for (int i = 0; i < count; i++)
        v[i].call.n = n, v[i].call.d_in = d_in, v[i].call.d_out = d_out;
    int bad = bench_pattern(t, v, count, cub, (size_t)n * sizeof(int), want, 8.0 * n);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h);
    free(want);
    return bad;
}

/* Histograms of @p n bytes, uniform (@p hot 0) or with every other byte in one hot bin. */
static int bench_histogram(struct bench_table *t, int n, int cub, int hot)
{
    unsigned char *h = mat_alloc((size_t)n);
    unsigned int want[256] = {0};
    uint64_t s = (uint64_t)t->opt->seed;
    for (int i = 0; i < n; i++) {
        h[i] = hot && i % 2 ? 7 : (unsigned char)(mat_rand_next(&s) >> 56);
        want[h[i]]++;
    }
    unsigned char *d_data;
    unsigned int *d_bins;
    CUDA_CHECK(cudaMalloc((void **)&d_data, (size_t)n));
    CUDA_CHECK(cudaMalloc((void **)&d_bins, sizeof want));
    CUDA_CHECK(cudaMemcpy(d_data, h, (size_t)n, cudaMemcpyHostToDevice));
    printf("histogram of %d bytes, %s\n", n, hot ? "half of them in one hot bin" : "uniform");
    struct version v[] = {
        {"histogram_cub", {.histogram = histogram_cub}},
        {"histogram_global", {.histogram = histogram_global}},
        {"histogram_shared", {.histogram = histogram_shared}},
        {"histogram_aggregated", {.histogram = histogram_aggregated}},
    };
    int count = (int)(sizeof v / sizeof *v);
    for (int i = 0; i < count; i++)
        v[i].call.n = n, v[i].call.d_in = d_data, v[i].call.d_out = d_bins;
    int bad = bench_pattern(t, v, count, cub, sizeof want, want, (double)n);
    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFree(d_bins));
    free(h);
    return bad;
}

int main(int argc, char **argv)
{
    struct cli_bench o;
    int len = device_emulated() ? BENCH_EMU_LEN : 1 << 26; /* a GPU's, or seconds on the CPU */
    cli_bench_defaults(&o, 4096, 10);
    const struct cli_opt extra[] = {
        {"len", CLI_INT, &len, 1, 1 << 30, "elements of each input"},
        {NULL, CLI_INT, NULL, 0, 0, NULL},
    };
    int cub = cub_runs();
    struct device_info dev;
    int status = bench_setup(argc, argv, PROG,
                             "Lesson 06: the reduction, scan and histogram ladders against "
                             "CUB's DeviceReduce, DeviceScan and DeviceHistogram.",
                             &o, extra, &dev);
    if (status >= 0)
        return status;
    if (!device_fits(PROG, (size_t)len * 2 * sizeof(int)))
        return 2;
    struct bench_table t;
    if (bench_begin(&t, PROG, "CUB (reduce_cub, scan_cub, histogram_cub)", &o, &dev))
        return 2;
    int bad = bench_reduce(&t, len, cub) + bench_scan(&t, len, cub) +
              bench_histogram(&t, len, cub, 0) + bench_histogram(&t, len, cub, 1);
    bench_end(&t);
    timer_release();
    return bad ? 1 : 0;
}
