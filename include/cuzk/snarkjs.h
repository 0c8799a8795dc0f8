/*
 * cuzk — snarkjs / circom file formats for BLS12-381 (snarkjs 0.7.x):
 * .r1cs (circuit), .wtns (witness), .zkey (Groth16 proving key) and the JSON
 * forms of proofs, public inputs and verifying keys.
 *
 * Binary files: 4-byte magic, u32 version, u32 section count, then sections
 * (u32 id, u64 byte length) in any order; little-endian throughout. A
 * section this reader needs must appear exactly once; unknown sections are
 * skipped. Every length is checked against the file before anything is
 * allocated, and a file whose prime is not BLS12-381's is refused.
 *
 * Value encodings (docs/design.md §3.5):
 *   .r1cs coefficients, .wtns values: canonical 32-byte LE (must be < r);
 *   .zkey §4 coefficients: c·R² mod r (R = 2^256) — parsed to c;
 *   .zkey points: affine, 48-byte LE Montgomery coordinates (R = 2^384),
 *   infinity = all zeros, G2 = x.c0‖x.c1‖y.c0‖y.c1.
 * Parsed values are cuzk's Montgomery form (cz_fr, cz_g1_affine, ...).
 *
 * Point validation: the zkey readers check every point is canonical, and
 * the verifying key's points (header and IC) are on their curve and in
 * their prime-order subgroups. The query points (A, B1, B2, C, H) are
 * tested for their curve and subgroup too, unless a flag says otherwise:
 *   CZ_SNARKJS_NO_SUBGROUP_CHECK: on the curve, not the subgroup test
 *     (~25 µs a G1 point: about 70 s of a 2^20 key's 75 s of reading on
 *     two cores);
 *   CZ_SNARKJS_NO_QUERY_CHECK: neither (the curve test, three products a
 *     G1 point, was ~10 % of a `cuzk prove --zkey` process at 2^18-2^20).
 * Decoding and checks run in parallel on `pool` (may be NULL).
 * cz_snarkjs_prove is safe on a key read either way: see there.
 *
 * All parse functions work on caller-owned memory (buf, len), so fuzz targets
 * drive them directly; the read functions map a file and call them.
 * Errors: a cz_status plus a message in err naming the section and field.
 */
#ifndef CUZK_SNARKJS_H
#define CUZK_SNARKJS_H

#include "cuzk/curve.h"
#include "cuzk/groth16.h"
#include "cuzk/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- .r1cs --------------------------------------------------------------- */
/* One matrix in CSR form: row i has terms [row_ptr[i], row_ptr[i+1]). */
typedef struct {
    uint64_t *row_ptr; /* n_constraints + 1 */
    uint32_t *col;     /* wire index, < n_wires */
    cz_fr *val;        /* coefficient, Montgomery form */
} cz_snarkjs_csr;

typedef struct {
    uint32_t n_wires;       /* including wire 0 = constant 1 */
    uint32_t n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
    cz_snarkjs_csr m[3];            /* A, B, C */
} cz_snarkjs_r1cs;

CZ_WUR cz_status cz_snarkjs_r1cs_parse(cz_snarkjs_r1cs **out, const uint8_t *buf, size_t len, cz_errbuf *err);
CZ_WUR cz_status cz_snarkjs_r1cs_read(cz_snarkjs_r1cs **out, const char *path, cz_errbuf *err);
void cz_snarkjs_r1cs_free(cz_snarkjs_r1cs *r);
/* Number of public signals (outputs then public inputs; wire 0 excluded). */
uint32_t cz_snarkjs_r1cs_n_public(const cz_snarkjs_r1cs *r);
/* Checks <A_i,w>·<B_i,w> = <C_i,w> for every constraint. On failure returns
 * CZ_ERR_UNSATISFIED, *bad = first failing constraint, and err names it.
 * n must equal n_wires; w[0] must be 1. */
