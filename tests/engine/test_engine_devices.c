/*
 * Engine devices through the fake back-end's fake devices (no GPU needed):
 * work spread over several devices, one kernel per device at a time, the
 * lock covering only the kernel region, retry of a device failure on
 * another device, quarantine, every device quarantined, the per-device
 * memory budget, and a device lock still usable after a failure inside it.
 * No timing assertions: orderings and counts only (the fake's probes wait
 * with a bound, so a broken engine fails an assertion instead of hanging).
 */
#include "etest.h"
#include "cuzk/engine.h"

/* TIMELINE lines kept in memory (the callback runs under the engine's
 * timeline lock: plain appends). */
typedef struct {
    pthread_mutex_t mu;
    char *buf;
    size_t len, cap;
} tl_buf;

static void tl_cb(void *arg, const char *line)
{
    tl_buf *t = arg;
    pthread_mutex_lock(&t->mu);
    size_t n = strlen(line);
    if (t->len + n + 2 > t->cap) {
        size_t cap = (t->cap + n + 2) * 2;
        char *b = realloc(t->buf, cap);
        if (!b) {
            pthread_mutex_unlock(&t->mu);
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, line, n);
    t->buf[t->len + n] = '\n';
    t->len += n + 1;
    t->buf[t->len] = 0;
    pthread_mutex_unlock(&t->mu);
}

static size_t count_sub(const char *s, const char *sub)
{
    size_t n = 0;
    for (const char *p = s; p && (p = strstr(p, sub)); p += strlen(sub))
        n++;
    return n;
}

static void devices_config(fake_backend *f, cz_engine_config *c, unsigned ndev, unsigned wpd)
{
    et_one_circuit(f, c, 64);
    c->devices = ndev;
    c->workers_per_device = wpd;
    c->partition_workers = 2;
    c->synthesis_lookahead = 4;
}

/* Work spreads over every device; no device ever runs two kernels at
 * once; GPU_START/GPU_END per partition; one trace row and one status
 * entry per device. */
static void test_spread(void **state)
{
    (void)state;
    for (unsigned ndev = 2; ndev <= 4; ndev++) {
        fake_backend f;
        cz_engine_config c;
        devices_config(&f, &c, ndev, 2);
        f.lock_device_itself = true;
        f.prove_ms = 1;
        f.spread_ms = 10000;
        for (unsigned d = 0; d < ndev; d++)
            f.spread_need[d] = 1;
        fake_backend_vtable(&f, &c.backend);
        tl_buf tl = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};
        c.timeline_cb = tl_cb;
        c.timeline_arg = &tl;
        cz_engine *e = et_create(&c);
        const char *pl = "spread";
        uint32_t parts = 6 * ndev;
        cz_job_id id = et_submit(e, "c", pl, parts, CZ_PRIO_NORMAL, NULL);
        assert_int_equal(et_await_check(e, id, pl, 64), CZ_JOB_DONE);
        et_check_idle(e, &f);
        cz_engine_status st;
        cz_engine_get_status(e, &st);
        uint64_t sum = 0;
        for (unsigned d = 0; d < ndev; d++) {
            assert_true(f.dev_ok[d] > 0);                       /* every device proved something */
            assert_int_equal(atomic_load(&f.kernel_peak[d]), 1); /* never two kernels at once */
            assert_int_equal(st.device[d].partitions, (uint64_t)f.dev_ok[d]);
            assert_false(st.device[d].quarantined);
            char nm[64];
            snprintf(nm, sizeof nm, "fake device %u", d);
            assert_string_equal(st.device[d].name, nm);
            sum += st.device[d].partitions;
        }
        assert_int_equal(sum, parts);
        assert_int_equal(st.devices, ndev);
        char js[16384];
        size_t jl = cz_engine_status_json(&st, js, sizeof js);
        assert_true(jl < sizeof js);
        assert_non_null(strstr(js, "\"device\":[{\"index\":0,\"name\":\"fake device 0\""));
        assert_int_equal(count_sub(js, "\"quarantined\":false"), ndev);
        char *prom = malloc(1 << 20);
        cz_engine_metrics_prometheus(e, prom, 1 << 20);
        assert_non_null(strstr(prom, "cuzk_device_busy_seconds_total{device=\"0\"}"));
        /* no unlabelled total in the family (sum() would count it twice) */
        assert_null(strstr(prom, "\ncuzk_device_busy_seconds_total "));
        assert_non_null(strstr(prom, "cuzk_device_quarantined{device=\"1\"} 0"));
        assert_non_null(strstr(prom, "cuzk_device_memory_used_bytes{device=\"0\"} 0"));
        free(prom);
        /* timeline: a GPU_START and a GPU_END per partition, with the device */
        pthread_mutex_lock(&tl.mu);
        assert_int_equal(count_sub(tl.buf, " GPU_START "), parts);
        assert_int_equal(count_sub(tl.buf, " GPU_END "), parts);
        assert_int_equal(count_sub(tl.buf, "gpu_ms="), parts);
        assert_non_null(strstr(tl.buf, "GPU_START job="));
        assert_non_null(strstr(tl.buf, " device=1 gpu_ms="));
        pthread_mutex_unlock(&tl.mu);
        /* Chrome trace: one named row per device */
        char *tb = NULL;
        size_t tn = 0;
        FILE *tf = open_memstream(&tb, &tn);
        assert_int_equal(cz_engine_write_chrome_trace(e, tf), CZ_OK);
        fclose(tf);
        for (unsigned d = 0; d < ndev; d++) {
            char row[64];
            snprintf(row, sizeof row, "\"tid\":%u,\"args\":{\"name\":\"device %u\"}", 4000 + d, d);
            assert_non_null(strstr(tb, row));
        }
        assert_int_equal(count_sub(tb, "\"cat\":\"gpu\""), parts);
        free(tb);
        cz_engine_destroy(e);
        fake_destroy(&f);
        free(tl.buf);
    }
}

