/*
 * Poseidon native twin: the C Grain-LFSR generator reproduces every
 * parameter file in tests/vectors/poseidon/ (round constants and MDS), the
 * permutation reproduces the files' known answers (third-party ones for
 * t = 2..5, 8, 9, 12 via the files' provenance) and the hadeshash reference
 * instances (S-box seed bits 0), the optimised permutation equals the plain
 * one for every supported t, and the hash follows the domain-tag convention.
 */
#include "testutil.h"

#include <dirent.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/poseidon.h"

static void fr_from_json(cz_fr *out, json_t *v)
{
    assert_true(json_is_string(v));
    assert_int_equal(cz_fr_from_hex(out, json_string_value(v)), CZ_OK);
}

static void fr_assert_eq(const cz_fr *a, const cz_fr *b, const char *what)
{
    if (!cz_fr_eq(a, b)) {
        char ha[67], hb[67];
        cz_fr_to_hex(ha, a);
        cz_fr_to_hex(hb, b);
        fail_msg("%s: got %s want %s", what, ha, hb);
    }
}

/* Concurrent first calls: every thread must see the same parameters
 * (runs first, before any other test has filled the cache). */
static void *get_all(void *arg)
{
    const cz_poseidon_params **seen = arg;
    for (unsigned t = CZ_POSEIDON_T_MIN; t <= 12; t++)
        seen[t] = cz_poseidon_params_get(t);
    return NULL;
}

static void params_concurrent_first_use(void **state)
{
    (void)state;
    enum { NTH = 4 };
    const cz_poseidon_params *seen[NTH][13];
    pthread_t th[NTH];
    for (int i = 0; i < NTH; i++)
        assert_int_equal(pthread_create(&th[i], NULL, get_all, seen[i]), 0);
    for (int i = 0; i < NTH; i++)
        pthread_join(th[i], NULL);
    for (unsigned t = CZ_POSEIDON_T_MIN; t <= 12; t++) {
        assert_non_null(seen[0][t]);
        for (int i = 1; i < NTH; i++)
            assert_ptr_equal(seen[0][t], seen[i][t]);
        assert_int_equal(seen[0][t]->t, t);
    }
}

static void range_and_round_numbers(void **state)
{
    (void)state;
    assert_null(cz_poseidon_params_get(1));
    assert_null(cz_poseidon_params_get(CZ_POSEIDON_T_MAX + 1));
    assert_int_equal(cz_poseidon_partial_rounds(0), 0);
    assert_int_equal(cz_poseidon_partial_rounds(CZ_POSEIDON_T_MAX + 1), 0);
    /* the rule's values (README of the vectors: 56 for t <= 5, 57 up to 25) */
    for (unsigned t = CZ_POSEIDON_T_MIN; t <= CZ_POSEIDON_T_MAX; t++)
        assert_int_equal(cz_poseidon_partial_rounds(t), t <= 5 ? 56 : 57);
}

/* Every file in tests/vectors/poseidon/: R_F, R_P, every round constant and
 * MDS entry, and every known answer through both permutations. */
