/*
 * cuzk — bellperson-exact gadgets on numbers: AllocatedNum operations and
 * Num (bellpepper-core 0.2 num.rs), storage-proofs-core's gadgets
 * (constraint.rs, encode.rs, variables.rs, insertion.rs, uint64.rs),
 * bellperson 0.27 multipack.rs, and neptune 11's Poseidon circuit
 * (circuit.rs, the "legacy" circuit filecoin-hashers calls) with the
 * filecoin-hashers / storage-proofs-porep circuit functions built on it.
 *
 * Same contract as cuzk/fil_bp.h: every function here allocates the same
 * variables and enforces the same constraints, in the same order, with the
 * same linear combinations (after merging duplicate terms, which cuzk's
 * recorder and bellpepper's TestConstraintSystem::hash both do) as the
 * reference function it names. Term ORDER inside one LC is not preserved
 * (it never reaches the R1CS); the set of (variable, merged coefficient)
 * pairs is.
 *
 * Errors are sticky in the cs (cuzk/circuit.h): these calls return
 * nothing; a contract violation (an arity the reference panics on, a
 * zero where the reference returns DivisionByZero, ...) is reported with
 * cz_cs_fail and every output still receives a valid variable (so the
 * caller need not check each call; the driver reports the error).
 *
 * Values are computed only when cz_cs_has_values(cs); otherwise value
 * fields are meaningless (zero), as bellperson's None. Constants that
 * enter linear combinations (Poseidon's domain tag and its first S-box)
 * are computed in every mode.
 *
 * Scopes: each reference namespace is pushed as a cuzk scope with the
 * same name where practical (e.g. "quintic s-box 2"); names never change
 * the R1CS.
 */
#ifndef CUZK_FIL_BP_NUM_H
#define CUZK_FIL_BP_NUM_H

#include "cuzk/fil_bp.h"
#include "cuzk/fil_poseidon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* BLS12-381 Fr: PrimeField::NUM_BITS and ::CAPACITY. */
#define CZ_BP_FR_NUM_BITS 255u
#define CZ_BP_FR_CAPACITY 254u

/* ---- Num (bellpepper-core num.rs Num: an LC with its value) --------------
 * Lives on the stack like a cz_lc (do not copy by value; free with
 * cz_bp_lcnum_free). Built from an inactive cs (witness mode) the LC is
 * inactive and only the value is tracked. */
typedef struct {
    cz_lc lc;
    cz_fr value;
} cz_bp_lcnum;

/* Num::zero() */
void cz_bp_lcnum_init(cz_bp_lcnum *n, const cz_cs *cs);
/* From<AllocatedNum> for Num: LC = 1·a, value = a's. */
void cz_bp_lcnum_from_num(cz_bp_lcnum *n, const cz_cs *cs, const cz_bp_num *a);
void cz_bp_lcnum_free(cz_bp_lcnum *n);
/* Num::add_bool_with_coeff(ONE, bit, coeff), in place: lc += bit.lc(ONE,
 * coeff) (cz_bp_bool_lc_add), value += coeff if the bit is true. */
void cz_bp_lcnum_add_bool_with_coeff(cz_bp_lcnum *n, const cz_bp_bool *bit, const cz_fr *coeff);
/* Num::add(other), in place: n += other (other must not be n). */
void cz_bp_lcnum_add(cz_bp_lcnum *n, const cz_bp_lcnum *other);
/* Num::scale(s), in place: every coefficient and the value times s. */
void cz_bp_lcnum_scale(cz_bp_lcnum *n, const cz_fr *s);
/* dst += Num::lc(coeff) (coeff NULL means 1). */
void cz_bp_lcnum_lc(cz_lc *dst, const cz_bp_lcnum *n, const cz_fr *coeff);

/* ---- AllocatedNum operations (bellpepper-core num.rs) --------------------- */

/* boolean::field_into_allocated_bits_le: CZ_BP_FR_NUM_BITS = 255 bits of the
 * canonical value, allocated (AllocatedBit::alloc, one boolean constraint
 * each) least significant first. */
void cz_bp_field_into_allocated_bits_le(cz_cs *cs, cz_bp_abit out[CZ_BP_FR_NUM_BITS],
                                        const cz_fr *value);
