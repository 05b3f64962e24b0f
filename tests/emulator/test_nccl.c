/**
 * @file test_nccl.c
 * @brief The NCCL stand-in (emulator/libnccl.so.2): collectives between two processes, and
 *        every collective, send and receive of four GPUs one thread drives.
 *
 * Each two-process case makes a unique id, then forks two ranks that each join the
 * communicator on their own emulated GPU and check their results; a rank
 * reports a failure on stderr and through its exit status. The buffers are
 * larger than one staging slot, so collectives run in several chunks. The
 * one-thread cases run in a child with four emulated GPUs.
 */
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "course_test.h"
#include "cuda_check.h"

/* More floats than one 4 MiB staging slot holds, and not a multiple of anything. */
enum { COUNT = 1500007 };

/* A rank's body: returns 0 when every check passed, else the number of the failed check. */
typedef int (*rank_fn)(int rank, ncclUniqueId id);

#define RANK_CHECK(n, cond)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: check %d failed: %s\n", rank, n, #cond);                     \
            return n;                                                                              \
        }                                                                                          \
    } while (0)

/* Run @p fn as ranks 0 and 1 in two children; the exit statuses of both in @p status. */
static void run_two_ranks(rank_fn fn, int status[2])
{
    ncclUniqueId id;
    ck_assert_int_eq(ncclGetUniqueId(&id), ncclSuccess);
    pid_t pid[2];
    fflush(NULL);
    for (int r = 0; r < 2; r++) {
        pid[r] = fork();
        if (pid[r] == 0)
            _exit(fn(r, id));
    }
    for (int r = 0; r < 2; r++) {
        int st = 0;
        ck_assert_int_eq(waitpid(pid[r], &st, 0), pid[r]);
        status[r] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
}

/* x[i] on rank r: small integers, different per rank, so sums, extremes and means are exact. */
static float value(int r, size_t i)
{
    return (float)((int)((i * 7 + (size_t)r * 3) % 11) - 5 + 16 * r);
}

static int all_reduce_rank(int rank, ncclUniqueId id)
{
    ncclComm_t comm;
    int n = -1, me = -1;
    float *h = malloc(COUNT * sizeof *h), *d_in, *d_out;
    RANK_CHECK(1, h && cudaSetDevice(rank) == cudaSuccess);
    RANK_CHECK(2, ncclCommInitRank(&comm, 2, id, rank) == ncclSuccess);
    RANK_CHECK(3, ncclCommCount(comm, &n) == ncclSuccess && n == 2);
    RANK_CHECK(4, ncclCommUserRank(comm, &me) == ncclSuccess && me == rank);
    for (size_t i = 0; i < COUNT; i++)
        h[i] = value(rank, i);
    RANK_CHECK(5, cudaMalloc((void **)&d_in, COUNT * sizeof *h) == cudaSuccess);
    RANK_CHECK(6, cudaMalloc((void **)&d_out, COUNT * sizeof *h) == cudaSuccess);
    const ncclRedOp_t ops[] = {ncclSum, ncclMax, ncclMin, ncclAvg};
    for (int o = 0; o < 4; o++) {
        RANK_CHECK(7, cudaMemcpy(d_in, h, COUNT * sizeof *h, cudaMemcpyHostToDevice) == 0);
        /* Sum runs in place (send = receive); the others into a second buffer. */
        float *out = o == 0 ? d_in : d_out;
        RANK_CHECK(8, ncclGroupStart() == ncclSuccess);
        RANK_CHECK(9, ncclAllReduce(d_in, out, COUNT, ncclFloat, ops[o], comm, 0) == ncclSuccess);
        RANK_CHECK(10, ncclGroupEnd() == ncclSuccess);
        float *got = malloc(COUNT * sizeof *got);
        RANK_CHECK(11,
                   got && cudaMemcpy(got, out, COUNT * sizeof *got, cudaMemcpyDeviceToHost) == 0);
        for (size_t i = 0; i < COUNT; i++) {
            float a = value(0, i), b = value(1, i);
            float want = o == 0   ? a + b
                         : o == 1 ? (a > b ? a : b)
                         : o == 2 ? (a < b ? a : b)
                                  : (a + b) / 2;
            if (got[i] != want) {
                fprintf(stderr, "rank %d op %d: [%zu] = %g, want %g\n", rank, o, i, got[i], want);
                return 12;
            }
        }
        free(got);
    }
    RANK_CHECK(13, ncclCommDestroy(comm) == ncclSuccess);
    free(h);
    return 0;
}

/* Sum, max, min and average of floats across two processes, in place and not. */
START_TEST(all_reduce_two_ranks)
{
    int status[2];
    run_two_ranks(all_reduce_rank, status);
    ck_assert_msg(status[0] == 0 && status[1] == 0, "rank statuses %d and %d (see stderr)",
                  status[0], status[1]);
}
END_TEST

static int broadcast_rank(int rank, ncclUniqueId id)
{
    ncclComm_t comm;
    int *h = malloc(COUNT * sizeof *h), *d;
    RANK_CHECK(1, h && cudaSetDevice(rank) == cudaSuccess);
    RANK_CHECK(2, ncclCommInitRank(&comm, 2, id, rank) == ncclSuccess);
    for (size_t i = 0; i < COUNT; i++)
        h[i] = rank == 1 ? (int)(i * 2654435761u % 100003) : -1;
    RANK_CHECK(3, cudaMalloc((void **)&d, COUNT * sizeof *h) == cudaSuccess);
    RANK_CHECK(4, cudaMemcpy(d, h, COUNT * sizeof *h, cudaMemcpyHostToDevice) == 0);
    RANK_CHECK(5, ncclBroadcast(d, d, COUNT, ncclInt32, 1, comm, 0) == ncclSuccess);
    RANK_CHECK(6, cudaMemcpy(h, d, COUNT * sizeof *h, cudaMemcpyDeviceToHost) == 0);
    for (size_t i = 0; i < COUNT; i++)
        RANK_CHECK(7, h[i] == (int)(i * 2654435761u % 100003));
    RANK_CHECK(8, ncclCommDestroy(comm) == ncclSuccess);
    free(h);
    return 0;
}

/* Rank 1's integers reach rank 0 (in place). */
START_TEST(broadcast_two_ranks)
{
    int status[2];
    run_two_ranks(broadcast_rank, status);
    ck_assert_msg(status[0] == 0 && status[1] == 0, "rank statuses %d and %d (see stderr)",
                  status[0], status[1]);
}
END_TEST

static int same_gpu_rank(int rank, ncclUniqueId id)
{
    ncclComm_t comm;
    RANK_CHECK(1, cudaSetDevice(0) == cudaSuccess);
    RANK_CHECK(2, ncclCommInitRank(&comm, 2, id, rank) == ncclInvalidUsage);
    return 0;
}

/* Two ranks on one GPU are refused, as NCCL refuses them. */
START_TEST(two_ranks_one_gpu_refused)
{
    int status[2];
    run_two_ranks(same_gpu_rank, status);
    ck_assert_msg(status[0] == 0 && status[1] == 0, "rank statuses %d and %d (see stderr)",
                  status[0], status[1]);
}
END_TEST

/* An id that ncclGetUniqueId did not make, and impossible ranks, are refused. */
START_TEST(bad_arguments_refused)
{
    ncclComm_t comm;
    ncclUniqueId zero, id;
    memset(&zero, 0, sizeof zero);
    ck_assert_int_eq(ncclGetUniqueId(&id), ncclSuccess);
    ck_assert_int_eq(ncclCommInitRank(&comm, 1, zero, 0), ncclInvalidArgument);
    ck_assert_int_eq(ncclCommInitRank(&comm, 2, id, 2), ncclInvalidArgument);
    ck_assert_int_eq(ncclCommInitRank(&comm, 0, id, 0), ncclInvalidArgument);
    ck_assert_str_eq(ncclGetErrorString(ncclSuccess), "no error");
}
END_TEST

/* ---- one thread, four GPUs ----------------------------------------------------------------- */

enum { GPUS = 4, N4 = 300007 }; /* N4 ints a rank: two chunks of the slot-sharing collectives */

/* NCCL 2.28's all-to-all, gather and scatter, where the header has them. */
#define HAVE_2_28 (NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0))

/* Run @p fn in a child with four emulated GPUs; its exit status. */
static int run_child(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("COURSE_EMU_GPUS", "4", 1);
        _exit(fn());
    }
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Rank r's i-th input: distinct per rank and element. */
static int input(int r, size_t i)
{
    return (int)(i * 2654435761u % 1000003) - 500000 + 7 * r;
}

/* Device buffers, one a GPU, of @p n ints: inputs when @p fill, else -1 everywhere. */
static int buffers(int **d, size_t n, int fill)
{
    int *h = malloc(n * sizeof *h);
    for (int g = 0; g < GPUS; g++) {
        for (size_t i = 0; i < n; i++)
            h[i] = fill ? input(g, i) : -1;
        if (!h || cudaSetDevice(g) || cudaMalloc((void **)&d[g], n * sizeof *h) ||
            cudaMemcpy(d[g], h, n * sizeof *h, cudaMemcpyHostToDevice))
            return 1;
    }
    free(h);
    return 0;
}

/* Whether GPU @p g's @p n ints equal want(g, i) (else said). */
static int holds(int *d, int g, size_t n, int (*want)(int g, size_t i), const char *what)
{
    int *h = malloc(n * sizeof *h),
        bad = !h || cudaMemcpy(h, d, n * sizeof *h, cudaMemcpyDeviceToHost);
    for (size_t i = 0; !bad && i < n; i++)
        if (h[i] != want(g, i)) {
            fprintf(stderr, "%s: GPU %d [%zu] = %d, want %d\n", what, g, i, h[i], want(g, i));
            bad = 1;
        }
    free(h);
    return bad;
}

static int want_sum(int g, size_t i)
{
    (void)g;
    return input(0, i) + input(1, i) + input(2, i) + input(3, i);
}

static int want_gathered(int g, size_t i)
{
    (void)g;
    return input((int)(i / N4), i % N4);
}

static int want_scattered(int g, size_t i)
{
    return want_sum(g, (size_t)g * N4 + i); /* reduce-scatter: GPU g's piece of the sum */
}

static int want_scatter_piece(int g, size_t i)
{
    return input(0, (size_t)g * N4 + i); /* scatter from GPU 0 */
}

static int want_all_to_all(int g, size_t i)
{
    return input((int)(i / N4), (size_t)g * N4 + i % N4);
}

static int want_from_left(int g, size_t i)
{
    return input((g + GPUS - 1) % GPUS, i);
}

/* One group: all-reduce, all-gather, reduce-scatter and all-to-all on the four GPUs, then a
 * ring of sends and receives in a nested group. */
static int four_gpus(void)
{
    ncclComm_t comm[GPUS];
    int *in[GPUS], *sum[GPUS], *all[GPUS], *piece[GPUS], *swap[GPUS], *ring[GPUS];
    if (ncclCommInitAll(comm, GPUS, NULL) != ncclSuccess)
        return 1;
    if (buffers(in, GPUS * (size_t)N4, 1) || buffers(sum, N4, 0) || buffers(all, GPUS * N4, 0) ||
        buffers(piece, N4, 0) || buffers(swap, GPUS * N4, 0) || buffers(ring, N4, 0))
        return 2;
    int ok = ncclGroupStart() == ncclSuccess;
    for (int g = 0; g < GPUS; g++) {
        ok &= ncclAllReduce(in[g], sum[g], N4, ncclInt32, ncclSum, comm[g], 0) == ncclSuccess;
        ok &= ncclAllGather(in[g], all[g], N4, ncclInt32, comm[g], 0) == ncclSuccess;
        ok &= ncclReduceScatter(in[g], piece[g], N4, ncclInt32, ncclSum, comm[g], 0) == ncclSuccess;
#if HAVE_2_28
        ok &= ncclAlltoAll(in[g], swap[g], N4, ncclInt32, comm[g], 0) == ncclSuccess;
#endif
        ok &= ncclGroupStart() == ncclSuccess;
        ok &= ncclSend(in[g], N4, ncclInt32, (g + 1) % GPUS, comm[g], 0) == ncclSuccess;
        ok &= ncclRecv(ring[g], N4, ncclInt32, (g + GPUS - 1) % GPUS, comm[g], 0) == ncclSuccess;
        ok &= ncclGroupEnd() == ncclSuccess;
    }
    ok &= ncclGroupEnd() == ncclSuccess;
    if (!ok)
        return 3;
    for (int g = 0; g < GPUS; g++)
        if (holds(sum[g], g, N4, want_sum, "all-reduce") ||
            holds(all[g], g, GPUS * N4, want_gathered, "all-gather") ||
            holds(piece[g], g, N4, want_scattered, "reduce-scatter") ||
            (HAVE_2_28 && holds(swap[g], g, GPUS * N4, want_all_to_all, "all-to-all")) ||
            holds(ring[g], g, N4, want_from_left, "send and receive"))
            return 4;
    for (int g = 0; g < GPUS; g++)
        if (ncclCommDestroy(comm[g]) != ncclSuccess)
            return 5;
    return 0;
}

/* One thread drives four GPUs through ncclCommInitAll and one group (a nested one inside):
 * every collective's result on every GPU, two chunks each. */
START_TEST(one_thread_drives_four_gpus)
{
    ck_assert_int_eq(run_child(four_gpus), 0);
}
END_TEST

static int want_rooted(int g, size_t i)
{
    (void)g;
    return input(2, i); /* the root's input */
}

static int want_reduced(int g, size_t i)
{
    return g == 1 ? want_sum(g, i) : -1;
}

/* Reduce to GPU 1, broadcast from GPU 2, gather to GPU 3 and scatter from GPU 0, one at a time
 * (each call its own group); GPUs that are not the root keep their buffers. */
static int rooted(void)
{
    ncclComm_t comm[GPUS];
    int *in[GPUS], *red[GPUS], *bc[GPUS], *gat[GPUS], *sc[GPUS];
    if (ncclCommInitAll(comm, GPUS, NULL) != ncclSuccess)
        return 1;
    if (buffers(in, GPUS * (size_t)N4, 1) || buffers(red, N4, 0) || buffers(bc, N4, 0) ||
        buffers(gat, GPUS * N4, 0) || buffers(sc, N4, 0))
        return 2;
    int ok = ncclGroupStart() == ncclSuccess;
    for (int g = 0; g < GPUS; g++) {
        ok &= ncclReduce(in[g], red[g], N4, ncclInt32, ncclSum, 1, comm[g], 0) == ncclSuccess;
        ok &= ncclBroadcast(in[g], bc[g], N4, ncclInt32, 2, comm[g], 0) == ncclSuccess;
#if HAVE_2_28
        ok &= ncclGather(in[g], gat[g], N4, ncclInt32, 3, comm[g], 0) == ncclSuccess;
        ok &= ncclScatter(in[g], sc[g], N4, ncclInt32, 0, comm[g], 0) == ncclSuccess;
#endif
    }
    ok &= ncclGroupEnd() == ncclSuccess;
    if (!ok)
        return 3;
    for (int g = 0; g < GPUS; g++)
        if (holds(red[g], g, N4, want_reduced, "reduce") ||
            holds(bc[g], g, N4, want_rooted, "broadcast") ||
            (HAVE_2_28 && g == 3 && holds(gat[g], g, GPUS * N4, want_gathered, "gather")) ||
            (HAVE_2_28 && holds(sc[g], g, N4, want_scatter_piece, "scatter")))
            return 4;
    return 0;
}
/* Reduce, broadcast, gather and scatter with roots 1, 2, 3 and 0, in one group. */
START_TEST(rooted_collectives_on_four_gpus)
{
    ck_assert_int_eq(run_child(rooted), 0);
}
END_TEST

/* Two GPUs' int8 and uint8 averages, which NCCL takes of the sum the type holds (wrapped), a
 * PreMulSum with each rank's own scalar, a split into two communicators by parity, and a call
 * in a stream capture, refused; then one rank alone calling a second collective, refused. */
static int details(void)
{
    ncclComm_t comm[GPUS], half[GPUS];
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    ncclUniqueId id;
    int8_t *i8[2];
    uint8_t *u8[2];
    float *f[GPUS];
    ncclResult_t async = ncclInternalError;
    ncclGetUniqueId(&id);
    int ok = ncclGroupStart() == ncclSuccess;
    for (int g = 0; g < GPUS; g++)
        ok &= !cudaSetDevice(g) && ncclCommInitRankConfig(&comm[g], GPUS, id, g, &config) == 0;
    ok &= ncclGroupEnd() == ncclSuccess;
    ok &= ncclCommGetAsyncError(comm[0], &async) == ncclSuccess && async == ncclSuccess;
    if (!ok)
        return 1;
    ok &= ncclGroupStart() == ncclSuccess; /* the splits */
    for (int g = 0; g < GPUS; g++) {
        float v = (float)(g + 1), scalar = (float)(10 * g + 1);
        ncclRedOp_t op;
        ok &= !cudaSetDevice(g) && ncclMemAlloc((void **)&f[g], sizeof *f[g]) == ncclSuccess;
        ok &= !cudaMemcpy(f[g], &v, sizeof v, cudaMemcpyHostToDevice);
        ok &= ncclRedOpCreatePreMulSum(&op, &scalar, ncclFloat32, ncclScalarHostImmediate,
                                       comm[g]) == ncclSuccess;
        ok &= ncclCommSplit(comm[g], g % 2, -g, &half[g], NULL) == ncclSuccess;
        ok &= op == (ncclRedOp_t)ncclNumOps;
    }
    ok &= ncclGroupEnd() == ncclSuccess;
    if (!ok)
        return 2;
    ok &= ncclGroupStart() == ncclSuccess;
    for (int g = 0; g < GPUS; g++)
        ok &= ncclAllReduce(f[g], f[g], 1, ncclFloat32, (ncclRedOp_t)ncclNumOps, comm[g], 0) == 0;
    ok &= ncclGroupEnd() == ncclSuccess;
    float got = 0, want = 1 * 1 + 2 * 11 + 3 * 21 + 4 * 31;
    ok &= !cudaMemcpy(&got, f[3], sizeof got, cudaMemcpyDeviceToHost) && got == want;
    if (!ok)
        return 3;
    int n = 0, me = -1;
    ok &= ncclCommCount(half[1], &n) == 0 && n == 2 && ncclCommUserRank(half[1], &me) == 0;
    ok &= me == 1; /* keys -1 and -3: GPU 3 first, then GPU 1 */
    if (!ok)
        return 4;
    int8_t a8 = 100;
    uint8_t b8[2] = {200, 100};
    for (int g = 0; g < 2; g++) {
        ok &= !cudaSetDevice(2 * g + 1) && !cudaMalloc((void **)&i8[g], 1) &&
              !cudaMalloc((void **)&u8[g], 1);
        ok &= !cudaMemcpy(i8[g], &a8, 1, cudaMemcpyHostToDevice) &&
              !cudaMemcpy(u8[g], &b8[g], 1, cudaMemcpyHostToDevice);
    }
    ok &= ncclGroupStart() == ncclSuccess;
    for (int g = 0; g < 2; g++) { /* the odd GPUs' communicator, ranks in key order */
        ncclComm_t c = half[2 * g + 1];
        ok &= ncclAllReduce(i8[g], i8[g], 1, ncclInt8, ncclAvg, c, 0) == ncclSuccess;
        ok &= ncclAllReduce(u8[g], u8[g], 1, ncclUint8, ncclAvg, c, 0) == ncclSuccess;
    }
    ok &= ncclGroupEnd() == ncclSuccess;
    ok &= !cudaMemcpy(&a8, i8[0], 1, cudaMemcpyDeviceToHost) && a8 == -28;
    ok &= !cudaMemcpy(&b8[0], u8[0], 1, cudaMemcpyDeviceToHost) && b8[0] == 22;
    if (!ok) {
        fprintf(stderr, "int8 average %d (want -28), uint8 %d (want 22)\n", a8, b8[0]);
        return 5;
    }
    cudaStream_t s;
    cudaGraph_t graph;
    ok &= !cudaSetDevice(0) && !cudaStreamCreate(&s) &&
          !cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    ok &= ncclAllReduce(f[0], f[0], 1, ncclFloat32, ncclSum, comm[0], s) == ncclInvalidUsage;
    ok &= !cudaStreamEndCapture(s, &graph);
    if (!ok)
        return 6;
    /* All four ranks call one collective, GPU 1 a second: the first runs, the second is refused
     * (the others' have run out), not waited for. */
    ok &= ncclGroupStart() == ncclSuccess;
    for (int g = 0; g < GPUS; g++)
        ok &= ncclAllReduce(f[g], f[g], 1, ncclFloat32, ncclSum, comm[g], 0) == ncclSuccess;
    ok &= ncclAllReduce(f[1], f[1], 1, ncclFloat32, ncclSum, comm[1], 0) == ncclSuccess;
    ok &= ncclGroupEnd() == ncclInvalidUsage && ncclMemFree(f[0]) == ncclSuccess;
    return ok ? 0 : 7;
}

/* Integer averages, PreMulSum, ncclCommSplit, ncclCommInitRankConfig, a capture refused, and a
 * second collective only one of this process's ranks calls, refused. */
START_TEST(averages_premul_split_and_capture)
{
    ck_assert_int_eq(run_child(details), 0);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"all_reduce_two_ranks", all_reduce_two_ranks, CASE_CPU, 120},
        {"broadcast_two_ranks", broadcast_two_ranks, CASE_CPU, 60},
        {"two_ranks_one_gpu_refused", two_ranks_one_gpu_refused, CASE_CPU, 60},
        {"bad_arguments_refused", bad_arguments_refused, CASE_CPU, 60},
        {"one_thread_drives_four_gpus", one_thread_drives_four_gpus, CASE_CPU, 120},
        {"rooted_collectives_on_four_gpus", rooted_collectives_on_four_gpus, CASE_CPU, 120},
        {"averages_premul_split_and_capture", averages_premul_split_and_capture, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
