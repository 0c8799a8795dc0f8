/*
 * Internal to src/ff (and the MSM, the field benchmark and tests): fourteen
 * Fp Montgomery products at once, eight on AVX2 + FMA lanes in double
 * precision and six on the MULX/ADX multiplier, in one instruction
 * stream. (The "x16" of the names is the family's, shared with the Fr
 * block of fr_x4.h, which holds sixteen; this one holds CZ_FP_X16_N =
 * fourteen, for the reason in gen_fp_x4_avx2.py: two more MULX products
 * took it past what the instruction caches hold.)
 *
 * Why it exists: a CPU without AVX-512 IFMA (AMD Zen 3, most providers'
 * servers) multiplies with MULX/ADX, 72 64-bit products per Fp product.
 * Its AVX2 units multiply only 32×32 bits as integers, but 53×53 bits as
 * doubles, and two FMAs give the exact 96-bit product of two 48-bit
 * limbs: hi = fl(a·b + C1) and lo = a·b − (hi − C1), exact in the next
 * binade (fp_x4_avx2.c). The lane products load the vector pipes and leave
 * the integer multiplier idle, a MULX product the reverse: interleaved in
 * one asm block (gen_fp_x4_avx2.py) the core runs both at once. `cuzk
 * bench field` prints it ("fp_mul_x16_hybrid") against four MULX chains
 * ("fp_mul_4chains"): on the Zen 4 development machine 16.3 ns against
 * 33 ns a product (BENCHMARKS.md "Lanes and MULX in one stream" and
 * "The Fp block at fourteen").
 *
 * Lane form: limb k (48 bits, R = 2^384 as cz_fp, so no conversion
 * product) of lane j is l[k][j]; values are kept lazily in [0, 2p).
 */
#ifndef CZ_FF_FP_X4_H
#define CZ_FF_FP_X4_H

#include "cuzk/field.h"
#include "mont.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    _Alignas(32) uint64_t l[8][4];
} cz__fp_x4;

#define CZ_FP_X4_M48 ((UINT64_C(1) << 48) - 1)

/* The radix-2^48 limbs of a 384-bit value (six 64-bit limbs) and back:
 * the lane form's repacking, also that of the MSM's IFMA lanes
 * (msm_x8.c). Plain C, on every CPU; inline, since the batch additions
 * repack every coordinate they touch. */
static inline void cz__fp_to48(uint64_t o[8], const uint64_t q[6])
{
    o[0] = q[0] & CZ_FP_X4_M48;
    o[1] = ((q[0] >> 48) | (q[1] << 16)) & CZ_FP_X4_M48;
    o[2] = ((q[1] >> 32) | (q[2] << 32)) & CZ_FP_X4_M48;
    o[3] = q[2] >> 16;
    o[4] = q[3] & CZ_FP_X4_M48;
    o[5] = ((q[3] >> 48) | (q[4] << 16)) & CZ_FP_X4_M48;
    o[6] = ((q[4] >> 32) | (q[5] << 32)) & CZ_FP_X4_M48;
    o[7] = q[5] >> 16;
}

static inline void cz__fp_from48(uint64_t q[6], const uint64_t o[8])
{
    q[0] = o[0] | (o[1] << 48);
    q[1] = (o[1] >> 16) | (o[2] << 32);
    q[2] = (o[2] >> 32) | (o[3] << 16);
    q[3] = o[4] | (o[5] << 48);
    q[4] = (o[5] >> 16) | (o[6] << 32);
    q[5] = (o[6] >> 32) | (o[7] << 16);
}

/* r = q − p unless that borrows (q < 2p in, canonical out), chosen by mask:
 * no branch on the value. */
static inline void cz__fp_reduce_once(cz_fp *r, const uint64_t q[6]) { cz_mont_reduce_once(r->l, q, CZ_FP_MODULUS, 6); }

/* True when the CPU (and OS) support AVX2 and FMA, and this build has the
 * kernel (x86-64, GCC or Clang). cz__fp_x16_mul may run only when it is
 * true. (MULX and ADX come with every CPU that has AVX2 and FMA and no
 * IFMA that this is meant for; the check asks for them too.) */
bool cz__fp_x4_supported(void);

/* One lane: lane j (< 4) of r = a (canonical). */
static inline void cz__fp_x4_set_lane(cz__fp_x4 *r, unsigned j, const cz_fp *a)
{
    uint64_t o[8];
    cz__fp_to48(o, a->l);
    for (int k = 0; k < 8; k++) r->l[k][j] = o[k];
}

/* *r = lane j of a (< 2p), made canonical. */
static inline void cz__fp_x4_get_lane(cz_fp *r, const cz__fp_x4 *a, unsigned j)
{
    uint64_t o[8], q[6];
    for (int k = 0; k < 8; k++) o[k] = a->l[k][j];
    cz__fp_from48(q, o);
    cz__fp_reduce_once(r, q);
}

/* Fourteen values for one product call: values 0..4G-1 in the lanes (value
 * i is lane i % 4 of group i / 4), the rest as plain six-limb elements
 * for the MULX products. Both kinds are kept lazily in [0, 2p). The
 * layout is the asm block's (fp_x4_avx2.c checks it). */
#define CZ_FP_X4_GROUPS 2
#define CZ_FP_X4_SCALARS 6
#define CZ_FP_X16_N (4 * CZ_FP_X4_GROUPS + CZ_FP_X4_SCALARS)
typedef struct {
    cz__fp_x4 g[CZ_FP_X4_GROUPS];
    cz_fp s[CZ_FP_X4_SCALARS];
} cz__fp_x16;

/* Value i (< CZ_FP_X16_N) of r = a (canonical, or < 2p). */
static inline void cz__fp_x16_set(cz__fp_x16 *r, unsigned i, const cz_fp *a)
{
    if (i < 4 * CZ_FP_X4_GROUPS) cz__fp_x4_set_lane(&r->g[i / 4], i % 4, a);
    else r->s[i - 4 * CZ_FP_X4_GROUPS] = *a;
}

/* *r = value i of a, made canonical. */
static inline void cz__fp_x16_get(cz_fp *r, const cz__fp_x16 *a, unsigned i)
{
    if (i < 4 * CZ_FP_X4_GROUPS) cz__fp_x4_get_lane(r, &a->g[i / 4], i % 4);
    else cz__fp_reduce_once(r, a->s[i - 4 * CZ_FP_X4_GROUPS].l);
}

/* r = a·b·2^-384 mod p, value by value: values of a and b < 2p give values
 * of r < 2p. r may alias a or b. */
void cz__fp_x16_mul(cz__fp_x16 *r, const cz__fp_x16 *a, const cz__fp_x16 *b);

/* r = a²·2^-384 mod p, value by value, in fewer limb products than
 * cz__fp_x16_mul(r, a, a) (its own block, gen_fp_x4_avx2.py fp-sqr):
 * values of a < 2p give values of r < 2p, and the lanes' limbs must be
 * under 2^49 (normalised: the doubled limbs' products must stay exact).
 * r may alias a. */
void cz__fp_x16_sqr(cz__fp_x16 *r, const cz__fp_x16 *a);

#endif
