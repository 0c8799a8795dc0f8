/*
 * C1 output (filecoin-proofs-api SealCommitPhase1Output) as JSON, and
 * Curio's base64 wrapper around it.
 *
 * Layout (serde_json of the reference types, field order = declaration
 * order, which is what serde writes):
 *   {"registered_proof":"StackedDrg2KiBV1_1",
 *    "vanilla_proofs":{"StackedDrg2KiBV1":[[PROOF per challenge] per partition]},
 *    "comm_r":D,"comm_d":D,"replica_id":D,"seed":D,"ticket":D}
 *   PROOF  = {"comm_d_proofs":MP,"comm_r_last_proof":MP,
 *             "replica_column_proofs":{"c_x":CP,"drg_parents":[CP×6],"exp_parents":[CP×8]},
 *             "labeling_proofs":[LP×layers],"encoding_proof":LP}
 *   MP     = {"data":{"Single":{"root":D,"leaf":D,"path":IP}}}
 *          | {"data":{"Sub":{"base_proof":IP,"sub_proof":IP,"root":D,"leaf":D}}}
 *          | {"data":{"Top":{"base_proof":IP,"sub_proof":IP,"top_proof":IP,"root":D,"leaf":D}}}
 *   IP     = {"path":[{"hashes":[D×(arity−1)],"index":i}...]}
 *   CP     = {"column":{"index":i,"rows":[D×layers],"_h":null},"inclusion_proof":MP}
 *   LP     = {"parents":[D×37],"layer_index":l,"node":n}
 *   D      = [32 integers 0..255]
 * Curio: {"SectorNum": n, "Phase1Out": "<base64 of the above>", "SectorSize": bytes}
 * (Python-style separators ", " and ": ", no trailing newline).
 *
 * The reader is stricter than serde: unknown members are refused (serde
 * ignores them), so that a file that parses is written back byte for byte.
 * Every count is checked against the registered proof before anything is
 * allocated for it, so untrusted input cannot make us allocate more than
 * jansson already did for its tree.
 */
#include "cuzk/fil_c1.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LabelingProof / EncodingProof parents: storage-proofs-porep hashes
 * 6 DRG + 8 expander parent labels, repeated to 37 (BASE_DEGREE +
 * EXP_DEGREE padded to the SHA-256 block layout). */
#define FIL_LABEL_PARENTS 37u

/* ---- freeing and equality ----------------------------------------------------------- */

static void path_free(cz_fil_path *p)
{
    if (p->elems)
        for (size_t i = 0; i < p->len; i++) free(p->elems[i].hashes);
    free(p->elems);
    memset(p, 0, sizeof *p);
}

static void merkle_free(cz_fil_merkle_proof *m)
{
    path_free(&m->base);
    path_free(&m->sub);
    path_free(&m->top);
}

static void colproof_free(cz_fil_column_proof *c)
{
    free(c->column.rows);
    c->column.rows = NULL;
    merkle_free(&c->inclusion);
}

static void vproof_free(cz_fil_vanilla_proof *v)
{
    merkle_free(&v->comm_d_proofs);
    merkle_free(&v->comm_r_last_proof);
    colproof_free(&v->c_x);
    for (unsigned i = 0; i < CZ_FIL_DRG_PARENTS; i++) colproof_free(&v->drg_parents[i]);
    for (unsigned i = 0; i < CZ_FIL_EXP_PARENTS; i++) colproof_free(&v->exp_parents[i]);
    if (v->labeling_proofs)
        for (unsigned i = 0; i < v->nlabeling; i++) free(v->labeling_proofs[i].parents);
    free(v->labeling_proofs);
    free(v->encoding_proof.parents);
}

void cz_fil_c1_free(cz_fil_c1 *c1)
{
    if (!c1) return;
    if (c1->partitions) {
        for (size_t p = 0; p < c1->npartitions; p++) {
            cz_fil_partition_proofs *pp = &c1->partitions[p];
            if (pp->proofs)
                for (size_t i = 0; i < pp->nchallenges; i++) vproof_free(&pp->proofs[i]);
            free(pp->proofs);
        }
    }
    free(c1->partitions);
    memset(c1, 0, sizeof *c1);
}

