/**
 * @file transpose_ladder_main.cu
 * @brief One launch of one kernel of Yen Cal's matrix transpose ladder (github.com/yencal/
 *        gpu-matrix-transpose), for the time model's validation: tools/transpose_ladder.sh
 *        builds it against a checkout of that repository, whose code this course does not hold.
 *
 *   transpose_ladder KERNEL N [--check]   runs kernel KERNEL (1-20, in the order of the
 *                                         checkout's README table) once on an N x N float
 *                                         matrix, N a multiple of 64, with the checkout's
 *                                         block and grid for it
 *
 * With --check the input is varied and the whole output is compared with the transpose on the
 * host: the emulator's run must be right before its estimate means anything. Under the time
 * model's sampling only some blocks run, so the check is for runs without COURSE_EMU_MODEL; a
 * run without --check leaves the input as cudaMemset made it (a transpose moves the same bytes
 * whatever they hold) and allocates no host copy.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "transpose_kernels.cuh"

typedef void KernelFn(const float *, float *, int);

/* A kernel of the ladder: the template instance, its block (x, y) and its tile's side (the grid
 * is N / tile blocks each way), as the checkout's main() launches it. */
struct rung {
    const char *name;
    KernelFn *kernel;
    unsigned bx, by, tile;
};

static const rung ladder[] = {
    {"Naive", TransposeNaive, 32, 32, 32},
    {"Tiled", TransposeBankConflicts<32>, 32, 32, 32},
    {"TiledPadded", TransposeNoBankConflicts<32>, 32, 32, 32},
    {"Coarsen2", TransposeNoBankConflictsCoarsen<32, 16>, 32, 16, 32},
    {"Coarsen4", TransposeNoBankConflictsCoarsen<32, 8>, 32, 8, 32},
    {"Coarsen8", TransposeNoBankConflictsCoarsen<32, 4>, 32, 4, 32},
    {"Vec2", TransposeVec2<32>, 16, 32, 32},
    {"Vec2Coarsen2", TransposeVec2Coarsen<32, 16>, 16, 16, 32},
    {"Vec2Coarsen4", TransposeVec2Coarsen<32, 8>, 16, 8, 32},
    {"Vec2Coarsen8", TransposeVec2Coarsen<32, 4>, 16, 4, 32},
    {"Vec4", TransposeVec4<32>, 8, 32, 32},
    {"Vec4Coarsen2", TransposeVec4Coarsen<32, 16>, 8, 16, 32},
    {"Vec4Coarsen4", TransposeVec4Coarsen<32, 8>, 8, 8, 32},
    {"Vec4Coarsen8", TransposeVec4Coarsen<32, 4>, 8, 4, 32},
    {"Vec2_T64", TransposeVec2Coarsen<64, 32>, 32, 32, 64},
    {"Vec2_T64_Coarsen2", TransposeVec2Coarsen<64, 16>, 32, 16, 64},
    {"Vec2_T64_Coarsen4", TransposeVec2Coarsen<64, 8>, 32, 8, 64},
    {"Vec4_T64", TransposeVec4Coarsen<64, 32>, 16, 32, 64},
    {"Vec4_T64_Coarsen2", TransposeVec4Coarsen<64, 16>, 16, 16, 64},
    {"Vec4_T64_Coarsen4", TransposeVec4Coarsen<64, 8>, 16, 8, 64},
};
enum { RUNGS = sizeof ladder / sizeof ladder[0] };

/* A value that differs for every element of a matrix of up to 2^24 elements, exact in float. */
static float value(size_t i)
{
    return (float)((i * 2654435761u) % 16777216u);
}

/* The whole output against the transpose of the input; 0 when every element is right. */
static int check(const float *dout, int n, const char *name)
{
    size_t count = (size_t)n * n;
    std::vector<float> out(count);
    if (cudaMemcpy(out.data(), dout, count * sizeof(float), cudaMemcpyDeviceToHost))
        return 1;
    size_t bad = 0;
    for (size_t r = 0; r < (size_t)n; r++)
        for (size_t c = 0; c < (size_t)n; c++)
            if (out[r * n + c] != value(c * n + r) && bad++ < 3)
                fprintf(stderr, "transpose_ladder: %s: out[%zu][%zu] = %g, want %g\n", name, r, c,
                        out[r * n + c], value(c * n + r));
    if (bad)
        fprintf(stderr, "transpose_ladder: %s: %zu of %zu elements wrong at N = %d\n", name, bad,
                count, n);
    return bad != 0;
}

int main(int argc, char **argv)
{
    int k = argc >= 3 ? atoi(argv[1]) : 0, n = argc >= 3 ? atoi(argv[2]) : 0;
    int verify = argc == 4 && !strcmp(argv[3], "--check");
    if (k < 1 || k > RUNGS || n < 64 || n % 64 || n > 32768 || (argc == 4 && !verify) || argc > 4 ||
        (verify && n > 4096)) {
        fprintf(stderr,
                "usage: transpose_ladder KERNEL N [--check] (KERNEL 1-%d, N a multiple "
                "of 64 up to 32768, 4096 with --check)\n",
                (int)RUNGS);
        return 2;
    }
    size_t count = (size_t)n * n, bytes = count * sizeof(float);
    float *din, *dout;
    if (cudaMalloc(&din, bytes) || cudaMalloc(&dout, bytes) || cudaMemset(din, 0, bytes)) {
        fprintf(stderr, "transpose_ladder: cannot allocate two %d x %d float matrices\n", n, n);
        return 1;
    }
    if (verify) {
        std::vector<float> in(count);
        for (size_t i = 0; i < count; i++)
            in[i] = value(i);
        if (cudaMemcpy(din, in.data(), bytes, cudaMemcpyHostToDevice))
            return 1;
    }
    const rung &r = ladder[k - 1];
    dim3 grid(n / r.tile, n / r.tile), block(r.bx, r.by);
    r.kernel<<<grid, block>>>(din, dout, n);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "transpose_ladder: %s: %s\n", r.name, cudaGetErrorString(err));
        return 1;
    }
    return verify ? check(dout, n, r.name) : 0;
}
