/**
 * @file bench.c
 * @brief course-emu-bench: how fast the VM runs lesson 03's tiled SGEMM, in thread
 *        instructions per second, on COURSE_EMU_THREADS host threads (default: every core).
 *
 *   course-emu-bench PTX [M N K ...]
 *
 * PTX is lesson 03's solution PTX (build/reports/03_solution.ptx); each M N K triple (default
 * 257 257 257 and 1031 1029 1027) is run once with the counters on, to count the thread
 * instructions, and then timed with them off, as every launch runs unless asked. One table row
 * per size.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mem.h"
#include "vm.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(text);
        return NULL;
    }
    fclose(f);
    text[n] = '\0';
    *len = (size_t)n;
    return text;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One launch of matmul_tiled at M x N x K (32 x 32 tiles, one thread per element of C). */
static int run(struct vm_module *m, int kernel, struct emu_mem *mem, const int mnk[3], int count,
               struct vm_result *r, double *secs)
{
    int M = mnk[0], N = mnk[1], K = mnk[2];
    uint64_t a = mem_alloc(mem, (uint64_t)M * K * 4, 0), b = mem_alloc(mem, (uint64_t)K * N * 4, 0);
    uint64_t c = mem_alloc(mem, (uint64_t)M * N * 4, 0);
    if (!a || !b || !c)
        return -1;
    float *ha = mem_host(mem, a), *hb = mem_host(mem, b);
    for (long i = 0; i < (long)M * K; i++)
        ha[i] = (float)(i % 7 - 3);
    for (long i = 0; i < (long)K * N; i++)
        hb[i] = (float)(i % 5 - 2);
    uint8_t params[40];
    memcpy(params, mnk, 12);
    memcpy(params + 16, &a, 8);
    memcpy(params + 24, &b, 8);
    memcpy(params + 32, &c, 8);
    struct vm_launch l = {.module = m,
                          .kernel = (uint32_t)kernel,
                          .grid = {(uint32_t)(N + 31) / 32, (uint32_t)(M + 31) / 32, 1},
                          .block = {32, 32, 1},
                          .smem_limit = 48 * 1024,
                          .params = params,
                          .mem = mem,
                          .count = count};
    double t0 = seconds();
    vm_launch(&l, r);
    *secs = seconds() - t0;
    mem_free(mem, a);
    mem_free(mem, b);
    mem_free(mem, c);
    return r->status == VM_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (argc - 2) % 3) {
        fprintf(stderr, "usage: %s PTX [M N K ...] (lesson 03's solution PTX)\n", argv[0]);
        return 2;
    }
    size_t len;
    char *ptx = slurp(argv[1], &len), err[512];
    struct emu_mem mem;
    struct vm_module *m;
    if (!ptx || mem_create(&mem, 1ull << 38, 8ull << 30, err, sizeof err) ||
        vm_load(ptx, len, argv[1], &mem, &m, err, sizeof err)) {
        fprintf(stderr, "course-emu-bench: %s\n", ptx ? err : "cannot read the PTX");
        return 1;
    }
    int kernel = -1;
    for (uint32_t i = 0; i < vm_kernel_count(m); i++)
        if (strstr(vm_kernel_info(m, i)->name, "matmul_tiled_kernel"))
            kernel = (int)i;
    if (kernel < 0) {
        fprintf(stderr, "course-emu-bench: no matmul_tiled_kernel in %s\n", argv[1]);
        return 1;
    }
    static const int defaults[][3] = {{257, 257, 257}, {1031, 1029, 1027}};
    int nsizes = argc > 2 ? (argc - 2) / 3 : 2;
    printf("%u host threads (COURSE_EMU_THREADS)\n", vm_threads());
    printf("%-18s %16s %10s %14s\n", "M x N x K", "thread insts", "seconds", "M insts/s");
    for (int s = 0; s < nsizes; s++) {
        int mnk[3];
        for (int i = 0; i < 3; i++)
            mnk[i] = argc > 2 ? atoi(argv[2 + 3 * s + i]) : defaults[s][i];
        struct vm_result counted, timed;
        double ignored, secs = 0;
        int rc = run(m, kernel, &mem, mnk, 1, &counted, &ignored);
        if (!rc)
            rc = run(m, kernel, &mem, mnk, 0, &timed, &secs);
        if (rc) {
            fprintf(stderr, "course-emu-bench: %s\n", counted.message);
            return 1;
        }
        char shape[32];
        snprintf(shape, sizeof shape, "%d x %d x %d", mnk[0], mnk[1], mnk[2]);
        printf("%-18s %16llu %10.3f %14.0f\n", shape,
               (unsigned long long)counted.counters.thread_insts, secs,
               (double)counted.counters.thread_insts / secs / 1e6);
    }
    vm_unload(m, &mem);
    mem_destroy(&mem);
    free(ptx);
    return 0;
}
