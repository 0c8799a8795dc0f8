/*
 * FallbackPoSt vanilla proofs from a sealed sector (cuzk/fil_post.h part
 * 5): tree R rebuilt from the replica as PrivateReplicaInfo::merkle_tree
 * opens it, and filecoin-proofs generate_single_vanilla_proof /
 * storage-proofs-post vanilla_proof over it.
 */
#include "cuzk/fil_post.h"
#include "cuzk/fil_poseidon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cz_fil_post_replica_free(cz_fil_post_replica *r) {
    if (!r) return;
    cz_fil_tree_free(&r->tree_r);
    memset(r, 0, sizeof *r);
}

cz_status cz_fil_post_replica_init(cz_fil_post_replica *out, const cz_fil_post_proof *p, uint64_t sector_id,
                                   const uint8_t *replica, size_t len, const cz_fil_domain *comm_c,
                                   const cz_fil_domain *comm_r_last, cz_pool *pool, cz_errbuf *err) {
    if (!out) return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!p || !replica || !comm_c || !comm_r_last) return cz_err(err, CZ_ERR_INVALID_ARG, "replica: missing argument");
    if (len != p->sector_size)
        return cz_err(err, CZ_ERR_INVALID_ARG, "replica: %zu bytes, a %s sector has %llu", len, p->name,
                      (unsigned long long)p->sector_size);
    /* cz_fil_domain is 32 bytes of alignment 1: the replica is its node array */
    cz_status st = cz_fil_tree_build(&out->tree_r, CZ_FIL_HASHER_POSEIDON, 8, p->tree_sub_arity, p->tree_top_arity,
                                     (const cz_fil_domain *)(const void *)replica, cz_fil_post_nodes(p), pool);
    if (st != CZ_OK)
        return cz_err(err, st, "replica: cannot build tree R (%s)",
                      st == CZ_ERR_NOT_CANONICAL ? "a node is not a canonical field element" : cz_status_str(st));
    if (memcmp(out->tree_r.root.b, comm_r_last->b, 32)) {
        cz_fil_post_replica_free(out);
        return cz_err(err, CZ_ERR_MISMATCH, "replica: tree R's root is not comm_r_last (wrong replica or p_aux)");
    }
    out->proof = p;
    out->sector_id = sector_id;
    out->comm_c = *comm_c;
    out->comm_r_last = *comm_r_last;
    st = cz_fil_poseidon_hash2(&out->comm_r, comm_c, comm_r_last);
    if (st != CZ_OK) {
        cz_fil_post_replica_free(out);
        return cz_err(err, st, "replica: comm_c is not a canonical field element");
    }
    return CZ_OK;
}

static uint8_t *read_file(const char *path, size_t *len, size_t max, cz_errbuf *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    uint8_t *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    bool bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        cz_err(err, buf ? CZ_ERR_IO : CZ_ERR_NOMEM, "%s: cannot read", path);
        return NULL;
    }
    *len = n;
    return buf;
}

cz_status cz_fil_post_replica_load(cz_fil_post_replica *out, const cz_fil_post_proof *p, uint64_t sector_id,
                                   const char *cache_dir, cz_pool *pool, cz_errbuf *err) {
    if (!out) return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!p || !cache_dir) return cz_err(err, CZ_ERR_INVALID_ARG, "replica: missing argument");
    char path[4096];
    size_t n;
    snprintf(path, sizeof path, "%s/p_aux", cache_dir);
    uint8_t *paux = read_file(path, &n, 64, err);
    if (!paux) return CZ_ERR_IO;
    if (n != 64) {
        free(paux);
        return cz_err(err, CZ_ERR_IO, "%s: %zu bytes, p_aux (PersistentAux: comm_c, comm_r_last) has 64", path, n);
    }
    cz_fil_domain comm_c, comm_r_last;
    memcpy(comm_c.b, paux, 32);
    memcpy(comm_r_last.b, paux + 32, 32);
    free(paux);
    snprintf(path, sizeof path, "%s/sealed", cache_dir);
    uint8_t *rep = read_file(path, &n, p->sector_size, err);
    if (!rep) return CZ_ERR_IO;
    if (n != p->sector_size) {
        free(rep);
        return cz_err(err, CZ_ERR_IO, "%s: %zu bytes, a %s replica has %llu", path, n, p->name,
                      (unsigned long long)p->sector_size);
    }
    cz_status st = cz_fil_post_replica_init(out, p, sector_id, rep, n, &comm_c, &comm_r_last, pool, err);
    free(rep);
    return st;
}

/* generate_single_vanilla_proof -> fallback::vanilla_proof: one
 * SectorProof, each challenged leaf's proof validated against the leaf
 * index and comm_r_last. */
