/*
 * Internal to src/poly: the NTT's canonical Fr addition, subtraction and
 * product, inlined, shared by the scalar butterflies (ntt.c) and the AVX2
 * + MULX ones (ntt_x16.c, and its calibration in ntt_lanes.c).
 */
#ifndef CZ_POLY_NTT_ARITH_H
#define CZ_POLY_NTT_ARITH_H

#include "cuzk/field.h"
#include "ff/mont.h"
#include "ff/mont_adx.h"
#include "ff/ff_internal.h"

/* r, for the inlined add/sub below; checked against CZ_FR_MODULUS when a
 * domain is created. */
static const uint64_t FR_M[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                 0x73eda753299d7d48ULL};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* Add/sub as short carry chains in inline asm: the generic ff/mont.h
 * versions go through unsigned __int128 temporaries that GCC spills to the
 * stack in these loops, and the _addcarry_u64 intrinsics still cost
 * setb/add round trips; together they were a third of the butterfly time.
 * Constant time (cmov / masks, no branches). r may alias a or b: every
 * input is read before r is written. */
static inline void fadd(cz_fr *r, const cz_fr *a, const cz_fr *b)
{
    uint64_t s0 = a->l[0], s1 = a->l[1], s2 = a->l[2], s3 = a->l[3];
    uint64_t t0, t1, t2, t3;
    __asm__("addq %[b0], %[s0]\n\t"
            "adcq %[b1], %[s1]\n\t"
            "adcq %[b2], %[s2]\n\t"
            "adcq %[b3], %[s3]\n\t" /* a + b < 2r < 2^256: no carry out */
            "movq %[s0], %[t0]\n\t"
            "movq %[s1], %[t1]\n\t"
            "movq %[s2], %[t2]\n\t"
            "movq %[s3], %[t3]\n\t"
            "subq %[m0], %[t0]\n\t"
            "sbbq %[m1], %[t1]\n\t"
            "sbbq %[m2], %[t2]\n\t"
            "sbbq %[m3], %[t3]\n\t"
            "cmovncq %[t0], %[s0]\n\t" /* no borrow: a + b >= r, take a + b - r */
            "cmovncq %[t1], %[s1]\n\t"
            "cmovncq %[t2], %[s2]\n\t"
            "cmovncq %[t3], %[s3]"
            : [s0] "+&r"(s0), [s1] "+&r"(s1), [s2] "+&r"(s2), [s3] "+&r"(s3), [t0] "=&r"(t0), [t1] "=&r"(t1),
              [t2] "=&r"(t2), [t3] "=&r"(t3)
            : [b0] "m"(b->l[0]), [b1] "m"(b->l[1]), [b2] "m"(b->l[2]), [b3] "m"(b->l[3]), [m0] "m"(FR_M[0]),
              [m1] "m"(FR_M[1]), [m2] "m"(FR_M[2]), [m3] "m"(FR_M[3])
            : "cc");
    r->l[0] = s0;
    r->l[1] = s1;
    r->l[2] = s2;
    r->l[3] = s3;
}

