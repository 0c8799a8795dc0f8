/*
 * cuzk <-> snarkjs, both directions, with snarkjs itself as the independent
 * verifier (node tests/interop/node_modules/.bin/snarkjs):
 *  - cuzk proves from snarkjs's .zkey + .wtns; snarkjs verifies the proof;
 *  - cuzk verifies snarkjs's own proof and rejects it with a wrong input;
 *  - a witness that does not satisfy the circuit is refused.
 */
#include "testutil.h"
#include "cuzk/snarkjs.h"
#include "cuzk/circuits.h"
#include "interop/interop_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static char tmpdir[64];

static const char *snarkjs_bin(void)
{
    static char path[4096];
    const char *src = getenv("CZ_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/tests/interop/node_modules/snarkjs/build/cli.cjs", src ? src : ".");
    if (access(path, R_OK) != 0)
        fail_msg("snarkjs not installed at %s: run `make deps` (npm ci in tests/interop)", path);
    return path;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* snarkjs groth16 verify; returns the exit status. */
static int snarkjs_verify(const char *vk, const char *pub, const char *proof)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "node '%s' groth16 verify '%s' '%s' '%s' > %s/verify.log 2>&1", snarkjs_bin(), vk,
             pub, proof, tmpdir);
    int rc = system(cmd);
    return rc == -1 ? -1 : WEXITSTATUS(rc);
}

