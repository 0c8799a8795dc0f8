/*
 * Cancellation of queued and running jobs (in synthesis, in the prover),
 * await timeouts that return TIMEOUT while the job continues, unknown ids,
 * and shutdown in both modes (drain / cancel). Every job ends exactly once
 * (on_job_done), and every reservation comes back.
 */
#include <pthread.h>
#include "etest.h"

#define PB 16
#define MAXJ 64

typedef struct {
    pthread_mutex_t mu;
    int calls[MAXJ + 1];
    cz_job_state last[MAXJ + 1];
} done_log;

static void on_done(void *arg, cz_job_id id, cz_job_state s)
{
    done_log *d = arg;
    pthread_mutex_lock(&d->mu);
    if (id <= MAXJ) {
        d->calls[id]++;
        d->last[id] = s;
    }
    pthread_mutex_unlock(&d->mu);
}

static cz_engine *mk(fake_backend *f, done_log *d, void (*tweak)(cz_engine_config *))
{
    cz_engine_config c;
    et_config(&c, f);
    memset(d, 0, sizeof *d);
    pthread_mutex_init(&d->mu, NULL);
    c.on_job_done = on_done;
    c.on_job_done_arg = d;
    if (tweak)
        tweak(&c);
    return et_create(&c);
}

static void poll_until(cz_engine *e, bool (*pred)(const cz_engine_status *))
{
    for (int i = 0; i < 10000; i++) {
        cz_engine_status st;
        cz_engine_get_status(e, &st);
        if (pred(&st))
            return;
        fake_sleep_ms(1);
    }
    fail_msg("condition never reached");
}

static void tweak_paused(cz_engine_config *c)
{
    c->start_paused = true;
}

static void test_cancel_queued(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "c", 100, 10, 10, PB);
    done_log d;
    cz_engine *e = mk(&f, &d, tweak_paused);
    cz_job_id a = et_submit(e, "c", "a", 3, CZ_PRIO_NORMAL, NULL);
    cz_job_id b = et_submit(e, "c", "b", 3, CZ_PRIO_HIGH, NULL);
    cz_job_id c = et_submit(e, "c", "c", 3, CZ_PRIO_LOW, NULL);
    cz_job_result r;
    assert_int_equal(cz_engine_job_info(e, b, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_QUEUED);
    cz_job_state s;
    assert_int_equal(cz_engine_cancel(e, b, &s), CZ_OK);
    assert_int_equal(s, CZ_JOB_CANCELLED);
    assert_int_equal(cz_engine_cancel(e, b, &s), CZ_ERR_BUSY); /* already terminal */
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.partitions_queued, 6);
    cz_engine_resume(e);
    assert_int_equal(et_await_check(e, a, "a", PB), CZ_JOB_DONE);
    assert_int_equal(et_await_check(e, b, "b", PB), CZ_JOB_CANCELLED);
    assert_int_equal(et_await_check(e, c, "c", PB), CZ_JOB_DONE);
    assert_int_equal(cz_engine_cancel(e, a, &s), CZ_ERR_BUSY);
    assert_int_equal(s, CZ_JOB_DONE);
    et_check_idle(e, &f);
    assert_int_equal(f.synth_calls, 6); /* b never synthesized */
    cz_engine_destroy(e);
    assert_int_equal(d.calls[a], 1);
    assert_int_equal(d.calls[b], 1);
    assert_int_equal(d.calls[c], 1);
    assert_int_equal(d.last[b], CZ_JOB_CANCELLED);
    pthread_mutex_destroy(&d.mu);
    fake_destroy(&f);
}

static bool two_synthesizing(const cz_engine_status *s)
{
    return s->partitions_synthesizing == 2;
}

