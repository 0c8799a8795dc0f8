/*
 * Engine API contracts: refusal at submission (budget, with the numbers;
 * unknown circuit; bad arguments), idempotent request ids and their reuse
 * after pruning, result retention by time and count, the parameter manager
 * (preload, evict, busy, eviction under pressure with and without a minimum
 * idle time), and observability outputs (timeline events, Prometheus text,
 * status JSON, partition records, Chrome trace), submission racing
 * shutdown, cancel returning at once (no back-end work on the caller's
 * thread), unread results surviving count-based pruning.
 */
#include <pthread.h>
#include <stdatomic.h>
#include "etest.h"

#define PB 24

static void test_refusal_at_submission(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "big", 600, 300, 200, PB);
    fake_add_circuit(&f, "ok", 600, 300, 99, PB); /* + the 1-byte payload: 1000 */
    fake_add_circuit(&f, "tight", 600, 300, 100, PB);
    cz_engine_config c;
    et_config(&c, &f);
    c.memory_budget = 1000;
    cz_engine *e = et_create(&c);
    cz_job_request rq = {.circuit_id = "big", .payload = "x", .payload_len = 1, .num_partitions = 1};
    cz_job_id id = 123;
    char msg[512];
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_ERR_BUDGET);
    assert_int_equal(id, 0);
    fprintf(stderr, "refusal: %s\n", msg);
    assert_non_null(strstr(msg, "500 bytes (a/b/c 300 + rest 200)"));
    assert_non_null(strstr(msg, "600 bytes of parameters = 1100 bytes"));
    assert_non_null(strstr(msg, "budget is 1000 bytes"));
    /* the payload is part of what the job holds: 1000 + 1 does not fit */
    rq.circuit_id = "tight";
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_ERR_BUDGET);
    assert_non_null(strstr(msg, "the job's 1-byte payload = 1001 bytes"));
    rq.circuit_id = "ok"; /* exactly the budget: accepted and proved */
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_OK);
    assert_int_equal(et_await_check(e, id, "x", PB), CZ_JOB_DONE);

    rq.circuit_id = "nope";
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(msg, "unknown circuit 'nope'"));
    rq.circuit_id = "ok";
    rq.num_partitions = 0;
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_ERR_INVALID_ARG);
    rq.num_partitions = 1;
    rq.priority = (cz_priority)7;
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_ERR_INVALID_ARG);
    rq.priority = CZ_PRIO_LOW;
    rq.payload = NULL;
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_ERR_INVALID_ARG);
    rq.payload_len = 0; /* empty payload is fine */
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_OK);
    assert_int_equal(et_await_check(e, id, "", PB), CZ_JOB_DONE);
    rq.circuit_id = "";
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_ERR_INVALID_ARG);

    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.jobs_submitted, 2);
    assert_int_equal(st.jobs_refused, 3); /* budget twice + unknown circuit */
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    fake_destroy(&f);

    /* bad configurations */
    et_config(&c, &f);
    c.partition_workers = 0;
    cz_engine *bad = NULL;
    assert_int_equal(cz_engine_create(&bad, &c, msg, sizeof msg), CZ_ERR_INVALID_ARG);
    assert_null(bad);
    et_config(&c, &f);
    c.backend.synthesize = NULL;
    assert_int_equal(cz_engine_create(&bad, &c, msg, sizeof msg), CZ_ERR_INVALID_ARG);
    et_config(&c, &f);
    c.memory_budget = 0;
    c.memory_safety_margin = UINT64_MAX / 2; /* auto budget: MemTotal - margin < 0 */
    assert_int_equal(cz_engine_create(&bad, &c, msg, sizeof msg), CZ_ERR_BUDGET);
    /* MemTotal or a cgroup limit, whichever is lower here */
    assert_non_null(strstr(msg, "auto memory budget: the memory limit "));
    et_config(&c, &f);
    c.memory_budget = 0; /* auto with the default 5 GiB margin */
    c.memory_safety_margin = 1u << 20;
    assert_int_equal(cz_engine_create(&bad, &c, msg, sizeof msg), CZ_OK);
    assert_true(cz_engine_budget(bad) > 0);
    cz_engine_destroy(bad);

    cz_priority p;
    assert_int_equal(cz_priority_parse("Critical", &p), CZ_OK);
    assert_int_equal(p, CZ_PRIO_CRITICAL);
    assert_int_equal(cz_priority_parse("urgent", &p), CZ_ERR_INVALID_ARG);
    assert_string_equal(cz_priority_str(CZ_PRIO_HIGH), "high");
    assert_string_equal(cz_job_state_str(CZ_JOB_FAILED), "failed");
}

/* A FAILED or CANCELLED job gives its request id up (the client is
 * retrying); per-circuit unfinished-job counts; the resident-parameter
 * list; per-stage sums in the job result. */
