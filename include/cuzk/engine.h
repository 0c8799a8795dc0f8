/*
 * cuzk — the proving engine: a persistent, pipelined scheduler that turns
 * proof jobs (a circuit id, an opaque payload such as a vanilla proof, N
 * partitions) into proofs through an abstract prover back-end.
 *
 * Stages (docs/design.md §4; the DESIGN comment in src/engine/engine.c):
 *   submit -> dispatcher (priority, then FIFO; one memory budget; parameter
 *   manager) -> synthesis workers -> bounded priority channel -> prover
 *   workers (per-device lock) -> finalizers -> assembly (+ self-verify).
 *
 * Threading: every cz_engine_* call is thread safe, except cz_engine_destroy,
 * which must not race with any other call on the same engine. The back-end
 * callbacks are called concurrently from the engine's stage threads and must
 * be thread safe; the engine never holds its internal lock while calling
 * them (except the two trivial timeline/on_done callbacks, see below).
 *
 * Durability: jobs live in memory only. After a restart await answers
 * CZ_ERR_NOT_FOUND ("unknown job") and the client resubmits.
 */
#ifndef CUZK_ENGINE_H
#define CUZK_ENGINE_H

#include <stdio.h>
#include "cuzk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cz_engine cz_engine;
typedef uint64_t cz_job_id; /* 0 is never a valid job id */

#define CZ_ENGINE_MAX_DEVICES 256        /* cz_engine_config.devices */
#define CZ_ENGINE_STATUS_DEVICES 16      /* devices detailed in cz_engine_status */

/* Scheduling order: higher value first, then older (FIFO by submission). */
typedef enum {
    CZ_PRIO_LOW = 0,
    CZ_PRIO_NORMAL = 1,
    CZ_PRIO_HIGH = 2,
    CZ_PRIO_CRITICAL = 3
} cz_priority;

typedef enum {
    CZ_JOB_QUEUED = 0,  /* accepted, no partition started yet */
    CZ_JOB_RUNNING,     /* at least one partition reserved/started */
    CZ_JOB_DONE,        /* terminal: proof available */
    CZ_JOB_FAILED,      /* terminal: first failing partition named in error */
    CZ_JOB_CANCELLED    /* terminal: cancelled (or cancelled by shutdown) */
} cz_job_state;

const char *cz_job_state_str(cz_job_state s);
const char *cz_priority_str(cz_priority p);
/* "low" | "normal" | "high" | "critical" (case-insensitive). */
CZ_WUR cz_status cz_priority_parse(const char *s, cz_priority *out);

/* ------------------------------------------------------------------------
 * Back-end abstraction
 * ------------------------------------------------------------------------ */

/* Bytes one circuit costs. The engine charges params_bytes to the budget
 * while its parameters are resident, and abc_bytes + rest_bytes per
 * in-flight partition (reserved before synthesis starts; abc_bytes returned
 * right after prove_start, rest_bytes after prove_finish). These must be the
 * circuit's real sizes: the budget is only as good as this estimate.
 * params_bytes must be what unload_params frees: memory that outlives the
 * unload belongs in shared_bytes. */
typedef struct {
    uint64_t params_bytes;  /* converted in-memory parameters (not the file size) */
    /* A back-end cache the first load of this circuit creates and that no
     * unload frees (the real back-end: the NTT domain of the circuit's
     * size), shared by every circuit with the same nonzero shared_key. The
     * engine charges it once per key, at the first load that needs it, and
     * never returns it. 0/0: none. */
    uint64_t shared_bytes;
    uint32_t shared_key;
    uint64_t abc_bytes;     /* a, b, c at the padded domain size (3 * 32 * m) */
    uint64_t rest_bytes;    /* assignments, density, NTT/MSM working sets, ... */
    size_t proof_bytes;     /* bytes of one partition proof (192 for Groth16) */
    /* Device memory (charged only on devices with a budget, see
     * cz_engine_config.device_memory): the circuit's parameters resident on
     * a device (charged per device, from the first partition of the
     * circuit that device takes until another circuit replaces them there
     * or the engine unloads them), and one partition's device working set
     * (charged from the moment a prover worker of the device takes the
     * partition until its prove_start returns). 0/0: nothing on a device
     * (the CPU back-end). */
    uint64_t device_params_bytes;
    uint64_t device_partition_bytes;
} cz_engine_estimate;

