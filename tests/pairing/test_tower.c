/*
 * Fp6 / Fp12 tower: field axioms on random elements, the sparse products
 * against full products, Frobenius against exponentiation by p^k (GMP
 * computes p^k), cyclotomic squaring against squaring on elements of the
 * cyclotomic subgroup. Every test runs on both field back-ends.
 */
#include "testutil.h"
#include "pairing/tower_internal.h"

#include <string.h>

#ifdef CUZK_SANITIZED
#define ITERS 4
#else
#define ITERS 40
#endif

static void rng_fp6(cz_fp6 *r)
{
    cz_rng_fp2(&r->c0);
    cz_rng_fp2(&r->c1);
    cz_rng_fp2(&r->c2);
}

static void rng_fp12(cz_fp12 *r)
{
    rng_fp6(&r->c0);
    rng_fp6(&r->c1);
}

/* An element of the cyclotomic subgroup: f^((p^6 - 1)(p^2 + 1)). */
static void rng_cyclotomic(cz_fp12 *r)
{
    cz_fp12 f, t, g;
    rng_fp12(&f);
    cz_fp12_inv(&t, &f);
    cz_fp12_conj(&g, &f);
    cz_fp12_mul(&g, &g, &t);
    cz_fp12_frobenius(&t, &g, 2);
    cz_fp12_mul(r, &t, &g);
}

static void fp6_axioms_body(void **state)
{
    (void)state;
    for (int it = 0; it < ITERS; it++) {
        cz_fp6 a, b, c, x, y, z, one, v;
        rng_fp6(&a);
        rng_fp6(&b);
        rng_fp6(&c);
        cz_fp6_set_one(&one);
        /* commutative, associative, distributive */
        cz_fp6_mul(&x, &a, &b);
        cz_fp6_mul(&y, &b, &a);
        assert_true(cz_fp6_eq(&x, &y));
        cz_fp6_mul(&x, &x, &c);
        cz_fp6_mul(&y, &b, &c);
        cz_fp6_mul(&y, &a, &y);
        assert_true(cz_fp6_eq(&x, &y));
        cz_fp6_add(&x, &b, &c);
        cz_fp6_mul(&x, &a, &x);
        cz_fp6_mul(&y, &a, &b);
        cz_fp6_mul(&z, &a, &c);
        cz_fp6_add(&y, &y, &z);
        assert_true(cz_fp6_eq(&x, &y));
        /* sqr == mul, in place */
        cz_fp6_mul(&x, &a, &a);
        y = a;
        cz_fp6_sqr(&y, &y);
        assert_true(cz_fp6_eq(&x, &y));
        /* inverse */
        cz_fp6_inv(&x, &a);
        cz_fp6_mul(&x, &x, &a);
        assert_true(cz_fp6_eq(&x, &one));
        /* sub / neg */
        cz_fp6_sub(&x, &a, &b);
        cz_fp6_neg(&y, &b);
        cz_fp6_add(&y, &a, &y);
        assert_true(cz_fp6_eq(&x, &y));
        /* mul_by_nonresidue == mul by v, and v^3 = u + 1 */
        cz_fp6_set_zero(&v);
        v.c1.c0 = CZ_FP_ONE;
        cz_fp6_mul(&x, &a, &v);
        cz_fp6_mul_by_nonresidue(&y, &a);
        assert_true(cz_fp6_eq(&x, &y));
        cz_fp6_mul(&x, &v, &v);
        cz_fp6_mul(&x, &x, &v);
        assert_true(cz_fp_is_one(&x.c0.c0) && cz_fp_is_one(&x.c0.c1));
        assert_true(cz_fp2_is_zero(&x.c1) && cz_fp2_is_zero(&x.c2));
        /* sparse products against the full product */
        cz_fp6 s;
        cz_fp6_set_zero(&s);
        s.c0 = b.c0;
        s.c1 = b.c1;
        cz_fp6_mul(&x, &a, &s);
        cz_fp6_mul_by_01(&y, &a, &b.c0, &b.c1);
        assert_true(cz_fp6_eq(&x, &y));
        cz_fp6_set_zero(&s);
        s.c1 = b.c1;
        cz_fp6_mul(&x, &a, &s);
        y = a;
        cz_fp6_mul_by_1(&y, &y, &b.c1);
        assert_true(cz_fp6_eq(&x, &y));
    }
    cz_fp6 zero, x;
    cz_fp6_set_zero(&zero);
    cz_fp6_inv(&x, &zero);
    assert_true(cz_fp6_is_zero(&x));
}

