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

void cz_groth16_tables_plan_counts(cz_groth16_tables_plan *plan, const size_t n_in[CZ_GROTH16_NQ],
                                   uint64_t max_bytes, const cz_pool *pool)
{
    memset(plan, 0, sizeof *plan);
    for (int q = 0; q < CZ_GROTH16_NQ; q++) plan->n[q] = n_in[q];
    static const int order[CZ_GROTH16_NQ] = {CZ_GROTH16_Q_H, CZ_GROTH16_Q_B_G2, CZ_GROTH16_Q_A, CZ_GROTH16_Q_B_G1,
                                             CZ_GROTH16_Q_L};
    uint64_t left = max_bytes;
    const cz_msm_opts wide = {.tables_wide = true};
    for (int i = 0; i < CZ_GROTH16_NQ; i++) {
        int q = order[i];
        size_t n = plan->n[q];
        if (n < MIN_TABLE_BASES || !left) continue;
        unsigned t = 1, bits = 256;
        bool g2 = q == CZ_GROTH16_Q_B_G2;
        size_t cap = left > SIZE_MAX ? SIZE_MAX : (size_t)left;
        /* Only H may take one wide window (cz_msm_opts.tables_wide): its
         * scalars are the quotient's coefficients, full width in every
         * proof, while the witness queries' are often mostly 0 and 1
         * (shaped-20's: half zeros, half ones; Filecoin's: bits), where a
         * 2^19-bucket reduction per call is paid for nothing (shaped-20's
         * A and B_G2 with 13 × 20 and 14 × 19 sets: 8 % slower each). */
        const cz_msm_opts *so = q == CZ_GROTH16_Q_H ? &wide : NULL;
        if (!(g2 ? cz_msm_g2_tables_shape(n, pool, so, cap, &t, &bits)
                 : cz_msm_g1_tables_shape(n, pool, so, cap, &t, &bits)))
            continue;
        size_t bytes = g2 ? cz_msm_g2_tables_bytes(n, t) : cz_msm_g1_tables_bytes(n, t);
        if (bytes > left) continue; /* the shape call keeps within cap: defensive */
        plan->t[q] = t;
        plan->bits[q] = bits;
        plan->bytes += bytes;
        left -= bytes;
    }
}

/* The base counts of the queries of pce's circuit. */
static void pce_counts(const cz_pce *pce, size_t n[CZ_GROTH16_NQ])
{
    uint64_t m = 1;
    while (m < pce->n_constraints) m <<= 1;
    n[CZ_GROTH16_Q_H] = (size_t)(m - 1);
    n[CZ_GROTH16_Q_L] = (size_t)pce->n_aux;
    n[CZ_GROTH16_Q_A] = (size_t)pce->dens_a_aux_count;
    n[CZ_GROTH16_Q_B_G1] = (size_t)pce->dens_b_aux_count;
    n[CZ_GROTH16_Q_B_G2] = (size_t)pce->dens_b_aux_count;
}

void cz_groth16_tables_plan_for(cz_groth16_tables_plan *plan, const cz_pce *pce, uint64_t max_bytes,
                                const cz_pool *pool)
{
    size_t n[CZ_GROTH16_NQ];
    pce_counts(pce, n);
    cz_groth16_tables_plan_counts(plan, n, max_bytes, pool);
}

void cz_groth16_tables_free(cz_groth16_tables *t)
{
    if (!t) return;
    for (int q = 0; q < CZ_GROTH16_NQ; q++) {
        cz_msm_g1_tables_free(t->g1[q]);
    }
    cz_msm_g2_tables_free(t->b_g2);
    if (t->map) munmap(t->map, t->map_len);
    free(t);
}

static uint64_t query_bytes(int q, size_t n, unsigned t)
{
    return q == CZ_GROTH16_Q_B_G2 ? cz_msm_g2_tables_bytes(n, t) : cz_msm_g1_tables_bytes(n, t);
}

