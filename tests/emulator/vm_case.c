/**
 * @file vm_case.c
 * @brief In-process cases of the PTX VM (see vm_case.h).
 */
#define _GNU_SOURCE
#include "vm_case.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Device memory a case may use, and the address span it sits in. */
enum { CASE_CAPACITY = 256 << 20 };
#define CASE_SPAN ((uint64_t)1 << 32)

/* The heap a module that calls malloc gets (cudaLimitMallocHeapSize's default). */
enum { CASE_HEAP = 8 << 20 };

void vm_case_open(struct vm_case *c, const char *ptx)
{
    char err[512] = "";
    memset(c, 0, sizeof *c);
    ck_assert_msg(mem_create(&c->mem, CASE_SPAN, CASE_CAPACITY, err, sizeof err) == 0,
                  "no device memory for the case: %s", err);
    mem_track_writes(&c->mem, 0); /* initcheck's record, for cases that turn it on */
    ck_assert_msg(
        vm_load(ptx, strlen(ptx), "the case's PTX", &c->mem, &c->module, err, sizeof err) == 0,
        "the VM refused the case's PTX: %s", err);
    if (vm_uses_heap(c->module)) {
        uint64_t at = mem_alloc(&c->mem, CASE_HEAP, 0);
        ck_assert_msg(at != 0, "no device memory for the case's heap");
        c->heap = vm_heap_create(at, CASE_HEAP);
    }
}

char *vm_case_ptx_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read the case's PTX %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    ck_assert_msg(text && fread(text, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
    fclose(f);
    text[n] = '\0';
    return text;
}

int vm_case_refuses(const char *ptx, char *why, size_t size)
{
    struct emu_mem mem = {0};
    struct vm_module *m = NULL;
    why[0] = '\0';
    ck_assert_msg(mem_create(&mem, CASE_SPAN, CASE_CAPACITY, why, size) == 0,
                  "no device memory for the case: %s", why);
    int refused = vm_load(ptx, strlen(ptx), "the case's PTX", &mem, &m, why, size) != 0;
    if (m)
        vm_unload(m, &mem);
    mem_destroy(&mem);
    return refused;
}

void vm_case_close(struct vm_case *c)
{
    if (c->heap)
        vm_heap_destroy(c->heap);
    vm_unload(c->module, &c->mem);
    mem_destroy(&c->mem);
}

uint64_t vm_case_buffer(struct vm_case *c, const void *host, size_t bytes)
{
    uint64_t at = mem_alloc(&c->mem, bytes ? bytes : 1, 0);
    ck_assert_msg(at != 0, "no device memory for a buffer of %zu bytes", bytes);
    if (host) {
        memcpy(mem_host(&c->mem, at), host, bytes);
        mem_mark_written(&c->mem, at, bytes, MEM_HOST);
    } else {
        memset(mem_host(&c->mem, at), 0, bytes);
    }
    return at;
}

void vm_case_free(struct vm_case *c, uint64_t dev)
{
    ck_assert_msg(mem_free(&c->mem, dev) == 0, "0x%llx is no buffer of the case",
                  (unsigned long long)dev);
}

void vm_case_read(struct vm_case *c, void *host, uint64_t dev, size_t bytes)
{
    memcpy(host, mem_host(&c->mem, dev), bytes);
}

void *vm_case_host(struct vm_case *c, uint64_t dev)
{
    return mem_host(&c->mem, dev);
}

/* Keep @p len bytes of @p text after what @p buf holds (vm_print_fn for printf and reports). */
static void keep(char *buf, size_t *used, const char *text, size_t len)
{
    size_t room = VM_CASE_TEXT - 1 - *used;
    len = len < room ? len : room;
    memcpy(buf + *used, text, len);
    *used += len;
    buf[*used] = '\0';
}

static void keep_printed(void *ctx, const char *text, size_t len)
{
    struct vm_case *c = ctx;
    keep(c->printed, &c->nprinted, text, len);
}

static void keep_report(void *ctx, const char *text, size_t len)
{
    struct vm_case *c = ctx;
    keep(c->reports, &c->nreports, text, len);
}

/* The parameter buffer of kernel @p k, from @p args. */
static uint8_t *pack(const struct vm_kernel *k, void **args)
{
    uint8_t *buf = calloc(1, k->param_bytes + 1);
    ck_assert_msg(buf != NULL, "no memory for %u bytes of parameters", k->param_bytes);
    for (uint32_t i = 0; i < k->nparams; i++)
        memcpy(buf + k->params[i].offset, args[i], k->params[i].size);
    return buf;
}

enum vm_status vm_case_run(struct vm_case *c, const char *name, struct vm_dim grid,
                           struct vm_dim block, void **args)
{
    int k = vm_find(c->module, name);
    ck_assert_msg(k >= 0, "the case's PTX has no kernel %s", name);
    uint8_t *params = pack(vm_kernel_info(c->module, (uint32_t)k), args);
    struct vm_launch l = {.module = c->module,
                          .kernel = (uint32_t)k,
                          .grid = {grid.x, grid.y, grid.z},
                          .block = {block.x, block.y, block.z},
                          .dyn_smem = c->dyn_smem,
                          .smem_limit = c->smem_limit ? c->smem_limit : 48 * 1024,
                          .params = params,
                          .mem = &c->mem,
                          .checks = c->checks,
                          .count = c->count,
                          .print = keep_printed,
                          .print_ctx = c,
                          .report = keep_report,
                          .report_ctx = c,
                          .schedule = c->schedule,
                          .seed = c->seed,
                          .cooperative = c->cooperative,
                          .heap = c->heap};
    c->nprinted = c->nreports = 0;
    c->printed[0] = c->reports[0] = '\0';
    vm_launch(&l, &c->result);
    free(params);
    return c->result.status;
}

uint64_t vm_case_rand(void)
{
    static uint64_t state = 0x9E3779B97F4A7C15ull;
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}