static void fp12_axioms_body(void **state)
{
    (void)state;
    for (int it = 0; it < ITERS; it++) {
        cz_fp12 a, b, c, x, y, z, one;
        rng_fp12(&a);
        rng_fp12(&b);
        rng_fp12(&c);
        cz_fp12_set_one(&one);
        cz_fp12_mul(&x, &a, &b);
        cz_fp12_mul(&y, &b, &a);
        assert_true(cz_fp12_eq(&x, &y));
        cz_fp12_mul(&x, &x, &c);
        cz_fp12_mul(&y, &b, &c);
        cz_fp12_mul(&y, &a, &y);
        assert_true(cz_fp12_eq(&x, &y));
        /* a(b + c) = ab + ac, with the Fp6 halves added directly */
        cz_fp12 bc;
        cz_fp6_add(&bc.c0, &b.c0, &c.c0);
        cz_fp6_add(&bc.c1, &b.c1, &c.c1);
        cz_fp12_mul(&x, &a, &bc);
        cz_fp12_mul(&y, &a, &b);
        cz_fp12_mul(&z, &a, &c);
        cz_fp6_add(&y.c0, &y.c0, &z.c0);
        cz_fp6_add(&y.c1, &y.c1, &z.c1);
        assert_true(cz_fp12_eq(&x, &y));
        cz_fp12_mul(&x, &a, &a);
        y = a;
        cz_fp12_sqr(&y, &y);
        assert_true(cz_fp12_eq(&x, &y));
        cz_fp12_inv(&x, &a);
        cz_fp12_mul(&x, &x, &a);
        assert_true(cz_fp12_is_one(&x));
        assert_false(cz_fp12_is_one(&a));
        /* w^2 = v */
        cz_fp12 w;
        memset(&w, 0, sizeof w);
        w.c1.c0.c0 = CZ_FP_ONE;
        cz_fp12_sqr(&x, &w);
        assert_true(cz_fp_is_one(&x.c0.c1.c0));
        x.c0.c1.c0 = CZ_FP_ZERO;
        assert_true(cz_fp6_is_zero(&x.c0) && cz_fp6_is_zero(&x.c1));
        /* mul_by_014 against the full product with the sparse element */
        cz_fp12 s;
        memset(&s, 0, sizeof s);
        s.c0.c0 = b.c0.c0;
        s.c0.c1 = b.c0.c1;
        s.c1.c1 = b.c1.c1;
        cz_fp12_mul(&x, &a, &s);
        y = a;
        cz_fp12_mul_by_014(&y, &y, &b.c0.c0, &b.c0.c1, &b.c1.c1);
        assert_true(cz_fp12_eq(&x, &y));
        /* conj(a) = a^(p^6) */
        cz_fp12_conj(&x, &a);
        cz_fp12_frobenius(&y, &a, 6);
        assert_true(cz_fp12_eq(&x, &y));
    }
}

/* frobenius(a, k) == a^(p^k) for Fp12 (k = 0..12) and Fp6 (embedded as
 * c1 = 0, k = 0..6). */