/* AllocatedNum::to_bits_le (non-strict): the 255 bits above as Boolean::Is,
 * then the "unpacking constraint" A = 0, B = 0, C = Σ 2^i·bit_i − num.
 * 256 constraints, 255 aux. Does not force the bits below r. */
void cz_bp_num_to_bits_le(cz_cs *cs, cz_bp_bool out[CZ_BP_FR_NUM_BITS], const cz_bp_num *n);
/* AllocatedNum::mul: aux ab, a·b = ab. */
void cz_bp_num_mul(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a, const cz_bp_num *b);
/* AllocatedNum::square: aux aa, a·a = aa. */
void cz_bp_num_square(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a);
/* AllocatedNum::assert_nonzero: aux inv, a·inv = ONE. With values and
 * a = 0 the reference fails (DivisionByZero): cz_cs_fail(CZ_ERR_INVALID_ARG)
 * (inv is still allocated, as 0). */
void cz_bp_num_assert_nonzero(cz_cs *cs, const cz_bp_num *a);
/* AllocatedNum::conditionally_reverse: (c, d) = cond ? (b, a) : (a, b);
 * aux c, (a − b)·cond = a − c, aux d, (b − a)·cond = b − d. */
void cz_bp_num_conditionally_reverse(cz_cs *cs, cz_bp_num *c, cz_bp_num *d, const cz_bp_num *a,
                                     const cz_bp_num *b, const cz_bp_bool *cond);

/* ---- storage-proofs-core gadgets/constraint.rs ---------------------------- */
/* equal: a·ONE = b (no allocation). */
void cz_bp_constraint_equal(cz_cs *cs, const cz_bp_num *a, const cz_bp_num *b);
/* sum: (a + b)·ONE = s. */
void cz_bp_constraint_sum(cz_cs *cs, const cz_bp_num *a, const cz_bp_num *b, const cz_bp_num *s);
/* difference: (d + b)·ONE = a. */
void cz_bp_constraint_difference(cz_cs *cs, const cz_bp_num *a, const cz_bp_num *b,
                                 const cz_bp_num *d);
/* add: aux res = a + b, then sum(a, b, res). */
void cz_bp_constraint_add(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a, const cz_bp_num *b);
/* sub: aux res = a − b, then difference(a, b, res). */
void cz_bp_constraint_sub(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a, const cz_bp_num *b);

/* ---- gadgets/encode.rs ---------------------------------------------------- */
/* encode(key, value) = constraint::add(key, value) (scope "encode_add"). */
void cz_bp_encode(cz_cs *cs, cz_bp_num *out, const cz_bp_num *key, const cz_bp_num *value);
/* decode(key, value) = constraint::sub(value, key) (scope "decode_sub"). */
void cz_bp_decode(cz_cs *cs, cz_bp_num *out, const cz_bp_num *key, const cz_bp_num *value);

/* ---- gadgets/variables.rs Root ---------------------------------------------
 * Root::Var(an allocated num) or Root::Val(a value, allocated on use). */
typedef struct {
    bool is_var;
    cz_bp_num var; /* is_var */
    cz_fr val;     /* !is_var (meaningful only with values) */
} cz_bp_root;

/* Root::from_allocated */
static inline cz_bp_root cz_bp_root_from_allocated(const cz_bp_num *n) {
    cz_bp_root r;
    r.is_var = true;
    r.var = *n;
    r.val = n->value;
    return r;
}
/* Root::Val(value) (value NULL: Val(None), blank circuits). */
static inline cz_bp_root cz_bp_root_val(const cz_fr *value) {
    cz_bp_root r;
    r.is_var = false;
    r.var.var = 0;
    r.var.value = CZ_FR_ZERO;
    r.val = value ? *value : CZ_FR_ZERO;
    return r;
}
/* Root::allocated: Var -> the num itself (nothing allocated); Val -> a new
 * aux (AllocatedNum::alloc) with the value. */
void cz_bp_root_allocated(cz_cs *cs, cz_bp_num *out, const cz_bp_root *root);
/* Root::var(cs, fr): Root::Var of a new aux holding value. */
void cz_bp_root_var(cz_cs *cs, cz_bp_root *out, const cz_fr *value);

/* ---- gadgets/insertion.rs -------------------------------------------------
 * Index bits are least significant first. */

