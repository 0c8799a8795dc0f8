/*
 * cuzk — Poseidon permutation and hash over the BLS12-381 scalar field Fr
 * — the native twin and the in-circuit gadget (cuzk/circuit.h).
 *
 * Instance: x^5 S-box, R_F = 8 full rounds (4 before, 4 after the partial
 * rounds), R_P partial rounds (S-box on lane 0 only), an MDS multiplication
 * in every round (the last included). Round r: state += rc[r]; S-box;
 * state = MDS·state with new[i] = Σ_j mds[i][j]·state[j].
 *
 * Parameters are generated here, in C, by the Grain LFSR procedure of the
 * Poseidon reference (generate_parameters_grain.sage) with the S-box seed
 * bits = 1 — the procedure that reproduces the files in tests/vectors/poseidon/
 * byte for byte (see tests/vectors/README.md and the comment in poseidon.c).
 * These are NOT Filecoin/neptune parameters (neptune's MDS is a fixed
 * Cauchy matrix and its round numbers differ for t = 2, 3), so hashes are
 * PoRep-shaped, not byte-compatible with Filecoin.
 *
 * Hash convention of the project: a hash of exactly t−1 elements
 * x_1..x_{t−1} is state = [2^(t−1) − 1, x_1, …, x_{t−1}], one permutation,
 * output state[1]. Arity t−1 Merkle nodes, column hashes and
 * comm_r = H(comm_c, comm_r_last) (t = 3) all use it.
 *
 * Form: every cz_fr is Montgomery form, reduced (field.h).
 * Timing: the native permutation and hash branch on t only, so they are
 * constant time in the state values (the field ops are); PoRep data is
 * public anyway. Parameter generation is variable time (public data).
 */
#ifndef CUZK_POSEIDON_H
#define CUZK_POSEIDON_H

#include "cuzk/common.h"
#include "cuzk/field.h"
#include "cuzk/circuit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Supported widths. The upper bound is where the round-number rule below
 * was checked against the reference search and where the reference's
 * MDS security tests (algorithms 1–3, not re-implemented in C) were checked
 * to accept the first Cauchy matrix drawn (by the Python generator of the
 * vectors in tests/vectors/poseidon; tests/vectors/README.md). */
#define CZ_POSEIDON_T_MIN 2u
#define CZ_POSEIDON_T_MAX 24u
#define CZ_POSEIDON_R_F 8u

typedef struct cz_poseidon_params {
    unsigned t;      /* width */
    unsigned r_f;    /* full rounds (8) */
    unsigned r_p;    /* partial rounds */
    /* Plain parameters (exactly the JSON files' content):
     * rc: (r_f + r_p)·t round constants, row r = rc + r·t;
     * mds: t·t, row-major. */
    const cz_fr *rc;
    const cz_fr *mds;
    /* Optimised partial rounds (see poseidon.c): constants folded onto
     * lane 0 and the MDS of each partial round factored into a sparse
     * matrix times a block-diagonal one carried forward. Internal layout;
     * only cz_poseidon_permute and the gadget read these. */
    const cz_fr *opt_rc_full2;   /* t: constants of the first round after the partial block */
    const cz_fr *opt_rc_partial; /* r_p: lane-0 constant of each partial round */
    const cz_fr *opt_sparse;     /* r_p rows of 2(t−1): w (row 0 tail), then v (column 0 tail) */
    const cz_fr *opt_tail;       /* (t−1)²: block applied to lanes 1.. after the partial block */
    cz_fr domain_tag;            /* 2^(t−1) − 1, the hash's capacity element */
} cz_poseidon_params;

/* R_P for width t by the round-number rule of the reference search
 * (calc_round_numbers.py: n = 255, α = 5, M = 128, security margin): 56 for
 * t ≤ 5, 57 for 6 ≤ t ≤ 25. Returns 0 for t outside [T_MIN, T_MAX]. */
unsigned cz_poseidon_partial_rounds(unsigned t);

