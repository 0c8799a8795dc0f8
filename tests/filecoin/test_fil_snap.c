/*
 * SnapDeals (EmptySectorUpdate) against rust-fil-proofs 19.1's own numbers:
 * - challenges.rs test_challenges_against_hardcoded: the first five
 *   challenges of Challenges::new for every allowed sector size and the
 *   partitions the test lists, comm_r_new = PoseidonDomain::random of
 *   XorShiftRng::from_seed(TEST_SEED);
 * - tests/circuit.rs test_empty_sector_update_circuit_{1,2,4,8,16,32}kib:
 *   the partition circuit's constraint counts (1,248,389 … 6,760,091);
 * - gadgets.rs tests: gen_challenge_bits 568 / 4544 / 5680 constraints,
 *   apex_por 317,654 for 8 apex leaves;
 * - a natively encoded update of the committed 2KiB sector (sealed in
 *   memory from tests/vectors/filecoin/porep-2k-v1.1) satisfies the
 *   circuit for every partition, with the public inputs of
 *   generate_public_inputs, and the native check accepts it; tampering
 *   makes both fail where expected;
 * - bincode PartitionProof and the request envelope: round trip, every
 *   truncation, wrong shapes, non-canonical values.
 */
#include "testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/fil_bp_num.h"
#include "cuzk/fil_poseidon.h"
#include "cuzk/fil_seal.h"
#include "cuzk/fil_snap.h"
#include "cuzk/r1cs_hash.h"
#include "regression_data.h"

/* storage-proofs-core TEST_SEED (= filecoin-proofs tests' TEST_SEED) */
static const uint8_t TEST_SEED[16] = { 0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d,
                                       0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5 };

/* ---- shared fixture: the 2KiB sector, sealed, then updated --------------------- */
static json_t *fixture;
static uint8_t *sealed;
static cz_fil_seal_result seal_res;
static cz_fil_snap_update upd;
static cz_fil_snap_request req;

static void fixture_hex(uint8_t out[32], const char *key) {
    const char *s = json_string_value(json_object_get(fixture, key));
    assert_non_null(s);
    for (int i = 0; i < 32; i++) {
        unsigned v;
        assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
}

/* deterministic "new data": 2032 bytes */
static void new_data(uint8_t *d, size_t n) {
    uint32_t x = 0x12345678u;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        d[i] = (uint8_t)(x >> 16);
    }
}

