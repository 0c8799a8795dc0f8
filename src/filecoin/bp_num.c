/*
 * bellpepper-core 0.2 num.rs (Num, AllocatedNum operations) and
 * storage-proofs-core's constraint.rs, encode.rs, variables.rs and
 * insertion.rs, bellperson-exact (cuzk/fil_bp_num.h).
 *
 * Each function below is one reference function, allocating and enforcing
 * in the reference's order. LCs are built term by term; the recorder
 * merges duplicate variables, as bellpepper's LinearCombination (an
 * indexer keyed by variable) does, so the recorded rows are the same.
 */
#include "cuzk/fil_bp_num.h"
#include "cuzk/fil_bp_sha256.h" /* AllocatedBit::and / ::nor (insert_8) */

#include <string.h>

/* ---- small LC helpers ---------------------------------------------------- */

/* ---- Num ------------------------------------------------------------------ */

void cz_bp_lcnum_init(cz_bp_lcnum *n, const cz_cs *cs) {
    cz_lc_init(&n->lc, cs);
    n->value = CZ_FR_ZERO;
}

void cz_bp_lcnum_from_num(cz_bp_lcnum *n, const cz_cs *cs, const cz_bp_num *a) {
    cz_lc_init(&n->lc, cs);
    cz_lc_add_var(&n->lc, a->var);
    n->value = a->value;
}

void cz_bp_lcnum_free(cz_bp_lcnum *n) { cz_lc_free(&n->lc); }

/* as bellpepper-core Num::add_bool_with_coeff */
void cz_bp_lcnum_add_bool_with_coeff(cz_bp_lcnum *n, const cz_bp_bool *bit, const cz_fr *coeff) {
    if (cz_bp_bool_value(bit)) cz_fr_add(&n->value, &n->value, coeff);
    cz_bp_bool_lc_add(&n->lc, bit, coeff);
}

/* as bellpepper-core Num::add */
void cz_bp_lcnum_add(cz_bp_lcnum *n, const cz_bp_lcnum *other) {
    cz_lc_add_lc(&n->lc, &other->lc, NULL);
    cz_fr_add(&n->value, &n->value, &other->value);
}

/* as bellpepper-core Num::scale */
void cz_bp_lcnum_scale(cz_bp_lcnum *n, const cz_fr *s) {
    cz_term *t = n->lc.heap ? n->lc.heap : n->lc.inl;
    for (uint32_t i = 0; i < n->lc.n; i++) cz_fr_mul(&t[i].coeff, &t[i].coeff, s);
    cz_fr_mul(&n->value, &n->value, s);
}

/* as bellpepper-core Num::lc(coeff) */
void cz_bp_lcnum_lc(cz_lc *dst, const cz_bp_lcnum *n, const cz_fr *coeff) {
    cz_lc_add_lc(dst, &n->lc, coeff);
}

/* ---- AllocatedNum ------------------------------------------------------------ */

/* as bellpepper-core boolean::field_into_allocated_bits_le: the 255 low
 * bits of the canonical representation (Fr's 256-bit repr with the one
 * leading bit above r's top bit skipped), allocated little-endian. */
void cz_bp_field_into_allocated_bits_le(cz_cs *cs, cz_bp_abit out[CZ_BP_FR_NUM_BITS],
                                        const cz_fr *value) {
    uint64_t limbs[4] = {0, 0, 0, 0};
    if (cz_cs_has_values(cs) && value) cz_fr_to_raw(limbs, value);
    for (unsigned i = 0; i < CZ_BP_FR_NUM_BITS; i++) {
        cz_cs_push_scope(cs, "bit %u", i);
        cz_bp_abit_alloc(cs, &out[i], (limbs[i / 64] >> (i % 64)) & 1);
        cz_cs_pop_scope(cs);
    }
}

