/**
 * @file test_model_hopper.h
 * @brief The time model's Hopper test kernels (test_model_hopper_kernels.cu, sm_90a).
 */
#ifndef TEST_MODEL_HOPPER_H
#define TEST_MODEL_HOPPER_H

#ifdef __cplusplus
extern "C" {
#endif

enum { MODEL_TMA_ONE_STAGE, MODEL_TMA_STAGES, MODEL_TMA_SPECIALISED, MODEL_TMA_FP8 };
#define MODEL_TMA_DEPTH 6 /* the pipelined versions' stages */

/** Each of @p blocks blocks (one warpgroup, and a producer warp when specialised) multiplies
 *  @p tiles 64 x 64 bf16 tiles of A and B (8 KiB each, consecutive in @p d_a and @p d_b) into a
 *  64 x 64 fp32 tile, stored at d_c + 4096 * block; @p version: one of the enum above, the last
 *  MODEL_TMA_STAGES with the same bytes read as 64 x 128 e4m3 tiles (wgmma m64n64k32). */
void model_tma_gemm(int version, int blocks, int tiles, const void *d_a, const void *d_b,
                    float *d_c);

/** y = x over @p n floats: in clusters of two blocks of 256 threads, then as a cooperative grid
 *  of 264 such blocks (2 an SM on the h100), each thread striding over the grid, then the same
 *  grid launched plainly. */
void model_resident_copies(int n, const float *d_x, float *d_y);

#ifdef __cplusplus
}
#endif

#endif /* TEST_MODEL_HOPPER_H */