/* pick(cond, a, b): aux c = cond ? a : b; (b − a)·cond = b − c. */
void cz_bp_pick(cz_cs *cs, cz_bp_num *out, const cz_bp_bool *cond, const cz_bp_num *a,
                const cz_bp_num *b);
/* select(from, bits): from[n] where bits encode n; 2^nbits − 1 picks, by
 * levels from the MOST significant bit: at level i (bit nbits−1−i) the
 * state halves, new[j] = pick(bit, state[half + j], state[j]), scope
 * "pick i, j". 1 <= nbits <= CZ_BP_INSERT_MAX_BITS. */
#define CZ_BP_INSERT_MAX_BITS 6u
void cz_bp_select(cz_cs *cs, cz_bp_num *out, const cz_bp_num *from, const cz_bp_bool *bits,
                  unsigned nbits);
/* insert(element, bits, elements): out[0 .. 2^nbits) = elements with
 * element inserted at position n (bits encode n); elements has
 * 2^nbits − 1 entries. Dispatches as the reference: size 2 -> insert_2 (2
 * picks), 4 -> insert_4 (8 picks), 8 -> insert_8 (AllocatedBit::nor(b0, b1),
 * AllocatedBit::and(b0, b1), then 20 picks: 22 constraints; bits[0] and
 * bits[1] must be Boolean::Is, else cz_cs_fail as the reference panics),
 * otherwise the general algorithm: one select per output position
 * (size·(size − 1) constraints; 240 for size 16).
 * 1 <= nbits <= CZ_BP_INSERT_MAX_BITS. out must not alias the inputs. */
void cz_bp_insert(cz_cs *cs, cz_bp_num *out, const cz_bp_num *element, const cz_bp_bool *bits,
                  unsigned nbits, const cz_bp_num *elements);

/* ---- bellperson gadgets/multipack.rs --------------------------------------- */

/* bytes_to_bits: 8·n bits, most significant bit of each byte first. */
void cz_bp_bytes_to_bits(bool *out, const uint8_t *bytes, size_t n);
/* bytes_to_bits_le: 8·n bits, least significant bit of each byte first. */
void cz_bp_bytes_to_bits_le(bool *out, const uint8_t *bytes, size_t n);
/* Number of field elements compute_multipacking / pack_into_inputs make
 * from nbits bits: ceil(nbits / 254). */
static inline size_t cz_bp_multipack_count(size_t nbits) {
    return (nbits + CZ_BP_FR_CAPACITY - 1) / CZ_BP_FR_CAPACITY;
}
/* compute_multipacking: out[k] = Σ_i bits[254·k + i]·2^i over each chunk
 * of CAPACITY bits (the last may be shorter); cz_bp_multipack_count(nbits)
 * outputs. */
void cz_bp_compute_multipacking(cz_fr *out, const bool *bits, size_t nbits);
/* pack_into_inputs: per chunk k of 254 bits (in order): Num of the chunk
 * (add_bool_with_coeff with 2^i), a new public input ("input k") with its
 * value, then "packing constraint k": num·ONE = input. */
void cz_bp_pack_into_inputs(cz_cs *cs, const cz_bp_bool *bits, size_t nbits);
/* pack_bits: the Num of the first min(nbits, 254) bits, a new aux
 * ("input"), "packing constraint": num·ONE = aux. */
void cz_bp_pack_bits(cz_cs *cs, cz_bp_num *out, const cz_bp_bool *bits, size_t nbits);

/* ---- storage-proofs-core gadgets/uint64.rs ----------------------------------
 * 64 Booleans, least significant first, and the value (meaningful only
 * with values, or for constants). */
typedef struct {
    cz_bp_bool bits[64];
    uint64_t value;
} cz_bp_uint64;