/* Per-phase durations a back-end call reports (for TIMELINE lines and the
 * partition records). Names are short identifiers ([a-z0-9_], < 16 chars),
 * logged as "<name>_ms=". Unused entries: n stops before them. */
#define CZ_ENGINE_MAX_PHASES 8
typedef struct {
    unsigned n;
    struct { char name[16]; double ms; } phase[CZ_ENGINE_MAX_PHASES];
} cz_engine_timings;
/* Appends (name, ms) if room is left; silently ignores overflow. */
void cz_engine_timings_add(cz_engine_timings *t, const char *name, double ms);

/* What a back-end sees of a job. Pointers stay valid for the call. */
typedef struct {
    cz_job_id id;
    const char *circuit_id;
    const uint8_t *payload;
    size_t payload_len;
    uint32_t num_partitions;
    void *prepared; /* what prepare_job returned (NULL without prepare_job) */
} cz_engine_job_view;

/* Cooperative cancellation: synthesize may poll it and return
 * CZ_ERR_CANCELLED early; the engine also stops the partition at the next
 * stage boundary whatever the back-end does. */
typedef struct cz_engine_cancel_token cz_engine_cancel_token;
bool cz_engine_cancel_requested(const cz_engine_cancel_token *c);

/* A device (GPU, or a CPU "device"): prover workers of one device share its
 * lock, which must cover only the heavy (kernel) region, so one worker's
 * CPU preparation overlaps the other's kernels. See backend_locks_device.
 * The lock is a plain mutex the engine owns: a back-end that takes it
 * must release it on every path (an error inside the region included);
 * the engine never marks it unusable. The time it is held is the
 * partition's gpu_ms (TIMELINE GPU_START/GPU_END, device busy time). */
typedef struct cz_engine_device cz_engine_device;
unsigned cz_engine_device_index(const cz_engine_device *d);
void cz_engine_device_lock(cz_engine_device *d);
void cz_engine_device_unlock(cz_engine_device *d);

/* Devices that fail: prove_start returns CZ_ERR_DEVICE for a device fault
 * (never for a bad input: CZ_ERR_UNSATISFIED and the like fail the job as
 * before). It still consumes synth. The engine then retries the partition
 * ONCE on another device that is not quarantined: it keeps the
 * partition's reservation, calls synthesize again for it (on the failing
 * device's prover worker, so the objects of the first attempt are never
 * reused) and queues it for the prover workers of the other devices; if
 * that attempt fails too, or no other device is usable, the job fails
 * with a message naming both attempts. A device with
 * device_quarantine_after consecutive CZ_ERR_DEVICE results (a success
 * resets the count) is quarantined for the engine's life: its workers
 * take no more work (one log line on stderr, a DEVICE_QUARANTINED
 * TIMELINE line, cz_engine_status.device[].quarantined). When every
 * device is quarantined, partitions fail at once with "every device is
 * quarantined" and the devices' last errors. Only prove_start is retried:
 * a CZ_ERR_DEVICE from prove_finish (a GPU result that failed the
 * back-end's check) fails the job like any prove_finish error. */

/* The vtable. Every callback gets ctx first. msg/msglen: a buffer for an
 * actionable error message (may be left empty; always NUL-terminated by the
 * engine before the call). Ownership rules are part of the contract:
 *  - synthesize: on CZ_OK *synth is a new object the engine owns (it is
 *    either passed to prove_start or freed with free_synth).
 *  - synthesize may be called a second time for the same partition (the
 *    retry after a CZ_ERR_DEVICE, on a prover worker's thread): it must
 *    give the same partition again (the proof may differ only by its
 *    randomness).
 *  - prove_start: CONSUMES synth in every case, CZ_ERR_DEVICE included
 *    (frees a/b/c before it returns, frees everything on error); on CZ_OK
 *    *pending is a new object
 *    (passed to prove_finish or freed with free_pending, which must be safe
 *    for a pending that is never finished).
 *  - prove_finish: CONSUMES pending in every case; on CZ_OK writes exactly
 *    estimate.proof_bytes bytes to proof.
 * Optional callbacks may be NULL: prepare_job/release_job, verify,
 * unload_params (then params are freed by nothing: the back-end owns them). */
