/**
 * @file cub_yardstick.h
 * @brief Lesson 06's yardstick: CUB's device-wide reduction, scan and histogram, with the same
 *        contracts as the lesson's own functions (parallel_patterns.h).
 *
 * The course's code, not the student's: built into 06_yardstick, which the benchmark and the
 * judge (its timing cases) link and the graded runner never does. A student's function that
 * launched CUB's kernels would be grading CUB, so the grader gives it nothing.
 */
#ifndef CUB_YARDSTICK_H
#define CUB_YARDSTICK_H

#ifdef __cplusplus
extern "C" {
#endif

/** *d_out = d_x[0] + ... + d_x[n-1]: cub::DeviceReduce::Sum, with its temporary storage (the
 *  two-call idiom). */
void reduce_cub(const float *d_x, int n, float *d_out);

/** d_out[i] = d_in[0] + ... + d_in[i-1]: cub::DeviceScan::ExclusiveSum. */
void scan_cub(const int *d_in, int n, int *d_out);

/** d_bins[b] = how many of the n bytes equal b: cub::DeviceHistogram::HistogramEven over 257
 *  levels 0..256. */
void histogram_cub(const unsigned char *d_data, int n, unsigned int *d_bins);

#ifdef __cplusplus
}
#endif

#endif /* CUB_YARDSTICK_H */
