/*
 * cuzkd server: the listen socket (unix or TCP, created and bound here and
 * handed to libmicrohttpd), authentication, the request handlers and the
 * shutdown sequence.
 *
 * DESIGN
 * - libmicrohttpd runs one thread per connection. A handler may block in
 *   cz_engine_await (bounded by max_await_ms), which only ever holds its own
 *   connection's thread; max_connections bounds the threads.
 * - Request bodies are collected per connection up to max_body_bytes. A
 *   Content-Length over the limit is refused before the body is read; a
 *   chunked body that grows over it is discarded and refused at its end.
 *   All bodies being received together are bounded by
 *   max_inflight_body_bytes (their buffers' capacities are counted, so the
 *   bound is on memory, not on bytes seen): a request that would cross it
 *   is answered 503 with Retry-After, before its body is read when it
 *   declares a Content-Length. The engine's budget charges a payload from
 *   its submission on; this bound covers the time before, and the memory
 *   safety margin has to hold it (docs/design.md §6).
 * - All parsing and validation is in api.c (pure; fuzzed). This file only
 *   maps parsed requests to engine calls and results to HTTP.
 * - Query strings are checked against each route's accepted names before
 *   any handler runs (api.c), so a typo is a 400, never a silent default.
 * - GET / (the status page, status_page.html embedded at build time) is the
 *   only request served without the bearer token; it is static, and the
 *   JSON it polls (/v1/status, /v1/timeline) needs the token as usual.
 * - Logging: every job event is one key=value line (job=<id> event=...);
 *   the job-end line comes from the engine's on_job_done notification.
 * - Slow clients: the bearer token can only be checked once a request's
 *   head (request line and headers) is complete, so until then a
 *   connection is anonymous and holds a slot of max_connections. Two
 *   bounds keep a few such connections from locking everyone out:
 *   daemon.header_timeout_ms, a real deadline (see the header watchdog
 *   below), and, on TCP, daemon.max_connections_per_peer
 *   (MHD_OPTION_PER_IP_CONNECTION_LIMIT). MHD's own
 *   MHD_OPTION_CONNECTION_TIMEOUT is an inactivity timer in whole seconds:
 *   a client that sends one byte every few seconds never trips it, so it
 *   stays the idle limit (connection_timeout_s) and the head deadline is
 *   ours.
 * - Shutdown: quiesce (stop accepting; the listen socket is closed and the
 *   unix socket unlinked; submissions on connections still open answer
 *   503 from then on), then cz_engine_shutdown (drain or cancel per
 *   engine.drain_on_shutdown; every pending await wakes with a terminal
 *   job), then MHD_stop_daemon (joins connection threads), then the engine
 *   is destroyed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "cuzk/daemon.h"
#include "daemon/api.h"
#include "daemon/status_page.h"
#include "daemon/grpc_server.h"
#include "daemon/jobs.h"
#include "daemon/sockutil.h"
#include "daemon/store_node.h"

struct cz_daemon {
    cz_daemon_config cfg;
    cz_engine *engine;
    /* where jobs live: the engine (memory) or the shared store (postgres,
     * node != NULL; the engine then holds this node's sub-jobs only) */
    cz_jobs jobs;
    cz_store_node *node;
    struct MHD_Daemon *mhd;
    int listen_fd;
    cz_listen_addr addr;
    char address[300];
    char token[512];
    size_t token_len;
    FILE *timeline;
    bool timeline_owned;
    bool shut;
    dev_t sock_dev;
    ino_t sock_ino;
    gid_t sock_gid;          /* daemon.socket_group resolved ((gid_t)-1: none) */
    bool http_off;           /* daemon.listen = off */
    cz_grpc_server *grpc;    /* NULL: grpc.listen is off (or shut down); under grpc_mu */
    pthread_mutex_t grpc_mu; /* metrics_text (any request thread) vs shutdown */
    char grpc_address[300];
    _Atomic uint64_t http_requests, http_2xx, http_4xx, http_5xx, http_bytes_in;
    _Atomic int64_t active_requests; /* handler entered, response not yet sent */
    _Atomic uint64_t body_bytes;     /* capacity of the bodies being received */
    atomic_bool stopping;            /* cz_daemon_shutdown began: no new jobs */
    struct timespec started;
    /* header watchdog (see on_connection) */
    pthread_mutex_t wd_mu;
    pthread_cond_t wd_cv;
    struct conn_watch *wd_head;
    bool wd_started, wd_stop;
    pthread_t wd_thread;
    _Atomic uint64_t header_timeouts;
};

/* The answer to a submission once shutdown has begun (HTTP 503). */
#define CZ_DAEMON_SHUTTING_DOWN_MSG \
    "daemon is shutting down: no new jobs are accepted (submit to another instance, or again after the restart)"

/* How long shutdown waits for in-progress requests to send their answers. */
#define CZ_DAEMON_SHUTDOWN_GRACE_MS 10000

typedef struct {
    char *body;
    size_t len, cap; /* cap is counted in cz_daemon.body_bytes */
    bool too_big;
    bool too_busy; /* the in-flight bound refused this body */
    bool responded;
} conn_state;

/* ---- logging ---------------------------------------------------------- */

