/*
 * SnapDeals' circuit (storage-proofs-update circuit.rs
 * EmptySectorUpdateCircuit::synthesize, gadgets.rs, storage-proofs-core
 * por_no_challenge_input and insertion::select) on the bellperson-exact
 * gadgets, and its public inputs (compound.rs generate_public_inputs).
 * Each function names the reference function it mirrors; allocations and
 * constraints come in the reference's order, line for line.
 */
#include "cuzk/fil_snap.h"
#include "cuzk/fil_bp_num.h"
#include "cuzk/fil_bp_por.h"
#include "cuzk/fil_bp_sha256.h"
#include "cuzk/fil_poseidon.h"
#include "snap_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A domain element's value; a blank circuit (no values) gets 0. */
static void dom_value(cz_cs *cs, const cz_fil_domain *d, cz_fr *out) {
    if (!d || !cz_cs_has_values(cs)) {
        *out = CZ_FR_ZERO;
        return;
    }
    if (cz_fil_domain_to_fr(out, d) != CZ_OK) {
        cz_cs_fail(cs, CZ_ERR_NOT_CANONICAL, "a SnapDeals vanilla value is not a canonical field element");
        *out = CZ_FR_ZERO;
    }
}

static void alloc_num(cz_cs *cs, cz_bp_num *out, const cz_fil_domain *d, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void alloc_num(cz_cs *cs, cz_bp_num *out, const cz_fil_domain *d, const char *fmt, ...) {
    cz_fr v;
    dom_value(cs, d, &v);
    if (cz_cs_get_mode(cs) == CZ_CS_CHECK) {
        char name[160];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(name, sizeof name, fmt, ap);
        va_end(ap);
        cz_cs_push_scope(cs, "%s", name);
    } else {
        cz_cs_push_scope(cs, "-");
    }
    cz_bp_num_alloc(cs, out, &v);
    cz_cs_pop_scope(cs);
}

static cz_status gen_constants(cz_neptune_constants *c) {
    return cz_neptune_constants_init(c, 2, CZ_NEPTUNE_STANDARD, CZ_NEPTUNE_CUSTOM, 1);
}

/* neptune circuit::poseidon_hash(cs, [a, b], POSEIDON_CONSTANTS_GEN_RANDOMNESS) */
static void poseidon_gen(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a, const cz_bp_num *b) {
    cz_neptune_constants c;
    cz_status st = gen_constants(&c);
    cz_bp_num pre[2] = { *a, *b };
    if (st != CZ_OK) {
        cz_cs_fail(cs, st, "gen-randomness Poseidon constants unavailable");
        *out = *a;
        return;
    }
    cz_bp_poseidon_hash(cs, out, pre, &c);
}

/* ---- gadgets.rs --------------------------------------------------------------- */

/* gadgets.rs allocated_num_to_allocated_bits */
void cz_bp_snap_num_to_allocated_bits(cz_cs *cs, cz_bp_abit out[255], const cz_bp_num *num) {
    cz_bp_field_into_allocated_bits_le(cs, out, &num->value);
    cz_lc a, b, c;
    cz_bp_lc3_init(cs, &a, &b, &c);
    for (unsigned i = 0; i < CZ_BP_FR_NUM_BITS; i++) cz_lc_add_pow2(&a, out[i].var, i);
    cz_lc_add_var(&b, CZ_VAR_ONE);
    cz_lc_add_var(&c, num->var);
    cz_bp_enforce3(cs, &a, &b, &c, "binary decomp");
}

/* gadgets.rs gen_challenge_bits */
void cz_bp_snap_gen_challenge_bits(cz_cs *cs, cz_bp_abit *out, const cz_bp_num *comm_r_new,
                                   const cz_bp_num *partition, unsigned challenges,
                                   unsigned bits_per_challenge) {
    unsigned per_digest = CZ_BP_FR_CAPACITY / bits_per_challenge;
    /* (challenges as f32 / per_digest as f32).ceil(): exact for these sizes */
    unsigned dpp = (challenges + per_digest - 1) / per_digest;
    unsigned generated = 0;
    for (unsigned j = 0; j < dpp; j++) {
        cz_bp_num idx;
        cz_fr v = CZ_FR_ZERO;
        if (cz_cs_has_values(cs)) {
            cz_fr t, jf;
            cz_fr_from_u64(&t, dpp);
            cz_fr_mul(&t, &t, &partition->value);
            cz_fr_from_u64(&jf, j);
            cz_fr_add(&v, &t, &jf);
        }
        cz_cs_push_scope(cs, "digest_index_%u", j);
        cz_bp_num_alloc(cs, &idx, &v);
        cz_cs_pop_scope(cs);
        cz_lc a, b, c;
        cz_bp_lc3_init(cs, &a, &b, &c);
        cz_lc_add_u64(&a, partition->var, dpp);
        cz_lc_add_u64(&a, CZ_VAR_ONE, j);
        cz_lc_add_var(&b, CZ_VAR_ONE);
        cz_lc_add_var(&c, idx.var);
        cz_bp_enforce3(cs, &a, &b, &c, "digest_index == k * digests_per_partition + j");

        cz_bp_num digest;
        cz_cs_push_scope(cs, "digest_%u", j);
        poseidon_gen(cs, &digest, comm_r_new, &idx);
        cz_cs_pop_scope(cs);
        cz_bp_abit bits[CZ_BP_FR_NUM_BITS];
        cz_cs_push_scope(cs, "digest_%u_bits", j);
        cz_bp_snap_num_to_allocated_bits(cs, bits, &digest);
        cz_cs_pop_scope(cs);

        unsigned take = j == dpp - 1 ? challenges - generated : per_digest;
        for (unsigned t = 0; t < take; t++, generated++)
            memcpy(out + (size_t)generated * bits_per_challenge, bits + (size_t)t * bits_per_challenge,
                   bits_per_challenge * sizeof *out);
    }
}

/* gadgets.rs get_challenge_high_bits */
void cz_bp_snap_get_challenge_high_bits(cz_cs *cs, cz_bp_num *out, const cz_bp_abit *c_bits,
                                        unsigned nbits, const cz_bp_abit h_select_bits[6],
                                        const unsigned hs[6]) {
    cz_bp_num or_zero[CZ_FIL_SNAP_HS];
    cz_bp_bool bools[64];
    for (unsigned i = 0; i < nbits && i < 64; i++) bools[i] = cz_bp_bool_is(c_bits[i]);
    for (unsigned k = 0; k < CZ_FIL_SNAP_HS; k++) {
        unsigned h = hs[k];
        if (h > nbits) {
            cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "get_challenge_high_bits: h = %u exceeds %u challenge bits", h,
                       nbits);
            h = nbits;
        }
        cz_bp_num c_high;
        cz_cs_push_scope(cs, "c_high (h=%u, k=%u)", h, k);
        cz_bp_pack_bits(cs, &c_high, bools + (nbits - h), h);
        cz_cs_pop_scope(cs);
        cz_fr v = CZ_FR_ZERO;
        if (cz_cs_has_values(cs) && h_select_bits[k].value) v = c_high.value;
        cz_cs_push_scope(cs, "c_high_or_zero (h=%u, k=%u)", h, k);
        cz_bp_num_alloc(cs, &or_zero[k], &v);
        cz_cs_pop_scope(cs);
        cz_lc a, b, c;
        cz_bp_lc3_init(cs, &a, &b, &c);
        cz_lc_add_var(&a, c_high.var);
        cz_lc_add_var(&b, h_select_bits[k].var);
        cz_lc_add_var(&c, or_zero[k].var);
        cz_bp_enforce3(cs, &a, &b, &c, "c_high_or_zero == c_high * h_select_bit");
    }
    cz_fr sum = CZ_FR_ZERO;
    if (cz_cs_has_values(cs))
        for (unsigned k = 0; k < CZ_FIL_SNAP_HS; k++) cz_fr_add(&sum, &sum, &or_zero[k].value);
    cz_cs_push_scope(cs, "c_high_selected");
    cz_bp_num_alloc(cs, out, &sum);
    cz_cs_pop_scope(cs);
    cz_lc a, b, c;
    cz_bp_lc3_init(cs, &a, &b, &c);
    for (unsigned k = 0; k < CZ_FIL_SNAP_HS; k++) cz_lc_add_var(&a, or_zero[k].var);
    cz_lc_add_var(&b, CZ_VAR_ONE);
    cz_lc_add_var(&c, out->var);
    cz_bp_enforce3(cs, &a, &b, &c, "c_high_selected == dot(c_highs, h_select_bits)");
}

