/**
 * @file test_texture.c
 * @brief The emulator's texture suite: CUDA arrays, texture and surface objects, and the VM's
 *        tex, suld and sust (test_texture_kernels.cu), each against a host implementation of
 *        the rules of the CUDA C++ Programming Guide's "Texture Fetching" appendix.
 *
 * Every fetch is compared with ==: the host follows the same rule the emulator documents
 * (emulator/README.md, "Textures and surfaces"), weights rounded to 8 fractional bits and
 * each linear interpolation (1 - a) * t0 + a * t1 in fp32, x, then y, then z. Sizes are no
 * multiple of anything (33 x 17, 31, 7 x 5 x 3, cubemap faces of 9), texels are non-uniform,
 * coordinates fall inside and outside the texture, and surface stores have guard zones. The
 * error paths check their one line: a destroyed object, a pointer that is no object, a
 * surface store out of range, and formats the emulator does not model.
 *
 * CTest runs it with the emulator's libraries first on LD_LIBRARY_PATH, GPU or not.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "cuda_check.h"
#include "mat.h"
#include "ref.h"
#include "test_texture.h"

/* ---- the host's rule --------------------------------------------------------------------- */

/** A texture as the host reads it: every texel already as four floats, and its sampling. */
struct host_tex {
    int w, h, d;        /**< texels per row, rows, z planes (1 when absent) */
    int slices;         /**< z planes, layers, or 6 faces per layer */
    const float *texel; /**< 4 floats per texel, slice by slice, row by row */
    int mode[3];        /**< cudaTextureAddressMode per dimension */
    int linear, normalized;
    float border[4];
};

/* Index @p i of @p n under @p mode, or -1 for the border colour. */
static long host_index(long i, long n, int mode, int normalized)
{
    if (!normalized && (mode == cudaAddressModeWrap || mode == cudaAddressModeMirror))
        mode = cudaAddressModeClamp; /* wrap and mirror need normalized coordinates */
    if (mode == cudaAddressModeBorder)
        return i >= 0 && i < n ? i : -1;
    if (mode == cudaAddressModeWrap)
        return ((i % n) + n) % n;
    if (mode == cudaAddressModeMirror) {
        long p = ((i % (2 * n)) + 2 * n) % (2 * n);
        return p >= n ? 2 * n - 1 - p : p;
    }
    return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
}

/* Coordinate @p c in texels: a normalized one folded by wrap or mirror, then scaled. */
static float host_texels(float c, int n, int mode, int normalized)
{
    if (!normalized)
        return c;
    float whole = floorf(c), frac = c - whole;
    if (mode == cudaAddressModeWrap)
        c = frac;
    else if (mode == cudaAddressModeMirror)
        c = fmodf(whole, 2.0f) == 0.0f ? frac : 1.0f - frac;
    return c * (float)n;
}

/* Texel (i, j, k) as four floats (the border colour when an index is -1). */
static const float *host_texel(const struct host_tex *t, long i, long j, long k)
{
    if (i < 0 || j < 0 || k < 0)
        return t->border;
    return t->texel + 4 * ((k * t->h + j) * t->w + i);
}

/* The fetch at texel coordinates xs[0 .. dims) of slice @p k (z is xs[2] when dims is 3). */
static void host_sample(const struct host_tex *t, const float *xs, int dims, long k, float *out)
{
    long idx[3][2] = {{0, 0}, {0, 0}, {k, k}}, size[3] = {t->w, t->h, t->d};
    float wgt[3] = {0, 0, 0};
    for (int dim = 0; dim < dims; dim++) {
        float c = xs[dim] - (t->linear ? 0.5f : 0.0f), base = floorf(c);
        wgt[dim] = roundf((c - base) * 256.0f) / 256.0f;
        for (int s = 0; s < 2; s++)
            idx[dim][s] = host_index((long)base + s, size[dim], t->mode[dim], t->normalized);
    }
    if (!t->linear) {
        memcpy(out, host_texel(t, idx[0][0], idx[1][0], idx[2][0]), 4 * sizeof *out);
        return;
    }
    for (int ch = 0; ch < 4; ch++) {
        float zs[2];
        for (int z = 0; z < 2; z++) {
            float ys[2];
            for (int y = 0; y < 2; y++) {
                float lo = host_texel(t, idx[0][0], idx[1][y], idx[2][z])[ch];
                float hi = host_texel(t, idx[0][1], idx[1][y], idx[2][z])[ch];
                ys[y] = (1.0f - wgt[0]) * lo + wgt[0] * hi;
            }
            zs[z] = dims > 1 ? (1.0f - wgt[1]) * ys[0] + wgt[1] * ys[1] : ys[0];
        }
        out[ch] = dims > 2 ? (1.0f - wgt[2]) * zs[0] + wgt[2] * zs[1] : zs[0];
    }
}

/* The cubemap face of direction @p v and its coordinates in texels (the guide's table). */
static int host_cube(const struct host_tex *t, const float *v, float *xs)
{
    float ax = fabsf(v[0]), ay = fabsf(v[1]), az = fabsf(v[2]);
    int axis = ax >= ay && ax >= az ? 0 : ay >= az ? 1 : 2, neg = v[axis] < 0;
    static const float sc[6][3] = {{0, 0, -1}, {0, 0, 1}, {1, 0, 0},
                                   {1, 0, 0},  {1, 0, 0}, {-1, 0, 0}};
    static const float tc[6][3] = {{0, -1, 0}, {0, -1, 0}, {0, 0, 1},
                                   {0, 0, -1}, {0, -1, 0}, {0, -1, 0}};
    int face = 2 * axis + neg;
    float m = fabsf(v[axis]) > 0 ? fabsf(v[axis]) : 1.0f, s = 0, tt = 0; /* (0, 0, 0): +x */
    for (int i = 0; i < 3; i++)
        s += sc[face][i] * v[i], tt += tc[face][i] * v[i];
    xs[0] = (s / m + 1.0f) * 0.5f * (float)t->w;
    xs[1] = (tt / m + 1.0f) * 0.5f * (float)t->h;
    return face;
}

/* tex2Dgather: component @p comp of the 2 x 2 texels linear filtering blends at @p at,
 * (i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j). */
