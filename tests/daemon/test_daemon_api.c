/*
 * cuzkd API tests through a real cuzkd process (test-double back-end):
 * every endpoint, every error path named in docs/api.md. Proofs are
 * checked against the test back-end's formula recomputed here. Also the
 * pure parts behind them: the await answer (a DONE job without its proof
 * is a 500) and the default listen address.
 */
#include "cuzk/daemon.h"
#include "dtest.h"
#include "daemon/grpc_api.h"

static dt_daemon D;

static int setup(void **state)
{
    (void)state;
    dt_start(&D, "[daemon]\nmax_body_bytes = 65536\nmax_payload_bytes = 4096\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    int rc = dt_stop_sig(&D, SIGTERM);
    dt_cleanup(&D);
    return rc == 0 ? 0 : -1;
}

static long long submit_ok(const char *body, int want_code)
{
    json_t *j;
    int code = dt_call(&D, "POST", "/v1/jobs", body, &j);
    if (code != want_code)
        fail_msg("submit %s: %d %s", body, code, j ? dt_str(j, "error") : "");
    long long id = dt_int(j, "id");
    assert_true(id > 0);
    json_decref(j);
    return id;
}

static json_t *await_job(long long id, int timeout_ms)
{
    char path[96];
    snprintf(path, sizeof path, "/v1/jobs/%lld/await?timeout_ms=%d", id, timeout_ms);
    json_t *j;
    assert_int_equal(dt_call(&D, "POST", path, NULL, &j), 200);
    return j;
}

static void test_socket_mode(void **state)
{
    (void)state;
    struct stat sb;
    assert_int_equal(lstat(D.sock, &sb), 0);
    assert_true(S_ISSOCK(sb.st_mode));
    assert_int_equal(sb.st_mode & 0777, 0600);
    json_t *j;
    assert_int_equal(dt_call(&D, "GET", "/v1/health", NULL, &j), 200);
    assert_true(json_is_true(json_object_get(j, "ok")));
    json_decref(j);
}

static void test_submit_await(void **state)
{
    (void)state;
    long long id = submit_ok("{\"circuit\":\"test\",\"payload\":\"hello\",\"partitions\":3,\"priority\":\"high\"}", 201);
    json_t *j = await_job(id, 20000);
    assert_string_equal(dt_str(j, "state"), "done");
    assert_false(json_is_true(json_object_get(j, "timed_out")));
    assert_int_equal(dt_int(j, "num_partitions"), 3);
    assert_int_equal(dt_int(j, "partitions_done"), 3);
    assert_string_equal(dt_str(j, "priority"), "high");
    dt_check_proof(j, "hello", 5, 3);
    json_decref(j);
    /* status of a finished job: no proof, state done */
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%lld", id);
    assert_int_equal(dt_call(&D, "GET", path, NULL, &j), 200);
    assert_string_equal(dt_str(j, "state"), "done");
    assert_int_equal(dt_int(j, "id"), id);
    assert_null(json_object_get(j, "proof_b64"));
    json_decref(j);
}

static void test_prove_payload_forms(void **state)
{
    (void)state;
    json_t *j;
    /* JSON value payload: the compact serialization is the payload */
    assert_int_equal(dt_call(&D, "POST", "/v1/prove",
                             "{\"circuit\":\"test-a\",\"payload\": {\"x0\" : \"5\", \"v\":[1, 2]},\"partitions\":2}", &j),
                     200);
    assert_string_equal(dt_str(j, "state"), "done");
    const char *compact = "{\"x0\":\"5\",\"v\":[1,2]}";
    dt_check_proof(j, compact, strlen(compact), 2);
    json_decref(j);
    /* base64 payload with binary bytes (NUL included) */
    const uint8_t bin[] = {0, 1, 2, 0xff, 0x80, 0, 'z'};
    char *b64 = NULL;
    assert_int_equal(cz_base64_encode(bin, sizeof bin, &b64, NULL), CZ_OK);
    char body[256];
    snprintf(body, sizeof body, "{\"circuit\":\"test\",\"payload_b64\":\"%s\"}", b64);
    free(b64);
    assert_int_equal(dt_call(&D, "POST", "/v1/prove?timeout_ms=20000", body, &j), 200);
    assert_string_equal(dt_str(j, "state"), "done");
    dt_check_proof(j, bin, sizeof bin, 1);
    json_decref(j);
}

static void test_failed_job(void **state)
{
    (void)state;
    const char *kinds[][2] = {{"synth", "synthesi"}, {"prove", "prove"}, {"finish", "finish"}, {"verify", "verif"}};
    for (int k = 0; k < 4; k++) {
        char body[160];
        snprintf(body, sizeof body, "{\"circuit\":\"test\",\"payload\":\"fail=%s:1\",\"partitions\":3}", kinds[k][0]);
        long long id = submit_ok(body, 201);
        json_t *j = await_job(id, 20000);
        assert_string_equal(dt_str(j, "state"), "failed");
        if (strcmp(kinds[k][0], "verify"))
            assert_int_equal(dt_int(j, "failed_partition"), 1);
        if (!strstr(dt_str(j, "error"), kinds[k][1]))
            fail_msg("error '%s' lacks '%s'", dt_str(j, "error"), kinds[k][1]);
        assert_null(json_object_get(j, "proof_b64"));
        json_decref(j);
    }
    /* a payload the back-end rejects at preparation */
    long long id = submit_ok("{\"circuit\":\"test\",\"payload\":\"fail=prepare:0\"}", 201);
    json_t *j = await_job(id, 20000);
    assert_string_equal(dt_str(j, "state"), "failed");
    json_decref(j);
}

static void test_malformed_bodies(void **state)
{
    (void)state;
    static const struct {
        const char *body, *want;
        int code;
    } cases[] = {
        {"", "empty request body", 400},
        {"{", "malformed JSON", 400},
        {"{\"circuit\":\"test\",\"payload\":\"x\"", "malformed JSON", 400},
        {"[1,2]", "must be a JSON object", 400},
        {"\"str\"", "must be a JSON object", 400},
        {"{\"payload\":\"x\"}", "missing field 'circuit'", 400},
        {"{\"circuit\":\"test\"}", "missing field 'payload'", 400},
        {"{\"circuit\":5,\"payload\":\"x\"}", "'circuit' must be a string", 400},
        {"{\"circuit\":\"test\",\"payload\":\"x\",\"partitions\":\"3\"}", "'partitions' must be an integer", 400},
        {"{\"circuit\":\"test\",\"payload\":\"x\",\"partitions\":0}", "1..65536", 400},
        {"{\"circuit\":\"test\",\"payload\":\"x\",\"partitions\":65537}", "1..65536", 400},
        {"{\"circuit\":\"test\",\"payload\":\"x\",\"partitions\":2.5}", "'partitions' must be an integer", 400},
        {"{\"circuit\":\"test\",\"payload\":\"x\",\"priority\":\"urgent\"}", "'priority'", 400},
        {"{\"circuit\":\"test\",\"payload\":\"x\",\"priority\":2}", "'priority'", 400},
        {"{\"circuit\":\"test\",\"payload\":\"x\",\"request_id\":5}", "'request_id' must be a string", 400},
        {"{\"circuit\":\"test\",\"payload\":\"x\",\"request_id\":\"\"}", "'request_id'", 400},
        {"{\"circuit\":\"test\",\"payload\":\"x\",\"request_id\":\"a b\"}", "'request_id'", 400},
        {"{\"circuit\":\"test\",\"payload\":\"x\",\"circuitt\":1}", "unknown field 'circuitt'", 400},
        {"{\"circuit\":\"test\",\"payload_b64\":\"!!!!\"}", "base64", 400},
        {"{\"circuit\":\"test\",\"payload_b64\":\"QQ\"}", "base64", 400},
        {"{\"circuit\":\"test\",\"payload_b64\":7}", "'payload_b64' must be", 400},
        {"{\"circuit\":\"test\",\"payload\":\"x\",\"payload_b64\":\"QQ==\"}", "exactly one", 400},
        {"{\"circuit\":\"test\",\"circuit\":\"test\",\"payload\":\"x\"}", "duplicate", 400},
        {"{\"circuit\":\"../etc/passwd\",\"payload\":\"x\"}", "bad circuit id", 400},
        {"{\"circuit\":\"\",\"payload\":\"x\"}", "bad circuit id", 400},
        {"{\"circuit\":\"a\\u0000b\",\"payload\":\"x\"}", "malformed JSON", 400},
        {"{\"circuit\":\"nope\",\"payload\":\"x\"}", "unknown circuit 'nope'", 400},
        {"{\"circuit\":\"test-huge\",\"payload\":\"x\"}", "budget", 422},
        {"\xff\xfe{}", "malformed JSON", 400},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *j = NULL;
        int code = dt_call(&D, "POST", "/v1/jobs", cases[i].body, &j);
        if (code != cases[i].code)
            fail_msg("case %zu (%s): status %d, want %d", i, cases[i].body, code, cases[i].code);
        DT_EXPECT_ERROR(code, j, cases[i].want);
        /* /v1/prove parses the same way */
        code = dt_call(&D, "POST", "/v1/prove", cases[i].body, &j);
        assert_int_equal(code, cases[i].code);
        json_decref(j);
    }
}

static void test_size_limits(void **state)
{
    (void)state;
    /* body over max_body_bytes (64 KiB), refused by Content-Length */
    size_t n = 100000;
    char *big = malloc(n + 1);
    memset(big, ' ', n);
    big[n] = 0;
    json_t *j;
    int code = dt_call(&D, "POST", "/v1/jobs", big, &j);
    assert_int_equal(code, 413);
    DT_EXPECT_ERROR(code, j, "max_body_bytes");
    /* the same body chunked (no Content-Length): refused at its end */
    size_t cap = n + 4096;
    char *raw = malloc(cap);
    size_t off = (size_t)snprintf(raw, cap, "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                                            "Transfer-Encoding: chunked\r\n\r\n");
    for (size_t left = n; left;) {
        size_t c = left > 8192 ? 8192 : left;
        off += (size_t)snprintf(raw + off, cap - off, "%zx\r\n", c);
        memcpy(raw + off, big, c);
        off += c;
        memcpy(raw + off, "\r\n", 2);
        off += 2;
        left -= c;
    }
    off += (size_t)snprintf(raw + off, cap - off, "0\r\n\r\n");
    cz_http_response r;
    cz_errbuf err;
    assert_int_equal(cz_http_raw(D.addr, raw, off, 30000, &r, &err), CZ_OK);
    assert_int_equal(r.status, 413);
    assert_non_null(strstr(r.body, "max_body_bytes"));
    cz_http_response_free(&r);
    free(raw);
    free(big);
    /* payload over max_payload_bytes (4 KiB), both forms */
    size_t pn = 5000;
    uint8_t *pl = calloc(1, pn);
    char *b64 = NULL;
    assert_int_equal(cz_base64_encode(pl, pn, &b64, NULL), CZ_OK);
    char *body = malloc(pn * 2 + 100);
    sprintf(body, "{\"circuit\":\"test\",\"payload_b64\":\"%s\"}", b64);
    code = dt_call(&D, "POST", "/v1/jobs", body, &j);
    assert_int_equal(code, 413);
    DT_EXPECT_ERROR(code, j, "max_payload_bytes");
    memset(pl, 'a', pn);
    sprintf(body, "{\"circuit\":\"test\",\"payload\":\"%.*s\"}", (int)pn, (const char *)pl);
    code = dt_call(&D, "POST", "/v1/jobs", body, &j);
    assert_int_equal(code, 413);
    DT_EXPECT_ERROR(code, j, "max_payload_bytes");
    free(b64);
    free(body);
    free(pl);
}

static void test_unknown_job_and_bad_ids(void **state)
{
    (void)state;
    json_t *j;
    int code = dt_call(&D, "GET", "/v1/jobs/987654321", NULL, &j);
    assert_int_equal(code, 404);
    DT_EXPECT_ERROR(code, j, "unknown job 987654321");
    code = dt_call(&D, "POST", "/v1/jobs/987654321/await?timeout_ms=10", NULL, &j);
    assert_int_equal(code, 404);
    DT_EXPECT_ERROR(code, j, "unknown job");
    code = dt_call(&D, "POST", "/v1/jobs/987654321/cancel", NULL, &j);
    assert_int_equal(code, 404);
    DT_EXPECT_ERROR(code, j, "unknown job");
    const char *bad[] = {"/v1/jobs/abc", "/v1/jobs/0", "/v1/jobs/-1", "/v1/jobs/007",
                         "/v1/jobs/99999999999999999999999", "/v1/jobs/18446744073709551616"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        code = dt_call(&D, "GET", bad[i], NULL, &j);
        if (code != 400)
            fail_msg("%s: %d", bad[i], code);
        DT_EXPECT_ERROR(code, j, "bad job id");
    }
    /* endpoints and methods */
    code = dt_call(&D, "GET", "/v2/jobs", NULL, &j);
    assert_int_equal(code, 404);
    DT_EXPECT_ERROR(code, j, "no such endpoint");
    code = dt_call(&D, "GET", "/v1/jobs", NULL, &j);
    assert_int_equal(code, 405);
    DT_EXPECT_ERROR(code, j, "not allowed");
    code = dt_call(&D, "DELETE", "/v1/jobs/1", NULL, &j);
    assert_int_equal(code, 405);
    DT_EXPECT_ERROR(code, j, "not allowed");
    code = dt_call(&D, "POST", "/metrics", NULL, &j);
    assert_int_equal(code, 405);
    json_decref(j);
    /* await timeout values */
    long long id = submit_ok("{\"circuit\":\"test\",\"payload\":\"t\"}", 201);
    char path[96];
    const char *badt[] = {"abc", "-5", "1e3", "", "12x"};
    for (size_t i = 0; i < sizeof badt / sizeof badt[0]; i++) {
        snprintf(path, sizeof path, "/v1/jobs/%lld/await?timeout_ms=%s", id, badt[i]);
        code = dt_call(&D, "POST", path, NULL, &j);
        if (code != 400)
            fail_msg("timeout '%s': %d", badt[i], code);
        DT_EXPECT_ERROR(code, j, "timeout_ms");
    }
    j = await_job(id, 20000);
    json_decref(j);
}

static void test_params(void **state)
{
    (void)state;
    json_t *j;
    int code = dt_call(&D, "POST", "/v1/params/test-p/preload", NULL, &j);
    assert_int_equal(code, 200);
    assert_true(json_is_true(json_object_get(j, "resident")));
    json_decref(j);
    /* again: already resident is fine */
    assert_int_equal(dt_call(&D, "POST", "/v1/params/test-p/preload", NULL, NULL), 200);
    assert_int_equal(dt_call(&D, "GET", "/v1/status", NULL, &j), 200);
    assert_true(json_integer_value(json_object_get(json_object_get(j, "engine"), "params_resident")) >= 1);
    json_decref(j);
    code = dt_call(&D, "POST", "/v1/params/test-p/evict", NULL, &j);
    assert_int_equal(code, 200);
    assert_false(json_is_true(json_object_get(j, "resident")));
    json_decref(j);
    code = dt_call(&D, "POST", "/v1/params/test-p/evict", NULL, &j);
    assert_int_equal(code, 404);
    DT_EXPECT_ERROR(code, j, "test-p");
    code = dt_call(&D, "POST", "/v1/params/nope/preload", NULL, &j);
    assert_int_equal(code, 404);
    DT_EXPECT_ERROR(code, j, "nope");
    code = dt_call(&D, "POST", "/v1/params/test-noparams/preload", NULL, &j);
    assert_true(code >= 400);
    DT_EXPECT_ERROR(code, j, "test-noparams");
    /* names are file-name components inside param_dir, never paths */
    const char *bad[] = {"/v1/params/../preload",       "/v1/params/..%2F..%2Fetc/preload",
                         "/v1/params/%2e%2e/preload",   "/v1/params/.hidden/evict",
                         "/v1/params/a..b/preload",     "/v1/params/a%20b/preload",
                         "/v1/params/a%2Fb/preload",    "/v1/params//preload",
                         "/v1/params/x%00y/preload",    "/v1/params/%c3%a9/preload"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        code = dt_call(&D, "POST", bad[i], NULL, &j);
        if (code != 400 && code != 404)
            fail_msg("%s: %d", bad[i], code);
        assert_non_null(j);
        assert_true(strlen(dt_str(j, "error")) > 0);
        json_decref(j);
    }
    code = dt_call(&D, "POST", "/v1/params/a..b/preload", NULL, &j);
    assert_int_equal(code, 400);
    DT_EXPECT_ERROR(code, j, "bad parameter name");
}

static void test_request_id(void **state)
{
    (void)state;
    const char *b1 = "{\"circuit\":\"test\",\"payload\":\"rid-payload prove_ms=200\",\"request_id\":\"req-42\"}";
    long long id = submit_ok(b1, 201);
    json_t *j;
    assert_int_equal(dt_call(&D, "POST", "/v1/jobs", b1, &j), 200);
    assert_int_equal(dt_int(j, "id"), id);
    assert_true(json_is_true(json_object_get(j, "existing")));
    json_decref(j);
    /* another payload under the live id is refused */
    int code = dt_call(&D, "POST", "/v1/jobs",
                       "{\"circuit\":\"test\",\"payload\":\"other\",\"request_id\":\"req-42\"}", &j);
    assert_int_equal(code, 409);
    DT_EXPECT_ERROR(code, j, "req-42");
    /* prove with the same id returns the same job's proof */
    assert_int_equal(dt_call(&D, "POST", "/v1/prove", b1, &j), 200);
    assert_int_equal(dt_int(j, "id"), id);
    assert_string_equal(dt_str(j, "state"), "done");
    const char *pl = "rid-payload prove_ms=200";
    dt_check_proof(j, pl, strlen(pl), 1);
    json_decref(j);
}

static void test_cancel_and_timeout(void **state)
{
    (void)state;
    long long id = submit_ok("{\"circuit\":\"test\",\"payload\":\"synth_ms=3000 prove_ms=3000\",\"partitions\":2}", 201);
    double t0 = dt_now_ms();
    json_t *j = await_job(id, 50);
    assert_true(json_is_true(json_object_get(j, "timed_out")));
    const char *s = dt_str(j, "state");
    assert_true(!strcmp(s, "queued") || !strcmp(s, "running"));
    assert_null(json_object_get(j, "proof_b64"));
    json_decref(j);
    assert_true(dt_now_ms() - t0 < 2500 * DT_SLOW);
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%lld/cancel", id);
    assert_int_equal(dt_call(&D, "POST", path, NULL, &j), 200);
    assert_string_equal(dt_str(j, "state"), "cancelled");
    json_decref(j);
    j = await_job(id, 1000);
    assert_string_equal(dt_str(j, "state"), "cancelled");
    json_decref(j);
    int code = dt_call(&D, "POST", path, NULL, &j);
    assert_int_equal(code, 409);
    assert_string_equal(dt_str(j, "state"), "cancelled");
    DT_EXPECT_ERROR(code, j, "already ended");
    /* prove that times out answers 202 with the job id */
    assert_int_equal(dt_call(&D, "POST", "/v1/prove?timeout_ms=30",
                             "{\"circuit\":\"test\",\"payload\":\"prove_ms=3000 synth_ms=3000\"}", &j), 202);
    assert_true(json_is_true(json_object_get(j, "timed_out")));
    id = dt_int(j, "id");
    json_decref(j);
    snprintf(path, sizeof path, "/v1/jobs/%lld/cancel", id);
    assert_int_equal(dt_call(&D, "POST", path, NULL, NULL), 200);
}

static void test_status_metrics_trace(void **state)
{
    (void)state;
    json_t *j;
    assert_int_equal(dt_call(&D, "GET", "/v1/status", NULL, &j), 200);
    json_t *e = json_object_get(j, "engine");
    assert_non_null(e);
    assert_true(dt_int(e, "jobs_submitted") >= 1);
    assert_int_equal(dt_int(e, "budget_total"), 1ll << 30);
    assert_string_equal(dt_str(json_object_get(j, "daemon"), "backend"), "test");
    assert_string_equal(dt_str(json_object_get(j, "daemon"), "address"), D.addr);
    json_decref(j);
    cz_http_response r;
    cz_errbuf err;
    assert_int_equal(cz_http_call(D.addr, NULL, "GET", "/metrics", NULL, 0, 30000, &r, &err), CZ_OK);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body, "cuzk_jobs_submitted_total"));
    assert_non_null(strstr(r.body, "cuzkd_http_requests_total"));
    assert_non_null(strstr(r.body, "cuzkd_http_responses_total{class=\"4xx\"}"));
    cz_http_response_free(&r);
    assert_int_equal(cz_http_call(D.addr, NULL, "GET", "/v1/trace", NULL, 0, 30000, &r, &err), CZ_OK);
    assert_int_equal(r.status, 200);
    json_t *t = json_loadb(r.body, r.len, 0, NULL);
    assert_non_null(t);
    json_decref(t);
    cz_http_response_free(&r);
}

