/**
 * @file rt_graph.h
 * @brief Inside the runtime stand-in: what rt_graph.c (graphs, instantiation) and
 *        rt_graph_cond.c (conditional nodes) share.
 *
 * A conditional node holds its body graphs (struct rt_cond). Instantiation turns each body into
 * an instantiated graph of its own (struct rt_exec), and the node into a host function on the
 * stream that reads the handle's value and runs the body it picks, work by work, there and then.
 * Every function here is called with the runtime lock held.
 */
#ifndef EMU_RT_GRAPH_H
#define EMU_RT_GRAPH_H

#include "rt.h"

struct rt_graph;
struct rt_exec;
struct rt_cond;

enum { GRAPH_MAGIC = 0x47524150, EXEC_MAGIC = 0x47455845, NODE_MAGIC = 0x4e4f4445 };

enum { RT_NODE_ATTRS = 32 }; /**< kernel node attribute ids kept: every cudaLaunchAttributeID */

/** One node. */
struct rt_node {
    uint32_t magic;
    struct rt_work w;
    struct rt_graph *graph; /**< the graph it is a node of */
    struct rt_graph *child; /**< a child graph node's own copy of the graph */
    struct rt_cond *cond;   /**< a conditional node's handle and bodies */
    struct rt_node **deps;
    int ndeps;
    int index;                    /**< its place in the graph's list */
    const struct rt_node *origin; /**< the node it was cloned from, or NULL */
    struct cudaMemsetParams fill; /**< a fill node's parameters as the program gave them */
    void **args; /**< a kernel node's arguments, as cudaGraphKernelNodeGetParams handed them out */
    cudaLaunchAttributeValue
        *attrs; /**< a kernel node's attributes by id (RT_NODE_ATTRS), or NULL */
    struct rt_node *next;
};

/** A graph. */
struct rt_graph {
    uint32_t magic;
    uint64_t id;                   /**< never reused: what a conditional handle names */
    const struct rt_graph *parent; /**< a body's: the graph of its conditional node */
    struct rt_node *first, *last;
    int n;
    struct rt_user_ref *refs; /**< the user objects it holds references to */
    int nrefs;
};

/** A capture in progress, and the streams that joined it. */
struct rt_capture {
    struct rt_graph *g;
    int ended; /**< kept after cudaStreamEndCapture: events may still name it */
    struct rt_stream **streams;
    int nstreams;
};

/** An instantiated graph: its operations in the order a launch queues them. */
struct rt_exec {
    uint32_t magic;
    int body;  /**< a conditional node's body: only the node kinds a body may hold */
    int conds; /**< conditional nodes among the works (they own their data) */
    struct rt_work *works;
    const struct rt_node **from; /**< the node each work was instantiated from (compared only) */
    int **after;                 /**< the works each one depends on (indices; stream record) */
    int *nafter;                 /**< how many; -1: the work before it (a child graph's work) */
    unsigned char *off;          /**< works disabled (cudaGraphNodeSetEnabled), or NULL */
    int n, cap;
    int depth;                /**< while flattening: how deep in child graphs */
    unsigned long long flags; /**< what it was instantiated with */
    struct rt_user_ref *refs; /**< the user objects of its graph, referenced again */
    int nrefs;
};

/** The node, instantiated graph named by a handle, or NULL when it names none. */
struct rt_node *rt_node_of(cudaGraphNode_t node);
struct rt_exec *rt_exec_of(cudaGraphExec_t e);

/** The place in @p x of the work instantiated from @p node, or -1. */
int rt_exec_find(const struct rt_exec *x, cudaGraphNode_t node);

/** Refuse @p call on @p node for reason @p why, in one line (cudaErrorInvalidValue). */
cudaError_t rt_refuse_node(const char *call, cudaGraphNode_t node, const char *why);

/** Add the node of @p w (whose parts it takes) to @p graph after @p deps, into *@p out. */
cudaError_t rt_graph_add(cudaGraphNode_t *out, cudaGraph_t graph, const cudaGraphNode_t *deps,
                         size_t ndeps, const struct rt_work *w);

/** The launch kernel node parameters @p p describe, into @p w (checked as a launch is). */
cudaError_t rt_kernel_node_work(const struct cudaKernelNodeParams *p, struct rt_work *w);

/** Free node @p n and what it owns (not its place in its graph's list). */
void rt_node_free(struct rt_node *n);

/* --- user objects (rt_graph_edit.c) --- */

/** @p count references to a user object. */
struct rt_user_ref {
    struct rt_user *obj;
    unsigned count;
};

/** Give back @p n references (a graph's or an instantiated graph's): the objects whose last
 *  reference they were are destroyed, after the work queued so far has run. */
void rt_user_refs_release(struct rt_user_ref *refs, int n);

/** A copy of @p n references, each object referenced once more for each. */
struct rt_user_ref *rt_user_refs_copy(const struct rt_user_ref *refs, int n);

/** A new empty graph whose conditional nodes may use the handles of @p parent's too (a body
 *  graph's parent is the graph of its node; NULL for others). */
struct rt_graph *rt_graph_new(const struct rt_graph *parent);

/** Free graph @p g, its nodes and their bodies. */
void rt_graph_free(struct rt_graph *g);

/** A copy of @p g (conditional nodes with copies of their bodies). */
struct rt_graph *rt_graph_clone(const struct rt_graph *g);

/** The graph handle @p g names, or NULL when it names none. */
struct rt_graph *rt_graph_of(cudaGraph_t g);

/** The number that names graph @p g for as long as the process lives (never reused). */
uint64_t rt_graph_id(const struct rt_graph *g);

/** 1 when a handle created for the graph numbered @p owner may be used by a node of @p g: @p g
 *  is that graph or one of its bodies, at any depth. */
int rt_graph_within(const struct rt_graph *g, uint64_t owner);

/** Instantiate body graph @p g (only the node kinds a body may hold: kernels, copies and fills
 *  of device memory, empty nodes, child graphs, conditionals); NULL after one line saying
 *  why. */
struct rt_exec *rt_exec_body(const struct rt_graph *g);

/** Free an instantiated graph. */
void rt_exec_free(struct rt_exec *x);

/** Run the works of @p x now, in order, on the host thread (a body, from its node). */
void rt_exec_run(const struct rt_exec *x);

/** Reset the values of the handles of @p x's conditional nodes that ask for it (at a launch). */
void rt_exec_reset(const struct rt_exec *x);

/** The conditional node @p p describes in graph @p g: checks the handle and the shape, creates
 *  the bodies and returns them in p->phGraph_out. NULL with *err (one line said) when it cannot. */
struct rt_cond *rt_cond_new(const struct rt_graph *g, struct cudaConditionalNodeParams *p,
                            cudaError_t *err);

/** Free a conditional node's bodies and itself. */
void rt_cond_free(struct rt_cond *c);

/** A copy of conditional node @p c with copies of its bodies. */
struct rt_cond *rt_cond_clone(const struct rt_cond *c);

/** Instantiate @p c: *w becomes the host function that runs it, whose data rt_cond_exec_free()
 *  frees with the instantiated graph. -1 when a body cannot be instantiated. */
int rt_cond_instantiate(const struct rt_cond *c, struct rt_work *w);

/** Free the data of an instantiated conditional node (its bodies). */
void rt_cond_exec_free(void *data);

/** Reset the handle of an instantiated conditional node and of those in its bodies. */
void rt_cond_exec_reset(void *data);

/** 1 when @p w is an instantiated conditional node. */
int rt_cond_is(const struct rt_work *w);

#endif /* EMU_RT_GRAPH_H */
