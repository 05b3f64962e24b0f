/**
 * @file drv_tensor.c
 * @brief The driver stand-in: tensor maps (cuTensorMapEncodeTiled, cuTensorMapReplaceAddress).
 *
 * Every requirement cuda.h's documentation of cuTensorMapEncodeTiled lists is checked, in its
 * order, and a broken one refused with CUDA_ERROR_INVALID_VALUE and one line naming the
 * argument, its value and the rule: the map's alignment, the data type, the rank, the global
 * address's alignment, each extent (1 to 2^32), each stride (a multiple of 16, or of 32 with
 * 32-byte interleave, below 2^40), each box extent (1 to 256; the inner one a multiple of 16
 * bytes without interleave, and at most the swizzle's span with one), each traversal stride
 * (1 to 8), the interleave, swizzle, L2 promotion and fill enums, 32-byte interleave's 32-byte
 * swizzle, and a NaN fill only for floating-point types. sm_100's forms (packed 4- and 6-bit
 * types, the 128-byte swizzles of 32- and 64-byte atoms) and im2col maps are refused as not
 * emulated. The map is written in the emulator's layout (common/tmap.h).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "drv.h"
#include "tmap.h"

/* One line about argument trouble, and CUDA_ERROR_INVALID_VALUE. */
static CUresult refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static CUresult refuse(const char *fmt, ...)
{
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    emu_say("cuTensorMapEncodeTiled: %s (CUDA_ERROR_INVALID_VALUE)", line);
    return CUDA_ERROR_INVALID_VALUE;
}

/* Bytes per element of data type @p t (0: not a type of sm_90), and whether it is a float. */
static unsigned elem_bytes(CUtensorMapDataType t, int *is_float)
{
    static const struct {
        unsigned bytes;
        int is_float;
    } types[] = {
        [CU_TENSOR_MAP_DATA_TYPE_UINT8] = {1, 0},
        [CU_TENSOR_MAP_DATA_TYPE_UINT16] = {2, 0},
        [CU_TENSOR_MAP_DATA_TYPE_UINT32] = {4, 0},
        [CU_TENSOR_MAP_DATA_TYPE_INT32] = {4, 0},
        [CU_TENSOR_MAP_DATA_TYPE_UINT64] = {8, 0},
        [CU_TENSOR_MAP_DATA_TYPE_INT64] = {8, 0},
        [CU_TENSOR_MAP_DATA_TYPE_FLOAT16] = {2, 1},
        [CU_TENSOR_MAP_DATA_TYPE_FLOAT32] = {4, 1},
        [CU_TENSOR_MAP_DATA_TYPE_FLOAT64] = {8, 1},
        [CU_TENSOR_MAP_DATA_TYPE_BFLOAT16] = {2, 1},
        [CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ] = {4, 1},
        [CU_TENSOR_MAP_DATA_TYPE_TFLOAT32] = {4, 1},
        [CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ] = {4, 1},
    };
    if ((unsigned)t >= sizeof types / sizeof *types)
        return 0;
    *is_float = types[t].is_float;
    return types[t].bytes;
}

/* The global address, extents and strides. */
static CUresult check_global(cuuint32_t rank, const void *addr, const cuuint64_t *dim,
                             const cuuint64_t *strides, CUtensorMapInterleave interleave)
{
    unsigned align = interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16;
    if ((uintptr_t)addr % align)
        return refuse("globalAddress %p must be %u-byte aligned", addr, align);
    if (!dim || (rank > 1 && !strides))
        return refuse("globalDim%s is NULL", dim ? "'s companion globalStrides" : "");
    for (cuuint32_t i = 0; i < rank; i++)
        if (dim[i] == 0 || dim[i] > (1ull << 32))
            return refuse("globalDim[%u] is %llu: each extent must be 1 to 2^32", i,
                          (unsigned long long)dim[i]);
    for (cuuint32_t i = 0; i + 1 < rank; i++)
        if (strides[i] % align || strides[i] >= (1ull << 40))
            return refuse("globalStrides[%u] is %llu: each stride must be a multiple of %u bytes "
                          "and below 2^40",
                          i, (unsigned long long)strides[i], align);
    return CUDA_SUCCESS;
}

