/*
 * cuzk — Merkle trees over SHA-256 (binary, 254-bit truncated digests) and
 * Poseidon (arity 2..16): native building, paths, verification, and the
 * inclusion gadget (include/cuzk/merkle.h).
 *
 * PLACING A NODE AMONG ITS SIBLINGS (the gadget's "select" step). The node
 * `cur` sits at position pos (k index bits) among arity a = 2^k slots and
 * the a − 1 siblings fill the other slots in order:
 *   slot_s = sib_{s−1} if pos < s,  cur if pos = s,  sib_s if pos > s.
 * With g_j = [pos >= j] (g_0 = 1, g_a = 0) and D_j = g_j·(cur − sib_{j−1}):
 *   slot_0 = cur − D_1,  slot_s = sib_{s−1} + D_s − D_{s+1},
 *   slot_{a−1} = sib_{a−2} + D_{a−1}
 * (pos < s: both g are 0; pos = s: only D_s counts, giving cur; pos > s:
 * the two cancel down to sib_s). So a − 1 products place the node, plus
 * the products of index bits that make the g_j linear: g_j is a
 * multilinear polynomial in the bits, Σ_S c(j,S)·Π_{i∈S} b_i with
 * c(j,S) = Σ_{p ⊆ S, p >= j} (−1)^{|S|−|p|} (Möbius inversion of the
 * indicator [pos = p] = Π_{i∈p} b_i·Π_{i∉p}(1 − b_i)); the monomials of
 * degree >= 2 cost one constraint each (2^k − k − 1 of them).
 *
 * SHA-256 LEVELS. The node is carried as an Fr linear combination (the
 * digest bits packed, free), the sibling is one variable, the swap is the
 * a = 2 case above (1 constraint), and both children are decomposed into
 * 254 bits (254 booleanity + 1 packing constraint each; unique because
 * 2^254 < r, and it forces leaf and path elements below 2^254). That is
 * cheaper than carrying bits (254 booleans for the sibling + 2 per bit to
 * swap). The message is le(left) ‖ le(right) in SHA-256 bit order: bit m
 * (MSB first) of byte j of an element is its value bit 8j + 7 − m.
 */
#include "cuzk/merkle.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"

bool cz_merkle_shape_ok(cz_merkle_hash hash, unsigned arity)
{
    if (hash == CZ_MERKLE_SHA256)
        return arity == 2;
    if (hash == CZ_MERKLE_POSEIDON)
        return arity == 2 || arity == 4 || arity == 8 || arity == 16;
    return false;
}

unsigned cz_merkle_arity_bits(unsigned arity)
{
    switch (arity) {
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    default: return 0;
    }
}

/* ---- native hashing ---------------------------------------------------- */

/* The second block of a 64-byte message: 0x80, zeros, length 512 bits. */
static const uint8_t SHA_PAD64[64] = {0x80, [62] = 0x02, [63] = 0x00};

static void sha256_node_bytes(cz_fr *out, const uint8_t msg[64])
{
    uint32_t h[8];
    memcpy(h, CZ_SHA256_IV, sizeof h);
    cz_sha256_compress(h, msg);
    cz_sha256_compress(h, SHA_PAD64);
    uint8_t d[32];
    for (int i = 0; i < 8; i++) {
        d[4 * i] = (uint8_t)(h[i] >> 24);
        d[4 * i + 1] = (uint8_t)(h[i] >> 16);
        d[4 * i + 2] = (uint8_t)(h[i] >> 8);
        d[4 * i + 3] = (uint8_t)h[i];
    }
    d[31] &= 0x3f;  /* 254-bit truncation: always < r */
    if (cz_fr_from_bytes_le(out, d) != CZ_OK)
        *out = CZ_FR_ZERO;  /* unreachable: 2^254 < r */
}

