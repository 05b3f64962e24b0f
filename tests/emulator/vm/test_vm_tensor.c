/**
 * @file test_vm_tensor.c
 * @brief The PTX VM's tensor instructions: wmma tiles in f16, bf16 and tf32 computed exactly
 *        on exact inputs, wmma's alignment rules, mma.sync and ldmatrix through the register
 *        layouts the PTX ISA documents, and the mma.sp forms refused; each kernel beside the
 *        case that runs it.
 *
 * One file holds each case whole. nvcc compiles the part between #ifdef VM_CASE_KERNELS and
 * #else to PTX (CMake: emu_vm_case()); the VM runs that PTX in this process (vm_case.h), and
 * the cases below check the tiles against the host's product.
 */
#ifdef VM_CASE_KERNELS
#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

/* One 16 x 16 x K tile through wmma, the inputs converted to the storage type on the device
 * (tf32 fragments are loaded from floats). */
template <typename In, typename Store, typename Acc, int K, typename BLayout>
static __device__ void wmma_tile(const float *A, const float *B, const float *C, float *D)
{
    __shared__ Store a[16 * 16], b[16 * 16];
    __shared__ Acc c[16 * 16];
    for (int i = threadIdx.x; i < 16 * K; i += 32) {
        a[i] = (Store)A[i];
        b[i] = (Store)B[i];
    }
    for (int i = threadIdx.x; i < 256; i += 32)
        c[i] = (Acc)C[i];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, K, In, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, K, In, BLayout> fb;
    wmma::fragment<wmma::accumulator, 16, 16, K, Acc> fc;
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, std::is_same<BLayout, wmma::row_major>::value ? 16 : K);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int i = threadIdx.x; i < 256; i += 32)
        D[i] = (float)c[i];
}

/* The tiles wmma_tiles runs: f16 (B row-major, B column-major, an f16 accumulator), bf16 and
 * tf32; each a kernel of its own, so that its PTX name is plain. */
extern "C" __global__ void wmma_f16(const float *A, const float *B, const float *C, float *D)
{
    wmma_tile<__half, __half, float, 16, wmma::row_major>(A, B, C, D);
}

extern "C" __global__ void wmma_f16_b_col(const float *A, const float *B, const float *C, float *D)
{
    wmma_tile<__half, __half, float, 16, wmma::col_major>(A, B, C, D);
}

extern "C" __global__ void wmma_f16_acc_f16(const float *A, const float *B, const float *C,
                                            float *D)
{
    wmma_tile<__half, __half, __half, 16, wmma::row_major>(A, B, C, D);
}

extern "C" __global__ void wmma_bf16(const float *A, const float *B, const float *C, float *D)
{
    wmma_tile<__nv_bfloat16, __nv_bfloat16, float, 16, wmma::row_major>(A, B, C, D);
}

extern "C" __global__ void wmma_tf32(const float *A, const float *B, const float *C, float *D)
{
    wmma_tile<wmma::precision::tf32, float, float, 8, wmma::row_major>(A, B, C, D);
}

/* D = A A^T through wmma, A loaded from @p A with row stride @p ldm (f16 elements). */
extern "C" __global__ void wmma_stride_kernel(const __half *A, int ldm, float *D)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::load_matrix_sync(a, A, ldm); /* WMMA_ALIGNMENT */
    wmma::load_matrix_sync(b, A, ldm);
    wmma::fill_fragment(c, 0.0f);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}

