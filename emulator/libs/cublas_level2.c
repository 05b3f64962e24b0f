/**
 * @file cublas_level2.c
 * @brief The cuBLAS stand-in's level 2 in fp32 and fp64 (S and D), with int and 64-bit (_64)
 *        sizes: gemv, ger, symv, trmv and trsv, on the host; and the two kernels level 3 runs
 *        on each column or row of its matrices (blas_op_mul, blas_op_solve).
 *
 *   gemv  y = alpha op(A) x + beta y      A m x n
 *   ger   A = alpha x y^T + A             A m x n
 *   symv  y = alpha A x + beta y          A n x n symmetric, read from its uplo triangle
 *   trmv  x = op(A) x                     A n x n triangular (uplo), unit diagonal or not (diag)
 *   trsv  x = op(A)^-1 x                  the same
 *
 * Column-major with leading dimensions; op(A) is A for CUBLAS_OP_N and A^T for CUBLAS_OP_T and
 * CUBLAS_OP_C (real data). A negative increment walks its vector from the far end, as BLAS
 * says; a zero one is CUBLAS_STATUS_INVALID_VALUE, as a leading dimension under max(1, rows)
 * is. The triangle a call does not read, and a unit diagonal, may hold anything. y is not read
 * when beta is 0, A not when alpha is 0. Arithmetic in the type's precision: each product
 * summed by a fused multiply-add, in column order (blas_args.h says where each rounding falls).
 */
#include <cublas_v2.h>
#include <stdint.h>
#include <stdlib.h>

#include "alloc.h"
#include "blas_args.h"
#include "emu.h"

/* --- the kernels ----------------------------------------------------------------------------- */

void blas_op_mul(const struct blas_op *o, const struct blas_vec *x, double alpha, double beta,
                 const struct blas_vec *y)
{
    int64_t rows = y->n, cols = x->n;
    int tri = o->shape == BLAS_TRIANGULAR, upper = blas_op_upper(o);
    double *xs = emu_malloc((size_t)cols * sizeof *xs), *w = emu_calloc((size_t)rows, sizeof *w);
    for (int64_t p = 0; p < cols; p++) /* a copy first: x may be y */
        xs[p] = blas_vec_get(x, p);
    for (int64_t p = 0; p < cols && alpha != 0; p++) {
        /* column p of op(A): rows 0..p of an upper triangle, p..rows-1 of a lower one */
        int64_t lo = tri && !upper ? p : 0, hi = tri && upper ? p + 1 : rows;
        for (int64_t i = lo; i < hi; i++)
            w[i] = blas_fma(o->elem, blas_op_at(o, i, p), xs[p], w[i]);
    }
    for (int64_t i = 0; i < rows; i++) {
        double t = blas_round(o->elem, alpha * w[i]);
        blas_vec_set(y, i, beta != 0 ? blas_fma(o->elem, beta, blas_vec_get(y, i), t) : t);
    }
    free(xs);
    free(w);
}

void blas_op_solve(const struct blas_op *o, double alpha, const struct blas_vec *x)
{
    int64_t n = x->n;
    int upper = blas_op_upper(o);
    double *xs = emu_malloc((size_t)n * sizeof *xs);
    for (int64_t i = 0; i < n; i++)
        xs[i] = alpha != 0 ? blas_round(o->elem, alpha * blas_vec_get(x, i)) : 0;
    for (int64_t k = 0; k < n && alpha != 0; k++) {
        /* the unknowns in the order substitution finds them: an upper triangle's from the last
         * up, a lower one's from the first down; each found one is taken from the rows still
         * unknown at once, so every row subtracts its terms in that order */
        int64_t p = upper ? n - 1 - k : k, lo = upper ? 0 : p + 1, hi = upper ? p : n;
        if (!o->unit)
            xs[p] = blas_round(o->elem, xs[p] / blas_op_at(o, p, p));
        for (int64_t i = lo; i < hi; i++)
            xs[i] = blas_fma(o->elem, -blas_op_at(o, i, p), xs[p], xs[i]);
    }
    for (int64_t i = 0; i < n; i++)
        blas_vec_set(x, i, xs[i]);
    free(xs);
}

