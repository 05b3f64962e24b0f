/**
 * @file train.c
 * @brief Lesson 13: the data-parallel training loop, the same for every backend.
 *
 * Every replica
 *   1. starts from rank 0's weights (each initialises from seed + replica,
 *      then rank 0's weights are broadcast over them),
 *   2. shuffles the training set with the same generator, so all agree on the
 *      order, and takes its own slice of each global batch: replica r of R
 *      reads samples [r * B / R, (r + 1) * B / R) of the batch,
 *   3. computes the gradient of the mean loss over its slice,
 *   4. all-reduces the gradients to their mean (the mean over R slices of
 *      equal size is the mean over the whole batch), and
 *   5. makes the identical optimizer update.
 * So R replicas compute what one replica computes on the whole batch, up to
 * the order of the floating-point sums. The checkpoint holds what step 2 and
 * 5 need to continue exactly: weights, optimizer state, the shuffle
 * generator's state at the start of the epoch, and the position in it.
 */
#include "data_parallel.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mat.h"
#include "train_gpu.h"

static volatile sig_atomic_t stop_requested;

void train_request_stop(void)
{
    stop_requested = 1;
}

void train_defaults(struct train_config *t)
{
    memset(t, 0, sizeof *t);
    /* ./course sets FASHION_MNIST_DIR to the copy it carried in (./course pack-deps). */
    const char *dir = getenv("FASHION_MNIST_DIR");
    t->data_dir = dir && *dir ? dir : "/usr/share/datasets/fashion-mnist";
    t->hidden = "256,256";
    t->precision = GPU_F32;
    t->opt = (struct opt_config){OPT_SGD, 0.05f, 0.9f, 0.9f, 0.999f, 1e-8f, 0.0f};
    t->epochs = 10;
    t->batch = 128;
    t->seed = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Fisher-Yates shuffle of 0 .. n-1 into @p perm, advancing @p rng. */
static void shuffle(int *perm, int n, uint64_t *rng)
{
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(mat_rand_next(rng) % (uint64_t)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* Samples @p idx[0 .. B-1] of @p set as normalised floats and labels. */
static void gather(const struct idx_set *set, const int *idx, int B, float *x, uint8_t *y)
{
    size_t px = (size_t)set->rows * set->cols;
    for (int r = 0; r < B; r++) {
        const uint8_t *img = set->images + (size_t)idx[r] * px; /* sample idx[r]'s pixels */
        for (size_t i = 0; i < px; i++)
            x[(size_t)r * px + i] =
                ((float)img[i] * (1.0f / 255.0f) - IDX_PIXEL_MEAN) / IDX_PIXEL_STD;
        y[r] = set->labels[idx[r]];
    }
}

static void print_bytes(const char *what, double bytes)
{
    printf("  %-30s %10.2f MiB\n", what, bytes / (1024.0 * 1024.0));
}

/* Correct predictions over the first @p n samples of @p set, on the CPU. */
static int evaluate_cpu(const struct mlp_shape *s, const float *params, const struct idx_set *set,
                        int n)
{
    enum { CHUNK = 256 };
    float *x = mat_alloc_f32((size_t)CHUNK * s->dims[0]);
    float *acts = mat_alloc_f32((size_t)CHUNK * mlp_activation_count(s));
    uint8_t y[CHUNK];
    int idx[CHUNK], correct = 0;
    for (int at = 0; at < n; at += CHUNK) {
        int B = n - at < CHUNK ? n - at : CHUNK;
        for (int r = 0; r < B; r++)
            idx[r] = at + r;
        gather(set, idx, B, x, y);
        const float *logits = mlp_forward(s, params, x, B, acts);
        int right;
        mlp_softmax_xent(logits, y, B, s->dims[s->layers], NULL, &right);
        correct += right;
    }
    free(x);
    free(acts);
    return correct;
}

static int fail2(int rank, const char *msg)
{
    if (rank == 0)
        fprintf(stderr, "13_data_parallel: %s\n", msg);
    return 2;
}

int train_run(const struct train_config *t, struct comm *c)
{
    char err[4400];
    int rank = c->proc_rank, R = c->size;
    struct mlp_shape s;
    if (mlp_shape_parse(&s, 784, t->hidden, 10))
        return fail2(rank, "--hidden wants widths in [1, 65536] separated by commas, "
                           "at most 8 of them");
    if (t->batch % R) {
        snprintf(err, sizeof err, "--batch %d is not a multiple of the %d replicas", t->batch, R);
        return fail2(rank, err);
    }
    if (c->backend == COMM_LOCAL && !t->compute_cuda)
        return fail2(rank, "--comm local runs replicas on one GPU: it needs --compute cuda");

    struct idx_set train, test;
    if (idx_load_split(t->data_dir, "train", &train, err, sizeof err))
        return fail2(rank, err);
    if (idx_load_split(t->data_dir, "t10k", &test, err, sizeof err)) {
        idx_free(&train);
        return fail2(rank, err);
    }
    if (train.rows * train.cols != 784 || test.rows * test.cols != 784) {
        idx_free(&train);
        idx_free(&test);
        return fail2(rank, "the images are not 28 x 28");
    }
    int n_train = t->n_train && t->n_train < train.n ? t->n_train : train.n;
    int n_test = t->n_test && t->n_test < test.n ? t->n_test : test.n;
    int nb = n_train / t->batch; /* full batches per epoch; the remainder is dropped */
    int local_B = t->batch / R;
    if (nb == 0) {
        idx_free(&train);
        idx_free(&test);
        snprintf(err, sizeof err, "--batch %d is larger than the %d training samples", t->batch,
                 n_train);
        return fail2(rank, err);
    }

    size_t P = mlp_param_count(&s), S = P * (size_t)opt_state_per_param(t->opt.kind);
    int nloc = c->nlocal;
    float **params = mat_alloc((size_t)nloc * sizeof *params);
    for (int l = 0; l < nloc; l++)
        params[l] = mat_alloc_f32(P);
    float *grads = mat_alloc_f32(P), *state = mat_alloc_f32(S);
    memset(state, 0, S * sizeof *state);
    float *x = mat_alloc_f32((size_t)local_B * 784);
    uint8_t *y = mat_alloc((size_t)local_B);
    float *work = t->compute_cuda ? NULL : mat_alloc_f32(mlp_work_count(&s, local_B));
    if (work) /* NaN: a gradient the backward forgets to write poisons the weights visibly */
        mat_poison(work, mlp_work_count(&s, local_B));
    int *perm = mat_alloc((size_t)n_train * sizeof *perm);

    /* Step 1: every replica initialises from its own seed; rank 0's weights win. */
    for (int l = 0; l < nloc; l++)
        mlp_init(&s, params[l], (uint64_t)t->seed + (uint64_t)comm_replica(c, l));
    comm_broadcast_host(c, params[0], P);
    for (int l = 1; l < nloc && c->bug != COMM_BUG_NOBCAST; l++)
        memcpy(params[l], params[0], P * sizeof(float));

    uint64_t rng = (uint64_t)t->seed * 0xD1B54A32D192ED03ULL + 7;
    long long step = 0;
    int rc = 0, stopped = 0;
    struct gtr *g = NULL;
    size_t *shard_at = NULL;
    int epoch0 = 0, batch0 = 0;
    struct ckpt ck = {s, t->opt.kind, t->batch, n_train, 0, 0, 0, 0, P, S, params[0], state};
    if (t->resume) {
        /* Every rank reads the file (a shared file system), and all stop if any fails:
         * one line, from rank 0 if it failed, else from the ranks that did. */
        int failed = ckpt_load(t->resume, &ck, err, sizeof err) != 0;
        int zero_failed = comm_max_int(c, rank == 0 && failed);
        if (comm_max_int(c, failed)) {
            if (failed && (rank == 0 || !zero_failed))
                fprintf(stderr, "13_data_parallel: %s\n", err);
            rc = 2;
            goto out_free;
        }
        for (int l = 1; l < nloc; l++)
            memcpy(params[l], params[0], P * sizeof(float));
        step = ck.step;
        epoch0 = ck.epoch;
        batch0 = ck.batch_in_epoch;
        rng = ck.rng_epoch;
        if (rank == 0)
            printf("resumed from %s at step %lld (epoch %d, batch %d)\n", t->resume, step,
                   epoch0 + 1, batch0);
    }

    if (rank == 0) {
        printf("13_data_parallel: MLP %d", s.dims[0]);
        for (int l = 1; l <= s.layers; l++)
            printf(" -> %d", s.dims[l]);
        printf(", %zu parameters; %s, %s; %d replica%s (%d process%s); global batch %d (%d per "
               "replica); %d train / %d test samples\n",
               P, t->compute_cuda ? "cuda" : "cpu", t->opt.kind == OPT_SGD ? "sgd" : "adamw", R,
               R == 1 ? "" : "s", c->proc_size, c->proc_size == 1 ? "" : "es", t->batch, local_B,
               n_train, n_test);
        printf("memory per replica:\n");
        print_bytes("parameters (fp32 master)", 4.0 * (double)P);
        print_bytes("gradients", 4.0 * (double)P);
        print_bytes("optimizer state", 4.0 * (double)S);
        print_bytes("activations (batch per replica)",
                    4.0 * (double)local_B * (double)mlp_activation_count(&s));
        if (t->compute_cuda && t->precision != GPU_F32) {
            int wmax = 0; /* the widest layer: one 16-bit gradient buffer of B x wmax */
            for (int l = 0; l <= s.layers; l++)
                wmax = s.dims[l] > wmax ? s.dims[l] : wmax;
            double rows = (double)s.dims[0] + (double)mlp_activation_count(&s) + wmax;
            print_bytes("16-bit copies", 2.0 * (double)P + 2.0 * (double)local_B * rows);
        }
    }

    if (t->compute_cuda)
        g = gtr_create(t, &s, c, &train, params, state, local_B);
    shard_at = mat_alloc((size_t)nloc * sizeof *shard_at);
    for (int epoch = epoch0; epoch < t->epochs && !stopped; epoch++) {
        uint64_t rng_epoch = rng;
        shuffle(perm, n_train, &rng);
        if (g)
            gtr_epoch(g, perm, n_train);
        double t0 = now_s(), loss_sum = 0.0;
        long long right = 0, seen = 0;
        int first = epoch == epoch0 ? batch0 : 0;
        for (int bi = first; bi < nb; bi++) {
            /* Step 2: replica r's slice of global batch bi. */
            for (int l = 0; l < nloc; l++) {
                int shard = c->bug == COMM_BUG_SAMESHARD ? 0 : comm_replica(c, l);
                shard_at[l] = (size_t)bi * t->batch + (size_t)shard * local_B; /* in perm */
            }
            step++;
            if (g) {
                gtr_step(g, shard_at, step); /* steps 3 to 5 on the GPU */
            } else {
                /* Steps 3 to 5 on the CPU. */
                int correct = 0;
                gather(&train, perm + shard_at[0], local_B, x, y);
                float loss = mlp_loss_grad(&s, params[0], x, y, local_B, grads, work, &correct);
                comm_allreduce_mean_host(c, grads, P);
                opt_step(&t->opt, params[0], grads, state, P, step);
                loss_sum += (double)loss * local_B;
                right += correct;
            }
            seen += (long long)local_B * nloc;

            int limit = t->max_steps && step >= t->max_steps;
            stopped = comm_max_int(c, stop_requested);
            int last = limit || (epoch + 1 == t->epochs && bi + 1 == nb);
            int due = t->checkpoint && (stopped || last || (t->every && step % t->every == 0));
            if (due) {
                if (g)
                    gtr_download(g, 0, params[0], state);
                ck.step = step;
                ck.epoch = epoch;
                ck.batch_in_epoch = bi + 1;
                ck.rng_epoch = rng_epoch;
                int failed = rank == 0 && ckpt_save(t->checkpoint, &ck, err, sizeof err);
                if (failed)
                    fprintf(stderr, "13_data_parallel: %s\n", err);
                if (comm_max_int(c, failed)) {
                    rc = 1;
                    stopped = 1;
                }
            }
            if (stopped) {
                if (rank == 0 && rc == 0)
                    printf("stopped by a signal at step %lld; %s%s\n", step,
                           t->checkpoint ? "checkpoint written to " : "no --checkpoint given",
                           t->checkpoint ? t->checkpoint : "");
                break;
            }
            if (limit) {
                stopped = 2;
                break;
            }
        }
        if (g)
            gtr_metrics(g, &loss_sum, &right); /* waits for the epoch's last step */
        double dt = now_s() - t0;
        double all_seen = comm_sum_f64(c, (double)seen);
        double all_loss = comm_sum_f64(c, loss_sum) / (all_seen > 0 ? all_seen : 1);
        double all_right = comm_sum_f64(c, (double)right);
        if (rank == 0 && !t->quiet && all_seen > 0)
            printf("epoch %3d  step %7lld  loss %.4f  train acc %6.2f%%  %10.0f samples/s\n",
                   epoch + 1, step, all_loss, 100.0 * all_right / all_seen,
                   dt > 0 ? all_seen / dt : 0.0);
        fflush(stdout); /* a line per epoch, even into a pipe or a log file */
        if (stopped == 2)
            break;
    }
    if (g)
        for (int l = 0; l < nloc; l++)
            gtr_download(g, l, params[l], l == 0 ? state : NULL);

    /* Every replica must hold the same weights: compare checksums. */
    int in_sync = 1;
    uint64_t h0 = ckpt_fnv64(CKPT_FNV64_INIT, params[0], P * sizeof(float));
    for (int l = 1; l < nloc; l++)
        in_sync &= ckpt_fnv64(CKPT_FNV64_INIT, params[l], P * sizeof(float)) == h0;
    in_sync = comm_all_equal_u64(c, h0) && !comm_max_int(c, !in_sync);

    if (rc == 0 && rank == 0) {
        if (stopped != 1) {
            int right =
                g ? gtr_evaluate(g, &test, n_test) : evaluate_cpu(&s, params[0], &test, n_test);
            printf("test accuracy %.2f%% (%d of %d) after %lld steps\n", 100.0 * right / n_test,
                   right, n_test, step);
        }
        printf("replicas in sync: %s\n", in_sync ? "yes" : "NO (the weights diverged)");
        if (t->dump) {
            FILE *f = fopen(t->dump, "wb");
            if (!f || fwrite(params[0], sizeof(float), P, f) != P || fclose(f)) {
                fprintf(stderr, "13_data_parallel: %s: cannot write the weights\n", t->dump);
                rc = 1;
            }
        }
    }
out_free:
    if (g && t->gemm_release)
        t->gemm_release(); /* cuBLAS handles are bound to the replicas' streams */
    if (g)
        gtr_destroy(g);
    free(shard_at);
    for (int l = 0; l < nloc; l++)
        free(params[l]);
    free(params);
    free(grads);
    free(state);
    free(x);
    free(y);
    free(work);
    free(perm);
    idx_free(&train);
    idx_free(&test);
    return rc;
}
