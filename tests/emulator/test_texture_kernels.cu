/**
 * @file test_texture_kernels.cu
 * @brief Texture and surface programs for the emulator's texture suite (test_texture.c):
 *   tt_fetch            tex1D, tex2D, tex3D, tex1DLayered, tex2DLayered, texCubemap, tex2DLod,
 *                       tex2Dgather as float4, at coordinates the host chose
 *   tt_fetch_int        tex1Dfetch and tex2D of integer texels, read as they are
 *   tt_surface_2d       surf2Dread with clamp, surf2Dwrite with zero, over an area wider
 *                       than the surface
 *   tt_surface_layered  surf2DLayeredread / write of uchar4 with trap
 *   tt_surface_3d_1d    surf3Dread / write of int2, surf1Dread / write of short
 *   tt_surface_store_at one surf2Dwrite with trap, anywhere (the out-of-range case)
 */
#include "test_texture.h"

static __global__ void tt_fetch_kernel(cudaTextureObject_t t, enum tt_geom geom, const float4 *at,
                                       int n, float4 *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 c = at[i];
    switch (geom) {
    case TT_1D:
        out[i] = tex1D<float4>(t, c.x);
        break;
    case TT_2D:
        out[i] = tex2D<float4>(t, c.x, c.y);
        break;
    case TT_3D:
        out[i] = tex3D<float4>(t, c.x, c.y, c.z);
        break;
    case TT_1D_LAYERED:
        out[i] = tex1DLayered<float4>(t, c.x, (int)c.w);
        break;
    case TT_2D_LAYERED:
        out[i] = tex2DLayered<float4>(t, c.x, c.y, (int)c.w);
        break;
    case TT_CUBE:
        out[i] = texCubemap<float4>(t, c.x, c.y, c.z);
        break;
    case TT_2D_LOD:
        out[i] = tex2DLod<float4>(t, c.x, c.y, 2.0f);
        break;
    default:
        out[i] = tex2Dgather<float4>(t, c.x, c.y, (int)c.w & 3);
    }
}

cudaError_t tt_fetch(cudaTextureObject_t t, enum tt_geom geom, const float4 *d_at, int n,
                     float4 *d_out)
{
    tt_fetch_kernel<<<(n + 127) / 128, 128>>>(t, geom, d_at, n, d_out);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

static __global__ void tt_fetch_int_kernel(cudaTextureObject_t t, int fetch, const int2 *at, int n,
                                           int4 *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = fetch ? tex1Dfetch<int4>(t, at[i].x)
                   : tex2D<int4>(t, (float)at[i].x + 0.5f, (float)at[i].y + 0.5f);
}

cudaError_t tt_fetch_int(cudaTextureObject_t t, int fetch, const int2 *d_at, int n, int4 *d_out)
{
    tt_fetch_int_kernel<<<(n + 127) / 128, 128>>>(t, fetch, d_at, n, d_out);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

static __global__ void tt_surface_2d_kernel(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w,
                                            int h, float *clamped)
{
    /* (x, y) covers [-2, w + 2) x [-2, h + 2): two elements past every edge */
    int x = (int)(blockIdx.x * blockDim.x + threadIdx.x) - 2;
    int y = (int)(blockIdx.y * blockDim.y + threadIdx.y) - 2;
    if (x >= w + 2 || y >= h + 2)
        return;
    clamped[(y + 2) * (w + 4) + x + 2] = surf2Dread<float>(in, x * 4, y, cudaBoundaryModeClamp);
    float v = surf2Dread<float>(in, x * 4, y, cudaBoundaryModeZero);
    surf2Dwrite(2.0f * v + 1.0f, out, x * 4, y, cudaBoundaryModeZero);
}

cudaError_t tt_surface_2d(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h,
                          float *d_clamped)
{
    dim3 block(16, 8), grid((w + 4 + 15) / 16, (h + 4 + 7) / 8);
    tt_surface_2d_kernel<<<grid, block>>>(in, out, w, h, d_clamped);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

static __global__ void tt_surface_layered_kernel(cudaSurfaceObject_t s, int w, int h, int layers)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    for (int l = 0; l < layers; l++) {
        uchar4 v = surf2DLayeredread<uchar4>(s, x * 4, y, l);
        v.x += 1, v.y += 2, v.z += 3, v.w += 4;
        surf2DLayeredwrite(v, s, x * 4, y, l);
    }
}

cudaError_t tt_surface_layered(cudaSurfaceObject_t s, int w, int h, int layers)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    tt_surface_layered_kernel<<<grid, block>>>(s, w, h, layers);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

static __global__ void tt_surface_3d_1d_kernel(cudaSurfaceObject_t s3, int w, int h, int d,
                                               cudaSurfaceObject_t s1, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    for (int z = 0; x < w && y < h && z < d; z++) {
        int2 v = surf3Dread<int2>(s3, x * 8, y, z);
        surf3Dwrite(make_int2(3 * v.x, v.y - 7), s3, x * 8, y, z);
    }
    if (y == 0 && x < n)
        surf1Dwrite((short)(surf1Dread<short>(s1, x * 2) ^ 0x5a5a), s1, x * 2);
}

cudaError_t tt_surface_3d_1d(cudaSurfaceObject_t s3, int w, int h, int d, cudaSurfaceObject_t s1,
                             int n)
{
    int wide = w > n ? w : n;
    dim3 block(16, 8), grid((wide + 15) / 16, (h + 7) / 8);
    tt_surface_3d_1d_kernel<<<grid, block>>>(s3, w, h, d, s1, n);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

static __global__ void tt_surface_store_at_kernel(cudaSurfaceObject_t s, int x, int y)
{
    surf2Dwrite(1.0f, s, x * 4, y); /* the out-of-range store */
}

cudaError_t tt_surface_store_at(cudaSurfaceObject_t s, int x, int y)
{
    tt_surface_store_at_kernel<<<1, 1>>>(s, x, y);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}
