/*
 * cuzkd request parsing and validation (see api.h). Nothing here touches
 * the network or the engine: every function is a total function of its
 * input, which is what lets fuzz_api drive it with arbitrary bytes.
 */
#include "daemon/api.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Copies at most n bytes of untrusted text into a message, replacing
 * anything unprintable, so error messages never echo raw control bytes. */
static void sanitize(char *dst, size_t cap, const char *s, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; i < n && j + 1 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        dst[j++] = (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') ? (char)ch : '?';
    }
    if (cap)
        dst[j] = 0;
    if (n > 40 && cap > 4 && j >= 3 && j + 1 >= cap) {
        dst[j - 3] = dst[j - 2] = dst[j - 1] = '.';
    }
}

bool cz_api_name_ok(const char *s, size_t len)
{
    if (!s || len == 0 || len > CZ_API_NAME_MAX || s[0] == '.')
        return false;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                  ch == '.' || ch == '_' || ch == '-';
        if (!ok)
            return false;
        if (ch == '.' && i + 1 < len && s[i + 1] == '.')
            return false;
    }
    return true;
}

bool cz_api_parse_job_id(const char *s, size_t len, cz_job_id *out)
{
    if (!s || len == 0 || len > 20 || s[0] == '0')
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return v != 0;
}

int cz_api_parse_uint_param(const char *name, const char *s, uint64_t def, uint64_t max, uint64_t *out,
                            char *err, size_t errlen)
{
    if (!s) {
        *out = def < max ? def : max;
        return 0;
    }
    size_t n = strlen(s);
    if (n == 0 || n > 20) {
        errf(err, errlen, "%s must be a decimal number%s", name,
             strstr(name, "_ms") ? " of milliseconds" : "");
        return 400;
    }
    uint64_t v = 0;
    bool big = false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            char tmp[48];
            sanitize(tmp, sizeof tmp, s, n);
            errf(err, errlen, "%s must be a decimal number%s, got '%s'", name,
                 strstr(name, "_ms") ? " of milliseconds" : "", tmp);
            return 400;
        }
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            big = true;
        else
            v = v * 10 + d;
    }
    *out = (big || v > max) ? max : v;
    return 0;
}

int cz_api_parse_ms(const char *s, uint64_t def, uint64_t max, uint64_t *out, char *err, size_t errlen)
{
    return cz_api_parse_uint_param("timeout_ms", s, def, max, out, err, errlen);
}

/* ---- query parameters ------------------------------------------------- */

const char *cz_api_query_params(cz_api_route r)
{
    switch (r) {
    case CZ_API_AWAIT:
    case CZ_API_PROVE: return "timeout_ms";
    case CZ_API_TIMELINE: return "since_ms, limit";
    default: return "";
    }
}

int cz_api_check_query(cz_api_route r, const char *name, char *err, size_t errlen)
{
    const char *list = cz_api_query_params(r);
    size_t n = name ? strlen(name) : 0;
    /* list is "a, b, c": match whole names only */
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (n && len == n && !memcmp(p, name, n))
            return 0;
        if (!e)
            break;
        p = e + 1;
        while (*p == ' ')
            p++;
    }
    char tmp[48];
    sanitize(tmp, sizeof tmp, name ? name : "", n);
    if (*list)
        errf(err, errlen, "unknown query parameter '%s' (this endpoint accepts: %s)", tmp, list);
    else
        errf(err, errlen, "unknown query parameter '%s' (this endpoint accepts no query parameters)", tmp);
    return 400;
}

int cz_api_check_query_dup(const char *name, char *err, size_t errlen)
{
    char tmp[48];
    sanitize(tmp, sizeof tmp, name ? name : "", name ? strlen(name) : 0);
    errf(err, errlen, "query parameter '%s' given more than once", tmp);
    return 400;
}

/* ---- routing ---------------------------------------------------------- */

static int method_is(const char *m, const char *want)
{
    return m && !strcmp(m, want);
}

/* Splits path into at most 5 segments (no empty ones except none). */
typedef struct {
    const char *s;
    size_t n;
} seg;