static void test_malformed_http(void **state)
{
    (void)state;
    const char *raws[] = {
        "HELLO\r\n\r\n",
        "GET\r\n\r\n",
        "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\nConnection: close\r\n\r\n",
        "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\nConnection: close\r\n\r\n",
        "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n",
        "GET /v1/status HTTP/1.1\r\nConnection: close\r\n\r\n",
        "\x01\x02\x03\xff\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof raws / sizeof raws[0]; i++) {
        cz_http_response r;
        cz_errbuf err;
        cz_status st = cz_http_raw(D.addr, raws[i], strlen(raws[i]), 5000, &r, &err);
        if (st == CZ_OK) {
            assert_true(r.status >= 200 && r.status < 600);
            cz_http_response_free(&r);
        }
    }
    /* a huge header line */
    size_t n = 200000;
    char *h = malloc(n + 200);
    int off = sprintf(h, "GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(h + off, 'a', n);
    strcpy(h + off + n, "\r\nConnection: close\r\n\r\n");
    cz_http_response r;
    cz_errbuf err;
    if (cz_http_raw(D.addr, h, strlen(h), 5000, &r, &err) == CZ_OK) {
        assert_true(r.status >= 400);
        cz_http_response_free(&r);
    }
    free(h);
    /* still alive and well */
    assert_int_equal(dt_call(&D, "GET", "/v1/health", NULL, NULL), 200);
}


/* Waits (bounded) for a line of the daemon's log containing every one of
 * the needles; returns it (malloc'd) or NULL. The job-end line is written
 * by the engine's notification, which may come just after await returns. */
static char *log_line_with(const char *const *needles, size_t n)
{
    double t0 = dt_now_ms();
    do {
        char *log = dt_read_file(D.log);
        for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
            size_t k = 0;
            while (k < n && strstr(line, needles[k]))
                k++;
            if (k == n) {
                char *r = strdup(line);
                free(log);
                return r;
            }
        }
        free(log);
        dt_sleep_ms(20);
    } while (dt_now_ms() - t0 < 10000 * DT_SLOW);
    return NULL;
}

