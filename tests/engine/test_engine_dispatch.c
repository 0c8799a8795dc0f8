/*
 * What the dispatcher must never wait for, and what a client can make the
 * engine hold: a parameter load of one circuit does not stall the jobs of
 * another (loads run on the loader threads); a slow payload parse does not
 * stall other jobs (it runs on a synthesis worker); ids the back-end
 * refuses leave no entry behind; the queue bounds (jobs, payload bytes)
 * refuse with CZ_ERR_QUEUE_FULL and the numbers, and queued payloads are
 * charged to the budget. No timing assertions: the gates of the fake
 * back-end hold a load or a parse until the test opens them.
 */
#include "etest.h"

#define PB 16

/* A's load blocks; a job of B (parameters resident) dispatches and
 * completes meanwhile. With loads on the dispatcher, B's job would wait
 * behind the blocked load and the await below would time out. */
static void test_load_does_not_block_dispatch(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    int a = (int)fake_add_circuit(&f, "a", 100, 10, 10, PB);
    fake_add_circuit(&f, "b", 100, 10, 10, PB);
    cz_engine_config c;
    et_config(&c, &f);
    cz_engine *e = et_create(&c);
    char msg[256];
    assert_int_equal(cz_engine_preload(e, "b", msg, sizeof msg), CZ_OK);
    fake_gate(&f, a, true);
    cz_job_id ja = et_submit(e, "a", "job-a", 2, CZ_PRIO_HIGH, NULL);
    assert_true(fake_wait_blocked(&f, a, 1)); /* a loader is inside A's load */
    /* lower priority and later than A: still not held up by A's load */
    cz_job_id jb = et_submit(e, "b", "job-b", 2, CZ_PRIO_LOW, NULL);
    assert_int_equal(et_await_check(e, jb, "job-b", PB), CZ_JOB_DONE);
    cz_job_result r;
    assert_int_equal(cz_engine_job_info(e, ja, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_QUEUED); /* still waiting for its load */
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.params_loading, 1);
    pthread_mutex_lock(&f.mu);
    assert_int_equal(f.loads_blocked, 1); /* the gate was never opened */
    pthread_mutex_unlock(&f.mu);
    fake_gate(&f, a, false);
    assert_int_equal(et_await_check(e, ja, "job-a", PB), CZ_JOB_DONE);
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

/* A load that fails ends every job that waited for it, with its error;
 * the jobs of other circuits are untouched. */
static void test_failed_load_fails_its_waiters(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    int a = (int)fake_add_circuit(&f, "a", 100, 10, 10, PB);
    fake_add_circuit(&f, "b", 100, 10, 10, PB);
    f.circ[a].fail_load = true;
    cz_engine_config c;
    et_config(&c, &f);
    cz_engine *e = et_create(&c);
    fake_gate(&f, a, true);
    cz_job_id j1 = et_submit(e, "a", "one", 1, CZ_PRIO_NORMAL, NULL);
    assert_true(fake_wait_blocked(&f, a, 1));
    cz_job_id j2 = et_submit(e, "a", "two", 1, CZ_PRIO_NORMAL, NULL);
    cz_job_id jb = et_submit(e, "b", "bee", 1, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(et_await_check(e, jb, "bee", PB), CZ_JOB_DONE);
    fake_gate(&f, a, false);
    cz_job_id ids[2] = {j1, j2};
    for (int i = 0; i < 2; i++) {
        cz_job_result r;
        assert_int_equal(cz_engine_await(e, ids[i], 10000, &r), CZ_OK);
        assert_int_equal(r.state, CZ_JOB_FAILED);
        assert_non_null(strstr(r.error, "load_params: load parameters for 'a': injected load failure"));
        cz_job_result_free(&r);
    }
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

/* A's payload parse blocks; a job submitted after it (same circuit)
 * dispatches and completes meanwhile. With the parse on the dispatcher,
 * nothing would dispatch until the gate opened. */
static void test_slow_parse_does_not_block_dispatch(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    et_one_circuit(&f, &c, PB);
    c.partition_workers = 2;
    cz_engine *e = et_create(&c);
    fake_gate(&f, -1, true);
    cz_job_id ja = et_submit(e, "c", "gate a", 1, CZ_PRIO_HIGH, NULL);
    assert_true(fake_wait_blocked(&f, -1, 1));
    cz_job_id jb = et_submit(e, "c", "plain b", 3, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(et_await_check(e, jb, "plain b", PB), CZ_JOB_DONE);
    pthread_mutex_lock(&f.mu);
    assert_int_equal(f.prepares_blocked, 1);
    pthread_mutex_unlock(&f.mu);
    cz_job_result r;
    assert_int_equal(cz_engine_job_info(e, ja, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_RUNNING);
    assert_int_equal(r.partitions_done, 0);
    fake_gate(&f, -1, false);
    assert_int_equal(et_await_check(e, ja, "gate a", PB), CZ_JOB_DONE);
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

/* Ids the back-end refuses leave no parameter entry behind. Without the
 * fix every one of them stayed (params_known would reach 1001). */
static void test_refused_ids_leave_nothing(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    et_one_circuit(&f, &c, PB);
    cz_engine *e = et_create(&c);
    et_await_check(e, et_submit(e, "c", "x", 1, CZ_PRIO_NORMAL, NULL), "x", PB);
    char msg[256], id[64];
    for (int i = 0; i < 1000; i++) {
        snprintf(id, sizeof id, "unknown-%d", i);
        cz_job_request rq = {.circuit_id = id, .payload = "x", .payload_len = 1, .num_partitions = 1};
        cz_job_id jid = 7;
        assert_int_equal(cz_engine_submit(e, &rq, &jid, NULL, msg, sizeof msg), CZ_ERR_NOT_FOUND);
        assert_non_null(strstr(msg, id));
        if (i % 100 == 0)
            assert_int_equal(cz_engine_preload(e, id, msg, sizeof msg), CZ_ERR_NOT_FOUND);
    }
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.params_known, 1); /* "c" only */
    assert_int_equal(st.jobs_refused, 1000);
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

/* max_queued_jobs and max_queued_bytes; payload bytes charged to the
 * budget while the job holds them. */
static void test_queue_bounds(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    et_one_circuit(&f, &c, PB);
    c.start_paused = true;
    c.max_queued_jobs = 3;
    c.max_queued_bytes = 20;
    cz_engine *e = et_create(&c);
    char msg[256];
    cz_job_id ids[3];
    const char *pl[3] = {"12345678", "abcdefgh", "x"};
    for (int i = 0; i < 3; i++) {
        cz_job_request rq = {.circuit_id = "c", .payload = pl[i], .payload_len = strlen(pl[i]),
                             .num_partitions = 1};
        assert_int_equal(cz_engine_submit(e, &rq, &ids[i], NULL, msg, sizeof msg), CZ_OK);
    }
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.payload_bytes, 17);
    assert_int_equal(st.budget_used, 17); /* nothing loaded yet: the payloads only */
    cz_job_request rq = {.circuit_id = "c", .payload = "y", .payload_len = 1, .num_partitions = 1};
    cz_job_id id = 9;
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_ERR_QUEUE_FULL);
    assert_int_equal(id, 0);
    assert_string_equal(msg, "queue full: 3 jobs queued (engine.max_queued_jobs = 3)");
    assert_int_equal(cz_engine_cancel(e, ids[2], NULL), CZ_OK);
    assert_int_equal(cz_engine_wait_idle(e, 0) == CZ_OK, false); /* two still queued */
    /* 16 queued + 5 > 20 */
    rq.payload = "12345";
    rq.payload_len = 5;
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_ERR_QUEUE_FULL);
    assert_non_null(strstr(msg, "queue full: payloads of 16 bytes queued"));
    assert_non_null(strstr(msg, "engine.max_queued_bytes = 20"));
    /* alone larger than the bound: never acceptable */
    rq.payload = "012345678901234567890";
    rq.payload_len = 21;
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_ERR_BUDGET);
    assert_non_null(strstr(msg, "21 bytes exceeds engine.max_queued_bytes = 20"));
    rq.payload = "1234";
    rq.payload_len = 4;
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_OK);
    cz_engine_get_status(e, &st);
    assert_int_equal(st.payload_bytes, 20);
    assert_int_equal(st.budget_used, 20);
    cz_engine_resume(e);
    assert_int_equal(et_await_check(e, id, "1234", PB), CZ_JOB_DONE);
    assert_int_equal(et_await_check(e, ids[0], pl[0], PB), CZ_JOB_DONE);
    et_check_idle(e, &f); /* budget back to the parameters: payloads returned */
    cz_engine_get_status(e, &st);
    assert_int_equal(st.payload_bytes, 0);
    cz_engine_destroy(e);
    fake_destroy(&f);

    /* the default bound: a quarter of the budget */
    fake_init(&f);
    fake_add_circuit(&f, "c", 100, 10, 10, PB);
    et_config(&c, &f);
    c.max_queued_bytes = 0;
    c.memory_budget = 400;
    c.start_paused = true;
    e = et_create(&c);
    char big[101];
    memset(big, 'z', 100);
    big[100] = 0;
    rq.payload = big;
    rq.payload_len = 100;
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_OK);
    rq.payload_len = 1;
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_ERR_QUEUE_FULL);
    assert_non_null(strstr(msg, "engine.max_queued_bytes = 100"));
    cz_engine_destroy(e);
    fake_destroy(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_does_not_block_dispatch),
        cmocka_unit_test(test_failed_load_fails_its_waiters),
        cmocka_unit_test(test_slow_parse_does_not_block_dispatch),
        cmocka_unit_test(test_refused_ids_leave_nothing),
        cmocka_unit_test(test_queue_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
