/**
 * @file cufft_fft.c
 * @brief The cuFFT stand-in's one-dimensional complex DFT, in double precision, any n >= 1.
 *
 * Two algorithms, chosen by n's prime factors:
 *   mixed radix  n = r1 r2 ... rk with every r <= RADIX_MAX: decimation in time, recursively
 *                (the DFT of n is r DFTs of n / r on the inputs r apart, then n / r butterflies
 *                of r points, each input turned by a twiddle first). Radix 4 and 2 have
 *                butterflies of their own; any other r is a direct r-point DFT.
 *   Bluestein    n with a prime factor above RADIX_MAX: jk = (j^2 + k^2 - (k - j)^2) / 2 turns
 *                the DFT into a cyclic convolution with the chirp exp(i pi j^2 / n), done by
 *                mixed-radix DFTs of the power of two m >= 2n - 1.
 * Twiddles and chirps are computed once per plan from exact integer angles (j^2 reduced
 * modulo 2n), so a result's error is a few ulps of double times log n: far below fp32's.
 * Only the forward transform is computed; the inverse is conj(DFT(conj(x))).
 */
#include "cufft_fft.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/** The largest prime factor done as a direct butterfly; a larger one means Bluestein. */
enum { RADIX_MAX = 64, MAX_FACTORS = 64 };

#define FFT_PI 3.14159265358979323846

struct fft_plan {
    size_t n;
    int nfactors;
    size_t factor[MAX_FACTORS]; /**< n's radices, outermost first (mixed radix only) */
    struct fft_cplx *tw;        /**< tw[k] = exp(-2 pi i k / n), k < n (mixed radix only) */
    /* Bluestein */
    struct fft_plan *conv;   /**< the DFT of m points the convolution runs on, or NULL */
    size_t m;                /**< its size: a power of two >= 2n - 1 */
    struct fft_cplx *chirp;  /**< chirp[j] = exp(-i pi j^2 / n), j < n */
    struct fft_cplx *filter; /**< DFT_m of conj(chirp), laid out cyclically, divided by m */
};

