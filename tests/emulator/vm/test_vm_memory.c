/**
 * @file test_vm_memory.c
 * @brief The PTX VM's memory instructions: every width and space, shared and global access
 *        patterns, atomics under contention, cp.async; each kernel beside the case that runs it.
 *
 * One file holds each case whole. nvcc compiles the part between #ifdef VM_CASE_KERNELS and
 * #else to PTX (CMake: emu_vm_case()); the VM runs that PTX in this process (vm_case.h), and
 * the cases below check what the kernels wrote against the host. Faults must name the kernel
 * and the source line marked in the kernel (FAULT_...).
 */
#ifdef VM_CASE_KERNELS
#include <cstdint>

/* Sums through a generic pointer, so the same code reads shared and global memory. */
static __device__ __noinline__ int sum_generic(const int *p, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += p[i];
    return s;
}

extern "C" __global__ void memory_kernel(const int8_t *in8, const float4 *in4, int32_t *out, int n)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    /* out[t] for t < 16: sign-extended bytes; 16..31: the float4's components, truncated. */
    if (t < 16)
        out[t] = in8[t];
    else if (t < 20) {
        float4 v = in4[t - 16];
        out[4 * (t - 16) + 16] = (int)v.x, out[4 * (t - 16) + 17] = (int)v.y;
        out[4 * (t - 16) + 18] = (int)v.z, out[4 * (t - 16) + 19] = (int)v.w;
    }
    tile[t] = 3 * t + 1;
    __syncthreads();
    /* A local array indexed by data: it lives in local memory. */
    int local[16];
    for (int i = 0; i < 16; i++)
        local[i] = in8[i] * (t + 1);
    if (t == 0) {
        out[32] = sum_generic(tile, 64); /* shared, through a generic pointer */
        out[33] = sum_generic(out, 16);  /* global, through the same code */
        out[34] = local[in8[0] & 15] + local[(in8[1] + 16) & 15];
        uint16_t h = (uint16_t)0xBEEF;
        ((uint16_t *)(out + 35))[0] = h; /* a 16-bit store into out[35]'s low half */
        ((uint16_t *)(out + 35))[1] = (uint16_t)n;
        long long wide; /* ld.s32 into a 64-bit register sign-extends (out[17] is -2); nvcc
                         * stores its low half with st.u32 from the 64-bit register */
        asm volatile("ld.global.s32 %0, [%1];" : "=l"(wide) : "l"(out + 17));
        out[36] = (int)(wide >> 32), out[37] = (int)wide;
    }
}

/* Shared reads in the patterns the VM takes apart (a row in order, one word for a whole warp,
 * any other addresses, part of a warp, vectors, a vector whose base register is also its first
 * destination): 80 threads, the last warp partial; out[8 * t + k]. A read past the end
 * (@p past > 0) faults. */
extern "C" __global__ void shared_reads_kernel(const float *in, float *out, int n, int past)
{
    extern __shared__ float s[];
    int t = threadIdx.x;
    for (int i = t; i < n; i += blockDim.x)
        s[i] = in[i];
    __syncthreads();
    float *o = out + 8 * t;
    o[0] = s[t];                /* a row */
    o[1] = s[t / 32 * 7 + 3];   /* one word for each warp */
    o[2] = s[(t * 13 + 5) % n]; /* scattered */
    float4 v = reinterpret_cast<const float4 *>(s)[(t * 3) % (n / 4)];
    o[3] = v.x + 2 * v.y + 4 * v.z + 8 * v.w;
    if (t % 3)
        o[4] = s[n - 1 - t]; /* part of the warp */
    uint32_t a = (uint32_t)__cvta_generic_to_shared(&s[2 * (t % 16)]), b;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%0];" : "+r"(a), "=r"(b));
    o[5] = __uint_as_float(a);
    o[6] = __uint_as_float(b);
    if (past)
        o[7] = s[n - 1 + past]; /* FAULT_SMEM_READ */
}

