/**
 * @file cublas.c
 * @brief The cuBLAS stand-in (libcublas.so.13): handles, SGEMM, SGEMV and GemmEx on the host.
 *
 * Column-major with cuBLAS's transposes and leading dimensions. Every
 * operand range is checked against the device allocation table before it is
 * touched (course_emu_host). GemmEx computes what cuBLAS computes, operand
 * rounding included:
 *
 *   compute type                    A, B          operands used as      accumulation
 *   CUBLAS_COMPUTE_32F[_PEDANTIC]   32F/16F/16BF  their exact value     fp32
 *   CUBLAS_COMPUTE_32F_FAST_TF32    32F           rounded to TF32 (rna) fp32
 *   CUBLAS_COMPUTE_32F_FAST_16F     32F           rounded to fp16 (rn)  fp32
 *   CUBLAS_COMPUTE_32F_FAST_16BF    32F           rounded to bf16 (rn)  fp32
 *   CUBLAS_COMPUTE_16F[_PEDANTIC]   16F           fp16                  fp16, rounded per MMA
 *
 * (CUBLAS_TF32_TENSOR_OP_MATH makes SGEMM and 32F GemmEx use TF32 too.) The
 * result is alpha * op(A) op(B) + beta * C, rounded once to C's type; C is not
 * read when beta is 0. fp32 accumulation is OpenBLAS's SGEMM on the rounded
 * operands where OpenBLAS is installed, a plain loop otherwise. fp16 and bf16
 * conversions are the VM's own (vm/fp.c), so the stand-ins and the VM round alike.
 */
#include <cublas_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef EMU_HAVE_CBLAS
#include <cblas.h>
#endif

#include "emu.h"
#include "vm/fp.h"

enum { HANDLE_MAGIC = 0x43424c53 };

/** The k depth of one fp16 tensor-core instruction (wmma m16n16k16, mma m16n8k16). */
enum { MMA_K = 16 };

/** What cublasHandle_t points at. */
struct cublasContext {
    uint32_t magic;
    cudaStream_t stream;
    cublasMath_t math;
    cublasPointerMode_t pointer_mode;
};

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
};