static int setup(void **state) {
    (void)state;
    json_error_t e;
    fixture = json_load_file(cz_vector_path("filecoin/porep-2k-v1.1/fixture.json"), 0, &e);
    if (!fixture) return -1;
    size_t len;
    uint8_t *piece = cz_read_file(cz_vector_path("filecoin/porep-2k-v1.1/piece.bin"), &len);
    if (!piece) return -1;
    cz_fil_seal_params sp;
    memset(&sp, 0, sizeof sp);
    sp.proof = cz_fil_seal_proof_by_name(json_string_value(json_object_get(fixture, "registered_proof")));
    fixture_hex(sp.prover_id, "prover_id_hex");
    fixture_hex(sp.ticket, "ticket_hex");
    fixture_hex(sp.seed, "seed_hex");
    sp.sector_id = (uint64_t)json_integer_value(json_object_get(fixture, "sector_id"));
    sealed = malloc(2048);
    sp.sealed_out = sealed;
    cz_errbuf err;
    cz_status st = cz_fil_seal(&sp, piece, len, NULL, &seal_res, NULL, &err);
    free(piece);
    if (st != CZ_OK) return -1;
    /* the sealed sector is the reference's: comm_r as in the fixture */
    uint8_t want[32];
    fixture_hex(want, "comm_r_hex");
    if (memcmp(want, seal_res.comm_r.b, 32)) return -1;
    uint8_t data[2032];
    new_data(data, sizeof data);
    st = cz_fil_snap_encode(&upd, cz_fil_snap_proof_by_id(0), sealed, &seal_res.comm_c, data, sizeof data, 0, NULL,
                            &err);
    if (st != CZ_OK) {
        fprintf(stderr, "encode: %s\n", err.msg);
        return -1;
    }
    st = cz_fil_snap_prove(&upd, &req, &err);
    if (st != CZ_OK) {
        fprintf(stderr, "prove: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    cz_fil_snap_request_free(&req);
    cz_fil_snap_update_free(&upd);
    free(sealed);
    json_decref(fixture);
    return 0;
}

/* ---- table ---------------------------------------------------------------------------- */
static void test_table(void **state) {
    (void)state;
    assert_int_equal(cz_fil_snap_proofs_count, 5);
    static const char *cids[5] = { "snap-2k", "snap-8m", "snap-512m", "snap-32g", "snap-64g" };
    static const unsigned parts[5] = { 1, 4, 16, 16, 16 }, chals[5] = { 10, 10, 86, 86, 86 };
    static const unsigned sub[5] = { 0, 0, 0, 8, 8 }, top[5] = { 0, 0, 0, 0, 2 };
    for (unsigned i = 0; i < 5; i++) {
        const cz_fil_snap_proof *p = cz_fil_snap_proof_by_id(i);
        assert_non_null(p);
        assert_int_equal(p->id, (int)i);
        assert_string_equal(p->circuit_id, cids[i]);
        assert_ptr_equal(cz_fil_snap_proof_by_name(cids[i]), p);
        assert_ptr_equal(cz_fil_snap_proof_by_name(p->name), p);
        assert_ptr_equal(cz_fil_snap_shape_by_size(p->sector_size), p);
        assert_int_equal(p->partitions, parts[i]);
        assert_int_equal(p->challenges, chals[i]);
        assert_int_equal(p->tree_sub_arity, sub[i]);
        assert_int_equal(p->tree_top_arity, top[i]);
        assert_int_equal(p->sector_nodes, p->sector_size / 32);
        assert_int_equal(1ull << p->challenge_bit_len, p->sector_nodes);
        assert_int_equal(p->h_default, i == 0 ? 1 : 10);
        uint64_t hs;
        assert_int_equal(cz_fil_snap_h_select(p, p->h_default, &hs), CZ_OK);
        assert_int_equal(hs, i == 0 ? 1 : 8);
    }
    assert_null(cz_fil_snap_proof_by_id(5));
    assert_ptr_equal(cz_fil_snap_proof_by_name("3"), cz_fil_snap_proof_by_id(3));
    assert_null(cz_fil_snap_proof_by_name("snap-1k"));
    assert_string_equal(cz_fil_snap_proof_by_id(3)->name, "StackedDrg32GiBV1");
    uint64_t v;
    assert_int_equal(cz_fil_snap_h_select(cz_fil_snap_proof_by_id(3), 13, &v), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_snap_k_and_h_select(cz_fil_snap_proof_by_id(3), 5, 10, &v), CZ_OK);
    assert_int_equal(v, 5 | (8 << 4));
}

/* ---- challenges.rs test_challenges_against_hardcoded --------------------------------- */
static void test_challenges_kat(void **state) {
    (void)state;
    cz_xorshift rng;
    cz_xorshift_from_seed(&rng, TEST_SEED);
    cz_fil_domain comm_r_new;
    cz_xorshift_fr_random_repr(&rng, comm_r_new.b);
    static const struct {
        uint64_t nodes;
        unsigned k;
        uint32_t c[5];
    } v[] = {
        { 1u << 5, 0, { 21, 7, 3, 31, 0 } },
        { 1u << 6, 0, { 53, 51, 56, 3, 0 } },
        { 1u << 7, 0, { 117, 25, 62, 0, 72 } },
        { 1u << 8, 0, { 245, 140, 15, 128, 28 } },
        { 1u << 9, 0, { 245, 140, 15, 128, 28 } },
        { 1u << 9, 1, { 286, 308, 493, 510, 508 } },
        { 1u << 10, 0, { 245, 454, 3, 400, 193 } },
        { 1u << 10, 1, { 542, 666, 955, 927, 911 } },
        { 1u << 18, 0, { 36085, 32783, 44060, 10950, 3731 } },
        { 1u << 18, 1, { 78878, 130797, 112892, 93994, 78379 } },
        { 1u << 19, 0, { 101621, 16391, 109319, 25944, 41193 } },
        { 1u << 19, 1, { 209950, 163702, 175679, 224741, 197410 } },
        { 1u << 24, 0, { 1019125, 116736, 706220, 59698, 799498 } },
        { 1u << 24, 1, { 2092548, 1213276, 1185483, 1164598, 1095197 } },
        { 1u << 24, 14, { 15212432, 15665918, 15015423, 15012912, 15495223 } },
        { 1u << 24, 15, { 16388544, 15794686, 16637142, 16319148, 16328348 } },
        { 1u << 30, 0, { 1019125, 27985696, 15282860, 11586600, 44651330 } },
        { 1u << 30, 1, { 109168525, 127316247, 80331041, 97065716, 72310052 } },
        { 1u << 30, 14, { 990420169, 955146989, 968005601, 976863263, 944650706 } },
        { 1u << 30, 15, { 1038629497, 1053983614, 1030421316, 1027373887, 1068685433 } },
        { 1u << 31, 0, { 1019125, 13992848, 3820715, 18225541, 57316660 } },
        { 1u << 31, 1, { 243386253, 197875851, 204632136, 171516766, 247789010 } },
        { 1u << 31, 14, { 1997053129, 1920414070, 2003609080, 1900492803, 1963254685 } },
        { 1u << 31, 15, { 2045262457, 2036941247, 2136653521, 2091356007, 2147167623 } },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        const cz_fil_snap_proof *p = cz_fil_snap_shape_by_size(v[i].nodes * 32);
        assert_non_null(p);
        uint32_t c[CZ_FIL_SNAP_MAX_CHALLENGES];
        assert_int_equal(cz_fil_snap_challenges(p, &comm_r_new, v[i].k, c), CZ_OK);
        for (int j = 0; j < 5; j++)
            if (c[j] != v[i].c[j])
                fail_msg("sector_nodes %llu, k %u: challenge %d = %u, reference %u", (unsigned long long)v[i].nodes,
                         v[i].k, j, c[j], v[i].c[j]);
        /* every challenge lies in the partition's slice */
        for (unsigned j = 0; j < p->challenges; j++)
            assert_int_equal(c[j] >> (p->challenge_bit_len - p->partition_bit_len), v[i].k);
    }
    assert_int_equal(cz_fil_snap_challenges(cz_fil_snap_proof_by_id(0), &comm_r_new, 1, (uint32_t[10]){ 0 }),
                     CZ_ERR_INVALID_ARG);
}

/* ---- counts ------------------------------------------------------------------------------ */
static void count_blank(const cz_fil_snap_proof *p, cz_r1cs_fingerprint *f) {
    cz_fil_snap_circuit ctx = { p, NULL, 0, 0 };
    assert_int_equal(cz_r1cs_count_stream(cz_fil_snap_synth, &ctx, f), CZ_OK);
}

/* tests/circuit.rs: cs.num_constraints() of the partition circuit */
static void test_counts_small(void **state) {
    (void)state;
    static const struct {
        uint64_t bytes;
        uint64_t constraints;
    } v[] = { { 1024, 1248389 }, { 2048, 1705039 }, { 4096, 2165109 }, { 8192, 2620359 },
              { 16384, 6300021 }, { 32768, 6760091 } };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        cz_r1cs_fingerprint f;
        count_blank(cz_fil_snap_shape_by_size(v[i].bytes), &f);
        if (f.constraints != v[i].constraints)
            fail_msg("%llu-byte sector: %llu constraints, reference %llu", (unsigned long long)v[i].bytes,
                     (unsigned long long)f.constraints, (unsigned long long)v[i].constraints);
        assert_int_equal(f.inputs, 5); /* ONE + k_and_h_select, comm_r_old, comm_d_new, comm_r_new */
        print_message("snap %llu B: %llu constraints, %llu aux\n", (unsigned long long)v[i].bytes,
                      (unsigned long long)f.constraints, (unsigned long long)f.aux);
    }
}

/* gadgets.rs test_gen_challenge_bits_gadget / test_apex_por_gadget_small_sector_sizes */
typedef struct {
    const cz_fil_snap_proof *p;
    int which;
    size_t before;
} gadget_ctx;

static cz_status gadget_synth(cz_cs *cs, const void *vp) {
    gadget_ctx *g = (gadget_ctx *)(uintptr_t)vp;
    const cz_fil_snap_proof *p = g->p;
    cz_fr z = CZ_FR_ZERO;
    if (g->which == 0) {
        cz_bp_num comm, k;
        cz_bp_num_alloc(cs, &comm, &z);
        cz_bp_num_alloc(cs, &k, &z);
        g->before = cz_cs_num_constraints(cs);
        cz_bp_abit *bits = malloc(sizeof *bits * p->challenges * p->challenge_bit_len);
        cz_bp_snap_gen_challenge_bits(cs, bits, &comm, &k, p->challenges, p->challenge_bit_len - p->partition_bit_len);
        free(bits);
    } else {
        cz_bp_num comm_d, leaves[8];
        cz_bp_num_alloc(cs, &comm_d, &z);
        for (int i = 0; i < 8; i++) cz_bp_num_alloc(cs, &leaves[i], &z);
        g->before = cz_cs_num_constraints(cs);
        cz_bp_snap_apex_por(cs, leaves, 8, NULL, NULL, 0, &comm_d);
    }
    return cz_cs_status(cs);
}

static void test_gadget_counts(void **state) {
    (void)state;
    static const struct {
        uint64_t bytes;
        size_t n;
    } v[] = { { 2048, 568 }, { 32768, 568 }, { 8u << 20, 568 }, { 16u << 20, 568 }, { 512u << 20, 4544 },
              { 32ull << 30, 5680 }, { 64ull << 30, 5680 } };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        gadget_ctx g = { cz_fil_snap_shape_by_size(v[i].bytes), 0, 0 };
        cz_r1cs_fingerprint f;
        assert_int_equal(cz_r1cs_count_stream(gadget_synth, &g, &f), CZ_OK);
        assert_int_equal(f.constraints - g.before, v[i].n);
    }
    gadget_ctx g = { cz_fil_snap_shape_by_size(2048), 1, 0 };
    cz_r1cs_fingerprint f;
    assert_int_equal(cz_r1cs_count_stream(gadget_synth, &g, &f), CZ_OK);
    assert_int_equal(f.constraints - g.before, 317654);
}

