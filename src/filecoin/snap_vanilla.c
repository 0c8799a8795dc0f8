/*
 * SnapDeals' vanilla side in memory: encoding (vanilla.rs
 * EmptySectorUpdate::encode_into via filecoin-proofs update.rs
 * encode_into), partition proofs (prove_inner / prove_all_partitions)
 * and the native check (EmptySectorUpdate::verify, stricter). See
 * cuzk/fil_snap.h.
 */
#include "cuzk/fil_snap.h"
#include "cuzk/fil_poseidon.h"
#include "cuzk/fil_seal.h"
#include "snap_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool dom_eq(const cz_fil_domain *a, const cz_fil_domain *b) { return memcmp(a->b, b->b, 32) == 0; }
static bool dom_zero(const cz_fil_domain *a) {
    static const cz_fil_domain z = { { 0 } };
    return dom_eq(a, &z);
}

static bool h_allowed(const cz_fil_snap_proof *p, unsigned h) {
    uint64_t s;
    return cz_fil_snap_h_select(p, h, &s) == CZ_OK;
}

/* ---- native check ------------------------------------------------------------------ */

/* The apex tree of one partition (rows from the leaves up). */
static cz_status apex_tree(const cz_fil_snap_proof *p, const cz_fil_domain *leaves, cz_fil_domain *rows) {
    memcpy(rows, leaves, p->apex_leaves * sizeof *rows);
    size_t in = 0, n = p->apex_leaves;
    while (n > 1) {
        for (size_t i = 0; i < n / 2; i++) {
            cz_status st = cz_fil_hash_node(&rows[in + n + i], CZ_FIL_HASHER_SHA256, &rows[in + 2 * i], 2);
            if (st != CZ_OK) return st;
        }
        in += n;
        n /= 2;
    }
    return CZ_OK;
}

