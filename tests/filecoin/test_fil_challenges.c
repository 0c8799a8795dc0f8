/*
 * replica_id and PoRep challenges against the reference's numbers:
 * - the 2KiB v1.1 fixture (replica_id, the challenges among its 39 public
 *   inputs and the challenged nodes of its C1 vanilla proofs);
 * - storage-proofs-porep challenges.rs test_synth_challenges_against_hardcoded;
 * - the seal regression records: their shared prover_id/ticket/seed/
 *   sector_id regenerated from api.rs's seeded XorShiftRng, and for every
 *   record replica_id and every partition's challenges checked against a
 *   second derivation built from OpenSSL (SHA-256, keyed BLAKE2b, ChaCha20)
 *   and GMP (the 256-bit reduction).
 */
#include "filtest.h"

#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <jansson.h>
#include <string.h>
#include <stdlib.h>

#include "cuzk/fil_challenge.h"
#include "regression_data.h"

/* ---- helpers ------------------------------------------------------------------ */

static void json_bytes32(uint8_t out[32], json_t *a) {
    assert_true(json_is_array(a));
    assert_int_equal(json_array_size(a), 32);
    for (size_t i = 0; i < 32; i++) out[i] = (uint8_t)json_integer_value(json_array_get(a, i));
}

/* ---- independent reference (OpenSSL + GMP) --------------------------------- */

static void ref_sha256(uint8_t out[32], const uint8_t *a, size_t alen, const uint8_t *b,
                       size_t blen, const uint8_t *c, size_t clen, const uint8_t *d, size_t dlen) {
    EVP_MD_CTX *x = EVP_MD_CTX_new();
    assert_int_equal(EVP_DigestInit_ex(x, EVP_sha256(), NULL), 1);
    assert_int_equal(EVP_DigestUpdate(x, a, alen), 1);
    assert_int_equal(EVP_DigestUpdate(x, b, blen), 1);
    assert_int_equal(EVP_DigestUpdate(x, c, clen), 1);
    assert_int_equal(EVP_DigestUpdate(x, d, dlen), 1);
    unsigned n = 0;
    assert_int_equal(EVP_DigestFinal_ex(x, out, &n), 1);
    assert_int_equal(n, 32);
    EVP_MD_CTX_free(x);
}

/* (h as LE integer mod (nodes − 1)) + 1 with GMP. */
static uint64_t ref_challenge(const uint8_t h[32], uint64_t nodes) {
    mpz_t z;
    mpz_init(z);
    mpz_import(z, 32, -1, 1, 0, 0, h);
    uint64_t r = mpz_fdiv_ui(z, (unsigned long)(nodes - 1)) + 1;
    mpz_clear(z);
    return r;
}

static void ref_blake2b_key(uint8_t out[32], const char *tag, const uint8_t a[32],
                            const uint8_t b[32]) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "BLAKE2BMAC", NULL);
    assert_non_null(mac);
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    size_t sz = 32;
    OSSL_PARAM params[] = { OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, &sz), OSSL_PARAM_END };
    assert_int_equal(EVP_MAC_init(ctx, (const uint8_t *)tag, strlen(tag), params), 1);
    assert_int_equal(EVP_MAC_update(ctx, a, 32), 1);
    assert_int_equal(EVP_MAC_update(ctx, b, 32), 1);
    size_t got = 0;
    assert_int_equal(EVP_MAC_final(ctx, out, &got, 32), 1);
    assert_int_equal(got, 32);
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
}

/* len keystream bytes of IETF ChaCha20 (nonce "synth-porep\0") from byte
 * offset pos. OpenSSL's 16-byte IV is the 32-bit LE block counter then the
 * 96-bit nonce. */
