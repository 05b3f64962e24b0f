/**
 * @file ops_tensor.c
 * @brief Tensor-core instructions: wmma (the emulator's own fragment layout),
 *        mma.sync, mma.sp, ldmatrix, stmatrix and movmatrix (the layouts the PTX ISA documents).
 *
 * wmma fragments are opaque to programs, so any layout that load, mma and
 * store agree on is correct; this one is the simplest: element e of the
 * row-major tile is slot e of the warp (lane e / per_lane, element
 * e % per_lane of that lane), repeated when a fragment holds more slots than
 * the tile has elements (f16 A and B fragments hold each element twice, as
 * the hardware's do).
 *
 * Products of f16, bf16, tf32 and fp8 (e4m3, e5m2) values are exact in fp32;
 * they are summed into the fp32 accumulator in k order, one rounding per
 * addition, and an f16 result is rounded once at the end. tf32 inputs are
 * read with their low 13 mantissa bits ignored, as the hardware reads an fp32
 * register it is given as tf32. wgmma.mma_async (ops_wgmma.c) runs on the same
 * tile functions (vm_impl.h).
 */
#include <limits.h>
#include <math.h>
#ifdef __F16C__
#include <immintrin.h>
#endif

#include "fp.h"
#include "vm_impl.h"

/* Element @p j of lane @p lane's fragment in registers @p regs: 16- and 8-bit elements pack
 * into 32-bit registers from the low bits up; f64 elements take a 64-bit register each. */
static uint64_t frag_get(const struct warp *w, const uint32_t *regs, int bytes, int lane, int j)
{
    if (bytes == 8)
        return R64(w, regs[j])[lane];
    int per_reg = 4 / bytes, shift = j % per_reg * bytes * 8;
    uint32_t r = R32(w, regs[j / per_reg])[lane];
    return bytes == 4 ? r : (r >> shift) & ((1u << bytes * 8) - 1);
}

static void frag_set(struct warp *w, const uint32_t *regs, int bytes, int lane, int j, uint64_t v)
{
    if (bytes == 8) {
        R64(w, regs[j])[lane] = v;
        return;
    }
    int per_reg = 4 / bytes, shift = j % per_reg * bytes * 8;
    uint32_t mask = (bytes == 4 ? ~0u : (1u << bytes * 8) - 1) << shift;
    uint32_t *r = &R32(w, regs[j / per_reg])[lane];
    *r = (*r & ~mask) | ((uint32_t)v << shift & mask);
}

/* Elements per lane of a fragment of @p nregs registers of @p bytes-byte elements. */
static int frag_per(int nregs, int bytes)
{
    return bytes == 8 ? nregs : nregs * 4 / bytes;
}

/* Fragment slot s is element s % per of lane s / per. frag_gather reads slots 0 .. n-1 into
 * raw[]; frag_scatter writes every slot of the fragment (per lanes 32) from raw[s % n]. */
static void frag_gather(const struct warp *w, const uint32_t *regs, int per, int bytes, int n,
                        uint64_t *raw)
{
    if (n % per) {
        for (int s = 0; s < n; s++)
            raw[s] = frag_get(w, regs, bytes, s / per, s % per);
        return;
    }
    if (bytes == 8) { /* one element per 64-bit register */
        for (int lane = 0; lane < n / per; lane++)
            for (int j = 0; j < per; j++)
                raw[lane * per + j] = R64(w, regs[j])[lane];
        return;
    }
    /* Whole lanes: lane l's elements are raw[l * per ...], packed into its registers as
     * frag_get() reads them. */
    int per_reg = 4 / bytes, bits = 8 * bytes;
    uint32_t mask = bytes == 4 ? ~0u : (1u << bits) - 1;
    for (int lane = 0; lane < n / per; lane++)
        for (int r = 0; r < per / per_reg; r++) {
            uint32_t word = R32(w, regs[r])[lane];
            for (int k = 0; k < per_reg; k++)
                raw[lane * per + r * per_reg + k] = (word >> (k * bits)) & mask;
        }
}

static void frag_scatter(struct warp *w, const uint32_t *regs, int per, int bytes, int n,
                         const uint64_t *raw)
{
    if (n % per) {
        for (int s = 0; s < 32 * per; s++)
            frag_set(w, regs, bytes, s / per, s % per, raw[s % n]);
        return;
    }
    if (bytes == 8) {
        for (int lane = 0, first = 0; lane < 32; lane++, first = first + per < n ? first + per : 0)
            for (int j = 0; j < per; j++)
                R64(w, regs[j])[lane] = raw[first + j];
        return;
    }
    /* Whole lanes: lane l's slots are raw[(l * per) % n ...], none of them wrapping. */
    int per_reg = 4 / bytes, bits = 8 * bytes;
    uint32_t mask = bytes == 4 ? ~0u : (1u << bits) - 1;
    for (int lane = 0, first = 0; lane < 32; lane++, first = first + per < n ? first + per : 0)
        for (int r = 0; r < per / per_reg; r++) {
            const uint64_t *src = raw + first + r * per_reg;
            uint32_t word = 0;
            for (int k = 0; k < per_reg; k++)
                word |= ((uint32_t)src[k] & mask) << (k * bits);
            R32(w, regs[r])[lane] = word;
        }
}

