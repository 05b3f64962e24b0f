/**
 * @file test_curand.c
 * @brief The cuRAND stand-in (emulator/libcurand.so.10) against NVIDIA's own host generator.
 *
 * The toolkit's libcurand runs its host generators (curandCreateGeneratorHost) on the CPU, so
 * it is the oracle: loaded by path (CURAND_REAL) into its own namespace, it generates beside
 * the stand-in with the same seed, offset and length. 32-bit values, uniform floats and
 * doubles must be equal bit for bit; normals and log-normals, which go through logf/sinf
 * whose last bits differ between math libraries, within a few float or double ulps. Lengths
 * 1 to 130006 in two calls, at offsets up to 200001, cross the 4096 XORWOW states, the 81920
 * MRG32k3a states and Philox's 65536 subsequences. Sobol32 and Sobol64 the same way, in 1 to
 * 101 dimensions, with every direction vector the stand-in has; Poisson numbers from XORWOW,
 * MRG32k3a and Philox, bit for bit, for lambda from 0.001 to 400000 (the histogram below 2000,
 * normals above), several lambdas and other calls in turn from one generator; from Sobol32 and
 * Sobol64 the same, across each change of method (histogram, inversion, normals); a new seed
 * continuing from the offset NVIDIA's library carries over.
 * Device generators write emulated device memory, checked with guards after the output, and a
 * Monte Carlo pi (a kernel counting device-generated points) runs on them.
 */
#define _GNU_SOURCE
#include <curand.h>
#include <curand_discrete.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "cuda_check.h"
#include "test_curand.h"

/** The oracle's entry points (the real libcurand). */
static struct {
    curandStatus_t (*create)(curandGenerator_t *, curandRngType_t);
    curandStatus_t (*destroy)(curandGenerator_t);
    curandStatus_t (*seed)(curandGenerator_t, unsigned long long);
    curandStatus_t (*offset)(curandGenerator_t, unsigned long long);
    curandStatus_t (*bits)(curandGenerator_t, unsigned *, size_t);
    curandStatus_t (*uniform)(curandGenerator_t, float *, size_t);
    curandStatus_t (*uniform_double)(curandGenerator_t, double *, size_t);
    curandStatus_t (*normal)(curandGenerator_t, float *, size_t, float, float);
    curandStatus_t (*normal_double)(curandGenerator_t, double *, size_t, double, double);
    curandStatus_t (*lognormal)(curandGenerator_t, float *, size_t, float, float);
    curandStatus_t (*longlong)(curandGenerator_t, unsigned long long *, size_t);
    curandStatus_t (*dims)(curandGenerator_t, unsigned);
    curandStatus_t (*vectors32)(curandDirectionVectors32_t **, curandDirectionVectorSet_t);
    curandStatus_t (*vectors64)(curandDirectionVectors64_t **, curandDirectionVectorSet_t);
    curandStatus_t (*poisson)(curandGenerator_t, unsigned *, size_t, double);
} real;

static void *real_sym(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    ck_assert_msg(p != NULL, "%s not in %s", name, CURAND_REAL);
    return p;
}

