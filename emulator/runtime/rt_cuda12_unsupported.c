/**
 * @file rt_cuda12_unsupported.c
 * @brief The runtime stand-in as libcudart.so.12: the functions CUDA 12's cuda_runtime_api.h
 *        declares that it does not emulate, answered with cudaErrorNotSupported and one line.
 *
 * As rt_unsupported.c does for CUDA 13 (and for the same reasons: no CUDA header, stubs
 * without parameters): the pre-12 layout of cudaGetDeviceProperties, the first signature of
 * cudaStreamGetCaptureInfo, multi-device cooperative launches, the double-for-float hints and
 * external semaphores under their CUDA 12 names.
 * Built only with a CUDA 12 toolkit.
 */
#include "rt_unsupported.h"

UNSUPPORTED(cudaGetDeviceProperties)
UNSUPPORTED(cudaStreamGetCaptureInfo)
UNSUPPORTED(cudaStreamGetCaptureInfo_ptsz)
UNSUPPORTED(cudaLaunchCooperativeKernelMultiDevice)
UNSUPPORTED(cudaSetDoubleForDevice)
UNSUPPORTED(cudaSetDoubleForHost)
UNSUPPORTED(cudaSignalExternalSemaphoresAsync_v2)
UNSUPPORTED(cudaWaitExternalSemaphoresAsync_v2)
UNSUPPORTED(cudaSignalExternalSemaphoresAsync_v2_ptsz)
UNSUPPORTED(cudaWaitExternalSemaphoresAsync_v2_ptsz)
