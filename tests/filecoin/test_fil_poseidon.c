/*
 * neptune Poseidon with Filecoin's constants and filecoin-hashers'
 * PoseidonHasher, against the reference's own numbers:
 *  - tests/vectors/filecoin/poseidon-neptune.json (made by neptune 11);
 *  - tests/vectors/filecoin/neptune-kats.json (copied from the test
 *    sources of neptune 11 and filecoin-hashers; see its "source" fields):
 *    hash values of 7 arities × 2 strengths, ConstantLength(4) sponge
 *    digests, round-number tables, the sage round constants for t = 9,
 *    domain tags, filecoin-hashers' tree root and hash_md;
 *  - optimised == plain on random inputs (a self-consistency check on top).
 */
#include "filtest.h"
#include "cuzk/fil_poseidon.h"
#include "cuzk/sha256.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned fil_arities[] = {2, 4, 8, 11, 16, 24, 36};
#define N_FIL_ARITIES (sizeof fil_arities / sizeof fil_arities[0])

static json_t *kats(void)
{
    static json_t *j;
    if (!j)
        j = fil_load_json("filecoin/neptune-kats.json");
    return j;
}

static void fr_from_hex_json(cz_fr *r, json_t *s)
{
    assert_true(json_is_string(s));
    assert_int_equal(cz_fr_from_hex(r, json_string_value(s)), CZ_OK);
}

/* [l0, l1, l2, l3] hex u64 limbs (scalar_from_u64s) -> Fr. */
static void fr_from_limbs_json(cz_fr *r, json_t *arr)
{
    assert_true(json_is_array(arr));
    assert_int_equal(json_array_size(arr), 4);
    uint64_t l[4];
    for (size_t i = 0; i < 4; i++) {
        const char *s = json_string_value(json_array_get(arr, i));
        assert_non_null(s);
        l[i] = strtoull(s, NULL, 16);
    }
    assert_int_equal(cz_fr_from_raw(r, l), CZ_OK);
}

static void dom_from_limbs_json(cz_fil_domain *d, json_t *arr)
{
    cz_fr f;
    fr_from_limbs_json(&f, arr);
    cz_fil_domain_from_fr(d, &f);
}

static void assert_fr_eq(const cz_fr *a, const cz_fr *b)
{
    if (!cz_fr_eq(a, b)) {
        char ha[67], hb[67];
        cz_fr_to_hex(ha, a);
        cz_fr_to_hex(hb, b);
        fail_msg("got %s, expected %s", ha, hb);
    }
}

/* ---- round numbers ------------------------------------------------------------- */

static void test_round_numbers(void **state)
{
    (void)state;
    json_t *rn = json_object_get(kats(), "neptune_round_numbers");
    json_t *std = json_object_get(rn, "standard_t_rp");
    assert_true(json_array_size(std) >= 19);
    for (size_t i = 0; i < json_array_size(std); i++) {
        unsigned t = (unsigned)json_integer_value(json_array_get(json_array_get(std, i), 0));
        unsigned want = (unsigned)json_integer_value(json_array_get(json_array_get(std, i), 1));
        unsigned rf, rp;
        assert_true(cz_neptune_calc_round_numbers(t, true, &rf, &rp));
        assert_int_equal(rf, 8);
        if (rp != want)
            fail_msg("t = %u: R_P %u, expected %u", t, rp, want);
    }
    json_t *stg = json_object_get(rn, "strengthened_arity_rp");
    assert_true(json_array_size(stg) >= 15);
    for (size_t i = 0; i < json_array_size(stg); i++) {
        unsigned a = (unsigned)json_integer_value(json_array_get(json_array_get(stg, i), 0));
        unsigned want = (unsigned)json_integer_value(json_array_get(json_array_get(stg, i), 1));
        unsigned rf, rp;
        if (a > CZ_NEPTUNE_ARITY_MAX) {
            /* arity 64 is beyond the Arity impls; the search still applies */
            assert_true(cz_neptune_calc_round_numbers(a + 1, true, &rf, &rp));
            rp = (unsigned)((rp * 5 + 3) / 4);
        } else {
            assert_true(cz_neptune_round_numbers(a, CZ_NEPTUNE_STRENGTHENED, &rf, &rp));
        }
        assert_int_equal(rf, 8);
        if (rp != want)
            fail_msg("strengthened arity %u: R_P %u, expected %u", a, rp, want);
    }
    unsigned rf, rp;
    assert_false(cz_neptune_round_numbers(0, CZ_NEPTUNE_STANDARD, &rf, &rp));
    assert_false(cz_neptune_round_numbers(37, CZ_NEPTUNE_STANDARD, &rf, &rp));
    assert_false(cz_neptune_calc_round_numbers(1, true, &rf, &rp));
    assert_null(cz_neptune_constants_get(0));
    assert_null(cz_neptune_constants_get(37));
}

