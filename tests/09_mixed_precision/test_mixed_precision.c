/**
 * @file test_mixed_precision.c
 * @brief Lesson 09's suite: the conversions checked exhaustively on the CPU and on the GPU, the
 *        WMMA GEMMs at three precisions under the rounding rule, the loss scaler, PTX structure.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "course_half.h"
#include "course_judge.h"
#include "course_test.h"
#include "loss_scale.h"
#include "mat.h"
#include "ref.h"

static float float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* A growing list of floats to convert. */
struct cases {
    float *x;
    size_t n, cap;
};

static void add(struct cases *c, float x)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1 << 16;
        float *bigger = mat_alloc(c->cap * sizeof *bigger);
        if (c->n)
            memcpy(bigger, c->x, c->n * sizeof *bigger);
        free(c->x);
        c->x = bigger;
    }
    c->x[c->n++] = x;
}

/* x, -x, and the floats just either side of both. */
static void add_around(struct cases *c, float x)
{
    add(c, x);
    add(c, -x);
    add(c, nextafterf(x, 0));
    add(c, nextafterf(x, INFINITY));
    add(c, -nextafterf(x, 0));
    add(c, -nextafterf(x, INFINITY));
}

/*
 * Every value of the 16-bit format (bf16 or fp16), every midpoint between neighbours (the
 * ties), the floats just either side of each, both signs; NaNs with several payloads, the
 * infinities, zeros, float subnormals, the overflow threshold; and a stride through all 2^32
 * float bit patterns.
 */
static struct cases conversion_cases(int bf16)
{
    struct cases c = {NULL, 0, 0};
    uint32_t top = bf16 ? 0x7F7F : 0x7BFF; /* the largest finite pattern */
    for (uint32_t h = 0; h <= top; h++) {
        float lo = bf16 ? ref_bf16_to_f32((uint16_t)h) : ref_f16_to_f32((uint16_t)h);
        float next = bf16 ? ref_bf16_to_f32((uint16_t)(h + 1)) : ref_f16_to_f32((uint16_t)(h + 1));
        /* past fp16's largest finite value the next step would be 2^16; bf16's is added below */
        float hi = h < top ? next : bf16 ? INFINITY : 65536.0f;
        add_around(&c, lo);
        if (isfinite(hi))
            add_around(&c, (float)(((double)lo + hi) / 2)); /* exact: one bit more than 16 */
    }
    if (bf16) /* the bf16 tie above the largest finite value: 0x7F7F8000 */
        add_around(&c, float_of(0x7F7F8000u));
    const uint32_t special[] = {0x7F800000u, 0x7FC00000u, 0x7F800001u, 0x7FFFFFFFu, 0x7FA00000u,
                                0x00000001u, 0x00400000u, 0x007FFFFFu, 0x7F7FFFFFu, 0x33000000u,
                                0x33000001u, 0x32FFFFFFu, 0x477FF000u, 0x477FEFFFu, 0x38800000u,
                                0x387FFFFFu, 0x387FE000u, 0x387FF000u};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++) {
        add(&c, float_of(special[i]));
        add(&c, float_of(special[i] | 0x80000000u));
    }
    for (uint64_t u = 0; u < (1ull << 32); u += 4093)
        add(&c, float_of((uint32_t)u));
    return c;
}

/* Compare the converted bits @p got with the reference for every case: one assertion. */
static void assert_conversions(const struct cases *c, const uint16_t *got, int bf16,
                               const char *name)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < c->n; i++) {
        uint16_t want = bf16 ? ref_f32_to_bf16(c->x[i]) : ref_f32_to_f16(c->x[i]);
        if (got[i] != want && bad++ == 0)
            first = i;
    }
    if (bad) {
        uint32_t u;
        memcpy(&u, &c->x[first], sizeof u);
        uint16_t want = bf16 ? ref_f32_to_bf16(c->x[first]) : ref_f32_to_f16(c->x[first]);
        ck_abort_msg("%s: %zu of %zu wrong, the first %a (0x%08x) -> 0x%04x, want 0x%04x", name,
                     bad, c->n, c->x[first], u, got[first], want);
    }
}

