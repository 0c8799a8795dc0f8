/*
 * `cuzk client` (src/cli/cmd_client.c, compiled into this test) against a
 * real cuzkd: submit, await with --proof-out, prove with a payload file,
 * status, cancel, params, pause/resume, and error exits (a connection
 * error names the address once).
 */
#include "dtest.h"

int cz_cmd_client(int argc, char **argv);

static dt_daemon D;
static char *last_err; /* the last run's stderr (malloc'd) */

/* Runs the client with stdout captured into out (malloc'd), stderr into
 * last_err. */
static int run_client(char **out, int n, ...)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "client";
    argv[argc++] = "--socket";
    argv[argc++] = D.addr;
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n && argc < 31; i++)
        argv[argc++] = va_arg(ap, char *);
    va_end(ap);
    argv[argc] = NULL;
    char path[256];
    snprintf(path, sizeof path, "%s/client.out", D.dir);
    char epath[256];
    snprintf(epath, sizeof epath, "%s/client.err", D.dir);
    fflush(stdout);
    fflush(stderr);
    int saved = dup(1), saved2 = dup(2);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 1);
    close(fd);
    fd = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    int rc = cz_cmd_client(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved, 1);
    dup2(saved2, 2);
    close(saved);
    close(saved2);
    if (out)
        *out = dt_read_file(path);
    free(last_err);
    last_err = dt_read_file(epath);
    fputs(last_err, stderr);
    unlink(path);
    unlink(epath);
    return rc;
}

static void test_client(void **state)
{
    (void)state;
    dt_start(&D, NULL);
    char *out;
    assert_int_equal(run_client(&out, 9, "submit", "--circuit", "test", "--payload", "cli-1", "--partitions", "2",
                                "--priority", "critical"),
                     0);
    json_t *j = json_loads(out, 0, NULL);
    free(out);
    assert_non_null(j);
    char id[32];
    snprintf(id, sizeof id, "%lld", dt_int(j, "id"));
    json_decref(j);
    char proof_path[256];
    snprintf(proof_path, sizeof proof_path, "%s/proof.bin", D.dir);
    assert_int_equal(run_client(&out, 4, "await", id, "--proof-out", proof_path), 0);
    free(out);
    char *proof = dt_read_file(proof_path);
    for (uint32_t k = 0; k < 2; k++)
        for (size_t i = 0; i < 192; i++)
            assert_int_equal((uint8_t)proof[k * 192 + i], dt_proof_byte("cli-1", 5, k, i));
    free(proof);
    unlink(proof_path);

    /* prove from a binary payload file */
    char pf[256];
    snprintf(pf, sizeof pf, "%s/payload.bin", D.dir);
    const uint8_t bin[] = {9, 0, 8, 0xfe};
    FILE *f = fopen(pf, "wb");
    fwrite(bin, 1, sizeof bin, f);
    fclose(f);
    assert_int_equal(run_client(&out, 7, "prove", "--circuit", "test-b", "--payload-file", pf, "--proof-out", proof_path), 0);
    free(out);
    proof = dt_read_file(proof_path);
    for (size_t i = 0; i < 192; i++)
        assert_int_equal((uint8_t)proof[i], dt_proof_byte(bin, sizeof bin, 0, i));
    free(proof);
    unlink(proof_path);
    unlink(pf);

    assert_int_equal(run_client(&out, 2, "status", id), 0);
    assert_non_null(strstr(out, "\"done\""));
    free(out);
    assert_int_equal(run_client(&out, 1, "status"), 0);
    assert_non_null(strstr(out, "\"engine\""));
    free(out);
    assert_int_equal(run_client(&out, 1, "metrics"), 0);
    assert_non_null(strstr(out, "cuzk_jobs_completed_total"));
    free(out);
    assert_int_equal(run_client(&out, 2, "preload", "test"), 0);
    free(out);
    assert_int_equal(run_client(&out, 2, "evict", "test"), 0);
    free(out);
    /* errors: exit 1 with the daemon's message on stderr */
    assert_int_equal(run_client(&out, 2, "cancel", id), 1);
    free(out);
    assert_int_equal(run_client(&out, 2, "status", "424242"), 1);
    free(out);
    assert_int_equal(run_client(&out, 2, "preload", "..x"), 1);
    free(out);
    assert_int_equal(run_client(&out, 5, "submit", "--circuit", "nope", "--payload", "x"), 1); /* unknown circuit: 400 */
    free(out);
    assert_int_equal(run_client(&out, 3, "submit", "--payload", "x"), 2); /* no --circuit: usage */
    free(out);
    assert_int_equal(run_client(&out, 1, "frobnicate"), 2);
    free(out);
    /* the daemon's message, once, after the command and the status */
    assert_int_equal(run_client(&out, 5, "submit", "--circuit", "nope", "--payload", "x"), 1);
    free(out);
    const char *want_err = "cuzk client submit: HTTP 400: unknown circuit 'nope' (the test back-end knows ";
    assert_true(strncmp(last_err, want_err, strlen(want_err)) == 0);
    assert_null(strstr(last_err + strlen(want_err), "nope")); /* named once */
    assert_non_null(strstr(last_err, ")\n"));
    /* pause / resume */
    assert_int_equal(run_client(&out, 1, "pause"), 0);
    assert_non_null(strstr(out, "\"paused\":true"));
    free(out);
    assert_int_equal(run_client(&out, 1, "status"), 0);
    assert_non_null(strstr(out, "\"paused\":true"));
    free(out);
    assert_int_equal(run_client(&out, 1, "resume"), 0);
    assert_non_null(strstr(out, "\"paused\":false"));
    free(out);
    assert_int_equal(dt_stop_sig(&D, SIGTERM), 0);
    /* daemon gone: cannot connect; the address is named once */
    assert_int_equal(run_client(&out, 1, "health"), 1);
    free(out);
    char want[400];
    snprintf(want, sizeof want, "cuzk client health: connect %s: ", D.addr);
    assert_true(strncmp(last_err, want, strlen(want)) == 0);
    assert_null(strstr(last_err + strlen(want), D.addr)); /* not repeated */
    dt_cleanup(&D);
    free(last_err);
    last_err = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_client)};
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