typedef struct cz_engine_backend {
    void *ctx;
    /* Sizes for circuit_id; CZ_ERR_NOT_FOUND for an unknown circuit. Called
     * at submission (cached per circuit id afterwards; an id the back-end
     * refuses leaves nothing behind in the engine). */
    cz_status (*estimate)(void *ctx, const char *circuit_id, cz_engine_estimate *out,
                          char *msg, size_t msglen);
    /* Called on one of the engine's loader threads (or on the caller of
     * cz_engine_preload), never on the dispatcher: a load that takes
     * minutes delays only the jobs of its circuit. unload_params likewise
     * (or on the caller of cz_engine_evict / preload, or at destroy). */
    cz_status (*load_params)(void *ctx, const char *circuit_id, void **params,
                             char *msg, size_t msglen);
    void (*unload_params)(void *ctx, const char *circuit_id, void *params);
    /* Parse the payload once per job (called on a synthesis worker, with
     * the job's first partition reserved and its parameters pinned, before
     * that partition's synthesis; never on the dispatcher); the result is
     * job->prepared for every later call and is released with release_job
     * when the job ends. */
    cz_status (*prepare_job)(void *ctx, void *params, const cz_engine_job_view *job,
                             void **prepared, char *msg, size_t msglen);
    void (*release_job)(void *ctx, void *prepared);
    cz_status (*synthesize)(void *ctx, void *params, const cz_engine_job_view *job,
                            uint32_t partition, const cz_engine_cancel_token *cancel,
                            void **synth, cz_engine_timings *t, char *msg, size_t msglen);
    cz_status (*prove_start)(void *ctx, void *params, void *synth, cz_engine_device *dev,
                             void **pending, cz_engine_timings *t, char *msg, size_t msglen);
    cz_status (*prove_finish)(void *ctx, void *params, void *pending, uint8_t *proof,
                              cz_engine_timings *t, char *msg, size_t msglen);
    void (*free_synth)(void *ctx, void *synth);
    void (*free_pending)(void *ctx, void *pending);
    /* Self-verification of the assembled proof (partitions concatenated in
     * partition order). CZ_OK = valid. */
    cz_status (*verify)(void *ctx, void *params, const cz_engine_job_view *job,
                        const uint8_t *proof, size_t proof_len, char *msg, size_t msglen);
    /* false: the engine holds the device lock around the whole prove_start.
     * true: prove_start takes cz_engine_device_lock itself around its
     * kernel region only (the better choice for a real GPU back-end). */
    bool backend_locks_device;
    /* Optional: a short name of device index (e.g. "NVIDIA H200 (sm_90,
     * 139.8 GiB)"), written into name (len bytes, NUL-terminated); called
     * once per device at cz_engine_create. NULL: "device <index>". */
    void (*device_name)(void *ctx, unsigned index, char *name, size_t len);
    /* Optional: CZ_OK when circuit_id names a circuit of the kinds this
     * back-end proves, CZ_ERR_NOT_FOUND (with msg) when it names none. A
     * check of the name only: nothing is loaded, recorded or cached, and
     * what is local to this process (a list of circuits it serves, a
     * size limit) is not consulted. Used where a job is accepted for
     * others to prove (cz_engine_check_circuit: a store node's
     * submission, claimed by whichever node serves the circuit). NULL:
     * every name is accepted there. Any thread. */
    cz_status (*check_circuit)(void *ctx, const char *circuit_id, char *msg, size_t msglen);
} cz_engine_backend;

/* ------------------------------------------------------------------------
 * Configuration
 * ------------------------------------------------------------------------ */

