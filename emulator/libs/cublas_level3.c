/**
 * @file cublas_level3.c
 * @brief The cuBLAS stand-in's level 3 beside GEMM in fp32 and fp64 (S and D), with int and
 *        64-bit (_64) sizes: symm, syrk, trmm and trsm, on the host.
 *
 *   symm  C = alpha A B + beta C (side left) or alpha B A + beta C (right)   A symmetric (uplo)
 *   syrk  C = alpha op(A) op(A)^T + beta C, only C's uplo triangle          op(A) n x k
 *   trmm  C = alpha op(A) B (left) or alpha B op(A) (right)                 A triangular (uplo,
 *   trsm  B = alpha op(A)^-1 B (left) or alpha B op(A)^-1 (right)             diag)
 *
 * B and C are m x n, A m x m on the left and n x n on the right; column-major with leading
 * dimensions, op(A) A or A^T (CUBLAS_OP_T and CUBLAS_OP_C: real data). trmm is cuBLAS's
 * out-of-place form, which writes C, not B; C may be B (with ldc = ldb), BLAS's in-place form.
 *
 * Each column of B (side left) or row (side right, where B op(A) is row by row op(A)^T times
 * the row) goes through level 2's kernels, so each element is what symv, trmv or trsv make of
 * its line: products summed by fused multiply-adds in column order, in the type's precision
 * (blas_args.h). syrk's column j is gemv's alpha op(A) times row j of op(A), over the rows of
 * C's triangle. A is not read when alpha is 0, C not when beta is 0; the triangle a call does
 * not read, and a unit diagonal, may hold anything.
 */
#include <cublas_v2.h>
#include <stdint.h>

#include "blas_args.h"
#include "emu.h"

/*
 * symm, trmm (C not NULL) and trsm (C NULL: it solves in B): @p o is op(A) but for its address,
 * B and C m x n at device addresses; each line of B through op(A), C's line =
 * alpha op(A) B's line + beta C's (trmm: no beta), or B's line = op(A)^-1 alpha B's line.
 */
