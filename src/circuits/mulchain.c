/*
 * mulchain: x_{i+1} = x_i^2 + (i + 1). One constraint per step
 * (x_i · x_i = x_{i+1} − (i + 1)); the added constant makes each step
 * differ, so a wrong row order or coefficient shows up in tests.
 */
#include "cuzk/circuits.h"

#include <stdlib.h>

static void step(cz_fr *next, const cz_fr *x, size_t i)
{
    cz_fr k;
    cz_fr_from_u64(&k, (uint64_t)i + 1);
    cz_fr_sqr(next, x);
    cz_fr_add(next, next, &k);
}

void cz_mulchain_public_inputs(const cz_mulchain *mc, cz_fr *out)
{
    out[0] = mc->x0;
    cz_fr x = mc->x0;
    size_t ne = mc->n_extra_inputs;
    for (size_t i = 0; i < mc->n_mul; i++) {
        step(&x, &x, i);
        /* y_j = x_{(j mod n) + 1}: record x_{i+1} for every j ≡ i */
        for (size_t j = i; j < ne; j += mc->n_mul)
            out[2 + j] = x;
    }
    out[1] = x;
}

cz_status cz_mulchain_synth(cz_cs *cs, const void *vctx)
{
    const cz_mulchain *mc = vctx;
    if (!mc || mc->n_mul < 1)
        return CZ_ERR_INVALID_ARG;
    bool vals = cz_cs_has_values(cs);
    size_t ne = mc->n_extra_inputs;
    cz_fr *pub = NULL;
    if (vals) {
        pub = malloc((2 + ne) * sizeof(cz_fr));
        if (!pub)
            return CZ_ERR_NOMEM;
        cz_mulchain_public_inputs(mc, pub);
    }
    cz_var x0, xn;
    cz_cs_alloc_input(cs, &x0, vals ? &pub[0] : NULL);
    cz_cs_alloc_input(cs, &xn, vals ? &pub[1] : NULL);
    cz_var *ys = NULL;
    if (ne) {
        ys = malloc(ne * sizeof(cz_var));
        if (!ys) {
            free(pub);
            return CZ_ERR_NOMEM;
        }
        for (size_t j = 0; j < ne; j++)
            cz_cs_alloc_input(cs, &ys[j], vals ? &pub[2 + j] : NULL);
    }
    cz_lc a, c, one;
    cz_lc_init(&a, cs);
    cz_lc_init(&c, cs);
    cz_lc_init(&one, cs);
    cz_lc_add_var(&one, CZ_VAR_ONE);
    cz_cs_push_scope(cs, "mulchain");
    cz_var x = x0;
    cz_fr xv = mc->x0;
    for (size_t i = 0; i < mc->n_mul; i++) {
        cz_var next;
        cz_fr nv = CZ_FR_ZERO;
        if (vals)
            step(&nv, &xv, i);
        if (i + 1 == mc->n_mul)
            next = xn;
        else
            cz_cs_alloc_aux(cs, &next, &nv);
        cz_cs_push_scope(cs, "step[%zu]", i);
        cz_lc_clear(&a);
        cz_lc_clear(&c);
        cz_lc_add_var(&a, x);
        cz_lc_add_var(&c, next);
        cz_lc_sub_u64(&c, CZ_VAR_ONE, (uint64_t)i + 1);
        cz_cs_enforce(cs, &a, &a, &c, "square");
        /* bind the extra inputs equal to this step's output */
        for (size_t j = i; j < ne; j += mc->n_mul) {
            cz_lc_clear(&a);
            cz_lc_add_var(&a, ys[j]);
            cz_lc_clear(&c);
            cz_lc_add_var(&c, next);
            cz_cs_enforce(cs, &a, &one, &c, "bind_input");
        }
        cz_cs_pop_scope(cs);
        x = next;
        xv = nv;
    }
    cz_cs_pop_scope(cs);
    cz_lc_free(&a);
    cz_lc_free(&c);
    cz_lc_free(&one);
    free(ys);
    free(pub);
    return CZ_OK;
}
