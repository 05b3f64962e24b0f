/**
 * @file test_vm_control.c
 * @brief The PTX VM's control flow: divergence and reconvergence, warp-synchronous waits,
 *        clocks, barriers, blocks that wait for each other (CUB's look-back, a grid barrier of
 *        atomics), mbarrier phases,
 *        and what a student meets when it goes wrong (faults, deadlocks, traps, asserts, an
 *        unsupported instruction), each one line naming the kernel and the source line (a helper
 *        inlined into the kernel: its line and the call's); printf.
 *
 * One file holds each case whole. nvcc compiles the part between #ifdef VM_CASE_KERNELS and
 * #else to PTX (CMake: emu_vm_case()); the VM runs that PTX in this process (vm_case.h), and
 * the cases below check what the kernels wrote, and what the VM said, against the host.
 */
#ifdef VM_CASE_KERNELS
#undef NDEBUG /* the assert kernel needs assert() in every build type */
#include <cassert>
#include <cstdint>
#include <cstdio>

extern "C" __global__ void divergence_kernel(const int *trips, int *out)
{
    int t = threadIdx.x, acc = 0;
    for (int i = 0; i < trips[t]; i++) { /* a different trip count per lane */
        if (i % 3 == 1)
            continue;
        if (acc > 40 + t)
            break;
        acc += (t & 1) ? i : 2 * i;
    }
    if (t % 4 == 0) {
        acc *= 3;
        if (t % 8 == 0)
            acc -= 7;
    } else if (t % 4 == 1) {
        acc += 11;
    }
    /* Every lane is back together here, or the shuffles would read stale lanes. */
    for (int off = 16; off > 0; off /= 2)
        acc += __shfl_down_sync(0xFFFFFFFFu, acc, off);
    out[t] = __shfl_sync(0xFFFFFFFFu, acc, 0) + t;
}

extern "C" __global__ void warp_sync_waits_kernel(const float *in, int n, int *count)
{
    int total = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; __any_sync(0xFFFFFFFFu, i < n);
         i += blockDim.x * gridDim.x) {
        bool active = i < n;
        float v = active ? in[i] : 0.0f;
        unsigned above = __ballot_sync(0xFFFFFFFFu, active && v > 0.5f);
        total += __shfl_sync(0xFFFFFFFFu, __popc(above), 0);
    }
    if (threadIdx.x % 32 == 0)
        atomicAdd(count, total);
}

extern "C" __global__ void clocks_kernel(unsigned long long *out)
{
    long long s64 = clock64();
    unsigned s32 = (unsigned)clock();
    volatile int sink = 0;
    for (int i = 0; i < 100; i++)
        sink = sink + i;
    unsigned long long *o = out + 4 * threadIdx.x;
    o[0] = (unsigned long long)s64, o[1] = (unsigned long long)clock64();
    o[2] = s32, o[3] = (unsigned)clock();
}

extern "C" __global__ void spin_kernel(long long cycles)
{
    unsigned start = (unsigned)clock();
    long long waited = 0;
    while (waited < cycles)
        waited = (long long)((unsigned)clock() - start);
}

extern "C" __global__ void warp_sync_never_met_kernel(int *out)
{
    int v = threadIdx.x;
    if (threadIdx.x < 16)
        __syncthreads();
    else
        v = __shfl_sync(0xFFFFFFFFu, v, 0); /* WARP_SYNC_NEVER_MET */
    out[threadIdx.x] = v;
}

extern "C" __global__ void barriers_kernel(int *out)
{
    __shared__ int ring[128];
    int t = threadIdx.x, v = t;
    for (int step = 0; step < 5; step++) { /* pass values around a ring, a barrier per step */
        ring[t] = v;
        __syncthreads();
        v = ring[(t + 1) % 128] + step;
        __syncthreads();
    }
    /* Two halves synchronise apart on named barriers 1 and 2, 64 threads each. */
    ring[t] = v;
    if (t < 64)
        asm volatile("bar.sync 1, 64;");
    else
        asm volatile("bar.sync 2, 64;");
    out[t] = v + ring[t < 64 ? 63 - t : 191 - t];
}