/* The box, the traversal strides and the modes. */
static CUresult check_box(cuuint32_t rank, unsigned esize, const cuuint32_t *box,
                          const cuuint32_t *estrides, CUtensorMapInterleave interleave,
                          CUtensorMapSwizzle swizzle)
{
    if (!box || !estrides)
        return refuse("%s is NULL", box ? "elementStrides" : "boxDim");
    for (cuuint32_t i = 0; i < rank; i++) {
        if (box[i] == 0 || box[i] > 256)
            return refuse("boxDim[%u] is %u: each box extent must be 1 to 256", i, box[i]);
        if (estrides[i] == 0 || estrides[i] > 8)
            return refuse("elementStrides[%u] is %u: each traversal stride must be 1 to 8", i,
                          estrides[i]);
    }
    unsigned inner = box[0] * esize, span = swizzle ? 16u << swizzle : 0;
    if (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE && inner % 16)
        return refuse("the box's inner dimension is %u bytes (boxDim[0] %u of %u-byte elements): "
                      "without interleave it must be a multiple of 16 bytes",
                      inner, box[0], esize);
    if (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE && span && inner > span)
        return refuse("the box's inner dimension is %u bytes: the %u-byte swizzle allows at most "
                      "%u",
                      inner, span, span);
    if (interleave == CU_TENSOR_MAP_INTERLEAVE_32B && swizzle != CU_TENSOR_MAP_SWIZZLE_32B)
        return refuse("32-byte interleave needs the 32-byte swizzle, not swizzle %d", (int)swizzle);
    return CUDA_SUCCESS;
}

