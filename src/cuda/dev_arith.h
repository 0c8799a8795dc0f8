/*
 * cuzk CUDA backend — field and curve arithmetic written once for the
 * device and the host.
 *
 * Every function here is CZ_HD: `__host__ __device__` when the file is
 * compiled by nvcc (kernels.cu), plain `static inline` C17 when it is
 * compiled by gcc (tests/cuda/, which compare it with the CPU library on
 * random inputs). So the arithmetic the kernels run is the arithmetic the
 * host tests check; only the compiler differs.
 *
 * Representation: exactly the CPU library's (cuzk/field.h, cuzk/curve.h):
 * little-endian 64-bit limbs, Montgomery form, fully reduced; cz_fp,
 * cz_fr, cz_fp2, cz_g1_affine (infinity = (0,0)), cz_g1_xyzz (infinity:
 * ZZ = 0). Buffers move between host and device without conversion.
 *
 * 64x64->128 products: the low word is a plain 64-bit product, the high
 * word CZ_UMUL64HI (dev_intrin.h): __umul64hi on the device (the GPU has
 * no 64-bit multiplier; nvcc splits it into 32-bit IMADs), a bit-exact
 * emulation on the host, so the host tests run the device's source. Montgomery multiplication is CIOS with a final conditional
 * subtraction (both moduli leave a spare top bit, so no extra carry word
 * survives).
 *
 * Timing: everything is variable time (the branches on infinity/equality
 * in the point formulas); only public data (the PoRep witness, SRS points)
 * ever reaches the device.
 *
 * Aliasing: every out argument may alias any input (results are written
 * after all reads).
 */
#ifndef CUZK_CUDA_DEV_ARITH_H
#define CUZK_CUDA_DEV_ARITH_H

#include "cuzk/curve.h"

#include "cuda/dev_intrin.h" /* CZ_HD, CZ_UNROLL, CZ_UMUL64HI */
#include "cuda/dev_mul32.h"  /* cz_d_mont_mul32 (selected by CZ_CUDA_MUL32) */

/* Moduli, Montgomery constants -m^-1 mod 2^64, and one (R mod m).
 * Written as initialisers so each function holds them in registers
 * (no __constant__ symbol is needed and the header stays plain C).
 * tests/cuda checks every value against the CPU library. */
#define CZ_DEV_FP_P                                                                       \
    { 0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,              \
      0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL }
#define CZ_DEV_FP_INV 0x89f3fffcfffcfffdULL
#define CZ_DEV_FP_ONE                                                                     \
    { 0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,              \
      0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL }
#define CZ_DEV_FR_P                                                                       \
    { 0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,              \
      0x73eda753299d7d48ULL }
#define CZ_DEV_FR_INV 0xfffffffeffffffffULL
#define CZ_DEV_FR_ONE                                                                     \
    { 0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL,              \
      0x1824b159acc5056fULL }

/* ---- limb primitives --------------------------------------------------- */

/* returns the low word of a*b + c + d (which fits in 128 bits), *hi the high */
CZ_HD uint64_t cz_d_mac(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t *hi)
{
    /* one source for both compilations: the device's __umul64hi, the
     * host's bit-exact emulation (dev_intrin.h) */
    uint64_t lo = a * b, h = CZ_UMUL64HI(a, b);
    lo += c;
    h += (lo < c);
    lo += d;
    h += (lo < d);
    *hi = h;
    return lo;
}

/* a + b + *carry (carry in {0,1}); *carry receives the carry out */
CZ_HD uint64_t cz_d_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
    uint64_t s = a + *carry;
    uint64_t c1 = s < a;
    s += b;
    *carry = c1 | (s < b);
    return s;
}

/* a - b - *borrow (borrow in {0,1}); *borrow receives the borrow out */
CZ_HD uint64_t cz_d_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
    uint64_t d = a - b - *borrow;
    *borrow = (a < b) | ((a == b) & *borrow);
    return d;
}

