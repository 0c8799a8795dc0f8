/*
 * cuzk — the durable job store: jobs and their partitions in PostgreSQL
 * (or a database speaking its protocol, such as YugabyteDB), shared by any
 * number of proving nodes. docs/store.md gives the schema, the claim/lease
 * protocol and the failure behaviour; this header is the contract.
 *
 * The model is the engine's (cuzk/engine.h, docs/design.md §4): a job is a
 * circuit id, a payload, N partitions, a priority and an optional request
 * id; its proof is the partition proofs concatenated. What the store adds:
 *
 *  - Nodes CLAIM queued partitions (priority first, then the oldest job,
 *    then partition order) under a LEASE of lease_ms, renewed by
 *    cz_store_heartbeat. A claim never blocks on, and never takes, a
 *    partition another node is claiming (SELECT ... FOR UPDATE SKIP LOCKED).
 *  - A partition proof is written once: the first completion of (job, k)
 *    wins, from whichever node; every later one is ignored and reported as
 *    a duplicate. The node whose completion finishes the job's last
 *    partition becomes its ASSEMBLER (told so by cz_store_complete_partition)
 *    and ends the job with cz_store_finish_job or cz_store_fail_job.
 *  - Any node may call cz_store_reclaim_expired: partitions whose lease
 *    lapsed (their node died, hung or lost the database) go back to the
 *    queue, or, once claimed max_attempts times, fail their job.
 *  - cz_store_await sleeps on LISTEN/NOTIFY, with a bounded polling
 *    fallback (a notification can be missed across a reconnect, and some
 *    servers have no LISTEN).
 *
 * Threading: a cz_store is one database connection. Calls on one cz_store
 * must not run concurrently; give each thread its own (they are cheap, and
 * every call is a short transaction). Different cz_store objects are
 * independent, also within one process and one node id.
 *
 * Reconnection: a call that finds its connection broken reconnects once
 * and runs again when that is safe: always when the connection broke
 * before the call's COMMIT was sent (the server rolled it back), and after
 * an unanswered COMMIT only for the calls documented as idempotent. A
 * call whose outcome is unknown answers CZ_ERR_IO and says so. A call that
 * cannot reconnect answers CZ_ERR_IO naming the database; the next call
 * tries again. Serialization failures and deadlocks are retried a few
 * times inside the call.
 *
 * Errors: every call returns cz_status and, when err is not NULL, a
 * one-line message naming what failed (the SQL step and the server's
 * primary message, never its DETAIL, which can quote a whole row and with
 * it a payload or a proof). Messages never contain payloads, proofs or the
 * password of the conninfo string.
 */
#ifndef CUZK_STORE_H
#define CUZK_STORE_H

#include "cuzk/common.h"
#include "cuzk/engine.h" /* cz_job_id, cz_priority, cz_job_state, cz_engine_timings */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cz_store cz_store;

typedef struct {
    /* libpq connection string or URI ("host=/run/pg dbname=cuzk",
     * "postgresql://cuzk@db:5433/cuzk"). Required. */
    const char *conninfo;
    /* This node's identity: 1..127 printable ASCII characters, unique
     * among the nodes sharing the database (leases are held by node id).
     * Required. */
    const char *node_id;
    /* Where operators can reach this node (shown in cuzk_nodes); optional. */
    const char *node_address;
    uint64_t lease_ms;            /* claim lease (default 60000; >= 1) */
    /* A partition whose lease lapsed this many times fails its job
     * (default 3; >= 1). */
    uint32_t max_attempts;
    /* Terminal jobs are kept this long before cz_store_prune may delete
     * them (default 600000, like the engine's result_retention_ms). */
    uint64_t result_retention_ms;
    /* cz_store_await re-reads the job at least this often, notification
     * or not (default 1000; >= 1). */
    uint64_t await_poll_ms;
    /* cz_store_prune_nodes deletes the cuzk_nodes row of another node
     * silent this long that holds no claim and no assembly (default 7
     * days; 0 = never). A node pruned while alive registers again at its
     * next heartbeat. */
    uint64_t node_retention_ms;
    /* An operator's connection (`cuzk store nodes`): node_id may be NULL;
     * no migration runs (a database without the store: CZ_ERR_NOT_FOUND;
     * with an older or newer schema than this build's: CZ_ERR_UNSUPPORTED,
     * naming both versions) and nothing is registered. For the read calls
     * (cz_store_list_nodes, cz_store_get_job). */
    bool observer;
} cz_store_config;