static int split(const char *path, seg *segs, int max)
{
    if (!path || path[0] != '/')
        return -1;
    int k = 0;
    const char *p = path + 1;
    if (!*p)
        return 0;
    for (;;) {
        const char *q = strchr(p, '/');
        size_t n = q ? (size_t)(q - p) : strlen(p);
        if (k == max)
            return -1;
        segs[k].s = p;
        segs[k].n = n;
        k++;
        if (!q)
            break;
        p = q + 1;
    }
    return k;
}

static bool seg_is(const seg *s, const char *lit)
{
    return s->n == strlen(lit) && !memcmp(s->s, lit, s->n);
}

static int need_method(const char *method, const char *want, cz_api_target *t, char *err,
                       size_t errlen)
{
    if (method_is(method, want))
        return 0;
    t->allow = want;
    char tmp[24];
    sanitize(tmp, sizeof tmp, method ? method : "", method ? strlen(method) : 0);
    errf(err, errlen, "method %s not allowed here (use %s)", tmp, want);
    return 405;
}

int cz_api_match(const char *method, const char *path, cz_api_target *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    seg s[5];
    int k = split(path, s, 5);
    int rc;
    if (k == 0) {
        t->route = CZ_API_PAGE;
        return need_method(method, "GET", t, err, errlen);
    }
    if (k == 1 && seg_is(&s[0], "metrics")) {
        t->route = CZ_API_METRICS;
        return need_method(method, "GET", t, err, errlen);
    }
    if (k < 2 || !seg_is(&s[0], "v1"))
        goto none;
    if (k == 2) {
        if (seg_is(&s[1], "jobs")) {
            t->route = CZ_API_SUBMIT;
            return need_method(method, "POST", t, err, errlen);
        }
        if (seg_is(&s[1], "prove")) {
            t->route = CZ_API_PROVE;
            return need_method(method, "POST", t, err, errlen);
        }
        if (seg_is(&s[1], "status")) {
            t->route = CZ_API_STATUS;
            return need_method(method, "GET", t, err, errlen);
        }
        if (seg_is(&s[1], "trace")) {
            t->route = CZ_API_TRACE;
            return need_method(method, "GET", t, err, errlen);
        }
        if (seg_is(&s[1], "health")) {
            t->route = CZ_API_HEALTH;
            return need_method(method, "GET", t, err, errlen);
        }
        if (seg_is(&s[1], "timeline")) {
            t->route = CZ_API_TIMELINE;
            return need_method(method, "GET", t, err, errlen);
        }
        if (seg_is(&s[1], "pause")) {
            t->route = CZ_API_PAUSE;
            return need_method(method, "POST", t, err, errlen);
        }
        if (seg_is(&s[1], "resume")) {
            t->route = CZ_API_RESUME;
            return need_method(method, "POST", t, err, errlen);
        }
        goto none;
    }
    if (seg_is(&s[1], "jobs") && (k == 3 || k == 4)) {
        if (k == 3) {
            t->route = CZ_API_JOB;
            rc = need_method(method, "GET", t, err, errlen);
        } else if (seg_is(&s[3], "await")) {
            t->route = CZ_API_AWAIT;
            rc = need_method(method, "POST", t, err, errlen);
        } else if (seg_is(&s[3], "cancel")) {
            t->route = CZ_API_CANCEL;
            rc = need_method(method, "POST", t, err, errlen);
        } else {
            goto none;
        }
        if (rc)
            return rc;
        if (!cz_api_parse_job_id(s[2].s, s[2].n, &t->job)) {
            char tmp[48];
            sanitize(tmp, sizeof tmp, s[2].s, s[2].n);
            errf(err, errlen, "bad job id '%s' (a positive decimal integer)", tmp);
            return 400;
        }
        return 0;
    }
    if (seg_is(&s[1], "params") && k == 4) {
        if (seg_is(&s[3], "preload"))
            t->route = CZ_API_PRELOAD;
        else if (seg_is(&s[3], "evict"))
            t->route = CZ_API_EVICT;
        else
            goto none;
        rc = need_method(method, "POST", t, err, errlen);
        if (rc)
            return rc;
        if (!cz_api_name_ok(s[2].s, s[2].n)) {
            char tmp[48];
            sanitize(tmp, sizeof tmp, s[2].s, s[2].n);
            errf(err, errlen,
                 "bad parameter name '%s' (1..%d characters of [A-Za-z0-9._-], no '..', not starting "
                 "with '.')",
                 tmp, CZ_API_NAME_MAX);
            return 400;
        }
        memcpy(t->name, s[2].s, s[2].n);
        t->name[s[2].n] = 0;
        return 0;
    }
none:
    t->route = CZ_API_NONE;
    {
        char tmp[64];
        sanitize(tmp, sizeof tmp, path ? path : "", path ? strlen(path) : 0);
        errf(err, errlen, "no such endpoint '%s'", tmp);
    }
    return 404;
}