/* Global accesses a whole warp makes in a row or to one word (the VM's fast path for them) next
 * to the same data through other patterns. Thread t of 64: out[t] = in[t] + in[5] (a row of
 * words, and one word for all), out4[t] = in4[t] reversed (a row of 16-byte vectors), and lanes
 * 0..31 all store their index to out[64] (the last lane's wins). @p past > 0 reads a row that
 * runs @p past words past the end of in's @p n. */
extern "C" __global__ void global_rows_kernel(const int *in, const int4 *in4, int *out, int4 *out4,
                                              int n, int past)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (past) {
        out[t] = in[n - 64 + past + t]; /* FAULT_GLOBAL_ROW */
        return;
    }
    out[t] = in[t] + in[5];
    int4 v = in4[t];
    out4[t] = make_int4(v.w, v.z, v.y, v.x);
    if (t < 32)
        out[64] = t;
}

extern "C" __global__ void atomics_kernel(int *out, float *fout)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&out[0], t);
    atomicAdd(&out[1], -2);
    atomicMin(&out[2], 1000 - t);
    atomicMax(&out[3], t * 3);
    atomicInc((unsigned *)&out[4], 99u);
    int seen = out[5], was;
    do { /* a compare-and-swap loop: every thread adds 1 exactly once */
        was = seen;
        seen = atomicCAS(&out[5], was, was + 1);
    } while (seen != was);
    atomicExch(&out[6], t);
    atomicAdd(&fout[0], 0.5f);
}

extern "C" __global__ void cp_async_kernel(const uint32_t *in, uint32_t *out)
{
    __shared__ __align__(16) uint32_t stage[32 * 4];
    int t = threadIdx.x;
    unsigned dst = (unsigned)__cvta_generic_to_shared(&stage[4 * t]);
    unsigned src_size = (unsigned)(t % 17);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(in + 4 * t),
                 "r"(src_size));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    __syncthreads();
    for (int i = 0; i < 4; i++)
        out[4 * t + i] = stage[4 * t + i];
}

/* The atomics CUB and lesson 06 use beyond atomics_kernel's: 64-bit ones under contention from
 * 64 threads, red (no result), and compare-and-swap failing then succeeding (thread 0); some
 * with the memory-order qualifiers cuda::atomic_ref emits. */
extern "C" __global__ void atomics_wide_kernel(unsigned long long *u, uint32_t *w,
                                               unsigned long long *r)
{
    __shared__ uint32_t s[2];
    unsigned long long t = threadIdx.x;
    if (t < 2)
        s[t] = 40;
    __syncthreads();
    atomicAdd(&u[0], 1ull); /* carries out of the low 32 bits */
    unsigned long long old;
    asm volatile("atom.global.min.s64 %0, [%1], %2;" : "=l"(old) : "l"(&u[1]), "l"(-(long long)t));
    asm volatile("red.global.max.u64 [%0], %1;" ::"l"(&u[2]), "l"(t << 40) : "memory");
    asm volatile("red.global.add.u64 [%0], %1;" ::"l"(&u[4]), "l"(1ull << 33) : "memory");
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(&w[1]), "r"(3u) : "memory");
    asm volatile(
        "red.relaxed.cta.shared.add.u32 [%0], %1;" ::"r"((uint32_t)__cvta_generic_to_shared(&s[0])),
        "r"(2u)
        : "memory");
    __syncthreads();
    if (t)
        return;
    uint32_t f, g, h;
    asm volatile("atom.global.cas.b32 %0, [%1], 5, 9;" : "=r"(f) : "l"(&w[0]) : "memory");
    asm volatile("atom.acq_rel.gpu.global.cas.b32 %0, [%1], 7, 9;"
                 : "=r"(g)
                 : "l"(&w[0])
                 : "memory");
    asm volatile("atom.shared.cas.b32 %0, [%1], 41, 0;"
                 : "=r"(h)
                 : "r"((uint32_t)__cvta_generic_to_shared(&s[1]))
                 : "memory");
    r[0] = f, r[1] = g, r[2] = h, r[3] = s[0], r[4] = s[1], r[8] = old;
    asm volatile("atom.global.cas.b64 %0, [%1], 7, 1;" : "=l"(r[5]) : "l"(&u[3]) : "memory");
    asm volatile("atom.global.cas.b64 %0, [%1], %2, %3;"
                 : "=l"(r[6])
                 : "l"(&u[3]), "l"(0x100000007ull), "l"(0xFFFFFFFF00000000ull)
                 : "memory");
    asm volatile("atom.relaxed.sys.global.exch.b64 %0, [%1], %2;"
                 : "=l"(r[7])
                 : "l"(&u[5]), "l"(~0ull)
                 : "memory");
}

