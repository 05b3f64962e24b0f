/**
 * @file course_test.c
 * @brief The harness every lesson's Check suite runs under.
 */
#include "course_test.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "course_judge.h"
#include "course_sandbox.h"
#include "cuda_check.h"
#include "ref.h"
#include "timer.h"

const int course_gemm_shapes[][3] = {
    {1, 1, 1},     {31, 31, 31},    {32, 32, 32},       {33, 33, 33},   {1, 33, 31},
    {33, 1, 32},   {32, 31, 1},     {127, 67, 131},     {67, 131, 257}, {257, 251, 127},
    {129, 65, 63}, {257, 263, 269}, {1031, 1029, 1027},
};
const size_t course_gemm_shape_count = sizeof course_gemm_shapes / sizeof *course_gemm_shapes;
int course_emulated;
int course_case_timed;

/* A CASE_PERF case's fixture (it runs in the case's own process, before the case). */
static void mark_timed(void)
{
    course_case_timed = 1;
}

/*
 * Ask a child process whether a CUDA device answers, so that this process
 * never initialises CUDA. Returns the device's compute capability as
 * 10 * major + minor (e.g. 90); 0 without a device, with @p why filled.
 * @p emulated says whether the device is the emulator.
 */
static int probe_gpu(char *why, size_t size, int *emulated)
{
    if (getenv("COURSE_NO_GPU") && *getenv("COURSE_NO_GPU") &&
        strcmp(getenv("COURSE_NO_GPU"), "0")) {
        snprintf(why, size, "COURSE_NO_GPU is set");
        return 0;
    }
    int fds[2];
    if (pipe(fds)) {
        snprintf(why, size, "pipe() failed");
        return 0;
    }
    pid_t pid = fork();
    if (pid == 0) {
        struct device_info dev;
        char msg[300];
        close(fds[0]);
        int ok = device_query(&dev);
        if (ok)
            snprintf(msg, sizeof msg, "cc=%d emu=%d", 10 * dev.cc_major + dev.cc_minor,
                     dev.emulated);
        else
            snprintf(msg, sizeof msg, "%s", dev.why);
        if (write(fds[1], msg, strlen(msg)) < 0)
            _exit(2);
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    ssize_t got = pid > 0 ? read(fds[0], why, size - 1) : -1;
    close(fds[0]);
    why[got > 0 ? got : 0] = '\0';
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
        snprintf(why, size, "could not fork the device probe");
        return 0;
    }
    int cc = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
        sscanf(why, "cc=%d emu=%d", &cc, emulated) == 2)
        return cc;
    if (!why[0])
        snprintf(why, size, "the device probe crashed");
    return 0;
}

/* The seconds a judge gives its runners in a case of @p timeout_s: a little less, so that the
 * judge reports a hang before Check's own timeout (scaled as Check scales it) kills it. */
static int judge_budget(int timeout_s)
{
    const char *mult = getenv("CK_TIMEOUT_MULTIPLIER");
    double t = timeout_s * (mult && atof(mult) > 0 ? atof(mult) : 1.0);
    double margin = t / 10 > 2 ? t / 10 : 2;
    return t - margin > 1 ? (int)(t - margin) : 1;
}