static void test_cancel_during_synthesis(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "c", 100, 10, 10, PB);
    f.synth_ms = 20000; /* only the cancel flag ends it in time */
    done_log d;
    cz_engine *e = mk(&f, &d, NULL);
    cz_job_id a = et_submit(e, "c", "a", 4, CZ_PRIO_NORMAL, NULL);
    poll_until(e, two_synthesizing);
    cz_job_state s;
    assert_int_equal(cz_engine_cancel(e, a, &s), CZ_OK);
    cz_job_result r;
    assert_int_equal(cz_engine_await(e, a, 0, &r), CZ_OK); /* terminal at once */
    assert_int_equal(r.state, CZ_JOB_CANCELLED);
    assert_int_equal(r.status, CZ_ERR_CANCELLED);
    assert_null(r.proof);
    et_check_idle(e, &f);
    assert_int_equal(f.cancelled_synth, 2);
    assert_int_equal(f.synth_calls, 2);
    cz_engine_destroy(e);
    assert_int_equal(d.calls[a], 1);
    pthread_mutex_destroy(&d.mu);
    fake_destroy(&f);
}

static bool proving(const cz_engine_status *s)
{
    return s->proving >= 1 && s->channel_depth >= 1;
}

static void test_cancel_during_prove(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "c", 100, 10, 10, PB);
    f.prove_ms = 300;
    done_log d;
    cz_engine *e = mk(&f, &d, NULL);
    cz_job_id a = et_submit(e, "c", "a", 6, CZ_PRIO_NORMAL, NULL);
    cz_job_id b = et_submit(e, "c", "b prove_ms=1", 2, CZ_PRIO_LOW, NULL);
    poll_until(e, proving);
    cz_job_state s;
    assert_int_equal(cz_engine_cancel(e, a, &s), CZ_OK);
    /* b is unaffected */
    assert_int_equal(et_await_check(e, b, "b prove_ms=1", PB), CZ_JOB_DONE);
    assert_int_equal(et_await_check(e, a, "a", PB), CZ_JOB_CANCELLED);
    et_check_idle(e, &f);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_true(st.partitions_dropped >= 1);
    assert_int_equal(st.partitions_completed, 2);
    assert_int_equal(st.jobs_cancelled, 1);
    cz_engine_destroy(e);
    pthread_mutex_destroy(&d.mu);
    fake_destroy(&f);
}

static void test_await_timeout(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "c", 100, 10, 10, PB);
    f.synth_ms = 150;
    done_log d;
    cz_engine *e = mk(&f, &d, NULL);
    cz_job_id a = et_submit(e, "c", "a", 2, CZ_PRIO_NORMAL, NULL);
    cz_job_result r;
    assert_int_equal(cz_engine_await(e, a, 0, &r), CZ_ERR_TIMEOUT);
    assert_int_equal(cz_engine_await(e, a, 20, &r), CZ_ERR_TIMEOUT);
    assert_true(r.state == CZ_JOB_QUEUED || r.state == CZ_JOB_RUNNING);
    assert_null(r.proof);
    assert_int_equal(cz_engine_await(e, a, -1, &r), CZ_OK); /* the job went on */
    assert_int_equal(r.state, CZ_JOB_DONE);
    assert_int_equal(r.proof_len, 2 * PB);
    cz_job_result_free(&r);
    /* unknown ids */
    assert_int_equal(cz_engine_await(e, 9999, 10, &r), CZ_ERR_NOT_FOUND);
    assert_int_equal(cz_engine_job_info(e, 9999, &r), CZ_ERR_NOT_FOUND);
    assert_int_equal(cz_engine_cancel(e, 9999, NULL), CZ_ERR_NOT_FOUND);
    assert_int_equal(cz_engine_wait_idle(e, 5000), CZ_OK);
    cz_engine_destroy(e);
    pthread_mutex_destroy(&d.mu);
    fake_destroy(&f);
}

static void tweak_cancel_on_shutdown(cz_engine_config *c)
{
    c->drain_on_shutdown = false;
}

static bool running_job(const cz_engine_status *st)
{
    return st->jobs_running >= 1;
}

static void tweak_drain_deadline(cz_engine_config *c)
{
    c->drain_timeout_ms = 100;
}

typedef struct {
    cz_engine *e;
} shut_arg;

static void *shut_thread(void *arg)
{
    cz_engine_shutdown(((shut_arg *)arg)->e);
    return NULL;
}

/* The drain deadline cancels what is still running; cz_engine_cancel_all
 * from another thread ends a drain at once ("cancel now"). */
