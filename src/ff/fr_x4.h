/*
 * Internal to src/ff (the NTT, the field benchmark and tests): sixteen Fr
 * Montgomery products at once, eight on AVX2 + FMA lanes in double
 * precision and eight on the MULX/ADX multiplier, in one instruction
 * stream: the Fr twin of fp_x4.h, from the same generator
 * (gen_fp_x4_avx2.py fr).
 *
 * Why: a CPU without AVX-512 IFMA spends most of a Groth16 quotient in Fr
 * products (the NTT's twiddle multiplications). A four-limb MULX product
 * is bound by the carry-flag instructions (ADCX/ADOX/ADC/SBB/CMOV), which
 * the cores issue on two ports only, and leaves the vector pipes idle;
 * the lane products use those (see fp_x4.h for the FMA limb product).
 *
 * Lane form: six 48-bit limbs (288 bits), l[k][j] limb k of lane j. The
 * lanes reduce by R = 2^288, not by cz_fr's 2^256: the b operand goes in
 * shifted left by 32 bits (set_b), so the lanes return a·(b·2^32)·2^-288
 * = a·b·2^-256, the cz_fr Montgomery product, with no extra product. The
 * shifted b (< 2^287) is not reduced, and the result still stays under
 * (a·b·2^32 + m·r)/2^288 < r/2 + r.
 */
#ifndef CZ_FF_FR_X4_H
#define CZ_FF_FR_X4_H

#include "cuzk/field.h"
#include "mont.h"

#include <stdbool.h>
#include <stdint.h>

#define CZ_FR_X4_M48 ((UINT64_C(1) << 48) - 1)

typedef struct {
    _Alignas(32) uint64_t l[6][4];
} cz__fr_x4;

/* The radix-2^48 limbs of a 256-bit value, plain (to48) or shifted left
 * by 32 bits (to48s), and back (from48, for plain limbs under 2^256). */
static inline void cz__fr_to48(uint64_t o[6], const uint64_t q[4])
{
    o[0] = q[0] & CZ_FR_X4_M48;
    o[1] = ((q[0] >> 48) | (q[1] << 16)) & CZ_FR_X4_M48;
    o[2] = ((q[1] >> 32) | (q[2] << 32)) & CZ_FR_X4_M48;
    o[3] = q[2] >> 16;
    o[4] = q[3] & CZ_FR_X4_M48;
    o[5] = q[3] >> 48;
}

static inline void cz__fr_to48s(uint64_t o[6], const uint64_t q[4])
{
    o[0] = (q[0] << 32) & CZ_FR_X4_M48;
    o[1] = q[0] >> 16;
    o[2] = q[1] & CZ_FR_X4_M48;
    o[3] = ((q[1] >> 48) | (q[2] << 16)) & CZ_FR_X4_M48;
    o[4] = ((q[2] >> 32) | (q[3] << 32)) & CZ_FR_X4_M48;
    o[5] = q[3] >> 16;
}

static inline void cz__fr_from48(uint64_t q[4], const uint64_t o[6])
{
    q[0] = o[0] | (o[1] << 48);
    q[1] = (o[1] >> 16) | (o[2] << 32);
    q[2] = (o[2] >> 32) | (o[3] << 16);
    q[3] = o[4] | (o[5] << 48);
}

/* True when the CPU (and OS) support AVX2 and FMA (and MULX/ADX), and
 * this build has the kernel: cz__fr_x16_mul may run only then. */
bool cz__fr_x4_supported(void);

/* Sixteen values for one product call: values 0..4G-1 in the lanes (value
 * i is lane i % 4 of group i / 4), the rest as plain four-limb elements
 * for the MULX products. The layout is the asm block's (fr_x4_avx2.c
 * checks it). */
#define CZ_FR_X4_GROUPS 2
#define CZ_FR_X4_SCALARS 8
#define CZ_FR_X16_N (4 * CZ_FR_X4_GROUPS + CZ_FR_X4_SCALARS)
typedef struct {
    cz__fr_x4 g[CZ_FR_X4_GROUPS];
    cz_fr s[CZ_FR_X4_SCALARS];
} cz__fr_x16;

/* Value i of an a operand = x (see cz__fr_x16_mul for its bound). */
static inline void cz__fr_x16_set_a(cz__fr_x16 *r, unsigned i, const cz_fr *x)
{
    if (i < 4 * CZ_FR_X4_GROUPS) {
        uint64_t o[6];
        cz__fr_to48(o, x->l);
        for (int k = 0; k < 6; k++) r->g[i / 4].l[k][i % 4] = o[k];
    } else {
        r->s[i - 4 * CZ_FR_X4_GROUPS] = *x;
    }
}

/* Value i of a b operand = x (canonical), shifted in the lanes. */
static inline void cz__fr_x16_set_b(cz__fr_x16 *r, unsigned i, const cz_fr *x)
{
    if (i < 4 * CZ_FR_X4_GROUPS) {
        uint64_t o[6];
        cz__fr_to48s(o, x->l);
        for (int k = 0; k < 6; k++) r->g[i / 4].l[k][i % 4] = o[k];
    } else {
        r->s[i - 4 * CZ_FR_X4_GROUPS] = *x;
    }
}

/* *x = value i of a product's result (< 2r), made canonical. */
static inline void cz__fr_x16_get(cz_fr *x, const cz__fr_x16 *a, unsigned i)
{
    uint64_t q[4];
    if (i < 4 * CZ_FR_X4_GROUPS) {
        uint64_t o[6];
        for (int k = 0; k < 6; k++) o[k] = a->g[i / 4].l[k][i % 4];
        cz__fr_from48(q, o);
    } else {
        for (int k = 0; k < 4; k++) q[k] = a->s[i - 4 * CZ_FR_X4_GROUPS].l[k];
    }
    cz_mont_reduce_once(x->l, q, CZ_FR_MODULUS, 4);
}

/* r = a·b·2^-256 mod r value by value, for a set by set_a and b by set_b:
 * b canonical; a canonical, or in the lanes under 2r (an earlier result
 * may go back in there as it is); results under 2r (cz__fr_x16_get makes
 * them canonical). In the lanes (a·b·2^32 + m·r)/2^288 < r + r. A MULX
 * product (no final subtraction) is under (r·r + 2^256·r)/2^256 < 1.5r;
 * its a must be canonical: r is 0.45·2^256, and with a near 2r the
 * five-limb accumulator would overflow (a·b_i + q·r > 2^320). r may alias
 * a or b. */
void cz__fr_x16_mul(cz__fr_x16 *r, const cz__fr_x16 *a, const cz__fr_x16 *b);

#endif
