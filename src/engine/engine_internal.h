/*
 * Engine internals shared by engine.c (stages, budget, parameter manager),
 * engine_obs.c (timeline, metrics, records, traces) and engine_util.c
 * (priority heap, hash). Everything here is protected by cz_engine.mu unless
 * a field says otherwise.
 */
#ifndef CZ_ENGINE_INTERNAL_H
#define CZ_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include "cuzk/engine.h"

/* ---- priority heap of pointers (indexed: items know their position) ---- */
typedef struct {
    void **v;
    size_t n, cap;
    /* <0: a before b (a is served first) */
    int (*cmp)(const void *a, const void *b);
    size_t *(*idx)(void *item); /* where the item stores its position */
} cz_heap;

void cz_heap_init(cz_heap *h, int (*cmp)(const void *, const void *), size_t *(*idx)(void *));
void cz_heap_free(cz_heap *h);
CZ_WUR cz_status cz_heap_push(cz_heap *h, void *item);
void *cz_heap_top(const cz_heap *h);
void *cz_heap_pop(cz_heap *h);
void cz_heap_remove(cz_heap *h, void *item);
CZ_WUR cz_status cz_heap_reserve(cz_heap *h, size_t cap);

/* 128-bit non-cryptographic digest of a payload (idempotency check: guards
 * against client mistakes, not adversaries). */
void cz_engine_digest(const void *p, size_t n, uint64_t out[2]);

uint64_t cz_engine_now_ns(void);

/* ---- objects ---- */
struct cz_engine_cancel_token {
    atomic_int flag;
};

struct cz_pentry;

struct cz_engine_device {
    pthread_mutex_t mu;
    unsigned index;
    uint64_t locked_at_ns;   /* written only by the lock holder */
    atomic_uint_fast64_t busy_ns;
    struct cz_engine *e;     /* for the GPU_START line (cz_obs_device_locked) */
    /* the rest under cz_engine.mu */
    char name[64];
    uint64_t partitions, failures, consec_failures;
    bool quarantined;
    char last_err[128];
    /* device budget (mem_total 0: no accounting): the resident set
     * (res_pe, res_bytes) plus the working sets of the partitions its
     * workers hold (inflight of them) */
    uint64_t mem_total, mem_used, res_bytes;
    struct cz_pentry *res_pe;
    unsigned inflight;
};

/* The prover worker's partition, for the GPU_START line the first
 * cz_engine_device_lock of its prove_start emits (thread-local; NULL
 * outside prove_start). */
typedef struct {
    struct cz_engine *e;
    cz_job_id job;
    int part;
    bool started;            /* GPU_START already emitted */
    uint64_t first_ns;       /* when the first lock was taken */
} cz_tl_gpu_ctx;
extern _Thread_local cz_tl_gpu_ctx *cz_tl_gpu;
/* Called by cz_engine_device_lock once the lock is held (engine_obs.c). */
void cz_obs_device_locked(cz_engine_device *d);

/* histogram of durations (seconds) */
#define CZ_HIST_NB 21
typedef struct {
    uint64_t bucket[CZ_HIST_NB + 1]; /* last = +Inf */
    uint64_t count;
    double sum;
} cz_hist;
extern const double cz_hist_bounds[CZ_HIST_NB];
void cz_hist_observe(cz_hist *h, double seconds);

typedef enum { PE_ABSENT = 0, PE_LOADING, PE_RESIDENT, PE_UNLOADING } cz_pe_state;

struct cz_job;

typedef struct cz_pentry {
    char *circuit;
    cz_engine_estimate est;
    bool est_valid;
    cz_pe_state state;
    void *params;
    unsigned refs;            /* in-flight partitions (+ a verify in progress) */
    uint64_t last_used_ns;
    uint64_t charged;         /* bytes charged to the budget for these params */
    /* threads asking the back-end for the estimate right now (mu dropped):
     * an entry whose estimate failed is removed only once this is 0 */
    unsigned estimating;
    /* jobs waiting for a load or unload of these params to end (out of
     * the ready heap; the loader puts them back), via cz_job.parknext */
    struct cz_job *parked;
    /* unfinished jobs with undispatched partitions (ready or parked), and
     * whether the params were loaded for them and none has dispatched
     * yet: such a set is not an eviction candidate (else a load could be
     * evicted before the jobs it was made for ever run) */
    unsigned waiting_jobs;
    bool fresh;
    bool load_queued;         /* a load or unload op is on the loader queue */
    /* per-circuit job counters for the circuit-labelled metrics (a
     * pentry lives as long as the engine, so these never go backwards) */
    uint64_t jobs_ended[3];   /* done, failed, cancelled */
    cz_hist job_hist;         /* submit -> end */
    struct cz_pentry *next;
} cz_pentry;

