/*
 * cuzkd lifecycle tests through real processes: listen-address and token
 * rules, SIGTERM drain / cancel with an await in flight, configuration
 * errors and overrides, restart semantics, concurrent awaits, slow
 * clients (header deadline, per-peer limit), submissions once shutdown has
 * begun.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include "dtest.h"

typedef struct {
    const dt_daemon *d;
    char path[128];
    const char *body;
    int code;
    json_t *json;
} call_arg;

static void *call_thread(void *p)
{
    call_arg *a = p;
    a->code = dt_call(a->d, "POST", a->path, a->body, &a->json);
    return NULL;
}

static void write_token(const dt_daemon *d, const char *tok)
{
    char path[256];
    snprintf(path, sizeof path, "%s/token", d->dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", tok);
    fclose(f);
    chmod(path, 0600);
}

/* Spawns with an ini that must make cuzkd refuse to start; checks the
 * exit code and that the log names the problem. */
static void expect_refused(const char *ini, const char *const *args, int want_rc, const char *want_log)
{
    dt_daemon d;
    int rc = dt_spawn(&d, ini, args);
    char *log = dt_read_file(d.log);
    if (rc != want_rc || !strstr(log, want_log))
        fail_msg("rc %d (want %d), log lacks '%s':\n%s", rc, want_rc, want_log, log);
    free(log);
    dt_cleanup(&d);
}

static void test_tcp_and_token(void **state)
{
    (void)state;
    /* non-loopback TCP without a token: refused at start */
    expect_refused("[daemon]\nlisten = 0.0.0.0:0\n", NULL, 1, "without a token");
    expect_refused("[daemon]\nlisten = tcp:[::]:0\n", NULL, 1, "without a token");
    /* unreadable / too short token file */
    expect_refused("[daemon]\nlisten = 0.0.0.0:0\ntoken_file = /nonexistent/token\n", NULL, 1, "token_file");

    /* loopback TCP needs no token */
    dt_daemon d;
    dt_start(&d, "[daemon]\nlisten = 127.0.0.1:0\n");
    assert_non_null(strstr(d.addr, "tcp:127.0.0.1:"));
    assert_int_equal(dt_call(&d, "GET", "/v1/health", NULL, NULL), 200);
    assert_int_equal(dt_stop_sig(&d, SIGTERM), 0);
    dt_cleanup(&d);

    /* any address with a token: requests need it */
    dt_daemon t;
    memset(&t, 0, sizeof t);
    /* the token file lives in the daemon's own temp dir, written before start */
    snprintf(t.dir, sizeof t.dir, "/tmp/cuzkd-tok-XXXXXX");
    assert_non_null(mkdtemp(t.dir));
    write_token(&t, "s3cret-token-0123456789");
    char ini[512];
    snprintf(ini, sizeof ini, "[daemon]\nlisten = 0.0.0.0:0\ntoken_file = %s/token\n", t.dir);
    dt_daemon s;
    dt_start(&s, ini);
    json_t *j;
    int code = dt_call_tok(&s, NULL, "GET", "/v1/status", NULL, &j);
    assert_int_equal(code, 401);
    DT_EXPECT_ERROR(code, j, "token");
    code = dt_call_tok(&s, "s3cret-token-012345678", "GET", "/v1/status", NULL, &j);
    assert_int_equal(code, 401);
    json_decref(j);
    code = dt_call_tok(&s, "s3cret-token-0123456789x", "GET", "/v1/status", NULL, &j);
    assert_int_equal(code, 401);
    json_decref(j);
    code = dt_call_tok(&s, "S3cret-token-0123456789", "POST", "/v1/jobs", "{\"circuit\":\"test\",\"payload\":\"x\"}", &j);
    assert_int_equal(code, 401);
    json_decref(j);
    assert_int_equal(dt_call_tok(&s, "s3cret-token-0123456789", "GET", "/v1/status", NULL, NULL), 200);
    /* the dispatch controls are token-protected like every mutating endpoint */
    code = dt_call_tok(&s, NULL, "POST", "/v1/pause", NULL, &j);
    assert_int_equal(code, 401);
    json_decref(j);
    code = dt_call_tok(&s, NULL, "POST", "/v1/resume", NULL, &j);
    assert_int_equal(code, 401);
    json_decref(j);
    assert_int_equal(dt_call_tok(&s, "s3cret-token-0123456789", "POST", "/v1/resume", NULL, NULL), 200);
    assert_int_equal(dt_call_tok(&s, "s3cret-token-0123456789", "POST", "/v1/prove",
                                 "{\"circuit\":\"test\",\"payload\":\"x\"}", &j), 200);
    dt_check_proof(j, "x", 1, 1);
    json_decref(j);
    /* the log never contains the token */
    char *log = dt_read_file(s.log);
    assert_null(strstr(log, "s3cret"));
    free(log);
    assert_int_equal(dt_stop_sig(&s, SIGTERM), 0);
    dt_cleanup(&s);
    dt_cleanup(&t);
}