static void dlog(const cz_daemon *d, cz_log_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Two forms of the same line. On a terminal: an ISO-8601 UTC timestamp,
 * "cuzkd", the level and the message. Otherwise stderr goes to journald
 * or a container runtime (the supervisors cuzkd is meant to run under),
 * which stamp every line themselves: then no timestamp, and the level as
 * the sd-daemon(3) prefix "<N>" (3 error, 4 warning, 6 info, 7 debug) that
 * journald turns into the entry's PRIORITY, so `journalctl -p warning`
 * works. Messages are one line each; events are key=value (logfmt). */
static bool log_journal_form(void)
{
    static atomic_int form = -1; /* -1 unknown, 0 terminal, 1 journal */
    int f = atomic_load(&form);
    if (f < 0) {
        f = isatty(STDERR_FILENO) ? 0 : 1;
        atomic_store(&form, f);
    }
    return f == 1;
}

static void dlog(const cz_daemon *d, cz_log_level lvl, const char *fmt, ...)
{
    if (d && lvl > d->cfg.log_level)
        return;
    static const char *names[] = {"error", "warn", "info", "debug"};
    static const int prio[] = {3, 4, 6, 7};
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* a message never spans lines (journald would split it) */
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    if (log_journal_form()) {
        fprintf(stderr, "<%d>%s\n", prio[lvl], msg);
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    fprintf(stderr, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ cuzkd %s: %s\n", tm.tm_year + 1900,
            tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
            names[lvl], msg);
}

/* The engine's job-end notification (engine.on_job_done): one line per
 * ended job with its circuit and stage timings, in the same key=value form
 * as the other job events, so `grep job=17` or `journalctl -g job=17`
 * follows a job. Done and cancelled jobs log at info, failed ones at warn:
 * a failed proof is what an operator running at log_level = warn still
 * needs to see. Runs on an engine thread with no engine lock held
 * (job_info is allowed there). */
static void on_job_end(void *arg, cz_job_id id, cz_job_state state)
{
    cz_daemon *d = arg;
    /* store mode: the engine's jobs are sub-jobs of claimed partitions */
    if (d->node)
        cz_store_node_job_done(d->node, id, state);
    cz_log_level lvl = state == CZ_JOB_FAILED ? CZ_LOG_WARN : CZ_LOG_INFO;
    if (lvl > d->cfg.log_level || !d->engine)
        return;
    cz_job_result r;
    if (cz_engine_job_info(d->engine, id, &r) != CZ_OK) {
        /* pruned already (tiny retention): the state is all we know */
        dlog(d, lvl, "job=%" PRIu64 " event=end state=%s", id, cz_job_state_str(state));
        return;
    }
    char line[900] = "";
    size_t off = 0;
    char num[48];
    cz_api_logfmt(line, sizeof line, &off, "circuit", r.circuit_id);
    snprintf(num, sizeof num, "%u/%u", r.partitions_done, r.num_partitions);
    cz_api_logfmt(line, sizeof line, &off, "partitions", num);
    cz_api_logfmt(line, sizeof line, &off, "priority", cz_priority_str(r.priority));
    const struct {
        const char *k;
        double v;
    } t[] = {{"queue_ms", r.queued_ms}, {"load_ms", r.load_ms},     {"synth_ms", r.synth_ms},
             {"prove_ms", r.prove_ms},  {"device_ms", r.device_ms}, {"finish_ms", r.finish_ms},
             {"total_ms", r.total_ms}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        snprintf(num, sizeof num, "%.1f", t[i].v);
        cz_api_logfmt(line, sizeof line, &off, t[i].k, num);
    }
    if (state != CZ_JOB_DONE) {
        cz_api_logfmt(line, sizeof line, &off, "status", cz_status_str(r.status));
        if (r.failed_partition >= 0) {
            snprintf(num, sizeof num, "%d", r.failed_partition);
            cz_api_logfmt(line, sizeof line, &off, "failed_partition", num);
        }
        cz_api_logfmt(line, sizeof line, &off, "error", r.error[0] ? r.error : cz_status_str(r.status));
    }
    cz_job_result_free(&r);
    dlog(d, lvl, "job=%" PRIu64 " event=end state=%s%s", id, cz_job_state_str(state), line);
}

/* ---- responses -------------------------------------------------------- */

static enum MHD_Result send_buf(cz_daemon *d, struct MHD_Connection *c, unsigned code, char *buf,
                                size_t len, const char *ctype, const char *allow)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(buf);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    if (allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    if (code == 401)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    /* every 503 here is temporary (the engine's queue is full, it is out of
     * memory or shutting down): tell clients when to come back */
    if (code == 503)
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "5");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    if (code < 300)
        atomic_fetch_add(&d->http_2xx, 1);
    else if (code < 500)
        atomic_fetch_add(&d->http_4xx, 1);
    else
        atomic_fetch_add(&d->http_5xx, 1);
    return ret;
}

static enum MHD_Result send_json(cz_daemon *d, struct MHD_Connection *c, unsigned code, json_t *o)
{
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10)) : NULL;
    json_decref(o);
    if (!s)
        return MHD_NO;
    size_t n = strlen(s);
    /* newline-terminated for command-line clients */
    char *t = realloc(s, n + 2);
    if (!t) {
        free(s);
        return MHD_NO;
    }
    t[n] = '\n';
    t[n + 1] = 0;
    return send_buf(d, c, code, t, n + 1, "application/json", NULL);
}

static enum MHD_Result send_error(cz_daemon *d, struct MHD_Connection *c, unsigned code,
                                  const char *allow, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static enum MHD_Result send_error(cz_daemon *d, struct MHD_Connection *c, unsigned code,
                                  const char *allow, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dlog(d, code >= 500 ? CZ_LOG_WARN : CZ_LOG_DEBUG, "-> %u %s", code, msg);
    json_t *o = json_object();
    json_object_set_new(o, "error", cz_api_json_text(msg));
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!s)
        return MHD_NO;
    size_t n = strlen(s);
    char *t = realloc(s, n + 2);
    if (!t) {
        free(s);
        return MHD_NO;
    }
    t[n] = '\n';
    t[n + 1] = 0;
    return send_buf(d, c, code, t, n + 1, "application/json", allow);
}

/* ---- header watchdog -------------------------------------------------- */

/* One per connection (MHD's socket context). A connection is armed (has a
 * deadline) from its accept, and again from the end of each request, until
 * the next request's head is complete: on_request's first call for a
 * request (MHD calls it only once the head has been parsed) disarms it.
 * The watchdog thread shuts an armed connection's socket down once its
 * deadline passes; MHD's connection thread then sees the hang-up and
 * closes it. The socket stays open until MHD's CLOSED notification, which
 * unlinks the entry under wd_mu first, so the watchdog never touches a
 * descriptor that was closed (and maybe reused). */
typedef struct conn_watch {
    int fd;
    uint64_t deadline_ns;  /* monotonic; 0 = disarmed */
    char peer[64];
    struct conn_watch *prev, *next;
} conn_watch;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void peer_name(struct MHD_Connection *c, char *buf, size_t cap)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    snprintf(buf, cap, "a unix-socket peer");
    if (!ci || !ci->client_addr)
        return;
    char host[INET6_ADDRSTRLEN] = "";
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        snprintf(buf, cap, "%s:%u", host, (unsigned)ntohs(in->sin_port));
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
        snprintf(buf, cap, "[%s]:%u", host, (unsigned)ntohs(in6->sin6_port));
    }
}

static void watch_arm(cz_daemon *d, conn_watch *w, bool arm)
{
    if (!w || !d->cfg.header_timeout_ms)
        return;
    pthread_mutex_lock(&d->wd_mu);
    w->deadline_ns = arm ? mono_ns() + d->cfg.header_timeout_ms * 1000000u : 0;
    if (arm)
        pthread_cond_signal(&d->wd_cv);
    pthread_mutex_unlock(&d->wd_mu);
}

static conn_watch *watch_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    cz_daemon *d = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        conn_watch *w = ci ? calloc(1, sizeof *w) : NULL;
        *socket_context = w;
        if (!w)
            return; /* unwatched: the idle timeout still applies */
        w->fd = ci->connect_fd;
        peer_name(c, w->peer, sizeof w->peer);
        pthread_mutex_lock(&d->wd_mu);
        w->deadline_ns = mono_ns() + d->cfg.header_timeout_ms * 1000000u;
        w->next = d->wd_head;
        if (d->wd_head)
            d->wd_head->prev = w;
        d->wd_head = w;
        pthread_cond_signal(&d->wd_cv);
        pthread_mutex_unlock(&d->wd_mu);
        return;
    }
    conn_watch *w = *socket_context;
    if (!w)
        return;
    pthread_mutex_lock(&d->wd_mu);
    if (w->prev)
        w->prev->next = w->next;
    else
        d->wd_head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    pthread_mutex_unlock(&d->wd_mu);
    free(w);
    *socket_context = NULL;
}

static void *watchdog_main(void *arg)
{
    cz_daemon *d = arg;
    pthread_setname_np(pthread_self(), "cz-http-wd");
    pthread_mutex_lock(&d->wd_mu);
    while (!d->wd_stop) {
        uint64_t now = mono_ns(), next = UINT64_MAX;
        for (conn_watch *w = d->wd_head; w; w = w->next) {
            if (!w->deadline_ns)
                continue;
            if (now >= w->deadline_ns) {
                w->deadline_ns = 0;
                atomic_fetch_add(&d->header_timeouts, 1);
                dlog(d, CZ_LOG_INFO,
                     "event=header_timeout peer=%s: no complete request head within daemon.header_timeout_ms "
                     "= %" PRIu64 "; closing the connection",
                     w->peer, d->cfg.header_timeout_ms);
                shutdown(w->fd, SHUT_RDWR);
            } else if (w->deadline_ns < next) {
                next = w->deadline_ns;
            }
        }
        if (next == UINT64_MAX) {
            pthread_cond_wait(&d->wd_cv, &d->wd_mu);
        } else {
            struct timespec ts = {.tv_sec = (time_t)(next / 1000000000u), .tv_nsec = (long)(next % 1000000000u)};
            pthread_cond_timedwait(&d->wd_cv, &d->wd_mu, &ts);
        }
    }
    pthread_mutex_unlock(&d->wd_mu);
    return NULL;
}

