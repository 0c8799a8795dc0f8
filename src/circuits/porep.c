/*
 * The PoRep-shaped circuit: parameters, presets, the parent graph, the
 * native label hash, and the synth function (see cuzk/circuits.h for the
 * construction and what the circuit checks).
 *
 * Presets are named by their domain: constraints (with the appended input
 * rows) + inputs <= 2^k. Their parameters were chosen by recording
 * candidates (cz_porep_count) and keeping the largest shape under the
 * budget; `cuzk bench synth --preset S` and the tests print the exact
 * counts, and tests/circuits/test_porep.c checks shaped-12 and shaped-14 fit.
 */
#include "cuzk/circuits.h"
#include "cuzk/gadgets.h"
#include "cuzk/merkle.h"
#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* name, log_domain, log_nodes, L, B, E, C, arity d, c, r, hash, graph seed */
static const cz_porep_params PRESETS[] = {
    {"shaped-12", 12, 3, 3, 1, 1, 1, 8, 8, 8, CZ_POREP_POSEIDON, 0x706f72657031320full},
    {"shaped-14", 14, 6, 3, 2, 2, 2, 8, 8, 8, CZ_POREP_POSEIDON, 0x706f72657031340full},
    {"shaped-16", 16, 12, 6, 2, 2, 4, 2, 8, 8, CZ_POREP_POSEIDON, 0x706f72657031360full},
    {"shaped-18", 18, 3, 3, 2, 1, 1, 2, 8, 8, CZ_POREP_SHA256, 0x706f72657031380full},
    {"shaped-20", 20, 6, 5, 2, 2, 2, 2, 8, 8, CZ_POREP_SHA256, 0x706f72657032300full},
};
#define N_PRESETS (sizeof PRESETS / sizeof PRESETS[0])

size_t cz_porep_preset_count(void) { return N_PRESETS; }

const cz_porep_params *cz_porep_preset_at(size_t i) { return i < N_PRESETS ? &PRESETS[i] : NULL; }

const cz_porep_params *cz_porep_preset_get(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < N_PRESETS; i++)
        if (strcmp(PRESETS[i].name, name) == 0)
            return &PRESETS[i];
    return NULL;
}

static bool arity_divides(const cz_porep_params *p, unsigned arity)
{
    unsigned k = cz_merkle_arity_bits(arity);
    return k != 0 && p->log_nodes % k == 0 && p->log_nodes / k >= 1;
}

cz_status cz_porep_params_check(const cz_porep_params *p, cz_errbuf *err)
{
    if (!p)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep params: NULL");
    if (p->hash != CZ_POREP_SHA256 && p->hash != CZ_POREP_POSEIDON)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep params: hash must be sha256 or poseidon");
    if (p->log_nodes < 1 || p->log_nodes > CZ_POREP_MAX_LOG_NODES)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep params: log_nodes %u not in 1..%u", p->log_nodes,
                      CZ_POREP_MAX_LOG_NODES);
    if (p->layers < 1 || p->layers > CZ_POREP_MAX_LAYERS)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep params: layers %u not in 1..%u", p->layers,
                      CZ_POREP_MAX_LAYERS);
    if (p->base_parents < 1 || p->base_parents + p->exp_parents > CZ_POREP_MAX_PARENTS ||
        p->exp_parents > CZ_POREP_MAX_PARENTS)
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "porep params: base_parents %u (>= 1) + exp_parents %u must be <= %u",
                      p->base_parents, p->exp_parents, CZ_POREP_MAX_PARENTS);
    if (p->challenges < 1 || p->challenges > 100000)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep params: challenges %u not in 1..100000",
                      p->challenges);
    if (p->log_domain < 1 || p->log_domain > 32)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep params: log_domain %u not in 1..32", p->log_domain);
    cz_merkle_hash hd = p->hash == CZ_POREP_SHA256 ? CZ_MERKLE_SHA256 : CZ_MERKLE_POSEIDON;
    if (!cz_merkle_shape_ok(hd, p->tree_d_arity) || !arity_divides(p, p->tree_d_arity))
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "porep params: tree_d_arity %u unsupported for this hash or log2 does not divide "
                      "log_nodes %u", p->tree_d_arity, p->log_nodes);
    if (!cz_merkle_shape_ok(CZ_MERKLE_POSEIDON, p->tree_c_arity) || !arity_divides(p, p->tree_c_arity))
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "porep params: tree_c_arity %u unsupported or log2 does not divide log_nodes %u",
                      p->tree_c_arity, p->log_nodes);
    if (!cz_merkle_shape_ok(CZ_MERKLE_POSEIDON, p->tree_r_arity) || !arity_divides(p, p->tree_r_arity))
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "porep params: tree_r_arity %u unsupported or log2 does not divide log_nodes %u",
                      p->tree_r_arity, p->log_nodes);
    if (memchr(p->name, 0, sizeof p->name) == NULL)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep params: name not terminated");
    return CZ_OK;
}

