/**
 * @file timer.c
 * @brief The course's one timer: warm up, take samples, report the median.
 */
#include "timer.h"

#include <stdlib.h>
#include <time.h>

#include "cuda_check.h"
#include "mat.h"

static void *flush_buf;
static size_t flush_bytes;

/* Overwrite a buffer twice the size of L2 so that no input stays cached. */
static void flush_l2(void)
{
    if (!flush_buf) {
        int dev, l2;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        flush_bytes = 2 * (size_t)l2;
        CUDA_CHECK(cudaMalloc((void **)&flush_buf, flush_bytes));
    }
    CUDA_CHECK(cudaMemsetAsync(flush_buf, 0, flush_bytes, 0));
}

void timer_release(void)
{
    if (flush_buf)
        CUDA_CHECK(cudaFree(flush_buf));
    flush_buf = NULL;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct timer_stats timer_measure(timer_fn fn, void *arg, const struct timer_opts *opts)
{
    int reps = opts->reps > 0 ? opts->reps : 1;
    double *ms = mat_alloc(reps * sizeof *ms);
    cudaEvent_t start = NULL, stop = NULL;

    if (opts->gpu) {
        CUDA_CHECK(cudaEventCreate(&start));
        CUDA_CHECK(cudaEventCreate(&stop));
    }
    for (int i = 0; i < opts->warmup; i++)
        fn(arg);
    if (opts->gpu)
        CUDA_CHECK(cudaDeviceSynchronize());

    for (int i = 0; i < reps; i++) {
        if (opts->gpu) {
            float t;
            if (opts->flush_l2)
                flush_l2();
            CUDA_CHECK(cudaEventRecord(start, 0));
            fn(arg);
            CUDA_CHECK(cudaEventRecord(stop, 0));
            CUDA_CHECK(cudaEventSynchronize(stop));
            CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
            ms[i] = t;
        } else {
            double t0 = now_ms();
            fn(arg);
            ms[i] = now_ms() - t0;
        }
    }
    if (opts->gpu) {
        CUDA_CHECK(cudaEventDestroy(start));
        CUDA_CHECK(cudaEventDestroy(stop));
    }

    qsort(ms, reps, sizeof *ms, cmp_double);
    struct timer_stats s;
    s.median_ms = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    s.min_ms = ms[0];
    s.max_ms = ms[reps - 1];
    s.reps = reps;
    free(ms);
    return s;
}