/* gadgets.rs label_r_new */
void cz_bp_snap_label_r_new(cz_cs *cs, cz_bp_num *out, const cz_bp_num *label_r_old,
                            const cz_bp_num *label_d_new, const cz_bp_num *rho) {
    cz_bp_num drho;
    cz_cs_push_scope(cs, "label_d_new * rho");
    cz_bp_num_mul(cs, &drho, label_d_new, rho);
    cz_cs_pop_scope(cs);
    cz_fr v = CZ_FR_ZERO;
    if (cz_cs_has_values(cs)) cz_fr_add(&v, &label_r_old->value, &drho.value);
    cz_cs_push_scope(cs, "label_r_new");
    cz_bp_num_alloc(cs, out, &v);
    cz_cs_pop_scope(cs);
    cz_lc a, b, c;
    cz_bp_lc3_init(cs, &a, &b, &c);
    cz_lc_add_var(&a, label_r_old->var);
    cz_lc_add_var(&a, drho.var);
    cz_lc_add_var(&b, CZ_VAR_ONE);
    cz_lc_add_var(&c, out->var);
    cz_bp_enforce3(cs, &a, &b, &c, "label_r_new == label_r_old + label_d_new * rho");
}

/* ---- storage-proofs-core ------------------------------------------------------- */

