/*
 * The parameter store never uses parameters that are not the ones on disk
 * (docs/parameters.md): a .cache left from an earlier setup is rebuilt
 * from the new .params, a truncated .params is refused naming its size, a
 * .params replaced without its .meta is refused, a .meta of another
 * circuit names both circuits; and cz_prover_setup never destroys an
 * existing set: refused without force (files byte-identical), atomic with
 * force (a setup killed mid-run leaves the old set loadable and no
 * temporary file; a killed setup's leftovers are swept by the next one),
 * and the output directory is checked first.
 *
 * Every check fails on the store before these rules: it used the stale
 * cache (proofs invalid for the new .params) and the truncated file's
 * cache, deleted the old set before the setup, and named only the
 * requested circuit's hash.
 */
#include "testutil.h"
#include "cuzk/prover.h"
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];
static const char *CID = "mulchain-64";

static int setup_dir(void **state)
{
    (void)state;
    return cz_test_dir_make(dir, sizeof dir, "cz_pstore_");
}

static int rm_dir(void **state)
{
    (void)state;
    return cz_test_dir_remove(dir);
}

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (system(cmd) != 0) fail_msg("command failed: %s", cmd);
}

/* A back-end on dir whose log goes to *log (a tmpfile, read by log_text). */
static void backend(cz_engine_backend *be, FILE **log, bool full)
{
    *log = tmpfile();
    assert_non_null(*log);
    cz_prover_config pc = {.param_dir = dir, .threads = 2, .auto_setup = false, .log = *log,
                           .params_validate_full = full};
    cz_errbuf e = {{0}};
    if (cz_prover_backend_create(be, &pc, &e) != CZ_OK) fail_msg("backend: %s", e.msg);
}

/* Everything logged so far (static buffer), echoed to stderr. */
static const char *log_text(FILE *log)
{
    static char buf[16384];
    fflush(log);
    long end = ftell(log);
    rewind(log);
    size_t n = fread(buf, 1, sizeof buf - 1, log);
    buf[n] = 0;
    fseek(log, end, SEEK_SET);
    fprintf(stderr, "--- log ---\n%s-----------\n", buf);
    return buf;
}

static void done(cz_engine_backend *be, FILE *log)
{
    cz_prover_backend_destroy(be);
    fclose(log);
}

static void setup_at(const char *base, const char *cid, bool force)
{
    cz_engine_backend be;
    FILE *log;
    backend(&be, &log, false);
    cz_errbuf e = {{0}};
    cz_status st = cz_prover_setup(&be, cid, base, NULL, force, &e);
    if (st != CZ_OK) fail_msg("setup %s at %s: %s", cid, base, e.msg);
    done(&be, log);
}

static uint8_t *slurp(const char *base, const char *ext, size_t *n)
{
    char p[256];
    snprintf(p, sizeof p, "%s.%s", base, ext);
    return cz_read_file(p, n);
}

static bool same_file(const char *base, const char *ext, const uint8_t *want, size_t wn)
{
    size_t n;
    uint8_t *got = slurp(base, ext, &n);
    bool same = n == wn && !memcmp(got, want, n);
    free(got);
    return same;
}

static uint64_t file_size(const char *base, const char *ext)
{
    char p[256];
    struct stat sb;
    snprintf(p, sizeof p, "%s.%s", base, ext);
    assert_int_equal(stat(p, &sb), 0);
    return (uint64_t)sb.st_size;
}

/* Proves one partition of CID at `at` and verifies it with a fresh
 * back-end against the parameters at `against` (status of the verify). */
static cz_status prove_and_verify(const char *at, const char *against)
{
    static const char payload[] = "{\"x0\": \"7\"}";
    uint8_t proof[CZ_GROTH16_PROOF_BYTES];
    cz_engine_backend be;
    FILE *log;
    cz_errbuf e = {{0}};
    backend(&be, &log, false);
    cz_status st = cz_prover_prove(&be, CID, at, (const uint8_t *)payload, strlen(payload), 1, false, proof, NULL, &e);
    if (st != CZ_OK) fail_msg("prove at %s: %s", at, e.msg);
    log_text(log);
    done(&be, log);
    backend(&be, &log, false);
    st = cz_prover_verify(&be, CID, against, (const uint8_t *)payload, strlen(payload), 1, proof, sizeof proof, &e);
    done(&be, log);
    return st;
}

