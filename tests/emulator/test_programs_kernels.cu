/**
 * @file test_programs_kernels.cu
 * @brief Small CUDA programs of the project's own for the emulator's conformance suite
 *        (test_programs.c), one per family of PTX a course program compiles to:
 *   prog_atomics    atom/red of every integer and float type, in global, shared and generic
 *                   space, at block, device and system scope, CAS loops, inc/dec, exch
 *   prog_fence_sum  __threadfence and a release/acquire counter: the last block sums
 *   prog_tiles      cooperative groups: tiled_partition<2..32>, reduce, ballot, coalesced
 *   prog_cp_async   cp.async double buffering: commit_group, wait_group 1, wait_all
 *   prog_big_smem   dynamic shared memory above 48 KiB (cudaFuncSetAttribute)
 *   prog_math       the math library in fp32 and fp64
 *   prog_bmsk       bmsk.clamp and bmsk.wrap (what CUB's radix sort builds masks with), and
 *                   griddepcontrol (CUB's merge sort)
 *   prog_int16      div, rem, min, max on 16-bit registers (CUDA's reduction sample)
 *   prog_wmma_*     wmma m8n8k4 f64 and the 8-bit shapes with s32 accumulators
 */
#include "test_programs.h"

#include <climits>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>
#include <cuda_pipeline.h>
#include <mma.h>

namespace cg = cooperative_groups;
using namespace nvcuda;

/* ---- atomics ------------------------------------------------------------------------------ */

/* add, min, max, and, or, xor of v into s[0 .. 6). */
template <typename T> static __device__ void atomic_ops(T *s, T v)
{
    atomicAdd(&s[0], v);
    atomicMin(&s[1], v);
    atomicMax(&s[2], v);
    atomicAnd(&s[3], v);
    atomicOr(&s[4], v);
    atomicXor(&s[5], v);
}

/* long long has atomicMin/Max; its add and bitwise ops go through unsigned long long. */
static __device__ void atomic_ops_i64(long long *s, long long v)
{
    unsigned long long *u = (unsigned long long *)s, w = (unsigned long long)v;
    atomicAdd(&u[0], w);
    atomicMin(&s[1], v);
    atomicMax(&s[2], v);
    atomicAnd(&u[3], w);
    atomicOr(&u[4], w);
    atomicXor(&u[5], w);
}

/* max of floats and doubles by compare-and-swap on their bits (atom.cas.b32 and .b64). */
static __device__ void cas_max(float *p, float v)
{
    int *q = (int *)p, old = *q, seen;
    while (__int_as_float(old) < v && (seen = atomicCAS(q, old, __float_as_int(v))) != old)
        old = seen;
}

static __device__ void cas_max(double *p, double v)
{
    unsigned long long *q = (unsigned long long *)p, old = *q, seen;
    while (__longlong_as_double((long long)old) < v &&
           (seen = atomicCAS(q, old, (unsigned long long)__double_as_longlong(v))) != old)
        old = seen;
}

/* The initial shared slots: add 0, min the type's largest, max its smallest, and all ones. */
template <typename T> static __device__ void slots_init(T *s, T lo, T hi)
{
    s[0] = 0, s[1] = hi, s[2] = lo, s[3] = (T) ~(T)0, s[4] = 0, s[5] = 0;
}

