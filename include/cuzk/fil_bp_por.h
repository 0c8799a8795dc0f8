/*
 * cuzk — storage-proofs-core's PoR gadget (gadgets/por.rs) on the
 * bellperson-exact gadgets, shared by the PoRep (StackedCircuit), PoSt
 * (FallbackPoStCircuit) and SnapDeals circuits.
 *
 * Same contract as cuzk/fil_bp_num.h: each function allocates the same
 * variables and enforces the same constraints in the same order as the
 * reference function it names; errors are sticky in the cs (cz_cs_fail);
 * values are computed only when cz_cs_has_values(cs). A NULL proof or path
 * means a blank circuit (every value 0, the R1CS unchanged).
 */
#ifndef CUZK_FIL_BP_POR_H
#define CUZK_FIL_BP_POR_H

#include "cuzk/fil_bp.h"
#include "cuzk/fil_bp_num.h"
#include "cuzk/fil_c1.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A vanilla proof's domain element as the Fr value a circuit allocates
 * (Into<Fr>: from_repr, which the reference expects to succeed). 0 when d
 * is NULL or the cs has no values; a non-canonical d fails the cs with
 * CZ_ERR_NOT_CANONICAL ("a vanilla proof value is not a canonical field
 * element") and gives 0. */
void cz_bp_dom_value(cz_cs *cs, const cz_fil_domain *d, cz_fr *out);

/* The tree hasher's hash_multi_leaf_circuit of `arity` nums into *out:
 * SHA-256 (tree D) when sha256, else Poseidon of the arity. The height
 * argument of the reference changes nothing and is not taken. */
void cz_bp_por_hash(cz_cs *cs, bool sha256, cz_bp_num *out, const cz_bp_num *preimage, unsigned arity);

/* SubPath::synthesize of one sub path of `len` levels of one arity (0:
 * nothing, "Nothing to do here"): per level (scope "merkle tree hash i")
 * the index bits (AllocatedBit, low bit first, "index bit b"), the
 * arity − 1 path elements (AllocatedNum, "path element k"), insert, then
 * cz_bp_por_hash ("computation of commitment hash"). *cur is the running
 * node (the leaf on entry, the sub path's root on return); the index bits
 * are appended to bits[*nbits…].
 * strict: p must have exactly len levels of arity − 1 hashes and indices
 * below arity, else the cs fails with CZ_ERR_INVALID_ARG before the level;
 * not strict: levels or hashes p lacks are taken as 0 (the caller checked
 * the shape). */
void cz_bp_por_subpath(cz_cs *cs, const cz_fil_path *p, size_t len, unsigned arity, bool sha256, bool strict,
                       cz_bp_num *cur, cz_bp_bool *bits, size_t *nbits);

/* The tree a PoR proves inclusion in. */
typedef struct {
    size_t base_len;     /* levels of the base path */
    unsigned base_arity; /* 8 (tree R / C) or 2 (tree D) */
    unsigned sub_arity;  /* 0: none */
    unsigned top_arity;  /* 0: none */
    bool sha256;         /* tree D's SHA-256 hasher, else Poseidon */
    bool strict;         /* cz_bp_por_subpath's check of mp's paths */
} cz_bp_por_tree;

/* Most index bits one PoR packs (base + sub + top levels' bits). */
#define CZ_BP_POR_MAX_BITS 64u

/* PoRCircuit::synthesize with private = true and root Root::Var(*root):
 * the leaf — *leaf when given (Root::Var, nothing allocated), else
 * Root::Val(mp->leaf) allocated in scope "value" — then the "base",
 * "sub" and "top" paths of mp, the index bits packed into public inputs
 * (pack_into_inputs, scope "path"), root.allocated ("root_value", nothing
 * allocated) and computed · ONE = root ("enforce root is correct"). The
 * root is not inputized. mp NULL: blank. */
void cz_bp_por_synthesize(cz_cs *cs, const cz_bp_por_tree *tree, const cz_fil_merkle_proof *mp,
                          const cz_bp_num *leaf, const cz_bp_num *root);

#ifdef __cplusplus
}
#endif

#endif