static bool dom_eq(const cz_fil_domain *a, const cz_fil_domain *b, size_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

static bool path_eq(const cz_fil_path *a, const cz_fil_path *b)
{
    if (a->len != b->len) return false;
    for (size_t i = 0; i < a->len; i++) {
        const cz_fil_path_elem *x = &a->elems[i], *y = &b->elems[i];
        if (x->index != y->index || x->nhashes != y->nhashes ||
            !dom_eq(x->hashes, y->hashes, x->nhashes))
            return false;
    }
    return true;
}

static bool merkle_eq(const cz_fil_merkle_proof *a, const cz_fil_merkle_proof *b)
{
    return a->kind == b->kind && dom_eq(&a->root, &b->root, 1) && dom_eq(&a->leaf, &b->leaf, 1) &&
           path_eq(&a->base, &b->base) && path_eq(&a->sub, &b->sub) && path_eq(&a->top, &b->top);
}

static bool colproof_eq(const cz_fil_column_proof *a, const cz_fil_column_proof *b)
{
    return a->column.index == b->column.index && a->column.nrows == b->column.nrows &&
           dom_eq(a->column.rows, b->column.rows, a->column.nrows) &&
           merkle_eq(&a->inclusion, &b->inclusion);
}

static bool label_eq(const cz_fil_label_proof *a, const cz_fil_label_proof *b)
{
    return a->layer_index == b->layer_index && a->node == b->node && a->nparents == b->nparents &&
           dom_eq(a->parents, b->parents, a->nparents);
}

static bool vproof_eq(const cz_fil_vanilla_proof *a, const cz_fil_vanilla_proof *b)
{
    if (!merkle_eq(&a->comm_d_proofs, &b->comm_d_proofs) ||
        !merkle_eq(&a->comm_r_last_proof, &b->comm_r_last_proof) || !colproof_eq(&a->c_x, &b->c_x))
        return false;
    for (unsigned i = 0; i < CZ_FIL_DRG_PARENTS; i++)
        if (!colproof_eq(&a->drg_parents[i], &b->drg_parents[i])) return false;
    for (unsigned i = 0; i < CZ_FIL_EXP_PARENTS; i++)
        if (!colproof_eq(&a->exp_parents[i], &b->exp_parents[i])) return false;
    if (a->nlabeling != b->nlabeling) return false;
    for (unsigned i = 0; i < a->nlabeling; i++)
        if (!label_eq(&a->labeling_proofs[i], &b->labeling_proofs[i])) return false;
    return label_eq(&a->encoding_proof, &b->encoding_proof);
}

bool cz_fil_c1_equal(const cz_fil_c1 *a, const cz_fil_c1 *b)
{
    if (a == b) return true;
    if (!a || !b) return false;
    if (a->registered_proof != b->registered_proof || a->npartitions != b->npartitions ||
        !dom_eq(&a->comm_r, &b->comm_r, 1) || !dom_eq(&a->comm_d, &b->comm_d, 1) ||
        !dom_eq(&a->replica_id, &b->replica_id, 1) || memcmp(a->seed, b->seed, 32) != 0 ||
        memcmp(a->ticket, b->ticket, 32) != 0)
        return false;
    for (size_t p = 0; p < a->npartitions; p++) {
        const cz_fil_partition_proofs *x = &a->partitions[p], *y = &b->partitions[p];
        if (x->nchallenges != y->nchallenges) return false;
        for (size_t i = 0; i < x->nchallenges; i++)
            if (!vproof_eq(&x->proofs[i], &y->proofs[i])) return false;
    }
    return true;
}

/* ---- reader ------------------------------------------------------------------------- */

/* Expected shape of one Merkle proof (storage-proofs-core MerkleProof over
 * a tree with base arity A, sub arity B, top arity C). */
typedef struct {
    cz_fil_proof_kind kind;
    unsigned base_arity, base_levels; /* base_path_length: log_A(leaves / B / C) */
    unsigned sub_arity, top_arity;    /* one level each when present */
    const char *shape;                /* for messages: "8-8-0" */
} tree_shape;

typedef struct {
    cz_errbuf *err;
    const cz_fil_seal_proof *rp;
    uint64_t nodes;       /* sector nodes (leaves of tree D, R, C) */
    tree_shape tree_d, tree_rc;
    char shape_name[16];
    char path[256];       /* JSON path of the value being read */
    size_t plen;
} rctx;

/* Append ".key" (or "key" at the top) to the path; returns the old length
 * to restore with path_pop. Key characters that would garble a one-line
 * message are shown as '?'. */
static size_t path_key(rctx *c, const char *key)
{
    size_t old = c->plen;
    size_t cap = sizeof c->path - 1;
    if (c->plen && c->plen < cap) c->path[c->plen++] = '.';
    for (const unsigned char *k = (const unsigned char *)key; *k && c->plen < cap; k++)
        c->path[c->plen++] = (*k < 0x20 || *k == 0x7f || *k == '"') ? '?' : (char)*k;
    c->path[c->plen] = '\0';
    return old;
}

static size_t path_index(rctx *c, size_t i)
{
    size_t old = c->plen;
    int n = snprintf(c->path + c->plen, sizeof c->path - c->plen, "[%zu]", i);
    if (n > 0) c->plen += (size_t)n < sizeof c->path - c->plen ? (size_t)n : sizeof c->path - 1 - c->plen;
    return old;
}

static void path_pop(rctx *c, size_t old)
{
    c->plen = old;
    c->path[old] = '\0';
}

static cz_status fail_st(rctx *c, cz_status st, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static cz_status fail_st(rctx *c, cz_status st, const char *fmt, ...)
{
    char m[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    return cz_err(c->err, st, "%s: %s", c->plen ? c->path : "(top level)", m);
}
#define fail(c, ...) fail_st((c), CZ_ERR_FORMAT, __VA_ARGS__)

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

/* v must be an object with exactly the members keys[0..n) (any order);
 * vals[i] receives member keys[i]. Errors name the missing or unexpected
 * member's own path. */
static cz_status members(rctx *c, json_t *v, const char *const *keys, size_t n, json_t **vals)
{
    char list[160];
    size_t o = 0;
    for (size_t i = 0; i < n && o < sizeof list; i++) {
        int w = snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", keys[i]);
        if (w < 0) break;
        o += (size_t)w;
    }
    if (!json_is_object(v)) return fail(c, "expected an object {%s}, got %s", list, json_kind(v));
    for (size_t i = 0; i < n; i++) {
        vals[i] = json_object_get(v, keys[i]);
        if (!vals[i]) {
            path_key(c, keys[i]);
            return fail(c, "missing (expected an object {%s} around it)", list);
        }
    }
    if (json_object_size(v) != n) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) {
            bool known = false;
            for (size_t i = 0; i < n && !known; i++) known = strcmp(k, keys[i]) == 0;
            if (!known) {
                path_key(c, k);
                return fail(c, "unexpected member (expected only {%s})", list);
            }
        }
    }
    return CZ_OK;
}

/* v must be an array of exactly n elements. */
static cz_status array_n(rctx *c, json_t *v, size_t n, const char *what)
{
    if (!json_is_array(v)) return fail(c, "expected an array of %zu %s, got %s", n, what, json_kind(v));
    if (json_array_size(v) != n)
        return fail(c, "expected an array of %zu %s, got %zu elements", n, what, json_array_size(v));
    return CZ_OK;
}

static cz_status get_uint(rctx *c, json_t *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!json_is_integer(v)) return fail(c, "expected an integer %" PRIu64 "..%" PRIu64 ", got %s", lo, hi, json_kind(v));
    json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x < lo || (uint64_t)x > hi)
        return fail(c, "expected an integer %" PRIu64 "..%" PRIu64 ", got %" JSON_INTEGER_FORMAT, lo, hi, x);
    *out = (uint64_t)x;
    return CZ_OK;
}