/* The @p bytes-byte element at @p p, zero-extended; and its store. Fixed-size copies: no call. */
static uint64_t get_elem(const uint8_t *p, int bytes)
{
    uint8_t b1;
    uint16_t b2;
    uint32_t b4;
    uint64_t b8;
    switch (bytes) {
    case 1:
        return memcpy(&b1, p, 1), b1;
    case 2:
        return memcpy(&b2, p, 2), b2;
    case 4:
        return memcpy(&b4, p, 4), b4;
    default:
        return memcpy(&b8, p, 8), b8;
    }
}

static void put_elem(uint8_t *p, uint64_t v, int bytes)
{
    uint8_t b1 = (uint8_t)v;
    uint16_t b2 = (uint16_t)v;
    uint32_t b4 = (uint32_t)v;
    switch (bytes) {
    case 1:
        memcpy(p, &b1, 1);
        break;
    case 2:
        memcpy(p, &b2, 2);
        break;
    case 4:
        memcpy(p, &b4, 4);
        break;
    default:
        memcpy(p, &v, 8);
    }
}

/* wmma.load / wmma.store: the tile row by row (column by column for .col) between memory and
 * a row-major array, then the array to or from every slot of the fragment. */
/*
 * Count a tile of @p lines runs of @p run bytes (elements of @p elem bytes), @p pitch bytes apart
 * from @p base, as the warp's lanes move it on a GPU. A 16 x 16 tile of 16- or 32-bit elements
 * in global memory goes as ptxas moves it for sm_80 and sm_90: each lane a pair of elements, at
 * run lane / 4 (+ 8) and element 2 * (lane % 4) (+ 8), in four requests (Nsight Compute on an
 * H200, lesson 08's wmma_naive: 4 times the requests and twice the sectors of 16 bytes a lane,
 * and its f32 store twice the requests in the same sectors). Any other tile, and every tile in
 * shared memory (ldmatrix's order, which ncu's shared wavefronts matched): 16 bytes a lane (a
 * shorter run whole), consecutive lanes down the runs at one 16-byte column before the next
 * column, 32 lanes a request.
 */
static void wmma_count(struct exec *x, struct warp *w, enum space sp, uint64_t base, uint64_t pitch,
                       int lines, int run, int elem, int store)
{
    if (sp == SP_GENERIC)
        sp = base - SHARED_WINDOW < WINDOW_SIZE  ? (base -= SHARED_WINDOW, SP_SHARED)
             : base - LOCAL_WINDOW < WINDOW_SIZE ? SP_LOCAL
                                                 : SP_GLOBAL;
    uint64_t addr[128]; /* the largest tile, 1 KiB, is 64 pieces */
    if (sp == SP_GLOBAL && lines == 16 && run == 16 * elem && elem >= 2 && elem <= 4) {
        for (int req = 0; req < 4; req++) {
            for (int l = 0; l < 32; l++)
                addr[l] = base + (uint64_t)(l / 4 + 8 * (req >> 1)) * pitch +
                          (uint64_t)(2 * (l % 4) + 8 * (req & 1)) * (uint64_t)elem;
            vm_count_pieces(x, w, sp, addr, 32, 2u * (unsigned)elem, store);
        }
        return;
    }
    int piece = run < 16 ? run : 16, n = 0;
    for (int off = 0; off < run; off += piece)
        for (int i = 0; i < lines && n < 128; i++)
            addr[n++] = base + (uint64_t)i * pitch + (uint64_t)off;
    vm_count_pieces(x, w, sp, addr, n, (unsigned)piece, store);
}

static enum event wmma_mem(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                           int store)
{
    if (m != w->live)
        return vm_fail(x, w, in, __builtin_ctz(m), VM_UNSUPPORTED,
                       "wmma with part of the warp (lanes 0x%08x): the whole warp must execute it",
                       m);
    uint32_t mod = in->mod;
    int matrix = (int)WM_MATRIX(mod), type = (int)WM_TYPE(mod), shape = (int)WM_SHAPE(mod);
    int bytes = mma_elem_bytes(type), per = frag_per(wmma_frag_regs(matrix, type, shape), bytes);
    int rows, cols;
    wmma_dims(shape, matrix, &rows, &cols);
    const uint32_t *regs = &x->mod->pool[in->o[5]];
    int lane = __builtin_ctz(m), col = (int)WM_COL(mod);
    uint64_t base = in->o[0] == NO_REG      ? 0
                    : (mod & WM_BASE32_BIT) ? R32(w, in->o[0])[lane]
                                            : R64(w, in->o[0])[lane];
    base += (uint64_t)in->imm;
    uint64_t stride = in->o[1] != NO_REG ? R32(w, in->o[1])[lane] : (uint64_t)(col ? rows : cols);
    /* Two documents set the alignment: the PTX ISA (Matrix Storage for WMMA) aligns each row
     * (column) to a thread's fragment size (8 bytes for an s8 A, 32 for an f16 A), the CUDA C++
     * guide's load_matrix_sync a 32-byte address and a 16-byte stride. GPUs run code that keeps
     * either (an s8 tile 16 bytes into a row, an f16 ldm of 24), so only what breaks both
     * faults; memcheck holds CUDA C++ code to the guide's rule. */
    int frag = per * bytes, memcheck = (x->launch->checks & VM_CHECK_MEM) != 0;
    uint64_t addr_align = memcheck || frag > 32 ? 32 : (uint64_t)frag;
    uint64_t row_align = memcheck || frag > 16 ? 16 : (uint64_t)frag;
    if (base % addr_align || stride * (uint64_t)bytes % row_align)
        return vm_fail(x, w, in, lane, VM_FAULT,
                       "misaligned wmma %s: the address 0x%llx must be %llu-byte aligned and the "
                       "row stride (%llu elements, %llu bytes) a multiple of %llu bytes%s",
                       store ? "store" : "load", (unsigned long long)base,
                       (unsigned long long)addr_align, (unsigned long long)stride,
                       (unsigned long long)(stride * (uint64_t)bytes),
                       (unsigned long long)row_align,
                       memcheck ? " (memcheck: CUDA C++'s load_matrix_sync rule)" : "");
    uint64_t tile[32 * 16];
    if (store)
        frag_gather(w, regs, per, bytes, rows * cols, tile);
    int lines = col ? cols : rows, len = col ? rows : cols; /* contiguous runs in memory */
    for (int i = 0; i < lines; i++) {
        uint8_t *p;
        enum event ev = vm_access(x, w, in, lane, (enum space)WM_SPACE(mod),
                                  base + (uint64_t)i * stride * (uint64_t)bytes,
                                  (unsigned)(len * bytes), (unsigned)bytes, store, &p);
        if (ev != EV_NONE)
            return ev;
        for (int j = 0; j < len; j++) {
            uint64_t *t = &tile[col ? j * cols + i : i * cols + j];
            if (store) {
                put_elem(p + j * bytes, *t, bytes);
            } else {
                *t = get_elem(p + j * bytes, bytes);
            }
        }
    }
    if (!store)
        frag_scatter(w, regs, per, bytes, rows * cols, tile);
    wmma_count(x, w, (enum space)WM_SPACE(mod), base, stride * (uint64_t)bytes, lines, len * bytes,
               bytes, store);
    return EV_NONE;
}

