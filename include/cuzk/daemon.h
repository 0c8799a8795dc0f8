/*
 * cuzk — cuzkd, the proving daemon: the engine (cuzk/engine.h) behind an
 * HTTP/JSON API (libmicrohttpd + jansson), configured by an INI file
 * (libinih) with command-line overrides. The API is documented in
 * docs/api.md, every configuration key in docs/cuzkd.ini.example.
 *
 * Listening: a unix socket by default (created mode 0600, so only the
 * owner can talk to it; where: cz_daemon_default_listen), or TCP. TCP on a loopback address is allowed
 * without a token; any other address refuses to start unless a bearer
 * token file is configured. When a token is configured every request must
 * carry "Authorization: Bearer <token>" (compared in constant time).
 *
 * Threading: cz_daemon_create starts the engine's threads and the HTTP
 * server (one thread per connection, so a long await never starves other
 * requests; awaits are bounded by max_await_ms). cz_daemon_shutdown and
 * cz_daemon_destroy must not race with each other.
 *
 * Durability: jobs live in memory; after a restart await answers 404
 * ("unknown job") and the client resubmits.
 */
#ifndef CUZK_DAEMON_H
#define CUZK_DAEMON_H

#include <stdio.h>
#include "cuzk/common.h"
#include "cuzk/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CZ_LOG_ERROR = 0, CZ_LOG_WARN, CZ_LOG_INFO, CZ_LOG_DEBUG } cz_log_level;

#define CZ_DAEMON_PATH_MAX 512

/* Every knob of the daemon. Strings are fixed arrays so a config can be
 * copied and freed with no ownership rules. Defaults: see
 * cz_daemon_config_default and docs/cuzkd.ini.example. */
typedef struct {
    /* [daemon] */
    char listen[CZ_DAEMON_PATH_MAX];     /* "unix:/path", "/path", "tcp:HOST:PORT", "HOST:PORT", "[v6]:PORT"; "off" = no HTTP */
    char token_file[CZ_DAEMON_PATH_MAX]; /* "" = no token; first line of the file = token */
    uint64_t max_body_bytes;             /* request body limit (default 96 MiB) */
    /* bodies being received on all connections together (default 384 MiB):
     * beyond it a request is answered 503 before its body is read */
    uint64_t max_inflight_body_bytes;
    uint64_t max_payload_bytes;          /* decoded payload limit (default 64 MiB) */
    uint64_t default_await_ms;           /* await/prove without timeout_ms (default 60000) */
    uint64_t max_await_ms;               /* cap on timeout_ms (default 3600000) */
    unsigned max_connections;            /* concurrent connections (default 256) */
    unsigned connection_timeout_s;       /* idle connection timeout (default 120) */
    /* A connection must have sent a complete request head (request line
     * and headers) within this long of being accepted, or of its previous
     * request ending, or it is closed: a real deadline, not an inactivity
     * timer, so a client trickling bytes cannot hold a slot (default
     * 10000; 0 = none). */
    uint64_t header_timeout_ms;
    /* TCP only: connections at once from one client address (default 64;
     * 0 = no limit). On a unix socket every peer has the same (empty)
     * address, so there it does not apply: who may connect at all is
     * decided by socket_mode/socket_group. */
    unsigned max_connections_per_peer;
    cz_log_level log_level;              /* default info */
    char timeline_file[CZ_DAEMON_PATH_MAX]; /* "" = none, "-" = stderr; else appended */
    char trace_file[CZ_DAEMON_PATH_MAX];    /* Chrome trace written at shutdown ("" = none) */
    /* unix sockets (HTTP and gRPC): permission bits (default 0600) and
     * group ("" = the daemon's; a name or a number), so a client running
     * as another user of that group can connect */
    unsigned socket_mode;
    char socket_group[64];
    /* [grpc] — Curio's cuzk.v1.ProvingEngine (docs/grpc.md) */
    char grpc_listen[CZ_DAEMON_PATH_MAX]; /* "" = off; same forms as listen */
    uint64_t grpc_max_message_bytes;      /* request and response limit (default 256 MiB) */
    unsigned grpc_max_calls;              /* concurrent calls (default 1024) */
    /* [backend] */
    char backend[16];                    /* "groth16" (production) | "test" (test double) */
    char param_dir[CZ_DAEMON_PATH_MAX];  /* parameter store (default "params") */
    unsigned threads;                    /* prover compute threads (0 = online CPUs) */
    bool auto_setup;                     /* create missing parameters by a local setup */
    bool params_validate_full;           /* params_validate = full (default trusted) */
    uint64_t msm_tables_bytes;           /* backend.msm_tables: MSM tables per parameter set (0 = none) */
    bool msm_tables_file;                /* backend.msm_tables_file: keep them in <param_dir>/<id>.tables */
    /* what a request can make the back-end build (cz_prover_config):
     * comma-separated ids or "prefix*" patterns ("" = all it knows), and
     * the largest constraint count (default 2^27) */
    char circuits[CZ_DAEMON_PATH_MAX];
    uint64_t max_constraints;
    /* GPUs (cz_prover_config.gpus): "auto" (default), "none" or "0,1,..." */
    char gpus[64];
    /* [engine] device_memory: the budget of every device, in bytes
     * (engine.device_memory[]); CZ_DAEMON_DEVICE_MEMORY_AUTO = each GPU's
     * free memory at start minus a reserve (the default); 0 = no device
     * accounting. engine_devices_set: engine.devices was configured (else
     * cuzkd uses the back-end's GPU count). */
    uint64_t device_memory;
    bool engine_devices_set;
    /* [test] — the test-double back-end (backend = test) */
    unsigned test_load_ms, test_synth_ms, test_prove_ms, test_finish_ms;
    uint64_t test_params_bytes, test_partition_bytes;
    unsigned test_proof_bytes;
    /* [store] — where jobs live (docs/store.md): "memory" (this daemon's
     * engine, the default) or "postgres" (a job table shared by every node
     * on the same database; the local engine proves claimed partitions) */
    char store_backend[16];
    char store_conninfo[1024];           /* libpq conninfo or URI (postgres) */
    char store_node_id[128];             /* default: the host name */
    uint64_t store_lease_ms;             /* claim lease (default 60000) */
    unsigned store_max_attempts;         /* lapsed leases before a job fails (default 3) */
    uint64_t store_await_poll_ms;        /* await re-reads at least this often (default 1000) */
    uint64_t store_node_retention_ms;    /* silent nodes' rows pruned after (default 7 days; 0 never) */
    unsigned store_connections;          /* connections for HTTP/gRPC requests (default 8) */
    /* [engine] — every engine knob; backend/timeline/callbacks are set by
     * the daemon and ignored here. */
    cz_engine_config engine;
} cz_daemon_config;

