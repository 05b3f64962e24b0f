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
    // TODO
}

void matmul_reordered(int M, int N, int K, const float *A, const float *B, float *C)
{
    // Swap the two inner loops: for each A[i][k], add A[i][k] * (row k of B)
    // to row i of C. Zero row i of C first, since it now accumulates in place.
    // TODO
}

void matmul_blocked(int M, int N, int K, const float *A, const float *B, float *C)
{
    // Your design: C = A * B, the same sums as matmul_reordered, computed tile by tile, with
    // tile sizes (and a loop order inside a tile) you choose so that the part of B a tile
    // reuses stays in cache. Any M, N, K: the last tile of each dimension may be partial.
    // TODO
}
