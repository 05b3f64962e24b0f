/**
 * @file cublaslt.c
 * @brief The cuBLASLt stand-in (libcublasLt.so.13): handles, matmul descriptors, matrix
 *        layouts, preferences, one heuristic answer, and cublasLtMatmul with the bias, ReLU and
 *        GELU epilogues, on the host.
 *
 * cublasLtMatmul computes D = epilogue(alpha op(A) op(B) + beta C) through the cuBLAS stand-in
 * (cublasGemmStridedBatchedEx, so operands round as its compute types say), into an
 * accumulator of the compute type's precision (fp32, or fp16 for CUBLAS_COMPUTE_16F); the
 * epilogue runs on that accumulator and D is rounded once, as the GPU's epilogue does:
 *
 *   epilogue        on each element v of row i
 *   DEFAULT         v
 *   RELU            max(v, 0)
 *   BIAS            v + bias[i]
 *   RELU_BIAS       max(v + bias[i], 0)
 *   GELU            gelu(v)
 *   GELU_BIAS       gelu(v + bias[i])
 *
 * gelu is the tanh form, 0.5 v (1 + tanh(sqrt(2 / pi) (v + 0.044715 v^3))), in double and
 * rounded once. Column and row order, in any mix (a row-major operand is the transpose of the
 * column-major matrix of its ld); batches by CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT and
 * STRIDED_BATCH_OFFSET (the bias is shared by every batch). Anything else (the tiled orders
 * COL32 and the like, auxiliary outputs, fp8 scales) is refused with
 * CUBLAS_STATUS_NOT_SUPPORTED and one line.
 */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "blas_elem.h"
#include "blas_wrap.h"
#include "emu.h"
#include "say.h"

enum { LT_MAGIC = 0x43424c54 };

/** What cublasLtHandle_t points at: the cuBLAS handle that runs the products. */
struct cublasLtContext {
    struct blas_wrap w;
};

/** A matmul descriptor, kept inside cublasLtMatmulDescOpaque_t. */
struct desc {
    cublasComputeType_t compute;
    cudaDataType scale;
    int32_t pointer_mode;
    int32_t ta, tb;
    uint32_t epilogue;
    const void *bias;
    int32_t bias_type; /**< -1: D's type */
};

/** A matrix layout, kept inside cublasLtMatrixLayoutOpaque_t. */
struct layout {
    uint32_t type;
    int32_t order;
    uint64_t rows, cols;
    int64_t ld;
    int32_t batch;
    int64_t stride;
};

