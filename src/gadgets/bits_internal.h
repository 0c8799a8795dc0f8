/*
 * Boolean-op folding shared by boolean.c and uint32.c.
 *
 * Every bit op is split in two: a fold step (pure, no cs) that resolves
 * constants, repeated variables and negations and either returns a result
 * bit outright or describes one "core" operation on variable operands —
 * which value to allocate and whether the result is its negation — and an
 * emit step that writes the core's single constraint. The per-bit ops run
 * both; the word ops in witness mode run the fold for 32 bits, allocate all
 * the results with one cz_cs_alloc_aux_n call and count the constraints,
 * never touching an LC. One fold for all modes keeps the witness's
 * allocation order identical to the recording's by construction.
 */
#ifndef CZ_GADGETS_BITS_INTERNAL_H
#define CZ_GADGETS_BITS_INTERNAL_H

#include "cuzk/gadgets.h"

typedef enum { CORE_NONE = 0, CORE_AND, CORE_XOR, CORE_XOR3, CORE_CH, CORE_MAJ } cz_core_kind;

typedef struct {
    cz_core_kind kind; /* CORE_NONE: res is the result */
    cz_bit op[3];      /* operands of the core op (variables) */
    uint8_t value;     /* value of the variable to allocate */
    uint8_t neg;       /* result = ¬(allocated variable) */
    cz_bit res;
} cz_core;

static inline cz_bit cz__negate_if(cz_bit b, unsigned n) { return (n & 1) ? cz_bit_not(b) : b; }

static inline unsigned cz__strip(cz_bit *b)
{
    if (b->kind == CZ_BIT_NOT) {
        *b = cz_bit_not(*b);
        return 1;
    }
    return 0;
}

static inline void cz__core_result(cz_core *k, cz_bit r)
{
    k->kind = CORE_NONE;
    k->res = r;
}

/* result of k, negated (for folds that express an op as ¬(other op)) */
static inline void cz__core_negate(cz_core *k)
{
    if (k->kind == CORE_NONE)
        k->res = cz_bit_not(k->res);
    else
        k->neg ^= 1;
}

static inline void cz__fold_and(cz_core *k, cz_bit a, cz_bit b)
{
    if (a.kind == CZ_BIT_CONST) {
        cz__core_result(k, a.value ? b : cz_bit_const(false));
        return;
    }
    if (b.kind == CZ_BIT_CONST) {
        cz__core_result(k, b.value ? a : cz_bit_const(false));
        return;
    }
    if (a.var == b.var) {
        cz__core_result(k, a.kind == b.kind ? a : cz_bit_const(false));
        return;
    }
    k->kind = CORE_AND;
    k->op[0] = a;
    k->op[1] = b;
    k->value = a.value & b.value;
    k->neg = 0;
}

static inline void cz__fold_xor(cz_core *k, cz_bit a, cz_bit b)
{
    if (a.kind == CZ_BIT_CONST) {
        cz__core_result(k, cz__negate_if(b, a.value));
        return;
    }
    if (b.kind == CZ_BIT_CONST) {
        cz__core_result(k, cz__negate_if(a, b.value));
        return;
    }
    unsigned neg = cz__strip(&a) + cz__strip(&b);
    if (a.var == b.var) {
        cz__core_result(k, cz_bit_const(neg & 1));
        return;
    }
    k->kind = CORE_XOR;
    k->op[0] = a;
    k->op[1] = b;
    k->value = a.value ^ b.value;
    k->neg = neg & 1;
}

static inline void cz__fold_xor3(cz_core *k, cz_bit a, cz_bit b, cz_bit c)
{
    if (a.kind == CZ_BIT_CONST || b.kind == CZ_BIT_CONST || c.kind == CZ_BIT_CONST) {
        cz_bit kb = a.kind == CZ_BIT_CONST ? a : b.kind == CZ_BIT_CONST ? b : c;
        cz_bit x = a.kind == CZ_BIT_CONST ? b : a;
        cz_bit y = (a.kind == CZ_BIT_CONST || b.kind == CZ_BIT_CONST) ? c : b;
        cz__fold_xor(k, x, y);
        if (kb.value)
            cz__core_negate(k);
        return;
    }
    unsigned neg = cz__strip(&a) + cz__strip(&b) + cz__strip(&c);
    if (a.var == b.var || a.var == c.var || b.var == c.var) {
        cz_bit rest = a.var == b.var ? c : a.var == c.var ? b : a;
        cz__core_result(k, cz__negate_if(rest, neg));
        return;
    }
    k->kind = CORE_XOR3;
    k->op[0] = a;
    k->op[1] = b;
    k->op[2] = c;
    k->value = a.value ^ b.value ^ c.value;
    k->neg = neg & 1;
}

static inline void cz__fold_ch(cz_core *k, cz_bit a, cz_bit b, cz_bit c)
{
    if (a.kind == CZ_BIT_CONST) {
        cz__core_result(k, a.value ? b : c);
        return;
    }
    if (b.kind == CZ_BIT_CONST && c.kind == CZ_BIT_CONST) {
        cz__core_result(k, b.value == c.value ? b : cz__negate_if(a, c.value));
        return;
    }
    if (b.kind == CZ_BIT_CONST) {
        if (!b.value) { /* ¬a ∧ c */
            cz__fold_and(k, cz_bit_not(a), c);
        } else { /* a ∨ c = ¬(¬a ∧ ¬c) */
            cz__fold_and(k, cz_bit_not(a), cz_bit_not(c));
            cz__core_negate(k);
        }
        return;
    }
    if (c.kind == CZ_BIT_CONST) {
        if (!c.value) { /* a ∧ b */
            cz__fold_and(k, a, b);
        } else { /* ¬a ∨ b = ¬(a ∧ ¬b) */
            cz__fold_and(k, a, cz_bit_not(b));
            cz__core_negate(k);
        }
        return;
    }
    k->kind = CORE_CH;
    k->op[0] = a;
    k->op[1] = b;
    k->op[2] = c;
    k->value = a.value ? b.value : c.value;
    k->neg = 0;
}

static inline void cz__fold_maj(cz_core *k, cz_bit a, cz_bit b, cz_bit c)
{
    if (a.kind != CZ_BIT_CONST && b.kind == CZ_BIT_CONST) {
        cz_bit t = a;
        a = b;
        b = t;
    } else if (a.kind != CZ_BIT_CONST && c.kind == CZ_BIT_CONST) {
        cz_bit t = a;
        a = c;
        c = t;
    }
    if (a.kind == CZ_BIT_CONST) {
        /* maj(1, b, c) = b ∨ c = ¬(¬b ∧ ¬c); maj(0, b, c) = b ∧ c */
        if (a.value) {
            cz__fold_and(k, cz_bit_not(b), cz_bit_not(c));
            cz__core_negate(k);
        } else {
            cz__fold_and(k, b, c);
        }
        return;
    }
    k->kind = CORE_MAJ;
    k->op[0] = a;
    k->op[1] = b;
    k->op[2] = c;
    k->value = (unsigned)(a.value + b.value + c.value) >= 2;
    k->neg = 0;
}

/* Writes the core's constraint for result variable r (recorder/checker). */
void cz_gadget_core_emit(cz_cs *cs, const cz_core *k, cz_var r);

/* Runs k in any mode: allocates, constrains, returns the result bit. */
void cz_gadget_core_finish(cz_cs *cs, cz_core *k, cz_bit *out);

#endif