void cz_store_config_default(cz_store_config *c);

/* Connects, brings the schema up to date (every embedded migration the
 * database lacks, in order, in one transaction, serialized between nodes
 * by an advisory lock) and registers the node in cuzk_nodes. Refusals:
 * CZ_ERR_INVALID_ARG (config), CZ_ERR_IO (cannot connect, or the server
 * failed a step), CZ_ERR_UNSUPPORTED (the database's schema is newer than
 * this build knows: "database schema version 3 is newer than this build
 * of cuzk knows (2)"), CZ_ERR_MISMATCH (an applied migration has another
 * name than this build's migration of the same version). */
CZ_WUR cz_status cz_store_open(cz_store **out, const cz_store_config *cfg, cz_errbuf *err);
/* Closes the connection (nothing in the database changes: leases held by
 * the node lapse on their own). NULL is a no-op. */
void cz_store_close(cz_store *s);

/* The highest migration version this build embeds. */
int cz_store_schema_version_known(void);

/* Counters of one connection, for logs and tests. */
typedef struct {
    uint64_t reconnects;       /* successful reconnections */
    uint64_t retries;          /* transactions run again (serialization, deadlock, reconnect) */
    uint64_t notifies;         /* notifications received by await */
} cz_store_stats;
void cz_store_get_stats(const cz_store *s, cz_store_stats *out);

/* ------------------------------------------------------------------------
 * Jobs
 * ------------------------------------------------------------------------ */

typedef struct {
    const char *circuit_id;    /* required, 1..127 printable ASCII characters */
    /* The payload, stored in the database (may be NULL iff payload_len is
     * 0), or ... */
    const void *payload;
    size_t payload_len;
    /* ... a reference to it that every node can resolve (then payload must
     * be NULL and payload_len 0). The store never reads the URI. */
    const char *payload_uri;
    uint32_t num_partitions;   /* 1..65536 */
    cz_priority priority;
    /* Optional idempotency key (NULL or "" = none; <= 255 printable ASCII
     * characters), with the engine's rules (docs/design.md §4.7): while a
     * queued, running or DONE job holds the id, a submission with the
     * same circuit, partition count and payload (or payload URI) returns
     * that job (*existing = true); anything else under the id is
     * CZ_ERR_BUSY. A FAILED or CANCELLED job
     * does not hold its id: the submission creates a new job. Once the job
     * is pruned the id is free. Priority is not part of the key. */
    const char *request_id;
} cz_store_job_request;

/* Inserts the job and its partitions (all QUEUED) in one transaction.
 * existing may be NULL. Idempotent with a request id (retried after an
 * unanswered COMMIT); without one, an unanswered COMMIT answers CZ_ERR_IO
 * ("the outcome is unknown": the job may have been created). Refusals: CZ_ERR_INVALID_ARG,
 * CZ_ERR_BUSY (request id held by a job with another circuit, partition
 * count or payload), CZ_ERR_IO. */
CZ_WUR cz_status cz_store_submit(cz_store *s, const cz_store_job_request *req, cz_job_id *id,
                                 bool *existing, cz_errbuf *err);

/* What the store knows of a job. Timestamps are Unix milliseconds
 * (0 = not yet). */
typedef struct {
    cz_job_id id;
    cz_job_state state;
    char error[256];           /* FAILED/CANCELLED: why ("partition 2/4: ...") */
    int32_t failed_partition;  /* -1 if none */
    uint32_t num_partitions;
    uint32_t partitions_done;
    cz_priority priority;
    char circuit_id[128];
    char request_id[256];      /* "" if none */
    char assembler[128];       /* node assembling it ("" if none) */
    int64_t created_ms, started_ms, ended_ms, retain_until_ms;
    uint8_t *proof;            /* DONE and asked for: malloc'd; else NULL */
    size_t proof_len;
} cz_store_job;

/* A snapshot of one job; with_proof: also copy a DONE job's proof.
 * CZ_ERR_NOT_FOUND: unknown or pruned. Read-only (always retried). */
