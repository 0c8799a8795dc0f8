/*
 * cuzkd configuration: defaults, INI loading (libinih), "section.key=value"
 * overrides and printing of the resolved configuration. One table lists
 * every key once, so loading, --set and printing can never disagree.
 */
#include <errno.h>
#include <ini.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cuzk/daemon.h"

typedef enum { K_STR, K_U32, K_U64, K_SIZE, K_MS, K_BOOL, K_LOG, K_BUDGET, K_BACKEND, K_ZSIZE, K_VALIDATE, K_MODE,
               K_STORE, K_CONNINFO, K_NODEID, K_GPUS, K_DEVMEM } ktype;

typedef struct {
    const char *section, *key;
    ktype type;
    size_t off;
    size_t cap; /* K_STR: array size */
    uint64_t min, max;
} keydef;

#define OFF(f) offsetof(cz_daemon_config, f)
#define STR(sec, k, f) {sec, k, K_STR, OFF(f), sizeof(((cz_daemon_config *)0)->f), 0, 0}
static const keydef keys[] = {
    STR("daemon", "listen", listen),
    STR("daemon", "token_file", token_file),
    {"daemon", "max_body_bytes", K_U64, OFF(max_body_bytes), 0, 1024, UINT64_MAX},
    {"daemon", "max_inflight_body_bytes", K_U64, OFF(max_inflight_body_bytes), 0, 1024, UINT64_MAX},
    {"daemon", "max_payload_bytes", K_U64, OFF(max_payload_bytes), 0, 0, UINT64_MAX},
    {"daemon", "default_await_ms", K_MS, OFF(default_await_ms), 0, 0, UINT64_MAX},
    {"daemon", "max_await_ms", K_MS, OFF(max_await_ms), 0, 0, UINT64_MAX},
    {"daemon", "max_connections", K_U32, OFF(max_connections), 0, 1, 65536},
    {"daemon", "connection_timeout_s", K_U32, OFF(connection_timeout_s), 0, 0, 86400},
    {"daemon", "header_timeout_ms", K_MS, OFF(header_timeout_ms), 0, 0, 3600000},
    {"daemon", "max_connections_per_peer", K_U32, OFF(max_connections_per_peer), 0, 0, 65536},
    {"daemon", "log_level", K_LOG, OFF(log_level), 0, 0, 0},
    STR("daemon", "timeline_file", timeline_file),
    STR("daemon", "trace_file", trace_file),
    {"daemon", "socket_mode", K_MODE, OFF(socket_mode), 0, 0, 0777},
    STR("daemon", "socket_group", socket_group),
    STR("grpc", "listen", grpc_listen),
    {"grpc", "max_message_bytes", K_U64, OFF(grpc_max_message_bytes), 0, 1024, INT32_MAX},
    {"grpc", "max_calls", K_U32, OFF(grpc_max_calls), 0, 1, 65536},
    {"backend", "type", K_BACKEND, OFF(backend), sizeof(((cz_daemon_config *)0)->backend), 0, 0},
    STR("backend", "param_dir", param_dir),
    {"backend", "threads", K_U32, OFF(threads), 0, 0, 4096},
    {"backend", "auto_setup", K_BOOL, OFF(auto_setup), 0, 0, 0},
    {"backend", "params_validate", K_VALIDATE, OFF(params_validate_full), 0, 0, 0},
    STR("backend", "circuits", circuits),
    {"backend", "max_constraints", K_U64, OFF(max_constraints), 0, 1, 1ull << 32},
    {"backend", "msm_tables", K_U64, OFF(msm_tables_bytes), 0, 0, 1ull << 50},
    {"backend", "msm_tables_file", K_BOOL, OFF(msm_tables_file), 0, 0, 0},
    {"backend", "gpus", K_GPUS, OFF(gpus), sizeof(((cz_daemon_config *)0)->gpus), 0, 0},
    {"engine", "partition_workers", K_U32, OFF(engine.partition_workers), 0, 1, 4096},
    {"engine", "synthesis_lookahead", K_U32, OFF(engine.synthesis_lookahead), 0, 1, 4096},
    {"engine", "devices", K_U32, OFF(engine.devices), 0, 1, 64},
    {"engine", "workers_per_device", K_U32, OFF(engine.workers_per_device), 0, 1, 64},
    {"engine", "finalizers", K_U32, OFF(engine.finalizers), 0, 1, 4096},
    {"engine", "memory_budget", K_BUDGET, OFF(engine.memory_budget), 0, 0, UINT64_MAX},
    {"engine", "memory_safety_margin", K_U64, OFF(engine.memory_safety_margin), 0, 0, UINT64_MAX},
    {"engine", "eviction_min_idle_ms", K_MS, OFF(engine.eviction_min_idle_ms), 0, 0, UINT64_MAX},
    {"engine", "result_retention_ms", K_MS, OFF(engine.result_retention_ms), 0, 0, UINT64_MAX},
    {"engine", "result_retention_count", K_ZSIZE, OFF(engine.result_retention_count), 0, 1, 1u << 30},
    {"engine", "result_unread_max_bytes", K_U64, OFF(engine.result_unread_max_bytes), 0, 0, UINT64_MAX},
    {"engine", "records_capacity", K_ZSIZE, OFF(engine.records_capacity), 0, 0, 1u << 30},
    {"engine", "self_verify", K_BOOL, OFF(engine.self_verify), 0, 0, 0},
    {"engine", "drain_on_shutdown", K_BOOL, OFF(engine.drain_on_shutdown), 0, 0, 0},
    {"engine", "drain_timeout_ms", K_MS, OFF(engine.drain_timeout_ms), 0, 0, UINT64_MAX},
    {"engine", "start_paused", K_BOOL, OFF(engine.start_paused), 0, 0, 0},
    {"engine", "max_queued_jobs", K_U64, OFF(engine.max_queued_jobs), 0, 1, UINT64_MAX},
    {"engine", "max_queued_bytes", K_U64, OFF(engine.max_queued_bytes), 0, 0, UINT64_MAX},
    {"engine", "param_loaders", K_U32, OFF(engine.param_loaders), 0, 1, 64},
    {"engine", "device_quarantine_after", K_U32, OFF(engine.device_quarantine_after), 0, 0, 1000000},
    {"engine", "device_memory", K_DEVMEM, OFF(device_memory), 0, 0, UINT64_MAX - 1},
    {"store", "backend", K_STORE, OFF(store_backend), sizeof(((cz_daemon_config *)0)->store_backend), 0, 0},
    {"store", "conninfo", K_CONNINFO, OFF(store_conninfo), sizeof(((cz_daemon_config *)0)->store_conninfo), 0, 0},
    {"store", "node_id", K_NODEID, OFF(store_node_id), sizeof(((cz_daemon_config *)0)->store_node_id), 0, 0},
    {"store", "lease_ms", K_MS, OFF(store_lease_ms), 0, 100, 86400000},
    {"store", "max_attempts", K_U32, OFF(store_max_attempts), 0, 1, 1000},
    {"store", "await_poll_ms", K_MS, OFF(store_await_poll_ms), 0, 1, 3600000},
    {"store", "node_retention_ms", K_MS, OFF(store_node_retention_ms), 0, 0, 3650 * 86400000ull},
    {"store", "connections", K_U32, OFF(store_connections), 0, 1, 1024},
    {"test", "load_ms", K_U32, OFF(test_load_ms), 0, 0, 600000},
    {"test", "synth_ms", K_U32, OFF(test_synth_ms), 0, 0, 600000},
    {"test", "prove_ms", K_U32, OFF(test_prove_ms), 0, 0, 600000},
    {"test", "finish_ms", K_U32, OFF(test_finish_ms), 0, 0, 600000},
    {"test", "params_bytes", K_U64, OFF(test_params_bytes), 0, 0, UINT64_MAX},
    {"test", "partition_bytes", K_U64, OFF(test_partition_bytes), 0, 2, UINT64_MAX},
    {"test", "proof_bytes", K_U32, OFF(test_proof_bytes), 0, 8, 4096},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static const char *log_names[] = {"error", "warn", "info", "debug"};

void cz_daemon_default_listen(char *buf, size_t cap, const char *xdg, bool root)
{
    /* Never a world-writable directory (the old default was /tmp): there
     * another user can create the path first and receive every client's
     * requests and tokens, or simply keep the daemon from starting. The
     * per-user runtime directory (mode 0700, owned by the user) and root's
     * /run are safe; for anyone else there is no directory that is both
     * safe and known to the client, so there is no default and the daemon
     * refuses to start until listen is set. */
    if (!cap)
        return;
    if (xdg && *xdg && strlen(xdg) + sizeof "unix:/cuzkd.sock" <= cap)
        snprintf(buf, cap, "unix:%s/cuzkd.sock", xdg);
    else if (root)
        snprintf(buf, cap, "unix:/run/cuzkd/cuzkd.sock");
    else
        buf[0] = 0;
}

void cz_daemon_config_default(cz_daemon_config *c)
{
    memset(c, 0, sizeof *c);
    cz_daemon_default_listen(c->listen, sizeof c->listen, getenv("XDG_RUNTIME_DIR"), geteuid() == 0);
    c->max_body_bytes = 96ull << 20;
    c->max_inflight_body_bytes = 384ull << 20;
    c->max_payload_bytes = 64ull << 20;
    c->default_await_ms = 60000;
    c->max_await_ms = 3600000;
    c->max_connections = 256;
    c->connection_timeout_s = 120;
    c->header_timeout_ms = 10000;
    c->max_connections_per_peer = 64;
    c->log_level = CZ_LOG_INFO;
    c->socket_mode = 0600;
    c->grpc_max_message_bytes = 256ull << 20; /* what Curio's client sets */
    c->grpc_max_calls = 1024;
    snprintf(c->backend, sizeof c->backend, "groth16");
    snprintf(c->param_dir, sizeof c->param_dir, "%s", cz_default_param_dir());
    c->threads = 0;
    c->auto_setup = false;
    c->params_validate_full = false;
    c->msm_tables_file = true;
    c->circuits[0] = 0;                 /* every circuit the back-end knows */
    c->max_constraints = 1ull << 27;    /* CZ_PROVER_DEFAULT_MAX_CONSTRAINTS (cuzk/prover.h) */
    snprintf(c->gpus, sizeof c->gpus, "auto");
    c->device_memory = CZ_DAEMON_DEVICE_MEMORY_AUTO;
    c->engine_devices_set = false;
    c->test_load_ms = 0;
    c->test_synth_ms = 5;
    c->test_prove_ms = 5;
    c->test_finish_ms = 2;
    c->test_params_bytes = 1u << 20;
    c->test_partition_bytes = 2u << 20;
    c->test_proof_bytes = 192;
    snprintf(c->store_backend, sizeof c->store_backend, "memory");
    c->store_conninfo[0] = 0;
    /* leases are held by node id: the host name is unique per machine */
    if (gethostname(c->store_node_id, sizeof c->store_node_id - 1) != 0 || !c->store_node_id[0])
        snprintf(c->store_node_id, sizeof c->store_node_id, "cuzkd");
    c->store_node_id[sizeof c->store_node_id - 1] = 0;
    c->store_lease_ms = 60000;
    c->store_max_attempts = 3;
    c->store_await_poll_ms = 1000;
    c->store_node_retention_ms = 7 * 86400000ull;
    c->store_connections = 8;
    cz_engine_config_default(&c->engine);
}

/* The conninfo as printed: a password (key=value "password=..." or the
 * URI's "user:password@") is never shown. */
static void conninfo_masked(const char *ci, char *out, size_t cap)
{
    snprintf(out, cap, "%s", ci);
    char *p = strstr(out, "://");
    if (p) {
        char *at = strchr(p + 3, '@'), *colon = strchr(p + 3, ':');
        if (at && colon && colon < at && strlen(out) + 4 < cap) {
            memmove(colon + 4, at, strlen(at) + 1);
            memcpy(colon, ":***", 4);
        }
    }
    for (char *q = out; (q = strstr(q, "password")) != NULL; q += 8) {
        char *v = q + 8;
        while (*v == ' ')
            v++;
        if (*v != '=')
            continue;
        v++;
        while (*v == ' ')
            v++;
        char *end = v;
        if (*end == '\'') {
            for (end++; *end && *end != '\''; end++)
                if (*end == '\\' && end[1])
                    end++;
            if (*end)
                end++;
        } else {
            while (*end && *end != ' ')
                end++;
        }
        if (strlen(out) + 3 < cap) {
            memmove(v + 3, end, strlen(end) + 1);
            memcpy(v, "***", 3);
        }
    }
}

static bool parse_u64(const char *v, bool suffix, uint64_t *out)
{
    if (!v || !*v || *v == '-' || *v == '+')
        return false;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || end == v)
        return false;
    unsigned shift = 0;
    if (suffix && *end) {
        switch (*end) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        case 't': case 'T': shift = 40; break;
        default: return false;
        }
        end++;
        if (*end == 'i' || *end == 'I')
            end++;
        if (*end == 'b' || *end == 'B')
            end++;
    }
    if (*end)
        return false;
    if (shift && x > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)x << shift;
    return true;
}

