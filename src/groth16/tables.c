/*
 * Precomputed tables of a parameter set's bases (cuzk/groth16.h,
 * "precomputed tables"): the plan, the build, and what the prover reads.
 *
 * Why a greedy plan in cost order: an operator gives one byte limit for a
 * parameter set, and the MSMs do not gain alike. H is the largest MSM with
 * full-width scalars in every circuit; B_G2 costs about twice a G1 MSM of
 * its size; A and B_G1 come next; L last (for most circuits its scalars
 * are the aux witness, often bits, which the 0/1 split already takes
 * without tables). Each query takes the shape the MSM cost model prices
 * best within what is left, so a small limit goes to H alone.
 */
#include "groth16_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cuzk/msm.h"

/* Below this many bases a query's MSM is a few milliseconds: no tables. */
#define MIN_TABLE_BASES 4096

void cz_groth16_tables_plan_for(cz_groth16_tables_plan *plan, const cz_pce *pce, uint64_t max_bytes,
                                const cz_pool *pool)
{
    memset(plan, 0, sizeof *plan);
    uint64_t m = 1;
    while (m < pce->n_constraints) m <<= 1;
    plan->n[CZ_GROTH16_Q_H] = (size_t)(m - 1);
    plan->n[CZ_GROTH16_Q_L] = (size_t)pce->n_aux;
    plan->n[CZ_GROTH16_Q_A] = (size_t)pce->dens_a_aux_count;
    plan->n[CZ_GROTH16_Q_B_G1] = (size_t)pce->dens_b_aux_count;
    plan->n[CZ_GROTH16_Q_B_G2] = (size_t)pce->dens_b_aux_count;
    static const int order[CZ_GROTH16_NQ] = {CZ_GROTH16_Q_H, CZ_GROTH16_Q_B_G2, CZ_GROTH16_Q_A, CZ_GROTH16_Q_B_G1,
                                             CZ_GROTH16_Q_L};
    uint64_t left = max_bytes;
    for (int i = 0; i < CZ_GROTH16_NQ; i++) {
        int q = order[i];
        size_t n = plan->n[q];
        if (n < MIN_TABLE_BASES || !left) continue;
        unsigned t = 1, bits = 256;
        bool g2 = q == CZ_GROTH16_Q_B_G2;
        size_t cap = left > SIZE_MAX ? SIZE_MAX : (size_t)left;
        if (!(g2 ? cz_msm_g2_tables_shape(n, pool, NULL, cap, &t, &bits)
                 : cz_msm_g1_tables_shape(n, pool, NULL, cap, &t, &bits)))
            continue;
        size_t bytes = g2 ? cz_msm_g2_tables_bytes(n, t) : cz_msm_g1_tables_bytes(n, t);
        if (bytes > left) continue; /* the shape call keeps within cap: defensive */
        plan->t[q] = t;
        plan->bits[q] = bits;
        plan->bytes += bytes;
        left -= bytes;
    }
}

void cz__groth16_tables_free(cz_groth16_tables *t)
{
    if (!t) return;
    for (int q = 0; q < CZ_GROTH16_NQ; q++) {
        cz_msm_g1_tables_free(t->g1[q]);
    }
    cz_msm_g2_tables_free(t->b_g2);
    if (t->map) munmap(t->map, t->map_len);
    free(t);
}

/* The bases each query's tables are over (the aux parts of A and B). */
static void query_bases(const cz_groth16_params *p, size_t a_off, size_t b_off, const void *out[CZ_GROTH16_NQ])
{
    out[CZ_GROTH16_Q_H] = p->h;
    out[CZ_GROTH16_Q_L] = p->l;
    out[CZ_GROTH16_Q_A] = p->a + a_off;
    out[CZ_GROTH16_Q_B_G1] = p->b_g1 + b_off;
    out[CZ_GROTH16_Q_B_G2] = p->b_g2 + b_off;
}