/* redux.sync over v = lane * lane - 40 in every op (out[k]), then match.any.sync.b64 on
 * (lane % 3) << 40 (out[8 + lane]) and a ballot among the odd lanes only (out[40 + lane]). */

/* Module-scope shared arrays belong to the kernels that use them. nvcc declares a
 * namespace-scope __shared__ array at module scope when more than one kernel (here two
 * instantiations of big_kernel) or a .func (shared_sum) uses it; each kernel below takes only
 * its own: big_kernel 40 KiB, small_kernel 16 KiB plus shared_sum's 1 KiB, which together with
 * the other's would exceed the 48 KiB a block may have without opting in. */
namespace big_ns
{
__shared__ int s[10240];
}
namespace small_ns
{
__shared__ int s[4096];
__shared__ int t[256];
} // namespace small_ns

static __device__ __noinline__ int shared_sum(int i)
{
    return small_ns::t[i] + small_ns::t[255 - i];
}

/* out[i] = in[i] + S after a round trip through s, reversed, for i < n (a block of 256). */
template <int S> __global__ void big_kernel(const int *in, int *out, int n)
{
    for (int i = threadIdx.x; i < 10240; i += blockDim.x)
        big_ns::s[i] = i < n ? in[i] + S : 0;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        out[i] = big_ns::s[i];
}
template __global__ void big_kernel<1>(const int *, int *, int);
template __global__ void big_kernel<2>(const int *, int *, int);

/* out[i] = in[n - 1 - i] through s, and out[n + t] = t's and (255 - t)'s words of t summed. */
extern "C" __global__ void small_kernel(const int *in, int *out, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        small_ns::s[i] = in[n - 1 - i];
    small_ns::t[threadIdx.x] = in[threadIdx.x % n] * 3;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        out[i] = small_ns::s[i];
    out[n + threadIdx.x] = shared_sum(threadIdx.x);
}

/* 16-bit float atomics, each update rounded on its own (64 threads, lane order): h[0] and the
 * .y of bf2 add 1 to 2048 and 256, where 1 is half an ulp and every sum a tie that rounds back
 * to the even value they hold (a float accumulation would reach 2112 and 320); h2 and bf2.x add
 * exactly; cas.b16 counts to 64; the vector forms of sm_90, each element its own atomic. */
extern "C" __global__ void atomics_half_kernel(uint32_t *pairs, uint16_t *halves, float4 *v4,
                                               uint16_t *old)
{
    uint32_t t = threadIdx.x;
    uint32_t one2 = 0x40003C00u; /* f16x2 {1, 2} */
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" ::"l"(&pairs[0]), "r"(one2) : "memory");
    uint32_t bf = 0x3F803F80u; /* bf16x2 {1, 1} */
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" ::"l"(&pairs[1]), "r"(bf) : "memory");
    uint16_t was;
    asm volatile("atom.global.add.noftz.f16 %0, [%1], %2;"
                 : "=h"(was)
                 : "l"(&halves[0]), "h"((uint16_t)0x3C00u)
                 : "memory");
    asm volatile("atom.global.cas.b16 %0, [%1], %2, %3;"
                 : "=h"(was)
                 : "l"(&halves[1]), "h"((uint16_t)t), "h"((uint16_t)(t + 1))
                 : "memory");
    asm volatile("red.global.max.noftz.v4.bf16 [%0], {%1, %2, %1, %2};" ::"l"(&halves[4]),
                 "h"((uint16_t)(0x3F80u + t)), "h"((uint16_t)(0xBF80u + t))
                 : "memory");
    atomicAdd(&v4[0], make_float4(1.0f, 2.0f, 0.5f, -1.0f));
    uint16_t a, b;
    asm volatile("atom.global.add.noftz.v2.f16 {%0, %1}, [%2], {%3, %3};"
                 : "=h"(a), "=h"(b)
                 : "l"(&halves[8]), "h"((uint16_t)0x3C00u)
                 : "memory");
    if (t == 63)
        old[0] = a, old[1] = b, old[2] = was; /* lane 63's cas found 63 */
    /* eight ones added into halves[16..23] by the copy engine's reduction */
    __shared__ __align__(16) uint16_t ones[8];
    if (t < 8)
        ones[t] = 0x3C00u;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0)
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%0], [%1], "
                     "16;\n"
                     "cp.async.bulk.commit_group;\n"
                     "cp.async.bulk.wait_group 0;" ::"l"(&halves[16]),
                     "r"((uint32_t)__cvta_generic_to_shared(ones))
                     : "memory");
}

