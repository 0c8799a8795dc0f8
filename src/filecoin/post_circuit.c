/*
 * FallbackPoStCircuit (storage-proofs-post fallback/circuit.rs) with
 * storage-proofs-core's PoRCircuit (gadgets/por.rs) for tree R, on the
 * bellperson-exact gadgets (cuzk/fil_post.h). Each function names the
 * reference function it mirrors; allocations and constraints are in the
 * reference's order.
 *
 * Why synthesize_default: FallbackPoStCircuit::synthesize takes the
 * extendable path only for constraint systems with is_extensible() (the
 * prover's ProvingAssignment); there each chunk of sectors is synthesized
 * into its own system (with a "temp ONE" input) and extend() appends the
 * chunk's aux, inputs (minus that ONE) and constraints in chunk order.
 * Every sector allocates and enforces only on its own variables, so the
 * concatenation is the default path's order variable for variable; the
 * parameters were generated with bellperson's KeypairAssembly, which is
 * not extensible, i.e. by synthesize_default. This file reproduces that.
 */
#include "cuzk/fil_post.h"
#include "cuzk/fil_bp.h"
#include "cuzk/fil_bp_num.h"
#include "cuzk/fil_bp_por.h"

#include <stdio.h>
#include <string.h>

/* PoRCircuit::synthesize with value = Root::Val(leaf), root =
 * Root::Var(comm_r_last) and private = true (cz_bp_por_synthesize); the
 * paths must have the tree's shape exactly (strict). mp NULL: blank. */
static void por_synthesize(cz_cs *cs, const cz_fil_post_proof *p, size_t base_len, const cz_fil_merkle_proof *mp,
                           const cz_bp_num *root) {
    if (mp) {
        cz_fil_proof_kind want = p->tree_top_arity   ? CZ_FIL_PROOF_TOP
                                 : p->tree_sub_arity ? CZ_FIL_PROOF_SUB
                                                     : CZ_FIL_PROOF_SINGLE;
        if (mp->kind != want) {
            cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "inclusion proof of another tree shape");
            return;
        }
    }
    cz_bp_por_tree tree = { base_len, 8, p->tree_sub_arity, p->tree_top_arity, false, true };
    cz_bp_por_synthesize(cs, &tree, mp, NULL, root);
}

/* Sector::synthesize (circuit.rs "impl Circuit for &Sector"). s NULL: the
 * blank Sector (challenge_count blank paths). */
static void sector_synthesize(cz_cs *cs, const cz_fil_post_proof *p, size_t base_len,
                              const cz_fil_post_circuit_sector *s) {
    if (s && s->ninclusion != p->challenge_count) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "sector %llu: %zu inclusion proofs, the circuit takes %u",
                   (unsigned long long)s->sector_id, s->ninclusion, p->challenge_count);
        return;
    }
    cz_fr v;
    cz_bp_num comm_r_last, comm_c, comm_r, h;
    cz_bp_dom_value(cs, s ? s->comm_r_last : NULL, &v);
    cz_cs_push_scope(cs, "comm_r_last");
    cz_bp_num_alloc(cs, &comm_r_last, &v);
    cz_cs_pop_scope(cs);
    cz_bp_dom_value(cs, s ? s->comm_c : NULL, &v);
    cz_cs_push_scope(cs, "comm_c");
    cz_bp_num_alloc(cs, &comm_c, &v);
    cz_cs_pop_scope(cs);
    cz_bp_dom_value(cs, s ? s->comm_r : NULL, &v);
    cz_cs_push_scope(cs, "comm_r");
    cz_bp_num_alloc(cs, &comm_r, &v);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "comm_r_input");
    cz_bp_num_inputize(cs, &comm_r);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "H_comm_c_comm_r_last");
    cz_bp_poseidon_hash2(cs, &h, &comm_c, &comm_r_last);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "enforce_comm_c_comm_r_last_hash_comm_r");
    cz_bp_constraint_equal(cs, &comm_r, &h);
    cz_cs_pop_scope(cs);
    for (unsigned i = 0; i < p->challenge_count; i++) {
        cz_cs_push_scope(cs, "challenge_inclusion_%u", i);
        por_synthesize(cs, p, base_len, s ? &s->inclusion[i] : NULL, &comm_r_last);
        cz_cs_pop_scope(cs);
    }
}

/* FallbackPoStCircuit::synthesize_default over FallbackPoStCompound::circuit
 * (or ::blank_circuit) */
cz_status cz_fil_post_synth(cz_cs *cs, const void *ctxp) {
    const cz_fil_post_circuit *ctx = ctxp;
    if (!cs || !ctx || !ctx->proof) return CZ_ERR_INVALID_ARG;
    const cz_fil_post_proof *p = ctx->proof;
    const cz_fil_post_request *r = ctx->req;
    if (r) {
        /* the R1CS depends only on the type and sector size (not on the
         * API version), so a request of a sibling proof fits */
        if (!r->proof || r->proof->type != p->type || r->proof->sector_size != p->sector_size || r->nvanilla == 0)
            return CZ_ERR_INVALID_ARG;
    } else if (cz_cs_has_values(cs)) {
        return CZ_ERR_INVALID_ARG; /* a witness needs a request */
    }
    size_t base_len = cz_fil_post_base_path_len(p);
    cz_cs_push_scope(cs, "outer namespace");
    for (unsigned i = 0; i < p->sector_count; i++) {
        cz_fil_post_circuit_sector s;
        if (r) {
            cz_status st = cz_fil_post_circuit_sector_of(r, i, &s);
            if (st != CZ_OK) {
                cz_cs_fail(cs, st, "circuit sector %u cannot be formed from the request", i);
                break;
            }
        }
        cz_cs_push_scope(cs, "sector_%u", i);
        sector_synthesize(cs, p, base_len, r ? &s : NULL);
        cz_cs_pop_scope(cs);
        if (cz_cs_status(cs) != CZ_OK) break;
    }
    cz_cs_pop_scope(cs);
    return cz_cs_status(cs);
}