/* The host conversion @p name on every case, element by element in the runner. */
static void check_host_conversion(int bf16)
{
    const char *name = bf16 ? "mp_f32_to_bf16" : "mp_f32_to_f16";
    struct cases c = conversion_cases(bf16);
    struct course_runner *r = course_runner_start(COURSE_CPU);
    int x = course_buf_in(r, PROTO_HOST, c.x, c.n * sizeof(float), 0);
    int y = course_buf_out(r, PROTO_HOST, c.n * sizeof(uint16_t), 0);
    course_map(r, name, PROTO_U16, PROTO_F32, x, y, c.n);
    uint16_t *got = course_buf_read(r, y, name);
    course_runner_stop(r);
    assert_conversions(&c, got, bf16, name);
    free(got);
    free(c.x);
}

START_TEST(f16_conversion_exhaustive)
{
    check_host_conversion(0);
}
END_TEST

START_TEST(bf16_conversion_exhaustive)
{
    check_host_conversion(1);
}
END_TEST

/*
 * The conversion kernel on the first 20011 of @p all (several blocks of any size), then counted
 * on the emulator: it reads each sector of x and writes each sector of y once, and reaches all
 * of them. A loop that steps by a block, not by the whole grid, gives the right values but makes
 * every block redo the rest of the array (on the emulator, about 50 s for all of the cases, near
 * the case's timeout).
 */
static void assert_converted_once(const struct cases *all, int bf16)
{
    const char *name = bf16 ? "convert_f32_to_bf16" : "convert_f32_to_f16";
    struct cases c = *all;
    c.n = 20011;
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    int x = course_buf_in(r, PROTO_DEVICE, c.x, c.n * sizeof(float), 0);
    int y = course_buf_out(r, PROTO_DEVICE, c.n * sizeof(uint16_t), 0);
    COURSE_CALL(r, name, PROTO_VOID, COURSE_PTR(x), COURSE_PTR(y), COURSE_I64(c.n));
    struct vm_counters k =
        course_observed(r, bf16 ? "convert_f32_to_bf16_kernel" : "convert_f32_to_f16_kernel");
    uint16_t *got = course_buf_read(r, y, name);
    course_runner_stop(r);
    assert_conversions(&c, got, bf16, name);
    free(got);
    char what[64];
    snprintf(what, sizeof what, "%s of %zu floats", name, c.n);
    course_assert_each_sector_once(what, &k, 4 * c.n, 2 * c.n);
}

/* The device kernels on the same cases (they run the same routine; this checks the kernels). */
START_TEST(conversion_kernels_match_reference)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int bf16 = 0; bf16 < 2; bf16++) {
        const char *name = bf16 ? "convert_f32_to_bf16" : "convert_f32_to_f16";
        struct cases c = conversion_cases(bf16);
        assert_converted_once(&c, bf16); /* first: a loop that redoes work is slow on all */
        int x = course_buf_in(r, PROTO_DEVICE, c.x, c.n * sizeof(float), 0);
        int y = course_buf_out(r, PROTO_DEVICE, c.n * sizeof(uint16_t), 0);
        COURSE_CALL(r, name, PROTO_VOID, COURSE_PTR(x), COURSE_PTR(y), COURSE_I64(c.n));
        uint16_t *got = course_buf_read(r, y, name);
        assert_conversions(&c, got, bf16, name);
        course_buf_free(r, x);
        course_buf_free(r, y);
        free(got);
        free(c.x);
    }
    course_runner_stop(r);
}
END_TEST

enum gemm_type { T_F16, T_BF16, T_TF32 };
static const char *const type_names[] = {"gemm_wmma_f16", "gemm_wmma_bf16", "gemm_wmma_tf32"};

/*
 * Run the WMMA GEMM of @p type on A and B into a poisoned, guarded C; return C (malloc'd). For
 * fp16 and bf16 the inputs are first rounded to the format on the host (A and B are overwritten
 * with the rounded values); TF32 takes the floats as they are and rounds inside.
 */