typedef struct {
    unsigned partition_workers;   /* synthesis workers (default 2) */
    unsigned synthesis_lookahead; /* channel capacity = max(this, partition_workers) (default 1) */
    unsigned devices;             /* default 1 */
    unsigned workers_per_device;  /* prover workers per device (default 2) */
    unsigned finalizers;          /* prove_finish workers (default 1) */
    /* Consecutive CZ_ERR_DEVICE results after which a device is
     * quarantined (default 3; 0 = never). */
    unsigned device_quarantine_after;
    /* Device memory budget in bytes, per device index (< devices): a
     * prover worker takes a partition only when its device's budget
     * admits the circuit's device_params_bytes (unless already resident
     * there) plus device_partition_bytes on top of what the device holds.
     * One set of parameters is resident per device (a device switches to
     * another circuit only when it holds no partition). A partition that
     * fits no usable device fails naming the sizes. 0 = no device
     * accounting on that device (the CPU case; the default). */
    uint64_t device_memory[CZ_ENGINE_MAX_DEVICES];
    /* Memory budget in bytes covering parameters and in-flight partitions.
     * 0 = auto: the memory limit (MemTotal, or the cgroup's limit when it
     * is lower; cuzk/sysmem.h) - memory_safety_margin. */
    uint64_t memory_budget;
    uint64_t memory_safety_margin;   /* default 5 GiB */
    /* Unpinned parameters become evictable under memory pressure once idle
     * this long (default 300000); until then a job that needs their room
     * waits (in priority order) and preload is refused. */
    uint64_t eviction_min_idle_ms;
    uint64_t result_retention_ms;    /* finished jobs kept this long (default 600000) */
    /* ... and at most this many (default 1024), oldest dropped first, except
     * DONE jobs whose proof no await has fetched yet: those stay until
     * result_retention_ms (dropping them loses a proof its client is still
     * going to ask for). */
    size_t result_retention_count;
    /* The bound on those unread results: while they hold this many bytes
     * (proofs plus the job records) or more, cz_engine_submit refuses new
     * jobs (CZ_ERR_BUDGET, the numbers in msg) instead of dropping unread
     * proofs. 0 = no bound (default 64 MiB). */
    uint64_t result_unread_max_bytes;
    size_t records_capacity;         /* partition timing records kept (ring; default 65536) */
    bool self_verify;                /* verify assembled proofs if backend.verify (default true) */
    /* At shutdown, queued jobs (no partition started) are always cancelled
     * ("cancelled by engine shutdown"): their clients can no longer fetch
     * a result once the daemon's listeners are closed, and a retry
     * elsewhere is sooner. true: jobs already running are finished (all
     * their partitions: finished partitions are worthless alone, and
     * their waiting clients get the proof); false: cancelled too
     * (default true). */
    bool drain_on_shutdown;
    /* Drain deadline: running jobs still unfinished this long after
     * shutdown began are cancelled ("drain deadline passed"). 0 = none
     * (default 0). */
    uint64_t drain_timeout_ms;
    bool start_paused;               /* no dispatch until cz_engine_resume (default false) */
    /* Bounds on what waits in the engine. A job counts from its
     * acceptance until it is terminal (queued or running); its payload
     * bytes are charged to the memory budget from acceptance until the
     * engine frees the payload (when the job ends). A submit beyond either
     * bound is refused with CZ_ERR_QUEUE_FULL (retry later; the numbers
     * are in msg); a payload larger than max_queued_bytes alone with
     * CZ_ERR_BUDGET. Submissions are also refused with CZ_ERR_QUEUE_FULL
     * while the queued payloads plus the largest queued circuit's need
     * would exceed the budget (the head of the queue must always be able
     * to fit once the running work drains). */
    uint64_t max_queued_jobs;        /* default 10000 */
    uint64_t max_queued_bytes;       /* 0 = a quarter of the budget (default 0) */
    unsigned param_loaders;          /* parameter loader threads (default 2) */
    /* TIMELINE lines go to timeline_file (if not NULL) and timeline_cb (if
     * not NULL). Both are written with an internal timeline lock held (lines
     * never interleave), sometimes also under the engine lock: keep them
     * fast (a file or an in-memory buffer) and never call into the engine
     * from the callback. Format: see src/engine/engine_obs.c. */
    FILE *timeline_file;
    void (*timeline_cb)(void *arg, const char *line);
    void *timeline_arg;
    /* Called exactly once per accepted job when it becomes terminal, from
     * the thread that ended it (an engine thread, or the caller of cancel /
     * shutdown), with no engine lock held. It may call submit, await (with
     * a timeout), cancel, job_info and status, never shutdown or destroy.
     * cz_engine_wait_idle and shutdown return only after every
     * notification has been delivered. */
    void (*on_job_done)(void *arg, cz_job_id id, cz_job_state state);
    void *on_job_done_arg;
    cz_engine_backend backend;
} cz_engine_config;