static void shutdown_case(bool drain)
{
    dt_daemon d;
    dt_start(&d, drain ? "[engine]\ndrain_on_shutdown = true\n" : "[engine]\ndrain_on_shutdown = false\n");
    json_t *j;
    const char *pl = "prove_ms=400 synth_ms=100";
    char body[128];
    snprintf(body, sizeof body, "{\"circuit\":\"test\",\"payload\":\"%s\",\"partitions\":2}", pl);
    assert_int_equal(dt_call(&d, "POST", "/v1/jobs", body, &j), 201);
    long long id = dt_int(j, "id");
    json_decref(j);
    call_arg a = {.d = &d};
    snprintf(a.path, sizeof a.path, "/v1/jobs/%lld/await?timeout_ms=60000", id);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, call_thread, &a), 0);
    dt_sleep_ms(150);
    pid_t pid = d.pid;
    kill(pid, SIGTERM);
    pthread_join(th, NULL);
    assert_int_equal(a.code, 200);
    assert_non_null(a.json);
    if (drain) {
        assert_string_equal(dt_str(a.json, "state"), "done");
        dt_check_proof(a.json, pl, strlen(pl), 2);
    } else {
        assert_string_equal(dt_str(a.json, "state"), "cancelled");
    }
    json_decref(a.json);
    assert_int_equal(dt_stop_sig(&d, 0), 0); /* already signalled: just reap */
    /* stopped accepting: the socket is gone */
    struct stat sb;
    assert_int_not_equal(lstat(d.sock, &sb), 0);
    char *log = dt_read_file(d.log);
    assert_non_null(strstr(log, drain ? "draining" : "cancelling"));
    assert_non_null(strstr(log, "stopped cleanly"));
    free(log);
    dt_cleanup(&d);
}

/* SIGHUP is logged and ignored; SIGTERM cancels queued jobs and drains
 * the running one; a second SIGTERM cancels it at once; the socket goes. */
static void test_signals(void **state)
{
    (void)state;
    dt_daemon d;
    dt_start(&d, "[engine]\npartition_workers = 1\nworkers_per_device = 1\n");
    json_t *j;
    long long id[2];
    for (int k = 0; k < 2; k++) {
        assert_int_equal(dt_call(&d, "POST", "/v1/jobs", "{\"circuit\":\"test\",\"payload\":\"synth_ms=20000\"}", &j),
                         201);
        id[k] = dt_int(j, "id");
        json_decref(j);
    }
    call_arg a[2];
    pthread_t th[2];
    for (int k = 0; k < 2; k++) {
        memset(&a[k], 0, sizeof a[k]);
        a[k].d = &d;
        snprintf(a[k].path, sizeof a[k].path, "/v1/jobs/%lld/await?timeout_ms=60000", id[k]);
        assert_int_equal(pthread_create(&th[k], NULL, call_thread, &a[k]), 0);
    }
    /* job 0 is running (one synthesis worker), job 1 queued behind it */
    for (int i = 0; i < 2000; i++) {
        assert_int_equal(dt_call(&d, "GET", "/v1/status", NULL, &j), 200);
        long long running = dt_int(json_object_get(j, "engine"), "jobs_running");
        json_decref(j);
        if (running >= 1)
            break;
        dt_sleep_ms(5);
    }
    kill(d.pid, SIGHUP);
    dt_sleep_ms(100);
    assert_int_equal(dt_call(&d, "GET", "/v1/health", NULL, NULL), 200); /* still serving */
    kill(d.pid, SIGTERM);
    pthread_join(th[1], NULL);
    assert_int_equal(a[1].code, 200);
    assert_string_equal(dt_str(a[1].json, "state"), "cancelled");
    assert_non_null(strstr(dt_str(a[1].json, "error"), "cancelled by engine shutdown"));
    json_decref(a[1].json);
    struct stat sb;
    assert_int_not_equal(lstat(d.sock, &sb), 0); /* listener gone at once */
    assert_int_equal(dt_stop_sig(&d, SIGTERM), 0); /* the second: cancel now, then exit 0 */
    pthread_join(th[0], NULL);
    assert_int_equal(a[0].code, 200);
    assert_string_equal(dt_str(a[0].json, "state"), "cancelled");
    assert_non_null(strstr(dt_str(a[0].json, "error"), "second stop signal"));
    json_decref(a[0].json);
    char *log = dt_read_file(d.log);
    assert_non_null(strstr(log, "received SIGHUP: nothing to reload"));
    assert_non_null(strstr(log, "received SIGTERM again: cancelled 1 running jobs"));
    assert_non_null(strstr(log, "stopped cleanly"));
    free(log);
    dt_cleanup(&d);
}

