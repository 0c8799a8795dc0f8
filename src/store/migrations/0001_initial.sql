-- cuzk job store, schema version 1 (docs/store.md describes every column).
-- Applied by cz_store_open inside one transaction with the other pending
-- migrations; never edit a migration that has shipped: add the next one.

-- One row per node that opened the store; last_heartbeat is what an
-- operator reads to see which nodes are alive.
CREATE TABLE cuzk_nodes (
    node_id        text PRIMARY KEY CHECK (length(node_id) BETWEEN 1 AND 127),
    address        text,
    started_at     timestamptz NOT NULL DEFAULT now(),
    last_heartbeat timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE cuzk_jobs (
    id               bigserial PRIMARY KEY,
    request_id       text CHECK (request_id IS NULL OR length(request_id) BETWEEN 1 AND 255),
    circuit          text NOT NULL CHECK (length(circuit) BETWEEN 1 AND 127),
    priority         smallint NOT NULL CHECK (priority BETWEEN 0 AND 3),
    -- exactly one of the two: the payload itself, or where every node finds it
    payload          bytea,
    payload_uri      text,
    num_partitions   integer NOT NULL CHECK (num_partitions BETWEEN 1 AND 65536),
    partitions_done  integer NOT NULL DEFAULT 0,
    state            text NOT NULL DEFAULT 'queued'
                     CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    error            text,
    failed_partition integer,
    proof            bytea,  -- the assembled proof (DONE)
    -- the node that completed the last partition, and its lease on the
    -- assembly (renewed by its heartbeat; lapsed: cz_store_claim_assembly)
    assembler        text,
    assemble_expires timestamptz,
    submitted_by     text NOT NULL,
    retention_ms     bigint NOT NULL CHECK (retention_ms >= 0),
    created_at       timestamptz NOT NULL DEFAULT now(),
    started_at       timestamptz,
    ended_at         timestamptz,
    retain_until     timestamptz,  -- ended_at + retention_ms (terminal jobs)
    CHECK (num_nonnulls(payload, payload_uri) = 1),
    CHECK (partitions_done BETWEEN 0 AND num_partitions)
);

-- Idempotency: at most one job holds a request id, and only while it is
-- live or DONE. FAILED and CANCELLED jobs fall out of the index, so a retry
-- under the same id inserts a new job; submissions use
-- INSERT ... ON CONFLICT on exactly this predicate.
CREATE UNIQUE INDEX cuzk_jobs_request_id ON cuzk_jobs (request_id)
    WHERE request_id IS NOT NULL AND state NOT IN ('failed', 'cancelled');
-- cz_store_get_job_by_request for the ended ones
CREATE INDEX cuzk_jobs_request_id_any ON cuzk_jobs (request_id, id) WHERE request_id IS NOT NULL;
-- cz_store_prune
CREATE INDEX cuzk_jobs_retain ON cuzk_jobs (retain_until) WHERE retain_until IS NOT NULL;
-- cz_store_claim_assembly
CREATE INDEX cuzk_jobs_assembly ON cuzk_jobs (id)
    WHERE state = 'running' AND partitions_done = num_partitions;

CREATE TABLE cuzk_partitions (
    job_id         bigint NOT NULL REFERENCES cuzk_jobs (id) ON DELETE CASCADE,
    k              integer NOT NULL CHECK (k >= 0),
    -- copied from the job so that the claim reads one index of one table
    circuit        text NOT NULL,
    priority       smallint NOT NULL,
    job_created_at timestamptz NOT NULL,
    state          text NOT NULL DEFAULT 'queued'
                   CHECK (state IN ('queued', 'claimed', 'done', 'failed')),
    -- the holder of the lease while claimed; afterwards the last holder
    lease_owner    text,
    lease_expires  timestamptz,
    attempts       integer NOT NULL DEFAULT 0,
    proof          bytea,
    error          text,
    claimed_at     timestamptz,
    completed_at   timestamptz,
    completed_by   text,
    timings        jsonb,  -- {"synth": ms, ...} as the prover reported them
    PRIMARY KEY (job_id, k)
);

-- The claim: queued partitions in (priority desc, job age, job, k) order.
CREATE INDEX cuzk_partitions_claim ON cuzk_partitions (priority DESC, job_created_at, job_id, k)
    WHERE state = 'queued';
-- reclaim_expired and heartbeat
CREATE INDEX cuzk_partitions_lease ON cuzk_partitions (lease_expires) WHERE state = 'claimed';
CREATE INDEX cuzk_partitions_owner ON cuzk_partitions (lease_owner) WHERE state = 'claimed';
