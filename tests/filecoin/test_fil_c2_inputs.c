/*
 * PoRep C2 public inputs, bellperson's .vk reader, verification of the
 * reference's 2KiB C2 proof, and Filecoin parameter-file identity.
 *
 * Independent answers used:
 * - tests/vectors/filecoin/porep-2k-v1.1/fixture.json
 *   public_inputs_per_partition: the 39 inputs rust-fil-proofs derived;
 * - random-params.vk + proof.bin: bellperson's key and proof for them;
 * - the C1 output's own column indices (what the reference's vanilla
 *   prover opened for each parent);
 * - circuits.json: public-input counts per circuit;
 * - parameters.json's file names (the table) for the identifiers' SHA-256;
 * - OpenSSL's BLAKE2b-512 for the digest.
 */
#include "filtest.h"

#include "cuzk/fil_challenge.h"
#include "cuzk/fil_params.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIR "filecoin/porep-2k-v1.1/"

static void load_c1(cz_fil_c1 *c1, const char *rel) {
    cz_errbuf e = {{0}};
    cz_status st = cz_fil_c1_read_file(c1, cz_vector_path(rel), &e);
    if (st != CZ_OK) fprintf(stderr, "c1: %s\n", e.msg);
    assert_int_equal(st, CZ_OK);
}

/* fixture.json public_inputs_per_partition[0] as Fr. */
static size_t fixture_inputs(cz_fr *out, size_t cap) {
    json_t *f = fil_load_json(DIR "fixture.json");
    json_t *parts = json_object_get(f, "public_inputs_per_partition");
    assert_int_equal(json_array_size(parts), 1);
    json_t *p0 = json_array_get(parts, 0);
    size_t n = json_array_size(p0);
    assert_true(n <= cap);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(p0, i);
        uint8_t le[32];
        fil_unhex(le, json_string_value(json_object_get(v, "le_hex")), 32);
        assert_int_equal(cz_fr_from_bytes_le(&out[i], le), CZ_OK);
        cz_fr d;
        assert_int_equal(cz_fr_from_dec(&d, json_string_value(json_object_get(v, "dec"))), CZ_OK);
        assert_true(cz_fr_eq(&d, &out[i]));
    }
    json_decref(f);
    return n;
}

/* ---- public inputs ---------------------------------------------------------------- */

static void test_inputs_match_fixture(void **state) {
    (void)state;
    cz_fr want[64], got[64];
    size_t nw = fixture_inputs(want, 64);
    assert_int_equal(nw, 39);
    static const char *const files[] = {DIR "c1.json", DIR "c1-curio.json"};
    for (size_t f = 0; f < 2; f++) {
        cz_fil_c1 c1;
        load_c1(&c1, files[f]);
        assert_int_equal(cz_fil_porep_public_input_count(c1.registered_proof), 39);
        size_t n = 0;
        cz_errbuf e = {{0}};
        assert_int_equal(cz_fil_porep_public_inputs(&c1, 0, got, 64, &n, &e), CZ_OK);
        assert_int_equal(n, nw);
        for (size_t i = 0; i < n; i++) {
            if (!cz_fr_eq(&got[i], &want[i])) fprintf(stderr, "input %zu differs (%s)\n", i, files[f]);
            assert_true(cz_fr_eq(&got[i], &want[i]));
        }
        /* partition 1 does not exist; too small an output is refused */
        assert_int_equal(cz_fil_porep_public_inputs(&c1, 1, got, 64, &n, &e), CZ_ERR_INVALID_ARG);
        assert_int_equal(n, 0);
        assert_int_equal(cz_fil_porep_public_inputs(&c1, 0, got, 38, &n, &e), CZ_ERR_INVALID_ARG);
        cz_fil_c1_free(&c1);
    }
}

/* The C1 vanilla proofs opened, for each challenge, the comm_d leaf, the
 * 14 parents' columns, the replica leaf and the challenge's column: their
 * indices are the inclusion inputs, independently of cuzk's graph. */
static uint64_t path_index(const cz_fil_path *p, unsigned arity) {
    uint64_t x = 0;
    for (size_t i = p->len; i-- > 0;) x = x * arity + p->elems[i].index;
    return x;
}