/* ---- round constants and matrices ------------------------------------------------ */

static void test_round_constants_t9(void **state)
{
    (void)state;
    json_t *v = json_object_get(kats(), "neptune_round_constants_t9");
    const cz_neptune_constants *c = cz_neptune_constants_get(8);
    assert_non_null(c);
    assert_int_equal(c->width, 9);
    assert_int_equal(c->full_rounds, 8);
    assert_int_equal(c->partial_rounds, 57);
    size_t n = (size_t)(c->full_rounds + c->partial_rounds) * c->width;
    assert_int_equal(n, (size_t)json_integer_value(json_object_get(v, "count")));
    cz_fr want;
    fr_from_hex_json(&want, json_object_get(v, "first_hex_be"));
    assert_fr_eq(&c->round_constants[0], &want);
    fr_from_hex_json(&want, json_object_get(v, "second_hex_be"));
    assert_fr_eq(&c->round_constants[1], &want);
    fr_from_hex_json(&want, json_object_get(v, "last_hex_be"));
    assert_fr_eq(&c->round_constants[n - 1], &want);
    uint8_t *buf = malloc(n * 32);
    assert_non_null(buf);
    for (size_t i = 0; i < n; i++)
        cz_fr_to_bytes_le(buf + 32 * i, &c->round_constants[i]);
    uint8_t d[32];
    cz_sha256(d, buf, n * 32);
    free(buf);
    char hex[65];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    assert_string_equal(hex, json_string_value(json_object_get(v, "sha256_of_le32_concat")));
}

/* mds = 1/(i + t + j), mds·mds_inv = I, and the sizes neptune asserts. */
static void test_matrices(void **state)
{
    (void)state;
    for (size_t a = 0; a < N_FIL_ARITIES; a++) {
        const cz_neptune_constants *c = cz_neptune_constants_get(fil_arities[a]);
        assert_non_null(c);
        unsigned t = c->width;
        assert_int_equal(t, fil_arities[a] + 1);
        assert_int_equal(c->half_full_rounds, 4);
        for (unsigned i = 0; i < t; i++)
            for (unsigned j = 0; j < t; j++) {
                cz_fr x, y;
                cz_fr_from_u64(&x, i + t + j);
                cz_fr_mul(&y, &x, &c->mds[i * t + j]);
                assert_true(cz_fr_is_one(&y));
                cz_fr acc = CZ_FR_ZERO, tmp;
                for (unsigned k = 0; k < t; k++) {
                    cz_fr_mul(&tmp, &c->mds[i * t + k], &c->mds_inv[k * t + j]);
                    cz_fr_add(&acc, &acc, &tmp);
                }
                assert_true(i == j ? cz_fr_is_one(&acc) : cz_fr_is_zero(&acc));
            }
    }
}

/* ---- domain tags ------------------------------------------------------------------- */

static void limbs_fr(cz_fr *r, uint64_t l0, uint64_t l1)
{
    uint64_t l[4] = {l0, l1, 0, 0};
    assert_int_equal(cz_fr_from_raw(r, l), CZ_OK);
}

