/**
 * @file test_async.c
 * @brief The emulated device is asynchronous: a missing synchronisation shows, as on a GPU.
 *
 * Each planted bug sits beside its fixed twin: an elapsed time read before the stop event
 * completed, a pinned buffer read before its copy landed (and hostcheck's line about it), a
 * pipeline of three streams without its event waits, a non-blocking stream that the legacy
 * default stream does not wait for. Graphs (stream capture with a fork and a join, and the
 * node calls) replay against the host's answer, and code built with per-thread default
 * streams runs. CTest runs every case on the emulator.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "course_test.h"
#include "emu_cuda12.h"
#include "test_async.h"

/* An odd size, not a multiple of any block. */
enum { N = 100003, CHUNK = 1031, CHUNKS = 3, STALE = 0x7f7f7f7f };

/* Elements i < n where @p got[i] != mul * in(i) + add, in(i) being @p in[i] or i. */
static size_t wrong(const int *got, const int *in, int n, int mul, int add)
{
    size_t bad = 0;
    for (int i = 0; i < n; i++)
        bad += got[i] != mul * (in ? in[i] : i) + add;
    return bad;
}

/* --- lesson 02's timing: cudaEventElapsedTime needs the stop event complete ------------------ */

/* Record start, launch, record stop on the default stream; the events and buffer in *e, *d. */
static void timed_launch(cudaEvent_t e[2], int **d)
{
    ck_assert_int_eq(cudaMalloc((void **)d, N * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&e[0]), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&e[1]), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(e[0], 0), cudaSuccess);
    ck_assert_int_eq(async_affine(*d, N, 3, -7, 0), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(e[1], 0), cudaSuccess);
}

/* The bug: the elapsed time read right after the launch, as a GPU answers it. */
START_TEST(elapsed_time_without_sync_not_ready)
{
    cudaEvent_t e[2];
    int *d;
    float ms = -1;
    timed_launch(e, &d);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, e[0], e[1]), cudaErrorNotReady);
    ck_assert_msg(ms == -1, "test_async.c: n=%d: the time was written (%g) though not ready", N,
                  ms);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    cudaFree(d);
}
END_TEST

/* Its fixed twin: cudaEventSynchronize(stop) first; the result is the kernel's. */
START_TEST(elapsed_time_after_event_sync)
{
    cudaEvent_t e[2];
    int *d;
    float ms = -1;
    timed_launch(e, &d);
    ck_assert_int_eq(cudaEventSynchronize(e[1]), cudaSuccess);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, e[0], e[1]), cudaSuccess);
    ck_assert_msg(ms >= 0 && ms < 60000, "test_async.c: n=%d: elapsed %g ms", N, ms);
    int *h = mat_alloc(N * sizeof *h);
    ck_assert_int_eq(cudaMemcpy(h, d, N * sizeof *h, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_msg(wrong(h, NULL, N, 3, -7) == 0, "test_async.c: n=%d: %zu elements wrong", N,
                  wrong(h, NULL, N, 3, -7));
    free(h);
    cudaFree(d);
}
END_TEST

/* --- lesson 13's staging: a pinned buffer is the copy's only after the stream synchronises --- */

/* Launch and queue the copy into pinned *h on a non-blocking stream; nothing waits. */
static cudaStream_t staged_copy(int **h, int **d)
{
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaMallocHost((void **)h, N * sizeof **h), cudaSuccess);
    memset(*h, 0x7f, N * sizeof **h);
    ck_assert_int_eq(cudaMalloc((void **)d, N * sizeof **d), cudaSuccess);
    ck_assert_int_eq(async_affine(*d, N, 5, 11, s), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(*h, *d, N * sizeof **h, cudaMemcpyDeviceToHost, s),
                     cudaSuccess);
    return s;
}

/* Elements of pinned @p h still as they were before the copy. */
static size_t stale(const int *h)
{
    size_t n = 0;
    for (int i = 0; i < N; i++)
        n += h[i] == STALE;
    return n;
}

