/*
 * SnapDeals vanilla proofs as bytes: the bincode PartitionProof that
 * filecoin-proofs-api's update.rs writes (bincode::serialize, bincode 1.x
 * legacy options: little-endian, fixint, u64 lengths, u32 enum variants)
 * and cuzk's request envelope. See cuzk/fil_snap.h for both layouts.
 *
 * The reader checks each length against the proof's shape before
 * allocating anything it sizes, so a hostile length costs nothing.
 */
#include "cuzk/fil_snap.h"
#include "snap_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shapes ---------------------------------------------------------------------- */

static cz_status path_shape(const cz_fil_path *p, size_t len, unsigned arity, const char *what,
                            const char *part, cz_errbuf *err) {
    if (p->len != len)
        return cz_err(err, CZ_ERR_FORMAT, "%s.%s: %zu levels, expected %zu", what, part, p->len, len);
    for (size_t l = 0; l < len; l++) {
        if (p->elems[l].nhashes != arity - 1)
            return cz_err(err, CZ_ERR_FORMAT, "%s.%s[%zu]: %u siblings, expected %u", what, part, l,
                          p->elems[l].nhashes, arity - 1);
        if (p->elems[l].index >= arity)
            return cz_err(err, CZ_ERR_FORMAT, "%s.%s[%zu]: index %u out of range for arity %u", what, part, l,
                          p->elems[l].index, arity);
    }
    return CZ_OK;
}

static cz_fil_proof_kind tree_r_kind(const cz_fil_snap_proof *p) {
    return p->tree_top_arity ? CZ_FIL_PROOF_TOP : p->tree_sub_arity ? CZ_FIL_PROOF_SUB : CZ_FIL_PROOF_SINGLE;
}

cz_status cz_snap_tree_r_shape(const cz_fil_snap_proof *p, const cz_fil_merkle_proof *mp, const char *what,
                               cz_errbuf *err) {
    if (mp->kind != tree_r_kind(p))
        return cz_err(err, CZ_ERR_FORMAT, "%s: proof kind %d, expected %d for tree shape 8-%u-%u", what,
                      (int)mp->kind, (int)tree_r_kind(p), p->tree_sub_arity, p->tree_top_arity);
    cz_status st = path_shape(&mp->base, p->tree_r_base_len, 8, what, "base", err);
    if (st == CZ_OK) st = path_shape(&mp->sub, p->tree_sub_arity ? 1 : 0, p->tree_sub_arity, what, "sub", err);
    if (st == CZ_OK) st = path_shape(&mp->top, p->tree_top_arity ? 1 : 0, p->tree_top_arity, what, "top", err);
    return st;
}

cz_status cz_snap_tree_d_shape(const cz_fil_snap_proof *p, const cz_fil_merkle_proof *mp, const char *what,
                               cz_errbuf *err) {
    if (mp->kind != CZ_FIL_PROOF_SINGLE || mp->sub.len || mp->top.len)
        return cz_err(err, CZ_ERR_FORMAT, "%s: tree D proofs are Single", what);
    return path_shape(&mp->base, p->challenge_bit_len, 2, what, "path", err);
}

cz_status cz_snap_partition_shape(const cz_fil_snap_proof *p, const cz_fil_snap_partition_proof *pp,
                                  cz_errbuf *err) {
    if (pp->napex != p->apex_leaves || !pp->apex_leafs)
        return cz_err(err, CZ_ERR_FORMAT, "apex_leafs: %zu, expected %u", pp->napex, p->apex_leaves);
    if (pp->nchallenges != p->challenges || !pp->challenges)
        return cz_err(err, CZ_ERR_FORMAT, "challenge_proofs: %zu, expected %u", pp->nchallenges, p->challenges);
    char what[64];
    for (size_t c = 0; c < pp->nchallenges; c++) {
        const cz_fil_snap_challenge_proof *cp = &pp->challenges[c];
        snprintf(what, sizeof what, "challenge_proofs[%zu].proof_r_old", c);
        cz_status st = cz_snap_tree_r_shape(p, &cp->proof_r_old, what, err);
        if (st != CZ_OK) return st;
        snprintf(what, sizeof what, "challenge_proofs[%zu].proof_d_new", c);
        if ((st = cz_snap_tree_d_shape(p, &cp->proof_d_new, what, err)) != CZ_OK) return st;
        snprintf(what, sizeof what, "challenge_proofs[%zu].proof_r_new", c);
        if ((st = cz_snap_tree_r_shape(p, &cp->proof_r_new, what, err)) != CZ_OK) return st;
    }
    return CZ_OK;
}

