/*
 * FallbackPoSt (WinningPoSt / WindowPoSt) against rust-fil-proofs' own
 * numbers:
 * - the blank circuits of storage-proofs-post tests/fallback_circuit.rs
 *   (16,869 / 22,674 / 27,384 / 11,246 constraints for the 8-0-0, 8-4-0,
 *   8-4-2 trees of 64 leaves per base tree, 266,665 for five 32GiB 8-0-0
 *   sectors of 10 challenges) and of tests/vectors/filecoin/circuits.json
 *   (winning-post-32g recorded, window-post-32g streamed);
 * - the registered proofs and their per-partition counts as
 *   filecoin-proofs-api / parameters.rs / constants.rs give them;
 * - vanilla proofs generated natively from the reference's 2KiB sector
 *   (tests/vectors/filecoin/porep-2k-v1.1, sealed in memory) satisfy the
 *   winning and window circuits, whose public inputs are exactly
 *   cz_fil_post_public_inputs; tampered values and wrong randomness fail;
 * - the bincode reader/writer and the request envelope round trip and
 *   refuse truncated, malformed, non-canonical and wrongly sized input
 *   with messages naming the field and byte.
 */
#include "filtest.h"

#include <openssl/sha.h>

#include "cuzk/fil_params.h"
#include "cuzk/fil_post.h"
#include "cuzk/fil_seal.h"
#include "cuzk/r1cs_hash.h"

static json_t *circuits, *fixture;
static uint8_t *replica;         /* the fixture's sealed 2KiB sector */
static cz_fil_seal_result sealed; /* its commitments */
static uint8_t prover_id[32];

static int setup(void **state) {
    (void)state;
    json_error_t e;
    circuits = json_load_file(cz_vector_path("filecoin/circuits.json"), 0, &e);
    fixture = json_load_file(cz_vector_path("filecoin/porep-2k-v1.1/fixture.json"), 0, &e);
    if (!circuits || !fixture) return -1;
    size_t len;
    uint8_t *piece = cz_read_file(cz_vector_path("filecoin/porep-2k-v1.1/piece.bin"), &len);
    if (!piece) return -1;
    cz_fil_seal_params p;
    memset(&p, 0, sizeof p);
    p.proof = cz_fil_seal_proof_by_name(json_string_value(json_object_get(fixture, "registered_proof")));
    p.sector_id = (uint64_t)json_integer_value(json_object_get(fixture, "sector_id"));
    const char *h = json_string_value(json_object_get(fixture, "prover_id_hex"));
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1) return -1;
        prover_id[i] = (uint8_t)v;
    }
    memcpy(p.prover_id, prover_id, 32);
    replica = malloc(2048);
    p.sealed_out = replica;
    cz_errbuf err;
    cz_status st = cz_fil_seal(&p, piece, len, NULL, &sealed, NULL, &err);
    free(piece);
    return st == CZ_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    json_decref(circuits);
    json_decref(fixture);
    free(replica);
    return 0;
}

/* A canonical random 32-byte value (top two bits clear). */
static void rand_canonical(uint8_t out[32]) {
    cz_rng_bytes(out, 32);
    out[31] &= 0x3f;
}

