/**
 * @file course_bars.c
 * @brief The timing cases' bars, per GPU architecture family, each with its source.
 *
 * A timing case measures one ratio in one run (a speedup over the lesson's previous step, or a
 * fraction of cuBLAS's or of a device copy's speed) and meets a bar for the GPU it runs on. The
 * bar sits below the band published for that step on that family, by a margin for run-to-run
 * noise and for the course's kernels not being the published ones: 0.8 of the band's low end
 * for fractions of cuBLAS, and about 0.75 of it for speedups. Every bar says where it comes
 * from, and its source string begins with what it is: "published:" (a measurement someone
 * published, with where), "derived, not measured:" (from what the kernel must move or compute)
 * or "placeholder:" (no published source yet: the first gpu-report on such a GPU replaces it).
 * A family the table has no row for gets the row for every family (family 0) when there is one,
 * else the loosest bar the table has for that case, a placeholder, and its message says so: a
 * timing case never fails for want of data about a GPU. tools/bars.py copies these bars, with
 * their sources, into the lesson texts and decks.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "course_judge.h"
#include "device.h"

/* The published SGEMM ladder this course's lessons 02 to 05 follow: GFLOP/s of each step and of
 * cuBLAS, in one run, on one GPU. */
#define SGEMM_A6000                                                                                \
    "published: siboehm/SGEMM_CUDA README (github.com/siboehm/SGEMM_CUDA), RTX A6000, 4092^3 "     \
    "SGEMM"
/* No published figure: the band follows from what the kernel must move or compute. */
#define DERIVED "derived, not measured: "
/* No published source for this family or this kernel yet. */
#define PLACEHOLDER "placeholder: "
/* Figures the course's issue tracker reported without a primary source. */
#define ISSUE_21 PLACEHOLDER "reported in the course's issue 21, no primary source"
/* Lesson 06's targets, as its issue set them: no published measurement of these kernels. */
#define TARGET_06 PLACEHOLDER "lesson 06's target (issue 17), no published measurement"
/* Lesson 10's targets, as its issue set them: no published measurement of these kernels. */
#define TARGET_10 PLACEHOLDER "lesson 10's target (issue 30), no published measurement"
/* Lesson 12's targets, as its issue set them: no published measurement of these kernels. */
#define TARGET_12 PLACEHOLDER "lesson 12's target (issue 32), no published measurement"

struct bar {
    const char *key; /* the ratio's name, as the timing case passes it */
    int family;      /* compute capability as 10 * major + minor: 75, 80, 86, 89, 90 */
    double bar;      /* the case passes at or above this */
    double lo, hi;   /* the band expected on this family */
    const char *source;
};

