/**
 * @file pipeline.c
 * @brief Lesson 07: y = mix(x) from host memory to host memory, four ways.
 *
 * Versions, in order:
 *   pipeline_serial   x in, the kernel, y out, one after the other on one stream: the copy
 *                     engines and the SMs take turns, and each waits for the others
 *   pipeline_overlap  the same in chunks dealt round robin to PIPELINE_STREAMS streams: chunk
 *                     c + 1's copy in, chunk c's kernel and chunk c - 1's copy out may run at once
 *   pipeline_events   one stream per engine (copies in, kernels, copies out), each chunk handed
 *                     on by an event: the dependencies are said, not implied by stream order
 *   pipeline_graph    pipeline_overlap's work captured once into a CUDA graph, then launched as
 *                     often as asked: one call to the runtime per launch instead of three per
 *                     chunk
 *
 * Host code: every call here queues work and returns, but for the waits at the end (the caller
 * reads h_y next). The copies overlap only because h_x and h_y are pinned (streams.h).
 */
#include "streams.h"

#include <cuda_runtime.h>

#include "cuda_check.h"

/* Streams pipeline_overlap deals chunks to: three, so that chunk c - 1's copy out, chunk c's
 * kernel and chunk c + 1's copy in are on three different streams and nothing orders them. */
enum { PIPELINE_STREAMS = 3 };

/* Chunk c of n words split into @p chunks: its first word; its length in *len (0 past n). */
static int chunk_of(int n, int chunks, int c, int *len)
{
    int lo = (int)((int64_t)n * c / chunks);
    *len = (int)((int64_t)n * (c + 1) / chunks) - lo;
    return lo;
}

void pipeline_serial(const uint32_t *h_x, uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n,
                     int rounds)
{
    size_t bytes = (size_t)n * sizeof(uint32_t);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    // Queue on s, in order: all of h_x into d_x (cudaMemcpyAsync, cudaMemcpyHostToDevice), the
    // kernel (mix_async), all of d_y into h_y; then wait for s (cudaStreamSynchronize).
    // BEGIN SOLUTION
    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, s));
    mix_async(d_x, d_y, n, rounds, s);
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    // END SOLUTION
    CUDA_CHECK(cudaStreamDestroy(s));
}

/* Queue each chunk's copy in, kernel and copy out on streams[c % nstreams] (nothing else: no
 * wait). One stream runs its work in order, so a chunk's three steps follow each other; nothing
 * orders two streams, so chunks on different streams may overlap. */
static void queue_chunks(const cudaStream_t *streams, int nstreams, const uint32_t *h_x,
                         uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n, int rounds, int chunks)
{
    for (int c = 0; c < chunks; c++) {
        int len, lo = chunk_of(n, chunks, c, &len);
        if (len == 0)
            continue;
        // Words [lo, lo + len) of each buffer: h_x into d_x, mix_async, d_y into h_y, all three
        // on streams[c % nstreams].
        // BEGIN SOLUTION
        cudaStream_t s = streams[c % nstreams];
        size_t bytes = (size_t)len * sizeof(uint32_t);
        CUDA_CHECK(cudaMemcpyAsync(d_x + lo, h_x + lo, bytes, cudaMemcpyHostToDevice, s));
        mix_async(d_x + lo, d_y + lo, len, rounds, s);
        CUDA_CHECK(cudaMemcpyAsync(h_y + lo, d_y + lo, bytes, cudaMemcpyDeviceToHost, s));
        // END SOLUTION
    }
}

void pipeline_overlap(const uint32_t *h_x, uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n,
                      int rounds, int chunks)
{
    cudaStream_t s[PIPELINE_STREAMS];
    for (int i = 0; i < PIPELINE_STREAMS; i++)
        CUDA_CHECK(cudaStreamCreate(&s[i]));
    queue_chunks(s, PIPELINE_STREAMS, h_x, h_y, d_x, d_y, n, rounds, chunks);
    // Wait for every stream: h_y is complete once all their copies out have run.
    // BEGIN SOLUTION
    for (int i = 0; i < PIPELINE_STREAMS; i++)
        CUDA_CHECK(cudaStreamSynchronize(s[i]));
    // END SOLUTION
    for (int i = 0; i < PIPELINE_STREAMS; i++)
        CUDA_CHECK(cudaStreamDestroy(s[i]));
}