/* gen_challenge_bits computes the challenges of challenges.rs (the
 * reference test zips the two). */
typedef struct {
    const cz_fil_snap_proof *p;
    const cz_fil_domain *comm;
    unsigned k;
    uint32_t got[CZ_FIL_SNAP_MAX_CHALLENGES];
} genv_ctx;

static cz_status genv_synth(cz_cs *cs, const void *vp) {
    genv_ctx *g = (genv_ctx *)(uintptr_t)vp;
    const cz_fil_snap_proof *p = g->p;
    cz_fr c, k;
    assert_int_equal(cz_fil_domain_to_fr(&c, g->comm), CZ_OK);
    cz_fr_from_u64(&k, g->k);
    cz_bp_num comm, kn;
    cz_bp_num_alloc(cs, &comm, &c);
    cz_bp_num_alloc(cs, &kn, &k);
    unsigned rb = p->challenge_bit_len - p->partition_bit_len;
    cz_bp_abit *bits = malloc(sizeof *bits * p->challenges * rb);
    cz_bp_snap_gen_challenge_bits(cs, bits, &comm, &kn, p->challenges, rb);
    for (unsigned i = 0; i < p->challenges; i++) {
        uint32_t v = 0;
        for (unsigned b = 0; b < rb; b++) v |= (uint32_t)bits[i * rb + b].value << b;
        g->got[i] = v | (g->k << rb);
    }
    free(bits);
    return cz_cs_status(cs);
}

