/**
 * @file blas_args.h
 * @brief The cuBLAS stand-in's handle and arguments, shared by its files: a live handle, operands
 *        resolved to host memory against the allocation table, scalars read where the pointer
 *        mode says, fp32 and fp64 elements with each operation rounded once to their precision,
 *        and the matrix-vector kernels of levels 2 and 3.
 *
 * cublas.c defines the handle's calls and the operands (blas_operand, blas_vec_of, blas_scalar);
 * cublas_level2.c the kernels (blas_op_mul, blas_op_solve), which the level 3 calls
 * (cublas_level3.c) run on each column or row of their matrices.
 */
#ifndef EMU_BLAS_ARGS_H
#define EMU_BLAS_ARGS_H

#include <cublas_v2.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "emu.h"

enum { BLAS_HANDLE_MAGIC = 0x43424c53 };

/** What cublasHandle_t points at. */
struct cublasContext {
    uint32_t magic; /**< BLAS_HANDLE_MAGIC while the handle lives, 0 after */
    cudaStream_t stream;
    cublasMath_t math;
    cublasPointerMode_t pointer_mode;
};

/** 1 when @p h is a live handle. */
static inline int blas_handle_ok(cublasHandle_t h)
{
    return h && h->magic == BLAS_HANDLE_MAGIC;
}

/* --- elements: fp32 or fp64 (elem 4 or 8), held in a double ---------------------------------- */

/** The element at host address @p at. */
static inline double blas_load(const char *at, size_t elem)
{
    return elem == 4 ? *(const float *)at : *(const double *)at;
}

/** Store @p v (already of the element's precision, or rounded here) at @p at. */
static inline void blas_store(char *at, size_t elem, double v)
{
    if (elem == 4)
        *(float *)at = (float)v;
    else
        *(double *)at = v;
}

/** @p v rounded to the element's precision. */
static inline double blas_round(size_t elem, double v)
{
    return elem == 4 ? (double)(float)v : v;
}

/** a * b + c, fused, rounded once to the element's precision (a, b, c of that precision). */
static inline double blas_fma(size_t elem, double a, double b, double c)
{
    return elem == 4 ? (double)fmaf((float)a, (float)b, (float)c) : fma(a, b, c);
}

/* --- operands (cublas.c) --------------------------------------------------------------------- */

/** One strided vector operand, resolved to host memory. */
struct blas_vec {
    char *p;     /**< host address of the element at the lowest address */
    size_t step; /**< bytes between elements */
    int64_t n;   /**< length */
    int rev;     /**< 1 when a negative increment walks it from its far end */
    size_t elem; /**< 4 (fp32) or 8 (fp64) */
};

/** Element @p i of @p v. */
static inline double blas_vec_get(const struct blas_vec *v, int64_t i)
{
    return blas_load(v->p + (size_t)(v->rev ? v->n - 1 - i : i) * v->step, v->elem);
}

/** Set element @p i of @p v to @p x. */
static inline void blas_vec_set(const struct blas_vec *v, int64_t i, double x)
{
    blas_store(v->p + (size_t)(v->rev ? v->n - 1 - i : i) * v->step, v->elem, x);
}

/**
 * Line @p index of the column-major matrix at host address @p a (leading dimension @p ld) as a
 * vector of @p n elements: column @p index, or with @p row, row @p index.
 */
static inline struct blas_vec blas_line(const void *a, int64_t ld, size_t elem, int64_t index,
                                        int64_t n, int row)
{
    size_t at = row ? (size_t)index : (size_t)index * (size_t)ld;
    return (struct blas_vec){(char *)a + at * elem, row ? (size_t)ld * elem : elem, n, 0, elem};
}

/**
 * The host address of a column-major operand of @p rows x @p cols with leading dimension
 * @p ld, checked against the allocation table; NULL (after the runtime said why) when it is
 * not inside one allocation. An empty operand is @p p itself.
 */
const void *blas_operand(const void *p, int64_t rows, int64_t cols, int64_t ld, size_t elem,
                         const char *who);

/** Record that the @p rows x @p cols matrix at device address @p dev was written from the host. */
void blas_matrix_wrote(const void *dev, int64_t rows, int64_t cols, int64_t ld, size_t elem);

/**
 * The host view of vector @p x of @p n elements of @p elem bytes with increment @p inc, or .p
 * NULL (after the runtime said why) when it is not inside one allocation.
 */
struct blas_vec blas_vec_of(const void *x, int64_t n, int64_t inc, size_t elem, const char *who);

/** Record that strided vector @p dev (@p v its host view) was written from the host. */
void blas_vec_wrote(const void *dev, const struct blas_vec *v);

/** What blas_start() answers when the call is to compute. */
enum { BLAS_GO = -1 };

/**
 * What a call with valid arguments does before it computes: CUBLAS_STATUS_SUCCESS when it has
 * nothing to do (@p empty), CUBLAS_STATUS_EXECUTION_FAILED when a fault left the device a sticky
 * error, BLAS_GO otherwise. The work queued before the call has run then, as the call must
 * follow it on the handle's stream.
 */