/* mma.sync with the registers exactly as the caller laid them out. */
extern "C" __global__ void mma_kernel(int shape, int type, const uint32_t *a, const uint32_t *b,
                                      const uint32_t *c, uint32_t *d)
{
    int l = threadIdx.x;
    const uint32_t *A = a + 4 * l, *B = b + 2 * l;
    float C[4], D[4];
    for (int i = 0; i < 4; i++)
        C[i] = __uint_as_float(c[4 * l + i]);
    if (shape == 0 && type == 0)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, "
                     "%5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                     : "=f"(D[0]), "=f"(D[1]), "=f"(D[2]), "=f"(D[3])
                     : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "f"(C[0]),
                       "f"(C[1]), "f"(C[2]), "f"(C[3]));
    else if (shape == 0)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, "
                     "%5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                     : "=f"(D[0]), "=f"(D[1]), "=f"(D[2]), "=f"(D[3])
                     : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "f"(C[0]),
                       "f"(C[1]), "f"(C[2]), "f"(C[3]));
    else if (shape == 1)
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, "
                     "%5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                     : "=f"(D[0]), "=f"(D[1]), "=f"(D[2]), "=f"(D[3])
                     : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "f"(C[0]),
                       "f"(C[1]), "f"(C[2]), "f"(C[3]));
    else
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, "
                     "%5}, {%6}, {%7, %8, %9, %10};"
                     : "=f"(D[0]), "=f"(D[1]), "=f"(D[2]), "=f"(D[3])
                     : "r"(A[0]), "r"(A[1]), "r"(B[0]), "f"(C[0]), "f"(C[1]), "f"(C[2]), "f"(C[3]));
    for (int i = 0; i < 4; i++)
        d[4 * l + i] = __float_as_uint(D[i]);
}

/* Lane l names row l % 8 of matrix l / 8; each lane gets its four registers, twice (the
 * second time transposed, through a generic address). */
extern "C" __global__ void ldmatrix_kernel(const uint16_t *m, uint32_t *out)
{
    __shared__ __align__(16) uint16_t s[4 * 64];
    for (int i = threadIdx.x; i < 4 * 64; i += 32)
        s[i] = m[i];
    __syncwarp();
    int l = threadIdx.x;
    unsigned row = (unsigned)__cvta_generic_to_shared(&s[(l / 8) * 64 + (l % 8) * 8]);
    uint32_t r[8];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(row));
    /* without .shared the address is generic, as ggml's mma.cuh writes it */
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                 : "l"(&s[(l / 8) * 64 + (l % 8) * 8]));
    for (int i = 0; i < 4; i++) {
        out[4 * l + i] = r[i];
        out[128 + 4 * l + i] = r[4 + i];
    }
}

#else
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "fp.h"
#include "ref.h"
#include "vm_case.h"

/* D = A * B + C in fp32, k in order (the products of these inputs are exact). */
static void gemm_ref(int M, int N_, int K, const float *A, const float *B, const float *C, float *D)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N_; j++) {
            float acc = C[i * N_ + j];
            for (int k = 0; k < K; k++)
                acc += A[i * K + k] * B[k * N_ + j];
            D[i * N_ + j] = acc;
        }
}

START_TEST(wmma_tiles)
{
    /* {type, B column-major}: type 0 f16 (B row-major, B column-major, an f16 accumulator), 1
     * bf16, 2 tf32, run by kernels[] */
    static const int cases[][2] = {{0, 0}, {0, 1}, {0, 0}, {1, 0}, {2, 0}};
    static const char *const kernels[] = {"wmma_f16", "wmma_f16_b_col", "wmma_f16_acc_f16",
                                          "wmma_bf16", "wmma_tf32"};
    float A[256], B[256], Bmem[256], C[256], D[256], want[256];
    struct vm_case vc;
    vm_case_open(&vc, VM_CASE_PTX);
    uint64_t d[4];
    for (int i = 0; i < 4; i++)
        d[i] = vm_case_buffer(&vc, NULL, sizeof A);
    void *args[] = {&d[0], &d[1], &d[2], &d[3]};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int type = cases[c][0], b_col = cases[c][1], K = type == 2 ? 8 : 16;
        for (int i = 0; i < 256; i++) {
            /* tf32 inputs carry a 2^-11 part the tensor core's 10-bit mantissa drops */
            float tail = type == 2 && (i % 3) ? 0x1p-11f : 0.0f;
            A[i] = (float)(i * 7 % 11) - 5.0f + tail;
            B[i] = (float)(i * 5 % 7) * 0.5f - 1.5f + tail;
            C[i] = (float)(i % 9) - 4.0f;
        }
        float At[256], Bt[256];
        for (int i = 0; i < 256; i++) { /* what the tensor core reads */
            At[i] = type == 2 ? u2f(f2u(A[i]) & ~0x1FFFu) : A[i];
            Bt[i] = type == 2 ? u2f(f2u(B[i]) & ~0x1FFFu) : B[i];
        }
        gemm_ref(16, 16, K, At, Bt, C, want);
        for (int k = 0; k < K; k++) /* B as the kernel loads it */
            for (int n = 0; n < 16; n++)
                Bmem[b_col ? n * K + k : k * 16 + n] = B[k * 16 + n];
        memcpy(vm_case_host(&vc, d[0]), A, sizeof A);
        memcpy(vm_case_host(&vc, d[1]), Bmem, sizeof Bmem);
        memcpy(vm_case_host(&vc, d[2]), C, sizeof C);
        ck_assert_msg(vm_case_run(&vc, kernels[c], VM_GRID(1), VM_BLOCK(32), args) == VM_OK,
                      "%s: %s", kernels[c], vc.result.message);
        vm_case_read(&vc, D, d[3], sizeof D);
        for (int i = 0; i < 256; i++)
            ck_assert_msg(D[i] == want[i], "wmma case %zu: D[%d][%d] = %g, want %g", c, i / 16,
                          i % 16, D[i], want[i]);
    }
    vm_case_close(&vc);
}
END_TEST