/* UInt64::constant: 64 Boolean::Constant bits, nothing allocated. */
void cz_bp_uint64_constant(cz_bp_uint64 *out, uint64_t value);
/* UInt64::alloc: 64 AllocatedBits, bit 0 first ("allocated bit i"). */
void cz_bp_uint64_alloc(cz_cs *cs, cz_bp_uint64 *out, uint64_t value);
/* UInt64::to_bits_be: bit 63 first. */
void cz_bp_uint64_to_bits_be(const cz_bp_uint64 *u, cz_bp_bool out[64]);
/* UInt64::to_bits_le: bit 0 first (the bits as stored). */
void cz_bp_uint64_to_bits_le(const cz_bp_uint64 *u, cz_bp_bool out[64]);
/* UInt64::from_bits_be: bits[0] is the most significant. */
void cz_bp_uint64_from_bits_be(cz_bp_uint64 *out, const cz_bp_bool bits[64]);
/* UInt64::from_bits: bits[0] is the least significant. */
void cz_bp_uint64_from_bits(cz_bp_uint64 *out, const cz_bp_bool bits[64]);
/* UInt64::pack_into_input = pack_into_inputs(bits LE): one public input
 * and one constraint. */
void cz_bp_uint64_pack_into_input(cz_cs *cs, const cz_bp_uint64 *u);

/* ---- neptune 11 circuit.rs: the legacy Poseidon circuit ---------------------
 * cz_bp_poseidon_hash = neptune::circuit::poseidon_hash(cs, preimage,
 * constants): the state starts [Num(domain_tag), preimage...]; the S-box of
 * the tag in the first round is folded into a constant; every other S-box
 * costs 3 constraints + 3 aux (l^2, l^4, l^5 with the round keys of the
 * compressed (OptimizedStatic) constants folded into the LCs), plus one
 * constraint + aux ("enforce num allocation preserves lc") when its input
 * is a linear combination, i.e. everywhere but the first round; the MDS /
 * pre-sparse / sparse products stay linear combinations. The result is
 * lane 1, allocated with one more constraint. Per hash, with t = arity + 1:
 *   constraints = aux = 3·(8t + R_P − 1) + (8t + R_P − arity)
 * (neptune's test: 311, 377, 505, 761, 1009, 1385 for arity 2, 4, 8, 16,
 * 24, 36; Strengthened 367, 433, 565, 821, 1069, 1445; arity 11: 598).
 * preimage has c->arity entries. Constantlength(n) needs n == arity (the
 * reference asserts); else cz_cs_fail(CZ_ERR_INVALID_ARG). c NULL:
 * cz_cs_fail(CZ_ERR_NOMEM) (what cz_neptune_constants_get returns on OOM). */
void cz_bp_poseidon_hash(cz_cs *cs, cz_bp_num *out, const cz_bp_num *preimage,
                         const cz_neptune_constants *c);

/* ---- filecoin-hashers PoseidonFunction circuits (rust-fil-proofs 19.1) ---- */
/* hash2_circuit(a, b) = hash_leaf_circuit(a, b): POSEIDON_CONSTANTS_2. */
void cz_bp_poseidon_hash2(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a, const cz_bp_num *b);
/* hash_multi_leaf_circuit::<Arity>(leaves): POSEIDON_CONSTANTS_<arity> for
 * the PoseidonArity impls, arity in {2, 4, 8, 11, 16, 24, 36} (PoRep uses
 * 2, 4, 8); other arities: cz_cs_fail(CZ_ERR_INVALID_ARG). */
void cz_bp_poseidon_hash_multi_leaf(cz_cs *cs, cz_bp_num *out, const cz_bp_num *leaves,
                                    unsigned arity);
/* hash_md_circuit(elements), n >= 1: acc = elements[0]; for each chunk h of
 * up to 35 following elements: zero aux "padding i" for the lanes past the
 * chunk (allocated BEFORE the hash, outside its scope), then acc =
 * poseidon_hash(scope "hash md h", [acc, chunk, padding], POSEIDON_MD
 * (arity 36)). 71 elements: 2 hashes, 2770 constraints (filecoin-hashers
 * test). n = 1 returns elements[0] with nothing enforced. */
void cz_bp_poseidon_hash_md(cz_cs *cs, cz_bp_num *out, const cz_bp_num *elements, size_t n);

/* storage-proofs-porep stacked/circuit/hash.rs hash_single_column: n = 2
 * (POSEIDON_CONSTANTS_2, 311 constraints) or n = 11 (POSEIDON_CONSTANTS_11,
 * 598 constraints); other n: cz_cs_fail(CZ_ERR_INVALID_ARG). */
void cz_bp_hash_single_column(cz_cs *cs, cz_bp_num *out, const cz_bp_num *column, unsigned n);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_BP_NUM_H */
