/*
 * What a request can make the production back-end build, and what its
 * estimate tells the engine: canonical circuit ids only; the allowlist
 * (cz_prover_config.circuits) and the constraint bound (max_constraints),
 * both refused before anything is recorded; the recorded circuit lives
 * exactly as long as the parameters that use it (eviction frees it); the
 * B_G2 scratch is estimated for the whole compute pool it runs on.
 */
#include "testutil.h"
#include "cuzk/prover.h"
#include "cuzk/circuits.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/threadpool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[64];

static int setup_dir(void **state)
{
    (void)state;
    return cz_test_dir_make(dir, sizeof dir, "cz_circ_");
}

static int rm_dir(void **state)
{
    (void)state;
    return cz_test_dir_remove(dir);
}

static void make_backend(cz_engine_backend *be, const char *circuits, uint64_t max_constraints, unsigned threads)
{
    cz_prover_config pc = {.param_dir = dir, .threads = threads, .auto_setup = true, .circuits = circuits,
                           .max_constraints = max_constraints};
    cz_errbuf e = {{0}};
    cz_status st = cz_prover_backend_create(be, &pc, &e);
    if (st != CZ_OK) fail_msg("backend: %s", e.msg);
}

static cz_status estimate(cz_engine_backend *be, const char *id, cz_engine_estimate *est, char *msg, size_t len)
{
    memset(est, 0, sizeof *est);
    msg[0] = 0;
    return be->estimate(be->ctx, id, est, msg, len);
}

static void canonical_ids(void **state)
{
    (void)state;
    cz_engine_backend be;
    make_backend(&be, NULL, 0, 2);
    cz_engine_estimate est;
    char msg[256];
    assert_int_equal(estimate(&be, "mulchain-0300", &est, msg, sizeof msg), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(msg, "'mulchain-0300' is not canonical"));
    assert_non_null(strstr(msg, "'mulchain-300'"));
    const char *bad[] = {"mulchain-+300", "mulchain- 300", "mulchain-300 ", "mulchain-", "mulchain-0",
                         "mulchain-00", "mulchain-3e2", "mulchain-99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(estimate(&be, bad[i], &est, msg, sizeof msg), CZ_ERR_NOT_FOUND);
        assert_non_null(strstr(msg, "unknown circuit"));
    }
    assert_int_equal(cz_prover_recorded_circuits(&be, NULL), 0); /* nothing was built */
    assert_int_equal(estimate(&be, "mulchain-300", &est, msg, sizeof msg), CZ_OK);
    cz_prover_backend_destroy(&be);
}

static void allowlist_and_bound(void **state)
{
    (void)state;
    cz_engine_backend be;
    cz_engine_estimate est;
    char msg[256];
    make_backend(&be, " mulchain-1* , shaped-12,porep-2k", 2000, 2);
    if (estimate(&be, "mulchain-100", &est, msg, sizeof msg) != CZ_OK) fail_msg("%s", msg);
    assert_int_equal(estimate(&be, "mulchain-200", &est, msg, sizeof msg), CZ_ERR_NOT_FOUND);
    assert_string_equal(msg, "circuit 'mulchain-200' is not served here (backend.circuits =  mulchain-1* , "
                             "shaped-12,porep-2k)");
    /* 1997 multiplications + 3 input rows = 2000 constraints: the bound itself */
    assert_int_equal(estimate(&be, "mulchain-1997", &est, msg, sizeof msg), CZ_OK);
    assert_int_equal(estimate(&be, "mulchain-1998", &est, msg, sizeof msg), CZ_ERR_NOT_FOUND);
    assert_string_equal(msg, "circuit 'mulchain-1998' has 2001 constraints, more than backend.max_constraints = "
                             "2000 allows");
    assert_int_equal(estimate(&be, "porep-2k", &est, msg, sizeof msg), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(msg, "has 2687921 constraints"));
    assert_int_equal(estimate(&be, "shaped-12", &est, msg, sizeof msg), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(msg, "has up to "));
    assert_int_equal(cz_prover_recorded_circuits(&be, NULL), 0);
    /* offline calls obey the same rules */
    uint8_t *pl = NULL;
    size_t pl_len = 0;
    cz_errbuf e = {{0}};
    assert_int_equal(cz_prover_sample_payload(&be, "mulchain-200", 1, 1, &pl, &pl_len, &e), CZ_ERR_NOT_FOUND);
    cz_prover_backend_destroy(&be);

    /* the default bound (2^27) refuses mulchain-2^28 before recording it
     * (recording would take minutes and tens of GiB) */
    make_backend(&be, NULL, 0, 2);
    assert_int_equal(estimate(&be, "mulchain-268435456", &est, msg, sizeof msg), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(msg, "has 268435459 constraints, more than backend.max_constraints = 134217728"));
    cz_prover_backend_destroy(&be);

    /* malformed allowlists are refused at creation, naming the item */
    const char *badlists[] = {"mulchain-*x", "a,,b", "a b"};
    for (size_t i = 0; i < 3; i++) {
        cz_prover_config pc = {.param_dir = dir, .threads = 2, .circuits = badlists[i]};
        cz_errbuf eb = {{0}};
        assert_int_equal(cz_prover_backend_create(&be, &pc, &eb), CZ_ERR_INVALID_ARG);
        assert_non_null(strstr(eb.msg, badlists[i]));
    }
}

/* The recorded circuit is part of the parameters' charge: it exists while
 * they are resident and eviction frees it; the NTT domain (kept by the
 * prover for the process) is charged once, as shared bytes, and stays. */
