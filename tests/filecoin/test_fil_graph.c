/*
 * SDR graph, labelling and encoding against rust-fil-proofs' own numbers:
 *  - storage-proofs-porep tests/stacked_vanilla.rs
 *    test_stacked_porep_generate_labels: the last label of the last of 11
 *    layers for 64 and 128 nodes, replica_id [9; 32], porep_id [0; 32]
 *    (API 1.0) and [123; 32] (1.1 and 1.2);
 *  - the real 2KiB v1.1 sector (tests/vectors/filecoin/porep-2k-v1.1): the
 *    parent indices among the circuit's public inputs (fixture.json) and
 *    the column indices of c1.json equal the graph's; every label of the
 *    sector computed here equals every column row c1.json holds; every
 *    labeling proof's 37 parents equal cz_fil_label_parents and re-hash to
 *    the challenged row; the encoding proof's key encodes the data leaf
 *    (which equals the fr32-padded piece) to comm_r_last_proof.leaf, and
 *    decodes back;
 *  - the properties the reference's graph tests assert (drgraph.rs
 *    graph_bucket, feistel.rs, graph.rs test_shuffle / pathology / high
 *    parent bits / histogram), on the same graphs;
 *  - the parent cache equals on-demand parents, and cached labelling equals
 *    uncached; the integer ceil(log2) equals libm's around every power of
 *    two up to 2^36.
 */
#include "filtest.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/fil_graph.h"
#include "cuzk/sha256.h"

