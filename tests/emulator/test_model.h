/**
 * @file test_model.h
 * @brief The time model's test kernels (test_model_kernels.cu).
 */
#ifndef TEST_MODEL_H
#define TEST_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

/** y = x, n floats, blocks of 256 threads. */
void model_copy(int n, const float *d_x, float *d_y);

/** The same copy in blocks of 32 threads: n / 32 blocks, started at the GPU's rate. */
void model_small_blocks(int n, const float *d_x, float *d_y);

/** y[i] = i % 32, blocks of 32 threads with 80 KiB of shared memory each (2 an SM on h100). */
void model_held_blocks(int blocks, float *d_y);

/** y[i] = x[i] * x[i] + x[i], i < 32: one block of one warp. */
void model_lone_warp(const float *d_x, float *d_y);

/** y[t] = x[4t] + ... + x[4t + 3] through shared memory, t < 256 (one block of 256). */
void model_smem(const float *d_x, float *d_y);

/** y[t] = the sum of x[0 .. 31] through a shared tile of 8 rows of 4 floats, read a column at a
 *  time by one warp, t < 32. */
void model_rows(const float *d_x, float *d_y);

/** How model_loads() issues its four loads. */
enum model_loads_how {
    MODEL_LOADS_BATCH,    /**< four addresses, the loads in flight together */
    MODEL_LOADS_CHAINED,  /**< the same addresses, each waiting for the previous value */
    MODEL_LOADS_REPEATED, /**< x[t] four times, in flight together: one miss, three hits */
};

/** y[t] = x[t] + x[t + n] + x[t + 2n] + x[t + 3n], t < n (x zero: 4n floats), the loads
 *  issued as @p how says (MODEL_LOADS_REPEATED: y[t] = 4 x[t]). */
void model_loads(int n, const float *d_x, float *d_y, enum model_loads_how how);

/** n atomic additions of 1 to *y. */
void model_atomic(int n, float *d_y);

/** counts[bin[t]] += 1 atomically, t < n. */
void model_counter(int n, const unsigned *d_bin, unsigned *d_counts);

/** counts[bin[t]] += 1 atomically for odd t, counts[bin[t] + 1 + (t / 2) % 255] for even t. */
void model_hot_bin(int n, const unsigned *d_bin, unsigned *d_counts);

/** *sum += x[t] atomically, t < n. */
void model_warp_total(int n, const unsigned *d_x, unsigned *d_sum);

/** y[b * 256 + t] = the sum over tiles k of work(x[(k * blocks + b) * 256 + t + 1 mod 256]), each
 *  tile staged in shared memory, b < blocks; loaded then used, or (@p async) a cp.async
 *  pipeline two stages deep. x holds tiles * blocks * 256 floats. */
void model_tiles(int blocks, int tiles, const float *d_x, float *d_y, int async);

/** y[b * 1024 + t] = the sum over steps k of x[k * 32 + t % 32] / 2^(steps - 1 - k), b < blocks:
 *  every warp of a block of 1024 reads the same 32 floats at each step. x holds steps * 32
 *  floats. */
/** 32 KiB tiles, each loaded just before it is staged in shared memory, or (@p prefetch)
 *  loaded into registers while the tile before it is worked on. */
void model_big_tiles(int blocks, int tiles, const float *d_x, float *d_y, int prefetch);
void model_convoy(int blocks, int steps, const float *d_x, float *d_y);

/** y[b * 256 + t] = the sum of chunk b % chunks of x (per_block floats, a multiple of 256) over
 *  thread t's floats of it, b < blocks: block b reads block b - chunks's bytes again. x holds
 *  chunks * per_block floats, y blocks * 256. */
void model_reread(int blocks, int chunks, int per_block, const float *d_x, float *d_y);

/** The FP64 units, f64 Tensor Cores and special function units, each alone: 132 blocks of 256
 *  threads, each thread 512 fma.rn.f64 (written as such) on a value of its own; 132 blocks of one
 *  warp, each 64 mma.sync m8n8k4 f64 (512 flops each); 132 blocks of 256 threads, each thread 512
 *  ex2.approx.f32. */
void model_units(void);

/** y[b * 256 + t] = (b % 7) * x[b * 256 + t], b < blocks (blocks of 256 threads). */
void model_ragged(int blocks, const float *d_x, float *d_y);

/** Short blocks of @p threads (a multiple of 32, at most 1024) that each copy one tile of x
 *  through shared memory and exit: y[i] = x[i + 1 within its block], n floats. */
void model_rounds(int n, int threads, const float *d_x, float *d_y);

/** A tree reduction in blocks of 256 threads: y[b] = the sum of x[b * 256 ...], 8 steps a block,
 *  each after a barrier, for n / 256 blocks. */
void model_tree(int n, const float *d_x, float *d_y);

/** An RMSNorm of rows of 256 floats, a block of 256 threads a row: y[i] = x[i ^ 1] over the root
 *  mean square of its row of x, which each block reads, reduces (warp shuffles, one barrier) and
 *  reads again (two load phases of different code), for n / 256 blocks. */
void model_norm(int n, const float *d_x, float *d_y);

/** @p threads threads in blocks of 256: thread t sums x[t * lane + j * step] for j below @p reads
 *  into y[t]. A warp's loads are 32 lanes @p lane floats apart. */
void model_strided(int threads, int lane, int step, int reads, const float *d_x, float *d_y);

/** @p threads threads in blocks of 256, each adding 1 to 64 consecutive counters of a shared
 *  array of 1024 with atomicAdd, from counter (lane * @p stride) (x holds zeros, which the
 *  address adds): a warp's lanes on one address (0), 32 banks (1) or one bank (32); the
 *  increment the immediate 1, or with @p loaded 1 plus a float of x. */
void model_shared_atomics(int threads, int stride, int loaded, const float *d_x, float *d_y);

#ifdef __cplusplus
}
#endif

#endif /* TEST_MODEL_H */