enum event h_WMMA_LOAD(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return wmma_mem(x, w, in, m, 0);
}

enum event h_WMMA_STORE(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return wmma_mem(x, w, in, m, 1);
}

/* A raw element of type @p t as the fp32 value the tensor core multiplies. */
static float tc_value(int t, uint32_t raw)
{
    switch (t) {
    case MT_F16:
        return fp_f16_to_f32((uint16_t)raw);
    case MT_BF16:
        return fp_bf16_to_f32((uint16_t)raw);
    case MT_TF32:
        return u2f(raw & ~0x1FFFu);
    case MT_E5M2: /* IEEE-style: 5 exponent bits, 2 mantissa bits, infinities and NaNs */
        return (float)fp_value(raw & 0xFF, (struct fp_fmt){2, 5});
    case MT_E4M3: { /* bias 7, no infinities: S.1111.111 is NaN, S.1111.xxx normal (to 448) */
        int e = raw >> 3 & 15, man = raw & 7;
        float v = e ? ldexpf((float)(8 + man), e - 10) : ldexpf((float)man, -9);
        return e == 15 && man == 7 ? NAN : raw & 0x80 ? -v : v;
    }
    default:
        return u2f(raw);
    }
}

/* tc_value() of @p n raw elements of type @p t: the type chosen once, a loop per type. */
void tc_values(int t, const uint64_t *raw, int n, float *out)
{
    switch (t) {
    case MT_F16:
#ifdef __F16C__
        for (; n >= 8; n -= 8, raw += 8, out += 8) { /* eight at a time, the CPU's own widening */
            uint16_t h[8];
            for (int k = 0; k < 8; k++)
                h[k] = (uint16_t)raw[k];
            _mm256_storeu_ps(out, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)h)));
        }
#endif
        for (int e = 0; e < n; e++)
            out[e] = fp_f16_to_f32((uint16_t)raw[e]);
        break;
    case MT_BF16:
        for (int e = 0; e < n; e++)
            out[e] = fp_bf16_to_f32((uint16_t)raw[e]);
        break;
    default:
        for (int e = 0; e < n; e++)
            out[e] = tc_value(t, (uint32_t)raw[e]);
    }
}

/* Eight fp32 lanes: a vector of the compiler's (AVX, or two SSE halves), element by element. */
typedef float vec8 __attribute__((vector_size(32)));
/* Eight lanes of bits and of exponents, for tc_fused8()'s scan of the exponents. */
typedef uint32_t vu8 __attribute__((vector_size(32)));
typedef int32_t vi8 __attribute__((vector_size(32)));

/* D = A * B + C on tiles already gathered into row-major fp32 arrays, N a multiple of 8 (every
 * shape's). Each element of D adds its K products in k order, eight columns of a row at once. */
static void mma_tile(int M, int N, int K, const float *A, const float *B, const float *C, float *D)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j += 8) {
            vec8 d, b;
            memcpy(&d, &C[i * N + j], sizeof d);
            for (int k = 0; k < K; k++) {
                memcpy(&b, &B[k * N + j], sizeof b);
                d += A[i * K + k] * b; /* the product is exact; no contraction into an fma */
            }
            memcpy(&D[i * N + j], &d, sizeof d);
        }
}

/* @p exact rounded toward zero to fp32. */
static float f32_toward_zero(double exact)
{
    float v = (float)exact;
    return fabs((double)v) > fabs(exact) ? u2f(f2u(v) - 1) : v;
}

/* tc_fused8() where a column's terms are too far from 1 to scale in fp32 (@p emax beyond +-100:
 * bf16 near its least or greatest values): the same cut, in doubles. */
