/*
 * bellperson 0.27 gadgets/uint32.rs (cuzk/fil_bp_sha256.h): a u32 as 32
 * Booleans, least significant first, with the SHA-256 helpers.
 */
#include "cuzk/fil_bp_sha256.h"

/* As UInt32::constant. */
cz_bp_u32 cz_bp_u32_constant(uint32_t value) {
    cz_bp_u32 r;
    for (unsigned i = 0; i < 32; i++) r.bits[i] = cz_bp_bool_const(((value >> i) & 1) != 0);
    r.value = value;
    r.known = true;
    return r;
}

/* As UInt32::alloc. */
void cz_bp_u32_alloc(cz_cs *cs, cz_bp_u32 *out, uint32_t value) {
    bool hv = cz_cs_has_values(cs);
    for (unsigned i = 0; i < 32; i++) {
        cz_bp_abit b;
        cz_cs_push_scope(cs, "allocated bit %u", i);
        cz_bp_abit_alloc(cs, &b, ((value >> i) & 1) != 0);
        cz_cs_pop_scope(cs);
        out->bits[i] = cz_bp_bool_is(b);
    }
    out->value = hv ? value : 0;
    out->known = hv;
}

/* Boolean::get_value is Some for a constant and, for an Is/Not bit,
 * exactly when the cs has values (cs NULL: taken as without values). */
static cz_bp_u32 from_bits_le(const cz_cs *cs, const cz_bp_bool bits[32]) {
    bool hv = cs ? cz_cs_has_values(cs) : false;
    cz_bp_u32 r;
    uint32_t v = 0;
    bool known = true;
    for (unsigned i = 0; i < 32; i++) {
        r.bits[i] = bits[i];
        if (cz_bp_bool_value(&bits[i])) v |= 1u << i;
        if (!hv && bits[i].kind != CZ_BP_CONST) known = false;
    }
    r.value = known ? v : 0;
    r.known = known;
    return r;
}

void cz_bp_u32_into_bits_be(const cz_bp_u32 *x, cz_bp_bool out[32]) {
    for (unsigned i = 0; i < 32; i++) out[i] = x->bits[31 - i];
}

void cz_bp_u32_into_bits(const cz_bp_u32 *x, cz_bp_bool out[32]) {
    for (unsigned i = 0; i < 32; i++) out[i] = x->bits[i];
}

/* As UInt32::from_bits_be. */
cz_bp_u32 cz_bp_u32_from_bits_be(const cz_cs *cs, const cz_bp_bool bits[32]) {
    cz_bp_bool le[32];
    for (unsigned i = 0; i < 32; i++) le[i] = bits[31 - i];
    return from_bits_le(cs, le);
}

/* As UInt32::from_bits. */
cz_bp_u32 cz_bp_u32_from_bits(const cz_cs *cs, const cz_bp_bool bits[32]) {
    return from_bits_le(cs, bits);
}

/* As UInt32::rotr. */
cz_bp_u32 cz_bp_u32_rotr(const cz_bp_u32 *x, unsigned by) {
    cz_bp_u32 r;
    by %= 32;
    for (unsigned i = 0; i < 32; i++) r.bits[i] = x->bits[(i + by) % 32];
    r.value = by ? (x->value >> by) | (x->value << (32 - by)) : x->value;
    r.known = x->known;
    return r;
}

/* As UInt32::shr. */
cz_bp_u32 cz_bp_u32_shr(const cz_bp_u32 *x, unsigned by) {
    cz_bp_u32 r;
    by %= 32;
    for (unsigned i = 0; i < 32; i++)
        r.bits[i] = i + by < 32 ? x->bits[i + by] : cz_bp_bool_const(false);
    r.value = x->value >> by;
    r.known = x->known;
    return r;
}

