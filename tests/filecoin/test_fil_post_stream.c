/*
 * The 32GiB WindowPoSt circuit (StackedDrgWindow32GiBV1_2, 2349 sectors of
 * 10 challenges) against tests/vectors/filecoin/circuits.json
 * (window-post-32g: 125,279,217 constraints, 25,840 inputs with ONE,
 * 126,902,376 aux), streamed: one counting pass of the recorder, nothing
 * stored per constraint. Its own executable (about 45 s in Release),
 * skipped under the sanitizers.
 */
#include "filtest.h"

#include <time.h>

#include "cuzk/fil_post.h"
#include "cuzk/r1cs_hash.h"

/* circuits.json: window-post-32g, streamed (counting pass only); skipped
 * under the sanitizers. */
static void test_counts_window_32g_streaming(void **state) {
    (void)state;
#ifdef CUZK_SANITIZED
    skip();
#else
    cz_fil_post_circuit ctx = { cz_fil_post_proof_by_id(13), NULL };
    cz_r1cs_fingerprint f;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(cz_r1cs_count_stream(cz_fil_post_synth, &ctx, &f), CZ_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    json_t *circuits = fil_load_json("filecoin/circuits.json");
    json_t *j = fil_counts_of(circuits, "window-post-32g");
    assert_int_equal(f.constraints, fil_jint(j, "constraints"));
    assert_int_equal(f.inputs, fil_jint(j, "inputs_with_one"));
    assert_int_equal(f.aux, fil_jint(j, "aux"));
    print_message("window-post-32g: %llu constraints, %llu inputs, %llu aux (%.1f s)\n",
                  (unsigned long long)f.constraints, (unsigned long long)f.inputs, (unsigned long long)f.aux,
                  (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    json_decref(circuits);
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_window_32g_streaming),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