static void test_gen_challenge_bits_values(void **state) {
    (void)state;
    cz_xorshift rng;
    cz_xorshift_from_seed(&rng, TEST_SEED);
    cz_fil_domain comm;
    cz_xorshift_fr_random_repr(&rng, comm.b);
    static const uint64_t sizes[] = { 2048, 16384, 8u << 20, 32ull << 30 };
    for (size_t i = 0; i < 4; i++) {
        const cz_fil_snap_proof *p = cz_fil_snap_shape_by_size(sizes[i]);
        for (unsigned k = 0; k < p->partitions; k += p->partitions > 2 ? 5 : 1) {
            genv_ctx g = { p, &comm, k, { 0 } };
            assert_int_equal(cz_cs_check(genv_synth, &g, NULL), CZ_OK);
            uint32_t want[CZ_FIL_SNAP_MAX_CHALLENGES];
            assert_int_equal(cz_fil_snap_challenges(p, &comm, k, want), CZ_OK);
            assert_memory_equal(g.got, want, p->challenges * sizeof *want);
        }
    }
}

/* ---- the 2KiB update: native check, satisfaction, public inputs ---------------------- */
static void test_encode_2k(void **state) {
    (void)state;
    /* the old side is the sealed sector */
    assert_memory_equal(upd.comm_r_last_old.b, seal_res.comm_r_last.b, 32);
    assert_memory_equal(upd.comm_r_old.b, seal_res.comm_r.b, 32);
    /* decoding inverts encoding: data = (new − old) / rho */
    cz_fr rho[2];
    assert_int_equal(cz_fil_snap_rho(&rho[0], &upd.phi, 0), CZ_OK);
    assert_int_equal(cz_fil_snap_rho(&rho[1], &upd.phi, 1), CZ_OK);
    for (unsigned i = 0; i < 64; i++) {
        cz_fr o, n, d, want;
        assert_int_equal(cz_fr_from_bytes_le(&o, sealed + 32 * i), CZ_OK);
        assert_int_equal(cz_fr_from_bytes_le(&n, upd.new_replica + 32 * i), CZ_OK);
        assert_int_equal(cz_fil_domain_to_fr(&d, cz_fil_tree_leaf(&upd.tree_d_new, i)), CZ_OK);
        cz_fr_mul(&want, &d, &rho[i >> 5]);
        cz_fr_add(&want, &want, &o);
        assert_true(cz_fr_eq(&want, &n));
    }
    cz_errbuf err;
    assert_int_equal(cz_fil_snap_check(&req, &err), CZ_OK);
}