cz_status cz_groth16_tables_build(cz_groth16_tables **out, const cz_groth16_tables_plan *plan,
                                  const void *const bases[CZ_GROTH16_NQ], cz_pool *pool, cz_errbuf *err)
{
    *out = NULL;
    bool any = false;
    for (int q = 0; q < CZ_GROTH16_NQ; q++) any |= plan->t[q] != 0;
    if (!any) return CZ_OK;
    cz_groth16_tables *t = calloc(1, sizeof *t);
    if (!t) return cz_err(err, CZ_ERR_NOMEM, "out of memory for the MSM tables");
    cz_status st = CZ_OK;
    for (int q = 0; q < CZ_GROTH16_NQ && st == CZ_OK; q++) {
        if (!plan->t[q]) continue;
        if (q == CZ_GROTH16_Q_B_G2)
            st = cz_msm_g2_tables_build(&t->b_g2, bases[q], plan->n[q], plan->t[q], plan->bits[q], pool, err);
        else
            st = cz_msm_g1_tables_build(&t->g1[q], bases[q], plan->n[q], plan->t[q], plan->bits[q], pool, err);
        t->bytes += query_bytes(q, plan->n[q], plan->t[q]);
    }
    if (st != CZ_OK) {
        cz_groth16_tables_free(t);
        return st;
    }
    *out = t;
    return CZ_OK;
}

cz_status cz_groth16_tables_wrap(cz_groth16_tables **out, const cz_groth16_tables_plan *plan,
                                 const void *const bases[CZ_GROTH16_NQ], const void *const points[CZ_GROTH16_NQ],
                                 void *map, size_t map_len, cz_errbuf *err)
{
    *out = NULL;
    cz_groth16_tables *t = calloc(1, sizeof *t);
    if (!t) {
        if (map) munmap(map, map_len);
        return cz_err(err, CZ_ERR_NOMEM, "out of memory for the MSM tables");
    }
    t->map = map; /* t owns it now */
    t->map_len = map_len;
    cz_status st = CZ_OK;
    for (int q = 0; q < CZ_GROTH16_NQ && st == CZ_OK; q++) {
        if (!plan->t[q]) continue;
        if (q == CZ_GROTH16_Q_B_G2)
            st = cz_msm_g2_tables_wrap(&t->b_g2, bases[q], plan->n[q], plan->t[q], plan->bits[q], points[q], err);
        else
            st = cz_msm_g1_tables_wrap(&t->g1[q], bases[q], plan->n[q], plan->t[q], plan->bits[q], points[q], err);
        t->bytes += query_bytes(q, plan->n[q], plan->t[q]);
    }
    if (st != CZ_OK) {
        cz_groth16_tables_free(t);
        return st;
    }
    *out = t;
    return CZ_OK;
}

const void *cz_groth16_tables_points(const cz_groth16_tables *t, int q, size_t *n, unsigned *tt, unsigned *bits)
{
    *n = 0;
    *tt = *bits = 0;
    if (!t || q < 0 || q >= CZ_GROTH16_NQ) return NULL;
    if (q == CZ_GROTH16_Q_B_G2) {
        const cz_msm_g2_tables *g = t->b_g2;
        if (!g) return NULL;
        *n = cz_msm_g2_tables_n(g);
        *tt = cz_msm_g2_tables_count(g);
        *bits = cz_msm_g2_tables_bits(g);
        return cz_msm_g2_tables_points(g);
    }
    const cz_msm_g1_tables *g = t->g1[q];
    if (!g) return NULL;
    *n = cz_msm_g1_tables_n(g);
    *tt = cz_msm_g1_tables_count(g);
    *bits = cz_msm_g1_tables_bits(g);
    return cz_msm_g1_tables_points(g);
}

const cz_msm_g1_tables *cz_groth16_tables_g1(const cz_groth16_tables *t, int q)
{
    return t && q >= 0 && q < CZ_GROTH16_NQ && q != CZ_GROTH16_Q_B_G2 ? t->g1[q] : NULL;
}

const cz_msm_g2_tables *cz_groth16_tables_g2(const cz_groth16_tables *t) { return t ? t->b_g2 : NULL; }

