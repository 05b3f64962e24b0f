/**
 * @file test_hopper.c
 * @brief Hopper's asynchronous copies on the VM (test_hopper_kernels.cu, sm_90a), against the
 *        host's reading of the PTX ISA and the CUDA C++ Programming Guide.
 *
 * The tensor maps are made as public Hopper code makes them: cuTensorMapEncodeTiled found
 * through cudaGetDriverEntryPointByVersion. A TMA load's shared-memory image is predicted
 * element by element on the host (the box's element (k0, k1, ...) is the tensor's (c0 + k0,
 * c1 + k1 * estride1, ...), 0 or NaN outside it, packed innermost first, each byte at its
 * offset with bits 4.. XORed with bits 7.. under a swizzle) and compared byte for byte, at
 * ranks 1 to 5, with tensors whose rows are padded (the padding must never be read), boxes
 * across every edge and wholly outside, traversal strides and each swizzle. Stores and
 * reductions write exactly the in-bounds elements. The async-proxy checks report the planted
 * early read, the unfenced store and the store issued before other threads' fenced writes are
 * ordered to it (no barrier; a fence after the mbarrier arrival) at their lines, initcheck a
 * store of unwritten shared memory, and nothing for the correct twins; the counters
 * see a pipeline's every byte arrive by TMA and none by thread loads. Refusals fail in one
 * line each.
 */
#define _GNU_SOURCE
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "course_test.h"
#include "cuda_check.h"
#include "emu.h"
#include "test_hopper.h"

/* ---- tensors and their maps ------------------------------------------------------------- */

/** A tensor on the host and the device, and how one map sees it. */
struct tensor {
    unsigned rank, esize;
    CUtensorMapDataType type;
    uint64_t dim[5], stride[5]; /* stride[0] = esize; the others in bytes */
    uint8_t *host, *dev;
    size_t bytes;
    uint32_t box[5], estride[5];
    CUtensorMapSwizzle swizzle;
    CUtensorMapFloatOOBfill oob;
};

/* 37 x 45 floats in rows of 48 (3 floats of padding a row, never to be read), in 16 x 8 boxes
 * swizzled @p swizzle: the 2D tensor of most cases below. */
static struct tensor f32_37x45(CUtensorMapSwizzle swizzle)
{
    return (struct tensor){.rank = 2,
                           .esize = 4,
                           .type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                           .dim = {45, 37},
                           .stride = {0, 192},
                           .box = {16, 8},
                           .estride = {1, 1},
                           .swizzle = swizzle,
                           .oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
}

/* Fill @p t's bytes (padding included) with a pattern, and copy them to the device. */
static void tensor_make(struct tensor *t, unsigned seed)
{
    t->stride[0] = t->esize;
    t->bytes = t->stride[t->rank - 1] * t->dim[t->rank - 1];
    t->host = malloc(t->bytes);
    for (size_t i = 0; i < t->bytes; i++)
        t->host[i] = (uint8_t)(i * 29 + seed * 7 + i / 251);
    if (t->type == CU_TENSOR_MAP_DATA_TYPE_FLOAT64) /* no NaN among the values themselves */
        for (size_t i = 7; i < t->bytes; i += 8)
            t->host[i] &= 0x3F;
    CUDA_CHECK(cudaMalloc((void **)&t->dev, t->bytes));
    CUDA_CHECK(cudaMemcpy(t->dev, t->host, t->bytes, cudaMemcpyHostToDevice));
}

/* cuTensorMapEncodeTiled, as CUTLASS and most Hopper kernels find it. */
static CUresult encode(CUtensorMap *map, const struct tensor *t)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn;
    enum cudaDriverEntryPointQueryResult q;
    if (!fn)
        CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&fn, 12000,
                                                    cudaEnableDefault, &q));
    ck_assert_ptr_nonnull(fn);
    return fn(map, t->type, t->rank, t->dev, t->dim, t->stride + 1, t->box, t->estride,
              CU_TENSOR_MAP_INTERLEAVE_NONE, t->swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
              t->oob);
}

/* Elements of the box along dimension @p i, and the box's bytes. */
static uint64_t box_n(const struct tensor *t, int i)
{
    return i < (int)t->rank ? (t->box[i] + (i ? t->estride[i] : 1) - 1) / (i ? t->estride[i] : 1)
                            : 1;
}

static uint64_t box_bytes(const struct tensor *t)
{
    uint64_t n = t->esize;
    for (int i = 0; i < 5; i++)
        n *= box_n(t, i);
    return n;
}

/* The shared offset a byte at packed offset @p off lands at under @p t's swizzle (the buffer
 * 1024-byte aligned). */
static uint64_t swizzle_of(const struct tensor *t, uint64_t off)
{
    unsigned bits = (unsigned)t->swizzle; /* 1, 2, 3: 32, 64, 128 bytes */
    return bits ? off ^ ((off >> 7) & ((1u << bits) - 1)) << 4 : off;
}

/* Where box element @p e (packed index) comes from: its global byte offset, or -1 outside. */
static int64_t source_of(const struct tensor *t, const int *c, uint64_t e)
{
    int64_t off = 0;
    for (int i = 0; i < (int)t->rank; i++) {
        uint64_t n = box_n(t, i), k = e % n;
        e /= n;
        int64_t g = c[i] + (int64_t)k * (i ? t->estride[i] : 1);
        if (g < 0 || (uint64_t)g >= t->dim[i])
            return -1;
        off += g * (int64_t)t->stride[i];
    }
    return off;
}