static void test_inputs_match_c1_openings(void **state) {
    (void)state;
    cz_fil_c1 c1;
    load_c1(&c1, DIR "c1.json");
    cz_fr got[64], v;
    size_t n = 0;
    assert_int_equal(cz_fil_porep_public_inputs(&c1, 0, got, 64, &n, NULL), CZ_OK);
    const cz_fil_partition_proofs *pp = &c1.partitions[0];
    assert_int_equal(pp->nchallenges, 2);
    for (size_t c = 0; c < pp->nchallenges; c++) {
        const cz_fil_vanilla_proof *vp = &pp->proofs[c];
        const cz_fr *in = &got[3 + 18 * c];
        uint64_t ch = vp->c_x.column.index;
        cz_fr_from_u64(&v, path_index(&vp->comm_d_proofs.base, 2));
        assert_true(cz_fr_eq(&in[0], &v));
        for (unsigned j = 0; j < 6; j++) {
            cz_fr_from_u64(&v, vp->drg_parents[j].column.index);
            assert_true(cz_fr_eq(&in[1 + j], &v));
        }
        for (unsigned j = 0; j < 8; j++) {
            cz_fr_from_u64(&v, vp->exp_parents[j].column.index);
            assert_true(cz_fr_eq(&in[7 + j], &v));
        }
        cz_fr_from_u64(&v, ch);
        assert_true(cz_fr_eq(&in[15], &v));
        cz_fr_from_u64(&v, path_index(&vp->comm_r_last_proof.base, 8));
        assert_true(cz_fr_eq(&in[16], &v));
        cz_fr_from_u64(&v, path_index(&vp->c_x.inclusion.base, 8));
        assert_true(cz_fr_eq(&in[17], &v));
    }
    cz_fil_c1_free(&c1);
}

/* circuits.json's public-input counts, for every registered proof. */
static void test_input_counts(void **state) {
    (void)state;
    json_t *cj = fil_load_json("filecoin/circuits.json");
    json_t *counts = json_object_get(cj, "counts");
    size_t checked = 0;
    for (size_t i = 0; i < cz_fil_seal_proofs_count; i++) {
        const cz_fil_seal_proof *p = &cz_fil_seal_proofs[i];
        for (size_t k = 0; k < json_array_size(counts); k++) {
            json_t *e = json_array_get(counts, k);
            if (strcmp(json_string_value(json_object_get(e, "circuit")), p->circuit_id) != 0) continue;
            assert_int_equal(cz_fil_porep_public_input_count(p),
                             json_integer_value(json_object_get(e, "public_inputs")));
            checked++;
        }
    }
    assert_int_equal(checked, cz_fil_seal_proofs_count); /* every PoRep size is listed */
    json_decref(cj);
}

/* A 32GiB partition (no C1 at hand): 327 inputs, laid out as the
 * reference's loop, for every challenge mechanism. */
