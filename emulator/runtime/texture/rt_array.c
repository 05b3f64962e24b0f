/**
 * @file rt_array.c
 * @brief The runtime stand-in: CUDA arrays (1D, 2D, 3D, layered, cubemap) and the copies to
 *        and from them.
 *
 * An array is an ordinary device allocation that texture and surface objects (rt_texture.c)
 * point into, laid out row-major with no padding: element (x, y, slice) at
 * ((slice * rows) + y) * width + x elements from its start, where a slice is a z plane, a
 * layer, or a cubemap face (layer * 6 + face). A GPU's layout is opaque, so programs cannot
 * tell. Copies go through cudaMemcpy2D / cudaMemcpy2DAsync on that layout, so they queue,
 * synchronise and are checked as every copy is. cudaArray_t points to a struct of this file;
 * a pointer that names no live array is refused with one line.
 */
#include "rt_array.h"

#include <stdlib.h>
#include <string.h>

/** The struct behind cudaArray_t (CUDA declares it and never defines it for programs). */
struct cudaArray {
    struct cudaChannelFormatDesc desc;
    struct cudaExtent extent; /**< as asked: 0 for an absent height or depth */
    unsigned flags;           /**< cudaArrayLayered, cudaArrayCubemap, ... */
    struct rt_array_shape shape;
    struct cudaArray *next;
};

static struct cudaArray *arrays; /* every live array */
static pthread_mutex_t arrays_lock = PTHREAD_MUTEX_INITIALIZER;

int rt_channel_bytes(const struct cudaChannelFormatDesc *d, const char *who)
{
    int bits[4] = {d->x, d->y, d->z, d->w}, n = 0;
    while (n < 4 && bits[n] > 0)
        n++;
    int ok = (n == 1 || n == 2 || n == 4) && (bits[0] == 8 || bits[0] == 16 || bits[0] == 32);
    for (int i = 0; i < 4; i++)
        ok &= i < n ? bits[i] == bits[0] : bits[i] == 0;
    ok &= d->f == cudaChannelFormatKindSigned || d->f == cudaChannelFormatKindUnsigned ||
          (d->f == cudaChannelFormatKindFloat && bits[0] >= 16);
    if (!ok) {
        emu_say("%s: the channel format (%d, %d, %d, %d bits, kind %d) is not emulated: 1, 2 or 4 "
                "channels of 8, 16 or 32 bits, signed, unsigned or float (cudaErrorInvalidChannel"
                "Descriptor)",
                who, d->x, d->y, d->z, d->w, (int)d->f);
        return 0;
    }
    return n * bits[0] / 8;
}

/* The shape of an array of @p extent (elements) and @p flags; 0, or -1 after one line. */
static int shape_of(struct cudaExtent e, unsigned flags, size_t elem, struct rt_array_shape *s,
                    const char *who)
{
    int cube = (flags & cudaArrayCubemap) != 0, layered = (flags & cudaArrayLayered) != 0;
    s->elem = elem;
    s->width = e.width;
    s->rows = e.height ? e.height : 1;
    s->slices = e.depth ? e.depth : 1;
    s->depth = layered || cube ? 1 : s->slices;
    s->layered = layered;
    s->cubemap = cube;
    s->pitch = e.width * elem;
    int bad = e.width == 0 || (e.depth && !e.height && !layered) ||
              (cube && (e.width != e.height || e.depth % 6 || (!layered && e.depth != 6))) ||
              (layered && !e.depth) || (flags & ~0x0Fu);
    if (bad)
        emu_say("%s: an array of %zu x %zu x %zu elements with flags 0x%x is not a shape CUDA "
                "allows (cudaErrorInvalidValue)",
                who, e.width, e.height, e.depth, flags);
    return bad ? -1 : 0;
}