/* As UInt32::xor. */
void cz_bp_u32_xor(cz_cs *cs, cz_bp_u32 *out, const cz_bp_u32 *a, const cz_bp_u32 *b) {
    cz_bp_u32 r;
    r.value = a->value ^ b->value;
    r.known = a->known && b->known;
    for (unsigned i = 0; i < 32; i++) {
        cz_cs_push_scope(cs, "xor of bit %u", i);
        r.bits[i] = cz_bp_bool_xor(cs, &a->bits[i], &b->bits[i]);
        cz_cs_pop_scope(cs);
    }
    *out = r;
}

/* As UInt32::sha256_ch (triop with Boolean::sha256_ch). */
void cz_bp_u32_sha256_ch(cz_cs *cs, cz_bp_u32 *out, const cz_bp_u32 *a, const cz_bp_u32 *b,
                         const cz_bp_u32 *c) {
    cz_bp_u32 r;
    r.value = (a->value & b->value) ^ (~a->value & c->value);
    r.known = a->known && b->known && c->known;
    for (unsigned i = 0; i < 32; i++) {
        cz_cs_push_scope(cs, "ch %u", i);
        r.bits[i] = cz_bp_bool_sha256_ch(cs, &a->bits[i], &b->bits[i], &c->bits[i]);
        cz_cs_pop_scope(cs);
    }
    *out = r;
}

/* As UInt32::sha256_maj (triop with Boolean::sha256_maj). */
void cz_bp_u32_sha256_maj(cz_cs *cs, cz_bp_u32 *out, const cz_bp_u32 *a, const cz_bp_u32 *b,
                          const cz_bp_u32 *c) {
    cz_bp_u32 r;
    r.value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    r.known = a->known && b->known && c->known;
    for (unsigned i = 0; i < 32; i++) {
        cz_cs_push_scope(cs, "maj %u", i);
        r.bits[i] = cz_bp_bool_sha256_maj(cs, &a->bits[i], &b->bits[i], &c->bits[i]);
        cz_cs_pop_scope(cs);
    }
    *out = r;
}

/* As UInt32::addmany. */
void cz_bp_u32_addmany(cz_cs *cs, cz_bp_multieq *meq, cz_bp_u32 *out,
                       const cz_bp_u32 *const ops[], size_t n) {
    if (n < 2 || n > 10) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "addmany: %zu operands (2..10)", n);
        *out = cz_bp_u32_constant(0);
        return;
    }
    uint64_t max_value = (uint64_t)n * 0xffffffffull;
    uint64_t result_value = 0;
    bool known = true, all_constants = true;
    cz_lc lc;
    cz_lc_init(&lc, cs);
    for (size_t k = 0; k < n; k++) {
        const cz_bp_u32 *op = ops[k];
        if (op->known) result_value += op->value;
        else known = false;
        for (unsigned i = 0; i < 32; i++) {
            cz_bp_bool_lc_add(&lc, &op->bits[i], cz_fr_pow2(i));
            all_constants &= op->bits[i].kind == CZ_BP_CONST;
        }
    }
    uint32_t modular = (uint32_t)result_value;
    if (all_constants && known) {
        cz_lc_free(&lc);
        *out = cz_bp_u32_constant(modular);
        return;
    }
    cz_bp_u32 r;
    cz_lc result_lc;
    cz_lc_init(&result_lc, cs);
    unsigned i = 0;
    while (max_value != 0) {
        cz_bp_abit b;
        cz_cs_push_scope(cs, "result bit %u", i);
        cz_bp_abit_alloc(cs, &b, known && ((result_value >> i) & 1) != 0);
        cz_cs_pop_scope(cs);
        cz_lc_add(&result_lc, b.var, cz_fr_pow2(i));
        if (i < 32) r.bits[i] = cz_bp_bool_is(b); /* carries are dropped */
        max_value >>= 1;
        i++;
    }
    cz_bp_multieq_enforce_equal(meq, i, &lc, &result_lc);
    cz_lc_free(&lc);
    cz_lc_free(&result_lc);
    r.value = known ? modular : 0;
    r.known = known;
    *out = r;
}
