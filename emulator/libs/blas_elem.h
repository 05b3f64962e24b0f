/**
 * @file blas_elem.h
 * @brief Elements of the cuBLAS and cuBLASLt stand-ins' matrices (fp32, fp16, bf16): their
 *        size, and reading and writing them with the VM's conversions (vm/fp.h); writing fp64
 *        too, and GemmEx's fp64 and int8 operands' size.
 */
#ifndef EMU_BLAS_ELEM_H
#define EMU_BLAS_ELEM_H

#include <library_types.h>
#include <stddef.h>
#include <stdint.h>

#include "fp.h"

/** Bytes of one element of type @p t (CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF; GemmEx's
 *  CUDA_R_64F, CUDA_R_8I and CUDA_R_32I too, and level 1's 64-bit indices, CUDA_R_64I). */
static inline size_t elem_bytes(cudaDataType t)
{
    return t == CUDA_R_64F || t == CUDA_R_64I   ? 8
           : t == CUDA_R_8I                     ? 1
           : t == CUDA_R_32F || t == CUDA_R_32I ? 4
                                                : 2;
}

/** Element @p i of array @p p of type @p t, exactly, as a float. */
static inline float elem_load(const void *p, cudaDataType t, size_t i)
{
    return t == CUDA_R_32F   ? ((const float *)p)[i]
           : t == CUDA_R_16F ? fp_f16_to_f32(((const uint16_t *)p)[i])
                             : fp_bf16_to_f32(((const uint16_t *)p)[i]);
}

/** Store @p v as element @p i of array @p p of type @p t (CUDA_R_64F too), rounded once to
 *  nearest even. */
static inline void elem_store(void *p, cudaDataType t, size_t i, double v)
{
    if (t == CUDA_R_64F)
        ((double *)p)[i] = v;
    else if (t == CUDA_R_32F)
        ((float *)p)[i] = (float)v;
    else
        ((uint16_t *)p)[i] =
            (uint16_t)fp_round_rn_narrow(v, t == CUDA_R_16F ? FMT_F16 : FMT_BF16, 0);
}

#endif /* EMU_BLAS_ELEM_H */