_Static_assert(sizeof(struct desc) <= sizeof(cublasLtMatmulDescOpaque_t), "desc fits");
_Static_assert(sizeof(struct layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout fits");

static struct desc *desc_of(cublasLtMatmulDesc_t d)
{
    return (struct desc *)d->data;
}

static struct layout *layout_of(cublasLtMatrixLayout_t l)
{
    return (struct layout *)l->data;
}

/* One line on stderr for what the stand-in does not model; the status to return. */
static cublasStatus_t not_emulated(const char *what, int value)
{
    emu_say("cuBLASLt: %s %d is not emulated (CUBLAS_STATUS_NOT_SUPPORTED)", what, value);
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

/* --- handle ---------------------------------------------------------------------------------- */

cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle)
{
    cublasStatus_t st;
    struct cublasLtContext *h = blas_wrap_new(sizeof *h, LT_MAGIC, &st);
    if (h)
        *lightHandle = h;
    return st;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle)
{
    return blas_wrap_free((struct blas_wrap *)lightHandle, LT_MAGIC);
}

size_t cublasLtGetVersion(void)
{
    return CUBLAS_VERSION;
}

size_t cublasLtGetCudartVersion(void)
{
    return cublasGetCudartVersion();
}

cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value)
{
    return cublasGetProperty(type, value);
}

/* The host code's instruction sets are the host's own here: the mask changes nothing; the
 * previous one, as cuBLASLt answers, is the last one set. */
unsigned cublasLtDisableCpuInstructionsSetMask(unsigned mask)
{
    static unsigned last;
    unsigned before = last;
    last = mask;
    return before;
}

const char *cublasLtGetStatusName(cublasStatus_t status)
{
    return cublasGetStatusName(status);
}

const char *cublasLtGetStatusString(cublasStatus_t status)
{
    return cublasGetStatusString(status);
}

/* --- matmul descriptor ----------------------------------------------------------------------- */

cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t matmulDesc, size_t size,
                                               cublasComputeType_t computeType,
                                               cudaDataType_t scaleType)
{
    if (!matmulDesc || size < sizeof(struct desc))
        return CUBLAS_STATUS_INVALID_VALUE;
    memset(matmulDesc, 0, size);
    *desc_of(matmulDesc) = (struct desc){computeType, scaleType,   CUBLASLT_POINTER_MODE_HOST,
                                         CUBLAS_OP_N, CUBLAS_OP_N, CUBLASLT_EPILOGUE_DEFAULT,
                                         NULL,        -1};
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc,
                                        cublasComputeType_t computeType, cudaDataType_t scaleType)
{
    cublasLtMatmulDesc_t d = emu_malloc(sizeof *d);
    cublasLtMatmulDescInit_internal(d, sizeof *d, computeType, scaleType);
    *matmulDesc = d;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc)
{
    free(matmulDesc);
    return CUBLAS_STATUS_SUCCESS;
}

/* Copy @p size bytes of @p buf into @p field of @p want bytes; INVALID_VALUE on a mismatch. */
static cublasStatus_t set_field(void *field, size_t want, const void *buf, size_t size)
{
    if (!buf || size != want)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(field, buf, size);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                              cublasLtMatmulDescAttributes_t attr, const void *buf,
                                              size_t sizeInBytes)
{
    struct desc *d = desc_of(matmulDesc);
    switch (attr) {
    case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE:
        return set_field(&d->compute, 4, buf, sizeInBytes);
    case CUBLASLT_MATMUL_DESC_SCALE_TYPE:
        return set_field(&d->scale, 4, buf, sizeInBytes);
    case CUBLASLT_MATMUL_DESC_POINTER_MODE:
        return set_field(&d->pointer_mode, 4, buf, sizeInBytes);
    case CUBLASLT_MATMUL_DESC_TRANSA:
        return set_field(&d->ta, 4, buf, sizeInBytes);
    case CUBLASLT_MATMUL_DESC_TRANSB:
        return set_field(&d->tb, 4, buf, sizeInBytes);
    case CUBLASLT_MATMUL_DESC_EPILOGUE:
        return set_field(&d->epilogue, 4, buf, sizeInBytes);
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
        return set_field(&d->bias, sizeof d->bias, buf, sizeInBytes);
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
        return set_field(&d->bias_type, 4, buf, sizeInBytes);
    default:
        return not_emulated("matmul descriptor attribute", (int)attr);
    }
}

/* --- matrix layout --------------------------------------------------------------------------- */

cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t matLayout, size_t size,
                                                 cudaDataType type, uint64_t rows, uint64_t cols,
                                                 int64_t ld)
{
    if (!matLayout || size < sizeof(struct layout))
        return CUBLAS_STATUS_INVALID_VALUE;
    memset(matLayout, 0, size);
    *layout_of(matLayout) = (struct layout){type, CUBLASLT_ORDER_COL, rows, cols, ld, 1, 0};
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld)
{
    cublasLtMatrixLayout_t l = emu_malloc(sizeof *l);
    cublasLtMatrixLayoutInit_internal(l, sizeof *l, type, rows, cols, ld);
    *matLayout = l;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout)
{
    free(matLayout);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr,
                                                const void *buf, size_t sizeInBytes)
{
    struct layout *l = layout_of(matLayout);
    switch (attr) {
    case CUBLASLT_MATRIX_LAYOUT_TYPE:
        return set_field(&l->type, 4, buf, sizeInBytes);
    case CUBLASLT_MATRIX_LAYOUT_ORDER:
        return set_field(&l->order, 4, buf, sizeInBytes);
    case CUBLASLT_MATRIX_LAYOUT_ROWS:
        return set_field(&l->rows, 8, buf, sizeInBytes);
    case CUBLASLT_MATRIX_LAYOUT_COLS:
        return set_field(&l->cols, 8, buf, sizeInBytes);
    case CUBLASLT_MATRIX_LAYOUT_LD:
        return set_field(&l->ld, 8, buf, sizeInBytes);
    case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
        return set_field(&l->batch, 4, buf, sizeInBytes);
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
        return set_field(&l->stride, 8, buf, sizeInBytes);
    default:
        return not_emulated("matrix layout attribute", (int)attr);
    }
}

