/**
 * @file train_gpu.c
 * @brief Lesson 13: the trainer's CUDA path: replicas, streams, the step on the GPU.
 *
 * One step of one replica, all on the replica's stream:
 *   gather      the shard's samples (indices uploaded, pixels already on the GPU)
 *   forward     per layer: GEMM  Y = X W^T, then bias + ReLU fused
 *   loss        the softmax of the logits by lesson 11's softmax_online (linked from
 *               11_solution), then cross-entropy and dLoss/dlogits fused, a warp per row
 *   backward    per layer, top down: bias grad + ReLU mask fused, then two GEMMs
 *               dW = dY^T X and dX = dY W
 * then the all-reduce of the gradients and the optimizer update, one kernel over every
 * parameter. The backward is issued layer by layer for all replicas together. Without
 * --overlap one all-reduce runs on replica 0's stream after an event from every replica's
 * stream, and every replica waits for it: the only point where replicas meet. With --overlap
 * each layer's gradient is a bucket: its all-reduce is issued on a separate comm stream right
 * after every replica's kernels for that layer, behind their events, so it runs while the
 * backward of the layers below goes on (what PyTorch DDP does with its buckets). The reduction
 * is the same elementwise sum in the same replica order, so the weights are the same bit for
 * bit. --gemm warptile runs lesson 05's GEMM, which takes no transposes: the transposed
 * operand goes through gpu_transpose first. Mixed precision (bf16,
 * fp16) keeps fp32 master weights and fp32 GEMM outputs; the GEMMs read 16-bit copies of weights,
 * inputs and gradients, and fp16 scales the loss with lesson 09's dynamic loss scaler
 * (loss_scale.h, linked from 09_solution).
 */
#include "train_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "fused_attention.h"
#include "loss_scale.h"
#include "mat.h"
#include "warp_level.h"

struct replica {
    cudaStream_t stream;
    cudaEvent_t grads_ready;                     /* recorded after this replica's backward */
    cudaEvent_t layer_ready[MLP_MAX_LAYERS + 1]; /* --overlap: after layer k's gradient */
    float *d_params, *d_grads, *d_state;         /* P, P and S floats */
    void *d_params_lo;                           /* P 16-bit weights (mixed precision), or NULL */
    int *d_idx;                                  /* local_B sample indices */
    uint8_t *d_y;                                /* local_B labels */
    float *d_x;                                  /* local_B x 784 inputs */
    void *d_x_lo;                                /* their 16-bit copy, or NULL */
    float *d_acts;         /* local_B x activation count: every layer's output */
    void *d_acts_lo;       /* their 16-bit copy, or NULL */
    float *d_delta[2];     /* local_B x widest: this layer's and the next delta */
    void *d_delta_lo;      /* the 16-bit copy of the current delta, or NULL */
    float *d_loss;         /* [0] loss sum, [1] correct count */
    cudaEvent_t legacy[2]; /* softmax_online's order against stream (legacy_waits_for()) */
    float *d_t;            /* --gemm warptile: a transposed GEMM operand, or NULL */
};

struct gtr {
    const struct train_config *t;
    struct mlp_shape s;
    struct comm *c;
    int nloc, B, wmax;
    size_t P, S, A;
    enum gpu_dtype lo;
    size_t lo_size;    /* bytes per 16-bit element, 0 in fp32 */
    uint8_t *d_images; /* the training set on the device */
    uint8_t *d_labels;
    int *d_perm; /* the epoch's order of the training samples */
    struct replica *rep;
    float **h_grad_ptrs;      /* each replica's d_grads (host array) */
    float **d_grad_ptrs;      /* the same array on the device, for the all-reduce kernel */
    float *h_staging;         /* pinned P floats: mpi's copy through the host */
    cudaEvent_t reduced;      /* recorded after the all-reduce */
    int overlap;              /* all-reduce each layer as soon as its gradient is ready */
    int plain;                /* the GEMM takes no transposes (lesson 05's) */
    cudaStream_t comm_stream; /* --overlap: where the all-reduces run */
    float **h_layer_ptrs[MLP_MAX_LAYERS + 1]; /* layer k's slice of each d_grads (host) */
    float **d_layer_ptrs[MLP_MAX_LAYERS + 1]; /* the same arrays on the device */
    int *d_overflow;                          /* fp16: any inf/nan gradient */
    struct loss_scale scaler;
};