/* ---- helpers ----------------------------------------------------------------- */
static void from_u64s_le(cz_fil_domain *d, uint64_t a, uint64_t b, uint64_t c, uint64_t e)
{
    uint64_t l[4] = {a, b, c, e};
    for (int i = 0; i < 32; i++)
        d->b[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
}

static void json_domain(cz_fil_domain *d, const json_t *a)
{
    assert_true(json_is_array(a));
    assert_int_equal(json_array_size(a), 32);
    for (size_t i = 0; i < 32; i++) {
        json_int_t v = json_integer_value(json_array_get(a, i));
        assert_true(v >= 0 && v <= 255);
        d->b[i] = (uint8_t)v;
    }
}

/* ---- test_stacked_porep_generate_labels -------------------------------------- */
static void check_generate_labels(uint64_t nodes, uint8_t porep_byte, cz_fil_api_version api,
                                  const cz_fil_domain *expect)
{
    uint8_t porep_id[32], rid[32];
    memset(porep_id, porep_byte, 32);
    memset(rid, 9, 32);
    cz_fil_domain replica_id;
    memcpy(replica_id.b, rid, 32);
    cz_fil_graph g;
    assert_int_equal(cz_fil_graph_init(&g, nodes, porep_id, api), CZ_OK);
    const unsigned layers = 11;
    cz_fil_domain *labels = malloc(sizeof *labels * layers * nodes);
    assert_non_null(labels);
    assert_int_equal(cz_fil_labels(&g, &replica_id, layers, labels), CZ_OK);
    assert_memory_equal(labels[layers * nodes - 1].b, expect->b, 32);

    /* the same with the parent cache */
    cz_fil_domain *l2 = malloc(sizeof *l2 * layers * nodes);
    assert_non_null(l2);
    assert_int_equal(cz_fil_graph_build_cache(&g, NULL), CZ_OK);
    assert_int_equal(cz_fil_labels(&g, &replica_id, layers, l2), CZ_OK);
    assert_memory_equal(labels, l2, sizeof *l2 * layers * nodes);
    free(l2);
    free(labels);
    cz_fil_graph_free(&g);
}

static void test_generate_labels(void **state)
{
    (void)state;
    printf("sha256 path: %s\n", cz_sha256_impl_name(cz_sha256_active_impl()));
    cz_fil_domain e;
    from_u64s_le(&e, 0xd3faa96b9a0fba04, 0xea81a283d106485e, 0xe3d51b9afa5ac2b3, 0x0462f4f4f1a68d37);
    check_generate_labels(64, 0, CZ_FIL_API_1_0, &e);
    from_u64s_le(&e, 0x7e191e52c4a8da86, 0x5ae8a1c9e6fac148, 0xce239f3b88a894b8, 0x234c00d1dc1d53be);
    check_generate_labels(128, 0, CZ_FIL_API_1_0, &e);
    from_u64s_le(&e, 0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc, 0x06021188c7a71cb5);
    check_generate_labels(64, 123, CZ_FIL_API_1_1, &e);
    check_generate_labels(64, 123, CZ_FIL_API_1_2, &e);
    from_u64s_le(&e, 0x22ab81cf68c4676d, 0x7a77a82fc7c9c189, 0xc6c03d32c1e42d23, 0x0f777c18cc2c55bd);
    check_generate_labels(128, 123, CZ_FIL_API_1_1, &e);
    check_generate_labels(128, 123, CZ_FIL_API_1_2, &e);
}

/* ---- the real 2KiB sector --------------------------------------------------------- */
/* fr32 padding (filecoin fr32::write_padded): after every 254 data bits,
 * two zero bits; bits little-endian within bytes. */
static void fr32_pad(uint8_t *out, const uint8_t *in, size_t in_len)
{
    size_t in_bits = in_len * 8, out_len = in_len / 127 * 128;
    memset(out, 0, out_len);
    for (size_t ib = 0; ib < in_bits; ib++) {
        size_t ob = ib / 254 * 256 + ib % 254;
        if ((in[ib / 8] >> (ib % 8)) & 1)
            out[ob / 8] |= (uint8_t)(1u << (ob % 8));
    }
}

static void test_porep_2k(void **state)
{
    (void)state;
    json_t *fx = fil_load_json("filecoin/porep-2k-v1.1/fixture.json");
    json_t *c1 = fil_load_json("filecoin/porep-2k-v1.1/c1.json");

    const uint64_t nodes = 64;
    const unsigned layers = (unsigned)json_integer_value(json_object_get(fx, "layers"));
    assert_int_equal(layers, 2);
    uint8_t porep_id[32];
    fil_unhex(porep_id, json_string_value(json_object_get(fx, "porep_id_hex")), 32);
    cz_fil_domain rid;
    json_domain(&rid, json_object_get(c1, "replica_id"));
    {
        cz_fil_domain r2;
        fil_unhex(r2.b, json_string_value(json_object_get(json_object_get(fx, "replica_id"), "le_hex")), 32);
        assert_memory_equal(rid.b, r2.b, 32);
    }
    cz_fil_graph g;
    assert_int_equal(cz_fil_graph_init(&g, nodes, porep_id, CZ_FIL_API_1_1), CZ_OK);

    /* public inputs: replica_id, comm_d, comm_r, then per challenge 18:
     * comm_d index, 6 DRG parents, 8 expander parents, challenge, c_x index,
     * comm_r_last index */
    json_t *pis = json_array_get(json_object_get(fx, "public_inputs_per_partition"), 0);
    assert_int_equal(json_array_size(pis), 39);
    for (unsigned c = 0; c < 2; c++) {
        uint64_t v[18];
        for (unsigned i = 0; i < 18; i++)
            v[i] = strtoull(json_string_value(json_object_get(json_array_get(pis, 3 + 18 * c + i), "dec")),
                            NULL, 10);
        uint64_t ch = v[0];
        assert_true(ch < nodes);
        assert_int_equal(v[15], ch);
        assert_int_equal(v[16], ch);
        assert_int_equal(v[17], ch);
        uint32_t p[CZ_FIL_DEGREE];
        assert_int_equal(cz_fil_graph_parents(&g, ch, p), CZ_OK);
        for (unsigned i = 0; i < CZ_FIL_DEGREE; i++)
            assert_int_equal(p[i], v[1 + i]);
    }

    /* every label of the sector */
    cz_fil_domain *labels = calloc(layers * nodes, sizeof *labels);
    assert_non_null(labels);
    assert_int_equal(cz_fil_labels(&g, &rid, layers, labels), CZ_OK);

    /* the sector data, for the encoding check */
    size_t plen;
    uint8_t *piece = cz_read_file(cz_vector_path("filecoin/porep-2k-v1.1/piece.bin"), &plen);
    assert_int_equal(plen, 2032);
    cz_fil_domain data[64];
    fr32_pad(data[0].b, piece, plen);
    free(piece);

    json_t *parts = json_object_get(json_object_get(c1, "vanilla_proofs"), "StackedDrg2KiBV1");
    assert_int_equal(json_array_size(parts), 1);
    json_t *proofs = json_array_get(parts, 0);
    assert_int_equal(json_array_size(proofs), 2);
    unsigned rows_checked = 0, label_proofs = 0;
    for (size_t k = 0; k < json_array_size(proofs); k++) {
        json_t *pr = json_array_get(proofs, k);
        json_t *rcp = json_object_get(pr, "replica_column_proofs");
        json_t *cx = json_object_get(json_object_get(rcp, "c_x"), "column");
        uint64_t ch = (uint64_t)json_integer_value(json_object_get(cx, "index"));
        uint32_t p[CZ_FIL_DEGREE];
        assert_int_equal(cz_fil_graph_parents(&g, ch, p), CZ_OK);

        /* columns: c_x, then drg_parents / exp_parents in graph order; each
         * row r is the label of layer r + 1 at the column's node */
        json_t *cols[1 + CZ_FIL_DEGREE];
        uint64_t want[1 + CZ_FIL_DEGREE];
        cols[0] = cx;
        want[0] = ch;
        json_t *drg = json_object_get(rcp, "drg_parents"), *exp = json_object_get(rcp, "exp_parents");
        assert_int_equal(json_array_size(drg), CZ_FIL_BASE_DEGREE);
        assert_int_equal(json_array_size(exp), CZ_FIL_EXP_DEGREE);
        for (unsigned i = 0; i < CZ_FIL_DEGREE; i++) {
            json_t *src = i < CZ_FIL_BASE_DEGREE ? json_array_get(drg, i)
                                                 : json_array_get(exp, i - CZ_FIL_BASE_DEGREE);
            cols[1 + i] = json_object_get(src, "column");
            want[1 + i] = p[i];
        }
        for (unsigned i = 0; i < 1 + CZ_FIL_DEGREE; i++) {
            uint64_t idx = (uint64_t)json_integer_value(json_object_get(cols[i], "index"));
            assert_int_equal(idx, want[i]);
            json_t *rows = json_object_get(cols[i], "rows");
            assert_int_equal(json_array_size(rows), layers);
            for (unsigned r = 0; r < layers; r++) {
                cz_fil_domain row;
                json_domain(&row, json_array_get(rows, r));
                assert_memory_equal(row.b, labels[r * nodes + idx].b, 32);
                rows_checked++;
            }
        }

        /* labeling proofs: parents as assembled here, re-hashed to the row */
        json_t *lps = json_object_get(pr, "labeling_proofs");
        assert_int_equal(json_array_size(lps), layers);
        for (unsigned l = 0; l < layers; l++) {
            json_t *lp = json_array_get(lps, l);
            uint32_t layer = (uint32_t)json_integer_value(json_object_get(lp, "layer_index"));
            uint64_t node = (uint64_t)json_integer_value(json_object_get(lp, "node"));
            assert_int_equal(layer, l + 1);
            assert_int_equal(node, ch);
            json_t *pa = json_object_get(lp, "parents");
            assert_int_equal(json_array_size(pa), CZ_FIL_LABEL_PARENTS);
            cz_fil_domain par[CZ_FIL_LABEL_PARENTS], mine[CZ_FIL_LABEL_PARENTS];
            for (unsigned i = 0; i < CZ_FIL_LABEL_PARENTS; i++)
                json_domain(&par[i], json_array_get(pa, i));
            assert_int_equal(cz_fil_label_parents(&g, layer, node, labels + (layer - 1) * nodes,
                                                  layer > 1 ? labels + (layer - 2) * nodes : NULL, mine),
                             CZ_OK);
            assert_memory_equal(par, mine, sizeof par);
            cz_fil_domain lab, row;
            cz_fil_label_from_parents(&lab, &rid, layer, node, par, CZ_FIL_LABEL_PARENTS);
            json_domain(&row, json_array_get(json_object_get(cx, "rows"), l));
            assert_memory_equal(lab.b, row.b, 32);
            /* a wrong parent changes the label */
            par[36].b[0] ^= 1;
            cz_fil_label_from_parents(&lab, &rid, layer, node, par, CZ_FIL_LABEL_PARENTS);
            assert_memory_not_equal(lab.b, row.b, 32);
            label_proofs++;
        }

        /* encoding proof: key (last layer's label) + data leaf = replica leaf */
        json_t *ep = json_object_get(pr, "encoding_proof");
        assert_int_equal(json_integer_value(json_object_get(ep, "layer_index")), layers);
        assert_int_equal(json_integer_value(json_object_get(ep, "node")), ch);
        json_t *epa = json_object_get(ep, "parents");
        assert_int_equal(json_array_size(epa), CZ_FIL_LABEL_PARENTS);
        cz_fil_domain par[CZ_FIL_LABEL_PARENTS];
        for (unsigned i = 0; i < CZ_FIL_LABEL_PARENTS; i++)
            json_domain(&par[i], json_array_get(epa, i));
        cz_fil_domain key, dleaf, rleaf, enc, dec;
        cz_fil_label_from_parents(&key, &rid, layers, ch, par, CZ_FIL_LABEL_PARENTS);
        assert_memory_equal(key.b, labels[(layers - 1) * nodes + ch].b, 32);
        json_domain(&dleaf, json_object_get(json_object_get(json_object_get(json_object_get(pr, "comm_d_proofs"), "data"), "Single"), "leaf"));
        json_domain(&rleaf, json_object_get(json_object_get(json_object_get(json_object_get(pr, "comm_r_last_proof"), "data"), "Single"), "leaf"));
        assert_memory_equal(dleaf.b, data[ch].b, 32);
        assert_int_equal(cz_fil_encode(&enc, &key, &dleaf), CZ_OK);
        assert_memory_equal(enc.b, rleaf.b, 32);
        assert_int_equal(cz_fil_decode(&dec, &key, &rleaf), CZ_OK);
        assert_memory_equal(dec.b, dleaf.b, 32);
    }
    printf("2KiB v1.1: %u column rows and %u labeling proofs match\n", rows_checked, label_proofs);
    assert_int_equal(rows_checked, 2 * 15 * 2);

    /* the whole sector encodes and decodes in place, and the challenged
     * nodes land on the replica leaves checked above */
    cz_fil_domain rep[64];
    memcpy(rep, data, sizeof rep);
    assert_int_equal(cz_fil_encode_nodes(rep, labels + (layers - 1) * nodes, rep, nodes, NULL), CZ_OK);
    for (size_t k = 0; k < json_array_size(proofs); k++) {
        json_t *pr = json_array_get(proofs, k);
        uint64_t ch = (uint64_t)json_integer_value(json_object_get(json_object_get(
            json_object_get(json_object_get(pr, "replica_column_proofs"), "c_x"), "column"), "index"));
        cz_fil_domain rleaf;
        json_domain(&rleaf, json_object_get(json_object_get(json_object_get(json_object_get(pr, "comm_r_last_proof"), "data"), "Single"), "leaf"));
        assert_memory_equal(rep[ch].b, rleaf.b, 32);
    }
    assert_int_equal(cz_fil_decode_nodes(rep, labels + (layers - 1) * nodes, rep, nodes, NULL), CZ_OK);
    assert_memory_equal(rep, data, sizeof rep);
    /* non-canonical input is refused */
    cz_fil_domain bad;
    memset(bad.b, 0xff, 32);
    assert_int_equal(cz_fil_encode(&rep[0], &bad, &data[0]), CZ_ERR_NOT_CANONICAL);
    assert_int_equal(cz_fil_encode_nodes(rep, labels, &bad, 1, NULL), CZ_ERR_NOT_CANONICAL);

    free(labels);
    cz_fil_graph_free(&g);
    json_decref(fx);
    json_decref(c1);
}

/* ---- drgraph.rs graph_bucket ---------------------------------------------------------- */
static void test_bucket_properties(void **state)
{
    (void)state;
    const uint64_t sizes[] = {4, 16, 256, 2048};
    for (int v = 0; v < 2; v++) {
        uint8_t porep_id[32] = {0};
        porep_id[0] = v ? 5 : 0;
        cz_fil_api_version api = v ? CZ_FIL_API_1_2 : CZ_FIL_API_1_0;
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            cz_fil_graph g;
            assert_int_equal(cz_fil_graph_init(&g, sizes[s], porep_id, api), CZ_OK);
            uint32_t p[CZ_FIL_BASE_DEGREE], q[CZ_FIL_BASE_DEGREE];
            for (uint64_t n = 0; n < 2; n++) {
                assert_int_equal(cz_fil_graph_base_parents(&g, n, p), CZ_OK);
                for (unsigned i = 0; i < CZ_FIL_BASE_DEGREE; i++)
                    assert_int_equal(p[i], 0);
            }
            for (uint64_t n = 1; n < sizes[s]; n++) {
                assert_int_equal(cz_fil_graph_base_parents(&g, n, p), CZ_OK);
                assert_int_equal(cz_fil_graph_base_parents(&g, n, q), CZ_OK);
                assert_memory_equal(p, q, sizeof p);
                for (unsigned i = 0; i < CZ_FIL_BASE_DEGREE; i++) {
                    assert_int_not_equal(p[i], n);
                    assert_true(p[i] < n);
                }
                assert_int_equal(p[v ? 0 : CZ_FIL_BASE_DEGREE - 1], n - 1);
            }
            assert_int_equal(cz_fil_graph_base_parents(&g, sizes[s], p), CZ_ERR_INVALID_ARG);
            cz_fil_graph_free(&g);
        }
    }
    /* 1.0 and 1.1 draw the same parents, placed differently */
    uint8_t pid[32] = {7};
    cz_fil_graph a, b;
    assert_int_equal(cz_fil_graph_init(&a, 1024, pid, CZ_FIL_API_1_0), CZ_OK);
    assert_int_equal(cz_fil_graph_init(&b, 1024, pid, CZ_FIL_API_1_1), CZ_OK);
    for (uint64_t n = 2; n < 1024; n++) {
        uint32_t p[6], q[6];
        assert_int_equal(cz_fil_graph_base_parents(&a, n, p), CZ_OK);
        assert_int_equal(cz_fil_graph_base_parents(&b, n, q), CZ_OK);
        assert_int_equal(p[5], q[0]);
        assert_memory_equal(p, q + 1, 5 * sizeof *p);
    }
    /* argument checks */
    cz_fil_graph z;
    assert_int_equal(cz_fil_graph_init(&z, 0, pid, CZ_FIL_API_1_1), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_graph_init(&z, 1ull << 32, pid, CZ_FIL_API_1_1), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_graph_init(&z, 64, pid, (cz_fil_api_version)9), CZ_ERR_INVALID_ARG);
}

