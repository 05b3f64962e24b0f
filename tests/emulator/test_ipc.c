/**
 * @file test_ipc.c
 * @brief CUDA IPC between two processes: memory and event handles, against the host's answer.
 *
 * The parent forks a child before it touches CUDA (CUDA does not survive fork()), allocates n
 * ints and GUARD more, fills them with one byte, and hands the child a memory handle and an
 * interprocess event's handle through a pipe. The child opens both, queues a kernel that writes
 * a non-uniform pattern over the first n ints and a record of the event, tells the parent it
 * has recorded, and only later synchronises. The parent's stream waits on the event, then
 * copies the buffer back: every element must be the pattern and every guard byte the fill,
 * which holds only if the wait waited for the child's kernel. Sizes 1, 33 and 1031 (33 waits
 * with cudaEventSynchronize on the host first). Also
 * refused in one line each: handles no cudaIpcGet*Handle made, a memory handle opened in the
 * process that made it, an event handle of an ordinary event, closing memory that was not
 * opened. CTest runs every case on the emulator.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "course_test.h"
#include "test_ipc.h"

/* Ints past n the child must not touch, and the byte the parent fills everything with. */
enum { GUARD = 67, FILL = 0x5a };

/* How long the child leaves its kernel queued after it recorded (the parent must wait). */
enum { CHILD_DELAY_US = 200000 };

/* What the parent hands the child. */
struct handoff {
    cudaIpcMemHandle_t mem;
    cudaIpcEventHandle_t event;
    int n, seed;
};

/* The child: open the parent's buffer and event, queue the pattern and a record, say 'r' (or
 * 'x' when a call failed), and synchronise later. Exits 0 when every call succeeded. */
