/*
 * Failure rules: injected failures at chosen (job, partition, stage) fail
 * exactly that job with an error naming the partition and stage; the job's
 * other partitions are dropped and their reservations returned; late
 * results are discarded; other jobs complete with correct proofs; the
 * budget returns to its idle value (parameters only).
 */
#include "etest.h"

#define PB 48

typedef struct {
    const char *payload;
    cz_job_state want;
    int32_t part;
    const char *needle;
} fcase;

static void run_faults(bool backend_locks)
{
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "c1", 500, 200, 100, PB);
    fake_add_circuit(&f, "broken", 500, 200, 100, PB);
    f.circ[1].fail_load = true;
    f.synth_ms = 2;
    f.prove_ms = 2;
    f.prove_cpu_ms = 1;
    f.finish_ms = 1;
    f.lock_device_itself = backend_locks;
    cz_engine_config c;
    et_config(&c, &f);
    c.partition_workers = 3;
    c.workers_per_device = 2;
    c.devices = 2;
    c.finalizers = 2;
    c.memory_budget = 500 + 6 * 300;
    cz_engine *e = et_create(&c);

    const fcase cases[] = {
        {"ok-a", CZ_JOB_DONE, -1, NULL},
        {"bad-synth fail=synth:2", CZ_JOB_FAILED, 2, "partition 2/4: synthesize: injected synthesis failure"},
        {"ok-b", CZ_JOB_DONE, -1, NULL},
        {"bad-prove fail=prove:1", CZ_JOB_FAILED, 1, "partition 1/4: prove_start: injected prover failure"},
        {"bad-finish fail=finish:3", CZ_JOB_FAILED, 3, "partition 3/4: prove_finish: injected finish failure"},
        {"bad-first fail=synth:0 synth_ms=1", CZ_JOB_FAILED, 0, "partition 0/4: synthesize"},
        {"bad-prepare fail=prepare:0", CZ_JOB_FAILED, 0, "prepare_job: injected prepare failure"},
        {"bad-verify fail=verify:0", CZ_JOB_FAILED, -1, "self-verification"},
        {"ok-c", CZ_JOB_DONE, -1, NULL},
    };
    const size_t n = sizeof cases / sizeof cases[0];
    const int rounds = ET_SCALE(4, 2);
    cz_job_id ids[4][16];
    for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < n; i++)
            ids[r][i] = et_submit(e, "c1", cases[i].payload, 4,
                                  (cz_priority)((i + (size_t)r) % 4), NULL);
    cz_job_id bl = et_submit(e, "broken", "x", 4, CZ_PRIO_HIGH, NULL);

    for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < n; i++) {
            cz_job_state s = et_await_check(e, ids[r][i], cases[i].payload, PB);
            assert_int_equal(s, cases[i].want);
            cz_job_result res;
            assert_int_equal(cz_engine_job_info(e, ids[r][i], &res), CZ_OK);
            if (cases[i].want == CZ_JOB_FAILED) {
                if (!strstr(res.error, cases[i].needle))
                    fprintf(stderr, "error '%s' lacks '%s'\n", res.error, cases[i].needle);
                assert_non_null(strstr(res.error, cases[i].needle));
                assert_int_equal(res.failed_partition, cases[i].part);
                assert_int_not_equal(res.status, CZ_OK);
            } else {
                assert_int_equal(res.failed_partition, -1);
                assert_int_equal(res.partitions_done, 4);
            }
        }
    cz_job_result res;
    assert_int_equal(cz_engine_await(e, bl, 10000, &res), CZ_OK);
    assert_int_equal(res.state, CZ_JOB_FAILED);
    assert_non_null(strstr(res.error, "load parameters for 'broken': injected load failure"));
    assert_int_equal(res.failed_partition, 0);

    et_check_idle(e, &f);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.jobs_completed, 3 * (uint64_t)rounds);
    assert_int_equal(st.jobs_failed, 6 * (uint64_t)rounds + 1);
    assert_int_equal(st.params_resident_bytes, 500); /* c1 only; broken never charged */
    assert_true(st.partitions_dropped > 0);
    for (int d = 0; d < 2; d++)
        assert_true(f.dev_in_peak[d] <= 1); /* device region is exclusive */
    cz_engine_destroy(e);
    assert_int_equal(f.bytes_alive, 0);
    assert_int_equal(f.prepared_alive, 0);
    assert_int_equal(f.errors, 0);
    fake_destroy(&f);
}

static void test_faults_engine_lock(void **state)
{
    (void)state;
    run_faults(false);
}

static void test_faults_backend_lock(void **state)
{
    (void)state;
    run_faults(true);
}

/* A failure while the job's other partitions sit in the channel and the
 * finalizer queue: they are purged at once and nothing leaks. */
static void test_failure_purges_queues(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "c1", 100, 50, 50, PB);
    f.synth_ms = 0;
    f.prove_ms = 1;
    f.finish_ms = 10; /* finalizer queue builds up */
    cz_engine_config c;
    et_config(&c, &f);
    c.partition_workers = 4;
    c.synthesis_lookahead = 8;
    c.finalizers = 1;
    cz_engine *e = et_create(&c);
    cz_job_id a = et_submit(e, "c1", "fail=finish:1", 12, CZ_PRIO_NORMAL, NULL);
    cz_job_id b = et_submit(e, "c1", "fine", 6, CZ_PRIO_LOW, NULL);
    assert_int_equal(et_await_check(e, a, "fail=finish:1", PB), CZ_JOB_FAILED);
    assert_int_equal(et_await_check(e, b, "fine", PB), CZ_JOB_DONE);
    et_check_idle(e, &f);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.partitions_completed + st.partitions_dropped, 12 + 6);
    cz_engine_destroy(e);
    assert_int_equal(f.bytes_alive, 0);
    fake_destroy(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_faults_engine_lock),
        cmocka_unit_test(test_faults_backend_lock),
        cmocka_unit_test(test_failure_purges_queues),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