static void test_inputs_32g_layout(void **state) {
    (void)state;
    static const unsigned ids[] = {8, 13, 18, 3};
    cz_fil_domain rid, cd, cr;
    uint8_t seed[32];
    memset(rid.b, 0x11, 32);
    rid.b[31] = 0x0a;
    memset(cd.b, 0x22, 32);
    cd.b[31] = 0x0b;
    memset(cr.b, 0x33, 32);
    cr.b[31] = 0x0c;
    memset(seed, 0x44, 32);
    cz_fr *in = malloc(400 * sizeof *in);
    assert_non_null(in);
    for (size_t t = 0; t < sizeof ids / sizeof ids[0]; t++) {
        const cz_fil_seal_proof *p = cz_fil_seal_proof_by_id(ids[t]);
        assert_non_null(p);
        unsigned k = p->partitions - 1;
        size_t n = 0;
        cz_errbuf e = {{0}};
        cz_status st = cz_fil_porep_public_inputs_ex(p, NULL, &rid, &cd, &cr, seed, k, in, 400, &n, &e);
        if (st != CZ_OK) fprintf(stderr, "%s: %s\n", p->name, e.msg);
        assert_int_equal(st, CZ_OK);
        assert_int_equal(n, 327);
        uint64_t ch[18];
        assert_int_equal(cz_fil_porep_challenges(ch, p, k, &rid, seed, &cr, NULL), CZ_OK);
        uint8_t porep_id[32];
        cz_fil_porep_id(porep_id, p);
        cz_fil_graph g;
        assert_int_equal(cz_fil_graph_init(&g, cz_fil_sector_nodes(p), porep_id, p->api), CZ_OK);
        cz_fr v;
        for (size_t c = 0; c < 18; c++) {
            const cz_fr *x = &in[3 + 18 * c];
            cz_fr_from_u64(&v, ch[c]);
            assert_true(cz_fr_eq(&x[0], &v) && cz_fr_eq(&x[15], &v) && cz_fr_eq(&x[16], &v) &&
                        cz_fr_eq(&x[17], &v));
            uint32_t par[14];
            assert_int_equal(cz_fil_graph_parents(&g, ch[c], par), CZ_OK);
            for (unsigned j = 0; j < 14; j++) {
                cz_fr_from_u64(&v, par[j]);
                assert_true(cz_fr_eq(&x[1 + j], &v));
            }
        }
        /* the same with the graph passed in */
        cz_fr *in2 = malloc(327 * sizeof *in2);
        assert_non_null(in2);
        assert_int_equal(cz_fil_porep_public_inputs_ex(p, &g, &rid, &cd, &cr, seed, k, in2, 327, &n, NULL),
                         CZ_OK);
        assert_memory_equal(in, in2, 327 * sizeof *in2);
        free(in2);
        cz_fil_graph_free(&g);
    }
    /* a non-canonical commitment is refused, with the field named */
    const cz_fil_seal_proof *p = cz_fil_seal_proof_by_id(8);
    cz_fil_domain bad;
    memset(bad.b, 0xff, 32);
    size_t n = 7;
    cz_errbuf e = {{0}};
    assert_int_equal(cz_fil_porep_public_inputs_ex(p, NULL, &rid, &cd, &bad, seed, 0, in, 400, &n, &e),
                     CZ_ERR_NOT_CANONICAL);
    assert_int_equal(n, 0);
    assert_non_null(strstr(e.msg, "comm_r"));
    /* a graph of another size is refused */
    cz_fil_graph small;
    uint8_t pid[32] = {0};
    assert_int_equal(cz_fil_graph_init(&small, 64, pid, CZ_FIL_API_1_1), CZ_OK);
    assert_int_equal(cz_fil_porep_public_inputs_ex(p, &small, &rid, &cd, &cr, seed, 0, in, 400, &n, NULL),
                     CZ_ERR_INVALID_ARG);
    cz_fr one[18];
    assert_int_equal(cz_fil_porep_challenge_inputs(&small, 64, one), CZ_ERR_INVALID_ARG);
    cz_fil_graph_free(&small);
    free(in);
}

/* ---- verifying key and proof -------------------------------------------------------- */

static void test_vk_read_roundtrip(void **state) {
    (void)state;
    size_t len;
    uint8_t *raw = cz_read_file(cz_vector_path(DIR "random-params.vk"), &len);
    assert_int_equal(len, 4708);
    assert_int_equal(cz_bp_vk_bytes(40), 4708);
    cz_groth16_vk vk;
    cz_errbuf e = {{0}};
    assert_int_equal(cz_bp_vk_read_file(&vk, cz_vector_path(DIR "random-params.vk"), &e), CZ_OK);
    assert_int_equal(vk.n_ic, 40);
    uint8_t *ser;
    size_t slen;
    assert_int_equal(cz_bp_vk_serialize(&vk, &ser, &slen), CZ_OK);
    assert_int_equal(slen, len);
    assert_memory_equal(ser, raw, len);
    free(ser);
    cz_bp_vk_free(&vk);
    cz_bp_vk_free(&vk); /* zeroed: no-op */

    /* truncated, trailing bytes, wrong count, bad point: each refused */
    assert_int_equal(cz_bp_vk_parse(&vk, raw, len - 1, &e), CZ_ERR_TRUNCATED);
    assert_int_equal(cz_bp_vk_parse(&vk, raw, 100, &e), CZ_ERR_TRUNCATED);
    uint8_t *big = malloc(len + 1);
    assert_non_null(big);
    memcpy(big, raw, len);
    big[len] = 0;
    assert_int_equal(cz_bp_vk_parse(&vk, big, len + 1, &e), CZ_ERR_FORMAT);
    memcpy(big, raw, len);
    big[CZ_BP_VK_FIXED_BYTES - 1] = 41; /* count 41 */
    assert_int_equal(cz_bp_vk_parse(&vk, big, len, &e), CZ_ERR_TRUNCATED);
    memcpy(big, raw, len);
    big[CZ_BP_VK_FIXED_BYTES + 96 * 7 + 95] ^= 1; /* ic[7].y */
    assert_int_not_equal(cz_bp_vk_parse(&vk, big, len, &e), CZ_OK);
    assert_non_null(strstr(e.msg, "ic[7]"));
    assert_null(vk.ic);
    memcpy(big, raw, len);
    big[96 + 50] ^= 0x10; /* beta_g1.x */
    assert_int_not_equal(cz_bp_vk_parse(&vk, big, len, &e), CZ_OK);
    assert_non_null(strstr(e.msg, "beta_g1"));
    /* the identity as alpha_g1 (bellperson would take it; cuzk refuses) */
    memcpy(big, raw, len);
    memset(big, 0, 96);
    big[0] = 0x40;
    assert_int_equal(cz_bp_vk_parse(&vk, big, len, &e), CZ_ERR_IDENTITY);
    assert_int_equal(cz_bp_vk_read_file(&vk, "/nonexistent/x.vk", &e), CZ_ERR_IO);
    assert_non_null(strstr(e.msg, "/nonexistent/x.vk"));
    free(big);
    free(raw);
}

