/*
 * Pending proofs built from parts computed by another back-end (see
 * groth16_internal.h). The B_G2 job mirrors prover.c's b2_job (keep them
 * in step): the two density MSMs (B-dense inputs, B-dense aux), run by a
 * thread of the executor bg and parallelised on the compute pool.
 */
#include "common/big_alloc.h"
#include "groth16/groth16_internal.h"
#include "cuzk/msm.h"
#include <stdlib.h>


cz_status cz_groth16_pending_begin(cz_groth16_pending **out, const cz_groth16_params *params, const cz_pce *pce,
                                   const cz_witness *w, cz_pool *pool, cz_pool *bg, cz_errbuf *err)
{
    *out = NULL;
    cz_status st;
    if (!w || w->n_inputs != pce->n_inputs || w->n_aux != pce->n_aux)
        return cz_err(err, CZ_ERR_MISMATCH, "prove: witness does not match the circuit's %llu inputs / %llu aux",
                      (unsigned long long)pce->n_inputs, (unsigned long long)pce->n_aux);
    if ((st = cz_groth16_params_check_shape(params, pce, err)) != CZ_OK) return st;
    cz_groth16_pending *p = calloc(1, sizeof *p);
    size_t nz = w->n_inputs + w->n_aux;
    if (!p || !(p->z = cz_big_alloc_array(nz ? nz : 1, sizeof(cz_scalar)))) {
        free(p);
        return cz_err(err, CZ_ERR_NOMEM, "prove: out of memory");
    }
    p->nz = nz;
    p->params = params;
    p->pce = pce;
    p->pool = pool;
    p->nb_inputs = pce->dens_b_input_count;
    cz_g1_jac_set_infinity(&p->h);
    cz_g1_jac_set_infinity(&p->l);
    cz_g1_jac_set_infinity(&p->a);
    cz_g1_jac_set_infinity(&p->b1);
    cz_msm_scalars_from_fr(p->z, w->inputs, w->n_inputs, pool);
    cz_msm_scalars_from_fr(p->z + w->n_inputs, w->aux, w->n_aux, pool);
    if ((st = cz_pool_submit(bg, cz__groth16_b2_job, p, &p->b2_task)) != CZ_OK) {
        cz_groth16_pending_free(p);
        return cz_err(err, st, "prove: cannot start the B_G2 MSM: %s", cz_status_str(st));
    }
    *out = p;
    return CZ_OK;
}

void cz_groth16_pending_set_g1(cz_groth16_pending *p, const cz_g1_jac *h, const cz_g1_jac *l, const cz_g1_jac *a,
                               const cz_g1_jac *b1, const cz_groth16_timings *t)
{
    p->h = *h;
    p->l = *l;
    p->a = *a;
    p->b1 = *b1;
    if (t) {
        /* field by field: the B_G2 job may be writing t.b_g2_ms right now */
        p->t.ntt_ms = t->ntt_ms;
        p->t.msm_h_ms = t->msm_h_ms;
        p->t.msm_l_ms = t->msm_l_ms;
        p->t.msm_a_ms = t->msm_a_ms;
        p->t.msm_b_g1_ms = t->msm_b_g1_ms;
    }
}
