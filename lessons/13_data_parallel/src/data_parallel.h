/**
 * @file data_parallel.h
 * @brief Lesson 13: a data-parallel MLP trainer on Fashion-MNIST.
 *
 * Modules, one prefix each:
 *   idx_    the IDX (.gz) loader, with one-line errors that name the file
 *   mlp_    the model on the CPU: init, forward, backward (the oracle)
 *   opt_    SGD with momentum and AdamW on the CPU
 *   comm_   the communication interface: self, mpi, nccl, local
 *   ckpt_   checkpoints: atomic write, FNV-64 checksum, strict load
 *   gpu_    the CUDA compute path: kernels and launchers (data_parallel.cu)
 *   train_  the training loop that ties them together (train.c)
 *
 * Parameters live in one flat float array, layer after layer: W_l (out x in,
 * row-major, as PyTorch stores nn.Linear) then b_l (out). Gradients and
 * optimizer state use the same layout, so one all-reduce moves every gradient.
 */
#ifndef DATA_PARALLEL_H
#define DATA_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- idx_: the data -------------------------------------------------------------- */

/** Images and labels of one split, as bytes. */
struct idx_set {
    int n;           /**< number of samples */
    int rows;        /**< image rows (28) */
    int cols;        /**< image columns (28) */
    uint8_t *images; /**< n x rows x cols pixels, 0..255 */
    uint8_t *labels; /**< n labels, 0..9 */
};

/**
 * Load @p images_path (IDX3, magic 2051) and @p labels_path (IDX1, magic 2049),
 * gzip-compressed or not. Checks magic numbers, that both hold the same count,
 * that the payload has exactly the length the header announces, and that
 * labels are below 10. Returns 0, or -1 with "FILE: why" in @p err.
 */
int idx_load(const char *images_path, const char *labels_path, struct idx_set *set, char *err,
             size_t err_size);

/** Load split @p split ("train" or "t10k") from @p dir, named as the dataset ships it. */
int idx_load_split(const char *dir, const char *split, struct idx_set *set, char *err,
                   size_t err_size);

/** Release what idx_load() allocated. */
void idx_free(struct idx_set *set);

/** Fashion-MNIST's pixel mean over the training set (pixels scaled to [0, 1]). */
#define IDX_PIXEL_MEAN 0.2860f
/** Fashion-MNIST's pixel standard deviation over the training set. */
#define IDX_PIXEL_STD 0.3530f

/* ---- mlp_: the model on the CPU --------------------------------------------------- */

/** Most hidden layers a model may have. */
#define MLP_MAX_LAYERS 8

/** The shape of an MLP: dims[0] inputs, dims[layers] outputs. */
struct mlp_shape {
    int layers;                   /**< linear layers (hidden layers + 1) */
    int dims[MLP_MAX_LAYERS + 2]; /**< widths: input, hidden..., output */
};

/**
 * Parse @p hidden ("256,256", or "" for none) into @p s with @p in inputs and
 * @p out outputs. Returns 0, or -1 when a width is not in [1, 65536] or there
 * are too many.
 */
int mlp_shape_parse(struct mlp_shape *s, int in, const char *hidden, int out);

/** Parameters of @p s: sum of out * in + out over the layers. */
size_t mlp_param_count(const struct mlp_shape *s);

/** Offset of layer @p l's weights in the flat array; its bias follows them. */
size_t mlp_weight_offset(const struct mlp_shape *s, int l);

/** Activations per sample that a forward pass keeps for the backward (every layer's output). */
size_t mlp_activation_count(const struct mlp_shape *s);

/**
 * He-uniform init, deterministic in @p seed: W ~ U(-sqrt(6 / in), sqrt(6 / in)),
 * b = 0.
 */
void mlp_init(const struct mlp_shape *s, float *params, uint64_t seed);