static void reproduces_vector_files(void **state)
{
    (void)state;
    const char *dir = cz_vector_path("poseidon");
    char dirbuf[4096];
    snprintf(dirbuf, sizeof dirbuf, "%s", dir);
    DIR *d = opendir(dirbuf);
    assert_non_null(d);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "poseidon_bls12_381_t", 20) != 0)
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dirbuf, e->d_name);
        json_error_t err;
        json_t *root = json_load_file(path, 0, &err);
        if (!root)
            fail_msg("%s: %s", path, err.text);
        unsigned t = (unsigned)json_integer_value(json_object_get(root, "t"));
        const cz_poseidon_params *p = cz_poseidon_params_get(t);
        assert_non_null(p);
        assert_int_equal(json_integer_value(json_object_get(root, "alpha")), 5);
        assert_int_equal(json_integer_value(json_object_get(root, "R_F")), p->r_f);
        assert_int_equal(json_integer_value(json_object_get(root, "R_P")), p->r_p);
        assert_int_equal(cz_poseidon_partial_rounds(t), p->r_p);

        json_t *mds = json_object_get(root, "mds");
        assert_int_equal(json_array_size(mds), t);
        for (unsigned i = 0; i < t; i++) {
            json_t *row = json_array_get(mds, i);
            assert_int_equal(json_array_size(row), t);
            for (unsigned j = 0; j < t; j++) {
                cz_fr want;
                fr_from_json(&want, json_array_get(row, j));
                fr_assert_eq(&p->mds[i * t + j], &want, "mds");
            }
        }
        json_t *rc = json_object_get(root, "round_constants");
        assert_int_equal(json_array_size(rc), p->r_f + p->r_p);
        for (unsigned r = 0; r < p->r_f + p->r_p; r++) {
            json_t *row = json_array_get(rc, r);
            assert_int_equal(json_array_size(row), t);
            for (unsigned j = 0; j < t; j++) {
                cz_fr want;
                fr_from_json(&want, json_array_get(row, j));
                fr_assert_eq(&p->rc[(size_t)r * t + j], &want, "round constant");
            }
        }
        json_t *kas = json_object_get(root, "known_answers");
        assert_true(json_array_size(kas) >= 1);
        for (size_t k = 0; k < json_array_size(kas); k++) {
            json_t *ka = json_array_get(kas, k);
            json_t *in = json_object_get(ka, "input"), *out = json_object_get(ka, "output");
            assert_int_equal(json_array_size(in), t);
            assert_int_equal(json_array_size(out), t);
            cz_fr s1[CZ_POSEIDON_T_MAX], s2[CZ_POSEIDON_T_MAX];
            for (unsigned j = 0; j < t; j++) {
                fr_from_json(&s1[j], json_array_get(in, j));
                s2[j] = s1[j];
            }
            cz_poseidon_permute_plain(p, s1);
            cz_poseidon_permute(p, s2);
            for (unsigned j = 0; j < t; j++) {
                cz_fr want;
                fr_from_json(&want, json_array_get(out, j));
                fr_assert_eq(&s1[j], &want, "known answer (plain)");
                fr_assert_eq(&s2[j], &want, "known answer (optimised)");
            }
        }
        json_decref(root);
        fprintf(stderr, "  %s: parameters and known answer OK (t=%u, R_P=%u)\n", e->d_name, t,
                p->r_p);
        files++;
    }
    closedir(d);
    assert_true(files >= 7);
}

/* The generator with S-box seed bits 0 and the hadeshash round numbers
 * gives the hadeshash reference instances, whose published outputs for the
 * input [0, 1, ..., t−1] are below (code/test_vectors.txt of the Poseidon
 * reference repository): an independent check of the LFSR and the MDS
 * construction beyond the vector files. */