static void ref_chacha(uint8_t *out, size_t len, const uint8_t key[32], uint64_t pos) {
    uint8_t iv[16] = { 0 };
    uint32_t blk = (uint32_t)(pos / 64);
    for (int i = 0; i < 4; i++) iv[i] = (uint8_t)(blk >> (8 * i));
    memcpy(iv + 4, "synth-porep", 12); /* includes the trailing NUL */
    size_t skip = (size_t)(pos % 64);
    uint8_t *buf = calloc(skip + len, 1);
    assert_non_null(buf);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    assert_int_equal(EVP_EncryptInit_ex(c, EVP_chacha20(), NULL, key, iv), 1);
    int n = 0;
    assert_int_equal(EVP_EncryptUpdate(c, buf, &n, buf, (int)(skip + len)), 1);
    assert_int_equal((size_t)n, skip + len);
    memcpy(out, buf + skip, len);
    EVP_CIPHER_CTX_free(c);
    free(buf);
}

static void ref_replica_id(uint8_t out[32], const uint8_t prover[32], uint64_t sector_id,
                           const uint8_t ticket[32], const uint8_t comm_d[32],
                           const uint8_t porep_id[32]) {
    uint8_t pre[40];
    memcpy(pre, prover, 32);
    for (int i = 0; i < 8; i++) pre[32 + i] = (uint8_t)(sector_id >> (56 - 8 * i));
    ref_sha256(out, pre, 40, ticket, 32, comm_d, 32, porep_id, 32);
    out[31] &= 0x3f;
}

static void ref_challenges(uint64_t *out, cz_fil_challenge_mode mode, uint64_t nodes, size_t count,
                           unsigned k, const uint8_t rid[32], const uint8_t seed[32],
                           const uint8_t comm_r[32]) {
    static const char ni_tag[] = "filecoin.io|PoRep|1|NonInteractive|1";
    uint8_t h[32];
    if (mode == CZ_FIL_CHALLENGES_SYNTHETIC) {
        uint64_t num = nodes < (1u << 18) ? nodes : (1u << 18);
        uint8_t gk[32], sk[32];
        ref_blake2b_key(gk, "filecoin.io|PoRep|1|Synthetic|1|Generation", rid, comm_r);
        ref_blake2b_key(sk, "filecoin.io|PoRep|1|Synthetic|1|Selection", rid, seed);
        for (size_t i = 0; i < count; i++) {
            uint8_t b[4];
            ref_chacha(b, 4, sk, 4 * (count * k + i));
            uint64_t idx = ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                            (uint32_t)b[3] << 24) % num;
            ref_chacha(h, 32, gk, 32 * idx);
            out[i] = ref_challenge(h, nodes);
        }
        return;
    }
    for (size_t i = 0; i < count; i++) {
        uint32_t j = (uint32_t)(count * k + i);
        uint8_t jb[4] = { (uint8_t)j, (uint8_t)(j >> 8), (uint8_t)(j >> 16), (uint8_t)(j >> 24) };
        if (mode == CZ_FIL_CHALLENGES_INTERACTIVE)
            ref_sha256(h, rid, 32, seed, 32, jb, 4, NULL, 0);
        else
            ref_sha256(h, (const uint8_t *)ni_tag, strlen(ni_tag), rid, 32, comm_r, 32, jb, 4);
        out[i] = ref_challenge(h, nodes);
    }
}

/* ---- the 2KiB v1.1 fixture ----------------------------------------------------- */

