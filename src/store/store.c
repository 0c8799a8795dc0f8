/*
 * The PostgreSQL job store (include/cuzk/store.h, docs/store.md).
 *
 * DESIGN
 *
 * Every call is one short transaction run by run_tx(), which owns the
 * failure handling: a serialization failure or a deadlock runs the body
 * again; a lost connection reconnects (once per call) and runs it again
 * when that is known to be safe (the COMMIT had not been sent, so the
 * server rolled the transaction back) or when the call is idempotent. A
 * body therefore must be re-runnable: it writes its outputs only from what
 * it read in this run.
 *
 * Lock order, the rule that keeps the calls from deadlocking each other:
 * a transaction that needs a job's row lock takes it FIRST (SELECT ... FOR
 * UPDATE on cuzk_jobs), then its partitions' rows; statements that lock
 * several partition rows lock them in (job_id, k) order (a CTE with ORDER
 * BY ... FOR UPDATE). The claim locks partition rows only, and with SKIP
 * LOCKED it never waits for one; the job's QUEUED -> RUNNING update that
 * follows a claim is a transaction of its own, so a claim never holds a
 * partition lock while waiting for a job lock. The retry on 40P01 is the
 * backstop, not the plan.
 *
 * Completion is serialized per job by the job's row lock, which is what
 * makes "exactly one completion per (job, k)" and "exactly one assembler"
 * simple: partitions_done is incremented under it, and the completion that
 * brings it to num_partitions records its node as the assembler.
 */
#include "cuzk/store.h"
#include "store/migrations.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

/* Every notification names its job: await filters on the payload. */
#define NOTIFY_JOB "cuzk_job_state"
/* Submissions and requeues, for nodes that want to wake on new work. */
#define NOTIFY_WORK "cuzk_work"
/* pg_advisory_xact_lock key serializing migrations between nodes
 * ("cuzk" in ASCII). */
#define MIGRATION_LOCK_KEY "1668641387"
/* Serialization failures / deadlocks retried inside one call. */
#define MAX_TX_RETRIES 8
/* Bytes of caller-supplied error text kept (a message, not a log). */
#define MAX_ERROR_TEXT 1000

/* Unix milliseconds of a timestamptz column, 0 for NULL. */
#define MS(col) "coalesce((extract(epoch FROM " col ") * 1000)::bigint, 0)"
#define LIVE_STATES "('queued', 'running')"
#define LEASE_SQL(param) "now() + " param "::bigint * interval '1 millisecond'"

enum fail_kind { FAIL_NONE = 0, FAIL_SQL, FAIL_CONN, FAIL_RETRY };

struct cz_store {
    PGconn *conn;
    char node_id[128];
    char *node_address;
    uint64_t lease_ms;
    uint32_t max_attempts;
    uint64_t retention_ms;
    uint64_t poll_ms;
    uint64_t node_retention_ms;
    bool observer;           /* an operator's connection: nothing registered */
    bool listening;          /* LISTEN cuzk_job_state done on this connection */
    bool notify_unsupported; /* the server refused LISTEN: await polls */
    enum fail_kind fail;     /* how the last failed statement failed */
    bool commit_unknown;     /* the last run_tx lost its COMMIT's answer */
    cz_store_stats stats;
};

/* ------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------ */

static const char *const state_names[] = {"queued", "running", "done", "failed", "cancelled"};

static cz_job_state state_parse(const char *s)
{
    for (int i = 0; i < 5; i++)
        if (strcmp(s, state_names[i]) == 0)
            return (cz_job_state)i;
    return CZ_JOB_FAILED; /* the CHECK constraint admits nothing else */
}

static bool state_terminal(cz_job_state st)
{
    return st == CZ_JOB_DONE || st == CZ_JOB_FAILED || st == CZ_JOB_CANCELLED;
}

