/**
 * @file test_tensor.h
 * @brief Kernels for the VM's tensor and asynchronous-copy instructions (test_tensor_kernels.cu):
 *        mma.sync and mma.sp in every form the VM runs, ldmatrix and stmatrix in every width,
 *        cp.async in every form with its groups, waits and mbarrier completion, each written in
 *        inline PTX so the form under test is the one named. Launchers return the launch's own
 *        error.
 */
#ifndef TEST_TENSOR_H
#define TEST_TENSOR_H

#include <cuda_runtime.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The mma.sync forms tensor_mma() runs: shape, then d, a, b and c types. */
enum mma_form {
    MMA_K16_F32_F16_F32,   /**< m16n8k16.row.col.f32.f16.f16.f32 */
    MMA_K16_F16_F16_F16,   /**< m16n8k16.row.col.f16.f16.f16.f16 */
    MMA_K16_F32_BF16_F32,  /**< m16n8k16.row.col.f32.bf16.bf16.f32 */
    MMA_K8_F32_F16_F32,    /**< m16n8k8.row.col.f32.f16.f16.f32 */
    MMA_K8_F16_F16_F16,    /**< m16n8k8.row.col.f16.f16.f16.f16 */
    MMA_K8_F32_BF16_F32,   /**< m16n8k8.row.col.f32.bf16.bf16.f32 */
    MMA_K32_F32_E4M3_F32,  /**< m16n8k32.row.col.f32.e4m3.e4m3.f32 */
    MMA_K32_F32_E4M3_E5M2, /**< m16n8k32.row.col.f32.e4m3.e5m2.f32 */
    MMA_K32_F16_E5M2_F16,  /**< m16n8k32.row.col.f16.e5m2.e5m2.f16 */
    MMA_K16_F32_E5M2_F32,  /**< m16n8k16.row.col.f32.e5m2.e5m2.f32 */
    MMA_K32_S32_S8_S32,    /**< m16n8k32.row.col.s32.s8.s8.s32 */
    MMA_K16_S32_U8_S8,     /**< m16n8k16.row.col.s32.u8.s8.s32 */
    MMA_K32_S32_S8_SATF,   /**< m16n8k32.row.col.satfinite.s32.s8.s8.s32 */
    /** the forms above, mma_sync_every_form_against_the_isa's; then the 4- and 1-bit ones,
     *  mma_sync_sub_byte_against_the_isa's: */
    MMA_FORMS,
    MMA_I4_M8N8K32_S4 = MMA_FORMS, /**< m8n8k32.row.col.s32.s4.s4.s32 */
    MMA_I4_M16N8K32_U4_S4,         /**< m16n8k32.row.col.s32.u4.s4.s32 */
    MMA_I4_M16N8K64_S4_U4,         /**< m16n8k64.row.col.satfinite.s32.s4.u4.s32 */
    MMA_B1_M8N8K128_XOR,           /**< m8n8k128.row.col.s32.b1.b1.s32.xor.popc */
    MMA_B1_M16N8K128_AND,          /**< m16n8k128.row.col.s32.b1.b1.s32.and.popc */
    MMA_B1_M16N8K256_XOR,          /**< m16n8k256.row.col.s32.b1.b1.s32.xor.popc */
    MMA_ALL_FORMS
};

/** One warp: lane l loads its registers a[4 l ..], b[2 l ..], c[4 l ..] (as many as the form
 *  has), runs mma.sync form @p form and stores its d registers to d[4 l ..]. */
cudaError_t tensor_mma(int form, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                       uint32_t *d);

/** The mma.sp forms tensor_mma_sp() runs: .sp or .sp::ordered_metadata (ordered), shape, d, a,
 *  b and c types, sparsity selector. */