/* Each warp waits at its own named barrier for 64 threads: neither barrier can open. */
extern "C" __global__ void deadlock_kernel(void)
{
    if (threadIdx.x < 32)
        asm volatile("bar.sync 1, 64;");
    else
        asm volatile("bar.sync 2, 64;");
}

extern "C" __global__ void trap_kernel(void)
{
    if (threadIdx.x == 3)
        __trap();
}

extern "C" __global__ void assert_kernel(void)
{
    assert(threadIdx.x < 40);
}

extern "C" __global__ void printf_kernel(void)
{
    if (threadIdx.x == 1)
        printf("int %d uint %u hex %x ll %lld float %.3f str %s char %c pct %%\n", -42, 42u, 255,
               -1234567890123ll, 2.5f, "ok", 'Z');
}

/* The faults a student meets first; each statement carries a FAULT marker the case below finds. */
/* A helper nvcc inlines into fault_kernel: a fault in it names its line and the call's. */
static __device__ __forceinline__ void store_at(float *buf, int i)
{
    buf[i] = 3.0f; /* FAULT_IN_HELPER */
}

extern "C" __global__ void fault_kernel(int kind, float *buf, int n)
{
    extern __shared__ float dyn[];
    int t = threadIdx.x;
    if (kind == 0 && t == 0)
        buf[n] = 1.0f; /* FAULT_PAST_END */
    if (kind == 1 && t == 0) {
        float4 v = *(const float4 *)(buf + 1); /* FAULT_MISALIGNED */
        buf[0] = v.x + v.y + v.z + v.w;
    }
    if (kind == 2)
        dyn[t + n] = 1.0f; /* FAULT_SHARED */
    if (kind == 3 && t == 0)
        buf[0] = 2.0f; /* FAULT_FREED */
    if (kind == 4 && t == 0)
        store_at(buf, n + 1); /* FAULT_HELPER_CALL */
}

extern "C" __global__ void unsupported_kernel(uint32_t *out)
{
    uint32_t v; /* a load-reduce over NVLink multicast memory, which the VM does not model */
    asm volatile("multimem.ld_reduce.relaxed.sys.global.add.u32 %0, [%1];" : "=r"(v) : "l"(out));
    out[3] = v;
}
/* ---- what CUB's device-wide algorithms compile to ------------------------------------------ */

/* Thread 0 of every block but the grid's last waits for the flag the last one sets (a stream-K
 * tile's partial sums, held by a later block), then writes out[block] = the flag; the other
 * threads leave at once. */
extern "C" __global__ void wave_wait_kernel(uint32_t *flag, uint32_t *out)
{
    uint32_t seen = 0;
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == gridDim.x - 1) {
        asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(flag), "r"(7u) : "memory");
        seen = 7;
    }
    while (!seen)
        asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory"); // wave
    out[blockIdx.x] = seen;
}

/* Block !waiter publishes two words and then a flag, with release semantics; block waiter spins
 * on the flag with acquire loads and a back-off sleep (CUB's decoupled look-back), then reads the
 * words: out[t] = 11 + 22 t + 1 for each of its 64 threads. With waiter == 0 the flag's setter
 * is a later block, which starts beside the waiting one. */
extern "C" __global__ void look_back_kernel(uint32_t *flag, uint32_t *data, uint32_t *out,
                                            int waiter)
{
    int t = threadIdx.x;
    if ((int)blockIdx.x != waiter) {
        if (t == 0) {
            asm volatile("st.relaxed.gpu.v2.u32 [%0], {%1, %2};" ::"l"(data), "r"(11u), "r"(22u)
                         : "memory");
            asm volatile("fence.acq_rel.gpu;" ::: "memory");
            asm volatile("membar.gl;" ::: "memory");
            asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(flag), "r"(1u) : "memory");
        }
        return;
    }
    uint32_t seen, lo, hi;
    do {
        __nanosleep(100);
        asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory"); // wait
    } while (!seen);
    asm volatile("fence.sc.gpu;" ::: "memory");
    asm volatile("ld.relaxed.gpu.v2.u32 {%0, %1}, [%2];"
                 : "=r"(lo), "=r"(hi)
                 : "l"(data)
                 : "memory");
    out[t] = lo + hi * (uint32_t)t + seen;
}