/* ---- ownership -------------------------------------------------------------------- */

void cz_fil_snap_partition_free(cz_fil_snap_partition_proof *pp) {
    if (!pp) return;
    free(pp->apex_leafs);
    if (pp->challenges)
        for (size_t c = 0; c < pp->nchallenges; c++) {
            cz_fil_merkle_proof_free(&pp->challenges[c].proof_r_old);
            cz_fil_merkle_proof_free(&pp->challenges[c].proof_d_new);
            cz_fil_merkle_proof_free(&pp->challenges[c].proof_r_new);
        }
    free(pp->challenges);
    memset(pp, 0, sizeof *pp);
}

void cz_fil_snap_request_free(cz_fil_snap_request *r) {
    if (!r) return;
    if (r->partitions)
        for (size_t k = 0; k < r->npartitions; k++) cz_fil_snap_partition_free(&r->partitions[k]);
    free(r->partitions);
    memset(r, 0, sizeof *r);
}

/* ---- reader --------------------------------------------------------------------------- */

typedef struct {
    const uint8_t *buf;
    size_t len, off;
    size_t base;      /* offset of buf within the whole message (for messages) */
    char path[200];   /* field being read */
    cz_errbuf *err;
} rd;

static cz_status rd_fail(rd *r, cz_status st, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static cz_status rd_fail(rd *r, cz_status st, const char *fmt, ...) {
    char m[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    return cz_err(r->err, st, "%s at byte %zu: %s", r->path[0] ? r->path : "PartitionProof", r->base + r->off, m);
}

static void rd_at(rd *r, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void rd_at(rd *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->path, sizeof r->path, fmt, ap);
    va_end(ap);
}

static cz_status rd_need(rd *r, size_t n) {
    if (r->len - r->off < n)
        return rd_fail(r, CZ_ERR_FORMAT, "truncated (needs %zu bytes, %zu left)", n, r->len - r->off);
    return CZ_OK;
}

static cz_status rd_u64(rd *r, uint64_t *v) {
    cz_status st = rd_need(r, 8);
    if (st != CZ_OK) return st;
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = x << 8 | r->buf[r->off + (size_t)i];
    r->off += 8;
    *v = x;
    return CZ_OK;
}

static cz_status rd_u32(rd *r, uint32_t *v) {
    cz_status st = rd_need(r, 4);
    if (st != CZ_OK) return st;
    const uint8_t *b = r->buf + r->off;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    r->off += 4;
    return CZ_OK;
}

/* A domain element ([u8; 32] newtype), canonical. */
static cz_status rd_dom(rd *r, cz_fil_domain *d) {
    cz_status st = rd_need(r, 32);
    if (st != CZ_OK) return st;
    memcpy(d->b, r->buf + r->off, 32);
    cz_fr t;
    if (cz_fil_domain_to_fr(&t, d) != CZ_OK) return rd_fail(r, CZ_ERR_NOT_CANONICAL, "not a canonical field element");
    r->off += 32;
    return CZ_OK;
}

/* A length that must equal `want` (the shape): checked before anything is
 * allocated from it. */
static cz_status rd_len(rd *r, uint64_t want) {
    uint64_t n;
    cz_status st = rd_u64(r, &n);
    if (st != CZ_OK) return st;
    if (n != want) {
        r->off -= 8;
        return rd_fail(r, CZ_ERR_FORMAT, "length %llu, expected %llu", (unsigned long long)n,
                       (unsigned long long)want);
    }
    return CZ_OK;
}

/* InclusionPath { path: Vec<PathElement { hashes: Vec<Domain>, index: usize }> } */
static cz_status rd_path(rd *r, cz_fil_path *p, size_t levels, unsigned arity, const char *where) {
    rd_at(r, "%s", where);
    cz_status st = rd_len(r, levels);
    if (st != CZ_OK) return st;
    p->elems = levels ? calloc(levels, sizeof *p->elems) : NULL;
    if (levels && !p->elems) return CZ_ERR_NOMEM;
    p->len = levels;
    for (size_t l = 0; l < levels; l++) {
        cz_fil_path_elem *e = &p->elems[l];
        rd_at(r, "%s[%zu].hashes", where, l);
        if ((st = rd_len(r, arity - 1)) != CZ_OK) return st;
        e->hashes = malloc((arity - 1) * sizeof *e->hashes);
        if (!e->hashes) return CZ_ERR_NOMEM;
        e->nhashes = arity - 1;
        for (unsigned i = 0; i + 1 < arity; i++) {
            rd_at(r, "%s[%zu].hashes[%u]", where, l, i);
            if ((st = rd_dom(r, &e->hashes[i])) != CZ_OK) return st;
        }
        rd_at(r, "%s[%zu].index", where, l);
        uint64_t idx;
        if ((st = rd_u64(r, &idx)) != CZ_OK) return st;
        if (idx >= arity) {
            r->off -= 8;
            return rd_fail(r, CZ_ERR_FORMAT, "index %llu out of range for arity %u", (unsigned long long)idx, arity);
        }
        e->index = (unsigned)idx;
    }
    return CZ_OK;
}

/* MerkleProof { data: ProofData::{Single, Sub, Top} } */
static cz_status rd_merkle(rd *r, cz_fil_merkle_proof *mp, const cz_fil_snap_proof *p, bool tree_d,
                           const char *where) {
    char w[160];
    cz_fil_proof_kind want = tree_d ? CZ_FIL_PROOF_SINGLE : tree_r_kind(p);
    static const char *vn[3] = { "Single", "Sub", "Top" };
    rd_at(r, "%s.data", where);
    uint32_t variant;
    cz_status st = rd_u32(r, &variant);
    if (st != CZ_OK) return st;
    if (variant != (uint32_t)want) {
        r->off -= 4;
        return rd_fail(r, CZ_ERR_FORMAT, "ProofData variant %u, expected %u (%s)", variant, (unsigned)want, vn[want]);
    }
    mp->kind = want;
    if (want == CZ_FIL_PROOF_SINGLE) {
        snprintf(w, sizeof w, "%s.Single.root", where);
        rd_at(r, "%s", w);
        if ((st = rd_dom(r, &mp->root)) != CZ_OK) return st;
        snprintf(w, sizeof w, "%s.Single.leaf", where);
        rd_at(r, "%s", w);
        if ((st = rd_dom(r, &mp->leaf)) != CZ_OK) return st;
        snprintf(w, sizeof w, "%s.Single.path", where);
        return rd_path(r, &mp->base, tree_d ? p->challenge_bit_len : p->tree_r_base_len, tree_d ? 2 : 8, w);
    }
    snprintf(w, sizeof w, "%s.%s.base_proof", where, vn[want]);
    if ((st = rd_path(r, &mp->base, p->tree_r_base_len, 8, w)) != CZ_OK) return st;
    snprintf(w, sizeof w, "%s.%s.sub_proof", where, vn[want]);
    if ((st = rd_path(r, &mp->sub, 1, p->tree_sub_arity, w)) != CZ_OK) return st;
    if (want == CZ_FIL_PROOF_TOP) {
        snprintf(w, sizeof w, "%s.Top.top_proof", where);
        if ((st = rd_path(r, &mp->top, 1, p->tree_top_arity, w)) != CZ_OK) return st;
    }
    snprintf(w, sizeof w, "%s.%s.root", where, vn[want]);
    rd_at(r, "%s", w);
    if ((st = rd_dom(r, &mp->root)) != CZ_OK) return st;
    snprintf(w, sizeof w, "%s.%s.leaf", where, vn[want]);
    rd_at(r, "%s", w);
    return rd_dom(r, &mp->leaf);
}

static cz_status partition_read(rd *r, cz_fil_snap_partition_proof *out, const cz_fil_snap_proof *p) {
    cz_status st;
    rd_at(r, "comm_c");
    if ((st = rd_dom(r, &out->comm_c)) != CZ_OK) return st;
    rd_at(r, "apex_leafs");
    if ((st = rd_len(r, p->apex_leaves)) != CZ_OK) return st;
    out->apex_leafs = malloc(p->apex_leaves * sizeof *out->apex_leafs);
    if (!out->apex_leafs) return CZ_ERR_NOMEM;
    out->napex = p->apex_leaves;
    for (unsigned i = 0; i < p->apex_leaves; i++) {
        rd_at(r, "apex_leafs[%u]", i);
        if ((st = rd_dom(r, &out->apex_leafs[i])) != CZ_OK) return st;
    }
    rd_at(r, "challenge_proofs");
    if ((st = rd_len(r, p->challenges)) != CZ_OK) return st;
    out->challenges = calloc(p->challenges, sizeof *out->challenges);
    if (!out->challenges) return CZ_ERR_NOMEM;
    out->nchallenges = p->challenges;
    char w[64];
    for (unsigned c = 0; c < p->challenges; c++) {
        cz_fil_snap_challenge_proof *cp = &out->challenges[c];
        snprintf(w, sizeof w, "challenge_proofs[%u].proof_r_old", c);
        if ((st = rd_merkle(r, &cp->proof_r_old, p, false, w)) != CZ_OK) return st;
        snprintf(w, sizeof w, "challenge_proofs[%u].proof_d_new", c);
        if ((st = rd_merkle(r, &cp->proof_d_new, p, true, w)) != CZ_OK) return st;
        snprintf(w, sizeof w, "challenge_proofs[%u].proof_r_new", c);
        if ((st = rd_merkle(r, &cp->proof_r_new, p, false, w)) != CZ_OK) return st;
    }
    if (r->off != r->len) {
        r->path[0] = '\0';
        return rd_fail(r, CZ_ERR_FORMAT, "%zu trailing bytes after the partition proof", r->len - r->off);
    }
    return CZ_OK;
}

static cz_status partition_parse(cz_fil_snap_partition_proof *out, const cz_fil_snap_proof *p, const uint8_t *buf,
                                 size_t len, size_t base, cz_errbuf *err) {
    memset(out, 0, sizeof *out);
    if (!p || (!buf && len)) return cz_err(err, CZ_ERR_INVALID_ARG, "snap bincode: NULL argument");
    rd r = { buf, len, 0, base, "", err };
    cz_status st = partition_read(&r, out, p);
    if (st == CZ_ERR_NOMEM) cz_err(err, st, "snap bincode: out of memory");
    if (st != CZ_OK) cz_fil_snap_partition_free(out);
    return st;
}

cz_status cz_fil_snap_partition_from_bincode(cz_fil_snap_partition_proof *out, const cz_fil_snap_proof *p,
                                             const uint8_t *buf, size_t len, cz_errbuf *err) {
    if (!out) return cz_err(err, CZ_ERR_INVALID_ARG, "snap bincode: NULL argument");
    return partition_parse(out, p, buf, len, 0, err);
}

/* ---- writer ----------------------------------------------------------------------------- */

typedef struct {
    uint8_t *b;
    size_t n, cap;
    bool oom;
} wr;

static void w_bytes(wr *w, const void *src, size_t n) {
    if (w->oom) return;
    if (w->n + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->n + n) cap *= 2;
        uint8_t *nb = realloc(w->b, cap);
        if (!nb) {
            w->oom = true;
            return;
        }
        w->b = nb;
        w->cap = cap;
    }
    memcpy(w->b + w->n, src, n);
    w->n += n;
}

static void w_u64(wr *w, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    w_bytes(w, b, 8);
}

static void w_u32(wr *w, uint32_t v) {
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
    w_bytes(w, b, 4);
}

static void w_path(wr *w, const cz_fil_path *p) {
    w_u64(w, p->len);
    for (size_t l = 0; l < p->len; l++) {
        w_u64(w, p->elems[l].nhashes);
        for (unsigned i = 0; i < p->elems[l].nhashes; i++) w_bytes(w, p->elems[l].hashes[i].b, 32);
        w_u64(w, p->elems[l].index);
    }
}

static void w_merkle(wr *w, const cz_fil_merkle_proof *mp) {
    w_u32(w, (uint32_t)mp->kind);
    if (mp->kind == CZ_FIL_PROOF_SINGLE) {
        w_bytes(w, mp->root.b, 32);
        w_bytes(w, mp->leaf.b, 32);
        w_path(w, &mp->base);
        return;
    }
    w_path(w, &mp->base);
    w_path(w, &mp->sub);
    if (mp->kind == CZ_FIL_PROOF_TOP) w_path(w, &mp->top);
    w_bytes(w, mp->root.b, 32);
    w_bytes(w, mp->leaf.b, 32);
}

static void w_partition(wr *w, const cz_fil_snap_partition_proof *pp) {
    w_bytes(w, pp->comm_c.b, 32);
    w_u64(w, pp->napex);
    for (size_t i = 0; i < pp->napex; i++) w_bytes(w, pp->apex_leafs[i].b, 32);
    w_u64(w, pp->nchallenges);
    for (size_t c = 0; c < pp->nchallenges; c++) {
        w_merkle(w, &pp->challenges[c].proof_r_old);
        w_merkle(w, &pp->challenges[c].proof_d_new);
        w_merkle(w, &pp->challenges[c].proof_r_new);
    }
}

cz_status cz_fil_snap_partition_to_bincode(const cz_fil_snap_partition_proof *pp, const cz_fil_snap_proof *p,
                                           uint8_t **out, size_t *len) {
    if (!pp || !p || !out || !len) return CZ_ERR_INVALID_ARG;
    *out = NULL;
    *len = 0;
    if (cz_snap_partition_shape(p, pp, NULL) != CZ_OK) return CZ_ERR_INVALID_ARG;
    wr w = { 0 };
    w_partition(&w, pp);
    if (w.oom) {
        free(w.b);
        return CZ_ERR_NOMEM;
    }
    *out = w.b;
    *len = w.n;
    return CZ_OK;
}

/* ---- request ------------------------------------------------------------------------------ */

static cz_status comm_of(cz_fil_domain *d, const uint8_t b[32], const char *name, cz_errbuf *err) {
    memcpy(d->b, b, 32);
    cz_fr t;
    if (cz_fil_domain_to_fr(&t, d) != CZ_OK)
        return cz_err(err, CZ_ERR_NOT_CANONICAL, "%s is not a canonical field element", name);
    return CZ_OK;
}

static cz_status request_alloc(cz_fil_snap_request *out, const cz_fil_snap_proof *p) {
    out->proof = p;
    out->partitions = calloc(p->partitions, sizeof *out->partitions);
    if (!out->partitions) return CZ_ERR_NOMEM;
    out->npartitions = p->partitions;
    return CZ_OK;
}

static cz_status partition_parse_into(cz_fil_snap_request *out, size_t k, const uint8_t *buf, size_t len,
                                      size_t base, cz_errbuf *err) {
    cz_errbuf e;
    cz_status st = partition_parse(&out->partitions[k], out->proof, buf, len, base, &e);
    if (st != CZ_OK) cz_err(err, st, "partition %zu: %s", k, e.msg);
    return st;
}

cz_status cz_fil_snap_request_from_parts(cz_fil_snap_request *out, unsigned registered_proof,
                                         const uint8_t comm_r_old[32], const uint8_t comm_r_new[32],
                                         const uint8_t comm_d_new[32], const uint8_t *const *proofs,
                                         const size_t *lens, size_t n, cz_errbuf *err) {
    if (!out) return cz_err(err, CZ_ERR_INVALID_ARG, "snap request: NULL argument");
    memset(out, 0, sizeof *out);
    const cz_fil_snap_proof *p = cz_fil_snap_proof_by_id(registered_proof);
    if (!p) return cz_err(err, CZ_ERR_INVALID_ARG, "unknown RegisteredUpdateProof value: %u", registered_proof);
    if (!comm_r_old || !comm_r_new || !comm_d_new || (n && (!proofs || !lens)))
        return cz_err(err, CZ_ERR_INVALID_ARG, "snap request: NULL argument");
    if (n != p->partitions)
        return cz_err(err, CZ_ERR_FORMAT, "%zu partition proofs, %s has %u partitions", n, p->name, p->partitions);
    cz_status st = comm_of(&out->comm_r_old, comm_r_old, "comm_r_old", err);
    if (st == CZ_OK) st = comm_of(&out->comm_r_new, comm_r_new, "comm_r_new", err);
    if (st == CZ_OK) st = comm_of(&out->comm_d_new, comm_d_new, "comm_d_new", err);
    if (st == CZ_OK && (st = request_alloc(out, p)) != CZ_OK) cz_err(err, st, "snap request: out of memory");
    for (size_t k = 0; st == CZ_OK && k < n; k++) st = partition_parse_into(out, k, proofs[k], lens[k], 0, err);
    if (st != CZ_OK) cz_fil_snap_request_free(out);
    return st;
}

cz_status cz_fil_snap_request_encode(const cz_fil_snap_request *r, uint8_t **out, size_t *len) {
    if (!r || !r->proof || !out || !len || r->proof->id < 0 || r->npartitions != r->proof->partitions)
        return CZ_ERR_INVALID_ARG;
    *out = NULL;
    *len = 0;
    wr w = { 0 };
    w_bytes(&w, CZ_FIL_SNAP_REQUEST_MAGIC, 8);
    w_u32(&w, CZ_FIL_SNAP_REQUEST_VERSION);
    w_u32(&w, (uint32_t)r->proof->id);
    w_bytes(&w, r->comm_r_old.b, 32);
    w_bytes(&w, r->comm_r_new.b, 32);
    w_bytes(&w, r->comm_d_new.b, 32);
    w_u32(&w, (uint32_t)r->npartitions);
    for (size_t k = 0; k < r->npartitions; k++) {
        if (cz_snap_partition_shape(r->proof, &r->partitions[k], NULL) != CZ_OK) {
            free(w.b);
            return CZ_ERR_INVALID_ARG;
        }
        size_t at = w.n;
        w_u64(&w, 0); /* length, patched below */
        w_partition(&w, &r->partitions[k]);
        if (!w.oom) {
            uint64_t n = w.n - at - 8;
            for (int i = 0; i < 8; i++) w.b[at + (size_t)i] = (uint8_t)(n >> (8 * i));
        }
    }
    if (w.oom) {
        free(w.b);
        return CZ_ERR_NOMEM;
    }
    *out = w.b;
    *len = w.n;
    return CZ_OK;
}

static cz_status request_parse(cz_fil_snap_request *out, const uint8_t *buf, size_t len, cz_errbuf *err) {
    rd r = { buf, len, 0, 0, "magic", err };
    cz_status st = rd_need(&r, 8);
    if (st != CZ_OK) return st;
    if (memcmp(buf, CZ_FIL_SNAP_REQUEST_MAGIC, 8) != 0)
        return rd_fail(&r, CZ_ERR_FORMAT, "not a cuzk SnapDeals request (magic \"%s\")", CZ_FIL_SNAP_REQUEST_MAGIC);
    r.off = 8;
    uint32_t version, id, np;
    rd_at(&r, "version");
    if ((st = rd_u32(&r, &version)) != CZ_OK) return st;
    if (version != CZ_FIL_SNAP_REQUEST_VERSION) {
        r.off -= 4;
        return rd_fail(&r, CZ_ERR_FORMAT, "version %u unsupported (this build reads %u)", version,
                       CZ_FIL_SNAP_REQUEST_VERSION);
    }
    rd_at(&r, "registered_proof");
    if ((st = rd_u32(&r, &id)) != CZ_OK) return st;
    const cz_fil_snap_proof *p = cz_fil_snap_proof_by_id(id);
    if (!p) {
        r.off -= 4;
        return rd_fail(&r, CZ_ERR_FORMAT, "unknown RegisteredUpdateProof value %u", id);
    }
    cz_fil_domain *comms[3] = { &out->comm_r_old, &out->comm_r_new, &out->comm_d_new };
    static const char *names[3] = { "comm_r_old", "comm_r_new", "comm_d_new" };
    for (int i = 0; i < 3; i++) {
        rd_at(&r, "%s", names[i]);
        if ((st = rd_dom(&r, comms[i])) != CZ_OK) return st;
    }
    rd_at(&r, "npartitions");
    if ((st = rd_u32(&r, &np)) != CZ_OK) return st;
    if (np != p->partitions) {
        r.off -= 4;
        return rd_fail(&r, CZ_ERR_FORMAT, "%u partitions, %s has %u", np, p->name, p->partitions);
    }
    if ((st = request_alloc(out, p)) != CZ_OK) return cz_err(err, st, "snap request: out of memory");
    for (uint32_t k = 0; k < np; k++) {
        uint64_t n;
        rd_at(&r, "partition[%u].len", k);
        if ((st = rd_u64(&r, &n)) != CZ_OK) break;
        if (n > r.len - r.off) {
            r.off -= 8;
            st = rd_fail(&r, CZ_ERR_FORMAT, "length %llu exceeds the %zu bytes left", (unsigned long long)n,
                         r.len - r.off - 8);
            break;
        }
        if ((st = partition_parse_into(out, k, buf + r.off, (size_t)n, r.off, err)) != CZ_OK) break;
        r.off += (size_t)n;
    }
    if (st == CZ_OK && r.off != len) {
        r.path[0] = '\0';
        rd_at(&r, "request");
        st = rd_fail(&r, CZ_ERR_FORMAT, "%zu trailing bytes", len - r.off);
    }
    return st;
}

cz_status cz_fil_snap_request_parse(cz_fil_snap_request *out, const uint8_t *buf, size_t len, cz_errbuf *err) {
    if (!out) return cz_err(err, CZ_ERR_INVALID_ARG, "snap request: NULL argument");
    memset(out, 0, sizeof *out);
    if (!buf && len) return cz_err(err, CZ_ERR_INVALID_ARG, "snap request: NULL argument");
    cz_status st = request_parse(out, buf, len, err);
    if (st != CZ_OK) cz_fil_snap_request_free(out); /* leaves *out zeroed */
    return st;
}
