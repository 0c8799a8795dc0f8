/*
 * bellperson 0.27 gadgets/sha256.rs and filecoin-hashers 14.1
 * Sha256Function's circuit functions (cuzk/fil_bp_sha256.h).
 *
 * The compression function keeps the reference's deferred additions: the
 * new a and e of a round are not summed in that round; their operand lists
 * (temp1 ‖ d, temp1 ‖ temp2) are summed by one addmany at the start of the
 * next round (or in the feed-forward), which is where their result bits
 * are allocated. One MultiEq spans the whole compression function.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/fil_bp_sha256.h"
#include "cuzk/sha256.h"

/* The FIPS 180-4 round constants and IV are the native SHA-256's
 * (cuzk/sha256.h): facts shared by both families, not gadgets. */

/* The reference's `enum Maybe { Deferred(Vec<UInt32>), Concrete(UInt32) }`
 * with room for the longest list (temp1 ‖ temp2 = 7) plus one feed-forward
 * operand. */
typedef struct {
    bool deferred;
    size_t n;
    cz_bp_u32 v[8];
} maybe_u32;

/* As Maybe::compute: Concrete is returned as is (the extra operands are
 * ignored, as in the reference); Deferred adds the extra operands and
 * sums them all with one addmany. */
static void maybe_compute(cz_cs *cs, cz_bp_multieq *meq, cz_bp_u32 *out, maybe_u32 *m,
                          const cz_bp_u32 *extra) {
    if (!m->deferred) {
        *out = m->v[0];
        return;
    }
    const cz_bp_u32 *ops[8];
    size_t n = m->n;
    for (size_t k = 0; k < n; k++) ops[k] = &m->v[k];
    if (extra) ops[n++] = extra;
    cz_bp_u32_addmany(cs, meq, out, ops, n);
}

static void maybe_concrete(maybe_u32 *m, const cz_bp_u32 *v) {
    m->deferred = false;
    m->n = 1;
    m->v[0] = *v;
}

/* x.rotr(r1) ^ x.rotr(r2) ^ third, the two xors named as in the
 * reference ("first xor for sN", "second xor for sN"). */
static void sigma(cz_cs *cs, cz_bp_u32 *out, const cz_bp_u32 *x, unsigned r1, unsigned r2,
                  const cz_bp_u32 *third, const char *which) {
    cz_bp_u32 s = cz_bp_u32_rotr(x, r1), t = cz_bp_u32_rotr(x, r2);
    cz_cs_push_scope(cs, "first xor for %s", which);
    cz_bp_u32_xor(cs, &s, &s, &t);
    cz_cs_pop_scope(cs);
    cz_cs_push_scope(cs, "second xor for %s", which);
    cz_bp_u32_xor(cs, out, &s, third);
    cz_cs_pop_scope(cs);
}

typedef struct {
    cz_bp_u32 w[64];
    maybe_u32 a, e;
    cz_bp_u32 b, c, d, f, g, h;
    cz_bp_u32 new_a, new_e, s0, s1, ch, maj, k;
} sha_work;

