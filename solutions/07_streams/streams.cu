/**
 * @file streams.cu
 * @brief Lesson 07: the kernel every pipeline runs, on the whole of x or on one chunk of it.
 *
 * Versions, in order:
 *   mix_async   y = mix(x), one thread per word, queued on a stream (streams.h says what mix is)
 *
 * The kernel is simple on purpose: the lesson is the host's orchestration around it
 * (pipeline.c). Each thread reads its word once and writes it once, so its only traffic is the
 * 8 bytes per word the copies move too; rounds sets how much it computes in between.
 */
#include "streams.h"

#include "cuda_check.h"

/* Threads per block: 8 warps. */
enum { MIX_THREADS = 256 };

/* One thread per word: thread i mixes x[i] into y[i] in a register, reading and writing each
 * once (neighbouring threads, neighbouring words: every load and store is coalesced). */
static __global__ void mix_kernel(const uint32_t *__restrict__ x, uint32_t *__restrict__ y, int n,
                                  int rounds)
{
    // i = this thread's global index; guard the last block's threads past n, then apply the
    // rounds of streams.h to x[i] in a register and store the result in y[i].
    // BEGIN SOLUTION
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t w = x[i];
    for (int r = 0; r < rounds; r++)
        w = (w ^ (w >> 16)) * MIX_MULTIPLIER;
    y[i] = w;
    // END SOLUTION
}

extern "C" void mix_async(const uint32_t *d_x, uint32_t *d_y, int n, int rounds,
                          cudaStream_t stream)
{
    if (n <= 0)
        return;
    // Enough blocks of MIX_THREADS for n threads (round up), launched on `stream` (the fourth
    // launch parameter; the third is the dynamic shared memory, 0 here).
    // BEGIN SOLUTION
    unsigned blocks = (unsigned)((n + MIX_THREADS - 1) / MIX_THREADS);
    mix_kernel<<<blocks, MIX_THREADS, 0, stream>>>(d_x, d_y, n, rounds);
    // END SOLUTION
    CUDA_CHECK_LAUNCH();
}
