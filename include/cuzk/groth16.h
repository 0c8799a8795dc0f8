/*
 * cuzk — Groth16 over BLS12-381: trusted setup from a recorded circuit,
 * parameter files (bellperson layout), the split prover, the verifier and
 * proof encodings.
 *
 * Notation (docs/design.md §2). A circuit recorded as a PCE (cuzk/circuit.h) has
 * n_inputs public inputs (input 0 = 1), n_aux private variables and
 * n_constraints rows including one appended row x_i·0 = 0 per input, so
 * every input appears in A. The domain size m is the smallest power of two
 * >= n_constraints. With u_j, v_j, w_j the QAP polynomials of variable j
 * evaluated at tau:
 *   a    = [u_j]_1 for every input, then for aux j with A-density     (G1)
 *   b_g1 = [v_j]_1 for B-dense inputs, then B-dense aux               (G1)
 *   b_g2 = [v_j]_2, same indexing                                     (G2)
 *   ic   = [(beta u_j + alpha v_j + w_j)/gamma]_1, inputs             (G1)
 *   l    = [(beta u_j + alpha v_j + w_j)/delta]_1, aux                (G1)
 *   h    = [tau^i (tau^m - 1)/delta]_1, i = 0 .. m-2                  (G1)
 * Density is decided by nonzero coefficients after merging duplicate
 * terms (the PCE's bitmaps); the compacted query lengths must equal the
 * bitmap popcounts, and every loader checks it (a mismatch would shift
 * every later base and fail silently).
 *
 * Prover: prove_start runs the quotient (6 NTTs), the H, L, A and B_G1
 * MSMs (H and L as one MSM over both queries: they enter C with the same
 * coefficient), frees a, b, c as soon as the NTTs are done, and starts the B_G2
 * MSM on the executor the caller passes; prove_finish joins it and
 * assembles the proof with fresh r, s:
 *   A = alpha_1 + A_msm + r delta_1
 *   B = beta_2 + B2_msm + s delta_2
 *   C = s A + r (beta_1 + B1_msm + s delta_1) - r s delta_1 + H_msm + L_msm
 * r, s and the toxic waste are secrets: constant-time scalar multiplication,
 * wiped after use. The witness is public (PoRep) and handled in variable
 * time (Pippenger, NTT, the 0/1 split).
 */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include "cuzk/circuit.h"
#include "cuzk/curve.h"
#include "cuzk/msm.h"
#include "cuzk/pairing.h"
#include "cuzk/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZ_GROTH16_PROOF_BYTES 192

typedef struct {
    cz_g1_affine alpha_g1, beta_g1, delta_g1;
    cz_g2_affine beta_g2, gamma_g2, delta_g2;
    cz_g1_affine *ic; /* n_ic = n_inputs (input 0 included) */
    size_t n_ic;
} cz_groth16_vk;

/* Proving parameters in the provers' in-memory form (affine, Montgomery).
 * Immutable once loaded; share read-only across provers. */
typedef struct cz_groth16_params {
    cz_groth16_vk vk;
    cz_g1_affine *h;    size_t n_h;  /* m - 1 */
    cz_g1_affine *l;    size_t n_l;  /* n_aux */
    cz_g1_affine *a;    size_t n_a;  /* n_inputs + popcount(A-density aux) */
    cz_g1_affine *b_g1; size_t n_b;  /* popcount(B inputs) + popcount(B aux) */
    cz_g2_affine *b_g2;              /* n_b */
    /* How the arrays are owned: CZ_GROTH16_STORAGE_MALLOC (each array
     * malloc'd) or CZ_GROTH16_STORAGE_MAPPED (all arrays point into one
     * read-only mapping of storage_bytes at storage, e.g. a params cache). */
    void *storage;
    size_t storage_bytes;
    int storage_kind;
    /* Optional precomputed multiples of the bases
     * (cz_groth16_params_build_tables): owned, freed with the parameters;
     * the prover uses them when present. */
    struct cz_groth16_tables *tables;
} cz_groth16_params;
#define CZ_GROTH16_STORAGE_MALLOC 0
#define CZ_GROTH16_STORAGE_MAPPED 1