static bool parse_bool(const char *v, bool *out)
{
    static const char *t[] = {"true", "yes", "on", "1"}, *f[] = {"false", "no", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(v, t[i])) {
            *out = true;
            return true;
        }
        if (!strcasecmp(v, f[i])) {
            *out = false;
            return true;
        }
    }
    return false;
}

cz_status cz_daemon_config_set(cz_daemon_config *c, const char *section, const char *key,
                               const char *value, cz_errbuf *err)
{
    const keydef *k = NULL;
    bool sec_known = false;
    for (size_t i = 0; i < NKEYS; i++) {
        if (!strcmp(keys[i].section, section)) {
            sec_known = true;
            if (!strcmp(keys[i].key, key)) {
                k = &keys[i];
                break;
            }
        }
    }
    if (!sec_known)
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "unknown config section [%s] (known: daemon, grpc, backend, store, engine, test)", section);
    if (!k)
        return cz_err(err, CZ_ERR_INVALID_ARG, "unknown config key '%s' in [%s]", key, section);
    char *base = (char *)c;
    uint64_t u;
    bool b;
    switch (k->type) {
    case K_STR:
        if (strlen(value) >= k->cap)
            return cz_err(err, CZ_ERR_INVALID_ARG, "%s.%s: value longer than %zu characters", section,
                          key, k->cap - 1);
        snprintf(base + k->off, k->cap, "%s", value);
        return CZ_OK;
    case K_GPUS: {
        /* auto | none | a comma-separated list of distinct CUDA device
         * numbers 0..63 (cz_prover_config.gpus; whether they exist is
         * checked when the back-end opens them) */
        bool ok = !strcmp(value, "auto") || !strcmp(value, "none");
        if (!ok && strlen(value) < k->cap) {
            uint64_t seen = 0;
            const char *q = value;
            ok = true;
            while (ok) {
                char *end;
                errno = 0;
                long v = (*q >= '0' && *q <= '9') ? strtol(q, &end, 10) : -1;
                if (v < 0 || v > 63 || errno || (seen >> v & 1)) {
                    ok = false;
                    break;
                }
                seen |= 1ull << v;
                q = end;
                if (!*q)
                    break;
                if (*q != ',' || !q[1])
                    ok = false;
                q++;
            }
        }
        if (!ok)
            return cz_err(err, CZ_ERR_INVALID_ARG,
                          "%s.%s must be auto, none or a comma-separated list of distinct CUDA device numbers "
                          "0..63 (\"0,1\"), got '%s'",
                          section, key, value);
        snprintf(base + k->off, k->cap, "%s", value);
        return CZ_OK;
    }
    case K_DEVMEM:
        if (!strcasecmp(value, "auto")) {
            *(uint64_t *)(base + k->off) = CZ_DAEMON_DEVICE_MEMORY_AUTO;
            return CZ_OK;
        }
        if (!parse_u64(value, true, &u) || u > k->max)
            return cz_err(err, CZ_ERR_INVALID_ARG,
                          "%s.%s must be auto, 0 (no device accounting) or bytes per device (K/M/G/T suffix), "
                          "got '%s'",
                          section, key, value);
        *(uint64_t *)(base + k->off) = u;
        return CZ_OK;
    case K_BACKEND:
        if (strcmp(value, "groth16") && strcmp(value, "test"))
            return cz_err(err, CZ_ERR_INVALID_ARG, "%s.%s must be 'groth16' or 'test', got '%s'",
                          section, key, value);
        snprintf(base + k->off, k->cap, "%s", value);
        return CZ_OK;
    case K_STORE:
        if (strcmp(value, "memory") && strcmp(value, "postgres"))
            return cz_err(err, CZ_ERR_INVALID_ARG, "%s.%s must be 'memory' or 'postgres', got '%s'",
                          section, key, value);
        snprintf(base + k->off, k->cap, "%s", value);
        return CZ_OK;
    case K_CONNINFO:
        /* the value is never echoed: it may hold a password */
        if (strlen(value) >= k->cap)
            return cz_err(err, CZ_ERR_INVALID_ARG, "%s.%s: value longer than %zu characters", section,
                          key, k->cap - 1);
        snprintf(base + k->off, k->cap, "%s", value);
        return CZ_OK;
    case K_NODEID: {
        /* the store's rule (cuzk/store.h): 1..127 printable ASCII */
        size_t n = strlen(value);
        bool ok = n >= 1 && n < k->cap;
        for (size_t i = 0; ok && i < n; i++)
            ok = value[i] > ' ' && value[i] < 127;
        if (!ok)
            return cz_err(err, CZ_ERR_INVALID_ARG,
                          "%s.%s must be 1..%zu printable ASCII characters without spaces, got '%s'", section,
                          key, k->cap - 1, value);
        snprintf(base + k->off, k->cap, "%s", value);
        return CZ_OK;
    }
    case K_BOOL:
        if (!parse_bool(value, &b))
            return cz_err(err, CZ_ERR_INVALID_ARG, "%s.%s must be true or false, got '%s'", section,
                          key, value);
        *(bool *)(base + k->off) = b;
        return CZ_OK;
    case K_VALIDATE:
        /* how a digest-checked Filecoin ceremony file is read (stored as
         * "full?"; local setups are always read fully) */
        if (strcasecmp(value, "trusted") && strcasecmp(value, "full"))
            return cz_err(err, CZ_ERR_INVALID_ARG, "%s.%s must be trusted or full, got '%s'", section, key,
                          value);
        *(bool *)(base + k->off) = !strcasecmp(value, "full");
        return CZ_OK;
    case K_MODE: {
        /* permission bits, octal as chmod takes them ("0660", "660") */
        char *end;
        errno = 0;
        unsigned long m = strtoul(value, &end, 8);
        if (!*value || *value == '-' || *value == '+' || *end || errno || m > k->max)
            return cz_err(err, CZ_ERR_INVALID_ARG, "%s.%s must be octal permission bits 0..0777, got '%s'",
                          section, key, value);
        *(unsigned *)(base + k->off) = (unsigned)m;
        return CZ_OK;
    }
    case K_LOG:
        for (int i = 0; i < 4; i++)
            if (!strcasecmp(value, log_names[i])) {
                *(cz_log_level *)(base + k->off) = (cz_log_level)i;
                return CZ_OK;
            }
        return cz_err(err, CZ_ERR_INVALID_ARG, "%s.%s must be error, warn, info or debug, got '%s'",
                      section, key, value);
    case K_BUDGET:
        if (!strcasecmp(value, "auto")) {
            *(uint64_t *)(base + k->off) = 0;
            return CZ_OK;
        }
        /* fall through */
    case K_U32:
    case K_U64:
    case K_SIZE:
    case K_ZSIZE:
    case K_MS:
        if (!parse_u64(value, k->type != K_MS && k->type != K_U32, &u) || u < k->min || u > k->max)
            return cz_err(err, CZ_ERR_INVALID_ARG,
                          "%s.%s must be an integer in %" PRIu64 "..%" PRIu64 "%s, got '%s'", section,
                          key, k->min, k->max,
                          k->type == K_BUDGET ? " (bytes, K/M/G/T suffix) or auto"
                          : (k->type == K_U64 || k->type == K_SIZE || k->type == K_ZSIZE)
                              ? " (K/M/G/T suffix allowed)"
                              : "",
                          value);
        if (k->off == OFF(engine.devices))
            c->engine_devices_set = true; /* else cuzkd takes the back-end's GPU count */
        if (k->type == K_U32)
            *(unsigned *)(base + k->off) = (unsigned)u;
        else if (k->type == K_ZSIZE || k->type == K_SIZE)
            *(size_t *)(base + k->off) = (size_t)u;
        else
            *(uint64_t *)(base + k->off) = u;
        return CZ_OK;
    }
    return CZ_ERR_INTERNAL;
}