static int setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/cz_e2e_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void cuzk_proves_snarkjs_verifies(void **state)
{
    (void)state;
    cz_errbuf e = {{0}};
    cz_snarkjs_zkey *z;
    cz_snarkjs_wtns *w;
    cz_pool *pool;
    assert_int_equal(cz_pool_create(&pool, 2, "e2e"), CZ_OK);
    assert_int_equal(cz_snarkjs_zkey_read(&z, cz_vector_path("snarkjs/fixture.zkey"), 0, pool, &e), CZ_OK);
    assert_int_equal(cz_snarkjs_wtns_read(&w, cz_vector_path("snarkjs/fixture.wtns"), NULL, &e), CZ_OK);
    cz_groth16_proof_pts p;
    cz_status st = cz_snarkjs_prove(&p, z, w->w, w->n, pool, NULL, &e);
    if (st != CZ_OK) fail_msg("prove: %s", e.msg);
    char *pj, *pubj;
    assert_int_equal(cz_snarkjs_proof_to_json(&pj, &p), CZ_OK);
    assert_int_equal(cz_snarkjs_public_to_json(&pubj, w->w + 1, z->n_public), CZ_OK);
    char proof_path[128], pub_path[128];
    snprintf(proof_path, sizeof proof_path, "%s/proof.json", tmpdir);
    snprintf(pub_path, sizeof pub_path, "%s/public.json", tmpdir);
    write_text(proof_path, pj);
    write_text(pub_path, pubj);
    assert_int_equal(snarkjs_verify(cz_vector_path("snarkjs/vk.json"), pub_path, proof_path), 0);
    /* snarkjs rejects it under a different public input (the test can fail) */
    cz_fr bad = w->w[1];
    cz_fr_add(&bad, &bad, &CZ_FR_ONE);
    char *badj;
    assert_int_equal(cz_snarkjs_public_to_json(&badj, &bad, 1), CZ_OK);
    char *two;
    cz_fr both[2] = {bad, w->w[2]};
    assert_int_equal(cz_snarkjs_public_to_json(&two, both, 2), CZ_OK);
    write_text(pub_path, two);
    assert_int_not_equal(snarkjs_verify(cz_vector_path("snarkjs/vk.json"), pub_path, proof_path), 0);
    free(badj);
    free(two);
    free(pj);
    free(pubj);

    /* A query point outside the subgroup (possible in a key read with
     * CZ_SNARKJS_NO_SUBGROUP_CHECK) makes no proof: A[0] pairs with the
     * constant 1, so its off-subgroup part reaches the proof's A */
    cz_g1_affine q, a0 = z->a[0];
    for (uint64_t x = 0;; x++) {
        cz_fp t, four;
        cz_fp_from_u64(&q.x, x);
        cz_fp_sqr(&t, &q.x);
        cz_fp_mul(&t, &t, &q.x);
        cz_fp_from_u64(&four, 4);
        cz_fp_add(&t, &t, &four);
        if (cz_fp_sqrt(&q.y, &t) && !cz_g1_affine_in_subgroup(&q)) break;
    }
    z->a[0] = q;
    assert_int_equal(cz_snarkjs_prove(&p, z, w->w, w->n, pool, NULL, &e), CZ_ERR_NOT_IN_SUBGROUP);
    assert_non_null(strstr(e.msg, "proof's A"));
    assert_true(cz_g1_affine_is_infinity(&p.a)); /* nothing half-made returned */
    assert_int_equal(cz_snarkjs_zkey_check_points(z, pool, &e), CZ_ERR_NOT_IN_SUBGROUP);
    assert_non_null(strstr(e.msg, "A (section 5) point 0"));
    z->a[0] = a0;

    /* A query point off its curve (possible in a key read with
     * CZ_SNARKJS_NO_QUERY_CHECK) makes no proof either: off the curve, the
     * proof point that the witness reaches with it is refused; A[0]
     * reaches A, H[0] reaches C. Each is named by the separate test. */
    for (int k = 0; k < 2; k++) {
        cz_g1_affine *pt = k ? &z->h[0] : &z->a[0], keep = *pt;
        cz_fp_add(&pt->y, &pt->y, &CZ_FP_ONE);
        assert_false(cz_g1_affine_is_on_curve(pt));
        memset(&e, 0, sizeof e);
        assert_int_equal(cz_snarkjs_prove(&p, z, w->w, w->n, pool, NULL, &e), CZ_ERR_NOT_IN_SUBGROUP);
        /* refused at the MSM sum, before any group arithmetic uses it */
        assert_non_null(strstr(e.msg, k ? "MSM sum behind the proof's C" : "MSM sum behind the proof's A"));
        assert_true(cz_g1_affine_is_infinity(&p.a));
        assert_int_equal(cz_snarkjs_zkey_check_points(z, pool, &e), CZ_ERR_NOT_ON_CURVE);
        assert_non_null(strstr(e.msg, k ? "H (section 9) point 0 is not on its curve"
                                        : "A (section 5) point 0 is not on its curve"));
        *pt = keep;
    }
    /* and B2 off its curve: the first B2 point the witness reaches (a
     * finite one with a nonzero value) spoils the proof's B */
    size_t j = 0;
    while (j < z->n_vars && (cz_g2_affine_is_infinity(&z->b2[j]) || cz_fr_is_zero(&w->w[j]))) j++;
    assert_true(j < z->n_vars);
    cz_g2_affine b2j = z->b2[j];
    cz_fp_add(&z->b2[j].y.c0, &z->b2[j].y.c0, &CZ_FP_ONE);
    assert_int_equal(cz_snarkjs_prove(&p, z, w->w, w->n, pool, NULL, &e), CZ_ERR_NOT_IN_SUBGROUP);
    assert_non_null(strstr(e.msg, "MSM sum behind the proof's B"));
    assert_int_equal(cz_snarkjs_zkey_check_points(z, pool, &e), CZ_ERR_NOT_ON_CURVE);
    assert_non_null(strstr(e.msg, "B2 (section 7) point"));
    z->b2[j] = b2j;
    assert_int_equal(cz_snarkjs_prove(&p, z, w->w, w->n, pool, NULL, &e), CZ_OK);

    /* a witness that does not satisfy the circuit is refused */
    cz_fr_add(&w->w[4], &w->w[4], &CZ_FR_ONE);
    assert_int_equal(cz_snarkjs_prove(&p, z, w->w, w->n, pool, NULL, &e), CZ_ERR_UNSATISFIED);
    assert_non_null(strstr(e.msg, "does not satisfy"));
    cz_snarkjs_wtns_free(w);
    cz_snarkjs_zkey_free(z);
    cz_pool_destroy(pool);
}

