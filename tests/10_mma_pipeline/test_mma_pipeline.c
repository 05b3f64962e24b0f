/**
 * @file test_mma_pipeline.c
 * @brief Lesson 10's suite: the mma.sync GEMMs against the CPU at edge sizes (exactly on small
 *        integers, within the course's rounding rule on random inputs), then what each step
 *        teaches, counted on the CPU emulator: the product on the Tensor Cores, no bank
 *        conflicts once the tiles are swizzled, copies in flight while the math runs, each slice
 *        read once per block and C written in whole sectors; and speed ratios on a GPU.
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
 * rounding rule (the largest K makes the accumulation's error visible). */
static void check_edges(const char *name, int bf16)
{
    static const int random_shapes[][3] = {{33, 31, 1}, {129, 65, 4099}, {256, 256, 2048}};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_half_gemm_shapes(r, name, bf16, course_gemm_shapes, course_gemm_edge_count(), 600, 0, 0);
    course_half_gemm_shapes(r, name, bf16, more_shapes, more_count, 700, 0, 0);
    course_half_gemm_shapes(r, name, bf16, random_shapes, 3, 800, 1, 0);
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

START_TEST(mma_bf16_edges)
{
    check_edges("mma_bf16", 1);
}
END_TEST

/* The fp16 versions at pointers 2 bytes (one element) and 16 bytes off a 32-byte boundary, on
 * shapes whose rows would be 16-byte aligned: the launchers must notice and take the slow path
 * at 2, and may take the fast one at 16. */
START_TEST(mma_misaligned)
{
    static const int shapes[][3] = {{128, 128, 128}, {144, 1040, 48}, {96, 64, 32}};
    const char *names[] = {"mma_ldmatrix", "mma_swizzled", "mma_pipelined"};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int v = 0; v < 3; v++) {
        course_half_gemm_shapes(r, names[v], 0, shapes, 3, 950, 0, 2);
        course_half_gemm_shapes(r, names[v], 0, shapes, 3, 960, 0, 16);
    }
    course_runner_stop(r);
}
END_TEST

/* ---- metric cases: what each step teaches, counted on the CPU emulator ---------------------
 *
 * The launchers, their kernels' names (course_observed() matches a part), and whether they take
 * bfloat16. */
static const struct version {
    const char *name, *kernel;
    int bf16;
} versions[] = {
    {"mma_ldmatrix", "mma_ldmatrix", 0},
    {"mma_swizzled", "mma_swizzled", 0},
    {"mma_pipelined", "mma_pipelined", 0},
    {"mma_bf16", "mma_bf16", 1},
};

/* @p v at M x N x K on small integers, asserted exact, then its launches' counters, summed, and
 * the blocks they ran (*@p blocks_x, *@p blocks_y: the first launch's grid). */
static struct vm_counters observed(struct course_runner *r, const struct version *v, int M, int N,
                                   int K, unsigned *blocks_x, unsigned *blocks_y)
{
    struct mat_cmp cmp = course_half_gemm(r, v->name, v->bf16, M, N, K, 910, 0, 0);
    char why[160];
    ck_assert_msg(cmp.n_bad == 0, "%s at M=%d N=%d K=%d: %s", v->name, M, N, K,
                  mat_cmp_describe(&cmp, why, sizeof why));
    int n;
    const struct course_launch *l = course_launches(r, &n);
    struct vm_counters c = course_observed(r, v->kernel);
    if (blocks_x)
        *blocks_x = l[0].grid[0], *blocks_y = l[0].grid[1];
    return c;
}

/*
 * At 256 x 256 x 192 every version does exactly the product's 2 M N K flops on the Tensor Cores
 * (mma.sync or wmma.mma: the tiles divide the problem, so no padding adds any) and none on the
 * CUDA cores; at 200 x 136 x 72, partial tiles, at least 2 M N K, still none on the CUDA cores.
 */