void cz_engine_config_default(cz_engine_config *c);

/* Creates the engine and starts its threads. msg receives why on failure
 * (e.g. auto budget with MemTotal below the margin). */
CZ_WUR cz_status cz_engine_create(cz_engine **out, const cz_engine_config *cfg,
                                  char *msg, size_t msglen);
/* Cancels every unfinished job with reason as its error (NULL: "cancelled
 * by engine shutdown"); returns how many. Callable at any time, also from
 * another thread while cz_engine_shutdown drains ("cancel now" on a second
 * stop signal). */
size_t cz_engine_cancel_all(cz_engine *e, const char *reason);
/* Stops accepting submissions, cancels queued jobs, then drains (drain_on_shutdown) or cancels
 * every unfinished job, waits for in-flight partitions to leave the
 * pipeline, joins all threads. Idempotent. Finished results stay readable. */
void cz_engine_shutdown(cz_engine *e);
/* shutdown + unload parameters + free everything. NULL is a no-op. */
void cz_engine_destroy(cz_engine *e);

/* Dispatch control (jobs are still accepted while paused). */
void cz_engine_pause(cz_engine *e);
void cz_engine_resume(cz_engine *e);

/* Budget in bytes the engine resolved at creation. */
uint64_t cz_engine_budget(const cz_engine *e);

/* ------------------------------------------------------------------------
 * Jobs
 * ------------------------------------------------------------------------ */

typedef struct {
    const char *circuit_id;    /* required, 1..127 chars */
    const void *payload;       /* copied; may be NULL iff payload_len == 0 */
    size_t payload_len;
    uint32_t num_partitions;   /* 1..65536 */
    cz_priority priority;
    /* Optional idempotency key (NULL or "" = none, <= 255 chars). While a
     * job with this id is retained, a resubmission with the same circuit,
     * partition count and payload returns that job (*existing = true);
     * anything else under the id is refused with CZ_ERR_BUSY. Only live
     * and DONE jobs hold their id: a submission under the id of a FAILED
     * or CANCELLED job starts a new job (a retry). After the job is pruned
     * the id may be reused. Priority is not part of the key (the
     * partition range is). */
    const char *request_id;
    /* A partition-range sub-job: prove only partitions [first_partition,
     * first_partition + partition_count) of a job of num_partitions (the
     * whole job's count). The back-end sees the real partition index and
     * the real num_partitions, so a partition proved alone is
     * byte-identical to the same partition of the whole job. The result's
     * proof is those partition_count proofs in order; num_partitions and
     * partitions_done of its cz_job_result count within the range, and
     * self-verification runs only when the range is the whole job (a
     * part of a proof cannot be verified alone: cz_engine_verify_proof
     * checks the assembled whole). partition_count 0 = the whole job (the
     * default: first_partition must then be 0). A range outside
     * 0..num_partitions is refused (CZ_ERR_INVALID_ARG) naming it. */
    uint32_t first_partition, partition_count;
} cz_job_request;