/* --- preference and heuristic ---------------------------------------------------------------- */

cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size)
{
    if (!pref)
        return CUBLAS_STATUS_INVALID_VALUE;
    memset(pref, 0, size);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
    *pref = emu_calloc(1, sizeof **pref);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
    free(pref);
    return CUBLAS_STATUS_SUCCESS;
}

/* Preferences only narrow a GPU's search among kernels; the host has one way to compute. */
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void *buf, size_t sizeInBytes)
{
    (void)attr;
    return pref && buf && sizeInBytes ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

/* One algorithm, needing no workspace. */
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc, cublasLtMatrixLayout_t Adesc,
    cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
    cublasLtMatmulPreference_t preference, int requestedAlgoCount,
    cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int *returnAlgoCount)
{
    (void)operationDesc, (void)Adesc, (void)Bdesc, (void)Cdesc, (void)Ddesc, (void)preference;
    if (!blas_wrap_ok((const struct blas_wrap *)lightHandle, LT_MAGIC))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requestedAlgoCount < 1)
        return CUBLAS_STATUS_INVALID_VALUE;
    memset(&heuristicResultsArray[0], 0, sizeof heuristicResultsArray[0]);
    heuristicResultsArray[0].state = CUBLAS_STATUS_SUCCESS;
    heuristicResultsArray[0].wavesCount = 1.0f;
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

/* --- matmul ---------------------------------------------------------------------------------- */

/* The epilogue on one accumulator value @p v of row @p i. */
static double epilogue(uint32_t epi, double v, const void *bias, cudaDataType bt, size_t i)
{
    if (epi & CUBLASLT_EPILOGUE_BIAS)
        v = (float)(v + elem_load(bias, bt, i)); /* the accumulator's precision: fp32 */
    if (epi & CUBLASLT_EPILOGUE_RELU)
        v = v > 0 ? v : 0;
    if (epi & CUBLASLT_EPILOGUE_GELU)
        v = 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    return v;
}

/** One cublasLtMatmul, resolved: shapes, types, batches, where D's host copy is. */
struct lt_call {
    int m, n, k, batch;
    cudaDataType ct, dt, st; /* C, D, and the accumulator scratch */
    const struct layout *c, *d;
    const struct desc *desc;
};