static unsigned log2u(unsigned n) {
    unsigned b = 0;
    while ((1u << b) < n) b++;
    return b;
}

/* One level of por_no_challenge_input: insert (namespace "merkle proof
 * insert (height=h)"), then the hasher's hash_multi_leaf_circuit
 * ("merkle proof hash (height=h)"). */
static void por_level(cz_cs *cs, bool sha256, unsigned arity, unsigned height, cz_bp_num *cur,
                      const cz_bp_abit *bits, const cz_bp_num *siblings) {
    unsigned nb = log2u(arity);
    cz_bp_bool idx[4];
    for (unsigned b = 0; b < nb; b++) idx[b] = cz_bp_bool_is(bits[b]);
    cz_bp_num preimg[16];
    cz_cs_push_scope(cs, "merkle proof insert (height=%u)", height);
    cz_bp_insert(cs, preimg, cur, idx, nb, siblings);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "merkle proof hash (height=%u)", height);
    cz_bp_por_hash(cs, sha256, cur, preimg, arity);
    cz_cs_pop_scope(cs);
}

/* storage-proofs-core gadgets/por.rs por_no_challenge_input */
void cz_bp_snap_por_no_challenge_input(cz_cs *cs, bool sha256, unsigned arity, unsigned sub_arity,
                                       unsigned top_arity, const cz_bp_abit *challenge_bits,
                                       size_t nbits, const cz_bp_num *leaf, const cz_bp_num *path,
                                       size_t nlevels, const cz_bp_num *root) {
    size_t extra = (sub_arity ? 1 : 0) + (top_arity ? 1 : 0);
    if (arity < 2 || arity > 16 || (top_arity && !sub_arity) || nlevels < extra) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "por_no_challenge_input: bad tree shape");
        return;
    }
    size_t base_len = nlevels - extra;
    unsigned bb = log2u(arity), sb = sub_arity ? log2u(sub_arity) : 0, tb = top_arity ? log2u(top_arity) : 0;
    if (base_len * bb + sb + tb != nbits) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "challenge bit-length and tree arity do not agree");
        return;
    }
    cz_bp_num cur = *leaf;
    unsigned height = 0;
    size_t bit = 0;
    const cz_bp_num *sib = path;
    for (size_t i = 0; i < base_len; i++, height++) {
        por_level(cs, sha256, arity, height, &cur, challenge_bits + bit, sib);
        bit += bb;
        sib += arity - 1;
    }
    if (sub_arity) {
        por_level(cs, sha256, sub_arity, height, &cur, challenge_bits + bit, sib);
        bit += sb;
        sib += sub_arity - 1;
        height++;
    }
    if (top_arity) por_level(cs, sha256, top_arity, height, &cur, challenge_bits + bit, sib);
    cz_lc a, b, c;
    cz_bp_lc3_init(cs, &a, &b, &c);
    cz_lc_add_var(&a, cur.var);
    cz_lc_add_var(&b, CZ_VAR_ONE);
    cz_lc_add_var(&c, root->var);
    cz_bp_enforce3(cs, &a, &b, &c, "calculated root == provided root");
}

