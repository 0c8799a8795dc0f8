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
#include "bincode_internal.h"
#include "snap_internal.h"

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

/* names a partition proof in messages where no field is being read */
#define PARTITION_ROOT "PartitionProof"

/* MerkleProof { data: ProofData::{Single, Sub, Top} } of tree R or tree D */
static cz_status rd_merkle(cz_bc_rd *r, cz_fil_merkle_proof *mp, const cz_fil_snap_proof *p, bool tree_d) {
    char name[64];
    cz_bc_tree_shape shape;
    if (tree_d) {
        snprintf(name, sizeof name, "tree D of %s", p->name);
        shape = (cz_bc_tree_shape){ CZ_FIL_PROOF_SINGLE, p->challenge_bit_len, 2, 0, 0, name };
    } else {
        snprintf(name, sizeof name, "tree R 8-%u-%u of %s", p->tree_sub_arity, p->tree_top_arity, p->name);
        shape = (cz_bc_tree_shape){ tree_r_kind(p), p->tree_r_base_len, 8, p->tree_sub_arity, p->tree_top_arity,
                                    name };
    }
    return cz_bc_merkle(r, &shape, mp);
}

static cz_status partition_read(cz_bc_rd *r, cz_fil_snap_partition_proof *out, const cz_fil_snap_proof *p) {
    cz_status st;
    cz_bc_at(r, "comm_c");
    if ((st = cz_bc_dom(r, &out->comm_c)) != CZ_OK) return st;
    cz_bc_at(r, "apex_leafs");
    if ((st = cz_bc_len(r, p->apex_leaves, NULL)) != CZ_OK) return st;
    out->apex_leafs = malloc(p->apex_leaves * sizeof *out->apex_leafs);
    if (!out->apex_leafs) return CZ_ERR_NOMEM;
    out->napex = p->apex_leaves;
    for (unsigned i = 0; i < p->apex_leaves; i++) {
        cz_bc_at(r, "apex_leafs[%u]", i);
        if ((st = cz_bc_dom(r, &out->apex_leafs[i])) != CZ_OK) return st;
    }
    cz_bc_at(r, "challenge_proofs");
    if ((st = cz_bc_len(r, p->challenges, NULL)) != CZ_OK) return st;
    out->challenges = calloc(p->challenges, sizeof *out->challenges);
    if (!out->challenges) return CZ_ERR_NOMEM;
    out->nchallenges = p->challenges;
    for (unsigned c = 0; c < p->challenges; c++) {
        cz_fil_snap_challenge_proof *cp = &out->challenges[c];
        cz_bc_at(r, "challenge_proofs[%u].proof_r_old", c);
        if ((st = rd_merkle(r, &cp->proof_r_old, p, false)) != CZ_OK) return st;
        cz_bc_at(r, "challenge_proofs[%u].proof_d_new", c);
        if ((st = rd_merkle(r, &cp->proof_d_new, p, true)) != CZ_OK) return st;
        cz_bc_at(r, "challenge_proofs[%u].proof_r_new", c);
        if ((st = rd_merkle(r, &cp->proof_r_new, p, false)) != CZ_OK) return st;
    }
    if (r->pos != r->len) {
        cz_bc_pop(r, 0);
        return cz_bc_fail(r, CZ_ERR_FORMAT, cz_bc_here(r), "%zu trailing bytes after the partition proof",
                          r->len - r->pos);
    }
    return CZ_OK;
}

