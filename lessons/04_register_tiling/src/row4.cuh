/**
 * @file row4.cuh
 * @brief Lessons 04 and 05: four floats of a matrix row at a time, as one 128-bit access
 *        where the row allows it, else as guarded scalars.
 *
 * A launcher asks once per matrix whether its rows may be read and written as float4
 * (rows_aligned16()) and passes the answer to its kernel, which hands it to every
 * load_row4() and store_row4(). These take the 128-bit path only when the flag is set and
 * all four elements lie inside the row, so interior tiles go fast, edge tiles go safe, and
 * every size and every pointer is accepted. One copy for both lessons: lesson 05's kernels
 * include this file from lesson 04's folder.
 */
#ifndef ROW4_CUH
#define ROW4_CUH

#include <stdint.h>

/*
 * Elements start .. start+3 of a row of length len at @p row, 0 past its end.
 * With @p vec (the row is 16-byte aligned: the launcher checked the pointer and
 * the row length) and all four inside, one 128-bit load through the read-only
 * path (ld.global.nc.v4.f32); otherwise up to four guarded scalar loads.
 */
static __device__ __forceinline__ float4 load_row4(const float *row, int start, int len, int vec)
{
    if (vec && start + 3 < len)
        return __ldg(reinterpret_cast<const float4 *>(row + start));
    float4 v;
    v.x = start < len ? row[start] : 0.0f;
    v.y = start + 1 < len ? row[start + 1] : 0.0f;
    v.z = start + 2 < len ? row[start + 2] : 0.0f;
    v.w = start + 3 < len ? row[start + 3] : 0.0f;
    return v;
}

/* The same for a store: one 128-bit store when allowed, else guarded scalars. */
static __device__ __forceinline__ void store_row4(float *row, int start, int len, int vec, float4 v)
{
    if (vec && start + 3 < len) {
        *reinterpret_cast<float4 *>(row + start) = v;
        return;
    }
    if (start < len)
        row[start] = v.x;
    if (start + 1 < len)
        row[start + 1] = v.y;
    if (start + 2 < len)
        row[start + 2] = v.z;
    if (start + 3 < len)
        row[start + 3] = v.w;
}

/* Whether every row of a matrix with row length @p len at @p p starts 16-byte aligned. */
static inline int rows_aligned16(const void *p, int len)
{
    return (uintptr_t)p % 16 == 0 && len % 4 == 0;
}

#endif /* ROW4_CUH */