/* Block 0's 64 threads wait for a flag block 1 sets only after a loop of @p work trips, and
 * write out[t] = flag + t; block 1's thread 0 sets flag = 1 + the sum of i % 7 over the trips
 * (the order CUB's onesweep sort may give two running blocks: tiles taken by atomicAdd). With
 * @p work < 0 block 1 waits too: both running blocks wait for each other, a deadlock. */
extern "C" __global__ void late_release_kernel(uint32_t *flag, uint32_t *out, int work)
{
    int t = threadIdx.x;
    if (blockIdx.x == 1 && work >= 0) {
        uint32_t sum = 1;
        for (int i = 0; i < work; i++) /* a register that changes: block 1 keeps moving */
            sum += (uint32_t)(i % 7);
        if (t == 0)
            asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(flag), "r"(sum) : "memory");
        return;
    }
    uint32_t got;
    do /* until block 1 sets the flag, if it ever does */
        asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(got) : "l"(flag) : "memory");
    while (!got);
    out[t] = got + (uint32_t)t;
}

/* Every block meets the others @p rounds times at a barrier of its own making (a persistent
 * kernel's, gpu-benches' gpu-small-kernels -pta): thread 0 adds 1 to count[r] and waits until
 * every block has; out[block] = the sum of the counts each round saw. */
extern "C" __global__ void grid_barrier_kernel(unsigned *count, unsigned *out, int rounds)
{
    unsigned seen = 0;
    for (int r = 0; r < rounds; r++)
        if (threadIdx.x == 0) {
            atomicAdd(&count[r], 1u);
            while ((seen = *(volatile unsigned *)&count[r]) != gridDim.x)
                ;
            out[blockIdx.x] += seen;
        }
}

/* mbarrier wait loops: until the phase of token @p state (or of parity @p parity) is done. */
static __device__ void mbar_wait(unsigned bar, uint64_t state)
{
    unsigned done;
    do
        asm volatile("{ .reg .pred p; mbarrier.try_wait.shared::cta.b64 p, [%1], %2; "
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(bar), "l"(state)
                     : "memory");
    while (!done);
}

static __device__ void mbar_wait_parity(unsigned bar, unsigned parity)
{
    unsigned done;
    do
        asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; "
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    while (!done);
}

/*
 * Each block's n threads pass `phases` rounds through one mbarrier: thread t writes
 * in[b][p][t] to shared memory, all arrive and wait (phase 2p, by token), t adds its
 * neighbour's (t + 1 + p) % n, all arrive and wait again (phase 2p + 1, by parity) before the
 * next write. pend[b][t] = the pending count left by t's first arrive. Then the odd warps
 * leave with arrive_drop, and the even ones complete that phase and one more without them, by
 * a generic address: out[b][t] = the sum in even warps, -(sum) in odd ones. With @p init 0
 * nobody initialises the object.
 */