const char *cz_store_lost_reason_str(cz_store_lost_reason r)
{
    switch (r) {
    case CZ_STORE_LOST_RECLAIMED: return "lease lapsed and reclaimed";
    case CZ_STORE_LOST_DONE: return "already completed";
    case CZ_STORE_LOST_JOB_ENDED: return "job ended";
    case CZ_STORE_LOST_GONE: return "no such partition";
    }
    return "unknown";
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* The first line of a libpq message (they end in "\n" and some carry a
 * second line of context). */
static void first_line(char *dst, size_t cap, const char *src)
{
    if (!src || !*src)
        src = "(no message)";
    size_t n = strcspn(src, "\n");
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

static bool valid_name(const char *s, size_t max)
{
    if (!s)
        return false;
    size_t n = strlen(s);
    if (n < 1 || n > max)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            return false;
    return true;
}

static uint64_t parse_u64(const char *s)
{
    return s ? strtoull(s, NULL, 10) : 0;
}

static int64_t parse_i64(const char *s)
{
    return s ? strtoll(s, NULL, 10) : 0;
}

static void copy_str(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

/* "database 'x' on '/tmp/d' port 5432", never the password */
static void describe_db(const cz_store *s, char *buf, size_t cap)
{
    const char *db = PQdb(s->conn), *host = PQhost(s->conn), *port = PQport(s->conn);
    snprintf(buf, cap, "database '%s' on '%s' port %s", db ? db : "?", host ? host : "?",
             port && *port ? port : "?");
}

/* ------------------------------------------------------------------------
 * Statements
 * ------------------------------------------------------------------------ */

/* Parameters of one statement: text values (NULL = SQL NULL), or binary
 * ones (bytea) with their length. */
typedef struct {
    int n;
    const char *v[10];
    int len[10];
    int fmt[10];
    char num[10][32];
} params;

static void p_text(params *p, const char *v)
{
    p->v[p->n] = v;
    p->len[p->n] = 0;
    p->fmt[p->n] = 0;
    p->n++;
}

static void p_u64(params *p, uint64_t v)
{
    snprintf(p->num[p->n], sizeof p->num[0], "%" PRIu64, v);
    p_text(p, p->num[p->n]);
}

static void p_i64(params *p, int64_t v)
{
    snprintf(p->num[p->n], sizeof p->num[0], "%" PRId64, v);
    p_text(p, p->num[p->n]);
}

/* bytea; data may be NULL only when len is 0 (an empty, non-NULL value) */
static void p_bin(params *p, const void *data, size_t len)
{
    p->v[p->n] = data ? (const char *)data : "";
    p->len[p->n] = (int)len;
    p->fmt[p->n] = 1;
    p->n++;
}

/* Classifies a failed result (r may be NULL) into s->fail and writes the
 * message: the step (what) and the server's primary message. The DETAIL
 * field is never used: for a constraint violation it quotes the whole row,
 * payload and proof included. Frees r. */
static void failed(cz_store *s, PGresult *r, cz_errbuf *err, const char *what)
{
    const char *code = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    char line[200];
    if (r && PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY))
        first_line(line, sizeof line, PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
    else
        first_line(line, sizeof line, PQerrorMessage(s->conn));
    /* class 08: connection exceptions; 57P01-57P03: the server is shutting
     * down, crashed, or not yet accepting connections */
    if (PQstatus(s->conn) != CONNECTION_OK || !code || strncmp(code, "08", 2) == 0 ||
        strncmp(code, "57P0", 4) == 0)
        s->fail = FAIL_CONN;
    else if (strcmp(code, "40001") == 0 || strcmp(code, "40P01") == 0)
        s->fail = FAIL_RETRY;
    else
        s->fail = FAIL_SQL;
    if (s->fail == FAIL_CONN)
        cz_err(err, CZ_ERR_IO, "%s: the connection to the database failed: %s", what, line);
    else
        cz_err(err, CZ_ERR_IO, "%s: %s (SQLSTATE %s)", what, line, code);
    PQclear(r);
}

/* Runs one statement. NULL on failure, with s->fail saying how and err
 * what (failed()). */
static PGresult *sq(cz_store *s, cz_errbuf *err, const char *what, const char *sql,
                    const params *p, int resfmt)
{
    PGresult *r = p ? PQexecParams(s->conn, sql, p->n, NULL, p->v, p->len, p->fmt, resfmt)
                    : PQexecParams(s->conn, sql, 0, NULL, NULL, NULL, NULL, resfmt);
    ExecStatusType rs = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (rs == PGRES_COMMAND_OK || rs == PGRES_TUPLES_OK) {
        s->fail = FAIL_NONE;
        return r;
    }
    failed(s, r, err, what);
    return NULL;
}

/* A statement whose result is not needed. */
static cz_status sx(cz_store *s, cz_errbuf *err, const char *what, const char *sql, const params *p)
{
    PGresult *r = sq(s, err, what, sql, p, 0);
    if (!r)
        return CZ_ERR_IO;
    PQclear(r);
    return CZ_OK;
}

/* The single bytea column of a one-row result, fetched in binary (no hex
 * doubling of a large payload), into a malloc'd copy (NULL + CZ_OK when
 * the row or the value is missing: *found says which). */
static cz_status fetch_bytea(cz_store *s, cz_errbuf *err, const char *what, const char *sql,
                             const params *p, uint8_t **out, size_t *len, bool *found)
{
    *out = NULL;
    *len = 0;
    *found = false;
    PGresult *r = sq(s, err, what, sql, p, 1);
    if (!r)
        return CZ_ERR_IO;
    if (PQntuples(r) == 1 && !PQgetisnull(r, 0, 0)) {
        size_t n = (size_t)PQgetlength(r, 0, 0);
        uint8_t *b = malloc(n ? n : 1);
        if (!b) {
            PQclear(r);
            return cz_err(err, CZ_ERR_NOMEM, "%s: cannot allocate %zu bytes", what, n);
        }
        memcpy(b, PQgetvalue(r, 0, 0), n);
        *out = b;
        *len = n;
        *found = true;
    }
    PQclear(r);
    return CZ_OK;
}

static cz_status notify_job(cz_store *s, cz_errbuf *err, cz_job_id id)
{
    params p = {0};
    p_u64(&p, id);
    return sx(s, err, "notify", "SELECT pg_notify('" NOTIFY_JOB "', $1)", &p);
}

/* ------------------------------------------------------------------------
 * Transactions, reconnection, retries
 * ------------------------------------------------------------------------ */

static bool reconnect(cz_store *s, const char *what, cz_errbuf *err)
{
    PQreset(s->conn);
    s->listening = false;
    if (PQstatus(s->conn) != CONNECTION_OK) {
        char db[300], line[200];
        describe_db(s, db, sizeof db);
        first_line(line, sizeof line, PQerrorMessage(s->conn));
        cz_err(err, CZ_ERR_IO, "%s: cannot reconnect to %s: %s", what, db, line);
        return false;
    }
    s->stats.reconnects++;
    return true;
}

typedef cz_status (*tx_body)(cz_store *s, void *ctx, cz_errbuf *err);

/* Runs body inside BEGIN ... COMMIT (see DESIGN). idempotent: safe to run
 * again after a COMMIT whose answer was lost. */
static cz_status run_tx(cz_store *s, const char *what, bool idempotent, tx_body body, void *ctx,
                        cz_errbuf *err)
{
    bool reconnected = false;
    unsigned retries = 0;
    s->commit_unknown = false;
    for (;;) {
        bool safe_to_rerun = true;
        if (PQstatus(s->conn) != CONNECTION_OK) {
            if (reconnected || !reconnect(s, what, err))
                return CZ_ERR_IO;
            reconnected = true;
        }
        cz_status st = sx(s, err, what, "BEGIN", NULL);
        if (st == CZ_OK) {
            st = body(s, ctx, err);
            if (st == CZ_OK) {
                st = sx(s, err, what, "COMMIT", NULL);
                if (st == CZ_OK)
                    return CZ_OK;
                /* the COMMIT was sent: whether it took effect is unknown
                 * unless the server answered (40001 at commit: rolled back) */
                safe_to_rerun = s->fail != FAIL_CONN || idempotent;
            } else if (s->fail != FAIL_CONN) {
                enum fail_kind f = s->fail;
                PGresult *r = PQexec(s->conn, "ROLLBACK");
                PQclear(r);
                s->fail = f;
            }
        }
        if (s->fail == FAIL_RETRY && retries < MAX_TX_RETRIES) {
            retries++;
            s->stats.retries++;
            continue;
        }
        if (s->fail != FAIL_CONN)
            return st; /* a real answer: the SQL error or the body's refusal */
        if (!safe_to_rerun) {
            s->commit_unknown = true;
            return cz_err(err, CZ_ERR_IO,
                          "%s: the connection to the database was lost during COMMIT: "
                          "the outcome is unknown", what);
        }
        if (reconnected)
            return st; /* once per call: the message says what failed */
        if (!reconnect(s, what, err))
            return CZ_ERR_IO;
        reconnected = true;
        s->stats.retries++;
    }
}

/* ------------------------------------------------------------------------
 * Open, migrations, close
 * ------------------------------------------------------------------------ */

void cz_store_config_default(cz_store_config *c)
{
    memset(c, 0, sizeof *c);
    c->lease_ms = 60000;
    c->max_attempts = 3;
    c->result_retention_ms = 600000;
    c->await_poll_ms = 1000;
    c->node_retention_ms = 7 * 86400000ull;
}

int cz_store_schema_version_known(void)
{
    return (int)cz_store_migrations_count;
}

void cz_store_get_stats(const cz_store *s, cz_store_stats *out)
{
    *out = s->stats;
}

/* The newest migration recorded in cuzk_schema_migrations (which must
 * exist), after checking that every recorded one is this build's. */
static cz_status schema_applied(cz_store *s, int *applied_out, cz_errbuf *err)
{
    const int known = (int)cz_store_migrations_count;
    PGresult *r = sq(s, err, "schema migration: reading cuzk_schema_migrations",
                     "SELECT version, name FROM cuzk_schema_migrations ORDER BY version", NULL, 0);
    if (!r)
        return CZ_ERR_IO;
    int applied = 0;
    for (int i = 0; i < PQntuples(r); i++) {
        int v = atoi(PQgetvalue(r, i, 0));
        const char *name = PQgetvalue(r, i, 1);
        if (v > known) {
            int newest = atoi(PQgetvalue(r, PQntuples(r) - 1, 0));
            cz_err(err, CZ_ERR_UNSUPPORTED,
                   "database schema version %d is newer than this build of cuzk knows (%d): "
                   "upgrade cuzk on this node (the database was not changed)", newest, known);
            PQclear(r);
            return CZ_ERR_UNSUPPORTED;
        }
        if (v < 1 || strcmp(name, cz_store_migrations[v - 1].name) != 0) {
            cz_err(err, CZ_ERR_MISMATCH,
                   "database schema migration %d is '%s' but this build's migration %d is '%s': "
                   "the database was set up by another line of cuzk", v, name, v,
                   v >= 1 ? cz_store_migrations[v - 1].name : "(none)");
            PQclear(r);
            return CZ_ERR_MISMATCH;
        }
        if (v > applied)
            applied = v;
    }
    PQclear(r);
    *applied_out = applied;
    return CZ_OK;
}

static cz_status migrate_body(cz_store *s, void *ctx, cz_errbuf *err)
{
    (void)ctx;
    const int known = (int)cz_store_migrations_count;
    /* two nodes starting together must not both create the tables; the
     * NOTICEs of CREATE ... IF NOT EXISTS are noise on every start */
    if (sx(s, err, "schema migration: client_min_messages",
           "SET LOCAL client_min_messages = warning", NULL) != CZ_OK ||
        sx(s, err, "schema migration: advisory lock",
           "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK_KEY ")", NULL) != CZ_OK ||
        sx(s, err, "schema migration: cuzk_schema_migrations",
           "CREATE TABLE IF NOT EXISTS cuzk_schema_migrations ("
           " version integer PRIMARY KEY, name text NOT NULL,"
           " applied_at timestamptz NOT NULL DEFAULT now(), applied_by text)", NULL) != CZ_OK)
        return CZ_ERR_IO;
    int applied = 0;
    cz_status st = schema_applied(s, &applied, err);
    if (st != CZ_OK)
        return st;
    for (int v = applied + 1; v <= known; v++) {
        const cz_store_migration *m = &cz_store_migrations[v - 1];
        char what[160];
        snprintf(what, sizeof what, "schema migration %04d_%s.sql", m->version, m->name);
        /* PQexec: a migration is several statements */
        PGresult *mr = PQexec(s->conn, m->sql);
        if (!mr || PQresultStatus(mr) != PGRES_COMMAND_OK) {
            failed(s, mr, err, what);
            return CZ_ERR_IO;
        }
        PQclear(mr);
        params p = {0};
        p_i64(&p, m->version);
        p_text(&p, m->name);
        p_text(&p, s->node_id);
        if (sx(s, err, what,
               "INSERT INTO cuzk_schema_migrations (version, name, applied_by) VALUES ($1, $2, $3)",
               &p) != CZ_OK)
            return CZ_ERR_IO;
    }
    return CZ_OK;
}

/* An operator's connection: the schema must be this build's, as it is. */
static cz_status observe_body(cz_store *s, void *ctx, cz_errbuf *err)
{
    (void)ctx;
    const int known = (int)cz_store_migrations_count;
    PGresult *r = sq(s, err, "schema check", "SELECT to_regclass('cuzk_schema_migrations') IS NOT NULL", NULL, 0);
    if (!r)
        return CZ_ERR_IO;
    bool exists = PQgetvalue(r, 0, 0)[0] == 't';
    PQclear(r);
    if (!exists)
        return cz_err(err, CZ_ERR_NOT_FOUND,
                      "this database has no cuzk job store (no cuzk_schema_migrations table): "
                      "a cuzkd node with [store] backend = postgres creates it at its first start");
    int applied = 0;
    cz_status st = schema_applied(s, &applied, err);
    if (st != CZ_OK)
        return st;
    if (applied < known)
        return cz_err(err, CZ_ERR_UNSUPPORTED,
                      "database schema version %d is older than this build of cuzk (%d): a node of this build "
                      "migrates it at its start (an operator's connection changes nothing)", applied, known);
    return CZ_OK;
}

static cz_status register_body(cz_store *s, void *ctx, cz_errbuf *err)
{
    (void)ctx;
    params p = {0};
    p_text(&p, s->node_id);
    p_text(&p, s->node_address);
    return sx(s, err, "registering the node in cuzk_nodes",
              "INSERT INTO cuzk_nodes (node_id, address) VALUES ($1, $2) "
              "ON CONFLICT (node_id) DO UPDATE SET address = EXCLUDED.address,"
              " started_at = now(), last_heartbeat = now()", &p);
}

cz_status cz_store_open(cz_store **out, const cz_store_config *cfg, cz_errbuf *err)
{
    if (!out || !cfg)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store configuration");
    *out = NULL;
    if (!cfg->conninfo || !*cfg->conninfo)
        return cz_err(err, CZ_ERR_INVALID_ARG, "store: conninfo is empty (a libpq connection string is required)");
    if (!cfg->observer && !valid_name(cfg->node_id, 127))
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "store: node id '%.140s' must be 1..127 printable ASCII characters",
                      cfg->node_id ? cfg->node_id : "");
    if (cfg->node_address && strlen(cfg->node_address) > 1000)
        return cz_err(err, CZ_ERR_INVALID_ARG, "store: node address is longer than 1000 characters");
    if (cfg->lease_ms < 1 || cfg->lease_ms > 86400000ull * 7)
        return cz_err(err, CZ_ERR_INVALID_ARG, "store: lease_ms %" PRIu64 " is outside 1..604800000", cfg->lease_ms);
    if (cfg->max_attempts < 1)
        return cz_err(err, CZ_ERR_INVALID_ARG, "store: max_attempts must be at least 1");
    if (cfg->await_poll_ms < 1 || cfg->await_poll_ms > 3600000)
        return cz_err(err, CZ_ERR_INVALID_ARG, "store: await_poll_ms %" PRIu64 " is outside 1..3600000", cfg->await_poll_ms);
    if (cfg->result_retention_ms > (uint64_t)INT64_MAX / 2)
        return cz_err(err, CZ_ERR_INVALID_ARG, "store: result_retention_ms %" PRIu64 " is too large", cfg->result_retention_ms);

    cz_store *s = calloc(1, sizeof *s);
    if (!s)
        return cz_err(err, CZ_ERR_NOMEM, "store: out of memory");
    copy_str(s->node_id, sizeof s->node_id, cfg->node_id ? cfg->node_id : "");
    s->observer = cfg->observer;
    s->node_retention_ms = cfg->node_retention_ms;
    s->node_address = cfg->node_address ? strdup(cfg->node_address) : NULL;
    s->lease_ms = cfg->lease_ms;
    s->max_attempts = cfg->max_attempts;
    s->retention_ms = cfg->result_retention_ms;
    s->poll_ms = cfg->await_poll_ms;
    /* expand_dbname: the "dbname" value is the whole conninfo string or
     * URI; the application name shows in pg_stat_activity */
    const char *keys[] = {"dbname", "fallback_application_name", NULL};
    const char *vals[] = {cfg->conninfo, "cuzk", NULL};
    s->conn = PQconnectdbParams(keys, vals, 1);
    if (!s->conn || PQstatus(s->conn) != CONNECTION_OK) {
        char line[200], db[300] = "the database";
        first_line(line, sizeof line, s->conn ? PQerrorMessage(s->conn) : "out of memory");
        if (s->conn)
            describe_db(s, db, sizeof db);
        cz_err(err, CZ_ERR_IO, "store: cannot connect to %s: %s", db, line);
        cz_store_close(s);
        return CZ_ERR_IO;
    }
    cz_status st;
    if (cfg->observer) {
        st = run_tx(s, "store: schema check", true, observe_body, NULL, err);
        if (st != CZ_OK && st != CZ_ERR_IO && err) {
            char m[sizeof err->msg];
            snprintf(m, sizeof m, "%s", err->msg);
            cz_err(err, st, "store: %s", m);
        }
    } else {
        st = run_tx(s, "store: schema migration", true, migrate_body, NULL, err);
        if (st == CZ_OK)
            st = run_tx(s, "store: node registration", true, register_body, NULL, err);
    }
    if (st != CZ_OK) {
        cz_store_close(s);
        return st;
    }
    *out = s;
    return CZ_OK;
}

void cz_store_close(cz_store *s)
{
    if (!s)
        return;
    PQfinish(s->conn);
    free(s->node_address);
    free(s);
}

/* ------------------------------------------------------------------------
 * Jobs
 * ------------------------------------------------------------------------ */

#define JOB_COLS                                                                              \
    "id, state, coalesce(error, ''), coalesce(failed_partition, -1), num_partitions,"          \
    " partitions_done, priority, circuit, coalesce(request_id, ''), coalesce(assembler, ''), " \
    MS("created_at") ", " MS("started_at") ", " MS("ended_at") ", " MS("retain_until")

static void job_from_row(const PGresult *r, int row, cz_store_job *j)
{
    memset(j, 0, sizeof *j);
    j->id = parse_u64(PQgetvalue(r, row, 0));
    j->state = state_parse(PQgetvalue(r, row, 1));
    copy_str(j->error, sizeof j->error, PQgetvalue(r, row, 2));
    j->failed_partition = (int32_t)parse_i64(PQgetvalue(r, row, 3));
    j->num_partitions = (uint32_t)parse_u64(PQgetvalue(r, row, 4));
    j->partitions_done = (uint32_t)parse_u64(PQgetvalue(r, row, 5));
    j->priority = (cz_priority)parse_u64(PQgetvalue(r, row, 6));
    copy_str(j->circuit_id, sizeof j->circuit_id, PQgetvalue(r, row, 7));
    copy_str(j->request_id, sizeof j->request_id, PQgetvalue(r, row, 8));
    copy_str(j->assembler, sizeof j->assembler, PQgetvalue(r, row, 9));
    j->created_ms = parse_i64(PQgetvalue(r, row, 10));
    j->started_ms = parse_i64(PQgetvalue(r, row, 11));
    j->ended_ms = parse_i64(PQgetvalue(r, row, 12));
    j->retain_until_ms = parse_i64(PQgetvalue(r, row, 13));
}

void cz_store_job_free(cz_store_job *j)
{
    if (!j)
        return;
    free(j->proof);
    j->proof = NULL;
    j->proof_len = 0;
}

/* ---- submit ---- */

typedef struct {
    const cz_store_job_request *req;
    const char *request_id; /* NULL when none */
    cz_job_id id;
    bool existing;
} submit_ctx;

static cz_status submit_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    submit_ctx *c = vctx;
    const cz_store_job_request *q = c->req;
    params p = {0};
    p_text(&p, c->request_id);
    p_text(&p, q->circuit_id);
    p_u64(&p, (uint64_t)q->priority);
    if (q->payload_uri)
        p_text(&p, NULL);
    else
        p_bin(&p, q->payload, q->payload_len);
    p_text(&p, q->payload_uri);
    p_u64(&p, q->num_partitions);
    p_text(&p, s->node_id);
    p_u64(&p, s->retention_ms);
    /* The partial unique index is the arbiter: a conflict means a live or
     * DONE job holds the id, and then nothing is inserted. */
    PGresult *r = sq(s, err, "inserting the job",
                     "INSERT INTO cuzk_jobs (request_id, circuit, priority, payload, payload_uri,"
                     " num_partitions, submitted_by, retention_ms)"
                     " VALUES ($1, $2, $3, $4::bytea, $5, $6, $7, $8)"
                     " ON CONFLICT (request_id) WHERE request_id IS NOT NULL"
                     " AND state NOT IN ('failed', 'cancelled') DO NOTHING RETURNING id",
                     &p, 0);
    if (!r)
        return CZ_ERR_IO;
    c->existing = false;
    if (PQntuples(r) == 0) {
        PQclear(r);
        /* payload compared by the server: it never travels back */
        params h = {0};
        p_text(&h, c->request_id);
        p_text(&h, q->circuit_id);
        p_u64(&h, q->num_partitions);
        if (q->payload_uri)
            p_text(&h, NULL);
        else
            p_bin(&h, q->payload, q->payload_len);
        p_text(&h, q->payload_uri);
        r = sq(s, err, "reading the job holding the request id",
               "SELECT id, (circuit = $2 AND num_partitions = $3::integer"
               " AND payload IS NOT DISTINCT FROM $4::bytea"
               " AND payload_uri IS NOT DISTINCT FROM $5::text)::text"
               " FROM cuzk_jobs WHERE request_id = $1 AND state NOT IN ('failed', 'cancelled')",
               &h, 0);
        if (!r)
            return CZ_ERR_IO;
        if (PQntuples(r) == 0) {
            /* the holder ended between the two statements: run again */
            PQclear(r);
            s->fail = FAIL_RETRY;
            return cz_err(err, CZ_ERR_IO, "request id '%s': its job ended while it was being submitted again",
                          c->request_id);
        }
        c->id = parse_u64(PQgetvalue(r, 0, 0));
        bool same = strcmp(PQgetvalue(r, 0, 1), "true") == 0;
        PQclear(r);
        if (!same)
            return cz_err(err, CZ_ERR_BUSY,
                          "request id '%s' is held by job %" PRIu64
                          " with another circuit, partition count or payload",
                          c->request_id, c->id);
        c->existing = true;
        return CZ_OK;
    }
    c->id = parse_u64(PQgetvalue(r, 0, 0));
    PQclear(r);
    params pp = {0};
    p_u64(&pp, c->id);
    if (sx(s, err, "inserting the job's partitions",
           "INSERT INTO cuzk_partitions (job_id, k, circuit, priority, job_created_at)"
           " SELECT j.id, g, j.circuit, j.priority, j.created_at"
           " FROM cuzk_jobs j, generate_series(0, j.num_partitions - 1) g WHERE j.id = $1",
           &pp) != CZ_OK ||
        sx(s, err, "notify", "SELECT pg_notify('" NOTIFY_WORK "', $1)", &pp) != CZ_OK)
        return CZ_ERR_IO;
    return CZ_OK;
}

cz_status cz_store_submit(cz_store *s, const cz_store_job_request *req, cz_job_id *id,
                          bool *existing, cz_errbuf *err)
{
    if (!s || !req || !id)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store, request or job id output");
    *id = 0;
    if (existing)
        *existing = false;
    if (!valid_name(req->circuit_id, 127))
        return cz_err(err, CZ_ERR_INVALID_ARG, "circuit id '%.140s' must be 1..127 printable ASCII characters",
                      req->circuit_id ? req->circuit_id : "");
    if (req->num_partitions < 1 || req->num_partitions > 65536)
        return cz_err(err, CZ_ERR_INVALID_ARG, "partition count %u is outside 1..65536", req->num_partitions);
    if ((unsigned)req->priority > CZ_PRIO_CRITICAL)
        return cz_err(err, CZ_ERR_INVALID_ARG, "priority %d is not one of low, normal, high, critical",
                      (int)req->priority);
    if (!req->payload && req->payload_len)
        return cz_err(err, CZ_ERR_INVALID_ARG, "payload is NULL with a length of %zu", req->payload_len);
    if (req->payload_len > 0x3fffffff)
        return cz_err(err, CZ_ERR_INVALID_ARG, "payload of %zu bytes is over the 1 GiB a bytea column holds",
                      req->payload_len);
    if (req->payload_uri && (req->payload || req->payload_len || !*req->payload_uri ||
                             strlen(req->payload_uri) > 4096))
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "payload_uri must be 1..4096 characters and comes instead of a payload, not with one");
    const char *rid = req->request_id && *req->request_id ? req->request_id : NULL;
    if (rid && !valid_name(rid, 255))
        return cz_err(err, CZ_ERR_INVALID_ARG, "request id must be at most 255 printable ASCII characters");
    submit_ctx c = {.req = req, .request_id = rid};
    /* with a request id, running it again finds the job it created */
    cz_status st = run_tx(s, "submit", rid != NULL, submit_body, &c, err);
    if (st != CZ_OK)
        return st;
    *id = c.id;
    if (existing)
        *existing = c.existing;
    return CZ_OK;
}

