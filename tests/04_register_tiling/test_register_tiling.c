/**
 * @file test_register_tiling.c
 * @brief Lesson 04's suite: the three register-tiled matmuls against the CPU at edge shapes and
 *        misaligned pointers, their PTX (FMAs per thread, 128-bit loads), and their speed.
 */
#include <stdlib.h>
#include <string.h>

#include "course_judge.h"
#include "course_test.h"

/* Run @p name at every edge shape, then at @p count more, in a runner of its own. */
static void check_edges(const char *name, uint64_t seed, const int (*more)[3], size_t count)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_judge_sgemm_edges(r, name, seed);
    course_judge_sgemm_shapes(r, name, more, count, seed + 100, 0);
    course_runner_stop(r);
}

/* Multiples of 4 (so the float4 paths run) but not of the 128 x 128 x 8 tile; and N % 4 == 0
 * with K % 4 != 0 (or the reverse), where an alignment test on the wrong dimension breaks. */
static const int vector_shapes[][3] = {{128, 128, 8},    {132, 260, 36}, {4, 4, 4},
                                       {256, 124, 1028}, {128, 132, 37}, {130, 37, 132}};

/* For matmul_1d_tile: two of those, and one row of A longer than the 1 MiB guard after an
 * input, so that a tile load reading the row past A's last leaves the allocation, which the
 * emulator (and often a GPU) reports. Seconds on the emulator, so this kernel only. */
static const int tile_1d_shapes[][3] = {{128, 128, 8}, {132, 260, 36}, {1, 1, 270001}};

START_TEST(matmul_1d_tile_edges)
{
    check_edges("matmul_1d_tile", 500, tile_1d_shapes, 3);
}
END_TEST

START_TEST(matmul_2d_tile_edges)
{
    check_edges("matmul_2d_tile", 520, vector_shapes, 2);
}
END_TEST

START_TEST(matmul_vectorized_edges)
{
    check_edges("matmul_vectorized", 540, vector_shapes,
                sizeof vector_shapes / sizeof *vector_shapes);
}
END_TEST

/* Sizes that allow float4 but pointers that do not: A, B and C each start one
 * float past a 16-byte boundary. The launcher must take the scalar path. */
START_TEST(matmul_vectorized_misaligned)
{
    static const int shapes[][3] = {{132, 136, 68}, {128, 132, 36}};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_judge_sgemm_shapes(r, "matmul_vectorized", shapes, 2, 71, sizeof(float));
    course_runner_stop(r);
}
END_TEST

/* 64 results per thread against 8: the 2D tile must be clearly faster. */
START_TEST(tile_2d_faster_than_1d)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_judge_sgemm_right(r, "matmul_1d_tile");
    course_judge_sgemm_right(r, "matmul_2d_tile");
    double t1 = course_judge_time_sgemm(r, "matmul_1d_tile", 4096, 4096, 4096);
    double t2 = course_judge_time_sgemm(r, "matmul_2d_tile", 4096, 4096, 4096);
    course_runner_stop(r);
    course_assert_bar("tile_2d_over_1d", t1 / t2, "matmul_2d_tile %.3f ms, matmul_1d_tile %.3f ms",
                      t2, t1);
}
END_TEST

/* The vectorized kernel against cuBLAS (timed by the judge) in the same run, at 4096, against
 * the bar for this GPU (course_bars.c; feedback: the points are the metric cases'). */
START_TEST(vectorized_vs_cublas)
{
    course_judge_vs_cublas("matmul_vectorized", "vectorized_vs_cublas");
}
END_TEST

/* ---- metric cases: what the lesson teaches, counted on the CPU emulator --------------------
 *
 * M x N x K = 128 x 256 x 64: whole 64 x 64 and 128 x 128 block tiles, whole 8-deep steps, rows
 * a multiple of 4 floats, buffers 256-byte aligned (the float4 paths run). Ratios are of
 * thread instructions (class fma32 over class lds), so a float4 load counts once. */
enum { MT_M = 128, MT_N = 256, MT_K = 64 };

/*
 * Register tiles cut shared loads per FMA, lesson 03's 1 FMA per 2 loads (As[ty][k], Bs[k][tx])
 * being the baseline. matmul_1d_tile: per k, one Bs value and 8 As values (broadcasts) feed 8
 * FMAs, 8/9 = 0.89 FMA per load (bound 0.8). matmul_2d_tile: 8 As and 8 Bs values feed the
 * 8 x 8 outer product, 64/16 = 4 (bound 4: exact). A thread that re-reads shared memory for
 * each product makes 0.5. Both load their tiles along rows: 4 sectors per request.
 */
