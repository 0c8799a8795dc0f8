/*
 * cuzkd's gRPC listener (see grpc_server.h): gRPC's C core for the
 * transport (HTTP/2, framing, deadlines, message limits), protobuf-c for
 * the messages, the engine for everything else. Request validation and
 * mapping are in grpc_api.c (pure; fuzzed).
 *
 * Why the C core and not the C++ API: every method is unary, so a call is
 * three batches (receive the request; send the response and the status;
 * receive the close) on a completion queue the call's thread owns, which
 * the core API expresses directly and keeps the daemon in C. Its one
 * awkward part, waiting for a proof while noticing that the client went
 * away, is an await in slices that polls the call's close event.
 */
#include "daemon/grpc_server.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "daemon/api.h"
#include "daemon/grpc_api.h"
#include "daemon/jobs.h"
#include "daemon/sockutil.h"

/* The service's methods, in proto order. */
enum {
    M_SUBMIT = 0, M_AWAIT, M_PROVE, M_CANCEL, M_STATUS, M_METRICS, M_PRELOAD, M_EVICT, M_COUNT
};
static const char *const k_methods[M_COUNT] = {
    "/cuzk.v1.ProvingEngine/SubmitProof", "/cuzk.v1.ProvingEngine/AwaitProof",
    "/cuzk.v1.ProvingEngine/Prove",       "/cuzk.v1.ProvingEngine/CancelProof",
    "/cuzk.v1.ProvingEngine/GetStatus",   "/cuzk.v1.ProvingEngine/GetMetrics",
    "/cuzk.v1.ProvingEngine/PreloadSRS",  "/cuzk.v1.ProvingEngine/EvictSRS",
};
static const char *const k_method_names[M_COUNT] = {
    "SubmitProof", "AwaitProof", "Prove", "CancelProof", "GetStatus", "GetMetrics", "PreloadSRS", "EvictSRS",
};
#define N_CODES 17

struct cz_grpc_server {
    cz_grpc_config cfg;
    cz_jobs mem_jobs;               /* the engine's, when cfg.jobs is NULL */
    const cz_jobs *jobs;
    char token[512];
    grpc_server *server;
    grpc_completion_queue *cq;      /* new-call notifications and the shutdown tag */
    pthread_t accept_thread;
    bool accept_started;
    atomic_bool quiesced;
    cz_listen_addr addr;
    dev_t sock_dev;
    ino_t sock_ino;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned active;                /* call threads running */
    _Atomic uint64_t calls[M_COUNT + 1]; /* last: unknown methods */
    _Atomic uint64_t codes[N_CODES];
};

/* Tags on a call's own completion queue. */
#define TAG_CLOSE ((void *)1)
#define TAG_RECV ((void *)2)
#define TAG_SEND ((void *)3)
/* Tags on the server queue. */
#define TAG_NEWCALL ((void *)10)
#define TAG_SHUTDOWN ((void *)11)