static void frobenius_body(void **state)
{
    (void)state;
    mpz_t p, e;
    mpz_inits(p, e, NULL);
    cz_mpz_from_limbs(p, CZ_FP_MODULUS, 6);
    uint64_t limbs[80];
#ifdef CUZK_SANITIZED
    const unsigned kmax = 3;
#else
    const unsigned kmax = 12;
#endif
    for (unsigned k = 0; k <= kmax; k++) {
        mpz_pow_ui(e, p, k);
        size_t n = (mpz_sizeinbase(e, 2) + 63) / 64;
        cz_mpz_to_limbs(limbs, n, e);
        cz_fp12 a, x, y;
        rng_fp12(&a);
        cz_fp12_frobenius(&x, &a, k);
        cz_fp12_pow(&y, &a, limbs, n);
        assert_true(cz_fp12_eq(&x, &y));
        /* composition: frob(frob(a, 1), k) = frob(a, k + 1) */
        cz_fp12_frobenius(&x, &a, 1);
        cz_fp12_frobenius(&x, &x, k);
        cz_fp12_frobenius(&y, &a, k + 1);
        assert_true(cz_fp12_eq(&x, &y));
        if (k <= 6) {
            cz_fp12 b;
            rng_fp6(&b.c0);
            cz_fp6_set_zero(&b.c1);
            cz_fp12_pow(&y, &b, limbs, n);
            cz_fp6 z;
            cz_fp6_frobenius(&z, &b.c0, k);
            assert_true(cz_fp6_eq(&z, &y.c0));
            assert_true(cz_fp6_is_zero(&y.c1));
        }
    }
    mpz_clears(p, e, NULL);
}

/* pow against repeated multiplication for small exponents. */
static void fp12_pow_body(void **state)
{
    (void)state;
    cz_fp12 a, x, y;
    rng_fp12(&a);
    cz_fp12_set_one(&y);
    for (uint64_t e = 0; e < 20; e++) {
        cz_fp12_pow(&x, &a, &e, 1);
        assert_true(cz_fp12_eq(&x, &y));
        cz_fp12_mul(&y, &y, &a);
    }
}

static void cyclotomic_body(void **state)
{
    (void)state;
    for (int it = 0; it < ITERS; it++) {
        cz_fp12 g, x, y;
        rng_cyclotomic(&g);
        /* in the cyclotomic subgroup the conjugate is the inverse */
        cz_fp12_conj(&x, &g);
        cz_fp12_mul(&x, &x, &g);
        assert_true(cz_fp12_is_one(&x));
        cz_fp12_sqr(&x, &g);
        y = g;
        cz_fp12_cyclotomic_sqr(&y, &y);
        assert_true(cz_fp12_eq(&x, &y));
        /* a few more: stays in the subgroup */
        for (int j = 0; j < 3; j++) {
            cz_fp12_sqr(&x, &x);
            cz_fp12_cyclotomic_sqr(&y, &y);
        }
        assert_true(cz_fp12_eq(&x, &y));
    }
}

static void fp12_bytes(void **state)
{
    (void)state;
    cz_fp12 a;
    uint8_t out[576];
    rng_fp12(&a);
    cz_fp12_to_bytes_be(out, &a);
    uint8_t want[48];
    cz_fp_to_bytes_be(want, &a.c0.c0.c0);
    assert_memory_equal(out, want, 48);
    cz_fp_to_bytes_be(want, &a.c0.c0.c1);
    assert_memory_equal(out + 48, want, 48);
    cz_fp_to_bytes_be(want, &a.c0.c1.c0);
    assert_memory_equal(out + 96, want, 48);
    cz_fp_to_bytes_be(want, &a.c1.c2.c1);
    assert_memory_equal(out + 11 * 48, want, 48);
}

#define BOTH(name)                                                    \
    static void name(void **state) { cz_for_each_backend(name##_body, state); }
BOTH(fp6_axioms)
BOTH(fp12_axioms)
BOTH(frobenius)
BOTH(fp12_pow)
BOTH(cyclotomic)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fp6_axioms),
        cmocka_unit_test(fp12_axioms),
        cmocka_unit_test(frobenius),
        cmocka_unit_test(fp12_pow),
        cmocka_unit_test(cyclotomic),
        cmocka_unit_test(fp12_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