/* ---- get_job / await ---- */

typedef struct {
    cz_job_id id;
    const char *request_id;
    bool with_proof;
    cz_store_job *out;
} get_ctx;

static cz_status get_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    get_ctx *c = vctx;
    params p = {0};
    PGresult *r;
    if (c->request_id) {
        p_text(&p, c->request_id);
        r = sq(s, err, "reading the job", "SELECT " JOB_COLS " FROM cuzk_jobs WHERE request_id = $1"
               " ORDER BY (state NOT IN ('failed', 'cancelled')) DESC, id DESC LIMIT 1", &p, 0);
    } else {
        p_u64(&p, c->id);
        r = sq(s, err, "reading the job", "SELECT " JOB_COLS " FROM cuzk_jobs WHERE id = $1", &p, 0);
    }
    if (!r)
        return CZ_ERR_IO;
    if (PQntuples(r) == 0) {
        PQclear(r);
        if (c->request_id)
            return cz_err(err, CZ_ERR_NOT_FOUND, "no job holds request id '%s'", c->request_id);
        return cz_err(err, CZ_ERR_NOT_FOUND, "unknown job %" PRIu64, c->id);
    }
    cz_store_job_free(c->out);
    job_from_row(r, 0, c->out);
    PQclear(r);
    if (c->with_proof && c->out->state == CZ_JOB_DONE) {
        params pp = {0};
        p_u64(&pp, c->out->id);
        bool found;
        return fetch_bytea(s, err, "reading the job's proof", "SELECT proof FROM cuzk_jobs WHERE id = $1",
                           &pp, &c->out->proof, &c->out->proof_len, &found);
    }
    return CZ_OK;
}

