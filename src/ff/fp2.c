/* Fp2 = Fp[u]/(u^2 + 1). */
#include "cuzk/field.h"
#include "ff_internal.h"
#include "mont.h"

/* The linear operations expand the Fp kernels in place (one call per Fp2
 * operation instead of two: the G2 MSM's flush makes seven of them per
 * addition). Component-wise, so r may alias a or b. */
void cz_fp2_add(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
    cz_mont_add(r->c0.l, a->c0.l, b->c0.l, CZ_FP_MODULUS, 6);
    cz_mont_add(r->c1.l, a->c1.l, b->c1.l, CZ_FP_MODULUS, 6);
}

void cz_fp2_sub(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
    cz_mont_sub(r->c0.l, a->c0.l, b->c0.l, CZ_FP_MODULUS, 6);
    cz_mont_sub(r->c1.l, a->c1.l, b->c1.l, CZ_FP_MODULUS, 6);
}

void cz_fp2_neg(cz_fp2 *r, const cz_fp2 *a)
{
    cz_mont_neg(r->c0.l, a->c0.l, CZ_FP_MODULUS, 6);
    cz_mont_neg(r->c1.l, a->c1.l, CZ_FP_MODULUS, 6);
}

void cz_fp2_dbl(cz_fp2 *r, const cz_fp2 *a)
{
    cz_mont_add(r->c0.l, a->c0.l, a->c0.l, CZ_FP_MODULUS, 6);
    cz_mont_add(r->c1.l, a->c1.l, a->c1.l, CZ_FP_MODULUS, 6);
}

void cz_fp2_mul(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
    if (cz__ff_use_adx) {
        /* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u, each
         * coordinate a sum of two products under a single Montgomery
         * reduction (cz__fp_mulsum): 4 products, 2 reductions, 1 negation;
         * with MULX/ADX that beats Karatsuba's 3 multiplications and 5
         * add/subs (104 vs 123 ns here). */
        cz_fp2 x, y; /* x = {a0, -a1}, y = {b1, b0} */
        x.c0 = a->c0;
        cz_fp_neg(&x.c1, &a->c1);
        y.c0 = b->c1;
        y.c1 = b->c0;
        cz_fp c0;
        cz__fp_mulsum(&c0, &x, b);    /* a0 b0 + (-a1) b1 */
        cz__fp_mulsum(&r->c1, a, &y); /* a0 b1 + a1 b0 */
        r->c0 = c0;
        return;
    }
    /* Portable: Karatsuba, the faster choice there (175 vs 200 ns).
     * (a0 + a1 u)(b0 + b1 u) = a0b0 - a1b1 + ((a0+a1)(b0+b1) - a0b0 - a1b1) u */
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
    cz_fp t = *b; /* b may alias r->c0 */
    cz_fp_mul(&r->c0, &a->c0, &t);
    cz_fp_mul(&r->c1, &a->c1, &t);
}

void cz_fp2_norm(cz_fp *r, const cz_fp2 *a)
{
    if (cz__ff_use_adx) {
        cz__fp_mulsum(r, a, a); /* two products, one reduction */
        return;
    }
    cz_fp t;
    cz_fp_sqr(r == &a->c1 ? &t : r, &a->c0);
    cz_fp_sqr(r == &a->c1 ? r : &t, &a->c1);
    cz_fp_add(r, r, &t);
}

/* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2), the Fp inversion given */
static void fp2_inv_with(cz_fp2 *r, const cz_fp2 *a, void (*fp_inv)(cz_fp *, const cz_fp *))
{
    cz_fp n, t;
    cz_fp2_norm(&n, a);
    fp_inv(&n, &n);
    cz_fp_mul(&r->c0, &a->c0, &n);
    cz_fp_neg(&t, &a->c1);
    cz_fp_mul(&r->c1, &t, &n);
}

void cz_fp2_inv(cz_fp2 *r, const cz_fp2 *a) { fp2_inv_with(r, a, cz_fp_inv); }

void cz_fp2_inv_var(cz_fp2 *r, const cz_fp2 *a) { fp2_inv_with(r, a, cz_fp_inv_var); }