static void load_real(void)
{
    static void *lib;
    if (lib)
        return;
    lib = dlopen(CURAND_REAL, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    ck_assert_msg(lib != NULL, "cannot load NVIDIA's libcurand: %s", dlerror());
    *(void **)&real.create = real_sym(lib, "curandCreateGeneratorHost");
    *(void **)&real.destroy = real_sym(lib, "curandDestroyGenerator");
    *(void **)&real.seed = real_sym(lib, "curandSetPseudoRandomGeneratorSeed");
    *(void **)&real.offset = real_sym(lib, "curandSetGeneratorOffset");
    *(void **)&real.bits = real_sym(lib, "curandGenerate");
    *(void **)&real.uniform = real_sym(lib, "curandGenerateUniform");
    *(void **)&real.uniform_double = real_sym(lib, "curandGenerateUniformDouble");
    *(void **)&real.normal = real_sym(lib, "curandGenerateNormal");
    *(void **)&real.normal_double = real_sym(lib, "curandGenerateNormalDouble");
    *(void **)&real.lognormal = real_sym(lib, "curandGenerateLogNormal");
    *(void **)&real.longlong = real_sym(lib, "curandGenerateLongLong");
    *(void **)&real.dims = real_sym(lib, "curandSetQuasiRandomGeneratorDimensions");
    *(void **)&real.vectors32 = real_sym(lib, "curandGetDirectionVectors32");
    *(void **)&real.vectors64 = real_sym(lib, "curandGetDirectionVectors64");
    *(void **)&real.poisson = real_sym(lib, "curandGeneratePoisson");
}

enum dist {
    BITS,
    UNIFORM,
    UNIFORM_DOUBLE,
    NORMAL,
    NORMAL_DOUBLE,
    LOGNORMAL,
    BITS64,
    POISSON,
    OFFSET, /**< not a distribution: curandSetGeneratorOffset(n) between calls */
    SEED,   /**< not a distribution: curandSetPseudoRandomGeneratorSeed(n) between calls */
    NDIST
};
static const char *const dist_name[NDIST] = {
    "bits",       "uniform",       "uniform double", "normal", "normal double",
    "log-normal", "64-bit values", "Poisson",        "offset", "seed"};
static const size_t dist_size[NDIST] = {4, 4, 8, 4, 8, 4, 8, 4, 0, 0};

/** One Generate call: @p n values of @p d (POISSON: with mean @p lambda); OFFSET: the offset
    set to @p n; SEED: the seed set to @p n. */
struct call {
    enum dist d;
    size_t n;
    double lambda;
};

/* The values of call @p c from generator @p g, by the oracle (@p oracle) or the stand-in. */
static curandStatus_t draw(int oracle, curandGenerator_t g, const struct call *c, void *out)
{
    size_t n = c->n;
    switch (c->d) {
    case BITS:
        return (oracle ? real.bits : curandGenerate)(g, out, n);
    case UNIFORM:
        return (oracle ? real.uniform : curandGenerateUniform)(g, out, n);
    case UNIFORM_DOUBLE:
        return (oracle ? real.uniform_double : curandGenerateUniformDouble)(g, out, n);
    case NORMAL:
        return (oracle ? real.normal : curandGenerateNormal)(g, out, n, 1.5f, 2.0f);
    case NORMAL_DOUBLE:
        return (oracle ? real.normal_double : curandGenerateNormalDouble)(g, out, n, -1.0, 0.5);
    case BITS64:
        return (oracle ? real.longlong : curandGenerateLongLong)(g, out, n);
    case POISSON:
        return (oracle ? real.poisson : curandGeneratePoisson)(g, out, n, c->lambda);
    default:
        return (oracle ? real.lognormal : curandGenerateLogNormal)(g, out, n, 0.25f, 0.5f);
    }
}

/* Whether @p got equals @p want: bit for bit, or within the math libraries' last bits. */
static int same(enum dist d, const void *want, const void *got, size_t i)
{
    if (d == BITS || d == UNIFORM || d == UNIFORM_DOUBLE || d == BITS64 || d == POISSON)
        return !memcmp((const char *)want + i * dist_size[d], (const char *)got + i * dist_size[d],
                       dist_size[d]);
    if (d == NORMAL_DOUBLE) {
        double w = ((const double *)want)[i], g = ((const double *)got)[i];
        return fabs(w - g) <= 1e-12 * (1.0 + fabs(w));
    }
    float w = ((const float *)want)[i], g = ((const float *)got)[i];
    return fabsf(w - g) <= 4e-6f * (1.0f + fabsf(w));
}

/* The @p ncalls calls in turn after seed (Sobol: dimensions) and offset, from one generator of
   the stand-in and one of the oracle, each call's values compared. */
static void compare_calls(curandRngType_t type, unsigned long long seed, unsigned long long offset,
                          const struct call *calls, size_t ncalls)
{
    int sobol = type == CURAND_RNG_QUASI_SOBOL32 || type == CURAND_RNG_QUASI_SOBOL64;
    curandGenerator_t gr, gs;
    ck_assert_int_eq(real.create(&gr, type), CURAND_STATUS_SUCCESS);
    ck_assert_int_eq(curandCreateGeneratorHost(&gs, type), CURAND_STATUS_SUCCESS);
    ck_assert_int_eq((sobol ? real.dims(gr, seed) : real.seed(gr, seed)), CURAND_STATUS_SUCCESS);
    ck_assert_int_eq((sobol ? curandSetQuasiRandomGeneratorDimensions(gs, seed)
                            : curandSetPseudoRandomGeneratorSeed(gs, seed)),
                     CURAND_STATUS_SUCCESS);
    ck_assert_int_eq(real.offset(gr, offset), CURAND_STATUS_SUCCESS);
    ck_assert_int_eq(curandSetGeneratorOffset(gs, offset), CURAND_STATUS_SUCCESS);
    for (size_t k = 0; k < ncalls; k++) {
        const struct call *c = &calls[k];
        if (c->d == OFFSET) {
            ck_assert_int_eq(real.offset(gr, c->n), CURAND_STATUS_SUCCESS);
            ck_assert_int_eq(curandSetGeneratorOffset(gs, c->n), CURAND_STATUS_SUCCESS);
            continue;
        }
        if (c->d == SEED) {
            ck_assert_int_eq(real.seed(gr, c->n), CURAND_STATUS_SUCCESS);
            ck_assert_int_eq(curandSetPseudoRandomGeneratorSeed(gs, c->n), CURAND_STATUS_SUCCESS);
            continue;
        }
        char *want = malloc(c->n * dist_size[c->d] + 1), *got = malloc(c->n * dist_size[c->d] + 1);
        ck_assert_int_eq(draw(1, gr, c, want), CURAND_STATUS_SUCCESS);
        ck_assert_int_eq(draw(0, gs, c, got), CURAND_STATUS_SUCCESS);
        for (size_t i = 0; i < c->n; i++)
            ck_assert_msg(same(c->d, want, got, i),
                          "generator %d, seed %llu, offset %llu, call %zu of %zu (%zu %s, lambda "
                          "%g): value %zu differs",
                          (int)type, seed, offset, k + 1, ncalls, c->n, dist_name[c->d], c->lambda,
                          i);
        free(want);
        free(got);
    }
    real.destroy(gr);
    curandDestroyGenerator(gs);
}

/* Two calls (n1 then n2 values of @p d) after seed (Sobol: dimensions) and offset. */
static void compare(curandRngType_t type, enum dist d, unsigned long long seed,
                    unsigned long long offset, size_t n1, size_t n2)
{
    const struct call calls[2] = {{d, n1, 0}, {d, n2, 0}};
    compare_calls(type, seed, offset, calls, 2);
}

/* Every distribution of @p type at several seeds, offsets and lengths; the first @p skip runs
   left out (NVIDIA's host MRG32k3a takes 2.5 s to seed its 81920 states, measured here). */
static void against_nvidia(curandRngType_t type, size_t skip)
{
    load_real();
    static const struct {
        unsigned long long seed, offset;
        size_t n1, n2;
    } runs[] = {{0, 0, 2, 0},
                {1234, 0, 4098, 4000},
                {0x9e3779b97f4a7c15ull, 6, 1000, 3002},
                {42, 70001, 70002, 2},
                {7, 200001, 130000, 6}};
    for (int d = 0; d < BITS64; d++) /* the 64-bit values are Sobol64's */
        for (size_t r = skip; r < sizeof runs / sizeof *runs; r++)
            compare(type, (enum dist)d, runs[r].seed, runs[r].offset, runs[r].n1, runs[r].n2);
    for (int d = BITS; d < NORMAL; d++) /* odd lengths, where the distribution allows them */
        compare(type, (enum dist)d, 99, 3, 1, 4097);
}

START_TEST(xorwow_matches_nvidia)
{
    against_nvidia(CURAND_RNG_PSEUDO_XORWOW, 0);
}
END_TEST

START_TEST(mrg32k3a_matches_nvidia)
{
    against_nvidia(CURAND_RNG_PSEUDO_MRG32K3A, 4);
}
END_TEST

START_TEST(philox_matches_nvidia)
{
    against_nvidia(CURAND_RNG_PSEUDO_PHILOX4_32_10, 0);
}
END_TEST

/** Two calls of n1 and n2 values from a Sobol generator in dims dimensions at offset. */
struct sobol_run {
    unsigned dims;
    unsigned long long offset;
    size_t n1, n2;
};

/* Sobol in 1, 3, 7 and 101 dimensions (lengths whole points: a multiple of the dimensions),
   from offsets that cross 2^k boundaries of the Gray code, every distribution. */
START_TEST(sobol_matches_nvidia)
{
    load_real();
    static const struct sobol_run runs[] = {{1, 0, 1, 4096},
                                            {3, 5, 3 * 31, 3 * 1000},
                                            {7, 1023, 7 * 33, 7 * 4099},
                                            {101, 65535, 101 * 17, 101 * 1001}};
    static const enum dist dists[2][6] = {
        {BITS, UNIFORM, UNIFORM_DOUBLE, NORMAL, NORMAL_DOUBLE, LOGNORMAL},
        {BITS64, UNIFORM, UNIFORM_DOUBLE, NORMAL, NORMAL_DOUBLE, LOGNORMAL}};
    static const curandRngType_t types[2] = {CURAND_RNG_QUASI_SOBOL32, CURAND_RNG_QUASI_SOBOL64};
    for (int t = 0; t < 2; t++)
        for (int d = 0; d < 6; d++)
            for (size_t r = 0; r < sizeof runs / sizeof *runs; r++)
                compare(types[t], dists[t][d], runs[r].dims, runs[r].offset, runs[r].n1,
                        runs[r].n2);
}
END_TEST

/* Poisson numbers from XORWOW and Philox, lambda from tiny to just below 2000 (tables of 73 to
   some 3300 values, the lowest above 0 once exp(-lambda) is 0 in double), odd lengths, offsets
   that cross XORWOW's states and Philox's subsequences. */
START_TEST(poisson_matches_nvidia)
{
    load_real();
    static const double lambdas[] = {0.001, 0.5, 3.5, 10, 63.9, 64, 500.25, 999, 1999.5};
    static const curandRngType_t types[] = {CURAND_RNG_PSEUDO_XORWOW,
                                            CURAND_RNG_PSEUDO_PHILOX4_32_10};
    for (size_t l = 0; l < sizeof lambdas / sizeof *lambdas; l++) {
        const struct call first[2] = {{POISSON, 4097, lambdas[l]}, {POISSON, 31, lambdas[l]}};
        const struct call second[2] = {{POISSON, 1, lambdas[l]}, {POISSON, 65537, lambdas[l]}};
        for (int t = 0; t < 2; t++) {
            compare_calls(types[t], 1234 + l, 0, first, 2);
            compare_calls(types[t], 77, 70001, second, 2);
        }
    }
}
END_TEST

/* Poisson numbers from MRG32k3a: every lambda in turn from one generator (its host generator
   takes 2.5 s to seed its 81920 states, measured here), lengths 1, 31 and 1001, at offsets inside
   and past the first round of states; from 2000 on (normals), enough numbers to come round the
   states again, where each state gives the normal it kept. */
START_TEST(poisson_mrg32k3a_matches_nvidia)
{
    load_real();
    static const struct call calls[] = {
        {POISSON, 1, 0.001},       {POISSON, 31, 1.0},       {POISSON, 1001, 10.5},
        {POISSON, 31, 1999.9},     {POISSON, 1001, 0.001},   {POISSON, 1, 10.5},
        {POISSON, 1001, 1.0},      {POISSON, 1, 1999.9},     {POISSON, 1001, 1999.9},
        {POISSON, 1, 2000.0},      {POISSON, 81921, 2500.5}, {BITS, 31, 0},
        {POISSON, 1001, 400000.0}, {NORMAL, 2, 0},           {POISSON, 31, 4000.5}};
    enum { N = sizeof calls / sizeof *calls };
    compare_calls(CURAND_RNG_PSEUDO_MRG32K3A, 5, 81919, calls, N);
    compare_calls(CURAND_RNG_PSEUDO_MRG32K3A, 0x9e3779b97f4a7c15ull, 3, calls, N);
}
END_TEST

/* Poisson numbers from lambda 2000 to 400000 (from normals, not the histogram) from XORWOW and
   Philox: lambdas in turn from one generator, lengths that come round XORWOW's 4096 states
   (where each state gives the normal it kept, even after draws of other calls), other calls
   between them that move the states on, and an offset set again (the states seeded again keep no
   normal). */
START_TEST(poisson_large_lambda_matches_nvidia)
{
    load_real();
    static const struct call calls[] = {
        {POISSON, 1, 2000.0},   {BITS, 4096, 0},         {POISSON, 4097, 2000.5},
        {BITS, 31, 0},          {POISSON, 1001, 3999.9}, {NORMAL, 4098, 0},
        {POISSON, 31, 4000.5},  {OFFSET, 4097, 0},       {POISSON, 8193, 65536.25},
        {POISSON, 1, 400000.0}, {UNIFORM, 1, 0},         {POISSON, 12289, 123456.7},
        {OFFSET, 1, 0},         {POISSON, 4097, 2222.25}};
    enum { N = sizeof calls / sizeof *calls };
    static const curandRngType_t types[] = {CURAND_RNG_PSEUDO_XORWOW,
                                            CURAND_RNG_PSEUDO_PHILOX4_32_10};
    for (int t = 0; t < 2; t++) {
        compare_calls(types[t], 2026, 0, calls, N);
        compare_calls(types[t], 0x9e3779b97f4a7c15ull, 70001, calls, N);
    }
}
END_TEST

/* Poisson numbers from Sobol32 and Sobol64 at lambdas on both sides of each change of method
   (Sobol32: histogram, inversion from 10, normals above 8000; Sobol64: inversion, normals from
   2000), in 1 to 101 dimensions from offsets that cross 2^k boundaries; then other calls between
   Poisson calls of one generator, and Sobol32's value 2^32 - 1 (dimension 1's point 0xaaaaaaaa),
   where the histogram's lookup runs past its table. */
START_TEST(sobol_poisson_matches_nvidia)
{
    load_real();
    static const double lambdas[] = {0.5,    1.0,    9.99,   10.0,     10.5,    1999.9,
                                     2000.0, 8000.0, 8000.5, 123456.7, 400000.0};
    static const struct sobol_run runs[] = {{1, 0, 1, 4097},
                                            {3, 5, 3 * 31, 3 * 1000},
                                            {7, 1023, 7 * 33, 7 * 401},
                                            {101, 65535, 101 * 17, 101 * 3}};
    static const curandRngType_t types[2] = {CURAND_RNG_QUASI_SOBOL32, CURAND_RNG_QUASI_SOBOL64};
    for (int t = 0; t < 2; t++)
        for (size_t l = 0; l < sizeof lambdas / sizeof *lambdas; l++)
            for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
                const struct call calls[2] = {{POISSON, runs[r].n1, lambdas[l]},
                                              {POISSON, runs[r].n2, lambdas[l]}};
                compare_calls(types[t], runs[r].dims, runs[r].offset, calls, 2);
            }
    static const struct call mixed[] = {{POISSON, 3 * 5, 0.5},      {BITS, 3 * 7, 0},
                                        {POISSON, 3 * 101, 8000.5}, {UNIFORM, 3, 0},
                                        {OFFSET, 4095, 0},          {POISSON, 3 * 33, 10.5},
                                        {NORMAL, 3 * 2, 0},         {POISSON, 3 * 1, 2000.0}};
    compare_calls(CURAND_RNG_QUASI_SOBOL32, 3, 77, mixed, sizeof mixed / sizeof *mixed);
    static const struct call top[] = {
        {POISSON, 3, 9.0}, {OFFSET, 0xaaaaaaaaull, 0}, {POISSON, 1, 3.5}};
    compare_calls(CURAND_RNG_QUASI_SOBOL32, 1, 0xaaaaaaaaull, top, 3);
    static const struct call top64[] = {{POISSON, 3, 999.9}};
    compare_calls(CURAND_RNG_QUASI_SOBOL64, 1, 0xaaaaaaaaull, top64, 1);
}
END_TEST

