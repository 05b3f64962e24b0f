/**
 * @file device.h
 * @brief What the GPU is, and the ceilings measured on it.
 */
#ifndef DEVICE_H
#define DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The device a driver runs on (device 0), or why there is none. */
struct device_info {
    int ok;                /**< 1 when a CUDA device answered */
    char why[256];         /**< when ok is 0: the reason, in one line */
    char name[256];        /**< marketing name, e.g. "NVIDIA H100 80GB HBM3" */
    int cc_major;          /**< compute capability, major */
    int cc_minor;          /**< compute capability, minor */
    int sms;               /**< streaming multiprocessors */
    size_t mem_total;      /**< device memory, bytes */
    size_t mem_free;       /**< free device memory when queried, bytes */
    size_t l2_bytes;       /**< L2 cache, bytes */
    size_t smem_per_block; /**< shared memory a block may opt in to, bytes */
    int driver_version;    /**< e.g. 13000 for CUDA 13.0 */
    int runtime_version;   /**< the runtime this program was built with */
    int emulated;          /**< 1: the CPU emulator (emulator/README.md), not a real GPU */
};

/** Query device 0 into @p info. Returns info->ok; without a device, info->why says why. */
int device_query(struct device_info *info);

/**
 * Why a driver of CUDA @p driver (e.g. 12080) cannot run a build of CUDA @p runtime (e.g.
 * 13050), and what to do, in one line into @p why (device_query's reason when the driver is
 * the older): a toolkit of the driver's release, or a newer driver.
 */
void device_driver_too_old(char *why, size_t size, int driver, int runtime);

/**
 * 1 when this process runs its kernels on the course's CPU emulator (its
 * libcudart.so.13 was loaded in place of CUDA's), 0 on a real GPU. Timings
 * mean nothing on the emulator.
 */
int device_emulated(void);

/**
 * The compute capability of the current device as 10 * major + minor (e.g. 90
 * for sm_90), for launchers that need a minimum (bf16 and TF32 need 80).
 */
int device_compute_capability(void);

/**
 * Device-to-device copy bandwidth in GB/s (10^9 bytes/s, read plus write
 * counted), median of @p reps copies of @p bytes: the ceiling memory-bound
 * kernels are measured against.
 */
double device_copy_bandwidth_gbs(size_t bytes, int reps);

/**
 * Whether @p bytes of device memory are free. If not, prints
 * "<prog>: needs X GiB of GPU memory, the device has Y GiB free" and returns 0.
 */
int device_fits(const char *prog, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* DEVICE_H */
