/**
 * @file test_runtime.c
 * @brief The runtime stand-in (emulator/libcudart.so.13), checked through the CUDA API.
 *
 * CTest runs every case with the emulator's libraries first on LD_LIBRARY_PATH,
 * GPU or not. Host cases need only the runtime and the device server; kernel
 * cases also need the PTX VM, and say SKIPPED (exit 77) while its self-test
 * fails (emulator/vm/stub.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "course_test.h"
#include "device.h"
#include "emu.h"
#include "emu_cuda12.h"
#include "test_runtime.h"

/* --- helpers -------------------------------------------------------------------------------- */

/* A dim3 in C. */
static dim3 d3(unsigned x, unsigned y, unsigned z)
{
    return (dim3){x, y, z};
}

/* Bytes that differ from @p value in [p, p + n). */
static size_t count_not(const unsigned char *p, size_t n, unsigned char value)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += p[i] != value;
    return bad;
}

/* --- memory ---------------------------------------------------------------------------------- */

enum { GUARD = 64 };

/* H2D, D2D at an offset, memset of a middle range, D2H into a guarded buffer, at odd sizes. */
START_TEST(memcpy_memset_round_trip)
{
    const size_t sizes[] = {1, 31, 33, 4097, 1000003};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        unsigned char *src = mat_alloc(n), *back = mat_alloc(n + 2 * GUARD);
        for (size_t i = 0; i < n; i++)
            src[i] = (unsigned char)(i * 131 + s * 7 + 1);
        unsigned char *d_a, *d_b;
        ck_assert_int_eq(cudaMalloc((void **)&d_a, n), cudaSuccess);
        ck_assert_int_eq(cudaMalloc((void **)&d_b, n + 3), cudaSuccess);
        ck_assert_int_eq(cudaMemcpy(d_a, src, n, cudaMemcpyHostToDevice), cudaSuccess);
        ck_assert_int_eq(cudaMemcpy(d_b + 3, d_a, n, cudaMemcpyDeviceToDevice), cudaSuccess);
        ck_assert_int_eq(cudaMemset(d_b + 3 + n / 3, 0xA5, n / 3), cudaSuccess);
        memset(back, 0x5A, n + 2 * GUARD);
        ck_assert_int_eq(cudaMemcpy(back + GUARD, d_b + 3, n, cudaMemcpyDefault), cudaSuccess);
        for (size_t i = 0; i < n; i++) {
            unsigned char want = i >= n / 3 && i < n / 3 + n / 3 ? 0xA5 : src[i];
            ck_assert_msg(back[GUARD + i] == want, "n=%zu: byte %zu is %u, not %u", n, i,
                          back[GUARD + i], want);
        }
        ck_assert_uint_eq(count_not(back, GUARD, 0x5A), 0);
        ck_assert_uint_eq(count_not(back + GUARD + n, GUARD, 0x5A), 0);
        ck_assert_int_eq(cudaFree(d_a), cudaSuccess);
        ck_assert_int_eq(cudaFree(d_b), cudaSuccess);
        free(src);
        free(back);
    }
}
END_TEST

/* A 2D copy of 13 rows of 37 bytes between pitches 64 (device) and 41 (host), and a 2D fill. */
START_TEST(memcpy2d_memset2d)
{
    enum { W = 37, H = 13, DP = 64, HP = 41 };
    unsigned char host[HP * H], back[HP * H], *d;
    for (int i = 0; i < HP * H; i++)
        host[i] = (unsigned char)(i * 7 + 3);
    ck_assert_int_eq(cudaMalloc((void **)&d, DP * H), cudaSuccess);
    ck_assert_int_eq(cudaMemset(d, 0xEE, DP * H), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy2D(d, DP, host, HP, W, H, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemset2D(d + 5, DP, 0x11, 3, H), cudaSuccess);
    memset(back, 0, sizeof back);
    ck_assert_int_eq(cudaMemcpy2D(back, HP, d, DP, W, H, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int r = 0; r < H; r++)
        for (int c = 0; c < W; c++) {
            unsigned char want = c >= 5 && c < 8 ? 0x11 : host[r * HP + c];
            ck_assert_msg(back[r * HP + c] == want, "row %d col %d", r, c);
        }
    unsigned char pad[DP - W];
    ck_assert_int_eq(cudaMemcpy(pad, d + W, DP - W, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_uint_eq(count_not(pad, DP - W, 0xEE), 0); /* the pitch padding is untouched */
    ck_assert_int_eq(cudaMemcpy2D(back, 10, d, DP, W, H, cudaMemcpyDeviceToHost),
                     cudaErrorInvalidPitchValue);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidPitchValue);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* A 3D allocation's rows padded, a fill of a box inside it that leaves the rest, and a copy of
 * the whole to a second allocation between two devices' memories. */
START_TEST(memcpy3d_memset3d)
{
    enum { W = 37, H = 5, D = 3 };
    struct cudaPitchedPtr p, q;
    ck_assert_int_eq(cudaMalloc3D(&p, make_cudaExtent(W, H, D)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc3D(&q, make_cudaExtent(W, H, D)), cudaSuccess);
    ck_assert(p.pitch >= W && p.pitch % 512 == 0 && p.xsize == W && p.ysize == H);
    size_t bytes = p.pitch * H * D;
    unsigned char *back = malloc(bytes);
    ck_assert_int_eq(cudaMemset(p.ptr, 0x11, bytes), cudaSuccess);
    ck_assert_int_eq(cudaMemset3D(p, 0x5a, make_cudaExtent(W - 3, H - 1, D - 1)), cudaSuccess);
    struct cudaMemcpy3DPeerParms pp = {0};
    pp.srcPtr = p, pp.dstPtr = q, pp.extent = make_cudaExtent(W, H, D);
    ck_assert_int_eq(cudaMemcpy3DPeer(&pp), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(back, q.ptr, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int in = x < W - 3 && y < H - 1 && z < D - 1;
                ck_assert_msg(back[(z * H + y) * p.pitch + x] == (in ? 0x5a : 0x11),
                              "byte (%d,%d,%d) of the copy", x, y, z);
            }
    free(back);
    ck_assert_int_eq(cudaFree(p.ptr), cudaSuccess);
    ck_assert_int_eq(cudaFree(q.ptr), cudaSuccess);
}
END_TEST

/* A NULL where a call writes its answer, or for the function it queues, is refused in one line
 * (CUDA's cudaErrorInvalidValue; a crash, or a crash later in a synchronisation, before), and a
 * stream's priority outside the device's range is its nearest end. */
START_TEST(null_arguments_and_priorities)
{
    cudaEvent_t a, b;
    cudaStream_t s;
    int prio = 1;
    ck_assert_int_eq(cudaEventCreate(&a), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&b), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(a, 0), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(b, 0), cudaSuccess);
    ck_assert_int_eq(cudaEventSynchronize(b), cudaSuccess);
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaMalloc(NULL, 16), "cudaMalloc: devPtr is NULL");
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaGetDeviceCount(NULL), "count is NULL");
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaEventCreate(NULL), "event is NULL");
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaStreamCreate(NULL), "pStream is NULL");
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaEventElapsedTime(NULL, a, b), "ms is NULL");
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaLaunchHostFunc(0, NULL, NULL), "fn is NULL");
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    cudaGetLastError();
    ck_assert_int_eq(cudaStreamCreateWithPriority(&s, 0, -15), cudaSuccess);
    ck_assert_int_eq(cudaStreamGetPriority(s, &prio), cudaSuccess);
    ck_assert_int_eq(prio, -5);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
    ck_assert_int_eq(cudaStreamCreateWithPriority(&s, 0, 10), cudaSuccess);
    ck_assert_int_eq(cudaStreamGetPriority(s, &prio), cudaSuccess);
    ck_assert_int_eq(prio, 0);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
    cudaEventDestroy(a), cudaEventDestroy(b);
}
END_TEST