/* A new seed keeps NVIDIA's count of the offset: after fewer than four outputs and after more,
   after normals (XORWOW and MRG32k3a count them in pairs), after an offset set, seeded again
   twice in a row. */
START_TEST(seed_keeps_the_offset_as_nvidia)
{
    load_real();
    static const struct call calls[] = {{BITS, 3, 0},
                                        {SEED, 5, 0},
                                        {BITS, 2, 0},
                                        {SEED, 6, 0},
                                        {BITS, 8, 0},
                                        {SEED, 7, 0},
                                        {NORMAL, 6, 0},
                                        {UNIFORM_DOUBLE, 3, 0},
                                        {SEED, 8, 0},
                                        {OFFSET, 4101, 0},
                                        {BITS, 31, 0},
                                        {SEED, 9, 0},
                                        {POISSON, 1001, 3000.5},
                                        {NORMAL_DOUBLE, 4098, 0},
                                        {SEED, 10, 0},
                                        {POISSON, 7, 5.5},
                                        {SEED, 11, 0},
                                        {SEED, 12, 0},
                                        {UNIFORM, 33, 0}};
    enum { N = sizeof calls / sizeof *calls };
    compare_calls(CURAND_RNG_PSEUDO_XORWOW, 1234, 0, calls, N);
    compare_calls(CURAND_RNG_PSEUDO_PHILOX4_32_10, 1234, 0, calls, N);
    compare_calls(CURAND_RNG_PSEUDO_PHILOX4_32_10, 99, 5, calls + 4, N - 4);
    static const struct call mrg[] = {{NORMAL, 4, 0}, {BITS, 3, 0}, {SEED, 5, 0}, {BITS, 17, 0}};
    compare_calls(CURAND_RNG_PSEUDO_MRG32K3A, 42, 7, mrg, 4);
}
END_TEST