/* Compare the loaded image @p got of the box at @p c with the host's prediction. */
static void expect_box(const struct tensor *t, const int *c, const uint8_t *got, const char *what)
{
    uint64_t n = box_bytes(t) / t->esize;
    for (uint64_t e = 0; e < n; e++) {
        int64_t src = source_of(t, c, e);
        const uint8_t *at = got + swizzle_of(t, e * t->esize);
        int nan = src < 0 && t->oob;
        for (unsigned b = 0; b < t->esize && !nan; b++) {
            uint8_t want = src < 0 ? 0 : t->host[src + b];
            ck_assert_msg(at[b] == want,
                          "%s, box at (%d, %d, %d, %d, %d): element %llu byte %u is 0x%02x, not "
                          "0x%02x",
                          what, c[0], c[1], c[2], c[3], c[4], (unsigned long long)e, b, at[b],
                          want);
        }
        if (nan) {
            double v = t->esize == 8 ? *(const double *)at : *(const float *)at;
            ck_assert_msg(isnan(v), "%s: out-of-bounds element %llu is %g, not a NaN", what,
                          (unsigned long long)e, v);
        }
    }
}

/* Load every box of @p coords through @p t's map (from the parameter, or a global copy) and
 * compare each with the host's prediction. With @p to, each block instead points the map at
 * 2D tensor @p to on the device first (hop_map_edit()), and the boxes are @p to's. */