/* r = a·b·2^(-64n) mod p for n-limb a, b < p (CIOS over 64-bit limbs). n <= 6. */
CZ_HD void cz_d_mont_mul64(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p,
                           uint64_t inv, int n)
{
    uint64_t t[8];
    CZ_UNROLL
    for (int i = 0; i < 8; i++) t[i] = 0;
    CZ_UNROLL
    for (int i = 0; i < n; i++) {
        uint64_t c = 0;
        CZ_UNROLL
        for (int j = 0; j < n; j++) t[j] = cz_d_mac(a[j], b[i], t[j], c, &c);
        uint64_t s = t[n] + c;
        t[n + 1] = s < c;
        t[n] = s;
        uint64_t m = t[0] * inv;
        (void)cz_d_mac(m, p[0], t[0], 0, &c);
        CZ_UNROLL
        for (int j = 1; j < n; j++) t[j - 1] = cz_d_mac(m, p[j], t[j], c, &c);
        s = t[n] + c;
        t[n - 1] = s;
        t[n] = t[n + 1] + (s < c);
    }
    uint64_t d[6], br = 0;
    CZ_UNROLL
    for (int j = 0; j < n; j++) d[j] = cz_d_sbb(t[j], p[j], &br);
    /* t < 2p: subtract when t >= p (no borrow) or a carry word is left */
    uint64_t use_d = (uint64_t)((t[n] != 0) | (br == 0));
    uint64_t mask = (uint64_t)0 - use_d;
    CZ_UNROLL
    for (int j = 0; j < n; j++) r[j] = (d[j] & mask) | (t[j] & ~mask);
}

/* The Montgomery multiplication every Fp / Fr operation uses: the 64-bit
 * CIOS, or with CZ_CUDA_MUL32 defined the 32-bit carry-chain version
 * (dev_mul32.h; same results, off until a device run shows it is right
 * and faster). */
CZ_HD void cz_d_mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p,
                         uint64_t inv, int n)
{
#ifdef CZ_CUDA_MUL32
    cz_d_mont_mul32(r, a, b, p, inv, n);
#else
    cz_d_mont_mul64(r, a, b, p, inv, n);
#endif
}

CZ_HD void cz_d_mod_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, int n)
{
    uint64_t t[6], d[6], c = 0, br = 0;
    CZ_UNROLL
    for (int j = 0; j < n; j++) t[j] = cz_d_adc(a[j], b[j], &c);
    CZ_UNROLL
    for (int j = 0; j < n; j++) d[j] = cz_d_sbb(t[j], p[j], &br);
    uint64_t mask = (uint64_t)0 - (uint64_t)(c | (br == 0));
    CZ_UNROLL
    for (int j = 0; j < n; j++) r[j] = (d[j] & mask) | (t[j] & ~mask);
}

CZ_HD void cz_d_mod_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, int n)
{
    uint64_t t[6], br = 0, c = 0;
    CZ_UNROLL
    for (int j = 0; j < n; j++) t[j] = cz_d_sbb(a[j], b[j], &br);
    uint64_t mask = (uint64_t)0 - br;
    CZ_UNROLL
    for (int j = 0; j < n; j++) r[j] = cz_d_adc(t[j], p[j] & mask, &c);
}

CZ_HD bool cz_d_limbs_zero(const uint64_t *a, int n)
{
    uint64_t acc = 0;
    CZ_UNROLL
    for (int j = 0; j < n; j++) acc |= a[j];
    return acc == 0;
}

CZ_HD bool cz_d_limbs_eq(const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t acc = 0;
    CZ_UNROLL
    for (int j = 0; j < n; j++) acc |= a[j] ^ b[j];
    return acc == 0;
}

/* ---- Fp and Fr ------------------------------------------------------------
 * cz_d_<F>_{add,sub,neg,dbl,mul,sqr,is_zero,eq,one,zero} for F = fp (6
 * limbs) and fr (4 limbs); fr also has from_mont (canonical integer of a
 * Montgomery element, i.e. multiplication by the integer 1). */
