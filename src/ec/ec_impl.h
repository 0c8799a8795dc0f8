/*
 * One body for the group formulas of G1 (over Fp) and G2 (over Fp2).
 *
 * This is a template header: it is included exactly once by g1.c and once by
 * g2.c, each defining before the #include
 *   EC_G    the group prefix (g1 / g2)        -> cz_g1_jac_add, ...
 *   EC_F    the field prefix (fp / fp2)       -> cz_fp_mul, ...
 *   EC_FE   the field element type (cz_fp / cz_fp2)
 * and these static objects/functions:
 *   static const EC_FE fe_one;                       1 in Montgomery form
 *   static void fe_mul_b(EC_FE *r, const EC_FE *a);  r = b·a (b: curve constant)
 *   static const <affine> ec_gen;                    the standard generator
 * It plays the role of blst's macro bodies (one set of formulas for both
 * fields) but stays ordinary C, so compiler errors, debuggers and profilers
 * see real line numbers. Everything group-specific (endomorphisms, subgroup
 * test, cofactor clearing) lives in g1.c / g2.c.
 *
 * Formulas (a = 0 short Weierstrass, Explicit-Formulas Database names):
 *   Jacobian: dbl-2009-l; add-2007-bl and madd-2007-bl for the _var
 *   additions, which branch on the special cases (infinity, P == Q, P == -Q).
 *   The constant-time additions use a unified chord/tangent formula (see
 *   cz_gX_jac_add below) that covers doubling by selecting two values with
 *   cmov, and pick the infinity cases with cmov: no branch on the points.
 *   XYZZ: add-2008-s, madd-2008-s, dbl-2008-s-1, mdbl-2008-s-1 (bucket
 *   arithmetic for the MSM; _var, they branch on the special cases).
 * None of the curves has a point of order 2 (both cofactors are odd), so
 * y = 0 never occurs on a curve point and doubling never degenerates.
 */
#ifndef EC_G
#error "define EC_G, EC_F, EC_FE before including ec_impl.h"
#endif

#include <string.h>

#define EC_CAT_(a, b, c) a##b##c
#define EC_CAT(a, b, c) EC_CAT_(a, b, c)
#define GFN(n) EC_CAT(cz_, EC_G, n) /* public group function / type */
#define FFN(n) EC_CAT(cz_, EC_F, n) /* field function */

typedef EC_FE fe_t;
typedef GFN(_affine) aff_t;
typedef GFN(_jac) jac_t;
typedef GFN(_xyzz) xyzz_t;

#define fe_add FFN(_add)
#define fe_sub FFN(_sub)
#define fe_dbl FFN(_dbl)
#define fe_neg FFN(_neg)
#define fe_mul FFN(_mul)
#define fe_sqr FFN(_sqr)
#define fe_inv FFN(_inv)
#define fe_is_zero FFN(_is_zero)
#define fe_eq FFN(_eq)
#define fe_cmov FFN(_cmov)

static const fe_t fe_zero; /* all-zero limbs = 0 in Montgomery form */

/* ---- small helpers ------------------------------------------------------ */

static inline void jac_cmov(jac_t *r, const jac_t *a, const jac_t *b, uint64_t flag)
{
    fe_cmov(&r->x, &a->x, &b->x, flag);
    fe_cmov(&r->y, &a->y, &b->y, flag);
    fe_cmov(&r->z, &a->z, &b->z, flag);
}

/* r = x^3 + b */
static void ec_rhs(fe_t *r, const fe_t *x)
{
    fe_t t, bb;
    fe_sqr(&t, x);
    fe_mul(&t, &t, x);
    fe_mul_b(&bb, &fe_one);
    fe_add(r, &t, &bb);
}

/* ---- generator ---------------------------------------------------------- */

void GFN(_generator)(aff_t *r) { *r = ec_gen; }

void GFN(_generator_jac)(jac_t *r) { GFN(_jac_from_affine)(r, &ec_gen); }

/* ---- affine ------------------------------------------------------------- */

void GFN(_affine_set_infinity)(aff_t *r)
{
    r->x = fe_zero;
    r->y = fe_zero;
}

