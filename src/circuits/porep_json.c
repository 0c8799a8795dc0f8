/*
 * Vanilla proofs of the PoRep-shaped circuit as JSON (docs/vanilla-proof.md).
 *
 *   {
 *     "format": "cuzk-porep-vanilla", "version": 1,
 *     "preset": "shaped-14",
 *     "params": { "log_domain": 14, "log_nodes": 6, "layers": 3,
 *                 "base_parents": 2, "exp_parents": 2, "challenges": 2,
 *                 "tree_d_arity": 8, "tree_c_arity": 8, "tree_r_arity": 8,
 *                 "hash": "poseidon", "graph_seed": "<u64 decimal>" },
 *     "sector_seed": "<u64 decimal>", "challenge_seed": "<u64 decimal>",
 *     "replica_id": FR, "comm_d": FR, "comm_c": FR, "comm_r_last": FR, "comm_r": FR,
 *     "num_partitions": N,
 *     "partitions": [ { "challenges": [ {
 *         "index": i, "data": FR, "data_path": [FR...],
 *         "labels": [FR × L], "column_path": [FR...],
 *         "replica": FR, "replica_path": [FR...],
 *         "parents": [ { "index": q, "labels": [FR × L], "path": [FR...] } × P ]
 *     } × C ] } × N ]
 *   }
 *
 * FR = a string of exactly 64 hex digits: the 32-byte little-endian
 * canonical encoding of an Fr element (Filecoin's convention for comm_d,
 * comm_r, replica id; docs/design.md §5a). Values >= r are refused, never
 * reduced. The params object must equal the named preset's (a file made
 * with other parameters is refused rather than misread). Paths list the
 * arity − 1 siblings per level from the leaves up (cuzk/merkle.h).
 *
 * The parser uses jansson (duplicate keys rejected) and reports the first
 * problem with its JSON path, e.g. "partitions[1].challenges[0].labels[2]:
 * value >= r (not canonical)". Unknown keys are ignored. For SHA-256
 * presets, data, data_path elements and every label must also be below
 * 2^254 (the SHA-256 gadgets decompose them into 254 bits).
 */
#include "circuits/porep_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_NAME "cuzk-porep-vanilla"
#define FORMAT_VERSION 1

/* ---- writer ---------------------------------------------------------------------------- */
static json_t *fr_json(const cz_fr *a)
{
    uint8_t b[32];
    char hex[65];
    cz_fr_to_bytes_le(b, a);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", b[i]);
    return json_string(hex);
}

static json_t *fr_array(const cz_fr *a, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, fr_json(&a[i])) != 0) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

static json_t *u64_json(uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%" PRIu64, v);
    return json_string(b);
}

/* Each json_object_set_new / append steals the reference even on failure;
 * a NULL value makes it fail, which we count. */
#define SET(obj, key, val) (fails += json_object_set_new((obj), (key), (val)) != 0)
#define APP(arr, val) (fails += json_array_append_new((arr), (val)) != 0)