/* Check the descriptor and layouts of a call and fill @p call; SUCCESS or why not. */
static cublasStatus_t lt_check(const struct desc *d, const struct layout *a, const struct layout *b,
                               const struct layout *c, const struct layout *dl,
                               struct lt_call *call)
{
    const struct layout *all[] = {a, b, c, dl};
    for (int i = 0; i < 4; i++)
        if (all[i]->order != CUBLASLT_ORDER_COL && all[i]->order != CUBLASLT_ORDER_ROW)
            return not_emulated("matrix order (cublasLtOrder_t; COL and ROW are)", all[i]->order);
    uint32_t ok_epi = CUBLASLT_EPILOGUE_RELU | CUBLASLT_EPILOGUE_BIAS | CUBLASLT_EPILOGUE_GELU;
    if ((d->epilogue & ~ok_epi) != 0 && d->epilogue != CUBLASLT_EPILOGUE_DEFAULT)
        return not_emulated("epilogue", (int)d->epilogue);
    int ta = d->ta != CUBLAS_OP_N, tb = d->tb != CUBLAS_OP_N;
    uint64_t m = ta ? a->cols : a->rows, k = ta ? a->rows : a->cols;
    uint64_t kb = tb ? b->cols : b->rows, n = tb ? b->rows : b->cols;
    if (k != kb || c->rows != m || c->cols != n || dl->rows != m || dl->cols != n ||
        m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || c->type != dl->type || dl->batch < 1 ||
        a->batch != dl->batch || b->batch != dl->batch || c->batch != dl->batch)
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((d->epilogue & CUBLASLT_EPILOGUE_BIAS) && !d->bias)
        return CUBLAS_STATUS_INVALID_VALUE;
    int half = d->compute == CUBLAS_COMPUTE_16F || d->compute == CUBLAS_COMPUTE_16F_PEDANTIC;
    *call = (struct lt_call){(int)m,
                             (int)n,
                             (int)k,
                             dl->batch,
                             (cudaDataType)c->type,
                             (cudaDataType)dl->type,
                             half ? CUDA_R_16F : CUDA_R_32F,
                             c,
                             dl,
                             d};
    return CUBLAS_STATUS_SUCCESS;
}

/* Where element (@p i, @p j) of a matrix of layout @p l lies, in elements. */
static size_t at(const struct layout *l, int i, int j)
{
    return l->order == CUBLASLT_ORDER_ROW ? (size_t)i * (size_t)l->ld + (size_t)j
                                          : (size_t)j * (size_t)l->ld + (size_t)i;
}

/* Host view of batch @p b of m x n matrix @p l at device address @p p (checked); NULL if
 * outside. */
static char *host_matrix(const void *p, const struct layout *l, int b, int m, int n,
                         const char *who)
{
    size_t e = elem_bytes((cudaDataType)l->type);
    const char *base = (const char *)p + (size_t)b * (size_t)l->stride * e;
    return course_emu_host(base, (at(l, m - 1, n - 1) + 1) * e, who);
}

/* beta C into the scratch S (m x n per batch, dense), in the scratch's type. */
static cublasStatus_t stage_c(const struct lt_call *call, const void *C, char *S)
{
    size_t es = elem_bytes(call->st), mn = (size_t)call->m * call->n;
    for (int b = 0; b < call->batch; b++) {
        const char *c = host_matrix(C, call->c, b, call->m, call->n, "cublasLtMatmul, C");
        if (!c)
            return CUBLAS_STATUS_EXECUTION_FAILED;
        for (int j = 0; j < call->n; j++)
            for (int i = 0; i < call->m; i++)
                elem_store(S + b * mn * es, call->st, (size_t)j * call->m + i,
                           elem_load(c, call->ct, at(call->c, i, j)));
    }
    return CUBLAS_STATUS_SUCCESS;
}