CZ_WUR cz_status cz_snarkjs_r1cs_check(const cz_snarkjs_r1cs *r, const cz_fr *w, size_t n,
                                       size_t *bad, cz_errbuf *err);

/* ---- .wtns --------------------------------------------------------------- */
typedef struct {
    uint32_t n;   /* number of values (wires) */
    cz_fr *w;     /* Montgomery form; w[0] is 1 for a circom witness */
} cz_snarkjs_wtns;

/* Values are decoded on pool (NULL: serially); a value >= r is refused
 * (CZ_ERR_NOT_CANONICAL) and the first in file order is named, whatever
 * the thread count. */
CZ_WUR cz_status cz_snarkjs_wtns_parse(cz_snarkjs_wtns **out, const uint8_t *buf, size_t len, cz_pool *pool,
                                       cz_errbuf *err);
CZ_WUR cz_status cz_snarkjs_wtns_read(cz_snarkjs_wtns **out, const char *path, cz_pool *pool, cz_errbuf *err);
/* Writes a version-2 .wtns file. */
CZ_WUR cz_status cz_snarkjs_wtns_write(const char *path, const cz_fr *w, size_t n, cz_errbuf *err);
void cz_snarkjs_wtns_free(cz_snarkjs_wtns *w);

/* ---- .zkey (Groth16) ----------------------------------------------------- */
typedef struct {
    uint32_t matrix;     /* 0 = A, 1 = B */
    uint32_t constraint; /* row, < domain_size */
    uint32_t signal;     /* wire, < n_vars */
    cz_fr value;         /* c (Montgomery form of the plain coefficient) */
} cz_zkey_coef;

typedef struct {
    uint32_t n_vars, n_public, domain_size; /* n_public excludes the constant 1 */
    cz_g1_affine alpha1, beta1, delta1;
    cz_g2_affine beta2, gamma2, delta2;
    cz_g1_affine *ic;     /* n_public + 1 */
    size_t n_coefs;
    cz_zkey_coef *coefs;  /* §4, in file order (NULL when read with CZ_SNARKJS_COEF_RECORDS) */
    /* §4 as the file holds it, when read with CZ_SNARKJS_COEF_RECORDS: n_coefs
     * records of 44 bytes (u32 matrix, constraint, signal; the value c·R^2
     * mod r, 32 bytes LE), each checked like a decoded one; they point into
     * the buffer given to cz_snarkjs_zkey_parse (which must then outlive the
     * key) or into the file mapping that cz_snarkjs_zkey_read keeps. */
    const uint8_t *coef_rec;
    /* Set by the parser: the terms of each (matrix, constraint) lie
     * together in §4, as snarkjs writes them (constraint by constraint)
     * and cuzk does (row by row, A's then B's), so that the evaluation of
     * a, b can give each thread a range of terms of its own instead of
     * every thread scanning them all for its rows. false is always safe. */
    bool coef_grouped;
    const uint8_t *map_;  /* private: the mapping cz_snarkjs_zkey_free unmaps */
    size_t map_len_;
    cz_g1_affine *a;      /* §5, n_vars */
    cz_g1_affine *b1;     /* §6, n_vars */
    cz_g2_affine *b2;     /* §7, n_vars */
    cz_g1_affine *c;      /* §8, n_vars - n_public - 1 (private signals) */
    cz_g1_affine *h;      /* §9, domain_size: snarkjs's H (odd coset of 2n) */
} cz_snarkjs_zkey;

/* CZ_SNARKJS_COEF_RECORDS: the §4 coefficients are checked but not
 * decoded into coefs; cz_snarkjs_eval_abc reads the records instead. Why:
 * a one-shot `cuzk prove --zkey` uses them once, and the decoded array
 * (48 bytes a coefficient: 256 MB for a 2^20 key's 5.3 M) cost a pass that
 * wrote it and a pass that read it back; a key that proves many times
 * decodes once and saves one product a coefficient a proof. */