static struct fft_cplx cmul(struct fft_cplx a, struct fft_cplx b)
{
    return (struct fft_cplx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

static struct fft_cplx cadd(struct fft_cplx a, struct fft_cplx b)
{
    return (struct fft_cplx){a.re + b.re, a.im + b.im};
}

static struct fft_cplx csub(struct fft_cplx a, struct fft_cplx b)
{
    return (struct fft_cplx){a.re - b.re, a.im - b.im};
}

/* exp(-i pi num / den): num / den in [0, 2) is an exact fraction of a half turn. */
static struct fft_cplx turn(uint64_t num, uint64_t den)
{
    double a = FFT_PI * (double)num / (double)den;
    return (struct fft_cplx){cos(a), -sin(a)};
}

/* n's radices into p->factor: fours first, then twos, then odd primes upward. Returns 0, or -1
   when a prime factor exceeds RADIX_MAX (n is then a Bluestein size). */
static int factorize(struct fft_plan *p)
{
    size_t n = p->n;
    p->nfactors = 0;
    while (n % 4 == 0)
        p->factor[p->nfactors++] = 4, n /= 4;
    while (n % 2 == 0)
        p->factor[p->nfactors++] = 2, n /= 2;
    for (size_t r = 3; n > 1 && r <= RADIX_MAX; r += 2)
        while (n % r == 0)
            p->factor[p->nfactors++] = r, n /= r;
    return n == 1 ? 0 : -1;
}

struct fft_plan *fft_plan_new(size_t n)
{
    struct fft_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n = n;
    if (factorize(p) == 0) {
        p->tw = malloc(n * sizeof *p->tw);
        if (!p->tw)
            goto fail;
        for (size_t k = 0; k < n; k++)
            p->tw[k] = turn(2 * (uint64_t)k, n);
        return p;
    }
    for (p->m = 1; p->m < 2 * n - 1;)
        p->m *= 2;
    p->conv = fft_plan_new(p->m);
    p->chirp = malloc(n * sizeof *p->chirp);
    p->filter = calloc(p->m, sizeof *p->filter);
    struct fft_cplx *work = malloc(p->m * sizeof *work);
    if (!p->conv || !p->chirp || !p->filter || !work) {
        free(work);
        goto fail;
    }
    for (size_t j = 0; j < n; j++) {
        p->chirp[j] = turn((uint64_t)j * j % (2 * (uint64_t)n), n);
        struct fft_cplx c = {p->chirp[j].re / (double)p->m, -p->chirp[j].im / (double)p->m};
        p->filter[j] = c; /* conj(chirp) at j and at -j: the convolution reaches both */
        if (j)
            p->filter[p->m - j] = c;
    }
    fft_run(p->conv, p->filter, -1, work);
    free(work);
    return p;
fail:
    fft_plan_free(p);
    return NULL;
}

void fft_plan_free(struct fft_plan *p)
{
    if (!p)
        return;
    fft_plan_free(p->conv);
    free(p->tw);
    free(p->chirp);
    free(p->filter);
    free(p);
}

size_t fft_work_size(const struct fft_plan *p)
{
    return p->conv ? p->m + fft_work_size(p->conv) : p->n;
}

/*
 * out[0 .. n) = the forward DFT of the n points in[0], in[s], in[2s], ..., where n is the
 * product of the radices f[0], f[1], ... and step = (the plan's size) / n, so that
 * exp(-2 pi i / n) is p->tw[step].
 */
static void dit(const struct fft_plan *p, struct fft_cplx *out, const struct fft_cplx *in, size_t s,
                size_t n, const size_t *f, size_t step)
{
    size_t r = f[0], m = n / r;
    /* out[q m .. q m + m) = the DFT of m points of residue q modulo r */
    for (size_t q = 0; q < r; q++) {
        if (m == 1)
            out[q] = in[q * s];
        else
            dit(p, out + q * m, in + q * s, s * r, m, f + 1, step * r);
    }
    const struct fft_cplx *tw = p->tw;
    struct fft_cplx t[RADIX_MAX];
    for (size_t k = 0; k < m; k++) {
        /* t[q] = sub-DFT q at k, turned by exp(-2 pi i q k / n); q k < n, so no wrap */
        for (size_t q = 0; q < r; q++)
            t[q] = q ? cmul(out[q * m + k], tw[q * k * step]) : out[k];
        /* out[k + j m] = sum over q of t[q] exp(-2 pi i q j / r), j < r */
        if (r == 2) {
            out[k] = cadd(t[0], t[1]);
            out[k + m] = csub(t[0], t[1]);
        } else if (r == 4) {
            struct fft_cplx a = cadd(t[0], t[2]), b = csub(t[0], t[2]);
            struct fft_cplx c = cadd(t[1], t[3]), d = csub(t[1], t[3]);
            struct fft_cplx minus_i_d = {d.im, -d.re}; /* exp(-2 pi i / 4) = -i */
            out[k] = cadd(a, c);
            out[k + m] = cadd(b, minus_i_d);
            out[k + 2 * m] = csub(a, c);
            out[k + 3 * m] = csub(b, minus_i_d);
        } else {
            for (size_t j = 0; j < r; j++) {
                struct fft_cplx acc = t[0];
                for (size_t q = 1; q < r; q++) /* exp(-2 pi i (q j mod r) / r) */
                    acc = cadd(acc, cmul(t[q], tw[q * j % r * m * step]));
                out[k + j * m] = acc;
            }
        }
    }
}

/* The forward DFT of x, in place. */
static void forward(const struct fft_plan *p, struct fft_cplx *x, struct fft_cplx *work)
{
    size_t n = p->n;
    if (!p->conv) {
        if (p->nfactors == 0) /* n = 1 */
            return;
        memcpy(work, x, n * sizeof *x);
        dit(p, x, work, 1, n, p->factor, 1);
        return;
    }
    /* X[k] = chirp[k] sum over j of (x[j] chirp[j]) conj(chirp[k - j]): a convolution of m */
    struct fft_cplx *a = work, *inner = work + p->m;
    for (size_t j = 0; j < p->m; j++)
        a[j] = j < n ? cmul(x[j], p->chirp[j]) : (struct fft_cplx){0, 0};
    forward(p->conv, a, inner);
    for (size_t j = 0; j < p->m; j++) /* the inverse DFT of the product, as conj(DFT(conj)) */
        a[j] = cmul(a[j], p->filter[j]), a[j].im = -a[j].im;
    forward(p->conv, a, inner);
    for (size_t k = 0; k < n; k++)
        x[k] = cmul((struct fft_cplx){a[k].re, -a[k].im}, p->chirp[k]);
}

void fft_run(const struct fft_plan *p, struct fft_cplx *x, int sign, struct fft_cplx *work)
{
    if (sign < 0) {
        forward(p, x, work);
        return;
    }
    for (size_t j = 0; j < p->n; j++)
        x[j].im = -x[j].im;
    forward(p, x, work);
    for (size_t j = 0; j < p->n; j++)
        x[j].im = -x[j].im;
}