START_TEST(math_on_tensor_cores)
{
    static const int shapes[2][3] = {{256, 256, 192}, {200, 136, 72}};
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    for (size_t v = 0; v < sizeof versions / sizeof *versions; v++)
        for (int s = 0; s < 2; s++) {
            int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
            struct vm_counters c = observed(r, &versions[v], M, N, K, NULL, NULL);
            double need = 2.0 * M * N * K;
            int right = s == 0 ? (double)c.tensor_flops == need : (double)c.tensor_flops >= need;
            ck_assert_msg(right && c.class_insts[VM_CLASS_FMA32] == 0,
                          "%s at %d x %d x %d: %llu flops on Tensor Cores and %llu fp32 FMAs; the "
                          "product is %.0f flops, %s on Tensor Cores (mma.sync), none on CUDA "
                          "cores",
                          versions[v].name, M, N, K, (unsigned long long)c.tensor_flops,
                          (unsigned long long)c.class_insts[VM_CLASS_FMA32], need,
                          s == 0 ? "exactly that" : "at least that");
        }
    course_runner_stop(r);
}
END_TEST

/*
 * The swizzled and pipelined kernels read their fragments and store their slices (and stage
 * C) without a bank conflict: not one shared request took a wavefront beyond the one each of its
 * phases needs (the emulator counts this request by request: emulator/README.md, "Counters").
 */