void cz_groth16_params_free(cz_groth16_params *p);
/* Bytes held in memory by the parameters (for the memory budget). */
size_t cz_groth16_params_bytes(const cz_groth16_params *p);
/* Domain size m implied by the parameters (n_h + 1). */
size_t cz_groth16_params_domain(const cz_groth16_params *p);

/* ---- precomputed tables of the queries' bases ------------------------------ */
/* The bases of a parameter set serve every proof, so shifted copies of
 * them (cz_msm_gX_tables: t tables of 2^(j·bits)·P) can be made once and
 * each MSM then pays one or two bucket reductions instead of 16-20
 * (cuzk/msm.h has the measured gains: G1 1.12-1.40x at 2^14-2^18 points,
 * G2 1.23-1.26x at 2^16, ~5 % from 2^20 on, where no table is planned).
 * Queries: H, L, the aux parts of A, B_G1 and B_G2 (the input parts are
 * a few points). */
enum { CZ_GROTH16_Q_H = 0, CZ_GROTH16_Q_L, CZ_GROTH16_Q_A, CZ_GROTH16_Q_B_G1, CZ_GROTH16_Q_B_G2, CZ_GROTH16_NQ };

typedef struct {
    size_t n[CZ_GROTH16_NQ];       /* bases of each query */
    unsigned t[CZ_GROTH16_NQ];     /* tables per query; 0 = none for it */
    unsigned bits[CZ_GROTH16_NQ];
    uint64_t bytes;                /* every table together (what they add to the parameters) */
} cz_groth16_tables_plan;

/* The tables for the circuit pce within max_bytes on pool's threads: the
 * queries in the order their MSMs cost (H, B_G2, A, B_G1, L), each the
 * shape cz_msm_gX_tables_shape prices best in what is left (H with
 * cz_msm_opts.tables_wide: its scalars are full width in every proof); a
 * query of fewer than 4096 bases gets none. Deterministic: the same inputs give the
 * same plan on one machine (the memory estimate made before a load is the
 * load's; the last-level cache size it reports enters H's shape, and a
 * table file planned elsewhere is rebuilt, as for another limit). */
void cz_groth16_tables_plan_for(cz_groth16_tables_plan *plan, const cz_pce *pce, uint64_t max_bytes,
                                const cz_pool *pool);

/* The same plan from the queries' base counts alone (n[q] for H, L, A,
 * B_G1, B_G2), for bases that are not a cuzk parameter set (a snarkjs
 * .zkey's: cuzk/snarkjs.h); cz_groth16_tables_plan_for is this with the
 * counts of pce. */
void cz_groth16_tables_plan_counts(cz_groth16_tables_plan *plan, const size_t n[CZ_GROTH16_NQ],
                                   uint64_t max_bytes, const cz_pool *pool);

/* A table set per planned query, over bases the caller keeps: bases[q]
 * (plan->n[q] points: G2 for CZ_GROTH16_Q_B_G2, G1 otherwise; NULL where
 * plan->t[q] = 0) must stay valid and unchanged until the set is freed.
 * The prover's parameters hold one (cz_groth16_params.tables); a .zkey's
 * prover takes one (cz_snarkjs_prove_tables). */
typedef struct cz_groth16_tables cz_groth16_tables;
/* Builds the set (*out NULL when the plan has no table). Errors as
 * cz_msm_gX_tables_build (CZ_ERR_INVALID_ARG naming the shape), CZ_ERR_NOMEM. */
CZ_WUR cz_status cz_groth16_tables_build(cz_groth16_tables **out, const cz_groth16_tables_plan *plan,
                                         const void *const bases[CZ_GROTH16_NQ], cz_pool *pool, cz_errbuf *err);
/* A set over points made earlier, used in place (cz_msm_gX_tables_wrap):
 * points[q] holds query q's tables 1..t-1 as cz_groth16_tables_points gave
 * them. map, map_len (map may be NULL): a mapping holding the points, the
 * set's to unmap when freed (also on error). */
CZ_WUR cz_status cz_groth16_tables_wrap(cz_groth16_tables **out, const cz_groth16_tables_plan *plan,
                                        const void *const bases[CZ_GROTH16_NQ],
                                        const void *const points[CZ_GROTH16_NQ], void *map, size_t map_len,
                                        cz_errbuf *err);