static void slog(cz_grpc_server *s, cz_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void slog(cz_grpc_server *s, cz_log_level lvl, const char *fmt, ...)
{
    if (!s->cfg.log)
        return;
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    s->cfg.log(s->cfg.log_arg, lvl, line);
}

/* ---- one call ------------------------------------------------------------------- */

typedef struct {
    cz_grpc_server *s;
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array md;
    grpc_completion_queue *cq;
    int cancelled;       /* set by RECV_CLOSE_ON_SERVER */
    bool closed;         /* the close event arrived */
    int method;          /* M_*, or -1 */
} call_ctx;

static gpr_timespec deadline_ms(int64_t ms)
{
    if (ms < 0)
        return gpr_inf_future(GPR_CLOCK_MONOTONIC);
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

/* Waits for tag on the call's queue (the close event may arrive first and
 * is recorded). false: ms passed first. */
static bool wait_tag(call_ctx *c, void *tag, int64_t ms)
{
    gpr_timespec dl = deadline_ms(ms);
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(c->cq, dl, NULL);
        if (ev.type == GRPC_QUEUE_TIMEOUT)
            return false;
        if (ev.type != GRPC_OP_COMPLETE)
            return false; /* shutdown: cannot happen while the call lives */
        if (ev.tag == TAG_CLOSE)
            c->closed = true;
        if (ev.tag == tag)
            return true;
    }
}

/* The client is gone (cancelled, deadline passed, connection lost). */
static bool client_gone(call_ctx *c)
{
    if (!c->closed)
        wait_tag(c, TAG_CLOSE, 0);
    return c->closed && c->cancelled;
}

/* Sends the response (msg may be NULL for an error) and the status. */
static int finish(call_ctx *c, const ProtobufCMessage *msg, int code, const char *details)
{
    grpc_op ops[2];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    grpc_byte_buffer *bb = NULL;
    uint8_t *packed = NULL;
    if (msg && code == CZ_GRPC_OK) {
        size_t len = protobuf_c_message_get_packed_size(msg);
        packed = malloc(len ? len : 1);
        if (!packed) {
            code = CZ_GRPC_RESOURCE_EXHAUSTED;
            details = "out of memory packing the response";
        } else {
            protobuf_c_message_pack(msg, packed);
            grpc_slice sl = grpc_slice_from_copied_buffer((const char *)packed, len);
            bb = grpc_raw_byte_buffer_create(&sl, 1);
            grpc_slice_unref(sl);
            ops[n].op = GRPC_OP_SEND_MESSAGE;
            ops[n].data.send_message.send_message = bb;
            n++;
        }
    }
    grpc_slice det = grpc_slice_from_copied_string(details ? details : "");
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = (grpc_status_code)code;
    ops[n].data.send_status_from_server.status_details = &det;
    n++;
    if (grpc_call_start_batch(c->call, ops, n, TAG_SEND, NULL) == GRPC_CALL_OK)
        wait_tag(c, TAG_SEND, -1);
    grpc_slice_unref(det);
    if (bb)
        grpc_byte_buffer_destroy(bb);
    free(packed);
    atomic_fetch_add(&c->s->codes[code >= 0 && code < N_CODES ? code : CZ_GRPC_UNKNOWN], 1);
    if (code != CZ_GRPC_OK) {
        slog(c->s, code == CZ_GRPC_INTERNAL ? CZ_LOG_WARN : CZ_LOG_INFO, "grpc %s: status=%d %s",
             c->method >= 0 ? k_method_names[c->method] : "?", code, details ? details : "");
    }
    return 0;
}

static int fail(call_ctx *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(call_ctx *c, int code, const char *fmt, ...)
{
    char msg[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return finish(c, NULL, code, msg);
}

static bool authorized(call_ctx *c)
{
    cz_grpc_server *s = c->s;
    if (!s->cfg.token_len)
        return true;
    const char *val = NULL;
    size_t vlen = 0;
    for (size_t i = 0; i < c->md.count; i++) {
        const grpc_metadata *m = &c->md.metadata[i];
        if (grpc_slice_str_cmp(m->key, "authorization") == 0) {
            val = (const char *)GRPC_SLICE_START_PTR(m->value);
            vlen = GRPC_SLICE_LENGTH(m->value);
            break;
        }
    }
    return cz_grpc_auth_ok(s->token, s->cfg.token_len, val, vlen);
}

/* ---- the methods ------------------------------------------------------------- */

static uint64_t ms_u64(double ms)
{
    return ms > 0 ? (uint64_t)(ms + 0.5) : 0;
}

static void fill_await(Cuzk__V1__AwaitProofResponse *r, const cz_job_result *jr, bool timed_out, char *idbuf)
{
    snprintf(idbuf, 24, "%" PRIu64, jr->id);
    r->job_id = idbuf;
    if (timed_out)
        r->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT;
    else if (jr->state == CZ_JOB_DONE)
        r->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
    else if (jr->state == CZ_JOB_FAILED)
        r->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED;
    else if (jr->state == CZ_JOB_CANCELLED)
        r->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED;
    else
        r->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__UNKNOWN;
    if (jr->state == CZ_JOB_DONE && jr->proof) {
        r->proof.data = jr->proof;
        r->proof.len = jr->proof_len;
    }
    r->error_message = (char *)(jr->state == CZ_JOB_FAILED || jr->state == CZ_JOB_CANCELLED ? jr->error : "");
    if (jr->state == CZ_JOB_CANCELLED && !jr->error[0])
        r->error_message = "cancelled";
    r->queue_wait_ms = ms_u64(jr->queued_ms);
    r->srs_load_ms = ms_u64(jr->load_ms);
    r->synthesis_ms = ms_u64(jr->synth_ms);
    /* the proving stages (prove_start + prove_finish): on a GPU back-end
     * the device work and its CPU tail, on the CPU the same stages */
    r->gpu_compute_ms = ms_u64(jr->prove_ms + jr->finish_ms);
    r->total_ms = ms_u64(jr->total_ms);
}

/* Waits for a job; timeout_ms 0 = no limit (the client's own deadline
 * still applies: a cancelled call stops waiting, the job goes on).
 * Returns 0 with *jr filled (timed_out set when the limit passed), or a
 * gRPC code with msg. */
static int await_job(call_ctx *c, cz_job_id id, uint64_t timeout_ms, cz_job_result *jr, bool *timed_out, char *msg,
                     size_t msglen)
{
    *timed_out = false;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int64_t slice = 250;
        if (timeout_ms) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            int64_t el = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
            int64_t left = (int64_t)(timeout_ms > INT64_MAX / 2 ? INT64_MAX / 2 : timeout_ms) - el;
            if (left < 0)
                left = 0;
            if (left < slice)
                slice = left;
        }
        cz_status st = cz_jobs_await(c->s->jobs, id, slice, jr);
        if (st == CZ_OK)
            return 0;
        if (st == CZ_ERR_IO) { /* the job store is unreachable */
            snprintf(msg, msglen, "await job %" PRIu64 ": %s", id, jr->error);
            return CZ_GRPC_UNAVAILABLE;
        }
        if (st == CZ_ERR_NOT_FOUND) {
            snprintf(msg, msglen, "unknown job %" PRIu64 " (never submitted, or its result was pruned)", id);
            return CZ_GRPC_NOT_FOUND;
        }
        if (st != CZ_ERR_TIMEOUT) {
            snprintf(msg, msglen, "await job %" PRIu64 ": %s", id, cz_status_str(st));
            return CZ_GRPC_INTERNAL;
        }
        if (timeout_ms && slice < 250) {
            *timed_out = true;
            return 0;
        }
        cz_job_result_free(jr);
        if (client_gone(c)) {
            snprintf(msg, msglen, "client went away");
            return CZ_GRPC_CANCELLED;
        }
    }
}

/* Maps and submits; 0 with *id, or a gRPC code with msg. */
static int submit(call_ctx *c, const Cuzk__V1__SubmitProofRequest *req, cz_job_id *id, bool *existing, char *msg,
                  size_t msglen)
{
    cz_grpc_submit m;
    int rc = cz_grpc_map_submit(req, c->s->cfg.max_payload_bytes, &m, msg, msglen);
    if (rc)
        return rc;
    cz_job_request jr = {.circuit_id = m.circuit,
                         .payload = m.payload,
                         .payload_len = m.payload_len,
                         .num_partitions = m.partitions,
                         .priority = m.priority,
                         .request_id = m.request_id};
    char emsg[512] = "";
    cz_status st = cz_jobs_submit(c->s->jobs, &jr, id, existing, emsg, sizeof emsg);
    cz_grpc_submit_free(&m); /* the engine copied the payload */
    if (st != CZ_OK) {
        snprintf(msg, msglen, "%s", emsg[0] ? emsg : cz_status_str(st));
        if (st == CZ_ERR_IO && strcmp(c->s->jobs->name, "memory"))
            return CZ_GRPC_UNAVAILABLE; /* the job store is unreachable: retry */
        return cz_grpc_status_of(st);
    }
    slog(c->s, CZ_LOG_INFO, "grpc job=%" PRIu64 " %s circuit=%s partitions=%u priority=%s request_id=%s miner=%" PRIu64
         " sector=%" PRIu64, *id, *existing ? "resubmitted" : "accepted", m.circuit, m.partitions,
         cz_priority_str(m.priority), m.request_id[0] ? m.request_id : "-", req->miner_id, req->sector_number);
    return 0;
}

/* The request message of a call; NULL (the call already answered
 * INVALID_ARGUMENT) when the bytes are not one. Free with
 * protobuf_c_message_free_unpacked. */
static void *decode(call_ctx *c, const ProtobufCMessageDescriptor *d, const uint8_t *in, size_t len)
{
    ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, len, in);
    if (!m)
        fail(c, CZ_GRPC_INVALID_ARGUMENT, "cannot decode %s (%zu bytes)", d->short_name, len);
    return m;
}

