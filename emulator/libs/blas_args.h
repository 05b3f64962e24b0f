/**
 * @file blas_args.h
 * @brief The cuBLAS stand-in's handle and arguments, shared by its files: a live handle, operands
 *        resolved to host memory against the allocation table, scalars read where the pointer
 *        mode says, fp32 and fp64 elements with each operation rounded once to their precision.
 *
 * cublas.c defines the handle's calls and the operands (blas_operand, blas_vec_of, blas_scalar).
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

#endif /* EMU_BLAS_ARGS_H */
