/*
 * storage-proofs-core gadgets/uint64.rs, bellperson-exact
 * (cuzk/fil_bp_num.h): 64 Booleans, least significant first. Only alloc
 * and pack_into_input touch the constraint system.
 */
#include "cuzk/fil_bp_num.h"

/* as UInt64::constant */
void cz_bp_uint64_constant(cz_bp_uint64 *out, uint64_t value) {
    for (unsigned i = 0; i < 64; i++) out->bits[i] = cz_bp_bool_const((value >> i) & 1);
    out->value = value;
}

/* as UInt64::alloc */
void cz_bp_uint64_alloc(cz_cs *cs, cz_bp_uint64 *out, uint64_t value) {
    if (!cz_cs_has_values(cs)) value = 0;
    for (unsigned i = 0; i < 64; i++) {
        cz_bp_abit b;
        cz_cs_push_scope(cs, "allocated bit %u", i);
        cz_bp_abit_alloc(cs, &b, (value >> i) & 1);
        cz_cs_pop_scope(cs);
        out->bits[i] = cz_bp_bool_is(b);
    }
    out->value = value;
}

/* as UInt64::to_bits_be */
void cz_bp_uint64_to_bits_be(const cz_bp_uint64 *u, cz_bp_bool out[64]) {
    for (unsigned i = 0; i < 64; i++) out[i] = u->bits[63 - i];
}

/* as UInt64::to_bits_le */
void cz_bp_uint64_to_bits_le(const cz_bp_uint64 *u, cz_bp_bool out[64]) {
    for (unsigned i = 0; i < 64; i++) out[i] = u->bits[i];
}

/* as UInt64::from_bits_be */
void cz_bp_uint64_from_bits_be(cz_bp_uint64 *out, const cz_bp_bool bits[64]) {
    uint64_t v = 0;
    cz_bp_bool tmp[64];
    for (unsigned i = 0; i < 64; i++) {
        v = (v << 1) | (cz_bp_bool_value(&bits[i]) ? 1u : 0u);
        tmp[63 - i] = bits[i];
    }
    for (unsigned i = 0; i < 64; i++) out->bits[i] = tmp[i];
    out->value = v;
}

/* as UInt64::from_bits */
void cz_bp_uint64_from_bits(cz_bp_uint64 *out, const cz_bp_bool bits[64]) {
    uint64_t v = 0;
    cz_bp_bool tmp[64];
    for (unsigned i = 0; i < 64; i++) {
        if (cz_bp_bool_value(&bits[i])) v |= (uint64_t)1 << i;
        tmp[i] = bits[i];
    }
    for (unsigned i = 0; i < 64; i++) out->bits[i] = tmp[i];
    out->value = v;
}

/* as UInt64::pack_into_input */
void cz_bp_uint64_pack_into_input(cz_cs *cs, const cz_bp_uint64 *u) {
    cz_bp_pack_into_inputs(cs, u->bits, 64);
}
