/**
 * @file cublas_lu.c
 * @brief The cuBLAS stand-in's batched LU, on the host: cublas{S,D}getrfBatched factors each
 *        matrix, cublas{S,D}getriBatched inverts it from those factors.
 *
 * getrf factors P A = L U as LAPACK's unblocked getf2 does: for column k the pivot is the first
 * row of largest magnitude on or below the diagonal (none when P is NULL), the rows are swapped
 * across the whole matrix, the column below the diagonal is divided by the pivot and the trailing
 * matrix takes one fused multiply-add per element. L (unit diagonal, not stored) and U overwrite
 * A, P gets the 1-based pivot rows and info the 1-based column of the first zero pivot (0 when
 * none; the factorisation goes on past it without dividing). getri solves L U X = P I column by
 * column into C (out of place, as cuBLAS requires); info names the first zero on U's diagonal,
 * and C is then not written. fp32 rounds every operation to fp32 (fma as fmaf), fp64 keeps
 * fp64. The arrays of pointers, P and info live in device memory, as cuBLAS requires.
 */
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "blas_args.h"
#include "emu.h"
#include "say.h"

/** One batched call, its device arrays resolved to host addresses. */
struct lu_call {
    int n, lda, ldc, batch;
    size_t elem;     /**< 4 (fp32) or 8 (fp64) */
    void *const *a;  /**< host view of the array of A pointers (device addresses) */
    void *const *c;  /**< the same for C (getri), NULL for getrf */
    int *piv, *info; /**< host views; piv NULL when P is */
    const char *who; /**< the function, for the runtime's error line */
};

/* Copy the n x n matrix at host address @p p (leading dimension @p ld) into dense @p w, or back. */
static void copy_matrix(void *p, int n, int ld, size_t elem, double *w, int to_w)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            size_t at = (size_t)j * ld + i;
            double *x = &w[(size_t)j * n + i];
            if (to_w)
                *x = elem == 4 ? ((float *)p)[at] : ((double *)p)[at];
            else if (elem == 4)
                ((float *)p)[at] = (float)*x;
            else
                ((double *)p)[at] = *x;
        }
}

/* Swap rows @p r and @p s of the dense n x n @p w. */
static void swap_rows(double *w, int n, int r, int s)
{
    for (int j = 0; j < n && r != s; j++) {
        double t = w[(size_t)j * n + r];
        w[(size_t)j * n + r] = w[(size_t)j * n + s];
        w[(size_t)j * n + s] = t;
    }
}

/* Factor dense @p w in place (getf2); @p piv (NULL: no pivoting) gets 1-based rows. Returns
 * info. */
static int factor(double *w, int n, int *piv, size_t elem)
{
    int info = 0;
    for (int k = 0; k < n; k++) {
        double *col = &w[(size_t)k * n];
        if (piv) {
            int p = k;
            for (int i = k + 1; i < n; i++)
                p = fabs(col[i]) > fabs(col[p]) ? i : p;
            piv[k] = p + 1;
            swap_rows(w, n, k, p);
        }
        if (col[k] == 0)
            info = info ? info : k + 1;
        for (int i = k + 1; i < n && col[k] != 0; i++)
            col[i] = blas_round(elem, col[i] / col[k]);
        for (int j = k + 1; j < n; j++) /* trailing update: A22 -= l21 u12 */
            for (int i = k + 1; i < n; i++)
                w[(size_t)j * n + i] =
                    blas_fma(elem, -col[i], w[(size_t)j * n + k], w[(size_t)j * n + i]);
    }
    return info;
}

/* The inverse of the matrix whose factors are dense @p w into dense @p x, column by column. */
static void invert(const double *w, int n, const int *piv, size_t elem, double *x)
{
    for (int j = 0; j < n; j++) {
        double *b = &x[(size_t)j * n];
        for (int i = 0; i < n; i++)
            b[i] = i == j;
        for (int k = 0; k < n && piv; k++) { /* b = P e_j, the swaps in getrf's order */
            double t = b[k];
            b[k] = b[piv[k] - 1];
            b[piv[k] - 1] = t;
        }
        for (int i = 0; i < n; i++) /* L y = b, unit diagonal */
            for (int k = 0; k < i; k++)
                b[i] = blas_fma(elem, -w[(size_t)k * n + i], b[k], b[i]);
        for (int i = n - 1; i >= 0; i--) { /* U x = y */
            for (int k = i + 1; k < n; k++)
                b[i] = blas_fma(elem, -w[(size_t)k * n + i], b[k], b[i]);
            b[i] = blas_round(elem, b[i] / w[(size_t)i * n + i]);
        }
    }
}

/* The host address of the n x n matrix at device address @p dev with leading dimension @p ld. */
static void *matrix_at(const struct lu_call *c, const void *dev, int ld)
{
    size_t extent = ((size_t)ld * (size_t)(c->n - 1) + (size_t)c->n) * c->elem;
    return course_emu_host(dev, extent, c->who);
}