static void test_fixture_replica_id_and_challenges(void **state) {
    (void)state;
    json_t *f = fil_load_json("filecoin/porep-2k-v1.1/fixture.json");
    uint8_t prover[32], ticket[32], seed[32], porep_id[32];
    cz_fil_domain comm_d, comm_r, want_rid, rid;
    fil_unhex(prover, json_string_value(json_object_get(f, "prover_id_hex")), 32);
    fil_unhex(ticket, json_string_value(json_object_get(f, "ticket_hex")), 32);
    fil_unhex(seed, json_string_value(json_object_get(f, "seed_hex")), 32);
    fil_unhex(porep_id, json_string_value(json_object_get(f, "porep_id_hex")), 32);
    fil_unhex(comm_d.b, json_string_value(json_object_get(f, "comm_d_hex")), 32);
    fil_unhex(comm_r.b, json_string_value(json_object_get(f, "comm_r_hex")), 32);
    fil_unhex(want_rid.b, json_string_value(json_object_get(json_object_get(f, "replica_id"), "le_hex")), 32);
    uint64_t sector_id = (uint64_t)json_integer_value(json_object_get(f, "sector_id"));
    assert_int_equal(sector_id, 42);

    const cz_fil_seal_proof *p =
        cz_fil_seal_proof_by_name(json_string_value(json_object_get(f, "registered_proof")));
    assert_non_null(p);
    uint8_t pid[32];
    cz_fil_porep_id(pid, p);
    assert_memory_equal(pid, porep_id, 32);

    cz_fil_replica_id(&rid, prover, sector_id, ticket, &comm_d, porep_id);
    assert_memory_equal(rid.b, want_rid.b, 32);

    /* Public inputs: replica_id, comm_d, comm_r, then per challenge 18:
     * comm_d leaf index, 6 DRG + 8 expander parents, the challenge, its
     * comm_r_last and comm_c indexes (circuit/proof.rs
     * generate_public_inputs). */
    json_t *pis = json_array_get(json_object_get(f, "public_inputs_per_partition"), 0);
    unsigned cpp = cz_fil_challenges_per_partition(p);
    assert_int_equal(cpp, 2);
    assert_int_equal(json_array_size(pis), 3 + 18 * cpp);
    uint8_t b[32];
    fil_unhex(b, json_string_value(json_object_get(json_array_get(pis, 0), "le_hex")), 32);
    assert_memory_equal(b, rid.b, 32);

    uint64_t ch[2];
    cz_errbuf err = { { 0 } };
    assert_int_equal(cz_fil_porep_challenges(ch, p, 0, &rid, seed, NULL, &err), CZ_OK);
    for (unsigned i = 0; i < cpp; i++) {
        static const unsigned at[] = { 0, 15, 16, 17 };
        for (unsigned a = 0; a < 4; a++) {
            json_t *pi = json_array_get(pis, 3 + 18 * i + at[a]);
            uint64_t v = strtoull(json_string_value(json_object_get(pi, "dec")), NULL, 10);
            assert_int_equal(v, ch[i]);
        }
    }
    assert_int_equal(ch[0], 48);
    assert_int_equal(ch[1], 36);

    /* The C1 output's proofs are for the same nodes, in order. */
    json_t *c1 = fil_load_json("filecoin/porep-2k-v1.1/c1.json");
    uint8_t c1_rid[32], c1_seed[32];
    json_bytes32(c1_rid, json_object_get(c1, "replica_id"));
    json_bytes32(c1_seed, json_object_get(c1, "seed"));
    assert_memory_equal(c1_rid, rid.b, 32);
    assert_memory_equal(c1_seed, seed, 32);
    json_t *parts = json_object_get(json_object_get(c1, "vanilla_proofs"), p->vanilla_name);
    assert_int_equal(json_array_size(parts), p->partitions);
    json_t *proofs = json_array_get(parts, 0);
    assert_int_equal(json_array_size(proofs), cpp);
    for (unsigned i = 0; i < cpp; i++) {
        json_t *col = json_object_get(
            json_object_get(json_object_get(json_array_get(proofs, i), "replica_column_proofs"),
                            "c_x"),
            "column");
        assert_int_equal((uint64_t)json_integer_value(json_object_get(col, "index")), ch[i]);
    }
    json_decref(c1);

    /* The same numbers through the lower-level call, and the reference
     * derivation. */
    uint64_t ch2[2], ref[2];
    assert_int_equal(cz_fil_interactive_challenges(ch2, 2, 64, &rid, seed, 0), CZ_OK);
    ref_challenges(ref, CZ_FIL_CHALLENGES_INTERACTIVE, 64, 2, 0, rid.b, seed, NULL);
    assert_memory_equal(ch2, ch, sizeof ch);
    assert_memory_equal(ref, ch, sizeof ch);
    json_decref(f);
}