static void reproduces_hadeshash_reference(void **state)
{
    (void)state;
    static const struct {
        unsigned t, r_p;
        const char *out[5];
    } cases[] = {
        {3, 57, {"0x28ce19420fc246a05553ad1e8c98f5c9d67166be2c18e9e4cb4b4e317dd2a78a",
                 "0x51f3e312c95343a896cfd8945ea82ba956c1118ce9b9859b6ea56637b4b1ddc4",
                 "0x3b2b69139b235626a0bfb56c9527ae66a7bf486ad8c11c14d1da0c69bbe0f79a"}},
        {5, 60, {"0x2a918b9c9f9bd7bb509331c81e297b5707f6fc7393dcee1b13901a0b22202e18",
                 "0x65ebf8671739eeb11fb217f2d5c5bf4a0c3f210e3f3cd3b08b5db75675d797f7",
                 "0x2cc176fc26bc70737a696a9dfd1b636ce360ee76926d182390cdb7459cf585ce",
                 "0x4dc4e29d283afd2a491fe6aef122b9a968e74eff05341f3cc23fda1781dcb566",
                 "0x03ff622da276830b9451b88b85e6184fd6ae15c8ab3ee25a5667be8592cce3b1"}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        unsigned t = cases[c].t, r_p = cases[c].r_p;
        cz_fr *rc = malloc((8 + r_p) * t * sizeof(cz_fr)), mds[25];
        assert_non_null(rc);
        assert_int_equal(cz_poseidon_generate(rc, mds, t, 8, r_p, 0), CZ_OK);
        cz_poseidon_params p = {.t = t, .r_f = 8, .r_p = r_p, .rc = rc, .mds = mds};
        cz_fr s[5];
        for (unsigned j = 0; j < t; j++)
            cz_fr_from_u64(&s[j], j);
        cz_poseidon_permute_plain(&p, s);
        for (unsigned j = 0; j < t; j++) {
            cz_fr want;
            assert_int_equal(cz_fr_from_hex(&want, cases[c].out[j]), CZ_OK);
            fr_assert_eq(&s[j], &want, "hadeshash reference");
        }
        free(rc);
    }
    /* and the contract */
    cz_fr x;
    assert_int_equal(cz_poseidon_generate(&x, &x, 1, 8, 56, 1), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_poseidon_generate(NULL, &x, 3, 8, 56, 1), CZ_ERR_INVALID_ARG);
}

/* Optimised (folded constants, sparse MDS) == plain, every supported t. */
static void optimised_equals_plain(void **state)
{
    (void)state;
#ifdef CUZK_SANITIZED
    const int reps = 3;
#else
    const int reps = 20;
#endif
    for (unsigned t = CZ_POSEIDON_T_MIN; t <= CZ_POSEIDON_T_MAX; t++) {
        const cz_poseidon_params *p = cz_poseidon_params_get(t);
        assert_non_null(p);
        for (int k = 0; k < reps; k++) {
            cz_fr a[CZ_POSEIDON_T_MAX], b[CZ_POSEIDON_T_MAX];
            for (unsigned j = 0; j < t; j++) {
                if (k == 0)
                    a[j] = CZ_FR_ZERO;  /* an all-zero state too */
                else
                    cz_rng_fr(&a[j]);
                b[j] = a[j];
            }
            cz_poseidon_permute_plain(p, a);
            cz_poseidon_permute(p, b);
            for (unsigned j = 0; j < t; j++)
                fr_assert_eq(&b[j], &a[j], "optimised vs plain");
        }
    }
}

/* H(x_1..x_{t−1}) = permute([2^(t−1) − 1, x_1, ...])[1]; the tag is
 * computed independently with GMP. */
static void hash_convention(void **state)
{
    (void)state;
    mpz_t tag;
    mpz_init(tag);
    for (unsigned t = CZ_POSEIDON_T_MIN; t <= CZ_POSEIDON_T_MAX; t++) {
        const cz_poseidon_params *p = cz_poseidon_params_get(t);
        mpz_set_ui(tag, 1);
        mpz_mul_2exp(tag, tag, t - 1);
        mpz_sub_ui(tag, tag, 1);
        uint64_t l[4];
        cz_mpz_to_limbs(l, 4, tag);
        cz_fr s[CZ_POSEIDON_T_MAX], in[CZ_POSEIDON_T_MAX], h;
        assert_int_equal(cz_fr_from_raw(&s[0], l), CZ_OK);
        for (unsigned j = 1; j < t; j++) {
            cz_rng_fr(&in[j - 1]);
            s[j] = in[j - 1];
        }
        cz_poseidon_permute_plain(p, s);
        cz_poseidon_hash(&h, p, in);
        fr_assert_eq(&h, &s[1], "hash");
        cz_poseidon_hash(&in[0], p, in);  /* aliasing allowed */
        fr_assert_eq(&in[0], &s[1], "hash (aliased)");
    }
    mpz_clear(tag);
}

/* ---- gadget ---------------------------------------------------------------- */

typedef struct {
    const cz_poseidon_params *p;
    bool hash;                        /* hash gadget instead of the permutation */
    cz_fr in[CZ_POSEIDON_T_MAX];      /* input values (the variables') */
    cz_fr fed[CZ_POSEIDON_T_MAX];     /* values handed to the gadget */
    cz_fr expect[CZ_POSEIDON_T_MAX];  /* expected outputs (native twin) */
    cz_fr got[CZ_POSEIDON_T_MAX];     /* gadget's output values */
    size_t gadget_constraints;        /* constraints added by the gadget */
} perm_ctx;

/* Inputs as aux variables, the gadget, then out == expected (allocated)
 * under the same "perm" scope. */
static cz_status perm_synth(cz_cs *cs, const void *vctx)
{
    perm_ctx *c = (perm_ctx *)vctx;
    unsigned t = c->p->t, nin = c->hash ? t - 1 : t, nout = c->hash ? 1 : t;
    cz_lc in[CZ_POSEIDON_T_MAX], out[CZ_POSEIDON_T_MAX];
    cz_cs_push_scope(cs, "perm");
    for (unsigned j = 0; j < nin; j++) {
        cz_var v;
        cz_cs_alloc_aux(cs, &v, &c->in[j]);
        cz_lc_init(&in[j], cs);
        cz_lc_add_var(&in[j], v);
    }
    size_t before = cz_cs_num_constraints(cs);
    bool vals = cz_cs_has_values(cs);
    if (c->hash)
        cz_poseidon_hash_gadget(cs, c->p, in, vals ? c->fed : NULL, out, c->got);
    else
        cz_poseidon_permute_gadget(cs, c->p, in, vals ? c->fed : NULL, out, c->got);
    c->gadget_constraints = cz_cs_num_constraints(cs) - before;
    for (unsigned j = 0; j < nout; j++) {
        cz_var e;
        cz_cs_alloc_aux(cs, &e, &c->expect[j]);
        cz_lc diff, one;
        cz_lc_init(&diff, cs);
        cz_lc_init(&one, cs);
        cz_lc_add_lc(&diff, &out[j], NULL);
        cz_lc_sub_var(&diff, e);
        cz_lc_add_var(&one, CZ_VAR_ONE);
        cz_cs_push_scope(cs, "out[%u]", j);
        cz_cs_enforce(cs, &diff, &one, NULL, "equal");
        cz_cs_pop_scope(cs);
        cz_lc_free(&diff);
        cz_lc_free(&one);
        cz_lc_free(&out[j]);
    }
    for (unsigned j = 0; j < nin; j++)
        cz_lc_free(&in[j]);
    cz_cs_pop_scope(cs);
    return CZ_OK;
}

static void perm_ctx_random(perm_ctx *c, unsigned t, bool hash)
{
    memset(c, 0, sizeof *c);
    c->p = cz_poseidon_params_get(t);
    assert_non_null(c->p);
    c->hash = hash;
    for (unsigned j = 0; j < t; j++) {
        cz_rng_fr(&c->in[j]);
        c->fed[j] = c->in[j];
    }
    if (hash) {
        cz_poseidon_hash(&c->expect[0], c->p, c->in);
    } else {
        memcpy(c->expect, c->in, t * sizeof(cz_fr));
        cz_poseidon_permute_plain(c->p, c->expect);
    }
}

/* Every back-end agrees: the checker is satisfied, the gadget's values are
 * the native twin's, the recorded matrices are satisfied by the generated
 * witness, and the constraint count is the documented one. */
static void check_all_modes(perm_ctx *c)
{
    unsigned t = c->p->t, nout = c->hash ? 1 : t;
    cz_check_report rep;
    cz_status st = cz_cs_check(perm_synth, c, &rep);
    if (st != CZ_OK)
        fail_msg("t=%u: checker: %s at %s", t, cz_status_str(st), rep.where);
    for (unsigned j = 0; j < nout; j++)
        fr_assert_eq(&c->got[j], &c->expect[j], "gadget value");
    size_t want = c->hash ? cz_poseidon_hash_constraints(t) : cz_poseidon_permute_constraints(t);
    assert_int_equal(c->gadget_constraints, want);

    cz_pce *pce = NULL;
    assert_int_equal(cz_pce_record(&pce, perm_synth, c, NULL), CZ_OK);
    assert_int_equal(c->gadget_constraints, want);
    cz_witness w;
    assert_int_equal(cz_witness_generate(&w, perm_synth, c, pce), CZ_OK);
    assert_int_equal(c->gadget_constraints, want);
    for (unsigned j = 0; j < nout; j++)
        fr_assert_eq(&c->got[j], &c->expect[j], "gadget value (witness mode)");
    uint64_t row = 0;
    assert_int_equal(cz_pce_is_satisfied(pce, &w, &row), CZ_OK);
    cz_witness_free(&w);
    cz_pce_free(pce);
}

static void gadget_equals_native(void **state)
{
    (void)state;
    static const unsigned ts[] = {2, 3, 4, 5, 8, 9, 12, 16};
#ifdef CUZK_SANITIZED
    const int reps = 1;
#else
    const int reps = 2;
#endif
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++)
        for (int r = 0; r < reps; r++)
            for (int hash = 0; hash < 2; hash++) {
                perm_ctx c;
                perm_ctx_random(&c, ts[k], hash);
                check_all_modes(&c);
            }
}