static float *run_gemm(struct course_runner *r, enum gemm_type type, int M, int N, int K, float *A,
                       float *B)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    int a, b;
    if (type == T_TF32) {
        a = course_buf_in(r, PROTO_DEVICE, A, na * 4, 0);
        b = course_buf_in(r, PROTO_DEVICE, B, nb * 4, 0);
    } else {
        uint16_t *hA = course_to16(A, na, type == T_BF16), *hB = course_to16(B, nb, type == T_BF16);
        a = course_buf_in(r, PROTO_DEVICE, hA, na * 2, 0);
        b = course_buf_in(r, PROTO_DEVICE, hB, nb * 2, 0);
        free(hA);
        free(hB);
    }
    int c = course_buf_out(r, PROTO_DEVICE, nc * 4, 0);
    float *C = course_gemm_call(r, type_names[type], M, N, K, a, b, c);
    return C;
}

/*
 * Check @p type at M x N x K: on integers (exact in every format) exactly, or on uniform
 * [-1, 1) inputs under the rule, with u_in = 0 for fp16 and bf16 (rounded on the host, so the
 * reference uses the rounded values) and REF_U_TF32 for TF32 (rounded in the kernel, so the
 * reference uses the floats).
 */
static struct mat_cmp check_gemm(struct course_runner *r, enum gemm_type type, int M, int N, int K,
                                 uint64_t seed, int uniform)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A, *B;
    course_gemm_inputs(na, nb, seed, uniform, &A, &B);
    double *want = mat_alloc(nc * sizeof *want), *scale = mat_alloc(nc * sizeof *scale);
    float *C = run_gemm(r, type, M, N, K, A, B);
    ref_matmul_f64(M, N, K, A, B, want);
    struct mat_cmp cmp;
    if (uniform) {
        ref_matmul_abs_f64(M, N, K, A, B, scale);
        double u_in = type == T_TF32 ? REF_U_TF32 : 0;
        cmp = mat_compare_scaled(C, want, scale, M, N, ref_gemm_tolerance(K, u_in, REF_U_TC_ACC));
    } else {
        cmp = mat_compare_f64(C, want, M, N, 0, 0);
    }
    free(A);
    free(B);
    free(C);
    free(want);
    free(scale);
    return cmp;
}

static void check_edges(enum gemm_type type)
{
    char why[160];
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (size_t s = 0; s < course_gemm_edge_count(); s++) {
        const int *d = course_gemm_shapes[s];
        struct mat_cmp c = check_gemm(r, type, d[0], d[1], d[2], 100 + s, 0);
        ck_assert_msg(c.n_bad == 0, "%s at M=%d N=%d K=%d (integers): %s", type_names[type], d[0],
                      d[1], d[2], mat_cmp_describe(&c, why, sizeof why));
    }
    const int random_shapes[][3] = {{33, 31, 1}, {67, 129, 257}, {129, 65, 4099}};
    for (size_t s = 0; s < 3; s++) {
        const int *d = random_shapes[s];
        struct mat_cmp c = check_gemm(r, type, d[0], d[1], d[2], 200 + s, 1);
        ck_assert_msg(c.n_bad == 0, "%s at M=%d N=%d K=%d (random, rounding rule): %s",
                      type_names[type], d[0], d[1], d[2], mat_cmp_describe(&c, why, sizeof why));
    }
    course_runner_stop(r);
}

START_TEST(gemm_wmma_f16_edges)
{
    check_edges(T_F16);
}
END_TEST

START_TEST(gemm_wmma_bf16_edges)
{
    check_edges(T_BF16);
}
END_TEST

START_TEST(gemm_wmma_tf32_edges)
{
    check_edges(T_TF32);
}
END_TEST

/* TF32 keeps 10 mantissa bits. s * (1 + 3 * 2^-12) is 0.75 of a TF32 ulp above s: rounded to
 * nearest it becomes s * (1 + 2^-10); dropped bits (no rounding) leave s. Times the identity,
 * C shows which happened, exactly. */