cz_status cz_porep_vanilla_to_json(const cz_porep_vanilla *v, char **out, size_t *len)
{
    if (!v || !out)
        return CZ_ERR_INVALID_ARG;
    *out = NULL;
    const cz_porep_params *p = &v->params;
    unsigned L = p->layers, np = cz_porep_num_parents(p);
    size_t pd = cz_porep_path_len(p, p->tree_d_arity), pc = cz_porep_path_len(p, p->tree_c_arity),
           pr = cz_porep_path_len(p, p->tree_r_arity);
    int fails = 0;
    json_t *root = json_object(), *params = json_object(), *parts = json_array();
    if (!root || !params || !parts) {
        json_decref(root);
        json_decref(params);
        json_decref(parts);
        return CZ_ERR_NOMEM;
    }
    SET(root, "format", json_string(FORMAT_NAME));
    SET(root, "version", json_integer(FORMAT_VERSION));
    SET(root, "preset", json_string(p->name));
    SET(params, "log_domain", json_integer(p->log_domain));
    SET(params, "log_nodes", json_integer(p->log_nodes));
    SET(params, "layers", json_integer(p->layers));
    SET(params, "base_parents", json_integer(p->base_parents));
    SET(params, "exp_parents", json_integer(p->exp_parents));
    SET(params, "challenges", json_integer(p->challenges));
    SET(params, "tree_d_arity", json_integer(p->tree_d_arity));
    SET(params, "tree_c_arity", json_integer(p->tree_c_arity));
    SET(params, "tree_r_arity", json_integer(p->tree_r_arity));
    SET(params, "hash", json_string(p->hash == CZ_POREP_SHA256 ? "sha256" : "poseidon"));
    SET(params, "graph_seed", u64_json(p->graph_seed));
    SET(root, "params", params);
    SET(root, "sector_seed", u64_json(v->sector_seed));
    SET(root, "challenge_seed", u64_json(v->challenge_seed));
    SET(root, "replica_id", fr_json(&v->replica_id));
    SET(root, "comm_d", fr_json(&v->comm_d));
    SET(root, "comm_c", fr_json(&v->comm_c));
    SET(root, "comm_r_last", fr_json(&v->comm_r_last));
    SET(root, "comm_r", fr_json(&v->comm_r));
    SET(root, "num_partitions", json_integer((json_int_t)v->n_partitions));
    for (size_t part = 0; part < v->n_partitions && !fails; part++) {
        json_t *po = json_object(), *chs = json_array();
        for (unsigned c = 0; c < p->challenges && chs; c++) {
            const cz_porep_challenge_proof *cp = cz_porep_vanilla_challenge(v, part, c);
            json_t *co = json_object(), *pars = json_array();
            if (co) {
                SET(co, "index", json_integer((json_int_t)cp->index));
                SET(co, "data", fr_json(&cp->data));
                SET(co, "data_path", fr_array(cp->data_path, pd));
                SET(co, "labels", fr_array(cp->labels, L));
                SET(co, "column_path", fr_array(cp->column_path, pc));
                SET(co, "replica", fr_json(&cp->replica));
                SET(co, "replica_path", fr_array(cp->replica_path, pr));
            }
            for (unsigned j = 0; j < np && pars; j++) {
                json_t *pj = json_object();
                if (pj) {
                    SET(pj, "index", json_integer((json_int_t)cp->parents[j]));
                    SET(pj, "labels", fr_array(&cp->parent_labels[(size_t)j * L], L));
                    SET(pj, "path", fr_array(&cp->parent_paths[(size_t)j * pc], pc));
                }
                APP(pars, pj);
            }
            if (co)
                SET(co, "parents", pars);
            else
                json_decref(pars);
            APP(chs, co);
        }
        if (po)
            SET(po, "challenges", chs);
        else
            json_decref(chs);
        APP(parts, po);
    }
    SET(root, "partitions", parts);
    char *s = fails ? NULL : json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!s)
        return CZ_ERR_NOMEM;
    *out = s;
    if (len)
        *len = strlen(s);
    return CZ_OK;
}
#undef SET
#undef APP

cz_status cz_porep_vanilla_save(const cz_porep_vanilla *v, const char *path, cz_errbuf *err)
{
    char *s = NULL;
    size_t n = 0;
    cz_status st = cz_porep_vanilla_to_json(v, &s, &n);
    if (st != CZ_OK)
        return cz_err(err, st, "vanilla proof: cannot serialise (%s)", cz_status_str(st));
    FILE *f = fopen(path, "wb");
    if (!f) {
        int e = errno;
        free(s);
        return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(e));
    }
    bool ok = fwrite(s, 1, n, f) == n && fputc('\n', f) != EOF;
    ok = (fclose(f) == 0) && ok;
    free(s);
    if (!ok)
        return cz_err(err, CZ_ERR_IO, "%s: write failed", path);
    return CZ_OK;
}

