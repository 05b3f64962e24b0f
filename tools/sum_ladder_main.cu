/**
 * @file sum_ladder_main.cu
 * @brief One run of one kernel of Simon Veitner's vector-sum ladder (github.com/simveit/
 *        effective_reduction), for the time model's validation: tools/sum_ladder.sh builds it
 *        against a checkout of that repository, whose code this course does not hold.
 *
 *   sum_ladder KERNEL N [--check]   runs kernel KERNEL (0-9: the checkout's kernel_KERNEL.cu)
 *                                   once on N ints, through the launch function and with the
 *                                   template arguments the checkout's main() uses (512 threads a
 *                                   block; 12 ints a thread from kernel 3 on; kernel 5 is CUB's
 *                                   DeviceReduce::Sum)
 *
 * With --check the input is varied and the sum is compared with the host's: the emulator's run
 * must be right before its estimate means anything. Under the time model's sampling only some
 * blocks run, so the check is for runs without COURSE_EMU_MODEL; a run without --check leaves
 * the input as cudaMemset made it (a sum reads the same bytes whatever they hold). The
 * checkout's int4 kernels (4, 8, 9) read whole batches past N when N is not a multiple of a
 * block's 6144 ints, as its own main() does at 2^30; the input has that much room after its N
 * ints, as the GPU's allocation granularity gives it there.
 */
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

/* Each kernel_K.cu is a whole program. Its main() is renamed, and each file goes into a
 * namespace of its own, where their warm-up kernels do not collide; the headers they include
 * are included above, so their guards keep them out of the namespaces. */
#define main upstream_main
namespace k0
{
#include "kernel_0.cu"
}
namespace k1
{
#include "kernel_1.cu"
}
namespace k2
{
#include "kernel_2.cu"
}
namespace k3
{
#include "kernel_3.cu"
}
namespace k4
{
#include "kernel_4.cu"
}
namespace k5
{
#include "kernel_5.cu"
}
namespace k6
{
#include "kernel_6.cu"
}
namespace k7
{
#include "kernel_7.cu"
}
namespace k8
{
#include "kernel_8.cu"
}
namespace k9
{
#include "kernel_9.cu"
}
#undef main

enum { THREADS = 512, BATCH = 12, BLOCK_INTS = THREADS * BATCH };

/* The launch functions, with the template arguments the checkout's main() gives them. Kernels 0
 * and 1 sum into one int a block (first) and then sum those in one block; the others add into
 * out. */
typedef void TwoPasses(const int *, int *, int *, size_t);
typedef void OnePass(const int *, int *, size_t);
static TwoPasses *const two_passes[] = {k0::kernel_0_launch<THREADS>, k1::kernel_1_launch<THREADS>};
static OnePass *const one_pass[] = {
    k2::kernel_2_launch<THREADS>,        k3::kernel_3_launch<THREADS, BATCH>,
    k4::kernel_4_launch<THREADS, BATCH>, k5::kernel_5_launch,
    k6::kernel_6_launch<THREADS, BATCH>, k7::kernel_7_launch<THREADS, BATCH>,
    k8::kernel_8_launch<THREADS, BATCH>, k9::kernel_9_launch<THREADS, BATCH>};
enum {
    TWO_PASSES = sizeof two_passes / sizeof two_passes[0],
    LAST = TWO_PASSES + sizeof one_pass / sizeof one_pass[0] - 1 /* the last kernel's number */
};

/* Kernel @p k's launch function, as the checkout's main() calls it. */
static void launch(int k, const int *in, int *first, int *out, size_t n)
{
    if (k < TWO_PASSES)
        two_passes[k](in, first, out, n);
    else
        one_pass[k - TWO_PASSES](in, out, n);
}

/* A value from -99 to 99 that varies along the input, so that a kernel that skips, repeats or
 * misplaces elements changes the sum. */
static int value(size_t i)
{
    return (int)((i * 2654435761u) % 199u) - 99;
}

/* Fills the input with value(i) and compares the device's sum with the host's; 0 when equal. */
static int check(int k, int *din, int *first, int *dout, size_t n)
{
    std::vector<int> in(n);
    long long want = 0;
    for (size_t i = 0; i < n; i++)
        want += in[i] = value(i);
    int got = 0;
    if (cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice) ||
        cudaMemset(dout, 0, sizeof(int)))
        return 1;
    launch(k, din, first, dout, n);
    if (cudaMemcpy(&got, dout, sizeof(int), cudaMemcpyDeviceToHost))
        return 1;
    if (got != (int)want)
        fprintf(stderr, "sum_ladder: kernel %d: sum of %zu ints %d, want %lld\n", k, n, got, want);
    return got != (int)want;
}

int main(int argc, char **argv)
{
    int k = argc >= 3 ? atoi(argv[1]) : -1;
    long long n = argc >= 3 ? atoll(argv[2]) : 0;
    int verify = argc == 4 && !strcmp(argv[3], "--check");
    if (k < 0 || k > LAST || n < 1 || n > (1ll << 30) || (argc == 4 && !verify) || argc > 4 ||
        (verify && n > (1 << 24))) {
        fprintf(stderr,
                "usage: sum_ladder KERNEL N [--check] (KERNEL 0-%d, N 1 to 2^30, 2^24 "
                "with --check)\n",
                (int)LAST);
        return 2;
    }
    size_t bytes = ((size_t)n + BLOCK_INTS) * sizeof(int), blocks = (n + THREADS - 1) / THREADS;
    int *din, *first, *dout;
    if (cudaMalloc(&din, bytes) || cudaMalloc(&first, blocks * sizeof(int)) ||
        cudaMalloc(&dout, sizeof(int)) || cudaMemset(din, 0, bytes)) {
        fprintf(stderr, "sum_ladder: cannot allocate %lld ints\n", n);
        return 1;
    }
    if (verify)
        return check(k, din, first, dout, (size_t)n);
    launch(k, din, first, dout, (size_t)n);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "sum_ladder: kernel %d: %s\n", k, cudaGetErrorString(err));
        return 1;
    }
    return 0;
}
