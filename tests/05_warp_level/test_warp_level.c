/**
 * @file test_warp_level.c
 * @brief Lesson 05's suite: warp_sum, gemv_warp and matmul_warptile against the CPU at edge sizes
 *        and misaligned pointers, shuffles and vector loads in the PTX, and their speed.
 */
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "course_judge.h"
#include "course_test.h"
#include "cuda_check.h"
#include "device.h"
#include "mat.h"
#include "ref.h"
#include "timer.h"

/* Around one warp and one block of 1024, a prime, and enough for many strides. */
static const int sum_lengths[] = {0, 1, 31, 32, 33, 1021, 1024, 1025, 1000003};

/* warp_sum of @p n small integers (mat_fill_int(@p seed)) against the exact sum. */
static void check_warp_sum(struct course_runner *r, int n, uint64_t seed)
{
    float *x = mat_alloc_f32(n > 0 ? n : 1);
    mat_fill_int(x, n, seed);
    double want = 0;
    for (int i = 0; i < n; i++)
        want += x[i];
    int d_x = course_buf_ints(r, PROTO_DEVICE, n, seed, 0);
    int d_out = course_buf_out(r, PROTO_DEVICE, sizeof(float), 0);
    COURSE_CALL(r, "warp_sum", PROTO_VOID, COURSE_PTR(d_x), COURSE_I32(n), COURSE_PTR(d_out));
    float *got = course_buf_read(r, d_out, "warp_sum");
    /* Integers below 2^24: every order of addition gives the exact sum. */
    ck_assert_msg(*got == want, "warp_sum of n=%d: got %g, want %g", n, *got, want);
    course_buf_free(r, d_x);
    course_buf_free(r, d_out);
    free(x);
    free(got);
}

START_TEST(warp_sum_edges)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (size_t l = 0; l < sizeof sum_lengths / sizeof *sum_lengths; l++)
        check_warp_sum(r, sum_lengths[l], 80 + l);
    course_runner_stop(r);
}
END_TEST

/* Run gemv_warp at M x K with A and y starting @p offset bytes past an aligned address and x
 * @p x_offset bytes past one, and compare with the oracle exactly. */
static void check_gemv_at(struct course_runner *r, int M, int K, size_t offset, size_t x_offset,
                          uint64_t seed)
{
    size_t na = (size_t)M * K;
    float *A = mat_alloc_f32(na), *x = mat_alloc_f32(K);
    double *want = mat_alloc((size_t)M * sizeof *want);
    mat_fill_int(A, na, seed);
    mat_fill_int(x, K, seed + 1);
    ref_matmul_f64(M, 1, K, A, x, want); /* y = A x is C = A * B with N = 1 */
    int d_A = course_buf_ints(r, PROTO_DEVICE, na, seed, offset);
    int d_x = course_buf_ints(r, PROTO_DEVICE, K, seed + 1, x_offset);
    int d_y = course_buf_out(r, PROTO_DEVICE, (size_t)M * sizeof(float), offset);
    COURSE_CALL(r, "gemv_warp", PROTO_VOID, COURSE_I32(M), COURSE_I32(K), COURSE_PTR(d_A),
                COURSE_PTR(d_x), COURSE_PTR(d_y));
    char what[64], why[160];
    snprintf(what, sizeof what, "gemv_warp at M=%d K=%d", M, K);
    float *y = course_buf_read(r, d_y, what);
    struct mat_cmp cmp = mat_compare_f64(y, want, M, 1, 0, 0);
    ck_assert_msg(cmp.n_bad == 0, "gemv_warp at M=%d K=%d (A and y %zu bytes in, x %zu): %s", M, K,
                  offset, x_offset, mat_cmp_describe(&cmp, why, sizeof why));
    course_buf_free(r, d_A);
    course_buf_free(r, d_x);
    course_buf_free(r, d_y);
    free(A);
    free(x);
    free(y);
    free(want);
}

/* check_gemv_at() with every pointer @p offset bytes past an aligned address. */
static void check_gemv(struct course_runner *r, int M, int K, size_t offset, uint64_t seed)
{
    check_gemv_at(r, M, K, offset, offset, seed);
}

START_TEST(gemv_warp_edges)
{
    /* Scalar path (K % 4 != 0) and float4 path (K % 4 == 0), rows around the
     * 8 rows of a block, K around one warp-wide step (32 or 128 floats). */
    static const int shapes[][2] = {{1, 1},    {31, 31},   {32, 32},   {33, 33},
                                    {1, 1031}, {1031, 1},  {127, 131}, {257, 1029},
                                    {9, 4},    {67, 1024}, {33, 132},  {1001, 516}};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        check_gemv(r, shapes[s][0], shapes[s][1], 0, 90 + s);
    course_runner_stop(r);
}
END_TEST