/**
 * Forward pass of @p B samples @p x (B x dims[0]). @p acts receives every
 * layer's output (B x mlp_activation_count() floats; hidden layers after
 * ReLU, the last layer the logits). Returns a pointer to the logits in @p acts.
 */
float *mlp_forward(const struct mlp_shape *s, const float *params, const float *x, int B,
                   float *acts);

/**
 * Mean softmax cross-entropy of @p logits (B x C) against @p labels, and its
 * gradient with respect to the logits into @p dlogits (may be NULL):
 * (softmax - onehot) / B. Returns the mean loss; @p correct (may be NULL)
 * receives how many argmaxes equal the label.
 */
float mlp_softmax_xent(const float *logits, const uint8_t *labels, int B, int C, float *dlogits,
                       int *correct);

/**
 * One forward and backward pass: @p grads (mlp_param_count() floats) receives
 * the gradient of the mean loss over the @p B samples. @p work holds
 * B x (mlp_activation_count() + 2 * widest layer) floats. Returns the mean loss.
 */
float mlp_loss_grad(const struct mlp_shape *s, const float *params, const float *x,
                    const uint8_t *labels, int B, float *grads, float *work, int *correct);

/** Floats of work mlp_loss_grad() needs for @p B samples. */
size_t mlp_work_count(const struct mlp_shape *s, int B);

/* ---- opt_: optimizers ------------------------------------------------------------- */

/** Which optimizer. */
enum opt_kind {
    OPT_SGD = 0,  /**< SGD with momentum (heavy ball, PyTorch's form) */
    OPT_ADAMW = 1 /**< Adam with decoupled weight decay */
};

/** Optimizer settings. */
struct opt_config {
    enum opt_kind kind; /**< SGD or AdamW */
    float lr;           /**< learning rate */
    float momentum;     /**< SGD momentum (0 for plain SGD) */
    float beta1;        /**< AdamW first-moment decay */
    float beta2;        /**< AdamW second-moment decay */
    float eps;          /**< AdamW denominator guard */
    float weight_decay; /**< SGD: L2 added to the gradient; AdamW: decoupled decay */
};

/** Floats of optimizer state per parameter: 1 (SGD velocity) or 2 (AdamW m and v). */
int opt_state_per_param(enum opt_kind kind);

/**
 * One update of @p n parameters from @p grads. @p state holds
 * opt_state_per_param() * n floats (zero before the first step); @p step
 * counts updates from 1 (AdamW's bias correction needs it).
 */
void opt_step(const struct opt_config *o, float *params, const float *grads, float *state, size_t n,
              long long step);

/* ---- comm_: communication between replicas ----------------------------------------- */

/** Which way replicas talk. */
enum comm_backend {
    COMM_SELF = 0, /**< one replica, nothing to talk to */
    COMM_MPI = 1,  /**< one replica per process, host buffers through MPI_Allreduce */
    COMM_NCCL = 2, /**< one replica per process and GPU, device buffers through NCCL */
    COMM_LOCAL = 3 /**< several replicas in one process on one GPU, the course's kernel */
};

/** A deliberate bug, to show what the equivalence test catches. */
enum comm_bug {
    COMM_BUG_NONE = 0,     /**< no bug */
    COMM_BUG_SUM = 1,      /**< sum the gradients instead of averaging them */
    COMM_BUG_NOBCAST = 2,  /**< skip the broadcast of rank 0's initial weights */
    COMM_BUG_SAMESHARD = 3 /**< every replica reads shard 0 of each batch */
};

/** A communicator: which replicas this process holds, and how to reach the others. */
struct comm {
    enum comm_backend backend; /**< the backend */
    int size;                  /**< replicas in all (processes x local replicas) */
    int nlocal;                /**< replicas this process holds (local: N; else 1) */
    int proc_rank;             /**< this process's rank (0 without MPI) */
    int proc_size;             /**< processes (1 without MPI) */
    enum comm_bug bug;         /**< injected bug, COMM_BUG_NONE normally */
    void *impl;                /**< backend state (the NCCL communicator) */
};

