/*
 * The 32GiB SnapDeals partition circuit, streamed (nothing stored per
 * constraint): the counts rust-fil-proofs' counting constraint system gives
 * (tests/vectors/filecoin/circuits.json "snap-32g"; storage-proofs-update
 * tests/circuit.rs test_empty_sector_update_constraints_32gib asserts the
 * 81,049,499 constraints), and an 8MiB update (4 partitions, h = 10 of
 * hs = [7..12]: the production h path) satisfying one partition circuit,
 * while the same proofs checked with another allowed h (9) do not. Both
 * skipped under the sanitizers (about 8 s and 25 s in Release).
 */
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/fil_snap.h"
#include "cuzk/r1cs_hash.h"

#ifndef CUZK_SANITIZED
static uint64_t count_of(const char *circuit, const char *key) {
    json_error_t e;
    json_t *j = json_load_file(cz_vector_path("filecoin/circuits.json"), 0, &e);
    assert_non_null(j);
    json_t *a = json_object_get(j, "counts");
    uint64_t v = 0;
    bool found = false;
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *c = json_array_get(a, i);
        if (!strcmp(json_string_value(json_object_get(c, "circuit")), circuit)) {
            v = (uint64_t)json_integer_value(json_object_get(c, key));
            found = true;
        }
    }
    json_decref(j);
    assert_true(found);
    return v;
}
#endif

static void test_counts_32g_streaming(void **state) {
    (void)state;
#ifdef CUZK_SANITIZED
    skip();
#else
    cz_fil_snap_circuit ctx = { cz_fil_snap_proof_by_name("snap-32g"), NULL, 0, 0 };
    cz_r1cs_fingerprint f;
    assert_int_equal(cz_r1cs_count_stream(cz_fil_snap_synth, &ctx, &f), CZ_OK);
    assert_int_equal(f.constraints, count_of("snap-32g", "constraints"));
    assert_int_equal(f.constraints, 81049499);
    assert_int_equal(f.inputs, count_of("snap-32g", "inputs_with_one"));
    assert_int_equal(f.aux, count_of("snap-32g", "aux"));
    print_message("snap-32g: %llu constraints, %llu inputs, %llu aux\n", (unsigned long long)f.constraints,
                  (unsigned long long)f.inputs, (unsigned long long)f.aux);
#endif
}

static void test_update_8m_h(void **state) {
    (void)state;
#ifdef CUZK_SANITIZED
    skip();
#else
    const cz_fil_snap_proof *p = cz_fil_snap_proof_by_name("snap-8m");
    assert_int_equal(p->h_default, 10);
    size_t n = (size_t)p->sector_size, un = n / 128 * 127;
    uint8_t *old = malloc(n), *data = malloc(un);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        old[i] = (uint8_t)x;
        if (i % 32 == 31) old[i] &= 0x3f; /* < 2^254 < r: canonical */
    }
    for (size_t i = 0; i < un; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (uint8_t)(x >> 8);
    }
    cz_fil_domain comm_c = { { 7 } };
    cz_fil_snap_update u;
    cz_fil_snap_request r;
    cz_errbuf err;
    assert_int_equal(cz_fil_snap_encode(&u, p, old, &comm_c, data, un, 0, NULL, &err), CZ_OK);
    assert_int_equal(cz_fil_snap_prove(&u, &r, &err), CZ_OK);
    if (cz_fil_snap_check(&r, &err) != CZ_OK) fail_msg("%s", err.msg);
    assert_int_equal(cz_fil_snap_check_h(&r, 9, &err), CZ_ERR_MISMATCH);
    cz_fil_snap_circuit ctx = { p, &r, 2, 0 };
    cz_check_report rep;
    cz_status st = cz_cs_check(cz_fil_snap_synth, &ctx, &rep);
    if (st != CZ_OK) fail_msg("partition 2: %s at %s", cz_status_str(st), rep.where);
    assert_int_equal(rep.n_constraints - rep.n_inputs, 10007503);
    cz_fr pub[4];
    size_t np;
    assert_int_equal(cz_fil_snap_public_inputs(&r, 2, pub, 4, &np, &err), CZ_OK);
    cz_fr want;
    cz_fr_from_u64(&want, 2 | (8 << 2)); /* k = 2, h_select = 1 << 3 */
    assert_true(cz_fr_eq(&pub[0], &want));
    ctx.h = 9; /* a different allowed h: rho changes, the encoding fails */
    assert_int_equal(cz_cs_check(cz_fil_snap_synth, &ctx, &rep), CZ_ERR_UNSATISFIED);
    assert_non_null(strstr(rep.where, "por tree_r_new"));
    cz_fil_snap_request_free(&r);
    cz_fil_snap_update_free(&u);
    free(old);
    free(data);
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_32g_streaming),
        cmocka_unit_test(test_update_8m_h),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