static void watchdog_stop(cz_daemon *d)
{
    if (!d->wd_started)
        return;
    pthread_mutex_lock(&d->wd_mu);
    d->wd_stop = true;
    pthread_cond_signal(&d->wd_cv);
    pthread_mutex_unlock(&d->wd_mu);
    pthread_join(d->wd_thread, NULL);
    d->wd_started = false;
}

/* ---- handlers --------------------------------------------------------- */

/* true when the client hung up (nothing left to answer). */
static bool client_gone(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci)
        return false;
    struct pollfd p = {ci->connect_fd, POLLRDHUP, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* The await of the job service in slices, so a client that hangs up
 * stops holding its connection thread (and a slot of max_connections, and
 * in store mode a database connection) for the full timeout. *gone: the
 * client went away (*out is then empty). In store mode the wait also ends
 * (as a timeout) once shutdown begins: the job goes on on other nodes,
 * and the client can await it there. */
static cz_status await_sliced(cz_daemon *d, struct MHD_Connection *c, cz_job_id id, uint64_t timeout,
                              cz_job_result *out, bool *gone)
{
    *gone = false;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t spent = (uint64_t)(now.tv_sec - t0.tv_sec) * 1000 + (uint64_t)((now.tv_nsec - t0.tv_nsec) / 1000000);
        uint64_t left = spent >= timeout ? 0 : timeout - spent;
        uint64_t slice = left < 500 ? left : 500;
        cz_status st = cz_jobs_await(&d->jobs, id, (int64_t)slice, out);
        if (st != CZ_ERR_TIMEOUT || slice == left || (d->node && atomic_load(&d->stopping)))
            return st;
        if (client_gone(c)) {
            cz_job_result_free(out);
            memset(out, 0, sizeof *out);
            dlog(d, CZ_LOG_DEBUG, "await of job %" PRIu64 ": client went away", id);
            *gone = true;
            return CZ_ERR_IO;
        }
        cz_job_result_free(out);
    }
}

static enum MHD_Result h_submit(cz_daemon *d, struct MHD_Connection *c, conn_state *cs, bool prove)
{
    char err[512];
    cz_api_submit s;
    uint64_t timeout = 0;
    if (prove) {
        int rc = cz_api_parse_ms(MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "timeout_ms"),
                                 d->cfg.default_await_ms, d->cfg.max_await_ms, &timeout, err, sizeof err);
        if (rc)
            return send_error(d, c, (unsigned)rc, NULL, "%s", err);
    }
    int rc = cz_api_parse_submit(cs->body, cs->len, d->cfg.max_payload_bytes, &s, err, sizeof err);
    if (rc)
        return send_error(d, c, (unsigned)rc, NULL, "%s", err);
    if (atomic_load(&d->stopping)) {
        /* a connection opened before the listener closed: the job would
         * only be cancelled by the shutdown, so it is never accepted */
        cz_api_submit_free(&s);
        return send_error(d, c, 503, NULL, "%s", CZ_DAEMON_SHUTTING_DOWN_MSG);
    }
    cz_job_request req = {.circuit_id = s.circuit,
                          .payload = s.payload,
                          .payload_len = s.payload_len,
                          .num_partitions = s.partitions,
                          .priority = s.priority,
                          .request_id = s.request_id[0] ? s.request_id : NULL};
    cz_job_id id = 0;
    bool existing = false;
    char msg[512] = "";
    cz_status st = cz_jobs_submit(&d->jobs, &req, &id, &existing, msg, sizeof msg);
    if (st != CZ_OK) {
        cz_api_submit_free(&s);
        int code = cz_api_http_status(st);
        if (st == CZ_ERR_NOT_FOUND)
            code = 400; /* unknown circuit: the request is wrong, not a missing job */
        if (st == CZ_ERR_IO && d->node)
            code = 503; /* the job store is unreachable: retry (here or on another node) */
        {
            char line[768] = "";
            size_t off = 0;
            cz_api_logfmt(line, sizeof line, &off, "circuit", s.circuit);
            cz_api_logfmt(line, sizeof line, &off, "status", cz_status_str(st));
            cz_api_logfmt(line, sizeof line, &off, "error", msg);
            dlog(d, CZ_LOG_INFO, "event=submit_refused%s", line);
        }
        if (st == CZ_ERR_CANCELLED) /* the engine's shutdown has begun */
            return send_error(d, c, 503, NULL, "%s", CZ_DAEMON_SHUTTING_DOWN_MSG);
        return send_error(d, c, (unsigned)code, NULL, "%s", msg[0] ? msg : cz_status_str(st));
    }
    /* A resubmission keeps the job's priority (not part of the idempotency
     * key): say so when another one was asked for. */
    char note[400] = "";
    cz_job_result r;
    if (existing && cz_jobs_job_info(&d->jobs, id, &r) == CZ_OK) {
        cz_api_priority_note(note, sizeof note, s.request_id, id, r.priority, s.priority);
        cz_job_result_free(&r);
    }
    {
        char line[768] = "";
        size_t off = 0;
        char num[32];
        cz_api_logfmt(line, sizeof line, &off, "event", existing ? "resubmitted" : "accepted");
        cz_api_logfmt(line, sizeof line, &off, "circuit", s.circuit);
        snprintf(num, sizeof num, "%u", s.partitions);
        cz_api_logfmt(line, sizeof line, &off, "partitions", num);
        cz_api_logfmt(line, sizeof line, &off, "priority", cz_priority_str(s.priority));
        snprintf(num, sizeof num, "%zu", s.payload_len);
        cz_api_logfmt(line, sizeof line, &off, "payload_bytes", num);
        if (s.request_id[0])
            cz_api_logfmt(line, sizeof line, &off, "request_id", s.request_id);
        if (note[0])
            cz_api_logfmt(line, sizeof line, &off, "note", note);
        dlog(d, CZ_LOG_INFO, "job=%" PRIu64 "%s", id, line);
    }
    cz_api_submit_free(&s);
    if (!prove) {
        if (cz_jobs_job_info(&d->jobs, id, &r) != CZ_OK) {
            /* pruned between submit and now: report what we know */
            memset(&r, 0, sizeof r);
            r.id = id;
            r.failed_partition = -1;
            r.state = CZ_JOB_QUEUED;
        }
        json_t *o = cz_api_job_json(&r, false);
        json_object_set_new(o, "existing", json_boolean(existing));
        if (note[0])
            json_object_set_new(o, "note", cz_api_json_text(note));
        cz_job_result_free(&r);
        return send_json(d, c, existing ? 200 : 201, o);
    }
    bool gone;
    st = await_sliced(d, c, id, timeout, &r, &gone);
    if (gone)
        return MHD_NO;
    if (st == CZ_ERR_IO) {
        char why[sizeof r.error];
        snprintf(why, sizeof why, "%s", r.error);
        cz_job_result_free(&r);
        return send_error(d, c, 503, NULL, "job %" PRIu64 " was accepted, but awaiting it failed: %s", id, why);
    }
    int code = cz_api_await_answer(st, id, &r, true, err, sizeof err);
    if (code >= 400) {
        cz_job_result_free(&r);
        return send_error(d, c, (unsigned)code, NULL, "%s", err);
    }
    json_t *o = cz_api_job_json(&r, true);
    json_object_set_new(o, "existing", json_boolean(existing));
    if (note[0])
        json_object_set_new(o, "note", cz_api_json_text(note));
    json_object_set_new(o, "timed_out", json_boolean(st == CZ_ERR_TIMEOUT));
    cz_job_result_free(&r);
    return send_json(d, c, (unsigned)code, o);
}