/* K a multiple of 4 but A and x off 16-byte alignment, both or x alone: the launcher must take
 * the scalar path. */
START_TEST(gemv_warp_misaligned)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    check_gemv(r, 67, 1024, 4, 120);
    check_gemv(r, 33, 132, 12, 121);
    check_gemv_at(r, 33, 132, 0, 8, 122);
    course_runner_stop(r);
}
END_TEST

START_TEST(matmul_warptile_edges)
{
    /* Multiples of 4 (the float4 path) that are not multiples of the tiles, K of one, two and
     * several 16-deep steps, and N % 4 == 0 with K % 4 != 0 (and the reverse), where an
     * alignment test on the wrong dimension breaks. */
    static const int shapes[][3] = {{128, 128, 16}, {132, 260, 36}, {4, 4, 4},     {256, 124, 1028},
                                    {260, 132, 32}, {128, 132, 37}, {130, 37, 132}};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_judge_sgemm_edges(r, "matmul_warptile", 700);
    course_judge_sgemm_shapes(r, "matmul_warptile", shapes, sizeof shapes / sizeof *shapes, 800, 0);
    course_runner_stop(r);
}
END_TEST

/* Sizes that allow float4 but pointers that do not. */
START_TEST(matmul_warptile_misaligned)
{
    static const int shapes[][3] = {{132, 136, 68}, {128, 132, 36}};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_judge_sgemm_shapes(r, "matmul_warptile", shapes, 2, 73, sizeof(float));
    course_runner_stop(r);
}
END_TEST

/* Median ms of the gemv @p name (in the runner) or cublasSgemv (in the judge) at M x K. */
struct gemv_call {
    int M, K;
    const float *d_A, *d_x;
    float *d_y;
};

static void run_cublas_gemv(void *arg)
{
    struct gemv_call *c = arg;
    baseline_sgemv(c->M, c->K, c->d_A, c->d_x, c->d_y);
}

static double time_cublas_gemv(int M, int K)
{
    struct gemv_call call = {M, K, NULL, NULL, NULL};
    float *d_A, *d_x;
    CUDA_CHECK(cudaMalloc((void **)&d_A, (size_t)M * K * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_x, K * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&call.d_y, M * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_A, 0, (size_t)M * K * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_x, 0, K * sizeof(float)));
    call.d_A = d_A;
    call.d_x = d_x;
    struct timer_opts o = {2, 10, 1, 0};
    double ms = timer_measure(run_cublas_gemv, &call, &o).median_ms;
    baseline_release();
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(call.d_y));
    return ms;
}

/* gemv_warp against cublasSgemv and the copy bandwidth, both measured by the judge, in the
 * same run, against the bars for this GPU (course_bars.c; feedback:
 * the points are gemv_coalesced's). */
START_TEST(gemv_warp_bandwidth)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    check_gemv(r, 129, 516, 0, 1); /* a fast wrong kernel proves nothing */
    const int M = 8192, K = 8192;
    size_t na = (size_t)M * K;
    double bytes = 4.0 * ((double)na + K + M);
    int d_A = course_buf_ints(r, PROTO_DEVICE, na, 1, 0);
    int d_x = course_buf_ints(r, PROTO_DEVICE, K, 2, 0);
    int d_y = course_buf_out(r, PROTO_DEVICE, M * sizeof(float), 0);
    const struct proto_arg args[] = {COURSE_I32(M), COURSE_I32(K), COURSE_PTR(d_A), COURSE_PTR(d_x),
                                     COURSE_PTR(d_y)};
    double ms = course_time(r, "gemv_warp", args, 5, 2, 10);
    course_runner_stop(r);
    double cublas = time_cublas_gemv(M, K);
    double gbs = bytes / (ms * 1e6);
    double copy = device_copy_bandwidth_gbs((size_t)(bytes / 2), 10);
    course_assert_bar("gemv_over_copy", gbs / copy, "gemv_warp %.0f GB/s, copy %.0f GB/s", gbs,
                      copy);
    course_assert_bar("gemv_over_cublas", cublas / ms, "gemv_warp %.3f ms, cublasSgemv %.3f ms", ms,
                      cublas);
}
END_TEST

/* The ladder's fastest FP32 kernel against cuBLAS in the same run, at 4096, against the bar
 * for this GPU (course_bars.c; feedback: the points are warptile_128bit_conflict_free's). */
START_TEST(warptile_vs_cublas)
{
    course_judge_vs_cublas("matmul_warptile", "warptile_vs_cublas");
}
END_TEST