cz_status cz_store_get_job(cz_store *s, cz_job_id id, bool with_proof, cz_store_job *out, cz_errbuf *err)
{
    if (!s || !out)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store or job output");
    memset(out, 0, sizeof *out);
    get_ctx c = {.id = id, .with_proof = with_proof, .out = out};
    return run_tx(s, "get job", true, get_body, &c, err);
}

cz_status cz_store_get_job_by_request(cz_store *s, const char *request_id, bool with_proof,
                                      cz_store_job *out, cz_errbuf *err)
{
    if (!s || !out || !request_id || !*request_id)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store, request id or job output");
    memset(out, 0, sizeof *out);
    get_ctx c = {.request_id = request_id, .with_proof = with_proof, .out = out};
    return run_tx(s, "get job by request id", true, get_body, &c, err);
}

/* LISTEN once per connection (a reconnect forgets it). A server without
 * LISTEN (feature_not_supported) leaves await to its polling. */
static void ensure_listening(cz_store *s)
{
    if (s->listening || s->notify_unsupported || PQstatus(s->conn) != CONNECTION_OK)
        return;
    PGresult *r = PQexec(s->conn, "LISTEN " NOTIFY_JOB);
    if (r && PQresultStatus(r) == PGRES_COMMAND_OK) {
        s->listening = true;
    } else if (r) {
        const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        if (code && strcmp(code, "0A000") == 0)
            s->notify_unsupported = true;
    }
    PQclear(r);
}

/* Takes every queued notification; true if there was one. */
static bool drain_notifies(cz_store *s)
{
    bool any = false;
    PGnotify *n;
    while ((n = PQnotifies(s->conn)) != NULL) {
        any = true;
        s->stats.notifies++;
        PQfreemem(n);
    }
    return any;
}

cz_status cz_store_await(cz_store *s, cz_job_id id, int64_t timeout_ms, cz_store_job *out,
                         cz_errbuf *err)
{
    if (!s || !out)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store or job output");
    memset(out, 0, sizeof *out);
    int64_t deadline = timeout_ms < 0 ? INT64_MAX : mono_ms() + timeout_ms;
    for (;;) {
        /* LISTEN before reading, so a change committed after the read
         * still wakes the wait below */
        ensure_listening(s);
        drain_notifies(s);
        cz_status st = cz_store_get_job(s, id, false, out, err);
        if (st == CZ_OK && out->state == CZ_JOB_DONE)
            st = cz_store_get_job(s, id, true, out, err);
        if (st != CZ_OK || state_terminal(out->state)) {
            drain_notifies(s); /* what the reads brought along is counted too */
            return st;
        }
        int64_t now = mono_ms();
        if (now >= deadline) {
            drain_notifies(s);
            return cz_err(err, CZ_ERR_TIMEOUT, "job %" PRIu64 " is still %s", id, state_names[out->state]);
        }
        if (drain_notifies(s)) /* arrived while reading: look again now */
            continue;
        int64_t wait = (int64_t)s->poll_ms;
        if (deadline - now < wait)
            wait = deadline - now;
        if (s->listening && PQsocket(s->conn) >= 0) {
            struct pollfd pfd = {.fd = PQsocket(s->conn), .events = POLLIN};
            int pr = poll(&pfd, 1, (int)wait);
            if (pr > 0 && !PQconsumeInput(s->conn))
                s->listening = false; /* broken: the next read reconnects */
            drain_notifies(s);
        } else {
            sleep_ms(wait);
        }
    }
}

/* ---- ending jobs ---- */

/* The job's unfinished partitions (queued or claimed) become FAILED with
 * reason; their holders learn it at their next heartbeat. */
static cz_status drop_partitions(cz_store *s, cz_errbuf *err, cz_job_id job, const char *reason)
{
    params p = {0};
    p_u64(&p, job);
    p_text(&p, reason);
    return sx(s, err, "dropping the job's unfinished partitions",
              "WITH l AS (SELECT job_id, k FROM cuzk_partitions WHERE job_id = $1"
              " AND state IN ('queued', 'claimed') ORDER BY k FOR UPDATE)"
              " UPDATE cuzk_partitions p SET state = 'failed', error = $2, lease_expires = NULL"
              " FROM l WHERE p.job_id = l.job_id AND p.k = l.k", &p);
}

/* Locks the job's row (the lock order's first step): its state, partition
 * count and done count. CZ_ERR_NOT_FOUND when there is none. */
static cz_status lock_job(cz_store *s, cz_errbuf *err, cz_job_id job, cz_job_state *st,
                          uint32_t *num, uint32_t *done, char *assembler, size_t acap)
{
    params p = {0};
    p_u64(&p, job);
    PGresult *r = sq(s, err, "locking the job",
                     "SELECT state, num_partitions, partitions_done, coalesce(assembler, '')"
                     " FROM cuzk_jobs WHERE id = $1 FOR UPDATE", &p, 0);
    if (!r)
        return CZ_ERR_IO;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return cz_err(err, CZ_ERR_NOT_FOUND, "unknown job %" PRIu64, job);
    }
    *st = state_parse(PQgetvalue(r, 0, 0));
    *num = (uint32_t)parse_u64(PQgetvalue(r, 0, 1));
    if (done)
        *done = (uint32_t)parse_u64(PQgetvalue(r, 0, 2));
    if (assembler)
        copy_str(assembler, acap, PQgetvalue(r, 0, 3));
    PQclear(r);
    return CZ_OK;
}

/* Makes a locked, live job terminal (FAILED / CANCELLED with error and
 * failed_k >= 0 naming the partition, or DONE with proof) and notifies. */
static cz_status end_job(cz_store *s, cz_errbuf *err, cz_job_id job, cz_job_state to,
                         const char *error, int64_t failed_k, const uint8_t *proof, size_t proof_len)
{
    params p = {0};
    p_u64(&p, job);
    p_text(&p, state_names[to]);
    p_text(&p, error);
    if (failed_k >= 0)
        p_i64(&p, failed_k);
    else
        p_text(&p, NULL);
    if (proof)
        p_bin(&p, proof, proof_len);
    else
        p_text(&p, NULL);
    if (sx(s, err, "ending the job",
           "UPDATE cuzk_jobs SET state = $2, error = $3, failed_partition = $4::integer,"
           " proof = $5::bytea, ended_at = now(),"
           " retain_until = now() + retention_ms * interval '1 millisecond',"
           " assemble_expires = NULL WHERE id = $1", &p) != CZ_OK)
        return CZ_ERR_IO;
    if (to != CZ_JOB_DONE) {
        char reason[64];
        snprintf(reason, sizeof reason, "dropped: job %s", state_names[to]);
        if (drop_partitions(s, err, job, reason) != CZ_OK)
            return CZ_ERR_IO;
    }
    return notify_job(s, err, job);
}

typedef struct {
    cz_job_id job;
    int64_t k;        /* fail_partition: the partition; -1 otherwise */
    const char *error;
    cz_job_state to;
    const uint8_t *proof;
    size_t proof_len;
    cz_job_state state; /* out: the state found, for CZ_ERR_BUSY */
} end_ctx;

static cz_status end_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    end_ctx *c = vctx;
    cz_job_state st;
    uint32_t num, done;
    cz_status rc = lock_job(s, err, c->job, &st, &num, &done, NULL, 0);
    if (rc != CZ_OK)
        return rc;
    c->state = st;
    if (state_terminal(st))
        return cz_err(err, CZ_ERR_BUSY, "job %" PRIu64 " is already %s", c->job, state_names[st]);
    if (c->k >= (int64_t)num)
        return cz_err(err, CZ_ERR_NOT_FOUND, "job %" PRIu64 " has %u partitions: no partition %" PRId64,
                      c->job, num, c->k);
    if (c->to == CZ_JOB_DONE && done < num)
        return cz_err(err, CZ_ERR_INVALID_ARG, "job %" PRIu64 " has %u of %u partitions done: it cannot be finished",
                      c->job, done, num);
    char msg[MAX_ERROR_TEXT + 64];
    const char *text = c->error;
    if (c->k >= 0) {
        snprintf(msg, sizeof msg, "partition %" PRId64 "/%u: %.*s", c->k, num, MAX_ERROR_TEXT, c->error);
        text = msg;
        params p = {0};
        p_u64(&p, c->job);
        p_i64(&p, c->k);
        p_text(&p, c->error);
        if (sx(s, err, "failing the partition",
               "UPDATE cuzk_partitions SET state = 'failed', error = left($3, 1000), lease_expires = NULL"
               " WHERE job_id = $1 AND k = $2 AND state <> 'done'", &p) != CZ_OK)
            return CZ_ERR_IO;
    } else if (text) {
        snprintf(msg, sizeof msg, "%.*s", MAX_ERROR_TEXT, text);
        text = msg;
    }
    rc = end_job(s, err, c->job, c->to, text, c->k, c->proof, c->proof_len);
    if (rc == CZ_OK)
        c->state = c->to;
    return rc;
}

static cz_status end_call(cz_store *s, const char *what, end_ctx *c, cz_job_state *state, cz_errbuf *err)
{
    cz_status st = run_tx(s, what, true, end_body, c, err);
    if (state && (st == CZ_OK || st == CZ_ERR_BUSY))
        *state = c->state;
    return st;
}