#else
#include <stdint.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "vm_case.h"

START_TEST(memory_spaces_and_widths)
{
    int8_t in8[16];
    float in4[16];
    int32_t out[64];
    for (int i = 0; i < 16; i++)
        in8[i] = (int8_t)(i * 37 - 100); /* both signs */
    for (int i = 0; i < 4; i++) {
        in4[4 * i] = (float)(i * 4 + 1), in4[4 * i + 1] = (float)-(i * 4 + 2);
        in4[4 * i + 2] = (float)(i * 4 + 3), in4[4 * i + 3] = 7.5f;
    }
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t d8 = vm_case_buffer(&c, in8, sizeof in8), d4 = vm_case_buffer(&c, in4, sizeof in4);
    uint64_t dout = vm_case_buffer(&c, NULL, sizeof out);
    int n = 0x4321;
    void *args[] = {&d8, &d4, &dout, &n};
    ck_assert_int_eq(vm_case_run(&c, "memory_kernel", VM_GRID(1), VM_BLOCK(64), args), VM_OK);
    vm_case_read(&c, out, dout, sizeof out);
    int sum = 0;
    for (int i = 0; i < 16; i++) {
        ck_assert_msg(out[i] == in8[i], "ld.s8 at %d: %d, want %d", i, out[i], in8[i]);
        sum += in8[i];
    }
    for (int i = 0; i < 16; i++)
        ck_assert_msg(out[16 + i] == (int)in4[i], "ld.v4.f32 component %d: %d", i, out[16 + i]);
    ck_assert_int_eq(out[32], 6112); /* sum of 3t + 1, t < 64, through a generic pointer */
    ck_assert_int_eq(out[33], sum);  /* the same code reading global memory */
    ck_assert_int_eq(out[34], in8[in8[0] & 15] + in8[(in8[1] + 16) & 15]);
    ck_assert_uint_eq((uint32_t)out[35], 0x4321BEEFu);
    ck_assert_msg(out[36] == -1 && out[37] == -2,
                  "ld.global.s32 of -2 into a 64-bit register gave high word %d, low %d: it must "
                  "sign-extend",
                  out[36], out[37]);
    vm_case_close(&c);
}
END_TEST