typedef struct {
    cz_fil_c1 c1;
    cz_groth16_vk vk;
    uint8_t *proof;
    size_t proof_len;
} fixture;

static void fixture_load(fixture *f) {
    load_c1(&f->c1, DIR "c1.json");
    assert_int_equal(cz_bp_vk_read_file(&f->vk, cz_vector_path(DIR "random-params.vk"), NULL), CZ_OK);
    f->proof = cz_read_file(cz_vector_path(DIR "proof.bin"), &f->proof_len);
    assert_int_equal(f->proof_len, 192);
}

static void fixture_free(fixture *f) {
    cz_fil_c1_free(&f->c1);
    cz_bp_vk_free(&f->vk);
    free(f->proof);
}

static void test_reference_proof_verifies(void **state) {
    (void)state;
    fixture f;
    fixture_load(&f);
    cz_errbuf e = {{0}};
    unsigned bad = 0;
    cz_status st = cz_fil_porep_verify(&f.vk, &f.c1, f.proof, f.proof_len, &bad, &e);
    if (st != CZ_OK) fprintf(stderr, "verify: %s\n", e.msg);
    assert_int_equal(st, CZ_OK);
    assert_int_equal(bad, (unsigned)-1);
    /* the same through the plain verifier with the fixture's own inputs */
    cz_fr want[64];
    size_t n = fixture_inputs(want, 64);
    cz_groth16_pvk *pvk;
    assert_int_equal(cz_groth16_pvk_create(&pvk, &f.vk), CZ_OK);
    cz_groth16_proof pr;
    assert_int_equal(cz_groth16_proof_decode(&pr, f.proof, NULL), CZ_OK);
    assert_int_equal(cz_groth16_verify(pvk, &pr, want, n, NULL), CZ_OK);
    cz_groth16_pvk_free(pvk);
    fixture_free(&f);
}

