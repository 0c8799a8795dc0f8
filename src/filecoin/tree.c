/*
 * fr32 padding and Filecoin's Merkle trees (see cuzk/fil_tree.h).
 *
 * Storage: each base tree keeps every level, leaves first, so a proof is a
 * read of siblings at each level (the reference's on-disk trees discard
 * low rows of tree R and rebuild them per proof; in memory there is no
 * need). Levels are built in parallel over the pool, one node per task
 * chunk: node hashes dominate (SHA-256: two compressions; Poseidon: one
 * permutation of width arity + 1).
 */
#include "cuzk/fil_tree.h"
#include "cuzk/fil_poseidon.h"
#include "cuzk/sha256.h"

#include <stdlib.h>
#include <string.h>

/* ---- fr32 -------------------------------------------------------------------- */
void cz_fil_fr32_pad(uint8_t *out, const uint8_t *in, size_t in_len) {
    for (size_t q = 0; q < in_len / 127; q++) {
        const uint8_t *src = in + 127 * q;
        uint8_t *dst = out + 128 * q;
        /* piece j holds input bits [254 j, 254 j + 254): byte offset
         * 254j / 8, bit shift 254j % 8 = 0, 6, 4, 2 */
        for (unsigned j = 0; j < 4; j++) {
            unsigned bit = 254 * j, off = bit / 8, sh = bit % 8;
            for (unsigned k = 0; k < 32; k++) {
                unsigned a = off + k;
                unsigned lo = a < 127 ? src[a] : 0;
                unsigned hi = a + 1 < 127 ? src[a + 1] : 0;
                dst[32 * j + k] = (uint8_t)(sh ? (lo >> sh) | (hi << (8 - sh)) : lo);
            }
            dst[32 * j + 31] &= 0x3f;
        }
    }
}

void cz_fil_fr32_unpad(uint8_t *out, const uint8_t *in, size_t in_len) {
    for (size_t q = 0; q < in_len / 128; q++) {
        const uint8_t *src = in + 128 * q;
        uint8_t *dst = out + 127 * q;
        memset(dst, 0, 127);
        for (unsigned j = 0; j < 4; j++) {
            unsigned bit = 254 * j, off = bit / 8, sh = bit % 8;
            for (unsigned k = 0; k < 32; k++) {
                unsigned v = src[32 * j + k];
                if (k == 31) v &= 0x3f;
                unsigned a = off + k;
                if (a < 127) dst[a] |= (uint8_t)(v << sh);
                if (sh && a + 1 < 127) dst[a + 1] |= (uint8_t)(v >> (8 - sh));
            }
        }
    }
}

/* ---- node hashes ---------------------------------------------------------------- */
cz_status cz_fil_hash_node(cz_fil_domain *out, cz_fil_hasher hasher, const cz_fil_domain *children,
                           unsigned arity) {
    if (hasher == CZ_FIL_HASHER_SHA256) {
        if (arity != 2) return CZ_ERR_INVALID_ARG;
        /* Sha256Function::node: SHA-256(left ‖ right), 254-bit truncation */
        cz_sha256(out->b, children, 64);
        cz_fil_trim_254(out->b);
        return CZ_OK;
    }
    return cz_fil_poseidon_hash_node(out, children, arity);
}

/* ---- building ------------------------------------------------------------------ */
static unsigned log_arity(uint64_t n, unsigned arity) {
    unsigned h = 0;
    while (n > 1) {
        if (n % arity) return 0;
        n /= arity;
        h++;
    }
    return h;
}

typedef struct {
    cz_fil_domain *src, *dst;
    cz_fil_hasher hasher;
    unsigned arity;
} level_job;

static void sha_level_range(void *arg, size_t lo, size_t hi) {
    const level_job *j = arg;
    for (size_t i = lo; i < hi; i++) {
        cz_sha256(j->dst[i].b, &j->src[2 * i], 64);
        cz_fil_trim_254(j->dst[i].b);
    }
}

/* Offset of level `lvl` inside a base tree's storage. */
static size_t level_offset(const cz_fil_tree *t, unsigned lvl) {
    size_t off = 0, n = t->base_leaves;
    for (unsigned l = 0; l < lvl; l++) {
        off += n;
        n /= t->arity;
    }
    return off;
}

