/*
 * cuzkd's gRPC listener: the service cuzk.v1.ProvingEngine (Curio's
 * proving API, proto/cuzk/v1/proving.proto) over the engine, on gRPC's C
 * core (libgrpc) with protobuf-c messages.
 *
 * Threading: one accept thread takes new calls from the server's
 * completion queue; each call then runs on its own thread with its own
 * completion queue (all eight methods are unary; AwaitProof and Prove may
 * block for as long as a proof takes, so they must not hold a shared
 * thread). At most max_calls calls run at once; more are answered
 * RESOURCE_EXHAUSTED at once.
 *
 * Shutdown (cz_daemon_shutdown's order): cz_grpc_server_quiesce stops
 * taking new calls; the engine's shutdown then ends every job, which wakes
 * every waiting AwaitProof/Prove; cz_grpc_server_destroy lets those answer
 * (bounded grace), cancels what is left, joins every thread and removes
 * the unix socket.
 */
#ifndef CZ_DAEMON_GRPC_SERVER_H
#define CZ_DAEMON_GRPC_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "cuzk/common.h"
#include "cuzk/daemon.h"
#include "cuzk/engine.h"

typedef struct cz_grpc_server cz_grpc_server;

struct cz_jobs;

typedef struct {
    cz_engine *engine;
    /* submit/await/cancel go here (daemon/jobs.h: the engine, or the job
     * store in postgres mode); NULL = the engine's own calls */
    const struct cz_jobs *jobs;
    const char *listen;          /* as daemon.listen: "unix:/p", "/p", "HOST:PORT", "tcp:HOST:PORT", "[v6]:PORT" */
    const char *token;           /* expected bearer token (NULL/"" = none) */
    size_t token_len;
    uint64_t max_message_bytes;  /* both directions (Curio sets 256 MiB) */
    uint64_t max_payload_bytes;  /* vanilla_proof limit */
    unsigned max_calls;          /* concurrent calls */
    unsigned socket_mode;        /* unix socket permissions (e.g. 0660) */
    gid_t socket_gid;            /* (gid_t)-1: leave the group as created */
    /* Prometheus text of the whole daemon (malloc'd; *len set), for
     * GetMetrics; NULL: the engine's text and this listener's counters. */
    char *(*metrics)(void *arg, size_t *len);
    void *metrics_arg;
    /* One log line (no newline) at a cz_log_level. */
    void (*log)(void *arg, cz_log_level level, const char *line);
    void *log_arg;
    const char *backend_name;    /* GetStatus device names ("groth16 (CPU)", "test") */
} cz_grpc_config;

/* Binds and starts serving. A non-loopback TCP address without a token is
 * refused (CZ_ERR_INVALID_ARG), as is a unix socket where a live daemon
 * answers. bound receives the address actually bound ("unix:/p" or
 * "tcp:127.0.0.1:PORT", the real port when 0 was asked). */
CZ_WUR cz_status cz_grpc_server_start(cz_grpc_server **out, const cz_grpc_config *cfg, char *bound,
                                      size_t boundlen, cz_errbuf *err);
/* Stops taking new calls (calls in progress go on). Idempotent. */
void cz_grpc_server_quiesce(cz_grpc_server *s);
/* Quiesce, wait up to grace_ms for calls in progress, cancel the rest,
 * join, unlink the unix socket, free. NULL is a no-op. */
void cz_grpc_server_destroy(cz_grpc_server *s, unsigned grace_ms);
/* This listener's counters in the Prometheus text format; snprintf
 * semantics. */
size_t cz_grpc_server_metrics(cz_grpc_server *s, char *buf, size_t cap);

#endif
