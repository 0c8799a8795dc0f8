/*
 * Filecoin's StackedCircuit (storage-proofs-porep stacked/circuit/proof.rs
 * and params.rs), on the bellperson-exact gadgets; see
 * cuzk/fil_porep_circuit.h. Each function below names the reference
 * function it mirrors; the order of allocations and constraints is the
 * reference's, line for line.
 */
#include "cuzk/fil_porep_circuit.h"
#include "cuzk/fil_bp.h"
#include "cuzk/fil_bp_num.h"
#include "cuzk/fil_bp_por.h"
#include "cuzk/fil_bp_sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- storage-proofs-core PoR (gadgets/por.rs, cuzk/fil_bp_por.h) -------------- */
/* enforce_inclusion (params.rs) = PoRCircuit::synthesize with the leaf and
 * root already allocated (Root::Var) and private = true, in scope `name`.
 * Not strict: levels or hashes mp lacks are taken as 0, as this circuit
 * always took them.
 * `mp` NULL: blank. */
static void enforce_inclusion(cz_cs *cs, const char *name, const cz_fil_merkle_proof *mp, bool sha,
                              unsigned arity, unsigned sub, unsigned top, size_t base_len,
                              const cz_bp_num *root, const cz_bp_num *leaf) {
    cz_bp_por_tree tree = { base_len, arity, sub, top, sha, false };
    cz_cs_push_scope(cs, "%s", name);
    cz_bp_por_synthesize(cs, &tree, mp, leaf, root);
    cz_cs_pop_scope(cs);
}

/* ---- labels (create_label.rs) ---------------------------------------------------- */
/* storage-proofs-core util::reverse_bit_numbering: pad to whole bytes with
 * constant false, then reverse the bits inside each byte. */
static size_t reverse_bit_numbering(const cz_bp_bool *in, size_t n, cz_bp_bool *out) {
    size_t padded = (n + 7) / 8 * 8;
    for (size_t i = 0; i < padded; i++) {
        size_t byte = i / 8, j = 7 - i % 8, src = byte * 8 + j;
        out[i] = src < n ? in[src] : cz_bp_bool_const(false);
    }
    return padded;
}

/* AllocatedNum::to_bits_le followed by reverse_bit_numbering (256 bits). */
static void num_bits_reversed(cz_cs *cs, const cz_bp_num *n, cz_bp_bool out[256]) {
    cz_bp_bool le[CZ_BP_FR_NUM_BITS];
    cz_bp_num_to_bits_le(cs, le, n);
    reverse_bit_numbering(le, CZ_BP_FR_NUM_BITS, out);
}

/* create_label_circuit: SHA-256 of replica_id (256 bits) ‖ layer (u32 BE)
 * ‖ node (u64 BE) ‖ zeros to 512 bits ‖ 37 parents of 256 bits, then the
 * digest with bit numbering reversed, its first 254 bits packed into one
 * number (multipack::pack_bits). */
static void create_label_circuit(cz_cs *cs, const cz_bp_bool replica_id[256], cz_bp_bool (*parents)[256],
                                 uint32_t layer, const cz_bp_uint64 *node, cz_bp_num *out) {
    enum { NBITS = (1 + 1 + 37) * 256 };
    cz_bp_bool *msg = malloc(NBITS * sizeof *msg);
    if (!msg) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "create_label: out of memory");
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < 256; i++) msg[n++] = replica_id[i];
    cz_bp_u32 lu = cz_bp_u32_constant(layer);
    cz_bp_u32_into_bits_be(&lu, msg + n);
    n += 32;
    cz_bp_uint64_to_bits_be(node, msg + n);
    n += 64;
    while (n < 512) msg[n++] = cz_bp_bool_const(false);
    for (size_t p = 0; p < 37; p++)
        for (size_t i = 0; i < 256; i++) msg[n++] = parents[p][i];
    cz_bp_bool digest[256], rev[256];
    cz_cs_push_scope(cs, "hash");
    cz_status st = cz_bp_sha256(cs, digest, msg, n);
    if (st != CZ_OK) cz_cs_fail(cs, st, "create_label: sha256 failed");
    cz_cs_pop_scope(cs);
    reverse_bit_numbering(digest, 256, rev);
    cz_cs_push_scope(cs, "result_num");
    cz_bp_pack_bits(cs, out, rev, CZ_BP_FR_CAPACITY);
    cz_cs_pop_scope(cs);
    free(msg);
}

/* ---- per challenge (params.rs Proof::synthesize) ------------------------------- */
typedef struct {
    const cz_fil_seal_proof *p;
    size_t tree_d_len, tree_c_base_len;
    unsigned layers;
} shape;

static void column_alloc(cz_cs *cs, const cz_fil_column *col, unsigned layers, cz_bp_num *rows) {
    cz_cs_push_scope(cs, "column");
    for (unsigned i = 0; i < layers; i++) {
        cz_fr v;
        cz_bp_dom_value(cs, col && i < col->nrows ? &col->rows[i] : NULL, &v);
        cz_cs_push_scope(cs, "column_num_row_%u", i);
        cz_bp_num_alloc(cs, &rows[i], &v);
        cz_cs_pop_scope(cs);
    }
    cz_cs_pop_scope(cs);
}

