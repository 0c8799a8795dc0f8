/*
 * Internal to src/ff (and the field benchmark and tests): four Fp
 * Montgomery products at once on AVX2 + FMA lanes, in double precision.
 *
 * Why it exists: a CPU without AVX-512 IFMA (AMD Zen 3, most providers'
 * servers) multiplies with MULX/ADX, 72 64-bit products per Fp product.
 * Its AVX2 units multiply only 32×32 bits as integers, but 53×53 bits as
 * doubles, and two FMAs give the exact 96-bit product of two 48-bit
 * limbs: hi = fl(a·b + C1) and lo = a·b − (hi − C1), exact in the next
 * binade (fp_x4_avx2.c). This kernel answers whether four such products
 * side by side beat four MULX products on a given CPU; `cuzk bench field`
 * prints both ("fp_mul_x4_fma" and "fp_mul_4chains"). On the Zen 4
 * development machine they do not (BENCHMARKS.md "An AVX2 + FMA Fp
 * product"), so the MSM keeps its MULX flush where there is no IFMA.
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

/* True when the CPU (and OS) support AVX2 and FMA, and this build has the
 * kernel (x86-64, GCC or Clang). Every other function here may run only
 * when it is true. */
bool cz__fp_x4_supported(void);

/* Lane form of a[0..3] (canonical Montgomery elements). */
void cz__fp_x4_pack(cz__fp_x4 *r, const cz_fp a[4]);
/* Canonical elements of the four lanes (each < 2p on entry). */
void cz__fp_x4_unpack(cz_fp r[4], const cz__fp_x4 *a);
/* r = a·b·2^-384 mod p in every lane: lanes of a and b < 2p (as pack and
 * this function leave them) give lanes of r < 2p. r may alias a or b. */
void cz__fp_x4_mul(cz__fp_x4 *r, const cz__fp_x4 *a, const cz__fp_x4 *b);

#endif
