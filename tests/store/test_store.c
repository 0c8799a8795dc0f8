/*
 * The PostgreSQL job store (cuzk/store.h) against a real server that the
 * test starts itself (pg_harness.h); every test gets a fresh database.
 *
 * What is checked: migrations apply once and are idempotent, a newer
 * schema (or a renamed migration) is refused and leaves the database
 * alone; submission and request-id dedupe; claim order (priority, then
 * age, then partition) and the circuit filter; SKIP LOCKED under four
 * concurrent claimers (no partition claimed twice, none missed); lapsed
 * leases reclaimed by another node and the attempts limit; completion
 * written once across two racing nodes (exactly one assembler, the job
 * finished once); assembly taken over from a node whose lease lapsed;
 * cancel seen by the claimer's heartbeat; await woken by NOTIFY from
 * another connection; the server restarted under a claim loop; prune;
 * a server-side error reported without the payload.
 *
 * No assertion depends on timing: where a lease must have lapsed, the
 * test sleeps well past it (a slow machine only makes it more lapsed),
 * and waits are bounded by deadlines that only a broken store reaches.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include "pg_harness.h"
#include "cuzk/store.h"

#define PB 8 /* bytes of one fake partition proof */

static cz_pg g_pg;

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The proof a fake prover makes for (job, k): checkable after assembly. */
static void fake_proof(cz_job_id job, uint32_t k, uint8_t out[PB])
{
    uint64_t v = job * 1000003u + k;
    memcpy(out, &v, PB);
}

static void new_db(char *conninfo, size_t cap)
{
    assert_int_equal(cz_pg_create_db(&g_pg, conninfo, cap), 0);
}

static cz_store *open_node(const char *conninfo, const char *node, uint64_t lease_ms,
                           uint32_t max_attempts)
{
    cz_store_config c;
    cz_store_config_default(&c);
    c.conninfo = conninfo;
    c.node_id = node;
    c.node_address = "test";
    c.lease_ms = lease_ms;
    c.max_attempts = max_attempts;
    cz_store *s = NULL;
    cz_errbuf e = {{0}};
    cz_status st = cz_store_open(&s, &c, &e);
    if (st != CZ_OK)
        fprintf(stderr, "open %s: %s\n", node, e.msg);
    assert_int_equal(st, CZ_OK);
    return s;
}

static cz_job_id submit(cz_store *s, const char *circuit, uint32_t parts, cz_priority prio,
                        const char *payload, const char *rid, bool *existing)
{
    cz_store_job_request rq = {.circuit_id = circuit, .payload = payload,
                               .payload_len = payload ? strlen(payload) : 0,
                               .num_partitions = parts, .priority = prio, .request_id = rid};
    cz_job_id id = 0;
    cz_errbuf e = {{0}};
    cz_status st = cz_store_submit(s, &rq, &id, existing, &e);
    if (st != CZ_OK)
        fprintf(stderr, "submit: %s\n", e.msg);
    assert_int_equal(st, CZ_OK);
    assert_true(id != 0);
    return id;
}

static cz_job_state job_state(cz_store *s, cz_job_id id)
{
    cz_store_job j;
    cz_errbuf e = {{0}};
    cz_status st = cz_store_get_job(s, id, false, &j, &e);
    if (st != CZ_OK)
        fprintf(stderr, "get job %llu: %s\n", (unsigned long long)id, e.msg);
    assert_int_equal(st, CZ_OK);
    cz_store_job_free(&j);
    return j.state;
}

static cz_store_completion complete(cz_store *s, cz_job_id job, uint32_t k)
{
    uint8_t p[PB];
    fake_proof(job, k, p);
    cz_engine_timings t = {.n = 1};
    snprintf(t.phase[0].name, sizeof t.phase[0].name, "synth");
    t.phase[0].ms = 1.5;
    cz_store_completion c;
    cz_errbuf e = {{0}};
    cz_status st = cz_store_complete_partition(s, job, k, p, PB, &t, &c, &e);
    if (st != CZ_OK)
        fprintf(stderr, "complete %llu/%u: %s\n", (unsigned long long)job, k, e.msg);
    assert_int_equal(st, CZ_OK);
    return c;
}

/* Assembles and finishes a job whose partitions are all done. */
static void assemble(cz_store *s, cz_job_id job, uint32_t parts)
{
    uint8_t *proofs = NULL;
    size_t len = 0;
    cz_errbuf e = {{0}};
    assert_int_equal(cz_store_partition_proofs(s, job, &proofs, &len, &e), CZ_OK);
    assert_int_equal(len, (size_t)parts * PB);
    for (uint32_t k = 0; k < parts; k++) {
        uint8_t p[PB];
        fake_proof(job, k, p);
        assert_memory_equal(proofs + k * PB, p, PB);
    }
    cz_job_state st;
    assert_int_equal(cz_store_finish_job(s, job, proofs, len, &st, &e), CZ_OK);
    assert_int_equal(st, CZ_JOB_DONE);
    free(proofs);
}

static int group_setup(void **state)
{
    (void)state;
    cz_test_seed();
    return cz_pg_start(&g_pg);
}

static int group_teardown(void **state)
{
    (void)state;
    cz_pg_destroy(&g_pg);
    return 0;
}

/* ------------------------------------------------------------------------ */

static void test_migrations(void **state)
{
    (void)state;
    char ci[512], sql[256];
    new_db(ci, sizeof ci);
    int known = cz_store_schema_version_known();
    assert_true(known >= 1);
    cz_store *a = open_node(ci, "n1", 60000, 3);
    cz_store *b = open_node(ci, "n2", 60000, 3); /* second open: nothing to apply */
    cz_store_close(b);
    cz_store_close(a);
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_schema_migrations"), known);
    assert_int_equal(cz_pg_query_ll(ci, "SELECT max(version) FROM cuzk_schema_migrations"), known);
    /* applied by the first node, once */
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_schema_migrations WHERE applied_by = 'n1'"),
                     known);
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_nodes"), 2);

    /* a database migrated by a newer cuzk */
    snprintf(sql, sizeof sql,
             "INSERT INTO cuzk_schema_migrations (version, name) VALUES (%d, 'from_the_future')", known + 1);
    assert_int_equal(cz_pg_exec(ci, sql), 0);
    cz_store_config c;
    cz_store_config_default(&c);
    c.conninfo = ci;
    c.node_id = "n3";
    cz_store *s = (cz_store *)1;
    cz_errbuf e = {{0}};
    assert_int_equal(cz_store_open(&s, &c, &e), CZ_ERR_UNSUPPORTED);
    assert_null(s);
    fprintf(stderr, "newer schema: %s\n", e.msg);
    char want[128];
    snprintf(want, sizeof want, "database schema version %d is newer than this build of cuzk knows (%d)",
             known + 1, known);
    assert_non_null(strstr(e.msg, want));
    /* refused before anything was written (the node was not registered) */
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_nodes WHERE node_id = 'n3'"), 0);
    snprintf(sql, sizeof sql, "DELETE FROM cuzk_schema_migrations WHERE version = %d", known + 1);
    assert_int_equal(cz_pg_exec(ci, sql), 0);

    /* a migration of the same number but another name: another line of cuzk */
    assert_int_equal(cz_pg_exec(ci, "UPDATE cuzk_schema_migrations SET name = 'other' WHERE version = 1"), 0);
    assert_int_equal(cz_store_open(&s, &c, &e), CZ_ERR_MISMATCH);
    fprintf(stderr, "renamed migration: %s\n", e.msg);
    assert_non_null(strstr(e.msg, "'other'"));
    assert_int_equal(cz_pg_exec(ci, "UPDATE cuzk_schema_migrations SET name = 'initial' WHERE version = 1"), 0);
    s = open_node(ci, "n3", 60000, 3);
    cz_store_close(s);

    /* a server that is not there: the message names it */
    char bad[600];
    snprintf(bad, sizeof bad, "host=%s port=1 user=cuzk dbname=nope", g_pg.dir);
    c.conninfo = bad;
    assert_int_equal(cz_store_open(&s, &c, &e), CZ_ERR_IO);
    fprintf(stderr, "no server: %s\n", e.msg);
    assert_non_null(strstr(e.msg, "cannot connect to database 'nope'"));
    c.conninfo = ci;
    c.node_id = "";
    assert_int_equal(cz_store_open(&s, &c, &e), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(e.msg, "node id"));
}