/* Every shared-read pattern against the host, and a read past the end named as a fault. */
START_TEST(shared_reads_in_every_pattern)
{
    enum { N = 100, T = 80 };
    float in[N], out[8 * T];
    for (int i = 0; i < N; i++)
        in[i] = (float)((i * 37) % 101 - 50);
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t din = vm_case_buffer(&c, in, sizeof in), dout = vm_case_buffer(&c, NULL, sizeof out);
    int n = N, past = 0;
    void *args[] = {&din, &dout, &n, &past};
    c.dyn_smem = N * sizeof(float);
    ck_assert_int_eq(vm_case_run(&c, "shared_reads_kernel", VM_GRID(1), VM_BLOCK(T), args), VM_OK);
    vm_case_read(&c, out, dout, sizeof out);
    for (int t = 0; t < T; t++) {
        const float *v = &in[4 * ((t * 3) % (N / 4))];
        float want[5] = {in[t], in[t / 32 * 7 + 3], in[(t * 13 + 5) % N],
                         v[0] + 2 * v[1] + 4 * v[2] + 8 * v[3], t % 3 ? in[N - 1 - t] : 0};
        for (int k = 0; k < 5; k++)
            ck_assert_msg(out[8 * t + k] == want[k], "thread %d, pattern %d: %g, want %g", t, k,
                          (double)out[8 * t + k], (double)want[k]);
        ck_assert_msg(!memcmp(&out[8 * t + 5], &in[2 * (t % 16)], 8),
                      "thread %d, ld.shared.v2 onto its own base: %g %g, want %g %g", t,
                      (double)out[8 * t + 5], (double)out[8 * t + 6], (double)in[2 * (t % 16)],
                      (double)in[2 * (t % 16) + 1]);
    }
    past = 3;
    ck_assert_int_eq(vm_case_run(&c, "shared_reads_kernel", VM_GRID(1), VM_BLOCK(T), args),
                     VM_FAULT);
    capture_assert_at(c.result.message, VM_CASE_SOURCE, "FAULT_SMEM_READ",
                      "invalid shared read of 4 bytes at 0x198 (the block has 400 bytes");
    vm_case_close(&c);
}
END_TEST

/* A warp's global row, one word for all, and a row of vectors, against the host; a row that
 * runs past the end of its allocation is named as a fault at its first lane outside. */
START_TEST(global_rows_and_broadcasts)
{
    enum { N = 67, T = 64 };
    int in[N], in4[4 * T], out[T + 1], out4[4 * T];
    for (int i = 0; i < N; i++)
        in[i] = (i * 37) % 101 - 50;
    for (int i = 0; i < 4 * T; i++)
        in4[i] = (i * 53) % 97 - 40;
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t din = vm_case_buffer(&c, in, sizeof in), din4 = vm_case_buffer(&c, in4, sizeof in4);
    uint64_t dout = vm_case_buffer(&c, NULL, sizeof out);
    uint64_t dout4 = vm_case_buffer(&c, NULL, sizeof out4);
    int n = N, past = 0;
    void *args[] = {&din, &din4, &dout, &dout4, &n, &past};
    ck_assert_int_eq(vm_case_run(&c, "global_rows_kernel", VM_GRID(2), VM_BLOCK(32), args), VM_OK);
    vm_case_read(&c, out, dout, sizeof out);
    vm_case_read(&c, out4, dout4, sizeof out4);
    for (int t = 0; t < T; t++) {
        ck_assert_msg(out[t] == in[t] + in[5], "thread %d: row plus one word %d, want %d", t,
                      out[t], in[t] + in[5]);
        for (int k = 0; k < 4; k++)
            ck_assert_msg(out4[4 * t + k] == in4[4 * t + 3 - k],
                          "thread %d, element %d of a vector row: %d, want %d", t, k,
                          out4[4 * t + k], in4[4 * t + 3 - k]);
    }
    ck_assert_msg(out[T] == 31, "one word stored by a warp: %d, want the last lane's, 31", out[T]);
    past = 3;
    ck_assert_int_eq(vm_case_run(&c, "global_rows_kernel", VM_GRID(2), VM_BLOCK(32), args),
                     VM_FAULT);
    capture_assert_at(c.result.message, VM_CASE_SOURCE, "FAULT_GLOBAL_ROW",
                      "invalid global read of 4 bytes at");
    ck_assert_msg(strstr(c.result.message,
                         "(4 bytes past the end of a 268-byte allocation, from its byte 268)"),
                  "the first lane outside, lane 29 of warp 1: %s", c.result.message);
    vm_case_close(&c);
}
END_TEST