START_TEST(wmma_alignment_rules)
{
    /* 24 rows of 32 f16 values 0..7: a tile at (row 0 or 1, element 0 or 8), any ldm <= 32. */
    uint16_t A[24 * 32];
    for (int i = 0; i < 24 * 32; i++)
        A[i] = ref_f32_to_f16((float)(i % 8));
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t dA = vm_case_buffer(&c, A, sizeof A), dD = vm_case_buffer(&c, NULL, 256 * 4);
    uint64_t at = dA + 16 * 2; /* 32 bytes in, 48-byte rows */
    int ldm = 24;
    void *args[] = {&at, &ldm, &dD};
    ck_assert_int_eq(vm_case_run(&c, "wmma_stride_kernel", VM_GRID(1), VM_BLOCK(32), args), VM_OK);
    static const struct {
        int offset, ldm;
        const char *what;
    } bad[] = {{8, 24, "the address 0x"}, {0, 20, "row stride (20 elements, 40 bytes)"}};
    for (int k = 0; k < 2; k++) {
        at = dA + (uint64_t)bad[k].offset * 2, ldm = bad[k].ldm;
        enum vm_status st = vm_case_run(&c, "wmma_stride_kernel", VM_GRID(1), VM_BLOCK(32), args);
        ck_assert_msg(st == VM_FAULT, "case %d: status %d: %s", k, st, c.result.message);
        capture_assert_at(c.result.message, VM_CASE_SOURCE, "WMMA_ALIGNMENT", bad[k].what);
    }
    vm_case_close(&c);
}
END_TEST

/*
 * The register layouts of mma.sync's m16n8k* fragments, as the PTX ISA tabulates them
 * ("Matrix Fragments for mma.m16n8k16 / k8 / k4"): element i of lane l, with
 * g = l / 4 (groupID) and t = l % 4 (threadID_in_group).
 */
static void frag_a(int shape, int i, int l, int *row, int *col)
{
    int g = l / 4, t = l % 4;
    if (shape == 0) { /* f16/bf16 k16: a0..a7 */
        *row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
        *col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
    } else { /* tf32 k8: a0..a3; k4: a0, a1 */
        *row = (i == 0 || i == 2) ? g : g + 8;
        *col = i < 2 ? t : t + 4;
    }
}

static void frag_b(int shape, int i, int l, int *row, int *col)
{
    int g = l / 4, t = l % 4;
    *row = shape == 0 ? t * 2 + (i & 1) + (i >= 2 ? 8 : 0) : (i == 0 ? t : t + 4);
    *col = g;
}

static void frag_c(int i, int l, int *row, int *col)
{
    *row = i < 2 ? l / 4 : l / 4 + 8;
    *col = (l % 4) * 2 + (i & 1);
}

