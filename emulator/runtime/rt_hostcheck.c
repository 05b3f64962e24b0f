/**
 * @file rt_hostcheck.c
 * @brief hostcheck: a host access to pinned memory that a queued copy still reads or writes.
 *
 * With COURSE_EMU_CHECKS naming host (./course sanitize), a pinned block (cudaMallocHost,
 * cudaHostAlloc: pages of its own) that a queued copy uses is protected until the copy runs:
 * from every access while a device-to-host copy will write it, from writes while a
 * host-to-device copy will read it. A host access that meets the protection is a missing
 * synchronisation: it is reported in one line (stderr and COURSE_EMU_REPORT) naming the
 * buffer, the copy, its stream and where it was issued, and the access and where it was made;
 * then the block is given back to the host and the program goes on, reading what a GPU may
 * leave there (the copy has not landed). One report per pair of places (the copy's call and
 * the access). No GPU tool reports this. A system call handed a protected buffer (write(2), MPI's
 * transports) fails with EFAULT instead of being reported.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "rt.h"

int rt_hostcheck;

/* The bytes of block @p b's pages. */
static size_t span(const struct rt_host_block *b)
{
    return b->size ? (b->size + 4095) / 4096 * 4096 : 4096;
}

/* Pages of block @p b: the host may do what @p prot allows. */
static void protect(struct rt_host_block *b, int prot)
{
    mprotect(b->ptr, span(b), prot);
}

/* What the host may do with block @p b while its queued copies wait. */
static int allowed(const struct rt_host_block *b)
{
    return b->writers ? PROT_NONE : b->readers ? PROT_READ : PROT_READ | PROT_WRITE;
}

void rt_hostcheck_hold(struct rt_host_block *b, const struct rt_work *w, cudaStream_t s,
                       int written)
{
    struct rt_copy_use use = {w->what, w->site, s};
    if (written) {
        b->writers++;
        b->writer = use;
    } else {
        b->readers++;
        b->reader = use;
    }
    b->reported = 0;
    if (rt_hostcheck)
        protect(b, allowed(b));
}

void rt_hostcheck_release(struct rt_host_block *b, int written)
{
    if (written)
        b->writers--;
    else
        b->readers--;
}

void rt_hostcheck_open(struct rt_host_block *b, int open)
{
    if (rt_hostcheck)
        protect(b, open ? PROT_READ | PROT_WRITE : allowed(b));
}

/* addr2line's "FUNCTION\nFILE:LINE" for @p offset in @p object, into @p out; 0 on success. */
static int addr2line(const char *object, size_t offset, char *out, size_t size)
{
    char cmd[4400], fn[512] = "", at[1024] = "";
    snprintf(cmd, sizeof cmd, "addr2line -f -e '%s' 0x%zx 2>/dev/null", object, offset);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    int ok = fgets(fn, sizeof fn, p) && fgets(at, sizeof at, p);
    pclose(p);
    fn[strcspn(fn, "\n")] = at[strcspn(at, " \n")] = '\0'; /* no "(discriminator N)" */
    if (!ok || at[0] == '?')
        return -1;
    const char *base = strrchr(at, '/');
    snprintf(out, size, "%s (%s)", base ? base + 1 : at, fn);
    return 0;
}

void rt_code_name(const void *pc, char *buf, size_t size)
{
    Dl_info info;
    if (!dladdr(pc, &info) || !info.dli_fname) {
        snprintf(buf, size, "%p", pc);
        return;
    }
    /* A return address is the instruction after the call: look one byte back. */
    size_t off = (size_t)((const char *)pc - (const char *)info.dli_fbase) - 1;
    if (addr2line(info.dli_fname, off, buf, size) == 0)
        return;
    if (info.dli_sname)
        snprintf(buf, size, "%s()", info.dli_sname);
    else
        snprintf(buf, size, "%s+0x%zx", info.dli_fname, off + 1);
}

/* 1 when code address @p pc lies in a shared library (libc's memcpy, MPI), not the program. */
static int in_library(const void *pc)
{
    Dl_info info;
    return dladdr(pc, &info) && info.dli_fname && strstr(info.dli_fname, ".so");
}

