/**
 * @file module.c
 * @brief What a loaded module publishes (vm.h), and freeing it.
 */
#include <stdlib.h>
#include <string.h>

#include "vm_impl.h"

uint32_t vm_kernel_count(const struct vm_module *m)
{
    return m->nkernels;
}

const struct vm_kernel *vm_kernel_info(const struct vm_module *m, uint32_t i)
{
    return i < m->nkernels ? &m->funcs[i].info : NULL;
}

int vm_find(const struct vm_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->nkernels; i++)
        if (!strcmp(m->funcs[i].info.name, name))
            return (int)i;
    return -1;
}

int vm_uses_heap(const struct vm_module *m)
{
    return m->uses_heap;
}

uint64_t vm_symbol(const struct vm_module *m, const char *name, uint64_t *size)
{
    for (uint32_t i = 0; i < m->nvars; i++)
        if (!strcmp(m->vars[i].name, name)) {
            if (size)
                *size = m->vars[i].size;
            return m->vars[i].addr;
        }
    return 0;
}

void vm_unload(struct vm_module *m, struct emu_mem *mem)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        free((void *)m->funcs[i].info.name);
        free((void *)m->funcs[i].info.params);
        free(m->funcs[i].presets);
        free(m->funcs[i].regs);
    }
    for (uint32_t i = 0; i < m->nvars; i++) {
        mem_free(mem, m->vars[i].addr);
        free(m->vars[i].name);
    }
    for (uint32_t i = 0; i < m->ncode; i++)
        free(m->texts[i]);
    for (uint32_t i = 0; i < m->nfiles; i++)
        free(m->files[i]);
    free(m->funcs);
    free(m->vars);
    free(m->texts);
    free(m->files);
    free(m->code);
    free(m->pool);
    free(m->lines);
    free(m->origin);
    free(m);
}
