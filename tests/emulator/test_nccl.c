/**
 * @file test_nccl.c
 * @brief The NCCL stand-in (emulator/libnccl.so.2): collectives between two processes.
 *
 * Each case makes a unique id, then forks two ranks that each join the
 * communicator on their own emulated GPU and check their results; a rank
 * reports a failure on stderr and through its exit status. The buffers are
 * larger than one staging slot, so collectives run in several chunks.
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

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"all_reduce_two_ranks", all_reduce_two_ranks, CASE_CPU, 120},
        {"broadcast_two_ranks", broadcast_two_ranks, CASE_CPU, 60},
        {"two_ranks_one_gpu_refused", two_ranks_one_gpu_refused, CASE_CPU, 60},
        {"bad_arguments_refused", bad_arguments_refused, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