static void test_satisfied_2k(void **state) {
    (void)state;
    const cz_fil_snap_proof *p = req.proof;
    for (unsigned k = 0; k < p->partitions; k++) {
        cz_fil_snap_circuit ctx = { p, &req, k, 0 };
        cz_check_report rep;
        cz_status st = cz_cs_check(cz_fil_snap_synth, &ctx, &rep);
        if (st != CZ_OK) fail_msg("partition %u: %s at %s", k, cz_status_str(st), rep.where);
        assert_int_equal(rep.n_inputs, 5);
        /* the witness's public inputs are generate_public_inputs' */
        cz_witness w;
        assert_int_equal(cz_witness_generate(&w, cz_fil_snap_synth, &ctx, NULL), CZ_OK);
        cz_fr pub[4];
        size_t n;
        cz_errbuf err;
        assert_int_equal(cz_fil_snap_public_inputs(&req, k, pub, 4, &n, &err), CZ_OK);
        assert_int_equal(n, 4);
        assert_int_equal(w.n_inputs, 5);
        for (int i = 0; i < 4; i++) assert_true(cz_fr_eq(&w.inputs[1 + i], &pub[i]));
        cz_fr one;
        cz_fr_from_u64(&one, 1); /* k_and_h_select = 0 | h_select 1 */
        assert_true(cz_fr_eq(&pub[0], &one));
        /* the recording with values is the blank circuit's R1CS */
        cz_pce *blank, *full;
        cz_fil_snap_circuit bctx = { p, NULL, k, 0 };
        cz_witness w2;
        assert_int_equal(cz_pce_record(&blank, cz_fil_snap_synth, &bctx, NULL), CZ_OK);
        assert_int_equal(cz_pce_record(&full, cz_fil_snap_synth, &ctx, &w2), CZ_OK);
        assert_memory_equal(blank->circuit_hash, full->circuit_hash, 32);
        assert_int_equal(blank->n_circuit_constraints, 1705039);
        uint64_t row;
        assert_int_equal(cz_pce_is_satisfied(blank, &w, &row), CZ_OK);
        cz_pce_free(blank);
        cz_pce_free(full);
        cz_witness_free(&w2);
        cz_witness_free(&w);
    }
}

/* A deep copy of the request (through the bincode round trip). */
static void copy_request(cz_fil_snap_request *out) {
    uint8_t *buf;
    size_t len;
    assert_int_equal(cz_fil_snap_request_encode(&req, &buf, &len), CZ_OK);
    cz_errbuf err;
    assert_int_equal(cz_fil_snap_request_parse(out, buf, len, &err), CZ_OK);
    free(buf);
}

static void expect_unsat(const cz_fil_snap_request *r, const char *where) {
    cz_fil_snap_circuit ctx = { r->proof, r, 0, 0 };
    cz_check_report rep;
    cz_status st = cz_cs_check(cz_fil_snap_synth, &ctx, &rep);
    assert_int_equal(st, CZ_ERR_UNSATISFIED);
    if (!strstr(rep.where, where)) fail_msg("unsatisfied at %s, expected %s", rep.where, where);
}

static void test_tamper_2k(void **state) {
    (void)state;
    cz_errbuf err;
    cz_fil_snap_request t;
    /* a data leaf */
    copy_request(&t);
    t.partitions[0].challenges[3].proof_d_new.leaf.b[0] ^= 1;
    expect_unsat(&t, "c_index=3");
    assert_int_equal(cz_fil_snap_check(&t, &err), CZ_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "challenge 3"));
    /* witness mode refuses a leaf that breaks the encoding (the reference asserts) */
    cz_fil_snap_circuit ctx = { t.proof, &t, 0, 0 };
    cz_witness w;
    assert_int_equal(cz_witness_generate(&w, cz_fil_snap_synth, &ctx, NULL), CZ_ERR_MISMATCH);
    cz_fil_snap_request_free(&t);
    /* comm_r_new */
    copy_request(&t);
    t.comm_r_new.b[0] ^= 1;
    expect_unsat(&t, "enforce comm_r_new_calc == comm_r_new");
    assert_int_equal(cz_fil_snap_check(&t, &err), CZ_ERR_MISMATCH);
    cz_fil_snap_request_free(&t);
    /* a tree R old sibling */
    copy_request(&t);
    t.partitions[0].challenges[5].proof_r_old.base.elems[1].hashes[2].b[1] ^= 1;
    expect_unsat(&t, "por tree_r_old (c_index=5)");
    assert_int_equal(cz_fil_snap_check(&t, &err), CZ_ERR_MISMATCH);
    cz_fil_snap_request_free(&t);
    /* an apex leaf */
    copy_request(&t);
    t.partitions[0].apex_leafs[2].b[4] ^= 1;
    expect_unsat(&t, "apex_gadget");
    assert_int_equal(cz_fil_snap_check(&t, &err), CZ_ERR_MISMATCH);
    cz_fil_snap_request_free(&t);
}

