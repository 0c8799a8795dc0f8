/*
 * cuzk — thread pool. One pool object is owned by each caller (the engine
 * owns one per stage); kernels take a pool argument and never create
 * threads themselves. A NULL pool means "run serially on the calling thread".
 *
 * parallel_for / parallel_range: the calling thread participates and the
 * call returns when every index has run. Called from inside a worker of the
 * same pool (nested parallelism), the work runs inline on that worker, so
 * nesting never deadlocks. Idle workers sleep on a condition variable
 * (no busy-waiting).
 *
 * submit: runs fn(arg) on a worker in the background (the executor handed
 * to the prover for its B_G2 MSM); cz_task_wait joins and frees the handle.
 */
#ifndef CUZK_THREADPOOL_H
#define CUZK_THREADPOOL_H

#include "cuzk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cz_pool cz_pool;
typedef struct cz_task cz_task;

/* nthreads = 0: one per online CPU. name: prefix for thread names (<= 10 chars). */
CZ_WUR cz_status cz_pool_create(cz_pool **out, unsigned nthreads, const char *name);
/* Joins the workers; pending background tasks run to completion first.
 * Must not run concurrently with other calls on p; task handles stay
 * valid afterwards (cz_task_wait then only frees them). */
void cz_pool_destroy(cz_pool *p);
/* Threads that execute parallel work (workers; the caller participates in
 * addition). Returns 1 for a NULL pool. */
unsigned cz_pool_size(const cz_pool *p);

/* fn(arg, i) for every i in [0, n). */
void cz_pool_parallel_for(cz_pool *p, size_t n, void (*fn)(void *arg, size_t i), void *arg);
/* fn(arg, lo, hi) over [begin, end) split into chunks of at least grain. */
void cz_pool_parallel_range(cz_pool *p, size_t begin, size_t end, size_t grain,
                            void (*fn)(void *arg, size_t lo, size_t hi), void *arg);

/* Background task. With a NULL pool, fn runs synchronously inside submit.
 * Parallel calls that fn makes on the same pool run inline (serially, as
 * for any nested call): hand a background job its own pool to fan out. */
CZ_WUR cz_status cz_pool_submit(cz_pool *p, void (*fn)(void *arg), void *arg, cz_task **out);
/* Blocks until the task has run, then frees the handle. A task no worker
 * has started yet is taken off the queue and run by the waiting thread,
 * so waiting from inside a worker (or with every worker busy) never
 * deadlocks. */
void cz_task_wait(cz_task *t);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_THREADPOOL_H */
