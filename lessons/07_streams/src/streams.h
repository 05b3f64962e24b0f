/**
 * @file streams.h
 * @brief Lesson 07: streams, pinned memory, events and CUDA Graphs, in a pipeline that overlaps
 *        host-to-device copies, kernels and device-to-host copies.
 *
 * The work: y[i] = mix(x[i]) for n 32-bit words, where mix is @p rounds rounds of
 *
 *     w = (w ^ (w >> 16)) * MIX_MULTIPLIER      (unsigned, wrapping at 2^32)
 *
 * a stand-in for real per-element work whose cost per byte @p rounds sets: at a few rounds the
 * copies take longer than the kernel, at a few hundred the kernel can take as long as they do.
 *
 * h_x and h_y are host buffers of n words, pinned (cudaMallocHost) for their copies to overlap
 * with other work; d_x and d_y are device buffers of n words that a pipeline uses as it likes.
 * Every pipeline returns once h_y holds the answer, and reaches h_x and h_y only through copies.
 * A chunk count is a request: chunk c is words [n c / chunks, n (c + 1) / chunks), and chunks
 * past n are empty. n >= 1, rounds >= 0, chunks >= 1.
 */
#ifndef STREAMS_H
#define STREAMS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The odd constant of every round of mix: 2^32 divided by the golden ratio, rounded. */
#define MIX_MULTIPLIER 0x9E3779B9u

/**
 * Queue y = mix(x) for n words of device memory on @p stream (0: the default stream) and return:
 * a launcher, which never synchronises.
 */
void mix_async(const uint32_t *d_x, uint32_t *d_y, int n, int rounds, cudaStream_t stream);

/** The whole of x in, the kernel, the whole of y out, one after the other on one stream. */
void pipeline_serial(const uint32_t *h_x, uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n,
                     int rounds);

/**
 * The same work in @p chunks chunks dealt to several streams, each chunk copied in, mixed and
 * copied out on its stream, so that chunk c + 1 is copied in while chunk c computes and chunk
 * c - 1 is copied out.
 */
void pipeline_overlap(const uint32_t *h_x, uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n,
                      int rounds, int chunks);

/**
 * The same overlap with one stream per engine: one for the copies in, one for the kernels, one
 * for the copies out, each chunk handed from one to the next by an event.
 */
void pipeline_events(const uint32_t *h_x, uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n,
                     int rounds, int chunks);

/**
 * pipeline_overlap()'s work captured once into a CUDA graph, instantiated, and launched
 * @p launches times (each launch computes the same y; a program would refill h_x between them).
 */
void pipeline_graph(const uint32_t *h_x, uint32_t *h_y, uint32_t *d_x, uint32_t *d_y, int n,
                    int rounds, int chunks, int launches);

#ifdef __cplusplus
}
#endif

#endif /* STREAMS_H */
