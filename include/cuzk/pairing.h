/*
 * cuzk — optimal ate pairing on BLS12-381.
 *
 * e: G1 × G2 -> GT ⊂ Fp12*, e(P, Q) = final_exp(miller_loop(P, Q)),
 * the same value as blst / zkcrypto / @noble/curves (see cz_final_exp).
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
/* Product of n Miller loops sharing one accumulator (squarings shared;
 * pairs are processed in chunks of 16 on the stack, no allocation). */
void cz_miller_loop_multi(cz_fp12 *f, const cz_g1_affine *p, const cz_g2_affine *q, size_t n);
/* f^(3(p^12 - 1)/r), hard part via the BLS12 addition chain in x
 * (Hayashida–Hayasaka–Teruya). The factor 3 comes with that chain and is
 * what blst, zkcrypto and noble compute too, so values of GT agree with
 * theirs byte for byte; gcd(3, r) = 1 keeps e bilinear and non-degenerate.
 * f must be nonzero (a Miller loop value always is). */
void cz_final_exp(cz_fp12 *r, const cz_fp12 *f);
void cz_pairing(cz_fp12 *r, const cz_g1_affine *p, const cz_g2_affine *q);
/* prod_i e(p[i], q[i]) with one final exponentiation. */
void cz_multi_pairing(cz_fp12 *r, const cz_g1_affine *p, const cz_g2_affine *q, size_t n);

/* ---- prepared G2 (fixed Q, e.g. the Groth16 verifying key) ----------------
 * The Miller loop's line functions depend on P only through two Fp
 * multiplications; everything that depends on Q alone (the doubling and
 * addition steps on the twist) is precomputed once here. Line i is
 * l_i(P) = c0 + (cx·xP)·v + (cy·yP)·v·w, scaled by an Fp2 factor that the
 * final exponentiation removes. */
#define CZ_PAIRING_NUM_LINES 68   /* 63 doublings + 5 additions for |x| */
typedef struct {
    cz_fp2 c0, cx, cy;
} cz_pairing_line;
typedef struct {
    cz_pairing_line lines[CZ_PAIRING_NUM_LINES];
    bool infinity;                /* Q = O: contributes 1 */
} cz_g2_prepared;

/* Precompute the lines of q (affine, in G2, or infinity). ~20 KiB. */
void cz_g2_prepare(cz_g2_prepared *out, const cz_g2_affine *q);
/* f = prod_i miller_loop(p[i], q[i]) (same value as cz_miller_loop_multi
 * on the unprepared points); q is an array of n pointers. */
void cz_miller_loop_prepared(cz_fp12 *f, const cz_g1_affine *p,
                             const cz_g2_prepared *const *q, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_PAIRING_H */