/* insertion.rs select, for any power-of-two size (cz_bp_select stops at
 * 2^6 elements; the apex tree has 128): most significant bit first,
 * new[j] = pick(bit, state[half + j], state[j]), namespace "pick i, j". */
static void select_any(cz_cs *cs, cz_bp_num *out, const cz_bp_num *from, const cz_bp_bool *bits,
                       unsigned nbits) {
    size_t size = (size_t)1 << nbits;
    cz_bp_num *state = malloc(size * sizeof *state);
    if (!state) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "select: out of memory");
        *out = from[0];
        return;
    }
    memcpy(state, from, size * sizeof *state);
    size_t half = size / 2;
    for (unsigned i = 0; i < nbits; i++) {
        const cz_bp_bool *bit = &bits[nbits - 1 - i];
        for (size_t j = 0; j < half; j++) {
            cz_bp_num n;
            cz_cs_push_scope(cs, "pick %u, %zu", i, j);
            cz_bp_pick(cs, &n, bit, &state[half + j], &state[j]);
            cz_cs_pop_scope(cs);
            state[j] = n; /* state[j] is read only by this pick */
        }
        half /= 2;
    }
    *out = state[0];
    free(state);
}

/* gadgets.rs apex_por */
void cz_bp_snap_apex_por(cz_cs *cs, const cz_bp_num *apex_leafs, size_t napex,
                         const cz_bp_abit *partition_bits, const cz_bp_num *partition_path,
                         unsigned partition_bit_len, const cz_bp_num *comm_d) {
    if (napex == 0 || (napex & (napex - 1))) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "apex_por: apex leaf count %zu is not a power of two", napex);
        return;
    }
    cz_bp_num *row = malloc(napex * sizeof *row);
    if (!row) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "apex_por: out of memory");
        return;
    }
    memcpy(row, apex_leafs, napex * sizeof *row);
    unsigned r = 0;
    for (size_t n = napex; n > 1; n /= 2, r++) {
        for (size_t i = 0; i < n / 2; i++) {
            cz_bp_num h;
            cz_cs_push_scope(cs, "apex_tree generation hash (tree_row=%u, siblings=%zu)", r, i);
            cz_status st = cz_fil_sha256_hash2_circuit(cs, &h, &row[2 * i], &row[2 * i + 1]);
            cz_cs_pop_scope(cs);
            if (st != CZ_OK) cz_cs_fail(cs, st, "apex tree hash failed");
            row[i] = h; /* rows shrink in place: entry i is written after 2i, 2i+1 are read */
        }
    }
    cz_bp_num apex_root = row[0];
    free(row);
    cz_cs_push_scope(cs, "partition-tree por");
    cz_bp_snap_por_no_challenge_input(cs, true, 2, 0, 0, partition_bits, partition_bit_len, &apex_root,
                                      partition_path, partition_bit_len, comm_d);
    cz_cs_pop_scope(cs);
}

/* ---- EmptySectorUpdateCircuit::synthesize ---------------------------------------- */