/* More than the reported memory fails cleanly, is not sticky, and frees make room again. */
START_TEST(malloc_beyond_capacity)
{
    size_t free_b, total;
    void *a, *b;
    ck_assert_int_eq(cudaMemGetInfo(&free_b, &total), cudaSuccess);
    ck_assert_msg(total >= ((size_t)64 << 20), "only %zu bytes reported", total);
    ck_assert_int_eq(cudaMalloc(&a, total + 1), cudaErrorMemoryAllocation);
    ck_assert_ptr_null(a);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorMemoryAllocation);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
    ck_assert_int_eq(cudaMalloc(&a, total / 2 + 4096), cudaSuccess);
    ck_assert_int_eq(cudaMemGetInfo(&free_b, &total), cudaSuccess);
    ck_assert_uint_lt(free_b, total / 2);
    ck_assert_int_eq(cudaMalloc(&b, total / 2 + 4096), cudaErrorMemoryAllocation);
    ck_assert_int_eq(cudaFree(a), cudaSuccess);
    ck_assert_int_eq(cudaMalloc(&b, total / 2 + 4096), cudaSuccess);
    ck_assert_int_eq(cudaFree(b), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
}
END_TEST

/* The host cannot dereference a device pointer: a child that tries dies of SIGSEGV. */
START_TEST(host_dereference_segfaults)
{
    int *d;
    ck_assert_int_eq(cudaMalloc((void **)&d, 4096), cudaSuccess);
    ck_assert_int_eq(cudaMemset(d, 0, 4096), cudaSuccess);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);
        volatile int *p = d;
        _exit(p[5] == 12345 ? 3 : 4); /* the read itself must fault */
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
                  "the child was not killed by SIGSEGV (status 0x%x)", status);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* Copies through freed, out-of-range and host pointers are refused with one line each. */