static void load_boxes(struct tensor *t, const struct tensor *to, const struct hop_coords *coords,
                       int boxes, int global, const char *what)
{
    const struct tensor *seen = to ? to : t;
    CUtensorMap map, *dmap = NULL;
    ck_assert_int_eq(encode(&map, t), CUDA_SUCCESS);
    uint64_t bb = box_bytes(seen);
    struct hop_coords *dc;
    uint8_t *dout, *out = malloc(bb * (size_t)boxes);
    CUDA_CHECK(cudaMalloc((void **)&dc, sizeof *dc * (size_t)boxes));
    CUDA_CHECK(cudaMemcpy(dc, coords, sizeof *dc * (size_t)boxes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc((void **)&dout, bb * (size_t)boxes));
    if (global || to)
        CUDA_CHECK(cudaMalloc((void **)&dmap, sizeof map * (size_t)(to ? boxes : 1)));
    if (to) {
        struct hop_retarget e = {
            to->dev, {(uint32_t)to->dim[0], (uint32_t)to->dim[1]}, to->stride[1]};
        CUDA_CHECK(hop_map_edit(&map, e, dmap, dc, boxes, (unsigned)bb, dout));
    } else {
        if (global)
            CUDA_CHECK(cudaMemcpy(dmap, &map, sizeof map, cudaMemcpyHostToDevice));
        CUDA_CHECK(hop_tma_boxes(&map, dmap, (int)t->rank, dc, boxes, (unsigned)bb, dout));
    }
    CUDA_CHECK(cudaMemcpy(out, dout, bb * (size_t)boxes, cudaMemcpyDeviceToHost));
    for (int b = 0; b < boxes; b++)
        expect_box(seen, coords[b].c, out + bb * (size_t)b, what);
    free(out);
    cudaFree(dc), cudaFree(dout), cudaFree(dmap);
}

/* ---- loads ---------------------------------------------------------------------------------- */

START_TEST(tma_load_1d_and_2d_edges)
{
    struct tensor a = {1,
                       1,
                       CU_TENSOR_MAP_DATA_TYPE_UINT8,
                       {1031},
                       {0},
                       NULL,
                       NULL,
                       0,
                       {48},
                       {1},
                       CU_TENSOR_MAP_SWIZZLE_NONE,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
    tensor_make(&a, 1);
    const struct hop_coords c1[] = {{{0}}, {{1000}}, {{-20}}, {{2000}}, {{517}}};
    load_boxes(&a, NULL, c1, 5, 0, "1D u8, 48-byte boxes over 1031");
    /* 37 x 45 floats in rows of 48: the 3 padding floats of a row must never be read */
    struct tensor b = f32_37x45(CU_TENSOR_MAP_SWIZZLE_64B);
    tensor_make(&b, 2);
    const struct hop_coords c2[] = {{{0, 0}},   {{40, 32}}, {{-8, -3}},
                                    {{32, 36}}, {{45, 0}},  {{29, 17}}};
    load_boxes(&b, NULL, c2, 6, 0, "2D f32 37 x 45, 64-byte swizzle");
    load_boxes(&b, NULL, c2, 6, 1, "the same, the map in global memory");
}
END_TEST

/* A map encoded for one tensor, pointed at another (address, extents, row stride) on the device
 * and published to global memory, as CUTLASS's grouped GEMMs do per group: each box is the
 * second tensor's, zeros past its edges. */
START_TEST(tma_load_through_a_map_edited_on_the_device)
{
    struct tensor a = f32_37x45(CU_TENSOR_MAP_SWIZZLE_64B);
    struct tensor b = a;
    b.dim[0] = 29, b.dim[1] = 23, b.stride[1] = 160; /* 29 floats in rows of 40 */
    tensor_make(&a, 3);
    tensor_make(&b, 4);
    const struct hop_coords c[] = {{{0, 0}}, {{20, 18}}, {{-5, -3}}, {{16, 16}}, {{28, 22}}};
    load_boxes(&a, &b, c, 5, 0, "the map pointed at a 23 x 29 tensor");
    free(a.host), free(b.host);
    cudaFree(a.dev), cudaFree(b.dev);
}
END_TEST

START_TEST(tma_load_ranks_3_to_5_with_traversal_strides)
{
    struct tensor c = {3,
                       2,
                       CU_TENSOR_MAP_DATA_TYPE_UINT16,
                       {33, 7, 5},
                       {0, 80, 720},
                       NULL,
                       NULL,
                       0,
                       {24, 4, 3},
                       {1, 2, 1},
                       CU_TENSOR_MAP_SWIZZLE_NONE,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
    tensor_make(&c, 3);
    const struct hop_coords c3[] = {{{8, 3, 3}}, {{-16, -1, 0}}, {{20, 5, 4}}, {{0, 0, 0}}};
    load_boxes(&c, NULL, c3, 4, 0, "3D u16, traversal stride 2 along y");
    struct tensor d = {4,
                       4,
                       CU_TENSOR_MAP_DATA_TYPE_INT32,
                       {5, 6, 7, 3},
                       {0, 32, 192, 1344},
                       NULL,
                       NULL,
                       0,
                       {8, 3, 2, 2},
                       {1, 1, 3, 1},
                       CU_TENSOR_MAP_SWIZZLE_32B,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
    tensor_make(&d, 4);
    const struct hop_coords c4[] = {{{0, 0, 0, 0}}, {{-3, 4, 5, 2}}, {{2, -1, 6, 1}}};
    load_boxes(&d, NULL, c4, 3, 0, "4D i32, 32-byte swizzle, traversal stride 3");
    struct tensor e = {5,
                       8,
                       CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
                       {3, 2, 3, 2, 3},
                       {0, 32, 64, 192, 384},
                       NULL,
                       NULL,
                       0,
                       {2, 2, 2, 2, 2},
                       {1, 1, 1, 2, 1},
                       CU_TENSOR_MAP_SWIZZLE_NONE,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA};
    tensor_make(&e, 5);
    const struct hop_coords c5[] = {{{0, 0, 0, 0, 0}}, {{2, 1, 2, 1, 2}}, {{-1, 0, -1, 0, 1}}};
    load_boxes(&e, NULL, c5, 3, 0, "5D f64, NaN fill");
}
END_TEST

/* The 16 x cols u16 box of every swizzle, read back by the Programming Guide's formula (a
 * different walk from the VM's), equals the tensor. */
START_TEST(swizzle_read_back_by_formula)
{
    const int cols[] = {8, 16, 32, 64}, span[] = {0, 32, 64, 128};
    for (int s = 0; s < 4; s++) {
        struct tensor t = {2,
                           2,
                           CU_TENSOR_MAP_DATA_TYPE_UINT16,
                           {(uint64_t)cols[s] + 5, 19},
                           {0, (uint64_t)(cols[s] + 8) * 2},
                           NULL,
                           NULL,
                           0,
                           {(uint32_t)cols[s], 16},
                           {1, 1},
                           (CUtensorMapSwizzle)s,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
        tensor_make(&t, 10 + (unsigned)s);
        CUtensorMap map;
        ck_assert_int_eq(encode(&map, &t), CUDA_SUCCESS);
        uint16_t *dout, out[16 * 64];
        CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
        CUDA_CHECK(hop_swizzle_read(&map, 16, cols[s], span[s], dout));
        CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
        for (int r = 0; r < 16; r++)
            for (int c = 0; c < cols[s]; c++) {
                uint16_t want;
                memcpy(&want, t.host + r * t.stride[1] + c * 2, 2);
                ck_assert_msg(out[r * cols[s] + c] == want,
                              "swizzle %d bytes: element (%d, %d) read back as 0x%04x, not 0x%04x",
                              span[s], r, c, out[r * cols[s] + c], want);
            }
        cudaFree(dout);
    }
}
END_TEST

/* ---- stores and reductions ------------------------------------------------------------------ */

/* Boxes of images written to @p t (stored, or added with @p add) at @p coords: the tensor's
 * in-bounds elements of each box take the image's (unswizzled), every other byte, the rows'
 * padding included, stays. */
static void store_boxes(struct tensor *t, const struct hop_coords *coords, int boxes, int add)
{
    CUtensorMap map;
    ck_assert_int_eq(encode(&map, t), CUDA_SUCCESS);
    uint64_t bb = box_bytes(t), n = bb / t->esize;
    uint8_t *images = malloc(bb * (size_t)boxes), *want = malloc(t->bytes), *got = malloc(t->bytes);
    for (size_t i = 0; i < bb * (size_t)boxes; i++)
        images[i] = (uint8_t)(i * 13 + 5);
    memcpy(want, t->host, t->bytes);
    for (int b = 0; b < boxes; b++)
        for (uint64_t e = 0; e < n; e++) {
            int64_t dst = source_of(t, coords[b].c, e);
            const uint8_t *img = images + bb * (size_t)b + swizzle_of(t, e * t->esize);
            uint32_t sum, x;
            if (dst >= 0 && add) {
                memcpy(&sum, want + dst, 4), memcpy(&x, img, 4);
                sum += x;
                memcpy(want + dst, &sum, 4);
            } else if (dst >= 0) {
                memcpy(want + dst, img, t->esize);
            }
        }
    struct hop_coords *dc;
    uint8_t *dimg;
    CUDA_CHECK(cudaMalloc((void **)&dc, sizeof *dc * (size_t)boxes));
    CUDA_CHECK(cudaMemcpy(dc, coords, sizeof *dc * (size_t)boxes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc((void **)&dimg, bb * (size_t)boxes));
    CUDA_CHECK(cudaMemcpy(dimg, images, bb * (size_t)boxes, cudaMemcpyHostToDevice));
    CUDA_CHECK(hop_tma_store(&map, (int)t->rank, dc, boxes, (unsigned)bb, dimg, add, 1));
    CUDA_CHECK(cudaMemcpy(got, t->dev, t->bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < t->bytes; i++)
        ck_assert_msg(got[i] == want[i], "%s: byte %zu of the tensor is 0x%02x, not 0x%02x",
                      add ? "reduce-add" : "store", i, got[i], want[i]);
    free(images), free(want), free(got);
    cudaFree(dc), cudaFree(dimg);
}

START_TEST(tma_store_and_reduce_write_only_in_bounds)
{
    struct tensor t = f32_37x45(CU_TENSOR_MAP_SWIZZLE_128B);
    tensor_make(&t, 6);
    const struct hop_coords c[] = {{{0, 0}}, {{16, 8}}, {{32, 32}}, {{-8, 16}}, {{40, -5}}};
    store_boxes(&t, c, 5, 0);
    struct tensor u = {3,
                       4,
                       CU_TENSOR_MAP_DATA_TYPE_UINT32,
                       {13, 9, 3},
                       {0, 64, 640},
                       NULL,
                       NULL,
                       0,
                       {8, 4, 2},
                       {1, 1, 1},
                       CU_TENSOR_MAP_SWIZZLE_32B,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
    tensor_make(&u, 7);
    const struct hop_coords cu[] = {{{0, 0, 0}}, {{8, 4, 1}}, {{-4, 7, 2}}};
    store_boxes(&u, cu, 3, 0);
    struct tensor v = {2,
                       4,
                       CU_TENSOR_MAP_DATA_TYPE_UINT32,
                       {21, 11},
                       {0, 96},
                       NULL,
                       NULL,
                       0,
                       {8, 4},
                       {1, 1},
                       CU_TENSOR_MAP_SWIZZLE_NONE,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
    tensor_make(&v, 8);
    const struct hop_coords cv[] = {{{0, 0}}, {{16, 8}}, {{-3, 9}}};
    store_boxes(&v, cv, 3, 1);
}
END_TEST

/* ---- bulk copies, transaction counts, a pipeline --------------------------------------------- */

START_TEST(bulk_copies_round_trip)
{
    enum { GUARD = 32 };
    const unsigned sizes[] = {16, 48, 4112};
    for (int r = 0; r < 2; r++)
        for (int s = 0; s < 3; s++) {
            unsigned n = sizes[s];
            uint8_t *src = malloc(n), *dst0 = malloc(n + GUARD), *got = malloc(n + GUARD), *d_src,
                    *d_dst;
            for (unsigned i = 0; i < n; i++)
                src[i] = (uint8_t)(i * 7 + 3 + (i >> 9));
            for (unsigned i = 0; i < n + GUARD; i++)
                dst0[i] = (uint8_t)(i * 5 + 1);
            CUDA_CHECK(cudaMalloc((void **)&d_src, n));
            CUDA_CHECK(cudaMalloc((void **)&d_dst, n + GUARD));
            CUDA_CHECK(cudaMemcpy(d_src, src, n, cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(d_dst, dst0, n + GUARD, cudaMemcpyHostToDevice));
            CUDA_CHECK(hop_bulk_round_trip(d_src, d_dst, n, r));
            CUDA_CHECK(cudaMemcpy(got, d_dst, n + GUARD, cudaMemcpyDeviceToHost));
            for (unsigned i = 0; i < n + GUARD; i += 4) {
                uint32_t g, o, a;
                memcpy(&g, got + i, 4), memcpy(&o, dst0 + i, 4);
                uint8_t plus[4];
                for (int k = 0; k < 4; k++)
                    plus[k] = i < n ? (uint8_t)(src[i + k] + 1) : 0;
                memcpy(&a, plus, 4);
                uint32_t want = i >= n ? o : r ? o + a : a;
                ck_assert_msg(g == want, "%s of %u bytes: word at byte %u is 0x%08x, not 0x%08x%s",
                              r ? "cp.reduce.async.bulk add.u32" : "cp.async.bulk", n, i, g, want,
                              i >= n ? " (a guard word)" : "");
            }
            free(src), free(dst0), free(got);
            cudaFree(d_src), cudaFree(d_dst);
        }
}
END_TEST

START_TEST(mbarrier_transaction_counts)
{
    const int want[] = {0, 0, 0, 1, 0, 0, 1, 1, 0};
    int *d, got[16];
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof got));
    CUDA_CHECK(hop_mbarrier_tx(d));
    CUDA_CHECK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 9; i++)
        ck_assert_msg(got[i] == want[i], "step %d of the mbarrier's phases: %d, want %d", i, got[i],
                      want[i]);
}
END_TEST

/* The pipeline's column sums, for a 32 x (32 * ktiles) float matrix of small integers. */
static void pipeline(int ktiles, float *sums)
{
    struct tensor t = {2,
                       4,
                       CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                       {32 * (uint64_t)ktiles, 32},
                       {0, 128 * (uint64_t)ktiles},
                       NULL,
                       NULL,
                       0,
                       {32, 32},
                       {1, 1},
                       CU_TENSOR_MAP_SWIZZLE_NONE,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
    t.stride[0] = 4, t.bytes = t.stride[1] * 32;
    t.host = malloc(t.bytes);
    float *m = (float *)t.host;
    for (int i = 0; i < 32 * 32 * ktiles; i++)
        m[i] = (float)((i * 37) % 11 - 5);
    CUDA_CHECK(cudaMalloc((void **)&t.dev, t.bytes));
    CUDA_CHECK(cudaMemcpy(t.dev, t.host, t.bytes, cudaMemcpyHostToDevice));
    CUtensorMap map;
    ck_assert_int_eq(encode(&map, &t), CUDA_SUCCESS);
    float *d;
    CUDA_CHECK(cudaMalloc((void **)&d, 32 * sizeof *d));
    CUDA_CHECK(cudaMemset(d, 0, 32 * sizeof *d));
    CUDA_CHECK(hop_pipeline(&map, ktiles, d));
    CUDA_CHECK(cudaMemcpy(sums, d, 32 * sizeof *d, cudaMemcpyDeviceToHost));
    for (int c = 0; c < 32; c++) {
        float want = 0;
        for (int r = 0; r < 32; r++)
            for (int k = 0; k < ktiles; k++)
                want += m[r * 32 * ktiles + 32 * k + c];
        ck_assert_msg(sums[c] == want, "pipeline of %d tiles: column %d sums to %g, not %g", ktiles,
                      c, sums[c], want);
    }
    free(t.host);
    cudaFree(t.dev), cudaFree(d);
}

START_TEST(warp_specialised_pipeline)
{
    float sums[32];
    pipeline(1, sums);
    pipeline(5, sums);
}
END_TEST

/* ---- the async-proxy checks -------------------------------------------------------------- */

/* A 32 x 32 float tensor of small integers and its map (no swizzle). */
static void square(struct tensor *t, CUtensorMap *map)
{
    *t = (struct tensor){2,
                         4,
                         CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                         {32, 32},
                         {0, 128},
                         NULL,
                         NULL,
                         0,
                         {32, 32},
                         {1, 1},
                         CU_TENSOR_MAP_SWIZZLE_NONE,
                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
    t->stride[0] = 4, t->bytes = 4096;
    t->host = malloc(t->bytes);
    for (int i = 0; i < 1024; i++)
        ((float *)t->host)[i] = (float)(i % 29);
    CUDA_CHECK(cudaMalloc((void **)&t->dev, t->bytes));
    CUDA_CHECK(cudaMemcpy(t->dev, t->host, t->bytes, cudaMemcpyHostToDevice));
    ck_assert_int_eq(encode(map, t), CUDA_SUCCESS);
}

START_TEST(early_read_of_a_copy_is_reported)
{
    capture_checks_on();
    struct tensor t;
    CUtensorMap map;
    square(&t, &map);
    float *d, got[1024];
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof got));
    for (int wait = 1; wait <= 2; wait++) {
        CUDA_CHECK(hop_early_read(&map, wait, d));
        CUDA_CHECK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
        ck_assert(!memcmp(got, t.host, sizeof got));
        capture_assert_no_reports(wait == 1 ? "every thread waits"
                                            : "thread 0 waits, then a barrier");
    }
    CUDA_CHECK(hop_early_read(&map, 0, d)); /* the emulator's copy landed at once: right bytes */
    CUDA_CHECK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
    char *text = capture_reports();
    capture_assert_at(text, TEST_HOPPER_KERNELS, "HOP_EARLY_READ", "racecheck: read of shared 0x0");
    ck_assert_msg(strstr(text, "has not waited for phase 0 of the mbarrier"), "%s", text);
    free(text);
}
END_TEST

START_TEST(unfenced_store_source_is_reported)
{
    capture_checks_on();
    struct tensor t;
    CUtensorMap map;
    square(&t, &map);
    struct hop_coords *dc, c = {{0, 0}};
    uint8_t *dimg;
    CUDA_CHECK(cudaMalloc((void **)&dc, sizeof c));
    CUDA_CHECK(cudaMemcpy(dc, &c, sizeof c, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc((void **)&dimg, 4096));
    CUDA_CHECK(cudaMemcpy(dimg, t.host, 4096, cudaMemcpyHostToDevice));
    for (int fence = 1; fence <= 2; fence++) {
        CUDA_CHECK(hop_tma_store(&map, 2, dc, 1, 4096, dimg, 0, fence));
        CUDA_CHECK(cudaDeviceSynchronize());
        capture_assert_no_reports(fence == 1 ? "each writer fences"
                                             : "the issuer fences after the barrier");
    }
    CUDA_CHECK(hop_tma_store(&map, 2, dc, 1, 4096, dimg, 0, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    char *text = capture_reports();
    capture_assert_at(text, TEST_HOPPER_KERNELS, "ST(\"\", \"\", \"2d\"",
                      "racecheck: cp.async.bulk.tensor reads shared");
    capture_assert_at(text, TEST_HOPPER_KERNELS, "HOP_STORE_WRITE", "with no fence.proxy.async");
    free(text);
}
END_TEST

/* Run hop_store_source() into @p t (its host values first), then compare the tensor with
 * them outside the box, and with r * 32 + c where the tile's element (r, c) was written (the
 * box's unwritten elements hold what shared memory held). */
static void store_source(struct tensor *t, const CUtensorMap *map, int order, int x, int y,
                         int rows, int cols)
{
    float got[32 * 32];
    const float *host = (const float *)t->host;
    CUDA_CHECK(cudaMemcpy(t->dev, t->host, sizeof got, cudaMemcpyHostToDevice));
    CUDA_CHECK(hop_store_source(map, order, x, y, rows, cols));
    CUDA_CHECK(cudaMemcpy(got, t->dev, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32 * 32; i++) {
        int r = i / 32 - y, c = i % 32 - x; /* the tile's element that lands there */
        if (r >= rows || c >= cols)
            continue;
        float want = r >= 0 && c >= 0 ? (float)(r * 32 + c) : host[i];
        ck_assert_msg(got[i] == want, "order %d, tile at (%d, %d): element (%d, %d) is %g, not %g",
                      order, x, y, i / 32, i % 32, got[i], want);
    }
}

/* A TMA store issued by one thread after the other threads' writes to its source: each writer's
 * fence.proxy.async counts only when a barrier, a __syncwarp or an mbarrier the issuer waited
 * on orders it (with the write) before the issue, or the issuer fences after such an order. */
START_TEST(store_issued_before_the_writes_are_ordered_is_reported)
{
    capture_checks_on();
    struct tensor t;
    CUtensorMap map;
    square(&t, &map);
    static const int right[] = {HOP_FENCE_BARRIER, HOP_FENCE_SYNCWARP, HOP_FENCE_THEN_MBARRIER,
                                HOP_MBARRIER_ISSUER_FENCES};
    static const char *why[] = {"fences, then a barrier", "fences, then __syncwarp()",
                                "fences, then the mbarrier", "the issuer fences after its wait"};
    static const int wrong[] = {HOP_FENCE_NO_BARRIER, HOP_MBARRIER_THEN_FENCE};
    for (int i = 0; i < 4; i++) {
        store_source(&t, &map, right[i], 0, 0, 32, 32);
        capture_assert_no_reports(why[i]);
    }
    for (int i = 0; i < 2; i++) {
        store_source(&t, &map, wrong[i], 0, 0, 32, 32); /* the emulator's store: right bytes */
        char *text = capture_reports();
        capture_assert_at(text, TEST_HOPPER_KERNELS, "ST(\"\", \"\", \"2d\"",
                          "racecheck: cp.async.bulk.tensor reads shared");
        capture_assert_at(text, TEST_HOPPER_KERNELS, "HOP_SOURCE_WRITE",
                          "with no fence.proxy.async");
        free(text);
    }
}
END_TEST

/* initcheck sees a TMA store's source: bytes of in-bounds elements nobody wrote are reported at
 * the store; the elements outside the tensor, which go nowhere, need no writing. */
START_TEST(store_of_unwritten_shared_memory_is_reported)
{
    capture_checks_on();
    struct tensor t;
    CUtensorMap map;
    square(&t, &map);
    store_source(&t, &map, HOP_FENCE_BARRIER, 16, 8, 24, 16); /* the tile across two edges */
    capture_assert_no_reports("the in-bounds 24 x 16 elements written");
    store_source(&t, &map, HOP_FENCE_BARRIER, 0, 0, 32, 17); /* columns 17 to 31 unwritten */
    char *text = capture_reports();
    capture_assert_at(text, TEST_HOPPER_KERNELS, "ST(\"\", \"\", \"2d\"",
                      "initcheck: cp.async.bulk.tensor reads shared memory nobody wrote");
    ck_assert_msg(!strstr(text, "racecheck"), "%s", text);
    free(text);
}
END_TEST

/* The correct kernels of the suite under every check: nothing to report. */
START_TEST(correct_copies_report_nothing)
{
    capture_checks_on();
    float sums[32];
    pipeline(3, sums);
    capture_assert_no_reports("the pipeline");
    struct tensor b = f32_37x45(CU_TENSOR_MAP_SWIZZLE_128B);
    tensor_make(&b, 2);
    const struct hop_coords c2[] = {{{0, 0}}, {{40, 32}}, {{-8, -3}}};
    load_boxes(&b, NULL, c2, 3, 0, "2D f32 under the checks");
    capture_assert_no_reports("TMA loads");
    uint8_t *d_src, *d_dst;
    CUDA_CHECK(cudaMalloc((void **)&d_src, 64));
    CUDA_CHECK(cudaMalloc((void **)&d_dst, 64));
    CUDA_CHECK(cudaMemset(d_src, 3, 64));
    CUDA_CHECK(hop_bulk_round_trip(d_src, d_dst, 64, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    capture_assert_no_reports("the bulk round trip");
}
END_TEST

/* ---- counters -----------------------------------------------------------------------------------
 */

START_TEST(counters_see_the_copy_engine)
{
    void (*set_counting)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "course_emu_set_counting");
    int (*take)(struct course_emu_launch *, int) =
        (int (*)(struct course_emu_launch *, int))dlsym(RTLD_DEFAULT, "course_emu_take_launches");
    ck_assert(set_counting && take);
    float sums[32];
    struct course_emu_launch l[4];
    set_counting(1);
    pipeline(5, sums);
    int n = take(l, 4);
    set_counting(0);
    ck_assert_int_eq(n, 1);
    const struct vm_counters *c = &l[0].counters;
    /* 5 tiles of 32 rows of 128 bytes: 4 sectors a row, all by the copy engine */
    ck_assert_uint_eq(c->tma_copies, 5);
    ck_assert_uint_eq(c->tma_ld_bytes, 5 * 4096);
    ck_assert_uint_eq(c->tma_ld_sectors, 5 * 32 * 4);
    ck_assert_uint_eq(c->gld_sectors, 0);
    ck_assert_uint_eq(c->unique_read_bytes, 5 * 4096);
}
END_TEST

/* ---- refusals, and other ways in ------------------------------------------------------------ */

/* A multicast copy lands at the same offset in every block of its ctaMask and completes on each
 * one's mbarrier: tensor boxes to every block, bulk bytes to the even ranks, in clusters of 2
 * and of 4, against the host. */
START_TEST(multicast_reaches_every_block_of_the_mask)
{
    struct tensor t = {2,
                       4,
                       CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                       {45, 77},
                       {0, 192},
                       NULL,
                       NULL,
                       0,
                       {32, 8},
                       {1, 1},
                       CU_TENSOR_MAP_SWIZZLE_128B,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
    tensor_make(&t, 5);
    CUtensorMap map;
    ck_assert_int_eq(encode(&map, &t), CUDA_SUCCESS);
    const struct hop_coords coords[] = {{{0, 0}},   {{13, 40}}, {{32, 72}}, {{-8, -3}},
                                        {{20, 11}}, {{40, 60}}, {{1, 69}},  {{7, 33}}};
    uint8_t bulk[4 * HOP_BULK];
    for (int i = 0; i < 4 * HOP_BULK; i++)
        bulk[i] = (uint8_t)(i * 13 + i / 7 + 1);
    const int shapes[][2] = {{2, 3}, {4, 2}}; /* blocks per cluster, clusters */
    unsigned bb = (unsigned)box_bytes(&t);
    for (int s = 0; s < 2; s++) {
        int n = shapes[s][0], clusters = shapes[s][1];
        size_t per = (size_t)n * bb + HOP_BULK, bytes = per * (size_t)(n * clusters);
        struct hop_coords *dc;
        uint8_t *dbulk, *dout, *out = malloc(bytes);
        CUDA_CHECK(cudaMalloc((void **)&dc, sizeof coords));
        CUDA_CHECK(cudaMemcpy(dc, coords, sizeof coords, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMalloc((void **)&dbulk, sizeof bulk));
        CUDA_CHECK(cudaMemcpy(dbulk, bulk, sizeof bulk, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMalloc((void **)&dout, bytes));
        CUDA_CHECK(hop_multicast(&map, n, clusters, dc, bb, dbulk, dout));
        CUDA_CHECK(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
        for (int b = 0; b < n * clusters; b++) {
            int k = b / n, r = b % n;
            char what[96];
            for (int slot = 0; slot < n; slot++) {
                snprintf(what, sizeof what, "cluster of %d, block %d: the box rank %d multicast", n,
                         b, slot);
                expect_box(&t, coords[k * n + slot].c, out + per * (size_t)b + (size_t)slot * bb,
                           what);
            }
            for (int i = 0; i < HOP_BULK; i++) {
                uint8_t got = out[per * (size_t)b + (size_t)n * bb + (size_t)i];
                uint8_t want = r % 2 ? 0 : bulk[k * HOP_BULK + i];
                ck_assert_msg(got == want,
                              "cluster of %d, block %d (rank %d): bulk byte %d is 0x%02x, not "
                              "0x%02x",
                              n, b, r, i, got, want);
            }
        }
        free(out);
        cudaFree(dc), cudaFree(dbulk), cudaFree(dout);
    }
    free(t.host);
    cudaFree(t.dev);
}
END_TEST

START_TEST(refusals_fail_in_one_line)
{
    struct tensor t;
    CUtensorMap map;
    square(&t, &map);
    static const struct {
        const char *marker, *says;
        cudaError_t err;
    } cases[] = {
        {"MULTICAST ::", "ctaMask 0x2 names blocks past the cluster's 1", cudaErrorIllegalAddress},
        {"IM2COL ::", "the .im2col form is not emulated", cudaErrorNotSupported},
        {"LD(\"2d\"", "it must be 128-byte aligned", cudaErrorIllegalAddress},
        {"BULK ::", "cp.async.bulk of 20 bytes", cudaErrorIllegalAddress},
        {"HOP_EXPECT_TX", "tx-count would be 1048576", cudaErrorIllegalAddress},
        {"BOX_DIM ::", "this tensormap form is not emulated", cudaErrorNotSupported},
        {"STRIDE_8 ::", "with 8 at ordinal 0: a stride must be a multiple of 16 bytes",
         cudaErrorIllegalAddress},
    };
    float *scratch;
    CUDA_CHECK(cudaMalloc((void **)&scratch, 64));
    for (int i = 0; i < 7; i++) {
        struct capture cap;
        capture_begin(&cap, 2);
        cudaError_t err = hop_refused(&map, i, scratch);
        char *said = capture_end(&cap);
        ck_assert_msg(err == cases[i].err, "%s: %s, not %s", cases[i].marker, cudaGetErrorName(err),
                      cudaGetErrorName(cases[i].err));
        capture_assert_at(said, TEST_HOPPER_KERNELS, cases[i].marker, cases[i].says);
        free(said);
        ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
    }
    /* 128 bytes no encoder wrote */
    CUtensorMap zeros;
    memset(&zeros, 0, sizeof zeros);
    struct hop_coords *dc, c = {{0, 0}};
    uint8_t *dout;
    CUDA_CHECK(cudaMalloc((void **)&dc, sizeof c));
    CUDA_CHECK(cudaMemcpy(dc, &c, sizeof c, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc((void **)&dout, 4096));
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = hop_tma_boxes(&zeros, NULL, 2, dc, 1, 4096, dout);
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    char *said = capture_end(&cap);
    ck_assert_int_eq(err, cudaErrorIllegalAddress);
    ck_assert_msg(strstr(said, "hold no tensor map cuTensorMapEncodeTiled made"), "%s", said);
    free(said);
}
END_TEST

/* The Programming Guide's kernel doubles the box at (8, 4) of a 40 x 24 float tensor in place. */
START_TEST(programming_guide_example_runs)
{
    struct tensor t = {2,
                       4,
                       CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                       {40, 24},
                       {0, 160},
                       NULL,
                       NULL,
                       0,
                       {32, 32},
                       {1, 1},
                       CU_TENSOR_MAP_SWIZZLE_NONE,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
    t.stride[0] = 4, t.bytes = 160 * 24;
    t.host = malloc(t.bytes);
    float *m = (float *)t.host, got[40 * 24];
    for (int i = 0; i < 40 * 24; i++)
        m[i] = (float)(i % 53 - 20);
    CUDA_CHECK(cudaMalloc((void **)&t.dev, t.bytes));
    CUDA_CHECK(cudaMemcpy(t.dev, t.host, t.bytes, cudaMemcpyHostToDevice));
    CUtensorMap map;
    ck_assert_int_eq(encode(&map, &t), CUDA_SUCCESS);
    CUDA_CHECK(hop_guide_example(&map, 8, 4));
    CUDA_CHECK(cudaMemcpy(got, t.dev, sizeof got, cudaMemcpyDeviceToHost));
    for (int y = 0; y < 24; y++)
        for (int x = 0; x < 40; x++) {
            float want = m[y * 40 + x] * (x >= 8 && y >= 4 ? 2.0f : 1.0f);
            ck_assert_msg(got[y * 40 + x] == want, "element (%d, %d) is %g, not %g", y, x,
                          got[y * 40 + x], want);
        }
}
END_TEST

START_TEST(grid_constant_parameter_through_a_pointer)
{
    struct hop_forty p;
    int *d, got[40];
    for (int i = 0; i < 40; i++)
        p.v[i] = i * i - 17;
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof got));
    CUDA_CHECK(hop_param_pointer(p, d));
    CUDA_CHECK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 40; i++)
        ck_assert_int_eq(got[i], p.v[(i * 7) % 40]);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"tma_load_1d_and_2d_edges", tma_load_1d_and_2d_edges, CASE_GPU, 120},
        {"tma_load_through_a_map_edited_on_the_device", tma_load_through_a_map_edited_on_the_device,
         CASE_GPU, 120},
        {"tma_load_ranks_3_to_5_with_traversal_strides",
         tma_load_ranks_3_to_5_with_traversal_strides, CASE_GPU, 120},
        {"swizzle_read_back_by_formula", swizzle_read_back_by_formula, CASE_GPU, 120},
        {"tma_store_and_reduce_write_only_in_bounds", tma_store_and_reduce_write_only_in_bounds,
         CASE_GPU, 120},
        {"bulk_copies_round_trip", bulk_copies_round_trip, CASE_GPU, 120},
        {"mbarrier_transaction_counts", mbarrier_transaction_counts, CASE_GPU, 60},
        {"warp_specialised_pipeline", warp_specialised_pipeline, CASE_GPU, 120},
        {"early_read_of_a_copy_is_reported", early_read_of_a_copy_is_reported, CASE_GPU, 120},
        {"unfenced_store_source_is_reported", unfenced_store_source_is_reported, CASE_GPU, 120},
        {"store_issued_before_the_writes_are_ordered_is_reported",
         store_issued_before_the_writes_are_ordered_is_reported, CASE_GPU, 120},
        {"store_of_unwritten_shared_memory_is_reported",
         store_of_unwritten_shared_memory_is_reported, CASE_GPU, 120},
        {"correct_copies_report_nothing", correct_copies_report_nothing, CASE_GPU, 120},
        {"counters_see_the_copy_engine", counters_see_the_copy_engine, CASE_GPU, 120},
        {"multicast_reaches_every_block_of_the_mask", multicast_reaches_every_block_of_the_mask,
         CASE_GPU, 120},
        {"refusals_fail_in_one_line", refusals_fail_in_one_line, CASE_GPU, 120},
        {"programming_guide_example_runs", programming_guide_example_runs, CASE_GPU, 120},
        {"grid_constant_parameter_through_a_pointer", grid_constant_parameter_through_a_pointer,
         CASE_GPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