unsigned cz_porep_depth(const cz_porep_params *p, unsigned arity)
{
    unsigned k = cz_merkle_arity_bits(arity);
    return k ? p->log_nodes / k : 0;
}

size_t cz_porep_path_len(const cz_porep_params *p, unsigned arity)
{
    return (size_t)cz_porep_depth(p, arity) * (arity - 1);
}

/* ---- graph ------------------------------------------------------------------- */
static uint64_t mix64(uint64_t seed, uint64_t i, uint64_t j)
{
    uint64_t z = seed ^ (i * 0x9e3779b97f4a7c15ull) ^ ((j + 1) * 0xd1b54a32d192ed03ull);
    for (int r = 0; r < 2; r++) {
        z ^= z >> 30;
        z *= 0xbf58476d1ce4e5b9ull;
        z ^= z >> 27;
        z *= 0x94d049bb133111ebull;
        z ^= z >> 31;
    }
    return z;
}

void cz_porep_parents(const cz_porep_params *p, uint64_t node, uint64_t *parents)
{
    uint64_t n = 1ull << p->log_nodes;
    unsigned b = p->base_parents, e = p->exp_parents;
    uint64_t h = node < CZ_POREP_WINDOW ? node : node - node % CZ_POREP_WINDOW;
    for (unsigned j = 0; j < b; j++) {
        if (h == 0)
            parents[j] = 0;
        else if (j == 0)
            parents[j] = h - 1;
        else
            parents[j] = mix64(p->graph_seed, node, j) % h;
    }
    for (unsigned j = 0; j < e; j++)
        parents[b + j] = mix64(p->graph_seed, node, b + j) % n;
}

/* ---- native label ------------------------------------------------------------- */
void cz_porep_label(const cz_porep_params *p, cz_fr *out, const cz_fr *replica_id, unsigned layer,
                    uint64_t node, const cz_fr *parent_labels)
{
    unsigned np = cz_porep_num_parents(p), b = p->base_parents;
    if (p->hash == CZ_POREP_POSEIDON) {
        cz_fr in[CZ_POSEIDON_T_MAX];
        in[0] = *replica_id;
        cz_fr_from_u64(&in[1], layer);
        cz_fr_from_u64(&in[2], node);
        for (unsigned j = 0; j < np; j++)
            in[3 + j] = (j >= b && layer == 0) ? CZ_FR_ZERO : parent_labels[j];
        const cz_poseidon_params *pp = cz_poseidon_params_get(4 + np);
        if (!pp) { /* cannot happen for checked params (t <= 24); fail loudly */
            *out = CZ_FR_ZERO;
            return;
        }
        cz_poseidon_hash(out, pp, in);
        return;
    }
    uint8_t hdr[64], buf[32], dig[32];
    memset(hdr, 0, sizeof hdr);
    cz_fr_to_bytes_le(hdr, replica_id);
    for (int k = 0; k < 4; k++)
        hdr[32 + k] = (uint8_t)(layer >> (24 - 8 * k));
    for (int k = 0; k < 8; k++)
        hdr[36 + k] = (uint8_t)(node >> (56 - 8 * k));
    cz_sha256_ctx c;
    cz_sha256_init(&c);
    cz_sha256_update(&c, hdr, sizeof hdr);
    for (unsigned j = 0; j < np; j++) {
        if (j >= b && layer == 0)
            memset(buf, 0, sizeof buf);
        else
            cz_fr_to_bytes_le(buf, &parent_labels[j]);
        cz_sha256_update(&c, buf, sizeof buf);
    }
    cz_sha256_final(&c, dig);
    dig[31] &= 0x3f;
    if (cz_fr_from_bytes_le(out, dig) != CZ_OK) /* < 2^254 < r: cannot fail */
        *out = CZ_FR_ZERO;
}

