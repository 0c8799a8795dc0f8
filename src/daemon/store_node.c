/*
 * cuzkd's store node (store_node.h): the claimer, completer and timer
 * threads, the connection pool of the front ends, and the postgres job
 * service.
 *
 * DESIGN
 * - One list of "held" partitions (claimed here and not yet let go),
 *   under mu: each knows its store (job, k) and its engine sub-job. The
 *   claimer adds to it (holding mu across cz_engine_submit, so that the
 *   sub-job's end cannot be looked up before its entry exists), the
 *   completer removes from it, the timer reads it for the heartbeat.
 * - on_job_done (an engine thread) only queues the sub-job's end for the
 *   completer: the engine's threads never wait for the database.
 * - A completion that cannot be written (the database is away) keeps its
 *   proof in the entry and is tried again; the first completion of a
 *   partition wins in the store, so writing it late is always safe.
 * - The heartbeat renews every partition claimed under this node id, so a
 *   claim this node will not work on is given back explicitly
 *   (cz_store_release_partition), never just forgotten; at start the
 *   claims of the node id's previous run are given back
 *   (cz_store_release_node).
 * - Counters are atomics: /v1/status and /metrics read them from any
 *   request thread without taking mu.
 */
#include "daemon/store_node.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "cuzk/store.h"

typedef struct held {
    cz_job_id job;           /* the store's */
    uint32_t k, nparts;
    char circuit[128];
    cz_job_id sub;           /* the engine's sub-job */
    bool ended;              /* the sub-job ended; its completion is being written */
    bool drop;               /* the heartbeat says nobody needs it any more */
    uint8_t *proof;          /* DONE, not yet stored */
    size_t proof_len;
    struct held *next;
} held;

typedef enum { W_ENDED = 0, W_ASSEMBLE } work_kind;

typedef struct work {
    work_kind kind;
    cz_job_id id;            /* W_ENDED: the sub-job; W_ASSEMBLE: the store's job */
    cz_job_state state;      /* W_ENDED */
    uint64_t not_before_ns;  /* a retry waits until then */
    unsigned tries;
    struct work *next;
} work;

struct cz_store_node {
    cz_daemon_config cfg;
    char address[1000]; /* cuzk_nodes.address (at most 999 characters): where operators reach it */
    cz_engine *engine;
    void (*log)(void *arg, cz_log_level level, const char *line);
    void *log_arg;
    cz_store_config sc;

    /* connections: one per thread, and the pool of the front ends */
    cz_store *claim_s, *complete_s, *timer_s;
    cz_store **pool;
    unsigned npool, pool_free_n;
    unsigned *pool_free;
    pthread_mutex_t pool_mu;
    pthread_cond_t pool_cv;

    /* circuits this node claims (backend.circuits; none = all) */
    char **circuits;
    size_t ncircuits;
    unsigned slots;

    pthread_mutex_t mu;
    pthread_cond_t claim_cv, work_cv, timer_cv;
    held *held_head;
    unsigned nheld;
    work *work_head, *work_tail;
    bool stop_claim, stop;
    bool started;
    pthread_t claimer, completer, timer;
    bool claimer_running;
    uint64_t hb_ok_ns;       /* last successful heartbeat (monotonic) */
    bool db_down;            /* the last timer round failed (logged once) */