static int do_submit(call_ctx *c, const uint8_t *in, size_t len)
{
    Cuzk__V1__SubmitProofRequest *req = decode(c, &cuzk__v1__submit_proof_request__descriptor, in, len);
    if (!req)
        return 0;
    char msg[640];
    cz_job_id id;
    bool ex;
    int rc = submit(c, req, &id, &ex, msg, sizeof msg);
    protobuf_c_message_free_unpacked(&req->base, NULL);
    if (rc)
        return finish(c, NULL, rc, msg);
    cz_engine_status st;
    cz_engine_get_status(c->s->cfg.engine, &st);
    char idbuf[24];
    snprintf(idbuf, sizeof idbuf, "%" PRIu64, id);
    Cuzk__V1__SubmitProofResponse r = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
    r.job_id = idbuf;
    r.queue_position = (uint32_t)(st.jobs_queued > UINT32_MAX ? UINT32_MAX : st.jobs_queued);
    return finish(c, &r.base, 0, NULL);
}

/* Waits for job id (timeout_ms 0: no limit) and answers with its
 * AwaitProofResponse, wrapped in a ProveResponse for Prove. */
static int answer_await(call_ctx *c, cz_job_id id, uint64_t timeout_ms, bool prove)
{
    char msg[640];
    cz_job_result jr;
    bool to;
    int rc = await_job(c, id, timeout_ms, &jr, &to, msg, sizeof msg);
    if (rc)
        return finish(c, NULL, rc, msg);
    char idbuf[24];
    Cuzk__V1__AwaitProofResponse ar = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
    fill_await(&ar, &jr, to, idbuf);
    Cuzk__V1__ProveResponse pr = CUZK__V1__PROVE_RESPONSE__INIT;
    pr.result = &ar;
    finish(c, prove ? &pr.base : &ar.base, 0, NULL);
    cz_job_result_free(&jr);
    return 0;
}