/* Accepts a job. Refusals (with msg): CZ_ERR_INVALID_ARG, CZ_ERR_NOT_FOUND
 * (unknown circuit, from backend.estimate), CZ_ERR_BUDGET (one partition
 * plus the circuit's parameters exceed the budget, or unread results hold
 * result_unread_max_bytes, or the payload alone exceeds max_queued_bytes:
 * the numbers are in msg), CZ_ERR_QUEUE_FULL (max_queued_jobs or
 * max_queued_bytes reached: "queue full: ..."; retry later), CZ_ERR_BUSY
 * (request id in use with another payload), CZ_ERR_CANCELLED (shutdown has begun:
 * "the engine is shutting down: ..."; never a job that would not run).
 * existing may be NULL.
 *
 * Messages (here and in every msg/msglen of this API) say what is wrong
 * without naming the call ("circuit 'x' cannot fit ...", not "submit:
 * ..."): the caller knows which call it made and adds that context once. */
CZ_WUR cz_status cz_engine_submit(cz_engine *e, const cz_job_request *req, cz_job_id *id,
                                  bool *existing, char *msg, size_t msglen);

/* Whether circuit_id names a circuit of the back-end's kinds
 * (backend.check_circuit; CZ_OK when the back-end has none), without
 * loading or estimating anything: for a job accepted here and proved by
 * another process of the same kind. CZ_ERR_INVALID_ARG for an empty or
 * over-long id, CZ_ERR_NOT_FOUND for an unknown circuit (msg says which
 * circuits there are). */
CZ_WUR cz_status cz_engine_check_circuit(cz_engine *e, const char *circuit_id, char *msg, size_t msglen);

typedef struct {
    cz_job_id id;
    cz_job_state state;
    cz_status status;          /* CZ_OK for DONE, the cause otherwise */
    char error[256];           /* "partition 2/4: synthesize: ..." for FAILED */
    int32_t failed_partition;  /* -1 if none */
    uint32_t num_partitions;
    uint32_t partitions_done;
    cz_priority priority;
    double queued_ms;          /* submit -> first partition start (or end) */
    double total_ms;           /* submit -> terminal (or now) */
    /* Stage sums over the partitions that have left the pipeline (ms):
     * the parameter load this job waited for, synthesis, prove_start,
     * prove_finish, and the device lock held inside prove_start. */
    double load_ms, synth_ms, prove_ms, finish_ms, device_ms;
    char circuit_id[128];
    uint8_t *proof;            /* DONE: num_partitions * proof_bytes, malloc'd; else NULL */
    size_t proof_len;
} cz_job_result;

/* Waits until the job is terminal or timeout_ms passes (timeout_ms < 0:
 * forever; 0: poll). CZ_OK: *out describes the terminal job (proof copied;
 * release with cz_job_result_free; a DONE job's result counts as read from
 * then on, see result_retention_count). CZ_ERR_TIMEOUT: the job keeps
 * running, *out holds its current state. CZ_ERR_NOT_FOUND: unknown or
 * pruned id. CZ_ERR_NOMEM: the job is DONE (*out says so) but its proof
 * could not be copied (out->proof is NULL); the job and its proof are
 * kept unchanged, so a later await can fetch it. */
CZ_WUR cz_status cz_engine_await(cz_engine *e, cz_job_id id, int64_t timeout_ms,
                                 cz_job_result *out);
/* Verifies a whole assembled proof (num_partitions partition proofs
 * concatenated in order, proof_len bytes) of circuit_id over payload, as
 * the engine's self-verification does: the circuit's parameters are loaded
 * (through the normal load path, charged to the budget) or, when
 * resident, pinned for the call; then backend.prepare_job (if any),
 * backend.verify and release_job run on the caller's thread. For a node
 * that assembles a job from partitions proved elsewhere (the job store).
 * CZ_OK: valid. Otherwise the back-end's status (why in msg).
 * CZ_ERR_UNSUPPORTED: the back-end has no verify. CZ_ERR_BUDGET: the
 * parameters cannot be loaded now. CZ_ERR_NOT_FOUND: unknown circuit.
 * CZ_ERR_INVALID_ARG: proof_len is not num_partitions proofs. */
