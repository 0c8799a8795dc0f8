/*
 * cuzk — basic gadgets over the constraint-system API (cuzk/circuit.h):
 * booleans, bit decomposition and packing of Fr values, 32-bit words.
 * SHA-256 is in cuzk/sha256.h.
 *
 * Booleans. A cz_bit is either a constant, an allocated variable v known to
 * be 0/1, or the negation 1 − v of one (negation is free). Its `value`
 * field holds the bit's value whenever the cs has values (always for
 * constants); gadgets read it instead of looking the variable up.
 * Operations on constants fold: and/xor/ch/maj with constant operands cost
 * fewer (often zero) constraints.
 *
 * Constraint counts (worst case, all operands variables):
 *   cz_bit_alloc 1 (v·(1−v) = 0); and 1; xor 1; xor3 1; ch 1; maj 1;
 *   enforce_equal 1; not 0.
 * xor3 and maj use a single constraint each: with s = a + b + c ∈ {0..3}
 * (a, b, c boolean), (2p − s)·s = 3p − 2s has the unique solution
 * p = a⊕b⊕c and (4m − s)·s = 6m − s the unique solution m = maj(a, b, c)
 * (the coefficient of p, 2s − 3, resp. of m, 4s − 6, never vanishes), and
 * both results are then boolean without a booleanity constraint.
 *
 * Aliasing: output arguments may alias inputs everywhere in this header.
 * All values passed as `value` are ignored when !cz_cs_has_values(cs).
 */
#ifndef CUZK_GADGETS_H
#define CUZK_GADGETS_H

#include "cuzk/circuit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- boolean --------------------------------------------------------------- */
enum { CZ_BIT_CONST = 0, CZ_BIT_VAR = 1, CZ_BIT_NOT = 2 };
typedef struct {
    cz_var var;    /* CZ_BIT_VAR / CZ_BIT_NOT: the underlying 0/1 variable */
    uint8_t kind;  /* CZ_BIT_* */
    uint8_t value; /* the bit (after negation); 0 when values are absent */
} cz_bit;

static inline cz_bit cz_bit_const(bool v)
{
    cz_bit b = {CZ_VAR_ONE, CZ_BIT_CONST, (uint8_t)(v ? 1 : 0)};
    return b;
}
static inline cz_bit cz_bit_not(cz_bit a)
{
    if (a.kind == CZ_BIT_VAR)
        a.kind = CZ_BIT_NOT;
    else if (a.kind == CZ_BIT_NOT)
        a.kind = CZ_BIT_VAR;
    a.value ^= 1;
    return a;
}
static inline bool cz_bit_is_const(const cz_bit *a) { return a->kind == CZ_BIT_CONST; }

/* New private bit with booleanity constraint (1 constraint). */
void cz_bit_alloc(cz_cs *cs, cz_bit *out, bool value);
/* New public-input bit with booleanity constraint (1 constraint). */
void cz_bit_alloc_input(cz_cs *cs, cz_bit *out, bool value);
/* v·(1 − v) = 0 for an existing variable (1 constraint). */
void cz_enforce_boolean(cz_cs *cs, cz_var v);
/* lc += coeff·bit (coeff NULL = 1); handles constants and negation. */
void cz_bit_to_lc(cz_lc *lc, const cz_bit *b, const cz_fr *coeff);
/* lc += 2^k·bit, k < 256. */
void cz_bit_to_lc_pow2(cz_lc *lc, const cz_bit *b, unsigned k);

void cz_bit_and(cz_cs *cs, cz_bit *out, const cz_bit *a, const cz_bit *b);
void cz_bit_xor(cz_cs *cs, cz_bit *out, const cz_bit *a, const cz_bit *b);
void cz_bit_xor3(cz_cs *cs, cz_bit *out, const cz_bit *a, const cz_bit *b, const cz_bit *c);
/* ch(a, b, c) = a ? b : c */
void cz_bit_ch(cz_cs *cs, cz_bit *out, const cz_bit *a, const cz_bit *b, const cz_bit *c);
/* maj(a, b, c) = at least two of a, b, c */
void cz_bit_maj(cz_cs *cs, cz_bit *out, const cz_bit *a, const cz_bit *b, const cz_bit *c);
/* a == b: 1 constraint (0·0 = a − b). Two constants cost nothing; if they
 * differ the cs fails with CZ_ERR_INVALID_ARG (a circuit bug, not a bad
 * witness). */