cz_status cz_store_cancel(cz_store *s, cz_job_id id, cz_job_state *state, cz_errbuf *err)
{
    if (!s)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store");
    end_ctx c = {.job = id, .k = -1, .error = "cancelled", .to = CZ_JOB_CANCELLED};
    return end_call(s, "cancel", &c, state, err);
}

cz_status cz_store_fail_partition(cz_store *s, cz_job_id job, uint32_t k, const char *error,
                                  cz_job_state *state, cz_errbuf *err)
{
    if (!s || !error || !*error)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store or no error text");
    end_ctx c = {.job = job, .k = k, .error = error, .to = CZ_JOB_FAILED};
    return end_call(s, "fail partition", &c, state, err);
}

cz_status cz_store_fail_job(cz_store *s, cz_job_id job, const char *error, cz_job_state *state,
                            cz_errbuf *err)
{
    if (!s || !error || !*error)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store or no error text");
    end_ctx c = {.job = job, .k = -1, .error = error, .to = CZ_JOB_FAILED};
    return end_call(s, "fail job", &c, state, err);
}

cz_status cz_store_finish_job(cz_store *s, cz_job_id job, const uint8_t *proof, size_t proof_len,
                              cz_job_state *state, cz_errbuf *err)
{
    if (!s || !proof || proof_len < 1 || proof_len > 0x3fffffff)
        return cz_err(err, CZ_ERR_INVALID_ARG, "finish job %" PRIu64 ": no proof, or one over 1 GiB", job);
    end_ctx c = {.job = job, .k = -1, .to = CZ_JOB_DONE, .proof = proof, .proof_len = proof_len};
    return end_call(s, "finish job", &c, state, err);
}

/* ---- prune ---- */

typedef struct {
    int64_t now_ms;
    size_t pruned;
} prune_ctx;

static cz_status prune_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    prune_ctx *c = vctx;
    params p = {0};
    p_i64(&p, c->now_ms);
    PGresult *r = sq(s, err, "deleting the jobs past retention",
                     "DELETE FROM cuzk_jobs WHERE retain_until < to_timestamp($1::double precision / 1000)"
                     " AND state IN ('done', 'failed', 'cancelled')", &p, 0);
    if (!r)
        return CZ_ERR_IO;
    c->pruned = (size_t)parse_u64(PQcmdTuples(r));
    PQclear(r);
    return CZ_OK;
}

cz_status cz_store_prune(cz_store *s, int64_t now_ms, size_t *pruned, cz_errbuf *err)
{
    if (!s)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store");
    prune_ctx c = {.now_ms = now_ms};
    cz_status st = run_tx(s, "prune", true, prune_body, &c, err);
    if (pruned)
        *pruned = st == CZ_OK ? c.pruned : 0;
    return st;
}

/* ---- nodes ---- */

static cz_status prune_nodes_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    prune_ctx *c = vctx;
    params p = {0};
    p_i64(&p, c->now_ms);
    p_u64(&p, s->node_retention_ms);
    p_text(&p, s->node_id);
    PGresult *r = sq(s, err, "deleting the rows of nodes gone silent",
                     "DELETE FROM cuzk_nodes n WHERE n.node_id <> $3 AND n.last_heartbeat"
                     " < to_timestamp(($1::bigint - $2::bigint)::double precision / 1000)"
                     " AND NOT EXISTS (SELECT 1 FROM cuzk_partitions p WHERE p.state = 'claimed'"
                     " AND p.lease_owner = n.node_id)"
                     " AND NOT EXISTS (SELECT 1 FROM cuzk_jobs j WHERE j.state = 'running'"
                     " AND j.assembler = n.node_id)", &p, 0);
    if (!r)
        return CZ_ERR_IO;
    c->pruned = (size_t)parse_u64(PQcmdTuples(r));
    PQclear(r);
    return CZ_OK;
}

cz_status cz_store_prune_nodes(cz_store *s, int64_t now_ms, size_t *pruned, cz_errbuf *err)
{
    if (pruned)
        *pruned = 0;
    if (!s)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store");
    if (s->observer)
        return cz_err(err, CZ_ERR_INVALID_ARG, "an operator's connection does not prune");
    if (!s->node_retention_ms)
        return CZ_OK;
    prune_ctx c = {.now_ms = now_ms};
    cz_status st = run_tx(s, "pruning nodes", true, prune_nodes_body, &c, err);
    if (pruned && st == CZ_OK)
        *pruned = c.pruned;
    return st;
}

typedef struct {
    cz_store_node_info *nodes;
    size_t n;
} list_nodes_ctx;

static cz_status list_nodes_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    list_nodes_ctx *c = vctx;
    free(c->nodes);
    c->nodes = NULL;
    c->n = 0;
    /* silent_ms on the database's clock: the operator's machine's clock
     * does not enter */
    PGresult *r = sq(s, err, "listing the nodes",
                     "SELECT n.node_id, coalesce(n.address, ''), " MS("n.started_at") ", " MS("n.last_heartbeat") ","
                     " greatest(0, (extract(epoch FROM now() - n.last_heartbeat) * 1000)::bigint),"
                     " (SELECT count(*) FROM cuzk_partitions p WHERE p.state = 'claimed' AND p.lease_owner = n.node_id),"
                     " (SELECT count(*) FROM cuzk_partitions p WHERE p.state = 'claimed' AND p.lease_owner = n.node_id"
                     "  AND p.lease_expires < now()),"
                     " (SELECT count(*) FROM cuzk_jobs j WHERE j.state = 'running' AND j.assembler = n.node_id),"
                     " (SELECT count(*) FROM cuzk_partitions p WHERE p.completed_by = n.node_id AND p.state = 'done')"
                     " FROM cuzk_nodes n ORDER BY n.node_id", NULL, 0);
    if (!r)
        return CZ_ERR_IO;
    size_t n = (size_t)PQntuples(r);
    c->nodes = calloc(n ? n : 1, sizeof *c->nodes);
    if (!c->nodes) {
        PQclear(r);
        return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        cz_store_node_info *o = &c->nodes[i];
        copy_str(o->node_id, sizeof o->node_id, PQgetvalue(r, (int)i, 0));
        copy_str(o->address, sizeof o->address, PQgetvalue(r, (int)i, 1));
        o->started_ms = parse_i64(PQgetvalue(r, (int)i, 2));
        o->heartbeat_ms = parse_i64(PQgetvalue(r, (int)i, 3));
        o->silent_ms = parse_i64(PQgetvalue(r, (int)i, 4));
        o->claimed = (uint32_t)parse_u64(PQgetvalue(r, (int)i, 5));
        o->claimed_lapsed = (uint32_t)parse_u64(PQgetvalue(r, (int)i, 6));
        o->assembling = (uint32_t)parse_u64(PQgetvalue(r, (int)i, 7));
        o->completed = parse_u64(PQgetvalue(r, (int)i, 8));
    }
    c->n = n;
    PQclear(r);
    return CZ_OK;
}

cz_status cz_store_list_nodes(cz_store *s, cz_store_node_info **nodes, size_t *n, cz_errbuf *err)
{
    if (!nodes || !n)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no output for the node list");
    *nodes = NULL;
    *n = 0;
    if (!s)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store");
    list_nodes_ctx c = {0};
    cz_status st = run_tx(s, "listing the nodes", true, list_nodes_body, &c, err);
    if (st != CZ_OK) {
        free(c.nodes);
        return st;
    }
    *nodes = c.nodes;
    *n = c.n;
    return CZ_OK;
}

/* ------------------------------------------------------------------------
 * Partitions
 * ------------------------------------------------------------------------ */

/* ---- claim ---- */

typedef struct {
    void **bufs;  /* payload copies and URI strings, one or two per job */
    size_t n;
} claim_priv;

void cz_store_claimed_set_free(cz_store_claimed_set *set)
{
    if (!set)
        return;
    claim_priv *p = set->priv_;
    if (p) {
        for (size_t i = 0; i < p->n; i++)
            free(p->bufs[i]);
        free(p->bufs);
        free(p);
    }
    free(set->parts);
    memset(set, 0, sizeof *set);
}

typedef struct {
    uint32_t max;
    const char *circuits; /* text[] literal or NULL */
    cz_store_claimed_set *out;
} claim_ctx;

/* The claim's order: priority (higher first), job age, job, partition. */
typedef struct {
    cz_store_claimed part;
    double created;
} claim_key;

static int claim_key_cmp(const void *a, const void *b)
{
    const claim_key *x = a, *y = b;
    if (x->part.priority != y->part.priority)
        return x->part.priority > y->part.priority ? -1 : 1;
    if (x->created != y->created)
        return x->created < y->created ? -1 : 1;
    if (x->part.job != y->part.job)
        return x->part.job < y->part.job ? -1 : 1;
    return x->part.k < y->part.k ? -1 : x->part.k > y->part.k;
}

static bool priv_push(claim_priv *p, void *buf)
{
    void **nb = realloc(p->bufs, (p->n + 1) * sizeof *nb);
    if (!nb)
        return false;
    p->bufs = nb;
    p->bufs[p->n++] = buf;
    return true;
}

