/**
 * @file test_model_main.c
 * @brief One copy of N floats on the device, the same in blocks of 32 threads, blocks of 32 threads
 * held to two an SM by their shared memory, one warp alone, one
 * shared-memory round trip, a tile's rows read a column at a time, four loads per thread in flight
 * together, then chained, then of one address in flight together (N / 4 threads), N atomic
 * additions to one address (fp32, integer to an address read from memory, integer to a
 * parameter's), N integer additions of which half go to one of 256 counters, a tile loop (4 blocks,
 * 64 tiles of 256 floats) loaded then used, as a cp.async pipeline and copied with cp.async in one
 * stage, the first with 264 blocks (16 tiles, two blocks an SM), and a TMA + wgmma tile loop (2
 * blocks, 32 tiles) in one stage, MODEL_TMA_DEPTH stages, warp-specialised and in fp8, 132 blocks
 * of 32 warps that all read one row at each step (256 steps), 132 blocks of 8 tiles of 32 KiB
 * loaded then used and prefetched, 4000 blocks whose work differs, f64 arithmetic and mma.sync,
 * ex2, short blocks that copy one tile through shared memory (1024 and 256 threads), blocks that
 * read their floats, reduce them and read them again, shared atomics whose lanes share an
 * address, spread over the banks or share a bank (and share an address, adding a loaded value),
 * and a copy
 * in clusters of two blocks and as a cooperative grid, for
 * test_model.sh (the time model's test); with "reread", only 48 MiB of x read twice,
 * half a grid apart (N >= 12 Mi); with "shared", only 132 blocks that each read the same MiB of x
 * (N >= 256 Ki).
 *
 *   test_model N [reread|shared]   (N >= 1024)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "test_model.h"
#include "test_model_hopper.h"

/* Every kernel but model_reread, on n floats of x and y. */
static void run_all(int n, float *d_x, float *d_y)
{
    size_t bytes = (size_t)n * sizeof(float);
    model_copy(n, d_x, d_y);
    model_small_blocks(n, d_x, d_y);
    if (n >= 132 * 2 * 64 * 32) /* 64 rounds of 2 blocks on each of the h100's SMs */
        model_held_blocks(132 * 2 * 64, d_y);
    model_lone_warp(d_x, d_y);
    model_smem(d_x, d_y);
    model_rows(d_x, d_y);
    for (int how = MODEL_LOADS_BATCH; how <= MODEL_LOADS_REPEATED; how++)
        model_loads(n / 4, d_x, d_y, (enum model_loads_how)how);
    model_atomic(n, d_y);
    model_counter(n, (const unsigned *)d_x, (unsigned *)d_y); /* x zero: every bin 0 */
    model_hot_bin(n, (const unsigned *)d_x, (unsigned *)d_y);
    model_warp_total(n, (const unsigned *)d_x, (unsigned *)d_y);
    int tiles = n / 1024 < 64 ? n / 1024 : 64; /* 4 blocks of 256 floats a tile, within x */
    model_tiles(4, tiles, d_x, d_y, 0);
    model_tiles(4, tiles, d_x, d_y, 1);
    model_tiles(4, tiles, d_x, d_y, 2);
    if (n >= 264 * 16 * 256) /* two blocks on each of the h100's 132 SMs, 16 tiles */
        model_tiles(264, 16, d_x, d_y, 0);
    int tma_tiles = (int)(bytes / (64 * 64 * 2)) < 32 ? (int)(bytes / (64 * 64 * 2)) : 32;
    for (int v = MODEL_TMA_ONE_STAGE; n >= 2 * 4096 && v <= MODEL_TMA_FP8; v++)
        model_tma_gemm(v, 2, tma_tiles, d_x, d_x, d_y); /* A = B = x; C: y's first 2 * 4096 */
    if (n >= 132 * 1024) /* one block of 32 warps on each of the h100's SMs */
        model_convoy(132, 256, d_x, d_y);
    for (int prefetch = 0; n >= 132 * 8 * 8192 && prefetch <= 1; prefetch++)
        model_big_tiles(132, 8, d_x, d_y, prefetch); /* one block an SM, 8 tiles of 32 KiB */
    if (n >= 4000 * 256) /* 3.8 waves of 8 blocks an SM on the h100, whose work differs */
        model_ragged(4000, d_x, d_y);
    for (int threads = 1024; n >= 1 << 22 && threads >= 256; threads /= 4)
        model_rounds(n, threads, d_x, d_y); /* 2 blocks an SM on the h100, then 8 */
    if (n >= 1 << 22)
        model_tree(n, d_x, d_y); /* 8 blocks an SM, as model_rounds' second */
    if (n >= 1 << 22)
        model_norm(n, d_x, d_y); /* 8 blocks an SM: a row read, reduced and read again */
    if (n >= 1 << 24) {          /* 2^18 threads read 4 floats: lanes 1, 12 and 33 floats apart */
        model_strided(1 << 18, 1, 1 << 18, 4, d_x, d_y);
        model_strided(1 << 18, 12, 1, 4, d_x, d_y);
        model_strided(1 << 18, 33, 1, 4, d_x, d_y);
        model_strided(1 << 19, 1, 1 << 19, 32, d_x, d_y); /* 64 MiB read, 2 MiB written */
    }
    /* {stride, loaded}: lanes on one address, 32 banks, one bank; one address, a loaded 1 */
    static const int atomics[4][2] = {{0, 0}, {1, 0}, {32, 0}, {0, 1}};
    for (int a = 0; n >= 1 << 16 && a < 4; a++)
        model_shared_atomics(1 << 16, atomics[a][0], atomics[a][1], d_x, d_y);
    model_resident_copies(n, d_x, d_y);
    model_units();
}

int main(int argc, char **argv)
{
    int n = argc >= 2 ? atoi(argv[1]) : 0;
    int reread = argc == 3 && !strcmp(argv[2], "reread");
    int shared = argc == 3 && !strcmp(argv[2], "shared");
    if (n < (reread   ? 192 * 65536
             : shared ? 262144
                      : 1024) ||
        argc > 3 || (argc == 3 && !reread && !shared)) {
        fprintf(stderr, "usage: test_model N [reread|shared]   (N >= 1024, with reread N >= "
                        "12582912, with shared N >= 262144)\n");
        return 2;
    }
    float *d_x, *d_y;
    size_t bytes = (size_t)n * sizeof(float);
    if (cudaMalloc((void **)&d_x, bytes) || cudaMalloc((void **)&d_y, bytes) ||
        cudaMemset(d_x, 0, bytes)) {
        fprintf(stderr, "test_model: cannot allocate %d floats twice\n", n);
        return 1;
    }
    if (reread)
        model_reread(384, 192, 65536, d_x, d_y); /* 192 chunks of 256 KiB: 48 MiB, twice */
    else if (shared)
        model_reread(132, 1, 262144, d_x, d_y); /* one chunk of 1 MiB, 132 times */
    else
        run_all(n, d_x, d_y);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "test_model: %s\n", cudaGetErrorString(err));
        return 1;
    }
    cudaFree(d_x);
    cudaFree(d_y);
    return 0;
}