/* Sibling i of level l of a flattened path (base, sub, top levels). */
static const cz_fil_domain *path_sibling(const cz_fil_merkle_proof *mp, size_t l, unsigned i) {
    if (!mp) return NULL;
    const cz_fil_path *parts[3] = { &mp->base, &mp->sub, &mp->top };
    for (int k = 0; k < 3; k++) {
        if (l < parts[k]->len) return i < parts[k]->elems[l].nhashes ? &parts[k]->elems[l].hashes[i] : NULL;
        l -= parts[k]->len;
    }
    return NULL;
}

/* Allocate one tree R path ("path_r_<which> sibling (c_index, tree_row,
 * sibling_index)"), levels base..top, then por_no_challenge_input<TreeR>. */
static void tree_r_por(cz_cs *cs, const cz_fil_snap_proof *p, const char *which, unsigned ci,
                       const cz_fil_merkle_proof *mp, const cz_bp_abit *c_bits, const cz_bp_num *leaf,
                       const cz_bp_num *root) {
    size_t nlev = p->tree_r_base_len + (p->tree_sub_arity ? 1 : 0) + (p->tree_top_arity ? 1 : 0);
    size_t nsib = (size_t)p->tree_r_base_len * 7 + (p->tree_sub_arity ? p->tree_sub_arity - 1 : 0) +
                  (p->tree_top_arity ? p->tree_top_arity - 1 : 0);
    cz_bp_num *path = malloc(nsib * sizeof *path);
    if (!path) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "snap circuit: out of memory");
        return;
    }
    size_t s = 0;
    for (size_t l = 0; l < nlev; l++) {
        unsigned ar = l < p->tree_r_base_len ? 8 : l == p->tree_r_base_len ? p->tree_sub_arity : p->tree_top_arity;
        for (unsigned i = 0; i + 1 < ar; i++)
            alloc_num(cs, &path[s++], path_sibling(mp, l, i),
                      "path_r_%s sibling (c_index=%u, tree_row=%zu, sibling_index=%u)", which, ci, l, i);
    }
    cz_cs_push_scope(cs, "por tree_r_%s (c_index=%u)", which, ci);
    cz_bp_snap_por_no_challenge_input(cs, false, 8, p->tree_sub_arity, p->tree_top_arity, c_bits,
                                      p->challenge_bit_len, leaf, path, nlev, root);
    cz_cs_pop_scope(cs);
    free(path);
}

static bool dom_eq(const cz_fil_domain *a, const cz_fil_domain *b) { return memcmp(a->b, b->b, 32) == 0; }