static void test_shutdown_deadline_and_cancel_all(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        fake_backend f;
        fake_init(&f);
        fake_add_circuit(&f, "c", 100, 10, 10, PB);
        done_log d;
        cz_engine *e = mk(&f, &d, mode == 0 ? tweak_drain_deadline : NULL);
        /* one long partition per job: 3 s of synthesis */
        cz_job_id a = et_submit(e, "c", "long synth_ms=3000", 1, CZ_PRIO_NORMAL, NULL);
        poll_until(e, running_job);
        pthread_t th;
        shut_arg sa = {e};
        assert_int_equal(pthread_create(&th, NULL, shut_thread, &sa), 0);
        if (mode == 1) {
            fake_sleep_ms(50);
            assert_int_equal(cz_engine_cancel_all(e, "cancelled by a second stop signal"), 1);
        }
        pthread_join(th, NULL);
        cz_job_result r;
        assert_int_equal(cz_engine_job_info(e, a, &r), CZ_OK);
        assert_int_equal(r.state, CZ_JOB_CANCELLED);
        assert_non_null(strstr(r.error, mode == 0 ? "drain deadline" : "second stop signal"));
        assert_int_equal(d.calls[a], 1);
        cz_engine_destroy(e);
        assert_int_equal(f.bytes_alive, 0);
        assert_int_equal(f.errors, 0);
        pthread_mutex_destroy(&d.mu);
        fake_destroy(&f);
    }
}

static void shutdown_case(bool drain)
{
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "c", 100, 10, 10, PB);
    f.synth_ms = 20;
    f.prove_ms = 5;
    done_log d;
    cz_engine *e = mk(&f, &d, drain ? NULL : tweak_cancel_on_shutdown);
    cz_job_id ids[10];
    for (int i = 0; i < 10; i++)
        ids[i] = et_submit(e, "c", "p", 3, CZ_PRIO_NORMAL, NULL);
    poll_until(e, running_job);
    cz_engine_shutdown(e);
    cz_job_request rq = {.circuit_id = "c", .num_partitions = 1};
    cz_job_id x;
    char msg[128];
    assert_int_equal(cz_engine_submit(e, &rq, &x, NULL, msg, sizeof msg), CZ_ERR_CANCELLED);
    int done = 0, cancelled = 0;
    for (int i = 0; i < 10; i++) {
        assert_int_equal(d.calls[ids[i]], 1);
        cz_job_state s = et_await_check(e, ids[i], "p", PB); /* results stay readable */
        done += s == CZ_JOB_DONE;
        cancelled += s == CZ_JOB_CANCELLED;
        cz_job_result r;
        assert_int_equal(cz_engine_job_info(e, ids[i], &r), CZ_OK);
        if (s == CZ_JOB_CANCELLED && drain) {
            /* drain cancels only jobs that had not started */
            assert_int_equal(r.partitions_done, 0);
            assert_non_null(strstr(r.error, "cancelled by engine shutdown"));
        }
    }
    assert_int_equal(done + cancelled, 10);
    /* 30 partitions on two synthesis workers: some job was running at the
     * shutdown (polled for) and some were still queued */
    assert_true(cancelled >= 1);
    if (drain)
        assert_true(done >= 1); /* the running ones were finished */
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.partitions_inflight, 0);
    assert_int_equal(st.budget_used, st.params_resident_bytes);
    cz_engine_destroy(e);
    assert_int_equal(f.bytes_alive, 0);
    assert_int_equal(f.prepared_alive, 0);
    assert_int_equal(f.errors, 0);
    pthread_mutex_destroy(&d.mu);
    fake_destroy(&f);
}

static void test_shutdown_drain(void **state)
{
    (void)state;
    shutdown_case(true);
}

static void test_shutdown_cancel(void **state)
{
    (void)state;
    shutdown_case(false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cancel_queued),
        cmocka_unit_test(test_cancel_during_synthesis),
        cmocka_unit_test(test_cancel_during_prove),
        cmocka_unit_test(test_await_timeout),
        cmocka_unit_test(test_shutdown_drain),
        cmocka_unit_test(test_shutdown_cancel),
        cmocka_unit_test(test_shutdown_deadline_and_cancel_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
