/**
 * @file mat.h
 * @brief Host matrices: aborting allocation, deterministic fills, comparison.
 *
 * Matrices are row-major float arrays. Fills are deterministic in the seed, so
 * a failure reproduces. Two fills matter:
 *   - mat_fill_int: small non-uniform integers in [-4, 4]. Every product is at
 *     most 16 in magnitude, so any sum of fewer than 2^20 of them is an integer
 *     below 2^24 and exact in float, in any order: a GEMM on these inputs has
 *     one right answer and the check is equality.
 *   - mat_fill_uniform: random floats, for lessons about rounding, compared with
 *     a tolerance.
 */
#ifndef MAT_H
#define MAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Allocate @p bytes on the host; on failure print the size and abort. Never returns NULL. */
void *mat_alloc(size_t bytes);

/** Allocate @p count floats with mat_alloc(). */
float *mat_alloc_f32(size_t count);

/** Next value of the course's generator (splitmix64); advances @p state. */
uint64_t mat_rand_next(uint64_t *state);

/**
 * Make every sequence of the generator another one, the same for one @p salt (0: the course's
 * own sequences). A grade's judge takes a salt no one else knows, so that the inputs it makes
 * cannot be made again from the test's seeds by the code it grades.
 */
void mat_set_salt(uint64_t salt);

/** Fill @p x with integers drawn uniformly from [-4, 4], deterministic in @p seed. */
void mat_fill_int(float *x, size_t count, uint64_t seed);

/** Fill @p x with floats drawn uniformly from [@p lo, @p hi), deterministic in @p seed. */
void mat_fill_uniform(float *x, size_t count, uint64_t seed, float lo, float hi);

/** Fill @p x with NaN, so that any element a kernel fails to write fails the comparison. */
void mat_poison(float *x, size_t count);

/** Fill @p bytes of device memory at @p d_x with 0xFF bytes (a NaN in every float lane). */
void mat_poison_device(void *d_x, size_t bytes);

/** What a comparison found. */
struct mat_cmp {
    double max_abs;  /**< largest |got - want| (infinite when any got is NaN or infinite) */
    double max_rel;  /**< largest |got - want| / |want| over elements with want != 0 */
    long long n_bad; /**< elements outside the tolerance */
    int bad_row;     /**< row of the first bad element in row-major order, -1 when none */
    int bad_col;     /**< column of the first bad element, -1 when none */
    double bad_got;  /**< the first bad element's value */
    double bad_want; /**< what it should have been */
};

/**
 * Compare @p got with @p want (both rows x cols, row-major). An element is bad
 * unless |got - want| <= atol + rtol * |want|; NaN is always bad. With
 * atol = rtol = 0 this is exact equality.
 */
struct mat_cmp mat_compare(const float *got, const float *want, int rows, int cols, double atol,
                           double rtol);

/** mat_compare() against a double-precision oracle (see ref_matmul_f64()). */
struct mat_cmp mat_compare_f64(const float *got, const double *want, int rows, int cols,
                               double atol, double rtol);

/**
 * Compare @p got with @p want element by element against a bound of its own: an element is bad
 * unless |got - want| <= @p tol * @p scale (same shape; NaN is always bad). With scale from
 * ref_matmul_abs_f64() and tol from ref_gemm_tolerance() this is the course's rounding rule.
 */
struct mat_cmp mat_compare_scaled(const float *got, const double *want, const double *scale,
                                  int rows, int cols, double tol);

/**
 * Describe @p c in one line into @p buf: "ok (max abs err 0)" or
 * "37 bad, first at (2, 5): got 3, want 4"; a NaN got adds that NaN means the element was never
 * written (the judge fills outputs with NaN). Returns @p buf.
 */
char *mat_cmp_describe(const struct mat_cmp *c, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* MAT_H */
