/*
 * cuzk engine — stages, memory budget, parameter manager, job lifecycle.
 *
 * DESIGN
 * ======
 * Stages and their threads (each stage owns its threads; plain pthreads):
 *
 *   submit ──> ready heap (jobs: priority, then FIFO)
 *      dispatcher (1 thread) only decides, it never calls a slow back-end
 *        function: it takes the head job's next partition, RESERVES its
 *        bytes from the budget and hands it to an idle synthesis worker.
 *        It reserves only when a synthesis worker is idle, so no memory is
 *        held by partitions that are merely queued. When the head's
 *        parameters are absent it charges their bytes, queues the load for
 *        the loader threads and PARKS the job on the parameter entry (out
 *        of the ready heap) until the load ends; a job whose parameters
 *        are being loaded or unloaded is parked likewise. So one load of
 *        many GiB delays only its own circuit's jobs. Its evictions are
 *        queued to the loaders too.
 *   loader threads (param_loaders): backend.load_params / unload_params;
 *        at the end of a load the parked jobs go back to the ready heap
 *        (or fail with the load's error).
 *   synthesis workers (partition_workers): the worker holding a job's
 *        first dispatched partition parses the payload (backend.prepare_job,
 *        once per job; the job's other partitions wait for it), then
 *        backend.synthesize, then SEND
 *        into the channel. A worker slot is the "synthesis permit": it is
 *        released (the worker goes back to idle) only after the send has
 *        succeeded. That is the rule the reference engine broke (docs/design.md §4.3 rule 2): releasing the permit
 *        before the send let finished partitions pile up behind a full
 *        channel (28 x 16 GiB, OOM). With the rule, objects that finished
 *        synthesis but are not yet taken by a prover number at most
 *        channel capacity + partition_workers (tracked as
 *        synthesized_waiting_peak; a test hook reproduces the bug).
 *   channel: bounded priority queue (priority, job age, partition index),
 *        capacity max(synthesis_lookahead, partition_workers).
 *   prover workers (workers_per_device x devices): backend.prove_start under
 *        the device lock (taken by the engine around the call, or by the
 *        back-end around its kernel region only), then the a/b/c share of
 *        the reservation is returned (prove_start freed a/b/c). A worker
 *        takes the channel's head only when its device is not quarantined
 *        and its device budget admits the partition (else it leaves the
 *        head to the other devices' workers: strict priority order, no
 *        overtaking). A CZ_ERR_DEVICE keeps the reservation: the worker
 *        synthesizes the partition again and puts it on the retry list,
 *        which workers of the other devices serve before the channel
 *        (docs/design.md, "GPU proving").
 *   finalizer queue (priority heap) -> finalizers: backend.prove_finish into
 *        the job's proof buffer at the partition's offset; the rest of the
 *        reservation is returned. The finalizer of the last partition
 *        assembles (the buffer already is in partition order),
 *        self-verifies (optional) and completes the job.
 *
 * One mutex (mu) protects all engine state; condition variables per queue.
 * Back-end calls and timeline output always run with mu released. Objects
 * (synth/pending) are freed before their bytes are returned to the budget,
 * so the budget never claims memory that is still allocated.
 *
 * Budget accounting
 * -----------------
 * used = sum(charged parameter bytes) + sum(in-flight reservations) +
 * shared back-end caches (charged once per key at their first load, never
 * returned: they outlive every unload) + the payloads of unfinished jobs
 * (charged from acceptance until the payload is freed at the job's end).
 * A partition reserves abc+rest at dispatch, returns abc after prove_start,
 * rest after prove_finish (or everything when it is dropped). Parameters are
 * charged from the start of their load until their unload has returned. At
 * submission a job is refused unless params + abc + rest + shared + its
 * payload <= budget, and (CZ_ERR_QUEUE_FULL) unless the queued payloads
 * plus the largest need among the circuits with queued jobs fit the
 * budget: so the head of the queue always fits once everything else has
 * drained (the payloads queued behind it included).
 *
 * Why eviction cannot deadlock with reservations
 * ----------------------------------------------
 * A parameter set is pinned (refs > 0) only by partitions that already hold
 * their full reservation (and by a self-verify running on such a partition
 * before it retires). Pinned partitions always run to the end (or are
 * dropped) without asking the budget for anything more, and provers and
 * finalizers never wait on the budget. Jobs whose partitions are merely
 * queued pin nothing. Hence every pin is released in finite time, idle
 * parameters become evictable, and eviction itself never waits: it only
 * picks unpinned (refs == 0) sets, unloads them and returns their bytes. The
 * dispatcher (the only thread that waits on the budget) evicts idle sets
 * (LRU, idle >= eviction_min_idle_ms) when the head does not fit, else
 * sleeps until a release or the next set becomes old enough. Dispatch is in
 * strict priority order: the head blocks the queue behind it (no smaller
 * job can starve it).
 *
 * Failure rules: the first failure of a partition ends its job (FAILED,
 * error names the partition and stage); the job leaves the ready heap, its
 * partitions in the channel / finalizer queue are purged at once (their
 * objects freed, reservations returned), running ones are dropped at their
 * next stage boundary (synthesize also sees the cancel flag), late results
 * are discarded. Cancellation uses the same path. Jobs are reference
 * counted (tables, in-flight partitions, awaiters), so pruning never frees a
 * job something still uses.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine/engine_internal.h"
#include "cuzk/sysmem.h"

extern _Thread_local uint64_t cz_tl_device_ns;

#define GiB (1024ull * 1024 * 1024)

/* ------------------------------------------------------------------------
 * small helpers
 * ------------------------------------------------------------------------ */