static const struct bar bars[] = {
    /* Lesson 02: coalescing, naive / coalesced time (1986.5 / 309.0 GFLOP/s). */
    {"coalesced_over_naive", 86, 4.8, 6.4, 6.4, SGEMM_A6000 ", kernels 1 and 2"},
    {"vector_add_over_copy", 0, 0.85, 0.90, 1.00,
     DERIVED "vector_add streams the bytes of a copy of the same footprint"},
    /* Lesson 03: shared-memory tiling (2980.3 GFLOP/s, 12.8% of cuBLAS). */
    {"tiled_over_coalesced", 86, 1.2, 1.5, 1.5, SGEMM_A6000 ", kernels 2 and 3"},
    {"tiled_over_coalesced", 0, 1.0, 1.0, 1.5,
     PLACEHOLDER "sm_86's gain need not carry over (the time model's estimate for an H100 SXM5 "
                 "is in the lesson's \"Estimated (model)\" section), so elsewhere tiling must only "
                 "not lose"},
    {"tiled_vs_cublas", 86, 0.10, 0.128, 0.128, SGEMM_A6000 ", kernel 3 against cuBLAS"},
    {"padded_over_conflicted_transpose", 0, 1.15, 1.3, 3.0,
     DERIVED "the column read's 32-way conflicts replay its shared loads 32 times"},
    {"padded_transpose_over_copy", 0, 0.4, 0.6, 1.0,
     DERIVED "a transpose moves the bytes of a copy, through shared memory"},
    /* Lesson 04: register tiling (8474.7, 15971.7, 18237.3 GFLOP/s; 78.4% of cuBLAS). */
    {"tile_2d_over_1d", 86, 1.2, 1.88, 1.88, SGEMM_A6000 ", kernels 4 and 5"},
    {"vectorized_vs_cublas", 86, 0.63, 0.784, 0.784, SGEMM_A6000 ", kernel 6 against cuBLAS"},
    /* Lesson 05: warp tiling (21779.3 GFLOP/s, 93.7% of cuBLAS) and the warp GEMV. */
    {"warptile_over_vectorized", 86, 1.05, 1.19, 1.19, SGEMM_A6000 ", kernels 6 and 10"},
    {"warptile_vs_cublas", 86, 0.75, 0.937, 0.937, SGEMM_A6000 ", kernel 10 against cuBLAS"},
    {"warptile_vs_cublas", 80, 0.76, 0.95, 0.95, ISSUE_21 " (A100)"},
    {"warptile_vs_cublas", 90, 0.60, 0.75, 0.85, ISSUE_21 " (H100)"},
    {"gemv_over_cublas", 0, 0.9, 0.95, 1.05,
     DERIVED "both read the matrix once; neither can beat the bandwidth"},
    {"gemv_over_copy", 0, 0.8, 0.85, 1.0, DERIVED "the GEMV reads M*K floats, as a copy would"},
    /* Lesson 08: Tensor Cores (WMMA) at half precision. */
    {"wmma_shared_over_naive", 0, 1.3, 1.5, 4.0,
     DERIVED "staging in shared memory cuts each fragment's global loads by the tile width"},
    {"wmma_shared_vs_cublas", 0, 0.4, 0.5, 0.8,
     DERIVED "WMMA without asynchronous copies or swizzled layouts, against cuBLAS HGEMM"},
    /* Lesson 07: the chunked pipeline against the serial one, 8 chunks, kernel about as long as
     * each copy. */
    {"overlap_over_serial", 0, 1.4, 1.8, 2.4,
     DERIVED "three stages of time T each take 3T one after the other and about (k + 2)T / k in "
             "a pipeline of k chunks: 2.4x at k = 8; 1.8x when the kernel is short and only the "
             "two copy directions overlap"},
    /* Lesson 10: mma.sync by hand, fp16 in, fp32 accumulate, against cuBLAS GemmEx. */
    {"mma_swizzled_over_ldmatrix", 0, 1.05, 1.1, 2.0,
     DERIVED "the plain tiles' ldmatrix reads take 4 (A) and 8 (B) wavefronts where 1 suffices"},
    {"mma_pipelined_over_swizzled", 0, 1.05, 1.1, 2.0,
     DERIVED "the copies of the next slices overlap the math instead of preceding it"},
    {"mma_pipelined_vs_cublas", 80, 0.85, 0.85, 1.0, TARGET_10 " (A100)"},
    {"mma_pipelined_vs_cublas", 90, 0.60, 0.60, 0.8,
     TARGET_10 " (H100, where cuBLAS uses wgmma, lesson 12's subject)"},
    /* Lesson 12: Hopper, bf16 in, fp32 accumulate, against cuBLAS GemmEx (sm_90 only). */
    {"wgmma_pipelined_over_tma", 90, 1.1, 1.2, 3.0,
     DERIVED "one stage waits for every slice's copy before its math; with four in flight the "
             "copies hide behind the math, and its 64 x 256 tile reads a sixth fewer "
             "bytes of A and B a multiply-add than 64 x 128"},
    {"wgmma_specialized_over_pipelined", 90, 1.0, 1.0, 1.5,
     DERIVED "a 128 x 128 tile (each slice of B read once for two warpgroups) reads a fifth "
             "fewer bytes of A and B a multiply-add than 64 x 256, and the copies are issued by "
             "a warpgroup that never waits on wgmma"},
    {"wgmma_specialized_vs_cublas", 90, 0.72, 0.90, 1.0, TARGET_12 " (H100)"},
    /* Lesson 11: attention, 16 heads, n = 4096, d = 64, fp16. */
    {"flash_over_unfused", 0, 1.5, 2.0, 10.0,
     DERIVED "the unfused version also moves S and P through memory, 32 n^2 bytes a head at "
             "n = 4096 (lesson 11's README), 8.6 GB here: 2.6 ms of HBM3 at 3.35 TB/s before any "
             "arithmetic"},
    /* Lesson 06: each pattern against CUB's device-wide call, at 2^26 elements. */
    {"reduce_vs_cub", 0, 0.85, 0.85, 1.0, TARGET_06},
    {"scan_three_phase_vs_cub", 0, 0.60, 0.60, 0.8, TARGET_06},
    {"scan_lookback_vs_cub", 0, 0.85, 0.85, 1.0, TARGET_06},
    {"histogram_vs_cub", 0, 0.50, 0.50, 1.0, TARGET_06},
};