/* BucketGraph takes ceil(log2(x)) through f64; the library uses the
 * integer form. They agree around every power of two (where they could
 * differ) for every metagraph size a 2^32-node graph has. */
static void test_ceil_log2(void **state)
{
    (void)state;
    for (unsigned k = 1; k <= 36; k++) {
        uint64_t p = 1ull << k;
        for (uint64_t x = p > 2000 ? p - 2000 : 2; x <= p + 2000; x++) {
            uint64_t want = (uint64_t)ceil(log2((double)x));
            uint64_t got = 64u - (uint64_t)__builtin_clzll(x - 1);
            if (want != got)
                fail_msg("ceil(log2(%llu)): libm %llu, integer %llu", (unsigned long long)x,
                         (unsigned long long)want, (unsigned long long)got);
        }
    }
}

/* ---- feistel.rs ------------------------------------------------------------------------------ */
static bool encode_decode_ok(uint64_t n)
{
    cz_fil_feistel f;
    cz_fil_feistel_precompute(&f, n);
    const uint64_t keys[4] = {1, 2, 3, 4};
    bool ok = true;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t p = cz_fil_feistel_encode(i, keys, &f);
        uint64_t v = cz_fil_feistel_decode(p, keys, &f);
        assert_int_equal(v, i); /* encode/decode invert each other on the 4^k domain */
        if (p >= n)
            ok = false;
    }
    return ok;
}