static void test_job_end_log(void **state)
{
    (void)state;
    /* done: info priority, no timestamp (stderr is a file, not a tty), the
     * circuit, the partition count and every stage timing */
    long long id = submit_ok("{\"circuit\":\"test-log\",\"payload\":\"log-done synth_ms=30\",\"partitions\":2}", 201);
    json_decref(await_job(id, 20000));
    char job[48];
    snprintf(job, sizeof job, "<6>job=%lld event=end ", id);
    const char *want_done[] = {job, " state=done", " circuit=test-log", " partitions=2/2", " priority=normal",
                               " queue_ms=", " load_ms=", " synth_ms=", " prove_ms=", " finish_ms=", " total_ms="};
    char *line = log_line_with(want_done, sizeof want_done / sizeof want_done[0]);
    if (!line) {
        char *log = dt_read_file(D.log);
        fail_msg("no job-end line for job %lld in the log:\n%s", id, log);
    }
    assert_true(strncmp(line, "<6>job=", 7) == 0); /* the line starts with the priority, no timestamp */
    /* synth_ms=30 per partition, two partitions: the sum is at least 60 */
    double synth = atof(strstr(line, " synth_ms=") + 10);
    if (synth < 59.0)
        fail_msg("synth_ms %.1f < 60 in '%s'", synth, line);
    free(line);
    /* failed: warning priority, the cause quoted as one value */
    id = submit_ok("{\"circuit\":\"test-log\",\"payload\":\"fail=prove:1\",\"partitions\":2}", 201);
    json_decref(await_job(id, 20000));
    snprintf(job, sizeof job, "<4>job=%lld event=end ", id);
    const char *want_failed[] = {job, " state=failed", " circuit=test-log", " failed_partition=1", " error=\"partition 1/2"};
    line = log_line_with(want_failed, sizeof want_failed / sizeof want_failed[0]);
    if (!line) {
        char *log = dt_read_file(D.log);
        fail_msg("no failed-job line for job %lld in the log:\n%s", id, log);
    }
    free(line);
    /* cancelled: info, with the status */
    id = submit_ok("{\"circuit\":\"test-log\",\"payload\":\"synth_ms=5000\"}", 201);
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%lld/cancel", id);
    assert_int_equal(dt_call(&D, "POST", path, NULL, NULL), 200);
    snprintf(job, sizeof job, "<6>job=%lld event=end ", id);
    const char *want_cancelled[] = {job, " state=cancelled", " status=cancelled"};
    line = log_line_with(want_cancelled, sizeof want_cancelled / sizeof want_cancelled[0]);
    assert_non_null(line);
    free(line);
    /* the submission is logged in the same form */
    snprintf(job, sizeof job, "<6>job=%lld event=accepted ", id);
    const char *want_accept[] = {job, " circuit=test-log", " partitions=1"};
    line = log_line_with(want_accept, 3);
    assert_non_null(line);
    free(line);
}

