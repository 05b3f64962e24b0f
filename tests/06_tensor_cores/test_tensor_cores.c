/**
 * @file test_tensor_cores.c
 * @brief Lesson 06's suite: the WMMA GEMMs against the CPU at edge sizes, exactly on small
 *        integers and within the course's rounding rule on random inputs, plus PTX structure
 *        and speed ratios.
 */
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "course_test.h"
#include "cuda_check.h"
#include "mat.h"
#include "ref.h"
#include "tensor_cores.h"
#include "timer.h"

/** A 16-bit GEMM launcher of this lesson. */
typedef void (*half_gemm_fn)(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                             float *d_C);

/* Shapes beyond course_gemm_shapes: multiples of 8 and 16, so the in-place fragment loads and
 * the 128-bit loads run, with and without partial tiles. */
static const int aligned_shapes[][3] = {
    {16, 16, 16},   {128, 128, 128}, {256, 384, 512},
    {200, 136, 72}, {144, 1040, 48}, {1024, 1024, 1024},
};

/* The value of float @p x after rounding to the 16-bit format (bf16 or fp16). */
static float round16(float x, int bf16)
{
    return bf16 ? ref_bf16_to_f32(ref_f32_to_bf16(x)) : ref_f16_to_f32(ref_f32_to_f16(x));
}

/*
 * Run @p fn once at M x N x K into a poisoned C. Inputs: small integers (exact in both formats;
 * the check is equality) or, with @p uniform, floats in [-1, 1) rounded to the format on the
 * host, so the only rounding left is the accumulation's: the check is the course's rule,
 * ref_gemm_tolerance(K, 0, REF_U_TC_ACC) times sum |a||b|.
 */
static struct mat_cmp check_half_gemm(half_gemm_fn fn, int bf16, int M, int N, int K, uint64_t seed,
                                      int uniform)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A = mat_alloc_f32(na), *B = mat_alloc_f32(nb), *C = mat_alloc_f32(nc);
    uint16_t *hA = mat_alloc(na * 2), *hB = mat_alloc(nb * 2);
    double *want = mat_alloc(nc * sizeof *want), *scale = mat_alloc(nc * sizeof *scale);
    if (uniform) {
        mat_fill_uniform(A, na, seed, -1, 1);
        mat_fill_uniform(B, nb, seed + 1, -1, 1);
    } else {
        mat_fill_int(A, na, seed);
        mat_fill_int(B, nb, seed + 1);
    }
    for (size_t i = 0; i < na; i++) {
        A[i] = round16(A[i], bf16);
        hA[i] = bf16 ? ref_f32_to_bf16(A[i]) : ref_f32_to_f16(A[i]);
    }
    for (size_t i = 0; i < nb; i++) {
        B[i] = round16(B[i], bf16);
        hB[i] = bf16 ? ref_f32_to_bf16(B[i]) : ref_f32_to_f16(B[i]);
    }
    ref_matmul_f64(M, N, K, A, B, want);
    uint16_t *dA, *dB;
    float *dC;
    CUDA_CHECK(cudaMalloc((void **)&dA, na * 2));
    CUDA_CHECK(cudaMalloc((void **)&dB, nb * 2));
    CUDA_CHECK(cudaMalloc((void **)&dC, nc * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dA, hA, na * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, hB, nb * 2, cudaMemcpyHostToDevice));
    mat_poison_device(dC, nc * sizeof(float));
    fn(M, N, K, dA, dB, dC);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(C, dC, nc * sizeof(float), cudaMemcpyDeviceToHost));
    struct mat_cmp cmp;
    if (uniform) {
        ref_matmul_abs_f64(M, N, K, A, B, scale);
        cmp = mat_compare_scaled(C, want, scale, M, N, ref_gemm_tolerance(K, 0, REF_U_TC_ACC));
    } else {
        cmp = mat_compare_f64(C, want, M, N, 0, 0);
    }
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    free(A);
    free(B);
    free(C);
    free(hA);
    free(hB);
    free(want);
    free(scale);
    return cmp;
}

/* Every edge shape exactly on integers, the aligned shapes too, then random floats under the
 * rounding rule at a few shapes (the largest K makes the accumulation error visible). */
static void check_edges(half_gemm_fn fn, int bf16, const char *name)
{
    char why[160];
    for (size_t s = 0; s < course_gemm_shape_count; s++) {
        const int *d = course_gemm_shapes[s];
        struct mat_cmp c = check_half_gemm(fn, bf16, d[0], d[1], d[2], 600 + s, 0);
        ck_assert_msg(c.n_bad == 0, "%s at M=%d N=%d K=%d (integers): %s", name, d[0], d[1], d[2],
                      mat_cmp_describe(&c, why, sizeof why));
    }
    for (size_t s = 0; s < sizeof aligned_shapes / sizeof *aligned_shapes; s++) {
        const int *d = aligned_shapes[s];
        struct mat_cmp c = check_half_gemm(fn, bf16, d[0], d[1], d[2], 700 + s, 0);
        ck_assert_msg(c.n_bad == 0, "%s at M=%d N=%d K=%d (integers): %s", name, d[0], d[1], d[2],
                      mat_cmp_describe(&c, why, sizeof why));
    }
    const int random_shapes[][3] = {{33, 31, 1}, {129, 65, 4099}, {256, 256, 2048}};
    for (size_t s = 0; s < 3; s++) {
        const int *d = random_shapes[s];
        struct mat_cmp c = check_half_gemm(fn, bf16, d[0], d[1], d[2], 800 + s, 1);
        ck_assert_msg(c.n_bad == 0, "%s at M=%d N=%d K=%d (random, rounding rule): %s", name, d[0],
                      d[1], d[2], mat_cmp_describe(&c, why, sizeof why));
    }
}