static void test_domain_tags(void **state)
{
    (void)state;
    cz_fr tag, want;
    /* hash_type.rs test_domain_tags */
    assert_int_equal(cz_neptune_domain_tag(&tag, 8, CZ_NEPTUNE_MERKLE_TREE, 0), CZ_OK);
    limbs_fr(&want, 0xff, 0);
    assert_fr_eq(&tag, &want);
    for (uint64_t n = 1; n < 15; n++) {
        limbs_fr(&want, 0, n);
        assert_int_equal(cz_neptune_domain_tag(&tag, 15, CZ_NEPTUNE_CONSTANT_LENGTH, n), CZ_OK);
        assert_fr_eq(&tag, &want);
        if (n <= 8) {
            assert_int_equal(cz_neptune_domain_tag(&tag, 8, CZ_NEPTUNE_CONSTANT_LENGTH, n), CZ_OK);
            assert_fr_eq(&tag, &want);
        }
    }
    assert_int_equal(cz_neptune_domain_tag(&tag, 8, CZ_NEPTUNE_ENCRYPTION, 0), CZ_OK);
    limbs_fr(&want, UINT64_C(0x100000000), 0);
    assert_fr_eq(&tag, &want);
    for (uint64_t id = 1; id <= 256; id++) {
        assert_int_equal(cz_neptune_domain_tag(&tag, 8, CZ_NEPTUNE_CUSTOM, id), CZ_OK);
        limbs_fr(&want, UINT64_C(0x10000000000) * id, 0);
        assert_fr_eq(&tag, &want);
    }
    assert_int_equal(cz_neptune_domain_tag(&tag, 8, CZ_NEPTUNE_SPONGE, 0), CZ_OK);
    assert_true(cz_fr_is_zero(&tag));
    assert_int_equal(cz_neptune_domain_tag(&tag, 8, CZ_NEPTUNE_CUSTOM, 0), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_neptune_domain_tag(&tag, 8, CZ_NEPTUNE_CUSTOM, 257), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_neptune_domain_tag(&tag, 8, CZ_NEPTUNE_MERKLE_TREE, 1), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_neptune_domain_tag(&tag, 8, (cz_neptune_hash_type)9, 0), CZ_ERR_INVALID_ARG);
    /* MerkleTree tags of the Filecoin arities: 2^arity − 1 */
    for (size_t a = 0; a < N_FIL_ARITIES; a++) {
        const cz_neptune_constants *c = cz_neptune_constants_get(fil_arities[a]);
        limbs_fr(&want, (UINT64_C(1) << fil_arities[a]) - 1, 0);
        assert_fr_eq(&c->domain_tag, &want);
        assert_int_equal(c->hash_type, CZ_NEPTUNE_MERKLE_TREE);
    }
    /* constants_init: a copy with the type's tag, arrays shared */
    cz_neptune_constants cl;
    assert_int_equal(cz_neptune_constants_init(&cl, 4, CZ_NEPTUNE_STANDARD, CZ_NEPTUNE_CONSTANT_LENGTH, 3),
                     CZ_OK);
    limbs_fr(&want, 0, 3);
    assert_fr_eq(&cl.domain_tag, &want);
    assert_ptr_equal(cl.round_constants, cz_neptune_constants_get(4)->round_constants);
    assert_int_equal(cz_neptune_constants_init(&cl, 0, CZ_NEPTUNE_STANDARD, CZ_NEPTUNE_MERKLE_TREE, 0),
                     CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_neptune_constants_init(&cl, 2, CZ_NEPTUNE_STANDARD, CZ_NEPTUNE_CUSTOM, 300),
                     CZ_ERR_INVALID_ARG);
}

/* ---- hashes ----------------------------------------------------------------------------- */

static void hash_all_ways(cz_fr *out, const cz_neptune_constants *c, const cz_fr *in)
{
    cz_fr h2, h3, st[CZ_NEPTUNE_WIDTH_MAX];
    cz_neptune_hash(out, c, in);
    cz_neptune_hash_plain(&h2, c, in);
    assert_fr_eq(&h2, out);
    assert_int_equal(cz_neptune_hash_preimage(&h3, c, in, c->arity), CZ_OK);
    assert_fr_eq(&h3, out);
    st[0] = c->domain_tag;
    memcpy(st + 1, in, c->arity * sizeof *in);
    cz_neptune_permute(c, st);
    assert_fr_eq(&st[1], out);
}