/* ---- synthetic: challenges.rs test_synth_challenges_against_hardcoded ---------- */

static void fr_small(cz_fil_domain *d, uint8_t v) {
    memset(d, 0, sizeof *d);
    d->b[0] = v;
}

static void test_synth_hardcoded(void **state) {
    (void)state;
    static const uint64_t want_synth[21] = {
        178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856,
        801, 176, 692, 429, 691, 290, 204, 986, 210, 973,
    };
    static const uint64_t want_porep[10] = { 176, 781, 801, 986, 290, 211, 692, 856, 986, 332 };
    cz_fil_domain rid, comm_r;
    fr_small(&rid, 55);
    fr_small(&comm_r, 101);
    uint8_t rand1[32];
    memset(rand1, 1, sizeof rand1);

    cz_fil_synth s;
    assert_int_equal(cz_fil_synth_init(&s, 1u << 10, &rid, &comm_r, 21), CZ_OK);
    assert_int_equal(s.num_synth, 21);
    uint64_t all[21];
    cz_fil_synth_all(&s, all);
    assert_memory_equal(all, want_synth, sizeof all);
    for (int i = 20; i >= 0; i--) assert_int_equal(cz_fil_synth_challenge(&s, (uint64_t)i), want_synth[i]);

    uint64_t porep[10], idx[10];
    assert_int_equal(cz_fil_synth_porep_challenges(&s, porep, 10, rand1, 0), CZ_OK);
    assert_memory_equal(porep, want_porep, sizeof porep);
    assert_int_equal(cz_fil_synth_indexes(&s, idx, 10, rand1, 0), CZ_OK);
    for (int i = 0; i < 10; i++) {
        assert_true(idx[i] < 21);
        assert_int_equal(want_synth[idx[i]], want_porep[i]);
    }

    /* Default set size: min(nodes, 2^18). */
    assert_int_equal(cz_fil_synth_init(&s, 64, &rid, &comm_r, 0), CZ_OK);
    assert_int_equal(s.num_synth, 64);
    assert_int_equal(cz_fil_synth_init(&s, 1ull << 30, &rid, &comm_r, 0), CZ_OK);
    assert_int_equal(s.num_synth, 1u << 18);
}

/* As test_synth_challenges_32gib: partition k of 18 equals the k-th chunk
 * of one 180-challenge partition, and every challenge is in range and
 * agrees with the OpenSSL/GMP derivation. */
static void test_synth_32gib_partitions(void **state) {
    (void)state;
    cz_fil_domain rid, comm_r;
    memset(&rid, 0, sizeof rid);
    memset(&comm_r, 0, sizeof comm_r);
    cz_rng_bytes(rid.b, 8);
    cz_rng_bytes(comm_r.b, 8);
    uint8_t rand1[32];
    memset(rand1, 1, sizeof rand1);
    const uint64_t nodes = 1ull << 30;
    cz_fil_synth s;
    assert_int_equal(cz_fil_synth_init(&s, nodes, &rid, &comm_r, 0), CZ_OK);
    uint64_t one[180];
    assert_int_equal(cz_fil_synth_porep_challenges(&s, one, 180, rand1, 0), CZ_OK);
    for (unsigned k = 0; k < 10; k++) {
        uint64_t part[18], ref[18];
        assert_int_equal(cz_fil_synth_porep_challenges(&s, part, 18, rand1, k), CZ_OK);
        assert_memory_equal(part, one + 18 * k, sizeof part);
        ref_challenges(ref, CZ_FIL_CHALLENGES_SYNTHETIC, nodes, 18, k, rid.b, rand1, comm_r.b);
        assert_memory_equal(part, ref, sizeof part);
        for (int i = 0; i < 18; i++) assert_true(part[i] >= 1 && part[i] < nodes);
    }
    /* The streamed set agrees with random access (first 2^12 of it). */
    cz_fil_synth small = s;
    small.num_synth = 1u << 12;
    uint64_t *all = malloc(sizeof(uint64_t) * small.num_synth);
    assert_non_null(all);
    cz_fil_synth_all(&small, all);
    for (uint64_t i = 0; i < small.num_synth; i += 97) assert_int_equal(all[i], cz_fil_synth_challenge(&s, i));
    free(all);
}