static void cuzk_verifies_snarkjs_proof(void **state)
{
    (void)state;
    cz_errbuf e = {{0}};
    size_t len;
    char *vkj = (char *)cz_read_file(cz_vector_path("snarkjs/vk.json"), &len);
    char *pj = (char *)cz_read_file(cz_vector_path("snarkjs/proof.json"), &len);
    char *pubj = (char *)cz_read_file(cz_vector_path("snarkjs/public.json"), &len);
    cz_snarkjs_vk svk;
    assert_int_equal(cz_snarkjs_vk_from_json(&svk, vkj, &e), CZ_OK);
    cz_groth16_vk vk;
    assert_int_equal(cz_snarkjs_vk_to_groth16(&vk, &svk), CZ_OK);
    cz_groth16_pvk *pvk;
    assert_int_equal(cz_groth16_pvk_create(&pvk, &vk), CZ_OK);
    cz_groth16_proof_pts p;
    assert_int_equal(cz_snarkjs_proof_from_json(&p, pj, &e), CZ_OK);
    cz_fr *x;
    size_t n;
    assert_int_equal(cz_snarkjs_public_from_json(&x, &n, pubj, &e), CZ_OK);
    cz_groth16_proof pr = {p.a, p.b, p.c};
    assert_int_equal(cz_groth16_verify(pvk, &pr, x, n, &e), CZ_OK);
    cz_fr_add(&x[0], &x[0], &CZ_FR_ONE);
    assert_int_equal(cz_groth16_verify(pvk, &pr, x, n, &e), CZ_ERR_UNSATISFIED);
    assert_int_equal(cz_groth16_verify(pvk, &pr, x, n - 1, &e), CZ_ERR_MISMATCH);
    free(x);
    cz_groth16_pvk_free(pvk);
    free(vk.ic);
    cz_snarkjs_vk_clear(&svk);
    free(vkj);
    free(pj);
    free(pubj);
}

static void run_ok(const char *cmd_fmt, const char *a, const char *b, const char *c, const char *d)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, cmd_fmt, snarkjs_bin(), a, b, c, d, tmpdir);
    int rc = system(cmd);
    if (rc != 0) {
        char log[128];
        snprintf(log, sizeof log, "cat %s/cmd.log >&2", tmpdir);
        if (system(log)) {}
        fail_msg("command failed: %s", cmd);
    }
}

/* cuzk's own circuit and setup, exported as .zkey/.wtns: snarkjs proves it
 * and verifies it, and — the independent check of cuzk's bellperson-layout
 * prover — snarkjs verifies the proof cuzk's split prover made. */