static void test_sigterm_drain(void **state)
{
    (void)state;
    shutdown_case(true);
}

static void test_sigterm_cancel(void **state)
{
    (void)state;
    shutdown_case(false);
}

static void test_sigint_idle_and_restart(void **state)
{
    (void)state;
    dt_daemon d;
    dt_start(&d, NULL);
    json_t *j;
    assert_int_equal(dt_call(&d, "POST", "/v1/prove", "{\"circuit\":\"test\",\"payload\":\"p\"}", &j), 200);
    long long id = dt_int(j, "id");
    json_decref(j);
    /* a second daemon on the same live socket is refused */
    {
        char ini[400];
        snprintf(ini, sizeof ini, "[daemon]\nlisten = unix:%s\n", d.sock);
        expect_refused(ini, NULL, 1, "another daemon is listening");
    }
    assert_int_equal(dt_stop_sig(&d, SIGINT), 0);
    /* restart on the same socket: jobs live in memory, the old id is unknown */
    char ini[400];
    snprintf(ini, sizeof ini, "[daemon]\nlisten = unix:%s\n", d.sock);
    dt_daemon d2;
    dt_start(&d2, ini);
    char path[96];
    snprintf(path, sizeof path, "/v1/jobs/%lld/await?timeout_ms=10", id);
    int code = dt_call(&d2, "POST", path, NULL, &j);
    assert_int_equal(code, 404);
    DT_EXPECT_ERROR(code, j, "unknown job");
    assert_int_equal(dt_stop_sig(&d2, SIGTERM), 0);
    dt_cleanup(&d2);
    dt_cleanup(&d);
}