enum { CZ_SNARKJS_NO_SUBGROUP_CHECK = 1, CZ_SNARKJS_NO_QUERY_CHECK = 2, CZ_SNARKJS_COEF_RECORDS = 4 };

CZ_WUR cz_status cz_snarkjs_zkey_parse(cz_snarkjs_zkey **out, const uint8_t *buf, size_t len,
                                       unsigned flags, cz_pool *pool, cz_errbuf *err);
CZ_WUR cz_status cz_snarkjs_zkey_read(cz_snarkjs_zkey **out, const char *path,
                                      unsigned flags, cz_pool *pool, cz_errbuf *err);
/* Writes a Groth16 .zkey that snarkjs 0.7 reads (sections 1-9 and an empty
 * contributions section 10). */
CZ_WUR cz_status cz_snarkjs_zkey_write(const char *path, const cz_snarkjs_zkey *z, cz_errbuf *err);
/* The query points' tests that CZ_SNARKJS_NO_SUBGROUP_CHECK or
 * CZ_SNARKJS_NO_QUERY_CHECK skipped (with IC's again): each point on its
 * curve, then in its prime-order subgroup, in parallel on pool.
 * CZ_ERR_NOT_ON_CURVE or CZ_ERR_NOT_IN_SUBGROUP naming the first failing
 * point in file order ("zkey: H (section 9) point 12 is not on its
 * curve"). */
CZ_WUR cz_status cz_snarkjs_zkey_check_points(const cz_snarkjs_zkey *z, cz_pool *pool, cz_errbuf *err);
void cz_snarkjs_zkey_free(cz_snarkjs_zkey *z);

/* ---- JSON ---------------------------------------------------------------- */
/* Decimal strings of canonical integers; points projective with z = 1
 * (G2 coordinates c0 first); "curve": "bls12381". Readers refuse values
 * >= the modulus, z != 1, a wrong curve or protocol, and points that are
 * not on the curve / in the subgroup. Returned strings are malloc'd. */
typedef struct { cz_g1_affine a; cz_g2_affine b; cz_g1_affine c; } cz_groth16_proof_pts;

CZ_WUR cz_status cz_snarkjs_proof_to_json(char **json, const cz_groth16_proof_pts *p);
CZ_WUR cz_status cz_snarkjs_proof_from_json(cz_groth16_proof_pts *p, const char *json, cz_errbuf *err);
CZ_WUR cz_status cz_snarkjs_public_to_json(char **json, const cz_fr *x, size_t n);
/* *x malloc'd, *n set. */
CZ_WUR cz_status cz_snarkjs_public_from_json(cz_fr **x, size_t *n, const char *json, cz_errbuf *err);
/* vk JSON as `snarkjs zkey export verificationkey` writes it. alphabeta may
 * be NULL (then vk_alphabeta_12 is omitted). */
CZ_WUR cz_status cz_snarkjs_vk_to_json(char **json, const cz_g1_affine *alpha1, const cz_g2_affine *beta2,
                                       const cz_g2_affine *gamma2, const cz_g2_affine *delta2,
                                       const cz_g1_affine *ic, size_t n_ic, const cz_fp12 *alphabeta);
typedef struct {
    cz_g1_affine alpha1;
    cz_g2_affine beta2, gamma2, delta2;
    cz_g1_affine *ic; /* malloc'd, n_public + 1 */
    size_t n_public;
} cz_snarkjs_vk;
CZ_WUR cz_status cz_snarkjs_vk_from_json(cz_snarkjs_vk *vk, const char *json, cz_errbuf *err);
void cz_snarkjs_vk_clear(cz_snarkjs_vk *vk);