extern "C" __global__ void mbarrier_kernel(const int *in, int *out, unsigned *pend, int phases,
                                           int init)
{
    __shared__ uint64_t bar;
    __shared__ int buf[1024];
    int n = blockDim.x, t = threadIdx.x;
    const int *mine = in + (size_t)blockIdx.x * phases * n;
    unsigned a = (unsigned)__cvta_generic_to_shared(&bar);
    uint64_t state;
    if (t == 0 && init)
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(a), "r"(n) : "memory");
    __syncthreads(); /* the object is initialised before anyone arrives */
    int sum = 0;
    for (int p = 0; p < phases; p++) {
        buf[t] = mine[p * n + t];
        asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(a) : "memory");
        if (p == 0)
            asm volatile("mbarrier.pending_count.b64 %0, %1;"
                         : "=r"(pend[blockIdx.x * n + t])
                         : "l"(state));
        mbar_wait(a, state); /* every buf[] of this round is written */
        sum += buf[(t + 1 + p) % n];
        asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0], 1;" ::"r"(a) : "memory");
        mbar_wait_parity(a, 1); /* every read of this round is done */
    }
    if (t / 32 & 1) { /* whole warps: a diverged warp's lanes do not wait for each other */
        asm volatile("mbarrier.arrive_drop.shared.b64 _, [%0];" ::"r"(a) : "memory");
        out[blockIdx.x * n + t] = -sum;
        return;
    }
    for (int k = 0; k < 2; k++) { /* the odd threads' last phase, then one without them */
        asm volatile("mbarrier.arrive.b64 %0, [%1];" : "=l"(state) : "l"(&bar) : "memory");
        mbar_wait(a, state);
    }
    out[blockIdx.x * n + t] = sum;
}

#else
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "vm_case.h"

/* Launch kernel @p name of this file on @p blocks x @p threads with arguments @p args; its
 * status. */
static enum vm_status launch(struct vm_case *c, const char *name, unsigned blocks, unsigned threads,
                             void **args)
{
    return vm_case_run(c, name, VM_GRID(blocks), VM_BLOCK(threads), args);
}

/* The same, when it must run to the end. */
static void run(struct vm_case *c, const char *name, unsigned blocks, unsigned threads, void **args)
{
    ck_assert_msg(launch(c, name, blocks, threads, args) == VM_OK, "%s: %s", name,
                  c->result.message);
}

START_TEST(divergent_lanes_reconverge)
{
    enum { T = 96 };
    int trips[T], out[T], acc[T];
    for (int t = 0; t < T; t++) {
        trips[t] = (int)(vm_case_rand() % 61);
        int a = 0;
        for (int i = 0; i < trips[t]; i++) {
            if (i % 3 == 1)
                continue;
            if (a > 40 + t)
                break;
            a += (t & 1) ? i : 2 * i;
        }
        if (t % 4 == 0)
            a = 3 * a - (t % 8 == 0 ? 7 : 0);
        else if (t % 4 == 1)
            a += 11;
        acc[t] = a;
    }
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t dt = vm_case_buffer(&c, trips, sizeof trips);
    uint64_t dout = vm_case_buffer(&c, NULL, sizeof out);
    run(&c, "divergence_kernel", 1, T, (void *[]){&dt, &dout});
    vm_case_read(&c, out, dout, sizeof out);
    for (int t = 0; t < T; t++) {
        int sum = 0;
        for (int l = 0; l < 32; l++)
            sum += acc[(t & ~31) + l];
        ck_assert_msg(out[t] == sum + t, "thread %d: %d, want %d", t, out[t], sum + t);
    }
    vm_case_close(&c);
}
END_TEST

START_TEST(warp_sync_waits_for_lanes_elsewhere)
{
    enum { N = 1031 };
    static float in[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)(vm_case_rand() % 1000) / 1000.0f;
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t din = vm_case_buffer(&c, in, sizeof in);
    uint64_t dcount = vm_case_buffer(&c, NULL, sizeof(int));
    const int sizes[] = {1, 31, 33, 193, N};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int want = 0, got = -1, n = sizes[k];
        for (int i = 0; i < n; i++)
            want += in[i] > 0.5f;
        memset(vm_case_host(&c, dcount), 0, sizeof(int));
        run(&c, "warp_sync_waits_kernel", 3, 64, (void *[]){&din, &n, &dcount});
        vm_case_read(&c, &got, dcount, sizeof got);
        ck_assert_msg(got == want, "n = %d: counted %d above 0.5, want %d", n, got, want);
    }
    ck_assert_int_eq(launch(&c, "warp_sync_never_met_kernel", 1, 32, (void *[]){&dcount}),
                     VM_UNSUPPORTED);
    capture_assert_at(c.result.message, VM_CASE_SOURCE, "WARP_SYNC_NEVER_MET",
                      "lanes 0x0000ffff named in the mask 0xffffffff wait at a barrier");
    vm_case_close(&c);
}
END_TEST