START_TEST(atomics_under_contention)
{
    enum { T = 1024 };
    int init[7] = {0, 0, INT32_MAX, INT32_MIN, 0, 0, -1}, out[7];
    float zero = 0.0f, f;
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t d = vm_case_buffer(&c, init, sizeof init), df = vm_case_buffer(&c, &zero, sizeof f);
    void *args[] = {&d, &df};
    ck_assert_int_eq(vm_case_run(&c, "atomics_kernel", VM_GRID(T / 64), VM_BLOCK(64), args), VM_OK);
    vm_case_read(&c, out, d, sizeof out);
    vm_case_read(&c, &f, df, sizeof f);
    ck_assert_int_eq(out[0], T * (T - 1) / 2);
    ck_assert_int_eq(out[1], -2 * T);
    ck_assert_int_eq(out[2], 1000 - (T - 1));
    ck_assert_int_eq(out[3], 3 * (T - 1));
    ck_assert_int_eq(out[4], T % 100); /* atomicInc wraps to 0 after 99 */
    ck_assert_int_eq(out[5], T);       /* every compare-and-swap retried until it won */
    ck_assert(out[6] >= 0 && out[6] < T);
    ck_assert(f == 0.5f * T);
    vm_case_close(&c);
}
END_TEST

START_TEST(cp_async_fills_with_zeros)
{
    uint32_t in[128], out[128];
    for (int i = 0; i < 128; i++)
        in[i] = 0x01010101u * (uint32_t)(i + 1);
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t din = vm_case_buffer(&c, in, sizeof in), dout = vm_case_buffer(&c, NULL, sizeof out);
    void *args[] = {&din, &dout};
    ck_assert_int_eq(vm_case_run(&c, "cp_async_kernel", VM_GRID(1), VM_BLOCK(32), args), VM_OK);
    vm_case_read(&c, out, dout, sizeof out);
    for (int t = 0; t < 32; t++) {
        const uint8_t *got = (const uint8_t *)&out[4 * t], *src = (const uint8_t *)&in[4 * t];
        for (int b = 0; b < 16; b++)
            ck_assert_msg(got[b] == (b < t % 17 ? src[b] : 0),
                          "thread %d byte %d: %u (src_size %d)", t, b, got[b], t % 17);
    }
    vm_case_close(&c);
}
END_TEST

/* 64-bit atomics and red from 64 threads, and compare-and-swap failing (nothing changes, the old
 * value comes back) before it succeeds, in global and shared memory. */
START_TEST(wide_atomics_red_and_failed_cas)
{
    unsigned long long u[6] = {0xFFFFFFFFull, 0, 5, 0x100000007ull, 1, 0x123456789ABCDEF0ull};
    uint32_t w[2] = {7, 100};
    unsigned long long r[9];
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t du = vm_case_buffer(&c, u, sizeof u), dw = vm_case_buffer(&c, w, sizeof w);
    uint64_t dr = vm_case_buffer(&c, NULL, sizeof r);
    void *args[] = {&du, &dw, &dr};
    ck_assert_int_eq(vm_case_run(&c, "atomics_wide_kernel", VM_GRID(1), VM_BLOCK(64), args), VM_OK);
    vm_case_read(&c, u, du, sizeof u);
    vm_case_read(&c, w, dw, sizeof w);
    vm_case_read(&c, r, dr, sizeof r);
    const unsigned long long want_u[6] = {
        0x10000003Full,          /* 0xFFFFFFFF + 64: the carry reaches bit 32 */
        (unsigned long long)-63, /* min.s64 of 0, -1, ..., -63 */
        63ull << 40,             /* max.u64 of 5 and t << 40 */
        0xFFFFFFFF00000000ull,   /* the second cas.b64 swapped it in */
        1 + (64ull << 33),       /* red.add.u64 */
        ~0ull};                  /* exch.b64 */
    for (int i = 0; i < 6; i++)
        ck_assert_msg(u[i] == want_u[i], "u[%d] = 0x%llx, want 0x%llx", i, u[i], want_u[i]);
    ck_assert_msg(w[0] == 9 && w[1] == 292, "w = {%u, %u}, want {9, 292} (cas, red.add.u32)", w[0],
                  w[1]);
    /* cas.b32 fails (7 != 5), then swaps; the shared cas fails; red.shared adds 64 * 2; cas.b64
     * fails on the high word, then swaps; exch returns the old value; thread 0's atom.min came
     * first (the emulator runs atomics in lane order). */
    const unsigned long long want_r[9] = {
        7, 7, 40, 168, 40, 0x100000007ull, 0x100000007ull, 0x123456789ABCDEF0ull, 0};
    for (int i = 0; i < 9; i++)
        ck_assert_msg(r[i] == want_r[i], "result %d = 0x%llx, want 0x%llx", i, r[i], want_r[i]);
    vm_case_close(&c);
}
END_TEST

