/*
 * cuzk Groth16 — internal interface for other proving back-ends (the CUDA
 * prover, src/cuda/prove_cuda.c): the pending-proof structure shared by
 * prove_start / prove_finish, and a way to build one from H, L, A, B_G1
 * results computed elsewhere, so that every back-end ends in the same,
 * unchanged cz_groth16_prove_finish (r, s, constant-time assembly).
 * Not a public header: the fields may change with prover.c.
 */
#ifndef CUZK_GROTH16_INTERNAL_H
#define CUZK_GROTH16_INTERNAL_H

#include "cuzk/groth16.h"
#include "cuzk/msm.h"

/* cz_groth16_tables (tables.c): a table set per query that has one
 * (g1[] indexed by CZ_GROTH16_Q_*, its B_G2 slot unused). In a parameter
 * set's (cz_groth16_params.tables) they are over the aux parts of A and B,
 * which start at a_off and b_off in p->a and p->b_g1/g2 (the circuit's
 * input count and B-dense input count when built); 0 in a set made apart
 * from parameters. */
struct cz_groth16_tables {
    cz_msm_g1_tables *g1[CZ_GROTH16_NQ];
    cz_msm_g2_tables *b_g2;
    size_t a_off, b_off;
    uint64_t bytes;
    void *map;        /* a mapping the tables' points lie in (a table file), unmapped with them */
    size_t map_len;
};

struct cz_groth16_pending {
    const cz_groth16_params *params;
    const cz_pce *pce;
    cz_scalar *z;            /* inputs ‖ aux, canonical (wiped on free: a circom witness is private) */
    size_t nz;               /* entries in z */
    cz_g1_jac h, l, a, b1;
    cz_g2_jac b2;
    cz_status b2_status;
    cz_task *b2_task;
    cz_pool *pool;           /* compute pool the B_G2 MSM parallelises on (from its bg thread) */
    size_t nb_inputs;
    cz_groth16_timings t;
};

/* Starts a pending proof for a back-end that computes H, L, A and B_G1
 * itself: copies the witness w (canonical scalars, converted on pool) and
 * submits the B_G2 MSM to bg (NULL: runs it inline now), exactly as
 * cz_groth16_prove_start does, so that B_G2 runs on the CPU while the
 * caller computes the G1 parts. Checks the witness and parameter shapes
 * against pce (CZ_ERR_MISMATCH). Free with cz_groth16_pending_free on
 * failure of the caller's own part. */
CZ_WUR cz_status cz_groth16_pending_begin(cz_groth16_pending **out, const cz_groth16_params *params,
                                          const cz_pce *pce, const cz_witness *w, cz_pool *pool, cz_pool *bg,
                                          cz_errbuf *err);

/* Stores the G1 results (Jacobian, any representative) and the caller's
 * timings (ntt_ms and the four G1 msm_*_ms fields are copied; the B_G2 and
 * finish fields stay the prover's). The handle is then ready for
 * cz_groth16_prove_finish. */
void cz_groth16_pending_set_g1(cz_groth16_pending *p, const cz_g1_jac *h, const cz_g1_jac *l, const cz_g1_jac *a,
                               const cz_g1_jac *b1, const cz_groth16_timings *t);

/* The background B_G2 job (arg: the pending proof): the two density MSMs
 * over G2 (B-dense inputs, B-dense aux) on p->pool; result in p->b2,
 * status in p->b2_status. Shared by every back-end. */
void cz__groth16_b2_job(void *arg);

/* For tests/ctime: out1[i] = affine([s_i]G1), out2[i] = affine([s_i]G2)
 * through the setup's constant-time comb and batch path (fixed_base in
 * setup.c), serially. CZ_ERR_NOMEM if the tables cannot be allocated. */
CZ_WUR cz_status cz__groth16_comb_batch(cz_g1_affine *out1, cz_g2_affine *out2, const cz_fr *s, size_t n);

#endif /* CUZK_GROTH16_INTERNAL_H */