uint64_t cz_porep_challenge(const cz_porep_params *p, const cz_fr *replica_id, uint64_t seed,
                            uint64_t partition, uint64_t c)
{
    static const char tag[] = "cuzk-porep-challenge";
    uint8_t buf[sizeof tag - 1 + 32 + 24], dig[32];
    memcpy(buf, tag, sizeof tag - 1);
    cz_fr_to_bytes_le(buf + sizeof tag - 1, replica_id);
    uint64_t w[3] = {seed, partition, c};
    for (int k = 0; k < 3; k++)
        for (int q = 0; q < 8; q++)
            buf[sizeof tag - 1 + 32 + 8 * k + q] = (uint8_t)(w[k] >> (8 * q));
    cz_sha256(dig, buf, sizeof buf);
    uint64_t v = 0;
    for (int q = 0; q < 8; q++)
        v |= (uint64_t)dig[q] << (8 * q);
    uint64_t n = 1ull << p->log_nodes;
    return n <= 1 ? 0 : 1 + v % (n - 1);
}

/* ---- public inputs -------------------------------------------------------------- */
cz_status cz_porep_ctx_init(cz_porep_ctx *ctx, const cz_porep_vanilla *v, size_t partition)
{
    if (!ctx || !v || partition >= v->n_partitions)
        return CZ_ERR_INVALID_ARG;
    ctx->params = &v->params;
    ctx->vanilla = v;
    ctx->partition = partition;
    return CZ_OK;
}

/* The parent indices come from the graph, never from the proof's parents[]
 * field: that is what binds a proof to the graph (the circuit opens tree_c
 * at these public indices, so a column of any other node fails its path). */
cz_status cz_porep_public_inputs(const cz_porep_vanilla *v, size_t partition, cz_fr *out)
{
    if (!v || !out || partition >= v->n_partitions)
        return CZ_ERR_INVALID_ARG;
    unsigned np = cz_porep_num_parents(&v->params);
    uint64_t par[CZ_POREP_MAX_PARENTS];
    out[0] = v->replica_id;
    out[1] = v->comm_d;
    out[2] = v->comm_r;
    for (unsigned c = 0; c < v->params.challenges; c++) {
        cz_fr *o = &out[3 + (size_t)c * (1 + np)];
        uint64_t index = cz_porep_vanilla_challenge(v, partition, c)->index;
        cz_fr_from_u64(&o[0], index);
        cz_porep_parents(&v->params, index, par);
        for (unsigned j = 0; j < np; j++)
            cz_fr_from_u64(&o[1 + j], par[j]);
    }
    return CZ_OK;
}

/* ---- circuit ------------------------------------------------------------------------ */
typedef struct {
    cz_cs *cs;
    const cz_porep_params *p;
    bool vals;
    cz_var replica_id;
    cz_bit rid_bits[256]; /* SHA-256 only: replica_id, little-endian bits */
    cz_bit *scratch_bits; /* SHA-256 message */
} synth_state;

/* lc = v */
static void lc_of_var(cz_lc *lc, cz_cs *cs, cz_var v)
{
    cz_lc_init(lc, cs);
    cz_lc_add_var(lc, v);
}

