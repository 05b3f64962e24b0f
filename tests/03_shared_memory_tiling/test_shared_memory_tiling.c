/**
 * @file test_shared_memory_tiling.c
 * @brief Lesson 03's suite: the tiled matmul and both transposes against the CPU, shared-memory
 *        structure in the PTX, and the speed-ups the lesson promises.
 */
#include <stdlib.h>
#include <string.h>

#include "course_judge.h"
#include "course_test.h"
#include "device.h"
#include "mat.h"

/* One row of A longer than the 1 MiB guard after an input: a tile load that reads the row
 * past A's last leaves the allocation, which the emulator (and often a GPU) reports. */
static const int long_k_shape[][3] = {{1, 1, 270001}};

START_TEST(matmul_tiled_edges)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_judge_sgemm_edges(r, "matmul_tiled", 400);
    course_judge_sgemm_shapes(r, "matmul_tiled", long_k_shape, 1, 450, 0);
    course_runner_stop(r);
}
END_TEST

/* Shapes around the 32 x 32 tile: single rows and columns, one short and one
 * over, and a large ragged one. */
static const int transpose_shapes[][2] = {{1, 1},    {31, 33},  {32, 32},    {33, 31},
                                          {1, 1031}, {1031, 1}, {257, 1029}, {64, 96}};

/* The transpose @p name of an M x N matrix (mat_fill_int(@p seed)) into a guarded output. */
static void check_transpose_shape(struct course_runner *r, const char *name, int M, int N,
                                  uint64_t seed)
{
    size_t count = (size_t)M * N;
    float *in = mat_alloc_f32(count), *want = mat_alloc_f32(count);
    mat_fill_int(in, count, seed);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            want[(size_t)j * M + i] = in[(size_t)i * N + j];
    int d_in = course_buf_ints(r, PROTO_DEVICE, count, seed, 0);
    int d_out = course_buf_out(r, PROTO_DEVICE, count * sizeof(float), 0);
    COURSE_CALL(r, name, PROTO_VOID, COURSE_I32(M), COURSE_I32(N), COURSE_PTR(d_in),
                COURSE_PTR(d_out));
    char what[96], why[160];
    snprintf(what, sizeof what, "%s of %d x %d (out is %d x %d)", name, M, N, N, M);
    float *out = course_buf_read(r, d_out, what);
    struct mat_cmp cmp = mat_compare(out, want, N, M, 0, 0);
    ck_assert_msg(cmp.n_bad == 0, "%s of %d x %d (out is %d x %d): %s", name, M, N, N, M,
                  mat_cmp_describe(&cmp, why, sizeof why));
    course_buf_free(r, d_in);
    course_buf_free(r, d_out);
    free(in);
    free(want);
    free(out);
}

/* The transpose @p name at every shape: one assertion per shape. */
static void check_transpose(struct course_runner *r, const char *name)
{
    for (size_t s = 0; s < sizeof transpose_shapes / sizeof *transpose_shapes; s++)
        check_transpose_shape(r, name, transpose_shapes[s][0], transpose_shapes[s][1], 30 + s);
}

START_TEST(transpose_shared_edges)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    check_transpose(r, "transpose_shared");
    course_runner_stop(r);
}
END_TEST

START_TEST(transpose_shared_padded_edges)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    check_transpose(r, "transpose_shared_padded");
    course_runner_stop(r);
}
END_TEST

/* Same run, same size: the tiled kernel against cuBLAS (timed by the judge itself) at 4096, at
 * the bar for this GPU (course_bars.c; feedback: the points are tiled_global_traffic's). */
START_TEST(tiled_vs_cublas)
{
    course_judge_vs_cublas("matmul_tiled", "tiled_vs_cublas");
}
END_TEST

/* The step this lesson takes, measured: tiles in shared memory against lesson 02's coalesced
 * kernel (the course's solution, in the same runner), same run, same sizes. */
START_TEST(tiled_faster_than_coalesced)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_judge_sgemm_right(r, "matmul_tiled");
    double tiled = course_judge_time_sgemm(r, "matmul_tiled", 2048, 2048, 2048);
    double coalesced = course_judge_time_sgemm(r, "matmul_coalesced", 2048, 2048, 2048);
    course_runner_stop(r);
    course_assert_bar("tiled_over_coalesced", coalesced / tiled,
                      "matmul_tiled %.3f ms, lesson 02's matmul_coalesced %.3f ms at 2048^3", tiled,
                      coalesced);
}
END_TEST

