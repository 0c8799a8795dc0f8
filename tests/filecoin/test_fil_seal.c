/*
 * Sealing against rust-fil-proofs' own answers: the 2KiB sector of
 * tests/vectors/filecoin/porep-2k-v1.1 (made by filecoin-proofs 19.1) is
 * sealed from its piece and inputs; replica_id, comm_d, comm_c,
 * comm_r_last and comm_r must equal the fixture's, and the C1 output must
 * equal the reference's c1.json after parsing. cz_fil_c1_check accepts
 * the reference's file and cuzk's, and names the field of every tampered
 * value. Trees of the 8-8-0 and 8-8-2 shapes (32/64GiB) are checked on
 * small leaf counts against a direct recomputation.
 */
#include "filtest.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/fil_c1.h"
#include "cuzk/fil_hash.h"
#include "cuzk/fil_poseidon.h"
#include "cuzk/fil_seal.h"
#include "cuzk/fil_tree.h"

static json_t *fixture;
static cz_fil_c1 ref_c1;

static void fixture_hex(uint8_t out[32], const char *key) {
    json_t *v = json_object_get(fixture, key);
    assert_non_null(v);
    if (json_is_object(v)) v = json_object_get(v, "le_hex");
    assert_true(json_is_string(v));
    fil_unhex(out, json_string_value(v), 32);
}

static void assert_domain(const cz_fil_domain *got, const char *key) {
    uint8_t want[32];
    fixture_hex(want, key);
    if (memcmp(got->b, want, 32) != 0) {
        char h[65];
        for (int i = 0; i < 32; i++) snprintf(h + 2 * i, 3, "%02x", got->b[i]);
        fail_msg("%s: got %s", key, h);
    }
}

