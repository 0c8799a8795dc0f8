/*
 * Regression pins of the PoSt and SnapDeals R1CS: counts, nonzeros and the
 * bellpepper TestConstraintSystem::hash() fingerprint (cuzk/r1cs_hash.h) of
 * winning-2k, wpost-2k, snap-2k and winning-32g.
 *
 * How the values were obtained: `cuzk circuit-info --circuit ID` on the
 * circuits once their constraint, input and aux counts matched
 * rust-fil-proofs' (circuits.json: winning-post-32g 370,590 / 133 /
 * 375,210; the 2KiB counts asserted by storage-proofs-post's
 * fallback_circuit tests and storage-proofs-update's circuit tests, checked
 * in test_fil_post / test_fil_snap). The reference publishes no digest for
 * these circuits, so the digests pin cuzk's own R1CS: any change of a
 * variable's order, a linear combination or a coefficient changes them,
 * and such a change makes the ceremony's parameters stop fitting. A
 * change here must be explained by a change in the reference, never
 * accepted as is.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "cuzk/fil_post.h"
#include "cuzk/fil_snap.h"
#include "cuzk/r1cs_hash.h"

typedef struct {
    const char *id;
    uint64_t constraints, inputs, aux, nnz_a, nnz_b, nnz_c;
    const char *digest;
} pin;

static void check(cz_synth_fn fn, const void *ctx, const pin *p)
{
    cz_r1cs_fingerprint f;
    assert_int_equal(cz_r1cs_fingerprint_stream(fn, ctx, &f, NULL), CZ_OK);
    char hex[65];
    cz_r1cs_fingerprint_hex(&f, hex);
    print_message("%s: %llu constraints, %llu inputs, %llu aux, nnz %llu/%llu/%llu, %s\n", p->id,
                  (unsigned long long)f.constraints, (unsigned long long)f.inputs, (unsigned long long)f.aux,
                  (unsigned long long)f.nnz_a, (unsigned long long)f.nnz_b, (unsigned long long)f.nnz_c, hex);
    assert_int_equal(f.constraints, p->constraints);
    assert_int_equal(f.inputs, p->inputs);
    assert_int_equal(f.aux, p->aux);
    assert_int_equal(f.nnz_a, p->nnz_a);
    assert_int_equal(f.nnz_a_with_input_rows, p->nnz_a + p->inputs);
    assert_int_equal(f.nnz_b, p->nnz_b);
    assert_int_equal(f.nnz_c, p->nnz_c);
    assert_string_equal(hex, p->digest);
}

static void check_post(const pin *p)
{
    cz_fil_post_circuit c = {cz_fil_post_proof_by_circuit(p->id), NULL};
    assert_non_null(c.proof);
    check(cz_fil_post_synth, &c, p);
}

static void test_winning_2k(void **state)
{
    (void)state;
    static const pin p = {"winning-2k", 90750, 133, 91674, 621852, 92070, 113652,
                          "ce8079a9875ac8fafc46902e0e2368fa997e7f2ffb2065d2666ef92bc3ca2f67"};
    check_post(&p);
}

static void test_wpost_2k(void **state)
{
    (void)state;
    static const pin p = {"wpost-2k", 21866, 23, 22128, 150262, 22230, 27456,
                          "14279e1c38053fa35eab6f56dbf1c5ef337b533f2c42fd3d7b4e7a116796b331"};
    check_post(&p);
}

static void test_winning_32g(void **state)
{
    (void)state;
    static const pin p = {"winning-32g", 370590, 133, 375210, 2549052, 376662, 465300,
                          "f65cddbca7106bac1a8b92148badb4d96f488d56c233bd59b0d0a6919445cf4f"};
    check_post(&p);
}

static void test_snap_2k(void **state)
{
    (void)state;
#ifdef CUZK_SANITIZED
    skip(); /* 1.7M constraints twice: minutes under the sanitizers */
#else
    static const pin p = {"snap-2k", 1705039, 5, 1703569, 4030887, 1706537, 3616648,
                          "c787aea9329f4525b3bcde14533b9b775654f6a9afe0a7c671783c8bd4f1f7a5"};
    cz_fil_snap_circuit c;
    memset(&c, 0, sizeof c);
    c.proof = cz_fil_snap_proof_by_name("snap-2k");
    assert_non_null(c.proof);
    check(cz_fil_snap_synth, &c, &p);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wpost_2k),
        cmocka_unit_test(test_winning_2k),
        cmocka_unit_test(test_winning_32g),
        cmocka_unit_test(test_snap_2k),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