static void test_unknown_query_parameter(void **state)
{
    (void)state;
    long long id = submit_ok("{\"circuit\":\"test\",\"payload\":\"q\"}", 201);
    char path[128];
    json_t *j;
    /* ?timeout=5 used to mean the 60 s default silently */
    snprintf(path, sizeof path, "/v1/jobs/%lld/await?timeout=5", id);
    int code = dt_call(&D, "POST", path, NULL, &j);
    assert_int_equal(code, 400);
    DT_EXPECT_ERROR(code, j, "unknown query parameter 'timeout' (this endpoint accepts: timeout_ms)");
    snprintf(path, sizeof path, "/v1/jobs/%lld/await?timeout_ms=10&timeout_ms=20", id);
    code = dt_call(&D, "POST", path, NULL, &j);
    assert_int_equal(code, 400);
    DT_EXPECT_ERROR(code, j, "'timeout_ms' given more than once");
    code = dt_call(&D, "GET", "/v1/status?verbose=1", NULL, &j);
    assert_int_equal(code, 400);
    DT_EXPECT_ERROR(code, j, "unknown query parameter 'verbose' (this endpoint accepts no query parameters)");
    code = dt_call(&D, "GET", "/v1/timeline?since=0", NULL, &j);
    assert_int_equal(code, 400);
    DT_EXPECT_ERROR(code, j, "accepts: since_ms, limit");
    code = dt_call(&D, "GET", "/v1/timeline?since_ms=soon", NULL, &j);
    assert_int_equal(code, 400);
    DT_EXPECT_ERROR(code, j, "since_ms must be a decimal number of milliseconds, got 'soon'");
    /* a refused /v1/prove creates no job */
    assert_int_equal(dt_call(&D, "GET", "/v1/status", NULL, &j), 200);
    long long before = dt_int(json_object_get(j, "engine"), "jobs_submitted");
    json_decref(j);
    code = dt_call(&D, "POST", "/v1/prove?timeout=1", "{\"circuit\":\"test\",\"payload\":\"never\"}", &j);
    assert_int_equal(code, 400);
    DT_EXPECT_ERROR(code, j, "'timeout'");
    assert_int_equal(dt_call(&D, "GET", "/v1/status", NULL, &j), 200);
    assert_int_equal(dt_int(json_object_get(j, "engine"), "jobs_submitted"), before);
    json_decref(j);
    /* the accepted name still works */
    snprintf(path, sizeof path, "/v1/jobs/%lld/await?timeout_ms=20000", id);
    assert_int_equal(dt_call(&D, "POST", path, NULL, &j), 200);
    assert_string_equal(dt_str(j, "state"), "done");
    json_decref(j);
}

