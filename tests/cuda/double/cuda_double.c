/*
 * The host double of the CUDA runtime and of the backend's kernels: see
 * cuda_double.h for what it models and why.
 */
#include "cuda_double.h"
#include "cuda/cuda_internal.h" /* <cuda_runtime_api.h> resolves to the double's */
#include "cuda/dev_algo.h"
#include "../ntt_replay.h" /* the device's NTT tables and launch lists, replayed */
#include "cuzk/msm.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- state --------------------------------------------------------------------- */
typedef struct op {
    void (*run)(void *arg);
    void *arg;
    uint64_t seq;
    struct op *next;
} op;

struct CUstream_st {
    op *head, *tail;
    uint64_t queued;         /* sequence number of the last operation queued */
    bool lazy, running;
    struct CUstream_st *next; /* every live stream, for device synchronisation */
};

struct CUevent_st {
    cudaStream_t s; /* NULL until recorded */
    uint64_t seq;
};

/* Device allocations carry a header: a tag that cudaFree checks, the size,
 * and the links of the list of live allocations (what a reset after a
 * sticky fault frees: a broken context cannot free its own). */
typedef struct alloc_hdr {
    uint64_t tag, bytes;
    struct alloc_hdr *prev, *next;
} alloc_hdr;
#define HDR 64
_Static_assert(sizeof(alloc_hdr) <= HDR, "the header fits its slot");
#define TAG UINT64_C(0x6375646164626c65)
#define POISON 0xa5

static pthread_mutex_t mu;
static pthread_once_t mu_once = PTHREAD_ONCE_INIT;
static struct {
    size_t total, used, nalloc;
    uint64_t mallocs, calls, h2d, h2d_queued;
    uint64_t fail_malloc, fail_call; /* absolute counts at which to fail; 0: none */
    uint64_t syncs, hook_sync;       /* cudaStreamSynchronize calls; the one that runs the hook (0: none) */
    void (*hook)(void *);
    void *hook_arg;
    bool sticky, broken;
    cudaError_t last;
    unsigned lazy_mask, nstreams;
    cudaStream_t streams;
    alloc_hdr *allocs; /* device memory */
    alloc_hdr *objs;   /* pinned host buffers and events */
} D;

/* A process that never calls czd_reset (a test of a layer above, which
 * only sees the runtime) gets a 4 GiB device whose streams follow
 * $CZD_LAZY_MASK (czd_set_lazy_mask; default all eager). */
#define DEFAULT_DEVICE_BYTES ((size_t)4 << 30)

static void mu_init(void)
{
    D.total = DEFAULT_DEVICE_BYTES;
    const char *lm = getenv("CZD_LAZY_MASK");
    if (lm) D.lazy_mask = (unsigned)strtoul(lm, NULL, 0);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&mu, &a);
    pthread_mutexattr_destroy(&a);
}

/* ---- happens-before under ThreadSanitizer ----------------------------------------------
 * Every call takes the double's one lock. To TSan that lock would order
 * any two calls of two threads, and so every host access around them: a
 * race in the driver's own code (two threads filling one staging buffer,
 * say) would go unseen. Under TSan the double's lock and bookkeeping are
 * therefore "quiet" (their synchronisation and memory accesses ignored)
 * and the only edges are those the CUDA runtime guarantees:
 *   a call -> the operation it queues (acquire/release on the operation);
 *   an operation -> the next one on its stream (on the stream);
 *   an event's record -> cudaEventSynchronize and cudaStreamWaitEvent's
 *     operation (on the event);
 *   a stream's operations -> cudaStreamSynchronize, and every stream's ->
 *     cudaDeviceSynchronize, cudaFree, cudaFreeHost, cudaStreamDestroy.
 * The operations themselves (copies, kernels) run with their accesses
 * checked, so a host write racing with a copy still reading the buffer,
 * or two host threads using one buffer unordered, is reported. Outside
 * TSan all of this compiles to nothing. */
#if defined(__SANITIZE_THREAD__)
#define CZD_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CZD_TSAN 1
#endif
#endif