/* A changed output value, or an input value that is not the input
 * variable's, makes the circuit unsatisfied inside the permutation's scope. */
static void gadget_rejects_tampering(void **state)
{
    (void)state;
    static const unsigned ts[] = {3, 9};
    for (size_t k = 0; k < 2; k++) {
        unsigned t = ts[k];
        for (unsigned j = 0; j < t; j++) {
            perm_ctx c;
            cz_check_report rep;
            char want[64];

            perm_ctx_random(&c, t, false);
            cz_fr_add(&c.expect[j], &c.expect[j], &CZ_FR_ONE);
            assert_int_equal(cz_cs_check(perm_synth, &c, &rep), CZ_ERR_UNSATISFIED);
            snprintf(want, sizeof want, "perm/out[%u]/equal", j);
            if (strcmp(rep.where, want) != 0)
                fail_msg("tampered output %u: reported at %s", j, rep.where);

            perm_ctx_random(&c, t, false);
            cz_fr_add(&c.fed[j], &c.fed[j], &CZ_FR_ONE);
            assert_int_equal(cz_cs_check(perm_synth, &c, &rep), CZ_ERR_UNSATISFIED);
            snprintf(want, sizeof want, "perm/poseidon/round[0]/sbox[%u]/x2", j);
            if (strcmp(rep.where, want) != 0)
                fail_msg("inconsistent input %u: reported at %s", j, rep.where);
        }
    }
}