/* Make an array: its record and its device memory. */
static cudaError_t array_new(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                             struct cudaExtent e, unsigned flags, const char *who,
                             const void *caller)
{
    if (!array || !desc)
        return rt_error(cudaErrorInvalidValue);
    int elem = rt_channel_bytes(desc, who);
    if (!elem)
        return rt_error(cudaErrorInvalidChannelDescriptor);
    struct cudaArray *a = emu_calloc(1, sizeof *a);
    if (shape_of(e, flags, (size_t)elem, &a->shape, who)) {
        free(a);
        return rt_error(cudaErrorInvalidValue);
    }
    a->desc = *desc;
    a->extent = e;
    a->flags = flags;
    cudaError_t err =
        rt_malloc_at(&a->shape.dev, a->shape.pitch * a->shape.rows * a->shape.slices, caller);
    if (err != cudaSuccess) {
        free(a);
        return err;
    }
    pthread_mutex_lock(&arrays_lock);
    a->next = arrays;
    arrays = a;
    pthread_mutex_unlock(&arrays_lock);
    *array = a;
    return cudaSuccess;
}

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                            size_t width, size_t height, unsigned int flags)
{
    return array_new(array, desc, (struct cudaExtent){width, height, 0}, flags, "cudaMallocArray",
                     __builtin_return_address(0));
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                              struct cudaExtent extent, unsigned int flags)
{
    return array_new(array, desc, extent, flags, "cudaMalloc3DArray", __builtin_return_address(0));
}

/* The live array @p p names, or NULL after one line. */
static struct cudaArray *array_of(cudaArray_const_t p, const char *who)
{
    pthread_mutex_lock(&arrays_lock);
    struct cudaArray *a = arrays;
    while (a && a != p)
        a = a->next;
    pthread_mutex_unlock(&arrays_lock);
    if (!a)
        emu_say("%s: %p is not a live CUDA array (cudaErrorInvalidResourceHandle)", who,
                (const void *)p);
    return a;
}

int rt_array_shape(cudaArray_const_t array, const char *who, struct rt_array_shape *shape,
                   unsigned *flags)
{
    struct cudaArray *a = array_of(array, who);
    if (!a)
        return -1;
    *shape = a->shape;
    *flags = a->flags;
    return 0;
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
    if (!array)
        return cudaSuccess;
    struct cudaArray *a = array_of(array, "cudaFreeArray");
    if (!a)
        return rt_error(cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&arrays_lock);
    struct cudaArray **p = &arrays;
    while (*p != a)
        p = &(*p)->next;
    *p = a->next;
    pthread_mutex_unlock(&arrays_lock);
    cudaError_t err = cudaFree(a->shape.dev);
    free(a);
    return err;
}

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                             unsigned int *flags, cudaArray_t array)
{
    struct cudaArray *a = array_of(array, "cudaArrayGetInfo");
    if (!a)
        return rt_error(cudaErrorInvalidResourceHandle);
    if (desc)
        *desc = a->desc;
    if (extent)
        *extent = a->extent;
    if (flags)
        *flags = a->flags;
    return cudaSuccess;
}

cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
    struct cudaArray *a = array_of(array, "cudaGetChannelDesc");
    if (!a)
        return rt_error(cudaErrorInvalidResourceHandle);
    *desc = a->desc;
    return cudaSuccess;
}

/* ---- copies ------------------------------------------------------------------------------ */

/** One side of an array copy: where its first byte is, and its row and slice pitches. */
struct side {
    char *p;
    size_t pitch, slice;
};

/* The side of array @p a at element (x, y, z) for a box of @p wbytes x @p rows x @p slices;
 * 0, or -1 after one line when the box leaves the array. */
static int array_side(const struct cudaArray *a, size_t xbytes, size_t y, size_t z, size_t wbytes,
                      size_t rows, size_t slices, const char *who, struct side *s)
{
    const struct rt_array_shape *h = &a->shape;
    if (xbytes + wbytes > h->pitch || y + rows > h->rows || z + slices > h->slices) {
        emu_say("%s: a box of %zu bytes x %zu rows x %zu slices at (%zu bytes, %zu, %zu) leaves "
                "the array of %zu bytes x %zu rows x %zu slices (cudaErrorInvalidValue)",
                who, wbytes, rows, slices, xbytes, y, z, h->pitch, h->rows, h->slices);
        return -1;
    }
    s->pitch = h->pitch;
    s->slice = h->pitch * h->rows;
    s->p = (char *)h->dev + z * s->slice + y * s->pitch + xbytes;
    return 0;
}

/* Copy a box of @p wbytes x @p rows x @p slices between two sides, on @p stream when
 * @p async (else as cudaMemcpy2D). */