#define CZ_DEV_PRIME_FIELD(F, T, N, PC, INV, ONE)                                         \
    CZ_HD void cz_d_##F##_add(T *r, const T *a, const T *b)                              \
    {                                                                                      \
        const uint64_t p[N] = PC;                                                          \
        cz_d_mod_add(r->l, a->l, b->l, p, N);                                              \
    }                                                                                      \
    CZ_HD void cz_d_##F##_sub(T *r, const T *a, const T *b)                              \
    {                                                                                      \
        const uint64_t p[N] = PC;                                                          \
        cz_d_mod_sub(r->l, a->l, b->l, p, N);                                              \
    }                                                                                      \
    CZ_HD void cz_d_##F##_dbl(T *r, const T *a) { cz_d_##F##_add(r, a, a); }               \
    CZ_HD void cz_d_##F##_zero(T *r)                                                       \
    {                                                                                      \
        CZ_UNROLL                                                                          \
        for (int j = 0; j < N; j++) r->l[j] = 0;                                           \
    }                                                                                      \
    CZ_HD void cz_d_##F##_one(T *r)                                                        \
    {                                                                                      \
        const uint64_t o[N] = ONE;                                                         \
        CZ_UNROLL                                                                          \
        for (int j = 0; j < N; j++) r->l[j] = o[j];                                        \
    }                                                                                      \
    CZ_HD void cz_d_##F##_neg(T *r, const T *a)                                            \
    {                                                                                      \
        T z;                                                                               \
        cz_d_##F##_zero(&z);                                                               \
        cz_d_##F##_sub(r, &z, a);                                                          \
    }                                                                                      \
    CZ_HD void cz_d_##F##_mul(T *r, const T *a, const T *b)                              \
    {                                                                                      \
        const uint64_t p[N] = PC;                                                          \
        cz_d_mont_mul(r->l, a->l, b->l, p, INV, N);                                        \
    }                                                                                      \
    CZ_HD void cz_d_##F##_sqr(T *r, const T *a) { cz_d_##F##_mul(r, a, a); }               \
    CZ_HD bool cz_d_##F##_is_zero(const T *a) { return cz_d_limbs_zero(a->l, N); }         \
    CZ_HD bool cz_d_##F##_eq(const T *a, const T *b) { return cz_d_limbs_eq(a->l, b->l, N); }

CZ_DEV_PRIME_FIELD(fp, cz_fp, 6, CZ_DEV_FP_P, CZ_DEV_FP_INV, CZ_DEV_FP_ONE)
CZ_DEV_PRIME_FIELD(fr, cz_fr, 4, CZ_DEV_FR_P, CZ_DEV_FR_INV, CZ_DEV_FR_ONE)

/* canonical integer of a Montgomery Fr element (a·R^-1 = mont_mul(a, 1)) */
CZ_HD void cz_d_fr_from_mont(cz_scalar *r, const cz_fr *a)
{
    const uint64_t p[4] = CZ_DEV_FR_P;
    const uint64_t one[4] = { 1, 0, 0, 0 };
    cz_d_mont_mul(r->l, a->l, one, p, CZ_DEV_FR_INV, 4);
}

/* ---- Fp2 = Fp[u]/(u^2 + 1) ------------------------------------------------ */
CZ_HD void cz_d_fp2_add(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
    cz_d_fp_add(&r->c0, &a->c0, &b->c0);
    cz_d_fp_add(&r->c1, &a->c1, &b->c1);
}
CZ_HD void cz_d_fp2_sub(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
    cz_d_fp_sub(&r->c0, &a->c0, &b->c0);
    cz_d_fp_sub(&r->c1, &a->c1, &b->c1);
}
CZ_HD void cz_d_fp2_dbl(cz_fp2 *r, const cz_fp2 *a) { cz_d_fp2_add(r, a, a); }
CZ_HD void cz_d_fp2_neg(cz_fp2 *r, const cz_fp2 *a)
{
    cz_d_fp_neg(&r->c0, &a->c0);
    cz_d_fp_neg(&r->c1, &a->c1);
}
CZ_HD void cz_d_fp2_zero(cz_fp2 *r)
{
    cz_d_fp_zero(&r->c0);
    cz_d_fp_zero(&r->c1);
}
CZ_HD void cz_d_fp2_one(cz_fp2 *r)
{
    cz_d_fp_one(&r->c0);
    cz_d_fp_zero(&r->c1);
}
/* Karatsuba: 3 Fp multiplications */
CZ_HD void cz_d_fp2_mul(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
    cz_fp t0, t1, s0, s1;
    cz_d_fp_mul(&t0, &a->c0, &b->c0);
    cz_d_fp_mul(&t1, &a->c1, &b->c1);
    cz_d_fp_add(&s0, &a->c0, &a->c1);
    cz_d_fp_add(&s1, &b->c0, &b->c1);
    cz_d_fp_mul(&s0, &s0, &s1);
    cz_d_fp_sub(&s0, &s0, &t0);
    cz_d_fp_sub(&r->c1, &s0, &t1);
    cz_d_fp_sub(&r->c0, &t0, &t1);
}
/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
CZ_HD void cz_d_fp2_sqr(cz_fp2 *r, const cz_fp2 *a)
{
    cz_fp s, d, m;
    cz_d_fp_add(&s, &a->c0, &a->c1);
    cz_d_fp_sub(&d, &a->c0, &a->c1);
    cz_d_fp_mul(&m, &a->c0, &a->c1);
    cz_d_fp_mul(&r->c0, &s, &d);
    cz_d_fp_dbl(&r->c1, &m);
}
CZ_HD bool cz_d_fp2_is_zero(const cz_fp2 *a) { return cz_d_fp_is_zero(&a->c0) && cz_d_fp_is_zero(&a->c1); }
CZ_HD bool cz_d_fp2_eq(const cz_fp2 *a, const cz_fp2 *b)
{
    return cz_d_fp_eq(&a->c0, &b->c0) && cz_d_fp_eq(&a->c1, &b->c1);
}