static void tc_far8(const float *a, const float *b, int N, int K, const float *c, float *d,
                    vi8 emax)
{
    for (int l = 0; l < 8; l++) {
        double t = trunc(ldexp((double)c[l], 25 - emax[l]));
        for (int k = 0; k < K; k++)
            t += trunc(ldexp((double)a[k] * b[k * N + l], 25 - emax[l]));
        d[l] = f32_toward_zero(ldexp(t, emax[l] - 25));
    }
}

/*
 * Eight columns of one row of Hopper's Tensor Cores with f16 or bf16 inputs and fp32 accumulators:
 * each of c[0..7] plus the @p K products a[k] * b[k * N + l] of one instruction, summed as one
 * operation. Every term is cut toward zero to a multiple of 2^(emax - 25), emax the largest
 * exponent among the column's terms (a product's taken as the sum of its factors' exponents, each
 * at least @p emin, the format's least normal one), the cut terms are added exactly, and the sum is
 * rounded toward zero to fp32. This reproduced every output bit of lessons 10's and 12's mma.sync
 * and wgmma GEMMs (m16n8k16 and k16, K = 8 to 4104) on an H200 (2026-11-30, emulator/STATUS.md).
 * The exponents are scanned eight columns to a vector; the cut terms are integers below 2^27 in
 * units of the cut, added in int64. A NaN or an infinity among the terms takes the plain sum.
 */
static void tc_fused8(const float *a, const float *b, int N, int K, const float *c, float *d,
                      int emin)
{
    vu8 uc;
    memcpy(&uc, c, sizeof uc);
    vi8 emax = (vi8)(uc >> 23 & 0xFF) - 127, special = emax == 128;
    emax = ((vi8)((uc << 1) != 0) & emax) | ((vi8)((uc << 1) == 0) & INT_MIN); /* a zero: none */
    for (int k = 0; k < K; k++) {
        uint32_t ux = f2u(a[k]);
        int ex = (int)(ux >> 23 & 0xFF) - 127;
        special |= ex == 128;
        if (!(ux << 1))
            continue; /* a zero factor: the column's products add nothing to the exponent */
        ex = ex > emin ? ex : emin;
        vu8 uy;
        memcpy(&uy, &b[k * N], sizeof uy);
        vi8 ey = (vi8)(uy >> 23 & 0xFF) - 127, low = ey < emin;
        special |= ey == 128;
        vi8 e = ex + ((ey & ~low) | (emin & low)), up = (vi8)((uy << 1) != 0) & (e > emax);
        emax = (e & up) | (emax & ~up);
    }
    emax &= emax != INT_MIN; /* a column of zeros only: any unit adds them alike, say 2^-25 */
    int any = 0;
    for (int l = 0; l < 8; l++)
        any |= special[l];
    if (any) {
        for (int l = 0; l < 8; l++) {
            float v = c[l];
            for (int k = 0; k < K; k++)
                v += a[k] * b[k * N + l];
            d[l] = v;
        }
        return;
    }
    /* One unit of the cut is 2^(emax - 25). A product of two f16 or bf16 values is exact in fp32,
     * and so is its scaling by a power of two while emax keeps it normal: each cut term is then an
     * fp32 value below 2^27 units, which the cast to int32 cuts toward zero. */
    float scale[8];
    int64_t sum[8];
    for (int l = 0; l < 8; l++) {
        if (emax[l] < -100 || emax[l] > 100) {
            tc_far8(a, b, N, K, c, d, emax);
            return;
        }
        scale[l] = u2f((uint32_t)(127 + 25 - emax[l]) << 23);
        sum[l] = (int32_t)(c[l] * scale[l]);
    }
    for (int k = 0; k < K; k++) {
        float x = a[k];
        for (int l = 0; l < 8; l++)
            sum[l] += (int32_t)(x * b[k * N + l] * scale[l]);
    }
    for (int l = 0; l < 8; l++)
        d[l] = f32_toward_zero((double)sum[l] * u2d((uint64_t)(1023 - 25 + emax[l]) << 52));
}

void mma_tile_as(int M, int N, int K, int at, int dt, const float *A, const float *B,
                 const float *C, float *D)
{
    /* f16's and bf16's least normal exponents; the other inputs, and f16 accumulators, keep
     * mma_tile()'s one rounding per addition. */
    int emin = dt != MT_F32 ? 0 : at == MT_F16 ? -14 : at == MT_BF16 ? -126 : 0;
    if (!emin) {
        mma_tile(M, N, K, A, B, C, D);
        return;
    }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j += 8)
            tc_fused8(&A[i * K], &B[j], N, K, &C[i * N + j], &D[i * N + j], emin);
}

/* An fp32 result of the Tensor Cores as its bits: a NaN is the canonical one, whichever operand's
 * payload the host's vector add kept. */
static uint32_t tc_f32_bits(float v)
{
    return v == v ? f2u(v) : 0x7FFFFFFFu;
}

/* An element of type @p t as a signed integer (s8, u8, s4, u4, s32 fragments). */
static int64_t tc_int(int t, uint64_t raw)
{
    switch (t) {
    case MT_S8:
        return (int8_t)raw;
    case MT_U8:
        return (uint8_t)raw;
    case MT_S4:
        return (int64_t)(raw & 15) - (raw & 8 ? 16 : 0);
    case MT_U4:
        return raw & 15;
    case MT_B1:
        return raw & 1;
    default:
        return (int32_t)raw;
    }
}