/* D = epilogue(S), rounded once to D's type. */
static cublasStatus_t finish_d(const struct lt_call *call, const char *S, void *D)
{
    const struct desc *d = call->desc;
    cudaDataType bt = d->bias_type >= 0 ? (cudaDataType)d->bias_type : call->dt;
    const void *bias = NULL;
    if (d->epilogue & CUBLASLT_EPILOGUE_BIAS) {
        bias = course_emu_host(d->bias, (size_t)call->m * elem_bytes(bt), "cublasLtMatmul, bias");
        if (!bias)
            return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    size_t es = elem_bytes(call->st), ed = elem_bytes(call->dt), mn = (size_t)call->m * call->n;
    for (int b = 0; b < call->batch; b++) {
        char *dh = host_matrix(D, call->d, b, call->m, call->n, "cublasLtMatmul, D");
        if (!dh)
            return CUBLAS_STATUS_EXECUTION_FAILED;
        for (int j = 0; j < call->n; j++)
            for (int i = 0; i < call->m; i++) {
                double v = elem_load(S + b * mn * es, call->st, (size_t)j * call->m + i);
                elem_store(dh, call->dt, at(call->d, i, j),
                           epilogue(d->epilogue, v, bias, bt, (size_t)i));
            }
        int row = call->d->order == CUBLASLT_ORDER_ROW, lines = row ? call->m : call->n;
        for (int l = 0; l < lines; l++) /* the bytes written, line by line (not the ld's gaps) */
            course_emu_wrote(
                (const char *)D +
                    ((size_t)b * call->d->stride + at(call->d, row ? l : 0, row ? 0 : l)) * ed,
                (size_t)(row ? call->n : call->m) * ed);
    }
    return CUBLAS_STATUS_SUCCESS;
}

/* Is the scalar at @p p (host or device, of the scale type) zero? -1 if unreadable. */
static int scalar_is_zero(const struct desc *d, const void *p)
{
    size_t bytes = d->scale == CUDA_R_16F ? 2 : 4;
    if (d->pointer_mode == CUBLASLT_POINTER_MODE_DEVICE)
        p = course_emu_host(p, bytes, "cublasLtMatmul, beta");
    if (!p)
        return -1;
    return elem_load(p, d->scale == CUDA_R_16F ? CUDA_R_16F : CUDA_R_32F, 0) == 0.0f;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                              const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                              const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
                              const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
                              void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream)
{
    (void)algo, (void)workspace, (void)workspaceSizeInBytes;
    if (!blas_wrap_ok((const struct blas_wrap *)lightHandle, LT_MAGIC))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    const struct desc *d = desc_of(computeDesc);
    const struct layout *a = layout_of(Adesc), *b = layout_of(Bdesc);
    struct lt_call call;
    cublasStatus_t st = lt_check(d, a, b, layout_of(Cdesc), layout_of(Ddesc), &call);
    int beta_zero = st == CUBLAS_STATUS_SUCCESS ? scalar_is_zero(d, beta) : 0;
    if (st != CUBLAS_STATUS_SUCCESS || beta_zero < 0 || call.m == 0 || call.n == 0)
        return beta_zero < 0 ? CUBLAS_STATUS_EXECUTION_FAILED : st;
    /* The accumulator lives in a device scratch, so that the cuBLAS stand-in can fill it. */
    size_t mn = (size_t)call.m * call.n, bytes = mn * elem_bytes(call.st) * (size_t)call.batch;
    void *S;
    if (cudaMalloc(&S, bytes) != cudaSuccess)
        return CUBLAS_STATUS_ALLOC_FAILED;
    char *sh = course_emu_host(S, bytes, "cublasLtMatmul, scratch");
    if (!beta_zero)
        st = stage_c(&call, C, sh);
    cublasHandle_t h = lightHandle->w.blas;
    if (st == CUBLAS_STATUS_SUCCESS) {
        cublasSetStream_v2(h, stream);
        cublasSetPointerMode_v2(h, (cublasPointerMode_t)d->pointer_mode);
        /* a row-major operand is the transpose of the column-major matrix of its ld */
        int ta = (d->ta != CUBLAS_OP_N) ^ (a->order == CUBLASLT_ORDER_ROW);
        int tb = (d->tb != CUBLAS_OP_N) ^ (b->order == CUBLASLT_ORDER_ROW);
        st = cublasGemmStridedBatchedEx(
            h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, call.m, call.n,
            call.k, alpha, A, (cudaDataType)a->type, (int)a->ld, a->stride, B,
            (cudaDataType)b->type, (int)b->ld, b->stride, beta, S, call.st, call.m, (long long)mn,
            call.batch, d->compute, CUBLAS_GEMM_DEFAULT);
    }
    if (st == CUBLAS_STATUS_SUCCESS)
        st = finish_d(&call, sh, D);
    cudaFree(S);
    return st;
}