static enum MHD_Result h_job(cz_daemon *d, struct MHD_Connection *c, cz_job_id id)
{
    cz_job_result r;
    cz_status st = cz_jobs_job_info(&d->jobs, id, &r);
    if (st == CZ_ERR_IO)
        return send_error(d, c, 503, NULL, "job %" PRIu64 ": %s", id, r.error);
    if (st != CZ_OK)
        return send_error(d, c, 404, NULL,
                          "unknown job %" PRIu64 " (never submitted, pruned, or submitted before a restart)", id);
    json_t *o = cz_api_job_json(&r, false);
    cz_job_result_free(&r);
    return send_json(d, c, 200, o);
}

static enum MHD_Result h_await(cz_daemon *d, struct MHD_Connection *c, cz_job_id id)
{
    char err[256];
    uint64_t timeout;
    int rc = cz_api_parse_ms(MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "timeout_ms"),
                             d->cfg.default_await_ms, d->cfg.max_await_ms, &timeout, err, sizeof err);
    if (rc)
        return send_error(d, c, (unsigned)rc, NULL, "%s", err);
    cz_job_result r;
    bool gone;
    cz_status st = await_sliced(d, c, id, timeout, &r, &gone);
    if (gone)
        return MHD_NO;
    if (st == CZ_ERR_IO) {
        char why[sizeof r.error];
        snprintf(why, sizeof why, "%s", r.error);
        cz_job_result_free(&r);
        return send_error(d, c, 503, NULL, "await of job %" PRIu64 ": %s", id, why);
    }
    rc = cz_api_await_answer(st, id, &r, false, err, sizeof err);
    if (rc >= 400) {
        cz_job_result_free(&r);
        return send_error(d, c, (unsigned)rc, NULL, "%s", err);
    }
    json_t *o = cz_api_job_json(&r, true);
    json_object_set_new(o, "timed_out", json_boolean(st == CZ_ERR_TIMEOUT));
    cz_job_result_free(&r);
    return send_json(d, c, (unsigned)rc, o);
}

static enum MHD_Result h_cancel(cz_daemon *d, struct MHD_Connection *c, cz_job_id id)
{
    cz_job_state state = CZ_JOB_QUEUED;
    cz_status st = cz_jobs_cancel(&d->jobs, id, &state);
    if (st == CZ_ERR_NOT_FOUND)
        return send_error(d, c, 404, NULL, "unknown job %" PRIu64, id);
    if (st == CZ_ERR_IO)
        return send_error(d, c, 503, NULL, "cancel of job %" PRIu64 ": the job store is unreachable (retry)", id);
    if (st == CZ_ERR_BUSY) {
        json_t *o = json_object();
        char msg[128];
        snprintf(msg, sizeof msg, "job %" PRIu64 " already ended (%s)", id, cz_job_state_str(state));
        json_object_set_new(o, "error", cz_api_json_text(msg));
        json_object_set_new(o, "id", json_integer((json_int_t)id));
        json_object_set_new(o, "state", json_string(cz_job_state_str(state)));
        return send_json(d, c, 409, o);
    }
    if (st != CZ_OK)
        return send_error(d, c, 500, NULL, "cancel failed: %s", cz_status_str(st));
    dlog(d, CZ_LOG_INFO, "job=%" PRIu64 " event=cancel_requested", id);
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer((json_int_t)id));
    json_object_set_new(o, "state", json_string(cz_job_state_str(CZ_JOB_CANCELLED)));
    return send_json(d, c, 200, o);
}

/* POST /v1/pause, /v1/resume: dispatch control. Jobs are accepted either
 * way; paused, none starts (running partitions finish). Resume is what
 * ends engine.start_paused. */
static enum MHD_Result h_pause(cz_daemon *d, struct MHD_Connection *c, bool pause)
{
    if (atomic_load(&d->stopping))
        return send_error(d, c, 503, NULL, "%s", CZ_DAEMON_SHUTTING_DOWN_MSG);
    if (pause)
        cz_engine_pause(d->engine);
    else
        cz_engine_resume(d->engine);
    cz_engine_status st;
    cz_engine_get_status(d->engine, &st);
    dlog(d, CZ_LOG_INFO, "event=%s jobs_queued=%" PRIu64, pause ? "paused" : "resumed", st.jobs_queued);
    json_t *o = json_object();
    json_object_set_new(o, "paused", json_boolean(st.paused));
    json_object_set_new(o, "jobs_queued", json_integer((json_int_t)st.jobs_queued));
    return send_json(d, c, 200, o);
}

static double uptime_s(const cz_daemon *d)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - d->started.tv_sec) + (now.tv_nsec - d->started.tv_nsec) / 1e9;
}

#ifndef CUZK_VERSION
#define CUZK_VERSION "unknown"
#endif

static enum MHD_Result h_status(cz_daemon *d, struct MHD_Connection *c)
{
    cz_daemon_facts f = {.address = d->address,
                         .backend = d->cfg.backend,
                         .version = CUZK_VERSION,
                         .uptime_ms = (uint64_t)(uptime_s(d) * 1e3),
                         .http_requests = atomic_load(&d->http_requests),
                         .token_required = d->token_len > 0};
    json_t *o = cz_daemon_status_json(d->engine, &f);
    if (!o)
        return send_error(d, c, 503, NULL, "out of memory");
    if (d->node) {
        /* the engine's numbers are this node's sub-jobs; the store's are here */
        json_t *so = cz_store_node_status_json(d->node);
        if (so)
            json_object_set_new(o, "store", so);
    }
    return send_json(d, c, 200, o);
}

/* Partition records for the page's chart (and anyone else's). */
#define CZ_TIMELINE_DEFAULT_LIMIT 5000
#define CZ_TIMELINE_MAX_LIMIT 100000

static enum MHD_Result h_timeline(cz_daemon *d, struct MHD_Connection *c)
{
    char err[256];
    uint64_t since = 0, limit = 0;
    int rc = cz_api_parse_uint_param("since_ms", MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "since_ms"),
                                     0, UINT64_MAX, &since, err, sizeof err);
    if (!rc)
        rc = cz_api_parse_uint_param("limit", MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit"),
                                     CZ_TIMELINE_DEFAULT_LIMIT, CZ_TIMELINE_MAX_LIMIT, &limit, err, sizeof err);
    if (rc)
        return send_error(d, c, (unsigned)rc, NULL, "%s", err);
    json_t *o = cz_daemon_timeline_json(d->engine, since, (size_t)limit);
    if (!o)
        return send_error(d, c, 503, NULL, "out of memory");
    return send_json(d, c, 200, o);
}

static enum MHD_Result h_page(cz_daemon *d, struct MHD_Connection *c)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        cz_status_page_html_len, (void *)cz_status_page_html, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/html; charset=utf-8");
    /* the page loads nothing from anywhere and talks only to this daemon */
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                            "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    atomic_fetch_add(&d->http_2xx, 1);
    return ret;
}