static void cuzk_setup_exported_to_snarkjs(void **state)
{
    (void)state;
    cz_errbuf e = {{0}};
    cz_pool *pool;
    assert_int_equal(cz_pool_create(&pool, 2, "e2e"), CZ_OK);
    cz_mulchain mc = {.n_mul = 40, .n_extra_inputs = 3};
    cz_rng_fr(&mc.x0);
    cz_pce *pce;
    cz_witness w;
    assert_int_equal(cz_pce_record(&pce, cz_mulchain_synth, &mc, &w), CZ_OK);
    cz_groth16_params *params;
    cz_g1_affine *h_odd = NULL;
    cz_groth16_setup_opts so = {.h_odd_out = &h_odd};
    assert_int_equal(cz_groth16_setup(&params, pce, pool, &so, &e), CZ_OK);
    assert_non_null(h_odd);
    cz_snarkjs_zkey *z;
    assert_int_equal(cz_snarkjs_zkey_from_params(&z, params, pce, h_odd, &e), CZ_OK);
    char zk[128], wt[128], vkp[128], pp[128], pub[128], pp2[128], pub2[128];
    snprintf(zk, sizeof zk, "%s/c.zkey", tmpdir);
    snprintf(wt, sizeof wt, "%s/c.wtns", tmpdir);
    snprintf(vkp, sizeof vkp, "%s/vk.json", tmpdir);
    snprintf(pp, sizeof pp, "%s/p.json", tmpdir);
    snprintf(pub, sizeof pub, "%s/pub.json", tmpdir);
    snprintf(pp2, sizeof pp2, "%s/p2.json", tmpdir);
    snprintf(pub2, sizeof pub2, "%s/pub2.json", tmpdir);
    assert_int_equal(cz_snarkjs_zkey_write(zk, z, &e), CZ_OK);
    size_t nz = w.n_inputs + w.n_aux;
    cz_fr *all = malloc(nz * sizeof *all);
    memcpy(all, w.inputs, w.n_inputs * sizeof *all);
    memcpy(all + w.n_inputs, w.aux, w.n_aux * sizeof *all);
    assert_int_equal(cz_snarkjs_wtns_write(wt, all, nz, &e), CZ_OK);
    char *vkj;
    assert_int_equal(cz_snarkjs_vk_to_json(&vkj, &params->vk.alpha_g1, &params->vk.beta_g2, &params->vk.gamma_g2,
                                           &params->vk.delta_g2, params->vk.ic, params->vk.n_ic, NULL), CZ_OK);
    write_text(vkp, vkj);
    free(vkj);

    /* 1. snarkjs proves with cuzk's zkey and verifies with cuzk's vk */
    run_ok("node '%s' groth16 prove '%s' '%s' '%s' '%s' > %s/cmd.log 2>&1", zk, wt, pp, pub);
    assert_int_equal(snarkjs_verify(vkp, pub, pp), 0);
    /* ... and cuzk verifies snarkjs's proof */
    size_t len;
    char *pj = (char *)cz_read_file(pp, &len);
    cz_groth16_proof_pts sp;
    assert_int_equal(cz_snarkjs_proof_from_json(&sp, pj, &e), CZ_OK);
    free(pj);
    cz_groth16_pvk *pvk;
    assert_int_equal(cz_groth16_pvk_create(&pvk, &params->vk), CZ_OK);
    cz_groth16_proof pr = {sp.a, sp.b, sp.c};
    assert_int_equal(cz_groth16_verify(pvk, &pr, w.inputs + 1, w.n_inputs - 1, &e), CZ_OK);

    /* 2. cuzk's split prover (bellperson layout), verified by snarkjs */
    size_t m = cz_groth16_params_domain(params);
    cz_groth16_input in = {calloc(m, sizeof(cz_fr)), calloc(m, sizeof(cz_fr)), calloc(m, sizeof(cz_fr)), m, &w};
    assert_int_equal(cz_pce_eval(pce, &w, pool, in.a, in.b, in.c, m), CZ_OK);
    uint8_t proof[192];
    assert_int_equal(cz_groth16_prove(params, pce, &in, pool, NULL, proof, NULL, &e), CZ_OK);
    assert_int_equal(cz_groth16_proof_decode(&pr, proof, &e), CZ_OK);
    cz_groth16_proof_pts cp = {pr.a, pr.b, pr.c};
    char *cj, *pubj;
    assert_int_equal(cz_snarkjs_proof_to_json(&cj, &cp), CZ_OK);
    assert_int_equal(cz_snarkjs_public_to_json(&pubj, w.inputs + 1, w.n_inputs - 1), CZ_OK);
    write_text(pp2, cj);
    write_text(pub2, pubj);
    assert_int_equal(snarkjs_verify(vkp, pub2, pp2), 0);
    /* a wrong public input: snarkjs says no */
    cz_fr_add(&w.inputs[1], &w.inputs[1], &CZ_FR_ONE);
    free(pubj);
    assert_int_equal(cz_snarkjs_public_to_json(&pubj, w.inputs + 1, w.n_inputs - 1), CZ_OK);
    write_text(pub2, pubj);
    assert_int_not_equal(snarkjs_verify(vkp, pub2, pp2), 0);

    /* 3. cuzk's snarkjs-style prover on the exported zkey */
    cz_fr_sub(&w.inputs[1], &w.inputs[1], &CZ_FR_ONE);
    memcpy(all, w.inputs, w.n_inputs * sizeof *all);
    assert_int_equal(cz_snarkjs_prove(&cp, z, all, nz, pool, NULL, &e), CZ_OK);
    pr = (cz_groth16_proof){cp.a, cp.b, cp.c};
    assert_int_equal(cz_groth16_verify(pvk, &pr, w.inputs + 1, w.n_inputs - 1, &e), CZ_OK);

    free(cj);
    free(pubj);
    free(all);
    cz_groth16_pvk_free(pvk);
    cz_snarkjs_zkey_free(z);
    free(h_odd);
    cz_groth16_params_free(params);
    cz_witness_free(&w);
    cz_pce_free(pce);
    cz_pool_destroy(pool);
}

/* snarkjs's own setup, converted to bellperson-layout parameters, proved by
 * cuzk's split prover: snarkjs verifies the proof. */
