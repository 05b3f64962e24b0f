/**
 * @file cublas.c
 * @brief The cuBLAS stand-in (libcublas.so.13): handles, GEMM (S, D, H, Ex in fp32, fp16,
 *        bf16, fp64 and int8, batched and strided batched; S, D, H and Ex with 64-bit sizes
 *        too), Sgeam and Dgeam, host-device copies and the
 *        operands every call shares (blas_args.h), on the host. Levels 1, 2 and 3 are in
 *        cublas_level1.c, cublas_level2.c and cublas_level3.c, batched LU in cublas_lu.c,
 *        cublasXt in cublas_xt.c; every other function the cuBLAS headers declare is a stub that
 *        answers CUBLAS_STATUS_NOT_SUPPORTED with one line (cublas_unsupported.c).
 *
 * Column-major with cuBLAS's transposes and leading dimensions. Every
 * operand range is checked against the device allocation table before it is
 * touched (course_emu_host), once the work queued before the call has run (the call follows
 * it on the handle's stream). GemmEx computes what cuBLAS computes, operand
 * rounding included:
 *
 *   compute type                    A, B          operands used as      accumulation
 *   CUBLAS_COMPUTE_32F[_PEDANTIC]   32F/16F/16BF  their exact value     fp32
 *   CUBLAS_COMPUTE_32F_FAST_TF32    32F           rounded to TF32 (rna) fp32
 *   CUBLAS_COMPUTE_32F_FAST_16F     32F           rounded to fp16 (rn)  fp32
 *   CUBLAS_COMPUTE_32F_FAST_16BF    32F           rounded to bf16 (rn)  fp32
 *   CUBLAS_COMPUTE_16F[_PEDANTIC]   16F           fp16                  fp16, rounded per MMA
 *   CUBLAS_COMPUTE_64F[_PEDANTIC]   64F (C 64F)   their exact value     fp64, as cublasDgemm
 *   CUBLAS_COMPUTE_32I[_PEDANTIC]   8I (C 32I)    their exact value     int32, wrapping
 *
 * (CUBLAS_TF32_TENSOR_OP_MATH makes SGEMM and 32F GemmEx use TF32 too; HGEMM is fp16 GemmEx
 * with CUBLAS_COMPUTE_16F.) The result is alpha * op(A) op(B) + beta * C, rounded once to C's type;
 * C is not read when beta is 0. fp32 accumulation is OpenBLAS's SGEMM on the rounded operands where
 * OpenBLAS is installed, a plain loop otherwise. fp16 and bf16 conversions are the VM's own
 * (vm/fp.c), so the stand-ins and the VM round alike.
 */
#include <cublas_v2.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef EMU_HAVE_CBLAS
#include <cblas.h>
#endif

#include "alloc.h"
#include "blas_args.h"
#include "blas_elem.h"
#include "blas_unsupported.h"
#include "emu.h"
#include "say.h"

_Static_assert((int)BLAS_NOT_SUPPORTED == (int)CUBLAS_STATUS_NOT_SUPPORTED, "the stubs' status");

/** The k depth of one fp16 tensor-core instruction (wmma m16n16k16, mma m16n8k16). */
enum { MMA_K = 16 };

/** How operands are rounded before they are multiplied. */
enum rounding { ROUND_NONE, ROUND_TF32, ROUND_F16, ROUND_BF16 };

/** One GEMM, as GemmEx describes it. */
struct gemm {
    cublasOperation_t ta, tb;
    int m, n, k;
    const void *A, *B;
    void *C;
    cudaDataType at, bt, ct;
    int lda, ldb, ldc;
    enum rounding round;
    int half_acc; /**< 1: accumulate in fp16 (CUBLAS_COMPUTE_16F) */
    int in_order; /**< 1: 16-bit operands, accumulated in fp32 in k order */
    enum exact {
        EXACT_NONE,
        EXACT_F64, /**< fp64 operands and C, fp64 alpha and beta (CUBLAS_COMPUTE_64F) */
        EXACT_I8   /**< int8 operands, int32 C, alpha and beta (CUBLAS_COMPUTE_32I) */
    } exact;
};