CZ_WUR cz_status cz_store_get_job(cz_store *s, cz_job_id id, bool with_proof, cz_store_job *out,
                                  cz_errbuf *err);
/* The job holding request_id (the live or DONE one; without such, the
 * newest FAILED/CANCELLED one). CZ_ERR_NOT_FOUND: none. */
CZ_WUR cz_status cz_store_get_job_by_request(cz_store *s, const char *request_id, bool with_proof,
                                             cz_store_job *out, cz_errbuf *err);
void cz_store_job_free(cz_store_job *j);

/* Waits until the job is terminal or timeout_ms passes (< 0: forever;
 * 0: one look). CZ_OK: *out is the terminal job (a DONE job's proof
 * copied). CZ_ERR_TIMEOUT: *out holds its current state. CZ_ERR_NOT_FOUND:
 * unknown or pruned. Wakes on the NOTIFY that every state change of a job
 * sends (channel cuzk_job_state, payload the job id), and re-reads the job
 * every await_poll_ms regardless. */
CZ_WUR cz_status cz_store_await(cz_store *s, cz_job_id id, int64_t timeout_ms, cz_store_job *out,
                                cz_errbuf *err);

/* Cancels a QUEUED or RUNNING job: it is CANCELLED ("cancelled") when this
 * returns CZ_OK, its queued and claimed partitions are dropped (FAILED,
 * "dropped: job cancelled"); the nodes holding claimed ones learn it at
 * their next heartbeat (cz_store_lost, CZ_STORE_LOST_JOB_ENDED) and a late
 * completion is ignored. A terminal job is left as it is: CZ_ERR_BUSY,
 * its state in *state (if not NULL). CZ_ERR_NOT_FOUND: unknown id.
 * Idempotent. */
CZ_WUR cz_status cz_store_cancel(cz_store *s, cz_job_id id, cz_job_state *state, cz_errbuf *err);

/* Deletes the terminal jobs (and their partitions) whose retention ended
 * before now_ms (Unix ms; the caller's clock, so a test can move it).
 * *pruned (if not NULL): how many. Idempotent. */
CZ_WUR cz_status cz_store_prune(cz_store *s, int64_t now_ms, size_t *pruned, cz_errbuf *err);

/* Deletes the cuzk_nodes rows of the other nodes whose last heartbeat is
 * older than now_ms - node_retention_ms and that hold no claimed partition
 * and no running assembly (their history stays: completed_by and
 * submitted_by are plain text). *pruned (if not NULL): how many. */
CZ_WUR cz_status cz_store_prune_nodes(cz_store *s, int64_t now_ms, size_t *pruned, cz_errbuf *err);

/* One row of cuzk_nodes with what the node holds, for operators. */
typedef struct {
    char node_id[128];
    char address[256];
    int64_t started_ms;        /* Unix ms of its registration (its last start) */
    int64_t heartbeat_ms;      /* Unix ms of its last heartbeat */
    int64_t silent_ms;         /* since then, on the database's clock */
    uint32_t claimed;          /* partitions claimed under its lease */
    uint32_t claimed_lapsed;   /* of which the lease has lapsed (reclaimed at the next round) */
    uint32_t assembling;       /* running jobs it is assembling */
    uint64_t completed;        /* partitions it proved, of the jobs still in the store */
} cz_store_node_info;

/* Every node of the store, by node id; *nodes is malloc'ed (free() it),
 * NULL with *n = 0 on error. */
CZ_WUR cz_status cz_store_list_nodes(cz_store *s, cz_store_node_info **nodes, size_t *n, cz_errbuf *err);

/* ------------------------------------------------------------------------
 * Partitions: claim, lease, complete
 * ------------------------------------------------------------------------ */

typedef struct {
    cz_job_id job;
    uint32_t k;                /* partition index, 0..num_partitions-1 */
} cz_store_part;

typedef struct {
    cz_job_id job;
    uint32_t k;
    uint32_t num_partitions;
    uint32_t attempts;         /* this claim included (1 = first) */
    cz_priority priority;
    char circuit_id[128];
    /* The job's payload (shared by the claimed partitions of one job within
     * one cz_store_claimed_set: fetched once per job), or its URI. */
    const uint8_t *payload;
    size_t payload_len;
    const char *payload_uri;   /* NULL when the payload is stored */
    int64_t lease_expires_ms;  /* Unix ms */
} cz_store_claimed;

