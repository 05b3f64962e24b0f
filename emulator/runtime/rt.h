/**
 * @file rt.h
 * @brief Inside the runtime stand-in (libcudart.so.13): the state its files share.
 *
 * The runtime is split by topic, and its files call down only, in the order of
 * emulator/layers.txt: rt_core.c (the state, the lock, errors, messages, limits),
 * rt_handles.c (stream and event handles), rt_hostcheck.c (host accesses to pinned memory
 * a queued copy uses), rt_server.c (starting or joining the device server, round trips),
 * rt_queue.c (the queued work of every stream and when it runs), rt_memory.c (allocation,
 * copies), rt_module.c (registration, PTX, symbols), rt_launch.c (launches, function
 * attributes), ipc/ (interprocess memory and events), graph/ (graphs, stream capture, graph
 * memory), texture/ (arrays, textures, surfaces), rt_stream.c (the stream and event API) and
 * rt_device.c (devices, properties, emu.h). Where a lower file must reach a higher one, it
 * holds a function the higher one gave it: a queued operation's run, the capture hook, the
 * free hook. Every public entry point takes the runtime lock for its whole body, so the
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

#include "alloc.h"
#include "emu.h"
#include "emu_cuda12.h"
#include "mem.h"
#include "proto.h"
#include "say.h"

/** Most emulated GPUs COURSE_EMU_GPUS may ask for. */
#define RT_MAX_GPUS 16
/** Shared memory a block may use without opting in, and with (sm_90). */
#define RT_SMEM_DEFAULT (48 * 1024)
#define RT_SMEM_OPTIN (227 * 1024)

/** One kernel of a loaded module (from the server's LOADED reply). */
struct rt_kernel {
    char *name;
    uint32_t nparams, param_bytes, static_smem, local_bytes, maxntid, reqntid[3];
    struct proto_param *params;
    uint32_t cluster[3];       /**< __cluster_dims__ (.reqnctapercluster), zeros when none */
    uint32_t explicit_cluster; /**< 1: a launch must give cluster dimensions */
    uint32_t max_cluster_rank; /**< .maxclusterrank, 0 when none */
};

/** One registered fat binary (__cudaRegisterFatBinary): a module, loaded on first use. */
struct rt_module {
    const void *wrapper;       /**< the __fatBinC_Wrapper_t nvcc emitted */
    uint32_t id;               /**< the module's number on the server */
    int state;                 /**< 0 not loaded, 1 loaded, -1 cannot load */
    int ptx_arch;              /**< the architecture its PTX targets (.target sm_86: 86) */
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
    uint32_t cluster[3]; /**< cudaFuncAttributeRequiredClusterWidth, Height, Depth (zeros: none) */
    int non_portable;    /**< cudaFuncAttributeNonPortableClusterSizeAllowed */
    int cluster_policy;  /**< cudaFuncAttributeClusterSchedulingPolicyPreference */
    int carveout;        /**< cudaFuncAttributePreferredSharedMemoryCarveout + 1 (0: never set) */
    struct rt_function *next;
};

/** One registered device variable (__cudaRegisterVar), found by its host shadow. */
struct rt_var {
    const void *host;
    char *name;
    struct rt_module *module;
    size_t size;
    uint64_t addr; /**< device address, 0 until asked */
    int managed;   /**< a __managed__ variable: host is the address of its host pointer */
    struct rt_var *next;
};

/** The latest queued copy of one direction that uses a pinned block (hostcheck's report). */
struct rt_copy_use {
    const char *what;   /**< its call */
    const void *site;   /**< the code that issued it */
    const void *stream; /**< its stream's handle (NULL: the default stream) */
};

/** A host allocation of cudaMallocHost / cudaHostAlloc (its own pages, from mmap). */
struct rt_host_block {
    void *ptr;
    size_t size;
    int readers, writers;      /**< queued copies that read it, that write it */
    struct rt_copy_use reader; /**< the latest of each */
    struct rt_copy_use writer;
    int reported; /**< hostcheck reported a host access since the latest copy was queued */
    struct rt_host_block *next;
};