/* ---- G1 / G2 in XYZZ coordinates -------------------------------------------
 * Formulas for y^2 = x^3 + b (a = 0) from the Explicit-Formulas Database,
 * "xyzz" coordinates: add-2008-s, madd-2008-s, dbl-2008-s-1. Written once
 * for a field F (fp: G1, fp2: G2). Variable time: the special cases
 * (infinity, P == Q, P == -Q) are branches.
 *   xyzz_dbl(r, p)                 r = 2p
 *   xyzz_add(r, a, b)              r = a + b
 *   xyzz_add_affine(r, a, b, neg)  r = a + (neg ? -b : b); b may be (0,0)
 *   xyzz_mul_small(r, p, k)        r = k·p, k < 2^32 (bucket reduction)
 *   xyzz_from_affine(r, a)         (0,0) -> infinity */
#define CZ_DEV_XYZZ(G, F, FT)                                                               \
    CZ_HD void cz_d_##G##_xyzz_set_inf(cz_##G##_xyzz *r)                                    \
    {                                                                                       \
        cz_d_##F##_zero(&r->x);                                                             \
        cz_d_##F##_zero(&r->y);                                                             \
        cz_d_##F##_zero(&r->zz);                                                            \
        cz_d_##F##_zero(&r->zzz);                                                           \
    }                                                                                       \
    CZ_HD bool cz_d_##G##_xyzz_is_inf(const cz_##G##_xyzz *p) { return cz_d_##F##_is_zero(&p->zz); } \
    CZ_HD bool cz_d_##G##_affine_is_inf(const cz_##G##_affine *p)                           \
    {                                                                                       \
        return cz_d_##F##_is_zero(&p->x) && cz_d_##F##_is_zero(&p->y);                      \
    }                                                                                       \
    CZ_HD void cz_d_##G##_xyzz_from_affine(cz_##G##_xyzz *r, const cz_##G##_affine *a)      \
    {                                                                                       \
        if (cz_d_##G##_affine_is_inf(a)) {                                                  \
            cz_d_##G##_xyzz_set_inf(r);                                                     \
            return;                                                                         \
        }                                                                                   \
        r->x = a->x;                                                                        \
        r->y = a->y;                                                                        \
        cz_d_##F##_one(&r->zz);                                                             \
        cz_d_##F##_one(&r->zzz);                                                            \
    }                                                                                       \
    CZ_HD_PT void cz_d_##G##_xyzz_dbl(cz_##G##_xyzz *r, const cz_##G##_xyzz *p)                \
    {                                                                                       \
        if (cz_d_##G##_xyzz_is_inf(p)) {                                                    \
            cz_d_##G##_xyzz_set_inf(r);                                                     \
            return;                                                                         \
        }                                                                                   \
        FT u, v, w, s, m, x3, t;                                                            \
        cz_d_##F##_dbl(&u, &p->y);          /* U = 2Y */                                    \
        cz_d_##F##_sqr(&v, &u);             /* V = U^2 */                                   \
        cz_d_##F##_mul(&w, &u, &v);         /* W = U V */                                   \
        cz_d_##F##_mul(&s, &p->x, &v);      /* S = X V */                                   \
        cz_d_##F##_sqr(&m, &p->x);                                                          \
        cz_d_##F##_dbl(&t, &m);                                                             \
        cz_d_##F##_add(&m, &m, &t);         /* M = 3 X^2 */                                 \
        cz_d_##F##_sqr(&x3, &m);                                                            \
        cz_d_##F##_dbl(&t, &s);                                                             \
        cz_d_##F##_sub(&x3, &x3, &t);       /* X3 = M^2 - 2S */                             \
        cz_d_##F##_sub(&t, &s, &x3);                                                        \
        cz_d_##F##_mul(&t, &m, &t);                                                         \
        cz_d_##F##_mul(&w, &w, &p->y);                                                      \
        cz_d_##F##_mul(&r->zz, &v, &p->zz);                                                 \
        cz_d_##F##_mul(&u, &u, &v); /* W again, for ZZZ */                                  \
        cz_d_##F##_mul(&r->zzz, &u, &p->zzz);                                               \
        cz_d_##F##_sub(&r->y, &t, &w);      /* Y3 = M (S - X3) - W Y */                     \
        r->x = x3;                                                                          \
    }                                                                                       \
    CZ_HD_PT void cz_d_##G##_xyzz_add(cz_##G##_xyzz *r, const cz_##G##_xyzz *a,                \
                                   const cz_##G##_xyzz *b)                                  \
    {                                                                                       \
        if (cz_d_##G##_xyzz_is_inf(a)) {                                                    \
            *r = *b;                                                                        \
            return;                                                                         \
        }                                                                                   \
        if (cz_d_##G##_xyzz_is_inf(b)) {                                                    \
            *r = *a;                                                                        \
            return;                                                                         \
        }                                                                                   \
        FT u1, u2, s1, s2, pp, ppp, q, x3, t;                                               \
        cz_d_##F##_mul(&u1, &a->x, &b->zz);                                                 \
        cz_d_##F##_mul(&u2, &b->x, &a->zz);                                                 \
        cz_d_##F##_mul(&s1, &a->y, &b->zzz);                                                \
        cz_d_##F##_mul(&s2, &b->y, &a->zzz);                                                \
        cz_d_##F##_sub(&u2, &u2, &u1);      /* P */                                         \
        cz_d_##F##_sub(&s2, &s2, &s1);      /* R */                                         \
        if (cz_d_##F##_is_zero(&u2)) {                                                      \
            if (cz_d_##F##_is_zero(&s2)) cz_d_##G##_xyzz_dbl(r, a);                         \
            else cz_d_##G##_xyzz_set_inf(r);                                                \
            return;                                                                         \
        }                                                                                   \
        cz_d_##F##_sqr(&pp, &u2);                                                           \
        cz_d_##F##_mul(&ppp, &u2, &pp);                                                     \
        cz_d_##F##_mul(&q, &u1, &pp);                                                       \
        cz_d_##F##_sqr(&x3, &s2);                                                           \
        cz_d_##F##_sub(&x3, &x3, &ppp);                                                     \
        cz_d_##F##_dbl(&t, &q);                                                             \
        cz_d_##F##_sub(&x3, &x3, &t);       /* X3 = R^2 - PPP - 2Q */                       \
        cz_d_##F##_sub(&t, &q, &x3);                                                        \
        cz_d_##F##_mul(&t, &s2, &t);                                                        \
        cz_d_##F##_mul(&s1, &s1, &ppp);                                                     \
        cz_d_##F##_sub(&t, &t, &s1);        /* Y3 = R (Q - X3) - S1 PPP */                  \
        cz_d_##F##_mul(&u1, &a->zz, &b->zz);                                                \
        cz_d_##F##_mul(&r->zz, &u1, &pp);   /* ZZ3 = ZZ1 ZZ2 PP */                          \
        cz_d_##F##_mul(&u1, &a->zzz, &b->zzz);                                              \
        cz_d_##F##_mul(&r->zzz, &u1, &ppp); /* ZZZ3 = ZZZ1 ZZZ2 PPP */                      \
        r->x = x3;                                                                          \
        r->y = t;                                                                           \
    }                                                                                       \
    CZ_HD_PT void cz_d_##G##_xyzz_add_affine(cz_##G##_xyzz *r, const cz_##G##_xyzz *a,         \
                                          const cz_##G##_affine *b, bool neg)               \
    {                                                                                       \
        if (cz_d_##G##_affine_is_inf(b)) {                                                  \
            *r = *a;                                                                        \
            return;                                                                         \
        }                                                                                   \
        FT by = b->y;                                                                       \
        if (neg) cz_d_##F##_neg(&by, &by);                                                  \
        if (cz_d_##G##_xyzz_is_inf(a)) {                                                    \
            r->x = b->x;                                                                    \
            r->y = by;                                                                      \
            cz_d_##F##_one(&r->zz);                                                         \
            cz_d_##F##_one(&r->zzz);                                                        \
            return;                                                                         \
        }                                                                                   \
        FT u2, s2, pp, ppp, q, x3, t;                                                       \
        cz_d_##F##_mul(&u2, &b->x, &a->zz);                                                 \
        cz_d_##F##_mul(&s2, &by, &a->zzz);                                                  \
        cz_d_##F##_sub(&u2, &u2, &a->x);    /* P */                                         \
        cz_d_##F##_sub(&s2, &s2, &a->y);    /* R */                                         \
        if (cz_d_##F##_is_zero(&u2)) {                                                      \
            if (cz_d_##F##_is_zero(&s2)) cz_d_##G##_xyzz_dbl(r, a);                         \
            else cz_d_##G##_xyzz_set_inf(r);                                                \
            return;                                                                         \
        }                                                                                   \
        cz_d_##F##_sqr(&pp, &u2);                                                           \
        cz_d_##F##_mul(&ppp, &u2, &pp);                                                     \
        cz_d_##F##_mul(&q, &a->x, &pp);                                                     \
        cz_d_##F##_sqr(&x3, &s2);                                                           \
        cz_d_##F##_sub(&x3, &x3, &ppp);                                                     \
        cz_d_##F##_dbl(&t, &q);                                                             \
        cz_d_##F##_sub(&x3, &x3, &t);       /* X3 = R^2 - PPP - 2Q */                       \
        cz_d_##F##_sub(&t, &q, &x3);                                                        \
        cz_d_##F##_mul(&t, &s2, &t);                                                        \
        cz_d_##F##_mul(&u2, &a->y, &ppp);                                                   \
        cz_d_##F##_sub(&t, &t, &u2);        /* Y3 = R (Q - X3) - Y1 PPP */                  \
        cz_d_##F##_mul(&r->zz, &a->zz, &pp);                                                \
        cz_d_##F##_mul(&r->zzz, &a->zzz, &ppp);                                             \
        r->x = x3;                                                                          \
        r->y = t;                                                                           \
    }                                                                                       \
    CZ_HD_PT void cz_d_##G##_xyzz_mul_small(cz_##G##_xyzz *r, const cz_##G##_xyzz *p, uint32_t k) \
    {                                                                                       \
        cz_##G##_xyzz acc, base = *p;                                                       \
        cz_d_##G##_xyzz_set_inf(&acc);                                                      \
        for (int i = 31; i >= 0; i--) {                                                     \
            cz_d_##G##_xyzz_dbl(&acc, &acc);                                                \
            if ((k >> i) & 1) cz_d_##G##_xyzz_add(&acc, &acc, &base);                       \
        }                                                                                   \
        *r = acc;                                                                           \
    }

CZ_DEV_XYZZ(g1, fp, cz_fp)
/* G2 runs on the CPU (B_G2 overlaps the GPU work), so kernel files do not
 * instantiate it unless they ask (an unused out-of-line copy would be a
 * warning); the host tests always check it. */
#if !defined(__CUDACC__) || defined(CZ_DEV_WANT_G2)
CZ_DEV_XYZZ(g2, fp2, cz_fp2)
#endif

#endif /* CUZK_CUDA_DEV_ARITH_H */