START_TEST(tf32_rounds_to_nearest)
{
    const int M = 19, K = 24, N = K;
    float *A = mat_alloc_f32(M * K), *B = mat_alloc_f32(K * N), *want = mat_alloc_f32(M * N);
    const float s[] = {1.0f, -2.0f, 0.5f, 4.0f, -0.25f};
    for (int i = 0; i < M * K; i++)
        A[i] = s[i % 5] * (1.0f + 3 * 0x1p-12f);
    for (int i = 0; i < K * N; i++)
        B[i] = i / N == i % N; /* the identity */
    for (int i = 0; i < M * N; i++)
        want[i] = s[i % 5] * (1.0f + 0x1p-10f);
    struct course_runner *r = course_runner_start(COURSE_GPU);
    float *C = run_gemm(r, T_TF32, M, N, K, A, B);
    course_runner_stop(r);
    struct mat_cmp cmp = mat_compare(C, want, M, N, 0, 0);
    char why[160];
    ck_assert_msg(cmp.n_bad == 0, "%s (TF32 inputs not rounded to nearest?)",
                  mat_cmp_describe(&cmp, why, sizeof why));
    free(A);
    free(B);
    free(C);
    free(want);
}
END_TEST

/* The formats in order: at K = 4096 on uniform inputs, fp16 and TF32 (10 mantissa bits) are
 * several times more accurate than bf16 (7 bits). */
START_TEST(accuracy_follows_mantissa_bits)
{
    const int M = 96, N = 80, K = 4096;
    double rel[3];
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int t = 0; t < 3; t++) {
        float *A = mat_alloc_f32((size_t)M * K), *B = mat_alloc_f32((size_t)K * N);
        double *want = mat_alloc((size_t)M * N * sizeof *want);
        mat_fill_uniform(A, (size_t)M * K, 31, -1, 1);
        mat_fill_uniform(B, (size_t)K * N, 32, -1, 1);
        ref_matmul_f64(M, N, K, A, B, want); /* exact, before run_gemm rounds A and B */
        float *C = run_gemm(r, (enum gemm_type)t, M, N, K, A, B);
        double e2 = 0, w2 = 0;
        for (int i = 0; i < M * N; i++) {
            e2 += (C[i] - want[i]) * (C[i] - want[i]);
            w2 += want[i] * want[i];
        }
        rel[t] = sqrt(e2 / w2);
        free(A);
        free(B);
        free(C);
        free(want);
    }
    course_runner_stop(r);
    ck_assert_msg(rel[T_F16] * 2 < rel[T_BF16] && rel[T_TF32] * 2 < rel[T_BF16],
                  "relative errors fp16 %.3g, bf16 %.3g, tf32 %.3g", rel[T_F16], rel[T_BF16],
                  rel[T_TF32]);
    ck_assert_msg(rel[T_BF16] < 0x1p-6, "bf16 relative error %.3g is far too large", rel[T_BF16]);
}
END_TEST

/* The student's mp_f32_to_f16(@p x), through the runner, as a float. */
static float via_f16(struct course_runner *r, float x)
{
    return ref_f16_to_f32((uint16_t)COURSE_CALL(r, "mp_f32_to_f16", PROTO_U16, COURSE_F32(x)).i);
}

/* Small gradients: below 2^-25 they vanish in fp16; scaled by 2^16 they survive, and come back
 * to within fp16's relative precision once unscaled in float. */
START_TEST(small_gradients_need_scaling)
{
    const float g[] = {0x1.3p-26f, -0x1.7p-30f, 0x1.9p-33f, 0x1.fp-27f};
    struct course_runner *r = course_runner_start(COURSE_CPU);
    for (int i = 0; i < 4; i++) {
        ck_assert_msg(via_f16(r, g[i]) == 0.0f, "%a survived unscaled", g[i]);
        float back = via_f16(r, g[i] * 65536.0f) / 65536.0f;
        ck_assert_msg(back != 0.0f && fabsf(back - g[i]) <= fabsf(g[i]) * 0x1p-11f,
                      "%a scaled by 2^16 came back as %a", g[i], back);
    }
    course_runner_stop(r);
}
END_TEST