/* as bellpepper-core AllocatedNum::to_bits_le */
void cz_bp_num_to_bits_le(cz_cs *cs, cz_bp_bool out[CZ_BP_FR_NUM_BITS], const cz_bp_num *n) {
    cz_bp_abit bits[CZ_BP_FR_NUM_BITS];
    cz_bp_field_into_allocated_bits_le(cs, bits, &n->value);
    cz_lc c;
    cz_lc_init(&c, cs);
    for (unsigned i = 0; i < CZ_BP_FR_NUM_BITS; i++) cz_lc_add_pow2(&c, bits[i].var, i);
    cz_lc_sub_var(&c, n->var);
    /* A and B are empty: 0 · 0 = Σ 2^i·b_i − num */
    cz_cs_enforce(cs, NULL, NULL, &c, "unpacking constraint");
    cz_lc_free(&c);
    for (unsigned i = 0; i < CZ_BP_FR_NUM_BITS; i++) out[i] = cz_bp_bool_is(bits[i]);
}

/* as bellpepper-core AllocatedNum::mul */
void cz_bp_num_mul(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a, const cz_bp_num *b) {
    cz_fr v;
    cz_fr_mul(&v, &a->value, &b->value);
    cz_var av = a->var, bv = b->var;
    cz_bp_num_alloc(cs, out, &v);
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, av);
    cz_lc_add_var(&lb, bv);
    cz_lc_add_var(&lc, out->var);
    cz_bp_enforce3(cs, &la, &lb, &lc, "multiplication constraint");
}

/* as bellpepper-core AllocatedNum::square */
void cz_bp_num_square(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a) {
    cz_fr v;
    cz_fr_sqr(&v, &a->value);
    cz_var av = a->var;
    cz_bp_num_alloc(cs, out, &v);
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, av);
    cz_lc_add_var(&lb, av);
    cz_lc_add_var(&lc, out->var);
    cz_bp_enforce3(cs, &la, &lb, &lc, "squaring constraint");
}

/* as bellpepper-core AllocatedNum::assert_nonzero */
void cz_bp_num_assert_nonzero(cz_cs *cs, const cz_bp_num *a) {
    cz_fr inv = CZ_FR_ZERO;
    if (cz_cs_has_values(cs)) {
        if (cz_fr_is_zero(&a->value))
            cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "assert_nonzero: value is zero (DivisionByZero)");
        else
            cz_fr_inv_var(&inv, &a->value);
    }
    cz_var iv;
    cz_cs_alloc_aux(cs, &iv, &inv);
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, a->var);
    cz_lc_add_var(&lb, iv);
    cz_lc_add_var(&lc, CZ_VAR_ONE);
    cz_bp_enforce3(cs, &la, &lb, &lc, "nonzero assertion constraint");
}

/* as bellpepper-core AllocatedNum::conditionally_reverse */
void cz_bp_num_conditionally_reverse(cz_cs *cs, cz_bp_num *c, cz_bp_num *d, const cz_bp_num *a,
                                     const cz_bp_num *b, const cz_bp_bool *cond) {
    const cz_bp_num A = *a, B = *b;
    const cz_bp_bool k = *cond;
    bool sw = cz_bp_bool_value(&k);
    cz_lc la, lb, lc;

    cz_cs_push_scope(cs, "conditional reversal result 1");
    cz_bp_num_alloc(cs, c, sw ? &B.value : &A.value);
    cz_cs_pop_scope(cs);
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, A.var);
    cz_lc_sub_var(&la, B.var);
    cz_bp_bool_lc_add(&lb, &k, NULL);
    cz_lc_add_var(&lc, A.var);
    cz_lc_sub_var(&lc, c->var);
    cz_bp_enforce3(cs, &la, &lb, &lc, "first conditional reversal");

    cz_cs_push_scope(cs, "conditional reversal result 2");
    cz_bp_num_alloc(cs, d, sw ? &A.value : &B.value);
    cz_cs_pop_scope(cs);
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, B.var);
    cz_lc_sub_var(&la, A.var);
    cz_bp_bool_lc_add(&lb, &k, NULL);
    cz_lc_add_var(&lc, B.var);
    cz_lc_sub_var(&lc, d->var);
    cz_bp_enforce3(cs, &la, &lb, &lc, "second conditional reversal");
}

/* ---- storage-proofs-core gadgets/constraint.rs ------------------------------ */

