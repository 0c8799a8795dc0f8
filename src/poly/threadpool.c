/*
 * cuzk — thread pool (include/cuzk/threadpool.h).
 *
 * DESIGN
 * ------
 * One mutex (p->mu) guards two queues:
 *   - the list of active parallel jobs (cz_pf_job, living on the caller's
 *     stack for the duration of one parallel_for / parallel_range call);
 *   - the FIFO of background tasks (cz_task, heap-allocated by submit and
 *     freed by cz_task_wait).
 * Two condition variables go with it: work_cv wakes idle workers when a
 * job or task is queued (or on shutdown); done_cv wakes threads waiting for
 * a job's helpers to detach or for a task to finish. Nothing spins: an idle
 * worker sleeps in pthread_cond_wait.
 *
 * Jobs are tagged structs: a parallel job is split into nchunks chunks;
 * participants claim chunk indices with one atomic fetch_add each (no lock
 * per chunk). A worker attaches to a job under the mutex (job->active++),
 * runs chunks until none are left, then detaches; the caller runs chunks
 * too and, once the chunks are exhausted, unlinks the job and waits on
 * done_cv until job->active is 0 — only then may its stack frame go away.
 * Workers prefer parallel jobs (latency-bound, a caller is blocked on
 * them) over background tasks.
 *
 * Nesting: a thread-local records which pool the current thread is working
 * for (workers always; the caller while it participates). A parallel call
 * on that same pool from such a thread runs inline, so nested calls never
 * wait on workers that are themselves waiting. A background task runs on
 * one worker, and parallel calls made from inside it on the same pool run
 * inline too (serially): give a background job its own pool if it should
 * fan out.
 *
 * Background tasks: pending counter (p->tasks_pending, queued or running).
 * cz_task_wait on a task that no worker has started yet takes it off the
 * queue and runs it on the waiting thread; so waiting from inside a worker
 * (or with every worker busy) cannot deadlock.
 *
 * Shutdown: cz_pool_destroy sets p->stop; workers keep taking background
 * tasks until the queue is empty (drain), then exit and are joined. Task
 * handles stay valid after destroy; cz_task_wait on them only reads the
 * task's own atomic state and frees it.
 *
 * Workers are created with every signal blocked (signals go to the
 * application's threads, never to a compute worker) and are named
 * "<name>-<i>" with pthread_setname_np so they show up in top/gdb.
 */
#include "cuzk/threadpool.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct cz_pf_job {
    struct cz_pf_job *next;
    void (*range_fn)(void *arg, size_t lo, size_t hi); /* one of these two */
    void (*index_fn)(void *arg, size_t i);
    void *arg;
    size_t begin, n, nchunks;
    atomic_size_t next_chunk;
    unsigned active; /* workers attached (under p->mu) */
    bool linked;     /* still in p->jobs (under p->mu) */
} cz_pf_job;

enum { TASK_PENDING = 0, TASK_RUNNING = 1, TASK_DONE = 2 };

struct cz_task {
    struct cz_task *next;
    void (*fn)(void *arg);
    void *arg;
    cz_pool *pool; /* NULL for a NULL-pool task (ran inside submit) */
    atomic_int state;
};

struct cz_pool {
    pthread_mutex_t mu;
    pthread_cond_t work_cv, done_cv;
    cz_pf_job *jobs;                 /* active parallel jobs, newest first */
    cz_task *task_head, *task_tail;  /* FIFO of pending tasks */
    size_t tasks_pending;            /* queued + running */
    bool stop;
    unsigned nworkers;
    pthread_t *threads;
    char name[11];
};

/* The pool this thread is currently working for (see DESIGN: nesting). */
static _Thread_local const cz_pool *tls_pool;

static void run_chunk(cz_pf_job *j, size_t k)
{
    /* balanced split: chunk k is [k·n/nchunks, (k+1)·n/nchunks) */
    size_t lo = (size_t)((unsigned __int128)k * j->n / j->nchunks);
    size_t hi = (size_t)((unsigned __int128)(k + 1) * j->n / j->nchunks);
    if (j->range_fn) {
        j->range_fn(j->arg, j->begin + lo, j->begin + hi);
    } else {
        for (size_t i = lo; i < hi; i++) j->index_fn(j->arg, j->begin + i);
    }
}

static void run_chunks(cz_pf_job *j)
{
    for (;;) {
        size_t k = atomic_fetch_add_explicit(&j->next_chunk, 1, memory_order_relaxed);
        if (k >= j->nchunks) return;
        run_chunk(j, k);
    }
}

static void unlink_job(cz_pool *p, cz_pf_job *j)
{
    if (!j->linked) return;
    for (cz_pf_job **pp = &p->jobs; *pp; pp = &(*pp)->next) {
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    }
    j->linked = false;
}

/* First linked job that still has unclaimed chunks; exhausted ones are
 * unlinked on the way (their callers finish them). Under p->mu. */