bool GFN(_affine_is_infinity)(const aff_t *p)
{
    return fe_is_zero(&p->x) & fe_is_zero(&p->y);
}

bool GFN(_affine_eq)(const aff_t *a, const aff_t *b)
{
    return fe_eq(&a->x, &b->x) & fe_eq(&a->y, &b->y);
}

void GFN(_affine_neg)(aff_t *r, const aff_t *p)
{
    r->x = p->x;
    fe_neg(&r->y, &p->y); /* -0 = 0: infinity stays (0,0) */
}

bool GFN(_affine_is_on_curve)(const aff_t *p)
{
    fe_t l, rr;
    fe_sqr(&l, &p->y);
    ec_rhs(&rr, &p->x);
    return fe_eq(&l, &rr) | GFN(_affine_is_infinity)(p);
}

bool GFN(_affine_in_subgroup)(const aff_t *p)
{
    jac_t j;
    GFN(_jac_from_affine)(&j, p);
    return GFN(_jac_in_subgroup)(&j);
}

/* ---- Jacobian ----------------------------------------------------------- */

void GFN(_jac_set_infinity)(jac_t *r)
{
    r->x = fe_one;
    r->y = fe_one;
    r->z = fe_zero;
}

bool GFN(_jac_is_infinity)(const jac_t *p) { return fe_is_zero(&p->z); }

void GFN(_jac_from_affine)(jac_t *r, const aff_t *p)
{
    uint64_t inf = GFN(_affine_is_infinity)(p);
    r->x = p->x;
    r->y = p->y;
    fe_cmov(&r->z, &fe_one, &fe_zero, inf);
}

void GFN(_jac_to_affine)(aff_t *r, const jac_t *p)
{
    fe_t zi, zi2, zi3;
    fe_inv(&zi, &p->z); /* inv(0) = 0, so infinity maps to (0,0) */
    fe_sqr(&zi2, &zi);
    fe_mul(&zi3, &zi2, &zi);
    fe_mul(&r->x, &p->x, &zi2);
    fe_mul(&r->y, &p->y, &zi3);
}

bool GFN(_jac_eq)(const jac_t *a, const jac_t *b)
{
    /* X1·Z2^2 == X2·Z1^2 and Y1·Z2^3 == Y2·Z1^3; with a Z = 0 both sides
     * vanish, so infinity is decided separately. */
    fe_t z1z1, z2z2, u1, u2, s1, s2;
    bool ia = fe_is_zero(&a->z), ib = fe_is_zero(&b->z);
    fe_sqr(&z1z1, &a->z);
    fe_sqr(&z2z2, &b->z);
    fe_mul(&u1, &a->x, &z2z2);
    fe_mul(&u2, &b->x, &z1z1);
    fe_mul(&s1, &a->y, &z2z2);
    fe_mul(&s1, &s1, &b->z);
    fe_mul(&s2, &b->y, &z1z1);
    fe_mul(&s2, &s2, &a->z);
    bool same = fe_eq(&u1, &u2) & fe_eq(&s1, &s2);
    return (ia & ib) | (!ia & !ib & same);
}

void GFN(_jac_neg)(jac_t *r, const jac_t *p)
{
    r->x = p->x;
    fe_neg(&r->y, &p->y);
    r->z = p->z;
}

/* dbl-2009-l: 2M + 5S. Infinity in, infinity out (Z3 = 2·Y1·Z1 = 0). */
void GFN(_jac_dbl)(jac_t *r, const jac_t *p)
{
    fe_t a, b, c, d, e, f, t;
    fe_sqr(&a, &p->x);
    fe_sqr(&b, &p->y);
    fe_sqr(&c, &b);
    fe_add(&d, &p->x, &b);
    fe_sqr(&d, &d);
    fe_sub(&d, &d, &a);
    fe_sub(&d, &d, &c);
    fe_dbl(&d, &d);           /* D = 2((X+B)^2 - A - C) */
    fe_dbl(&e, &a);
    fe_add(&e, &e, &a);       /* E = 3A */
    fe_sqr(&f, &e);           /* F = E^2 */
    fe_mul(&t, &p->y, &p->z);
    fe_dbl(&r->z, &t);        /* Z3 = 2·Y1·Z1 (before Y is overwritten) */
    fe_dbl(&t, &d);
    fe_sub(&r->x, &f, &t);    /* X3 = F - 2D */
    fe_sub(&t, &d, &r->x);
    fe_mul(&t, &e, &t);
    fe_dbl(&c, &c);
    fe_dbl(&c, &c);
    fe_dbl(&c, &c);           /* 8C */
    fe_sub(&r->y, &t, &c);    /* Y3 = E(D - X3) - 8C */
}

