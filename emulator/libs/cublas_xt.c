/**
 * @file cublas_xt.c
 * @brief The cuBLAS stand-in's cublasXt: handles, device selection, block size, and SGEMM and
 *        DGEMM on host or device operands, run on the stand-in's own GEMM (cublas.c).
 *
 * cublasXt tiles a GEMM whose operands may live in host memory across the GPUs it was given.
 * The emulated machine has one device, so a call copies each operand (host or device memory,
 * cudaMemcpyDefault) densely to the device, runs one cublasSgemm or cublasDgemm there and copies
 * C back: the result is the stand-in's GEMM bit for bit, whatever the block size. C is not read
 * when beta is 0. Sizes past INT_MAX are CUBLAS_STATUS_NOT_SUPPORTED.
 */
#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <limits.h>
#include <stdlib.h>

#include "blas_wrap.h"

enum { XT_MAGIC = 0x43425854, XT_BLOCK_DIM = 1024 };

/** What cublasXtHandle_t points at. */
struct cublasXtContext {
    struct blas_wrap w; /**< first: the magic and the cuBLAS handle the GEMMs run on */
    int block_dim;      /**< what cublasXtSetBlockDim set; tiling does not change the result */
};

/** One operand of an Xt GEMM: where it is, and its shape as stored (column-major). */
struct xt_operand {
    const void *p;
    size_t rows, cols, ld;
};

static int xt_ok(cublasXtHandle_t h)
{
    return blas_wrap_ok((const struct blas_wrap *)h, XT_MAGIC);
}

cublasStatus_t cublasXtCreate(cublasXtHandle_t *handle)
{
    cublasStatus_t st;
    struct cublasXtContext *h = blas_wrap_new(sizeof *h, XT_MAGIC, &st);
    if (h) {
        h->block_dim = XT_BLOCK_DIM;
        *handle = h;
    }
    return st;
}

cublasStatus_t cublasXtDestroy(cublasXtHandle_t handle)
{
    return blas_wrap_free((struct blas_wrap *)handle, XT_MAGIC);
}

cublasStatus_t cublasXtDeviceSelect(cublasXtHandle_t handle, int nbDevices, int deviceId[])
{
    int count;
    if (!xt_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (nbDevices < 1 || !deviceId)
        return CUBLAS_STATUS_INVALID_VALUE;
    for (int i = 0; i < nbDevices; i++)
        if (deviceId[i] < 0 || deviceId[i] >= count)
            return CUBLAS_STATUS_INVALID_VALUE;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasXtSetBlockDim(cublasXtHandle_t handle, int blockDim)
{
    if (!xt_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (blockDim < 1)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->block_dim = blockDim;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasXtGetBlockDim(cublasXtHandle_t handle, int *blockDim)
{
    if (!xt_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    *blockDim = handle->block_dim;
    return CUBLAS_STATUS_SUCCESS;
}

/* Copy operand @p o into a new dense device buffer (@p load 0: allocate only); NULL on failure. */
static void *to_device(const struct xt_operand *o, size_t elem, int load)
{
    void *d = NULL;
    size_t bytes = o->rows * o->cols * elem;
    if (cudaMalloc(&d, bytes ? bytes : 1) != cudaSuccess)
        return NULL;
    if (load && bytes &&
        cudaMemcpy2D(d, o->rows * elem, o->p, o->ld * elem, o->rows * elem, o->cols,
                     cudaMemcpyDefault) != cudaSuccess) {
        cudaFree(d);
        return NULL;
    }
    return d;
}

/* The operand op(X) of @p rows x @p cols would be, as stored. */
static struct xt_operand xt_operand_of(const void *p, cublasOperation_t op, size_t rows,
                                       size_t cols, size_t ld)
{
    return op == CUBLAS_OP_N ? (struct xt_operand){p, rows, cols, ld}
                             : (struct xt_operand){p, cols, rows, ld};
}

/* C = alpha op(A) op(B) + beta C with elements of @p elem bytes (4: SGEMM, 8: DGEMM). */
static cublasStatus_t xt_gemm(cublasXtHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                              size_t m, size_t n, size_t k, const void *alpha, const void *A,
                              size_t lda, const void *B, size_t ldb, const void *beta, void *C,
                              size_t ldc, size_t elem)
{
    struct xt_operand a = xt_operand_of(A, ta, m, k, lda), b = xt_operand_of(B, tb, k, n, ldb);
    struct xt_operand c = {C, m, n, ldc};
    if (!xt_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX || a.ld > INT_MAX || b.ld > INT_MAX ||
        c.ld > INT_MAX)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (a.ld < a.rows || b.ld < b.rows || c.ld < c.rows || !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    int read_c = elem == 4 ? *(const float *)beta != 0 : *(const double *)beta != 0;
    void *da = to_device(&a, elem, 1), *db = to_device(&b, elem, 1);
    void *dc = to_device(&c, elem, read_c);
    cublasStatus_t st = CUBLAS_STATUS_ALLOC_FAILED;
    if (da && db && dc) {
        /* the dense copies' leading dimensions */
        int ld_a = a.rows ? (int)a.rows : 1, ld_b = b.rows ? (int)b.rows : 1;
        int ld_c = c.rows ? (int)c.rows : 1;
        st = elem == 4 ? cublasSgemm(h->w.blas, ta, tb, (int)m, (int)n, (int)k, alpha, da, ld_a, db,
                                     ld_b, beta, dc, ld_c)
                       : cublasDgemm(h->w.blas, ta, tb, (int)m, (int)n, (int)k, alpha, da, ld_a, db,
                                     ld_b, beta, dc, ld_c);
    }
    if (st == CUBLAS_STATUS_SUCCESS && m && n &&
        cudaMemcpy2D((void *)c.p, c.ld * elem, dc, c.rows * elem, c.rows * elem, c.cols,
                     cudaMemcpyDefault) != cudaSuccess)
        st = CUBLAS_STATUS_EXECUTION_FAILED;
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    return st;
}

cublasStatus_t cublasXtSgemm(cublasXtHandle_t handle, cublasOperation_t transa,
                             cublasOperation_t transb, size_t m, size_t n, size_t k,
                             const float *alpha, const float *A, size_t lda, const float *B,
                             size_t ldb, const float *beta, float *C, size_t ldc)
{
    return xt_gemm(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 4);
}

cublasStatus_t cublasXtDgemm(cublasXtHandle_t handle, cublasOperation_t transa,
                             cublasOperation_t transb, size_t m, size_t n, size_t k,
                             const double *alpha, const double *A, size_t lda, const double *B,
                             size_t ldb, const double *beta, double *C, size_t ldc)
{
    return xt_gemm(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 8);
}