CZ_WUR cz_status cz_engine_verify_proof(cz_engine *e, const char *circuit_id, const void *payload,
                                        size_t payload_len, uint32_t num_partitions,
                                        const uint8_t *proof, size_t proof_len, char *msg,
                                        size_t msglen);

/* Non-blocking snapshot of a job (never copies the proof). */
CZ_WUR cz_status cz_engine_job_info(cz_engine *e, cz_job_id id, cz_job_result *out);
void cz_job_result_free(cz_job_result *r);

/* Cancels a queued or running job and returns at once: the job is
 * CANCELLED when this returns CZ_OK (awaiters wake), its queued partitions
 * are handed to the engine's reaper thread, which frees their objects and
 * returns their reservations right after, and running ones stop at their
 * next stage boundary. The caller never runs the back-end's free_synth /
 * free_pending (which may wait for background work) nor waits for a
 * running stage; only on_job_done and release_job (a job with nothing in
 * flight) run on its thread. cz_engine_wait_idle waits for all of it. A job
 * already terminal is left as it is: CZ_ERR_BUSY (its state is in *state
 * if not NULL). CZ_ERR_NOT_FOUND: unknown id. */
CZ_WUR cz_status cz_engine_cancel(cz_engine *e, cz_job_id id, cz_job_state *state);

/* Waits until no job is unfinished, no partition holds a reservation (the
 * budget is back to "parameters only") and every job-end notification
 * (timeline line, on_job_done) has been delivered. CZ_ERR_TIMEOUT otherwise. */
CZ_WUR cz_status cz_engine_wait_idle(cz_engine *e, int64_t timeout_ms);

/* ------------------------------------------------------------------------
 * Parameter manager
 * ------------------------------------------------------------------------ */

/* Loads a circuit's parameters now (charged to the budget; idle ones are
 * evicted if needed). CZ_ERR_BUDGET if they cannot fit right now; CZ_OK if
 * already resident. */
CZ_WUR cz_status cz_engine_preload(cz_engine *e, const char *circuit_id, char *msg, size_t msglen);
/* Unloads resident parameters. CZ_ERR_BUSY while in use, CZ_ERR_NOT_FOUND
 * if not resident. */
CZ_WUR cz_status cz_engine_evict(cz_engine *e, const char *circuit_id, char *msg, size_t msglen);

/* ------------------------------------------------------------------------
 * Observability
 * ------------------------------------------------------------------------ */

/* One device in cz_engine_status (JSON: "device":[...]; Prometheus:
 * cuzk_device_*{device="<index>"}). */
typedef struct {
    unsigned index;
    char name[64];
    double busy_ms;               /* device lock held */
    double busy_fraction;         /* busy_ms / uptime */
    uint64_t partitions;          /* prove_start calls that succeeded */
    uint64_t failures;            /* CZ_ERR_DEVICE results */
    uint64_t consecutive_failures;
    bool quarantined;
    uint64_t memory_used, memory_total; /* device budget (total 0 = none) */
    char last_error[128];         /* of the last CZ_ERR_DEVICE ("" = none) */
} cz_engine_device_status;

typedef struct {
    uint64_t uptime_ms;
    bool paused, shutting_down;
    /* jobs */
    uint64_t jobs_submitted, jobs_refused, jobs_completed, jobs_failed, jobs_cancelled;
    uint64_t jobs_queued, jobs_running, jobs_retained;
    /* queues (partitions) */
    uint64_t partitions_queued;      /* waiting for a reservation */
    uint64_t partitions_synthesizing;
    uint64_t channel_depth, channel_capacity, channel_peak;
    uint64_t awaiting_send;          /* synthesized, waiting for channel space */
    uint64_t awaiting_send_peak;
    uint64_t proving, finalize_queued, finalizing;
    uint64_t partitions_inflight, partitions_inflight_peak; /* holding a reservation */
    /* synthesized objects not yet picked up by a prover (channel + senders);
     * bounded by channel_capacity + partition_workers (the permit rule) */
    uint64_t synthesized_waiting_peak;
    uint64_t partitions_completed, partitions_dropped;
    /* memory */
    uint64_t budget_total, budget_used, budget_peak;
    uint64_t params_resident_bytes;
    uint64_t params_resident, params_loads, params_evictions;
    uint64_t params_loading;         /* loads queued or running on the loader threads */
    uint64_t params_known;           /* parameter entries (one per accepted circuit id) */
    uint64_t shared_bytes;           /* back-end caches charged for good (estimate.shared_bytes) */
    uint64_t payload_bytes;          /* payloads of unfinished jobs, charged to the budget */
    /* threads */
    unsigned partition_workers, prover_workers, finalizers, devices;
    double device_busy_ms; /* sum over devices of device-lock hold time */
    /* devices: the first min(devices, CZ_ENGINE_STATUS_DEVICES) */
    unsigned devices_quarantined;     /* over all devices */
    uint64_t device_retries;          /* partitions retried on another device */
    cz_engine_device_status device[CZ_ENGINE_STATUS_DEVICES];
} cz_engine_status;

