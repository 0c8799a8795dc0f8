/*
 * Filecoin's PoRep C2 circuit against rust-fil-proofs' own numbers:
 * - the blank 2KiB, 8MiB and 512MiB partition circuits have exactly the
 *   constraints, inputs and aux of tests/vectors/filecoin/circuits.json,
 *   and the 2KiB one the nonzero counts of A, B and C;
 * - the witness from the reference's C1 output satisfies the circuit, its
 *   public inputs are the 39 of fixture.json, and recording it with values
 *   gives the same R1CS as the blank circuit;
 * - C1 outputs that cuzk sealed (API 1.0, synthetic, non-interactive)
 *   satisfy it too;
 * - tampered vanilla values make it unsatisfied at the gadget that checks
 *   them.
 */
#include "testutil.h"
#include "filtest.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/fil_c1.h"
#include "cuzk/fil_porep_circuit.h"
#include "cuzk/fil_seal.h"
#include "cuzk/r1cs_hash.h"

static json_t *circuits, *fixture;
static cz_fil_c1 ref_c1;

static int setup(void **state) {
    (void)state;
    json_error_t e;
    circuits = json_load_file(cz_vector_path("filecoin/circuits.json"), 0, &e);
    fixture = json_load_file(cz_vector_path("filecoin/porep-2k-v1.1/fixture.json"), 0, &e);
    cz_errbuf err;
    if (!circuits || !fixture) return -1;
    return cz_fil_c1_read_file(&ref_c1, cz_vector_path("filecoin/porep-2k-v1.1/c1.json"), &err) == CZ_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    json_decref(circuits);
    json_decref(fixture);
    cz_fil_c1_free(&ref_c1);
    return 0;
}

static void check_counts(unsigned proof_id) {
    const cz_fil_seal_proof *p = cz_fil_seal_proof_by_id(proof_id);
    cz_fil_porep_circuit ctx = { p, NULL, 0 };
    cz_pce *pce;
    assert_int_equal(cz_pce_record(&pce, cz_fil_porep_synth, &ctx, NULL), CZ_OK);
    json_t *c = fil_counts_of(circuits, p->circuit_id);
    assert_int_equal(pce->n_circuit_constraints, fil_jint(c, "constraints"));
    assert_int_equal(pce->n_inputs, fil_jint(c, "inputs_with_one"));
    assert_int_equal(pce->n_aux, fil_jint(c, "aux"));
    if (proof_id == 5) {
        json_t *fp = json_array_get(json_object_get(circuits, "fingerprints"), 0);
        /* the R1CS fingerprint of rust-fil-proofs (bellpepper-core
         * TestConstraintSystem::hash of the 2KiB partition circuit) */
        cz_r1cs_fingerprint f;
        assert_int_equal(cz_r1cs_fingerprint_pce(pce, &f), CZ_OK);
        char hex[65];
        cz_r1cs_fingerprint_hex(&f, hex);
        assert_string_equal(hex, json_string_value(json_object_get(fp, "digest")));
        /* the PCE's A holds the appended input rows (one term each) */
        assert_int_equal(pce->a.nnz, fil_jint(fp, "nnz_a_plus_input_rows"));
        assert_int_equal(pce->a.nnz - pce->n_inputs, fil_jint(fp, "nnz_a"));
        assert_int_equal(pce->b.nnz, fil_jint(fp, "nnz_b"));
        assert_int_equal(pce->c.nnz, fil_jint(fp, "nnz_c"));
    }
    print_message("%s: %llu constraints, %llu inputs, %llu aux\n", p->circuit_id,
                  (unsigned long long)pce->n_circuit_constraints, (unsigned long long)pce->n_inputs,
                  (unsigned long long)pce->n_aux);
    cz_pce_free(pce);
}

static void test_counts_2k(void **state) { (void)state; check_counts(5); }
static void test_counts_8m(void **state) { (void)state; check_counts(6); }
static void test_counts_512m(void **state) { (void)state; check_counts(7); }

/* The 32GiB partition circuit, streamed (nothing stored per constraint):
 * the published counts and nonzeros. About 90 s; skipped under the
 * sanitizers. */