static void host_gather(const struct host_tex *t, const float *at, int comp, float *out)
{
    long i[2], j[2];
    float x = host_texels(at[0], t->w, t->mode[0], t->normalized) - 0.5f;
    float y = host_texels(at[1], t->h, t->mode[1], t->normalized) - 0.5f;
    for (int s = 0; s < 2; s++) {
        i[s] = host_index((long)floorf(x) + s, t->w, t->mode[0], t->normalized);
        j[s] = host_index((long)floorf(y) + s, t->h, t->mode[1], t->normalized);
    }
    out[0] = host_texel(t, i[0], j[1], 0)[comp];
    out[1] = host_texel(t, i[1], j[1], 0)[comp];
    out[2] = host_texel(t, i[1], j[0], 0)[comp];
    out[3] = host_texel(t, i[0], j[0], 0)[comp];
}

/* The host's fetch of @p geom at @p at (x, y, z, layer) into @p out. */
static void host_fetch(const struct host_tex *t, enum tt_geom geom, const float *at, float *out)
{
    if (geom == TT_2D_GATHER) {
        host_gather(t, at, (int)at[3] & 3, out);
        return;
    }
    int dims = geom == TT_1D || geom == TT_1D_LAYERED ? 1 : geom == TT_3D ? 3 : 2;
    long layers = geom == TT_CUBE ? t->slices / 6 : t->slices, k = 0;
    if (geom == TT_1D_LAYERED || geom == TT_2D_LAYERED)
        k = host_index((long)at[3], layers, cudaAddressModeClamp, 0);
    float xs[3];
    if (geom == TT_CUBE) {
        struct host_tex face = *t;
        face.mode[0] = face.mode[1] = cudaAddressModeClamp; /* faces clamp at their edges */
        host_sample(&face, xs, 2, host_cube(t, at, xs), out);
        return;
    }
    const int size[3] = {t->w, t->h, t->d};
    for (int dim = 0; dim < dims; dim++)
        xs[dim] = host_texels(at[dim], size[dim], t->mode[dim], t->normalized);
    host_sample(t, xs, dims, k, out);
}

/* ---- helpers ------------------------------------------------------------------------------ */

static void *to_device(const void *src, size_t bytes)
{
    void *d;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, src, bytes, cudaMemcpyHostToDevice));
    return d;
}

/* cudaMemcpyToArray at (0, 0): deprecated, but NVIDIA's samples (simpleTexture) still call it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static cudaError_t copy_to_array(cudaArray_t a, const void *src, size_t bytes)
{
    return cudaMemcpyToArray(a, 0, 0, src, bytes, cudaMemcpyHostToDevice);
}
#pragma GCC diagnostic pop

/* A non-uniform texel value: small, with quarters, signed. */
static float texel_value(int i, int c)
{
    return (float)((i * 37 + c * 11) % 29 - 14) + 0.25f * (float)((i + c) % 4);
}

/* n coordinates (x, y, z, layer) uniform in [lo, hi) per dimension, from @p seed; the first
 * few are texel centres and edges. */
static float *coords(int n, const float *lo, const float *hi, int layers, uint64_t seed)
{
    float *at = mat_alloc_f32((size_t)4 * n);
    for (int i = 0; i < n; i++) {
        for (int dim = 0; dim < 3; dim++) {
            float u = (float)(mat_rand_next(&seed) % 100000) / 100000.0f;
            at[4 * i + dim] = lo[dim] + u * (hi[dim] - lo[dim]);
            if (i < 8) /* exact centres and edges of the unnormalized grid */
                at[4 * i + dim] = (float)i * 0.5f - 1.0f;
        }
        at[4 * i + 3] = (float)((int)(mat_rand_next(&seed) % (uint64_t)(layers + 2)) - 1);
    }
    return at;
}

/* Fetch @p n points of @p geom on the device and compare every channel with the host. */
static void assert_fetches(cudaTextureObject_t obj, const struct host_tex *t, enum tt_geom geom,
                           const float *at, int n, const char *what)
{
    float4 *d_out, *got = mat_alloc((size_t)n * sizeof *got);
    float4 *d_at = to_device(at, (size_t)n * sizeof *d_at);
    CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)n * sizeof *d_out));
    CUDA_CHECK(tt_fetch(obj, geom, d_at, n, d_out));
    CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)n * sizeof *got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float want[4], g[4] = {got[i].x, got[i].y, got[i].z, got[i].w};
        host_fetch(t, geom, at + 4 * i, want);
        for (int c = 0; c < 4; c++)
            ck_assert_msg(g[c] == want[c],
                          "%s:%d %s, %dx%dx%d: point %d at (%g, %g, %g, layer %g) channel %d "
                          "is %.9g, want %.9g",
                          __FILE__, __LINE__, what, t->w, t->h, t->slices, i, at[4 * i],
                          at[4 * i + 1], at[4 * i + 2], at[4 * i + 3], c, g[c], want[c]);
    }
    CUDA_CHECK(cudaFree(d_at));
    CUDA_CHECK(cudaFree(d_out));
    free(got);
}

/* A texture object on @p array sampling as @p t says. */
static cudaTextureObject_t texture_on(cudaArray_t array, const struct host_tex *t, int read_norm)
{
    struct cudaResourceDesc res = {.resType = cudaResourceTypeArray};
    res.res.array.array = array;
    struct cudaTextureDesc td = {
        .addressMode = {t->mode[0], t->mode[1], t->mode[2]},
        .filterMode = t->linear ? cudaFilterModeLinear : cudaFilterModePoint,
        .readMode = read_norm ? cudaReadModeNormalizedFloat : cudaReadModeElementType,
        .normalizedCoords = t->normalized};
    memcpy(td.borderColor, t->border, sizeof td.borderColor);
    cudaTextureObject_t obj;
    CUDA_CHECK(cudaCreateTextureObject(&obj, &res, &td, NULL));
    return obj;
}

/* Host texels of a one-channel float texture of @p count texels (y = z = 0, w = 1) and the
 * floats the device array holds. */