static void recorded_circuit_follows_params(void **state)
{
    (void)state;
    cz_engine_backend be;
    make_backend(&be, NULL, 0, 2);
    cz_engine_config cfg;
    cz_engine_config_default(&cfg);
    cfg.memory_budget = 2ull << 30;
    cfg.backend = be;
    cz_engine *eng;
    char msg[256];
    assert_int_equal(cz_engine_create(&eng, &cfg, msg, sizeof msg), CZ_OK);
    const char *cid = "mulchain-1000";
    cz_engine_estimate est;
    assert_int_equal(estimate(&be, cid, &est, msg, sizeof msg), CZ_OK);
    assert_int_equal(cz_prover_recorded_circuits(&be, NULL), 0); /* estimating keeps nothing */
    assert_true(est.shared_key != 0);
    assert_int_equal(est.shared_bytes, cz_ntt_domain_memory(10)); /* 1003 constraints: m = 2^10 */
    cz_job_request rq = {.circuit_id = cid, .payload = "", .payload_len = 0, .num_partitions = 2};
    cz_job_id id;
    assert_int_equal(cz_engine_submit(eng, &rq, &id, NULL, msg, sizeof msg), CZ_OK);
    cz_job_result r;
    assert_int_equal(cz_engine_await(eng, id, 300000, &r), CZ_OK);
    if (r.state != CZ_JOB_DONE) fail_msg("job: %s", r.error);
    cz_job_result_free(&r);
    assert_int_equal(cz_engine_wait_idle(eng, 60000), CZ_OK);
    uint64_t bytes = 0;
    assert_int_equal(cz_prover_recorded_circuits(&be, &bytes), 1);
    assert_true(bytes > 0 && bytes < est.params_bytes); /* inside the parameters' charge */
    cz_engine_status st;
    cz_engine_get_status(eng, &st);
    assert_int_equal(st.params_resident_bytes, est.params_bytes);
    assert_int_equal(st.shared_bytes, est.shared_bytes);
    assert_int_equal(st.budget_used, est.params_bytes + est.shared_bytes);
    assert_int_equal(cz_engine_evict(eng, cid, msg, sizeof msg), CZ_OK);
    assert_int_equal(cz_prover_recorded_circuits(&be, &bytes), 0);
    assert_int_equal(bytes, 0);
    cz_engine_get_status(eng, &st);
    assert_int_equal(st.budget_used, est.shared_bytes); /* the domain stays, and stays charged */
    /* a second load of the same size charges no second domain */
    assert_int_equal(cz_engine_preload(eng, cid, msg, sizeof msg), CZ_OK);
    cz_engine_get_status(eng, &st);
    assert_int_equal(st.budget_used, est.params_bytes + est.shared_bytes);
    cz_engine_destroy(eng);
    assert_int_equal(cz_prover_recorded_circuits(&be, NULL), 0);
    cz_prover_backend_destroy(&be);
}

/* B_G2 runs its MSMs on the whole compute pool: the estimate must cover
 * the pool's scratch, not one thread's. The circuit is chosen so that the
 * pool's B_G2 scratch is what decides rest_bytes (checked below), so a
 * one-thread estimate fails the test. */
static void b_g2_scratch_for_the_pool(void **state)
{
    (void)state;
    const unsigned threads = 4;
    cz_engine_backend be;
    make_backend(&be, NULL, 0, threads);
    const size_t n = 4000;
    char cid[32];
    snprintf(cid, sizeof cid, "mulchain-%zu", n);
    cz_engine_estimate est;
    char msg[256];
    assert_int_equal(estimate(&be, cid, &est, msg, sizeof msg), CZ_OK);
    cz_mulchain mc = {.n_mul = n, .x0 = CZ_FR_ONE};
    cz_pce *pce = NULL;
    assert_int_equal(cz_pce_record(&pce, cz_mulchain_synth, &mc, NULL), CZ_OK);
    cz_pool *pool = NULL;
    assert_int_equal(cz_pool_create(&pool, threads - 1, "t-pool"), CZ_OK);
    uint64_t m = 1;
    while (m < pce->n_constraints) m <<= 1;
    uint64_t nvars = pce->n_inputs + pce->n_aux, nb = pce->dens_b_input_count + pce->dens_b_aux_count;
    uint64_t s1 = cz_msm_g1_scratch_resident(m - 1, pool, NULL);
    uint64_t in_start = 64 * nvars + (s1 > 64 * m ? s1 - 64 * m : 0);
    uint64_t after_pool = 32 * nvars + cz_msm_g2_scratch_resident(nb, pool, NULL);
    uint64_t after_one = 32 * nvars + cz_msm_g2_scratch_resident(nb, NULL, NULL);
    fprintf(stderr, "rest %llu: in prove_start %llu, after (pool) %llu, after (one thread) %llu\n",
            (unsigned long long)est.rest_bytes, (unsigned long long)in_start, (unsigned long long)after_pool,
            (unsigned long long)after_one);
    /* the test discriminates: the one-thread figure would be smaller */
    assert_true(after_pool > in_start && after_pool > after_one);
    assert_true(est.rest_bytes >= after_pool);
    cz_pool_destroy(pool);
    cz_pce_free(pce);
    cz_prover_backend_destroy(&be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(canonical_ids),
        cmocka_unit_test(allowlist_and_bound),
        cmocka_unit_test(recorded_circuit_follows_params),
        cmocka_unit_test(b_g2_scratch_for_the_pool),
    };
    return cmocka_run_group_tests(tests, setup_dir, rm_dir);
}
