/*
 * Fp6 = Fp2[v]/(v^3 - xi), xi = u + 1, and Fp12 = Fp6[w]/(w^2 - v).
 *
 * Built only on the public Fp/Fp2 API (include/cuzk/field.h), so both field
 * back-ends are exercised here unchanged. Multiplications use Karatsuba
 * (6 Fp2 mul per Fp6 mul, 3 Fp6 mul per Fp12 mul); squarings use
 * Chung–Hasan SQR2 (Fp6) and the complex method (Fp12). The Frobenius
 * coefficients come from tools/frobenius_coeffs.py (frobenius_table.h).
 */
#include "pairing/tower_internal.h"

#include <string.h>

#include "pairing/frobenius_table.h"

/* ---- Fp6 ------------------------------------------------------------------ */

void cz_fp6_add(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b)
{
    cz_fp2_add(&r->c0, &a->c0, &b->c0);
    cz_fp2_add(&r->c1, &a->c1, &b->c1);
    cz_fp2_add(&r->c2, &a->c2, &b->c2);
}

void cz_fp6_sub(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b)
{
    cz_fp2_sub(&r->c0, &a->c0, &b->c0);
    cz_fp2_sub(&r->c1, &a->c1, &b->c1);
    cz_fp2_sub(&r->c2, &a->c2, &b->c2);
}

void cz_fp6_neg(cz_fp6 *r, const cz_fp6 *a)
{
    cz_fp2_neg(&r->c0, &a->c0);
    cz_fp2_neg(&r->c1, &a->c1);
    cz_fp2_neg(&r->c2, &a->c2);
}

void cz_fp6_set_zero(cz_fp6 *r) { memset(r, 0, sizeof *r); }

void cz_fp6_set_one(cz_fp6 *r)
{
    memset(r, 0, sizeof *r);
    r->c0.c0 = CZ_FP_ONE;
}

void cz_fp6_mul(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b)
{
    cz_fp2 t0, t1, t2, s, u, c0, c1, c2;
    cz_fp2_mul(&t0, &a->c0, &b->c0);
    cz_fp2_mul(&t1, &a->c1, &b->c1);
    cz_fp2_mul(&t2, &a->c2, &b->c2);
    /* c0 = t0 + xi((a1+a2)(b1+b2) - t1 - t2) */
    cz_fp2_add(&s, &a->c1, &a->c2);
    cz_fp2_add(&u, &b->c1, &b->c2);
    cz_fp2_mul(&c0, &s, &u);
    cz_fp2_sub(&c0, &c0, &t1);
    cz_fp2_sub(&c0, &c0, &t2);
    cz_fp2_mul_by_nonresidue(&c0, &c0);
    cz_fp2_add(&c0, &c0, &t0);
    /* c1 = (a0+a1)(b0+b1) - t0 - t1 + xi t2 */
    cz_fp2_add(&s, &a->c0, &a->c1);
    cz_fp2_add(&u, &b->c0, &b->c1);
    cz_fp2_mul(&c1, &s, &u);
    cz_fp2_sub(&c1, &c1, &t0);
    cz_fp2_sub(&c1, &c1, &t1);
    cz_fp2_mul_by_nonresidue(&s, &t2);
    cz_fp2_add(&c1, &c1, &s);
    /* c2 = (a0+a2)(b0+b2) - t0 - t2 + t1 */
    cz_fp2_add(&s, &a->c0, &a->c2);
    cz_fp2_add(&u, &b->c0, &b->c2);
    cz_fp2_mul(&c2, &s, &u);
    cz_fp2_sub(&c2, &c2, &t0);
    cz_fp2_sub(&c2, &c2, &t2);
    cz_fp2_add(&r->c2, &c2, &t1);
    r->c0 = c0;
    r->c1 = c1;
}

