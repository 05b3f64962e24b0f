/**
 * @file train_gpu.h
 * @brief Lesson 13: the trainer's CUDA path (train_gpu.c): replicas on the GPU.
 *
 * Each local replica owns a stream, its weights, gradients, optimizer state
 * and activations on the device; the training set lives on the device once,
 * the epoch's order is uploaded once per epoch, and a step copies nothing from
 * the host. train_run() calls, in order: gtr_create; per epoch gtr_epoch,
 * gtr_step per batch, gtr_metrics; gtr_download for checkpoints and at the
 * end; gtr_evaluate; gtr_destroy.
 */
#ifndef TRAIN_GPU_H
#define TRAIN_GPU_H

#include "data_parallel.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The CUDA path's state (opaque). */
struct gtr;

/**
 * Set up @p c->nlocal replicas of model @p s with @p local_B samples each,
 * weights from @p params[l] and optimizer state from @p state, and upload
 * @p train. Several processes on one node share its GPUs round robin.
 */
struct gtr *gtr_create(const struct train_config *t, const struct mlp_shape *s, struct comm *c,
                       const struct idx_set *train, float *const *params, const float *state,
                       int local_B);

/**
 * Upload the epoch's order @p perm (@p n sample indices) to the device, after
 * the previous epoch's steps are done with it.
 */
void gtr_epoch(struct gtr *g, const int *perm, int n);

/**
 * Enqueue one step: local replica l reads the local_B samples named by
 * perm[@p shard_at[l] ...] of the epoch's order, computes its gradient, the
 * gradients are all-reduced and every replica updates (update number @p step).
 * Does not wait for the GPU (except for fp16, whose loss scaler must see the
 * overflow flag).
 */
void gtr_step(struct gtr *g, const size_t *shard_at, long long step);

/** Wait for the GPU; add the loss sum and correct count since the last call, then reset. */
void gtr_metrics(struct gtr *g, double *loss_sum, long long *right);

/** Copy replica @p local's weights (and, when @p state is not NULL, optimizer state) to the host.
 */
void gtr_download(struct gtr *g, int local, float *params, float *state);

/** Correct predictions of replica 0 over the first @p n samples of @p set. */
int gtr_evaluate(struct gtr *g, const struct idx_set *set, int n);

/** Free everything gtr_create() made. */
void gtr_destroy(struct gtr *g);

#ifdef __cplusplus
}
#endif

#endif /* TRAIN_GPU_H */
