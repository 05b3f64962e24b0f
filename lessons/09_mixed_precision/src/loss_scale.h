/**
 * @file loss_scale.h
 * @brief Lesson 09: dynamic loss scaling, in plain C (lesson 13's trainer uses it too).
 *
 * fp16 gradients below 2^-24 flush to zero, and many real gradients are that small. Multiplying
 * the loss by a scale S multiplies every gradient by S (the chain rule is linear), lifting them
 * into fp16's range; the fp32 copy is divided by S again before the optimizer step. S is chosen
 * dynamically: too large and a gradient overflows to infinity, so
 *
 *     struct loss_scale ls;
 *     loss_scale_init(&ls, 65536.0f, 2000);
 *     for each step:
 *         backward pass on (loss * ls.scale), gradients in fp16, copied to fp32 grad[]
 *         int finite = loss_scale_unscale(&ls, grad, n);   // grad /= scale; any inf or NaN?
 *         if (loss_scale_update(&ls, finite))              // 0: overflow, scale halved
 *             optimizer step with grad                     //    and the step skipped
 *
 * After growth_interval good steps in a row the scale doubles; on any overflow it halves and
 * that step is skipped. The scale is always a power of two, so scaling and unscaling are exact.
 */
#ifndef LOSS_SCALE_H
#define LOSS_SCALE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A dynamic loss scaler. */
struct loss_scale {
    float scale;         /**< the factor the loss, and so every gradient, is multiplied by */
    float growth;        /**< factor applied after growth_interval good steps in a row: 2 */
    float backoff;       /**< factor applied on an overflow: 0.5 */
    int growth_interval; /**< good steps in a row before the scale grows */
    int good_steps;      /**< good steps since the last growth or overflow */
    float min_scale;     /**< the scale never goes below this: 1 */
    float max_scale;     /**< nor above this: 2^24 */
    long long steps;     /**< updates seen */
    long long skipped;   /**< steps skipped because a gradient overflowed */
};

/**
 * Start with scale @p initial (a power of two, e.g. 65536), growth 2, backoff 0.5, the given
 * @p growth_interval (>= 1; e.g. 2000), bounds [1, 2^24] and no steps seen.
 */
void loss_scale_init(struct loss_scale *s, float initial, int growth_interval);

/** 1 when every one of the @p n values of @p x is finite (no infinity, no NaN), else 0. */
int loss_scale_all_finite(const float *x, size_t n);

/**
 * Divide the @p n scaled gradients @p grad by the current scale, in place, and return 1 when
 * all of them are finite, 0 when any overflowed (then @p grad is garbage: skip the step).
 */
int loss_scale_unscale(const struct loss_scale *s, float *grad, size_t n);

/**
 * Record one step whose gradients were @p finite (1) or not (0) and adjust the scale: on an
 * overflow multiply it by backoff (not below min_scale), reset the run of good steps, count a
 * skip and return 0; else count a good step, multiply the scale by growth (not above max_scale)
 * once growth_interval of them are in a row, and return 1: apply the step.
 */
int loss_scale_update(struct loss_scale *s, int finite);

#ifdef __cplusplus
}
#endif

#endif /* LOSS_SCALE_H */