static cz_status check_partition(const cz_fil_snap_request *r, unsigned k, unsigned h, cz_errbuf *err) {
    const cz_fil_snap_proof *p = r->proof;
    const cz_fil_snap_partition_proof *pp = &r->partitions[k];
    cz_errbuf e;
    cz_status st = cz_snap_partition_shape(p, pp, &e);
    if (st != CZ_OK) return cz_err(err, st, "partition %u: %s", k, e.msg);
    uint32_t ch[CZ_FIL_SNAP_MAX_CHALLENGES];
    if ((st = cz_fil_snap_challenges(p, &r->comm_r_new, k, ch)) != CZ_OK)
        return cz_err(err, st, "partition %u: cannot derive the challenges (comm_r_new)", k);
    const cz_fil_domain *root_r_old = &pp->challenges[0].proof_r_old.root;
    const cz_fil_domain *root_r_new = &pp->challenges[0].proof_r_new.root;
    cz_fil_domain calc;
    if ((st = cz_fil_poseidon_hash2(&calc, &pp->comm_c, root_r_old)) != CZ_OK)
        return cz_err(err, st, "partition %u: comm_c or root_r_old is not canonical", k);
    if (!dom_eq(&calc, &r->comm_r_old))
        return cz_err(err, CZ_ERR_MISMATCH, "partition %u: comm_r_old != H(comm_c, root_r_old)", k);
    if ((st = cz_fil_poseidon_hash2(&calc, &pp->comm_c, root_r_new)) != CZ_OK)
        return cz_err(err, st, "partition %u: root_r_new is not canonical", k);
    if (!dom_eq(&calc, &r->comm_r_new))
        return cz_err(err, CZ_ERR_MISMATCH, "partition %u: comm_r_new != H(comm_c, root_r_new)", k);
    cz_fil_domain phi;
    if ((st = cz_fil_snap_phi(&phi, &r->comm_d_new, &r->comm_r_old)) != CZ_OK)
        return cz_err(err, st, "partition %u: comm_d_new or comm_r_old is not canonical", k);
    cz_fil_domain rows[2 * CZ_FIL_SNAP_MAX_APEX];
    if ((st = apex_tree(p, pp->apex_leafs, rows)) != CZ_OK) return cz_err(err, st, "partition %u: apex tree", k);
    const unsigned cbl = p->challenge_bit_len, pbl = p->partition_bit_len, abl = p->apex_leaf_bit_len;
    const unsigned apex_height = cbl - pbl - abl;
    for (unsigned i = 0; i < p->challenges; i++) {
        const cz_fil_snap_challenge_proof *cp = &pp->challenges[i];
        const uint64_t c = ch[i];
#define FAIL(st_, ...)                                                                                      \
    do {                                                                                                    \
        char m_[200];                                                                                       \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                               \
        return cz_err(err, st_, "partition %u, challenge %u (node %llu): %s", k, i, (unsigned long long)c, m_); \
    } while (0)
        if ((st = cz_fil_merkle_proof_check(&cp->proof_r_old, CZ_FIL_HASHER_POSEIDON, 8, p->tree_sub_arity,
                                            p->tree_top_arity, c, &e)) != CZ_OK)
            FAIL(st, "proof_r_old: %.150s", e.msg);
        if (!dom_eq(&cp->proof_r_old.root, root_r_old)) FAIL(CZ_ERR_MISMATCH, "proof_r_old: root differs from challenge 0's");
        if ((st = cz_fil_merkle_proof_check(&cp->proof_d_new, CZ_FIL_HASHER_SHA256, 2, 0, 0, c, &e)) != CZ_OK)
            FAIL(st, "proof_d_new: %.150s", e.msg);
        if (!dom_eq(&cp->proof_d_new.root, &r->comm_d_new)) FAIL(CZ_ERR_MISMATCH, "proof_d_new: root is not comm_d_new");
        if ((st = cz_fil_merkle_proof_check(&cp->proof_r_new, CZ_FIL_HASHER_POSEIDON, 8, p->tree_sub_arity,
                                            p->tree_top_arity, c, &e)) != CZ_OK)
            FAIL(st, "proof_r_new: %.150s", e.msg);
        if (!dom_eq(&cp->proof_r_new.root, root_r_new)) FAIL(CZ_ERR_MISMATCH, "proof_r_new: root differs from challenge 0's");
        /* encoding: label_r_new = label_r_old + label_d_new * rho(c >> (bits - h)) */
        cz_fr old, d, rnew, rho, want;
        if (cz_fil_domain_to_fr(&old, &cp->proof_r_old.leaf) != CZ_OK ||
            cz_fil_domain_to_fr(&d, &cp->proof_d_new.leaf) != CZ_OK ||
            cz_fil_domain_to_fr(&rnew, &cp->proof_r_new.leaf) != CZ_OK)
            FAIL(CZ_ERR_NOT_CANONICAL, "a leaf is not a canonical field element");
        if ((st = cz_fil_snap_rho(&rho, &phi, (uint32_t)(c >> (cbl - h)))) != CZ_OK) FAIL(st, "rho");
        cz_fr_mul(&want, &d, &rho);
        cz_fr_add(&want, &want, &old);
        if (!cz_fr_eq(&want, &rnew)) FAIL(CZ_ERR_MISMATCH, "leaf_r_new != leaf_r_old + leaf_d_new * rho (encoding)");
        /* the apex part of the tree D path lies in this partition's apex tree */
        size_t row_off = 0, row_n = p->apex_leaves;
        for (unsigned a = 0; a < abl; a++) {
            uint64_t pos = (c >> (apex_height + a)) - (uint64_t)k * row_n;
            if (pos >= row_n) FAIL(CZ_ERR_MISMATCH, "challenge lies outside partition %u", k);
            if (!dom_eq(&cp->proof_d_new.base.elems[apex_height + a].hashes[0], &rows[row_off + (pos ^ 1)]))
                FAIL(CZ_ERR_MISMATCH, "proof_d_new: level %u is not the apex tree's sibling", apex_height + a);
            row_off += row_n;
            row_n /= 2;
        }
        /* one partition path for the whole partition (the circuit takes
         * challenge 0's; the reference asserts they agree) */
        for (unsigned l = cbl - pbl; l < cbl; l++)
            if (!dom_eq(&cp->proof_d_new.base.elems[l].hashes[0], &pp->challenges[0].proof_d_new.base.elems[l].hashes[0]))
                FAIL(CZ_ERR_MISMATCH, "proof_d_new: partition path level %u differs from challenge 0's", l);
#undef FAIL
    }
    return CZ_OK;
}