static void test_retry_and_loads(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    f.load_ms = 30;
    f.synth_ms = 5;
    f.prove_ms = 5;
    fake_add_circuit(&f, "c", 100, 10, 10, PB);
    fake_add_circuit(&f, "d", 100, 10, 10, PB);
    cz_engine_config c;
    et_config(&c, &f);
    c.start_paused = true;
    cz_engine *e = et_create(&c);
    char msg[512];
    bool ex;
    cz_job_id a, b, q1, q2, q3;
    cz_job_request rq = {.circuit_id = "c", .payload = "fail=synth:0", .payload_len = 12,
                         .num_partitions = 1, .request_id = "retry-1"};
    assert_int_equal(cz_engine_submit(e, &rq, &a, &ex, msg, sizeof msg), CZ_OK);
    cz_job_request o1 = {.circuit_id = "c", .payload = "q1", .payload_len = 2, .num_partitions = 2};
    cz_job_request o2 = {.circuit_id = "d", .payload = "q2", .payload_len = 2, .num_partitions = 1};
    assert_int_equal(cz_engine_submit(e, &o1, &q1, NULL, msg, sizeof msg), CZ_OK);
    assert_int_equal(cz_engine_submit(e, &o2, &q2, NULL, msg, sizeof msg), CZ_OK);
    cz_engine_circuit_load ld[4];
    size_t n = cz_engine_circuit_loads(e, ld, 4);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(ld[i].running, 0);
        assert_int_equal(ld[i].queued, !strcmp(ld[i].circuit_id, "c") ? 2 : 1);
    }
    assert_int_equal(cz_engine_circuit_loads(e, ld, 1), 1); /* room for one */
    cz_engine_resume(e);
    cz_job_result r;
    assert_int_equal(cz_engine_await(e, a, -1, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_FAILED);
    assert_string_equal(r.circuit_id, "c");
    cz_job_result_free(&r);
    /* the same request after a failure: a new job */
    assert_int_equal(cz_engine_submit(e, &rq, &b, &ex, msg, sizeof msg), CZ_OK);
    assert_false(ex);
    assert_true(b != a);
    assert_int_equal(cz_engine_await(e, b, -1, &r), CZ_OK);
    cz_job_result_free(&r);
    /* the failed job stays readable by its id */
    assert_int_equal(cz_engine_job_info(e, a, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_FAILED);
    /* a cancelled one gives the id up too */
    cz_engine_pause(e);
    rq.payload = "ok";
    rq.payload_len = 2;
    rq.request_id = "retry-2";
    assert_int_equal(cz_engine_submit(e, &rq, &q3, &ex, msg, sizeof msg), CZ_OK);
    assert_int_equal(cz_engine_cancel(e, q3, NULL), CZ_OK);
    assert_int_equal(cz_engine_submit(e, &rq, &b, &ex, msg, sizeof msg), CZ_OK);
    assert_false(ex);
    assert_true(b != q3);
    /* ... but a DONE job keeps it */
    cz_engine_resume(e);
    assert_int_equal(et_await_check(e, b, "ok", PB), CZ_JOB_DONE);
    cz_job_id b2;
    assert_int_equal(cz_engine_submit(e, &rq, &b2, &ex, msg, sizeof msg), CZ_OK);
    assert_true(ex);
    assert_int_equal(b2, b);
    assert_int_equal(cz_engine_await(e, q1, -1, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_DONE);
    /* stage sums: both partitions synthesized and proved (>= 5 ms each) */
    assert_true(r.synth_ms >= 2 * 5 * 0.9);
    assert_true(r.prove_ms >= 2 * 5 * 0.9);
    assert_true(r.total_ms >= r.synth_ms / 2);
    cz_job_result_free(&r);
    /* a one-partition job: the sums are complete when await returns
     * (they must not wait for the partition's retirement) */
    assert_int_equal(cz_engine_await(e, q2, -1, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_DONE);
    assert_true(r.synth_ms >= 5 * 0.9 && r.prove_ms >= 5 * 0.9);
    cz_job_result_free(&r);
    assert_int_equal(et_await_check(e, q2, "q2", PB), CZ_JOB_DONE);
    assert_int_equal(cz_engine_wait_idle(e, 10000), CZ_OK);
    assert_int_equal(cz_engine_circuit_loads(e, ld, 4), 0);
    cz_engine_params_info pi[4];
    n = cz_engine_params_list(e, pi, 4);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) {
        assert_true(pi[i].resident);
        assert_int_equal(pi[i].bytes, 100);
        assert_int_equal(pi[i].refs, 0);
    }
    assert_int_equal(cz_engine_evict(e, "d", msg, sizeof msg), CZ_OK);
    n = cz_engine_params_list(e, pi, 4);
    assert_int_equal(n, 1);
    assert_string_equal(pi[0].circuit_id, "c");
    cz_engine_destroy(e);
    fake_destroy(&f);
}

static void test_idempotent_request_ids(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    et_one_circuit(&f, &c, PB);
    c.start_paused = true;
    cz_engine *e = et_create(&c);
    cz_job_request rq = {.circuit_id = "c", .payload = "alpha", .payload_len = 5,
                         .num_partitions = 2, .request_id = "req-1"};
    cz_job_id a, b;
    bool ex;
    char msg[512];
    assert_int_equal(cz_engine_submit(e, &rq, &a, &ex, msg, sizeof msg), CZ_OK);
    assert_false(ex);
    rq.priority = CZ_PRIO_HIGH; /* priority is not part of the key */
    assert_int_equal(cz_engine_submit(e, &rq, &b, &ex, msg, sizeof msg), CZ_OK);
    assert_true(ex);
    assert_int_equal(a, b);
    rq.payload = "alphb";
    assert_int_equal(cz_engine_submit(e, &rq, &b, &ex, msg, sizeof msg), CZ_ERR_BUSY);
    assert_non_null(strstr(msg, "request id 'req-1' is in use by job"));
    rq.payload = "alpha";
    rq.num_partitions = 3;
    assert_int_equal(cz_engine_submit(e, &rq, &b, &ex, msg, sizeof msg), CZ_ERR_BUSY);
    rq.num_partitions = 2;
    cz_engine_resume(e);
    assert_int_equal(et_await_check(e, a, "alpha", PB), CZ_JOB_DONE);
    /* retained result: the same request still maps to the finished job */
    assert_int_equal(cz_engine_submit(e, &rq, &b, &ex, msg, sizeof msg), CZ_OK);
    assert_true(ex);
    assert_int_equal(a, b);
    cz_engine_destroy(e);

    /* retention 0 ms: pruned at once, the id may be reused with anything */
    et_config(&c, &f);
    c.result_retention_ms = 0;
    e = et_create(&c);
    assert_int_equal(cz_engine_submit(e, &rq, &a, &ex, msg, sizeof msg), CZ_OK);
    assert_int_equal(cz_engine_wait_idle(e, 10000), CZ_OK);
    cz_job_result r;
    assert_int_equal(cz_engine_await(e, a, 100, &r), CZ_ERR_NOT_FOUND); /* pruned */
    rq.payload = "beta";
    rq.payload_len = 4;
    assert_int_equal(cz_engine_submit(e, &rq, &b, &ex, msg, sizeof msg), CZ_OK);
    assert_false(ex);
    assert_true(b != a);
    assert_int_equal(cz_engine_wait_idle(e, 10000), CZ_OK);
    cz_engine_destroy(e);

    /* retention by count: only the newest N finished jobs stay */
    et_config(&c, &f);
    c.result_retention_count = 3;
    e = et_create(&c);
    cz_job_id ids[8];
    for (int i = 0; i < 8; i++) {
        ids[i] = et_submit(e, "c", "p", 1, CZ_PRIO_NORMAL, NULL);
        assert_int_equal(et_await_check(e, ids[i], "p", PB), CZ_JOB_DONE);
    }
    int found = 0;
    for (int i = 0; i < 8; i++)
        found += cz_engine_job_info(e, ids[i], &r) == CZ_OK;
    assert_int_equal(found, 3);
    assert_int_equal(cz_engine_job_info(e, ids[7], &r), CZ_OK);
    assert_int_equal(cz_engine_job_info(e, ids[0], &r), CZ_ERR_NOT_FOUND);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

static void test_params_manager(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "A", 500, 100, 50, PB);
    fake_add_circuit(&f, "B", 500, 100, 50, PB);
    fake_add_circuit(&f, "C", 900, 50, 50, PB);
    cz_engine_config c;
    et_config(&c, &f);
    c.memory_budget = 1200; /* A + B fit (1000), A + B + partition does not */
    c.eviction_min_idle_ms = 0;
    cz_engine *e = et_create(&c);
    char msg[512];
    cz_engine_status st;

    assert_int_equal(cz_engine_preload(e, "A", msg, sizeof msg), CZ_OK);
    assert_int_equal(cz_engine_preload(e, "A", msg, sizeof msg), CZ_OK); /* already resident */
    cz_engine_get_status(e, &st);
    assert_int_equal(st.budget_used, 500);
    assert_int_equal(st.params_resident, 1);
    assert_int_equal(f.loads, 1);
    assert_int_equal(cz_engine_evict(e, "A", msg, sizeof msg), CZ_OK);
    assert_int_equal(cz_engine_evict(e, "A", msg, sizeof msg), CZ_ERR_NOT_FOUND);
    assert_int_equal(cz_engine_evict(e, "zzz", msg, sizeof msg), CZ_ERR_NOT_FOUND);
    assert_int_equal(cz_engine_preload(e, "zzz", msg, sizeof msg), CZ_ERR_NOT_FOUND);
    cz_engine_get_status(e, &st);
    assert_int_equal(st.budget_used, 0);
    assert_int_equal(f.params_alive, 0);

    /* in use: evict refuses */
    f.synth_ms = 200;
    cz_job_id a = et_submit(e, "A", "a", 1, CZ_PRIO_NORMAL, NULL);
    for (int i = 0; i < 5000; i++) {
        cz_engine_get_status(e, &st);
        if (st.partitions_synthesizing)
            break;
        fake_sleep_ms(1);
    }
    assert_int_equal(cz_engine_evict(e, "A", msg, sizeof msg), CZ_ERR_BUSY);
    assert_non_null(strstr(msg, "in use"));
    assert_int_equal(et_await_check(e, a, "a", PB), CZ_JOB_DONE);
    f.synth_ms = 0;

    /* A resident & idle; B's job needs 500 + 150 while A holds 500 of 1200:
     * fits (1150). Then C (900 + 100) needs both evicted. */
    cz_job_id b = et_submit(e, "B", "b", 1, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(et_await_check(e, b, "b", PB), CZ_JOB_DONE);
    cz_engine_get_status(e, &st);
    assert_int_equal(st.params_resident, 2);
    assert_int_equal(st.params_evictions, 1); /* the explicit one above */
    cz_job_id cc = et_submit(e, "C", "c", 2, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(et_await_check(e, cc, "c", PB), CZ_JOB_DONE);
    cz_engine_get_status(e, &st);
    assert_int_equal(st.params_evictions, 3); /* A and B made room for C */
    assert_int_equal(st.params_resident, 1);
    assert_int_equal(st.params_resident_bytes, 900);
    /* preload under pressure evicts idle sets (min idle 0 here); C's last
     * partition may still pin it for a moment after the job is DONE */
    assert_int_equal(cz_engine_wait_idle(e, 10000), CZ_OK);
    assert_int_equal(cz_engine_preload(e, "A", msg, sizeof msg), CZ_OK); /* C evicted (idle) */
    cz_engine_get_status(e, &st);
    assert_int_equal(st.params_resident_bytes, 500);
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    assert_int_equal(f.params_alive, 0);
    assert_int_equal(f.loads, f.unloads);

    /* a minimum idle time: eviction waits for it, the job still completes */
    et_config(&c, &f);
    c.memory_budget = 1200;
    c.eviction_min_idle_ms = 400;
    e = et_create(&c);
    assert_int_equal(cz_engine_preload(e, "A", msg, sizeof msg), CZ_OK);
    /* A was used just now: not evictable yet, so preload is refused, never waits */
    assert_int_equal(cz_engine_preload(e, "C", msg, sizeof msg), CZ_ERR_BUDGET);
    assert_non_null(strstr(msg, "need 900 bytes"));
    cz_job_id c2 = et_submit(e, "C", "c2", 1, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(et_await_check(e, c2, "c2", PB), CZ_JOB_DONE);
    cz_engine_get_status(e, &st);
    assert_int_equal(st.params_evictions, 1);
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    assert_int_equal(f.params_alive, 0);

    /* a minimum idle time of an hour, and nothing in flight: waiting could
     * never make room, so the idle set goes at once (the job would
     * otherwise sit behind it for the hour; await's 10 s bound fails it) */
    et_config(&c, &f);
    c.memory_budget = 1200;
    c.eviction_min_idle_ms = 3600000;
    e = et_create(&c);
    assert_int_equal(cz_engine_preload(e, "A", msg, sizeof msg), CZ_OK);
    cz_job_id c3 = et_submit(e, "C", "c3", 1, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(et_await_check(e, c3, "c3", PB), CZ_JOB_DONE);
    cz_engine_get_status(e, &st);
    assert_int_equal(st.params_evictions, 1);
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    /* ... while a partition that only waits for in-flight work evicts
     * nothing: A and B resident (1000), one A partition running (150),
     * the second (150) fits once the first gives its reservation back */
    e = et_create(&c);
    assert_int_equal(cz_engine_preload(e, "A", msg, sizeof msg), CZ_OK);
    assert_int_equal(cz_engine_preload(e, "B", msg, sizeof msg), CZ_OK);
    f.synth_ms = 100;
    cz_job_id a1 = et_submit(e, "A", "a1", 1, CZ_PRIO_NORMAL, NULL);
    cz_job_id a2 = et_submit(e, "A", "a2", 1, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(et_await_check(e, a1, "a1", PB), CZ_JOB_DONE);
    assert_int_equal(et_await_check(e, a2, "a2", PB), CZ_JOB_DONE);
    cz_engine_get_status(e, &st);
    assert_int_equal(st.params_evictions, 0);
    assert_int_equal(st.params_resident, 2);
    f.synth_ms = 0;
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    assert_int_equal(f.params_alive, 0);
    fake_destroy(&f);
}

typedef struct {
    pthread_mutex_t mu;
    int n_submit, n_synth_start, n_synth_end, n_prove_end, n_finish_end, n_done, n_verify;
    bool bad_format;
} tl_count;

static void tl_cb(void *arg, const char *line)
{
    tl_count *t = arg;
    pthread_mutex_lock(&t->mu);
    double ms;
    char ev[32];
    if (sscanf(line, "TIMELINE %lf %31s job=", &ms, ev) != 2)
        t->bad_format = true;
    else if (!strcmp(ev, "JOB_SUBMIT"))
        t->n_submit++;
    else if (!strcmp(ev, "SYNTH_START"))
        t->n_synth_start++;
    else if (!strcmp(ev, "SYNTH_END"))
        t->n_synth_end += strstr(line, " synth_ms=") && strstr(line, " witness_ms=") ? 1 : 0;
    else if (!strcmp(ev, "PROVE_END"))
        t->n_prove_end += strstr(line, " prove_ms=") && strstr(line, " device_ms=") ? 1 : 0;
    else if (!strcmp(ev, "FINISH_END"))
        t->n_finish_end += strstr(line, " finish_ms=") ? 1 : 0;
    else if (!strcmp(ev, "VERIFY_END"))
        t->n_verify++;
    else if (!strcmp(ev, "JOB_DONE"))
        t->n_done++;
    pthread_mutex_unlock(&t->mu);
}

static void test_observability(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "c", 100, 10, 10, PB);
    f.synth_ms = 1;
    f.prove_ms = 1;
    tl_count t;
    memset(&t, 0, sizeof t);
    pthread_mutex_init(&t.mu, NULL);
    cz_engine_config c;
    et_config(&c, &f);
    c.timeline_cb = tl_cb;
    c.timeline_arg = &t;
    cz_engine *e = et_create(&c);
    cz_job_id ids[3];
    for (int i = 0; i < 3; i++)
        ids[i] = et_submit(e, "c", "obs", 3, CZ_PRIO_NORMAL, NULL);
    for (int i = 0; i < 3; i++)
        assert_int_equal(et_await_check(e, ids[i], "obs", PB), CZ_JOB_DONE);
    et_check_idle(e, &f);
    pthread_mutex_lock(&t.mu);
    assert_false(t.bad_format);
    assert_int_equal(t.n_submit, 3);
    assert_int_equal(t.n_synth_start, 9);
    assert_int_equal(t.n_synth_end, 9);
    assert_int_equal(t.n_prove_end, 9);
    assert_int_equal(t.n_finish_end, 9);
    assert_int_equal(t.n_verify, 3);
    assert_int_equal(t.n_done, 3);
    pthread_mutex_unlock(&t.mu);

    /* Prometheus: size query, then fill */
    size_t need = cz_engine_metrics_prometheus(e, NULL, 0);
    assert_true(need > 1000);
    char *buf = malloc(need + 1);
    assert_int_equal(cz_engine_metrics_prometheus(e, buf, need + 1), need);
    assert_int_equal(strlen(buf), need);
    assert_non_null(strstr(buf, "cuzk_jobs_completed_total 3\n"));
    assert_non_null(strstr(buf, "cuzk_partitions_completed_total 9\n"));
    assert_non_null(strstr(buf, "cuzk_budget_used_bytes 100\n"));
    assert_non_null(strstr(buf, "# TYPE cuzk_stage_duration_seconds histogram"));
    assert_non_null(strstr(buf, "cuzk_stage_duration_seconds_count{stage=\"synth\"} 9\n"));
    assert_non_null(strstr(buf, "cuzk_stage_duration_seconds_bucket{stage=\"job\",le=\"+Inf\"} 3\n"));
    /* buckets up to an hour: a 32GiB C2 job is minutes long */
    assert_non_null(strstr(buf, "cuzk_stage_duration_seconds_bucket{stage=\"job\",le=\"3600\"} 3\n"));
    /* truncated buffer: NUL-terminated, same length reported */
    char small[64];
    assert_int_equal(cz_engine_metrics_prometheus(e, small, sizeof small), need);
    assert_int_equal(strlen(small), sizeof small - 1);
    free(buf);

    cz_engine_status st;
    cz_engine_get_status(e, &st);
    size_t jn = cz_engine_status_json(&st, NULL, 0);
    char *js = malloc(jn + 1);
    assert_int_equal(cz_engine_status_json(&st, js, jn + 1), jn);
    assert_true(js[0] == '{' && js[jn - 1] == '}');
    assert_non_null(strstr(js, "\"jobs_completed\":3,"));
    assert_non_null(strstr(js, "\"paused\":false"));
    free(js);
    assert_true(st.device_busy_ms > 0);

    cz_engine_part_record recs[16];
    size_t n = cz_engine_get_records(e, recs, 16);
    assert_int_equal(n, 9);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(recs[i].status, CZ_OK);
        assert_true(recs[i].reserve_ms <= recs[i].synth_start_ms);
        assert_true(recs[i].synth_start_ms <= recs[i].synth_end_ms);
        assert_true(recs[i].synth_end_ms <= recs[i].prove_start_ms);
        assert_true(recs[i].prove_start_ms <= recs[i].prove_end_ms);
        assert_true(recs[i].prove_end_ms <= recs[i].finish_start_ms);
        assert_true(recs[i].finish_start_ms <= recs[i].finish_end_ms);
        assert_true(recs[i].synth_worker >= 0 && recs[i].prover_worker >= 0 &&
                    recs[i].finalizer >= 0);
    }
    char *tb = NULL;
    size_t tl = 0;
    FILE *tf = open_memstream(&tb, &tl);
    assert_int_equal(cz_engine_write_chrome_trace(e, tf), CZ_OK);
    fclose(tf);
    assert_non_null(strstr(tb, "\"traceEvents\""));
    assert_non_null(strstr(tb, "\"ph\":\"X\""));
    int events = 0;
    for (const char *p = tb; (p = strstr(p, "\"ph\":\"X\"")); p++)
        events++;
    assert_int_equal(events, 36); /* synth, prove, finish + the device row's gpu, per partition */
    free(tb);
    cz_engine_destroy(e);

    /* the records ring keeps the newest records_capacity entries */
    et_config(&c, &f);
    c.records_capacity = 4;
    c.partition_workers = 1; /* strict retire order */
    e = et_create(&c);
    cz_job_id last = 0;
    for (int i = 0; i < 3; i++)
        last = et_submit(e, "c", "ring", 3, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(cz_engine_wait_idle(e, 10000), CZ_OK);
    cz_engine_part_record ring[8];
    assert_int_equal(cz_engine_get_records(e, ring, 8), 4);
    int of_last = 0;
    for (int i = 0; i < 4; i++)
        of_last += ring[i].job == last;
    assert_int_equal(of_last, 3); /* all three of the newest job's partitions */
    cz_engine_destroy(e);
    pthread_mutex_destroy(&t.mu);
    fake_destroy(&f);
}

/* ---- submission racing shutdown ---------------------------------------- */

/* A gate a back-end wrapper blocks on (the test opens it), and a flag the
 * wrapper raises when it got there. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool arrived, open;
} gate;

static void gate_init(gate *g)
{
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->arrived = g->open = false;
}

static void gate_destroy(gate *g)
{
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
}

/* Called by the blocked side: says it arrived, waits until opened. */
static void gate_pass(gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->arrived = true;
    pthread_cond_broadcast(&g->cv);
    while (!g->open)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

/* Waits (bounded, as a safety net only) until something arrived. */
static bool gate_wait_arrived(gate *g, int max_ms)
{
    pthread_mutex_lock(&g->mu);
    for (int i = 0; i < max_ms && !g->arrived; i++) {
        pthread_mutex_unlock(&g->mu);
        fake_sleep_ms(1);
        pthread_mutex_lock(&g->mu);
    }
    bool a = g->arrived;
    pthread_mutex_unlock(&g->mu);
    return a;
}

static void gate_open(gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->open = true;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static gate g_estimate;
static cz_status (*real_estimate)(void *, const char *, cz_engine_estimate *, char *, size_t);

static cz_status blocking_estimate(void *ctx, const char *cid, cz_engine_estimate *out, char *msg, size_t len)
{
    gate_pass(&g_estimate);
    return real_estimate(ctx, cid, out, msg, len);
}

typedef struct {
    cz_engine *e;
    cz_status st;
    cz_job_id id;
    char msg[512];
} submit_arg;

static void *submit_thread(void *p)
{
    submit_arg *a = p;
    cz_job_request rq = {.circuit_id = "c", .payload = "late", .payload_len = 4, .num_partitions = 1};
    a->st = cz_engine_submit(a->e, &rq, &a->id, NULL, a->msg, sizeof a->msg);
    return NULL;
}

static void *shutdown_thread(void *p)
{
    cz_engine_shutdown(p);
    return NULL;
}

/* The first job of a circuit asks the back-end for its estimate without
 * the engine lock. A shutdown that begins (and even completes) meanwhile
 * must make that submission fail, not queue a job that no worker will
 * ever run (answered 201, never done). */
static void test_submit_races_shutdown(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    et_one_circuit(&f, &c, PB);
    gate_init(&g_estimate);
    real_estimate = c.backend.estimate;
    c.backend.estimate = blocking_estimate;
    cz_engine *e = et_create(&c);
    submit_arg a = {.e = e};
    pthread_t ts, tsh;
    assert_int_equal(pthread_create(&ts, NULL, submit_thread, &a), 0);
    assert_true(gate_wait_arrived(&g_estimate, ET_SCALE(20000, 60000))); /* the submit is in estimate */
    assert_int_equal(pthread_create(&tsh, NULL, shutdown_thread, e), 0);
    pthread_join(tsh, NULL); /* nothing to drain: shutdown completes, the workers are gone */
    gate_open(&g_estimate);
    pthread_join(ts, NULL);
    assert_int_equal(a.st, CZ_ERR_CANCELLED);
    assert_int_equal(a.id, 0);
    assert_string_equal(a.msg, "the engine is shutting down: no new jobs are accepted");
    /* and a plain submission after shutdown (estimate cached or not) */
    cz_job_request rq = {.circuit_id = "c", .payload = "x", .payload_len = 1, .num_partitions = 1};
    cz_job_id id = 7;
    char msg[256];
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_ERR_CANCELLED);
    assert_int_equal(id, 0);
    assert_string_equal(msg, "the engine is shutting down: no new jobs are accepted");
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.jobs_submitted, 0);
    assert_int_equal(st.jobs_queued, 0);
    cz_engine_destroy(e);
    gate_destroy(&g_estimate);
    fake_destroy(&f);
}

/* ---- cancel returns at once ------------------------------------------- */

/* Wrappers around the fake: prove_start calls counted (the third blocks),
 * prove_finish of the first call blocks, free_pending blocks (as the real
 * back-end's does while its B_G2 MSM runs), and the threads that free
 * partition objects are recorded. */
static struct {
    cz_engine_backend real;
    pthread_mutex_t mu;
    int prove_calls, finish_calls;
    gate prove3, finish1, free_pending;
    pthread_t canceller;
    bool canceller_set;
    int frees_on_canceller; /* free_synth / free_pending run by the canceller's thread */
    int frees;
} cw;

static void cw_note_free(void)
{
    pthread_mutex_lock(&cw.mu);
    cw.frees++;
    if (cw.canceller_set && pthread_equal(pthread_self(), cw.canceller))
        cw.frees_on_canceller++;
    pthread_mutex_unlock(&cw.mu);
}

static cz_status cw_prove_start(void *ctx, void *params, void *synth, cz_engine_device *dev, void **pending,
                                cz_engine_timings *t, char *msg, size_t len)
{
    pthread_mutex_lock(&cw.mu);
    int k = ++cw.prove_calls;
    pthread_mutex_unlock(&cw.mu);
    if (k == 3)
        gate_pass(&cw.prove3); /* the long prove_start */
    return cw.real.prove_start(ctx, params, synth, dev, pending, t, msg, len);
}

static cz_status cw_prove_finish(void *ctx, void *params, void *pending, uint8_t *proof, cz_engine_timings *t,
                                 char *msg, size_t len)
{
    pthread_mutex_lock(&cw.mu);
    int k = ++cw.finish_calls;
    pthread_mutex_unlock(&cw.mu);
    if (k == 1)
        gate_pass(&cw.finish1); /* keeps the only finalizer busy */
    return cw.real.prove_finish(ctx, params, pending, proof, t, msg, len);
}

static void cw_free_synth(void *ctx, void *synth)
{
    cw_note_free();
    cw.real.free_synth(ctx, synth);
}

static void cw_free_pending(void *ctx, void *pending)
{
    cw_note_free();
    gate_pass(&cw.free_pending);
    cw.real.free_pending(ctx, pending);
}

typedef struct {
    cz_engine *e;
    cz_job_id id;
    cz_status st;
    cz_job_state state;
    atomic_bool returned;
} cancel_arg;

static void *cancel_thread(void *p)
{
    cancel_arg *a = p;
    pthread_mutex_lock(&cw.mu);
    cw.canceller = pthread_self();
    cw.canceller_set = true;
    pthread_mutex_unlock(&cw.mu);
    a->st = cz_engine_cancel(a->e, a->id, &a->state);
    atomic_store(&a->returned, true);
    return NULL;
}

/* Waits until pred(status) holds (bounded: a safety net, not a threshold). */
static bool wait_status(cz_engine *e, bool (*pred)(const cz_engine_status *))
{
    for (int i = 0; i < ET_SCALE(20000, 60000); i++) {
        cz_engine_status st;
        cz_engine_get_status(e, &st);
        if (pred(&st))
            return true;
        fake_sleep_ms(1);
    }
    return false;
}

static bool one_finalize_queued_one_in_channel(const cz_engine_status *st)
{
    return st->finalize_queued == 1 && st->channel_depth == 1;
}

/* Job B's partitions: p0 has a pending proof in the finalizer queue (the
 * finalizer is stuck in job A), p1 is inside a long prove_start, p2 waits
 * in the channel. Cancelling B must return while p1's prove_start is still
 * running and without freeing p0's pending proof (which blocks, as the
 * real back-end's does until its B_G2 MSM ends) on the caller's thread. */
static void test_cancel_returns_at_once(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    et_one_circuit(&f, &c, PB);
    c.partition_workers = 2;
    c.workers_per_device = 1; /* one prover */
    c.finalizers = 1;
    c.synthesis_lookahead = 2;
    memset(&cw, 0, sizeof cw);
    pthread_mutex_init(&cw.mu, NULL);
    gate_init(&cw.prove3);
    gate_init(&cw.finish1);
    gate_init(&cw.free_pending);
    cw.real = c.backend;
    c.backend.prove_start = cw_prove_start;
    c.backend.prove_finish = cw_prove_finish;
    c.backend.free_synth = cw_free_synth;
    c.backend.free_pending = cw_free_pending;
    cz_engine *e = et_create(&c);
    cz_job_id a = et_submit(e, "c", "job a", 1, CZ_PRIO_HIGH, NULL);
    assert_true(gate_wait_arrived(&cw.finish1, ET_SCALE(20000, 60000))); /* A holds the finalizer */
    cz_job_id b = et_submit(e, "c", "job b", 3, CZ_PRIO_NORMAL, NULL);
    assert_true(gate_wait_arrived(&cw.prove3, ET_SCALE(20000, 60000))); /* B p1 in prove_start */
    assert_true(wait_status(e, one_finalize_queued_one_in_channel)); /* B p0 finq, B p2 channel */

    cancel_arg ca = {.e = e, .id = b};
    atomic_init(&ca.returned, false);
    pthread_t tc;
    assert_int_equal(pthread_create(&tc, NULL, cancel_thread, &ca), 0);
    for (int i = 0; i < ET_SCALE(20000, 60000) && !atomic_load(&ca.returned); i++)
        fake_sleep_ms(1);
    bool returned_first = atomic_load(&ca.returned);
    /* the order of events: cancel returned, and only then do the long
     * prove_start and the blocked free_pending get to finish */
    gate_open(&cw.prove3);
    gate_open(&cw.free_pending);
    gate_open(&cw.finish1);
    pthread_join(tc, NULL);
    assert_true(returned_first); /* false: cancel waited for a stage or a free */
    assert_int_equal(ca.st, CZ_OK);
    assert_int_equal(ca.state, CZ_JOB_CANCELLED);
    cz_job_result r;
    assert_int_equal(cz_engine_job_info(e, b, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_CANCELLED);
    assert_int_equal(et_await_check(e, a, "job a", PB), CZ_JOB_DONE);
    et_check_idle(e, &f); /* every object of B freed, every byte returned */
    pthread_mutex_lock(&cw.mu);
    assert_true(cw.frees >= 2); /* p0's pending, p2's synth (and p1's pending) */
    assert_int_equal(cw.frees_on_canceller, 0);
    pthread_mutex_unlock(&cw.mu);
    cz_engine_destroy(e);
    gate_destroy(&cw.prove3);
    gate_destroy(&cw.finish1);
    gate_destroy(&cw.free_pending);
    pthread_mutex_destroy(&cw.mu);
    fake_destroy(&f);
}

/* ---- unread results ----------------------------------------------------- */

static void test_unread_results_kept(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    et_one_circuit(&f, &c, PB);
    c.result_retention_count = 2;
    cz_engine *e = et_create(&c);
    /* four proofs nobody has fetched, one failure: the count limit drops
     * only what cannot be lost (the failed job), never an unread proof */
    cz_job_id ids[4];
    for (int i = 0; i < 4; i++)
        ids[i] = et_submit(e, "c", "unread", 1, CZ_PRIO_NORMAL, NULL);
    cz_job_id bad = et_submit(e, "c", "fail=synth:0", 1, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(cz_engine_wait_idle(e, 10000), CZ_OK);
    cz_job_id more = et_submit(e, "c", "read", 1, CZ_PRIO_NORMAL, NULL); /* prunes */
    assert_int_equal(et_await_check(e, more, "read", PB), CZ_JOB_DONE);
    cz_job_result r;
    assert_int_equal(cz_engine_job_info(e, bad, &r), CZ_ERR_NOT_FOUND);
    for (int i = 0; i < 4; i++)
        assert_int_equal(et_await_check(e, ids[i], "unread", PB), CZ_JOB_DONE); /* each still there */
    /* read now: the count limit applies to them like to any other */
    cz_job_id last = et_submit(e, "c", "last", 1, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(et_await_check(e, last, "last", PB), CZ_JOB_DONE);
    int found = 0;
    for (int i = 0; i < 4; i++)
        found += cz_engine_job_info(e, ids[i], &r) == CZ_OK;
    assert_true(found <= 1);
    cz_engine_destroy(e);

    /* the bound: unread results over result_unread_max_bytes refuse new
     * jobs (with the numbers) instead of being dropped */
    et_config(&c, &f);
    c.result_retention_count = 1;
    c.result_unread_max_bytes = 1;
    e = et_create(&c);
    cz_job_id u = et_submit(e, "c", "u", 1, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(cz_engine_wait_idle(e, 10000), CZ_OK);
    cz_job_request rq = {.circuit_id = "c", .payload = "v", .payload_len = 1, .num_partitions = 1};
    cz_job_id v = 0;
    char msg[512];
    assert_int_equal(cz_engine_submit(e, &rq, &v, NULL, msg, sizeof msg), CZ_ERR_BUDGET);
    fprintf(stderr, "unread refusal: %s\n", msg);
    assert_non_null(strstr(msg, "1 finished jobs hold "));
    assert_non_null(strstr(msg, "engine.result_unread_max_bytes = 1: fetch them (await)"));
    assert_int_equal(et_await_check(e, u, "u", PB), CZ_JOB_DONE); /* read it */
    assert_int_equal(cz_engine_submit(e, &rq, &v, NULL, msg, sizeof msg), CZ_OK);
    assert_int_equal(et_await_check(e, v, "v", PB), CZ_JOB_DONE);
    cz_engine_destroy(e);

    /* the retention time still drops an unread result */
    et_config(&c, &f);
    c.result_retention_ms = 0;
    e = et_create(&c);
    u = et_submit(e, "c", "u", 1, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(cz_engine_wait_idle(e, 10000), CZ_OK);
    assert_int_equal(cz_engine_job_info(e, u, &r), CZ_ERR_NOT_FOUND);
    assert_int_equal(cz_engine_submit(e, &rq, &v, NULL, msg, sizeof msg), CZ_OK); /* nothing unread held */
    assert_int_equal(cz_engine_wait_idle(e, 10000), CZ_OK);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusal_at_submission),
        cmocka_unit_test(test_idempotent_request_ids),
        cmocka_unit_test(test_retry_and_loads),
        cmocka_unit_test(test_params_manager),
        cmocka_unit_test(test_observability),
        cmocka_unit_test(test_submit_races_shutdown),
        cmocka_unit_test(test_cancel_returns_at_once),
        cmocka_unit_test(test_unread_results_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