/* As sha256_compression_function. */
cz_status cz_bp_sha256_compression_function(cz_cs *cs, cz_bp_u32 out[8],
                                            const cz_bp_bool input[512],
                                            const cz_bp_u32 state[8]) {
    sha_work *W = malloc(sizeof *W);
    if (!W) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "sha256 compression: out of memory");
        for (unsigned i = 0; i < 8; i++) out[i] = cz_bp_u32_constant(0);
        return CZ_ERR_NOMEM;
    }
    for (unsigned i = 0; i < 16; i++) W->w[i] = cz_bp_u32_from_bits_be(cs, &input[32 * i]);

    cz_bp_multieq meq;
    cz_bp_multieq_init(&meq, cs);

    /* Message schedule. */
    for (unsigned i = 16; i < 64; i++) {
        cz_bp_u32 t;
        cz_cs_push_scope(cs, "w extension %u", i);
        t = cz_bp_u32_shr(&W->w[i - 15], 3);
        sigma(cs, &W->s0, &W->w[i - 15], 7, 18, &t, "s0");
        t = cz_bp_u32_shr(&W->w[i - 2], 10);
        sigma(cs, &W->s1, &W->w[i - 2], 17, 19, &t, "s1");
        const cz_bp_u32 *ops[4] = { &W->w[i - 16], &W->s0, &W->w[i - 7], &W->s1 };
        cz_cs_push_scope(cs, "computation of w[i]");
        cz_bp_u32_addmany(cs, &meq, &W->w[i], ops, 4);
        cz_cs_pop_scope(cs);
        cz_cs_pop_scope(cs);
    }

    maybe_concrete(&W->a, &state[0]);
    W->b = state[1];
    W->c = state[2];
    W->d = state[3];
    maybe_concrete(&W->e, &state[4]);
    W->f = state[5];
    W->g = state[6];
    W->h = state[7];

    for (unsigned i = 0; i < 64; i++) {
        cz_cs_push_scope(cs, "compression round %u", i);

        /* S1 := (e rotr 6) ^ (e rotr 11) ^ (e rotr 25) */
        cz_cs_push_scope(cs, "deferred e computation");
        maybe_compute(cs, &meq, &W->new_e, &W->e, NULL);
        cz_cs_pop_scope(cs);
        {
            cz_bp_u32 t = cz_bp_u32_rotr(&W->new_e, 25);
            sigma(cs, &W->s1, &W->new_e, 6, 11, &t, "s1");
        }
        /* ch := (e and f) xor ((not e) and g) */
        cz_cs_push_scope(cs, "ch");
        cz_bp_u32_sha256_ch(cs, &W->ch, &W->new_e, &W->f, &W->g);
        cz_cs_pop_scope(cs);

        /* temp1 := h + S1 + ch + k[i] + w[i] (summed later) */
        W->k = cz_bp_u32_constant(CZ_SHA256_K[i]);

        /* S0 := (a rotr 2) ^ (a rotr 13) ^ (a rotr 22) */
        cz_cs_push_scope(cs, "deferred a computation");
        maybe_compute(cs, &meq, &W->new_a, &W->a, NULL);
        cz_cs_pop_scope(cs);
        {
            cz_bp_u32 t = cz_bp_u32_rotr(&W->new_a, 22);
            sigma(cs, &W->s0, &W->new_a, 2, 13, &t, "s0");
        }
        /* maj := (a and b) xor (a and c) xor (b and c) */
        cz_cs_push_scope(cs, "maj");
        cz_bp_u32_sha256_maj(cs, &W->maj, &W->new_a, &W->b, &W->c);
        cz_cs_pop_scope(cs);

        /* e := d + temp1 and a := temp1 + temp2, both deferred; the old d
         * goes into e's list before d is replaced. */
        W->e.deferred = true;
        W->e.n = 6;
        W->e.v[0] = W->h;
        W->e.v[1] = W->s1;
        W->e.v[2] = W->ch;
        W->e.v[3] = W->k;
        W->e.v[4] = W->w[i];
        W->e.v[5] = W->d;
        W->a.deferred = true;
        W->a.n = 7;
        W->a.v[0] = W->h;
        W->a.v[1] = W->s1;
        W->a.v[2] = W->ch;
        W->a.v[3] = W->k;
        W->a.v[4] = W->w[i];
        W->a.v[5] = W->s0;
        W->a.v[6] = W->maj;
        W->h = W->g;
        W->g = W->f;
        W->f = W->new_e;
        W->d = W->c;
        W->c = W->b;
        W->b = W->new_a;

        cz_cs_pop_scope(cs);
    }

    /* Feed-forward, in the reference's order h0 .. h7. */
    cz_cs_push_scope(cs, "deferred h0 computation");
    maybe_compute(cs, &meq, &out[0], &W->a, &state[0]);
    cz_cs_pop_scope(cs);
    {
        const cz_bp_u32 *ops[2];
        static const char *const names[8] = { NULL,     "new h1", "new h2", "new h3",
                                              NULL,     "new h5", "new h6", "new h7" };
        const cz_bp_u32 *cur[8] = { NULL, &W->b, &W->c, &W->d, NULL, &W->f, &W->g, &W->h };
        for (unsigned j = 1; j < 8; j++) {
            if (j == 4) {
                cz_cs_push_scope(cs, "deferred h4 computation");
                maybe_compute(cs, &meq, &out[4], &W->e, &state[4]);
                cz_cs_pop_scope(cs);
                continue;
            }
            ops[0] = &state[j];
            ops[1] = cur[j];
            cz_cs_push_scope(cs, "%s", names[j]);
            cz_bp_u32_addmany(cs, &meq, &out[j], ops, 2);
            cz_cs_pop_scope(cs);
        }
    }
    /* The MultiEq is dropped at the end of the reference function. */
    cz_bp_multieq_finish(&meq);
    free(W);
    return cz_cs_status(cs);
}

