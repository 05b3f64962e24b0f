/**
 * @file test_programs.h
 * @brief Small CUDA programs of the project's own, one per PTX family a course program
 *        compiles to (test_programs_kernels.cu), behind C launchers that return the launch's
 *        error after a cudaDeviceSynchronize; test_programs.c checks each against the host.
 */
#ifndef TEST_PROGRAMS_H
#define TEST_PROGRAMS_H

#include <cuda_runtime.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The slots every atomic type updates: add, min, max, and, or, xor (the last three only for
 *  integers), in global memory and in one block's shared memory, copied out by thread 0. */
enum { PROG_ATOM_OPS = 6 };

/** What the atomics program leaves, per type: global slots, then block 0's shared slots. */
struct prog_atomics {
    int i32[2][PROG_ATOM_OPS];
    unsigned u32[2][PROG_ATOM_OPS];
    long long i64[2][PROG_ATOM_OPS];
    unsigned long long u64[2][PROG_ATOM_OPS];
    float f32[2][2]; /**< add, and a CAS-loop max */
    double f64[2][2];
    unsigned inc, dec;          /**< atomicInc / atomicDec with a wrap limit */
    int exch_sum, exch_slot;    /**< the sum of what atomicExch returned; the value it left */
    int block_scope, sys_scope; /**< atomicAdd_block on shared, atomicAdd_system on global */
    int generic;                /**< atomicAdd through a pointer that is shared or global */
};

/** Every thread i of @p n (blocks of 128) applies in[i] with every operation to @p out, whose
 *  slots the caller initialised; inc/dec wrap at 17. */
cudaError_t prog_atomics(const int *d_in, int n, struct prog_atomics *d_out);

/** out[t] = sum over k < 9 of (k + 1) in[(t + k) % n], plus 10 in[(t + 9) % n] * 2^20, by a
 *  __noinline__ device function of ten arguments. */
cudaError_t prog_ten_args(const int *d_in, int n, long long *d_out);

/** The sum of in[0 .. n): per-block partial sums, __threadfence, and the last block (found
 *  with a release/acquire counter) adds them up; *out = the sum, *last = that block's id. */
cudaError_t prog_fence_sum(const int *d_in, int n, int *d_partial, unsigned *d_count, int *d_out,
                           int *d_last);

/** For tile sizes 2, 4, 8, 16, 32 (cooperative groups' tiled_partition, one block of @p n
 *  threads): out[s * n + t] = cg::reduce of in over t's tile + 1000 * the tile's meta-group
 *  rank; ballot[s * n + t] = the tile's ballot of in odd; coalesced[t] = the sum over the
 *  coalesced group of the threads with in even (0 for the others). */
cudaError_t prog_tiles(const int *d_in, int n, int *d_out, unsigned *d_ballot, int *d_coalesced);

/** out[i] = in[i] * 2 + 1 for @p n values, staged through shared memory by cp.async in
 *  tiles of 256 with two groups in flight (commit_group, wait_group 1, wait_all). */
cudaError_t prog_cp_async(const int *d_in, int n, int *d_out);

/** One block of 256 threads with @p bytes of dynamic shared memory (above 48 KiB: asked for
 *  with cudaFuncSetAttribute): word w = in[w], out[w] = the shared word at words - 1 - w. */
cudaError_t prog_big_smem(const int *d_in, int *d_out, int bytes);

/** The math library in fp32 and fp64 over @p n inputs in [-10, 10): f[k * n + i] and
 *  d[k * n + i] for the functions test_programs.c lists in order. */
enum { PROG_MATH_F = 17, PROG_MATH_D = 8 };
cudaError_t prog_math(const float *d_x, const double *d_dx, int n, float *d_f, double *d_d);

/** bmsk.clamp and bmsk.wrap of (a[i], b[i]) into clamp[i] and wrap[i], for @p n pairs, in a
 *  kernel that begins with griddepcontrol.wait and .launch_dependents. */
cudaError_t prog_bmsk(const unsigned *d_a, const unsigned *d_b, unsigned *d_clamp, unsigned *d_wrap,
                      int n);

/** 16-bit div, rem, min and max, signed and unsigned, of (a[i], b[i]): out[8 i + k] for k in
 *  div.s16, rem.s16, min.s16, max.s16, div.u16, rem.u16, min.u16, max.u16. */
cudaError_t prog_int16(const uint16_t *d_a, const uint16_t *d_b, uint16_t *d_out, int n);

/** The leading dimension, in elements, of every wmma matrix below (row-major). */
enum { PROG_WMMA_LD = 32 };

/** wmma D = A * B + C, one warp: m8n8k4 in f64 (A 8x4, B 4x8, C and D 8x8). */
cudaError_t prog_wmma_f64(const double *d_a, const double *d_b, const double *d_c, double *d_d);

/** wmma D = A * B + C with 8-bit inputs (both signed, or with @p is_unsigned both unsigned)
 *  and s32 accumulators, one warp, for shape @p shape (0 m16n16k16, 1 m32n8k16, 2 m8n32k16). */
cudaError_t prog_wmma_int8(int shape, const void *d_a, const void *d_b, const int *d_c, int *d_d,
                           int is_unsigned);

/** wmma m16n16k16 s8 D = A * B + C, one warp, through mma_sync(..., satf = true) when @p satf
 *  (PTX .satfinite: s32 sums clamped), else the plain one (wrapped). */
cudaError_t prog_wmma_s8_satf(int satf, const void *d_a, const void *d_b, const int *d_c, int *d_d);

/** Device malloc through new[]: thread i of @p n allocates 1 + |in[i]| % 7 ints holding
 *  in[i] * (j + 1) and leaves the pointer in slots[i]; null[i] = 1 when a malloc of 1 TiB
 *  returned NULL (it is then freed: a no-op). */
cudaError_t prog_heap_fill(const int *d_in, int n, int **d_slots, int *d_null);

/** A later launch: out[i] = the sum of slots[i]'s ints, then delete[] slots[i]. */
cudaError_t prog_heap_sum(int **d_slots, int n, const int *d_in, int *d_out);

/** Recursive device functions: fibs[i] = fib(|in[i]| % 13) (two calls a level) and sums[i] =
 *  the sum of in[i .. i + 1 + |in[i]| % (n - i)) added up by halves. */
cudaError_t prog_recursion(const int *d_in, int n, int *d_fibs, long long *d_sums);

/** One block of @p threads: thread t recurses @p k levels deep, writing levels[t * (k + 1) + j]
 *  = j - 1 on the way back up, and out[t] = k. */
cudaError_t prog_deep_recursion(int *d_levels, int k, int threads, int *d_out);

/** A recursion whose levels pass the address of their own local array to the level below
 *  (out[t] = v[0] + ... + v[k] on a GPU): the emulator refuses it with one line. */
cudaError_t prog_local_pointer_recursion(const int *d_v, int k, int *d_out);

/** Virtual calls: thread i makes (new) a rectangle, triangle or square from in[i] (by in[i] % 3;
 *  sides a = |in[i]| % 17 + 1, b = |in[i]| % 5 + 2; the square's area is a * a + 1), out[i] =
 *  its area() through the vtable, then deletes it through the virtual destructor. */
cudaError_t prog_virtual_calls(const int *d_in, int n, int *d_out);

#ifdef __cplusplus
}
#endif

#endif /* TEST_PROGRAMS_H */
