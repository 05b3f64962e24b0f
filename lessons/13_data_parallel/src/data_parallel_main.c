/**
 * @file data_parallel_main.c
 * @brief Lesson 13's driver: train an MLP on Fashion-MNIST, data parallel.
 *
 *   ./course train [flags]                          (runs build/bin/13_data_parallel)
 *   build/bin/13_data_parallel --compute cpu --epochs 1
 *   mpirun -np 4 build/bin/13_data_parallel --compute cpu     (4 CPU ranks, --comm mpi)
 *   build/bin/13_data_parallel --compute cuda --comm local --replicas 4
 *   mpirun -np 8 build/bin/13_data_parallel --comm nccl      (one rank per GPU)
 *   ./course profile 13 [--csv=FILE]         (--counters, on the CPU emulator)
 *
 * It prints the model, the memory budget per replica, one line per epoch
 * (loss, training accuracy, samples/s) and the test accuracy at the end.
 * SIGTERM or SIGINT checkpoint (with --checkpoint) and stop cleanly after the
 * current step; --resume continues bit for bit. Exit status: 0, 1 (no GPU, a
 * failed write), 2 (bad flags, bad data, bad checkpoint).
 *
 * The library never calls cuBLAS (the harness checks that); this driver plugs
 * it in as the default GEMM of the CUDA path, --gemm course swaps in the
 * lesson's own, --gemm warptile lesson 05's (fp32).
 *
 * --counters (CPU emulator only) prints what the emulator counts instead of
 * training: gpu_gemm_course in each of its four transpose cases, checked
 * against the CPU, then every kernel of a short run on the lesson's own GEMM
 * (bench.h has the columns).
 */
#include "data_parallel.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "bench.h"
#include "cli.h"
#include "cuda_check.h"
#include "device.h"
#include "mat.h"
#include "ref.h"

static const char *const PROG = "13_data_parallel";

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

/** One gpu_gemm_course call, for bench_run(). */
struct gemm_call {
    int ta, tb, M, N, K;
    const float *A, *B; /* stored as op(A) M x K and op(B) K x N say, transposed when ta, tb */
    float *C;
};

static void run_gemm(void *arg)
{
    const struct gemm_call *g = arg;
    gpu_gemm_course(g->ta, g->tb, g->M, g->N, g->K, 1.0f, g->A, g->ta ? g->M : g->K, g->B,
                    g->tb ? g->K : g->N, 0.0f, g->C, g->N, GPU_F32, NULL);
}

/* @p rows x @p cols row-major @p x, or its transpose when @p t (a new array). */
static float *stored(const float *x, int rows, int cols, int t)
{
    float *s = mat_alloc_f32((size_t)rows * cols);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            s[t ? (size_t)j * rows + i : (size_t)i * cols + j] = x[(size_t)i * cols + j];
    return s;
}

/* gpu_gemm_course at M x N x K in each transpose case, checked exactly on small integers; a
 * row of counters each. */
static void count_gemms(struct bench_table *t)
{
    int M = t->opt->m, N = t->opt->n, K = t->opt->k;
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A = mat_alloc_f32(na), *B = mat_alloc_f32(nb), *C = mat_alloc_f32(nc);
    double *want = mat_alloc(nc * sizeof *want);
    mat_fill_int(A, na, (uint64_t)t->opt->seed);
    mat_fill_int(B, nb, (uint64_t)t->opt->seed + 1);
    ref_matmul_f64(M, N, K, A, B, want);
    float *d_A, *d_B;
    struct gemm_call g = {0, 0, M, N, K, NULL, NULL, NULL};
    CUDA_CHECK(cudaMalloc((void **)&d_A, na * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_B, nb * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&g.C, nc * sizeof(float)));
    for (int c = 0; c < 4; c++) {
        g.ta = c >> 1, g.tb = c & 1;
        float *sa = stored(A, M, K, g.ta), *sb = stored(B, K, N, g.tb);
        CUDA_CHECK(cudaMemcpy(d_A, sa, na * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_B, sb, nb * sizeof(float), cudaMemcpyHostToDevice));
        g.A = d_A;
        g.B = d_B;
        mat_poison_device(g.C, nc * sizeof(float));
        bench_run(t, run_gemm, &g);
        CUDA_CHECK(cudaMemcpy(C, g.C, nc * sizeof(float), cudaMemcpyDeviceToHost));
        struct mat_cmp cmp = mat_compare_f64(C, want, M, N, 0, 0);
        char name[48], check[160];
        snprintf(name, sizeof name, "gpu_gemm_course ta=%d tb=%d", g.ta, g.tb);
        struct bench_row row = {.version = name,
                                .check = mat_cmp_describe(&cmp, check, sizeof check),
                                .ok = cmp.n_bad == 0};
        bench_report(t, &row, run_gemm, &g);
        free(sa);
        free(sb);
    }
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_B));
    CUDA_CHECK(cudaFree(g.C));
    free(A);
    free(B);
    free(C);
    free(want);
}

/** A short training run, for bench_run(). */
struct train_call {
    const struct train_config *t;
    struct comm *c;
    int rc;
};

