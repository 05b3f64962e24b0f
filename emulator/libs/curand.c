/**
 * @file curand.c
 * @brief The cuRAND stand-in (libcurand.so.10): the host API's XORWOW, MRG32k3a and
 *        Philox4x32-10 generators, computed on the host, with NVIDIA's sequences.
 *
 * The algorithms are those curand_kernel.h defines for the device API; what the host API adds
 * is how it spreads one sequence over many device-side states, which this file reproduces
 * (measured against the toolkit's libcurand host generator, tests/emulator/test_curand.c):
 *   XORWOW   4096 states, state s at subsequence s (2^67 steps apart), past its share of the
 *            offset (offset / 4096 draws, one more below offset % 4096). Output units (one
 *            32-bit value, one double, one pair of normals) take w draws each from the states
 *            in turn, from state offset % 4096 on; the states persist between calls.
 *   MRG32k3a the same with 81920 states, subsequences 2^76 steps apart.
 *   Philox   one stream of 32-bit values: value b is lane b % 4 of the block of counter
 *            b / 4 / 65536 in subsequence b / 4 % 65536; unit u spends values w*u .. w*u+w-1
 *            (doubles: in groups of two blocks, philox_draws). The offset counts outputs.
 * w is 1 for 32-bit values and floats, 2 for doubles (53 bits from two draws; MRG32k3a: 1) and
 * normal pairs (Box-Muller), 4 for pairs of double normals (MRG32k3a: 2).
 * A new seed starts from the offset NVIDIA's library carries over (carried_offset: measured, not
 * documented), not from 0.
 * A device generator writes the emulated device memory after the stream's earlier work (it
 * synchronises the stream); a host generator writes host memory.
 * Sobol32 and Sobol64 (curand_sobol.c) give each dimension's points in Gray-code order from the
 * offset on, dimension after dimension (num / dimensions points each); normals are the inverse
 * of the normal distribution at the uniform (curand_normal_static.h's _curand_normal_icdf).
 * Poisson numbers (curand_histogram.c) come from XORWOW's, MRG32k3a's and Philox's 32-bit values
 * (curandGenerate's) through the square histogram NVIDIA's library builds, below lambda 2000;
 * the same histogram goes to device memory for the device API's curand_discrete
 * (curandCreatePoissonDistribution). From 2000 to 400000 they are lambda + sqrt(lambda) z
 * rounded, z a normal float: Philox's curandGenerateNormal's at the same offset; XORWOW's and
 * MRG32k3a's each from the next state, its curand_normal (a Box-Muller pair, the second kept by
 * the state for its next number until the states are seeded again).
 * Sobol's Poisson numbers (sobol_poisson) take one value each: Sobol32's through the histogram
 * below lambda 10, by inversion of the CDF (curand_poisson.h's ITR) up to 8000, from the normal
 * above; Sobol64's by inversion below 2000, from the normal from 2000 on.
 * Everything else in curand.h (MTGP32, MT19937, scrambled Sobol, the Poisson distribution object
 * at lambda >= 2000, curandGeneratePoissonMethod, binomial, the other orderings) is refused in
 * one line.
 */
#include <curand.h>
#include <curand_discrete.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "curand_histogram.h"
#include "curand_sobol.h"
#include "emu.h"
#include "say.h"

enum { GEN_MAGIC = 0x43524e44, XORWOW_STATES = 4096, PHILOX_SUBSEQS = 65536, MRG_STATES = 81920 };

/** One XORWOW state: five words of xorshift (linear over GF(2)) and a Weyl counter d. */
struct xorwow {
    uint32_t v[5], d;
};

/** One MRG32k3a state: the last three values of each of its two recurrences. */
struct mrg {
    uint64_t s1[3], s2[3];
};

/** What curandGenerator_t points at. */
struct curandGenerator_st {
    uint32_t magic;
    curandRngType_t type; /**< XORWOW, MRG32K3A, PHILOX4_32_10, QUASI_SOBOL32 or 64 */
    int host;             /**< 1: writes host memory (curandCreateGeneratorHost) */
    unsigned long long seed, offset;
    cudaStream_t stream;
    struct xorwow *states; /**< XORWOW's 4096 states, once seeded */
    struct mrg *mrgs;      /**< MRG32k3a's 81920 states, once seeded */
    unsigned next_state;   /**< the XORWOW or MRG32k3a state the next unit comes from */
    float *spares;         /**< each state's second normal of a pair, NaN once used (Poisson) */
    int seeded;            /**< 0: seed or offset changed since the states were made */
    /** The offset NVIDIA's library carries over a new seed (carried_offset): the offset last set
        (or carried) and the outputs made since (XORWOW's and MRG32k3a's normals: pairs) */
    unsigned long long set_offset, made;
    unsigned dims; /**< Sobol's dimensions; its offset counts points */
};

/* Print one line naming what the stand-in cannot do, and return @p status. */
static curandStatus_t refuse(curandStatus_t status, const char *what)
{
    emu_say("cuRAND: %s is not in the emulator's cuRAND stand-in", what);
    return status;
}

static int gen_ok(curandGenerator_t g)
{
    return g && g->magic == GEN_MAGIC;
}

static int quasi(curandGenerator_t g)
{
    return g->type == CURAND_RNG_QUASI_SOBOL32 || g->type == CURAND_RNG_QUASI_SOBOL64;
}

/* --- XORWOW ------------------------------------------------------------------------------ */

static void xorwow_shift(uint32_t v[5])
{
    uint32_t t = v[0] ^ (v[0] >> 2);
    memmove(v, v + 1, 4 * sizeof v[0]);
    v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
}

static uint32_t xorwow_next(struct xorwow *s)
{
    xorwow_shift(s->v);
    s->d += 362437u;
    return s->v[4] + s->d;
}

/** A 160 x 160 matrix over GF(2): column j is the image of state bit j. */
struct gf2 {
    uint32_t col[160][5];
};

static void gf2_apply(const struct gf2 *m, const uint32_t in[5], uint32_t out[5])
{
    uint32_t r[5] = {0};
    for (int j = 0; j < 160; j++)
        if (in[j / 32] >> (j % 32) & 1)
            for (int w = 0; w < 5; w++)
                r[w] ^= m->col[j][w];
    memcpy(out, r, sizeof r);
}

static void gf2_square(struct gf2 *m)
{
    struct gf2 t;
    for (int j = 0; j < 160; j++)
        gf2_apply(m, m->col[j], t.col[j]);
    *m = t;
}