static const double tile_1d_min_fma_per_load = 0.8;
static const double tile_2d_min_fma_per_load = 4;

START_TEST(register_tiles_cut_shared_loads)
{
    const struct {
        const char *name, *kernel;
        double fma_per_load;
    } versions[] = {{"matmul_1d_tile", "matmul_1d_tile_kernel", tile_1d_min_fma_per_load},
                    {"matmul_2d_tile", "matmul_2d_tile_kernel", tile_2d_min_fma_per_load}};
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    for (int v = 0; v < 2; v++) {
        struct vm_counters c =
            course_observed_sgemm(r, versions[v].name, versions[v].kernel, MT_M, MT_N, MT_K);
        double fma = (double)c.class_insts[VM_CLASS_FMA32];
        double lds = (double)c.class_insts[VM_CLASS_LDS];
        ck_assert_msg(fma >= versions[v].fma_per_load * lds,
                      "%s: %.2f FMAs per shared load (thread instructions), want at least %g: "
                      "keep the values a thread reuses in registers",
                      versions[v].name, fma / lds, versions[v].fma_per_load);
        char what[64];
        snprintf(what, sizeof what, "%s's global loads", versions[v].name);
        course_assert_per_request(what, "sectors", c.gld_sectors, c.gld_requests, 0, 4);
    }
    course_runner_stop(r);
}
END_TEST

/*
 * matmul_vectorized reads both tiles with 128-bit loads: per k, two float4 of As and two of
 * Bs for 64 FMAs, 16 FMAs per load. Without bank conflicts a 128-bit request takes 4
 * wavefronts (one per quarter warp), 2 when lanes read one address in pairs (As's reads, one
 * row per half warp); B read with its 8 columns per thread 32 bytes apart
 * takes 8 (lanes t and t + 4 share banks). Global loads are float4 as well: per 8-deep step,
 * each thread one float4 of A and one of B, 2 requests per warp, each 512 bytes in 16
 * sectors; C is stored as float4 too, one request per 4 x 32 floats.
 */
START_TEST(vectorized_128bit_conflict_free)
{
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    struct vm_counters c =
        course_observed_sgemm(r, "matmul_vectorized", "matmul_vectorized_kernel", MT_M, MT_N, MT_K);
    uint64_t warps = (uint64_t)(MT_M / 128) * (MT_N / 128) * 8, steps = MT_K / 8;
    course_assert_float4_tiles("matmul_vectorized", &c, 2 * warps * steps);
    /* Per warp per step: 4 scalar stores of A transposed (lanes 2i and 2i + 1 write words 4
     * rows of As apart, one bank: 2 wavefronts each) and one float4 of B (4): 12 wavefronts
     * in 5 requests. More means bank conflicts this layout avoids. */
    course_assert_shared_wavefronts("matmul_vectorized's shared stores", c.sts_wavefronts,
                                    c.sts_requests, 12.0 / 5, 12.0 * warps * steps,
                                    "keep the lesson's tile layout and store mapping");
    ck_assert_msg(c.gst_requests <= (uint64_t)MT_M * MT_N / 128,
                  "matmul_vectorized made %llu store requests, float4 stores make %d",
                  (unsigned long long)c.gst_requests, MT_M * MT_N / 128);
    course_runner_stop(r);
}
END_TEST

/*
 * The register-tiled kernels read and write their tiles without bank conflicts: per warp and
 * per 8-deep step, at 128 x 256 x 64 (steps = K / 8 = 8).
 * matmul_1d_tile (16 warps per 64 x 64 block, 8 blocks): a warp is 32 neighbouring columns of
 * one thread row. It stores one element of As and one of Bs per thread, 32 neighbouring words
 * each (1 wavefront per request, 2 per step); per k it reads Bs[k][32 columns] (1) and its 8
 * rows of As (broadcasts, 1 each, fewer requests when nvcc reads a row as float4): at most
 * 8 (8 + 1) = 72. Rows given to neighbouring lanes (a swapped thread mapping) put the warp's
 * As reads 64 words apart, one bank: 8 wavefronts per request.
 * matmul_2d_tile (8 warps per 128 x 128 block, 2 blocks): it stores 4 elements of each tile
 * per thread, 32 neighbouring words per request (1), 8 per step; it reads a row of 8 As values
 * and 8 Bs values per k as float4, 4 of them per k (one wavefront per quarter warp: 4 per
 * request; As's, read by lanes in pairs on one address, 2), 32 requests and at most 128
 * wavefronts per step (96). Eight adjacent columns per thread put the
 * quarter warp's float4 of Bs 32 bytes apart, lanes t and t + 4 in the same banks: 8 per request.
 */