/* ---- primitives and contracts ----------------------------------------------------- */

static void test_mod256_vs_gmp(void **state) {
    (void)state;
    for (int t = 0; t < 20000; t++) {
        uint8_t h[32];
        cz_rng_bytes(h, 32);
        if (t % 7 == 0) memset(h, 0xff, 32);
        uint64_t m;
        switch (t % 5) {
        case 0: m = 1 + cz_rng_u64() % 100; break;
        case 1: m = 1 + (cz_rng_u64() >> 32); break;
        case 2: m = UINT64_MAX - (cz_rng_u64() % 3); break;
        case 3: m = (1ull << (t % 64)); break;
        default: m = cz_rng_u64() | 1; break;
        }
        mpz_t z, mm, r;
        mpz_inits(z, mm, r, NULL);
        mpz_import(z, 32, -1, 1, 0, 0, h);
        mpz_import(mm, 1, -1, sizeof m, 0, 0, &m);
        mpz_fdiv_r(r, z, mm);
        uint64_t want = 0;
        size_t cnt = 0;
        mpz_export(&want, &cnt, -1, sizeof want, 0, 0, r);
        mpz_clears(z, mm, r, NULL);
        assert_int_equal(cz_fil_mod256_u64(h, m), want);
    }
}

static void test_challenge_counts_and_errors(void **state) {
    (void)state;
    /* Per-partition counts of every registered proof (select_challenges). */
    for (size_t i = 0; i < cz_fil_seal_proofs_count; i++) {
        const cz_fil_seal_proof *p = &cz_fil_seal_proofs[i];
        bool large = p->sector_size >= (32ull << 30);
        assert_int_equal(cz_fil_challenges_per_partition(p), large ? 18 : 2);
        assert_int_equal(p->challenges_per_partition, cz_fil_challenges_per_partition(p));
    }
    cz_fil_domain rid, comm_r;
    memset(&rid, 7, sizeof rid);
    rid.b[31] = 0;
    memset(&comm_r, 9, sizeof comm_r);
    comm_r.b[31] = 0;
    uint8_t seed[32] = { 1 };
    uint64_t out[18];
    cz_errbuf err = { { 0 } };
    const cz_fil_seal_proof *ip = cz_fil_seal_proof_by_name("StackedDrg2KiBV1_1");
    const cz_fil_seal_proof *sp = cz_fil_seal_proof_by_name("StackedDrg2KiBV1_1_Feat_SyntheticPoRep");
    const cz_fil_seal_proof *np = cz_fil_seal_proof_by_name("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep");
    assert_non_null(ip);
    assert_non_null(sp);
    assert_non_null(np);
    assert_int_equal(cz_fil_porep_challenges(out, ip, 1, &rid, seed, NULL, &err), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "partition"));
    assert_int_equal(cz_fil_porep_challenges(out, ip, 0, &rid, NULL, NULL, &err), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_porep_challenges(out, sp, 0, &rid, seed, NULL, &err), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_porep_challenges(out, np, 0, &rid, NULL, NULL, &err), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_porep_challenges(out, np, 125, &rid, NULL, &comm_r, &err), CZ_OK);
    assert_int_equal(cz_fil_porep_challenges(out, np, 126, &rid, NULL, &comm_r, &err), CZ_ERR_INVALID_ARG);
    /* The NI seed is not used. */
    uint64_t out2[18];
    assert_int_equal(cz_fil_porep_challenges(out2, np, 125, &rid, seed, &comm_r, &err), CZ_OK);
    assert_memory_equal(out, out2, sizeof out);
    /* Synthetic refuses a non-canonical commitment (the reference panics). */
    cz_fil_domain bad;
    memset(&bad, 0xff, sizeof bad);
    assert_int_equal(cz_fil_porep_challenges(out, sp, 0, &rid, seed, &bad, &err), CZ_ERR_NOT_CANONICAL);
    cz_fil_synth s;
    assert_int_equal(cz_fil_synth_init(&s, 64, &bad, &comm_r, 0), CZ_ERR_NOT_CANONICAL);
    /* Node counts outside 2 .. 2^32 − 1, partitions past the u8. */
    assert_int_equal(cz_fil_interactive_challenges(out, 2, 1, &rid, seed, 0), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_interactive_challenges(out, 2, 1ull << 32, &rid, seed, 0), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_ni_challenges(out, 2, 64, &rid, &comm_r, 256), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_interactive_challenges(out, 2, 2, &rid, seed, 255), CZ_OK);
    assert_int_equal(out[0], 1); /* nodes = 2: only node 1 */
    assert_int_equal(out[1], 1);
}