/** step[k]: 2^k steps of the xorshift part; subseq: 2^67 steps (one subsequence). */
static struct gf2 xorwow_step[64], xorwow_subseq;
static pthread_once_t xorwow_once = PTHREAD_ONCE_INIT;

static void xorwow_tables(void)
{
    struct gf2 m;
    for (int j = 0; j < 160; j++) {
        memset(m.col[j], 0, sizeof m.col[j]);
        m.col[j][j / 32] = 1u << (j % 32);
        xorwow_shift(m.col[j]);
    }
    for (int k = 0; k < 64; k++) {
        xorwow_step[k] = m;
        gf2_square(&m);
    }
    for (int k = 64; k < 67; k++)
        gf2_square(&m);
    xorwow_subseq = m;
}

/* Subsequence 0 of @p seed after @p draws draws (curand_init's seeding). */
static struct xorwow xorwow_start(unsigned long long seed, unsigned long long draws)
{
    uint32_t t0 = 1099087573u * ((uint32_t)seed ^ 0xaad26b49u);
    uint32_t t1 = 2591861531u * ((uint32_t)(seed >> 32) ^ 0xf7dcefddu);
    struct xorwow s = {
        {123456789u + t0, 362436069u ^ t0, 521288629u + t1, 88675123u ^ t1, 5783321u + t0},
        6615241u + t1 + t0};
    for (int k = 0; k < 64; k++)
        if (draws >> k & 1)
            gf2_apply(&xorwow_step[k], s.v, s.v);
    s.d += 362437u * (uint32_t)draws;
    return s;
}

/* --- MRG32k3a: two recurrences of order 3, modulo the primes M1 and M2 ------------------- */

#define MRG_M1 4294967087ull
#define MRG_M2 4294944443ull

/** A 3 x 3 matrix modulo a prime below 2^32. */
struct mod3 {
    uint64_t a[3][3];
};

static struct mod3 mod3_mul(const struct mod3 *x, const struct mod3 *y, uint64_t m)
{
    struct mod3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            uint64_t sum = 0;
            for (int k = 0; k < 3; k++)
                sum = (sum + x->a[i][k] * y->a[k][j] % m) % m;
            r.a[i][j] = sum;
        }
    return r;
}

static void mod3_apply(const struct mod3 *x, uint64_t v[3], uint64_t m)
{
    uint64_t r[3];
    for (int i = 0; i < 3; i++)
        r[i] = (x->a[i][0] * v[0] % m + x->a[i][1] * v[1] % m + x->a[i][2] * v[2] % m) % m;
    memcpy(v, r, sizeof r);
}

/** One step of each recurrence, 2^k steps (k < 64), and one subsequence (2^76 steps). */
static struct mod3 mrg_step1[64], mrg_step2[64], mrg_sub1, mrg_sub2;
static pthread_once_t mrg_once = PTHREAD_ONCE_INIT;

static void mrg_tables(void)
{
    struct mod3 a1 = {{{0, 1, 0}, {0, 0, 1}, {MRG_M1 - 810728, 1403580, 0}}};
    struct mod3 a2 = {{{0, 1, 0}, {0, 0, 1}, {MRG_M2 - 1370589, 0, 527612}}};
    for (int k = 0; k < 76; k++) {
        if (k < 64)
            mrg_step1[k] = a1, mrg_step2[k] = a2;
        a1 = mod3_mul(&a1, &a1, MRG_M1);
        a2 = mod3_mul(&a2, &a2, MRG_M2);
    }
    mrg_sub1 = a1;
    mrg_sub2 = a2;
}

/* The next value, in 1 .. M1. */
static uint32_t mrg_next(struct mrg *s)
{
    uint64_t p1 = (1403580 * s->s1[1] % MRG_M1 + MRG_M1 - 810728 * s->s1[0] % MRG_M1) % MRG_M1;
    uint64_t p2 = (527612 * s->s2[2] % MRG_M2 + MRG_M2 - 1370589 * s->s2[0] % MRG_M2) % MRG_M2;
    memmove(s->s1, s->s1 + 1, 2 * sizeof s->s1[0]);
    memmove(s->s2, s->s2 + 1, 2 * sizeof s->s2[0]);
    s->s1[2] = p1;
    s->s2[2] = p2;
    return (uint32_t)(p1 > p2 ? p1 - p2 : p1 + MRG_M1 - p2);
}

/* Subsequence 0 of @p seed after @p draws draws (curand_init's seeding). */
static struct mrg mrg_start(unsigned long long seed, unsigned long long draws)
{
    struct mrg s = {{12345, 12345, 12345}, {12345, 12345, 12345}};
    if (seed) {
        uint64_t x1 = (uint32_t)seed ^ 0x55555555u, x2 = (uint32_t)(seed >> 32) ^ 0xAAAAAAAAu;
        uint64_t f1[3] = {x1, x2, x1}, f2[3] = {x2, x1, x2};
        for (int i = 0; i < 3; i++) {
            s.s1[i] = s.s1[i] * f1[i] % MRG_M1;
            s.s2[i] = s.s2[i] * f2[i] % MRG_M2;
        }
    }
    for (int k = 0; k < 64; k++)
        if (draws >> k & 1) {
            mod3_apply(&mrg_step1[k], s.s1, MRG_M1);
            mod3_apply(&mrg_step2[k], s.s2, MRG_M2);
        }
    return s;
}

/* --- XORWOW's and MRG32k3a's states, used in turn ----------------------------------------- */

static unsigned state_count(curandGenerator_t g)
{
    return g->type == CURAND_RNG_PSEUDO_MRG32K3A ? MRG_STATES : XORWOW_STATES;
}

static uint32_t state_next(curandGenerator_t g, unsigned s)
{
    return g->type == CURAND_RNG_PSEUDO_MRG32K3A ? mrg_next(&g->mrgs[s])
                                                 : xorwow_next(&g->states[s]);
}

/* Seed the states: state s at subsequence s, past the offset's draws that are its (offset /
   count each, one more for the states below offset % count, where the next unit starts). */