enum mma_sp_form {
    MMA_SP_K16_F16_SEL0,        /**< mma.sp m16n8k16.row.col.f32.f16.f16.f32, 0 */
    MMA_SP_K16_F16_SEL3,        /**< ordered m16n8k16.row.col.f32.f16.f16.f32, 3 */
    MMA_SP_K32_F16_F16_SEL1,    /**< ordered m16n8k32.row.col.f16.f16.f16.f16, 1 */
    MMA_SP_K32_BF16_SEL0,       /**< mma.sp m16n8k32.row.col.f32.bf16.bf16.f32, 0 */
    MMA_SP_K32_BF16_SEL1,       /**< ordered m16n8k32.row.col.f32.bf16.bf16.f32, 1 */
    MMA_SP_K8_TF32_SEL2,        /**< mma.sp m16n8k8.row.col.f32.tf32.tf32.f32, 2 */
    MMA_SP_K16_TF32_SEL1,       /**< ordered m16n8k16.row.col.f32.tf32.tf32.f32, 1 */
    MMA_SP_K32_S8_SEL0,         /**< mma.sp m16n8k32.row.col.s32.s8.s8.s32, 0 */
    MMA_SP_K32_U8_S8_SATF_SEL1, /**< ordered m16n8k32.row.col.satfinite.s32.u8.s8.s32, 1 */
    MMA_SP_K64_S8_U8,           /**< ordered m16n8k64.row.col.s32.s8.u8.s32, 0 */
    MMA_SP_K64_E4M3,            /**< mma.sp m16n8k64.row.col.f32.e4m3.e4m3.f32, 0 */
    MMA_SP_K64_E5M2_E4M3,       /**< ordered m16n8k64.row.col.f32.e5m2.e4m3.f32, 0 */
    MMA_SP_K64_S4_SEL1,         /**< mma.sp m16n8k64.row.col.s32.s4.s4.s32, 1 */
    MMA_SP_K128_U4_S4_SATF,     /**< ordered m16n8k128.row.col.satfinite.s32.u4.s4.s32, 0 */
    MMA_SP_FORMS
};

/** One warp: lane l loads a[4 l ..], b[4 l ..] and c[4 l ..] (as many registers as the form
 *  has) and the metadata e[l], runs mma.sp form @p form and stores its d registers to d[4 l ..]. */
cudaError_t tensor_mma_sp(int form, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                          const uint32_t *e, uint32_t *d);

/** The f64 mma.sync shapes tensor_mma_f64() runs (.row.col.f64.f64.f64.f64). */
enum mma_f64_shape {
    MMA_F64_M8N8K4,   /**< m8n8k4 (sm_80) */
    MMA_F64_M16N8K4,  /**< m16n8k4 (sm_90) */
    MMA_F64_M16N8K8,  /**< m16n8k8 (sm_90) */
    MMA_F64_M16N8K16, /**< m16n8k16 (sm_90) */
    MMA_F64_SHAPES
};

/** One warp: lane l loads its registers a[8 l ..], b[4 l ..], c[4 l ..] (as many as the shape
 *  has), runs the f64 mma.sync of @p shape and stores its d registers to d[4 l ..]. */
cudaError_t tensor_mma_f64(int shape, const double *a, const double *b, const double *c, double *d);

/** Volta's mma.sync m8n8k4 f16 forms tensor_mma_quadpair() runs: layouts of a and b, then d and c
 *  types. */
enum mma_quadpair_form {
    MMA_QP_ROW_COL_F32_F32, /**< m8n8k4.row.col.f32.f16.f16.f32 */
    MMA_QP_COL_ROW_F16_F16, /**< m8n8k4.col.row.f16.f16.f16.f16 */
    MMA_QP_ROW_ROW_F32_F16, /**< m8n8k4.row.row.f32.f16.f16.f16 */
    MMA_QP_COL_COL_F32_F32, /**< m8n8k4.col.col.f32.f16.f16.f32 */
    MMA_QP_FORMS
};

/** One warp: lane l loads a[2 l ..], b[2 l ..] and c[8 l ..] (as many registers as the form has),
 *  runs the m8n8k4 form and stores its d registers to d[8 l ..]. */
cudaError_t tensor_mma_quadpair(int form, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                                uint32_t *d);