/* The recorded circuit does not depend on the values (a Groth16 circuit
 * must be one fixed R1CS): two recordings with different inputs hash alike. */
static void gadget_shape_is_data_independent(void **state)
{
    (void)state;
    static const unsigned ts[] = {3, 9};
    for (size_t k = 0; k < 2; k++)
        for (int hash = 0; hash < 2; hash++) {
            cz_pce *p1 = NULL, *p2 = NULL;
            perm_ctx c;
            cz_witness w;
            perm_ctx_random(&c, ts[k], hash);
            assert_int_equal(cz_pce_record(&p1, perm_synth, &c, &w), CZ_OK);
            cz_witness_free(&w);
            perm_ctx_random(&c, ts[k], hash);
            assert_int_equal(cz_pce_record(&p2, perm_synth, &c, &w), CZ_OK);
            cz_witness_free(&w);
            assert_memory_equal(p1->circuit_hash, p2->circuit_hash, 32);
            cz_pce_free(p1);
            cz_pce_free(p2);
        }
}

static void gadget_constraint_counts(void **state)
{
    (void)state;
    static const unsigned ts[] = {2, 3, 4, 5, 9, 12};
    fprintf(stderr, "  Poseidon gadget constraints:   t  R_P  permutation  hash\n");
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
        unsigned t = ts[k];
        perm_ctx c;
        cz_pce *pce = NULL;
        perm_ctx_random(&c, t, false);
        assert_int_equal(cz_pce_record(&pce, perm_synth, &c, NULL), CZ_OK);
        size_t perm = c.gadget_constraints;
        /* nnz of the gadget rows, for the report */
        uint64_t nnz = pce->a.nnz + pce->b.nnz + pce->c.nnz;
        cz_pce_free(pce);
        perm_ctx_random(&c, t, true);
        assert_int_equal(cz_pce_record(&pce, perm_synth, &c, NULL), CZ_OK);
        size_t hash = c.gadget_constraints;
        cz_pce_free(pce);
        assert_int_equal(perm, 3 * (8 * t + cz_poseidon_partial_rounds(t)));
        assert_int_equal(hash, perm - 3);
        fprintf(stderr, "  %32u  %3u  %11zu  %4zu   (circuit nnz A+B+C %llu)\n", t,
                cz_poseidon_partial_rounds(t), perm, hash, (unsigned long long)nnz);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(params_concurrent_first_use),
        cmocka_unit_test(range_and_round_numbers),
        cmocka_unit_test(reproduces_vector_files),
        cmocka_unit_test(reproduces_hadeshash_reference),
        cmocka_unit_test(optimised_equals_plain),
        cmocka_unit_test(hash_convention),
        cmocka_unit_test(gadget_equals_native),
        cmocka_unit_test(gadget_rejects_tampering),
        cmocka_unit_test(gadget_shape_is_data_independent),
        cmocka_unit_test(gadget_constraint_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
