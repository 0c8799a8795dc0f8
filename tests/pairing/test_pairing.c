/*
 * Optimal ate pairing: known answers (tests/vectors/bls12_381/pairings.json
 * and tests/vectors/noble_pairing.json, both from @noble/curves, an
 * independent implementation), the final exponentiation against plain
 * exponentiation by (p^12 - 1)/r, and the laws (bilinearity,
 * non-degeneracy, inverses, infinity, multi-pairing = product, prepared =
 * plain). The laws alone would also hold for e^k; the known answers pin e.
 */
#include "testutil.h"
#include "cuzk/pairing.h"
#include "pairing/pairing_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CUZK_SANITIZED
#define LAW_ITERS 1
#define EXP_ITERS 1
#else
#define LAW_ITERS 4
#define EXP_ITERS 3
#endif

/* ---- helpers ---------------------------------------------------------------- */

static cz_g1_affine G1;
static cz_g2_affine G2;

/* Generators from the vector files (entry 1 of the k·G lists), decoded here
 * by hand so that e(G1, G2) does not depend on the ec layer's decoder. */
static void load_generators(void)
{
    size_t n;
    uint8_t *b = cz_read_file(cz_vector_path("bls12_381/g1_uncompressed_multiples.bin"), &n);
    assert_true(n >= 2 * 96);
    assert_int_equal(cz_fp_from_bytes_be(&G1.x, b + 96), CZ_OK);
    assert_int_equal(cz_fp_from_bytes_be(&G1.y, b + 96 + 48), CZ_OK);
    free(b);
    b = cz_read_file(cz_vector_path("bls12_381/g2_uncompressed_multiples.bin"), &n);
    assert_true(n >= 2 * 192);
    const uint8_t *e = b + 192; /* Fp2 written c1 then c0 */
    assert_int_equal(cz_fp_from_bytes_be(&G2.x.c1, e), CZ_OK);
    assert_int_equal(cz_fp_from_bytes_be(&G2.x.c0, e + 48), CZ_OK);
    assert_int_equal(cz_fp_from_bytes_be(&G2.y.c1, e + 96), CZ_OK);
    assert_int_equal(cz_fp_from_bytes_be(&G2.y.c0, e + 144), CZ_OK);
    free(b);
}

static int setup(void **state)
{
    (void)state;
    load_generators();
    return 0;
}

static void g1_mul(cz_g1_affine *r, const cz_g1_affine *p, const uint64_t k[4])
{
    cz_g1_jac j;
    cz_g1_jac_from_affine(&j, p);
    cz_g1_jac_mul_var(&j, &j, k, 4);
    cz_g1_jac_to_affine(r, &j);
}

static void g2_mul(cz_g2_affine *r, const cz_g2_affine *q, const uint64_t k[4])
{
    cz_g2_jac j;
    cz_g2_jac_from_affine(&j, q);
    cz_g2_jac_mul_var(&j, &j, k, 4);
    cz_g2_jac_to_affine(r, &j);
}

static void rng_scalar(uint64_t k[4])
{
    cz_fr s;
    cz_rng_fr(&s);
    cz_fr_to_raw(k, &s);
}

static void scalar_from_hex(uint64_t k[4], const char *hex)
{
    mpz_t z;
    mpz_init(z);
    if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex += 2;
    assert_int_equal(mpz_set_str(z, hex, 16), 0);
    cz_mpz_to_limbs(k, 4, z);
    mpz_clear(z);
}

static void hex_to_bytes(uint8_t *out, size_t n, const char *hex)
{
    assert_int_equal(strlen(hex), 2 * n);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
}

/* Minimal reader for the vector files: each call finds "key" after *cur,
 * copies the following string value into out and moves *cur past it. */
static int next_str(const char **cur, const char *key, char *out, size_t cap)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *k = strstr(*cur, pat);
    if (!k) return 0;
    const char *q = strchr(k + strlen(pat), '"');
    assert_non_null(q);
    const char *end = strchr(q + 1, '"');
    assert_non_null(end);
    size_t len = (size_t)(end - q - 1);
    assert_true(len < cap);
    memcpy(out, q + 1, len);
    out[len] = 0;
    *cur = end + 1;
    return 1;
}