static void *dmalloc(size_t bytes)
{
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

/* Lesson 05's GEMM and lesson 11's softmax take no stream: they launch on the legacy stream (0),
 * which does not wait for the trainer's non-blocking streams. legacy_waits_for() makes it wait
 * for what @p s holds so far (through event @p ev[0]), waits_for_legacy() makes @p s wait for
 * what was launched on it since (through @p ev[1]). */
static void legacy_waits_for(cudaStream_t s, cudaEvent_t ev[2])
{
    CUDA_CHECK(cudaEventRecord(ev[0], s));
    CUDA_CHECK(cudaStreamWaitEvent(0, ev[0], 0));
}

static void waits_for_legacy(cudaStream_t s, cudaEvent_t ev[2])
{
    CUDA_CHECK(cudaEventRecord(ev[1], 0));
    CUDA_CHECK(cudaStreamWaitEvent(s, ev[1], 0));
}

/* [0]: the caller's stream reached the GEMM; [1]: the GEMM is done. Made on first use. */
static cudaEvent_t warptile_events[2];

void gpu_gemm_warptile(int ta, int tb, int M, int N, int K, float alpha, const void *A, int lda,
                       const void *B, int ldb, float beta, float *C, int ldc, enum gpu_dtype ab,
                       void *stream)
{
    if (ta || tb || alpha != 1.0f || beta != 0.0f || ab != GPU_F32 || lda != K || ldb != N ||
        ldc != N) {
        fprintf(stderr,
                "gpu_gemm_warptile: C = A B of packed floats only, not ta=%d tb=%d alpha=%g "
                "beta=%g dtype %d lda=%d ldb=%d ldc=%d at %d x %d x %d\n",
                ta, tb, alpha, beta, (int)ab, lda, ldb, ldc, M, N, K);
        abort();
    }
    for (int i = 0; i < 2 && !warptile_events[i]; i++)
        CUDA_CHECK(cudaEventCreateWithFlags(&warptile_events[i], cudaEventDisableTiming));
    legacy_waits_for((cudaStream_t)stream, warptile_events);
    matmul_warptile(M, N, K, (const float *)A, (const float *)B, C);
    waits_for_legacy((cudaStream_t)stream, warptile_events);
}

void gpu_gemm_warptile_release(void)
{
    for (int i = 0; i < 2; i++)
        if (warptile_events[i]) {
            CUDA_CHECK(cudaEventDestroy(warptile_events[i]));
            warptile_events[i] = NULL;
        }
}

/* Element @p i of a buffer of 16-bit (lo_size 2) or float elements. */
static void *lo_at(const struct gtr *g, void *base, size_t i)
{
    return base ? (char *)base + i * g->lo_size : NULL;
}

/* Floats of a transposed operand: the largest weight matrix, or @p B rows of the widest layer. */
static size_t plain_scratch(const struct mlp_shape *s, int B)
{
    size_t most = 0;
    for (int l = 0; l < s->layers; l++) {
        size_t w = (size_t)s->dims[l + 1] * s->dims[l];
        size_t d = (size_t)B * s->dims[l + 1];
        most = w > most ? w : most;
        most = d > most ? d : most;
    }
    return most;
}

struct gtr *gtr_create(const struct train_config *t, const struct mlp_shape *s, struct comm *c,
                       const struct idx_set *train, float *const *params, const float *state,
                       int local_B)
{
    struct gtr *g = mat_alloc(sizeof *g);
    memset(g, 0, sizeof *g);
    g->t = t;
    g->s = *s;
    g->c = c;
    g->nloc = c->nlocal;
    g->B = local_B;
    g->P = mlp_param_count(s);
    g->S = g->P * (size_t)opt_state_per_param(t->opt.kind);
    g->A = mlp_activation_count(s);
    g->lo = (enum gpu_dtype)t->precision;
    g->lo_size = g->lo == GPU_F32 ? 0 : 2;
    g->plain = t->gemm == gpu_gemm_warptile;
    for (int l = 0; l <= s->layers; l++)
        g->wmax = s->dims[l] > g->wmax ? s->dims[l] : g->wmax;
    if (c->backend == COMM_MPI) {
        /* Ranks of a node share its GPUs round robin (several ranks may share one). */
        const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
        lr = lr ? lr : getenv("SLURM_LOCALID");
        int ndev = 0;
        CUDA_CHECK(cudaGetDeviceCount(&ndev));
        CUDA_CHECK(cudaSetDevice((lr ? atoi(lr) : c->proc_rank) % ndev));
    }
    size_t px = (size_t)train->n * 784;
    g->d_images = dmalloc(px);
    g->d_labels = dmalloc((size_t)train->n);
    CUDA_CHECK(cudaMemcpy(g->d_images, train->images, px, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(g->d_labels, train->labels, (size_t)train->n, cudaMemcpyHostToDevice));
    g->d_perm = dmalloc((size_t)train->n * sizeof(int));

    g->rep = mat_alloc((size_t)g->nloc * sizeof *g->rep);
    memset(g->rep, 0, (size_t)g->nloc * sizeof *g->rep); /* the 16-bit copies stay NULL in fp32 */
    g->h_grad_ptrs = mat_alloc((size_t)g->nloc * sizeof *g->h_grad_ptrs);
    for (int l = 0; l < g->nloc; l++) {
        struct replica *r = &g->rep[l];
        CUDA_CHECK(cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&r->grads_ready, cudaEventDisableTiming));
        for (int i = 0; i < 2; i++)
            CUDA_CHECK(cudaEventCreateWithFlags(&r->legacy[i], cudaEventDisableTiming));
        r->d_params = dmalloc(g->P * sizeof(float));
        r->d_grads = dmalloc(g->P * sizeof(float));
        r->d_state = dmalloc(g->S * sizeof(float));
        CUDA_CHECK(
            cudaMemcpy(r->d_params, params[l], g->P * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(r->d_state, state, g->S * sizeof(float), cudaMemcpyHostToDevice));
        r->d_idx = dmalloc((size_t)local_B * sizeof(int));
        r->d_y = dmalloc((size_t)local_B);
        r->d_x = dmalloc((size_t)local_B * 784 * sizeof(float));
        r->d_acts = dmalloc((size_t)local_B * g->A * sizeof(float));
        r->d_delta[0] = dmalloc((size_t)local_B * g->wmax * sizeof(float));
        r->d_delta[1] = dmalloc((size_t)local_B * g->wmax * sizeof(float));
        /* NaN: a gradient the backward forgets to write poisons the weights visibly. */
        mat_poison_device(r->d_delta[0], (size_t)local_B * g->wmax * sizeof(float));
        mat_poison_device(r->d_delta[1], (size_t)local_B * g->wmax * sizeof(float));
        r->d_loss = dmalloc(2 * sizeof(float));
        CUDA_CHECK(cudaMemset(r->d_loss, 0, 2 * sizeof(float)));
        if (g->lo_size) {
            r->d_params_lo = dmalloc(g->P * g->lo_size);
            r->d_x_lo = dmalloc((size_t)local_B * 784 * g->lo_size);
            r->d_acts_lo = dmalloc((size_t)local_B * g->A * g->lo_size);
            r->d_delta_lo = dmalloc((size_t)local_B * g->wmax * g->lo_size);
        }
        if (g->plain)
            r->d_t = dmalloc(plain_scratch(s, local_B) * sizeof(float));
        g->h_grad_ptrs[l] = r->d_grads;
    }
    g->d_grad_ptrs = dmalloc((size_t)g->nloc * sizeof(float *));
    CUDA_CHECK(cudaMemcpy(g->d_grad_ptrs, g->h_grad_ptrs, (size_t)g->nloc * sizeof(float *),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMallocHost((void **)&g->h_staging, g->P * sizeof(float)));
    CUDA_CHECK(cudaEventCreateWithFlags(&g->reduced, cudaEventDisableTiming));
    g->overlap = t->overlap;
    if (g->overlap) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&g->comm_stream, cudaStreamNonBlocking));
        for (int k = 0; k < s->layers; k++) {
            size_t off = mlp_weight_offset(s, k);
            g->h_layer_ptrs[k] = mat_alloc((size_t)g->nloc * sizeof(float *));
            for (int l = 0; l < g->nloc; l++) {
                g->h_layer_ptrs[k][l] = g->rep[l].d_grads + off;
                CUDA_CHECK(
                    cudaEventCreateWithFlags(&g->rep[l].layer_ready[k], cudaEventDisableTiming));
            }
            g->d_layer_ptrs[k] = dmalloc((size_t)g->nloc * sizeof(float *));
            CUDA_CHECK(cudaMemcpy(g->d_layer_ptrs[k], g->h_layer_ptrs[k],
                                  (size_t)g->nloc * sizeof(float *), cudaMemcpyHostToDevice));
        }
    }
    g->d_overflow = dmalloc(sizeof(int));
    loss_scale_init(&g->scaler, 65536.0f, 2000);
    CUDA_CHECK(cudaDeviceSynchronize());
    return g;
}

