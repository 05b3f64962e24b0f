/**
 * @file test_texture.h
 * @brief Texture fetches and surface loads and stores of every geometry
 *        (test_texture_kernels.cu), behind C launchers that return the launch's error after a
 *        cudaDeviceSynchronize; test_texture.c checks each against a host implementation of
 *        the CUDA Programming Guide's rules.
 */
#ifndef TEST_TEXTURE_H
#define TEST_TEXTURE_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How tt_fetch reads: the fetch function each names. */
enum tt_geom {
    TT_1D,         /**< tex1D(x) */
    TT_2D,         /**< tex2D(x, y) */
    TT_3D,         /**< tex3D(x, y, z) */
    TT_1D_LAYERED, /**< tex1DLayered(x, layer w) */
    TT_2D_LAYERED, /**< tex2DLayered(x, y, layer w) */
    TT_CUBE,       /**< texCubemap(x, y, z) */
    TT_2D_LOD,     /**< tex2DLod(x, y, 2): arrays have one level, so as tex2D */
    TT_2D_GATHER   /**< tex2Dgather(x, y, component w & 3) */
};

/** out[i] = the float4 fetch of @p geom at coordinates at[i] (x, y, z, layer), i < n. */
cudaError_t tt_fetch(cudaTextureObject_t t, enum tt_geom geom, const float4 *d_at, int n,
                     float4 *d_out);

/** out[i] = tex1Dfetch<int4>(t, at[i].x) when @p fetch, else tex2D<int4>(t, at[i].x + 0.5,
 *  at[i].y + 0.5) (integer texels read as they are), i < n. */
cudaError_t tt_fetch_int(cudaTextureObject_t t, int fetch, const int2 *d_at, int n, int4 *d_out);

/**
 * Over the points (x, y) of [-2, w + 2) x [-2, h + 2): clamped[(y + 2) * (w + 4) + x + 2] =
 * surf2Dread of @p in (float) with cudaBoundaryModeClamp; and 2 * v + 1 of the element read
 * (0 outside) stored into @p out with cudaBoundaryModeZero, so that stores outside are dropped.
 */
cudaError_t tt_surface_2d(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h,
                          float *d_clamped);

/** Every element (x, y, layer) of a w x h x layers layered uchar4 surface gets each channel
 *  plus (1, 2, 3, 4), read and written with cudaBoundaryModeTrap. */
cudaError_t tt_surface_layered(cudaSurfaceObject_t s, int w, int h, int layers);

/** Element (x, y, z) of a w x h x d int2 3D surface becomes (3 v.x, v.y - 7), and element x of
 *  an n-element 1D short surface v ^ 0x5a5a. */
cudaError_t tt_surface_3d_1d(cudaSurfaceObject_t s3, int w, int h, int d, cudaSurfaceObject_t s1,
                             int n);

/** One thread stores a float at element (x, y) of a 2D surface, with cudaBoundaryModeTrap. */
cudaError_t tt_surface_store_at(cudaSurfaceObject_t s, int x, int y);

#ifdef __cplusplus
}
#endif

#endif /* TEST_TEXTURE_H */