/* A domain element / [u8; 32]: an array of 32 integers 0..255. */
static cz_status get_bytes32(rctx *c, json_t *v, uint8_t out[32])
{
    cz_status st = array_n(c, v, 32, "integers 0..255 (a 32-byte value)");
    if (st) return st;
    for (size_t i = 0; i < 32; i++) {
        size_t m = path_index(c, i);
        uint64_t b = 0;
        if ((st = get_uint(c, json_array_get(v, i), 0, 255, &b))) return st;
        out[i] = (uint8_t)b;
        path_pop(c, m);
    }
    return CZ_OK;
}

static cz_status member_bytes32(rctx *c, json_t *v, const char *key, uint8_t out[32])
{
    size_t m = path_key(c, key);
    cz_status st = get_bytes32(c, v, out);
    if (!st) path_pop(c, m);
    return st;
}

/* An array of exactly n domains into a fresh allocation (n is a bound of
 * the registered proof, never a count read from the input). */
static cz_status get_domains(rctx *c, json_t *v, size_t n, const char *what, cz_fil_domain **out)
{
    cz_status st = array_n(c, v, n, what);
    if (st) return st;
    *out = calloc(n ? n : 1, sizeof **out);
    if (!*out) return cz_err(c->err, CZ_ERR_NOMEM, "%s: out of memory", c->path);
    for (size_t i = 0; i < n; i++) {
        size_t m = path_index(c, i);
        if ((st = get_bytes32(c, json_array_get(v, i), (*out)[i].b))) return st;
        path_pop(c, m);
    }
    return CZ_OK;
}

/* As storage-proofs-core InclusionPath {"path": [PathElement {"hashes",
 * "index"} × levels]}: arity − 1 siblings per level, index < arity. */
static cz_status get_incl(rctx *c, json_t *v, unsigned arity, unsigned levels, cz_fil_path *out)
{
    static const char *const k_ip[] = { "path" };
    static const char *const k_pe[] = { "hashes", "index" };
    json_t *ip[1], *pe[2];
    cz_status st = members(c, v, k_ip, 1, ip);
    if (st) return st;
    size_t m0 = path_key(c, "path");
    char what[48];
    snprintf(what, sizeof what, "path elements (levels of an arity-%u tree)", arity);
    if ((st = array_n(c, ip[0], levels, what))) return st;
    out->elems = calloc(levels ? levels : 1, sizeof *out->elems);
    if (!out->elems) return cz_err(c->err, CZ_ERR_NOMEM, "%s: out of memory", c->path);
    out->len = levels;
    for (unsigned l = 0; l < levels; l++) {
        size_t m1 = path_index(c, l);
        cz_fil_path_elem *e = &out->elems[l];
        if ((st = members(c, json_array_get(ip[0], l), k_pe, 2, pe))) return st;
        size_t m2 = path_key(c, "hashes");
        if ((st = get_domains(c, pe[0], arity - 1, "sibling hashes", &e->hashes))) return st;
        e->nhashes = arity - 1;
        path_pop(c, m2);
        m2 = path_key(c, "index");
        uint64_t idx = 0;
        if ((st = get_uint(c, pe[1], 0, arity - 1, &idx))) return st;
        e->index = (unsigned)idx;
        path_pop(c, m2);
        path_pop(c, m1);
    }
    path_pop(c, m0);
    return CZ_OK;
}

static const char *kind_name(cz_fil_proof_kind k)
{
    return k == CZ_FIL_PROOF_TOP ? "Top" : k == CZ_FIL_PROOF_SUB ? "Sub" : "Single";
}

/* MerkleProof {"data": ProofData}; ProofData is serde's externally tagged
 * enum {"Single"|"Sub"|"Top": {...}}, and the variant is fixed by the
 * tree's shape (as storage-proofs-core MerkleProof::try_from_proof). */
