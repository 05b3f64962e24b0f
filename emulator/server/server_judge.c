/**
 * @file server_judge.c
 * @brief The device server's side of a grade (see server_judge.h).
 *
 * A module's identity is the FNV-1a hash of its PTX text. The lesson's own texts are read out
 * of the program the grader names ("own PATH": the runner, built from the lesson's sources):
 * the fat binaries of its ELF section .nv_fatbin, each one's best PTX as the runtime takes it
 * (fatbin.h). A loaded module is the lesson's own when its text is one of those, or several of
 * them one after another (a -rdc link, each followed by a newline). PTX made or registered at
 * run time is none of them.
 */
#define _GNU_SOURCE
#include "server_judge.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fatbin.h"

static void *must_realloc(void *p, size_t bytes)
{
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) {
        fprintf(stderr, "course-emu-device: out of host memory (%zu bytes)\n", bytes);
        exit(3);
    }
    return q;
}

static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)p[i]) * 0x100000001b3ull;
    return h;
}

void judge_module_loaded(struct judge *j, uint32_t id, const char *ptx, size_t len)
{
    if (j->fd < 0)
        return;
    if (id >= j->nmodules) {
        j->modules = must_realloc(j->modules, (id + 1) * sizeof *j->modules);
        memset(j->modules + j->nmodules, 0, (id + 1 - j->nmodules) * sizeof *j->modules);
        j->nmodules = id + 1;
    }
    struct judge_module *m = &j->modules[id];
    m->hash = fnv1a(ptx, len);
    m->ptx = must_realloc(NULL, len);
    memcpy(m->ptx, ptx, len);
    m->len = len;
}

/* 1 when @p t (@p n bytes) is one of the lesson's own texts, or several one after another. */
static int own_text(const struct judge *j, const char *t, size_t n)
{
    if (n == 0)
        return 1;
    for (size_t k = 0; k < j->nown; k++) {
        size_t len = j->own_len[k];
        if (len > n || fnv1a(t, len) != j->own_hash[k])
            continue;
        size_t next = len < n && t[len] == '\n' ? len + 1 : len;
        if (next == n || (next > len && own_text(j, t + next, n - next)))
            return 1;
    }
    return 0;
}

void judge_module_words(const struct judge *j, uint32_t id, char *buf, size_t size)
{
    const struct judge_module *m = id < j->nmodules ? &j->modules[id] : NULL;
    int own = !j->own_known || (m && m->ptx && own_text(j, m->ptx, m->len));
    snprintf(buf, size, " module=%016llx own=%d", m ? (unsigned long long)m->hash : 0ull, own);
}

/* Keep @p what as the first of its kind in @p hit (counts add). */
static void keep(struct vm_prov_hit *hit, uint64_t addr, unsigned state, const char *what)
{
    if (hit->count++ == 0) {
        hit->addr = addr;
        hit->state = state;
        snprintf(hit->where, sizeof hit->where, "%s", what);
    }
}

void judge_launched(struct judge *j, const char *kernel, const struct vm_prov *prov,
                    uint32_t params)
{
    if (j->fd < 0)
        return;
    vm_prov_merge(&j->call, prov);
    j->launches++;
    j->params += params;
    if (!j->window) {
        char what[300];
        snprintf(what, sizeof what, "a launch of %.200s", kernel);
        keep(&j->outside, 0, 0, what);
    }
}

void judge_host_op(struct judge *j, struct emu_mem *m, uint32_t op, const struct proto_block *b)
{
    if (j->fd < 0)
        return;
    char what[200];
    unsigned long long n = (unsigned long long)b->size;
    if (op == PROTO_READ) {
        int64_t at = mem_find(m, b->addr, b->size) ? mem_first_derived(m, b->addr, b->size) : -1;
        snprintf(what, sizeof what, "a copy of %llu bytes to the host", n);
        if (at >= 0)
            keep(&j->hostread, b->addr + (uint64_t)at, MEM_DERIVED, what);
    } else if (op == PROTO_WRITE || op == PROTO_WRITTEN) {
        snprintf(what, sizeof what, "a copy of %llu bytes from the host", n);
    } else if (op == PROTO_COPY) {
        snprintf(what, sizeof what, "a device-to-device copy of %llu bytes", n);
    } else if (op == PROTO_FILL) {
        snprintf(what, sizeof what, "a fill of %llu bytes", n);
    } else {
        snprintf(what, sizeof what, "a mapping of %llu bytes", n);
    }
    if (!j->window)
        keep(&j->outside, b->addr, 0, what);
}

/* The ELF section .nv_fatbin of the file at @p path (malloc'd, its size in *n), or NULL. */
static uint8_t *fatbin_section(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *all = NULL, *sec = NULL;
    long size = f && !fseek(f, 0, SEEK_END) ? ftell(f) : -1;
    if (size > (long)sizeof(Elf64_Ehdr) && !fseek(f, 0, SEEK_SET)) {
        all = must_realloc(NULL, (size_t)size);
        if (fread(all, 1, (size_t)size, f) != (size_t)size)
            size = -1;
    }
    const Elf64_Ehdr *e = (const Elf64_Ehdr *)all;
    if (size > 0 && !memcmp(e->e_ident, ELFMAG, SELFMAG) && e->e_ident[EI_CLASS] == ELFCLASS64 &&
        e->e_shoff + (uint64_t)e->e_shnum * sizeof(Elf64_Shdr) <= (uint64_t)size &&
        e->e_shstrndx < e->e_shnum) {
        const Elf64_Shdr *sh = (const Elf64_Shdr *)(all + e->e_shoff);
        const Elf64_Shdr *names = &sh[e->e_shstrndx];
        for (int i = 0; i < e->e_shnum && !sec; i++) {
            uint64_t at = names->sh_offset + sh[i].sh_name;
            if (at + 11 > (uint64_t)size || strcmp((const char *)all + at, ".nv_fatbin") ||
                sh[i].sh_offset + sh[i].sh_size > (uint64_t)size)
                continue;
            sec = must_realloc(NULL, sh[i].sh_size);
            memcpy(sec, all + sh[i].sh_offset, sh[i].sh_size);
            *n = sh[i].sh_size;
        }
    }
    free(all);
    if (f)
        fclose(f);
    return sec;
}

