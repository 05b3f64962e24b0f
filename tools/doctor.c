/**
 * @file doctor.c
 * @brief `./course doctor`: what this machine has, and the ceilings measured on its GPU.
 *
 * Prints the GPU (name, compute capability, SMs, memory, L2), the driver and
 * runtime versions, then measures the ceilings the lessons are compared with:
 * device-to-device copy bandwidth, cuBLAS SGEMM (FP32) and HGEMM (fp16 in,
 * FP32 accumulate) at 4096 (or --size). Without a GPU it says why and exits 0.
 * With --probe it only answers whether a GPU is there: exit 0, or the reason
 * on stdout and exit 1 (the course script asks this before GPU work); the CPU
 * emulator, found first on LD_LIBRARY_PATH, is not a GPU.
 */
#include <stdint.h>
#include <stdlib.h>

#include "baseline.h"
#include "cli.h"
#include "cuda_check.h"
#include "device.h"
#include "mat.h"
#include "ref.h"
#include "timer.h"

struct gemm_call {
    int n;
    const void *d_A, *d_B;
    float *d_C;
    int half;
};

static void run_gemm(void *arg)
{
    struct gemm_call *g = arg;
    if (g->half)
        baseline_gemm_ex(g->n, g->n, g->n, g->d_A, g->d_B, CUDA_R_16F, g->d_C);
    else
        baseline_sgemm(g->n, g->n, g->n, g->d_A, g->d_B, g->d_C);
}

/* TFLOP/s of cuBLAS at n x n x n, in FP32 or fp16. */
static double gemm_tflops(int n, int half)
{
    size_t count = (size_t)n * n, elem = half ? 2 : 4;
    float *h = mat_alloc_f32(count);
    uint16_t *h16 = mat_alloc(count * 2);
    struct gemm_call g = {n, NULL, NULL, NULL, half};
    void *d_A, *d_B;
    CUDA_CHECK(cudaMalloc((void **)&d_A, count * elem));
    CUDA_CHECK(cudaMalloc((void **)&d_B, count * elem));
    CUDA_CHECK(cudaMalloc((void **)&g.d_C, count * 4));
    mat_fill_uniform(h, count, 1, -1, 1);
    for (size_t i = 0; i < count; i++)
        h16[i] = ref_f32_to_f16(h[i]);
    CUDA_CHECK(
        cudaMemcpy(d_A, half ? (void *)h16 : (void *)h, count * elem, cudaMemcpyHostToDevice));
    CUDA_CHECK(
        cudaMemcpy(d_B, half ? (void *)h16 : (void *)h, count * elem, cudaMemcpyHostToDevice));
    g.d_A = d_A;
    g.d_B = d_B;
    struct timer_opts o = {3, 10, 1, 0};
    double ms = timer_measure(run_gemm, &g, &o).median_ms;
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_B));
    CUDA_CHECK(cudaFree(g.d_C));
    free(h);
    free(h16);
    return 2.0 * n * n * (double)n / (ms * 1e9);
}

int main(int argc, char **argv)
{
    int size = 4096, probe = 0;
    const struct cli_opt opts[] = {
        {"size", CLI_INT, &size, 256, 16384, "GEMM size for the cuBLAS ceilings"},
        {"probe", CLI_FLAG, &probe, 0, 0, "only say whether a GPU answers (exit 0) or why not"},
        {NULL, CLI_INT, NULL, 0, 0, NULL},
    };
    enum cli_status st =
        cli_parse(argc, argv, "course_doctor", "The GPU and its measured ceilings.", opts);
    if (st != CLI_OK)
        return cli_exit_status(st);

    struct device_info d;
    int ok = device_query(&d);
    if (probe) {
        if (ok && d.emulated) /* a caller's LD_LIBRARY_PATH put the emulator first */
            printf("the device that answers is the CPU emulator, not a GPU\n");
        else if (!ok)
            printf("%s\n", d.why);
        return ok && !d.emulated ? 0 : 1;
    }
    printf("CUDA runtime  %d.%d (this build)\n", d.runtime_version / 1000,
           d.runtime_version % 1000 / 10);
    if (d.driver_version)
        printf("CUDA driver   supports up to %d.%d\n", d.driver_version / 1000,
               d.driver_version % 1000 / 10);
    else
        printf("CUDA driver   none installed\n");
    if (!ok) {
        printf("GPU           none: %s\n", d.why);
        return 0;
    }
    printf("GPU           %s\n", d.name);
    printf("compute cap.  %d.%d (sm_%d%d)\n", d.cc_major, d.cc_minor, d.cc_major, d.cc_minor);
    printf("SMs           %d\n", d.sms);
    printf("memory        %.1f GiB (%.1f GiB free)\n", d.mem_total / 1073741824.0,
           d.mem_free / 1073741824.0);
    printf("L2 cache      %.1f MiB\n", d.l2_bytes / 1048576.0);
    printf("shared/block  %zu KiB (opt-in)\n", d.smem_per_block / 1024);
    printf("\nmeasured ceilings (median of 10):\n");
    printf("  copy bandwidth (device to device)  %8.1f GB/s\n",
           device_copy_bandwidth_gbs((size_t)1 << 30, 10));
    printf("  cuBLAS SGEMM %5d (FP32)            %8.1f TFLOP/s\n", size, gemm_tflops(size, 0));
    printf("  cuBLAS HGEMM %5d (fp16 in, FP32 acc) %6.1f TFLOP/s\n", size, gemm_tflops(size, 1));
    baseline_release();
    timer_release();
    return 0;
}