cz_status cz_fil_snap_check_h(const cz_fil_snap_request *r, unsigned h, cz_errbuf *err) {
    if (!r || !r->proof || !r->partitions) return cz_err(err, CZ_ERR_INVALID_ARG, "snap check: NULL request");
    const cz_fil_snap_proof *p = r->proof;
    if (!h) h = p->h_default;
    if (!h_allowed(p, h)) return cz_err(err, CZ_ERR_INVALID_ARG, "h = %u is not allowed for %s", h, p->name);
    if (r->npartitions != p->partitions)
        return cz_err(err, CZ_ERR_FORMAT, "%zu partition proofs, %s has %u", r->npartitions, p->name, p->partitions);
    for (unsigned k = 0; k < p->partitions; k++) {
        cz_status st = check_partition(r, k, h, err);
        if (st != CZ_OK) return st;
    }
    return CZ_OK;
}

cz_status cz_fil_snap_check(const cz_fil_snap_request *r, cz_errbuf *err) { return cz_fil_snap_check_h(r, 0, err); }

/* ---- encoding -------------------------------------------------------------------------- */

void cz_fil_snap_update_free(cz_fil_snap_update *u) {
    if (!u) return;
    free(u->new_replica);
    cz_fil_tree_free(&u->tree_d_new);
    cz_fil_tree_free(&u->tree_r_old);
    cz_fil_tree_free(&u->tree_r_new);
    memset(u, 0, sizeof *u);
}