/* ---- regression records ------------------------------------------------------------ */

static void check_records(const char *rel, size_t want_n) {
    cz_fil_regression_record *recs;
    size_t n;
    assert_true(cz_fil_regression_load(cz_vector_path(rel), &recs, &n));
    assert_int_equal(n, want_n);

    cz_fil_regression_inputs in;
    cz_fil_regression_gen_inputs(&in);
    size_t nchal = 0;
    uint64_t *ch = malloc(sizeof(uint64_t) * 18 * 126), *ref = malloc(sizeof(uint64_t) * 18);
    assert_non_null(ch);
    assert_non_null(ref);
    for (size_t i = 0; i < n; i++) {
        const cz_fil_regression_record *r = &recs[i];
        /* The seeded inputs of api.rs seal_lifecycle. */
        assert_memory_equal(r->prover_id, in.prover_id, 32);
        assert_memory_equal(r->ticket, in.ticket, 32);
        assert_memory_equal(r->seed, in.seed, 32);
        assert_int_equal(r->sector_id, in.sector_id);
        /* Records hold one 192-byte Groth16 proof per partition, except the
         * NI ones (an aggregate). */
        if (r->mode != CZ_FIL_CHALLENGES_NON_INTERACTIVE) assert_int_equal(r->proof_len, 192u * r->partitions);

        cz_fil_domain rid;
        uint8_t want[32];
        cz_fil_replica_id(&rid, r->prover_id, r->sector_id, r->ticket, &r->comm_d, r->porep_id);
        ref_replica_id(want, r->prover_id, r->sector_id, r->ticket, r->comm_d.b, r->porep_id);
        assert_memory_equal(rid.b, want, 32);
        cz_fr tmp;
        assert_int_equal(cz_fil_domain_to_fr(&tmp, &rid), CZ_OK);
        assert_int_equal(cz_fil_domain_to_fr(&tmp, &r->comm_r), CZ_OK);

        unsigned cpp = cz_fil_regression_challenges_per_partition(r);
        assert_true(cpp >= 1 && cpp <= 18);
        uint64_t nodes = r->sector_size / 32;
        for (unsigned k = 0; k < r->partitions; k++) {
            cz_errbuf err = { { 0 } };
            cz_status st = cz_fil_challenges_for(ch + (size_t)k * cpp, r->mode, nodes, cpp, k, &rid,
                                                 r->seed, &r->comm_r, &err);
            if (st != CZ_OK) fprintf(stderr, "record %zu: %s\n", i, err.msg);
            assert_int_equal(st, CZ_OK);
            ref_challenges(ref, r->mode, nodes, cpp, k, rid.b, r->seed, r->comm_r.b);
            assert_memory_equal(ch + (size_t)k * cpp, ref, cpp * sizeof(uint64_t));
            for (unsigned c = 0; c < cpp; c++) assert_true(ch[k * cpp + c] >= 1 && ch[k * cpp + c] < nodes);
            nchal += cpp;
        }
    }
    fprintf(stderr, "%s: %zu records, %zu challenges agree\n", rel, n, nchal);
    free(ch);
    free(ref);
    cz_fil_regression_free(recs, n);
}

