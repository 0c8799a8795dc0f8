/*
 * cuzk — neptune's Poseidon (neptune 11, BLS12-381 Fr) with Filecoin's
 * constants, and filecoin-hashers' PoseidonHasher on domain elements.
 *
 * This is NOT cuzk's own Poseidon (cuzk/poseidon.h): neptune differs in its
 * MDS matrix (a fixed Cauchy matrix 1/(x_i + y_j) with x = 0..t−1,
 * y = t..2t−1, not drawn from Grain), its round numbers (computed with a
 * 256-bit "prime length", so R_P = 55 for t = 3) and its domain tags.
 * Only the Grain-LFSR round constants are shared (field 1, S-box 1 = x^5,
 * field size 255 bits, as cz_poseidon_generate draws them).
 *
 * neptune's objects, one to one:
 *   PoseidonConstants<Fr, A>           -> cz_neptune_constants (arity = A)
 *   Strength::{Standard, Strengthened} -> cz_neptune_strength
 *   HashType                           -> cz_neptune_hash_type + type_param
 *   Poseidon::new_with_preimage(..).hash() (HashMode::OptimizedStatic)
 *                                      -> cz_neptune_hash / _hash_preimage
 *   HashMode::Correct                  -> cz_neptune_permute_plain
 *   sponge::vanilla::Sponge (Simplex, ConstantLength) -> cz_neptune_sponge_hash
 * filecoin-hashers (rust-fil-proofs 19.1):
 *   POSEIDON_CONSTANTS_{2,4,8,11,16,24,36} = cz_neptune_constants_get(arity)
 *   PoseidonFunction::hash2, ::node/::multi_node, ::hash, ::hash_md
 *   storage-proofs-porep stacked::vanilla::hash::hash_single_column
 *
 * Forms: every cz_fr is Montgomery form, reduced (field.h). Domain elements
 * are canonical little-endian bytes (filecoin.h).
 *
 * Non-canonical domain elements: filecoin-hashers converts each domain
 * element with Fr::from_repr_vartime(..).expect(..), i.e. it PANICS on a
 * value >= r (PoseidonDomain itself stores any 32 bytes). The cz_fil_*
 * calls here refuse such an input with CZ_ERR_NOT_CANONICAL and leave
 * *out untouched; nothing is ever reduced mod r.
 *
 * Thread safety: constants are immutable once returned; every call here is
 * reentrant. Timing: hashing branches only on the (public) constants.
 */
#ifndef CUZK_FIL_POSEIDON_H
#define CUZK_FIL_POSEIDON_H

#include "cuzk/common.h"
#include "cuzk/field.h"
#include "cuzk/filecoin.h"
#include "cuzk/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* neptune implements Arity for U1..U36 (poseidon.rs impl_arity!). */
#define CZ_NEPTUNE_ARITY_MAX 36u
#define CZ_NEPTUNE_WIDTH_MAX (CZ_NEPTUNE_ARITY_MAX + 1u)

typedef enum {
    CZ_NEPTUNE_STANDARD = 0,     /* Strength::Standard (Filecoin's) */
    CZ_NEPTUNE_STRENGTHENED = 1  /* Strength::Strengthened: R_P · 1.25, rounded up */
} cz_neptune_strength;

/* neptune HashType, the ones neptune marks supported. Domain tags
 * (hash_type.rs HashType::domain_tag):
 *   MERKLE_TREE          2^arity − 1                 (type_param 0)
 *   CONSTANT_LENGTH(n)   n · 2^64                    (type_param n)
 *   ENCRYPTION           2^32                        (type_param 0)
 *   CUSTOM(id)           id · 2^40, id in 1..256     (type_param id;
 *                        SnapDeals' HASH_TYPE_GEN_RANDOMNESS is CUSTOM(1))
 *   SPONGE               0                           (type_param 0)
 * MerkleTreeSparse and VariableLength are unsupported by neptune itself. */