static int do_await(call_ctx *c, const uint8_t *in, size_t len)
{
    Cuzk__V1__AwaitProofRequest *req = decode(c, &cuzk__v1__await_proof_request__descriptor, in, len);
    if (!req)
        return 0;
    char msg[640];
    cz_job_id id;
    uint64_t timeout = req->timeout_ms;
    bool ok = cz_grpc_parse_job_id(req->job_id, &id, msg, sizeof msg);
    protobuf_c_message_free_unpacked(&req->base, NULL);
    if (!ok)
        return finish(c, NULL, CZ_GRPC_INVALID_ARGUMENT, msg);
    return answer_await(c, id, timeout, false);
}

static int do_prove(call_ctx *c, const uint8_t *in, size_t len)
{
    Cuzk__V1__ProveRequest *req = decode(c, &cuzk__v1__prove_request__descriptor, in, len);
    if (!req)
        return 0;
    char msg[640];
    if (!req->submit) {
        protobuf_c_message_free_unpacked(&req->base, NULL);
        return fail(c, CZ_GRPC_INVALID_ARGUMENT, "ProveRequest.submit is missing");
    }
    cz_job_id id;
    bool ex;
    int rc = submit(c, req->submit, &id, &ex, msg, sizeof msg);
    protobuf_c_message_free_unpacked(&req->base, NULL);
    if (rc)
        return finish(c, NULL, rc, msg);
    return answer_await(c, id, 0, true);
}

static int do_cancel(call_ctx *c, const uint8_t *in, size_t len)
{
    Cuzk__V1__CancelProofRequest *req = decode(c, &cuzk__v1__cancel_proof_request__descriptor, in, len);
    if (!req)
        return 0;
    char msg[640];
    cz_job_id id;
    bool ok = cz_grpc_parse_job_id(req->job_id, &id, msg, sizeof msg);
    protobuf_c_message_free_unpacked(&req->base, NULL);
    if (!ok)
        return finish(c, NULL, CZ_GRPC_INVALID_ARGUMENT, msg);
    cz_job_result jr;
    bool was_running = cz_jobs_job_info(c->s->jobs, id, &jr) == CZ_OK && jr.state == CZ_JOB_RUNNING;
    cz_job_result_free(&jr);
    cz_job_state state;
    cz_status st = cz_jobs_cancel(c->s->jobs, id, &state);
    if (st == CZ_ERR_NOT_FOUND)
        return fail(c, CZ_GRPC_NOT_FOUND, "unknown job %" PRIu64, id);
    if (st == CZ_ERR_BUSY)
        return fail(c, CZ_GRPC_FAILED_PRECONDITION, "job %" PRIu64 " has already ended (%s)", id,
                    cz_job_state_str(state));
    if (st != CZ_OK)
        return fail(c, CZ_GRPC_INTERNAL, "cancel job %" PRIu64 ": %s", id, cz_status_str(st));
    slog(c->s, CZ_LOG_INFO, "grpc job=%" PRIu64 " cancelled by the client (was %s)", id,
         was_running ? "running" : "queued");
    Cuzk__V1__CancelProofResponse r = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
    r.was_running = was_running;
    return finish(c, &r.base, 0, NULL);
}

#define MAX_LIST 64

static int do_status(call_ctx *c)
{
    cz_engine *e = c->s->cfg.engine;
    cz_engine_status st;
    cz_engine_get_status(e, &st);

    /* queues by Curio's proof kind label */
    cz_engine_circuit_load loads[MAX_LIST];
    size_t nl = cz_engine_circuit_loads(e, loads, MAX_LIST);
    Cuzk__V1__QueueStatus qs[MAX_LIST], *qp[MAX_LIST];
    size_t nq = 0;
    for (size_t i = 0; i < nl; i++) {
        const char *label = cz_grpc_kind_label(loads[i].circuit_id);
        size_t k = 0;
        while (k < nq && strcmp(qs[k].proof_kind, label))
            k++;
        if (k == nq) {
            cuzk__v1__queue_status__init(&qs[nq]);
            qs[nq].proof_kind = (char *)label;
            qp[nq] = &qs[nq];
            nq++;
        }
        qs[k].pending += loads[i].queued;
        qs[k].in_progress += loads[i].running;
    }

    cz_engine_params_info pinfo[MAX_LIST];
    size_t np = cz_engine_params_list(e, pinfo, MAX_LIST);
    Cuzk__V1__SRSStatus ss[MAX_LIST], *sp[MAX_LIST];
    for (size_t i = 0; i < np; i++) {
        cuzk__v1__srsstatus__init(&ss[i]);
        ss[i].circuit_id = pinfo[i].circuit_id;
        /* resident = ready to prove (HOT); loading or unloading = WARM */
        ss[i].tier = pinfo[i].resident ? CUZK__V1__SRSSTATUS__TIER__HOT : CUZK__V1__SRSSTATUS__TIER__WARM;
        ss[i].size_bytes = pinfo[i].bytes;
        ss[i].ref_count = pinfo[i].refs;
        sp[i] = &ss[i];
    }

    unsigned nd = st.devices < MAX_LIST ? st.devices : MAX_LIST;
    Cuzk__V1__GPUStatus gs[MAX_LIST], *gp[MAX_LIST];
    char names[MAX_LIST][64];
    for (unsigned i = 0; i < nd; i++) {
        cuzk__v1__gpustatus__init(&gs[i]);
        gs[i].ordinal = i;
        snprintf(names[i], sizeof names[i], "cuzk device %u (%s)", i,
                 c->s->cfg.backend_name ? c->s->cfg.backend_name : "cpu");
        gs[i].name = names[i];
        gp[i] = &gs[i];
    }

    Cuzk__V1__GetStatusResponse r = CUZK__V1__GET_STATUS_RESPONSE__INIT;
    r.n_gpus = nd;
    r.gpus = gp;
    r.n_loaded_srs = np < MAX_LIST ? np : MAX_LIST;
    r.loaded_srs = sp;
    r.n_queues = nq;
    r.queues = qp;
    r.total_proofs_completed = st.jobs_completed;
    r.total_proofs_failed = st.jobs_failed;
    r.uptime_seconds = st.uptime_ms / 1000;
    /* no pinned host memory on this back-end: the engine's memory budget,
     * which is what bounds cuzkd's resident memory */
    r.pinned_memory_bytes = st.budget_used;
    r.pinned_memory_limit_bytes = st.budget_total;
    return finish(c, &r.base, 0, NULL);
}

