/*
 * cuzk — the bellperson-exact gadget family: core types.
 *
 * Filecoin's parameters fit only an R1CS identical to the one
 * rust-fil-proofs builds through bellperson 0.27 / bellpepper-core 0.2
 * gadgets: same variables allocated in the same order, same constraints
 * with the same linear combinations in the same order. The gadgets under
 * cuzk/fil_bp*.h (src/filecoin/bp_*.c) reproduce those gadgets one C
 * function per reference function, on cuzk's constraint system
 * (cuzk/circuit.h: recorder, witness generator, checker). They are NOT
 * cuzk's own cheaper gadgets (cuzk/gadgets.h, cuzk/sha256.h: cz_bit,
 * cz_u32), which serve the PoRep-shaped presets; never mix the two.
 *
 * Values: bellperson carries Option<value>; here a value is meaningful
 * only when cz_cs_has_values(cs) (recording the shape computes none).
 *
 * Namespaces: bellperson's cs.namespace(|| name) maps to
 * cz_cs_push_scope/cz_cs_pop_scope; names never change the R1CS.
 */
#ifndef CUZK_FIL_BP_H
#define CUZK_FIL_BP_H

#include "cuzk/circuit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* bellpepper-core AllocatedBit: a variable constrained to 0/1. */
typedef struct {
    cz_var var;
    bool value;
} cz_bp_abit;

/* bellpepper-core Boolean: Is(bit), Not(bit) or Constant(value). For Is
 * and Not, `bit` is the allocated bit (its own value, not negated). */
typedef enum { CZ_BP_CONST = 0, CZ_BP_IS = 1, CZ_BP_NOT = 2 } cz_bp_bool_kind;
typedef struct {
    cz_bp_bool_kind kind;
    bool constant;   /* CZ_BP_CONST: the value */
    cz_bp_abit bit;  /* CZ_BP_IS / CZ_BP_NOT */
} cz_bp_bool;

/* bellpepper-core AllocatedNum: one variable and its value. */
typedef struct {
    cz_var var;
    cz_fr value;
} cz_bp_num;

static inline cz_bp_bool cz_bp_bool_const(bool v) {
    cz_bp_bool b = { CZ_BP_CONST, v, { 0, false } };
    return b;
}
static inline cz_bp_bool cz_bp_bool_is(cz_bp_abit a) {
    cz_bp_bool b = { CZ_BP_IS, false, a };
    return b;
}
/* Boolean::get_value (meaningful only with values). */
static inline bool cz_bp_bool_value(const cz_bp_bool *b) {
    return b->kind == CZ_BP_CONST ? b->constant : b->kind == CZ_BP_IS ? b->bit.value : !b->bit.value;
}
/* Boolean::not */
static inline cz_bp_bool cz_bp_bool_not(cz_bp_bool b) {
    if (b.kind == CZ_BP_CONST) b.constant = !b.constant;
    else b.kind = b.kind == CZ_BP_IS ? CZ_BP_NOT : CZ_BP_IS;
    return b;
}

/* The three linear combinations of one constraint: initialised together,
 * and cz_bp_enforce3 enforces a·b = c under name and frees all three. */
void cz_bp_lc3_init(cz_cs *cs, cz_lc *a, cz_lc *b, cz_lc *c);
void cz_bp_enforce3(cz_cs *cs, cz_lc *a, cz_lc *b, cz_lc *c, const char *name);

/* AllocatedBit::alloc: allocate aux `value` and enforce (1 − a)·a = 0
 * (A = ONE − a, B = a, C = 0). */
void cz_bp_abit_alloc(cz_cs *cs, cz_bp_abit *out, bool value);

/* lc += coeff · b (Boolean::lc(one, coeff)): Constant(true) adds coeff·ONE,
 * Constant(false) nothing, Is adds coeff·bit, Not adds coeff·ONE − coeff·bit.
 * coeff NULL means 1. */
void cz_bp_bool_lc_add(cz_lc *lc, const cz_bp_bool *b, const cz_fr *coeff);

/* AllocatedNum::alloc (aux) and AllocatedNum::inputize: a new public input
 * x with the num's value and the constraint x · ONE = num (A = x, B = ONE,
 * C = num), as bellpepper-core num.rs. */
void cz_bp_num_alloc(cz_cs *cs, cz_bp_num *out, const cz_fr *value);
void cz_bp_num_inputize(cz_cs *cs, const cz_bp_num *n);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_BP_H */
