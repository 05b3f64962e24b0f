/**
 * @file test_threads_blocks_grids.c
 * @brief Lesson 02's suite: vector_add (launcher and host side) and both matmuls against the
 *        CPU, plus PTX structure and the speed-ups the lesson promises.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "course_judge.h"
#include "course_test.h"
#include "device.h"
#include "mat.h"

/* Lengths around warp and block multiples, a prime, and one past a full
 * grid (so the grid-stride loop takes more than one step). */
static const int vec_lengths[] = {1, 31, 32, 33, 255, 256, 257, 1000003, 5000011};

/* a + b for @p n elements of mat_fill_int(@p seed) and mat_fill_int(@p seed + 10). */
static float *vector_sum(int n, uint64_t seed)
{
    float *a = mat_alloc_f32(n), *b = mat_alloc_f32(n);
    mat_fill_int(a, n, seed);
    mat_fill_int(b, n, seed + 10);
    for (int i = 0; i < n; i++)
        a[i] += b[i];
    free(b);
    return a;
}

/* Compare @p got with @p want (n floats) exactly: one assertion for the whole array. */
static void assert_vector(const float *got, const float *want, int n, const char *name)
{
    struct mat_cmp cmp = mat_compare(got, want, 1, n, 0, 0);
    char why[160];
    ck_assert_msg(cmp.n_bad == 0, "%s at n=%d: %s", name, n,
                  mat_cmp_describe(&cmp, why, sizeof why));
}

/* vector_add on @p n small integers in device memory, into a poisoned, guarded c. */
static void check_vector_add(struct course_runner *r, int n, uint64_t seed)
{
    int a = course_buf_ints(r, PROTO_DEVICE, n, seed, 0);
    int b = course_buf_ints(r, PROTO_DEVICE, n, seed + 10, 0);
    int c = course_buf_out(r, PROTO_DEVICE, (size_t)n * sizeof(float), 0);
    COURSE_CALL(r, "vector_add", PROTO_VOID, COURSE_PTR(a), COURSE_PTR(b), COURSE_PTR(c),
                COURSE_I32(n));
    char what[64];
    snprintf(what, sizeof what, "vector_add at n=%d", n);
    float *got = course_buf_read(r, c, what), *want = vector_sum(n, seed);
    assert_vector(got, want, n, "vector_add");
    course_buf_free(r, a);
    course_buf_free(r, b);
    course_buf_free(r, c);
    free(got);
    free(want);
}

/*
 * Counted on the emulator: vector_add reads each sector of a and b and writes each sector of c
 * once, and reaches all of them. A loop that steps by a block, not by the whole grid, gives the
 * right sums but makes every block redo the rest of the array (on the emulator, a timeout at
 * the lengths below); 20011 elements are several blocks of any size.
 */
static void assert_added_once(void)
{
    const int n = 20011;
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    check_vector_add(r, n, 90);
    struct vm_counters c = course_observed(r, "vector_add_kernel");
    course_runner_stop(r);
    course_assert_each_sector_once("vector_add at n=20011", &c, 8ull * n, 4ull * n);
}

START_TEST(vector_add_edges)
{
    assert_added_once(); /* first: a loop that redoes work is slow at the lengths below */
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (size_t l = 0; l < sizeof vec_lengths / sizeof *vec_lengths; l++)
        check_vector_add(r, vec_lengths[l], 10 + l);
    course_runner_stop(r);
}
END_TEST

/* The student's host code: host arrays in, a host array and a time out. */
START_TEST(vector_add_host_edges)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (size_t l = 0; l < sizeof vec_lengths / sizeof *vec_lengths; l++) {
        int n = vec_lengths[l];
        int a = course_buf_ints(r, PROTO_HOST, n, 50 + l, 0);
        int b = course_buf_ints(r, PROTO_HOST, n, 60 + l, 0);
        int c = course_buf_out(r, PROTO_HOST, (size_t)n * sizeof(float), 0);
        int ms = course_buf_out(r, PROTO_HOST, sizeof(float), 0);
        COURSE_CALL(r, "vector_add_host", PROTO_VOID, COURSE_I32(n), COURSE_PTR(a), COURSE_PTR(b),
                    COURSE_PTR(c), COURSE_PTR(ms));
        char what[64];
        snprintf(what, sizeof what, "vector_add_host at n=%d", n);
        float *got = course_buf_read(r, c, what);
        float *want = vector_sum(n, 50 + l), *t = course_buf_read(r, ms, what);
        assert_vector(got, want, n, "vector_add_host");
        ck_assert_msg(isfinite(*t) && *t > 0,
                      "vector_add_host at n=%d reported %g ms: time the "
                      "kernel between two recorded events",
                      n, *t);
        course_buf_free(r, a);
        course_buf_free(r, b);
        course_buf_free(r, c);
        course_buf_free(r, ms);
        free(got);
        free(want);
        free(t);
    }
    course_runner_stop(r);
}
END_TEST