#ifdef CZD_TSAN
#include <sanitizer/tsan_interface.h>
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
void AnnotateIgnoreSyncBegin(const char *file, int line);
void AnnotateIgnoreSyncEnd(const char *file, int line);

static _Thread_local int quiet_depth;

static void quiet_begin(void)
{
    AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
    quiet_depth++;
}

static void quiet_end(void)
{
    quiet_depth--;
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
    AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
}

/* leaves every quiet level (an operation's accesses are checked); returns
 * how many, for loud_end */
static int loud_begin(void)
{
    int q = quiet_depth;
    while (quiet_depth) quiet_end();
    return q;
}

static void loud_end(int q)
{
    while (q-- > 0) quiet_begin();
}

static void hb_release(void *a)
{
    int q = loud_begin();
    __tsan_release(a);
    loud_end(q);
}

static void hb_acquire(void *a)
{
    int q = loud_begin();
    __tsan_acquire(a);
    loud_end(q);
}
#else
static void quiet_begin(void) {}
static void quiet_end(void) {}
static int loud_begin(void) { return 0; }
static void loud_end(int q) { (void)q; }
static void hb_release(void *a) { (void)a; }
static void hb_acquire(void *a) { (void)a; }
#endif

static void lock(void)
{
    quiet_begin();
    pthread_once(&mu_once, mu_init);
    pthread_mutex_lock(&mu);
}

static void unlock(void)
{
    pthread_mutex_unlock(&mu);
    quiet_end();
}

/* Every call that can fail starts here (under the lock): counts it and
 * fires an armed fault. */
static cudaError_t enter(void)
{
    lock();
    D.calls++;
    if (D.broken) return cudaErrorLaunchFailure;
    if (D.fail_call && D.calls == D.fail_call) {
        D.fail_call = 0;
        if (D.sticky) D.broken = true;
        return cudaErrorLaunchFailure;
    }
    return cudaSuccess;
}

static cudaError_t leave(cudaError_t e)
{
    if (e != cudaSuccess) D.last = e;
    unlock();
    return e;
}

/* ---- streams --------------------------------------------------------------------- */
/* Runs s's operations up to sequence number upto. A stream forced while it
 * runs would be a wait cycle, which deadlocks a real device. */
static void run_stream(cudaStream_t s, uint64_t upto)
{
    if (s->running) {
        fprintf(stderr, "cuda double: stream %p waits on itself (a dependency cycle)\n", (void *)s);
        abort();
    }
    s->running = true;
    while (s->head && s->head->seq <= upto) {
        op *o = s->head;
        s->head = o->next;
        if (!s->head) s->tail = NULL;
        if (!D.broken) { /* after a sticky fault nothing runs */
            int q = loud_begin();
            hb_acquire(o); /* after the call that queued it */
            hb_acquire(s); /* after the stream's earlier operations */
            o->run(o->arg);
            hb_release(s);
            loud_end(q);
        }
        free(o->arg);
        free(o);
    }
    s->running = false;
}

/* Runs every stream to its end; the caller is after all of it. */
static void run_all(void)
{
    for (cudaStream_t s = D.streams; s; s = s->next) run_stream(s, UINT64_MAX);
    for (cudaStream_t s = D.streams; s; s = s->next) hb_acquire(s);
}

/* Queues run(arg) on s (arg: malloc'd, freed after the run); an eager
 * stream runs it at once. Returns false when out of host memory. */
static bool enqueue(cudaStream_t s, void (*run)(void *), void *arg)
{
    op *o = malloc(sizeof *o);
    if (!o) {
        free(arg);
        return false;
    }
    o->run = run;
    o->arg = arg;
    o->seq = ++s->queued;
    o->next = NULL;
    if (s->tail) s->tail->next = o;
    else s->head = o;
    s->tail = o;
    hb_release(o);
    if (!s->lazy) run_stream(s, o->seq);
    return true;
}

typedef struct {
    cudaStream_t s;
    uint64_t seq;
    cudaEvent_t ev;
} wait_arg;