/* What a call on handle @p h answers when it has nothing else to say. */
static cublasStatus_t handle_status(cublasHandle_t h)
{
    return blas_handle_ok(h) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    int n;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasContext *h = emu_calloc(1, sizeof *h);
    *h = (struct cublasContext){.magic = BLAS_HANDLE_MAGIC,
                                .math = CUBLAS_DEFAULT_MATH,
                                .pointer_mode = CUBLAS_POINTER_MODE_HOST};
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    if (!blas_handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->magic = 0;
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
    (void)handle;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
    switch (type) {
    case MAJOR_VERSION:
        *value = CUBLAS_VER_MAJOR;
        return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION:
        *value = CUBLAS_VER_MINOR;
        return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL:
        *value = CUBLAS_VER_PATCH;
        return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}

size_t cublasGetCudartVersion(void)
{
    return CUDART_VERSION;
}

/* BLAS's error handler, which cuBLAS exports: one line, as reference BLAS's xerbla prints. */
void cublasXerbla(const char *srName, int info)
{
    emu_say("cuBLAS: on entry to %s, parameter number %d had an illegal value", srName, info);
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace,
                                     size_t workspaceSizeInBytes)
{
    (void)workspace, (void)workspaceSizeInBytes;
    return handle_status(handle);
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
    if (blas_handle_ok(handle))
        handle->stream = streamId;
    return handle_status(handle);
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId)
{
    if (blas_handle_ok(handle))
        *streamId = handle->stream;
    return handle_status(handle);
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (blas_handle_ok(handle))
        handle->math = mode;
    return handle_status(handle);
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    if (blas_handle_ok(handle))
        *mode = handle->math;
    return handle_status(handle);
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode)
{
    if (!blas_handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode)
{
    if (blas_handle_ok(handle))
        *mode = handle->pointer_mode;
    return handle_status(handle);
}

/* --- operands ------------------------------------------------------------------------------- */

/* @p f rounded to TF32 as cvt.rna.tf32.f32 does: to nearest, ties away from zero, keeping 10
 * mantissa bits in an fp32 container. Infinity and NaN pass through. */
static float tf32_round(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7f800000) != 0x7f800000)
        x = (x + 0x1000) & 0xffffe000; /* a carry into the exponent is still correct */
    memcpy(&f, &x, sizeof f);
    return f;
}

/* Element @p i of an array of type @p t, as a float, rounded as @p r says. */
static float load(const void *p, cudaDataType t, size_t i, enum rounding r)
{
    float v = elem_load(p, t, i);
    switch (r) {
    case ROUND_NONE:
        return v;
    case ROUND_TF32:
        return tf32_round(v);
    case ROUND_F16:
        return fp_f16_to_f32(fp_f32_to_f16(v));
    case ROUND_BF16:
        return fp_bf16_to_f32(fp_f32_to_bf16(v));
    }
    return v;
}

const void *blas_operand(const void *p, int64_t rows, int64_t cols, int64_t ld, size_t elem,
                         const char *who)
{
    if (rows == 0 || cols == 0)
        return p;
    size_t extent = ((size_t)ld * (size_t)(cols - 1) + (size_t)rows) * elem;
    return course_emu_host(p, extent, who);
}

void blas_matrix_wrote(const void *dev, int64_t rows, int64_t cols, int64_t ld, size_t elem)
{
    for (int64_t j = 0; j < cols && rows > 0; j++)
        course_emu_wrote((const char *)dev + (size_t)j * (size_t)ld * elem, (size_t)rows * elem);
}

struct blas_vec blas_vec_of(const void *x, int64_t n, int64_t inc, size_t elem, const char *who)
{
    size_t step = (size_t)(inc < 0 ? -inc : inc) * elem;
    struct blas_vec v = {NULL, step, n, inc < 0, elem};
    v.p = n > 0 ? course_emu_host(x, step * (size_t)(n - 1) + elem, who) : (char *)x;
    return v;
}

void blas_vec_wrote(const void *dev, const struct blas_vec *v)
{
    if (v->n > 0 && v->step == v->elem) { /* contiguous: one range */
        course_emu_wrote(dev, (size_t)v->n * v->elem);
        return;
    }
    for (int64_t i = 0; i < v->n; i++)
        course_emu_wrote((const char *)dev + (size_t)i * v->step, v->elem);
}

int blas_scalar(cublasHandle_t h, const void *p, size_t elem, double *out)
{
    if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE)
        p = course_emu_host(p, elem, "cuBLAS scalar");
    if (!p)
        return -1;
    *out = blas_load(p, elem);
    return 0;
}

/* Where element (@p r, @p c) of op(X) lies in column-major X of leading dimension @p ld. */
static size_t at_op(cublasOperation_t op, int ld, int r, int c)
{
    return op == CUBLAS_OP_N ? (size_t)c * ld + r : (size_t)r * ld + c;
}

/* op(X) (rows x cols) as a column-major fp32 matrix, rounded (emu_malloc'd). */
static float *widen(const void *X, cudaDataType t, int ld, cublasOperation_t op, int rows, int cols,
                    enum rounding r)
{
    float *w = emu_malloc((size_t)rows * cols * sizeof *w + 1);
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++)
            w[(size_t)j * rows + i] = load(X, t, at_op(op, ld, i, j), r);
    return w;
}

/* T (m x n) = A (m x k) B (k x n), all column-major and dense: fp32 accumulation. */
static void product_f32(int m, int n, int k, const float *A, const float *B, float *T)
{
#ifdef EMU_HAVE_CBLAS
    if (m && n)
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, m, B, k, 0.0f, T,
                    m);
