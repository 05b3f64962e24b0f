/**
 * @file tex.h
 * @brief The descriptor behind a texture or surface object, shared by the runtime stand-in
 *        (rt_array.c writes it) and the VM (ops_tex.c reads it).
 *
 * A cudaTextureObject_t or cudaSurfaceObject_t is the device address of one struct tex_desc
 * that the runtime allocated in device memory and filled at cudaCreateTextureObject /
 * cudaCreateSurfaceObject. The VM reads it raw when a tex, suld or sust instruction names the
 * handle: it is the runtime's bookkeeping, not the kernel's data, so it is neither checked nor
 * counted. @ref tex_desc::self holds the handle itself and @ref tex_desc::magic the kind, so a
 * pointer that is not an object (a data buffer, a destroyed object) is told apart.
 *
 * The texels live in device memory too: element (x, y, slice) of a resource is the
 * elem_bytes at base + slice * slice_pitch + y * pitch + x * elem_bytes, where a slice is a
 * z plane of a 3D array, a layer, or a cubemap face (layer * 6 + face).
 */
#ifndef EMU_VM_TEX_H
#define EMU_VM_TEX_H

#include <stdint.h>

/** tex_desc::magic of a texture object and of a surface object. */
#define TEX_MAGIC 0x31584554u  /* "TEX1" */
#define SURF_MAGIC 0x31525553u /* "SUR1" */

/** tex_desc::flags. */
enum {
    TEXF_LAYERED = 1,     /**< slices are layers (tex.a1d, tex.a2d, suld.a1d, ...) */
    TEXF_CUBEMAP = 2,     /**< slices are faces, 6 per layer */
    TEXF_NORMALIZED = 4,  /**< float coordinates are in [0, 1) */
    TEXF_LINEAR = 8,      /**< linear filtering (else nearest point) */
    TEXF_READ_NORM = 16,  /**< 8- and 16-bit integer texels read as floats in [0, 1] / [-1, 1] */
    TEXF_LINEAR_MEM = 32, /**< a resource of linear memory: tex1Dfetch, out of range reads 0 */
};

/** tex_desc::kind: how a channel's bits read. */
enum tex_kind { TEXK_SIGNED, TEXK_UNSIGNED, TEXK_FLOAT };

/** tex_desc::address[]: CUDA's cudaTextureAddressMode, in its order. */
enum tex_address { TEXA_WRAP, TEXA_CLAMP, TEXA_MIRROR, TEXA_BORDER };

/** One texture or surface object, as it lies in device memory. */
struct tex_desc {
    uint32_t magic;                /**< TEX_MAGIC or SURF_MAGIC */
    uint32_t flags;                /**< TEXF_* */
    uint64_t self;                 /**< the handle: this descriptor's own device address */
    uint64_t base;                 /**< device address of texel (0, 0, 0) */
    uint64_t bytes;                /**< bytes from base the texels span */
    uint64_t pitch;                /**< bytes from one row to the next */
    uint64_t slice_pitch;          /**< bytes from one slice (z plane, layer, face) to the next */
    uint32_t width, height, depth; /**< texels per row, rows, z planes (1 when absent) */
    uint32_t slices;               /**< slices: depth, layers, or 6 * layers for cubemaps */
    uint8_t channels;              /**< 1, 2 or 4 */
    uint8_t bits;                  /**< bits per channel: 8, 16 or 32 */
    uint8_t kind;                  /**< enum tex_kind */
    uint8_t elem_bytes;            /**< channels * bits / 8 */
    uint8_t address[3];            /**< enum tex_address per dimension */
    uint8_t pad;
    float border[4]; /**< the border colour (TEXA_BORDER) */
};

#endif /* EMU_VM_TEX_H */