/* as constraint::equal: a · 1 = b */
void cz_bp_constraint_equal(cz_cs *cs, const cz_bp_num *a, const cz_bp_num *b) {
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, a->var);
    cz_lc_add_var(&lb, CZ_VAR_ONE);
    cz_lc_add_var(&lc, b->var);
    cz_bp_enforce3(cs, &la, &lb, &lc, "equal");
}

/* as constraint::sum: (a + b) · 1 = sum */
void cz_bp_constraint_sum(cz_cs *cs, const cz_bp_num *a, const cz_bp_num *b, const cz_bp_num *s) {
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, a->var);
    cz_lc_add_var(&la, b->var);
    cz_lc_add_var(&lb, CZ_VAR_ONE);
    cz_lc_add_var(&lc, s->var);
    cz_bp_enforce3(cs, &la, &lb, &lc, "sum constraint");
}

/* as constraint::difference: (difference + b) · 1 = a */
void cz_bp_constraint_difference(cz_cs *cs, const cz_bp_num *a, const cz_bp_num *b,
                                 const cz_bp_num *d) {
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, d->var);
    cz_lc_add_var(&la, b->var);
    cz_lc_add_var(&lb, CZ_VAR_ONE);
    cz_lc_add_var(&lc, a->var);
    cz_bp_enforce3(cs, &la, &lb, &lc, "subtraction constraint");
}

/* as constraint::add */
void cz_bp_constraint_add(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a, const cz_bp_num *b) {
    const cz_bp_num A = *a, B = *b;
    cz_fr v;
    cz_fr_add(&v, &A.value, &B.value);
    cz_cs_push_scope(cs, "add_num");
    cz_bp_num_alloc(cs, out, &v);
    cz_cs_pop_scope(cs);
    cz_bp_constraint_sum(cs, &A, &B, out);
}

/* as constraint::sub */
void cz_bp_constraint_sub(cz_cs *cs, cz_bp_num *out, const cz_bp_num *a, const cz_bp_num *b) {
    const cz_bp_num A = *a, B = *b;
    cz_fr v;
    cz_fr_sub(&v, &A.value, &B.value);
    cz_cs_push_scope(cs, "sub_num");
    cz_bp_num_alloc(cs, out, &v);
    cz_cs_pop_scope(cs);
    cz_bp_constraint_difference(cs, &A, &B, out);
}

/* ---- gadgets/encode.rs --------------------------------------------------------- */

/* as encode::encode */
void cz_bp_encode(cz_cs *cs, cz_bp_num *out, const cz_bp_num *key, const cz_bp_num *value) {
    cz_cs_push_scope(cs, "encode_add");
    cz_bp_constraint_add(cs, out, key, value);
    cz_cs_pop_scope(cs);
}

/* as encode::decode */
void cz_bp_decode(cz_cs *cs, cz_bp_num *out, const cz_bp_num *key, const cz_bp_num *value) {
    cz_cs_push_scope(cs, "decode_sub");
    cz_bp_constraint_sub(cs, out, value, key);
    cz_cs_pop_scope(cs);
}

/* ---- gadgets/variables.rs ---------------------------------------------------------- */

/* as Root::allocated */
void cz_bp_root_allocated(cz_cs *cs, cz_bp_num *out, const cz_bp_root *root) {
    if (root->is_var) {
        *out = root->var;
        return;
    }
    cz_fr v = root->val;
    cz_bp_num_alloc(cs, out, &v);
}

/* as Root::var */
void cz_bp_root_var(cz_cs *cs, cz_bp_root *out, const cz_fr *value) {
    cz_bp_num n;
    cz_bp_num_alloc(cs, &n, value);
    *out = cz_bp_root_from_allocated(&n);
}

/* ---- gadgets/insertion.rs ---------------------------------------------------------- */

/* as insertion::pick: c = cond ? a : b; (b − a) · cond = (b − c) */
void cz_bp_pick(cz_cs *cs, cz_bp_num *out, const cz_bp_bool *cond, const cz_bp_num *a,
                const cz_bp_num *b) {
    const cz_bp_num A = *a, B = *b;
    const cz_bp_bool k = *cond;
    cz_cs_push_scope(cs, "pick result");
    cz_bp_num_alloc(cs, out, cz_bp_bool_value(&k) ? &A.value : &B.value);
    cz_cs_pop_scope(cs);
    cz_lc la, lb, lc;
    cz_bp_lc3_init(cs, &la, &lb, &lc);
    cz_lc_add_var(&la, B.var);
    cz_lc_sub_var(&la, A.var);
    cz_bp_bool_lc_add(&lb, &k, NULL);
    cz_lc_add_var(&lc, B.var);
    cz_lc_sub_var(&lc, out->var);
    cz_bp_enforce3(cs, &la, &lb, &lc, "pick");
}