/** One warp: lane l holds a[l], b[l] and c[2 l ..]; mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32
 *  (.u8 for a when @p unsigned_a) stores its d registers to d[2 l ..]. */
cudaError_t tensor_mma_m8n8k16(int unsigned_a, const uint32_t *a, const uint32_t *b,
                               const uint32_t *c, uint32_t *d);

/** One warp, 4 x 64 halves m (four 8 x 8 matrices) staged in shared memory with row r of matrix i
 *  at row slot 8 i + (3 r) % 8: out[128 k + 4 l + i] = register i of lane l after ldmatrix variant
 *  k (0 x1, 1 x2, 2 x4, 3 x1.trans, 4 x2.trans, 5 x4.trans); registers a variant lacks are 0. */
cudaError_t tensor_ldmatrix(const uint16_t *m, uint32_t *out);

/** One warp: lane l holds regs[4 l .. 4 l + 3]; stmatrix variant k (as tensor_ldmatrix's) writes
 *  them to shared memory laid out as there, and out[256 k ..] receives the 256 halves (rows in
 *  slot order; what the variant does not write stays 0xFFFF). */
cudaError_t tensor_stmatrix(const uint32_t *regs, uint16_t *out);

/** One warp: lane l's register in[l] through movmatrix (m8n8.trans.b16) into out[l]; with
 *  @p half only lanes 0 to 15 execute it (the launch fails: the whole warp must). */
cudaError_t tensor_movmatrix(int half, const uint32_t *in, uint32_t *out);

/**
 * 64 threads, each with a 16-byte chunk of shared memory x and one of y that it first fills
 * with 0xA5A5A5A5: into x a cp.async.cg of 16 bytes of in[4 t ..] (group 0); into y a
 * cp.async.ca of 8 bytes of in[256 + 2 t ..] with src_size t % 9, then one of 4 bytes of
 * in[512 + t] into its third word with ignore-src set for odd t, and a cp.async.ca of 4 bytes
 * with an L2 cache hint into its fourth (group 1). out[16 t ..]: x before any wait, x and y after
 * cp.async.wait_group 1, y after cp.async.wait_all (4 words each).
 */
cudaError_t tensor_cp_async(const uint32_t *in, uint32_t *out);

/** 64 threads copy in[4 t ..] into shared chunk t with cp.async and complete it through an
 *  mbarrier (cp.async.mbarrier.arrive, .noinc when @p noinc), wait on it, then write chunk
 *  (t + 1) % 64 to out[4 t ..]. */
cudaError_t tensor_cp_async_mbarrier(int noinc, const uint32_t *in, uint32_t *out);

/**
 * A block of 128 threads sums in[0 .. 512 n) into *out through a @p stages-deep cp.async
 * pipeline of 512-value stages: each step waits with cp.async.wait_group (stages - 2), or with
 * (stages - 1) when @p bug (one group too many still in flight: the stage read has not landed),
 * then __syncthreads(), and each thread adds four values of another warp's copy.
 */
cudaError_t tensor_pipeline_sum(int stages, int bug, const float *in, int n, float *out);

/** Shared-memory patterns for the conflict counters: one warp, @p kind 0 ldmatrix.x4 with rows
 *  64 bytes apart, 1 with 256 bytes apart, 2 with 128 bytes apart and 16-byte chunks XOR-swizzled
 *  with the row, 3 st.shared.v4 with lanes 128 bytes apart, 4 the same at consecutive chunks. */
cudaError_t tensor_shared_pattern(int kind, uint32_t *out);

/** One warp: @p n mma.sync m16n8k16 with copies in flight (cp.async issued and committed, no
 *  wait yet), then cp.async.wait_all, then @p n more; out gets a fragment of the result. */
cudaError_t tensor_mma_overlap(int n, const uint32_t *in, uint32_t *out);

/** One warp runs a 4-bit wmma.mma (m8n8k32 s4, not emulated). */
cudaError_t tensor_unsupported(uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif /* TEST_TENSOR_H */