/* The whole daemon's Prometheus text (engine, HTTP, gRPC); malloc'd. */
static char *metrics_text(cz_daemon *d, size_t *len)
{
    size_t cap = 1 << 16;
    char *buf = NULL;
    size_t n;
    for (;;) {
        char *nb = realloc(buf, cap);
        if (!nb) {
            free(buf);
            return NULL;
        }
        buf = nb;
        n = cz_engine_metrics_prometheus(d->engine, buf, cap);
        if (n + 8192 < cap) /* room for the HTTP and gRPC counters */
            break;
        cap = n + 16384;
    }
    n += (size_t)snprintf(buf + n, cap - n,
                          "# HELP cuzkd_http_requests_total HTTP requests received.\n"
                          "# TYPE cuzkd_http_requests_total counter\n"
                          "cuzkd_http_requests_total %" PRIu64 "\n"
                          "# HELP cuzkd_http_responses_total HTTP responses by status class.\n"
                          "# TYPE cuzkd_http_responses_total counter\n"
                          "cuzkd_http_responses_total{class=\"2xx\"} %" PRIu64 "\n"
                          "cuzkd_http_responses_total{class=\"4xx\"} %" PRIu64 "\n"
                          "cuzkd_http_responses_total{class=\"5xx\"} %" PRIu64 "\n"
                          "# HELP cuzkd_uptime_seconds Seconds since the daemon started.\n"
                          "# TYPE cuzkd_uptime_seconds gauge\n"
                          "cuzkd_uptime_seconds %.3f\n"
                          "# HELP cuzk_build_info The running cuzkd's version (always 1).\n"
                          "# TYPE cuzk_build_info gauge\n"
                          "cuzk_build_info{version=\"%s\"} 1\n",
                          atomic_load(&d->http_requests), atomic_load(&d->http_2xx),
                          atomic_load(&d->http_4xx), atomic_load(&d->http_5xx), uptime_s(d), CUZK_VERSION);
    if (n >= cap)
        n = cap - 1;
    if (d->node && n + 6144 < cap) {
        size_t m = cz_store_node_metrics(d->node, buf + n, cap - n);
        n = m < cap - n ? n + m : cap - 1;
    }
    pthread_mutex_lock(&d->grpc_mu);
    if (d->grpc && n + 4096 < cap) {
        size_t g = cz_grpc_server_metrics(d->grpc, buf + n, cap - n);
        n = g < cap - n ? n + g : cap - 1;
    }
    pthread_mutex_unlock(&d->grpc_mu);
    *len = n;
    return buf;
}

static enum MHD_Result h_metrics(cz_daemon *d, struct MHD_Connection *c)
{
    size_t n;
    char *buf = metrics_text(d, &n);
    if (!buf)
        return send_error(d, c, 503, NULL, "out of memory");
    return send_buf(d, c, 200, buf, n, "text/plain; version=0.0.4; charset=utf-8", NULL);
}

static enum MHD_Result h_trace(cz_daemon *d, struct MHD_Connection *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return send_error(d, c, 503, NULL, "out of memory");
    cz_status st = cz_engine_write_chrome_trace(d->engine, f);
    fclose(f);
    if (st != CZ_OK) {
        free(buf);
        return send_error(d, c, 500, NULL, "trace export failed: %s", cz_status_str(st));
    }
    return send_buf(d, c, 200, buf, len, "application/json", NULL);
}

static enum MHD_Result h_params(cz_daemon *d, struct MHD_Connection *c, const cz_api_target *t)
{
    char msg[512] = "";
    bool preload = t->route == CZ_API_PRELOAD;
    cz_status st = preload ? cz_engine_preload(d->engine, t->name, msg, sizeof msg)
                           : cz_engine_evict(d->engine, t->name, msg, sizeof msg);
    if (st != CZ_OK) {
        if (!msg[0]) {
            if (!preload && st == CZ_ERR_NOT_FOUND)
                snprintf(msg, sizeof msg, "parameters '%s' are not resident", t->name);
            else if (!preload && st == CZ_ERR_BUSY)
                snprintf(msg, sizeof msg, "parameters '%s' are in use", t->name);
            else
                snprintf(msg, sizeof msg, "%s '%s': %s", preload ? "preload" : "evict", t->name,
                         cz_status_str(st));
        }
        return send_error(d, c, (unsigned)cz_api_http_status(st), NULL, "%s", msg);
    }
    dlog(d, CZ_LOG_INFO, "parameters '%s' %s", t->name, preload ? "preloaded" : "evicted");
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(t->name));
    json_object_set_new(o, "resident", json_boolean(preload));
    return send_json(d, c, 200, o);
}

/* Query-string check: the first unknown or repeated parameter wins. */
typedef struct {
    cz_api_route route;
    int rc;
    char err[256];
    const char *seen[8]; /* accepted names seen so far (MHD keeps them alive) */
    size_t nseen;
} query_check;

static enum MHD_Result query_check_one(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    query_check *q = cls;
    (void)kind;
    (void)value;
    if (q->rc)
        return MHD_NO;
    q->rc = cz_api_check_query(q->route, key, q->err, sizeof q->err);
    if (q->rc)
        return MHD_NO;
    for (size_t i = 0; i < q->nseen; i++)
        if (!strcmp(q->seen[i], key)) {
            q->rc = cz_api_check_query_dup(key, q->err, sizeof q->err);
            return MHD_NO;
        }
    if (q->nseen < sizeof q->seen / sizeof q->seen[0])
        q->seen[q->nseen++] = key;
    return MHD_YES;
}

