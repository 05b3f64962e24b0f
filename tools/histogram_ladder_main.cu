/**
 * @file histogram_ladder_main.cu
 * @brief One run of one kernel of Yen Cal's 256-bin histogram ladder (github.com/yencal/
 *        gpu-histogram-optimization), for the time model's validation: tools/histogram_ladder.sh
 *        builds it against a checkout of that repository, whose code this course does not hold.
 *
 *   histogram_ladder KERNEL N [--check]   runs kernel KERNEL once on N random bytes, as the
 *                                         checkout's main() launches it on an H100 (blocks of 512
 *                                         threads, a grid of the smaller of N / 512 and 132 SMs
 *                                         times 32): 1 global atomics, 2 a shared histogram a
 *                                         block, 3 the same with 16-byte loads, 4 CUB's
 *                                         DeviceHistogram::HistogramEven (its two kernels)
 *
 * The bytes are uniform, as the checkout's cuRAND bytes are: a histogram's atomics wait on one
 * another by the bins they hit, so the input's distribution is part of the workload. With
 * --check the histogram is compared with the host's: the emulator's run must be right before its
 * estimate means anything (under the time model's sampling only some blocks run, so the check
 * is for runs without COURSE_EMU_MODEL).
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include "histogram_kernels.cuh"

enum {
    THREADS = 512,
    BINS = 256,
    H100_SMS = 132, /* the checkout's grid is its GPU's SMs times 32 */
    LAST = 4
};

/* Kernel @p k (1-4) on @p n bytes at @p data into @p bins (zeroed first); 0, or the error. */
static cudaError_t launch(int k, const unsigned char *data, int n, int *bins)
{
    cudaError_t err = cudaMemset(bins, 0, BINS * sizeof(int));
    if (err != cudaSuccess)
        return err;
    if (k == LAST) {
        size_t temp_bytes = 0;
        const int levels = BINS + 1, lower = 0, upper = BINS; /* ints, as the checkout's */
        cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, data, bins, levels, lower, upper,
                                            n);
        void *temp = nullptr;
        if ((err = cudaMalloc(&temp, temp_bytes)) != cudaSuccess)
            return err;
        cub::DeviceHistogram::HistogramEven(temp, temp_bytes, data, bins, levels, lower, upper, n);
        err = cudaDeviceSynchronize();
        cudaFree(temp);
        return err;
    }
    void (*const kernels[])(const unsigned char *, int, int *) = {
        HistogramGlobalAtomic<BINS>, HistogramSharedAtomic<BINS>, HistogramSharedAtomicVec<BINS>};
    int grid = std::min((n + THREADS - 1) / THREADS, H100_SMS * 32);
    kernels[k - 1]<<<grid, THREADS>>>(data, n, bins);
    return cudaDeviceSynchronize();
}

int main(int argc, char **argv)
{
    int k = argc >= 3 ? atoi(argv[1]) : 0;
    long long n = argc >= 3 ? atoll(argv[2]) : 0;
    int verify = argc == 4 && !strcmp(argv[3], "--check");
    if (k < 1 || k > LAST || n < 1 || n > (1ll << 30) || (argc == 4 && !verify) || argc > 4) {
        fprintf(stderr, "usage: histogram_ladder KERNEL N [--check] (KERNEL 1-%d, N 1 to 2^30)\n",
                (int)LAST);
        return 2;
    }
    /* Uniform bytes from a 64-bit xorshift, the top byte of each step. */
    std::vector<unsigned char> bytes((size_t)n);
    std::vector<long long> want(BINS, 0);
    unsigned long long x = 88172645463325252ull;
    for (size_t i = 0; i < bytes.size(); i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bytes[i] = (unsigned char)(x >> 56);
        want[bytes[i]]++;
    }
    unsigned char *data;
    int *bins;
    if (cudaMalloc(&data, bytes.size()) || cudaMalloc(&bins, BINS * sizeof(int)) ||
        cudaMemcpy(data, bytes.data(), bytes.size(), cudaMemcpyHostToDevice)) {
        fprintf(stderr, "histogram_ladder: cannot place %lld bytes on the device\n", n);
        return 1;
    }
    cudaError_t err = launch(k, data, (int)n, bins);
    if (err != cudaSuccess) {
        fprintf(stderr, "histogram_ladder: kernel %d: %s\n", k, cudaGetErrorString(err));
        return 1;
    }
    if (!verify)
        return 0;
    std::vector<int> got(BINS);
    if (cudaMemcpy(got.data(), bins, BINS * sizeof(int), cudaMemcpyDeviceToHost))
        return 1;
    for (int b = 0; b < BINS; b++)
        if (got[b] != want[b]) {
            fprintf(stderr,
                    "histogram_ladder: kernel %d: bin %d of %lld bytes holds %d, want %lld\n", k, b,
                    n, got[b], want[b]);
            return 1;
        }
    return 0;
}