/* Each kernel takes only the module-scope shared arrays it (or a .func it calls) uses, laid out
 * from offset 0: both run within 48 KiB, and each computes its own answer. */
START_TEST(module_shared_counts_per_kernel)
{
    enum { N = 1999, BIG = 10240 * 4, SMALL = 4096 * 4 + 256 * 4 };
    static int in[N], out[N + 256 + 8];
    for (int i = 0; i < N; i++)
        in[i] = (int)(vm_case_rand() % 20001) - 10000;
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    const char *big[2] = {"_Z10big_kernelILi1EEvPKiPii", "_Z10big_kernelILi2EEvPKiPii"};
    int k = vm_find(c.module, "small_kernel");
    ck_assert_int_ge(k, 0);
    ck_assert_uint_eq(vm_kernel_info(c.module, (uint32_t)k)->static_smem, SMALL);
    uint64_t din = vm_case_buffer(&c, in, sizeof in), dout = vm_case_buffer(&c, NULL, sizeof out);
    int n = N;
    void *args[] = {&din, &dout, &n};
    for (int b = 0; b < 2; b++) {
        k = vm_find(c.module, big[b]);
        ck_assert_int_ge(k, 0);
        ck_assert_uint_eq(vm_kernel_info(c.module, (uint32_t)k)->static_smem, BIG);
        ck_assert_msg(vm_case_run(&c, big[b], VM_GRID(1), VM_BLOCK(256), args) == VM_OK, "%s",
                      c.result.message);
        vm_case_read(&c, out, dout, sizeof out);
        for (int i = 0; i < N; i++)
            ck_assert_msg(out[i] == in[i] + b + 1, "%s: out[%d] = %d, want %d", big[b], i, out[i],
                          in[i] + b + 1);
    }
    n = 300; /* small_ns::s holds 4096 */
    ck_assert_msg(vm_case_run(&c, "small_kernel", VM_GRID(1), VM_BLOCK(256), args) == VM_OK, "%s",
                  c.result.message);
    vm_case_read(&c, out, dout, sizeof out);
    for (int i = 0; i < n; i++)
        ck_assert_msg(out[i] == in[n - 1 - i], "small_kernel: out[%d] = %d, want %d", i, out[i],
                      in[n - 1 - i]);
    for (int t = 0; t < 256; t++)
        ck_assert_msg(out[n + t] == 3 * (in[t % n] + in[(255 - t) % n]),
                      "small_kernel through shared_sum: out[%d] = %d", n + t, out[n + t]);
    vm_case_close(&c);
}
END_TEST