static float *one_channel(int count, float **raw)
{
    float *t = mat_alloc_f32((size_t)4 * count);
    *raw = mat_alloc_f32((size_t)count);
    for (int i = 0; i < count; i++) {
        (*raw)[i] = texel_value(i, 0);
        t[4 * i] = (*raw)[i], t[4 * i + 1] = t[4 * i + 2] = 0, t[4 * i + 3] = 1;
    }
    return t;
}

/* ---- fetches ------------------------------------------------------------------------------ */

/* A 33 x 17 float array under every address mode, both filters, both coordinate kinds. */
START_TEST(filtering_and_address_modes_2d)
{
    enum { W = 33, H = 17, N = 300 };
    float *raw, *texels = one_channel(W * H, &raw);
    cudaArray_t a;
    struct cudaChannelFormatDesc f = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    CUDA_CHECK(cudaMallocArray(&a, &f, W, H, 0));
    CUDA_CHECK(cudaMemcpy2DToArray(a, 0, 0, raw, W * 4, W * 4, H, cudaMemcpyHostToDevice));
    for (int combo = 0; combo < 16; combo++) {
        int mode = combo & 3, normalized = (combo >> 2) & 1;
        struct host_tex t = {
            W, H, 1, 1, texels, {mode, mode, 0}, combo >> 3, normalized, {-3.5f, 2.25f, 0.5f, 7}};
        float lo[3] = {-5, -4, 0}, hi[3] = {W + 5, H + 4, 0};
        float nlo[3] = {-1.3f, -1.7f, 0}, nhi[3] = {2.4f, 2.1f, 0};
        float *at = coords(N, normalized ? nlo : lo, normalized ? nhi : hi, 1, 11 + combo);
        char what[96];
        snprintf(what, sizeof what, "tex2D, address mode %d, %s filter, %s coordinates", mode,
                 t.linear ? "linear" : "point", normalized ? "normalized" : "texel");
        cudaTextureObject_t obj = texture_on(a, &t, 0);
        assert_fetches(obj, &t, combo == 13 ? TT_2D_LOD : TT_2D, at, N, what);
        if (combo < 8) { /* the same coordinates gathered, component (layer & 3) */
            strcat(what, ", gathered");
            assert_fetches(obj, &t, TT_2D_GATHER, at, N, what);
        }
        CUDA_CHECK(cudaDestroyTextureObject(obj));
        free(at);
    }
    CUDA_CHECK(cudaFreeArray(a));
    free(raw);
    free(texels);
}
END_TEST

/* uchar4 and short2 read as normalized floats, half floats, and float2 in pitched memory. */
START_TEST(formats_and_read_modes)
{
    enum { W = 31, H = 5, N = 200 };
    unsigned char u8[W * 4];
    short s16[W * H * 2];
    float *want = mat_alloc_f32((size_t)4 * W * H);
    for (int i = 0; i < W * 4; i++)
        u8[i] = (unsigned char)(i * 73 % 256);
    for (int i = 0; i < W; i++)
        for (int c = 0; c < 4; c++)
            want[4 * i + c] = (float)u8[4 * i + c] / 255.0f;
    cudaArray_t a;
    struct cudaChannelFormatDesc f8 =
        cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    CUDA_CHECK(cudaMallocArray(&a, &f8, W, 0, 0));
    CUDA_CHECK(copy_to_array(a, u8, sizeof u8));
    struct host_tex t = {W, 1, 1, 1, want, {cudaAddressModeMirror, 0, 0}, 1, 1, {0, 0, 0, 0}};
    float lo[3] = {-1.5f, 0, 0}, hi[3] = {2.5f, 0, 0};
    float *at = coords(N, lo, hi, 1, 5);
    cudaTextureObject_t obj = texture_on(a, &t, 1);
    assert_fetches(obj, &t, TT_1D, at, N, "tex1D of uchar4, normalized read, linear, mirror");
    CUDA_CHECK(cudaDestroyTextureObject(obj));
    CUDA_CHECK(cudaFreeArray(a));
    for (int i = 0; i < W * H; i++)
        for (int c = 0; c < 2; c++) {
            s16[2 * i + c] = (short)((i * 7919 + c * 104729) % 65536 - 32768);
            float v = (float)s16[2 * i + c] / 32767.0f;
            want[4 * i + c] = v < -1.0f ? -1.0f : v;
        }
    for (int i = 0; i < W * H; i++)
        want[4 * i + 2] = 0, want[4 * i + 3] = 1;
    struct cudaChannelFormatDesc f16 =
        cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindSigned);
    CUDA_CHECK(cudaMallocArray(&a, &f16, W, H, 0));
    CUDA_CHECK(cudaMemcpy2DToArray(a, 0, 0, s16, W * 4, W * 4, H, cudaMemcpyHostToDevice));
    struct host_tex t2 = {W, H,    1,
                          1, want, {cudaAddressModeBorder, cudaAddressModeWrap, 0},
                          0, 1,    {0.5f, -0.5f, 0, 0}};
    float lo2[3] = {-0.4f, -1.2f, 0}, hi2[3] = {1.3f, 2.2f, 0};
    free(at);
    at = coords(N, lo2, hi2, 1, 6);
    obj = texture_on(a, &t2, 1);
    assert_fetches(obj, &t2, TT_2D, at, N, "tex2D of short2, normalized read, point, border/wrap");
    CUDA_CHECK(cudaDestroyTextureObject(obj));
    CUDA_CHECK(cudaFreeArray(a));
    free(at);
    free(want);
}
END_TEST