static void test_priority_note(void **state)
{
    (void)state;
    const char *low = "{\"circuit\":\"test\",\"payload\":\"prio-note prove_ms=300\",\"request_id\":\"prio-1\","
                      "\"priority\":\"low\"}";
    long long id = submit_ok(low, 201);
    json_t *j;
    /* same request, same priority: no note */
    assert_int_equal(dt_call(&D, "POST", "/v1/jobs", low, &j), 200);
    assert_true(json_is_true(json_object_get(j, "existing")));
    assert_null(json_object_get(j, "note"));
    json_decref(j);
    /* same request, another priority: the job keeps low, and says so */
    const char *high = "{\"circuit\":\"test\",\"payload\":\"prio-note prove_ms=300\",\"request_id\":\"prio-1\","
                       "\"priority\":\"high\"}";
    assert_int_equal(dt_call(&D, "POST", "/v1/jobs", high, &j), 200);
    assert_int_equal(dt_int(j, "id"), id);
    assert_string_equal(dt_str(j, "priority"), "low");
    char want[128];
    snprintf(want, sizeof want, "request_id 'prio-1' matches job %lld; priority unchanged (low", id);
    if (!strstr(dt_str(j, "note"), want))
        fail_msg("note '%s' lacks '%s'", dt_str(j, "note"), want);
    json_decref(j);
    /* /v1/prove answers with the same note */
    assert_int_equal(dt_call(&D, "POST", "/v1/prove", high, &j), 200);
    assert_int_equal(dt_int(j, "id"), id);
    assert_non_null(strstr(dt_str(j, "note"), "priority unchanged (low"));
    json_decref(j);
}