/* Padding removes the 32-way conflicts of the column reads: the padded version
 * must be clearly faster, and close enough to the copy bandwidth. */
START_TEST(padded_transpose_beats_conflicts)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    /* A fast wrong kernel proves nothing: first the answers, then the times. */
    check_transpose(r, "transpose_shared");
    check_transpose(r, "transpose_shared_padded");
    const int M = 8192, N = 8192;
    size_t bytes = (size_t)M * N * sizeof(float);
    int d_in = course_buf_ints(r, PROTO_DEVICE, (size_t)M * N, 1, 0);
    int d_out = course_buf_out(r, PROTO_DEVICE, bytes, 0);
    const struct proto_arg args[] = {COURSE_I32(M), COURSE_I32(N), COURSE_PTR(d_in),
                                     COURSE_PTR(d_out)};
    double plain = course_time(r, "transpose_shared", args, 4, 2, 10);
    double padded = course_time(r, "transpose_shared_padded", args, 4, 2, 10);
    course_runner_stop(r);
    double copy = device_copy_bandwidth_gbs(bytes, 10);
    double padded_gbs = 2.0 * bytes / (padded * 1e6);
    course_assert_bar("padded_over_conflicted_transpose", plain / padded,
                      "transpose_shared_padded %.3f ms, transpose_shared %.3f ms at 8192^2", padded,
                      plain);
    course_assert_bar("padded_transpose_over_copy", padded_gbs / copy,
                      "transpose_shared_padded %.0f GB/s, copy %.0f GB/s", padded_gbs, copy);
}
END_TEST

/* ---- metric cases: what the lesson teaches, counted on the CPU emulator --------------------
 *
 * Sizes are multiples of the 32 x 32 tile and buffers 256-byte aligned, so every warp is full
 * and a warp's 32 consecutive floats are 4 sectors. */

/*
 * Tiles cut global traffic by the tile's width. Lesson 02's matmul_coalesced loads, per warp
 * (one row, 32 columns of C) and per k, 1 sector of A and 4 of B: 5 M N K / 32 sectors in
 * all. matmul_tiled loads, per 32 x 32 block and per 32-deep step, a 32 x 32 tile of A and of
 * B, each warp one 128-byte row of each (4 + 4 sectors): (M N / 1024) (K / 32) 32 (8) =
 * M N K / 128, 20x fewer. The bound asks for 16x; a kernel that reads either operand from
 * global memory in its inner loop moves at least M N K / 32. Those loads are coalesced (at
 * least 80% of the sector bytes are ones the tiles need). The tiles are read conflict-free
 * (As[ty][k] is a broadcast, Bs[k][tx] 32 banks): 1 wavefront per request, which a tile
 * stored or read transposed (32-way) fails.
 */
static const double tiled_min_traffic_cut = 16;
static const double tiled_min_efficiency = 0.8;