static void test_config_errors_and_overrides(void **state)
{
    (void)state;
    expect_refused("[engine]\nno_such_knob = 1\n", NULL, 2, "unknown config key 'no_such_knob'");
    expect_refused("[nosection]\nx = 1\n", NULL, 2, "unknown config section [nosection]");
    expect_refused("[engine]\npartition_workers = many\n", NULL, 2, "engine.partition_workers");
    expect_refused("[engine]\npartition_workers = 0\n", NULL, 2, "engine.partition_workers");
    expect_refused("[engine]\nself_verify = maybe\n", NULL, 2, "self_verify");
    expect_refused("[backend]\ntype = gpu\n", NULL, 2, "backend.type");
    expect_refused("[daemon]\nlog_level = loud\n", NULL, 2, "log_level");
    expect_refused("this is not ini\n", NULL, 2, "syntax error");
    expect_refused("[daemon]\nlisten = 10.0.0.1\n", NULL, 1, "daemon.listen");
    expect_refused("[daemon]\nlisten = example.com:80\n", NULL, 1, "numeric");
    const char *a1[] = {"--set", "engine.partition_workers", NULL};
    expect_refused(NULL, a1, 2, "section.key=value");
    const char *a2[] = {"--bogus", NULL};
    expect_refused(NULL, a2, 2, "unknown option '--bogus'");
    /* overrides win over the file and are printed resolved */
    const char *a3[] = {"--set", "engine.partition_workers=3", "--set", "engine.memory_budget=2G",
                        "--set", "daemon.max_await_ms=1234", "--print-config", NULL};
    dt_daemon d;
    assert_int_equal(dt_spawn(&d, NULL, a3), 0 + 0 * 1 /* exits 0 before ready */);
    char *log = dt_read_file(d.log);
    assert_non_null(strstr(log, "partition_workers = 3"));
    assert_non_null(strstr(log, "memory_budget = 2147483648"));
    assert_non_null(strstr(log, "max_await_ms = 1234"));
    assert_non_null(strstr(log, "type = test"));
    free(log);
    dt_cleanup(&d);
    /* the resolved configuration is printed at start, and --listen works */
    dt_daemon e;
    memset(&e, 0, sizeof e);
    char sock[200];
    snprintf(sock, sizeof sock, "/tmp/cuzkd-ovr-%d.sock", (int)getpid());
    char listen[220];
    snprintf(listen, sizeof listen, "unix:%s", sock);
    const char *a4[] = {"--listen", listen, "--set", "engine.finalizers=2", NULL};
    assert_int_equal(dt_spawn(&e, NULL, a4), 0);
    assert_string_equal(e.addr, listen);
    log = dt_read_file(e.log);
    assert_non_null(strstr(log, "finalizers = 2"));
    assert_non_null(strstr(log, "[engine]"));
    free(log);
    assert_int_equal(dt_call(&e, "GET", "/v1/health", NULL, NULL), 200);
    assert_int_equal(dt_stop_sig(&e, SIGTERM), 0);
    dt_cleanup(&e);
    unlink(sock);
}

/* No listen address and no safe default: refused, saying what to set. */
static void test_refuses_without_a_safe_socket(void **state)
{
    (void)state;
    expect_refused("[daemon]\nlisten =\n", NULL, 1, "daemon.listen is empty and there is no safe default socket");
}

static void test_concurrent_awaits(void **state)
{
    (void)state;
    dt_daemon d;
    dt_start(&d, "[engine]\npartition_workers = 2\n[test]\nprove_ms = 30\n");
    enum { N = 12 };
    call_arg a[N];
    pthread_t th[N];
    char bodies[N][128];
    for (int i = 0; i < N; i++) {
        memset(&a[i], 0, sizeof a[i]);
        a[i].d = &d;
        snprintf(a[i].path, sizeof a[i].path, "/v1/prove?timeout_ms=60000");
        snprintf(bodies[i], sizeof bodies[i], "{\"circuit\":\"test\",\"payload\":\"job %d\",\"priority\":\"%s\"}", i,
                 i % 3 ? "normal" : "critical");
        a[i].body = bodies[i];
        assert_int_equal(pthread_create(&th[i], NULL, call_thread, &a[i]), 0);
    }
    /* while provers are busy and awaits block, other requests still answer */
    for (int k = 0; k < 5; k++)
        assert_int_equal(dt_call(&d, "GET", "/v1/status", NULL, NULL), 200);
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(a[i].code, 200);
        char pl[32];
        snprintf(pl, sizeof pl, "job %d", i);
        dt_check_proof(a[i].json, pl, strlen(pl), 1);
        json_decref(a[i].json);
    }
    json_t *j;
    assert_int_equal(dt_call(&d, "GET", "/v1/status", NULL, &j), 200);
    assert_int_equal(dt_int(json_object_get(j, "engine"), "jobs_completed"), N);
    json_decref(j);
    assert_int_equal(dt_stop_sig(&d, SIGTERM), 0);
    dt_cleanup(&d);
}