/* ---- parser ------------------------------------------------------------------------------ */
typedef struct {
    cz_errbuf *err;
    char where[160]; /* JSON path of the object being read */
} pctx;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static cz_status perr(pctx *c, cz_status st, const char *fmt, ...)
{
    char m[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    /* m is "key: problem", or ": problem" about the object at c->where */
    return cz_err(c->err, st, "vanilla proof: %s%s%s", c->where, c->where[0] && m[0] != ':' ? "." : "", m);
}

static cz_status get(pctx *c, json_t *obj, const char *key, json_t **out)
{
    *out = json_object_get(obj, key);
    if (!*out)
        return perr(c, CZ_ERR_FORMAT, "%s: missing", key);
    return CZ_OK;
}

/* name: the field name for messages (key or key[i]) */
static cz_status parse_fr(pctx *c, json_t *j, const char *name, cz_fr *out)
{
    if (!json_is_string(j))
        return perr(c, CZ_ERR_FORMAT, "%s: not a string (expected 64 hex digits)", name);
    const char *s = json_string_value(j);
    if (json_string_length(j) != 64)
        return perr(c, CZ_ERR_FORMAT, "%s: %zu characters, expected 64 hex digits (32 bytes LE)",
                    name, json_string_length(j));
    uint8_t b[32];
    for (int i = 0; i < 64; i++) {
        char ch = s[i];
        int d = ch >= '0' && ch <= '9'   ? ch - '0'
                : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                         : -1;
        if (d < 0)
            return perr(c, CZ_ERR_FORMAT, "%s: character %d is not a hex digit", name, i);
        if (i % 2 == 0)
            b[i / 2] = (uint8_t)(d << 4);
        else
            b[i / 2] |= (uint8_t)d;
    }
    if (cz_fr_from_bytes_le(out, b) != CZ_OK)
        return perr(c, CZ_ERR_NOT_CANONICAL, "%s: value >= r (not canonical)", name);
    return CZ_OK;
}

static cz_status parse_fr_key(pctx *c, json_t *obj, const char *key, cz_fr *out)
{
    json_t *j;
    cz_status s = get(c, obj, key, &j);
    return s != CZ_OK ? s : parse_fr(c, j, key, out);
}

static cz_status parse_fr_array(pctx *c, json_t *obj, const char *key, cz_fr *out, size_t n,
                                const char *what)
{
    json_t *a;
    cz_status s = get(c, obj, key, &a);
    if (s != CZ_OK)
        return s;
    if (!json_is_array(a))
        return perr(c, CZ_ERR_FORMAT, "%s: not an array", key);
    if (json_array_size(a) != n)
        return perr(c, CZ_ERR_FORMAT, "%s: %zu elements, expected %zu (%s)", key, json_array_size(a),
                    n, what);
    char name[64];
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s[%zu]", key, i);
        if ((s = parse_fr(c, json_array_get(a, i), name, &out[i])) != CZ_OK)
            return s;
    }
    return CZ_OK;
}

static cz_status parse_uint(pctx *c, json_t *obj, const char *key, uint64_t max, uint64_t *out)
{
    json_t *j;
    cz_status s = get(c, obj, key, &j);
    if (s != CZ_OK)
        return s;
    if (!json_is_integer(j))
        return perr(c, CZ_ERR_FORMAT, "%s: not an integer", key);
    json_int_t v = json_integer_value(j);
    if (v < 0 || (uint64_t)v > max)
        return perr(c, CZ_ERR_FORMAT, "%s: %lld out of range 0..%llu", key, (long long)v,
                    (unsigned long long)max);
    *out = (uint64_t)v;
    return CZ_OK;
}

