/*
 * bellpepper-core 0.2 gadgets/boolean.rs: AllocatedBit operations, the
 * bit-decomposition helpers and Boolean operations (cuzk/fil_bp_sha256.h).
 *
 * Every case split below follows the reference's match arms in their
 * order: the arm taken decides which variables are allocated and which
 * operand goes into which side of the constraint, and both are part of the
 * R1CS the parameters were made for.
 */
#include "cuzk/fil_bp_sha256.h"

/* cs.alloc of a 0/1 value (no constraint). */
static cz_var alloc_bit_var(cz_cs *cs, bool value) {
    cz_fr v;
    cz_var out;
    cz_fr_from_u64(&v, value ? 1 : 0);
    cz_cs_alloc_aux(cs, &out, &v);
    return out;
}

/* Value an AllocatedBit keeps: only meaningful with values. */
static bool keep(const cz_cs *cs, bool v) { return cz_cs_has_values(cs) ? v : false; }

/* ---- AllocatedBit ------------------------------------------------------------ */

/* As AllocatedBit::alloc_conditionally. */
void cz_bp_abit_alloc_conditionally(cz_cs *cs, cz_bp_abit *out, bool value,
                                    const cz_bp_abit *must_be_false) {
    cz_var mbf = must_be_false->var;
    cz_var v = alloc_bit_var(cs, value);
    cz_lc a, b;
    cz_lc_init(&a, cs);
    cz_lc_init(&b, cs);
    cz_lc_add_var(&a, CZ_VAR_ONE); /* 1 - must_be_false - a */
    cz_lc_sub_var(&a, mbf);
    cz_lc_sub_var(&a, v);
    cz_lc_add_var(&b, v);
    cz_cs_enforce(cs, &a, &b, NULL, "boolean constraint");
    cz_lc_free(&a);
    cz_lc_free(&b);
    out->var = v;
    out->value = keep(cs, value);
}

/* As AllocatedBit::xor: (a + a)·b = a + b − c. */
void cz_bp_abit_xor(cz_cs *cs, cz_bp_abit *out, const cz_bp_abit *a, const cz_bp_abit *b) {
    cz_bp_abit x = *a, y = *b;
    bool r = x.value ^ y.value;
    cz_var c = alloc_bit_var(cs, r);
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, x.var);
    cz_lc_add_var(&la, x.var);
    cz_lc_add_var(&lb, y.var);
    cz_lc_add_var(&lc, x.var);
    cz_lc_add_var(&lc, y.var);
    cz_lc_sub_var(&lc, c);
    cz_bp_enforce3(cs, &la, &lb, &lc, "xor constraint");
    out->var = c;
    out->value = keep(cs, r);
}

/* As AllocatedBit::and: a·b = c. */
void cz_bp_abit_and(cz_cs *cs, cz_bp_abit *out, const cz_bp_abit *a, const cz_bp_abit *b) {
    cz_bp_abit x = *a, y = *b;
    bool r = x.value & y.value;
    cz_var c = alloc_bit_var(cs, r);
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, x.var);
    cz_lc_add_var(&lb, y.var);
    cz_lc_add_var(&lc, c);
    cz_bp_enforce3(cs, &la, &lb, &lc, "and constraint");
    out->var = c;
    out->value = keep(cs, r);
}

/* As AllocatedBit::and_not: a·(1 − b) = c. */
void cz_bp_abit_and_not(cz_cs *cs, cz_bp_abit *out, const cz_bp_abit *a, const cz_bp_abit *b) {
    cz_bp_abit x = *a, y = *b;
    bool r = x.value & !y.value;
    cz_var c = alloc_bit_var(cs, r);
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, x.var);
    cz_lc_add_var(&lb, CZ_VAR_ONE);
    cz_lc_sub_var(&lb, y.var);
    cz_lc_add_var(&lc, c);
    cz_bp_enforce3(cs, &la, &lb, &lc, "and not constraint");
    out->var = c;
    out->value = keep(cs, r);
}

/* As AllocatedBit::nor: (1 − a)·(1 − b) = c. */
void cz_bp_abit_nor(cz_cs *cs, cz_bp_abit *out, const cz_bp_abit *a, const cz_bp_abit *b) {
    cz_bp_abit x = *a, y = *b;
    bool r = !x.value & !y.value;
    cz_var c = alloc_bit_var(cs, r);
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, CZ_VAR_ONE);
    cz_lc_sub_var(&la, x.var);
    cz_lc_add_var(&lb, CZ_VAR_ONE);
    cz_lc_sub_var(&lb, y.var);
    cz_lc_add_var(&lc, c);
    cz_bp_enforce3(cs, &la, &lb, &lc, "nor constraint");
    out->var = c;
    out->value = keep(cs, r);
}

/* ---- bit decompositions --------------------------------------------------------- */

