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
        else if (err == cudaErrorInsufficientDriver && info->driver_version < info->runtime_version)
            device_driver_too_old(info->why, sizeof info->why, info->driver_version,
                                  info->runtime_version);
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

void device_driver_too_old(char *why, size_t size, int driver, int runtime)
{
    int dmaj = driver / 1000, dmin = driver % 1000 / 10;
    int n = snprintf(why, size,
                     "the NVIDIA driver supports CUDA %d.%d, older than this build's %d.%d: ", dmaj,
                     dmin, runtime / 1000, runtime % 1000 / 10);
    if (n < 0 || (size_t)n >= size)
        return;
    if (dmaj >= 13) /* PyPI has this release's nvcc */
        snprintf(why + n, size - n,
                 "build with CUDA %d.%d's wheels (COURSE_CUDA=%d.%d ./course ...) "
                 "or update the driver",
                 dmaj, dmin, dmaj, dmin);
    else if (dmaj == 12 && dmin >= 4)
        snprintf(why + n, size - n,
                 "put a CUDA 12.4 to %d.%d toolkit's nvcc first on PATH, or "
                 "update the driver (CUDA 13 needs 580 or newer)",
                 dmaj, dmin);
    else
        snprintf(why + n, size - n, "update the driver (the course needs CUDA 12.4 or newer)");
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
