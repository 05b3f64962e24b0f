/**
 * @file test_cufft.c
 * @brief The cuFFT stand-in (emulator/libcufft.so.12) against DFTs computed here directly.
 *
 * Every transform type (C2C, Z2Z, R2C, D2Z, C2R, Z2D) runs on the stand-in from device memory
 * and is compared with the DFT's definition summed here in double, term by term (O(N^2), no
 * FFT): 1D at n = 1, 3, 5, 7, 12, 31, 97, 1000, 1021 (prime), 4096, 2D at 31 x 33, 3D at
 * 5 x 7 x 9, batched, with cuFFT's advanced layout (istride 2, idists and odists that are not
 * the defaults, embeds larger than the sizes), in place (R2C and C2R in the padded layout) and
 * out of place, in both directions. A buffer's every byte that is not an output (the guard
 * after it, the gaps a stride leaves, the padding) must keep its fill, and an out-of-place
 * input its values (but C2R's, which cuFFT documents it may overwrite). The layouts here are
 * written from cuFFT's documented formula, independently of the stand-in's. A result must lie
 * within half an fp32 ulp (or, for fp64, within 2^-40 of the input's sum of magnitudes) of the
 * sum, as a DFT computed in double and rounded once does; a wrong sign, stride or half-spectrum
 * layout is off by O(1).
 * Also: inverse(forward(x)) = n x; an exec after kernels on its stream and before another;
 * refusals (invalid plan, size, type, pointer, direction; a captured stream) and the cufftXt
 * stubs, each in one line; the stand-in's exports against the toolkit's libcufft (nm).
 */
#define _GNU_SOURCE /* popen */
#include <cufft.h>
#include <cufftXt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "cuda_check.h"
#include "test_cufft.h"

/** Up to 3 axes; GUARD bytes after every buffer, every byte first FILL; SIGNAL points in the
    stream order case. */
enum { MAX_RANK = 3, GUARD = 64, FILL = 0xa5, SIGNAL = 96 };

#define PI 3.14159265358979323846

/** A complex number in double: the references' arithmetic. */
struct cx {
    double re, im;
};

/** One side (input or output) of a transform, as cuFFT's documentation lays it out: element
    (b, i0, i1, i2) at b dist + ((i0 embed[1] + i1) embed[2] + i2) stride. */
struct side {
    int rank;
    long long len[MAX_RANK];   /**< logical elements along each axis */
    long long embed[MAX_RANK]; /**< storage lengths */
    long long stride, dist;
    size_t elem; /**< bytes per element */
    int real, dbl;
};

/** One transform to run. */
struct fft_case {
    cufftType type;
    int rank, n[MAX_RANK], batch;
    int in_place;
    int direction; /**< C2C and Z2Z: CUFFT_FORWARD or CUFFT_INVERSE */
    int advanced; /**< 0: cufftPlan1d/2d/3d, basic layout; 1: cufftPlanMany with the fields below */
    int xt; /**< 1: planned with cufftXtMakePlanMany (advanced's fields), run by cufftXtExec */
    int inembed[MAX_RANK], istride, idist, onembed[MAX_RANK], ostride, odist;
};

static const int sizes[] = {1, 3, 5, 7, 12, 31, 97, 1000, 1021, 4096};

/* 1: real input (R2C, D2Z); -1: real output (C2R, Z2D); 0: complex both sides. */
static int real_kind(cufftType t)
{
    return t == CUFFT_R2C || t == CUFFT_D2Z ? 1 : t == CUFFT_C2R || t == CUFFT_Z2D ? -1 : 0;
}

static int is_double(cufftType t)
{
    return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D;
}

static const char *type_name(cufftType t)
{
    return t == CUFFT_C2C   ? "C2C"
           : t == CUFFT_Z2Z ? "Z2Z"
           : t == CUFFT_R2C ? "R2C"
           : t == CUFFT_D2Z ? "D2Z"
           : t == CUFFT_C2R ? "C2R"
                            : "Z2D";
}

/* --- layouts ------------------------------------------------------------------------------- */

static struct side side_for(const struct fft_case *c, int input)
{
    int kind = real_kind(c->type), r = c->rank;
    struct side s = {.rank = r, .len = {1, 1, 1}, .real = input ? kind > 0 : kind < 0};
    s.dbl = is_double(c->type);
    s.elem = (s.dbl ? 8 : 4) * (s.real ? 1 : 2);
    for (int a = 0; a < r; a++)
        s.len[a] = c->n[a];
    if (kind && !s.real)
        s.len[r - 1] = c->n[r - 1] / 2 + 1; /* the half spectrum */
    if (c->advanced) {
        for (int a = 0; a < r; a++)
            s.embed[a] = input ? c->inembed[a] : c->onembed[a];
        s.stride = input ? c->istride : c->ostride;
        s.dist = input ? c->idist : c->odist;
        return s;
    }
    memcpy(s.embed, s.len, sizeof s.embed);
    if (kind && s.real && c->in_place) /* the real rows padded to hold the complex ones */
        s.embed[r - 1] = 2 * (c->n[r - 1] / 2 + 1);
    s.stride = 1;
    s.dist = 1;
    for (int a = 0; a < r; a++)
        s.dist *= s.embed[a];
    return s;
}

static long long elements(const struct side *s)
{
    return s->len[0] * s->len[1] * s->len[2]; /* 1 past the rank */
}

/* Where logical element @p e (row-major over the lengths) of transform @p b lies, in elements:
   cuFFT's formula for its indices x (slowest), y and z. */