static void test_feistel(void **state)
{
    (void)state;
    cz_fil_feistel f;
    cz_fil_feistel_precompute(&f, 1);
    assert_int_equal(f.half_bits, 1);
    cz_fil_feistel_precompute(&f, 17);
    assert_int_equal(f.half_bits, 3);
    assert_int_equal(f.right_mask, 7);
    assert_int_equal(f.left_mask, 0x38);
    cz_fil_feistel_precompute(&f, 1ull << 34);
    assert_int_equal(f.half_bits, 17);

    /* test_feistel_power_of_4: powers of 4 stay in range; the reference's
     * BAD_NS do not */
    for (uint64_t n = 4; n <= 256; n *= 4)
        assert_true(encode_decode_ok(n));
    const uint64_t bad[] = {5, 6, 8, 12, 17};
    for (size_t i = 0; i < 5; i++)
        assert_false(encode_decode_ok(bad[i]));

    /* test_feistel_on_arbitrary_set */
    const uint64_t keys[4] = {1, 2, 3, 4};
    for (size_t b = 0; b < 5; b++) {
        cz_fil_feistel_precompute(&f, bad[b]);
        for (uint64_t i = 0; i < bad[b]; i++) {
            uint64_t p = cz_fil_feistel_permute(bad[b], i, keys, &f);
            assert_true(p < bad[b]);
            assert_int_equal(cz_fil_feistel_invert_permute(bad[b], p, keys, &f), i);
        }
    }

    /* graph.rs test_shuffle: n = 2^10, d = 8, a permutation of n·d */
    const uint64_t n = 1024, d = 8;
    cz_fil_feistel_precompute(&f, n * d);
    uint8_t *seen = calloc(n * d, 1);
    assert_non_null(seen);
    for (uint64_t i = 0; i < n * d; i++) {
        uint64_t p = cz_fil_feistel_permute(n * d, i, keys, &f);
        assert_true(p < n * d);
        assert_int_equal(seen[p], 0);
        seen[p] = 1;
    }
    free(seen);
}