static void run_train(void *arg)
{
    struct train_call *r = arg;
    r->rc = train_run(r->t, r->c);
}

/*
 * --counters: the counters of count_gemms(), then of every kernel of @p t's run (on the GPU
 * path with the lesson's own GEMM), one row per kernel. Needs the CPU emulator. Returns the
 * exit status.
 */
static int count_kernels(struct train_config *t, struct comm *c, const char *csv)
{
    struct device_info dev;
    if (!device_query(&dev) || !dev.emulated) {
        fprintf(stderr, "%s: --counters counts on the CPU emulator: run ./course profile 13\n",
                PROG);
        return 2;
    }
    struct cli_bench o;
    cli_bench_defaults(&o, BENCH_EMU_SIZE, 1);
    o.csv = csv;
    struct bench_table tb;
    if (bench_begin(&tb, PROG, "", &o, &dev))
        return 2;
    count_gemms(&tb);
    printf("\nA training run of %lld steps (batch %d, gemm course), every kernel it launched:\n",
           t->max_steps, t->batch);
    struct train_call run = {t, c, 1};
    bench_run(&tb, run_train, &run);
    struct bench_row row = {
        .version = "training", .check = run.rc ? "the run failed" : "ok", .ok = run.rc == 0};
    bench_report(&tb, &row, run_train, &run);
    return bench_end(&tb);
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
    const char *backend = "auto", *bug = "none", *csv = NULL;
    int replicas = 2, counters = 0;
    double lr = -1, momentum = t.opt.momentum, wd = -1;
    const struct cli_opt opts[] = {
        {"data", CLI_STRING, &t.data_dir, 0, 0, "directory of the Fashion-MNIST .gz files"},
        {"compute", CLI_STRING, &compute, 0, 0, "cpu | cuda (default: cuda when a GPU answers)"},
        {"gemm", CLI_STRING, &gemm, 0, 0,
         "cublas | course | warptile (lesson 05's): the CUDA path's GEMM"},
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
        {"counters", CLI_FLAG, &counters, 0, 0,
         "CPU emulator: count the kernels (every GEMM transpose case, then 2 steps) instead"},
        {"csv", CLI_STRING, &csv, 0, 0, "with --counters: append one row per kernel to this file"},
        {NULL, CLI_INT, NULL, 0, 0, NULL},
    };
    enum cli_status st = cli_parse(argc, argv, PROG,
                                   "Lesson 13: train an MLP on Fashion-MNIST, data parallel over "
                                   "CPU ranks (mpi), GPUs (nccl) or replicas on one GPU (local).",
                                   opts);
    if (st != CLI_OK)
        return cli_exit_status(st);

    static const char *const computes[] = {"cpu", "cuda", "auto"};
    static const char *const gemms[] = {"cublas", "course", "warptile"};
    static const char *const precisions[] = {"fp32", "bf16", "fp16"};
    static const char *const optimizers[] = {"sgd", "adamw"};
    static const char *const backends[] = {"self", "mpi", "nccl", "local", "auto"};
    static const char *const bugs[] = {"none", "sum", "nobcast", "sameshard"};
    int ci = pick("compute", compute, computes, 3), gi = pick("gemm", gemm, gemms, 3);
    int pi = pick("precision", precision, precisions, 3);
    int oi = pick("optimizer", optimizer, optimizers, 2);
    int bi = pick("comm", backend, backends, 5), ui = pick("inject-bug", bug, bugs, 4);
    if (ci < 0 || gi < 0 || pi < 0 || oi < 0 || bi < 0 || ui < 0)
        return 2;
    if (counters) { /* the lesson's own GEMM on the (emulated) GPU, a short run */
        ci = 1, gi = 1;
        t.max_steps = t.max_steps ? t.max_steps : 2;
        t.n_train = t.n_train ? t.n_train : t.batch * (int)t.max_steps;
        t.n_test = t.n_test ? t.n_test : 256;
        t.quiet = 1;
    }
    t.opt.kind = (enum opt_kind)oi;
    t.opt.lr = (float)(lr >= 0 ? lr : oi == OPT_SGD ? 0.05 : 0.001);
    t.opt.momentum = (float)momentum;
    t.opt.weight_decay = (float)(wd >= 0 ? wd : oi == OPT_SGD ? 0.0 : 0.01);
    t.precision = pi;
    static const gpu_gemm_fn gemm_fns[] = {gemm_cublas, gpu_gemm_course, gpu_gemm_warptile};
    static void (*const releases[])(void) = {release_handles, NULL, gpu_gemm_warptile_release};
    t.gemm = gemm_fns[gi];
    t.gemm_name = gemms[gi];
    t.gemm_release = releases[gi];
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
    if (pi != 0 && gi == 2) {
        fprintf(stderr, "%s: --gemm warptile reads floats: use --precision fp32\n", PROG);
        return 2;
    }
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

    int rc = counters ? count_kernels(&t, &c, csv) : train_run(&t, &c);
    fflush(stdout);
    comm_finalize(&c);
    return rc;
}
