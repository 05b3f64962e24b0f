/**
 * @file test_vm.h
 * @brief The kernels the VM's suite launches (test_vm_kernels.cu), behind C launchers that
 *        return the launch's own error.
 *
 * Most of them apply one PTX instruction, written as inline asm so the compiler cannot
 * choose another, to arrays of inputs: the suite computes what each should give on the host.
 */
#ifndef TEST_VM_H
#define TEST_VM_H

#include <stdint.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * out[i] = OP(a[i], b[i], c[i]) for i < n, 32-bit words, for the instruction named @p op
 * (e.g. "bfe.u32"; test_vm_kernels.cu lists them). cudaErrorInvalidValue for an unknown op.
 */
cudaError_t vm_op32(const char *op, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                    uint32_t *out, int n);

/** The same for the 64-bit instructions (e.g. "mul.hi.u64"). */
cudaError_t vm_op64(const char *op, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                    uint64_t *out, int n);

/** Loads and stores of every width and sign, local arrays, generic pointers to shared and
 *  global memory: out[0 .. 63] (see the kernel for what each holds). */
cudaError_t vm_memory(const int8_t *in8, const float4 *in4, int32_t *out, int n);

/** Shared-memory reads of n floats (a multiple of 4, at least 97) copied from in[], in several
 *  address patterns by 80 threads: out[8 * t + k] (see the kernel); @p past > 0 reads past the
 *  end, which faults. */
cudaError_t vm_shared_reads(const float *in, float *out, int n, int past);

/** Global rows and one-word accesses of full warps against the host: out[t] = in[t] + in[5] and
 *  out4[t] = in4[t] reversed for 64 threads, out[64] = 31 (one word stored by a warp); @p past > 0
 *  reads a row @p past words past the end of in's @p n, which faults. */
cudaError_t vm_global_rows(const int *in, const int4 *in4, int *out, int4 *out4, int n, int past);

/** Atomics under contention from @p threads threads: out[0] add, 1 sub via add, 2 min, 3 max,
 *  4 inc (wraps at 100), 5 cas counter, 6 exch; fout[0] float add. */
cudaError_t vm_atomics(int *out, float *fout, int threads);

/** cp.async of 16 bytes per thread into shared memory with src_size = lane % 17, then out. */
cudaError_t vm_cp_async(const uint32_t *in, uint32_t *out);

/** Shuffles in every mode and width: out[mode * 3 * 64 + width_index * 64 + t], two warps. */
cudaError_t vm_shuffles(const uint32_t *in, uint32_t *out);

/** Votes, ballots, matches and reductions of in[] over two warps: out[8 * t + k]. */
cudaError_t vm_votes(const uint32_t *in, uint32_t *out);

/** Divergent control flow: per-thread loops, breaks, nested branches, then a warp sum that
 *  needs the lanes back together; out[t] for 96 threads. */
cudaError_t vm_divergence(const int *trips, int *out);

/** Each warp counts in[i] > 0.5 over a grid-stride loop whose test is a vote, with the load
 *  of the lanes still in range laid out after the ballot that waits for them (nvcc's layout):
 *  *count += the sum (3 blocks of 64 threads). */
cudaError_t vm_warp_sync_waits(const float *in, int n, int *count);

/** Each of 64 threads reads clock64() and clock() before and after a loop of 100 trips:
 *  out[4 t + 0..3] = start64, end64, start32, end32. Then 256 threads spin until clock() has
 *  advanced by 99 (a graph sample's clockBlock; it never ends if the clock does not move). */
cudaError_t vm_clocks(unsigned long long *out);

/** Lanes 0-15 wait at __syncthreads() while lanes 16-31 shuffle with a full mask: an error. */
cudaError_t vm_warp_sync_never_met(int *out);

/** Barriers inside loops and named barriers with counts: out[t] for 128 threads. */
cudaError_t vm_barriers(int *out);

/** A __syncthreads() only the first warp reaches: deadlock. */
cudaError_t vm_deadlock(void);

/** A trap; an assert(i < 40) over 64 threads. */
cudaError_t vm_trap(void);
cudaError_t vm_assert(void);