static void test_submit_dedupe(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_store *s = open_node(ci, "n1", 60000, 3);
    cz_store *t = open_node(ci, "n2", 60000, 3);
    bool ex = true;
    cz_job_id a = submit(s, "c1", 3, CZ_PRIO_NORMAL, "payload-a", "rid-1", &ex);
    assert_false(ex);
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_partitions"), 3);
    /* the same request from another node: the same job, priority aside */
    cz_job_id a2 = submit(t, "c1", 3, CZ_PRIO_HIGH, "payload-a", "rid-1", &ex);
    assert_true(ex);
    assert_int_equal(a2, a);
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_jobs"), 1);

    /* anything else under the id is refused, naming the holder, never the payload */
    cz_errbuf e = {{0}};
    cz_job_id id = 0;
    cz_store_job_request rq = {.circuit_id = "c1", .payload = "payload-b", .payload_len = 9,
                               .num_partitions = 3, .request_id = "rid-1"};
    assert_int_equal(cz_store_submit(s, &rq, &id, &ex, &e), CZ_ERR_BUSY);
    fprintf(stderr, "busy: %s\n", e.msg);
    assert_non_null(strstr(e.msg, "request id 'rid-1' is held by job"));
    assert_null(strstr(e.msg, "payload-b"));
    assert_int_equal(id, 0);
    rq.payload = "payload-a";
    rq.num_partitions = 4;
    assert_int_equal(cz_store_submit(s, &rq, &id, &ex, &e), CZ_ERR_BUSY);
    rq.num_partitions = 3;
    rq.circuit_id = "c2";
    assert_int_equal(cz_store_submit(s, &rq, &id, &ex, &e), CZ_ERR_BUSY);

    /* a CANCELLED job frees its id: a new job (a retry), not the old one */
    cz_job_state js;
    assert_int_equal(cz_store_cancel(s, a, &js, &e), CZ_OK);
    assert_int_equal(js, CZ_JOB_CANCELLED);
    cz_job_id b = submit(t, "c1", 3, CZ_PRIO_NORMAL, "payload-a", "rid-1", &ex);
    assert_false(ex);
    assert_true(b != a);
    /* ... and so does a FAILED one */
    assert_int_equal(cz_store_fail_partition(t, b, 1, "synthesize: unsatisfied", &js, &e), CZ_OK);
    assert_int_equal(js, CZ_JOB_FAILED);
    cz_store_job j;
    assert_int_equal(cz_store_get_job(s, b, false, &j, &e), CZ_OK);
    assert_string_equal(j.error, "partition 1/3: synthesize: unsatisfied");
    assert_int_equal(j.failed_partition, 1);
    assert_string_equal(j.request_id, "rid-1");
    cz_job_id c = submit(s, "c1", 3, CZ_PRIO_NORMAL, "payload-a", "rid-1", &ex);
    assert_false(ex);
    /* get by request id: the live holder */
    assert_int_equal(cz_store_get_job_by_request(s, "rid-1", false, &j, &e), CZ_OK);
    assert_int_equal(j.id, c);
    assert_int_equal(j.state, CZ_JOB_QUEUED);

    /* a DONE job keeps its id */
    cz_job_id d = submit(s, "c1", 1, CZ_PRIO_NORMAL, "", "rid-2", &ex); /* empty payload */
    assert_int_equal(complete(s, d, 0).assemble, true);
    assemble(s, d, 1);
    assert_int_equal(submit(t, "c1", 1, CZ_PRIO_LOW, "", "rid-2", &ex), d);
    assert_true(ex);

    /* a payload URI instead of the bytes: part of the key as well */
    cz_store_job_request ru = {.circuit_id = "c1", .payload_uri = "s3://b/k", .num_partitions = 2,
                               .request_id = "rid-3"};
    cz_job_id u1, u2;
    assert_int_equal(cz_store_submit(s, &ru, &u1, &ex, &e), CZ_OK);
    assert_false(ex);
    assert_int_equal(cz_store_submit(t, &ru, &u2, &ex, &e), CZ_OK);
    assert_true(ex);
    assert_int_equal(u1, u2);
    ru.payload_uri = "s3://b/other";
    assert_int_equal(cz_store_submit(t, &ru, &u2, &ex, &e), CZ_ERR_BUSY);

    /* without a request id every submission is a new job */
    cz_job_id n1 = submit(s, "c1", 1, CZ_PRIO_NORMAL, "x", NULL, &ex);
    cz_job_id n2 = submit(s, "c1", 1, CZ_PRIO_NORMAL, "x", "", &ex);
    assert_true(n1 != n2);

    /* refusals name the argument */
    rq = (cz_store_job_request){.circuit_id = "c1", .num_partitions = 0};
    assert_int_equal(cz_store_submit(s, &rq, &id, NULL, &e), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(e.msg, "partition count 0"));
    rq.num_partitions = 1;
    rq.priority = (cz_priority)9;
    assert_int_equal(cz_store_submit(s, &rq, &id, NULL, &e), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(e.msg, "priority 9"));
    rq.priority = CZ_PRIO_LOW;
    rq.payload_len = 5;
    assert_int_equal(cz_store_submit(s, &rq, &id, NULL, &e), CZ_ERR_INVALID_ARG);
    rq.payload_len = 0;
    rq.circuit_id = "";
    assert_int_equal(cz_store_submit(s, &rq, &id, NULL, &e), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(e.msg, "circuit id"));
    assert_int_equal(cz_store_get_job(s, 999999, false, &j, &e), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(e.msg, "unknown job 999999"));
    cz_store_close(t);
    cz_store_close(s);
}

