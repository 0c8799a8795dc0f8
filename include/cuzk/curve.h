/*
 * cuzk — the groups G1 (E: y^2 = x^3 + 4 over Fp) and G2 (E': y^2 = x^3 +
 * 4(u+1) over Fp2) of BLS12-381.
 *
 * Representations (secp256k1-style distinct types):
 *   *_affine  (x, y); the point at infinity is x = y = 0 (not on the curve,
 *             since b != 0), so affine bases pack densely (96 / 192 bytes).
 *   *_jac     Jacobian (X, Y, Z): x = X/Z^2, y = Y/Z^3; infinity has Z = 0.
 *   *_xyzz    (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2;
 *             infinity has ZZ = 0. The MSM bucket representation.
 * All coordinates are field elements in Montgomery form.
 *
 * Both groups are written once (src/ec/ec_impl.h) and instantiated for Fp
 * and Fp2. Out arguments may alias inputs unless stated otherwise.
 * Timing: add/dbl/neg are branch-free except where named _var; scalar
 * multiplication _ct is constant time in the scalar (for r, s and toxic
 * waste), _var is not (for public scalars).
 *
 * Scalars: cz_scalar holds a canonical integer as 4 little-endian limbs
 * (< 2^256, need not be reduced mod r for the _var functions).
 */
#ifndef CUZK_CURVE_H
#define CUZK_CURVE_H

#include "cuzk/field.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { uint64_t l[4]; } cz_scalar;

typedef struct { cz_fp x, y; } cz_g1_affine;
typedef struct { cz_fp x, y, z; } cz_g1_jac;
typedef struct { cz_fp x, y, zz, zzz; } cz_g1_xyzz;
typedef struct { cz_fp2 x, y; } cz_g2_affine;
typedef struct { cz_fp2 x, y, z; } cz_g2_jac;
typedef struct { cz_fp2 x, y, zz, zzz; } cz_g2_xyzz;

/* Canonical scalar of an Fr element (leaves Montgomery form). */
void cz_scalar_from_fr(cz_scalar *s, const cz_fr *a);

/* The functions below exist for both groups: replace g1 by g2 (and the
 * point types accordingly). Declared once through a macro for brevity. */