static int do_metrics(call_ctx *c)
{
    cz_grpc_server *s = c->s;
    char *text = NULL;
    size_t len = 0;
    if (s->cfg.metrics) {
        text = s->cfg.metrics(s->cfg.metrics_arg, &len);
    } else {
        size_t cap = 1 << 16;
        for (;;) {
            char *nb = realloc(text, cap);
            if (!nb)
                break;
            text = nb;
            len = cz_engine_metrics_prometheus(s->cfg.engine, text, cap);
            if (len + 8192 < cap) {
                len += cz_grpc_server_metrics(s, text + len, cap - len);
                break;
            }
            cap = len + 16384;
        }
    }
    if (!text)
        return fail(c, CZ_GRPC_RESOURCE_EXHAUSTED, "out of memory");
    text[len] = 0;
    Cuzk__V1__GetMetricsResponse r = CUZK__V1__GET_METRICS_RESPONSE__INIT;
    r.prometheus_text = text;
    finish(c, &r.base, 0, NULL);
    free(text);
    return 0;
}

static bool params_info(cz_engine *e, const char *id, cz_engine_params_info *out)
{
    cz_engine_params_info pinfo[MAX_LIST];
    size_t np = cz_engine_params_list(e, pinfo, MAX_LIST);
    for (size_t i = 0; i < np && i < MAX_LIST; i++) {
        if (!strcmp(pinfo[i].circuit_id, id)) {
            *out = pinfo[i];
            return true;
        }
    }
    return false;
}

static int do_preload(call_ctx *c, const uint8_t *in, size_t len, bool evict)
{
    char id[128], msg[640];
    int rc;
    if (evict) {
        Cuzk__V1__EvictSrsRequest *req = decode(c, &cuzk__v1__evict_srs_request__descriptor, in, len);
        if (!req)
            return 0;
        rc = cz_grpc_circuit_id(req->circuit_id, id, sizeof id, msg, sizeof msg);
        protobuf_c_message_free_unpacked(&req->base, NULL);
    } else {
        Cuzk__V1__PreloadSrsRequest *req = decode(c, &cuzk__v1__preload_srs_request__descriptor, in, len);
        if (!req)
            return 0;
        rc = cz_grpc_circuit_id(req->circuit_id, id, sizeof id, msg, sizeof msg);
        protobuf_c_message_free_unpacked(&req->base, NULL);
    }
    if (rc)
        return finish(c, NULL, rc, msg);
    cz_engine *e = c->s->cfg.engine;
    cz_engine_params_info pi;
    bool had = params_info(e, id, &pi) && pi.resident;
    char emsg[512] = "";
    if (evict) {
        Cuzk__V1__EvictSrsResponse r = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
        cz_status st = cz_engine_evict(e, id, emsg, sizeof emsg);
        if (st == CZ_ERR_NOT_FOUND)
            return finish(c, &r.base, 0, NULL); /* not loaded: nothing to do */
        if (st != CZ_OK)
            return fail(c, st == CZ_ERR_BUSY ? CZ_GRPC_FAILED_PRECONDITION : cz_grpc_status_of(st), "%s",
                        emsg[0] ? emsg : cz_status_str(st));
        r.was_loaded = true;
        r.freed_bytes = had ? pi.bytes : 0;
        slog(c->s, CZ_LOG_INFO, "grpc evicted parameters of %s (%" PRIu64 " bytes)", id, r.freed_bytes);
        return finish(c, &r.base, 0, NULL);
    }
    Cuzk__V1__PreloadSrsResponse r = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cz_status st = cz_engine_preload(e, id, emsg, sizeof emsg);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st != CZ_OK)
        return fail(c, cz_grpc_status_of(st), "%s", emsg[0] ? emsg : cz_status_str(st));
    r.already_loaded = had;
    r.load_time_ms = had ? 0
                         : (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
    return finish(c, &r.base, 0, NULL);
}