static void run_wait(void *arg)
{
    wait_arg *w = arg;
    quiet_begin();
    run_stream(w->s, w->seq);
    quiet_end();
    hb_acquire(w->ev); /* the record's history, for this stream's later operations */
}

/* an event's record: what came before it on the stream happens before
 * whatever waits on the event */
static void run_record(void *arg) { hb_release(*(cudaEvent_t *)arg); }

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
    bool h2d;
} copy_arg;

static void run_copy(void *arg)
{
    copy_arg *c = arg;
    memcpy(c->dst, c->src, c->bytes);
    quiet_begin();
    if (c->h2d) D.h2d += c->bytes;
    quiet_end();
}

/* A tracked block of bytes after a header, zeroed (fill: its byte), on
 * list *l; NULL when out of host memory. */
static void *track(alloc_hdr **l, size_t bytes, int fill)
{
    alloc_hdr *h = malloc(HDR + bytes);
    if (!h) return NULL;
    *h = (alloc_hdr){ TAG, bytes, NULL, *l };
    if (*l) (*l)->prev = h;
    *l = h;
    memset((unsigned char *)h + HDR, fill, bytes);
    return (unsigned char *)h + HDR;
}

/* Unlinks and frees p (from track); its size. A pointer that is not one
 * is a bug of the caller: abort with its name. */
static size_t untrack(alloc_hdr **l, void *p, const char *what)
{
    alloc_hdr *h = (alloc_hdr *)((unsigned char *)p - HDR);
    if (h->tag != TAG) {
        fprintf(stderr, "cuda double: %s(%p): not an allocation of the double\n", what, p);
        abort();
    }
    h->tag = 0;
    if (h->prev) h->prev->next = h->next;
    else *l = h->next;
    if (h->next) h->next->prev = h->prev;
    size_t bytes = h->bytes;
    free(h);
    return bytes;
}

static void untrack_all(alloc_hdr **l)
{
    while (*l) {
        alloc_hdr *h = *l;
        *l = h->next;
        free(h);
    }
}

/* ---- the runtime ---------------------------------------------------------------------- */
const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    }
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorLaunchFailure: return "unspecified launch failure (injected by the host double)";
    default: return "error (host double)";
    }
}

cudaError_t cudaGetLastError(void)
{
    lock();
    cudaError_t e = D.last;
    D.last = cudaSuccess;
    if (D.broken) e = cudaErrorLaunchFailure; /* a sticky error stays */
    unlock();
    return e;
}

cudaError_t cudaGetDeviceCount(int *n)
{
    cudaError_t e = enter();
    *n = e == cudaSuccess ? 1 : 0;
    return leave(e);
}

cudaError_t cudaSetDevice(int dev)
{
    cudaError_t e = enter();
    if (e == cudaSuccess && dev != 0) e = cudaErrorInvalidDevice;
    return leave(e);
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int dev)
{
    cudaError_t e = enter();
    if (e == cudaSuccess && dev != 0) e = cudaErrorInvalidDevice;
    if (e == cudaSuccess) {
        memset(prop, 0, sizeof *prop);
        snprintf(prop->name, sizeof prop->name, "cuzk host double");
        prop->totalGlobalMem = D.total;
        prop->major = 9;
        prop->minor = 0;
        prop->multiProcessorCount = 1;
    }
    return leave(e);
}

cudaError_t cudaDeviceSynchronize(void)
{
    cudaError_t e = enter();
    if (e == cudaSuccess) run_all();
    return leave(e);
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    cudaError_t e = enter();
    if (e == cudaSuccess) {
        *free_bytes = D.total - D.used;
        *total_bytes = D.total;
    }
    return leave(e);
}

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    *p = NULL;
    cudaError_t e = enter();
    if (e != cudaSuccess) return leave(e);
    D.mallocs++;
    if (D.fail_malloc && D.mallocs == D.fail_malloc) {
        D.fail_malloc = 0;
        return leave(cudaErrorMemoryAllocation);
    }
    if (bytes == 0) return leave(cudaErrorInvalidValue);
    if (bytes > D.total - D.used) return leave(cudaErrorMemoryAllocation);
    /* device memory is never zero by chance */
    if (!(*p = track(&D.allocs, bytes, POISON))) return leave(cudaErrorMemoryAllocation);
    D.used += bytes;
    D.nalloc++;
    return leave(cudaSuccess);
}