/**
 * Start @p backend. mpi and nccl call MPI_Init (@p argc, @p argv may be NULL);
 * local holds @p nlocal replicas. Returns 0, or -1 with a one-line reason in
 * @p err (e.g. the backend was not compiled in).
 */
int comm_init(struct comm *c, enum comm_backend backend, int nlocal, char *err, size_t err_size);

/** Whether @p backend was compiled in (mpi needs MPI; nccl needs NCCL and MPI). */
int comm_available(enum comm_backend backend);

/** Whether this process was started by mpirun or srun (an MPI launcher's variables are set). */
int comm_launched_by_mpi(void);

/** Replica number of this process's local replica @p local (0 .. size - 1). */
int comm_replica(const struct comm *c, int local);

/**
 * Average @p n floats of host memory over the processes, in place: each
 * process's @p buf becomes the mean of all of them (MPI_Allreduce, then
 * divide by the number of processes). With one process, nothing to do.
 */
void comm_allreduce_mean_host(struct comm *c, float *buf, size_t n);

/** Copy rank 0's @p n floats of host memory into every process's @p buf. */
void comm_broadcast_host(struct comm *c, float *buf, size_t n);

/**
 * Average gradients that live on the GPU, on @p stream. @p d_bufs (host array)
 * and @p d_bufs_dev (the same pointers in device memory) name each local
 * replica's @p n floats. mpi copies through @p h_staging (n floats of host
 * memory); nccl reduces in place on the device; local runs gpu_allreduce_mean().
 */
void comm_allreduce_mean_device(struct comm *c, float *const *d_bufs, float *const *d_bufs_dev,
                                size_t n, float *h_staging, void *stream);

/** Sum of @p x over the processes (metrics). */
double comm_sum_f64(struct comm *c, double x);

/** Largest @p x over the processes (a stop flag every rank must agree on). */
int comm_max_int(struct comm *c, int x);

/** Whether every process passed the same @p x (checks that replicas stayed in sync). */
int comm_all_equal_u64(struct comm *c, uint64_t x);

/** Finalize MPI (and NCCL) if comm_init started them. */
void comm_finalize(struct comm *c);

/* ---- ckpt_: checkpoints ----------------------------------------------------------- */

/** Everything a resumed run needs to continue bit for bit. */
struct ckpt {
    struct mlp_shape shape; /**< the model's shape */
    int opt_kind;           /**< enum opt_kind */
    int batch;              /**< global batch size */
    int n_train;            /**< training samples used per epoch */
    long long step;         /**< updates done */
    int epoch;              /**< current epoch (0-based) */
    int batch_in_epoch;     /**< next batch of the epoch to read */
    uint64_t rng_epoch;     /**< the shuffle generator's state at the start of the epoch */
    size_t n_params;        /**< floats in @ref params */
    size_t n_state;         /**< floats in @ref state */
    float *params;          /**< master weights */
    float *state;           /**< optimizer state */
};

/** FNV-1a 64 of @p n bytes, continuing from @p h (start with ckpt_fnv64_init). */
uint64_t ckpt_fnv64(uint64_t h, const void *p, size_t n);

/** FNV-1a 64's offset basis. */
#define CKPT_FNV64_INIT 0xcbf29ce484222325ULL

/**
 * Write @p c to @p path atomically: to "path.tmp", fflush, fsync, rename.
 * A crash at any point leaves the previous @p path intact. Returns 0, or -1
 * with a one-line reason in @p err.
 */
int ckpt_save(const char *path, const struct ckpt *c, char *err, size_t err_size);

/**
 * Read @p path into @p c, whose shape, opt_kind, batch, n_train, n_params and
 * n_state say what is expected, and whose params and state point to buffers
 * of that size. Rejects a wrong magic, a bad checksum, a short or long file and
 * any mismatch, without touching the file. Returns 0, or -1 with "FILE: why".
 */