/* Enforce lc = v (1 constraint named name). */
static void enforce_lc_eq_var(cz_cs *cs, const cz_lc *lc, cz_var v, const char *name)
{
    cz_lc one, r;
    cz_lc_init(&one, cs);
    lc_of_var(&r, cs, v);
    cz_lc_add_var(&one, CZ_VAR_ONE);
    cz_cs_enforce(cs, lc, &one, &r, name);
    cz_lc_free(&one);
    cz_lc_free(&r);
}

/* Fr little-endian bits (254 meaningful) -> 32 bytes LE in SHA-256 message
 * order (MSB-first within each byte): msg[8i + j] = bit 8i + 7 − j. */
static void fr_bits_to_msg(cz_bit *msg, const cz_bit *le, unsigned nle)
{
    for (unsigned i = 0; i < 32; i++)
        for (unsigned j = 0; j < 8; j++) {
            unsigned bit = 8 * i + 7 - j;
            msg[8 * i + j] = bit < nle ? le[bit] : cz_bit_const(false);
        }
}

/* SHA-256 label of the challenged node at `layer`: message bits per the
 * header; node_bits: log_nodes little-endian bits of the challenge;
 * plab[j]: parent label variables (exp ones unused at layer 0). Writes the
 * packed 254-bit result as an LC. */
static void sha_label(synth_state *st, cz_lc *out, unsigned layer, const cz_bit *node_bits,
                      const cz_var *plab, const cz_fr *plab_v)
{
    cz_cs *cs = st->cs;
    const cz_porep_params *p = st->p;
    unsigned np = cz_porep_num_parents(p);
    size_t nbits = 512 + 256 * (size_t)np;
    cz_bit *msg = st->scratch_bits;
    fr_bits_to_msg(msg, st->rid_bits, 254);
    for (unsigned k = 0; k < 32; k++)
        msg[256 + k] = cz_bit_const(((layer >> (31 - k)) & 1) != 0);
    for (unsigned k = 0; k < 64; k++) {
        unsigned bit = 63 - k; /* u64 BE: message bit k is node bit 63 − k */
        msg[288 + k] = bit < p->log_nodes ? node_bits[bit] : cz_bit_const(false);
    }
    for (unsigned k = 352; k < 512; k++)
        msg[k] = cz_bit_const(false);
    cz_bit lb[254];
    for (unsigned j = 0; j < np; j++) {
        cz_bit *dst = &msg[512 + 256 * (size_t)j];
        if (j >= p->base_parents && layer == 0) {
            for (unsigned k = 0; k < 256; k++)
                dst[k] = cz_bit_const(false);
            continue;
        }
        cz_cs_push_scope(cs, "parent_bits[%u]", j);
        cz_lc num;
        lc_of_var(&num, cs, plab[j]);
        cz_num_to_bits_le(cs, lb, &num, st->vals ? &plab_v[j] : NULL, 254);
        cz_lc_free(&num);
        cz_cs_pop_scope(cs);
        fr_bits_to_msg(dst, lb, 254);
    }
    cz_bit dig[256];
    cz_sha256_gadget(cs, dig, msg, nbits);
    /* digest bytes read LE with the top 2 bits cleared: Fr bit 8i + 7 − j
     * is digest bit 8i + j */
    cz_bit le[254];
    for (unsigned i = 0; i < 32; i++)
        for (unsigned j = 0; j < 8; j++) {
            unsigned bit = 8 * i + 7 - j;
            if (bit < 254)
                le[bit] = dig[8 * i + j];
        }
    cz_lc_init(out, cs);
    cz_bits_pack_le(out, le, 254);
}