/* D = A * B + C for f64 (one fma per k, in k order) and for integer inputs with s32 accumulators
 * (exact products and sum, wrapped to 32 bits, or clamped to them with MMA_SATFINITE_BIT in
 * @p flags; 1-bit products the bits' and, or with MMA_XOR_BIT their xor), on raw row-major
 * tiles. */
void mma_tile_exact(int M, int N, int K, const int *types, const uint64_t *A, const uint64_t *B,
                    const uint64_t *C, uint64_t *D, uint32_t flags)
{
    int xor = (flags & MMA_XOR_BIT) != 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            if (types[0] == MT_F64) {
                double acc = u2d(C[i * N + j]);
                for (int k = 0; k < K; k++)
                    acc = fma(u2d(A[i * K + k]), u2d(B[k * N + j]), acc);
                D[i * N + j] = d2u(acc);
                continue;
            }
            int64_t acc = (int32_t)C[i * N + j];
            for (int k = 0; k < K; k++) {
                int64_t a = tc_int(types[0], A[i * K + k]), b = tc_int(types[1], B[k * N + j]);
                acc += xor? a ^ b : a *b;
            }
            if (flags & MMA_SATFINITE_BIT)
                acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
            D[i * N + j] = (uint32_t)acc;
        }
}

/* The fp32 tensor cores: f16, bf16, tf32 and fp8 inputs, f16 or f32 accumulators, on raw row-major
 * tiles (wmma.mma's and mma.sync's). */
static void mma_tile_f32(int M, int N, int K, const int *types, const uint64_t *rawA,
                         const uint64_t *rawB, const uint64_t *rawC, uint64_t *rawD)
{
    float A[32 * 16], B[16 * 32], C[16 * 16], D[16 * 16];
    tc_values(types[0], rawA, M * K, A);
    tc_values(types[1], rawB, K * N, B);
    tc_values(types[2], rawC, M * N, C);
    mma_tile_as(M, N, K, types[0], types[3], A, B, C, D);
    for (int e = 0; e < M * N; e++)
        rawD[e] = types[3] == MT_F16 ? fp_f32_to_f16(D[e]) : tc_f32_bits(D[e]);
}

/* D = A * B + C on raw row-major tiles, in the arithmetic of their types: exact for f64 and the
 * integer forms (@p flags: the instruction's MMA_SATFINITE_BIT and MMA_XOR_BIT), the fp32 tensor
 * cores' for the others. */
static void mma_tile_raw(int M, int N, int K, const int *types, const uint64_t *A,
                         const uint64_t *B, const uint64_t *C, uint64_t *D, uint32_t flags)
{
    if (types[0] == MT_F64 || types[3] == MT_S32)
        mma_tile_exact(M, N, K, types, A, B, C, D, flags);
    else
        mma_tile_f32(M, N, K, types, A, B, C, D);
}

enum event h_WMMA_MMA(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    if (m != w->live)
        return vm_fail(x, w, in, __builtin_ctz(m), VM_UNSUPPORTED,
                       "wmma.mma with part of the warp: the whole warp must execute it");
    uint32_t mod = in->mod;
    int shape = (int)MMA_SHAPE(mod);
    int types[4] = {(int)MMA_AT(mod), (int)MMA_BT(mod), (int)MMA_CT(mod), (int)MMA_DT(mod)};
    const uint32_t *pool = &x->mod->pool[in->o[5]];
    const uint32_t *rd = pool + 4, *ra = rd + pool[0], *rb = ra + pool[1], *rc = rb + pool[2];
    int M, N, K;
    wmma_dims(shape, 2, &M, &N);
    wmma_dims(shape, 0, &M, &K);
    int ab = mma_elem_bytes(types[0]), cb = mma_elem_bytes(types[2]);
    int db = mma_elem_bytes(types[3]);
    /* The fragments are row-major tiles whatever the memory layout was: wmma.load put element
     * (r, c) at slot r * cols + c. */
    uint64_t A[32 * 16], B[16 * 32], C[16 * 16], D[16 * 16];
    frag_gather(w, ra, frag_per((int)pool[1], ab), ab, M * K, A);
    frag_gather(w, rb, frag_per((int)pool[2], ab), ab, K * N, B);
    frag_gather(w, rc, frag_per((int)pool[3], cb), cb, M * N, C);
    mma_tile_raw(M, N, K, types, A, B, C, D, mod & MMA_SATFINITE_BIT);
    frag_scatter(w, rd, frag_per((int)pool[0], db), db, M * N, D);
    return EV_NONE;
}

/* ---- mma.sync ------------------------------------------------------------------------------- */

/*
 * Where element i of lane @p lane's fragment sits in the mma.sync tile of matrix @p matrix (0 a,
 * 1 b, 2 c/d), with 1 << @p log_per elements to a register (1 tf32 and f64, 2 f16/bf16, 4 fp8
 * and s8/u8, 8 s4/u4), as an index into the row-major tile of @p cols columns. The PTX ISA's tables
 * ("Matrix Fragments for mma.m16n8k4/k8/k16/k32/k64", mma.m8n8k4 f64, mma.m8n8k16 and k32,
 * whose tiles are the top 8 rows of the same pattern) all follow one rule: with g = lane / 4 and
 * t = lane % 4, register r of a holds row g (+ 8 for odd r), columns per * t + j, 4 * per
 * further on for each pair of registers r / 2; register r of b holds rows per * t + j + 4 * per
 * * r, column g; c and d hold rows g (+ 8 for i >= 2), columns 2t and 2t + 1.
 */
