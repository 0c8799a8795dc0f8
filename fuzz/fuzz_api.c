/*
 * libFuzzer: cuzkd request parsing and validation (src/daemon/api.c), not
 * the network. Input: "<method> <path>\n<body>". Every parser runs on the
 * pieces; invariants that must hold for accepted input are checked:
 *  - a matched route has a valid id/name (re-validated independently);
 *  - an accepted submit has a valid circuit id, partitions in 1..65536,
 *    a payload within the limit;
 *  - base64 decoding accepts only canonical text (encode(decode(x)) == x).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "invariant violated: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = 0;
    char *nl = memchr(s, '\n', size);
    const char *body = nl ? nl + 1 : "";
    size_t blen = nl ? size - (size_t)(nl + 1 - s) : 0;
    if (nl)
        *nl = 0;
    /* the request line, as C strings (the server gets NUL-free strings) */
    char *sp = strchr(s, ' ');
    const char *method = s, *path = "/";
    if (sp) {
        *sp = 0;
        path = sp + 1;
    }
    char err[256];
    cz_api_target t;
    int rc = cz_api_match(method, path, &t, err, sizeof err);
    if (rc == 0) {
        check(t.route != CZ_API_NONE, "match without route");
        if (t.route == CZ_API_JOB || t.route == CZ_API_AWAIT || t.route == CZ_API_CANCEL)
            check(t.job != 0, "job id 0 accepted");
        if (t.route == CZ_API_PRELOAD || t.route == CZ_API_EVICT) {
            check(cz_api_name_ok(t.name, strlen(t.name)), "bad name accepted");
            check(!strchr(t.name, '/') && !strstr(t.name, ".."), "path-like name accepted");
        }
    } else {
        check(rc >= 400 && rc < 500, "bad status");
        check(strlen(err) > 0, "error without message");
    }

    cz_api_submit sub;
    rc = cz_api_parse_submit(body, blen, 1u << 16, &sub, err, sizeof err);
    if (rc == 0) {
        check(cz_api_name_ok(sub.circuit, strlen(sub.circuit)), "bad circuit accepted");
        check(sub.partitions >= 1 && sub.partitions <= 65536, "partitions out of range");
        check(sub.payload_len <= (1u << 16), "payload over limit");
        check(sub.priority <= CZ_PRIO_CRITICAL, "bad priority");
        if (sub.payload_len)
            check(sub.payload != NULL, "payload pointer");
        cz_api_submit_free(&sub);
    } else {
        check(rc == 400 || rc == 413 || rc == 503, "bad submit status");
        check(strlen(err) > 0, "submit error without message");
    }

    uint64_t ms;
    if (cz_api_parse_ms(body, 5, 1000, &ms, err, sizeof err) == 0)
        check(ms <= 1000, "timeout over cap");

    uint8_t *dec;
    size_t dlen;
    if (cz_base64_decode(body, blen, &dec, &dlen) == CZ_OK) {
        size_t elen = 0;
        char *enc = NULL;
        check(cz_base64_encode(dec, dlen, &enc, &elen) == CZ_OK, "base64 encode failed");
        check(enc && elen == blen && !memcmp(enc, body, blen), "base64 not canonical");
        free(enc);
        free(dec);
    }

    cz_listen_addr la;
    if (cz_api_parse_listen(path, &la, err, sizeof err))
        check(la.is_unix ? la.path[0] != 0 : la.port <= 65535, "listen parse");

    json_t *jt = cz_api_json_text(body);
    check(jt != NULL, "message text not representable");
    json_decref(jt);

    const char *tok;
    size_t tl;
    if (cz_api_bearer(path, &tok, &tl))
        (void)cz_api_token_equal("expected-token", 14, tok, tl);
    free(s);
    return 0;
}