START_TEST(mma_sync_documented_layouts)
{
    /* shape 0 m16n8k16 (f16, then bf16), 1 m16n8k8 tf32, 2 m16n8k4 tf32 */
    static const int cases[][2] = {{0, 0}, {0, 1}, {1, 2}, {2, 2}};
    uint32_t a[128], b[64], c[128], d[128];
    struct vm_case vc;
    vm_case_open(&vc, VM_CASE_PTX);
    uint64_t dev[4];
    for (int i = 0; i < 4; i++)
        dev[i] = vm_case_buffer(&vc, NULL, sizeof a);
    for (size_t cs = 0; cs < sizeof cases / sizeof *cases; cs++) {
        int shape = cases[cs][0], type = cases[cs][1], K = shape == 0 ? 16 : shape == 1 ? 8 : 4;
        int per_a = shape == 0   ? 8
                    : shape == 1 ? 4
                                 : 2,
            per_b = shape == 0   ? 4
                    : shape == 1 ? 2
                                 : 1;
        float A[16 * 16], B[16 * 8], C[16 * 8], want[16 * 8];
        for (int i = 0; i < 16 * K; i++)
            A[i] = (float)(i * 7 % 13) - 6.0f;
        for (int i = 0; i < K * 8; i++)
            B[i] = (float)(i * 3 % 5) - 2.0f;
        for (int i = 0; i < 128; i++)
            C[i] = (float)(i % 7);
        gemm_ref(16, 8, K, A, B, C, want);
        memset(a, 0, sizeof a);
        memset(b, 0, sizeof b);
        for (int l = 0; l < 32; l++) {
            for (int i = 0; i < per_a; i++) {
                int r, col;
                frag_a(shape, i, l, &r, &col);
                float v = A[r * K + col];
                if (shape == 0) /* two 16-bit elements a register, the first in the low half */
                    a[4 * l + i / 2] |= (uint32_t)(type ? ref_f32_to_bf16(v) : ref_f32_to_f16(v))
                                        << (16 * (i & 1));
                else
                    a[4 * l + i] = f2u(v);
            }
            for (int i = 0; i < per_b; i++) {
                int r, col;
                frag_b(shape, i, l, &r, &col);
                float v = B[r * 8 + col];
                if (shape == 0)
                    b[2 * l + i / 2] |= (uint32_t)(type ? ref_f32_to_bf16(v) : ref_f32_to_f16(v))
                                        << (16 * (i & 1));
                else
                    b[2 * l + i] = f2u(v);
            }
            for (int i = 0; i < 4; i++) {
                int r, col;
                frag_c(i, l, &r, &col);
                c[4 * l + i] = f2u(C[r * 8 + col]);
            }
        }
        memcpy(vm_case_host(&vc, dev[0]), a, sizeof a);
        memcpy(vm_case_host(&vc, dev[1]), b, sizeof b);
        memcpy(vm_case_host(&vc, dev[2]), c, sizeof c);
        void *args[] = {&shape, &type, &dev[0], &dev[1], &dev[2], &dev[3]};
        ck_assert_msg(vm_case_run(&vc, "mma_kernel", VM_GRID(1), VM_BLOCK(32), args) == VM_OK,
                      "mma case %zu: %s", cs, vc.result.message);
        vm_case_read(&vc, d, dev[3], sizeof d);
        for (int l = 0; l < 32; l++)
            for (int i = 0; i < 4; i++) {
                int r, col;
                frag_c(i, l, &r, &col);
                ck_assert_msg(u2f(d[4 * l + i]) == want[r * 8 + col],
                              "mma case %zu: lane %d d%d (row %d col %d) = %g, want %g", cs, l, i,
                              r, col, u2f(d[4 * l + i]), want[r * 8 + col]);
            }
    }
    vm_case_close(&vc);
}
END_TEST

/* mma.sp forms the VM refuses, each failing the launch that reaches it in one line naming why:
 * a sparsity selector past the lanes the form's metadata takes (m16n8k64 s8 has one choice,
 * m16n8k16 f16 four) or not an immediate; sm_120a's 4-bit floats and its block scaling. */