static cz_status get_merkle(rctx *c, json_t *v, const tree_shape *s, cz_fil_merkle_proof *out)
{
    static const char *const k_mp[] = { "data" };
    static const char *const k_single[] = { "root", "leaf", "path" };
    static const char *const k_sub[] = { "base_proof", "sub_proof", "root", "leaf" };
    static const char *const k_top[] = { "base_proof", "sub_proof", "top_proof", "root", "leaf" };
    json_t *mp[1], *f[5];
    cz_status st = members(c, v, k_mp, 1, mp);
    if (st) return st;
    size_t m0 = path_key(c, "data");
    const char *want = kind_name(s->kind);
    if (!json_is_object(mp[0]) || json_object_size(mp[0]) != 1)
        return fail(c, "expected an object with the single member \"%s\" (a %s tree)", want, s->shape);
    const char *got = json_object_iter_key(json_object_iter(mp[0]));
    json_t *body = json_object_get(mp[0], want);
    if (!body) {
        path_key(c, got);
        return fail(c, "expected the variant \"%s\" for a %s tree", want, s->shape);
    }
    size_t m1 = path_key(c, want);
    out->kind = s->kind;
    const char *root_key = "root", *leaf_key = "leaf";
    if (s->kind == CZ_FIL_PROOF_SINGLE) {
        if ((st = members(c, body, k_single, 3, f))) return st;
        size_t m = path_key(c, "path");
        if ((st = get_incl(c, f[2], s->base_arity, s->base_levels, &out->base))) return st;
        path_pop(c, m);
        if ((st = member_bytes32(c, f[0], root_key, out->root.b))) return st;
        if ((st = member_bytes32(c, f[1], leaf_key, out->leaf.b))) return st;
    } else {
        bool top = s->kind == CZ_FIL_PROOF_TOP;
        if ((st = members(c, body, top ? k_top : k_sub, top ? 5 : 4, f))) return st;
        size_t m = path_key(c, "base_proof");
        if ((st = get_incl(c, f[0], s->base_arity, s->base_levels, &out->base))) return st;
        path_pop(c, m);
        m = path_key(c, "sub_proof");
        if ((st = get_incl(c, f[1], s->sub_arity, 1, &out->sub))) return st;
        path_pop(c, m);
        if (top) {
            m = path_key(c, "top_proof");
            if ((st = get_incl(c, f[2], s->top_arity, 1, &out->top))) return st;
            path_pop(c, m);
        }
        if ((st = member_bytes32(c, f[top ? 3 : 2], root_key, out->root.b))) return st;
        if ((st = member_bytes32(c, f[top ? 4 : 3], leaf_key, out->leaf.b))) return st;
    }
    path_pop(c, m1);
    path_pop(c, m0);
    return CZ_OK;
}

/* As storage-proofs-porep ColumnProof {"column": Column {"index", "rows",
 * "_h": null}, "inclusion_proof": MerkleProof into tree C}. */
static cz_status get_colproof(rctx *c, json_t *v, cz_fil_column_proof *out)
{
    static const char *const k_cp[] = { "column", "inclusion_proof" };
    static const char *const k_col[] = { "index", "rows", "_h" };
    json_t *cp[2], *col[3];
    cz_status st = members(c, v, k_cp, 2, cp);
    if (st) return st;
    size_t m0 = path_key(c, "column");
    if ((st = members(c, cp[0], k_col, 3, col))) return st;
    size_t m1 = path_key(c, "index");
    uint64_t idx = 0; /* Column::index is a u32 node index */
    if ((st = get_uint(c, col[0], 0, c->nodes - 1, &idx))) return st;
    out->column.index = idx;
    path_pop(c, m1);
    m1 = path_key(c, "rows");
    if ((st = get_domains(c, col[1], c->rp->layers, "rows (one label per layer)", &out->column.rows)))
        return st;
    out->column.nrows = c->rp->layers;
    path_pop(c, m1);
    m1 = path_key(c, "_h");
    if (!json_is_null(col[2])) return fail(c, "expected null (serde's PhantomData), got %s", json_kind(col[2]));
    path_pop(c, m1);
    path_pop(c, m0);
    m0 = path_key(c, "inclusion_proof");
    if ((st = get_merkle(c, cp[1], &c->tree_rc, &out->inclusion))) return st;
    path_pop(c, m0);
    return CZ_OK;
}

/* As storage-proofs-porep LabelingProof / EncodingProof {"parents": [D×37],
 * "layer_index" (1..layers), "node" (< nodes)}. */
static cz_status get_label(rctx *c, json_t *v, cz_fil_label_proof *out)
{
    static const char *const k_lp[] = { "parents", "layer_index", "node" };
    json_t *lp[3];
    cz_status st = members(c, v, k_lp, 3, lp);
    if (st) return st;
    size_t m = path_key(c, "parents");
    if ((st = get_domains(c, lp[0], FIL_LABEL_PARENTS, "parent labels", &out->parents))) return st;
    out->nparents = FIL_LABEL_PARENTS;
    path_pop(c, m);
    uint64_t x = 0;
    m = path_key(c, "layer_index");
    if ((st = get_uint(c, lp[1], 1, c->rp->layers, &x))) return st;
    out->layer_index = (unsigned)x;
    path_pop(c, m);
    m = path_key(c, "node");
    if ((st = get_uint(c, lp[2], 0, c->nodes - 1, &x))) return st;
    out->node = x;
    path_pop(c, m);
    return CZ_OK;
}

/* As storage-proofs-porep stacked::vanilla::Proof (with its
 * ReplicaColumnProof {c_x, drg_parents, exp_parents}). */