uint64_t cz_groth16_tables_bytes(const cz_groth16_tables *t) { return t ? t->bytes : 0; }

/* ---- the tables of a parameter set ---------------------------------------- */

/* The bases each query's tables are over (the aux parts of A and B). */
static void query_bases(const cz_groth16_params *p, size_t a_off, size_t b_off, const void *out[CZ_GROTH16_NQ])
{
    out[CZ_GROTH16_Q_H] = p->h;
    out[CZ_GROTH16_Q_L] = p->l;
    out[CZ_GROTH16_Q_A] = p->a + a_off;
    out[CZ_GROTH16_Q_B_G1] = p->b_g1 + b_off;
    out[CZ_GROTH16_Q_B_G2] = p->b_g2 + b_off;
}

void cz_groth16_params_tables_bases(const cz_groth16_params *p, const cz_pce *pce, const void *out[CZ_GROTH16_NQ])
{
    query_bases(p, (size_t)pce->n_inputs, (size_t)pce->dens_b_input_count, out);
}

cz_status cz_groth16_params_build_tables(cz_groth16_params *p, const cz_pce *pce, uint64_t max_bytes,
                                         cz_pool *pool, cz_errbuf *err)
{
    cz_status st = cz_groth16_params_check_shape(p, pce, err);
    if (st != CZ_OK) return st;
    cz_groth16_tables_free(p->tables);
    p->tables = NULL;
    cz_groth16_tables_plan plan;
    cz_groth16_tables_plan_for(&plan, pce, max_bytes, pool);
    const void *qb[CZ_GROTH16_NQ];
    cz_groth16_params_tables_bases(p, pce, qb);
    cz_groth16_tables *t;
    if ((st = cz_groth16_tables_build(&t, &plan, qb, pool, err)) != CZ_OK) return st;
    if (t) {
        t->a_off = (size_t)pce->n_inputs;
        t->b_off = (size_t)pce->dens_b_input_count;
    }
    p->tables = t;
    return CZ_OK;
}

uint64_t cz_groth16_params_tables_bytes(const cz_groth16_params *p)
{
    return p ? cz_groth16_tables_bytes(p->tables) : 0;
}

const void *cz_groth16_params_tables_points(const cz_groth16_params *p, int q, size_t *n, unsigned *t,
                                            unsigned *bits)
{
    return cz_groth16_tables_points(p ? p->tables : NULL, q, n, t, bits);
}

cz_status cz_groth16_params_wrap_tables(cz_groth16_params *p, const cz_pce *pce,
                                        const cz_groth16_tables_plan *plan,
                                        const void *const points[CZ_GROTH16_NQ], void *map, size_t map_len,
                                        cz_errbuf *err)
{
    cz_status st = cz_groth16_params_check_shape(p, pce, err);
    if (st != CZ_OK) goto fail;
    size_t want[CZ_GROTH16_NQ];
    pce_counts(pce, want);
    static const char *const qname[CZ_GROTH16_NQ] = {"H", "L", "A", "B_G1", "B_G2"};
    for (int q = 0; q < CZ_GROTH16_NQ; q++)
        if (plan->t[q] && plan->n[q] != want[q]) {
            st = cz_err(err, CZ_ERR_MISMATCH, "msm tables: query %s has %zu bases, the circuit %zu", qname[q],
                        plan->n[q], want[q]);
            goto fail;
        }
    const void *qb[CZ_GROTH16_NQ];
    cz_groth16_params_tables_bases(p, pce, qb);
    cz_groth16_tables *t;
    st = cz_groth16_tables_wrap(&t, plan, qb, points, map, map_len, err);
    map = NULL; /* the wrap owns it, on success or not */
    if (st != CZ_OK) goto fail;
    if (t) {
        t->a_off = (size_t)pce->n_inputs;
        t->b_off = (size_t)pce->dens_b_input_count;
    }
    cz_groth16_tables_free(p->tables);
    p->tables = t;
    return CZ_OK;
fail:
    if (map) munmap(map, map_len);
    return st;
}