cz_status cz_fil_snap_synth(cz_cs *cs, const void *ctxp) {
    const cz_fil_snap_circuit *ctx = ctxp;
    if (!cs || !ctx || !ctx->proof) return CZ_ERR_INVALID_ARG;
    const cz_fil_snap_proof *p = ctx->proof;
    const cz_fil_snap_request *rq = ctx->request;
    unsigned h = ctx->h ? ctx->h : p->h_default;
    uint64_t khs = 0;
    if (cz_fil_snap_k_and_h_select(p, ctx->partition, h, &khs) != CZ_OK) return CZ_ERR_INVALID_ARG;
    const cz_fil_snap_partition_proof *pp = NULL;
    if (rq) {
        if (rq->proof != p || ctx->partition >= rq->npartitions) return CZ_ERR_INVALID_ARG;
        pp = &rq->partitions[ctx->partition];
        cz_status st = cz_snap_partition_shape(p, pp, NULL);
        if (st != CZ_OK) return st;
        /* the reference asserts every challenge has challenge 0's partition path */
        for (size_t c = 1; c < pp->nchallenges; c++)
            for (unsigned i = p->challenge_bit_len - p->partition_bit_len; i < p->challenge_bit_len; i++)
                if (!dom_eq(&pp->challenges[c].proof_d_new.base.elems[i].hashes[0],
                            &pp->challenges[0].proof_d_new.base.elems[i].hashes[0]))
                    return CZ_ERR_MISMATCH;
    } else if (cz_cs_has_values(cs)) {
        return CZ_ERR_INVALID_ARG;
    }
    const bool vals = cz_cs_has_values(cs);
    const unsigned pbl = p->partition_bit_len, cbl = p->challenge_bit_len;
    const cz_fil_snap_challenge_proof *c0 = pp ? &pp->challenges[0] : NULL;

    /* k_and_h_select: public input, then its bits and the binary decomposition */
    cz_bp_num khs_num;
    cz_fr v = CZ_FR_ZERO;
    if (vals) cz_fr_from_u64(&v, khs);
    cz_cs_push_scope(cs, "k_and_h_select");
    cz_bp_num_alloc(cs, &khs_num, &v);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "k_and_h_select (public input)");
    cz_bp_num_inputize(cs, &khs_num);
    cz_cs_pop_scope(cs);
    unsigned kb_len = pbl + CZ_FIL_SNAP_HS;
    cz_bp_abit kbits[4 + CZ_FIL_SNAP_HS];
    for (unsigned i = 0; i < kb_len; i++) {
        cz_cs_push_scope(cs, "k_and_h_select_bit_%u", i);
        cz_bp_abit_alloc(cs, &kbits[i], vals && ((khs >> i) & 1));
        cz_cs_pop_scope(cs);
    }
    {
        cz_lc a, b, c;
        cz_bp_lc3_init(cs, &a, &b, &c);
        for (unsigned i = 0; i < kb_len; i++) cz_lc_add_pow2(&a, kbits[i].var, i);
        cz_lc_add_var(&b, CZ_VAR_ONE);
        cz_lc_add_var(&c, khs_num.var);
        cz_bp_enforce3(cs, &a, &b, &c, "k_and_h_select binary decomp");
    }
    const cz_bp_abit *partition_bits = kbits, *h_select_bits = kbits + pbl;
    cz_bp_num partition;
    {
        cz_bp_bool pb[4];
        for (unsigned i = 0; i < pbl; i++) pb[i] = cz_bp_bool_is(partition_bits[i]);
        cz_cs_push_scope(cs, "pack partition bits");
        cz_bp_pack_bits(cs, &partition, pb, pbl);
        cz_cs_pop_scope(cs);
    }

    /* public commitments */
    cz_bp_num comm_r_old, comm_d_new, comm_r_new;
    alloc_num(cs, &comm_r_old, rq ? &rq->comm_r_old : NULL, "comm_r_old");
    cz_cs_push_scope(cs, "comm_r_old_input");
    cz_bp_num_inputize(cs, &comm_r_old);
    cz_cs_pop_scope(cs);
    alloc_num(cs, &comm_d_new, rq ? &rq->comm_d_new : NULL, "comm_d_new");
    cz_cs_push_scope(cs, "comm_d_new_input");
    cz_bp_num_inputize(cs, &comm_d_new);
    cz_cs_pop_scope(cs);
    alloc_num(cs, &comm_r_new, rq ? &rq->comm_r_new : NULL, "comm_r_new");
    cz_cs_push_scope(cs, "comm_r_new_input");
    cz_bp_num_inputize(cs, &comm_r_new);
    cz_cs_pop_scope(cs);

    cz_bp_num phi;
    cz_cs_push_scope(cs, "phi");
    poseidon_gen(cs, &phi, &comm_d_new, &comm_r_old);
    cz_cs_pop_scope(cs);

    /* private inputs other than the challenges' Merkle proofs */
    cz_bp_num comm_c, root_r_old, root_r_new;
    alloc_num(cs, &comm_c, pp ? &pp->comm_c : NULL, "comm_c");
    alloc_num(cs, &root_r_old, c0 ? &c0->proof_r_old.root : NULL, "root_r_old");
    alloc_num(cs, &root_r_new, c0 ? &c0->proof_r_new.root : NULL, "root_r_new");
    cz_bp_num *apex = malloc(p->apex_leaves * sizeof *apex);
    cz_bp_abit *gen = malloc((size_t)p->challenges * (cbl - pbl) * sizeof *gen);
    if (!apex || !gen) {
        free(apex);
        free(gen);
        return CZ_ERR_NOMEM;
    }
    for (unsigned i = 0; i < p->apex_leaves; i++)
        alloc_num(cs, &apex[i], pp ? &pp->apex_leafs[i] : NULL, "apex_leaf_%u", i);
    cz_bp_num ppath[4];
    for (unsigned i = 0; i < pbl; i++)
        alloc_num(cs, &ppath[i], c0 ? &c0->proof_d_new.base.elems[cbl - pbl + i].hashes[0] : NULL,
                  "partition_path_sibling_%u", i);

    /* comm_r = H(comm_c || root_r), old and new */
    cz_bp_num calc;
    cz_cs_push_scope(cs, "comm_r_old_calc");
    cz_bp_poseidon_hash2(cs, &calc, &comm_c, &root_r_old);
    cz_cs_pop_scope(cs);
    {
        cz_lc a, b, c;
        cz_bp_lc3_init(cs, &a, &b, &c);
        cz_lc_add_var(&a, calc.var);
        cz_lc_add_var(&b, CZ_VAR_ONE);
        cz_lc_add_var(&c, comm_r_old.var);
        cz_bp_enforce3(cs, &a, &b, &c, "enforce comm_r_old_calc == comm_r_old");
    }
    cz_cs_push_scope(cs, "comm_r_new_calc");
    cz_bp_poseidon_hash2(cs, &calc, &comm_c, &root_r_new);
    cz_cs_pop_scope(cs);
    {
        cz_lc a, b, c;
        cz_bp_lc3_init(cs, &a, &b, &c);
        cz_lc_add_var(&a, calc.var);
        cz_lc_add_var(&b, CZ_VAR_ONE);
        cz_lc_add_var(&c, comm_r_new.var);
        cz_bp_enforce3(cs, &a, &b, &c, "enforce comm_r_new_calc == comm_r_new");
    }

    cz_cs_push_scope(cs, "apex_gadget");
    cz_bp_snap_apex_por(cs, apex, p->apex_leaves, partition_bits, ppath, pbl, &comm_d_new);
    cz_cs_pop_scope(cs);

    const unsigned rbits = cbl - pbl;
    cz_cs_push_scope(cs, "gen_challenge_bits");
    cz_bp_snap_gen_challenge_bits(cs, gen, &comm_r_new, &partition, p->challenges, rbits);
    cz_cs_pop_scope(cs);

    const unsigned to_apex = cbl - pbl - p->apex_leaf_bit_len;
    for (unsigned ci = 0; ci < p->challenges && cz_cs_status(cs) == CZ_OK; ci++) {
        const cz_fil_snap_challenge_proof *cp = pp ? &pp->challenges[ci] : NULL;
        cz_bp_abit c_bits[64];
        memcpy(c_bits, gen + (size_t)ci * rbits, rbits * sizeof *c_bits);
        memcpy(c_bits + rbits, partition_bits, pbl * sizeof *c_bits);

        cz_bp_num c_high, rho;
        cz_cs_push_scope(cs, "get_challenge_high_bits (c_index=%u)", ci);
        cz_bp_snap_get_challenge_high_bits(cs, &c_high, c_bits, cbl, h_select_bits, p->hs);
        cz_cs_pop_scope(cs);
        cz_cs_push_scope(cs, "rho (c_index=%u)", ci);
        poseidon_gen(cs, &rho, &phi, &c_high);
        cz_cs_pop_scope(cs);

        cz_bp_num leaf_r_old, leaf_d_new, leaf_r_new;
        alloc_num(cs, &leaf_r_old, cp ? &cp->proof_r_old.leaf : NULL, "leaf_r_old (c_index=%u)", ci);
        alloc_num(cs, &leaf_d_new, cp ? &cp->proof_d_new.leaf : NULL, "leaf_d_new (c_index=%u)", ci);
        cz_cs_push_scope(cs, "leaf_r_new (c_index=%u)", ci);
        cz_bp_snap_label_r_new(cs, &leaf_r_new, &leaf_r_old, &leaf_d_new, &rho);
        cz_cs_pop_scope(cs);
        /* The reference asserts the computed leaf equals the proof's (a
         * panic). The checker lets the tree R new inclusion report it as
         * an unsatisfied root instead; the other modes fail. */
        if (vals && cz_cs_get_mode(cs) != CZ_CS_CHECK) {
            cz_fr want;
            dom_value(cs, &cp->proof_r_new.leaf, &want);
            if (!cz_fr_eq(&want, &leaf_r_new.value))
                cz_cs_fail(cs, CZ_ERR_MISMATCH, "challenge %u: leaf_r_new != leaf_r_old + leaf_d_new * rho", ci);
        }

        tree_r_por(cs, p, "old", ci, cp ? &cp->proof_r_old : NULL, c_bits, &leaf_r_old, &root_r_old);
        tree_r_por(cs, p, "new", ci, cp ? &cp->proof_r_new : NULL, c_bits, &leaf_r_new, &root_r_new);

        cz_bp_bool apex_bits[8];
        for (unsigned i = 0; i < p->apex_leaf_bit_len; i++) apex_bits[i] = cz_bp_bool_is(c_bits[to_apex + i]);
        cz_bp_num apex_leaf;
        cz_cs_push_scope(cs, "select_apex_leaf (c_index=%u)", ci);
        select_any(cs, &apex_leaf, apex, apex_bits, p->apex_leaf_bit_len);
        cz_cs_pop_scope(cs);

        cz_bp_num dpath[32];
        for (unsigned l = 0; l < to_apex; l++)
            alloc_num(cs, &dpath[l], cp ? &cp->proof_d_new.base.elems[l].hashes[0] : NULL,
                      "path_to_apex_leaf sibling (c_index=%u, tree_row=%u)", ci, l);
        cz_cs_push_scope(cs, "por to_apex_leaf (c_index=%u)", ci);
        cz_bp_snap_por_no_challenge_input(cs, true, 2, 0, 0, c_bits, to_apex, &leaf_d_new, dpath, to_apex,
                                          &apex_leaf);
        cz_cs_pop_scope(cs);
    }
    free(apex);
    free(gen);
    return cz_cs_status(cs);
}