static int handle_ok(cublasHandle_t h)
{
    return h && h->magic == HANDLE_MAGIC;
}

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    int n;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasContext *h = calloc(1, sizeof *h);
    if (!h)
        return CUBLAS_STATUS_ALLOC_FAILED;
    *h = (struct cublasContext){HANDLE_MAGIC, 0, CUBLAS_DEFAULT_MATH, CUBLAS_POINTER_MODE_HOST};
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    if (!handle_ok(handle))
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

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace,
                                     size_t workspaceSizeInBytes)
{
    (void)workspace, (void)workspaceSizeInBytes;
    return handle_ok(handle) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = streamId;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    *streamId = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    *mode = handle->math;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    *mode = handle->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
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

static size_t type_size(cudaDataType t)
{
    return t == CUDA_R_32F ? 4 : 2;
}

/* Element @p i of an array of type @p t, as a float, rounded as @p r says. */
static float load(const void *p, cudaDataType t, size_t i, enum rounding r)
{
    float v = t == CUDA_R_32F   ? ((const float *)p)[i]
              : t == CUDA_R_16F ? fp_f16_to_f32(((const uint16_t *)p)[i])
                                : fp_bf16_to_f32(((const uint16_t *)p)[i]);
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

static void store(void *p, cudaDataType t, size_t i, float v)
{
    if (t == CUDA_R_32F)
        ((float *)p)[i] = v;
    else if (t == CUDA_R_16F)
        ((uint16_t *)p)[i] = fp_f32_to_f16(v);
    else
        ((uint16_t *)p)[i] = fp_f32_to_bf16(v);
}

/*
 * The host address of a column-major operand of @p rows x @p cols with
 * leading dimension @p ld, checked against the allocation table; NULL (after
 * the runtime said why) when it is not inside one allocation.
 */
static const void *operand(const void *p, int rows, int cols, int ld, size_t elem, const char *who)
{
    if (rows == 0 || cols == 0)
        return p;
    size_t extent = ((size_t)ld * (size_t)(cols - 1) + (size_t)rows) * elem;
    return course_emu_host(p, extent, who);
}

/* op(X) (rows x cols) as a column-major fp32 matrix, rounded; malloc'd. */
static float *widen(const void *X, cudaDataType t, int ld, cublasOperation_t op, int rows, int cols,
                    enum rounding r)
{
    float *w = malloc((size_t)rows * cols * sizeof *w + 1);
    if (!w)
        return NULL;
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) {
            size_t at = op == CUBLAS_OP_N ? (size_t)j * ld + i : (size_t)i * ld + j;
            w[(size_t)j * rows + i] = load(X, t, at, r);
        }
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

/* Run @p g on the host: C = alpha op(A) op(B) + beta C. */
static cublasStatus_t run_gemm(const struct gemm *g, float alpha, float beta)
{
    int ar = g->ta == CUBLAS_OP_N ? g->m : g->k, ac = g->ta == CUBLAS_OP_N ? g->k : g->m;
    int br = g->tb == CUBLAS_OP_N ? g->k : g->n, bc = g->tb == CUBLAS_OP_N ? g->n : g->k;
    if (g->m < 0 || g->n < 0 || g->k < 0 || g->lda < (ar > 1 ? ar : 1) ||
        g->ldb < (br > 1 ? br : 1) || g->ldc < (g->m > 1 ? g->m : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (course_emu_sticky_error())
        return CUBLAS_STATUS_EXECUTION_FAILED;
    const void *A = operand(g->A, ar, ac, g->lda, type_size(g->at), "cuBLAS GEMM, A");
    const void *B = operand(g->B, br, bc, g->ldb, type_size(g->bt), "cuBLAS GEMM, B");
    void *C = (void *)operand(g->C, g->m, g->n, g->ldc, type_size(g->ct), "cuBLAS GEMM, C");
    if (!A || !B || !C)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    if (g->m == 0 || g->n == 0)
        return CUBLAS_STATUS_SUCCESS;
    float *a = widen(A, g->at, g->lda, g->ta, g->m, g->k, g->round);
    float *b = widen(B, g->bt, g->ldb, g->tb, g->k, g->n, g->round);
    float *t = malloc((size_t)g->m * g->n * sizeof *t);
    cublasStatus_t st = a && b && t ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
    if (st == CUBLAS_STATUS_SUCCESS) {
        (g->half_acc ? product_f16 : product_f32)(g->m, g->n, g->k, a, b, t);
        for (int j = 0; j < g->n; j++)
            for (int i = 0; i < g->m; i++) {
                size_t at = (size_t)j * g->ldc + i;
                float v = alpha * t[(size_t)j * g->m + i];
                if (beta != 0.0f)
                    v += beta * load(C, g->ct, at, ROUND_NONE);
                store(C, g->ct, at, v);
            }
        for (int j = 0; j < g->n; j++)
            course_emu_wrote((const char *)g->C + (size_t)j * g->ldc * type_size(g->ct),
                             (size_t)g->m * type_size(g->ct));
    }
    free(a);
    free(b);
    free(t);
    return st;
}

/* Read a scalar (alpha or beta) of type @p t from the host or, in device pointer mode, device. */
static int scalar(cublasHandle_t h, const void *p, cudaDataType t, float *out)
{
    if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE)
        p = course_emu_host(p, type_size(t), "cuBLAS alpha or beta");
    if (!p)
        return -1;
    *out = load(p, t, 0, ROUND_NONE);
    return 0;
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
        return (f32in || f16in || bf16in) && same_c ? 0 : -1;
    case CUBLAS_COMPUTE_32F_PEDANTIC:
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

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void *alpha,
                            const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C,
                            cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo)
{
    (void)algo;
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct gemm g = {transa, transb, m,     n,   k,   A,   B,          C,
                     Atype,  Btype,  Ctype, lda, ldb, ldc, ROUND_NONE, 0};
    int ops_ok = (transa == CUBLAS_OP_N || transa == CUBLAS_OP_T || transa == CUBLAS_OP_C) &&
                 (transb == CUBLAS_OP_N || transb == CUBLAS_OP_T || transb == CUBLAS_OP_C);
    int types_ok = (Atype == CUDA_R_32F || Atype == CUDA_R_16F || Atype == CUDA_R_16BF) &&
                   (Ctype == CUDA_R_32F || Ctype == CUDA_R_16F || Ctype == CUDA_R_16BF);
    if (!ops_ok)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!types_ok || choose_compute(&g, computeType, handle->math))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    g.ta = transa == CUBLAS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T; /* real data: C is T */
    g.tb = transb == CUBLAS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T;
    cudaDataType st = g.half_acc ? CUDA_R_16F : CUDA_R_32F;
    float a, b;
    if (scalar(handle, alpha, st, &a) || scalar(handle, beta, st, &b))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    return run_gemm(&g, a, b);
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                              cublasOperation_t transb, int m, int n, int k, const float *alpha,
                              const float *A, int lda, const float *B, int ldb, const float *beta,
                              float *C, int ldc)
{
    return cublasGemmEx(handle, transa, transb, m, n, k, alpha, A, CUDA_R_32F, lda, B, CUDA_R_32F,
                        ldb, beta, C, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t cublasSgemv_v2(cublasHandle_t handle, cublasOperation_t trans, int m, int n,
                              const float *alpha, const float *A, int lda, const float *x, int incx,
                              const float *beta, float *y, int incy)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int t = trans != CUBLAS_OP_N, xl = t ? m : n, yl = t ? n : m;
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || incx == 0 || incy == 0 ||
        (trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (course_emu_sticky_error())
        return CUBLAS_STATUS_EXECUTION_FAILED;
    float al, be;
    const float *a = operand(A, m, n, lda, sizeof(float), "cublasSgemv, A");
    const float *xs = operand(x, 1, xl, abs(incx), sizeof(float), "cublasSgemv, x");
    float *ys = (float *)operand(y, 1, yl, abs(incy), sizeof(float), "cublasSgemv, y");
    if (!a || !xs || !ys || scalar(handle, alpha, CUDA_R_32F, &al) ||
        scalar(handle, beta, CUDA_R_32F, &be))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    /* BLAS: a negative increment walks the vector from its far end. */
    for (int i = 0; i < yl && m && n; i++) {
        float acc = 0.0f;
        for (int j = 0; j < xl; j++) {
            float aij = t ? a[(size_t)i * lda + j] : a[(size_t)j * lda + i];
            acc += aij * xs[(size_t)(incx > 0 ? j : xl - 1 - j) * abs(incx)];
        }
        float *yi = &ys[(size_t)(incy > 0 ? i : yl - 1 - i) * abs(incy)];
        *yi = be != 0.0f ? al * acc + be * *yi : al * acc;
    }
    if (m && n) /* the whole strided extent of y: initcheck may miss unwritten gaps */
        course_emu_wrote(y, ((size_t)(yl - 1) * abs(incy) + 1) * sizeof(float));
    return CUBLAS_STATUS_SUCCESS;
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