static void pick_named(cz_cs *cs, const char *name, cz_bp_num *out, const cz_bp_bool *cond,
                       const cz_bp_num *a, const cz_bp_num *b) {
    cz_cs_push_scope(cs, "%s", name);
    cz_bp_pick(cs, out, cond, a, b);
    cz_cs_pop_scope(cs);
}

/* as insertion::select */
void cz_bp_select(cz_cs *cs, cz_bp_num *out, const cz_bp_num *from, const cz_bp_bool *bits,
                  unsigned nbits) {
    if (nbits < 1 || nbits > CZ_BP_INSERT_MAX_BITS) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "select: %u path bits unsupported", nbits);
        out->var = cz_var_aux(0);
        out->value = CZ_FR_ZERO;
        return;
    }
    cz_bp_num state[1u << CZ_BP_INSERT_MAX_BITS], next[1u << (CZ_BP_INSERT_MAX_BITS - 1)];
    size_t size = (size_t)1 << nbits;
    memcpy(state, from, size * sizeof *state);
    size_t half = size / 2;
    /* most significant bit first */
    for (unsigned i = 0; i < nbits; i++) {
        const cz_bp_bool *bit = &bits[nbits - 1 - i];
        for (size_t j = 0; j < half; j++) {
            cz_cs_push_scope(cs, "pick %u, %zu", i, j);
            cz_bp_pick(cs, &next[j], bit, &state[half + j], &state[j]);
            cz_cs_pop_scope(cs);
        }
        memcpy(state, next, half * sizeof *state);
        half /= 2;
    }
    *out = state[0];
}

/* as insertion::insert_2 */
static void insert_2(cz_cs *cs, cz_bp_num *out, const cz_bp_num *element, const cz_bp_bool *bits,
                     const cz_bp_num *elements) {
    pick_named(cs, "binary insert 0", &out[0], &bits[0], &elements[0], element);
    pick_named(cs, "binary insert 1", &out[1], &bits[0], element, &elements[0]);
}

/* as insertion::insert_4 (positions 0..3, each first under b0, then b1) */
static void insert_4(cz_cs *cs, cz_bp_num *out, const cz_bp_num *element, const cz_bp_bool *bits,
                     const cz_bp_num *elements) {
    const cz_bp_bool *b0 = &bits[0], *b1 = &bits[1];
    const cz_bp_num *a = element, *b = &elements[0], *c = &elements[1], *d = &elements[2];
    cz_bp_num p0_x0, p1_x0, p2_x1, p3_x1;

    pick_named(cs, "p0_x0", &p0_x0, b0, b, a);
    pick_named(cs, "p0", &out[0], b1, b, &p0_x0);

    pick_named(cs, "p1_x0", &p1_x0, b0, a, b);
    pick_named(cs, "p1", &out[1], b1, c, &p1_x0);

    pick_named(cs, "p2_x1", &p2_x1, b0, d, a);
    pick_named(cs, "p2", &out[2], b1, &p2_x1, c);

    pick_named(cs, "p3_x1", &p3_x1, b0, a, d);
    pick_named(cs, "p3", &out[3], b1, &p3_x1, d);
}