START_TEST(mma_sp_refusals_name_the_rule)
{
#define R4 "{%r1, %r2, %r3, %r4}"
    static const struct {
        const char *insn, *why;
    } cases[] = {
        {"mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 " R4 ", " R4 ", " R4
         ", " R4 ", %r5, 1;",
         "the sparsity selector of this mma.sp is an immediate from 0 to 0"},
        {"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " R4 ", {%r1, %r2}, {%r1, %r2}, " R4
         ", %r5, %r1;",
         "the sparsity selector of this mma.sp is an immediate from 0 to 3"},
        {"mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32 " R4
         ", " R4 ", " R4 ", " R4 ", %r5, 0;",
         "this form of mma is not emulated"},
        {"mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale."
         "scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0 " R4 ", " R4 ", " R4 ", " R4
         ", %r5, 0, %r1, {%h1, %h2}, %r2, {%h1, %h2};",
         "cannot execute 'mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4."
         "block_scale"}, /* ten operands: the parser's refusal */
    };
#undef R4
    enum { N = sizeof cases / sizeof *cases };
    char ptx[N * 400 + 100], name[8];
    int at = snprintf(ptx, sizeof ptx, ".version 8.7\n.target sm_90\n.address_size 64\n");
    for (int i = 0; i < N; i++) /* one kernel each: sp0, sp1, ... */
        at += snprintf(ptx + at, sizeof ptx - (size_t)at,
                       ".visible .entry sp%d()\n{\n  .reg .b32 %%r<6>;\n  .reg .b16 %%h<3>;\n"
                       "  mov.u32 %%r5, 0x44444444;\n  %s\n  ret;\n}\n",
                       i, cases[i].insn);
    struct vm_case vc;
    vm_case_open(&vc, ptx);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "sp%d", i);
        enum vm_status st = vm_case_run(&vc, name, VM_GRID(1), VM_BLOCK(32), NULL);
        ck_assert_msg(st == VM_UNSUPPORTED && strstr(vc.result.message, cases[i].why) &&
                          !strchr(vc.result.message, '\n'),
                      "%s: status %d, '%s'", cases[i].insn, st, vc.result.message);
    }
    vm_case_close(&vc);
}
END_TEST

START_TEST(ldmatrix_documented_layout)
{
    uint16_t m[4 * 64];
    uint32_t out[256];
    for (int i = 0; i < 256; i++)
        m[i] = (uint16_t)(i * 41 + 3);
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t dm = vm_case_buffer(&c, m, sizeof m), dout = vm_case_buffer(&c, NULL, sizeof out);
    void *args[] = {&dm, &dout};
    ck_assert_int_eq(vm_case_run(&c, "ldmatrix_kernel", VM_GRID(1), VM_BLOCK(32), args), VM_OK);
    vm_case_read(&c, out, dout, sizeof out);
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < 4; i++) {
            /* Register i of lane l: row l / 4, columns 2 (l % 4) and one more, of matrix i. */
            const uint16_t *mi = m + 64 * i;
            int r = l / 4, c = 2 * (l % 4);
            uint32_t plain = mi[r * 8 + c] | (uint32_t)mi[r * 8 + c + 1] << 16;
            uint32_t trans = mi[c * 8 + r] | (uint32_t)mi[(c + 1) * 8 + r] << 16;
            ck_assert_msg(out[4 * l + i] == plain, "ldmatrix lane %d reg %d: 0x%08x, want 0x%08x",
                          l, i, out[4 * l + i], plain);
            ck_assert_msg(out[128 + 4 * l + i] == trans,
                          "ldmatrix.trans lane %d reg %d: 0x%08x, want 0x%08x", l, i,
                          out[128 + 4 * l + i], trans);
        }
    vm_case_close(&c);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"wmma_tiles", wmma_tiles, CASE_CPU, 60},
        {"wmma_alignment_rules", wmma_alignment_rules, CASE_CPU, 60},
        {"mma_sync_documented_layouts", mma_sync_documented_layouts, CASE_CPU, 60},
        {"mma_sp_refusals_name_the_rule", mma_sp_refusals_name_the_rule, CASE_CPU, 60},
        {"ldmatrix_documented_layout", ldmatrix_documented_layout, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
#endif