void cz_merkle_sha256_node(cz_fr *out, const cz_fr *left, const cz_fr *right)
{
    uint8_t msg[64];
    cz_fr_to_bytes_le(msg, left);
    cz_fr_to_bytes_le(msg + 32, right);
    sha256_node_bytes(out, msg);
}

void cz_merkle_hash_node(cz_fr *out, cz_merkle_hash hash, unsigned arity, const cz_fr *children)
{
    if (hash == CZ_MERKLE_SHA256) {
        cz_merkle_sha256_node(out, &children[0], &children[1]);
        return;
    }
    cz_poseidon_hash(out, cz_poseidon_params_get(arity + 1), children);
}

/* ---- building -------------------------------------------------------------- */

uint64_t cz_merkle_tree_bytes(unsigned arity, uint64_t n_leaves)
{
    uint64_t n = 0;
    for (uint64_t k = n_leaves; k >= 1; k /= arity) {
        n += k;
        if (k == 1)
            break;
    }
    return n * sizeof(cz_fr);
}

typedef struct {
    cz_merkle_tree *t;
    unsigned level;  /* children level */
    const cz_poseidon_params *pp;
    atomic_int bad_leaf;
} build_job;

static void build_range(void *arg, size_t lo, size_t hi)
{
    build_job *j = arg;
    cz_merkle_tree *t = j->t;
    unsigned a = t->arity;
    const cz_fr *child = &t->nodes[t->level_start[j->level]];
    cz_fr *parent = &t->nodes[t->level_start[j->level + 1]];
    if (t->hash == CZ_MERKLE_SHA256) {
        uint8_t msg[64];
        for (size_t i = lo; i < hi; i++) {
            cz_fr_to_bytes_le(msg, &child[2 * i]);
            cz_fr_to_bytes_le(msg + 32, &child[2 * i + 1]);
            if (j->level == 0 && ((msg[31] | msg[63]) & 0xc0))
                atomic_store_explicit(&j->bad_leaf, 1, memory_order_relaxed);
            sha256_node_bytes(&parent[i], msg);
        }
        return;
    }
    for (size_t i = lo; i < hi; i++)
        cz_poseidon_hash(&parent[i], j->pp, &child[(size_t)i * a]);
}

cz_status cz_merkle_build(cz_merkle_tree **out, cz_merkle_hash hash, unsigned arity,
                          const cz_fr *leaves, uint64_t n_leaves, cz_pool *pool)
{
    if (!out || !leaves || !cz_merkle_shape_ok(hash, arity) || n_leaves < arity)
        return CZ_ERR_INVALID_ARG;
    unsigned depth = 0;
    uint64_t k = n_leaves;
    while (k > 1) {
        if (k % arity)
            return CZ_ERR_INVALID_ARG;
        k /= arity;
        depth++;
    }
    if (depth > CZ_MERKLE_MAX_DEPTH)
        return CZ_ERR_INVALID_ARG;
    const cz_poseidon_params *pp = NULL;
    if (hash == CZ_MERKLE_POSEIDON && !(pp = cz_poseidon_params_get(arity + 1)))
        return CZ_ERR_NOMEM;
    cz_merkle_tree *t = calloc(1, sizeof *t);
    if (!t)
        return CZ_ERR_NOMEM;
    t->hash = hash;
    t->arity = arity;
    t->depth = depth;
    t->n_leaves = n_leaves;
    uint64_t start = 0, width = n_leaves;
    for (unsigned l = 0; l <= depth; l++, width /= arity) {
        t->level_start[l] = start;
        start += width;
    }
    t->n_nodes = start;
    if (t->n_nodes > SIZE_MAX / sizeof(cz_fr) || !(t->nodes = malloc(t->n_nodes * sizeof(cz_fr)))) {
        free(t);
        return CZ_ERR_NOMEM;
    }
    memcpy(t->nodes, leaves, n_leaves * sizeof(cz_fr));
    build_job job = {.t = t, .pp = pp};
    atomic_init(&job.bad_leaf, 0);
    /* chunks of ~a few hundred microseconds: SHA nodes are 2 compressions,
     * Poseidon nodes a permutation of width a + 1 */
    size_t grain = hash == CZ_MERKLE_SHA256 ? 1024 : 256 / (arity / 2);
    for (unsigned l = 0; l < depth; l++) {
        job.level = l;
        uint64_t end = l + 1 < depth ? t->level_start[l + 2] : t->n_nodes;
        uint64_t parents = end - t->level_start[l + 1];
        cz_pool_parallel_range(pool, 0, parents, grain, build_range, &job);
    }
    if (atomic_load(&job.bad_leaf)) {
        cz_merkle_free(t);
        return CZ_ERR_INVALID_ARG;
    }
    *out = t;
    return CZ_OK;
}

