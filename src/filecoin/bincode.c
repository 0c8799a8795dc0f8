/*
 * The bincode reader and writer of the vanilla proofs (bincode_internal.h):
 * one cursor with the serde path for messages, one growing buffer, and the
 * MerkleProof both PoSt and SnapDeals carry.
 */
#include "bincode_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reader ------------------------------------------------------------------------ */

void cz_bc_rd_init(cz_bc_rd *r, const uint8_t *b, size_t len, size_t base, const char *prefix, const char *root,
                   bool canonical, cz_errbuf *err) {
    memset(r, 0, sizeof *r);
    r->b = b;
    r->len = len;
    r->base = base;
    r->prefix = prefix ? prefix : "";
    r->root = root ? root : "";
    r->canonical = canonical;
    r->err = err;
}

static void path_vappend(cz_bc_rd *r, const char *fmt, va_list ap) {
    if (r->plen >= sizeof r->path - 1) return;
    int n = vsnprintf(r->path + r->plen, sizeof r->path - r->plen, fmt, ap);
    /* a path longer than the buffer stays cut where vsnprintf cut it */
    if (n > 0) r->plen += (size_t)n < sizeof r->path - r->plen ? (size_t)n : sizeof r->path - 1 - r->plen;
}

size_t cz_bc_push(cz_bc_rd *r, const char *fmt, ...) {
    size_t old = r->plen;
    va_list ap;
    va_start(ap, fmt);
    path_vappend(r, fmt, ap);
    va_end(ap);
    return old;
}

void cz_bc_pop(cz_bc_rd *r, size_t old) {
    r->plen = old;
    r->path[old] = 0;
}

void cz_bc_at(cz_bc_rd *r, const char *fmt, ...) {
    cz_bc_pop(r, 0);
    va_list ap;
    va_start(ap, fmt);
    path_vappend(r, fmt, ap);
    va_end(ap);
}

