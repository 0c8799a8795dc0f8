/*
 * Merkle trees: SHA-256 nodes equal OpenSSL's digest truncated to 254 bits;
 * trees built in parallel equal a naive serial recursion; every path
 * verifies natively and a wrong leaf, index or path element does not; the
 * inclusion gadget (SHA-256 binary, Poseidon arity 2, 4, 8, 16) accepts true
 * paths in every back-end and is unsatisfied at "merkle/root" when any
 * probed bit of a path element, of the leaf, of the index or of the root is
 * flipped. Constraint counts per level are checked against the documented
 * formula and printed.
 */
#include "testutil.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/merkle.h"
#include "cuzk/poseidon.h"
#include "cuzk/threadpool.h"

static void fr_assert_eq(const cz_fr *a, const cz_fr *b, const char *what)
{
    if (!cz_fr_eq(a, b)) {
        char ha[67], hb[67];
        cz_fr_to_hex(ha, a);
        cz_fr_to_hex(hb, b);
        fail_msg("%s: got %s want %s", what, ha, hb);
    }
}

/* Random element below 2^254 (a valid SHA-256 tree leaf). */
static void rng_fr254(cz_fr *r)
{
    uint8_t b[32];
    cz_rng_bytes(b, 32);
    b[31] &= 0x3f;
    assert_int_equal(cz_fr_from_bytes_le(r, b), CZ_OK);
}

/* Flips bit `bit` of the canonical value; false if the result is >= r. */
static bool flip_bit(cz_fr *x, unsigned bit)
{
    uint8_t b[32];
    cz_fr_to_bytes_le(b, x);
    b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    return cz_fr_from_bytes_le(x, b) == CZ_OK;
}

/* Flips a random bit below 254 that keeps the value < r. */
static void flip_random_bit(cz_fr *x)
{
    for (;;) {
        cz_fr y = *x;
        if (flip_bit(&y, (unsigned)(cz_rng_u64() % 254))) {
            *x = y;
            return;
        }
    }
}

static uint64_t ipow(unsigned a, unsigned d)
{
    uint64_t n = 1;
    while (d--)
        n *= a;
    return n;
}

/* Naive reference root: serial recursion over the leaves. */
static void naive_root(cz_fr *out, cz_merkle_hash h, unsigned a, const cz_fr *leaves, uint64_t n)
{
    if (n == 1) {
        *out = leaves[0];
        return;
    }
    cz_fr ch[CZ_MERKLE_MAX_ARITY];
    for (unsigned s = 0; s < a; s++)
        naive_root(&ch[s], h, a, leaves + s * (n / a), n / a);
    cz_merkle_hash_node(out, h, a, ch);
}

static void sha256_node_matches_openssl(void **state)
{
    (void)state;
    for (int i = 0; i < 200; i++) {
        cz_fr l, r, got, want;
        cz_rng_fr(&l);  /* any Fr is hashable; only tree leaves are restricted */
        cz_rng_fr(&r);
        uint8_t msg[64], d[32];
        cz_fr_to_bytes_le(msg, &l);
        cz_fr_to_bytes_le(msg + 32, &r);
        SHA256(msg, 64, d);
        d[31] &= 0x3f;
        assert_int_equal(cz_fr_from_bytes_le(&want, d), CZ_OK);
        cz_merkle_sha256_node(&got, &l, &r);
        fr_assert_eq(&got, &want, "sha256 node");
        cz_fr ch[2] = {l, r};
        cz_merkle_hash_node(&got, CZ_MERKLE_SHA256, 2, ch);
        fr_assert_eq(&got, &want, "sha256 node (generic)");
    }
}

static void poseidon_node_is_hash(void **state)
{
    (void)state;
    static const unsigned arities[] = {2, 4, 8, 16};
    for (size_t k = 0; k < 4; k++) {
        unsigned a = arities[k];
        const cz_poseidon_params *p = cz_poseidon_params_get(a + 1);
        cz_fr ch[16], s[17], got;
        for (unsigned j = 0; j < a; j++)
            cz_rng_fr(&ch[j]);
        cz_merkle_hash_node(&got, CZ_MERKLE_POSEIDON, a, ch);
        s[0] = p->domain_tag;
        memcpy(&s[1], ch, a * sizeof(cz_fr));
        cz_poseidon_permute_plain(p, s);
        fr_assert_eq(&got, &s[1], "poseidon node");
    }
}

