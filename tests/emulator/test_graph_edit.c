/**
 * @file test_graph_edit.c
 * @brief A graph's nodes read back and changed after they were added, as tutorials on updating
 *        graphs do: parameters and kernel nodes' attributes read and set in the graph and in an
 *        instantiated graph, nodes disabled, nodes and edges taken away, clones, a DOT file,
 *        user objects. Every result is
 *        checked against the host's answer. CTest runs every case on the emulator.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_judge.h"
#include "course_test.h"
#include "emu_cuda12.h"
#include "test_async.h"

/* Not a multiple of the kernel's 128-thread blocks. */
enum { N = 1031 };

/* The graph fill (d[N..2N) = 0), copy in (h -> d), scale (d -> d + N), copy out (d + N -> h +
 * N), host function (++calls), each after the one before (the fill a root beside the copy in). */
struct g5 {
    int *h, *d, mul, add, n, calls, *src, *dst;
    void *args[5];
    cudaGraph_t g;
    cudaGraphNode_t fill, in, kern, out, host;
};

static void count_call(void *p)
{
    ++*(int *)p;
}

static void g5_build(struct g5 *t)
{
    t->n = N, t->mul = 3, t->add = -4, t->calls = 0;
    ck_assert_int_eq(cudaMallocHost((void **)&t->h, 3 * N * sizeof(int)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&t->d, 2 * N * sizeof(int)), cudaSuccess);
    for (int i = 0; i < 3 * N; i++)
        t->h[i] = (i * 37) % 101 - 50;
    ck_assert_int_eq(cudaGraphCreate(&t->g, 0), cudaSuccess);
    struct cudaMemsetParams mp = {t->d + N, 0, 0, 4, N, 1};
    ck_assert_int_eq(cudaGraphAddMemsetNode(&t->fill, t->g, NULL, 0, &mp), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemcpyNode1D(&t->in, t->g, NULL, 0, t->d, t->h, N * sizeof(int),
                                              cudaMemcpyHostToDevice),
                     cudaSuccess);
    t->src = t->d, t->dst = t->d + N;
    void *args[] = {&t->src, &t->dst, &t->n, &t->mul, &t->add};
    memcpy(t->args, args, sizeof args);
    struct cudaKernelNodeParams kp = {
        (void *)async_scale_kernel(), {(N + 127) / 128, 1, 1}, {128, 1, 1}, 0, t->args, NULL};
    cudaGraphNode_t before[] = {t->fill, t->in};
    ck_assert_int_eq(cudaGraphAddKernelNode(&t->kern, t->g, before, 2, &kp), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemcpyNode1D(&t->out, t->g, &t->kern, 1, t->h + N, t->d + N,
                                              N * sizeof(int), cudaMemcpyDeviceToHost),
                     cudaSuccess);
    struct cudaHostNodeParams hp = {count_call, &t->calls};
    ck_assert_int_eq(cudaGraphAddHostNode(&t->host, t->g, &t->out, 1, &hp), cudaSuccess);
}

static void g5_free(struct g5 *t)
{
    cudaGraphDestroy(t->g);
    cudaFreeHost(t->h);
    cudaFree(t->d);
}