cz_status cz_groth16_params_build_tables(cz_groth16_params *p, const cz_pce *pce, uint64_t max_bytes,
                                         cz_pool *pool, cz_errbuf *err)
{
    cz_status st = cz_groth16_params_check_shape(p, pce, err);
    if (st != CZ_OK) return st;
    cz__groth16_tables_free(p->tables);
    p->tables = NULL;
    cz_groth16_tables_plan plan;
    cz_groth16_tables_plan_for(&plan, pce, max_bytes, pool);
    if (!plan.bytes) return CZ_OK;
    cz_groth16_tables *t = calloc(1, sizeof *t);
    if (!t) return cz_err(err, CZ_ERR_NOMEM, "out of memory for the MSM tables");
    t->a_off = (size_t)pce->n_inputs;
    t->b_off = (size_t)pce->dens_b_input_count;
    const void *qb[CZ_GROTH16_NQ];
    query_bases(p, t->a_off, t->b_off, qb);
    for (int q = 0; q < CZ_GROTH16_NQ && st == CZ_OK; q++) {
        if (!plan.t[q]) continue;
        if (q == CZ_GROTH16_Q_B_G2)
            st = cz_msm_g2_tables_build(&t->b_g2, qb[q], plan.n[q], plan.t[q], plan.bits[q], pool, err);
        else
            st = cz_msm_g1_tables_build(&t->g1[q], qb[q], plan.n[q], plan.t[q], plan.bits[q], pool, err);
    }
    if (st != CZ_OK) {
        cz__groth16_tables_free(t);
        return st;
    }
    t->bytes = plan.bytes;
    p->tables = t;
    return CZ_OK;
}

uint64_t cz_groth16_params_tables_bytes(const cz_groth16_params *p)
{
    return p && p->tables ? p->tables->bytes : 0;
}

const void *cz_groth16_params_tables_points(const cz_groth16_params *p, int q, size_t *n, unsigned *t,
                                            unsigned *bits)
{
    *n = 0;
    *t = *bits = 0;
    if (!p || !p->tables || q < 0 || q >= CZ_GROTH16_NQ) return NULL;
    if (q == CZ_GROTH16_Q_B_G2) {
        const cz_msm_g2_tables *g = p->tables->b_g2;
        if (!g) return NULL;
        *n = cz_msm_g2_tables_n(g);
        *t = cz_msm_g2_tables_count(g);
        *bits = cz_msm_g2_tables_bits(g);
        return cz_msm_g2_tables_points(g);
    }
    const cz_msm_g1_tables *g = p->tables->g1[q];
    if (!g) return NULL;
    *n = cz_msm_g1_tables_n(g);
    *t = cz_msm_g1_tables_count(g);
    *bits = cz_msm_g1_tables_bits(g);
    return cz_msm_g1_tables_points(g);
}

cz_status cz_groth16_params_wrap_tables(cz_groth16_params *p, const cz_pce *pce,
                                        const cz_groth16_tables_plan *plan,
                                        const void *const points[CZ_GROTH16_NQ], void *map, size_t map_len,
                                        cz_errbuf *err)
{
    cz_groth16_tables *t = NULL;
    cz_status st = cz_groth16_params_check_shape(p, pce, err);
    if (st != CZ_OK) goto fail;
    cz_groth16_tables_plan want;
    cz_groth16_tables_plan_for(&want, pce, UINT64_MAX, NULL); /* only its counts are compared */
    for (int q = 0; q < CZ_GROTH16_NQ; q++)
        if (plan->t[q] && plan->n[q] != want.n[q]) {
            st = cz_err(err, CZ_ERR_MISMATCH, "msm tables: query %d has %zu bases, the circuit %zu", q, plan->n[q],
                        want.n[q]);
            goto fail;
        }
    if (!(t = calloc(1, sizeof *t))) {
        st = cz_err(err, CZ_ERR_NOMEM, "out of memory for the MSM tables");
        goto fail;
    }
    t->map = map;
    t->map_len = map_len;
    map = NULL; /* t owns it now */
    t->a_off = (size_t)pce->n_inputs;
    t->b_off = (size_t)pce->dens_b_input_count;
    const void *qb[CZ_GROTH16_NQ];
    query_bases(p, t->a_off, t->b_off, qb);
    for (int q = 0; q < CZ_GROTH16_NQ && st == CZ_OK; q++) {
        if (!plan->t[q]) continue;
        if (q == CZ_GROTH16_Q_B_G2)
            st = cz_msm_g2_tables_wrap(&t->b_g2, qb[q], plan->n[q], plan->t[q], plan->bits[q], points[q], err);
        else
            st = cz_msm_g1_tables_wrap(&t->g1[q], qb[q], plan->n[q], plan->t[q], plan->bits[q], points[q], err);
        t->bytes += q == CZ_GROTH16_Q_B_G2 ? cz_msm_g2_tables_bytes(plan->n[q], plan->t[q])
                                           : cz_msm_g1_tables_bytes(plan->n[q], plan->t[q]);
    }
    if (st != CZ_OK) goto fail;
    cz__groth16_tables_free(p->tables);
    p->tables = t;
    return CZ_OK;
fail:
    cz__groth16_tables_free(t);
    if (map) munmap(map, map_len);
    return st;
}
