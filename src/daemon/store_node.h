/*
 * cuzkd's store node ([store] backend = postgres): the daemon as one of
 * several nodes sharing the job store's tables (cuzk/store.h,
 * docs/store.md "What is wired").
 *
 * Jobs live in the database. The HTTP and gRPC front ends submit, await,
 * look at and cancel them through cz_store_node_jobs (a cz_jobs, jobs.h);
 * job ids are the store's. The local engine only ever holds one-partition
 * sub-jobs (cz_job_request.first_partition/partition_count) of partitions
 * this node claimed.
 *
 * Threads, each with its own database connection (a cz_store must not be
 * used by two threads at once):
 *  - the claimer: claims queued partitions only while the engine can start
 *    them now (no sub-job queued unstarted, fewer in flight than the
 *    pipeline's slots), only of the circuits backend.circuits allows, and
 *    submits each as a sub-job; a payload_uri must be file:// (read here);
 *  - the completer: takes the sub-jobs the engine ended (on_job_done):
 *    DONE -> cz_store_complete_partition; FAILED -> cz_store_fail_partition
 *    with the engine's error (a resource refusal only gives the claim
 *    back); CANCELLED (lease lost, shutdown) -> dropped. When a completion
 *    makes this node the assembler it reads the partition proofs, verifies
 *    the whole with cz_engine_verify_proof and ends the job;
 *  - the timer (every lease/3): heartbeat (lost partitions -> their
 *    sub-jobs cancelled), reclaim of lapsed leases, takeover of assemblies
 *    whose assembler died, prune.
 * Requests of the front ends check a connection out of a pool of
 * [store] connections.
 *
 * A lost database: every call fails fast and is tried again later; the
 * node keeps serving its local status, stops claiming once its heartbeats
 * have failed for a lease (its claims are probably gone), and keeps the
 * proofs it finished meanwhile to store them when the database is back.
 *
 * Shutdown: stop claiming, then the engine drains or cancels the sub-jobs
 * (engine.drain_on_shutdown); what is not finished is given back to the
 * queue (or lapses): a node that stops never fails a job.
 */
#ifndef CZ_DAEMON_STORE_NODE_H
#define CZ_DAEMON_STORE_NODE_H

#include <jansson.h>
#include "cuzk/daemon.h"
#include "daemon/jobs.h"

typedef struct cz_store_node cz_store_node;

typedef struct {
    const cz_daemon_config *cfg;   /* [store], backend.circuits, engine knobs, max_payload_bytes */
    void (*log)(void *arg, cz_log_level level, const char *line);
    void *log_arg;
} cz_store_node_config;

/* Opens every connection (the pool and one per thread), which creates or
 * upgrades the schema, and gives back the claims of this node id's
 * previous run. A database that cannot be reached is an error naming it
 * (the daemon does not start). */
CZ_WUR cz_status cz_store_node_create(cz_store_node **out, const cz_store_node_config *cfg, cz_errbuf *err);
/* Starts the threads over the daemon's engine (created after the node,
 * with on_job_done forwarding to cz_store_node_job_done). */
CZ_WUR cz_status cz_store_node_start(cz_store_node *n, cz_engine *e, cz_errbuf *err);
/* The engine's on_job_done for sub-jobs (an engine thread; never blocks
 * on the database). */
void cz_store_node_job_done(cz_store_node *n, cz_job_id sub, cz_job_state state);
/* Stops claiming (first step of the daemon's shutdown). Idempotent. */
void cz_store_node_stop_claiming(cz_store_node *n);
/* After the engine's shutdown: writes what finished, gives back what did
 * not, joins the threads, closes the connections. NULL is a no-op. */
void cz_store_node_destroy(cz_store_node *n);

/* The postgres job service (valid until destroy). */
void cz_store_node_jobs(cz_store_node *n, cz_jobs *out);

/* /v1/status "store": backend, node_id, held, claims, completions,
 * duplicates, lost_leases, reconnects, reclaimed, ... */
json_t *cz_store_node_status_json(cz_store_node *n);
/* Prometheus lines cuzk_store_*; snprintf semantics. */
size_t cz_store_node_metrics(cz_store_node *n, char *buf, size_t cap);

#endif