/* add-2007-bl, generic case only (a != ±b, neither infinity). Also gives H
 * and R/2 = S2 - S1 so the callers can detect the special cases. */
static void jac_add_generic(jac_t *r, const jac_t *a, const jac_t *b, fe_t *h_out, fe_t *rr_out)
{
    fe_t z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    fe_sqr(&z1z1, &a->z);
    fe_sqr(&z2z2, &b->z);
    fe_mul(&u1, &a->x, &z2z2);
    fe_mul(&u2, &b->x, &z1z1);
    fe_mul(&s1, &a->y, &b->z);
    fe_mul(&s1, &s1, &z2z2);
    fe_mul(&s2, &b->y, &a->z);
    fe_mul(&s2, &s2, &z1z1);
    fe_sub(&h, &u2, &u1);
    fe_sub(&rr, &s2, &s1);
    *h_out = h;
    *rr_out = rr;
    fe_dbl(&i, &h);
    fe_sqr(&i, &i);           /* I = (2H)^2 */
    fe_mul(&j, &h, &i);       /* J = H·I */
    fe_dbl(&rr, &rr);         /* r = 2(S2 - S1) */
    fe_mul(&v, &u1, &i);      /* V = U1·I */
    fe_add(&t, &a->z, &b->z);
    fe_sqr(&t, &t);
    fe_sub(&t, &t, &z1z1);
    fe_sub(&t, &t, &z2z2);
    fe_mul(&r->z, &t, &h);    /* Z3 = ((Z1+Z2)^2 - Z1Z1 - Z2Z2)·H */
    fe_sqr(&t, &rr);
    fe_sub(&t, &t, &j);
    fe_sub(&t, &t, &v);
    fe_sub(&r->x, &t, &v);    /* X3 = r^2 - J - 2V */
    fe_sub(&t, &v, &r->x);
    fe_mul(&t, &rr, &t);
    fe_mul(&s1, &s1, &j);
    fe_dbl(&s1, &s1);
    fe_sub(&r->y, &t, &s1);   /* Y3 = r(V - X3) - 2·S1·J */
}

/* Constant-time complete addition with a unified formula: write the
 * addition as the chord/tangent slope λ = R / (H·Z1·Z2) in the common scale
 * Z = Z1·Z2 (U_i = X_i·Z_j^2, S_i = Y_i·Z_j^3, H = U2 − U1, R = S2 − S1). For
 * a == b the tangent slope 3x²/2y has the same shape with H' = 2·S1 and
 * R' = 3·U1², so selecting (H, R) with cmov before the shared tail
 *   X3 = R² − H²·(U1 + U2),  Y3 = R·(U1·H² − X3) − S1·H³,  Z3 = Z1·Z2·H
 * covers doubling (U2 = U1 there) at 13M + 5S, against 11M + 5S for the bare
 * add-2007-bl and 13M + 10S for "add, double, select". a == −b gives H = 0,
 * R != 0, so Z3 = 0: infinity without a special case. */