/** What one queued operation does (rt_queue.c runs it). */
enum rt_work_kind { RT_NOP, RT_KERNEL, RT_COPY, RT_FILL, RT_RECORD, RT_HOST_FN, RT_CALLBACK };

struct rt_work;
struct rt_stream;

/** Running one operation: @p on and @p seq say where it was queued (NULL and 0 outside a
 *  queue). */
typedef void (*rt_run_fn)(const struct rt_work *w, struct rt_stream *on, uint64_t seq);

/** One operation: a launch, a copy, a fill, an event record or a host function. */
struct rt_work {
    enum rt_work_kind kind;
    rt_run_fn run; /**< launches, copies, fills: what runs it (rt_launch.c, rt_memory.c); NULL:
                        the queue runs the other kinds itself */
    void (*queued)(const struct rt_work *w, struct rt_stream *s); /**< or NULL: what being
                        queued on @p s does first (a copy holds the pinned memory it uses) */
    const char *what;       /**< the call that issued it, or the kernel's name */
    const void *site;       /**< where the program called it (a return address) */
    struct rt_event *event; /**< RT_RECORD: the event */
    union {
        struct {
            struct proto_launch l;
            uint8_t *params; /**< malloc'd, owned by the work */
            uint32_t bytes;
        } kernel;
        struct {
            char *d;         /**< where the bytes go, in this process (the alias for device) */
            const char *s;   /**< where they come from */
            const void *dst; /**< the destination as the program named it */
            const void *src; /**< the source as the program named it */
            size_t dpitch, spitch, width, height;
            int sides; /**< bit 0: the destination is device memory, bit 1: the source */
        } copy;
        struct {
            char *h;
            const void *p;
            size_t pitch, width, height; /**< width in bytes, whole elements */
            uint32_t value;              /**< the element's bits */
            unsigned elem;               /**< its bytes: 1, 2 or 4 */
        } fill;
        struct {
            cudaHostFn_t fn;
            void *data;
        } host;
        struct {
            cudaStreamCallback_t fn;
            void *data;
            cudaStream_t stream;
        } callback;
    } u;
};

struct rt_capture;
struct rt_node;

/** "After operation @p seq of stream @p s". */
struct rt_dep {
    struct rt_stream *s;
    uint64_t seq;
};

/** A queued operation. */
struct rt_op {
    struct rt_work w;
    struct rt_dep *deps; /**< what must be done before it, beyond its stream's order */
    int ndeps;
    struct rt_op *next;
};

/** A stream: its queue, and its capture when it is being captured into a graph. */
struct rt_stream {
    uint32_t magic;
    unsigned flags;
    int priority;
    int device;
    uint64_t issued, done; /**< operations queued so far, and run so far */
    struct rt_op *head, *tail;
    struct rt_capture *capture; /**< while captured */
    struct rt_node **after;     /**< while captured: the nodes its next node depends on */
    int nafter, capafter;
    struct rt_stream *next; /**< every stream, for cudaDeviceSynchronize */
};

struct rt_ipc_event;

/** An event. */
struct rt_event {
    uint32_t magic;
    unsigned flags;
    int recorded; /**< ever recorded */
    int complete; /**< its latest record has run */
    int pending;  /**< queued records not yet run (the event is freed after the last) */
    struct rt_stream *s;
    uint64_t seq;               /**< the latest record: operation seq of stream s */
    double ms;                  /**< host time when the latest record ran */
    struct rt_capture *capture; /**< recorded in a capture: its nodes, for a join */
    struct rt_node **after;
    int nafter;
    struct rt_ipc_event *ipc; /**< cudaEventInterprocess: the state processes share (rt_ipc.c) */
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
    int heap_made;      /**< 1: the device heap exists: cudaLimitMallocHeapSize is fixed */
    int device_set;     /**< 1: the program called cudaSetDevice (a primary context exists) */
    int remote;         /**< 1: the server holds the device memory (rt_remote.c); rt.mem then
                             holds only the blocks the host reaches */
    uint64_t faults;    /**< kernel faults reported in this process (rt_core.c's summary) */
    uint64_t findings;  /**< check findings reported: the checks', hostcheck's, leaks */