static cublasStatus_t by_lines(cublasHandle_t h, struct blas_op *o, int right, int64_t m, int64_t n,
                               const void *alpha, const void *A, const void *B, int64_t ldb,
                               const void *beta, void *C, int64_t ldc, const char *who)
{
    int st = blas_start(m == 0 || n == 0);
    if (st != BLAS_GO)
        return st;
    int64_t order = right ? n : m;
    double al, be = 0;
    o->a = blas_operand(A, order, order, o->ld, o->elem, who);
    const void *b = blas_operand(B, m, n, ldb, o->elem, who);
    const void *c = C ? blas_operand(C, m, n, ldc, o->elem, who) : NULL;
    if (!o->a || !b || (C && !c) || blas_scalar(h, alpha, o->elem, &al) ||
        (beta && blas_scalar(h, beta, o->elem, &be)))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    o->trans ^= right; /* (B op(A))'s row i is op(A)^T times B's row i */
    for (int64_t j = 0; j < (right ? m : n); j++) {
        struct blas_vec bj = blas_line(b, ldb, o->elem, j, order, right);
        if (C) {
            struct blas_vec cj = blas_line(c, ldc, o->elem, j, order, right);
            blas_op_mul(o, &bj, al, be, &cj);
        } else {
            blas_op_solve(o, al, &bj);
        }
    }
    blas_matrix_wrote(C ? C : B, m, n, C ? ldc : ldb, o->elem);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t symm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,
                           int64_t m, int64_t n, const void *alpha, const void *A, int64_t lda,
                           const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                           size_t elem)
{
    if (!blas_handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int right = side == CUBLAS_SIDE_RIGHT;
    if (m < 0 || n < 0 || !blas_ld_ok(lda, right ? n : m) || !blas_ld_ok(ldb, m) ||
        !blas_ld_ok(ldc, m) || !blas_modes_ok(0, uplo, 0, side))
        return CUBLAS_STATUS_INVALID_VALUE;
    struct blas_op o = {NULL, lda, elem, BLAS_SYMMETRIC, 0, uplo == CUBLAS_FILL_MODE_UPPER, 0};
    return by_lines(h, &o, right, m, n, alpha, A, B, ldb, beta, C, ldc, "cuBLAS symm");
}

/* trmm (C = alpha op(A) B or alpha B op(A)), or with @p solve trsm (in B, C NULL). */
static cublasStatus_t triangular(cublasHandle_t h, int solve, cublasSideMode_t side,
                                 cublasFillMode_t uplo, cublasOperation_t trans,
                                 cublasDiagType_t diag, int64_t m, int64_t n, const void *alpha,
                                 const void *A, int64_t lda, const void *B, int64_t ldb, void *C,
                                 int64_t ldc, size_t elem)
{
    if (!blas_handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int right = side == CUBLAS_SIDE_RIGHT;
    if (m < 0 || n < 0 || !blas_ld_ok(lda, right ? n : m) || !blas_ld_ok(ldb, m) ||
        (!solve && !blas_ld_ok(ldc, m)) || !blas_modes_ok(trans, uplo, diag, side))
        return CUBLAS_STATUS_INVALID_VALUE;
    struct blas_op o = blas_triangle(elem, lda, uplo, trans, diag);
    return by_lines(h, &o, right, m, n, alpha, A, B, ldb, NULL, solve ? NULL : C, ldc,
                    solve ? "cuBLAS trsm" : "cuBLAS trmm");
}

static cublasStatus_t syrk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,
                           int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                           const void *beta, void *C, int64_t ldc, size_t elem)
{
    if (!blas_handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int t = trans != CUBLAS_OP_N, upper = uplo == CUBLAS_FILL_MODE_UPPER;
    if (n < 0 || k < 0 || !blas_ld_ok(lda, t ? k : n) || !blas_ld_ok(ldc, n) ||
        !blas_modes_ok(trans, uplo, 0, 0))
        return CUBLAS_STATUS_INVALID_VALUE;
    int st = blas_start(n == 0);
    if (st != BLAS_GO)
        return st;
    double al, be;
    const char *a = blas_operand(A, t ? k : n, t ? n : k, lda, elem, "cuBLAS syrk, A");
    char *c = (char *)blas_operand(C, n, n, ldc, elem, "cuBLAS syrk, C");
    if ((!a && k > 0) || !c || blas_scalar(h, alpha, elem, &al) || blas_scalar(h, beta, elem, &be))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    if (k == 0) /* A has no elements: C's address stands in for it, never read */
        a = c;
    for (int64_t j = 0; j < n; j++) {
        /* column j of C's triangle, rows lo..hi-1, is alpha op(A)(lo..hi-1, :) op(A)(j, :)^T
         * + beta C: the rows of op(A) from lo on start at A(lo, 0), or at A(0, lo) for A^T */
        int64_t lo = upper ? 0 : j, hi = upper ? j + 1 : n;
        size_t first = t ? (size_t)lo * (size_t)lda : (size_t)lo;
        struct blas_op rows = {a + first * elem, lda, elem, BLAS_GENERAL, t, 0, 0};
        struct blas_vec aj = blas_line(a, lda, elem, j, k, !t);
        struct blas_vec cj = blas_line(c + (size_t)lo * elem, ldc, elem, j, hi - lo, 0);
        blas_op_mul(&rows, &aj, al, be, &cj);
        course_emu_wrote((char *)C + ((size_t)j * (size_t)ldc + (size_t)lo) * elem,
                         (size_t)(hi - lo) * elem);
    }
    return CUBLAS_STATUS_SUCCESS;
}

/*
 * The exported forms for one element type T, whose letter is X, with sizes of type I (int, or
 * int64_t for the names ending in SUFFIX, _64); each hands its arguments to the call above with
 * the element's size.
 */
#define LEVEL3_API(X, T, I, SUFFIX)                                                                \
    cublasStatus_t cublas##X##symm_v2##SUFFIX(                                                     \
        cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, I m, I n,             \
        const T *alpha, const T *A, I lda, const T *B, I ldb, const T *beta, T *C, I ldc)          \
    {                                                                                              \
        return symm(handle, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc, sizeof(T));     \
    }                                                                                              \
    cublasStatus_t cublas##X##syrk_v2##SUFFIX(cublasHandle_t handle, cublasFillMode_t uplo,        \
                                              cublasOperation_t trans, I n, I k, const T *alpha,   \
                                              const T *A, I lda, const T *beta, T *C, I ldc)       \
    {                                                                                              \
        return syrk(handle, uplo, trans, n, k, alpha, A, lda, beta, C, ldc, sizeof(T));            \
    }                                                                                              \
    cublasStatus_t cublas##X##trmm_v2##SUFFIX(cublasHandle_t handle, cublasSideMode_t side,        \
                                              cublasFillMode_t uplo, cublasOperation_t trans,      \
                                              cublasDiagType_t diag, I m, I n, const T *alpha,     \
                                              const T *A, I lda, const T *B, I ldb, T *C, I ldc)   \
    {                                                                                              \
        return triangular(handle, 0, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, C, ldc, \
                          sizeof(T));                                                              \
    }                                                                                              \
    cublasStatus_t cublas##X##trsm_v2##SUFFIX(cublasHandle_t handle, cublasSideMode_t side,        \
                                              cublasFillMode_t uplo, cublasOperation_t trans,      \
                                              cublasDiagType_t diag, I m, I n, const T *alpha,     \
                                              const T *A, I lda, T *B, I ldb)                      \
    {                                                                                              \
        return triangular(handle, 1, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, NULL,   \
                          0, sizeof(T));                                                           \
    }

LEVEL3_API(S, float, int, )
LEVEL3_API(D, double, int, )
LEVEL3_API(S, float, int64_t, _64)
LEVEL3_API(D, double, int64_t, _64)