typedef enum {
    CZ_NEPTUNE_MERKLE_TREE = 0,
    CZ_NEPTUNE_CONSTANT_LENGTH = 1,
    CZ_NEPTUNE_ENCRYPTION = 2,
    CZ_NEPTUNE_CUSTOM = 3,
    CZ_NEPTUNE_SPONGE = 4
} cz_neptune_hash_type;

/* PoseidonConstants. All arrays are row-major and Montgomery form; they
 * belong to a process-lifetime cache shared by every struct of the same
 * (arity, strength), so a struct may be copied by value freely.
 *
 * Matrix convention (neptune's): a matrix P is applied to the state as the
 * row-vector product s' = s·P, i.e. s'[j] = Σ_i P[i][j]·s[i]. (mds is
 * symmetric, so for it this equals P·s; pre_sparse is not symmetric.)
 *
 * Evaluation (HashMode::OptimizedStatic, what neptune and its circuit use):
 *   s += crc[0..t)
 *   rounds 0..3 (full):   s[i] = s[i]^5 + crc[next t];  s = s·(r == 3 ? pre_sparse : mds)
 *   R_P partial rounds k: s[0] = s[0]^5 + crc[next 1];   s = s·S_k, where
 *                         s'[0] = Σ_i w_hat_k[i]·s[i], s'[j] = s[j] + v_rest_k[j−1]·s[0]
 *   3 full rounds:        s[i] = s[i]^5 + crc[next t];  s = s·mds
 *   last full round:      s[i] = s[i]^5;                 s = s·mds
 * with crc = compressed_round_constants (8t + R_P values, all consumed).
 * The plain form (HashMode::Correct): per round s += rc[r]; S-box (all
 * lanes, or lane 0 in a partial round); s = s·mds. */
typedef struct {
    unsigned arity;            /* A */
    unsigned width;            /* t = A + 1 */
    cz_neptune_strength strength;
    cz_neptune_hash_type hash_type;
    uint64_t type_param;       /* ConstantLength: length; Custom: id; else 0 */
    unsigned full_rounds;      /* R_F = 8 */
    unsigned half_full_rounds; /* R_F / 2 */
    unsigned partial_rounds;   /* R_P */
    cz_fr domain_tag;          /* state[0] of every hash */

    const cz_fr *round_constants;            /* (R_F + R_P)·t; row r = + r·t */
    const cz_fr *mds;                        /* t·t: m[i][j] = 1/(i + t + j) */
    const cz_fr *mds_inv;                    /* t·t: m^-1 */
    const cz_fr *compressed_round_constants; /* R_F·t + R_P */
    const cz_fr *pre_sparse;                 /* t·t */
    const cz_fr *sparse_w_hat;               /* R_P rows of t (SparseMatrix::w_hat) */
    const cz_fr *sparse_v_rest;              /* R_P rows of t−1 (SparseMatrix::v_rest) */
} cz_neptune_constants;

/* ---- round numbers (round_numbers.rs) ------------------------------------ */

/* calc_round_numbers(t, security_margin) exactly as neptune computes it —
 * in f32, with n = 256 and M = 128, including neptune's quirk that the
 * margin's R_F += 2 carries over to later R_P candidates of the same R_F
 * (results, as neptune's own test lists them: R_F = 8; R_P 55 for
 * t = 2..3, 56 for 4..7, 57 for 8..15, 59 for t = 16, 17, 25, 60 for
 * t = 37, 61 for t = 65). t in [2, 4095]; returns false otherwise. */
bool cz_neptune_calc_round_numbers(unsigned t, bool security_margin, unsigned *r_f, unsigned *r_p);
/* lib.rs round_numbers(arity, strength); false for arity outside 1..36. */
bool cz_neptune_round_numbers(unsigned arity, cz_neptune_strength s, unsigned *r_f, unsigned *r_p);

/* ---- constants -------------------------------------------------------------- */