static void test_tampered_inputs_fail(void **state) {
    (void)state;
    fixture f;
    fixture_load(&f);
    cz_fr in[39], one;
    size_t n;
    assert_int_equal(cz_fil_porep_public_inputs(&f.c1, 0, in, 39, &n, NULL), CZ_OK);
    cz_groth16_pvk *pvk;
    assert_int_equal(cz_groth16_pvk_create(&pvk, &f.vk), CZ_OK);
    cz_groth16_proof pr;
    assert_int_equal(cz_groth16_proof_decode(&pr, f.proof, NULL), CZ_OK);
    cz_fr_from_u64(&one, 1);
    /* every input matters: each one changed by +1 fails */
    for (size_t i = 0; i < n; i++) {
        cz_fr keep = in[i];
        cz_fr_add(&in[i], &in[i], &one);
        assert_int_equal(cz_groth16_verify(pvk, &pr, in, n, NULL), CZ_ERR_UNSATISFIED);
        in[i] = keep;
    }
    assert_int_equal(cz_groth16_verify(pvk, &pr, in, n, NULL), CZ_OK);
    assert_int_equal(cz_groth16_verify(pvk, &pr, in, n - 1, NULL), CZ_ERR_MISMATCH);
    cz_groth16_pvk_free(pvk);

    /* a changed seed changes the challenges: the C1-level check fails and
     * names the partition */
    cz_errbuf e = {{0}};
    unsigned bad = 99;
    f.c1.seed[0] ^= 1;
    assert_int_equal(cz_fil_porep_verify(&f.vk, &f.c1, f.proof, f.proof_len, &bad, &e), CZ_ERR_UNSATISFIED);
    assert_int_equal(bad, 0);
    assert_non_null(strstr(e.msg, "partition 0"));
    f.c1.seed[0] ^= 1;
    f.c1.comm_r.b[0] ^= 1;
    assert_int_equal(cz_fil_porep_verify(&f.vk, &f.c1, f.proof, f.proof_len, &bad, &e), CZ_ERR_UNSATISFIED);
    f.c1.comm_r.b[0] ^= 1;
    assert_int_equal(cz_fil_porep_verify(&f.vk, &f.c1, f.proof, f.proof_len, &bad, &e), CZ_OK);
    fixture_free(&f);
}

static void test_tampered_proof_fails(void **state) {
    (void)state;
    fixture f;
    fixture_load(&f);
    cz_errbuf e = {{0}};
    unsigned bad;
    /* a flipped bit anywhere in A, B or C: decoding or the pairing fails */
    static const size_t pos[] = {0, 5, 47, 48, 100, 143, 144, 170, 191};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
        for (unsigned bit = 0; bit < 8; bit += 3) {
            f.proof[pos[i]] ^= (uint8_t)(1u << bit);
            bad = 99;
            assert_int_not_equal(cz_fil_porep_verify(&f.vk, &f.c1, f.proof, f.proof_len, &bad, &e), CZ_OK);
            assert_int_equal(bad, 0);
            f.proof[pos[i]] ^= (uint8_t)(1u << bit);
        }
    }
    /* A and C swapped: valid points, wrong proof */
    uint8_t sw[192];
    memcpy(sw, f.proof + 144, 48);
    memcpy(sw + 48, f.proof + 48, 96);
    memcpy(sw + 144, f.proof, 48);
    assert_int_equal(cz_fil_porep_verify(&f.vk, &f.c1, sw, 192, &bad, &e), CZ_ERR_UNSATISFIED);
    /* wrong length */
    assert_int_equal(cz_fil_porep_verify(&f.vk, &f.c1, f.proof, 191, &bad, &e), CZ_ERR_MISMATCH);
    assert_int_equal(cz_fil_porep_verify(&f.vk, &f.c1, f.proof, f.proof_len, &bad, &e), CZ_OK);
    fixture_free(&f);
}

static void test_tampered_vk_fails(void **state) {
    (void)state;
    fixture f;
    fixture_load(&f);
    cz_errbuf e = {{0}};
    /* two ic points swapped: still a valid key, no longer this one */
    cz_g1_affine t = f.vk.ic[3];
    f.vk.ic[3] = f.vk.ic[4];
    f.vk.ic[4] = t;
    assert_int_equal(cz_fil_porep_verify(&f.vk, &f.c1, f.proof, f.proof_len, NULL, &e), CZ_ERR_UNSATISFIED);
    f.vk.ic[4] = f.vk.ic[3];
    f.vk.ic[3] = t;
    /* gamma and delta swapped */
    cz_g2_affine g2 = f.vk.gamma_g2;
    f.vk.gamma_g2 = f.vk.delta_g2;
    f.vk.delta_g2 = g2;
    assert_int_equal(cz_fil_porep_verify(&f.vk, &f.c1, f.proof, f.proof_len, NULL, &e), CZ_ERR_UNSATISFIED);
    f.vk.delta_g2 = f.vk.gamma_g2;
    f.vk.gamma_g2 = g2;
    assert_int_equal(cz_fil_porep_verify(&f.vk, &f.c1, f.proof, f.proof_len, NULL, &e), CZ_OK);
    /* one byte of the file changed: the reader or the check refuses it */
    size_t len;
    uint8_t *raw = cz_read_file(cz_vector_path(DIR "random-params.vk"), &len);
    static const size_t pos[] = {10, 96 + 95, 300, 600, 700, 900, 1000, 868 + 96 * 20 + 40, 4707};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
        raw[pos[i]] ^= 0x01;
        cz_groth16_vk vk;
        cz_status st = cz_bp_vk_parse(&vk, raw, len, &e);
        if (st == CZ_OK) {
            assert_int_not_equal(cz_fil_porep_verify(&vk, &f.c1, f.proof, f.proof_len, NULL, &e), CZ_OK);
            cz_bp_vk_free(&vk);
        }
        raw[pos[i]] ^= 0x01;
    }
    /* a key of another circuit (fewer ic points) */
    f.vk.n_ic = 39;
    assert_int_equal(cz_fil_porep_verify(&f.vk, &f.c1, f.proof, f.proof_len, NULL, &e), CZ_ERR_MISMATCH);
    assert_non_null(strstr(e.msg, "ic points"));
    f.vk.n_ic = 40;
    free(raw);
    fixture_free(&f);
}