static __global__ void atomics_kernel(const int *in, int n, struct prog_atomics *out)
{
    __shared__ struct prog_atomics sh; /* the [1] slots are this block's */
    __shared__ int sh_generic;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    if (t == 0) {
        slots_init(sh.i32[1], INT_MIN, INT_MAX);
        slots_init(sh.u32[1], 0u, UINT_MAX);
        slots_init(sh.i64[1], LLONG_MIN, LLONG_MAX);
        slots_init(sh.u64[1], 0ull, ULLONG_MAX);
        sh.f32[1][0] = 0, sh.f32[1][1] = -1e30f, sh.f64[1][0] = 0, sh.f64[1][1] = -1e300;
        sh.block_scope = 0, sh_generic = 0;
    }
    __syncthreads(); /* the slots are set before any thread updates them */
    if (i < n) {
        int v = in[i];
        unsigned u = (unsigned)(v + 100) * 40503u;
        long long l = (long long)v * 10000000007ll + i;
        unsigned long long q = (unsigned long long)(v + 100) << 33 | (unsigned)i;
        for (int space = 0; space < 2; space++) {
            struct prog_atomics *p = space ? &sh : out;
            atomic_ops(p->i32[space], v);
            atomic_ops(p->u32[space], u);
            atomic_ops_i64(p->i64[space], l);
            atomic_ops(p->u64[space], q);
            atomicAdd(&p->f32[space][0], (float)v);
            cas_max(&p->f32[space][1], (float)v * 0.5f);
            atomicAdd(&p->f64[space][0], (double)v);
            cas_max(&p->f64[space][1], (double)v * 0.25);
        }
        atomicInc(&out->inc, 16u);
        atomicDec(&out->dec, 16u);
        atomicAdd(&out->exch_sum, atomicExch(&out->exch_slot, v));
        atomicAdd_block(&sh.block_scope, v);
        atomicAdd_system(&out->sys_scope, 1);
        int *g = (i & 1) ? &sh_generic : &out->generic; /* a generic address: either space */
        atomicAdd(g, v);
    }
    __syncthreads(); /* every shared update is done before thread 0 reads them */
    if (t == 0) {
        atomicAdd(&out->block_scope, sh.block_scope);
        atomicAdd(&out->generic, sh_generic);
    }
    if (blockIdx.x == 0 && t < PROG_ATOM_OPS) {
        out->i32[1][t] = sh.i32[1][t], out->u32[1][t] = sh.u32[1][t];
        out->i64[1][t] = sh.i64[1][t], out->u64[1][t] = sh.u64[1][t];
        if (t < 2)
            out->f32[1][t] = sh.f32[1][t], out->f64[1][t] = sh.f64[1][t];
    }
}

cudaError_t prog_atomics(const int *d_in, int n, struct prog_atomics *d_out)
{
    atomics_kernel<<<(n + 127) / 128, 128>>>(d_in, n, d_out);
    return cudaDeviceSynchronize();
}

/* ---- fences and memory order --------------------------------------------------------------- */

static __global__ void fence_sum_kernel(const int *in, int n, int *partial, unsigned *count,
                                        int *out, int *last)
{
    __shared__ int s[128];
    __shared__ bool am_last;
    int t = threadIdx.x, i = blockIdx.x * 128 + t;
    s[t] = i < n ? in[i] : 0;
    for (int half = 64; half > 0; half /= 2) {
        __syncthreads(); /* the previous level is written before this one reads it */
        if (t < half)
            s[t] += s[t + half];
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence(); /* the partial is visible before the counter says so */
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*count);
        am_last = c.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    __syncthreads(); /* am_last is set */
    if (am_last && t == 0) {
        int sum = 0;
        for (unsigned b = 0; b < gridDim.x; b++)
            sum += cuda::atomic_ref<int, cuda::thread_scope_device>(partial[b])
                       .load(cuda::memory_order_acquire);
        __threadfence_block();
        *out = sum;
        *last = (int)blockIdx.x;
        __threadfence_system();
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*count).store(
            0, cuda::memory_order_release);
    }
}

cudaError_t prog_fence_sum(const int *d_in, int n, int *d_partial, unsigned *d_count, int *d_out,
                           int *d_last)
{
    fence_sum_kernel<<<(n + 127) / 128, 128>>>(d_in, n, d_partial, d_count, d_out, d_last);
    return cudaDeviceSynchronize();
}

/* ---- cooperative groups ------------------------------------------------------------------- */

template <int S>
static __device__ void tile_step(const int *in, int n, int *out, unsigned *ballot, int s)
{
    cg::thread_block_tile<S> tile = cg::tiled_partition<S>(cg::this_thread_block());
    int t = threadIdx.x, v = in[t];
    out[s * n + t] = cg::reduce(tile, v, cg::plus<int>()) + 1000 * (int)tile.meta_group_rank();
    ballot[s * n + t] = tile.ballot(v & 1);
}