static void states_seed(curandGenerator_t g)
{
    unsigned count = state_count(g), lead = (unsigned)(g->offset % count);
    if (g->type == CURAND_RNG_PSEUDO_MRG32K3A) {
        pthread_once(&mrg_once, mrg_tables);
        g->mrgs = g->mrgs ? g->mrgs : emu_malloc(MRG_STATES * sizeof *g->mrgs);
        struct mrg base = mrg_start(g->seed, g->offset / count);
        for (unsigned s = 0; s < count; s++) {
            g->mrgs[s] = base;
            mod3_apply(&mrg_sub1, base.s1, MRG_M1);
            mod3_apply(&mrg_sub2, base.s2, MRG_M2);
        }
    } else {
        pthread_once(&xorwow_once, xorwow_tables);
        g->states = g->states ? g->states : emu_malloc(XORWOW_STATES * sizeof *g->states);
        struct xorwow base = xorwow_start(g->seed, g->offset / count);
        for (unsigned s = 0; s < count; s++) {
            g->states[s] = base;
            gf2_apply(&xorwow_subseq, base.v, base.v);
        }
    }
    for (unsigned s = 0; s < lead; s++)
        state_next(g, s);
    g->next_state = lead;
    free(g->spares); /* fresh states hold no normal (curand_init) */
    g->spares = NULL;
    g->seeded = 1;
}

/* @p n units of @p w draws each into @p out: unit by unit, state by state, round robin. */
static void states_draws(curandGenerator_t g, size_t n, int w, uint32_t *out)
{
    if (!g->seeded)
        states_seed(g);
    for (size_t k = 0; k < n; k++) {
        for (int j = 0; j < w; j++)
            *out++ = state_next(g, g->next_state);
        g->next_state = (g->next_state + 1) % state_count(g);
    }
}

/* --- Philox4x32-10: a counter (x low .. w high) encrypted under the seed ------------------ */

static void philox_block(const uint32_t ctr[4], unsigned long long seed, uint32_t out[4])
{
    uint32_t x = ctr[0], y = ctr[1], z = ctr[2], v = ctr[3];
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * x, p1 = (uint64_t)0xCD9E8D57u * z;
        x = (uint32_t)(p1 >> 32) ^ y ^ k0;
        y = (uint32_t)p1;
        z = (uint32_t)(p0 >> 32) ^ v ^ k1;
        v = (uint32_t)p0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = x, out[1] = y, out[2] = z, out[3] = v;
}

/* The @p w values of @p n units from value @p first on into @p out. The values go out in groups
   of @p blocks blocks in a row of one subsequence: group G is subsequence G % 65536's group
   G / 65536. Where a call starts, each subsequence has skipped one block (not @p blocks) for
   each of its groups before the start, as NVIDIA's library does. */
static void philox_draws(unsigned long long seed, unsigned long long first, size_t n, int w,
                         unsigned blocks, uint32_t *out)
{
    unsigned long long b = first, end = b + (unsigned long long)n * w, g0 = first / (4 * blocks);
    uint32_t block[4];
    for (; b < end; b++) {
        if (b % 4 == 0 || b == first) {
            unsigned long long grp = b / (4 * blocks), sub = grp % PHILOX_SUBSEQS;
            unsigned long long skipped = g0 / PHILOX_SUBSEQS + (sub < g0 % PHILOX_SUBSEQS);
            unsigned long long ctr =
                skipped + (grp / PHILOX_SUBSEQS - skipped) * blocks + b / 4 % blocks;
            uint32_t c[4] = {(uint32_t)ctr, (uint32_t)(ctr >> 32), (uint32_t)sub,
                             (uint32_t)(sub >> 32)};
            philox_block(c, seed, block);
        }
        *out++ = block[b % 4];
    }
}

/* The draws for the next @p num outputs of @p g, made @p outs at a time from @p w draws (Philox:
   in groups of @p blocks blocks). The offset counts outputs: where it falls inside a Philox unit
   (an odd offset before pairs of normals), *@p skip outputs of the first unit are not wanted. */
static uint32_t *draws(curandGenerator_t g, size_t num, int w, int outs, unsigned blocks, int *skip)
{
    *skip = g->type == CURAND_RNG_PSEUDO_PHILOX4_32_10 ? (int)(g->offset % outs) : 0;
    size_t n = (num + *skip + outs - 1) / outs;
    uint32_t *out = emu_malloc(n * w * sizeof *out);
    if (g->type == CURAND_RNG_PSEUDO_PHILOX4_32_10)
        philox_draws(g->seed, g->offset / outs * w, n, w, blocks, out);
    else
        states_draws(g, n, w, out);
    g->offset += num;
    g->made += outs == 2 && g->type != CURAND_RNG_PSEUDO_PHILOX4_32_10 ? num / 2 : num;
    return out;
}

/* --- the distributions (curand_uniform.h, curand_normal.h) -------------------------------- */

#define INV32 2.3283064e-10f /* 2^-32, rounded as cuRAND rounds it */
#define INV32_2PI (2.3283064e-10f * 6.2831855f)
#define INV53 1.1102230246251565e-16 /* 2^-53 */
#define PI_DOUBLE 3.1415926535897932

static float uniform(uint32_t x)
{
    return x * INV32 + INV32 / 2.0f;
}

/* 53 bits from two draws, in (0, 1). */
static double uniform_double(uint32_t x, uint32_t y)
{
    return (double)((uint64_t)x ^ ((uint64_t)y << 21)) * INV53 + INV53 / 2.0;
}

static void box_muller(uint32_t x, uint32_t y, float out[2])
{
    float u = x * INV32 + INV32 / 2, v = y * INV32_2PI + INV32_2PI / 2;
    float s = sqrtf(-2.0f * logf(u));
    out[0] = sinf(v) * s;
    out[1] = cosf(v) * s;
}

/* MRG32k3a's values r in 1 .. M1: as 32 bits, as a uniform in (0, 1]. */
#define MRG_BITS 1.000000048662
#define MRG_NORM 2.3283065498378288e-10

/* Draw @p x of @p g as curandGenerate's 32-bit value. */
static uint32_t bits32(curandGenerator_t g, uint32_t x)
{
    return g->type == CURAND_RNG_PSEUDO_MRG32K3A ? (uint32_t)(x * MRG_BITS) : x;
}

static void box_muller_mrg(const uint32_t r[2], float out[2])
{
    float x = (float)(r[0] * MRG_NORM), y = (float)(r[1] * MRG_NORM) * 6.2831855f;
    float s = sqrtf(-2.0f * logf(x));
    out[0] = sinf(y) * s;
    out[1] = cosf(y) * s;
}

static void box_muller_mrg_double(const uint32_t r[2], double out[2])
{
    double x = r[0] * MRG_NORM, y = r[1] * MRG_NORM * 2.0;
    double s = sqrt(-2.0 * log(x));
    out[0] = sin(y * PI_DOUBLE) * s;
    out[1] = cos(y * PI_DOUBLE) * s;
}