    atomic_uint_fast64_t claims, completions, duplicates, late, failed_parts, lost_leases, reclaimed,
        assembled, assembly_failed, released, db_errors, reconnects_base;
    atomic_uint_fast64_t held_now;
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nlog(cz_store_node *n, cz_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void nlog(cz_store_node *n, cz_log_level lvl, const char *fmt, ...)
{
    if (!n->log || lvl > n->cfg.log_level)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    n->log(n->log_arg, lvl, line);
}

static void timed_wait(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + (ms % 1000) * 1000000u;
    ts.tv_sec += (time_t)(ms / 1000 + ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    pthread_cond_timedwait(cv, mu, &ts);
}

/* ---- payloads by reference ------------------------------------------------ */

/* Reads a payload_uri: file:///absolute/path only (every node must be able
 * to resolve it; a shared file system is the one form this node knows). */
static cz_status read_uri(cz_store_node *n, const char *uri, uint8_t **out, size_t *len, char *msg, size_t msglen)
{
    *out = NULL;
    *len = 0;
    if (strncmp(uri, "file://", 7) || uri[7] != '/') {
        snprintf(msg, msglen, "payload URI '%.300s' is not supported: this node reads only file:///absolute/path",
                 uri);
        return CZ_ERR_UNSUPPORTED;
    }
    const char *path = uri + 7;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(msg, msglen, "payload URI '%.300s': cannot open %s: %s", uri, path, strerror(errno));
        return CZ_ERR_IO;
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > n->cfg.max_payload_bytes) {
        snprintf(msg, msglen, "payload URI '%.300s': not a regular file of at most daemon.max_payload_bytes = %" PRIu64
                 " bytes", uri, n->cfg.max_payload_bytes);
        fclose(f);
        return CZ_ERR_INVALID_ARG;
    }
    size_t sz = (size_t)sb.st_size;
    uint8_t *b = malloc(sz ? sz : 1);
    if (!b || fread(b, 1, sz, f) != sz) {
        snprintf(msg, msglen, "payload URI '%.300s': cannot read %zu bytes", uri, sz);
        free(b);
        fclose(f);
        return b ? CZ_ERR_IO : CZ_ERR_NOMEM;
    }
    fclose(f);
    *out = b;
    *len = sz;
    return CZ_OK;
}

/* ---- the held list (under mu) --------------------------------------------- */

static held *held_by_sub_locked(cz_store_node *n, cz_job_id sub)
{
    for (held *h = n->held_head; h; h = h->next)
        if (h->sub == sub)
            return h;
    return NULL;
}

static void held_remove_locked(cz_store_node *n, held *x)
{
    for (held **pp = &n->held_head; *pp; pp = &(*pp)->next)
        if (*pp == x) {
            *pp = x->next;
            n->nheld--;
            atomic_store(&n->held_now, n->nheld);
            free(x->proof);
            free(x);
            pthread_cond_signal(&n->claim_cv); /* a slot is free */
            return;
        }
}

static void work_push_locked(cz_store_node *n, work *w)
{
    w->next = NULL;
    if (n->work_tail)
        n->work_tail->next = w;
    else
        n->work_head = w;
    n->work_tail = w;
    pthread_cond_signal(&n->work_cv);
}

static void work_add(cz_store_node *n, work_kind kind, cz_job_id id, cz_job_state state, uint64_t delay_ms,
                     unsigned tries)
{
    work *w = calloc(1, sizeof *w);
    if (!w)
        return; /* the lease lapses; another node does the work */
    w->kind = kind;
    w->id = id;
    w->state = state;
    w->tries = tries;
    w->not_before_ns = delay_ms ? mono_ns() + delay_ms * 1000000u : 0;
    pthread_mutex_lock(&n->mu);
    work_push_locked(n, w);
    pthread_mutex_unlock(&n->mu);
}

void cz_store_node_job_done(cz_store_node *n, cz_job_id sub, cz_job_state state)
{
    if (n)
        work_add(n, W_ENDED, sub, state, 0, 0);
}

/* ---- the claimer ------------------------------------------------------------ */

/* How many more partitions the engine can start now: none while a
 * sub-job waits unstarted (the pipeline or the budget is full), else the
 * free slots. */
static unsigned room_locked(cz_store_node *n)
{
    cz_engine_status st;
    cz_engine_get_status(n->engine, &st);
    if (st.jobs_queued || st.shutting_down || n->nheld >= n->slots)
        return 0;
    return n->slots - n->nheld;
}

/* Gives a claim back (this node will not work on it). */
static void give_back(cz_store_node *n, cz_store *s, cz_job_id job, uint32_t k, const char *why)
{
    cz_errbuf err = {{0}};
    bool rel = false;
    if (cz_store_release_partition(s, job, k, &rel, &err) != CZ_OK)
        nlog(n, CZ_LOG_WARN, "store job=%" PRIu64 " partition=%u: cannot give the claim back (%s): %s; its lease "
             "lapses instead", job, k, why, err.msg);
    else if (rel)
        atomic_fetch_add(&n->released, 1);
}

static bool permanent_refusal(cz_status st)
{
    /* the request itself is wrong for this node's back-end: no other
     * attempt would do better. Resources (budget, queue, memory) and the
     * shutdown are transient: the claim is given back. */
    return st == CZ_ERR_INVALID_ARG || st == CZ_ERR_NOT_FOUND || st == CZ_ERR_UNSUPPORTED ||
           st == CZ_ERR_FORMAT || st == CZ_ERR_MISMATCH;
}

/* Starts one claimed partition as a sub-job. false: the engine refused
 * it for now (the claim was given back; the claimer backs off). */
static bool start_one(cz_store_node *n, const cz_store_claimed *c)
{
    cz_store *s = n->claim_s;
    cz_errbuf err = {{0}};
    uint8_t *own = NULL;
    const uint8_t *pl = c->payload;
    size_t plen = c->payload_len;
    char msg[512] = "";
    if (c->payload_uri) {
        cz_status rs = read_uri(n, c->payload_uri, &own, &plen, msg, sizeof msg);
        if (rs != CZ_OK) {
            nlog(n, CZ_LOG_WARN, "store job=%" PRIu64 " partition=%u: %s", c->job, c->k, msg);
            if (cz_store_fail_partition(s, c->job, c->k, msg, NULL, &err) != CZ_OK && err.msg[0])
                nlog(n, CZ_LOG_WARN, "store job=%" PRIu64 ": cannot fail it: %s", c->job, err.msg);
            return true;
        }
        pl = own;
    }
    held *h = calloc(1, sizeof *h);
    if (!h) {
        free(own);
        give_back(n, s, c->job, c->k, "out of memory");
        return false;
    }
    h->job = c->job;
    h->k = c->k;
    h->nparts = c->num_partitions;
    snprintf(h->circuit, sizeof h->circuit, "%s", c->circuit_id);
    cz_job_request rq = {.circuit_id = c->circuit_id,
                         .payload = pl,
                         .payload_len = plen,
                         .num_partitions = c->num_partitions,
                         .priority = c->priority,
                         .first_partition = c->k,
                         .partition_count = 1};
    /* mu across the submit: the sub-job's end (on_job_done, queued for the
     * completer) must find its entry */
    pthread_mutex_lock(&n->mu);
    cz_status st = cz_engine_submit(n->engine, &rq, &h->sub, NULL, msg, sizeof msg);
    if (st == CZ_OK) {
        h->next = n->held_head;
        n->held_head = h;
        n->nheld++;
        atomic_store(&n->held_now, n->nheld);
    }
    pthread_mutex_unlock(&n->mu);
    free(own);
    if (st == CZ_OK) {
        nlog(n, CZ_LOG_DEBUG, "store job=%" PRIu64 " partition=%u/%u event=claimed sub=%" PRIu64 " attempt=%u",
             c->job, c->k, c->num_partitions, h->sub, c->attempts);
        return true;
    }
    free(h);
    nlog(n, CZ_LOG_INFO, "store job=%" PRIu64 " partition=%u event=refused_locally status=%s error=\"%s\"", c->job,
         c->k, cz_status_str(st), msg);
    if (permanent_refusal(st)) {
        if (cz_store_fail_partition(s, c->job, c->k, msg[0] ? msg : cz_status_str(st), NULL, &err) != CZ_OK &&
            err.msg[0])
            nlog(n, CZ_LOG_WARN, "store job=%" PRIu64 ": cannot fail it: %s", c->job, err.msg);
        else
            atomic_fetch_add(&n->failed_parts, 1);
        return true;
    }
    give_back(n, s, c->job, c->k, cz_status_str(st));
    return false;
}

static void *claimer_main(void *arg)
{
    cz_store_node *n = arg;
    pthread_setname_np(pthread_self(), "cz-store-claim");
    bool failing = false, refused = false;
    pthread_mutex_lock(&n->mu);
    while (!n->stop_claim) {
        unsigned room = room_locked(n);
        /* Heartbeats failing for about a lease: the claims are probably
         * gone already, and new ones could not be renewed either. */
        bool cut_off = mono_ns() - n->hb_ok_ns > n->sc.lease_ms * 1000000u;
        if (!room || cut_off) {
            timed_wait(&n->claim_cv, &n->mu, 50);
            continue;
        }
        pthread_mutex_unlock(&n->mu);
        cz_store_claimed_set set = {0};
        cz_errbuf err = {{0}};
        cz_status st = cz_store_claim(n->claim_s, room, (const char *const *)n->circuits, n->ncircuits, &set, &err);
        if (st != CZ_OK) {
            atomic_fetch_add(&n->db_errors, 1);
            if (!failing)
                nlog(n, CZ_LOG_WARN, "store: claiming failed: %s (trying again)", err.msg);
            failing = true;
        } else {
            if (failing)
                nlog(n, CZ_LOG_INFO, "store: claiming works again");
            failing = false;
            atomic_fetch_add(&n->claims, set.n);
            refused = false;
            for (size_t i = 0; i < set.n; i++) {
                bool stopping;
                pthread_mutex_lock(&n->mu);
                stopping = n->stop_claim;
                pthread_mutex_unlock(&n->mu);
                if (stopping || refused)
                    give_back(n, n->claim_s, set.parts[i].job, set.parts[i].k,
                              stopping ? "the node is stopping" : "the engine refused one of the set");
                else if (!start_one(n, &set.parts[i]))
                    refused = true;
            }
        }
        size_t got = st == CZ_OK ? set.n : 0;
        cz_store_claimed_set_free(&set);
        pthread_mutex_lock(&n->mu);
        /* nothing queued (or the database is away): look again shortly;
         * a full claim goes straight on. A claim the engine refused for
         * now (budget, queue) was given back: claiming it again at once
         * would only repeat that, so wait (another node may take it) */
        if (refused && !n->stop_claim) {
            refused = false;
            timed_wait(&n->claim_cv, &n->mu, 500);
        } else if (got < room && !n->stop_claim) {
            timed_wait(&n->claim_cv, &n->mu, st == CZ_OK ? 50 : 500);
        }
    }
    pthread_mutex_unlock(&n->mu);
    return NULL;
}

/* ---- the completer ------------------------------------------------------------ */

/* Strips the engine's "partition k/n: " (the store adds its own). */
static const char *engine_error_tail(const char *e)
{
    unsigned a, b;
    int used = 0;
    if (sscanf(e, "partition %u/%u: %n", &a, &b, &used) == 2 && used > 0)
        return e + used;
    return e;
}

/* Ends job (all its partitions done): verify the assembled proof, finish
 * or fail it. Returns false when it should be tried again later. */
static bool assemble(cz_store_node *n, cz_job_id job)
{
    cz_store *s = n->complete_s;
    cz_errbuf err = {{0}};
    cz_store_job j;
    cz_status st = cz_store_get_job(s, job, false, &j, &err);
    if (st == CZ_ERR_NOT_FOUND)
        return true;
    if (st != CZ_OK)
        goto retry;
    if (j.state != CZ_JOB_RUNNING && j.state != CZ_JOB_QUEUED) {
        cz_store_job_free(&j);
        return true;
    }
    uint8_t *proofs = NULL, *pl = NULL;
    size_t plen = 0, len = 0;
    char *uri = NULL;
    st = cz_store_partition_proofs(s, job, &proofs, &len, &err);
    if (st == CZ_OK)
        st = cz_store_job_payload(s, job, &pl, &plen, &uri, &err);
    if (st != CZ_OK) {
        cz_store_job_free(&j);
        free(proofs);
        if (st == CZ_ERR_NOT_FOUND || st == CZ_ERR_INVALID_ARG)
            return true; /* pruned, or not all done after all (someone else ends it) */
        goto retry;
    }
    char msg[600] = "";
    cz_status vs = CZ_OK;
    if (uri) {
        vs = read_uri(n, uri, &pl, &plen, msg, sizeof msg);
        free(uri);
    }
    if (vs == CZ_OK && n->cfg.engine.self_verify)
        vs = cz_engine_verify_proof(n->engine, j.circuit_id, pl, plen, j.num_partitions, proofs, len, msg, sizeof msg);
    free(pl);
    cz_job_state state;
    if (vs == CZ_ERR_NOT_FOUND) {
        /* an assembly taken over (cz_store_claim_assembly has no circuit
         * filter) of a circuit this node's back-end does not serve: the
         * partition proofs are the serving nodes'; failing a job for what
         * this node lacks would be wrong, and holding it would keep it
         * from everyone (the heartbeat renews the assembly lease) */
        nlog(n, CZ_LOG_WARN, "store job=%" PRIu64 ": cannot verify the assembled proof here (%s): finishing it "
             "unverified", job, msg);
        vs = CZ_ERR_UNSUPPORTED;
    }
    if (vs == CZ_OK || vs == CZ_ERR_UNSUPPORTED) {
        st = cz_store_finish_job(s, job, proofs, len, &state, &err);
        if (st == CZ_OK) {
            atomic_fetch_add(&n->assembled, 1);
            nlog(n, CZ_LOG_INFO, "store job=%" PRIu64 " event=done circuit=%s partitions=%u proof_bytes=%zu%s", job,
                 j.circuit_id, j.num_partitions, len, vs == CZ_OK ? " verified=true" : " verified=false");
        }
    } else if (vs == CZ_ERR_BUDGET || vs == CZ_ERR_NOMEM || vs == CZ_ERR_IO) {
        /* cannot verify right now: not the proof's fault */
        nlog(n, CZ_LOG_WARN, "store job=%" PRIu64 ": cannot verify the assembled proof now: %s (trying again)", job,
             msg);
        free(proofs);
        cz_store_job_free(&j);
        return false;
    } else {
        char why[700];
        snprintf(why, sizeof why, "verify: %s", msg[0] ? msg : cz_status_str(vs));
        st = cz_store_fail_job(s, job, why, &state, &err);
        if (st == CZ_OK) {
            atomic_fetch_add(&n->assembly_failed, 1);
            nlog(n, CZ_LOG_WARN, "store job=%" PRIu64 " event=end state=failed error=\"%s\"", job, why);
        }
    }
    free(proofs);
    cz_store_job_free(&j);
    if (st == CZ_OK || st == CZ_ERR_BUSY)
        return true;
retry:
    atomic_fetch_add(&n->db_errors, 1);
    nlog(n, CZ_LOG_WARN, "store job=%" PRIu64 ": assembling failed: %s (trying again)", job, err.msg);
    return false;
}

/* A sub-job ended. Returns false when its completion should be tried
 * again later (the database is away). */
static bool sub_ended(cz_store_node *n, cz_job_id sub, cz_job_state state)
{
    cz_store *s = n->complete_s;
    cz_errbuf err = {{0}};
    pthread_mutex_lock(&n->mu);
    held *h = held_by_sub_locked(n, sub);
    if (!h) {
        pthread_mutex_unlock(&n->mu);
        return true;
    }
    h->ended = true;
    cz_job_id job = h->job;
    uint32_t k = h->k;
    bool drop = h->drop;
    pthread_mutex_unlock(&n->mu);
    if (drop || state == CZ_JOB_CANCELLED) {
        /* lease lost (the heartbeat cancelled it: nothing to give back),
         * or the engine cancelled it (its shutdown): the claim goes back
         * to the queue now rather than when its lease lapses */
        pthread_mutex_lock(&n->mu);
        held_remove_locked(n, h);
        pthread_mutex_unlock(&n->mu);
        if (!drop)
            give_back(n, s, job, k, "the node is stopping");
        return true;
    }
    cz_job_result r;
    memset(&r, 0, sizeof r);
    bool have = h->proof != NULL;
    if (!have) {
        cz_status ast = cz_engine_await(n->engine, sub, 0, &r); /* a DONE result counts as read */
        if (ast != CZ_OK) {
            nlog(n, CZ_LOG_WARN, "store job=%" PRIu64 " partition=%u: sub-job %" PRIu64 " result is gone (%s)", job, k,
                 sub, cz_status_str(ast));
            cz_job_result_free(&r);
            pthread_mutex_lock(&n->mu);
            held_remove_locked(n, h);
            pthread_mutex_unlock(&n->mu);
            give_back(n, s, job, k, "result lost");
            return true;
        }
        state = r.state;
    }
    cz_status st;
    if (state == CZ_JOB_DONE) {
        if (!have) {
            pthread_mutex_lock(&n->mu);
            h->proof = r.proof;
            h->proof_len = r.proof_len;
            pthread_mutex_unlock(&n->mu);
            r.proof = NULL;
        }
        cz_engine_timings tm = {0};
        if (!have) {
            cz_engine_timings_add(&tm, "synth", r.synth_ms);
            cz_engine_timings_add(&tm, "prove", r.prove_ms);
            cz_engine_timings_add(&tm, "finish", r.finish_ms);
        }
        cz_store_completion c;
        st = cz_store_complete_partition(s, job, k, h->proof, h->proof_len, have ? NULL : &tm, &c, &err);
        if (st == CZ_OK) {
            if (c.result == CZ_STORE_COMPLETE_WRITTEN)
                atomic_fetch_add(&n->completions, 1);
            else if (c.result == CZ_STORE_COMPLETE_DUPLICATE)
                atomic_fetch_add(&n->duplicates, 1);
            else
                atomic_fetch_add(&n->late, 1);
            if (c.assemble)
                work_add(n, W_ASSEMBLE, job, CZ_JOB_DONE, 0, 0);
        }
    } else {
        /* FAILED: the engine's error fails the job, as the same failure
         * fails a whole job in memory mode (an input error such as an
         * unsatisfied witness would fail on every node) */
        st = cz_store_fail_partition(s, job, k, engine_error_tail(r.error[0] ? r.error : cz_status_str(r.status)),
                                     NULL, &err);
        if (st == CZ_OK)
            atomic_fetch_add(&n->failed_parts, 1);
        if (st == CZ_ERR_BUSY)
            st = CZ_OK;
    }
    cz_job_result_free(&r);
    if (st == CZ_OK || st == CZ_ERR_NOT_FOUND) {
        pthread_mutex_lock(&n->mu);
        held_remove_locked(n, h);
        pthread_mutex_unlock(&n->mu);
        return true;
    }
    atomic_fetch_add(&n->db_errors, 1);
    nlog(n, CZ_LOG_WARN, "store job=%" PRIu64 " partition=%u: cannot store the result: %s (trying again)", job, k,
         err.msg);
    return false;
}

static void *completer_main(void *arg)
{
    cz_store_node *n = arg;
    pthread_setname_np(pthread_self(), "cz-store-done");
    pthread_mutex_lock(&n->mu);
    for (;;) {
        work *w = n->work_head;
        uint64_t now = mono_ns();
        /* the first item due (retries wait for their time) */
        work *prev = NULL;
        while (w && w->not_before_ns > now) {
            prev = w;
            w = w->next;
        }
        if (!w) {
            if (n->stop && !n->work_head)
                break;
            if (n->stop && n->work_head) {
                /* stopping: retries left are given up (the leases lapse,
                 * another node redoes the work) */
                bool all_retries = true;
                for (work *x = n->work_head; x; x = x->next)
                    all_retries &= x->tries > 0;
                if (all_retries)
                    break;
            }
            timed_wait(&n->work_cv, &n->mu, n->work_head ? 100 : 1000);
            continue;
        }
        if (prev)
            prev->next = w->next;
        else
            n->work_head = w->next;
        if (n->work_tail == w)
            n->work_tail = prev;
        pthread_mutex_unlock(&n->mu);
        bool ok = w->kind == W_ENDED ? sub_ended(n, w->id, w->state) : assemble(n, w->id);
        pthread_mutex_lock(&n->mu);
        if (!ok && !(n->stop && w->tries >= 3)) {
            w->tries++;
            w->not_before_ns = mono_ns() + (w->tries < 10 ? 200u * w->tries : 2000u) * 1000000u;
            work_push_locked(n, w);
        } else {
            free(w);
        }
    }
    pthread_mutex_unlock(&n->mu);
    return NULL;
}

/* ---- the timer ------------------------------------------------------------------ */

static void timer_round(cz_store_node *n, uint64_t *last_prune_ns)
{
    cz_store *s = n->timer_s;
    cz_errbuf err = {{0}};
    pthread_mutex_lock(&n->mu);
    size_t nh = n->nheld;
    cz_store_part *hp = calloc(nh ? nh : 1, sizeof *hp);
    size_t i = 0;
    for (held *h = n->held_head; h && hp; h = h->next)
        hp[i++] = (cz_store_part){h->job, h->k};
    pthread_mutex_unlock(&n->mu);
    if (!hp)
        return;
    cz_store_lost *lost = NULL;
    size_t nlost = 0;
    cz_status st = cz_store_heartbeat(s, hp, i, &lost, &nlost, &err);
    free(hp);
    if (st != CZ_OK) {
        atomic_fetch_add(&n->db_errors, 1);
        pthread_mutex_lock(&n->mu);
        bool was = n->db_down;
        n->db_down = true;
        pthread_mutex_unlock(&n->mu);
        if (!was)
            nlog(n, CZ_LOG_WARN, "store: heartbeat failed: %s (serving local status, trying again every %" PRIu64
                 " ms)", err.msg, n->sc.lease_ms / 3);
        return;
    }
    cz_job_id *cancel = calloc(nlost ? nlost : 1, sizeof *cancel);
    size_t ncancel = 0;
    pthread_mutex_lock(&n->mu);
    if (n->db_down)
        nlog(n, CZ_LOG_INFO, "store: the database answers again");
    n->db_down = false;
    n->hb_ok_ns = mono_ns();
    for (size_t l = 0; l < nlost; l++) {
        for (held *h = n->held_head; h; h = h->next) {
            if (h->job != lost[l].job || h->k != lost[l].k)
                continue;
            atomic_fetch_add(&n->lost_leases, 1);
            nlog(n, CZ_LOG_INFO, "store job=%" PRIu64 " partition=%u event=lease_lost reason=%s", h->job, h->k,
                 cz_store_lost_reason_str(lost[l].reason));
            /* a finished proof of a reclaimed partition is still worth
             * storing (the first completion wins); otherwise stop */
            if (lost[l].reason != CZ_STORE_LOST_RECLAIMED || !h->ended) {
                h->drop = true;
                if (!h->ended && cancel)
                    cancel[ncancel++] = h->sub;
            }
            break;
        }
    }
    pthread_mutex_unlock(&n->mu);
    free(lost);
    /* outside mu: cancel may run on_job_done on this thread */
    for (size_t c = 0; c < ncancel; c++) {
        cz_job_state js;
        if (cz_engine_cancel(n->engine, cancel[c], &js) != CZ_OK)
            continue; /* it ended meanwhile: its completion says what became of it */
    }
    free(cancel);

    cz_store_reclaim_stats rs;
    if (cz_store_reclaim_expired(s, &rs, &err) == CZ_OK) {
        atomic_fetch_add(&n->reclaimed, rs.requeued);
        if (rs.requeued || rs.jobs_failed)
            nlog(n, CZ_LOG_INFO, "store event=reclaimed requeued=%zu jobs_failed=%zu", rs.requeued, rs.jobs_failed);
    } else {
        atomic_fetch_add(&n->db_errors, 1);
    }
    for (int a = 0; a < 16; a++) {
        cz_job_id job = 0;
        if (cz_store_claim_assembly(s, &job, &err) != CZ_OK || !job)
            break;
        nlog(n, CZ_LOG_INFO, "store job=%" PRIu64 " event=assembly_taken_over", job);
        work_add(n, W_ASSEMBLE, job, CZ_JOB_DONE, 0, 0);
    }
    uint64_t now = mono_ns();
    if (now - *last_prune_ns > 60000000000ull) {
        size_t pruned = 0;
        if (cz_store_prune(s, wall_ms(), &pruned, &err) == CZ_OK) {
            *last_prune_ns = now;
            if (pruned)
                nlog(n, CZ_LOG_DEBUG, "store event=pruned jobs=%zu", pruned);
        }
        if (cz_store_prune_nodes(s, wall_ms(), &pruned, &err) == CZ_OK && pruned)
            nlog(n, CZ_LOG_INFO, "store event=pruned nodes=%zu (silent for store.node_retention_ms, holding nothing)",
                 pruned);
    }
}

static void *timer_main(void *arg)
{
    cz_store_node *n = arg;
    pthread_setname_np(pthread_self(), "cz-store-timer");
    uint64_t last_prune = mono_ns();
    uint64_t period = n->sc.lease_ms / 3 ? n->sc.lease_ms / 3 : 1;
    pthread_mutex_lock(&n->mu);
    while (!n->stop) {
        pthread_mutex_unlock(&n->mu);
        timer_round(n, &last_prune);
        pthread_mutex_lock(&n->mu);
        if (!n->stop)
            timed_wait(&n->timer_cv, &n->mu, period);
    }
    pthread_mutex_unlock(&n->mu);
    return NULL;
}

/* ---- lifecycle ------------------------------------------------------------------ */

static void free_circuits(cz_store_node *n)
{
    for (size_t i = 0; i < n->ncircuits; i++)
        free(n->circuits[i]);
    free(n->circuits);
    n->circuits = NULL;
    n->ncircuits = 0;
}

static cz_status parse_circuits(cz_store_node *n, const char *list, cz_errbuf *err)
{
    const char *p = list;
    while (*p) {
        while (*p == ',' || *p == ' ')
            p++;
        size_t len = strcspn(p, ", ");
        if (!len)
            break;
        char **nc = realloc(n->circuits, (n->ncircuits + 1) * sizeof *nc);
        if (!nc)
            return cz_err(err, CZ_ERR_NOMEM, "out of memory");
        n->circuits = nc;
        if (len > 127 || !(n->circuits[n->ncircuits] = strndup(p, len)))
            return cz_err(err, CZ_ERR_INVALID_ARG, "backend.circuits: entry '%.*s' is not a circuit id",
                          (int)(len > 130 ? 130 : len), p);
        n->ncircuits++;
        p += len;
    }
    return CZ_OK;
}

static void close_all(cz_store_node *n)
{
    cz_store_close(n->claim_s);
    cz_store_close(n->complete_s);
    cz_store_close(n->timer_s);
    for (unsigned i = 0; i < n->npool; i++)
        cz_store_close(n->pool[i]);
    free(n->pool);
    free(n->pool_free);
}

/* Everything create made: a failed create and a destroy end the same way. */
static void free_node(cz_store_node *n)
{
    close_all(n);
    free_circuits(n);
    pthread_mutex_destroy(&n->mu);
    pthread_mutex_destroy(&n->pool_mu);
    pthread_cond_destroy(&n->pool_cv);
    pthread_cond_destroy(&n->claim_cv);
    pthread_cond_destroy(&n->work_cv);
    pthread_cond_destroy(&n->timer_cv);
    free(n);
}

cz_status cz_store_node_create(cz_store_node **out, const cz_store_node_config *c, cz_errbuf *err)
{
    *out = NULL;
    const cz_daemon_config *cfg = c->cfg;
    if (!cfg->store_conninfo[0])
        return cz_err(err, CZ_ERR_INVALID_ARG, "store.backend = postgres needs store.conninfo (a libpq conninfo "
                      "or postgresql:// URI)");
    cz_store_node *n = calloc(1, sizeof *n);
    if (!n)
        return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    n->cfg = *cfg;
    n->log = c->log;
    n->log_arg = c->log_arg;
    pthread_mutex_init(&n->mu, NULL);
    pthread_mutex_init(&n->pool_mu, NULL);
    pthread_cond_init(&n->pool_cv, NULL);
    pthread_cond_init(&n->claim_cv, NULL);
    pthread_cond_init(&n->work_cv, NULL);
    pthread_cond_init(&n->timer_cv, NULL);
    cz_store_config_default(&n->sc);
    n->sc.conninfo = n->cfg.store_conninfo;
    n->sc.node_id = n->cfg.store_node_id;
    /* the configured listeners, as `cuzk store nodes` shows them (a TCP
     * port 0 stays 0 here: the store is opened before the listeners bind) */
    size_t al = 0;
    if (n->cfg.listen[0] && strcmp(n->cfg.listen, "off"))
        al += (size_t)snprintf(n->address + al, sizeof n->address - al, "http=%s", n->cfg.listen);
    if (n->cfg.grpc_listen[0] && strcmp(n->cfg.grpc_listen, "off") && al < sizeof n->address)
        snprintf(n->address + al, sizeof n->address - al, "%sgrpc=%s", al ? " " : "", n->cfg.grpc_listen);
    n->sc.node_address = n->address[0] ? n->address : NULL;
    n->sc.lease_ms = cfg->store_lease_ms;
    n->sc.max_attempts = cfg->store_max_attempts;
    n->sc.await_poll_ms = cfg->store_await_poll_ms;
    n->sc.node_retention_ms = cfg->store_node_retention_ms;
    n->sc.result_retention_ms = cfg->engine.result_retention_ms ? cfg->engine.result_retention_ms : 1;
    const cz_engine_config *ec = &cfg->engine;
    n->slots = ec->partition_workers + ec->devices * ec->workers_per_device;
    if (!n->slots)
        n->slots = 1;
    cz_status st = parse_circuits(n, cfg->circuits, err);
    if (st != CZ_OK)
        goto fail;
    n->npool = cfg->store_connections ? cfg->store_connections : 1;
    n->pool = calloc(n->npool, sizeof *n->pool);
    n->pool_free = calloc(n->npool, sizeof *n->pool_free);
    if (!n->pool || !n->pool_free) {
        st = cz_err(err, CZ_ERR_NOMEM, "out of memory");
        goto fail;
    }
    cz_store **conns[3] = {&n->claim_s, &n->complete_s, &n->timer_s};
    for (int i = 0; i < 3; i++)
        if ((st = cz_store_open(conns[i], &n->sc, err)) != CZ_OK)
            goto fail;
    for (unsigned i = 0; i < n->npool; i++) {
        if ((st = cz_store_open(&n->pool[i], &n->sc, err)) != CZ_OK)
            goto fail;
        n->pool_free[n->pool_free_n++] = i;
    }
    size_t rel = 0;
    if ((st = cz_store_release_node(n->timer_s, &rel, err)) != CZ_OK)
        goto fail;
    if (rel)
        nlog(n, CZ_LOG_INFO, "store: gave back %zu partitions still claimed by node '%s' from its previous run", rel,
             n->cfg.store_node_id);
    atomic_store(&n->reconnects_base, 0);
    n->hb_ok_ns = mono_ns();
    *out = n;
    return CZ_OK;
fail:
    free_node(n);
    return st;
}

cz_status cz_store_node_start(cz_store_node *n, cz_engine *e, cz_errbuf *err)
{
    n->engine = e;
    if (pthread_create(&n->completer, NULL, completer_main, n) != 0)
        return cz_err(err, CZ_ERR_NOMEM, "cannot start the store completer thread");
    if (pthread_create(&n->timer, NULL, timer_main, n) != 0) {
        pthread_mutex_lock(&n->mu);
        n->stop = true;
        pthread_cond_broadcast(&n->work_cv);
        pthread_mutex_unlock(&n->mu);
        pthread_join(n->completer, NULL);
        return cz_err(err, CZ_ERR_NOMEM, "cannot start the store timer thread");
    }
    n->started = true;
    if (pthread_create(&n->claimer, NULL, claimer_main, n) != 0)
        return cz_err(err, CZ_ERR_NOMEM, "cannot start the store claimer thread");
    n->claimer_running = true;
    nlog(n, CZ_LOG_INFO, "store: node '%s' serving jobs of the shared store (lease %" PRIu64 " ms, %u slots, %s)",
         n->cfg.store_node_id, n->sc.lease_ms, n->slots, n->ncircuits ? n->cfg.circuits : "every circuit");
    return CZ_OK;
}

void cz_store_node_stop_claiming(cz_store_node *n)
{
    if (!n)
        return;
    pthread_mutex_lock(&n->mu);
    n->stop_claim = true;
    pthread_cond_broadcast(&n->claim_cv);
    pthread_mutex_unlock(&n->mu);
    if (n->claimer_running) {
        pthread_join(n->claimer, NULL);
        n->claimer_running = false;
    }
}

void cz_store_node_destroy(cz_store_node *n)
{
    if (!n)
        return;
    cz_store_node_stop_claiming(n);
    if (n->started) {
        /* the engine has shut down: every sub-job's end is queued. The
         * completer writes what finished, then both threads stop. */
        pthread_mutex_lock(&n->mu);
        n->stop = true;
        pthread_cond_broadcast(&n->work_cv);
        pthread_cond_broadcast(&n->timer_cv);
        pthread_mutex_unlock(&n->mu);
        pthread_join(n->completer, NULL);
        pthread_join(n->timer, NULL);
    }
    /* what is left was not finished here: give it back to the queue now
     * (else its lease lapses) */
    size_t back = 0;
    while (n->held_head) {
        held *h = n->held_head;
        if (!h->proof) {
            give_back(n, n->timer_s, h->job, h->k, "the node is stopping");
            back++;
        }
        n->held_head = h->next;
        free(h->proof);
        free(h);
    }
    while (n->work_head) {
        work *w = n->work_head;
        n->work_head = w->next;
        free(w);
    }
    if (back)
        nlog(n, CZ_LOG_INFO, "store: gave back %zu unfinished partitions at shutdown", back);
    free_node(n);
}

/* ---- the pool and the job service --------------------------------------------- */

static cz_store *pool_get(cz_store_node *n, unsigned *slot)
{
    pthread_mutex_lock(&n->pool_mu);
    while (!n->pool_free_n)
        pthread_cond_wait(&n->pool_cv, &n->pool_mu);
    *slot = n->pool_free[--n->pool_free_n];
    pthread_mutex_unlock(&n->pool_mu);
    return n->pool[*slot];
}

static void pool_put(cz_store_node *n, unsigned slot)
{
    pthread_mutex_lock(&n->pool_mu);
    n->pool_free[n->pool_free_n++] = slot;
    pthread_cond_signal(&n->pool_cv);
    pthread_mutex_unlock(&n->pool_mu);
}

static void result_of(const cz_store_job *j, cz_job_result *r)
{
    memset(r, 0, sizeof *r);
    r->id = j->id;
    r->state = j->state;
    r->status = j->state == CZ_JOB_DONE        ? CZ_OK
                : j->state == CZ_JOB_CANCELLED ? CZ_ERR_CANCELLED
                : j->state == CZ_JOB_FAILED    ? CZ_ERR_INTERNAL
                                               : CZ_OK;
    snprintf(r->error, sizeof r->error, "%s", j->error);
    r->failed_partition = j->failed_partition;
    r->num_partitions = j->num_partitions;
    r->partitions_done = j->partitions_done;
    r->priority = j->priority;
    int64_t end = j->ended_ms ? j->ended_ms : wall_ms();
    int64_t start = j->started_ms ? j->started_ms : end;
    r->queued_ms = start > j->created_ms ? (double)(start - j->created_ms) : 0;
    r->total_ms = end > j->created_ms ? (double)(end - j->created_ms) : 0;
    snprintf(r->circuit_id, sizeof r->circuit_id, "%s", j->circuit_id);
    r->proof = j->proof;
    r->proof_len = j->proof_len;
}

static cz_status p_submit(void *ctx, const cz_job_request *req, cz_job_id *id, bool *existing, char *msg,
                          size_t msglen)
{
    cz_store_node *n = ctx;
    if (req->partition_count) {
        snprintf(msg, msglen, "partition ranges are for a node's own sub-jobs, not for submissions");
        return CZ_ERR_INVALID_ARG;
    }
    /* A circuit no node could prove is refused here, as in memory mode,
     * rather than failing at its first claim: the name is checked against
     * this node's back-end kind (every node of one store runs the same
     * kind), not against what this node serves (another node may). */
    cz_status cst = cz_engine_check_circuit(n->engine, req->circuit_id, msg, msglen);
    if (cst != CZ_OK)
        return cst;
    cz_store_job_request sr = {.circuit_id = req->circuit_id,
                               .payload = req->payload,
                               .payload_len = req->payload_len,
                               .num_partitions = req->num_partitions,
                               .priority = req->priority,
                               .request_id = req->request_id};
    unsigned slot;
    cz_store *s = pool_get(n, &slot);
    cz_errbuf err = {{0}};
    bool ex = false;
    cz_status st = cz_store_submit(s, &sr, id, &ex, &err);
    pool_put(n, slot);
    if (existing)
        *existing = ex;
    if (st != CZ_OK) {
        snprintf(msg, msglen, "job store: %s", err.msg[0] ? err.msg : cz_status_str(st));
        if (st == CZ_ERR_IO)
            atomic_fetch_add(&n->db_errors, 1);
    }
    return st;
}

/* The answer of a read that found no job to describe: an empty result
 * with the store's words when the database failed (counted). */
static cz_status no_result(cz_store_node *n, cz_job_id id, cz_status st, const cz_errbuf *err,
                           cz_job_result *out)
{
    memset(out, 0, sizeof *out);
    out->id = id;
    out->failed_partition = -1;
    if (st == CZ_ERR_IO) {
        atomic_fetch_add(&n->db_errors, 1);
        snprintf(out->error, sizeof out->error, "job store: %.240s", err->msg);
    }
    return st;
}

static cz_status p_await(void *ctx, cz_job_id id, int64_t timeout_ms, cz_job_result *out)
{
    cz_store_node *n = ctx;
    unsigned slot;
    cz_store *s = pool_get(n, &slot);
    cz_errbuf err = {{0}};
    cz_store_job j;
    memset(&j, 0, sizeof j);
    cz_status st = cz_store_await(s, id, timeout_ms, &j, &err);
    pool_put(n, slot);
    if (st == CZ_OK || st == CZ_ERR_TIMEOUT) {
        result_of(&j, out); /* takes the proof */
        return st;
    }
    cz_store_job_free(&j);
    return no_result(n, id, st, &err, out);
}

static cz_status p_job_info(void *ctx, cz_job_id id, cz_job_result *out)
{
    cz_store_node *n = ctx;
    unsigned slot;
    cz_store *s = pool_get(n, &slot);
    cz_errbuf err = {{0}};
    cz_store_job j;
    memset(&j, 0, sizeof j);
    cz_status st = cz_store_get_job(s, id, false, &j, &err);
    pool_put(n, slot);
    if (st == CZ_OK) {
        result_of(&j, out);
        return CZ_OK;
    }
    return no_result(n, id, st, &err, out);
}

static cz_status p_cancel(void *ctx, cz_job_id id, cz_job_state *state)
{
    cz_store_node *n = ctx;
    unsigned slot;
    cz_store *s = pool_get(n, &slot);
    cz_errbuf err = {{0}};
    cz_status st = cz_store_cancel(s, id, state, &err);
    pool_put(n, slot);
    if (st == CZ_ERR_IO) {
        atomic_fetch_add(&n->db_errors, 1);
        nlog(n, CZ_LOG_WARN, "store: cancel of job %" PRIu64 ": %s", id, err.msg);
    }
    /* the nodes holding its partitions learn it at their next heartbeat;
     * this one too, without waiting for it */
    if (st == CZ_OK) {
        pthread_mutex_lock(&n->mu);
        pthread_cond_broadcast(&n->timer_cv);
        pthread_mutex_unlock(&n->mu);
    }
    return st;
}

void cz_store_node_jobs(cz_store_node *n, cz_jobs *out)
{
    *out = (cz_jobs){.ctx = n,
                     .name = "postgres",
                     .submit = p_submit,
                     .await = p_await,
                     .job_info = p_job_info,
                     .cancel = p_cancel};
}

/* ---- status ---------------------------------------------------------------------- */

static uint64_t reconnects(cz_store_node *n)
{
    /* each connection's own counter, read under the lock its user holds:
     * the thread connections are read without one (a torn read of a
     * 64-bit counter does not happen on the platforms cuzk supports, and
     * this is a statistic) */
    uint64_t r = 0;
    cz_store_stats st;
    pthread_mutex_lock(&n->pool_mu);
    for (unsigned i = 0; i < n->pool_free_n; i++) {
        cz_store_get_stats(n->pool[n->pool_free[i]], &st);
        r += st.reconnects;
    }
    pthread_mutex_unlock(&n->pool_mu);
    return r;
}

typedef struct {
    const char *name, *help;
    uint64_t v;
    bool gauge;
} stat_line;

static size_t stat_lines(cz_store_node *n, stat_line *l)
{
    size_t i = 0;
    l[i++] = (stat_line){"held", "Partitions this node holds (claimed, not yet let go).", atomic_load(&n->held_now), true};
    l[i++] = (stat_line){"claims", "Partitions claimed by this node.", atomic_load(&n->claims), false};
    l[i++] = (stat_line){"completions", "Partition proofs this node stored first.", atomic_load(&n->completions), false};
    l[i++] = (stat_line){"duplicates", "Partition proofs another node had stored first.", atomic_load(&n->duplicates), false};
    l[i++] = (stat_line){"late", "Partition proofs of jobs that had ended.", atomic_load(&n->late), false};
    l[i++] = (stat_line){"partitions_failed", "Partitions this node failed (their job fails).", atomic_load(&n->failed_parts), false};
    l[i++] = (stat_line){"lost_leases", "Partitions whose lease this node lost.", atomic_load(&n->lost_leases), false};
    l[i++] = (stat_line){"reclaimed", "Lapsed partitions this node put back in the queue.", atomic_load(&n->reclaimed), false};
    l[i++] = (stat_line){"released", "Claims this node gave back unworked.", atomic_load(&n->released), false};
    l[i++] = (stat_line){"assembled", "Jobs this node assembled, verified and finished.", atomic_load(&n->assembled), false};
    l[i++] = (stat_line){"assembly_failed", "Jobs whose assembled proof failed verification here.", atomic_load(&n->assembly_failed), false};
    l[i++] = (stat_line){"db_errors", "Store calls that failed (database unreachable or refusing).", atomic_load(&n->db_errors), false};
    l[i++] = (stat_line){"reconnects", "Reconnections of the request pool's idle connections.", reconnects(n), false};
    return i;
}

json_t *cz_store_node_status_json(cz_store_node *n)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "backend", json_string("postgres"));
    json_object_set_new(o, "node_id", json_string(n->cfg.store_node_id));
    json_object_set_new(o, "lease_ms", json_integer((json_int_t)n->sc.lease_ms));
    json_object_set_new(o, "slots", json_integer(n->slots));
    pthread_mutex_lock(&n->mu);
    bool down = n->db_down;
    pthread_mutex_unlock(&n->mu);
    json_object_set_new(o, "database_reachable", json_boolean(!down));
    stat_line l[16];
    size_t k = stat_lines(n, l);
    for (size_t i = 0; i < k; i++)
        json_object_set_new(o, l[i].name, json_integer((json_int_t)l[i].v));
    return o;
}