static cz_status get_vproof(rctx *c, json_t *v, cz_fil_vanilla_proof *out)
{
    static const char *const k_p[] = { "comm_d_proofs", "comm_r_last_proof", "replica_column_proofs",
                                       "labeling_proofs", "encoding_proof" };
    static const char *const k_rcp[] = { "c_x", "drg_parents", "exp_parents" };
    json_t *p[5], *rcp[3];
    cz_status st = members(c, v, k_p, 5, p);
    if (st) return st;
    size_t m0 = path_key(c, "comm_d_proofs");
    if ((st = get_merkle(c, p[0], &c->tree_d, &out->comm_d_proofs))) return st;
    path_pop(c, m0);
    m0 = path_key(c, "comm_r_last_proof");
    if ((st = get_merkle(c, p[1], &c->tree_rc, &out->comm_r_last_proof))) return st;
    path_pop(c, m0);

    m0 = path_key(c, "replica_column_proofs");
    if ((st = members(c, p[2], k_rcp, 3, rcp))) return st;
    size_t m1 = path_key(c, "c_x");
    if ((st = get_colproof(c, rcp[0], &out->c_x))) return st;
    path_pop(c, m1);
    m1 = path_key(c, "drg_parents");
    if ((st = array_n(c, rcp[1], CZ_FIL_DRG_PARENTS, "column proofs (DRG parents)"))) return st;
    for (unsigned i = 0; i < CZ_FIL_DRG_PARENTS; i++) {
        size_t m2 = path_index(c, i);
        if ((st = get_colproof(c, json_array_get(rcp[1], i), &out->drg_parents[i]))) return st;
        path_pop(c, m2);
    }
    path_pop(c, m1);
    m1 = path_key(c, "exp_parents");
    if ((st = array_n(c, rcp[2], CZ_FIL_EXP_PARENTS, "column proofs (expander parents)"))) return st;
    for (unsigned i = 0; i < CZ_FIL_EXP_PARENTS; i++) {
        size_t m2 = path_index(c, i);
        if ((st = get_colproof(c, json_array_get(rcp[2], i), &out->exp_parents[i]))) return st;
        path_pop(c, m2);
    }
    path_pop(c, m1);
    path_pop(c, m0);

    m0 = path_key(c, "labeling_proofs");
    unsigned layers = c->rp->layers;
    if ((st = array_n(c, p[3], layers, "labeling proofs (one per layer)"))) return st;
    out->labeling_proofs = calloc(layers, sizeof *out->labeling_proofs);
    if (!out->labeling_proofs) return cz_err(c->err, CZ_ERR_NOMEM, "%s: out of memory", c->path);
    out->nlabeling = layers;
    for (unsigned i = 0; i < layers; i++) {
        size_t m2 = path_index(c, i);
        if ((st = get_label(c, json_array_get(p[3], i), &out->labeling_proofs[i]))) return st;
        path_pop(c, m2);
    }
    path_pop(c, m0);
    m0 = path_key(c, "encoding_proof");
    if ((st = get_label(c, p[4], &out->encoding_proof))) return st;
    path_pop(c, m0);
    return CZ_OK;
}

static unsigned exact_log(uint64_t n, unsigned arity)
{
    unsigned l = 0;
    while (n > 1 && n % arity == 0) { n /= arity; l++; }
    return n == 1 ? l : 0;
}

/* Tree shapes of the registered proof: tree D is binary SHA-256 over all
 * nodes; trees C and R share the LCTree shape 8-sub-top (filecoin-proofs
 * SectorShape*), whose base trees each cover nodes / sub / top leaves. */
static cz_status setup_shapes(rctx *c)
{
    const cz_fil_seal_proof *rp = c->rp;
    c->nodes = rp->sector_size / CZ_FIL_NODE_SIZE;
    unsigned sub = rp->tree_sub_arity, top = rp->tree_top_arity;
    c->tree_d = (tree_shape){ CZ_FIL_PROOF_SINGLE, 2, exact_log(c->nodes, 2), 0, 0, "binary" };
    uint64_t base_leaves = c->nodes / (sub ? sub : 1) / (top ? top : 1);
    snprintf(c->shape_name, sizeof c->shape_name, "8-%u-%u", sub, top);
    c->tree_rc = (tree_shape){ top ? CZ_FIL_PROOF_TOP : sub ? CZ_FIL_PROOF_SUB : CZ_FIL_PROOF_SINGLE,
                               8, exact_log(base_leaves, 8), sub, top, c->shape_name };
    if (c->tree_d.base_levels == 0 || c->tree_rc.base_levels == 0 || (top && !sub))
        return cz_err(c->err, CZ_ERR_INTERNAL, "%s: no tree shape for %" PRIu64 " nodes", rp->name, c->nodes);
    return CZ_OK;
}

/* As filecoin-proofs-api SealCommitPhase1Output: the registered proof is
 * read first, since it fixes every count and shape below it. */