cz_status cz_bc_fail(const cz_bc_rd *r, cz_status st, size_t at, const char *fmt, ...) {
    char m[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    return cz_err(r->err, st, "%s%s at byte %zu: %s", r->prefix, r->plen ? r->path : r->root, at, m);
}

cz_status cz_bc_need(cz_bc_rd *r, size_t n) {
    if (r->len - r->pos >= n) return CZ_OK;
    return cz_bc_fail(r, CZ_ERR_FORMAT, cz_bc_here(r), "truncated (need %zu bytes, %zu left)", n, r->len - r->pos);
}

cz_status cz_bc_u64(cz_bc_rd *r, uint64_t *v) {
    cz_status st = cz_bc_need(r, 8);
    if (st != CZ_OK) return st;
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = x << 8 | r->b[r->pos + (size_t)i];
    r->pos += 8;
    *v = x;
    return CZ_OK;
}

cz_status cz_bc_u32(cz_bc_rd *r, uint32_t *v) {
    cz_status st = cz_bc_need(r, 4);
    if (st != CZ_OK) return st;
    const uint8_t *b = r->b + r->pos;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    r->pos += 4;
    return CZ_OK;
}

cz_status cz_bc_dom(cz_bc_rd *r, cz_fil_domain *d) {
    cz_status st = cz_bc_need(r, 32);
    if (st != CZ_OK) return st;
    memcpy(d->b, r->b + r->pos, 32);
    cz_fr t;
    if (r->canonical && cz_fil_domain_to_fr(&t, d) != CZ_OK)
        return cz_bc_fail(r, CZ_ERR_NOT_CANONICAL, cz_bc_here(r), "not a canonical field element");
    r->pos += 32;
    return CZ_OK;
}

cz_status cz_bc_len(cz_bc_rd *r, uint64_t want, const char *why) {
    uint64_t n;
    size_t at = cz_bc_here(r);
    cz_status st = cz_bc_u64(r, &n);
    if (st != CZ_OK) return st;
    if (n == want) return CZ_OK;
    if (why)
        return cz_bc_fail(r, CZ_ERR_FORMAT, at, "length %llu, expected %llu (%s)", (unsigned long long)n,
                          (unsigned long long)want, why);
    return cz_bc_fail(r, CZ_ERR_FORMAT, at, "length %llu, expected %llu", (unsigned long long)n,
                      (unsigned long long)want);
}

/* InclusionPath { path: Vec<PathElement { hashes: Vec<Domain>, index: usize }> }
 * of `levels` levels of `arity`; `field` is the InclusionPath's field name. */
static cz_status rd_path(cz_bc_rd *r, const char *field, cz_fil_path *out, size_t levels, unsigned arity,
                         const char *shape) {
    size_t o = cz_bc_push(r, ".%s.path", field);
    cz_status st = cz_bc_len(r, levels, shape);
    if (st == CZ_OK && levels) {
        out->elems = calloc(levels, sizeof *out->elems);
        if (!out->elems) st = CZ_ERR_NOMEM;
        else out->len = levels;
    }
    char why[48];
    snprintf(why, sizeof why, "arity %u: %u siblings", arity, arity - 1);
    for (size_t l = 0; st == CZ_OK && l < levels; l++) {
        cz_fil_path_elem *e = &out->elems[l];
        size_t o2 = cz_bc_push(r, "[%zu].hashes", l);
        st = cz_bc_len(r, arity - 1, why);
        if (st == CZ_OK) {
            e->hashes = malloc((arity - 1) * sizeof *e->hashes);
            if (!e->hashes) st = CZ_ERR_NOMEM;
            else e->nhashes = arity - 1;
        }
        for (unsigned k = 0; st == CZ_OK && k + 1 < arity; k++) {
            size_t o3 = cz_bc_push(r, "[%u]", k);
            st = cz_bc_dom(r, &e->hashes[k]);
            cz_bc_pop(r, o3);
        }
        cz_bc_pop(r, o2);
        if (st != CZ_OK) break;
        o2 = cz_bc_push(r, "[%zu].index", l);
        uint64_t idx;
        size_t at = cz_bc_here(r);
        st = cz_bc_u64(r, &idx);
        if (st == CZ_OK && idx >= arity)
            st = cz_bc_fail(r, CZ_ERR_FORMAT, at, "index %llu out of range for arity %u", (unsigned long long)idx,
                            arity);
        if (st == CZ_OK) e->index = (unsigned)idx;
        cz_bc_pop(r, o2);
    }
    cz_bc_pop(r, o);
    return st;
}

cz_status cz_bc_dom_field(cz_bc_rd *r, const char *field, cz_fil_domain *d) {
    size_t o = cz_bc_push(r, "%s", field);
    cz_status st = cz_bc_dom(r, d);
    cz_bc_pop(r, o);
    return st;
}

static const char *const variant_name[3] = { "Single", "Sub", "Top" };

cz_status cz_bc_merkle(cz_bc_rd *r, const cz_bc_tree_shape *shape, cz_fil_merkle_proof *mp) {
    uint32_t tag;
    size_t at = cz_bc_here(r);
    size_t o = cz_bc_push(r, ".data");
    cz_status st = cz_bc_u32(r, &tag);
    if (st == CZ_OK && tag > 2)
        st = cz_bc_fail(r, CZ_ERR_FORMAT, at, "unknown ProofData variant %u (Single 0, Sub 1, Top 2)", tag);
    else if (st == CZ_OK && tag != (uint32_t)shape->kind)
        st = cz_bc_fail(r, CZ_ERR_FORMAT, at, "variant %s, the %s needs %s", variant_name[tag], shape->name,
                        variant_name[shape->kind]);
    if (st != CZ_OK) {
        cz_bc_pop(r, o);
        return st;
    }
    cz_bc_push(r, ".%s", variant_name[tag]);
    mp->kind = shape->kind;
    if (shape->kind == CZ_FIL_PROOF_SINGLE) {
        st = cz_bc_dom_field(r, ".root", &mp->root);
        if (st == CZ_OK) st = cz_bc_dom_field(r, ".leaf", &mp->leaf);
        if (st == CZ_OK) st = rd_path(r, "path", &mp->base, shape->base_len, shape->base_arity, shape->name);
    } else {
        st = rd_path(r, "base_proof", &mp->base, shape->base_len, shape->base_arity, shape->name);
        if (st == CZ_OK) st = rd_path(r, "sub_proof", &mp->sub, 1, shape->sub_arity, shape->name);
        if (st == CZ_OK && shape->kind == CZ_FIL_PROOF_TOP)
            st = rd_path(r, "top_proof", &mp->top, 1, shape->top_arity, shape->name);
        if (st == CZ_OK) st = cz_bc_dom_field(r, ".root", &mp->root);
        if (st == CZ_OK) st = cz_bc_dom_field(r, ".leaf", &mp->leaf);
    }
    cz_bc_pop(r, o);
    return st;
}

/* ---- writer ------------------------------------------------------------------------ */

void cz_bc_wbytes(cz_bc_wr *w, const void *src, size_t n) {
    if (w->oom || !n) return;
    if (w->cap - w->len < n) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap - w->len < n) cap *= 2;
        uint8_t *nb = realloc(w->b, cap);
        if (!nb) {
            w->oom = true;
            return;
        }
        w->b = nb;
        w->cap = cap;
    }
    memcpy(w->b + w->len, src, n);
    w->len += n;
}