static _Noreturn void child(int from_parent, int to_parent)
{
    struct handoff h;
    int *d_x = NULL;
    cudaEvent_t e;
    cudaStream_t s;
    int ok =
        read(from_parent, &h, sizeof h) == (ssize_t)sizeof h &&
        cudaIpcOpenMemHandle((void **)&d_x, h.mem, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess &&
        cudaIpcOpenEventHandle(&e, h.event) == cudaSuccess &&
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess &&
        ipc_pattern(d_x, h.n, h.seed, s) == cudaSuccess && cudaEventRecord(e, s) == cudaSuccess;
    char said = ok ? 'r' : 'x';
    ok = write(to_parent, &said, 1) == 1 && ok;
    usleep(CHILD_DELAY_US);
    ok = ok && cudaStreamSynchronize(s) == cudaSuccess &&
         cudaIpcCloseMemHandle(d_x) == cudaSuccess && cudaEventDestroy(e) == cudaSuccess;
    _exit(ok ? 0 : 1);
}

/* The first element of @p got (n ints, then GUARD ints) that is wrong, or -1. */
static long first_wrong(const int *got, int n, int seed)
{
    for (int i = 0; i < n; i++)
        if (got[i] != ipc_value(i, seed))
            return i;
    const unsigned char *guard = (const unsigned char *)(got + n);
    for (size_t b = 0; b < GUARD * sizeof(int); b++)
        if (guard[b] != FILL)
            return n + (long)(b / sizeof(int));
    return -1;
}

/* The parent's side for n elements, with the child already forked. */
static void parent(int n, int to_child, int from_child, pid_t pid)
{
    size_t bytes = (size_t)(n + GUARD) * sizeof(int);
    struct handoff h = {.n = n, .seed = n % 7 + 3};
    int *d_x, *got = malloc(bytes);
    cudaEvent_t e;
    cudaStream_t s;
    ck_assert_ptr_nonnull(got);
    ck_assert_int_eq(cudaMalloc((void **)&d_x, bytes), cudaSuccess);
    ck_assert_int_eq(cudaMemset(d_x, FILL, bytes), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess); /* the fill lands before the child */
    ck_assert_int_eq(cudaIpcGetMemHandle(&h.mem, d_x), cudaSuccess);
    ck_assert_int_eq(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventInterprocess),
                     cudaSuccess);
    ck_assert_int_eq(cudaIpcGetEventHandle(&h.event, e), cudaSuccess);
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(write(to_child, &h, sizeof h), (ssize_t)sizeof h);
    char said = 0;
    ck_assert_msg(read(from_child, &said, 1) == 1 && said == 'r',
                  "%s:%d: n=%d: the child could not open the handles, launch or record", __FILE__,
                  __LINE__, n);
    /* One size waits on the host instead: the stream's wait then has nothing left to wait for. */
    if (n == 33)
        ck_assert_int_eq(cudaEventSynchronize(e), cudaSuccess);
    ck_assert_int_eq(cudaStreamWaitEvent(s, e, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(got, d_x, bytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    long bad = first_wrong(got, n, h.seed);
    ck_assert_msg(bad < 0, "%s:%d: n=%d (+%d guard): element %ld is %d, want %d%s", __FILE__,
                  __LINE__, n, GUARD, bad, bad < 0 ? 0 : got[bad],
                  bad < n ? ipc_value((int)bad, h.seed) : (int)(FILL * 0x01010101u),
                  bad < n ? " (the wait did not wait for the child's kernel?)" : " (a guard)");
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "%s:%d: n=%d: the child failed a call after its record (status %d)", __FILE__,
                  __LINE__, n, status);
    cudaStreamDestroy(s);
    cudaEventDestroy(e);
    cudaFree(d_x);
    free(got);
}

/* A child writes n elements of the parent's buffer; the parent's stream waits for it. */
static void shared_with_child(int n)
{
    int down[2], up[2];
    ck_assert_int_eq(pipe(down), 0);
    ck_assert_int_eq(pipe(up), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        child(down[0], up[1]);
    }
    close(down[0]);
    close(up[1]);
    parent(n, down[1], up[0], pid);
    close(down[1]);
    close(up[0]);
}

START_TEST(child_writes_1)
{
    shared_with_child(1);
}
END_TEST

START_TEST(child_writes_33)
{
    shared_with_child(33);
}
END_TEST

START_TEST(child_writes_1031)
{
    shared_with_child(1031);
}
END_TEST

START_TEST(bad_handles_refused)
{
    cudaIpcMemHandle_t mem;
    cudaIpcEventHandle_t ev;
    void *p;
    cudaEvent_t e;
    memset(&mem, 0, sizeof mem);
    memset(&ev, 0xff, sizeof ev);
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaIpcOpenMemHandle(&p, mem, 0),
                        "not a memory handle cudaIpcGetMemHandle made");
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaIpcOpenEventHandle(&e, ev),
                        "not an event handle cudaIpcGetEventHandle made");
    ck_assert_int_eq(cudaMalloc(&p, 100), cudaSuccess);
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaIpcCloseMemHandle(p),
                        "is not memory cudaIpcOpenMemHandle returned");
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaIpcGetMemHandle(&mem, (char *)p + 4),
                        "is not the start of a live cudaMalloc allocation");
    ck_assert_int_eq(cudaEventCreate(&e), cudaSuccess);
    EXPECT_REFUSED_WITH(cudaErrorInvalidResourceHandle, cudaIpcGetEventHandle(&ev, e),
                        "was not created here with cudaEventInterprocess");
    cudaEventDestroy(e);
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaEventCreateWithFlags(&e, cudaEventInterprocess),
                        "needs cudaEventDisableTiming too");
    cudaFree(p);
}
END_TEST

/* CUDA opens a memory handle only in another process (cudaErrorDeviceUninitialized, "invalid
 * device context", is what it returns in the one that made it). */
START_TEST(own_handle_refused)
{
    cudaIpcMemHandle_t mem;
    void *p, *q;
    ck_assert_int_eq(cudaMalloc(&p, 33), cudaSuccess);
    ck_assert_int_eq(cudaIpcGetMemHandle(&mem, p), cudaSuccess);
    EXPECT_REFUSED_WITH(cudaErrorDeviceUninitialized, cudaIpcOpenMemHandle(&q, mem, 0),
                        "the handle was made by this process");
    cudaFree(p);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"child_writes_1", child_writes_1, CASE_CPU, 60},
        {"child_writes_33", child_writes_33, CASE_CPU, 60},
        {"child_writes_1031", child_writes_1031, CASE_CPU, 60},
        {"bad_handles_refused", bad_handles_refused, CASE_CPU, 60},
        {"own_handle_refused", own_handle_refused, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