static void poseidon_label(synth_state *st, cz_lc *out, cz_fr *out_v, unsigned layer, cz_var ch,
                           const cz_fr *ch_v, const cz_var *plab, const cz_fr *plab_v,
                           const cz_fr *rid_v)
{
    cz_cs *cs = st->cs;
    const cz_porep_params *p = st->p;
    unsigned np = cz_porep_num_parents(p);
    const cz_poseidon_params *pp = cz_poseidon_params_get(4 + np);
    cz_lc in[CZ_POSEIDON_T_MAX];
    cz_fr in_v[CZ_POSEIDON_T_MAX];
    lc_of_var(&in[0], cs, st->replica_id);
    cz_lc_init(&in[1], cs);
    cz_lc_add_const_u64(&in[1], layer);
    lc_of_var(&in[2], cs, ch);
    in_v[0] = st->vals ? *rid_v : CZ_FR_ZERO;
    cz_fr_from_u64(&in_v[1], layer);
    in_v[2] = st->vals ? *ch_v : CZ_FR_ZERO;
    for (unsigned j = 0; j < np; j++) {
        cz_lc_init(&in[3 + j], cs);
        if (j >= p->base_parents && layer == 0) {
            in_v[3 + j] = CZ_FR_ZERO;
        } else {
            cz_lc_add_var(&in[3 + j], plab[j]);
            in_v[3 + j] = st->vals ? plab_v[j] : CZ_FR_ZERO;
        }
    }
    cz_poseidon_hash_gadget(cs, pp, in, in_v, out, out_v);
    for (unsigned j = 0; j < 3 + np; j++)
        cz_lc_free(&in[j]);
}

/* Column hash of L label variables. */
static void column_hash(synth_state *st, cz_lc *out, cz_fr *out_v, const cz_var *lab,
                        const cz_fr *lab_v)
{
    cz_cs *cs = st->cs;
    unsigned L = st->p->layers;
    const cz_poseidon_params *pp = cz_poseidon_params_get(L + 1);
    cz_lc in[CZ_POSEIDON_T_MAX];
    for (unsigned l = 0; l < L; l++)
        lc_of_var(&in[l], cs, lab[l]);
    cz_poseidon_hash_gadget(cs, pp, in, st->vals ? lab_v : NULL, out, out_v);
    for (unsigned l = 0; l < L; l++)
        cz_lc_free(&in[l]);
}

static bool params_equal(const cz_porep_params *a, const cz_porep_params *b)
{
    return a->log_nodes == b->log_nodes && a->layers == b->layers &&
           a->base_parents == b->base_parents && a->exp_parents == b->exp_parents &&
           a->challenges == b->challenges && a->tree_d_arity == b->tree_d_arity &&
           a->tree_c_arity == b->tree_c_arity && a->tree_r_arity == b->tree_r_arity &&
           a->hash == b->hash;
}