/* Without a priority, a job gets its circuit's deadline priority:
 * WinningPoSt critical, WindowPoSt high, the rest normal; an explicit one
 * wins. */
static void test_default_priority(void **state)
{
    (void)state;
    static const struct {
        const char *body, *want;
    } cases[] = {
        {"{\"circuit\":\"winning-2k\",\"payload\":\"dp-1\"}", "critical"},
        {"{\"circuit\":\"wpost-32g\",\"payload\":\"dp-2\"}", "high"},
        {"{\"circuit\":\"snap-32g\",\"payload\":\"dp-3\",\"partitions\":16}", "normal"},
        {"{\"circuit\":\"porep-2k\",\"payload\":\"dp-4\"}", "normal"},
        {"{\"circuit\":\"winning-2k\",\"payload\":\"dp-5\",\"priority\":\"low\"}", "low"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *j;
        assert_int_equal(dt_call(&D, "POST", "/v1/jobs", cases[i].body, &j), 201);
        if (strcmp(dt_str(j, "priority"), cases[i].want))
            fail_msg("%s: priority %s, want %s", cases[i].body, dt_str(j, "priority"), cases[i].want);
        json_decref(j);
    }
}

static void test_status_version_and_page(void **state)
{
    (void)state;
    json_t *j;
    assert_int_equal(dt_call(&D, "GET", "/v1/status", NULL, &j), 200);
    json_t *dm = json_object_get(j, "daemon");
    assert_string_equal(dt_str(dm, "version"), CUZK_TEST_VERSION);
    /* one time unit: milliseconds, names ending in _ms */
    assert_true(json_is_integer(json_object_get(dm, "uptime_ms")));
    assert_null(json_object_get(dm, "uptime_s"));
    assert_false(json_is_true(json_object_get(dm, "token_required")));
    assert_true(json_is_array(json_object_get(j, "circuits")));
    json_t *params = json_object_get(j, "params");
    assert_true(json_is_array(params));
    json_decref(j);
    /* the status page: self-contained HTML */
    cz_http_response r;
    cz_errbuf err;
    assert_int_equal(cz_http_call(D.addr, NULL, "GET", "/", NULL, 0, 30000, &r, &err), CZ_OK);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body, "<title>cuzkd status</title>"));
    assert_non_null(strstr(r.body, "/v1/timeline"));
    assert_null(strstr(r.body, "src=\"http")); /* no external resources */
    assert_null(strstr(r.body, "href=\"http"));
    cz_http_response_free(&r);
    assert_int_equal(cz_http_call(D.addr, NULL, "POST", "/", NULL, 0, 30000, &r, &err), CZ_OK);
    assert_int_equal(r.status, 405);
    cz_http_response_free(&r);
}

/* The await/prove answer (cz_api_await_answer): a DONE job whose proof
 * could not be copied is a 500 naming how to fetch it again, never a 200
 * "done" without a proof. cz_engine_await has no fault hook for its copy,
 * so the decision is tested here, where it lives. */
static void test_await_answer(void **state)
{
    (void)state;
    char err[512];
    cz_job_result r;
    memset(&r, 0, sizeof r);
    r.id = 17;
    r.state = CZ_JOB_DONE;
    r.failed_partition = -1;
    uint8_t proof[4] = {1, 2, 3, 4};
    for (int prove = 0; prove < 2; prove++) {
        err[0] = 0;
        assert_int_equal(cz_api_await_answer(CZ_ERR_NOMEM, 17, &r, prove, err, sizeof err), 500);
        assert_string_equal(err, "job 17 is done but its proof could not be copied for this answer (out of memory); "
                                 "the result is kept: fetch it with POST /v1/jobs/17/await");
        /* "done" claimed without a proof is refused the same way */
        assert_int_equal(cz_api_await_answer(CZ_OK, 17, &r, prove, err, sizeof err), 500);
        r.proof = proof;
        r.proof_len = sizeof proof;
        assert_int_equal(cz_api_await_answer(CZ_OK, 17, &r, prove, err, sizeof err), 200);
        r.proof = NULL;
        r.proof_len = 0;
    }
    r.state = CZ_JOB_RUNNING;
    assert_int_equal(cz_api_await_answer(CZ_ERR_TIMEOUT, 17, &r, true, err, sizeof err), 202);
    assert_int_equal(cz_api_await_answer(CZ_ERR_TIMEOUT, 17, &r, false, err, sizeof err), 200);
    r.state = CZ_JOB_FAILED;
    assert_int_equal(cz_api_await_answer(CZ_OK, 17, &r, false, err, sizeof err), 200);
    assert_int_equal(cz_api_await_answer(CZ_ERR_NOT_FOUND, 17, NULL, false, err, sizeof err), 404);
    assert_non_null(strstr(err, "unknown job 17"));
    assert_int_equal(cz_api_await_answer(CZ_ERR_NOT_FOUND, 17, NULL, true, err, sizeof err), 404);
    assert_non_null(strstr(err, "job 17 was pruned"));
}