/* A new setup's .params and .meta copied over an old set whose .cache
 * stays: the cache is not used (its source differs) but rebuilt, and the
 * proof verifies against the new parameters. */
static void stale_cache_rebuilt(void **state)
{
    (void)state;
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/stale", dir);
    snprintf(b, sizeof b, "%s/fresh", dir);
    setup_at(a, CID, false);
    setup_at(b, CID, false);
    size_t n_old;
    uint8_t *old_cache = slurp(a, "cache", &n_old);
    sh("cp '%s.params' '%s.params' && cp '%s.meta' '%s.meta'", b, a, b, a);

    cz_engine_backend be;
    FILE *log;
    cz_errbuf e = {{0}};
    backend(&be, &log, false);
    assert_int_equal(cz_prover_ensure_params(&be, CID, a, &e), CZ_OK);
    const char *t = log_text(log);
    assert_non_null(strstr(t, "cache not usable"));
    assert_non_null(strstr(t, "made from another"));
    done(&be, log);
    /* rebuilt: a new cache, used from now on without a word */
    assert_false(same_file(a, "cache", old_cache, n_old));
    free(old_cache);
    backend(&be, &log, false);
    assert_int_equal(cz_prover_ensure_params(&be, CID, a, &e), CZ_OK);
    assert_null(strstr(log_text(log), "cache not usable"));
    done(&be, log);
    /* the proof made at a is valid for b's parameters (one of a's old
     * parameters would not be: the check can fail) */
    assert_int_equal(prove_and_verify(a, b), CZ_OK);
    char c[128];
    snprintf(c, sizeof c, "%s/third", dir);
    setup_at(c, CID, false);
    assert_int_equal(prove_and_verify(a, c), CZ_ERR_UNSATISFIED);
}

/* A .params cut to half its size: refused, naming the file, its size and
 * the size expected; the (still intact) cache is not used instead. */
static void truncated_params_refused(void **state)
{
    (void)state;
    char a[128], p[160];
    snprintf(a, sizeof a, "%s/trunc", dir);
    setup_at(a, CID, false);
    uint64_t full = file_size(a, "params");
    snprintf(p, sizeof p, "%s.params", a);
    assert_int_equal(truncate(p, (off_t)(full / 2)), 0);
    cz_engine_backend be;
    FILE *log;
    cz_errbuf e = {{0}};
    backend(&be, &log, false);
    assert_int_equal(cz_prover_ensure_params(&be, CID, a, &e), CZ_ERR_TRUNCATED);
    fprintf(stderr, "truncated: %s\n", e.msg);
    char num[32];
    assert_non_null(strstr(e.msg, p));
    snprintf(num, sizeof num, "%llu bytes", (unsigned long long)(full / 2));
    assert_non_null(strstr(e.msg, num));
    snprintf(num, sizeof num, "%llu", (unsigned long long)full);
    assert_non_null(strstr(e.msg, num));
    done(&be, log);
}

/* Another setup's .params put in place without its .meta: refused (the
 * .meta records the size and digest of the file it belongs to). */
static void params_without_meta_refused(void **state)
{
    (void)state;
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/nometa", dir);
    snprintf(b, sizeof b, "%s/nometa-other", dir);
    setup_at(a, CID, false);
    setup_at(b, CID, false);
    sh("cp '%s.params' '%s.params'", b, a);
    cz_engine_backend be;
    FILE *log;
    cz_errbuf e = {{0}};
    backend(&be, &log, false);
    assert_int_equal(cz_prover_ensure_params(&be, CID, a, &e), CZ_ERR_MISMATCH);
    fprintf(stderr, "replaced without its meta: %s\n", e.msg);
    assert_non_null(strstr(e.msg, "does not match its .meta"));
    assert_non_null(strstr(e.msg, "nometa.params"));
    done(&be, log);
    /* a .meta of an older cuzk (no params_* lines) is completed, not refused */
    sh("cp '%s.meta' '%s.meta' && sed -i '/^params_/d' '%s.meta'", b, a, a);
    backend(&be, &log, false);
    assert_int_equal(cz_prover_ensure_params(&be, CID, a, &e), CZ_OK);
    done(&be, log);
    size_t n;
    uint8_t *m = slurp(a, "meta", &n);
    m[n - 1] = 0;
    assert_non_null(strstr((char *)m, "params_sample_sha256 "));
    free(m);
    /* a full check (params_validate_full) passes on a consistent set */
    backend(&be, &log, true);
    assert_int_equal(cz_prover_ensure_params(&be, CID, a, &e), CZ_OK);
    done(&be, log);
}