/* Launch @p x and check h[at + i] == mul * h[i] + add for every i < N (mul 0: all add). */
static void g5_check(struct g5 *t, cudaGraphExec_t x, int at, int mul, int add)
{
    for (int i = N; i < 3 * N; i++)
        t->h[i] = 0x7f7f7f7f;
    ck_assert_int_eq(cudaGraphLaunch(x, 0), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    for (int i = 0; i < N; i++)
        ck_assert_msg(t->h[at + i] == mul * t->h[i] + add, "h[%d] = %d, want %d * %d + %d", at + i,
                      t->h[at + i], mul, t->h[i], add);
}

/* Each node's parameters read back as given; the kernel's changed through what came back. */
START_TEST(parameters_read_back_and_set)
{
    struct g5 t;
    g5_build(&t);
    struct cudaKernelNodeParams kp;
    ck_assert_int_eq(cudaGraphKernelNodeGetParams(t.kern, &kp), cudaSuccess);
    ck_assert_ptr_eq(kp.func, async_scale_kernel());
    ck_assert(kp.gridDim.x == (N + 127) / 128 && kp.blockDim.x == 128 && kp.sharedMemBytes == 0);
    ck_assert(*(int **)kp.kernelParams[0] == t.d && *(int *)kp.kernelParams[2] == N &&
              *(int *)kp.kernelParams[3] == 3 && *(int *)kp.kernelParams[4] == -4);
    int mul = -7;
    kp.kernelParams[3] = &mul; /* the others stay the node's own copies */
    ck_assert_int_eq(cudaGraphKernelNodeSetParams(t.kern, &kp), cudaSuccess);
    struct cudaMemcpy3DParms cp;
    ck_assert_int_eq(cudaGraphMemcpyNodeGetParams(t.in, &cp), cudaSuccess);
    ck_assert(cp.srcPtr.ptr == t.h && cp.dstPtr.ptr == t.d && cp.kind == cudaMemcpyHostToDevice &&
              cp.extent.width == N * sizeof(int) && cp.extent.height == 1);
    struct cudaMemsetParams mp;
    ck_assert_int_eq(cudaGraphMemsetNodeGetParams(t.fill, &mp), cudaSuccess);
    ck_assert(mp.dst == t.d + N && mp.elementSize == 4 && mp.width == N && mp.value == 0);
    struct cudaHostNodeParams hp;
    ck_assert_int_eq(cudaGraphHostNodeGetParams(t.host, &hp), cudaSuccess);
    ck_assert(hp.fn == count_call && hp.userData == &t.calls);
    ck_assert_int_eq(cudaGraphMemcpyNodeSetParams1D(t.out, t.h + 2 * N, t.d + N, N * sizeof(int),
                                                    cudaMemcpyDeviceToHost),
                     cudaSuccess);
    cudaGraphExec_t x;
    ck_assert_int_eq(cudaGraphInstantiate(&x, t.g, 0), cudaSuccess);
    g5_check(&t, x, 2 * N, -7, -4);
    ck_assert_int_eq(t.calls, 1);
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaGraphKernelNodeGetParams(t.in, &kp),
                        "is not a kernel node");
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaGraphHostNodeGetParams(t.kern, &hp),
                        "is not a host node");
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaGraphMemsetNodeSetParams(t.out, &mp),
                        "is not a fill node");
    cudaGetLastError();
    cudaGraphExecDestroy(x);
    g5_free(&t);
}
END_TEST

/* Parameters set in an instantiated graph change its launches, not the graph; a disabled
 * kernel leaves the fill's zeros to be copied out. */