static __global__ void tiles_kernel(const int *in, int n, int *out, unsigned *ballot,
                                    int *coalesced)
{
    tile_step<2>(in, n, out, ballot, 0);
    tile_step<4>(in, n, out, ballot, 1);
    tile_step<8>(in, n, out, ballot, 2);
    tile_step<16>(in, n, out, ballot, 3);
    tile_step<32>(in, n, out, ballot, 4);
    int v = in[threadIdx.x];
    if (v % 2 == 0) { /* a divergent branch: the group is the lanes that took it */
        cg::coalesced_group g = cg::coalesced_threads();
        coalesced[threadIdx.x] = cg::reduce(g, v, cg::plus<int>());
    } else {
        coalesced[threadIdx.x] = 0;
    }
}

cudaError_t prog_tiles(const int *d_in, int n, int *d_out, unsigned *d_ballot, int *d_coalesced)
{
    tiles_kernel<<<1, n>>>(d_in, n, d_out, d_ballot, d_coalesced);
    return cudaDeviceSynchronize();
}

/* ---- cp.async ----------------------------------------------------------------------------- */

enum { CP_TILE = 256 };

static __global__ void cp_async_kernel(const int *in, int n, int *out)
{
    __shared__ int buf[2][CP_TILE];
    int t = threadIdx.x, tiles = (n + CP_TILE - 1) / CP_TILE;
    /* Each thread copies word t of a tile into buffer tile % 2, one group per tile. */
    auto issue = [&](int tile) {
        int i = tile * CP_TILE + t;
        if (i < n)
            __pipeline_memcpy_async(&buf[tile & 1][t], &in[i], sizeof(int));
        __pipeline_commit();
    };
    issue(0);
    for (int tile = 0; tile < tiles; tile++) {
        if (tile + 1 < tiles) {
            issue(tile + 1);
            __pipeline_wait_prior(1); /* tile's group has landed, the next may be in flight */
        } else {
            __pipeline_wait_prior(0);
        }
        int i = tile * CP_TILE + t;
        if (i < n)
            out[i] = buf[tile & 1][t] * 2 + 1;
    }
}

cudaError_t prog_cp_async(const int *d_in, int n, int *d_out)
{
    cp_async_kernel<<<1, CP_TILE>>>(d_in, n, d_out);
    return cudaDeviceSynchronize();
}

/* ---- dynamic shared memory above 48 KiB ---------------------------------------------------- */

static __global__ void big_smem_kernel(const int *in, int *out, int words)
{
    extern __shared__ int s[];
    for (int w = threadIdx.x; w < words; w += blockDim.x)
        s[w] = in[w];
    __syncthreads(); /* every word is written before the reversed read */
    for (int w = threadIdx.x; w < words; w += blockDim.x)
        out[w] = s[words - 1 - w];
}

cudaError_t prog_big_smem(const int *d_in, int *d_out, int bytes)
{
    cudaError_t err =
        cudaFuncSetAttribute(big_smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (err != cudaSuccess)
        return err;
    big_smem_kernel<<<1, 256, bytes>>>(d_in, d_out, bytes / 4);
    return cudaDeviceSynchronize();
}

/* ---- the math library --------------------------------------------------------------------- */

static __global__ void math_kernel(const float *x, const double *dx, int n, float *f, double *d)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i], a = fabsf(v) + 0.5f; /* a > 0 for the logarithms and powers */
    const float fr[PROG_MATH_F] = {sinf(v),        cosf(v),  tanf(v),   expf(v),         exp2f(v),
                                   logf(a),        log2f(a), log10f(a), powf(a, 1.7f),   sqrtf(a),
                                   rsqrtf(a),      erff(v),  tanhf(v),  atan2f(v, 1.5f), cbrtf(v),
                                   fmodf(v, 3.3f), erfcf(v)};
    for (int k = 0; k < PROG_MATH_F; k++)
        f[k * n + i] = fr[k];
    double w = dx[i], b = fabs(w) + 0.5;
    const double dr[PROG_MATH_D] = {sin(w),      cos(w),  exp(w), log(b),
                                    pow(b, 1.7), sqrt(b), erf(w), tanh(w)};
    for (int k = 0; k < PROG_MATH_D; k++)
        d[k * n + i] = dr[k];
}