static cudaError_t copy_box(struct side d, struct side s, size_t wbytes, size_t rows, size_t slices,
                            enum cudaMemcpyKind kind, int async, cudaStream_t stream)
{
    if (d.slice == d.pitch * rows && s.slice == s.pitch * rows) /* the slices follow each other */
        rows *= slices, slices = 1;
    cudaError_t err = cudaSuccess;
    for (size_t z = 0; z < slices && err == cudaSuccess; z++)
        err = async ? cudaMemcpy2DAsync(d.p + z * d.slice, d.pitch, s.p + z * s.slice, s.pitch,
                                        wbytes, rows, kind, stream)
                    : cudaMemcpy2D(d.p + z * d.slice, d.pitch, s.p + z * s.slice, s.pitch, wbytes,
                                   rows, kind);
    return err;
}

/* A 2D copy into array @p dst at (@p x bytes, @p y) from pitched memory. */
static cudaError_t to_array(cudaArray_t dst, size_t x, size_t y, const void *src, size_t spitch,
                            size_t width, size_t height, enum cudaMemcpyKind kind, int async,
                            cudaStream_t stream, const char *who)
{
    struct cudaArray *a = array_of(dst, who);
    struct side d, s = {(char *)src, spitch, spitch * height};
    if (!a)
        return rt_error(cudaErrorInvalidResourceHandle);
    if (array_side(a, x, y, 0, width, height, 1, who, &d))
        return rt_error(cudaErrorInvalidValue);
    return copy_box(d, s, width, height, 1, kind, async, stream);
}

/* A 2D copy from array @p src at (@p x bytes, @p y) into pitched memory. */
static cudaError_t from_array(void *dst, size_t dpitch, cudaArray_const_t src, size_t x, size_t y,
                              size_t width, size_t height, enum cudaMemcpyKind kind, int async,
                              cudaStream_t stream, const char *who)
{
    struct cudaArray *a = array_of(src, who);
    struct side s, d = {dst, dpitch, dpitch * height};
    if (!a)
        return rt_error(cudaErrorInvalidResourceHandle);
    if (array_side(a, x, y, 0, width, height, 1, who, &s))
        return rt_error(cudaErrorInvalidValue);
    return copy_box(d, s, width, height, 1, kind, async, stream);
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                size_t spitch, size_t width, size_t height,
                                enum cudaMemcpyKind kind)
{
    return to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, 0, 0,
                    "cudaMemcpy2DToArray");
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t spitch, size_t width, size_t height,
                                     enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, 1, stream,
                    "cudaMemcpy2DToArrayAsync");
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height,
                                  enum cudaMemcpyKind kind)
{
    return from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, 0, 0,
                      "cudaMemcpy2DFromArray");
}

cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                       size_t wOffset, size_t hOffset, size_t width, size_t height,
                                       enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, 1, stream,
                      "cudaMemcpy2DFromArrayAsync");
}

/* The deprecated 1D forms: @p count bytes from row @p y, byte @p x on, which run on into the
 * following rows (the layout has no padding). */
static cudaError_t linear_side(cudaArray_const_t p, size_t x, size_t y, size_t count,
                               const char *who, char **at)
{
    struct cudaArray *a = array_of(p, who);
    if (!a)
        return rt_error(cudaErrorInvalidResourceHandle);
    size_t total = a->shape.pitch * a->shape.rows * a->shape.slices, off = y * a->shape.pitch + x;
    if (x > a->shape.pitch || off + count > total) {
        emu_say("%s: %zu bytes at (%zu bytes, row %zu) run past the array's %zu bytes "
                "(cudaErrorInvalidValue)",
                who, count, x, y, total);
        return rt_error(cudaErrorInvalidValue);
    }
    *at = (char *)a->shape.dev + off;
    return cudaSuccess;
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t count, enum cudaMemcpyKind kind)
{
    char *at = NULL;
    cudaError_t err = linear_side(dst, wOffset, hOffset, count, "cudaMemcpyToArray", &at);
    return err != cudaSuccess ? err : cudaMemcpy(at, src, count, kind);
}

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                   size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    char *at = NULL;
    cudaError_t err = linear_side(dst, wOffset, hOffset, count, "cudaMemcpyToArrayAsync", &at);
    return err != cudaSuccess ? err : cudaMemcpyAsync(at, src, count, kind, stream);
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                size_t count, enum cudaMemcpyKind kind)
{
    char *at = NULL;
    cudaError_t err = linear_side(src, wOffset, hOffset, count, "cudaMemcpyFromArray", &at);
    return err != cudaSuccess ? err : cudaMemcpy(dst, at, count, kind);
}

cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                     size_t hOffset, size_t count, enum cudaMemcpyKind kind,
                                     cudaStream_t stream)
{
    char *at = NULL;
    cudaError_t err = linear_side(src, wOffset, hOffset, count, "cudaMemcpyFromArrayAsync", &at);
    return err != cudaSuccess ? err : cudaMemcpyAsync(dst, at, count, kind, stream);
}

/* One side of a cudaMemcpy3D: an array at a position in elements, or pitched memory at a
 * position in bytes (x) and rows. 0, or -1 after one line. */
static int side_3d(cudaArray_t array, struct cudaPos pos, struct cudaPitchedPtr ptr, size_t wbytes,
                   size_t rows, size_t slices, const char *who, struct side *s)
{
    if (array) {
        struct cudaArray *a = array_of(array, who);
        return a ? array_side(a, pos.x * a->shape.elem, pos.y, pos.z, wbytes, rows, slices, who, s)
                 : -1;
    }
    if (!ptr.ptr || ptr.pitch < wbytes) {
        emu_say("%s: a side has neither an array nor a pointer with a pitch of at least %zu bytes "
                "(cudaErrorInvalidValue)",
                who, wbytes);
        return -1;
    }
    s->pitch = ptr.pitch;
    s->slice = ptr.pitch * (ptr.ysize ? ptr.ysize : rows);
    s->p = (char *)ptr.ptr + pos.z * s->slice + pos.y * s->pitch + pos.x;
    return 0;
}

/* cudaMemcpy3D and its Async form: the extent is in elements when an array takes part (the
 * source's, else the destination's), in bytes otherwise. */
static cudaError_t copy_3d(const struct cudaMemcpy3DParms *p, int async, cudaStream_t stream,
                           const char *who)
{
    if (!p)
        return rt_error(cudaErrorInvalidValue);
    cudaArray_t elems_of = p->srcArray ? p->srcArray : p->dstArray;
    struct cudaArray *a = elems_of ? array_of(elems_of, who) : NULL;
    if (elems_of && !a)
        return rt_error(cudaErrorInvalidResourceHandle);
    size_t wbytes = p->extent.width * (a ? a->shape.elem : 1);
    size_t rows = p->extent.height ? p->extent.height : 1;
    size_t slices = p->extent.depth ? p->extent.depth : 1;
    struct side d, s;
    if (side_3d(p->dstArray, p->dstPos, p->dstPtr, wbytes, rows, slices, who, &d) ||
        side_3d(p->srcArray, p->srcPos, p->srcPtr, wbytes, rows, slices, who, &s))
        return rt_error(cudaErrorInvalidValue);
    if (wbytes == 0)
        return cudaSuccess;
    return copy_box(d, s, wbytes, rows, slices, p->kind, async, stream);
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    return copy_3d(p, 0, 0, "cudaMemcpy3D");
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return copy_3d(p, 1, stream, "cudaMemcpy3DAsync");
}

/* The emulated GPUs share one memory: a copy between two is a copy in it. */
static struct cudaMemcpy3DParms peer_parms(const struct cudaMemcpy3DPeerParms *p)
{
    struct cudaMemcpy3DParms q = {0};
    q.srcArray = p->srcArray, q.srcPos = p->srcPos, q.srcPtr = p->srcPtr;
    q.dstArray = p->dstArray, q.dstPos = p->dstPos, q.dstPtr = p->dstPtr;
    q.extent = p->extent, q.kind = cudaMemcpyDeviceToDevice;
    return q;
}

cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p)
{
    struct cudaMemcpy3DParms q = peer_parms(p);
    return cudaMemcpy3D(&q);
}

cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream)
{
    struct cudaMemcpy3DParms q = peer_parms(p);
    return cudaMemcpy3DAsync(&q, stream);
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                     cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                     size_t width, size_t height, enum cudaMemcpyKind kind)
{
    const char *who = "cudaMemcpy2DArrayToArray";
    struct cudaArray *d = array_of(dst, who), *s = d ? array_of(src, who) : NULL;
    struct side ds, ss;
    if (!d || !s)
        return rt_error(cudaErrorInvalidResourceHandle);
    if (array_side(d, wOffsetDst, hOffsetDst, 0, width, height, 1, who, &ds) ||
        array_side(s, wOffsetSrc, hOffsetSrc, 0, width, height, 1, who, &ss))
        return rt_error(cudaErrorInvalidValue);
    return copy_box(ds, ss, width, height, 1, kind, 0, 0);
}

/* --- per-thread default streams (code built with --default-stream per-thread): the
 * synchronous copies go to this thread's stream (_ptds), and stream 0 names it (_ptsz) ------- */

cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t spitch, size_t width, size_t height,
                                     enum cudaMemcpyKind kind)
{
    rt_per_thread = 1;
    cudaError_t err = cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
    rt_per_thread = 0;
    return err;
}

cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                          const void *src, size_t spitch, size_t width,
                                          size_t height, enum cudaMemcpyKind kind,
                                          cudaStream_t stream)
{
    return cudaMemcpy2DToArrayAsync(dst, wOffset, hOffset, src, spitch, width, height, kind,
                                    rt_ptsz(stream));
}

cudaError_t cudaMemcpy2DFromArray_ptds(void *dst, size_t dpitch, cudaArray_const_t src,
                                       size_t wOffset, size_t hOffset, size_t width, size_t height,
                                       enum cudaMemcpyKind kind)
{
    rt_per_thread = 1;
    cudaError_t err =
        cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
    rt_per_thread = 0;
    return err;
}

cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void *dst, size_t dpitch, cudaArray_const_t src,
                                            size_t wOffset, size_t hOffset, size_t width,
                                            size_t height, enum cudaMemcpyKind kind,
                                            cudaStream_t stream)
{
    return cudaMemcpy2DFromArrayAsync(dst, dpitch, src, wOffset, hOffset, width, height, kind,
                                      rt_ptsz(stream));
}

/* The deprecated 1D forms' own per-thread forms. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
cudaError_t cudaMemcpyToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                   size_t count, enum cudaMemcpyKind kind)
{
    rt_per_thread = 1;
    cudaError_t err = cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind);
    rt_per_thread = 0;
    return err;
}

cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                        const void *src, size_t count, enum cudaMemcpyKind kind,
                                        cudaStream_t stream)
{
    return cudaMemcpyToArrayAsync(dst, wOffset, hOffset, src, count, kind, rt_ptsz(stream));
}

cudaError_t cudaMemcpyFromArray_ptds(void *dst, cudaArray_const_t src, size_t wOffset,
                                     size_t hOffset, size_t count, enum cudaMemcpyKind kind)
{
    rt_per_thread = 1;
    cudaError_t err = cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind);
    rt_per_thread = 0;
    return err;
}

cudaError_t cudaMemcpyFromArrayAsync_ptsz(void *dst, cudaArray_const_t src, size_t wOffset,
                                          size_t hOffset, size_t count, enum cudaMemcpyKind kind,
                                          cudaStream_t stream)
{
    return cudaMemcpyFromArrayAsync(dst, src, wOffset, hOffset, count, kind, rt_ptsz(stream));
}
#pragma GCC diagnostic pop

cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p)
{
    rt_per_thread = 1;
    cudaError_t err = cudaMemcpy3D(p);
    rt_per_thread = 0;
    return err;
}

cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return cudaMemcpy3DAsync(p, rt_ptsz(stream));
}

cudaError_t cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p)
{
    struct cudaMemcpy3DParms q = peer_parms(p);
    return cudaMemcpy3D_ptds(&q);
}

cudaError_t cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream)
{
    return cudaMemcpy3DPeerAsync(p, rt_ptsz(stream));
}

cudaError_t cudaMemcpy2DArrayToArray_ptds(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                          cudaArray_const_t src, size_t wOffsetSrc,
                                          size_t hOffsetSrc, size_t width, size_t height,
                                          enum cudaMemcpyKind kind)
{
    rt_per_thread = 1;
    cudaError_t err = cudaMemcpy2DArrayToArray(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc,
                                               hOffsetSrc, width, height, kind);
    rt_per_thread = 0;
    return err;
}
