/*
 * Partition-range sub-jobs (cz_job_request.first_partition /
 * partition_count) and cz_engine_verify_proof: what the job store's nodes
 * rely on to prove one partition of a job alone and to verify a proof
 * assembled from partitions proved elsewhere.
 *
 * The fake back-end's partition proof is: bytes 0..3 the partition index
 * the back-end was given, bytes 4..7 the engine's job id, the rest a
 * function of the payload and the index. So a sub-job's proof must match
 * the whole job's byte for byte outside the job-id bytes, and its index
 * bytes show the back-end got the real partition index.
 */
#include "etest.h"

#define PB 24
#define PB4 4 /* no job-id bytes: proofs of different jobs can be concatenated */

static cz_status submit_range(cz_engine *e, const char *circuit, const char *payload, uint32_t n,
                              uint32_t first, uint32_t count, cz_job_id *id, char *msg, size_t msglen)
{
    cz_job_request r = {.circuit_id = circuit,
                        .payload = payload,
                        .payload_len = strlen(payload),
                        .num_partitions = n,
                        .first_partition = first,
                        .partition_count = count};
    return cz_engine_submit(e, &r, id, NULL, msg, msglen);
}

static cz_job_result await_done(cz_engine *e, cz_job_id id)
{
    cz_job_result r;
    assert_int_equal(cz_engine_await(e, id, 10000, &r), CZ_OK);
    if (r.state != CZ_JOB_DONE)
        fprintf(stderr, "job %llu: %s: %s\n", (unsigned long long)id, cz_job_state_str(r.state), r.error);
    assert_int_equal(r.state, CZ_JOB_DONE);
    return r;
}

/* Every range of a 5-partition job gives exactly the whole job's bytes for
 * those partitions (the job-id bytes aside), counted within the range. */