static cz_status claim_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    claim_ctx *c = vctx;
    cz_store_claimed_set_free(c->out); /* a run again starts from nothing */
    params p = {0};
    p_u64(&p, c->max);
    p_text(&p, c->circuits);
    p_text(&p, s->node_id);
    p_u64(&p, s->lease_ms);
    PGresult *r = sq(s, err, "claiming partitions",
                     "WITH c AS (SELECT job_id, k FROM cuzk_partitions WHERE state = 'queued'"
                     " AND ($2::text[] IS NULL OR circuit = ANY ($2::text[])"
                     /* "prefix*" entries: every circuit id starting with prefix */
                     " OR EXISTS (SELECT 1 FROM unnest($2::text[]) f WHERE right(f, 1) = '*'"
                     " AND left(circuit, length(f) - 1) = left(f, length(f) - 1)))"
                     " ORDER BY priority DESC, job_created_at, job_id, k LIMIT $1"
                     " FOR UPDATE SKIP LOCKED)"
                     " UPDATE cuzk_partitions p SET state = 'claimed', lease_owner = $3,"
                     " lease_expires = " LEASE_SQL("$4") ", attempts = p.attempts + 1,"
                     " claimed_at = now() FROM c WHERE p.job_id = c.job_id AND p.k = c.k"
                     " RETURNING p.job_id, p.k, p.circuit, p.priority, p.attempts, "
                     MS("p.lease_expires") ", extract(epoch FROM p.job_created_at)", &p, 0);
    if (!r)
        return CZ_ERR_IO;
    size_t n = (size_t)PQntuples(r);
    if (n == 0) {
        PQclear(r);
        return CZ_OK;
    }
    /* RETURNING has no order: restore the claim's */
    claim_key *keys = calloc(n, sizeof *keys);
    cz_store_claimed *parts = calloc(n, sizeof *parts);
    claim_priv *priv = calloc(1, sizeof *priv);
    if (!keys || !parts || !priv) {
        free(keys);
        free(parts);
        free(priv);
        PQclear(r);
        return cz_err(err, CZ_ERR_NOMEM, "claim: out of memory for %zu partitions", n);
    }
    for (size_t i = 0; i < n; i++) {
        cz_store_claimed *q = &keys[i].part;
        q->job = parse_u64(PQgetvalue(r, (int)i, 0));
        q->k = (uint32_t)parse_u64(PQgetvalue(r, (int)i, 1));
        copy_str(q->circuit_id, sizeof q->circuit_id, PQgetvalue(r, (int)i, 2));
        q->priority = (cz_priority)parse_u64(PQgetvalue(r, (int)i, 3));
        q->attempts = (uint32_t)parse_u64(PQgetvalue(r, (int)i, 4));
        q->lease_expires_ms = parse_i64(PQgetvalue(r, (int)i, 5));
        keys[i].created = strtod(PQgetvalue(r, (int)i, 6), NULL);
    }
    PQclear(r);
    qsort(keys, n, sizeof *keys, claim_key_cmp);
    for (size_t i = 0; i < n; i++)
        parts[i] = keys[i].part;
    free(keys);
    c->out->parts = parts;
    c->out->n = n;
    c->out->priv_ = priv;
    /* the payload once per job */
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = i; j-- > 0 && !seen;) {
            if (parts[j].job == parts[i].job) {
                parts[i].num_partitions = parts[j].num_partitions;
                parts[i].payload = parts[j].payload;
                parts[i].payload_len = parts[j].payload_len;
                parts[i].payload_uri = parts[j].payload_uri;
                seen = true;
            }
        }
        if (seen)
            continue;
        params pj = {0};
        p_u64(&pj, parts[i].job);
        r = sq(s, err, "reading the claimed job", "SELECT num_partitions, payload_uri FROM cuzk_jobs WHERE id = $1",
               &pj, 0);
        if (!r)
            return CZ_ERR_IO;
        if (PQntuples(r) != 1) {
            PQclear(r);
            return cz_err(err, CZ_ERR_INTERNAL, "claimed partition %u of job %" PRIu64 " has no job row",
                          parts[i].k, parts[i].job);
        }
        parts[i].num_partitions = (uint32_t)parse_u64(PQgetvalue(r, 0, 0));
        if (!PQgetisnull(r, 0, 1)) {
            char *uri = strdup(PQgetvalue(r, 0, 1));
            PQclear(r);
            if (!uri || !priv_push(priv, uri)) {
                free(uri);
                return cz_err(err, CZ_ERR_NOMEM, "claim: out of memory for a payload URI");
            }
            parts[i].payload_uri = uri;
            continue;
        }
        PQclear(r);
        uint8_t *buf;
        size_t len;
        bool found;
        cz_status st = fetch_bytea(s, err, "reading the claimed job's payload",
                                   "SELECT payload FROM cuzk_jobs WHERE id = $1", &pj, &buf, &len, &found);
        if (st != CZ_OK)
            return st;
        if (!buf)
            buf = calloc(1, 1);
        if (!buf || !priv_push(priv, buf)) {
            free(buf);
            return cz_err(err, CZ_ERR_NOMEM, "claim: out of memory for a payload of %zu bytes", len);
        }
        parts[i].payload = buf;
        parts[i].payload_len = len;
    }
    return CZ_OK;
}

/* A text[] literal of the circuit ids: each element double-quoted, with
 * backslash before " and \ (the array input syntax). */
static char *circuits_literal(const char *const *circuits, size_t n, cz_status *st, cz_errbuf *err)
{
    *st = CZ_ERR_INVALID_ARG;
    size_t cap = 3;
    for (size_t i = 0; i < n; i++) {
        if (!valid_name(circuits[i], 127)) {
            cz_err(err, CZ_ERR_INVALID_ARG, "claim: circuit filter entry %zu is not a valid circuit id", i);
            return NULL;
        }
        cap += 2 * strlen(circuits[i]) + 3;
    }
    char *lit = malloc(cap), *w = lit;
    if (!lit) {
        *st = cz_err(err, CZ_ERR_NOMEM, "claim: out of memory for the circuit filter");
        return NULL;
    }
    *w++ = '{';
    for (size_t i = 0; i < n; i++) {
        if (i)
            *w++ = ',';
        *w++ = '"';
        for (const char *q = circuits[i]; *q; q++) {
            if (*q == '"' || *q == '\\')
                *w++ = '\\';
            *w++ = *q;
        }
        *w++ = '"';
    }
    *w++ = '}';
    *w = 0;
    return lit;
}

cz_status cz_store_claim(cz_store *s, uint32_t max_partitions, const char *const *circuits,
                         size_t ncircuits, cz_store_claimed_set *out, cz_errbuf *err)
{
    if (!s || !out)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store or claim output");
    memset(out, 0, sizeof *out);
    if (max_partitions < 1 || max_partitions > 65536)
        return cz_err(err, CZ_ERR_INVALID_ARG, "claim: max_partitions %u is outside 1..65536", max_partitions);
    if (ncircuits && !circuits)
        return cz_err(err, CZ_ERR_INVALID_ARG, "claim: %zu circuits but no list", ncircuits);
    char *lit = NULL;
    cz_status st;
    if (ncircuits && !(lit = circuits_literal(circuits, ncircuits, &st, err)))
        return st;
    claim_ctx c = {.max = max_partitions, .circuits = lit, .out = out};
    st = run_tx(s, "claim", false, claim_body, &c, err);
    free(lit);
    if (st != CZ_OK) {
        cz_store_claimed_set_free(out);
        if (s->commit_unknown)
            cz_err(err, st, "claim: the connection to the database was lost during COMMIT: "
                   "partitions may have been claimed (they return to the queue when their lease lapses)");
        return st;
    }
    if (out->n == 0)
        return CZ_OK;
    /* QUEUED -> RUNNING in a transaction of its own (see DESIGN: a claim
     * must not wait for a job lock while it holds partition locks). If it
     * fails, the claim still stands: the first completion sets RUNNING. */
    char *ids = malloc(out->n * 21 + 3);
    if (ids) {
        char *w = ids;
        *w++ = '{';
        for (size_t i = 0; i < out->n; i++)
            w += sprintf(w, "%s%" PRIu64, i ? "," : "", out->parts[i].job);
        *w++ = '}';
        *w = 0;
        params p = {0};
        p_text(&p, ids);
        PGresult *r = PQexecParams(s->conn,
                                   "WITH u AS (UPDATE cuzk_jobs SET state = 'running', started_at = now()"
                                   " WHERE id = ANY ($1::bigint[]) AND state = 'queued' RETURNING id)"
                                   " SELECT pg_notify('" NOTIFY_JOB "', id::text) FROM u",
                                   p.n, NULL, p.v, p.len, p.fmt, 0);
        PQclear(r);
        free(ids);
    }
    return CZ_OK;
}

/* ---- heartbeat ---- */

typedef struct {
    const cz_store_part *held;
    size_t nheld;
    cz_store_lost *lost;
    size_t nlost;
} hb_ctx;