/* The row for @p key on @p family: that family's, else one for every family, else (*fallback
 * set) the loosest of the others. */
static const struct bar *find_bar(const char *key, int family, int *fallback)
{
    const struct bar *every = NULL, *loosest = NULL;
    for (size_t i = 0; i < sizeof bars / sizeof bars[0]; i++) {
        const struct bar *b = &bars[i];
        if (strcmp(b->key, key) != 0)
            continue;
        if (b->family == family)
            return *fallback = 0, b;
        if (b->family == 0)
            every = b;
        else if (!loosest || b->bar < loosest->bar)
            loosest = b;
    }
    ck_assert_msg(every || loosest, "no bar named %s in tests/common/course_bars.c", key);
    *fallback = !every;
    return every ? every : loosest;
}

/* One line in the case's output, and one in COURSE_PERF_OUT's file when set: the table
 * ./course gpu-report builds. */
static void record(const char *key, double ratio, const struct bar *b, int family, int fallback,
                   const char *gpu)
{
    const char *basis =
        fallback ? "placeholder: no bar for this family, the loosest the course has" : b->source;
    printf("course-perf: %s %.3f, bar %.3f, expected %.3f-%.3f on sm_%d (%s)\n", key, ratio, b->bar,
           b->lo, b->hi, family, basis);
    const char *path = getenv("COURSE_PERF_OUT");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (!f)
        return;
    fprintf(f, "%s\t%.4f\t%.3f\t%.3f\t%.3f\tsm_%d\t%s\t%s\t%s\n", key, ratio, b->bar, b->lo, b->hi,
            family, ratio >= b->bar ? "met" : "missed", gpu, basis);
    fclose(f);
}

void course_assert_bar(const char *key, double ratio, const char *fmt, ...)
{
    char detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    struct device_info d;
    device_query(&d);
    int family = 10 * d.cc_major + d.cc_minor, fallback;
    const struct bar *b = find_bar(key, family, &fallback);
    record(key, ratio, b, family, fallback, d.name);
    ck_assert_msg(ratio >= b->bar,
                  "%s: %.3f on %s (sm_%d), below its bar %.3f (expected %.3f-%.3f: %s%s); %s. "
                  "Likely: clocks below boost, a GPU shared with other work or a MIG slice, or "
                  "thermal throttling (nvidia-smi -q -d CLOCK,PERFORMANCE)",
                  key, ratio, d.name, family, b->bar, b->lo, b->hi, b->source,
                  fallback ? "; a placeholder: no bar for this family, the loosest the course has"
                           : "",
                  detail);
}