#define CZ_DAEMON_DEVICE_MEMORY_AUTO UINT64_MAX

void cz_daemon_config_default(cz_daemon_config *c);
/* The default daemon.listen, which `cuzk client` uses too (so the two
 * always agree): "unix:$XDG_RUNTIME_DIR/cuzkd.sock" when xdg_runtime_dir is
 * set (a per-user directory nobody else can write), else
 * "unix:/run/cuzkd/cuzkd.sock" for root, else "" (no default: a socket in
 * a world-writable directory such as /tmp could be squatted by another
 * user, so cz_daemon_create refuses an empty listen and says what to
 * set). Writes at most cap bytes; NULL xdg_runtime_dir = unset. */
void cz_daemon_default_listen(char *buf, size_t cap, const char *xdg_runtime_dir, bool root);
/* Sets one key ("engine", "partition_workers", "4"). Sizes accept K/M/G/T
 * suffixes (binary), booleans true/false/yes/no/on/off/1/0. An unknown
 * section or key, or a bad value, is an error naming it. */
CZ_WUR cz_status cz_daemon_config_set(cz_daemon_config *c, const char *section, const char *key,
                                      const char *value, cz_errbuf *err);
/* "section.key=value" (the --set syntax). */
CZ_WUR cz_status cz_daemon_config_set_arg(cz_daemon_config *c, const char *arg, cz_errbuf *err);
/* Loads an INI file over c (keys not in the file keep their value). */
CZ_WUR cz_status cz_daemon_config_load(cz_daemon_config *c, const char *path, cz_errbuf *err);
/* Prints the resolved configuration as INI (the token itself never). */
void cz_daemon_config_print(const cz_daemon_config *c, FILE *f);

typedef struct cz_daemon cz_daemon;

/* Creates the engine (over *backend, which must outlive the daemon), binds
 * the listen address and starts serving. Refuses (CZ_ERR_INVALID_ARG) a
 * non-loopback TCP address without a token, an unreadable or empty token
 * file, a unix socket path where a live daemon answers. */
CZ_WUR cz_status cz_daemon_create(cz_daemon **out, const cz_daemon_config *cfg,
                                  const cz_engine_backend *backend, cz_errbuf *err);
/* The address actually bound ("unix:/path" or "tcp:127.0.0.1:PORT" with
 * the real port when port 0 was configured). */
const char *cz_daemon_address(const cz_daemon *d);
/* The gRPC address bound (same forms), or NULL when grpc.listen is off. */
const char *cz_daemon_grpc_address(const cz_daemon *d);
cz_engine *cz_daemon_engine(cz_daemon *d);
/* Stops accepting connections, cancels queued jobs, drains or cancels
 * running ones (engine drain_on_shutdown, drain_timeout_ms), lets
 * in-progress requests answer, stops the server. Idempotent; cancelling
 * with cz_engine_cancel_all(cz_daemon_engine(d), ...) from another thread
 * ends the drain early. */
void cz_daemon_shutdown(cz_daemon *d);
/* shutdown + writes trace_file + frees everything (the engine too). */
void cz_daemon_destroy(cz_daemon *d);

/* Serves until SIGTERM or SIGINT, then shuts down cleanly; a second
 * SIGTERM/SIGINT during the drain cancels the running jobs; SIGHUP is
 * logged and ignored. Blocks those signals in the calling thread (threads
 * created afterwards inherit the mask). Returns a process exit code: 0 after a clean shutdown, 1 if the
 * daemon could not start. */
int cz_daemon_run(const cz_daemon_config *cfg, const cz_engine_backend *backend);

/* The test-double back-end (backend = test): circuits "test",
 * "test-<anything>" and porep-2k .. porep-64g (estimates from the [test] knobs; "test-huge" needs
 * 2^50 bytes per partition, for budget refusals). Payload tokens:
 * "fail=<prepare|synth|prove|finish|verify>:<partition>",
 * "synth_ms=N", "prove_ms=N", "finish_ms=N". Proof of partition k: byte i
 * = (fnv1a32(payload) + 7*k + i) & 0xff (see docs/api.md); verify checks
 * exactly this. */
CZ_WUR cz_status cz_daemon_test_backend_create(cz_engine_backend *out, const cz_daemon_config *cfg);
void cz_daemon_test_backend_destroy(cz_engine_backend *b);

/* The whole cuzkd program: options, config, back-end, run. */
int cz_daemon_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_DAEMON_H */