cudaError_t prog_math(const float *d_x, const double *d_dx, int n, float *d_f, double *d_d)
{
    math_kernel<<<(n + 127) / 128, 128>>>(d_x, d_dx, n, d_f, d_d);
    return cudaDeviceSynchronize();
}

/* ---- bmsk ------------------------------------------------------------------------------- */

static __global__ void bmsk_kernel(const unsigned *a, const unsigned *b, unsigned *clamp,
                                   unsigned *wrap, int n)
{
    /* Programmatic dependent launch, as CUB's sm_90 kernels use it: wait for the grids before
     * this one, then let the next start. */
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;");
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(clamp[i]) : "r"(a[i]), "r"(b[i]));
        asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(wrap[i]) : "r"(a[i]), "r"(b[i]));
    }
}

cudaError_t prog_bmsk(const unsigned *d_a, const unsigned *d_b, unsigned *d_clamp, unsigned *d_wrap,
                      int n)
{
    bmsk_kernel<<<(n + 127) / 128, 128>>>(d_a, d_b, d_clamp, d_wrap, n);
    return cudaDeviceSynchronize();
}

/* ---- 16-bit integers ------------------------------------------------------------------- */

static __global__ void int16_kernel(const uint16_t *a, const uint16_t *b, uint16_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint16_t x = a[i], y = b[i], *o = &out[8 * i];
    asm("div.s16 %0, %1, %2;" : "=h"(o[0]) : "h"(x), "h"(y));
    asm("rem.s16 %0, %1, %2;" : "=h"(o[1]) : "h"(x), "h"(y));
    asm("min.s16 %0, %1, %2;" : "=h"(o[2]) : "h"(x), "h"(y));
    asm("max.s16 %0, %1, %2;" : "=h"(o[3]) : "h"(x), "h"(y));
    asm("div.u16 %0, %1, %2;" : "=h"(o[4]) : "h"(x), "h"(y));
    asm("rem.u16 %0, %1, %2;" : "=h"(o[5]) : "h"(x), "h"(y));
    asm("min.u16 %0, %1, %2;" : "=h"(o[6]) : "h"(x), "h"(y));
    asm("max.u16 %0, %1, %2;" : "=h"(o[7]) : "h"(x), "h"(y));
}

cudaError_t prog_int16(const uint16_t *d_a, const uint16_t *d_b, uint16_t *d_out, int n)
{
    int16_kernel<<<(n + 127) / 128, 128>>>(d_a, d_b, d_out, n);
    return cudaDeviceSynchronize();
}

/* ---- wmma: f64 and 8-bit integers ---------------------------------------------------------- */

static __global__ void wmma_f64_kernel(const double *a, const double *b, const double *c, double *d)
{
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
    wmma::load_matrix_sync(fa, a, PROG_WMMA_LD);
    wmma::load_matrix_sync(fb, b, PROG_WMMA_LD);
    wmma::load_matrix_sync(fc, c, PROG_WMMA_LD, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, PROG_WMMA_LD, wmma::mem_row_major);
}

cudaError_t prog_wmma_f64(const double *d_a, const double *d_b, const double *d_c, double *d_d)
{
    wmma_f64_kernel<<<1, 32>>>(d_a, d_b, d_c, d_d);
    return cudaDeviceSynchronize();
}

template <int M, int N, int K, typename T>
static __global__ void wmma_int8_kernel(const T *a, const T *b, const int *c, int *d)
{
    wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, int> fc;
    wmma::load_matrix_sync(fa, a, PROG_WMMA_LD);
    wmma::load_matrix_sync(fb, b, PROG_WMMA_LD);
    wmma::load_matrix_sync(fc, c, PROG_WMMA_LD, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, PROG_WMMA_LD, wmma::mem_row_major);
}