/* poseidon-neptune.json: [1..arity] and the selfcheck [0..arity−1]. */
static void test_neptune_json(void **state)
{
    (void)state;
    json_t *j = fil_load_json("filecoin/poseidon-neptune.json");
    json_t *k = json_object_get(j, "kats");
    assert_int_equal(json_array_size(k), 3);
    for (size_t i = 0; i < json_array_size(k); i++) {
        json_t *e = json_array_get(k, i);
        unsigned arity = (unsigned)json_integer_value(json_object_get(e, "arity"));
        const cz_neptune_constants *c = cz_neptune_constants_get(arity);
        assert_non_null(c);
        assert_int_equal(c->full_rounds, json_integer_value(json_object_get(e, "full_rounds")));
        assert_int_equal(c->partial_rounds, json_integer_value(json_object_get(e, "partial_rounds")));
        cz_fr want, in[CZ_NEPTUNE_ARITY_MAX], got;
        assert_int_equal(cz_fr_from_dec(&want, json_string_value(json_object_get(
                                                   json_object_get(e, "domain_tag"), "dec"))),
                         CZ_OK);
        assert_fr_eq(&c->domain_tag, &want);
        for (unsigned x = 0; x < arity; x++)
            cz_fr_from_u64(&in[x], x + 1);
        hash_all_ways(&got, c, in);
        json_t *h = json_object_get(e, "hash");
        assert_int_equal(cz_fr_from_dec(&want, json_string_value(json_object_get(h, "dec"))), CZ_OK);
        assert_fr_eq(&got, &want);
        uint8_t le[32];
        cz_fr_to_bytes_le(le, &got);
        char hex[65];
        for (int b = 0; b < 32; b++)
            snprintf(hex + 2 * b, 3, "%02x", le[b]);
        assert_string_equal(hex, json_string_value(json_object_get(h, "le_hex")));
    }
    json_t *sc = json_object_get(j, "selfcheck_vs_neptune_in_tree_vectors_preimage_0_to_arity_minus_1");
    const unsigned sa[] = {2, 8, 11};
    for (size_t i = 0; i < 3; i++) {
        char key[32];
        snprintf(key, sizeof key, "arity%u_hash", sa[i]);
        cz_fr want, in[CZ_NEPTUNE_ARITY_MAX], got;
        assert_int_equal(cz_fr_from_dec(&want, json_string_value(json_object_get(json_object_get(sc, key),
                                                                                 "dec"))),
                         CZ_OK);
        const cz_neptune_constants *c = cz_neptune_constants_get(sa[i]);
        for (unsigned x = 0; x < sa[i]; x++)
            cz_fr_from_u64(&in[x], x);
        hash_all_ways(&got, c, in);
        assert_fr_eq(&got, &want);
    }
    json_decref(j);
}

/* neptune poseidon.rs hash_values: [0..arity−1] under MerkleTree, and
 * the ConstantLength(4) sponge, both strengths, arities 2..36. */
