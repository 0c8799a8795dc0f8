/*
 * cuzkd request parsing and validation: pure functions (no network, no
 * engine), so the fuzz target (fuzz/fuzz_api.c) can drive them directly.
 * Every error path writes a one-line message naming the problem into err
 * and returns the HTTP status the daemon answers with.
 */
#ifndef CZ_DAEMON_API_H
#define CZ_DAEMON_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "cuzk/base64.h"
#include "cuzk/engine.h"

typedef enum {
    CZ_API_NONE = 0,
    CZ_API_SUBMIT,      /* POST /v1/jobs */
    CZ_API_JOB,         /* GET  /v1/jobs/{id} */
    CZ_API_AWAIT,       /* POST /v1/jobs/{id}/await */
    CZ_API_CANCEL,      /* POST /v1/jobs/{id}/cancel */
    CZ_API_PROVE,       /* POST /v1/prove */
    CZ_API_STATUS,      /* GET  /v1/status */
    CZ_API_METRICS,     /* GET  /metrics */
    CZ_API_TRACE,       /* GET  /v1/trace */
    CZ_API_HEALTH,      /* GET  /v1/health */
    CZ_API_PRELOAD,     /* POST /v1/params/{name}/preload */
    CZ_API_EVICT,       /* POST /v1/params/{name}/evict */
    CZ_API_PAGE,        /* GET  /       (the live status page) */
    CZ_API_TIMELINE,    /* GET  /v1/timeline */
    CZ_API_PAUSE,       /* POST /v1/pause  (stop dispatching; jobs are still accepted) */
    CZ_API_RESUME       /* POST /v1/resume (dispatch again, e.g. after engine.start_paused) */
} cz_api_route;

#define CZ_API_NAME_MAX 127

typedef struct {
    cz_api_route route;
    cz_job_id job;                   /* CZ_API_JOB/AWAIT/CANCEL */
    char name[CZ_API_NAME_MAX + 1];  /* CZ_API_PRELOAD/EVICT */
    const char *allow;               /* on 405: the allowed method */
} cz_api_target;

/* Matches method + path (no query string). Returns 0 on a match, else the
 * HTTP status (404 no such endpoint, 405 wrong method, 400 bad id/name). */
int cz_api_match(const char *method, const char *path, cz_api_target *t, char *err, size_t errlen);

/* Parameter/circuit names: 1..127 chars of [A-Za-z0-9._-], not "." or
 * "..", never containing "..", never starting with '.' — a name is always
 * a single file-name component inside the parameter directory. */
bool cz_api_name_ok(const char *s, size_t len);
/* Job ids: decimal, 1..UINT64_MAX, no sign, no leading zeros. */
bool cz_api_parse_job_id(const char *s, size_t len, cz_job_id *out);
/* Milliseconds query value: decimal 0..max (values above max are capped
 * at max). NULL s -> def. Returns 0 or 400. */
int cz_api_parse_ms(const char *s, uint64_t def, uint64_t max, uint64_t *out, char *err, size_t errlen);
/* The same for any unsigned query parameter; the error names it. */
int cz_api_parse_uint_param(const char *name, const char *s, uint64_t def, uint64_t max, uint64_t *out,
                            char *err, size_t errlen);

/* Query parameters: every route accepts a fixed set (listed in
 * docs/api.md); anything else is refused like an unknown body field,
 * because a typo such as ?timeout=5 would otherwise silently mean the
 * default. cz_api_query_params lists the accepted names for a route
 * (", "-separated; "" = none). cz_api_check_query returns 0 when name is
 * accepted, else 400 with err naming the parameter and the accepted ones.
 * cz_api_check_query_dup: 400 for a parameter given twice (which value
 * would win is not obvious to the client). */
const char *cz_api_query_params(cz_api_route r);
int cz_api_check_query(cz_api_route r, const char *name, char *err, size_t errlen);
int cz_api_check_query_dup(const char *name, char *err, size_t errlen);

