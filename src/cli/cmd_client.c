/*
 * `cuzk client` — talks to a running cuzkd (docs/api.md).
 *
 *   cuzk client [--socket PATH | --address ADDR] [--token-file F] [--timeout-ms N] CMD ...
 *     submit  --circuit C (--payload STR | --payload-file F) [--partitions N]
 *             [--priority P] [--request-id R]
 *     prove   (as submit) [--proof-out F]
 *     await   ID [--proof-out F]
 *     status  [ID]          job status, or the daemon's status
 *     cancel  ID
 *     metrics | trace | health
 *     preload NAME | evict NAME
 *     pause | resume        stop / restart dispatching (jobs are still accepted)
 *
 * The connection options may also follow CMD. --payload STR sends the
 * string itself (--payload '' an empty one); --payload-file F sends the
 * file's exact bytes (base64 on the wire). The response JSON goes to
 * stdout (not with --proof-out -, which writes the proof there). Exit
 * status (commands.h, docs/cli.md): 0 a 2xx answer (prove/await: the job
 * is done), 1 any other answer or no connection (the daemon's error on
 * stderr), 2 usage, 3 a file cannot be read or written, 4 the job failed
 * or was cancelled, 5 the wait timed out with the job still queued or
 * running (its id and state on stderr). Default address: $CUZKD_ADDRESS,
 * else the daemon's default socket (cz_daemon_default_listen: the same
 * function the daemon uses, so the two cannot disagree).
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuzk/daemon.h"
#include "daemon/api.h"
#include "daemon/client.h"
#include "commands.h"
#include "cli_util.h"
#include "opts.h"

int cz_cmd_client(int argc, char **argv);

/* The connection options, accepted before and after the subcommand. */
#define CONN_OPTS                                                                                                   \
    {.name = "--socket", .alias = "--address", .kind = CZ_OPT_STR, .arg = "ADDR",                                  \
     .help = "the daemon: unix:/path | /path | HOST:PORT (default $CUZKD_ADDRESS, else its default socket)"},     \
        CZ_STR("--token-file", "FILE", "bearer token (first line of FILE)"),                                      \
        CZ_NUM("--timeout-ms", "N", 0, 2000000000, "prove/await: how long the daemon waits for the job")

static const cz_opt conn_opts[] = {CONN_OPTS, {0}};
static const cz_cmd client_cmd = {
    .name = "cuzk client",
    .synopsis = "[--socket PATH | --address ADDR] [--token-file F] [--timeout-ms N] CMD ...",
    .about = "commands (each has --help):\n"
             "  submit  --circuit C (--payload STR | --payload-file F) [--partitions N]\n"
             "          [--priority low|normal|high|critical] [--request-id R]\n"
             "  prove   (as submit) [--proof-out F]\n"
             "  await   ID [--proof-out F]\n"
             "  status  [ID]\n"
             "  cancel  ID\n"
             "  metrics | trace | health\n"
             "  preload NAME | evict NAME\n"
             "  pause | resume\n"
             "exit status: 0 ok, 1 the daemon refused (HTTP error) or cannot be reached, 2 usage,\n"
             "3 a file cannot be read or written, 4 the job failed or was cancelled, 5 timed out\n"
             "(the job is still queued or running: its id and state are printed)",
    .opts = conn_opts,
    .stop_at_pos = true,
};

#define SUBMIT_OPTS                                                                                                 \
    CZ_STR("--circuit", "ID", "the circuit (required)"),                                                           \
        CZ_STR("--payload", "STR", "the payload, as the string itself ('' = empty)"),                              \
        CZ_STR("--payload-file", "FILE", "the payload, as FILE's exact bytes"),                                    \
        CZ_NUM("--partitions", "N", 1, 65536, "partitions (default 1)"),                                          \
        CZ_STR("--priority", "P", "low | normal (default) | high | critical"),                                    \
        CZ_STR("--request-id", "R", "idempotency key (1..255 printable characters)")
#define PROOF_OUT CZ_STR("--proof-out", "FILE", "write the proof there when the job is done ('-' = stdout)")

static const cz_opt submit_opts[] = {CONN_OPTS, SUBMIT_OPTS, {0}};
static const cz_opt prove_opts[] = {CONN_OPTS, SUBMIT_OPTS, PROOF_OUT, {0}};
static const cz_opt await_opts[] = {CONN_OPTS, PROOF_OUT, {0}};
static const cz_opt plain_opts[] = {CONN_OPTS, {0}};