void GFN(_jac_add)(jac_t *r, const jac_t *a, const jac_t *b)
{
    fe_t z1z1, z2z2, u1, u2, s1, s2, h, rr, hd, rd, hh, hhh, t, x3, y3, z3;
    uint64_t ia = fe_is_zero(&a->z), ib = fe_is_zero(&b->z);
    fe_sqr(&z1z1, &a->z);
    fe_sqr(&z2z2, &b->z);
    fe_mul(&u1, &a->x, &z2z2);
    fe_mul(&u2, &b->x, &z1z1);
    fe_mul(&s1, &a->y, &b->z);
    fe_mul(&s1, &s1, &z2z2);
    fe_mul(&s2, &b->y, &a->z);
    fe_mul(&s2, &s2, &z1z1);
    fe_sub(&h, &u2, &u1);
    fe_sub(&rr, &s2, &s1);
    uint64_t same = fe_is_zero(&h) & fe_is_zero(&rr) & (ia ^ 1) & (ib ^ 1);
    fe_dbl(&hd, &s1);                      /* H' = 2·S1 */
    fe_sqr(&rd, &u1);
    fe_dbl(&t, &rd);
    fe_add(&rd, &rd, &t);                  /* R' = 3·U1² */
    fe_cmov(&h, &h, &hd, same);
    fe_cmov(&rr, &rr, &rd, same);
    fe_sqr(&hh, &h);
    fe_mul(&hhh, &hh, &h);
    fe_add(&t, &u1, &u2);
    fe_mul(&t, &t, &hh);
    fe_sqr(&x3, &rr);
    fe_sub(&x3, &x3, &t);                  /* X3 = R² − H²(U1 + U2) */
    fe_mul(&t, &u1, &hh);
    fe_sub(&t, &t, &x3);
    fe_mul(&y3, &rr, &t);
    fe_mul(&t, &s1, &hhh);
    fe_sub(&y3, &y3, &t);                  /* Y3 = R(U1·H² − X3) − S1·H³ */
    fe_mul(&z3, &a->z, &b->z);
    fe_mul(&z3, &z3, &h);                  /* Z3 = Z1·Z2·H */
    jac_t sum = {x3, y3, z3};
    jac_cmov(&sum, &sum, b, ia);
    jac_cmov(&sum, &sum, a, ib & (ia ^ 1));
    *r = sum;
}

/* Variable-time addition (mul_var, subgroup tests, public sums). */
void GFN(_jac_add_var)(jac_t *r, const jac_t *a, const jac_t *b)
{
    if (fe_is_zero(&a->z)) { *r = *b; return; }
    if (fe_is_zero(&b->z)) { *r = *a; return; }
    jac_t sum;
    fe_t h, rr;
    jac_add_generic(&sum, a, b, &h, &rr);
    if (fe_is_zero(&h)) {
        if (fe_is_zero(&rr)) GFN(_jac_dbl)(r, a);
        else GFN(_jac_set_infinity)(r);
        return;
    }
    *r = sum;
}

/* madd-2007-bl, generic case (b affine, finite; a finite; a != ±b). */
static void jac_madd_generic(jac_t *r, const jac_t *a, const aff_t *b, fe_t *h_out, fe_t *rr_out)
{
    fe_t z1z1, u2, s2, h, hh, i, j, rr, v, t, y1j;
    fe_sqr(&z1z1, &a->z);
    fe_mul(&u2, &b->x, &z1z1);
    fe_mul(&s2, &b->y, &a->z);
    fe_mul(&s2, &s2, &z1z1);
    fe_sub(&h, &u2, &a->x);
    fe_sub(&rr, &s2, &a->y);
    *h_out = h;
    *rr_out = rr;
    fe_sqr(&hh, &h);
    fe_dbl(&i, &hh);
    fe_dbl(&i, &i);           /* I = 4·HH */
    fe_mul(&j, &h, &i);
    fe_dbl(&rr, &rr);         /* r = 2(S2 - Y1) */
    fe_mul(&v, &a->x, &i);
    fe_mul(&y1j, &a->y, &j);
    fe_add(&t, &a->z, &h);
    fe_sqr(&t, &t);
    fe_sub(&t, &t, &z1z1);
    fe_sub(&r->z, &t, &hh);   /* Z3 = (Z1+H)^2 - Z1Z1 - HH */
    fe_sqr(&t, &rr);
    fe_sub(&t, &t, &j);
    fe_sub(&t, &t, &v);
    fe_sub(&r->x, &t, &v);    /* X3 = r^2 - J - 2V */
    fe_sub(&t, &v, &r->x);
    fe_mul(&t, &rr, &t);
    fe_dbl(&y1j, &y1j);
    fe_sub(&r->y, &t, &y1j);  /* Y3 = r(V - X3) - 2·Y1·J */
}

