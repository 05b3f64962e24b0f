/**
 * @file rmsnorm_ladder_main.cu
 * @brief One run of one kernel of Simon Veitner's RMSNorm ladder (github.com/simveit/
 *        effective_rms_norm), for the time model's validation: tools/rmsnorm_ladder.sh builds it
 *        against a checkout of that repository, whose code this course does not hold.
 *
 *   rmsnorm_ladder KERNEL TOKENS [--check]   runs kernel KERNEL (1-5, the README's rows: the
 *                                            checkout's kernels/rms_naive.cu, rms_smem.cu,
 *                                            rms_warp.cu, rms_smem_float4.cu, rms_warp_float4.cu)
 *                                            once on TOKENS rows of 4096 floats, through the
 *                                            launch function and with the template arguments the
 *                                            checkout's main() uses (a block of 512 threads a
 *                                            row); TOKENS is 262144 (the checkout's) or 37
 *
 * With --check the input and the weights vary, every output is compared with the host's RMSNorm
 * and the floats after the last row must be left as they were: the emulator's run must be right
 * before its estimate means anything. Under the time model's sampling only some blocks run, so
 * the check is for runs without COURSE_EMU_MODEL; a run without --check leaves the input as
 * cudaMemset made it (the kernels read and write the same bytes whatever they hold).
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include <cuda_runtime.h>

/* Each file is a whole program. Its main() is renamed, and each file goes into a namespace of
 * its own, where their helpers do not collide; the headers they include are included above, so
 * their guards keep them out of the namespaces. */
#define main upstream_main
namespace naive
{
#include "rms_naive.cu"
}
namespace smem
{
#include "rms_smem.cu"
}
namespace warp
{
#include "rms_warp.cu"
}
namespace smem4
{
#include "rms_smem_float4.cu"
}
namespace warp4
{
#include "rms_warp_float4.cu"
}
#undef main

enum { HIDDEN = 1 << 12, THREADS = 1 << 9, TOKENS = 1 << 18, CHECK_TOKENS = 37, KERNELS = 5 };
static const float EPS = 1e-5f; /* the checkout's main()'s */

/* The launch functions, in the README's order, for the checkout's rows and for a check's. */
typedef void Launch(float *, float *, float, float *);
template <int T> struct Ladder {
    static constexpr Launch *kernels[KERNELS] = {
        naive::launchRmsNormNaive<T, HIDDEN, THREADS>,
        smem::launchRmsNormSmem<T, HIDDEN, THREADS>,
        warp::launchRmsNormWarp<T, HIDDEN, THREADS>,
        smem4::launchRmsNormSmemFloat4<T, HIDDEN, THREADS>,
        warp4::launchRmsNormWarpFloat4<T, HIDDEN, THREADS>,
    };
};

/* A value from about -2 to 2 that varies along the input, so that a kernel that skips, repeats
 * or misplaces elements changes its row's norm or its outputs. */
static float value(size_t i)
{
    return (float)((int)((i * 2654435761u) % 199u) - 99) / 50.0f;
}

/* Runs kernel @p k on CHECK_TOKENS varied rows and compares each output with the host's, and the
 * row after the last with its guard pattern; 0 when all agree. */
static int check(int k, float *dx, float *dw, float *dy)
{
    size_t n = (size_t)CHECK_TOKENS * HIDDEN;
    std::vector<float> x(n), w(HIDDEN), y(n + HIDDEN);
    for (size_t i = 0; i < n; i++)
        x[i] = value(i);
    for (int i = 0; i < HIDDEN; i++)
        w[i] = 0.5f + (float)(i % 7) / 8.0f;
    if (cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice) ||
        cudaMemcpy(dw, w.data(), HIDDEN * sizeof(float), cudaMemcpyHostToDevice) ||
        cudaMemset(dy, 0xff, (n + HIDDEN) * sizeof(float)))
        return 1;
    Ladder<CHECK_TOKENS>::kernels[k - 1](dx, dw, EPS, dy);
    if (cudaMemcpy(y.data(), dy, (n + HIDDEN) * sizeof(float), cudaMemcpyDeviceToHost))
        return 1;
    for (size_t row = 0; row < CHECK_TOKENS; row++) {
        double squares = 0;
        for (int i = 0; i < HIDDEN; i++)
            squares += (double)x[row * HIDDEN + i] * x[row * HIDDEN + i];
        double scale = 1.0 / sqrt(squares / HIDDEN + EPS);
        for (int i = 0; i < HIDDEN; i++) {
            double want = x[row * HIDDEN + i] * scale * w[i], got = y[row * HIDDEN + i];
            if (!(fabs(got - want) <= 1e-3 * (1 + fabs(want)))) {
                fprintf(stderr, "rmsnorm_ladder: kernel %d: row %zu, element %d: %g, want %g\n", k,
                        row, i, got, want);
                return 1;
            }
        }
    }
    unsigned guard;
    for (int i = 0; i < HIDDEN; i++) {
        memcpy(&guard, &y[n + i], sizeof guard);
        if (guard != 0xffffffffu) {
            fprintf(stderr, "rmsnorm_ladder: kernel %d wrote past its %d rows (float %d)\n", k,
                    (int)CHECK_TOKENS, i);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    int k = argc >= 3 ? atoi(argv[1]) : 0;
    long tokens = argc >= 3 ? atol(argv[2]) : 0;
    int verify = argc == 4 && !strcmp(argv[3], "--check");
    if (k < 1 || k > KERNELS || (argc == 4 && !verify) || argc < 3 || argc > 4 ||
        tokens != (verify ? CHECK_TOKENS : TOKENS)) {
        fprintf(stderr, "usage: rmsnorm_ladder KERNEL %d | KERNEL %d --check (KERNEL 1-%d)\n",
                (int)TOKENS, (int)CHECK_TOKENS, (int)KERNELS);
        return 2;
    }
    size_t n = (size_t)tokens * HIDDEN;
    float *dx, *dw, *dy;
    if (cudaMalloc(&dx, n * sizeof(float)) || cudaMalloc(&dw, HIDDEN * sizeof(float)) ||
        cudaMalloc(&dy, (n + HIDDEN) * sizeof(float)) || cudaMemset(dx, 0, n * sizeof(float)) ||
        cudaMemset(dw, 0, HIDDEN * sizeof(float))) {
        fprintf(stderr, "rmsnorm_ladder: cannot allocate %ld rows\n", tokens);
        return 1;
    }
    if (verify)
        return check(k, dx, dw, dy);
    Ladder<TOKENS>::kernels[k - 1](dx, dw, EPS, dy);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "rmsnorm_ladder: kernel %d: %s\n", k, cudaGetErrorString(err));
        return 1;
    }
    return 0;
}
