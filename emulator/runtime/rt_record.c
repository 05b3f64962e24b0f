/**
 * @file rt_record.c
 * @brief The stream record: every operation queued on a stream, with the operations it waits
 *        for, and every wait of the host, sent to the device server as it happens.
 *
 * An operation is named by its stream and its number there (struct proto_record). Its
 * dependencies are those of the program's order, not of the emulator's schedule: the operation
 * before it on its stream (for a node of a graph's launch, the nodes it depends on in the
 * graph), the event record a wait names, the legacy default stream's barrier, whether or not
 * they have run yet (rt_queue.c computes them). A synchronising call that returns is a wait of
 * the host, on a stream of its own (PROTO_RECORD_HOST_STREAM): it follows what the host waited
 * for, and everything the host queues afterwards follows it. So whether two operations may
 * overlap on a GPU is a question of paths in this graph, which a grader answers without a
 * clock (tests/common/course_streams.c), and the time model lays the graph out on the copy
 * engines and the SMs (tools/timeline.py).
 *
 * The record is kept only when somebody reads it: a grader observes the device server
 * (COURSE_EMU_FD) or the time model runs (COURSE_EMU_MODEL). Each place in the program that
 * queues work is named once (addr2line, rt_code_name()), then from a small cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* Names of the places that queued work, by code address. */
enum { SITES = 256 };
static struct {
    const void *pc;
    char name[160];
} sites[SITES];
static int nsites;

/* The host's waits so far: the numbers of the host's stream. */
static uint64_t host_waits;

int rt_record_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *fd = getenv("COURSE_EMU_FD"), *model = getenv("COURSE_EMU_MODEL");
        on = (fd && *fd) || (model && *model);
    }
    return on && rt.started && rt.sock >= 0;
}

/* The name of the place @p pc (a return address), from the cache when it was named before. */
static const char *site_name(const void *pc)
{
    if (!pc)
        return "";
    for (int i = 0; i < nsites; i++)
        if (sites[i].pc == pc)
            return sites[i].name;
    static char name[160];
    rt_code_name(pc, name, sizeof name);
    if (nsites == SITES)
        return name;
    sites[nsites].pc = pc;
    snprintf(sites[nsites].name, sizeof sites[nsites].name, "%s", name);
    return sites[nsites++].name;
}

/* Send one record: @p r, its dependencies, its name and its site. */
static void send(struct proto_record *r, const struct rt_dep *deps, int ndeps, const char *name,
                 const char *site)
{
    size_t head = sizeof *r, dbytes = (size_t)ndeps * sizeof(struct proto_dep);
    r->ndeps = (uint32_t)ndeps;
    r->name_len = (uint32_t)strlen(name);
    r->site_len = (uint32_t)strlen(site);
    char *msg = emu_malloc(head + dbytes + r->name_len + r->site_len + 1);
    memcpy(msg, r, head);
    struct proto_dep *d = (struct proto_dep *)(msg + head);
    for (int i = 0; i < ndeps; i++)
        d[i] = (struct proto_dep){rt_record_stream(deps[i].s), deps[i].seq};
    memcpy(msg + head + dbytes, name, r->name_len);
    memcpy(msg + head + dbytes + r->name_len, site, r->site_len);
    rt_post(PROTO_RECORD, msg, head + dbytes + r->name_len + r->site_len);
    free(msg);
}

/* The kind of @p w in the record. */
static uint32_t kind_of(const struct rt_work *w)
{
    switch (w->kind) {
    case RT_KERNEL:
        return PROTO_RECORD_KERNEL;
    case RT_COPY:
        return PROTO_RECORD_COPY;
    case RT_FILL:
        return PROTO_RECORD_FILL;
    case RT_RECORD:
        return PROTO_RECORD_EVENT;
    case RT_HOST_FN:
    case RT_CALLBACK:
        return PROTO_RECORD_HOST;
    case RT_NOP:
        break;
    }
    return w->event ? PROTO_RECORD_WAIT : PROTO_RECORD_NOP;
}

/* The ranges copy or fill @p w writes and reads, into @p r. */
static void ranges(const struct rt_work *w, struct proto_record *r)
{
    if (w->kind == RT_FILL) {
        r->dst = (uint64_t)(uintptr_t)w->u.fill.p;
        r->dst_bytes = w->u.fill.pitch * (w->u.fill.height - 1) + w->u.fill.width;
        r->sides = 1;
    } else if (w->kind == RT_COPY) {
        size_t rows = w->u.copy.height - 1, width = w->u.copy.width;
        r->dst = (uint64_t)(uintptr_t)w->u.copy.dst;
        r->src = (uint64_t)(uintptr_t)w->u.copy.src;
        r->dst_bytes = w->u.copy.dpitch * rows + width;
        r->src_bytes = w->u.copy.spitch * rows + width;
        r->sides = (uint32_t)w->u.copy.sides;
        r->sides |= !(r->sides & 1) && rt_pinned(w->u.copy.dst, r->dst_bytes) ? 4u : 0u;
        r->sides |= !(r->sides & 2) && rt_pinned(w->u.copy.src, r->src_bytes) ? 8u : 0u;
    }
}

void rt_record_op(const struct rt_stream *s, uint64_t seq, const struct rt_work *w,
                  const struct rt_dep *deps, int ndeps, int graph)
{
    if (!rt_record_on())
        return;
    struct proto_record r = {.stream = rt_record_stream(s), .seq = seq, .kind = kind_of(w)};
    r.graph = (uint32_t)graph;
    ranges(w, &r);
    send(&r, deps, ndeps, w->what ? w->what : "", site_name(w->site));
}

void rt_record_sync(const struct rt_dep *deps, int ndeps, const char *what)
{
    if (!rt_record_on()) /* a wait with nothing to wait for is a wait all the same */
        return;
    struct proto_record r = {
        .stream = PROTO_RECORD_HOST_STREAM, .seq = ++host_waits, .kind = PROTO_RECORD_SYNC};
    send(&r, deps, ndeps, what, "");
}

void course_emu_mark(const char *label)
{
    rt_lock();
    if (rt_record_on()) {
        struct proto_record r = {
            .stream = PROTO_RECORD_HOST_STREAM, .seq = host_waits, .kind = PROTO_RECORD_MARK};
        send(&r, NULL, 0, label ? label : "", "");
    }
    rt_unlock();
}