static inline void fsub(cz_fr *r, const cz_fr *a, const cz_fr *b)
{
    uint64_t d0 = a->l[0], d1 = a->l[1], d2 = a->l[2], d3 = a->l[3];
    uint64_t mask, t0, t1, t2, t3;
    __asm__("subq %[b0], %[d0]\n\t"
            "sbbq %[b1], %[d1]\n\t"
            "sbbq %[b2], %[d2]\n\t"
            "sbbq %[b3], %[d3]\n\t"
            "sbbq %[mk], %[mk]\n\t" /* mask = a < b ? ~0 : 0 */
            "movq %[m0], %[t0]\n\t"
            "movq %[m1], %[t1]\n\t"
            "movq %[m2], %[t2]\n\t"
            "movq %[m3], %[t3]\n\t"
            "andq %[mk], %[t0]\n\t"
            "andq %[mk], %[t1]\n\t"
            "andq %[mk], %[t2]\n\t"
            "andq %[mk], %[t3]\n\t"
            "addq %[t0], %[d0]\n\t" /* add r back when a < b */
            "adcq %[t1], %[d1]\n\t"
            "adcq %[t2], %[d2]\n\t"
            "adcq %[t3], %[d3]"
            : [d0] "+&r"(d0), [d1] "+&r"(d1), [d2] "+&r"(d2), [d3] "+&r"(d3), [mk] "=&r"(mask), [t0] "=&r"(t0),
              [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
            : [b0] "m"(b->l[0]), [b1] "m"(b->l[1]), [b2] "m"(b->l[2]), [b3] "m"(b->l[3]), [m0] "m"(FR_M[0]),
              [m1] "m"(FR_M[1]), [m2] "m"(FR_M[2]), [m3] "m"(FR_M[3])
            : "cc");
    r->l[0] = d0;
    r->l[1] = d1;
    r->l[2] = d2;
    r->l[3] = d3;
}

/* r = q mod r for q < 2r (q's limbs, e.g. a product's raw result). As
 * asm for the same reason as fadd, and one more: the compiler vectorises
 * the C select into 128-bit loads of the just-stored limbs, a store-
 * forwarding stall (measured: a fifth of the AVX2 butterflies' time). */
static inline void freduce(cz_fr *r, const uint64_t q[4])
{
    uint64_t s0 = q[0], s1 = q[1], s2 = q[2], s3 = q[3];
    uint64_t t0 = s0, t1 = s1, t2 = s2, t3 = s3;
    __asm__("subq %[m0], %[t0]\n\t"
            "sbbq %[m1], %[t1]\n\t"
            "sbbq %[m2], %[t2]\n\t"
            "sbbq %[m3], %[t3]\n\t"
            "cmovncq %[t0], %[s0]\n\t" /* no borrow: q >= r, take q - r */
            "cmovncq %[t1], %[s1]\n\t"
            "cmovncq %[t2], %[s2]\n\t"
            "cmovncq %[t3], %[s3]"
            : [s0] "+&r"(s0), [s1] "+&r"(s1), [s2] "+&r"(s2), [s3] "+&r"(s3), [t0] "+&r"(t0), [t1] "+&r"(t1),
              [t2] "+&r"(t2), [t3] "+&r"(t3)
            : [m0] "m"(FR_M[0]), [m1] "m"(FR_M[1]), [m2] "m"(FR_M[2]), [m3] "m"(FR_M[3])
            : "cc");
    r->l[0] = s0;
    r->l[1] = s1;
    r->l[2] = s2;
    r->l[3] = s3;
}
#else
static inline void fadd(cz_fr *r, const cz_fr *a, const cz_fr *b) { cz_mont_add(r->l, a->l, b->l, FR_M, 4); }
static inline void fsub(cz_fr *r, const cz_fr *a, const cz_fr *b) { cz_mont_sub(r->l, a->l, b->l, FR_M, 4); }
static inline void freduce(cz_fr *r, const uint64_t q[4]) { cz_mont_reduce_once(r->l, q, FR_M, 4); }
#endif
/* The MULX/ADX product is expanded in the butterfly (no call) when the ff
 * layer runs its ADX back-end, and goes through cz_fr_mul otherwise, so
 * `cuzk bench field --backend portable` and the tests that switch
 * back-ends still reach the NTT. */
#if CZ_HAVE_ADX_ASM
static const cz_adx_mod FR_ADX = {{0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                   0x73eda753299d7d48ULL, 0xfffffffeffffffffULL, 0}};
static inline void fmul(cz_fr *r, const cz_fr *a, const cz_fr *b)
{
    if (__builtin_expect(cz__ff_use_adx, 1)) cz_adx_mont_mul4(r->l, a->l, b->l, &FR_ADX);
    else cz_fr_mul(r, a, b);
}
#else
static inline void fmul(cz_fr *r, const cz_fr *a, const cz_fr *b) { cz_fr_mul(r, a, b); }
#endif

#endif