    /* The launches counted since course_emu_take_launches() last took them. */
    struct course_emu_launch *launches; /**< the first MAX_RECORDED, oldest first */
    int nlaunches;                      /**< recorded in launches */
    int launches_cap;                   /**< room in launches */
};

/** The process's runtime state. */
extern struct rt_state rt;

/** The limits cudaDeviceSetLimit sets (an H100's defaults), by enum cudaLimit. */
#define RT_LIMITS (cudaLimitPersistingL2CacheSize + 1)
extern size_t rt_limits[RT_LIMITS];

/** The emulated GPUs (COURSE_EMU_GPUS, read with the memory size at the first call), or 0 after
 *  saying why. */
int rt_gpus(void);

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

/**
 * The host address of device range [@p p, @p p + @p bytes) inside one live
 * allocation, or NULL after saying why (naming @p who) on stderr.
 */
void *rt_host(const void *p, size_t bytes, const char *who);

/** 1 when @p p lies in the device span (device or managed memory). */
int rt_is_device(const void *p);

/**
 * Device range [@p dev, @p dev + @p size) made readable and writable by the host at its own
 * address, its whole pages mapped from the device memory, and recorded in rt.managed. 0, or
 * -1 after saying why (naming @p who). Called with the lock held.
 */
int rt_show_host(void *dev, size_t size, const char *who);

/**
 * One request and its reply over the server connection. Returns 0 with the
 * reply in @p reply (op and payload), or -1 after reporting that the server
 * is gone (the runtime is then broken: rt.sticky is set).
 */
struct proto_msg;
int rt_call(uint32_t op, const struct iovec *parts, int nparts, struct proto_msg *reply);

/** rt_call() with descriptor @p fd passed along (SCM_RIGHTS) when it is >= 0. */
int rt_call_fd(uint32_t op, const struct iovec *parts, int nparts, int fd, struct proto_msg *reply);

/** Send a message that has no reply (ALLOC, FREE, WRITTEN). Returns 0 or -1 as rt_call(). */
int rt_post(uint32_t op, const void *data, size_t len);

/** rt_post() of a message in @p nparts pieces. */
int rt_post_parts(uint32_t op, const struct iovec *parts, int nparts);

/**
 * MAP: have the server show memfd @p fd from @p offset at [@p addr, @p addr + @p size) (CUDA
 * IPC); with @p fd -1, its own device memory there again, or (@p how PROTO_MAP_SPAN) its own
 * from @p offset. cudaSuccess, or the error after one line saying why.
 */
cudaError_t rt_server_map(uint64_t addr, uint64_t size, int fd, uint64_t offset, uint32_t how);

/** On a device whose memory the server holds (rt.remote, rt_remote.c): the host writes
 *  [@p dev, + @p bytes) from @p src, reads it into @p dst, copies device to device, fills with
 *  byte @p value, or shows a block the host reaches (managed, pinned) to the server. Each
 *  returns 0, or -1 when the server has gone. */
int rt_remote_write(const void *dev, const void *src, size_t bytes);
int rt_remote_read(void *dst, const void *dev, size_t bytes);
int rt_remote_copy(const void *dst, const void *src, size_t bytes);
/** rt_remote_copy() between device memory and a pinned block, answered once copied: the host
 *  reaches the pinned side itself, so it must not go on before the server has copied. */
int rt_remote_copy_pinned(const void *dst, const void *src, size_t bytes);
int rt_remote_fill(const void *dev, int value, size_t bytes);
int rt_remote_show_host(const void *dev, size_t bytes);

/** Tell the server the host wrote device range [@p dev, @p dev + @p bytes), and how (enum
 *  proto_wrote, with the fill byte or the source address in @p from): initcheck's record and
 *  the grader's provenance. */
void rt_wrote(const void *dev, size_t bytes, uint32_t how, uint64_t from);

/** What cudaFree asks first, once set (graph/rt_graph_mem.c sets it): 1 when it took @p p. */
extern int (*rt_free_hook)(const void *p);

/** cudaMalloc on behalf of the program's code at @p caller, which the leak check names; NULL:
 *  the runtime's own memory (a texture object's descriptor), which it does not report. */
cudaError_t rt_malloc_at(void **devPtr, size_t size, const void *caller);

