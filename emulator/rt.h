/**
 * @file rt.h
 * @brief Inside the runtime stand-in (libcudart.so.13): the state its files share.
 *
 * The runtime is split by topic: rt_device.c (devices, properties, errors),
 * rt_memory.c (allocation, copies), rt_module.c (registration, PTX, symbols),
 * rt_launch.c (launches, function attributes), rt_stream.c (streams, events)
 * and rt_server.c (starting or joining the device server, round trips).
 * Every public entry point takes the runtime lock for its whole body, so the
 * state below is only touched under it.
 */
#ifndef EMU_RT_H
#define EMU_RT_H

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "emu.h"
#include "mem.h"
#include "vm.h"

/** Most emulated GPUs COURSE_EMU_GPUS may ask for. */
#define RT_MAX_GPUS 16
/** Shared memory a block may use without opting in, and with (sm_90). */
#define RT_SMEM_DEFAULT (48 * 1024)
#define RT_SMEM_OPTIN (227 * 1024)

/** One kernel of a loaded module (from the server's LOADED reply). */
struct rt_kernel {
    char *name;
    uint32_t nparams, param_bytes, static_smem, local_bytes, maxntid, reqntid[3];
    struct vm_param *params;
};

/** One registered fat binary (__cudaRegisterFatBinary): a module, loaded on first use. */
struct rt_module {
    const void *wrapper;       /**< the __fatBinC_Wrapper_t nvcc emitted */
    uint32_t id;               /**< the module's number on the server */
    int state;                 /**< 0 not loaded, 1 loaded, -1 cannot load */
    cudaError_t error;         /**< when state is -1 */
    struct rt_kernel *kernels; /**< when loaded */
    uint32_t nkernels;
    struct rt_module *next;
};

/** One registered kernel (__cudaRegisterFunction), found by its host stub. */
struct rt_function {
    const void *host; /**< the host stub's address: the key */
    char *name;       /**< the .entry name */
    struct rt_module *module;
    int index;             /**< into module->kernels, -1 until resolved */
    uint32_t max_dyn_smem; /**< cudaFuncAttributeMaxDynamicSharedMemorySize */
    struct rt_function *next;
};

/** One registered device variable (__cudaRegisterVar), found by its host shadow. */
struct rt_var {
    const void *host;
    char *name;
    struct rt_module *module;
    size_t size;
    uint64_t addr; /**< device address, 0 until asked */
    struct rt_var *next;
};

/** A host allocation of cudaMallocHost / cudaHostAlloc. */
struct rt_host_block {
    void *ptr;
    size_t size;
    struct rt_host_block *next;
};

/** The runtime's state: one per process. */
struct rt_state {
    pthread_mutex_t lock;
    int gpus;          /**< emulated GPUs (COURSE_EMU_GPUS) */
    uint64_t capacity; /**< device memory all GPUs share, bytes */
    struct rt_module *modules;
    uint32_t nmodules;
    struct rt_function *functions;
    struct rt_var *vars;
    struct rt_host_block *host_blocks;
    struct rt_host_block *managed; /**< cudaMallocManaged blocks (mapped at their device address) */
    /* The device, once started (rt_start()). */
    int started;  /**< 1: memory and server are up */
    pid_t pid;    /**< the process that started them */
    int sock;     /**< connection to the device server */
    pid_t server; /**< its pid when we spawned it, else 0 */
    struct emu_mem mem;
    cudaError_t sticky; /**< a fault's error, returned by every call after it */
    int leak_check;     /**< 1: allocations remember their caller (rt_track_leaks) */
    int counting;       /**< course_emu_set_counting() */

    /* The launches counted since course_emu_take_launches() last took them. */
    struct course_emu_launch *launches; /**< the first MAX_RECORDED, oldest first */
    int nlaunches;                      /**< recorded in launches */
    int launches_cap;                   /**< room in launches */
};

/** The process's runtime state. */
extern struct rt_state rt;

/** Per host thread: the current device and the last error. */
struct rt_thread {
    int device;
    cudaError_t last_error;
};

/** This thread's state. */
struct rt_thread *rt_self(void);

/** Take and release the runtime lock. */
void rt_lock(void);
void rt_unlock(void);

/** Record @p err as this thread's last error (unless cudaSuccess) and return it. */
cudaError_t rt_error(cudaError_t err);

/**
 * Start the device if it is not up yet (memory, then the server), and return
 * the sticky error, if any. Every call that touches the device begins here.
 */
cudaError_t rt_device(void);

/** Print "emulator: " and a formatted line to stderr. */
void rt_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * The host address of device range [@p p, @p p + @p bytes) inside one live
 * allocation, or NULL after saying why (naming @p who) on stderr.
 */
void *rt_host(const void *p, size_t bytes, const char *who);

/** 1 when @p p lies in the device span (device or managed memory). */
int rt_is_device(const void *p);

/**
 * One request and its reply over the server connection. Returns 0 with the
 * reply in @p reply (op and payload), or -1 after reporting that the server
 * is gone (the runtime is then broken: rt.sticky is set).
 */
struct proto_msg;
int rt_call(uint32_t op, const struct iovec *parts, int nparts, struct proto_msg *reply);

/** Send a message that has no reply (ALLOC, FREE, WRITTEN). Returns 0 or -1 as rt_call(). */
int rt_post(uint32_t op, const void *data, size_t len);

/** Tell the server the host wrote device range [@p dev, @p dev + @p bytes), and how (enum
 *  proto_wrote, with the fill byte or the source address in @p from): initcheck's record and
 *  the grader's provenance. */
void rt_wrote(const void *dev, size_t bytes, uint32_t how, uint64_t from);

/** Report, at exit, the device allocations never freed (memcheck's leak check). */
void rt_track_leaks(void);

/** Start the memory and the server: the body of rt_device(). Returns cudaSuccess or why not. */
cudaError_t rt_start(void);

/** Load module @p m if it is not yet (server round trip). Returns cudaSuccess or its error. */
cudaError_t rt_module_load(struct rt_module *m);

/** The registered function of host stub @p host, or NULL. */
struct rt_function *rt_function_of(const void *host);

/** Resolve @p f to its kernel (loading its module). Returns the kernel, or NULL with *err. */
const struct rt_kernel *rt_kernel_of(struct rt_function *f, cudaError_t *err);

/** Say "NAME is not emulated" in one line and return cudaErrorNotSupported (rt_unsupported.c). */
int rt_not_supported(const char *name);

/** Milliseconds on a monotonic clock, for events. */
double rt_now_ms(void);

#endif /* EMU_RT_H */