static void test_neptune_hash_values(void **state)
{
    (void)state;
    json_t *hv = json_object_get(kats(), "neptune_hash_values");
    const char *sname[2] = {"standard", "strengthened"};
    for (int s = 0; s < 2; s++) {
        json_t *merkle = json_object_get(json_object_get(hv, "merkle"), sname[s]);
        json_t *cl = json_object_get(json_object_get(hv, "constant_length_4"), sname[s]);
        for (size_t a = 0; a < N_FIL_ARITIES; a++) {
            unsigned arity = fil_arities[a];
            char key[8];
            snprintf(key, sizeof key, "%u", arity);
            const cz_neptune_constants *c = cz_neptune_constants_get_strength(arity, (cz_neptune_strength)s);
            assert_non_null(c);
            cz_fr in[CZ_NEPTUNE_ARITY_MAX], got, want;
            for (unsigned x = 0; x < CZ_NEPTUNE_ARITY_MAX; x++)
                cz_fr_from_u64(&in[x], x); /* the sponge reads 4 even for arity 2 */
            hash_all_ways(&got, c, in);
            fr_from_limbs_json(&want, json_object_get(merkle, key));
            if (!cz_fr_eq(&got, &want))
                fail_msg("%s arity %u: MerkleTree hash differs", sname[s], arity);

            cz_neptune_constants cc;
            assert_int_equal(cz_neptune_constants_init(&cc, arity, (cz_neptune_strength)s,
                                                       CZ_NEPTUNE_CONSTANT_LENGTH, 4),
                             CZ_OK);
            assert_int_equal(cz_neptune_sponge_hash(&got, &cc, in, 4), CZ_OK);
            fr_from_limbs_json(&want, json_object_get(cl, key));
            if (!cz_fr_eq(&got, &want))
                fail_msg("%s arity %u: ConstantLength(4) sponge differs", sname[s], arity);
            cz_fr h;
            if (arity >= 4) {
                /* Poseidon::new_with_preimage on 4 elements (zero-filled) */
                assert_int_equal(cz_neptune_hash_preimage(&h, &cc, in, 4), CZ_OK);
                assert_fr_eq(&h, &want);
            } else {
                assert_int_equal(cz_neptune_hash_preimage(&h, &cc, in, 4), CZ_ERR_INVALID_ARG);
            }
            assert_int_equal(cz_neptune_hash_preimage(&h, &cc, in, 3), CZ_ERR_INVALID_ARG);
            assert_int_equal(cz_neptune_sponge_hash(&h, &cc, in, 3), CZ_ERR_INVALID_ARG);
            assert_int_equal(cz_neptune_sponge_hash(&h, c, in, 4), CZ_ERR_INVALID_ARG);
        }
    }
}

/* A sponge over several blocks with a short last one equals the
 * documented construction (adds, zeroing pad, lane 1), and MerkleTree
 * preimages must be full. */
static void test_sponge_partial_block(void **state)
{
    (void)state;
    const cz_neptune_constants *c = cz_neptune_constants_get(2);
    cz_neptune_constants cc;
    assert_int_equal(cz_neptune_constants_init(&cc, 2, CZ_NEPTUNE_STANDARD, CZ_NEPTUNE_CONSTANT_LENGTH, 5),
                     CZ_OK);
    cz_fr in[5], got, s[3];
    for (int i = 0; i < 5; i++)
        cz_rng_fr(&in[i]);
    assert_int_equal(cz_neptune_sponge_hash(&got, &cc, in, 5), CZ_OK);
    s[0] = cc.domain_tag;
    s[1] = in[0];
    s[2] = in[1];
    cz_neptune_permute_plain(c, s);
    cz_fr_add(&s[1], &s[1], &in[2]);
    cz_fr_add(&s[2], &s[2], &in[3]);
    cz_neptune_permute_plain(c, s);
    cz_fr_add(&s[1], &s[1], &in[4]);
    s[2] = CZ_FR_ZERO;
    cz_neptune_permute_plain(c, s);
    assert_fr_eq(&got, &s[1]);
    cz_fr h;
    assert_int_equal(cz_neptune_hash_preimage(&h, c, in, 1), CZ_ERR_INVALID_ARG);
}

/* optimised == plain for random states, every arity 1..36 (standard). */
static void test_opt_equals_plain(void **state)
{
    (void)state;
    for (unsigned arity = 1; arity <= CZ_NEPTUNE_ARITY_MAX; arity++) {
        if (arity > 12 && arity != 16 && arity != 24 && arity != 36)
            continue; /* keep the sanitizer run short; 1..12 and Filecoin's */
        const cz_neptune_constants *c = cz_neptune_constants_get(arity);
        assert_non_null(c);
        for (int rep = 0; rep < 3; rep++) {
            cz_fr a[CZ_NEPTUNE_WIDTH_MAX], b[CZ_NEPTUNE_WIDTH_MAX];
            for (unsigned i = 0; i < c->width; i++)
                cz_rng_fr(&a[i]);
            memcpy(b, a, sizeof a);
            cz_neptune_permute(c, a);
            cz_neptune_permute_plain(c, b);
            for (unsigned i = 0; i < c->width; i++)
                if (!cz_fr_eq(&a[i], &b[i]))
                    fail_msg("arity %u lane %u: optimised != plain", arity, i);
        }
    }
}

