/**
 * @file cpu_reference.c
 * @brief Lesson 01: C = A * B on the CPU, three loop orders.
 *
 * Row-major float, any M, N, K. Versions, in order:
 *   matmul_naive      i, j, k: one dot product per element of C; B read down columns
 *   matmul_reordered  i, k, j: the same arithmetic, every inner access contiguous
 *   matmul_blocked    i, k, j over tiles that fit in cache (their sizes: the exercise's
 *                     open design task)
 * All three do 2 * M * N * K floating-point operations; they differ only in
 * the order they touch memory, which is the whole lesson.
 */
#include "cpu_reference.h"

#include <stddef.h>

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

void matmul_naive(int M, int N, int K, const float *A, const float *B, float *C)
{
    // Each C[i][j] is the dot product of row i of A with column j of B.
    // Consecutive k step through B by N floats: a new cache line every time.
    // BEGIN SOLUTION
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            float sum = 0.0f;
            for (int k = 0; k < K; k++)
                sum += A[(size_t)i * K + k] * B[(size_t)k * N + j];
            C[(size_t)i * N + j] = sum;
        }
    }
    // END SOLUTION
}

void matmul_reordered(int M, int N, int K, const float *A, const float *B, float *C)
{
    // Swap the two inner loops: for each A[i][k], add A[i][k] * (row k of B)
    // to row i of C. Zero row i of C first, since it now accumulates in place.
    // BEGIN SOLUTION
    for (int i = 0; i < M; i++) {
        float *c = C + (size_t)i * N; /* row i of C */
        for (int j = 0; j < N; j++)
            c[j] = 0.0f;
        for (int k = 0; k < K; k++) {
            float a = A[(size_t)i * K + k];
            const float *b = B + (size_t)k * N; /* row k of B */
            for (int j = 0; j < N; j++)
                c[j] += a * b[j];
        }
    }
    // END SOLUTION
}

void matmul_blocked(int M, int N, int K, const float *A, const float *B, float *C)
{
    // Your design: C = A * B, the same sums as matmul_reordered, computed tile by tile, with
    // tile sizes (and a loop order inside a tile) you choose so that the part of B a tile
    // reuses stays in cache. Any M, N, K: the last tile of each dimension may be partial.
    // BEGIN SOLUTION
    /* A BLOCK_K x BLOCK_J tile of B is 128 * 256 * 4 bytes = 128 KiB: it stays in a typical
     * 256 KiB to 2 MiB L2 while BLOCK_I rows of A stream past it. */
    enum { BLOCK_I = 64, BLOCK_K = 128, BLOCK_J = 256 };
    for (size_t e = 0; e < (size_t)M * N; e++)
        C[e] = 0.0f;
    for (int i0 = 0; i0 < M; i0 += BLOCK_I) {
        int i1 = min_int(i0 + BLOCK_I, M);
        for (int k0 = 0; k0 < K; k0 += BLOCK_K) {
            int k1 = min_int(k0 + BLOCK_K, K);
            for (int j0 = 0; j0 < N; j0 += BLOCK_J) {
                int j1 = min_int(j0 + BLOCK_J, N);
                for (int i = i0; i < i1; i++) {
                    float *c = C + (size_t)i * N;
                    for (int k = k0; k < k1; k++) {
                        float a = A[(size_t)i * K + k];
                        const float *b = B + (size_t)k * N;
                        for (int j = j0; j < j1; j++)
                            c[j] += a * b[j];
                    }
                }
            }
        }
    }
    // END SOLUTION
}
