/*
 * A test-double prover back-end for the engine tests: controllable delays
 * (ms), failures injected per job through the payload text, and per-object
 * byte accounting that mirrors what a real back-end allocates, so tests can
 * check the engine's budget against what is actually alive.
 *
 * Payload: free text with optional tokens
 *   "fail=<stage>:<partition>"   stage: prepare synth prove finish verify
 *   "synth_ms=<n>" "prove_ms=<n>" "finish_ms=<n>"   per-job delay overrides
 * Proof of partition k (proof_bytes each): u32 LE k, u32 LE job id, then
 * bytes (digest(payload) + k + i) & 0xff — verify() checks exactly this.
 */
#ifndef CZ_FAKE_BACKEND_H
#define CZ_FAKE_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include "cuzk/engine.h"

#define FAKE_MAX_CIRCUITS 8
#define FAKE_MAX_DEVICES 4

typedef struct {
    char name[32];
    cz_engine_estimate est;
    bool fail_load;
} fake_circuit;

/* Stage events, for tests of the pipeline's ordering rules. Each event gets
 * a number from one counter (under mu) when it happens, so tests compare
 * the order in which things happened, never wall-clock times. */
typedef enum {
    FAKE_EV_SYNTH_BEGIN = 0, FAKE_EV_SYNTH_END,
    FAKE_EV_PROVE_BEGIN, FAKE_EV_PROVE_END,   /* prove_start call */
    FAKE_EV_FINISH_BEGIN, FAKE_EV_FINISH_END  /* prove_finish call */
} fake_event_kind;

typedef struct {
    uint64_t seq; /* 1, 2, ... in the order recorded */
    fake_event_kind kind;
    cz_job_id job;
    uint32_t part;
} fake_event;

typedef struct {
    pthread_mutex_t mu;
    fake_circuit circ[FAKE_MAX_CIRCUITS];
    unsigned ncirc;
    /* default delays (ms) */
    int load_ms, synth_ms, prove_cpu_ms, prove_ms, finish_ms, verify_ms;
    bool lock_device_itself; /* mirrors backend_locks_device */

    /* accounting (under mu) */
    int64_t bytes_alive, bytes_peak;        /* params + partition objects */
    int64_t params_alive, synth_alive, synth_alive_peak, pending_alive, prepared_alive;
    int64_t synthesizing;                   /* synth calls in progress */
    int64_t abc_alive, abc_alive_peak;      /* partitions holding a/b/c */
    int dev_in[FAKE_MAX_DEVICES], dev_in_peak[FAKE_MAX_DEVICES];
    uint64_t loads, unloads, synth_calls, cancelled_synth;
    /* synthesis start order: (job id << 20 | partition) */
    uint64_t *order;
    size_t order_n, order_cap;
    int errors; /* contract violations seen by the fake (must stay 0) */

    /* Ordering instrumentation (off unless record_events is set before the
     * engine starts): every stage event is logged with its sequence number,
     * and the peak of concurrent synthesize calls is kept. */
    bool record_events;
    uint64_t seq;
    fake_event *events;
    size_t events_n, events_cap;
    int64_t synthesizing_peak;
    /* Optional, called after each *_BEGIN event is recorded, on the engine
     * thread that made the back-end call, with mu NOT held (it may block to
     * force an interleaving, or read the engine's status). */
    void (*hook)(void *arg, fake_event_kind kind, cz_job_id job, uint32_t part);
    void *hook_arg;

    /* Gates, for tests of what must not wait for what: while load_gate is
     * set, load_params of circuit load_gate_circ blocks; while
     * prepare_gate is set, prepare_job of a payload containing "gate"
     * blocks. *_blocked count the calls waiting at a gate now. Set and
     * clear them with fake_gate (under mu, waking the waiters). */
    pthread_cond_t gate_cv;
    bool load_gate, prepare_gate;
    int load_gate_circ;
    int loads_blocked, prepares_blocked;

    /* Fake devices (device index d < FAKE_MAX_DEVICES). Set before the
     * engine starts. prove_start of device d: the CPU part
     * (prove_cpu_ms), then the "kernel" (prove_ms + dev_prove_ms[d]),
     * under the engine's device lock when lock_device_itself. */
    int dev_prove_ms[FAKE_MAX_DEVICES];
    /* CZ_ERR_DEVICE on the dev_fail_nth[d]-th prove_start of device d
     * (1 = the first; 0 = never), or on every call (dev_fail_always[d]).
     * The failure is decided at the call's start and returned from inside
     * the kernel region (the lock is released first, as a back-end must). */
    int dev_fail_nth[FAKE_MAX_DEVICES];
    bool dev_fail_always[FAKE_MAX_DEVICES];
    /* Lock-scope probe: the kernel region waits (at most rendezvous_ms)
     * until a prove_start of the same device has started its CPU part
     * while this kernel runs (overlap_seen[d]). 0 = off. */
    int rendezvous_ms;
    /* Spread probe: a kernel of device x waits (at most spread_ms) until
     * every other device y has entered spread_need[y] kernels. 0 = off. */
    int spread_ms;
    int spread_need[FAKE_MAX_DEVICES];
    /* under mu */
    int dev_calls[FAKE_MAX_DEVICES];        /* prove_start calls per device */
    int dev_ok[FAKE_MAX_DEVICES];           /* ... that succeeded */
    int dev_holding[FAKE_MAX_DEVICES], dev_holding_peak[FAKE_MAX_DEVICES]; /* inside prove_start */
    /* lock free (read from the CPU part without mu) */
    atomic_int in_kernel[FAKE_MAX_DEVICES];
    atomic_int kernel_peak[FAKE_MAX_DEVICES];
    atomic_int overlap_seen[FAKE_MAX_DEVICES];
    atomic_int kernel_entered[FAKE_MAX_DEVICES];
} fake_backend;

void fake_init(fake_backend *f);
void fake_destroy(fake_backend *f);
/* Adds a circuit; returns its index. */
unsigned fake_add_circuit(fake_backend *f, const char *name, uint64_t params, uint64_t abc,
                          uint64_t rest, size_t proof_bytes);
/* Fills the backend vtable (ctx = f). */
void fake_backend_vtable(fake_backend *f, cz_engine_backend *b);
/* The expected proof of one partition (for assembled-proof checks). */
void fake_expected_proof(const void *payload, size_t len, cz_job_id job, uint32_t part,
                         uint8_t *out, size_t proof_bytes);
void fake_sleep_ms(int ms);
/* Sets the load gate (circuit index circ) or the prepare gate (circ < 0). */
void fake_gate(fake_backend *f, int circ, bool closed);
/* Waits (up to 10 s) until n calls wait at the load gate (circ >= 0) or
 * the prepare gate (circ < 0); false on timeout. */
bool fake_wait_blocked(fake_backend *f, int circ, int n);
/* Sequence number of the first recorded event (kind, job, part); 0 = none
 * yet. Takes mu. */
uint64_t fake_event_seq(fake_backend *f, fake_event_kind kind, cz_job_id job, uint32_t part);

#endif