static long long at(const struct side *s, long long b, long long e)
{
    long long pos = e; /* rank 1: x = e */
    if (s->rank == 2) {
        long long x = e / s->len[1], y = e % s->len[1];
        pos = x * s->embed[1] + y;
    } else if (s->rank == 3) {
        long long x = e / (s->len[1] * s->len[2]), y = e / s->len[2] % s->len[1];
        pos = (x * s->embed[1] + y) * s->embed[2] + e % s->len[2];
    }
    return b * s->dist + pos * s->stride;
}

/* The bytes from the side's first element to the end of its last, in @p batch transforms. */
static size_t extent(const struct side *s, int batch)
{
    long long last = 0;
    for (int b = 0; b < batch; b++) {
        long long end = at(s, b, elements(s) - 1);
        last = end > last ? end : last;
    }
    return (size_t)(last + 1) * s->elem;
}

static struct cx get(const struct side *s, const unsigned char *buf, long long i)
{
    if (s->real)
        return (struct cx){s->dbl ? ((const double *)buf)[i] : ((const float *)buf)[i], 0};
    if (s->dbl)
        return (struct cx){((const double *)buf)[2 * i], ((const double *)buf)[2 * i + 1]};
    return (struct cx){((const float *)buf)[2 * i], ((const float *)buf)[2 * i + 1]};
}

static void put(const struct side *s, unsigned char *buf, long long i, struct cx v)
{
    if (s->dbl) {
        ((double *)buf)[(s->real ? 1 : 2) * i] = v.re;
        if (!s->real)
            ((double *)buf)[2 * i + 1] = v.im;
    } else {
        ((float *)buf)[(s->real ? 1 : 2) * i] = (float)v.re;
        if (!s->real)
            ((float *)buf)[2 * i + 1] = (float)v.im;
    }
}

/* A deterministic value in [-1, 1). */
static double next_value(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (double)(*state >> 8) / (1 << 23) - 1.0;
}

/* --- the reference: the DFT's definition, term by term ------------------------------------- */

/*
 * y[k] = sum over j of x[j] exp(sign 2 pi i sum_a j_a k_a / n_a), over the row-major arrays
 * of lengths @p n (rank @p rank): every one of the N^2 terms, each exponential from a table
 * of exact fractions of a turn.
 */
static void dft(int rank, const long long *n, const struct cx *x, struct cx *y, int sign)
{
    long long total = 1;
    struct cx *tab[MAX_RANK];
    for (int a = 0; a < rank; a++) {
        total *= n[a];
        tab[a] = malloc((size_t)n[a] * sizeof *tab[a]);
        for (long long m = 0; m < n[a]; m++) {
            double angle = 2 * PI * (double)m / (double)n[a];
            tab[a][m] = (struct cx){cos(angle), sign * sin(angle)};
        }
    }
    for (long long k = 0; k < total; k++) {
        long long kk[MAX_RANK] = {0}, rest = k;
        for (int a = rank - 1; a >= 0; a--)
            kk[a] = rest % n[a], rest /= n[a];
        struct cx sum = {0, 0};
        for (long long j = 0; j < total; j++) {
            struct cx w = {1, 0};
            long long jr = j;
            for (int a = rank - 1; a >= 0; a--) {
                struct cx t = tab[a][jr % n[a] * kk[a] % n[a]];
                w = (struct cx){w.re * t.re - w.im * t.im, w.re * t.im + w.im * t.re};
                jr /= n[a];
            }
            sum.re += x[j].re * w.re - x[j].im * w.im;
            sum.im += x[j].re * w.im + x[j].im * w.re;
        }
        y[k] = sum;
    }
    for (int a = 0; a < rank; a++)
        free(tab[a]);
}

/*
 * What case @p c's one transform should give, from its input's logical elements @p x: its
 * output's logical elements into @p want. R2C: the forward DFT's first n / 2 + 1 along the
 * last axis. C2R: the real part of the inverse DFT of the full spectrum, the half given
 * extended along the last axis by X[k] = conj(X[-k]) (indices modulo the sizes).
 */
static void reference(const struct fft_case *c, const struct cx *x, struct cx *want)
{
    int r = c->rank, kind = real_kind(c->type);
    long long n[MAX_RANK] = {0}, total = 1, half = c->n[r - 1] / 2 + 1;
    for (int a = 0; a < r; a++)
        n[a] = c->n[a], total *= n[a];
    if (kind == 0) {
        dft(r, n, x, want, c->direction);
        return;
    }
    struct cx *full = calloc((size_t)total, sizeof *full), *y = malloc((size_t)total * sizeof *y);
    if (kind > 0) {
        dft(r, n, x, y, CUFFT_FORWARD);
        for (long long k = 0; k < total; k++) /* keep the last index <= n / 2 */
            if (k % n[r - 1] < half)
                want[k / n[r - 1] * half + k % n[r - 1]] = y[k];
    } else {
        for (long long k = 0; k < total; k++) {
            long long kk[MAX_RANK] = {0}, rest = k, mirror = 0;
            for (int a = r - 1; a >= 0; a--)
                kk[a] = rest % n[a], rest /= n[a];
            if (kk[r - 1] < half) {
                full[k] = x[k / n[r - 1] * half + kk[r - 1]];
                continue;
            }
            for (int a = 0; a < r; a++) /* the index of -k, whose last lies in the half */
                mirror = mirror * (a < r - 1 ? n[a] : half) + (n[a] - kk[a]) % n[a];
            full[k] = (struct cx){x[mirror].re, -x[mirror].im};
        }
        dft(r, n, full, y, CUFFT_INVERSE);
        for (long long k = 0; k < total; k++)
            want[k] = (struct cx){y[k].re, 0};
    }
    free(full);
    free(y);
}

/* --- running a case ------------------------------------------------------------------------ */