/* Half floats, and float2 texels in pitched linear memory with linear filtering. */
START_TEST(half_floats_and_pitched_memory)
{
    enum { W = 33, H = 17, PITCH = 320, N = 250 };
    float *want = mat_alloc_f32((size_t)4 * W * H);
    unsigned short half[W];
    for (int i = 0; i < W; i++) {
        float v = texel_value(i, 2); /* quarters of small integers: exact in fp16 */
        half[i] = ref_f32_to_f16(v);
        want[4 * i] = v, want[4 * i + 1] = want[4 * i + 2] = 0, want[4 * i + 3] = 1;
    }
    cudaArray_t a;
    struct cudaChannelFormatDesc fh =
        cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
    CUDA_CHECK(cudaMallocArray(&a, &fh, W, 0, 0));
    CUDA_CHECK(copy_to_array(a, half, sizeof half));
    struct host_tex t = {W, 1, 1, 1, want, {cudaAddressModeClamp, 0, 0}, 0, 0, {0, 0, 0, 0}};
    float lo[3] = {-3, 0, 0}, hi[3] = {W + 3, 0, 0};
    float *at = coords(N, lo, hi, 1, 8);
    cudaTextureObject_t obj = texture_on(a, &t, 0);
    assert_fetches(obj, &t, TT_1D, at, N, "tex1D of half, point, clamp");
    CUDA_CHECK(cudaDestroyTextureObject(obj));
    CUDA_CHECK(cudaFreeArray(a));
    float *host = mat_alloc_f32((size_t)PITCH / 4 * H);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) {
                want[4 * (y * W + x) + c] = c < 2 ? texel_value(y * W + x, c) : c == 3;
                if (c < 2)
                    host[y * PITCH / 4 + 2 * x + c] = want[4 * (y * W + x) + c];
            }
    float *d = to_device(host, (size_t)PITCH * H);
    struct cudaResourceDesc res = {.resType = cudaResourceTypePitch2D};
    res.res.pitch2D.devPtr = d;
    res.res.pitch2D.desc = cudaCreateChannelDesc(32, 32, 0, 0, cudaChannelFormatKindFloat);
    res.res.pitch2D.width = W, res.res.pitch2D.height = H, res.res.pitch2D.pitchInBytes = PITCH;
    struct cudaTextureDesc td = {.addressMode = {cudaAddressModeClamp, cudaAddressModeClamp},
                                 .filterMode = cudaFilterModeLinear};
    CUDA_CHECK(cudaCreateTextureObject(&obj, &res, &td, NULL));
    struct host_tex t2 = {
        W, H, 1, 1, want, {cudaAddressModeClamp, cudaAddressModeClamp, 0}, 1, 0, {0, 0, 0, 0}};
    float lo2[3] = {-2, -2, 0}, hi2[3] = {W + 2, H + 2, 0};
    free(at);
    at = coords(N, lo2, hi2, 1, 9);
    assert_fetches(obj, &t2, TT_2D, at, N, "tex2D of float2 in pitched memory, linear, clamp");
    CUDA_CHECK(cudaDestroyTextureObject(obj));
    CUDA_CHECK(cudaFree(d));
    free(at);
    free(host);
    free(want);
}
END_TEST

/* A 3D array, a 1D and a 2D layered one, and a cubemap, filled with cudaMemcpy3D. */
static cudaArray_t array_3d(struct cudaExtent e, unsigned flags, const float *raw)
{
    cudaArray_t a;
    struct cudaChannelFormatDesc f = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    CUDA_CHECK(cudaMalloc3DArray(&a, &f, e, flags));
    size_t rows = e.height ? e.height : 1;
    struct cudaMemcpy3DParms p = {.dstArray = a, .kind = cudaMemcpyHostToDevice};
    p.srcPtr = make_cudaPitchedPtr((void *)raw, e.width * 4, e.width, rows);
    p.extent = make_cudaExtent(e.width, rows, e.depth);
    CUDA_CHECK(cudaMemcpy3D(&p));
    return a;
}

START_TEST(three_d_layered_and_cubemap)
{
    enum { N = 250 };
    float *raw, *texels = one_channel(33 * 17 * 6, &raw);
    struct {
        struct cudaExtent e;
        unsigned flags;
        enum tt_geom geom;
        int slices, linear, normalized, mode;
        float lo[3], hi[3];
    } cases[] = {
        {{7, 5, 3}, 0, TT_3D, 3, 1, 1, cudaAddressModeWrap, {-1.2f, -1, -1}, {2, 2.5f, 2.2f}},
        {{31, 0, 2},
         cudaArrayLayered,
         TT_1D_LAYERED,
         2,
         0,
         0,
         cudaAddressModeBorder,
         {-3, 0, 0},
         {34, 0, 0}},
        {{33, 17, 3},
         cudaArrayLayered,
         TT_2D_LAYERED,
         3,
         1,
         0,
         cudaAddressModeClamp,
         {-2, -2, 0},
         {35, 19, 0}},
        {{9, 9, 6},
         cudaArrayCubemap,
         TT_CUBE,
         6,
         1,
         1,
         cudaAddressModeWrap,
         {-1, -1, -1},
         {1, 1, 1}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cudaExtent e = cases[i].e;
        struct host_tex t = {(int)e.width,
                             e.height ? (int)e.height : 1,
                             cases[i].geom == TT_3D ? (int)e.depth : 1,
                             cases[i].slices,
                             texels,
                             {cases[i].mode, cases[i].mode, cases[i].mode},
                             cases[i].linear,
                             cases[i].normalized,
                             {1.5f, 0, 0, 1}};
        cudaArray_t a = array_3d(e, cases[i].flags, raw);
        float *at = coords(N, cases[i].lo, cases[i].hi, cases[i].slices, 20 + i);
        cudaTextureObject_t obj = texture_on(a, &t, 0);
        static const char *names[] = {"tex3D, linear, wrap", "tex1DLayered, point, border",
                                      "tex2DLayered, linear, clamp", "texCubemap, linear"};
        assert_fetches(obj, &t, cases[i].geom, at, N, names[i]);
        CUDA_CHECK(cudaDestroyTextureObject(obj));
        CUDA_CHECK(cudaFreeArray(a));
        free(at);
    }
    free(raw);
    free(texels);
}
END_TEST

/* tex1Dfetch of ints in linear memory (0 outside, as CUDA defines it) and tex2D of uchar4
 * read as integers. */
START_TEST(integer_fetches)
{
    enum { N = 37, W = 9, H = 7, P = 60 };
    int vals[N];
    unsigned char u8[W * H * 4];
    int2 at[P];
    for (int i = 0; i < N; i++)
        vals[i] = (i * 7919) % 1000 - 500;
    for (int i = 0; i < W * H * 4; i++)
        u8[i] = (unsigned char)(i * 151 % 256);
    for (int i = 0; i < P; i++)
        at[i] = (int2){i - 10, (i * 5) % (H + 4) - 2};
    int *d_vals = to_device(vals, sizeof vals);
    int2 *d_at = to_device(at, sizeof at);
    int4 *d_out, got[P];
    CUDA_CHECK(cudaMalloc((void **)&d_out, sizeof got));
    struct cudaResourceDesc res = {.resType = cudaResourceTypeLinear};
    res.res.linear.devPtr = d_vals;
    res.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindSigned);
    res.res.linear.sizeInBytes = sizeof vals;
    struct cudaTextureDesc td = {.filterMode = cudaFilterModePoint};
    cudaTextureObject_t obj;
    CUDA_CHECK(cudaCreateTextureObject(&obj, &res, &td, NULL));
    CUDA_CHECK(tt_fetch_int(obj, 1, d_at, P, d_out));
    CUDA_CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < P; i++) {
        int in = at[i].x >= 0 && at[i].x < N;
        int want[4] = {in ? vals[at[i].x] : 0, 0, 0, in};
        int g[4] = {got[i].x, got[i].y, got[i].z, got[i].w};
        for (int c = 0; c < 4; c++)
            ck_assert_msg(g[c] == want[c],
                          "%s:%d tex1Dfetch of %d ints at %d: channel %d is %d, "
                          "want %d",
                          __FILE__, __LINE__, N, at[i].x, c, g[c], want[c]);
    }
    CUDA_CHECK(cudaDestroyTextureObject(obj));
    cudaArray_t a;
    struct cudaChannelFormatDesc f8 =
        cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    CUDA_CHECK(cudaMallocArray(&a, &f8, W, H, 0));
    CUDA_CHECK(cudaMemcpy2DToArray(a, 0, 0, u8, W * 4, W * 4, H, cudaMemcpyHostToDevice));
    res = (struct cudaResourceDesc){.resType = cudaResourceTypeArray};
    res.res.array.array = a;
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    CUDA_CHECK(cudaCreateTextureObject(&obj, &res, &td, NULL));
    CUDA_CHECK(tt_fetch_int(obj, 0, d_at, P, d_out));
    CUDA_CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < P; i++) {
        int x = at[i].x < 0 ? 0 : at[i].x >= W ? W - 1 : at[i].x;
        int y = at[i].y < 0 ? 0 : at[i].y >= H ? H - 1 : at[i].y;
        const unsigned char *p = u8 + 4 * (y * W + x);
        int g[4] = {got[i].x, got[i].y, got[i].z, got[i].w};
        for (int c = 0; c < 4; c++)
            ck_assert_msg(g[c] == p[c],
                          "%s:%d tex2D of %dx%d uchar4 at (%d, %d): channel %d is "
                          "%d, want %d",
                          __FILE__, __LINE__, W, H, at[i].x, at[i].y, c, g[c], p[c]);
    }
    CUDA_CHECK(cudaDestroyTextureObject(obj));
    CUDA_CHECK(cudaFreeArray(a));
    CUDA_CHECK(cudaFree(d_vals));
    CUDA_CHECK(cudaFree(d_at));
    CUDA_CHECK(cudaFree(d_out));
}
END_TEST