typedef enum { SUB_SUBMIT, SUB_PROVE, SUB_AWAIT, SUB_STATUS, SUB_CANCEL, SUB_GET, SUB_PARAMS, SUB_CONTROL } sub_kind;

static const struct {
    const char *word;
    sub_kind kind;
    cz_cmd cmd;
} subs[] = {
    {"submit", SUB_SUBMIT, {"cuzk client submit", "--circuit C (--payload STR | --payload-file F) [options]", NULL, submit_opts, 0, false}},
    {"prove", SUB_PROVE, {"cuzk client prove", "--circuit C (--payload STR | --payload-file F) [--proof-out F] [options]",
                          "  submits and waits (--timeout-ms): exit 0 done, 4 failed or cancelled, 5 still running", prove_opts, 0, false}},
    {"await", SUB_AWAIT, {"cuzk client await", "ID [--proof-out F] [options]",
                          "  waits for job ID (--timeout-ms): exit 0 done, 4 failed or cancelled, 5 still running", await_opts, 1, false}},
    {"status", SUB_STATUS, {"cuzk client status", "[ID]", "  job ID's status, or the daemon's", plain_opts, 1, false}},
    {"cancel", SUB_CANCEL, {"cuzk client cancel", "ID", NULL, plain_opts, 1, false}},
    {"metrics", SUB_GET, {"cuzk client metrics", "[options]", "  Prometheus metrics", plain_opts, 0, false}},
    {"trace", SUB_GET, {"cuzk client trace", "[options]", "  Chrome trace-event JSON", plain_opts, 0, false}},
    {"health", SUB_GET, {"cuzk client health", "[options]", NULL, plain_opts, 0, false}},
    {"preload", SUB_PARAMS, {"cuzk client preload", "NAME", "  loads a circuit's parameters now", plain_opts, 1, false}},
    {"evict", SUB_PARAMS, {"cuzk client evict", "NAME", "  unloads resident parameters", plain_opts, 1, false}},
    {"pause", SUB_CONTROL, {"cuzk client pause", "[options]",
                            "  stops starting jobs (they are still accepted; running partitions finish)", plain_opts, 0,
                            false}},
    {"resume", SUB_CONTROL, {"cuzk client resume", "[options]",
                             "  starts dispatching again (after pause, or engine.start_paused)", plain_opts, 0, false}},
};

static int write_proof(const char *body, const char *path)
{
    json_t *j = json_loads(body, 0, NULL);
    const char *b64 = json_string_value(json_object_get(j, "proof_b64"));
    int rc = CZ_EXIT_IO;
    uint8_t *p;
    size_t n;
    if (b64 && cz_base64_decode(b64, strlen(b64), &p, &n) == CZ_OK) {
        FILE *f = cz_out_open(path, true, "cuzk client: --proof-out", &rc);
        if (f) {
            fwrite(p, 1, n, f);
            rc = cz_out_close(f, path, "cuzk client: --proof-out");
        }
        free(p);
    } else {
        fprintf(stderr, "cuzk client: --proof-out %s: the answer carries no proof\n", path);
    }
    json_decref(j);
    return rc;
}

/* prove/await answered 2xx: the job's state decides the exit status */
static int job_outcome(const char *sub, const cz_http_response *r, const char *proof_out)
{
    json_t *j = json_loadb(r->body, r->len, 0, NULL);
    const char *state = json_string_value(json_object_get(j, "state"));
    json_int_t id = json_integer_value(json_object_get(j, "id"));
    int rc;
    if (!state) {
        fprintf(stderr, "cuzk client %s: the answer names no job state: %.200s\n", sub, r->body);
        rc = CZ_EXIT_FAIL;
    } else if (json_is_true(json_object_get(j, "timed_out")) || r->status == 202) {
        fprintf(stderr, "cuzk client %s: timed out: job %lld is still %s; no proof yet (cuzk client await %lld)\n", sub,
                (long long)id, state, (long long)id);
        rc = CZ_EXIT_TIMEOUT;
    } else if (!strcmp(state, "done")) {
        rc = proof_out ? write_proof(r->body, proof_out) : CZ_EXIT_OK;
    } else {
        const char *st = json_string_value(json_object_get(j, "status"));
        const char *err = json_string_value(json_object_get(j, "error"));
        fprintf(stderr, "cuzk client %s: job %lld %s%s%s%s%s\n", sub, (long long)id, state, st ? ": " : "",
                st ? st : "", err ? ": " : "", err ? err : "");
        rc = CZ_EXIT_JOB_FAILED;
    }
    json_decref(j);
    return rc;
}