static int run_cases(const struct course_case *cases, size_t count, const char *only)
{
    char why[256] = "";
    int cc = -1; /* the GPU's compute capability: unknown until a GPU case asks, 0 for none */
    size_t chosen = 0, skipped = 0;
    const struct course_case **run = mat_alloc(count * sizeof *run);

    for (size_t i = 0; i < count; i++) {
        const struct course_case *c = &cases[i];
        if (only && strcmp(only, c->name))
            continue;
        if (c->flags & (CASE_GPU | CASE_SM80 | CASE_SM90A)) {
            if (cc < 0)
                cc = probe_gpu(why, sizeof why, &course_emulated);
            if (cc == 0) {
                printf("SKIPPED %s: %s\n", c->name, why);
                skipped++;
                continue;
            }
            if ((c->flags & CASE_SM80) && cc < 80) {
                printf("SKIPPED %s: needs sm_80 or newer; this GPU is sm_%d\n", c->name, cc);
                skipped++;
                continue;
            }
            if ((c->flags & CASE_SM90A) && cc != 90) {
                printf("SKIPPED %s: needs an sm_90 GPU (its code is sm_90a); this GPU is sm_%d\n",
                       c->name, cc);
                skipped++;
                continue;
            }
            if ((c->flags & CASE_PERF) && course_emulated) {
                printf("SKIPPED %s: timing needs a GPU (this one is the CPU emulator)\n", c->name);
                skipped++;
                continue;
            }
        }
        run[chosen++] = c;
        /* Each case runs in a process of its own (Check forks), which starts the clock. */
        if (judge_budget(c->timeout_s) > course_judge_budget_s || chosen == 1)
            course_judge_budget_s = judge_budget(c->timeout_s);
    }
    int rc = COURSE_SKIP;
    if (only && chosen + skipped == 0) {
        fprintf(stderr, "no test case named '%s' (see --list)\n", only);
        rc = 2;
    } else if (chosen > 0) {
        Suite *suite = suite_create("course");
        for (size_t i = 0; i < chosen; i++) {
            TCase *tc = tcase_create(run[i]->name);
            tcase_add_test(tc, run[i]->test);
            tcase_set_timeout(tc, run[i]->timeout_s);
            if (run[i]->flags & CASE_PERF)
                tcase_add_checked_fixture(tc, mark_timed, NULL);
            suite_add_tcase(suite, tc);
        }
        course_sandbox_begin();
        SRunner *runner = srunner_create(suite); /* owns the suite from here */
        srunner_run_all(runner, CK_VERBOSE);
        rc = srunner_ntests_failed(runner) ? 1 : 0;
        srunner_free(runner);
    }
    free(run);
    return rc;
}

/* How many symbols `nm FLAGS lib` lists that @p match accepts (with @p arg), the first into
 * @p first when not NULL; -1 when nm fails. */
static int nm_symbols(const char *lib, const char *flags, int (*match)(const char *, const char *),
                      const char *arg, char *first, size_t size)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "nm %s '%s' 2>/dev/null", flags, lib);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        const char *sym = strrchr(line, ' ');
        sym = sym ? sym + 1 : line;
        if (*sym && match(sym, arg) && n++ == 0 && first)
            snprintf(first, size, "%s", sym);
    }
    return pclose(p) == 0 ? n : -1;
}

static int has_prefix(const char *sym, const char *prefix)
{
    return !strncmp(sym, prefix, strlen(prefix));
}

/* 1 when @p sym is a name of the CUDA runtime, driver or libraries: cudaX, __cudaX, cuX, cublas,
 * nccl (not the registration functions nvcc itself defines in a -rdc link). */
static int runtime_name(const char *sym, const char *unused)
{
    (void)unused;
    if (!strncmp(sym, "__cudaRegisterLinkedBinary", 26))
        return 0;
    return (!strncmp(sym, "cuda", 4) && (isupper((unsigned char)sym[4]) || sym[4] == '_')) ||
           !strncmp(sym, "__cuda", 6) || !strncmp(sym, "cublas", 6) || !strncmp(sym, "nccl", 4) ||
           (!strncmp(sym, "cu", 2) && isupper((unsigned char)sym[2]));
}

int course_undefined_symbols(const char *lib, const char *prefix)
{
    return nm_symbols(lib, "-u", has_prefix, prefix, NULL, 0);
}

int course_runtime_symbols(const char *lib, char *first, size_t size)
{
    return nm_symbols(lib, "-g --defined-only", runtime_name, NULL, first, size);
}

static struct course_lesson the_lesson;

START_TEST(no_cublas_calls)
{
    int cublas = course_undefined_symbols(the_lesson.lib, "cublas");
    int baseline = course_undefined_symbols(the_lesson.lib, "baseline_");
    int ref = course_undefined_symbols(the_lesson.lib, "ref_");
    ck_assert_msg(cublas >= 0 && baseline >= 0 && ref >= 0, "nm -u %s failed", the_lesson.lib);
    ck_assert_msg(cublas == 0 && baseline == 0 && ref == 0,
                  "%s calls cuBLAS (%d symbols), the baselines (%d) or the CPU references (%d): "
                  "write the code yourself",
                  the_lesson.lib, cublas, baseline, ref);
}
END_TEST

