/**
 * @file mma_ladder_main.cu
 * @brief One launch of one kernel of Thien Tran's (gau-nernst) BF16 mma.sync GEMM ladder on
 *        Ampere, for the time model's validation (tools/mma_ladder.sh builds it against a checkout
 *        of github.com/gau-nernst/learn-cuda, whose code this course does not hold).
 *
 *   mma_ladder KERNEL SIZE [--check]   runs kernel KERNEL (1-7: the checkout's matmul_v1 to
 *                                      matmul_v6 and matmul_v6b) once on SIZE x SIZE x SIZE
 *                                      bf16 matrices (A row-major, B column-major, as its README
 *                                      says), SIZE a multiple of 128
 *
 * With --check the inputs are varied and 97 entries of C, spread over it and its corners, are
 * compared with a double-precision dot product on the host: the emulator's run of the kernel
 * must be right before its estimate means anything. Under the time model's sampling only some
 * blocks run, so the check is for runs without COURSE_EMU_MODEL.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

/* The checkout's launchers (its 02b_matmul_sm80/matmul.cpp declares them the same way). */
typedef void MatmulFn(const nv_bfloat16 *A, const nv_bfloat16 *B, nv_bfloat16 *C, int M, int N,
                      int K);
MatmulFn matmul_v1, matmul_v2, matmul_v3, matmul_v4, matmul_v5, matmul_v6, matmul_v6b;

/* A value in [-1, 1) that varies with @p i and @p salt, exact in bf16. */
static float value(size_t i, unsigned salt)
{
    unsigned h = (unsigned)(i * 2654435761u) ^ (salt * 40503u);
    h ^= h >> 13;
    return (float)((int)(h % 256) - 128) / 128.0f;
}

/* 97 entries of C against a double dot product of the inputs; 0 when all are within bf16's
 * rounding of the result (a relative 1/128, or 1/128 absolute near zero). */
static int check(const std::vector<float> &a, const std::vector<float> &b, const nv_bfloat16 *dc,
                 int n)
{
    std::vector<nv_bfloat16> c((size_t)n * n);
    if (cudaMemcpy(c.data(), dc, c.size() * sizeof c[0], cudaMemcpyDeviceToHost))
        return 1;
    int bad = 0;
    for (int t = 0; t < 97; t++) {
        int row = t < 4 ? (t & 1) * (n - 1) : (int)((t * 7919u) % (unsigned)n);
        int col = t < 4 ? (t >> 1) * (n - 1) : (int)((t * 104729u) % (unsigned)n);
        double want = 0;
        for (int k = 0; k < n; k++)
            want += (double)a[(size_t)row * n + k] * b[(size_t)col * n + k];
        double got = __bfloat162float(c[(size_t)row * n + col]);
        if (fabs(got - want) > fabs(want) / 128 + 1.0 / 128 && bad++ < 3)
            fprintf(stderr, "mma_ladder: C[%d][%d] = %g, want %g\n", row, col, got, want);
    }
    if (bad)
        fprintf(stderr, "mma_ladder: %d of 97 entries of C wrong\n", bad);
    return bad != 0;
}

int main(int argc, char **argv)
{
    int kernel = argc >= 3 ? atoi(argv[1]) : 0, n = argc >= 3 ? atoi(argv[2]) : 0;
    int verify = argc == 4 && !strcmp(argv[3], "--check");
    if (kernel < 1 || kernel > 7 || n < 128 || n % 128 || (argc == 4 && !verify) || argc > 4) {
        fprintf(stderr, "usage: mma_ladder KERNEL SIZE [--check] (KERNEL 1-7, SIZE a multiple of "
                        "128)\n");
        return 2;
    }
    size_t count = (size_t)n * n, bytes = count * sizeof(nv_bfloat16);
    std::vector<float> a(count), b(count);
    std::vector<nv_bfloat16> host(count);
    nv_bfloat16 *da, *db, *dc;
    if (cudaMalloc(&da, bytes) || cudaMalloc(&db, bytes) || cudaMalloc(&dc, bytes) ||
        cudaMemset(dc, 0, bytes)) {
        fprintf(stderr, "mma_ladder: cannot allocate three %d x %d bf16 matrices\n", n, n);
        return 1;
    }
    for (int m = 0; m < 2; m++) {
        std::vector<float> &v = m ? b : a;
        for (size_t i = 0; i < count; i++)
            host[i] = __float2bfloat16(v[i] = verify ? value(i, m + 1) : 0.0f);
        if (cudaMemcpy(m ? db : da, host.data(), bytes, cudaMemcpyHostToDevice))
            return 1;
    }
    MatmulFn *launch[] = {matmul_v1, matmul_v2, matmul_v3, matmul_v4,
                          matmul_v5, matmul_v6, matmul_v6b};
    launch[kernel - 1](da, db, dc, n, n, n);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "mma_ladder: kernel %d: %s\n", kernel, cudaGetErrorString(err));
        return 1;
    }
    return verify ? check(a, b, dc, n) : 0;
}