static void test_claim_order(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_store *s = open_node(ci, "n1", 60000, 3);
    cz_job_id low = submit(s, "c1", 1, CZ_PRIO_LOW, "L", NULL, NULL);
    cz_job_id norm1 = submit(s, "c1", 1, CZ_PRIO_NORMAL, "N1", NULL, NULL);
    cz_job_id high = submit(s, "c1", 2, CZ_PRIO_HIGH, "HH", NULL, NULL);
    cz_job_id norm2 = submit(s, "c1", 1, CZ_PRIO_NORMAL, "N2", NULL, NULL);
    cz_job_id other = submit(s, "c2", 1, CZ_PRIO_CRITICAL, "O", NULL, NULL);
    const char *only_c1[] = {"c1"};
    const struct { cz_job_id job; uint32_t k; const char *payload; } want[] = {
        {high, 0, "HH"}, {high, 1, "HH"}, {norm1, 0, "N1"}, {norm2, 0, "N2"}, {low, 0, "L"}};
    cz_errbuf e = {{0}};
    /* one at a time: the order of successive claims */
    for (size_t i = 0; i < 5; i++) {
        cz_store_claimed_set set;
        assert_int_equal(cz_store_claim(s, 1, only_c1, 1, &set, &e), CZ_OK);
        assert_int_equal(set.n, 1);
        assert_int_equal(set.parts[0].job, want[i].job);
        assert_int_equal(set.parts[0].k, want[i].k);
        assert_int_equal(set.parts[0].attempts, 1);
        assert_string_equal(set.parts[0].circuit_id, "c1");
        assert_int_equal(set.parts[0].payload_len, strlen(want[i].payload));
        assert_memory_equal(set.parts[0].payload, want[i].payload, set.parts[0].payload_len);
        assert_null(set.parts[0].payload_uri);
        assert_true(set.parts[0].lease_expires_ms > 0);
        cz_store_claimed_set_free(&set);
        assert_int_equal(job_state(s, want[i].job), CZ_JOB_RUNNING);
    }
    cz_store_claimed_set set;
    assert_int_equal(cz_store_claim(s, 10, only_c1, 1, &set, &e), CZ_OK);
    assert_int_equal(set.n, 0); /* c1 is empty; c2's job is filtered out */
    cz_store_claimed_set_free(&set);
    assert_int_equal(job_state(s, other), CZ_JOB_QUEUED);

    /* several at once: the same order within the set, one payload per job */
    cz_job_id j1 = submit(s, "c3", 3, CZ_PRIO_NORMAL, "three", NULL, NULL);
    cz_job_id j2 = submit(s, "c3", 2, CZ_PRIO_HIGH, "two", NULL, NULL);
    cz_store_job_request ru = {.circuit_id = "c3", .payload_uri = "file:///p", .num_partitions = 1};
    cz_job_id j3;
    assert_int_equal(cz_store_submit(s, &ru, &j3, NULL, &e), CZ_OK);
    assert_int_equal(cz_store_claim(s, 10, NULL, 0, &set, &e), CZ_OK);
    assert_int_equal(set.n, 7); /* c2's one + c3's six */
    assert_int_equal(set.parts[0].job, other);
    assert_int_equal(set.parts[1].job, j2);
    assert_int_equal(set.parts[2].job, j2);
    assert_int_equal(set.parts[2].k, 1);
    assert_ptr_equal(set.parts[1].payload, set.parts[2].payload);
    assert_int_equal(set.parts[3].job, j1);
    assert_int_equal(set.parts[5].job, j1);
    assert_int_equal(set.parts[5].k, 2);
    assert_int_equal(set.parts[5].num_partitions, 3);
    assert_ptr_equal(set.parts[3].payload, set.parts[5].payload);
    assert_memory_equal(set.parts[4].payload, "three", 5);
    assert_int_equal(set.parts[6].job, j3);
    assert_string_equal(set.parts[6].payload_uri, "file:///p");
    assert_null(set.parts[6].payload);
    cz_store_claimed_set_free(&set);
    assert_int_equal(cz_store_claim(s, 0, NULL, 0, &set, &e), CZ_ERR_INVALID_ARG);
    cz_store_close(s);
}

/* ---- SKIP LOCKED ---- */

#define CLAIMERS 4
#define SL_JOBS 4
#define SL_PARTS 25

typedef struct {
    const char *conninfo;
    char node[16];
    cz_store_part got[SL_JOBS * SL_PARTS];
    size_t n;
    int rc;
    pthread_barrier_t *start;
} claimer;

static void *claimer_main(void *arg)
{
    claimer *c = arg;
    cz_store_config cfg;
    cz_store_config_default(&cfg);
    cfg.conninfo = c->conninfo;
    cfg.node_id = c->node;
    cz_store *s = NULL;
    cz_errbuf e = {{0}};
    c->rc = cz_store_open(&s, &cfg, &e);
    pthread_barrier_wait(c->start);
    if (c->rc != CZ_OK) {
        fprintf(stderr, "%s: %s\n", c->node, e.msg);
        return NULL;
    }
    for (;;) {
        cz_store_claimed_set set;
        cz_status st = cz_store_claim(s, 3, NULL, 0, &set, &e);
        if (st != CZ_OK) {
            fprintf(stderr, "%s: %s\n", c->node, e.msg);
            c->rc = st;
            break;
        }
        if (set.n == 0)
            break;
        for (size_t i = 0; i < set.n && c->n < SL_JOBS * SL_PARTS; i++)
            c->got[c->n++] = (cz_store_part){set.parts[i].job, set.parts[i].k};
        cz_store_claimed_set_free(&set);
    }
    cz_store_close(s);
    return NULL;
}