START_TEST(matmul_naive_edges)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_judge_sgemm_edges(r, "matmul_naive", 300);
    course_runner_stop(r);
}
END_TEST

START_TEST(matmul_coalesced_edges)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_judge_sgemm_edges(r, "matmul_coalesced", 300);
    course_runner_stop(r);
}
END_TEST

/* Same run, same sizes, against the bar for this GPU (course_bars.c; feedback: the points are
 * coalesced_sector_efficiency's). */
START_TEST(coalesced_faster_than_naive)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    /* A fast wrong kernel proves nothing: first the answers, then the times. */
    static const int shape[][3] = {{129, 65, 63}};
    course_judge_sgemm_shapes(r, "matmul_naive", shape, 1, 1, 0);
    course_judge_sgemm_shapes(r, "matmul_coalesced", shape, 1, 2, 0);
    double naive = course_judge_time_sgemm(r, "matmul_naive", 2048, 2048, 2048);
    double coalesced = course_judge_time_sgemm(r, "matmul_coalesced", 2048, 2048, 2048);
    course_assert_bar("coalesced_over_naive", naive / coalesced,
                      "matmul_coalesced %.3f ms, matmul_naive %.3f ms at 2048^3", coalesced, naive);
    course_runner_stop(r);
}
END_TEST

/* vector_add against a copy of the same footprint (the judge's own, on the same GPU): the
 * bar is course_bars.c's (feedback: the points are vector_add_sector_efficiency's). */
START_TEST(vector_add_near_copy_bandwidth)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    check_vector_add(r, 1000003, 40); /* a fast wrong kernel proves nothing */
    const int n = 1 << 26;
    size_t bytes = (size_t)n * sizeof(float);
    int a = course_buf_ints(r, PROTO_DEVICE, n, 1, 0),
        b = course_buf_ints(r, PROTO_DEVICE, n, 2, 0);
    int c = course_buf_out(r, PROTO_DEVICE, bytes, 0);
    const struct proto_arg args[] = {COURSE_PTR(a), COURSE_PTR(b), COURSE_PTR(c), COURSE_I32(n)};
    double gbs = 3.0 * bytes / (course_time(r, "vector_add", args, 4, 2, 10) * 1e6);
    course_runner_stop(r);
    double copy = device_copy_bandwidth_gbs(bytes * 3 / 2, 10);
    course_assert_bar("vector_add_over_copy", gbs / copy,
                      "vector_add %.0f GB/s, a copy of the same footprint %.0f GB/s", gbs, copy);
}
END_TEST

/* ---- metric cases: what the lesson teaches, counted on the CPU emulator ---------------------
 *
 * Full warps (N a multiple of 32) and 256-byte aligned buffers, so a warp's 32 consecutive
 * floats are 128 bytes in exactly 4 sectors of 32 bytes. */

/*
 * The two mappings, as the lesson states them, judged by the sectors they move against what
 * the problem needs (extra requests cannot dilute that). matmul_coalesced's warp shares a row:
 * per k it needs one A element (a broadcast, one 32-byte sector) and 32 consecutive B elements
 * (128 bytes, 4 sectors): 160 bytes per warp per k, M ceil(N / 32) warps; its stores of C need
 * 4 M N bytes (blocks 16 x 16 need less: a warp's two rows share B's sectors). matmul_naive's
 * warp walks down a column: per k 32 A elements a row apart (32 sectors) and one B element (1),
 * 16.5 sectors per request, and C stores a row apart (32): 15% and 12% efficient; in 16 x 16
 * blocks, 16 rows of 2 columns: 8.5 and 16. The bounds, 80% for the coalesced mapping and at
 * least 8 sectors per request for the naive one, sit between.
 */
static const double coalesced_min_efficiency = 0.8;
static const double naive_min_sectors_per_request = 8;

