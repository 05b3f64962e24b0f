/**
 * @file test_graph_cond.c
 * @brief Conditional graph nodes (IF, IF/ELSE, WHILE, SWITCH), each against the host's answer.
 *
 * Every graph works on x, n = 1031 non-uniform integers, and each body scales it by its own
 * (mul, add), so which bodies ran, and how often, shows in the result. Device code sets the
 * handle: a kernel node before the conditional, or the last node of a WHILE body. Cases: IF true
 * and false with and without an else body, WHILE iterating 0, 1 and 7 times, SWITCH with values
 * in and out of range, IF nodes nested in a WHILE body, a conditional node added to a stream
 * capture and a body captured with cudaStreamBeginCaptureToGraph, the default value with and
 * without cudaGraphCondAssignDefault over two launches, and the forms that are refused in one line.
 * CTest runs every case on the emulator.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "emu_cuda12.h"
#include "test_graph_cond.h"

enum { N = 1031 };

/** One graph under test: x (N ints) and the selector its setter kernel reads, on the device. */
struct fixture {
    int *d_x, *d_sel;
    cudaGraph_t g;
    cudaGraphConditionalHandle h;
};

/* x's starting value at @p i: small, non-uniform, both signs. */
static int start(int i)
{
    return (i * 37) % 211 - 105;
}

/* @p x after x = x * mul + add, @p times times. */
static int scaled(int x, int mul, int add, int times)
{
    while (times-- > 0)
        x = x * mul + add;
    return x;
}