static void test_skip_locked(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_store *s = open_node(ci, "submitter", 60000, 3);
    cz_job_id jobs[SL_JOBS];
    for (int i = 0; i < SL_JOBS; i++)
        jobs[i] = submit(s, "c1", SL_PARTS, (cz_priority)(i % 4), "p", NULL, NULL);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, CLAIMERS);
    static claimer cl[CLAIMERS];
    pthread_t th[CLAIMERS];
    for (int i = 0; i < CLAIMERS; i++) {
        memset(&cl[i], 0, sizeof cl[i]);
        cl[i].conninfo = ci;
        cl[i].start = &start;
        snprintf(cl[i].node, sizeof cl[i].node, "claimer-%d", i);
        assert_int_equal(pthread_create(&th[i], NULL, claimer_main, &cl[i]), 0);
    }
    for (int i = 0; i < CLAIMERS; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    /* every partition exactly once over all claimers */
    static int seen[SL_JOBS][SL_PARTS];
    memset(seen, 0, sizeof seen);
    size_t total = 0;
    for (int i = 0; i < CLAIMERS; i++) {
        assert_int_equal(cl[i].rc, CZ_OK);
        fprintf(stderr, "%s claimed %zu\n", cl[i].node, cl[i].n);
        for (size_t j = 0; j < cl[i].n; j++) {
            int ji = -1;
            for (int q = 0; q < SL_JOBS; q++)
                if (jobs[q] == cl[i].got[j].job)
                    ji = q;
            assert_true(ji >= 0);
            assert_true(cl[i].got[j].k < SL_PARTS);
            seen[ji][cl[i].got[j].k]++;
            total++;
        }
    }
    assert_int_equal(total, SL_JOBS * SL_PARTS);
    for (int q = 0; q < SL_JOBS; q++)
        for (int k = 0; k < SL_PARTS; k++)
            assert_int_equal(seen[q][k], 1);
    /* the database agrees: each claimed once, by the node that got it */
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_partitions WHERE state <> 'claimed'"
                                        " OR attempts <> 1"), 0);
    cz_store_close(s);
}

/* ---- leases ---- */

static void test_lease_reclaim(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_store *a = open_node(ci, "node-a", 100, 2);
    cz_store *b = open_node(ci, "node-b", 100, 2);
    cz_job_id job = submit(a, "c1", 2, CZ_PRIO_NORMAL, "p", NULL, NULL);
    cz_errbuf e = {{0}};
    cz_store_claimed_set set;
    assert_int_equal(cz_store_claim(a, 1, NULL, 0, &set, &e), CZ_OK);
    assert_int_equal(set.n, 1);
    cz_store_part held = {set.parts[0].job, set.parts[0].k};
    cz_store_claimed_set_free(&set);
    /* nobody reclaimed it: the heartbeat renews it, lapsed or not */
    cz_store_lost *lost = NULL;
    size_t nlost = 9;
    assert_int_equal(cz_store_heartbeat(a, &held, 1, &lost, &nlost, &e), CZ_OK);
    assert_int_equal(nlost, 0);
    assert_null(lost);

    sleep_ms(400); /* 4 leases: node-a is "dead" */
    cz_store_reclaim_stats rs;
    assert_int_equal(cz_store_reclaim_expired(b, &rs, &e), CZ_OK);
    assert_int_equal(rs.requeued, 1);
    assert_int_equal(rs.jobs_failed, 0);
    assert_int_equal(cz_store_reclaim_expired(b, &rs, &e), CZ_OK); /* idempotent */
    assert_int_equal(rs.requeued, 0);
    /* node-a comes back: its heartbeat says the partition is gone */
    assert_int_equal(cz_store_heartbeat(a, &held, 1, &lost, &nlost, &e), CZ_OK);
    assert_int_equal(nlost, 1);
    assert_int_equal(lost[0].job, held.job);
    assert_int_equal(lost[0].reason, CZ_STORE_LOST_RECLAIMED);
    free(lost);
    /* node-b takes both: the reclaimed one on its second attempt */
    assert_int_equal(cz_store_claim(b, 5, NULL, 0, &set, &e), CZ_OK);
    assert_int_equal(set.n, 2);
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(set.parts[i].attempts, set.parts[i].k == held.k ? 2 : 1);
    cz_store_claimed_set_free(&set);
    /* node-a's late result still counts (first completion wins) */
    cz_store_completion c = complete(a, held.job, held.k);
    assert_int_equal(c.result, CZ_STORE_COMPLETE_WRITTEN);
    assert_false(c.assemble);
    assert_int_equal(cz_store_heartbeat(b, &held, 1, &lost, &nlost, &e), CZ_OK);
    assert_int_equal(nlost, 1);
    assert_int_equal(lost[0].reason, CZ_STORE_LOST_DONE);
    free(lost);

    sleep_ms(400); /* node-b dies too: its other partition (attempt 1 of 2) is requeued */
    assert_int_equal(cz_store_reclaim_expired(a, &rs, &e), CZ_OK);
    assert_int_equal(rs.requeued, 1);
    assert_int_equal(cz_store_claim(b, 5, NULL, 0, &set, &e), CZ_OK);
    assert_int_equal(set.n, 1);
    assert_int_equal(set.parts[0].attempts, 2);
    uint32_t k = set.parts[0].k;
    cz_store_claimed_set_free(&set);
    sleep_ms(400); /* lapsed on its last attempt: the job fails, naming it */
    assert_int_equal(cz_store_reclaim_expired(a, &rs, &e), CZ_OK);
    assert_int_equal(rs.requeued, 0);
    assert_int_equal(rs.jobs_failed, 1);
    cz_store_job j;
    assert_int_equal(cz_store_get_job(a, job, false, &j, &e), CZ_OK);
    assert_int_equal(j.state, CZ_JOB_FAILED);
    assert_int_equal(j.failed_partition, (int32_t)k);
    fprintf(stderr, "out of attempts: %s\n", j.error);
    char want[128];
    snprintf(want, sizeof want, "partition %u/2: lease lapsed 2 times, last held by node 'node-b'", k);
    assert_string_equal(j.error, want);
    c = complete(b, job, k);
    assert_int_equal(c.result, CZ_STORE_COMPLETE_JOB_ENDED);
    cz_store_close(a);
    cz_store_close(b);
}

/* ---- completion written once ---- */

typedef struct {
    cz_store *s;
    cz_job_id job;
    uint32_t k;
    pthread_barrier_t *go;
    cz_store_completion out;
} racer;

static void *racer_main(void *arg)
{
    racer *r = arg;
    uint8_t p[PB];
    fake_proof(r->job, r->k, p);
    cz_errbuf e = {{0}};
    pthread_barrier_wait(r->go);
    if (cz_store_complete_partition(r->s, r->job, r->k, p, PB, NULL, &r->out, &e) != CZ_OK) {
        fprintf(stderr, "racer: %s\n", e.msg);
        r->out.result = (cz_store_complete_result)-1;
    }
    return NULL;
}