/* Mixed version of the unified formula above (Z2 = 1, so U1 = X1, S1 = Y1):
 * 9M + 4S, against 7M + 4S for the bare madd-2007-bl. */
void GFN(_jac_add_affine)(jac_t *r, const jac_t *a, const aff_t *b)
{
    fe_t z1z1, u2, s2, h, rr, hd, rd, hh, hhh, t, x3, y3, z3;
    jac_t bj;
    uint64_t ia = fe_is_zero(&a->z), ib = GFN(_affine_is_infinity)(b);
    fe_sqr(&z1z1, &a->z);
    fe_mul(&u2, &b->x, &z1z1);
    fe_mul(&s2, &b->y, &a->z);
    fe_mul(&s2, &s2, &z1z1);
    fe_sub(&h, &u2, &a->x);
    fe_sub(&rr, &s2, &a->y);
    uint64_t same = fe_is_zero(&h) & fe_is_zero(&rr) & (ia ^ 1) & (ib ^ 1);
    fe_dbl(&hd, &a->y);                    /* H' = 2·Y1 */
    fe_sqr(&rd, &a->x);
    fe_dbl(&t, &rd);
    fe_add(&rd, &rd, &t);                  /* R' = 3·X1² */
    fe_cmov(&h, &h, &hd, same);
    fe_cmov(&rr, &rr, &rd, same);
    fe_sqr(&hh, &h);
    fe_mul(&hhh, &hh, &h);
    fe_add(&t, &a->x, &u2);
    fe_mul(&t, &t, &hh);
    fe_sqr(&x3, &rr);
    fe_sub(&x3, &x3, &t);                  /* X3 = R² − H²(X1 + U2) */
    fe_mul(&t, &a->x, &hh);
    fe_sub(&t, &t, &x3);
    fe_mul(&y3, &rr, &t);
    fe_mul(&t, &a->y, &hhh);
    fe_sub(&y3, &y3, &t);                  /* Y3 = R(X1·H² − X3) − Y1·H³ */
    fe_mul(&z3, &a->z, &h);                /* Z3 = Z1·H */
    jac_t sum = {x3, y3, z3};
    GFN(_jac_from_affine)(&bj, b);
    jac_cmov(&sum, &sum, &bj, ia);
    jac_cmov(&sum, &sum, a, ib & (ia ^ 1));
    *r = sum;
}

void GFN(_jac_add_affine_var)(jac_t *r, const jac_t *a, const aff_t *b)
{
    if (GFN(_affine_is_infinity)(b)) { *r = *a; return; }
    if (fe_is_zero(&a->z)) { GFN(_jac_from_affine)(r, b); return; }
    jac_t sum;
    fe_t h, rr;
    jac_madd_generic(&sum, a, b, &h, &rr);
    if (fe_is_zero(&h)) {
        if (fe_is_zero(&rr)) GFN(_jac_dbl)(r, a);
        else GFN(_jac_set_infinity)(r);
        return;
    }
    *r = sum;
}

bool GFN(_jac_is_on_curve)(const jac_t *p)
{
    /* Y^2 = X^3 + b·Z^6 */
    fe_t l, rr, z6, t;
    fe_sqr(&l, &p->y);
    fe_sqr(&rr, &p->x);
    fe_mul(&rr, &rr, &p->x);
    fe_sqr(&z6, &p->z);
    fe_mul(&t, &z6, &p->z);
    fe_sqr(&z6, &t);
    fe_mul_b(&z6, &z6);
    fe_add(&rr, &rr, &z6);
    return fe_eq(&l, &rr) | fe_is_zero(&p->z);
}

/* Fixed 4-bit window over all 256 bits; each window does 4 doublings and one
 * complete addition of a table entry fetched by scanning all 16 entries with
 * cmov, so neither the sequence of operations nor the memory access pattern
 * depends on k. */