/* The .meta of another circuit: the message names the recorded circuit
 * with its hash and the requested one with its. */
static void meta_names_both_circuits(void **state)
{
    (void)state;
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/%s", dir, CID);
    snprintf(b, sizeof b, "%s/mulchain-65", dir);
    setup_at(a, CID, false);
    sh("cp '%s.params' '%s.params' && cp '%s.meta' '%s.meta'", a, b, a, b);
    size_t n;
    char *m = (char *)slurp(a, "meta", &n);
    m[n - 1] = 0;
    char *h = strstr(m, "circuit_hash ");
    assert_non_null(h);
    char recorded[13];
    memcpy(recorded, h + 13, 12);
    recorded[12] = 0;
    free(m);
    cz_engine_backend be;
    FILE *log;
    cz_errbuf e = {{0}};
    backend(&be, &log, false);
    assert_int_equal(cz_prover_ensure_params(&be, "mulchain-65", NULL, &e), CZ_ERR_MISMATCH);
    fprintf(stderr, "foreign meta: %s\n", e.msg);
    assert_non_null(strstr(e.msg, "mulchain-65.params"));
    const char *got = strstr(e.msg, "mulchain-64 (hash ");
    assert_non_null(got);
    assert_memory_equal(got + 18, recorded, 12);
    const char *want = strstr(e.msg, "not mulchain-65 (hash ");
    assert_non_null(want);
    /* the requested circuit's own hash, not the recorded one again */
    assert_memory_not_equal(want + 22, recorded, 12);
    done(&be, log);
}

/* Without force an existing set is refused before any work, and left
 * byte for byte; with force it is replaced by a working set. */
static void setup_without_force_refused(void **state)
{
    (void)state;
    char a[128];
    snprintf(a, sizeof a, "%s/keep", dir);
    setup_at(a, CID, false);
    const char *ext[] = {"params", "meta", "cache", "pce", "vk"};
    uint8_t *before[5];
    size_t n[5];
    for (int i = 0; i < 5; i++) before[i] = slurp(a, ext[i], &n[i]);
    cz_engine_backend be;
    FILE *log;
    cz_errbuf e = {{0}};
    backend(&be, &log, false);
    assert_int_equal(cz_prover_setup(&be, CID, a, NULL, false, &e), CZ_ERR_INVALID_ARG);
    fprintf(stderr, "no force: %s\n", e.msg);
    assert_non_null(strstr(e.msg, "keep.params"));
    assert_non_null(strstr(e.msg, "--force"));
    for (int i = 0; i < 5; i++) assert_true(same_file(a, ext[i], before[i], n[i]));
    /* the .vk is the .params prefix (bellperson's VerifyingKey::write) */
    assert_true(n[4] > 868 && n[4] < n[0] && !memcmp(before[4], before[0], n[4]));
    /* a temporary file of a killed setup (its process gone) and one of a
     * live process (this one): the next setup removes only the first */
    pid_t dead = fork();
    assert_true(dead >= 0);
    if (dead == 0) _exit(0);
    assert_int_equal(waitpid(dead, NULL, 0), dead);
    char stale[192], live[192];
    snprintf(stale, sizeof stale, "%s/.keep.params.%ld.0.tmp", dir, (long)dead);
    snprintf(live, sizeof live, "%s/.keep.params.%ld.99.tmp", dir, (long)getpid());
    sh("touch '%s' '%s'", stale, live);
    /* force: a new set, consistent (it loads and proves) */
    assert_int_equal(cz_prover_setup(&be, CID, a, NULL, true, &e), CZ_OK);
    done(&be, log);
    assert_int_not_equal(access(stale, F_OK), 0);
    assert_int_equal(access(live, F_OK), 0);
    unlink(live);
    assert_false(same_file(a, "params", before[0], n[0]));
    assert_false(same_file(a, "meta", before[1], n[1]));
    assert_false(same_file(a, "vk", before[4], n[4])); /* replaced with its .params */
    for (int i = 0; i < 5; i++) free(before[i]);
    assert_int_equal(prove_and_verify(a, a), CZ_OK);
}

/* -o into a missing directory: created when only it is missing, refused
 * at once (nothing created) when its parent is missing too. */
