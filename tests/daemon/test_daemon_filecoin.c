/*
 * Filecoin PoRep C2 end to end through a real cuzkd: the reference's 2KiB
 * C1 output (tests/vectors/filecoin/porep-2k-v1.1, made by rust-fil-proofs)
 * and Curio's wrapper of it go in as payloads of circuit porep-2k; the
 * proofs that come back verify in this process from the verifying key alone
 * (bellperson's .vk layout, the prefix of the .params file) through the
 * Filecoin verifier, which derives the public inputs from the C1 output as
 * rust-fil-proofs' verify_seal does. Bad requests (a C1 of another sector
 * size, one whose registered proof does not fit its proofs, a malformed
 * one) get a 4xx naming the problem and the daemon keeps serving.
 *
 * The local parameters (a random setup, about four minutes on two cores)
 * are made once into the build tree's fixture cache and reused.
 */
#include "cuzk/fil_c1.h"
#include "cuzk/fil_params.h"
#include "cuzk/fil_seal.h"
#include "cuzk/prover.h"
#include "dtest.h"

#include <sys/stat.h>
#include <unistd.h>

static char *pdir;

static uint8_t *read_bin(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    b[n] = 0;
    *len = (size_t)n;
    return b;
}

static char *vec_path(const char *rel) {
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/tests/vectors/filecoin/porep-2k-v1.1/%s", CUZK_SOURCE_DIR, rel);
    return buf;
}