int mma_pos(int matrix, int log_per, int cols, int lane, int i)
{
    int g = lane >> 2, t = lane & 3, r = i >> log_per, j = i & ((1 << log_per) - 1);
    if (matrix == 2)
        return (g + 8 * (i >> 1)) * cols + 2 * t + (i & 1);
    if (matrix == 0)
        return (g + 8 * (r & 1)) * cols + ((t + 4 * (r >> 1)) << log_per) + j;
    return ((t + 4 * r) << log_per) * cols + j * cols + g;
}

/* The fragments of @p matrix (@p n elements of type @p type a lane, in registers @p regs)
 * gathered into the row-major tile @p raw of @p cols columns, as raw elements. */
static void mma_gather(const struct warp *w, const uint32_t *regs, int matrix, int type, int n,
                       int cols, uint64_t *raw)
{
    if (type == MT_F64) { /* one element to a 64-bit register */
        for (int i = 0; i < n; i++) {
            const uint64_t *reg = R64(w, regs[i]);
            for (int lane = 0; lane < 32; lane++)
                raw[mma_pos(matrix, 0, cols, lane, i)] = reg[lane];
        }
        return;
    }
    int bits = mma_elem_bits(type), log_per = __builtin_ctz(32u / (unsigned)bits); /* per reg */
    uint32_t mask = bits == 32 ? ~0u : (1u << bits) - 1;
    for (int i = 0; i < n; i++) {
        const uint32_t *reg = R32(w, regs[i >> log_per]);
        int shift = (i & ((1 << log_per) - 1)) * bits;
        for (int lane = 0; lane < 32; lane++)
            raw[mma_pos(matrix, log_per, cols, lane, i)] = (reg[lane] >> shift) & mask;
    }
}

/* The M x 8 tile of raw results @p raw scattered into the d fragments (registers @p regs) of
 * type @p type (f16 two to a register, f64 one to a 64-bit register). */
static void mma_scatter(struct warp *w, const uint32_t *regs, int type, int M, const uint64_t *raw)
{
    int f16 = type == MT_F16;
    for (int i = 0; i < M / 4; i++) {
        if (type == MT_F64) {
            uint64_t *reg = R64(w, regs[i]);
            for (int lane = 0; lane < 32; lane++)
                reg[lane] = raw[mma_pos(2, 0, 8, lane, i)];
            continue;
        }
        uint32_t *reg = R32(w, regs[f16 ? i >> 1 : i]);
        int shift = f16 ? (i & 1) * 16 : 0;
        for (int lane = 0; lane < 32; lane++) {
            uint32_t v = (uint32_t)raw[mma_pos(2, 0, 8, lane, i)];
            reg[lane] = f16 ? (reg[lane] & ~(0xFFFFu << shift)) | v << shift : v;
        }
    }
}

/*
 * Volta's mma.sync.m8n8k4 in f16: four 8 x 8 x 4 products, product q by the quad pair of lanes
 * 4q .. 4q + 3 (low) and 4q + 16 .. 4q + 19 (high). With r = lane % 4 and h = 4 for a high lane
 * (the PTX ISA's "Matrix Fragments for mma.m8n8k4 with .f16"), element i of a row-major a is row
 * r + h, column i (column-major: row i + h, column r); of a row-major b row r, column i + h
 * (column-major: row i, column r + h); of an f16 c or d row r + h, column i; of an f32 one row
 * (lane & 1) + (i & 2) + h, column (i & 4) + (lane & 2) + (i & 1). The index into the row-major
 * 8 x 4 (a), 4 x 8 (b) or 8 x 8 (c, d) tile.
 */
static int quadpair_pos(int matrix, int col_major, int f32, int lane, int i)
{
    int r = lane & 3, h = lane >= 16 ? 4 : 0;
    if (matrix == 0)
        return col_major ? (i + h) * 4 + r : (r + h) * 4 + i;
    if (matrix == 1)
        return col_major ? i * 8 + r + h : r * 8 + i + h;
    return f32 ? ((lane & 1) + (i & 2) + h) * 8 + (i & 4) + (lane & 2) + (i & 1) : (r + h) * 8 + i;
}

/* Element @p i of lane @p lane's fragment in @p regs: f16 two to a register, or an f32 each. */
static uint32_t quadpair_get(const struct warp *w, const uint32_t *regs, int f32, int lane, int i)
{
    uint32_t r = R32(w, regs[f32 ? i : i >> 1])[lane];
    return f32 ? r : (r >> (16 * (i & 1))) & 0xFFFFu;
}

static void quadpair_set(struct warp *w, const uint32_t *regs, int f32, int lane, int i, uint32_t v)
{
    uint32_t *r = &R32(w, regs[f32 ? i : i >> 1])[lane];
    int s = 16 * (i & 1);
    *r = f32 ? v : (*r & ~(0xFFFFu << s)) | v << s;
}