/* h: the public input k_and_h_select with another h_select. For sectors up
 * to 32KiB every hs is 1, so a different one-hot h_select is the same h;
 * two bits set (forbidden) doubles c_high. Patch the honest witness's input
 * and its decomposition consistently: the gadget selecting c_high fails. */
static void test_tamper_h_2k(void **state) {
    (void)state;
    cz_fil_snap_circuit ctx = { req.proof, &req, 0, 0 };
    cz_witness w;
    assert_int_equal(cz_witness_generate(&w, cz_fil_snap_synth, &ctx, NULL), CZ_OK);
    cz_fr three, one;
    cz_fr_from_u64(&three, 3);
    cz_fr_from_u64(&one, 1);
    w.inputs[1] = three; /* k_and_h_select */
    w.aux[0] = three;    /* its AllocatedNum */
    w.aux[2] = one;      /* k_and_h_select_bit_1 */
    cz_check_report rep;
    assert_int_equal(cz_cs_check_witness(cz_fil_snap_synth, &ctx, &w, &rep), CZ_ERR_UNSATISFIED);
    assert_non_null(strstr(rep.where, "c_high_or_zero"));
    cz_witness_free(&w);
    /* an h the sector size does not allow */
    cz_fil_snap_circuit bad = { req.proof, &req, 0, 10 };
    assert_int_equal(cz_cs_check(cz_fil_snap_synth, &bad, NULL), CZ_ERR_INVALID_ARG);
    cz_fr pub[4];
    size_t n;
    cz_errbuf err;
    assert_int_equal(cz_fil_snap_public_inputs_h(&req, 0, 10, pub, 4, &n, &err), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_snap_check_h(&req, 10, &err), CZ_ERR_INVALID_ARG);
}

/* ---- a 32KiB update (test-only size of the reference: 2 partitions, tree R
 * 8-8-2 = Top proofs, 128 apex leaves, a partition path): random old
 * replica and comm_c as storage-proofs-update tests/circuit.rs makes them,
 * new data from new_data(). Partition 1 always; partition 0 too outside
 * the sanitizers (6.76M constraints each). */