cz_status cz_fil_post_vanilla_generate(cz_fil_post_vanilla *out, const cz_fil_post_replica *r,
                                       const uint64_t *challenges, size_t n, cz_errbuf *err) {
    if (!out) return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!r || !r->proof || (n && !challenges)) return cz_err(err, CZ_ERR_INVALID_ARG, "vanilla: missing argument");
    if (n == 0) return cz_err(err, CZ_ERR_INVALID_ARG, "no challenges supplied");
    out->sector_id = r->sector_id;
    out->comm_r = r->comm_r;
    out->sectors = calloc(1, sizeof *out->sectors);
    cz_fil_post_sector_proof *sp = out->sectors;
    if (sp) sp->inclusion_proofs = calloc(n, sizeof *sp->inclusion_proofs);
    if (!sp || !sp->inclusion_proofs) {
        free(sp);
        memset(out, 0, sizeof *out);
        return cz_err(err, CZ_ERR_NOMEM, "vanilla: out of memory");
    }
    out->nsectors = 1;
    sp->comm_c = r->comm_c;
    sp->comm_r_last = r->comm_r_last;
    cz_status st = CZ_OK;
    for (size_t i = 0; i < n && st == CZ_OK; i++) {
        st = cz_fil_tree_prove(&r->tree_r, challenges[i], &sp->inclusion_proofs[i]);
        if (st != CZ_OK) {
            cz_err(err, st, "sector %llu: challenge %zu (leaf %llu) is not a leaf of tree R",
                   (unsigned long long)r->sector_id, i, (unsigned long long)challenges[i]);
            break;
        }
        sp->ninclusion = i + 1;
        cz_errbuf e2 = { { 0 } };
        st = cz_fil_merkle_proof_check(&sp->inclusion_proofs[i], CZ_FIL_HASHER_POSEIDON, 8, r->proof->tree_sub_arity,
                                       r->proof->tree_top_arity, challenges[i], &e2);
        if (st == CZ_OK && memcmp(sp->inclusion_proofs[i].root.b, r->comm_r_last.b, 32)) st = CZ_ERR_MISMATCH;
        if (st != CZ_OK)
            cz_err(err, st, "Generated vanilla proof for sector %llu is invalid (challenge %zu: %s)",
                   (unsigned long long)r->sector_id, i, e2.msg);
    }
    if (st != CZ_OK) cz_fil_post_vanilla_free(out);
    return st;
}

cz_status cz_fil_post_request_generate(cz_fil_post_request *out, const cz_fil_post_proof *p,
                                       const uint8_t prover_id[32], const uint8_t randomness[32], uint32_t partition,
                                       const cz_fil_post_replica *replicas, size_t n, cz_errbuf *err) {
    if (!out) return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!p || !prover_id || !randomness || (n && !replicas))
        return cz_err(err, CZ_ERR_INVALID_ARG, "PoSt request: missing argument");
    cz_status st = cz_fil_post_safe_commitment(randomness, "randomness", err);
    if (st == CZ_OK) st = cz_fil_post_safe_commitment(prover_id, "prover_id", err);
    if (st != CZ_OK) return st;
    if (p->type == CZ_FIL_POST_WINNING ? (n != 1 || partition) : (n == 0 || n > p->sector_count))
        return cz_err(err, CZ_ERR_INVALID_ARG, "%s: %zu sectors in partition %u (winning: 1 in partition 0; window: "
                      "1 to %u)", p->name, n, partition, p->sector_count);
    out->vanilla = calloc(n, sizeof *out->vanilla);
    uint64_t *ch = malloc(p->config_challenge_count * sizeof *ch);
    if (!out->vanilla || !ch) {
        free(out->vanilla);
        free(ch);
        out->vanilla = NULL;
        return cz_err(err, CZ_ERR_NOMEM, "PoSt request: out of memory");
    }
    out->proof = p;
    memcpy(out->prover_id, prover_id, 32);
    memcpy(out->randomness, randomness, 32);
    out->partition = partition;
    for (size_t i = 0; i < n && st == CZ_OK; i++) {
        if (replicas[i].proof != p && (replicas[i].proof->sector_size != p->sector_size ||
                                       replicas[i].proof->tree_sub_arity != p->tree_sub_arity)) {
            st = cz_err(err, CZ_ERR_INVALID_ARG, "replica %zu is of another sector size", i);
            break;
        }
        /* generate_fallback_sector_challenges: sector_index = partition ·
         * sector_count + i (window), 0 (winning, one sector) */
        uint64_t si = p->type == CZ_FIL_POST_WINNING ? 0 : (uint64_t)partition * p->config_sector_count + i;
        cz_fil_post_sector_challenges(p, randomness, replicas[i].sector_id, si, ch);
        st = cz_fil_post_vanilla_generate(&out->vanilla[i], &replicas[i], ch, p->config_challenge_count, err);
        if (st == CZ_OK) out->nvanilla = i + 1;
    }
    free(ch);
    if (st != CZ_OK) cz_fil_post_request_free(out);
    return st;
}