void GFN(_jac_mul_ct)(jac_t *r, const jac_t *p, const cz_scalar *k)
{
    jac_t tab[16], acc, sel;
    GFN(_jac_set_infinity)(&tab[0]);
    tab[1] = *p;
    for (int i = 2; i < 16; i++) GFN(_jac_add)(&tab[i], &tab[i - 1], p);
    GFN(_jac_set_infinity)(&acc);
    for (int w = 63; w >= 0; w--) {
        for (int d = 0; d < 4; d++) GFN(_jac_dbl)(&acc, &acc);
        uint64_t digit = (k->l[w / 16] >> (4 * (w % 16))) & 15;
        sel = tab[0];
        for (uint64_t j = 1; j < 16; j++) {
            uint64_t eq = ((j ^ digit) - 1) >> 63; /* 1 iff j == digit */
            jac_cmov(&sel, &sel, &tab[j], eq);
        }
        GFN(_jac_add)(&acc, &acc, &sel);
    }
    *r = acc;
    /* Partial sums [k_top]P would reveal the top bits of k to anyone who
     * later reads this stack: wipe them (docs/design.md §7.3: secrets are wiped).
     * The table too: P itself can be secret (the prover's C = [s]A + ...,
     * A depends on r), and so are its multiples. */
    explicit_bzero(&acc, sizeof acc);
    explicit_bzero(&sel, sizeof sel);
    explicit_bzero(tab, sizeof tab);
}

static inline unsigned kbit(const uint64_t *k, size_t i) { return (unsigned)(k[i / 64] >> (i % 64)) & 1; }

/* |x| for the BLS parameter x = −0xd201000000010000 (both groups' subgroup
 * tests and G2 cofactor clearing multiply by it). */
#define EC_BLS_X_ABS 0xd201000000010000ULL

/* [|x|]P by plain double-and-add: |x| has only 6 bits set, so a window
 * table would cost more than it saves. r may alias p. Variable time. */
static void jac_mul_by_x_abs(jac_t *r, const jac_t *p)
{
    jac_t acc = *p;
    for (int i = 62; i >= 0; i--) {
        GFN(_jac_dbl)(&acc, &acc);
        if ((EC_BLS_X_ABS >> i) & 1) GFN(_jac_add_var)(&acc, &acc, p);
    }
    *r = acc;
}

/* Left-to-right sliding window (width 4) over the odd multiples P, 3P, ...,
 * 15P; works for any length of k without storing a recoding. */
void GFN(_jac_mul_var)(jac_t *r, const jac_t *p, const uint64_t *k, size_t nlimbs)
{
    size_t top = nlimbs * 64;
    while (top > 0 && !kbit(k, top - 1)) top--;
    if (top == 0 || fe_is_zero(&p->z)) { GFN(_jac_set_infinity)(r); return; }
    jac_t odd[8], p2, acc;
    odd[0] = *p;
    GFN(_jac_dbl)(&p2, p);
    for (int i = 1; i < 8; i++) GFN(_jac_add_var)(&odd[i], &odd[i - 1], &p2);
    GFN(_jac_set_infinity)(&acc);
    long i = (long)top - 1;
    while (i >= 0) {
        if (!kbit(k, (size_t)i)) {
            GFN(_jac_dbl)(&acc, &acc);
            i--;
            continue;
        }
        long j = i - 3 < 0 ? 0 : i - 3;
        while (!kbit(k, (size_t)j)) j++;
        unsigned v = 0;
        for (long b = i; b >= j; b--) {
            v = (v << 1) | kbit(k, (size_t)b);
            GFN(_jac_dbl)(&acc, &acc);
        }
        GFN(_jac_add_var)(&acc, &acc, &odd[v >> 1]);
        i = j - 1;
    }
    *r = acc;
}

/* Montgomery's trick with out[i].x as the prefix-product scratch (so no
 * allocation): out[i].x = product of the nonzero Z's before i. Constant
 * time in the points (the setup converts its [secret]G here): a zero Z is
 * replaced by 1 in the products and its output by the identity with cmov,
 * not with a branch (tests/ctime checks this). */
