/**
 * @file device.c
 * @brief What the GPU is, and the ceilings measured on it.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "device.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cuda_check.h"
#include "timer.h"

int device_emulated(void)
{
    /* Only the emulator's runtime defines this symbol (emulator/include/emu.h). */
    int (*active)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "course_emu_active");
    return active && active();
}

int device_query(struct device_info *info)
{
    memset(info, 0, sizeof *info);
    cudaRuntimeGetVersion(&info->runtime_version);
    cudaDriverGetVersion(&info->driver_version);

    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        if (info->driver_version == 0)
            snprintf(info->why, sizeof info->why, "no CUDA device (no NVIDIA driver is installed)");
        else
            snprintf(info->why, sizeof info->why, "no CUDA device (%s)",
                     err != cudaSuccess ? cudaGetErrorString(err) : "none found");
        return 0;
    }
    struct cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->sms = p.multiProcessorCount;
    info->l2_bytes = (size_t)p.l2CacheSize;
    info->smem_per_block = p.sharedMemPerBlockOptin;
    info->emulated = device_emulated();
    CUDA_CHECK(cudaMemGetInfo(&info->mem_free, &info->mem_total));
    info->ok = 1;
    return 1;
}

int device_compute_capability(void)
{
    int dev, major, minor;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    return 10 * major + minor;
}

struct copy_args {
    void *dst;
    const void *src;
    size_t bytes;
};

static void copy_once(void *arg)
{
    struct copy_args *c = arg;
    CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, 0));
}

double device_copy_bandwidth_gbs(size_t bytes, int reps)
{
    struct copy_args c = {NULL, NULL, bytes};
    void *src;
    CUDA_CHECK(cudaMalloc((void **)&src, bytes));
    CUDA_CHECK(cudaMalloc((void **)&c.dst, bytes));
    CUDA_CHECK(cudaMemset(src, 1, bytes));
    c.src = src;
    struct timer_opts o = {2, reps, 1, 0};
    struct timer_stats s = timer_measure(copy_once, &c, &o);
    CUDA_CHECK(cudaFree(src));
    CUDA_CHECK(cudaFree(c.dst));
    return 2.0 * (double)bytes / (s.median_ms * 1e6);
}

int device_fits(const char *prog, size_t bytes)
{
    size_t free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes <= free_b)
        return 1;
    fprintf(stderr, "%s: needs %.2f GiB of GPU memory, the device has %.2f GiB free\n", prog,
            bytes / 1073741824.0, free_b / 1073741824.0);
    return 0;
}
