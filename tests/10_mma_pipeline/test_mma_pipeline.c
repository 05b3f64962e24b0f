/**
 * @file test_mma_pipeline.c
 * @brief Lesson 10's suite: the mma.sync GEMMs against the CPU at edge sizes (exactly on small
 *        integers, within the course's rounding rule on random inputs), then what each step
 *        teaches, counted on the CPU emulator: the product on the Tensor Cores, no bank
 *        conflicts once the tiles are swizzled, copies in flight while the math runs, each slice
 *        read once per block and C written in whole sectors; and speed ratios on a GPU.
 *
 * Every case is named for the stage of the exercise it checks (add_lesson's STAGES:
 * mma_ldmatrix, mma_swizzled, mma_pipelined; mma_bf16 is mma_pipelined's template), so that
 * ./course check 10 --stage NAME runs one stage's alone.
 *
 * Every bound is derived from the problem and the launch, never from the solution's tile
 * sizes: another block or warp tile, padding instead of a swizzle, 2 to 5 stages, WMMA where
 * mma.sync is written, all score alike.
 */
#include <stdlib.h>
#include <string.h>

#include "course_half.h"
#include "course_judge.h"
#include "course_test.h"

/* Past course_gemm_shapes: 17, 1000+ and primes on the emulator too (its edge list leaves out
 * 1031 x 1029 x 1027); multiples of 8, so the 16-byte copies run with partial slices and tiles;
 * N % 8 == 0 with K % 8 != 0 and the reverse, where an alignment test on the wrong dimension
 * breaks; K a multiple of 64 but not of 128. */
static const int more_shapes[][3] = {
    {17, 17, 17},   {1009, 1013, 24}, {17, 1000, 1001}, {128, 128, 64}, {256, 384, 512},
    {200, 136, 72}, {144, 1040, 48},  {96, 64, 33},     {96, 33, 64},   {136, 264, 192},
};
static const size_t more_count = sizeof more_shapes / sizeof *more_shapes;

/* Every edge shape and the shapes above exactly on integers, then random floats under the
 * rounding rule (the largest K makes the accumulation's error visible); for fp16, pointers 2
 * bytes (one element) and 16 bytes off a 32-byte boundary too, on shapes whose rows would be
 * 16-byte aligned: the launcher must notice and take the slow path at 2. */
static void check_edges(const char *name, int bf16)
{
    static const int random_shapes[][3] = {{33, 31, 1}, {129, 65, 4099}, {256, 256, 2048}};
    static const int offset_shapes[][3] = {{128, 128, 128}, {144, 1040, 48}, {96, 64, 32}};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_half_gemm_shapes(r, name, bf16, course_gemm_shapes, course_gemm_edge_count(), 600, 0, 0);
    course_half_gemm_shapes(r, name, bf16, more_shapes, more_count, 700, 0, 0);
    course_half_gemm_shapes(r, name, bf16, random_shapes, 3, 800, 1, 0);
    if (!bf16) {
        course_half_gemm_shapes(r, name, 0, offset_shapes, 3, 950, 0, 2);
        course_half_gemm_shapes(r, name, 0, offset_shapes, 3, 960, 0, 16);
    }
    course_runner_stop(r);
}

START_TEST(mma_ldmatrix_edges)
{
    check_edges("mma_ldmatrix", 0);
}
END_TEST

START_TEST(mma_swizzled_edges)
{
    check_edges("mma_swizzled", 0);
}
END_TEST

START_TEST(mma_pipelined_edges)
{
    check_edges("mma_pipelined", 0);
}
END_TEST

START_TEST(mma_pipelined_bf16_edges)
{
    check_edges("mma_bf16", 1);
}
END_TEST

/* ---- metric cases: what each step teaches, counted on the CPU emulator ---------------------
 *
 * One case per step, so that each stage of the exercise is graded on its own. */

/* A launcher, the part of its kernels' names course_observed() matches, and its input type. */
struct version {
    const char *name, *kernel;
    int bf16;
};

/* @p v at M x N x K on small integers, asserted exact, then its launches' counters, summed, and
 * the first launch's grid (*@p gx x *@p gy blocks). */