void cz_fp6_sqr(cz_fp6 *r, const cz_fp6 *a)
{
    /* Chung–Hasan SQR2: s0 = a0^2, s1 = 2a0a1, s2 = (a0-a1+a2)^2,
     * s3 = 2a1a2, s4 = a2^2; c0 = s0 + xi s3, c1 = s1 + xi s4,
     * c2 = s1 + s2 + s3 - s0 - s4. */
    cz_fp2 s0, s1, s2, s3, s4, t;
    cz_fp2_sqr(&s0, &a->c0);
    cz_fp2_mul(&s1, &a->c0, &a->c1);
    cz_fp2_dbl(&s1, &s1);
    cz_fp2_sub(&t, &a->c0, &a->c1);
    cz_fp2_add(&t, &t, &a->c2);
    cz_fp2_sqr(&s2, &t);
    cz_fp2_mul(&s3, &a->c1, &a->c2);
    cz_fp2_dbl(&s3, &s3);
    cz_fp2_sqr(&s4, &a->c2);
    cz_fp2_add(&t, &s1, &s2);
    cz_fp2_add(&t, &t, &s3);
    cz_fp2_sub(&t, &t, &s0);
    cz_fp2_sub(&r->c2, &t, &s4);
    cz_fp2_mul_by_nonresidue(&t, &s3);
    cz_fp2_add(&r->c0, &s0, &t);
    cz_fp2_mul_by_nonresidue(&t, &s4);
    cz_fp2_add(&r->c1, &s1, &t);
}