int ckpt_load(const char *path, struct ckpt *c, char *err, size_t err_size);

/* ---- gpu_: the CUDA compute path (data_parallel.cu) ------------------------------- */

/** Element type of a GEMM's A and B (C is always float). */
enum gpu_dtype {
    GPU_F32 = 0,  /**< float */
    GPU_BF16 = 1, /**< bfloat16 */
    GPU_F16 = 2   /**< IEEE half */
};

/**
 * A row-major GEMM on @p stream: C = alpha * op(A) * op(B) + beta * C, with
 * op(A) M x K and op(B) K x N; op transposes when @p ta / @p tb is 1. A and B
 * are of type @p ab, C float; leading dimensions are those of the stored
 * (untransposed) matrices. The lesson's own is gpu_gemm_course; the driver
 * plugs cuBLAS in through the same signature (the library never calls cuBLAS).
 */
typedef void (*gpu_gemm_fn)(int ta, int tb, int M, int N, int K, float alpha, const void *A,
                            int lda, const void *B, int ldb, float beta, float *C, int ldc,
                            enum gpu_dtype ab, void *stream);

/** The course's GEMM: 32 x 32 shared-memory tiles, any sizes, any transposes and types. */
void gpu_gemm_course(int ta, int tb, int M, int N, int K, float alpha, const void *A, int lda,
                     const void *B, int ldb, float beta, float *C, int ldc, enum gpu_dtype ab,
                     void *stream);

/**
 * Lesson 05's matmul_warptile behind the gpu_gemm_fn signature (train_gpu.c): C = A B only (no
 * transposes, alpha 1, beta 0, packed floats: lda K, ldb N, ldc N); anything else aborts with a
 * line. Lesson 05's launcher takes no stream, so this one orders the legacy stream after @p stream
 * and @p stream after the GEMM with two events. The trainer gives it transposed operands
 * through gpu_transpose().
 */
void gpu_gemm_warptile(int ta, int tb, int M, int N, int K, float alpha, const void *A, int lda,
                       const void *B, int ldb, float beta, float *C, int ldc, enum gpu_dtype ab,
                       void *stream);

/** Free gpu_gemm_warptile()'s two events (the trainer's gemm_release). */
void gpu_gemm_warptile_release(void);

/** y (@p cols x @p rows) = x^T, x @p rows x @p cols, packed floats, on @p stream. */
void gpu_transpose(const float *x, float *y, int rows, int cols, void *stream);

/**
 * Fused bias + ReLU on @p stream: y = max(y + b, 0) (or y + b without ReLU)
 * for a B x N row-major @p y, bias @p b. When @p y_lo is not NULL, also write
 * y in type @p lo (the next GEMM's input in mixed precision).
 */
void gpu_bias_act(float *y, const float *b, int B, int N, int relu, void *y_lo, enum gpu_dtype lo,
                  void *stream);

/**
 * Cross-entropy and its gradient on @p stream, from the softmax @p probs of @p B rows of @p C >= 1
 * logits (row-major; the trainer has them from lesson 11's softmax_online) and their labels (each
 * below C): row r's gradient dLoss/dlogits = (p - onehot(label)) * @p scale / B into row r of
 * @p dlogits (another buffer), its loss -log max(p_label, FLT_MIN) added to @p loss_acc[0] (finite:
 * a label whose probability underflowed to 0 costs -log FLT_MIN = 87.34), and 1 added to
 * @p loss_acc[1] when its first largest probability is the label's. One warp per row in the
 * lesson's solution; the mapping is the student's choice (lesson 13's open task).
 */
void gpu_xent(const float *probs, const uint8_t *labels, int B, int C, float scale, float *dlogits,
              float *loss_acc, void *stream);

/**
 * Backward through ReLU and the bias on @p stream: dy *= (y > 0) when @p relu
 * (y is the layer's output after ReLU), then db = column sums of dy (B x N).
 * When @p dy_lo is not NULL, also write dy in type @p lo.
 */