static void test_counts_32g_streaming(void **state) {
    (void)state;
#ifdef CUZK_SANITIZED
    skip();
#else
    cz_fil_porep_circuit ctx = { cz_fil_seal_proof_by_id(8), NULL, 0 };
    cz_r1cs_fingerprint f;
    cz_r1cs_stream_stats stats;
    assert_int_equal(cz_r1cs_fingerprint_stream(cz_fil_porep_synth, &ctx, &f, &stats), CZ_OK);
    json_t *c = fil_counts_of(circuits, "porep-32g");
    assert_int_equal(f.constraints, fil_jint(c, "constraints"));
    assert_int_equal(f.inputs, fil_jint(c, "inputs_with_one"));
    assert_int_equal(f.aux, fil_jint(c, "aux"));
    /* published nonzeros (Curio's extraction, with bellperson's input rows; docs/filecoin.md) */
    assert_int_equal(f.nnz_a_with_input_rows, 309405051);
    assert_int_equal(f.nnz_b, 130327340);
    assert_int_equal(f.nnz_c, 282656500);
    assert_int_equal(stats.matrix_bytes, 0);
    char hex[65];
    cz_r1cs_fingerprint_hex(&f, hex);
    print_message("porep-32g: %llu constraints, digest %s\n", (unsigned long long)f.constraints, hex);
#endif
}

/* The R1CS does not depend on the API version or challenge mechanism. */
static void test_counts_variants_same_shape(void **state) {
    (void)state;
    uint8_t h[4][32];
    static const unsigned ids[4] = { 0, 5, 10, 15 };
    for (int i = 0; i < 4; i++) {
        cz_fil_porep_circuit ctx = { cz_fil_seal_proof_by_id(ids[i]), NULL, 0 };
        cz_pce *pce;
        assert_int_equal(cz_pce_record(&pce, cz_fil_porep_synth, &ctx, NULL), CZ_OK);
        memcpy(h[i], pce->circuit_hash, 32);
        cz_pce_free(pce);
    }
    for (int i = 1; i < 4; i++) assert_memory_equal(h[0], h[i], 32);
}

static void fixture_input(cz_fr *out, size_t i) {
    json_t *pi = json_array_get(json_array_get(json_object_get(fixture, "public_inputs_per_partition"), 0), i);
    assert_non_null(pi);
    uint8_t b[32];
    const char *hx = json_string_value(json_object_get(pi, "le_hex"));
    for (int k = 0; k < 32; k++) {
        unsigned v;
        assert_int_equal(sscanf(hx + 2 * k, "%2x", &v), 1);
        b[k] = (uint8_t)v;
    }
    assert_int_equal(cz_fr_from_bytes_le(out, b), CZ_OK);
}

/* Witness of the reference's C1: satisfied, the fixture's public inputs,
 * and the blank circuit's R1CS. */
static void test_reference_witness(void **state) {
    (void)state;
    const cz_fil_seal_proof *p = cz_fil_seal_proof_by_id(5);
    cz_fil_porep_circuit ctx = { p, &ref_c1, 0 };
    cz_check_report rep;
    cz_status st = cz_cs_check(cz_fil_porep_synth, &ctx, &rep);
    if (st != CZ_OK) fail_msg("unsatisfied at %s", rep.where);
    cz_pce *blank, *valued;
    cz_witness w;
    cz_fil_porep_circuit bctx = { p, NULL, 0 };
    assert_int_equal(cz_pce_record(&blank, cz_fil_porep_synth, &bctx, NULL), CZ_OK);
    assert_int_equal(cz_pce_record(&valued, cz_fil_porep_synth, &ctx, &w), CZ_OK);
    assert_memory_equal(blank->circuit_hash, valued->circuit_hash, 32);
    assert_int_equal(w.n_inputs, 40);
    for (size_t i = 0; i < 39; i++) {
        cz_fr want;
        fixture_input(&want, i);
        if (!cz_fr_eq(&w.inputs[i + 1], &want)) fail_msg("public input %zu differs from the reference's", i);
    }
    /* the witness generator gives the same assignment */
    cz_witness w2;
    assert_int_equal(cz_witness_generate(&w2, cz_fil_porep_synth, &ctx, blank), CZ_OK);
    assert_int_equal(w2.n_aux, w.n_aux);
    assert_memory_equal(w2.aux, w.aux, w.n_aux * sizeof(cz_fr));
    uint64_t row;
    assert_int_equal(cz_pce_is_satisfied(blank, &w2, &row), CZ_OK);
    cz_witness_free(&w);
    cz_witness_free(&w2);
    cz_pce_free(blank);
    cz_pce_free(valued);
}

/* C1 outputs cuzk sealed, every challenge mechanism (NI: 13 partitions,
 * the last one checked). */