static inline int blas_start(int empty)
{
    if (empty)
        return CUBLAS_STATUS_SUCCESS;
    return course_emu_sticky_error() ? CUBLAS_STATUS_EXECUTION_FAILED : BLAS_GO;
}

/** Read scalar @p p (fp32 or fp64 by @p elem) from the host or, in device pointer mode, the
 *  device; -1 (after the runtime said why) when it is not device memory there. */
int blas_scalar(cublasHandle_t h, const void *p, size_t elem, double *out);

/* --- the kernels of levels 2 and 3 (cublas_level2.c) ----------------------------------------- */

/** 1 when trans, uplo, diag and side are values cuBLAS defines for a real matrix (a call that
 *  takes no such argument passes that type's 0). */
static inline int blas_modes_ok(cublasOperation_t trans, cublasFillMode_t uplo,
                                cublasDiagType_t diag, cublasSideMode_t side)
{
    return (trans == CUBLAS_OP_N || trans == CUBLAS_OP_T || trans == CUBLAS_OP_C) &&
           (uplo == CUBLAS_FILL_MODE_LOWER || uplo == CUBLAS_FILL_MODE_UPPER) &&
           (diag == CUBLAS_DIAG_NON_UNIT || diag == CUBLAS_DIAG_UNIT) &&
           (side == CUBLAS_SIDE_LEFT || side == CUBLAS_SIDE_RIGHT);
}

/** 1 when @p ld is a leading dimension a matrix of @p rows rows may have: max(1, rows) or more. */
static inline int blas_ld_ok(int64_t ld, int64_t rows)
{
    return ld >= (rows > 1 ? rows : 1);
}

/** Which elements of its matrix A a call reads. */
enum blas_shape {
    BLAS_GENERAL,    /**< all of A */
    BLAS_SYMMETRIC,  /**< one triangle of A, mirrored into the other */
    BLAS_TRIANGULAR, /**< one triangle of A, the other zero */
};

/** op(A) as a call reads it, in host memory. */
struct blas_op {
    const char *a; /**< host address of A(0, 0) */
    int64_t ld;
    size_t elem;
    enum blas_shape shape;
    int trans; /**< op(A) is A^T (GENERAL, TRIANGULAR) */
    int upper; /**< the triangle stored is A's upper one (SYMMETRIC, TRIANGULAR) */
    int unit;  /**< a unit diagonal, not read (TRIANGULAR) */
};

/** Element (@p i, @p j) of op(A); for a triangular A, only inside its triangle. */
static inline double blas_op_at(const struct blas_op *o, int64_t i, int64_t j)
{
    if (o->shape == BLAS_TRIANGULAR && o->unit && i == j)
        return 1.0;
    /* A(j, i) for a transposed A, or for the triangle a symmetric A does not store */
    int swap = o->shape == BLAS_SYMMETRIC ? (o->upper ? i > j : i < j) : o->trans;
    size_t r = (size_t)(swap ? j : i), c = (size_t)(swap ? i : j);
    return blas_load(o->a + (c * (size_t)o->ld + r) * o->elem, o->elem);
}

/** The triangular op(A) of trmv, trsv, trmm and trsm, but for its address. */
static inline struct blas_op blas_triangle(size_t elem, int64_t ld, cublasFillMode_t uplo,
                                           cublasOperation_t trans, cublasDiagType_t diag)
{
    struct blas_op o = {NULL, ld, elem, BLAS_TRIANGULAR, trans != CUBLAS_OP_N, 0, 0};
    o.upper = uplo == CUBLAS_FILL_MODE_UPPER;
    o.unit = diag == CUBLAS_DIAG_UNIT;
    return o;
}

/** 1 when a triangular op(A) is upper triangular (A's upper triangle, or its lower transposed). */
static inline int blas_op_upper(const struct blas_op *o)
{
    return o->upper != o->trans;
}

/**
 * y = alpha op(A) x + beta y, op(A) of y->n rows and x->n columns (only its triangle for a
 * triangular A): each element's products summed by fused multiply-adds in column order, alpha
 * times the sum rounded, then beta y added fused. A is not read when alpha is 0, nor y when beta
 * is 0; x may be y.
 */
void blas_op_mul(const struct blas_op *o, const struct blas_vec *x, double alpha, double beta,
                 const struct blas_vec *y);

/**
 * x = op(A)^-1 (alpha x) for a triangular op(A) of order x->n: alpha x rounded, then
 * substitution from the end of the triangle with one element in its row (an upper op(A)'s last,
 * a lower one's first); each row subtracts its known terms by fused multiply-adds in the order
 * they were found, then is divided by the diagonal (not a unit one). A zero on the diagonal
 * gives infinities or NaNs, as BLAS does. alpha 0 makes x 0 without reading A.
 */
void blas_op_solve(const struct blas_op *o, double alpha, const struct blas_vec *x);

#endif /* EMU_BLAS_ARGS_H */