/* As u64_into_boolean_vec_le. */
void cz_bp_u64_into_boolean_vec_le(cz_cs *cs, cz_bp_bool out[64], uint64_t value) {
    for (unsigned i = 0; i < 64; i++) {
        cz_bp_abit b;
        cz_cs_push_scope(cs, "bit %u", i);
        cz_bp_abit_alloc(cs, &b, ((value >> i) & 1) != 0);
        cz_cs_pop_scope(cs);
        out[i] = cz_bp_bool_is(b);
    }
}

/* As field_into_boolean_vec_le. */
void cz_bp_field_into_boolean_vec_le(cz_cs *cs, cz_bp_bool out[CZ_BP_FR_NUM_BITS],
                                     const cz_fr *value) {
    cz_bp_abit bits[CZ_BP_FR_NUM_BITS];
    cz_bp_field_into_allocated_bits_le(cs, bits, value);
    for (unsigned i = 0; i < CZ_BP_FR_NUM_BITS; i++) out[i] = cz_bp_bool_is(bits[i]);
}

/* ---- Boolean ----------------------------------------------------------------------- */

static bool is_const(const cz_bp_bool *b, bool v) {
    return b->kind == CZ_BP_CONST && b->constant == v;
}

/* As Boolean::xor. */
cz_bp_bool cz_bp_bool_xor(cz_cs *cs, const cz_bp_bool *a, const cz_bp_bool *b) {
    cz_bp_abit r;
    /* (Constant(false), x) | (x, Constant(false)) => x */
    if (is_const(a, false)) return *b;
    if (is_const(b, false)) return *a;
    /* (Constant(true), x) | (x, Constant(true)) => !x */
    if (is_const(a, true)) return cz_bp_bool_not(*b);
    if (is_const(b, true)) return cz_bp_bool_not(*a);
    if (a->kind == CZ_BP_IS && b->kind == CZ_BP_NOT) {
        /* xor(is, !not).not(): the Is operand's bit first */
        cz_bp_abit_xor(cs, &r, &a->bit, &b->bit);
        return cz_bp_bool_not(cz_bp_bool_is(r));
    }
    if (a->kind == CZ_BP_NOT && b->kind == CZ_BP_IS) {
        cz_bp_abit_xor(cs, &r, &b->bit, &a->bit);
        return cz_bp_bool_not(cz_bp_bool_is(r));
    }
    /* Is/Is, Not/Not: a XOR b = (NOT a) XOR (NOT b) */
    cz_bp_abit_xor(cs, &r, &a->bit, &b->bit);
    return cz_bp_bool_is(r);
}

/* As Boolean::and. */
cz_bp_bool cz_bp_bool_and(cz_cs *cs, const cz_bp_bool *a, const cz_bp_bool *b) {
    cz_bp_abit r;
    if (is_const(a, false) || is_const(b, false)) return cz_bp_bool_const(false);
    if (is_const(a, true)) return *b;
    if (is_const(b, true)) return *a;
    if (a->kind == CZ_BP_IS && b->kind == CZ_BP_NOT) {
        cz_bp_abit_and_not(cs, &r, &a->bit, &b->bit);
    } else if (a->kind == CZ_BP_NOT && b->kind == CZ_BP_IS) {
        cz_bp_abit_and_not(cs, &r, &b->bit, &a->bit);
    } else if (a->kind == CZ_BP_NOT) { /* Not/Not */
        cz_bp_abit_nor(cs, &r, &a->bit, &b->bit);
    } else {
        cz_bp_abit_and(cs, &r, &a->bit, &b->bit);
    }
    return cz_bp_bool_is(r);
}

/* As Boolean::enforce_equal. */
cz_status cz_bp_bool_enforce_equal(cz_cs *cs, const cz_bp_bool *a, const cz_bp_bool *b) {
    if (a->kind == CZ_BP_CONST && b->kind == CZ_BP_CONST) {
        if (a->constant == b->constant) return CZ_OK;
        cz_cs_fail(cs, CZ_ERR_UNSATISFIED, "enforce_equal of two different constants");
        return CZ_ERR_UNSATISFIED;
    }
    cz_lc c;
    cz_lc_init(&c, cs);
    const char *name;
    if (is_const(a, true) || is_const(b, true)) {
        const cz_bp_bool *x = is_const(a, true) ? b : a;
        cz_fr m1;
        cz_fr_neg(&m1, &CZ_FR_ONE);
        cz_lc_add_var(&c, CZ_VAR_ONE); /* 1 − x */
        cz_bp_bool_lc_add(&c, x, &m1);
        name = "enforce equal to one";
    } else if (is_const(a, false) || is_const(b, false)) {
        const cz_bp_bool *x = is_const(a, false) ? b : a;
        cz_bp_bool_lc_add(&c, x, NULL);
        name = "enforce equal to zero";
    } else {
        cz_fr m1;
        cz_fr_neg(&m1, &CZ_FR_ONE);
        cz_bp_bool_lc_add(&c, a, NULL);
        cz_bp_bool_lc_add(&c, b, &m1);
        name = "enforce equal";
    }
    cz_cs_enforce(cs, NULL, NULL, &c, name);
    cz_lc_free(&c);
    return cz_cs_status(cs);
}