void cz_engine_get_status(cz_engine *e, cz_engine_status *st);
/* JSON object for st; snprintf semantics (returns the length it needs). */
size_t cz_engine_status_json(const cz_engine_status *st, char *buf, size_t cap);
/* Prometheus text exposition (gauges, counters, stage-duration histograms
 * in seconds); snprintf semantics: returns the length needed (excluding
 * the NUL), writes at most cap bytes including the NUL. */
size_t cz_engine_metrics_prometheus(cz_engine *e, char *buf, size_t cap);

/* Unfinished jobs of one circuit id (what a client's backpressure reads). */
typedef struct {
    char circuit_id[128];
    uint32_t queued;   /* no partition started yet */
    uint32_t running;  /* at least one partition started */
    uint32_t queued_by_priority[4]; /* queued, indexed by cz_priority */
} cz_engine_circuit_load;
/* Fills up to cap entries, one per circuit id with unfinished jobs (in no
 * particular order; circuits beyond cap are left out); returns how many
 * were filled. */
size_t cz_engine_circuit_loads(cz_engine *e, cz_engine_circuit_load *out, size_t cap);

/* Parameters the engine knows of (resident, loading or unloading). */
typedef struct {
    char circuit_id[128];
    bool resident;        /* false: being loaded or unloaded */
    uint64_t bytes;       /* charged to the budget */
    uint32_t refs;        /* in-flight partitions using them */
    uint64_t idle_ms;     /* since last use */
} cz_engine_params_info;
/* Copies up to cap entries; returns how many exist. */
size_t cz_engine_params_list(cz_engine *e, cz_engine_params_info *out, size_t cap);

/* One record per partition that left the pipeline (ms since engine start;
 * 0 = stage not reached). Worker indices identify threads for traces. */
typedef struct {
    cz_job_id job;
    uint32_t partition;
    cz_status status;           /* CZ_OK, or why it was dropped/failed */
    double reserve_ms;          /* reservation made */
    double synth_start_ms, synth_end_ms;
    double prove_start_ms, prove_end_ms;  /* prove_start call */
    double device_ms;           /* device lock held during prove_start */
    double gpu_start_ms;        /* first device lock of prove_start (0 = none) */
    double finish_start_ms, finish_end_ms;
    int synth_worker, prover_worker, finalizer; /* -1 = none */
    unsigned device;            /* of the last attempt */
    bool device_retried;        /* a device failure sent it to another device */
} cz_engine_part_record;

/* Copies up to cap records (oldest first) into out and returns how many it
 * copied; with out NULL, returns how many exist (the ring keeps the last
 * records_capacity). Records keep arriving while partitions retire, so a
 * count taken first may be short of the copy that follows: size the copy
 * from the count and use what this returns (cz_engine_wait_idle first for
 * every record of the finished jobs: a job ends before its last partition
 * is retired). */
size_t cz_engine_get_records(cz_engine *e, cz_engine_part_record *out, size_t cap);
/* Chrome trace-event JSON (Perfetto) of the retained records. */
CZ_WUR cz_status cz_engine_write_chrome_trace(cz_engine *e, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_ENGINE_H */
