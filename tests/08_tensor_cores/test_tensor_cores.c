/**
 * @file test_tensor_cores.c
 * @brief Lesson 08's suite: the WMMA GEMMs against the CPU at edge sizes, exactly on small
 *        integers and within the course's rounding rule on random inputs, plus PTX structure
 *        and speed ratios.
 */
#include <stdlib.h>
#include <string.h>

#include "course_half.h"
#include "course_judge.h"
#include "course_test.h"
#include "mat.h"

/* Shapes beyond course_gemm_shapes: multiples of 8 and 16, so the in-place fragment loads and
 * the 128-bit loads run, with and without partial tiles; N % 8 == 0 with K % 8 != 0 (and the
 * reverse), where an alignment test on the wrong dimension breaks; last a large one, which the
 * emulator skips. */
static const int aligned_shapes[][3] = {
    {16, 16, 16},    {128, 128, 128}, {256, 384, 512}, {200, 136, 72},
    {144, 1040, 48}, {96, 64, 33},    {96, 33, 64},    {1024, 1024, 1024},
};
static const size_t aligned_count = sizeof aligned_shapes / sizeof *aligned_shapes;

/* Every edge shape exactly on integers, the aligned shapes too, then random floats under the
 * rounding rule at a few shapes (the largest K makes the accumulation error visible). */
static void check_edges(const char *name, int bf16)
{
    static const int random_shapes[][3] = {{33, 31, 1}, {129, 65, 4099}, {256, 256, 2048}};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_half_gemm_shapes(r, name, bf16, course_gemm_shapes, course_gemm_edge_count(), 600, 0, 0);
    course_half_gemm_shapes(r, name, bf16, aligned_shapes,
                            aligned_count - (course_emulated ? 1 : 0), 700, 0, 0);
    course_half_gemm_shapes(r, name, bf16, random_shapes, 3, 800, 1, 0);
    course_runner_stop(r);
}

START_TEST(wmma_naive_edges)
{
    check_edges("wmma_naive", 0);
}
END_TEST

START_TEST(wmma_shared_edges)
{
    check_edges("wmma_shared", 0);
}
END_TEST

/* bfloat16 needs sm_80: on an older GPU the harness skips the case (CASE_SM80). */
START_TEST(wmma_bf16_edges)
{
    check_edges("wmma_bf16", 1);
}
END_TEST

/* Shapes whose rows are aligned, at pointers 2 bytes (one element) and 16 bytes off 32-byte
 * alignment: the launchers must notice and take the staged path. */
START_TEST(wmma_misaligned)
{
    static const int shapes[][3] = {{128, 128, 128}, {144, 1040, 48}, {96, 64, 32}};
    const char *names[] = {"wmma_naive", "wmma_shared"};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int v = 0; v < 2; v++) {
        course_half_gemm_shapes(r, names[v], 0, shapes, 3, 950, 0, 2);
        course_half_gemm_shapes(r, names[v], 0, shapes, 3, 960, 0, 16);
    }
    course_runner_stop(r);
}
END_TEST

/* Same run, same data: shared-memory tiles must beat fragments straight from global memory. */
START_TEST(shared_faster_than_naive)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    double naive = course_half_time(r, "wmma_naive", 0, 4096),
           shared = course_half_time(r, "wmma_shared", 0, 4096);
    course_runner_stop(r);
    course_assert_bar("wmma_shared_over_naive", naive / shared,
                      "wmma_shared %.3f ms, wmma_naive %.3f ms", shared, naive);
}
END_TEST

/* wmma_shared against cuBLAS at the same precision, against the bar for this GPU
 * (course_bars.c; feedback: the points are wmma_shared_stages_slices'). */
START_TEST(shared_near_cublas)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    double shared = course_half_time(r, "wmma_shared", 0, 4096);
    course_runner_stop(r);
    double cublas = course_cublas_gemm16_ms(0, 4096);
    course_assert_bar("wmma_shared_vs_cublas", cublas / shared,
                      "wmma_shared %.3f ms, cuBLAS HGEMM %.3f ms", shared, cublas);
}
END_TEST