/* PoseidonConstants::<Fr, A>::new() (MerkleTree, Standard) — Filecoin's
 * POSEIDON_CONSTANTS_<arity>. Generated on first use (thread safe: one
 * generation per arity even under concurrent first calls), then cached for
 * the life of the process. NULL for arity outside 1..36 or when allocation
 * fails (a later call retries). */
const cz_neptune_constants *cz_neptune_constants_get(unsigned arity);
/* The same for either strength (PoseidonConstants::new_with_strength). */
const cz_neptune_constants *cz_neptune_constants_get_strength(unsigned arity, cz_neptune_strength s);

/* PoseidonConstants::new_with_strength_and_type(strength, type): fills
 * the caller's *out (a value: its arrays are the cached ones above, so
 * there is nothing to free). type_param as documented at
 * cz_neptune_hash_type; CZ_ERR_INVALID_ARG for a bad arity, type or
 * param (Custom id outside 1..256, a nonzero param where none is taken),
 * CZ_ERR_NOMEM when generation fails. E.g. new_constant_length(n):
 * (arity, STANDARD, CONSTANT_LENGTH, n). */
CZ_WUR cz_status cz_neptune_constants_init(cz_neptune_constants *out, unsigned arity,
                                           cz_neptune_strength s, cz_neptune_hash_type type,
                                           uint64_t type_param);
/* HashType::domain_tag() for an arity (the arity matters for MerkleTree
 * only). CZ_ERR_INVALID_ARG as above. */
CZ_WUR cz_status cz_neptune_domain_tag(cz_fr *out, unsigned arity, cz_neptune_hash_type type,
                                       uint64_t type_param);

/* ---- permutation and hash ----------------------------------------------------
 * state has c->width elements; in place. The optimised (OptimizedStatic)
 * and plain (Correct) evaluations give the same permutation. */
void cz_neptune_permute(const cz_neptune_constants *c, cz_fr *state);
void cz_neptune_permute_plain(const cz_neptune_constants *c, cz_fr *state);

/* out = state[1] after permuting [domain_tag, in[0], …, in[arity−1]]:
 * Poseidon::new_with_preimage(in, c).hash() for a full preimage. Reads
 * exactly c->arity elements whatever the hash type. out may alias in.
 * No allocation. */
void cz_neptune_hash(cz_fr *out, const cz_neptune_constants *c, const cz_fr *in);
/* The same through the plain permutation (tests). */
void cz_neptune_hash_plain(cz_fr *out, const cz_neptune_constants *c, const cz_fr *in);

/* Poseidon::new_with_preimage(in[0..n), c).hash() with neptune's checks:
 * ConstantLength(len) needs n == len <= arity and zero-fills the lanes
 * after the preimage; every other type needs n == arity. Otherwise
 * CZ_ERR_INVALID_ARG (where neptune panics). */
CZ_WUR cz_status cz_neptune_hash_preimage(cz_fr *out, const cz_neptune_constants *c,
                                          const cz_fr *in, size_t n);

/* neptune's Simplex sponge on ConstantLength(n) constants: absorb in[0..n)
 * then squeeze one element (Sponge::new_with_constants(c, Simplex),
 * absorb × n, squeeze). Elements are ADDED into lanes 1..arity; the state
 * is permuted after each full block of `arity`; a final partial block is
 * padded by SETTING the lanes after it to zero (neptune apply_padding:
 * overwrites, not adds) before the last permutation; the output is lane 1.
 * For n <= arity this equals cz_neptune_hash_preimage. Requires
 * c->hash_type == CONSTANT_LENGTH with type_param == n >= 1, else
 * CZ_ERR_INVALID_ARG. No allocation. */
CZ_WUR cz_status cz_neptune_sponge_hash(cz_fr *out, const cz_neptune_constants *c,
                                        const cz_fr *in, size_t n);

/* out[k] = cz_neptune_hash(c, in + k·arity) for k < count, spread over
 * pool (NULL: serial). out must not overlap in. */
void cz_neptune_hash_batch(cz_fr *out, const cz_neptune_constants *c, const cz_fr *in,
                           size_t count, cz_pool *pool);