START_TEST(shared_memory_conflict_free)
{
    enum { M = 256, N = 256, K = 128 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    for (size_t v = 1; v < sizeof versions / sizeof *versions; v++) {
        struct vm_counters c = observed(r, &versions[v], M, N, K, NULL, NULL);
        ck_assert_msg(c.lds_requests > 0 && c.sts_requests > 0,
                      "%s at %d x %d x %d: %llu shared loads and %llu shared stores; the slices "
                      "go through shared memory",
                      versions[v].name, M, N, K, (unsigned long long)c.lds_requests,
                      (unsigned long long)c.sts_requests);
        ck_assert_msg(c.lds_conflicts == 0 && c.sts_conflicts == 0,
                      "%s at %d x %d x %d: bank conflicts cost %llu extra wavefronts over %llu "
                      "shared loads (ldmatrix) and %llu over %llu shared stores; swizzle each "
                      "row's 16-byte chunks (chunk XOR row %% 8) or pad the rows, so that the 8 "
                      "rows one 8 x 8 matrix reads, and the 8 chunks a quarter warp stores, fall "
                      "in 8 different 16-byte bank groups",
                      versions[v].name, M, N, K, (unsigned long long)c.lds_conflicts,
                      (unsigned long long)c.lds_requests, (unsigned long long)c.sts_conflicts,
                      (unsigned long long)c.sts_requests);
    }
    course_runner_stop(r);
}
END_TEST

/*
 * The pipelined kernels copy the next slices while the current one is multiplied: at 256 x 256 x
 * 1024, 16 slices of 64 (or 32 of 32), at least half of the Tensor Core flops issue while the
 * warp has cp.async copies in flight (the emulator's record of the copies, their groups and the
 * waits that land them). A pipeline of 2 to 5 stages keeps copies in flight in all but its last
 * few slices; a kernel that waits for every copy before each step has none in flight.
 */
START_TEST(pipeline_overlaps_copies_with_math)
{
    enum { M = 256, N = 256, K = 1024 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    for (size_t v = 2; v < sizeof versions / sizeof *versions; v++) {
        struct vm_counters c = observed(r, &versions[v], M, N, K, NULL, NULL);
        ck_assert_msg(2 * c.overlapped_flops >= c.tensor_flops && c.tensor_flops > 0,
                      "%s at %d x %d x %d: %llu of %llu Tensor Core flops issued while cp.async "
                      "copies were in flight, fewer than half: start the next slices before the "
                      "math and wait (cp.async.wait_group N > 0) only for the slice about to be "
                      "used",
                      versions[v].name, M, N, K, (unsigned long long)c.overlapped_flops,
                      (unsigned long long)c.tensor_flops);
    }
    course_runner_stop(r);
}
END_TEST

/*
 * Each block reads its slices of A and B once: on a square problem, with gx x gy blocks, the
 * tiles of C are M / gy rows by N / gx columns (or the other way round), so the reads need at
 * most M K 2 gx + K N 2 gy bytes, in whole sectors, whichever way the grid is laid out. A slice
 * read twice, or a tile that rereads A per warp, goes past it.
 */
START_TEST(slices_read_once_per_block)
{
    enum { M = 256, N = 256, K = 256 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    for (size_t v = 0; v < sizeof versions / sizeof *versions; v++) {
        unsigned gx, gy;
        struct vm_counters c = observed(r, &versions[v], M, N, K, &gx, &gy);
        uint64_t bound = ((uint64_t)M * K * 2 * gx + (uint64_t)K * N * 2 * gy) / 32;
        ck_assert_msg(c.gld_sectors <= bound,
                      "%s at %d x %d x %d (%u x %u blocks): %llu sectors of A and B loaded, more "
                      "than the %llu of each block reading its slices once",
                      versions[v].name, M, N, K, gx, gy, (unsigned long long)c.gld_sectors,
                      (unsigned long long)bound);
    }
    course_runner_stop(r);
}
END_TEST

/* C leaves in whole sectors, each written once: at 256 x 256 x 64, 256 x 256 floats are 8192
 * sectors. A lane's lone float, or a pair split over two requests, writes sectors in pieces. */
START_TEST(c_written_in_whole_sectors)
{
    enum { M = 256, N = 256, K = 64 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    for (size_t v = 0; v < sizeof versions / sizeof *versions; v++) {
        struct vm_counters c = observed(r, &versions[v], M, N, K, NULL, NULL);
        char what[96];
        snprintf(what, sizeof what, "%s's stores of C at %d x %d x %d", versions[v].name, M, N, K);
        course_assert_sector_efficiency(what, c.gst_sectors, 4.0 * M * N, 1.0);
    }
    course_runner_stop(r);
}
END_TEST

/* ---- timing cases, on a GPU ------------------------------------------------------------------ */

/* Same run, same data: each step faster than the one before. */
START_TEST(ladder_in_order)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    double plain = course_half_time(r, "mma_ldmatrix", 4096);
    double swz = course_half_time(r, "mma_swizzled", 4096);
    double pipe = course_half_time(r, "mma_pipelined", 4096);
    course_runner_stop(r);
    course_assert_bar("mma_swizzled_over_ldmatrix", plain / swz,
                      "mma_swizzled %.3f ms, mma_ldmatrix %.3f ms", swz, plain);
    course_assert_bar("mma_pipelined_over_swizzled", swz / pipe,
                      "mma_pipelined %.3f ms, mma_swizzled %.3f ms", pipe, swz);
}
END_TEST

/* mma_pipelined against cuBLAS at the same precision, against the bar for this GPU. */
START_TEST(pipelined_near_cublas)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    double pipe = course_half_time(r, "mma_pipelined", 4096);
    course_runner_stop(r);
    double cublas = course_cublas_hgemm_ms(4096);
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
        {"mma_bf16_edges", mma_bf16_edges, CASE_SM80, 240},
        {"mma_misaligned", mma_misaligned, CASE_SM80, 120},
        {"math_on_tensor_cores", math_on_tensor_cores, CASE_SM80, 120},
        {"shared_memory_conflict_free", shared_memory_conflict_free, CASE_SM80, 60},
        {"pipeline_overlaps_copies_with_math", pipeline_overlaps_copies_with_math, CASE_SM80, 60},
        {"slices_read_once_per_block", slices_read_once_per_block, CASE_SM80, 60},
        {"c_written_in_whole_sectors", c_written_in_whole_sectors, CASE_SM80, 60},
        {"ladder_in_order", ladder_in_order, CASE_SM80 | CASE_PERF, 120},
        {"pipelined_near_cublas", pipelined_near_cublas, CASE_SM80 | CASE_PERF, 120},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
