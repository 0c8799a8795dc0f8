/*
 * cuzk — bellperson-exact Boolean operations, UInt32, MultiEq, SHA-256 and
 * filecoin-hashers' Sha256Function circuit side.
 *
 * Part of the bellperson-exact gadget family (cuzk/fil_bp.h): every function
 * here reproduces one reference function (named in its comment) with the
 * same variables allocated in the same order and the same constraints with
 * the same linear combinations in the same order, so a circuit built from
 * them is the R1CS rust-fil-proofs 19.1 builds. References:
 *   bellpepper-core 0.2 gadgets/boolean.rs (AllocatedBit, Boolean);
 *   bellperson 0.27 gadgets/uint32.rs, multieq.rs, sha256.rs (rust-fil-proofs
 *     uses bellperson's own copies; they equal bellpepper 0.2's);
 *   filecoin-hashers 14.1 src/sha256.rs (Sha256Function::*_circuit).
 *
 * Conventions.
 *  - Errors are sticky in the cs (cuzk/circuit.h): gadgets that cannot fail
 *    other than through the cs return void; their outputs are always valid
 *    objects. Calls that can fail on their own arguments or on memory also
 *    return the status (CZ_WUR) and record it in the cs.
 *  - Constants short-circuit exactly as in the reference: operations on
 *    Boolean constants allocate nothing and enforce nothing where the
 *    reference does so, and return the same kind (Is / Not / Constant).
 *  - Values: an AllocatedBit's value is meaningful only when
 *    cz_cs_has_values(cs). A UInt32 carries `known`, the reference's
 *    Option<u32>: true for constants and whenever the cs has values, false
 *    when it was derived from allocated bits without values. addmany takes
 *    its all-constant shortcut only when every bit is constant AND the value
 *    is known, as the reference does (this is what the blank circuit the
 *    parameters were generated from does).
 *  - Namespaces (cs.namespace) map to cz_cs_push_scope/cz_cs_pop_scope with
 *    the reference's names; names never change the R1CS.
 */
#ifndef CUZK_FIL_BP_SHA256_H
#define CUZK_FIL_BP_SHA256_H

