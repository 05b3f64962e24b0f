/**
 * @file test_threads_blocks_grids.c
 * @brief Lesson 02's suite: vector_add and both matmuls against the CPU, plus PTX structure.
 */
#include <stdlib.h>
#include <string.h>

#include "course_test.h"
#include "cuda_check.h"
#include "device.h"
#include "mat.h"
#include "threads_blocks_grids.h"
#include "timer.h"

/* Lengths around warp and block multiples, a prime, and one past a full
 * grid (so the grid-stride loop takes more than one step). */
static const int vec_lengths[] = {1, 31, 32, 33, 255, 256, 257, 1000003, 5000011};

/* Run vector_add on @p n small integers into a poisoned c and compare every element exactly. */
static void check_vector_add(int n, uint64_t seed)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *a = mat_alloc_f32(n), *b = mat_alloc_f32(n), *c = mat_alloc_f32(n);
    mat_fill_int(a, n, seed);
    mat_fill_int(b, n, seed + 10);
    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc((void **)&d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_c, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));
    mat_poison_device(d_c, bytes);
    vector_add(d_a, d_b, d_c, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        ck_assert_msg(c[i] == a[i] + b[i], "n=%d: c[%d] = %g, want %g", n, i, c[i], a[i] + b[i]);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    free(a);
    free(b);
    free(c);
}

START_TEST(vector_add_edges)
{
    for (size_t l = 0; l < sizeof vec_lengths / sizeof *vec_lengths; l++)
        check_vector_add(vec_lengths[l], 10 + l);
}
END_TEST

START_TEST(matmul_naive_edges)
{
    course_assert_sgemm_edges(matmul_naive, "matmul_naive", 300);
}
END_TEST

START_TEST(matmul_coalesced_edges)
{
    course_assert_sgemm_edges(matmul_coalesced, "matmul_coalesced", 300);
}
END_TEST

/* Same run, same sizes: coalescing must pay clearly (the benchmark shows far more). */
START_TEST(coalesced_faster_than_naive)
{
    /* A fast wrong kernel proves nothing: first the answers, then the times. */
    struct mat_cmp cmp = course_check_sgemm(matmul_naive, 129, 65, 63, 1);
    ck_assert_msg(cmp.n_bad == 0, "matmul_naive is wrong at 129 x 65 x 63: no timing");
    cmp = course_check_sgemm(matmul_coalesced, 129, 65, 63, 2);
    ck_assert_msg(cmp.n_bad == 0, "matmul_coalesced is wrong at 129 x 65 x 63: no timing");
    double naive = course_time_sgemm(matmul_naive, 2048, 2048, 2048);
    double coalesced = course_time_sgemm(matmul_coalesced, 2048, 2048, 2048);
    ck_assert_msg(coalesced * 2.0 < naive, "matmul_coalesced %.3f ms vs matmul_naive %.3f ms",
                  coalesced, naive);
}
END_TEST

struct vec_call {
    const float *d_a, *d_b;
    float *d_c;
    int n;
};

static void run_vector_add(void *arg)
{
    struct vec_call *v = arg;
    vector_add(v->d_a, v->d_b, v->d_c, v->n);
}

/* vector_add against a copy of the same footprint, in the same run. */
START_TEST(vector_add_near_copy_bandwidth)
{
    check_vector_add(1000003, 40); /* a fast wrong kernel proves nothing */
    const int n = 1 << 26;
    size_t bytes = (size_t)n * sizeof(float);
    struct vec_call v = {NULL, NULL, NULL, n};
    float *d_a, *d_b;
    CUDA_CHECK(cudaMalloc((void **)&d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&v.d_c, bytes));
    CUDA_CHECK(cudaMemset(d_a, 0, bytes));
    CUDA_CHECK(cudaMemset(d_b, 0, bytes));
    v.d_a = d_a;
    v.d_b = d_b;
    struct timer_opts o = {2, 10, 1, 0};
    double gbs = 3.0 * bytes / (timer_measure(run_vector_add, &v, &o).median_ms * 1e6);
    double copy = device_copy_bandwidth_gbs(bytes * 3 / 2, 10);
    ck_assert_msg(gbs > 0.5 * copy, "vector_add %.0f GB/s, copy %.0f GB/s", gbs, copy);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(v.d_c));
}
END_TEST

/* The PTX shows what the lesson teaches: built-in indices, and a grid-stride
 * loop that reads the grid size (%nctaid). */
START_TEST(ptx_uses_thread_hierarchy)
{
    char *ptx = course_read_file(LESSON_PTX);
    ck_assert_msg(ptx != NULL, "cannot read %s", LESSON_PTX);
    char *vec = course_ptx_entry(ptx, "vector_add_kernel");
    ck_assert_msg(vec != NULL, "no vector_add_kernel in the PTX");
    ck_assert_msg(strstr(vec, "%nctaid.x") && strstr(vec, "%ntid.x"),
                  "vector_add_kernel does not read gridDim.x and blockDim.x: no grid-stride loop");
    ck_assert_msg(strstr(vec, "ld.global") && strstr(vec, "st.global"),
                  "vector_add_kernel neither loads nor stores global memory");
    const char *gemms[] = {"matmul_naive_kernel", "matmul_coalesced_kernel"};
    for (int g = 0; g < 2; g++) {
        char *body = course_ptx_entry(ptx, gemms[g]);
        ck_assert_msg(body != NULL, "no %s in the PTX", gemms[g]);
        ck_assert_msg(strstr(body, "%tid.y") && strstr(body, "%ctaid.y"),
                      "%s does not use the y dimension of the block and grid", gemms[g]);
        ck_assert_msg(strstr(body, "fma.rn.f32"), "%s does no fused multiply-add", gemms[g]);
        free(body);
    }
    free(vec);
    free(ptx);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"vector_add_edges", vector_add_edges, CASE_GPU, 60},
        {"matmul_naive_edges", matmul_naive_edges, CASE_GPU, 120},
        {"matmul_coalesced_edges", matmul_coalesced_edges, CASE_GPU, 120},
        {"coalesced_faster_than_naive", coalesced_faster_than_naive, CASE_GPU | CASE_PERF, 120},
        {"vector_add_near_copy_bandwidth", vector_add_near_copy_bandwidth, CASE_GPU | CASE_PERF,
         60},
        {"ptx_uses_thread_hierarchy", ptx_uses_thread_hierarchy, CASE_CPU, 30},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
