/*
 * cuzk — optimal ate pairing on BLS12-381.
 *
 * e: G1 × G2 -> GT ⊂ Fp12*, e(P, Q) = final_exp(miller_loop(P, Q)).
 * Inputs are affine points assumed to be in their subgroups (callers
 * validate on decode); infinity in either argument gives 1.
 * Variable time (pairing inputs are public in Groth16 verification).
 */
#ifndef CUZK_PAIRING_H
#define CUZK_PAIRING_H

#include "cuzk/curve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* f = Miller loop value f_{|x|,Q}(P) (conjugated for x < 0), no final exp. */
void cz_miller_loop(cz_fp12 *f, const cz_g1_affine *p, const cz_g2_affine *q);
/* Product of n Miller loops sharing one accumulator (squarings shared). */
void cz_miller_loop_multi(cz_fp12 *f, const cz_g1_affine *p, const cz_g2_affine *q, size_t n);
/* f^((p^12 - 1)/r), hard part via the BLS12 addition chain in x. */
void cz_final_exp(cz_fp12 *r, const cz_fp12 *f);
void cz_pairing(cz_fp12 *r, const cz_g1_affine *p, const cz_g2_affine *q);
/* prod_i e(p[i], q[i]) with one final exponentiation. */
void cz_multi_pairing(cz_fp12 *r, const cz_g1_affine *p, const cz_g2_affine *q, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_PAIRING_H */