#include "cuzk/fil_bp.h"
#include "cuzk/sha256.h"
#include "cuzk/fil_bp_num.h" /* CZ_BP_FR_NUM_BITS, field/num bit decompositions, pack_bits */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- AllocatedBit (bellpepper-core boolean.rs) ----------------------------
 * Each allocates one aux (the result) and enforces one constraint:
 *   xor      (a + a)·b = a + b − c          "xor constraint"
 *   and      a·b = c                        "and constraint"
 *   and_not  a·(1 − b) = c                  "and not constraint"
 *   nor      (1 − a)·(1 − b) = c            "nor constraint"
 * (operand order matters: xor's A is 2a, its B is b). out may alias a or b. */
void cz_bp_abit_xor(cz_cs *cs, cz_bp_abit *out, const cz_bp_abit *a, const cz_bp_abit *b);
void cz_bp_abit_and(cz_cs *cs, cz_bp_abit *out, const cz_bp_abit *a, const cz_bp_abit *b);
void cz_bp_abit_and_not(cz_cs *cs, cz_bp_abit *out, const cz_bp_abit *a, const cz_bp_abit *b);
void cz_bp_abit_nor(cz_cs *cs, cz_bp_abit *out, const cz_bp_abit *a, const cz_bp_abit *b);
/* AllocatedBit::alloc_conditionally: allocate `value` and enforce
 * (1 − must_be_false − a)·a = 0 (a = 0 whenever must_be_false = 1). */
void cz_bp_abit_alloc_conditionally(cz_cs *cs, cz_bp_abit *out, bool value,
                                    const cz_bp_abit *must_be_false);

/* u64_into_boolean_vec_le: 64 AllocatedBits (namespaces "bit i"), bit i =
 * (value >> i) & 1, allocated from bit 0 up; out[i] = Is(bit i). */
void cz_bp_u64_into_boolean_vec_le(cz_cs *cs, cz_bp_bool out[64], uint64_t value);
/* field_into_boolean_vec_le: cz_bp_field_into_allocated_bits_le
 * (cuzk/fil_bp_num.h: the 255 low canonical bits, bit 0 first) wrapped in
 * Is(). */
void cz_bp_field_into_boolean_vec_le(cz_cs *cs, cz_bp_bool out[CZ_BP_FR_NUM_BITS],
                                     const cz_fr *value);

/* ---- Boolean (bellpepper-core boolean.rs) ---------------------------------- */
/* Boolean::is_constant */
static inline bool cz_bp_bool_is_const(const cz_bp_bool *b) { return b->kind == CZ_BP_CONST; }
/* Boolean::xor: x ^ false = x and x ^ true = ¬x (no constraint); Is/Is and
 * Not/Not → Is(AllocatedBit::xor(a, b)); Is(x)/Not(y) (either order) →
 * Not(AllocatedBit::xor(x, y)), the Is operand first. */
cz_bp_bool cz_bp_bool_xor(cz_cs *cs, const cz_bp_bool *a, const cz_bp_bool *b);
/* Boolean::and: false wins, true is the identity (no constraint); Is/Is →
 * and(a, b); Is(x)/Not(y) (either order) → and_not(x, y); Not/Not →
 * nor(a, b). Always Is(...) when a constraint is made. */
cz_bp_bool cz_bp_bool_and(cz_cs *cs, const cz_bp_bool *a, const cz_bp_bool *b);
/* Boolean::enforce_equal: two constants: CZ_OK when equal, else
 * CZ_ERR_UNSATISFIED (also recorded in the cs; nothing enforced). With one
 * constant true: 0·0 = 1 − x; constant false: 0·0 = x; otherwise
 * 0·0 = a − b ("enforce equal to one" / "to zero" / "enforce equal"). */
CZ_WUR cz_status cz_bp_bool_enforce_equal(cz_cs *cs, const cz_bp_bool *a, const cz_bp_bool *b);
/* Boolean::sha256_ch: (a ∧ b) ⊕ (¬a ∧ c). With constants it reduces to one
 * Boolean::and (or none) as the reference's case list does, in its order;
 * otherwise allocates "ch" and enforces (b − c)·a = ch − c. */
cz_bp_bool cz_bp_bool_sha256_ch(cz_cs *cs, const cz_bp_bool *a, const cz_bp_bool *b,
                                const cz_bp_bool *c);
/* Boolean::sha256_maj: (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c). With a constant it
 * reduces to one Boolean::and (or none); otherwise allocates "maj", THEN
 * bc = Boolean::and(b, c) (namespace "b and c"), then enforces
 * (2·bc − b − c)·a = bc − maj. */
cz_bp_bool cz_bp_bool_sha256_maj(cz_cs *cs, const cz_bp_bool *a, const cz_bp_bool *b,
                                 const cz_bp_bool *c);

/* ---- MultiEq (bellperson multieq.rs) ----------------------------------------
 * Packs several equalities lhs_k = rhs_k, each of num_bits bits, into one
 * constraint (Σ 2^{off_k}·lhs_k)·1 = Σ 2^{off_k}·rhs_k ("multieq N"). An
 * equality that would bring the packed width to Fr::CAPACITY (254) or more
 * first flushes the pending one; cz_bp_multieq_finish (the reference's
 * Drop) flushes what is left. A flush is emitted in the middle of whatever
 * gadget called enforce_equal (after that gadget's allocations), so the
 * constraint order is the reference's only if the MultiEq lives exactly as
 * long as the reference's: in SHA-256, one per compression function. */
typedef struct {
    cz_cs *cs;
    size_t ops;       /* constraints emitted so far */
    size_t bits_used; /* width of the pending packed equality */
    cz_lc lhs, rhs;
} cz_bp_multieq;

void cz_bp_multieq_init(cz_bp_multieq *m, cz_cs *cs);
/* MultiEq::enforce_equal. num_bits must be < 254 (CZ_ERR_INVALID_ARG in
 * the cs otherwise). The LCs are copied, not consumed. */
void cz_bp_multieq_enforce_equal(cz_bp_multieq *m, size_t num_bits, const cz_lc *lhs,
                                 const cz_lc *rhs);
/* Drop for MultiEq: flush if bits_used > 0, free the LCs. Idempotent. */
void cz_bp_multieq_finish(cz_bp_multieq *m);

/* ---- UInt32 (bellperson uint32.rs) -------------------------------------------- */
typedef struct {
    cz_bp_bool bits[32]; /* least significant bit first */
    uint32_t value;      /* meaningful when known */
    bool known;          /* the reference's value.is_some() */
} cz_bp_u32;

/* UInt32::constant: 32 Constant bits, no variable. */
cz_bp_u32 cz_bp_u32_constant(uint32_t value);
/* UInt32::alloc: 32 AllocatedBits, bit 0 first ("allocated bit i"). */
void cz_bp_u32_alloc(cz_cs *cs, cz_bp_u32 *out, uint32_t value);
/* into_bits_be (MSB first) / from_bits_be; into_bits / from_bits (LSB
 * first). No constraints. from_bits*: the cs is read only to tell whether
 * non-constant bits carry values (the reference's value is None when one
 * bit's is); cs may be NULL for bits that are all constants (a NULL cs
 * counts as one without values). */
void cz_bp_u32_into_bits_be(const cz_bp_u32 *x, cz_bp_bool out[32]);
cz_bp_u32 cz_bp_u32_from_bits_be(const cz_cs *cs, const cz_bp_bool bits[32]);
void cz_bp_u32_into_bits(const cz_bp_u32 *x, cz_bp_bool out[32]);
cz_bp_u32 cz_bp_u32_from_bits(const cz_cs *cs, const cz_bp_bool bits[32]);
/* rotr / shr (by taken mod 32; shr fills with Constant(false)). */
cz_bp_u32 cz_bp_u32_rotr(const cz_bp_u32 *x, unsigned by);
cz_bp_u32 cz_bp_u32_shr(const cz_bp_u32 *x, unsigned by);
/* UInt32::xor: Boolean::xor bit by bit ("xor of bit i"). */
void cz_bp_u32_xor(cz_cs *cs, cz_bp_u32 *out, const cz_bp_u32 *a, const cz_bp_u32 *b);
/* UInt32::sha256_ch / sha256_maj: Boolean::sha256_ch / _maj bit by bit
 * ("ch i" / "maj i"), bit 0 first. */
void cz_bp_u32_sha256_ch(cz_cs *cs, cz_bp_u32 *out, const cz_bp_u32 *a, const cz_bp_u32 *b,
                         const cz_bp_u32 *c);
void cz_bp_u32_sha256_maj(cz_cs *cs, cz_bp_u32 *out, const cz_bp_u32 *a, const cz_bp_u32 *b,
                          const cz_bp_u32 *c);
/* UInt32::addmany: the sum of n operands (2 ≤ n ≤ 10, CZ_ERR_INVALID_ARG
 * in the cs otherwise) mod 2^32. All bits constant and the value known: a
 * constant, nothing allocated. Otherwise allocates the result bits
 * ("result bit i", as many as the bit length of n·(2^32 − 1): 33 for n = 2,
 * 34 for 3–4, 35 for 5–8, 36 for 9–10) and hands Σ ops = Σ 2^i·bit_i to
 * the MultiEq (which may flush first); out keeps the low 32 bits. */
void cz_bp_u32_addmany(cz_cs *cs, cz_bp_multieq *meq, cz_bp_u32 *out,
                       const cz_bp_u32 *const ops[], size_t n);

/* ---- SHA-256 (bellperson sha256.rs) ------------------------------------------
 * Bit order: input bits are the message bits MSB-first within each byte
 * (bit 8i + j = bit 7 − j of byte i); the digest comes back the same way
 * (256 Booleans, the standard digest's bytes MSB-first). Counts with every
 * input bit allocated: 25,840 constraints for one compression from the IV,
 * 44,874 for sha256 of a 512-bit message (bellperson's test_full_block /
 * test_full_hash); 0 for an all-constant input. */
#define CZ_BP_SHA256_IV CZ_SHA256_IV /* FIPS 180-4 IV (cuzk/sha256.h) */
/* sha256_compression_function: input 512 bits, state 8 words; its own
 * MultiEq, finished after the last feed-forward addition. out (8 words)
 * must not alias state. CZ_ERR_NOMEM only. */
CZ_WUR cz_status cz_bp_sha256_compression_function(cz_cs *cs, cz_bp_u32 out[8],
                                                   const cz_bp_bool input[512],
                                                   const cz_bp_u32 state[8]);
/* sha256_block_no_padding: one compression from the IV, digest bits out. */
CZ_WUR cz_status cz_bp_sha256_block_no_padding(cz_cs *cs, cz_bp_bool out[256],
                                               const cz_bp_bool input[512]);
/* sha256: SHA-256 of nbits input bits (nbits % 8 == 0, else
 * CZ_ERR_INVALID_ARG), padding appended as Constant bits, one
 * compression per block in namespaces "block i". */
CZ_WUR cz_status cz_bp_sha256(cz_cs *cs, cz_bp_bool out[256], const cz_bp_bool *input,
                              size_t nbits);

/* ---- filecoin-hashers Sha256Function, circuit side ----------------------------
 * Tree-D / PoR nodes: the result is the digest with bits renumbered within
 * each byte (LSB first), truncated to Fr::CAPACITY = 254 bits and packed
 * (multipack::pack_bits: one new aux "input" and Σ 2^i·bit_i · 1 = num),
 * i.e. the Fr whose little-endian bytes are the digest with the top two
 * bits of byte 31 cleared — Sha256Domain::trim_to_fr32. A num operand is
 * unpacked first with AllocatedNum::to_bits_le (255 AllocatedBits + one
 * "unpacking constraint" 0·0 = Σ 2^i·b_i − num), padded with one
 * Constant(false) to 256 bits and renumbered MSB-first within each byte,
 * so the preimage is the operand's 32-byte little-endian representation.
 * Counts (reference): hash_leaf_bits_circuit of two 256-bit allocated
 * inputs = 44,875 (storage-proofs-core util.rs test: 45,387 with the 512
 * allocations); hash2_circuit / hash_leaf_circuit /
 * hash_multi_leaf_circuit(2 leaves) = 45,379, 4 leaves = 72,075, 8 leaves
 * = 125,467 (storage-proofs-core por_circuit.rs counts for sha256 base
 * trees of arity 2, 4, 8 less the PoR scaffolding). All CZ_ERR_NOMEM
 * only, except hash_circuit's nbits % 8 != 0 (CZ_ERR_INVALID_ARG). */
/* Sha256Function::hash_circuit: sha256 (namespace "hash"), renumber, take
 * 254 bits, pack (namespace "pack_le"). */
CZ_WUR cz_status cz_fil_sha256_hash_circuit(cz_cs *cs, cz_bp_num *out, const cz_bp_bool *bits,
                                            size_t nbits);
/* Sha256Function::hash_leaf_bits_circuit: each side padded to whole bytes
 * with Constant(false), renumbered MSB-first within bytes, concatenated,
 * hash_circuit. */
CZ_WUR cz_status cz_fil_sha256_hash_leaf_bits_circuit(cz_cs *cs, cz_bp_num *out,
                                                      const cz_bp_bool *left, size_t nleft,
                                                      const cz_bp_bool *right, size_t nright);
/* HashFunction::hash_leaf_circuit (the trait default): to_bits_le of left
 * ("left num into bits") then right ("right num into bits"), then
 * hash_leaf_bits_circuit. */
CZ_WUR cz_status cz_fil_sha256_hash_leaf_circuit(cz_cs *cs, cz_bp_num *out,
                                                 const cz_bp_num *left, const cz_bp_num *right);
/* Sha256Function::hash2_circuit: to_bits_le of a ("a_bits") then b
 * ("b_bits"), pad/renumber each, hash_circuit. */
CZ_WUR cz_status cz_fil_sha256_hash2_circuit(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a,
                                             const cz_bp_num *b);
/* Sha256Function::hash_multi_leaf_circuit: per leaf i in order, to_bits_le
 * ("i_num_into_bits"), pad, renumber; then hash_circuit over all of them.
 * n >= 1. */
CZ_WUR cz_status cz_fil_sha256_hash_multi_leaf_circuit(cz_cs *cs, cz_bp_num *out,
                                                       const cz_bp_num *leaves, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_BP_SHA256_H */