cz_status cz_daemon_config_set_arg(cz_daemon_config *c, const char *arg, cz_errbuf *err)
{
    const char *dot = strchr(arg, '.');
    const char *eq = strchr(arg, '=');
    if (!dot || !eq || dot > eq || dot == arg || eq == dot + 1)
        return cz_err(err, CZ_ERR_INVALID_ARG, "--set expects section.key=value, got '%s'", arg);
    char sec[64], key[64];
    size_t sn = (size_t)(dot - arg), kn = (size_t)(eq - dot - 1);
    if (sn >= sizeof sec || kn >= sizeof key)
        return cz_err(err, CZ_ERR_INVALID_ARG, "--set: section or key too long in '%s'", arg);
    memcpy(sec, arg, sn);
    sec[sn] = 0;
    memcpy(key, dot + 1, kn);
    key[kn] = 0;
    return cz_daemon_config_set(c, sec, key, eq + 1, err);
}

typedef struct {
    cz_daemon_config *c;
    cz_errbuf *err;
    cz_status st;
    int line;
} load_ctx;

static int ini_cb(void *user, const char *section, const char *name, const char *value)
{
    load_ctx *l = user;
    if (l->st != CZ_OK)
        return 0;
    cz_errbuf e;
    cz_status st = cz_daemon_config_set(l->c, section, name, value ? value : "", &e);
    if (st != CZ_OK) {
        l->st = st;
        cz_err(l->err, st, "%s", e.msg);
        return 0;
    }
    return 1;
}

