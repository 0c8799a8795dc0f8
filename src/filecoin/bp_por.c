/*
 * storage-proofs-core gadgets/por.rs (cuzk/fil_bp_por.h): SubPath and
 * PoRCircuit::synthesize, written once for the PoRep, PoSt and SnapDeals
 * circuits; allocations and constraints in the reference's order.
 */
#include "cuzk/fil_bp_por.h"
#include "cuzk/fil_bp_sha256.h"

void cz_bp_dom_value(cz_cs *cs, const cz_fil_domain *d, cz_fr *out) {
    if (!d || !cz_cs_has_values(cs)) {
        cz_fr_from_u64(out, 0);
        return;
    }
    if (cz_fil_domain_to_fr(out, d) != CZ_OK) {
        cz_cs_fail(cs, CZ_ERR_NOT_CANONICAL, "a vanilla proof value is not a canonical field element");
        cz_fr_from_u64(out, 0);
    }
}

void cz_bp_por_hash(cz_cs *cs, bool sha256, cz_bp_num *out, const cz_bp_num *preimage, unsigned arity) {
    if (sha256) {
        cz_status st = cz_fil_sha256_hash_multi_leaf_circuit(cs, out, preimage, arity);
        if (st != CZ_OK) cz_cs_fail(cs, st, "tree D node hash failed");
    } else {
        cz_bp_poseidon_hash_multi_leaf(cs, out, preimage, arity);
    }
}

void cz_bp_por_subpath(cz_cs *cs, const cz_fil_path *p, size_t len, unsigned arity, bool sha256, bool strict,
                       cz_bp_num *cur, cz_bp_bool *bits, size_t *nbits) {
    if (arity == 0) return; /* "Nothing to do here" */
    if (strict && p && p->len != len) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "inclusion path has %zu levels, the tree shape needs %zu", p->len, len);
        return;
    }
    unsigned nb = 0;
    while ((1u << nb) < arity) nb++;
    for (size_t i = 0; i < len; i++) {
        const cz_fil_path_elem *e = p && i < p->len ? &p->elems[i] : NULL;
        if (strict && e && (e->nhashes + 1 != arity || e->index >= arity)) {
            cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "inclusion path level %zu does not fit arity %u", i, arity);
            return;
        }
        cz_cs_push_scope(cs, "merkle tree hash %zu", i);
        cz_bp_bool idx[4];
        for (unsigned b = 0; b < nb; b++) {
            cz_bp_abit bit;
            cz_cs_push_scope(cs, "index bit %u", b);
            cz_bp_abit_alloc(cs, &bit, e ? ((e->index >> b) & 1) != 0 : false);
            cz_cs_pop_scope(cs);
            idx[b] = cz_bp_bool_is(bit);
            bits[(*nbits)++] = idx[b];
        }
        cz_bp_num sib[15];
        for (unsigned k = 0; k + 1 < arity; k++) {
            cz_fr v;
            cz_bp_dom_value(cs, e && k < e->nhashes ? &e->hashes[k] : NULL, &v);
            cz_cs_push_scope(cs, "path element %u", k);
            cz_bp_num_alloc(cs, &sib[k], &v);
            cz_cs_pop_scope(cs);
        }
        cz_bp_num inserted[16];
        cz_bp_insert(cs, inserted, cur, idx, nb, sib);
        cz_cs_push_scope(cs, "computation of commitment hash");
        cz_bp_por_hash(cs, sha256, cur, inserted, arity);
        cz_cs_pop_scope(cs);
        cz_cs_pop_scope(cs);
    }
}

void cz_bp_por_synthesize(cz_cs *cs, const cz_bp_por_tree *tree, const cz_fil_merkle_proof *mp,
                          const cz_bp_num *leaf, const cz_bp_num *root) {
    cz_bp_num cur;
    if (leaf) {
        cur = *leaf;
    } else {
        cz_fr v;
        cz_bp_dom_value(cs, mp ? &mp->leaf : NULL, &v);
        cz_bp_root value = cz_bp_root_val(&v);
        cz_cs_push_scope(cs, "value");
        cz_bp_root_allocated(cs, &cur, &value);
        cz_cs_pop_scope(cs);
    }
    cz_bp_bool bits[CZ_BP_POR_MAX_BITS];
    size_t nbits = 0;
    cz_cs_push_scope(cs, "base");
    cz_bp_por_subpath(cs, mp ? &mp->base : NULL, tree->base_len, tree->base_arity, tree->sha256, tree->strict, &cur,
                      bits, &nbits);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "sub");
    cz_bp_por_subpath(cs, mp ? &mp->sub : NULL, 1, tree->sub_arity, tree->sha256, tree->strict, &cur, bits, &nbits);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "top");
    cz_bp_por_subpath(cs, mp ? &mp->top : NULL, 1, tree->top_arity, tree->sha256, tree->strict, &cur, bits, &nbits);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "path");
    cz_bp_pack_into_inputs(cs, bits, nbits);
    cz_cs_pop_scope(cs);
    /* root.allocated("root_value"): Root::Var allocates nothing */
    cz_bp_root rt = cz_bp_root_from_allocated(root);
    cz_bp_num rtn;
    cz_cs_push_scope(cs, "root_value");
    cz_bp_root_allocated(cs, &rtn, &rt);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "enforce root is correct");
    cz_bp_constraint_equal(cs, &cur, &rtn);
    cz_cs_pop_scope(cs);
}