/* --- the calls ------------------------------------------------------------------------------- */

/* y = alpha op(A) x + beta y for gemv and symv: @p o is op(A) but for its address, A (m x n at
 * device address @p A). */
static cublasStatus_t matvec(cublasHandle_t h, struct blas_op *o, int64_t m, int64_t n,
                             const void *alpha, const void *A, const void *x, int64_t incx,
                             const void *beta, void *y, int64_t incy, const char *who)
{
    int st = blas_start(m == 0 || n == 0);
    if (st != BLAS_GO)
        return st;
    double al, be;
    o->a = blas_operand(A, m, n, o->ld, o->elem, who);
    struct blas_vec vx = blas_vec_of(x, o->trans ? m : n, incx, o->elem, who);
    struct blas_vec vy = blas_vec_of(y, o->trans ? n : m, incy, o->elem, who);
    if (!o->a || !vx.p || !vy.p || blas_scalar(h, alpha, o->elem, &al) ||
        blas_scalar(h, beta, o->elem, &be))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    blas_op_mul(o, &vx, al, be, &vy);
    blas_vec_wrote(y, &vy);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t trans, int64_t m, int64_t n,
                           const void *alpha, const void *A, int64_t lda, const void *x,
                           int64_t incx, const void *beta, void *y, int64_t incy, size_t elem)
{
    if (!blas_handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || !blas_ld_ok(lda, m) || incx == 0 || incy == 0 ||
        !blas_modes_ok(trans, 0, 0, 0))
        return CUBLAS_STATUS_INVALID_VALUE;
    struct blas_op o = {NULL, lda, elem, BLAS_GENERAL, trans != CUBLAS_OP_N, 0, 0};
    return matvec(h, &o, m, n, alpha, A, x, incx, beta, y, incy, "cuBLAS gemv");
}

static cublasStatus_t symv(cublasHandle_t h, cublasFillMode_t uplo, int64_t n, const void *alpha,
                           const void *A, int64_t lda, const void *x, int64_t incx,
                           const void *beta, void *y, int64_t incy, size_t elem)
{
    if (!blas_handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n < 0 || !blas_ld_ok(lda, n) || incx == 0 || incy == 0 || !blas_modes_ok(0, uplo, 0, 0))
        return CUBLAS_STATUS_INVALID_VALUE;
    struct blas_op o = {NULL, lda, elem, BLAS_SYMMETRIC, 0, uplo == CUBLAS_FILL_MODE_UPPER, 0};
    return matvec(h, &o, n, n, alpha, A, x, incx, beta, y, incy, "cuBLAS symv");
}

/* x = op(A) x (trmv) or, with @p solve, op(A)^-1 x (trsv). */
static cublasStatus_t triangular(cublasHandle_t h, int solve, cublasFillMode_t uplo,
                                 cublasOperation_t trans, cublasDiagType_t diag, int64_t n,
                                 const void *A, int64_t lda, void *x, int64_t incx, size_t elem)
{
    if (!blas_handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n < 0 || !blas_ld_ok(lda, n) || incx == 0 || !blas_modes_ok(trans, uplo, diag, 0))
        return CUBLAS_STATUS_INVALID_VALUE;
    int st = blas_start(n == 0);
    if (st != BLAS_GO)
        return st;
    const char *who = solve ? "cuBLAS trsv" : "cuBLAS trmv";
    struct blas_op o = blas_triangle(elem, lda, uplo, trans, diag);
    o.a = blas_operand(A, n, n, lda, elem, who);
    struct blas_vec vx = blas_vec_of(x, n, incx, elem, who);
    if (!o.a || !vx.p)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    if (solve)
        blas_op_solve(&o, 1, &vx);
    else
        blas_op_mul(&o, &vx, 1, 0, &vx);
    blas_vec_wrote(x, &vx);
    return CUBLAS_STATUS_SUCCESS;
}