/* ---- submit ----------------------------------------------------------- */

void cz_api_submit_free(cz_api_submit *s)
{
    if (!s)
        return;
    free(s->payload);
    s->payload = NULL;
    s->payload_len = 0;
}

static const char *json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

cz_priority cz_api_default_priority(const char *circuit)
{
    if (!strncmp(circuit, "winning-", 8))
        return CZ_PRIO_CRITICAL; /* a late WinningPoSt loses the block */
    if (!strncmp(circuit, "wpost-", 6))
        return CZ_PRIO_HIGH; /* a missed WindowPoSt deadline faults sectors */
    return CZ_PRIO_NORMAL;
}

int cz_api_parse_submit(const char *body, size_t len, uint64_t max_payload, cz_api_submit *out,
                        char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->partitions = 1;
    out->priority = CZ_PRIO_NORMAL;
    if (!body || len == 0) {
        errf(err, errlen, "empty request body: expected a JSON object with at least 'circuit' and 'payload'");
        return 400;
    }
    json_error_t je;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
    if (!root) {
        errf(err, errlen, "malformed JSON at line %d column %d: %s", je.line, je.column, je.text);
        return 400;
    }
    int rc = 400;
    if (!json_is_object(root)) {
        errf(err, errlen, "request body must be a JSON object, got %s", json_type_name(root));
        goto out;
    }
    const char *key;
    json_t *v;
    bool have_payload = false, have_priority = false;
    json_object_foreach(root, key, v)
    {
        if (!strcmp(key, "circuit")) {
            if (!json_is_string(v)) {
                errf(err, errlen, "field 'circuit' must be a string, got %s", json_type_name(v));
                goto out;
            }
            const char *s = json_string_value(v);
            size_t n = json_string_length(v);
            if (!cz_api_name_ok(s, n)) {
                char tmp[48];
                sanitize(tmp, sizeof tmp, s, n);
                errf(err, errlen,
                     "bad circuit id '%s' (1..%d characters of [A-Za-z0-9._-], no '..', not "
                     "starting with '.')",
                     tmp, CZ_API_NAME_MAX);
                goto out;
            }
            memcpy(out->circuit, s, n);
            out->circuit[n] = 0;
        } else if (!strcmp(key, "payload") || !strcmp(key, "payload_b64")) {
            if (have_payload) {
                errf(err, errlen, "give exactly one of 'payload' and 'payload_b64'");
                goto out;
            }
            have_payload = true;
            if (!strcmp(key, "payload_b64")) {
                if (!json_is_string(v)) {
                    errf(err, errlen, "field 'payload_b64' must be a base64 string, got %s",
                         json_type_name(v));
                    goto out;
                }
                size_t n = json_string_length(v);
                if (n / 4 * 3 > max_payload + 2) {
                    errf(err, errlen, "payload too large (over %llu bytes; limit max_payload_bytes)",
                         (unsigned long long)max_payload);
                    rc = 413;
                    goto out;
                }
                if (cz_base64_decode(json_string_value(v), n, &out->payload, &out->payload_len) != CZ_OK) {
                    errf(err, errlen, "field 'payload_b64' is not valid padded base64 (RFC 4648)");
                    goto out;
                }
            } else if (json_is_string(v)) {
                size_t n = json_string_length(v);
                out->payload = malloc(n ? n : 1);
                if (!out->payload) {
                    errf(err, errlen, "out of memory");
                    rc = 503;
                    goto out;
                }
                memcpy(out->payload, json_string_value(v), n);
                out->payload_len = n;
            } else {
                char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
                if (!s) {
                    errf(err, errlen, "field 'payload' cannot be serialized");
                    goto out;
                }
                out->payload = (uint8_t *)s;
                out->payload_len = strlen(s);
            }
            if (out->payload_len > max_payload) {
                errf(err, errlen, "payload of %zu bytes exceeds max_payload_bytes = %llu",
                     out->payload_len, (unsigned long long)max_payload);
                rc = 413;
                goto out;
            }
        } else if (!strcmp(key, "partitions")) {
            if (!json_is_integer(v)) {
                errf(err, errlen, "field 'partitions' must be an integer, got %s", json_type_name(v));
                goto out;
            }
            json_int_t p = json_integer_value(v);
            if (p < 1 || p > 65536) {
                errf(err, errlen, "field 'partitions' must be in 1..65536, got %lld", (long long)p);
                goto out;
            }
            out->partitions = (uint32_t)p;
        } else if (!strcmp(key, "priority")) {
            have_priority = true;
            if (!json_is_string(v) ||
                cz_priority_parse(json_string_value(v), &out->priority) != CZ_OK ||
                strlen(json_string_value(v)) != json_string_length(v)) {
                errf(err, errlen,
                     "field 'priority' must be one of \"low\", \"normal\", \"high\", \"critical\"");
                goto out;
            }
        } else if (!strcmp(key, "request_id")) {
            if (!json_is_string(v)) {
                errf(err, errlen, "field 'request_id' must be a string, got %s", json_type_name(v));
                goto out;
            }
            const char *s = json_string_value(v);
            size_t n = json_string_length(v);
            if (n == 0 || n > 255) {
                errf(err, errlen, "field 'request_id' must have 1..255 characters, got %zu", n);
                goto out;
            }
            for (size_t i = 0; i < n; i++)
                if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e) {
                    errf(err, errlen,
                         "field 'request_id' may hold printable ASCII only (no spaces), bad byte at "
                         "offset %zu",
                         i);
                    goto out;
                }
            memcpy(out->request_id, s, n);
            out->request_id[n] = 0;
        } else {
            char tmp[48];
            sanitize(tmp, sizeof tmp, key, strlen(key));
            errf(err, errlen,
                 "unknown field '%s' (known: circuit, payload, payload_b64, partitions, priority, "
                 "request_id)",
                 tmp);
            goto out;
        }
    }
    if (!out->circuit[0]) {
        errf(err, errlen, "missing field 'circuit'");
        goto out;
    }
    if (!have_payload) {
        errf(err, errlen, "missing field 'payload' (or 'payload_b64')");
        goto out;
    }
    if (!have_priority)
        out->priority = cz_api_default_priority(out->circuit);
    rc = 0;