static int part_cmp(const void *a, const void *b)
{
    const cz_store_part *x = a, *y = b;
    if (x->job != y->job)
        return x->job < y->job ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

static cz_status hb_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    hb_ctx *c = vctx;
    free(c->lost);
    c->lost = NULL;
    c->nlost = 0;
    params pn = {0};
    p_text(&pn, s->node_id);
    p_text(&pn, s->node_address);
    if (sx(s, err, "recording the heartbeat",
           "INSERT INTO cuzk_nodes (node_id, address) VALUES ($1, $2)"
           " ON CONFLICT (node_id) DO UPDATE SET last_heartbeat = now()", &pn) != CZ_OK)
        return CZ_ERR_IO;
    params p = {0};
    p_text(&p, s->node_id);
    p_u64(&p, s->lease_ms);
    if (sx(s, err, "renewing the assembly leases",
           "UPDATE cuzk_jobs SET assemble_expires = " LEASE_SQL("$2")
           " WHERE assembler = $1 AND state = 'running'", &p) != CZ_OK)
        return CZ_ERR_IO;
    PGresult *r = sq(s, err, "renewing the partition leases",
                     "WITH l AS (SELECT p.job_id, p.k FROM cuzk_partitions p JOIN cuzk_jobs j"
                     " ON j.id = p.job_id WHERE p.state = 'claimed' AND p.lease_owner = $1"
                     " AND j.state IN " LIVE_STATES " ORDER BY p.job_id, p.k FOR UPDATE OF p)"
                     " UPDATE cuzk_partitions p SET lease_expires = " LEASE_SQL("$2")
                     " FROM l WHERE p.job_id = l.job_id AND p.k = l.k RETURNING p.job_id, p.k", &p, 0);
    if (!r)
        return CZ_ERR_IO;
    size_t n = (size_t)PQntuples(r);
    cz_store_part *renewed = calloc(n ? n : 1, sizeof *renewed);
    if (!renewed) {
        PQclear(r);
        return cz_err(err, CZ_ERR_NOMEM, "heartbeat: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        renewed[i].job = parse_u64(PQgetvalue(r, (int)i, 0));
        renewed[i].k = (uint32_t)parse_u64(PQgetvalue(r, (int)i, 1));
    }
    PQclear(r);
    qsort(renewed, n, sizeof *renewed, part_cmp);
    cz_status st = CZ_OK;
    for (size_t i = 0; i < c->nheld && st == CZ_OK; i++) {
        if (n && bsearch(&c->held[i], renewed, n, sizeof *renewed, part_cmp))
            continue;
        /* no longer ours: say why */
        params q = {0};
        p_u64(&q, c->held[i].job);
        p_u64(&q, c->held[i].k);
        r = sq(s, err, "reading a lost partition",
               "SELECT p.state, j.state FROM cuzk_partitions p JOIN cuzk_jobs j ON j.id = p.job_id"
               " WHERE p.job_id = $1 AND p.k = $2", &q, 0);
        if (!r) {
            st = CZ_ERR_IO;
            break;
        }
        cz_store_lost_reason why = CZ_STORE_LOST_GONE;
        if (PQntuples(r) == 1) {
            if (state_terminal(state_parse(PQgetvalue(r, 0, 1))))
                why = CZ_STORE_LOST_JOB_ENDED;
            else if (strcmp(PQgetvalue(r, 0, 0), "done") == 0)
                why = CZ_STORE_LOST_DONE;
            else
                why = CZ_STORE_LOST_RECLAIMED;
        }
        PQclear(r);
        cz_store_lost *nl = realloc(c->lost, (c->nlost + 1) * sizeof *nl);
        if (!nl) {
            st = cz_err(err, CZ_ERR_NOMEM, "heartbeat: out of memory");
            break;
        }
        c->lost = nl;
        c->lost[c->nlost++] = (cz_store_lost){.job = c->held[i].job, .k = c->held[i].k, .reason = why};
    }
    free(renewed);
    return st;
}

cz_status cz_store_heartbeat(cz_store *s, const cz_store_part *held, size_t nheld,
                             cz_store_lost **lost, size_t *nlost, cz_errbuf *err)
{
    if (lost)
        *lost = NULL;
    if (nlost)
        *nlost = 0;
    if (!s || (nheld && (!held || !lost || !nlost)))
        return cz_err(err, CZ_ERR_INVALID_ARG, "heartbeat: no store, or held partitions without lost outputs");
    hb_ctx c = {.held = held, .nheld = nheld};
    cz_status st = run_tx(s, "heartbeat", true, hb_body, &c, err);
    if (st != CZ_OK || !lost || c.nlost == 0) {
        free(c.lost);
        return st;
    }
    *lost = c.lost;
    *nlost = c.nlost;
    return CZ_OK;
}

/* ---- complete ---- */

typedef struct {
    cz_job_id job;
    uint32_t k;
    const uint8_t *proof;
    size_t proof_len;
    const char *timings; /* jsonb text or NULL */
    cz_store_completion out;
} complete_ctx;

static cz_status complete_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    complete_ctx *c = vctx;
    memset(&c->out, 0, sizeof c->out);
    cz_job_state jst;
    uint32_t num, done;
    char assembler[128];
    cz_status st = lock_job(s, err, c->job, &jst, &num, &done, assembler, sizeof assembler);
    if (st != CZ_OK)
        return st;
    c->out.num_partitions = num;
    c->out.partitions_done = done;
    if (c->k >= num)
        return cz_err(err, CZ_ERR_NOT_FOUND, "job %" PRIu64 " has %u partitions: no partition %u", c->job,
                      num, c->k);
    params p = {0};
    p_u64(&p, c->job);
    p_u64(&p, c->k);
    PGresult *r = sq(s, err, "reading the partition",
                     "SELECT state, coalesce(completed_by, '') FROM cuzk_partitions"
                     " WHERE job_id = $1 AND k = $2", &p, 0);
    if (!r)
        return CZ_ERR_IO;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return cz_err(err, CZ_ERR_NOT_FOUND, "job %" PRIu64 " has no partition %u", c->job, c->k);
    }
    bool is_done = strcmp(PQgetvalue(r, 0, 0), "done") == 0;
    bool mine = strcmp(PQgetvalue(r, 0, 1), s->node_id) == 0;
    PQclear(r);
    if (is_done) {
        /* this node's own completion seen again (a run after a lost
         * COMMIT answer): the same answer as the first time */
        if (mine && jst != CZ_JOB_FAILED && jst != CZ_JOB_CANCELLED) {
            c->out.result = CZ_STORE_COMPLETE_WRITTEN;
            c->out.assemble = jst == CZ_JOB_RUNNING && done == num && strcmp(assembler, s->node_id) == 0;
        } else {
            c->out.result = CZ_STORE_COMPLETE_DUPLICATE;
        }
        return CZ_OK;
    }
    if (state_terminal(jst)) {
        c->out.result = CZ_STORE_COMPLETE_JOB_ENDED;
        return CZ_OK;
    }
    p_bin(&p, c->proof, c->proof_len);
    p_text(&p, c->timings);
    p_text(&p, s->node_id);
    if (sx(s, err, "storing the partition proof",
           "UPDATE cuzk_partitions SET state = 'done', proof = $3::bytea, timings = $4::jsonb,"
           " completed_at = now(), completed_by = $5, lease_expires = NULL"
           " WHERE job_id = $1 AND k = $2", &p) != CZ_OK)
        return CZ_ERR_IO;
    params pj = {0};
    p_u64(&pj, c->job);
    p_text(&pj, s->node_id);
    p_u64(&pj, s->lease_ms);
    r = sq(s, err, "counting the job's done partitions",
           "UPDATE cuzk_jobs SET partitions_done = partitions_done + 1, state = 'running',"
           " started_at = coalesce(started_at, now()),"
           " assembler = CASE WHEN partitions_done + 1 = num_partitions THEN $2 ELSE assembler END,"
           " assemble_expires = CASE WHEN partitions_done + 1 = num_partitions"
           " THEN " LEASE_SQL("$3") " ELSE assemble_expires END"
           " WHERE id = $1 RETURNING partitions_done, num_partitions", &pj, 0);
    if (!r)
        return CZ_ERR_IO;
    c->out.partitions_done = (uint32_t)parse_u64(PQgetvalue(r, 0, 0));
    PQclear(r);
    c->out.result = CZ_STORE_COMPLETE_WRITTEN;
    c->out.assemble = c->out.partitions_done == num;
    if (jst == CZ_JOB_QUEUED)
        return notify_job(s, err, c->job);
    return CZ_OK;
}

/* {"synth":12.500,...}: names are [a-z0-9_] by the engine's contract;
 * any other entry is left out rather than quoted into JSON. */
static void timings_json(const cz_engine_timings *t, char *buf, size_t cap)
{
    size_t w = (size_t)snprintf(buf, cap, "{");
    unsigned n = t->n < CZ_ENGINE_MAX_PHASES ? t->n : CZ_ENGINE_MAX_PHASES;
    bool first = true;
    for (unsigned i = 0; i < n && w < cap; i++) {
        const char *name = t->phase[i].name;
        size_t len = strnlen(name, sizeof t->phase[i].name);
        if (len == 0 || len == sizeof t->phase[i].name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != len)
            continue;
        double ms = t->phase[i].ms;
        if (!(ms >= 0 && ms < 1e15))
            ms = 0;
        w += (size_t)snprintf(buf + w, cap - w, "%s\"%s\":%.3f", first ? "" : ",", name, ms);
        first = false;
    }
    if (w < cap)
        snprintf(buf + w, cap - w, "}");
}

cz_status cz_store_complete_partition(cz_store *s, cz_job_id job, uint32_t k, const uint8_t *proof,
                                      size_t proof_len, const cz_engine_timings *timings,
                                      cz_store_completion *out, cz_errbuf *err)
{
    if (!s || !out || !proof || proof_len < 1 || proof_len > 0x3fffffff)
        return cz_err(err, CZ_ERR_INVALID_ARG, "complete partition %u of job %" PRIu64
                      ": no store, output or proof (or a proof over 1 GiB)", k, job);
    char tj[CZ_ENGINE_MAX_PHASES * 48 + 8];
    if (timings)
        timings_json(timings, tj, sizeof tj);
    complete_ctx c = {.job = job, .k = k, .proof = proof, .proof_len = proof_len,
                      .timings = timings ? tj : NULL};
    cz_status st = run_tx(s, "complete partition", true, complete_body, &c, err);
    *out = c.out;
    return st;
}

/* ---- assembly ---- */

typedef struct {
    cz_job_id job;
} assembly_ctx;

static cz_status assembly_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    assembly_ctx *c = vctx;
    c->job = 0;
    params p = {0};
    p_text(&p, s->node_id);
    p_u64(&p, s->lease_ms);
    PGresult *r = sq(s, err, "claiming an assembly",
                     "WITH c AS (SELECT id FROM cuzk_jobs WHERE state = 'running'"
                     " AND partitions_done = num_partitions"
                     " AND (assembler IS NULL OR assemble_expires IS NULL OR assemble_expires < now())"
                     " ORDER BY priority DESC, created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
                     " UPDATE cuzk_jobs j SET assembler = $1, assemble_expires = " LEASE_SQL("$2")
                     " FROM c WHERE j.id = c.id RETURNING j.id", &p, 0);
    if (!r)
        return CZ_ERR_IO;
    if (PQntuples(r) == 1)
        c->job = parse_u64(PQgetvalue(r, 0, 0));
    PQclear(r);
    return CZ_OK;
}

cz_status cz_store_claim_assembly(cz_store *s, cz_job_id *job, cz_errbuf *err)
{
    if (!s || !job)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store or job output");
    assembly_ctx c = {0};
    /* a lost COMMIT answer leaves at worst an assembly lease that lapses */
    cz_status st = run_tx(s, "claim assembly", false, assembly_body, &c, err);
    *job = st == CZ_OK ? c.job : 0;
    return st;
}

typedef struct {
    cz_job_id job;
    uint8_t *buf;
    size_t len;
} proofs_ctx;

static cz_status proofs_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    proofs_ctx *c = vctx;
    free(c->buf);
    c->buf = NULL;
    c->len = 0;
    params p = {0};
    p_u64(&p, c->job);
    PGresult *r = sq(s, err, "reading the partition proofs",
                     "SELECT proof FROM cuzk_partitions WHERE job_id = $1 ORDER BY k", &p, 1);
    if (!r)
        return CZ_ERR_IO;
    int n = PQntuples(r);
    if (n == 0) {
        PQclear(r);
        return cz_err(err, CZ_ERR_NOT_FOUND, "unknown job %" PRIu64, c->job);
    }
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        if (PQgetisnull(r, i, 0)) {
            PQclear(r);
            return cz_err(err, CZ_ERR_INVALID_ARG, "job %" PRIu64 ": partition %d is not done", c->job, i);
        }
        total += (size_t)PQgetlength(r, i, 0);
    }
    c->buf = malloc(total ? total : 1);
    if (!c->buf) {
        PQclear(r);
        return cz_err(err, CZ_ERR_NOMEM, "job %" PRIu64 ": cannot allocate %zu bytes of proofs", c->job, total);
    }
    for (int i = 0; i < n; i++) {
        memcpy(c->buf + c->len, PQgetvalue(r, i, 0), (size_t)PQgetlength(r, i, 0));
        c->len += (size_t)PQgetlength(r, i, 0);
    }
    PQclear(r);
    return CZ_OK;
}