static void box_muller_double(const uint32_t x[4], double out[2])
{
    double u = uniform_double(x[0], x[1]);
    double v = (double)((uint64_t)x[2] ^ ((uint64_t)x[3] << 21)) * (INV53 * 2.0) + INV53;
    double s = sqrt(-2.0 * log(u));
    out[0] = sin(v * PI_DOUBLE) * s;
    out[1] = cos(v * PI_DOUBLE) * s;
}

/* The next @p n standard normal floats of XORWOW's or MRG32k3a's states in turn into @p z, each
   from its state as the device API's curand_normal makes them: a Box-Muller pair from two of the
   state's draws, whose second normal the state keeps for its next one. */
static void states_normals(curandGenerator_t g, size_t n, float *z)
{
    if (!g->seeded)
        states_seed(g);
    unsigned count = state_count(g);
    if (!g->spares) {
        g->spares = emu_malloc(count * sizeof *g->spares);
        for (unsigned s = 0; s < count; s++)
            g->spares[s] = NAN;
    }
    for (size_t k = 0; k < n; k++) {
        unsigned s = g->next_state;
        if (isnan(g->spares[s])) {
            uint32_t r[2];
            r[0] = state_next(g, s);
            r[1] = state_next(g, s);
            float pair[2];
            if (g->type == CURAND_RNG_PSEUDO_MRG32K3A)
                box_muller_mrg(r, pair);
            else
                box_muller(r[0], r[1], pair);
            z[k] = pair[0];
            g->spares[s] = pair[1];
        } else {
            z[k] = g->spares[s];
            g->spares[s] = NAN;
        }
        g->next_state = (s + 1) % count;
    }
    g->offset += n;
    g->made += n;
}

/* --- Sobol's values as distributions (curand_uniform.h, curand_normal_static.h) ----------- */

#define INV32_DOUBLE 2.3283064365386963e-10 /* 2^-32 */

/* A Poisson number from standard normal @p z: lambda + sqrt(lambda) z rounded to nearest (+ 0.5,
   truncated: curand_poisson.h's _curand_poisson_from_normal). */
static unsigned poisson_round(double lambda, float z)
{
    return (unsigned)(sqrt(lambda) * z + lambda + 0.5);
}

/** Where NVIDIA's host library's Poisson numbers from Sobol go over to normals (measured):
    Sobol32 above 8000, Sobol64 from 2000. */
#define SOBOL32_NORMAL_LAMBDA 8000.0
#define SOBOL64_NORMAL_LAMBDA 2000.0
/** Below it, NVIDIA's Sobol32 Poisson numbers come through the square histogram (measured). */
#define SOBOL32_HISTOGRAM_LAMBDA 10.0

/* The z >= 0 with erfc(z) = @p y, for y in (0, 1]. Near 1: Newton's method on erf(z) = 1 - y
   (exact there), from the first-order root. Below: Newton on log erfc(z) = log y, which is
   concave, from sqrt(-log y) >= the root (erfc(z) <= exp(-z^2)), so the steps fall to it. */
static double erfcinv_pos(double y)
{
    const double two_over_sqrt_pi = 1.1283791670955126;
    double z;
    if (y >= 0.5) {
        z = (1.0 - y) / two_over_sqrt_pi;
        for (int i = 0; i < 8; i++)
            z -= (erf(z) - (1.0 - y)) / (two_over_sqrt_pi * exp(-z * z));
        return z;
    }
    z = sqrt(-log(y));
    for (int i = 0; i < 100; i++) {
        double e = erfc(z), step = (log(e) - log(y)) * e / (two_over_sqrt_pi * exp(-z * z));
        z += step;
        if (fabs(step) <= 1e-17 * z)
            break;
    }
    return z;
}

/* A normal float from Sobol value @p x of @p bits bits: -sqrt(2) erfcinv(2p), mirrored above
   the middle so that p <= 1/2 keeps its precision (_curand_normal_icdf). */
static float sobol_normal(uint64_t x, int bits)
{
    uint32_t t = bits == 32 ? (uint32_t)x : (uint32_t)(x >> 32);
    float s = -1.4142135f;
    if (t > 0x80000000u) {
        t = 0xffffffffu - t;
        s = -s;
    }
    float p = t * INV32 + INV32 / 2.0f;
    return s * (float)erfcinv_pos(2.0f * p);
}

/* The same in double: 32 bits, or the top 53 of 64 (_curand_normal_icdf_double). */
static double sobol_normal_double(uint64_t x, int bits)
{
    double s = -1.4142135623730951, p;
    if (bits == 32) {
        uint32_t t = (uint32_t)x;
        if (t > 0x80000000u) {
            t = 0xffffffffu - t;
            s = -s;
        }
        p = t * INV32_DOUBLE + INV32_DOUBLE / 2.0;
    } else {
        uint64_t t = x >> 11;
        if (t > 0x10000000000000ull) {
            t = 0x1fffffffffffffull - t;
            s = -s;
        }
        p = t * INV53 + INV53 / 2.0;
    }
    return s * erfcinv_pos(2.0 * p);
}

enum quasi_dist { Q_BITS, Q_UNIFORM, Q_UNIFORM_DOUBLE, Q_NORMAL, Q_NORMAL_DOUBLE, Q_POISSON };

/** What a Sobol call makes of its values: distribution d; the normals mean + stddev * z,
    exponentiated when lognormal; Poisson numbers of mean lambda (from histogram h when not
    NULL). */
struct quasi_args {
    enum quasi_dist d;
    double mean, stddev;
    int lognormal;
    double lambda;
    const struct histogram *h;
};

/* The Poisson number at uniform @p u in (0, 1]: the least k whose CDF reaches u, the CDF
   summed from k = 0 in chunks of 500 of lambda (George Fishman's ITR, curand_poisson.h's
   _curand_poisson_ITR_double): each chunk scales the sums by exp(-500), the last by the rest,
   so that exp(-lambda) never underflows. At u = 1 (Sobol32's value 2^32 - 1) the sum stops
   when it no longer grows; NVIDIA's library gives another number there (measured at lambda 10:
   44, here 47). */
static unsigned poisson_inversion(double u, double lambda)
{
    double p = 1.0, q = 1.0; /* P(k), P(0) + .. + P(k), times exp(lambda - chunk's end) */
    unsigned k = 0;
    for (double done = 0; done < lambda; done += 500.0) {
        double scale = lambda > done + 500.0 ? exp(-500.0) : exp(done - lambda);
        p *= scale;
        q *= scale;
        while (u > q) {
            k++;
            p *= lambda / (double)k;
            double before = q;
            q += p;
            if (q == before && done + 500.0 >= lambda)
                return k;
        }
    }
    return k;
}

