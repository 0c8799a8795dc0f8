/* The memory job service (jobs.h): the daemon's engine, unchanged. */
#include "daemon/jobs.h"

static cz_status m_submit(void *ctx, const cz_job_request *req, cz_job_id *id, bool *existing, char *msg,
                          size_t msglen)
{
    return cz_engine_submit(ctx, req, id, existing, msg, msglen);
}

static cz_status m_await(void *ctx, cz_job_id id, int64_t timeout_ms, cz_job_result *out)
{
    return cz_engine_await(ctx, id, timeout_ms, out);
}

static cz_status m_job_info(void *ctx, cz_job_id id, cz_job_result *out)
{
    return cz_engine_job_info(ctx, id, out);
}

static cz_status m_cancel(void *ctx, cz_job_id id, cz_job_state *state)
{
    return cz_engine_cancel(ctx, id, state);
}

void cz_jobs_memory(cz_jobs *out, cz_engine *e)
{
    *out = (cz_jobs){.ctx = e,
                     .name = "memory",
                     .submit = m_submit,
                     .await = m_await,
                     .job_info = m_job_info,
                     .cancel = m_cancel};
}