/* A = alpha x y^T + A: each element one fused multiply-add of x[i] and alpha y[j] (rounded). */
static cublasStatus_t ger(cublasHandle_t h, int64_t m, int64_t n, const void *alpha, const void *x,
                          int64_t incx, const void *y, int64_t incy, void *A, int64_t lda,
                          size_t elem)
{
    if (!blas_handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || incx == 0 || incy == 0 || !blas_ld_ok(lda, m))
        return CUBLAS_STATUS_INVALID_VALUE;
    int st = blas_start(m == 0 || n == 0);
    if (st != BLAS_GO)
        return st;
    double al;
    const void *a = blas_operand(A, m, n, lda, elem, "cuBLAS ger, A");
    struct blas_vec vx = blas_vec_of(x, m, incx, elem, "cuBLAS ger, x");
    struct blas_vec vy = blas_vec_of(y, n, incy, elem, "cuBLAS ger, y");
    if (!a || !vx.p || !vy.p || blas_scalar(h, alpha, elem, &al))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    for (int64_t j = 0; j < n && al != 0; j++) {
        struct blas_vec col = blas_line(a, lda, elem, j, m, 0);
        double t = blas_round(elem, al * blas_vec_get(&vy, j));
        for (int64_t i = 0; i < m; i++)
            blas_vec_set(&col, i, blas_fma(elem, blas_vec_get(&vx, i), t, blas_vec_get(&col, i)));
    }
    if (al != 0)
        blas_matrix_wrote(A, m, n, lda, elem);
    return CUBLAS_STATUS_SUCCESS;
}

/* One exported triangular call (trmv, or with SOLVE trsv), named NAME. */
#define TRIANGULAR_API(NAME, SOLVE, T, I)                                                          \
    cublasStatus_t NAME(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,     \
                        cublasDiagType_t diag, I n, const T *A, I lda, T *x, I incx)               \
    {                                                                                              \
        return triangular(handle, SOLVE, uplo, trans, diag, n, A, lda, x, incx, sizeof(T));        \
    }

/*
 * The exported forms for one element type T, whose letter is X, with sizes and increments of
 * type I (int, or int64_t for the names ending in SUFFIX, _64); each hands its arguments to the
 * call above with the element's size.
 */
#define LEVEL2_API(X, T, I, SUFFIX)                                                                \
    cublasStatus_t cublas##X##gemv_v2##SUFFIX(cublasHandle_t handle, cublasOperation_t trans, I m, \
                                              I n, const T *alpha, const T *A, I lda, const T *x,  \
                                              I incx, const T *beta, T *y, I incy)                 \
    {                                                                                              \
        return gemv(handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy, sizeof(T));        \
    }                                                                                              \
    cublasStatus_t cublas##X##ger_v2##SUFFIX(cublasHandle_t handle, I m, I n, const T *alpha,      \
                                             const T *x, I incx, const T *y, I incy, T *A, I lda)  \
    {                                                                                              \
        return ger(handle, m, n, alpha, x, incx, y, incy, A, lda, sizeof(T));                      \
    }                                                                                              \
    cublasStatus_t cublas##X##symv_v2##SUFFIX(cublasHandle_t handle, cublasFillMode_t uplo, I n,   \
                                              const T *alpha, const T *A, I lda, const T *x,       \
                                              I incx, const T *beta, T *y, I incy)                 \
    {                                                                                              \
        return symv(handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy, sizeof(T));            \
    }                                                                                              \
    TRIANGULAR_API(cublas##X##trmv_v2##SUFFIX, 0, T, I)                                            \
    TRIANGULAR_API(cublas##X##trsv_v2##SUFFIX, 1, T, I)

LEVEL2_API(S, float, int, )
LEVEL2_API(D, double, int, )
LEVEL2_API(S, float, int64_t, _64)
LEVEL2_API(D, double, int64_t, _64)