static cz_status parse_u64_str(pctx *c, json_t *obj, const char *key, uint64_t *out)
{
    json_t *j;
    cz_status s = get(c, obj, key, &j);
    if (s != CZ_OK)
        return s;
    if (!json_is_string(j))
        return perr(c, CZ_ERR_FORMAT, "%s: not a string (expected a u64 in decimal)", key);
    const char *str = json_string_value(j);
    size_t n = json_string_length(j);
    if (n == 0 || n > 20)
        return perr(c, CZ_ERR_FORMAT, "%s: not a u64 in decimal", key);
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (str[i] < '0' || str[i] > '9')
            return perr(c, CZ_ERR_FORMAT, "%s: not a u64 in decimal", key);
        unsigned d = (unsigned)(str[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return perr(c, CZ_ERR_FORMAT, "%s: exceeds 2^64 - 1", key);
        v = v * 10 + d;
    }
    *out = v;
    return CZ_OK;
}

static bool below_2_254(const cz_fr *a)
{
    uint64_t raw[4];
    cz_fr_to_raw(raw, a);
    return (raw[3] >> 62) == 0;
}

static cz_status check_params(pctx *c, json_t *root, const cz_porep_params *p)
{
    json_t *pj;
    cz_status s = get(c, root, "params", &pj);
    if (s != CZ_OK)
        return s;
    if (!json_is_object(pj))
        return perr(c, CZ_ERR_FORMAT, "params: not an object");
    static const char *keys[] = {"log_domain",   "log_nodes",    "layers",      "base_parents",
                                 "exp_parents",  "challenges",   "tree_d_arity", "tree_c_arity",
                                 "tree_r_arity"};
    unsigned want[] = {p->log_domain,   p->log_nodes,    p->layers,
                       p->base_parents, p->exp_parents,  p->challenges,
                       p->tree_d_arity, p->tree_c_arity, p->tree_r_arity};
    snprintf(c->where, sizeof c->where, "params");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        uint64_t v;
        if ((s = parse_uint(c, pj, keys[i], UINT32_MAX, &v)) != CZ_OK)
            return s;
        if (v != want[i])
            return perr(c, CZ_ERR_MISMATCH, "%s: %llu, preset %s has %u", keys[i],
                        (unsigned long long)v, p->name, want[i]);
    }
    json_t *h;
    if ((s = get(c, pj, "hash", &h)) != CZ_OK)
        return s;
    const char *hw = p->hash == CZ_POREP_SHA256 ? "sha256" : "poseidon";
    if (!json_is_string(h) || strcmp(json_string_value(h), hw) != 0)
        return perr(c, CZ_ERR_MISMATCH, "hash: preset %s uses \"%s\"", p->name, hw);
    uint64_t gs;
    if ((s = parse_u64_str(c, pj, "graph_seed", &gs)) != CZ_OK)
        return s;
    if (gs != p->graph_seed)
        return perr(c, CZ_ERR_MISMATCH, "graph_seed: differs from preset %s", p->name);
    c->where[0] = 0;
    return CZ_OK;
}