/* The default socket is never in a world-writable directory, and the
 * client resolves it with the same function. */
static void test_default_listen(void **state)
{
    (void)state;
    char b[CZ_DAEMON_PATH_MAX];
    cz_daemon_default_listen(b, sizeof b, "/run/user/1000", false);
    assert_string_equal(b, "unix:/run/user/1000/cuzkd.sock");
    cz_daemon_default_listen(b, sizeof b, "/run/user/0", true);
    assert_string_equal(b, "unix:/run/user/0/cuzkd.sock");
    cz_daemon_default_listen(b, sizeof b, NULL, true);
    assert_string_equal(b, "unix:/run/cuzkd/cuzkd.sock");
    cz_daemon_default_listen(b, sizeof b, "", true);
    assert_string_equal(b, "unix:/run/cuzkd/cuzkd.sock");
    cz_daemon_default_listen(b, sizeof b, NULL, false);
    assert_string_equal(b, ""); /* no default: the daemon says what to set */
    /* the configuration default follows the environment */
    char *old = getenv("XDG_RUNTIME_DIR") ? strdup(getenv("XDG_RUNTIME_DIR")) : NULL;
    setenv("XDG_RUNTIME_DIR", "/run/user/4242", 1);
    cz_daemon_config *c = malloc(sizeof *c);
    assert_non_null(c);
    cz_daemon_config_default(c);
    assert_string_equal(c->listen, "unix:/run/user/4242/cuzkd.sock");
    unsetenv("XDG_RUNTIME_DIR");
    cz_daemon_config_default(c);
    assert_string_equal(c->listen, geteuid() == 0 ? "unix:/run/cuzkd/cuzkd.sock" : "");
    assert_null(strstr(c->listen, "/tmp"));
    free(c);
    if (old) {
        setenv("XDG_RUNTIME_DIR", old, 1);
        free(old);
    }
}

/* POST /v1/pause and /v1/resume: dispatch stops and restarts, jobs are
 * accepted either way, /v1/status shows the state; GET is a 405. */
static void test_pause_resume(void **state)
{
    (void)state;
    json_t *j;
    assert_int_equal(dt_call(&D, "POST", "/v1/pause", NULL, &j), 200);
    assert_true(json_is_true(json_object_get(j, "paused")));
    json_decref(j);
    assert_int_equal(dt_call(&D, "GET", "/v1/status", NULL, &j), 200);
    assert_true(json_is_true(json_object_get(json_object_get(j, "engine"), "paused")));
    json_decref(j);
    long long id = submit_ok("{\"circuit\":\"test\",\"payload\":\"paused\"}", 201);
    char path[96];
    snprintf(path, sizeof path, "/v1/jobs/%lld/await?timeout_ms=50", id);
    assert_int_equal(dt_call(&D, "POST", path, NULL, &j), 200);
    assert_string_equal(dt_str(j, "state"), "queued"); /* not started while paused */
    assert_true(json_is_true(json_object_get(j, "timed_out")));
    json_decref(j);
    assert_int_equal(dt_call(&D, "POST", "/v1/resume", NULL, &j), 200);
    assert_true(json_is_false(json_object_get(j, "paused")));
    json_decref(j);
    j = await_job(id, 20000);
    assert_string_equal(dt_str(j, "state"), "done");
    dt_check_proof(j, "paused", 6, 1);
    json_decref(j);
    assert_int_equal(dt_call(&D, "GET", "/v1/status", NULL, &j), 200);
    assert_true(json_is_false(json_object_get(json_object_get(j, "engine"), "paused")));
    json_decref(j);
    int code = dt_call(&D, "GET", "/v1/resume", NULL, &j);
    assert_int_equal(code, 405);
    DT_EXPECT_ERROR(code, j, "use POST");
}

/* Each error message carries its context once: the engine's text is not
 * prefixed again ("submit: ...", "circuit 'x': unknown circuit 'x'"). */
/* What each failure tells a client to do: a device fault, a full queue or
 * a shutdown is "try again (elsewhere)", never a bad request or a bug. */
static void test_status_codes(void **state)
{
    (void)state;
    assert_int_equal(cz_api_http_status(CZ_OK), 200);
    assert_int_equal(cz_api_http_status(CZ_ERR_INVALID_ARG), 400);
    assert_int_equal(cz_api_http_status(CZ_ERR_BUDGET), 422);
    assert_int_equal(cz_api_http_status(CZ_ERR_QUEUE_FULL), 503);
    assert_int_equal(cz_api_http_status(CZ_ERR_DEVICE), 503);
    assert_int_equal(cz_api_http_status(CZ_ERR_INTERNAL), 500);
    assert_int_equal(cz_grpc_status_of(CZ_ERR_DEVICE), CZ_GRPC_UNAVAILABLE);
    assert_int_equal(cz_grpc_status_of(CZ_ERR_CANCELLED), CZ_GRPC_UNAVAILABLE);
    assert_int_equal(cz_grpc_status_of(CZ_ERR_UNSATISFIED), CZ_GRPC_INVALID_ARGUMENT);
    assert_int_equal(cz_grpc_status_of(CZ_ERR_INTERNAL), CZ_GRPC_INTERNAL);
}

static void test_error_texts(void **state)
{
    (void)state;
    json_t *j;
    int code = dt_call(&D, "POST", "/v1/jobs", "{\"circuit\":\"nope\",\"payload\":\"x\"}", &j);
    assert_int_equal(code, 400);
    /* the back-end's own words (its list of circuits may change), once */
    const char *e = dt_str(j, "error");
    if (strncmp(e, "unknown circuit 'nope' (the test back-end knows ", 48) || strstr(e + 22, "nope"))
        fail_msg("error '%s' is not the back-end's message alone", e);
    json_decref(j);
    code = dt_call(&D, "POST", "/v1/jobs", "{\"circuit\":\"test-huge\",\"payload\":\"x\"}", &j);
    assert_int_equal(code, 422);
    assert_string_equal(dt_str(j, "error"),
                        "circuit 'test-huge' cannot fit the memory budget: one partition needs 1125899906842624 "
                        "bytes (a/b/c 562949953421312 + rest 562949953421312) plus 1048576 bytes of parameters = "
                        "1125899907891200 bytes, but the budget is 1073741824 bytes");
    json_decref(j);
}

