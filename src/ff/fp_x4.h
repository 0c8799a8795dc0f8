/*
 * Internal to src/ff (and the field benchmark and tests): sixteen Fp
 * Montgomery products at once on AVX2 + FMA lanes, in double precision.
 *
 * Why it exists: a CPU without AVX-512 IFMA (AMD Zen 3, most providers'
 * servers) multiplies with MULX/ADX, 72 64-bit products per Fp product.
 * Its AVX2 units multiply only 32×32 bits as integers, but 53×53 bits as
 * doubles, and two FMAs give the exact 96-bit product of two 48-bit
 * limbs: hi = fl(a·b + C1) and lo = a·b − (hi − C1), exact in the next
 * binade (fp_x4_avx2.c). Four groups of four lanes run side by side (one
 * group alone waits on its own serial reduction chain). `cuzk bench
 * field` prints the kernel against four MULX chains ("fp_mul_x16_fma",
 * "fp_mul_4chains"): on the Zen 4 development machine 16.9–17.3 ns against
 * 21.9–23.1 ns a product (BENCHMARKS.md "An AVX2 + FMA Fp product"). The
 * MSM does not use it yet: its batch additions would need the rest of an
 * addition in lanes too, as the IFMA flush has.
 *
 * Lane form: limb k (48 bits, R = 2^384 as cz_fp, so no conversion
 * product) of lane j is l[k][j]; values are kept lazily in [0, 2p).
 */
#ifndef CZ_FF_FP_X4_H
#define CZ_FF_FP_X4_H

#include "cuzk/field.h"

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

/* True when the CPU (and OS) support AVX2 and FMA, and this build has the
 * kernel (x86-64, GCC or Clang). Every other function here may run only
 * when it is true. */
bool cz__fp_x4_supported(void);

/* Lane form of a[0..3] (canonical Montgomery elements). */
void cz__fp_x4_pack(cz__fp_x4 *r, const cz_fp a[4]);
/* Canonical elements of the four lanes (each < 2p on entry). */
void cz__fp_x4_unpack(cz_fp r[4], const cz__fp_x4 *a);
/* One lane: lane j (< 4) of r = a (canonical). */
static inline void cz__fp_x4_set_lane(cz__fp_x4 *r, unsigned j, const cz_fp *a)
{
    uint64_t o[8];
    cz__fp_to48(o, a->l);
    for (int k = 0; k < 8; k++) r->l[k][j] = o[k];
}

/* *r = lane j of a (< 2p), made canonical: q − p unless that borrows,
 * chosen by mask (no branch on the value). */
static inline void cz__fp_x4_get_lane(cz_fp *r, const cz__fp_x4 *a, unsigned j)
{
    uint64_t o[8], q[6], s[6], bw = 0;
    for (int k = 0; k < 8; k++) o[k] = a->l[k][j];
    cz__fp_from48(q, o);
    for (int i = 0; i < 6; i++) {
        unsigned __int128 d = (unsigned __int128)q[i] - CZ_FP_MODULUS[i] - bw;
        s[i] = (uint64_t)d;
        bw = (uint64_t)(d >> 64) & 1;
    }
    uint64_t keep = 0 - bw;
    for (int i = 0; i < 6; i++) r->l[i] = (q[i] & keep) | (s[i] & ~keep);
}
/* Groups per product call (lanes: 4 × CZ_FP_X4_GROUPS). */
#define CZ_FP_X4_GROUPS 4
/* r[g] = a[g]·b[g]·2^-384 mod p in every lane of every group g: lanes of
 * a and b < 2p (as pack and this function leave them) give lanes of
 * r < 2p. r may alias a or b. */
void cz__fp_x4_mul4(cz__fp_x4 r[CZ_FP_X4_GROUPS], const cz__fp_x4 a[CZ_FP_X4_GROUPS],
                    const cz__fp_x4 b[CZ_FP_X4_GROUPS]);

#endif