static cz_status parse_challenge(pctx *c, json_t *co, const cz_porep_params *p,
                                 cz_porep_challenge_proof *cp)
{
    unsigned L = p->layers, np = cz_porep_num_parents(p);
    uint64_t n = 1ull << p->log_nodes;
    size_t pd = cz_porep_path_len(p, p->tree_d_arity), pc = cz_porep_path_len(p, p->tree_c_arity),
           pr = cz_porep_path_len(p, p->tree_r_arity);
    char what[96];
    cz_status s;
    if (!json_is_object(co))
        return perr(c, CZ_ERR_FORMAT, ": not an object");
    if ((s = parse_uint(c, co, "index", n - 1, &cp->index)) != CZ_OK)
        return s;
    if (cp->index == 0)
        return perr(c, CZ_ERR_FORMAT, "index: 0 (challenges lie in 1..%llu)",
                    (unsigned long long)(n - 1));
    if ((s = parse_fr_key(c, co, "data", &cp->data)) != CZ_OK)
        return s;
    if (p->hash == CZ_POREP_SHA256 && !below_2_254(&cp->data))
        return perr(c, CZ_ERR_FORMAT, "data: not below 2^254 (SHA-256 tree_d leaf)");
    snprintf(what, sizeof what, "tree_d depth %u x (arity %u - 1)", cz_porep_depth(p, p->tree_d_arity),
             p->tree_d_arity);
    if ((s = parse_fr_array(c, co, "data_path", cp->data_path, pd, what)) != CZ_OK)
        return s;
    if (p->hash == CZ_POREP_SHA256)
        for (size_t i = 0; i < pd; i++)
            if (!below_2_254(&cp->data_path[i]))
                return perr(c, CZ_ERR_FORMAT, "data_path[%zu]: not below 2^254 (SHA-256 node)", i);
    if ((s = parse_fr_array(c, co, "labels", cp->labels, L, "one label per layer")) != CZ_OK)
        return s;
    if (p->hash == CZ_POREP_SHA256)
        for (unsigned l = 0; l < L; l++)
            if (!below_2_254(&cp->labels[l]))
                return perr(c, CZ_ERR_FORMAT, "labels[%u]: not below 2^254 (SHA-256 label)", l);
    snprintf(what, sizeof what, "tree_c depth %u x (arity %u - 1)", cz_porep_depth(p, p->tree_c_arity),
             p->tree_c_arity);
    if ((s = parse_fr_array(c, co, "column_path", cp->column_path, pc, what)) != CZ_OK)
        return s;
    if ((s = parse_fr_key(c, co, "replica", &cp->replica)) != CZ_OK)
        return s;
    char what_r[96];
    snprintf(what_r, sizeof what_r, "tree_r depth %u x (arity %u - 1)",
             cz_porep_depth(p, p->tree_r_arity), p->tree_r_arity);
    if ((s = parse_fr_array(c, co, "replica_path", cp->replica_path, pr, what_r)) != CZ_OK)
        return s;
    json_t *pa;
    if ((s = get(c, co, "parents", &pa)) != CZ_OK)
        return s;
    if (!json_is_array(pa))
        return perr(c, CZ_ERR_FORMAT, "parents: not an array");
    if (json_array_size(pa) != np)
        return perr(c, CZ_ERR_FORMAT, "parents: %zu entries, expected %u (base %u + expander %u)",
                    json_array_size(pa), np, p->base_parents, p->exp_parents);
    size_t base_len = strlen(c->where);
    for (unsigned j = 0; j < np; j++) {
        snprintf(c->where + base_len, sizeof c->where - base_len, ".parents[%u]", j);
        json_t *pj = json_array_get(pa, j);
        if (!json_is_object(pj))
            return perr(c, CZ_ERR_FORMAT, ": not an object");
        if ((s = parse_uint(c, pj, "index", n - 1, &cp->parents[j])) != CZ_OK)
            return s;
        if ((s = parse_fr_array(c, pj, "labels", &cp->parent_labels[(size_t)j * L], L,
                                "one label per layer")) != CZ_OK)
            return s;
        if (p->hash == CZ_POREP_SHA256)
            for (unsigned l = 0; l < L; l++)
                if (!below_2_254(&cp->parent_labels[(size_t)j * L + l]))
                    return perr(c, CZ_ERR_FORMAT, "labels[%u]: not below 2^254 (SHA-256 label)", l);
        if ((s = parse_fr_array(c, pj, "path", &cp->parent_paths[(size_t)j * pc], pc, what)) != CZ_OK)
            return s;
    }
    c->where[base_len] = 0;
    return CZ_OK;
}