/* cudaFree synchronises the device first, as the runtime's does. Always
 * releases (a broken device's memory goes with its process). */
cudaError_t cudaFree(void *p)
{
    lock();
    if (!p) {
        unlock();
        return cudaSuccess;
    }
    run_all();
    D.used -= untrack(&D.allocs, p, "cudaFree");
    D.nalloc--;
    unlock();
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
    cudaError_t e = enter();
    *p = NULL;
    if (e == cudaSuccess && !(*p = track(&D.objs, bytes ? bytes : 1, 0))) e = cudaErrorMemoryAllocation;
    return leave(e);
}

cudaError_t cudaFreeHost(void *p)
{
    lock();
    run_all();
    if (p) untrack(&D.objs, p, "cudaFreeHost");
    unlock();
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    (void)flags;
    *s = NULL;
    cudaError_t e = enter();
    if (e != cudaSuccess) return leave(e);
    cudaStream_t t = calloc(1, sizeof *t);
    if (!t) return leave(cudaErrorMemoryAllocation);
    t->lazy = D.lazy_mask >> (D.nstreams % 2) & 1; /* contexts create streams in pairs */
    D.nstreams++;
    t->next = D.streams;
    D.streams = t;
    *s = t;
    return leave(cudaSuccess);
}

/* Pending work completes first, as on a device (none runs after a sticky
 * fault). */
cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    lock();
    run_stream(s, UINT64_MAX);
    hb_acquire(s);
    for (cudaStream_t *pp = &D.streams; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    free(s);
    unlock();
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    /* the hook runs first, outside the lock, so that it can drive other
     * threads' calls while this one waits */
    void (*hook)(void *) = NULL;
    void *hook_arg = NULL;
    lock();
    if (++D.syncs == D.hook_sync) {
        hook = D.hook;
        hook_arg = D.hook_arg;
        D.hook_sync = 0;
    }
    unlock();
    if (hook) hook(hook_arg);
    cudaError_t e = enter();
    if (e == cudaSuccess) {
        run_stream(s, UINT64_MAX);
        hb_acquire(s);
    }
    return leave(e);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned flags)
{
    (void)flags;
    cudaError_t e = enter();
    if (e != cudaSuccess) return leave(e);
    if (!ev->s || ev->s == s) return leave(cudaSuccess); /* never recorded, or already in order */
    wait_arg *w = malloc(sizeof *w);
    if (!w) return leave(cudaErrorMemoryAllocation);
    w->s = ev->s; /* the record at the time of the call, as the runtime does */
    w->seq = ev->seq;
    w->ev = ev;
    return leave(enqueue(s, run_wait, w) ? cudaSuccess : cudaErrorMemoryAllocation);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *ev, unsigned flags)
{
    (void)flags;
    *ev = NULL;
    cudaError_t e = enter();
    if (e == cudaSuccess && !(*ev = track(&D.objs, sizeof **ev, 0))) e = cudaErrorMemoryAllocation;
    return leave(e);
}

cudaError_t cudaEventDestroy(cudaEvent_t ev)
{
    lock();
    if (ev) untrack(&D.objs, ev, "cudaEventDestroy");
    unlock();
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t s)
{
    cudaError_t e = enter();
    if (e != cudaSuccess) return leave(e);
    cudaEvent_t *box = malloc(sizeof *box);
    if (!box) return leave(cudaErrorMemoryAllocation);
    *box = ev;
    if (!enqueue(s, run_record, box)) return leave(cudaErrorMemoryAllocation);
    ev->s = s;
    ev->seq = s->queued;
    return leave(cudaSuccess);
}

