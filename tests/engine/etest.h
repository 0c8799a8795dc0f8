/* Small helpers shared by the engine tests (header-only). */
#ifndef CZ_ETEST_H
#define CZ_ETEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "testutil.h"
#include "fake_backend.h"

#ifdef CUZK_SANITIZED
#define ET_SCALE(plain, san) (san)
#else
#define ET_SCALE(plain, san) (plain)
#endif

/* A config with small, test-friendly knobs and the fake back-end. */
static inline void et_config(cz_engine_config *c, fake_backend *f)
{
    cz_engine_config_default(c);
    c->memory_budget = 1u << 30;
    c->eviction_min_idle_ms = 0;
    c->result_retention_ms = 60000;
    c->result_retention_count = 100000;
    c->partition_workers = 2;
    c->workers_per_device = 1;
    c->devices = 1;
    c->finalizers = 1;
    /* The fake's sizes are tiny (hundreds of bytes): a quarter of such a
     * budget would refuse most test queues. Queued payloads are still
     * charged (and bounded by the budget itself); the tests of the bound
     * set it. */
    c->max_queued_bytes = UINT64_MAX / 4;
    fake_backend_vtable(f, &c->backend);
    if (getenv("CZ_ENGINE_TIMELINE"))
        c->timeline_file = stderr;
}

/* The fake back-end with one circuit "c" (params 100, abc 10, rest 10
 * bytes; proof_bytes per partition) and et_config's engine config. */
static inline void et_one_circuit(fake_backend *f, cz_engine_config *c, size_t proof_bytes)
{
    fake_init(f);
    fake_add_circuit(f, "c", 100, 10, 10, proof_bytes);
    et_config(c, f);
}

static inline cz_engine *et_create(const cz_engine_config *c)
{
    cz_engine *e = NULL;
    char msg[256];
    cz_status st = cz_engine_create(&e, c, msg, sizeof msg);
    if (st != CZ_OK)
        fprintf(stderr, "create: %s\n", msg);
    assert_int_equal(st, CZ_OK);
    return e;
}

static inline cz_job_id et_submit(cz_engine *e, const char *circuit, const char *payload,
                                  uint32_t parts, cz_priority prio, const char *rid)
{
    cz_job_request r = {.circuit_id = circuit,
                        .payload = payload,
                        .payload_len = strlen(payload),
                        .num_partitions = parts,
                        .priority = prio,
                        .request_id = rid};
    cz_job_id id = 0;
    char msg[512];
    cz_status st = cz_engine_submit(e, &r, &id, NULL, msg, sizeof msg);
    if (st != CZ_OK)
        fprintf(stderr, "submit: %s\n", msg);
    assert_int_equal(st, CZ_OK);
    assert_true(id != 0);
    return id;
}

/* Awaits a job (10 s limit) and checks its proof against the fake's
 * formula when it is DONE. Returns the final state. */
static inline cz_job_state et_await_check(cz_engine *e, cz_job_id id, const char *payload,
                                          size_t proof_bytes)
{
    cz_job_result r;
    cz_status st = cz_engine_await(e, id, 10000, &r);
    assert_int_equal(st, CZ_OK);
    if (r.state == CZ_JOB_DONE) {
        assert_int_equal(r.proof_len, proof_bytes * r.num_partitions);
        uint8_t *exp = malloc(proof_bytes);
        for (uint32_t k = 0; k < r.num_partitions; k++) {
            fake_expected_proof(payload, strlen(payload), id, k, exp, proof_bytes);
            assert_memory_equal(exp, r.proof + k * proof_bytes, proof_bytes);
        }
        free(exp);
    }
    cz_job_state s = r.state;
    cz_job_result_free(&r);
    return s;
}

/* After the engine went idle: every reservation returned, every object
 * freed, the budget back to "parameters only". */
static inline void et_check_idle(cz_engine *e, fake_backend *f)
{
    assert_int_equal(cz_engine_wait_idle(e, 10000), CZ_OK);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.partitions_inflight, 0);
    assert_int_equal(st.budget_used, st.params_resident_bytes);
    assert_true(st.budget_peak <= st.budget_total);
    assert_int_equal(st.channel_depth, 0);
    assert_int_equal(st.finalize_queued, 0);
    pthread_mutex_lock(&f->mu);
    int64_t params_bytes = 0;
    (void)params_bytes;
    assert_int_equal(f->synth_alive, 0);
    assert_int_equal(f->pending_alive, 0);
    assert_int_equal(f->synthesizing, 0);
    assert_int_equal(f->errors, 0);
    /* objects alive = exactly the resident parameters the engine charges */
    assert_int_equal((uint64_t)f->bytes_alive, st.params_resident_bytes);
    assert_true((uint64_t)f->bytes_peak <= st.budget_total);
    pthread_mutex_unlock(&f->mu);
}

#endif
