/**
 * @file mat.c
 * @brief Host matrices: aborting allocation, deterministic fills, comparison.
 */
#include "mat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"

void *mat_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of host memory: could not allocate %zu bytes\n", bytes);
        abort();
    }
    return p;
}

float *mat_alloc_f32(size_t count)
{
    return mat_alloc(count * sizeof(float));
}

static uint64_t salt; /* mat_set_salt() */

void mat_set_salt(uint64_t s)
{
    salt = s;
}

uint64_t mat_rand_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull) + salt;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void mat_fill_int(float *x, size_t count, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < count; i++)
        x[i] = (float)((int)(mat_rand_next(&s) % 9) - 4);
}

void mat_fill_uniform(float *x, size_t count, uint64_t seed, float lo, float hi)
{
    uint64_t s = seed;
    for (size_t i = 0; i < count; i++) {
        /* The top 24 bits give a float in [0, 1) with every value exact. */
        float u = (float)(mat_rand_next(&s) >> 40) * 0x1p-24f;
        x[i] = lo + (hi - lo) * u;
    }
}

void mat_poison(float *x, size_t count)
{
    for (size_t i = 0; i < count; i++)
        x[i] = NAN;
}

void mat_poison_device(void *d_x, size_t bytes)
{
    CUDA_CHECK(cudaMemset(d_x, 0xFF, bytes));
}

/* Fold one element into the running comparison. */
static void cmp_add(struct mat_cmp *c, double got, double want, int row, int col, double atol,
                    double rtol)
{
    double err = fabs(got - want);
    if (isnan(got) || isinf(got))
        err = INFINITY;
    if (err > c->max_abs)
        c->max_abs = err;
    if (want != 0 && err / fabs(want) > c->max_rel)
        c->max_rel = err / fabs(want);
    if (!(err <= atol + rtol * fabs(want))) {
        if (c->n_bad == 0) {
            c->bad_row = row;
            c->bad_col = col;
            c->bad_got = got;
            c->bad_want = want;
        }
        c->n_bad++;
    }
}

/* @p got against the wanted values, floats in @p wf or else doubles in @p wd, element by
 * element, each within atol + rtol |want|, or within atol * scale[i] where @p scale is given. */
static struct mat_cmp compare(const float *got, const float *wf, const double *wd,
                              const double *scale, int rows, int cols, double atol, double rtol)
{
    struct mat_cmp c = {0, 0, 0, -1, -1, 0, 0};
    size_t n = rows > 0 && cols > 0 ? (size_t)rows * cols : 0;
    for (size_t at = 0; at < n; at++)
        cmp_add(&c, got[at], wf ? wf[at] : wd[at], (int)(at / cols), (int)(at % cols),
                scale ? atol * scale[at] : atol, rtol);
    return c;
}

struct mat_cmp mat_compare(const float *got, const float *want, int rows, int cols, double atol,
                           double rtol)
{
    return compare(got, want, NULL, NULL, rows, cols, atol, rtol);
}

struct mat_cmp mat_compare_f64(const float *got, const double *want, int rows, int cols,
                               double atol, double rtol)
{
    return compare(got, NULL, want, NULL, rows, cols, atol, rtol);
}

struct mat_cmp mat_compare_scaled(const float *got, const double *want, const double *scale,
                                  int rows, int cols, double tol)
{
    return compare(got, NULL, want, scale, rows, cols, tol, 0);
}

char *mat_cmp_describe(const struct mat_cmp *c, char *buf, size_t size)
{
    if (c->n_bad == 0)
        snprintf(buf, size, "ok (max abs err %.3g)", c->max_abs);
    else if (isnan(c->bad_got)) /* outputs start as NaN: the judge poisons them */
        snprintf(buf, size,
                 "%lld bad, first at (%d, %d): got NaN, want %.9g (NaN means the element was "
                 "never written)",
                 c->n_bad, c->bad_row, c->bad_col, c->bad_want);
    else
        snprintf(buf, size, "%lld bad, first at (%d, %d): got %.9g, want %.9g", c->n_bad,
                 c->bad_row, c->bad_col, c->bad_got, c->bad_want);
    return buf;
}