static struct vm_counters observed(struct course_runner *r, const struct version *v, int M, int N,
                                   int K, unsigned *gx, unsigned *gy)
{
    struct mat_cmp cmp = course_half_gemm(r, v->name, v->bf16, M, N, K, 910, 0, 0);
    char why[160];
    ck_assert_msg(cmp.n_bad == 0, "%s at M=%d N=%d K=%d: %s", v->name, M, N, K,
                  mat_cmp_describe(&cmp, why, sizeof why));
    int n;
    const struct course_launch *l = course_launches(r, &n);
    *gx = l[0].grid[0], *gy = l[0].grid[1];
    return course_observed(r, v->kernel);
}

/* The product on the Tensor Cores: exactly its 2 M N K flops (mma.sync or wmma.mma) when the
 * tiles divide the problem (@p exact: no padding adds any), at least that otherwise, and no fp32
 * FMA on the CUDA cores. */
static void assert_tensor_cores(const char *name, const struct vm_counters *c, int M, int N, int K,
                                int exact)
{
    double need = 2.0 * M * N * K, got = (double)c->tensor_flops;
    ck_assert_msg((exact ? got == need : got >= need) && c->class_insts[VM_CLASS_FMA32] == 0,
                  "%s at %d x %d x %d: %.0f flops on Tensor Cores and %llu fp32 FMAs; the product "
                  "is %.0f flops, %s on Tensor Cores (mma.sync), none on the CUDA cores",
                  name, M, N, K, got, (unsigned long long)c->class_insts[VM_CLASS_FMA32], need,
                  exact ? "exactly that" : "at least that");
}

/*
 * Each block reads its slices of A and B once: on a square problem with gx x gy blocks, the tiles
 * of C are M / gy rows by N / gx columns (or the other way round), so the reads need at most
 * M K 2 gx + K N 2 gy bytes, in whole sectors, whichever way the grid is laid out. A slice read
 * twice, or a tile that rereads A per warp, goes past it. And C leaves in whole sectors, each
 * written once (a lane's lone float, or a pair split over two requests, writes them in pieces).
 */
static void assert_traffic(const char *name, const struct vm_counters *c, int M, int N, int K,
                           unsigned gx, unsigned gy)
{
    uint64_t bound = ((uint64_t)M * K * 2 * gx + (uint64_t)K * N * 2 * gy) / 32;
    ck_assert_msg(c->gld_sectors <= bound,
                  "%s at %d x %d x %d (%u x %u blocks): %llu sectors of A and B loaded, more than "
                  "the %llu of each block reading its slices once",
                  name, M, N, K, gx, gy, (unsigned long long)c->gld_sectors,
                  (unsigned long long)bound);
    char what[96];
    snprintf(what, sizeof what, "%s's stores of C at %d x %d x %d", name, M, N, K);
    course_assert_sector_efficiency(what, c->gst_sectors, 4.0 * M * N, 1.0);
}

/* No bank conflict: not one shared request took a wavefront beyond the one each of its phases
 * needs (counted request by request: emulator/README.md, "Counters"). */
static void assert_conflict_free(const char *name, const struct vm_counters *c, int M, int N, int K)
{
    ck_assert_msg(c->lds_requests > 0 && c->sts_requests > 0,
                  "%s at %d x %d x %d: %llu shared loads and %llu shared stores; the slices go "
                  "through shared memory",
                  name, M, N, K, (unsigned long long)c->lds_requests,
                  (unsigned long long)c->sts_requests);
    ck_assert_msg(c->lds_conflicts == 0 && c->sts_conflicts == 0,
                  "%s at %d x %d x %d: bank conflicts cost %llu extra wavefronts over %llu shared "
                  "loads (ldmatrix) and %llu over %llu shared stores; swizzle each row's 16-byte "
                  "chunks (chunk XOR row %% 8) or pad the rows, so that the 8 rows one 8 x 8 "
                  "matrix reads, and the 8 chunks a quarter warp stores, fall in 8 different "
                  "16-byte bank groups",
                  name, M, N, K, (unsigned long long)c->lds_conflicts,
                  (unsigned long long)c->lds_requests, (unsigned long long)c->sts_conflicts,
                  (unsigned long long)c->sts_requests);
}

/*
 * The copies of the next slices overlap the math: at K = 1024, 16 slices of 64 (or 32 of 32), at
 * least half of the Tensor Core flops issue while the warp has cp.async copies in flight (the
 * emulator's record of the copies, their groups and the waits that land them). A pipeline of 2
 * to 5 stages keeps copies in flight in all but its last few slices; a kernel that waits for every
 * copy before each step has none in flight.
 */