START_TEST(instantiated_graph_set_and_disabled)
{
    struct g5 t;
    g5_build(&t);
    cudaGraphExec_t x, y;
    int other = 0;
    ck_assert_int_eq(cudaGraphInstantiate(&x, t.g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphExecMemcpyNodeSetParams1D(x, t.out, t.h + 2 * N, t.d + N,
                                                        N * sizeof(int), cudaMemcpyDeviceToHost),
                     cudaSuccess);
    struct cudaHostNodeParams hp = {count_call, &other};
    ck_assert_int_eq(cudaGraphExecHostNodeSetParams(x, t.host, &hp), cudaSuccess);
    struct cudaMemsetParams mp = {t.d + N, 0, 0xDEADBEEF, 4, N, 1}; /* bytes that differ */
    ck_assert_int_eq(cudaGraphExecMemsetNodeSetParams(x, t.fill, &mp), cudaSuccess);
    g5_check(&t, x, 2 * N, 3, -4);
    ck_assert(other == 1 && t.calls == 0);
    unsigned on = 9;
    ck_assert_int_eq(cudaGraphNodeSetEnabled(x, t.kern, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphNodeGetEnabled(x, t.kern, &on), cudaSuccess);
    ck_assert_uint_eq(on, 0);
    g5_check(&t, x, 2 * N, 0, (int)0xDEADBEEF);
    ck_assert_int_eq(cudaGraphNodeSetEnabled(x, t.kern, 1), cudaSuccess);
    g5_check(&t, x, 2 * N, 3, -4);
    ck_assert_int_eq(cudaGraphInstantiate(&y, t.g, 0), cudaSuccess);
    g5_check(&t, y, N, 3, -4); /* the graph kept its own */
    ck_assert_int_eq(t.calls, 1);
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaGraphNodeSetEnabled(x, t.host, 0),
                        "only those can be disabled");
    cudaGetLastError();
    cudaGraphExecDestroy(x);
    cudaGraphExecDestroy(y);
    g5_free(&t);
}
END_TEST

/* Does the file at @p path hold @p what? */
static int file_has(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    return strstr(text, what) != NULL;
}

/* Edges listed and removed, a node taken away, a clone's nodes found, a DOT file. */
START_TEST(shape_read_and_changed)
{
    struct g5 t;
    g5_build(&t);
    size_t n = 0;
    ck_assert_int_eq(cudaGraphGetEdges(t.g, NULL, NULL, NULL, &n), cudaSuccess);
    ck_assert_uint_eq(n, 4);
    cudaGraphNode_t from[4], to[4], dep[2];
    ck_assert_int_eq(cudaGraphGetEdges(t.g, from, to, NULL, &n), cudaSuccess);
    ck_assert(from[2] == t.kern && to[2] == t.out);
    n = 2;
    ck_assert_int_eq(cudaGraphNodeGetDependentNodes(t.in, dep, NULL, &n), cudaSuccess);
    ck_assert(n == 1 && dep[0] == t.kern);
    cudaGraph_t c;
    cudaGraphNode_t kc;
    ck_assert_int_eq(cudaGraphClone(&c, t.g), cudaSuccess);
    ck_assert_int_eq(cudaGraphNodeFindInClone(&kc, t.kern, c), cudaSuccess);
    enum cudaGraphNodeType type;
    ck_assert_int_eq(cudaGraphNodeGetType(kc, &type), cudaSuccess);
    ck_assert(kc != t.kern && type == cudaGraphNodeTypeKernel);
    ck_assert_int_eq(cudaGraphDestroyNode(t.host), cudaSuccess);
    ck_assert_int_eq(cudaGraphRemoveDependencies(t.g, &t.fill, &t.kern, NULL, 1), cudaSuccess);
    ck_assert_int_eq(cudaGraphGetEdges(t.g, NULL, NULL, NULL, &n), cudaSuccess);
    ck_assert_uint_eq(n, 2);
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue,
                        cudaGraphRemoveDependencies(t.g, &t.fill, &t.kern, NULL, 1),
                        "does not depend on");
    cudaGetLastError();
    ck_assert_int_eq(cudaGraphDestroyNode(t.fill), cudaSuccess); /* unordered with the kernel */
    cudaGraphExec_t x;
    ck_assert_int_eq(cudaGraphInstantiate(&x, t.g, 0), cudaSuccess);
    g5_check(&t, x, N, 3, -4);
    ck_assert_int_eq(t.calls, 0);
    char path[4200];
    snprintf(path, sizeof path, "%s/graph.dot", course_sandbox_dir());
    ck_assert_int_eq(cudaGraphDebugDotPrint(c, path, 0), cudaSuccess);
    ck_assert(file_has(path, "kernel") && file_has(path, "_2\" -> \"") && file_has(path, "host"));
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(c);
    g5_free(&t);
}
END_TEST

/* A kernel node's attributes: a hint kept and read back, cluster dimensions that make its launch
 * a cluster launch (checked as one: 9 blocks do not split into clusters of 2), copied to another
 * graph's kernel node; both graphs still compute the right answer. */
START_TEST(kernel_node_attributes)
{
    struct g5 t, u;
    g5_build(&t);
    g5_build(&u);
    cudaKernelNodeAttrValue v = {0}, back;
    v.priority = 3;
    ck_assert_int_eq(cudaGraphKernelNodeSetAttribute(t.kern, cudaLaunchAttributePriority, &v),
                     cudaSuccess);
    memset(&v, 0, sizeof v);
    v.clusterDim.x = 3, v.clusterDim.y = 1, v.clusterDim.z = 1;
    ck_assert_int_eq(
        cudaGraphKernelNodeSetAttribute(t.kern, cudaLaunchAttributeClusterDimension, &v),
        cudaSuccess);
    v.clusterDim.x = 2;
    EXPECT_REFUSED_WITH(
        cudaErrorInvalidClusterSize,
        cudaGraphKernelNodeSetAttribute(t.kern, cudaLaunchAttributeClusterDimension, &v),
        "not a whole number of clusters");
    cudaGetLastError();
    ck_assert_int_eq(cudaGraphKernelNodeCopyAttributes(u.kern, t.kern), cudaSuccess);
    ck_assert_int_eq(
        cudaGraphKernelNodeGetAttribute(u.kern, cudaLaunchAttributeClusterDimension, &back),
        cudaSuccess);
    ck_assert(back.clusterDim.x == 3 && back.clusterDim.y == 1 && back.clusterDim.z == 1);
    ck_assert_int_eq(cudaGraphKernelNodeGetAttribute(u.kern, cudaLaunchAttributePriority, &back),
                     cudaSuccess);
    ck_assert_int_eq(back.priority, 3);
    cudaGraphExec_t x, y;
    ck_assert_int_eq(cudaGraphInstantiate(&x, t.g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&y, u.g, 0), cudaSuccess);
    g5_check(&t, x, N, 3, -4);
    g5_check(&u, y, N, 3, -4);
    cudaGraphExecDestroy(x);
    cudaGraphExecDestroy(y);
    g5_free(&t);
    g5_free(&u);
}
END_TEST