#else
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            float acc = 0.0f;
            for (int p = 0; p < k; p++)
                acc += A[(size_t)p * m + i] * B[(size_t)j * k + p];
            T[(size_t)j * m + i] = acc;
        }
#endif
}

/*
 * The same for fp16 or bf16 operands: each element's products added in k order, one fp32
 * rounding per addition (the products of 16-bit values are exact), as the VM's mma, wmma and
 * wgmma accumulate in fp32, so a tensor-core kernel that walks k in order agrees with this bit
 * for bit (a GPU's cuBLAS runs the same tensor-core instructions as such a kernel).
 */
static void product_f32_in_order(int m, int n, int k, const float *A, const float *B, float *T)
{
    memset(T, 0, (size_t)m * n * sizeof *T);
    for (int j = 0; j < n; j++)
        for (int p = 0; p < k; p++) {
            float b = B[(size_t)j * k + p];
            for (int i = 0; i < m; i++) /* column j of T, every row at step p */
                T[(size_t)j * m + i] += A[(size_t)p * m + i] * b;
        }
}

/*
 * The same with an fp16 accumulator, as a tensor core keeps it (CUBLAS_COMPUTE_16F): one MMA
 * instruction takes MMA_K products, sums them into the accumulator in fp32 in k order (the
 * products of fp16 values are exact), and rounds to fp16 once at its end. The VM's wmma.mma
 * with fp16 accumulators does the same (vm/ops_tensor.c), so a WMMA kernel and this agree bit
 * for bit.
 */
static void product_f16(int m, int n, int k, const float *A, const float *B, float *T)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            float acc = 0.0f;
            for (int p0 = 0; p0 < k; p0 += MMA_K) {
                for (int p = p0; p < p0 + MMA_K && p < k; p++)
                    acc += A[(size_t)p * m + i] * B[(size_t)j * k + p];
                acc = fp_f16_to_f32(fp_f32_to_f16(acc));
            }
            T[(size_t)j * m + i] = acc;
        }
}

/* C = alpha op(A) op(B) + beta C in fp64 (cublasDgemm): one rounding per multiply-add, k in
 * order; C is not read when beta is 0. */
static void dgemm_host(const struct gemm *g, double alpha, const double *A, const double *B,
                       double beta, double *C)
{
    for (int j = 0; j < g->n; j++)
        for (int i = 0; i < g->m; i++) {
            double acc = 0;
            for (int p = 0; p < g->k; p++)
                acc = fma(A[at_op(g->ta, g->lda, i, p)], B[at_op(g->tb, g->ldb, p, j)], acc);
            double *c = &C[(size_t)j * g->ldc + i];
            *c = beta != 0 ? alpha * acc + beta * *c : alpha * acc;
        }
}

/* The same for int8 operands summed in int32 (CUBLAS_COMPUTE_32I): every product and sum, and
 * alpha and beta's, wrapping modulo 2^32 as the GPU's integer adds do. */
static void igemm_host(const struct gemm *g, int32_t alpha, const int8_t *A, const int8_t *B,
                       int32_t beta, int32_t *C)
{
    for (int j = 0; j < g->n; j++)
        for (int i = 0; i < g->m; i++) {
            uint32_t acc = 0;
            for (int p = 0; p < g->k; p++)
                acc += (uint32_t)(A[at_op(g->ta, g->lda, i, p)] * B[at_op(g->tb, g->ldb, p, j)]);
            int32_t *c = &C[(size_t)j * g->ldc + i];
            uint32_t v = (uint32_t)alpha * acc + (beta != 0 ? (uint32_t)beta * (uint32_t)*c : 0);
            *c = (int32_t)v;
        }
}