/* as insertion::insert_8 */
static void insert_8(cz_cs *cs, cz_bp_num *out, const cz_bp_num *element, const cz_bp_bool *bits,
                     const cz_bp_num *elements) {
    const cz_bp_bool *b0 = &bits[0], *b1 = &bits[1], *b2 = &bits[2];
    const cz_bp_num *a = element, *b = &elements[0], *c = &elements[1], *d = &elements[2],
                    *e = &elements[3], *f = &elements[4], *g = &elements[5], *h = &elements[6];
    cz_bp_abit nor_bit, and_bit;
    if (b0->kind != CZ_BP_IS || b1->kind != CZ_BP_IS) {
        /* the reference panics: "bits must be allocated and unnegated" */
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "insert_8: bits must be allocated and unnegated");
        nor_bit.var = and_bit.var = cz_var_aux(0);
        nor_bit.value = and_bit.value = false;
    } else {
        cz_cs_push_scope(cs, "b0 nor b1");
        cz_bp_abit_nor(cs, &nor_bit, &b0->bit, &b1->bit);
        cz_cs_pop_scope(cs);
        cz_cs_push_scope(cs, "b0 and b1");
        cz_bp_abit_and(cs, &and_bit, &b0->bit, &b1->bit);
        cz_cs_pop_scope(cs);
    }
    const cz_bp_bool b0_nor_b1 = cz_bp_bool_is(nor_bit), b0_and_b1 = cz_bp_bool_is(and_bit);
    cz_bp_num p0_xx0, p1_x00, p1_xx0, p2_x10, p2_xx0, p3_xx0, p4_xx1, p5_x01, p5_xx1, p6_x11,
        p6_xx1, p7_xx1;

    pick_named(cs, "p0_xx0", &p0_xx0, &b0_nor_b1, a, b);
    pick_named(cs, "p0", &out[0], b2, b, &p0_xx0);

    pick_named(cs, "p1_x00", &p1_x00, b0, a, b);
    pick_named(cs, "p1_xx0", &p1_xx0, b1, c, &p1_x00);
    pick_named(cs, "p1", &out[1], b2, c, &p1_xx0);

    pick_named(cs, "p2_x10", &p2_x10, b0, d, a);
    pick_named(cs, "p2_xx0", &p2_xx0, b1, &p2_x10, c);
    pick_named(cs, "p2", &out[2], b2, d, &p2_xx0);

    pick_named(cs, "p3_xx0", &p3_xx0, &b0_and_b1, a, d);
    pick_named(cs, "p3", &out[3], b2, e, &p3_xx0);

    pick_named(cs, "p4_xx1", &p4_xx1, &b0_nor_b1, a, f);
    pick_named(cs, "p4", &out[4], b2, &p4_xx1, e);

    pick_named(cs, "p5_x01", &p5_x01, b0, a, f);
    pick_named(cs, "p5_xx1", &p5_xx1, b1, g, &p5_x01);
    pick_named(cs, "p5", &out[5], b2, &p5_xx1, f);

    pick_named(cs, "p6_x11", &p6_x11, b0, h, a);
    pick_named(cs, "p6_xx1", &p6_xx1, b1, &p6_x11, g);
    pick_named(cs, "p6", &out[6], b2, &p6_xx1, g);

    pick_named(cs, "p7_xx1", &p7_xx1, &b0_and_b1, a, h);
    pick_named(cs, "p7", &out[7], b2, &p7_xx1, h);
}

/* as insertion::insert */
void cz_bp_insert(cz_cs *cs, cz_bp_num *out, const cz_bp_num *element, const cz_bp_bool *bits,
                  unsigned nbits, const cz_bp_num *elements) {
    if (nbits < 1 || nbits > CZ_BP_INSERT_MAX_BITS) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "insert: %u index bits unsupported", nbits);
        return;
    }
    size_t size = (size_t)1 << nbits;
    if (size == 2) {
        insert_2(cs, out, element, bits, elements);
        return;
    }
    if (size == 4) {
        insert_4(cs, out, element, bits, elements);
        return;
    }
    if (size == 8) {
        insert_8(cs, out, element, bits, elements);
        return;
    }
    /* General case: the potential result for index k is elements with
     * element at position k; output position pos selects, over k, the
     * entry at pos of each potential result. */
    cz_bp_num choices[1u << CZ_BP_INSERT_MAX_BITS];
    for (size_t pos = 0; pos < size; pos++) {
        for (size_t index = 0; index < size; index++)
            choices[index] = pos < index ? elements[pos] : pos == index ? *element : elements[pos - 1];
        cz_cs_push_scope(cs, "choice at %zu", pos);
        cz_bp_select(cs, &out[pos], choices, bits, nbits);
        cz_cs_pop_scope(cs);
    }
}