out:
    json_decref(root);
    if (rc)
        cz_api_submit_free(out);
    return rc;
}

/* ---- responses -------------------------------------------------------- */

json_t *cz_api_json_text(const char *text)
{
    size_t n = strlen(text);
    char *t = malloc(n + 1);
    if (!t)
        return json_string("?");
    for (size_t i = 0; i <= n; i++) {
        unsigned char ch = (unsigned char)text[i];
        t[i] = (i == n || (ch >= 0x20 && ch < 0x7f)) ? (char)ch : '?';
    }
    json_t *j = json_string(t);
    free(t);
    return j;
}

json_t *cz_api_job_json(const cz_job_result *r, bool with_proof)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer((json_int_t)r->id));
    json_object_set_new(o, "state", json_string(cz_job_state_str(r->state)));
    json_object_set_new(o, "priority", json_string(cz_priority_str(r->priority)));
    json_object_set_new(o, "num_partitions", json_integer(r->num_partitions));
    json_object_set_new(o, "partitions_done", json_integer(r->partitions_done));
    json_object_set_new(o, "queued_ms", json_real(r->queued_ms));
    json_object_set_new(o, "total_ms", json_real(r->total_ms));
    if (r->state == CZ_JOB_FAILED || r->state == CZ_JOB_CANCELLED) {
        json_object_set_new(o, "status", json_string(cz_status_str(r->status)));
        json_object_set_new(o, "error", cz_api_json_text(r->error[0] ? r->error : cz_status_str(r->status)));
        if (r->failed_partition >= 0)
            json_object_set_new(o, "failed_partition", json_integer(r->failed_partition));
    }
    if (with_proof && r->proof) {
        size_t n = 0;
        char *b = NULL;
        if (cz_base64_encode(r->proof, r->proof_len, &b, &n) == CZ_OK) {
            json_object_set_new(o, "proof_b64", json_stringn(b, n));
            free(b);
        }
        json_object_set_new(o, "proof_len", json_integer((json_int_t)r->proof_len));
    }
    return o;
}