template <typename T>
static void wmma_int8_launch(int shape, const void *a, const void *b, const int *c, int *d)
{
    const T *ta = (const T *)a, *tb = (const T *)b;
    if (shape == 0)
        wmma_int8_kernel<16, 16, 16, T><<<1, 32>>>(ta, tb, c, d);
    else if (shape == 1)
        wmma_int8_kernel<32, 8, 16, T><<<1, 32>>>(ta, tb, c, d);
    else
        wmma_int8_kernel<8, 32, 16, T><<<1, 32>>>(ta, tb, c, d);
}

cudaError_t prog_wmma_int8(int shape, const void *d_a, const void *d_b, const int *d_c, int *d_d,
                           int is_unsigned)
{
    if (is_unsigned)
        wmma_int8_launch<unsigned char>(shape, d_a, d_b, d_c, d_d);
    else
        wmma_int8_launch<signed char>(shape, d_a, d_b, d_c, d_d);
    return cudaDeviceSynchronize();
}

/* m16n16k16 s8 through CUDA C++'s saturating mma_sync (satf: PTX .satfinite) or the plain one. */
static __global__ void wmma_s8_satf_kernel(int satf, const signed char *a, const signed char *b,
                                           const int *c, int *d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::load_matrix_sync(fa, a, PROG_WMMA_LD);
    wmma::load_matrix_sync(fb, b, PROG_WMMA_LD);
    wmma::load_matrix_sync(fc, c, PROG_WMMA_LD, wmma::mem_row_major);
    if (satf)
        wmma::mma_sync(fc, fa, fb, fc, true);
    else
        wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, PROG_WMMA_LD, wmma::mem_row_major);
}

cudaError_t prog_wmma_s8_satf(int satf, const void *d_a, const void *d_b, const int *d_c, int *d_d)
{
    wmma_s8_satf_kernel<<<1, 32>>>(satf, (const signed char *)d_a, (const signed char *)d_b, d_c,
                                   d_d);
    return cudaDeviceSynchronize();
}

/* Thread i's block: 1 + |in[i]| % 7 ints, value j is in[i] * (j + 1). */
static __global__ void heap_fill_kernel(const int *in, int n, int **slots, int *null_on_huge)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int k = 1 + abs(in[i]) % 7;
    int *p = new int[k];
    for (int j = 0; j < k; j++)
        p[j] = in[i] * (j + 1);
    slots[i] = p;
    void *huge = malloc((size_t)1 << 40);
    null_on_huge[i] = huge == NULL;
    free(huge);
}

static __global__ void heap_sum_kernel(int **slots, int n, const int *in, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int k = 1 + abs(in[i]) % 7, s = 0;
    for (int j = 0; j < k; j++)
        s += slots[i][j];
    out[i] = s;
    delete[] slots[i];
}

cudaError_t prog_heap_fill(const int *d_in, int n, int **d_slots, int *d_null)
{
    heap_fill_kernel<<<(n + 127) / 128, 128>>>(d_in, n, d_slots, d_null);
    return cudaDeviceSynchronize();
}

cudaError_t prog_heap_sum(int **d_slots, int n, const int *d_in, int *d_out)
{
    heap_sum_kernel<<<(n + 127) / 128, 128>>>(d_slots, n, d_in, d_out);
    return cudaDeviceSynchronize();
}

/* Ten arguments and a result through one call frame (a call of more than six did not parse). */
static __device__ __noinline__ long long weigh10(int a, int b, int c, int d, int e, int f, int g,
                                                 int h, int i, long long j)
{
    return a + 2LL * b + 3LL * c + 4LL * d + 5LL * e + 6LL * f + 7LL * g + 8LL * h + 9LL * i +
           10 * j;
}

static __global__ void ten_args_kernel(const int *in, int n, long long *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n)
        out[t] = weigh10(in[t], in[(t + 1) % n], in[(t + 2) % n], in[(t + 3) % n], in[(t + 4) % n],
                         in[(t + 5) % n], in[(t + 6) % n], in[(t + 7) % n], in[(t + 8) % n],
                         (long long)in[(t + 9) % n] << 20);
}

