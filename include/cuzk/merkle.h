/*
 * cuzk — Merkle trees: native building, paths and verification, and the
 * in-circuit inclusion gadgets (cuzk/circuit.h).
 *
 * Two node hashes:
 *   CZ_MERKLE_SHA256   binary; node = SHA-256(left ‖ right) of the children's
 *                      32-byte little-endian encodings, digest truncated to
 *                      254 bits as Filecoin does (clear the top 2 bits of
 *                      byte 31), read as a little-endian Fr. Leaves must be
 *                      < 2^254 (Filecoin's Fr32 data nodes are; every node
 *                      above is by construction).
 *   CZ_MERKLE_POSEIDON arity 2, 4, 8 or 16; node = cz_poseidon_hash of the
 *                      arity children, t = arity + 1 (cuzk/poseidon.h).
 *
 * Shape: n_leaves = arity^depth, depth >= 1 levels above the leaves.
 * Indexing: the leaf at index i has position i mod arity among its
 * siblings; its parent has index i / arity at the next level, and so on.
 * A path lists, for level 0 (the leaves) up to level depth − 1, the
 * arity − 1 siblings of the node on the way to the root in slot order,
 * skipping the node's own slot: depth·(arity − 1) elements.
 * The index bits of a path are the index's bits, least significant first:
 * level l uses bits l·log2(arity) .. l·log2(arity) + log2(arity) − 1 (its
 * position in the group, least significant first). They are the
 * challenge's bits, so a caller binds them to a public input by packing.
 *
 * Form: cz_fr in Montgomery form (field.h). Variable time (the tree data of
 * a PoRep is public).
 */
#ifndef CUZK_MERKLE_H
#define CUZK_MERKLE_H

#include "cuzk/common.h"
#include "cuzk/field.h"
#include "cuzk/circuit.h"
#include "cuzk/gadgets.h"
#include "cuzk/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CZ_MERKLE_SHA256 = 1, CZ_MERKLE_POSEIDON = 2 } cz_merkle_hash;

#define CZ_MERKLE_MAX_ARITY 16u
#define CZ_MERKLE_MAX_DEPTH 64u

typedef struct cz_merkle_tree {
    cz_merkle_hash hash;
    unsigned arity;
    unsigned depth;
    uint64_t n_leaves;                              /* arity^depth */
    uint64_t n_nodes;                               /* all levels */
    uint64_t level_start[CZ_MERKLE_MAX_DEPTH + 1];  /* first node of level l in nodes[] */
    cz_fr *nodes;  /* level 0 (the leaves) first, level by level, the root last */
} cz_merkle_tree;

/* True when (hash, arity) is supported: SHA-256 with arity 2, Poseidon
 * with arity 2, 4, 8, 16. */
bool cz_merkle_shape_ok(cz_merkle_hash hash, unsigned arity);

/* One node from its arity children (children[0] first). */
void cz_merkle_hash_node(cz_fr *out, cz_merkle_hash hash, unsigned arity, const cz_fr *children);
/* The SHA-256 node on its own: sha256(le(left) ‖ le(right)), truncated. */
void cz_merkle_sha256_node(cz_fr *out, const cz_fr *left, const cz_fr *right);

/* Builds the tree over n_leaves leaves (copied). n_leaves must be a power
 * of the arity, at least the arity. Multi-threaded over the nodes of each
 * level with pool (NULL: calling thread). SHA-256 leaves must be < 2^254.
 * Errors: CZ_ERR_INVALID_ARG (shape, leaf >= 2^254), CZ_ERR_NOMEM. Free
 * with cz_merkle_free. */
CZ_WUR cz_status cz_merkle_build(cz_merkle_tree **out, cz_merkle_hash hash, unsigned arity,
                                 const cz_fr *leaves, uint64_t n_leaves, cz_pool *pool);
void cz_merkle_free(cz_merkle_tree *t);
static inline const cz_fr *cz_merkle_root(const cz_merkle_tree *t) { return &t->nodes[t->n_nodes - 1]; }
/* Memory a tree of n_leaves takes (nodes array), for budgeting. */
uint64_t cz_merkle_tree_bytes(unsigned arity, uint64_t n_leaves);

/* The depth·(arity − 1) siblings of leaf `index` (CZ_ERR_INVALID_ARG when
 * index >= n_leaves). */
CZ_WUR cz_status cz_merkle_path(const cz_merkle_tree *t, uint64_t index, cz_fr *path);
/* Root computed from a leaf, its index and its path (native twin of the
 * gadget). index must be < arity^depth. */
void cz_merkle_root_from_path(cz_fr *root, cz_merkle_hash hash, unsigned arity, unsigned depth,
                              const cz_fr *leaf, uint64_t index, const cz_fr *path);
/* True when the path proves leaf at index under root. */
bool cz_merkle_verify(cz_merkle_hash hash, unsigned arity, unsigned depth, const cz_fr *leaf,
                      uint64_t index, const cz_fr *path, const cz_fr *root);

/* ---- gadget --------------------------------------------------------------
 * Inclusion of a leaf under a root: the path elements are allocated here
 * as private variables from `path` (values; ignored without values), the
 * root is computed in-circuit from leaf, path and index bits, and
 * root_computed − root = 0 is enforced (one constraint, named
 * "<scope>/merkle/root").
 *   leaf:       an LC with its value leaf_val (ignored without values).
 *   index_bits: depth·log2(arity) bits, least significant first (see top),
 *               boolean already (cz_bit_alloc, a decomposition of the
 *               challenge, or constants); not constrained again here.
 *   root:       the variable holding the expected root (input or aux).
 * Cost per level (checked and printed by tests/gadgets/test_merkle.c):
 * Poseidon 238 / 289 / 395 / 602 for arity 2 / 4 / 8 / 16; SHA-256
 * 31,209 with the SHA-256 gadget of cuzk/sha256.h at the time of writing.
 * Breakdown:
 *   Poseidon arity a = 2^k: the hash (cz_poseidon_hash_constraints(a + 1))
 *     + (a − 1) for placing the node among its siblings
 *     + 2^k − k − 1 products of index bits (0, 1, 4, 11 for a = 2, 4, 8, 16);
 *   SHA-256: 1 (swap) + 2·255 (both children to 254 bits; this also
 *     forces leaf and path elements below 2^254) + the SHA-256 of 512 bits.
 * Scopes: merkle/level[l]/{select|poseidon/...|left_bits|right_bits|sha256...}.
 * Errors: an unsupported shape or a NULL argument fails the cs
 * (CZ_ERR_INVALID_ARG). */
void cz_merkle_inclusion_gadget(cz_cs *cs, cz_merkle_hash hash, unsigned arity, unsigned depth,
                                const cz_lc *leaf, const cz_fr *leaf_val, const cz_fr *path,
                                const cz_bit *index_bits, cz_var root);
/* Helper: allocates the nbits low bits of index as private booleans
 * (nbits constraints), least significant first. */
void cz_merkle_alloc_index_bits(cz_cs *cs, cz_bit *bits, uint64_t index, unsigned nbits);
/* log2(arity) for a supported arity (0 otherwise). */
unsigned cz_merkle_arity_bits(unsigned arity);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_MERKLE_H */
