/*
 * Internal to src/pairing: inline Fp / Fp2 addition, subtraction,
 * doubling, negation and multiplication by the non-residue u + 1.
 *
 * WHY: the tower formulas do roughly as many additions as multiplications;
 * as out-of-line calls into cz_ff they cost about as much as the
 * multiplications themselves. These inline versions let the compiler keep
 * limbs in registers. Same contracts as field.h: inputs reduced (< p) in
 * Montgomery form (these maps are linear, so the form does not matter),
 * outputs reduced, out may alias inputs, constant time.
 */
#ifndef CZ_PAIRING_FP_INLINE_H
#define CZ_PAIRING_FP_INLINE_H

#include "cuzk/field.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#define CZ_ADDC(c, a, b, out) ((c) = _addcarry_u64((c), (a), (b), (unsigned long long *)(out)))
#define CZ_SUBB(c, a, b, out) ((c) = _subborrow_u64((c), (a), (b), (unsigned long long *)(out)))
typedef unsigned char cz_carry;
#else
typedef uint64_t cz_carry;
#define CZ_ADDC(c, a, b, out)                                                        \
    do {                                                                             \
        unsigned __int128 s_ = (unsigned __int128)(a) + (b) + (c);                   \
        *(out) = (uint64_t)s_;                                                       \
        (c) = (uint64_t)(s_ >> 64);                                                  \
    } while (0)
#define CZ_SUBB(c, a, b, out)                                                        \
    do {                                                                             \
        unsigned __int128 d_ = (unsigned __int128)(a) - (b) - (c);                   \
        *(out) = (uint64_t)d_;                                                       \
        (c) = (uint64_t)(d_ >> 64) & 1;                                              \
    } while (0)
#endif

#define CZ_P0 0xb9feffffffffaaabULL
#define CZ_P1 0x1eabfffeb153ffffULL
#define CZ_P2 0x6730d2a0f6b0f624ULL
#define CZ_P3 0x64774b84f38512bfULL
#define CZ_P4 0x4b1ba7b6434bacd7ULL
#define CZ_P5 0x1a0111ea397fe69aULL

/* r = a + b mod p. a + b < 2p < 2^382: no carry leaves the top limb. */
static inline void fpi_add(cz_fp *r, const cz_fp *a, const cz_fp *b)
{
    static const uint64_t P[6] = {CZ_P0, CZ_P1, CZ_P2, CZ_P3, CZ_P4, CZ_P5};
    uint64_t s[6], t[6];
    cz_carry c = 0, bw = 0;
    for (int i = 0; i < 6; i++) CZ_ADDC(c, a->l[i], b->l[i], &s[i]);
    for (int i = 0; i < 6; i++) CZ_SUBB(bw, s[i], P[i], &t[i]);
    uint64_t keep = 0 - (uint64_t)bw; /* borrow: s < p, keep s */
    for (int i = 0; i < 6; i++) r->l[i] = (s[i] & keep) | (t[i] & ~keep);
}

/* r = a - b mod p. */
static inline void fpi_sub(cz_fp *r, const cz_fp *a, const cz_fp *b)
{
    static const uint64_t P[6] = {CZ_P0, CZ_P1, CZ_P2, CZ_P3, CZ_P4, CZ_P5};
    uint64_t d[6];
    cz_carry bw = 0, c = 0;
    for (int i = 0; i < 6; i++) CZ_SUBB(bw, a->l[i], b->l[i], &d[i]);
    uint64_t mask = 0 - (uint64_t)bw; /* a < b: add p back */
    for (int i = 0; i < 6; i++) CZ_ADDC(c, d[i], P[i] & mask, &r->l[i]);
}

static inline void fpi_dbl(cz_fp *r, const cz_fp *a) { fpi_add(r, a, a); }

/* r = -a mod p (0 stays 0). */
static inline void fpi_neg(cz_fp *r, const cz_fp *a)
{
    static const uint64_t P[6] = {CZ_P0, CZ_P1, CZ_P2, CZ_P3, CZ_P4, CZ_P5};
    uint64_t nz = a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5];
    uint64_t mask = 0 - ((nz | (0 - nz)) >> 63);
    cz_carry bw = 0;
    uint64_t d[6];
    for (int i = 0; i < 6; i++) CZ_SUBB(bw, P[i], a->l[i], &d[i]);
    for (int i = 0; i < 6; i++) r->l[i] = d[i] & mask;
}

static inline void fp2i_add(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
    fpi_add(&r->c0, &a->c0, &b->c0);
    fpi_add(&r->c1, &a->c1, &b->c1);
}

static inline void fp2i_sub(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b)
{
    fpi_sub(&r->c0, &a->c0, &b->c0);
    fpi_sub(&r->c1, &a->c1, &b->c1);
}

static inline void fp2i_dbl(cz_fp2 *r, const cz_fp2 *a)
{
    fpi_add(&r->c0, &a->c0, &a->c0);
    fpi_add(&r->c1, &a->c1, &a->c1);
}

static inline void fp2i_neg(cz_fp2 *r, const cz_fp2 *a)
{
    fpi_neg(&r->c0, &a->c0);
    fpi_neg(&r->c1, &a->c1);
}

static inline void fp2i_conj(cz_fp2 *r, const cz_fp2 *a)
{
    r->c0 = a->c0;
    fpi_neg(&r->c1, &a->c1);
}

/* r = a·(u + 1) = (a0 - a1) + (a0 + a1) u */
static inline void fp2i_mul_by_nonresidue(cz_fp2 *r, const cz_fp2 *a)
{
    cz_fp t;
    fpi_sub(&t, &a->c0, &a->c1);
    fpi_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

#endif