/* The device lock covers only the kernel region: with backend_locks_device
 * one worker's CPU part runs while the other's kernel holds the lock; when
 * the engine holds the lock around the whole prove_start it never does
 * (the negative case shows the probe can fail). */
static void test_lock_scope(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        bool backend_locks = mode == 0;
        fake_backend f;
        cz_engine_config c;
        devices_config(&f, &c, 1, 2);
        f.lock_device_itself = backend_locks;
        f.rendezvous_ms = backend_locks ? 5000 : 200;
        fake_backend_vtable(&f, &c.backend);
        cz_engine *e = et_create(&c);
        cz_job_id id = et_submit(e, "c", "scope", 4, CZ_PRIO_NORMAL, NULL);
        assert_int_equal(et_await_check(e, id, "scope", 64), CZ_JOB_DONE);
        et_check_idle(e, &f);
        assert_int_equal(atomic_load(&f.kernel_peak[0]), 1);
        if (backend_locks)
            assert_true(atomic_load(&f.overlap_seen[0]) > 0);
        else
            assert_int_equal(atomic_load(&f.overlap_seen[0]), 0);
        cz_engine_destroy(e);
        fake_destroy(&f);
    }
}

/* Device 0 always fails: each of its partitions is synthesized again and
 * proved on device 1; the job is DONE with the right bytes. */