int cz_api_http_status(cz_status st)
{
    switch (st) {
    case CZ_OK: return 200;
    case CZ_ERR_INVALID_ARG:
    case CZ_ERR_FORMAT: return 400;
    case CZ_ERR_NOT_FOUND: return 404;
    case CZ_ERR_BUSY: return 409;
    case CZ_ERR_BUDGET: return 422;
    case CZ_ERR_CANCELLED: return 503;
    case CZ_ERR_NOMEM: return 503;
    case CZ_ERR_QUEUE_FULL: return 503; /* with Retry-After */
    case CZ_ERR_DEVICE: return 503;     /* a device failed: the work may succeed elsewhere */
    case CZ_ERR_UNSUPPORTED: return 501;
    default: return 500;
    }
}

int cz_api_await_answer(cz_status st, cz_job_id id, const cz_job_result *r, bool prove, char *err,
                        size_t errlen)
{
    unsigned long long n = (unsigned long long)id;
    if (st == CZ_ERR_NOT_FOUND) {
        if (prove)
            errf(err, errlen, "job %llu was pruned before it could be awaited", n);
        else
            errf(err, errlen, "unknown job %llu (never submitted, pruned, or submitted before a restart)", n);
        return 404;
    }
    if (st == CZ_ERR_TIMEOUT)
        return prove ? 202 : 200;
    bool done_no_proof = r && r->state == CZ_JOB_DONE && !r->proof;
    if (st == CZ_OK && !done_no_proof)
        return 200;
    if (done_no_proof)
        errf(err, errlen,
             "job %llu is done but its proof could not be copied for this answer (%s); the result is kept: "
             "fetch it with POST /v1/jobs/%llu/await",
             n, st == CZ_OK ? "no proof" : cz_status_str(st), n);
    else
        errf(err, errlen, "await of job %llu failed: %s", n, cz_status_str(st));
    return 500;
}

bool cz_api_priority_note(char *buf, size_t cap, const char *request_id, cz_job_id job, cz_priority kept,
                          cz_priority asked)
{
    if (cap)
        buf[0] = 0;
    if (kept == asked)
        return false;
    char rid[64];
    sanitize(rid, sizeof rid, request_id ? request_id : "", request_id ? strlen(request_id) : 0);
    errf(buf, cap,
         "request_id '%s' matches job %llu; priority unchanged (%s; '%s' applies only to a new job)",
         rid, (unsigned long long)job, cz_priority_str(kept), cz_priority_str(asked));
    return true;
}

static void lf_put(char *buf, size_t cap, size_t *off, char ch)
{
    if (*off + 1 < cap) {
        buf[*off] = ch;
        buf[*off + 1] = 0;
    }
    (*off)++;
}