static void describe(const struct fft_case *c, char *out, size_t size)
{
    int len = snprintf(out, size, "%s %dD n=", type_name(c->type), c->rank);
    for (int a = 0; a < c->rank; a++)
        len += snprintf(out + len, size - (size_t)len, a ? "x%d" : "%d", c->n[a]);
    len += snprintf(out + len, size - (size_t)len, " batch %d %s %s", c->batch,
                    c->in_place ? "in place" : "out of place",
                    c->direction == CUFFT_INVERSE ? "inverse" : "forward");
    if (c->advanced)
        snprintf(out + len, size - (size_t)len, " (istride %d idist %d ostride %d odist %d)",
                 c->istride, c->idist, c->ostride, c->odist);
}

/* @p c planned through cufftXtMakePlanMany, its type spelled as data types. */
static cufftResult xt_plan(cufftHandle *plan, const struct fft_case *c)
{
    int dbl = is_double(c->type);
    cudaDataType cplx = dbl ? CUDA_C_64F : CUDA_C_32F, real = dbl ? CUDA_R_64F : CUDA_R_32F;
    cudaDataType in = c->type == CUFFT_R2C || c->type == CUFFT_D2Z ? real : cplx;
    cudaDataType out = c->type == CUFFT_C2R || c->type == CUFFT_Z2D ? real : cplx;
    long long n[MAX_RANK], inembed[MAX_RANK], onembed[MAX_RANK];
    for (int a = 0; a < MAX_RANK; a++)
        n[a] = c->n[a], inembed[a] = c->inembed[a], onembed[a] = c->onembed[a];
    size_t work;
    cufftResult r = cufftCreate(plan);
    return r != CUFFT_SUCCESS
               ? r
               : cufftXtMakePlanMany(*plan, c->rank, n, c->advanced ? inembed : NULL, c->istride,
                                     c->idist, in, c->advanced ? onembed : NULL, c->ostride,
                                     c->odist, out, c->batch, &work, cplx);
}

static cufftHandle plan_for(const struct fft_case *c)
{
    cufftHandle plan;
    cufftResult r;
    int n[MAX_RANK] = {c->n[0], c->n[1], c->n[2]};
    int inembed[MAX_RANK], onembed[MAX_RANK];
    memcpy(inembed, c->inembed, sizeof inembed);
    memcpy(onembed, c->onembed, sizeof onembed);
    if (c->xt)
        r = xt_plan(&plan, c);
    else if (c->advanced)
        r = cufftPlanMany(&plan, c->rank, n, inembed, c->istride, c->idist, onembed, c->ostride,
                          c->odist, c->type, c->batch);
    else if (c->rank == 1)
        r = cufftPlan1d(&plan, c->n[0], c->type, c->batch);
    else if (c->batch == 1)
        r = c->rank == 2 ? cufftPlan2d(&plan, c->n[0], c->n[1], c->type)
                         : cufftPlan3d(&plan, c->n[0], c->n[1], c->n[2], c->type);
    else
        r = cufftPlanMany(&plan, c->rank, n, NULL, 1, 0, NULL, 1, 0, c->type, c->batch);
    ck_assert_int_eq(r, CUFFT_SUCCESS);
    return plan;
}

static cufftResult exec_any(cufftHandle plan, cufftType t, void *in, void *out, int direction)
{
    switch (t) {
    case CUFFT_C2C:
        return cufftExecC2C(plan, in, out, direction);
    case CUFFT_Z2Z:
        return cufftExecZ2Z(plan, in, out, direction);
    case CUFFT_R2C:
        return cufftExecR2C(plan, in, out);
    case CUFFT_D2Z:
        return cufftExecD2Z(plan, in, out);
    case CUFFT_C2R:
        return cufftExecC2R(plan, in, out);
    default:
        return cufftExecZ2D(plan, in, out);
    }
}

/* Mark the bytes of every element of @p s in @p batch transforms in @p mask. */
static void mark(const struct side *s, int batch, unsigned char *mask)
{
    for (int b = 0; b < batch; b++)
        for (long long e = 0; e < elements(s); e++)
            memset(mask + at(s, b, e) * (long long)s->elem, 1, s->elem);
}

/* Whether @p got is @p want within what a DFT in double, rounded once to the output's type,
   may miss it by: half an ulp of fp32 (fp64: nothing) and 2^-40 of @p scale. */
static int close_enough(double got, double want, double scale, int dbl)
{
    double bound = (dbl ? 0 : ldexp(fabs(want), -24) * 1.001) + ldexp(scale, -40);
    return fabs(got - want) <= bound;
}

/*
 * Run case @p c on the stand-in from device memory filled with deterministic values and
 * compare every output with reference(); every other byte of the output buffer (and of an
 * out-of-place input, every byte) must be as it was.
 */
