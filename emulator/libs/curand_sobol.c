/**
 * @file curand_sobol.c
 * @brief Sobol's quasi-random sequences (curand_sobol.h): the direction vectors NVIDIA's
 *        library names CURAND_DIRECTION_VECTORS_{32,64}_JOEKUO6, generated from their data.
 *
 * Dimension 1's vectors are the powers of two. Dimension d >= 2 takes the (d-1)-th primitive
 * polynomial over GF(2), x^s + a_1 x^(s-1) + ... + a_(s-1) x + 1, counting them by degree and,
 * within a degree, by the number a = a_1 .. a_(s-1) in binary (the order of S. Joe and F. Y.
 * Kuo's published table, new-joe-kuo-6.21201, whose d column is ours), and Joe and Kuo's s
 * initial numbers m_1 .. m_s (odd, m_k < 2^k). Vector k (from 1) is m_k / 2^k as a fraction
 * of 2^bits; past s, the polynomial's recurrence
 *   v_k = a_1 v_(k-1) ^ ... ^ a_(s-1) v_(k-s+1) ^ v_(k-s) ^ (v_(k-s) >> s).
 * The primitive polynomials of degree 1 to 9 give dimensions 2 to 101; the numbers below are
 * Joe and Kuo's for those dimensions (tests/emulator/test_curand.c holds every vector to
 * NVIDIA's library's).
 */
#include "curand_sobol.h"

#include <pthread.h>

/** Joe and Kuo's m_1 .. m_s for dimensions 2 .. SOBOL_DIMS in order, s numbers each. */
static const uint16_t joe_kuo_m[] = {
    1,   1,   3,   1,   3,   1,   1,   1,   1,   1,   1,   3,   3,   1,   3,   5,   13,  1,   1,
    5,   5,   17,  1,   1,   5,   5,   5,   1,   1,   7,   11,  19,  1,   1,   5,   1,   1,   1,
    1,   1,   3,   11,  1,   3,   5,   5,   31,  1,   3,   3,   9,   7,   49,  1,   1,   1,   15,
    21,  21,  1,   3,   1,   13,  27,  49,  1,   1,   1,   15,  7,   5,   1,   3,   1,   15,  13,
    25,  1,   1,   5,   5,   19,  61,  1,   3,   7,   11,  23,  15,  103, 1,   3,   7,   13,  13,
    15,  69,  1,   1,   3,   13,  7,   35,  63,  1,   3,   5,   9,   1,   25,  53,  1,   3,   1,
    13,  9,   35,  107, 1,   3,   1,   5,   27,  61,  31,  1,   1,   5,   11,  19,  41,  61,  1,
    3,   5,   3,   3,   13,  69,  1,   1,   7,   13,  1,   19,  1,   1,   3,   7,   5,   13,  19,
    59,  1,   1,   3,   9,   25,  29,  41,  1,   3,   5,   13,  23,  1,   55,  1,   3,   7,   3,
    13,  59,  17,  1,   3,   1,   3,   5,   53,  69,  1,   1,   5,   5,   23,  33,  13,  1,   1,
    7,   7,   1,   61,  123, 1,   1,   7,   9,   13,  61,  49,  1,   3,   3,   5,   3,   55,  33,
    1,   3,   1,   15,  31,  13,  49,  245, 1,   3,   5,   15,  31,  59,  63,  97,  1,   3,   1,
    11,  11,  11,  77,  249, 1,   3,   1,   11,  27,  43,  71,  9,   1,   1,   7,   15,  21,  11,
    81,  45,  1,   3,   7,   3,   25,  31,  65,  79,  1,   3,   1,   1,   19,  11,  3,   205, 1,
    1,   5,   9,   19,  21,  29,  157, 1,   3,   7,   11,  1,   33,  89,  185, 1,   3,   3,   3,
    15,  9,   79,  71,  1,   3,   7,   11,  15,  39,  119, 27,  1,   1,   3,   1,   11,  31,  97,
    225, 1,   1,   1,   3,   23,  43,  57,  177, 1,   3,   7,   7,   17,  17,  37,  71,  1,   3,
    1,   5,   27,  63,  123, 213, 1,   1,   3,   5,   11,  43,  53,  133, 1,   3,   5,   5,   29,
    17,  47,  173, 479, 1,   3,   3,   11,  3,   1,   109, 9,   69,  1,   1,   1,   5,   17,  39,
    23,  5,   343, 1,   3,   1,   5,   25,  15,  31,  103, 499, 1,   1,   1,   11,  11,  17,  63,
    105, 183, 1,   1,   5,   11,  9,   29,  97,  231, 363, 1,   1,   5,   15,  19,  45,  41,  7,
    383, 1,   3,   7,   7,   31,  19,  83,  137, 221, 1,   1,   1,   3,   23,  15,  111, 223, 83,
    1,   1,   5,   13,  31,  15,  55,  25,  161, 1,   1,   3,   13,  25,  47,  39,  87,  257, 1,
    1,   1,   11,  21,  53,  125, 249, 293, 1,   1,   7,   11,  11,  7,   57,  79,  323, 1,   1,
    5,   5,   17,  13,  81,  3,   131, 1,   1,   7,   13,  23,  7,   65,  251, 475, 1,   3,   5,
    1,   9,   43,  3,   149, 11,  1,   1,   3,   13,  31,  13,  13,  255, 487, 1,   3,   3,   1,
    5,   63,  89,  91,  127, 1,   1,   3,   3,   1,   19,  123, 127, 237, 1,   1,   5,   7,   23,
    31,  37,  243, 289, 1,   1,   5,   11,  17,  53,  117, 183, 491, 1,   1,   1,   5,   1,   13,
    13,  209, 345, 1,   1,   3,   15,  1,   57,  115, 7,   33,  1,   3,   1,   11,  7,   43,  81,
    207, 175, 1,   3,   1,   1,   15,  27,  63,  255, 49,  1,   3,   5,   3,   27,  61,  105, 171,
    305, 1,   1,   5,   3,   1,   3,   57,  249, 149, 1,   1,   3,   5,   5,   57,  15,  13,  159,
    1,   1,   1,   11,  7,   11,  105, 141, 225, 1,   3,   3,   5,   27,  59,  121, 101, 271, 1,
    3,   5,   9,   11,  49,  51,  59,  115, 1,   1,   7,   1,   23,  45,  125, 71,  419, 1,   1,
    3,   5,   23,  5,   105, 109, 75,  1,   1,   7,   15,  7,   11,  67,  121, 453, 1,   3,   7,
    3,   9,   13,  31,  27,  449, 1,   3,   1,   15,  19,  39,  39,  89,  15,  1,   1,   1,   1,
    1,   33,  73,  145, 379, 1,   3,   1,   15,  15,  43,  29,  13,  483, 1,   1,   7,   3,   19,
    27,  85,  131, 431, 1,   3,   3,   3,   5,   35,  23,  195, 349, 1,   3,   3,   7,   9,   27,
    39,  59,  297, 1,   1,   3,   9,   11,  17,  13,  241, 157, 1,   3,   7,   15,  25,  57,  33,
    189, 213, 1,   1,   7,   1,   9,   55,  73,  83,  217, 1,   3,   3,   13,  19,  27,  23,  113,
    249, 1,   3,   5,   3,   23,  43,  3,   253, 479, 1,   1,   5,   5,   11,  5,   45,  117, 217,
    1,   3,   3,   7,   29,  37,  33,  123, 147,
};