/* Concurrent first use of one arity generates it once. */
static void *get_thread(void *arg)
{
    (void)arg;
    return (void *)cz_neptune_constants_get_strength(5, CZ_NEPTUNE_STRENGTHENED);
}

static void test_concurrent_get(void **state)
{
    (void)state;
    pthread_t th[4];
    void *res[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, get_thread, NULL), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_join(th[i], &res[i]), 0);
    assert_non_null(res[0]);
    for (int i = 1; i < 4; i++)
        assert_ptr_equal(res[i], res[0]);
    assert_int_equal(((const cz_neptune_constants *)res[0])->partial_rounds, 70);
}

/* ---- filecoin-hashers ------------------------------------------------------------------- */

static void dom_u64(cz_fil_domain *d, uint64_t v)
{
    cz_fr f;
    cz_fr_from_u64(&f, v);
    cz_fil_domain_from_fr(d, &f);
}

/* test_poseidon_hasher: binary tree over [1, 0, 0, 1]. */
static void test_fil_tree(void **state)
{
    (void)state;
    json_t *t = json_object_get(json_object_get(kats(), "filecoin_hashers"), "poseidon_hasher_tree");
    cz_fil_domain leaves[4], i1, i2, root, want;
    dom_u64(&leaves[0], 1);
    dom_u64(&leaves[1], 0);
    dom_u64(&leaves[2], 0);
    dom_u64(&leaves[3], 1);
    assert_int_equal(cz_fil_poseidon_hash_node(&i1, leaves, 2), CZ_OK);
    assert_int_equal(cz_fil_poseidon_hash_node(&i2, leaves + 2, 2), CZ_OK);
    dom_from_limbs_json(&want, json_object_get(t, "node_leaf0_leaf1"));
    assert_memory_equal(i1.b, want.b, 32);
    cz_fil_domain lv[2] = {i1, i2};
    assert_int_equal(cz_fil_poseidon_hash_node(&root, lv, 2), CZ_OK);
    dom_from_limbs_json(&want, json_object_get(t, "root"));
    assert_memory_equal(root.b, want.b, 32);
    /* hash2 is the same binary hash; in place */
    cz_fil_domain x = i1;
    assert_int_equal(cz_fil_poseidon_hash2(&x, &x, &i2), CZ_OK);
    assert_memory_equal(x.b, want.b, 32);
    /* bytes form */
    assert_int_equal(cz_fil_poseidon_hash_bytes(&x, (const uint8_t *)lv, 64), CZ_OK);
    assert_memory_equal(x.b, want.b, 32);
    /* a level batch */
    cz_fil_domain lvl[2];
    assert_int_equal(cz_fil_poseidon_hash_nodes(lvl, leaves, 2, 2, NULL), CZ_OK);
    assert_memory_equal(lvl[0].b, i1.b, 32);
    assert_memory_equal(lvl[1].b, i2.b, 32);
}

static void test_fil_hash_md(void **state)
{
    (void)state;
    json_t *m = json_object_get(json_object_get(kats(), "filecoin_hashers"), "hash_md_71_ones");
    cz_fil_domain in[71], out, want;
    for (int i = 0; i < 71; i++)
        dom_u64(&in[i], 1);
    assert_int_equal(cz_fil_poseidon_hash_md(&out, in, 71), CZ_OK);
    dom_from_limbs_json(&want, json_object_get(m, "result"));
    assert_memory_equal(out.b, want.b, 32);
    assert_int_equal(cz_fil_poseidon_hash_md(&out, in, 1), CZ_ERR_INVALID_ARG);
}

/* hash_single_column: 2 rows with POSEIDON_CONSTANTS_2, 11 with _11
 * (poseidon-neptune.json's [1..n] hashes), domain and batch forms. */