static void test_satisfied_32k_partitions(void **state) {
    (void)state;
    const cz_fil_snap_proof *p = cz_fil_snap_shape_by_size(32768);
    assert_non_null(p);
    cz_xorshift rng;
    cz_xorshift_from_seed(&rng, TEST_SEED);
    uint8_t *old = malloc(32768);
    for (unsigned i = 0; i < 1024; i++) cz_xorshift_fr_random_repr(&rng, old + 32 * i);
    cz_fil_domain comm_c;
    cz_xorshift_fr_random_repr(&rng, comm_c.b);
    uint8_t *data = malloc(32512);
    new_data(data, 32512);
    cz_fil_snap_update u;
    cz_fil_snap_request r;
    cz_errbuf err;
    assert_int_equal(cz_fil_snap_encode(&u, p, old, &comm_c, data, 32512, 0, NULL, &err), CZ_OK);
    assert_int_equal(cz_fil_snap_prove(&u, &r, &err), CZ_OK);
    assert_int_equal(r.partitions[1].challenges[0].proof_r_new.kind, CZ_FIL_PROOF_TOP);
    if (cz_fil_snap_check(&r, &err) != CZ_OK) fail_msg("%s", err.msg);
    /* bincode round trip of the Top shape */
    uint8_t *b;
    size_t bl;
    assert_int_equal(cz_fil_snap_partition_to_bincode(&r.partitions[1], p, &b, &bl), CZ_OK);
    cz_fil_snap_partition_proof pp;
    assert_int_equal(cz_fil_snap_partition_from_bincode(&pp, p, b, bl, &err), CZ_OK);
    uint8_t *b2;
    size_t bl2;
    assert_int_equal(cz_fil_snap_partition_to_bincode(&pp, p, &b2, &bl2), CZ_OK);
    assert_int_equal(bl, bl2);
    assert_memory_equal(b, b2, bl);
    free(b);
    free(b2);
    cz_fil_snap_partition_free(&pp);
#ifdef CUZK_SANITIZED
    unsigned first = 1;
#else
    unsigned first = 0;
#endif
    for (unsigned k = first; k < p->partitions; k++) {
        cz_fil_snap_circuit ctx = { p, &r, k, 0 };
        cz_check_report rep;
        cz_status st = cz_cs_check(cz_fil_snap_synth, &ctx, &rep);
        if (st != CZ_OK) fail_msg("partition %u: %s at %s", k, cz_status_str(st), rep.where);
        assert_int_equal(rep.n_constraints - rep.n_inputs, 6760091);
    }
    /* partition 1's proofs do not prove partition 0 */
    cz_fil_snap_partition_proof tmp = r.partitions[0];
    r.partitions[0] = r.partitions[1];
    r.partitions[1] = tmp;
    assert_int_equal(cz_fil_snap_check(&r, &err), CZ_ERR_MISMATCH);
    cz_fil_snap_circuit ctx = { p, &r, 1, 0 };
    assert_int_equal(cz_cs_check(cz_fil_snap_synth, &ctx, NULL), CZ_ERR_UNSATISFIED);
    cz_fil_snap_request_free(&r);
    cz_fil_snap_update_free(&u);
    free(old);
    free(data);
}

/* ---- bincode and the envelope --------------------------------------------------------------- */
static void test_bincode_roundtrip(void **state) {
    (void)state;
    const cz_fil_snap_proof *p = req.proof;
    uint8_t *buf;
    size_t len;
    assert_int_equal(cz_fil_snap_partition_to_bincode(&req.partitions[0], p, &buf, &len), CZ_OK);
    /* comm_c ‖ 8 apex leaves ‖ 10 × (two Single tree R proofs of 2 levels ×
     * 7 siblings, one tree D proof of 6 levels × 1 sibling) */
    size_t tree_r = 4 + 64 + 8 + 2 * (8 + 7 * 32 + 8), tree_d = 4 + 64 + 8 + 6 * (8 + 32 + 8);
    assert_int_equal(len, 32 + 8 + 8 * 32 + 8 + 10 * (2 * tree_r + tree_d));
    assert_memory_equal(buf, req.partitions[0].comm_c.b, 32);
    assert_int_equal(buf[32], 8); /* u64 LE length of apex_leafs */
    cz_fil_snap_partition_proof pp;
    cz_errbuf err;
    assert_int_equal(cz_fil_snap_partition_from_bincode(&pp, p, buf, len, &err), CZ_OK);
    uint8_t *buf2;
    size_t len2;
    assert_int_equal(cz_fil_snap_partition_to_bincode(&pp, p, &buf2, &len2), CZ_OK);
    assert_int_equal(len2, len);
    assert_memory_equal(buf, buf2, len);
    free(buf2);
    cz_fil_snap_partition_free(&pp);
    /* truncation at every length */
    for (size_t n = 0; n < len; n++) {
        cz_status st = cz_fil_snap_partition_from_bincode(&pp, p, buf, n, &err);
        if (st != CZ_ERR_FORMAT) fail_msg("truncated to %zu: %s", n, cz_status_str(st));
        assert_non_null(strstr(err.msg, "truncated"));
        assert_non_null(strstr(err.msg, "at byte"));
    }
    /* trailing bytes */
    uint8_t *longer = malloc(len + 1);
    memcpy(longer, buf, len);
    longer[len] = 0;
    assert_int_equal(cz_fil_snap_partition_from_bincode(&pp, p, longer, len + 1, &err), CZ_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "trailing"));
    free(longer);
    /* wrong apex count, wrong variant, non-canonical comm_c */
    buf[32] = 9;
    assert_int_equal(cz_fil_snap_partition_from_bincode(&pp, p, buf, len, &err), CZ_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "apex_leafs at byte 32"));
    buf[32] = 8;
    size_t variant_at = 32 + 8 + 8 * 32 + 8;
    buf[variant_at] = 1;
    assert_int_equal(cz_fil_snap_partition_from_bincode(&pp, p, buf, len, &err), CZ_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "challenge_proofs[0].proof_r_old"));
    buf[variant_at] = 0;
    uint8_t save[32];
    memcpy(save, buf, 32);
    memset(buf, 0xff, 32);
    assert_int_equal(cz_fil_snap_partition_from_bincode(&pp, p, buf, len, &err), CZ_ERR_NOT_CANONICAL);
    assert_non_null(strstr(err.msg, "comm_c"));
    memcpy(buf, save, 32);
    /* a huge length does not allocate: refused as the wrong shape */
    memset(buf + 32, 0xff, 8);
    assert_int_equal(cz_fil_snap_partition_from_bincode(&pp, p, buf, len, &err), CZ_ERR_FORMAT);
    free(buf);
}