static void test_timeline_and_trace_files(void **state)
{
    (void)state;
    dt_daemon d;
    char ini[600];
    char dir[] = "/tmp/cuzkd-tl-XXXXXX";
    assert_non_null(mkdtemp(dir));
    snprintf(ini, sizeof ini, "[daemon]\ntimeline_file = %s/timeline.log\ntrace_file = %s/trace.json\n", dir, dir);
    dt_start(&d, ini);
    assert_int_equal(dt_call(&d, "POST", "/v1/prove", "{\"circuit\":\"test\",\"payload\":\"tl\",\"partitions\":2}", NULL),
                     200);
    assert_int_equal(dt_stop_sig(&d, SIGTERM), 0);
    char path[300];
    snprintf(path, sizeof path, "%s/timeline.log", dir);
    char *tl = dt_read_file(path);
    assert_non_null(strstr(tl, "SYNTH_END"));
    assert_non_null(strstr(tl, "JOB_DONE"));
    free(tl);
    unlink(path);
    snprintf(path, sizeof path, "%s/trace.json", dir);
    char *tr = dt_read_file(path);
    json_t *j = json_loads(tr, 0, NULL);
    assert_non_null(j);
    json_decref(j);
    free(tr);
    unlink(path);
    rmdir(dir);
    dt_cleanup(&d);
}

static void test_example_config(void **state)
{
    (void)state;
    /* the documented example parses and resolves (groth16 back-end) */
    char ex[512];
    snprintf(ex, sizeof ex, "%s/docs/cuzkd.ini.example", CUZK_SOURCE_DIR);
    const char *args[] = {"--config", ex, "--print-config", NULL};
    dt_daemon d;
    assert_int_equal(dt_spawn(&d, NULL, args), 0);
    char *log = dt_read_file(d.log);
    assert_non_null(strstr(log, "type = groth16"));
    assert_non_null(strstr(log, "memory_budget = auto"));
    assert_non_null(strstr(log, "drain_on_shutdown = true"));
    assert_non_null(strstr(log, "msm_tables = 0\nmsm_tables_file = true\n"));
    /* the gRPC keys and the socket permissions are printed too */
    assert_non_null(strstr(log, "[grpc]\nlisten = \nmax_message_bytes = 268435456\nmax_calls = 1024\n"));
    assert_non_null(strstr(log, "socket_mode = 0600\nsocket_group = \n"));
    free(log);
    dt_cleanup(&d);
    /* --grpc-listen and --set grpc.* land in the resolved configuration */
    const char *args2[] = {"--grpc-listen", "unix:/run/cuzkd/grpc.sock", "--set", "grpc.max_calls=7", "--set",
                           "daemon.socket_mode=660", "--print-config", NULL};
    assert_int_equal(dt_spawn(&d, NULL, args2), 0);
    log = dt_read_file(d.log);
    assert_non_null(strstr(log, "[grpc]\nlisten = unix:/run/cuzkd/grpc.sock\n"));
    assert_non_null(strstr(log, "max_calls = 7\n"));
    assert_non_null(strstr(log, "socket_mode = 0660\n"));
    free(log);
    dt_cleanup(&d);
    /* the MSM tables' limit and the store's node retention */
    const char *args4[] = {"--set", "backend.msm_tables=512M", "--set", "backend.msm_tables_file=false", "--set",
                           "store.node_retention_ms=0", "--print-config", NULL};
    assert_int_equal(dt_spawn(&d, NULL, args4), 0);
    log = dt_read_file(d.log);
    assert_non_null(strstr(log, "msm_tables = 536870912\nmsm_tables_file = false\n"));
    assert_non_null(strstr(log, "node_retention_ms = 0\n"));
    free(log);
    dt_cleanup(&d);
    /* the configuration shipped with the systemd unit resolves */
    snprintf(ex, sizeof ex, "%s/contrib/systemd/cuzkd.ini", CUZK_SOURCE_DIR);
    const char *args3[] = {"--config", ex, "--print-config", NULL};
    assert_int_equal(dt_spawn(&d, NULL, args3), 0);
    log = dt_read_file(d.log);
    assert_non_null(strstr(log, "[grpc]\nlisten = unix:/run/cuzkd/grpc.sock\n"));
    assert_non_null(strstr(log, "socket_group = curio\n"));
    free(log);
    dt_cleanup(&d);
}

/* A client that hangs up during an await must not keep its connection
 * (max_connections = 2 here: two abandoned awaits would otherwise lock
 * every later client out for the whole await timeout). */