/* Query q's table set: its shape (t = 0: none) and the points of its
 * tables 1..t-1 ((t-1)·n points; NULL when t < 2). */
const void *cz_groth16_tables_points(const cz_groth16_tables *t, int q, size_t *n, unsigned *tt, unsigned *bits);
/* Query q's table set for the MSM calls (NULL: none for q, or t NULL). */
const cz_msm_g1_tables *cz_groth16_tables_g1(const cz_groth16_tables *t, int q);
const cz_msm_g2_tables *cz_groth16_tables_g2(const cz_groth16_tables *t);
/* Bytes the set holds (0 for NULL). */
uint64_t cz_groth16_tables_bytes(const cz_groth16_tables *t);
void cz_groth16_tables_free(cz_groth16_tables *t);

/* Builds p->tables by that plan (nothing when it plans no table; an
 * existing set is replaced). Cost: about n·bits·(t-1) doublings per query
 * (cuzk/msm.h), in parallel on pool. CZ_ERR_MISMATCH when p does not fit
 * pce (cz_groth16_params_check_shape), CZ_ERR_NOMEM. */
CZ_WUR cz_status cz_groth16_params_build_tables(cz_groth16_params *p, const cz_pce *pce, uint64_t max_bytes,
                                                cz_pool *pool, cz_errbuf *err);
/* The bases of each query's tables in p: H, L, and the aux parts of A and
 * B (from pce's input counts), as cz_groth16_tables_build takes them. */
void cz_groth16_params_tables_bases(const cz_groth16_params *p, const cz_pce *pce, const void *out[CZ_GROTH16_NQ]);
/* Bytes p->tables holds (0 without tables). */
uint64_t cz_groth16_params_tables_bytes(const cz_groth16_params *p);
/* Query q's table set, for keeping it in a file: its shape (t = 0: none)
 * and the points of its tables 1..t-1 ((t-1)·n affine points, G2 for
 * CZ_GROTH16_Q_B_G2, G1 otherwise; NULL when t < 2). */
const void *cz_groth16_params_tables_points(const cz_groth16_params *p, int q, size_t *n, unsigned *t,
                                            unsigned *bits);
/* Installs tables made earlier by plan (replacing any): points[q] holds
 * query q's tables 1..t-1 as cz_groth16_params_tables_points gave them
 * (NULL where plan->t[q] = 0), used in place, nothing checked but the
 * shapes: plan->n must be the counts p and pce imply (CZ_ERR_MISMATCH
 * otherwise, as for a p that does not fit pce). map, map_len (map may be
 * NULL): a mapping holding the points, unmapped when the tables are freed
 * (also on error). */
CZ_WUR cz_status cz_groth16_params_wrap_tables(cz_groth16_params *p, const cz_pce *pce,
                                               const cz_groth16_tables_plan *plan,
                                               const void *const points[CZ_GROTH16_NQ], void *map,
                                               size_t map_len, cz_errbuf *err);

/* ---- setup ------------------------------------------------------------------ */
typedef struct {
    /* progress callback (may be NULL): stage name and fraction done */
    void (*progress)(void *arg, const char *stage, double fraction);
    void *progress_arg;
    /* TEST ONLY: fixed toxic waste (tau, alpha, beta, gamma, delta) instead
     * of the OS CSPRNG, so tests are reproducible. NULL in production. */
    const cz_fr *test_toxic;
    /* If non-NULL, also receives (malloc'd, m points) the H query in
     * evaluation form on the odd coset of the 2m domain, as snarkjs keeps
     * it: h_odd[j] = [L_(2j+1)(tau) / delta]_1 where L_k is the Lagrange
     * basis of the size-2m domain <w_2m> (cuzk's roots of unity). Only the
     * setup can make it (it needs tau); cz_snarkjs_zkey_from_params uses it
     * to export a .zkey. */
    cz_g1_affine **h_odd_out;
} cz_groth16_setup_opts;

/* Trusted setup for the recorded circuit. Refuses (CZ_ERR_INVALID_ARG, err
 * names the variable) a circuit with an aux variable in no constraint or an
 * input absent from every row: their points would be the identity, which
 * parameter readers reject. Multi-threaded on pool. */