void cz_fp6_mul_by_nonresidue(cz_fp6 *r, const cz_fp6 *a)
{
    /* (a0 + a1 v + a2 v^2) v = xi a2 + a0 v + a1 v^2 */
    cz_fp2 t;
    cz_fp2_mul_by_nonresidue(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

void cz_fp6_mul_by_01(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b0, const cz_fp2 *b1)
{
    /* a (b0 + b1 v): 5 Fp2 multiplications (Karatsuba with b2 = 0). */
    cz_fp2 t0, t1, s, u, c0, c1;
    cz_fp2_mul(&t0, &a->c0, b0);
    cz_fp2_mul(&t1, &a->c1, b1);
    /* c0 = t0 + xi a2 b1, with a2 b1 = (a1+a2) b1 - t1 */
    cz_fp2_add(&s, &a->c1, &a->c2);
    cz_fp2_mul(&c0, &s, b1);
    cz_fp2_sub(&c0, &c0, &t1);
    cz_fp2_mul_by_nonresidue(&c0, &c0);
    cz_fp2_add(&c0, &c0, &t0);
    /* c1 = (a0+a1)(b0+b1) - t0 - t1 */
    cz_fp2_add(&s, &a->c0, &a->c1);
    cz_fp2_add(&u, b0, b1);
    cz_fp2_mul(&c1, &s, &u);
    cz_fp2_sub(&c1, &c1, &t0);
    cz_fp2_sub(&c1, &c1, &t1);
    /* c2 = a2 b0 + a1 b1 = (a0+a2) b0 - t0 + t1 */
    cz_fp2_add(&s, &a->c0, &a->c2);
    cz_fp2_mul(&u, &s, b0);
    cz_fp2_sub(&u, &u, &t0);
    cz_fp2_add(&r->c2, &u, &t1);
    r->c0 = c0;
    r->c1 = c1;
}

void cz_fp6_mul_by_1(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b1)
{
    /* a (b1 v) = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
    cz_fp2 t0, t1, t2;
    cz_fp2_mul(&t0, &a->c2, b1);
    cz_fp2_mul(&t1, &a->c0, b1);
    cz_fp2_mul(&t2, &a->c1, b1);
    cz_fp2_mul_by_nonresidue(&r->c0, &t0);
    r->c1 = t1;
    r->c2 = t2;
}

void cz_fp6_inv(cz_fp6 *r, const cz_fp6 *a)
{
    /* Adjugate / norm: t0 = a0^2 - xi a1 a2, t1 = xi a2^2 - a0 a1,
     * t2 = a1^2 - a0 a2, N = a0 t0 + xi (a2 t1 + a1 t2) in Fp2. */
    cz_fp2 t0, t1, t2, s, n;
    cz_fp2_sqr(&t0, &a->c0);
    cz_fp2_mul(&s, &a->c1, &a->c2);
    cz_fp2_mul_by_nonresidue(&s, &s);
    cz_fp2_sub(&t0, &t0, &s);
    cz_fp2_sqr(&t1, &a->c2);
    cz_fp2_mul_by_nonresidue(&t1, &t1);
    cz_fp2_mul(&s, &a->c0, &a->c1);
    cz_fp2_sub(&t1, &t1, &s);
    cz_fp2_sqr(&t2, &a->c1);
    cz_fp2_mul(&s, &a->c0, &a->c2);
    cz_fp2_sub(&t2, &t2, &s);
    cz_fp2_mul(&n, &a->c2, &t1);
    cz_fp2_mul(&s, &a->c1, &t2);
    cz_fp2_add(&n, &n, &s);
    cz_fp2_mul_by_nonresidue(&n, &n);
    cz_fp2_mul(&s, &a->c0, &t0);
    cz_fp2_add(&n, &n, &s);
    cz_fp2_inv(&n, &n);
    cz_fp2_mul(&r->c0, &t0, &n);
    cz_fp2_mul(&r->c1, &t1, &n);
    cz_fp2_mul(&r->c2, &t2, &n);
}

/* r = a·c for a Frobenius constant c. Many of them lie in Fp (c1 = 0: all
 * of FROB6_C2 and the even powers of the others), which halves the cost.
 * Branches only on the public constant. */
static void mul_by_const(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *c)
{
    if (cz_fp_is_zero(&c->c1))
        cz_fp2_mul_fp(r, a, &c->c0);
    else
        cz_fp2_mul(r, a, c);
}

void cz_fp6_frobenius(cz_fp6 *r, const cz_fp6 *a, unsigned power)
{
    unsigned k = power % 6;
    cz_fp2 c0 = a->c0, c1 = a->c1, c2 = a->c2;
    if (k & 1) {
        cz_fp2_conj(&c0, &c0);
        cz_fp2_conj(&c1, &c1);
        cz_fp2_conj(&c2, &c2);
    }
    r->c0 = c0;
    mul_by_const(&r->c1, &c1, &FROB6_C1[k]);
    mul_by_const(&r->c2, &c2, &FROB6_C2[k]);
}

bool cz_fp6_eq(const cz_fp6 *a, const cz_fp6 *b)
{
    return cz_fp2_eq(&a->c0, &b->c0) & cz_fp2_eq(&a->c1, &b->c1) & cz_fp2_eq(&a->c2, &b->c2);
}

bool cz_fp6_is_zero(const cz_fp6 *a)
{
    return cz_fp2_is_zero(&a->c0) & cz_fp2_is_zero(&a->c1) & cz_fp2_is_zero(&a->c2);
}

/* ---- Fp12 ----------------------------------------------------------------- */

void cz_fp12_set_one(cz_fp12 *r)
{
    cz_fp6_set_one(&r->c0);
    cz_fp6_set_zero(&r->c1);
}

void cz_fp12_mul(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b)
{
    /* Karatsuba: (a0 + a1 w)(b0 + b1 w) = a0b0 + v a1b1
     *                                   + ((a0+a1)(b0+b1) - a0b0 - a1b1) w */
    cz_fp6 t0, t1, s, u;
    cz_fp6_mul(&t0, &a->c0, &b->c0);
    cz_fp6_mul(&t1, &a->c1, &b->c1);
    cz_fp6_add(&s, &a->c0, &a->c1);
    cz_fp6_add(&u, &b->c0, &b->c1);
    cz_fp6_mul(&s, &s, &u);
    cz_fp6_sub(&s, &s, &t0);
    cz_fp6_sub(&r->c1, &s, &t1);
    cz_fp6_mul_by_nonresidue(&t1, &t1);
    cz_fp6_add(&r->c0, &t0, &t1);
}

void cz_fp12_sqr(cz_fp12 *r, const cz_fp12 *a)
{
    /* Complex method: ab = a0 a1;
     * c0 = (a0 + a1)(a0 + v a1) - ab - v ab, c1 = 2 ab. */
    cz_fp6 ab, s, t;
    cz_fp6_mul(&ab, &a->c0, &a->c1);
    cz_fp6_add(&s, &a->c0, &a->c1);
    cz_fp6_mul_by_nonresidue(&t, &a->c1);
    cz_fp6_add(&t, &t, &a->c0);
    cz_fp6_mul(&s, &s, &t);
    cz_fp6_sub(&s, &s, &ab);
    cz_fp6_mul_by_nonresidue(&t, &ab);
    cz_fp6_sub(&r->c0, &s, &t);
    cz_fp6_add(&r->c1, &ab, &ab);
}

void cz_fp12_mul_by_014(cz_fp12 *r, const cz_fp12 *a, const cz_fp2 *o0, const cz_fp2 *o1,
                        const cz_fp2 *o4)
{
    /* l = L0 + L1 w with L0 = o0 + o1 v, L1 = o4 v (the line shape of the
     * M-type twist): 13 Fp2 multiplications instead of 18. */
    cz_fp6 t0, t1, s;
    cz_fp2 u;
    cz_fp6_mul_by_01(&t0, &a->c0, o0, o1);
    cz_fp6_mul_by_1(&t1, &a->c1, o4);
    cz_fp6_add(&s, &a->c0, &a->c1);
    cz_fp2_add(&u, o1, o4);
    cz_fp6_mul_by_01(&s, &s, o0, &u);
    cz_fp6_sub(&s, &s, &t0);
    cz_fp6_sub(&r->c1, &s, &t1);
    cz_fp6_mul_by_nonresidue(&t1, &t1);
    cz_fp6_add(&r->c0, &t0, &t1);
}

/* Fp4 = Fp2[t]/(t^2 - xi) squaring: (x + y t)^2 = (x^2 + xi y^2) + 2xy t. */
static void fp4_sqr(cz_fp2 *r0, cz_fp2 *r1, const cz_fp2 *x, const cz_fp2 *y)
{
    cz_fp2 t0, t1, s;
    cz_fp2_sqr(&t0, x);
    cz_fp2_sqr(&t1, y);
    cz_fp2_add(&s, x, y);
    cz_fp2_sqr(&s, &s);
    cz_fp2_sub(&s, &s, &t0);
    cz_fp2_sub(r1, &s, &t1);
    cz_fp2_mul_by_nonresidue(&t1, &t1);
    cz_fp2_add(r0, &t1, &t0);
}

void cz_fp12_cyclotomic_sqr(cz_fp12 *r, const cz_fp12 *a)
{
    /* Granger–Scott. View Fp12 = Fp4[w]/(w^3 - t), Fp4 = Fp2[t]/(t^2 - xi)
     * with t = w^3. In the basis 1, w, ..., w^5 the element is
     *   a0 + b0 w + a1 w^2 + b1 w^3 + a2 w^4 + b2 w^5   (ai = c0.ci, bi = c1.ci)
     * = A + B w + C w^2 with A = a0 + b1 t, B = b0 + a2 t, C = a1 + b2 t.
     * For f in the cyclotomic subgroup (f^(p^6) = f^-1, and p^6 maps
     * w -> -w, t -> -t), f^2 = (3A^2 - 2conj(A)) + (3t C^2 + 2conj(B)) w
     *                          + (3B^2 - 2conj(C)) w^2, conj(x + y t) = x - y t. */
    const cz_fp2 *a0 = &a->c0.c0, *a1 = &a->c0.c1, *a2 = &a->c0.c2;
    const cz_fp2 *b0 = &a->c1.c0, *b1 = &a->c1.c1, *b2 = &a->c1.c2;
    cz_fp2 A0, A1, B0, B1, C0, C1, t;
    fp4_sqr(&A0, &A1, a0, b1);
    fp4_sqr(&B0, &B1, b0, a2);
    fp4_sqr(&C0, &C1, a1, b2);
    cz_fp12 o;
    /* A' = 3A^2 - 2 conj(A): x-part 3A0 - 2a0, t-part 3A1 + 2b1 */
    cz_fp2_sub(&t, &A0, a0);
    cz_fp2_dbl(&t, &t);
    cz_fp2_add(&o.c0.c0, &t, &A0);
    cz_fp2_add(&t, &A1, b1);
    cz_fp2_dbl(&t, &t);
    cz_fp2_add(&o.c1.c1, &t, &A1);
    /* B' = 3 t C^2 + 2 conj(B); t C^2 = xi C1 + C0 t:
     * x-part 3 xi C1 + 2 b0, t-part 3 C0 - 2 a2 */
    cz_fp2 xc1;
    cz_fp2_mul_by_nonresidue(&xc1, &C1);
    cz_fp2_add(&t, &xc1, b0);
    cz_fp2_dbl(&t, &t);
    cz_fp2_add(&o.c1.c0, &t, &xc1);
    cz_fp2_sub(&t, &C0, a2);
    cz_fp2_dbl(&t, &t);
    cz_fp2_add(&o.c0.c2, &t, &C0);
    /* C' = 3B^2 - 2 conj(C): x-part 3B0 - 2a1, t-part 3B1 + 2b2 */
    cz_fp2_sub(&t, &B0, a1);
    cz_fp2_dbl(&t, &t);
    cz_fp2_add(&o.c0.c1, &t, &B0);
    cz_fp2_add(&t, &B1, b2);
    cz_fp2_dbl(&t, &t);
    cz_fp2_add(&o.c1.c2, &t, &B1);
    *r = o;
}

void cz_fp12_inv(cz_fp12 *r, const cz_fp12 *a)
{
    /* 1/(a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2) */
    cz_fp6 t0, t1;
    cz_fp6_sqr(&t0, &a->c0);
    cz_fp6_sqr(&t1, &a->c1);
    cz_fp6_mul_by_nonresidue(&t1, &t1);
    cz_fp6_sub(&t0, &t0, &t1);
    cz_fp6_inv(&t0, &t0);
    cz_fp6_mul(&r->c0, &a->c0, &t0);
    cz_fp6_mul(&r->c1, &a->c1, &t0);
    cz_fp6_neg(&r->c1, &r->c1);
}

void cz_fp12_conj(cz_fp12 *r, const cz_fp12 *a)
{
    r->c0 = a->c0;
    cz_fp6_neg(&r->c1, &a->c1);
}

void cz_fp12_frobenius(cz_fp12 *r, const cz_fp12 *a, unsigned power)
{
    unsigned k = power % 12;
    const cz_fp2 *g = &FROB12_W[k];
    cz_fp6 c1;
    cz_fp6_frobenius(&r->c0, &a->c0, k);
    cz_fp6_frobenius(&c1, &a->c1, k);
    mul_by_const(&r->c1.c0, &c1.c0, g);
    mul_by_const(&r->c1.c1, &c1.c1, g);
    mul_by_const(&r->c1.c2, &c1.c2, g);
}

static void fp12_cmov(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b, uint64_t flag)
{
    const cz_fp *pa = (const cz_fp *)a, *pb = (const cz_fp *)b;
    cz_fp *pr = (cz_fp *)r;
    for (int i = 0; i < 12; i++) cz_fp_cmov(&pr[i], &pa[i], &pb[i], flag);
}

void cz_fp12_pow(cz_fp12 *r, const cz_fp12 *a, const uint64_t *e, size_t n)
{
    /* Square-and-always-multiply with a constant-time select: constant time
     * in a and in e for a fixed n. */
    cz_fp12 acc, t, base = *a;
    cz_fp12_set_one(&acc);
    for (size_t i = n; i-- > 0;) {
        for (int j = 63; j >= 0; j--) {
            cz_fp12_sqr(&acc, &acc);
            cz_fp12_mul(&t, &acc, &base);
            fp12_cmov(&acc, &acc, &t, (e[i] >> j) & 1);
        }
    }
    *r = acc;
}

bool cz_fp12_eq(const cz_fp12 *a, const cz_fp12 *b)
{
    return cz_fp6_eq(&a->c0, &b->c0) & cz_fp6_eq(&a->c1, &b->c1);
}

bool cz_fp12_is_one(const cz_fp12 *a)
{
    cz_fp12 one;
    cz_fp12_set_one(&one);
    return cz_fp12_eq(a, &one);
}

void cz_fp12_to_bytes_be(uint8_t out[576], const cz_fp12 *a)
{
    const cz_fp *pa = (const cz_fp *)a;
    for (int i = 0; i < 12; i++) cz_fp_to_bytes_be(out + 48 * i, &pa[i]);
}