/* ---- graph.rs expander tests ---------------------------------------------------------------- */
static void pathology(uint8_t id, uint64_t nodes, cz_fil_api_version api)
{
    uint8_t porep_id[32] = {0};
    porep_id[0] = id;
    cz_fil_graph g;
    assert_int_equal(cz_fil_graph_init(&g, nodes, porep_id, api), CZ_OK);
    bool expect_pathological = api == CZ_FIL_API_1_0;
    for (uint64_t i = 0; i < 1000; i++) {
        uint32_t e[CZ_FIL_EXP_DEGREE];
        assert_int_equal(cz_fil_graph_exp_parents(&g, i, e), CZ_OK);
        bool large = false;
        for (unsigned k = 0; k < CZ_FIL_EXP_DEGREE; k++)
            large |= e[k] >= nodes / 2;
        if (expect_pathological)
            assert_false(large);
        else if (large)
            return;
    }
    assert_true(expect_pathological);
}

static void test_expander(void **state)
{
    (void)state;
    const uint64_t n32 = 1ull << 30, n64 = 1ull << 31;
    /* test_graph_distribution_pathology */
    pathology(3, n32, CZ_FIL_API_1_0);
    pathology(4, n64, CZ_FIL_API_1_0);
    pathology(8, n32, CZ_FIL_API_1_1);
    pathology(9, n64, CZ_FIL_API_1_1);
    pathology(8, n32, CZ_FIL_API_1_2);
    pathology(9, n64, CZ_FIL_API_1_2);

    uint8_t porep_id[32] = {5};
    cz_fil_graph g;
    assert_int_equal(cz_fil_graph_init(&g, n64, porep_id, CZ_FIL_API_1_2), CZ_OK);
    /* test_high_parent_bits */
    bool high = false;
    for (uint64_t v = 0; v < 3 && !high; v++) {
        uint32_t e[8];
        assert_int_equal(cz_fil_graph_exp_parents(&g, v, e), CZ_OK);
        for (int k = 0; k < 8; k++)
            high |= e[k] >= (1u << 29);
    }
    assert_true(high);
    /* test_exp_parent_histogram: 10000 children, 32 bins within ±40% */
    const unsigned samples = 10000, bins = 32;
    unsigned hist[32] = {0};
    const unsigned per_bin = samples * 8 / bins;
    const unsigned maxc = (unsigned)(1.4f * (float)per_bin) - 1, minc = (unsigned)(0.6f * (float)per_bin) + 1;
    for (unsigned s = 0; s < samples; s++) {
        uint64_t v = (uint64_t)s * n64 / samples;
        uint32_t e[8];
        assert_int_equal(cz_fil_graph_exp_parents(&g, v, e), CZ_OK);
        for (int k = 0; k < 8; k++)
            hist[e[k] / (uint32_t)(n64 / bins)]++;
    }
    for (unsigned b = 0; b < bins; b++)
        assert_true(hist[b] >= minc && hist[b] <= maxc);
    cz_fil_graph_free(&g);
}