static enum MHD_Result dispatch(cz_daemon *d, struct MHD_Connection *c, const char *url,
                                const char *method, conn_state *cs)
{
    cz_api_target t;
    char err[256];
    int rc = cz_api_match(method, url, &t, err, sizeof err);
    if (rc)
        return send_error(d, c, (unsigned)rc, t.allow, "%s", err);
    query_check q = {.route = t.route};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, query_check_one, &q);
    if (q.rc)
        return send_error(d, c, (unsigned)q.rc, NULL, "%s", q.err);
    switch (t.route) {
    case CZ_API_PAGE: return h_page(d, c);
    case CZ_API_TIMELINE: return h_timeline(d, c);
    case CZ_API_SUBMIT: return h_submit(d, c, cs, false);
    case CZ_API_PROVE: return h_submit(d, c, cs, true);
    case CZ_API_JOB: return h_job(d, c, t.job);
    case CZ_API_AWAIT: return h_await(d, c, t.job);
    case CZ_API_CANCEL: return h_cancel(d, c, t.job);
    case CZ_API_STATUS: return h_status(d, c);
    case CZ_API_METRICS: return h_metrics(d, c);
    case CZ_API_TRACE: return h_trace(d, c);
    case CZ_API_HEALTH: {
        json_t *o = json_object();
        json_object_set_new(o, "ok", json_true());
        return send_json(d, c, 200, o);
    }
    case CZ_API_PRELOAD:
    case CZ_API_EVICT: return h_params(d, c, &t);
    case CZ_API_PAUSE: return h_pause(d, c, true);
    case CZ_API_RESUME: return h_pause(d, c, false);
    case CZ_API_NONE: break;
    }
    return send_error(d, c, 404, NULL, "no such endpoint");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upsize, void **con_cls)
{
    cz_daemon *d = cls;
    (void)version;
    conn_state *cs = *con_cls;
    if (!cs) {
        cs = calloc(1, sizeof *cs);
        if (!cs)
            return MHD_NO;
        *con_cls = cs;
        watch_arm(d, watch_of(c), false); /* the head is complete */
        atomic_fetch_add(&d->active_requests, 1);
        atomic_fetch_add(&d->http_requests, 1);
        dlog(d, CZ_LOG_DEBUG, "%s %s", method, url);
        /* GET / (the status page) is the one request served without the
         * token: a browser cannot send a header on the first load, and the
         * page is static (every number on it comes from the endpoints
         * below, which the page calls with the token; docs/api.md). */
        bool page = !strcmp(url, "/") && !strcmp(method, "GET");
        if (d->token_len && !page) {
            const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
            const char *tok = NULL;
            size_t tl = 0;
            bool ok = cz_api_bearer(h, &tok, &tl);
            /* compare even when absent, so timing says nothing either way */
            if (!ok) {
                tok = "";
                tl = 0;
            }
            bool eq = cz_api_token_equal(d->token, d->token_len, tok, tl);
            if (!ok || !eq) {
                cs->responded = true;
                return send_error(d, c, 401, NULL,
                                  "missing or wrong bearer token (send 'Authorization: Bearer <token>')");
            }
        }
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(cl, &end, 10);
            if (errno || *end || v > d->cfg.max_body_bytes) {
                cs->responded = true;
                return send_error(d, c, 413, NULL,
                                  "request body of %s bytes exceeds max_body_bytes = %" PRIu64, cl,
                                  d->cfg.max_body_bytes);
            }
            uint64_t busy = atomic_load(&d->body_bytes);
            if (busy + v + 1 > d->cfg.max_inflight_body_bytes) {
                cs->responded = true;
                return send_error(d, c, 503, NULL,
                                  "request bodies being received hold %" PRIu64 " bytes; %s more would exceed "
                                  "max_inflight_body_bytes = %" PRIu64 " (retry shortly)",
                                  busy, cl, d->cfg.max_inflight_body_bytes);
            }
        }
        return MHD_YES;
    }
    if (cs->responded) {
        *upsize = 0;
        return MHD_YES;
    }
    if (*upsize) {
        size_t n = *upsize;
        atomic_fetch_add(&d->http_bytes_in, n);
        *upsize = 0;
        if (cs->too_big || cs->too_busy)
            return MHD_YES;
        if (cs->len + n > d->cfg.max_body_bytes) {
            cs->too_big = true;
            atomic_fetch_sub(&d->body_bytes, cs->cap);
            free(cs->body);
            cs->body = NULL;
            cs->len = cs->cap = 0;
            return MHD_YES;
        }
        if (cs->len + n + 1 > cs->cap) {
            size_t nc = cs->cap ? cs->cap : 4096;
            while (nc < cs->len + n + 1)
                nc *= 2;
            /* reserve the growth in the daemon-wide count first */
            uint64_t grow = nc - cs->cap, prev = atomic_fetch_add(&d->body_bytes, grow);
            bool busy = prev + grow > d->cfg.max_inflight_body_bytes;
            char *nb = busy ? NULL : realloc(cs->body, nc);
            if (!nb) {
                atomic_fetch_sub(&d->body_bytes, grow + cs->cap);
                if (busy)
                    cs->too_busy = true;
                else
                    cs->too_big = true;
                free(cs->body);
                cs->body = NULL;
                cs->len = cs->cap = 0;
                return MHD_YES;
            }
            cs->body = nb;
            cs->cap = nc;
        }
        memcpy(cs->body + cs->len, upload, n);
        cs->len += n;
        cs->body[cs->len] = 0;
        return MHD_YES;
    }
    cs->responded = true;
    if (cs->too_busy)
        return send_error(d, c, 503, NULL,
                          "request bodies being received would exceed max_inflight_body_bytes = %" PRIu64
                          " (retry shortly)",
                          d->cfg.max_inflight_body_bytes);
    if (cs->too_big)
        return send_error(d, c, 413, NULL, "request body exceeds max_body_bytes = %" PRIu64,
                          d->cfg.max_body_bytes);
    return dispatch(d, c, url, method, cs);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    cz_daemon *d = cls;
    conn_state *cs = *con_cls;
    if (cs) {
        atomic_fetch_sub(&d->body_bytes, cs->cap);
        free(cs->body);
        free(cs);
        *con_cls = NULL;
        atomic_fetch_sub(&d->active_requests, 1);
    }
    /* a kept-alive connection gets the same deadline for its next head */
    if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
        watch_arm(d, watch_of(c), true);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    cz_daemon *d = cls;
    if (d->cfg.log_level < CZ_LOG_DEBUG)
        return;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n')
        msg[--n] = 0;
    dlog(d, CZ_LOG_DEBUG, "http: %s", msg);
}

/* ---- listening -------------------------------------------------------- */

static cz_status listen_unix(cz_daemon *d, cz_errbuf *err)
{
    const char *path = d->addr.path;
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    cz_status st = cz_unix_socket_reclaim(path, err);
    if (st != CZ_OK)
        return st;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return cz_err(err, CZ_ERR_IO, "socket: %s", strerror(errno));
    /* Created 0600 (umask), then given the configured mode and group
     * before listen(): there is no window in which another user could
     * connect. */
    mode_t old = umask(0177);
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    umask(old);
    if (rc != 0) {
        close(fd);
        return cz_err(err, CZ_ERR_IO, "bind '%s': %s", path, strerror(e));
    }
    st = cz_unix_socket_perms(path, d->cfg.socket_mode, d->sock_gid, err);
    if (st != CZ_OK || listen(fd, 128) != 0) {
        e = errno;
        close(fd);
        unlink(path);
        return st != CZ_OK ? st : cz_err(err, CZ_ERR_IO, "listen '%s': %s", path, strerror(e));
    }
    struct stat sb;
    if (stat(path, &sb) == 0) {
        d->sock_dev = sb.st_dev;
        d->sock_ino = sb.st_ino;
    }
    d->listen_fd = fd;
    snprintf(d->address, sizeof d->address, "unix:%s", path);
    return CZ_OK;
}

static cz_status listen_tcp(cz_daemon *d, cz_errbuf *err)
{
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
    hints.ai_socktype = SOCK_STREAM;
    char port[8];
    snprintf(port, sizeof port, "%u", d->addr.port);
    int rc = getaddrinfo(d->addr.host, port, &hints, &ai);
    if (rc != 0)
        return cz_err(err, CZ_ERR_INVALID_ARG, "address '%s': %s", d->addr.host, gai_strerror(rc));
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        freeaddrinfo(ai);
        return cz_err(err, CZ_ERR_IO, "socket: %s", strerror(errno));
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ai->ai_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 128) != 0) {
        int e = errno;
        close(fd);
        freeaddrinfo(ai);
        return cz_err(err, CZ_ERR_IO, "bind/listen %s:%u: %s", d->addr.host, d->addr.port, strerror(e));
    }
    bool v6 = ai->ai_family == AF_INET6;
    freeaddrinfo(ai);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    unsigned bound = d->addr.port;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        bound = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port);
    d->listen_fd = fd;
    snprintf(d->address, sizeof d->address, v6 ? "tcp:[%s]:%u" : "tcp:%s:%u", d->addr.host, bound);
    return CZ_OK;
}

static cz_status load_token(cz_daemon *d, cz_errbuf *err)
{
    const char *path = d->cfg.token_file;
    FILE *f = fopen(path, "r");
    if (!f)
        return cz_err(err, CZ_ERR_INVALID_ARG, "cannot read token_file '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && (sb.st_mode & 077))
        dlog(d, CZ_LOG_WARN, "token_file '%s' is readable by group/others (chmod 600 it)", path);
    char line[sizeof d->token];
    if (!fgets(line, sizeof line, f))
        line[0] = 0;
    fclose(f);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
        line[--n] = 0;
    if (n < 8)
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "token_file '%s': the token (first line) must have at least 8 characters", path);
    memcpy(d->token, line, n + 1);
    d->token_len = n;
    memset(line, 0, sizeof line);
    return CZ_OK;
}