static void test_regression_inputs_generator(void **state) {
    (void)state;
    /* The values every record carries (seal_regression_records-v16.json). */
    static const uint8_t prover[32] = { 16, 28, 190, 75, 156, 66, 96, 79, 4, 199, 3, 195, 150, 247, 136, 198,
                                        203, 45, 109, 125, 88, 244, 84, 48, 177, 46, 178, 237, 214, 64, 7, 108 };
    static const uint8_t ticket[32] = { 232, 134, 127, 32, 0, 213, 89, 122, 10, 95, 67, 130, 197, 43, 139, 137,
                                        137, 0, 25, 223, 83, 32, 212, 134, 160, 103, 243, 142, 108, 104, 98, 75 };
    cz_fil_regression_inputs in;
    cz_fil_regression_gen_inputs(&in);
    assert_memory_equal(in.prover_id, prover, 32);
    assert_memory_equal(in.ticket, ticket, 32);
    assert_int_equal(in.sector_id, 9259733836259213201ull);

    /* fill_bytes == the next_u64/next_u32 words in little-endian order. */
    for (size_t len = 0; len <= 41; len++) {
        cz_xorshift a, b;
        cz_xorshift_from_seed(&a, CZ_FIL_API_TEST_SEED);
        b = a;
        uint8_t got[48], want[48];
        cz_xorshift_fill_bytes(&a, got, len);
        size_t o = 0;
        while (len - o >= 8) {
            uint64_t v = cz_xorshift_next_u64(&b);
            for (int i = 0; i < 8; i++) want[o++] = (uint8_t)(v >> (8 * i));
        }
        if (len - o > 4) {
            uint64_t v = cz_xorshift_next_u64(&b);
            for (size_t i = 0; o < len; i++) want[o++] = (uint8_t)(v >> (8 * i));
        } else if (len > o) {
            uint32_t v = cz_xorshift_next_u32(&b);
            for (size_t i = 0; o < len; i++) want[o++] = (uint8_t)(v >> (8 * i));
        }
        assert_memory_equal(got, want, len);
        assert_memory_equal(&a, &b, sizeof a); /* same words consumed */
    }
    /* All-zero seed: the crate's preset state. */
    cz_xorshift z;
    uint8_t zero[16] = { 0 };
    cz_xorshift_from_seed(&z, zero);
    assert_int_equal(z.x, 0x0BAD5EEDu);
    assert_int_equal(z.w, 0x0BAD5EEDu);
}

static void test_regression_records_v16(void **state) {
    (void)state;
    check_records("filecoin/seal_regression_records-v16.json", 448);
}

static void test_regression_records_v18(void **state) {
    (void)state;
    check_records("filecoin/seal_regression_records-v18.json", 113);
}

int main(void) {
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_replica_id_and_challenges),
        cmocka_unit_test(test_synth_hardcoded),
        cmocka_unit_test(test_synth_32gib_partitions),
        cmocka_unit_test(test_mod256_vs_gmp),
        cmocka_unit_test(test_challenge_counts_and_errors),
        cmocka_unit_test(test_regression_inputs_generator),
        cmocka_unit_test(test_regression_records_v16),
        cmocka_unit_test(test_regression_records_v18),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