/* Next quoted string after *cur, whatever its key. */
static void next_any(const char **cur, char *out, size_t cap)
{
    const char *q = strchr(*cur, '"');
    assert_non_null(q);
    const char *end = strchr(q + 1, '"');
    assert_non_null(end);
    size_t len = (size_t)(end - q - 1);
    assert_true(len < cap);
    memcpy(out, q + 1, len);
    out[len] = 0;
    *cur = end + 1;
}

/* "pairing": [[re, im] x 6] in the order c0.c0 .. c1.c2. */
static void read_fp12(const char **cur, cz_fp12 *f)
{
    const char *k = strstr(*cur, "\"pairing\"");
    assert_non_null(k);
    *cur = k + 9;
    cz_fp *c = (cz_fp *)f;
    char buf[128];
    for (int i = 0; i < 12; i++) {
        next_any(cur, buf, sizeof buf);
        assert_int_equal(cz_fp_from_hex(&c[i], buf), CZ_OK);
    }
}

typedef struct {
    uint64_t a[4], b[4];
    cz_g1_affine p;
    cz_g2_affine q;
} vec_pair;

/* Reads a, b, p_compressed, q_compressed; decodes the points and checks
 * them against [a]G1, [b]G2 computed here. */
static int read_pair(const char **cur, vec_pair *v)
{
    char buf[256];
    uint8_t bytes[96];
    if (!next_str(cur, "a", buf, sizeof buf)) return 0;
    scalar_from_hex(v->a, buf);
    assert_true(next_str(cur, "b", buf, sizeof buf));
    scalar_from_hex(v->b, buf);
    assert_true(next_str(cur, "p_compressed", buf, sizeof buf));
    hex_to_bytes(bytes, 48, buf);
    assert_int_equal(cz_g1_uncompress(&v->p, bytes), CZ_OK);
    assert_true(next_str(cur, "q_compressed", buf, sizeof buf));
    hex_to_bytes(bytes, 96, buf);
    assert_int_equal(cz_g2_uncompress(&v->q, bytes), CZ_OK);
    cz_g1_affine p;
    cz_g2_affine q;
    g1_mul(&p, &G1, v->a);
    g2_mul(&q, &G2, v->b);
    assert_true(cz_g1_affine_eq(&p, &v->p));
    assert_true(cz_g2_affine_eq(&q, &v->q));
    return 1;
}

/* f^(3(p^12 - 1)/r) by plain exponentiation (reference for cz_final_exp,
 * which computes the cube of the exact reduced pairing, as blst, zkcrypto
 * and noble do). */
static void exact_final_exp(cz_fp12 *r, const cz_fp12 *f)
{
    mpz_t p, q, e;
    mpz_inits(p, q, e, NULL);
    cz_mpz_from_limbs(p, CZ_FP_MODULUS, 6);
    cz_mpz_from_limbs(q, CZ_FR_MODULUS, 4);
    mpz_pow_ui(e, p, 12);
    mpz_sub_ui(e, e, 1);
    assert_true(mpz_divisible_p(e, q));
    mpz_divexact(e, e, q);
    mpz_mul_ui(e, e, 3);
    uint64_t limbs[72];
    size_t n = (mpz_sizeinbase(e, 2) + 63) / 64;
    assert_true(n <= 72);
    cz_mpz_to_limbs(limbs, n, e);
    cz_fp12_pow(r, f, limbs, n);
    mpz_clears(p, q, e, NULL);
}

/* ---- known answers ---------------------------------------------------------- */

static void generator_pairing_body(void **state)
{
    (void)state;
    const char *want_c000 =
        "0x1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6";
    cz_fp12 e;
    cz_pairing(&e, &G1, &G2);
    char hex[99];
    cz_fp_to_hex(hex, &e.c0.c0.c0);
    assert_string_equal(hex, want_c000);
    /* the ec layer's generators are the same points */
    cz_g1_affine g1;
    cz_g2_affine g2;
    cz_g1_generator(&g1);
    cz_g2_generator(&g2);
    assert_true(cz_g1_affine_eq(&g1, &G1));
    assert_true(cz_g2_affine_eq(&g2, &G2));
}