/* ---- lifecycle -------------------------------------------------------- */

/* ---- gRPC listener hooks ------------------------------------------------ */

static void grpc_log(void *arg, cz_log_level lvl, const char *line)
{
    dlog(arg, lvl, "%s", line);
}

/* GetMetrics: the same text as GET /metrics. */
static char *grpc_metrics_text(void *arg, size_t *len)
{
    return metrics_text(arg, len);
}

cz_status cz_daemon_create(cz_daemon **out, const cz_daemon_config *cfg, const cz_engine_backend *backend,
                           cz_errbuf *err)
{
    *out = NULL;
    cz_daemon *d = calloc(1, sizeof *d);
    if (!d)
        return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    d->cfg = *cfg;
    d->listen_fd = -1;
    clock_gettime(CLOCK_MONOTONIC, &d->started);
    atomic_init(&d->stopping, false);
    pthread_mutex_init(&d->wd_mu, NULL);
    pthread_mutex_init(&d->grpc_mu, NULL);
    {
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the watchdog's deadlines are monotonic */
        pthread_cond_init(&d->wd_cv, &ca);
        pthread_condattr_destroy(&ca);
    }
    char emsg[256];
    cz_status st;
    d->http_off = !strcmp(cfg->listen, "off");
    if (d->http_off && !cfg->grpc_listen[0]) {
        st = cz_err(err, CZ_ERR_INVALID_ARG, "daemon.listen = off and grpc.listen is empty: nothing to serve");
        goto fail;
    }
    if (!cfg->listen[0]) {
        st = cz_err(err, CZ_ERR_INVALID_ARG,
                    "daemon.listen is empty and there is no safe default socket here (XDG_RUNTIME_DIR is unset and "
                    "cuzkd is not root; a socket in a shared directory such as /tmp could be taken over by another "
                    "user): set --listen unix:/path in a directory only this user can write, or XDG_RUNTIME_DIR");
        goto fail;
    }
    if (d->http_off) {
        d->addr.loopback = true; /* no HTTP listener to guard */
        snprintf(d->address, sizeof d->address, "off");
    } else if (!cz_api_parse_listen(cfg->listen, &d->addr, emsg, sizeof emsg)) {
        st = cz_err(err, CZ_ERR_INVALID_ARG, "daemon.listen: %s", emsg);
        goto fail;
    }
    st = cz_group_lookup(cfg->socket_group, &d->sock_gid, err);
    if (st != CZ_OK)
        goto fail;
    if (cfg->token_file[0]) {
        st = load_token(d, err);
        if (st != CZ_OK)
            goto fail;
    }
    if (!d->addr.loopback && !d->token_len) {
        st = cz_err(err, CZ_ERR_INVALID_ARG,
                    "refusing to listen on non-loopback address %s:%u without a token: set daemon.token_file",
                    d->addr.host, d->addr.port);
        goto fail;
    }
    if (cfg->max_await_ms > (uint64_t)INT64_MAX / 2 || cfg->default_await_ms > (uint64_t)INT64_MAX / 2) {
        st = cz_err(err, CZ_ERR_INVALID_ARG, "await limits too large");
        goto fail;
    }

    cz_engine_config ec = cfg->engine;
    ec.backend = *backend;
    ec.timeline_cb = NULL;
    ec.on_job_done = on_job_end; /* the job-end log line */
    ec.on_job_done_arg = d;
    ec.timeline_file = NULL;
    if (cfg->timeline_file[0]) {
        if (!strcmp(cfg->timeline_file, "-")) {
            d->timeline = stderr;
        } else {
            d->timeline = fopen(cfg->timeline_file, "a");
            if (!d->timeline) {
                st = cz_err(err, CZ_ERR_IO, "cannot open timeline_file '%s': %s", cfg->timeline_file,
                            strerror(errno));
                goto fail;
            }
            d->timeline_owned = true;
        }
        ec.timeline_file = d->timeline;
    }
    if (!d->http_off) {
        st = d->addr.is_unix ? listen_unix(d, err) : listen_tcp(d, err);
        if (st != CZ_OK)
            goto fail;
    }
    if (!strcmp(cfg->store_backend, "postgres")) {
        /* before the engine: a database that cannot be reached is a
         * refusal to start (one line, naming it) */
        cz_store_node_config nc = {.cfg = &d->cfg, .log = grpc_log, .log_arg = d};
        st = cz_store_node_create(&d->node, &nc, err);
        if (st != CZ_OK)
            goto fail;
    }
    char msg[512] = "";
    st = cz_engine_create(&d->engine, &ec, msg, sizeof msg);
    if (st != CZ_OK) {
        cz_err(err, st, "engine: %s", msg[0] ? msg : cz_status_str(st));
        goto fail;
    }
    if (d->node) {
        cz_store_node_jobs(d->node, &d->jobs);
        st = cz_store_node_start(d->node, d->engine, err);
        if (st != CZ_OK)
            goto fail;
    } else {
        cz_jobs_memory(&d->jobs, d->engine);
    }
    if (cfg->grpc_listen[0]) {
        cz_grpc_config gc = {.engine = d->engine,
                             .jobs = &d->jobs,
                             .listen = cfg->grpc_listen,
                             .token = d->token,
                             .token_len = d->token_len,
                             .max_message_bytes = cfg->grpc_max_message_bytes,
                             .max_payload_bytes = cfg->max_payload_bytes,
                             .max_calls = cfg->grpc_max_calls,
                             .socket_mode = cfg->socket_mode,
                             .socket_gid = d->sock_gid,
                             .metrics = grpc_metrics_text,
                             .metrics_arg = d,
                             .log = grpc_log,
                             .log_arg = d,
                             .backend_name = cfg->backend};
        st = cz_grpc_server_start(&d->grpc, &gc, d->grpc_address, sizeof d->grpc_address, err);
        if (st != CZ_OK)
            goto fail;
    }
    if (d->http_off) {
        *out = d;
        return CZ_OK;
    }
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC |
                     MHD_USE_POLL | MHD_USE_ERROR_LOG;
    if (cfg->header_timeout_ms) {
        if (pthread_create(&d->wd_thread, NULL, watchdog_main, d) != 0) {
            st = cz_err(err, CZ_ERR_NOMEM, "cannot start the HTTP header watchdog thread");
            goto fail;
        }
        d->wd_started = true;
    }
    /* the per-peer limit only where peers have addresses (TCP): on a unix
     * socket MHD would count every client as one peer */
    unsigned per_peer = d->addr.is_unix ? 0 : cfg->max_connections_per_peer;
    struct MHD_OptionItem opts[] = {
        {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, d},
        {MHD_OPTION_LISTEN_SOCKET, d->listen_fd, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, cfg->max_connections, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, cfg->connection_timeout_s, NULL},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, d},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, 64 * 1024, NULL},
        {cfg->header_timeout_ms ? MHD_OPTION_NOTIFY_CONNECTION : MHD_OPTION_END, (intptr_t)on_connection, d},
        {per_peer ? MHD_OPTION_PER_IP_CONNECTION_LIMIT : MHD_OPTION_END, per_peer, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    /* MHD_OPTION_END ends the list: move the optional entries that are
     * off to the end */
    size_t nopt = 0;
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (opts[i].option != MHD_OPTION_END)
            opts[nopt++] = opts[i];
    opts[nopt] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    d->mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, d, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    if (!d->mhd) {
        st = cz_err(err, CZ_ERR_IO, "cannot start the HTTP server on %s", d->address);
        goto fail;
    }
    *out = d;
    return CZ_OK;
fail:
    watchdog_stop(d);
    cz_store_node_stop_claiming(d->node);
    if (d->grpc) {
        cz_engine_shutdown(d->engine);
        cz_grpc_server_destroy(d->grpc, 0);
    }
    if (d->engine)
        cz_engine_shutdown(d->engine);
    cz_store_node_destroy(d->node);
    d->node = NULL;
    if (d->engine)
        cz_engine_destroy(d->engine);
    if (d->listen_fd >= 0) {
        close(d->listen_fd);
        if (d->addr.is_unix)
            unlink(d->addr.path);
    }
    if (d->timeline_owned)
        fclose(d->timeline);
    memset(d->token, 0, sizeof d->token);
    pthread_mutex_destroy(&d->wd_mu);
    pthread_cond_destroy(&d->wd_cv);
    pthread_mutex_destroy(&d->grpc_mu);
    free(d);
    return st;
}

