/**
 * @file stub.c
 * @brief A stand-in for the PTX VM until it lands: loads nothing, runs nothing.
 *
 * vm_load() accepts any text and returns a module with no kernels; vm_launch()
 * fails with VM_UNSUPPORTED. The runtime, the device server, the cuBLAS and
 * NCCL stand-ins and their tests build and run against it. Delete this file
 * when emulator/vm/ holds the real VM.
 */
#include <stdlib.h>
#include <string.h>

#include "../vm.h"

struct vm_module {
    int unused;
};

int vm_load(const char *ptx, size_t len, const char *origin, struct emu_mem *mem,
            struct vm_module **out, char *err, size_t err_size)
{
    (void)ptx, (void)len, (void)origin, (void)mem, (void)err, (void)err_size;
    *out = calloc(1, sizeof **out);
    return *out ? 0 : -1;
}

void vm_unload(struct vm_module *m, struct emu_mem *mem)
{
    (void)mem;
    free(m);
}

uint32_t vm_kernel_count(const struct vm_module *m)
{
    (void)m;
    return 0;
}

const struct vm_kernel *vm_kernel_info(const struct vm_module *m, uint32_t i)
{
    (void)m, (void)i;
    return NULL;
}

int vm_find(const struct vm_module *m, const char *name)
{
    (void)m, (void)name;
    return -1;
}

uint64_t vm_symbol(const struct vm_module *m, const char *name, uint64_t *size)
{
    (void)m, (void)name;
    *size = 0;
    return 0;
}

enum vm_status vm_launch(const struct vm_launch *l, struct vm_result *r)
{
    (void)l;
    memset(r, 0, sizeof *r);
    r->status = VM_UNSUPPORTED;
    strcpy(r->message, "the PTX VM is not built yet");
    return r->status;
}
