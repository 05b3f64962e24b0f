/**
 * @file blas_wrap.h
 * @brief A library handle around a cuBLAS handle (cuBLASXt's, cuBLASLt's): made, checked and
 *        destroyed in one place.
 *
 * Such a handle's struct starts with a struct blas_wrap: a magic number that tells a live
 * handle of its library from anything else, and the cuBLAS handle its calls run on.
 */
#ifndef EMU_BLAS_WRAP_H
#define EMU_BLAS_WRAP_H

#include <cublas_v2.h>
#include <stdint.h>
#include <stdlib.h>

#include "alloc.h"

struct blas_wrap {
    uint32_t magic;      /**< the library's number while the handle lives, 0 after */
    cublasHandle_t blas; /**< the stand-in's cuBLAS handle the calls run on */
};

/** 1 when @p w is a live handle of the library whose number is @p magic. */
static inline int blas_wrap_ok(const struct blas_wrap *w, uint32_t magic)
{
    return w && w->magic == magic;
}

/** A new handle of @p size bytes (zeroed, then its struct blas_wrap set) around a new cuBLAS
 *  handle, or NULL with cublasCreate's status in *@p st. */
static inline void *blas_wrap_new(size_t size, uint32_t magic, cublasStatus_t *st)
{
    cublasHandle_t blas;
    *st = cublasCreate_v2(&blas);
    if (*st != CUBLAS_STATUS_SUCCESS)
        return NULL;
    struct blas_wrap *w = emu_calloc(1, size);
    *w = (struct blas_wrap){magic, blas};
    return w;
}

/** Destroy @p w and its cuBLAS handle; CUBLAS_STATUS_NOT_INITIALIZED for no live handle. */
static inline cublasStatus_t blas_wrap_free(struct blas_wrap *w, uint32_t magic)
{
    if (!blas_wrap_ok(w, magic))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasDestroy_v2(w->blas);
    w->magic = 0;
    free(w);
    return CUBLAS_STATUS_SUCCESS;
}

#endif /* EMU_BLAS_WRAP_H */