cudaError_t cudaEventSynchronize(cudaEvent_t ev)
{
    cudaError_t e = enter();
    if (e == cudaSuccess && ev->s) {
        run_stream(ev->s, ev->seq);
        hb_acquire(ev);
    }
    return leave(e);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t s)
{
    cudaError_t e = enter();
    if (e != cudaSuccess) return leave(e);
    if (bytes == 0) return leave(cudaSuccess);
    if (!dst || !src || kind < cudaMemcpyHostToHost || kind > cudaMemcpyDeviceToDevice)
        return leave(cudaErrorInvalidValue);
    copy_arg *c = malloc(sizeof *c);
    if (!c) return leave(cudaErrorMemoryAllocation);
    *c = (copy_arg){ dst, src, bytes, kind == cudaMemcpyHostToDevice };
    if (c->h2d) D.h2d_queued += bytes;
    return leave(enqueue(s, run_copy, c) ? cudaSuccess : cudaErrorMemoryAllocation);
}

/* ---- control ------------------------------------------------------------------------- */
size_t czd_device_bytes(void) { return D.used; }
size_t czd_outstanding(void) { return D.nalloc; }
uint64_t czd_mallocs(void) { return D.mallocs; }
uint64_t czd_calls(void) { return D.calls; }
uint64_t czd_h2d_bytes(void) { return D.h2d; }
uint64_t czd_h2d_queued_bytes(void)
{
    lock();
    uint64_t b = D.h2d_queued;
    unlock();
    return b;
}

void czd_reset(size_t total_bytes)
{
    lock();
    if ((D.nalloc || D.streams || D.objs) && !D.broken) {
        fprintf(stderr, "cuda double: reset with %zu allocation(s) (%zu bytes), %s streams, %s events or "
                "pinned buffers outstanding\n", D.nalloc, D.used, D.streams ? "some" : "no", D.objs ? "some" : "no");
        abort();
    }
    /* what a broken device's context could not free goes now, unrun */
    untrack_all(&D.allocs);
    untrack_all(&D.objs);
    while (D.streams) {
        cudaStream_t s = D.streams;
        D.streams = s->next;
        while (s->head) {
            op *o = s->head;
            s->head = o->next;
            free(o->arg);
            free(o);
        }
        free(s);
    }
    memset(&D, 0, sizeof D);
    D.total = total_bytes;
    unlock();
}

void czd_set_lazy_mask(unsigned lazy_mask)
{
    lock();
    D.lazy_mask = lazy_mask;
    unlock();
}

void czd_fail_malloc_at(unsigned k)
{
    lock();
    D.fail_malloc = k ? D.mallocs + k : 0;
    unlock();
}

void czd_on_stream_sync(unsigned k, void (*fn)(void *), void *arg)
{
    lock();
    D.hook_sync = k && fn ? D.syncs + k : 0;
    D.hook = fn;
    D.hook_arg = arg;
    unlock();
}

void czd_fail_call_at(unsigned k, bool sticky)
{
    lock();
    D.fail_call = k ? D.calls + k : 0;
    D.sticky = sticky;
    unlock();
}

/* ---- the kernels, computed on the host --------------------------------------------------- */
/* The arguments of every kernel below (each uses some). */
typedef struct {
    cz_fr *a, *b, *c;
    const cz_fr *in;
    cz_scalar *dst;
    const cz_scalar *src;
    uint64_t n, *bad;
    const uint64_t *bm;
    const uint32_t *pref;
    int kind;
    czc_domain dom; /* the NTT kernels' tables (device pointers, copied) */
} kargs;

/* A kernel launch: counted as a call (faults fire here as launch errors),
 * then run(copy of *x) queued on s. */
static cz_status launch(cudaStream_t s, void (*run)(void *), const kargs *x, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    kargs *q = malloc(sizeof *q);
    if (!q) return cz_err(err, CZ_ERR_NOMEM, "cuda double: out of host memory");
    *q = *x;
    cudaError_t e = enter();
    if (e != cudaSuccess) free(q);
    else if (!enqueue(s, run, q)) e = cudaErrorMemoryAllocation;
    leave(e);
    CZC_TRY(e);
out:
    return st;
}

/* The device's sizes, so that the memory checks see what they see on a
 * device. */