START_TEST(coalesced_sector_efficiency)
{
    enum { M = 64, N = 96, K = 48 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    struct vm_counters c =
        course_observed_sgemm(r, "matmul_coalesced", "matmul_coalesced_kernel", M, N, K);
    double warps = (double)M * ((N + 31) / 32);
    course_assert_sector_efficiency("matmul_coalesced's global loads", c.gld_sectors,
                                    warps * K * 160, coalesced_min_efficiency);
    course_assert_sector_efficiency("matmul_coalesced's stores of C", c.gst_sectors, 4.0 * M * N,
                                    coalesced_min_efficiency);
    c = course_observed_sgemm(r, "matmul_naive", "matmul_naive_kernel", M, N, K);
    course_assert_per_request("matmul_naive's global loads (a warp walks down a column of C)",
                              "sectors", c.gld_sectors, c.gld_requests,
                              naive_min_sectors_per_request, 1e9);
    course_assert_per_request("matmul_naive's stores of C", "sectors", c.gst_sectors,
                              c.gst_requests, naive_min_sectors_per_request, 1e9);
    course_runner_stop(r);
}
END_TEST

/*
 * vector_add's grid-stride loop keeps neighbouring threads on neighbouring elements, so it
 * moves what the problem needs and no more: 2 n floats loaded and n stored, 8 n and 4 n bytes
 * (the last, partial sector aside: at least 99%), whether a lane loads floats (4 sectors per
 * request) or float4 (16). Each element is read once: at most 2 requests per 32 elements. n
 * is past the launcher's largest grid (132 SMs x 32 blocks x 256 threads), so the loop takes
 * a second step. A thread that walks a chunk of its own loads each sector 8 times: 12%.
 */
static const double vector_add_min_efficiency = 0.99;

START_TEST(vector_add_sector_efficiency)
{
    const int n = 2000003;
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    check_vector_add(r, n, 70);
    struct vm_counters c = course_observed(r, "vector_add_kernel");
    course_assert_sector_efficiency("vector_add's loads of a and b", c.gld_sectors, 8.0 * n,
                                    vector_add_min_efficiency);
    course_assert_sector_efficiency("vector_add's stores of c", c.gst_sectors, 4.0 * n,
                                    vector_add_min_efficiency);
    ck_assert_msg(c.gld_requests <= 2 * ((n + 31) / 32),
                  "vector_add made %llu load requests for 2 x %d elements: %d would do",
                  (unsigned long long)c.gld_requests, n, 2 * ((n + 31) / 32));
    course_runner_stop(r);
}
END_TEST

/* The PTX shows the grid-stride loop the lesson teaches: vector_add_kernel reads the grid
 * size (%nctaid) and the block size (%ntid), and loads and stores global memory. */
START_TEST(ptx_vector_add_grid_stride)
{
    char *ptx = course_read_file(LESSON_PTX);
    ck_assert_msg(ptx != NULL, "cannot read %s", LESSON_PTX);
    char *vec = course_ptx_entry(ptx, "vector_add_kernel");
    ck_assert_msg(vec != NULL, "no vector_add_kernel in the PTX");
    ck_assert_msg(strstr(vec, "%nctaid.x") && strstr(vec, "%ntid.x"),
                  "vector_add_kernel does not read gridDim.x and blockDim.x: no grid-stride loop");
    ck_assert_msg(strstr(vec, "ld.global") && strstr(vec, "st.global"),
                  "vector_add_kernel neither loads nor stores global memory");
    free(vec);
    free(ptx);
}
END_TEST

/* The PTX shows both matmuls using the y dimension of their 32 x 8 blocks and grid. */
START_TEST(ptx_matmuls_use_2d_blocks)
{
    char *ptx = course_read_file(LESSON_PTX);
    ck_assert_msg(ptx != NULL, "cannot read %s", LESSON_PTX);
    const char *gemms[] = {"matmul_naive_kernel", "matmul_coalesced_kernel"};
    for (int g = 0; g < 2; g++) {
        char *body = course_ptx_entry(ptx, gemms[g]);
        ck_assert_msg(body != NULL, "no %s in the PTX", gemms[g]);
        ck_assert_msg(strstr(body, "%tid.y") && strstr(body, "%ctaid.y"),
                      "%s does not use the y dimension of the block and grid", gemms[g]);
        free(body);
    }
    free(ptx);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"vector_add_edges", vector_add_edges, CASE_GPU, 60},
        {"vector_add_host_edges", vector_add_host_edges, CASE_GPU, 60},
        {"matmul_naive_edges", matmul_naive_edges, CASE_GPU, 120},
        {"matmul_coalesced_edges", matmul_coalesced_edges, CASE_GPU, 120},
        {"coalesced_faster_than_naive", coalesced_faster_than_naive, CASE_GPU | CASE_PERF, 120},
        {"vector_add_near_copy_bandwidth", vector_add_near_copy_bandwidth, CASE_GPU | CASE_PERF,
         60},
        {"ptx_vector_add_grid_stride", ptx_vector_add_grid_stride, CASE_CPU, 30},
        {"ptx_matmuls_use_2d_blocks", ptx_matmuls_use_2d_blocks, CASE_CPU, 30},
        {"coalesced_sector_efficiency", coalesced_sector_efficiency, CASE_GPU, 60},
        {"vector_add_sector_efficiency", vector_add_sector_efficiency, CASE_GPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