START_TEST(clocks_advance_in_every_lane)
{
    unsigned long long out[4 * 64];
    memset(out, 0xA5, sizeof out); /* a lane never written shows */
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t dout = vm_case_buffer(&c, out, sizeof out);
    run(&c, "clocks_kernel", 1, 64, (void *[]){&dout});
    long long cycles = 99; /* a spin that never ends if clock() does not move */
    run(&c, "spin_kernel", 3, 256, (void *[]){&cycles});
    vm_case_read(&c, out, dout, sizeof out);
    for (int t = 0; t < 64; t++) {
        const unsigned long long *o = out + 4 * t;
        /* 100 trips of a loop of a few instructions: the emulation's clock counts issues */
        ck_assert_msg(o[1] > o[0] && o[1] - o[0] >= 100 && o[1] - o[0] < 100000,
                      "thread %d: clock64() went from %llu to %llu", t, o[0], o[1]);
        /* clock() is read just after clock64() each time: a few issues apart */
        ck_assert_msg(o[3] - o[2] + 16 > o[1] - o[0] && o[3] - o[2] < o[1] - o[0] + 16,
                      "thread %d: clock() advanced by %llu, clock64() by %llu", t, o[3] - o[2],
                      o[1] - o[0]);
    }
    vm_case_close(&c);
}
END_TEST

START_TEST(barriers_in_loops_and_named)
{
    int v[128], ring[128], out[128];
    for (int t = 0; t < 128; t++)
        v[t] = t;
    for (int step = 0; step < 5; step++) {
        memcpy(ring, v, sizeof v);
        for (int t = 0; t < 128; t++)
            v[t] = ring[(t + 1) % 128] + step;
    }
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t dout = vm_case_buffer(&c, NULL, sizeof out);
    run(&c, "barriers_kernel", 1, 128, (void *[]){&dout});
    vm_case_read(&c, out, dout, sizeof out);
    for (int t = 0; t < 128; t++) {
        int want = v[t] + v[t < 64 ? 63 - t : 191 - t];
        ck_assert_msg(out[t] == want, "thread %d: %d, want %d", t, out[t], want);
    }
    vm_case_close(&c);
}
END_TEST

START_TEST(faults_name_kernel_and_line)
{
    static const struct {
        const char *marker, *what;
        enum vm_status status;
    } faults[] = {
        {"FAULT_PAST_END", "4 bytes past the end of a 64-byte allocation", VM_FAULT},
        {"FAULT_MISALIGNED", "misaligned global read of 16 bytes", VM_FAULT},
        {"FAULT_SHARED", "the block has 128 bytes of shared memory", VM_FAULT},
        {"FAULT_FREED", "freed", VM_FAULT},
        {"FAULT_IN_HELPER", "8 bytes past the end of a 64-byte allocation", VM_FAULT},
    };
    for (int k = 0; k < 5; k++) {
        struct vm_case c;
        vm_case_open(&c, VM_CASE_PTX);
        uint64_t buf = vm_case_buffer(&c, NULL, 16 * sizeof(float));
        if (k == 3)
            vm_case_free(&c, buf);
        int n = 16;
        c.dyn_smem = 32 * sizeof(float);
        ck_assert_int_eq(launch(&c, "fault_kernel", 1, 32, (void *[]){&k, &buf, &n}),
                         faults[k].status);
        capture_assert_at(c.result.message, VM_CASE_SOURCE, faults[k].marker, faults[k].what);
        ck_assert_msg(strstr(c.result.message, "fault_kernel"), "the kernel is not named: %s",
                      c.result.message);
        if (k == 4) /* the helper's line, then the kernel's line it was inlined at */
            capture_assert_at(c.result.message, VM_CASE_SOURCE, "FAULT_HELPER_CALL",
                              "(inlined at vm/test_vm_control.c:");
        vm_case_close(&c);
    }
}
END_TEST