/* ---- seeds, cache, layer API ---------------------------------------------------------------- */
static void test_seeds_and_cache(void **state)
{
    (void)state;
    /* seeds are SHA-256(tag ‖ porep_id), checked against a second
     * computation path (one-shot over the concatenation) */
    uint8_t porep_id[32], buf[17 + 32], h[32];
    cz_rng_bytes(porep_id, 32);
    memcpy(buf, "Filecoin_DRSample", 17);
    memcpy(buf + 17, porep_id, 32);
    cz_sha256(h, buf, 17 + 32);
    uint8_t seed[28];
    cz_fil_derive_drg_seed(seed, porep_id);
    assert_memory_equal(seed, h, 28);
    memcpy(buf, "Filecoin_Feistel", 16);
    memcpy(buf + 16, porep_id, 32);
    cz_sha256(h, buf, 16 + 32);
    uint64_t keys[4];
    cz_fil_derive_feistel_keys(keys, porep_id);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 8; i++)
            assert_int_equal((uint8_t)(keys[k] >> (8 * i)), h[8 * k + i]);

    /* parent cache built on a pool == on-demand parents */
    const uint64_t nodes = 1u << 14;
    for (int v = 0; v < 2; v++) {
        cz_fil_graph g;
        assert_int_equal(cz_fil_graph_init(&g, nodes, porep_id, v ? CZ_FIL_API_1_1 : CZ_FIL_API_1_0), CZ_OK);
        cz_pool *pool;
        assert_int_equal(cz_pool_create(&pool, 2, "graphtest"), CZ_OK);
        assert_int_equal(cz_fil_graph_build_cache(&g, pool), CZ_OK);
        cz_pool_destroy(pool);
        assert_non_null(g.cache);
        for (uint64_t n = 0; n < nodes; n++) {
            uint32_t a[14], b[14];
            assert_int_equal(cz_fil_graph_parents(&g, n, a), CZ_OK);
            assert_int_equal(cz_fil_graph_parents_cached(&g, n, b), CZ_OK);
            assert_memory_equal(a, b, sizeof a);
            for (int i = 0; i < 14; i++)
                assert_true(a[i] < nodes);
        }
        uint32_t a[14];
        assert_int_equal(cz_fil_graph_parents_cached(&g, nodes, a), CZ_ERR_INVALID_ARG);
        cz_fil_graph_free(&g);
    }

    /* layer API: node 0 is the header-only hash; layer 2 needs prev */
    cz_fil_graph g;
    assert_int_equal(cz_fil_graph_init(&g, 32, porep_id, CZ_FIL_API_1_1), CZ_OK);
    cz_fil_domain rid, l1[32], l2[32], x;
    memset(rid.b, 3, 32);
    assert_int_equal(cz_fil_label_layer(&g, &rid, 1, NULL, l1), CZ_OK);
    assert_int_equal(cz_fil_label_layer(&g, &rid, 2, NULL, l2), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_label_layer(&g, &rid, 0, NULL, l2), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_label_layer(&g, &rid, 2, l1, l2), CZ_OK);
    uint8_t hdr[64] = {0};
    memcpy(hdr, rid.b, 32);
    hdr[35] = 2;
    cz_sha256(h, hdr, 64);
    h[31] &= 0x3f;
    assert_memory_equal(l2[0].b, h, 32);
    /* every node re-derives from its 37 parents */
    for (uint64_t n = 1; n < 32; n++) {
        cz_fil_domain par[37];
        assert_int_equal(cz_fil_label_parents(&g, 2, n, l2, l1, par), CZ_OK);
        cz_fil_label_from_parents(&x, &rid, 2, n, par, 37);
        assert_memory_equal(x.b, l2[n].b, 32);
        assert_int_equal(cz_fil_label_parents(&g, 1, n, l1, NULL, par), CZ_OK);
        cz_fil_label_from_parents(&x, &rid, 1, n, par, 37);
        assert_memory_equal(x.b, l1[n].b, 32);
    }
    cz_fil_domain par[37];
    assert_int_equal(cz_fil_label_parents(&g, 2, 5, l2, NULL, par), CZ_ERR_INVALID_ARG);
    cz_fil_graph_free(&g);
}

int main(void)
{
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generate_labels),
        cmocka_unit_test(test_porep_2k),
        cmocka_unit_test(test_bucket_properties),
        cmocka_unit_test(test_ceil_log2),
        cmocka_unit_test(test_feistel),
        cmocka_unit_test(test_expander),
        cmocka_unit_test(test_seeds_and_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