void cz_bit_enforce_equal(cz_cs *cs, const cz_bit *a, const cz_bit *b, const char *name);

/* ---- numbers <-> bits --------------------------------------------------------
 * Bit order here is little-endian: bits[0] is the least significant. */

/* Decomposes the value of num (an LC; value its value) into n bits,
 * 1 <= n <= 255: n booleanity constraints + 1 (num = Σ 2^i·bits[i]).
 * n <= 254: the decomposition is unique because 2^254 < r. n = 255: use
 * cz_num_to_bits_le_strict (otherwise value + r could also pass when it is
 * below 2^255). Fails (CZ_ERR_INVALID_ARG) if value >= 2^n. */
void cz_num_to_bits_le(cz_cs *cs, cz_bit *bits, const cz_lc *num, const cz_fr *value, unsigned n);
/* 255 bits with the extra check Σ 2^i·bits[i] <= r − 1, so the bits are the
 * canonical representation (+254 constraints: 510 in all). */
void cz_num_to_bits_le_strict(cz_cs *cs, cz_bit bits[255], const cz_lc *num, const cz_fr *value);
/* lc += Σ_{i<n} 2^i·bits[i], n <= 255 (no constraint). */
void cz_bits_pack_le(cz_lc *lc, const cz_bit *bits, unsigned n);
/* Value of Σ 2^i·bits[i] as an Fr (from the bits' value fields). */
void cz_bits_value_le(cz_fr *out, const cz_bit *bits, unsigned n);
/* Allocates an aux variable equal to Σ 2^i·bits[i] (1 constraint). */
void cz_bits_pack_alloc(cz_cs *cs, cz_var *out, const cz_bit *bits, unsigned n);

/* Allocates 8·len private bits for a byte string, bits MSB-first within each
 * byte (SHA-256 order): bits[8i + j] = (bytes[i] >> (7 − j)) & 1. */
void cz_bits_alloc_bytes(cz_cs *cs, cz_bit *bits, const uint8_t *bytes, size_t len);
/* Bytes from bit values in the same order (native helper). */
void cz_bits_to_bytes(uint8_t *bytes, const cz_bit *bits, size_t len);

/* ---- 32-bit words ------------------------------------------------------------
 * b[0] is the least significant bit; value is the word's value (0 when
 * values are absent). Rotations and shifts are free (they re-index bits;
 * shifted-in bits are constant 0). */
typedef struct {
    cz_bit b[32];
    uint32_t value;
} cz_u32;

void cz_u32_const(cz_u32 *out, uint32_t v);
/* 32 new private bits (32 constraints). */
void cz_u32_alloc(cz_cs *cs, cz_u32 *out, uint32_t v);
/* Big-endian bit order (SHA-256): bits[0] is the MSB. Free. */
void cz_u32_from_bits_be(cz_u32 *out, const cz_bit bits[32]);
void cz_u32_to_bits_be(cz_bit bits[32], const cz_u32 *a);
void cz_u32_rotr(cz_u32 *out, const cz_u32 *a, unsigned k);
void cz_u32_shr(cz_u32 *out, const cz_u32 *a, unsigned k);
/* Bitwise ops: <= 32 constraints each (fewer with constant bits). */
void cz_u32_xor(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b);
void cz_u32_xor3(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c);
void cz_u32_and(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b);
void cz_u32_ch(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c);
void cz_u32_maj(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c);
/* out = Σ ops[i] mod 2^32, 1 <= n <= 64. The sum (constants folded into
 * the LC) is decomposed once into 32 + ceil(log2(max sum + 1)) − 32 bits:
 * cost = 32 + carry bits + 1 constraints, i.e. 34 for 2 words, 35 for
 * 3..7 variable words, 0 when every operand is constant. */
void cz_u32_add_many(cz_cs *cs, cz_u32 *out, const cz_u32 *const *ops, size_t n);
/* out = a + b mod 2^32 (34 constraints). */
void cz_u32_add(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b);
/* Enforces a == b bit by bit. */
void cz_u32_enforce_equal(cz_cs *cs, const cz_u32 *a, const cz_u32 *b, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_GADGETS_H */