/* Where layer @p l's output starts in a replica's activations (B rows per layer). */
static size_t act_offset(const struct mlp_shape *s, int B, int l)
{
    size_t off = 0;
    for (int k = 0; k < l; k++)
        off += (size_t)B * s->dims[k + 1];
    return off;
}

/*
 * C (M x N) = op(A) op(B) on replica @p r's stream through the run's GEMM, all three packed
 * (lda, ldb, ldc follow from the shapes), at most one of @p ta, @p tb set. A GEMM without
 * transposes (lesson 05's) gets the transposed operand through gpu_transpose into r->d_t.
 */
static void layer_gemm(struct gtr *g, struct replica *r, int ta, int tb, int M, int N, int K,
                       const void *A, const void *B, float *C)
{
    if (g->plain && ta) { /* A is stored K x M */
        gpu_transpose(A, r->d_t, K, M, r->stream);
        A = r->d_t, ta = 0;
    } else if (g->plain && tb) { /* B is stored N x K */
        gpu_transpose(B, r->d_t, N, K, r->stream);
        B = r->d_t, tb = 0;
    }
    enum gpu_dtype ab = g->lo_size ? g->lo : GPU_F32;
    g->t->gemm(ta, tb, M, N, K, 1.0f, A, ta ? M : K, B, tb ? K : N, 0.0f, C, N, ab, r->stream);
}