cz_status cz_porep_synth(cz_cs *cs, const void *vctx)
{
    const cz_porep_ctx *ctx = vctx;
    if (!ctx || !ctx->params || cz_porep_params_check(ctx->params, NULL) != CZ_OK)
        return CZ_ERR_INVALID_ARG;
    const cz_porep_params *p = ctx->params;
    const cz_porep_vanilla *v = ctx->vanilla;
    bool vals = cz_cs_has_values(cs);
    if (vals && (!v || ctx->partition >= v->n_partitions))
        return CZ_ERR_INVALID_ARG;
    /* the proof's arrays are sized by its own params: they must be these */
    if (v && !params_equal(&v->params, p))
        return CZ_ERR_MISMATCH;
    unsigned L = p->layers, np = cz_porep_num_parents(p), k = p->log_nodes;
    unsigned C = p->challenges;
    cz_merkle_hash hd = p->hash == CZ_POREP_SHA256 ? CZ_MERKLE_SHA256 : CZ_MERKLE_POSEIDON;
    unsigned dd = cz_porep_depth(p, p->tree_d_arity), dc = cz_porep_depth(p, p->tree_c_arity),
             dr = cz_porep_depth(p, p->tree_r_arity);
    if (!cz_poseidon_params_get(3) || !cz_poseidon_params_get(L + 1) ||
        (p->hash == CZ_POREP_POSEIDON && !cz_poseidon_params_get(4 + np)))
        return CZ_ERR_NOMEM;

    size_t npub = cz_porep_num_public(p), per_ch = 1 + (size_t)np; /* inputs per challenge */
    synth_state st = {.cs = cs, .p = p, .vals = vals};
    cz_var *vars = malloc(sizeof(cz_var) * ((size_t)np * L + L + np));
    cz_fr *fv = malloc(sizeof(cz_fr) * (np + L + 1 + npub));
    cz_bit *bits = malloc(sizeof(cz_bit) * (size_t)k * (1 + np));
    if (p->hash == CZ_POREP_SHA256)
        st.scratch_bits = malloc(sizeof(cz_bit) * (512 + 256 * (size_t)np));
    if (!vars || !fv || !bits || (p->hash == CZ_POREP_SHA256 && !st.scratch_bits)) {
        free(vars);
        free(fv);
        free(bits);
        free(st.scratch_bits);
        return CZ_ERR_NOMEM;
    }
    cz_var *plab = vars;              /* np × L parent labels, parent-major */
    cz_var *lab = vars + (size_t)np * L; /* L labels of the challenged node */
    cz_fr *pub = fv;                  /* npub public values, circuit order */
    cz_fr *tmp = fv + npub;           /* np + L + 1 scratch values */
    cz_bit *ch_bits = bits, *par_bits = bits + k;

    cz_cs_push_scope(cs, "porep");
    if (vals) {
        cz_status s = cz_porep_public_inputs(v, ctx->partition, pub);
        if (s != CZ_OK)
            cz_cs_fail(cs, s, "porep: public inputs");
    }
    cz_var v_rid, v_commd, v_commr, v_commc, v_commrl;
    cz_cs_alloc_input(cs, &v_rid, vals ? &pub[0] : NULL);
    cz_cs_alloc_input(cs, &v_commd, vals ? &pub[1] : NULL);
    cz_cs_alloc_input(cs, &v_commr, vals ? &pub[2] : NULL);
    /* per challenge: its index, then its parents' indices (graph order) */
    cz_var *chv = malloc(sizeof(cz_var) * (npub - 3));
    if (!chv) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "porep: out of memory");
        chv = NULL;
    }
    for (size_t i = 0; i < npub - 3 && chv; i++)
        cz_cs_alloc_input(cs, &chv[i], vals ? &pub[3 + i] : NULL);
    st.replica_id = v_rid;
    cz_cs_alloc_aux(cs, &v_commc, vals ? &v->comm_c : NULL);
    cz_cs_alloc_aux(cs, &v_commrl, vals ? &v->comm_r_last : NULL);

    /* comm_r = H(comm_c, comm_r_last) */
    {
        cz_cs_push_scope(cs, "comm_r");
        cz_lc in[2], out;
        cz_fr in_v[2] = {vals ? v->comm_c : CZ_FR_ZERO, vals ? v->comm_r_last : CZ_FR_ZERO};
        lc_of_var(&in[0], cs, v_commc);
        lc_of_var(&in[1], cs, v_commrl);
        cz_poseidon_hash_gadget(cs, cz_poseidon_params_get(3), in, in_v, &out, NULL);
        enforce_lc_eq_var(cs, &out, v_commr, "comm_r");
        cz_lc_free(&in[0]);
        cz_lc_free(&in[1]);
        cz_lc_free(&out);
        cz_cs_pop_scope(cs);
    }
    if (p->hash == CZ_POREP_SHA256) {
        /* replica_id < 2^254, its bits feed every label */
        cz_cs_push_scope(cs, "replica_id_bits");
        cz_lc num;
        lc_of_var(&num, cs, v_rid);
        cz_num_to_bits_le(cs, st.rid_bits, &num, vals ? &pub[0] : NULL, 254);
        cz_lc_free(&num);
        cz_cs_pop_scope(cs);
    }

    for (unsigned c = 0; c < C && chv && cz_cs_status(cs) == CZ_OK; c++) {
        const cz_porep_challenge_proof *cp = vals ? cz_porep_vanilla_challenge(v, ctx->partition, c) : NULL;
        const cz_var *in_c = &chv[(size_t)c * per_ch];  /* challenge, then parent indices */
        const cz_fr *in_v = &pub[3 + (size_t)c * per_ch];
        cz_cs_push_scope(cs, "challenge[%u]", c);
        cz_lc tmp_lc;

        /* index: the public challenge as log_nodes bits (so < n) */
        cz_cs_push_scope(cs, "index");
        lc_of_var(&tmp_lc, cs, in_c[0]);
        cz_num_to_bits_le(cs, ch_bits, &tmp_lc, vals ? &in_v[0] : NULL, k);
        cz_lc_free(&tmp_lc);
        cz_cs_pop_scope(cs);

        /* tree_d: data leaf under comm_d */
        cz_var v_data;
        cz_cs_alloc_aux(cs, &v_data, vals ? &cp->data : NULL);
        cz_cs_push_scope(cs, "tree_d");
        lc_of_var(&tmp_lc, cs, v_data);
        cz_merkle_inclusion_gadget(cs, hd, p->tree_d_arity, dd, &tmp_lc, vals ? &cp->data : NULL,
                                   vals ? cp->data_path : NULL, ch_bits, v_commd);
        cz_lc_free(&tmp_lc);
        cz_cs_pop_scope(cs);

        /* parents: columns opened in tree_c at the public parent indices,
         * decomposed into log_nodes bits (so each is < n) */
        size_t cpl = cz_porep_path_len(p, p->tree_c_arity);
        for (unsigned j = 0; j < np; j++) {
            cz_cs_push_scope(cs, "parent[%u]", j);
            cz_cs_push_scope(cs, "index");
            lc_of_var(&tmp_lc, cs, in_c[1 + j]);
            cz_num_to_bits_le(cs, par_bits, &tmp_lc, vals ? &in_v[1 + j] : NULL, k);
            cz_lc_free(&tmp_lc);
            cz_cs_pop_scope(cs);
            for (unsigned l = 0; l < L; l++)
                cz_cs_alloc_aux(cs, &plab[(size_t)j * L + l],
                                vals ? &cp->parent_labels[(size_t)j * L + l] : NULL);
            cz_lc col;
            cz_fr col_v = CZ_FR_ZERO;
            cz_cs_push_scope(cs, "column");
            column_hash(&st, &col, &col_v, &plab[(size_t)j * L],
                        vals ? &cp->parent_labels[(size_t)j * L] : NULL);
            cz_cs_pop_scope(cs);
            cz_cs_push_scope(cs, "tree_c");
            cz_merkle_inclusion_gadget(cs, CZ_MERKLE_POSEIDON, p->tree_c_arity, dc, &col, &col_v,
                                       vals ? &cp->parent_paths[(size_t)j * cpl] : NULL, par_bits,
                                       v_commc);
            cz_cs_pop_scope(cs);
            cz_lc_free(&col);
            cz_cs_pop_scope(cs);
        }

        /* labels of the challenged node, layer by layer */
        cz_var pl[CZ_POREP_MAX_PARENTS];
        cz_fr *pl_v = tmp; /* np values */
        for (unsigned l = 0; l < L; l++) {
            cz_cs_push_scope(cs, "layer[%u]", l);
            for (unsigned j = 0; j < np; j++) {
                /* base parents: this layer; expander parents: the previous one */
                unsigned src = j < p->base_parents ? l : (l ? l - 1 : 0);
                pl[j] = plab[(size_t)j * L + src];
                pl_v[j] = vals ? cp->parent_labels[(size_t)j * L + src] : CZ_FR_ZERO;
            }
            cz_cs_alloc_aux(cs, &lab[l], vals ? &cp->labels[l] : NULL);
            cz_lc lab_lc;
            if (p->hash == CZ_POREP_POSEIDON)
                poseidon_label(&st, &lab_lc, NULL, l, in_c[0], vals ? &in_v[0] : NULL, pl, pl_v,
                               vals ? &pub[0] : NULL);
            else
                sha_label(&st, &lab_lc, l, ch_bits, pl, pl_v);
            enforce_lc_eq_var(cs, &lab_lc, lab[l], "label");
            cz_lc_free(&lab_lc);
            cz_cs_pop_scope(cs);
        }

        /* the challenged column in tree_c */
        {
            cz_lc col;
            cz_fr col_v = CZ_FR_ZERO;
            cz_cs_push_scope(cs, "column");
            column_hash(&st, &col, &col_v, lab, vals ? cp->labels : NULL);
            cz_cs_pop_scope(cs);
            cz_cs_push_scope(cs, "tree_c");
            cz_merkle_inclusion_gadget(cs, CZ_MERKLE_POSEIDON, p->tree_c_arity, dc, &col, &col_v,
                                       vals ? cp->column_path : NULL, ch_bits, v_commc);
            cz_cs_pop_scope(cs);
            cz_lc_free(&col);
        }

        /* encoding: replica = data + last label, then tree_r */
        {
            cz_var v_rep;
            cz_cs_alloc_aux(cs, &v_rep, vals ? &cp->replica : NULL);
            cz_lc sum;
            cz_cs_push_scope(cs, "encoding");
            cz_lc_init(&sum, cs);
            cz_lc_add_var(&sum, v_data);
            cz_lc_add_var(&sum, lab[L - 1]);
            enforce_lc_eq_var(cs, &sum, v_rep, "replica");
            cz_lc_free(&sum);
            cz_cs_pop_scope(cs);
            cz_cs_push_scope(cs, "tree_r");
            lc_of_var(&tmp_lc, cs, v_rep);
            cz_merkle_inclusion_gadget(cs, CZ_MERKLE_POSEIDON, p->tree_r_arity, dr, &tmp_lc,
                                       vals ? &cp->replica : NULL, vals ? cp->replica_path : NULL,
                                       ch_bits, v_commrl);
            cz_lc_free(&tmp_lc);
            cz_cs_pop_scope(cs);
        }
        cz_cs_pop_scope(cs);
    }
    cz_cs_pop_scope(cs);
    free(chv);
    free(vars);
    free(fv);
    free(bits);
    free(st.scratch_bits);
    return CZ_OK;
}