static void run_case(const struct fft_case *c)
{
    char what[160];
    describe(c, what, sizeof what);
    struct side in = side_for(c, 1), out = side_for(c, 0);
    size_t in_bytes = extent(&in, c->batch), out_bytes = extent(&out, c->batch);
    if (c->in_place)
        in_bytes = out_bytes = in_bytes > out_bytes ? in_bytes : out_bytes;
    in_bytes += GUARD, out_bytes += GUARD;
    unsigned char *h_in = malloc(in_bytes), *h_out = malloc(out_bytes);
    unsigned char *mask = calloc(out_bytes, 1);
    memset(h_in, FILL, in_bytes);
    long long ins = elements(&in), outs = elements(&out);
    unsigned state = 12345u + (unsigned)c->n[0] * 31u + (unsigned)c->type;
    for (int b = 0; b < c->batch; b++)
        for (long long e = 0; e < ins; e++)
            put(&in, h_in, at(&in, b, e), (struct cx){next_value(&state), next_value(&state)});
    void *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, in_bytes));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, in_bytes, cudaMemcpyHostToDevice));
    d_out = d_in;
    if (!c->in_place) {
        CUDA_CHECK(cudaMalloc(&d_out, out_bytes));
        CUDA_CHECK(cudaMemset(d_out, FILL, out_bytes));
    }
    cufftHandle plan = plan_for(c);
    cufftResult r = c->xt ? cufftXtExec(plan, d_in, d_out, c->direction)
                          : exec_any(plan, c->type, d_in, d_out, c->direction);
    ck_assert_msg(r == CUFFT_SUCCESS, "%s", what);
    CUDA_CHECK(cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost));
    ck_assert_int_eq(cufftDestroy(plan), CUFFT_SUCCESS);

    struct cx *x = malloc((size_t)ins * sizeof *x), *want = malloc((size_t)outs * sizeof *want);
    double max_err = 0;
    long long bad = -1;
    for (int b = 0; b < c->batch; b++) {
        double scale = 0;
        for (long long e = 0; e < ins; e++) {
            x[e] = get(&in, h_in, at(&in, b, e));
            scale += (fabs(x[e].re) + fabs(x[e].im)) * (real_kind(c->type) < 0 ? 2 : 1);
        }
        reference(c, x, want);
        for (long long e = 0; e < outs; e++) {
            struct cx got = get(&out, h_out, at(&out, b, e));
            double err = fmax(fabs(got.re - want[e].re), fabs(got.im - want[e].im));
            max_err = fmax(max_err, err);
            if (bad < 0 && !(close_enough(got.re, want[e].re, scale, out.dbl) &&
                             close_enough(got.im, want[e].im, scale, out.dbl)))
                bad = (long long)b * outs + e;
        }
    }
    ck_assert_msg(bad < 0, "%s: output %lld (batch %lld, element %lld) is off; max error %.3g",
                  what, bad, bad / (outs ? outs : 1), bad % (outs ? outs : 1), max_err);
    /* Every byte that is not an output (nor, in place, an input) keeps its fill. */
    mark(&out, c->batch, mask);
    if (c->in_place)
        mark(&in, c->batch, mask);
    for (size_t i = 0; i < out_bytes; i++)
        ck_assert_msg(mask[i] || h_out[i] == FILL, "%s: byte %zu of %zu, no output's, was written",
                      what, i, out_bytes);
    if (!c->in_place && real_kind(c->type) >= 0) { /* C2R may overwrite its input, as cuFFT's */
        unsigned char *after = malloc(in_bytes);
        CUDA_CHECK(cudaMemcpy(after, d_in, in_bytes, cudaMemcpyDeviceToHost));
        ck_assert_msg(!memcmp(after, h_in, in_bytes), "%s: the input changed", what);
        free(after);
    }
    CUDA_CHECK(cudaFree(d_in));
    if (!c->in_place)
        CUDA_CHECK(cudaFree(d_out));
    free(x);
    free(want);
    free(mask);
    free(h_in);
    free(h_out);
}

/* --- transforms against the definition ----------------------------------------------------- */