/* A Poisson number from Sobol value @p x (@p bits bits), as NVIDIA's host library makes them
   (measured against it, tests/emulator/test_curand.c): Sobol32 through the square histogram
   below lambda 10, by inversion at u = x / 2^32 + 2^-32 up to 8000, from the normal at x above;
   Sobol64 by inversion at its top 53 bits' u below lambda 2000, from the normal from 2000 on. */
static unsigned sobol_poisson(uint64_t x, int bits, const struct quasi_args *a)
{
    if (a->h)
        return histogram_draw(a->h, (uint32_t)x);
    if (bits == 32 && a->lambda <= SOBOL32_NORMAL_LAMBDA)
        return poisson_inversion(x * INV32_DOUBLE + INV32_DOUBLE, a->lambda);
    if (bits == 64 && a->lambda < SOBOL64_NORMAL_LAMBDA)
        return poisson_inversion((x >> 11) * INV53 + INV53 / 2.0, a->lambda);
    return poisson_round(a->lambda, sobol_normal(x, bits));
}

/* Sobol value @p x (@p bits bits) as @p a says, at *@p out. */
static void quasi_value(const struct quasi_args *a, int bits, uint64_t x, void *out)
{
    switch (a->d) {
    case Q_BITS:
        if (bits == 32)
            *(uint32_t *)out = (uint32_t)x;
        else
            *(uint64_t *)out = x;
        return;
    case Q_UNIFORM:
        *(float *)out = uniform(bits == 32 ? (uint32_t)x : (uint32_t)(x >> 32));
        return;
    case Q_UNIFORM_DOUBLE: /* 32 bits: x / 2^32 + 2^-32, in (0, 1] (_curand_uniform_double) */
        *(double *)out =
            bits == 32 ? x * INV32_DOUBLE + INV32_DOUBLE : (x >> 11) * INV53 + INV53 / 2.0;
        return;
    case Q_NORMAL: {
        float z = (float)a->mean + (float)a->stddev * sobol_normal(x, bits);
        *(float *)out = a->lognormal ? expf(z) : z;
        return;
    }
    case Q_NORMAL_DOUBLE: {
        double z = a->mean + a->stddev * sobol_normal_double(x, bits);
        *(double *)out = a->lognormal ? exp(z) : z;
        return;
    }
    default:
        *(unsigned *)out = sobol_poisson(x, bits, a);
    }
}

/* --- where the numbers go ----------------------------------------------------------------- */

/* The host address of the @p bytes at @p out, or NULL (after one line) when they are not
   valid device memory of a device generator; waits for the stream's earlier work. */
static void *target(curandGenerator_t g, void *out, size_t bytes, const char *who)
{
    if (g->host)
        return out;
    if (cudaStreamSynchronize(g->stream) != cudaSuccess || course_emu_sticky_error())
        return NULL;
    return course_emu_host(out, bytes, who);
}

static void wrote(curandGenerator_t g, void *out, size_t bytes)
{
    if (!g->host)
        course_emu_wrote(out, bytes);
}

/* What every Generate* does first: a live generator, an output, a length that is a multiple of
   @p multiple (2 for pairs, Sobol's dimensions), then *@p out, where the @p num values of
   @p each bytes go (NULL when none). */
static curandStatus_t begin(curandGenerator_t g, void *outputPtr, size_t num, size_t each,
                            size_t multiple, const char *who, void **out)
{
    *out = NULL;
    if (!gen_ok(g))
        return CURAND_STATUS_NOT_INITIALIZED;
    if (!outputPtr && num)
        return CURAND_STATUS_OUT_OF_RANGE;
    if (num % multiple)
        return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
    if (num && !(*out = target(g, outputPtr, num * each, who)))
        return CURAND_STATUS_LAUNCH_FAILURE;
    return CURAND_STATUS_SUCCESS;
}

/* What every Generate* does last: free the draws @p x, record what it wrote. */
static curandStatus_t finish(curandGenerator_t g, void *outputPtr, size_t bytes, uint32_t *x)
{
    free(x);
    wrote(g, outputPtr, bytes);
    return CURAND_STATUS_SUCCESS;
}

/* Sobol's @p num values of @p each bytes, as @p a says: num / dimensions points of each dimension
   from the offset on, dimension after dimension; the offset moves on by as many points. */
static curandStatus_t quasi_generate(curandGenerator_t g, void *outputPtr, size_t num, size_t each,
                                     const struct quasi_args *a, const char *who)
{
    void *out;
    curandStatus_t st = begin(g, outputPtr, num, each, g->dims, who, &out);
    if (st || !num)
        return st;
    int bits = g->type == CURAND_RNG_QUASI_SOBOL32 ? 32 : 64;
    size_t per = num / g->dims;
    uint64_t *x = emu_malloc(per * sizeof *x);
    for (unsigned dim = 0; dim < g->dims; dim++) {
        sobol_points(dim, bits, g->offset, per, x);
        for (size_t j = 0; j < per; j++)
            quasi_value(a, bits, x[j], (char *)out + (dim * per + j) * each);
    }
    g->offset += per;
    free(x);
    wrote(g, outputPtr, num * each);
    return CURAND_STATUS_SUCCESS;
}

/* --- the API ------------------------------------------------------------------------------- */

static curandStatus_t create(curandGenerator_t *generator, curandRngType_t type, int host)
{
    if (!generator)
        return CURAND_STATUS_OUT_OF_RANGE;
    if (type == CURAND_RNG_PSEUDO_DEFAULT)
        type = CURAND_RNG_PSEUDO_XORWOW;
    if (type == CURAND_RNG_QUASI_DEFAULT)
        type = CURAND_RNG_QUASI_SOBOL32;
    if (type != CURAND_RNG_PSEUDO_XORWOW && type != CURAND_RNG_PSEUDO_PHILOX4_32_10 &&
        type != CURAND_RNG_PSEUDO_MRG32K3A && type != CURAND_RNG_QUASI_SOBOL32 &&
        type != CURAND_RNG_QUASI_SOBOL64) {
        char what[64];
        snprintf(what, sizeof what, "generator type %d", (int)type);
        return refuse(CURAND_STATUS_TYPE_ERROR, what);
    }
    struct curandGenerator_st *g = emu_calloc(1, sizeof *g);
    g->magic = GEN_MAGIC;
    g->type = type;
    g->host = host;
    g->dims = 1;
    *generator = g;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type)
{
    return create(generator, rng_type, 0);
}

curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type)
{
    return create(generator, rng_type, 1);
}

curandStatus_t curandDestroyGenerator(curandGenerator_t generator)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    generator->magic = 0;
    free(generator->states);
    free(generator->mrgs);
    free(generator->spares);
    free(generator);
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetVersion(int *version)
{
    if (!version)
        return CURAND_STATUS_OUT_OF_RANGE;
    *version = CURAND_VERSION;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CURAND_STATUS_OUT_OF_RANGE;
    switch (type) {
    case MAJOR_VERSION:
        *value = CURAND_VER_MAJOR;
        return CURAND_STATUS_SUCCESS;
    case MINOR_VERSION:
        *value = CURAND_VER_MINOR;
        return CURAND_STATUS_SUCCESS;
    case PATCH_LEVEL:
        *value = CURAND_VER_PATCH;
        return CURAND_STATUS_SUCCESS;
    default:
        return CURAND_STATUS_OUT_OF_RANGE;
    }
}

curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    generator->stream = stream;
    return CURAND_STATUS_SUCCESS;
}

/* The offset a new seed starts from, as NVIDIA's library keeps it (measured against it, not
   documented): XORWOW and MRG32k3a the offset last set (or carried) plus the outputs made since,
   normals counted in pairs; Philox the offset last set plus the blocks of four outputs entered
   since, or while that is 0, the outputs made (then nothing is carried: the next seed counts from
   the same offset). */
static unsigned long long carried_offset(curandGenerator_t g)
{
    unsigned long long o = g->set_offset;
    if (g->type == CURAND_RNG_PSEUDO_PHILOX4_32_10) {
        o += (o % 4 + g->made) / 4;
        if (o == 0)
            return g->made;
    } else {
        o += g->made;
    }
    g->set_offset = o;
    g->made = 0;
    return o;
}

curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator,
                                                  unsigned long long seed)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    if (quasi(generator))
        return CURAND_STATUS_TYPE_ERROR;
    generator->seed = seed;
    generator->offset = carried_offset(generator);
    generator->seeded = 0;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    generator->offset = offset;
    generator->set_offset = offset;
    generator->made = 0;
    generator->seeded = 0;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    if (quasi(generator))
        return order == CURAND_ORDERING_QUASI_DEFAULT ? CURAND_STATUS_SUCCESS
                                                      : CURAND_STATUS_OUT_OF_RANGE;
    if (order == CURAND_ORDERING_PSEUDO_DEFAULT || order == CURAND_ORDERING_PSEUDO_BEST ||
        order == CURAND_ORDERING_PSEUDO_LEGACY)
        return CURAND_STATUS_SUCCESS;
    char what[64];
    snprintf(what, sizeof what, "ordering %d", (int)order);
    return refuse(CURAND_STATUS_OUT_OF_RANGE, what);
}

curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num)
{
    if (gen_ok(generator) && generator->type == CURAND_RNG_QUASI_SOBOL64)
        return CURAND_STATUS_TYPE_ERROR;
    if (gen_ok(generator) && quasi(generator))
        return quasi_generate(generator, outputPtr, num, 4, &(struct quasi_args){.d = Q_BITS},
                              "curandGenerate");
    unsigned *out;
    curandStatus_t st =
        begin(generator, outputPtr, num, sizeof *out, 1, "curandGenerate", (void **)&out);
    if (st || !num)
        return st;
    int skip;
    uint32_t *x = draws(generator, num, 1, 1, 1, &skip);
    for (size_t i = 0; i < num; i++)
        out[i] = bits32(generator, x[i]);
    return finish(generator, outputPtr, num * sizeof *out, x);
}

curandStatus_t curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num)
{
    if (gen_ok(generator) && quasi(generator))
        return quasi_generate(generator, outputPtr, num, 4, &(struct quasi_args){.d = Q_UNIFORM},
                              "curandGenerateUniform");
    float *out;
    curandStatus_t st =
        begin(generator, outputPtr, num, sizeof *out, 1, "curandGenerateUniform", (void **)&out);
    if (st || !num)
        return st;
    int skip, mrg = generator->type == CURAND_RNG_PSEUDO_MRG32K3A;
    uint32_t *x = draws(generator, num, 1, 1, 1, &skip);
    for (size_t i = 0; i < num; i++)
        out[i] = mrg ? (float)(x[i] * MRG_NORM) : uniform(x[i]);
    return finish(generator, outputPtr, num * sizeof *out, x);
}

curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double *outputPtr,
                                           size_t num)
{
    if (gen_ok(generator) && quasi(generator))
        return quasi_generate(generator, outputPtr, num, 8,
                              &(struct quasi_args){.d = Q_UNIFORM_DOUBLE},
                              "curandGenerateUniformDouble");
    double *out;
    curandStatus_t st = begin(generator, outputPtr, num, sizeof *out, 1,
                              "curandGenerateUniformDouble", (void **)&out);
    if (st || !num)
        return st;
    int skip, mrg = generator->type == CURAND_RNG_PSEUDO_MRG32K3A;
    uint32_t *x = draws(generator, num, mrg ? 1 : 2, 1, 2, &skip);
    for (size_t i = 0; i < num; i++)
        out[i] = mrg ? x[i] * MRG_NORM : uniform_double(x[2 * i], x[2 * i + 1]);
    return finish(generator, outputPtr, num * sizeof *out, x);
}

/* The next @p num standard normal floats of @p g into @p z, in pairs (curandGenerateNormal's
   order; @p num may be odd). */
static void normals(curandGenerator_t g, size_t num, float *z)
{
    int skip, mrg = g->type == CURAND_RNG_PSEUDO_MRG32K3A;
    uint32_t *x = draws(g, num, 2, 2, 1, &skip);
    for (size_t i = 0; i < num + skip; i += 2) {
        float pair[2];
        if (mrg)
            box_muller_mrg(x + i, pair);
        else
            box_muller(x[i], x[i + 1], pair);
        for (size_t j = i < (size_t)skip ? 1 : 0; j < 2 && i + j - skip < num; j++)
            z[i + j - skip] = pair[j];
    }
    free(x);
}