void cz_merkle_free(cz_merkle_tree *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t);
}

/* ---- paths ------------------------------------------------------------------ */

cz_status cz_merkle_path(const cz_merkle_tree *t, uint64_t index, cz_fr *path)
{
    if (!t || !path || index >= t->n_leaves)
        return CZ_ERR_INVALID_ARG;
    unsigned a = t->arity;
    for (unsigned l = 0; l < t->depth; l++) {
        uint64_t group = index / a * a;
        unsigned pos = (unsigned)(index % a), m = 0;
        for (unsigned s = 0; s < a; s++)
            if (s != pos)
                path[(size_t)l * (a - 1) + m++] = t->nodes[t->level_start[l] + group + s];
        index /= a;
    }
    return CZ_OK;
}

void cz_merkle_root_from_path(cz_fr *root, cz_merkle_hash hash, unsigned arity, unsigned depth,
                              const cz_fr *leaf, uint64_t index, const cz_fr *path)
{
    cz_fr cur = *leaf, ch[CZ_MERKLE_MAX_ARITY];
    for (unsigned l = 0; l < depth; l++) {
        unsigned pos = (unsigned)(index % arity);
        const cz_fr *sib = &path[(size_t)l * (arity - 1)];
        for (unsigned s = 0; s < arity; s++)
            ch[s] = s < pos ? sib[s] : s == pos ? cur : sib[s - 1];
        cz_merkle_hash_node(&cur, hash, arity, ch);
        index /= arity;
    }
    *root = cur;
}

bool cz_merkle_verify(cz_merkle_hash hash, unsigned arity, unsigned depth, const cz_fr *leaf,
                      uint64_t index, const cz_fr *path, const cz_fr *root)
{
    if (!cz_merkle_shape_ok(hash, arity) || depth == 0 || depth > CZ_MERKLE_MAX_DEPTH)
        return false;
    unsigned k = cz_merkle_arity_bits(arity);
    if ((uint64_t)depth * k < 64 && index >> (depth * k))
        return false;
    cz_fr r;
    cz_merkle_root_from_path(&r, hash, arity, depth, leaf, index, path);
    return cz_fr_eq(&r, root);
}

/* ---- gadget ------------------------------------------------------------------ */

void cz_merkle_alloc_index_bits(cz_cs *cs, cz_bit *bits, uint64_t index, unsigned nbits)
{
    for (unsigned i = 0; i < nbits; i++)
        cz_bit_alloc(cs, &bits[i], i < 64 && ((index >> i) & 1));
}

/* c(j, S) of the top comment, as a signed integer. */
static int sel_coeff(unsigned j, unsigned S)
{
    int c = 0;
    /* every subset p of S */
    for (unsigned p = S;; p = (p - 1) & S) {
        if (p >= j)
            c += (__builtin_popcount(S) - __builtin_popcount(p)) & 1 ? -1 : 1;
        if (p == 0)
            break;
    }
    return c;
}

/* Places cur among the siblings (see top): slot[s] LCs (initialised here)
 * and values. */
