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