static void test_fil_columns(void **state)
{
    (void)state;
    json_t *j = fil_load_json("filecoin/poseidon-neptune.json");
    json_t *k = json_object_get(j, "kats");
    for (size_t i = 0; i < json_array_size(k); i++) {
        json_t *e = json_array_get(k, i);
        unsigned n = (unsigned)json_integer_value(json_object_get(e, "arity"));
        cz_fr col[11], want, got;
        assert_int_equal(cz_fr_from_dec(&want, json_string_value(json_object_get(json_object_get(e, "hash"),
                                                                                 "dec"))),
                         CZ_OK);
        for (unsigned x = 0; x < n && x < 11; x++)
            cz_fr_from_u64(&col[x], x + 1);
        if (n != 2 && n != 11) {
            assert_int_equal(cz_fil_hash_single_column(&got, col, n), CZ_ERR_INVALID_ARG);
            continue;
        }
        assert_int_equal(cz_fil_hash_single_column(&got, col, n), CZ_OK);
        assert_fr_eq(&got, &want);
        cz_fil_domain rows[11], out, wd;
        for (unsigned x = 0; x < n; x++)
            cz_fil_domain_from_fr(&rows[x], &col[x]);
        cz_fil_domain_from_fr(&wd, &want);
        assert_int_equal(cz_fil_poseidon_hash_column(&out, rows, n), CZ_OK);
        assert_memory_equal(out.b, wd.b, 32);
    }
    json_decref(j);

    /* columns batch == singles over a pool, layer-major input */
    const unsigned L = 11;
    const size_t N = 300;
    cz_fil_domain *lab = malloc(L * N * sizeof *lab), *out = malloc(N * sizeof *out);
    assert_non_null(lab);
    assert_non_null(out);
    const cz_fil_domain *layers[11];
    for (unsigned l = 0; l < L; l++) {
        for (size_t x = 0; x < N; x++) {
            cz_fr f;
            cz_rng_fr(&f);
            cz_fil_domain_from_fr(&lab[l * N + x], &f);
        }
        layers[l] = lab + l * N;
    }
    cz_pool *pool;
    assert_int_equal(cz_pool_create(&pool, 2, "tpos"), CZ_OK);
    assert_int_equal(cz_fil_poseidon_hash_columns(out, layers, L, N, pool), CZ_OK);
    for (size_t x = 0; x < N; x += 37) {
        cz_fil_domain rows[11], h;
        for (unsigned l = 0; l < L; l++)
            rows[l] = lab[l * N + x];
        assert_int_equal(cz_fil_poseidon_hash_column(&h, rows, L), CZ_OK);
        assert_memory_equal(h.b, out[x].b, 32);
    }
    /* oct nodes over the same data, batch vs single */
    cz_fil_domain *lvl = malloc((L * N / 8) * sizeof *lvl);
    assert_non_null(lvl);
    assert_int_equal(cz_fil_poseidon_hash_nodes(lvl, lab, L * N / 8, 8, pool), CZ_OK);
    for (size_t x = 0; x < L * N / 8; x += 29) {
        cz_fil_domain h;
        assert_int_equal(cz_fil_poseidon_hash_node(&h, lab + 8 * x, 8), CZ_OK);
        assert_memory_equal(h.b, lvl[x].b, 32);
    }
    /* a non-canonical row anywhere is refused */
    memset(lab[3 * N + 123].b, 0xff, 32);
    assert_int_equal(cz_fil_poseidon_hash_columns(out, layers, L, N, pool), CZ_ERR_NOT_CANONICAL);
    assert_int_equal(cz_fil_poseidon_hash_nodes(lvl, lab, L * N / 8, 8, pool), CZ_ERR_NOT_CANONICAL);
    assert_int_equal(cz_fil_poseidon_hash_columns(out, layers, 3, N, pool), CZ_ERR_INVALID_ARG);
    cz_pool_destroy(pool);
    free(lvl);
    free(out);
    free(lab);
}

/* Fr batch == singles. */
static void test_hash_batch(void **state)
{
    (void)state;
    const cz_neptune_constants *c = cz_neptune_constants_get(8);
    const size_t n = 700;
    cz_fr *in = malloc(n * 8 * sizeof *in), *out = malloc(n * sizeof *out);
    assert_non_null(in);
    assert_non_null(out);
    for (size_t i = 0; i < n * 8; i++)
        cz_rng_fr(&in[i]);
    cz_pool *pool;
    assert_int_equal(cz_pool_create(&pool, 2, "tpos"), CZ_OK);
    cz_neptune_hash_batch(out, c, in, n, pool);
    cz_pool_destroy(pool);
    for (size_t i = 0; i < n; i += 53) {
        cz_fr h;
        cz_neptune_hash_plain(&h, c, in + 8 * i);
        assert_fr_eq(&h, &out[i]);
    }
    free(in);
    free(out);
}