void gpu_bias_act_backward(float *dy, const float *y, int B, int N, int relu, float *db,
                           void *dy_lo, enum gpu_dtype lo, void *stream);

/** Convert @p n floats to type @p lo on @p stream (weights to their half copy). */
void gpu_convert(const float *x, void *y, enum gpu_dtype lo, size_t n, void *stream);

/**
 * Gather a shard on @p stream: for r < @p B, sample @p d_idx[r] of the set
 * (@p px bytes per image in @p d_images, one label in @p d_labels) becomes row
 * r of @p d_x, normalised as (pixel / 255 - mean) / std (and row r of
 * @p d_x_lo in type @p lo when not NULL), and its label @p d_y[r].
 */
void gpu_gather(const uint8_t *d_images, const uint8_t *d_labels, const int *d_idx, int B, int px,
                float mean, float std, float *d_x, void *d_x_lo, enum gpu_dtype lo, uint8_t *d_y,
                void *stream);

/**
 * The course's all-reduce for replicas sharing one GPU: every one of the
 * @p nrep buffers @p d_bufs (a device array of device pointers) becomes the
 * mean (or, with @p sum, the sum) of all of them. One pass, @p n floats each.
 */
void gpu_allreduce_mean(float *const *d_bufs, int nrep, size_t n, int sum, void *stream);

/** Multiply @p n floats by @p s in place on @p stream; set @p d_flag[0] to 1 if any is inf/nan. */
void gpu_scale_check(float *x, size_t n, float s, int *d_flag, void *stream);

/** One optimizer update on the device (same arithmetic as opt_step()) on @p stream. */
void gpu_opt_step(const struct opt_config *o, float *params, const float *grads, float *state,
                  size_t n, long long step, void *stream);

/* ---- train_: the loop --------------------------------------------------------------- */

/** Everything the driver's flags set. */
struct train_config {
    const char *data_dir;       /**< where the IDX files are */
    const char *hidden;         /**< hidden widths, "256,256" */
    int compute_cuda;           /**< 0: CPU, 1: CUDA */
    gpu_gemm_fn gemm;           /**< the GEMM of the CUDA path */
    const char *gemm_name;      /**< its name, for the log */
    void (*gemm_release)(void); /**< frees the GEMM's per-stream state while the streams live,
                                     or NULL */
    int precision;              /**< enum gpu_dtype of the GEMM inputs on CUDA */
    struct opt_config opt;      /**< the optimizer */
    int epochs;                 /**< passes over the training set */
    int batch;                  /**< global batch (all replicas together) */
    long long max_steps;        /**< stop after this many updates (0: no limit) */
    long long seed;             /**< init and shuffle seed */
    int n_train;                /**< training samples used (0: all) */
    int n_test;                 /**< test samples used (0: all) */
    const char *checkpoint;     /**< checkpoint file, or NULL */
    int every;          /**< checkpoint every this many steps (always at the end and on a signal) */
    const char *resume; /**< checkpoint to resume from, or NULL */
    const char *dump;   /**< write the final weights (raw floats) here, or NULL */
    int quiet;          /**< no per-epoch lines */
    int overlap;        /**< CUDA: all-reduce each layer's gradient while the backward goes on */
};

/** Set the defaults: CPU, 2 x 256, SGD lr 0.05 momentum 0.9, 10 epochs, batch 128, seed 1. */
void train_defaults(struct train_config *t);

/**
 * Train as @p t says over @p c. Prints the memory budget, a line per epoch and
 * the test accuracy (rank 0). Returns the exit status: 0, 1 (a run-time
 * failure), 2 (bad data, bad checkpoint, bad settings: one line on stderr).
 */
int train_run(const struct train_config *t, struct comm *c);

/** Ask a running train_run() to checkpoint and stop after the current step (signal-safe). */
void train_request_stop(void);

#ifdef __cplusplus
}
#endif

#endif /* DATA_PARALLEL_H */
