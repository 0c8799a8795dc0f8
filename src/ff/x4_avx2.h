/*
 * Internal to src/ff: what the Fp and Fr lane kernels (fp_x4_avx2.c,
 * fr_x4_avx2.c) share: the constant block their asm blocks read (laid out
 * by gen_fp_x4_avx2.py, the same for both fields but for the limb count)
 * and the conversion of limbs to doubles.
 */
#ifndef CZ_FF_X4_AVX2_H
#define CZ_FF_X4_AVX2_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#define CZ_X4_TGT __attribute__((target("avx2,fma")))

/* The constant block's fixed entries (bytes; each entry is four equal
 * 64-bit lanes), then nl entries each of the modulus's limbs as doubles,
 * the biases before each m_c (c < nl) and the columns' biases (c >= nl). */
enum {
    CZ_X4_K_C1 = 0, CZ_X4_K_CC = 32, CZ_X4_K_PINV_LO = 64, CZ_X4_K_PINV_HI = 96, CZ_X4_K_M48 = 128,
    CZ_X4_K_E52 = 160, CZ_X4_K_TWO52 = 192, CZ_X4_K_BITS_C2 = 224, CZ_X4_K_OFF62 = 256, CZ_X4_K_P = 288
};
#define CZ_X4_K_BIAS_PRE(nl) (CZ_X4_K_P + 32 * (nl))
#define CZ_X4_K_BIAS_COL(nl) (CZ_X4_K_P + 64 * (nl))

static inline uint64_t cz__x4_dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* Fills the lane part of the constant block K (up to CZ_X4_K_BIAS_COL(nl)
 * + 32·nl bytes) for a modulus of nl 48-bit limbs m48 with −1/m mod 2^48
 * = minv48: the split constants, the modulus as doubles, and the column
 * biases, found by replaying the block's additions on the bias constants
 * alone (the generator's loop bounds). sqr: for the squaring block
 * (gen_fp_x4_avx2.py fp-sqr), whose columns add fewer limb products. nh,
 * ne (>= 1): the block's hi chains and lo sums a column (its _CHAINS and
 * _LO_SUMS defines). */
void cz__x4_fill_consts(uint64_t *K, unsigned nl, const uint64_t *m48, uint64_t minv48, bool sqr, unsigned nh, unsigned ne);

/* Exact double of each lane of v (< 2^52): v's bits under 2^52's exponent
 * are 2^52 + v. */
CZ_X4_TGT static inline __m256d cz__x4_todbl(__m256i v)
{
    const __m256i e = _mm256_set1_epi64x((long long)cz__x4_dbits(0x1p52));
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(v, e)), _mm256_set1_pd(0x1p52));
}

#endif
#endif