/* The ladder's last step, measured: warp tiles against lesson 04's vectorized kernel (the
 * course's solution, in the same runner), same run, same sizes. */
START_TEST(warptile_faster_than_vectorized)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_judge_sgemm_right(r, "matmul_warptile");
    double warptile = course_judge_time_sgemm(r, "matmul_warptile", 4096, 4096, 4096);
    double vectorized = course_judge_time_sgemm(r, "matmul_vectorized", 4096, 4096, 4096);
    course_runner_stop(r);
    course_assert_bar("warptile_over_vectorized", vectorized / warptile,
                      "matmul_warptile %.3f ms, lesson 04's matmul_vectorized %.3f ms", warptile,
                      vectorized);
}
END_TEST

/* ---- metric cases: what the lesson teaches, counted on the CPU emulator -------------------- */

/*
 * warp_sum reduces in registers: the shuffles need no shared memory and no barrier, so the
 * only shared traffic is the 32 partials (lane 0 of each warp stores one, 32 requests; warp 0
 * loads them, 1) and the only barrier is the one before warp 0 reads them, reached by each of
 * the 32 warps. A shared-memory tree adds a barrier per halving (10 for 1024 threads) and a
 * store and a load per step. The loads of x are coalesced: 4 sectors per request. (n is a
 * multiple of 1024, so every thread takes the same number of steps: where the counts differ,
 * nvcc's unrolled loop has lanes of one warp at different steps in one load, a sector more.)
 */
START_TEST(warp_sum_shuffles)
{
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    check_warp_sum(r, 100 * 1024, 120);
    struct vm_counters c = course_observed(r, "warp_sum_kernel");
    ck_assert_msg(c.barriers <= 32,
                  "warp_sum: %llu barriers (summed over warps), want 32: one __syncthreads() "
                  "before warp 0 reads the partials; the shuffles need none",
                  (unsigned long long)c.barriers);
    ck_assert_msg(c.sts_requests <= 32 && c.lds_requests <= 1,
                  "warp_sum: %llu shared stores and %llu shared loads (warp-level), want 32 and "
                  "1: reduce within each warp with __shfl_down_sync, in registers",
                  (unsigned long long)c.sts_requests, (unsigned long long)c.lds_requests);
    course_assert_per_request("warp_sum's loads of x", "sectors", c.gld_sectors, c.gld_requests, 0,
                              4);
    course_runner_stop(r);
}
END_TEST

/*
 * gemv_warp reads each row of A with a whole warp: with K % 4 == 0, lane l reads float4 l, so a
 * request is 512 contiguous bytes, 16 sectors, and a row of K floats is K / 128 requests (and
 * as many for x). K = 1024: 16 requests per row. A lane that walks a piece of the row of its
 * own makes a sector per lane (32 per request). Without float4 (K = 1001) a request is 128
 * bytes, 4 sectors or 5 when the row does not start on a sector: at most 5.
 */
static const double gemv_scalar_max_sectors_per_request = 5;