/* ---- proving and verifying with snarkjs keys ---------------------------------
 * The prover of snarkjs 0.7 (groth16_prove.js), over a parsed .zkey and a
 * witness (all n_vars wire values, w[0] = 1): a, b from the §4 coefficients,
 * c = a∘b; H scalars = A·B − C evaluated on the odd coset of the 2n domain
 * (iNTT, multiply coefficient i by w_2n^i, NTT); MSMs over §5–§9;
 *   pi_a = alpha1 + A + r delta1, pi_b = beta2 + B2 + s delta2,
 *   pi_c = C + H + s pi_a + r (beta1 + B1 + s delta1) − r s delta1.
 * A witness that does not satisfy the circuit cannot be detected from the
 * zkey alone (it has no C matrix): the proof is self-verified and
 * CZ_ERR_UNSATISFIED ("witness does not satisfy the circuit") returned if
 * it fails. The MSM sums are first tested for the curve, and the proof's
 * A, C for G1's subgroup and B for G2's (CZ_ERR_NOT_IN_SUBGROUP if one
 * fails: the key has a query point off its curve or outside its subgroup,
 * which cz_snarkjs_zkey_check_points then names).
 * That is why z may have been read with CZ_SNARKJS_NO_SUBGROUP_CHECK: each
 * proof point is a linear combination of query points, so its component
 * outside the prime-order subgroup is the same combination of theirs; it
 * is either zero — the point is then exactly what the key's subgroup parts
 * give, and the pairing check decides — or the proof is refused, so no
 * such component (which would carry witness bits) is ever returned.
 * And why it may have been read with CZ_SNARKJS_NO_QUERY_CHECK: a query
 * point reaches the proof only through the four MSM sums (A, B1, B2, and
 * C + H), and each sum is tested for the curve as the MSMs return
 * (CZ_ERR_NOT_IN_SUBGROUP, as above, if one is off it). From there on
 * everything is group arithmetic on points of the curve, so a sum on the
 * curve, however a bad point made it, is what a key with wrong points on
 * the curve would give, and the argument above applies
 * (docs/design.md §7.5).
 * test_rs: TEST ONLY fixed {r, s}; NULL draws them from the OS.
 * TIMING: the witness is handled in VARIABLE time (the a, b evaluation,
 * the NTTs and Pippenger MSMs branch and index on the scalars, and zero/one
 * values take shortcuts), as everywhere in cuzk. That suits PoRep, whose
 * witness is public, but a circom witness is often private: an attacker
 * who can time the prover or share its cache (same host, co-tenant VM) may
 * learn about the private inputs. Only r and s get constant-time code (and
 * the copies of r, s and the blinded points are wiped). Prove private
 * witnesses only on a machine nobody else runs code on. */
CZ_WUR cz_status cz_snarkjs_prove(cz_groth16_proof_pts *proof, const cz_snarkjs_zkey *z, const cz_fr *w, size_t n,
                                  cz_pool *pool, const cz_fr *test_rs, cz_errbuf *err);
/* A key's queries as the bases of precomputed MSM tables
 * (cz_groth16_tables_build, cz_groth16_tables_plan_counts): H = §9
 * (domain_size points), L = C, §8 (the private signals), A = §5, B_G1 =
 * §6, B_G2 = §7 (n_vars points each). The arrays are z's. */
void cz_snarkjs_zkey_tables_bases(const cz_snarkjs_zkey *z, const void *bases[CZ_GROTH16_NQ],
                                  size_t n[CZ_GROTH16_NQ]);
/* Where one proof's wall time went, in ms (`cuzk prove --zkey --timings`).
 * When a proof made with tables is made again without them, the figures
 * are the second proof's. */
