/*
 * `cuzk client` — talks to a running cuzkd (docs/api.md).
 *
 *   cuzk client [--socket PATH | --address ADDR] [--token-file F] [--timeout-ms N] CMD ...
 *     submit  --circuit C [--payload STR | --payload-file F] [--partitions N]
 *             [--priority P] [--request-id R]
 *     prove   (as submit) [--proof-out F]
 *     await   ID [--proof-out F]
 *     status  [ID]          job status, or the daemon's status
 *     cancel  ID
 *     metrics | trace | health
 *     preload NAME | evict NAME
 *
 * --payload STR sends the string itself; --payload-file F sends the file's
 * exact bytes (base64 on the wire). The response JSON goes to stdout; exit
 * status 0 for a 2xx answer, 1 otherwise (with the daemon's error on
 * stderr), 2 for usage errors. Default address: $CUZKD_ADDRESS, else the
 * daemon's default socket.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuzk/daemon.h"
#include "daemon/api.h"
#include "daemon/client.h"

int cz_cmd_client(int argc, char **argv);

static void client_usage(FILE *f)
{
    fprintf(f, "usage: cuzk client [--socket PATH | --address ADDR] [--token-file F] [--timeout-ms N] CMD ...\n"
               "  submit  --circuit C [--payload STR | --payload-file F] [--partitions N]\n"
               "          [--priority low|normal|high|critical] [--request-id R]\n"
               "  prove   (as submit) [--proof-out F]\n"
               "  await   ID [--proof-out F]\n"
               "  status  [ID]\n"
               "  cancel  ID\n"
               "  metrics | trace | health\n"
               "  preload NAME | evict NAME\n");
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(b, cap);
            if (!nb) {
                free(b);
                fclose(f);
                return NULL;
            }
            b = nb;
        }
        size_t r = fread(b + n, 1, cap - n, f);
        if (r == 0)
            break;
        n += r;
    }
    fclose(f);
    *len = n;
    return b;
}

static const char *opt(int argc, char **argv, const char *flag)
{
    for (int i = 0; i + 1 < argc; i++)
        if (!strcmp(argv[i], flag))
            return argv[i + 1];
    return NULL;
}

static int write_proof(const char *body, const char *path)
{
    json_t *j = json_loads(body, 0, NULL);
    const char *b64 = json_string_value(json_object_get(j, "proof_b64"));
    int rc = 1;
    uint8_t *p;
    size_t n;
    if (b64 && cz_base64_decode(b64, strlen(b64), &p, &n) == CZ_OK) {
        FILE *f = fopen(path, "wb");
        if (f && fwrite(p, 1, n, f) == n)
            rc = 0;
        if (f)
            fclose(f);
        free(p);
    }
    if (rc)
        fprintf(stderr, "cuzk client: no proof written to %s\n", path);
    json_decref(j);
    return rc;
}

int cz_cmd_client(int argc, char **argv)
{
    /* argv[0] = "client" */
    const char *addr = getenv("CUZKD_ADDRESS");
    char defaddr[CZ_DAEMON_PATH_MAX];
    if (!addr) {
        cz_daemon_config *c = malloc(sizeof *c);
        if (!c)
            return 1;
        cz_daemon_config_default(c);
        snprintf(defaddr, sizeof defaddr, "%s", c->listen);
        free(c);
        addr = defaddr;
    }
    char *token = NULL;
    long timeout = -1;
    int i = 1;
    for (; i < argc && !strncmp(argv[i], "--", 2); i += 2) {
        if (!strcmp(argv[i], "--help")) {
            client_usage(stdout);
            free(token);
            return 0;
        }
        if (i + 1 >= argc) {
            client_usage(stderr);
            return 2;
        }
        if (!strcmp(argv[i], "--socket") || !strcmp(argv[i], "--address")) {
            addr = argv[i + 1];
        } else if (!strcmp(argv[i], "--token-file")) {
            size_t n;
            token = read_all(argv[i + 1], &n);
            if (!token) {
                fprintf(stderr, "cuzk client: cannot read %s\n", argv[i + 1]);
                return 2;
            }
            token[n < 1 ? 0 : n] = 0;
            char *nl = strpbrk(token, "\r\n");
            if (nl)
                *nl = 0;
        } else if (!strcmp(argv[i], "--timeout-ms")) {
            timeout = atol(argv[i + 1]);
        } else {
            fprintf(stderr, "cuzk client: unknown option '%s'\n", argv[i]);
            client_usage(stderr);
            return 2;
        }
    }
    if (i >= argc) {
        client_usage(stderr);
        free(token);
        return 2;
    }
    const char *cmd = argv[i];
    int ac = argc - i - 1;
    char **av = argv + i + 1;
    char path[512];
    const char *method = "GET";
    char *body = NULL;
    const char *proof_out = opt(ac, av, "--proof-out");
    int rc = 2;
    if (!strcmp(cmd, "submit") || !strcmp(cmd, "prove")) {
        const char *circuit = opt(ac, av, "--circuit");
        if (!circuit) {
            fprintf(stderr, "cuzk client: %s needs --circuit\n", cmd);
            goto out;
        }
        json_t *o = json_object();
        json_object_set_new(o, "circuit", json_string(circuit));
        const char *pf = opt(ac, av, "--payload-file"), *ps = opt(ac, av, "--payload");
        if (pf) {
            size_t n;
            char *data = read_all(pf, &n);
            if (!data) {
                fprintf(stderr, "cuzk client: cannot read %s\n", pf);
                json_decref(o);
                goto out;
            }
            char *b64 = NULL;
            if (cz_base64_encode((const uint8_t *)data, n, &b64, NULL) != CZ_OK) b64 = NULL;
            json_object_set_new(o, "payload_b64", json_string(b64));
            free(b64);
            free(data);
        } else {
            json_object_set_new(o, "payload", json_string(ps ? ps : ""));
        }
        const char *s;
        if ((s = opt(ac, av, "--partitions")))
            json_object_set_new(o, "partitions", json_integer(atol(s)));
        if ((s = opt(ac, av, "--priority")))
            json_object_set_new(o, "priority", json_string(s));
        if ((s = opt(ac, av, "--request-id")))
            json_object_set_new(o, "request_id", json_string(s));
        body = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        method = "POST";
        if (!strcmp(cmd, "prove") && timeout >= 0)
            snprintf(path, sizeof path, "/v1/prove?timeout_ms=%ld", timeout);
        else
            snprintf(path, sizeof path, "%s", !strcmp(cmd, "prove") ? "/v1/prove" : "/v1/jobs");
    } else if ((!strcmp(cmd, "await") || !strcmp(cmd, "cancel")) && ac >= 1) {
        method = "POST";
        if (!strcmp(cmd, "cancel"))
            snprintf(path, sizeof path, "/v1/jobs/%s/cancel", av[0]);
        else if (timeout >= 0)
            snprintf(path, sizeof path, "/v1/jobs/%s/await?timeout_ms=%ld", av[0], timeout);
        else
            snprintf(path, sizeof path, "/v1/jobs/%s/await", av[0]);
    } else if (!strcmp(cmd, "status")) {
        if (ac >= 1)
            snprintf(path, sizeof path, "/v1/jobs/%s", av[0]);
        else
            snprintf(path, sizeof path, "/v1/status");
    } else if (!strcmp(cmd, "metrics")) {
        snprintf(path, sizeof path, "/metrics");
    } else if (!strcmp(cmd, "trace") || !strcmp(cmd, "health")) {
        snprintf(path, sizeof path, "/v1/%s", cmd);
    } else if ((!strcmp(cmd, "preload") || !strcmp(cmd, "evict")) && ac >= 1) {
        method = "POST";
        snprintf(path, sizeof path, "/v1/params/%s/%s", av[0], cmd);
    } else {
        client_usage(stderr);
        goto out;
    }
    cz_http_response r;
    cz_errbuf err;
    /* the HTTP exchange may outlast the server-side timeout a little */
    int http_timeout = timeout >= 0 ? (int)(timeout + 30000) : -1;
    if (cz_http_call(addr, token, method, path, body, body ? strlen(body) : 0, http_timeout, &r, &err) != CZ_OK) {
        fprintf(stderr, "cuzk client: %s\n", err.msg);
        rc = 1;
        goto out;
    }
    fwrite(r.body, 1, r.len, stdout);
    if (r.status >= 200 && r.status < 300) {
        rc = 0;
        if (proof_out)
            rc = write_proof(r.body, proof_out);
    } else {
        json_t *j = json_loadb(r.body, r.len, 0, NULL);
        const char *e = json_string_value(json_object_get(j, "error"));
        fprintf(stderr, "cuzk client: HTTP %d: %s\n", r.status, e ? e : "(no message)");
        json_decref(j);
        rc = 1;
    }
    cz_http_response_free(&r);
out:
    free(body);
    free(token);
    return rc;
}
