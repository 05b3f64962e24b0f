/**
 * @file streams_main.c
 * @brief Lesson 07's benchmark: the serial pipeline against the overlapped ones, on the same
 *        words, each checked against the CPU.
 *
 *   ./course bench 07 [--len=N] [--rounds=R] [--chunks=C] [--sweep] [--reps=10] [--csv=FILE]
 *   ./course estimate 07 [--len=N] [--rounds=R] [--chunks=C] [--sweep]   (the model's timeline)
 *
 * Rows, each moving 8 bytes per word over the bus (4 in, 4 out): pipeline_serial (the base),
 * pipeline_overlap, pipeline_events, pipeline_graph (10 launches in one call, 2 on the CPU
 * emulator, so its ms and base are those of that many pipelines), and pipeline_overlap again on
 * pageable buffers (malloc'd, not pinned). "% base" above 100 is the speedup over the serial
 * pipeline.
 * --sweep: pipeline_serial, then pipeline_overlap at 1, 2, 4, ... 64 chunks, for choosing.
 * On the CPU emulator the rows count the kernels instead, and ./course estimate 07 lays the
 * copies and kernels out in time on a named GPU (a model: tools/timeline.py).
 */
#include "streams.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuda_check.h"
#include "mat.h"
#include "ref.h"
#include "timer.h"

static const char *const PROG = "07_streams";

/* Launches of the graph per call of its row: enough to spread its instantiation on a GPU; two
 * on the CPU emulator, where each launch runs every kernel again. */
static int graph_launches = 10;

/* One call of a version on one set of buffers. */
struct call {
    const char *name;
    int kind; /* 0 serial, 1 overlap, 2 events, 3 graph */
    const uint32_t *h_x;
    uint32_t *h_y, *d_x, *d_y;
    int n, rounds, chunks;
};

static void run_call(void *arg)
{
    struct call *c = arg;
    if (c->kind == 0)
        pipeline_serial(c->h_x, c->h_y, c->d_x, c->d_y, c->n, c->rounds);
    else if (c->kind == 1)
        pipeline_overlap(c->h_x, c->h_y, c->d_x, c->d_y, c->n, c->rounds, c->chunks);
    else if (c->kind == 2)
        pipeline_events(c->h_x, c->h_y, c->d_x, c->d_y, c->n, c->rounds, c->chunks);
    else
        pipeline_graph(c->h_x, c->h_y, c->d_x, c->d_y, c->n, c->rounds, c->chunks, graph_launches);
}

/* Label what @p name queues in the emulator's stream record (course_emu_mark, emulator/emu.h):
 * the time model's timeline names its rows so. Nothing on a GPU. */
static void mark(const char *name)
{
    void (*mark_fn)(const char *) = (void (*)(const char *))dlsym(RTLD_DEFAULT, "course_emu_mark");
    if (mark_fn)
        mark_fn(name);
}

/* Run @p c into a poisoned h_y, compare with @p want, report its row against @p base_ms
 * (BENCH_SELF for the serial one). Returns the row's ms; counts a wrong answer in *bad. */
static double report(struct bench_table *t, struct call *c, const uint32_t *want, double base_ms,
                     int *bad)
{
    size_t n = (size_t)c->n;
    memset(c->h_y, 0xFF, n * sizeof(uint32_t));
    mark(c->name);
    bench_run(t, run_call, c);
    size_t first = 0;
    while (first < n && c->h_y[first] == want[first])
        first++;
    char check[96] = "exact";
    if (first < n)
        snprintf(check, sizeof check, "WRONG at word %zu: %u, want %u", first, c->h_y[first],
                 want[first]);
    *bad += first < n;
    int launches = c->kind == 3 ? graph_launches : 1;
    struct bench_row row = {.version = c->name,
                            .bytes = 8.0 * (double)n * launches,
                            .base_ms = base_ms > 0 ? base_ms * launches : base_ms,
                            .check = check,
                            .ok = first == n};
    return bench_report(t, &row, run_call, c);
}

int main(int argc, char **argv)
{
    struct cli_bench o;
    int emulated = device_emulated();
    graph_launches = emulated ? 2 : 10;
    int len = emulated ? BENCH_EMU_LEN : 1 << 24, rounds = emulated ? 16 : 700, chunks = 8;
    int sweep = 0;
    cli_bench_defaults(&o, 4096, 10);
    const struct cli_opt extra[] = {
        {"len", CLI_INT, &len, 1, 1 << 29, "words of x and of y"},
        {"rounds", CLI_INT, &rounds, 0, 1 << 20, "rounds of mix per word (work per byte)"},
        {"chunks", CLI_INT, &chunks, 1, 1 << 16, "chunks the overlapped pipelines cut x into"},
        {"sweep", CLI_FLAG, &sweep, 0, 0, "pipeline_overlap at 1 to 64 chunks instead"},
        {NULL, CLI_INT, NULL, 0, 0, NULL},
    };
    struct device_info dev;
    int status = bench_setup(argc, argv, PROG,
                             "Lesson 07: the serial pipeline (copy in, mix, copy out) against "
                             "the chunked ones that overlap copies and kernels.",
                             &o, extra, &dev);
    if (status >= 0)
        return status;
    size_t n = (size_t)len, bytes = n * sizeof(uint32_t);
    if (!device_fits(PROG, 2 * bytes))
        return 2;
    uint32_t *h_x, *h_y, *d_x, *d_y;
    uint32_t *want = mat_alloc(bytes), *p_x = mat_alloc(bytes), *p_y = mat_alloc(bytes);
    CUDA_CHECK(cudaMallocHost((void **)&h_x, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&h_y, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_x, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_y, bytes));
    uint64_t s = (uint64_t)o.seed;
    for (size_t i = 0; i < n; i++)
        h_x[i] = p_x[i] = (uint32_t)(mat_rand_next(&s) >> 32);
    ref_mix(h_x, want, n, rounds, MIX_MULTIPLIER);

    struct bench_table t;
    if (bench_begin(&t, PROG, "pipeline_serial", &o, &dev))
        return 2;
    printf("%d words, %d rounds of mix each, %d chunks; the graph row is %d launches\n", len,
           rounds, chunks, graph_launches);
    struct call calls[] = {
        {"pipeline_serial", 0, h_x, h_y, d_x, d_y, len, rounds, chunks},
        {"pipeline_overlap", 1, h_x, h_y, d_x, d_y, len, rounds, chunks},
        {"pipeline_events", 2, h_x, h_y, d_x, d_y, len, rounds, chunks},
        {"pipeline_graph", 3, h_x, h_y, d_x, d_y, len, rounds, chunks},
        {"pipeline_overlap (pageable)", 1, p_x, p_y, d_x, d_y, len, rounds, chunks},
    };
    int bad = 0;
    double base = report(&t, &calls[0], want, BENCH_SELF, &bad);
    for (size_t i = 1; !sweep && i < sizeof calls / sizeof *calls; i++)
        report(&t, &calls[i], want, base, &bad);
    for (int c = 1; sweep && c <= 64; c *= 2) { /* the chunk count: the design choice */
        char name[48];
        snprintf(name, sizeof name, "pipeline_overlap, %d chunk%s", c, c > 1 ? "s" : "");
        struct call at = calls[1];
        at.name = name;
        at.chunks = c;
        report(&t, &at, want, base, &bad);
    }
    bench_end(&t);
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    free(want);
    free(p_x);
    free(p_y);
    timer_release();
    return bad ? 1 : 0;
}