static void select_slots(cz_cs *cs, unsigned a, unsigned k, const cz_bit *bits, const cz_lc *cur,
                         const cz_fr *cur_v, const cz_var *sib, const cz_fr *sib_v, cz_lc *slot,
                         cz_fr *slot_v)
{
    cz_cs_push_scope(cs, "select");
    /* monomials over the bits: mono[S] for S ⊆ {0..k−1} */
    cz_bit mono[CZ_MERKLE_MAX_ARITY];
    mono[0] = cz_bit_const(true);
    for (unsigned S = 1; S < a; S++) {
        unsigned hi = 31u - (unsigned)__builtin_clz(S);
        if (S == (1u << hi))
            mono[S] = bits[hi];
        else
            cz_bit_and(cs, &mono[S], &mono[S & ~(1u << hi)], &bits[hi]);
    }
    unsigned pos = 0;
    for (unsigned i = 0; i < k; i++)
        pos |= (unsigned)bits[i].value << i;
    /* D_j = g_j·(cur − sib_{j−1}), j = 1..a−1 */
    cz_var d[CZ_MERKLE_MAX_ARITY];
    cz_fr dv[CZ_MERKLE_MAX_ARITY];
    for (unsigned j = 1; j < a; j++) {
        cz_lc g, diff, dl;
        cz_lc_init(&g, cs);
        cz_lc_init(&diff, cs);
        cz_lc_init(&dl, cs);
        for (unsigned S = 0; S < a; S++) {
            int c = sel_coeff(j, S);
            if (c == 0)
                continue;
            cz_fr cf;
            cz_fr_from_u64(&cf, (uint64_t)(c < 0 ? -c : c));
            if (c < 0)
                cz_fr_neg(&cf, &cf);
            cz_bit_to_lc(&g, &mono[S], &cf);
        }
        cz_lc_add_lc(&diff, cur, NULL);
        cz_lc_sub_var(&diff, sib[j - 1]);
        if (pos >= j)
            cz_fr_sub(&dv[j], cur_v, &sib_v[j - 1]);
        else
            dv[j] = CZ_FR_ZERO;
        cz_cs_alloc_aux(cs, &d[j], &dv[j]);
        cz_lc_add_var(&dl, d[j]);
        cz_cs_push_scope(cs, "d[%u]", j);
        cz_cs_enforce(cs, &g, &diff, &dl, "mul");
        cz_cs_pop_scope(cs);
        cz_lc_free(&g);
        cz_lc_free(&diff);
        cz_lc_free(&dl);
    }
    cz_cs_pop_scope(cs);
    for (unsigned s = 0; s < a; s++) {
        cz_lc_init(&slot[s], cs);
        if (s == 0) {
            cz_lc_add_lc(&slot[s], cur, NULL);
            slot_v[s] = *cur_v;
        } else {
            cz_lc_add_var(&slot[s], sib[s - 1]);
            slot_v[s] = sib_v[s - 1];
            cz_lc_add_var(&slot[s], d[s]);
            cz_fr_add(&slot_v[s], &slot_v[s], &dv[s]);
        }
        if (s + 1 < a) {
            cz_lc_sub_var(&slot[s], d[s + 1]);
            cz_fr_sub(&slot_v[s], &slot_v[s], &dv[s + 1]);
        }
    }
}