/* Forward pass of replica @p r over its d_x (B rows); returns the logits. */
static float *forward(struct gtr *g, struct replica *r, int B)
{
    const struct mlp_shape *s = &g->s;
    if (g->lo_size)
        gpu_convert(r->d_params, r->d_params_lo, g->lo, g->P, r->stream);
    const void *in = g->lo_size ? r->d_x_lo : (const void *)r->d_x;
    size_t act_off = 0;
    float *out = r->d_acts;
    for (int l = 0; l < s->layers; l++) {
        int din = s->dims[l], dout = s->dims[l + 1];
        size_t w = mlp_weight_offset(s, l);
        const void *W = g->lo_size ? lo_at(g, r->d_params_lo, w) : (const void *)(r->d_params + w);
        out = r->d_acts + act_off;
        /* Y (B x dout) = X (B x din) * W^T, W stored dout x din. */
        layer_gemm(g, r, 0, 1, B, dout, din, in, W, out);
        void *out_lo = lo_at(g, r->d_acts_lo, act_off);
        gpu_bias_act(out, r->d_params + w + (size_t)dout * din, B, dout, l + 1 < s->layers, out_lo,
                     g->lo, r->stream);
        in = g->lo_size ? (const void *)out_lo : (const void *)out;
        act_off += (size_t)B * dout;
    }
    return out;
}

/* The delta of layer @p l's output (B x dims[l + 1]): layers alternate between two buffers. */
static float *delta_of(struct replica *r, int l)
{
    return r->d_delta[l & 1];
}

/* The loss of @p B rows of @p logits on replica @p r: their softmax by lesson 11's
 * softmax_online, on the legacy stream in @p r's order, into @p probs, then the cross-entropy
 * from it (the loss and the right answers into r->d_loss) and dLoss/dlogits, times @p scale,
 * into @p dlogits. */