typedef struct {
    cz_store_claimed *parts;
    size_t n;
    void *priv_;               /* the payload buffers */
} cz_store_claimed_set;

/* Claims up to max_partitions queued partitions for this node, in
 * priority order (higher first), then job age (oldest first), then
 * partition index; circuits / ncircuits (optional, NULL/0 = all) limit it
 * to those circuit ids (an entry "prefix*" stands for every id starting
 * with prefix, as in cuzkd's backend.circuits). Each claimed partition gets lease_expires = now +
 * lease_ms and attempts + 1; its job becomes RUNNING. out->n may be 0.
 * Free the set with cz_store_claimed_set_free. Not idempotent: when its
 * COMMIT goes unanswered, CZ_ERR_IO ("partitions may have been claimed":
 * they return to the queue when their lease lapses). */
CZ_WUR cz_status cz_store_claim(cz_store *s, uint32_t max_partitions,
                                const char *const *circuits, size_t ncircuits,
                                cz_store_claimed_set *out, cz_errbuf *err);
void cz_store_claimed_set_free(cz_store_claimed_set *set);

typedef enum {
    CZ_STORE_LOST_RECLAIMED = 0, /* the lease lapsed: back in the queue, or another node's */
    CZ_STORE_LOST_DONE,          /* already completed (by another node) */
    CZ_STORE_LOST_JOB_ENDED,     /* the job was cancelled, failed or finished */
    CZ_STORE_LOST_GONE           /* no such partition (the job was pruned) */
} cz_store_lost_reason;

typedef struct {
    cz_job_id job;
    uint32_t k;
    cz_store_lost_reason reason;
} cz_store_lost;

const char *cz_store_lost_reason_str(cz_store_lost_reason r);

/* Renews the lease of every partition this node holds (claimed under its
 * node id, job still live) and of the jobs it assembles, and records the
 * heartbeat in cuzk_nodes. held / nheld: the partitions the caller is
 * working on; those it no longer holds are returned in *lost (malloc'd,
 * free() it; NULL when *nlost is 0), each with why: the caller stops
 * working on them. lost / nlost may be NULL when nheld is 0. Idempotent. */
CZ_WUR cz_status cz_store_heartbeat(cz_store *s, const cz_store_part *held, size_t nheld,
                                    cz_store_lost **lost, size_t *nlost, cz_errbuf *err);

typedef enum {
    CZ_STORE_COMPLETE_WRITTEN = 0, /* this completion was stored */
    CZ_STORE_COMPLETE_DUPLICATE,   /* another completion was stored first: ignored */
    CZ_STORE_COMPLETE_JOB_ENDED    /* the job is cancelled/failed/done: ignored */
} cz_store_complete_result;

typedef struct {
    cz_store_complete_result result;
    /* WRITTEN and this completion finished the job's last partition: this
     * node is the job's assembler and must end it (cz_store_finish_job
     * with the assembled, verified proof, or cz_store_fail_job). */
    bool assemble;
    uint32_t partitions_done, num_partitions;
} cz_store_completion;

/* Stores partition k's proof (proof_len bytes, >= 1) and its timings
 * (optional, may be NULL) unless (job, k) is already done or its job is
 * terminal. Any node may complete a partition, also one whose lease it
 * lost: the first completion wins. Idempotent: run again by the node whose
 * completion was stored (after an unanswered COMMIT), it answers WRITTEN
 * again, with the same assemble. CZ_ERR_NOT_FOUND: no such partition. */
CZ_WUR cz_status cz_store_complete_partition(cz_store *s, cz_job_id job, uint32_t k,
                                             const uint8_t *proof, size_t proof_len,
                                             const cz_engine_timings *timings,
                                             cz_store_completion *out, cz_errbuf *err);

/* Fails partition k and with it the job: FAILED, error "partition k/n:
 * <error>", failed_partition = k; the job's other unfinished partitions
 * are dropped. CZ_ERR_BUSY (state in *state if not NULL): the job is
 * already terminal, nothing changed. CZ_ERR_NOT_FOUND: no such partition.
 * Idempotent. */