static void set_msg(char *msg, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_msg(char *msg, size_t len, const char *fmt, ...)
{
    if (!msg || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Waits on cv until signalled or the monotonic deadline (UINT64_MAX: none).
 * Returns false on timeout. */
static bool cv_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t deadline)
{
    if (deadline == UINT64_MAX) {
        pthread_cond_wait(cv, mu);
        return true;
    }
    struct timespec ts = {.tv_sec = (time_t)(deadline / 1000000000u),
                          .tv_nsec = (long)(deadline % 1000000000u)};
    return pthread_cond_timedwait(cv, mu, &ts) != ETIMEDOUT;
}

static uint64_t deadline_after_ms(int64_t ms)
{
    if (ms < 0)
        return UINT64_MAX;
    return cz_engine_now_ns() + (uint64_t)ms * 1000000u;
}

static bool job_terminal(const cz_job *j)
{
    return j->state == CZ_JOB_DONE || j->state == CZ_JOB_FAILED || j->state == CZ_JOB_CANCELLED;
}

static int job_cmp(const void *a, const void *b)
{
    const cz_job *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio > y->prio ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static size_t *job_idx(void *a)
{
    return &((cz_job *)a)->heap_idx;
}

static int part_cmp(const void *a, const void *b)
{
    const cz_part *x = a, *y = b;
    int c = job_cmp(x->job, y->job);
    if (c)
        return c;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static size_t *part_idx(void *a)
{
    return &((cz_part *)a)->heap_idx;
}

static void job_view(const cz_job *j, cz_engine_job_view *v)
{
    v->id = j->id;
    v->circuit_id = j->circuit;
    v->payload = j->payload;
    v->payload_len = j->payload_len;
    v->num_partitions = j->total_parts; /* the whole job's, also for a range sub-job */
    v->prepared = j->prepared;
}

/* ------------------------------------------------------------------------
 * budget
 * ------------------------------------------------------------------------ */

static void budget_charge_locked(cz_engine *e, uint64_t b)
{
    e->used += b;
    if (e->used > e->peak)
        e->peak = e->used;
}

static void budget_release_locked(cz_engine *e, uint64_t b)
{
    if (!b)
        return;
    e->used -= b;
    pthread_cond_signal(&e->disp_cv);
}


/* ------------------------------------------------------------------------
 * job tables (chained hashes, grown at load factor 2)
 * ------------------------------------------------------------------------ */

static size_t str_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return (size_t)h;
}

static cz_job *id_lookup(cz_engine *e, cz_job_id id)
{
    for (cz_job *j = e->id_tab[id & (e->id_nb - 1)]; j; j = j->idnext)
        if (j->id == id)
            return j;
    return NULL;
}

static cz_job *req_lookup(cz_engine *e, const char *rid)
{
    for (cz_job *j = e->req_tab[str_hash(rid) & (e->req_nb - 1)]; j; j = j->reqnext)
        if (!strcmp(j->request_id, rid))
            return j;
    return NULL;
}

static void id_grow(cz_engine *e)
{
    size_t nb = e->id_nb * 2;
    cz_job **t = calloc(nb, sizeof *t);
    if (!t)
        return; /* keep the old table: slower, still correct */
    for (size_t i = 0; i < e->id_nb; i++)
        for (cz_job *j = e->id_tab[i], *n; j; j = n) {
            n = j->idnext;
            j->idnext = t[j->id & (nb - 1)];
            t[j->id & (nb - 1)] = j;
        }
    free(e->id_tab);
    e->id_tab = t;
    e->id_nb = nb;
}

static void req_grow(cz_engine *e)
{
    size_t nb = e->req_nb * 2;
    cz_job **t = calloc(nb, sizeof *t);
    if (!t)
        return;
    for (size_t i = 0; i < e->req_nb; i++)
        for (cz_job *j = e->req_tab[i], *n; j; j = n) {
            n = j->reqnext;
            size_t b = str_hash(j->request_id) & (nb - 1);
            j->reqnext = t[b];
            t[b] = j;
        }
    free(e->req_tab);
    e->req_tab = t;
    e->req_nb = nb;
}

static void tables_insert(cz_engine *e, cz_job *j)
{
    if (e->id_count >= 2 * e->id_nb)
        id_grow(e);
    size_t b = j->id & (e->id_nb - 1);
    j->idnext = e->id_tab[b];
    e->id_tab[b] = j;
    e->id_count++;
    if (j->request_id) {
        if (e->req_count >= 2 * e->req_nb)
            req_grow(e);
        b = str_hash(j->request_id) & (e->req_nb - 1);
        j->reqnext = e->req_tab[b];
        e->req_tab[b] = j;
        e->req_count++;
    }
    j->in_tables = true;
}

static void tables_remove(cz_engine *e, cz_job *j)
{
    cz_job **pp = &e->id_tab[j->id & (e->id_nb - 1)];
    while (*pp != j)
        pp = &(*pp)->idnext;
    *pp = j->idnext;
    e->id_count--;
    if (j->request_id) {
        pp = &e->req_tab[str_hash(j->request_id) & (e->req_nb - 1)];
        while (*pp != j)
            pp = &(*pp)->reqnext;
        *pp = j->reqnext;
        e->req_count--;
    }
    j->in_tables = false;
}

/* Drops j from the request-id table only (it stays in the id table). */
static void req_unlink(cz_engine *e, cz_job *j)
{
    if (!j->request_id)
        return;
    cz_job **pp = &e->req_tab[str_hash(j->request_id) & (e->req_nb - 1)];
    while (*pp != j)
        pp = &(*pp)->reqnext;
    *pp = j->reqnext;
    e->req_count--;
    free(j->request_id);
    j->request_id = NULL;
}

static void job_free(cz_job *j)
{
    free(j->circuit);
    free(j->request_id);
    free(j->payload);
    free(j->proof);
    free(j);
}

static void job_unref_locked(cz_engine *e, cz_job *j)
{
    (void)e;
    if (--j->refs == 0)
        job_free(j);
}

/* What an unread result costs while it is kept (the proof and the job
 * record; the payload is already gone once a job is DONE). */
static uint64_t unread_cost(const cz_job *j)
{
    return (uint64_t)j->nparts * j->proof_bytes + sizeof *j;
}

static void unread_clear_locked(cz_engine *e, cz_job *j)
{
    if (!j->unread)
        return;
    j->unread = false;
    e->unread_bytes -= unread_cost(j);
    e->unread_count--;
}

/* Drops finished jobs past their retention time, and the oldest ones
 * beyond the count limit, except DONE jobs whose proof nobody has fetched
 * yet: dropping those loses a proof somebody computed and is still going
 * to ask for (their own limit is result_unread_max_bytes, enforced at
 * submission). Returns the monotonic time of the next time-based prune
 * (UINT64_MAX if none). */
static uint64_t prune_locked(cz_engine *e, uint64_t now)
{
    uint64_t keep_ns = e->cfg.result_retention_ms * 1000000u;
    cz_job **pp = &e->fin_head, *prev = NULL;
    while (*pp) {
        cz_job *j = *pp;
        bool old = now >= j->t_end + keep_ns;
        bool over = e->fin_count > e->cfg.result_retention_count;
        if (!old && !over)
            break; /* t_end grows along the list: nothing further is old */
        if (!old && j->unread) {
            /* kept: look further for a count-prunable job */
            prev = j;
            pp = &j->finnext;
            continue;
        }
        *pp = j->finnext;
        if (e->fin_tail == j)
            e->fin_tail = prev;
        e->fin_count--;
        unread_clear_locked(e, j);
        tables_remove(e, j);
        job_unref_locked(e, j);
    }
    /* the oldest retained job is the next to expire */
    return e->fin_head ? e->fin_head->t_end + keep_ns : UINT64_MAX;
}

/* ------------------------------------------------------------------------
 * post-unlock actions: things decided under mu, executed without it
 * ------------------------------------------------------------------------ */

typedef struct {
    cz_part *retire;          /* parts to retire (status in rec.status) */
    bool ended;
    cz_job_id id;
    cz_job_state state;
    cz_status status;
    int32_t failed_part;
    double total_ms;
    char err[256];
    void *prep;               /* backend.prepared to release */
} cz_post;

/* When a job is terminal and no partition uses it any more, its parsed
 * payload and raw payload can go (the digest stays for idempotency). */
static void take_prepared_locked(cz_engine *e, cz_job *j, cz_post *post)
{
    if (!job_terminal(j) || j->parts_inflight)
        return;
    if (j->prepared) {
        post->prep = j->prepared;
        j->prepared = NULL;
    }
    free(j->payload);
    j->payload = NULL;
    if (j->payload_charged) {
        /* freed before its bytes go back: the budget never claims
         * memory that is still allocated */
        j->payload_charged = false;
        e->payload_bytes -= j->payload_len;
        budget_release_locked(e, j->payload_len);
    }
}

static void post_add_retire(cz_post *post, cz_part *p, cz_status st)
{
    p->rec.status = st;
    p->next = post->retire;
    post->retire = p;
}

static void refill_from_overflow_locked(cz_engine *e)
{
    while (e->ovf_head && e->chan.n < e->chan_cap) {
        cz_part *p = e->ovf_head;
        e->ovf_head = p->next;
        if (!e->ovf_head)
            e->ovf_tail = NULL;
        e->ovf_count--;
        p->where = PART_CHANNEL;
        if (cz_heap_push(&e->chan, p) != CZ_OK)
            abort(); /* capacity reserved at creation */
        pthread_cond_broadcast(&e->chan_cv);
    }
}

/* Hands a partition that no stage holds any more to the reaper thread,
 * which frees its objects and returns its reservation. Why not the thread
 * that ended the job: that is often a client's (cancel from an HTTP or gRPC
 * handler, shutdown), and freeing a pending proof can wait for its
 * background work (the real back-end's free_pending joins the running B_G2
 * MSM), so cancel would block for as long as that takes. */
static void reap_add_locked(cz_engine *e, cz_part *p, cz_status st)
{
    p->rec.status = st;
    p->next = e->reap_head;
    e->reap_head = p;
    pthread_cond_signal(&e->reap_cv);
}

/* Removes every queued (not running) partition of j from the channel, the
 * overflow list and the finalizer queue, for the reaper to free. */
static void purge_job_parts_locked(cz_engine *e, cz_job *j)
{
    cz_heap *hs[2] = {&e->chan, &e->finq};
    for (int k = 0; k < 2; k++) {
        cz_part *list = NULL;
        for (size_t i = 0; i < hs[k]->n; i++) {
            cz_part *p = hs[k]->v[i];
            if (p->job == j) {
                p->next = list;
                list = p;
            }
        }
        while (list) {
            cz_part *p = list;
            list = p->next;
            cz_heap_remove(hs[k], p);
            if (k == 0)
                e->synth_waiting--;
            reap_add_locked(e, p, CZ_ERR_CANCELLED);
        }
    }
    cz_part **pp = &e->ovf_head;
    e->ovf_tail = NULL;
    while (*pp) {
        cz_part *p = *pp;
        if (p->job == j) {
            *pp = p->next;
            e->ovf_count--;
            e->synth_waiting--;
            reap_add_locked(e, p, CZ_ERR_CANCELLED);
        } else {
            e->ovf_tail = p;
            pp = &p->next;
        }
    }
    /* partitions re-synthesized for a device retry */
    for (cz_part **rp = &e->retry_head; *rp;) {
        cz_part *p = *rp;
        if (p->job == j) {
            *rp = p->next;
            reap_add_locked(e, p, CZ_ERR_CANCELLED);
        } else {
            rp = &p->next;
        }
    }
    e->retry_tail = NULL;
    for (cz_part *p = e->retry_head; p; p = p->next)
        e->retry_tail = p;
    refill_from_overflow_locked(e);
    pthread_cond_broadcast(&e->space_cv);
}

/* Takes j off its parameter entry's parked list. */
static void unpark_one_locked(cz_job *j)
{
    cz_job **pp = &j->pe->parked;
    while (*pp != j)
        pp = &(*pp)->parknext;
    *pp = j->parknext;
    j->parknext = NULL;
}

/* The single place a job becomes terminal: returns false (and does
 * nothing) if it already was, which makes every ending exactly-once. */
static bool job_end_locked(cz_engine *e, cz_job *j, cz_job_state state, cz_status status,
                           int32_t failed_part, const char *err, cz_post *post)
{
    if (job_terminal(j))
        return false;
    bool was_running = j->state == CZ_JOB_RUNNING;
    j->state = state;
    j->status = status;
    j->failed_part = failed_part;
    snprintf(j->error, sizeof j->error, "%.*s", (int)sizeof j->error - 1, err ? err : "");
    j->t_end = cz_engine_now_ns();
    if (!j->t_start)
        j->t_start = j->t_end;
    if (state != CZ_JOB_DONE)
        atomic_store(&j->cancel.flag, 1);
    if (j->in_ready || j->parked) {
        if (j->in_ready)
            cz_heap_remove(&e->ready, j);
        else
            unpark_one_locked(j);
        j->in_ready = j->parked = false;
        e->parts_queued -= j->nparts - j->next_part;
        j->pe->waiting_jobs--;
    }
    if (state != CZ_JOB_DONE)
        purge_job_parts_locked(e, j);
    if (was_running)
        e->jobs_running--;
    e->jobs_active--;
    if (state == CZ_JOB_DONE)
        e->c_completed++;
    else if (state == CZ_JOB_FAILED)
        e->c_failed++;
    else
        e->c_cancelled++;
    cz_hist_observe(&e->hist[H_JOB], (double)(j->t_end - j->t_submit) / 1e9);
    cz_obs_job_end_locked(e, j);
    if (state == CZ_JOB_DONE) {
        j->unread = true;
        e->unread_bytes += unread_cost(j);
        e->unread_count++;
    }
    /* retention list, oldest end first */
    j->finnext = NULL;
    if (e->fin_tail)
        e->fin_tail->finnext = j;
    else
        e->fin_head = j;
    e->fin_tail = j;
    e->fin_count++;

    post->ended = true;
    e->notifying++; /* wait_idle/shutdown also wait for the notification */
    post->id = j->id;
    post->state = state;
    post->status = status;
    post->failed_part = failed_part;
    post->total_ms = (double)(j->t_end - j->t_submit) / 1e6;
    snprintf(post->err, sizeof post->err, "%s", j->error);
    take_prepared_locked(e, j, post);
    pthread_cond_broadcast(&e->done_cv);
    pthread_cond_broadcast(&e->prep_cv);
    pthread_cond_broadcast(&e->space_cv);
    pthread_cond_signal(&e->disp_cv);
    return true;
}

static void job_fail_locked(cz_engine *e, cz_job *j, uint32_t part, const char *stage,
                            cz_status st, const char *bmsg, cz_post *post)
{
    char err[640]; /* truncated to the job's 256-byte error when stored */
    /* part is within the job's range; messages and failed_partition name
     * the real partition of the whole job */
    uint32_t real = j->first_part + part;
    snprintf(err, sizeof err, "partition %u/%u: %s: %s", real, j->total_parts, stage,
             bmsg && *bmsg ? bmsg : cz_status_str(st));
    job_end_locked(e, j, CZ_JOB_FAILED, st, (int32_t)real, err, post);
}

/* Called without mu: frees the partition's objects, then returns its
 * reservation and pins, records it and frees it. */
/* Adds a partition's stage times to its job's sums, once: when it
 * finishes (before the job can end, so an awaiter sees complete sums), or
 * when it is retired having stopped early. */
static void part_add_times_locked(cz_part *p)
{
    if (p->timed)
        return;
    p->timed = true;
    cz_job *j = p->job;
    if (p->rec.synth_end_ms > p->rec.synth_start_ms)
        j->synth_ms += p->rec.synth_end_ms - p->rec.synth_start_ms;
    if (p->rec.prove_end_ms > p->rec.prove_start_ms)
        j->prove_ms += p->rec.prove_end_ms - p->rec.prove_start_ms;
    if (p->rec.finish_end_ms > p->rec.finish_start_ms)
        j->finish_ms += p->rec.finish_end_ms - p->rec.finish_start_ms;
    j->device_ms += p->rec.device_ms;
}

static void part_retire(cz_engine *e, cz_part *p)
{
    if (p->synth)
        e->be.free_synth(e->be.ctx, p->synth);
    if (p->pending)
        e->be.free_pending(e->be.ctx, p->pending);
    p->synth = p->pending = NULL;
    cz_status st = p->rec.status;
    if (st != CZ_OK && cz_tl_enabled(e)) {
        char extra[64];
        snprintf(extra, sizeof extra, "reason=%s", st == CZ_ERR_CANCELLED ? "job_ended" : "failed");
        cz_tl_emit(e, "PART_DROPPED", p->job->id, (int)p->idx, extra);
    }
    cz_post post = {0};
    pthread_mutex_lock(&e->mu);
    cz_job *j = p->job;
    budget_release_locked(e, p->abc_left + p->rest_left);
    p->abc_left = p->rest_left = 0;
    j->pe->refs--;
    j->pe->last_used_ns = cz_engine_now_ns();
    j->parts_inflight--;
    e->inflight--;
    part_add_times_locked(p);
    if (st == CZ_OK)
        e->c_parts_completed++;
    else
        e->c_parts_dropped++;
    cz_rec_push_locked(e, &p->rec);
    take_prepared_locked(e, j, &post);
    job_unref_locked(e, j);
    pthread_cond_broadcast(&e->done_cv);
    pthread_cond_signal(&e->disp_cv);
    pthread_mutex_unlock(&e->mu);
    if (post.prep && e->be.release_job)
        e->be.release_job(e->be.ctx, post.prep);
    free(p);
}

static void post_run(cz_engine *e, cz_post *post)
{
    while (post->retire) {
        cz_part *p = post->retire;
        post->retire = p->next;
        part_retire(e, p);
    }
    if (post->ended) {
        if (cz_tl_enabled(e)) {
            char extra[400];
            const char *ev = post->state == CZ_JOB_DONE     ? "JOB_DONE"
                             : post->state == CZ_JOB_FAILED ? "JOB_FAILED"
                                                            : "JOB_CANCELLED";
            if (post->state == CZ_JOB_DONE)
                snprintf(extra, sizeof extra, "total_ms=%.3f", post->total_ms);
            else
                snprintf(extra, sizeof extra, "total_ms=%.3f failed_part=%d error=\"%s\"",
                         post->total_ms, (int)post->failed_part, post->err);
            cz_tl_emit(e, ev, post->id, -1, extra);
        }
        if (e->cfg.on_job_done)
            e->cfg.on_job_done(e->cfg.on_job_done_arg, post->id, post->state);
        post->ended = false;
        pthread_mutex_lock(&e->mu);
        e->notifying--;
        pthread_cond_broadcast(&e->done_cv);
        pthread_mutex_unlock(&e->mu);
    }
    if (post->prep && e->be.release_job)
        e->be.release_job(e->be.ctx, post->prep);
    post->prep = NULL;
}

/* The reaper: frees the queued partitions of jobs that ended (see
 * reap_add_locked). It runs until shutdown has seen every partition leave
 * the pipeline (parts on its list still count as in flight). */
static void *reaper_main(void *arg)
{
    cz_engine *e = arg;
    pthread_setname_np(pthread_self(), "cz-reaper");
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->reap_head && !e->stop)
            pthread_cond_wait(&e->reap_cv, &e->mu);
        if (!e->reap_head)
            break;
        cz_part *p = e->reap_head;
        e->reap_head = p->next;
        pthread_mutex_unlock(&e->mu);
        part_retire(e, p);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ------------------------------------------------------------------------
 * parameter manager
 * ------------------------------------------------------------------------ */

static cz_pentry *pentry_find_locked(cz_engine *e, const char *circuit)
{
    for (cz_pentry *p = e->pentries; p; p = p->next)
        if (!strcmp(p->circuit, circuit))
            return p;
    return NULL;
}

static cz_pentry *pentry_get_locked(cz_engine *e, const char *circuit)
{
    cz_pentry *p = pentry_find_locked(e, circuit);
    if (p)
        return p;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->circuit = xstrdup(circuit);
    if (!p->circuit) {
        free(p);
        return NULL;
    }
    p->next = e->pentries;
    e->pentries = p;
    e->n_pentries++;
    return p;
}

/* Drops an entry that never got a valid estimate (an id the back-end
 * refused, or one whose estimate is still failing) once nobody is asking
 * for it: otherwise every unknown id a client sends would leave an entry
 * behind for good. Entries with an estimate stay (they carry the
 * circuit's metrics), and are bounded by what the back-end accepts. */
static void pentry_drop_failed_locked(cz_engine *e, cz_pentry *pe)
{
    if (pe->est_valid || pe->estimating || pe->state != PE_ABSENT || pe->parked || pe->refs ||
        pe->waiting_jobs)
        return;
    cz_pentry **pp = &e->pentries;
    while (*pp != pe)
        pp = &(*pp)->next;
    *pp = pe->next;
    e->n_pentries--;
    free(pe->circuit);
    free(pe);
}

/* Makes sure pe->est is valid (calls the back-end without mu; pe stays
 * alive meanwhile: see pentry_drop_failed_locked). */
static cz_status pentry_estimate_locked(cz_engine *e, cz_pentry *pe, char *msg, size_t msglen)
{
    if (pe->est_valid)
        return CZ_OK;
    cz_engine_estimate est = {0};
    char bmsg[256] = "";
    pe->estimating++;
    pthread_mutex_unlock(&e->mu);
    cz_status st = e->be.estimate(e->be.ctx, pe->circuit, &est, bmsg, sizeof bmsg);
    pthread_mutex_lock(&e->mu);
    pe->estimating--;
    if (st != CZ_OK) {
        /* name the circuit once: back-ends usually do it themselves
         * ("unknown circuit 'x'") */
        char quoted[140];
        snprintf(quoted, sizeof quoted, "'%s'", pe->circuit);
        if (*bmsg && strstr(bmsg, quoted))
            set_msg(msg, msglen, "%s", bmsg);
        else
            set_msg(msg, msglen, "circuit '%s': %s", pe->circuit, *bmsg ? bmsg : cz_status_str(st));
        return st;
    }
    if (!est.proof_bytes) {
        set_msg(msg, msglen, "circuit '%s': back-end estimate gives proof_bytes = 0", pe->circuit);
        return CZ_ERR_INTERNAL;
    }
    if (!est.shared_key)
        est.shared_bytes = 0;
    if (!pe->est_valid) {
        pe->est = est;
        pe->est_valid = true;
    }
    return CZ_OK;
}

/* ---- shared back-end caches (estimate.shared_bytes) ---- */

static bool shared_charged_locked(const cz_engine *e, uint32_t key)
{
    for (size_t i = 0; i < e->n_shared; i++)
        if (e->shared_keys[i] == key)
            return true;
    return false;
}

/* What a load of pe adds for good (0 when its cache is charged already). */
static uint64_t shared_need_locked(const cz_engine *e, const cz_pentry *pe)
{
    if (!pe->est.shared_key || shared_charged_locked(e, pe->est.shared_key))
        return 0;
    return pe->est.shared_bytes;
}

/* Charges pe's shared cache (once per key, never returned). Called when
 * its load begins: the cache is created by that load. */
static void shared_charge_locked(cz_engine *e, const cz_pentry *pe)
{
    uint64_t b = shared_need_locked(e, pe);
    if (!b)
        return;
    uint32_t *k = realloc(e->shared_keys, (e->n_shared + 1) * sizeof *k);
    if (!k)
        return; /* not remembered: the next load charges it again (over, never under) */
    e->shared_keys = k;
    k[e->n_shared++] = pe->est.shared_key;
    e->shared_bytes += b;
    budget_charge_locked(e, b);
}

/* An unpinned resident set other than keep, least recently used, idle for at
 * least eviction_min_idle_ms. *next_ns: when the next younger idle set
 * becomes eligible (UINT64_MAX if none). A set just loaded for jobs that
 * have not dispatched yet is never a candidate. */
static cz_pentry *evict_candidate_locked(cz_engine *e, const cz_pentry *keep, uint64_t now,
                                         uint64_t *next_ns, bool ignore_min_idle)
{
    uint64_t min_idle = ignore_min_idle ? 0 : e->cfg.eviction_min_idle_ms * 1000000u;
    cz_pentry *best = NULL;
    *next_ns = UINT64_MAX;
    for (cz_pentry *p = e->pentries; p; p = p->next) {
        if (p == keep || p->state != PE_RESIDENT || p->refs || (p->fresh && p->waiting_jobs))
            continue;
        if (now - p->last_used_ns >= min_idle) {
            if (!best || p->last_used_ns < best->last_used_ns)
                best = p;
        } else if (p->last_used_ns + min_idle < *next_ns) {
            *next_ns = p->last_used_ns + min_idle;
        }
    }
    return best;
}

/* Puts the jobs parked on pe back into the ready heap (their load or
 * unload ended); the time they waited counts as their load time. */
static void unpark_all_locked(cz_engine *e, cz_pentry *pe, cz_post *post)
{
    uint64_t now = cz_engine_now_ns();
    while (pe->parked) {
        cz_job *j = pe->parked;
        pe->parked = j->parknext;
        j->parknext = NULL;
        j->parked = false;
        j->load_ms += (double)(now - j->t_parked) / 1e6;
        if (cz_heap_push(&e->ready, j) != CZ_OK) {
            /* back in no queue: it must end now */
            j->pe->waiting_jobs--;
            e->parts_queued -= j->nparts - j->next_part;
            j->in_ready = false;
            if (!post->ended)
                job_fail_locked(e, j, j->next_part, "dispatch", CZ_ERR_NOMEM, NULL, post);
            continue;
        }
        j->in_ready = true;
    }
    pthread_cond_signal(&e->disp_cv);
}

/* Ends every job parked on pe: the load they waited for failed. Drops mu
 * for each job's post-processing. */
static void fail_parked_locked(cz_engine *e, cz_pentry *pe, cz_status st, const char *msg)
{
    while (pe->parked) {
        cz_job *j = pe->parked;
        cz_post post = {0};
        job_fail_locked(e, j, j->next_part, "load_params", st, msg, &post); /* unparks j */
        pthread_mutex_unlock(&e->mu);
        post_run(e, &post);
        pthread_mutex_lock(&e->mu);
    }
}

/* The end of an unload (pe was PE_UNLOADING, its params taken): returns
 * the bytes, wakes who waits. Called with mu held. */
static void dev_params_gone_locked(cz_engine *e, const cz_pentry *pe);

static void unload_done_locked(cz_engine *e, cz_pentry *pe)
{
    dev_params_gone_locked(e, pe); /* the back-end's unload dropped them from the devices */
    budget_release_locked(e, pe->charged);
    pe->charged = 0;
    pe->state = PE_ABSENT;
    pe->fresh = false;
    e->c_evictions++;
    cz_post post = {0};
    unpark_all_locked(e, pe, &post);
    pthread_cond_broadcast(&e->pe_cv);
    pthread_cond_signal(&e->disp_cv);
    if (post.ended) {
        pthread_mutex_unlock(&e->mu);
        post_run(e, &post);
        pthread_mutex_lock(&e->mu);
    }
}

static void unload_call(cz_engine *e, cz_pentry *pe, void *params)
{
    if (e->be.unload_params)
        e->be.unload_params(e->be.ctx, pe->circuit, params);
    if (cz_tl_enabled(e)) {
        char extra[200];
        snprintf(extra, sizeof extra, "circuit=%s bytes=%llu", pe->circuit,
                 (unsigned long long)pe->charged);
        cz_tl_emit(e, "PARAMS_EVICT", 0, -1, extra);
    }
}

/* Unloads an unpinned resident set in the calling thread (the API calls:
 * evict, preload). Drops mu during the unload; returns with mu held. */
static void evict_locked(cz_engine *e, cz_pentry *pe)
{
    pe->state = PE_UNLOADING;
    void *params = pe->params;
    pe->params = NULL;
    pthread_mutex_unlock(&e->mu);
    unload_call(e, pe, params);
    pthread_mutex_lock(&e->mu);
    unload_done_locked(e, pe);
}

/* Hands an op on pe to the loader threads (pe->state says which:
 * PE_LOADING or PE_UNLOADING). false: no memory for the queue. */
static bool loader_enqueue_locked(cz_engine *e, cz_pentry *pe)
{
    if (e->load_qn == e->load_qcap) {
        size_t cap = e->load_qcap ? 2 * e->load_qcap : 16;
        cz_pentry **q = realloc(e->load_q, cap * sizeof *q);
        if (!q)
            return false;
        e->load_q = q;
        e->load_qcap = cap;
    }
    e->load_q[e->load_qn++] = pe;
    pe->load_queued = true;
    e->loading++;
    pthread_cond_signal(&e->load_cv);
    return true;
}

/* Loads pe (state must be PE_LOADING and its bytes charged). Drops mu
 * during the load. On the end of the load, the jobs parked on pe go back
 * to the ready heap, or fail with the load's error. */
static cz_status load_locked(cz_engine *e, cz_pentry *pe, char *msg, size_t msglen)
{
    void *params = NULL;
    char bmsg[256] = "";
    if (cz_tl_enabled(e)) {
        char extra[200];
        snprintf(extra, sizeof extra, "circuit=%s bytes=%llu", pe->circuit,
                 (unsigned long long)pe->charged);
        cz_tl_emit(e, "PARAMS_LOAD_START", 0, -1, extra);
    }
    pthread_mutex_unlock(&e->mu);
    uint64_t t0 = cz_engine_now_ns();
    cz_status st = e->be.load_params(e->be.ctx, pe->circuit, &params, bmsg, sizeof bmsg);
    uint64_t t1 = cz_engine_now_ns();
    if (cz_tl_enabled(e)) {
        char extra[400];
        snprintf(extra, sizeof extra, "circuit=%s load_ms=%.3f status=%s", pe->circuit,
                 (double)(t1 - t0) / 1e6, cz_status_str(st));
        cz_tl_emit(e, "PARAMS_LOAD_END", 0, -1, extra);
    }
    pthread_mutex_lock(&e->mu);
    char lmsg[300];
    if (st != CZ_OK) {
        budget_release_locked(e, pe->charged);
        pe->charged = 0;
        pe->state = PE_ABSENT;
        snprintf(lmsg, sizeof lmsg, "load parameters for '%s': %s", pe->circuit,
                 *bmsg ? bmsg : cz_status_str(st));
        set_msg(msg, msglen, "%s", lmsg);
    } else {
        pe->params = params;
        pe->state = PE_RESIDENT;
        pe->last_used_ns = t1;
        pe->fresh = pe->parked != NULL;
        e->c_loads++;
        cz_hist_observe(&e->hist[H_LOAD], (double)(t1 - t0) / 1e9);
    }
    pthread_cond_broadcast(&e->pe_cv);
    pthread_cond_signal(&e->disp_cv);
    if (st != CZ_OK) {
        fail_parked_locked(e, pe, st, lmsg);
    } else {
        cz_post post = {0};
        unpark_all_locked(e, pe, &post);
        if (post.ended) {
            pthread_mutex_unlock(&e->mu);
            post_run(e, &post);
            pthread_mutex_lock(&e->mu);
        }
    }
    return st;
}

/* The loader threads: parameter loads and the dispatcher's evictions, so
 * that a load of many GiB (minutes) never stalls dispatch of the other
 * circuits' jobs. At shutdown, ops not yet started are dropped (a load's
 * charge is returned; an unload still runs: the params are taken). */
static void *loader_main(void *arg)
{
    cz_engine *e = arg;
    pthread_setname_np(pthread_self(), "cz-loader");
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->load_qn && !e->stop)
            pthread_cond_wait(&e->load_cv, &e->mu);
        if (!e->load_qn)
            break;
        cz_pentry *pe = e->load_q[0];
        memmove(e->load_q, e->load_q + 1, (e->load_qn - 1) * sizeof *e->load_q);
        e->load_qn--;
        pe->load_queued = false;
        if (pe->state == PE_UNLOADING) {
            void *params = pe->params;
            pe->params = NULL;
            pthread_mutex_unlock(&e->mu);
            unload_call(e, pe, params);
            pthread_mutex_lock(&e->mu);
            e->unloading--;
            unload_done_locked(e, pe);
        } else if (e->stop) {
            budget_release_locked(e, pe->charged);
            pe->charged = 0;
            pe->state = PE_ABSENT;
            fail_parked_locked(e, pe, CZ_ERR_CANCELLED, "cancelled by engine shutdown");
            pthread_cond_broadcast(&e->pe_cv);
        } else {
            load_locked(e, pe, NULL, 0);
        }
        e->loading--;
        pthread_cond_broadcast(&e->done_cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ------------------------------------------------------------------------
 * dispatcher
 * ------------------------------------------------------------------------ */

/* Parks j on its parameter entry until the entry's load or unload ends
 * (the loader puts it back into the ready heap): the jobs behind it, of
 * other circuits, dispatch meanwhile. */
static void park_locked(cz_engine *e, cz_job *j)
{
    cz_heap_remove(&e->ready, j);
    j->in_ready = false;
    j->parked = true;
    j->t_parked = cz_engine_now_ns();
    j->parknext = j->pe->parked;
    j->pe->parked = j;
}

/* The dispatcher only decides: which partition runs next, what it
 * reserves, which parameters to load or evict. Loads and evictions run on
 * the loader threads, payload parsing (prepare_job) on the synthesis
 * workers, so no back-end call of any length runs here. */
static void *dispatcher_main(void *arg)
{
    cz_engine *e = arg;
    pthread_setname_np(pthread_self(), "cz-dispatch");
    pthread_mutex_lock(&e->mu);
    while (!e->stop) {
        uint64_t now = cz_engine_now_ns();
        uint64_t wake = prune_locked(e, now);
        cz_job *j = e->paused ? NULL : cz_heap_top(&e->ready);
        if (!j) {
            cv_wait_until(&e->disp_cv, &e->mu, wake);
            continue;
        }
        cz_pentry *pe = j->pe;
        if (pe->state == PE_LOADING || pe->state == PE_UNLOADING) {
            park_locked(e, j);
            continue;
        }
        if (e->synth_idle == 0) {
            cv_wait_until(&e->disp_cv, &e->mu, wake);
            continue;
        }
        uint64_t part_bytes = pe->est.abc_bytes + pe->est.rest_bytes;
        bool load = pe->state != PE_RESIDENT;
        uint64_t load_bytes = load ? pe->est.params_bytes + shared_need_locked(e, pe) : 0;
        uint64_t need = load ? load_bytes : part_bytes;
        if (e->used + need > e->budget) {
            /* The minimum idle time keeps two alternating circuits from
             * thrashing, but only waiting for in-flight partitions (and
             * the payloads of running jobs) can free budget by itself:
             * when even their reservations coming back would not make
             * room, waiting only stalls the queue, so an idle set is
             * evicted now. One eviction at a time: the next is decided
             * once its bytes are back. */
            uint64_t fixed = e->shared_bytes + e->payload_bytes;
            for (const cz_pentry *q = e->pentries; q; q = q->next)
                fixed += q->charged;
            bool waiting_helps = fixed + need <= e->budget && e->used > fixed;
            uint64_t next_el = UINT64_MAX;
            cz_pentry *victim =
                e->unloading ? NULL : evict_candidate_locked(e, pe, now, &next_el, !waiting_helps);
            if (victim) {
                victim->state = PE_UNLOADING;
                if (loader_enqueue_locked(e, victim)) {
                    e->unloading++;
                    continue;
                }
                victim->state = PE_RESIDENT; /* no room in the queue: unload it here */
                evict_locked(e, victim);
                continue;
            }
            cv_wait_until(&e->disp_cv, &e->mu, next_el < wake ? next_el : wake);
            continue;
        }
        if (load) {
            /* charge, hand the load to a loader, and park the job: its
             * partitions reserve once the parameters are resident */
            budget_charge_locked(e, pe->est.params_bytes);
            pe->charged = pe->est.params_bytes;
            shared_charge_locked(e, pe);
            pe->state = PE_LOADING;
            park_locked(e, j);
            if (!loader_enqueue_locked(e, pe)) {
                budget_release_locked(e, pe->charged);
                pe->charged = 0;
                pe->state = PE_ABSENT;
                fail_parked_locked(e, pe, CZ_ERR_NOMEM, "no memory to queue the parameter load");
            }
            continue;
        }
        cz_part *p = calloc(1, sizeof *p);
        if (!p) {
            cz_post post = {0};
            job_fail_locked(e, j, j->next_part, "dispatch", CZ_ERR_NOMEM, NULL, &post);
            pthread_mutex_unlock(&e->mu);
            post_run(e, &post);
            pthread_mutex_lock(&e->mu);
            continue;
        }
        /* reserve */
        p->job = j;
        p->idx = j->next_part++;
        p->heap_idx = (size_t)-1;
        p->abc_left = pe->est.abc_bytes;
        p->rest_left = pe->est.rest_bytes;
        p->rec.job = j->id;
        p->rec.partition = j->first_part + p->idx; /* the real partition (range sub-jobs) */
        p->rec.reserve_ms = cz_ms_since(e, now);
        p->rec.synth_worker = p->rec.prover_worker = p->rec.finalizer = -1;
        budget_charge_locked(e, part_bytes);
        if (j->next_part == j->nparts) {
            cz_heap_remove(&e->ready, j);
            j->in_ready = false;
            pe->waiting_jobs--;
        }
        e->parts_queued--;
        j->parts_inflight++;
        j->refs++;
        e->inflight++;
        if (e->inflight > e->inflight_peak)
            e->inflight_peak = e->inflight;
        pe->refs++;
        pe->fresh = false;
        pe->last_used_ns = now;
        e->synth_idle--;
        if (j->state == CZ_JOB_QUEUED) {
            j->state = CZ_JOB_RUNNING;
            j->t_start = now;
            e->jobs_running++;
            cz_hist_observe(&e->hist[H_QUEUE], (double)(now - j->t_submit) / 1e9);
            if (cz_tl_enabled(e)) {
                /* under mu: safe, tl_mu is never held while taking mu */
                char extra[64];
                snprintf(extra, sizeof extra, "queue_ms=%.3f", (double)(now - j->t_submit) / 1e6);
                cz_tl_emit(e, "JOB_START", j->id, -1, extra);
            }
        }
        p->where = PART_SYNTH;
        p->next = NULL;
        if (e->handoff_tail)
            e->handoff_tail->next = p;
        else
            e->handoff_head = p;
        e->handoff_tail = p;
        pthread_cond_signal(&e->synth_cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ------------------------------------------------------------------------
 * synthesis workers
 * ------------------------------------------------------------------------ */

typedef struct {
    cz_engine *e;
    unsigned index;
} worker_arg;

static void *synth_main(void *arg)
{
    worker_arg *wa = arg;
    cz_engine *e = wa->e;
    int w = (int)wa->index;
    char name[16];
    snprintf(name, sizeof name, "cz-synth%u", wa->index);
    pthread_setname_np(pthread_self(), name);
    pthread_mutex_lock(&e->mu);
    for (;;) {
        /* idle: our permit is free */
        e->synth_idle++;
        pthread_cond_signal(&e->disp_cv);
        while (!e->handoff_head && !e->stop)
            pthread_cond_wait(&e->synth_cv, &e->mu);
        if (!e->handoff_head) {
            e->synth_idle--;
            break;
        }
        cz_part *p = e->handoff_head;
        e->handoff_head = p->next;
        if (!e->handoff_head)
            e->handoff_tail = NULL;
        cz_job *j = p->job;
        if (!job_terminal(j) && !j->prepared_done && e->be.prepare_job) {
            /* The payload is parsed here, once per job, by the worker that
             * holds the job's first dispatched partition (its parameters
             * pinned): a slow parse holds this worker only, never the
             * dispatcher. Other partitions of the job wait for it. */
            if (j->preparing) {
                while (j->preparing && !job_terminal(j))
                    pthread_cond_wait(&e->prep_cv, &e->mu);
            } else {
                j->preparing = true;
                cz_engine_job_view pv;
                job_view(j, &pv);
                void *pparams = j->pe->params;
                void *prep = NULL;
                char pmsg[256] = "";
                pthread_mutex_unlock(&e->mu);
                cz_status pst = e->be.prepare_job(e->be.ctx, pparams, &pv, &prep, pmsg, sizeof pmsg);
                pthread_mutex_lock(&e->mu);
                j->preparing = false;
                j->prepared_done = true;
                j->prepared = prep;
                pthread_cond_broadcast(&e->prep_cv);
                if (pst != CZ_OK) {
                    cz_post post = {0};
                    job_fail_locked(e, j, p->idx, "prepare_job", pst, pmsg, &post);
                    post_add_retire(&post, p, pst);
                    pthread_mutex_unlock(&e->mu);
                    post_run(e, &post);
                    pthread_mutex_lock(&e->mu);
                    continue;
                }
            }
        }
        if (job_terminal(j)) {
            cz_post post = {0};
            post_add_retire(&post, p, CZ_ERR_CANCELLED);
            pthread_mutex_unlock(&e->mu);
            post_run(e, &post);
            pthread_mutex_lock(&e->mu);
            continue;
        }
        e->synthesizing++;
        cz_engine_job_view v;
        job_view(j, &v);
        void *params = j->pe->params;
        uint64_t t0 = cz_engine_now_ns();
        p->rec.synth_start_ms = cz_ms_since(e, t0);
        p->rec.synth_worker = w;
        pthread_mutex_unlock(&e->mu);

        cz_tl_emit(e, "SYNTH_START", j->id, (int)p->idx, NULL);
        cz_engine_timings tm = {0};
        char bmsg[256] = "";
        void *synth = NULL;
        cz_status st = e->be.synthesize(e->be.ctx, params, &v, j->first_part + p->idx, &j->cancel,
                                        &synth, &tm, bmsg, sizeof bmsg);
        uint64_t t1 = cz_engine_now_ns();
        if (cz_tl_enabled(e)) {
            char extra[400];
            int n = snprintf(extra, sizeof extra, "synth_ms=%.3f status=%s",
                             (double)(t1 - t0) / 1e6, cz_status_str(st));
            cz_tl_phases(extra + n, sizeof extra - (size_t)n, &tm);
            cz_tl_emit(e, "SYNTH_END", j->id, (int)p->idx, extra);
        }

        pthread_mutex_lock(&e->mu);
        e->synthesizing--;
        p->rec.synth_end_ms = cz_ms_since(e, t1);
        cz_hist_observe(&e->hist[H_SYNTH], (double)(t1 - t0) / 1e9);
        cz_post post = {0};
        if (st != CZ_OK) {
            if (synth)
                e->be.free_synth(e->be.ctx, synth); /* contract says none; be safe */
            job_fail_locked(e, j, p->idx, "synthesize", st, bmsg, &post);
            post_add_retire(&post, p, st);
            pthread_mutex_unlock(&e->mu);
            post_run(e, &post);
            pthread_mutex_lock(&e->mu);
            continue;
        }
        p->synth = synth;
        e->synth_waiting++;
        if (e->synth_waiting > e->synth_waiting_peak)
            e->synth_waiting_peak = e->synth_waiting;
#ifdef CUZK_ENGINE_TEST_HOOKS
        if (e->test_release_permit_before_send && e->chan.n >= e->chan_cap &&
            !job_terminal(j)) {
            /* THE REFERENCE ENGINE'S BUG, on purpose (test hook): park the object and
             * go back to idle without waiting for the send. */
            p->where = PART_OVERFLOW;
            p->next = NULL;
            if (e->ovf_tail)
                e->ovf_tail->next = p;
            else
                e->ovf_head = p;
            e->ovf_tail = p;
            e->ovf_count++;
            continue;
        }
#endif
        /* The permit (this worker) is held until the send succeeds. */
        p->where = PART_SENDING;
        e->awaiting_send++;
        if (e->awaiting_send > e->awaiting_send_peak)
            e->awaiting_send_peak = e->awaiting_send;
        while (e->chan.n >= e->chan_cap && !job_terminal(j))
            pthread_cond_wait(&e->space_cv, &e->mu);
        e->awaiting_send--;
        if (job_terminal(j)) {
            e->synth_waiting--;
            post_add_retire(&post, p, CZ_ERR_CANCELLED);
            pthread_mutex_unlock(&e->mu);
            post_run(e, &post);
            pthread_mutex_lock(&e->mu);
            continue;
        }
        p->where = PART_CHANNEL;
        if (cz_heap_push(&e->chan, p) != CZ_OK)
            abort(); /* capacity reserved at creation */
        if (e->chan.n > e->chan_peak)
            e->chan_peak = e->chan.n;
        /* broadcast: a woken prover whose device cannot take the head
         * (quarantined, device budget full) leaves it to the others */
        pthread_cond_broadcast(&e->chan_cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ------------------------------------------------------------------------
 * prover workers (devices: retry, quarantine, device budget)
 * ------------------------------------------------------------------------ */

static bool all_quarantined_locked(const cz_engine *e)
{
    for (unsigned i = 0; i < e->n_dev; i++)
        if (!e->devs[i].quarantined)
            return false;
    return true;
}

static unsigned quarantined_count_locked(const cz_engine *e)
{
    unsigned n = 0;
    for (unsigned i = 0; i < e->n_dev; i++)
        n += e->devs[i].quarantined;
    return n;
}

/* A device other than `avoid` that is not quarantined and whose budget
 * could hold a partition of pe (when empty) exists. */
static bool other_device_locked(const cz_engine *e, unsigned avoid, const cz_pentry *pe)
{
    uint64_t need = pe->est.device_params_bytes + pe->est.device_partition_bytes;
    for (unsigned i = 0; i < e->n_dev; i++)
        if (i != avoid && !e->devs[i].quarantined &&
            (!e->devs[i].mem_total || need <= e->devs[i].mem_total))
            return true;
    return false;
}

/* Whether d's budget admits a partition of pe now. One parameter set is
 * resident per device (the CUDA context keeps one): a device switches to
 * another circuit only when it holds no partition, and is then charged
 * that circuit's parameters instead. */
static bool dev_admits_locked(const cz_engine_device *d, const cz_pentry *pe)
{
    if (!d->mem_total)
        return true;
    const cz_engine_estimate *es = &pe->est;
    if (d->res_pe == pe)
        return d->mem_used + es->device_partition_bytes <= d->mem_total;
    if (d->inflight)
        return false;
    return es->device_params_bytes + es->device_partition_bytes <= d->mem_total;
}

/* Whether some usable device could ever take a partition of pe (empty). */
static bool dev_can_ever_locked(const cz_engine *e, const cz_pentry *pe)
{
    uint64_t need = pe->est.device_params_bytes + pe->est.device_partition_bytes;
    for (unsigned i = 0; i < e->n_dev; i++)
        if (!e->devs[i].quarantined && (!e->devs[i].mem_total || need <= e->devs[i].mem_total))
            return true;
    return false;
}

static void dev_charge_locked(cz_engine_device *d, cz_part *p)
{
    if (!d->mem_total)
        return;
    cz_pentry *pe = p->job->pe;
    if (d->res_pe != pe) { /* inflight is 0 here (dev_admits_locked) */
        d->res_pe = pe;
        d->res_bytes = pe->est.device_params_bytes;
        d->mem_used = d->res_bytes;
    }
    p->dev_charge = pe->est.device_partition_bytes;
    d->mem_used += p->dev_charge;
    d->inflight++;
}

static void dev_uncharge_locked(cz_engine *e, cz_engine_device *d, cz_part *p)
{
    if (!d->mem_total)
        return;
    d->mem_used -= p->dev_charge;
    p->dev_charge = 0;
    d->inflight--;
    pthread_cond_broadcast(&e->chan_cv); /* a worker of d may wait for this room */
}

/* The resident-parameter charge of pe goes from every device (its
 * parameters were unloaded, so the back-end dropped them from the devices
 * too). No partition of pe is in flight: unloads happen at refs == 0. */
static void dev_params_gone_locked(cz_engine *e, const cz_pentry *pe)
{
    for (unsigned i = 0; i < e->n_dev; i++) {
        cz_engine_device *d = &e->devs[i];
        if (d->res_pe == pe && !d->inflight) {
            d->mem_used -= d->res_bytes;
            d->res_bytes = 0;
            d->res_pe = NULL;
        }
    }
}

/* "every device is quarantined (device 0: <last error>; ...)" */
static void all_quarantined_msg_locked(const cz_engine *e, char *buf, size_t cap)
{
    size_t off = (size_t)snprintf(buf, cap, "every device is quarantined (");
    for (unsigned i = 0; i < e->n_dev && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%sdevice %u: %.60s", i ? "; " : "", i,
                                e->devs[i].last_err);
    if (off < cap)
        snprintf(buf + off, cap - off, ")");
}

/* Counts a CZ_ERR_DEVICE of d; quarantines it at device_quarantine_after
 * consecutive ones (one log line, a TIMELINE line, status). */
static void device_failed_locked(cz_engine *e, cz_engine_device *d, const char *err)
{
    d->failures++;
    d->consec_failures++;
    snprintf(d->last_err, sizeof d->last_err, "%s", err);
    unsigned n = e->cfg.device_quarantine_after;
    if (!n || d->quarantined || d->consec_failures < n)
        return;
    d->quarantined = true;
    fprintf(stderr,
            "cuzk engine: device %u (%s) quarantined after %" PRIu64
            " consecutive device failures (engine.device_quarantine_after = %u); last: %s\n",
            d->index, d->name, d->consec_failures, n, err);
    if (cz_tl_enabled(e)) {
        char extra[200];
        snprintf(extra, sizeof extra, "device=%u failures=%" PRIu64, d->index, d->consec_failures);
        cz_tl_emit(e, "DEVICE_QUARANTINED", 0, -1, extra);
    }
    pthread_cond_broadcast(&e->chan_cv); /* work it can no longer take goes elsewhere (or fails) */
}

/* Picks the next partition for a worker of dev, or NULL. First the retry
 * list (a partition that failed on one device waits there for another),
 * then the channel's head. Partitions of ended jobs, and partitions no
 * usable device can ever take, are taken by whichever worker looks (why
 * says what to fail them with), so nothing is left behind. */
static cz_part *take_locked(cz_engine *e, cz_engine_device *dev, char *why, size_t wl)
{
    why[0] = 0;
    cz_part *prev = NULL;
    for (cz_part *p = e->retry_head; p; prev = p, p = p->next) {
        unsigned avoid = p->dev_avoid1 - 1;
        bool take = job_terminal(p->job);
        if (!take && !other_device_locked(e, avoid, p->job->pe)) {
            snprintf(why, wl, "%.150s; no device left for the retry (the others are quarantined or too small)",
                     p->dev_err);
            take = true;
        }
        if (!take && !dev->quarantined && dev->index != avoid && dev_admits_locked(dev, p->job->pe))
            take = true;
        if (take) {
            if (prev)
                prev->next = p->next;
            else
                e->retry_head = p->next;
            if (e->retry_tail == p)
                e->retry_tail = prev;
            p->next = NULL;
            return p;
        }
    }
    if (!e->chan.n)
        return NULL;
    cz_part *top = cz_heap_top(&e->chan);
    bool take = job_terminal(top->job);
    if (!take && all_quarantined_locked(e)) {
        all_quarantined_msg_locked(e, why, wl);
        take = true;
    }
    if (!take && !dev_can_ever_locked(e, top->job->pe)) {
        snprintf(why, wl,
                 "a partition of '%s' needs %" PRIu64 " bytes of device memory (parameters %" PRIu64
                 " + working set %" PRIu64 "), more than any usable device's budget",
                 top->job->circuit,
                 top->job->pe->est.device_params_bytes + top->job->pe->est.device_partition_bytes,
                 top->job->pe->est.device_params_bytes, top->job->pe->est.device_partition_bytes);
        take = true;
    }
    if (!take && !dev->quarantined && dev_admits_locked(dev, top->job->pe))
        take = true;
    if (!take)
        return NULL;
    cz_heap_pop(&e->chan);
    e->synth_waiting--;
    refill_from_overflow_locked(e);
    pthread_cond_broadcast(&e->space_cv);
    return top;
}

static void *prover_main(void *arg)
{
    worker_arg *wa = arg;
    cz_engine *e = wa->e;
    int w = (int)wa->index;
    cz_engine_device *dev = &e->devs[wa->index / e->cfg.workers_per_device];
    char name[16];
    snprintf(name, sizeof name, "cz-prove%u", wa->index);
    pthread_setname_np(pthread_self(), name);
    pthread_mutex_lock(&e->mu);
    for (;;) {
        char why[256];
        cz_part *p;
        while (!(p = take_locked(e, dev, why, sizeof why)) && !(e->stop && !e->chan.n && !e->retry_head))
            pthread_cond_wait(&e->chan_cv, &e->mu);
        if (!p)
            break;
        if (e->stop)
            pthread_cond_broadcast(&e->chan_cv); /* workers that could not take it re-check the exit */
        cz_job *j = p->job;
        cz_post post = {0};
        if (job_terminal(j)) {
            post_add_retire(&post, p, CZ_ERR_CANCELLED);
            pthread_mutex_unlock(&e->mu);
            post_run(e, &post);
            pthread_mutex_lock(&e->mu);
            continue;
        }
        if (why[0]) {
            job_fail_locked(e, j, p->idx, "prove_start", CZ_ERR_DEVICE, why, &post);
            post_add_retire(&post, p, CZ_ERR_DEVICE);
            pthread_mutex_unlock(&e->mu);
            post_run(e, &post);
            pthread_mutex_lock(&e->mu);
            continue;
        }
        dev_charge_locked(dev, p);
        p->where = PART_PROVING;
        e->proving++;
        void *synth = p->synth;
        p->synth = NULL;
        void *params = j->pe->params;
        uint64_t t0 = cz_engine_now_ns();
        p->rec.prove_start_ms = cz_ms_since(e, t0);
        p->rec.prover_worker = w;
        p->rec.device = dev->index;
        pthread_mutex_unlock(&e->mu);

        cz_tl_emit(e, "PROVE_START", j->id, (int)p->idx, NULL);
        cz_engine_timings tm = {0};
        char bmsg[256] = "";
        void *pending = NULL;
        uint64_t dev0 = cz_tl_device_ns;
        /* GPU_START comes from the first device lock of this call
         * (cz_obs_device_locked), whoever takes it */
        cz_tl_gpu_ctx g = {e, j->id, (int)p->idx, false, 0};
        cz_tl_gpu = &g;
        if (!e->be.backend_locks_device)
            cz_engine_device_lock(dev);
        cz_status st = e->be.prove_start(e->be.ctx, params, synth, dev, &pending, &tm, bmsg,
                                         sizeof bmsg);
        if (!e->be.backend_locks_device)
            cz_engine_device_unlock(dev);
        cz_tl_gpu = NULL;
        uint64_t t1 = cz_engine_now_ns();
        double dev_ms = (double)(cz_tl_device_ns - dev0) / 1e6;
        if (cz_tl_enabled(e)) {
            char extra[400];
            snprintf(extra, sizeof extra, "device=%u gpu_ms=%.3f status=%s", dev->index, dev_ms,
                     cz_status_str(st));
            cz_tl_emit(e, "GPU_END", j->id, (int)p->idx, extra);
            int n = snprintf(extra, sizeof extra, "prove_ms=%.3f device_ms=%.3f status=%s",
                             (double)(t1 - t0) / 1e6, dev_ms, cz_status_str(st));
            cz_tl_phases(extra + n, sizeof extra - (size_t)n, &tm);
            cz_tl_emit(e, "PROVE_END", j->id, (int)p->idx, extra);
        }

        pthread_mutex_lock(&e->mu);
        e->proving--;
        dev_uncharge_locked(e, dev, p);
        p->rec.prove_end_ms = cz_ms_since(e, t1);
        p->rec.device_ms += dev_ms; /* both attempts' device time after a retry */
        if (g.started)
            p->rec.gpu_start_ms = cz_ms_since(e, g.first_ns);
        cz_hist_observe(&e->hist[H_PROVE], (double)(t1 - t0) / 1e9);
        cz_hist_observe(&e->hist[H_DEVICE], dev_ms / 1e3);
        if (st == CZ_ERR_DEVICE) {
            if (pending)
                e->be.free_pending(e->be.ctx, pending); /* contract says none; be safe */
            const char *em = *bmsg ? bmsg : cz_status_str(st);
            device_failed_locked(e, dev, em);
            if (!p->dev_avoid1 && !job_terminal(j) && other_device_locked(e, dev->index, j->pe)) {
                /* Retry on another device. prove_start consumed synth, so
                 * the partition is synthesized again here (its
                 * reservation, abc included, is still held: the new a/b/c
                 * take the room of the old), then waits on the retry list
                 * for a worker of a device other than this one. */
                p->dev_avoid1 = dev->index + 1;
                snprintf(p->dev_err, sizeof p->dev_err, "device %u: %.90s", dev->index, em);
                p->rec.device_retried = true;
                e->c_device_retries++;
                e->proving++; /* this worker still works on it */
                cz_engine_job_view v;
                job_view(j, &v);
                pthread_mutex_unlock(&e->mu);
                if (cz_tl_enabled(e)) {
                    char extra[300];
                    snprintf(extra, sizeof extra, "device=%u error=\"%.200s\"", dev->index, em);
                    cz_tl_emit(e, "DEVICE_RETRY", j->id, (int)p->idx, extra);
                }
                cz_engine_timings tm2 = {0};
                char smsg[256] = "";
                void *s2 = NULL;
                cz_status st2 = e->be.synthesize(e->be.ctx, params, &v, j->first_part + p->idx,
                                                 &j->cancel, &s2, &tm2, smsg, sizeof smsg);
                pthread_mutex_lock(&e->mu);
                e->proving--;
                if (st2 != CZ_OK) {
                    if (s2)
                        e->be.free_synth(e->be.ctx, s2);
                    if (job_terminal(j)) {
                        post_add_retire(&post, p, CZ_ERR_CANCELLED);
                    } else {
                        char err[400];
                        snprintf(err, sizeof err, "%s; synthesis for the retry failed: %.120s",
                                 p->dev_err, *smsg ? smsg : cz_status_str(st2));
                        job_fail_locked(e, j, p->idx, "prove_start", st2, err, &post);
                        post_add_retire(&post, p, st2);
                    }
                } else {
                    p->synth = s2;
                    if (job_terminal(j)) {
                        post_add_retire(&post, p, CZ_ERR_CANCELLED);
                    } else {
                        p->where = PART_RETRY;
                        p->next = NULL;
                        if (e->retry_tail)
                            e->retry_tail->next = p;
                        else
                            e->retry_head = p;
                        e->retry_tail = p;
                        pthread_cond_broadcast(&e->chan_cv);
                    }
                }
            } else {
                char err[400];
                if (p->dev_avoid1)
                    snprintf(err, sizeof err, "%s; retry on device %u: %.90s", p->dev_err, dev->index, em);
                else
                    snprintf(err, sizeof err, "device %u: %.120s; no other device to retry on (%u device(s), %u quarantined)",
                             dev->index, em, e->n_dev, quarantined_count_locked(e));
                budget_release_locked(e, p->abc_left);
                p->abc_left = 0;
                job_fail_locked(e, j, p->idx, "prove_start", st, err, &post);
                post_add_retire(&post, p, st);
            }
        } else {
            if (st == CZ_OK) {
                dev->partitions++;
                dev->consec_failures = 0;
            }
            /* a, b, c are gone: return their share right away */
            budget_release_locked(e, p->abc_left);
            p->abc_left = 0;
            if (st != CZ_OK) {
                if (pending)
                    e->be.free_pending(e->be.ctx, pending);
                job_fail_locked(e, j, p->idx, "prove_start", st, bmsg, &post);
                post_add_retire(&post, p, st);
            } else {
                p->pending = pending;
                if (job_terminal(j)) {
                    post_add_retire(&post, p, CZ_ERR_CANCELLED);
                } else {
                    p->where = PART_FINQ;
                    if (cz_heap_push(&e->finq, p) != CZ_OK) {
                        job_fail_locked(e, j, p->idx, "prove_start", CZ_ERR_NOMEM, NULL, &post);
                        post_add_retire(&post, p, CZ_ERR_NOMEM);
                    } else {
                        pthread_cond_signal(&e->fin_cv);
                    }
                }
            }
        }
        if (post.retire || post.ended || post.prep) {
            pthread_mutex_unlock(&e->mu);
            post_run(e, &post);
            pthread_mutex_lock(&e->mu);
        }
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ------------------------------------------------------------------------
 * finalizers (prove_finish, assembly, self-verification, completion)
 * ------------------------------------------------------------------------ */

static void *finalizer_main(void *arg)
{
    worker_arg *wa = arg;
    cz_engine *e = wa->e;
    int w = (int)wa->index;
    char name[16];
    snprintf(name, sizeof name, "cz-final%u", wa->index);
    pthread_setname_np(pthread_self(), name);
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->finq.n && !e->stop)
            pthread_cond_wait(&e->fin_cv, &e->mu);
        if (!e->finq.n)
            break;
        cz_part *p = cz_heap_pop(&e->finq);
        cz_job *j = p->job;
        cz_post post = {0};
        if (job_terminal(j)) {
            post_add_retire(&post, p, CZ_ERR_CANCELLED);
            pthread_mutex_unlock(&e->mu);
            post_run(e, &post);
            pthread_mutex_lock(&e->mu);
            continue;
        }
        p->where = PART_FINALIZING;
        e->finalizing++;
        void *pending = p->pending;
        p->pending = NULL;
        void *params = j->pe->params;
        uint8_t *dst = j->proof + (size_t)p->idx * j->proof_bytes;
        uint64_t t0 = cz_engine_now_ns();
        p->rec.finish_start_ms = cz_ms_since(e, t0);
        p->rec.finalizer = w;
        pthread_mutex_unlock(&e->mu);

        cz_engine_timings tm = {0};
        char bmsg[256] = "";
        cz_status st = e->be.prove_finish(e->be.ctx, params, pending, dst, &tm, bmsg, sizeof bmsg);
        uint64_t t1 = cz_engine_now_ns();
        if (cz_tl_enabled(e)) {
            char extra[400];
            int n = snprintf(extra, sizeof extra, "finish_ms=%.3f status=%s",
                             (double)(t1 - t0) / 1e6, cz_status_str(st));
            cz_tl_phases(extra + n, sizeof extra - (size_t)n, &tm);
            cz_tl_emit(e, "FINISH_END", j->id, (int)p->idx, extra);
        }

        pthread_mutex_lock(&e->mu);
        e->finalizing--;
        budget_release_locked(e, p->rest_left);
        p->rest_left = 0;
        p->rec.finish_end_ms = cz_ms_since(e, t1);
        part_add_times_locked(p);
        cz_hist_observe(&e->hist[H_FINISH], (double)(t1 - t0) / 1e9);
        if (st != CZ_OK) {
            job_fail_locked(e, j, p->idx, "prove_finish", st, bmsg, &post);
            post_add_retire(&post, p, st);
        } else if (job_terminal(j)) {
            post_add_retire(&post, p, CZ_ERR_CANCELLED); /* late result: discarded */
        } else {
            j->parts_done++;
            if (j->parts_done == j->nparts) {
                /* a range sub-job holds part of a proof, which cannot be
                 * verified alone (cz_engine_verify_proof checks the whole) */
                if (e->cfg.self_verify && e->be.verify && j->nparts == j->total_parts) {
                    /* p still pins the parameters (its retire comes after) */
                    cz_engine_job_view v;
                    job_view(j, &v);
                    char vmsg[256] = "";
                    pthread_mutex_unlock(&e->mu);
                    uint64_t v0 = cz_engine_now_ns();
                    cz_status vst = e->be.verify(e->be.ctx, params, &v, j->proof,
                                                 (size_t)j->nparts * j->proof_bytes, vmsg,
                                                 sizeof vmsg);
                    uint64_t v1 = cz_engine_now_ns();
                    if (cz_tl_enabled(e)) {
                        char extra[128];
                        snprintf(extra, sizeof extra, "verify_ms=%.3f status=%s",
                                 (double)(v1 - v0) / 1e6, cz_status_str(vst));
                        cz_tl_emit(e, "VERIFY_END", j->id, -1, extra);
                    }
                    pthread_mutex_lock(&e->mu);
                    cz_hist_observe(&e->hist[H_VERIFY], (double)(v1 - v0) / 1e9);
                    if (vst != CZ_OK) {
                        char err[256];
                        snprintf(err, sizeof err, "self-verification of the assembled proof failed: %s",
                                 *vmsg ? vmsg : cz_status_str(vst));
                        job_end_locked(e, j, CZ_JOB_FAILED, vst, -1, err, &post);
                    } else {
                        job_end_locked(e, j, CZ_JOB_DONE, CZ_OK, -1, NULL, &post);
                    }
                } else {
                    job_end_locked(e, j, CZ_JOB_DONE, CZ_OK, -1, NULL, &post);
                }
            }
            post_add_retire(&post, p, CZ_OK);
        }
        pthread_mutex_unlock(&e->mu);
        post_run(e, &post);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ------------------------------------------------------------------------
 * lifecycle
 * ------------------------------------------------------------------------ */

#ifdef CUZK_ENGINE_TEST_HOOKS
void cz_engine_test_release_permit_before_send(cz_engine *e, bool on)
{
    pthread_mutex_lock(&e->mu);
    e->test_release_permit_before_send = on;
    pthread_mutex_unlock(&e->mu);
}
#endif

void cz_engine_config_default(cz_engine_config *c)
{
    memset(c, 0, sizeof *c);
    c->partition_workers = 2;
    c->synthesis_lookahead = 1;
    c->devices = 1;
    c->workers_per_device = 2;
    c->device_quarantine_after = 3;
    c->finalizers = 1;
    c->memory_budget = 0;
    c->memory_safety_margin = 5 * GiB;
    c->eviction_min_idle_ms = 300000;
    c->result_retention_ms = 600000;
    c->result_retention_count = 1024;
    c->result_unread_max_bytes = 64ull << 20;
    c->records_capacity = 65536;
    c->self_verify = true;
    c->drain_on_shutdown = true;
    c->drain_timeout_ms = 0;
    c->max_queued_jobs = 10000;
    c->max_queued_bytes = 0;
    c->param_loaders = 2;
}

static void engine_free(cz_engine *e)
{
    for (cz_pentry *p = e->pentries, *n; p; p = n) {
        n = p->next;
        if (p->state == PE_RESIDENT && e->be.unload_params)
            e->be.unload_params(e->be.ctx, p->circuit, p->params);
        free(p->circuit);
        free(p);
    }
    for (cz_job *j = e->fin_head, *n; j; j = n) {
        n = j->finnext;
        job_free(j);
    }
    cz_heap_free(&e->ready);
    cz_heap_free(&e->chan);
    cz_heap_free(&e->finq);
    free(e->id_tab);
    free(e->req_tab);
    free(e->recs);
    if (e->devs)
        for (unsigned i = 0; i < e->n_dev; i++)
            pthread_mutex_destroy(&e->devs[i].mu);
    free(e->devs);
    free(e->synth_threads);
    free(e->prover_threads);
    free(e->fin_threads);
    free(e->load_threads);
    free(e->load_q);
    free(e->shared_keys);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->tl_mu);
    pthread_cond_t *cvs[] = {&e->disp_cv, &e->synth_cv, &e->chan_cv, &e->space_cv, &e->fin_cv,
                             &e->done_cv, &e->pe_cv, &e->reap_cv, &e->load_cv, &e->prep_cv};
    for (size_t i = 0; i < sizeof cvs / sizeof cvs[0]; i++)
        pthread_cond_destroy(cvs[i]);
    free(e);
}

static void join_all(cz_engine *e)
{
    if (e->disp_started)
        pthread_join(e->disp_thread, NULL);
    if (e->reap_started)
        pthread_join(e->reap_thread, NULL);
    for (unsigned i = 0; i < e->synth_started; i++)
        pthread_join(e->synth_threads[i], NULL);
    for (unsigned i = 0; i < e->prover_started; i++)
        pthread_join(e->prover_threads[i], NULL);
    for (unsigned i = 0; i < e->fin_started; i++)
        pthread_join(e->fin_threads[i], NULL);
    for (unsigned i = 0; i < e->load_started; i++)
        pthread_join(e->load_threads[i], NULL);
    e->disp_started = e->reap_started = false;
    e->synth_started = e->prover_started = e->fin_started = e->load_started = 0;
}

cz_status cz_engine_create(cz_engine **out, const cz_engine_config *cfg, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = 0;
    if (!out || !cfg) {
        set_msg(msg, msglen, "NULL argument");
        return CZ_ERR_INVALID_ARG;
    }
    *out = NULL;
    const cz_engine_backend *b = &cfg->backend;
    if (!b->estimate || !b->load_params || !b->synthesize || !b->prove_start ||
        !b->prove_finish || !b->free_synth || !b->free_pending) {
        set_msg(msg, msglen, "back-end lacks a required callback (estimate, load_params, "
                             "synthesize, prove_start, prove_finish, free_synth, free_pending)");
        return CZ_ERR_INVALID_ARG;
    }
    if (!cfg->partition_workers || !cfg->devices || !cfg->workers_per_device ||
        !cfg->finalizers || cfg->partition_workers > 4096 || cfg->devices > 256 ||
        cfg->workers_per_device > 64 || cfg->finalizers > 4096) {
        set_msg(msg, msglen, "partition_workers, devices, workers_per_device and "
                             "finalizers must be at least 1 (and sane)");
        return CZ_ERR_INVALID_ARG;
    }
    if (!cfg->param_loaders || cfg->param_loaders > 64) {
        set_msg(msg, msglen, "param_loaders = %u: must be 1..64", cfg->param_loaders);
        return CZ_ERR_INVALID_ARG;
    }
    if (!cfg->max_queued_jobs) {
        set_msg(msg, msglen, "engine.max_queued_jobs = 0 would refuse every job: must be at least 1");
        return CZ_ERR_INVALID_ARG;
    }
    uint64_t budget = cfg->memory_budget;
    if (!budget) {
        /* The machine's RAM, or less when a cgroup (systemd MemoryMax=,
         * a container limit) caps this process: the kernel kills at the
         * group's limit, not at MemTotal (cuzk/sysmem.h). */
        cz_sys_memory sm;
        uint64_t mt = cz_sys_memory_limit(&sm, NULL) == CZ_OK ? sm.limit : 0;
        if (mt <= cfg->memory_safety_margin) {
            set_msg(msg, msglen, "auto memory budget: the memory limit %llu bytes (%s) does not exceed "
                                 "the safety margin %llu bytes",
                    (unsigned long long)mt, sm.source[0] ? sm.source : "neither /proc/meminfo nor a cgroup limit is readable",
                    (unsigned long long)cfg->memory_safety_margin);
            return CZ_ERR_BUDGET;
        }
        budget = mt - cfg->memory_safety_margin;
    }

    cz_engine *e = calloc(1, sizeof *e);
    if (!e)
        return CZ_ERR_NOMEM;
    e->cfg = *cfg;
    e->be = cfg->backend;
    e->budget = budget;
    /* a quarter of the budget by default: payloads wait, parameters and
     * partitions work, and the work must keep most of the room */
    e->max_queued_bytes = cfg->max_queued_bytes ? cfg->max_queued_bytes : budget / 4;
    e->t0 = cz_engine_now_ns();
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->tl_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_t *cvs[] = {&e->disp_cv, &e->synth_cv, &e->chan_cv, &e->space_cv, &e->fin_cv,
                             &e->done_cv, &e->pe_cv, &e->reap_cv, &e->load_cv, &e->prep_cv};
    for (size_t i = 0; i < sizeof cvs / sizeof cvs[0]; i++)
        pthread_cond_init(cvs[i], &ca);
    pthread_condattr_destroy(&ca);

    cz_heap_init(&e->ready, job_cmp, job_idx);
    cz_heap_init(&e->chan, part_cmp, part_idx);
    cz_heap_init(&e->finq, part_cmp, part_idx);
    e->chan_cap = cfg->synthesis_lookahead > cfg->partition_workers ? cfg->synthesis_lookahead
                                                                    : cfg->partition_workers;
    e->id_nb = e->req_nb = 1024;
    e->id_tab = calloc(e->id_nb, sizeof *e->id_tab);
    e->req_tab = calloc(e->req_nb, sizeof *e->req_tab);
    e->rec_cap = cfg->records_capacity;
    e->recs = e->rec_cap ? calloc(e->rec_cap, sizeof *e->recs) : NULL;
    e->n_dev = cfg->devices;
    e->devs = calloc(e->n_dev, sizeof *e->devs);
    e->n_synth = cfg->partition_workers;
    e->n_prover = cfg->devices * cfg->workers_per_device;
    e->n_fin = cfg->finalizers;
    e->synth_threads = calloc(e->n_synth, sizeof(pthread_t));
    e->prover_threads = calloc(e->n_prover, sizeof(pthread_t));
    e->fin_threads = calloc(e->n_fin, sizeof(pthread_t));
    e->n_load = cfg->param_loaders;
    e->load_threads = calloc(e->n_load, sizeof(pthread_t));
    worker_arg *args = calloc((size_t)e->n_synth + e->n_prover + e->n_fin, sizeof *args);
    if (!e->id_tab || !e->req_tab || (e->rec_cap && !e->recs) || !e->devs || !e->synth_threads ||
        !e->prover_threads || !e->fin_threads || !e->load_threads || !args ||
        cz_heap_reserve(&e->chan, e->chan_cap) != CZ_OK) {
        free(args);
        engine_free(e);
        return CZ_ERR_NOMEM;
    }
    for (unsigned i = 0; i < e->n_dev; i++) {
        pthread_mutex_init(&e->devs[i].mu, NULL);
        e->devs[i].index = i;
        atomic_init(&e->devs[i].busy_ns, 0);
        e->devs[i].e = e;
        e->devs[i].mem_total = cfg->device_memory[i];
        if (cfg->backend.device_name)
            cfg->backend.device_name(cfg->backend.ctx, i, e->devs[i].name, sizeof e->devs[i].name);
        e->devs[i].name[sizeof e->devs[i].name - 1] = 0;
        if (!e->devs[i].name[0])
            snprintf(e->devs[i].name, sizeof e->devs[i].name, "device %u", i);
    }
    e->accepting = true;
    e->paused = cfg->start_paused;

    /* Workers block every signal (the daemon handles them on its own thread). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    bool ok = pthread_create(&e->disp_thread, NULL, dispatcher_main, e) == 0;
    e->disp_started = ok;
    ok = ok && pthread_create(&e->reap_thread, NULL, reaper_main, e) == 0;
    e->reap_started = ok;
    worker_arg *a = args;
    for (unsigned i = 0; ok && i < e->n_synth; i++, a++) {
        a->e = e;
        a->index = i;
        ok = pthread_create(&e->synth_threads[i], NULL, synth_main, a) == 0;
        e->synth_started += ok;
    }
    for (unsigned i = 0; ok && i < e->n_prover; i++, a++) {
        a->e = e;
        a->index = i;
        ok = pthread_create(&e->prover_threads[i], NULL, prover_main, a) == 0;
        e->prover_started += ok;
    }
    for (unsigned i = 0; ok && i < e->n_fin; i++, a++) {
        a->e = e;
        a->index = i;
        ok = pthread_create(&e->fin_threads[i], NULL, finalizer_main, a) == 0;
        e->fin_started += ok;
    }
    for (unsigned i = 0; ok && i < e->n_load; i++) {
        ok = pthread_create(&e->load_threads[i], NULL, loader_main, e) == 0;
        e->load_started += ok;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    e->worker_args = args;
    if (!ok) {
        pthread_mutex_lock(&e->mu);
        e->stop = true;
        pthread_cond_broadcast(&e->disp_cv);
        pthread_cond_broadcast(&e->synth_cv);
        pthread_cond_broadcast(&e->chan_cv);
        pthread_cond_broadcast(&e->fin_cv);
        pthread_cond_broadcast(&e->reap_cv);
        pthread_cond_broadcast(&e->load_cv);
        pthread_mutex_unlock(&e->mu);
        join_all(e);
        free(args);
        engine_free(e);
        set_msg(msg, msglen, "cannot start threads");
        return CZ_ERR_NOMEM;
    }
    *out = e;
    return CZ_OK;
}

/* Cancels every unfinished job (running ones too when all, else only the
 * queued ones) with reason. Called and returns with mu held (dropped for
 * each job's post-processing). Returns how many it ended. */
static size_t cancel_where_locked(cz_engine *e, bool all, const char *reason)
{
    size_t n = 0;
    for (;;) {
        cz_job *victim = NULL;
        for (size_t b = 0; b < e->id_nb && !victim; b++)
            for (cz_job *j = e->id_tab[b]; j; j = j->idnext)
                if (!job_terminal(j) && (all || j->state == CZ_JOB_QUEUED)) {
                    victim = j;
                    break;
                }
        if (!victim)
            return n;
        cz_post post = {0};
        if (job_end_locked(e, victim, CZ_JOB_CANCELLED, CZ_ERR_CANCELLED, -1, reason, &post))
            n++;
        pthread_mutex_unlock(&e->mu);
        post_run(e, &post);
        pthread_mutex_lock(&e->mu);
    }
}

size_t cz_engine_cancel_all(cz_engine *e, const char *reason)
{
    if (!e)
        return 0;
    pthread_mutex_lock(&e->mu);
    size_t n = cancel_where_locked(e, true, reason ? reason : "cancelled by engine shutdown");
    pthread_mutex_unlock(&e->mu);
    return n;
}

void cz_engine_shutdown(cz_engine *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->mu);
    if (e->shutting) {
        while (!e->shut_done)
            pthread_cond_wait(&e->done_cv, &e->mu);
        pthread_mutex_unlock(&e->mu);
        return;
    }
    e->shutting = true;
    e->accepting = false;
    e->paused = false;
    pthread_cond_signal(&e->disp_cv);
    cancel_where_locked(e, !e->cfg.drain_on_shutdown, "cancelled by engine shutdown");
    uint64_t deadline = e->cfg.drain_timeout_ms ? deadline_after_ms((int64_t)e->cfg.drain_timeout_ms) : 0;
    bool expired = false;
    while (e->jobs_active || e->inflight || e->notifying) {
        if (!deadline || expired) {
            pthread_cond_wait(&e->done_cv, &e->mu);
        } else if (!cv_wait_until(&e->done_cv, &e->mu, deadline)) {
            expired = true;
            cancel_where_locked(e, true, "cancelled: the drain deadline (engine.drain_timeout_ms) passed");
        }
    }
    e->stop = true;
    pthread_cond_broadcast(&e->disp_cv);
    pthread_cond_broadcast(&e->synth_cv);
    pthread_cond_broadcast(&e->chan_cv);
    pthread_cond_broadcast(&e->space_cv);
    pthread_cond_broadcast(&e->fin_cv);
    pthread_cond_broadcast(&e->reap_cv);
    pthread_cond_broadcast(&e->load_cv);
    pthread_cond_broadcast(&e->prep_cv);
    pthread_mutex_unlock(&e->mu);
    join_all(e);
    pthread_mutex_lock(&e->mu);
    e->shut_done = true;
    pthread_cond_broadcast(&e->done_cv);
    pthread_mutex_unlock(&e->mu);
}

void cz_engine_destroy(cz_engine *e)
{
    if (!e)
        return;
    cz_engine_shutdown(e);
    free(e->worker_args);
    engine_free(e);
}

void cz_engine_pause(cz_engine *e)
{
    pthread_mutex_lock(&e->mu);
    e->paused = true;
    pthread_mutex_unlock(&e->mu);
}

void cz_engine_resume(cz_engine *e)
{
    pthread_mutex_lock(&e->mu);
    if (!e->shutting)
        e->paused = false;
    pthread_cond_signal(&e->disp_cv);
    pthread_mutex_unlock(&e->mu);
}

uint64_t cz_engine_budget(const cz_engine *e)
{
    return e->budget; /* constant after creation */
}

/* ------------------------------------------------------------------------
 * jobs API
 * ------------------------------------------------------------------------ */

/* The queue bounds (engine.h, max_queued_jobs / max_queued_bytes) for a
 * new job of pe with a payload of len bytes. */
static cz_status queue_admit_locked(cz_engine *e, const cz_pentry *pe, size_t len, char *msg,
                                    size_t msglen)
{
    if (e->jobs_active >= e->cfg.max_queued_jobs) {
        set_msg(msg, msglen, "queue full: %llu jobs queued (engine.max_queued_jobs = %llu)",
                (unsigned long long)e->jobs_active, (unsigned long long)e->cfg.max_queued_jobs);
        return CZ_ERR_QUEUE_FULL;
    }
    if (len > e->max_queued_bytes) {
        set_msg(msg, msglen,
                "the payload of %zu bytes exceeds engine.max_queued_bytes = %llu (it could never be "
                "queued)",
                len, (unsigned long long)e->max_queued_bytes);
        return CZ_ERR_BUDGET;
    }
    if (e->payload_bytes + len > e->max_queued_bytes) {
        set_msg(msg, msglen,
                "queue full: payloads of %llu bytes queued, this one's %zu bytes would exceed "
                "engine.max_queued_bytes = %llu",
                (unsigned long long)e->payload_bytes, len, (unsigned long long)e->max_queued_bytes);
        return CZ_ERR_QUEUE_FULL;
    }
    /* Queued payloads hold budget that only their own jobs' runs give
     * back, so the job at the head must fit beside all of them: the
     * largest need among the circuits with queued jobs (and this one),
     * plus every payload, must fit the budget, or the queue could stall
     * for good. */
    const cz_pentry *big = pe;
    uint64_t max_need = 0;
    for (const cz_pentry *q = e->pentries; q; q = q->next) {
        if (q != pe && !q->waiting_jobs)
            continue;
        uint64_t n = q->est.params_bytes + q->est.abc_bytes + q->est.rest_bytes + q->est.shared_bytes;
        if (n > max_need) {
            max_need = n;
            big = q;
        }
    }
    if (e->payload_bytes + len + max_need > e->budget) {
        set_msg(msg, msglen,
                "queue full: payloads of %llu bytes queued plus this one's %zu bytes would leave less "
                "than the %llu bytes circuit '%s' needs of the %llu-byte budget",
                (unsigned long long)e->payload_bytes, len, (unsigned long long)max_need, big->circuit,
                (unsigned long long)e->budget);
        return CZ_ERR_QUEUE_FULL;
    }
    return CZ_OK;
}

cz_status cz_engine_submit(cz_engine *e, const cz_job_request *req, cz_job_id *id,
                           bool *existing, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = 0;
    if (existing)
        *existing = false;
    if (!e || !req || !id) {
        set_msg(msg, msglen, "NULL argument");
        return CZ_ERR_INVALID_ARG;
    }
    *id = 0;
    size_t cl = req->circuit_id ? strlen(req->circuit_id) : 0;
    if (cl == 0 || cl > 127) {
        set_msg(msg, msglen, "circuit id must be 1..127 characters");
        return CZ_ERR_INVALID_ARG;
    }
    if (!req->payload && req->payload_len) {
        set_msg(msg, msglen, "payload is NULL but payload_len is %zu", req->payload_len);
        return CZ_ERR_INVALID_ARG;
    }
    if (req->num_partitions < 1 || req->num_partitions > 65536) {
        set_msg(msg, msglen, "num_partitions %u is outside 1..65536", req->num_partitions);
        return CZ_ERR_INVALID_ARG;
    }
    if (req->partition_count == 0 ? req->first_partition != 0
                                  : (req->first_partition >= req->num_partitions ||
                                     req->partition_count > req->num_partitions - req->first_partition)) {
        set_msg(msg, msglen,
                "partition range first_partition %u, partition_count %u is outside the job's %u "
                "partitions (count 0 = the whole job, with first_partition 0)",
                req->first_partition, req->partition_count, req->num_partitions);
        return CZ_ERR_INVALID_ARG;
    }
    if ((unsigned)req->priority > CZ_PRIO_CRITICAL) {
        set_msg(msg, msglen, "unknown priority %d", (int)req->priority);
        return CZ_ERR_INVALID_ARG;
    }
    const char *rid = req->request_id && *req->request_id ? req->request_id : NULL;
    if (rid && strlen(rid) > 255) {
        set_msg(msg, msglen, "request id longer than 255 characters");
        return CZ_ERR_INVALID_ARG;
    }

    /* allocate and copy outside the lock */
    cz_job *j = calloc(1, sizeof *j);
    if (!j)
        return CZ_ERR_NOMEM;
    j->circuit = xstrdup(req->circuit_id);
    j->request_id = rid ? xstrdup(rid) : NULL;
    j->payload_len = req->payload_len;
    j->payload = malloc(req->payload_len ? req->payload_len : 1);
    if (!j->circuit || (rid && !j->request_id) || !j->payload) {
        job_free(j);
        return CZ_ERR_NOMEM;
    }
    if (req->payload_len)
        memcpy(j->payload, req->payload, req->payload_len);
    cz_engine_digest(j->payload, j->payload_len, j->digest);
    j->total_parts = req->num_partitions;
    j->first_part = req->partition_count ? req->first_partition : 0;
    j->nparts = req->partition_count ? req->partition_count : req->num_partitions;
    j->prio = req->priority;
    j->failed_part = -1;
    j->heap_idx = (size_t)-1;
    atomic_init(&j->cancel.flag, 0);

    cz_status st = CZ_OK;
    pthread_mutex_lock(&e->mu);
    if (!e->accepting)
        goto shutting_down;
    uint64_t now = cz_engine_now_ns();
    prune_locked(e, now);
    cz_pentry *pe = pentry_get_locked(e, j->circuit);
    if (!pe) {
        st = CZ_ERR_NOMEM;
        goto refuse;
    }
    st = pentry_estimate_locked(e, pe, msg, msglen);
    if (st != CZ_OK) {
        pentry_drop_failed_locked(e, pe);
        goto refuse;
    }
    /* The estimate may have dropped mu (the first job of a circuit asks
     * the back-end): shutdown can have begun meanwhile, and a job queued
     * now would never run (the workers may be gone already). */
    if (!e->accepting)
        goto shutting_down;
    if (e->unread_bytes >= e->cfg.result_unread_max_bytes && e->cfg.result_unread_max_bytes) {
        /* Count-based pruning never drops an unread proof, so this is the
         * one bound on what unread results hold: refuse new work rather
         * than lose finished proofs. */
        set_msg(msg, msglen,
                "%zu finished jobs hold %llu bytes of proofs that nobody has fetched yet, the limit "
                "engine.result_unread_max_bytes = %llu: fetch them (await) or wait until "
                "result_retention_ms (%llu ms) drops them, then submit again",
                e->unread_count, (unsigned long long)e->unread_bytes,
                (unsigned long long)e->cfg.result_unread_max_bytes,
                (unsigned long long)e->cfg.result_retention_ms);
        st = CZ_ERR_BUDGET;
        goto refuse;
    }
    {
        const cz_engine_estimate *es = &pe->est;
        uint64_t need = es->params_bytes + es->abc_bytes + es->rest_bytes;
        uint64_t with = need + es->shared_bytes + j->payload_len; /* all it holds while it runs */
        if (need < es->params_bytes || with < need || with > e->budget) {
            char extra[160] = "";
            if (need <= e->budget) /* the caches and the payload are what tips it over */
                snprintf(extra, sizeof extra,
                         ", plus %llu bytes of shared back-end caches and the job's %zu-byte "
                         "payload = %llu bytes",
                         (unsigned long long)es->shared_bytes, j->payload_len,
                         (unsigned long long)with);
            set_msg(msg, msglen,
                    "circuit '%s' cannot fit the memory budget: one partition needs "
                    "%llu bytes (a/b/c %llu + rest %llu) plus %llu bytes of parameters = %llu "
                    "bytes%s, but the budget is %llu bytes",
                    j->circuit, (unsigned long long)(es->abc_bytes + es->rest_bytes),
                    (unsigned long long)es->abc_bytes, (unsigned long long)es->rest_bytes,
                    (unsigned long long)es->params_bytes, (unsigned long long)need, extra,
                    (unsigned long long)e->budget);
            st = CZ_ERR_BUDGET;
            goto refuse;
        }
    }
    if (rid) {
        cz_job *o = req_lookup(e, rid);
        if (o && (o->state == CZ_JOB_FAILED || o->state == CZ_JOB_CANCELLED)) {
            /* A dead job never answers for its request id: the client is
             * retrying, so the id moves to the new job (the old one stays
             * readable by its job id until pruned). */
            req_unlink(e, o);
            o = NULL;
        }
        if (o) {
            if (!strcmp(o->circuit, j->circuit) && o->nparts == j->nparts &&
                o->total_parts == j->total_parts && o->first_part == j->first_part &&
                o->payload_len == j->payload_len && o->digest[0] == j->digest[0] &&
                o->digest[1] == j->digest[1]) {
                *id = o->id;
                if (existing)
                    *existing = true;
                pthread_mutex_unlock(&e->mu);
                job_free(j);
                return CZ_OK;
            }
            set_msg(msg, msglen,
                    "request id '%s' is in use by job %llu (%s) with a different "
                    "circuit, partition count or payload; it can be reused once that job's "
                    "result has been pruned",
                    rid, (unsigned long long)o->id, cz_job_state_str(o->state));
            st = CZ_ERR_BUSY;
            goto refuse;
        }
    }
    st = queue_admit_locked(e, pe, j->payload_len, msg, msglen);
    if (st != CZ_OK)
        goto refuse;
    j->proof_bytes = pe->est.proof_bytes;
    j->proof = calloc(j->nparts, j->proof_bytes);
    j->pe = pe;
    j->seq = e->next_seq; /* the heap orders by it */
    if (!j->proof || cz_heap_push(&e->ready, j) != CZ_OK) {
        st = CZ_ERR_NOMEM;
        goto refuse;
    }
    j->in_ready = true;
    j->id = ++e->next_id;
    e->next_seq++;
    j->t_submit = now;
    j->state = CZ_JOB_QUEUED;
    j->refs = 1;
    tables_insert(e, j);
    e->jobs_active++;
    e->parts_queued += j->nparts;
    e->c_submitted++;
    pe->waiting_jobs++;
    /* the payload is charged from here until the engine frees it */
    j->payload_charged = true;
    e->payload_bytes += j->payload_len;
    budget_charge_locked(e, j->payload_len);
    *id = j->id;
    pthread_cond_signal(&e->disp_cv);
    if (cz_tl_enabled(e)) {
        /* under mu so that JOB_SUBMIT precedes the job's other lines */
        char extra[256];
        snprintf(extra, sizeof extra, "circuit=%s parts=%u prio=%s", j->circuit, j->nparts,
                 cz_priority_str(j->prio));
        cz_tl_emit(e, "JOB_SUBMIT", j->id, -1, extra);
    }
    pthread_mutex_unlock(&e->mu);
    return CZ_OK;

shutting_down:
    set_msg(msg, msglen, "the engine is shutting down: no new jobs are accepted");
    st = CZ_ERR_CANCELLED;
refuse:
    e->c_refused++;
    pthread_mutex_unlock(&e->mu);
    job_free(j);
    return st;
}

static void fill_result_locked(cz_engine *e, const cz_job *j, cz_job_result *out)
{
    memset(out, 0, sizeof *out);
    out->id = j->id;
    out->state = j->state;
    out->status = j->status;
    snprintf(out->error, sizeof out->error, "%s", j->error);
    out->failed_partition = j->failed_part;
    out->num_partitions = j->nparts;
    out->partitions_done = j->parts_done;
    out->priority = j->prio;
    uint64_t now = cz_engine_now_ns();
    uint64_t end = job_terminal(j) ? j->t_end : now;
    uint64_t start = j->t_start ? j->t_start : end;
    out->queued_ms = (double)(start - j->t_submit) / 1e6;
    out->total_ms = (double)(end - j->t_submit) / 1e6;
    out->load_ms = j->load_ms;
    out->synth_ms = j->synth_ms;
    out->prove_ms = j->prove_ms;
    out->finish_ms = j->finish_ms;
    out->device_ms = j->device_ms;
    snprintf(out->circuit_id, sizeof out->circuit_id, "%s", j->circuit);
    (void)e;
}

cz_status cz_engine_job_info(cz_engine *e, cz_job_id id, cz_job_result *out)
{
    if (!e || !out)
        return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    prune_locked(e, cz_engine_now_ns());
    cz_job *j = id_lookup(e, id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return CZ_ERR_NOT_FOUND;
    }
    fill_result_locked(e, j, out);
    pthread_mutex_unlock(&e->mu);
    return CZ_OK;
}

cz_status cz_engine_await(cz_engine *e, cz_job_id id, int64_t timeout_ms, cz_job_result *out)
{
    if (!e || !out)
        return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    uint64_t deadline = deadline_after_ms(timeout_ms);
    pthread_mutex_lock(&e->mu);
    prune_locked(e, cz_engine_now_ns());
    cz_job *j = id_lookup(e, id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return CZ_ERR_NOT_FOUND;
    }
    j->refs++;
    while (!job_terminal(j) && timeout_ms != 0) {
        if (!cv_wait_until(&e->done_cv, &e->mu, deadline) && cz_engine_now_ns() >= deadline)
            break;
    }
    fill_result_locked(e, j, out);
    cz_status st = job_terminal(j) ? CZ_OK : CZ_ERR_TIMEOUT;
    if (j->state == CZ_JOB_DONE) {
        size_t n = (size_t)j->nparts * j->proof_bytes;
        out->proof = malloc(n);
        if (out->proof) {
            memcpy(out->proof, j->proof, n);
            out->proof_len = n;
            unread_clear_locked(e, j); /* now count-based pruning may drop it */
        } else {
            st = CZ_ERR_NOMEM; /* the job and its proof stay: a retry can fetch it */
        }
    }
    job_unref_locked(e, j);
    pthread_mutex_unlock(&e->mu);
    return st;
}

void cz_job_result_free(cz_job_result *r)
{
    if (!r)
        return;
    free(r->proof);
    r->proof = NULL;
    r->proof_len = 0;
}

cz_status cz_engine_cancel(cz_engine *e, cz_job_id id, cz_job_state *state)
{
    if (!e)
        return CZ_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    cz_job *j = id_lookup(e, id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return CZ_ERR_NOT_FOUND;
    }
    cz_post post = {0};
    bool ended = job_end_locked(e, j, CZ_JOB_CANCELLED, CZ_ERR_CANCELLED, -1,
                                "cancelled by request", &post);
    if (state)
        *state = j->state;
    pthread_mutex_unlock(&e->mu);
    post_run(e, &post);
    return ended ? CZ_OK : CZ_ERR_BUSY;
}

cz_status cz_engine_wait_idle(cz_engine *e, int64_t timeout_ms)
{
    if (!e)
        return CZ_ERR_INVALID_ARG;
    uint64_t deadline = deadline_after_ms(timeout_ms);
    pthread_mutex_lock(&e->mu);
    while (e->jobs_active || e->inflight || e->notifying) {
        if (timeout_ms == 0 || (!cv_wait_until(&e->done_cv, &e->mu, deadline) &&
                                cz_engine_now_ns() >= deadline)) {
            pthread_mutex_unlock(&e->mu);
            return CZ_ERR_TIMEOUT;
        }
    }
    pthread_mutex_unlock(&e->mu);
    return CZ_OK;
}

/* ------------------------------------------------------------------------
 * parameter manager API
 * ------------------------------------------------------------------------ */

cz_status cz_engine_check_circuit(cz_engine *e, const char *circuit_id, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = 0;
    if (!e || !circuit_id || !*circuit_id || strlen(circuit_id) > 127) {
        set_msg(msg, msglen, "invalid circuit id (1..127 characters)");
        return CZ_ERR_INVALID_ARG;
    }
    if (!e->be.check_circuit)
        return CZ_OK;
    char bmsg[256] = "";
    cz_status st = e->be.check_circuit(e->be.ctx, circuit_id, bmsg, sizeof bmsg);
    if (st != CZ_OK)
        set_msg(msg, msglen, "%s", *bmsg ? bmsg : cz_status_str(st));
    return st;
}

cz_status cz_engine_preload(cz_engine *e, const char *circuit_id, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = 0;
    if (!e || !circuit_id || !*circuit_id || strlen(circuit_id) > 127) {
        set_msg(msg, msglen, "invalid circuit id");
        return CZ_ERR_INVALID_ARG;
    }
    pthread_mutex_lock(&e->mu);
    cz_pentry *pe = pentry_get_locked(e, circuit_id);
    cz_status st = pe ? pentry_estimate_locked(e, pe, msg, msglen) : CZ_ERR_NOMEM;
    if (pe && st != CZ_OK)
        pentry_drop_failed_locked(e, pe);
    while (st == CZ_OK) {
        if (pe->state == PE_RESIDENT) {
            pe->last_used_ns = cz_engine_now_ns();
            break;
        }
        if (pe->state != PE_ABSENT) {
            pthread_cond_wait(&e->pe_cv, &e->mu);
            continue;
        }
        uint64_t need = pe->est.params_bytes + shared_need_locked(e, pe);
        if (e->used + need > e->budget) {
            uint64_t next_el;
            cz_pentry *victim = evict_candidate_locked(e, pe, cz_engine_now_ns(), &next_el, false);
            if (victim) {
                evict_locked(e, victim);
                continue;
            }
            set_msg(msg, msglen,
                    "parameters for '%s' need %llu bytes but only %llu of the %llu-byte "
                    "budget are free now (the rest is in use or held by parameters idle for less "
                    "than %llu ms)",
                    circuit_id, (unsigned long long)need,
                    (unsigned long long)(e->budget - e->used), (unsigned long long)e->budget,
                    (unsigned long long)e->cfg.eviction_min_idle_ms);
            st = CZ_ERR_BUDGET;
            break;
        }
        budget_charge_locked(e, pe->est.params_bytes);
        pe->charged = pe->est.params_bytes;
        shared_charge_locked(e, pe);
        pe->state = PE_LOADING;
        e->loading++;
        st = load_locked(e, pe, msg, msglen);
        e->loading--;
        break;
    }
    pthread_mutex_unlock(&e->mu);
    return st;
}

cz_status cz_engine_evict(cz_engine *e, const char *circuit_id, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = 0;
    if (!e || !circuit_id) {
        set_msg(msg, msglen, "invalid circuit id");
        return CZ_ERR_INVALID_ARG;
    }
    pthread_mutex_lock(&e->mu);
    cz_pentry *pe = pentry_find_locked(e, circuit_id);
    cz_status st = CZ_OK;
    if (!pe || pe->state == PE_ABSENT) {
        set_msg(msg, msglen, "parameters for '%s' are not loaded", circuit_id);
        st = CZ_ERR_NOT_FOUND;
    } else if (pe->state != PE_RESIDENT || pe->refs) {
        set_msg(msg, msglen, "parameters for '%s' are in use (%u partitions)", circuit_id,
                pe->refs);
        st = CZ_ERR_BUSY;
    } else {
        evict_locked(e, pe);
    }
    pthread_mutex_unlock(&e->mu);
    return st;
}

size_t cz_engine_circuit_loads(cz_engine *e, cz_engine_circuit_load *out, size_t cap)
{
    size_t n = 0;
    pthread_mutex_lock(&e->mu);
    for (size_t b = 0; b < e->id_nb; b++) {
        for (const cz_job *j = e->id_tab[b]; j; j = j->idnext) {
            if (job_terminal(j))
                continue;
            size_t k = 0;
            while (k < n && strcmp(out[k].circuit_id, j->circuit))
                k++;
            if (k == n) {
                if (n == cap)
                    continue; /* more circuits than room: left out */
                snprintf(out[n].circuit_id, sizeof out[n].circuit_id, "%s", j->circuit);
                out[n].queued = out[n].running = 0;
                memset(out[n].queued_by_priority, 0, sizeof out[n].queued_by_priority);
                n++;
            }
            if (j->state == CZ_JOB_QUEUED) {
                out[k].queued++;
                out[k].queued_by_priority[j->prio]++;
            } else {
                out[k].running++;
            }
        }
    }
    pthread_mutex_unlock(&e->mu);
    return n;
}

size_t cz_engine_params_list(cz_engine *e, cz_engine_params_info *out, size_t cap)
{
    size_t n = 0;
    uint64_t now = cz_engine_now_ns();
    pthread_mutex_lock(&e->mu);
    for (const cz_pentry *pe = e->pentries; pe; pe = pe->next) {
        if (pe->state == PE_ABSENT)
            continue;
        if (n < cap) {
            cz_engine_params_info *o = &out[n];
            snprintf(o->circuit_id, sizeof o->circuit_id, "%s", pe->circuit);
            o->resident = pe->state == PE_RESIDENT;
            o->bytes = pe->charged;
            o->refs = pe->refs;
            o->idle_ms = now > pe->last_used_ns ? (now - pe->last_used_ns) / 1000000 : 0;
        }
        n++;
    }
    pthread_mutex_unlock(&e->mu);
    return n;
}

/* ------------------------------------------------------------------------
 * verification of a proof assembled elsewhere (the job store's assembler)
 * ------------------------------------------------------------------------ */

cz_status cz_engine_verify_proof(cz_engine *e, const char *circuit_id, const void *payload,
                                 size_t payload_len, uint32_t num_partitions, const uint8_t *proof,
                                 size_t proof_len, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = 0;
    if (!e || !circuit_id || (!payload && payload_len) || !proof || num_partitions < 1 ||
        num_partitions > 65536) {
        set_msg(msg, msglen, "invalid verify request (circuit, payload, proof or num_partitions %u)",
                num_partitions);
        return CZ_ERR_INVALID_ARG;
    }
    if (!e->be.verify) {
        set_msg(msg, msglen, "the back-end cannot verify proofs of '%s'", circuit_id);
        return CZ_ERR_UNSUPPORTED;
    }
    /* The normal load path (budget, eviction of idle sets), then a pin
     * (refs) under mu: a set resident now cannot be evicted while the
     * verify uses it. Between the two it can be evicted by memory
     * pressure, so the pair is retried a few times. */
    cz_pentry *pe = NULL;
    cz_status st = CZ_OK;
    for (int tries = 0; tries < 8 && !pe; tries++) {
        st = cz_engine_preload(e, circuit_id, msg, msglen);
        if (st != CZ_OK)
            return st;
        pthread_mutex_lock(&e->mu);
        cz_pentry *p = pentry_find_locked(e, circuit_id);
        if (p && p->state == PE_RESIDENT) {
            p->refs++;
            pe = p;
        }
        pthread_mutex_unlock(&e->mu);
    }
    if (!pe) {
        set_msg(msg, msglen, "parameters for '%s' were evicted again while loading them to verify",
                circuit_id);
        return CZ_ERR_BUDGET;
    }
    size_t want = (size_t)num_partitions * pe->est.proof_bytes;
    if (proof_len != want) {
        set_msg(msg, msglen, "proof of %zu bytes is not %u partition proofs of %zu bytes of '%s'",
                proof_len, num_partitions, pe->est.proof_bytes, circuit_id);
        st = CZ_ERR_INVALID_ARG;
        goto unpin;
    }
    {
        cz_engine_job_view v = {.id = 0,
                                .circuit_id = circuit_id,
                                .payload = payload,
                                .payload_len = payload_len,
                                .num_partitions = num_partitions,
                                .prepared = NULL};
        char bmsg[256] = "";
        if (e->be.prepare_job) {
            st = e->be.prepare_job(e->be.ctx, pe->params, &v, &v.prepared, bmsg, sizeof bmsg);
            if (st != CZ_OK) {
                set_msg(msg, msglen, "prepare_job: %s", *bmsg ? bmsg : cz_status_str(st));
                goto unpin;
            }
        }
        uint64_t v0 = cz_engine_now_ns();
        st = e->be.verify(e->be.ctx, pe->params, &v, proof, proof_len, bmsg, sizeof bmsg);
        uint64_t v1 = cz_engine_now_ns();
        if (st != CZ_OK)
            set_msg(msg, msglen, "the assembled proof is invalid: %s", *bmsg ? bmsg : cz_status_str(st));
        if (v.prepared && e->be.release_job)
            e->be.release_job(e->be.ctx, v.prepared);
        pthread_mutex_lock(&e->mu);
        cz_hist_observe(&e->hist[H_VERIFY], (double)(v1 - v0) / 1e9);
        pthread_mutex_unlock(&e->mu);
    }
unpin:
    pthread_mutex_lock(&e->mu);
    pe->refs--;
    pe->last_used_ns = cz_engine_now_ns();
    pthread_cond_signal(&e->disp_cv); /* an unpinned set may be what a job waits to evict */
    pthread_mutex_unlock(&e->mu);
    return st;
}