/* ---- the table ----------------------------------------------------------------- */
static void test_table(void **state) {
    (void)state;
    static const char *const sizes[5] = { "2k", "8m", "512m", "32g", "64g" };
    static const uint64_t bytes[5] = { 2048, 8u << 20, 512u << 20, 32ull << 30, 64ull << 30 };
    for (unsigned id = 0; id < 15; id++) {
        const cz_fil_post_proof *p = cz_fil_post_proof_by_id(id);
        assert_non_null(p);
        assert_int_equal(p->id, id);
        unsigned s = id % 5;
        char cid[32];
        snprintf(cid, sizeof cid, "%s-%s", id < 5 ? "winning" : "wpost", sizes[s]);
        assert_string_equal(p->circuit_id, cid);
        assert_int_equal(p->sector_size, bytes[s]);
        assert_int_equal(p->type, id < 5 ? CZ_FIL_POST_WINNING : CZ_FIL_POST_WINDOW);
        assert_int_equal(p->api, id < 10 ? CZ_FIL_API_1_0 : CZ_FIL_API_1_2);
        assert_int_equal(p->tree_sub_arity, s >= 3 ? 8 : 0);
        assert_int_equal(p->tree_top_arity, s == 4 ? 2 : 0);
        assert_ptr_equal(cz_fil_post_proof_by_name(p->name), p);
        char num[4];
        snprintf(num, sizeof num, "%u", id);
        assert_ptr_equal(cz_fil_post_proof_by_name(num), p);
        /* the parameter set (fil_params.h) uses the same counts */
        cz_fil_params_set ps;
        assert_int_equal(cz_fil_params_set_for(&ps, id < 5 ? CZ_FIL_CIRCUIT_WINNING_POST : CZ_FIL_CIRCUIT_WINDOW_POST,
                                               p->sector_size),
                         CZ_OK);
        assert_int_equal(ps.sector_count, p->sector_count);
        assert_int_equal(ps.challenge_count, p->challenge_count);
        if (id < 5) {
            assert_int_equal(p->config_sector_count, 1);
            assert_int_equal(p->config_challenge_count, 66);
            assert_int_equal(p->sector_count, 66);
            assert_int_equal(p->challenge_count, 1);
        } else {
            static const unsigned sc[5] = { 2, 2, 2, 2349, 2300 };
            assert_int_equal(p->sector_count, sc[s]);
            assert_int_equal(p->config_sector_count, sc[s]);
            assert_int_equal(p->challenge_count, 10);
        }
    }
    assert_string_equal(cz_fil_post_proof_by_id(13)->name, "StackedDrgWindow32GiBV1_2");
    assert_string_equal(cz_fil_post_proof_by_id(3)->name, "StackedDrgWinning32GiBV1");
    assert_null(cz_fil_post_proof_by_id(15));
    assert_null(cz_fil_post_proof_by_name("15"));
    assert_null(cz_fil_post_proof_by_name("013"));
    assert_null(cz_fil_post_proof_by_name("StackedDrgWindow32GiBV1_1"));
    assert_int_equal(cz_fil_post_proof_by_circuit("wpost-32g")->id, 8);
    assert_int_equal(cz_fil_post_public_input_count(cz_fil_post_proof_by_id(3)), 132);
    assert_int_equal(cz_fil_post_public_input_count(cz_fil_post_proof_by_id(13)), 25839);
    assert_int_equal(cz_fil_post_base_path_len(cz_fil_post_proof_by_id(3)), 9);
    assert_int_equal(cz_fil_post_base_path_len(cz_fil_post_proof_by_id(4)), 9);
    assert_int_equal(cz_fil_post_base_path_len(cz_fil_post_proof_by_id(0)), 2);
    /* the fixture's prover id is LEB128(1000) */
    uint8_t pid[32];
    cz_fil_prover_id_from_miner(1000, pid);
    assert_memory_equal(pid, prover_id, 32);
    cz_fil_prover_id_from_miner(UINT64_MAX, pid);
    for (int i = 0; i < 9; i++) assert_int_equal(pid[i], 0xff);
    assert_int_equal(pid[9], 0x01);
    assert_int_equal(pid[10], 0);
    cz_fil_prover_id_from_miner(0, pid);
    assert_int_equal(pid[0], 0);
}

/* get_challenge_index and generate_leaf_challenge against OpenSSL's SHA-256 */
static void test_challenges(void **state) {
    (void)state;
    assert_int_equal(cz_fil_post_challenge_index(CZ_FIL_API_1_0, 3, 10, 4), 34);
    assert_int_equal(cz_fil_post_challenge_index(CZ_FIL_API_1_1, 3, 10, 4), 34);
    assert_int_equal(cz_fil_post_challenge_index(CZ_FIL_API_1_2, 3, 10, 4), 4);
    const cz_fil_post_proof *p = cz_fil_post_proof_by_id(8);
    for (int t = 0; t < 50; t++) {
        uint8_t rnd[32], msg[48], h[32];
        rand_canonical(rnd);
        uint64_t sid = cz_rng_u64(), ci = cz_rng_u64() % 100000;
        memcpy(msg, rnd, 32);
        for (int i = 0; i < 8; i++) {
            msg[32 + i] = (uint8_t)(sid >> (8 * i));
            msg[40 + i] = (uint8_t)(ci >> (8 * i));
        }
        SHA256(msg, sizeof msg, h);
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--) v = v << 8 | h[i];
        assert_int_equal(cz_fil_post_leaf_challenge(p, rnd, sid, ci), v % (1ull << 30));
    }
    /* winning sector selection: SHA-256(prover_id ‖ randomness ‖ 0 u64) mod n */
    const cz_fil_post_proof *w = cz_fil_post_proof_by_id(0);
    uint8_t rnd[32], msg[72], h[32];
    rand_canonical(rnd);
    memcpy(msg, prover_id, 32);
    memcpy(msg + 32, rnd, 32);
    memset(msg + 64, 0, 8);
    SHA256(msg, sizeof msg, h);
    uint64_t v = 0, got;
    for (int i = 7; i >= 0; i--) v = v << 8 | h[i];
    cz_errbuf err;
    assert_int_equal(cz_fil_post_winning_sectors(w, rnd, prover_id, 1234, &got, &err), CZ_OK);
    assert_int_equal(got, v % 1234);
    assert_int_equal(cz_fil_post_winning_sectors(w, rnd, prover_id, 0, &got, &err), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_post_winning_sectors(p, rnd, prover_id, 5, &got, &err), CZ_ERR_INVALID_ARG);
    rnd[31] = 0xff;
    assert_int_equal(cz_fil_post_winning_sectors(w, rnd, prover_id, 5, &got, &err), CZ_ERR_NOT_CANONICAL);
    assert_non_null(strstr(err.msg, "randomness"));
}