CZ_WUR cz_status cz_store_fail_partition(cz_store *s, cz_job_id job, uint32_t k, const char *error,
                                         cz_job_state *state, cz_errbuf *err);
/* Fails the whole job with error (e.g. "verify: the assembled proof is
 * invalid"); otherwise like cz_store_fail_partition. */
CZ_WUR cz_status cz_store_fail_job(cz_store *s, cz_job_id job, const char *error,
                                   cz_job_state *state, cz_errbuf *err);

/* Ends a job whose partitions are all done: DONE with proof (the
 * assembled proof, proof_len >= 1), retained for result_retention_ms.
 * Refusals: CZ_ERR_BUSY (already terminal; *state if not NULL),
 * CZ_ERR_INVALID_ARG (not all partitions are done), CZ_ERR_NOT_FOUND.
 * Idempotent. */
CZ_WUR cz_status cz_store_finish_job(cz_store *s, cz_job_id job, const uint8_t *proof,
                                     size_t proof_len, cz_job_state *state, cz_errbuf *err);

/* Takes over the assembly of one job whose partitions are all done and
 * whose assembler is gone (its lease, renewed by its heartbeat, lapsed).
 * *job = 0 when there is none. The caller then reads the partition proofs
 * (cz_store_partition_proofs) and ends the job as an assembler does. */
CZ_WUR cz_status cz_store_claim_assembly(cz_store *s, cz_job_id *job, cz_errbuf *err);

/* The job's partition proofs concatenated in partition order (malloc'd;
 * free() it). CZ_ERR_INVALID_ARG: not all partitions are done. */
CZ_WUR cz_status cz_store_partition_proofs(cz_store *s, cz_job_id job, uint8_t **proofs,
                                           size_t *len, cz_errbuf *err);

typedef struct {
    size_t requeued;     /* partitions back in the queue */
    size_t jobs_failed;  /* jobs failed for a partition out of attempts */
} cz_store_reclaim_stats;

/* Any node, at any time: every claimed partition whose lease lapsed goes
 * back to the queue, except one claimed max_attempts times already: that
 * fails its job ("partition 2/4: lease lapsed 3 times, last held by node
 * 'n1'"). Jobs another node is changing right now are skipped (the next
 * call gets them). Idempotent. out may be NULL. */
CZ_WUR cz_status cz_store_reclaim_expired(cz_store *s, cz_store_reclaim_stats *out, cz_errbuf *err);

/* A node starting again under its node id (after a crash or a kill)
 * calls this before it claims: the partitions still claimed under its id
 * and the jobs it was assembling belong to its previous run, whose work is
 * lost, and a heartbeat under the same id would renew them forever. The
 * partitions go back to the queue at once (their attempts stay counted)
 * and the assemblies are dropped, for the next cz_store_claim_assembly of
 * any node. *released (if not NULL): how many partitions. Idempotent. */
CZ_WUR cz_status cz_store_release_node(cz_store *s, size_t *released, cz_errbuf *err);

/* Gives back one partition this node claimed but will not work on (its
 * local pipeline refused it, or the node is stopping): queued again at
 * once, and the claim does not count as an attempt. A heartbeat renews
 * every partition claimed under the node id, so a claim that is merely
 * forgotten would never lapse. *released (if not NULL): false when the
 * partition was no longer this node's claim. Idempotent. */
CZ_WUR cz_status cz_store_release_partition(cz_store *s, cz_job_id job, uint32_t k, bool *released,
                                            cz_errbuf *err);

/* A job's payload (malloc'd, free() it; an empty payload is a 1-byte
 * buffer with *len 0) or, for a job submitted by reference, its URI
 * (*uri malloc'd, *payload NULL): what a node taking over an assembly
 * (cz_store_claim_assembly) needs to verify the proof. CZ_ERR_NOT_FOUND:
 * unknown or pruned. Read-only. */
CZ_WUR cz_status cz_store_job_payload(cz_store *s, cz_job_id job, uint8_t **payload, size_t *len,
                                      char **uri, cz_errbuf *err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_STORE_H */