/* ---- shape ---------------------------------------------------------------------------- */
cz_status cz_porep_count(const cz_porep_params *p, cz_porep_shape *out)
{
    cz_status s = cz_porep_params_check(p, NULL);
    if (s != CZ_OK || !out)
        return CZ_ERR_INVALID_ARG;
    cz_porep_ctx ctx = {.params = p, .vanilla = NULL, .partition = 0};
    cz_pce *pce = NULL;
    s = cz_pce_record(&pce, cz_porep_synth, &ctx, NULL);
    if (s != CZ_OK)
        return s;
    out->constraints = pce->n_constraints;
    out->inputs = pce->n_inputs;
    out->aux = pce->n_aux;
    cz_pce_free(pce);
    return CZ_OK;
}

void cz_porep_describe(const cz_porep_params *p, const cz_porep_shape *shape, char *buf, size_t len)
{
    if (!buf || !len)
        return;
    int n = snprintf(buf, len,
                     "%s: hash=%s sector=2^%u nodes layers=%u parents=%u+%u challenges=%u "
                     "arity d/c/r=%u/%u/%u",
                     p->name, p->hash == CZ_POREP_SHA256 ? "sha256" : "poseidon", p->log_nodes,
                     p->layers, p->base_parents, p->exp_parents, p->challenges, p->tree_d_arity,
                     p->tree_c_arity, p->tree_r_arity);
    if (shape && n >= 0 && (size_t)n < len) {
        uint64_t total = shape->constraints + shape->inputs;
        snprintf(buf + n, len - (size_t)n,
                 " | constraints=%llu inputs=%llu aux=%llu constraints+inputs=%llu / 2^%u = %llu%s",
                 (unsigned long long)shape->constraints, (unsigned long long)shape->inputs,
                 (unsigned long long)shape->aux, (unsigned long long)total, p->log_domain,
                 (unsigned long long)(1ull << p->log_domain),
                 total <= (1ull << p->log_domain) ? " (fits)" : " (EXCEEDS)");
    }
}