START_TEST(gemv_coalesced)
{
    enum { M = 64, K = 1024 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    check_gemv(r, M, K, 0, 130);
    struct vm_counters c = course_observed(r, "gemv_warp_kernel");
    course_assert_per_request("gemv_warp's float4 loads of A and x", "sectors", c.gld_sectors,
                              c.gld_requests, 0, 16);
    ck_assert_msg(c.gld_requests <= 2 * M * K / 128,
                  "gemv_warp made %llu load requests at M=%d K=%d; float4 loads make %d",
                  (unsigned long long)c.gld_requests, M, K, 2 * M * K / 128);
    check_gemv(r, M, K - 23, 0, 140);
    c = course_observed(r, "gemv_warp_kernel");
    course_assert_per_request("gemv_warp's scalar loads (K % 4 != 0)", "sectors", c.gld_sectors,
                              c.gld_requests, 0, gemv_scalar_max_sectors_per_request);
    course_runner_stop(r);
}
END_TEST

/*
 * matmul_warptile's lanes are laid out so that its 128-bit shared loads are broadcasts without
 * bank conflicts: per k, two float4 of As (8 distinct, 128 contiguous bytes) and two of Bs (4
 * distinct, 64 bytes), 4 wavefronts per request (2 where lanes read one address in pairs: 3
 * on average), 64 FMAs per 4 loads. Its global loads are
 * float4: per 16-deep tile, 2 of A and 2 of B per thread, 4 requests per warp, 16 sectors each.
 * 128 x 256 x 64: whole tiles, 256-byte aligned rows.
 */
START_TEST(warptile_128bit_conflict_free)
{
    enum { M = 128, N = 256, K = 64 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    struct vm_counters c =
        course_observed_sgemm(r, "matmul_warptile", "matmul_warptile_kernel", M, N, K);
    uint64_t warps = (uint64_t)(M / 128) * (N / 128) * 8, tiles = K / 16;
    course_assert_float4_tiles("matmul_warptile", &c, 4 * warps * tiles);
    course_runner_stop(r);
}
END_TEST

/*
 * matmul_warptile stores its tiles without bank conflicts beyond the transposition's: per warp
 * per 16-deep tile, 2 float4 of A and 2 of B per thread. A is stored transposed, 4 scalar
 * stores per float4: a warp's lanes are 8 rows of A (8 neighbouring words) times 4 groups of k,
 * 4 rows of As apart; with rows of 128 + 4 floats those are banks 0 and 16 apart, 2 wavefronts
 * per store (without the padding all 4 groups share a bank: 4). B goes in as float4, 512
 * contiguous bytes, 4 wavefronts. So 2 (4 x 2 + 4) = 24 wavefronts in 10 requests per warp per
 * tile. 128 x 256 x 64: 16 warps, 4 tiles.
 */
START_TEST(warptile_shared_stores_conflict_free)
{
    enum { M = 128, N = 256, K = 64 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    struct vm_counters c =
        course_observed_sgemm(r, "matmul_warptile", "matmul_warptile_kernel", M, N, K);
    double warp_tiles = (double)(M / 128) * (N / 128) * 8 * (K / 16);
    course_assert_shared_wavefronts("matmul_warptile's shared stores", c.sts_wavefronts,
                                    c.sts_requests, 24.0 / 10, 24.0 * warp_tiles,
                                    "pad the rows of As (WT_PAD) so that the transposed stores "
                                    "spread over the banks");
    course_runner_stop(r);
}
END_TEST

/* The reductions use warp shuffles (of any kind: down, xor, ...). */
static void assert_shuffles(const char *kernel)
{
    char *ptx = course_read_file(LESSON_PTX);
    ck_assert_msg(ptx != NULL, "cannot read %s", LESSON_PTX);
    char *body = course_ptx_entry(ptx, kernel);
    ck_assert_msg(body != NULL, "no %s in the PTX", kernel);
    ck_assert_msg(strstr(body, "shfl.sync"), "%s uses no warp shuffle (__shfl_*_sync)", kernel);
    free(body);
    free(ptx);
}

START_TEST(ptx_warp_sum_shuffles)
{
    assert_shuffles("warp_sum_kernel");
}
END_TEST

START_TEST(ptx_gemv_shuffles)
{
    assert_shuffles("gemv_warp_kernel");
}
END_TEST

/* The 8 x 8 thread tile lives in registers: matmul_warptile computes C (an empty kernel has no
 * local memory either), and ptxas gives it no local memory. */
START_TEST(warptile_in_registers)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_judge_sgemm_right(r, "matmul_warptile");
    course_runner_stop(r);
    course_assert_in_registers(LESSON_PTXAS, "matmul_warptile_kernel",
                               "unroll the k loop fully, and the loops over the thread tile "
                               "(#pragma unroll), so that every index into acc, a and b is a "
                               "constant");
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"warp_sum_edges", warp_sum_edges, CASE_GPU, 60},
        {"gemv_warp_edges", gemv_warp_edges, CASE_GPU, 60},
        {"gemv_warp_misaligned", gemv_warp_misaligned, CASE_GPU, 60},
        {"matmul_warptile_edges", matmul_warptile_edges, CASE_GPU, 120},
        {"matmul_warptile_misaligned", matmul_warptile_misaligned, CASE_GPU, 60},
        {"warp_sum_shuffles", warp_sum_shuffles, CASE_GPU, 60},
        {"gemv_coalesced", gemv_coalesced, CASE_GPU, 60},
        {"warptile_128bit_conflict_free", warptile_128bit_conflict_free, CASE_GPU, 60},
        {"gemv_warp_bandwidth", gemv_warp_bandwidth, CASE_GPU | CASE_PERF, 120},
        {"warptile_faster_than_vectorized", warptile_faster_than_vectorized, CASE_GPU | CASE_PERF,
         120},
        {"warptile_vs_cublas", warptile_vs_cublas, CASE_GPU | CASE_PERF, 120},
        {"warptile_shared_stores_conflict_free", warptile_shared_stores_conflict_free, CASE_GPU,
         60},
        {"ptx_warp_sum_shuffles", ptx_warp_sum_shuffles, CASE_CPU, 30},
        {"ptx_gemv_shuffles", ptx_gemv_shuffles, CASE_CPU, 30},
        {"warptile_in_registers", warptile_in_registers, CASE_GPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