START_TEST(no_register_spills)
{
    char *log = course_read_file(the_lesson.ptxas);
    ck_assert_msg(log != NULL, "cannot read %s", the_lesson.ptxas);
    for (const char *arch = strstr(log, "for 'sm_"); arch; arch = strstr(arch + 1, "for 'sm_")) {
        char name[16];
        ck_assert(sscanf(arch, "for '%15[^']'", name) == 1);
        int spill = course_ptxas_max_spill(log, name);
        ck_assert_msg(spill == 0, "ptxas -v reports %d bytes of spills for %s (see %s)", spill,
                      name, the_lesson.ptxas);
    }
    free(log);
}
END_TEST

int course_test_main(int argc, char **argv, struct course_lesson lesson,
                     const struct course_case *cases, size_t count)
{
    /* A grade's salt (tools/grade): the inputs no one else can make; gone before anything runs. */
    const char *salt = getenv("COURSE_JUDGE_SALT");
    if (salt) {
        mat_set_salt(strtoull(salt, NULL, 16));
        unsetenv("COURSE_JUDGE_SALT");
    }
    /* The suite's own cases, then the structure checks every lesson gets. */
    struct course_case *all = mat_alloc((count + 2) * sizeof *all);
    memcpy(all, cases, count * sizeof *all);
    the_lesson = lesson;
    course_judge_set_lesson(lesson.runner, lesson.lib);
    if (lesson.lib)
        all[count++] = (struct course_case){"no_cublas_calls", no_cublas_calls, CASE_CPU, 60};
    if (lesson.ptxas && lesson.solution)
        all[count++] = (struct course_case){"no_register_spills", no_register_spills, CASE_CPU, 60};
    int rc = 2;
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (size_t i = 0; i < count; i++)
            printf("%s\t%s%s\t%d\n", all[i].name,
                   all[i].flags & (CASE_GPU | CASE_SM80 | CASE_SM90A) ? "gpu" : "cpu",
                   all[i].flags & CASE_PERF ? ",perf" : "", all[i].timeout_s);
        rc = 0;
    } else if (argc == 3 && !strcmp(argv[1], "--case")) {
        rc = run_cases(all, count, argv[2]);
    } else if (argc == 1) {
        rc = run_cases(all, count, NULL);
    } else {
        fprintf(stderr, "usage: %s [--list | --case NAME]\n", argv[0]);
    }
    free(all);
    return rc;
}

struct mat_cmp course_check_sgemm_offset(bench_sgemm_fn fn, int M, int N, int K, uint64_t seed,
                                         int offset)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *h_A = mat_alloc_f32(na), *h_B = mat_alloc_f32(nb), *h_C = mat_alloc_f32(nc);
    double *want = mat_alloc(nc * sizeof *want);
    mat_fill_int(h_A, na, seed);
    mat_fill_int(h_B, nb, seed + 1);
    ref_matmul_f64(M, N, K, h_A, h_B, want);

    /* Each buffer holds @p offset spare floats in front of its matrix. */
    float *d_A, *d_B, *d_C;
    CUDA_CHECK(cudaMalloc((void **)&d_A, (na + offset) * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_B, (nb + offset) * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_C, (nc + offset) * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_A + offset, h_A, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_B + offset, h_B, nb * sizeof(float), cudaMemcpyHostToDevice));
    mat_poison_device(d_C, (nc + offset) * sizeof(float));
    fn(M, N, K, d_A + offset, d_B + offset, d_C + offset);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_C, d_C + offset, nc * sizeof(float), cudaMemcpyDeviceToHost));
    struct mat_cmp cmp = mat_compare_f64(h_C, want, M, N, 0, 0);

    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_B));
    CUDA_CHECK(cudaFree(d_C));
    free(h_A);
    free(h_B);
    free(h_C);
    free(want);
    return cmp;
}