/* ---- counts ---------------------------------------------------------------------- */
static void record_counts(const cz_fil_post_proof *p, uint64_t *cons, uint64_t *inputs, uint64_t *aux) {
    cz_fil_post_circuit ctx = { p, NULL };
    cz_pce *pce;
    assert_int_equal(cz_pce_record(&pce, cz_fil_post_synth, &ctx, NULL), CZ_OK);
    *cons = pce->n_circuit_constraints;
    *inputs = pce->n_inputs;
    *aux = pce->n_aux;
    cz_pce_free(pce);
}

/* A FallbackPoSt PublicParams of the reference's circuit tests: 64 leaves
 * per base tree, challenge_count 5. */
static cz_fil_post_proof test_params(unsigned sub, unsigned top, unsigned sector_count, unsigned challenges) {
    cz_fil_post_proof p = *cz_fil_post_proof_by_id(5);
    p.name = "test";
    p.tree_sub_arity = sub;
    p.tree_top_arity = top;
    p.sector_size = 64ull * (sub ? sub : 1) * (top ? top : 1) * 32;
    p.sector_count = p.config_sector_count = sector_count;
    p.challenge_count = p.config_challenge_count = challenges;
    p.api = CZ_FIL_API_1_1;
    return p;
}

/* storage-proofs-post tests/fallback_circuit.rs: expected_constraints and
 * expected_num_inputs of its TestConstraintSystem runs, and the BenchCS
 * count of five 32GiB 8-0-0 sectors of 10 challenges. */