/* As Boolean::sha256_ch. */
cz_bp_bool cz_bp_bool_sha256_ch(cz_cs *cs, const cz_bp_bool *a, const cz_bp_bool *b,
                                const cz_bp_bool *c) {
    bool av = cz_bp_bool_value(a), bv = cz_bp_bool_value(b), cv = cz_bp_bool_value(c);
    bool ch_value = (av & bv) ^ ((!av) & cv);
    cz_bp_bool t1, t2, r;

    if (a->kind == CZ_BP_CONST && b->kind == CZ_BP_CONST && c->kind == CZ_BP_CONST)
        return cz_bp_bool_const(ch_value);
    if (is_const(a, false)) return *c;
    if (is_const(b, false)) { /* (not a) and c */
        t1 = cz_bp_bool_not(*a);
        return cz_bp_bool_and(cs, &t1, c);
    }
    if (is_const(c, false)) return cz_bp_bool_and(cs, a, b);
    if (is_const(c, true)) { /* not (a and (not b)) */
        t1 = cz_bp_bool_not(*b);
        r = cz_bp_bool_and(cs, a, &t1);
        return cz_bp_bool_not(r);
    }
    if (is_const(b, true)) { /* not ((not a) and (not c)) */
        t1 = cz_bp_bool_not(*a);
        t2 = cz_bp_bool_not(*c);
        r = cz_bp_bool_and(cs, &t1, &t2);
        return cz_bp_bool_not(r);
    }
    /* a constant true, or no constant: allocate */
    cz_var ch = alloc_bit_var(cs, ch_value);
    cz_fr m1;
    cz_fr_neg(&m1, &CZ_FR_ONE);
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_bp_bool_lc_add(&la, b, NULL); /* b − c */
    cz_bp_bool_lc_add(&la, c, &m1);
    cz_bp_bool_lc_add(&lb, a, NULL); /* · a */
    cz_lc_add_var(&lc, ch);          /* = ch − c */
    cz_bp_bool_lc_add(&lc, c, &m1);
    cz_bp_enforce3(cs, &la, &lb, &lc, "ch computation");
    cz_bp_abit bit = { ch, keep(cs, ch_value) };
    return cz_bp_bool_is(bit);
}

/* As Boolean::sha256_maj. */
cz_bp_bool cz_bp_bool_sha256_maj(cz_cs *cs, const cz_bp_bool *a, const cz_bp_bool *b,
                                 const cz_bp_bool *c) {
    bool av = cz_bp_bool_value(a), bv = cz_bp_bool_value(b), cv = cz_bp_bool_value(c);
    bool maj_value = (av & bv) ^ (av & cv) ^ (bv & cv);
    cz_bp_bool t1, t2, r;

    if (a->kind == CZ_BP_CONST && b->kind == CZ_BP_CONST && c->kind == CZ_BP_CONST)
        return cz_bp_bool_const(maj_value);
    if (is_const(a, false)) return cz_bp_bool_and(cs, b, c);
    if (is_const(b, false)) return cz_bp_bool_and(cs, a, c);
    if (is_const(c, false)) return cz_bp_bool_and(cs, a, b);
    if (is_const(c, true)) {
        t1 = cz_bp_bool_not(*a);
        t2 = cz_bp_bool_not(*b);
        r = cz_bp_bool_and(cs, &t1, &t2);
        return cz_bp_bool_not(r);
    }
    if (is_const(b, true)) {
        t1 = cz_bp_bool_not(*a);
        t2 = cz_bp_bool_not(*c);
        r = cz_bp_bool_and(cs, &t1, &t2);
        return cz_bp_bool_not(r);
    }
    if (is_const(a, true)) {
        t1 = cz_bp_bool_not(*b);
        t2 = cz_bp_bool_not(*c);
        r = cz_bp_bool_and(cs, &t1, &t2);
        return cz_bp_bool_not(r);
    }
    /* No constant: maj first, then b AND c, then the constraint. */
    cz_var maj = alloc_bit_var(cs, maj_value);
    cz_cs_push_scope(cs, "b and c");
    cz_bp_bool bc = cz_bp_bool_and(cs, b, c);
    cz_cs_pop_scope(cs);
    cz_fr m1;
    cz_fr_neg(&m1, &CZ_FR_ONE);
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_bp_bool_lc_add(&la, &bc, NULL); /* bc + bc − b − c */
    cz_bp_bool_lc_add(&la, &bc, NULL);
    cz_bp_bool_lc_add(&la, b, &m1);
    cz_bp_bool_lc_add(&la, c, &m1);
    cz_bp_bool_lc_add(&lb, a, NULL);   /* · a */
    cz_bp_bool_lc_add(&lc, &bc, NULL); /* = bc − maj */
    cz_lc_sub_var(&lc, maj);
    cz_bp_enforce3(cs, &la, &lb, &lc, "maj computation");
    cz_bp_abit bit = { maj, keep(cs, maj_value) };
    return cz_bp_bool_is(bit);
}
