/*
 * The production back-end inside a real engine: real Groth16 proofs of the
 * mulchain circuit, the parameter store (setup, sidecar, cache, refusals),
 * bad payloads. Proofs are checked by an independent verification call
 * besides the engine's own self-verification.
 */
#include "testutil.h"
#include "cuzk/prover.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static int setup_dir(void **state)
{
    (void)state;
    return cz_test_dir_make(dir, sizeof dir, "cz_store_");
}

static int rm_dir(void **state)
{
    (void)state;
    return cz_test_dir_remove(dir);
}

static cz_engine *make_engine(cz_engine_backend *be, bool auto_setup)
{
    cz_prover_config pc = {.param_dir = dir, .threads = 2, .auto_setup = auto_setup};
    cz_errbuf e = {{0}};
    cz_status st = cz_prover_backend_create(be, &pc, &e);
    if (st != CZ_OK) fail_msg("backend: %s", e.msg);
    cz_engine_config cfg;
    cz_engine_config_default(&cfg);
    cfg.memory_budget = 2ull << 30;
    cfg.backend = *be;
    cz_engine *eng;
    char msg[256];
    st = cz_engine_create(&eng, &cfg, msg, sizeof msg);
    if (st != CZ_OK) fail_msg("engine: %s", msg);
    return eng;
}