/* Every direction vector the stand-in has (dimensions 1 .. 101, 32 and 64 bits) is NVIDIA's. */
START_TEST(sobol_direction_vectors_match_nvidia)
{
    load_real();
    curandDirectionVectors32_t *w32, *g32;
    curandDirectionVectors64_t *w64, *g64;
    ck_assert_int_eq(real.vectors32(&w32, CURAND_DIRECTION_VECTORS_32_JOEKUO6), 0);
    ck_assert_int_eq(curandGetDirectionVectors32(&g32, CURAND_DIRECTION_VECTORS_32_JOEKUO6), 0);
    ck_assert_int_eq(real.vectors64(&w64, CURAND_DIRECTION_VECTORS_64_JOEKUO6), 0);
    ck_assert_int_eq(curandGetDirectionVectors64(&g64, CURAND_DIRECTION_VECTORS_64_JOEKUO6), 0);
    for (int d = 0; d < 101; d++) {
        for (int k = 0; k < 32; k++)
            ck_assert_msg(g32[d][k] == w32[d][k], "dimension %d vector %d: %08x, NVIDIA %08x",
                          d + 1, k, g32[d][k], w32[d][k]);
        for (int k = 0; k < 64; k++)
            ck_assert_msg(g64[d][k] == w64[d][k], "dimension %d vector %d (64-bit) differs", d + 1,
                          k);
    }
}
END_TEST