/* r itself (the smallest non-canonical value) and all-ones bytes are
 * refused everywhere a domain element is read; bad counts too. */
static void test_fil_refusals(void **state)
{
    (void)state;
    static const uint8_t r_le[32] = {
        0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
        0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
    cz_fil_domain ok[16], bad, out;
    for (int i = 0; i < 16; i++)
        dom_u64(&ok[i], (uint64_t)i + 7);
    memcpy(bad.b, r_le, 32);
    cz_fr f;
    assert_int_equal(cz_fil_domain_to_fr(&f, &bad), CZ_ERR_NOT_CANONICAL);
    cz_fil_domain sentinel;
    memset(sentinel.b, 0xa5, 32);
    out = sentinel;
    assert_int_equal(cz_fil_poseidon_hash2(&out, &ok[0], &bad), CZ_ERR_NOT_CANONICAL);
    assert_memory_equal(out.b, sentinel.b, 32);
    assert_int_equal(cz_fil_poseidon_hash2(&out, &bad, &ok[0]), CZ_ERR_NOT_CANONICAL);
    unsigned ns[] = {2, 4, 8, 16};
    for (int i = 0; i < 4; i++) {
        cz_fil_domain p[16];
        memcpy(p, ok, sizeof p);
        assert_int_equal(cz_fil_poseidon_hash_node(&out, p, ns[i]), CZ_OK);
        p[ns[i] - 1] = bad;
        assert_int_equal(cz_fil_poseidon_hash_node(&out, p, ns[i]), CZ_ERR_NOT_CANONICAL);
        assert_int_equal(cz_fil_poseidon_hash_bytes(&out, (const uint8_t *)p, 32 * ns[i]),
                         CZ_ERR_NOT_CANONICAL);
    }
    unsigned badn[] = {0, 1, 3, 5, 11, 32};
    for (int i = 0; i < 6; i++)
        assert_int_equal(cz_fil_poseidon_hash_node(&out, ok, badn[i]), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_poseidon_hash_bytes(&out, (const uint8_t *)ok, 96), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_poseidon_hash_bytes(&out, (const uint8_t *)ok, 65), CZ_ERR_INVALID_ARG);
    cz_fil_domain md[40];
    for (int i = 0; i < 40; i++)
        md[i] = ok[i % 16];
    md[39] = bad;
    assert_int_equal(cz_fil_poseidon_hash_md(&out, md, 40), CZ_ERR_NOT_CANONICAL);
    cz_fil_domain col[11];
    memcpy(col, ok, sizeof col);
    col[10] = bad;
    assert_int_equal(cz_fil_poseidon_hash_column(&out, col, 11), CZ_ERR_NOT_CANONICAL);
    assert_int_equal(cz_fil_poseidon_hash_column(&out, col, 8), CZ_ERR_INVALID_ARG);
    cz_fr frc[8] = {0};
    assert_int_equal(cz_fil_hash_single_column(&f, frc, 8), CZ_ERR_INVALID_ARG);
}

int main(void)
{
    cz_test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_get),
        cmocka_unit_test(test_round_numbers),
        cmocka_unit_test(test_round_constants_t9),
        cmocka_unit_test(test_matrices),
        cmocka_unit_test(test_domain_tags),
        cmocka_unit_test(test_neptune_json),
        cmocka_unit_test(test_neptune_hash_values),
        cmocka_unit_test(test_sponge_partial_block),
        cmocka_unit_test(test_opt_equals_plain),
        cmocka_unit_test(test_fil_tree),
        cmocka_unit_test(test_fil_hash_md),
        cmocka_unit_test(test_fil_columns),
        cmocka_unit_test(test_hash_batch),
        cmocka_unit_test(test_fil_refusals),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    json_decref(kats());
    return rc;
}