static void test_complete_once(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_store *a = open_node(ci, "node-a", 60000, 3);
    cz_store *b = open_node(ci, "node-b", 60000, 3);
    cz_errbuf e = {{0}};
    for (int round = 0; round < 5; round++) {
        cz_job_id job = submit(a, "c1", 2, CZ_PRIO_NORMAL, "p", NULL, NULL);
        cz_store_completion c = complete(a, job, 0);
        assert_int_equal(c.result, CZ_STORE_COMPLETE_WRITTEN);
        assert_false(c.assemble);
        assert_int_equal(c.partitions_done, 1);
        assert_int_equal(complete(b, job, 0).result, CZ_STORE_COMPLETE_DUPLICATE);
        /* node-a again (its COMMIT's answer was lost): the same answer */
        c = complete(a, job, 0);
        assert_int_equal(c.result, CZ_STORE_COMPLETE_WRITTEN);
        assert_false(c.assemble);
        /* both nodes finish the last partition at once */
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, 2);
        racer ra = {.s = a, .job = job, .k = 1, .go = &go}, rb = {.s = b, .job = job, .k = 1, .go = &go};
        pthread_t ta, tb;
        assert_int_equal(pthread_create(&ta, NULL, racer_main, &ra), 0);
        assert_int_equal(pthread_create(&tb, NULL, racer_main, &rb), 0);
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
        pthread_barrier_destroy(&go);
        racer *win = ra.out.result == CZ_STORE_COMPLETE_WRITTEN ? &ra : &rb;
        racer *lose = win == &ra ? &rb : &ra;
        assert_int_equal(win->out.result, CZ_STORE_COMPLETE_WRITTEN);
        assert_true(win->out.assemble);
        assert_int_equal(win->out.partitions_done, 2);
        assert_int_equal(lose->out.result, CZ_STORE_COMPLETE_DUPLICATE);
        assert_false(lose->out.assemble);
        cz_store_job j;
        assert_int_equal(cz_store_get_job(a, job, false, &j, &e), CZ_OK);
        assert_string_equal(j.assembler, win->s == a ? "node-a" : "node-b");
        assert_int_equal(j.partitions_done, 2);
        /* the assembler's lease is live: nobody else may take the assembly */
        cz_job_id taken = 7;
        assert_int_equal(cz_store_claim_assembly(lose->s, &taken, &e), CZ_OK);
        assert_int_equal(taken, 0);
        assemble(win->s, job, 2);
        cz_job_state st;
        uint8_t p[PB] = {0};
        assert_int_equal(cz_store_finish_job(lose->s, job, p, PB, &st, &e), CZ_ERR_BUSY);
        assert_int_equal(st, CZ_JOB_DONE);
        assert_int_equal(complete(lose->s, job, 1).result, CZ_STORE_COMPLETE_DUPLICATE);
        assert_int_equal(cz_store_await(b, job, 0, &j, &e), CZ_OK);
        assert_int_equal(j.state, CZ_JOB_DONE);
        assert_int_equal(j.proof_len, 2 * PB);
        cz_store_job_free(&j);
    }
    /* a finished job is not finished twice; one with parts missing not at all */
    cz_job_id job = submit(a, "c1", 2, CZ_PRIO_NORMAL, "p", NULL, NULL);
    uint8_t p[PB] = {0};
    cz_job_state st;
    assert_int_equal(cz_store_finish_job(a, job, p, PB, &st, &e), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(e.msg, "0 of 2 partitions done"));
    cz_store_completion c;
    assert_int_equal(cz_store_complete_partition(a, job, 2, p, PB, NULL, &c, &e), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(e.msg, "no partition 2"));
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_partitions WHERE (timings->>'synth')::float8 = 1.5"),
                     5); /* the first completion of k = 0 in each round; the racers sent none */
    cz_store_close(a);
    cz_store_close(b);
}

static void test_assembly_takeover(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_store *a = open_node(ci, "node-a", 100, 3); /* short leases: it "dies" */
    cz_store *b = open_node(ci, "node-b", 60000, 3);
    cz_job_id job = submit(b, "c1", 1, CZ_PRIO_NORMAL, "p", NULL, NULL);
    cz_store_completion c = complete(a, job, 0);
    assert_true(c.assemble);
    sleep_ms(400); /* node-a never heartbeats again */
    cz_errbuf e = {{0}};
    cz_job_id taken = 0;
    assert_int_equal(cz_store_claim_assembly(b, &taken, &e), CZ_OK);
    assert_int_equal(taken, job);
    assert_int_equal(cz_store_claim_assembly(b, &taken, &e), CZ_OK); /* held now */
    assert_int_equal(taken, 0);
    assemble(b, job, 1);
    cz_store_close(a);
    cz_store_close(b);
}

/* ---- what cuzkd's store node adds: prefix filters, giving claims back,
 * a restarted node's old claims, a job's payload ---- */

static size_t claim_n(cz_store *s, uint32_t max, const char *const *circ, size_t nc, cz_store_claimed_set *set)
{
    cz_errbuf e = {{0}};
    cz_status st = cz_store_claim(s, max, circ, nc, set, &e);
    if (st != CZ_OK)
        fprintf(stderr, "claim: %s\n", e.msg);
    assert_int_equal(st, CZ_OK);
    return set->n;
}

static void test_node_calls(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_store *a = open_node(ci, "node-a", 60000, 3);
    cz_store *b = open_node(ci, "node-b", 60000, 3);
    cz_errbuf e = {{0}};
    cz_job_id j1 = submit(a, "porep-2k", 2, CZ_PRIO_NORMAL, "one", NULL, NULL);
    cz_job_id j2 = submit(a, "wpost-2k", 1, CZ_PRIO_NORMAL, "two", NULL, NULL);
    /* "porep*" matches porep-2k only; an exact id still matches exactly */
    const char *pre[] = {"porep*"};
    cz_store_claimed_set set = {0};
    assert_int_equal(claim_n(a, 10, pre, 1, &set), 2);
    for (size_t i = 0; i < set.n; i++)
        assert_int_equal(set.parts[i].job, j1);
    cz_store_claimed_set_free(&set);
    const char *none[] = {"porep-2k"};
    assert_int_equal(claim_n(b, 10, none, 1, &set), 0); /* all claimed */
    cz_store_claimed_set_free(&set);

    /* a claim given back is queued again at once, without an attempt */
    bool rel = false;
    assert_int_equal(cz_store_release_partition(a, j1, 1, &rel, &e), CZ_OK);
    assert_true(rel);
    assert_int_equal(cz_store_release_partition(b, j1, 0, &rel, &e), CZ_OK); /* not b's claim */
    assert_false(rel);
    assert_int_equal(claim_n(b, 10, none, 1, &set), 1);
    assert_int_equal(set.parts[0].k, 1);
    assert_int_equal(set.parts[0].attempts, 1);
    cz_store_claimed_set_free(&set);

    /* node-a "restarts": its claim of (j1, 0) is queued again at once
     * (its heartbeat would otherwise renew it), b's claim is untouched */
    cz_store_close(a);
    a = open_node(ci, "node-a", 60000, 3);
    size_t n = 0;
    assert_int_equal(cz_store_release_node(a, &n, &e), CZ_OK);
    assert_int_equal(n, 1);
    assert_int_equal(cz_store_release_node(a, &n, &e), CZ_OK); /* idempotent */
    assert_int_equal(n, 0);
    assert_int_equal(claim_n(a, 10, pre, 1, &set), 1);
    assert_int_equal(set.parts[0].job, j1);
    assert_int_equal(set.parts[0].k, 0);
    assert_int_equal(set.parts[0].attempts, 2); /* the lost run counted */
    cz_store_claimed_set_free(&set);

    /* the payload, for a node taking over an assembly */
    uint8_t *pl = NULL;
    size_t len = 0;
    char *uri = NULL;
    assert_int_equal(cz_store_job_payload(b, j2, &pl, &len, &uri, &e), CZ_OK);
    assert_null(uri);
    assert_int_equal(len, 3);
    assert_memory_equal(pl, "two", 3);
    free(pl);
    cz_store_job_request rq = {.circuit_id = "c", .payload_uri = "file:///srv/p.bin", .num_partitions = 1};
    cz_job_id j3 = 0;
    assert_int_equal(cz_store_submit(a, &rq, &j3, NULL, &e), CZ_OK);
    assert_int_equal(cz_store_job_payload(b, j3, &pl, &len, &uri, &e), CZ_OK);
    assert_null(pl);
    assert_string_equal(uri, "file:///srv/p.bin");
    free(uri);
    assert_int_equal(cz_store_job_payload(b, 999999, &pl, &len, &uri, &e), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(e.msg, "999999"));
    cz_store_close(a);
    cz_store_close(b);
}

