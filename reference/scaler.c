/**
 * @file scaler.c
 * @brief Dynamic loss scaling for fp16 training.
 */
#include "scaler.h"

void scaler_init(struct scaler *s, float scale, int growth_interval)
{
    s->scale = scale;
    s->good_steps = 0;
    s->growth_interval = growth_interval;
    s->skipped = 0;
}

int scaler_update(struct scaler *s, int overflow)
{
    if (overflow) {
        s->scale = s->scale > 2.0f ? s->scale * 0.5f : 1.0f;
        s->good_steps = 0;
        s->skipped++;
        return 0;
    }
    if (++s->good_steps >= s->growth_interval && s->scale < 16777216.0f) {
        s->scale *= 2.0f;
        s->good_steps = 0;
    }
    return 1;
}