static void test_counts_reference_tests(void **state) {
    (void)state;
    static const struct {
        unsigned sub, top, sector_count;
        uint64_t inputs, constraints;
    } cases[] = {
        { 0, 0, 3, 19, 16869 }, /* single_partition_base_8 */
        { 4, 0, 3, 19, 22674 }, /* single_partition_sub_8_4 */
        { 4, 2, 3, 19, 27384 }, /* single_partition_top_8_4_2 */
        { 0, 0, 2, 13, 11246 }, /* two_partitions_base_8 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cz_fil_post_proof p = test_params(cases[i].sub, cases[i].top, cases[i].sector_count, 5);
        uint64_t c, n, a;
        record_counts(&p, &c, &n, &a);
        assert_int_equal(c, cases[i].constraints);
        assert_int_equal(n, cases[i].inputs);
    }
    cz_fil_post_proof big = *cz_fil_post_proof_by_id(8);
    big.tree_sub_arity = 0; /* DiskTree<PoseidonHasher, U8, U0, U0> */
    big.sector_count = 5;
    cz_fil_post_circuit ctx = { &big, NULL };
    cz_r1cs_fingerprint f;
    assert_int_equal(cz_r1cs_count_stream(cz_fil_post_synth, &ctx, &f), CZ_OK);
    assert_int_equal(f.constraints, 266665);
}

/* circuits.json: winning-post-32g, recorded; the R1CS is the same for
 * every API version of a size (window V1 and V1_2). */
static void test_counts_winning_32g(void **state) {
    (void)state;
    uint64_t c, n, a;
    record_counts(cz_fil_post_proof_by_id(3), &c, &n, &a);
    json_t *j = fil_counts_of(circuits, "winning-post-32g");
    assert_int_equal(c, fil_jint(j, "constraints"));
    assert_int_equal(n, fil_jint(j, "inputs_with_one"));
    assert_int_equal(a, fil_jint(j, "aux"));
    assert_int_equal(n - 1, fil_jint(j, "public_inputs"));
    print_message("winning-32g: %llu constraints, %llu inputs, %llu aux\n", (unsigned long long)c,
                  (unsigned long long)n, (unsigned long long)a);
    /* window V1 (API 1.0) and V1_2 (API 1.2): one R1CS */
    uint8_t h[2][32];
    for (int i = 0; i < 2; i++) {
        cz_fil_post_circuit ctx = { cz_fil_post_proof_by_id(i ? 10 : 5), NULL };
        cz_pce *pce;
        assert_int_equal(cz_pce_record(&pce, cz_fil_post_synth, &ctx, NULL), CZ_OK);
        memcpy(h[i], pce->circuit_hash, 32);
        cz_pce_free(pce);
    }
    assert_memory_equal(h[0], h[1], 32);
}

/* ---- satisfaction from the fixture's sector ----------------------------------------- */
static void make_replica(cz_fil_post_replica *r, const cz_fil_post_proof *p, uint64_t sector_id) {
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_post_replica_init(r, p, sector_id, replica, 2048, &sealed.comm_c, &sealed.comm_r_last, NULL,
                                            &err);
    if (st != CZ_OK) fail_msg("replica: %s", err.msg);
    assert_memory_equal(r->comm_r.b, sealed.comm_r.b, 32);
}

/* The circuit is satisfied, its public inputs are cz_fil_post_public_inputs
 * and its values-recording has the blank circuit's R1CS. */
static void assert_satisfied(const cz_fil_post_request *req) {
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_post_check(req, &err);
    if (st != CZ_OK) fail_msg("check: %s", err.msg);
    cz_fil_post_circuit ctx = { req->proof, req };
    cz_check_report rep;
    st = cz_cs_check(cz_fil_post_synth, &ctx, &rep);
    if (st != CZ_OK) fail_msg("%s: unsatisfied at %s (%s)", req->proof->name, rep.where, cz_status_str(st));
    cz_pce *blank, *valued;
    cz_witness w;
    cz_fil_post_circuit bctx = { req->proof, NULL };
    assert_int_equal(cz_pce_record(&blank, cz_fil_post_synth, &bctx, NULL), CZ_OK);
    assert_int_equal(cz_pce_record(&valued, cz_fil_post_synth, &ctx, &w), CZ_OK);
    assert_memory_equal(blank->circuit_hash, valued->circuit_hash, 32);
    size_t n = cz_fil_post_public_input_count(req->proof), got;
    assert_int_equal(w.n_inputs, n + 1);
    cz_fr *pi = malloc(n * sizeof *pi);
    assert_int_equal(cz_fil_post_public_inputs(req, pi, n, &got, &err), CZ_OK);
    assert_int_equal(got, n);
    for (size_t i = 0; i < n; i++)
        if (!cz_fr_eq(&pi[i], &w.inputs[i + 1])) fail_msg("public input %zu differs from the circuit's", i);
    assert_int_equal(cz_fil_post_public_inputs(req, pi, n - 1, &got, &err), CZ_ERR_INVALID_ARG);
    free(pi);
    uint64_t row;
    assert_int_equal(cz_pce_is_satisfied(blank, &w, &row), CZ_OK);
    cz_witness_free(&w);
    cz_pce_free(blank);
    cz_pce_free(valued);
}

static void roundtrip(const cz_fil_post_request *req) {
    uint8_t *buf;
    size_t len;
    assert_int_equal(cz_fil_post_request_encode(req, &buf, &len), CZ_OK);
    cz_fil_post_request back;
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_post_request_parse(&back, buf, len, &err);
    if (st != CZ_OK) fail_msg("parse: %s", err.msg);
    assert_ptr_equal(back.proof, req->proof);
    assert_int_equal(back.partition, req->partition);
    assert_memory_equal(back.randomness, req->randomness, 32);
    assert_memory_equal(back.prover_id, req->prover_id, 32);
    assert_int_equal(back.nvanilla, req->nvanilla);
    for (size_t i = 0; i < req->nvanilla; i++) assert_true(cz_fil_post_vanilla_equal(&back.vanilla[i], &req->vanilla[i]));
    cz_fil_post_request_free(&back);
    free(buf);
}

static void test_winning_2k(void **state) {
    (void)state;
    const cz_fil_post_proof *p = cz_fil_post_proof_by_id(0);
    cz_fil_post_replica r;
    make_replica(&r, p, 42);
    uint8_t rnd[32];
    rand_canonical(rnd);
    cz_fil_post_request req;
    cz_errbuf err = { { 0 } };
    cz_status st = cz_fil_post_request_generate(&req, p, prover_id, rnd, 0, &r, 1, &err);
    if (st != CZ_OK) fail_msg("generate: %s", err.msg);
    assert_int_equal(req.vanilla[0].sectors[0].ninclusion, 66);
    assert_satisfied(&req);
    roundtrip(&req);
    /* winning's challenge n is leaf challenge index n of the sector */
    uint64_t ch[66];
    cz_fil_post_sector_challenges(p, rnd, 42, 0, ch);
    for (int i = 0; i < 66; i++)
        assert_int_equal(cz_fil_merkle_proof_index(&req.vanilla[0].sectors[0].inclusion_proofs[i], 8, 0), ch[i]);
    cz_fil_post_request_free(&req);
    cz_fil_post_replica_free(&r);
}

static void test_window_2k(void **state) {
    (void)state;
    static const unsigned ids[2] = { 5, 10 };
    for (int v = 0; v < 2; v++) {
        const cz_fil_post_proof *p = cz_fil_post_proof_by_id(ids[v]);
        cz_fil_post_replica r[2];
        make_replica(&r[0], p, 42);
        make_replica(&r[1], p, 43); /* the same replica under another sector number */
        uint8_t rnd[32];
        rand_canonical(rnd);
        for (size_t n = 1; n <= 2; n++) {
            cz_fil_post_request req;
            cz_errbuf err = { { 0 } };
            cz_status st = cz_fil_post_request_generate(&req, p, prover_id, rnd, 3, r, n, &err);
            if (st != CZ_OK) fail_msg("generate: %s", err.msg);
            assert_satisfied(&req);
            roundtrip(&req);
            /* the partition index enters V1's challenges only */
            cz_fil_post_request other = req;
            other.partition = 0;
            st = cz_fil_post_check(&other, &err);
            if (p->api == CZ_FIL_API_1_2) assert_int_equal(st, CZ_OK);
            else assert_int_equal(st, CZ_ERR_MISMATCH);
            cz_fil_post_request_free(&req);
        }
        cz_fil_post_replica_free(&r[0]);
        cz_fil_post_replica_free(&r[1]);
    }
}

/* Small custom trees with sub and top levels (as the reference's circuit
 * tests): generated, checked and satisfied, through the Sub and Top
 * bincode variants. */
static void test_sub_top_shapes(void **state) {
    (void)state;
    static const unsigned shapes[3][2] = { { 4, 0 }, { 4, 2 }, { 8, 2 } };
    for (int s = 0; s < 3; s++) {
        cz_fil_post_proof p = test_params(shapes[s][0], shapes[s][1], 3, 5);
        uint64_t nodes = p.sector_size / 32;
        uint8_t *rep = malloc(p.sector_size);
        for (uint64_t i = 0; i < nodes; i++) rand_canonical(rep + 32 * i);
        cz_fil_tree t;
        assert_int_equal(cz_fil_tree_build(&t, CZ_FIL_HASHER_POSEIDON, 8, p.tree_sub_arity, p.tree_top_arity,
                                           (const cz_fil_domain *)(const void *)rep, nodes, NULL),
                         CZ_OK);
        cz_fil_domain comm_c;
        rand_canonical(comm_c.b);
        cz_fil_post_replica r[2];
        cz_errbuf err = { { 0 } };
        assert_int_equal(cz_fil_post_replica_init(&r[0], &p, 1, rep, p.sector_size, &comm_c, &t.root, NULL, &err), CZ_OK);
        assert_int_equal(cz_fil_post_replica_init(&r[1], &p, 2, rep, p.sector_size, &comm_c, &t.root, NULL, &err), CZ_OK);
        uint8_t rnd[32];
        rand_canonical(rnd);
        cz_fil_post_request req;
        cz_status st = cz_fil_post_request_generate(&req, &p, prover_id, rnd, 1, r, 2, &err);
        if (st != CZ_OK) fail_msg("generate: %s", err.msg);
        assert_satisfied(&req);
        uint8_t *buf;
        size_t len;
        cz_fil_post_vanilla back;
        assert_int_equal(cz_fil_post_vanilla_encode(&req.vanilla[1], &buf, &len), CZ_OK);
        assert_int_equal(cz_fil_post_vanilla_parse(&back, &p, buf, len, &err), CZ_OK);
        assert_true(cz_fil_post_vanilla_equal(&back, &req.vanilla[1]));
        cz_fil_post_vanilla_free(&back);
        free(buf);
        cz_fil_post_request_free(&req);
        cz_fil_post_replica_free(&r[0]);
        cz_fil_post_replica_free(&r[1]);
        cz_fil_tree_free(&t);
        free(rep);
    }
}

/* ---- tampering ---------------------------------------------------------------------- */
static void test_tampered(void **state) {
    (void)state;
    const cz_fil_post_proof *p = cz_fil_post_proof_by_id(10);
    cz_fil_post_replica r;
    make_replica(&r, p, 42);
    uint8_t rnd[32];
    rand_canonical(rnd);
    cz_fil_post_request req;
    cz_errbuf err = { { 0 } };
    assert_int_equal(cz_fil_post_request_generate(&req, p, prover_id, rnd, 0, &r, 1, &err), CZ_OK);
    cz_fil_post_circuit ctx = { p, &req };
    cz_check_report rep;
    /* a leaf */
    cz_fil_merkle_proof *mp = &req.vanilla[0].sectors[0].inclusion_proofs[3];
    mp->leaf.b[0] ^= 1;
    assert_int_equal(cz_fil_post_check(&req, &err), CZ_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "sector proof 0 (sector 42): challenge 3"));
    print_message("tampered leaf: %s\n", err.msg);
    assert_int_equal(cz_cs_check(cz_fil_post_synth, &ctx, &rep), CZ_ERR_UNSATISFIED);
    if (!strstr(rep.where, "sector_0/challenge_inclusion_3/enforce root is correct"))
        fail_msg("unsatisfied at %s", rep.where);
    mp->leaf.b[0] ^= 1;
    /* a path element */
    mp->base.elems[1].hashes[2].b[5] ^= 1;
    assert_int_equal(cz_fil_post_check(&req, &err), CZ_ERR_MISMATCH);
    assert_int_equal(cz_cs_check(cz_fil_post_synth, &ctx, &rep), CZ_ERR_UNSATISFIED);
    mp->base.elems[1].hashes[2].b[5] ^= 1;
    /* comm_c */
    req.vanilla[0].sectors[0].comm_c.b[0] ^= 1;
    assert_int_equal(cz_fil_post_check(&req, &err), CZ_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "Poseidon(comm_c, comm_r_last)"));
    assert_int_equal(cz_cs_check(cz_fil_post_synth, &ctx, &rep), CZ_ERR_UNSATISFIED);
    if (!strstr(rep.where, "enforce_comm_c_comm_r_last_hash_comm_r")) fail_msg("unsatisfied at %s", rep.where);
    req.vanilla[0].sectors[0].comm_c.b[0] ^= 1;
    if (cz_fil_post_check(&req, &err) != CZ_OK) fail_msg("restored comm_c: %s", err.msg);
    /* a non-canonical value */
    uint8_t b31 = req.vanilla[0].sectors[0].comm_r_last.b[31];
    req.vanilla[0].sectors[0].comm_r_last.b[31] |= 0xc0;
    assert_int_equal(cz_fil_post_check(&req, &err), CZ_ERR_NOT_CANONICAL);
    assert_int_equal(cz_cs_check(cz_fil_post_synth, &ctx, &rep), CZ_ERR_NOT_CANONICAL);
    req.vanilla[0].sectors[0].comm_r_last.b[31] = b31;
    if (cz_fil_post_check(&req, &err) != CZ_OK) fail_msg("restored: %s", err.msg);
    /* wrong randomness: the paths no longer open the challenged leaves; the
     * circuit itself still holds, but its inputs are not the verifier's */
    req.randomness[0] ^= 1;
    assert_int_equal(cz_fil_post_check(&req, &err), CZ_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "opens node"));
    cz_witness w;
    cz_pce *pce;
    assert_int_equal(cz_pce_record(&pce, cz_fil_post_synth, &ctx, &w), CZ_OK);
    size_t n = cz_fil_post_public_input_count(p), got;
    cz_fr pi[22];
    assert_int_equal(cz_fil_post_public_inputs(&req, pi, n, &got, &err), CZ_OK);
    bool differs = false;
    for (size_t i = 0; i < n; i++) differs |= !cz_fr_eq(&pi[i], &w.inputs[i + 1]);
    assert_true(differs);
    cz_witness_free(&w);
    cz_pce_free(pce);
    req.randomness[31] = 0xff; /* not canonical */
    assert_int_equal(cz_fil_post_check(&req, &err), CZ_ERR_NOT_CANONICAL);
    cz_fil_post_request_free(&req);
    cz_fil_post_replica_free(&r);
}

