/**
 * @file cublaslt_unsupported.c
 * @brief The cuBLASLt stand-in: every other function CUDA 13's cublasLt.h declares, answered
 *        with CUBLAS_STATUS_NOT_SUPPORTED and one line naming it.
 *
 * A program that calls one of these (matrix transforms, algorithm enumeration and
 * configuration, attribute reads, emulation descriptors, the heuristics cache, loggers) must not
 * die at load time for a missing symbol: it gets an error it can report.
 * emulator.conformance.every_cublas_function_exported reads cublasLt.h at test time and fails when
 * a function declared there is exported neither here nor by cublaslt.c.
 *
 * It includes no cuBLAS header on purpose (blas_unsupported.h says why).
 */
#include "blas_unsupported.h"

/* --- cublasLt.h ------------------------------------------------------------------------------ */

UNSUPPORTED(cublasLtEmulationDescCreate)
UNSUPPORTED(cublasLtEmulationDescDestroy)
UNSUPPORTED(cublasLtEmulationDescGetAttribute)
UNSUPPORTED(cublasLtEmulationDescInit_internal)
UNSUPPORTED(cublasLtEmulationDescSetAttribute)
UNSUPPORTED(cublasLtHeuristicsCacheGetCapacity)
UNSUPPORTED(cublasLtHeuristicsCacheSetCapacity)
UNSUPPORTED(cublasLtLoggerForceDisable)
UNSUPPORTED(cublasLtLoggerOpenFile)
UNSUPPORTED(cublasLtLoggerSetCallback)
UNSUPPORTED(cublasLtLoggerSetFile)
UNSUPPORTED(cublasLtLoggerSetLevel)
UNSUPPORTED(cublasLtLoggerSetMask)
UNSUPPORTED(cublasLtMatmulAlgoCapGetAttribute)
UNSUPPORTED(cublasLtMatmulAlgoCheck)
UNSUPPORTED(cublasLtMatmulAlgoConfigGetAttribute)
UNSUPPORTED(cublasLtMatmulAlgoConfigSetAttribute)
UNSUPPORTED(cublasLtMatmulAlgoGetIds)
UNSUPPORTED(cublasLtMatmulAlgoInit)
UNSUPPORTED(cublasLtMatmulDescGetAttribute)
UNSUPPORTED(cublasLtMatmulPreferenceGetAttribute)
UNSUPPORTED(cublasLtMatrixLayoutGetAttribute)
UNSUPPORTED(cublasLtMatrixTransform)
UNSUPPORTED(cublasLtMatrixTransformDescCreate)
UNSUPPORTED(cublasLtMatrixTransformDescDestroy)
UNSUPPORTED(cublasLtMatrixTransformDescGetAttribute)
UNSUPPORTED(cublasLtMatrixTransformDescInit_internal)
UNSUPPORTED(cublasLtMatrixTransformDescSetAttribute)