bool cz_fp2_is_zero(const cz_fp2 *a) { return (int)cz_fp_is_zero(&a->c0) & (int)cz_fp_is_zero(&a->c1); }
bool cz_fp2_is_one(const cz_fp2 *a) { return (int)cz_fp_is_one(&a->c0) & (int)cz_fp_is_zero(&a->c1); }
bool cz_fp2_eq(const cz_fp2 *a, const cz_fp2 *b) { return (int)cz_fp_eq(&a->c0, &b->c0) & (int)cz_fp_eq(&a->c1, &b->c1); }

void cz_fp2_cmov(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b, uint64_t flag)
{
    cz_fp_cmov(&r->c0, &a->c0, &b->c0, flag);
    cz_fp_cmov(&r->c1, &a->c1, &b->c1, flag);
}

bool cz_fp2_is_lex_largest(const cz_fp2 *a)
{
    /* c1 decides unless it is zero; both evaluated (constant time). */
    unsigned z = cz_fp_is_zero(&a->c1);
    unsigned l1 = cz_fp_is_lex_largest(&a->c1), l0 = cz_fp_is_lex_largest(&a->c0);
    return (z & l0) | ((z ^ 1) & l1);
}

/* r = a^e for a public exponent e (n limbs): square and multiply. The
 * sequence of operations depends on e only, so this is constant time in a. */
static void fp2_pow_public(cz_fp2 *r, const cz_fp2 *a, const uint64_t *e, size_t n)
{
    cz_fp2 acc = {CZ_FP_ONE, CZ_FP_ZERO}, base = *a;
    int started = 0;
    for (size_t i = n; i-- > 0;) {
        for (int b = 63; b >= 0; b--) {
            if (started) cz_fp2_sqr(&acc, &acc);
            if ((e[i] >> b) & 1) {
                cz_fp2_mul(&acc, &acc, &base);
                started = 1;
            }
        }
    }
    *r = acc;
}

/* (p-3)/4 and (p-1)/2 */
static const uint64_t fp_P_M3_DIV4[6] = {
    0xee7fbfffffffeaaaULL, 0x07aaffffac54ffffULL, 0xd9cc34a83dac3d89ULL,
    0xd91dd2e13ce144afULL, 0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL};
static const uint64_t fp_P_M1_DIV2[6] = {
    0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL,
    0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL};

bool cz_fp2_sqrt(cz_fp2 *r, const cz_fp2 *a)
{
    /* Adj & Rodríguez-Henríquez, "Square root computation over even
     * extension fields", Algorithm 9 (q = p^2, p = 3 mod 4):
     *   a1 = a^((p-3)/4), alpha = a1^2·a = a^((p-1)/2), x0 = a1·a;
     *   alpha = -1 -> x = u·x0; otherwise x = (1+alpha)^((p-1)/2)·x0.
     * Both candidates are computed and one chosen with cmov; the result
     * is accepted only if x^2 == a (non-squares return false). */
    cz_fp2 a1, alpha, x0, xu, b, one = {CZ_FP_ONE, CZ_FP_ZERO}, minus_one, t;
    cz_fp_neg(&minus_one.c0, &CZ_FP_ONE);
    minus_one.c1 = CZ_FP_ZERO;
    fp2_pow_public(&a1, a, fp_P_M3_DIV4, 6);
    cz_fp2_sqr(&alpha, &a1);
    cz_fp2_mul(&alpha, &alpha, a);
    cz_fp2_mul(&x0, &a1, a);
    /* u·(c0 + c1 u) = -c1 + c0 u */
    cz_fp_neg(&xu.c0, &x0.c1);
    xu.c1 = x0.c0;
    cz_fp2_add(&b, &one, &alpha);
    fp2_pow_public(&b, &b, fp_P_M1_DIV2, 6);
    cz_fp2_mul(&b, &b, &x0);
    cz_fp2_cmov(&x0, &b, &xu, cz_fp2_eq(&alpha, &minus_one));
    cz_fp2_sqr(&t, &x0);
    bool ok = cz_fp2_eq(&t, a); /* before writing r: r may alias a */
    *r = x0;
    return ok;
}
