/*
 * bellperson 0.27 gadgets/multipack.rs, bellperson-exact
 * (cuzk/fil_bp_num.h): bits packed CAPACITY (254) at a time, little-endian
 * within a chunk, as public inputs (pack_into_inputs) or one aux
 * (pack_bits), each with its "num · 1 = packed" constraint.
 */
#include "cuzk/fil_bp_num.h"

/* as multipack::bytes_to_bits */
void cz_bp_bytes_to_bits(bool *out, const uint8_t *bytes, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < 8; k++) out[8 * i + k] = (bytes[i] >> (7 - k)) & 1;
}

/* as multipack::bytes_to_bits_le */
void cz_bp_bytes_to_bits_le(bool *out, const uint8_t *bytes, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < 8; k++) out[8 * i + k] = (bytes[i] >> k) & 1;
}

/* as multipack::compute_multipacking */
void cz_bp_compute_multipacking(cz_fr *out, const bool *bits, size_t nbits) {
    size_t k = 0;
    for (size_t start = 0; start < nbits; start += CZ_BP_FR_CAPACITY, k++) {
        size_t len = nbits - start < CZ_BP_FR_CAPACITY ? nbits - start : CZ_BP_FR_CAPACITY;
        cz_fr cur = CZ_FR_ZERO;
        for (size_t i = 0; i < len; i++)
            if (bits[start + i]) cz_fr_add(&cur, &cur, cz_fr_pow2((unsigned)i));
        out[k] = cur;
    }
}

/* Num of bits[0..len) with coefficients 1, 2, 4, ... (the loop shared by
 * pack_into_inputs and pack_bits). */
static void chunk_num(cz_bp_lcnum *num, const cz_cs *cs, const cz_bp_bool *bits, size_t len) {
    cz_bp_lcnum_init(num, cs);
    for (size_t i = 0; i < len; i++)
        cz_bp_lcnum_add_bool_with_coeff(num, &bits[i], cz_fr_pow2((unsigned)i));
}

/* num · 1 = v */
static void enforce_packing(cz_cs *cs, const cz_bp_lcnum *num, cz_var v, const char *name) {
    cz_lc a, b, c;
    cz_bp_lc3_init(cs, &a, &b, &c);
    cz_bp_lcnum_lc(&a, num, NULL);
    cz_lc_add_var(&b, CZ_VAR_ONE);
    cz_lc_add_var(&c, v);
    cz_bp_enforce3(cs, &a, &b, &c, name);
}

/* as multipack::pack_into_inputs */
void cz_bp_pack_into_inputs(cz_cs *cs, const cz_bp_bool *bits, size_t nbits) {
    size_t k = 0;
    for (size_t start = 0; start < nbits; start += CZ_BP_FR_CAPACITY, k++) {
        size_t len = nbits - start < CZ_BP_FR_CAPACITY ? nbits - start : CZ_BP_FR_CAPACITY;
        cz_bp_lcnum num;
        chunk_num(&num, cs, bits + start, len);
        cz_var input;
        cz_cs_alloc_input(cs, &input, &num.value);
        cz_cs_push_scope(cs, "packing constraint %zu", k);
        enforce_packing(cs, &num, input, NULL);
        cz_cs_pop_scope(cs);
        cz_bp_lcnum_free(&num);
    }
}

/* as multipack::pack_bits */
void cz_bp_pack_bits(cz_cs *cs, cz_bp_num *out, const cz_bp_bool *bits, size_t nbits) {
    size_t len = nbits < CZ_BP_FR_CAPACITY ? nbits : CZ_BP_FR_CAPACITY;
    cz_bp_lcnum num;
    chunk_num(&num, cs, bits, len);
    cz_cs_push_scope(cs, "input");
    cz_bp_num_alloc(cs, out, &num.value);
    cz_cs_pop_scope(cs);
    enforce_packing(cs, &num, out->var, "packing constraint");
    cz_bp_lcnum_free(&num);
}
