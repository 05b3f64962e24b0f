/**
 * @file cublas_level1.c
 * @brief The cuBLAS stand-in's level 1 in fp32 and fp64 (S and D), with int and 64-bit (_64)
 *        sizes: amax, amin, asum, axpy, copy, dot, nrm2, rot, scal and swap, on the host; and
 *        DotEx on real fp16, bf16, fp32 and fp64 vectors.
 *
 * BLAS's rules: a negative increment walks its vector from the far end (element i of x is
 * x[(n - 1 - i) * |incx|]); a reduction (amax, amin, asum, nrm2) of a vector with no positive
 * increment is 0 and scal of one does nothing; a zero increment elsewhere is
 * CUBLAS_STATUS_INVALID_VALUE. amax and amin answer the 1-based index of the first element of
 * largest or smallest magnitude, 0 for an empty vector. Scalars and results live on the host or
 * the device, as the handle's pointer mode says; each call computes once the work queued before
 * it has run, as every stand-in call does.
 *
 * Arithmetic: axpy one fused multiply-add an element, rot one multiply and one fused
 * multiply-add for each of x and y, scal one multiply, each rounded to the type; dot, nrm2 and
 * asum accumulate in fp64 and round once. The summation order is not cuBLAS's, so fp32 sums
 * may differ from a GPU's in the last bit.
 */
#include <cublas_v2.h>
#include <math.h>
#include <stdint.h>

#include "blas_args.h"
#include "blas_elem.h"
#include "emu.h"
#include "say.h"

/** What a call that walks x and y together does to each pair of elements. */
enum pair_op { PAIR_AXPY, PAIR_COPY, PAIR_SWAP, PAIR_ROT };

/** What a call that reduces x (and y) to one result computes. */
enum reduce_op { REDUCE_DOT, REDUCE_NRM2, REDUCE_ASUM, REDUCE_AMAX, REDUCE_AMIN };

static const char *const pair_names[][2] = {{"cuBLAS axpy, x", "cuBLAS axpy, y"},
                                            {"cuBLAS copy, x", "cuBLAS copy, y"},
                                            {"cuBLAS swap, x", "cuBLAS swap, y"},
                                            {"cuBLAS rot, x", "cuBLAS rot, y"}};

/*
 * y = alpha x + y (axpy: @p s1 alpha), y = x (copy), x <-> y (swap), or the plane rotation
 * (x, y) = (c x + s y, c y - s x) (rot: @p s1 c, @p s2 s), element by element.
 */