CZ_WUR cz_status cz_groth16_setup(cz_groth16_params **out, const cz_pce *pce, cz_pool *pool,
                                  const cz_groth16_setup_opts *opts, cz_errbuf *err);

/* ---- parameter files ----------------------------------------------------------
 * bellperson .params layout (docs/design.md §3.3), big-endian, uncompressed points:
 * vk (alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, u32 n + ic),
 * then u32 n + points for h, l, a, b_g1 (G1) and b_g2 (G2). */
CZ_WUR cz_status cz_groth16_params_write(const cz_groth16_params *p, const char *path, cz_errbuf *err);
/* Reads and validates: every count is checked against the file size before
 * allocating; every point is decoded with full validation (on curve, in the
 * subgroup — run in parallel on pool — and not the identity). If pce is
 * given, the counts must match the circuit (ic = n_inputs, h = m - 1,
 * l = n_aux, a and b = the density popcounts): CZ_ERR_MISMATCH otherwise. */
CZ_WUR cz_status cz_groth16_params_read(cz_groth16_params **out, const char *path, const cz_pce *pce,
                                        cz_pool *pool, cz_errbuf *err);
/* The same reader on a memory buffer (fuzzing, tests). */
CZ_WUR cz_status cz_groth16_params_parse(cz_groth16_params **out, const uint8_t *buf, size_t len, cz_pool *pool,
                                         cz_errbuf *err);
/* How much a reader checks of each point.
 * FULL:    canonical coordinates, on curve, in the prime-order subgroup, not
 *          the identity (what cz_groth16_params_read does).
 * TRUSTED: the same without the subgroup test for the query arrays (h, l,
 *          a, b_g1, b_g2); the verifying key (alpha .. delta, ic) is still
 *          checked fully. Every count is still checked against the file
 *          size before allocating, and a truncated or padded file is still
 *          refused. The subgroup test is most of the cost of reading (a
 *          47 GiB 32GiB PoRep file takes hours in FULL), and a point that
 *          passes everything else but lies outside the subgroup cannot
 *          come from random corruption — only from a file made to contain
 *          it. So TRUSTED is safe only for a file whose bytes are already
 *          known to be the right ones: a Filecoin ceremony file whose
 *          BLAKE2b digest was checked against the published value (the
 *          published file is the same bytes everyone proves with, and is
 *          what rust-fil-proofs itself maps with no curve or subgroup check
 *          at all). For a file of unknown origin use FULL: an off-subgroup
 *          base would make proofs that verifiers reject, and for circuits
 *          with a secret witness its small-order component can leak
 *          witness bits into the published proof. */
typedef enum {
    CZ_PARAMS_VALIDATE_FULL = 0,
    CZ_PARAMS_VALIDATE_TRUSTED = 1
} cz_params_validate;

/* cz_groth16_params_read / _parse with an explicit validation mode
 * (CZ_ERR_INVALID_ARG for an unknown mode). */
CZ_WUR cz_status cz_groth16_params_read_ex(cz_groth16_params **out, const char *path, const cz_pce *pce,
                                           cz_pool *pool, cz_params_validate mode, cz_errbuf *err);
CZ_WUR cz_status cz_groth16_params_parse_ex(cz_groth16_params **out, const uint8_t *buf, size_t len,
                                            cz_pool *pool, cz_params_validate mode, cz_errbuf *err);
/* Checks that the counts of p fit the circuit pce (see above). */
CZ_WUR cz_status cz_groth16_params_check_shape(const cz_groth16_params *p, const cz_pce *pce, cz_errbuf *err);

/* ---- prover -------------------------------------------------------------------- */
/* Wall times of the phases (ms). The CPU prover sums H and L in one MSM:
 * msm_h_ms is then H + L (scalar conversions included) and msm_l_ms is 0;
 * back-ends that run them apart (cz_groth16_pending_set_g1) report both. */
typedef struct {
    double ntt_ms, msm_h_ms, msm_l_ms, msm_a_ms, msm_b_g1_ms, b_g2_ms, finish_ms;
} cz_groth16_timings;

