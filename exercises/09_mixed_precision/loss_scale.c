/**
 * @file loss_scale.c
 * @brief Lesson 09: dynamic loss scaling, in plain C.
 */
#include "loss_scale.h"

#include <math.h>

void loss_scale_init(struct loss_scale *s, float initial, int growth_interval)
{
    s->scale = initial;
    s->growth = 2.0f;
    s->backoff = 0.5f;
    s->growth_interval = growth_interval > 0 ? growth_interval : 1;
    s->good_steps = 0;
    s->min_scale = 1.0f;
    s->max_scale = 0x1p24f;
    s->steps = 0;
    s->skipped = 0;
}

int loss_scale_all_finite(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

int loss_scale_unscale(const struct loss_scale *s, float *grad, size_t n)
{
    int finite = loss_scale_all_finite(grad, n);
    float inv = 1.0f / s->scale; /* exact: the scale is a power of two */
    for (size_t i = 0; i < n; i++)
        grad[i] *= inv;
    return finite;
}

int loss_scale_update(struct loss_scale *s, int finite)
{
    int apply = 0;
    s->steps++;
    // Overflow: scale times backoff, clamped at min_scale; good_steps back to 0; one more
    // skipped step; apply stays 0. Otherwise: one more good step; when good_steps reaches
    // growth_interval, scale times growth (clamped at max_scale) and good_steps back to 0;
    // apply = 1.
    // TODO
    return apply;
}
