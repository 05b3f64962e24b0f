/**
 * @file cuda_check.h
 * @brief The course's one family of error-check macros.
 *
 * Every CUDA runtime call is wrapped in CUDA_CHECK, every launcher ends with
 * CUDA_CHECK_LAUNCH(), and library calls use CUBLAS_CHECK (and NCCL_CHECK where
 * nccl.h is included first). A failure prints file:line, the call as written,
 * the error's name and message, and exits: these are programming or system
 * errors, not results to judge.
 */
#ifndef CUDA_CHECK_H
#define CUDA_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

/** Run a CUDA runtime call; on failure print where and why, then exit. */
#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t cuda_check_err_ = (call);                                                      \
        if (cuda_check_err_ != cudaSuccess) {                                                      \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,              \
                    cudaGetErrorName(cuda_check_err_), cudaGetErrorString(cuda_check_err_));       \
            exit(EXIT_FAILURE);                                                                    \
        }                                                                                          \
    } while (0)

/**
 * Check the launch just made. Launch-configuration errors (too many threads,
 * too much shared memory) surface here; faults inside the kernel surface at
 * the next synchronising call. Launchers never synchronise.
 */
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

#ifdef CUBLAS_API_H_
/** Run a cuBLAS call; on failure print where and why, then exit. */
#define CUBLAS_CHECK(call)                                                                         \
    do {                                                                                           \
        cublasStatus_t cublas_check_st_ = (call);                                                  \
        if (cublas_check_st_ != CUBLAS_STATUS_SUCCESS) {                                           \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,              \
                    cublasGetStatusName(cublas_check_st_),                                         \
                    cublasGetStatusString(cublas_check_st_));                                      \
            exit(EXIT_FAILURE);                                                                    \
        }                                                                                          \
    } while (0)
#endif

#ifdef NCCL_MAJOR
/** Run an NCCL call; on failure print where and why, then exit. */
#define NCCL_CHECK(call)                                                                           \
    do {                                                                                           \
        ncclResult_t nccl_check_res_ = (call);                                                     \
        if (nccl_check_res_ != ncclSuccess) {                                                      \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                   \
                    ncclGetErrorString(nccl_check_res_));                                          \
            exit(EXIT_FAILURE);                                                                    \
        }                                                                                          \
    } while (0)
#endif

#endif /* CUDA_CHECK_H */