/* One SHA-256 level: cur = trunc(sha256(le(slot0) ‖ le(slot1))). */
static void sha_level(cz_cs *cs, const cz_lc *slot, const cz_fr *slot_v, cz_lc *cur, cz_fr *cur_v)
{
    cz_bit vb[2][254], msg[512], dig[256];
    static const char *const names[2] = {"left_bits", "right_bits"};
    for (int h = 0; h < 2; h++) {
        cz_cs_push_scope(cs, "%s", names[h]);
        cz_num_to_bits_le(cs, vb[h], &slot[h], &slot_v[h], 254);
        cz_cs_pop_scope(cs);
        for (unsigned j = 0; j < 32; j++)
            for (unsigned m = 0; m < 8; m++) {
                unsigned vbit = 8 * j + 7 - m;
                msg[256 * h + 8 * j + m] = vbit < 254 ? vb[h][vbit] : cz_bit_const(false);
            }
    }
    cz_cs_push_scope(cs, "sha256");
    cz_sha256_gadget(cs, dig, msg, 512);
    cz_cs_pop_scope(cs);
    /* digest bit 8j + m is value bit 8j + 7 − m; bits 254, 255 dropped */
    cz_bit vbits[254];
    for (unsigned j = 0; j < 32; j++)
        for (unsigned m = 0; m < 8; m++) {
            unsigned vbit = 8 * j + 7 - m;
            if (vbit < 254)
                vbits[vbit] = dig[8 * j + m];
        }
    cz_lc_init(cur, cs);
    cz_bits_pack_le(cur, vbits, 254);
    cz_bits_value_le(cur_v, vbits, 254);
}

void cz_merkle_inclusion_gadget(cz_cs *cs, cz_merkle_hash hash, unsigned arity, unsigned depth,
                                const cz_lc *leaf, const cz_fr *leaf_val, const cz_fr *path,
                                const cz_bit *index_bits, cz_var root)
{
    if (!cz_merkle_shape_ok(hash, arity) || depth == 0 || depth > CZ_MERKLE_MAX_DEPTH || !leaf ||
        !index_bits) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "merkle gadget: bad shape or arguments");
        return;
    }
    unsigned a = arity, k = cz_merkle_arity_bits(arity);
    bool vals = cz_cs_has_values(cs);
    const cz_poseidon_params *pp = NULL;
    if (hash == CZ_MERKLE_POSEIDON && !(pp = cz_poseidon_params_get(a + 1))) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "merkle gadget: Poseidon parameters");
        return;
    }
    cz_cs_push_scope(cs, "merkle");
    cz_lc cur;
    cz_fr cur_v = vals && leaf_val ? *leaf_val : CZ_FR_ZERO;
    cz_lc_init(&cur, cs);
    cz_lc_add_lc(&cur, leaf, NULL);
    for (unsigned l = 0; l < depth; l++) {
        cz_cs_push_scope(cs, "level[%u]", l);
        cz_var sib[CZ_MERKLE_MAX_ARITY];
        cz_fr sib_v[CZ_MERKLE_MAX_ARITY];
        for (unsigned m = 0; m + 1 < a; m++) {
            sib_v[m] = vals && path ? path[(size_t)l * (a - 1) + m] : CZ_FR_ZERO;
            cz_cs_alloc_aux(cs, &sib[m], &sib_v[m]);
        }
        cz_lc slot[CZ_MERKLE_MAX_ARITY];
        cz_fr slot_v[CZ_MERKLE_MAX_ARITY];
        select_slots(cs, a, k, &index_bits[(size_t)l * k], &cur, &cur_v, sib, sib_v, slot, slot_v);
        cz_lc_free(&cur);
        if (hash == CZ_MERKLE_SHA256)
            sha_level(cs, slot, slot_v, &cur, &cur_v);
        else
            cz_poseidon_hash_gadget(cs, pp, slot, slot_v, &cur, &cur_v);
        for (unsigned s = 0; s < a; s++)
            cz_lc_free(&slot[s]);
        cz_cs_pop_scope(cs);
    }
    cz_lc one, rl;
    cz_lc_init(&one, cs);
    cz_lc_init(&rl, cs);
    cz_lc_add_var(&one, CZ_VAR_ONE);
    cz_lc_add_var(&rl, root);
    cz_cs_enforce(cs, &cur, &one, &rl, "root");
    cz_lc_free(&one);
    cz_lc_free(&rl);
    cz_lc_free(&cur);
    cz_cs_pop_scope(cs);
}
