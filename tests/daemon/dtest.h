/*
 * Helpers for the cuzkd tests: start a real cuzkd process (CUZKD_PATH)
 * with a temporary config and a unix socket in a mktemp directory; the
 * child dies with the test (PR_SET_PDEATHSIG). Requests go through the
 * daemon's own client (src/daemon/client.c) or raw bytes.
 */
#ifndef CZ_DTEST_H
#define CZ_DTEST_H

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "daemon/api.h"
#include "daemon/client.h"

#ifdef CUZK_SANITIZED
#define DT_SLOW 4
#else
#define DT_SLOW 1
#endif

typedef struct {
    pid_t pid;
    char dir[128];
    char ini[192];
    char log[192];
    char sock[192];
    char addr[320];
} dt_daemon;

static inline void dt_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static inline double dt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Reads the whole log file (malloc'd). */
static inline char *dt_read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t r = fread(b, 1, (size_t)n, f);
    b[r] = 0;
    fclose(f);
    return b;
}

/* Forks + execs cuzkd with the base test config plus extra_ini (later
 * keys win) and extra args (NULL-terminated, may be NULL). Returns 0 when
 * the daemon printed "ready", else its exit code (the log stays in d->log). */
static inline int dt_spawn(dt_daemon *d, const char *extra_ini, const char *const *extra_args)
{
    memset(d, 0, sizeof *d);
    snprintf(d->dir, sizeof d->dir, "/tmp/cuzkd-test-XXXXXX");
    assert_non_null(mkdtemp(d->dir));
    snprintf(d->ini, sizeof d->ini, "%s/cuzkd.ini", d->dir);
    snprintf(d->log, sizeof d->log, "%s/cuzkd.log", d->dir);
    snprintf(d->sock, sizeof d->sock, "%s/cuzkd.sock", d->dir);
    FILE *f = fopen(d->ini, "w");
    assert_non_null(f);
    fprintf(f,
            "; base config of the daemon tests\n[daemon]\nlisten = unix:%s\nlog_level = debug\n"
            "default_await_ms = 20000\n"
            "[backend]\ntype = test\nparam_dir = %s\n"
            "[engine]\nmemory_budget = 1G\npartition_workers = 2\nworkers_per_device = 1\n"
            "result_retention_ms = 60000\n"
            "[test]\nsynth_ms = 2\nprove_ms = 2\nfinish_ms = 1\n%s\n",
            d->sock, d->dir, extra_ini ? extra_ini : "");
    fclose(f);
    pid_t parent = getpid();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        int fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        const char *argv[32];
        int n = 0;
        argv[n++] = CUZKD_PATH;
        argv[n++] = "--config";
        argv[n++] = d->ini;
        for (int i = 0; extra_args && extra_args[i] && n < 30; i++)
            argv[n++] = extra_args[i];
        argv[n] = NULL;
        execv(CUZKD_PATH, (char *const *)argv);
        _exit(126);
    }
    d->pid = pid;
    double t0 = dt_now_ms();
    while (dt_now_ms() - t0 < 20000) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            d->pid = 0;
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        char *log = dt_read_file(d->log);
        char *r = strstr(log, "ready: listening on ");
        if (r) {
            sscanf(r + 20, "%300s", d->addr);
            free(log);
            return 0;
        }
        free(log);
        dt_sleep_ms(10);
    }
    fail_msg("cuzkd did not become ready in 20 s (log %s)", d->log);
    return -1;
}

static inline void dt_start(dt_daemon *d, const char *extra_ini)
{
    int rc = dt_spawn(d, extra_ini, NULL);
    if (rc != 0) {
        char *log = dt_read_file(d->log);
        fprintf(stderr, "cuzkd failed to start (%d):\n%s\n", rc, log);
        free(log);
    }
    assert_int_equal(rc, 0);
}

/* Sends sig and waits (20 s) for the exit; returns the exit code (or
 * 128+signal). Prints the log when the exit was not clean. */
static inline int dt_stop_sig(dt_daemon *d, int sig)
{
    if (!d->pid)
        return -1;
    kill(d->pid, sig);
    double t0 = dt_now_ms();
    int status = 0, rc = -1;
    while (dt_now_ms() - t0 < 20000 * DT_SLOW) {
        if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
            rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            break;
        }
        dt_sleep_ms(5);
    }
    if (rc < 0) {
        kill(d->pid, SIGKILL);
        waitpid(d->pid, &status, 0);
    }
    d->pid = 0;
    if (rc != 0) {
        char *log = dt_read_file(d->log);
        fprintf(stderr, "cuzkd exit %d, log:\n%s\n", rc, log);
        free(log);
    }
    return rc;
}