/* The scaler in buffer @p id, read back (its guards checked). */
static struct loss_scale read_scale(struct course_runner *r, int id)
{
    struct loss_scale *p = course_buf_read(r, id, "loss_scale"), s = *p;
    free(p);
    return s;
}

static void scale_init(struct course_runner *r, int id, float initial, int interval)
{
    COURSE_CALL(r, "loss_scale_init", PROTO_VOID, COURSE_PTR(id), COURSE_F32(initial),
                COURSE_I32(interval));
}

/* loss_scale_update(s, @p finite): what it returns. */
static int update(struct course_runner *r, int id, int finite)
{
    return (int)COURSE_CALL(r, "loss_scale_update", PROTO_I32, COURSE_PTR(id), COURSE_I32(finite))
        .i;
}

START_TEST(loss_scale_grows_and_backs_off)
{
    struct course_runner *r = course_runner_start(COURSE_CPU);
    int id = course_buf_out(r, PROTO_HOST, sizeof(struct loss_scale), 0);
    scale_init(r, id, 1024.0f, 3);
    struct loss_scale s = read_scale(r, id);
    ck_assert(s.scale == 1024.0f && s.good_steps == 0 && s.steps == 0 && s.skipped == 0);
    ck_assert_int_eq(update(r, id, 1), 1);
    ck_assert_int_eq(update(r, id, 1), 1);
    ck_assert(read_scale(r, id).scale == 1024.0f);
    ck_assert_int_eq(update(r, id, 1), 1); /* third good step in a row: grow */
    s = read_scale(r, id);
    ck_assert(s.scale == 2048.0f && s.good_steps == 0);
    ck_assert_int_eq(update(r, id, 1), 1);
    ck_assert_int_eq(update(r, id, 0), 0); /* overflow: skip, back off, reset the run */
    s = read_scale(r, id);
    ck_assert(s.scale == 1024.0f && s.good_steps == 0 && s.skipped == 1);
    ck_assert_int_eq(update(r, id, 1), 1);
    ck_assert_int_eq(update(r, id, 1), 1);
    ck_assert(read_scale(r, id).scale == 1024.0f); /* only two good steps since the overflow */
    ck_assert_int_eq(update(r, id, 1), 1);
    s = read_scale(r, id);
    ck_assert(s.scale == 2048.0f && s.steps == 8 && s.skipped == 1);

    scale_init(r, id, 2.0f, 1); /* the bounds hold */
    update(r, id, 0);
    update(r, id, 0);
    s = read_scale(r, id);
    ck_assert(s.scale == 1.0f && s.skipped == 2);
    scale_init(r, id, 0x1p24f, 1);
    update(r, id, 1);
    ck_assert(read_scale(r, id).scale == 0x1p24f);
    course_runner_stop(r);
}
END_TEST

START_TEST(loss_scale_unscales_and_detects_overflow)
{
    struct course_runner *r = course_runner_start(COURSE_CPU);
    int id = course_buf_out(r, PROTO_HOST, sizeof(struct loss_scale), 0);
    scale_init(r, id, 65536.0f, 2000);
    const float g0[4] = {3.0f * 65536.0f, -0.5f * 65536.0f, 0x1p-20f * 65536.0f, 0.0f};
    const float h0[3] = {1.0f, INFINITY, 2.0f}, n0[2] = {NAN, 1.0f};
    int g = course_buf_inout(r, PROTO_HOST, g0, sizeof g0, 0);
    int h = course_buf_inout(r, PROTO_HOST, h0, sizeof h0, 0);
    int n = course_buf_in(r, PROTO_HOST, n0, sizeof n0, 0);
    ck_assert_int_eq(COURSE_CALL(r, "loss_scale_unscale", PROTO_I32, COURSE_PTR(id), COURSE_PTR(g),
                                 COURSE_I64(4))
                         .i,
                     1);
    float *gv = course_buf_read(r, g, "loss_scale_unscale");
    ck_assert(gv[0] == 3.0f && gv[1] == -0.5f && gv[2] == 0x1p-20f && gv[3] == 0.0f);
    free(gv);
    ck_assert_int_eq(COURSE_CALL(r, "loss_scale_unscale", PROTO_I32, COURSE_PTR(id), COURSE_PTR(h),
                                 COURSE_I64(3))
                         .i,
                     0);
    ck_assert_int_eq(
        COURSE_CALL(r, "loss_scale_all_finite", PROTO_I32, COURSE_PTR(n), COURSE_I64(2)).i, 0);
    ck_assert_int_eq(
        COURSE_CALL(r, "loss_scale_all_finite", PROTO_I32, COURSE_PTR(g), COURSE_I64(4)).i, 1);
    course_runner_stop(r);
}
END_TEST