static void staged_free(cudaStream_t s, int *h, int *d)
{
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
    ck_assert_int_eq(cudaFreeHost(h), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}

/* The bug: the host reads the staging buffer before cudaStreamSynchronize. */
START_TEST(pinned_read_without_sync_is_stale)
{
    int *h, *d;
    cudaStream_t s = staged_copy(&h, &d);
    size_t old = stale(h);
    ck_assert_msg(old == N,
                  "test_async.c: n=%d: %zu of the elements read before the sync are "
                  "stale; all should be (the copy lands as late as it may)",
                  N, old);
    staged_free(s, h, d);
}
END_TEST

/* Its fixed twin. */
START_TEST(pinned_read_after_sync)
{
    int *h, *d;
    cudaStream_t s = staged_copy(&h, &d);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_msg(wrong(h, NULL, N, 5, 11) == 0, "test_async.c: n=%d: %zu elements wrong", N,
                  wrong(h, NULL, N, 5, 11));
    staged_free(s, h, d);
}
END_TEST

/* cudaStreamDestroy returns at once: the stream's queued copy lands at the next device
 * synchronisation, not before. */
START_TEST(stream_destroy_does_not_wait)
{
    int *h, *d;
    cudaStream_t s = staged_copy(&h, &d);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
    size_t old = stale(h);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    ck_assert_msg(old == N && wrong(h, NULL, N, 5, 11) == 0,
                  "test_async.c: n=%d: %zu stale after the destroy (want all), %zu wrong after "
                  "the sync (want none)",
                  N, old, wrong(h, NULL, N, 5, 11));
    ck_assert_int_eq(cudaFreeHost(h), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* In a child with hostcheck on: the staged copy, then the host's read; with @p sync, a copy back
 * queued behind it and the stream synchronised first. Returns the report's text (malloc'd). */
static char *hostcheck_run(int sync)
{
    capture_reports_on();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("COURSE_EMU_CHECKS", "host", 1);
        int *h, *d;
        cudaStream_t s = staged_copy(&h, &d);
        if (sync) /* a second copy of the same buffer queued behind the first: legal */
            cudaMemcpyAsync(d, h, N * sizeof *h, cudaMemcpyHostToDevice, s);
        if (sync)
            cudaStreamSynchronize(s);
        size_t old = stale(h); /* the read hostcheck meets */
        _exit(old == (sync ? 0 : N) ? 0 : 3);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "test_async.c: the child (sync=%d) ended with status %d", sync, status);
    return capture_reports();
}

/* hostcheck names the missing synchronisation in one line: the buffer, the copy, its stream,
 * where it was issued and where the host read. */
START_TEST(hostcheck_reports_pinned_read)
{
    char *text = hostcheck_run(0);
    ck_assert_msg(course_count(text, "\n") == 1, "test_async.c: want one report line: %s", text);
    const char *want[] = {"hostcheck: host read of pinned buffer",
                          "cudaMemcpyAsync",
                          "it writes the buffer",
                          "on stream 0x",
                          "issued at test_async.c:",
                          "at test_async.c:"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(strstr(text, want[i]), "test_async.c: the report lacks '%s': %s", want[i],
                      text);
    free(text);
}
END_TEST

START_TEST(hostcheck_quiet_after_sync)
{
    char *text = hostcheck_run(1);
    ck_assert_msg(text[0] == 0, "test_async.c: a report on correct code: %s", text);
    free(text);
}
END_TEST

/* --- a pipeline of three streams, right only with its event waits --------------------------- */

/*
 * Per chunk: stream 0 copies the input in from pinned memory, stream 1 computes mid = 3 in + 1,
 * stream 2 computes out = -2 mid + 5 and copies it out. With @p waits, each stage waits for
 * the previous one's event; the host synchronises stream 2 only. Returns the wrong elements.
 */
static size_t pipeline(int waits)
{
    int n = CHUNK * CHUNKS, *h_in, *h_out, *d;
    cudaStream_t s[3];
    cudaEvent_t e[2][CHUNKS];
    ck_assert_int_eq(cudaMallocHost((void **)&h_in, 2 * n * sizeof(int)), cudaSuccess);
    h_out = h_in + n;
    for (int i = 0; i < n; i++)
        h_in[i] = (i * 7919) % 1009 - 500;
    ck_assert_int_eq(cudaMalloc((void **)&d, 3 * n * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaMemset(d, 0, 3 * n * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    for (int k = 0; k < 3; k++)
        ck_assert_int_eq(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking), cudaSuccess);
    for (int c = 0; c < CHUNKS; c++) {
        int off = c * CHUNK, *in = d + off, *mid = d + n + off, *out = d + 2 * n + off;
        ck_assert_int_eq(cudaEventCreateWithFlags(&e[0][c], cudaEventDisableTiming), cudaSuccess);
        ck_assert_int_eq(cudaEventCreateWithFlags(&e[1][c], cudaEventDisableTiming), cudaSuccess);
        cudaMemcpyAsync(in, h_in + off, CHUNK * sizeof(int), cudaMemcpyHostToDevice, s[0]);
        cudaEventRecord(e[0][c], s[0]);
        if (waits)
            cudaStreamWaitEvent(s[1], e[0][c], 0);
        ck_assert_int_eq(async_scale(in, mid, CHUNK, 3, 1, s[1]), cudaSuccess);
        cudaEventRecord(e[1][c], s[1]);
        if (waits)
            cudaStreamWaitEvent(s[2], e[1][c], 0);
        ck_assert_int_eq(async_scale(mid, out, CHUNK, -2, 5, s[2]), cudaSuccess);
        cudaMemcpyAsync(h_out + off, out, CHUNK * sizeof(int), cudaMemcpyDeviceToHost, s[2]);
    }
    ck_assert_int_eq(cudaStreamSynchronize(s[2]), cudaSuccess);
    size_t bad = wrong(h_out, h_in, n, -6, 3); /* -2 (3 in + 1) + 5 */
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    for (int c = 0; c < CHUNKS; c++) {
        cudaEventDestroy(e[0][c]);
        cudaEventDestroy(e[1][c]);
    }
    for (int k = 0; k < 3; k++)
        cudaStreamDestroy(s[k]);
    cudaFreeHost(h_in);
    cudaFree(d);
    return bad;
}

START_TEST(pipeline_with_event_waits)
{
    size_t bad = pipeline(1);
    ck_assert_msg(bad == 0, "test_async.c: %d chunks of %d: %zu elements wrong with the waits",
                  CHUNKS, CHUNK, bad);
}
END_TEST

/* The bug: no waits between the streams; a GPU may run the stages in any order. */
START_TEST(pipeline_without_waits_is_wrong)
{
    size_t bad = pipeline(0);
    ck_assert_msg(bad > 0,
                  "test_async.c: %d chunks of %d: every element right without the "
                  "waits; the stages ran in issue order",
                  CHUNKS, CHUNK);
}
END_TEST

/* --- the legacy default stream's barrier ----------------------------------------------------- */

/* A launch on a stream with @p flags, then a cudaMemcpy (legacy stream); the wrong elements. */
static size_t legacy_after(unsigned flags)
{
    cudaStream_t s;
    int *d, *h = mat_alloc(N * sizeof *h);
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s, flags), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d, N * sizeof *d), cudaSuccess);
    ck_assert_int_eq(cudaMemset(d, 0, N * sizeof *d), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    ck_assert_int_eq(async_affine(d, N, -3, 2, s), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(h, d, N * sizeof *h, cudaMemcpyDeviceToHost), cudaSuccess);
    size_t bad = wrong(h, NULL, N, -3, 2);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
    cudaFree(d);
    free(h);
    return bad;
}

/* A blocking stream's work is done before a legacy-stream copy; a non-blocking one's need not. */
START_TEST(legacy_stream_waits_for_blocking_streams_only)
{
    size_t blocking = legacy_after(cudaStreamDefault),
           nonblocking = legacy_after(cudaStreamNonBlocking);
    ck_assert_msg(blocking == 0, "test_async.c: n=%d: %zu wrong after a blocking stream", N,
                  blocking);
    ck_assert_msg(nonblocking == N,
                  "test_async.c: n=%d: %zu of %d stale after a non-blocking "
                  "stream; the legacy stream must not wait for it",
                  N, nonblocking, N);
}
END_TEST

/* --- graphs --------------------------------------------------------------------------------- */

/* Fill pinned @p h with values that depend on @p rep. */
static void fill_input(int *h, int n, int rep)
{
    for (int i = 0; i < n; i++)
        h[i] = (i * 31 + rep * 977) % 2003 - 1000;
}

/*
 * Capture on s: copy in, fork to s2 (a = 2 in), b = in + 7 on s, join, copy a and b out.
 * Replayed three times on new inputs (the copy node reads the pinned input when it runs).
 */
START_TEST(graph_capture_replay)
{
    int n = CHUNK, *h, *d;
    cudaStream_t s, s2;
    cudaEvent_t fork, join;
    cudaGraph_t g;
    cudaGraphExec_t x;
    enum cudaStreamCaptureStatus st;
    ck_assert_int_eq(cudaMallocHost((void **)&h, 3 * n * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d, 3 * n * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&fork), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&join), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaStreamIsCapturing(s, &st), cudaSuccess);
    ck_assert_int_eq(st, cudaStreamCaptureStatusActive);
    cudaMemcpyAsync(d, h, n * sizeof(int), cudaMemcpyHostToDevice, s);
    cudaEventRecord(fork, s);
    cudaStreamWaitEvent(s2, fork, 0);
    ck_assert_int_eq(async_scale(d, d + n, n, 2, 0, s2), cudaSuccess);
    cudaEventRecord(join, s2);
    ck_assert_int_eq(async_scale(d, d + 2 * n, n, 1, 7, s), cudaSuccess);
    cudaStreamWaitEvent(s, join, 0);
    cudaMemcpyAsync(h + n, d + n, 2 * n * sizeof(int), cudaMemcpyDeviceToHost, s);
    ck_assert_int_eq(cudaStreamEndCapture(s, &g), cudaSuccess);
    size_t nodes = 0;
    ck_assert_int_eq(cudaGraphGetNodes(g, NULL, &nodes), cudaSuccess);
    ck_assert_uint_eq(nodes, 4);
    ck_assert_int_eq(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    for (int rep = 0; rep < 3; rep++) {
        fill_input(h, n, rep);
        ck_assert_int_eq(cudaGraphLaunch(x, s), cudaSuccess);
        ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
        size_t bad_a = wrong(h + n, h, n, 2, 0), bad_b = wrong(h + 2 * n, h, n, 1, 7);
        ck_assert_msg(bad_a == 0 && bad_b == 0,
                      "test_async.c: replay %d, n=%d: %zu wrong in 2 in, %zu in in + 7", rep, n,
                      bad_a, bad_b);
    }
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(g);
    cudaFreeHost(h);
    cudaFree(d);
}
END_TEST

static void count_call(void *p)
{
    ++*(int *)p;
}

/* A graph from the node calls: fill, copy in, kernel, copy out, host function, with edges. */
START_TEST(graph_nodes_replay)
{
    int n = CHUNK, *h, *d, calls = 0, mul = 4, add = -3;
    cudaGraph_t g;
    cudaGraphExec_t x;
    cudaGraphNode_t fill, in, kern, out, host;
    ck_assert_int_eq(cudaMallocHost((void **)&h, 2 * n * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d, 2 * n * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaGraphCreate(&g, 0), cudaSuccess);
    struct cudaMemsetParams mp = {d + n, 0, 0, 4, (size_t)n, 1};
    ck_assert_int_eq(cudaGraphAddMemsetNode(&fill, g, NULL, 0, &mp), cudaSuccess);
    ck_assert_int_eq(
        cudaGraphAddMemcpyNode1D(&in, g, NULL, 0, d, h, n * sizeof(int), cudaMemcpyHostToDevice),
        cudaSuccess);
    int *src = d, *dst = d + n;
    void *args[] = {&src, &dst, &n, &mul, &add};
    struct cudaKernelNodeParams kp = {(void *)async_scale_kernel(),
                                      {(unsigned)(n + 127) / 128, 1, 1},
                                      {128, 1, 1},
                                      0,
                                      args,
                                      NULL};
    cudaGraphNode_t before_kernel[] = {fill, in};
    ck_assert_int_eq(cudaGraphAddKernelNode(&kern, g, before_kernel, 2, &kp), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemcpyNode1D(&out, g, &kern, 1, h + n, d + n, n * sizeof(int),
                                              cudaMemcpyDeviceToHost),
                     cudaSuccess);
    struct cudaHostNodeParams hp = {count_call, &calls};
    ck_assert_int_eq(cudaGraphAddHostNode(&host, g, NULL, 0, &hp), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddDependencies(g, &out, &host, NULL, 1), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    for (int rep = 0; rep < 2; rep++) {
        fill_input(h, n, rep + 5);
        ck_assert_int_eq(cudaGraphLaunch(x, 0), cudaSuccess);
        ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
        ck_assert_msg(wrong(h + n, h, n, mul, add) == 0, "test_async.c: replay %d, n=%d: %zu wrong",
                      rep, n, wrong(h + n, h, n, mul, add));
    }
    ck_assert_int_eq(calls, 2);
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(g);
    cudaFreeHost(h);
    cudaFree(d);
}
END_TEST

/* A graph (or a kernel node's parameters) that runs out = in * mul + add for n elements. */
struct scale_graph {
    int *h, *d, n, mul, add;
    void *args[5];
    int *src, *dst;
    struct cudaKernelNodeParams kp;
    cudaGraph_t g;
    cudaGraphNode_t in, kern, out;
};

/* Point @p sg's kernel parameters at mul, add (the node copies them when it takes them). */
static const struct cudaKernelNodeParams *scale_params(struct scale_graph *sg, int mul, int add)
{
    sg->mul = mul;
    sg->add = add;
    sg->src = sg->d;
    sg->dst = sg->d + sg->n;
    void *args[] = {&sg->src, &sg->dst, &sg->n, &sg->mul, &sg->add};
    memcpy(sg->args, args, sizeof args);
    sg->kp = (struct cudaKernelNodeParams){(void *)async_scale_kernel(),
                                           {(unsigned)(sg->n + 127) / 128, 1, 1},
                                           {128, 1, 1},
                                           0,
                                           sg->args,
                                           NULL};
    return &sg->kp;
}

/* The graph copy in -> kernel (mul, add) -> copy out, from the node calls, in sg->g. */
static void scale_graph_build(struct scale_graph *sg, int mul, int add)
{
    size_t bytes = (size_t)sg->n * sizeof(int);
    ck_assert_int_eq(cudaGraphCreate(&sg->g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemcpyNode1D(&sg->in, sg->g, NULL, 0, sg->d, sg->h, bytes,
                                              cudaMemcpyHostToDevice),
                     cudaSuccess);
    ck_assert_int_eq(
        cudaGraphAddKernelNode(&sg->kern, sg->g, &sg->in, 1, scale_params(sg, mul, add)),
        cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemcpyNode1D(&sg->out, sg->g, &sg->kern, 1, sg->h + sg->n,
                                              sg->d + sg->n, bytes, cudaMemcpyDeviceToHost),
                     cudaSuccess);
}

/* Launch @p x on new inputs (seed @p rep) and check out = in * mul + add against the host. */
static void scale_graph_check(const struct scale_graph *sg, cudaGraphExec_t x, int rep, int mul,
                              int add)
{
    fill_input(sg->h, sg->n, rep);
    ck_assert_int_eq(cudaGraphLaunch(x, 0), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    size_t bad = wrong(sg->h + sg->n, sg->h, sg->n, mul, add);
    ck_assert_msg(bad == 0, "test_async.c: launch %d, n=%d, in * %d + %d: %zu elements wrong", rep,
                  sg->n, mul, add, bad);
}

/*
 * A kernel node's parameters set in the instantiated graph (its next launches use them, the
 * graph keeps its own), set in the graph (a new instantiation uses them), and taken from a
 * captured graph of the same shape by cudaGraphExecUpdate.
 */
START_TEST(graph_kernel_params_and_update)
{
    struct scale_graph sg = {.n = CHUNK};
    cudaGraphExec_t x, x2;
    cudaGraph_t cap;
    cudaStream_t s;
    ck_assert_int_eq(cudaMallocHost((void **)&sg.h, 2 * sg.n * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&sg.d, 2 * sg.n * sizeof(int)), cudaSuccess);
    scale_graph_build(&sg, 2, 1);
    ck_assert_int_eq(cudaGraphInstantiate(&x, sg.g, 0), cudaSuccess);
    scale_graph_check(&sg, x, 0, 2, 1);
    ck_assert_int_eq(cudaGraphExecKernelNodeSetParams(x, sg.kern, scale_params(&sg, -3, 5)),
                     cudaSuccess);
    scale_graph_check(&sg, x, 1, -3, 5);
    ck_assert_int_eq(cudaGraphKernelNodeSetParams(sg.kern, scale_params(&sg, 7, 0)), cudaSuccess);
    scale_graph_check(&sg, x, 2, -3, 5);
    ck_assert_int_eq(cudaGraphInstantiate(&x2, sg.g, 0), cudaSuccess);
    scale_graph_check(&sg, x2, 3, 7, 0);
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    cudaMemcpyAsync(sg.d, sg.h, sg.n * sizeof(int), cudaMemcpyHostToDevice, s);
    ck_assert_int_eq(async_scale(sg.d, sg.d + sg.n, sg.n, 9, -2, s), cudaSuccess);
    cudaMemcpyAsync(sg.h + sg.n, sg.d + sg.n, sg.n * sizeof(int), cudaMemcpyDeviceToHost, s);
    ck_assert_int_eq(cudaStreamEndCapture(s, &cap), cudaSuccess);
    cudaGraphExecUpdateResultInfo info;
    ck_assert_int_eq(cudaGraphExecUpdate(x, cap, &info), cudaSuccess);
    ck_assert_int_eq(info.result, cudaGraphExecUpdateSuccess);
    scale_graph_check(&sg, x, 4, 9, -2);
    cudaGraphExecDestroy(x);
    cudaGraphExecDestroy(x2);
    cudaGraphDestroy(cap);
    cudaGraphDestroy(sg.g);
    cudaStreamDestroy(s);
    cudaFreeHost(sg.h);
    cudaFree(sg.d);
}
END_TEST

#define EXPECT_REFUSED(call, why) EXPECT_REFUSED_WITH(cudaErrorInvalidValue, call, why)

/* Setters on the wrong node, and an update from a graph of another shape, are refused; the
 * instantiated graph still runs what it ran. */
START_TEST(graph_update_refused)
{
    struct scale_graph sg = {.n = 31}, other = {.n = 31};
    cudaGraphExec_t x;
    ck_assert_int_eq(cudaMallocHost((void **)&sg.h, 2 * sg.n * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&sg.d, 2 * sg.n * sizeof(int)), cudaSuccess);
    other.h = sg.h;
    other.d = sg.d;
    scale_graph_build(&sg, 3, -1);
    ck_assert_int_eq(cudaGraphInstantiate(&x, sg.g, 0), cudaSuccess);
    const struct cudaKernelNodeParams *p = scale_params(&other, 5, 5);
    EXPECT_REFUSED(cudaGraphExecKernelNodeSetParams(x, sg.in, p), "is not a kernel node");
    EXPECT_REFUSED(cudaGraphExecKernelNodeSetParams(x, NULL, p), "is not in the instantiated");
    EXPECT_REFUSED(cudaGraphKernelNodeSetParams(sg.out, p), "is not a kernel node");
    EXPECT_REFUSED(cudaGraphKernelNodeSetParams(NULL, p), "is not a node of a live graph");
    scale_graph_build(&other, 5, 5);
    cudaGraphNode_t extra;
    ck_assert_int_eq(cudaGraphAddEmptyNode(&extra, other.g, &other.out, 1), cudaSuccess);
    cudaGraphExecUpdateResultInfo info;
    ck_assert_int_eq(cudaGraphExecUpdate(x, other.g, &info), cudaErrorGraphExecUpdateFailure);
    ck_assert_int_eq(info.result, cudaGraphExecUpdateErrorTopologyChanged);
    cudaGetLastError();
    scale_graph_check(&sg, x, 6, 3, -1);
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(other.g);
    cudaGraphDestroy(sg.g);
    cudaFreeHost(sg.h);
    cudaFree(sg.d);
}
END_TEST

/* The graph memory attribute @p attr of device 0. */
static uint64_t graph_mem(enum cudaGraphMemAttributeType attr)
{
    uint64_t v = 0;
    ck_assert_int_eq(cudaDeviceGetGraphMemAttribute(0, attr, &v), cudaSuccess);
    return v;
}

/* The type of graph node @p node. */
static enum cudaGraphNodeType node_type(cudaGraphNode_t node)
{
    enum cudaGraphNodeType t;
    ck_assert_int_eq(cudaGraphNodeGetType(node, &t), cudaSuccess);
    return t;
}

/*
 * alloc -> copy in -> kernel (the allocation to sg.d + n) -> free, and copy out: launched three
 * times on new inputs; the allocation keeps its address, and the attributes count its bytes.
 */
START_TEST(graph_memory_nodes)
{
    struct scale_graph sg = {.n = 1031};
    size_t bytes = (size_t)sg.n * sizeof(int);
    cudaGraphExec_t x;
    cudaGraphNode_t alloc, in, kern, free_node, out;
    ck_assert_int_eq(cudaMallocHost((void **)&sg.h, 2 * bytes), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&sg.d, 2 * bytes), cudaSuccess);
    int *d_out = sg.d + sg.n;
    ck_assert_int_eq(cudaGraphCreate(&sg.g, 0), cudaSuccess);
    struct cudaMemAllocNodeParams ap = {.bytesize = bytes};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location = (struct cudaMemLocation){cudaMemLocationTypeDevice, 0};
    ck_assert_int_eq(cudaGraphAddMemAllocNode(&alloc, sg.g, NULL, 0, &ap), cudaSuccess);
    ck_assert_ptr_nonnull(ap.dptr);
    ck_assert_int_eq(cudaGraphAddMemcpyNode1D(&in, sg.g, &alloc, 1, ap.dptr, sg.h, bytes,
                                              cudaMemcpyHostToDevice),
                     cudaSuccess);
    const struct cudaKernelNodeParams *p = scale_params(&sg, 6, -7);
    sg.src = ap.dptr; /* the kernel reads the allocation and writes d_out */
    sg.dst = d_out;
    ck_assert_int_eq(cudaGraphAddKernelNode(&kern, sg.g, &in, 1, p), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemFreeNode(&free_node, sg.g, &kern, 1, ap.dptr), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemcpyNode1D(&out, sg.g, &kern, 1, sg.h + sg.n, d_out, bytes,
                                              cudaMemcpyDeviceToHost),
                     cudaSuccess);
    ck_assert_int_eq(node_type(alloc), cudaGraphNodeTypeMemAlloc);
    ck_assert_int_eq(node_type(free_node), cudaGraphNodeTypeMemFree);
    ck_assert_int_eq(cudaGraphInstantiate(&x, sg.g, 0), cudaSuccess);
    ck_assert_uint_eq(graph_mem(cudaGraphMemAttrUsedMemCurrent), 0);
    for (int rep = 0; rep < 3; rep++)
        scale_graph_check(&sg, x, rep, 6, -7);
    ck_assert_uint_eq(graph_mem(cudaGraphMemAttrUsedMemCurrent), bytes);
    ck_assert_uint_eq(graph_mem(cudaGraphMemAttrReservedMemHigh), bytes);
    ck_assert_int_eq(cudaDeviceGraphMemTrim(0), cudaSuccess);
    ck_assert_uint_eq(graph_mem(cudaGraphMemAttrReservedMemCurrent), 0);
    uint64_t zero = 0;
    ck_assert_int_eq(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero),
                     cudaSuccess);
    ck_assert_uint_eq(graph_mem(cudaGraphMemAttrUsedMemHigh), 0);
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(sg.g);
    cudaFreeHost(sg.h);
    cudaFree(sg.d);
}
END_TEST

/*
 * Captured: cudaMallocAsync, copy in, kernel, cudaFreeAsync of what it allocated, copy out become
 * five nodes, the first and fourth memory nodes. A second graph allocates without freeing: the
 * program's cudaFree ends the allocation's use, and the next launch uses it again.
 */
START_TEST(graph_memory_captured)
{
    int n = 997, *h, *d_out, *buf, *kept;
    size_t bytes = (size_t)n * sizeof(int), count = 8;
    cudaStream_t s;
    cudaGraph_t g, g2;
    cudaGraphExec_t x, x2;
    cudaGraphNode_t nodes[8];
    ck_assert_int_eq(cudaMallocHost((void **)&h, 2 * bytes), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d_out, bytes), cudaSuccess);
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMallocAsync((void **)&buf, bytes, s), cudaSuccess);
    cudaMemcpyAsync(buf, h, bytes, cudaMemcpyHostToDevice, s);
    ck_assert_int_eq(async_scale(buf, d_out, n, -5, 11, s), cudaSuccess);
    ck_assert_int_eq(cudaFreeAsync(buf, s), cudaSuccess);
    cudaMemcpyAsync(h + n, d_out, bytes, cudaMemcpyDeviceToHost, s);
    ck_assert_int_eq(cudaStreamEndCapture(s, &g), cudaSuccess);
    ck_assert_int_eq(cudaGraphGetNodes(g, nodes, &count), cudaSuccess);
    ck_assert_uint_eq(count, 5);
    ck_assert_int_eq(node_type(nodes[0]), cudaGraphNodeTypeMemAlloc);
    ck_assert_int_eq(node_type(nodes[3]), cudaGraphNodeTypeMemFree);
    ck_assert_int_eq(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    for (int rep = 0; rep < 2; rep++) {
        fill_input(h, n, rep + 20);
        ck_assert_int_eq(cudaGraphLaunch(x, s), cudaSuccess);
        ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
        ck_assert_msg(wrong(h + n, h, n, -5, 11) == 0, "test_async.c: launch %d, n=%d: wrong", rep,
                      n);
    }
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMallocAsync((void **)&kept, bytes, s), cudaSuccess);
    ck_assert_int_eq(async_scale(d_out, kept, n, 2, 0, s), cudaSuccess);
    cudaMemcpyAsync(h + n, kept, bytes, cudaMemcpyDeviceToHost, s);
    ck_assert_int_eq(cudaStreamEndCapture(s, &g2), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&x2, g2, 0), cudaSuccess);
    for (int rep = 0; rep < 2; rep++) {
        cudaMemcpy(d_out, h, bytes, cudaMemcpyHostToDevice);
        ck_assert_int_eq(cudaGraphLaunch(x2, s), cudaSuccess);
        ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
        ck_assert_uint_eq(graph_mem(cudaGraphMemAttrUsedMemCurrent), bytes);
        ck_assert_msg(wrong(h + n, h, n, 2, 0) == 0, "test_async.c: kept %d, n=%d: wrong", rep, n);
        ck_assert_int_eq(cudaFree(kept), cudaSuccess);
    }
    cudaGraphExecDestroy(x);
    cudaGraphExecDestroy(x2);
    cudaGraphDestroy(g);
    cudaGraphDestroy(g2);
    cudaStreamDestroy(s);
    cudaFreeHost(h);
    cudaFree(d_out);
}
END_TEST

/* A free node of memory no graph allocated, a wrong attribute or device: one line each. */
START_TEST(graph_memory_refused)
{
    int *d;
    cudaGraph_t g;
    cudaGraphNode_t node;
    uint64_t v = 1;
    ck_assert_int_eq(cudaMalloc((void **)&d, 33 * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaGraphCreate(&g, 0), cudaSuccess);
    EXPECT_REFUSED(cudaGraphAddMemFreeNode(&node, g, NULL, 0, d), "not the address of a graph's");
    EXPECT_REFUSED(cudaDeviceGetGraphMemAttribute(0, (enum cudaGraphMemAttributeType)7, &v),
                   "is not a graph memory attribute");
    EXPECT_REFUSED(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &v),
                   "can not be set to 1");
    EXPECT_REFUSED_WITH(cudaErrorInvalidDevice, cudaDeviceGraphMemTrim(99), "device 99");
    cudaGetLastError();
    cudaGraphDestroy(g);
    cudaFree(d);
}
END_TEST

/* Code built with --default-stream per-thread launches and copies on this thread's stream. */
START_TEST(per_thread_default_stream)
{
    int *d, *h = mat_alloc(N * sizeof *h);
    ck_assert_int_eq(cudaMalloc((void **)&d, N * sizeof *d), cudaSuccess);
    ck_assert_int_eq(async_affine_per_thread(d, h, N, 9, -4), cudaSuccess);
    ck_assert_msg(wrong(h, NULL, N, 9, -4) == 0, "test_async.c: n=%d: %zu elements wrong", N,
                  wrong(h, NULL, N, 9, -4));
    cudaFree(d);
    free(h);
}
END_TEST

/* The same build's symbol, array and 3D copies and stream queries: their _ptds and _ptsz forms
 * (every one of them was missing, so the program stopped at load), in order on this thread's
 * stream, at a size no tile divides. */
START_TEST(per_thread_copies_and_queries)
{
    enum { M = 1031 };
    int in[M], out[M + 8], table[M];
    unsigned long long ids[2] = {1, 2};
    for (int i = 0; i < M; i++)
        in[i] = (i * 7919) % 1013 - 500;
    for (int i = 0; i < M + 8; i++)
        out[i] = -1;
    ck_assert_int_eq(async_symbols_per_thread(in, out, table, M, ids), cudaSuccess);
    for (int i = 0; i < M + 8; i++)
        ck_assert_msg(out[i] == (i < M ? 2 * in[i] + 1 : -1), "n=%d: out[%d] = %d, want %d", M, i,
                      out[i], i < M ? 2 * in[i] + 1 : -1);
    for (int i = 0; i < M; i++)
        ck_assert_int_eq(table[i], in[i]);
    ck_assert_msg(ids[0] == ids[1], "stream 0 is stream %llu, cudaStreamPerThread %llu", ids[0],
                  ids[1]);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"elapsed_time_without_sync_not_ready", elapsed_time_without_sync_not_ready, CASE_CPU, 60},
        {"elapsed_time_after_event_sync", elapsed_time_after_event_sync, CASE_CPU, 60},
        {"pinned_read_without_sync_is_stale", pinned_read_without_sync_is_stale, CASE_CPU, 60},
        {"pinned_read_after_sync", pinned_read_after_sync, CASE_CPU, 60},
        {"stream_destroy_does_not_wait", stream_destroy_does_not_wait, CASE_CPU, 60},
        {"hostcheck_reports_pinned_read", hostcheck_reports_pinned_read, CASE_CPU, 60},
        {"hostcheck_quiet_after_sync", hostcheck_quiet_after_sync, CASE_CPU, 60},
        {"pipeline_with_event_waits", pipeline_with_event_waits, CASE_CPU, 60},
        {"pipeline_without_waits_is_wrong", pipeline_without_waits_is_wrong, CASE_CPU, 60},
        {"legacy_stream_waits_for_blocking_streams_only",
         legacy_stream_waits_for_blocking_streams_only, CASE_CPU, 60},
        {"graph_capture_replay", graph_capture_replay, CASE_CPU, 60},
        {"graph_nodes_replay", graph_nodes_replay, CASE_CPU, 60},
        {"graph_kernel_params_and_update", graph_kernel_params_and_update, CASE_CPU, 60},
        {"graph_update_refused", graph_update_refused, CASE_CPU, 60},
        {"graph_memory_nodes", graph_memory_nodes, CASE_CPU, 60},
        {"graph_memory_captured", graph_memory_captured, CASE_CPU, 60},
        {"graph_memory_refused", graph_memory_refused, CASE_CPU, 60},
        {"per_thread_default_stream", per_thread_default_stream, CASE_CPU, 60},
        {"per_thread_copies_and_queries", per_thread_copies_and_queries, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
