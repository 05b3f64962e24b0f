/**
 * @file timer.h
 * @brief The course's one timer: warm up, take samples, report the median.
 *
 * GPU work is timed with CUDA events recorded on the default stream around
 * each call, so the time is the device's, not the host's; CPU work is timed
 * with the monotonic clock. Between GPU samples the timer can overwrite a
 * buffer larger than L2, so that every sample starts with a cold cache.
 */
#ifndef TIMER_H
#define TIMER_H

#ifdef __cplusplus
extern "C" {
#endif

/** Work to time: a call that does (CPU) or enqueues on the default stream (GPU) one run. */
typedef void (*timer_fn)(void *arg);

/** How to time. */
struct timer_opts {
    int warmup;   /**< untimed runs first (compilation, clocks, caches) */
    int reps;     /**< timed samples; the median is reported */
    int gpu;      /**< 1: CUDA events on the default stream; 0: the host's monotonic clock */
    int flush_l2; /**< GPU only: overwrite a buffer twice the size of L2 before each sample */
};

/** What the samples showed, in milliseconds. */
struct timer_stats {
    double median_ms; /**< the median sample: the number to report */
    double min_ms;    /**< the fastest sample */
    double max_ms;    /**< the slowest sample */
    int reps;         /**< how many samples were taken */
};

/** Time @p fn (called with @p arg) as @p opts says. */
struct timer_stats timer_measure(timer_fn fn, void *arg, const struct timer_opts *opts);

/** Release the L2 flush buffer, if one was made (before cudaDeviceReset, or at exit). */
void timer_release(void);

#ifdef __cplusplus
}
#endif

#endif /* TIMER_H */