cz_status cz_daemon_config_load(cz_daemon_config *c, const char *path, cz_errbuf *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cz_err(err, CZ_ERR_IO, "cannot open config file '%s': %s", path, strerror(errno));
    load_ctx l = {c, err, CZ_OK, 0};
    int rc = ini_parse_file(f, ini_cb, &l);
    fclose(f);
    if (l.st != CZ_OK) {
        cz_errbuf e = {{0}};
        if (err)
            e = *err;
        return cz_err(err, l.st, "%s:%d: %s", path, rc, e.msg);
    }
    if (rc != 0)
        return cz_err(err, CZ_ERR_FORMAT, "%s:%d: syntax error", path, rc);
    return CZ_OK;
}

void cz_daemon_config_print(const cz_daemon_config *c, FILE *f)
{
    const char *sec = "";
    const char *base = (const char *)c;
    fprintf(f, "# cuzkd resolved configuration\n");
    for (size_t i = 0; i < NKEYS; i++) {
        const keydef *k = &keys[i];
        if (strcmp(sec, k->section)) {
            sec = k->section;
            fprintf(f, "[%s]\n", sec);
        }
        fprintf(f, "%s = ", k->key);
        switch (k->type) {
        case K_STR:
        case K_GPUS:
        case K_STORE:
        case K_NODEID:
        case K_BACKEND: fprintf(f, "%s\n", base + k->off); break;
        case K_CONNINFO: {
            char masked[sizeof c->store_conninfo];
            conninfo_masked(base + k->off, masked, sizeof masked);
            fprintf(f, "%s\n", masked);
            break;
        }
        case K_BOOL: fprintf(f, "%s\n", *(const bool *)(base + k->off) ? "true" : "false"); break;
        case K_VALIDATE: fprintf(f, "%s\n", *(const bool *)(base + k->off) ? "full" : "trusted"); break;
        case K_LOG: fprintf(f, "%s\n", log_names[*(const cz_log_level *)(base + k->off)]); break;
        case K_U32: fprintf(f, "%u\n", *(const unsigned *)(base + k->off)); break;
        case K_MODE: fprintf(f, "%04o\n", *(const unsigned *)(base + k->off)); break;
        case K_SIZE:
        case K_ZSIZE: fprintf(f, "%zu\n", *(const size_t *)(base + k->off)); break;
        case K_DEVMEM:
            if (*(const uint64_t *)(base + k->off) == CZ_DAEMON_DEVICE_MEMORY_AUTO) {
                fprintf(f, "auto\n");
                break;
            }
            fprintf(f, "%" PRIu64 "\n", *(const uint64_t *)(base + k->off));
            break;
        case K_BUDGET:
            if (*(const uint64_t *)(base + k->off) == 0) {
                fprintf(f, "auto\n");
                break;
            }
            /* fall through */
        case K_U64:
        case K_MS: fprintf(f, "%" PRIu64 "\n", *(const uint64_t *)(base + k->off)); break;
        }
    }
    fflush(f);
}