/* Run @p g on the host: C = alpha op(A) op(B) + beta C. */
static cublasStatus_t run_gemm(const struct gemm *g, double alpha, double beta)
{
    int ar = g->ta == CUBLAS_OP_N ? g->m : g->k, ac = g->ta == CUBLAS_OP_N ? g->k : g->m;
    int br = g->tb == CUBLAS_OP_N ? g->k : g->n, bc = g->tb == CUBLAS_OP_N ? g->n : g->k;
    if (g->m < 0 || g->n < 0 || g->k < 0 || g->lda < (ar > 1 ? ar : 1) ||
        g->ldb < (br > 1 ? br : 1) || g->ldc < (g->m > 1 ? g->m : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (course_emu_sticky_error())
        return CUBLAS_STATUS_EXECUTION_FAILED;
    const void *A = blas_operand(g->A, ar, ac, g->lda, elem_bytes(g->at), "cuBLAS GEMM, A");
    const void *B = blas_operand(g->B, br, bc, g->ldb, elem_bytes(g->bt), "cuBLAS GEMM, B");
    void *C = (void *)blas_operand(g->C, g->m, g->n, g->ldc, elem_bytes(g->ct), "cuBLAS GEMM, C");
    if (!A || !B || !C)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    if (g->m == 0 || g->n == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (g->exact == EXACT_F64)
        dgemm_host(g, alpha, A, B, beta, C);
    else if (g->exact == EXACT_I8)
        igemm_host(g, (int32_t)alpha, A, B, (int32_t)beta, C);
    if (g->exact) {
        blas_matrix_wrote(g->C, g->m, g->n, g->ldc, elem_bytes(g->ct));
        return CUBLAS_STATUS_SUCCESS;
    }
    float *a = widen(A, g->at, g->lda, g->ta, g->m, g->k, g->round);
    float *b = widen(B, g->bt, g->ldb, g->tb, g->k, g->n, g->round);
    float *t = emu_malloc((size_t)g->m * g->n * sizeof *t);
    (g->half_acc   ? product_f16
     : g->in_order ? product_f32_in_order
                   : product_f32)(g->m, g->n, g->k, a, b, t);
    for (int j = 0; j < g->n; j++)
        for (int i = 0; i < g->m; i++) {
            size_t at = (size_t)j * g->ldc + i;
            float v = (float)alpha * t[(size_t)j * g->m + i];
            if (beta != 0.0)
                v += (float)beta * load(C, g->ct, at, ROUND_NONE);
            elem_store(C, g->ct, at, v);
        }
    blas_matrix_wrote(g->C, g->m, g->n, g->ldc, elem_bytes(g->ct));
    free(a);
    free(b);
    free(t);
    return CUBLAS_STATUS_SUCCESS;
}

/* Read a scalar (alpha or beta) of type @p t from the host or, in device pointer mode, device. */
static int scalar(cublasHandle_t h, const void *p, cudaDataType t, double *out)
{
    if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE)
        p = course_emu_host(p, elem_bytes(t), "cuBLAS alpha or beta");
    if (!p)
        return -1;
    *out = t == CUDA_R_64F   ? *(const double *)p
           : t == CUDA_R_32I ? *(const int32_t *)p
                             : load(p, t, 0, ROUND_NONE);
    return 0;
}

/* GemmEx's exact forms, fp64 and int8 (struct gemm's exact), or EXACT_NONE. */
static enum exact exact_kind(const struct gemm *g, cublasComputeType_t compute)
{
    if (g->at == CUDA_R_64F && g->bt == CUDA_R_64F && g->ct == CUDA_R_64F &&
        (compute == CUBLAS_COMPUTE_64F || compute == CUBLAS_COMPUTE_64F_PEDANTIC))
        return EXACT_F64;
    if (g->at == CUDA_R_8I && g->bt == CUDA_R_8I && g->ct == CUDA_R_32I &&
        (compute == CUBLAS_COMPUTE_32I || compute == CUBLAS_COMPUTE_32I_PEDANTIC))
        return EXACT_I8;
    return EXACT_NONE;
}

/* Fill the rounding and accumulation of @p g from the compute type; -1 if not supported. */
static int choose_compute(struct gemm *g, cublasComputeType_t compute, cublasMath_t math)
{
    int f32in = g->at == CUDA_R_32F && g->bt == CUDA_R_32F;
    int f16in = g->at == CUDA_R_16F && g->bt == CUDA_R_16F;
    int bf16in = g->at == CUDA_R_16BF && g->bt == CUDA_R_16BF;
    int same_c = g->ct == CUDA_R_32F || g->ct == g->at;
    switch (compute) {
    case CUBLAS_COMPUTE_32F:
        g->round = f32in && (math & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH ? ROUND_TF32 : ROUND_NONE;
        g->in_order = f16in || bf16in;
        return (f32in || f16in || bf16in) && same_c ? 0 : -1;
    case CUBLAS_COMPUTE_32F_PEDANTIC:
        g->in_order = f16in || bf16in;
        return (f32in || f16in || bf16in) && same_c ? 0 : -1;
    case CUBLAS_COMPUTE_32F_FAST_TF32:
        g->round = ROUND_TF32;
        return f32in && same_c ? 0 : -1;
    case CUBLAS_COMPUTE_32F_FAST_16F:
        g->round = ROUND_F16;
        return f32in && same_c ? 0 : -1;
    case CUBLAS_COMPUTE_32F_FAST_16BF:
        g->round = ROUND_BF16;
        return f32in && same_c ? 0 : -1;
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
        g->half_acc = 1;
        return f16in && g->ct == CUDA_R_16F ? 0 : -1;
    default:
        return -1;
    }
}

/* Check one GEMM of a call (@p g, all but its pointers), fill its rounding from @p compute and
 * read alpha and beta; CUBLAS_STATUS_SUCCESS or why not. */
static cublasStatus_t gemm_setup(cublasHandle_t handle, struct gemm *g, cublasComputeType_t compute,
                                 const void *alpha, const void *beta, double *al, double *be)
{
    if (!blas_handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int ops_ok = (g->ta == CUBLAS_OP_N || g->ta == CUBLAS_OP_T || g->ta == CUBLAS_OP_C) &&
                 (g->tb == CUBLAS_OP_N || g->tb == CUBLAS_OP_T || g->tb == CUBLAS_OP_C);
    int types_ok = (g->at == CUDA_R_32F || g->at == CUDA_R_16F || g->at == CUDA_R_16BF) &&
                   (g->ct == CUDA_R_32F || g->ct == CUDA_R_16F || g->ct == CUDA_R_16BF);
    if (!ops_ok)
        return CUBLAS_STATUS_INVALID_VALUE;
    g->exact = exact_kind(g, compute);
    if (!g->exact && (!types_ok || choose_compute(g, compute, handle->math))) {
        emu_say("cuBLAS GEMM: A, B and C of types %d, %d and %d with compute type %d are not "
                "emulated (CUBLAS_STATUS_NOT_SUPPORTED)",
                (int)g->at, (int)g->bt, (int)g->ct, (int)compute);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    g->ta = g->ta == CUBLAS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T; /* real data: C is T */
    g->tb = g->tb == CUBLAS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T;
    cudaDataType st = g->exact == EXACT_F64  ? CUDA_R_64F
                      : g->exact == EXACT_I8 ? CUDA_R_32I
                      : g->half_acc          ? CUDA_R_16F
                                             : CUDA_R_32F;
    if (scalar(handle, alpha, st, al) || scalar(handle, beta, st, be))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void *alpha,
                            const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C,
                            cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo)
{
    return cublasGemmStridedBatchedEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B,
                                      Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1, computeType, algo);
}

/* Batch @p i of a strided batch: @p p advanced by i * @p stride elements of type @p t. */
static const void *batch_at(const void *p, long long stride, int i, cudaDataType t)
{
    return (const char *)p + (long long)i * stride * (long long)elem_bytes(t);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                          cublasOperation_t transb, int m, int n, int k,
                                          const void *alpha, const void *A, cudaDataType Atype,
                                          int lda, long long int strideA, const void *B,
                                          cudaDataType Btype, int ldb, long long int strideB,
                                          const void *beta, void *C, cudaDataType Ctype, int ldc,
                                          long long int strideC, int batchCount,
                                          cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    (void)algo;
    struct gemm g = {transa, transb, m,   n,   k,   A,          B, C, Atype,
                     Btype,  Ctype,  lda, ldb, ldc, ROUND_NONE, 0, 0, EXACT_NONE};
    double a, b;
    cublasStatus_t st = gemm_setup(handle, &g, computeType, alpha, beta, &a, &b);
    if (st == CUBLAS_STATUS_SUCCESS && batchCount < 0)
        st = CUBLAS_STATUS_INVALID_VALUE;
    for (int i = 0; i < batchCount && st == CUBLAS_STATUS_SUCCESS; i++) {
        struct gemm one = g;
        one.A = batch_at(A, strideA, i, Atype);
        one.B = batch_at(B, strideB, i, Btype);
        one.C = (void *)batch_at(C, strideC, i, Ctype);
        st = run_gemm(&one, a, b);
    }
    return st;
}

/* The host view of a batched call's array of @p count device pointers, which lives in device
 * memory as cuBLAS requires; NULL (after the runtime said why) when it does not. */
static void *pointer_array(const void *array, int count, const char *who)
{
    return course_emu_host(array, (size_t)count * sizeof(void *), who);
}

cublasStatus_t cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
                                   cublasOperation_t transb, int m, int n, int k, const void *alpha,
                                   const void *const Aarray[], cudaDataType Atype, int lda,
                                   const void *const Barray[], cudaDataType Btype, int ldb,
                                   const void *beta, void *const Carray[], cudaDataType Ctype,
                                   int ldc, int batchCount, cublasComputeType_t computeType,
                                   cublasGemmAlgo_t algo)
{
    (void)algo;
    struct gemm g = {transa, transb, m,   n,   k,   NULL,       NULL, NULL, Atype,
                     Btype,  Ctype,  lda, ldb, ldc, ROUND_NONE, 0,    0,    EXACT_NONE};
    double a, b;
    cublasStatus_t st = gemm_setup(handle, &g, computeType, alpha, beta, &a, &b);
    if (st != CUBLAS_STATUS_SUCCESS || batchCount <= 0)
        return st == CUBLAS_STATUS_SUCCESS && batchCount < 0 ? CUBLAS_STATUS_INVALID_VALUE : st;
    const void *const *as = pointer_array(Aarray, batchCount, "cuBLAS batched GEMM, Aarray");
    const void *const *bs = pointer_array(Barray, batchCount, "cuBLAS batched GEMM, Barray");
    void *const *cs = pointer_array(Carray, batchCount, "cuBLAS batched GEMM, Carray");
    if (!as || !bs || !cs)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    for (int i = 0; i < batchCount && st == CUBLAS_STATUS_SUCCESS; i++) {
        struct gemm one = g;
        one.A = as[i], one.B = bs[i], one.C = cs[i];
        st = run_gemm(&one, a, b);
    }
    return st;
}

cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                              cublasOperation_t transb, int m, int n, int k, const double *alpha,
                              const double *A, int lda, const double *B, int ldb,
                              const double *beta, double *C, int ldc)
{
    if (!blas_handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasOperation_t ta = transa == CUBLAS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T;
    cublasOperation_t tb = transb == CUBLAS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T;
    int ar = ta == CUBLAS_OP_N ? m : k, ac = ta == CUBLAS_OP_N ? k : m;
    int br = tb == CUBLAS_OP_N ? k : n, bc = tb == CUBLAS_OP_N ? n : k;
    if (m < 0 || n < 0 || k < 0 || lda < (ar > 1 ? ar : 1) || ldb < (br > 1 ? br : 1) ||
        ldc < (m > 1 ? m : 1) || transa > CUBLAS_OP_C || transb > CUBLAS_OP_C)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (course_emu_sticky_error())
        return CUBLAS_STATUS_EXECUTION_FAILED;
    const double *a = blas_operand(A, ar, ac, lda, 8, "cublasDgemm, A");
    const double *b = blas_operand(B, br, bc, ldb, 8, "cublasDgemm, B");
    double *c = (double *)blas_operand(C, m, n, ldc, 8, "cublasDgemm, C");
    double al, be;
    if (!a || !b || !c || blas_scalar(handle, alpha, 8, &al) || blas_scalar(handle, beta, 8, &be))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    struct gemm g = {ta,         tb,         m,   n,   k,   NULL,       NULL, NULL, CUDA_R_64F,
                     CUDA_R_64F, CUDA_R_64F, lda, ldb, ldc, ROUND_NONE, 0,    0,    EXACT_F64};
    dgemm_host(&g, al, a, b, be, c);
    blas_matrix_wrote(C, m, n, ldc, 8);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k,
                                  const double *alpha, const double *const Aarray[], int lda,
                                  const double *const Barray[], int ldb, const double *beta,
                                  double *const Carray[], int ldc, int batchCount)
{
    if (!blas_handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (batchCount <= 0)
        return batchCount < 0 ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
    const double *const *as = pointer_array(Aarray, batchCount, "cublasDgemmBatched, Aarray");
    const double *const *bs = pointer_array(Barray, batchCount, "cublasDgemmBatched, Barray");
    double *const *cs = pointer_array(Carray, batchCount, "cublasDgemmBatched, Carray");
    if (!as || !bs || !cs)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    for (int i = 0; i < batchCount && st == CUBLAS_STATUS_SUCCESS; i++)
        st = cublasDgemm_v2(handle, transa, transb, m, n, k, alpha, as[i], lda, bs[i], ldb, beta,
                            cs[i], ldc);
    return st;
}

/*
 * The sizes of a _64 GEMM (m, n, k, lda, ldb, ldc) as the ints its emulation takes, a negative
 * one as -1, which it refuses; 0, or -1 after one line naming @p who when one is past INT_MAX,
 * which the stand-in does not emulate.
 */
static int narrow(const char *who, const int64_t in[6], int out[6])
{
    for (int i = 0; i < 6; i++) {
        if (in[i] > INT_MAX) {
            emu_say("%s: a size past INT_MAX is not emulated (CUBLAS_STATUS_NOT_SUPPORTED)", who);
            return -1;
        }
        out[i] = in[i] < 0 ? -1 : (int)in[i];
    }
    return 0;
}

/* GemmEx with 64-bit sizes, which Sgemm, Hgemm and the _64 forms call; @p who, the function the
 * program called, names it in the line that refuses a size past INT_MAX. */
static cublasStatus_t gemm_ex_64(const char *who, cublasHandle_t handle, cublasOperation_t transa,
                                 cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                                 const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
                                 const void *B, cudaDataType Btype, int64_t ldb, const void *beta,
                                 void *C, cudaDataType Ctype, int64_t ldc,
                                 cublasComputeType_t computeType)
{
    int s[6];
    if (narrow(who, (const int64_t[6]){m, n, k, lda, ldb, ldc}, s))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    return cublasGemmEx(handle, transa, transb, s[0], s[1], s[2], alpha, A, Atype, s[3], B, Btype,
                        s[4], beta, C, Ctype, s[5], computeType, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa,
                               cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                               const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
                               const void *B, cudaDataType Btype, int64_t ldb, const void *beta,
                               void *C, cudaDataType Ctype, int64_t ldc,
                               cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    (void)algo;
    return gemm_ex_64("cublasGemmEx_64", handle, transa, transb, m, n, k, alpha, A, Atype, lda, B,
                      Btype, ldb, beta, C, Ctype, ldc, computeType);
}

cublasStatus_t cublasDgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
                                 cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                                 const double *alpha, const double *A, int64_t lda, const double *B,
                                 int64_t ldb, const double *beta, double *C, int64_t ldc)
{
    int s[6];
    if (narrow("cublasDgemm_v2_64", (const int64_t[6]){m, n, k, lda, ldb, ldc}, s))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    return cublasDgemm_v2(handle, transa, transb, s[0], s[1], s[2], alpha, A, s[3], B, s[4], beta,
                          C, s[5]);
}

/* cublasSgemm and cublasHgemm (and their _64 forms, I int64_t): GemmEx on operands of type T,
 * TYPE to GemmEx, computed as COMPUTE says (Hgemm: fp16 products summed in fp16). Hgemm's
 * __half, which cublas_api.h declares for C++ alone, is its bits here: a uint16_t. */
#define GEMM_OF_TYPE(NAME, T, TYPE, COMPUTE, I)                                                    \
    cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, \
                        I m, I n, I k, const T *alpha, const T *A, I lda, const T *B, I ldb,       \
                        const T *beta, T *C, I ldc)                                                \
    {                                                                                              \
        return gemm_ex_64(#NAME, handle, transa, transb, m, n, k, alpha, A, TYPE, lda, B, TYPE,    \
                          ldb, beta, C, TYPE, ldc, COMPUTE);                                       \
    }

GEMM_OF_TYPE(cublasSgemm_v2, float, CUDA_R_32F, CUBLAS_COMPUTE_32F, int)
GEMM_OF_TYPE(cublasSgemm_v2_64, float, CUDA_R_32F, CUBLAS_COMPUTE_32F, int64_t)
GEMM_OF_TYPE(cublasHgemm, uint16_t, CUDA_R_16F, CUBLAS_COMPUTE_16F, int)
GEMM_OF_TYPE(cublasHgemm_64, uint16_t, CUDA_R_16F, CUBLAS_COMPUTE_16F, int64_t)

/* The batched and strided batched forms of cublasSgemm and cublasHgemm (NAME: their names
 * before "Batched"): GemmEx's on operands of type T, TYPE to GemmEx, computed as COMPUTE says. */
#define BATCHED_OF_TYPE(NAME, T, TYPE, COMPUTE)                                                    \
    cublasStatus_t NAME##StridedBatched(                                                           \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,   \
        int k, const T *alpha, const T *A, int lda, long long int strideA, const T *B, int ldb,    \
        long long int strideB, const T *beta, T *C, int ldc, long long int strideC,                \
        int batchCount)                                                                            \
    {                                                                                              \
        return cublasGemmStridedBatchedEx(handle, transa, transb, m, n, k, alpha, A, TYPE, lda,    \
                                          strideA, B, TYPE, ldb, strideB, beta, C, TYPE, ldc,      \
                                          strideC, batchCount, COMPUTE, CUBLAS_GEMM_DEFAULT);      \
    }                                                                                              \
    cublasStatus_t NAME##Batched(                                                                  \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,   \
        int k, const T *alpha, const T *const Aarray[], int lda, const T *const Barray[], int ldb, \
        const T *beta, T *const Carray[], int ldc, int batchCount)                                 \
    {                                                                                              \
        return cublasGemmBatchedEx(                                                                \
            handle, transa, transb, m, n, k, alpha, (const void *const *)Aarray, TYPE, lda,        \
            (const void *const *)Barray, TYPE, ldb, beta, (void *const *)Carray, TYPE, ldc,        \
            batchCount, COMPUTE, CUBLAS_GEMM_DEFAULT);                                             \
    }

BATCHED_OF_TYPE(cublasSgemm, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)
BATCHED_OF_TYPE(cublasHgemm, uint16_t, CUDA_R_16F, CUBLAS_COMPUTE_16F)

/* --- copies between host and device (no handle) -------------------------------------------- */

/* Copy @p count blocks of @p bytes each: block i from @p src + i * @p src_step to @p dst + i *
 * @p dst_step; the device side (@p dev_dst says which) is checked against the allocation
 * table first and recorded as written. */
static cublasStatus_t strided_copy(int count, size_t bytes, const void *src, size_t src_step,
                                   void *dst, size_t dst_step, int dev_dst, const char *who)
{
    if (count == 0 || bytes == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (course_emu_sticky_error())
        return CUBLAS_STATUS_EXECUTION_FAILED;
    size_t dev_step = dev_dst ? dst_step : src_step;
    size_t extent = dev_step * (size_t)(count - 1) + bytes;
    char *dev = course_emu_host(dev_dst ? dst : src, extent, who);
    if (!dev)
        return CUBLAS_STATUS_MAPPING_ERROR;
    const char *from = dev_dst ? src : dev;
    char *to = dev_dst ? dev : dst;
    for (int i = 0; i < count; i++) {
        memmove(to + (size_t)i * dst_step, from + (size_t)i * src_step, bytes);
        if (dev_dst)
            course_emu_wrote((char *)dst + (size_t)i * dst_step, bytes);
    }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx, void *devicePtr,
                               int incy)
{
    if (n < 0 || elemSize <= 0 || incx <= 0 || incy <= 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    return strided_copy(n, (size_t)elemSize, x, (size_t)incx * elemSize, devicePtr,
                        (size_t)incy * elemSize, 1, "cublasSetVector, y");
}

cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy)
{
    if (n < 0 || elemSize <= 0 || incx <= 0 || incy <= 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    return strided_copy(n, (size_t)elemSize, x, (size_t)incx * elemSize, y, (size_t)incy * elemSize,
                        0, "cublasGetVector, x");
}

cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                               int ldb)
{
    if (rows < 0 || cols < 0 || elemSize <= 0 || lda < (rows > 1 ? rows : 1) ||
        ldb < (rows > 1 ? rows : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    return strided_copy(rows ? cols : 0, (size_t)rows * elemSize, A, (size_t)lda * elemSize, B,
                        (size_t)ldb * elemSize, 1, "cublasSetMatrix, B");
}

cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                               int ldb)
{
    if (rows < 0 || cols < 0 || elemSize <= 0 || lda < (rows > 1 ? rows : 1) ||
        ldb < (rows > 1 ? rows : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    return strided_copy(rows ? cols : 0, (size_t)rows * elemSize, A, (size_t)lda * elemSize, B,
                        (size_t)ldb * elemSize, 0, "cublasGetMatrix, A");
}

/* --- geam: C = alpha op(A) + beta op(B) ------------------------------------------------------ */

/* C = alpha op(A) + beta op(B) in fp32 (@p elem 4) or fp64 (8), each product and the sum
 * rounded to the type, as cublasSgeam and cublasDgeam compute it; @p who names the call. */
static cublasStatus_t geam(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, const void *alpha, const void *A,
                           int lda, const void *beta, const void *B, int ldb, void *C, int ldc,
                           size_t elem, const char *who)
{
    if (!blas_handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
    int ar = ta ? n : m, br = tb ? n : m;
    if (m < 0 || n < 0 || lda < (ar > 1 ? ar : 1) || ldb < (br > 1 ? br : 1) ||
        ldc < (m > 1 ? m : 1) || transa > CUBLAS_OP_C || transb > CUBLAS_OP_C)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (course_emu_sticky_error())
        return CUBLAS_STATUS_EXECUTION_FAILED;
    cudaDataType t = elem == 8 ? CUDA_R_64F : CUDA_R_32F;
    double al, be;
    if (scalar(handle, alpha, t, &al) || scalar(handle, beta, t, &be))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    /* An operand whose scalar is 0 is not read (it may be NULL), as in cuBLAS. */
    const char *a = al != 0 ? blas_operand(A, ar, ta ? m : n, lda, elem, who) : NULL;
    const char *b = be != 0 ? blas_operand(B, br, tb ? m : n, ldb, elem, who) : NULL;
    char *c = (char *)blas_operand(C, m, n, ldc, elem, who);
    if (!c || (al != 0 && !a) || (be != 0 && !b))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            size_t ai = ta ? (size_t)i * lda + j : (size_t)j * lda + i;
            size_t bi = tb ? (size_t)i * ldb + j : (size_t)j * ldb + i, ci = (size_t)j * ldc + i;
            if (elem == 8)
                ((double *)c)[ci] = (a ? al * ((const double *)a)[ai] : 0.0) +
                                    (b ? be * ((const double *)b)[bi] : 0.0);
            else
                ((float *)c)[ci] = (a ? (float)al * ((const float *)a)[ai] : 0.0f) +
                                   (b ? (float)be * ((const float *)b)[bi] : 0.0f);
        }
    blas_matrix_wrote(C, m, n, ldc, elem);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgeam(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, const float *alpha,
                           const float *A, int lda, const float *beta, const float *B, int ldb,
                           float *C, int ldc)
{
    return geam(handle, transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc, 4,
                "cublasSgeam");
}

cublasStatus_t cublasDgeam(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, const double *alpha,
                           const double *A, int lda, const double *beta, const double *B, int ldb,
                           double *C, int ldc)
{
    return geam(handle, transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc, 8,
                "cublasDgeam");
}

/* --- status names ---------------------------------------------------------------------------- */

const char *cublasGetStatusName(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS:
        return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
        return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
        return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
        return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
        return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:
        return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED:
        return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
        return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
        return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR:
        return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

const char *cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS:
        return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED:
        return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED:
        return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE:
        return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH:
        return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR:
        return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED:
        return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR:
        return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED:
        return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR:
        return "an error was detected when checking the license";
    }
    return "unknown error";
}