cz_status cz_fil_snap_encode(cz_fil_snap_update *u, const cz_fil_snap_proof *p, const uint8_t *old_replica,
                             const cz_fil_domain *comm_c, const uint8_t *data, size_t len, unsigned h,
                             cz_pool *pool, cz_errbuf *err) {
    if (!u) return cz_err(err, CZ_ERR_INVALID_ARG, "snap encode: NULL argument");
    memset(u, 0, sizeof *u);
    if (!p || !old_replica || !comm_c || (!data && len)) return cz_err(err, CZ_ERR_INVALID_ARG, "snap encode: NULL argument");
    if (!h) h = p->h_default;
    if (!h_allowed(p, h)) return cz_err(err, CZ_ERR_INVALID_ARG, "h = %u is not allowed for %s", h, p->name);
    const uint64_t nodes = p->sector_nodes, unpadded = cz_fil_unpadded_size(p->sector_size);
    if (len > unpadded)
        return cz_err(err, CZ_ERR_INVALID_ARG, "new data is %zu bytes, a %s sector holds %llu", len, p->name,
                      (unsigned long long)unpadded);
    if (p->sector_size > ((uint64_t)1 << 30))
        return cz_err(err, CZ_ERR_INVALID_ARG, "%s sectors are not encoded in memory", p->name);
    cz_fr t;
    if (cz_fil_domain_to_fr(&t, comm_c) != CZ_OK) return cz_err(err, CZ_ERR_NOT_CANONICAL, "comm_c is not canonical");
    u->proof = p;
    u->h = h;
    u->comm_c = *comm_c;
    cz_status st;
    uint8_t *raw = NULL, *padded = NULL;
    const cz_fil_domain *old = (const cz_fil_domain *)(const void *)old_replica;
    for (uint64_t i = 0; i < nodes; i++)
        if (cz_fil_domain_to_fr(&t, &old[i]) != CZ_OK) {
            st = cz_err(err, CZ_ERR_NOT_CANONICAL, "old replica node %llu is not a canonical field element",
                        (unsigned long long)i);
            goto fail;
        }
    /* tree R old and comm_r_old */
    if ((st = cz_fil_tree_build(&u->tree_r_old, CZ_FIL_HASHER_POSEIDON, 8, p->tree_sub_arity, p->tree_top_arity,
                                old, nodes, pool)) != CZ_OK) {
        cz_err(err, st, "tree R old: %s", cz_status_str(st));
        goto fail;
    }
    u->comm_r_last_old = u->tree_r_old.root;
    if ((st = cz_fil_poseidon_hash2(&u->comm_r_old, comm_c, &u->comm_r_last_old)) != CZ_OK) goto fail;
    /* the new data, fr32-padded: tree D new */
    raw = calloc(1, (size_t)unpadded);
    padded = malloc((size_t)p->sector_size);
    u->new_replica = malloc((size_t)p->sector_size);
    if (!raw || !padded || !u->new_replica) {
        st = cz_err(err, CZ_ERR_NOMEM, "snap encode: out of memory");
        goto fail;
    }
    if (len) memcpy(raw, data, len);
    cz_fil_fr32_pad(padded, raw, (size_t)unpadded);
    free(raw);
    raw = NULL;
    const cz_fil_domain *dn = (const cz_fil_domain *)(const void *)padded;
    if ((st = cz_fil_tree_build(&u->tree_d_new, CZ_FIL_HASHER_SHA256, 2, 0, 0, dn, nodes, pool)) != CZ_OK) {
        cz_err(err, st, "tree D new: %s", cz_status_str(st));
        goto fail;
    }
    u->comm_d_new = u->tree_d_new.root;
    if ((st = cz_fil_snap_phi(&u->phi, &u->comm_d_new, &u->comm_r_old)) != CZ_OK) goto fail;
    /* Rhos::new: one rho per value of the h high bits */
    size_t nrho = (size_t)1 << h;
    unsigned shr = p->challenge_bit_len - h;
    cz_fr *rhos = malloc(nrho * sizeof *rhos);
    if (!rhos) {
        st = cz_err(err, CZ_ERR_NOMEM, "snap encode: out of memory");
        goto fail;
    }
    for (size_t i = 0; i < nrho && st == CZ_OK; i++) st = cz_fil_snap_rho(&rhos[i], &u->phi, (uint32_t)i);
    for (uint64_t i = 0; i < nodes && st == CZ_OK; i++) {
        cz_fr o, d, n;
        st = cz_fil_domain_to_fr(&o, &old[i]);
        if (st == CZ_OK) st = cz_fil_domain_to_fr(&d, &dn[i]);
        if (st != CZ_OK) break;
        cz_fr_mul(&n, &d, &rhos[i >> shr]);
        cz_fr_add(&n, &n, &o);
        cz_fr_to_bytes_le(u->new_replica + 32 * i, &n);
    }
    free(rhos);
    if (st != CZ_OK) {
        cz_err(err, st, "snap encode: %s", cz_status_str(st));
        goto fail;
    }
    free(padded);
    padded = NULL;
    if ((st = cz_fil_tree_build(&u->tree_r_new, CZ_FIL_HASHER_POSEIDON, 8, p->tree_sub_arity, p->tree_top_arity,
                                (const cz_fil_domain *)(const void *)u->new_replica, nodes, pool)) != CZ_OK) {
        cz_err(err, st, "tree R new: %s", cz_status_str(st));
        goto fail;
    }
    u->comm_r_last_new = u->tree_r_new.root;
    if ((st = cz_fil_poseidon_hash2(&u->comm_r_new, comm_c, &u->comm_r_last_new)) != CZ_OK) goto fail;
    /* update.rs encode_into's consistency checks */
    if (dom_zero(&u->comm_d_new) || dom_zero(&u->comm_r_new) || dom_zero(&u->comm_r_last_new)) {
        st = cz_err(err, CZ_ERR_MISMATCH, "Invalid all zero commitment");
        goto fail;
    }
    return CZ_OK;
fail:
    free(raw);
    free(padded);
    cz_fil_snap_update_free(u);
    return st;
}