/* Normal floats, mean + stddev * z, in pairs; exponentiated for the log-normal. */
static curandStatus_t normal_float(curandGenerator_t g, float *outputPtr, size_t num, float mean,
                                   float stddev, int lognormal, const char *who)
{
    if (gen_ok(g) && quasi(g))
        return quasi_generate(
            g, outputPtr, num, 4,
            &(struct quasi_args){
                .d = Q_NORMAL, .mean = mean, .stddev = stddev, .lognormal = lognormal},
            who);
    float *out;
    curandStatus_t st = begin(g, outputPtr, num, sizeof *out, 2, who, (void **)&out);
    if (st || !num)
        return st;
    normals(g, num, out);
    for (size_t i = 0; i < num; i++)
        out[i] = lognormal ? expf(mean + stddev * out[i]) : mean + stddev * out[i];
    return finish(g, outputPtr, num * sizeof *out, NULL);
}

static curandStatus_t normal_double(curandGenerator_t g, double *outputPtr, size_t num, double mean,
                                    double stddev, int lognormal, const char *who)
{
    if (gen_ok(g) && quasi(g))
        return quasi_generate(
            g, outputPtr, num, 8,
            &(struct quasi_args){
                .d = Q_NORMAL_DOUBLE, .mean = mean, .stddev = stddev, .lognormal = lognormal},
            who);
    double *out;
    curandStatus_t st = begin(g, outputPtr, num, sizeof *out, 2, who, (void **)&out);
    if (st || !num)
        return st;
    int skip, mrg = g->type == CURAND_RNG_PSEUDO_MRG32K3A, w = mrg ? 2 : 4;
    uint32_t *x = draws(g, num, w, 2, 2, &skip);
    for (size_t i = 0; i < num + skip; i += 2) {
        double z[2];
        (mrg ? box_muller_mrg_double : box_muller_double)(x + i / 2 * w, z);
        for (size_t j = i < (size_t)skip ? 1 : 0; j < 2 && i + j - skip < num; j++)
            out[i + j - skip] = lognormal ? exp(mean + stddev * z[j]) : mean + stddev * z[j];
    }
    return finish(g, outputPtr, num * sizeof *out, x);
}

curandStatus_t curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n,
                                    float mean, float stddev)
{
    return normal_float(generator, outputPtr, n, mean, stddev, 0, "curandGenerateNormal");
}

curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n,
                                          double mean, double stddev)
{
    return normal_double(generator, outputPtr, n, mean, stddev, 0, "curandGenerateNormalDouble");
}

curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float *outputPtr, size_t n,
                                       float mean, float stddev)
{
    return normal_float(generator, outputPtr, n, mean, stddev, 1, "curandGenerateLogNormal");
}

curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double *outputPtr,
                                             size_t n, double mean, double stddev)
{
    return normal_double(generator, outputPtr, n, mean, stddev, 1, "curandGenerateLogNormalDouble");
}

/* --- Sobol's calls --------------------------------------------------------------------------- */

/* cuRAND's library goes to 20000 dimensions; the stand-in to SOBOL_DIMS, and says so above. */
curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator,
                                                       unsigned int num_dimensions)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    if (!quasi(generator))
        return CURAND_STATUS_TYPE_ERROR;
    if (num_dimensions < 1 || num_dimensions > 20000)
        return CURAND_STATUS_OUT_OF_RANGE;
    if (num_dimensions > SOBOL_DIMS) {
        char what[96];
        snprintf(what, sizeof what, "Sobol in %u dimensions (it has direction vectors for %d)",
                 num_dimensions, SOBOL_DIMS);
        return refuse(CURAND_STATUS_OUT_OF_RANGE, what);
    }
    generator->dims = num_dimensions;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGenerateLongLong(curandGenerator_t generator, unsigned long long *outputPtr,
                                      size_t num)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    if (generator->type != CURAND_RNG_QUASI_SOBOL64)
        return CURAND_STATUS_TYPE_ERROR;
    return quasi_generate(generator, outputPtr, num, 8, &(struct quasi_args){.d = Q_BITS},
                          "curandGenerateLongLong");
}

/* The vectors of dimensions 1 .. SOBOL_DIMS (cuRAND's: 20000); the scrambled sets refused. */
curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t *vectors[],
                                           curandDirectionVectorSet_t set)
{
    if (!vectors)
        return CURAND_STATUS_OUT_OF_RANGE;
    if (set == CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6)
        return refuse(CURAND_STATUS_OUT_OF_RANGE, "the scrambled direction vectors");
    if (set != CURAND_DIRECTION_VECTORS_32_JOEKUO6)
        return CURAND_STATUS_OUT_OF_RANGE;
    *vectors = sobol_vectors32();
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t *vectors[],
                                           curandDirectionVectorSet_t set)
{
    if (!vectors)
        return CURAND_STATUS_OUT_OF_RANGE;
    if (set == CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6)
        return refuse(CURAND_STATUS_OUT_OF_RANGE, "the scrambled direction vectors");
    if (set != CURAND_DIRECTION_VECTORS_64_JOEKUO6)
        return CURAND_STATUS_OUT_OF_RANGE;
    *vectors = sobol_vectors64();
    return CURAND_STATUS_SUCCESS;
}

/* --- Poisson ------------------------------------------------------------------------------- */

/* Poisson numbers at lambda >= 2000, as NVIDIA's library makes them (measured against it): lambda
   + sqrt(lambda) z rounded to nearest (+ 0.5, truncated: curand_poisson.h's
   curand_poisson_from_normal), z a standard normal float: for Philox curandGenerateNormal's at
   the same offset, for XORWOW and MRG32k3a each state's own in turn (states_normals). */
static void poisson_from_normal(curandGenerator_t g, unsigned *out, size_t n, double lambda)
{
    float *z = emu_malloc(n * sizeof *z);
    if (g->type == CURAND_RNG_PSEUDO_PHILOX4_32_10)
        normals(g, n, z);
    else
        states_normals(g, n, z);
    for (size_t i = 0; i < n; i++)
        out[i] = poisson_round(lambda, z[i]);
    free(z);
}

/* Sobol's Poisson numbers (sobol_poisson), with the histogram of lambda where Sobol32 uses it. */
static curandStatus_t quasi_poisson(curandGenerator_t g, unsigned *outputPtr, size_t n,
                                    double lambda)
{
    struct histogram h;
    int histogram = g->type == CURAND_RNG_QUASI_SOBOL32 && lambda < SOBOL32_HISTOGRAM_LAMBDA;
    if (histogram)
        histogram_poisson(lambda, &h);
    curandStatus_t st = quasi_generate(
        g, outputPtr, n, sizeof *outputPtr,
        &(struct quasi_args){.d = Q_POISSON, .lambda = lambda, .h = histogram ? &h : NULL},
        "curandGeneratePoisson");
    if (histogram)
        histogram_free(&h);
    return st;
}