static void vector_file_body(const char *rel, int min_cases)
{
    size_t len;
    char *text = (char *)cz_read_file(cz_vector_path(rel), &len);
    const char *cur = text;
    const char *multi = strstr(text, "\"multi\"");
    int cases = 0;
    vec_pair v;
    for (;;) {
        const char *next = strstr(cur, "\"a\"");
        if (!next || (multi && next > multi)) break;
        assert_true(read_pair(&cur, &v));
        cz_fp12 want, got;
        read_fp12(&cur, &want);
        cz_pairing(&got, &v.p, &v.q);
        assert_true(cz_fp12_eq(&got, &want));
        cases++;
    }
    assert_true(cases >= min_cases);
    /* multi-pairing entries: "n": count, then n pairs, then "pairing" */
    int multis = 0;
    while (multi) {
        const char *nk = strstr(cur, "\"n\"");
        if (!nk) break;
        cur = strchr(nk + 3, ':') + 1;
        unsigned long n = strtoul(cur, NULL, 10);
        assert_true(n >= 1 && n <= 16);
        cz_g1_affine p[16];
        cz_g2_affine q[16];
        for (unsigned long i = 0; i < n; i++) {
            assert_true(read_pair(&cur, &v));
            p[i] = v.p;
            q[i] = v.q;
        }
        cz_fp12 want, got;
        read_fp12(&cur, &want);
        cz_multi_pairing(&got, p, q, n);
        assert_true(cz_fp12_eq(&got, &want));
        multis++;
    }
    if (multi) assert_true(multis >= 1);
    free(text);
}

static void pairings_json_body(void **state)
{
    (void)state;
    vector_file_body("bls12_381/pairings.json", 4);
}

static void noble_json_body(void **state)
{
    (void)state;
    vector_file_body("noble_pairing.json", 8);
}

/* The addition chain of the hard part against the plain exponent. */
static void final_exp_exact_body(void **state)
{
    (void)state;
    for (int it = 0; it < EXP_ITERS; it++) {
        cz_fp12 f, a, b;
        cz_fp *c = (cz_fp *)&f;
        for (int i = 0; i < 12; i++) cz_rng_fp(&c[i]);
        cz_final_exp(&a, &f);
        exact_final_exp(&b, &f);
        assert_true(cz_fp12_eq(&a, &b));
        /* the result has order r */
        cz_fp12_pow(&b, &a, CZ_FR_MODULUS, 4);
        assert_true(cz_fp12_is_one(&b));
    }
}

/* Both ways of raising to |x| in the final exponentiation against
 * cz_fp12_pow, on cyclotomic elements; and the degenerate input 1. */
static void exp_by_x_body(void **state)
{
    (void)state;
    const uint64_t xabs = 0xd201000000010000ULL;
    for (int it = 0; it < EXP_ITERS; it++) {
        cz_fp12 f, g, t, want, got;
        cz_fp *c = (cz_fp *)&f;
        for (int i = 0; i < 12; i++) cz_rng_fp(&c[i]);
        /* g = f^((p^6 - 1)(p^2 + 1)) lies in the cyclotomic subgroup */
        cz_fp12_inv(&t, &f);
        cz_fp12_conj(&g, &f);
        cz_fp12_mul(&g, &g, &t);
        cz_fp12_frobenius(&t, &g, 2);
        cz_fp12_mul(&g, &t, &g);
        cz_fp12_pow(&want, &g, &xabs, 1);
        for (int m = 0; m <= 2; m++) {
            assert_true(cz__pairing_cyc_exp_xabs(&got, &g, m));
            assert_true(cz_fp12_eq(&got, &want));
        }
    }
    cz_fp12 one, got;
    cz_fp12_set_one(&one);
    assert_false(cz__pairing_cyc_exp_xabs(&got, &one, 2)); /* degenerate */
    assert_true(cz__pairing_cyc_exp_xabs(&got, &one, 0));
    assert_true(cz_fp12_is_one(&got));
    cz_final_exp(&got, &one);
    assert_true(cz_fp12_is_one(&got));
}

/* ---- laws ------------------------------------------------------------------- */