START_TEST(register_tiles_conflict_free)
{
    static const struct {
        const char *name, *kernel;
        double warps;             /* at MT_M x MT_N */
        double lds_ideal, lds_wf; /* per request; per warp per step */
        double sts_ideal, sts_wf;
    } versions[] = {{"matmul_1d_tile", "matmul_1d_tile_kernel", 8 * 16, 1, 72, 1, 2},
                    {"matmul_2d_tile", "matmul_2d_tile_kernel", 2 * 8, 4, 128, 1, 8}};
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    for (int v = 0; v < 2; v++) {
        struct vm_counters c =
            course_observed_sgemm(r, versions[v].name, versions[v].kernel, MT_M, MT_N, MT_K);
        double steps = versions[v].warps * (MT_K / 8);
        char what[64];
        snprintf(what, sizeof what, "%s's shared loads", versions[v].name);
        course_assert_shared_wavefronts(what, c.lds_wavefronts, c.lds_requests,
                                        versions[v].lds_ideal, versions[v].lds_wf * steps,
                                        "give neighbouring lanes neighbouring columns, each "
                                        "thread's 8 columns as two groups of 4 (64 apart), and "
                                        "unroll the k loop and the thread-tile loops fully");
        snprintf(what, sizeof what, "%s's shared stores", versions[v].name);
        course_assert_shared_wavefronts(what, c.sts_wavefronts, c.sts_requests,
                                        versions[v].sts_ideal, versions[v].sts_wf * steps,
                                        "neighbouring lanes store neighbouring words of a tile");
    }
    course_runner_stop(r);
}
END_TEST

/* The register tiles live in registers: each kernel computes C (an empty one has no local
 * memory either), and ptxas gives it no local memory. (How many FMAs the PTX spells out is the
 * compiler's business; the FMAs per shared load are counted in register_tiles_cut_shared_loads.)
 */
START_TEST(register_tiles_in_registers)
{
    static const char *const versions[][2] = {{"matmul_1d_tile", "matmul_1d_tile_kernel"},
                                              {"matmul_2d_tile", "matmul_2d_tile_kernel"},
                                              {"matmul_vectorized", "matmul_vectorized_kernel"}};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int i = 0; i < 3; i++) {
        course_judge_sgemm_right(r, versions[i][0]);
        course_assert_in_registers(LESSON_PTXAS, versions[i][1],
                                   "unroll the k loop and the loops over the thread tile fully "
                                   "(#pragma unroll), so that every index into acc, a and b is "
                                   "a constant");
    }
    course_runner_stop(r);
}
END_TEST

/* The PTX shows what the lesson builds on: every kernel stages its tiles in shared memory. */
START_TEST(ptx_tiles_in_shared_memory)
{
    char *ptx = course_read_file(LESSON_PTX);
    ck_assert_msg(ptx != NULL, "cannot read %s", LESSON_PTX);
    const char *kernels[] = {"matmul_1d_tile_kernel", "matmul_2d_tile_kernel",
                             "matmul_vectorized_kernel"};
    for (int i = 0; i < 3; i++) {
        char *body = course_ptx_entry(ptx, kernels[i]);
        ck_assert_msg(body != NULL, "no %s in the PTX", kernels[i]);
        ck_assert_msg(strstr(body, "st.shared") && strstr(body, "ld.shared"),
                      "%s does not stage its tiles in shared memory", kernels[i]);
        free(body);
    }
    free(ptx);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"matmul_1d_tile_edges", matmul_1d_tile_edges, CASE_GPU, 120},
        {"matmul_2d_tile_edges", matmul_2d_tile_edges, CASE_GPU, 120},
        {"matmul_vectorized_edges", matmul_vectorized_edges, CASE_GPU, 120},
        {"matmul_vectorized_misaligned", matmul_vectorized_misaligned, CASE_GPU, 60},
        {"register_tiles_cut_shared_loads", register_tiles_cut_shared_loads, CASE_GPU, 60},
        {"vectorized_128bit_conflict_free", vectorized_128bit_conflict_free, CASE_GPU, 60},
        {"tile_2d_faster_than_1d", tile_2d_faster_than_1d, CASE_GPU | CASE_PERF, 120},
        {"vectorized_vs_cublas", vectorized_vs_cublas, CASE_GPU | CASE_PERF, 120},
        {"register_tiles_conflict_free", register_tiles_conflict_free, CASE_GPU, 60},
        {"register_tiles_in_registers", register_tiles_in_registers, CASE_GPU, 60},
        {"ptx_tiles_in_shared_memory", ptx_tiles_in_shared_memory, CASE_CPU, 30},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
