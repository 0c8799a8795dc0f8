/*
 * G1 / G2 group laws, scalar multiplication, XYZZ bucket formulas, batch
 * normalisation, subgroup test and cofactor clearing. References: the group
 * axioms themselves, naive double-and-add, the naive [r]P = O membership
 * test, and multiplication by the RFC 9380 effective cofactors.
 */
#include "ec_test_util.h"

/* RFC 9380 §8.8.1 / §8.8.2 effective cofactors, little-endian limbs. */
static const uint64_t g1_h_eff[1] = {0xd201000000010001ULL};
static const uint64_t g2_h_eff[10] = {
    0xe8020005aaa95551ULL, 0x59894c0adebbf6b4ULL, 0xe954cbc06689f6a3ULL,
    0x2ec0ec69d7477c1aULL, 0x6d82bf015d1212b0ULL, 0x329c2f178731db95ULL,
    0x9986ff031508ffe1ULL, 0x88e2a8e9145ad768ULL, 0x584c6a0ea91b3528ULL,
    0x0bc69f08f2ee75b3ULL};

#define TG g1
#define TF fp
#define TFE cz_fp
#include "group_tests_impl.h"
#undef TG
#undef TF
#undef TFE

#define TG g2
#define TF fp2
#define TFE cz_fp2
#include "group_tests_impl.h"

/* The formulas only call the field API; rerun the law and XYZZ checks on
 * every field back-end so both Montgomery kernels go through the curve code
 * (the other tests run on the default back-end). */
static void laws_all_backends(void **state)
{
    cz_for_each_backend(g1_laws, state);
    cz_for_each_backend(g2_laws, state);
    cz_for_each_backend(g1_xyzz, state);
    cz_for_each_backend(g2_xyzz, state);
}

int main(void)
{
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        TN_TESTS(g1),
        TN_TESTS(g2),
        cmocka_unit_test(laws_all_backends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