void GFN(_batch_to_affine)(aff_t *out, const jac_t *in, size_t n)
{
    fe_t acc = fe_one, inv, zi, zi2, zi3, z;
    for (size_t i = 0; i < n; i++) {
        out[i].x = acc;
        fe_cmov(&z, &in[i].z, &fe_one, fe_is_zero(&in[i].z));
        fe_mul(&acc, &acc, &z);
    }
    fe_inv(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        uint64_t inf = fe_is_zero(&in[i].z);
        fe_cmov(&z, &in[i].z, &fe_one, inf);
        fe_mul(&zi, &inv, &out[i].x);     /* 1/Z_i */
        fe_mul(&inv, &inv, &z);           /* drop Z_i from the running inverse */
        fe_sqr(&zi2, &zi);
        fe_mul(&zi3, &zi2, &zi);
        fe_mul(&out[i].x, &in[i].x, &zi2);
        fe_mul(&out[i].y, &in[i].y, &zi3);
        fe_cmov(&out[i].x, &out[i].x, &fe_zero, inf); /* the identity is (0, 0) */
        fe_cmov(&out[i].y, &out[i].y, &fe_zero, inf);
    }
}

/* ---- XYZZ ------------------------------------------------------------------ */

void GFN(_xyzz_set_infinity)(xyzz_t *r)
{
    r->x = fe_one;
    r->y = fe_one;
    r->zz = fe_zero;
    r->zzz = fe_zero;
}

bool GFN(_xyzz_is_infinity)(const xyzz_t *p) { return fe_is_zero(&p->zz); }

/* mdbl-2008-s-1: doubling of an affine point, into XYZZ. */
static void xyzz_mdbl(xyzz_t *r, const aff_t *p)
{
    fe_t u, v, w, s, m, t;
    fe_dbl(&u, &p->y);
    fe_sqr(&v, &u);
    fe_mul(&w, &u, &v);
    fe_mul(&s, &p->x, &v);
    fe_sqr(&m, &p->x);
    fe_dbl(&t, &m);
    fe_add(&m, &m, &t);       /* M = 3X^2 */
    fe_sqr(&t, &m);
    fe_sub(&t, &t, &s);
    fe_sub(&r->x, &t, &s);    /* X3 = M^2 - 2S */
    fe_sub(&t, &s, &r->x);
    fe_mul(&t, &m, &t);
    fe_mul(&u, &w, &p->y);
    fe_sub(&r->y, &t, &u);    /* Y3 = M(S - X3) - W·Y1 */
    r->zz = v;
    r->zzz = w;
}

void GFN(_xyzz_add_affine_var)(xyzz_t *r, const xyzz_t *a, const aff_t *b)
{
    if (GFN(_affine_is_infinity)(b)) { *r = *a; return; }
    if (fe_is_zero(&a->zz)) {
        r->x = b->x;
        r->y = b->y;
        r->zz = fe_one;
        r->zzz = fe_one;
        return;
    }
    /* madd-2008-s */
    fe_t u2, s2, p, rr, pp, ppp, q, t;
    fe_mul(&u2, &b->x, &a->zz);
    fe_mul(&s2, &b->y, &a->zzz);
    fe_sub(&p, &u2, &a->x);
    fe_sub(&rr, &s2, &a->y);
    if (fe_is_zero(&p)) {
        if (fe_is_zero(&rr)) xyzz_mdbl(r, b);
        else GFN(_xyzz_set_infinity)(r);
        return;
    }
    fe_sqr(&pp, &p);
    fe_mul(&ppp, &p, &pp);
    fe_mul(&q, &a->x, &pp);
    fe_mul(&r->zz, &a->zz, &pp);
    fe_mul(&r->zzz, &a->zzz, &ppp);
    fe_mul(&u2, &a->y, &ppp);  /* Y1·PPP (read a->y before writing r->y) */
    fe_sqr(&t, &rr);
    fe_sub(&t, &t, &ppp);
    fe_sub(&t, &t, &q);
    fe_sub(&r->x, &t, &q);     /* X3 = R^2 - PPP - 2Q */
    fe_sub(&t, &q, &r->x);
    fe_mul(&t, &rr, &t);
    fe_sub(&r->y, &t, &u2);    /* Y3 = R(Q - X3) - Y1·PPP */
}

