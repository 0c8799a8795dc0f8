/*
 * The JSON documents behind cuzkd's status page (see status_page.h and
 * docs/api.md). The page itself is status_page.html, embedded by the build.
 */
#include "daemon/status_page.h"

#include <stdlib.h>
#include <string.h>

static int load_cmp(const void *a, const void *b)
{
    return strcmp(((const cz_engine_circuit_load *)a)->circuit_id,
                  ((const cz_engine_circuit_load *)b)->circuit_id);
}

static int params_cmp(const void *a, const void *b)
{
    return strcmp(((const cz_engine_params_info *)a)->circuit_id,
                  ((const cz_engine_params_info *)b)->circuit_id);
}

/* The circuits with unfinished jobs. The engine fills at most cap entries
 * and does not say how many there were, so grow until one is left over. */
static json_t *circuits_json(cz_engine *e)
{
    size_t cap = 32;
    cz_engine_circuit_load *ld = NULL;
    size_t n;
    for (;;) {
        cz_engine_circuit_load *nl = realloc(ld, cap * sizeof *ld);
        if (!nl) {
            free(ld);
            return NULL;
        }
        ld = nl;
        n = cz_engine_circuit_loads(e, ld, cap);
        if (n < cap || cap >= 65536)
            break;
        cap *= 2;
    }
    qsort(ld, n, sizeof *ld, load_cmp);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "circuit", json_string(ld[i].circuit_id));
        json_object_set_new(o, "queued", json_integer(ld[i].queued));
        json_object_set_new(o, "running", json_integer(ld[i].running));
        json_t *p = json_object();
        for (int k = CZ_PRIO_LOW; k <= CZ_PRIO_CRITICAL; k++)
            json_object_set_new(p, cz_priority_str((cz_priority)k), json_integer(ld[i].queued_by_priority[k]));
        json_object_set_new(o, "queued_by_priority", p);
        json_array_append_new(a, o);
    }
    free(ld);
    return a;
}

static json_t *params_json(cz_engine *e)
{
    size_t n = cz_engine_params_list(e, NULL, 0);
    cz_engine_params_info *pi = calloc(n + 8, sizeof *pi); /* a few may appear meanwhile */
    if (!pi)
        return NULL;
    size_t got = cz_engine_params_list(e, pi, n + 8);
    if (got > n + 8)
        got = n + 8;
    qsort(pi, got, sizeof *pi, params_cmp);
    json_t *a = json_array();
    for (size_t i = 0; i < got; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "circuit", json_string(pi[i].circuit_id));
        json_object_set_new(o, "resident", json_boolean(pi[i].resident));
        json_object_set_new(o, "bytes", json_integer((json_int_t)pi[i].bytes));
        json_object_set_new(o, "refs", json_integer(pi[i].refs));
        json_object_set_new(o, "idle_ms", json_integer((json_int_t)pi[i].idle_ms));
        json_array_append_new(a, o);
    }
    free(pi);
    return a;
}

json_t *cz_daemon_status_json(cz_engine *e, const cz_daemon_facts *f)
{
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    size_t need = cz_engine_status_json(&st, NULL, 0);
    char *buf = malloc(need + 1);
    if (!buf)
        return NULL;
    cz_engine_status_json(&st, buf, need + 1);
    json_t *eng = json_loads(buf, 0, NULL);
    free(buf);
    json_t *o = json_object();
    json_t *dm = json_object();
    json_object_set_new(dm, "address", json_string(f->address));
    json_object_set_new(dm, "backend", json_string(f->backend));
    json_object_set_new(dm, "version", json_string(f->version));
    json_object_set_new(dm, "uptime_ms", json_integer((json_int_t)f->uptime_ms));
    json_object_set_new(dm, "http_requests", json_integer((json_int_t)f->http_requests));
    json_object_set_new(dm, "token_required", json_boolean(f->token_required));
    json_object_set_new(o, "daemon", dm);
    json_object_set_new(o, "engine", eng ? eng : json_null());
    json_t *c = circuits_json(e);
    json_object_set_new(o, "circuits", c ? c : json_array());
    json_t *p = params_json(e);
    json_object_set_new(o, "params", p ? p : json_array());
    return o;
}

/* When a record left the pipeline: its last stage time reached. */
static double rec_end(const cz_engine_part_record *r)
{
    double t = r->reserve_ms;
    const double v[] = {r->synth_start_ms, r->synth_end_ms, r->prove_start_ms,
                        r->prove_end_ms,   r->finish_start_ms, r->finish_end_ms};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i] > t)
            t = v[i];
    return t;
}

json_t *cz_daemon_timeline_json(cz_engine *e, uint64_t since_ms, size_t limit)
{
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    size_t n = cz_engine_get_records(e, NULL, 0);
    cz_engine_part_record *r = n ? malloc(n * sizeof *r) : NULL;
    if (n && !r)
        return NULL;
    if (n) {
        size_t got = cz_engine_get_records(e, r, n); /* oldest first; may have grown */
        if (got < n)
            n = got;
    }
    /* The newest `limit` records that ended at or after since_ms. The ring
     * is in retirement order, which is end order up to threads racing by a
     * few microseconds, so walking back to the first older record is exact
     * enough; the page asks with a few seconds of overlap anyway. */
    size_t first = n, kept = 0;
    bool truncated = false;
    while (first > 0 && rec_end(&r[first - 1]) >= (double)since_ms) {
        if (kept == limit) {
            truncated = true;
            break;
        }
        first--;
        kept++;
    }
    json_t *a = json_array();
    for (size_t i = first; i < n; i++) {
        const cz_engine_part_record *x = &r[i];
        json_t *o = json_object();
        json_object_set_new(o, "job", json_integer((json_int_t)x->job));
        json_object_set_new(o, "partition", json_integer(x->partition));
        json_object_set_new(o, "status", json_string(x->status == CZ_OK ? "ok" : cz_status_str(x->status)));
        json_object_set_new(o, "reserve_ms", json_real(x->reserve_ms));
        json_object_set_new(o, "synth_start_ms", json_real(x->synth_start_ms));
        json_object_set_new(o, "synth_end_ms", json_real(x->synth_end_ms));
        json_object_set_new(o, "prove_start_ms", json_real(x->prove_start_ms));
        json_object_set_new(o, "prove_end_ms", json_real(x->prove_end_ms));
        json_object_set_new(o, "device_ms", json_real(x->device_ms));
        json_object_set_new(o, "finish_start_ms", json_real(x->finish_start_ms));
        json_object_set_new(o, "finish_end_ms", json_real(x->finish_end_ms));
        json_object_set_new(o, "end_ms", json_real(rec_end(x)));
        json_object_set_new(o, "device", json_integer(x->device));
        json_array_append_new(a, o);
    }
    free(r);
    json_t *o = json_object();
    json_object_set_new(o, "now_ms", json_integer((json_int_t)st.uptime_ms));
    json_object_set_new(o, "since_ms", json_integer((json_int_t)since_ms));
    json_object_set_new(o, "truncated", json_boolean(truncated));
    json_object_set_new(o, "records", a);
    return o;
}