/* ---- metric cases: what the lesson teaches, counted on the CPU emulator --------------------
 *
 * The emulator counts a kernel's ordinary loads and stores; the fragment loads and stores
 * (wmma.load, wmma.store) count as tensor instructions, not as memory requests. */

/* @p name at M x N x K on small integers, asserted exact, then its launches' counters: every
 * one @p kernel's, the product done on Tensor Cores (all its flops, no fp32 FMA). */
static struct vm_counters observed_half_gemm(struct course_runner *r, const char *name,
                                             const char *kernel, int M, int N, int K)
{
    struct mat_cmp cmp = course_half_gemm(r, name, 0, M, N, K, 910, 0, 0);
    char why[160];
    ck_assert_msg(cmp.n_bad == 0, "%s at M=%d N=%d K=%d: %s", name, M, N, K,
                  mat_cmp_describe(&cmp, why, sizeof why));
    struct vm_counters c = course_observed(r, kernel);
    ck_assert_msg((double)c.flops >= 2.0 * M * N * K && c.class_insts[VM_CLASS_FMA32] == 0,
                  "%s: %llu flops and %llu fp32 FMAs for a %d x %d x %d product: mma_sync on "
                  "Tensor Cores does all %.0f flops, the CUDA cores none",
                  name, (unsigned long long)c.flops,
                  (unsigned long long)c.class_insts[VM_CLASS_FMA32], M, N, K, 2.0 * M * N * K);
    return c;
}

/*
 * wmma_shared at 256 x 256 x 96: 2 x 2 blocks of 8 warps, 3 slices of 32. Each slice of A
 * (128 x 32) and of B (32 x 128) is fetched once per block, as 128-bit chunks (2 of A and 2
 * of B per thread: 4 requests per warp, 512 bytes in 16 sectors each), and staged in shared
 * memory: blocks x slices x 2 x 128 x 32 x 2 bytes = 6144 sectors in all. Fragments loaded
 * from global memory in place (no staging) make no such loads; a slice fetched twice makes
 * twice as many. Double buffering needs one barrier per slice, plus the first: 4 per warp,
 * where staging into one buffer needs two per slice (6); a spare barrier (5) is no fault.
 */
