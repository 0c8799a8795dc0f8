#include "fake_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SYNTH_MAGIC 0x53594e54u
#define PEND_MAGIC 0x50454e44u
#define PARAM_MAGIC 0x50415241u
#define PREP_MAGIC 0x50524550u

typedef struct {
    uint32_t magic;
    unsigned circ;
} fparams;

typedef struct {
    uint32_t magic;
    int synth_ms, prove_ms, finish_ms;
    char fail_stage[16];
    int fail_part;
    uint32_t digest;
} fprep;

typedef struct {
    uint32_t magic;
    unsigned circ;
    uint32_t part;
    cz_job_id job;
    const fprep *prep;
    uint32_t digest;
} fsynth;

typedef struct {
    uint32_t magic;
    unsigned circ;
    uint32_t part;
    cz_job_id job;
    const fprep *prep;
    uint32_t digest;
} fpending;

void fake_sleep_ms(int ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static uint32_t fnv32(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

void fake_expected_proof(const void *payload, size_t len, cz_job_id job, uint32_t part,
                         uint8_t *out, size_t pb)
{
    uint32_t d = fnv32(payload, len);
    for (size_t i = 0; i < pb; i++)
        out[i] = (uint8_t)(d + part + i);
    uint32_t j32 = (uint32_t)job;
    for (int i = 0; i < 4 && (size_t)i < pb; i++)
        out[i] = (uint8_t)(part >> (8 * i));
    for (int i = 0; i < 4 && (size_t)(4 + i) < pb; i++)
        out[4 + i] = (uint8_t)(j32 >> (8 * i));
}

void fake_init(fake_backend *f)
{
    memset(f, 0, sizeof *f);
    for (int d = 0; d < FAKE_MAX_DEVICES; d++) {
        atomic_init(&f->in_kernel[d], 0);
        atomic_init(&f->kernel_peak[d], 0);
        atomic_init(&f->overlap_seen[d], 0);
        atomic_init(&f->kernel_entered[d], 0);
    }
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->gate_cv, NULL);
}

void fake_destroy(fake_backend *f)
{
    free(f->order);
    free(f->events);
    pthread_cond_destroy(&f->gate_cv);
    pthread_mutex_destroy(&f->mu);
}

void fake_gate(fake_backend *f, int circ, bool closed)
{
    pthread_mutex_lock(&f->mu);
    if (circ >= 0) {
        f->load_gate = closed;
        f->load_gate_circ = circ;
    } else {
        f->prepare_gate = closed;
    }
    pthread_cond_broadcast(&f->gate_cv);
    pthread_mutex_unlock(&f->mu);
}

bool fake_wait_blocked(fake_backend *f, int circ, int n)
{
    bool ok = false;
    pthread_mutex_lock(&f->mu);
    for (int i = 0; i < 10000 && !ok; i++) {
        ok = (circ >= 0 ? f->loads_blocked : f->prepares_blocked) >= n;
        if (!ok) {
            pthread_mutex_unlock(&f->mu);
            fake_sleep_ms(1);
            pthread_mutex_lock(&f->mu);
        }
    }
    pthread_mutex_unlock(&f->mu);
    return ok;
}

unsigned fake_add_circuit(fake_backend *f, const char *name, uint64_t params, uint64_t abc,
                          uint64_t rest, size_t proof_bytes)
{
    unsigned i = f->ncirc++;
    snprintf(f->circ[i].name, sizeof f->circ[i].name, "%s", name);
    f->circ[i].est.params_bytes = params;
    f->circ[i].est.abc_bytes = abc;
    f->circ[i].est.rest_bytes = rest;
    f->circ[i].est.proof_bytes = proof_bytes;
    return i;
}

/* Records one event (call with mu held). */
static void ev_locked(fake_backend *f, fake_event_kind kind, cz_job_id job, uint32_t part)
{
    if (!f->record_events)
        return;
    if (f->events_n == f->events_cap) {
        size_t cap = f->events_cap ? 2 * f->events_cap : 256;
        fake_event *ev = realloc(f->events, cap * sizeof *ev);
        if (!ev) {
            f->errors++; /* a lost event would make an ordering test lie */
            return;
        }
        f->events = ev;
        f->events_cap = cap;
    }
    f->events[f->events_n++] = (fake_event){++f->seq, kind, job, part};
}

/* Calls the test's hook (mu not held). */
static void ev_hook(fake_backend *f, fake_event_kind kind, cz_job_id job, uint32_t part)
{
    if (f->hook)
        f->hook(f->hook_arg, kind, job, part);
}

uint64_t fake_event_seq(fake_backend *f, fake_event_kind kind, cz_job_id job, uint32_t part)
{
    uint64_t seq = 0;
    pthread_mutex_lock(&f->mu);
    for (size_t i = 0; i < f->events_n && !seq; i++)
        if (f->events[i].kind == kind && f->events[i].job == job && f->events[i].part == part)
            seq = f->events[i].seq;
    pthread_mutex_unlock(&f->mu);
    return seq;
}

static int find_circ(fake_backend *f, const char *name)
{
    for (unsigned i = 0; i < f->ncirc; i++)
        if (!strcmp(f->circ[i].name, name))
            return (int)i;
    return -1;
}

static void acct(fake_backend *f, int64_t bytes)
{
    f->bytes_alive += bytes;
    if (f->bytes_alive > f->bytes_peak)
        f->bytes_peak = f->bytes_alive;
    if (f->bytes_alive < 0)
        f->errors++;
}

static cz_status f_estimate(void *ctx, const char *cid, cz_engine_estimate *out, char *msg,
                            size_t len)
{
    fake_backend *f = ctx;
    int c = find_circ(f, cid);
    if (c < 0) {
        snprintf(msg, len, "unknown circuit '%s'", cid);
        return CZ_ERR_NOT_FOUND;
    }
    *out = f->circ[c].est;
    return CZ_OK;
}

static cz_status f_load(void *ctx, const char *cid, void **params, char *msg, size_t len)
{
    fake_backend *f = ctx;
    int c = find_circ(f, cid);
    if (c < 0)
        return CZ_ERR_NOT_FOUND;
    fake_sleep_ms(f->load_ms);
    pthread_mutex_lock(&f->mu);
    if (f->load_gate && f->load_gate_circ == c) {
        f->loads_blocked++;
        while (f->load_gate && f->load_gate_circ == c)
            pthread_cond_wait(&f->gate_cv, &f->mu);
        f->loads_blocked--;
    }
    pthread_mutex_unlock(&f->mu);
    if (f->circ[c].fail_load) {
        snprintf(msg, len, "injected load failure");
        return CZ_ERR_IO;
    }
    fparams *p = malloc(sizeof *p);
    p->magic = PARAM_MAGIC;
    p->circ = (unsigned)c;
    pthread_mutex_lock(&f->mu);
    f->loads++;
    f->params_alive++;
    acct(f, (int64_t)f->circ[c].est.params_bytes);
    pthread_mutex_unlock(&f->mu);
    *params = p;
    return CZ_OK;
}

static void f_unload(void *ctx, const char *cid, void *params)
{
    fake_backend *f = ctx;
    fparams *p = params;
    pthread_mutex_lock(&f->mu);
    if (p->magic != PARAM_MAGIC || strcmp(f->circ[p->circ].name, cid))
        f->errors++;
    f->unloads++;
    f->params_alive--;
    acct(f, -(int64_t)f->circ[p->circ].est.params_bytes);
    pthread_mutex_unlock(&f->mu);
    p->magic = 0;
    free(p);
}

static int intopt(const char *s, size_t n, const char *key, int def)
{
    char buf[256];
    size_t m = n < sizeof buf - 1 ? n : sizeof buf - 1;
    memcpy(buf, s, m);
    buf[m] = 0;
    const char *k = strstr(buf, key);
    return k ? atoi(k + strlen(key)) : def;
}

static cz_status f_prepare(void *ctx, void *params, const cz_engine_job_view *job, void **out,
                           char *msg, size_t len)
{
    fake_backend *f = ctx;
    fparams *pp = params;
    if (!pp || pp->magic != PARAM_MAGIC) {
        pthread_mutex_lock(&f->mu);
        f->errors++;
        pthread_mutex_unlock(&f->mu);
    }
    const char *s = (const char *)job->payload;
    size_t n = job->payload_len;
    pthread_mutex_lock(&f->mu);
    if (f->prepare_gate && memmem(s, n, "gate", 4)) {
        f->prepares_blocked++;
        while (f->prepare_gate)
            pthread_cond_wait(&f->gate_cv, &f->mu);
        f->prepares_blocked--;
    }
    pthread_mutex_unlock(&f->mu);
    fprep *p = calloc(1, sizeof *p);
    p->magic = PREP_MAGIC;
    p->synth_ms = intopt(s, n, "synth_ms=", f->synth_ms);
    p->prove_ms = intopt(s, n, "prove_ms=", f->prove_ms);
    p->finish_ms = intopt(s, n, "finish_ms=", f->finish_ms);
    p->fail_part = -1;
    p->digest = fnv32(job->payload, job->payload_len);
    char buf[256];
    size_t m = n < sizeof buf - 1 ? n : sizeof buf - 1;
    if (m)
        memcpy(buf, s, m);
    buf[m] = 0;
    const char *fl = strstr(buf, "fail=");
    if (fl) {
        sscanf(fl + 5, "%15[a-z]:%d", p->fail_stage, &p->fail_part);
        if (!strcmp(p->fail_stage, "prepare")) {
            free(p);
            snprintf(msg, len, "injected prepare failure");
            return CZ_ERR_FORMAT;
        }
    }
    pthread_mutex_lock(&f->mu);
    f->prepared_alive++;
    pthread_mutex_unlock(&f->mu);
    *out = p;
    return CZ_OK;
}

static void f_release(void *ctx, void *prepared)
{
    fake_backend *f = ctx;
    fprep *p = prepared;
    pthread_mutex_lock(&f->mu);
    if (p->magic != PREP_MAGIC)
        f->errors++;
    f->prepared_alive--;
    pthread_mutex_unlock(&f->mu);
    p->magic = 0;
    free(p);
}

static bool fails(const fprep *p, const char *stage, uint32_t part)
{
    return p->fail_part == (int)part && !strcmp(p->fail_stage, stage);
}

static cz_status f_synth(void *ctx, void *params, const cz_engine_job_view *job, uint32_t part,
                         const cz_engine_cancel_token *cancel, void **out, cz_engine_timings *t,
                         char *msg, size_t len)
{
    fake_backend *f = ctx;
    fparams *pp = params;
    const fprep *prep = job->prepared;
    pthread_mutex_lock(&f->mu);
    if (!pp || pp->magic != PARAM_MAGIC || !prep || prep->magic != PREP_MAGIC)
        f->errors++;
    unsigned c = pp->circ;
    const cz_engine_estimate *es = &f->circ[c].est;
    acct(f, (int64_t)(es->abc_bytes + es->rest_bytes)); /* allocate a/b/c + aux up front */
    if (++f->abc_alive > f->abc_alive_peak)
        f->abc_alive_peak = f->abc_alive;
    f->synth_calls++;
    if (++f->synthesizing > f->synthesizing_peak)
        f->synthesizing_peak = f->synthesizing;
    ev_locked(f, FAKE_EV_SYNTH_BEGIN, job->id, part);
    if (f->order_n == f->order_cap) {
        f->order_cap = f->order_cap ? 2 * f->order_cap : 1024;
        f->order = realloc(f->order, f->order_cap * sizeof *f->order);
    }
    f->order[f->order_n++] = job->id << 20 | part;
    pthread_mutex_unlock(&f->mu);
    ev_hook(f, FAKE_EV_SYNTH_BEGIN, job->id, part);

    cz_status st = CZ_OK;
    for (int i = 0; i < prep->synth_ms; i++) {
        if (cz_engine_cancel_requested(cancel)) {
            st = CZ_ERR_CANCELLED;
            break;
        }
        fake_sleep_ms(1);
    }
    if (st == CZ_OK && fails(prep, "synth", part)) {
        snprintf(msg, len, "injected synthesis failure");
        st = CZ_ERR_UNSATISFIED;
    }
    cz_engine_timings_add(t, "witness", prep->synth_ms * 0.7);
    cz_engine_timings_add(t, "matvec", prep->synth_ms * 0.3);
    pthread_mutex_lock(&f->mu);
    f->synthesizing--;
    ev_locked(f, FAKE_EV_SYNTH_END, job->id, part);
    if (st != CZ_OK) {
        f->abc_alive--;
        acct(f, -(int64_t)(es->abc_bytes + es->rest_bytes));
        if (st == CZ_ERR_CANCELLED)
            f->cancelled_synth++;
        pthread_mutex_unlock(&f->mu);
        return st;
    }
    f->synth_alive++;
    if (f->synth_alive > f->synth_alive_peak)
        f->synth_alive_peak = f->synth_alive;
    pthread_mutex_unlock(&f->mu);
    fsynth *s = malloc(sizeof *s);
    s->magic = SYNTH_MAGIC;
    s->circ = c;
    s->part = part;
    s->job = job->id;
    s->prep = prep;
    s->digest = prep->digest;
    *out = s;
    return CZ_OK;
}

static void f_free_synth(void *ctx, void *synth)
{
    fake_backend *f = ctx;
    fsynth *s = synth;
    pthread_mutex_lock(&f->mu);
    if (s->magic != SYNTH_MAGIC)
        f->errors++;
    f->synth_alive--;
    f->abc_alive--;
    acct(f, -(int64_t)(f->circ[s->circ].est.abc_bytes + f->circ[s->circ].est.rest_bytes));
    pthread_mutex_unlock(&f->mu);
    s->magic = 0;
    free(s);
}

/* Waits (polling, at most ms) until cond(f, d) holds; returns whether it did. */
static bool fake_wait_for(fake_backend *f, unsigned d, int ms, bool (*cond)(fake_backend *, unsigned))
{
    for (int i = 0; i < ms; i++) {
        if (cond(f, d))
            return true;
        fake_sleep_ms(1);
    }
    return cond(f, d);
}

static bool overlap_cond(fake_backend *f, unsigned d)
{
    return atomic_load(&f->overlap_seen[d]) > 0;
}

static bool spread_cond(fake_backend *f, unsigned d)
{
    for (unsigned i = 0; i < FAKE_MAX_DEVICES; i++)
        if (i != d && atomic_load(&f->kernel_entered[i]) < f->spread_need[i])
            return false;
    return true;
}

static cz_status f_prove_start(void *ctx, void *params, void *synth, cz_engine_device *dev,
                               void **pending, cz_engine_timings *t, char *msg, size_t len)
{
    fake_backend *f = ctx;
    fsynth *s = synth;
    (void)params;
    unsigned d = cz_engine_device_index(dev);
    if (d >= FAKE_MAX_DEVICES)
        d = FAKE_MAX_DEVICES - 1;
    pthread_mutex_lock(&f->mu);
    if (s->magic != SYNTH_MAGIC)
        f->errors++;
    f->synth_alive--; /* picked up */
    const cz_engine_estimate *es = &f->circ[s->circ].est;
    int call = ++f->dev_calls[d];
    bool dfail = f->dev_fail_always[d] || (f->dev_fail_nth[d] && call == f->dev_fail_nth[d]);
    if (++f->dev_holding[d] > f->dev_holding_peak[d])
        f->dev_holding_peak[d] = f->dev_holding[d];
    ev_locked(f, FAKE_EV_PROVE_BEGIN, s->job, s->part);
    pthread_mutex_unlock(&f->mu);
    ev_hook(f, FAKE_EV_PROVE_BEGIN, s->job, s->part);
    int prove_ms = s->prep->prove_ms + f->dev_prove_ms[d];

    /* CPU prep: outside the device region. Seeing another worker's kernel
     * of this device running now proves the lock does not cover it. */
    if (atomic_load(&f->in_kernel[d]) > 0)
        atomic_fetch_add(&f->overlap_seen[d], 1);
    fake_sleep_ms(f->prove_cpu_ms);
    if (f->lock_device_itself)
        cz_engine_device_lock(dev);
    int k = atomic_fetch_add(&f->in_kernel[d], 1) + 1;
    int pk = atomic_load(&f->kernel_peak[d]);
    while (k > pk && !atomic_compare_exchange_weak(&f->kernel_peak[d], &pk, k)) {
    }
    atomic_fetch_add(&f->kernel_entered[d], 1);
    pthread_mutex_lock(&f->mu);
    if (++f->dev_in[d] > f->dev_in_peak[d])
        f->dev_in_peak[d] = f->dev_in[d];
    pthread_mutex_unlock(&f->mu);
    if (f->rendezvous_ms)
        (void)fake_wait_for(f, d, f->rendezvous_ms, overlap_cond);
    if (f->spread_ms)
        (void)fake_wait_for(f, d, f->spread_ms, spread_cond);
    if (!dfail)
        fake_sleep_ms(prove_ms);
    atomic_fetch_sub(&f->in_kernel[d], 1);
    pthread_mutex_lock(&f->mu);
    f->dev_in[d]--;
    acct(f, -(int64_t)es->abc_bytes); /* a/b/c freed inside prove_start */
    f->abc_alive--;
    /* the rest of the call is bookkeeping: the stage's work ends here */
    ev_locked(f, FAKE_EV_PROVE_END, s->job, s->part);
    pthread_mutex_unlock(&f->mu);
    if (f->lock_device_itself)
        cz_engine_device_unlock(dev);
    cz_engine_timings_add(t, "ntt", prove_ms * 0.4);
    cz_engine_timings_add(t, "msm", prove_ms * 0.6);

    if (dfail || fails(s->prep, "prove", s->part)) {
        pthread_mutex_lock(&f->mu);
        acct(f, -(int64_t)es->rest_bytes);
        f->dev_holding[d]--;
        pthread_mutex_unlock(&f->mu);
        s->magic = 0;
        free(s);
        if (dfail) {
            snprintf(msg, len, "injected device fault on device %u (call %d)", d, call);
            return CZ_ERR_DEVICE;
        }
        snprintf(msg, len, "injected prover failure");
        return CZ_ERR_INTERNAL;
    }
    fpending *p = malloc(sizeof *p);
    p->magic = PEND_MAGIC;
    p->circ = s->circ;
    p->part = s->part;
    p->job = s->job;
    p->prep = s->prep;
    p->digest = s->digest;
    s->magic = 0;
    free(s);
    pthread_mutex_lock(&f->mu);
    f->pending_alive++;
    f->dev_ok[d]++;
    f->dev_holding[d]--;
    pthread_mutex_unlock(&f->mu);
    *pending = p;
    return CZ_OK;
}

static void f_free_pending(void *ctx, void *pending)
{
    fake_backend *f = ctx;
    fpending *p = pending;
    pthread_mutex_lock(&f->mu);
    if (p->magic != PEND_MAGIC)
        f->errors++;
    f->pending_alive--;
    acct(f, -(int64_t)f->circ[p->circ].est.rest_bytes);
    pthread_mutex_unlock(&f->mu);
    p->magic = 0;
    free(p);
}

static cz_status f_prove_finish(void *ctx, void *params, void *pending, uint8_t *proof,
                                cz_engine_timings *t, char *msg, size_t len)
{
    fake_backend *f = ctx;
    fpending *p = pending;
    (void)params;
    cz_job_id job = p->job;
    uint32_t part = p->part;
    pthread_mutex_lock(&f->mu);
    ev_locked(f, FAKE_EV_FINISH_BEGIN, job, part);
    pthread_mutex_unlock(&f->mu);
    ev_hook(f, FAKE_EV_FINISH_BEGIN, job, part);
    fake_sleep_ms(p->prep->finish_ms);
    cz_engine_timings_add(t, "b_g2", p->prep->finish_ms);
    bool fail = fails(p->prep, "finish", p->part);
    size_t pb = f->circ[p->circ].est.proof_bytes;
    if (!fail) {
        for (size_t i = 0; i < pb; i++)
            proof[i] = (uint8_t)(p->digest + p->part + i);
        uint32_t j32 = (uint32_t)p->job;
        for (int i = 0; i < 4 && (size_t)i < pb; i++)
            proof[i] = (uint8_t)(p->part >> (8 * i));
        for (int i = 0; i < 4 && (size_t)(4 + i) < pb; i++)
            proof[4 + i] = (uint8_t)(j32 >> (8 * i));
    }
    f_free_pending(ctx, p);
    pthread_mutex_lock(&f->mu);
    ev_locked(f, FAKE_EV_FINISH_END, job, part);
    pthread_mutex_unlock(&f->mu);
    if (fail) {
        snprintf(msg, len, "injected finish failure");
        return CZ_ERR_INTERNAL;
    }
    return CZ_OK;
}

static cz_status f_verify(void *ctx, void *params, const cz_engine_job_view *job,
                          const uint8_t *proof, size_t len, char *msg, size_t mlen)
{
    fake_backend *f = ctx;
    fparams *pp = params;
    const fprep *prep = job->prepared;
    fake_sleep_ms(f->verify_ms);
    size_t pb = f->circ[pp->circ].est.proof_bytes;
    if (len != pb * job->num_partitions) {
        snprintf(msg, mlen, "length %zu", len);
        return CZ_ERR_MISMATCH;
    }
    uint8_t *exp = malloc(pb);
    cz_status st = CZ_OK;
    for (uint32_t k = 0; k < job->num_partitions && st == CZ_OK; k++) {
        fake_expected_proof(job->payload, job->payload_len, job->id, k, exp, pb);
        if (memcmp(exp, proof + k * pb, pb)) {
            snprintf(msg, mlen, "partition %u proof mismatch", k);
            st = CZ_ERR_MISMATCH;
        }
    }
    free(exp);
    if (st == CZ_OK && prep && !strcmp(prep->fail_stage, "verify")) {
        snprintf(msg, mlen, "injected verify failure");
        st = CZ_ERR_MISMATCH;
    }
    return st;
}

static void f_device_name(void *ctx, unsigned index, char *name, size_t len)
{
    (void)ctx;
    snprintf(name, len, "fake device %u", index);
}

void fake_backend_vtable(fake_backend *f, cz_engine_backend *b)
{
    memset(b, 0, sizeof *b);
    b->ctx = f;
    b->estimate = f_estimate;
    b->load_params = f_load;
    b->unload_params = f_unload;
    b->prepare_job = f_prepare;
    b->release_job = f_release;
    b->synthesize = f_synth;
    b->prove_start = f_prove_start;
    b->prove_finish = f_prove_finish;
    b->free_synth = f_free_synth;
    b->free_pending = f_free_pending;
    b->verify = f_verify;
    b->backend_locks_device = f->lock_device_itself;
    b->device_name = f_device_name;
}