/* The four products of Volta's m8n8k4 (quadpair_pos()), each in the fp32 tensor arithmetic. */
static void mma_quadpairs(struct warp *w, uint32_t mod, const int *types, const uint32_t *rd,
                          const uint32_t *ra, const uint32_t *rb, const uint32_t *rc)
{
    int acol = (int)MMA_ACOL(mod), bcol = (int)MMA_BCOL(mod);
    int cf32 = types[2] == MT_F32, df32 = types[3] == MT_F32;
    for (int q = 0; q < 4; q++) {
        uint64_t A[32], B[32], C[64], D[64];
        for (int k = 0; k < 8; k++) {
            int l = 4 * q + (k & 3) + (k & 4) * 4; /* 4q .. 4q + 3, then 4q + 16 .. 4q + 19 */
            for (int i = 0; i < 4; i++) {
                A[quadpair_pos(0, acol, 0, l, i)] = quadpair_get(w, ra, 0, l, i);
                B[quadpair_pos(1, bcol, 0, l, i)] = quadpair_get(w, rb, 0, l, i);
            }
            for (int i = 0; i < 8; i++)
                C[quadpair_pos(2, 0, cf32, l, i)] = quadpair_get(w, rc, cf32, l, i);
        }
        mma_tile_raw(8, 8, 4, types, A, B, C, D, 0);
        for (int k = 0; k < 8; k++) {
            int l = 4 * q + (k & 3) + (k & 4) * 4;
            for (int i = 0; i < 8; i++)
                quadpair_set(w, rd, df32, l, i, (uint32_t)D[quadpair_pos(2, 0, df32, l, i)]);
        }
    }
}

/* ---- mma.sp ---------------------------------------------------------------------------------- */

/*
 * The metadata of a sparse mma (the PTX ISA's "Sparse matrix storage" and the metadata figures
 * of "Matrix fragments for multiply-accumulate operation with sparse matrix A"). A row of A is
 * chunks of four units (mma_sp_unit()), two of them kept; a 4-bit nibble a chunk holds the kept
 * units' indices in the chunk, the first's in its low two bits. The lanes of group g (rows g
 * and g + 8) from lane 4 g + @p base on hold them: with 16-bit units a lane holds four chunks
 * of both rows (row g in bits 0-15, row g + 8 in 16-31), the next lane the next four; with
 * 8-bit units a lane holds eight chunks of one row (row g, then row g + 8 in the next lane),
 * the lanes after them the next eight. The nibble of chunk @p chunk of row @p row, from the
 * lanes' metadata @p e.
 */
static uint32_t sp_nibble(const uint32_t *e, int unit, int base, int row, int chunk)
{
    int per = 64 / unit; /* chunks of a row in one lane */
    int at = chunk / per * 2 * per + (row >> 3) * per + chunk % per; /* nibble of the lanes' */
    return e[4 * (row & 7) + base + at / 8] >> (4 * (at % 8)) & 15;
}

/* The column in K of each of the K / 2 kept elements of row @p row of a sparse A of @p bits
 * elements, in order, into @p cols: its unit is a chunk's first kept one or its second, as it
 * is even or odd among the row's kept units. Both mma.sp and mma.sp::ordered_metadata read a
 * nibble so (the meaning the ISA gives the ordered form's indices, which it holds to increase;
 * the other orders sm_80's mma.sp takes are not told apart). */
static void sp_cols(const uint32_t *e, int bits, int unit, int base, int row, int K, int *cols)
{
    for (int p = 0; p < K / 2; p++) {
        int first = p * bits, u = first / unit; /* its first bit and unit among the kept */
        uint32_t nib = sp_nibble(e, unit, base, row, u / 2);
        int index = (int)(u % 2 ? nib >> 2 : nib & 3);
        cols[p] = ((u / 2 * 4 + index) * unit + first % unit) / bits;
    }
}

/* mma.sp: a's registers hold the kept elements as the dense fragment of an m16 x K/2 tile
 * (mma_pos()); each row of D adds the products of its kept elements with the rows of B their
 * columns meet, in order, in the arithmetic of its types. */
static void mma_sparse(struct warp *w, const struct insn *in, const int *types, const uint32_t *rd,
                       const uint32_t *ra, const uint32_t *rb, const uint32_t *rc)
{
    int shape = (int)MMA_SHAPE(in->mod), K = mma_shape_k(shape), kept = K / 2;
    int bits = mma_elem_bits(types[0]), unit = mma_sp_unit(types[0]);
    int base = (int)in->imm * mma_sp_threads(types[0], shape);
    uint64_t A[16 * 64], B[128 * 8], C[16 * 8], D[16 * 8], Bk[64 * 8]; /* K up to 128 */
    mma_gather(w, ra, 0, types[0], 16 * kept / 32, kept, A);
    mma_gather(w, rb, 1, types[1], 8 * K / 32, 8, B);
    mma_gather(w, rc, 2, types[2], 4, 8, C);
    for (int r = 0; r < 16; r++) {
        int cols[64];
        sp_cols(R32(w, in->o[4]), bits, unit, base, r, K, cols);
        for (int p = 0; p < kept; p++)
            memcpy(&Bk[p * 8], &B[cols[p] * 8], 8 * sizeof *B);
        mma_tile_raw(1, 8, kept, types, &A[r * kept], Bk, &C[r * 8], &D[r * 8],
                     in->mod & MMA_SATFINITE_BIT);
    }
    mma_scatter(w, rd, types[3], 16, D);
}