/** The largest lambda NVIDIA's library takes (above: CURAND_STATUS_OUT_OF_RANGE, measured). */
#define POISSON_MAX_LAMBDA 400000.0

/* Poisson numbers as NVIDIA's host library makes them: below lambda 2000, one 32-bit value per
   number (curandGenerate's, same offset; MRG32k3a's too, measured) through the square histogram
   of lambda; above, from normals (poisson_from_normal). Sobol's: quasi_poisson. */
curandStatus_t curandGeneratePoisson(curandGenerator_t generator, unsigned int *outputPtr, size_t n,
                                     double lambda)
{
    if (!gen_ok(generator))
        return CURAND_STATUS_NOT_INITIALIZED;
    if (!(lambda > 0 && lambda <= POISSON_MAX_LAMBDA))
        return CURAND_STATUS_OUT_OF_RANGE;
    if (quasi(generator))
        return quasi_poisson(generator, outputPtr, n, lambda);
    unsigned *out;
    curandStatus_t st =
        begin(generator, outputPtr, n, sizeof *out, 1, "curandGeneratePoisson", (void **)&out);
    if (st || !n)
        return st;
    if (lambda >= HISTOGRAM_MAX_LAMBDA) {
        poisson_from_normal(generator, out, n, lambda);
        return finish(generator, outputPtr, n * sizeof *out, NULL);
    }
    struct histogram h;
    histogram_poisson(lambda, &h);
    int skip;
    uint32_t *x = draws(generator, n, 1, 1, 1, &skip);
    for (size_t i = 0; i < n; i++)
        out[i] = histogram_draw(&h, bits32(generator, x[i]));
    histogram_free(&h);
    return finish(generator, outputPtr, n * sizeof *out, x);
}

/* The device API's Poisson object (curand_discrete.h's structs, which curand_discrete() reads
   in a kernel): one device allocation holding the distribution, its M2 shift, the histogram
   and the histogram's V and K, all pointers device addresses. Below lambda 2000 only. */
struct poisson_block {
    struct curandDiscreteDistribution_st dist;
    struct curandDistributionM2Shift_st m2;
    struct curandHistogramM2_st histogram;
};

curandStatus_t curandCreatePoissonDistribution(double lambda,
                                               curandDiscreteDistribution_t *discrete_distribution)
{
    if (!discrete_distribution || !(lambda > 0))
        return CURAND_STATUS_OUT_OF_RANGE;
    if (lambda >= HISTOGRAM_MAX_LAMBDA)
        return refuse(CURAND_STATUS_OUT_OF_RANGE,
                      "curandCreatePoissonDistribution with lambda >= 2000");
    struct histogram h;
    histogram_poisson(lambda, &h);
    size_t vbytes = h.length * sizeof *h.V,
           bytes = sizeof(struct poisson_block) + vbytes + h.length * sizeof *h.K;
    char *dev = NULL;
    if (cudaMalloc((void **)&dev, bytes) != cudaSuccess) {
        histogram_free(&h);
        return CURAND_STATUS_ALLOCATION_FAILED;
    }
    struct poisson_block *d = (struct poisson_block *)dev, host = {0};
    double *dv = (double *)(dev + sizeof host);
    unsigned *dk = (unsigned *)(dev + sizeof host + vbytes);
    host.dist.M2 = &d->m2;
    host.dist.stddev = sqrt(lambda);
    host.dist.mean = lambda;
    host.dist.method = CURAND_M2;
    host.m2.histogram = &d->histogram;
    host.m2.shift = h.shift;
    host.m2.length = h.length;
    host.histogram.V = dv;
    host.histogram.K = dk;
    int ok = cudaMemcpy(d, &host, sizeof host, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaMemcpy(dv, h.V, vbytes, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaMemcpy(dk, h.K, h.length * sizeof *h.K, cudaMemcpyHostToDevice) == cudaSuccess;
    histogram_free(&h);
    if (!ok) {
        cudaFree(dev);
        return CURAND_STATUS_LAUNCH_FAILURE;
    }
    *discrete_distribution = &d->dist;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandDestroyDistribution(curandDiscreteDistribution_t discrete_distribution)
{
    if (!discrete_distribution)
        return CURAND_STATUS_NOT_INITIALIZED;
    return cudaFree(discrete_distribution) == cudaSuccess ? CURAND_STATUS_SUCCESS
                                                          : CURAND_STATUS_NOT_INITIALIZED;
}

/* --- what the stand-in refuses, each in one line ------------------------------------------- */

curandStatus_t curandGeneratePoissonMethod(curandGenerator_t generator, unsigned int *outputPtr,
                                           size_t n, double lambda, curandMethod_t method)
{
    (void)generator, (void)outputPtr, (void)n, (void)lambda, (void)method;
    return refuse(CURAND_STATUS_INTERNAL_ERROR, "curandGeneratePoissonMethod");
}

#if CURAND_VERSION >= 10400 /* binomial came with cuRAND 10.4 (CUDA 13) */
curandStatus_t curandGenerateBinomial(curandGenerator_t generator, unsigned int *outputPtr,
                                      size_t num, unsigned int n, double p)
{
    (void)generator, (void)outputPtr, (void)num, (void)n, (void)p;
    return refuse(CURAND_STATUS_INTERNAL_ERROR, "curandGenerateBinomial");
}

curandStatus_t curandGenerateBinomialMethod(curandGenerator_t generator, unsigned int *outputPtr,
                                            size_t num, unsigned int n, double p,
                                            curandMethod_t method)
{
    (void)generator, (void)outputPtr, (void)num, (void)n, (void)p, (void)method;
    return refuse(CURAND_STATUS_INTERNAL_ERROR, "curandGenerateBinomialMethod");
}
#endif

curandStatus_t curandGenerateSeeds(curandGenerator_t generator)
{
    return gen_ok(generator) ? CURAND_STATUS_SUCCESS : CURAND_STATUS_NOT_INITIALIZED;
}

curandStatus_t curandGetScrambleConstants32(unsigned int **constants)
{
    (void)constants;
    return refuse(CURAND_STATUS_INTERNAL_ERROR, "curandGetScrambleConstants32");
}

curandStatus_t curandGetScrambleConstants64(unsigned long long **constants)
{
    (void)constants;
    return refuse(CURAND_STATUS_INTERNAL_ERROR, "curandGetScrambleConstants64");
}
