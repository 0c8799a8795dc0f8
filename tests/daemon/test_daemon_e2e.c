/*
 * End to end: real Groth16 proofs through a real cuzkd (backend groth16).
 * The test creates the parameters itself (a local setup into a temp
 * param_dir), the daemon loads them from disk and proves, and the test
 * verifies every returned proof offline in its own process
 * (cz_prover_verify: the pairing check against the parameters on disk) —
 * and checks that a tampered proof is rejected, so the check can fail.
 */
#include "cuzk/prover.h"
#include "dtest.h"

static void prove_and_verify(const char *circuit, uint32_t parts)
{
    dt_daemon d;
    char dir[] = "/tmp/cuzkd-e2e-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char pdir[200];
    snprintf(pdir, sizeof pdir, "%s/params", dir);

    cz_engine_backend be;
    cz_prover_config pc = {.param_dir = pdir, .threads = 2, .auto_setup = true, .log = NULL};
    cz_errbuf err = {{0}};
    assert_int_equal(cz_prover_backend_create(&be, &pc, &err), CZ_OK);
    /* every circuit here exists (the shaped-K presets included): an unknown
     * one is a failure, not a skip */
    cz_status st = cz_prover_ensure_params(&be, circuit, NULL, &err);
    if (st != CZ_OK)
        fail_msg("setup %s: %s", circuit, err.msg);
    uint8_t *payload = NULL;
    size_t plen = 0;
    if (cz_prover_sample_payload(&be, circuit, parts, 1234, &payload, &plen, &err) != CZ_OK)
        fail_msg("sample payload %s: %s", circuit, err.msg);

    char ini[512];
    snprintf(ini, sizeof ini,
             "[backend]\ntype = groth16\nparam_dir = %s\nauto_setup = false\nthreads = 2\n"
             "[engine]\nmemory_budget = 4G\nself_verify = true\n",
             pdir);
    dt_start(&d, ini);

    char *b64 = NULL;
    assert_int_equal(cz_base64_encode(payload, plen, &b64, NULL), CZ_OK);
    size_t blen = strlen(b64) + 256;
    char *body = malloc(blen);
    snprintf(body, blen, "{\"circuit\":\"%s\",\"payload_b64\":\"%s\",\"partitions\":%u}", circuit, b64, parts);
    free(b64);
    json_t *j;
    int code = dt_call_long(&d, "POST", "/v1/prove?timeout_ms=600000", body, &j, 600000);
    if (code != 200 || strcmp(dt_str(j, "state"), "done"))
        fail_msg("prove %s: %d %s %s", circuit, code, dt_str(j, "state"), dt_str(j, "error"));
    free(body);
    const char *pb = dt_str(j, "proof_b64");
    uint8_t *proof;
    size_t prlen;
    assert_int_equal(cz_base64_decode(pb, strlen(pb), &proof, &prlen), CZ_OK);
    assert_int_equal(prlen, 192 * parts);
    json_decref(j);

    /* offline verification in this process, from the parameters on disk */
    if (cz_prover_verify(&be, circuit, NULL, payload, plen, parts, proof, prlen, &err) != CZ_OK)
        fail_msg("proof from cuzkd does not verify: %s", err.msg);
    /* a tampered proof (last partition's C) must not verify */
    proof[prlen - 100] ^= 0x01;
    assert_int_not_equal(cz_prover_verify(&be, circuit, NULL, payload, plen, parts, proof, prlen, &err), CZ_OK);
    /* nor does the right proof for another statement */
    proof[prlen - 100] ^= 0x01;
    uint8_t *other = NULL;
    size_t olen = 0;
    assert_int_equal(cz_prover_sample_payload(&be, circuit, parts, 99, &other, &olen, &err), CZ_OK);
    assert_int_not_equal(cz_prover_verify(&be, circuit, NULL, other, olen, parts, proof, prlen, &err), CZ_OK);
    free(other);
    free(proof);
    free(payload);

    json_t *sj;
    assert_int_equal(dt_call(&d, "GET", "/v1/status", NULL, &sj), 200);
    assert_int_equal(dt_int(json_object_get(sj, "engine"), "jobs_completed"), 1);
    json_decref(sj);
    assert_int_equal(dt_stop_sig(&d, SIGTERM), 0);
    dt_cleanup(&d);
    cz_prover_backend_destroy(&be);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf -- '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_mulchain(void **state)
{
    (void)state;
    prove_and_verify("mulchain-64", 2);
}

static void test_porep12(void **state)
{
    (void)state;
#ifdef CUZK_SANITIZED
    skip();
#else
    prove_and_verify("shaped-12", 2);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mulchain),
        cmocka_unit_test(test_porep12),
    };
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