typedef enum {
    PART_SYNTH = 0, PART_SENDING, PART_CHANNEL, PART_OVERFLOW, PART_PROVING,
    PART_FINQ, PART_FINALIZING, PART_RETRY
} cz_part_where;

typedef struct cz_part {
    struct cz_job *job;
    uint32_t idx;
    size_t heap_idx;
    cz_part_where where;
    void *synth, *pending;
    uint64_t abc_left, rest_left;   /* reservation still held */
    bool timed;                     /* stage times added to the job's sums */
    /* device retry: 1 + the device whose CZ_ERR_DEVICE sent it back (0:
     * none; parts are calloc'd), and that first attempt's error (for the
     * job's message) */
    unsigned dev_avoid1;
    char dev_err[200];
    uint64_t dev_charge;            /* device working set charged on rec.device */
    cz_engine_part_record rec;
    struct cz_part *next;           /* handoff / overflow / retire lists */
} cz_part;

typedef struct cz_job {
    cz_job_id id;
    uint64_t seq;
    cz_priority prio;
    char *circuit;
    char *request_id;
    uint8_t *payload;
    size_t payload_len;
    uint64_t digest[2];
    uint32_t nparts, next_part, parts_done, parts_inflight;
    /* a partition-range sub-job (cz_job_request.first_partition/partition_count):
     * nparts partitions starting at first_part of a job of total_parts; a
     * whole job has first_part 0 and total_parts == nparts */
    uint32_t first_part, total_parts;
    cz_job_state state;
    cz_status status;
    char error[256];
    int32_t failed_part;
    uint8_t *proof;
    size_t proof_bytes;            /* per partition */
    void *prepared;
    bool prepared_done;
    bool preparing;                /* a synthesis worker runs prepare_job now */
    bool payload_charged;          /* payload_len is charged to the budget */
    bool parked;                   /* on pe->parked (waiting for a load/unload) */
    uint64_t t_parked;
    struct cz_job *parknext;
    cz_engine_cancel_token cancel;
    uint64_t t_submit, t_start, t_end;
    /* stage sums over the job's retired partitions, and the parameter load
     * this job waited for (the results' per-stage timings) */
    double load_ms, synth_ms, prove_ms, finish_ms, device_ms;
    /* DONE and its proof never copied out by an await: count-based
     * pruning keeps it (only result_retention_ms drops it) */
    bool unread;
    unsigned refs;                 /* tables + in-flight parts + awaiters */
    bool in_tables, in_ready;
    size_t heap_idx;
    cz_pentry *pe;
    struct cz_job *idnext, *reqnext, *finnext;
} cz_job;

enum { H_SYNTH = 0, H_PROVE, H_DEVICE, H_FINISH, H_VERIFY, H_LOAD, H_QUEUE, H_JOB, H_COUNT };
extern const char *const cz_hist_names[H_COUNT];

struct cz_engine {
    cz_engine_config cfg;
    cz_engine_backend be;
    uint64_t t0;

    pthread_mutex_t mu;
    pthread_cond_t disp_cv;  /* dispatcher: work, budget, idle synth, params */
    pthread_cond_t synth_cv; /* synthesis workers: handoff */
    pthread_cond_t chan_cv;  /* provers: channel items */
    pthread_cond_t space_cv; /* senders: channel space or their job ended */
    pthread_cond_t fin_cv;   /* finalizers */
    pthread_cond_t done_cv;  /* awaiters, idle waiters, shutdown */
    pthread_cond_t pe_cv;    /* parameter state changes (preload/evict) */
    pthread_cond_t reap_cv;  /* reaper: partitions of ended jobs to free */
    pthread_cond_t load_cv;  /* loaders: parameter loads/unloads to run */
    pthread_cond_t prep_cv;  /* synthesis workers waiting for a job's prepare_job */

    /* budget */
    uint64_t budget, used, peak;

    /* jobs */
    uint64_t next_id, next_seq;
    cz_job **id_tab; size_t id_nb, id_count;
    cz_job **req_tab; size_t req_nb, req_count;
    cz_job *fin_head, *fin_tail; size_t fin_count;  /* finished, oldest first */
    uint64_t unread_bytes; size_t unread_count;     /* retained DONE jobs with j->unread */
    cz_heap ready;               /* jobs with partitions not yet dispatched */
    uint64_t jobs_active, jobs_running;