/* A device generator writes emulated device memory: the same values, nothing past the end. */
START_TEST(device_generator_writes_device_memory)
{
    enum { N = 1001, GUARD = 64 };
    static float want[N], got[N + GUARD];
    curandGenerator_t gh, gd;
    ck_assert_int_eq(curandCreateGeneratorHost(&gh, CURAND_RNG_PSEUDO_DEFAULT), 0);
    ck_assert_int_eq(curandCreateGenerator(&gd, CURAND_RNG_PSEUDO_DEFAULT), 0);
    ck_assert_int_eq(curandSetPseudoRandomGeneratorSeed(gh, 31), 0);
    ck_assert_int_eq(curandSetPseudoRandomGeneratorSeed(gd, 31), 0);
    float *d = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof got));
    CUDA_CHECK(cudaMemset(d, 0xff, sizeof got));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    ck_assert_int_eq(curandSetStream(gd, s), 0);
    ck_assert_int_eq(curandGenerateUniform(gh, want, N), 0);
    ck_assert_int_eq(curandGenerateUniform(gd, d, N), 0);
    CUDA_CHECK(cudaMemcpyAsync(got, d, sizeof got, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    ck_assert_mem_eq(got, want, sizeof want);
    for (int i = N; i < N + GUARD; i++)
        ck_assert_msg(isnan(got[i]), "device value %d past the end was written", i);
    /* Poisson numbers from normals (lambda >= 2000): the same on the device */
    static unsigned counts_want[N], counts_got[N];
    ck_assert_int_eq(curandGeneratePoisson(gh, counts_want, N, 2500.5), 0);
    ck_assert_int_eq(curandGeneratePoisson(gd, (unsigned *)d, N, 2500.5), 0);
    CUDA_CHECK(cudaMemcpyAsync(counts_got, d, sizeof counts_got, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    ck_assert_mem_eq(counts_got, counts_want, sizeof counts_want);
    /* past the allocation: refused, nothing written */
    ck_assert_int_eq(curandGenerate(gd, (unsigned *)d, N + GUARD + 1),
                     CURAND_STATUS_LAUNCH_FAILURE);
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d));
    curandDestroyGenerator(gh);
    curandDestroyGenerator(gd);
}
END_TEST

/* Mean and variance of n normals and log-normals within 6 standard errors of the truth. */
START_TEST(normal_statistics)
{
    enum { N = 200002 };
    static float x[N];
    curandGenerator_t g;
    ck_assert_int_eq(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10), 0);
    const float mu = 0.5f, sigma = 0.75f;
    for (int lognormal = 0; lognormal < 2; lognormal++) {
        ck_assert_int_eq(
            (lognormal ? curandGenerateLogNormal : curandGenerateNormal)(g, x, N, mu, sigma), 0);
        double m = 0, v = 0;
        for (int i = 0; i < N; i++)
            m += x[i];
        m /= N;
        for (int i = 0; i < N; i++)
            v += (x[i] - m) * (x[i] - m);
        v /= N - 1;
        double s2 = (double)sigma * sigma;
        double mean = lognormal ? exp(mu + s2 / 2) : mu;
        double var = lognormal ? (exp(s2) - 1) * exp(2 * mu + s2) : s2;
        /* the sample variance's standard error, from the fourth moment: normal 2 var^2 */
        double var_se = lognormal
                            ? var * sqrt((exp(4 * s2) + 2 * exp(3 * s2) + 3 * exp(2 * s2) - 6) / N)
                            : var * sqrt(2.0 / N);
        ck_assert_msg(fabs(m - mean) <= 6 * sqrt(var / N), "%s mean %g, want %g",
                      lognormal ? "log-normal" : "normal", m, mean);
        ck_assert_msg(fabs(v - var) <= 6 * var_se, "%s variance %g, want %g",
                      lognormal ? "log-normal" : "normal", v, var);
    }
    curandDestroyGenerator(g);
}
END_TEST

