/**
 * @file tmap.h
 * @brief The emulator's layout of CUtensorMap: what the driver's cuTensorMapEncodeTiled writes
 *        (emulator/driver/drv_tensor.c) and the VM's TMA copies read (emulator/vm/ops_bulk.c).
 *
 * CUDA keeps the 128-byte tensor map opaque, so any layout the encoder and the copies agree on
 * is right. This one holds the arguments cuTensorMapEncodeTiled validated, in the units the
 * copies use: a mark (so a copy through 128 bytes the encoder never wrote fails in one line
 * instead of reading garbage), the enums as given, the global address, and per dimension
 * (innermost first) its extent, its stride in bytes (dimension 0's is the element size), the
 * box's extent and the traversal stride. Dimensions past the rank hold extent 1, box 1,
 * traversal stride 1, so a copy may walk all five.
 */
#ifndef EMU_TMAP_H
#define EMU_TMAP_H

#include <stdint.h>

/** The mark in tmap::magic ("TMAP"). */
#define TMAP_MAGIC 0x50414D54u
/** Dimensions a tensor map may have. */
#define TMAP_MAX_RANK 5

/** A tensor map as the emulator lays it out in the 128 bytes of a CUtensorMap. */
struct tmap {
    uint32_t magic;                 /**< TMAP_MAGIC */
    uint8_t type;                   /**< CUtensorMapDataType */
    uint8_t rank;                   /**< 1 to 5 */
    uint8_t elem_bytes;             /**< bytes per element: 1, 2, 4 or 8 */
    uint8_t interleave;             /**< CUtensorMapInterleave */
    uint8_t swizzle;                /**< CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B */
    uint8_t l2_promo;               /**< CUtensorMapL2promotion (changes nothing here) */
    uint8_t oob_nan;                /**< 1: out-of-bounds elements of a load read as NaN, not 0 */
    uint8_t is_float;               /**< 1: a floating-point type */
    uint64_t addr;                  /**< the global address of element (0, ..., 0) */
    uint64_t dim[TMAP_MAX_RANK];    /**< extents, in elements */
    uint64_t stride[TMAP_MAX_RANK]; /**< bytes from one index to the next, per dimension */
    uint16_t box[TMAP_MAX_RANK];    /**< the box's extent, in elements (1 to 256) */
    uint8_t estride[TMAP_MAX_RANK]; /**< traversal strides (1 to 8; dimension 0's is 1) */
};

_Static_assert(sizeof(struct tmap) <= 128, "a tensor map holds 128 bytes");

#endif /* EMU_TMAP_H */