/* Build with a pool and without, against the naive root; all paths verify;
 * tampered leaf / index / path element / root do not. */
static void native_trees(void **state)
{
    (void)state;
    static const struct {
        cz_merkle_hash h;
        unsigned a, depth;
    } shapes[] = {
        {CZ_MERKLE_SHA256, 2, 9},   {CZ_MERKLE_POSEIDON, 2, 7}, {CZ_MERKLE_POSEIDON, 4, 4},
        {CZ_MERKLE_POSEIDON, 8, 3}, {CZ_MERKLE_POSEIDON, 16, 2},
    };
    cz_pool *pool = NULL;
    assert_int_equal(cz_pool_create(&pool, 2, "merkle"), CZ_OK);
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        cz_merkle_hash h = shapes[k].h;
        unsigned a = shapes[k].a, depth = shapes[k].depth;
        uint64_t n = ipow(a, depth);
        cz_fr *leaves = malloc(n * sizeof(cz_fr));
        cz_fr *path = malloc(depth * (a - 1) * sizeof(cz_fr));
        assert_non_null(leaves);
        assert_non_null(path);
        for (uint64_t i = 0; i < n; i++)
            rng_fr254(&leaves[i]);
        cz_merkle_tree *t1 = NULL, *t2 = NULL;
        assert_int_equal(cz_merkle_build(&t1, h, a, leaves, n, pool), CZ_OK);
        assert_int_equal(cz_merkle_build(&t2, h, a, leaves, n, NULL), CZ_OK);
        assert_int_equal(t1->depth, depth);
        assert_int_equal(t1->n_nodes * sizeof(cz_fr), cz_merkle_tree_bytes(a, n));
        assert_memory_equal(t1->nodes, t2->nodes, t1->n_nodes * sizeof(cz_fr));
        cz_fr want;
        naive_root(&want, h, a, leaves, n);
        fr_assert_eq(cz_merkle_root(t1), &want, "root vs naive");
        const cz_fr *root = cz_merkle_root(t1);
        for (uint64_t i = 0; i < n; i += 1 + n / 64) {
            assert_int_equal(cz_merkle_path(t1, i, path), CZ_OK);
            assert_true(cz_merkle_verify(h, a, depth, &leaves[i], i, path, root));
            /* wrong index, wrong leaf, wrong path element, wrong root */
            assert_false(cz_merkle_verify(h, a, depth, &leaves[i], (i + 1) % n, path, root));
            cz_fr bad = leaves[i];
            flip_random_bit(&bad);
            assert_false(cz_merkle_verify(h, a, depth, &bad, i, path, root));
            size_t e = (size_t)(cz_rng_u64() % (depth * (a - 1)));
            cz_fr saved = path[e];
            flip_random_bit(&path[e]);
            assert_false(cz_merkle_verify(h, a, depth, &leaves[i], i, path, root));
            path[e] = saved;
            bad = *root;
            flip_random_bit(&bad);
            assert_false(cz_merkle_verify(h, a, depth, &leaves[i], i, path, &bad));
            assert_false(cz_merkle_verify(h, a, depth, &leaves[i], n, path, root));
        }
        assert_int_equal(cz_merkle_path(t1, n, path), CZ_ERR_INVALID_ARG);
        cz_merkle_free(t1);
        cz_merkle_free(t2);
        free(leaves);
        free(path);
    }
    cz_pool_destroy(pool);
}