#define CZ_DECLARE_GROUP(G, F)                                                        \
/* standard generator */                                                             \
void cz_##G##_generator(cz_##G##_affine *r);                                         \
void cz_##G##_generator_jac(cz_##G##_jac *r);                                        \
/* ---- affine ---- */                                                               \
void cz_##G##_affine_set_infinity(cz_##G##_affine *r);                               \
bool cz_##G##_affine_is_infinity(const cz_##G##_affine *p);                          \
bool cz_##G##_affine_eq(const cz_##G##_affine *a, const cz_##G##_affine *b);         \
void cz_##G##_affine_neg(cz_##G##_affine *r, const cz_##G##_affine *p);              \
/* on the curve (infinity counts as on the curve) */                                 \
bool cz_##G##_affine_is_on_curve(const cz_##G##_affine *p);                          \
/* in the prime-order subgroup, via the endomorphism test (fast);            */      \
/* requires p on the curve; infinity is in the subgroup. Variable time.      */      \
bool cz_##G##_affine_in_subgroup(const cz_##G##_affine *p);                          \
/* ---- Jacobian ---- */                                                             \
void cz_##G##_jac_set_infinity(cz_##G##_jac *r);                                     \
bool cz_##G##_jac_is_infinity(const cz_##G##_jac *p);                                \
void cz_##G##_jac_from_affine(cz_##G##_jac *r, const cz_##G##_affine *p);            \
/* one inversion; infinity -> (0,0) */                                               \
void cz_##G##_jac_to_affine(cz_##G##_affine *r, const cz_##G##_jac *p);              \
bool cz_##G##_jac_eq(const cz_##G##_jac *a, const cz_##G##_jac *b);                  \
void cz_##G##_jac_neg(cz_##G##_jac *r, const cz_##G##_jac *p);                       \
void cz_##G##_jac_dbl(cz_##G##_jac *r, const cz_##G##_jac *p);                       \
/* complete for all inputs: handles infinity and a == b */                          \
void cz_##G##_jac_add(cz_##G##_jac *r, const cz_##G##_jac *a, const cz_##G##_jac *b); \
/* mixed addition, complete for all inputs (b may be infinity) */                   \
void cz_##G##_jac_add_affine(cz_##G##_jac *r, const cz_##G##_jac *a, const cz_##G##_affine *b); \
/* same results, variable time (bare add-2007-bl / madd-2007-bl, branching */      \
/* on the special cases): ~15% cheaper, for public points only.             */      \
void cz_##G##_jac_add_var(cz_##G##_jac *r, const cz_##G##_jac *a, const cz_##G##_jac *b); \
void cz_##G##_jac_add_affine_var(cz_##G##_jac *r, const cz_##G##_jac *a, const cz_##G##_affine *b); \
bool cz_##G##_jac_is_on_curve(const cz_##G##_jac *p);                                \
bool cz_##G##_jac_in_subgroup(const cz_##G##_jac *p);                                \
/* [k]P, constant time in k (fixed 256-bit ladder/window). */                       \
void cz_##G##_jac_mul_ct(cz_##G##_jac *r, const cz_##G##_jac *p, const cz_scalar *k); \
/* [k]P, variable time; k given as nlimbs little-endian limbs. */                   \
void cz_##G##_jac_mul_var(cz_##G##_jac *r, const cz_##G##_jac *p, const uint64_t *k, size_t nlimbs); \
/* out[i] = affine(in[i]) with one shared inversion; infinity -> (0,0).     */      \
/* out must not overlap in. Variable time in which points are infinity.     */      \
void cz_##G##_batch_to_affine(cz_##G##_affine *out, const cz_##G##_jac *in, size_t n); \
/* multiply by the cofactor-clearing scalar (effective cofactor h_eff of    */       \
/* RFC 9380: G1 1-x, G2 via Budroni-Pintore); any curve point -> subgroup.  */       \
/* Variable time.                                                            */       \
void cz_##G##_clear_cofactor(cz_##G##_jac *r, const cz_##G##_jac *p);                \
/* ---- XYZZ (MSM buckets; _var: branches on infinity / equality) ---- */           \
void cz_##G##_xyzz_set_infinity(cz_##G##_xyzz *r);                                   \
bool cz_##G##_xyzz_is_infinity(const cz_##G##_xyzz *p);                              \
void cz_##G##_xyzz_add_affine_var(cz_##G##_xyzz *r, const cz_##G##_xyzz *a, const cz_##G##_affine *b); \
void cz_##G##_xyzz_sub_affine_var(cz_##G##_xyzz *r, const cz_##G##_xyzz *a, const cz_##G##_affine *b); \
void cz_##G##_xyzz_add_var(cz_##G##_xyzz *r, const cz_##G##_xyzz *a, const cz_##G##_xyzz *b); \
void cz_##G##_xyzz_dbl_var(cz_##G##_xyzz *r, const cz_##G##_xyzz *p);                \
void cz_##G##_xyzz_to_jac(cz_##G##_jac *r, const cz_##G##_xyzz *p);                  \
void cz_##G##_jac_to_xyzz(cz_##G##_xyzz *r, const cz_##G##_jac *p);

CZ_DECLARE_GROUP(g1, fp)
CZ_DECLARE_GROUP(g2, fp2)

/* ---- encodings (zcash / Filecoin, docs/design.md §3.1) ---------------------
 * compress: 48 / 96 bytes; serialize: uncompressed 96 / 192 bytes.
 * Decoding validates, in order, and returns a distinct status for each:
 * flags (CZ_ERR_ENCODING_FLAGS: compression bit must match the format, sort
 * bit must be 0 for uncompressed and for infinity), canonical infinity
 * (CZ_ERR_INFINITY_ENCODING), coordinates < p (CZ_ERR_NOT_CANONICAL),
 * x has a square root (CZ_ERR_NO_SQRT, compressed only), on curve
 * (CZ_ERR_NOT_ON_CURVE), in subgroup (CZ_ERR_NOT_IN_SUBGROUP).
 * The _unchecked decoders skip only the subgroup test (the parameter loader
 * runs it in parallel itself). */
void cz_g1_compress(uint8_t out[48], const cz_g1_affine *p);
void cz_g1_serialize(uint8_t out[96], const cz_g1_affine *p);
CZ_WUR cz_status cz_g1_uncompress(cz_g1_affine *r, const uint8_t in[48]);
CZ_WUR cz_status cz_g1_deserialize(cz_g1_affine *r, const uint8_t in[96]);
CZ_WUR cz_status cz_g1_deserialize_unchecked(cz_g1_affine *r, const uint8_t in[96]);
void cz_g2_compress(uint8_t out[96], const cz_g2_affine *p);
void cz_g2_serialize(uint8_t out[192], const cz_g2_affine *p);
CZ_WUR cz_status cz_g2_uncompress(cz_g2_affine *r, const uint8_t in[96]);
CZ_WUR cz_status cz_g2_deserialize(cz_g2_affine *r, const uint8_t in[192]);
CZ_WUR cz_status cz_g2_deserialize_unchecked(cz_g2_affine *r, const uint8_t in[192]);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_CURVE_H */
