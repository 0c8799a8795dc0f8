/*
 * Pending proofs built from parts computed by another back-end (see
 * groth16_internal.h). The B_G2 job mirrors prover.c's: the two density
 * MSMs (B-dense inputs, B-dense aux) on one background worker.
 */
#include "groth16/groth16_internal.h"
#include "cuzk/msm.h"
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint64_t popcount_bits(const uint64_t *bm, uint64_t nbits)
{
    uint64_t c = 0;
    for (uint64_t i = 0; i < nbits / 64; i++) c += (uint64_t)__builtin_popcountll(bm[i]);
    if (nbits % 64) c += (uint64_t)__builtin_popcountll(bm[nbits / 64] & ((1ULL << (nbits % 64)) - 1));
    return c;
}

static void parts_b2_job(void *arg)
{
    cz_groth16_pending *p = arg;
    double t0 = now_ms();
    const cz_pce *pce = p->pce;
    cz_g2_jac x, y;
    cz_status st = cz_msm_g2_density(&x, p->params->b_g2, p->nb_inputs, p->z, pce->n_inputs, pce->dens_b_input,
                                     NULL, NULL);
    if (st == CZ_OK)
        st = cz_msm_g2_density(&y, p->params->b_g2 + p->nb_inputs, p->params->n_b - p->nb_inputs,
                               p->z + pce->n_inputs, pce->n_aux, pce->dens_b_aux, NULL, NULL);
    if (st == CZ_OK) cz_g2_jac_add(&p->b2, &x, &y);
    p->b2_status = st;
    p->t.b_g2_ms = now_ms() - t0;
}

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
    if (!p || !(p->z = malloc((nz ? nz : 1) * sizeof(cz_scalar)))) {
        free(p);
        return cz_err(err, CZ_ERR_NOMEM, "prove: out of memory");
    }
    p->params = params;
    p->pce = pce;
    p->nb_inputs = popcount_bits(pce->dens_b_input, pce->n_inputs);
    cz_g1_jac_set_infinity(&p->h);
    cz_g1_jac_set_infinity(&p->l);
    cz_g1_jac_set_infinity(&p->a);
    cz_g1_jac_set_infinity(&p->b1);
    cz_msm_scalars_from_fr(p->z, w->inputs, w->n_inputs, pool);
    cz_msm_scalars_from_fr(p->z + w->n_inputs, w->aux, w->n_aux, pool);
    if ((st = cz_pool_submit(bg, parts_b2_job, p, &p->b2_task)) != CZ_OK) {
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
