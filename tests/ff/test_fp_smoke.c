/* Minimal differential check of Fp/Fr mul against GMP (expanded in test_ff.c). */
#include "testutil.h"

static void mul_matches_gmp(void **state)
{
    (void)state;
    mpz_t p, a, b, c, d;
    mpz_inits(p, a, b, c, d, NULL);
    cz_mpz_from_limbs(p, CZ_FP_MODULUS, 6);
    for (int i = 0; i < 1000; i++) {
        cz_fp x, y, z;
        uint64_t rx[6], ry[6], rz[6];
        cz_rng_fp(&x);
        cz_rng_fp(&y);
        cz_fp_mul(&z, &x, &y);
        cz_fp_to_raw(rx, &x);
        cz_fp_to_raw(ry, &y);
        cz_fp_to_raw(rz, &z);
        cz_mpz_from_limbs(a, rx, 6);
        cz_mpz_from_limbs(b, ry, 6);
        cz_mpz_from_limbs(c, rz, 6);
        mpz_mul(d, a, b);
        mpz_mod(d, d, p);
        assert_int_equal(mpz_cmp(c, d), 0);
    }
    mpz_clears(p, a, b, c, d, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(mul_matches_gmp)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
