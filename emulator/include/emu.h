/**
 * @file emu.h
 * @brief What the CPU emulator's libcudart.so.13 exports beside the CUDA runtime API.
 *
 * Only the stand-in runtime defines these symbols. Code that must also run on
 * a real GPU looks them up at run time, e.g. dlsym(RTLD_DEFAULT,
 * "course_emu_active"), and treats a missing symbol as "a real GPU". The cuBLAS
 * and NCCL stand-ins link against them directly.
 */
#ifndef EMU_H
#define EMU_H

#include <stddef.h>

#include "emu_counts.h"

#ifdef __cplusplus
extern "C" {
#endif

/** 1: this process runs its kernels on the CPU emulator. */
int course_emu_active(void);

/**
 * Count the instructions and memory traffic of the launches that follow (1)
 * or stop counting (0). Counting slows the emulator down.
 */
void course_emu_set_counting(int on);

/** One counted launch, as course_emu_take_launches() hands it over. */
struct course_emu_launch {
    char kernel[128];            /**< the kernel's name, demangled, without its parameters */
    unsigned grid[3];            /**< blocks */
    unsigned block[3];           /**< threads per block */
    int status;                  /**< enum vm_status: VM_OK when it ran to the end */
    struct vm_counters counters; /**< what it did, counted exactly */
};

/**
 * Move the launches counted since the last call (oldest first) into @p out, at
 * most @p max of them, and forget them all; returns how many it moved. With
 * @p out NULL, returns how many there are and forgets nothing. Launches run
 * while counting was off are not recorded, nor those past the first 65536
 * between two calls.
 */
int course_emu_take_launches(struct course_emu_launch *out, int max);

/**
 * Where the device range [@p dev, @p dev + @p bytes) lives in this process,
 * for library stand-ins that compute on the host. The range must lie inside
 * one live allocation; otherwise prints one line naming @p who and the range
 * (out of bounds, use after free) to stderr and returns NULL.
 */
void *course_emu_host(const void *dev, size_t bytes, const char *who);

/**
 * Tell the emulator that library stand-ins wrote the device range [@p dev, @p dev +
 * @p bytes) from the host (initcheck counts those bytes as initialised).
 */
void course_emu_wrote(const void *dev, size_t bytes);

/**
 * 0 when the emulated device can run work now; otherwise the sticky CUDA
 * error (as an int) a fault left behind, which library stand-ins report as an
 * execution failure.
 */
int course_emu_sticky_error(void);

#ifdef __cplusplus
}
#endif

#endif /* EMU_H */