/* ---- surfaces ----------------------------------------------------------------------------- */

/* A surface object on array @p a. */
static cudaSurfaceObject_t surface_on(cudaArray_t a)
{
    struct cudaResourceDesc res = {.resType = cudaResourceTypeArray};
    res.res.array.array = a;
    cudaSurfaceObject_t s;
    CUDA_CHECK(cudaCreateSurfaceObject(&s, &res));
    return s;
}

/* A surface object on a new w x h float array holding @p vals. */
static cudaSurfaceObject_t float_surface(int w, int h, const float *vals, cudaArray_t *a)
{
    struct cudaChannelFormatDesc f = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    CUDA_CHECK(cudaMallocArray(a, &f, (size_t)w, (size_t)h, cudaArraySurfaceLoadStore));
    CUDA_CHECK(cudaMemcpy2DToArray(*a, 0, 0, vals, (size_t)w * 4, (size_t)w * 4, (size_t)h,
                                   cudaMemcpyHostToDevice));
    return surface_on(*a);
}

/* Clamped reads everywhere around a 33 x 17 surface, stores with zero dropped outside it: the
 * output array holds 2v + 1 exactly, and the guard past the clamped buffer is untouched. */
START_TEST(surfaces_clamp_zero_and_guards)
{
    enum { W = 33, H = 17, EW = W + 4, EH = H + 4, GUARD = 64 };
    float in[W * H], out[W * H], sentinel[W * H], *clamped = mat_alloc_f32(EW * EH + GUARD);
    for (int i = 0; i < W * H; i++)
        in[i] = texel_value(i, 1), sentinel[i] = -1000.0f - (float)i;
    for (int i = 0; i < EW * EH + GUARD; i++)
        clamped[i] = 12345.0f;
    cudaArray_t a_in, a_out;
    cudaSurfaceObject_t s_in = float_surface(W, H, in, &a_in);
    cudaSurfaceObject_t s_out = float_surface(W, H, sentinel, &a_out);
    float *d_clamped = to_device(clamped, (EW * EH + GUARD) * sizeof *clamped);
    CUDA_CHECK(tt_surface_2d(s_in, s_out, W, H, d_clamped));
    CUDA_CHECK(cudaMemcpy2DFromArray(out, W * 4, a_out, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(clamped, d_clamped, (EW * EH + GUARD) * sizeof *clamped,
                          cudaMemcpyDeviceToHost));
    for (int i = 0; i < W * H; i++)
        ck_assert_msg(out[i] == 2 * in[i] + 1, "%s:%d surface %dx%d: (%d, %d) is %g, want %g",
                      __FILE__, __LINE__, W, H, i % W, i / W, out[i], 2 * in[i] + 1);
    for (int y = -2; y < H + 2; y++)
        for (int x = -2; x < W + 2; x++) {
            int cx = x < 0 ? 0 : x >= W ? W - 1 : x, cy = y < 0 ? 0 : y >= H ? H - 1 : y;
            float g = clamped[(y + 2) * EW + x + 2];
            ck_assert_msg(g == in[cy * W + cx],
                          "%s:%d clamped read of %dx%d at (%d, %d) is %g, "
                          "want %g",
                          __FILE__, __LINE__, W, H, x, y, g, in[cy * W + cx]);
        }
    for (int i = EW * EH; i < EW * EH + GUARD; i++)
        ck_assert_msg(clamped[i] == 12345.0f,
                      "%s:%d guard float %d after the %dx%d output was "
                      "overwritten",
                      __FILE__, __LINE__, i - EW * EH, EW, EH);
    CUDA_CHECK(cudaDestroySurfaceObject(s_in));
    CUDA_CHECK(cudaDestroySurfaceObject(s_out));
    CUDA_CHECK(cudaFreeArray(a_in));
    CUDA_CHECK(cudaFreeArray(a_out));
    CUDA_CHECK(cudaFree(d_clamped));
    free(clamped);
}
END_TEST

/* A 33 x 17 x 3 layered uchar4 surface, in and out through cudaMemcpy3D. */
START_TEST(layered_uchar4_surface)
{
    enum { W = 33, H = 17, L = 3, BYTES = W * H * L * 4 };
    unsigned char *host = mat_alloc(BYTES), *back = mat_alloc(BYTES);
    for (int i = 0; i < BYTES; i++)
        host[i] = (unsigned char)(i * 97 % 256);
    cudaArray_t a;
    struct cudaChannelFormatDesc f8 =
        cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    CUDA_CHECK(cudaMalloc3DArray(&a, &f8, make_cudaExtent(W, H, L),
                                 cudaArrayLayered | cudaArraySurfaceLoadStore));
    struct cudaMemcpy3DParms p = {.dstArray = a, .kind = cudaMemcpyHostToDevice};
    p.srcPtr = make_cudaPitchedPtr(host, W * 4, W, H);
    p.extent = make_cudaExtent(W, H, L);
    CUDA_CHECK(cudaMemcpy3D(&p));
    struct cudaResourceDesc res = {.resType = cudaResourceTypeArray};
    res.res.array.array = a;
    cudaSurfaceObject_t s;
    CUDA_CHECK(cudaCreateSurfaceObject(&s, &res));
    CUDA_CHECK(tt_surface_layered(s, W, H, L));
    p = (struct cudaMemcpy3DParms){.srcArray = a, .kind = cudaMemcpyDeviceToHost};
    p.dstPtr = make_cudaPitchedPtr(back, W * 4, W, H);
    p.extent = make_cudaExtent(W, H, L);
    CUDA_CHECK(cudaMemcpy3D(&p));
    for (int i = 0; i < BYTES; i++) {
        unsigned char want = (unsigned char)(host[i] + 1 + i % 4);
        ck_assert_msg(back[i] == want,
                      "%s:%d layered surface %dx%dx%d: byte %d of (%d, %d, "
                      "layer %d) is %d, want %d",
                      __FILE__, __LINE__, W, H, L, i % 4, i / 4 % W, i / 4 / W % H, i / 4 / W / H,
                      back[i], want);
    }
    CUDA_CHECK(cudaDestroySurfaceObject(s));
    CUDA_CHECK(cudaFreeArray(a));
    free(host);
    free(back);
}
END_TEST

/* What a launch printed, run through @p launch, with its error. */
#define SAID(err, said, launch)                                                                    \
    do {                                                                                           \
        struct capture cap_;                                                                       \
        capture_begin(&cap_, 2);                                                                   \
        err = (launch);                                                                            \
        said = capture_end(&cap_);                                                                 \
    } while (0)

/* A 7 x 5 x 3 int2 3D surface and a 37-element 1D short one, read and written in place. */
START_TEST(three_d_and_one_d_surfaces)
{
    enum { W = 7, H = 5, D = 3, N = 37 };
    int v[W * H * D * 2], back[W * H * D * 2];
    short s[N], sback[N];
    for (int i = 0; i < W * H * D * 2; i++)
        v[i] = (i * 7919) % 2001 - 1000;
    for (int i = 0; i < N; i++)
        s[i] = (short)(i * 4099 % 65536 - 32768);
    cudaArray_t a3, a1;
    struct cudaChannelFormatDesc f3 =
        cudaCreateChannelDesc(32, 32, 0, 0, cudaChannelFormatKindSigned);
    struct cudaChannelFormatDesc f1 =
        cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindSigned);
    CUDA_CHECK(cudaMalloc3DArray(&a3, &f3, make_cudaExtent(W, H, D), cudaArraySurfaceLoadStore));
    CUDA_CHECK(cudaMallocArray(&a1, &f1, N, 0, cudaArraySurfaceLoadStore));
    struct cudaMemcpy3DParms p = {.dstArray = a3, .kind = cudaMemcpyHostToDevice};
    p.srcPtr = make_cudaPitchedPtr(v, W * 8, W, H);
    p.extent = make_cudaExtent(W, H, D);
    CUDA_CHECK(cudaMemcpy3D(&p));
    CUDA_CHECK(cudaMemcpy2DToArray(a1, 0, 0, s, sizeof s, sizeof s, 1, cudaMemcpyHostToDevice));
    cudaSurfaceObject_t s3 = surface_on(a3), s1 = surface_on(a1);
    CUDA_CHECK(tt_surface_3d_1d(s3, W, H, D, s1, N));
    p = (struct cudaMemcpy3DParms){.srcArray = a3, .kind = cudaMemcpyDeviceToHost};
    p.dstPtr = make_cudaPitchedPtr(back, W * 8, W, H);
    p.extent = make_cudaExtent(W, H, D);
    CUDA_CHECK(cudaMemcpy3D(&p));
    CUDA_CHECK(
        cudaMemcpy2DFromArray(sback, sizeof s, a1, 0, 0, sizeof s, 1, cudaMemcpyDeviceToHost));
    for (int i = 0; i < W * H * D * 2; i++) {
        int want = i % 2 ? v[i] - 7 : 3 * v[i];
        ck_assert_msg(back[i] == want,
                      "%s:%d int2 surface %dx%dx%d: (%d, %d, %d).%c is %d, want %d", __FILE__,
                      __LINE__, W, H, D, i / 2 % W, i / 2 / W % H, i / 2 / W / H, "xy"[i % 2],
                      back[i], want);
    }
    for (int i = 0; i < N; i++)
        ck_assert_msg(sback[i] == (short)(s[i] ^ 0x5a5a),
                      "%s:%d short surface of %d: %d is %d, want %d", __FILE__, __LINE__, N, i,
                      sback[i], (short)(s[i] ^ 0x5a5a));
    CUDA_CHECK(cudaDestroySurfaceObject(s3));
    CUDA_CHECK(cudaDestroySurfaceObject(s1));
    CUDA_CHECK(cudaFreeArray(a3));
    CUDA_CHECK(cudaFreeArray(a1));
}
END_TEST