/** Start the memory and the server: the body of rt_device(). Returns cudaSuccess or why not. */
cudaError_t rt_start(void);

/** Load module @p m if it is not yet (server round trip). Returns cudaSuccess or its error. */
cudaError_t rt_module_load(struct rt_module *m);

/** Load @p len bytes of PTX text as a new module now (the driver's cuModuleLoadData); NULL with
 *  *err after one line naming @p origin. The lock is held. */
struct rt_module *rt_module_from_ptx(const char *ptx, size_t len, const char *origin,
                                     cudaError_t *err);

/** The function of loaded module @p m whose kernel is named @p name, made on first use with
 *  itself as its host key (what the driver hands out as a CUfunction), or NULL. */
struct rt_function *rt_function_named(struct rt_module *m, const char *name);

/** The registered function of host stub @p host, or NULL. */
struct rt_function *rt_function_of(const void *host);

/** Resolve @p f to its kernel (loading its module). Returns the kernel, or NULL with *err. */
const struct rt_kernel *rt_kernel_of(struct rt_function *f, cudaError_t *err);

/** Say "NAME is not emulated" in one line and return cudaErrorNotSupported (rt_unsupported.c). */
int rt_not_supported(const char *name);

/** Refuse call @p call, whose argument @p arg (where it writes its answer, or what it runs) is
 *  NULL, in one line: cudaErrorInvalidValue, as CUDA answers, where using it would crash. */
cudaError_t rt_null(const char *call, const char *arg);

/** Milliseconds on a monotonic clock, for events. */
double rt_now_ms(void);

/* --- handles (rt_handles.c) -------------------------------------------------------------- */

/** The stream handle @p s names (0, the legacy and per-thread defaults, or a live stream),
 *  or NULL when it is not one. */
struct rt_stream *rt_stream_of(cudaStream_t s);

/** A new stream (recycled from destroyed ones when it can), or NULL. */
struct rt_stream *rt_stream_new(unsigned flags, int priority);

/** Give stream @p s back (cudaStreamDestroy). Work it still holds runs later, as any queued
 *  work does; such a stream stays listed and is never reused. */
void rt_stream_free(struct rt_stream *s);

/** Every stream, newest first (the legacy one last), through rt_stream::next. */
struct rt_stream *rt_streams(void);

/** The legacy default stream (handle 0 or cudaStreamLegacy). */
struct rt_stream *rt_legacy(void);

/** The stream an operation given no stream goes to: legacy, or per-thread in a _ptds call. */
cudaStream_t rt_default_stream(void);

/** Set for the calls of one _ptds entry point (rt_default_stream() answers per-thread). */
extern _Thread_local int rt_per_thread;

/** Stream 0 of a _ptsz entry point (code built with --default-stream per-thread): this thread's
 *  default stream. */
static inline cudaStream_t rt_ptsz(cudaStream_t s)
{
    return s ? s : cudaStreamPerThread;
}

/** A new event with @p flags, not recorded. */
struct rt_event *rt_event_new(unsigned flags);

/** The live event handle @p e names, or NULL. */
struct rt_event *rt_event_of(cudaEvent_t e);

/** Event @p e's latest record is the next operation queued on @p s (it completes when that runs;
 *  the event is freed after its last pending record once destroyed). */
void rt_event_will_record(struct rt_event *e, struct rt_stream *s);

/* --- queues (rt_queue.c) ---------------------------------------------------------------- */

/** Where the work queued on a captured stream goes instead (rt_graph.c sets it when a stream
 *  joins a capture). */
extern cudaError_t (*rt_capture_hook)(struct rt_stream *s, const struct rt_work *w);

/**
 * Queue @p w on @p s (or add it to @p s's capture), after @p dep too when not NULL. Takes
 * what @p w owns. Returns the operation's number in @p s, or 0 when it was captured.
 */
uint64_t rt_enqueue(struct rt_stream *s, const struct rt_work *w, const struct rt_dep *dep);

/**
 * rt_enqueue() of a node of a graph's launch: in the stream record it follows @p order (norder of
 * them, the nodes it depends on), not the operation queued before it. norder -1: rt_enqueue().
 */