cudaError_t prog_ten_args(const int *d_in, int n, long long *d_out)
{
    ten_args_kernel<<<(n + 127) / 128, 128>>>(d_in, n, d_out);
    return cudaDeviceSynchronize();
}

static __device__ __noinline__ int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* The sum of v[lo .. hi) by halves: the two halves' sums come back through the call frames. */
static __device__ __noinline__ int tree_sum(const int *v, int lo, int hi)
{
    if (hi - lo == 1)
        return v[lo];
    int mid = lo + (hi - lo) / 2;
    int left = tree_sum(v, lo, mid);
    return left + tree_sum(v, mid, hi);
}

static __global__ void recursion_kernel(const int *in, int n, int *fibs, long long *sums)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fibs[i] = fib(abs(in[i]) % 13);
    sums[i] = tree_sum(in, i, i + 1 + abs(in[i]) % (n - i));
}

static __device__ __noinline__ int count_down(volatile int *levels, int k)
{
    if (k == 0)
        return 0;
    int below = count_down(levels, k - 1); /* used after the call: no loop can replace it */
    levels[k] = below;
    return below + 1;
}

static __global__ void deep_kernel(int *levels, int k, int *out)
{
    out[threadIdx.x] = count_down(levels + threadIdx.x * (k + 1), k);
}

/* Each level keeps its partial sum in a local array whose address it hands to the next. */
static __device__ __noinline__ void sum_into(int *above, volatile const int *v, int k)
{
    int mine[2] = {v[k], 0};
    if (k > 0)
        sum_into(mine, v, k - 1); /* LOCAL_POINTER_DOWN */
    above[0] += mine[0] + mine[1];
}

static __global__ void local_pointer_kernel(const int *v, int k, int *out)
{
    int total[2] = {0, 0};
    sum_into(total, v, k);
    out[threadIdx.x] = total[0];
}

cudaError_t prog_recursion(const int *d_in, int n, int *d_fibs, long long *d_sums)
{
    recursion_kernel<<<(n + 127) / 128, 128>>>(d_in, n, d_fibs, d_sums);
    return cudaDeviceSynchronize();
}

cudaError_t prog_deep_recursion(int *d_levels, int k, int threads, int *d_out)
{
    deep_kernel<<<1, threads>>>(d_levels, k, d_out);
    return cudaDeviceSynchronize();
}

cudaError_t prog_local_pointer_recursion(const int *d_v, int k, int *d_out)
{
    local_pointer_kernel<<<1, 32>>>(d_v, k, d_out);
    return cudaDeviceSynchronize();
}

/* Three shapes behind one virtual area(): a warp's lanes call different functions at once. */
struct Shape {
    __device__ virtual int area() const = 0;
    __device__ virtual ~Shape()
    {
    }
};

struct Rect : Shape {
    int w, h;
    __device__ Rect(int w_, int h_) : w(w_), h(h_)
    {
    }
    __device__ int area() const override
    {
        return w * h;
    }
};

struct Tri : Shape {
    int b, h;
    __device__ Tri(int b_, int h_) : b(b_), h(h_)
    {
    }
    __device__ int area() const override
    {
        return b * h / 2;
    }
};

struct Square : Rect {
    __device__ explicit Square(int s) : Rect(s, s)
    {
    }
    __device__ int area() const override
    {
        return Rect::area() + 1;
    }
};

static __device__ __noinline__ Shape *make_shape(int v)
{
    int a = abs(v) % 17 + 1, b = abs(v) % 5 + 2;
    if (v % 3 == 0)
        return new Rect(a, b);
    return v % 3 == 1 || v % 3 == -1 ? (Shape *)new Tri(a, b) : (Shape *)new Square(a);
}

static __global__ void shapes_kernel(const int *in, int n, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Shape *s = make_shape(in[i]);
    out[i] = s->area();
    delete s;
}

cudaError_t prog_virtual_calls(const int *d_in, int n, int *d_out)
{
    shapes_kernel<<<(n + 127) / 128, 128>>>(d_in, n, d_out);
    return cudaDeviceSynchronize();
}