/* The verifying key: the .params prefix (alpha .. delta, ic count, ic). */
static void load_vk(cz_groth16_vk *vk) {
    char path[1024];
    snprintf(path, sizeof path, "%s/porep-2k.params", pdir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t head[868];
    assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
    uint32_t nic = (uint32_t)head[864] << 24 | (uint32_t)head[865] << 16 | (uint32_t)head[866] << 8 | head[867];
    assert_int_equal(nic, 40);
    size_t len = 868 + 96 * (size_t)nic;
    uint8_t *b = malloc(len);
    memcpy(b, head, sizeof head);
    assert_int_equal(fread(b + 868, 1, len - 868, f), len - 868);
    fclose(f);
    cz_errbuf err = {{0}};
    if (cz_bp_vk_parse(vk, b, len, &err) != CZ_OK) fail_msg("vk: %s", err.msg);
    free(b);
}

static int setup(void **state) {
    (void)state;
    static char dir[1024];
    snprintf(dir, sizeof dir, "%s", CZ_FIXTURE_DIR);
    mkdir(dir, 0755);
    pdir = dir;
    cz_engine_backend be;
    cz_prover_config pc = {.param_dir = pdir, .threads = 2, .auto_setup = true, .log = stderr};
    cz_errbuf err = {{0}};
    if (cz_prover_backend_create(&be, &pc, &err) != CZ_OK) return -1;
    /* a local setup (never taken for the ceremony's file), once */
    char base[1100], pp[1200];
    snprintf(base, sizeof base, "%s/porep-2k", pdir);
    snprintf(pp, sizeof pp, "%s.params", base);
    cz_status st = access(pp, R_OK) == 0 ? CZ_OK : cz_prover_setup(&be, "porep-2k", base, NULL, false, &err);
    if (st != CZ_OK) fprintf(stderr, "setup porep-2k: %s\n", err.msg);
    cz_prover_backend_destroy(&be);
    return st == CZ_OK ? 0 : -1;
}

static json_t *submit(dt_daemon *d, const char *circuit, const uint8_t *payload, size_t plen, int *code) {
    char *b64 = NULL;
    assert_int_equal(cz_base64_encode(payload, plen, &b64, NULL), CZ_OK);
    size_t blen = strlen(b64) + 256;
    char *body = malloc(blen);
    snprintf(body, blen, "{\"circuit\":\"%s\",\"payload_b64\":\"%s\",\"partitions\":1}", circuit, b64);
    free(b64);
    json_t *j = NULL;
    *code = dt_call_long(d, "POST", "/v1/prove?timeout_ms=900000", body, &j, 900000);
    free(body);
    return j;
}

/* A bad payload is refused: a 4xx at submission, or (payloads are parsed
 * when the job is dispatched) a failed job whose error names the problem. */
static void expect_refused(dt_daemon *d, const char *circuit, const uint8_t *payload, size_t plen, const char *frag) {
    int code;
    json_t *j = submit(d, circuit, payload, plen, &code);
    const char *e = j ? dt_str(j, "error") : "";
    bool refused = (code >= 400 && code < 500) || (code == 200 && !strcmp(dt_str(j, "state"), "failed"));
    if (!refused || !strstr(e, frag))
        fail_msg("expected a refusal naming \"%s\", got %d %s %s", frag, code, j ? dt_str(j, "state") : "", e);
    fprintf(stderr, "refused (%d %s): %s\n", code, j ? dt_str(j, "state") : "", e);
    json_decref(j);
}

/* The C1 output of a sealed 8MiB sector (random data). */
static uint8_t *c1_8m(size_t *len) {
    cz_fil_seal_params sp;
    memset(&sp, 0, sizeof sp);
    sp.proof = cz_fil_seal_proof_by_id(6);
    sp.sector_id = 3;
    size_t n = (size_t)cz_fil_unpadded_size(sp.proof->sector_size);
    uint8_t *data = calloc(1, n);
    for (size_t i = 0; i < n; i += 97) data[i] = (uint8_t)i;
    cz_fil_seal_result res;
    cz_fil_c1 c1;
    cz_errbuf err = {{0}};
    if (cz_fil_seal(&sp, data, n, NULL, &res, &c1, &err) != CZ_OK) fail_msg("seal 8MiB: %s", err.msg);
    free(data);
    char *js = NULL;
    assert_int_equal(cz_fil_c1_to_json(&c1, &js, len), CZ_OK);
    cz_fil_c1_free(&c1);
    return (uint8_t *)js;
}

static void test_porep_2k_through_cuzkd(void **state) {
    (void)state;
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[backend]\ntype = groth16\nparam_dir = %s\nauto_setup = false\nthreads = 2\n"
             "[engine]\nmemory_budget = 8G\nself_verify = true\n",
             pdir);
    dt_daemon d;
    dt_start(&d, ini);
    cz_groth16_vk vk;
    load_vk(&vk);

    size_t len[2];
    uint8_t *pay[2] = { read_bin(vec_path("c1.json"), &len[0]), read_bin(vec_path("c1-curio.json"), &len[1]) };

    /* bad requests first: each refused, nothing else disturbed */
    size_t l8;
    uint8_t *p8 = c1_8m(&l8);
    expect_refused(&d, "porep-2k", p8, l8, "StackedDrg8MiBV1_1");
    free(p8);
    char *wrong = malloc(len[0] + 1);
    memcpy(wrong, pay[0], len[0] + 1);
    char *at = strstr(wrong, "StackedDrg2KiBV1_1");
    assert_non_null(at);
    memcpy(at, "StackedDrg2KiBV1\",", 18); /* v1.0: other porep_id, other challenges */
    memmove(at + 18, at + 20, strlen(at + 20) + 1);
    expect_refused(&d, "porep-2k", (const uint8_t *)wrong, strlen(wrong), "partition 0");
    free(wrong);
    expect_refused(&d, "porep-2k", pay[0], len[0] / 2, "invalid JSON");

    for (int k = 0; k < 2; k++) {
        int code;
        json_t *j = submit(&d, "porep-2k", pay[k], len[k], &code);
        if (code != 200 || strcmp(dt_str(j, "state"), "done"))
            fail_msg("prove: %d %s %s", code, dt_str(j, "state"), dt_str(j, "error"));
        const char *pb = dt_str(j, "proof_b64");
        uint8_t *proof;
        size_t prlen;
        assert_int_equal(cz_base64_decode(pb, strlen(pb), &proof, &prlen), CZ_OK);
        assert_int_equal(prlen, 192);
        json_decref(j);
        /* the SealCommitPhase2Output verifies from the .vk alone */
        cz_fil_c1 c1;
        cz_errbuf err = {{0}};
        assert_int_equal(cz_fil_c1_parse(&c1, (const char *)pay[k], len[k], &err), CZ_OK);
        unsigned bad = 0;
        if (cz_fil_porep_verify(&vk, &c1, proof, prlen, &bad, &err) != CZ_OK)
            fail_msg("proof from cuzkd does not verify: %s", err.msg);
        proof[150] ^= 1;
        assert_int_not_equal(cz_fil_porep_verify(&vk, &c1, proof, prlen, &bad, &err), CZ_OK);
        cz_fil_c1_free(&c1);
        free(proof);
    }
    json_t *sj;
    assert_int_equal(dt_call(&d, "GET", "/v1/status", NULL, &sj), 200);
    assert_int_equal(dt_int(json_object_get(sj, "engine"), "jobs_completed"), 2);
    json_decref(sj);
    free(pay[0]);
    free(pay[1]);
    cz_bp_vk_free(&vk);
    assert_int_equal(dt_stop_sig(&d, SIGTERM), 0);
    dt_cleanup(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_porep_2k_through_cuzkd),
    };
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, setup, NULL);
}