START_TEST(bad_ranges_refused)
{
    int host[64] = {0}, *d, *e;
    struct capture cap;
    ck_assert_int_eq(cudaMalloc((void **)&d, 64 * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&e, 64 * sizeof(int)), cudaSuccess);
    capture_begin(&cap, 2);
    cudaError_t past = cudaMemcpy(d + 1, host, 64 * sizeof(int), cudaMemcpyHostToDevice);
    cudaError_t wrong = cudaMemcpy(host, host + 1, 4, cudaMemcpyDeviceToHost);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
    cudaError_t freed = cudaMemcpy(host, d, 4, cudaMemcpyDeviceToHost);
    cudaError_t twice = cudaFree(d);
    char *said = capture_end(&cap);
    ck_assert_int_eq(past, cudaErrorInvalidValue);
    ck_assert_int_eq(wrong, cudaErrorInvalidValue);
    ck_assert_int_eq(freed, cudaErrorInvalidValue);
    ck_assert_int_eq(twice, cudaErrorInvalidValue);
    ck_assert_msg(strstr(said, "run 4 bytes past the end of a 256-byte allocation"), "%s", said);
    ck_assert_msg(strstr(said, "is not a device pointer"), "%s", said);
    ck_assert_msg(strstr(said, "use after free"), "%s", said);
    ck_assert_msg(strstr(said, "freed already"), "%s", said);
    ck_assert_int_eq(course_count(said, "\n"), 4);
    free(said);
    /* Not sticky: the next calls work. */
    ck_assert_int_eq(cudaMemcpy(e, host, 4, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaFree(e), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
}
END_TEST

/* Pinned, managed (host-usable device memory) and device pointers, as attributes tell them. */
START_TEST(pointer_kinds)
{
    int *d, *h, *m, local = 0;
    struct cudaPointerAttributes a;
    ck_assert_int_eq(cudaMalloc((void **)&d, 100), cudaSuccess);
    ck_assert_int_eq(cudaMallocHost((void **)&h, 100), cudaSuccess);
    ck_assert_int_eq(cudaMallocManaged((void **)&m, 33 * sizeof(int), cudaMemAttachGlobal),
                     cudaSuccess);
    for (int i = 0; i < 33; i++)
        m[i] = 3 * i - 7; /* the host writes managed memory directly */
    int back[33];
    ck_assert_int_eq(cudaMemcpy(back, m, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < 33; i++)
        ck_assert_int_eq(back[i], 3 * i - 7);
    ck_assert_int_eq(cudaPointerGetAttributes(&a, d), cudaSuccess);
    ck_assert_int_eq(a.type, cudaMemoryTypeDevice);
    ck_assert_int_eq(a.device, 0);
    ck_assert_int_eq(cudaPointerGetAttributes(&a, h), cudaSuccess);
    ck_assert_int_eq(a.type, cudaMemoryTypeHost);
    ck_assert_int_eq(cudaPointerGetAttributes(&a, m + 5), cudaSuccess);
    ck_assert_int_eq(a.type, cudaMemoryTypeManaged);
    ck_assert_int_eq(cudaPointerGetAttributes(&a, &local), cudaSuccess);
    ck_assert_int_eq(a.type, cudaMemoryTypeUnregistered);
    ck_assert_int_eq(cudaFree(m), cudaSuccess);
    ck_assert_int_eq(cudaFreeHost(h), cudaSuccess);
    ck_assert_int_eq(cudaFreeHost(&local), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* Two members of one object registered apart, as NVIDIA's nvbench registers its flags: they share
 * a page, and each has its own device pointer and unregisters alone; a range that shares a page
 * and reaches past it is refused in one line, not emulated. */
static void registered_in_one_page(void)
{
    char *page = aligned_alloc(4096, 3 * 4096);
    int *a = (int *)(page + 64), *b = a + 1, *da, *db;
    *a = *b = 7;
    ck_assert_int_eq(cudaHostRegister(a, 4, cudaHostRegisterMapped), cudaSuccess);
    ck_assert_int_eq(cudaHostRegister(b, 4, cudaHostRegisterMapped), cudaSuccess);
    ck_assert_int_eq(cudaHostRegister(b, 4, 0), cudaErrorHostMemoryAlreadyRegistered);
    ck_assert_int_eq(cudaHostRegister(page + 4000, 200, 0), cudaErrorNotSupported);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorNotSupported); /* not sticky */
    ck_assert_int_eq(cudaHostGetDevicePointer((void **)&da, a, 0), cudaSuccess);
    ck_assert_int_eq(cudaHostGetDevicePointer((void **)&db, b, 0), cudaSuccess);
    ck_assert_ptr_eq(db, da + 1);
    ck_assert_int_eq(rt_test_affine(db, 1, 0, 5, d3(1, 1, 1), d3(32, 1, 1)), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    ck_assert_int_eq(cudaHostUnregister(a), cudaSuccess);
    ck_assert_int_eq(rt_test_affine(db, 1, 0, 6, d3(1, 1, 1), d3(32, 1, 1)), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    ck_assert_int_eq(cudaHostUnregister(b), cudaSuccess);
    ck_assert_int_eq(cudaHostUnregister(b), cudaErrorHostMemoryNotRegistered);
    ck_assert_int_eq(*a, 7);
    ck_assert_int_eq(*b, 6);
    free(page);
}

/* Zero-copy: a kernel writes pinned memory through cudaHostGetDevicePointer (the same address)
 * and registered malloc memory through its device pointer (another address); the host reads
 * the results in place, the bytes around them stay, and unregistering keeps the content. */
START_TEST(zero_copy_pinned_and_registered)
{
    enum { N = 1001, GUARD = 8, OFF = 100 };
    int *h, *dh, *dp;
    ck_assert_int_eq(cudaHostAlloc((void **)&h, (N + GUARD) * sizeof(int), cudaHostAllocMapped),
                     cudaSuccess);
    for (int i = 0; i < N + GUARD; i++)
        h[i] = -1;
    ck_assert_int_eq(cudaHostGetDevicePointer((void **)&dh, h, 0), cudaSuccess);
    ck_assert_int_eq(rt_test_affine(dh, N, 3, -5, d3(4, 1, 1), d3(256, 1, 1)), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    for (int i = 0; i < N + GUARD; i++)
        ck_assert_msg(h[i] == (i < N ? 3 * i - 5 : -1), "pinned, n=%d: h[%d] = %d, want %d", N, i,
                      h[i], i < N ? 3 * i - 5 : -1);
    char *buf = malloc(OFF + (N + GUARD) * sizeof(int));
    memset(buf, 9, OFF + (N + GUARD) * sizeof(int));
    int *r = (int *)(buf + OFF);
    ck_assert_int_eq(cudaHostRegister(r, N * sizeof(int), cudaHostRegisterMapped), cudaSuccess);
    ck_assert_int_eq(cudaHostRegister(r + 1, 4, 0), cudaErrorHostMemoryAlreadyRegistered);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorHostMemoryAlreadyRegistered); /* not sticky */
    ck_assert_int_eq(cudaHostGetDevicePointer((void **)&dp, r, 0), cudaSuccess);
    ck_assert_int_eq(rt_test_affine(dp, N, 2, 1, d3(4, 1, 1), d3(256, 1, 1)), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    ck_assert_int_eq(cudaHostUnregister(r), cudaSuccess);
    for (int i = 0; i < OFF; i++)
        ck_assert_msg(buf[i] == 9, "registered, n=%d: byte %d before the range = %d", N, i, buf[i]);
    for (int i = 0; i < N + GUARD; i++)
        ck_assert_msg(r[i] == (i < N ? 2 * i + 1 : 0x09090909),
                      "registered, n=%d: r[%d] = %d after cudaHostUnregister", N, i, r[i]);
    int v = 1, *none;
    ck_assert_int_eq(cudaDeviceGetAttribute(&v, cudaDevAttrCanUseHostPointerForRegisteredMem, 0),
                     cudaSuccess);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(cudaHostRegister(NULL, 4, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaHostRegister(dh, 4, 0), cudaErrorInvalidValue); /* pinned already */
    ck_assert_int_eq(cudaHostGetDevicePointer((void **)&none, r, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaHostUnregister(r), cudaErrorHostMemoryNotRegistered);
    free(buf);
    registered_in_one_page();
    ck_assert_int_eq(cudaFreeHost(h), cudaSuccess);
}
END_TEST

/* A stream capture that allocates, fills, copies out and frees (cudaMallocAsync, a kernel,
 * cudaMemcpyAsync, cudaFreeAsync): the graph runs twice and gives the result each time. */
START_TEST(captured_malloc_and_free_async)
{
    enum { N = 333 };
    int out[N];
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    int *d;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMallocAsync((void **)&d, N * sizeof(int), s), cudaSuccess);
    ck_assert_int_eq(rt_test_affine_on(d, N, 5, -2, s), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(out, d, sizeof out, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ck_assert_int_eq(cudaFreeAsync(d, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(s, &g), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&ge, g, 0), cudaSuccess);
    for (int run = 0; run < 2; run++) {
        memset(out, 0, sizeof out);
        ck_assert_int_eq(cudaGraphLaunch(ge, s), cudaSuccess);
        ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
        for (int i = 0; i < N; i++)
            ck_assert_msg(out[i] == 5 * i - 2, "graph run %d, n=%d: out[%d] = %d, want %d", run, N,
                          i, out[i], 5 * i - 2);
    }
    ck_assert_int_eq(cudaGraphExecDestroy(ge), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
}
END_TEST

/* Set by callback_sets_flag, on whichever thread runs it. */
static volatile int callback_ran;

static void CUDART_CB callback_sets_flag(cudaStream_t stream, cudaError_t status, void *data)
{
    (void)stream, (void)status;
    callback_ran = *(int *)data;
}

/* A callback runs after the kernel before it though the host never synchronises: it waits on a
 * flag of its own, as cuda-samples' simpleCallback waits at a barrier its callbacks reach. */
START_TEST(callback_runs_without_a_synchronising_call)
{
    enum { N = 257 };
    int *d, host[N], token = 41;
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d, N * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(rt_test_affine_on(d, N, 7, 3, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamAddCallback(s, callback_sets_flag, &token, 0), cudaSuccess);
    for (int waited = 0; !callback_ran && waited < 5000; waited += 10) {
        const struct timespec ms = {0, 10 * 1000000L};
        nanosleep(&ms, NULL); /* no CUDA call: only the runtime's own progress can run it */
    }
    ck_assert_msg(callback_ran == 41, "callback after a kernel of n=%d: not run within 5 s", N);
    ck_assert_int_eq(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < N; i++)
        ck_assert_msg(host[i] == 7 * i + 3, "n=%d: out[%d] = %d, want %d", N, i, host[i],
                      7 * i + 3);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
}
END_TEST

/* --- devices, streams, events ---------------------------------------------------------------- */

/* An sm_90 part that says it is emulated, with the course's limits. */
START_TEST(device_properties)
{
    struct cudaDeviceProp p;
    struct device_info info;
    int v, count;
    const char *gpus = getenv("COURSE_EMU_GPUS");
    ck_assert_int_eq(cudaGetDeviceCount(&count), cudaSuccess);
    ck_assert_int_eq(count, gpus && *gpus ? atoi(gpus) : 2);
    ck_assert_int_eq(cudaGetDeviceProperties(&p, 1), cudaSuccess);
    ck_assert_str_eq(p.name, "Course CPU emulator (sm_90)");
    ck_assert_int_eq(p.major * 10 + p.minor, 90);
    ck_assert_int_eq(p.warpSize, 32);
    ck_assert_int_eq(p.maxThreadsPerBlock, 1024);
    ck_assert_uint_eq(p.sharedMemPerBlock, 48 * 1024);
    ck_assert_uint_eq(p.sharedMemPerBlockOptin, 227 * 1024);
    ck_assert_int_gt(p.multiProcessorCount, 0);
    ck_assert_int_gt(p.l2CacheSize, 0);
    ck_assert_int_eq(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
    ck_assert_int_eq(v, p.multiProcessorCount);
    ck_assert_int_eq(cudaGetDeviceProperties(&p, count), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaSetDevice(count), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidDevice);
    ck_assert_int_eq(device_query(&info), 1);
    ck_assert_int_eq(info.emulated, 1);
    ck_assert_int_eq(device_emulated(), 1);
    ck_assert_int_eq(device_compute_capability(), 90);
    ck_assert_uint_eq(info.mem_total, p.totalGlobalMem);
    ck_assert_str_eq(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
    ck_assert_str_eq(cudaGetErrorString(cudaErrorNoKernelImageForDevice),
                     "no kernel image is available for execution on the device");
}
END_TEST

/* Two emulated GPUs share one memory: every attribute of their link is the best a GPU reports,
 * and the API's error cases are the runtime's (a device with itself, out of range, NULL, an
 * attribute that does not exist). */
START_TEST(peer_attributes)
{
    int count, v = -1, can = -1;
    ck_assert_int_eq(cudaGetDeviceCount(&count), cudaSuccess);
    ck_assert_int_ge(count, 2);
    ck_assert_int_eq(cudaDeviceCanAccessPeer(&can, 1, 0), cudaSuccess);
    ck_assert_int_eq(can, 1);
    static const struct {
        enum cudaDeviceP2PAttr attr;
        int want;
    } attrs[] = {
        {cudaDevP2PAttrPerformanceRank, 0},
        {cudaDevP2PAttrAccessSupported, 1},
        {cudaDevP2PAttrNativeAtomicSupported, 1},
        {cudaDevP2PAttrCudaArrayAccessSupported, 1},
#if CUDART_VERSION >= 13000
        {cudaDevP2PAttrOnlyPartialNativeAtomicSupported, 0},
#endif
    };
    for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
        v = -1;
        ck_assert_int_eq(cudaDeviceGetP2PAttribute(&v, attrs[i].attr, 0, count - 1), cudaSuccess);
        ck_assert_msg(v == attrs[i].want, "attribute %d is %d, want %d", attrs[i].attr, v,
                      attrs[i].want);
    }
    ck_assert_int_eq(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 1, 1),
                     cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, count),
                     cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, -1, 0),
                     cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaDeviceGetP2PAttribute(NULL, cudaDevP2PAttrAccessSupported, 0, 1),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudaDeviceGetP2PAttribute(&v, (enum cudaDeviceP2PAttr)99, 0, 1),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess); /* not sticky */
}
END_TEST

/* COURSE_EMU_GPUS=N gives N GPUs whose allocations say which GPU they are on; a bad value
 * is refused with one line (each in a fresh child: the count is read once per process). */
START_TEST(emu_gpus_setting)
{
    const char *values[] = {"3", "0", "seven", "17"};
    const int want[] = {3, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            int n = -1, *d;
            struct cudaPointerAttributes a;
            setenv("COURSE_EMU_GPUS", values[i], 1);
            if (freopen("/dev/null", "w", stderr) == NULL)
                _exit(90);
            if (cudaGetDeviceCount(&n) != cudaSuccess)
                _exit(n == 0 ? 0 : 91);
            if (cudaSetDevice(n - 1) || cudaMalloc((void **)&d, 4) ||
                cudaPointerGetAttributes(&a, d) || a.device != n - 1 || cudaSetDevice(n) == 0)
                _exit(92);
            _exit(n);
        }
        int status = 0;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == want[i],
                      "COURSE_EMU_GPUS=%s: status 0x%x", values[i], status);
    }
}
END_TEST

/* Streams and events: queued work is not done until synchronised (queries answer not ready,
 * once); host-time events; the API's error cases. */
START_TEST(streams_and_events)
{
    cudaStream_t s;
    cudaEvent_t start, stop, untimed, never;
    float ms = -1;
    int *d;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&start), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&stop), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&never), cudaSuccess);
    ck_assert_int_eq(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d, 1 << 20), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(start, s), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(d, 1, 1 << 20, s), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(stop, s), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(untimed, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamWaitEvent(0, stop, 0), cudaSuccess);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, start, stop), cudaErrorNotReady);
    ck_assert_int_eq(cudaEventQuery(stop), cudaErrorNotReady);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess); /* not ready is no error */
    ck_assert_int_eq(cudaEventSynchronize(stop), cudaSuccess);
    ck_assert_int_eq(cudaEventQuery(stop), cudaSuccess);
    ck_assert_int_eq(cudaStreamQuery(s), cudaErrorNotReady); /* untimed's record */
    ck_assert_int_eq(cudaStreamQuery(s), cudaSuccess);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
    ck_assert(ms >= 0.0f && ms < 10000.0f);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, start, never), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
    ck_assert_int_eq(cudaEventDestroy(start), cudaSuccess);
    ck_assert_int_eq(cudaEventDestroy(stop), cudaSuccess);
    ck_assert_int_eq(cudaEventDestroy(untimed), cudaSuccess);
    ck_assert_int_eq(cudaEventDestroy(never), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* --- launches -------------------------------------------------------------------------------- */

/* Configuration errors come back from cudaGetLastError once, and are not sticky; each refusal
 * says in one line which kernel and which limit. */
START_TEST(bad_launch_config_not_sticky)
{
    int *d;
    struct capture cap;
    ck_assert_int_eq(cudaMalloc((void **)&d, 64), cudaSuccess);
    capture_begin(&cap, 2);
    cudaError_t big_block = rt_test_affine(d, 16, 1, 0, d3(1, 1, 1), d3(1025, 1, 1));
    cudaError_t after = cudaGetLastError();
    cudaError_t tall_grid = rt_test_affine(d, 16, 1, 0, d3(1, 65536, 1), d3(32, 1, 1));
    cudaError_t empty_grid = rt_test_affine(d, 16, 1, 0, d3(0, 1, 1), d3(32, 1, 1));
    cudaError_t deep_block = rt_test_affine(d, 16, 1, 0, d3(1, 1, 1), d3(8, 8, 65));
    char *said = capture_end(&cap);
    ck_assert_int_eq(big_block, cudaErrorInvalidConfiguration);
    ck_assert_int_eq(after, cudaSuccess);
    ck_assert_int_eq(tall_grid, cudaErrorInvalidConfiguration);
    ck_assert_int_eq(empty_grid, cudaErrorInvalidConfiguration);
    ck_assert_int_eq(deep_block, cudaErrorInvalidConfiguration);
    ck_assert_msg(course_count(said, "\n") == 4 && course_count(said, "launch of ") == 4 &&
                      course_count(said, "affine") == 4 &&
                      strstr(said, "blocks of 1025 x 1 x 1 threads") &&
                      strstr(said, "a grid of 1 x 65536 x 1"),
                  "%s", said);
    free(said);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* A binary without PTX says how to rebuild, once, and gets cudaErrorNoKernelImageForDevice. */
START_TEST(no_ptx_message)
{
    int *d;
    struct capture cap;
    ck_assert_int_eq(cudaMalloc((void **)&d, 64), cudaSuccess);
    capture_begin(&cap, 2);
    cudaError_t first = rt_test_no_ptx(d), again = rt_test_no_ptx(d);
    char *said = capture_end(&cap);
    ck_assert_int_eq(first, cudaErrorNoKernelImageForDevice);
    ck_assert_int_eq(again, cudaErrorNoKernelImageForDevice);
    ck_assert_msg(strstr(said, "COURSE_CUDA_ARCHS=90 ./course") && course_count(said, "\n") == 1,
                  "%s", said);
    free(said);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* nvcc -arch=sm_90a embeds compute_90 and compute_90a PTX, both of architecture 90: the emulator
 * takes the sm_90a one, as a GPU runs the sm_90a code (CuTe's Hopper tutorials assert in the
 * other). */
START_TEST(fat_binary_prefers_sm_90a)
{
    int *d, got = 0;
    ck_assert_int_eq(cudaMalloc((void **)&d, sizeof *d), cudaSuccess);
    ck_assert_int_eq(rt_test_arch_90a(d), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_msg(got == 901, "%s:%d: a -arch=sm_90a kernel ran its %s code", __FILE__, __LINE__,
                  got == 900 ? "compute_90" : "unknown");
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* A launch runs the grid: every element of a 2D grid written, the guard zone not. */
START_TEST(launch_runs)
{
    enum { N = 100003, PAD = 64 };
    int *d, *h = mat_alloc((N + 2 * PAD) * sizeof *h);
    ck_assert_int_eq(cudaMalloc((void **)&d, (N + 2 * PAD) * sizeof *d), cudaSuccess);
    ck_assert_int_eq(cudaMemset(d, 0xFF, (N + 2 * PAD) * sizeof *d), cudaSuccess);
    ck_assert_int_eq(rt_test_affine(d + PAD, N, 3, -5, d3(131, 8, 1), d3(96, 1, 1)), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(h, d, (N + 2 * PAD) * sizeof *d, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    for (int i = 0; i < N; i++)
        ck_assert_msg(h[PAD + i] == 3 * i - 5, "out[%d] = %d", i, h[PAD + i]);
    for (int i = 0; i < PAD; i++)
        ck_assert(h[i] == -1 && h[PAD + N + i] == -1);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
    free(h);
}
END_TEST

/* A fault prints one line when the grid runs (at the synchronisation), and its error is
 * returned by every call from then on (the launch itself returns cudaSuccess, as on a GPU). */
START_TEST(fault_is_sticky)
{
    int *d;
    struct capture cap;
    ck_assert_int_eq(cudaMalloc((void **)&d, 64), cudaSuccess);
    capture_begin(&cap, 2);
    cudaError_t launch = rt_test_store_at(d, 1 << 24);
    cudaError_t sync = cudaDeviceSynchronize();
    char *said = capture_end(&cap);
    ck_assert_int_eq(launch, cudaSuccess);
    ck_assert_int_eq(sync, cudaErrorIllegalAddress);
    ck_assert_msg(!strncmp(said, "emulator: ", 10) && course_count(said, "\n") == 1, "%s", said);
    ck_assert_msg(strstr(said, "store_at_kernel"), "the line names no kernel: %s", said);
    free(said);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorIllegalAddress);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorIllegalAddress);
    void *more;
    ck_assert_int_eq(cudaMalloc(&more, 64), cudaErrorIllegalAddress);
    ck_assert_int_eq(cudaMemcpy(&launch, d, 4, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
}
END_TEST

/* Dynamic shared memory beyond 48 KiB needs cudaFuncSetAttribute, up to 227 KiB; each refusal
 * names the kernel, the bytes asked and the limit in one line. */
START_TEST(dynamic_shared_memory_limit)
{
    int *d, h[256];
    struct capture cap;
    ck_assert_int_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    ck_assert_int_eq(rt_test_dynamic_smem(d, 256, 48 * 1024), cudaSuccess);
    capture_begin(&cap, 2);
    cudaError_t past_default = rt_test_dynamic_smem(d, 256, 64 * 1024);
    cudaError_t after = cudaGetLastError(); /* the launch itself returned it */
    char *said = capture_end(&cap);
    ck_assert_int_eq(past_default, cudaErrorInvalidValue);
    ck_assert_int_eq(after, cudaSuccess);
    ck_assert_msg(course_count(said, "\n") == 1 && strstr(said, "dynamic_smem_kernel") &&
                      strstr(said, "65536 of dynamic") && strstr(said, "limit of 49152 bytes"),
                  "%s", said);
    free(said);
    ck_assert_int_eq(cudaFuncSetAttribute(rt_test_dynamic_smem_kernel(),
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024),
                     cudaSuccess);
    ck_assert_int_eq(rt_test_dynamic_smem(d, 256, 96 * 1024), cudaSuccess);
    capture_begin(&cap, 2);
    cudaError_t past_optin = rt_test_dynamic_smem(d, 256, 96 * 1024 + 4);
    cudaError_t too_much = cudaFuncSetAttribute(
        rt_test_dynamic_smem_kernel(), cudaFuncAttributeMaxDynamicSharedMemorySize, 228 * 1024);
    said = capture_end(&cap);
    ck_assert_int_eq(past_optin, cudaErrorInvalidValue);
    ck_assert_int_eq(too_much, cudaErrorInvalidValue);
    ck_assert_msg(course_count(said, "\n") == 2 && course_count(said, "dynamic_smem_kernel") == 2 &&
                      strstr(said, "limit of 98304 bytes") && strstr(said, "227 KiB"),
                  "%s", said);
    free(said);
    ck_assert_int_eq(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int t = 0; t < 256; t++)
        ck_assert_int_eq(h[t], t);
    struct cudaFuncAttributes fa;
    ck_assert_int_eq(cudaFuncGetAttributes(&fa, rt_test_dynamic_smem_kernel()), cudaSuccess);
    ck_assert_int_eq(fa.maxDynamicSharedSizeBytes, 96 * 1024);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

#if CUDART_VERSION >= 13000 /* the runtime's library calls: CUDA 13's stand-in only */
/* out[t] = base + t, base a module variable (40). */
static const char fill_base_ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .global .align 4 .u32 base = 40;\n"
    ".visible .entry fill_base(.param .u64 out)\n{\n"
    "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %tid.x;\n  ld.global.u32 %r2, [base];\n  add.s32 %r3, %r1, %r2;\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r3;\n"
    "  ret;\n}\n";

/* A library loaded from PTX text through the runtime (CUDA 12's cudaLibraryLoadData): its kernel
 * launched with cudaLaunchKernel, its variable set between two launches. */
START_TEST(libraries_through_the_runtime)
{
    cudaLibrary_t lib;
    cudaKernel_t k;
    unsigned count = 0;
    int *d, h[33], *base;
    size_t bytes = 0;
    ck_assert_int_eq(cudaLibraryLoadData(&lib, fill_base_ptx, NULL, NULL, 0, NULL, NULL, 0),
                     cudaSuccess);
    ck_assert_int_eq(cudaLibraryGetKernelCount(&count, lib), cudaSuccess);
    ck_assert_int_eq(cudaLibraryGetKernel(&k, lib, "fill_base"), cudaSuccess);
    ck_assert_int_eq(cudaLibraryGetGlobal((void **)&base, &bytes, lib, "base"), cudaSuccess);
    ck_assert(count == 1 && bytes == 4);
    ck_assert_int_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    for (int rep = 0; rep < 2; rep++) {
        void *args[] = {&d};
        ck_assert_int_eq(cudaLaunchKernel((const void *)k, d3(1, 1, 1), d3(33, 1, 1), args, 0, 0),
                         cudaSuccess);
        ck_assert_int_eq(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
        for (int t = 0; t < 33; t++)
            ck_assert_int_eq(h[t], (rep ? -5 : 40) + t);
        int minus5 = -5;
        ck_assert_int_eq(cudaMemcpy(base, &minus5, 4, cudaMemcpyHostToDevice), cudaSuccess);
    }
    ck_assert_int_eq(cudaLibraryUnload(lib), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST
#endif

/* Advice and prefetches over parts of a managed allocation, read back for the whole, for a part
 * every piece of which was told the same, and for one whose pieces differ. */
START_TEST(managed_advice_read_back)
{
    enum { KB = 1024, BYTES = 1024 * KB };
    char *m;
    int v = 99, by[3];
    struct cudaMemLocation dev0 = {cudaMemLocationTypeDevice, 0},
                           host = {cudaMemLocationTypeHost, 0};
    ck_assert_int_eq(cudaMallocManaged((void **)&m, BYTES, cudaMemAttachGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 512 * KB, cudaMemAdviseSetReadMostly, dev0), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, BYTES, cudaMemAdviseSetPreferredLocation, dev0), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m + 256 * KB, 512 * KB, cudaMemAdviseSetAccessedBy, dev0),
                     cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m + 256 * KB, 512 * KB, cudaMemAdviseSetAccessedBy, host),
                     cudaSuccess);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, BYTES, dev0, 0, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 4 * KB, host, 0, 0), cudaSuccess);
    enum cudaMemRangeAttribute ra = cudaMemRangeAttributeReadMostly;
    ck_assert_int_eq(cudaMemRangeGetAttribute(&v, 4, ra, m, 512 * KB), cudaSuccess);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(cudaMemRangeGetAttribute(&v, 4, ra, m, BYTES), cudaSuccess);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(
        cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributePreferredLocation, m, BYTES),
        cudaSuccess);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(cudaMemRangeGetAttribute(by, sizeof by, cudaMemRangeAttributeAccessedBy,
                                              m + 300 * KB, 100 * KB),
                     cudaSuccess);
    ck_assert(by[0] == 0 && by[1] == cudaCpuDeviceId && by[2] == cudaInvalidDeviceId);
    ck_assert_int_eq(
        cudaMemRangeGetAttribute(by, sizeof by, cudaMemRangeAttributeAccessedBy, m, BYTES),
        cudaSuccess);
    ck_assert_int_eq(by[0], cudaInvalidDeviceId);
    int last[3];
    void *data[] = {&last[0], &last[1], &last[2]};
    size_t sizes[] = {4, 4, 4};
    enum cudaMemRangeAttribute which[] = {cudaMemRangeAttributeLastPrefetchLocation,
                                          cudaMemRangeAttributeLastPrefetchLocation,
                                          cudaMemRangeAttributeLastPrefetchLocation};
    ck_assert_int_eq(cudaMemRangeGetAttributes(data, sizes, which, 1, m + 4 * KB, 4 * KB),
                     cudaSuccess);
    ck_assert_int_eq(cudaMemRangeGetAttributes(data + 1, sizes, which, 1, m, 8 * KB), cudaSuccess);
    ck_assert_int_eq(cudaMemRangeGetAttributes(data + 2, sizes, which, 1, m, 4 * KB), cudaSuccess);
    ck_assert(last[0] == 0 && last[1] == cudaInvalidDeviceId && last[2] == cudaCpuDeviceId);
    ck_assert_int_eq(cudaMemAdvise(m, BYTES, cudaMemAdviseUnsetReadMostly, dev0), cudaSuccess);
    ck_assert_int_eq(cudaMemRangeGetAttribute(&v, 4, ra, m, 4 * KB), cudaSuccess);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(cudaFree(m), cudaSuccess);
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaMemRangeGetAttribute(&v, 4, ra, m, 4 * KB),
                        "not inside one cudaMallocManaged allocation");
    cudaGetLastError();
}
END_TEST

/* The handles CUDA 12 gives a kernel (cudaGetKernel, cudaGetFuncBySymbol) name it, and its
 * parameters' places are those of its C signature (int *out, int words). */
START_TEST(kernel_handles_and_parameters)
{
    cudaKernel_t k;
    cudaFunction_t f;
    size_t offset, size;
    int *d, h[64];
    ck_assert_int_eq(cudaGetKernel(&k, rt_test_dynamic_smem_kernel()), cudaSuccess);
    ck_assert_int_eq(cudaGetFuncBySymbol(&f, rt_test_dynamic_smem_kernel()), cudaSuccess);
    ck_assert_ptr_eq((const void *)f, rt_test_dynamic_smem_kernel());
    ck_assert_int_eq(cudaFuncGetParamInfo(rt_test_dynamic_smem_kernel(), 1, &offset, &size),
                     cudaSuccess);
    ck_assert(offset == 8 && size == 4);
    ck_assert_int_eq(cudaFuncGetParamInfo(rt_test_dynamic_smem_kernel(), 2, &offset, &size),
                     cudaErrorInvalidValue);
    cudaGetLastError();
#if CUDART_VERSION >= 13000
    ck_assert_int_eq(cudaKernelSetAttributeForDevice(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     80 * 1024, 0),
                     cudaSuccess);
#else /* CUDA 12.4 does not declare cudaKernelSetAttributeForDevice */
    ck_assert_int_eq(cudaFuncSetAttribute(rt_test_dynamic_smem_kernel(),
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, 80 * 1024),
                     cudaSuccess);
#endif
    struct cudaFuncAttributes fa;
    ck_assert_int_eq(cudaFuncGetAttributes(&fa, rt_test_dynamic_smem_kernel()), cudaSuccess);
    ck_assert_int_eq(fa.preferredShmemCarveout, -1); /* never set */
    ck_assert_int_eq(cudaFuncSetAttribute(rt_test_dynamic_smem_kernel(),
                                          cudaFuncAttributePreferredSharedMemoryCarveout, 50),
                     cudaSuccess);
    ck_assert_int_eq(cudaFuncGetAttributes(&fa, rt_test_dynamic_smem_kernel()), cudaSuccess);
    ck_assert_int_eq(fa.preferredShmemCarveout, 50);
    ck_assert_int_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    ck_assert_int_eq(rt_test_dynamic_smem(d, 64, 80 * 1024), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int t = 0; t < 64; t++)
        ck_assert_int_eq(h[t], t);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* Two modules each with a static fill_kernel: each launcher runs its own. */
START_TEST(same_kernel_name_in_two_modules)
{
    int *d, h[2];
    ck_assert_int_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    ck_assert_int_eq(rt_test_fill_one(d), cudaSuccess);
    ck_assert_int_eq(rt_test_fill_two(d + 1), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_int_eq(h[0], 1);
    ck_assert_int_eq(h[1], 2);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* cudaMemcpyToSymbol / FromSymbol with an offset, read by a kernel. */
START_TEST(device_variable_symbols)
{
    int table[37], back[37], *d;
    for (int i = 0; i < 37; i++)
        table[i] = i * i - 50;
    ck_assert_int_eq(cudaMalloc((void **)&d, sizeof back), cudaSuccess);
    ck_assert_int_eq(
        cudaMemcpyToSymbol(rt_test_table_symbol(), table, sizeof table, 0, cudaMemcpyHostToDevice),
        cudaSuccess);
    ck_assert_int_eq(
        cudaMemcpyToSymbol(rt_test_table_symbol(), table, 4, 37 * 4, cudaMemcpyHostToDevice),
        cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue); /* and is reported once */
    ck_assert_int_eq(rt_test_table_plus_one(d), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < 37; i++)
        ck_assert_int_eq(back[i], i * i - 49);
    ck_assert_int_eq(cudaMemcpyFromSymbol(back, rt_test_table_symbol(), 8 * sizeof(int),
                                          3 * sizeof(int), cudaMemcpyDeviceToHost),
                     cudaSuccess);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(back[i], table[3 + i]);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* __managed__ variables: the host reads their initialiser and writes them in place, a kernel
 * updates them, the host reads the results without a copy; they are managed memory, and a
 * symbol copy through the address the host sees reaches them too. */
START_TEST(managed_variables)
{
    static const int init[5] = {5, -3, 8, 1000003, -77};
    int *total = rt_test_managed_total_ptr(), *vals = rt_test_managed_vals_ptr(), old[37];
    long long sum = 11;
    for (int i = 0; i < 37; i++)
        ck_assert_int_eq(vals[i], i < 5 ? init[i] : 0);
    *total = 11;
    for (int i = 0; i < 37; i++) {
        vals[i] = old[i] = i < 5 ? init[i] : i * i - 40;
        sum += old[i];
    }
    ck_assert_int_eq(rt_test_managed_launch(), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    ck_assert_int_eq(*total, (int)sum);
    for (int i = 0; i < 37; i++)
        ck_assert_msg(vals[i] == 3 * old[i] + i, "vals[%d] = %d, want %d", i, vals[i],
                      3 * old[i] + i);
    struct cudaPointerAttributes a;
    ck_assert_int_eq(cudaPointerGetAttributes(&a, vals + 36), cudaSuccess);
    ck_assert_int_eq(a.type, cudaMemoryTypeManaged);
    int back = 0;
    ck_assert_int_eq(cudaMemcpyFromSymbol(&back, total, sizeof back, 0, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    ck_assert_int_eq(back, (int)sum);
}
END_TEST

/* Kernel printf reaches this process's stdout when the grid has run (a synchronisation), in
 * thread order within the warp. */
START_TEST(kernel_printf)
{
    struct capture cap;
    capture_begin(&cap, 1);
    cudaError_t err = rt_test_printf(3);
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    char *out = capture_end(&cap);
    ck_assert_int_eq(err, cudaSuccess);
    ck_assert_str_eq(out, "block 0 thread 0\nblock 0 thread 1\nblock 0 thread 2\n");
    free(out);
}
END_TEST

/* --- judge mode ----------------------------------------------------------------------------- */

/** A device server started as a grader starts one, and what its observer saw. */
struct judge {
    pid_t server;
    int client_fd; /**< the end a program inherits as COURSE_EMU_FD */
    int observe;   /**< read end of the observer pipe */
};

static void judge_start(struct judge *j)
{
    int sv[2], ob[2];
    ck_assert(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && pipe(ob) == 0);
    fflush(NULL);
    j->server = fork();
    if (j->server == 0) {
        char fd[16], obs[16];
        close(sv[0]);
        close(ob[0]);
        snprintf(fd, sizeof fd, "%d", sv[1]);
        snprintf(obs, sizeof obs, "%d", ob[1]);
        execl(EMU_SERVER, EMU_SERVER, "--fd", fd, "--observe", obs, (char *)NULL);
        _exit(127);
    }
    close(sv[1]);
    close(ob[1]);
    j->client_fd = sv[0];
    j->observe = ob[0];
}

/*
 * Run @p body in a child that reaches the device only through COURSE_EMU_FD, then return
 * the observer's text (malloc'd) once the server has left; the child's exit status in
 * @p status, the server's in @p server_status.
 */
static char *judge_run(int (*body)(void), int *status, int *server_status)
{
    struct judge j;
    judge_start(&j);
    pid_t pid = fork();
    if (pid == 0) {
        char fd[16];
        close(j.observe);
        snprintf(fd, sizeof fd, "%d", j.client_fd);
        setenv("COURSE_EMU_FD", fd, 1);
        _exit(body());
    }
    close(j.client_fd); /* only the child holds the client's end: the server sees it leave */
    ck_assert_int_eq(waitpid(pid, status, 0), pid);
    FILE *f = fdopen(j.observe, "r");
    char *text = mat_alloc(1 << 16);
    size_t got = fread(text, 1, (1 << 16) - 1, f);
    text[got] = 0;
    fclose(f);
    ck_assert_int_eq(waitpid(j.server, server_status, 0), j.server);
    return text;
}

static int judge_copies(void)
{
    int in[100], out[100], *d;
    for (int i = 0; i < 100; i++)
        in[i] = i * 37 - 1000;
    if (cudaMalloc((void **)&d, sizeof in) || cudaMemcpy(d, in, sizeof in, cudaMemcpyDefault) ||
        cudaMemcpy(out, d, sizeof out, cudaMemcpyDefault) || cudaFree(d))
        return 1;
    return memcmp(in, out, sizeof in) ? 2 : 0;
}

/* The observer's lines that start with @p kind ("launch ", "op ", ...), in order (malloc'd). */
static char *lines_of(const char *text, const char *kind)
{
    char *out = mat_alloc(strlen(text) + 1), *at = out;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        if (!strncmp(line, kind, strlen(kind))) {
            memcpy(at, line, len);
            at += len;
        }
        line += len;
    }
    *at = '\0';
    return out;
}

/* With COURSE_EMU_FD the runtime uses a server somebody else started; copies work, and an
 * observer sees no launch when there was none, but the stream record: each copy, on the legacy
 * stream, and the host's wait for it (cudaMemcpy to and from pageable memory waits). A bad
 * COURSE_EMU_FD is one clear line. */
START_TEST(judge_mode_host)
{
    int status, server_status;
    char *seen = judge_run(judge_copies, &status, &server_status);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x", status);
    ck_assert_msg(WIFEXITED(server_status) && WEXITSTATUS(server_status) == 0, "server 0x%x",
                  server_status);
    char *launches = lines_of(seen, "launch "), *ops = lines_of(seen, "op ");
    ck_assert_str_eq(launches, "");
    ck_assert_msg(course_count(ops, "\n") == 5 &&
                      strstr(ops, "op stream=0 seq=1 kind=copy sides=1 ") &&
                      strstr(ops, " dst_bytes=400 ") &&
                      strstr(ops, " deps=- name=cudaMemcpy site=test_runtime.c:") &&
                      strstr(ops, "op stream=host seq=1 kind=sync ") &&
                      strstr(ops, " deps=0:1 name=cudaMemcpy site=\n") &&
                      strstr(ops, "op stream=0 seq=2 kind=copy sides=2 ") &&
                      strstr(ops, " deps=0:1 name=cudaMemcpy site=test_runtime.c:") &&
                      strstr(ops, " deps=0:2 name=a call that synchronises the device site=\n"),
                  "%s", ops);
    free(launches);
    free(ops);
    free(seen);
    struct capture cap;
    setenv("COURSE_EMU_FD", "99999", 1);
    capture_begin(&cap, 2);
    void *p;
    cudaError_t err = cudaMalloc(&p, 4);
    char *said = capture_end(&cap);
    ck_assert_int_eq(err, cudaErrorInitializationError);
    ck_assert_msg(strstr(said, "COURSE_EMU_FD='99999' is not an open socket") &&
                      course_count(said, "\n") == 1,
                  "%s", said);
    free(said);
}
END_TEST

static int judge_launch(void)
{
    int *d;
    if (cudaMalloc((void **)&d, 96 * sizeof *d) ||
        rt_test_affine(d, 96, 1, 0, d3(3, 1, 1), d3(32, 1, 1)) || cudaDeviceSynchronize())
        return 1;
    return 0;
}

/* The observer gets one line per launch, with the counters, and the program none of it. */
START_TEST(judge_mode_observes_launches)
{
    int status, server_status;
    char *seen = judge_run(judge_launch, &status, &server_status);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x", status);
    char *all = seen;
    seen = lines_of(all, "launch ");
    free(all);
    ck_assert_int_eq(course_count(seen, "\n"), 1);
    ck_assert_msg(
        !strncmp(seen, "launch device=0 kernel=", 23) && strstr(seen, "affine_kernel") &&
            strstr(seen,
                   " grid=3,1,1 block=32,1,1 cluster=1,1,1 smem=0 params=20 status=ok counted=1 "),
        "%s", seen);
    unsigned long long threads = 0;
    const char *at = strstr(seen, " thread_insts=");
    ck_assert_msg(at && sscanf(at, " thread_insts=%llu", &threads) == 1 && threads >= 96, "%s",
                  seen);
    free(seen);
}
END_TEST

/* Two streams handing a buffer on by an event, then the same work captured into a graph. */
static int judge_streams(void)
{
    int *h, *d;
    cudaStream_t a, b;
    cudaEvent_t e;
    cudaGraph_t g;
    cudaGraphExec_t x;
    if (cudaMallocHost((void **)&h, 64 * sizeof *h) || cudaMalloc((void **)&d, 64 * sizeof *d) ||
        cudaStreamCreate(&a) || cudaStreamCreate(&b) || cudaEventCreate(&e))
        return 1;
    if (cudaMemcpyAsync(d, h, 64 * sizeof *h, cudaMemcpyHostToDevice, a) || cudaEventRecord(e, a) ||
        cudaStreamWaitEvent(b, e, 0) || rt_test_affine_on(d, 64, 3, 1, b) ||
        cudaMemcpyAsync(h, d, 64 * sizeof *h, cudaMemcpyDeviceToHost, b) ||
        cudaStreamSynchronize(b))
        return 2;
    /* Captured: a and b fork from a; two independent copies, then the join. */
    if (cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal) || cudaEventRecord(e, a) ||
        cudaStreamWaitEvent(b, e, 0) ||
        cudaMemcpyAsync(d, h, 32 * sizeof *h, cudaMemcpyHostToDevice, a) ||
        cudaMemcpyAsync(d + 32, h + 32, 32 * sizeof *h, cudaMemcpyHostToDevice, b) ||
        cudaEventRecord(e, b) || cudaStreamWaitEvent(a, e, 0) || cudaStreamEndCapture(a, &g) ||
        cudaGraphInstantiate(&x, g, 0) || cudaGraphLaunch(x, a) || cudaStreamSynchronize(a))
        return 3;
    return h[63] == 3 * 63 + 1 ? 0 : 4;
}

/* The stream record, in the observer's lines: each operation with what it follows (the stream
 * before it, the event record a wait names), the host's waits, a kernel's footprint, and a
 * graph's nodes with the graph's edges, not the order the launch queued them in. */
START_TEST(judge_mode_stream_record)
{
    int status, server_status;
    char *seen = judge_run(judge_streams, &status, &server_status);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x", status);
    char *ops = lines_of(seen, "op "), *feet = lines_of(seen, "footprint ");
    char a[24], b[24], d[24];
    ck_assert_msg(sscanf(ops, "op stream=%23s seq=1 kind=copy sides=9 dst=%23s", a, d) == 2, "%s",
                  ops);
    char want[7][200];
    snprintf(want[0], sizeof want[0], "op stream=%s seq=2 kind=event ", a);
    const char *wait = strstr(ops, " kind=wait ");
    while (wait && wait > ops && wait[-1] != '\n')
        wait--; /* to its line's start */
    ck_assert_msg(wait && sscanf(wait, "op stream=%23s", b) == 1, "%s", ops);
    ck_assert_msg(strstr(ops, want[0]) != NULL, "no event record on %s:\n%s", a, ops);
    snprintf(want[1], sizeof want[1], "op stream=%s seq=1 kind=wait ", b);
    snprintf(want[2], sizeof want[2], " deps=%s:2 name=cudaStreamWaitEvent", a);
    snprintf(want[3], sizeof want[3], "op stream=%s seq=2 kind=kernel ", b);
    snprintf(want[4], sizeof want[4], "op stream=%s seq=3 kind=copy sides=6 ", b);
    snprintf(want[5], sizeof want[5],
             " kind=sync sides=0 dst=0 dst_bytes=0 src=0 src_bytes=0 "
             "graph=0 deps=%s:3 name=cudaStreamSynchronize",
             b);
    snprintf(want[6], sizeof want[6], "footprint stream=%s seq=2 overflow=0 read=- write=%s-", b,
             d);
    for (int i = 1; i < 6; i++)
        ck_assert_msg(strstr(ops, want[i]) != NULL, "no '%s' in:\n%s", want[i], ops);
    ck_assert_msg(strstr(feet, want[6]) != NULL, "no '%s' in:\n%s", want[6], feet);
    /* The graph's launch on a: two copies that follow what came before, not each other. */
    const char *first = strstr(ops, " graph=1 ");
    ck_assert_msg(first && course_count(ops, " graph=1 ") == 3, "%s", ops);
    const char *second = strstr(first + 1, " graph=1 "), *end = strstr(second + 1, " graph=1 ");
    ck_assert_msg(!strncmp(first, " graph=1 deps=", 14) && !strncmp(second, " graph=1 deps=", 14),
                  "%s", ops);
    ck_assert_msg(strncmp(first + 14, second + 14, strcspn(first + 14, " ")) == 0,
                  "two roots of the graph should follow the same operation:\n%s", ops);
    ck_assert_msg(strstr(end, "name=cudaGraphLaunch") != NULL, "%s", ops);
    free(ops);
    free(feet);
    free(seen);
}
END_TEST

/* The in-process counters (emu.h): nothing while counting is off, then every launch since the
 * last take, with its kernel's demangled name, grid and block, handed over once. */
START_TEST(counters_in_process)
{
    void (*set_counting)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "course_emu_set_counting");
    int (*take)(struct course_emu_launch *, int) =
        (int (*)(struct course_emu_launch *, int))dlsym(RTLD_DEFAULT, "course_emu_take_launches");
    ck_assert(set_counting && take);
    struct course_emu_launch got[2];
    int *d;
    ck_assert_int_eq(cudaMalloc((void **)&d, 1000 * sizeof *d), cudaSuccess);
    ck_assert_int_eq(rt_test_affine(d, 1000, 2, 1, d3(4, 1, 1), d3(256, 1, 1)), cudaSuccess);
    ck_assert_int_eq(take(got, 2), 0);
    set_counting(1);
    ck_assert_int_eq(rt_test_affine(d, 1000, 2, 1, d3(4, 1, 1), d3(256, 1, 1)), cudaSuccess);
    ck_assert_int_eq(rt_test_affine(d, 96, 1, 0, d3(3, 1, 1), d3(32, 1, 1)), cudaSuccess);
    ck_assert_int_eq(rt_test_affine(d, 64, 1, 0, d3(2, 1, 1), d3(32, 1, 1)), cudaSuccess);
    set_counting(0);
    ck_assert_int_eq(take(NULL, 0), 3); /* a look takes nothing */
    ck_assert_int_eq(take(got, 2), 2);  /* the first two handed over, the third dropped */
    ck_assert_str_eq(got[0].kernel, "affine_kernel");
    ck_assert_uint_eq(got[0].grid[0], 4);
    ck_assert_uint_eq(got[0].block[0], 256);
    ck_assert_int_eq(got[0].status, VM_OK);
    ck_assert_uint_ge(got[0].counters.thread_insts, 1000);
    ck_assert_uint_eq(got[0].counters.gst_requests, 1000 / 32 + 1);
    ck_assert_uint_eq(got[1].grid[0], 3);
    ck_assert_uint_eq(got[1].counters.gst_requests, 3);
    ck_assert_int_eq(take(got, 2), 0);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* --- the suite ------------------------------------------------------------------------------- */

/* Whether the device server's self-test passes; if not, @p why says why. */
static int vm_ready(char *why, size_t size)
{
    FILE *p = popen("'" EMU_SERVER "' --self-test", "r");
    why[0] = 0;
    if (!p || !fgets(why, (int)size, p))
        snprintf(why, size, "%s", p ? "" : "cannot run the device server's self-test");
    why[strcspn(why, "\n")] = 0;
    return p && pclose(p) == 0;
}

int main(int argc, char **argv)
{
    const struct course_case host_cases[] = {
        {"memcpy_memset_round_trip", memcpy_memset_round_trip, CASE_CPU, 60},
        {"memcpy2d_memset2d", memcpy2d_memset2d, CASE_CPU, 60},
        {"memcpy3d_memset3d", memcpy3d_memset3d, CASE_CPU, 60},
        {"null_arguments_and_priorities", null_arguments_and_priorities, CASE_CPU, 60},
        {"malloc_beyond_capacity", malloc_beyond_capacity, CASE_CPU, 60},
        {"host_dereference_segfaults", host_dereference_segfaults, CASE_CPU, 60},
        {"bad_ranges_refused", bad_ranges_refused, CASE_CPU, 60},
        {"zero_copy_pinned_and_registered", zero_copy_pinned_and_registered, CASE_CPU, 60},
        {"captured_malloc_and_free_async", captured_malloc_and_free_async, CASE_CPU, 60},
        {"callback_runs_without_a_synchronising_call", callback_runs_without_a_synchronising_call,
         CASE_CPU, 60},
        {"pointer_kinds", pointer_kinds, CASE_CPU, 60},
        {"device_properties", device_properties, CASE_CPU, 60},
        {"peer_attributes", peer_attributes, CASE_CPU, 60},
        {"emu_gpus_setting", emu_gpus_setting, CASE_CPU, 60},
        {"streams_and_events", streams_and_events, CASE_CPU, 60},
        {"bad_launch_config_not_sticky", bad_launch_config_not_sticky, CASE_CPU, 60},
        {"no_ptx_message", no_ptx_message, CASE_CPU, 60},
        {"fat_binary_prefers_sm_90a", fat_binary_prefers_sm_90a, CASE_CPU, 60},
        {"judge_mode_host", judge_mode_host, CASE_CPU, 60},
    };

    /* These need the PTX VM to execute kernels. */
    const struct course_case kernel_cases[] = {
        {"launch_runs", launch_runs, CASE_CPU, 120},
        {"fault_is_sticky", fault_is_sticky, CASE_CPU, 60},
        {"dynamic_shared_memory_limit", dynamic_shared_memory_limit, CASE_CPU, 60},
        {"kernel_handles_and_parameters", kernel_handles_and_parameters, CASE_CPU, 60},
        {"managed_advice_read_back", managed_advice_read_back, CASE_CPU, 60},
#if CUDART_VERSION >= 13000
        {"libraries_through_the_runtime", libraries_through_the_runtime, CASE_CPU, 60},
#endif
        {"same_kernel_name_in_two_modules", same_kernel_name_in_two_modules, CASE_CPU, 60},
        {"device_variable_symbols", device_variable_symbols, CASE_CPU, 60},
        {"managed_variables", managed_variables, CASE_CPU, 60},
        {"kernel_printf", kernel_printf, CASE_CPU, 60},
        {"judge_mode_observes_launches", judge_mode_observes_launches, CASE_CPU, 60},
        {"judge_mode_stream_record", judge_mode_stream_record, CASE_CPU, 60},
        {"counters_in_process", counters_in_process, CASE_CPU, 60},
    };
    size_t nh = sizeof host_cases / sizeof *host_cases;
    size_t nk = sizeof kernel_cases / sizeof *kernel_cases;
    struct course_case
        all[sizeof host_cases / sizeof *host_cases + sizeof kernel_cases / sizeof *kernel_cases];
    char why[256];
    memcpy(all, host_cases, sizeof host_cases);
    memcpy(all + nh, kernel_cases, sizeof kernel_cases);
    int listing = argc == 2 && !strcmp(argv[1], "--list");
    if (!listing && !vm_ready(why, sizeof why)) {
        for (size_t k = 0; k < nk; k++)
            if (argc == 3 && !strcmp(argv[2], kernel_cases[k].name)) {
                printf("SKIPPED %s: the emulator cannot run kernels yet: %s\n", argv[2], why);
                return COURSE_SKIP;
            }
        nk = 0;
    }
    return course_test_main(argc, argv, COURSE_LESSON, all, nh + nk);
}