static int64_t unix_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- nodes: the operator's listing and the pruning of silent nodes ---- */

static cz_status open_observer(const char *conninfo, cz_store **s, cz_errbuf *e)
{
    cz_store_config c;
    cz_store_config_default(&c);
    c.conninfo = conninfo;
    c.observer = true;
    return cz_store_open(s, &c, e);
}

static const cz_store_node_info *find_node(const cz_store_node_info *v, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].node_id, id))
            return &v[i];
    return NULL;
}

static void test_node_listing(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_errbuf e = {{0}};
    cz_store *o = NULL;
    /* an observer creates nothing: a database without the store says so */
    assert_int_equal(open_observer(ci, &o, &e), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(e.msg, "no cuzk job store"));
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'cuzk%'"), 0);

    cz_store *a = open_node(ci, "node-a", 60000, 3);
    cz_store *b = open_node(ci, "node-b", 60000, 3);
    cz_store *c = open_node(ci, "node-c", 60000, 3);
    cz_job_id j = submit(a, "porep-2k", 2, CZ_PRIO_NORMAL, "p", NULL, NULL);
    const char *pre[] = {"porep*"};
    cz_store_claimed_set set = {0};
    assert_int_equal(claim_n(a, 1, pre, 1, &set), 1);
    cz_store_claimed_set_free(&set);
    assert_int_equal(claim_n(b, 1, pre, 1, &set), 1);
    uint32_t kb = set.parts[0].k;
    cz_store_claimed_set_free(&set);
    complete(b, j, kb);

    assert_int_equal(open_observer(ci, &o, &e), CZ_OK);
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_nodes"), 3); /* not registered */
    cz_store_node_info *v = NULL;
    size_t n = 0;
    assert_int_equal(cz_store_list_nodes(o, &v, &n, &e), CZ_OK);
    assert_int_equal(n, 3);
    assert_string_equal(v[0].node_id, "node-a"); /* by node id */
    assert_string_equal(v[2].node_id, "node-c");
    const cz_store_node_info *na = find_node(v, n, "node-a"), *nb = find_node(v, n, "node-b");
    assert_int_equal(na->claimed, 1);
    assert_int_equal(na->claimed_lapsed, 0);
    assert_int_equal(na->completed, 0);
    assert_int_equal(nb->claimed, 0);
    assert_int_equal(nb->completed, 1);
    assert_string_equal(na->address, "test");
    assert_true(na->started_ms > 0 && na->heartbeat_ms >= na->started_ms);
    assert_true(na->silent_ms >= 0 && na->silent_ms < 60000);
    free(v);

    /* a's lease lapses: the listing says so before the reclaim runs */
    assert_int_equal(cz_pg_query_ll(ci, "WITH u AS (UPDATE cuzk_partitions SET lease_expires = now() - interval '1 s'"
                                        " WHERE state = 'claimed' RETURNING 1) SELECT count(*) FROM u"), 1);
    assert_int_equal(cz_store_list_nodes(o, &v, &n, &e), CZ_OK);
    assert_int_equal(find_node(v, n, "node-a")->claimed_lapsed, 1);
    free(v);

    /* eight days on: b (holding nothing) goes; a holds a claim and c is
     * the caller, so both stay; the observer prunes nothing */
    size_t pruned = 99;
    assert_int_equal(cz_store_prune_nodes(c, unix_ms(), &pruned, &e), CZ_OK);
    assert_int_equal(pruned, 0); /* nobody silent for 7 days yet */
    assert_int_equal(cz_store_prune_nodes(c, unix_ms() + 8 * 86400000ll, &pruned, &e), CZ_OK);
    assert_int_equal(pruned, 1);
    assert_int_equal(cz_store_prune_nodes(o, unix_ms() + 8 * 86400000ll, &pruned, &e), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_store_list_nodes(o, &v, &n, &e), CZ_OK);
    assert_int_equal(n, 2);
    assert_non_null(find_node(v, n, "node-a"));
    assert_null(find_node(v, n, "node-b"));
    free(v);
    /* b was alive after all: its next heartbeat registers it again */
    cz_store_lost *lost = NULL;
    size_t nlost = 0;
    assert_int_equal(cz_store_heartbeat(b, NULL, 0, &lost, &nlost, &e), CZ_OK);
    free(lost);
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_nodes WHERE node_id = 'node-b'"), 1);
    /* its proof is still counted for it: completed_by is kept */
    assert_int_equal(cz_store_list_nodes(o, &v, &n, &e), CZ_OK);
    assert_int_equal(find_node(v, n, "node-b")->completed, 1);
    free(v);
    cz_store_close(o);
    cz_store_close(a);
    cz_store_close(b);
    cz_store_close(c);
}

/* ---- cancel ---- */