/* One parent's column (params.rs, the drg_parents / exp_parents loops):
 * its rows allocated ("<kind>_parent_<i>_num"), hashed
 * ("<kind>_parent_<i>_constraint") and included in tree C
 * ("<kind>_parent_<i>_inclusion"). */
static void parent_column(cz_cs *cs, const shape *sh, const cz_fil_column_proof *cp, const char *kind, unsigned i,
                          cz_bp_num *rows, const cz_bp_num *comm_c) {
    const unsigned L = sh->layers;
    cz_cs_push_scope(cs, "%s_parent_%u_num", kind, i);
    column_alloc(cs, cp ? &cp->column : NULL, L, rows);
    cz_cs_pop_scope(cs);
    cz_bp_num h;
    cz_cs_push_scope(cs, "%s_parent_%u_constraint", kind, i);
    cz_bp_hash_single_column(cs, &h, rows, L);
    cz_cs_pop_scope(cs);
    char name[32];
    snprintf(name, sizeof name, "%s_parent_%u_inclusion", kind, i);
    enforce_inclusion(cs, name, cp ? &cp->inclusion : NULL, false, 8, sh->p->tree_sub_arity, sh->p->tree_top_arity,
                      sh->tree_c_base_len, comm_c, &h);
}

static void challenge_synthesize(cz_cs *cs, const shape *sh, const cz_fil_vanilla_proof *v,
                                 const cz_bp_num *comm_d, const cz_bp_num *comm_c,
                                 const cz_bp_num *comm_r_last, const cz_bp_bool replica_id[256]) {
    const unsigned L = sh->layers, sub = sh->p->tree_sub_arity, top = sh->p->tree_top_arity;
    cz_fr val;
    /* data leaf and its tree D inclusion */
    cz_bp_num data_leaf;
    cz_bp_dom_value(cs, v ? &v->comm_d_proofs.leaf : NULL, &val);
    cz_cs_push_scope(cs, "data_leaf");
    cz_bp_num_alloc(cs, &data_leaf, &val);
    cz_cs_pop_scope(cs);
    enforce_inclusion(cs, "comm_d_inclusion", v ? &v->comm_d_proofs : NULL, true, 2, 0, 0, sh->tree_d_len, comm_d,
                      &data_leaf);
    /* parent columns: allocate, hash, include in tree C (DRG, then expander) */
    cz_bp_num drg[6][11], exp[8][11];
    for (unsigned i = 0; i < 6; i++)
        parent_column(cs, sh, v ? &v->drg_parents[i] : NULL, "drg", i, drg[i], comm_c);
    for (unsigned i = 0; i < 8; i++)
        parent_column(cs, sh, v ? &v->exp_parents[i] : NULL, "exp", i, exp[i], comm_c);
    /* the challenge: UInt64, packed into an input */
    cz_bp_uint64 challenge;
    cz_cs_push_scope(cs, "challenge");
    cz_bp_uint64_alloc(cs, &challenge, v && v->nlabeling ? v->labeling_proofs[0].node : 0);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "challenge input");
    cz_bp_uint64_pack_into_input(cs, &challenge);
    cz_cs_pop_scope(cs);
    /* labels of every layer */
    cz_bp_num labels[11];
    cz_bp_bool (*par)[256] = malloc(14 * sizeof *par);
    cz_bp_bool (*expd)[256] = malloc(37 * sizeof *expd);
    if (!par || !expd) {
        free(par);
        free(expd);
        cz_cs_fail(cs, CZ_ERR_NOMEM, "porep circuit: out of memory");
        return;
    }
    for (unsigned layer = 1; layer <= L; layer++) {
        cz_cs_push_scope(cs, "labeling_%u", layer);
        unsigned np = 0;
        for (unsigned i = 0; i < 6; i++, np++) {
            cz_cs_push_scope(cs, "drg_parent_%u_bits", np);
            num_bits_reversed(cs, &drg[i][layer - 1], par[np]);
            cz_cs_pop_scope(cs);
        }
        if (layer > 1)
            for (unsigned i = 0; i < 8; i++, np++) {
                cz_cs_push_scope(cs, "exp_parent_%u_bits", np);
                num_bits_reversed(cs, &exp[i][layer - 2], par[np]);
                cz_cs_pop_scope(cs);
            }
        /* expanded parents: the np parents repeated to 37 */
        for (unsigned i = 0; i < 37; i++) memcpy(expd[i], par[i % np], sizeof expd[i]);
        cz_cs_push_scope(cs, "create_label");
        create_label_circuit(cs, replica_id, expd, layer, &challenge, &labels[layer - 1]);
        cz_cs_pop_scope(cs);
        cz_cs_pop_scope(cs);
    }
    free(par);
    free(expd);
    /* encoding and tree R inclusion */
    cz_bp_num encoded;
    cz_cs_push_scope(cs, "encode_node");
    cz_bp_encode(cs, &encoded, &labels[L - 1], &data_leaf);
    cz_cs_pop_scope(cs);
    enforce_inclusion(cs, "comm_r_last_data_inclusion", v ? &v->comm_r_last_proof : NULL, false, 8, sub, top,
                      sh->tree_c_base_len, comm_r_last, &encoded);
    /* the challenged column */
    cz_bp_num ch;
    cz_cs_push_scope(cs, "c_x_column_hash");
    cz_bp_hash_single_column(cs, &ch, labels, L);
    cz_cs_pop_scope(cs);
    enforce_inclusion(cs, "c_x_inclusion", v ? &v->c_x.inclusion : NULL, false, 8, sub, top, sh->tree_c_base_len,
                      comm_c, &ch);
}