static void bilinearity_body(void **state)
{
    (void)state;
    cz_fp12 e, one;
    cz_fp12_set_one(&one);
    cz_pairing(&e, &G1, &G2);
    assert_false(cz_fp12_is_one(&e)); /* non-degenerate */
    cz_fp12 t;
    cz_fp12_pow(&t, &e, CZ_FR_MODULUS, 4);
    assert_true(cz_fp12_is_one(&t));
    for (int it = 0; it < LAW_ITERS; it++) {
        uint64_t a[4], b[4], ab[4];
        rng_scalar(a);
        rng_scalar(b);
        cz_fr fa, fb, fab;
        assert_int_equal(cz_fr_from_raw(&fa, a), CZ_OK);
        assert_int_equal(cz_fr_from_raw(&fb, b), CZ_OK);
        cz_fr_mul(&fab, &fa, &fb);
        cz_fr_to_raw(ab, &fab);
        cz_g1_affine p;
        cz_g2_affine q;
        g1_mul(&p, &G1, a);
        g2_mul(&q, &G2, b);
        cz_fp12 lhs, rhs;
        cz_pairing(&lhs, &p, &q);
        cz_fp12_pow(&rhs, &e, ab, 4);
        assert_true(cz_fp12_eq(&lhs, &rhs));
        /* e([a]P, Q) = e(P, [a]Q) */
        cz_g1_affine pa;
        cz_g2_affine qa;
        g1_mul(&pa, &G1, a);
        g2_mul(&qa, &G2, a);
        cz_pairing(&lhs, &pa, &q);
        cz_g1_affine pb;
        g1_mul(&pb, &G1, b);
        cz_pairing(&rhs, &pb, &qa);
        assert_true(cz_fp12_eq(&lhs, &rhs));
        /* e(P, Q) e(-P, Q) = 1 and e(P, -Q) = e(P, Q)^-1 */
        cz_g1_affine np;
        cz_g2_affine nq;
        cz_g1_affine_neg(&np, &p);
        cz_g2_affine_neg(&nq, &q);
        cz_fp12 e1, e2, e3;
        cz_pairing(&e1, &p, &q);
        cz_pairing(&e2, &np, &q);
        cz_fp12_mul(&t, &e1, &e2);
        assert_true(cz_fp12_is_one(&t));
        cz_pairing(&e3, &p, &nq);
        cz_fp12_inv(&t, &e1);
        assert_true(cz_fp12_eq(&t, &e3));
        /* multi-pairing of (P, Q), (-P, Q) is 1 */
        cz_g1_affine ps[2] = {p, np};
        cz_g2_affine qs[2] = {q, q};
        cz_multi_pairing(&t, ps, qs, 2);
        assert_true(cz_fp12_is_one(&t));
    }
}

static void infinity_body(void **state)
{
    (void)state;
    cz_g1_affine p0;
    cz_g2_affine q0;
    cz_g1_affine_set_infinity(&p0);
    cz_g2_affine_set_infinity(&q0);
    cz_fp12 t;
    cz_pairing(&t, &p0, &G2);
    assert_true(cz_fp12_is_one(&t));
    cz_pairing(&t, &G1, &q0);
    assert_true(cz_fp12_is_one(&t));
    cz_pairing(&t, &p0, &q0);
    assert_true(cz_fp12_is_one(&t));
    cz_multi_pairing(&t, NULL, NULL, 0);
    assert_true(cz_fp12_is_one(&t));
    cz_miller_loop(&t, &p0, &G2);
    assert_true(cz_fp12_is_one(&t));
    cz_g2_prepared pq;
    cz_g2_prepare(&pq, &q0);
    const cz_g2_prepared *pp = &pq;
    cz_miller_loop_prepared(&t, &G1, &pp, 1);
    assert_true(cz_fp12_is_one(&t));
}