static cz_status parse_c1_root(rctx *c, json_t *root, cz_fil_c1 *out)
{
    static const char *const k_top[] = { "registered_proof", "vanilla_proofs", "comm_r", "comm_d",
                                         "replica_id", "seed", "ticket" };
    json_t *t[7];
    cz_status st = members(c, root, k_top, 7, t);
    if (st) return st;
    size_t m0 = path_key(c, "registered_proof");
    if (!json_is_string(t[0])) return fail(c, "expected a registered proof name (a string), got %s", json_kind(t[0]));
    const cz_fil_seal_proof *rp = cz_fil_seal_proof_by_name(json_string_value(t[0]));
    if (!rp || strlen(json_string_value(t[0])) != json_string_length(t[0])) {
        char shown[64];
        size_t i = 0;
        for (const unsigned char *s = (const unsigned char *)json_string_value(t[0]); *s && i + 1 < sizeof shown; s++)
            shown[i++] = (*s < 0x20 || *s >= 0x7f || *s == '"') ? '?' : (char)*s;
        shown[i] = '\0';
        return fail(c, "unknown registered proof \"%s\" (expected a RegisteredSealProof name such as \"StackedDrg2KiBV1_1\")", shown);
    }
    path_pop(c, m0);
    c->rp = rp;
    out->registered_proof = rp;
    if ((st = setup_shapes(c))) return st;

    m0 = path_key(c, "vanilla_proofs");
    json_t *vp = t[1];
    if (!json_is_object(vp) || json_object_size(vp) != 1)
        return fail(c, "expected an object with the single member \"%s\"", rp->vanilla_name);
    json_t *parts = json_object_get(vp, rp->vanilla_name);
    if (!parts) {
        path_key(c, json_object_iter_key(json_object_iter(vp)));
        return fail(c, "expected the key \"%s\" (the vanilla proof of %s)", rp->vanilla_name, rp->name);
    }
    size_t m1 = path_key(c, rp->vanilla_name);
    if ((st = array_n(c, parts, rp->partitions, "partitions"))) return st;
    out->partitions = calloc(rp->partitions, sizeof *out->partitions);
    if (!out->partitions) return cz_err(c->err, CZ_ERR_NOMEM, "out of memory");
    out->npartitions = rp->partitions;
    for (size_t p = 0; p < rp->partitions; p++) {
        size_t m2 = path_index(c, p);
        json_t *pa = json_array_get(parts, p);
        size_t nch = rp->challenges_per_partition;
        if ((st = array_n(c, pa, nch, "challenge proofs"))) return st;
        cz_fil_partition_proofs *pp = &out->partitions[p];
        pp->proofs = calloc(nch, sizeof *pp->proofs);
        if (!pp->proofs) return cz_err(c->err, CZ_ERR_NOMEM, "out of memory");
        pp->nchallenges = nch;
        for (size_t i = 0; i < nch; i++) {
            size_t m3 = path_index(c, i);
            if ((st = get_vproof(c, json_array_get(pa, i), &pp->proofs[i]))) return st;
            path_pop(c, m3);
        }
        path_pop(c, m2);
    }
    path_pop(c, m1);
    path_pop(c, m0);

    if ((st = member_bytes32(c, t[2], "comm_r", out->comm_r.b))) return st;
    if ((st = member_bytes32(c, t[3], "comm_d", out->comm_d.b))) return st;
    if ((st = member_bytes32(c, t[4], "replica_id", out->replica_id.b))) return st;
    if ((st = member_bytes32(c, t[5], "seed", out->seed))) return st;
    if ((st = member_bytes32(c, t[6], "ticket", out->ticket))) return st;
    return CZ_OK;
}

static cz_status load_json(const char *json, size_t len, json_t **root, cz_errbuf *err)
{
    json_error_t je;
    /* Whole input must be one JSON value (trailing garbage is refused:
     * no JSON_DISABLE_EOF_CHECK); duplicate keys are refused. */
    *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (!*root)
        return cz_err(err, CZ_ERR_FORMAT, "invalid JSON at line %d column %d (byte %d): %s", je.line,
                      je.column, je.position, je.text);
    return CZ_OK;
}

static cz_status parse_plain(cz_fil_c1 *out, json_t *root, cz_errbuf *err)
{
    rctx *c = calloc(1, sizeof *c);
    if (!c) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    c->err = err;
    cz_status st = parse_c1_root(c, root, out);
    free(c);
    return st;
}

/* Curio's wrapper (curio's Commit1Out request: SectorNum, Phase1Out as a
 * base64 []byte, SectorSize). */
static cz_status parse_curio(cz_fil_c1 *out, json_t *root, cz_errbuf *err)
{
    static const char *const k_cu[] = { "SectorNum", "Phase1Out", "SectorSize" };
    rctx c0;
    memset(&c0, 0, sizeof c0);
    c0.err = err;
    json_t *f[3];
    cz_status st = members(&c0, root, k_cu, 3, f);
    if (st) return st;
    uint64_t num = 0, size = 0;
    size_t m = path_key(&c0, "SectorNum");
    if ((st = get_uint(&c0, f[0], 0, INT64_MAX, &num))) return st;
    path_pop(&c0, m);
    m = path_key(&c0, "SectorSize");
    if ((st = get_uint(&c0, f[2], 0, INT64_MAX, &size))) return st;
    path_pop(&c0, m);
    m = path_key(&c0, "Phase1Out");
    if (!json_is_string(f[1])) return fail(&c0, "expected a base64 string, got %s", json_kind(f[1]));
    uint8_t *inner = NULL;
    size_t ilen = 0;
    st = cz_base64_decode(json_string_value(f[1]), json_string_length(f[1]), &inner, &ilen);
    if (st == CZ_ERR_FORMAT)
        return fail(&c0, "expected base64 (RFC 4648, standard alphabet, padded)");
    if (st) return cz_err(err, st, "Phase1Out: cannot decode base64");
    json_t *iroot = NULL;
    cz_errbuf ie;
    st = load_json((const char *)inner, ilen, &iroot, &ie);
    free(inner);
    if (!st) {
        st = parse_plain(out, iroot, &ie);
        json_decref(iroot);
    }
    if (st) return cz_err(err, st, "Phase1Out (decoded): %s", ie.msg);
    const cz_fil_seal_proof *rp = out->registered_proof;
    if (size != rp->sector_size)
        return cz_err(err, CZ_ERR_MISMATCH,
                      "SectorSize: %" PRIu64 " does not match the sector size of %s (%" PRIu64 " bytes)",
                      size, rp->name, rp->sector_size);
    return CZ_OK;
}