void pipeline_events(const uint32_t *h_x, uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n,
                     int rounds, int chunks)
{
    cudaStream_t in, work, out;
    cudaEvent_t copied, computed; /* ordering only: no timestamps to take */
    CUDA_CHECK(cudaStreamCreate(&in));
    CUDA_CHECK(cudaStreamCreate(&work));
    CUDA_CHECK(cudaStreamCreate(&out));
    CUDA_CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&computed, cudaEventDisableTiming));
    for (int c = 0; c < chunks; c++) {
        int len, lo = chunk_of(n, chunks, c, &len);
        if (len == 0)
            continue;
        // The copy in on `in`, then record `copied` there; `work` waits for it
        // (cudaStreamWaitEvent) and mixes; record `computed` on `work`; `out` waits for it and
        // copies out. A wait takes the event's latest record when it is queued, so each event
        // serves every chunk in turn.
        // BEGIN SOLUTION
        size_t bytes = (size_t)len * sizeof(uint32_t);
        CUDA_CHECK(cudaMemcpyAsync(d_x + lo, h_x + lo, bytes, cudaMemcpyHostToDevice, in));
        CUDA_CHECK(cudaEventRecord(copied, in));
        CUDA_CHECK(cudaStreamWaitEvent(work, copied, 0));
        mix_async(d_x + lo, d_y + lo, len, rounds, work);
        CUDA_CHECK(cudaEventRecord(computed, work));
        CUDA_CHECK(cudaStreamWaitEvent(out, computed, 0));
        CUDA_CHECK(cudaMemcpyAsync(h_y + lo, d_y + lo, bytes, cudaMemcpyDeviceToHost, out));
        // END SOLUTION
    }
    // Every copy out is on `out`, and each one follows its chunk's whole journey: waiting for
    // `out` is waiting for everything.
    CUDA_CHECK(cudaStreamSynchronize(out));
    CUDA_CHECK(cudaEventDestroy(copied));
    CUDA_CHECK(cudaEventDestroy(computed));
    CUDA_CHECK(cudaStreamDestroy(in));
    CUDA_CHECK(cudaStreamDestroy(work));
    CUDA_CHECK(cudaStreamDestroy(out));
}

void pipeline_graph(const uint32_t *h_x, uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n,
                    int rounds, int chunks, int launches)
{
    cudaStream_t s[PIPELINE_STREAMS];
    cudaEvent_t fork, join[PIPELINE_STREAMS];
    for (int i = 0; i < PIPELINE_STREAMS; i++) {
        CUDA_CHECK(cudaStreamCreate(&s[i]));
        CUDA_CHECK(cudaEventCreateWithFlags(&join[i], cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    // Capture: begin on s[0]; the other streams join the capture by waiting for an event s[0]
    // records (the fork); queue_chunks; s[0] waits for an event each other stream records at
    // its end (the join), and the capture ends on s[0] with the graph. Nothing runs yet.
    // BEGIN SOLUTION
    CUDA_CHECK(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaEventRecord(fork, s[0]));
    for (int i = 1; i < PIPELINE_STREAMS; i++)
        CUDA_CHECK(cudaStreamWaitEvent(s[i], fork, 0));
    queue_chunks(s, PIPELINE_STREAMS, h_x, h_y, d_x, d_y, n, rounds, chunks);
    for (int i = 1; i < PIPELINE_STREAMS; i++) {
        CUDA_CHECK(cudaEventRecord(join[i], s[i]));
        CUDA_CHECK(cudaStreamWaitEvent(s[0], join[i], 0));
    }
    CUDA_CHECK(cudaStreamEndCapture(s[0], &graph));
    // END SOLUTION
    // Instantiate the graph once, launch it `launches` times on s[0], and wait for s[0].
    // BEGIN SOLUTION
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int l = 0; l < launches; l++)
        CUDA_CHECK(cudaGraphLaunch(exec, s[0]));
    CUDA_CHECK(cudaStreamSynchronize(s[0]));
    // END SOLUTION
    if (exec)
        CUDA_CHECK(cudaGraphExecDestroy(exec));
    if (graph)
        CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaEventDestroy(fork));
    for (int i = 0; i < PIPELINE_STREAMS; i++) {
        CUDA_CHECK(cudaEventDestroy(join[i]));
        CUDA_CHECK(cudaStreamDestroy(s[i]));
    }
}