static inline void dt_cleanup(dt_daemon *d)
{
    if (d->pid)
        dt_stop_sig(d, SIGKILL);
    char cmd[300];
    /* the directory is ours (mkdtemp); remove its few files */
    const char *names[] = {"cuzkd.ini", "cuzkd.log", "cuzkd.sock", "token", "timeline.log", "trace.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s/%s", d->dir, names[i]);
        unlink(cmd);
    }
    rmdir(d->dir);
}

/* One request, answered within timeout_ms; returns the HTTP status,
 * *json = parsed body (or NULL). */
static inline int dt_call_tok_ms(const dt_daemon *d, const char *token, const char *method, const char *path,
                                 const char *body, json_t **json, int timeout_ms)
{
    cz_http_response r;
    cz_errbuf err;
    cz_status st = cz_http_call(d->addr, token, method, path, body, body ? strlen(body) : 0, timeout_ms, &r, &err);
    if (st != CZ_OK)
        fail_msg("%s %s: %s", method, path, err.msg);
    if (json) {
        json_error_t je;
        *json = json_loadb(r.body, r.len, 0, &je);
        if (!*json)
            fprintf(stderr, "non-JSON body (%d): %s\n", r.status, r.body);
    }
    int code = r.status;
    cz_http_response_free(&r);
    return code;
}

static inline int dt_call_tok(const dt_daemon *d, const char *token, const char *method, const char *path,
                              const char *body, json_t **json)
{
    return dt_call_tok_ms(d, token, method, path, body, json, 30000 * DT_SLOW);
}

static inline int dt_call(const dt_daemon *d, const char *method, const char *path, const char *body,
                          json_t **json)
{
    return dt_call_tok(d, NULL, method, path, body, json);
}

/* The same for a request the daemon may hold for long (a synchronous
 * prove with ?timeout_ms=...): the client waits as long as it asked the
 * daemon to, not the usual 30 s, which a loaded machine can exceed. */
static inline int dt_call_long(const dt_daemon *d, const char *method, const char *path, const char *body,
                               json_t **json, int timeout_ms)
{
    return dt_call_tok_ms(d, NULL, method, path, body, json, timeout_ms * DT_SLOW);
}

/* The test back-end's proof formula (see cuzk/daemon.h), independently. */
static inline uint8_t dt_proof_byte(const void *payload, size_t len, uint32_t k, size_t i)
{
    const uint8_t *p = payload;
    uint32_t h = 2166136261u;
    for (size_t j = 0; j < len; j++)
        h = (h ^ p[j]) * 16777619u;
    return (uint8_t)(h + 7u * k + i);
}

static inline void dt_check_proof(json_t *job, const void *payload, size_t len, uint32_t parts)
{
    const char *b64 = json_string_value(json_object_get(job, "proof_b64"));
    assert_non_null(b64);
    uint8_t *proof;
    size_t plen;
    assert_int_equal(cz_base64_decode(b64, strlen(b64), &proof, &plen), CZ_OK);
    assert_int_equal(plen, 192 * parts);
    assert_int_equal(json_integer_value(json_object_get(job, "proof_len")), plen);
    for (uint32_t k = 0; k < parts; k++)
        for (size_t i = 0; i < 192; i++)
            assert_int_equal(proof[k * 192 + i], dt_proof_byte(payload, len, k, i));
    free(proof);
}

static inline const char *dt_str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static inline long long dt_int(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* Asserts an error response: status code and an error message containing want. */
#define DT_EXPECT_ERROR(code_, json_, want_)                                                    \
    do {                                                                                        \
        json_t *j__ = (json_);                                                                  \
        assert_non_null(j__);                                                                   \
        const char *e__ = dt_str(j__, "error");                                                 \
        if (!strstr(e__, (want_)))                                                              \
            fail_msg("error '%s' does not mention '%s' (status %d)", e__, (want_), (int)(code_)); \
        json_decref(j__);                                                                       \
    } while (0)

#endif