/* ---- arrays ------------------------------------------------------------------------------- */

/* Copies in and out of a 33 x 17 array (2D, asynchronous on a stream from pinned memory, array
 * to array, 3D out), the queries, and a copy past the array's end refused with one line. */
START_TEST(array_copies_and_queries)
{
    enum { W = 33, H = 17 };
    float *pinned, back[W * H], sub[5 * 4];
    CUDA_CHECK(cudaMallocHost((void **)&pinned, W * H * sizeof *pinned));
    for (int i = 0; i < W * H; i++)
        pinned[i] = texel_value(i, 3);
    cudaArray_t a, b;
    cudaStream_t st;
    struct cudaChannelFormatDesc f = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    CUDA_CHECK(cudaMallocArray(&a, &f, W, H, 0));
    CUDA_CHECK(cudaMallocArray(&b, &f, W, H, 0));
    CUDA_CHECK(cudaStreamCreate(&st));
    CUDA_CHECK(
        cudaMemcpy2DToArrayAsync(a, 0, 0, pinned, W * 4, W * 4, H, cudaMemcpyHostToDevice, st));
    CUDA_CHECK(cudaMemcpy2DArrayToArray(b, 0, 0, a, 0, 0, W * 4, H, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(
        cudaMemcpy2DFromArrayAsync(sub, 5 * 4, b, 7 * 4, 11, 5 * 4, 4, cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaStreamSynchronize(st));
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 5; x++)
            ck_assert_msg(sub[y * 5 + x] == pinned[(y + 11) * W + x + 7],
                          "%s:%d 5x4 box at (7, 11) of %dx%d: (%d, %d) is %g, want %g", __FILE__,
                          __LINE__, W, H, x, y, sub[y * 5 + x], pinned[(y + 11) * W + x + 7]);
    CUDA_CHECK(cudaMemcpy3DAsync(
        &(struct cudaMemcpy3DParms){.srcArray = b,
                                    .dstPtr = make_cudaPitchedPtr(back, W * 4, W, H),
                                    .extent = make_cudaExtent(W, H, 1),
                                    .kind = cudaMemcpyDeviceToHost},
        st));
    CUDA_CHECK(cudaStreamSynchronize(st));
    ck_assert_msg(!memcmp(back, pinned, sizeof back), "%s:%d %dx%d array to array changed bytes",
                  __FILE__, __LINE__, W, H);
    struct cudaChannelFormatDesc got;
    struct cudaExtent e;
    unsigned flags;
    CUDA_CHECK(cudaArrayGetInfo(&got, &e, &flags, a));
    ck_assert(got.x == 32 && got.f == cudaChannelFormatKindFloat && e.width == W && e.height == H &&
              e.depth == 0 && flags == 0);
    cudaError_t err;
    char *said;
    SAID(err, said, cudaMemcpy2DToArray(a, 4, 1, pinned, W * 4, W * 4, H, cudaMemcpyHostToDevice));
    ck_assert_int_eq(err, cudaErrorInvalidValue);
    ck_assert_msg(strstr(said, "cudaMemcpy2DToArray: a box of 132 bytes x 17 rows x 1 slices at "
                               "(4 bytes, 1, 0) leaves the array of 132 bytes x 17 rows"),
                  "%s", said);
    free(said);
    CUDA_CHECK(cudaStreamDestroy(st));
    CUDA_CHECK(cudaFreeArray(a));
    CUDA_CHECK(cudaFreeArray(b));
    CUDA_CHECK(cudaFreeHost(pinned));
}
END_TEST

/* An object answers what it was made from. */
START_TEST(objects_answer_their_descriptions)
{
    cudaArray_t a;
    struct cudaChannelFormatDesc f = cudaCreateChannelDesc(8, 8, 0, 0, cudaChannelFormatKindSigned);
    CUDA_CHECK(cudaMallocArray(&a, &f, 31, 0, cudaArraySurfaceLoadStore));
    struct cudaResourceDesc res = {.resType = cudaResourceTypeArray}, got_res;
    res.res.array.array = a;
    struct cudaTextureDesc td = {.addressMode = {cudaAddressModeMirror},
                                 .filterMode = cudaFilterModeLinear,
                                 .readMode = cudaReadModeNormalizedFloat,
                                 .borderColor = {1, 2, 3, 4},
                                 .normalizedCoords = 1},
                           got_td;
    cudaTextureObject_t t;
    cudaSurfaceObject_t s;
    CUDA_CHECK(cudaCreateTextureObject(&t, &res, &td, NULL));
    CUDA_CHECK(cudaCreateSurfaceObject(&s, &res));
    CUDA_CHECK(cudaGetTextureObjectResourceDesc(&got_res, t));
    ck_assert(got_res.resType == cudaResourceTypeArray && got_res.res.array.array == a);
    CUDA_CHECK(cudaGetTextureObjectTextureDesc(&got_td, t));
    ck_assert(!memcmp(&got_td, &td, sizeof td));
    CUDA_CHECK(cudaGetSurfaceObjectResourceDesc(&got_res, s));
    ck_assert(got_res.res.array.array == a);
    ck_assert_int_eq(cudaGetSurfaceObjectResourceDesc(&got_res, t), cudaErrorInvalidValue);
    CUDA_CHECK(cudaDestroySurfaceObject(s));
    CUDA_CHECK(cudaDestroyTextureObject(t));
    CUDA_CHECK(cudaFreeArray(a));
}
END_TEST

/* ---- what fails, and how ------------------------------------------------------------------ */

/* A fetch through a destroyed object, and through a pointer that is no object, each fails its
 * launch with one line naming the kernel's line. */
START_TEST(destroyed_or_bogus_object_fails_its_launch)
{
    float *raw, *texels = one_channel(33 * 17, &raw);
    struct host_tex t = {33, 17, 1, 1, texels, {1, 1, 1}, 0, 0, {0, 0, 0, 0}};
    cudaArray_t a;
    struct cudaChannelFormatDesc f = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    CUDA_CHECK(cudaMallocArray(&a, &f, 33, 17, 0));
    cudaTextureObject_t obj = texture_on(a, &t, 0);
    CUDA_CHECK(cudaDestroyTextureObject(obj));
    float4 at[1] = {{1, 1, 0, 0}}, *d_at = to_device(at, sizeof at), *d_out;
    CUDA_CHECK(cudaMalloc((void **)&d_out, sizeof at));
    cudaError_t err;
    char *said;
    SAID(err, said, tt_fetch(obj, TT_2D, d_at, 1, d_out));
    ck_assert_int_eq(err, cudaErrorIllegalAddress);
    capture_assert_at(said, TEST_TEXTURE_KERNELS, "tex2D<float4>(t, c.x, c.y);", "was destroyed");
    free(said);
    CUDA_CHECK(cudaDeviceReset());
    CUDA_CHECK(cudaMalloc((void **)&d_out, 256)); /* room for a descriptor, holding zeros */
    CUDA_CHECK(cudaMemset(d_out, 0, 256));
    SAID(err, said,
         tt_fetch((cudaTextureObject_t)(uintptr_t)d_out, TT_2D, (float4 *)d_out, 1, d_out));
    ck_assert_int_eq(err, cudaErrorIllegalAddress);
    capture_assert_at(said, TEST_TEXTURE_KERNELS, "tex2D<float4>(t, c.x, c.y);",
                      "is not a texture object");
    free(said);
    free(raw);
    free(texels);
}
END_TEST

/* A surface store outside the surface with cudaBoundaryModeTrap faults with one line. */
START_TEST(surface_store_out_of_range_traps)
{
    float vals[5 * 3] = {0};
    cudaArray_t a;
    cudaSurfaceObject_t s = float_surface(5, 3, vals, &a);
    CUDA_CHECK(tt_surface_store_at(s, 4, 2));
    cudaError_t err;
    char *said;
    SAID(err, said, tt_surface_store_at(s, 5, 2));
    ck_assert_int_eq(err, cudaErrorIllegalAddress);
    capture_assert_at(said, TEST_TEXTURE_KERNELS, "the out-of-range store",
                      "outside the surface at x = 20 bytes, y = 2");
    free(said);
}
END_TEST

/* Formats and descriptions the emulator does not model answer one line and CUDA's error. */
START_TEST(unsupported_formats_answer_one_line)
{
    cudaArray_t a;
    struct cudaChannelFormatDesc three =
        cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
    struct cudaChannelFormatDesc i32 =
        cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindSigned);
    cudaError_t err;
    char *said;
    SAID(err, said, cudaMallocArray(&a, &three, 33, 17, 0));
    ck_assert_int_eq(err, cudaErrorInvalidChannelDescriptor);
    ck_assert_msg(strstr(said, "cudaMallocArray: the channel format (32, 32, 32, 0 bits") &&
                      !strchr(strchr(said, '\n') + 1, '\n'),
                  "%s", said);
    free(said);
    CUDA_CHECK(cudaMallocArray(&a, &i32, 33, 17, 0));
    struct cudaResourceDesc res = {.resType = cudaResourceTypeArray};
    res.res.array.array = a;
    struct cudaTextureDesc td = {.filterMode = cudaFilterModeLinear};
    cudaTextureObject_t obj;
    SAID(err, said, cudaCreateTextureObject(&obj, &res, &td, NULL));
    ck_assert_int_eq(err, cudaErrorInvalidValue);
    ck_assert_msg(strstr(said, "linear filtering needs float texels"), "%s", said);
    free(said);
    cudaSurfaceObject_t s;
    SAID(err, said, cudaCreateSurfaceObject(&s, &res));
    ck_assert_int_eq(err, cudaErrorInvalidValue);
    ck_assert_msg(strstr(said, "without cudaArraySurfaceLoadStore"), "%s", said);
    free(said);
    res.resType = cudaResourceTypeMipmappedArray;
    SAID(err, said, cudaCreateTextureObject(&obj, &res, &td, NULL));
    ck_assert_int_eq(err, cudaErrorNotSupported);
    ck_assert_msg(strstr(said, "mipmapped array) is not emulated"), "%s", said);
    free(said);
    SAID(err, said, cudaDestroyTextureObject(12345));
    ck_assert_int_eq(err, cudaErrorInvalidValue);
    ck_assert_msg(strstr(said, "0x3039 is not a live texture object"), "%s", said);
    free(said);
    SAID(err, said, cudaFreeArray((cudaArray_t)&res));
    ck_assert_int_eq(err, cudaErrorInvalidResourceHandle);
    ck_assert_msg(strstr(said, "is not a live CUDA array"), "%s", said);
    free(said);
    CUDA_CHECK(cudaFreeArray(a));
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"filtering_and_address_modes_2d", filtering_and_address_modes_2d, CASE_GPU, 120},
        {"formats_and_read_modes", formats_and_read_modes, CASE_GPU, 60},
        {"half_floats_and_pitched_memory", half_floats_and_pitched_memory, CASE_GPU, 60},
        {"three_d_layered_and_cubemap", three_d_layered_and_cubemap, CASE_GPU, 60},
        {"integer_fetches", integer_fetches, CASE_GPU, 60},
        {"surfaces_clamp_zero_and_guards", surfaces_clamp_zero_and_guards, CASE_GPU, 60},
        {"layered_uchar4_surface", layered_uchar4_surface, CASE_GPU, 60},
        {"three_d_and_one_d_surfaces", three_d_and_one_d_surfaces, CASE_GPU, 60},
        {"array_copies_and_queries", array_copies_and_queries, CASE_GPU, 60},
        {"objects_answer_their_descriptions", objects_answer_their_descriptions, CASE_GPU, 60},
        {"destroyed_or_bogus_object_fails_its_launch", destroyed_or_bogus_object_fails_its_launch,
         CASE_GPU, 60},
        {"surface_store_out_of_range_traps", surface_store_out_of_range_traps, CASE_GPU, 60},
        {"unsupported_formats_answer_one_line", unsupported_formats_answer_one_line, CASE_GPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