/* A synthesized partition. a, b, c (m elements each, malloc'd) are taken
 * over by prove_start, which frees them as soon as the quotient is done.
 * The witness is copied into the pending proof (canonical scalars). */
typedef struct {
    cz_fr *a, *b, *c;
    size_t m;
    const cz_witness *w;
} cz_groth16_input;

typedef struct cz_groth16_pending cz_groth16_pending;

/* Runs everything except the B_G2 MSM, which is submitted to bg (a pool
 * used as an executor; NULL runs it inline here). pool runs the NTTs and
 * MSMs. On any return the a/b/c buffers of in have been freed and set to
 * NULL. params and pce must outlive the pending handle. */
CZ_WUR cz_status cz_groth16_prove_start(cz_groth16_pending **out, const cz_groth16_params *params,
                                        const cz_pce *pce, cz_groth16_input *in, cz_pool *pool,
                                        cz_pool *bg, cz_errbuf *err);
/* Joins B_G2 and assembles the proof (192 compressed bytes). r and s are
 * drawn from the OS CSPRNG unless test_rs (TEST ONLY: {r, s}) is given.
 * Frees the pending handle in every case. timings may be NULL. */
CZ_WUR cz_status cz_groth16_prove_finish(cz_groth16_pending *pend, const cz_fr *test_rs,
                                         uint8_t proof[CZ_GROTH16_PROOF_BYTES], cz_groth16_timings *timings,
                                         cz_errbuf *err);
/* Frees a pending proof without finishing it (joins the background MSM). */
void cz_groth16_pending_free(cz_groth16_pending *pend);
/* prove_start + prove_finish. */
CZ_WUR cz_status cz_groth16_prove(const cz_groth16_params *params, const cz_pce *pce, cz_groth16_input *in,
                                  cz_pool *pool, const cz_fr *test_rs, uint8_t proof[CZ_GROTH16_PROOF_BYTES],
                                  cz_groth16_timings *timings, cz_errbuf *err);

/* ---- proofs ---------------------------------------------------------------------- */
typedef struct {
    cz_g1_affine a;
    cz_g2_affine b;
    cz_g1_affine c;
} cz_groth16_proof;

/* A ‖ B ‖ C compressed (zcash rules). */
void cz_groth16_proof_encode(uint8_t out[CZ_GROTH16_PROOF_BYTES], const cz_groth16_proof *p);
/* Decodes with full validation: each point on curve, in subgroup, and not
 * the identity (CZ_ERR_IDENTITY); err names the point. */
CZ_WUR cz_status cz_groth16_proof_decode(cz_groth16_proof *p, const uint8_t in[CZ_GROTH16_PROOF_BYTES],
                                         cz_errbuf *err);

/* ---- verifier ---------------------------------------------------------------------- */
typedef struct cz_groth16_pvk cz_groth16_pvk;
/* Prepared verifying key: e(alpha, beta) and the prepared -gamma, -delta. */
CZ_WUR cz_status cz_groth16_pvk_create(cz_groth16_pvk **out, const cz_groth16_vk *vk);
void cz_groth16_pvk_free(cz_groth16_pvk *pvk);
/* Public inputs exclude the constant one: n_public = n_ic - 1 values
 * (Montgomery form). CZ_OK: valid; CZ_ERR_UNSATISFIED: the pairing equation
 * fails; CZ_ERR_MISMATCH: wrong number of inputs. */
CZ_WUR cz_status cz_groth16_verify(const cz_groth16_pvk *pvk, const cz_groth16_proof *proof,
                                   const cz_fr *public_inputs, size_t n_public, cz_errbuf *err);
/* Batch verification of n proofs with a random linear combination (128-bit
 * random weights from the OS CSPRNG): one multi-pairing of n + 3 pairs.
 * inputs[k] points at proof k's n_public inputs. CZ_OK iff all are valid
 * (except with probability 2^-128). */
CZ_WUR cz_status cz_groth16_verify_batch(const cz_groth16_pvk *pvk, const cz_groth16_proof *proofs,
                                         const cz_fr *const *inputs, size_t n_public, size_t n,
                                         cz_errbuf *err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_GROTH16_H */