/* Matrix @p i of the call: factor it (getrf) or invert it into C (getri). 0, or -1 (after a line
 * on stderr) when one of its matrices is not device memory or a pivot is out of range. */
static int one_matrix(const struct lu_call *c, int i, double *w, double *x)
{
    void *a = matrix_at(c, c->a[i], c->lda);
    void *out = c->c ? matrix_at(c, c->c[i], c->ldc) : NULL;
    if (!a || (c->c && !out))
        return -1;
    int *piv = c->piv ? c->piv + (size_t)i * c->n : NULL;
    copy_matrix(a, c->n, c->lda, c->elem, w, 1);
    if (!c->c) {
        c->info[i] = factor(w, c->n, piv, c->elem);
        copy_matrix(a, c->n, c->lda, c->elem, w, 0);
        blas_matrix_wrote(c->a[i], c->n, c->n, c->lda, c->elem);
        return 0;
    }
    for (int k = 0; k < c->n && piv; k++)
        if (piv[k] < 1 || piv[k] > c->n) {
            emu_say("%s: pivot %d of matrix %d is %d, outside 1..%d", c->who, k + 1, i, piv[k],
                    c->n);
            return -1;
        }
    c->info[i] = 0;
    for (int k = c->n - 1; k >= 0; k--)
        c->info[i] = w[(size_t)k * c->n + k] == 0 ? k + 1 : c->info[i];
    if (c->info[i] == 0) {
        invert(w, c->n, piv, c->elem, x);
        copy_matrix(out, c->n, c->ldc, c->elem, x, 0);
        blas_matrix_wrote(c->c[i], c->n, c->n, c->ldc, c->elem);
    }
    return 0;
}

/* Check and resolve a call's arguments, then run it on every matrix of the batch. */
static cublasStatus_t lu_batched(cublasHandle_t h, struct lu_call c, const void *A, const void *C,
                                 const int *P, int *info)
{
    cudaStream_t s;
    if (cublasGetStream_v2(h, &s) != CUBLAS_STATUS_SUCCESS)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int least = c.n > 1 ? c.n : 1;
    if (c.n < 0 || c.batch < 0 || c.lda < least || (C && c.ldc < least))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (c.n == 0 || c.batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (course_emu_sticky_error())
        return CUBLAS_STATUS_EXECUTION_FAILED;
    size_t ptrs = (size_t)c.batch * sizeof(void *), ints = (size_t)c.batch * sizeof(int);
    c.a = course_emu_host(A, ptrs, c.who);
    c.c = C ? course_emu_host(C, ptrs, c.who) : NULL;
    c.piv = P ? course_emu_host(P, ints * (size_t)c.n, c.who) : NULL;
    c.info = course_emu_host(info, ints, c.who);
    if (!c.a || (C && !c.c) || (P && !c.piv) || !c.info)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    double *w = emu_malloc(2 * (size_t)c.n * c.n * sizeof *w);
    int bad = 0;
    for (int i = 0; i < c.batch && !bad; i++)
        bad = one_matrix(&c, i, w, w + (size_t)c.n * c.n);
    free(w);
    if (P && !C)
        course_emu_wrote(P, ints * (size_t)c.n);
    course_emu_wrote(info, ints);
    return bad ? CUBLAS_STATUS_EXECUTION_FAILED : CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgetrfBatched(cublasHandle_t handle, int n, float *const A[], int lda, int *P,
                                   int *info, int batchSize)
{
    struct lu_call c = {n, lda, 0, batchSize, 4, NULL, NULL, NULL, NULL, "cublasSgetrfBatched"};
    return lu_batched(handle, c, A, NULL, P, info);
}

cublasStatus_t cublasDgetrfBatched(cublasHandle_t handle, int n, double *const A[], int lda, int *P,
                                   int *info, int batchSize)
{
    struct lu_call c = {n, lda, 0, batchSize, 8, NULL, NULL, NULL, NULL, "cublasDgetrfBatched"};
    return lu_batched(handle, c, A, NULL, P, info);
}

cublasStatus_t cublasSgetriBatched(cublasHandle_t handle, int n, const float *const A[], int lda,
                                   const int *P, float *const C[], int ldc, int *info,
                                   int batchSize)
{
    struct lu_call c = {n, lda, ldc, batchSize, 4, NULL, NULL, NULL, NULL, "cublasSgetriBatched"};
    return lu_batched(handle, c, A, C, P, info);
}

cublasStatus_t cublasDgetriBatched(cublasHandle_t handle, int n, const double *const A[], int lda,
                                   const int *P, double *const C[], int ldc, int *info,
                                   int batchSize)
{
    struct lu_call c = {n, lda, ldc, batchSize, 8, NULL, NULL, NULL, NULL, "cublasDgetriBatched"};
    return lu_batched(handle, c, A, C, P, info);
}
