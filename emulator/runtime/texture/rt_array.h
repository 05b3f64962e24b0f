/**
 * @file rt_array.h
 * @brief What the texture and surface objects (rt_texture.c) ask of the CUDA arrays
 *        (rt_array.c).
 */
#ifndef EMU_RT_ARRAY_H
#define EMU_RT_ARRAY_H

#include "rt.h"

/** Where an array's elements lie and how many there are (the layout in rt_array.c). */
struct rt_array_shape {
    void *dev;     /**< device address of element (0, 0, 0) */
    size_t elem;   /**< bytes per element */
    size_t width;  /**< elements per row */
    size_t rows;   /**< rows per slice (1 for a 1D array) */
    size_t depth;  /**< z planes of a 3D array, else 1 */
    size_t slices; /**< z planes, layers, or 6 faces per layer */
    size_t pitch;  /**< bytes per row: width * elem */
    int layered, cubemap;
};

/**
 * Bytes per element of channel format @p d: 1, 2 or 4 channels of equal size (8, 16 or 32
 * bits; float ones of 16 or 32). 0 after one line naming @p who when it is another format.
 */
int rt_channel_bytes(const struct cudaChannelFormatDesc *d, const char *who);

/** The shape and flags of live array @p array; 0, or -1 after one line naming @p who. */
int rt_array_shape(cudaArray_const_t array, const char *who, struct rt_array_shape *shape,
                   unsigned *flags);

#endif /* EMU_RT_ARRAY_H */
