/*
 * bellpepper-core AllocatedBit::alloc, Boolean::lc, AllocatedNum::alloc and
 * ::inputize (cuzk/fil_bp.h). The exact linear combinations matter: the
 * R1CS fingerprint hashes them after merging duplicate terms.
 */
#include "cuzk/fil_bp.h"

void cz_bp_abit_alloc(cz_cs *cs, cz_bp_abit *out, bool value) {
    cz_fr v;
    cz_fr_from_u64(&v, value ? 1 : 0);
    cz_cs_alloc_aux(cs, &out->var, &v);
    out->value = cz_cs_has_values(cs) ? value : false;
    cz_lc a, b;
    cz_lc_init(&a, cs);
    cz_lc_init(&b, cs);
    cz_lc_add_var(&a, CZ_VAR_ONE); /* (1 - a) */
    cz_lc_sub_var(&a, out->var);
    cz_lc_add_var(&b, out->var);   /* · a = 0 */
    cz_cs_enforce(cs, &a, &b, NULL, "boolean constraint");
    cz_lc_free(&a);
    cz_lc_free(&b);
}

void cz_bp_lc3_init(cz_cs *cs, cz_lc *a, cz_lc *b, cz_lc *c) {
    cz_lc_init(a, cs);
    cz_lc_init(b, cs);
    cz_lc_init(c, cs);
}

void cz_bp_enforce3(cz_cs *cs, cz_lc *a, cz_lc *b, cz_lc *c, const char *name) {
    cz_cs_enforce(cs, a, b, c, name);
    cz_lc_free(a);
    cz_lc_free(b);
    cz_lc_free(c);
}

void cz_bp_bool_lc_add(cz_lc *lc, const cz_bp_bool *b, const cz_fr *coeff) {
    cz_fr one, neg;
    if (!coeff) {
        cz_fr_from_u64(&one, 1);
        coeff = &one;
    }
    switch (b->kind) {
    case CZ_BP_CONST:
        if (b->constant) cz_lc_add(lc, CZ_VAR_ONE, coeff);
        break;
    case CZ_BP_IS:
        cz_lc_add(lc, b->bit.var, coeff);
        break;
    case CZ_BP_NOT:
        cz_lc_add(lc, CZ_VAR_ONE, coeff);
        cz_fr_neg(&neg, coeff);
        cz_lc_add(lc, b->bit.var, &neg);
        break;
    }
}

void cz_bp_num_alloc(cz_cs *cs, cz_bp_num *out, const cz_fr *value) {
    cz_cs_alloc_aux(cs, &out->var, value);
    if (cz_cs_has_values(cs) && value) out->value = *value;
    else cz_fr_from_u64(&out->value, 0);
}

void cz_bp_num_inputize(cz_cs *cs, const cz_bp_num *n) {
    cz_var x;
    cz_cs_alloc_input(cs, &x, &n->value);
    cz_lc a, b, c;
    cz_lc_init(&a, cs);
    cz_lc_init(&b, cs);
    cz_lc_init(&c, cs);
    cz_lc_add_var(&a, x);
    cz_lc_add_var(&b, CZ_VAR_ONE);
    cz_lc_add_var(&c, n->var);
    cz_cs_enforce(cs, &a, &b, &c, "enforce input is correct");
    cz_lc_free(&a);
    cz_lc_free(&b);
    cz_lc_free(&c);
}
