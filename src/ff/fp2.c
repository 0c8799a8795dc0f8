/* Fp2 = Fp[u]/(u^2 + 1). */
#include "cuzk/field.h"

void cz_fp2_add(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
    cz_fp_add(&r->c0, &a->c0, &b->c0);
    cz_fp_add(&r->c1, &a->c1, &b->c1);
}

void cz_fp2_sub(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
    cz_fp_sub(&r->c0, &a->c0, &b->c0);
    cz_fp_sub(&r->c1, &a->c1, &b->c1);
}

void cz_fp2_neg(cz_fp2 *r, const cz_fp2 *a)
{
    cz_fp_neg(&r->c0, &a->c0);
    cz_fp_neg(&r->c1, &a->c1);
}

void cz_fp2_dbl(cz_fp2 *r, const cz_fp2 *a)
{
    cz_fp_dbl(&r->c0, &a->c0);
    cz_fp_dbl(&r->c1, &a->c1);
}

void cz_fp2_mul(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
    /* Karatsuba: (a0 + a1 u)(b0 + b1 u) = a0b0 - a1b1 + ((a0+a1)(b0+b1) - a0b0 - a1b1) u */
    cz_fp t0, t1, s0, s1;
    cz_fp_mul(&t0, &a->c0, &b->c0);
    cz_fp_mul(&t1, &a->c1, &b->c1);
    cz_fp_add(&s0, &a->c0, &a->c1);
    cz_fp_add(&s1, &b->c0, &b->c1);
    cz_fp_mul(&s0, &s0, &s1);
    cz_fp_sub(&r->c0, &t0, &t1);
    cz_fp_sub(&s0, &s0, &t0);
    cz_fp_sub(&r->c1, &s0, &t1);
}

void cz_fp2_sqr(cz_fp2 *r, const cz_fp2 *a)
{
    /* (a0 + a1 u)^2 = (a0+a1)(a0-a1) + 2 a0 a1 u */
    cz_fp s, d, m;
    cz_fp_add(&s, &a->c0, &a->c1);
    cz_fp_sub(&d, &a->c0, &a->c1);
    cz_fp_mul(&m, &a->c0, &a->c1);
    cz_fp_mul(&r->c0, &s, &d);
    cz_fp_dbl(&r->c1, &m);
}

void cz_fp2_conj(cz_fp2 *r, const cz_fp2 *a)
{
    r->c0 = a->c0;
    cz_fp_neg(&r->c1, &a->c1);
}

void cz_fp2_frobenius(cz_fp2 *r, const cz_fp2 *a) { cz_fp2_conj(r, a); }

void cz_fp2_mul_by_nonresidue(cz_fp2 *r, const cz_fp2 *a)
{
    /* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
    cz_fp t;
    cz_fp_sub(&t, &a->c0, &a->c1);
    cz_fp_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

void cz_fp2_mul_fp(cz_fp2 *r, const cz_fp2 *a, const cz_fp *b)
{
    cz_fp_mul(&r->c0, &a->c0, b);
    cz_fp_mul(&r->c1, &a->c1, b);
}

void cz_fp2_inv(cz_fp2 *r, const cz_fp2 *a)
{
    /* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
    cz_fp n, t;
    cz_fp_sqr(&n, &a->c0);
    cz_fp_sqr(&t, &a->c1);
    cz_fp_add(&n, &n, &t);
    cz_fp_inv(&n, &n);
    cz_fp_mul(&r->c0, &a->c0, &n);
    cz_fp_neg(&t, &a->c1);
    cz_fp_mul(&r->c1, &t, &n);
}

bool cz_fp2_is_zero(const cz_fp2 *a) { return cz_fp_is_zero(&a->c0) & cz_fp_is_zero(&a->c1); }
bool cz_fp2_is_one(const cz_fp2 *a) { return cz_fp_is_one(&a->c0) & cz_fp_is_zero(&a->c1); }
bool cz_fp2_eq(const cz_fp2 *a, const cz_fp2 *b) { return cz_fp_eq(&a->c0, &b->c0) & cz_fp_eq(&a->c1, &b->c1); }

void cz_fp2_cmov(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b, uint64_t flag)
{
    cz_fp_cmov(&r->c0, &a->c0, &b->c0, flag);
    cz_fp_cmov(&r->c1, &a->c1, &b->c1, flag);
}

bool cz_fp2_is_lex_largest(const cz_fp2 *a)
{
    if (!cz_fp_is_zero(&a->c1)) return cz_fp_is_lex_largest(&a->c1);
    return cz_fp_is_lex_largest(&a->c0);
}
