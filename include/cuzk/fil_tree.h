/*
 * cuzk — Filecoin's sector trees: fr32 padding, tree D (SHA-256 binary),
 * trees C and R (Poseidon octrees in the 8-0-0 / 8-8-0 / 8-8-2 shapes) and
 * their inclusion proofs.
 *
 * Mirrors storage-proofs-core's merkle module (MerkleTreeWrapper over
 * merkletree's MerkleTree, with LCTree's sub/top composition) and fr32.
 * - Tree D: BinaryMerkleTree<Sha256Hasher>; node = SHA-256(left ‖ right)
 *   with the top two bits of the digest cleared (Sha256Function::node).
 * - Trees C and R: a compound tree of `sub × top` base octrees over equal
 *   slices of the leaves (nodes / (sub·top) each); the roots of each group
 *   of `sub` base trees are hashed (arity sub) into a sub root, the `top`
 *   sub roots into the root (arity top). Poseidon nodes are neptune
 *   hashes of the arity's constants (PoseidonFunction::multi_node; the
 *   height argument is unused by Poseidon). 0 means "no such level".
 * - A proof's levels run leaf upwards; each level lists the arity − 1
 *   siblings in order with the proved node's position `index` removed
 *   (InclusionPath / PathElement).
 */
#ifndef CUZK_FIL_TREE_H
#define CUZK_FIL_TREE_H

#include "cuzk/filecoin.h"
#include "cuzk/fil_c1.h"
#include "cuzk/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- fr32 ---------------------------------------------------------------------- */
/* fr32 padding (rust-fil-proofs fr32 write_padded): the input, read as a
 * little-endian bit string, is cut into 254-bit pieces, each stored in 32
 * bytes with two zero top bits: 127 bytes -> 128 bytes. in_len must be a
 * multiple of 127; out holds in_len / 127 · 128 bytes. */
void cz_fil_fr32_pad(uint8_t *out, const uint8_t *in, size_t in_len);
/* Inverse (out: in_len / 128 · 127 bytes; in_len a multiple of 128). The
 * top two bits of each 32-byte piece are ignored. */
void cz_fil_fr32_unpad(uint8_t *out, const uint8_t *in, size_t in_len);

/* ---- trees ----------------------------------------------------------------------- */
typedef enum {
    CZ_FIL_HASHER_SHA256 = 0,   /* Sha256Hasher: binary tree D */
    CZ_FIL_HASHER_POSEIDON = 1  /* PoseidonHasher: trees C and R */
} cz_fil_hasher;

typedef struct {
    cz_fil_hasher hasher;
    unsigned arity;          /* base arity: 2 (SHA-256) or 8 (Poseidon) */
    unsigned sub_arity;      /* 0 or 8 */
    unsigned top_arity;      /* 0 or 2 */
    size_t nbase;            /* base trees: max(sub,1) · max(top,1) */
    uint64_t base_leaves;    /* leaves per base tree (a power of arity) */
    unsigned base_height;    /* levels above the leaves in a base tree */
    size_t base_nodes;       /* nodes stored per base tree, leaves first */
    cz_fil_domain *nodes;    /* nbase · base_nodes */
    cz_fil_domain *sub_roots;/* top_arity sub roots (Top shape only) */
    cz_fil_domain root;
} cz_fil_tree;

/* Build a tree over nleaves leaves (copied). nleaves must split into
 * nbase base trees whose leaf count is a power of arity (>= arity).
 * pool may be NULL. On error *t is zeroed. */
CZ_WUR cz_status cz_fil_tree_build(cz_fil_tree *t, cz_fil_hasher hasher, unsigned arity,
                                   unsigned sub_arity, unsigned top_arity,
                                   const cz_fil_domain *leaves, uint64_t nleaves, cz_pool *pool);
void cz_fil_tree_free(cz_fil_tree *t);
uint64_t cz_fil_tree_leaves(const cz_fil_tree *t);
const cz_fil_domain *cz_fil_tree_leaf(const cz_fil_tree *t, uint64_t i);

/* Inclusion proof of leaf `node` (MerkleTreeWrapper::gen_proof): Single,
 * Sub or Top by the tree's shape. *out is owned by the caller
 * (cz_fil_merkle_proof_free). */
CZ_WUR cz_status cz_fil_tree_prove(const cz_fil_tree *t, uint64_t node, cz_fil_merkle_proof *out);
void cz_fil_merkle_proof_free(cz_fil_merkle_proof *p);

/* One node hash of `arity` children (Sha256Function::node for arity 2,
 * PoseidonFunction::multi_node otherwise). Poseidon refuses children that
 * are not canonical field elements (CZ_ERR_NOT_CANONICAL) and arities
 * other than 2, 4, 8, 16. */
CZ_WUR cz_status cz_fil_hash_node(cz_fil_domain *out, cz_fil_hasher hasher, const cz_fil_domain *children,
                      unsigned arity);

/* The root a proof implies from its leaf (InclusionPath::root over base,
 * then sub, then top). CZ_ERR_FORMAT if a level's index is out of range
 * for its arity. */
CZ_WUR cz_status cz_fil_merkle_proof_root(const cz_fil_merkle_proof *p, cz_fil_hasher hasher,
                                          unsigned arity, unsigned sub_arity, unsigned top_arity,
                                          cz_fil_domain *root);
/* The leaf index a proof opens (MerkleProofTrait::path_index). */
uint64_t cz_fil_merkle_proof_index(const cz_fil_merkle_proof *p, unsigned arity,
                                   unsigned sub_arity);
/* validate(node) plus the stated root: the implied root equals p->root and
 * the path opens `node`; err says which failed. */
CZ_WUR cz_status cz_fil_merkle_proof_check(const cz_fil_merkle_proof *p, cz_fil_hasher hasher,
                                           unsigned arity, unsigned sub_arity, unsigned top_arity,
                                           uint64_t node, cz_errbuf *err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_TREE_H */