/* ---- bincode and the envelope ------------------------------------------------------ */

/* The envelope of these raw sector proofs must be refused by the parser
 * with status want (and, when frag is not NULL, a message naming it). */
static void envelope_refused(unsigned proof_id, const uint8_t prover[32], const uint8_t rnd[32], uint32_t partition,
                             const uint8_t *const *parts, const size_t *lens, size_t n, cz_status want,
                             const char *frag) {
    uint8_t *env;
    size_t len;
    cz_errbuf err = { { 0 } };
    cz_fil_post_request back;
    assert_int_equal(cz_fil_post_request_encode_raw(proof_id, prover, rnd, partition, parts, lens, n, &env, &len),
                     CZ_OK);
    assert_int_equal(cz_fil_post_request_parse(&back, env, len, &err), want);
    assert_null(back.vanilla);
    if (frag && !strstr(err.msg, frag)) fail_msg("'%s' does not name '%s'", err.msg, frag);
    free(env);
}

static void test_bincode(void **state) {
    (void)state;
    const cz_fil_post_proof *p = cz_fil_post_proof_by_id(0);
    cz_fil_post_replica r;
    make_replica(&r, p, 42);
    uint8_t rnd[32];
    rand_canonical(rnd);
    cz_fil_post_request req;
    cz_errbuf err = { { 0 } };
    assert_int_equal(cz_fil_post_request_generate(&req, p, prover_id, rnd, 0, &r, 1, &err), CZ_OK);
    uint8_t *vb;
    size_t vl;
    assert_int_equal(cz_fil_post_vanilla_encode(&req.vanilla[0], &vb, &vl), CZ_OK);
    /* 8 + 32 + 8 + 8 + 66 · (4 + 32 + 32 + 8 + 2 · (8 + 7 · 32 + 8)) + 64 */
    assert_int_equal(vl, 8 + 32 + 8 + 8 + 66 * (4 + 32 + 32 + 8 + 2 * (8 + 7 * 32 + 8)) + 64);
    /* truncated at every length */
    for (size_t l = 0; l < vl; l++) {
        cz_fil_post_vanilla v;
        cz_status st = cz_fil_post_vanilla_parse(&v, p, vb, l, &err);
        assert_int_equal(st, CZ_ERR_FORMAT);
        if (!strstr(err.msg, " at byte ") || !strstr(err.msg, ": truncated (need ")) fail_msg("length %zu: %s", l, err.msg);
        assert_null(v.sectors);
    }
    {
        cz_fil_post_vanilla v;
        assert_int_equal(cz_fil_post_vanilla_parse(&v, p, vb, 100, &err), CZ_ERR_FORMAT);
        print_message("truncated: %s\n", err.msg);
    }
    /* a bad variant tag (first inclusion proof at offset 56) */
    uint8_t *bad = malloc(vl + 1);
    memcpy(bad, vb, vl);
    bad[56] = 7;
    cz_fil_post_vanilla v;
    assert_int_equal(cz_fil_post_vanilla_parse(&v, p, bad, vl, &err), CZ_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "inclusion_proofs[0].data at byte 56: unknown ProofData variant 7"));
    bad[56] = 1; /* Sub, for an 8-0-0 tree */
    assert_int_equal(cz_fil_post_vanilla_parse(&v, p, bad, vl, &err), CZ_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "needs Single"));
    memcpy(bad, vb, vl);
    /* a length of 2^60 (the inclusion proofs) must not allocate */
    bad[48 + 7] = 0x10;
    assert_int_equal(cz_fil_post_vanilla_parse(&v, p, bad, vl, &err), CZ_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "inclusion_proofs at byte 48: length"));
    memcpy(bad, vb, vl);
    /* an index out of range: the first path level's index (after 7 hashes) */
    size_t idx_at = 56 + 4 + 64 + 8 + 8 + 7 * 32;
    bad[idx_at] = 8;
    assert_int_equal(cz_fil_post_vanilla_parse(&v, p, bad, vl, &err), CZ_ERR_FORMAT);
    print_message("bad index: %s\n", err.msg);
    assert_non_null(strstr(err.msg, "inclusion_proofs[0].data.Single.path.path[0].index at byte 364: index 8 out of range"));
    memcpy(bad, vb, vl);
    /* trailing bytes */
    bad[vl] = 0;
    assert_int_equal(cz_fil_post_vanilla_parse(&v, p, bad, vl + 1, &err), CZ_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "after the end"));
    /* a window proof's shape does not fit a winning one */
    assert_int_equal(cz_fil_post_vanilla_parse(&v, cz_fil_post_proof_by_id(5), vb, vl, &err), CZ_ERR_FORMAT);
    /* the envelope from the raw proofs equals the request's encoding */
    const uint8_t *parts[3] = { vb, vb, vb };
    size_t lens[3] = { vl, vl, vl };
    uint8_t *e1, *e2;
    size_t l1, l2;
    assert_int_equal(cz_fil_post_request_encode_raw(0, prover_id, rnd, 0, parts, lens, 1, &e1, &l1), CZ_OK);
    assert_int_equal(cz_fil_post_request_encode(&req, &e2, &l2), CZ_OK);
    assert_int_equal(l1, l2);
    assert_memory_equal(e1, e2, l1);
    cz_fil_post_request back;
    for (size_t l = 0; l < l1; l += (l < 200 ? 1 : 97)) {
        cz_status st = cz_fil_post_request_parse(&back, e1, l, &err);
        assert_int_equal(st, CZ_ERR_FORMAT);
        assert_null(back.vanilla);
    }
    assert_int_equal(cz_fil_post_request_parse(&back, e1, l1 - 1, &err), CZ_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "sector proof 0 length at byte 88: "));
    print_message("truncated envelope: %s\n", err.msg);
    /* wrong numbers of sector proofs, winning's partition, non-canonical
     * randomness / prover id: refused with the reference's wording */
    uint8_t badr[32];
    memset(badr, 0xff, 32);
    envelope_refused(0, prover_id, rnd, 0, parts, lens, 2, CZ_ERR_INVALID_ARG, "invalid amount of vanilla proofs");
    envelope_refused(0, prover_id, rnd, 0, parts, lens, 0, CZ_ERR_INVALID_ARG, NULL);
    envelope_refused(5, prover_id, rnd, 0, parts, lens, 3, CZ_ERR_INVALID_ARG, "can only prove a single partition");
    envelope_refused(0, prover_id, rnd, 1, parts, lens, 1, CZ_ERR_INVALID_ARG, NULL); /* winning: partition 0 only */
    envelope_refused(0, prover_id, badr, 0, parts, lens, 1, CZ_ERR_NOT_CANONICAL, "randomness");
    envelope_refused(0, badr, rnd, 0, parts, lens, 1, CZ_ERR_NOT_CANONICAL, "prover_id");
    uint8_t *e3;
    size_t l3;
    /* unknown registered proof, bad magic, bad version, trailing byte */
    assert_int_equal(cz_fil_post_request_encode_raw(15, prover_id, rnd, 0, parts, lens, 1, &e3, &l3), CZ_OK);
    assert_int_equal(cz_fil_post_request_parse(&back, e3, l3, &err), CZ_ERR_FORMAT);
    e3[12] = 0;
    e3[0] ^= 1;
    assert_int_equal(cz_fil_post_request_parse(&back, e3, l3, &err), CZ_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "magic"));
    e3[0] ^= 1;
    e3[8] = 2;
    assert_int_equal(cz_fil_post_request_parse(&back, e3, l3, &err), CZ_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "version 2"));
    e3[8] = 1;
    assert_int_equal(cz_fil_post_request_parse(&back, e3, l3, &err), CZ_OK);
    cz_fil_post_request_free(&back);
    uint8_t *e4 = malloc(l3 + 1);
    memcpy(e4, e3, l3);
    e4[l3] = 0;
    assert_int_equal(cz_fil_post_request_parse(&back, e4, l3 + 1, &err), CZ_ERR_FORMAT);
    free(e4);
    free(e3);
    free(e1);
    free(e2);
    free(bad);
    free(vb);
    cz_fil_post_request_free(&req);
    cz_fil_post_replica_free(&r);
}