void cz_api_logfmt(char *buf, size_t cap, size_t *off, const char *key, const char *value)
{
    if (!value)
        value = "";
    bool bare = *value != 0;
    for (const char *p = value; *p && bare; p++) {
        char ch = *p;
        bare = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
               ch == '.' || ch == '_' || ch == ':' || ch == '/' || ch == '+' || ch == '-';
    }
    lf_put(buf, cap, off, ' ');
    for (const char *p = key; *p; p++)
        lf_put(buf, cap, off, *p);
    lf_put(buf, cap, off, '=');
    if (!bare)
        lf_put(buf, cap, off, '"');
    for (const char *p = value; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '"' || ch == '\\')
            lf_put(buf, cap, off, '\\');
        lf_put(buf, cap, off, (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?');
    }
    if (!bare)
        lf_put(buf, cap, off, '"');
}

/* ---- listen addresses ------------------------------------------------- */

static bool parse_port(const char *s, unsigned *out)
{
    if (!*s || strlen(s) > 5)
        return false;
    unsigned v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (unsigned)(*s - '0');
    }
    if (v > 65535)
        return false;
    *out = v;
    return true;
}

bool cz_api_parse_listen(const char *s, cz_listen_addr *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!s || !*s) {
        errf(err, errlen, "empty listen address");
        return false;
    }
    const char *p = s;
    if (!strncmp(s, "unix:", 5) || s[0] == '/' || s[0] == '.') {
        if (!strncmp(s, "unix:", 5))
            p = s + 5;
        if (!*p || strlen(p) >= sizeof out->path) {
            errf(err, errlen, "unix socket path '%s' is empty or longer than %zu bytes", p,
                 sizeof out->path - 1);
            return false;
        }
        out->is_unix = true;
        out->loopback = true;
        snprintf(out->path, sizeof out->path, "%s", p);
        return true;
    }
    if (!strncmp(s, "tcp:", 4))
        p = s + 4;
    char host[256];
    const char *portstr;
    if (p[0] == '[') {
        const char *e = strchr(p, ']');
        if (!e || e[1] != ':' || (size_t)(e - p - 1) >= sizeof host) {
            errf(err, errlen, "bad listen address '%s' (expected [IPv6]:PORT)", s);
            return false;
        }
        memcpy(host, p + 1, (size_t)(e - p - 1));
        host[e - p - 1] = 0;
        portstr = e + 2;
    } else {
        const char *c = strrchr(p, ':');
        if (!c || (size_t)(c - p) >= sizeof host) {
            errf(err, errlen, "bad listen address '%s' (expected unix:/path, /path, HOST:PORT)", s);
            return false;
        }
        memcpy(host, p, (size_t)(c - p));
        host[c - p] = 0;
        portstr = c + 1;
    }
    if (!parse_port(portstr, &out->port)) {
        errf(err, errlen, "bad port in listen address '%s'", s);
        return false;
    }
    if (!strcasecmp(host, "localhost"))
        snprintf(host, sizeof host, "127.0.0.1");
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, host, &a4) == 1) {
        out->loopback = (ntohl(a4.s_addr) >> 24) == 127;
    } else if (inet_pton(AF_INET6, host, &a6) == 1) {
        out->loopback = IN6_IS_ADDR_LOOPBACK(&a6);
    } else {
        errf(err, errlen, "listen host '%s' must be a numeric IPv4/IPv6 address (or localhost)", host);
        return false;
    }
    snprintf(out->host, sizeof out->host, "%s", host);
    return true;
}

/* ---- auth ------------------------------------------------------------- */

bool cz_api_token_equal(const char *expected, size_t elen, const char *given, size_t glen)
{
    /* Walk the expected token in full whatever was presented; accumulate
     * differences with no data-dependent branch or early exit. */
    volatile unsigned char diff = (unsigned char)(elen != glen) | (unsigned char)(elen == 0);
    for (size_t i = 0; i < elen; i++) {
        size_t gi = glen ? i % glen : 0;
        unsigned char g = glen ? (unsigned char)given[gi] : 0;
        diff |= (unsigned char)(expected[i] ^ g);
    }
    return diff == 0;
}

bool cz_api_bearer(const char *h, const char **tok, size_t *toklen)
{
    if (!h || strncasecmp(h, "Bearer ", 7))
        return false;
    h += 7;
    while (*h == ' ')
        h++;
    size_t n = strlen(h);
    while (n && (h[n - 1] == ' ' || h[n - 1] == '\t'))
        n--;
    if (!n)
        return false;
    *tok = h;
    *toklen = n;
    return true;
}