void course_assert_sgemm_shapes(bench_sgemm_fn fn, const char *name, const int (*shapes)[3],
                                size_t count, uint64_t seed, int offset)
{
    for (size_t s = 0; s < count; s++) {
        const int *d = shapes[s];
        struct mat_cmp cmp = course_check_sgemm_offset(fn, d[0], d[1], d[2], seed + s, offset);
        char why[160];
        ck_assert_msg(cmp.n_bad == 0, "%s at M=%d N=%d K=%d%s: %s", name, d[0], d[1], d[2],
                      offset ? " (pointers not 16-byte aligned)" : "",
                      mat_cmp_describe(&cmp, why, sizeof why));
    }
}

void course_assert_sgemm_edges(bench_sgemm_fn fn, const char *name, uint64_t seed)
{
    course_assert_sgemm_shapes(fn, name, course_gemm_shapes, course_gemm_shape_count, seed, 0);
}

double course_time_sgemm(bench_sgemm_fn fn, int M, int N, int K)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *h = mat_alloc_f32(na > nb ? na : nb);
    float *d_A, *d_B, *d_C;
    CUDA_CHECK(cudaMalloc((void **)&d_A, na * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_B, nb * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_C, nc * sizeof(float)));
    mat_fill_int(h, na, 7);
    CUDA_CHECK(cudaMemcpy(d_A, h, na * sizeof(float), cudaMemcpyHostToDevice));
    mat_fill_int(h, nb, 8);
    CUDA_CHECK(cudaMemcpy(d_B, h, nb * sizeof(float), cudaMemcpyHostToDevice));
    struct timer_opts o = {2, 5, 1, 0};
    double ms = bench_time_sgemm(fn, M, N, K, d_A, d_B, d_C, &o);
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_B));
    CUDA_CHECK(cudaFree(d_C));
    free(h);
    return ms;
}

char *course_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0, got;
    char *buf = mat_alloc(cap);
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            char *bigger = mat_alloc(cap * 2);
            memcpy(bigger, buf, len);
            free(buf);
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

char *course_ptx_entry(const char *ptx, const char *kernel)
{
    for (const char *at = strstr(ptx, ".entry"); at; at = strstr(at + 1, ".entry")) {
        const char *eol = strchr(at, '(');
        const char *name = strstr(at, kernel);
        if (!eol || !name || name > eol)
            continue;
        /* The body runs from the first '{' to the brace that closes it. */
        const char *p = strchr(at, '{');
        int depth = 0;
        for (; p && *p; p++) {
            depth += (*p == '{') - (*p == '}');
            if (depth == 0)
                break;
        }
        if (!p || !*p)
            return NULL;
        size_t len = (size_t)(p - at) + 1;
        char *body = mat_alloc(len + 1);
        memcpy(body, at, len);
        body[len] = '\0';
        return body;
    }
    return NULL;
}

int course_count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

int course_ptxas_max_spill(const char *log, const char *arch)
{
    /* ptxas -v prints, per function: "Compiling entry function 'f' for 'sm_90'"
     * then "N bytes stack frame, N bytes spill stores, N bytes spill loads". */
    char tag[32];
    snprintf(tag, sizeof tag, "for '%s'", arch);
    int worst = -1;
    for (const char *p = strstr(log, tag); p; p = strstr(p + 1, tag)) {
        const char *next = strstr(p + 1, "Compiling entry function");
        const char *s = strstr(p, "bytes spill stores");
        if (!s || (next && s > next))
            continue;
        const char *num = s - 2;
        while (num > p && num[-1] >= '0' && num[-1] <= '9')
            num--;
        int stores = atoi(num), loads = 0;
        const char *l = strstr(s, "bytes spill loads");
        if (l) {
            const char *ln = l - 2;
            while (ln > s && ln[-1] >= '0' && ln[-1] <= '9')
                ln--;
            loads = atoi(ln);
        }
        int spill = stores > loads ? stores : loads;
        worst = spill > worst ? spill : worst;
    }
    return worst;
}