static void digest_bits(cz_bp_bool out[256], const cz_bp_u32 st[8]) {
    for (unsigned i = 0; i < 8; i++) cz_bp_u32_into_bits_be(&st[i], &out[32 * i]);
}

static void iv_words(cz_bp_u32 st[8]) {
    for (unsigned i = 0; i < 8; i++) st[i] = cz_bp_u32_constant(CZ_SHA256_IV[i]);
}

/* As sha256_block_no_padding. */
cz_status cz_bp_sha256_block_no_padding(cz_cs *cs, cz_bp_bool out[256],
                                        const cz_bp_bool input[512]) {
    cz_bp_u32 iv[8], st[8];
    iv_words(iv);
    cz_status s = cz_bp_sha256_compression_function(cs, st, input, iv);
    digest_bits(out, st);
    return s;
}

/* As sha256 (padding: one true bit, false bits up to 448 mod 512, the
 * 64-bit big-endian bit length, all constants). */
cz_status cz_bp_sha256(cz_cs *cs, cz_bp_bool out[256], const cz_bp_bool *input, size_t nbits) {
    cz_bp_u32 cur[8], next[8];
    iv_words(cur);
    if (nbits % 8 != 0) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "sha256: %zu bits is not whole bytes", nbits);
        digest_bits(out, cur);
        return CZ_ERR_INVALID_ARG;
    }
    size_t plen = nbits + 1;
    while ((plen + 64) % 512 != 0) plen++;
    plen += 64;
    cz_bp_bool *padded = malloc(plen * sizeof *padded);
    if (!padded) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "sha256: out of memory");
        digest_bits(out, cur);
        return CZ_ERR_NOMEM;
    }
    if (nbits) memcpy(padded, input, nbits * sizeof *padded);
    size_t p = nbits;
    padded[p++] = cz_bp_bool_const(true);
    while (p < plen - 64) padded[p++] = cz_bp_bool_const(false);
    for (int i = 63; i >= 0; i--) padded[p++] = cz_bp_bool_const((((uint64_t)nbits >> i) & 1) != 0);

    cz_status s = CZ_OK;
    for (size_t blk = 0; blk < plen / 512; blk++) {
        cz_cs_push_scope(cs, "block %zu", blk);
        s = cz_bp_sha256_compression_function(cs, next, &padded[512 * blk], cur);
        cz_cs_pop_scope(cs);
        memcpy(cur, next, sizeof cur);
        if (s != CZ_OK) break;
    }
    free(padded);
    digest_bits(out, cur);
    return s;
}

/* ---- filecoin-hashers Sha256Function ------------------------------------------ */

/* Output of a call that failed (the cs holds the error): a valid num. */
static cz_status failed_num(cz_bp_num *out, cz_status s) {
    out->var = cz_var_aux(0);
    cz_fr_from_u64(&out->value, 0);
    return s;
}

/* Pad bits to whole bytes with Constant(false) and reverse the bit order
 * within each byte, appending to dst; returns the number written
 * (the reference's `padded.chunks_exact(8).flat_map(|c| c.iter().rev())`). */
static size_t append_byte_reversed(cz_bp_bool *dst, const cz_bp_bool *src, size_t n) {
    size_t padded = (n + 7) / 8 * 8;
    for (size_t byte = 0; byte < padded / 8; byte++)
        for (unsigned j = 0; j < 8; j++) {
            size_t s = 8 * byte + 7 - j;
            dst[8 * byte + j] = s < n ? src[s] : cz_bp_bool_const(false);
        }
    return padded;
}