/* ---- parameter identity ------------------------------------------------------------ */

static void test_identifier_strings(void **state) {
    (void)state;
    cz_fil_params_set s;
    char id[400];
    assert_int_equal(cz_fil_params_set_porep(&s, cz_fil_seal_proof_by_name("StackedDrg2KiBV1_1")), CZ_OK);
    assert_int_equal(cz_fil_params_identifier(&s, id, sizeof id), CZ_OK);
    assert_string_equal(id,
                        "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 "
                        "base_graph: drgraph::BucketGraph{size: 64; degree: 6; hasher: poseidon_hasher} }, "
                        "challenges: LayerChallenges { layers: 2, max_count: 2 }, tree: "
                        "merkletree-poseidon_hasher-8-0-0 }");
    char name[300];
    assert_int_equal(cz_fil_params_cache_id(&s, name, sizeof name), CZ_OK);
    assert_string_equal(name, "stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
                              "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f");
    assert_int_equal(cz_fil_params_identifier(&s, id, 50), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_params_file_name(&s, CZ_FIL_PARAMS_FILE_META, name, sizeof name), CZ_OK);
    assert_string_equal(name, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
                              "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.meta");
    assert_int_equal(cz_fil_params_set_for(&s, CZ_FIL_CIRCUIT_WINNING_POST, 32ull << 30), CZ_OK);
    assert_int_equal(cz_fil_params_identifier(&s, id, sizeof id), CZ_OK);
    assert_string_equal(id, "FallbackPoSt::PublicParams{sector_size: 34359738368, challenge_count: 1, sector_count: 66}");
    assert_int_equal(cz_fil_params_set_for(&s, CZ_FIL_CIRCUIT_UPDATE, 32ull << 30), CZ_OK);
    assert_int_equal(cz_fil_params_identifier(&s, id, sizeof id), CZ_OK);
    assert_string_equal(id, "empty_sector_update::PublicParams{ sector_nodes: 1073741824 }");
    assert_int_equal(cz_fil_params_set_for(&s, CZ_FIL_CIRCUIT_POREP, 4096), CZ_ERR_INVALID_ARG);
}

/* Every (circuit, size, ext) the reference publishes must be named by
 * cuzk's identifier + SHA-256, and every table entry must be reached. */
