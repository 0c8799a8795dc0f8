/*
 * cuzkd's live status page (GET /) and the JSON it reads: the extended
 * /v1/status document and /v1/timeline (recent partition records). The
 * builders are plain functions of engine snapshots, kept out of server.c so
 * the HTTP plumbing and the document shapes (docs/api.md) stay apart.
 */
#ifndef CZ_DAEMON_STATUS_PAGE_H
#define CZ_DAEMON_STATUS_PAGE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "cuzk/engine.h"

/* src/daemon/status_page.html, embedded at build time (status_page.cmake):
 * the bytes of the file, NOT NUL-terminated, length in _len. */
extern const unsigned char cz_status_page_html[];
extern const size_t cz_status_page_html_len;

/* What the daemon adds to the engine's facts in /v1/status. */
typedef struct {
    const char *address, *backend, *version;
    uint64_t uptime_ms;
    uint64_t http_requests;
    bool token_required;
} cz_daemon_facts;

/* {"daemon": {...facts}, "engine": {cz_engine_status_json},
 *  "circuits": [{"circuit", "queued", "running", "queued_by_priority": {...}}],
 *  "params": [{"circuit", "resident", "bytes", "refs", "idle_ms"}]}
 * Every duration is in milliseconds (names end in _ms). NULL on OOM. */
json_t *cz_daemon_status_json(cz_engine *e, const cz_daemon_facts *f);

/* {"now_ms", "since_ms", "truncated", "records": [...]}: the partition
 * records (engine-start milliseconds) that ended at or after since_ms,
 * the newest `limit` of them, oldest first. NULL on OOM. */
json_t *cz_daemon_timeline_json(cz_engine *e, uint64_t since_ms, size_t limit);

#endif