static void test_timeline(void **state)
{
    (void)state;
    long long id = submit_ok("{\"circuit\":\"test\",\"payload\":\"timeline\",\"partitions\":3}", 201);
    json_decref(await_job(id, 20000));
    /* A partition's record is written when it leaves the pipeline, which
     * may come just after its job ended: poll (bounded) until all three
     * are there. */
    json_t *j = NULL, *recs = NULL;
    long long now = 0;
    for (int tries = 0;; tries++) {
        assert_int_equal(dt_call(&D, "GET", "/v1/timeline", NULL, &j), 200);
        now = dt_int(j, "now_ms");
        recs = json_object_get(j, "records");
        int n = 0;
        size_t k;
        json_t *y;
        json_array_foreach(recs, k, y) n += dt_int(y, "job") == id;
        if (n >= 3 || tries == 200)
            break;
        json_decref(j);
        dt_sleep_ms(10);
    }
    assert_true(now > 0);
    assert_true(json_array_size(recs) >= 3);
    int mine = 0;
    size_t i;
    json_t *x;
    json_array_foreach(recs, i, x)
    {
        if (dt_int(x, "job") != id)
            continue;
        mine++;
        assert_string_equal(dt_str(x, "status"), "ok");
        double s0 = json_number_value(json_object_get(x, "synth_start_ms"));
        double s1 = json_number_value(json_object_get(x, "synth_end_ms"));
        double p1 = json_number_value(json_object_get(x, "prove_end_ms"));
        double f1 = json_number_value(json_object_get(x, "finish_end_ms"));
        assert_true(s0 > 0 && s1 >= s0 && p1 >= s1 && f1 >= p1);
        assert_true(json_number_value(json_object_get(x, "end_ms")) == f1);
        assert_true(f1 <= (double)now + 1);
    }
    assert_int_equal(mine, 3);
    json_decref(j);
    /* since_ms in the future: nothing; limit keeps the newest */
    char path[96];
    snprintf(path, sizeof path, "/v1/timeline?since_ms=%lld", now + 100000);
    assert_int_equal(dt_call(&D, "GET", path, NULL, &j), 200);
    assert_int_equal(json_array_size(json_object_get(j, "records")), 0);
    assert_false(json_is_true(json_object_get(j, "truncated")));
    json_decref(j);
    assert_int_equal(dt_call(&D, "GET", "/v1/timeline?limit=1&since_ms=0", NULL, &j), 200);
    assert_int_equal(json_array_size(json_object_get(j, "records")), 1);
    assert_true(json_is_true(json_object_get(j, "truncated")));
    json_decref(j);
}

static void test_metrics_circuit_and_build_info(void **state)
{
    (void)state;
    long long id = submit_ok("{\"circuit\":\"test-metrics\",\"payload\":\"m1\"}", 201);
    json_decref(await_job(id, 20000));
    id = submit_ok("{\"circuit\":\"test-metrics\",\"payload\":\"fail=synth:0\"}", 201);
    json_decref(await_job(id, 20000));
    cz_http_response r;
    cz_errbuf err;
    assert_int_equal(cz_http_call(D.addr, NULL, "GET", "/metrics", NULL, 0, 30000, &r, &err), CZ_OK);
    assert_int_equal(r.status, 200);
    const char *want[] = {
        "cuzk_build_info{version=\"" CUZK_TEST_VERSION "\"} 1\n",
        "# TYPE cuzk_jobs_ended_total counter\n",
        "cuzk_jobs_ended_total{circuit=\"test-metrics\",state=\"done\"} 1\n",
        "cuzk_jobs_ended_total{circuit=\"test-metrics\",state=\"failed\"} 1\n",
        "cuzk_jobs_ended_total{circuit=\"test-metrics\",state=\"cancelled\"} 0\n",
        "cuzk_circuit_jobs_queued{circuit=\"test-metrics\"} 0\n",
        "# TYPE cuzk_job_duration_seconds histogram\n",
        "cuzk_job_duration_seconds_bucket{circuit=\"test-metrics\",le=\"+Inf\"} 2\n",
        "cuzk_job_duration_seconds_count{circuit=\"test-metrics\"} 2\n",
        /* the unlabelled totals stay */
        "cuzk_jobs_completed_total ",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(r.body, want[i]))
            fail_msg("/metrics lacks '%s'", want[i]);
    cz_http_response_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_await_answer),
        cmocka_unit_test(test_default_listen),
        cmocka_unit_test(test_socket_mode),
        cmocka_unit_test(test_pause_resume),
        cmocka_unit_test(test_error_texts),
        cmocka_unit_test(test_status_codes),
        cmocka_unit_test(test_submit_await),
        cmocka_unit_test(test_prove_payload_forms),
        cmocka_unit_test(test_failed_job),
        cmocka_unit_test(test_malformed_bodies),
        cmocka_unit_test(test_size_limits),
        cmocka_unit_test(test_unknown_job_and_bad_ids),
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_request_id),
        cmocka_unit_test(test_cancel_and_timeout),
        cmocka_unit_test(test_status_metrics_trace),
        cmocka_unit_test(test_malformed_http),
        cmocka_unit_test(test_job_end_log),
        cmocka_unit_test(test_unknown_query_parameter),
        cmocka_unit_test(test_priority_note),
        cmocka_unit_test(test_default_priority),
        cmocka_unit_test(test_status_version_and_page),
        cmocka_unit_test(test_timeline),
        cmocka_unit_test(test_metrics_circuit_and_build_info),
    };
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, setup, teardown);
}