cz_status cz_fil_c1_parse(cz_fil_c1 *out, const char *json, size_t len, cz_errbuf *err)
{
    if (!out) return cz_err(err, CZ_ERR_INVALID_ARG, "C1 output: out is NULL");
    memset(out, 0, sizeof *out);
    if (!json && len) return cz_err(err, CZ_ERR_INVALID_ARG, "C1 output: no input");
    json_t *root = NULL;
    cz_status st = load_json(json ? json : "", len, &root, err);
    if (st) return st;
    cz_fil_c1 tmp;
    memset(&tmp, 0, sizeof tmp);
    if (json_is_object(root) && json_object_get(root, "Phase1Out"))
        st = parse_curio(&tmp, root, err);
    else
        st = parse_plain(&tmp, root, err);
    json_decref(root);
    if (st) {
        cz_fil_c1_free(&tmp);
        return st;
    }
    *out = tmp;
    return CZ_OK;
}

cz_status cz_fil_c1_read_file(cz_fil_c1 *out, const char *path, cz_errbuf *err)
{
    if (!out || !path) return cz_err(err, CZ_ERR_INVALID_ARG, "C1 output: NULL argument");
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    cz_status st = CZ_OK;
    while (buf) {
        if (len == cap) {
            char *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0) break;
    }
    if (!buf) st = cz_err(err, CZ_ERR_NOMEM, "%s: out of memory", path);
    else if (ferror(f)) st = cz_err(err, CZ_ERR_IO, "%s: read failed", path);
    fclose(f);
    if (st) { free(buf); return st; }
    cz_errbuf e;
    st = cz_fil_c1_parse(out, buf, len, &e);
    free(buf);
    if (st) return cz_err(err, st, "%s: %s", path, e.msg);
    return CZ_OK;
}

/* ---- writer ------------------------------------------------------------------------- */

typedef struct {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void sb_put(sbuf *s, const char *str, size_t n)
{
    if (s->oom) return;
    if (s->cap - s->len < n + 1) {
        size_t nc = s->cap ? s->cap : 4096;
        while (nc - s->len < n + 1) {
            if (nc > SIZE_MAX / 2) { s->oom = true; return; }
            nc *= 2;
        }
        char *np = realloc(s->p, nc);
        if (!np) { s->oom = true; return; }
        s->p = np;
        s->cap = nc;
    }
    memcpy(s->p + s->len, str, n);
    s->len += n;
    s->p[s->len] = '\0';
}

static void sb_lit(sbuf *s, const char *str) { sb_put(s, str, strlen(str)); }

static void sb_u64(sbuf *s, uint64_t v)
{
    char b[24];
    int n = snprintf(b, sizeof b, "%" PRIu64, v);
    sb_put(s, b, (size_t)n);
}

static void sb_bytes32(sbuf *s, const uint8_t b[32])
{
    /* serde_json writes [u8; 32] as a tuple of 32 decimal numbers. */
    char tmp[32 * 4 + 2];
    size_t o = 0;
    tmp[o++] = '[';
    for (int i = 0; i < 32; i++) {
        unsigned v = b[i];
        if (i) tmp[o++] = ',';
        if (v >= 100) tmp[o++] = (char)('0' + v / 100);
        if (v >= 10) tmp[o++] = (char)('0' + v / 10 % 10);
        tmp[o++] = (char)('0' + v % 10);
    }
    tmp[o++] = ']';
    sb_put(s, tmp, o);
}

static void sb_domains(sbuf *s, const cz_fil_domain *d, size_t n)
{
    sb_lit(s, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) sb_lit(s, ",");
        sb_bytes32(s, d[i].b);
    }
    sb_lit(s, "]");
}

/* Writers, in serde's field order: storage-proofs-core InclusionPath,
 * MerkleProof/ProofData; storage-proofs-porep ColumnProof, LabelingProof,
 * Proof; filecoin-proofs-api SealCommitPhase1Output. */
static void w_incl(sbuf *s, const cz_fil_path *p)
{
    sb_lit(s, "{\"path\":[");
    for (size_t i = 0; i < p->len; i++) {
        if (i) sb_lit(s, ",");
        sb_lit(s, "{\"hashes\":");
        sb_domains(s, p->elems[i].hashes, p->elems[i].nhashes);
        sb_lit(s, ",\"index\":");
        sb_u64(s, p->elems[i].index);
        sb_lit(s, "}");
    }
    sb_lit(s, "]}");
}

static void w_merkle(sbuf *s, const cz_fil_merkle_proof *m)
{
    sb_lit(s, "{\"data\":{\"");
    sb_lit(s, kind_name(m->kind));
    sb_lit(s, "\":{");
    if (m->kind == CZ_FIL_PROOF_SINGLE) {
        sb_lit(s, "\"root\":");
        sb_bytes32(s, m->root.b);
        sb_lit(s, ",\"leaf\":");
        sb_bytes32(s, m->leaf.b);
        sb_lit(s, ",\"path\":");
        w_incl(s, &m->base);
    } else {
        sb_lit(s, "\"base_proof\":");
        w_incl(s, &m->base);
        sb_lit(s, ",\"sub_proof\":");
        w_incl(s, &m->sub);
        if (m->kind == CZ_FIL_PROOF_TOP) {
            sb_lit(s, ",\"top_proof\":");
            w_incl(s, &m->top);
        }
        sb_lit(s, ",\"root\":");
        sb_bytes32(s, m->root.b);
        sb_lit(s, ",\"leaf\":");
        sb_bytes32(s, m->leaf.b);
    }
    sb_lit(s, "}}}");
}