START_TEST(deadlock_trap_assert_unsupported)
{
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    ck_assert_int_eq(launch(&c, "deadlock_kernel", 1, 64, NULL), VM_DEADLOCK);
    ck_assert_msg(strstr(c.result.message, "deadlock") &&
                      strstr(c.result.message, "barrier 1: 32 of 64"),
                  "%s", c.result.message);
    ck_assert_int_eq(launch(&c, "trap_kernel", 1, 32, NULL), VM_TRAP);
    ck_assert_msg(strstr(c.result.message, "trap") && strstr(c.result.message, "thread (3,0,0)"),
                  "%s", c.result.message);
    ck_assert_int_eq(launch(&c, "assert_kernel", 1, 64, NULL), VM_ASSERT);
    ck_assert_msg(strstr(c.printed, "thread: [40,0,0] Assertion `threadIdx.x < 40` failed."),
                  "printed: %s", c.printed);
    uint32_t zeros[4] = {0};
    uint64_t d = vm_case_buffer(&c, zeros, sizeof zeros);
    ck_assert_int_eq(launch(&c, "unsupported_kernel", 1, 32, (void *[]){&d}), VM_UNSUPPORTED);
    capture_assert_at(c.result.message, VM_CASE_SOURCE, "multimem.ld_reduce", "multimem.ld_reduce");
    vm_case_close(&c);
}
END_TEST

START_TEST(printf_formats)
{
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    run(&c, "printf_kernel", 1, 32, NULL);
    ck_assert_msg(strstr(c.printed, "int -42 uint 42 hex ff ll -1234567890123 float 2.500 str ok "
                                    "char Z pct %\n"),
                  "printed: %s", c.printed);
    vm_case_close(&c);
}
END_TEST

/* CUB's look-back: a block waits, with acquire loads and __nanosleep, for a flag an earlier block
 * released after its data; or for a later one, which starts beside it, as on a GPU where both are
 * resident. On one thread (blocks one at a time, in order), so that the later block can only be
 * run beside the waiting one. Then blocks of 1024 threads (two an SM, 264 a wave): the first 263
 * wait for the 264th, which runs beside them; one more block, and the wave is full of waiting
 * blocks: a deadlock, reported at the loop, never a hang. */
START_TEST(look_back_waits_within_a_wave)
{
    setenv("COURSE_EMU_THREADS", "1", 1); /* before the first launch */
    uint32_t out[64];
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t flag = vm_case_buffer(&c, NULL, 4), data = vm_case_buffer(&c, NULL, 8);
    uint64_t dout = vm_case_buffer(&c, NULL, sizeof out);
    int waiter = 1;
    void *args[] = {&flag, &data, &dout, &waiter};
    run(&c, "look_back_kernel", 2, 64, args);
    vm_case_read(&c, out, dout, sizeof out);
    for (uint32_t t = 0; t < 64; t++)
        ck_assert_msg(out[t] == 12 + 22 * t, "block 1 thread %u read %u, want %u", t, out[t],
                      12 + 22 * t);
    memset(vm_case_host(&c, flag), 0, 4);
    waiter = 0;
    run(&c, "look_back_kernel", 2, 64, args);
    vm_case_read(&c, out, dout, sizeof out);
    for (uint32_t t = 0; t < 64; t++)
        ck_assert_msg(out[t] == 12 + 22 * t, "block 0 thread %u read %u, want %u", t, out[t],
                      12 + 22 * t);
    enum { WAVE = 264 };
    uint32_t got[WAVE + 1];
    uint64_t wout = vm_case_buffer(&c, NULL, sizeof got);
    void *wargs[] = {&flag, &wout};
    memset(vm_case_host(&c, flag), 0, 4);
    run(&c, "wave_wait_kernel", WAVE, 1024, wargs);
    vm_case_read(&c, got, wout, WAVE * sizeof *got);
    for (uint32_t b = 0; b < WAVE; b++)
        ck_assert_msg(got[b] == 7, "a wave of %d blocks: block %u read %u", WAVE, b, got[b]);
    memset(vm_case_host(&c, flag), 0, 4);
    ck_assert_int_eq(launch(&c, "wave_wait_kernel", WAVE + 1, 1024, wargs), VM_DEADLOCK);
    const char *said = c.result.message;
    capture_assert_at(said, VM_CASE_SOURCE, "// wave", "deadlock");
    ck_assert_msg(strstr(said, "wave_wait_kernel") && strstr(said, "block (0,0,0)") &&
                      strstr(said, "a wave of the blocks after it") && !strchr(said, '\n'),
                  "not one line naming the kernel, block 0 and why: %s", said);
    vm_case_close(&c);
}
END_TEST

