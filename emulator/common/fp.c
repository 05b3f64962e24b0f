/**
 * @file fp.c
 * @brief Floating-point formats and rounding (see fp.h).
 */
#include "fp.h"

#include <math.h>

uint32_t fp_round(double x, struct fp_fmt f, enum rnd r, int ftz)
{
    uint32_t sign = signbit(x) ? 1u << (f.man + f.exp) : 0;
    uint32_t exp_all = (1u << f.exp) - 1, inf = exp_all << f.man;
    if (isnan(x))
        return inf | ((1u << f.man) - 1);
    if (isinf(x))
        return sign | inf;
    double ax = fabs(x);
    if (ax == 0)
        return sign;
    int bias = (int)(exp_all >> 1), emin = 1 - bias;
    int e;
    frexp(ax, &e);
    e -= 1; /* ax in [2^e, 2^(e+1)) */
    int q_exp = (e < emin ? emin : e) - f.man;
    double q = ldexp(ax, -q_exp); /* quanta of the result's spacing: exact */
    double n;
    int up_away = sign ? r == RND_RM : r == RND_RP; /* round the magnitude up */
    int toward0 = r == RND_RZ || (sign ? r == RND_RP : r == RND_RM);
    if (r == RND_RNA)
        n = floor(q + 0.5);
    else if (toward0)
        n = floor(q);
    else if (up_away)
        n = ceil(q);
    else
        n = nearbyint(q); /* ties to even in the default rounding mode */
    double top = ldexp(2.0 - ldexp(1.0, -f.man), bias); /* the largest finite value */
    if (ldexp(n, q_exp) > top)
        return sign | (toward0 ? inf - 1 : inf);
    uint64_t bits = (uint64_t)n;
    if (e >= emin || bits >= (1ull << f.man)) {
        /* Normal (perhaps reached by rounding up from a subnormal): the exponent field
         * absorbs a carry out of the mantissa. */
        int ee = e < emin ? emin : e;
        bits = ((uint64_t)(ee + bias) << f.man) + (bits - (1ull << f.man));
    } else if (ftz) {
        return sign;
    }
    return sign | (uint32_t)bits;
}

double fp_value(uint32_t b, struct fp_fmt f)
{
    uint32_t exp_all = (1u << f.exp) - 1;
    int bias = (int)(exp_all >> 1);
    uint32_t man = b & ((1u << f.man) - 1), ex = (b >> f.man) & exp_all;
    double sign = (b >> (f.man + f.exp)) & 1 ? -1.0 : 1.0;
    if (ex == exp_all)
        return man ? NAN : sign * INFINITY;
    if (ex == 0)
        return sign * ldexp((double)man, 1 - bias - f.man);
    return sign * ldexp((double)(man | (1u << f.man)), (int)ex - bias - f.man);
}

uint16_t fp_f32_to_bf16(float x)
{
    uint32_t u = f2u(x);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return 0x7FFF;
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1)) >> 16);
}