/* The PTX: the conversion kernels load floats and store 16-bit values in a grid-stride loop;
 * the GEMMs use Tensor Cores with float accumulation, and the TF32 one rounds its fragments
 * (cvt.rna.tf32.f32, from __float_to_tf32). */
START_TEST(ptx_conversions_and_tensor_cores)
{
    char *ptx = course_read_file(LESSON_PTX);
    ck_assert_msg(ptx != NULL, "cannot read %s", LESSON_PTX);
    const char *conv[] = {"convert_f32_to_f16_kernel", "convert_f32_to_bf16_kernel"};
    for (int k = 0; k < 2; k++) {
        char *body = course_ptx_entry(ptx, conv[k]);
        ck_assert_msg(body != NULL, "no %s in the PTX", conv[k]);
        ck_assert_msg(strstr(body, "ld.global"), "%s loads nothing", conv[k]);
        ck_assert_msg(strstr(body, "st.global.u16") || strstr(body, "st.global.b16"),
                      "%s stores no 16-bit values", conv[k]);
        ck_assert_msg(strstr(body, "%nctaid.x"), "%s has no grid-stride loop", conv[k]);
        free(body);
    }
    const char *gemms[] = {"gemm_wmma_f16_kernel", "gemm_wmma_bf16_kernel",
                           "gemm_wmma_tf32_kernel"};
    const char *mma[] = {"m16n16k16.f32.f32", "m16n16k16.f32.bf16.bf16.f32",
                         "m16n16k8.f32.tf32.tf32.f32"};
    for (int k = 0; k < 3; k++) {
        char *body = course_ptx_entry(ptx, gemms[k]);
        ck_assert_msg(body != NULL, "no %s in the PTX", gemms[k]);
        ck_assert_msg(strstr(body, "wmma.mma.sync") && strstr(body, mma[k]),
                      "%s has no wmma.mma.sync ...%s", gemms[k], mma[k]);
        if (k == 2)
            ck_assert_msg(strstr(body, "cvt.rna.tf32.f32"),
                          "gemm_wmma_tf32_kernel does not round its fragments to TF32");
        free(body);
    }
    free(ptx);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"f16_conversion_exhaustive", f16_conversion_exhaustive, CASE_CPU, 60},
        {"bf16_conversion_exhaustive", bf16_conversion_exhaustive, CASE_CPU, 60},
        {"conversion_kernels_match_reference", conversion_kernels_match_reference, CASE_GPU, 60},
        {"gemm_wmma_f16_edges", gemm_wmma_f16_edges, CASE_GPU, 180},
        {"gemm_wmma_bf16_edges", gemm_wmma_bf16_edges, CASE_SM80, 180},
        {"gemm_wmma_tf32_edges", gemm_wmma_tf32_edges, CASE_SM80, 180},
        {"tf32_rounds_to_nearest", tf32_rounds_to_nearest, CASE_SM80, 30},
        {"accuracy_follows_mantissa_bits", accuracy_follows_mantissa_bits, CASE_SM80, 60},
        {"small_gradients_need_scaling", small_gradients_need_scaling, CASE_CPU, 10},
        {"loss_scale_grows_and_backs_off", loss_scale_grows_and_backs_off, CASE_CPU, 10},
        {"loss_scale_unscales_and_detects_overflow", loss_scale_unscales_and_detects_overflow,
         CASE_CPU, 10},
        {"ptx_conversions_and_tensor_cores", ptx_conversions_and_tensor_cores, CASE_CPU, 30},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