int cz_cmd_client(int argc, char **argv)
{
    /* argv[0] = "client"; the connection options, then the subcommand */
    cz_args g;
    int rc = cz_opts_parse(&g, &client_cmd, argc, argv);
    if (rc >= 0)
        return rc;
    if (g.next >= argc)
        return cz_usage_error(&client_cmd, "a command is required");
    const char *word = argv[g.next];
    size_t si = 0, nsubs = sizeof subs / sizeof subs[0];
    while (si < nsubs && strcmp(subs[si].word, word))
        si++;
    if (si == nsubs)
        return cz_usage_error(&client_cmd, "unknown command '%s'", word);
    const cz_cmd *sc = &subs[si].cmd;
    sub_kind kind = subs[si].kind;
    /* one parse of both parts against the subcommand's table, so an option
     * given before and after the subcommand is a duplicate */
    char **av = malloc((size_t)argc * sizeof *av);
    if (!av)
        return CZ_EXIT_FAIL;
    int ac = 0;
    av[ac++] = (char *)word;
    for (int i = 1; i < g.next; i++)
        av[ac++] = argv[i];
    for (int i = g.next + 1; i < argc; i++)
        av[ac++] = argv[i];
    cz_args a;
    rc = cz_opts_parse(&a, sc, ac, av);
    free(av);
    if (rc >= 0)
        return rc;

    const char *addr = cz_opt_str(&a, "--socket", getenv("CUZKD_ADDRESS"));
    char defaddr[CZ_DAEMON_PATH_MAX];
    if (!addr) {
        cz_daemon_config *c = malloc(sizeof *c);
        if (!c)
            return CZ_EXIT_FAIL;
        cz_daemon_config_default(c);
        snprintf(defaddr, sizeof defaddr, "%s", c->listen);
        free(c);
        if (!defaddr[0]) {
            fprintf(stderr, "cuzk client: no daemon address: XDG_RUNTIME_DIR is unset and this is not root, so there "
                            "is no default socket; pass --socket ADDR or set CUZKD_ADDRESS (the daemon's "
                            "daemon.listen)\n");
            return CZ_EXIT_USAGE;
        }
        addr = defaddr;
    }
    long long timeout = cz_opt_num(&a, "--timeout-ms", -1);
    const char *proof_out = (kind == SUB_PROVE || kind == SUB_AWAIT) ? cz_opt_str(&a, "--proof-out", NULL) : NULL;
    bool proof_stdout = proof_out && !strcmp(proof_out, "-");
    if (proof_stdout && isatty(STDOUT_FILENO))
        return cz_usage_error(sc, "--proof-out -: stdout is a terminal; redirect it or name a file");
    /* the positional: a job id (decimal, so it cannot bend the path) or a
     * parameter name (the daemon checks it; here only what would break the
     * request line) */
    const char *pos = a.npos ? a.pos[0] : NULL;
    long long id = 0;
    if ((kind == SUB_AWAIT || kind == SUB_CANCEL || kind == SUB_PARAMS) && !pos)
        return cz_usage_error(sc, "%s is required", kind == SUB_PARAMS ? "NAME" : "a job ID");
    if (pos && (kind == SUB_AWAIT || kind == SUB_CANCEL || kind == SUB_STATUS) &&
        cz_parse_num(sc, "job ID", pos, 1, LLONG_MAX, &id) != 0)
        return CZ_EXIT_USAGE;
    if (pos && kind == SUB_PARAMS && strpbrk(pos, "/?#% \t\r\n"))
        return cz_usage_error(sc, "NAME: '%s' is not a parameter name", pos);

    char *token = NULL;
    const char *tf = cz_opt_str(&a, "--token-file", NULL);
    if (tf) {
        size_t n;
        token = cz_read_file(tf, &n, NULL);
        if (!token) {
            fprintf(stderr, "cuzk client: --token-file %s: cannot read: %s\n", tf, strerror(errno));
            return CZ_EXIT_IO;
        }
        token[strcspn(token, "\r\n")] = 0;
    }
    char path[512];
    const char *method = "GET";
    char *body = NULL;
    rc = CZ_EXIT_USAGE;
    switch (kind) {
    case SUB_SUBMIT:
    case SUB_PROVE: {
        const char *circuit = cz_opt_str(&a, "--circuit", NULL);
        const char *pf = cz_opt_str(&a, "--payload-file", NULL), *ps = cz_opt_str(&a, "--payload", NULL);
        const char *prio = cz_opt_str(&a, "--priority", NULL);
        if (!circuit) {
            rc = cz_usage_error(sc, "--circuit ID is required");
            goto out;
        }
        if (!pf == !ps) {
            rc = cz_usage_error(sc, pf ? "--payload and --payload-file exclude each other"
                                       : "--payload STR or --payload-file FILE is required (--payload '' for none)");
            goto out;
        }
        if (prio && strcmp(prio, "low") && strcmp(prio, "normal") && strcmp(prio, "high") && strcmp(prio, "critical")) {
            rc = cz_usage_error(sc, "--priority: expected low, normal, high or critical, got '%s'", prio);
            goto out;
        }
        json_t *o = json_object();
        json_object_set_new(o, "circuit", json_string(circuit));
        if (pf) {
            size_t n;
            char *data = cz_read_file(pf, &n, NULL);
            if (!data) {
                fprintf(stderr, "cuzk client: --payload-file %s: cannot read: %s\n", pf, strerror(errno));
                json_decref(o);
                rc = CZ_EXIT_IO;
                goto out;
            }
            char *b64 = NULL;
            if (cz_base64_encode((const uint8_t *)data, n, &b64, NULL) != CZ_OK)
                b64 = NULL;
            json_object_set_new(o, "payload_b64", json_string(b64));
            free(b64);
            free(data);
        } else {
            json_object_set_new(o, "payload", json_string(ps));
        }
        if (cz_opt_given(&a, "--partitions"))
            json_object_set_new(o, "partitions", json_integer(cz_opt_num(&a, "--partitions", 1)));
        if (prio)
            json_object_set_new(o, "priority", json_string(prio));
        const char *rid = cz_opt_str(&a, "--request-id", NULL);
        if (rid)
            json_object_set_new(o, "request_id", json_string(rid));
        body = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        method = "POST";
        if (kind == SUB_PROVE && timeout >= 0)
            snprintf(path, sizeof path, "/v1/prove?timeout_ms=%lld", timeout);
        else
            snprintf(path, sizeof path, "%s", kind == SUB_PROVE ? "/v1/prove" : "/v1/jobs");
        break;
    }
    case SUB_AWAIT:
        method = "POST";
        if (timeout >= 0)
            snprintf(path, sizeof path, "/v1/jobs/%lld/await?timeout_ms=%lld", id, timeout);
        else
            snprintf(path, sizeof path, "/v1/jobs/%lld/await", id);
        break;
    case SUB_CANCEL:
        method = "POST";
        snprintf(path, sizeof path, "/v1/jobs/%lld/cancel", id);
        break;
    case SUB_STATUS:
        if (pos)
            snprintf(path, sizeof path, "/v1/jobs/%lld", id);
        else
            snprintf(path, sizeof path, "/v1/status");
        break;
    case SUB_GET:
        snprintf(path, sizeof path, !strcmp(word, "metrics") ? "/metrics" : "/v1/%s", word);
        break;
    case SUB_CONTROL:
        method = "POST";
        snprintf(path, sizeof path, "/v1/%s", word);
        break;
    case SUB_PARAMS:
        method = "POST";
        if (snprintf(path, sizeof path, "/v1/params/%s/%s", pos, word) >= (int)sizeof path) {
            rc = cz_usage_error(sc, "NAME: '%.40s...' is too long", pos);
            goto out;
        }
        break;
    }
    cz_http_response r;
    cz_errbuf err;
    /* the HTTP exchange may outlast the server-side timeout a little */
    int http_timeout = timeout >= 0 ? (int)(timeout + 30000) : -1;
    if (cz_http_call(addr, token, method, path, body, body ? strlen(body) : 0, http_timeout, &r, &err) != CZ_OK) {
        fprintf(stderr, "cuzk client %s: %s\n", word, err.msg); /* err names the address */
        rc = CZ_EXIT_FAIL;
        goto out;
    }
    if (!proof_stdout)
        fwrite(r.body, 1, r.len, stdout);
    if (r.status >= 200 && r.status < 300) {
        rc = (kind == SUB_PROVE || kind == SUB_AWAIT) ? job_outcome(word, &r, proof_out) : CZ_EXIT_OK;
    } else {
        json_t *j = json_loadb(r.body, r.len, 0, NULL);
        const char *e = json_string_value(json_object_get(j, "error"));
        fprintf(stderr, "cuzk client %s: HTTP %d: %s\n", word, r.status, e ? e : "(no message)");
        json_decref(j);
        rc = CZ_EXIT_FAIL;
    }
    cz_http_response_free(&r);
out:
    free(body);
    free(token);
    return rc;
}