typedef struct {
    double abc_ms;      /* the witness as MSM scalars; a, b from §4 and c = a∘b */
    double quotient_ms; /* (A·B − C) on the odd coset, gathered into snarkjs's H order */
    double msm_a_ms, msm_b1_ms, msm_b2_ms;
    double msm_ch_ms;   /* C and H in one MSM */
    double finish_ms;   /* r, s and the assembly; the proof's subgroup tests and self-verification */
} cz_snarkjs_prove_timings;
/* cz_snarkjs_prove with precomputed tables of z's queries (tabs over the
 * bases cz_snarkjs_zkey_tables_bases gives; NULL: none; a query without a
 * set runs the plain MSM): the same proof for the same r, s. Tables are
 * trusted no more than the key: every proof is self-verified as above, and
 * one made with tabs that fails that check is made again without them.
 * If that one passes, the tables were wrong (a corrupt table file): CZ_OK
 * with *tables_bad set, so the caller can drop them; otherwise its error
 * (the witness or the key), *tables_bad false. CZ_ERR_MISMATCH when a set
 * is over another number of bases than the key's query. timings may be
 * NULL. */
CZ_WUR cz_status cz_snarkjs_prove_tables(cz_groth16_proof_pts *proof, const cz_snarkjs_zkey *z,
                                         const cz_groth16_tables *tabs, const cz_fr *w, size_t n, cz_pool *pool,
                                         const cz_fr *test_rs, bool *tables_bad, cz_snarkjs_prove_timings *timings,
                                         cz_errbuf *err);
/* A .zkey for cuzk's own parameters: p from cz_groth16_setup of pce, h_odd
 * the odd-coset H query that setup returned (cz_groth16_setup_opts.h_odd_out).
 * snarkjs can then prove (with a .wtns of inputs ‖ aux, written by
 * cz_snarkjs_wtns_write) and verify cuzk's circuits. */
CZ_WUR cz_status cz_snarkjs_zkey_from_params(cz_snarkjs_zkey **out, const cz_groth16_params *p, const cz_pce *pce,
                                             const cz_g1_affine *h_odd, cz_errbuf *err);
/* A snarkjs .zkey as cuzk parameters (bellperson layout: H converted by a
 * G1 DFT of §9) plus the circuit shape cuzk's prover needs (counts and
 * density bitmaps only: no matrices; evaluate a, b, c with
 * cz_snarkjs_eval_abc). Both malloc'd (cz_groth16_params_free,
 * cz_pce_free). The DFT costs n/2·log2 n G1 scalar multiplications. */
CZ_WUR cz_status cz_snarkjs_zkey_to_params(const cz_snarkjs_zkey *z, cz_pool *pool, cz_groth16_params **params,
                                           cz_pce **shape, cz_errbuf *err);
/* a, b from the §4 coefficients and c = a∘b, in cuzk's row order (domain
 * size elements each), for proving with cz_snarkjs_zkey_to_params output.
 * In parallel on pool (may be NULL); the result does not depend on it, nor
 * on whether z holds decoded coefficients or records
 * (CZ_SNARKJS_COEF_RECORDS: then the witness is also taken out of
 * Montgomery form first, a temporary of 32 bytes a value). */
CZ_WUR cz_status cz_snarkjs_eval_abc(const cz_snarkjs_zkey *z, const cz_fr *w, size_t n, cz_fr *a, cz_fr *b,
                                     cz_fr *c, cz_pool *pool, cz_errbuf *err);
/* The verifying key of a zkey in cuzk's form (ic copied, malloc'd). */
CZ_WUR cz_status cz_snarkjs_zkey_vk(cz_groth16_vk *vk, const cz_snarkjs_zkey *z);
/* A snarkjs JSON verifying key in cuzk's form (beta_g1/delta_g1 unset:
 * the verifier does not use them). */
CZ_WUR cz_status cz_snarkjs_vk_to_groth16(cz_groth16_vk *vk, const cz_snarkjs_vk *in);

/* Decimal <-> canonical little-endian limbs (n limbs): helpers shared by
 * the JSON code; from_dec refuses non-digits, empty strings and overflow. */
CZ_WUR cz_status cz_dec_to_limbs(uint64_t *limbs, size_t n, const char *dec);
/* out must hold 20·n + 1 bytes. */
void cz_limbs_to_dec(char *out, const uint64_t *limbs, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_SNARKJS_H */