/* ---- vanilla proofs ------------------------------------------------------------------------ */

cz_status cz_fil_snap_prove_partition(const cz_fil_snap_update *u, unsigned k, cz_fil_snap_partition_proof *out,
                                      cz_errbuf *err) {
    if (!out) return cz_err(err, CZ_ERR_INVALID_ARG, "snap prove: NULL argument");
    memset(out, 0, sizeof *out);
    if (!u || !u->proof) return cz_err(err, CZ_ERR_INVALID_ARG, "snap prove: NULL argument");
    const cz_fil_snap_proof *p = u->proof;
    if (k >= p->partitions)
        return cz_err(err, CZ_ERR_INVALID_ARG, "partition-index %u exceeds partition count %u", k, p->partitions);
    uint32_t ch[CZ_FIL_SNAP_MAX_CHALLENGES];
    cz_status st = cz_fil_snap_challenges(p, &u->comm_r_new, k, ch);
    if (st != CZ_OK) return cz_err(err, st, "challenges");
    out->comm_c = u->comm_c;
    out->apex_leafs = malloc(p->apex_leaves * sizeof *out->apex_leafs);
    out->challenges = calloc(p->challenges, sizeof *out->challenges);
    if (!out->apex_leafs || !out->challenges) {
        cz_fil_snap_partition_free(out);
        return cz_err(err, CZ_ERR_NOMEM, "snap prove: out of memory");
    }
    out->napex = p->apex_leaves;
    out->nchallenges = p->challenges;
    /* apex leaves: the tree D row with partitions·apex_leaves nodes, this
     * partition's slice (tree D keeps its levels leaves first) */
    unsigned row = p->challenge_bit_len - p->partition_bit_len - p->apex_leaf_bit_len;
    size_t off = 0;
    for (unsigned l = 0; l < row; l++) off += (size_t)(p->sector_nodes >> l);
    memcpy(out->apex_leafs, u->tree_d_new.nodes + off + (size_t)k * p->apex_leaves,
           p->apex_leaves * sizeof *out->apex_leafs);
    for (unsigned i = 0; i < p->challenges; i++) {
        cz_fil_snap_challenge_proof *cp = &out->challenges[i];
        st = cz_fil_tree_prove(&u->tree_d_new, ch[i], &cp->proof_d_new);
        if (st == CZ_OK) st = cz_fil_tree_prove(&u->tree_r_new, ch[i], &cp->proof_r_new);
        if (st == CZ_OK) st = cz_fil_tree_prove(&u->tree_r_old, ch[i], &cp->proof_r_old);
        if (st != CZ_OK) {
            cz_fil_snap_partition_free(out);
            return cz_err(err, st, "partition %u, challenge %u (node %u): inclusion proof", k, i, ch[i]);
        }
    }
    return CZ_OK;
}

cz_status cz_fil_snap_prove(const cz_fil_snap_update *u, cz_fil_snap_request *out, cz_errbuf *err) {
    if (!out) return cz_err(err, CZ_ERR_INVALID_ARG, "snap prove: NULL argument");
    memset(out, 0, sizeof *out);
    if (!u || !u->proof) return cz_err(err, CZ_ERR_INVALID_ARG, "snap prove: NULL argument");
    const cz_fil_snap_proof *p = u->proof;
    out->proof = p;
    out->comm_r_old = u->comm_r_old;
    out->comm_r_new = u->comm_r_new;
    out->comm_d_new = u->comm_d_new;
    out->partitions = calloc(p->partitions, sizeof *out->partitions);
    if (!out->partitions) return cz_err(err, CZ_ERR_NOMEM, "snap prove: out of memory");
    out->npartitions = p->partitions;
    for (unsigned k = 0; k < p->partitions; k++) {
        cz_status st = cz_fil_snap_prove_partition(u, k, &out->partitions[k], err);
        if (st != CZ_OK) {
            cz_fil_snap_request_free(out);
            return st;
        }
    }
    return CZ_OK;
}
