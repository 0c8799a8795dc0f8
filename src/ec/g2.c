/*
 * G2: E'(Fp2): y^2 = x^3 + 4(1+u) (M-type twist), the r-torsion subgroup.
 * Formulas: ec_impl.h. Constants were derived with tools/ec_constants.py
 * (a naive Python model of the curve) and checked there: ψ(G) = [x]G on
 * the standard generator (entry k = 1 of
 * tests/vectors/bls12_381/g2_*_multiples.bin).
 */
#include "cuzk/curve.h"

#define EC_G g2
#define EC_F fp2
#define EC_FE cz_fp2

static const cz_fp2 fe_one = {
    {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
      0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
    {{0}}};

/* b' = 4(1+u): (a0 + a1 u)(1+u) = (a0 - a1) + (a0 + a1)u, then ×4 by doubling. */
static void fe_mul_b(cz_fp2 *r, const cz_fp2 *a)
{
    cz_fp2_mul_by_nonresidue(r, a);
    cz_fp2_dbl(r, r);
    cz_fp2_dbl(r, r);
}

/* Standard generator, Montgomery form; x = x0 + x1·u with
 * x0 = 0x024aa2b2..., x1 = 0x13e02b60..., y0 = 0x0ce5d527..., y1 = 0x0606c4a0... */
static const cz_g2_affine ec_gen = {
    {{{0xf5f28fa202940a10ULL, 0xb3f5fb2687b4961aULL, 0xa1a893b53e2ae580ULL,
       0x9894999d1a3caee9ULL, 0x6f67b7631863366bULL, 0x058191924350bcd7ULL}},
     {{0xa5a9c0759e23f606ULL, 0xaaa0c59dbccd60c3ULL, 0x3bb17e18e2867806ULL,
       0x1b1ab6cc8541b367ULL, 0xc2b6ed0ef2158547ULL, 0x11922a097360edf3ULL}}},
    {{{0x4c730af860494c4aULL, 0x597cfa1f5e369c5aULL, 0xe7e6856caa0a635aULL,
       0xbbefb5e96e0d495fULL, 0x07d3a975f0ef25a2ULL, 0x0083fd8e7e80dae5ULL}},
     {{0xadc0fc92df64b05dULL, 0x18aa270a2b1461dcULL, 0x86adac6a3be4eba0ULL,
       0x79495c4ec93da33aULL, 0xe7175850a43ccaedULL, 0x0b2bc2a163de1bf2ULL}}}};

#include "ec_impl.h"

/* ψ = untwist ∘ Frobenius ∘ twist: ψ(x, y) = (cx·x^p, cy·y^p) with
 * cx = 1/(1+u)^((p−1)/3) = 0x1a0111ea...aaad·u (c0 = 0) and
 * cy = 1/(1+u)^((p−1)/2) = 0x135203e6...dea2 + 0x06af0e04...cc09·u. */
static const cz_fp2 PSI_CX = {
    {{0}},
    {{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL,
      0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}}};
static const cz_fp2 PSI_CY = {
    {{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL,
      0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
    {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
      0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}}};

/* ψ on Jacobian coordinates: Frobenius is a field automorphism, so
 * (X, Y, Z) -> (cx·X^p, cy·Y^p, Z^p) represents ψ of the affine point. */
static void g2_psi(cz_g2_jac *r, const cz_g2_jac *p)
{
    cz_fp2 t;
    cz_fp2_frobenius(&t, &p->x);
    cz_fp2_mul(&r->x, &t, &PSI_CX);
    cz_fp2_frobenius(&t, &p->y);
    cz_fp2_mul(&r->y, &t, &PSI_CY);
    cz_fp2_frobenius(&r->z, &p->z);
}

/* [x]P for the (negative) BLS parameter x. */
static void g2_mul_by_x(cz_g2_jac *r, const cz_g2_jac *p)
{
    jac_mul_by_x_abs(r, p);
    cz_g2_jac_neg(r, r);
}

/* Scott (2021): for P on E'(Fp2), P ∈ G2 iff ψ(P) = [x]P. */
bool cz_g2_jac_in_subgroup(const cz_g2_jac *p)
{
    if (cz_g2_jac_is_infinity(p)) return true;
    cz_g2_jac a, b;
    g2_psi(&a, p);
    g2_mul_by_x(&b, p);
    return cz_g2_jac_eq(&a, &b);
}

/* Budroni–Pintore: [h_eff]P = [x²−x−1]P + [x−1]ψ(P) + ψ²([2]P), computed as
 * in RFC 9380 G.3 (two multiplications by x instead of a 636-bit scalar).
 * Variable time. */
void cz_g2_clear_cofactor(cz_g2_jac *r, const cz_g2_jac *p)
{
    cz_g2_jac t1, t2, t3, np;
    g2_mul_by_x(&t1, p);            /* t1 = [x]P */
    g2_psi(&t2, p);                 /* t2 = ψ(P) */
    cz_g2_jac_dbl(&t3, p);
    g2_psi(&t3, &t3);
    g2_psi(&t3, &t3);               /* t3 = ψ²(2P) */
    cz_g2_jac_neg(&np, &t2);
    cz_g2_jac_add_var(&t3, &t3, &np);     /* t3 = ψ²(2P) − ψ(P) */
    cz_g2_jac_add_var(&t2, &t1, &t2);     /* t2 = [x]P + ψ(P) */
    g2_mul_by_x(&t2, &t2);          /* t2 = [x²]P + [x]ψ(P) */
    cz_g2_jac_add_var(&t3, &t3, &t2);
    cz_g2_jac_neg(&np, &t1);
    cz_g2_jac_add_var(&t3, &t3, &np);     /* − [x]P */
    cz_g2_jac_neg(&np, p);
    cz_g2_jac_add_var(r, &t3, &np);       /* − P */
}
