/**
 * @file curand_histogram.c
 * @brief Poisson's square histogram (curand_histogram.h), as NVIDIA's host library builds it
 *        (measured against it: tests/emulator/test_curand.c).
 *
 * The values are every k whose probability exp(k log lambda - lambda - lgamma(k + 1)) is not 0
 * in double, from floor(lambda) down and up. With n of them, bin j holds q_j = n p_j / sum(p)
 * of its own value: scanning the bins from the lowest, each bin with q_j < 1 not yet done takes
 * its rest, 1 - q_j, from the highest-numbered bin still above 1 (K[j]; V[j] = (j + q_j) / n),
 * which gives it up (falling below 1, it leaves the donors); scans repeat while a bin below 1
 * remains undone and a donor is left. A bin never done keeps V[j] = (j + 1) / n (all its own).
 * The lookup is _curand_M2_double: u = x / 2^32 + 2^-32, j = floor(n u).
 */
#include "curand_histogram.h"

#include <math.h>
#include <stdlib.h>

#include "alloc.h"

static double log_p(double lambda, double k)
{
    return k * log(lambda) - lambda - lgamma(k + 1);
}

/* The bins of @p h from the probabilities @p p (normalised here); @p q is scratch. */
static void histogram_fill(struct histogram *h, const double *p, double *q)
{
    unsigned n = h->length, *large = emu_malloc(n * sizeof *large), nlarge = 0;
    unsigned char *done = emu_calloc(n, 1);
    double sum = 0;
    for (unsigned j = 0; j < n; j++)
        sum += p[j];
    for (unsigned j = 0; j < n; j++) {
        q[j] = p[j] / sum * n;
        h->K[j] = j;
        h->V[j] = (j + 1.0) / n;
        if (q[j] >= 1.0)
            large[nlarge++] = j; /* ascending: the last is the highest */
    }
    for (int changed = 1; changed && nlarge;) {
        changed = 0;
        for (unsigned j = 0; j < n && nlarge; j++) {
            if (q[j] >= 1.0 || done[j])
                continue;
            unsigned g = large[nlarge - 1];
            h->K[j] = g;
            h->V[j] = (j + q[j]) / n;
            done[j] = 1;
            changed = 1;
            q[g] -= 1.0 - q[j];
            if (q[g] < 1.0)
                nlarge--;
        }
    }
    free(large);
    free(done);
}

void histogram_poisson(double lambda, struct histogram *h)
{
    double mode = floor(lambda), lo = mode, hi = mode;
    while (lo > 0 && exp(log_p(lambda, lo - 1)) > 0)
        lo--;
    while (exp(log_p(lambda, hi + 1)) > 0)
        hi++;
    h->shift = (unsigned)lo;
    h->length = (unsigned)(hi - lo) + 1;
    h->V = emu_malloc(h->length * sizeof *h->V);
    h->K = emu_malloc(h->length * sizeof *h->K);
    double *p = emu_malloc(2 * h->length * sizeof *p);
    for (unsigned j = 0; j < h->length; j++)
        p[j] = exp(log_p(lambda, lo + j));
    histogram_fill(h, p, p + h->length);
    free(p);
}

unsigned histogram_draw(const struct histogram *h, uint32_t x)
{
    double u = x * 2.3283064365386963e-10 + 2.3283064365386963e-10;
    unsigned j = (unsigned)floor(h->length * u);
    /* x = 2^32 - 1 gives u = 1 and j = length, past NVIDIA's table: its library gave shift
       (0) there for every lambda below 10 measured (from Sobol32) */
    if (j >= h->length)
        return h->shift;
    return h->shift + (u < h->V[j] ? j : h->K[j]);
}

void histogram_free(struct histogram *h)
{
    free(h->V);
    free(h->K);
    h->V = NULL;
    h->K = NULL;
}