static void test_cancel_heartbeat(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_store *a = open_node(ci, "node-a", 60000, 3);
    cz_store *b = open_node(ci, "node-b", 60000, 3);
    cz_job_id job = submit(b, "c1", 3, CZ_PRIO_NORMAL, "p", NULL, NULL);
    cz_job_id keep = submit(b, "c1", 1, CZ_PRIO_LOW, "q", NULL, NULL);
    cz_errbuf e = {{0}};
    cz_store_claimed_set set;
    assert_int_equal(cz_store_claim(a, 1, NULL, 0, &set, &e), CZ_OK);
    assert_int_equal(set.n, 1);
    assert_int_equal(set.parts[0].job, job);
    cz_store_part held = {job, set.parts[0].k};
    cz_store_claimed_set_free(&set);
    cz_job_state st;
    assert_int_equal(cz_store_cancel(b, job, &st, &e), CZ_OK);
    assert_int_equal(st, CZ_JOB_CANCELLED);
    assert_int_equal(cz_store_cancel(b, job, &st, &e), CZ_ERR_BUSY);
    assert_int_equal(st, CZ_JOB_CANCELLED);
    assert_non_null(strstr(e.msg, "already cancelled"));
    assert_int_equal(cz_store_cancel(b, 424242, &st, &e), CZ_ERR_NOT_FOUND);
    /* the claimer learns it at its heartbeat */
    cz_store_lost *lost = NULL;
    size_t nlost = 0;
    assert_int_equal(cz_store_heartbeat(a, &held, 1, &lost, &nlost, &e), CZ_OK);
    assert_int_equal(nlost, 1);
    assert_int_equal(lost[0].reason, CZ_STORE_LOST_JOB_ENDED);
    free(lost);
    /* its queued partitions were dropped: the next claim gets the other job */
    assert_int_equal(cz_store_claim(b, 10, NULL, 0, &set, &e), CZ_OK);
    assert_int_equal(set.n, 1);
    assert_int_equal(set.parts[0].job, keep);
    cz_store_claimed_set_free(&set);
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_partitions WHERE error = 'dropped: job cancelled'"), 3);
    assert_int_equal(complete(a, job, held.k).result, CZ_STORE_COMPLETE_JOB_ENDED);
    cz_store_job j;
    assert_int_equal(cz_store_await(a, job, 1000, &j, &e), CZ_OK);
    assert_int_equal(j.state, CZ_JOB_CANCELLED);
    assert_string_equal(j.error, "cancelled");
    assert_null(j.proof);
    /* a pruned partition: gone */
    cz_store_part ghost = {987654, 0};
    assert_int_equal(cz_store_heartbeat(a, &ghost, 1, &lost, &nlost, &e), CZ_OK);
    assert_int_equal(nlost, 1);
    assert_int_equal(lost[0].reason, CZ_STORE_LOST_GONE);
    free(lost);
    cz_store_close(a);
    cz_store_close(b);
}

/* ---- await + NOTIFY ---- */

typedef struct {
    const char *conninfo;
    cz_job_id job;
    atomic_int listening;
    cz_status st;
    cz_store_job out;
    cz_store_stats stats;
} waiter;

static void *waiter_main(void *arg)
{
    waiter *w = arg;
    cz_store_config c;
    cz_store_config_default(&c);
    c.conninfo = w->conninfo;
    c.node_id = "waiter";
    /* a poll far beyond the wait: only a notification can end it in time */
    c.await_poll_ms = 3600000;
    cz_store *s = NULL;
    cz_errbuf e = {{0}};
    w->st = cz_store_open(&s, &c, &e);
    if (w->st == CZ_OK) {
        /* one look: LISTEN is in place once it returns */
        w->st = cz_store_await(s, w->job, 0, &w->out, &e);
        atomic_store(&w->listening, 1);
        if (w->st == CZ_ERR_TIMEOUT)
            w->st = cz_store_await(s, w->job, 30000, &w->out, &e);
        cz_store_get_stats(s, &w->stats);
        cz_store_close(s);
    } else {
        atomic_store(&w->listening, 1);
    }
    if (w->st != CZ_OK)
        fprintf(stderr, "waiter: %s\n", e.msg);
    return NULL;
}

static void test_await_notify(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_store *s = open_node(ci, "node-a", 60000, 3);
    cz_job_id job = submit(s, "c1", 2, CZ_PRIO_NORMAL, "p", NULL, NULL);
    cz_errbuf e = {{0}};
    cz_store_job j;
    assert_int_equal(cz_store_await(s, job, 0, &j, &e), CZ_ERR_TIMEOUT);
    assert_int_equal(j.state, CZ_JOB_QUEUED);
    assert_non_null(strstr(e.msg, "still queued"));
    assert_int_equal(cz_store_await(s, 5555, 0, &j, &e), CZ_ERR_NOT_FOUND);

    static waiter w;
    memset(&w, 0, sizeof w);
    w.conninfo = ci;
    w.job = job;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, waiter_main, &w), 0);
    while (!atomic_load(&w.listening))
        sleep_ms(5);
    assert_true(complete(s, job, 0).result == CZ_STORE_COMPLETE_WRITTEN);
    assert_true(complete(s, job, 1).assemble);
    assemble(s, job, 2);
    pthread_join(th, NULL);
    assert_int_equal(w.st, CZ_OK);
    assert_int_equal(w.out.state, CZ_JOB_DONE);
    assert_int_equal(w.out.proof_len, 2 * PB);
    uint8_t p[PB];
    fake_proof(job, 1, p);
    assert_memory_equal(w.out.proof + PB, p, PB);
    assert_true(w.stats.notifies >= 1);
    cz_store_job_free(&w.out);
    cz_store_close(s);
}

/* ---- the server restarted under a claim loop ---- */

#define RS_JOBS 6
#define RS_PARTS 3

typedef struct {
    const char *conninfo;
    atomic_int stop;
    atomic_int completed;
    cz_status open_st;
    cz_store_stats stats;
} looper;

static void *looper_main(void *arg)
{
    looper *l = arg;
    cz_store_config c;
    cz_store_config_default(&c);
    c.conninfo = l->conninfo;
    c.node_id = "looper";
    c.lease_ms = 2000; /* a claim whose COMMIT answer is lost comes back soon */
    cz_store *s = NULL;
    cz_errbuf e = {{0}};
    l->open_st = cz_store_open(&s, &c, &e);
    if (l->open_st != CZ_OK) {
        fprintf(stderr, "looper: %s\n", e.msg);
        return NULL;
    }
    while (!atomic_load(&l->stop)) {
        cz_store_reclaim_stats rs;
        if (cz_store_reclaim_expired(s, &rs, &e) != CZ_OK) {
            sleep_ms(50); /* the server is away: try again */
            continue;
        }
        cz_store_claimed_set set;
        if (cz_store_claim(s, 2, NULL, 0, &set, &e) != CZ_OK) {
            sleep_ms(50); /* the server is away: try again */
            continue;
        }
        if (set.n == 0)
            sleep_ms(20);
        for (size_t i = 0; i < set.n; i++) {
            uint8_t p[PB];
            fake_proof(set.parts[i].job, set.parts[i].k, p);
            cz_store_completion done;
            /* completion and finishing are idempotent: retried until stored */
            while (cz_store_complete_partition(s, set.parts[i].job, set.parts[i].k, p, PB, NULL, &done, &e) != CZ_OK &&
                   !atomic_load(&l->stop))
                sleep_ms(50);
            atomic_fetch_add(&l->completed, 1);
            if (!done.assemble)
                continue;
            uint8_t *proofs = NULL;
            size_t len = 0;
            while (cz_store_partition_proofs(s, set.parts[i].job, &proofs, &len, &e) != CZ_OK &&
                   !atomic_load(&l->stop))
                sleep_ms(50);
            cz_job_state st;
            cz_status fs;
            while (proofs && (fs = cz_store_finish_job(s, set.parts[i].job, proofs, len, &st, &e)) != CZ_OK &&
                   fs != CZ_ERR_BUSY && !atomic_load(&l->stop))
                sleep_ms(50);
            free(proofs);
        }
        cz_store_claimed_set_free(&set);
    }
    cz_store_get_stats(s, &l->stats);
    cz_store_close(s);
    return NULL;
}