/* A 32GiB-shaped (Sub) and 64GiB-shaped (Top) proof of random values: the
 * reader and writer of the production shapes (9 base levels). */
static void fill_path(cz_fil_path *p, size_t len, unsigned arity) {
    p->len = len;
    p->elems = calloc(len, sizeof *p->elems);
    for (size_t l = 0; l < len; l++) {
        p->elems[l].nhashes = arity - 1;
        p->elems[l].hashes = malloc((arity - 1) * 32);
        cz_rng_bytes(p->elems[l].hashes, (arity - 1) * 32);
        p->elems[l].index = (unsigned)(cz_rng_u64() % arity);
    }
}

static void test_bincode_large_shapes(void **state) {
    (void)state;
    static const unsigned ids[2] = { 8, 4 };
    for (int k = 0; k < 2; k++) {
        const cz_fil_post_proof *p = cz_fil_post_proof_by_id(ids[k]);
        cz_fil_post_vanilla v;
        memset(&v, 0, sizeof v);
        v.sector_id = cz_rng_u64();
        cz_rng_bytes(v.comm_r.b, 32);
        v.nsectors = 1;
        v.sectors = calloc(1, sizeof *v.sectors);
        cz_fil_post_sector_proof *sp = v.sectors;
        sp->ninclusion = p->config_challenge_count;
        sp->inclusion_proofs = calloc(sp->ninclusion, sizeof *sp->inclusion_proofs);
        for (size_t i = 0; i < sp->ninclusion; i++) {
            cz_fil_merkle_proof *mp = &sp->inclusion_proofs[i];
            mp->kind = p->tree_top_arity ? CZ_FIL_PROOF_TOP : CZ_FIL_PROOF_SUB;
            cz_rng_bytes(mp->root.b, 32);
            cz_rng_bytes(mp->leaf.b, 32);
            fill_path(&mp->base, 9, 8);
            fill_path(&mp->sub, 1, 8);
            if (p->tree_top_arity) fill_path(&mp->top, 1, 2);
        }
        uint8_t *b;
        size_t l;
        assert_int_equal(cz_fil_post_vanilla_encode(&v, &b, &l), CZ_OK);
        size_t per = 4 + 64 + 8 + 9 * (8 + 7 * 32 + 8) + 8 + (8 + 7 * 32 + 8) + (p->tree_top_arity ? 8 + 8 + 32 + 8 : 0);
        assert_int_equal(l, 56 + sp->ninclusion * per + 64);
        cz_fil_post_vanilla back;
        cz_errbuf err = { { 0 } };
        assert_int_equal(cz_fil_post_vanilla_parse(&back, p, b, l, &err), CZ_OK);
        assert_true(cz_fil_post_vanilla_equal(&back, &v));
        cz_fil_post_vanilla_free(&back);
        /* the sub path of the first proof, truncated */
        size_t at = 56 + 4 + 8 + 9 * (8 + 7 * 32 + 8) + 8 + 8 + 40;
        assert_int_equal(cz_fil_post_vanilla_parse(&back, p, b, at, &err), CZ_ERR_FORMAT);
        char want[128];
        snprintf(want, sizeof want, "inclusion_proofs[0].data.%s.sub_proof.path[0].hashes[1] at byte %zu: truncated",
                 p->tree_top_arity ? "Top" : "Sub", at - 8);
        if (!strstr(err.msg, want)) fail_msg("%s", err.msg);
        cz_fil_post_vanilla_free(&v);
        free(b);
    }
}

int main(void) {
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_challenges),
        cmocka_unit_test(test_counts_reference_tests),
        cmocka_unit_test(test_counts_winning_32g),
        cmocka_unit_test(test_winning_2k),
        cmocka_unit_test(test_window_2k),
        cmocka_unit_test(test_sub_top_shapes),
        cmocka_unit_test(test_tampered),
        cmocka_unit_test(test_bincode),
        cmocka_unit_test(test_bincode_large_shapes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