static void build_rejects_bad_input(void **state)
{
    (void)state;
    cz_fr leaves[8];
    cz_merkle_tree *t = NULL;
    for (int i = 0; i < 8; i++)
        rng_fr254(&leaves[i]);
    assert_int_equal(cz_merkle_build(&t, CZ_MERKLE_SHA256, 4, leaves, 8, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_merkle_build(&t, CZ_MERKLE_POSEIDON, 3, leaves, 3, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_merkle_build(&t, CZ_MERKLE_POSEIDON, 4, leaves, 8, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_merkle_build(&t, CZ_MERKLE_POSEIDON, 2, leaves, 6, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_merkle_build(&t, CZ_MERKLE_POSEIDON, 2, leaves, 1, NULL), CZ_ERR_INVALID_ARG);
    /* SHA-256 leaves must be < 2^254 */
    uint8_t b[32];
    cz_fr_to_bytes_le(b, &leaves[5]);
    b[31] |= 0x40;
    b[31] &= 0x5f;  /* 2^254 <= value < r */
    assert_int_equal(cz_fr_from_bytes_le(&leaves[5], b), CZ_OK);
    assert_int_equal(cz_merkle_build(&t, CZ_MERKLE_SHA256, 2, leaves, 8, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_merkle_build(&t, CZ_MERKLE_POSEIDON, 2, leaves, 8, NULL), CZ_OK);
    cz_merkle_free(t);
}

/* ---- gadget ---------------------------------------------------------------- */

typedef struct {
    cz_merkle_hash h;
    unsigned a, depth;
    cz_fr leaf, root;
    uint64_t index;
    cz_fr path[64];
    size_t gadget_constraints;  /* added by cz_merkle_inclusion_gadget */
} incl_ctx;

static cz_status incl_synth(cz_cs *cs, const void *vctx)
{
    incl_ctx *c = (incl_ctx *)vctx;
    unsigned nbits = c->depth * cz_merkle_arity_bits(c->a);
    cz_var root, leaf;
    cz_cs_alloc_input(cs, &root, &c->root);
    cz_cs_alloc_aux(cs, &leaf, &c->leaf);
    cz_bit bits[64];
    cz_cs_push_scope(cs, "index");
    cz_merkle_alloc_index_bits(cs, bits, c->index, nbits);
    cz_cs_pop_scope(cs);
    cz_lc leaf_lc;
    cz_lc_init(&leaf_lc, cs);
    cz_lc_add_var(&leaf_lc, leaf);
    size_t before = cz_cs_num_constraints(cs);
    cz_merkle_inclusion_gadget(cs, c->h, c->a, c->depth, &leaf_lc, &c->leaf, c->path, bits, root);
    c->gadget_constraints = cz_cs_num_constraints(cs) - before;
    cz_lc_free(&leaf_lc);
    return CZ_OK;
}

/* Builds a random tree and picks a random leaf; ctx gets a true path. */
static void incl_ctx_random(incl_ctx *c, cz_merkle_hash h, unsigned a, unsigned depth)
{
    memset(c, 0, sizeof *c);
    c->h = h;
    c->a = a;
    c->depth = depth;
    uint64_t n = ipow(a, depth);
    cz_fr *leaves = malloc(n * sizeof(cz_fr));
    assert_non_null(leaves);
    for (uint64_t i = 0; i < n; i++)
        rng_fr254(&leaves[i]);
    cz_merkle_tree *t = NULL;
    assert_int_equal(cz_merkle_build(&t, h, a, leaves, n, NULL), CZ_OK);
    c->index = cz_rng_u64() % n;
    c->leaf = leaves[c->index];
    c->root = *cz_merkle_root(t);
    assert_int_equal(cz_merkle_path(t, c->index, c->path), CZ_OK);
    cz_merkle_free(t);
    free(leaves);
}

/* Expected cost of one level (merkle.h). */
static size_t level_formula(cz_merkle_hash h, unsigned a)
{
    unsigned k = cz_merkle_arity_bits(a);
    if (h == CZ_MERKLE_POSEIDON)
        return cz_poseidon_hash_constraints(a + 1) + (a - 1) + ((1u << k) - k - 1);
    return 0;  /* SHA-256: measured, see sha_level_cost */
}

static void expect_unsat_at_root(incl_ctx *c, const char *what)
{
    cz_check_report rep;
    cz_status st = cz_cs_check(incl_synth, c, &rep);
    if (st != CZ_ERR_UNSATISFIED)
        fail_msg("%s: checker returned %s, want unsatisfied", what, cz_status_str(st));
    if (strcmp(rep.where, "merkle/root") != 0)
        fail_msg("%s: unsatisfied at %s, want merkle/root", what, rep.where);
}

/* True path accepted by every back-end; every probed flip rejected.
 * full: probe many bits (Poseidon) or a few (SHA-256, 2 compressions per
 * level make each check costly). */
static size_t inclusion_case(cz_merkle_hash h, unsigned a, unsigned depth, bool full)
{
    incl_ctx c;
    incl_ctx_random(&c, h, a, depth);
    cz_check_report rep;
    cz_status st = cz_cs_check(incl_synth, &c, &rep);
    if (st != CZ_OK)
        fail_msg("true path (a=%u depth=%u): %s at %s", a, depth, cz_status_str(st), rep.where);
    size_t per_check = c.gadget_constraints;

    cz_pce *pce = NULL;
    assert_int_equal(cz_pce_record(&pce, incl_synth, &c, NULL), CZ_OK);
    assert_int_equal(c.gadget_constraints, per_check);
    cz_witness w;
    assert_int_equal(cz_witness_generate(&w, incl_synth, &c, pce), CZ_OK);
    assert_int_equal(c.gadget_constraints, per_check);
    uint64_t row = 0;
    assert_int_equal(cz_pce_is_satisfied(pce, &w, &row), CZ_OK);
    cz_witness_free(&w);
    cz_pce_free(pce);

    char what[128];
    /* path elements */
    size_t npath = (size_t)depth * (a - 1);
    for (size_t e = 0; e < npath; e++) {
        if (!full && e % (a - 1) != 0)
            continue;  /* SHA-256: one element per level */
        unsigned probes[4] = {0, 253, (unsigned)(cz_rng_u64() % 254), 127};
        for (int k = 0; k < (full ? 4 : 2); k++) {
            incl_ctx t = c;
            if (!flip_bit(&t.path[e], probes[k]))
                continue;
            snprintf(what, sizeof what, "a=%u path[%zu] bit %u", a, e, probes[k]);
            expect_unsat_at_root(&t, what);
        }
    }
    /* leaf */
    unsigned leaf_probes[4] = {0, 253, 1 + (unsigned)(cz_rng_u64() % 252), 64};
    for (int k = 0; k < (full ? 4 : 2); k++) {
        incl_ctx t = c;
        assert_true(flip_bit(&t.leaf, leaf_probes[k]));
        snprintf(what, sizeof what, "a=%u leaf bit %u", a, leaf_probes[k]);
        expect_unsat_at_root(&t, what);
    }
    /* every index bit */
    unsigned nbits = depth * cz_merkle_arity_bits(a);
    for (unsigned b = 0; b < nbits; b++) {
        incl_ctx t = c;
        t.index ^= 1ull << b;
        snprintf(what, sizeof what, "a=%u index bit %u", a, b);
        expect_unsat_at_root(&t, what);
    }
    /* root */
    unsigned root_probes[3] = {0, 253, 128};
    for (int k = 0; k < (full ? 3 : 1); k++) {
        incl_ctx t = c;
        if (!flip_bit(&t.root, root_probes[k]))
            continue;
        snprintf(what, sizeof what, "a=%u root bit %u", a, root_probes[k]);
        expect_unsat_at_root(&t, what);
    }
    return per_check;
}

static void inclusion_poseidon(void **state)
{
    (void)state;
    static const struct {
        unsigned a, depth;
    } shapes[] = {{2, 4}, {4, 3}, {8, 2}, {16, 2}};
    fprintf(stderr, "  Merkle inclusion constraints per level (+1 for the root check):\n");
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        unsigned a = shapes[k].a, depth = shapes[k].depth;
        size_t total = inclusion_case(CZ_MERKLE_POSEIDON, a, depth, true);
        assert_int_equal(total, depth * level_formula(CZ_MERKLE_POSEIDON, a) + 1);
        fprintf(stderr, "    Poseidon arity %2u: %zu per level (hash %zu + select %zu)\n", a,
                (total - 1) / depth, cz_poseidon_hash_constraints(a + 1),
                (total - 1) / depth - cz_poseidon_hash_constraints(a + 1));
    }
}

static void inclusion_sha256(void **state)
{
    (void)state;
#ifdef CUZK_SANITIZED
    const unsigned depth = 2;
#else
    const unsigned depth = 3;
#endif
    size_t total = inclusion_case(CZ_MERKLE_SHA256, 2, depth, false);
    assert_int_equal((total - 1) % depth, 0);
    fprintf(stderr, "    SHA-256 binary:    %zu per level\n", (total - 1) / depth);
}

/* The recorded circuit does not depend on leaf, path, index or root. */
static void inclusion_shape_is_data_independent(void **state)
{
    (void)state;
    static const struct {
        cz_merkle_hash h;
        unsigned a, depth;
    } shapes[] = {{CZ_MERKLE_POSEIDON, 2, 3}, {CZ_MERKLE_POSEIDON, 8, 2}, {CZ_MERKLE_SHA256, 2, 1}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        cz_pce *p1 = NULL, *p2 = NULL;
        cz_witness w;
        incl_ctx c;
        incl_ctx_random(&c, shapes[k].h, shapes[k].a, shapes[k].depth);
        assert_int_equal(cz_pce_record(&p1, incl_synth, &c, &w), CZ_OK);
        cz_witness_free(&w);
        incl_ctx_random(&c, shapes[k].h, shapes[k].a, shapes[k].depth);
        c.index = ipow(shapes[k].a, shapes[k].depth) - 1 - c.index % 2;  /* other bits */
        assert_int_equal(cz_pce_record(&p2, incl_synth, &c, NULL), CZ_OK);
        assert_memory_equal(p1->circuit_hash, p2->circuit_hash, 32);
        cz_pce_free(p1);
        cz_pce_free(p2);
    }
}

/* Tree building speed (printed, not asserted). */
static void build_speed(void **state)
{
    (void)state;
#ifdef CUZK_SANITIZED
    const unsigned log_n = 10;
#else
    const unsigned log_n = 15;
#endif
    uint64_t n = 1ull << log_n;
    cz_fr *leaves = malloc(n * sizeof(cz_fr));
    assert_non_null(leaves);
    for (uint64_t i = 0; i < n; i++)
        rng_fr254(&leaves[i]);
    cz_pool *pool = NULL;
    assert_int_equal(cz_pool_create(&pool, 0, "merkle"), CZ_OK);
    static const struct {
        cz_merkle_hash h;
        unsigned a;
        const char *name;
    } kinds[] = {{CZ_MERKLE_SHA256, 2, "sha256"}, {CZ_MERKLE_POSEIDON, 2, "poseidon-2"},
                 {CZ_MERKLE_POSEIDON, 8, "poseidon-8"}};
    for (size_t k = 0; k < 3; k++) {
        uint64_t nl = kinds[k].a == 8 ? (1ull << (log_n / 3 * 3)) : n;
        struct timespec t0, t1;
        cz_merkle_tree *t = NULL;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        assert_int_equal(cz_merkle_build(&t, kinds[k].h, kinds[k].a, leaves, nl, pool), CZ_OK);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        fprintf(stderr, "  build %-10s %8llu leaves, %u threads: %.1f ms (%.0f ns/node)\n",
                kinds[k].name, (unsigned long long)nl, cz_pool_size(pool), ms,
                ms * 1e6 / (double)(t->n_nodes - nl));
        cz_merkle_free(t);
    }
    cz_pool_destroy(pool);
    free(leaves);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sha256_node_matches_openssl),
        cmocka_unit_test(poseidon_node_is_hash),
        cmocka_unit_test(native_trees),
        cmocka_unit_test(build_rejects_bad_input),
        cmocka_unit_test(inclusion_poseidon),
        cmocka_unit_test(inclusion_sha256),
        cmocka_unit_test(inclusion_shape_is_data_independent),
        cmocka_unit_test(build_speed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