/* Monte Carlo pi as a student writes it: uniforms from a device generator, a kernel counting
   the points inside the quarter circle. The count must be the host's over the same numbers
   (a host generator, same seed), and pi within 6 standard errors (binomial, n points). */
START_TEST(monte_carlo_pi)
{
    enum { N = 100003 };
    static float xy[2 * N];
    static const curandRngType_t types[] = {CURAND_RNG_PSEUDO_DEFAULT,
                                            CURAND_RNG_PSEUDO_PHILOX4_32_10};
    for (int t = 0; t < 2; t++) {
        curandGenerator_t gd, gh;
        ck_assert_int_eq(curandCreateGenerator(&gd, types[t]), 0);
        ck_assert_int_eq(curandSetPseudoRandomGeneratorSeed(gd, 2026), 0);
        float *d_xy;
        unsigned long long *d_hits, hits = 0;
        CUDA_CHECK(cudaMalloc((void **)&d_xy, sizeof xy));
        CUDA_CHECK(cudaMalloc((void **)&d_hits, sizeof hits));
        CUDA_CHECK(cudaMemset(d_hits, 0, sizeof hits));
        ck_assert_int_eq(curandGenerateUniform(gd, d_xy, 2 * N), 0);
        CUDA_CHECK(count_inside_circle(d_xy, N, d_hits));
        CUDA_CHECK(cudaMemcpy(&hits, d_hits, sizeof hits, cudaMemcpyDeviceToHost));

        ck_assert_int_eq(curandCreateGeneratorHost(&gh, types[t]), 0);
        ck_assert_int_eq(curandSetPseudoRandomGeneratorSeed(gh, 2026), 0);
        ck_assert_int_eq(curandGenerateUniform(gh, xy, 2 * N), 0);
        unsigned long long want = 0;
        for (int i = 0; i < N; i++)
            want += xy[2 * i] * xy[2 * i] + xy[2 * i + 1] * xy[2 * i + 1] <= 1.0f;
        ck_assert_msg(hits == want,
                      "generator %d: the kernel counted %llu points inside, the host %llu",
                      (int)types[t], hits, want);
        double pi = 4.0 * hits / N, p = M_PI / 4;
        ck_assert_msg(fabs(pi - M_PI) <= 6 * 4 * sqrt(p * (1 - p) / N),
                      "generator %d: pi estimated as %.6f from %d points", (int)types[t], pi, N);
        CUDA_CHECK(cudaFree(d_xy));
        CUDA_CHECK(cudaFree(d_hits));
        curandDestroyGenerator(gd);
        curandDestroyGenerator(gh);
    }
}
END_TEST