static void proofs_through_the_engine(void **state)
{
    (void)state;
    cz_engine_backend be;
    cz_engine *eng = make_engine(&be, true);
    const char *cid = "mulchain-300";
    enum { JOBS = 3, PARTS = 3 };
    cz_job_id ids[JOBS];
    char *payload[JOBS];
    for (int j = 0; j < JOBS; j++) {
        char msg[256];
        payload[j] = malloc(64);
        snprintf(payload[j], 64, "{\"x0\": \"%d\"}", 1000 + j);
        cz_job_request rq = {.circuit_id = cid, .payload = payload[j], .payload_len = strlen(payload[j]),
                             .num_partitions = PARTS, .priority = CZ_PRIO_NORMAL};
        cz_status st = cz_engine_submit(eng, &rq, &ids[j], NULL, msg, sizeof msg);
        if (st != CZ_OK) fail_msg("submit: %s", msg);
    }
    for (int j = 0; j < JOBS; j++) {
        cz_job_result r;
        assert_int_equal(cz_engine_await(eng, ids[j], 300000, &r), CZ_OK);
        if (r.state != CZ_JOB_DONE) fail_msg("job %d: %s", j, r.error);
        assert_int_equal(r.proof_len, PARTS * CZ_GROTH16_PROOF_BYTES);
        cz_errbuf e = {{0}};
        /* independent check: verify offline against the payload */
        assert_int_equal(cz_prover_verify(&be, cid, NULL, (uint8_t *)payload[j], strlen(payload[j]), PARTS, r.proof,
                                          r.proof_len, &e), CZ_OK);
        /* the proof of job j does not verify for job j+1's payload */
        int k = (j + 1) % JOBS;
        assert_int_equal(cz_prover_verify(&be, cid, NULL, (uint8_t *)payload[k], strlen(payload[k]), PARTS, r.proof,
                                          r.proof_len, &e), CZ_ERR_UNSATISFIED);
        cz_job_result_free(&r);
    }
    /* a malformed payload fails the job with a clear error, others go on */
    char msg[256];
    cz_job_request bad = {.circuit_id = cid, .payload = "{\"x0\": 12", .payload_len = 9, .num_partitions = 2,
                          .priority = CZ_PRIO_HIGH};
    cz_job_id bid;
    assert_int_equal(cz_engine_submit(eng, &bad, &bid, NULL, msg, sizeof msg), CZ_OK);
    cz_job_result r;
    assert_int_equal(cz_engine_await(eng, bid, 60000, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_FAILED);
    assert_non_null(strstr(r.error, "x0"));
    cz_job_result_free(&r);
    /* an unknown circuit is refused at submission */
    cz_job_request unk = {.circuit_id = "nosuch-1", .num_partitions = 1};
    assert_int_equal(cz_engine_submit(eng, &unk, &bid, NULL, msg, sizeof msg), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(msg, "nosuch-1"));
    assert_int_equal(cz_engine_wait_idle(eng, 60000), CZ_OK);
    cz_engine_destroy(eng);
    cz_prover_backend_destroy(&be);
    for (int j = 0; j < JOBS; j++) free(payload[j]);

    /* the store now holds params, sidecar, cache and pce */
    const char *ext[] = {"params", "meta", "cache", "pce"};
    for (int i = 0; i < 4; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s.%s", dir, cid, ext[i]);
        assert_int_equal(access(p, R_OK), 0);
    }
}

static void store_refusals(void **state)
{
    (void)state;
    const char *cid = "mulchain-300";
    cz_engine_backend be;
    cz_prover_config pc = {.param_dir = dir, .threads = 2, .auto_setup = false};
    cz_errbuf e = {{0}};
    assert_int_equal(cz_prover_backend_create(&be, &pc, &e), CZ_OK);
    /* cached load works without auto_setup */
    assert_int_equal(cz_prover_ensure_params(&be, cid, NULL, &e), CZ_OK);
    /* a corrupted cache is detected and the .params file used instead */
    char p[256], q[256];
    snprintf(p, sizeof p, "%s/%s.cache", dir, cid);
    FILE *f = fopen(p, "r+b");
    assert_non_null(f);
    fseek(f, 5000, SEEK_SET);
    fputc(0x5a, f);
    fclose(f);
    assert_int_equal(cz_prover_ensure_params(&be, cid, NULL, &e), CZ_OK);
    /* parameters of another circuit under this name: the sidecar says no */
    assert_int_equal(cz_prover_ensure_params(&be, "mulchain-40", NULL, &e), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(e.msg, "cuzk setup"));
    snprintf(q, sizeof q, "%s/mulchain-40.params", dir);
    snprintf(p, sizeof p, "%s/%s.params", dir, cid);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && cp '%s/%s.meta' '%s/mulchain-40.meta'", p, q, dir, cid, dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(cz_prover_ensure_params(&be, "mulchain-40", NULL, &e), CZ_ERR_MISMATCH);
    assert_non_null(strstr(e.msg, "another circuit"));
    cz_prover_backend_destroy(&be);
}

/* The PoRep-shaped circuit end to end: a generated vanilla proof, proved
 * through the engine at the smallest preset, verified; a tampered vanilla
 * proof is refused with the field named. */
static void porep_through_the_engine(void **state)
{
    (void)state;
    cz_engine_backend be;
    cz_engine *eng = make_engine(&be, true);
    const char *cid = "shaped-12";
    uint8_t *payload;
    size_t plen;
    cz_errbuf e = {{0}};
    cz_status st = cz_prover_sample_payload(&be, cid, 2, 7, &payload, &plen, &e);
    if (st != CZ_OK) fail_msg("sample: %s", e.msg);
    char msg[256];
    cz_job_request rq = {.circuit_id = cid, .payload = payload, .payload_len = plen, .num_partitions = 2};
    cz_job_id id;
    st = cz_engine_submit(eng, &rq, &id, NULL, msg, sizeof msg);
    if (st != CZ_OK) fail_msg("submit: %s", msg);
    cz_job_result r;
    assert_int_equal(cz_engine_await(eng, id, 600000, &r), CZ_OK);
    if (r.state != CZ_JOB_DONE) fail_msg("porep job: %s", r.error);
    assert_int_equal(cz_prover_verify(&be, cid, NULL, payload, plen, 2, r.proof, r.proof_len, &e), CZ_OK);
    /* swap the two partition proofs: each no longer matches its inputs */
    uint8_t tmp[CZ_GROTH16_PROOF_BYTES];
    memcpy(tmp, r.proof, sizeof tmp);
    memcpy(r.proof, r.proof + sizeof tmp, sizeof tmp);
    memcpy(r.proof + sizeof tmp, tmp, sizeof tmp);
    assert_int_equal(cz_prover_verify(&be, cid, NULL, payload, plen, 2, r.proof, r.proof_len, &e),
                     CZ_ERR_UNSATISFIED);
    cz_job_result_free(&r);
    /* a vanilla proof with one hex digit of a label changed: refused */
    char *lab = strstr((char *)payload, "\"labels\"");
    assert_non_null(lab);
    char *q = strchr(lab, '"' );
    q = strchr(q + 1, '"');      /* end of the key */
    q = strchr(q + 1, '"');      /* opening quote of the first value (inside [ ) */
    assert_non_null(q);
    q[10] = q[10] == '1' ? '2' : '1';
    rq.payload_len = plen;
    st = cz_engine_submit(eng, &rq, &id, NULL, msg, sizeof msg);
    assert_int_equal(st, CZ_OK);
    assert_int_equal(cz_engine_await(eng, id, 600000, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_FAILED);
    fprintf(stderr, "tampered vanilla proof refused: %s\n", r.error);
    cz_job_result_free(&r);
    free(payload);
    assert_int_equal(cz_engine_wait_idle(eng, 60000), CZ_OK);
    cz_engine_destroy(eng);
    cz_prover_backend_destroy(&be);
}

/* backend.msm_tables: the tables are charged to the parameters' estimate
 * (exactly the plan the load builds), built at the engine's load and at
 * the first offline proof, and the proofs still verify (the engine's own
 * self-verification and an offline check). */
static void tables_through_the_engine(void **state)
{
    (void)state;
    const char *cid = "mulchain-5000"; /* 8,192 rows: every query has >= 4,096 bases */
    char *logbuf = NULL;
    size_t loglen = 0;
    FILE *log = open_memstream(&logbuf, &loglen);
    assert_non_null(log);
    cz_prover_config plain = {.param_dir = dir, .threads = 2, .auto_setup = true};
    cz_prover_config tabled = plain;
    tabled.msm_tables_bytes = 1ull << 30;
    tabled.log = log;
    cz_engine_backend bp, bt;
    cz_errbuf e = {{0}};
    assert_int_equal(cz_prover_backend_create(&bp, &plain, &e), CZ_OK);
    assert_int_equal(cz_prover_backend_create(&bt, &tabled, &e), CZ_OK);
    cz_engine_estimate ep, et;
    char msg[256];
    assert_int_equal(bp.estimate(bp.ctx, cid, &ep, msg, sizeof msg), CZ_OK);
    assert_int_equal(bt.estimate(bt.ctx, cid, &et, msg, sizeof msg), CZ_OK);
    assert_true(et.params_bytes > ep.params_bytes + (8ull << 20)); /* five queries, 7 copies each */
    assert_true(et.rest_bytes >= ep.rest_bytes);
    cz_prover_backend_destroy(&bp);

    cz_engine_config cfg;
    cz_engine_config_default(&cfg);
    cfg.memory_budget = 4ull << 30;
    cfg.backend = bt;
    cz_engine *eng;
    assert_int_equal(cz_engine_create(&eng, &cfg, msg, sizeof msg), CZ_OK);
    const char *payload = "{\"x0\": \"77\"}";
    cz_job_request rq = {.circuit_id = cid, .payload = payload, .payload_len = strlen(payload), .num_partitions = 2,
                         .priority = CZ_PRIO_NORMAL};
    cz_job_id id;
    assert_int_equal(cz_engine_submit(eng, &rq, &id, NULL, msg, sizeof msg), CZ_OK);
    cz_job_result r;
    assert_int_equal(cz_engine_await(eng, id, 600000, &r), CZ_OK);
    if (r.state != CZ_JOB_DONE) fail_msg("job: %s", r.error);
    fflush(log);
    assert_non_null(strstr(logbuf, "mulchain-5000: MSM tables H "));
    assert_non_null(strstr(logbuf, "B_G2 "));
    assert_int_equal(cz_prover_verify(&bt, cid, NULL, (const uint8_t *)payload, strlen(payload), 2, r.proof,
                                      r.proof_len, &e), CZ_OK);
    cz_job_result_free(&r);
    assert_int_equal(cz_engine_wait_idle(eng, 60000), CZ_OK);
    cz_engine_destroy(eng);

    /* the offline copy builds its own at the first proof, once */
    uint64_t bytes = 0;
    double ms = -1;
    assert_int_equal(cz_prover_build_tables(&bt, cid, NULL, &bytes, &ms, &e), CZ_OK);
    assert_true(bytes > (8ull << 20) && ms > 0);
    assert_int_equal(cz_prover_build_tables(&bt, cid, NULL, &bytes, &ms, &e), CZ_OK);
    assert_true(bytes > 0 && ms == 0); /* already built */
    uint8_t proof[2 * CZ_GROTH16_PROOF_BYTES];
    assert_int_equal(cz_prover_prove(&bt, cid, NULL, (const uint8_t *)payload, strlen(payload), 2, false, proof, NULL,
                                     &e), CZ_OK);
    assert_int_equal(cz_prover_verify(&bt, cid, NULL, (const uint8_t *)payload, strlen(payload), 2, proof,
                                      sizeof proof, &e), CZ_OK);
    cz_prover_backend_destroy(&bt);
    fclose(log);
    free(logbuf);
}

/* Builds or maps the offline copy's tables of mulchain-5000 (1 GB limit)
 * in a new back-end, proves and verifies with them; returns its log. */
static char *offline_tables_log(bool no_file)
{
    char *logbuf = NULL;
    size_t loglen = 0;
    FILE *log = open_memstream(&logbuf, &loglen);
    assert_non_null(log);
    cz_prover_config pc = {.param_dir = dir, .threads = 2, .msm_tables_bytes = 1ull << 30, .log = log,
                           .msm_tables_no_file = no_file};
    cz_engine_backend be;
    cz_errbuf e = {{0}};
    assert_int_equal(cz_prover_backend_create(&be, &pc, &e), CZ_OK);
    const char *cid = "mulchain-5000", *payload = "{\"x0\": \"78\"}";
    uint64_t bytes = 0;
    if (cz_prover_build_tables(&be, cid, NULL, &bytes, NULL, &e) != CZ_OK) fail_msg("tables: %s", e.msg);
    assert_true(bytes > (8ull << 20));
    uint8_t proof[CZ_GROTH16_PROOF_BYTES];
    assert_int_equal(cz_prover_prove(&be, cid, NULL, (const uint8_t *)payload, strlen(payload), 1, false, proof, NULL,
                                     &e), CZ_OK);
    assert_int_equal(cz_prover_verify(&be, cid, NULL, (const uint8_t *)payload, strlen(payload), 1, proof,
                                      sizeof proof, &e), CZ_OK);
    cz_prover_backend_destroy(&be);
    fclose(log);
    return logbuf;
}

/* backend.msm_tables_file: the tables built by the loads above were kept
 * in <dir>/mulchain-5000.tables; a new back-end maps them instead of
 * building; a damaged file is named, rebuilt and replaced; with the file
 * turned off nothing is read or written. */
static void tables_kept_in_a_file(void **state)
{
    (void)state;
    char tp[128];
    snprintf(tp, sizeof tp, "%s/mulchain-5000.tables", dir);
    struct stat sb;
    assert_int_equal(stat(tp, &sb), 0);
    char *log = offline_tables_log(false);
    assert_non_null(strstr(log, "read from the table file"));
    assert_null(strstr(log, "built in"));
    free(log);

    /* a flipped byte in the points */
    FILE *f = fopen(tp, "r+b");
    assert_non_null(f);
    fseek(f, 4096 + 12345, SEEK_SET);
    int c = fgetc(f);
    fseek(f, 4096 + 12345, SEEK_SET);
    fputc(c ^ 1, f);
    fclose(f);
    log = offline_tables_log(false);
    assert_non_null(
        strstr(log, "mulchain-5000.tables: digest mismatch (a corrupt file); building the MSM tables again"));
    assert_non_null(strstr(log, ") built in "));
    assert_non_null(strstr(log, "MSM tables kept in "));
    free(log);
    log = offline_tables_log(false); /* the replacement is sound */
    assert_non_null(strstr(log, "read from the table file"));
    free(log);

    /* turned off: built, and no file appears */
    assert_int_equal(unlink(tp), 0);
    log = offline_tables_log(true);
    assert_non_null(strstr(log, ") built in "));
    assert_null(strstr(log, "kept in"));
    free(log);
    assert_int_not_equal(stat(tp, &sb), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(proofs_through_the_engine),
        cmocka_unit_test(store_refusals),
        cmocka_unit_test(porep_through_the_engine),
        cmocka_unit_test(tables_through_the_engine),
        cmocka_unit_test(tables_kept_in_a_file),
    };
    return cmocka_run_group_tests(tests, setup_dir, rm_dir);
}