static void w_colproof(sbuf *s, const cz_fil_column_proof *c)
{
    sb_lit(s, "{\"column\":{\"index\":");
    sb_u64(s, c->column.index);
    sb_lit(s, ",\"rows\":");
    sb_domains(s, c->column.rows, c->column.nrows);
    sb_lit(s, ",\"_h\":null},\"inclusion_proof\":");
    w_merkle(s, &c->inclusion);
    sb_lit(s, "}");
}

static void w_label(sbuf *s, const cz_fil_label_proof *l)
{
    sb_lit(s, "{\"parents\":");
    sb_domains(s, l->parents, l->nparents);
    sb_lit(s, ",\"layer_index\":");
    sb_u64(s, l->layer_index);
    sb_lit(s, ",\"node\":");
    sb_u64(s, l->node);
    sb_lit(s, "}");
}

static void w_vproof(sbuf *s, const cz_fil_vanilla_proof *v)
{
    sb_lit(s, "{\"comm_d_proofs\":");
    w_merkle(s, &v->comm_d_proofs);
    sb_lit(s, ",\"comm_r_last_proof\":");
    w_merkle(s, &v->comm_r_last_proof);
    sb_lit(s, ",\"replica_column_proofs\":{\"c_x\":");
    w_colproof(s, &v->c_x);
    sb_lit(s, ",\"drg_parents\":[");
    for (unsigned i = 0; i < CZ_FIL_DRG_PARENTS; i++) {
        if (i) sb_lit(s, ",");
        w_colproof(s, &v->drg_parents[i]);
    }
    sb_lit(s, "],\"exp_parents\":[");
    for (unsigned i = 0; i < CZ_FIL_EXP_PARENTS; i++) {
        if (i) sb_lit(s, ",");
        w_colproof(s, &v->exp_parents[i]);
    }
    sb_lit(s, "]},\"labeling_proofs\":[");
    for (unsigned i = 0; i < v->nlabeling; i++) {
        if (i) sb_lit(s, ",");
        w_label(s, &v->labeling_proofs[i]);
    }
    sb_lit(s, "],\"encoding_proof\":");
    w_label(s, &v->encoding_proof);
    sb_lit(s, "}");
}

cz_status cz_fil_c1_to_json(const cz_fil_c1 *c1, char **out, size_t *len)
{
    if (!out) return CZ_ERR_INVALID_ARG;
    *out = NULL;
    if (len) *len = 0;
    if (!c1 || !c1->registered_proof || (c1->npartitions && !c1->partitions)) return CZ_ERR_INVALID_ARG;
    const cz_fil_seal_proof *rp = c1->registered_proof;
    sbuf s = { 0 };
    sb_lit(&s, "{\"registered_proof\":\"");
    sb_lit(&s, rp->name);
    sb_lit(&s, "\",\"vanilla_proofs\":{\"");
    sb_lit(&s, rp->vanilla_name);
    sb_lit(&s, "\":[");
    for (size_t p = 0; p < c1->npartitions; p++) {
        const cz_fil_partition_proofs *pp = &c1->partitions[p];
        sb_lit(&s, p ? ",[" : "[");
        for (size_t i = 0; i < pp->nchallenges; i++) {
            if (i) sb_lit(&s, ",");
            w_vproof(&s, &pp->proofs[i]);
        }
        sb_lit(&s, "]");
    }
    sb_lit(&s, "]},\"comm_r\":");
    sb_bytes32(&s, c1->comm_r.b);
    sb_lit(&s, ",\"comm_d\":");
    sb_bytes32(&s, c1->comm_d.b);
    sb_lit(&s, ",\"replica_id\":");
    sb_bytes32(&s, c1->replica_id.b);
    sb_lit(&s, ",\"seed\":");
    sb_bytes32(&s, c1->seed);
    sb_lit(&s, ",\"ticket\":");
    sb_bytes32(&s, c1->ticket);
    sb_lit(&s, "}");
    if (s.oom) {
        free(s.p);
        return CZ_ERR_NOMEM;
    }
    *out = s.p;
    if (len) *len = s.len;
    return CZ_OK;
}

cz_status cz_fil_c1_to_curio_json(const cz_fil_c1 *c1, uint64_t sector_num, char **out, size_t *len)
{
    if (!out) return CZ_ERR_INVALID_ARG;
    *out = NULL;
    if (len) *len = 0;
    char *inner = NULL, *b64 = NULL;
    size_t ilen = 0, blen = 0;
    cz_status st = cz_fil_c1_to_json(c1, &inner, &ilen);
    if (st) return st;
    st = cz_base64_encode((const uint8_t *)inner, ilen, &b64, &blen);
    free(inner);
    if (st) return st;
    /* Curio's own file uses ", " and ": " separators (not compact). */
    sbuf s = { 0 };
    sb_lit(&s, "{\"SectorNum\": ");
    sb_u64(&s, sector_num);
    sb_lit(&s, ", \"Phase1Out\": \"");
    sb_put(&s, b64, blen);
    sb_lit(&s, "\", \"SectorSize\": ");
    sb_u64(&s, c1->registered_proof->sector_size);
    sb_lit(&s, "}");
    free(b64);
    if (s.oom) {
        free(s.p);
        return CZ_ERR_NOMEM;
    }
    *out = s.p;
    if (len) *len = s.len;
    return CZ_OK;
}