/* Read the lesson's own PTX texts out of the program at @p path; how many were found. */
static size_t own_from(struct judge *j, const char *path)
{
    size_t n = 0;
    uint8_t *sec = fatbin_section(path, &n);
    for (size_t off = 0; sec && off + 16 <= n; off += 8) {
        uint32_t magic, head;
        uint64_t total;
        memcpy(&magic, sec + off, 4);
        memcpy(&head, sec + off + 4, 4);
        memcpy(&total, sec + off + 8, 8);
        if (magic != 0xBA55ED50u || (head >> 16) + total > n - off)
            continue;
        struct {
            int32_t magic, version;
            const void *data, *more;
        } wrapper = {0x466243b1, 1, sec + off, NULL};
        char *ptx, err[200];
        size_t len;
        int arch;
        if (fatbin_ptx(&wrapper, &ptx, &len, &arch, err, sizeof err) == FATBIN_PTX) {
            j->own_hash = must_realloc(j->own_hash, (j->nown + 1) * sizeof *j->own_hash);
            j->own_len = must_realloc(j->own_len, (j->nown + 1) * sizeof *j->own_len);
            j->own_hash[j->nown] = fnv1a(ptx, len);
            j->own_len[j->nown++] = len;
            free(ptx);
        }
        off += ((head >> 16) + total + 7) / 8 * 8 - 8; /* the next fat binary, 8-aligned */
    }
    free(sec);
    j->own_known = 1;
    return j->nown;
}

/* One finding line: "NAME count=N addr=A state=S where=...". */
static void say_hit(int fd, const char *name, const struct vm_prov_hit *h)
{
    dprintf(fd, "%s count=%llu addr=%llx state=%u where=%s\n", name, (unsigned long long)h->count,
            (unsigned long long)h->addr, h->state, h->where);
}

/* "findings": six lines (server.c's file comment); the device work outside a window is told
 * once, then forgotten. */
static void findings(struct judge *j)
{
    say_hit(j->fd, "handed", &j->call.handed);
    say_hit(j->fd, "guard", &j->call.guard);
    say_hit(j->fd, "exposed", &j->call.exposed);
    say_hit(j->fd, "hostread", &j->hostread);
    say_hit(j->fd, "outside", &j->outside);
    dprintf(j->fd, "totals launches=%llu params=%llu stores=%llu\n",
            (unsigned long long)j->launches, (unsigned long long)j->params,
            (unsigned long long)j->call.stores);
    memset(&j->outside, 0, sizeof j->outside);
}

int judge_command(struct judge *j, struct emu_mem *m, const char *line)
{
    unsigned long long addr = 0, bytes = 0, at = 0, data = 0;
    int input = 0, n = 0;
    char path[4096];
    if (!strcmp(line, "begin")) {
        mem_new_call(m);
        memset(&j->call, 0, sizeof j->call);
        memset(&j->hostread, 0, sizeof j->hostread);
        j->launches = j->params = 0;
        j->window = 1;
        dprintf(j->fd, "ok\n");
    } else if (!strcmp(line, "end")) {
        j->window = 0;
        dprintf(j->fd, "ok\n");
    } else if (sscanf(line, "mark %llx %llu %llu %llu %d", &addr, &bytes, &at, &data, &input) ==
                   5 &&
               at + data <= bytes) {
        mem_mark_written(m, addr, bytes, MEM_JUDGE);
        if (input) /* the data bytes: an input, which the host must not read back */
            mem_mark_written(m, addr + at, data, (enum mem_writer)(MEM_JUDGE | MEM_DERIVED));
        mem_guard(m, addr, at);
        mem_guard(m, addr + at + data, bytes - at - data);
        dprintf(j->fd, "ok\n");
    } else if (sscanf(line, "query %llx %llu", &addr, &bytes) == 2) {
        struct mem_prov p = {0, -1, 0, -1};
        if (mem_find(m, addr, bytes))
            mem_provenance(m, addr, bytes, &p);
        dprintf(j->fd, "prov read=%llu first_other=%lld other_state=%u first_unread=%lld\n",
                (unsigned long long)p.read, (long long)p.first_other, p.other_state,
                (long long)p.first_unread);
    } else if (!strcmp(line, "findings")) {
        findings(j);
    } else if (!strcmp(line, "memory")) {
        dprintf(j->fd, "memory base=%llx span=%llu\n", (unsigned long long)m->base,
                (unsigned long long)m->span);
    } else if (sscanf(line, "own %4095[^\n]%n", path, &n) == 1 && n > 4) {
        dprintf(j->fd, "own texts=%zu\n", own_from(j, path));
    } else {
        return -1;
    }
    return 0;
}
