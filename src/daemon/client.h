/*
 * A minimal HTTP/1.1 client for cuzkd (unix socket or TCP), used by
 * `cuzk client`, the batch benchmark and the daemon tests. One request per
 * connection ("Connection: close"); the whole response is read into memory.
 */
#ifndef CZ_DAEMON_CLIENT_H
#define CZ_DAEMON_CLIENT_H

#include <stddef.h>
#include "cuzk/common.h"

typedef struct {
    int status;   /* HTTP status code */
    char *body;   /* NUL-terminated (malloc'd; may be "" ) */
    size_t len;
} cz_http_response;

/* address: as daemon.listen ("unix:/p", "/p", "HOST:PORT", "[V6]:PORT").
 * token: NULL or the bearer token. timeout_ms bounds the whole exchange
 * (< 0: none). CZ_ERR_IO: cannot connect/send/receive; CZ_ERR_TIMEOUT;
 * CZ_ERR_FORMAT: not an HTTP response. Every err message names the
 * address, so callers print it as it is (adding it again repeats it). */
CZ_WUR cz_status cz_http_call(const char *address, const char *token, const char *method, const char *path,
                              const void *body, size_t len, int timeout_ms, cz_http_response *out,
                              cz_errbuf *err);
/* Sends raw bytes (any request, well-formed or not) and reads the reply. */
CZ_WUR cz_status cz_http_raw(const char *address, const void *req, size_t len, int timeout_ms,
                             cz_http_response *out, cz_errbuf *err);
void cz_http_response_free(cz_http_response *r);
/* Connected socket to address, or -1 (err filled). */
int cz_http_connect(const char *address, cz_errbuf *err);

#endif