cz_status cz_porep_vanilla_parse(cz_porep_vanilla **out, const char *json, size_t len, cz_errbuf *err)
{
    if (!out)
        return cz_err(err, CZ_ERR_INVALID_ARG, "vanilla proof: out is NULL");
    *out = NULL;
    if (!json)
        return cz_err(err, CZ_ERR_INVALID_ARG, "vanilla proof: no input");
    json_error_t je;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return cz_err(err, CZ_ERR_FORMAT, "vanilla proof: invalid JSON at line %d column %d: %s",
                      je.line, je.column, je.text);
    pctx c = {.err = err, .where = ""};
    cz_porep_vanilla *v = NULL;
    cz_status s = CZ_OK;
    json_t *j;
    if (!json_is_object(root)) {
        s = perr(&c, CZ_ERR_FORMAT, "top level: not an object");
        goto done;
    }
    if ((s = get(&c, root, "format", &j)) != CZ_OK)
        goto done;
    if (!json_is_string(j) || strcmp(json_string_value(j), FORMAT_NAME) != 0) {
        s = perr(&c, CZ_ERR_FORMAT, "format: expected \"%s\"", FORMAT_NAME);
        goto done;
    }
    uint64_t u;
    if ((s = parse_uint(&c, root, "version", UINT32_MAX, &u)) != CZ_OK)
        goto done;
    if (u != FORMAT_VERSION) {
        s = perr(&c, CZ_ERR_FORMAT, "version: %llu, this build reads version %d",
                 (unsigned long long)u, FORMAT_VERSION);
        goto done;
    }
    if ((s = get(&c, root, "preset", &j)) != CZ_OK)
        goto done;
    if (!json_is_string(j)) {
        s = perr(&c, CZ_ERR_FORMAT, "preset: not a string");
        goto done;
    }
    const cz_porep_params *p = cz_porep_preset_get(json_string_value(j));
    if (!p) {
        s = perr(&c, CZ_ERR_NOT_FOUND, "preset: unknown preset \"%.40s\"", json_string_value(j));
        goto done;
    }
    if ((s = check_params(&c, root, p)) != CZ_OK)
        goto done;
    uint64_t nparts;
    if ((s = parse_uint(&c, root, "num_partitions", CZ_POREP_MAX_PARTITIONS, &nparts)) != CZ_OK)
        goto done;
    if (nparts == 0) {
        s = perr(&c, CZ_ERR_FORMAT, "num_partitions: 0 (at least 1)");
        goto done;
    }
    json_t *parts;
    if ((s = get(&c, root, "partitions", &parts)) != CZ_OK)
        goto done;
    if (!json_is_array(parts)) {
        s = perr(&c, CZ_ERR_FORMAT, "partitions: not an array");
        goto done;
    }
    if (json_array_size(parts) != nparts) {
        s = perr(&c, CZ_ERR_FORMAT, "partitions: %zu entries, num_partitions says %llu",
                 json_array_size(parts), (unsigned long long)nparts);
        goto done;
    }
    if ((s = cz_porep_vanilla_alloc_(&v, p, nparts)) != CZ_OK) {
        s = perr(&c, s, "out of memory for %llu partitions", (unsigned long long)nparts);
        goto done;
    }
    if ((s = parse_u64_str(&c, root, "sector_seed", &v->sector_seed)) != CZ_OK ||
        (s = parse_u64_str(&c, root, "challenge_seed", &v->challenge_seed)) != CZ_OK ||
        (s = parse_fr_key(&c, root, "replica_id", &v->replica_id)) != CZ_OK ||
        (s = parse_fr_key(&c, root, "comm_d", &v->comm_d)) != CZ_OK ||
        (s = parse_fr_key(&c, root, "comm_c", &v->comm_c)) != CZ_OK ||
        (s = parse_fr_key(&c, root, "comm_r_last", &v->comm_r_last)) != CZ_OK ||
        (s = parse_fr_key(&c, root, "comm_r", &v->comm_r)) != CZ_OK)
        goto done;
    if (!below_2_254(&v->replica_id)) {
        s = perr(&c, CZ_ERR_FORMAT, "replica_id: not below 2^254");
        goto done;
    }
    for (size_t part = 0; part < nparts; part++) {
        snprintf(c.where, sizeof c.where, "partitions[%zu]", part);
        json_t *po = json_array_get(parts, part), *chs;
        if (!json_is_object(po)) {
            s = perr(&c, CZ_ERR_FORMAT, ": not an object");
            goto done;
        }
        if ((s = get(&c, po, "challenges", &chs)) != CZ_OK)
            goto done;
        if (!json_is_array(chs)) {
            s = perr(&c, CZ_ERR_FORMAT, "challenges: not an array");
            goto done;
        }
        if (json_array_size(chs) != p->challenges) {
            s = perr(&c, CZ_ERR_FORMAT, "challenges: %zu entries, preset %s has %u per partition",
                     json_array_size(chs), p->name, p->challenges);
            goto done;
        }
        for (unsigned ci = 0; ci < p->challenges; ci++) {
            snprintf(c.where, sizeof c.where, "partitions[%zu].challenges[%u]", part, ci);
            if ((s = parse_challenge(&c, json_array_get(chs, ci), p,
                                     &v->challenges[part * p->challenges + ci])) != CZ_OK)
                goto done;
        }
    }
    *out = v;
    v = NULL;
    s = CZ_OK;
done:
    cz_porep_vanilla_free(v);
    json_decref(root);
    return s;
}

cz_status cz_porep_vanilla_load(cz_porep_vanilla **out, const char *path, cz_errbuf *err)
{
    if (!out || !path)
        return cz_err(err, CZ_ERR_INVALID_ARG, "vanilla proof: NULL argument");
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 1 << 16;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                return cz_err(err, CZ_ERR_NOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap = nc;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) {
        free(buf);
        return cz_err(err, CZ_ERR_IO, "%s: read error", path);
    }
    cz_status s = cz_porep_vanilla_parse(out, buf, n, err);
    free(buf);
    return s;
}