/* Where the access at @p pc was made: its code, and when that is a library's (a memcpy inside
 * MPI), the program's own frame that led there, from the stack. */
static void access_name(const void *pc, char *buf, size_t size)
{
    rt_code_name((const char *)pc + 1, buf, size); /* the faulting instruction itself */
    if (!in_library(pc))
        return;
    void *frames[64];
    int n = backtrace(frames, 64);
    for (int i = 0; i < n; i++)
        if (!in_library(frames[i])) {
            size_t len = strlen(buf);
            snprintf(buf + len, size - len, " called from ");
            len = strlen(buf);
            rt_code_name(frames[i], buf + len, size - len);
            return;
        }
}

/* One line for a host access at @p addr (a write when @p write) by code at @p pc. */
static void report(const struct rt_host_block *b, const void *addr, int write, const void *pc)
{
    const struct rt_copy_use *u = b->writers ? &b->writer : &b->reader;
    char issued[1200], access[2400], stream[64], line[4000];
    rt_code_name(u->site, issued, sizeof issued);
    access_name(pc, access, sizeof access);
    if (u->stream)
        snprintf(stream, sizeof stream, "stream %p", u->stream);
    else
        snprintf(stream, sizeof stream, "the default stream");
    snprintf(line, sizeof line,
             "hostcheck: host %s of pinned buffer %p (%zu bytes) at byte %zu, at %s, while %s "
             "(it %s the buffer) issued at %s on %s has not run: synchronise first "
             "(cudaStreamSynchronize or an event)",
             write ? "write" : "read", b->ptr, b->size,
             (size_t)((const char *)addr - (const char *)b->ptr), access, u->what,
             b->writers ? "writes" : "reads", issued, stream);
    emu_say("%s", line);
    rt.findings++;
    const char *path = getenv("COURSE_EMU_REPORT");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (f) {
        fprintf(f, "%s\n", line);
        fclose(f);
    }
}

/* 1 the first time the copy issued at @p site meets a host access at @p pc: one line per pair
 * of places, as the other checks keep theirs. */
static int first_time(const void *site, const void *pc)
{
    static const void *seen[64][2];
    static int nseen;
    for (int i = 0; i < nseen; i++)
        if (seen[i][0] == site && seen[i][1] == pc)
            return 0;
    if (nseen < 64) {
        seen[nseen][0] = site;
        seen[nseen++][1] = pc;
    }
    return 1;
}

/* A fault on a held block is a report; any other is the program's own (it dies as before). */
static void on_fault(int sig, siginfo_t *si, void *ctx)
{
    const ucontext_t *uc = ctx;
    for (struct rt_host_block *b = rt.host_blocks; b; b = b->next) {
        if (!(b->readers + b->writers) || (char *)si->si_addr < (char *)b->ptr ||
            (char *)si->si_addr >= (char *)b->ptr + span(b))
            continue;
#if defined(__x86_64__)
        int write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
        const void *pc = (const void *)uc->uc_mcontext.gregs[REG_RIP];
#else
        int write = 1;
        const void *pc = NULL;
        (void)uc;
#endif
        const struct rt_copy_use *u = b->writers ? &b->writer : &b->reader;
        if (!b->reported && first_time(u->site, pc))
            report(b, si->si_addr, write, pc);
        b->reported = 1;
        protect(b, PROT_READ | PROT_WRITE);
        return;
    }
    signal(sig, SIG_DFL); /* not ours: the access faults again, and the program dies of it */
}

void rt_hostcheck_start(void)
{
    void *warm[1];
    backtrace(warm, 1); /* loads the unwinder now, not inside the fault handler */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) == 0)
        rt_hostcheck = 1;
}

/* The pinned block holding all of [@p p, @p p + @p n), or NULL (rt.h). */
struct rt_host_block *rt_pinned(const void *p, size_t n)
{
    for (struct rt_host_block *b = rt.host_blocks; b; b = b->next)
        if ((const char *)p >= (const char *)b->ptr &&
            (const char *)p + n <= (const char *)b->ptr + b->size)
            return b;
    return NULL;
}