static void test_retry_on_other_device(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    devices_config(&f, &c, 2, 1);
    f.lock_device_itself = true;
    f.dev_fail_always[0] = true;
    f.spread_ms = 10000; /* device 0 must get work: device 1's kernel waits for one of its */
    f.spread_need[0] = 1;
    c.device_quarantine_after = 0; /* never: every one of its partitions is retried */
    fake_backend_vtable(&f, &c.backend);
    cz_engine *e = et_create(&c);
    cz_job_id id = et_submit(e, "c", "retry", 8, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(et_await_check(e, id, "retry", 64), CZ_JOB_DONE);
    et_check_idle(e, &f);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_true(f.dev_calls[0] > 0);
    assert_int_equal(f.dev_ok[0], 0);
    assert_int_equal(f.dev_ok[1], 8);
    assert_int_equal(st.device_retries, (uint64_t)f.dev_calls[0]);
    assert_int_equal(st.device[0].failures, (uint64_t)f.dev_calls[0]);
    assert_false(st.device[0].quarantined);
    assert_non_null(strstr(st.device[0].last_error, "injected device fault on device 0"));
    /* one synthesis per partition, plus one per retry */
    assert_int_equal(f.synth_calls, 8 + (uint64_t)f.dev_calls[0]);
    cz_engine_part_record r[16];
    size_t n = cz_engine_get_records(e, r, 16);
    assert_int_equal(n, 8);
    size_t retried = 0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(r[i].status, CZ_OK);
        assert_int_equal(r[i].device, 1);
        retried += r[i].device_retried;
    }
    assert_int_equal(retried, (size_t)f.dev_calls[0]);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

/* device_quarantine_after consecutive failures quarantine a device: status
 * and JSON say so, and later work never goes to it. */
static void test_quarantine(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    devices_config(&f, &c, 2, 1);
    f.lock_device_itself = true;
    f.dev_fail_always[0] = true;
    f.spread_ms = 10000; /* device 1's first kernel waits until device 0 had two */
    f.spread_need[0] = 2;
    c.device_quarantine_after = 2;
    fake_backend_vtable(&f, &c.backend);
    cz_engine *e = et_create(&c);
    cz_job_id id = et_submit(e, "c", "q1", 12, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(et_await_check(e, id, "q1", 64), CZ_JOB_DONE);
    et_check_idle(e, &f);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_true(st.device[0].quarantined);
    assert_false(st.device[1].quarantined);
    assert_int_equal(st.devices_quarantined, 1);
    assert_int_equal(st.device[0].failures, 2); /* one worker: the third never came */
    assert_int_equal(f.dev_calls[0], 2);
    char js[16384];
    cz_engine_status_json(&st, js, sizeof js);
    assert_non_null(strstr(js, "\"index\":0,\"name\":\"fake device 0\""));
    assert_non_null(strstr(js, "\"consecutive_failures\":2,\"quarantined\":true"));
    assert_non_null(strstr(js, "\"devices_quarantined\":1"));
    char *prom = malloc(1 << 20);
    cz_engine_metrics_prometheus(e, prom, 1 << 20);
    assert_non_null(strstr(prom, "cuzk_device_quarantined{device=\"0\"} 1"));
    assert_non_null(strstr(prom, "cuzk_device_quarantined{device=\"1\"} 0"));
    free(prom);
    /* later work: never on device 0 */
    f.spread_ms = 0;
    int calls0 = f.dev_calls[0];
    cz_job_id id2 = et_submit(e, "c", "q2", 10, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(et_await_check(e, id2, "q2", 64), CZ_JOB_DONE);
    et_check_idle(e, &f);
    pthread_mutex_lock(&f.mu);
    assert_int_equal(f.dev_calls[0], calls0);
    pthread_mutex_unlock(&f.mu);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

/* Both devices fail: the first partition fails on one and on its retry on
 * the other (the message names both), then every device is quarantined
 * and later partitions fail at once saying so. One device alone: no
 * other device to retry on. */
static void test_all_quarantined(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    devices_config(&f, &c, 2, 1);
    f.lock_device_itself = true;
    f.dev_fail_always[0] = f.dev_fail_always[1] = true;
    c.device_quarantine_after = 1;
    c.partition_workers = 1;
    fake_backend_vtable(&f, &c.backend);
    cz_engine *e = et_create(&c);
    cz_job_id id = et_submit(e, "c", "allq", 1, CZ_PRIO_NORMAL, NULL);
    cz_job_result r;
    assert_int_equal(cz_engine_await(e, id, 10000, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_FAILED);
    assert_int_equal(r.status, CZ_ERR_DEVICE);
    assert_non_null(strstr(r.error, "; retry on device "));
    assert_non_null(strstr(r.error, "injected device fault on device 0"));
    assert_non_null(strstr(r.error, "injected device fault on device 1"));
    cz_job_result_free(&r);
    et_check_idle(e, &f);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.devices_quarantined, 2);
    int calls = f.dev_calls[0] + f.dev_calls[1];
    assert_int_equal(calls, 2);
    cz_job_id id2 = et_submit(e, "c", "allq2", 3, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(cz_engine_await(e, id2, 10000, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_FAILED);
    assert_int_equal(r.status, CZ_ERR_DEVICE);
    assert_non_null(strstr(r.error, "every device is quarantined (device 0: injected device fault"));
    cz_job_result_free(&r);
    et_check_idle(e, &f);
    assert_int_equal(f.dev_calls[0] + f.dev_calls[1], calls); /* nothing went to a device */
    cz_engine_destroy(e);
    fake_destroy(&f);

    /* one device: nothing to retry on */
    devices_config(&f, &c, 1, 1);
    f.dev_fail_nth[0] = 1;
    c.device_quarantine_after = 0;
    fake_backend_vtable(&f, &c.backend);
    e = et_create(&c);
    id = et_submit(e, "c", "one", 1, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(cz_engine_await(e, id, 10000, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_FAILED);
    assert_non_null(strstr(r.error, "device 0: injected device fault on device 0 (call 1); no other device to retry on"));
    cz_job_result_free(&r);
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

/* A device whose budget admits one partition never holds two (two workers
 * on it); the resident parameters stay charged; a partition that fits no
 * device's budget fails naming the sizes. */
static void test_device_budget(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    devices_config(&f, &c, 1, 2);
    f.lock_device_itself = true;
    f.prove_cpu_ms = 2;
    f.prove_ms = 2;
    f.circ[0].est.device_params_bytes = 100;
    f.circ[0].est.device_partition_bytes = 40;
    c.device_memory[0] = 150; /* 100 + 40 fits, 100 + 80 does not */
    fake_backend_vtable(&f, &c.backend);
    cz_engine *e = et_create(&c);
    cz_job_id id = et_submit(e, "c", "budget", 10, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(et_await_check(e, id, "budget", 64), CZ_JOB_DONE);
    et_check_idle(e, &f);
    assert_int_equal(f.dev_holding_peak[0], 1);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.device[0].memory_total, 150);
    assert_int_equal(st.device[0].memory_used, 100); /* the resident parameters */
    /* evicting the parameters drops their device charge too */
    char msg[256];
    assert_int_equal(cz_engine_evict(e, "c", msg, sizeof msg), CZ_OK);
    cz_engine_get_status(e, &st);
    assert_int_equal(st.device[0].memory_used, 0);
    cz_engine_destroy(e);
    fake_destroy(&f);

    devices_config(&f, &c, 1, 1);
    f.circ[0].est.device_params_bytes = 100;
    f.circ[0].est.device_partition_bytes = 40;
    c.device_memory[0] = 120;
    fake_backend_vtable(&f, &c.backend);
    e = et_create(&c);
    id = et_submit(e, "c", "toobig", 2, CZ_PRIO_NORMAL, NULL);
    cz_job_result r;
    assert_int_equal(cz_engine_await(e, id, 10000, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_FAILED);
    assert_non_null(strstr(r.error, "needs 140 bytes of device memory (parameters 100 + working set 40)"));
    cz_job_result_free(&r);
    et_check_idle(e, &f);
    assert_int_equal(f.dev_calls[0], 0);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

/* A failure inside the device region leaves the lock usable: the next
 * partitions on the same (only) device are proved, whether the engine or
 * the back-end holds the lock. */
static void test_lock_after_failure(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        fake_backend f;
        cz_engine_config c;
        devices_config(&f, &c, 1, 2);
        f.lock_device_itself = mode == 0;
        f.dev_fail_nth[0] = 1;
        c.device_quarantine_after = 0;
        c.partition_workers = 1;
        fake_backend_vtable(&f, &c.backend);
        cz_engine *e = et_create(&c);
        cz_job_id id = et_submit(e, "c", "first", 1, CZ_PRIO_NORMAL, NULL);
        cz_job_result r;
        assert_int_equal(cz_engine_await(e, id, 10000, &r), CZ_OK);
        assert_int_equal(r.state, CZ_JOB_FAILED);
        cz_job_result_free(&r);
        cz_job_id id2 = et_submit(e, "c", "after", 6, CZ_PRIO_NORMAL, NULL);
        assert_int_equal(et_await_check(e, id2, "after", 64), CZ_JOB_DONE);
        et_check_idle(e, &f);
        assert_int_equal(f.dev_ok[0], 6);
        cz_engine_status st;
        cz_engine_get_status(e, &st);
        assert_int_equal(st.device[0].failures, 1);
        assert_int_equal(st.device[0].consecutive_failures, 0); /* a success resets it */
        cz_engine_destroy(e);
        fake_destroy(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_lock_scope),
        cmocka_unit_test(test_retry_on_other_device),
        cmocka_unit_test(test_quarantine),
        cmocka_unit_test(test_all_quarantined),
        cmocka_unit_test(test_device_budget),
        cmocka_unit_test(test_lock_after_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