cz_status cz_store_partition_proofs(cz_store *s, cz_job_id job, uint8_t **proofs, size_t *len,
                                    cz_errbuf *err)
{
    if (!s || !proofs || !len)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store or proofs output");
    *proofs = NULL;
    *len = 0;
    proofs_ctx c = {.job = job};
    cz_status st = run_tx(s, "partition proofs", true, proofs_body, &c, err);
    if (st != CZ_OK) {
        free(c.buf);
        return st;
    }
    *proofs = c.buf;
    *len = c.len;
    return CZ_OK;
}

/* ---- reclaim ---- */

typedef struct {
    cz_store_reclaim_stats st;
} reclaim_ctx;

static cz_status reclaim_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    reclaim_ctx *c = vctx;
    memset(&c->st, 0, sizeof c->st);
    PGresult *jobs = sq(s, err, "finding lapsed leases",
                        "SELECT DISTINCT job_id FROM cuzk_partitions WHERE state = 'claimed'"
                        " AND lease_expires < now() ORDER BY job_id LIMIT 1000", NULL, 0);
    if (!jobs)
        return CZ_ERR_IO;
    cz_status st = CZ_OK;
    for (int i = 0; i < PQntuples(jobs) && st == CZ_OK; i++) {
        cz_job_id job = parse_u64(PQgetvalue(jobs, i, 0));
        params p = {0};
        p_u64(&p, job);
        /* a job another transaction holds is skipped, not waited for */
        PGresult *r = sq(s, err, "locking a job with lapsed leases",
                         "SELECT state, num_partitions FROM cuzk_jobs WHERE id = $1"
                         " FOR UPDATE SKIP LOCKED", &p, 0);
        if (!r) {
            st = CZ_ERR_IO;
            break;
        }
        if (PQntuples(r) == 0 || state_terminal(state_parse(PQgetvalue(r, 0, 0)))) {
            PQclear(r);
            continue;
        }
        uint32_t num = (uint32_t)parse_u64(PQgetvalue(r, 0, 1));
        PQclear(r);
        p_u64(&p, s->max_attempts);
        r = sq(s, err, "requeueing lapsed partitions",
               "WITH l AS (SELECT job_id, k FROM cuzk_partitions WHERE job_id = $1"
               " AND state = 'claimed' AND lease_expires < now() AND attempts < $2"
               " ORDER BY k FOR UPDATE)"
               " UPDATE cuzk_partitions p SET state = 'queued', lease_expires = NULL"
               " FROM l WHERE p.job_id = l.job_id AND p.k = l.k RETURNING p.k", &p, 0);
        if (!r) {
            st = CZ_ERR_IO;
            break;
        }
        c->st.requeued += (size_t)PQntuples(r);
        PQclear(r);
        r = sq(s, err, "finding partitions out of attempts",
               "SELECT k, attempts, coalesce(lease_owner, '') FROM cuzk_partitions WHERE job_id = $1"
               " AND state = 'claimed' AND lease_expires < now() AND attempts >= $2"
               " ORDER BY k LIMIT 1", &p, 0);
        if (!r) {
            st = CZ_ERR_IO;
            break;
        }
        if (PQntuples(r) == 1) {
            int64_t k = parse_i64(PQgetvalue(r, 0, 0));
            char msg[400];
            snprintf(msg, sizeof msg, "partition %" PRId64 "/%u: lease lapsed %s times, last held by node '%s'",
                     k, num, PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 2));
            PQclear(r);
            params pk = {0};
            p_u64(&pk, job);
            p_i64(&pk, k);
            st = sx(s, err, "failing the partition out of attempts",
                    "UPDATE cuzk_partitions SET state = 'failed', error = 'lease lapsed',"
                    " lease_expires = NULL WHERE job_id = $1 AND k = $2", &pk);
            if (st == CZ_OK)
                st = end_job(s, err, job, CZ_JOB_FAILED, msg, k, NULL, 0);
            if (st == CZ_OK)
                c->st.jobs_failed++;
        } else {
            PQclear(r);
        }
    }
    PQclear(jobs);
    if (st == CZ_OK && c->st.requeued)
        st = sx(s, err, "notify", "SELECT pg_notify('" NOTIFY_WORK "', 'requeued')", NULL);
    return st;
}

cz_status cz_store_reclaim_expired(cz_store *s, cz_store_reclaim_stats *out, cz_errbuf *err)
{
    if (!s)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store");
    reclaim_ctx c = {0};
    cz_status st = run_tx(s, "reclaim expired leases", true, reclaim_body, &c, err);
    if (out)
        *out = st == CZ_OK ? c.st : (cz_store_reclaim_stats){0};
    return st;
}

/* ------------------------------------------------------------------------
 * A node starting again; a job's payload
 * ------------------------------------------------------------------------ */

typedef struct {
    size_t released;
    cz_job_id job; /* release_partition: this one (0 = all of the node's) */
    uint32_t k;
} release_ctx;

static cz_status release_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    release_ctx *c = vctx;
    c->released = 0;
    params p = {0};
    p_text(&p, s->node_id);
    PGresult *r;
    if (!c->job) {
        /* job rows first (the lock order): assemblies of the previous run */
        if (sx(s, err, "dropping this node's old assemblies",
               "UPDATE cuzk_jobs SET assembler = NULL, assemble_expires = NULL"
               " WHERE assembler = $1 AND state = 'running'", &p) != CZ_OK)
            return CZ_ERR_IO;
        r = sq(s, err, "requeueing this node's old claims",
               "WITH l AS (SELECT job_id, k FROM cuzk_partitions WHERE state = 'claimed'"
               " AND lease_owner = $1 ORDER BY job_id, k FOR UPDATE)"
               " UPDATE cuzk_partitions p SET state = 'queued', lease_expires = NULL"
               " FROM l WHERE p.job_id = l.job_id AND p.k = l.k RETURNING p.k", &p, 0);
    } else {
        p_u64(&p, c->job);
        p_u64(&p, c->k);
        /* never worked on: the claim does not count as an attempt */
        r = sq(s, err, "releasing a claimed partition",
               "WITH l AS (SELECT job_id, k FROM cuzk_partitions WHERE job_id = $2 AND k = $3"
               " AND state = 'claimed' AND lease_owner = $1 FOR UPDATE)"
               " UPDATE cuzk_partitions p SET state = 'queued', lease_expires = NULL,"
               " attempts = greatest(p.attempts - 1, 0)"
               " FROM l WHERE p.job_id = l.job_id AND p.k = l.k RETURNING p.k", &p, 0);
    }
    if (!r)
        return CZ_ERR_IO;
    c->released = (size_t)PQntuples(r);
    PQclear(r);
    if (c->released)
        return sx(s, err, "notify", "SELECT pg_notify('" NOTIFY_WORK "', 'requeued')", NULL);
    return CZ_OK;
}

cz_status cz_store_release_node(cz_store *s, size_t *released, cz_errbuf *err)
{
    if (released)
        *released = 0;
    if (!s)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store");
    release_ctx c = {0};
    cz_status st = run_tx(s, "releasing this node's old claims", true, release_body, &c, err);
    if (st == CZ_OK && released)
        *released = c.released;
    return st;
}

cz_status cz_store_release_partition(cz_store *s, cz_job_id job, uint32_t k, bool *released,
                                     cz_errbuf *err)
{
    if (released)
        *released = false;
    if (!s || !job)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store or no job");
    release_ctx c = {.job = job, .k = k};
    cz_status st = run_tx(s, "releasing a claimed partition", true, release_body, &c, err);
    if (st == CZ_OK && released)
        *released = c.released > 0;
    return st;
}

typedef struct {
    cz_job_id job;
    uint8_t *payload;
    size_t len;
    char *uri;
} payload_ctx;

static cz_status payload_body(cz_store *s, void *vctx, cz_errbuf *err)
{
    payload_ctx *c = vctx;
    free(c->payload);
    free(c->uri);
    c->payload = NULL;
    c->uri = NULL;
    c->len = 0;
    params p = {0};
    p_u64(&p, c->job);
    PGresult *r = sq(s, err, "reading the job's payload URI", "SELECT payload_uri FROM cuzk_jobs WHERE id = $1",
                     &p, 0);
    if (!r)
        return CZ_ERR_IO;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return cz_err(err, CZ_ERR_NOT_FOUND, "job %" PRIu64 " is unknown or pruned", c->job);
    }
    if (!PQgetisnull(r, 0, 0)) {
        c->uri = strdup(PQgetvalue(r, 0, 0));
        PQclear(r);
        return c->uri ? CZ_OK : cz_err(err, CZ_ERR_NOMEM, "out of memory for a payload URI");
    }
    PQclear(r);
    bool found;
    cz_status st = fetch_bytea(s, err, "reading the job's payload", "SELECT payload FROM cuzk_jobs WHERE id = $1",
                               &p, &c->payload, &c->len, &found);
    if (st == CZ_OK && !c->payload && !(c->payload = calloc(1, 1)))
        st = cz_err(err, CZ_ERR_NOMEM, "out of memory for a payload");
    return st;
}

cz_status cz_store_job_payload(cz_store *s, cz_job_id job, uint8_t **payload, size_t *len, char **uri,
                               cz_errbuf *err)
{
    *payload = NULL;
    *len = 0;
    *uri = NULL;
    if (!s)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no store");
    payload_ctx c = {.job = job};
    cz_status st = run_tx(s, "reading a job's payload", true, payload_body, &c, err);
    if (st != CZ_OK) {
        free(c.payload);
        free(c.uri);
        return st;
    }
    *payload = c.payload;
    *len = c.len;
    *uri = c.uri;
    return CZ_OK;
}