static void test_names_reproduce_published(void **state) {
    (void)state;
    static const uint64_t sizes[] = {2048, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    static const cz_fil_circuit_kind kinds[] = {CZ_FIL_CIRCUIT_POREP, CZ_FIL_CIRCUIT_WINNING_POST,
                                                CZ_FIL_CIRCUIT_WINDOW_POST, CZ_FIL_CIRCUIT_UPDATE,
                                                CZ_FIL_CIRCUIT_UPDATE_POSEIDON};
    assert_int_equal(cz_fil_params_published_count, 44);
    unsigned *hit = calloc(cz_fil_params_published_count, sizeof *hit);
    assert_non_null(hit);
    size_t found = 0;
    for (size_t k = 0; k < 5; k++)
        for (size_t z = 0; z < 5; z++) {
            cz_fil_params_set s;
            assert_int_equal(cz_fil_params_set_for(&s, kinds[k], sizes[z]), CZ_OK);
            for (int ext = 0; ext < 2; ext++) {
                char name[300];
                assert_int_equal(cz_fil_params_file_name(&s, (cz_fil_params_file)ext, name, sizeof name), CZ_OK);
                const cz_fil_params_entry *e = cz_fil_params_lookup(name);
                /* SnapDeals' Poseidon variant exists for 32GiB and 64GiB only */
                bool expect = !(kinds[k] == CZ_FIL_CIRCUIT_UPDATE_POSEIDON && sizes[z] < (32ull << 30));
                if (expect != (e != NULL)) fprintf(stderr, "%s: %s\n", name, e ? "unexpected" : "not published");
                assert_true(expect == (e != NULL));
                if (!e) continue;
                assert_int_equal(e->sector_size, sizes[z]);
                assert_int_equal(strlen(e->digest), 32);
                hit[e - cz_fil_params_published]++;
                found++;
            }
        }
    assert_int_equal(found, 44);
    for (size_t i = 0; i < cz_fil_params_published_count; i++) assert_int_equal(hit[i], 1);
    free(hit);

    /* every registered seal proof (all API versions and features) maps to
     * its size's published PoRep files; 2KiB and 32GiB spelled out */
    for (size_t i = 0; i < cz_fil_seal_proofs_count; i++) {
        cz_fil_params_set s;
        assert_int_equal(cz_fil_params_set_porep(&s, &cz_fil_seal_proofs[i]), CZ_OK);
        char name[300];
        assert_int_equal(cz_fil_params_file_name(&s, CZ_FIL_PARAMS_FILE_VK, name, sizeof name), CZ_OK);
        const cz_fil_params_entry *e = cz_fil_params_lookup(name);
        assert_non_null(e);
        assert_int_equal(e->sector_size, cz_fil_seal_proofs[i].sector_size);
    }
    cz_fil_params_set s;
    char name[300];
    assert_int_equal(cz_fil_params_set_porep(&s, cz_fil_seal_proof_by_name("StackedDrg2KiBV1_1")), CZ_OK);
    assert_int_equal(cz_fil_params_file_name(&s, CZ_FIL_PARAMS_FILE_PARAMS, name, sizeof name), CZ_OK);
    const cz_fil_params_entry *e = cz_fil_params_lookup(name);
    assert_non_null(e);
    assert_string_equal(e->digest, "434fb1338ecfaf0f59256f30dde4968f");
    assert_string_equal(e->cid, "QmWceMgnWYLopMuM4AoGMvGEau7tNe5UK83XFjH5V9B17h");
    assert_int_equal(cz_fil_params_set_porep(&s, cz_fil_seal_proof_by_name("StackedDrg32GiBV1_1")), CZ_OK);
    assert_int_equal(cz_fil_params_file_name(&s, CZ_FIL_PARAMS_FILE_VK, name, sizeof name), CZ_OK);
    assert_string_equal(name, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
                              "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.vk");
    e = cz_fil_params_lookup(name);
    assert_non_null(e);
    assert_string_equal(e->digest, "0c7b4aac1c40fdb7eb82bc355b41addf");
    assert_null(cz_fil_params_lookup("v28-nothing.vk"));
}

static void test_paths(void **state) {
    (void)state;
    cz_fil_params_set s;
    assert_int_equal(cz_fil_params_set_porep(&s, cz_fil_seal_proof_by_id(5)), CZ_OK);
    char name[300], path[600];
    assert_int_equal(cz_fil_params_file_name(&s, CZ_FIL_PARAMS_FILE_PARAMS, name, sizeof name), CZ_OK);
    unsetenv(CZ_FIL_PARAMS_ENV);
    assert_string_equal(cz_fil_params_cache_dir(), "/var/tmp/filecoin-proof-parameters/");
    assert_int_equal(cz_fil_params_path(&s, NULL, CZ_FIL_PARAMS_FILE_PARAMS, path, sizeof path), CZ_OK);
    assert_int_equal(strncmp(path, "/var/tmp/filecoin-proof-parameters/v28-", 39), 0);
    assert_string_equal(path + 35, name);
    setenv(CZ_FIL_PARAMS_ENV, "/srv/params", 1);
    assert_int_equal(cz_fil_params_path(&s, NULL, CZ_FIL_PARAMS_FILE_PARAMS, path, sizeof path), CZ_OK);
    assert_int_equal(strncmp(path, "/srv/params/v28-", 16), 0);
    setenv(CZ_FIL_PARAMS_ENV, "", 1);
    assert_string_equal(cz_fil_params_cache_dir(), CZ_FIL_PARAMS_DEFAULT_DIR);
    unsetenv(CZ_FIL_PARAMS_ENV);
    assert_int_equal(cz_fil_params_path(&s, "/x/", CZ_FIL_PARAMS_FILE_VK, path, sizeof path), CZ_OK);
    assert_int_equal(strncmp(path, "/x/v28-", 7), 0);
    assert_int_equal(cz_fil_params_path(&s, "/x", CZ_FIL_PARAMS_FILE_VK, path, 20), CZ_ERR_INVALID_ARG);
}

static void openssl_digest(const char *path, char out[33]) {
    size_t len;
    uint8_t *b = cz_read_file(path, &len);
    uint8_t h[64];
    unsigned hl = 0;
    assert_int_equal(EVP_Digest(b, len, h, &hl, EVP_blake2b512(), NULL), 1);
    assert_int_equal(hl, 64);
    for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", h[i]);
    free(b);
}

static void test_digest(void **state) {
    (void)state;
    char tmpl[] = "/tmp/cz_c2in_XXXXXX";
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    /* a file under a published name, a little over the 8 MiB buffer so the
     * streaming crosses a refill, contents not the published ones */
    const cz_fil_params_entry *pub = &cz_fil_params_published[0];
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, pub->name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    size_t total = (8u << 20) + 12345;
    uint8_t *buf = malloc(total);
    assert_non_null(buf);
    cz_rng_bytes(buf, total);
    assert_int_equal(fwrite(buf, 1, total, f), total);
    fclose(f);
    free(buf);
    char got[33], want[33];
    assert_int_equal(cz_fil_params_file_digest(path, got, NULL), CZ_OK);
    openssl_digest(path, want);
    assert_string_equal(got, want);
    cz_errbuf e = {{0}};
    assert_int_equal(cz_fil_params_check_digest(path, NULL, &e), CZ_ERR_MISMATCH);
    assert_non_null(strstr(e.msg, pub->name));
    assert_non_null(strstr(e.msg, pub->digest));
    assert_non_null(strstr(e.msg, got));
    assert_int_equal(cz_fil_params_check_digest(path, got, &e), CZ_OK);
    assert_int_equal(remove(path), 0);
    assert_int_equal(cz_fil_params_check_digest(path, NULL, &e), CZ_ERR_IO);
    assert_non_null(strstr(e.msg, pub->name));
    /* the fixture's vk: an unpublished name, and OpenSSL agrees */
    const char *vk = cz_vector_path(DIR "random-params.vk");
    char vkpath[512];
    snprintf(vkpath, sizeof vkpath, "%s", vk);
    assert_int_equal(cz_fil_params_check_digest(vkpath, NULL, &e), CZ_ERR_NOT_FOUND);
    assert_non_null(strstr(e.msg, "random-params.vk"));
    assert_int_equal(cz_fil_params_file_digest(vkpath, got, NULL), CZ_OK);
    openssl_digest(vkpath, want);
    assert_string_equal(got, want);
    /* the empty file: BLAKE2b-512("") starts 786a02f7 42015903 */
    snprintf(path, sizeof path, "%s/empty", dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(cz_fil_params_file_digest(path, got, NULL), CZ_OK);
    assert_string_equal(got, "786a02f742015903c6c6fd852552d272");
    remove(path);
    assert_int_equal(rmdir(dir), 0);
}

int main(void) {
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inputs_match_fixture),
        cmocka_unit_test(test_inputs_match_c1_openings),
        cmocka_unit_test(test_input_counts),
        cmocka_unit_test(test_inputs_32g_layout),
        cmocka_unit_test(test_vk_read_roundtrip),
        cmocka_unit_test(test_reference_proof_verifies),
        cmocka_unit_test(test_tampered_inputs_fail),
        cmocka_unit_test(test_tampered_proof_fails),
        cmocka_unit_test(test_tampered_vk_fails),
        cmocka_unit_test(test_identifier_strings),
        cmocka_unit_test(test_names_reproduce_published),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