START_TEST(tiled_global_traffic)
{
    enum { M = 96, N = 128, K = 160 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    struct vm_counters c = course_observed_sgemm(r, "matmul_tiled", "matmul_tiled_kernel", M, N, K);
    double coalesced = 5.0 * M * N * K / 32; /* matmul_coalesced's sectors */
    ck_assert_msg(tiled_min_traffic_cut * (double)c.gld_sectors <= coalesced,
                  "matmul_tiled loaded %llu sectors, %.1fx fewer than matmul_coalesced's %.0f: "
                  "the lesson's tiles make it 20x (at least %gx)",
                  (unsigned long long)c.gld_sectors, coalesced / (double)c.gld_sectors, coalesced,
                  tiled_min_traffic_cut);
    /* Coalesced tile loads move what the tiles need: a block reads 32 rows of A and 32
     * columns of B, K floats each, 256 K bytes for M N / 1024 blocks: M N K / 4 bytes. */
    course_assert_sector_efficiency("matmul_tiled's global loads", c.gld_sectors,
                                    (double)M * N * K / 4, tiled_min_efficiency);
    course_assert_per_request("matmul_tiled's shared loads", "wavefronts", c.lds_wavefronts,
                              c.lds_requests, 1, 1);
    course_assert_per_request("matmul_tiled's shared stores", "wavefronts", c.sts_wavefronts,
                              c.sts_requests, 1, 1);
    course_runner_stop(r);
}
END_TEST

/* The transpose @p name, 64 x 96 in, on @p r (observed): it loads rows of in and stores rows of
 * out (at most 4 sectors per request, coalesced), and its shared accesses take @p store_wf
 * wavefronts per store request and @p load_wf per load request. */
static void check_transpose_counts(struct course_runner *r, const char *name, const char *kernel,
                                   double store_wf, double load_wf, uint64_t seed)
{
    char what[96];
    check_transpose_shape(r, name, 64, 96, seed);
    struct vm_counters c = course_observed(r, kernel);
    snprintf(what, sizeof what, "%s's loads of in", name);
    course_assert_per_request(what, "sectors", c.gld_sectors, c.gld_requests, 0, 4);
    snprintf(what, sizeof what, "%s's stores of out", name);
    course_assert_per_request(what, "sectors", c.gst_sectors, c.gst_requests, 0, 4);
    snprintf(what, sizeof what, "%s's stores into the tile", name);
    course_assert_per_request(what, "wavefronts", c.sts_wavefronts, c.sts_requests, store_wf,
                              store_wf);
    snprintf(what, sizeof what, "%s's column reads of the tile", name);
    course_assert_per_request(what, "wavefronts", c.lds_wavefronts, c.lds_requests, load_wf,
                              load_wf);
}

/*
 * The plain transpose, by request type: it stores rows of the 32 x 32 tile (tile[y + j][x]: 32
 * banks, 1 wavefront) and reads its columns (tile[x][y + j]: 32 words 32 words apart, all in
 * one bank: 32 wavefronts per request). A transpose that writes out a column at a time
 * (uncoalesced) fails.
 */
START_TEST(transpose_bank_conflicts)
{
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    check_transpose_counts(r, "transpose_shared", "transpose_shared_kernel", 1, 32, 90);
    course_runner_stop(r);
}
END_TEST

/*
 * The open design task: transpose_shared_padded's tile is laid out as the student chooses
 * (one column of padding, a swizzle such as [r][c ^ r], ...). Any layout scores whose row
 * stores and column reads are both conflict-free, one wavefront per request, with the global
 * accesses still coalesced. Padding the wrong dimension, or a layout that moves the conflict
 * from the reads to the stores, fails.
 */
START_TEST(tile_layout_conflict_free)
{
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    check_transpose_counts(r, "transpose_shared_padded", "transpose_shared_padded_kernel", 1, 1,
                           91);
    course_runner_stop(r);
}
END_TEST

/* The PTX shows what the lesson teaches: each kernel stages data through shared memory (stores
 * and loads) behind a barrier. How many barriers, and where, is judged by what the kernels
 * compute (the edge cases) and by ./course sanitize's racecheck and synccheck; the padding by
 * transpose_bank_conflicts. */
START_TEST(ptx_uses_shared_memory)
{
    char *ptx = course_read_file(LESSON_PTX);
    ck_assert_msg(ptx != NULL, "cannot read %s", LESSON_PTX);
    const char *kernels[] = {"matmul_tiled_kernel", "transpose_shared_kernel",
                             "transpose_shared_padded_kernel"};
    for (int i = 0; i < 3; i++) {
        char *body = course_ptx_entry(ptx, kernels[i]);
        ck_assert_msg(body != NULL, "no %s in the PTX", kernels[i]);
        ck_assert_msg(strstr(body, "st.shared"), "%s never stores to shared memory", kernels[i]);
        ck_assert_msg(strstr(body, "ld.shared"), "%s never loads from shared memory", kernels[i]);
        ck_assert_msg(strstr(body, "bar.sync"), "%s has no __syncthreads()", kernels[i]);
        ck_assert_msg(strstr(body, "ld.global") && strstr(body, "st.global"),
                      "%s does not both load and store global memory", kernels[i]);
        free(body);
    }
    free(ptx);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"matmul_tiled_edges", matmul_tiled_edges, CASE_GPU, 120},
        {"transpose_shared_edges", transpose_shared_edges, CASE_GPU, 60},
        {"transpose_shared_padded_edges", transpose_shared_padded_edges, CASE_GPU, 60},
        {"tiled_faster_than_coalesced", tiled_faster_than_coalesced, CASE_GPU | CASE_PERF, 120},
        {"tiled_vs_cublas", tiled_vs_cublas, CASE_GPU | CASE_PERF, 120},
        {"padded_transpose_beats_conflicts", padded_transpose_beats_conflicts, CASE_GPU | CASE_PERF,
         120},
        {"ptx_uses_shared_memory", ptx_uses_shared_memory, CASE_CPU, 30},
        {"tiled_global_traffic", tiled_global_traffic, CASE_GPU, 60},
        {"transpose_bank_conflicts", transpose_bank_conflicts, CASE_GPU, 60},
        {"tile_layout_conflict_free", tile_layout_conflict_free, CASE_GPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