static cublasStatus_t pairwise(cublasHandle_t h, enum pair_op op, int64_t n, void *x, int64_t incx,
                               void *y, int64_t incy, const void *s1, const void *s2, size_t elem)
{
    if (!blas_handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n <= 0)
        return CUBLAS_STATUS_SUCCESS;
    if (incx == 0 || incy == 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (course_emu_sticky_error())
        return CUBLAS_STATUS_EXECUTION_FAILED;
    double a = 0, b = 0;
    struct blas_vec vx = blas_vec_of(x, n, incx, elem, pair_names[op][0]);
    struct blas_vec vy = blas_vec_of(y, n, incy, elem, pair_names[op][1]);
    if (!vx.p || !vy.p || (s1 && blas_scalar(h, s1, elem, &a)) ||
        (s2 && blas_scalar(h, s2, elem, &b)))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    for (int64_t i = 0; i < n; i++) {
        double xi = blas_vec_get(&vx, i), yi = blas_vec_get(&vy, i);
        switch (op) {
        case PAIR_AXPY:
            blas_vec_set(&vy, i, blas_fma(elem, a, xi, yi));
            break;
        case PAIR_COPY:
            blas_vec_set(&vy, i, xi);
            break;
        case PAIR_SWAP:
            blas_vec_set(&vx, i, yi);
            blas_vec_set(&vy, i, xi);
            break;
        case PAIR_ROT:
            blas_vec_set(&vx, i, blas_fma(elem, a, xi, blas_round(elem, b * yi)));
            blas_vec_set(&vy, i, blas_fma(elem, a, yi, blas_round(elem, -b * xi)));
            break;
        }
    }
    if (op == PAIR_SWAP || op == PAIR_ROT)
        blas_vec_wrote(x, &vx);
    blas_vec_wrote(y, &vy);
    return CUBLAS_STATUS_SUCCESS;
}

/* x = alpha x (BLAS: nothing for a non-positive increment). */
static cublasStatus_t scal(cublasHandle_t h, int64_t n, const void *alpha, void *x, int64_t incx,
                           size_t elem)
{
    if (!blas_handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int st = blas_start(n <= 0 || incx <= 0);
    if (st != BLAS_GO)
        return st;
    double a;
    struct blas_vec vx = blas_vec_of(x, n, incx, elem, "cuBLAS scal, x");
    if (!vx.p || blas_scalar(h, alpha, elem, &a))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    for (int64_t i = 0; i < n; i++)
        blas_vec_set(&vx, i, blas_round(elem, a * blas_vec_get(&vx, i)));
    blas_vec_wrote(x, &vx);
    return CUBLAS_STATUS_SUCCESS;
}

/* Write a call's result to the host or, in device pointer mode, the device, as type @p t: a real
 * (fp16, bf16, fp32, fp64), or an index as an int (CUDA_R_32I) or an int64_t (CUDA_R_64I, the
 * _64 forms). */
static cublasStatus_t result_to(cublasHandle_t h, void *result, cudaDataType t, double v)
{
    size_t bytes = elem_bytes(t);
    void *at = h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE
                   ? course_emu_host(result, bytes, "cuBLAS result")
                   : result;
    if (!at)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    if (t == CUDA_R_32I)
        *(int32_t *)at = (int32_t)v;
    else if (t == CUDA_R_64I)
        *(int64_t *)at = (int64_t)v;
    else
        elem_store(at, t, 0, v);
    if (at != result)
        course_emu_wrote(result, bytes);
    return CUBLAS_STATUS_SUCCESS;
}

/*
 * One result from x (and y, for dot) into @p result of @p rbytes: x . y, the Euclidean norm of
 * x, the sum of its magnitudes, or the 1-based index of its first element of largest (amax) or
 * smallest (amin) magnitude. Sums accumulate in fp64 and are rounded once.
 */
static cublasStatus_t reduce(cublasHandle_t h, enum reduce_op op, int64_t n, const void *x,
                             int64_t incx, const void *y, int64_t incy, void *result, size_t elem,
                             size_t rbytes)
{
    if (!blas_handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (op != REDUCE_DOT && incx <= 0) /* BLAS: nothing to reduce, the result is 0 */
        n = 0;
    if (n > 0 && (incx == 0 || (op == REDUCE_DOT && incy == 0)))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n > 0 && course_emu_sticky_error())
        return CUBLAS_STATUS_EXECUTION_FAILED;
    struct blas_vec vx = blas_vec_of(x, n, incx, elem, "cuBLAS level 1, x"), vy = vx;
    if (op == REDUCE_DOT)
        vy = blas_vec_of(y, n, incy, elem, "cuBLAS dot, y");
    if (n > 0 && (!vx.p || !vy.p))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    double acc = 0, best = 0;
    int64_t at = 0; /* amax, amin: the 1-based index of the best so far */
    for (int64_t i = 0; i < n; i++) {
        double xi = blas_vec_get(&vx, i), mag = fabs(xi);
        if (op == REDUCE_AMAX || op == REDUCE_AMIN) {
            if (at == 0 || (op == REDUCE_AMAX ? mag > best : mag < best))
                best = mag, at = i + 1;
        } else {
            acc += op == REDUCE_ASUM ? mag : xi * (op == REDUCE_DOT ? blas_vec_get(&vy, i) : xi);
        }
    }
    if (op == REDUCE_AMAX || op == REDUCE_AMIN)
        return result_to(h, result, rbytes == 4 ? CUDA_R_32I : CUDA_R_64I, (double)at);
    return result_to(h, result, rbytes == 4 ? CUDA_R_32F : CUDA_R_64F,
                     op == REDUCE_NRM2 ? sqrt(acc) : acc);
}

/* One exported reduction of x (amax, amin, asum, nrm2), named NAME, computing OP into a result
 * of type R. */
#define REDUCE_API(NAME, OP, T, I, R)                                                              \
    cublasStatus_t NAME(cublasHandle_t handle, I n, const T *x, I incx, R *result)                 \
    {                                                                                              \
        return reduce(handle, OP, n, x, incx, NULL, 0, result, sizeof(T), sizeof(R));              \
    }

/*
 * The exported forms for one element type T, whose letter is UP in most names and LO in amax's
 * and amin's, with sizes and increments of type I (int, or int64_t for the names ending in
 * SUFFIX, _64); each hands its arguments to the call above with the element's size.
 */
#define LEVEL1_API(UP, LO, T, I, SUFFIX)                                                           \
    REDUCE_API(cublasI##LO##amax_v2##SUFFIX, REDUCE_AMAX, T, I, I)                                 \
    REDUCE_API(cublasI##LO##amin_v2##SUFFIX, REDUCE_AMIN, T, I, I)                                 \
    REDUCE_API(cublas##UP##asum_v2##SUFFIX, REDUCE_ASUM, T, I, T)                                  \
    REDUCE_API(cublas##UP##nrm2_v2##SUFFIX, REDUCE_NRM2, T, I, T)                                  \
    cublasStatus_t cublas##UP##dot_v2##SUFFIX(cublasHandle_t handle, I n, const T *x, I incx,      \
                                              const T *y, I incy, T *result)                       \
    {                                                                                              \
        return reduce(handle, REDUCE_DOT, n, x, incx, y, incy, result, sizeof(T), sizeof(T));      \
    }                                                                                              \
    cublasStatus_t cublas##UP##axpy_v2##SUFFIX(cublasHandle_t handle, I n, const T *alpha,         \
                                               const T *x, I incx, T *y, I incy)                   \
    {                                                                                              \
        return pairwise(handle, PAIR_AXPY, n, (void *)x, incx, y, incy, alpha, NULL, sizeof(T));   \
    }                                                                                              \
    cublasStatus_t cublas##UP##copy_v2##SUFFIX(cublasHandle_t handle, I n, const T *x, I incx,     \
                                               T *y, I incy)                                       \
    {                                                                                              \
        return pairwise(handle, PAIR_COPY, n, (void *)x, incx, y, incy, NULL, NULL, sizeof(T));    \
    }                                                                                              \
    cublasStatus_t cublas##UP##swap_v2##SUFFIX(cublasHandle_t handle, I n, T *x, I incx, T *y,     \
                                               I incy)                                             \
    {                                                                                              \
        return pairwise(handle, PAIR_SWAP, n, x, incx, y, incy, NULL, NULL, sizeof(T));            \
    }                                                                                              \
    cublasStatus_t cublas##UP##rot_v2##SUFFIX(cublasHandle_t handle, I n, T *x, I incx, T *y,      \
                                              I incy, const T *c, const T *s)                      \
    {                                                                                              \
        return pairwise(handle, PAIR_ROT, n, x, incx, y, incy, c, s, sizeof(T));                   \
    }                                                                                              \
    cublasStatus_t cublas##UP##scal_v2##SUFFIX(cublasHandle_t handle, I n, const T *alpha, T *x,   \
                                               I incx)                                             \
    {                                                                                              \
        return scal(handle, n, alpha, x, incx, sizeof(T));                                         \
    }