static void zkey_converted_to_params(void **state)
{
    (void)state;
    cz_errbuf e = {{0}};
    cz_pool *pool;
    assert_int_equal(cz_pool_create(&pool, 2, "e2e"), CZ_OK);
    cz_snarkjs_zkey *z;
    cz_snarkjs_wtns *w;
    assert_int_equal(cz_snarkjs_zkey_read(&z, cz_vector_path("snarkjs/fixture.zkey"), 0, pool, &e), CZ_OK);
    assert_int_equal(cz_snarkjs_wtns_read(&w, cz_vector_path("snarkjs/fixture.wtns"), NULL, &e), CZ_OK);
    cz_groth16_params *params;
    cz_pce *shape;
    cz_status st = cz_snarkjs_zkey_to_params(z, pool, &params, &shape, &e);
    if (st != CZ_OK) fail_msg("convert: %s", e.msg);
    size_t m = z->domain_size;
    cz_witness wit = {w->w, w->w + z->n_public + 1, z->n_public + 1, w->n - z->n_public - 1, m};
    cz_groth16_input in = {malloc(m * sizeof(cz_fr)), malloc(m * sizeof(cz_fr)), malloc(m * sizeof(cz_fr)), m, &wit};
    assert_int_equal(cz_snarkjs_eval_abc(z, w->w, w->n, in.a, in.b, in.c, pool, &e), CZ_OK);
    /* split by row range on the pool: the same rows as one serial pass */
    cz_fr *ser = malloc(3 * m * sizeof(cz_fr));
    assert_non_null(ser);
    assert_int_equal(cz_snarkjs_eval_abc(z, w->w, w->n, ser, ser + m, ser + 2 * m, NULL, &e), CZ_OK);
    assert_memory_equal(ser, in.a, m * sizeof(cz_fr));
    assert_memory_equal(ser + m, in.b, m * sizeof(cz_fr));
    assert_memory_equal(ser + 2 * m, in.c, m * sizeof(cz_fr));
    /* and as the definition says: every term a product, summed per row in
     * file order at row K·constraint (the ±1 terms, most of this key's,
     * take no product in cz_snarkjs_eval_abc) */
    size_t n_pm1 = 0;
    cz_fr one, minus_one;
    cz_fr_from_u64(&one, 1);
    cz_fr_neg(&minus_one, &one);
    memset(ser, 0, 2 * m * sizeof(cz_fr));
    for (size_t i = 0; i < z->n_coefs; i++) {
        const cz_zkey_coef *k = &z->coefs[i];
        size_t j = (size_t)((cz__snarkjs_root_exponent() * k->constraint) & (m - 1));
        cz_fr t;
        cz_fr_mul(&t, &k->value, &w->w[k->signal]);
        cz_fr_add(&ser[k->matrix * m + j], &ser[k->matrix * m + j], &t);
        n_pm1 += cz_fr_eq(&k->value, &one) || cz_fr_eq(&k->value, &minus_one);
    }
    assert_true(n_pm1 > 0); /* circom's: every one of this key's terms is ±1 */
    assert_memory_equal(ser, in.a, m * sizeof(cz_fr));
    assert_memory_equal(ser + m, in.b, m * sizeof(cz_fr));
    free(ser);
    uint8_t proof[192];
    st = cz_groth16_prove(params, shape, &in, pool, NULL, proof, NULL, &e);
    if (st != CZ_OK) fail_msg("prove: %s", e.msg);
    cz_groth16_proof pr;
    assert_int_equal(cz_groth16_proof_decode(&pr, proof, &e), CZ_OK);
    cz_groth16_proof_pts pts = {pr.a, pr.b, pr.c};
    char *pj, *pubj, pp[128], pub[128];
    assert_int_equal(cz_snarkjs_proof_to_json(&pj, &pts), CZ_OK);
    assert_int_equal(cz_snarkjs_public_to_json(&pubj, w->w + 1, z->n_public), CZ_OK);
    snprintf(pp, sizeof pp, "%s/conv_proof.json", tmpdir);
    snprintf(pub, sizeof pub, "%s/conv_public.json", tmpdir);
    write_text(pp, pj);
    write_text(pub, pubj);
    assert_int_equal(snarkjs_verify(cz_vector_path("snarkjs/vk.json"), pub, pp), 0);
    free(pj);
    free(pubj);
    cz_groth16_params_free(params);
    cz_pce_free(shape);
    cz_snarkjs_wtns_free(w);
    cz_snarkjs_zkey_free(z);
    cz_pool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cuzk_proves_snarkjs_verifies),
        cmocka_unit_test(cuzk_verifies_snarkjs_proof),
        cmocka_unit_test(cuzk_setup_exported_to_snarkjs),
        cmocka_unit_test(zkey_converted_to_params),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