static void multi_body(void **state)
{
    (void)state;
#ifdef CUZK_SANITIZED
    const size_t nmax = 3;
#else
    const size_t nmax = 5;
#endif
    cz_g1_affine p[20];
    cz_g2_affine q[20];
    for (size_t i = 0; i < 20; i++) {
        uint64_t a[4], b[4];
        rng_scalar(a);
        rng_scalar(b);
        g1_mul(&p[i], &G1, a);
        g2_mul(&q[i], &G2, b);
    }
    cz_fp12 prod, e, got;
    for (size_t n = 1; n <= nmax; n++) {
        cz_fp12_set_one(&prod);
        for (size_t i = 0; i < n; i++) {
            cz_pairing(&e, &p[i], &q[i]);
            cz_fp12_mul(&prod, &prod, &e);
        }
        cz_multi_pairing(&got, p, q, n);
        assert_true(cz_fp12_eq(&got, &prod));
    }
    /* an infinity pair in the middle is skipped */
    cz_g1_affine p2[3] = {p[0], p[1], p[2]};
    cz_g2_affine q2[3] = {q[0], q[1], q[2]};
    cz_g1_affine_set_infinity(&p2[1]);
    cz_fp12 e0, e2;
    cz_pairing(&e0, &p[0], &q[0]);
    cz_pairing(&e2, &p[2], &q[2]);
    cz_fp12_mul(&prod, &e0, &e2);
    cz_multi_pairing(&got, p2, q2, 3);
    assert_true(cz_fp12_eq(&got, &prod));
    /* more pairs than one chunk (16): Miller loop values multiply */
    size_t big = 20;
#ifdef CUZK_SANITIZED
    big = 17;
#endif
    cz_fp12 f, g, h;
    cz_miller_loop_multi(&f, p, q, 16);
    cz_miller_loop_multi(&g, p + 16, q + 16, big - 16);
    cz_fp12_mul(&f, &f, &g);
    cz_miller_loop_multi(&h, p, q, big);
    assert_true(cz_fp12_eq(&f, &h));
    /* and each Miller loop value is the product of single ones */
    cz_fp12_set_one(&prod);
    for (size_t i = 0; i < 3; i++) {
        cz_miller_loop(&e, &p[i], &q[i]);
        cz_fp12_mul(&prod, &prod, &e);
    }
    cz_miller_loop_multi(&got, p, q, 3);
    assert_true(cz_fp12_eq(&got, &prod));
}

static void prepared_body(void **state)
{
    (void)state;
    enum { N = 4 };
    cz_g1_affine p[N];
    cz_g2_affine q[N];
    cz_g2_prepared *prep = malloc(N * sizeof *prep);
    const cz_g2_prepared *pp[N];
    assert_non_null(prep);
    for (size_t i = 0; i < N; i++) {
        uint64_t a[4], b[4];
        rng_scalar(a);
        rng_scalar(b);
        g1_mul(&p[i], &G1, a);
        g2_mul(&q[i], &G2, b);
        cz_g2_prepare(&prep[i], &q[i]);
        pp[i] = &prep[i];
    }
    cz_fp12 f, g;
    for (size_t n = 1; n <= N; n++) {
        cz_miller_loop_multi(&f, p, q, n);
        cz_miller_loop_prepared(&g, p, pp, n);
        assert_true(cz_fp12_eq(&f, &g));
    }
    /* prepared generator against the known e(G1, G2) */
    cz_g2_prepare(&prep[0], &G2);
    pp[0] = &prep[0];
    cz_miller_loop_prepared(&f, &G1, pp, 1);
    cz_final_exp(&f, &f);
    cz_pairing(&g, &G1, &G2);
    assert_true(cz_fp12_eq(&f, &g));
    free(prep);
}

#define BOTH(name)                                                    \
    static void name(void **state) { cz_for_each_backend(name##_body, state); }
BOTH(generator_pairing)
BOTH(pairings_json)
BOTH(noble_json)
BOTH(final_exp_exact)
BOTH(exp_by_x)
BOTH(bilinearity)
BOTH(infinity)
BOTH(multi)
BOTH(prepared)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generator_pairing),
        cmocka_unit_test(pairings_json),
        cmocka_unit_test(noble_json),
        cmocka_unit_test(final_exp_exact),
        cmocka_unit_test(exp_by_x),
        cmocka_unit_test(bilinearity),
        cmocka_unit_test(infinity),
        cmocka_unit_test(multi),
        cmocka_unit_test(prepared),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