size_t czc_domain_bytes(unsigned log_n) { return cz_d_domain_bytes(log_n); }

void czc_domain_free(czc_domain *d)
{
    cz_fr *t[9] = { d->tw, d->g_lo, d->g_hi, d->gi_lo, d->gi_hi, d->s_lo, d->s_hi, d->si_lo, d->si_hi };
    for (int k = 0; k < 9; k++) cudaFree(t[k]);
    memset(d, 0, sizeof *d);
}

/* The transforms run the device's own launch lists (dev_algo.h) on the
 * host (ntt_replay.h), with tiles of 2^NTT_TILE_LOG: smaller than the
 * device's 2^11, so that the small domains of the tests still take several
 * stage groups and every kind of fused launch. The results do not depend
 * on the tile size. */
#define NTT_TILE_LOG 4

static void run_domain_fill(void *arg)
{
    kargs *x = arg;
    czc_domain *d = &x->dom;
    cz_fr *lo[4] = { d->g_lo, d->gi_lo, d->s_lo, d->si_lo }, *hi[4] = { d->g_hi, d->gi_hi, d->s_hi, d->si_hi };
    cz_fr n_inv, inv_2n;
    if (!czr_domain_fill(d->log_n, d->tw, lo, hi, &n_inv, &inv_2n)) {
        fprintf(stderr, "cuda double: out of host memory for the NTT tables\n");
        abort();
    }
}

/* The device's tables, filled by an operation on s as the device fills
 * them (kernels.cu: copies and k_twiddle on s), so a transform on another
 * stream that does not wait for s reads poison. */
cz_status czc_domain_build(czc_domain *d, unsigned log_n, cudaStream_t s, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    uint64_t n = (uint64_t)1 << log_n, nhi = (n >> CZ_DEV_TAB_BITS) + 1;
    memset(d, 0, sizeof *d);
    d->log_n = log_n;
    cz_fr_from_u64(&d->n_inv, n);
    cz_fr_inv(&d->n_inv, &d->n_inv);
    cz_fr_from_u64(&d->inv_2n, 2 * n);
    cz_fr_inv(&d->inv_2n, &d->inv_2n);
    cz_fr **lo[4] = { &d->g_lo, &d->gi_lo, &d->s_lo, &d->si_lo }, **hi[4] = { &d->g_hi, &d->gi_hi, &d->s_hi, &d->si_hi };
    CZC_TRY(cudaMalloc((void **)&d->tw, (n / 2 + 1) * sizeof(cz_fr)));
    for (int k = 0; k < 4; k++) {
        CZC_TRY(cudaMalloc((void **)lo[k], CZ_DEV_TAB_LO * sizeof(cz_fr)));
        CZC_TRY(cudaMalloc((void **)hi[k], nhi * sizeof(cz_fr)));
    }
    st = launch(s, run_domain_fill, &(kargs){ .dom = *d }, err);
out:
    if (st != CZ_OK) czc_domain_free(d);
    return st;
}

static void replay(const cz_ntt_step *st, unsigned ns, const czc_domain *d)
{
    if (!czr_run(st, ns, d->tw, d->log_n, NTT_TILE_LOG)) {
        fprintf(stderr, "cuda double: an NTT launch list does not fit its tiles, or no host memory\n");
        abort();
    }
}

static void run_ntt(void *arg)
{
    kargs *x = arg;
    const czc_domain *d = &x->dom;
    cz_ntt_plan pl;
    cz_d_ntt_plan(&pl, d->log_n, NTT_TILE_LOG);
    cz_d_coset_tabs tb = { d->g_lo, d->g_hi, d->gi_lo, d->gi_hi, d->n_inv };
    cz_ntt_step st[CZ_NTT_STEPS_MAX];
    unsigned ns = 0;
    cz_d_ntt_kind_program(st, &ns, x->a, &pl, x->kind, &tb);
    replay(st, ns, d);
}

cz_status czc_ntt(cz_fr *d_x, const czc_domain *d, int kind, cudaStream_t s, cz_errbuf *err)
{
    return launch(s, run_ntt, &(kargs){ .a = d_x, .kind = kind, .dom = *d }, err);
}

