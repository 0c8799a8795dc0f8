/*
 * G1: E(Fp): y^2 = x^3 + 4, the r-torsion subgroup. Formulas: ec_impl.h.
 * Constants were derived and checked with tools/ec_constants.py, a naive
 * Python model of the curve: the generator is the standard one (entry
 * k = 1 of tests/vectors/bls12_381/g1_*_multiples.bin); β is the cube root
 * of unity for which φ(x, y) = (βx, y) acts on G1 as multiplication by −x²
 * (checked on the generator). The tests cross-check the subgroup test
 * against the naive [r]P = O.
 */
#include "cuzk/curve.h"

#define EC_G g1
#define EC_F fp
#define EC_FE cz_fp

/* 1 in Montgomery form. */
static const cz_fp fe_one = {{
    0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
    0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}};

/* b = 4: two doublings are cheaper than a multiplication. */
static void fe_mul_b(cz_fp *r, const cz_fp *a)
{
    cz_fp_dbl(r, a);
    cz_fp_dbl(r, r);
}

/* Standard generator (Montgomery form) — x = 0x17f1d3a7..., y = 0x08b3f481... */
static const cz_g1_affine ec_gen = {
    {{0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL,
      0xf0ae6acdf3d0e747ULL, 0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL}},
    {{0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL,
      0x51ac582950405194ULL, 0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL}}};

#include "ec_impl.h"

/* β = 0x5f19672f...fffefffe (Montgomery form), a primitive cube root of 1. */
static const cz_fp BETA = {{
    0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
    0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}};

/* Scott, "A note on group membership tests for G1, G2 and GT" (2021):
 * for P on E(Fp), P ∈ G1 iff φ(P) = [−x²]P. Two 64-bit sparse
 * multiplications instead of one 255-bit one. */
bool cz_g1_jac_in_subgroup(const cz_g1_jac *p)
{
    if (cz_g1_jac_is_infinity(p)) return true;
    cz_g1_jac q, phi;
    jac_mul_by_x_abs(&q, p);
    jac_mul_by_x_abs(&q, &q);                 /* [x^2]P */
    cz_g1_jac_neg(&q, &q);
    cz_fp_mul(&phi.x, &p->x, &BETA);          /* x = X/Z^2, so βx = βX/Z^2 */
    phi.y = p->y;
    phi.z = p->z;
    return cz_g1_jac_eq(&phi, &q);
}

/* h_eff = 1 − x = 0xd201000000010001 (the hash-to-curve effective cofactor
 * for G1): maps every point of E(Fp) into G1. Variable time. */
void cz_g1_clear_cofactor(cz_g1_jac *r, const cz_g1_jac *p)
{
    static const uint64_t H_EFF = 0xd201000000010001ULL;
    cz_g1_jac_mul_var(r, p, &H_EFF, 1);
}

void cz_scalar_from_fr(cz_scalar *s, const cz_fr *a)
{
    cz_fr_to_raw(s->l, a);
}