void cz_bc_wu64(cz_bc_wr *w, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    cz_bc_wbytes(w, b, 8);
}

void cz_bc_wu32(cz_bc_wr *w, uint32_t v) {
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
    cz_bc_wbytes(w, b, 4);
}

void cz_bc_wpatch_u64(cz_bc_wr *w, size_t at, uint64_t v) {
    if (w->oom) return;
    for (int i = 0; i < 8; i++) w->b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static void wr_path(cz_bc_wr *w, const cz_fil_path *p) {
    cz_bc_wu64(w, p->len);
    for (size_t l = 0; l < p->len; l++) {
        cz_bc_wu64(w, p->elems[l].nhashes);
        for (unsigned i = 0; i < p->elems[l].nhashes; i++) cz_bc_wbytes(w, p->elems[l].hashes[i].b, 32);
        cz_bc_wu64(w, p->elems[l].index);
    }
}

void cz_bc_wmerkle(cz_bc_wr *w, const cz_fil_merkle_proof *mp) {
    cz_bc_wu32(w, (uint32_t)mp->kind);
    if (mp->kind == CZ_FIL_PROOF_SINGLE) {
        cz_bc_wbytes(w, mp->root.b, 32);
        cz_bc_wbytes(w, mp->leaf.b, 32);
        wr_path(w, &mp->base);
        return;
    }
    wr_path(w, &mp->base);
    wr_path(w, &mp->sub);
    if (mp->kind == CZ_FIL_PROOF_TOP) wr_path(w, &mp->top);
    cz_bc_wbytes(w, mp->root.b, 32);
    cz_bc_wbytes(w, mp->leaf.b, 32);
}

cz_status cz_bc_wfinish(cz_bc_wr *w, uint8_t **out, size_t *len) {
    if (w->oom) {
        free(w->b);
        memset(w, 0, sizeof *w);
        return CZ_ERR_NOMEM;
    }
    *out = w->b;
    *len = w->len;
    return CZ_OK;
}

/* ---- equality ---------------------------------------------------------------------- */

static bool path_equal(const cz_fil_path *a, const cz_fil_path *b) {
    if (a->len != b->len) return false;
    for (size_t l = 0; l < a->len; l++) {
        const cz_fil_path_elem *x = &a->elems[l], *y = &b->elems[l];
        if (x->index != y->index || x->nhashes != y->nhashes ||
            (x->nhashes && memcmp(x->hashes, y->hashes, (size_t)x->nhashes * sizeof *x->hashes)))
            return false;
    }
    return true;
}

bool cz_bc_merkle_equal(const cz_fil_merkle_proof *a, const cz_fil_merkle_proof *b) {
    return a->kind == b->kind && !memcmp(a->root.b, b->root.b, 32) && !memcmp(a->leaf.b, b->leaf.b, 32) &&
           path_equal(&a->base, &b->base) && path_equal(&a->sub, &b->sub) && path_equal(&a->top, &b->top);
}
