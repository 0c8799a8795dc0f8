/*
 * cuzkd's job service: what the HTTP and gRPC front ends call to submit,
 * await, look at and cancel jobs. Two implementations:
 *  - memory (cz_jobs_memory): the daemon's own engine, exactly the calls
 *    the front ends made before this interface existed;
 *  - postgres (src/daemon/store_node.c): the job store shared by every
 *    node on one database ([store] backend = postgres).
 * The front ends only see cz_job_request / cz_job_result, so their
 * request parsing and JSON/protobuf mapping is the same in both modes.
 *
 * Contracts are the engine's (cuzk/engine.h: cz_engine_submit, _await,
 * _job_info, _cancel), with one addition for the store: CZ_ERR_IO means
 * the database could not be reached (msg / the result's error say which),
 * which the front ends answer 503 (retry). Every function is thread safe.
 */
#ifndef CZ_DAEMON_JOBS_H
#define CZ_DAEMON_JOBS_H

#include "cuzk/common.h"
#include "cuzk/engine.h"

typedef struct cz_jobs {
    void *ctx;
    const char *name; /* "memory" | "postgres" */
    cz_status (*submit)(void *ctx, const cz_job_request *req, cz_job_id *id, bool *existing, char *msg,
                        size_t msglen);
    /* CZ_ERR_IO: *out holds the reason in out->error */
    cz_status (*await)(void *ctx, cz_job_id id, int64_t timeout_ms, cz_job_result *out);
    cz_status (*job_info)(void *ctx, cz_job_id id, cz_job_result *out);
    cz_status (*cancel)(void *ctx, cz_job_id id, cz_job_state *state);
} cz_jobs;

/* The memory implementation over e (which must outlive *out). */
void cz_jobs_memory(cz_jobs *out, cz_engine *e);

static inline cz_status cz_jobs_submit(const cz_jobs *j, const cz_job_request *req, cz_job_id *id,
                                       bool *existing, char *msg, size_t msglen)
{
    return j->submit(j->ctx, req, id, existing, msg, msglen);
}
static inline cz_status cz_jobs_await(const cz_jobs *j, cz_job_id id, int64_t timeout_ms, cz_job_result *out)
{
    return j->await(j->ctx, id, timeout_ms, out);
}
static inline cz_status cz_jobs_job_info(const cz_jobs *j, cz_job_id id, cz_job_result *out)
{
    return j->job_info(j->ctx, id, out);
}
static inline cz_status cz_jobs_cancel(const cz_jobs *j, cz_job_id id, cz_job_state *state)
{
    return j->cancel(j->ctx, id, state);
}

#endif