void GFN(_xyzz_sub_affine_var)(xyzz_t *r, const xyzz_t *a, const aff_t *b)
{
    aff_t nb;
    GFN(_affine_neg)(&nb, b);
    GFN(_xyzz_add_affine_var)(r, a, &nb);
}

void GFN(_xyzz_dbl_var)(xyzz_t *r, const xyzz_t *p)
{
    if (fe_is_zero(&p->zz)) { GFN(_xyzz_set_infinity)(r); return; }
    /* dbl-2008-s-1 */
    fe_t u, v, w, s, m, t;
    fe_dbl(&u, &p->y);
    fe_sqr(&v, &u);
    fe_mul(&w, &u, &v);
    fe_mul(&s, &p->x, &v);
    fe_sqr(&m, &p->x);
    fe_dbl(&t, &m);
    fe_add(&m, &m, &t);
    fe_mul(&r->zz, &v, &p->zz);
    fe_mul(&r->zzz, &w, &p->zzz);
    fe_mul(&u, &w, &p->y);
    fe_sqr(&t, &m);
    fe_sub(&t, &t, &s);
    fe_sub(&r->x, &t, &s);
    fe_sub(&t, &s, &r->x);
    fe_mul(&t, &m, &t);
    fe_sub(&r->y, &t, &u);
}

void GFN(_xyzz_add_var)(xyzz_t *r, const xyzz_t *a, const xyzz_t *b)
{
    if (fe_is_zero(&b->zz)) { *r = *a; return; }
    if (fe_is_zero(&a->zz)) { *r = *b; return; }
    /* add-2008-s */
    fe_t u1, u2, s1, s2, p, rr, pp, ppp, q, t;
    fe_mul(&u1, &a->x, &b->zz);
    fe_mul(&u2, &b->x, &a->zz);
    fe_mul(&s1, &a->y, &b->zzz);
    fe_mul(&s2, &b->y, &a->zzz);
    fe_sub(&p, &u2, &u1);
    fe_sub(&rr, &s2, &s1);
    if (fe_is_zero(&p)) {
        if (fe_is_zero(&rr)) GFN(_xyzz_dbl_var)(r, a);
        else GFN(_xyzz_set_infinity)(r);
        return;
    }
    fe_sqr(&pp, &p);
    fe_mul(&ppp, &p, &pp);
    fe_mul(&q, &u1, &pp);
    fe_mul(&t, &a->zz, &b->zz);
    fe_mul(&r->zz, &t, &pp);
    fe_mul(&t, &a->zzz, &b->zzz);
    fe_mul(&r->zzz, &t, &ppp);
    fe_mul(&s1, &s1, &ppp);
    fe_sqr(&t, &rr);
    fe_sub(&t, &t, &ppp);
    fe_sub(&t, &t, &q);
    fe_sub(&r->x, &t, &q);
    fe_sub(&t, &q, &r->x);
    fe_mul(&t, &rr, &t);
    fe_sub(&r->y, &t, &s1);
}

/* Jacobian (X·ZZ^2, Y·ZZZ^2, ZZZ): with Z' = ZZZ, Z'^2 = ZZ^3 and Z'^3 = ZZZ^3
 * (ZZ^3 = ZZZ^2), so X'/Z'^2 = X/ZZ and Y'/Z'^3 = Y/ZZZ. Infinity: ZZZ = 0. */
void GFN(_xyzz_to_jac)(jac_t *r, const xyzz_t *p)
{
    fe_t t, zzz = p->zzz;
    fe_sqr(&t, &p->zz);
    fe_mul(&r->x, &p->x, &t);
    fe_sqr(&t, &p->zzz);
    fe_mul(&r->y, &p->y, &t);
    r->z = zzz;
    if (fe_is_zero(&p->zz)) GFN(_jac_set_infinity)(r);
}

void GFN(_jac_to_xyzz)(xyzz_t *r, const jac_t *p)
{
    fe_t zz, zzz;
    fe_sqr(&zz, &p->z);
    fe_mul(&zzz, &zz, &p->z);
    r->x = p->x;
    r->y = p->y;
    r->zz = zz;
    r->zzz = zzz;
}