/* The enums, and the type and rank they allow. */
static CUresult check_modes(CUtensorMapDataType type, cuuint32_t rank,
                            CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                            CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob)
{
    int is_float = 0;
    if ((type >= CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B &&
         type <= CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B) ||
        (swizzle >= CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B &&
         swizzle <= CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B)) {
        emu_say("cuTensorMapEncodeTiled: %s %d is an sm_100 form, not emulated "
                "(CUDA_ERROR_NOT_SUPPORTED)",
                swizzle > CU_TENSOR_MAP_SWIZZLE_128B ? "swizzle" : "data type",
                swizzle > CU_TENSOR_MAP_SWIZZLE_128B ? (int)swizzle : (int)type);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    if (!elem_bytes(type, &is_float))
        return refuse("tensorDataType %d is not a CUtensorMapDataType", (int)type);
    if (rank == 0 || rank > TMAP_MAX_RANK)
        return refuse("tensorRank is %u: it must be 1 to 5", rank);
    if ((unsigned)interleave > CU_TENSOR_MAP_INTERLEAVE_32B)
        return refuse("interleave %d is not a CUtensorMapInterleave", (int)interleave);
    if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE && rank < 3)
        return refuse("tensorRank is %u: an interleaved layout needs 3 to 5", rank);
    if ((unsigned)swizzle > CU_TENSOR_MAP_SWIZZLE_128B)
        return refuse("swizzle %d is not a CUtensorMapSwizzle", (int)swizzle);
    if ((unsigned)l2 > CU_TENSOR_MAP_L2_PROMOTION_L2_256B)
        return refuse("l2Promotion %d is not a CUtensorMapL2promotion", (int)l2);
    if ((unsigned)oob > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
        return refuse("oobFill %d is not a CUtensorMapFloatOOBfill", (int)oob);
    if (oob == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA && !is_float)
        return refuse("the NaN fill needs a floating-point data type, not type %d", (int)type);
    return CUDA_SUCCESS;
}

CUresult cuTensorMapEncodeTiled(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                cuuint32_t tensorRank, void *globalAddress,
                                const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                const cuuint32_t *boxDim, const cuuint32_t *elementStrides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill)
{
    int is_float = 0;
    CUresult r = drv_initialised("cuTensorMapEncodeTiled");
    if (r == CUDA_SUCCESS && (!tensorMap || (uintptr_t)tensorMap % 64))
        r = refuse("tensorMap %p must be 64-byte aligned", (void *)tensorMap);
    if (r == CUDA_SUCCESS)
        r = check_modes(tensorDataType, tensorRank, interleave, swizzle, l2Promotion, oobFill);
    unsigned esize = r == CUDA_SUCCESS ? elem_bytes(tensorDataType, &is_float) : 0;
    if (r == CUDA_SUCCESS)
        r = check_global(tensorRank, globalAddress, globalDim, globalStrides, interleave);
    if (r == CUDA_SUCCESS)
        r = check_box(tensorRank, esize, boxDim, elementStrides, interleave, swizzle);
    if (r != CUDA_SUCCESS)
        return r;
    struct tmap t = {TMAP_MAGIC,
                     (uint8_t)tensorDataType,
                     (uint8_t)tensorRank,
                     (uint8_t)esize,
                     (uint8_t)interleave,
                     (uint8_t)swizzle,
                     (uint8_t)l2Promotion,
                     (uint8_t)(oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA),
                     (uint8_t)is_float,
                     (uint64_t)(uintptr_t)globalAddress,
                     {0},
                     {0},
                     {0},
                     {0}};
    for (unsigned i = 0; i < TMAP_MAX_RANK; i++) {
        int in = i < tensorRank;
        t.dim[i] = in ? globalDim[i] : 1;
        t.stride[i] = i == 0 ? esize : in ? globalStrides[i - 1] : t.stride[i - 1] * t.dim[i - 1];
        t.box[i] = (uint16_t)(in ? boxDim[i] : 1);
        /* without interleave, TMA has no stride along dimension 0: the first one is ignored */
        t.estride[i] = (uint8_t)(in && (i || interleave) ? elementStrides[i] : 1);
    }
    memset(tensorMap, 0, sizeof *tensorMap);
    memcpy(tensorMap, &t, sizeof t);
    return CUDA_SUCCESS;
}

CUresult cuTensorMapReplaceAddress(CUtensorMap *tensorMap, void *globalAddress)
{
    struct tmap t;
    if (!tensorMap || (uintptr_t)tensorMap % 64)
        return refuse("tensorMap %p must be 64-byte aligned", (void *)tensorMap);
    memcpy(&t, tensorMap, sizeof t);
    if (t.magic != TMAP_MAGIC)
        return refuse("%p holds no tensor map cuTensorMapEncodeTiled made", (void *)tensorMap);
    unsigned align = t.interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16;
    if ((uintptr_t)globalAddress % align)
        return refuse("globalAddress %p must be %u-byte aligned", globalAddress, align);
    t.addr = (uint64_t)(uintptr_t)globalAddress;
    memcpy(tensorMap, &t, sizeof t);
    return CUDA_SUCCESS;
}

/* Im2col maps (convolutions) are not emulated: refused in one line, as a form the VM lacks. */
CUresult cuTensorMapEncodeIm2col(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                 cuuint32_t tensorRank, void *globalAddress,
                                 const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                 const int *pixelBoxLowerCorner, const int *pixelBoxUpperCorner,
                                 cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn,
                                 const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
                                 CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                 CUtensorMapFloatOOBfill oobFill)
{
    (void)tensorMap, (void)tensorDataType, (void)tensorRank, (void)globalAddress, (void)globalDim,
        (void)globalStrides, (void)pixelBoxLowerCorner, (void)pixelBoxUpperCorner,
        (void)channelsPerPixel, (void)pixelsPerColumn, (void)elementStrides, (void)interleave,
        (void)swizzle, (void)l2Promotion, (void)oobFill;
    return drv_not_supported("cuTensorMapEncodeIm2col (im2col tensor maps; tiled ones are "
                             "emulated)");
}