/* The device API's Poisson object: a kernel's curand_discrete reads it where the stand-in put it
   (each number is the histogram's, read back, at the thread's first 32-bit value), and the
   numbers' mean and variance are lambda's within 6 standard errors. */
START_TEST(poisson_distribution_on_the_device)
{
    enum { N = 20011 };
    static unsigned bits[N], counts[N];
    static const double lambdas[] = {7.5, 1500.5};
    for (int l = 0; l < 2; l++) {
        double lambda = lambdas[l];
        curandDiscreteDistribution_t dist;
        ck_assert_int_eq(curandCreatePoissonDistribution(lambda, &dist), 0);
        unsigned *d_bits, *d_counts;
        CUDA_CHECK(cudaMalloc((void **)&d_bits, sizeof bits));
        CUDA_CHECK(cudaMalloc((void **)&d_counts, sizeof counts));
        CUDA_CHECK(poisson_draws(dist, 42 + l, N, d_bits, d_counts));
        CUDA_CHECK(cudaMemcpy(bits, d_bits, sizeof bits, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost));
        struct curandDiscreteDistribution_st ds;
        struct curandDistributionM2Shift_st m2;
        struct curandHistogramM2_st hist;
        CUDA_CHECK(cudaMemcpy(&ds, dist, sizeof ds, cudaMemcpyDeviceToHost));
        ck_assert_int_eq(ds.method, CURAND_M2);
        CUDA_CHECK(cudaMemcpy(&m2, ds.M2, sizeof m2, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&hist, m2.histogram, sizeof hist, cudaMemcpyDeviceToHost));
        double *v = malloc(m2.length * sizeof *v);
        unsigned *k = malloc(m2.length * sizeof *k);
        CUDA_CHECK(cudaMemcpy(v, hist.V, m2.length * sizeof *v, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(k, hist.K, m2.length * sizeof *k, cudaMemcpyDeviceToHost));
        double mean = 0, var = 0;
        for (int i = 0; i < N; i++) {
            double u = bits[i] * 2.3283064365386963e-10 + 2.3283064365386963e-10;
            unsigned j = (unsigned)(m2.length * u);
            unsigned want = m2.shift + (u < v[j] ? j : k[j]);
            ck_assert_msg(counts[i] == want, "lambda %g, thread %d: %u, the histogram says %u",
                          lambda, i, counts[i], want);
            mean += counts[i];
        }
        mean /= N;
        for (int i = 0; i < N; i++)
            var += (counts[i] - mean) * (counts[i] - mean);
        var /= N - 1;
        ck_assert_msg(fabs(mean - lambda) <= 6 * sqrt(lambda / N), "lambda %g: mean %g", lambda,
                      mean);
        ck_assert_msg(fabs(var - lambda) <= 6 * sqrt((lambda + 2 * lambda * lambda) / N),
                      "lambda %g: variance %g", lambda, var);
        free(v);
        free(k);
        CUDA_CHECK(cudaFree(d_bits));
        CUDA_CHECK(cudaFree(d_counts));
        ck_assert_int_eq(curandDestroyDistribution(dist), 0);
    }
}
END_TEST

/* Each call the stand-in lacks fails with cuRAND's status and one line naming it. */
START_TEST(refusals_name_the_call)
{
    struct capture cap;
    curandGenerator_t g = NULL;
    static const curandRngType_t lacking[] = {CURAND_RNG_PSEUDO_MTGP32, CURAND_RNG_PSEUDO_MT19937,
                                              CURAND_RNG_QUASI_SCRAMBLED_SOBOL32,
                                              CURAND_RNG_QUASI_SCRAMBLED_SOBOL64};
    for (size_t i = 0; i < sizeof lacking / sizeof *lacking; i++) {
        capture_begin(&cap, 2);
        curandStatus_t st = curandCreateGenerator(&g, lacking[i]);
        char *said = capture_end(&cap);
        ck_assert_int_eq(st, CURAND_STATUS_TYPE_ERROR);
        char want[64];
        snprintf(want, sizeof want, "generator type %d is not in", (int)lacking[i]);
        ck_assert_msg(strstr(said, want) && !strchr(strchr(said, '\n') + 1, '\n'), "said: %s",
                      said);
        free(said);
    }
    ck_assert_int_eq(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_XORWOW), 0);
    capture_begin(&cap, 2);
    ck_assert_int_eq(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_SEEDED),
                     CURAND_STATUS_OUT_OF_RANGE);
    unsigned counts[4];
    curandDiscreteDistribution_t dist;
    ck_assert_int_eq(curandCreatePoissonDistribution(4000.0, &dist), CURAND_STATUS_OUT_OF_RANGE);
    curandGenerator_t q;
    ck_assert_int_eq(curandCreateGenerator(&q, CURAND_RNG_QUASI_SOBOL32), 0);
    ck_assert_int_eq(curandSetQuasiRandomGeneratorDimensions(q, 102), CURAND_STATUS_OUT_OF_RANGE);
    char *said = capture_end(&cap);
    ck_assert_msg(strstr(said, "ordering 102 is not in") &&
                      strstr(said, "curandCreatePoissonDistribution with lambda >= 2000 is not") &&
                      strstr(said, "Sobol in 102 dimensions (it has direction vectors for 101) "
                                   "is not in"),
                  "said: %s", said);
    free(said);
    /* what cuRAND's library itself answers, without a line: wrong generator, bad lengths */
    ck_assert_int_eq(curandSetQuasiRandomGeneratorDimensions(g, 2), CURAND_STATUS_TYPE_ERROR);
    ck_assert_int_eq(curandSetPseudoRandomGeneratorSeed(q, 2), CURAND_STATUS_TYPE_ERROR);
    ck_assert_int_eq(curandSetQuasiRandomGeneratorDimensions(q, 3), 0);
    unsigned u[4];
    ck_assert_int_eq(curandGenerate(q, u, 4), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
    ck_assert_int_eq(curandGeneratePoisson(q, counts, 4, 10.0), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
    ck_assert_int_eq(curandGenerateLongLong(q, NULL, 3), CURAND_STATUS_TYPE_ERROR);
    ck_assert_int_eq(curandGeneratePoisson(g, counts, 4, 0.0), CURAND_STATUS_OUT_OF_RANGE);
    ck_assert_int_eq(curandGeneratePoisson(g, counts, 4, 400000.5), CURAND_STATUS_OUT_OF_RANGE);
    curandDestroyGenerator(q);
    ck_assert_int_eq(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_LEGACY), 0);
    float f[3];
    ck_assert_int_eq(curandGenerateNormal(g, f, 3, 0, 1), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
    ck_assert_int_eq(curandGenerate(NULL, NULL, 1), CURAND_STATUS_NOT_INITIALIZED);
    int v = 0;
    ck_assert_int_eq(curandGetVersion(&v), 0);
    ck_assert_int_eq(v, CURAND_VERSION);
    curandDestroyGenerator(g);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"xorwow_matches_nvidia", xorwow_matches_nvidia, CASE_CPU, 240},
        {"philox_matches_nvidia", philox_matches_nvidia, CASE_CPU, 240},
        {"mrg32k3a_matches_nvidia", mrg32k3a_matches_nvidia, CASE_CPU, 240},
        {"sobol_matches_nvidia", sobol_matches_nvidia, CASE_CPU, 240},
        {"poisson_matches_nvidia", poisson_matches_nvidia, CASE_CPU, 240},
        {"poisson_mrg32k3a_matches_nvidia", poisson_mrg32k3a_matches_nvidia, CASE_CPU, 240},
        {"poisson_large_lambda_matches_nvidia", poisson_large_lambda_matches_nvidia, CASE_CPU, 240},
        {"sobol_poisson_matches_nvidia", sobol_poisson_matches_nvidia, CASE_CPU, 240},
        {"seed_keeps_the_offset_as_nvidia", seed_keeps_the_offset_as_nvidia, CASE_CPU, 240},
        {"sobol_direction_vectors_match_nvidia", sobol_direction_vectors_match_nvidia, CASE_CPU,
         60},
        {"device_generator_writes_device_memory", device_generator_writes_device_memory, CASE_CPU,
         60},
        {"normal_statistics", normal_statistics, CASE_CPU, 60},
        {"monte_carlo_pi", monte_carlo_pi, CASE_CPU, 120},
        {"poisson_distribution_on_the_device", poisson_distribution_on_the_device, CASE_CPU, 240},
        {"refusals_name_the_call", refusals_name_the_call, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