START_TEST(half_and_vector_atomics)
{
    uint32_t pairs[2] = {0, 0x43800000u}; /* f16x2 {0, 0}; bf16x2 {0, 256} */
    uint16_t halves[24] = {0x6800u, 0,       0,       0,       0xFF80u, 0xFF80u, 0x7FC0u, 0x0000u,
                           0,       0,       0,       0,       0,       0,       0,       0,
                           0x6800u, 0x3C00u, 0x3C00u, 0x3C00u, 0x3C00u, 0x3C00u, 0x3C00u, 0x3C00u};
    float v4[4] = {0, 0, 0, 0};
    uint16_t old[3];
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t dp = vm_case_buffer(&c, pairs, sizeof pairs),
             dh = vm_case_buffer(&c, halves, sizeof halves);
    uint64_t dv = vm_case_buffer(&c, v4, sizeof v4), dold = vm_case_buffer(&c, NULL, sizeof old);
    void *args[] = {&dp, &dh, &dv, &dold};
    ck_assert_int_eq(vm_case_run(&c, "atomics_half_kernel", VM_GRID(1), VM_BLOCK(64), args), VM_OK);
    vm_case_read(&c, pairs, dp, sizeof pairs);
    vm_case_read(&c, halves, dh, sizeof halves);
    vm_case_read(&c, v4, dv, sizeof v4);
    vm_case_read(&c, old, dold, sizeof old);
    /* f16x2 {64, 128}; bf16x2 {64, 256}: 256 + 1 ties back to 256 at every update */
    ck_assert_msg(pairs[0] == 0x58005400u && pairs[1] == 0x43804280u,
                  "pairs = {0x%08x, 0x%08x}, want {0x58005400, 0x43804280} (f16x2 {64, 128}, "
                  "bf16x2 {64, 256}: each add rounded on its own)",
                  pairs[0], pairs[1]);
    /* 2048 + 1 is a tie in f16 and rounds to even, 2048, at each of the 64 adds */
    ck_assert_msg(halves[0] == 0x6800u, "f16 2048 + 64 x 1 = 0x%04x, want 0x6800 (2048)",
                  halves[0]);
    ck_assert_msg(halves[1] == 64 && old[2] == 63,
                  "cas.b16 counted to %u (lane 63 found %u), want 64 (63)", halves[1], old[2]);
    /* max over lanes of 1 + t ulps and -(1 + t ulps): from -inf, the largest of each; from a
     * NaN, the number; from +0 the positive */
    const uint16_t want_max[4] = {0x3F80u + 63, 0xBF80u, 0x3F80u + 63, 0x0000u};
    for (int i = 0; i < 4; i++)
        ck_assert_msg(halves[4 + i] == want_max[i],
                      "red.max.v4.bf16 element %d = 0x%04x, want 0x%04x", i, halves[4 + i],
                      want_max[i]);
    ck_assert_msg(v4[0] == 64 && v4[1] == 128 && v4[2] == 32 && v4[3] == -64,
                  "atomicAdd(float4) = {%g, %g, %g, %g}, want {64, 128, 32, -64}", v4[0], v4[1],
                  v4[2], v4[3]);
    ck_assert_msg(halves[8] == 0x5400u && halves[9] == 0x5400u && old[0] == 0x53E0u &&
                      old[1] == 0x53E0u,
                  "atom.add.v2.f16: {0x%04x, 0x%04x}, the last lane's old {0x%04x, 0x%04x}; want "
                  "{64, 64} (0x5400) and {63, 63} (0x53e0)",
                  halves[8], halves[9], old[0], old[1]);
    /* the bulk reduction: 2048 + 1 ties back to 2048, 1 + 1 is 2 */
    for (int i = 16; i < 24; i++)
        ck_assert_msg(halves[i] == (i == 16 ? 0x6800u : 0x4000u),
                      "cp.reduce.async.bulk add.noftz.f16 element %d = 0x%04x, want 0x%04x", i - 16,
                      halves[i], i == 16 ? 0x6800u : 0x4000u);
    vm_case_close(&c);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"memory_spaces_and_widths", memory_spaces_and_widths, CASE_CPU, 60},
        {"shared_reads_in_every_pattern", shared_reads_in_every_pattern, CASE_CPU, 60},
        {"global_rows_and_broadcasts", global_rows_and_broadcasts, CASE_CPU, 60},
        {"atomics_under_contention", atomics_under_contention, CASE_CPU, 60},
        {"cp_async_fills_with_zeros", cp_async_fills_with_zeros, CASE_CPU, 60},
        {"wide_atomics_red_and_failed_cas", wide_atomics_red_and_failed_cas, CASE_CPU, 60},
        {"module_shared_counts_per_kernel", module_shared_counts_per_kernel, CASE_CPU, 60},
        {"half_and_vector_atomics", half_and_vector_atomics, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
#endif