cz_status cz_fil_tree_build(cz_fil_tree *t, cz_fil_hasher hasher, unsigned arity,
                            unsigned sub_arity, unsigned top_arity,
                            const cz_fil_domain *leaves, uint64_t nleaves, cz_pool *pool) {
    memset(t, 0, sizeof *t);
    if (!leaves || arity < 2 || (top_arity && !sub_arity)) return CZ_ERR_INVALID_ARG;
    size_t nbase = (sub_arity ? sub_arity : 1) * (size_t)(top_arity ? top_arity : 1);
    if (nleaves % nbase) return CZ_ERR_INVALID_ARG;
    uint64_t per = nleaves / nbase;
    unsigned h = log_arity(per, arity);
    if (h == 0) return CZ_ERR_INVALID_ARG;
    t->hasher = hasher;
    t->arity = arity;
    t->sub_arity = sub_arity;
    t->top_arity = top_arity;
    t->nbase = nbase;
    t->base_leaves = per;
    t->base_height = h;
    size_t total = 0;
    for (uint64_t n = per; n >= 1; n /= arity) {
        total += n;
        if (n == 1) break;
    }
    t->base_nodes = total;
    t->nodes = malloc(nbase * total * sizeof *t->nodes);
    if (!t->nodes) return CZ_ERR_NOMEM;
    for (size_t b = 0; b < nbase; b++) {
        cz_fil_domain *base = t->nodes + b * total;
        memcpy(base, leaves + b * per, per * sizeof *base);
        size_t off = 0;
        for (uint64_t n = per; n > 1; n /= arity) {
            size_t parents = n / arity;
            if (hasher == CZ_FIL_HASHER_SHA256) {
                if (arity != 2) { cz_fil_tree_free(t); return CZ_ERR_INVALID_ARG; }
                level_job j = { base + off, base + off + n, hasher, arity };
                cz_pool_parallel_range(pool, 0, parents, parents / 64 + 1, sha_level_range, &j);
            } else {
                cz_status st = cz_fil_poseidon_hash_nodes(base + off + n, base + off, parents, arity, pool);
                if (st != CZ_OK) { cz_fil_tree_free(t); return st; }
            }
            off += n;
        }
    }
    if (!sub_arity) {
        t->root = t->nodes[total - 1];
        return CZ_OK;
    }
    /* sub roots: groups of sub_arity base roots */
    size_t nsub = top_arity ? top_arity : 1;
    cz_fil_domain kids[16];
    if (top_arity) {
        t->sub_roots = malloc(nsub * sizeof *t->sub_roots);
        if (!t->sub_roots) {
            cz_fil_tree_free(t);
            return CZ_ERR_NOMEM;
        }
    }
    cz_fil_domain sub_root_tmp;
    cz_status st = CZ_OK;
    for (size_t s = 0; st == CZ_OK && s < nsub; s++) {
        for (unsigned k = 0; k < sub_arity; k++) kids[k] = t->nodes[(s * sub_arity + k) * total + total - 1];
        st = cz_fil_hash_node(top_arity ? &t->sub_roots[s] : &sub_root_tmp, hasher, kids, sub_arity);
    }
    if (st == CZ_OK) {
        if (top_arity)
            st = cz_fil_hash_node(&t->root, hasher, t->sub_roots, top_arity);
        else
            t->root = sub_root_tmp;
    }
    if (st != CZ_OK) cz_fil_tree_free(t);
    return st;
}

void cz_fil_tree_free(cz_fil_tree *t) {
    if (!t) return;
    free(t->nodes);
    free(t->sub_roots);
    memset(t, 0, sizeof *t);
}

uint64_t cz_fil_tree_leaves(const cz_fil_tree *t) { return t->base_leaves * t->nbase; }

const cz_fil_domain *cz_fil_tree_leaf(const cz_fil_tree *t, uint64_t i) {
    return &t->nodes[(i / t->base_leaves) * t->base_nodes + i % t->base_leaves];
}

/* ---- proofs ----------------------------------------------------------------------- */
static void path_free(cz_fil_path *p) {
    for (size_t i = 0; i < p->len; i++) free(p->elems[i].hashes);
    free(p->elems);
    memset(p, 0, sizeof *p);
}

void cz_fil_merkle_proof_free(cz_fil_merkle_proof *p) {
    if (!p) return;
    path_free(&p->base);
    path_free(&p->sub);
    path_free(&p->top);
    memset(p, 0, sizeof *p);
}

/* One path level: siblings of position `pos` among `arity` nodes at `row`. */
static cz_status level_elem(cz_fil_path_elem *e, const cz_fil_domain *row, unsigned arity,
                            unsigned pos) {
    e->hashes = malloc((arity - 1) * sizeof *e->hashes);
    if (!e->hashes) return CZ_ERR_NOMEM;
    e->nhashes = arity - 1;
    e->index = pos;
    for (unsigned k = 0, o = 0; k < arity; k++)
        if (k != pos) e->hashes[o++] = row[k];
    return CZ_OK;
}

static cz_status path_alloc(cz_fil_path *p, size_t len) {
    p->elems = calloc(len, sizeof *p->elems);
    if (!p->elems) return CZ_ERR_NOMEM;
    p->len = len;
    return CZ_OK;
}

