/**
 * @file comm.c
 * @brief Lesson 13: the communication interface and its backends.
 *
 * Data parallelism needs three collective operations, and the trainer uses
 * nothing else: broadcast (rank 0's initial weights to everyone), all-reduce
 * mean (every replica's gradient becomes the average of all of them) and
 * small reductions (metrics, the stop flag). Backends, in order:
 *   self   one replica: every operation is the identity
 *   mpi    one replica per process; host buffers through MPI_Allreduce / MPI_Bcast
 *          (CPU ranks, or several ranks sharing a GPU, with a copy through the host)
 *   nccl   one replica per process and GPU, device buffers through ncclAllReduce;
 *          bootstrapped through MPI (rank 0's ncclUniqueId is broadcast)
 *   local  N replicas in one process on one GPU: the course's all-reduce kernel
 *          (gpu_allreduce_mean in data_parallel.cu)
 * mpi and nccl are compiled in when CMake found them (COURSE_HAVE_MPI,
 * COURSE_HAVE_NCCL); asking for a missing one is a one-line error.
 */
#include "data_parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#ifdef COURSE_HAVE_MPI
#include <mpi.h>
#endif
#if defined(COURSE_HAVE_NCCL) && defined(COURSE_HAVE_MPI)
#include <nccl.h>
#endif

#include "cuda_check.h"

int comm_available(enum comm_backend backend)
{
    switch (backend) {
    case COMM_SELF:
    case COMM_LOCAL:
        return 1;
    case COMM_MPI:
#ifdef COURSE_HAVE_MPI
        return 1;
#else
        return 0;
#endif
    case COMM_NCCL:
#if defined(COURSE_HAVE_NCCL) && defined(COURSE_HAVE_MPI)
        return 1;
#else
        return 0;
#endif
    }
    return 0;
}

int comm_launched_by_mpi(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") ||
           getenv("MPI_LOCALNRANKS");
}

int comm_init(struct comm *c, enum comm_backend backend, int nlocal, char *err, size_t err_size)
{
    static const char *const names[] = {"self", "mpi", "nccl", "local"};
    memset(c, 0, sizeof *c);
    c->backend = backend;
    c->nlocal = backend == COMM_LOCAL ? nlocal : 1;
    c->proc_size = 1;
    if (!comm_available(backend)) {
        snprintf(err, err_size, "the %s backend was not compiled in (CMake did not find %s)",
                 names[backend & 3], backend == COMM_MPI ? "MPI" : "NCCL and MPI");
        return -1;
    }
#ifdef COURSE_HAVE_MPI
    if (backend == COMM_MPI || backend == COMM_NCCL) {
        MPI_Init(NULL, NULL);
        MPI_Comm_rank(MPI_COMM_WORLD, &c->proc_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &c->proc_size);
    }
#endif
#if defined(COURSE_HAVE_NCCL) && defined(COURSE_HAVE_MPI)
    if (backend == COMM_NCCL) {
        /* One GPU per rank: rank r takes device r modulo the node's GPU count. NCCL
         * refuses two ranks on one GPU (ncclInvalidUsage): use mpi for that. */
        int ndev = 0;
        CUDA_CHECK(cudaGetDeviceCount(&ndev));
        CUDA_CHECK(cudaSetDevice(c->proc_rank % ndev));
        ncclUniqueId id;
        if (c->proc_rank == 0)
            NCCL_CHECK(ncclGetUniqueId(&id));
        MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
        ncclComm_t *nc = malloc(sizeof *nc);
        NCCL_CHECK(ncclCommInitRank(nc, c->proc_size, id, c->proc_rank));
        c->impl = nc;
    }
#endif
    c->size = c->proc_size * c->nlocal;
    return 0;
}

int comm_replica(const struct comm *c, int local)
{
    return c->proc_rank * c->nlocal + local;
}

#ifdef COURSE_HAVE_MPI
/* @p buf holds the sum of @p count ranks' gradients: make it their mean. */
static void sum_to_mean(float *buf, size_t n, int count)
{
    // Every rank now holds the SUM of the gradients; the update must use their
    // mean, so that N ranks on B / N samples each equal one rank on B samples.
    // BEGIN SOLUTION
    float inv = 1.0f / (float)count;
    for (size_t i = 0; i < n; i++)
        buf[i] *= inv;
    // END SOLUTION
}
#endif