static void run_check_rows(void *arg)
{
    kargs *x = arg;
    uint64_t bad = UINT64_MAX;
    for (uint64_t i = 0; i < x->n && bad == UINT64_MAX; i++)
        if (cz_d_row_unsatisfied(x->a, x->b, x->c, i)) bad = i;
    *x->bad = bad;
}

cz_status czc_check_rows(const cz_fr *d_a, const cz_fr *d_b, const cz_fr *d_c, uint64_t n, uint64_t *d_bad,
                         cudaStream_t s, cz_errbuf *err)
{
    kargs x = { .a = (cz_fr *)d_a, .b = (cz_fr *)d_b, .c = (cz_fr *)d_c, .n = n, .bad = d_bad };
    return launch(s, run_check_rows, &x, err);
}

static bool replay_part(void *arg, const cz_ntt_step *st, unsigned ns)
{
    replay(st, ns, arg);
    return true;
}

static void run_quotient(void *arg)
{
    kargs *x = arg;
    const czc_domain *d = &x->dom;
    cz_d_quotient_tabs tb = { d->s_lo, d->s_hi, d->si_lo, d->si_hi, d->n_inv, d->inv_2n };
    (void)cz_d_quotient_each(x->a, x->b, x->c, d->log_n, NTT_TILE_LOG, &tb, replay_part, &x->dom);
}

cz_status czc_quotient(cz_fr *d_a, cz_fr *d_b, cz_fr *d_c, const czc_domain *d, cudaStream_t s, cz_errbuf *err)
{
    return launch(s, run_quotient, &(kargs){ .a = d_a, .b = d_b, .c = d_c, .dom = *d }, err);
}

static void run_from_mont(void *arg)
{
    kargs *x = arg;
    for (uint64_t i = 0; i < x->n; i++) cz_d_scalar_from_mont(x->dst, x->in, i);
}

cz_status czc_scalars_from_mont(cz_scalar *d_out, const cz_fr *d_in, uint64_t n, cudaStream_t s, cz_errbuf *err)
{
    return launch(s, run_from_mont, &(kargs){ .dst = d_out, .in = d_in, .n = n }, err);
}

static void run_gather(void *arg)
{
    kargs *x = arg;
    for (uint64_t k = 0; k < x->n; k++) cz_d_gather_density(x->dst, x->src, x->bm, x->pref, k);
}

cz_status czc_gather(cz_scalar *d_dst, const cz_scalar *d_src, uint64_t nsrc, const uint64_t *d_bitmap,
                     const uint32_t *d_prefix, cudaStream_t s, cz_errbuf *err)
{
    kargs x = { .dst = d_dst, .src = d_src, .n = nsrc, .bm = d_bitmap, .pref = d_prefix };
    return launch(s, run_gather, &x, err);
}

/* The double's own scratch size: what czc_msm_g1 below allocates. */
size_t czc_msm_g1_scratch_bytes(uint64_t n, const czc_msm_cfg *cfg)
{
    (void)cfg;
    return (size_t)n * 16 + ((size_t)1 << 16);
}

cz_status czc_msm_g1(cz_g1_jac *out, const cz_g1_affine *d_bases, const cz_scalar *d_scalars, uint64_t n,
                     const czc_msm_cfg *cfg, cudaStream_t s, cz_errbuf *err)
{
    cz_status st = CZ_OK;
    void *scratch = NULL;
    CZC_TRY(cudaStreamSynchronize(s)); /* the inputs are written by earlier work on s */
    CZC_TRY(cudaMalloc(&scratch, czc_msm_g1_scratch_bytes(n, cfg)));
    {
        cudaError_t e = enter(); /* the launch */
        leave(e);
        CZC_TRY(e);
    }
    st = cz_msm_g1(out, d_bases, d_scalars, n, NULL, NULL);
    if (st != CZ_OK) st = cz_err(err, st, "cuda double: cz_msm_g1 failed");
out:
    cudaFree(scratch);
    return st;
}