uint64_t rt_enqueue_node(struct rt_stream *s, const struct rt_work *w, const struct rt_dep *dep,
                         const struct rt_dep *order, int norder);

/** The stream record's name for stream @p s: its handle, 0 for the legacy default stream. */
uint64_t rt_record_stream(const struct rt_stream *s);

/** The stream record: the host waited for everything @p s queued (the legacy stream: every
 *  blocking stream's too; NULL: every stream), in call @p what. rt_run_all() records its own. */
void rt_waited_stream(struct rt_stream *s, const char *what);

/** Run stream @p s's operations up to number @p seq, and what they wait for. */
void rt_run_to(struct rt_stream *s, uint64_t seq);

/** Run everything @p s has queued (for the legacy stream, every blocking stream's too). */
void rt_run_stream(struct rt_stream *s);

/** Run every stream's queued work (cudaDeviceSynchronize). */
void rt_run_all(void);

/** Run one operation now (what rt_run_to() does with each; @p s NULL outside any queue). */
void rt_execute(const struct rt_work *w, struct rt_stream *s, uint64_t seq);

/** Free what @p w owns (a kernel's parameters). */
void rt_work_free(struct rt_work *w);

/** A copy of @p w that owns copies of what @p w owns. */
void rt_work_clone(struct rt_work *out, const struct rt_work *w);

/** Check a copy as cudaMemcpy2D does and describe it as @p w; the lock is held (rt_memory.c). */
cudaError_t rt_copy_work(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind, const char *who,
                         struct rt_work *w);

/** Check a fill as cudaMemset2D does and describe it as @p w; the lock is held. */
cudaError_t rt_fill_work(void *p, size_t pitch, int value, size_t width, size_t height,
                         const char *who, struct rt_work *w);

/** The same with elements of @p elem bytes (1, 2 or 4) holding @p value, as the driver's
 *  cuMemsetD16 and D32 and graph memset nodes fill: @p width in bytes, whole elements. */
cudaError_t rt_fill_elems(void *p, size_t pitch, uint32_t value, unsigned elem, size_t width,
                          size_t height, const char *who, struct rt_work *w);

/** The device address of @p count bytes at @p offset in the device variable whose host shadow is
 *  @p symbol, into *@p dev; a range past its end is refused in one line for call @p who
 *  (rt_module.c). */
cudaError_t rt_symbol_range(const void *symbol, size_t count, size_t offset, const char *who,
                            void **dev);

/** The kind of a copy to (@p to_symbol) or from a device variable, as @p kind names it: the
 *  host's side is whatever the other memory is (a device-to-device copy stays one). */
enum cudaMemcpyKind rt_symbol_kind(enum cudaMemcpyKind kind, int to_symbol);

/** Pack a launch of @p func as rt_work, after checking it as a GPU does (rt_launch.c). */
cudaError_t rt_kernel_work(const void *func, dim3 g, dim3 b, void **args, size_t smem,
                           struct rt_work *w);

/** Launch @p old again as @p w with cluster dimensions @p cluster (zeros: none) and, when
 *  @p cooperative, as a cooperative launch, checked as such a launch is (rt_launch.c). */
cudaError_t rt_kernel_rework(const struct rt_work *old, const uint32_t cluster[3], int cooperative,
                             struct rt_work *w);

/** What launch @p w runs: its kernel's host stub into *@p func, and a new array (the caller
 *  frees it) of pointers to each argument in w's parameters into *@p args; the lock is held.
 *  cudaErrorInvalidDeviceFunction when no registered function is that kernel. */
cudaError_t rt_kernel_args(const struct rt_work *w, const void **func, void ***args);

/** The pinned block holding all of [@p p, @p p + @p n), or NULL (rt_hostcheck.c). */
struct rt_host_block *rt_pinned(const void *p, size_t n);

/* --- the stream record (rt_record.c) ------------------------------------------------------ */

/** 1 when the device server keeps the stream record: a grader observes the device
 *  (COURSE_EMU_FD) or the time model runs (COURSE_EMU_MODEL), and the device is up. */
int rt_record_on(void);