static int setup(void **state) {
    (void)state;
    json_error_t e;
    fixture = json_load_file(cz_vector_path("filecoin/porep-2k-v1.1/fixture.json"), 0, &e);
    if (!fixture) return -1;
    cz_errbuf err = { { 0 } };
    if (cz_fil_c1_read_file(&ref_c1, cz_vector_path("filecoin/porep-2k-v1.1/c1.json"), &err) != CZ_OK) {
        fprintf(stderr, "c1.json: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    json_decref(fixture);
    cz_fil_c1_free(&ref_c1);
    return 0;
}

static void fixture_params(cz_fil_seal_params *p) {
    memset(p, 0, sizeof *p);
    p->proof = cz_fil_seal_proof_by_name(json_string_value(json_object_get(fixture, "registered_proof")));
    assert_non_null(p->proof);
    fixture_hex(p->prover_id, "prover_id_hex");
    fixture_hex(p->ticket, "ticket_hex");
    fixture_hex(p->seed, "seed_hex");
    p->sector_id = (uint64_t)json_integer_value(json_object_get(fixture, "sector_id"));
}

/* fr32: every 32-byte piece has its top two bits clear, unpad inverts pad,
 * and a single set input bit lands at output bit i + 2·floor(i / 254). */
static void test_fr32(void **state) {
    (void)state;
    uint8_t in[127 * 3], pad[128 * 3], back[127 * 3];
    cz_rng_bytes(in, sizeof in);
    cz_fil_fr32_pad(pad, in, sizeof in);
    for (int j = 0; j < 12; j++) assert_int_equal(pad[32 * j + 31] & 0xc0, 0);
    cz_fil_fr32_unpad(back, pad, sizeof pad);
    assert_memory_equal(back, in, sizeof in);
    for (unsigned bit = 0; bit < 127 * 8; bit += 7) {
        uint8_t one[127] = { 0 }, out[128];
        one[bit / 8] = (uint8_t)(1u << (bit % 8));
        cz_fil_fr32_pad(out, one, 127);
        unsigned ob = bit + 2 * (bit / 254);
        for (unsigned k = 0; k < 128; k++)
            assert_int_equal(out[k], k == ob / 8 ? (1u << (ob % 8)) : 0);
    }
}

/* The reference sector: every commitment, then the C1 output. */
static void test_seal_2k_fixture(void **state) {
    (void)state;
    size_t len;
    uint8_t *piece = cz_read_file(cz_vector_path("filecoin/porep-2k-v1.1/piece.bin"), &len);
    assert_non_null(piece);
    assert_int_equal(len, 2032);
    cz_fil_seal_params p;
    fixture_params(&p);
    cz_pool *pool = NULL;
    assert_int_equal(cz_pool_create(&pool, 1, "t"), CZ_OK);
    cz_fil_seal_result res;
    cz_fil_c1 c1;
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_seal(&p, piece, len, pool, &res, &c1, &err);
    if (st != CZ_OK) fail_msg("seal: %s", err.msg);
    assert_domain(&res.comm_d, "comm_d_hex");
    assert_domain(&res.replica_id, "replica_id");
    assert_domain(&res.comm_c, "comm_c_hex");
    assert_domain(&res.comm_r_last, "comm_r_last_hex");
    assert_domain(&res.comm_r, "comm_r_hex");
    /* the C1 output equals the reference's, field for field */
    assert_true(cz_fil_c1_equal(&c1, &ref_c1));
    /* and cuzk's own writer reproduces the reference file byte for byte */
    char *js;
    size_t jl;
    assert_int_equal(cz_fil_c1_to_json(&c1, &js, &jl), CZ_OK);
    size_t rl;
    uint8_t *ref = cz_read_file(cz_vector_path("filecoin/porep-2k-v1.1/c1.json"), &rl);
    assert_non_null(ref);
    while (rl && (ref[rl - 1] == '\n' || ref[rl - 1] == '\r')) rl--;
    assert_int_equal(jl, rl);
    assert_memory_equal(js, ref, rl);
    free(ref);
    free(js);
    st = cz_fil_c1_check(&c1, pool, &err);
    if (st != CZ_OK) fail_msg("check of cuzk's C1: %s", err.msg);
    cz_fil_c1_free(&c1);
    /* zero-filled data: a sector whose content is shorter */
    st = cz_fil_seal(&p, piece, 1016, pool, &res, NULL, &err);
    assert_int_equal(st, CZ_OK);
    st = cz_fil_seal(&p, piece, 2033, pool, &res, NULL, &err);
    assert_int_equal(st, CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "2033"));
    cz_pool_destroy(pool);
    free(piece);
}

static void test_check_reference_c1(void **state) {
    (void)state;
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_c1_check(&ref_c1, NULL, &err);
    if (st != CZ_OK) fail_msg("check of the reference C1: %s", err.msg);
    /* Curio's wrapper of the same file */
    cz_fil_c1 w;
    assert_int_equal(cz_fil_c1_read_file(&w, cz_vector_path("filecoin/porep-2k-v1.1/c1-curio.json"), &err), CZ_OK);
    assert_int_equal(cz_fil_c1_check(&w, NULL, &err), CZ_OK);
    cz_fil_c1_free(&w);
}

/* Tamper one value of a copy (through a JSON round trip) and expect the
 * check to fail naming `want`. */
typedef void (*tamper_fn)(cz_fil_c1 *c);

static void expect_tamper(tamper_fn fn, const char *want) {
    char *js;
    size_t jl;
    assert_int_equal(cz_fil_c1_to_json(&ref_c1, &js, &jl), CZ_OK);
    cz_fil_c1 c;
    cz_errbuf err = { { 0 } };
    assert_int_equal(cz_fil_c1_parse(&c, js, jl, &err), CZ_OK);
    free(js);
    fn(&c);
    cz_status st = cz_fil_c1_check(&c, NULL, &err);
    if (st == CZ_OK) fail_msg("tampering went unnoticed (expected \"%s\")", want);
    if (!strstr(err.msg, want)) fail_msg("error \"%s\" does not name \"%s\"", err.msg, want);
    cz_fil_c1_free(&c);
}

#define V(c) (&(c)->partitions[0].proofs[1])
static void t_comm_d_leaf(cz_fil_c1 *c) { V(c)->comm_d_proofs.leaf.b[0] ^= 1; }
static void t_comm_d_path(cz_fil_c1 *c) { V(c)->comm_d_proofs.base.elems[3].hashes[0].b[5] ^= 4; }
static void t_comm_d_root(cz_fil_c1 *c) { c->comm_d.b[2] ^= 1; }
static void t_comm_r(cz_fil_c1 *c) { c->comm_r.b[7] ^= 1; }
static void t_rlast_leaf(cz_fil_c1 *c) { V(c)->comm_r_last_proof.leaf.b[1] ^= 1; }
static void t_cx_row(cz_fil_c1 *c) { V(c)->c_x.column.rows[1].b[0] ^= 1; }
static void t_drg_row(cz_fil_c1 *c) { V(c)->drg_parents[2].column.rows[0].b[0] ^= 1; }
static void t_exp_index(cz_fil_c1 *c) { V(c)->exp_parents[5].column.index ^= 1; }
static void t_label_parent(cz_fil_c1 *c) { V(c)->labeling_proofs[1].parents[9].b[3] ^= 1; }
static void t_label_layer(cz_fil_c1 *c) { V(c)->labeling_proofs[0].layer_index = 2; }
static void t_enc_parent(cz_fil_c1 *c) { V(c)->encoding_proof.parents[36].b[3] ^= 1; }
static void t_seed(cz_fil_c1 *c) { c->seed[0] ^= 1; }
static void t_replica_id(cz_fil_c1 *c) { c->replica_id.b[0] ^= 1; }
static void t_path_index(cz_fil_c1 *c) { V(c)->comm_r_last_proof.base.elems[0].index ^= 1; }

static void test_check_tampered(void **state) {
    (void)state;
    expect_tamper(t_comm_d_leaf, "challenge 1 (node");
    expect_tamper(t_comm_d_leaf, "comm_d_proofs");
    expect_tamper(t_comm_d_path, "comm_d_proofs");
    expect_tamper(t_comm_d_root, "comm_d_proofs: root is not comm_d");
    expect_tamper(t_comm_r, "comm_r");
    expect_tamper(t_rlast_leaf, "comm_r_last_proof");
    expect_tamper(t_cx_row, "replica_column_proofs.c_x");
    expect_tamper(t_drg_row, "replica_column_proofs.drg_parents[2]");
    expect_tamper(t_exp_index, "replica_column_proofs.exp_parents[5]");
    expect_tamper(t_label_parent, "labeling_proofs[1].parents[9]");
    expect_tamper(t_label_layer, "labeling_proofs[0]");
    expect_tamper(t_enc_parent, "encoding_proof.parents[36]");
    expect_tamper(t_seed, "partition 0, challenge 0");       /* other challenges derived */
    expect_tamper(t_replica_id, "partition 0, challenge 0");
    expect_tamper(t_path_index, "comm_r_last_proof");
}

/* Every 2KiB registered proof (API 1.0 parent order, 1.1, synthetic and
 * non-interactive challenges with 13 partitions): the C1 that cuzk makes
 * passes the check, survives a JSON round trip, and is refused by the
 * check once relabelled as another variant (other porep_id, other
 * challenges). */
static void test_seal_2k_variants(void **state) {
    (void)state;
    static const unsigned ids[] = { 0, 5, 10, 15 };
    uint8_t data[2032];
    cz_rng_bytes(data, sizeof data);
    cz_fil_seal_params p;
    fixture_params(&p);
    for (size_t i = 0; i < 4; i++) {
        p.proof = cz_fil_seal_proof_by_id(ids[i]);
        cz_fil_seal_result res;
        cz_fil_c1 c1, back;
        cz_errbuf err = { { 0 } };
        if (cz_fil_seal(&p, data, sizeof data, NULL, &res, &c1, &err) != CZ_OK) fail_msg("%s: %s", p.proof->name, err.msg);
        assert_int_equal(c1.npartitions, p.proof->partitions);
        if (cz_fil_c1_check(&c1, NULL, &err) != CZ_OK) fail_msg("%s: %s", p.proof->name, err.msg);
        char *js;
        size_t jl;
        assert_int_equal(cz_fil_c1_to_json(&c1, &js, &jl), CZ_OK);
        assert_int_equal(cz_fil_c1_parse(&back, js, jl, &err), CZ_OK);
        assert_true(cz_fil_c1_equal(&c1, &back));
        free(js);
        cz_fil_c1_free(&back);
        /* the same proofs claimed for the next variant */
        c1.registered_proof = cz_fil_seal_proof_by_id(ids[(i + 1) % 4]);
        if (c1.registered_proof->partitions == p.proof->partitions)
            assert_int_not_equal(cz_fil_c1_check(&c1, NULL, &err), CZ_OK);
        c1.registered_proof = p.proof;
        cz_fil_c1_free(&c1);
    }
}

/* Compound shapes on small trees: the root is the sub/top composition of
 * the base roots, and every leaf's proof opens it at its index. */
static void check_shape(unsigned sub, unsigned top, uint64_t per_base) {
    size_t nbase = sub * (size_t)(top ? top : 1);
    uint64_t n = per_base * nbase;
    cz_fil_domain *leaves = malloc(n * sizeof *leaves);
    assert_non_null(leaves);
    for (uint64_t i = 0; i < n; i++) {
        cz_rng_bytes(leaves[i].b, 32);
        leaves[i].b[31] &= 0x1f;
    }
    cz_fil_tree t;
    assert_int_equal(cz_fil_tree_build(&t, CZ_FIL_HASHER_POSEIDON, 8, sub, top, leaves, n, NULL), CZ_OK);
    /* direct recomputation */
    cz_fil_domain *roots = malloc(nbase * sizeof *roots);
    for (size_t b = 0; b < nbase; b++) {
        cz_fil_domain *lvl = malloc(per_base * sizeof *lvl);
        memcpy(lvl, leaves + b * per_base, per_base * sizeof *lvl);
        for (uint64_t m = per_base; m > 1; m /= 8)
            for (uint64_t i = 0; i < m / 8; i++) assert_int_equal(cz_fil_poseidon_hash_node(&lvl[i], &lvl[8 * i], 8), CZ_OK);
        roots[b] = lvl[0];
        free(lvl);
    }
    cz_fil_domain subr[2], root;
    for (size_t s = 0; s < (top ? top : 1); s++) assert_int_equal(cz_fil_poseidon_hash_node(&subr[s], roots + 8 * s, 8), CZ_OK);
    if (top) assert_int_equal(cz_fil_poseidon_hash_node(&root, subr, 2), CZ_OK);
    else root = subr[0];
    assert_memory_equal(root.b, t.root.b, 32);
    for (uint64_t i = 0; i < n; i += 7) {
        cz_fil_merkle_proof pr;
        assert_int_equal(cz_fil_tree_prove(&t, i, &pr), CZ_OK);
        assert_int_equal(pr.kind, top ? CZ_FIL_PROOF_TOP : CZ_FIL_PROOF_SUB);
        assert_int_equal(pr.sub.len, 1);
        assert_int_equal(pr.top.len, top ? 1 : 0);
        assert_memory_equal(pr.leaf.b, leaves[i].b, 32);
        cz_errbuf err;
        assert_int_equal(cz_fil_merkle_proof_check(&pr, CZ_FIL_HASHER_POSEIDON, 8, sub, top, i, &err), CZ_OK);
        assert_int_not_equal(cz_fil_merkle_proof_check(&pr, CZ_FIL_HASHER_POSEIDON, 8, sub, top, (i + 1) % n, &err),
                             CZ_OK);
        pr.sub.elems[0].hashes[0].b[0] ^= 1;
        assert_int_not_equal(cz_fil_merkle_proof_check(&pr, CZ_FIL_HASHER_POSEIDON, 8, sub, top, i, &err), CZ_OK);
        cz_fil_merkle_proof_free(&pr);
    }
    free(roots);
    free(leaves);
    cz_fil_tree_free(&t);
}

static void test_tree_shapes(void **state) {
    (void)state;
    check_shape(8, 0, 64); /* 8-8-0 */
    check_shape(8, 2, 8);  /* 8-8-2 */
}

static void test_tree_bad_args(void **state) {
    (void)state;
    cz_fil_domain l[24] = { { { 0 } } };
    cz_fil_tree t;
    assert_int_equal(cz_fil_tree_build(&t, CZ_FIL_HASHER_POSEIDON, 8, 0, 0, l, 24, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_tree_build(&t, CZ_FIL_HASHER_SHA256, 2, 0, 0, l, 24, NULL), CZ_ERR_INVALID_ARG);
    /* a leaf >= r cannot enter a Poseidon tree */
    memset(l[3].b, 0xff, 32);
    assert_int_equal(cz_fil_tree_build(&t, CZ_FIL_HASHER_POSEIDON, 8, 0, 0, l, 8, NULL), CZ_ERR_NOT_CANONICAL);
}

int main(void) {
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fr32),
        cmocka_unit_test(test_seal_2k_fixture),
        cmocka_unit_test(test_check_reference_c1),
        cmocka_unit_test(test_check_tampered),
        cmocka_unit_test(test_seal_2k_variants),
        cmocka_unit_test(test_tree_shapes),
        cmocka_unit_test(test_tree_bad_args),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
