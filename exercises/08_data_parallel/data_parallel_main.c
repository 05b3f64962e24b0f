/**
 * @file data_parallel_main.c
 * @brief Lesson 08's driver: train an MLP on Fashion-MNIST, data parallel.
 *
 *   ./course train [flags]                          (runs build/bin/08_data_parallel)
 *   build/bin/08_data_parallel --compute cpu --epochs 1
 *   mpirun -np 4 build/bin/08_data_parallel --compute cpu     (4 CPU ranks, --comm mpi)
 *   build/bin/08_data_parallel --compute cuda --comm local --replicas 4
 *   mpirun -np 8 build/bin/08_data_parallel --comm nccl      (one rank per GPU)
 *
 * It prints the model, the memory budget per replica, one line per epoch
 * (loss, training accuracy, samples/s) and the test accuracy at the end.
 * SIGTERM or SIGINT checkpoint (with --checkpoint) and stop cleanly after the
 * current step; --resume continues bit for bit. Exit status: 0, 1 (no GPU, a
 * failed write), 2 (bad flags, bad data, bad checkpoint).
 *
 * The library never calls cuBLAS (the harness checks that); this driver plugs
 * it in as the default GEMM of the CUDA path, --gemm course swaps in the
 * lesson's own.
 */
#include "data_parallel.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <cublas_v2.h>

#include "cli.h"
#include "cuda_check.h"
#include "device.h"

static const char *const PROG = "08_data_parallel";

/* One cuBLAS handle per stream: a handle's workspace must not be shared by concurrent streams. */
enum { MAX_HANDLES = 64 };
static struct {
    cudaStream_t stream;
    cublasHandle_t handle;
} handles[MAX_HANDLES];
static int n_handles;

static cublasHandle_t handle_for(cudaStream_t stream)
{
    for (int i = 0; i < n_handles; i++)
        if (handles[i].stream == stream)
            return handles[i].handle;
    if (n_handles == MAX_HANDLES) {
        fprintf(stderr, "%s: more than %d streams\n", PROG, MAX_HANDLES);
        exit(1);
    }
    cublasHandle_t h;
    CUBLAS_CHECK(cublasCreate(&h));
    CUBLAS_CHECK(cublasSetStream(h, stream));
    handles[n_handles].stream = stream;
    handles[n_handles++].handle = h;
    return h;
}

/*
 * The gpu_gemm_fn contract through cuBLAS. cuBLAS is column-major, and a
 * row-major matrix is the column-major view of its transpose, so
 * C = op(A) op(B) is computed as C^T = op(B)^T op(A)^T: the operands swap,
 * each keeps its own transpose flag. FP32 compute in every precision.
 */