enum event h_MMA_SYNC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    if (m != FULL_MASK)
        return vm_fail(x, w, in, __builtin_ctz(m), VM_UNSUPPORTED,
                       "mma.sync with part of the warp: all 32 lanes must execute it");
    uint32_t mod = in->mod;
    int shape = (int)MMA_SHAPE(mod), M = mma_shape_m(shape), K = mma_shape_k(shape);
    int types[4] = {(int)MMA_AT(mod), (int)MMA_BT(mod), (int)MMA_CT(mod), (int)MMA_DT(mod)};
    const uint32_t *pool = &x->mod->pool[in->o[5]];
    const uint32_t *rd = pool + 4, *ra = rd + pool[0], *rb = ra + pool[1], *rc = rb + pool[2];
    if (mma_products(shape, types[0]) == 4) {
        mma_quadpairs(w, mod, types, rd, ra, rb, rc);
        return EV_NONE;
    }
    if (mod & MMA_SPARSE_BIT) {
        mma_sparse(w, in, types, rd, ra, rb, rc);
        return EV_NONE;
    }
    uint64_t A[16 * 256], B[256 * 8], C[16 * 8], D[16 * 8]; /* K up to 256 (m16n8k256) */
    mma_gather(w, ra, 0, types[0], M * K / 32, K, A);
    mma_gather(w, rb, 1, types[1], 8 * K / 32, 8, B);
    mma_gather(w, rc, 2, types[2], M / 4, 8, C);
    mma_tile_raw(M, 8, K, types, A, B, C, D, mod & (MMA_SATFINITE_BIT | MMA_XOR_BIT));
    mma_scatter(w, rd, types[3], M, D);
    return EV_NONE;
}

/* ---- ldmatrix and stmatrix ------------------------------------------------------------------ */

/* ldmatrix and stmatrix: lanes 8i .. 8i+7 give the row addresses of matrix i (16 bytes each;
 * shared, or generic ones into shared memory: mod bit 1);
 * register i of lane l holds row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of matrix i (with
 * .trans, of its transpose). Counted as shared requests of 16-byte rows, 8 lanes a phase. */
static enum event matrix_rows(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                              int store)
{
    if (m != FULL_MASK)
        return vm_fail(x, w, in, __builtin_ctz(m), VM_UNSUPPORTED,
                       "%s with part of the warp: all 32 lanes must execute it",
                       store ? "stmatrix" : "ldmatrix");
    const uint32_t *regs = &x->mod->pool[in->o[5]];
    int trans = in->mod & 1;
    uint16_t mat[4][8][8];
    uint8_t *row[32];
    uint64_t addr[32];
    for (int lane = 0; lane < 8 * in->width; lane++) {
        uint64_t a = in->o[0] == NO_REG           ? 0
                     : (in->mod & MEM_BASE32_BIT) ? R32(w, in->o[0])[lane]
                                                  : R64(w, in->o[0])[lane];
        addr[lane] = a + (uint64_t)in->imm;
        if (in->mod & 2) { /* a generic address: it must point into shared memory */
            if (addr[lane] - SHARED_WINDOW >= WINDOW_SIZE)
                return vm_fail(x, w, in, lane, VM_FAULT,
                               "%s through generic address 0x%llx, which is not shared memory",
                               store ? "stmatrix" : "ldmatrix", (unsigned long long)addr[lane]);
            addr[lane] -= SHARED_WINDOW;
        }
        enum event ev = vm_access(x, w, in, lane, SP_SHARED, addr[lane], 16, 16, store, &row[lane]);
        if (ev != EV_NONE)
            return ev;
        if (!store)
            memcpy(mat[lane / 8][lane % 8], row[lane], 16);
    }
    vm_count_pieces(x, w, SP_SHARED, addr, 8 * in->width, 16, store);
    for (int i = 0; i < in->width; i++)
        for (int l = 0; l < 32; l++) {
            int r = l / 4, c = 2 * (l % 4);
            uint16_t *lo = trans ? &mat[i][c][r] : &mat[i][r][c];
            uint16_t *hi = trans ? &mat[i][c + 1][r] : &mat[i][r][c + 1];
            uint32_t *reg = &R32(w, regs[i])[l];
            if (store) {
                *lo = (uint16_t)*reg;
                *hi = (uint16_t)(*reg >> 16);
            } else {
                *reg = *lo | (uint32_t)*hi << 16;
            }
        }
    if (store)
        for (int lane = 0; lane < 8 * in->width; lane++)
            memcpy(row[lane], mat[lane / 8][lane % 8], 16);
    return EV_NONE;
}

enum event h_LDMATRIX(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return matrix_rows(x, w, in, m, 0);
}

enum event h_STMATRIX(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return matrix_rows(x, w, in, m, 1);
}

enum event h_MOVMATRIX(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    if (m != FULL_MASK)
        return vm_fail(x, w, in, __builtin_ctz(m), VM_UNSUPPORTED,
                       "movmatrix with part of the warp: all 32 lanes must execute it");
    uint16_t mat[8][8];
    const uint32_t *a = R32(w, in->o[1]);
    for (int l = 0; l < 32; l++) {
        mat[l / 4][2 * (l % 4)] = (uint16_t)a[l];
        mat[l / 4][2 * (l % 4) + 1] = (uint16_t)(a[l] >> 16);
    }
    uint32_t *d = R32(w, in->o[0]);
    for (int l = 0; l < 32; l++) {
        int r = l / 4, c = 2 * (l % 4);
        d[l] = mat[c][r] | (uint32_t)mat[c + 1][r] << 16;
    }
    return EV_NONE;
}