/** Record operation @p w, number @p seq of stream @p s, which follows @p deps (ndeps of them);
 *  @p graph: a node of a graph's launch. The lock is held. */
void rt_record_op(const struct rt_stream *s, uint64_t seq, const struct rt_work *w,
                  const struct rt_dep *deps, int ndeps, int graph);

/** Record a wait of the host for @p deps (ndeps of them, maybe none), in call @p what. The lock
 *  is held. */
void rt_record_sync(const struct rt_dep *deps, int ndeps, const char *what);

/* --- IPC (rt_ipc.c) ----------------------------------------------------------------------- */

/** Give event @p e the state other processes can share (cudaEventInterprocess). */
cudaError_t rt_ipc_event_new(struct rt_event *e);

/** Event @p e is destroyed: drop its hold on the shared state (queued work keeps its own). */
void rt_ipc_event_drop(struct rt_event *e);

/** cudaEventRecord of interprocess event @p e on @p s: take the next ticket; when @p s reaches
 *  it, the ticket is done for every process. The lock is held. */
void rt_ipc_record(struct rt_stream *s, struct rt_event *e);

/** cudaStreamWaitEvent of @p s on interprocess event @p e: @p s waits, when it gets there,
 *  until the latest ticket taken now is done, in whichever process took it. The lock is held. */
void rt_ipc_wait(struct rt_stream *s, struct rt_event *e);

/** 1 when every record of interprocess event @p e taken so far, in any process, is done;
 *  with @p wait, first wait for them. The lock is held. */
int rt_ipc_done(struct rt_event *e, int wait);

/* --- hostcheck (rt_hostcheck.c) --------------------------------------------------------- */

/** 1 when COURSE_EMU_CHECKS names host: pinned buffers are protected while copies use them. */
extern int rt_hostcheck;

/** Start hostcheck (rt_start(), when COURSE_EMU_CHECKS names host). */
void rt_hostcheck_start(void);

/** Queued copy @p w on @p s reads pinned block @p b (or writes it, when @p written): protect
 *  it from the host until the copy runs. */
void rt_hostcheck_hold(struct rt_host_block *b, const struct rt_work *w, cudaStream_t s,
                       int written);

/** That copy (@p written as given to rt_hostcheck_hold()) is running: it holds the block no
 *  more. */
void rt_hostcheck_release(struct rt_host_block *b, int written);

/** Open block @p b to the runtime's own copy, or (@p open 0) protect it again as the copies
 *  still queued need. */
void rt_hostcheck_open(struct rt_host_block *b, int open);

/** "FILE:LINE (FUNCTION)" or the best this process can say of code address @p pc. */
void rt_code_name(const void *pc, char *buf, size_t size);

/** Forget the advice and prefetches over managed block [@p p, @p p + @p size), freed (the lock
 *  is held; rt_managed.c). */
void rt_managed_forget(const void *p, size_t size);

/* --- graph memory (rt_graph_mem.c) -------------------------------------------------------- */

struct rt_gm_block;

/** A new block of graph memory of @p bytes, not in use; NULL when the memory is full. */
struct rt_gm_block *rt_gm_new(size_t bytes);

/** The block of graph memory at @p p, or NULL. */
struct rt_gm_block *rt_gm_find(const void *p);

/** The address of block @p b, and its size in bytes. */
void *rt_gm_address(const struct rt_gm_block *b);
size_t rt_gm_size(const struct rt_gm_block *b);

/** The host functions an alloc node and a free node run: block @p block in use, or not. */
void rt_gm_alloc_run(void *block);
void rt_gm_free_run(void *block);

/* --- graphs (rt_graph.c) ---------------------------------------------------------------- */

/** Add @p w to the capture of stream @p s, after the stream's last captured nodes. */
cudaError_t rt_capture_add(struct rt_stream *s, const struct rt_work *w);

/** cudaEventRecord on captured stream @p s: @p e marks its last captured nodes. */
cudaError_t rt_capture_record(struct rt_stream *s, struct rt_event *e);

/** cudaStreamWaitEvent on an event recorded in a capture: @p s joins it, after those nodes. */
cudaError_t rt_capture_wait(struct rt_stream *s, struct rt_event *e);

#endif /* EMU_RT_H */