static void assert_overlap(const char *name, const struct vm_counters *c, int M, int N, int K)
{
    ck_assert_msg(2 * c->overlapped_flops >= c->tensor_flops && c->tensor_flops > 0,
                  "%s at %d x %d x %d: %llu of %llu Tensor Core flops issued while cp.async "
                  "copies were in flight, fewer than half: start the next slices before the math "
                  "and wait (cp.async.wait_group N > 0) only for the slice about to be used",
                  name, M, N, K, (unsigned long long)c->overlapped_flops,
                  (unsigned long long)c->tensor_flops);
}

/* @p v's counts at M x N x K (square, tile multiples) and at 200 x 136 x 72 (partial tiles):
 * Tensor Cores and traffic always; no conflicts when @p swizzled, overlap when @p pipelined. */
static void check_counts(const struct version *v, int M, int N, int K, int swizzled, int pipelined)
{
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    unsigned gx, gy;
    struct vm_counters c = observed(r, v, M, N, K, &gx, &gy);
    assert_tensor_cores(v->name, &c, M, N, K, 1);
    assert_traffic(v->name, &c, M, N, K, gx, gy);
    if (swizzled)
        assert_conflict_free(v->name, &c, M, N, K);
    if (pipelined)
        assert_overlap(v->name, &c, M, N, K);
    c = observed(r, v, 200, 136, 72, &gx, &gy);
    assert_tensor_cores(v->name, &c, 200, 136, 72, 0);
    course_runner_stop(r);
}

START_TEST(mma_ldmatrix_counts)
{
    const struct version v = {"mma_ldmatrix", "mma_ldmatrix", 0};
    check_counts(&v, 256, 256, 192, 0, 0);
}
END_TEST

START_TEST(mma_swizzled_counts)
{
    const struct version v = {"mma_swizzled", "mma_swizzled", 0};
    check_counts(&v, 256, 256, 192, 1, 0);
}
END_TEST

START_TEST(mma_pipelined_counts)
{
    const struct version v[] = {{"mma_pipelined", "mma_pipelined", 0}, {"mma_bf16", "mma_bf16", 1}};
    for (int i = 0; i < 2; i++)
        check_counts(&v[i], 256, 256, 1024, 1, 1);
}
END_TEST

/* ---- timing cases, on a GPU ------------------------------------------------------------------ */

/* Same run, same data: each step faster than the one before. */
START_TEST(mma_pipelined_ladder_in_order)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    double plain = course_half_time(r, "mma_ldmatrix", 0, 4096);
    double swz = course_half_time(r, "mma_swizzled", 0, 4096);
    double pipe = course_half_time(r, "mma_pipelined", 0, 4096);
    course_runner_stop(r);
    course_assert_bar("mma_swizzled_over_ldmatrix", plain / swz,
                      "mma_swizzled %.3f ms, mma_ldmatrix %.3f ms", swz, plain);
    course_assert_bar("mma_pipelined_over_swizzled", swz / pipe,
                      "mma_pipelined %.3f ms, mma_swizzled %.3f ms", pipe, swz);
}
END_TEST

/* mma_pipelined against cuBLAS at the same precision, against the bar for this GPU. */
START_TEST(mma_pipelined_near_cublas)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    double pipe = course_half_time(r, "mma_pipelined", 0, 4096);
    course_runner_stop(r);
    double cublas = course_cublas_gemm16_ms(0, 4096);
    course_assert_bar("mma_pipelined_vs_cublas", cublas / pipe,
                      "mma_pipelined %.3f ms, cuBLAS HGEMM %.3f ms", pipe, cublas);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"mma_ldmatrix_edges", mma_ldmatrix_edges, CASE_SM80, 240},
        {"mma_swizzled_edges", mma_swizzled_edges, CASE_SM80, 240},
        {"mma_pipelined_edges", mma_pipelined_edges, CASE_SM80, 240},
        {"mma_pipelined_bf16_edges", mma_pipelined_bf16_edges, CASE_SM80, 240},
        {"mma_ldmatrix_counts", mma_ldmatrix_counts, CASE_SM80, 60},
        {"mma_swizzled_counts", mma_swizzled_counts, CASE_SM80, 60},
        {"mma_pipelined_counts", mma_pipelined_counts, CASE_SM80, 120},
        {"mma_pipelined_ladder_in_order", mma_pipelined_ladder_in_order, CASE_SM80 | CASE_PERF,
         120},
        {"mma_pipelined_near_cublas", mma_pipelined_near_cublas, CASE_SM80 | CASE_PERF, 120},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
