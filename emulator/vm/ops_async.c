/**
 * @file ops_async.c
 * @brief Asynchronous copies (cp.async): the copies a warp has in flight, their groups, and the
 *        waits that land them (PTX ISA: cp.async, cp.async.commit_group, cp.async.wait_group).
 *
 * A cp.async reads its global bytes when it is issued (ops_mem.c) and writes shared memory no
 * earlier than the wait that completes it: cp.async.wait_group N lands every copy of the
 * thread's committed groups but the newest N, cp.async.wait_all every copy, and
 * cp.async.mbarrier.arrive every copy the thread issued before it. Both ends are a schedule the
 * ISA allows, and the latest one: a read of the destination before its wait reads what was there
 * before (stale data, as on a GPU whose copy has not landed), and racecheck reports it
 * (checks.c). Copies still in flight when their thread exits land then.
 *
 * Groups are per thread, as the ISA defines them: each lane counts the groups it committed, and
 * a copy belongs to the group its lane commits next. The counters ask how many copies a warp
 * has in flight when it issues an mma (count.c: overlapped_flops).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "checks.h"
#include "vm_impl.h"

/* One copy in flight: its lane, group, destination (a shared offset) and the bytes it read. */
struct async_copy {
    uint32_t group; /* the lane's group number (commits before it) */
    uint32_t dst;   /* shared-memory offset */
    uint32_t pc;    /* the cp.async, for racecheck's messages */
    uint8_t lane;   /* issuing lane */
    uint8_t bytes;  /* 4, 8 or 16 */
    uint8_t data[16];
};

void vm_async_issue(struct warp *w, int lane, uint32_t dst, const uint8_t *data, unsigned bytes,
                    uint32_t pc)
{
    struct async_queue *q = w->async;
    if (!q) {
        q = w->async = emu_calloc(1, sizeof *q);
    }
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 256;
        q->copy = emu_realloc(q->copy, q->cap * sizeof *q->copy);
    }
    struct async_copy *c = &q->copy[q->n++];
    c->group = q->committed[lane];
    c->dst = dst;
    c->pc = pc;
    c->lane = (uint8_t)lane;
    c->bytes = (uint8_t)bytes;
    memcpy(c->data, data, bytes);
}

void vm_async_commit(struct warp *w, uint32_t m)
{
    if (w->async)
        LANES(m, w->async->committed[l]++);
}

void vm_async_land(struct exec *x, struct warp *w, uint32_t m, int keep)
{
    struct async_queue *q = w->async;
    if (!q)
        return;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < q->n; i++) {
        struct async_copy *c = &q->copy[i];
        uint32_t done = q->committed[c->lane];
        int lands = (m >> c->lane & 1) && (keep < 0 || c->group + (uint32_t)keep < done);
        if (!lands) {
            q->copy[kept++] = *c;
            continue;
        }
        memcpy(x->smem + c->dst, c->data, c->bytes);
        x->writes++;
        if (x->launch->checks)
            check_async_land(x, w, c->lane, c->dst, c->bytes);
    }
    q->n = kept;
}

void vm_async_reset(struct warp *w)
{
    if (w->async) {
        w->async->n = 0;
        memset(w->async->committed, 0, sizeof w->async->committed);
    }
}

void vm_async_free(struct warp *w)
{
    if (w->async)
        free(w->async->copy);
    free(w->async);
    w->async = NULL;
}

/* cp.async.commit_group: each lane's copies since its last commit become its newest group (an
 * empty one when there were none). [PTX ISA: cp.async.commit_group] */
enum event h_CP_ASYNC_COMMIT(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x, (void)in;
    vm_async_commit(w, m);
    return EV_NONE;
}

/* cp.async.wait_group N (imm): every committed group of the lane but the newest N has landed;
 * cp.async.wait_all (width 1): every copy, committed or not. [PTX ISA: cp.async.wait_group] */
enum event h_CP_ASYNC_WAIT(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    if (in->width)
        vm_async_commit(w, m);
    vm_async_land(x, w, m, in->width ? 0 : (int)in->imm);
    return EV_NONE;
}