const char *cz_daemon_address(const cz_daemon *d)
{
    return d->address;
}

const char *cz_daemon_grpc_address(const cz_daemon *d)
{
    return d->grpc ? d->grpc_address : NULL;
}

cz_engine *cz_daemon_engine(cz_daemon *d)
{
    return d->engine;
}

void cz_daemon_shutdown(cz_daemon *d)
{
    if (!d || d->shut)
        return;
    d->shut = true;
    atomic_store(&d->stopping, true);
    if (d->mhd) {
        MHD_socket fd = MHD_quiesce_daemon(d->mhd);
        if (fd != MHD_INVALID_SOCKET)
            close(fd);
    } else if (d->listen_fd >= 0) {
        close(d->listen_fd);
    }
    d->listen_fd = -1;
    if (d->addr.is_unix) {
        /* unlink only our own socket (another daemon may have replaced it) */
        struct stat sb;
        if (stat(d->addr.path, &sb) == 0 && sb.st_dev == d->sock_dev && sb.st_ino == d->sock_ino)
            unlink(d->addr.path);
    }
    cz_grpc_server_quiesce(d->grpc);
    dlog(d, CZ_LOG_INFO, "stopped accepting connections; %s in-flight jobs",
         d->cfg.engine.drain_on_shutdown ? "draining" : "cancelling");
    /* store mode: no new claims; the engine's drain finishes (or cancels)
     * the sub-jobs, whose completions the node still writes */
    cz_store_node_stop_claiming(d->node);
    cz_engine_shutdown(d->engine);
    /* every job is terminal: waiting AwaitProof/Prove calls answer now */
    /* taken out under grpc_mu first: a GET /metrics on a connection still
     * open must not read the server while it is being freed */
    pthread_mutex_lock(&d->grpc_mu);
    cz_grpc_server *grpc = d->grpc;
    d->grpc = NULL;
    pthread_mutex_unlock(&d->grpc_mu);
    cz_grpc_server_destroy(grpc, CZ_DAEMON_SHUTDOWN_GRACE_MS);
    /* Every job is terminal now, so pending awaits are answering: let
     * their responses go out before the server closes connections (a
     * bounded grace for clients that are slow to read or to send). */
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (atomic_load(&d->active_requests) <= 0)
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 > CZ_DAEMON_SHUTDOWN_GRACE_MS) {
            dlog(d, CZ_LOG_WARN, "%lld requests still open after %d ms; closing them",
                 (long long)atomic_load(&d->active_requests), CZ_DAEMON_SHUTDOWN_GRACE_MS);
            break;
        }
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    if (d->mhd) {
        MHD_stop_daemon(d->mhd);
        d->mhd = NULL;
    }
    watchdog_stop(d); /* after MHD: every connection has been unlinked */
    /* no request uses the pool any more and every sub-job has ended:
     * store what finished, give back what did not */
    cz_store_node_destroy(d->node);
    d->node = NULL;
}

void cz_daemon_destroy(cz_daemon *d)
{
    if (!d)
        return;
    cz_daemon_shutdown(d);
    if (d->cfg.trace_file[0]) {
        FILE *f = fopen(d->cfg.trace_file, "w");
        if (!f || cz_engine_write_chrome_trace(d->engine, f) != CZ_OK)
            dlog(d, CZ_LOG_WARN, "cannot write trace_file '%s'", d->cfg.trace_file);
        else
            dlog(d, CZ_LOG_INFO, "wrote Chrome trace to %s", d->cfg.trace_file);
        if (f)
            fclose(f);
    }
    cz_engine_destroy(d->engine);
    if (d->timeline_owned)
        fclose(d->timeline);
    memset(d->token, 0, sizeof d->token);
    pthread_mutex_destroy(&d->wd_mu);
    pthread_cond_destroy(&d->wd_cv);
    pthread_mutex_destroy(&d->grpc_mu);
    free(d);
}

typedef struct {
    cz_daemon *d;
    atomic_bool done;
} shutdown_arg;

static void *shutdown_main(void *arg)
{
    shutdown_arg *a = arg;
    cz_daemon_shutdown(a->d);
    atomic_store(&a->done, true);
    return NULL;
}

static const char *sig_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM";
}

int cz_daemon_run(const cz_daemon_config *cfg, const cz_engine_backend *backend)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    cz_daemon *d = NULL;
    cz_errbuf err = {{0}};
    cz_status st = cz_daemon_create(&d, cfg, backend, &err);
    if (st != CZ_OK) {
        dlog(NULL, CZ_LOG_ERROR, "cannot start: %s", err.msg[0] ? err.msg : cz_status_str(st));
        return 1;
    }
    dlog(d, CZ_LOG_INFO, "ready: listening on %s%s%s (backend %s, budget %" PRIu64 " bytes%s)", d->address,
         d->grpc ? " and grpc on " : "", d->grpc ? d->grpc_address : "", cfg->backend, cz_engine_budget(d->engine),
         d->token_len ? ", token required" : "");
    /* SIGHUP reloads nothing (the configuration is read once): it is
     * logged and ignored rather than killing the daemon. */
    int sig = 0;
    for (;;) {
        if (sigwait(&set, &sig) != 0)
            continue;
        if (sig != SIGHUP)
            break;
        dlog(d, CZ_LOG_INFO, "received SIGHUP: nothing to reload (restart to apply a new configuration); ignored");
    }
    dlog(d, CZ_LOG_INFO, "received %s, shutting down (a second SIGTERM or SIGINT cancels running jobs now)",
         sig_name(sig));
    /* The shutdown runs on its own thread so that this one keeps taking
     * signals: a second stop signal means "cancel now". */
    shutdown_arg sa = {.d = d};
    atomic_init(&sa.done, false);
    pthread_t th;
    bool threaded = pthread_create(&th, NULL, shutdown_main, &sa) == 0;
    if (!threaded) {
        cz_daemon_shutdown(d);
    } else {
        while (!atomic_load(&sa.done)) {
            struct timespec ts = {0, 100000000L};
            int s2 = sigtimedwait(&set, NULL, &ts);
            if (s2 == SIGHUP) {
                dlog(d, CZ_LOG_INFO, "received SIGHUP while shutting down; ignored");
            } else if (s2 > 0) {
                size_t n = cz_engine_cancel_all(d->engine, "cancelled by a second stop signal");
                dlog(d, CZ_LOG_WARN, "received %s again: cancelled %zu running jobs", sig_name(s2), n);
            }
        }
        pthread_join(th, NULL);
    }
    cz_daemon_destroy(d);
    dlog(NULL, CZ_LOG_INFO, "stopped cleanly");
    return 0;
}
