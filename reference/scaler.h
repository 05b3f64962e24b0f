/**
 * @file scaler.h
 * @brief Dynamic loss scaling for fp16 training (the scheme of PyTorch's GradScaler).
 *
 * fp16 has 5 exponent bits: gradients below 2^-24 flush to zero. Multiplying
 * the loss by a scale S moves the whole backward pass up by log2(S) binades;
 * the gradients are divided by S before the update. When a scaled gradient
 * overflows (inf or nan) the step is skipped and S halves; after
 * growth_interval clean steps in a row S doubles again.
 */
#ifndef SCALER_H
#define SCALER_H

/** The scaler's state. */
struct scaler {
    float scale;         /**< the current loss scale S */
    int good_steps;      /**< clean steps since the last change */
    int growth_interval; /**< clean steps before S doubles */
    long long skipped;   /**< steps skipped for overflow so far */
};

/** Start at @p scale (e.g. 65536), doubling after @p growth_interval clean steps (e.g. 2000). */
void scaler_init(struct scaler *s, float scale, int growth_interval);

/**
 * Record whether this step's gradients overflowed. Returns 1 when the update
 * should be applied, 0 when it must be skipped (S has then been halved, never
 * below 1).
 */
int scaler_update(struct scaler *s, int overflow);

#endif /* SCALER_H */
