/*
 * Internal to src/pairing: sparse tower multiplications used by the Miller
 * loop and the final exponentiation. Same contracts as field.h (Montgomery
 * form, reduced inputs, outputs may alias inputs, constant time).
 */
#ifndef CZ_PAIRING_TOWER_INTERNAL_H
#define CZ_PAIRING_TOWER_INTERNAL_H

#include "cuzk/field.h"

/* r = a·(b0 + b1 v): 5 Fp2 multiplications. */
void cz_fp6_mul_by_01(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b0, const cz_fp2 *b1);
/* r = a·(b1 v): 3 Fp2 multiplications. */
void cz_fp6_mul_by_1(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b1);
/* r = a·(o0 + o1 v + o4 v w): the line shape of the M-type twist
 * (coefficients 0, 1 and 4 of c0.c0, c0.c1, c0.c2, c1.c0, c1.c1, c1.c2);
 * 13 Fp2 multiplications. */
void cz_fp12_mul_by_014(cz_fp12 *r, const cz_fp12 *a, const cz_fp2 *o0, const cz_fp2 *o1,
                        const cz_fp2 *o4);

#endif