    /* parameters */
    cz_pentry *pentries;
    size_t n_pentries;
    /* loader queue: pentries with load_queued (LOADING: load, UNLOADING:
     * unload), oldest first */
    cz_pentry **load_q;
    size_t load_qn, load_qcap;
    uint64_t loading;        /* ops queued or running */
    uint64_t unloading;      /* unloads queued or running (dispatcher evictions) */
    /* shared back-end caches charged for good: keys (estimate.shared_key) */
    uint32_t *shared_keys;
    size_t n_shared;
    uint64_t shared_bytes;
    /* queued payloads (charged to the budget) */
    uint64_t payload_bytes;
    uint64_t max_queued_bytes; /* resolved (cfg, or budget / 4) */

    /* stages */
    cz_part *handoff_head, *handoff_tail;
    unsigned synth_idle;
    cz_heap chan;
    size_t chan_cap;
    cz_part *ovf_head, *ovf_tail; size_t ovf_count;  /* test hook only (always empty without it) */
    cz_heap finq;
    cz_part *reap_head;      /* queued partitions of ended jobs: the reaper frees them */

    /* counters / gauges */
    uint64_t c_submitted, c_refused, c_completed, c_failed, c_cancelled;
    uint64_t c_parts_completed, c_parts_dropped, c_loads, c_evictions;
    uint64_t parts_queued, synthesizing, awaiting_send, awaiting_send_peak;
    uint64_t proving, finalizing, inflight, inflight_peak;
    uint64_t notifying; /* job-end notifications decided but not yet delivered */
    uint64_t synth_waiting, synth_waiting_peak, chan_peak;
    cz_hist hist[H_COUNT];

    /* partition records ring */
    cz_engine_part_record *recs;
    size_t rec_cap, rec_head, rec_count;

    /* control */
    bool accepting, paused, stop, shut_done, shutting;
    pthread_t disp_thread;
    pthread_t *synth_threads, *prover_threads, *fin_threads;
    unsigned n_synth, n_prover, n_fin;
    pthread_t reap_thread;
    bool disp_started, reap_started;
    pthread_t *load_threads;
    unsigned n_load, load_started;
    unsigned synth_started, prover_started, fin_started;
    cz_engine_device *devs;
    unsigned n_dev;
    /* partitions re-synthesized after a device failure, waiting for a
     * prover of another device (FIFO via next; PART_RETRY) */
    cz_part *retry_head, *retry_tail;
    uint64_t c_device_retries;
    void *worker_args;

    pthread_mutex_t tl_mu;  /* timeline output serialisation */

#ifdef CUZK_ENGINE_TEST_HOOKS
    /* see cz_engine_test_release_permit_before_send */
    bool test_release_permit_before_send;
#endif
};

#ifdef CUZK_ENGINE_TEST_HOOKS
/* TEST HOOK, compiled only into cz_engine_testhooks (the engine built for
 * tests/engine with -DCUZK_ENGINE_TEST_HOOKS): reproduces the reference engine's OOM
 * bug by releasing the synthesis permit before the send into the channel
 * succeeded (finished partitions then pile up in the overflow list,
 * unbounded), so a test can show that the permit-rule test would catch the
 * bug. It is not in the public cz_engine_config and not in the production
 * library, so no deployment can switch it on. Call it before submitting. */
void cz_engine_test_release_permit_before_send(cz_engine *e, bool on);
#endif

static inline double cz_ms_since(const cz_engine *e, uint64_t ns)
{
    return ns > e->t0 ? (double)(ns - e->t0) / 1e6 : 0.0;
}

/* engine_obs.c */
bool cz_tl_enabled(const cz_engine *e);
/* Emits "TIMELINE <ms> <event> job=<id> part=<p|-> <extra>" (no lock needed). */
void cz_tl_emit(cz_engine *e, const char *event, cz_job_id job, int part, const char *extra);
/* " name_ms=x.xxx ..." for every phase, appended to buf. */
void cz_tl_phases(char *buf, size_t cap, const cz_engine_timings *t);
void cz_rec_push_locked(cz_engine *e, const cz_engine_part_record *r);
void cz_status_fill_locked(cz_engine *e, cz_engine_status *st);
/* Counts a job that just became terminal in its circuit's metrics
 * (j->state is the terminal state; called from job_end_locked). */
void cz_obs_job_end_locked(cz_engine *e, const cz_job *j);

#endif