typedef struct {
    char circuit[CZ_API_NAME_MAX + 1];
    uint8_t *payload;      /* malloc'd (may be NULL when payload_len == 0) */
    size_t payload_len;
    uint32_t partitions;   /* default 1 */
    cz_priority priority;  /* default: cz_api_default_priority(circuit) */
    char request_id[256];  /* "" = none */
} cz_api_submit;

/* The priority of a job submitted without one, by its circuit's deadline:
 * WinningPoSt (winning-*) CRITICAL, WindowPoSt (wpost-*) HIGH, else NORMAL.
 * The HTTP and gRPC front ends both use it. */
cz_priority cz_api_default_priority(const char *circuit);

/* Parses a submit body: a JSON object with "circuit" (required),
 * exactly one of "payload" (a string = its UTF-8 bytes; any other JSON
 * value = its compact serialization) or "payload_b64" (standard base64),
 * optional "partitions" (1..65536), "priority" ("low".."critical"),
 * "request_id" (1..255 printable ASCII). Unknown fields are refused (they
 * are usually typos). Returns 0 (out filled; free with
 * cz_api_submit_free) or 400/413 with err. */
int cz_api_parse_submit(const char *body, size_t len, uint64_t max_payload, cz_api_submit *out,
                        char *err, size_t errlen);
void cz_api_submit_free(cz_api_submit *s);


/* A job snapshot as JSON (proof as "proof_b64" when present). */
json_t *cz_api_job_json(const cz_job_result *r, bool with_proof);
/* A JSON string of text with every byte outside printable ASCII replaced
 * by '?' (messages may quote back-end or client text; JSON needs UTF-8). */
json_t *cz_api_json_text(const char *text);
/* HTTP status for an engine status code (submit/preload/evict refusals). */
int cz_api_http_status(cz_status st);
/* The answer to an await (POST /v1/jobs/{id}/await; prove = false) or the
 * wait of POST /v1/prove (prove = true) from what cz_engine_await returned
 * for job id: 200 a terminal job (with its proof when DONE), 202 (prove) or
 * 200 (await) a wait that timed out, 404 an unknown or pruned job, else
 * 500 with err naming the job and the cause. A DONE job without its proof
 * (the copy failed, CZ_ERR_NOMEM) is a 500, never a 200 "done" without a
 * proof: the engine keeps the result, and err says how to fetch it again. */
int cz_api_await_answer(cz_status st, cz_job_id id, const cz_job_result *r, bool prove, char *err,
                        size_t errlen);
/* The "note" of a resubmission that matched a retained job (request_id)
 * but asked for another priority: the engine keeps the job's priority
 * (priority is not part of the idempotency key), and the client should be
 * told rather than left to assume its new priority applies. Writes "" and
 * returns false when the priorities are equal. */
bool cz_api_priority_note(char *buf, size_t cap, const char *request_id, cz_job_id job, cz_priority kept,
                          cz_priority asked);
/* Appends " key=value" to buf (at *off, capacity cap) in logfmt form:
 * the value bare when it is only [A-Za-z0-9._:/+-], else double-quoted with
 * '"' and '\' escaped and non-printable bytes written as '?'. So a log line
 * stays one line and grep/journalctl/logfmt parsers split it reliably.
 * Never writes past cap; *off may end beyond cap (snprintf style). */
void cz_api_logfmt(char *buf, size_t cap, size_t *off, const char *key, const char *value);

/* Listen addresses. */
typedef struct {
    bool is_unix;
    char path[108];       /* unix socket path */
    char host[256];       /* numeric address */
    unsigned port;
    bool loopback;        /* unix sockets count as local */
} cz_listen_addr;
/* "unix:/p" | "/p" | "tcp:H:P" | "H:P" | "[V6]:P"; host must be numeric. */
bool cz_api_parse_listen(const char *s, cz_listen_addr *out, char *err, size_t errlen);

/* Constant-time comparison of a presented token with the expected one
 * (time depends only on the expected token's length). */
bool cz_api_token_equal(const char *expected, size_t elen, const char *given, size_t glen);
/* Extracts the token from an "Authorization: Bearer <t>" value. */
bool cz_api_bearer(const char *header, const char **tok, size_t *toklen);

#endif