static void test_abandoned_awaits(void **state)
{
    (void)state;
    dt_daemon d;
    dt_start(&d, "[daemon]\nmax_connections = 2\n");
    json_t *j;
    assert_int_equal(dt_call(&d, "POST", "/v1/jobs",
                             "{\"circuit\":\"test\",\"payload\":\"synth_ms=20000\"}", &j), 201);
    long long id = dt_int(j, "id");
    json_decref(j);
    for (int k = 0; k < 2; k++) {
        cz_errbuf err;
        int fd = cz_http_connect(d.addr, &err);
        assert_true(fd >= 0);
        char req[160];
        int n = snprintf(req, sizeof req, "POST /v1/jobs/%lld/await?timeout_ms=60000 HTTP/1.1\r\nHost: x\r\n\r\n", id);
        assert_int_equal(write(fd, req, (size_t)n), n);
        dt_sleep_ms(100);
        close(fd);
    }
    dt_sleep_ms(1500 * DT_SLOW);
    assert_int_equal(dt_call(&d, "GET", "/v1/health", NULL, NULL), 200);
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%lld/cancel", id);
    assert_int_equal(dt_call(&d, "POST", path, NULL, NULL), 200);
    assert_int_equal(dt_stop_sig(&d, SIGTERM), 0);
    dt_cleanup(&d);
}

/* ---- slow clients ------------------------------------------------------ */

/* A TCP connection from source address src (127.0.0.x) to the daemon. */
static int tcp_from(const dt_daemon *d, const char *src)
{
    unsigned port = 0;
    const char *c = strrchr(d->addr, ':');
    assert_non_null(c);
    port = (unsigned)atoi(c + 1);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    inet_pton(AF_INET, src, &sa.sin_addr);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    assert_int_equal(connect(fd, (struct sockaddr *)&to, sizeof to), 0);
    return fd;
}

/* true once the peer closed fd (read gives 0 or an error), waiting up to
 * max_ms (a safety net: the test passes as soon as the close is seen). */
static bool closed_by_peer(int fd, int max_ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, max_ms) <= 0)
        return false;
    char b[256];
    ssize_t n = recv(fd, b, sizeof b, MSG_DONTWAIT);
    return n <= 0;
}

/* A full request from src; returns the HTTP status (0: no answer). */
static int request_from(const dt_daemon *d, const char *src)
{
    int fd = tcp_from(d, src);
    const char *req = "GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req)) {
        close(fd);
        return 0;
    }
    char b[1024];
    size_t n = 0;
    struct pollfd p = {fd, POLLIN, 0};
    while (n < sizeof b - 1 && poll(&p, 1, 20000 * DT_SLOW) > 0) {
        ssize_t r = recv(fd, b + n, sizeof b - 1 - n, 0);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    b[n] = 0;
    int code = 0;
    if (n > 12 && !strncmp(b, "HTTP/1.", 7))
        code = atoi(b + 9);
    return code;
}

/* Half-open connections (request head never completed) from one peer must
 * not lock everyone else out: the per-peer limit leaves room for another
 * client, and the header deadline closes them, even one that keeps
 * trickling bytes (an inactivity timeout never would). */
static void test_slow_clients(void **state)
{
    (void)state;
    dt_daemon d;
    dt_start(&d, "[daemon]\nlisten = 127.0.0.1:0\nmax_connections = 4\nmax_connections_per_peer = 2\n"
                 "header_timeout_ms = 1000\nconnection_timeout_s = 120\n");
    int fds[4];
    for (int k = 0; k < 4; k++) {
        fds[k] = tcp_from(&d, "127.0.0.1");
        const char *part = "GET /v1/health HTTP/1.1\r\nHost: x\r\n"; /* no blank line: never complete */
        send(fds[k], part, strlen(part), MSG_NOSIGNAL);
    }
    /* another peer is served while the first one holds its connections */
    assert_int_equal(request_from(&d, "127.0.0.2"), 200);
    /* a trickler: one more byte of its head every 100 ms */
    int slow = tcp_from(&d, "127.0.0.3");
    bool slow_closed = false;
    const char *head = "GET /v1/health HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    for (size_t i = 0; i < strlen(head) && !slow_closed; i++) {
        if (send(slow, head + i, 1, MSG_NOSIGNAL) != 1 || closed_by_peer(slow, 100))
            slow_closed = true;
    }
    assert_true(slow_closed); /* 180 bytes over 18 s: the 1 s deadline must have cut it */
    close(slow);
    /* the half-open ones are closed by the deadline (those over the
     * per-peer limit were refused at once) */
    for (int k = 0; k < 4; k++) {
        assert_true(closed_by_peer(fds[k], 20000 * DT_SLOW));
        close(fds[k]);
    }
    /* the first peer is welcome again, once MHD has counted its closed
     * connections out (its cleanup runs just after the close we saw) */
    int again = 0;
    for (int i = 0; i < 400 * DT_SLOW && again != 200; i++) {
        again = request_from(&d, "127.0.0.1");
        if (again != 200)
            dt_sleep_ms(50);
    }
    assert_int_equal(again, 200);
    assert_int_equal(dt_stop_sig(&d, SIGTERM), 0);
    char *log = dt_read_file(d.log);
    assert_non_null(strstr(log, "event=header_timeout peer=127.0.0.1:"));
    assert_non_null(strstr(log, "no complete request head within daemon.header_timeout_ms = 1000"));
    free(log);
    dt_cleanup(&d);
}