static void gemm_cublas(int ta, int tb, int M, int N, int K, float alpha, const void *A, int lda,
                        const void *B, int ldb, float beta, float *C, int ldc, enum gpu_dtype ab,
                        void *stream)
{
    cudaDataType_t t = ab == GPU_BF16 ? CUDA_R_16BF : ab == GPU_F16 ? CUDA_R_16F : CUDA_R_32F;
    CUBLAS_CHECK(cublasGemmEx(handle_for((cudaStream_t)stream), tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                              ta ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K, &alpha, B, t, ldb, A, t, lda,
                              &beta, C, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/* Destroy the handles while their streams still exist (train_run calls this first). */
static void release_handles(void)
{
    for (int i = 0; i < n_handles; i++)
        CUBLAS_CHECK(cublasDestroy(handles[i].handle));
    n_handles = 0;
}

static void on_signal(int sig)
{
    (void)sig;
    train_request_stop();
}

/* Index of @p s in @p names (count @p n), or -1 with a one-line error. */
static int pick(const char *flag, const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    fprintf(stderr, "%s: --%s must be one of", PROG, flag);
    for (int i = 0; i < n; i++)
        fprintf(stderr, " %s", names[i]);
    fprintf(stderr, ", not '%s'\n", s);
    return -1;
}

int main(int argc, char **argv)
{
    struct train_config t;
    train_defaults(&t);
    const char *compute = "auto", *gemm = "cublas", *precision = "fp32", *optimizer = "sgd";
    const char *backend = "auto", *bug = "none";
    int replicas = 2;
    double lr = -1, momentum = t.opt.momentum, wd = -1;
    const struct cli_opt opts[] = {
        {"data", CLI_STRING, &t.data_dir, 0, 0, "directory of the Fashion-MNIST .gz files"},
        {"compute", CLI_STRING, &compute, 0, 0, "cpu | cuda (default: cuda when a GPU answers)"},
        {"gemm", CLI_STRING, &gemm, 0, 0, "cublas | course: the GEMM of the CUDA path"},
        {"precision", CLI_STRING, &precision, 0, 0, "fp32 | bf16 | fp16 (CUDA; fp32 master)"},
        {"comm", CLI_STRING, &backend, 0, 0,
         "self | mpi | nccl | local (default: mpi under mpirun)"},
        {"replicas", CLI_INT, &replicas, 1, 64, "replicas of --comm local on one GPU"},
        {"hidden", CLI_STRING, &t.hidden, 0, 0, "hidden widths, e.g. 256,256"},
        {"optimizer", CLI_STRING, &optimizer, 0, 0, "sgd (with momentum) | adamw"},
        {"lr", CLI_DOUBLE, &lr, 0, 10, "learning rate (default 0.05 sgd, 0.001 adamw)"},
        {"momentum", CLI_DOUBLE, &momentum, 0, 0.999, "SGD momentum"},
        {"weight-decay", CLI_DOUBLE, &wd, 0, 1, "weight decay (default 0 sgd, 0.01 adamw)"},
        {"epochs", CLI_INT, &t.epochs, 1, 1000, "passes over the training set"},
        {"batch", CLI_INT, &t.batch, 1, 65536, "global batch, split over the replicas"},
        {"steps", CLI_LONG, &t.max_steps, 0, 1e12, "stop after this many updates (0: no limit)"},
        {"seed", CLI_LONG, &t.seed, 0, 1e15, "seed of the init and the shuffle"},
        {"train-samples", CLI_INT, &t.n_train, 0, 1 << 24, "use the first N training samples"},
        {"test-samples", CLI_INT, &t.n_test, 0, 1 << 24, "use the first N test samples"},
        {"checkpoint", CLI_STRING, &t.checkpoint, 0, 0, "checkpoint file (atomic writes)"},
        {"every", CLI_INT, &t.every, 0, 1 << 30,
         "checkpoint every N steps (and at the end, and on SIGTERM)"},
        {"resume", CLI_STRING, &t.resume, 0, 0, "continue from this checkpoint"},
        {"dump-weights", CLI_STRING, &t.dump, 0, 0, "write the final weights (raw fp32) here"},
        {"quiet", CLI_FLAG, &t.quiet, 0, 0, "no per-epoch lines"},
        {"overlap", CLI_FLAG, &t.overlap, 0, 0, "CUDA: all-reduce each layer during the backward"},
        {"inject-bug", CLI_STRING, &bug, 0, 0, "debug: none | sum | nobcast | sameshard"},
        {NULL, CLI_INT, NULL, 0, 0, NULL},
    };
    enum cli_status st = cli_parse(argc, argv, PROG,
                                   "Lesson 08: train an MLP on Fashion-MNIST, data parallel over "
                                   "CPU ranks (mpi), GPUs (nccl) or replicas on one GPU (local).",
                                   opts);
    if (st != CLI_OK)
        return cli_exit_status(st);

    static const char *const computes[] = {"cpu", "cuda", "auto"};
    static const char *const gemms[] = {"cublas", "course"};
    static const char *const precisions[] = {"fp32", "bf16", "fp16"};
    static const char *const optimizers[] = {"sgd", "adamw"};
    static const char *const backends[] = {"self", "mpi", "nccl", "local", "auto"};
    static const char *const bugs[] = {"none", "sum", "nobcast", "sameshard"};
    int ci = pick("compute", compute, computes, 3), gi = pick("gemm", gemm, gemms, 2);
    int pi = pick("precision", precision, precisions, 3);
    int oi = pick("optimizer", optimizer, optimizers, 2);
    int bi = pick("comm", backend, backends, 5), ui = pick("inject-bug", bug, bugs, 4);
    if (ci < 0 || gi < 0 || pi < 0 || oi < 0 || bi < 0 || ui < 0)
        return 2;
    t.opt.kind = (enum opt_kind)oi;
    t.opt.lr = (float)(lr >= 0 ? lr : oi == OPT_SGD ? 0.05 : 0.001);
    t.opt.momentum = (float)momentum;
    t.opt.weight_decay = (float)(wd >= 0 ? wd : oi == OPT_SGD ? 0.0 : 0.01);
    t.precision = pi;
    t.gemm = gi == 0 ? gemm_cublas : gpu_gemm_course;
    t.gemm_name = gemms[gi];
    t.gemm_release = gi == 0 ? release_handles : NULL;
    if (bi == 4)
        bi = comm_launched_by_mpi() ? COMM_MPI : COMM_SELF;
    int gpu_comm = bi == COMM_NCCL || bi == COMM_LOCAL;
    if (ci == 2) {
        struct device_info dev;
        ci = gpu_comm || device_query(&dev); /* cuda when a GPU answers, else the CPU oracle */
    }
    if (ci == 0 && gpu_comm) {
        fprintf(stderr, "%s: --comm %s needs --compute cuda\n", PROG, backends[bi]);
        return 2;
    }
    t.compute_cuda = ci;
    if (pi != 0 && !ci) {
        fprintf(stderr, "%s: --precision %s runs on the GPU: add --compute cuda\n", PROG,
                precision);
        return 2;
    }
    if (ci) {
        struct device_info dev;
        if (!device_query(&dev)) {
            fprintf(stderr, "%s: %s\n", PROG, dev.why);
            return 1;
        }
        if (pi == GPU_BF16 && dev.cc_major < 8) {
            fprintf(stderr, "%s: --precision bf16 needs sm_80 or newer (this GPU is sm_%d%d)\n",
                    PROG, dev.cc_major, dev.cc_minor);
            return 2;
        }
    }

    struct comm c;
    char err[512];
    if (comm_init(&c, (enum comm_backend)bi, replicas, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return 2;
    }
    c.bug = (enum comm_bug)ui;
    /* After MPI_Init, so that these handlers are the ones that stay. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    int rc = train_run(&t, &c);
    fflush(stdout);
    comm_finalize(&c);
    return rc;
}