static void test_restart(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_store *s = open_node(ci, "submitter", 60000, 3);
    cz_job_id jobs[2 * RS_JOBS];
    for (int i = 0; i < RS_JOBS; i++)
        jobs[i] = submit(s, "c1", RS_PARTS, CZ_PRIO_NORMAL, "p", NULL, NULL);
    static looper l;
    memset(&l, 0, sizeof l);
    l.conninfo = ci;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, looper_main, &l), 0);
    cz_errbuf e = {{0}};
    cz_store_job j;
    /* the loop is working when the first job is done */
    assert_int_equal(cz_store_await(s, jobs[0], 30000, &j, &e), CZ_OK);
    cz_store_job_free(&j);
    /* from the main thread: the postmaster dies with the thread that started it */
    assert_int_equal(cz_pg_restart(&g_pg), 0);
    for (int i = RS_JOBS; i < 2 * RS_JOBS; i++)
        jobs[i] = submit(s, "c1", RS_PARTS, CZ_PRIO_NORMAL, "p", NULL, NULL);
    for (int i = 0; i < 2 * RS_JOBS; i++) {
        cz_status st = cz_store_await(s, jobs[i], 40000, &j, &e);
        if (st != CZ_OK)
            fprintf(stderr, "job %d: %s\n", i, e.msg);
        assert_int_equal(st, CZ_OK);
        assert_int_equal(j.state, CZ_JOB_DONE);
        assert_int_equal(j.proof_len, RS_PARTS * PB);
        for (uint32_t k = 0; k < RS_PARTS; k++) {
            uint8_t p[PB];
            fake_proof(jobs[i], k, p);
            assert_memory_equal(j.proof + k * PB, p, PB);
        }
        cz_store_job_free(&j);
    }
    atomic_store(&l.stop, 1);
    pthread_join(th, NULL);
    assert_int_equal(l.open_st, CZ_OK);
    cz_store_stats ms;
    cz_store_get_stats(s, &ms);
    fprintf(stderr, "restart: looper reconnects %llu retries %llu, submitter reconnects %llu\n",
            (unsigned long long)l.stats.reconnects, (unsigned long long)l.stats.retries,
            (unsigned long long)ms.reconnects);
    assert_true(l.stats.reconnects >= 1);
    assert_true(ms.reconnects >= 1);
    /* every partition stored once */
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_partitions WHERE state = 'done'"),
                     2 * RS_JOBS * RS_PARTS);
    cz_store_close(s);
}

/* ---- prune ---- */

static void test_prune(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_store *s = open_node(ci, "n1", 60000, 3); /* retention: the default 600 s */
    cz_job_id done = submit(s, "c1", 2, CZ_PRIO_NORMAL, "p", "rid-done", NULL);
    complete(s, done, 0);
    complete(s, done, 1);
    assemble(s, done, 2);
    cz_job_id cancelled = submit(s, "c1", 1, CZ_PRIO_NORMAL, "p", NULL, NULL);
    cz_job_state st;
    cz_errbuf e = {{0}};
    assert_int_equal(cz_store_cancel(s, cancelled, &st, &e), CZ_OK);
    cz_job_id live = submit(s, "c1", 1, CZ_PRIO_NORMAL, "p", NULL, NULL);
    cz_store_job j;
    assert_int_equal(cz_store_get_job(s, done, false, &j, &e), CZ_OK);
    assert_true(j.retain_until_ms >= j.ended_ms + 600000 - 1);
    assert_true(j.ended_ms >= j.created_ms && j.started_ms >= j.created_ms);
    size_t n = 99;
    assert_int_equal(cz_store_prune(s, unix_ms(), &n, &e), CZ_OK);
    assert_int_equal(n, 0); /* retained */
    assert_int_equal(cz_store_prune(s, j.retain_until_ms + 60000, &n, &e), CZ_OK);
    assert_int_equal(n, 2);
    assert_int_equal(cz_store_get_job(s, done, false, &j, &e), CZ_ERR_NOT_FOUND);
    assert_int_equal(cz_store_get_job(s, cancelled, false, &j, &e), CZ_ERR_NOT_FOUND);
    assert_int_equal(job_state(s, live), CZ_JOB_QUEUED);
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_partitions"), 1);
    /* the pruned job's request id is free again */
    bool ex = true;
    assert_true(submit(s, "c1", 2, CZ_PRIO_NORMAL, "p", "rid-done", &ex) != done);
    assert_false(ex);
    cz_store_close(s);
}

/* A server-side refusal is reported with the step and the server's
 * message, never its DETAIL (which quotes the failing row: the payload). */
static void test_sql_error_message(void **state)
{
    (void)state;
    char ci[512];
    new_db(ci, sizeof ci);
    cz_store *s = open_node(ci, "n1", 60000, 3);
    assert_int_equal(cz_pg_exec(ci, "ALTER TABLE cuzk_jobs ADD CONSTRAINT small_payloads"
                                    " CHECK (length(payload) < 4)"), 0);
    cz_store_job_request rq = {.circuit_id = "c1", .payload = "SECRET", .payload_len = 6,
                               .num_partitions = 1};
    cz_job_id id = 0;
    cz_errbuf e = {{0}};
    assert_int_equal(cz_store_submit(s, &rq, &id, NULL, &e), CZ_ERR_IO);
    fprintf(stderr, "refused by the server: %s\n", e.msg);
    assert_non_null(strstr(e.msg, "inserting the job: "));
    assert_non_null(strstr(e.msg, "small_payloads"));
    assert_non_null(strstr(e.msg, "SQLSTATE 23514"));
    assert_null(strstr(e.msg, "SECRET"));
    assert_null(strstr(e.msg, "534543524554")); /* the payload in hex */
    assert_int_equal(cz_pg_query_ll(ci, "SELECT count(*) FROM cuzk_jobs"), 0);
    /* the connection is still usable afterwards */
    rq.payload_len = 3;
    assert_int_equal(cz_store_submit(s, &rq, &id, NULL, &e), CZ_OK);
    cz_store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_migrations),
        cmocka_unit_test(test_submit_dedupe),
        cmocka_unit_test(test_claim_order),
        cmocka_unit_test(test_skip_locked),
        cmocka_unit_test(test_lease_reclaim),
        cmocka_unit_test(test_complete_once),
        cmocka_unit_test(test_assembly_takeover),
        cmocka_unit_test(test_node_calls),
        cmocka_unit_test(test_node_listing),
        cmocka_unit_test(test_cancel_heartbeat),
        cmocka_unit_test(test_await_notify),
        cmocka_unit_test(test_restart),
        cmocka_unit_test(test_prune),
        cmocka_unit_test(test_sql_error_message),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
