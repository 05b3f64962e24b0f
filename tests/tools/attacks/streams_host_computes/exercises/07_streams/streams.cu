/* The attack: mix_async mixes on the host, between two copies; no kernel runs. */
#include "streams.h"

#include <stdlib.h>

#include "cuda_check.h"

static uint32_t mix_on_host(uint32_t w, int rounds)
{
    while (rounds-- > 0)
        w = (w ^ (w >> 16)) * MIX_MULTIPLIER;
    return w;
}

extern "C" void mix_async(const uint32_t *d_x, uint32_t *d_y, int n, int rounds,
                          cudaStream_t stream)
{
    (void)stream;
    uint32_t *h = (uint32_t *)malloc((size_t)n * sizeof *h);
    CUDA_CHECK(cudaMemcpy(h, d_x, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        h[i] = mix_on_host(h[i], rounds);
    CUDA_CHECK(cudaMemcpy(d_y, h, (size_t)n * sizeof *h, cudaMemcpyHostToDevice));
    free(h);
}