static void *call_main(void *arg)
{
    call_ctx *c = arg;
    cz_grpc_server *s = c->s;
    pthread_setname_np(pthread_self(), "cz-grpc-call");
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->cancelled;
    bool close_started = grpc_call_start_batch(c->call, &op, 1, TAG_CLOSE, NULL) == GRPC_CALL_OK;

    c->method = -1;
    for (int m = 0; m < M_COUNT; m++)
        if (grpc_slice_str_cmp(c->details.method, k_methods[m]) == 0)
            c->method = m;
    atomic_fetch_add(&s->calls[c->method >= 0 ? c->method : M_COUNT], 1);

    grpc_byte_buffer *bb = NULL;
    grpc_op ops[2];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_RECV_MESSAGE;
    ops[1].data.recv_message.recv_message = &bb;
    bool got = grpc_call_start_batch(c->call, ops, 2, TAG_RECV, NULL) == GRPC_CALL_OK && wait_tag(c, TAG_RECV, -1);
    uint8_t *in = NULL;
    size_t len = 0;
    if (got && bb) {
        grpc_byte_buffer_reader rd;
        if (grpc_byte_buffer_reader_init(&rd, bb)) {
            grpc_slice all = grpc_byte_buffer_reader_readall(&rd);
            len = GRPC_SLICE_LENGTH(all);
            in = malloc(len ? len : 1);
            if (in)
                memcpy(in, GRPC_SLICE_START_PTR(all), len);
            grpc_slice_unref(all);
            grpc_byte_buffer_reader_destroy(&rd);
        }
        grpc_byte_buffer_destroy(bb);
    }

    if (!got || (c->closed && c->cancelled)) {
        /* the client is gone (or the message was over the size limit,
         * which the core already answered): nothing to say */
    } else if (c->method < 0) {
        char m[200];
        size_t ml = GRPC_SLICE_LENGTH(c->details.method);
        snprintf(m, sizeof m, "%.*s", (int)(ml < 150 ? ml : 150), (const char *)GRPC_SLICE_START_PTR(c->details.method));
        fail(c, CZ_GRPC_UNIMPLEMENTED, "unknown method %s (service cuzk.v1.ProvingEngine)", m);
    } else if (!authorized(c)) {
        fail(c, CZ_GRPC_UNAUTHENTICATED,
             "missing or wrong token: send metadata 'authorization: Bearer <token>' (daemon.token_file)");
    } else if (!in) {
        fail(c, bb ? CZ_GRPC_RESOURCE_EXHAUSTED : CZ_GRPC_INVALID_ARGUMENT, "%s",
             bb ? "out of memory reading the request" : "no request message");
    } else {
        switch (c->method) {
        case M_SUBMIT: do_submit(c, in, len); break;
        case M_AWAIT: do_await(c, in, len); break;
        case M_PROVE: do_prove(c, in, len); break;
        case M_CANCEL: do_cancel(c, in, len); break;
        case M_STATUS: do_status(c); break;
        case M_METRICS: do_metrics(c); break;
        case M_PRELOAD: do_preload(c, in, len, false); break;
        case M_EVICT: do_preload(c, in, len, true); break;
        }
    }
    free(in);
    if (close_started && !c->closed)
        wait_tag(c, TAG_CLOSE, -1);
    grpc_call_unref(c->call);
    grpc_completion_queue_shutdown(c->cq);
    while (grpc_completion_queue_next(c->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type != GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(c->cq);
    grpc_call_details_destroy(&c->details);
    grpc_metadata_array_destroy(&c->md);
    free(c);
    pthread_mutex_lock(&s->mu);
    s->active--;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* ---- accepting ------------------------------------------------------------------ */

static call_ctx *request_next(cz_grpc_server *s)
{
    call_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->s = s;
    c->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_call_details_init(&c->details);
    grpc_metadata_array_init(&c->md);
    if (grpc_server_request_call(s->server, &c->call, &c->details, &c->md, c->cq, s->cq, TAG_NEWCALL) !=
        GRPC_CALL_OK) {
        grpc_completion_queue_shutdown(c->cq);
        grpc_completion_queue_destroy(c->cq);
        grpc_call_details_destroy(&c->details);
        grpc_metadata_array_destroy(&c->md);
        free(c);
        return NULL;
    }
    return c;
}

/* A call refused for lack of room: answered here (three short batches). */
static void refuse_busy(call_ctx *c)
{
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->cancelled;
    bool close_started = grpc_call_start_batch(c->call, &op, 1, TAG_CLOSE, NULL) == GRPC_CALL_OK;
    c->method = -1;
    fail(c, CZ_GRPC_RESOURCE_EXHAUSTED, "too many calls in progress (grpc.max_calls = %u)", c->s->cfg.max_calls);
    if (close_started && !c->closed)
        wait_tag(c, TAG_CLOSE, -1);
    grpc_call_unref(c->call);
    grpc_completion_queue_shutdown(c->cq);
    while (grpc_completion_queue_next(c->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type != GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(c->cq);
    grpc_call_details_destroy(&c->details);
    grpc_metadata_array_destroy(&c->md);
    free(c);
}

static void *accept_main(void *arg)
{
    cz_grpc_server *s = arg;
    pthread_setname_np(pthread_self(), "cz-grpc-accept");
    call_ctx *next = request_next(s);
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN)
            break;
        if (ev.type != GRPC_OP_COMPLETE)
            continue;
        if (ev.tag == TAG_SHUTDOWN) {
            /* every call has finished: drain the queue, then leave */
            grpc_completion_queue_shutdown(s->cq);
            continue;
        }
        if (ev.tag != TAG_NEWCALL)
            continue;
        call_ctx *c = next;
        next = NULL;
        if (!ev.success) {
            /* the server is shutting down: this request will never be a call */
            grpc_completion_queue_shutdown(c->cq);
            grpc_completion_queue_destroy(c->cq);
            grpc_call_details_destroy(&c->details);
            grpc_metadata_array_destroy(&c->md);
            free(c);
            continue;
        }
        if (!atomic_load(&s->quiesced))
            next = request_next(s);
        pthread_mutex_lock(&s->mu);
        bool room = s->active < s->cfg.max_calls;
        if (room)
            s->active++;
        pthread_mutex_unlock(&s->mu);
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        if (!room || pthread_create(&t, &at, call_main, c) != 0) {
            if (room) {
                pthread_mutex_lock(&s->mu);
                s->active--;
                pthread_mutex_unlock(&s->mu);
            }
            refuse_busy(c);
        }
        pthread_attr_destroy(&at);
    }
    return NULL;
}

/* ---- lifecycle ---------------------------------------------------------------- */

cz_status cz_grpc_server_start(cz_grpc_server **out, const cz_grpc_config *cfg, char *bound, size_t boundlen,
                               cz_errbuf *err)
{
    *out = NULL;
    char emsg[256];
    cz_listen_addr addr;
    if (!cz_api_parse_listen(cfg->listen, &addr, emsg, sizeof emsg))
        return cz_err(err, CZ_ERR_INVALID_ARG, "grpc.listen: %s", emsg);
    if (!addr.loopback && !cfg->token_len)
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "refusing gRPC on non-loopback address %s:%u without a token: set daemon.token_file",
                      addr.host, addr.port);
    if (cfg->token_len >= sizeof ((cz_grpc_server *)0)->token)
        return cz_err(err, CZ_ERR_INVALID_ARG, "token longer than 511 bytes");
    if (cfg->max_message_bytes < 1024 || cfg->max_message_bytes > INT32_MAX)
        return cz_err(err, CZ_ERR_INVALID_ARG, "grpc.max_message_bytes must be 1K..2G-1");
    if (cfg->max_calls < 1)
        return cz_err(err, CZ_ERR_INVALID_ARG, "grpc.max_calls must be at least 1");
    if (addr.is_unix) {
        cz_status st = cz_unix_socket_reclaim(addr.path, err);
        if (st != CZ_OK)
            return st;
    }
    cz_grpc_server *s = calloc(1, sizeof *s);
    if (!s)
        return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    s->cfg = *cfg;
    cz_jobs_memory(&s->mem_jobs, cfg->engine);
    s->jobs = cfg->jobs ? cfg->jobs : &s->mem_jobs;
    s->addr = addr;
    if (cfg->token_len)
        memcpy(s->token, cfg->token, cfg->token_len);
    s->cfg.token = s->token;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);

    grpc_init();
    grpc_arg args[3];
    memset(args, 0, sizeof args);
    args[0].type = GRPC_ARG_INTEGER;
    args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[0].value.integer = (int)cfg->max_message_bytes;
    args[1].type = GRPC_ARG_INTEGER;
    args[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[1].value.integer = (int)cfg->max_message_bytes;
    /* no SO_REUSEPORT: a second daemon on the same port must fail to bind */
    args[2].type = GRPC_ARG_INTEGER;
    args[2].key = GRPC_ARG_ALLOW_REUSEPORT;
    args[2].value.integer = 0;
    grpc_channel_args ca = {3, args};
    s->server = grpc_server_create(&ca, NULL);
    s->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(s->server, s->cq, NULL);

    char gaddr[400];
    if (addr.is_unix)
        snprintf(gaddr, sizeof gaddr, "unix:%s", addr.path);
    else if (strchr(addr.host, ':'))
        snprintf(gaddr, sizeof gaddr, "[%s]:%u", addr.host, addr.port);
    else
        snprintf(gaddr, sizeof gaddr, "%s:%u", addr.host, addr.port);
    grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
    /* the unix socket exists with mode 0600 from its creation (umask), the
     * configured mode is applied before serving starts */
    mode_t old = umask(0177);
    int port = grpc_server_add_http2_port(s->server, gaddr, creds);
    umask(old);
    grpc_server_credentials_release(creds);
    cz_status st = CZ_OK;
    if (port <= 0) {
        st = cz_err(err, CZ_ERR_IO, "grpc.listen: cannot bind %s (in use, or not a local address)", gaddr);
        goto fail;
    }
    if (addr.is_unix) {
        struct stat sb;
        st = cz_unix_socket_perms(addr.path, cfg->socket_mode, cfg->socket_gid, err);
        if (st != CZ_OK)
            goto fail;
        if (stat(addr.path, &sb) == 0) {
            s->sock_dev = sb.st_dev;
            s->sock_ino = sb.st_ino;
        }
        snprintf(bound, boundlen, "unix:%s", addr.path);
    } else {
        snprintf(bound, boundlen, strchr(addr.host, ':') ? "tcp:[%s]:%d" : "tcp:%s:%d", addr.host, port);
    }
    grpc_server_start(s->server);
    if (pthread_create(&s->accept_thread, NULL, accept_main, s) != 0) {
        st = cz_err(err, CZ_ERR_NOMEM, "cannot start the gRPC accept thread");
        goto fail;
    }
    s->accept_started = true;
    *out = s;
    return CZ_OK;
fail:
    cz_grpc_server_destroy(s, 0);
    return st;
}

void cz_grpc_server_quiesce(cz_grpc_server *s)
{
    if (!s || atomic_exchange(&s->quiesced, true))
        return;
    /* New calls are refused from here; the tag arrives once every call in
     * progress has finished. */
    grpc_server_shutdown_and_notify(s->server, s->cq, TAG_SHUTDOWN);
    if (s->addr.is_unix) {
        struct stat sb;
        if (stat(s->addr.path, &sb) == 0 && sb.st_dev == s->sock_dev && sb.st_ino == s->sock_ino)
            unlink(s->addr.path);
    }
}

void cz_grpc_server_destroy(cz_grpc_server *s, unsigned grace_ms)
{
    if (!s)
        return;
    if (s->server) {
        cz_grpc_server_quiesce(s);
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += grace_ms / 1000;
        dl.tv_nsec += (long)(grace_ms % 1000) * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&s->mu);
        while (s->active && pthread_cond_timedwait(&s->cv, &s->mu, &dl) == 0) {
        }
        unsigned left = s->active;
        pthread_mutex_unlock(&s->mu);
        if (left)
            slog(s, CZ_LOG_WARN, "grpc: %u calls still open after %u ms; cancelling them", left, grace_ms);
        grpc_server_cancel_all_calls(s->server);
        pthread_mutex_lock(&s->mu);
        while (s->active)
            pthread_cond_wait(&s->cv, &s->mu);
        pthread_mutex_unlock(&s->mu);
        if (s->accept_started) {
            /* it shuts the queue down on the shutdown tag and leaves */
            pthread_join(s->accept_thread, NULL);
        } else {
            for (;;) {
                grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
                if (ev.type == GRPC_QUEUE_SHUTDOWN)
                    break;
                if (ev.type == GRPC_OP_COMPLETE && ev.tag == TAG_SHUTDOWN)
                    grpc_completion_queue_shutdown(s->cq);
            }
        }
        grpc_server_destroy(s->server);
        grpc_completion_queue_destroy(s->cq);
        grpc_shutdown();
    }
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    memset(s->token, 0, sizeof s->token);
    free(s);
}

static void emit(char *buf, size_t cap, size_t *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void emit(char *buf, size_t cap, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = buf && *n < cap ? buf + *n : NULL;
    int w = vsnprintf(dst, dst ? cap - *n : 0, fmt, ap);
    va_end(ap);
    if (w > 0)
        *n += (size_t)w;
}

size_t cz_grpc_server_metrics(cz_grpc_server *s, char *buf, size_t cap)
{
    size_t n = 0;
#define EMIT(...) emit(buf, cap, &n, __VA_ARGS__)
    EMIT("# HELP cuzkd_grpc_calls_total gRPC calls received, by method.\n"
         "# TYPE cuzkd_grpc_calls_total counter\n");
    for (int m = 0; m <= M_COUNT; m++)
        EMIT("cuzkd_grpc_calls_total{method=\"%s\"} %" PRIu64 "\n", m < M_COUNT ? k_method_names[m] : "unknown",
             atomic_load(&s->calls[m]));
    EMIT("# HELP cuzkd_grpc_status_total gRPC calls answered, by status code.\n"
         "# TYPE cuzkd_grpc_status_total counter\n");
    for (int k = 0; k < N_CODES; k++) {
        uint64_t v = atomic_load(&s->codes[k]);
        if (v || k == 0)
            EMIT("cuzkd_grpc_status_total{code=\"%d\"} %" PRIu64 "\n", k, v);
    }
    pthread_mutex_lock(&s->mu);
    unsigned active = s->active;
    pthread_mutex_unlock(&s->mu);
    EMIT("# HELP cuzkd_grpc_calls_active gRPC calls in progress.\n"
         "# TYPE cuzkd_grpc_calls_active gauge\n"
         "cuzkd_grpc_calls_active %u\n", active);
#undef EMIT
    return n;
}