/* As Sha256Function::hash_circuit. */
cz_status cz_fil_sha256_hash_circuit(cz_cs *cs, cz_bp_num *out, const cz_bp_bool *bits,
                                     size_t nbits) {
    cz_bp_bool be[256], le[256];
    cz_cs_push_scope(cs, "hash");
    cz_status s = cz_bp_sha256(cs, be, bits, nbits);
    cz_cs_pop_scope(cs);
    if (s != CZ_OK) return failed_num(out, s);
    append_byte_reversed(le, be, 256);
    cz_cs_push_scope(cs, "pack_le");
    cz_bp_pack_bits(cs, out, le, CZ_BP_FR_CAPACITY); /* multipack::pack_bits */
    cz_cs_pop_scope(cs);
    return cz_cs_status(cs);
}

/* As Sha256Function::hash_leaf_bits_circuit. */
cz_status cz_fil_sha256_hash_leaf_bits_circuit(cz_cs *cs, cz_bp_num *out,
                                               const cz_bp_bool *left, size_t nleft,
                                               const cz_bp_bool *right, size_t nright) {
    size_t cap = (nleft + 7) / 8 * 8 + (nright + 7) / 8 * 8;
    cz_bp_bool *pre = malloc((cap ? cap : 1) * sizeof *pre);
    if (!pre) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "hash_leaf_bits_circuit: out of memory");
        return failed_num(out, CZ_ERR_NOMEM);
    }
    size_t n = append_byte_reversed(pre, left, nleft);
    n += append_byte_reversed(pre + n, right, nright);
    cz_status s = cz_fil_sha256_hash_circuit(cs, out, pre, n);
    free(pre);
    return s;
}

/* Preimage of num operands: to_bits_le of each, in order, in namespace
 * names[i] (or "%zu_num_into_bits"), padded and byte-reversed. */
static cz_status nums_preimage_hash(cz_cs *cs, cz_bp_num *out, const cz_bp_num *const nums[],
                                    size_t n, const char *const names[]) {
    cz_bp_bool *pre = malloc((n ? n : 1) * 256 * sizeof *pre);
    if (!pre) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "sha256 hash of nums: out of memory");
        return failed_num(out, CZ_ERR_NOMEM);
    }
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        cz_bp_bool bits[CZ_BP_FR_NUM_BITS];
        if (names) cz_cs_push_scope(cs, "%s", names[i]);
        else cz_cs_push_scope(cs, "%zu_num_into_bits", i);
        cz_bp_num_to_bits_le(cs, bits, nums[i]); /* AllocatedNum::to_bits_le */
        cz_cs_pop_scope(cs);
        len += append_byte_reversed(pre + len, bits, CZ_BP_FR_NUM_BITS);
    }
    cz_status s = cz_fil_sha256_hash_circuit(cs, out, pre, len);
    free(pre);
    return s;
}

/* As HashFunction::hash_leaf_circuit (default) with Sha256Function's
 * hash_leaf_bits_circuit. */
cz_status cz_fil_sha256_hash_leaf_circuit(cz_cs *cs, cz_bp_num *out, const cz_bp_num *left,
                                          const cz_bp_num *right) {
    static const char *const names[2] = { "left num into bits", "right num into bits" };
    const cz_bp_num *nums[2] = { left, right };
    return nums_preimage_hash(cs, out, nums, 2, names);
}

/* As Sha256Function::hash2_circuit. */
cz_status cz_fil_sha256_hash2_circuit(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a,
                                      const cz_bp_num *b) {
    static const char *const names[2] = { "a_bits", "b_bits" };
    const cz_bp_num *nums[2] = { a, b };
    return nums_preimage_hash(cs, out, nums, 2, names);
}

/* As Sha256Function::hash_multi_leaf_circuit. */
cz_status cz_fil_sha256_hash_multi_leaf_circuit(cz_cs *cs, cz_bp_num *out,
                                                const cz_bp_num *leaves, size_t n) {
    if (n == 0) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "hash_multi_leaf_circuit: no leaves");
        return failed_num(out, CZ_ERR_INVALID_ARG);
    }
    const cz_bp_num **nums = malloc(n * sizeof *nums);
    if (!nums) {
        cz_cs_fail(cs, CZ_ERR_NOMEM, "hash_multi_leaf_circuit: out of memory");
        return failed_num(out, CZ_ERR_NOMEM);
    }
    for (size_t i = 0; i < n; i++) nums[i] = &leaves[i];
    cz_status s = nums_preimage_hash(cs, out, nums, n, NULL);
    free(nums);
    return s;
}
