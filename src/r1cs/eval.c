/*
 * Synthesis for proving: a = A·z, b = B·z, c = C·z over the recorded CSR
 * matrices (z = inputs ‖ aux), split over rows across a thread pool.
 *
 * Rows are independent, so each chunk of rows writes its own slice of a, b
 * and c: no synchronisation beyond the pool's join. Coefficient ids 0 and 1
 * (1 and -1, the vast majority of nonzeros in SHA-256/boolean circuits) are
 * a plain add/sub; other coefficients cost a Montgomery multiply unless the
 * value is 0 or 1 (boolean witnesses: most values in SHA-256 circuits).
 * A row that repeats an earlier one (pce.c: Poseidon's S-box puts one
 * linear combination in three places) takes that row's value.
 * Variable time in the witness, which is public for PoRep (docs/design.md §7.4).
 */
#include <string.h>

#include "r1cs/r1cs_internal.h"

typedef struct {
    const cz_pce *pce;
    const cz_fr *inp, *aux;
    cz_fr *out[3];
} eval_job;

static inline bool is_zero(const cz_fr *v) { return (v->l[0] | v->l[1] | v->l[2] | v->l[3]) == 0; }
static inline bool is_one(const cz_fr *v)
{
    return v->l[0] == CZ_FR_ONE.l[0] && v->l[1] == CZ_FR_ONE.l[1] && v->l[2] == CZ_FR_ONE.l[2] &&
           v->l[3] == CZ_FR_ONE.l[3];
}

static inline void row_dot(cz_fr *r, const cz_csr *m, const cz_fr *coeffs, const cz_fr *inp, const cz_fr *aux,
                           uint64_t j)
{
    cz_fr acc = CZ_FR_ZERO;
    for (uint64_t k = m->row_ptr[j], e = m->row_ptr[j + 1]; k < e; k++) {
        const cz_fr *v = cz_z_value(inp, aux, m->col[k]);
        uint32_t id = m->coef[k];
        if (id == CZ_PCE_COEF_ONE) {
            cz_fr_add(&acc, &acc, v);
        } else if (id == CZ_PCE_COEF_MINUS_ONE) {
            cz_fr_sub(&acc, &acc, v);
        } else if (is_zero(v)) {
            /* boolean witnesses: most values are 0 or 1, so a two-way
             * check saves the Montgomery multiply for most terms */
        } else if (is_one(v)) {
            cz_fr_add(&acc, &acc, &coeffs[id]);
        } else {
            cz_fr t;
            cz_fr_mul(&t, v, &coeffs[id]);
            cz_fr_add(&acc, &acc, &t);
        }
    }
    *r = acc;
}

/* The first entry of rep[0..n) with row >= lo. */
static const cz_pce_repeat *rep_from(const cz_pce_repeat *rep, uint64_t n, size_t lo)
{
    uint64_t a = 0, b = n;
    while (a < b) {
        uint64_t mid = a + (b - a) / 2;
        if (rep[mid].row < lo) a = mid + 1;
        else b = mid;
    }
    return rep + a;
}

/* A range's rows, A then B then C: a row that repeats one already
 * evaluated in this range (pce.c, "repeated rows") copies its value; one
 * whose original lies before lo is evaluated from its terms. */
static void eval_range(void *arg, size_t lo, size_t hi)
{
    const eval_job *J = arg;
    const cz_pce *p = J->pce;
    const cz_csr *m[3] = {&p->a, &p->b, &p->c};
    for (int k = 0; k < 3; k++) {
        const cz_pce_repeat *r = p->rep[k] ? rep_from(p->rep[k], p->n_rep[k], lo) : NULL;
        const cz_pce_repeat *re = p->rep[k] ? p->rep[k] + p->n_rep[k] : NULL;
        for (size_t j = lo; j < hi; j++) {
            if (r < re && r->row == j) {
                const cz_pce_repeat *e = r++;
                if (e->back <= j - lo) {
                    J->out[k][j] = J->out[e->from][j - e->back];
                    continue;
                }
            }
            row_dot(&J->out[k][j], m[k], p->coeffs, J->inp, J->aux, j);
        }
    }
}

typedef struct {
    cz_fr *out[3];
} zero_job;

static void zero_range(void *arg, size_t lo, size_t hi)
{
    const zero_job *Z = arg;
    for (int k = 0; k < 3; k++)
        memset(Z->out[k] + lo, 0, (hi - lo) * sizeof(cz_fr));
}

cz_status cz_pce_eval(const cz_pce *pce, const cz_witness *w, cz_pool *pool, cz_fr *a, cz_fr *b, cz_fr *c,
                      size_t m)
{
    if (!pce || !w || !a || !b || !c || a == b || b == c || a == c)
        return CZ_ERR_INVALID_ARG;
    if (m < pce->n_constraints)
        return CZ_ERR_INVALID_ARG;
    if (w->n_inputs != pce->n_inputs || w->n_aux != pce->n_aux)
        return CZ_ERR_MISMATCH;
    eval_job J = {pce, w->inputs, w->aux, {a, b, c}};
    cz_pool_parallel_range(pool, 0, (size_t)pce->n_constraints, 4096, eval_range, &J);
    if (m > pce->n_constraints) {
        zero_job Z = {{a, b, c}};
        cz_pool_parallel_range(pool, (size_t)pce->n_constraints, m, 1u << 16, zero_range, &Z);
    }
    return CZ_OK;
}

cz_status cz_synthesize(const cz_pce *pce, cz_synth_fn synth, const void *ctx, cz_pool *pool, cz_witness *w,
                        cz_fr *a, cz_fr *b, cz_fr *c, size_t m)
{
    if (!pce || !w)
        return CZ_ERR_INVALID_ARG;
    cz_status st = cz_witness_generate(w, synth, ctx, pce);
    if (st != CZ_OK)
        return st;
    st = cz_pce_eval(pce, w, pool, a, b, c, m);
    if (st != CZ_OK)
        cz_witness_free(w);
    return st;
}

cz_status cz_pce_is_satisfied(const cz_pce *pce, const cz_witness *w, uint64_t *row)
{
    if (!pce || !w)
        return CZ_ERR_INVALID_ARG;
    if (w->n_inputs != pce->n_inputs || w->n_aux != pce->n_aux)
        return CZ_ERR_MISMATCH;
    for (uint64_t j = 0; j < pce->n_constraints; j++) {
        cz_fr va, vb, vc, ab;
        row_dot(&va, &pce->a, pce->coeffs, w->inputs, w->aux, j);
        row_dot(&vb, &pce->b, pce->coeffs, w->inputs, w->aux, j);
        row_dot(&vc, &pce->c, pce->coeffs, w->inputs, w->aux, j);
        cz_fr_mul(&ab, &va, &vb);
        if (!cz_fr_eq(&ab, &vc)) {
            if (row)
                *row = j;
            return CZ_ERR_UNSATISFIED;
        }
    }
    return CZ_OK;
}