static curandDirectionVectors32_t vectors32[SOBOL_DIMS];
static curandDirectionVectors64_t vectors64[SOBOL_DIMS];
static pthread_once_t vectors_once = PTHREAD_ONCE_INIT;

/* Whether x^s + ... (bits of @p p, degree @p s) is primitive: x's order modulo it is 2^s - 1. */
static int primitive(unsigned p, int s)
{
    unsigned top = 1u << s, x = 2, order = 1;
    if (x & top)
        x ^= p;
    while (x != 1 && order < top) {
        x <<= 1;
        if (x & top)
            x ^= p;
        order++;
    }
    return x == 1 && order == top - 1;
}

/* Dimension @p dim's 64 vectors from polynomial (@p s, @p a) and initial numbers @p m. */
static void vectors_from(unsigned dim, int s, unsigned a, const uint16_t *m)
{
    unsigned long long *v = vectors64[dim];
    for (int k = 0; k < 64; k++) {
        if (k < s) {
            v[k] = (uint64_t)m[k] << (63 - k);
            continue;
        }
        v[k] = v[k - s] ^ (v[k - s] >> s);
        for (int j = 1; j < s; j++)
            if (a >> (s - 1 - j) & 1)
                v[k] ^= v[k - j];
    }
}

static void vectors_build(void)
{
    const uint16_t *m = joe_kuo_m;
    unsigned dim = 1;
    for (int k = 0; k < 64; k++)
        vectors64[0][k] = 1ull << (63 - k);
    for (int s = 1; dim < SOBOL_DIMS; s++)
        for (unsigned a = 0; a < 1u << (s - 1) && dim < SOBOL_DIMS; a++)
            if (primitive(1u << s | a << 1 | 1, s)) {
                vectors_from(dim++, s, a, m);
                m += s;
            }
    /* a 32-bit vector is its 64-bit twin's high half (the m_k sit at the same fractions) */
    for (dim = 0; dim < SOBOL_DIMS; dim++)
        for (int k = 0; k < 32; k++)
            vectors32[dim][k] = (unsigned)(vectors64[dim][k] >> 32);
}

curandDirectionVectors32_t *sobol_vectors32(void)
{
    pthread_once(&vectors_once, vectors_build);
    return vectors32;
}

curandDirectionVectors64_t *sobol_vectors64(void)
{
    pthread_once(&vectors_once, vectors_build);
    return vectors64;
}

void sobol_points(unsigned dim, int bits, uint64_t first, size_t n, uint64_t *out)
{
    pthread_once(&vectors_once, vectors_build);
    uint64_t i = bits == 32 ? (uint32_t)first : first, gray = i ^ (i >> 1), x = 0;
    for (int k = 0; k < bits; k++)
        if (gray >> k & 1)
            x ^= bits == 32 ? vectors32[dim][k] : vectors64[dim][k];
    for (size_t j = 0; j < n; j++, i++) {
        out[j] = x;
        /* i to i + 1 flips one bit of the Gray code: i's lowest zero bit */
        int k = __builtin_ctzll(~i);
        x ^= bits == 32 ? vectors32[dim][k & 31] : vectors64[dim][k & 63];
    }
}