static cz_status partition_parse(cz_fil_snap_partition_proof *out, const cz_fil_snap_proof *p, const uint8_t *buf,
                                 size_t len, size_t base, cz_errbuf *err) {
    memset(out, 0, sizeof *out);
    if (!p || (!buf && len)) return cz_err(err, CZ_ERR_INVALID_ARG, "snap bincode: NULL argument");
    cz_bc_rd r;
    cz_bc_rd_init(&r, buf, len, base, "", PARTITION_ROOT, true, err);
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

static void w_partition(cz_bc_wr *w, const cz_fil_snap_partition_proof *pp) {
    cz_bc_wbytes(w, pp->comm_c.b, 32);
    cz_bc_wu64(w, pp->napex);
    for (size_t i = 0; i < pp->napex; i++) cz_bc_wbytes(w, pp->apex_leafs[i].b, 32);
    cz_bc_wu64(w, pp->nchallenges);
    for (size_t c = 0; c < pp->nchallenges; c++) {
        cz_bc_wmerkle(w, &pp->challenges[c].proof_r_old);
        cz_bc_wmerkle(w, &pp->challenges[c].proof_d_new);
        cz_bc_wmerkle(w, &pp->challenges[c].proof_r_new);
    }
}

cz_status cz_fil_snap_partition_to_bincode(const cz_fil_snap_partition_proof *pp, const cz_fil_snap_proof *p,
                                           uint8_t **out, size_t *len) {
    if (!pp || !p || !out || !len) return CZ_ERR_INVALID_ARG;
    *out = NULL;
    *len = 0;
    if (cz_snap_partition_shape(p, pp, NULL) != CZ_OK) return CZ_ERR_INVALID_ARG;
    cz_bc_wr w = { 0 };
    w_partition(&w, pp);
    return cz_bc_wfinish(&w, out, len);
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
    cz_bc_wr w = { 0 };
    cz_bc_wbytes(&w, CZ_FIL_SNAP_REQUEST_MAGIC, 8);
    cz_bc_wu32(&w, CZ_FIL_SNAP_REQUEST_VERSION);
    cz_bc_wu32(&w, (uint32_t)r->proof->id);
    cz_bc_wbytes(&w, r->comm_r_old.b, 32);
    cz_bc_wbytes(&w, r->comm_r_new.b, 32);
    cz_bc_wbytes(&w, r->comm_d_new.b, 32);
    cz_bc_wu32(&w, (uint32_t)r->npartitions);
    for (size_t k = 0; k < r->npartitions; k++) {
        if (cz_snap_partition_shape(r->proof, &r->partitions[k], NULL) != CZ_OK) {
            free(w.b);
            return CZ_ERR_INVALID_ARG;
        }
        size_t at = w.len;
        cz_bc_wu64(&w, 0); /* length, patched below */
        w_partition(&w, &r->partitions[k]);
        cz_bc_wpatch_u64(&w, at, w.len - at - 8);
    }
    return cz_bc_wfinish(&w, out, len);
}

static cz_status request_parse(cz_fil_snap_request *out, const uint8_t *buf, size_t len, cz_errbuf *err) {
    cz_bc_rd r;
    cz_bc_rd_init(&r, buf, len, 0, "", "request", true, err);
    cz_bc_at(&r, "magic");
    cz_status st = cz_bc_need(&r, 8);
    if (st != CZ_OK) return st;
    if (memcmp(buf, CZ_FIL_SNAP_REQUEST_MAGIC, 8) != 0)
        return cz_bc_fail(&r, CZ_ERR_FORMAT, 0, "not a cuzk SnapDeals request (magic \"%s\")",
                          CZ_FIL_SNAP_REQUEST_MAGIC);
    r.pos = 8;
    uint32_t version, id, np;
    size_t at = cz_bc_here(&r);
    cz_bc_at(&r, "version");
    if ((st = cz_bc_u32(&r, &version)) != CZ_OK) return st;
    if (version != CZ_FIL_SNAP_REQUEST_VERSION)
        return cz_bc_fail(&r, CZ_ERR_FORMAT, at, "version %u unsupported (this build reads %u)", version,
                          CZ_FIL_SNAP_REQUEST_VERSION);
    at = cz_bc_here(&r);
    cz_bc_at(&r, "registered_proof");
    if ((st = cz_bc_u32(&r, &id)) != CZ_OK) return st;
    const cz_fil_snap_proof *p = cz_fil_snap_proof_by_id(id);
    if (!p) return cz_bc_fail(&r, CZ_ERR_FORMAT, at, "unknown RegisteredUpdateProof value %u", id);
    cz_fil_domain *comms[3] = { &out->comm_r_old, &out->comm_r_new, &out->comm_d_new };
    static const char *names[3] = { "comm_r_old", "comm_r_new", "comm_d_new" };
    for (int i = 0; i < 3; i++) {
        cz_bc_at(&r, "%s", names[i]);
        if ((st = cz_bc_dom(&r, comms[i])) != CZ_OK) return st;
    }
    at = cz_bc_here(&r);
    cz_bc_at(&r, "npartitions");
    if ((st = cz_bc_u32(&r, &np)) != CZ_OK) return st;
    if (np != p->partitions) return cz_bc_fail(&r, CZ_ERR_FORMAT, at, "%u partitions, %s has %u", np, p->name,
                                               p->partitions);
    if ((st = request_alloc(out, p)) != CZ_OK) return cz_err(err, st, "snap request: out of memory");
    for (uint32_t k = 0; k < np; k++) {
        uint64_t n;
        at = cz_bc_here(&r);
        cz_bc_at(&r, "partition[%u].len", k);
        if ((st = cz_bc_u64(&r, &n)) != CZ_OK) break;
        if (n > r.len - r.pos) {
            st = cz_bc_fail(&r, CZ_ERR_FORMAT, at, "length %llu exceeds the %zu bytes left", (unsigned long long)n,
                            r.len - r.pos);
            break;
        }
        if ((st = partition_parse_into(out, k, buf + r.pos, (size_t)n, r.pos, err)) != CZ_OK) break;
        r.pos += (size_t)n;
    }
    if (st == CZ_OK && r.pos != len) {
        cz_bc_at(&r, "request");
        st = cz_bc_fail(&r, CZ_ERR_FORMAT, r.pos, "%zu trailing bytes", len - r.pos);
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