/* A graph, x and the selector in *f; a handle of @p dflt with @p flags. */
static void fixture_make(struct fixture *f, unsigned dflt, unsigned flags)
{
    ck_assert_int_eq(cudaMalloc((void **)&f->d_x, N * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&f->d_sel, sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaGraphCreate(&f->g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphConditionalHandleCreate(&f->h, f->g, dflt, flags), cudaSuccess);
}

static void fixture_free(struct fixture *f)
{
    cudaGraphDestroy(f->g);
    cudaFree(f->d_x);
    cudaFree(f->d_sel);
}

/* A kernel node of @p func in @p g after @p dep (NULL: none), through cudaGraphAddNode. */
static cudaGraphNode_t add_kernel(cudaGraph_t g, const cudaGraphNode_t *dep, const void *func,
                                  unsigned blocks, unsigned threads, void **args)
{
    struct cudaGraphNodeParams p = {.type = cudaGraphNodeTypeKernel};
    p.kernel.func = (void *)func;
    p.kernel.gridDim = (dim3){blocks, 1, 1};
    p.kernel.blockDim = (dim3){threads, 1, 1};
    p.kernel.kernelParams = args;
    cudaGraphNode_t node;
    ck_assert_int_eq(cudaGraphAddNode(&node, g, dep, NULL, dep ? 1 : 0, &p), cudaSuccess);
    return node;
}

/* x = x * mul + add over N, in @p g after @p dep. */
static cudaGraphNode_t add_axpb(cudaGraph_t g, const cudaGraphNode_t *dep, int *d_x, int mul,
                                int add)
{
    int n = N;
    void *args[] = {&d_x, &n, &mul, &add};
    return add_kernel(g, dep, cond_axpb_kernel(), (N + COND_BLOCK - 1) / COND_BLOCK, COND_BLOCK,
                      args);
}

/* The handle set to *d_sel, in @p g after @p dep. */
static cudaGraphNode_t add_set(cudaGraph_t g, const cudaGraphNode_t *dep, int *d_sel,
                               cudaGraphConditionalHandle h)
{
    void *args[] = {&d_sel, &h};
    return add_kernel(g, dep, cond_set_kernel(), 1, 1, args);
}

/* A conditional node on handle @p h, of @p type with @p size bodies, in @p g after @p dep; its
 * bodies in @p body. */
static cudaGraphNode_t add_cond(cudaGraph_t g, cudaGraphConditionalHandle h,
                                const cudaGraphNode_t *dep, enum cudaGraphConditionalNodeType type,
                                unsigned size, cudaGraph_t *body)
{
    struct cudaGraphNodeParams p = {.type = cudaGraphNodeTypeConditional};
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    cudaGraphNode_t node;
    ck_assert_int_eq(cudaGraphAddNode(&node, g, dep, NULL, dep ? 1 : 0, &p), cudaSuccess);
    for (unsigned i = 0; i < size; i++)
        body[i] = p.conditional.phGraph_out[i];
    return node;
}

/* A new fixture whose graph is: the handle set to the selector -> a conditional node of @p type
 * with @p size bodies (in @p body); the node. */
static cudaGraphNode_t setter_then_cond(struct fixture *f, enum cudaGraphConditionalNodeType type,
                                        unsigned size, cudaGraph_t *body)
{
    fixture_make(f, 0, 0);
    cudaGraphNode_t set = add_set(f->g, NULL, f->d_sel, f->h);
    return add_cond(f->g, f->h, &set, type, size, body);
}

/* Start x anew and set the selector to @p sel, launch @p x, and check that x is start(i) scaled
 * by (mul, add) @p times times; @p what names the case in the message. */
static void launch_check(struct fixture *f, cudaGraphExec_t x, int sel, int mul, int add, int times,
                         const char *what)
{
    int *h = mat_alloc(N * sizeof *h);
    for (int i = 0; i < N; i++)
        h[i] = start(i);
    ck_assert_int_eq(cudaMemcpy(f->d_x, h, N * sizeof *h, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(f->d_sel, &sel, sizeof sel, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(x, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(h, f->d_x, N * sizeof *h, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < N; i++)
        ck_assert_msg(h[i] == scaled(start(i), mul, add, times),
                      "test_graph_cond.c: %s, n=%d, value %d: x[%d] = %d, want %d (%d runs of "
                      "x * %d + %d)",
                      what, N, sel, i, h[i], scaled(start(i), mul, add, times), times, mul, add);
    free(h);
}

/* set -> IF [ x * 3 - 5 ]: the body runs for a non-zero value only. */
START_TEST(if_without_else)
{
    struct fixture f;
    cudaGraph_t body;
    cudaGraphExec_t x;
    setter_then_cond(&f, cudaGraphCondTypeIf, 1, &body);
    add_axpb(body, NULL, f.d_x, 3, -5);
    ck_assert_int_eq(cudaGraphInstantiate(&x, f.g, 0), cudaSuccess);
    launch_check(&f, x, 7, 3, -5, 1, "IF, true");
    launch_check(&f, x, 0, 3, -5, 0, "IF, false");
    launch_check(&f, x, -1, 3, -5, 1, "IF, true (all bits)");
    cudaGraphExecDestroy(x);
    fixture_free(&f);
}
END_TEST

/* set -> IF [ x * 3 - 5 | x * -2 + 9 ]: exactly one body runs. */
START_TEST(if_with_else)
{
    struct fixture f;
    cudaGraph_t body[2];
    cudaGraphExec_t x;
    cudaGraphNode_t cond = setter_then_cond(&f, cudaGraphCondTypeIf, 2, body);
    add_axpb(body[0], NULL, f.d_x, 3, -5);
    add_axpb(body[1], NULL, f.d_x, -2, 9);
    enum cudaGraphNodeType type;
    ck_assert_int_eq(cudaGraphNodeGetType(cond, &type), cudaSuccess);
    ck_assert_int_eq(type, cudaGraphNodeTypeConditional);
    ck_assert_int_eq(cudaGraphInstantiate(&x, f.g, 0), cudaSuccess);
    launch_check(&f, x, 1, 3, -5, 1, "IF/ELSE, true");
    launch_check(&f, x, 0, -2, 9, 1, "IF/ELSE, false");
    cudaGraphExecDestroy(x);
    fixture_free(&f);
}
END_TEST

/* set (to the counter k) -> WHILE [ x * 2 + 1 -> counter - 1, the handle set to it ]: k runs,
 * none for k = 0 (the value is checked before the first). */
START_TEST(while_iterates_k_times)
{
    struct fixture f;
    cudaGraph_t body;
    cudaGraphExec_t x;
    setter_then_cond(&f, cudaGraphCondTypeWhile, 1, &body);
    cudaGraphNode_t step = add_axpb(body, NULL, f.d_x, 2, 1);
    void *args[] = {&f.d_sel, &f.h};
    add_kernel(body, &step, cond_countdown_kernel(), 1, 1, args);
    ck_assert_int_eq(cudaGraphInstantiate(&x, f.g, 0), cudaSuccess);
    const int ks[] = {0, 1, 7};
    for (int i = 0; i < 3; i++) {
        char what[32];
        snprintf(what, sizeof what, "WHILE, k = %d", ks[i]);
        launch_check(&f, x, ks[i], 2, 1, ks[i], what);
        int left = -1;
        ck_assert_int_eq(cudaMemcpy(&left, f.d_sel, sizeof left, cudaMemcpyDeviceToHost),
                         cudaSuccess);
        ck_assert_msg(left == 0, "test_graph_cond.c: WHILE, k = %d: the counter ends at %d", ks[i],
                      left);
    }
    cudaGraphExecDestroy(x);
    fixture_free(&f);
}
END_TEST

/*
 * set (to k) -> WHILE [ IF (the WHILE's handle) [ x * 2 + 1 ] -> IF (a handle of the body, 0 at
 * each launch) [ x * 5 + 5 ] -> counter - 1, the WHILE's handle set to it ]: nested nodes, on a
 * handle of the graph that holds their body and on one of the body itself; k runs of the first.
 */
START_TEST(nested_conditionals)
{
    struct fixture f;
    cudaGraph_t body, inner[2];
    cudaGraphExec_t x;
    cudaGraphConditionalHandle off;
    setter_then_cond(&f, cudaGraphCondTypeWhile, 1, &body);
    ck_assert_int_eq(cudaGraphConditionalHandleCreate(&off, body, 0, cudaGraphCondAssignDefault),
                     cudaSuccess);
    cudaGraphNode_t on_node = add_cond(body, f.h, NULL, cudaGraphCondTypeIf, 1, &inner[0]);
    cudaGraphNode_t off_node = add_cond(body, off, &on_node, cudaGraphCondTypeIf, 1, &inner[1]);
    add_axpb(inner[0], NULL, f.d_x, 2, 1);
    add_axpb(inner[1], NULL, f.d_x, 5, 5);
    void *args[] = {&f.d_sel, &f.h};
    add_kernel(body, &off_node, cond_countdown_kernel(), 1, 1, args);
    ck_assert_int_eq(cudaGraphInstantiate(&x, f.g, 0), cudaSuccess);
    launch_check(&f, x, 5, 2, 1, 5, "IF inside WHILE, k = 5");
    launch_check(&f, x, 0, 2, 1, 0, "IF inside WHILE, k = 0");
    cudaGraphExecDestroy(x);
    fixture_free(&f);
}
END_TEST

/* set -> SWITCH [ x + 1 | x * 2 | 4 - x ]: body n for value n < 3, none beyond. */
START_TEST(switch_in_and_out_of_range)
{
    struct fixture f;
    cudaGraph_t body[3];
    cudaGraphExec_t x;
    const int mul[] = {1, 2, -1}, add[] = {1, 0, 4};
    setter_then_cond(&f, cudaGraphCondTypeSwitch, 3, body);
    for (int i = 0; i < 3; i++)
        add_axpb(body[i], NULL, f.d_x, mul[i], add[i]);
    ck_assert_int_eq(cudaGraphInstantiate(&x, f.g, 0), cudaSuccess);
    for (int v = 0; v < 3; v++)
        launch_check(&f, x, v, mul[v], add[v], 1, "SWITCH, in range");
    launch_check(&f, x, 3, 1, 0, 0, "SWITCH, one past the last body");
    launch_check(&f, x, 1000, 1, 0, 0, "SWITCH, far out of range");
    cudaGraphExecDestroy(x);
    fixture_free(&f);
}
END_TEST

/*
 * Captured as capturedWhileGraph in NVIDIA's samples does: set, then an IF node added by hand to
 * the capture's graph after the stream's last node, the stream moved past it
 * (cudaStreamUpdateCaptureDependencies), then x + 100 captured after it; the body captured with
 * cudaStreamBeginCaptureToGraph.
 */
START_TEST(captured_conditional)
{
    struct fixture f = {0};
    cudaStream_t s;
    cudaGraph_t body;
    cudaGraphExec_t x;
    cudaGraphNode_t cond;
    const cudaGraphNode_t *deps;
    size_t ndeps = 0, count = 8;
    enum cudaStreamCaptureStatus status;
    ck_assert_int_eq(cudaMalloc((void **)&f.d_x, N * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&f.d_sel, sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaStreamGetCaptureInfo(s, &status, NULL, &f.g, NULL, NULL, NULL),
                     cudaSuccess);
    ck_assert_int_eq(cudaGraphConditionalHandleCreate(&f.h, f.g, 0, 0), cudaSuccess);
    ck_assert_int_eq(cond_set(f.d_sel, f.h, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamGetCaptureInfo(s, &status, NULL, NULL, &deps, NULL, &ndeps),
                     cudaSuccess);
    ck_assert_uint_eq(ndeps, 1);
    cond = add_cond(f.g, f.h, deps, cudaGraphCondTypeIf, 1, &body);
    ck_assert_int_eq(
        cudaStreamUpdateCaptureDependencies(s, &cond, NULL, 1, cudaStreamSetCaptureDependencies),
        cudaSuccess);
    ck_assert_int_eq(cond_axpb(f.d_x, N, 1, 100, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(s, &f.g), cudaSuccess);
    cudaGraphNode_t nodes[8], after[2];
    ck_assert_int_eq(cudaGraphGetNodes(f.g, nodes, &count), cudaSuccess);
    ck_assert_uint_eq(count, 3);
    ndeps = 2;
    ck_assert_int_eq(cudaGraphNodeGetDependencies(nodes[2], after, NULL, &ndeps), cudaSuccess);
    ck_assert_msg(ndeps == 1 && after[0] == cond,
                  "test_graph_cond.c: the node captured after the conditional depends on %zu "
                  "nodes, not on it",
                  ndeps);
    ck_assert_int_eq(
        cudaStreamBeginCaptureToGraph(s, body, NULL, NULL, 0, cudaStreamCaptureModeGlobal),
        cudaSuccess);
    ck_assert_int_eq(cond_axpb(f.d_x, N, 3, -5, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(s, NULL), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&x, f.g, 0), cudaSuccess);
    launch_check(&f, x, 4, 3, 95, 1, "captured IF, true: x * 3 - 5, then x + 100");
    launch_check(&f, x, 0, 1, 100, 1, "captured IF, false: x + 100 only");
    cudaGraphExecDestroy(x);
    cudaStreamDestroy(s);
    fixture_free(&f);
}
END_TEST

/*
 * IF [ x * 3 - 5 -> the handle set to 0 ] with no setter before it, launched twice without
 * starting x anew: the first launch runs the body (the handle starts at its default, 1); the
 * second runs it again only when cudaGraphCondAssignDefault puts the default back.
 */
static void default_value_case(unsigned flags, int runs)
{
    struct fixture f;
    cudaGraph_t body;
    cudaGraphExec_t x;
    fixture_make(&f, 1, flags);
    add_cond(f.g, f.h, NULL, cudaGraphCondTypeIf, 1, &body);
    cudaGraphNode_t step = add_axpb(body, NULL, f.d_x, 3, -5);
    add_set(body, &step, f.d_sel, f.h);
    ck_assert_int_eq(cudaGraphInstantiate(&x, f.g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(x, 0), cudaSuccess); /* x from launch_check's start below */
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    launch_check(&f, x, 0, 3, -5, runs,
                 flags ? "the second launch, cudaGraphCondAssignDefault"
                       : "the second launch, "
                         "no flag");
    cudaGraphExecDestroy(x);
    fixture_free(&f);
}

START_TEST(default_value_with_assign_default)
{
    default_value_case(cudaGraphCondAssignDefault, 1);
}
END_TEST

START_TEST(default_value_without_flag)
{
    default_value_case(0, 0);
}
END_TEST

/* A conditional node's params in *p: @p h, @p type, @p size. */
static struct cudaGraphNodeParams *
cond_params(struct cudaGraphNodeParams *p, cudaGraphConditionalHandle h, int type, unsigned size)
{
    *p = (struct cudaGraphNodeParams){.type = cudaGraphNodeTypeConditional};
    p->conditional.handle = h;
    p->conditional.type = (enum cudaGraphConditionalNodeType)type;
    p->conditional.size = size;
    return p;
}

/* Flags, types, sizes and handles that are not emulated or not allowed, a node kind a body may
 * not hold: one line and an error each, and the process goes on. */
START_TEST(unsupported_forms_refused)
{
    struct fixture f, other;
    struct cudaGraphNodeParams p;
    cudaGraphConditionalHandle h;
    cudaGraphNode_t node;
    cudaGraph_t body;
    cudaGraphExec_t x;
    cudaEvent_t e;
    fixture_make(&f, 0, 0);
    fixture_make(&other, 0, 0);
    EXPECT_REFUSED_WITH(cudaErrorNotSupported, cudaGraphConditionalHandleCreate(&h, f.g, 0, 2),
                        "flags 0x2 are not emulated");
    EXPECT_REFUSED_WITH(cudaErrorNotSupported,
                        cudaGraphAddNode(&node, f.g, NULL, NULL, 0, cond_params(&p, f.h, 7, 1)),
                        "has a type that is not emulated");
    EXPECT_REFUSED_WITH(
        cudaErrorInvalidValue,
        cudaGraphAddNode(&node, f.g, NULL, NULL, 0, cond_params(&p, f.h, cudaGraphCondTypeIf, 3)),
        "has a size its type does not allow");
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue,
                        cudaGraphAddNode(&node, f.g, NULL, NULL, 0,
                                         cond_params(&p, f.h, cudaGraphCondTypeWhile, 2)),
                        "has a size its type does not allow");
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue,
                        cudaGraphAddNode(&node, f.g, NULL, NULL, 0,
                                         cond_params(&p, other.h, cudaGraphCondTypeIf, 1)),
                        "created for another graph");
    EXPECT_REFUSED_WITH(
        cudaErrorInvalidValue,
        cudaGraphAddNode(&node, f.g, NULL, NULL, 0, cond_params(&p, 12345, cudaGraphCondTypeIf, 1)),
        "names no handle");
    p = (struct cudaGraphNodeParams){.type = cudaGraphNodeTypeExtSemaphoreSignal};
    EXPECT_REFUSED_WITH(cudaErrorNotSupported, cudaGraphAddNode(&node, f.g, NULL, NULL, 0, &p),
                        "is not emulated");
    add_cond(f.g, f.h, NULL, cudaGraphCondTypeIf, 1, &body);
    ck_assert_int_eq(cudaEventCreate(&e), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddEventRecordNode(&node, body, NULL, 0, e), cudaSuccess);
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaGraphInstantiate(&x, f.g, 0),
                        "body holds an event node");
    cudaEventDestroy(e);
    fixture_free(&other);
    fixture_free(&f);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"if_without_else", if_without_else, CASE_CPU, 60},
        {"if_with_else", if_with_else, CASE_CPU, 60},
        {"while_iterates_k_times", while_iterates_k_times, CASE_CPU, 60},
        {"switch_in_and_out_of_range", switch_in_and_out_of_range, CASE_CPU, 60},
        {"nested_conditionals", nested_conditionals, CASE_CPU, 60},
        {"captured_conditional", captured_conditional, CASE_CPU, 60},
        {"default_value_with_assign_default", default_value_with_assign_default, CASE_CPU, 60},
        {"default_value_without_flag", default_value_without_flag, CASE_CPU, 60},
        {"unsupported_forms_refused", unsupported_forms_refused, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