START_TEST(wmma_shared_stages_slices)
{
    enum { M = 256, N = 256, K = 96, SLICES = K / 32 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    struct vm_counters c = observed_half_gemm(r, "wmma_shared", "wmma_shared_kernel", M, N, K);
    uint64_t blocks = (M / 128) * (N / 128), warps = 8 * blocks;
    uint64_t sectors = blocks * SLICES * 2 * 128 * 32 * 2 / 32;
    ck_assert_msg(c.gld_sectors == sectors,
                  "wmma_shared loaded %llu sectors of A and B; each slice once per block, through "
                  "shared memory, is %llu",
                  (unsigned long long)c.gld_sectors, (unsigned long long)sectors);
    course_assert_per_request("wmma_shared's 128-bit loads of the slices", "sectors", c.gld_sectors,
                              c.gld_requests, 16, 16);
    ck_assert_msg(c.sts_requests > 0, "wmma_shared stages nothing in shared memory");
    ck_assert_msg(c.barriers <= warps * (SLICES + 2),
                  "wmma_shared: %llu barriers (summed over its %llu warps), more than %llu: "
                  "double buffering needs one after the first slice, then one per slice (a "
                  "spare one is allowed); staging into one buffer needs two per slice",
                  (unsigned long long)c.barriers, (unsigned long long)warps,
                  (unsigned long long)(warps * (SLICES + 2)));
    course_runner_stop(r);
}
END_TEST

/*
 * wmma_naive loads its fragments straight from global memory when it can (pointers 32-byte
 * aligned, K and N multiples of 16, the tile inside C): no shared memory at all, at 64 x 64 x
 * 48. With K = 40 it must stage its tiles through shared memory (__syncwarp between the copy
 * and the fragment load), zero-filled past K.
 */
START_TEST(wmma_naive_direct_when_aligned)
{
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    struct vm_counters c = observed_half_gemm(r, "wmma_naive", "wmma_naive_kernel", 64, 64, 48);
    uint64_t need = (64 * 48 + 48 * 64) * 2 / 32; /* every half of A and B, once */
    ck_assert_msg(c.gld_sectors >= need,
                  "wmma_naive at 64 x 64 x 48 loaded %llu sectors, fewer than the %llu that hold "
                  "A and B: fragment loads from global memory must be counted",
                  (unsigned long long)c.gld_sectors, (unsigned long long)need);
    ck_assert_msg(c.sts_requests + c.lds_requests == 0,
                  "wmma_naive made %llu shared-memory requests at 64 x 64 x 48, where every "
                  "fragment can be loaded and stored in place",
                  (unsigned long long)(c.sts_requests + c.lds_requests));
    c = observed_half_gemm(r, "wmma_naive", "wmma_naive_kernel", 64, 64, 40);
    ck_assert_msg(c.sts_requests > 0,
                  "wmma_naive at K = 40 (not a multiple of 16) staged nothing in shared memory");
    course_runner_stop(r);
}
END_TEST

/* The PTX shows Tensor Core instructions, with float accumulation, in every kernel; the naive
 * kernel loads fragments from global memory, the tiled ones from shared memory behind a
 * barrier (how many is judged by the results and ./course sanitize). How the slices get into
 * shared memory (128-bit stores, or cp.async as "Going further" suggests) is the counters'
 * business (wmma_shared_stages_slices), not the PTX's.
 * (The bf16 fragment loads use generic addresses in the PTX; ptxas resolves them.) */
START_TEST(ptx_uses_tensor_cores)
{
    char *ptx = course_read_file(LESSON_PTX);
    ck_assert_msg(ptx != NULL, "cannot read %s", LESSON_PTX);
    const char *kernels[] = {"wmma_naive_kernel", "wmma_shared_kernel", "wmma_bf16_kernel"};
    const char *types[] = {".f16", ".f16", ".bf16"};
    for (int k = 0; k < 3; k++) {
        char *body = course_ptx_entry(ptx, kernels[k]);
        ck_assert_msg(body != NULL, "no %s in the PTX", kernels[k]);
        ck_assert_msg(strstr(body, "wmma.mma.sync"), "%s has no wmma.mma.sync", kernels[k]);
        ck_assert_msg(strstr(body, "m16n16k16.f32."), "%s does not accumulate in float",
                      kernels[k]);
        char load[64];
        snprintf(load, sizeof load, "m16n16k16%s%s", k == 2 ? "" : ".shared", types[k]);
        ck_assert_msg(strstr(body, "wmma.load.a.sync") && strstr(body, load),
                      "%s loads no %s fragment from shared memory", kernels[k], types[k]);
        if (k == 0) {
            ck_assert_msg(strstr(body, "m16n16k16.global.f16"),
                          "wmma_naive_kernel loads no fragment from global memory");
        } else {
            ck_assert_msg(strstr(body, "bar.sync"),
                          "%s has no __syncthreads() between storing a slice and reading it",
                          kernels[k]);
        }
        free(body);
    }
    free(ptx);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"wmma_naive_edges", wmma_naive_edges, CASE_GPU, 180},
        {"wmma_shared_edges", wmma_shared_edges, CASE_GPU, 180},
        {"wmma_bf16_edges", wmma_bf16_edges, CASE_SM80, 180},
        {"wmma_misaligned", wmma_misaligned, CASE_GPU, 60},
        {"wmma_shared_stages_slices", wmma_shared_stages_slices, CASE_GPU, 60},
        {"wmma_naive_direct_when_aligned", wmma_naive_direct_when_aligned, CASE_GPU, 60},
        {"shared_faster_than_naive", shared_faster_than_naive, CASE_GPU | CASE_PERF, 120},
        {"shared_near_cublas", shared_near_cublas, CASE_GPU | CASE_PERF, 120},
        {"ptx_uses_tensor_cores", ptx_uses_tensor_cores, CASE_CPU, 30},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