/* A block may wait for a later block that runs on another thread, however long that block
 * takes and however the host schedules the threads (CUB's onesweep sort hands tiles out by
 * atomicAdd, so block 1 may hold the tile block 0 waits for): no deadlock while a block moves.
 * Before the grid-wide test, block 0 was reported within a few thousand trips of its loop. */
START_TEST(wait_for_a_running_later_block)
{
    enum { WORK = 200003 };
    setenv("COURSE_EMU_THREADS", "2", 1); /* before the first launch */
    uint32_t out[64], want = 1;
    for (int i = 0; i < WORK; i++)
        want += (uint32_t)(i % 7);
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t flag = vm_case_buffer(&c, NULL, 4), dout = vm_case_buffer(&c, NULL, sizeof out);
    int work = WORK;
    void *args[] = {&flag, &dout, &work};
    for (int r = 0; r < 3; r++) {
        memset(vm_case_host(&c, flag), 0, 4);
        run(&c, "late_release_kernel", 2, 64, args);
        vm_case_read(&c, out, dout, sizeof out);
        for (uint32_t t = 0; t < 64; t++)
            ck_assert_msg(out[t] == want + t, "run %d: block 0 thread %u read %u, want %u", r, t,
                          out[t], want + t);
    }
    memset(vm_case_host(&c, flag), 0, 4);
    work = -1;
    ck_assert_int_eq(launch(&c, "late_release_kernel", 2, 64, args), VM_DEADLOCK);
    capture_assert_at(c.result.message, VM_CASE_SOURCE, "\"=r\"(got)", "deadlock");
    vm_case_close(&c);
}
END_TEST

/* Blocks that all wait for one another, fewer than a wave, on two threads: one thread starts the
 * blocks not yet started beside its waiting one, the other's block waits on. Neither thread may
 * take the other's stall for the grid's: before, the thread that found no block left to start
 * counted as running none (the others then looked stuck), and the one that took them kept its
 * stall from before them, and 8 blocks of 32 threads were reported deadlocked in most runs. */
START_TEST(blocks_meet_at_a_grid_barrier)
{
    enum { BLOCKS = 8, ROUNDS = 4 };
    setenv("COURSE_EMU_THREADS", "2", 1); /* before the first launch */
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t count = vm_case_buffer(&c, NULL, ROUNDS * 4),
             dout = vm_case_buffer(&c, NULL, 4 * BLOCKS);
    int rounds = ROUNDS;
    void *args[] = {&count, &dout, &rounds};
    for (int r = 0; r < 20; r++) {
        uint32_t out[BLOCKS];
        memset(vm_case_host(&c, count), 0, ROUNDS * 4);
        memset(vm_case_host(&c, dout), 0, sizeof out);
        run(&c, "grid_barrier_kernel", BLOCKS, 32, args);
        vm_case_read(&c, out, dout, sizeof out);
        for (uint32_t b = 0; b < BLOCKS; b++)
            ck_assert_msg(out[b] == BLOCKS * ROUNDS, "run %d: block %u saw %u, want %u", r, b,
                          out[b], BLOCKS * ROUNDS);
    }
    vm_case_close(&c);
}
END_TEST