static void loss(struct gtr *g, struct replica *r, const float *logits, int B, float scale,
                 float *probs, float *dlogits)
{
    int C = g->s.dims[g->s.layers];
    legacy_waits_for(r->stream, r->legacy);
    softmax_online(B, C, logits, probs);
    waits_for_legacy(r->stream, r->legacy);
    gpu_xent(probs, r->d_y, B, C, scale, dlogits, r->d_loss, r->stream);
}

/* Gather, forward and loss of replica @p r: the top layer's delta is dLoss/dlogits. */
static void forward_loss(struct gtr *g, struct replica *r, size_t shard_at)
{
    int L = g->s.layers;
    gpu_gather(g->d_images, g->d_labels, g->d_perm + shard_at, g->B, 784, IDX_PIXEL_MEAN,
               IDX_PIXEL_STD, r->d_x, r->d_x_lo, g->lo, r->d_y, r->stream);
    float *logits = forward(g, r, g->B);
    float scale = g->lo == GPU_F16 ? g->scaler.scale : 1.0f;
    /* the probabilities in the delta buffer the backward writes only after the loss */
    loss(g, r, logits, g->B, scale, delta_of(r, L), delta_of(r, L - 1));
}

/*
 * Layer @p l's gradient on replica @p r, from its delta dLoss/d(output), B x dout: for a
 * hidden layer the ReLU mask, fused with db = the delta's column sums (and the 16-bit copy the
 * GEMMs read), then dW = dY^T X. With --overlap, records r->layer_ready[l]: the gradient is
 * final and its bucket's all-reduce may start.
 */
static void layer_gradient(struct gtr *g, struct replica *r, int l)
{
    const struct mlp_shape *s = &g->s;
    int B = g->B, din = s->dims[l], dout = s->dims[l + 1], hidden = l + 1 < s->layers;
    size_t w = mlp_weight_offset(s, l);
    float *dW = r->d_grads + w, *db = dW + (size_t)dout * din, *delta = delta_of(r, l);
    gpu_bias_act_backward(delta, hidden ? r->d_acts + act_offset(s, B, l) : NULL, B, dout, hidden,
                          db, r->d_delta_lo, g->lo, r->stream);
    const void *dY = g->lo_size ? r->d_delta_lo : (const void *)delta;
    const void *X; /* this layer's input, B x din: the images or layer l - 1's output */
    if (l == 0) {
        X = g->lo_size ? r->d_x_lo : (const void *)r->d_x;
    } else {
        size_t off = act_offset(s, B, l - 1);
        X = g->lo_size ? lo_at(g, r->d_acts_lo, off) : (const void *)(r->d_acts + off);
    }
    layer_gemm(g, r, 1, 0, dout, din, B, dY, X, dW); /* dW (dout x din) = dY^T X */
    if (g->overlap)
        CUDA_CHECK(cudaEventRecord(r->layer_ready[l], r->stream));
}

/* Replica @p r's delta for layer @p l - 1 (B x din) = dY W: dLoss/d(layer l - 1's output). */
static void layer_propagate(struct gtr *g, struct replica *r, int l)
{
    const struct mlp_shape *s = &g->s;
    int din = s->dims[l], dout = s->dims[l + 1];
    size_t w = mlp_weight_offset(s, l);
    const void *dY = g->lo_size ? r->d_delta_lo : (const void *)delta_of(r, l);
    const void *W = g->lo_size ? lo_at(g, r->d_params_lo, w) : (const void *)(r->d_params + w);
    layer_gemm(g, r, 0, 0, g->B, din, dout, dY, W, delta_of(r, l - 1));
}

/* --overlap: layer @p l's bucket all-reduced on the comm stream, behind every replica's
 * layer_ready[l], so it runs while their streams go on with the layers below. */
static void bucket_allreduce(struct gtr *g, int l)
{
    size_t off = mlp_weight_offset(&g->s, l), n = mlp_weight_offset(&g->s, l + 1) - off;
    for (int k = 0; k < g->nloc; k++)
        CUDA_CHECK(cudaStreamWaitEvent(g->comm_stream, g->rep[k].layer_ready[l], 0));
    comm_allreduce_mean_device(g->c, g->h_layer_ptrs[l], (float *const *)g->d_layer_ptrs[l], n,
                               g->h_staging + off, g->comm_stream);
}

