/*
 * Internal to src/pairing (and its tests): the exponentiation by |x| used
 * by the final exponentiation, exposed so that both of its code paths can
 * be tested (the fallback runs only on degenerate inputs otherwise).
 */
#ifndef CZ_PAIRING_INTERNAL_H
#define CZ_PAIRING_INTERNAL_H

#include "cuzk/field.h"

/* r = a^|x|, |x| = 0xd201000000010000, for a in the cyclotomic subgroup.
 * method 0: the default (compressed, falling back to Granger–Scott);
 * 1: Granger–Scott square-and-multiply; 2: Karabina compressed squarings
 * only (returns false, r untouched, when a decompression is degenerate). */
bool cz__pairing_cyc_exp_xabs(cz_fp12 *r, const cz_fp12 *a, int method);

#endif