static void output_directory_checked(void **state)
{
    (void)state;
    char a[128], p[160], d[128];
    snprintf(a, sizeof a, "%s/newdir/%s", dir, CID);
    setup_at(a, CID, false);
    snprintf(p, sizeof p, "%s.params", a);
    assert_int_equal(access(p, R_OK), 0);

    snprintf(a, sizeof a, "%s/no/such/%s", dir, CID);
    cz_engine_backend be;
    FILE *log;
    cz_errbuf e = {{0}};
    backend(&be, &log, false);
    assert_int_equal(cz_prover_setup(&be, CID, a, NULL, false, &e), CZ_ERR_NOT_FOUND);
    fprintf(stderr, "missing dir: %s\n", e.msg);
    snprintf(d, sizeof d, "%s/no/such", dir);
    assert_non_null(strstr(e.msg, d));
    snprintf(d, sizeof d, "%s/no", dir);
    assert_int_not_equal(access(d, F_OK), 0);
    /* nothing was set up: the log has no setup line */
    assert_null(strstr(log_text(log), "setup"));
    done(&be, log);
}

/* A forced re-setup killed (SIGTERM) while it computes leaves the old set
 * byte-identical and loadable, and no other file in the directory. */
static void interrupted_setup_keeps_old(void **state)
{
    (void)state;
    const char *big = "mulchain-200000";
    char sub[96], a[160];
    snprintf(sub, sizeof sub, "%s/killed", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(a, sizeof a, "%s/%s", sub, big);
    setup_at(a, big, false);
    const char *ext[] = {"params", "meta", "cache", "pce", "vk"};
    uint8_t *before[5];
    size_t n[5];
    for (int i = 0; i < 5; i++) before[i] = slurp(a, ext[i], &n[i]);

    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        FILE *log = fdopen(fds[1], "w");
        cz_prover_config pc = {.param_dir = dir, .threads = 2, .log = log};
        cz_engine_backend be;
        cz_errbuf e = {{0}};
        if (cz_prover_backend_create(&be, &pc, &e) != CZ_OK) _exit(3);
        cz_status st = cz_prover_setup(&be, big, a, NULL, true, &e);
        _exit(st == CZ_OK ? 0 : 4);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char line[512];
    bool computing = false;
    /* "setup <id>: <stage> NN%": the setup is under way */
    while (!computing && fgets(line, sizeof line, in)) {
        fprintf(stderr, "child: %s", line);
        computing = !strncmp(line, "setup ", 6);
    }
    assert_true(computing);
    assert_int_equal(kill(pid, SIGTERM), 0);
    fclose(in);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    /* killed, not finished (a finished one would not test anything) */
    assert_true(WIFSIGNALED(ws));
    assert_int_equal(WTERMSIG(ws), SIGTERM);

    for (int i = 0; i < 5; i++) {
        assert_true(same_file(a, ext[i], before[i], n[i]));
        free(before[i]);
    }
    /* nothing else: no half-written file under any name */
    DIR *dh = opendir(sub);
    assert_non_null(dh);
    struct dirent *de;
    int files = 0;
    while ((de = readdir(dh))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        fprintf(stderr, "left: %s\n", de->d_name);
        bool known = false;
        for (int i = 0; i < 5; i++) {
            char want[64];
            snprintf(want, sizeof want, "%s.%s", big, ext[i]);
            known |= !strcmp(de->d_name, want);
        }
        assert_true(known);
        files++;
    }
    closedir(dh);
    assert_int_equal(files, 5);
    /* and the old set still loads straight from its cache */
    cz_engine_backend be;
    FILE *log;
    cz_errbuf e = {{0}};
    backend(&be, &log, false);
    if (cz_prover_ensure_params(&be, big, a, &e) != CZ_OK) fail_msg("old set after the kill: %s", e.msg);
    assert_null(strstr(log_text(log), "cache not usable"));
    done(&be, log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stale_cache_rebuilt),
        cmocka_unit_test(truncated_params_refused),
        cmocka_unit_test(params_without_meta_refused),
        cmocka_unit_test(meta_names_both_circuits),
        cmocka_unit_test(setup_without_force_refused),
        cmocka_unit_test(output_directory_checked),
        cmocka_unit_test(interrupted_setup_keeps_old),
    };
    return cmocka_run_group_tests(tests, setup_dir, rm_dir);
}