/* The parameters for width t, generated on first use and cached for the
 * life of the process (thread safe; concurrent first calls generate once).
 * Returns NULL for t outside [CZ_POSEIDON_T_MIN, CZ_POSEIDON_T_MAX] or when
 * allocation fails. The pointer stays valid until process exit. */
const cz_poseidon_params *cz_poseidon_params_get(unsigned t);

/* Raw Grain-LFSR generation for an arbitrary (t, r_f, r_p, sbox_bits)
 * (tests and experiments: e.g. sbox_bits = 0 gives the hadeshash reference
 * instances). rc receives (r_f + r_p)·t elements, mds t·t, both Montgomery.
 * t in [2, 4095], r_f, r_p < 1024, sbox_bits < 16. No security check of
 * the MDS is made (see CZ_POSEIDON_T_MAX). */
CZ_WUR cz_status cz_poseidon_generate(cz_fr *rc, cz_fr *mds, unsigned t, unsigned r_f,
                                      unsigned r_p, unsigned sbox_bits);

/* In-place permutation of state[0..t−1] (optimised evaluation; equal to
 * the plain one). */
void cz_poseidon_permute(const cz_poseidon_params *p, cz_fr *state);
/* The same permutation evaluated literally (round by round, dense MDS):
 * the reference the optimised form is tested against. */
void cz_poseidon_permute_plain(const cz_poseidon_params *p, cz_fr *state);

/* out = H(in[0..t−2]) by the hash convention above. out may alias in. */
void cz_poseidon_hash(cz_fr *out, const cz_poseidon_params *p, const cz_fr *in);

/* ---- gadgets ---------------------------------------------------------------
 * The same permutation in a circuit. Cost: 3 constraints per S-box on a
 * non-constant lane (x², x⁴, x⁵ = x⁴·x), so 3·(8t + R_P) per permutation;
 * the linear layers are free (the state is carried as linear combinations
 * over the S-box outputs, merged per variable, so they never grow beyond
 * t + R_P terms). An S-box whose input is a known constant (the hash's
 * domain-tag lane in round 0) costs nothing: 3·(8t + R_P) − 3 per hash.
 *
 * Inputs are linear combinations with their values given separately
 * (in_val, because LCs are inactive in witness mode and cannot be
 * evaluated there). in_val may be NULL when !cz_cs_has_values(cs) (zeros
 * are used); when it does not match the LCs, the first S-box constraint
 * fails. Outputs: out[] are initialised by the gadget (caller frees them
 * with cz_lc_free) and are LCs of the last round's S-box outputs (no
 * output variable, no constraint); out_val (may be NULL) receives the
 * values. out must not alias in.
 *
 * Scope: constraints are named <caller scope>/poseidon/round[r]/sbox[j]/
 * x2|x4|x5 (rounds numbered from 0 over all R_F + R_P rounds).
 * Errors: p or in NULL makes the cs fail (CZ_ERR_INVALID_ARG, sticky);
 * out[] are then empty LCs (nothing is written when p is NULL: the count
 * is unknown). Allocation failure: CZ_ERR_NOMEM, sticky. */
void cz_poseidon_permute_gadget(cz_cs *cs, const cz_poseidon_params *p, const cz_lc *in,
                                const cz_fr *in_val, cz_lc *out, cz_fr *out_val);
/* Hash of t−1 elements (the convention above): out = state[1] after the
 * permutation of [2^(t−1) − 1, in...]. One LC out (initialised here; free
 * it), its value in *out_val (may be NULL). */
void cz_poseidon_hash_gadget(cz_cs *cs, const cz_poseidon_params *p, const cz_lc *in,
                             const cz_fr *in_val, cz_lc *out, cz_fr *out_val);
/* Constraints one call of the gadgets adds, for width t (0 if t is not
 * supported): permutation with no constant input lane, and hash. */
size_t cz_poseidon_permute_constraints(unsigned t);
size_t cz_poseidon_hash_constraints(unsigned t);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_POSEIDON_H */