/* mbarrier_kernel's sums for block @p b, thread @p t, against which the GPU's are checked. */
static int mbarrier_sum(const int *in, int b, int t, int n, int phases)
{
    int sum = 0;
    for (int p = 0; p < phases; p++)
        sum += in[((size_t)b * phases + p) * n + (t + 1 + p) % n];
    return sum;
}

/* cuda::barrier's arrive-wait (mbarrier): 3 blocks of 97 threads pass 12 phases by token and
 * by parity, then the odd warps leave with arrive_drop and the even ones pass two more;
 * each thread's sums equal the CPU's and the first arrive's pending counts are 0 .. 96 once
 * each. An arrive on an object never initialised fails with one line, never a hang. */
START_TEST(mbarrier_phases)
{
    enum { B = 3, N = 97, P = 5 };
    int in[B * P * N], out[B * N];
    unsigned pend[B * N];
    for (int i = 0; i < B * P * N; i++)
        in[i] = (int)(vm_case_rand() % 2001) - 1000;
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t din = vm_case_buffer(&c, in, sizeof in), dout = vm_case_buffer(&c, NULL, sizeof out);
    uint64_t dpend = vm_case_buffer(&c, NULL, sizeof pend);
    int phases = P, init = 1;
    void *args[] = {&din, &dout, &dpend, &phases, &init};
    run(&c, "mbarrier_kernel", B, N, args);
    vm_case_read(&c, out, dout, sizeof out);
    vm_case_read(&c, pend, dpend, sizeof pend);
    for (int b = 0; b < B; b++) {
        unsigned seen[N] = {0};
        for (int t = 0; t < N; t++) {
            int want = mbarrier_sum(in, b, t, N, P) * (t / 32 & 1 ? -1 : 1);
            ck_assert_msg(out[b * N + t] == want,
                          "%s:%d: block %d thread %d of %d: sum %d, want %d", __FILE__, __LINE__, b,
                          t, N, out[b * N + t], want);
            ck_assert_msg(pend[b * N + t] < N && !seen[pend[b * N + t]]++,
                          "%s:%d: block %d thread %d: pending count %u twice or past %d", __FILE__,
                          __LINE__, b, t, pend[b * N + t], N - 1);
        }
    }
    phases = 1, init = 0;
    ck_assert_int_ne(launch(&c, "mbarrier_kernel", 1, 33, args), VM_OK);
    capture_assert_at(c.result.message, VM_CASE_SOURCE, "mbarrier.arrive.shared::cta.b64 %0, [%1];",
                      "mbarrier.init has not initialised");
    vm_case_close(&c);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"divergent_lanes_reconverge", divergent_lanes_reconverge, CASE_CPU, 60},
        {"warp_sync_waits_for_lanes_elsewhere", warp_sync_waits_for_lanes_elsewhere, CASE_CPU, 60},
        {"clocks_advance_in_every_lane", clocks_advance_in_every_lane, CASE_CPU, 60},
        {"barriers_in_loops_and_named", barriers_in_loops_and_named, CASE_CPU, 60},
        {"faults_name_kernel_and_line", faults_name_kernel_and_line, CASE_CPU, 60},
        {"deadlock_trap_assert_unsupported", deadlock_trap_assert_unsupported, CASE_CPU, 60},
        {"printf_formats", printf_formats, CASE_CPU, 60},
        {"look_back_waits_within_a_wave", look_back_waits_within_a_wave, CASE_CPU, 20},
        {"wait_for_a_running_later_block", wait_for_a_running_later_block, CASE_CPU, 60},
        {"blocks_meet_at_a_grid_barrier", blocks_meet_at_a_grid_barrier, CASE_CPU, 60},
        {"mbarrier_phases", mbarrier_phases, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
#endif
