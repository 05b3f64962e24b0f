/**
 * @file rt_core.c
 * @brief The runtime stand-in's core, below every other file of it: the process's state and
 *        its lock, each host thread's current device and last error, the error names and
 *        messages, the one-line messages the runtime prints, the limits, the GPU count.
 *
 * Nothing here calls another file of the runtime.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

struct rt_state rt = {.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, .sock = -1};

static _Thread_local struct rt_thread self_state;

struct rt_thread *rt_self(void)
{
    return &self_state;
}

void rt_lock(void)
{
    pthread_mutex_lock(&rt.lock);
}

void rt_unlock(void)
{
    pthread_mutex_unlock(&rt.lock);
}

cudaError_t rt_error(cudaError_t err)
{
    if (err != cudaSuccess)
        rt_self()->last_error = err;
    return err;
}

/* At exit, after every atexit() handler (the queued work) and the library's other destructors
 * (the leak check: a destructor with a priority runs after those without): one line when this
 * process reported faults or findings, so a run that exits 0 after a report is not taken for a
 * clean one. The exit status stays the program's, as under compute-sanitizer without
 * --error-exitcode (emulator/README.md, "Checks"). */
__attribute__((destructor(101))) static void say_reported(void)
{
    uint64_t n = rt.faults + rt.findings;
    if (n && rt.pid == getpid())
        emu_say("%llu fault%s/finding%s %s reported during this run (%llu fault%s, %llu "
                "finding%s); see above",
                (unsigned long long)n, n == 1 ? "" : "s", n == 1 ? "" : "s",
                n == 1 ? "was" : "were", (unsigned long long)rt.faults, rt.faults == 1 ? "" : "s",
                (unsigned long long)rt.findings, rt.findings == 1 ? "" : "s");
}