/* C2C and Z2Z at every size, both directions, out of place and in place, two batches. */
START_TEST(complex_1d_every_size)
{
    const cufftType types[] = {CUFFT_C2C, CUFFT_Z2Z};
    for (int t = 0; t < 2; t++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (int in_place = 0; in_place < 2; in_place++)
                for (int dir = -1; dir <= 1; dir += 2) {
                    struct fft_case c = {.type = types[t], .rank = 1, .n = {sizes[s]}, .batch = 2};
                    c.in_place = in_place, c.direction = dir;
                    run_case(&c);
                }
}
END_TEST

/* R2C, D2Z, C2R and Z2D at every size, out of place and in place (the padded rows). */
START_TEST(real_1d_every_size)
{
    const cufftType types[] = {CUFFT_R2C, CUFFT_D2Z, CUFFT_C2R, CUFFT_Z2D};
    for (int t = 0; t < 4; t++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (int in_place = 0; in_place < 2; in_place++) {
                struct fft_case c = {.type = types[t], .rank = 1, .n = {sizes[s]}, .batch = 2};
                c.in_place = in_place;
                run_case(&c);
            }
}
END_TEST

/* Every type in 2D at 31 x 33 and 3D at 5 x 7 x 9 (cufftPlan2d, cufftPlan3d), both
   placements, both directions; and a batch of three 2D ones (cufftPlanMany, basic layout). */
START_TEST(every_type_2d_and_3d)
{
    const cufftType types[] = {CUFFT_C2C, CUFFT_Z2Z, CUFFT_R2C, CUFFT_D2Z, CUFFT_C2R, CUFFT_Z2D};
    const int shapes[2][MAX_RANK] = {{31, 33}, {5, 7, 9}};
    for (int t = 0; t < 6; t++)
        for (int s = 0; s < 2; s++)
            for (int in_place = 0; in_place < 2; in_place++)
                for (int dir = -1; dir <= 1; dir += 2) {
                    if (real_kind(types[t]) && dir > 0)
                        continue;
                    struct fft_case c = {.type = types[t], .rank = 2 + s, .batch = 1};
                    memcpy(c.n, shapes[s], sizeof c.n);
                    c.in_place = in_place, c.direction = dir;
                    run_case(&c);
                }
    for (int t = 0; t < 6; t++) {
        struct fft_case c = {.type = types[t], .rank = 2, .n = {6, 5}, .batch = 3};
        c.direction = CUFFT_FORWARD;
        run_case(&c);
    }
}
END_TEST

/* cufftPlanMany's advanced layout: batches of three with istride 2 and distances that are not
   the defaults, outputs strided too, in place and out of place, every type; a 2D batch whose
   rows are embedded in longer ones. */
START_TEST(batched_advanced_layouts)
{
    const cufftType types[] = {CUFFT_C2C, CUFFT_Z2Z, CUFFT_R2C, CUFFT_D2Z, CUFFT_C2R, CUFFT_Z2D};
    const int lengths[] = {12, 31, 97};
    for (int t = 0; t < 6; t++)
        for (int l = 0; l < 3; l++) {
            int n = lengths[l], half = n / 2 + 1;
            int in_len = real_kind(types[t]) < 0 ? half : n;
            int out_len = real_kind(types[t]) > 0 ? half : n;
            struct fft_case c = {.type = types[t],
                                 .rank = 1,
                                 .n = {n},
                                 .batch = 3,
                                 .advanced = 1,
                                 .direction = CUFFT_INVERSE};
            c.inembed[0] = in_len, c.onembed[0] = out_len;
            c.istride = 2, c.idist = 2 * in_len + 5;
            c.ostride = 3, c.odist = 3 * out_len + 1;
            run_case(&c);
            c.ostride = 1, c.odist = out_len + 7;
            run_case(&c);
            /* In place: complex ones in one strided layout; real ones in the padded one. */
            c.in_place = 1;
            if (real_kind(types[t])) {
                c.istride = c.ostride = 1;
                c.idist = real_kind(types[t]) > 0 ? 2 * half : half;
                c.odist = real_kind(types[t]) > 0 ? half : 2 * half;
            } else {
                c.istride = c.ostride = 2, c.idist = c.odist = 2 * n + 3;
            }
            run_case(&c);
        }
    for (int t = 0; t < 6; t++) {
        int rows = 7, n = 10, half = n / 2 + 1;
        int in_len = real_kind(types[t]) < 0 ? half : n;
        int out_len = real_kind(types[t]) > 0 ? half : n;
        struct fft_case c = {.type = types[t],
                             .rank = 2,
                             .n = {rows, n},
                             .batch = 2,
                             .advanced = 1,
                             .direction = CUFFT_FORWARD};
        c.inembed[0] = rows, c.inembed[1] = in_len + 3;
        c.onembed[0] = rows + 1, c.onembed[1] = out_len + 2;
        c.istride = 2, c.idist = 2 * rows * (in_len + 3) + 9;
        c.ostride = 1, c.odist = (rows + 1) * (out_len + 2);
        run_case(&c);
    }
}
END_TEST

/* cufftXtMakePlanMany and cufftXtExec (NVIDIA's simpleCUFFT sample plans so) for every fp32
   and fp64 type: 1D at 97 points in a batch of two, in place and out of place, and in a strided
   layout of their own; 2D at 31 x 33 both directions for the complex ones. */
START_TEST(xt_plans_every_type)
{
    const cufftType types[] = {CUFFT_C2C, CUFFT_Z2Z, CUFFT_R2C, CUFFT_D2Z, CUFFT_C2R, CUFFT_Z2D};
    for (int t = 0; t < 6; t++) {
        int n = 97, half = n / 2 + 1;
        for (int in_place = 0; in_place < 2; in_place++) {
            struct fft_case c = {.type = types[t], .rank = 1, .n = {n}, .batch = 2, .xt = 1};
            c.in_place = in_place, c.direction = CUFFT_FORWARD;
            run_case(&c);
        }
        struct fft_case c = {.type = types[t], .rank = 1, .n = {n}, .batch = 3, .advanced = 1};
        c.xt = 1, c.direction = CUFFT_INVERSE;
        c.inembed[0] = real_kind(types[t]) < 0 ? half : n;
        c.onembed[0] = real_kind(types[t]) > 0 ? half : n;
        c.istride = 2, c.idist = 2 * c.inembed[0] + 5, c.ostride = 3,
        c.odist = 3 * c.onembed[0] + 1;
        run_case(&c);
        if (!real_kind(types[t]))
            for (int dir = -1; dir <= 1; dir += 2) {
                struct fft_case d = {
                    .type = types[t], .rank = 2, .n = {31, 33}, .batch = 1, .xt = 1};
                d.direction = dir;
                run_case(&d);
            }
    }
}
END_TEST

/* Forward then inverse gives n x (cuFFT does not normalise): C2C in place, R2C then C2R in
   2D, Z2Z in 3D, D2Z then Z2D at a prime size. */
START_TEST(inverse_of_forward_is_n_times_x)
{
    struct {
        cufftType fwd, inv;
        int rank, n[MAX_RANK], batch;
    } const pairs[] = {{CUFFT_C2C, CUFFT_C2C, 1, {1000}, 3},
                       {CUFFT_R2C, CUFFT_C2R, 2, {31, 33}, 1},
                       {CUFFT_Z2Z, CUFFT_Z2Z, 3, {5, 7, 9}, 2},
                       {CUFFT_D2Z, CUFFT_Z2D, 1, {1021}, 2}};
    for (size_t p = 0; p < sizeof pairs / sizeof *pairs; p++) {
        int rank = pairs[p].rank, batch = pairs[p].batch, dbl = is_double(pairs[p].fwd);
        int real = real_kind(pairs[p].fwd) != 0;
        long long total = 1, half_total = 1;
        for (int a = 0; a < rank; a++) {
            total *= pairs[p].n[a];
            half_total *= a < rank - 1 ? pairs[p].n[a] : pairs[p].n[a] / 2 + 1;
        }
        size_t elem = (dbl ? 8 : 4) * (real ? 1 : 2), count = (size_t)(total * batch);
        double *x = malloc(count * (2 * sizeof *x + elem)); /* then the values as stored, h */
        unsigned char *h = (unsigned char *)(x + 2 * count);
        unsigned state = 99u;
        for (size_t i = 0; i < count * (real ? 1 : 2); i++) {
            x[i] = next_value(&state);
            if (dbl)
                ((double *)h)[i] = x[i];
            else
                ((float *)h)[i] = (float)x[i], x[i] = ((float *)h)[i];
        }
        void *d_x, *d_spectrum;
        int n[MAX_RANK];
        memcpy(n, pairs[p].n, sizeof n);
        CUDA_CHECK(cudaMalloc(&d_x, count * elem));
        CUDA_CHECK(cudaMemcpy(d_x, h, count * elem, cudaMemcpyHostToDevice));
        d_spectrum = d_x;
        if (real)
            CUDA_CHECK(cudaMalloc(&d_spectrum, (size_t)(half_total * batch) * 4 * elem));
        cufftHandle fwd, inv;
        ck_assert_int_eq(cufftPlanMany(&fwd, rank, n, NULL, 1, 0, NULL, 1, 0, pairs[p].fwd, batch),
                         CUFFT_SUCCESS);
        ck_assert_int_eq(cufftPlanMany(&inv, rank, n, NULL, 1, 0, NULL, 1, 0, pairs[p].inv, batch),
                         CUFFT_SUCCESS);
        ck_assert_int_eq(exec_any(fwd, pairs[p].fwd, d_x, d_spectrum, CUFFT_FORWARD),
                         CUFFT_SUCCESS);
        ck_assert_int_eq(exec_any(inv, pairs[p].inv, d_spectrum, d_x, CUFFT_INVERSE),
                         CUFFT_SUCCESS);
        CUDA_CHECK(cudaMemcpy(h, d_x, count * elem, cudaMemcpyDeviceToHost));
        cufftDestroy(fwd);
        cufftDestroy(inv);
        if (real)
            CUDA_CHECK(cudaFree(d_spectrum));
        CUDA_CHECK(cudaFree(d_x));
        double tol = (dbl ? 1e-12 : 1e-5) * (double)total; /* |x| < 1 */
        for (size_t i = 0; i < count * (real ? 1 : 2); i++) {
            double got = dbl ? ((double *)h)[i] : ((float *)h)[i];
            ck_assert_msg(fabs(got - (double)total * x[i]) <= tol,
                          "%s then %s: value %zu is %.9g, not %lld x %.9g", type_name(pairs[p].fwd),
                          type_name(pairs[p].inv), i, got, total, x[i]);
        }
        free(x);
    }
}
END_TEST

/* --- order, settings, refusals --------------------------------------------------------------- */

/* Versions, work sizes (the stand-in needs none), work areas and plan properties. */
START_TEST(queries_and_settings)
{
    int v;
    ck_assert_int_eq(cufftGetVersion(&v), CUFFT_SUCCESS);
    ck_assert_int_eq(v, CUFFT_VERSION);
    ck_assert_int_eq(cufftGetProperty(MAJOR_VERSION, &v), CUFFT_SUCCESS);
    ck_assert_int_eq(v, CUFFT_VER_MAJOR);
    ck_assert_int_eq(cufftGetProperty(MINOR_VERSION, &v), CUFFT_SUCCESS);
    ck_assert_int_eq(v, CUFFT_VER_MINOR);
    ck_assert_int_eq(cufftGetProperty(PATCH_LEVEL, &v), CUFFT_SUCCESS);
    ck_assert_int_eq(v, CUFFT_VER_PATCH);
    size_t ws = 1;
    ck_assert_int_eq(cufftEstimate1d(1000, CUFFT_C2C, 4, &ws), CUFFT_SUCCESS);
    ck_assert_uint_eq(ws, 0);
    ws = 1;
    ck_assert_int_eq(cufftEstimate3d(5, 7, 9, CUFFT_R2C, &ws), CUFFT_SUCCESS);
    ck_assert_uint_eq(ws, 0);
    cufftHandle a, b;
    ck_assert_int_eq(cufftCreate(&a), CUFFT_SUCCESS);
    ck_assert_int_eq(cufftCreate(&b), CUFFT_SUCCESS);
    ck_assert_int_ne(a, b);
    ck_assert_int_eq(cufftSetAutoAllocation(a, 0), CUFFT_SUCCESS);
    ws = 1;
    ck_assert_int_eq(cufftGetSize2d(a, 31, 33, CUFFT_Z2D, &ws), CUFFT_SUCCESS);
    ck_assert_uint_eq(ws, 0);
    ws = 1;
    ck_assert_int_eq(cufftMakePlan2d(a, 31, 33, CUFFT_Z2D, &ws), CUFFT_SUCCESS);
    ck_assert_uint_eq(ws, 0);
    ck_assert_int_eq(cufftGetSize(a, &ws), CUFFT_SUCCESS);
    ck_assert_uint_eq(ws, 0);
    ck_assert_int_eq(cufftSetWorkArea(a, NULL), CUFFT_SUCCESS);
    long long value = -1;
    ck_assert_int_eq(cufftSetPlanPropertyInt64(b, NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT, 1),
                     CUFFT_SUCCESS);
    ck_assert_int_eq(cufftGetPlanPropertyInt64(b, NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT, &value),
                     CUFFT_SUCCESS);
    ck_assert_int_eq(value, 1);
    ck_assert_int_eq(cufftResetPlanProperty(b, NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT),
                     CUFFT_SUCCESS);
    ck_assert_int_eq(cufftGetPlanPropertyInt64(b, NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT, &value),
                     CUFFT_SUCCESS);
    ck_assert_int_eq(value, 0);
    ck_assert_int_eq(cufftDestroy(a), CUFFT_SUCCESS);
    ck_assert_int_eq(cufftDestroy(b), CUFFT_SUCCESS);
    ck_assert_int_eq(cufftDestroy(CUFFT_PLAN_NULL), CUFFT_SUCCESS); /* cufft.h: always safe */
}
END_TEST

/*
 * On a stream of its own: a kernel makes the input, the exec transforms it, a kernel scales the
 * spectrum, an async copy brings it back; the host waits once. The exec must run after the
 * first kernel and before the second. The plan's own DFT of the same signal, computed here,
 * is the expectation.
 */
START_TEST(exec_in_stream_order)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cufftComplex *d_x, h_x[SIGNAL];
    CUDA_CHECK(cudaMalloc((void **)&d_x, sizeof h_x));
    cufftHandle plan;
    ck_assert_int_eq(cufftPlan1d(&plan, SIGNAL, CUFFT_C2C, 1), CUFFT_SUCCESS);
    ck_assert_int_eq(cufftSetStream(plan, stream), CUFFT_SUCCESS);
    CUDA_CHECK(fill_signal(d_x, SIGNAL, stream));
    ck_assert_int_eq(cufftExecC2C(plan, d_x, d_x, CUFFT_FORWARD), CUFFT_SUCCESS);
    CUDA_CHECK(scale_signal(d_x, SIGNAL, 0.5f, stream));
    CUDA_CHECK(cudaMemcpyAsync(h_x, d_x, sizeof h_x, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    struct cx x[SIGNAL], want[SIGNAL];
    for (int j = 0; j < SIGNAL; j++)
        x[j] = (struct cx){j % 7 - 3, j % 5 - 2};
    long long n = SIGNAL;
    dft(1, &n, x, want, CUFFT_FORWARD);
    for (int k = 0; k < SIGNAL; k++)
        ck_assert_msg(fabs(h_x[k].x - 0.5 * want[k].re) < 1e-4 &&
                          fabs(h_x[k].y - 0.5 * want[k].im) < 1e-4,
                      "X[%d] = (%g, %g), not half of (%g, %g)", k, h_x[k].x, h_x[k].y, want[k].re,
                      want[k].im);
    /* A stream being captured into a graph: the stand-in, computing at the call, refuses. */
    cudaGraph_t graph;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    EXPECT_REFUSED_WITH(CUFFT_NOT_SUPPORTED, cufftExecC2C(plan, d_x, d_x, CUFFT_FORWARD),
                        "cuFFT: cufftExecC2C: plan");
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphDestroy(graph));
    ck_assert_int_eq(cufftDestroy(plan), CUFFT_SUCCESS);
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}
END_TEST

/* Each bad call is answered with its cufftResult and one line saying why. */
START_TEST(bad_calls_refused_in_one_line)
{
    float2 *d_x, h_x[8];
    CUDA_CHECK(cudaMalloc((void **)&d_x, 8 * sizeof *d_x));
    cufftHandle plan = 0, made, unmade;
    EXPECT_REFUSED_WITH(CUFFT_INVALID_PLAN, cufftExecC2C(12345, d_x, d_x, CUFFT_FORWARD),
                        "cuFFT: cufftExecC2C: 12345 is not a plan");
    EXPECT_REFUSED_WITH(CUFFT_INVALID_SIZE, cufftPlan1d(&plan, 0, CUFFT_C2C, 1),
                        "cuFFT: cufftPlan1d: size 0 (axis 0) is not a transform size");
    EXPECT_REFUSED_WITH(CUFFT_INVALID_SIZE, cufftPlan1d(&plan, 8, CUFFT_C2C, 0),
                        "batch 0 is not 1 or more");
    EXPECT_REFUSED_WITH(CUFFT_INVALID_SIZE, cufftPlan2d(&plan, 31, -2, CUFFT_R2C),
                        "size -2 (axis 1)");
    EXPECT_REFUSED_WITH(CUFFT_INVALID_TYPE, cufftPlan1d(&plan, 8, (cufftType)0x99, 1),
                        "153 is not a cufftType");
    int n4[4] = {2, 2, 2, 2};
    EXPECT_REFUSED_WITH(CUFFT_INVALID_SIZE,
                        cufftPlanMany(&plan, 4, n4, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, 1),
                        "rank 4 is not 1, 2 or 3");
    int n1[1] = {8}, embed[1] = {8};
    EXPECT_REFUSED_WITH(CUFFT_INVALID_VALUE,
                        cufftPlanMany(&plan, 1, n1, embed, 0, 8, embed, 1, 8, CUFFT_C2C, 1),
                        "strides must be 1 or more");
    size_t ws;
    EXPECT_REFUSED_WITH(CUFFT_INVALID_SIZE, cufftEstimate1d(-5, CUFFT_C2C, 1, &ws),
                        "cufftEstimate1d: size -5");
    ck_assert_int_eq(plan, 0); /* no refusal wrote a handle */

    ck_assert_int_eq(cufftPlan1d(&made, 8, CUFFT_C2C, 1), CUFFT_SUCCESS);
    EXPECT_REFUSED_WITH(CUFFT_INVALID_VALUE, cufftExecC2C(made, d_x, d_x, 0),
                        "direction 0 is neither CUFFT_FORWARD (-1) nor CUFFT_INVERSE (1)");
    EXPECT_REFUSED_WITH(CUFFT_INVALID_VALUE, cufftExecR2C(made, (float *)d_x, d_x),
                        "is a C2C plan, not a R2C one");
    EXPECT_REFUSED_WITH(CUFFT_INVALID_VALUE, cufftExecC2C(made, h_x, d_x, CUFFT_FORWARD),
                        "cufftExecC2C, idata: ");
    EXPECT_REFUSED_WITH(CUFFT_INVALID_VALUE, cufftExecC2C(made, d_x, d_x + 1, CUFFT_FORWARD),
                        "cufftExecC2C, odata: 64 bytes at");
    ck_assert_int_eq(cufftDestroy(made), CUFFT_SUCCESS);
    EXPECT_REFUSED_WITH(CUFFT_INVALID_PLAN, cufftExecC2C(made, d_x, d_x, CUFFT_FORWARD),
                        "is not a plan (never created, or destroyed)");
    EXPECT_REFUSED_WITH(CUFFT_INVALID_PLAN, cufftDestroy(made), "is not a plan");
    ck_assert_int_eq(cufftCreate(&unmade), CUFFT_SUCCESS);
    EXPECT_REFUSED_WITH(CUFFT_INVALID_PLAN, cufftExecC2C(unmade, d_x, d_x, CUFFT_FORWARD),
                        "was created but never made");
    EXPECT_REFUSED_WITH(CUFFT_INVALID_PLAN, cufftSetStream(-7, 0), "cufftSetStream: -7");
    ck_assert_int_eq(cufftDestroy(unmade), CUFFT_SUCCESS);
    CUDA_CHECK(cudaFree(d_x));
}
END_TEST

/* The names in @p lib's dynamic symbol table that it defines, each with its version, sorted
   (nm -D), as one string. */
static char *defined_symbols(const char *lib)
{
    char command[1024];
    snprintf(command, sizeof command,
             "nm -D --defined-only '%s' | awk 'NF == 3 { print $3 }' | sort", lib);
    FILE *f = popen(command, "r");
    ck_assert_ptr_nonnull(f);
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    while ((len += fread(text + len, 1, cap - len - 1, f)) == cap - 1)
        text = realloc(text, cap *= 2);
    text[len] = 0;
    ck_assert_int_eq(pclose(f), 0);
    return text;
}

/* The stand-in exports what the toolkit's libcufft exports, symbol for symbol, each of its
   version (cufftPlan1d@@libcufft.so.12), so no program stops at load. */
START_TEST(exports_as_the_toolkit)
{
    char *real = defined_symbols(CUFFT_REAL), *ours = defined_symbols(EMU_CUFFT);
    ck_assert_ptr_nonnull(strstr(real, "cufftPlan1d@@"));
    ck_assert_msg(!strcmp(real, ours), "the toolkit's libcufft exports\n%s\nthe stand-in\n%s", real,
                  ours);
    free(real);
    free(ours);
}
END_TEST

/* What the stand-in does not model (multi-GPU, callbacks, cufftXt plans) answers
   CUFFT_NOT_SUPPORTED in one line naming the call. */
START_TEST(xt_calls_refused_in_one_line)
{
    cufftHandle plan;
    ck_assert_int_eq(cufftPlan1d(&plan, 16, CUFFT_C2C, 1), CUFFT_SUCCESS);
    int gpus[2] = {0, 1};
    EXPECT_REFUSED_WITH(CUFFT_NOT_SUPPORTED, cufftXtSetGPUs(plan, 2, gpus),
                        "emulator: cuFFT: cufftXtSetGPUs is not in the emulator's cuFFT stand-in "
                        "(CUFFT_NOT_SUPPORTED)");
    long long n = 16;
    size_t ws;
    EXPECT_REFUSED_WITH(CUFFT_NOT_SUPPORTED,
                        cufftXtMakePlanMany(plan, 1, &n, NULL, 1, 0, CUDA_C_16F, NULL, 1, 0,
                                            CUDA_C_16F, 1, &ws, CUDA_C_16F),
                        "emulator: cuFFT: cufftXtMakePlanMany: these data types are not emulated "
                        "(fp32 and fp64 transforms are; half and bf16 are not) "
                        "(CUFFT_NOT_SUPPORTED)");
    void *cb = NULL;
    EXPECT_REFUSED_WITH(CUFFT_NOT_SUPPORTED,
                        cufftXtSetCallback(plan, &cb, CUFFT_CB_LD_COMPLEX, NULL),
                        "cufftXtSetCallback is not in");
    EXPECT_REFUSED_WITH(CUFFT_NOT_SUPPORTED, cufftXtExecDescriptor(plan, NULL, NULL, CUFFT_FORWARD),
                        "cufftXtExecDescriptor is not in");
    ck_assert_int_eq(cufftDestroy(plan), CUFFT_SUCCESS);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"complex_1d_every_size", complex_1d_every_size, CASE_CPU, 240},
        {"real_1d_every_size", real_1d_every_size, CASE_CPU, 240},
        {"every_type_2d_and_3d", every_type_2d_and_3d, CASE_CPU, 240},
        {"batched_advanced_layouts", batched_advanced_layouts, CASE_CPU, 120},
        {"inverse_of_forward_is_n_times_x", inverse_of_forward_is_n_times_x, CASE_CPU, 60},
        {"exec_in_stream_order", exec_in_stream_order, CASE_CPU, 60},
        {"queries_and_settings", queries_and_settings, CASE_CPU, 60},
        {"bad_calls_refused_in_one_line", bad_calls_refused_in_one_line, CASE_CPU, 60},
        {"xt_calls_refused_in_one_line", xt_calls_refused_in_one_line, CASE_CPU, 60},
        {"xt_plans_every_type", xt_plans_every_type, CASE_CPU, 120},
        {"exports_as_the_toolkit", exports_as_the_toolkit, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