static cz_pf_job *find_job(cz_pool *p)
{
    cz_pf_job *j = p->jobs;
    while (j) {
        cz_pf_job *nx = j->next;
        if (atomic_load_explicit(&j->next_chunk, memory_order_relaxed) < j->nchunks) return j;
        unlink_job(p, j);
        j = nx;
    }
    return NULL;
}

static void run_task(cz_task *t)
{
    t->fn(t->arg);
}

static void finish_task(cz_pool *p, cz_task *t)
{
    /* under p->mu */
    p->tasks_pending--;
    atomic_store_explicit(&t->state, TASK_DONE, memory_order_release);
    pthread_cond_broadcast(&p->done_cv);
}

typedef struct {
    cz_pool *p;
    unsigned idx;
} worker_start;

static void *worker_main(void *argp)
{
    worker_start ws = *(worker_start *)argp;
    free(argp);
    cz_pool *p = ws.p;
    char tname[16];
    snprintf(tname, sizeof tname, "%s-%u", p->name, ws.idx);
    pthread_setname_np(pthread_self(), tname);
    tls_pool = p;

    pthread_mutex_lock(&p->mu);
    for (;;) {
        cz_pf_job *j = find_job(p);
        if (j) {
            j->active++;
            pthread_mutex_unlock(&p->mu);
            run_chunks(j);
            pthread_mutex_lock(&p->mu);
            unlink_job(p, j);
            if (--j->active == 0) pthread_cond_broadcast(&p->done_cv);
            continue;
        }
        cz_task *t = p->task_head;
        if (t) {
            p->task_head = t->next;
            if (!p->task_head) p->task_tail = NULL;
            atomic_store_explicit(&t->state, TASK_RUNNING, memory_order_relaxed);
            pthread_mutex_unlock(&p->mu);
            run_task(t);
            pthread_mutex_lock(&p->mu);
            finish_task(p, t);
            continue;
        }
        if (p->stop) break; /* queue drained */
        pthread_cond_wait(&p->work_cv, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

cz_status cz_pool_create(cz_pool **out, unsigned nthreads, const char *name)
{
    if (!out) return CZ_ERR_INVALID_ARG;
    *out = NULL;
    if (nthreads == 0) {
        long nc = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = nc > 0 ? (unsigned)nc : 1;
    }
    if (nthreads > 4096) return CZ_ERR_INVALID_ARG;
    cz_pool *p = calloc(1, sizeof *p);
    if (!p) return CZ_ERR_NOMEM;
    p->threads = calloc(nthreads, sizeof *p->threads);
    if (!p->threads) {
        free(p);
        return CZ_ERR_NOMEM;
    }
    snprintf(p->name, sizeof p->name, "%s", name && *name ? name : "cz");
    if (pthread_mutex_init(&p->mu, NULL) != 0) goto fail_mu;
    if (pthread_cond_init(&p->work_cv, NULL) != 0) goto fail_work;
    if (pthread_cond_init(&p->done_cv, NULL) != 0) goto fail_done;

    /* Workers inherit the creator's signal mask: block everything while
     * creating them, then restore ours. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    cz_status st = CZ_OK;
    for (unsigned i = 0; i < nthreads; i++) {
        worker_start *ws = malloc(sizeof *ws);
        if (!ws) {
            st = CZ_ERR_NOMEM;
            break;
        }
        ws->p = p;
        ws->idx = i;
        if (pthread_create(&p->threads[i], NULL, worker_main, ws) != 0) {
            free(ws);
            st = CZ_ERR_NOMEM;
            break;
        }
        p->nworkers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (st != CZ_OK) {
        cz_pool_destroy(p);
        return st;
    }
    *out = p;
    return CZ_OK;

fail_done:
    pthread_cond_destroy(&p->work_cv);
fail_work:
    pthread_mutex_destroy(&p->mu);
fail_mu:
    free(p->threads);
    free(p);
    return CZ_ERR_INTERNAL;
}

void cz_pool_destroy(cz_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->nworkers; i++) pthread_join(p->threads[i], NULL);
    /* Every worker drained the task queue before exiting; with no worker at
     * all (creation failed part-way) run what is left here. */
    for (cz_task *t = p->task_head; t;) {
        cz_task *nx = t->next;
        run_task(t);
        finish_task(p, t);
        t = nx;
    }
    pthread_cond_destroy(&p->done_cv);
    pthread_cond_destroy(&p->work_cv);
    pthread_mutex_destroy(&p->mu);
    free(p->threads);
    free(p);
}

unsigned cz_pool_size(const cz_pool *p)
{
    return p ? p->nworkers : 1;
}

/* Runs a job (already filled in, nchunks >= 1) with the caller
 * participating. */
static void run_job(cz_pool *p, cz_pf_job *j)
{
    j->next = NULL;
    atomic_init(&j->next_chunk, 0);
    j->active = 0;
    j->linked = false;

    const cz_pool *saved = tls_pool;
    bool inline_only = p == NULL || saved == p || p->nworkers == 0 || j->nchunks == 1;
    if (!inline_only) {
        pthread_mutex_lock(&p->mu);
        j->next = p->jobs;
        p->jobs = j;
        j->linked = true;
        /* wake at most as many workers as there are chunks beyond ours */
        if (j->nchunks - 1 >= p->nworkers)
            pthread_cond_broadcast(&p->work_cv);
        else
            for (size_t k = 1; k < j->nchunks; k++) pthread_cond_signal(&p->work_cv);
        pthread_mutex_unlock(&p->mu);
    }
    tls_pool = p;
    run_chunks(j);
    tls_pool = saved;
    if (!inline_only) {
        pthread_mutex_lock(&p->mu);
        unlink_job(p, j);
        while (j->active > 0) pthread_cond_wait(&p->done_cv, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
}

static size_t participants(const cz_pool *p)
{
    if (!p || tls_pool == p) return 1;
    return (size_t)p->nworkers + 1;
}

void cz_pool_parallel_for(cz_pool *p, size_t n, void (*fn)(void *arg, size_t i), void *arg)
{
    if (n == 0) return;
    size_t t = participants(p);
    if (t == 1) {
        const cz_pool *saved = tls_pool;
        if (p) tls_pool = p;
        for (size_t i = 0; i < n; i++) fn(arg, i);
        tls_pool = saved;
        return;
    }
    /* Indices are often few and heavy (MSM windows, NTT blocks): many small
     * chunks balance the load; one atomic per chunk is cheap. */
    size_t nchunks = n < 16 * t ? n : 16 * t;
    cz_pf_job j = {.index_fn = fn, .arg = arg, .begin = 0, .n = n, .nchunks = nchunks};
    run_job(p, &j);
}

void cz_pool_parallel_range(cz_pool *p, size_t begin, size_t end, size_t grain,
                            void (*fn)(void *arg, size_t lo, size_t hi), void *arg)
{
    if (end <= begin) return;
    size_t n = end - begin;
    if (grain == 0) grain = 1;
    size_t t = participants(p);
    size_t nchunks = n / grain;
    if (nchunks > 8 * t) nchunks = 8 * t;
    if (nchunks <= 1 || t == 1) {
        const cz_pool *saved = tls_pool;
        if (p) tls_pool = p;
        fn(arg, begin, end);
        tls_pool = saved;
        return;
    }
    cz_pf_job j = {.range_fn = fn, .arg = arg, .begin = begin, .n = n, .nchunks = nchunks};
    run_job(p, &j);
}

cz_status cz_pool_submit(cz_pool *p, void (*fn)(void *arg), void *arg, cz_task **out)
{
    if (!out || !fn) return CZ_ERR_INVALID_ARG;
    *out = NULL;
    cz_task *t = calloc(1, sizeof *t);
    if (!t) return CZ_ERR_NOMEM;
    t->fn = fn;
    t->arg = arg;
    if (!p || p->nworkers == 0) {
        fn(arg);
        atomic_init(&t->state, TASK_DONE);
        *out = t;
        return CZ_OK;
    }
    atomic_init(&t->state, TASK_PENDING);
    t->pool = p;
    /* A task may submit more tasks while the pool drains on destroy: the
     * submitting worker is still alive and takes them before exiting. */
    pthread_mutex_lock(&p->mu);
    if (p->task_tail)
        p->task_tail->next = t;
    else
        p->task_head = t;
    p->task_tail = t;
    p->tasks_pending++;
    pthread_cond_signal(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    *out = t;
    return CZ_OK;
}

void cz_task_wait(cz_task *t)
{
    if (!t) return;
    /* Done (including every task of a destroyed pool): t->pool is no
     * longer touched by anyone. */
    if (atomic_load_explicit(&t->state, memory_order_acquire) == TASK_DONE) {
        free(t);
        return;
    }
    cz_pool *p = t->pool;
    pthread_mutex_lock(&p->mu);
    if (atomic_load_explicit(&t->state, memory_order_relaxed) == TASK_PENDING) {
        /* Not started: take it off the queue and run it here. */
        cz_task *prev = NULL;
        for (cz_task *q = p->task_head; q; prev = q, q = q->next) {
            if (q != t) continue;
            if (prev)
                prev->next = t->next;
            else
                p->task_head = t->next;
            if (p->task_tail == t) p->task_tail = prev;
            break;
        }
        atomic_store_explicit(&t->state, TASK_RUNNING, memory_order_relaxed);
        pthread_mutex_unlock(&p->mu);
        const cz_pool *saved = tls_pool;
        tls_pool = p; /* same nesting rule as on a worker */
        run_task(t);
        tls_pool = saved;
        pthread_mutex_lock(&p->mu);
        finish_task(p, t);
    } else {
        while (atomic_load_explicit(&t->state, memory_order_relaxed) != TASK_DONE)
            pthread_cond_wait(&p->done_cv, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    free(t);
}