static void test_request_envelope(void **state) {
    (void)state;
    uint8_t *buf;
    size_t len;
    assert_int_equal(cz_fil_snap_request_encode(&req, &buf, &len), CZ_OK);
    assert_memory_equal(buf, "CZSNAPRQ", 8);
    cz_fil_snap_request r;
    cz_errbuf err;
    assert_int_equal(cz_fil_snap_request_parse(&r, buf, len, &err), CZ_OK);
    assert_ptr_equal(r.proof, req.proof);
    assert_memory_equal(r.comm_r_new.b, req.comm_r_new.b, 32);
    assert_int_equal(cz_fil_snap_check(&r, &err), CZ_OK);
    cz_fil_snap_request_free(&r);
    for (size_t n = 0; n < len; n++) {
        cz_status st = cz_fil_snap_request_parse(&r, buf, n, &err);
        if (st != CZ_ERR_FORMAT) fail_msg("truncated to %zu: %s", n, cz_status_str(st));
    }
    /* partition count */
    size_t np_at = 8 + 4 + 4 + 96;
    buf[np_at] = 2;
    assert_int_equal(cz_fil_snap_request_parse(&r, buf, len, &err), CZ_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "npartitions"));
    buf[np_at] = 1;
    /* a commitment that is not a canonical Fr */
    uint8_t save = buf[16 + 31];
    buf[16 + 31] = 0xff;
    assert_int_equal(cz_fil_snap_request_parse(&r, buf, len, &err), CZ_ERR_NOT_CANONICAL);
    assert_non_null(strstr(err.msg, "comm_r_old"));
    buf[16 + 31] = save;
    /* registered proof of another size: the partition proof has the wrong shape */
    buf[12] = 1;
    assert_int_equal(cz_fil_snap_request_parse(&r, buf, len, &err), CZ_ERR_FORMAT);
    buf[12] = 7;
    assert_int_equal(cz_fil_snap_request_parse(&r, buf, len, &err), CZ_ERR_FORMAT);
    buf[12] = 0;
    buf[0] = 'X';
    assert_int_equal(cz_fil_snap_request_parse(&r, buf, len, &err), CZ_ERR_FORMAT);
    buf[0] = 'C';
    /* from Curio's parts */
    uint8_t *pb;
    size_t pl;
    assert_int_equal(cz_fil_snap_partition_to_bincode(&req.partitions[0], req.proof, &pb, &pl), CZ_OK);
    const uint8_t *parts[1] = { pb };
    assert_int_equal(cz_fil_snap_request_from_parts(&r, 0, req.comm_r_old.b, req.comm_r_new.b, req.comm_d_new.b, parts,
                                                    &pl, 1, &err),
                     CZ_OK);
    assert_int_equal(cz_fil_snap_check(&r, &err), CZ_OK);
    cz_fil_snap_request_free(&r);
    assert_int_equal(cz_fil_snap_request_from_parts(&r, 0, req.comm_r_old.b, req.comm_r_new.b, req.comm_d_new.b, parts,
                                                    &pl, 0, &err),
                     CZ_ERR_FORMAT);
    assert_int_equal(cz_fil_snap_request_from_parts(&r, 9, req.comm_r_old.b, req.comm_r_new.b, req.comm_d_new.b, parts,
                                                    &pl, 1, &err),
                     CZ_ERR_INVALID_ARG);
    free(pb);
    free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_challenges_kat),
        cmocka_unit_test(test_counts_small),
        cmocka_unit_test(test_gadget_counts),
        cmocka_unit_test(test_gen_challenge_bits_values),
        cmocka_unit_test(test_encode_2k),
        cmocka_unit_test(test_satisfied_2k),
        cmocka_unit_test(test_tamper_2k),
        cmocka_unit_test(test_tamper_h_2k),
        cmocka_unit_test(test_satisfied_32k_partitions),
        cmocka_unit_test(test_bincode_roundtrip),
        cmocka_unit_test(test_request_envelope),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