static void test_range_equals_whole(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    et_one_circuit(&f, &c, PB);
    cz_engine *e = et_create(&c);
    const char *pl = "range payload";
    cz_job_id wid = et_submit(e, "c", pl, 5, CZ_PRIO_NORMAL, NULL);
    cz_job_result whole = await_done(e, wid);
    assert_int_equal(whole.proof_len, 5 * PB);
    static const uint32_t ranges[][2] = {{0, 1}, {4, 1}, {1, 3}, {2, 2}, {0, 5}, {3, 2}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        uint32_t first = ranges[i][0], count = ranges[i][1];
        cz_job_id id = 0;
        char msg[256];
        assert_int_equal(submit_range(e, "c", pl, 5, first, count, &id, msg, sizeof msg), CZ_OK);
        cz_job_result r = await_done(e, id);
        assert_int_equal(r.num_partitions, count);
        assert_int_equal(r.partitions_done, count);
        assert_int_equal(r.proof_len, (size_t)count * PB);
        for (uint32_t k = 0; k < count; k++) {
            const uint8_t *got = r.proof + (size_t)k * PB, *want = whole.proof + (size_t)(first + k) * PB;
            /* the real index reached the back-end */
            assert_int_equal(got[0], (uint8_t)(first + k));
            assert_memory_equal(got, want, 4);
            assert_memory_equal(got + 8, want + 8, PB - 8);
            /* and the proof is the sub-job's own */
            assert_int_equal(got[4], (uint8_t)id);
        }
        cz_job_result_free(&r);
    }
    cz_job_result_free(&whole);
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

/* A failing partition proved alone names itself in the whole job's terms;
 * self-verification (which would fail on a part of a proof) is skipped for
 * ranges but still runs for whole jobs. */
static void test_range_failure_and_verify_rule(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    et_one_circuit(&f, &c, PB);
    cz_engine *e = et_create(&c);
    cz_job_id id = 0;
    char msg[256];
    assert_int_equal(submit_range(e, "c", "fail=synth:2", 4, 2, 1, &id, msg, sizeof msg), CZ_OK);
    cz_job_result r;
    assert_int_equal(cz_engine_await(e, id, 10000, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_FAILED);
    assert_int_equal(r.failed_partition, 2);
    fprintf(stderr, "range failure: %s\n", r.error);
    assert_non_null(strstr(r.error, "partition 2/4: synthesize"));
    cz_job_result_free(&r);
    /* the same payload's other partitions are unaffected */
    assert_int_equal(submit_range(e, "c", "fail=synth:2", 4, 3, 1, &id, msg, sizeof msg), CZ_OK);
    r = await_done(e, id);
    cz_job_result_free(&r);
    /* a range of a job whose whole proof fails verification: DONE (not
     * verified alone); the whole job: FAILED by self-verification */
    assert_int_equal(submit_range(e, "c", "fail=verify:0", 3, 0, 2, &id, msg, sizeof msg), CZ_OK);
    r = await_done(e, id);
    cz_job_result_free(&r);
    id = et_submit(e, "c", "fail=verify:0", 3, CZ_PRIO_NORMAL, NULL);
    assert_int_equal(cz_engine_await(e, id, 10000, &r), CZ_OK);
    assert_int_equal(r.state, CZ_JOB_FAILED);
    assert_non_null(strstr(r.error, "self-verification"));
    cz_job_result_free(&r);
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

static void expect_range_refused(cz_engine *e, uint32_t n, uint32_t first, uint32_t count, const char *needle)
{
    cz_job_id id = 99;
    char msg[256] = "";
    assert_int_equal(submit_range(e, "c", "x", n, first, count, &id, msg, sizeof msg), CZ_ERR_INVALID_ARG);
    assert_int_equal(id, 0);
    fprintf(stderr, "refused: %s\n", msg);
    assert_non_null(strstr(msg, needle));
}

static void test_invalid_ranges(void **state)
{
    (void)state;
    fake_backend f;
    cz_engine_config c;
    et_one_circuit(&f, &c, PB);
    cz_engine *e = et_create(&c);
    expect_range_refused(e, 4, 1, 0, "first_partition 1, partition_count 0 is outside the job's 4 partitions");
    expect_range_refused(e, 4, 4, 1, "first_partition 4, partition_count 1 is outside the job's 4 partitions");
    expect_range_refused(e, 4, 2, 3, "first_partition 2, partition_count 3 is outside the job's 4 partitions");
    expect_range_refused(e, 4, 0, 5, "first_partition 0, partition_count 5");
    expect_range_refused(e, 1, UINT32_MAX, 2, "partition_count 2 is outside the job's 1 partitions");
    /* the range is part of a request id's key */
    cz_job_request r = {.circuit_id = "c", .payload = "y", .payload_len = 1, .num_partitions = 4,
                        .first_partition = 1, .partition_count = 1, .request_id = "rid"};
    cz_job_id a = 0, b = 0;
    bool existing = true;
    char msg[256];
    assert_int_equal(cz_engine_submit(e, &r, &a, &existing, msg, sizeof msg), CZ_OK);
    assert_false(existing);
    assert_int_equal(cz_engine_submit(e, &r, &b, &existing, msg, sizeof msg), CZ_OK);
    assert_true(existing);
    assert_int_equal(a, b);
    r.first_partition = 2;
    assert_int_equal(cz_engine_submit(e, &r, &b, &existing, msg, sizeof msg), CZ_ERR_BUSY);
    cz_job_result res = await_done(e, a);
    cz_job_result_free(&res);
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

/* The assembler's check: one-partition sub-jobs concatenated verify as a
 * whole; a flipped bit, a short proof or another payload do not. The
 * parameters are loaded by verify_proof itself when they are not resident. */
static void test_verify_proof(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "c4", 100, 10, 10, PB4);
    cz_engine_config c;
    et_config(&c, &f);
    cz_engine *e = et_create(&c);
    const char *pl = "assemble me";
    char msg[256];
    /* before any job: verify_proof loads the parameters */
    uint8_t good[3 * PB4];
    for (uint32_t k = 0; k < 3; k++)
        fake_expected_proof(pl, strlen(pl), 0, k, good + k * PB4, PB4);
    assert_int_equal(cz_engine_verify_proof(e, "c4", pl, strlen(pl), 3, good, sizeof good, msg, sizeof msg),
                     CZ_OK);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.params_resident, 1);
    /* a proof assembled from three one-partition sub-jobs */
    uint8_t whole[3 * PB4];
    for (uint32_t k = 0; k < 3; k++) {
        cz_job_id id = 0;
        assert_int_equal(submit_range(e, "c4", pl, 3, k, 1, &id, msg, sizeof msg), CZ_OK);
        cz_job_result r = await_done(e, id);
        assert_int_equal(r.proof_len, PB4);
        memcpy(whole + k * PB4, r.proof, PB4);
        cz_job_result_free(&r);
    }
    assert_int_equal(cz_engine_verify_proof(e, "c4", pl, strlen(pl), 3, whole, sizeof whole, msg, sizeof msg),
                     CZ_OK);
    whole[2 * PB4 + 1] ^= 0x10;
    cz_status vs = cz_engine_verify_proof(e, "c4", pl, strlen(pl), 3, whole, sizeof whole, msg, sizeof msg);
    assert_int_not_equal(vs, CZ_OK);
    fprintf(stderr, "flipped bit: %s\n", msg);
    assert_non_null(strstr(msg, "the assembled proof is invalid"));
    whole[2 * PB4 + 1] ^= 0x10;
    assert_int_equal(cz_engine_verify_proof(e, "c4", pl, strlen(pl), 3, whole, 2 * PB4, msg, sizeof msg),
                     CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(msg, "is not 3 partition proofs of 4 bytes"));
    assert_int_equal(cz_engine_verify_proof(e, "nope", pl, strlen(pl), 3, whole, sizeof whole, msg, sizeof msg),
                     CZ_ERR_NOT_FOUND);
    /* the pin is released: once the sub-jobs' partitions have left the
     * pipeline (they unpin just after their job ends), nothing holds the
     * parameters and they can be evicted */
    assert_int_equal(cz_engine_wait_idle(e, 10000), CZ_OK);
    assert_int_equal(cz_engine_evict(e, "c4", msg, sizeof msg), CZ_OK);
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

static cz_status only_c_names(void *ctx, const char *id, char *msg, size_t msglen)
{
    (void)ctx;
    if (id[0] == 'c')
        return CZ_OK;
    snprintf(msg, msglen, "unknown circuit '%s' (names start with c)", id);
    return CZ_ERR_NOT_FOUND;
}

/* cz_engine_check_circuit: the back-end's name check, nothing loaded or
 * remembered; without one every well-formed name passes. */
static void test_check_circuit(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "c4", 100, 10, 10, PB4);
    cz_engine_config c;
    et_config(&c, &f);
    cz_engine *e = et_create(&c);
    char msg[256];
    char long_id[140];
    memset(long_id, 'c', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = 0;
    assert_int_equal(cz_engine_check_circuit(e, "anything", msg, sizeof msg), CZ_OK);
    assert_int_equal(cz_engine_check_circuit(e, "", msg, sizeof msg), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(msg, "1..127"));
    assert_int_equal(cz_engine_check_circuit(e, long_id, msg, sizeof msg), CZ_ERR_INVALID_ARG);
    cz_engine_destroy(e);

    c.backend.check_circuit = only_c_names;
    e = et_create(&c);
    assert_int_equal(cz_engine_check_circuit(e, "c9", msg, sizeof msg), CZ_OK); /* not a circuit of f: not asked */
    assert_int_equal(cz_engine_check_circuit(e, "nope", msg, sizeof msg), CZ_ERR_NOT_FOUND);
    assert_string_equal(msg, "unknown circuit 'nope' (names start with c)");
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_int_equal(st.params_resident, 0); /* nothing was loaded */
    et_check_idle(e, &f);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range_equals_whole),
        cmocka_unit_test(test_range_failure_and_verify_rule),
        cmocka_unit_test(test_invalid_ranges),
        cmocka_unit_test(test_verify_proof),
        cmocka_unit_test(test_check_circuit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