START_TEST(wmma_naive_edges)
{
    check_edges(wmma_naive, 0, "wmma_naive");
}
END_TEST

START_TEST(wmma_shared_edges)
{
    check_edges(wmma_shared, 0, "wmma_shared");
}
END_TEST

/* bfloat16 needs sm_80: on an older GPU the harness skips the case (CASE_SM80). */
START_TEST(wmma_bf16_edges)
{
    check_edges(wmma_bf16, 1, "wmma_bf16");
}
END_TEST

struct timed_half {
    half_gemm_fn fn;
    int M, N, K;
    const uint16_t *d_A, *d_B;
    float *d_C;
};

static void run_timed(void *arg)
{
    struct timed_half *t = arg;
    t->fn(t->M, t->N, t->K, t->d_A, t->d_B, t->d_C);
}

static void cublas_hgemm(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C)
{
    baseline_gemm_ex(M, N, K, d_A, d_B, CUDA_R_16F, d_C);
}

/* Median ms of each of @p count launchers at n x n x n, on the same fp16 integer inputs. Each
 * must first be right at 128 x 128 x 128: a fast wrong kernel proves nothing. */
static void time_half(const half_gemm_fn *fns, double *ms, int count, int n)
{
    for (int i = 0; i < count; i++) {
        struct mat_cmp c = check_half_gemm(fns[i], 0, 128, 128, 128, 900 + i, 0);
        ck_assert_msg(c.n_bad == 0, "version %d of this timing is wrong at 128^3", i);
    }
    size_t elems = (size_t)n * n;
    uint16_t *h = mat_alloc(elems * 2);
    float *f = mat_alloc_f32(elems);
    struct timed_half t = {NULL, n, n, n, NULL, NULL, NULL};
    uint16_t *dA, *dB;
    CUDA_CHECK(cudaMalloc((void **)&dA, elems * 2));
    CUDA_CHECK(cudaMalloc((void **)&dB, elems * 2));
    CUDA_CHECK(cudaMalloc((void **)&t.d_C, elems * sizeof(float)));
    mat_fill_int(f, elems, 5);
    for (size_t i = 0; i < elems; i++)
        h[i] = ref_f32_to_f16(f[i]);
    CUDA_CHECK(cudaMemcpy(dA, h, elems * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, h, elems * 2, cudaMemcpyHostToDevice));
    t.d_A = dA;
    t.d_B = dB;
    struct timer_opts o = {2, 5, 1, 0};
    for (int i = 0; i < count; i++) {
        t.fn = fns[i];
        ms[i] = timer_measure(run_timed, &t, &o).median_ms;
    }
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(t.d_C));
    free(h);
    free(f);
}

/* Same run, same data: shared-memory tiles must beat fragments straight from global memory. */
START_TEST(shared_faster_than_naive)
{
    const half_gemm_fn fns[] = {wmma_naive, wmma_shared};
    double ms[2];
    time_half(fns, ms, 2, 4096);
    ck_assert_msg(ms[1] * 1.3 < ms[0], "wmma_shared %.3f ms vs wmma_naive %.3f ms", ms[1], ms[0]);
}
END_TEST

/* A generous floor against cuBLAS at the same precision (the lesson's target is far higher). */
START_TEST(shared_near_cublas)
{
    const half_gemm_fn fns[] = {cublas_hgemm, wmma_shared};
    double ms[2];
    time_half(fns, ms, 2, 4096);
    ck_assert_msg(ms[0] > 0.15 * ms[1], "wmma_shared %.3f ms is under 15%% of cuBLAS (%.3f ms)",
                  ms[1], ms[0]);
}
END_TEST

/* The PTX shows Tensor Core instructions, with float accumulation, in every kernel; the naive
 * kernel loads fragments from global memory, the tiled ones from shared memory behind a
 * barrier, with 128-bit stores into it. (The bf16 fragment loads use generic addresses in the
 * PTX; ptxas resolves them.) */
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
            ck_assert_msg(strstr(body, "bar.sync"), "%s has no barrier", kernels[k]);
            ck_assert_msg(strstr(body, "st.shared.v4"), "%s stores no 128-bit chunk to shared",
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
        {"shared_faster_than_naive", shared_faster_than_naive, CASE_GPU | CASE_PERF, 120},
        {"shared_near_cublas", shared_near_cublas, CASE_GPU | CASE_PERF, 120},
        {"ptx_uses_tensor_cores", ptx_uses_tensor_cores, CASE_CPU, 30},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