void comm_allreduce_mean_host(struct comm *c, float *buf, size_t n)
{
    if (c->proc_size == 1)
        return;
#ifdef COURSE_HAVE_MPI
    /* MPI counts are int: reduce in chunks of at most 2^30 floats. */
    for (size_t off = 0; off < n; off += (size_t)1 << 30) {
        size_t len = n - off < ((size_t)1 << 30) ? n - off : (size_t)1 << 30;
        MPI_Allreduce(MPI_IN_PLACE, buf + off, (int)len, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    if (c->bug != COMM_BUG_SUM)
        sum_to_mean(buf, n, c->proc_size);
#else
    (void)buf;
    (void)n;
#endif
}

void comm_broadcast_host(struct comm *c, float *buf, size_t n)
{
    if (c->proc_size == 1 || c->bug == COMM_BUG_NOBCAST)
        return;
#ifdef COURSE_HAVE_MPI
    for (size_t off = 0; off < n; off += (size_t)1 << 30) {
        size_t len = n - off < ((size_t)1 << 30) ? n - off : (size_t)1 << 30;
        MPI_Bcast(buf + off, (int)len, MPI_FLOAT, 0, MPI_COMM_WORLD);
    }
#else
    (void)buf;
    (void)n;
#endif
}

void comm_allreduce_mean_device(struct comm *c, float *const *d_bufs, float *const *d_bufs_dev,
                                size_t n, float *h_staging, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    switch (c->backend) {
    case COMM_SELF:
        return;
    case COMM_LOCAL:
        if (c->nlocal > 1)
            gpu_allreduce_mean(d_bufs_dev, c->nlocal, n, c->bug == COMM_BUG_SUM, stream);
        return;
    case COMM_MPI:
        /* Through the host: plain MPI cannot read device memory (a CUDA-aware
         * MPI could take d_bufs[0] directly). */
        CUDA_CHECK(
            cudaMemcpyAsync(h_staging, d_bufs[0], n * sizeof(float), cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        comm_allreduce_mean_host(c, h_staging, n);
        CUDA_CHECK(
            cudaMemcpyAsync(d_bufs[0], h_staging, n * sizeof(float), cudaMemcpyHostToDevice, s));
        return;
    case COMM_NCCL:
#if defined(COURSE_HAVE_NCCL) && defined(COURSE_HAVE_MPI)
        NCCL_CHECK(
            ncclAllReduce(d_bufs[0], d_bufs[0], n, ncclFloat, ncclSum, *(ncclComm_t *)c->impl, s));
        if (c->bug != COMM_BUG_SUM)
            gpu_scale_check(d_bufs[0], n, 1.0f / (float)c->size, NULL, stream);
#endif
        return;
    }
}

double comm_sum_f64(struct comm *c, double x)
{
#ifdef COURSE_HAVE_MPI
    if (c->proc_size > 1)
        MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#else
    (void)c;
#endif
    return x;
}

int comm_max_int(struct comm *c, int x)
{
#ifdef COURSE_HAVE_MPI
    if (c->proc_size > 1)
        MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#else
    (void)c;
#endif
    return x;
}

int comm_all_equal_u64(struct comm *c, uint64_t x)
{
#ifdef COURSE_HAVE_MPI
    if (c->proc_size > 1) {
        uint64_t lo = x, hi = x;
        MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
        return lo == hi;
    }
#else
    (void)c;
    (void)x;
#endif
    return 1;
}

void comm_finalize(struct comm *c)
{
#if defined(COURSE_HAVE_NCCL) && defined(COURSE_HAVE_MPI)
    if (c->impl) {
        ncclCommDestroy(*(ncclComm_t *)c->impl);
        free(c->impl);
        c->impl = NULL;
    }
#endif
#ifdef COURSE_HAVE_MPI
    if (c->backend == COMM_MPI || c->backend == COMM_NCCL)
        MPI_Finalize();
#else
    (void)c;
#endif
}