/* ---- StackedCircuit::synthesize ------------------------------------------------ */
static size_t log_base(uint64_t n, unsigned b) {
    size_t k = 0;
    while (n > 1) {
        n /= b;
        k++;
    }
    return k;
}

cz_status cz_fil_porep_synth(cz_cs *cs, const void *ctxp) {
    const cz_fil_porep_circuit *ctx = ctxp;
    if (!ctx || !ctx->proof) return CZ_ERR_INVALID_ARG;
    const cz_fil_seal_proof *p = ctx->proof;
    const cz_fil_c1 *c1 = ctx->c1;
    if (c1) {
        if (c1->registered_proof->sector_size != p->sector_size || c1->registered_proof->layers != p->layers ||
            ctx->partition >= c1->npartitions ||
            c1->partitions[ctx->partition].nchallenges != p->challenges_per_partition)
            return CZ_ERR_INVALID_ARG;
    } else if (cz_cs_has_values(cs)) {
        return CZ_ERR_INVALID_ARG; /* a witness needs a C1 output */
    }
    const cz_fil_partition_proofs *pp = c1 ? &c1->partitions[ctx->partition] : NULL;
    shape sh;
    sh.p = p;
    sh.layers = p->layers;
    uint64_t nodes = p->sector_size / CZ_FIL_NODE_SIZE;
    sh.tree_d_len = log_base(nodes, 2);
    uint64_t base_leaves = nodes / (p->tree_sub_arity ? p->tree_sub_arity : 1) / (p->tree_top_arity ? p->tree_top_arity : 1);
    sh.tree_c_base_len = log_base(base_leaves, 8);
    const cz_fil_vanilla_proof *v0 = pp ? &pp->proofs[0] : NULL;

    cz_fr val;
    cz_bp_num replica_id, comm_d, comm_r, comm_r_last, comm_c;
    cz_bp_dom_value(cs, c1 ? &c1->replica_id : NULL, &val);
    cz_cs_push_scope(cs, "replica_id");
    cz_bp_num_alloc(cs, &replica_id, &val);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "replica_id_input");
    cz_bp_num_inputize(cs, &replica_id);
    cz_cs_pop_scope(cs);
    cz_bp_bool rid_bits[256];
    cz_cs_push_scope(cs, "replica_id_bits");
    num_bits_reversed(cs, &replica_id, rid_bits);
    cz_cs_pop_scope(cs);

    cz_bp_dom_value(cs, c1 ? &c1->comm_d : NULL, &val);
    cz_cs_push_scope(cs, "comm_d");
    cz_bp_num_alloc(cs, &comm_d, &val);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "comm_d_input");
    cz_bp_num_inputize(cs, &comm_d);
    cz_cs_pop_scope(cs);

    cz_bp_dom_value(cs, c1 ? &c1->comm_r : NULL, &val);
    cz_cs_push_scope(cs, "comm_r");
    cz_bp_num_alloc(cs, &comm_r, &val);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "comm_r_input");
    cz_bp_num_inputize(cs, &comm_r);
    cz_cs_pop_scope(cs);

    /* comm_r_last and comm_c: roots of the first challenge's proofs (as
     * StackedCompound::circuit) */
    cz_bp_dom_value(cs, v0 ? &v0->comm_r_last_proof.root : NULL, &val);
    cz_cs_push_scope(cs, "comm_r_last");
    cz_bp_num_alloc(cs, &comm_r_last, &val);
    cz_cs_pop_scope(cs);
    cz_bp_dom_value(cs, v0 ? &v0->c_x.inclusion.root : NULL, &val);
    cz_cs_push_scope(cs, "comm_c");
    cz_bp_num_alloc(cs, &comm_c, &val);
    cz_cs_pop_scope(cs);

    cz_bp_num h;
    cz_cs_push_scope(cs, "H_comm_c_comm_r_last");
    cz_bp_poseidon_hash2(cs, &h, &comm_c, &comm_r_last);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "enforce comm_r = H(comm_c || comm_r_last)");
    cz_bp_constraint_equal(cs, &comm_r, &h);
    cz_cs_pop_scope(cs);

    for (unsigned i = 0; i < p->challenges_per_partition; i++) {
        cz_cs_push_scope(cs, "challenge_%u", i);
        challenge_synthesize(cs, &sh, pp ? &pp->proofs[i] : NULL, &comm_d, &comm_c, &comm_r_last, rid_bits);
        cz_cs_pop_scope(cs);
        if (cz_cs_status(cs) != CZ_OK) break;
    }
    return cz_cs_status(cs);
}