size_t cz_store_node_metrics(cz_store_node *n, char *buf, size_t cap)
{
    stat_line l[16];
    size_t k = stat_lines(n, l), off = 0;
    pthread_mutex_lock(&n->mu);
    bool down = n->db_down;
    pthread_mutex_unlock(&n->mu);
    for (size_t i = 0; i < k; i++) {
        int w = snprintf(buf + (off < cap ? off : cap), off < cap ? cap - off : 0,
                         "# HELP cuzk_store_%s%s %s\n# TYPE cuzk_store_%s%s %s\ncuzk_store_%s%s{node_id=\"%s\"} %" PRIu64 "\n",
                         l[i].name, l[i].gauge ? "" : "_total", l[i].help, l[i].name, l[i].gauge ? "" : "_total",
                         l[i].gauge ? "gauge" : "counter", l[i].name, l[i].gauge ? "" : "_total", n->cfg.store_node_id,
                         l[i].v);
        if (w > 0)
            off += (size_t)w;
    }
    int w = snprintf(buf + (off < cap ? off : cap), off < cap ? cap - off : 0,
                     "# HELP cuzk_store_database_up Whether the last heartbeat reached the database.\n"
                     "# TYPE cuzk_store_database_up gauge\ncuzk_store_database_up{node_id=\"%s\"} %d\n",
                     n->cfg.store_node_id, down ? 0 : 1);
    if (w > 0)
        off += (size_t)w;
    return off;
}