/* ---- compound.rs generate_public_inputs ------------------------------------------- */
cz_status cz_fil_snap_public_inputs_h(const cz_fil_snap_request *r, unsigned k, unsigned h, cz_fr *out,
                                      size_t cap, size_t *n, cz_errbuf *err) {
    if (!r || !r->proof || !out || !n) return cz_err(err, CZ_ERR_INVALID_ARG, "snap public inputs: NULL argument");
    if (cap < 4) return cz_err(err, CZ_ERR_INVALID_ARG, "snap public inputs: need room for 4 values, have %zu", cap);
    const cz_fil_snap_proof *p = r->proof;
    if (!h) h = p->h_default;
    uint64_t khs;
    if (k >= p->partitions)
        return cz_err(err, CZ_ERR_INVALID_ARG, "partition-index %u exceeds partition count %u", k, p->partitions);
    if (cz_fil_snap_k_and_h_select(p, k, h, &khs) != CZ_OK)
        return cz_err(err, CZ_ERR_INVALID_ARG, "h = %u is not allowed for %s", h, p->name);
    cz_fr_from_u64(&out[0], khs);
    const cz_fil_domain *d[3] = { &r->comm_r_old, &r->comm_d_new, &r->comm_r_new };
    static const char *names[3] = { "comm_r_old", "comm_d_new", "comm_r_new" };
    for (int i = 0; i < 3; i++)
        if (cz_fil_domain_to_fr(&out[1 + i], d[i]) != CZ_OK)
            return cz_err(err, CZ_ERR_NOT_CANONICAL, "%s is not a canonical field element", names[i]);
    *n = 4;
    return CZ_OK;
}

cz_status cz_fil_snap_public_inputs(const cz_fil_snap_request *r, unsigned k, cz_fr *out, size_t cap, size_t *n,
                                    cz_errbuf *err) {
    return cz_fil_snap_public_inputs_h(r, k, 0, out, cap, n, err);
}