/* Send raw bytes from 127.0.0.1 and read the answer's status (0: none). */
static int raw_status(int fd, const char *bytes, size_t n)
{
    if (n && send(fd, bytes, n, MSG_NOSIGNAL) != (ssize_t)n) return 0;
    char b[2048];
    size_t got = 0;
    struct pollfd p = {fd, POLLIN, 0};
    while (got < sizeof b - 1 && poll(&p, 1, 20000 * DT_SLOW) > 0) {
        ssize_t r = recv(fd, b + got, sizeof b - 1 - got, 0);
        if (r <= 0) break;
        got += (size_t)r;
        b[got] = 0;
        if (strstr(b, "\r\n\r\n") && strchr(strstr(b, "\r\n\r\n"), '}')) break;
    }
    b[got] = 0;
    return got > 12 && !strncmp(b, "HTTP/1.", 7) ? atoi(b + 9) : 0;
}

/* Bodies being received count against daemon.max_inflight_body_bytes: while
 * one connection holds a large partial body, another request is answered
 * 503 before its body is read; once the first goes away, requests pass. */
static void test_inflight_body_bound(void **state)
{
    (void)state;
    dt_daemon d;
    dt_start(&d, "[daemon]\nlisten = 127.0.0.1:0\nmax_body_bytes = 12000\nmax_inflight_body_bytes = 16384\n");
    /* A: declares 11990 bytes, sends 11980 of them and stalls. Its buffer
     * grows to 16 KiB, the whole bound, once more than 8 KiB of the body
     * has reached the handler (libmicrohttpd may hold back the tail of
     * what it has read, so A sends well past that, in pieces). */
    int a = tcp_from(&d, "127.0.0.1");
    char head[256];
    int hl = snprintf(head, sizeof head,
                      "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      "Content-Length: 11990\r\n\r\n");
    assert_int_equal(send(a, head, (size_t)hl, MSG_NOSIGNAL), hl);
    static char fill[2995];
    memset(fill, ' ', sizeof fill);
    for (int piece = 0; piece < 4; piece++) {
        assert_int_equal(send(a, fill, sizeof fill, MSG_NOSIGNAL), (ssize_t)sizeof fill);
        dt_sleep_ms(20);
    }
    /* B: a small submission, refused while A holds the bound */
    const char *body = "{\"circuit\":\"test\",\"payload\":\"inflight\"}";
    char req[512];
    int rl = snprintf(req, sizeof req,
                      "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                      strlen(body), body);
    int code = 0;
    /* Until the daemon has read A's bytes, B may pass (201: a job, no
     * harm); once A's buffer is counted, B must be refused. Without the
     * bound B never is, and the loop ends with the last answer 201. */
    for (int i = 0; i < 200 * DT_SLOW && code != 503; i++) {
        int b = tcp_from(&d, "127.0.0.1");
        code = raw_status(b, req, (size_t)rl);
        close(b);
        if (code != 503) dt_sleep_ms(20);
    }
    assert_int_equal(code, 503);
    /* A leaves: its reservation goes back, and B passes */
    close(a);
    for (int i = 0; i < 400 * DT_SLOW && code != 201; i++) {
        int b = tcp_from(&d, "127.0.0.1");
        code = raw_status(b, req, (size_t)rl);
        close(b);
        if (code != 201) dt_sleep_ms(20);
    }
    assert_int_equal(code, 201);
    /* a body over max_body_bytes is still a 413: that limit is checked first */
    json_t *j;
    char big[13000];
    memset(big, 'x', sizeof big);
    big[sizeof big - 1] = 0;
    assert_int_equal(dt_call(&d, "POST", "/v1/jobs", big, &j), 413);
    json_decref(j);
    assert_int_equal(dt_stop_sig(&d, SIGTERM), 0);
    dt_cleanup(&d);
}

/* A connection opened before shutdown began may still send a submission:
 * it is answered 503 "shutting down" (the job would never run), while the
 * running job drains. */
static void test_submit_during_shutdown(void **state)
{
    (void)state;
    dt_daemon d;
    dt_start(&d, "[daemon]\nlisten = 127.0.0.1:0\n");
    json_t *j;
    assert_int_equal(dt_call(&d, "POST", "/v1/jobs", "{\"circuit\":\"test\",\"payload\":\"synth_ms=600000\"}", &j), 201);
    long long id = dt_int(j, "id");
    json_decref(j);
    /* running, so the shutdown drains it (a queued one would be cancelled
     * at once and the daemon gone before the late submission) */
    long long running = 0;
    for (int i = 0; i < 4000 * DT_SLOW && running < 1; i++) {
        assert_int_equal(dt_call(&d, "GET", "/v1/status", NULL, &j), 200);
        running = dt_int(json_object_get(j, "engine"), "jobs_running");
        json_decref(j);
        if (running < 1)
            dt_sleep_ms(5);
    }
    assert_true(running >= 1);
    int fd = tcp_from(&d, "127.0.0.1"); /* accepted before the listener closes */
    assert_int_equal(request_from(&d, "127.0.0.1"), 200);
    kill(d.pid, SIGTERM);
    bool stopping = false;
    for (int i = 0; i < 20000 * DT_SLOW && !stopping; i += 5) {
        char *log = dt_read_file(d.log);
        stopping = strstr(log, "stopped accepting connections") != NULL;
        free(log);
        if (!stopping)
            dt_sleep_ms(5);
    }
    assert_true(stopping);
    const char *body = "{\"circuit\":\"test\",\"payload\":\"late\"}";
    char req[512];
    int n = snprintf(req, sizeof req,
                     "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %zu\r\n\r\n%s",
                     strlen(body), body);
    assert_int_equal(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
    char b[2048];
    size_t got = 0;
    struct pollfd p = {fd, POLLIN, 0};
    while (got < sizeof b - 1 && poll(&p, 1, 20000 * DT_SLOW) > 0) {
        ssize_t r = recv(fd, b + got, sizeof b - 1 - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    b[got] = 0;
    close(fd);
    if (strncmp(b, "HTTP/1.1 503", 12))
        fail_msg("expected a 503, got: %s", b);
    assert_non_null(strstr(b, "{\"error\":\"daemon is shutting down: no new jobs are accepted (submit to another "
                              "instance, or again after the restart)\"}"));
    /* cancel the draining job (second signal) and exit cleanly */
    assert_int_equal(dt_stop_sig(&d, SIGTERM), 0);
    char *log = dt_read_file(d.log);
    assert_null(strstr(log, "job=2 event=accepted")); /* the late job never existed */
    free(log);
    (void)id;
    dt_cleanup(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_and_token),
        cmocka_unit_test(test_sigterm_drain),
        cmocka_unit_test(test_signals),
        cmocka_unit_test(test_sigterm_cancel),
        cmocka_unit_test(test_sigint_idle_and_restart),
        cmocka_unit_test(test_config_errors_and_overrides),
        cmocka_unit_test(test_concurrent_awaits),
        cmocka_unit_test(test_timeline_and_trace_files),
        cmocka_unit_test(test_example_config),
        cmocka_unit_test(test_abandoned_awaits),
        cmocka_unit_test(test_slow_clients),
        cmocka_unit_test(test_inflight_body_bound),
        cmocka_unit_test(test_submit_during_shutdown),
        cmocka_unit_test(test_refuses_without_a_safe_socket),
    };
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