static void test_sealed_variants_satisfy(void **state) {
    (void)state;
    static const unsigned ids[3] = { 0, 10, 15 };
    uint8_t data[2032];
    cz_rng_bytes(data, sizeof data);
    for (int i = 0; i < 3; i++) {
        cz_fil_seal_params sp;
        memset(&sp, 0, sizeof sp);
        sp.proof = cz_fil_seal_proof_by_id(ids[i]);
        sp.sector_id = 7 + (uint64_t)i;
        cz_rng_bytes(sp.prover_id, 32);
        cz_rng_bytes(sp.ticket, 32);
        cz_rng_bytes(sp.seed, 32);
        cz_fil_seal_result res;
        cz_fil_c1 c1;
        cz_errbuf err;
        assert_int_equal(cz_fil_seal(&sp, data, sizeof data, NULL, &res, &c1, &err), CZ_OK);
        cz_fil_porep_circuit ctx = { sp.proof, &c1, (unsigned)c1.npartitions - 1 };
        cz_check_report rep;
        cz_status st = cz_cs_check(cz_fil_porep_synth, &ctx, &rep);
        if (st != CZ_OK) fail_msg("%s: unsatisfied at %s", sp.proof->name, rep.where);
        cz_fil_c1_free(&c1);
    }
}

/* A copy of the reference C1 with one value changed must fail at `where`. */
typedef void (*tamper_fn)(cz_fil_c1 *c);

static void expect_unsatisfied(tamper_fn fn, const char *where) {
    char *js;
    size_t jl;
    assert_int_equal(cz_fil_c1_to_json(&ref_c1, &js, &jl), CZ_OK);
    cz_fil_c1 c;
    cz_errbuf err;
    assert_int_equal(cz_fil_c1_parse(&c, js, jl, &err), CZ_OK);
    free(js);
    fn(&c);
    cz_fil_porep_circuit ctx = { cz_fil_seal_proof_by_id(5), &c, 0 };
    cz_check_report rep;
    cz_status st = cz_cs_check(cz_fil_porep_synth, &ctx, &rep);
    assert_int_equal(st, CZ_ERR_UNSATISFIED);
    if (!strstr(rep.where, where)) fail_msg("failed at \"%s\", expected \"%s\"", rep.where, where);
    print_message("tampered -> unsatisfied at %s\n", rep.where);
    cz_fil_c1_free(&c);
}

#define V1(c) (&(c)->partitions[0].proofs[1])
static void t_comm_r(cz_fil_c1 *c) { c->comm_r.b[0] ^= 1; }
static void t_data_leaf(cz_fil_c1 *c) { V1(c)->comm_d_proofs.leaf.b[0] ^= 1; }
static void t_drg_row(cz_fil_c1 *c) { V1(c)->drg_parents[3].column.rows[0].b[1] ^= 1; }
static void t_exp_path(cz_fil_c1 *c) { V1(c)->exp_parents[2].inclusion.base.elems[1].hashes[4].b[2] ^= 1; }
static void t_rlast_path(cz_fil_c1 *c) { V1(c)->comm_r_last_proof.base.elems[0].hashes[0].b[0] ^= 1; }
static void t_cx_path(cz_fil_c1 *c) { V1(c)->c_x.inclusion.base.elems[1].hashes[6].b[0] ^= 1; }

static void test_tampered_unsatisfied(void **state) {
    (void)state;
    expect_unsatisfied(t_comm_r, "enforce comm_r = H(comm_c || comm_r_last)");
    expect_unsatisfied(t_data_leaf, "challenge_1/comm_d_inclusion");
    expect_unsatisfied(t_drg_row, "challenge_1/drg_parent_3_inclusion");
    expect_unsatisfied(t_exp_path, "challenge_1/exp_parent_2_inclusion");
    expect_unsatisfied(t_rlast_path, "challenge_1/comm_r_last_data_inclusion");
    expect_unsatisfied(t_cx_path, "challenge_1/c_x_inclusion");
}

static void test_bad_context(void **state) {
    (void)state;
    /* a 2KiB C1 for the 8MiB circuit, a partition out of range */
    cz_fil_porep_circuit ctx = { cz_fil_seal_proof_by_id(6), &ref_c1, 0 };
    cz_check_report rep;
    assert_int_equal(cz_cs_check(cz_fil_porep_synth, &ctx, &rep), CZ_ERR_INVALID_ARG);
    cz_fil_porep_circuit ctx2 = { cz_fil_seal_proof_by_id(5), &ref_c1, 1 };
    assert_int_equal(cz_cs_check(cz_fil_porep_synth, &ctx2, &rep), CZ_ERR_INVALID_ARG);
}

int main(void) {
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_2k),
        cmocka_unit_test(test_counts_8m),
        cmocka_unit_test(test_counts_512m),
        cmocka_unit_test(test_counts_variants_same_shape),
        cmocka_unit_test(test_counts_32g_streaming),
        cmocka_unit_test(test_reference_witness),
        cmocka_unit_test(test_sealed_variants_satisfy),
        cmocka_unit_test(test_tampered_unsatisfied),
        cmocka_unit_test(test_bad_context),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