/** printf with every conversion the course uses. */
cudaError_t vm_printf(void);

/** A fault of @p kind: 0 a write one past the end of @p buf (n floats), 1 a misaligned float4
 *  read, 2 a shared write past 32 floats of dynamic shared memory (index t + n), 3 a write
 *  to @p buf (freed by the caller). */
cudaError_t vm_fault(int kind, float *buf, int n);

/** An instruction the emulator does not execute (dp4a): the launch fails naming it. */
cudaError_t vm_unsupported(uint32_t *out);

/**
 * D = A * B + C through wmma on one 16 x 16 x 16 tile (k8 for tf32): @p type 0 f16, 1 bf16,
 * 2 tf32 (inputs are float arrays, converted on the device); @p b_col loads B column-major;
 * @p half_acc accumulates in f16 (f16 only). A row-major m x k, B as laid out, C, D row-major.
 */
/** D (16 x 16 floats) = A A^T, A's 16 x 16 f16 tile read at @p A with row stride @p ldm
 *  elements: load_matrix_sync needs A 32-byte aligned and ldm a multiple of 8. */
cudaError_t vm_wmma_stride(const void *A, int ldm, float *D);

cudaError_t vm_wmma(int type, int b_col, int half_acc, const float *A, const float *B,
                    const float *C, float *D);

/**
 * mma.sync.m16n8k16 (f16 or bf16 by @p bf16) and m16n8k8 / m16n8k4 (tf32) on fragments the
 * caller lays out as the PTX ISA documents: a[32 * na], b[32 * nb], c[32 * 4], d[32 * 4],
 * raw 32-bit registers lane by lane. @p shape: 0 m16n8k16, 1 m16n8k8, 2 m16n8k4.
 */
cudaError_t vm_mma(int shape, int type, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                   uint32_t *d);

/** ldmatrix.x4 (and .trans) of four 8 x 8 b16 matrices m[4][8][8]: out[2][32 * 4] registers. */
cudaError_t vm_ldmatrix(const uint16_t *m, uint32_t *out);

/** Block 1 waits for a flag block 0 publishes (waiter 1: out[t] = 12 + 22 t for t < 64), or
 *  block 0 for block 1's (waiter 0: a deadlock, since blocks run in order). */
cudaError_t vm_look_back(uint32_t *flag, uint32_t *data, uint32_t *out, int waiter);

/** Block 0 waits for a flag block 1 sets after @p work trips of a loop: out[t] = flag + t for
 *  block 0's 64 threads, flag = 1 + the sum of i % 7 for i < @p work; @p work < 0: block 1
 *  waits too, a deadlock. */
cudaError_t vm_late_release(uint32_t *flag, uint32_t *out, int work);

/** @p blocks blocks of @p threads pass 2 * @p phases + 2 phases of an mbarrier (test_vm.c's
 *  mbarrier_phases says what lands in out and pend); @p init 0: it is never initialised. */
cudaError_t vm_mbarrier(const int *in, int *out, unsigned *pend, int blocks, int threads,
                        int phases, int init);

/** Each of @p blocks blocks of 256 threads: every warp writes its index to one shared word
 *  with no barrier between them, and out[block] is the word after the barrier: the warp that
 *  ran last, which shows the schedule. */
cudaError_t vm_warp_race(int *out, int blocks);

/** 64-bit atomics, red and compare-and-swap's failure path on u[0 .. 5], w[0 .. 1] from 64
 *  threads; what thread 0 saw in r[0 .. 8] (test_vm_kernels.cu says which is which). */
cudaError_t vm_atomics_wide(unsigned long long *u, uint32_t *w, unsigned long long *r);

/** redux.sync in every op (out[0 .. 7]), match.any.sync.b64 (out[8 ..]), a ballot of the odd
 *  lanes (out[40 ..]), one warp. */
cudaError_t vm_redux_match(uint32_t *out);

/** __syncthreads_count / _and / _or over 96 threads: out[5 t + k] (the kernel says which). */
cudaError_t vm_bar_red(uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif /* TEST_VM_H */