/* A graph holding t's graph as a child node, instantiated; the child's works then take the
 * parameters of u's graph (same operations, u's buffers and a kernel of -7 x - 4), and a graph
 * of other operations is refused. */
START_TEST(child_graph_set_in_an_instantiated_graph)
{
    struct g5 t, u;
    g5_build(&t);
    g5_build(&u);
    struct cudaKernelNodeParams kp;
    ck_assert_int_eq(cudaGraphKernelNodeGetParams(u.kern, &kp), cudaSuccess);
    int mul = -7;
    kp.kernelParams[3] = &mul;
    ck_assert_int_eq(cudaGraphKernelNodeSetParams(u.kern, &kp), cudaSuccess);
    cudaGraph_t parent, other;
    cudaGraphNode_t child, empty;
    cudaGraphExec_t x;
    ck_assert_int_eq(cudaGraphCreate(&parent, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddChildGraphNode(&child, parent, NULL, 0, t.g), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&x, parent, 0), cudaSuccess);
    g5_check(&t, x, N, 3, -4);
    ck_assert_int_eq(cudaGraphExecChildGraphNodeSetParams(x, child, u.g), cudaSuccess);
    g5_check(&u, x, N, -7, -4);
    ck_assert(t.calls == 1 && u.calls == 1);
    ck_assert_int_eq(cudaGraphCreate(&other, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddEmptyNode(&empty, other, NULL, 0), cudaSuccess);
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue,
                        cudaGraphExecChildGraphNodeSetParams(x, child, other),
                        "a graph of other operations");
    cudaGetLastError();
    g5_check(&u, x, N, -7, -4);
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(other);
    cudaGraphDestroy(parent);
    g5_free(&t);
    g5_free(&u);
}
END_TEST

static void destroyed(void *p)
{
    ++*(int *)p;
}

/* A user object lives while the program, a graph or an instantiated graph holds it. */
START_TEST(user_objects_live_while_referenced)
{
    int gone = 0;
    cudaUserObject_t o;
    cudaGraph_t g, c;
    cudaGraphExec_t x;
    ck_assert_int_eq(cudaUserObjectCreate(&o, &gone, destroyed, 1, cudaUserObjectNoDestructorSync),
                     cudaSuccess);
    ck_assert_int_eq(cudaGraphCreate(&g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphRetainUserObject(g, o, 1, cudaGraphUserObjectMove), cudaSuccess);
    ck_assert_int_eq(cudaGraphClone(&c, g), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(c), cudaSuccess);
    ck_assert_int_eq(gone, 0);
    ck_assert_int_eq(cudaGraphLaunch(x, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphExecDestroy(x), cudaSuccess);
    ck_assert_int_eq(gone, 1);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"parameters_read_back_and_set", parameters_read_back_and_set, CASE_CPU, 60},
        {"instantiated_graph_set_and_disabled", instantiated_graph_set_and_disabled, CASE_CPU, 60},
        {"shape_read_and_changed", shape_read_and_changed, CASE_CPU, 60},
        {"kernel_node_attributes", kernel_node_attributes, CASE_CPU, 60},
        {"child_graph_set_in_an_instantiated_graph", child_graph_set_in_an_instantiated_graph,
         CASE_CPU, 60},
        {"user_objects_live_while_referenced", user_objects_live_while_referenced, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