double rt_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Half of MemAvailable, in whole MiB (4 GiB when /proc/meminfo cannot be read). */
static uint64_t spare_memory(void)
{
    unsigned long long kib = 0;
    char line[256];
    FILE *f = fopen("/proc/meminfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    uint64_t bytes = kib ? (uint64_t)kib * 1024 / 2 : (uint64_t)4 << 30;
    return bytes >> 20 << 20;
}

int rt_gpus(void)
{
    rt_lock();
    if (rt.gpus == 0) {
        const char *env = getenv("COURSE_EMU_GPUS");
        char *end = NULL;
        long n = env && *env ? strtol(env, &end, 10) : 2;
        if (end && (*end || n < 1 || n > RT_MAX_GPUS)) {
            emu_say("COURSE_EMU_GPUS='%s' must be a number from 1 to %d", env, RT_MAX_GPUS);
            rt_unlock();
            return 0;
        }
        rt.gpus = (int)n;
        rt.capacity = spare_memory();
    }
    int n = rt.gpus;
    rt_unlock();
    return n;
}

/* The limits a program may read and set, with an H100's defaults; a set value reads back. The
 * stack size bounds a recursive kernel's depth and the heap size is the device heap's (fixed
 * once it exists); the rest are hints or sizes the emulator does not bound. */
size_t rt_limits[RT_LIMITS] = {
    [cudaLimitStackSize] = 1024,
    [cudaLimitPrintfFifoSize] = (size_t)1 << 20,
    [cudaLimitMallocHeapSize] = (size_t)8 << 20,
    [cudaLimitDevRuntimeSyncDepth] = 2,
    [cudaLimitDevRuntimePendingLaunchCount] = 2048,
    [cudaLimitMaxL2FetchGranularity] = 64,
    [cudaLimitPersistingL2CacheSize] = 0,
};

cudaError_t cudaGetLastError(void)
{
    rt_lock();
    cudaError_t err = rt.sticky;
    rt_unlock();
    if (err == cudaSuccess) {
        err = rt_self()->last_error;
        rt_self()->last_error = cudaSuccess;
    }
    return err;
}

cudaError_t cudaPeekAtLastError(void)
{
    rt_lock();
    cudaError_t err = rt.sticky;
    rt_unlock();
    return err != cudaSuccess ? err : rt_self()->last_error;
}

/* What rt_unsupported.c's stubs answer: one line naming the call, and cudaErrorNotSupported. */
cudaError_t rt_null(const char *call, const char *arg)
{
    emu_say("%s: %s is NULL (cudaErrorInvalidValue)", call, arg);
    return rt_error(cudaErrorInvalidValue);
}

int rt_not_supported(const char *name)
{
    emu_say("%s is not emulated (cudaErrorNotSupported)", name);
    return rt_error(cudaErrorNotSupported);
}

/* --- error names and messages ------------------------------------------------------ */

/** One error code the runtime may return, its name and its message. */
struct error_text {
    cudaError_t code;
    const char *name, *text;
};

#define ERR(code, text)                                                                            \
    {                                                                                              \
        code, #code, text                                                                          \
    }
static const struct error_text error_texts[] = {
    ERR(cudaSuccess, "no error"),
    ERR(cudaErrorInvalidValue, "invalid argument"),
    ERR(cudaErrorMemoryAllocation, "out of memory"),
    ERR(cudaErrorInitializationError, "initialization error"),
    ERR(cudaErrorCudartUnloading, "driver shutting down"),
    ERR(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    ERR(cudaErrorInvalidPitchValue, "invalid pitch argument"),
    ERR(cudaErrorInvalidSymbol, "invalid device symbol"),
    ERR(cudaErrorInvalidHostPointer, "invalid host pointer"),
    ERR(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    ERR(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    ERR(cudaErrorMissingConfiguration, "__global__ function call is not configured"),
    ERR(cudaErrorInvalidDeviceFunction, "invalid device function"),
    ERR(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    ERR(cudaErrorInvalidDevice, "invalid device ordinal"),
    ERR(cudaErrorInvalidKernelImage, "device kernel image is invalid"),
    ERR(cudaErrorNoKernelImageForDevice,
        "no kernel image is available for execution on the device"),
    ERR(cudaErrorUnsupportedLimit, "limit is not supported on this architecture"),
    ERR(cudaErrorInvalidPtx, "a PTX JIT compilation failed"),
    ERR(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    ERR(cudaErrorSymbolNotFound, "named symbol not found"),
    ERR(cudaErrorNotReady, "device not ready"),
    ERR(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    ERR(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
    ERR(cudaErrorLaunchTimeout, "the launch timed out and was terminated"),
    ERR(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    ERR(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    ERR(cudaErrorAssert, "device-side assert triggered"),
    ERR(cudaErrorIllegalInstruction, "an illegal instruction was encountered"),
    ERR(cudaErrorMisalignedAddress, "misaligned address"),
    ERR(cudaErrorLaunchFailure, "unspecified launch failure"),
    ERR(cudaErrorNotPermitted, "operation not permitted"),
    ERR(cudaErrorNotSupported, "operation not supported"),
    ERR(cudaErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch"),
    ERR(cudaErrorInvalidChannelDescriptor, "invalid channel descriptor"),
    ERR(cudaErrorHostMemoryAlreadyRegistered, "part or all of the host memory is registered"),
    ERR(cudaErrorHostMemoryNotRegistered, "the host memory is not registered"),
    ERR(cudaErrorIllegalState, "the operation is not valid in this state"),
    ERR(cudaErrorStreamCaptureUnsupported, "operation not permitted while a stream captures"),
    ERR(cudaErrorStreamCaptureIsolation, "the dependency would cross a capture's boundary"),
    ERR(cudaErrorGraphExecUpdateFailure,
        "the graph update changes what an instantiated graph cannot change"),
    ERR(cudaErrorUnknown, "unknown error"),
};
#undef ERR

static const struct error_text *error_text(cudaError_t code)
{
    for (size_t i = 0; i < sizeof error_texts / sizeof *error_texts; i++)
        if (error_texts[i].code == code)
            return &error_texts[i];
    return NULL;
}

const char *cudaGetErrorName(cudaError_t error)
{
    const struct error_text *t = error_text(error);
    return t ? t->name : "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error)
{
    const struct error_text *t = error_text(error);
    return t ? t->text : "unrecognized error code";
}