/* ---- filecoin-hashers PoseidonHasher ---------------------------------------- */

/* PoseidonFunction::hash2(a, b): arity-2 MerkleTree hash (comm_r =
 * hash2(comm_c, comm_r_last) uses it). out may alias a or b. */
CZ_WUR cz_status cz_fil_poseidon_hash2(cz_fil_domain *out, const cz_fil_domain *a,
                                       const cz_fil_domain *b);

/* PoseidonFunction::node / ::multi_node (shared_hash_frs): the MerkleTree
 * hash of n ∈ {2, 4, 8, 16} domain elements — a node of a binary, quad,
 * oct or 16-ary Poseidon tree (tree R: 8; tree C: 8; top levels: 2).
 * Other n: CZ_ERR_INVALID_ARG (the reference panics, n = 1 included).
 * out may alias parts. */
CZ_WUR cz_status cz_fil_poseidon_hash_node(cz_fil_domain *out, const cz_fil_domain *parts, unsigned n);

/* A whole tree level: out[k] = node(in + k·arity, arity), k < count,
 * arity ∈ {2, 4, 8, 16}, spread over pool (NULL: serial). On
 * CZ_ERR_NOT_CANONICAL some outputs may have been written. out must not
 * overlap in. */
CZ_WUR cz_status cz_fil_poseidon_hash_nodes(cz_fil_domain *out, const cz_fil_domain *in, size_t count,
                                       unsigned arity, cz_pool *pool);

/* PoseidonFunction::hash(data) (HashFunction::hash on bytes, used by
 * Hashable::hash / StdHasher::write): data is cut into 32-byte domain
 * elements, whose count must be 2, 4, 8 or 16 (len = 64, 128, 256, 512),
 * then hashed as cz_fil_poseidon_hash_node. Other lengths: CZ_ERR_INVALID_ARG (reference:
 * panic). Not used by PoRep itself. */
CZ_WUR cz_status cz_fil_poseidon_hash_bytes(cz_fil_domain *out, const uint8_t *data, size_t len);

/* PoseidonFunction::hash_md(input), n > 1: a Merkle–Damgård chain over
 * POSEIDON_MD_CONSTANTS (arity 36, MerkleTree tag 2^36 − 1): acc = in[0];
 * for each chunk of up to 35 following elements, acc = hash([acc, chunk,
 * zeros...]). The last chunk is zero-padded under the MerkleTree tag (no
 * length tag). Not used by PoRep (only by filecoin-hashers' own test). */
CZ_WUR cz_status cz_fil_poseidon_hash_md(cz_fil_domain *out, const cz_fil_domain *in, size_t n);

/* storage-proofs-porep stacked::vanilla::hash::hash_single_column: the
 * column of n = layers labels of one node, hashed with
 * POSEIDON_CONSTANTS_2 for n = 2 and POSEIDON_CONSTANTS_11 for n = 11
 * (MerkleTree tags 3 and 2047); other n: CZ_ERR_INVALID_ARG (reference:
 * panic). The Fr form takes the column as the reference does; the domain
 * form refuses non-canonical rows. out may alias column/rows. */
CZ_WUR cz_status cz_fil_hash_single_column(cz_fr *out, const cz_fr *column, unsigned n);
CZ_WUR cz_status cz_fil_poseidon_hash_column(cz_fil_domain *out, const cz_fil_domain *rows, unsigned n);

/* Tree C's leaves: out[k] = hash_column([layers[0][k], …,
 * layers[nlayers−1][k]]) for k < count, nlayers ∈ {2, 11}; layers[l]
 * points at the labels of layer l + 1 (layer-major, as the sealer keeps
 * them). Spread over pool (NULL: serial). out must not overlap the layers. */
CZ_WUR cz_status cz_fil_poseidon_hash_columns(cz_fil_domain *out, const cz_fil_domain *const *layers,
                                     unsigned nlayers, size_t count, cz_pool *pool);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_POSEIDON_H */