LEVEL1_API(S, s, float, int, )
LEVEL1_API(D, d, double, int, )
LEVEL1_API(S, s, float, int64_t, _64)
LEVEL1_API(D, d, double, int64_t, _64)

/* Element @p i of @p v, of type @p t (fp16 and bf16 exactly, through the VM's conversions). */
static double vec_elem(const struct blas_vec *v, cudaDataType t, int64_t i)
{
    if (t == CUDA_R_32F || t == CUDA_R_64F)
        return blas_vec_get(v, i);
    return elem_load(v->p + (size_t)(v->rev ? v->n - 1 - i : i) * v->step, t, 0);
}

/* DotEx on real vectors: x, y and the result of one type (fp16, bf16, fp32 or fp64), computed in
 * fp32 or, for fp64, fp64 (executionType); accumulated in fp64 and rounded once to the result's
 * type, as Sdot and Ddot are. Any other types: one line, CUBLAS_STATUS_NOT_SUPPORTED. */
cublasStatus_t cublasDotEx(cublasHandle_t handle, int n, const void *x, cudaDataType xType,
                           int incx, const void *y, cudaDataType yType, int incy, void *result,
                           cudaDataType resultType, cudaDataType executionType)
{
    if (!blas_handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int real =
        xType == CUDA_R_16F || xType == CUDA_R_16BF || xType == CUDA_R_32F || xType == CUDA_R_64F;
    if (!real || yType != xType || resultType != xType ||
        executionType != (xType == CUDA_R_64F ? CUDA_R_64F : CUDA_R_32F)) {
        emu_say("cublasDotEx: x, y, result and execution types %d, %d, %d and %d are not emulated "
                "(CUBLAS_STATUS_NOT_SUPPORTED)",
                (int)xType, (int)yType, (int)resultType, (int)executionType);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (n > 0 && (incx == 0 || incy == 0))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n > 0 && course_emu_sticky_error())
        return CUBLAS_STATUS_EXECUTION_FAILED;
    size_t elem = elem_bytes(xType);
    struct blas_vec vx = blas_vec_of(x, n, incx, elem, "cublasDotEx, x");
    struct blas_vec vy = blas_vec_of(y, n, incy, elem, "cublasDotEx, y");
    if (n > 0 && (!vx.p || !vy.p))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    double acc = 0;
    for (int64_t i = 0; i < n; i++)
        acc += vec_elem(&vx, xType, i) * vec_elem(&vy, xType, i);
    return result_to(handle, result, xType, acc);
}