/* Every replica's backward, top layer first; each layer's kernels are issued for all replicas
 * before the next, so a bucket's all-reduce is issued as soon as its gradients are. */
static void backward(struct gtr *g)
{
    for (int l = g->s.layers - 1; l >= 0; l--) {
        for (int k = 0; k < g->nloc; k++)
            layer_gradient(g, &g->rep[k], l);
        if (g->overlap)
            bucket_allreduce(g, l);
        for (int k = 0; l > 0 && k < g->nloc; k++)
            layer_propagate(g, &g->rep[k], l);
    }
}

void gtr_epoch(struct gtr *g, const int *perm, int n)
{
    /* Once per epoch: wait until the last epoch's gathers have read the old order. */
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(g->d_perm, perm, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    /* A cudaMemcpy from pageable memory may return before its DMA has landed, and the replicas'
     * non-blocking streams do not wait for the legacy stream it ran on: wait for it here. */
    CUDA_CHECK(cudaDeviceSynchronize());
}

void gtr_step(struct gtr *g, const size_t *shard_at, long long step)
{
    /* No copy per step: the shards' indices are already on the device. */
    for (int l = 0; l < g->nloc; l++)
        forward_loss(g, &g->rep[l], shard_at[l]);
    backward(g);
    for (int l = 0; l < g->nloc; l++)
        CUDA_CHECK(cudaEventRecord(g->rep[l].grads_ready, g->rep[l].stream));
    cudaStream_t s0 = g->rep[0].stream;
    if (!g->overlap) {
        /* One all-reduce on replica 0's stream once every replica's gradient is ready. */
        for (int l = 1; l < g->nloc; l++)
            CUDA_CHECK(cudaStreamWaitEvent(s0, g->rep[l].grads_ready, 0));
        comm_allreduce_mean_device(g->c, g->h_grad_ptrs, (float *const *)g->d_grad_ptrs, g->P,
                                   g->h_staging, s0);
        CUDA_CHECK(cudaEventRecord(g->reduced, s0));
    } else { /* the buckets' all-reduces are issued: the last one done is all of them */
        CUDA_CHECK(cudaEventRecord(g->reduced, g->comm_stream));
        CUDA_CHECK(cudaStreamWaitEvent(s0, g->reduced, 0));
    }
    int apply = 1;
    if (g->lo == GPU_F16) {
        /* Every replica and rank holds the same averaged gradient, so all decide alike. */
        CUDA_CHECK(cudaMemsetAsync(g->d_overflow, 0, sizeof(int), s0));
        for (int l = 0; l < g->nloc; l++)
            gpu_scale_check(g->rep[l].d_grads, g->P, 1.0f / g->scaler.scale,
                            l == 0 ? g->d_overflow : NULL, s0);
        int overflow = 0;
        CUDA_CHECK(
            cudaMemcpyAsync(&overflow, g->d_overflow, sizeof(int), cudaMemcpyDeviceToHost, s0));
        CUDA_CHECK(cudaStreamSynchronize(s0));
        apply = loss_scale_update(&g->scaler, !overflow);
        CUDA_CHECK(cudaEventRecord(g->reduced, s0));
    }
    for (int l = 0; l < g->nloc; l++) {
        struct replica *r = &g->rep[l];
        if (l > 0 || g->overlap)
            CUDA_CHECK(cudaStreamWaitEvent(r->stream, g->reduced, 0));
        if (apply)
            gpu_opt_step(&g->t->opt, r->d_params, r->d_grads, r->d_state, g->P, step, r->stream);
    }
}

void gtr_metrics(struct gtr *g, double *loss_sum, long long *right)
{
    for (int l = 0; l < g->nloc; l++) {
        float h[2];
        CUDA_CHECK(cudaMemcpyAsync(h, g->rep[l].d_loss, sizeof h, cudaMemcpyDeviceToHost,
                                   g->rep[l].stream));
        CUDA_CHECK(cudaStreamSynchronize(g->rep[l].stream));
        CUDA_CHECK(cudaMemsetAsync(g->rep[l].d_loss, 0, sizeof h, g->rep[l].stream));
        *loss_sum += h[0];
        *right += (long long)h[1];
    }
}

void gtr_download(struct gtr *g, int local, float *params, float *state)
{
    struct replica *r = &g->rep[local];
    CUDA_CHECK(cudaStreamSynchronize(r->stream));
    CUDA_CHECK(cudaMemcpy(params, r->d_params, g->P * sizeof(float), cudaMemcpyDeviceToHost));
    if (state)
        CUDA_CHECK(cudaMemcpy(state, r->d_state, g->S * sizeof(float), cudaMemcpyDeviceToHost));
}

int gtr_evaluate(struct gtr *g, const struct idx_set *set, int n)
{
    struct replica *r = &g->rep[0];
    CUDA_CHECK(cudaDeviceSynchronize());
    uint8_t *d_images = dmalloc((size_t)n * 784), *d_labels = dmalloc((size_t)n);
    CUDA_CHECK(cudaMemcpy(d_images, set->images, (size_t)n * 784, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_labels, set->labels, (size_t)n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize()); /* the copies have landed before r->stream's gathers */
    int *idx = mat_alloc((size_t)g->B * sizeof *idx);
    CUDA_CHECK(cudaMemsetAsync(r->d_loss, 0, 2 * sizeof(float), r->stream));
    for (int at = 0; at < n; at += g->B) {
        int B = n - at < g->B ? n - at : g->B;
        for (int i = 0; i < B; i++)
            idx[i] = at + i;
        CUDA_CHECK(cudaMemcpyAsync(r->d_idx, idx, (size_t)B * sizeof(int), cudaMemcpyHostToDevice,
                                   r->stream));
        gpu_gather(d_images, d_labels, r->d_idx, B, 784, IDX_PIXEL_MEAN, IDX_PIXEL_STD, r->d_x,
                   r->d_x_lo, g->lo, r->d_y, r->stream);
        float *logits = forward(g, r, B);
        loss(g, r, logits, B, 1.0f, r->d_delta[1], r->d_delta[0]);
    }
    float h[2];
    CUDA_CHECK(cudaMemcpyAsync(h, r->d_loss, sizeof h, cudaMemcpyDeviceToHost, r->stream));
    CUDA_CHECK(cudaStreamSynchronize(r->stream));
    CUDA_CHECK(cudaMemsetAsync(r->d_loss, 0, sizeof h, r->stream));
    CUDA_CHECK(cudaFree(d_images));
    CUDA_CHECK(cudaFree(d_labels));
    free(idx);
    return (int)h[1];
}

void gtr_destroy(struct gtr *g)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int l = 0; l < g->nloc; l++) {
        struct replica *r = &g->rep[l];
        void *bufs[] = {r->d_params,   r->d_grads,    r->d_state,    r->d_params_lo, r->d_idx,
                        r->d_y,        r->d_x,        r->d_x_lo,     r->d_acts,      r->d_acts_lo,
                        r->d_delta[0], r->d_delta[1], r->d_delta_lo, r->d_loss,      r->d_t};
        for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
            CUDA_CHECK(cudaFree(bufs[i]));
        CUDA_CHECK(cudaEventDestroy(r->grads_ready));
        for (int i = 0; i < 2; i++)
            CUDA_CHECK(cudaEventDestroy(r->legacy[i]));
        for (int k = 0; g->overlap && k < g->s.layers; k++)
            CUDA_CHECK(cudaEventDestroy(r->layer_ready[k]));
        CUDA_CHECK(cudaStreamDestroy(r->stream));
    }
    CUDA_CHECK(cudaFree(g->d_images));
    CUDA_CHECK(cudaFree(g->d_labels));
    CUDA_CHECK(cudaFree(g->d_perm));
    CUDA_CHECK(cudaFree(g->d_grad_ptrs));
    CUDA_CHECK(cudaFree(g->d_overflow));
    CUDA_CHECK(cudaFreeHost(g->h_staging));
    CUDA_CHECK(cudaEventDestroy(g->reduced));
    for (int k = 0; g->overlap && k < g->s.layers; k++) {
        free(g->h_layer_ptrs[k]);
        CUDA_CHECK(cudaFree(g->d_layer_ptrs[k]));
    }
    if (g->overlap)
        CUDA_CHECK(cudaStreamDestroy(g->comm_stream));
    free(g->rep);
    free(g->h_grad_ptrs);
    free(g);
}