cz_status cz_fil_tree_prove(const cz_fil_tree *t, uint64_t node, cz_fil_merkle_proof *out) {
    memset(out, 0, sizeof *out);
    if (node >= cz_fil_tree_leaves(t)) return CZ_ERR_INVALID_ARG;
    size_t b = (size_t)(node / t->base_leaves);
    uint64_t i = node % t->base_leaves;
    const cz_fil_domain *base = t->nodes + b * t->base_nodes;
    cz_status st = path_alloc(&out->base, t->base_height);
    for (unsigned l = 0; st == CZ_OK && l < t->base_height; l++) {
        const cz_fil_domain *row = base + level_offset(t, l);
        uint64_t first = i - i % t->arity;
        st = level_elem(&out->base.elems[l], row + first, t->arity, (unsigned)(i % t->arity));
        i /= t->arity;
    }
    out->leaf = *cz_fil_tree_leaf(t, node);
    out->root = t->root;
    if (st == CZ_OK && t->sub_arity) {
        cz_fil_domain kids[16];
        size_t grp = b / t->sub_arity;
        for (unsigned k = 0; k < t->sub_arity; k++)
            kids[k] = t->nodes[(grp * t->sub_arity + k) * t->base_nodes + t->base_nodes - 1];
        st = path_alloc(&out->sub, 1);
        if (st == CZ_OK) st = level_elem(&out->sub.elems[0], kids, t->sub_arity, (unsigned)(b % t->sub_arity));
        if (st == CZ_OK && t->top_arity) {
            st = path_alloc(&out->top, 1);
            if (st == CZ_OK) st = level_elem(&out->top.elems[0], t->sub_roots, t->top_arity, (unsigned)grp);
        }
        out->kind = t->top_arity ? CZ_FIL_PROOF_TOP : CZ_FIL_PROOF_SUB;
    } else {
        out->kind = CZ_FIL_PROOF_SINGLE;
    }
    if (st != CZ_OK) cz_fil_merkle_proof_free(out);
    return st;
}

static cz_status path_root(const cz_fil_path *p, cz_fil_hasher hasher, unsigned arity,
                           cz_fil_domain *h) {
    cz_fil_domain kids[16];
    for (size_t l = 0; l < p->len; l++) {
        const cz_fil_path_elem *e = &p->elems[l];
        if (e->nhashes + 1 != arity || e->index >= arity) return CZ_ERR_FORMAT;
        for (unsigned k = 0, o = 0; k < arity; k++) kids[k] = k == e->index ? *h : e->hashes[o++];
        cz_status st = cz_fil_hash_node(h, hasher, kids, arity);
        if (st != CZ_OK) return st;
    }
    return CZ_OK;
}

cz_status cz_fil_merkle_proof_root(const cz_fil_merkle_proof *p, cz_fil_hasher hasher,
                                   unsigned arity, unsigned sub_arity, unsigned top_arity,
                                   cz_fil_domain *root) {
    if (arity < 2 || arity > 16 || sub_arity > 16 || top_arity > 16) return CZ_ERR_INVALID_ARG;
    cz_fil_proof_kind want = top_arity ? CZ_FIL_PROOF_TOP : sub_arity ? CZ_FIL_PROOF_SUB : CZ_FIL_PROOF_SINGLE;
    if (p->kind != want) return CZ_ERR_FORMAT;
    cz_fil_domain h = p->leaf;
    cz_status st = path_root(&p->base, hasher, arity, &h);
    if (st == CZ_OK && sub_arity) st = path_root(&p->sub, hasher, sub_arity, &h);
    if (st == CZ_OK && top_arity) st = path_root(&p->top, hasher, top_arity, &h);
    if (st == CZ_OK) *root = h;
    return st;
}

uint64_t cz_fil_merkle_proof_index(const cz_fil_merkle_proof *p, unsigned arity,
                                   unsigned sub_arity) {
    /* MerkleProofTrait::path_index folds the concatenated levels with the
     * base arity; an exact node index follows only for shapes whose upper
     * levels have it too, so weight each part by its own arity. */
    uint64_t idx = 0, w = 1;
    for (size_t l = 0; l < p->base.len; l++, w *= arity) idx += (uint64_t)p->base.elems[l].index * w;
    for (size_t l = 0; l < p->sub.len; l++, w *= sub_arity) idx += (uint64_t)p->sub.elems[l].index * w;
    for (size_t l = 0; l < p->top.len; l++) idx += (uint64_t)p->top.elems[l].index * w;
    return idx;
}

cz_status cz_fil_merkle_proof_check(const cz_fil_merkle_proof *p, cz_fil_hasher hasher,
                                    unsigned arity, unsigned sub_arity, unsigned top_arity,
                                    uint64_t node, cz_errbuf *err) {
    cz_fil_domain r;
    cz_status st = cz_fil_merkle_proof_root(p, hasher, arity, sub_arity, top_arity, &r);
    if (st == CZ_ERR_NOT_CANONICAL) return cz_err(err, st, "a node of the path is not a canonical field element");
    if (st != CZ_OK) return cz_err(err, st, "malformed Merkle proof (shape or index out of range)");
    if (memcmp(r.b, p->root.b, 32) != 0) return cz_err(err, CZ_ERR_MISMATCH, "Merkle path does not lead to its root");
    uint64_t idx = cz_fil_merkle_proof_index(p, arity, sub_arity);
    if (idx != node)
        return cz_err(err, CZ_ERR_MISMATCH, "Merkle path opens node %llu, expected %llu",
                      (unsigned long long)idx, (unsigned long long)node);
    return CZ_OK;
}
