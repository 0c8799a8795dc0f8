/*
 * cuzk CUDA backend — Montgomery multiplication over 32-bit words with
 * explicit carry chains (the GPU's native multiplier is 32-bit).
 *
 * The 64-bit-limb CIOS of dev_arith.h costs, per 64x64 product, a 64-bit
 * low product (3 IMADs) and __umul64hi (~4 IMADs plus carry fix-ups), and
 * its carries are recovered with compares. Here the same operands are
 * read as 2n 32-bit words (limb j = words 2j, 2j+1: the layout in memory
 * is unchanged) and the CIOS runs over words with the hardware carry flag:
 * per row, one chain of mad.lo.cc / madc.lo.cc adds the low halves of
 * a_j·b_i at word j, a second chain of mad.hi.cc / madc.hi.cc the high
 * halves at word j + 1, then the same two chains for m·p with
 * m = t_0·(-p^-1 mod 2^32), and a one-word shift. R = 2^(32·2n) = 2^(64n),
 * so the result is the same Montgomery product a·b·R^-1 mod p, fully
 * reduced: bit-identical to cz_d_mont_mul and the CPU's cz_fp_mul /
 * cz_fr_mul (tests/cuda/test_cuda_arith.c checks that on the host, the
 * device check's mul32 stage on the GPU).
 *
 * Written once: the carry-chain steps are macros (CZ32_*), which are one
 * PTX instruction each in the device pass and portable C with an explicit
 * carry variable (cf_) on the host. The PTX path relies on nvcc keeping
 * the condition-code flag between consecutive asm volatile statements
 * (nothing the compiler emits between them writes CC); that is why it is
 * not the default: cz_d_mont_mul uses this code only when CZ_CUDA_MUL32 is
 * defined, which should happen once a device run has shown it is right and
 * faster (cuzk_cuda_check prints both).
 *
 * Instruction estimate per multiplication (N = 2n words, per row: 2N
 * multiply-adds for a·b_i, 1 multiply for m, 2N for m·p, ~5 carry adds):
 * 4N^2 + 6N = 648 for Fp (N = 12), 304 for Fr (N = 8). The 64-bit CIOS:
 * 2n^2 64x64 products at ~7 IMADs plus ~6 compare/add carry steps each,
 * about 1100-1400 for Fp and 450-600 for Fr.
 */
#ifndef CUZK_CUDA_DEV_MUL32_H
#define CUZK_CUDA_DEV_MUL32_H

#include "cuda/dev_intrin.h"

#if defined(__CUDA_ARCH__)
#define CZ32_CARRY_DECL
#define CZ32_MAD_LO_CC(d, a, b, c) asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))
#define CZ32_MADC_LO_CC(d, a, b, c) asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))
#define CZ32_MAD_HI_CC(d, a, b, c) asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))
#define CZ32_MADC_HI_CC(d, a, b, c) asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))
#define CZ32_ADDC_CC(d, a, b) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#define CZ32_ADDC(d, a, b) asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#else
/* cf_: the carry flag, 0 or 1 */
#define CZ32_CARRY_DECL uint32_t cf_ = 0;
#define CZ32_MAD_LO_CC(d, a, b, c)                                                         \
    do {                                                                                   \
        uint64_t s_ = (uint64_t)(uint32_t)((uint64_t)(a) * (b)) + (c);                     \
        (d) = (uint32_t)s_;                                                                \
        cf_ = (uint32_t)(s_ >> 32);                                                        \
    } while (0)
#define CZ32_MADC_LO_CC(d, a, b, c)                                                        \
    do {                                                                                   \
        uint64_t s_ = (uint64_t)(uint32_t)((uint64_t)(a) * (b)) + (c) + cf_;               \
        (d) = (uint32_t)s_;                                                                \
        cf_ = (uint32_t)(s_ >> 32);                                                        \
    } while (0)
#define CZ32_MAD_HI_CC(d, a, b, c)                                                         \
    do {                                                                                   \
        uint64_t s_ = (((uint64_t)(a) * (b)) >> 32) + (c);                                 \
        (d) = (uint32_t)s_;                                                                \
        cf_ = (uint32_t)(s_ >> 32);                                                        \
    } while (0)
#define CZ32_MADC_HI_CC(d, a, b, c)                                                        \
    do {                                                                                   \
        uint64_t s_ = (((uint64_t)(a) * (b)) >> 32) + (c) + cf_;                           \
        (d) = (uint32_t)s_;                                                                \
        cf_ = (uint32_t)(s_ >> 32);                                                        \
    } while (0)
#define CZ32_ADDC_CC(d, a, b)                                                              \
    do {                                                                                   \
        uint64_t s_ = (uint64_t)(a) + (b) + cf_;                                           \
        (d) = (uint32_t)s_;                                                                \
        cf_ = (uint32_t)(s_ >> 32);                                                        \
    } while (0)
#define CZ32_ADDC(d, a, b) ((d) = (uint32_t)((uint64_t)(a) + (b) + cf_))
#endif

/* r = a·b·2^(-64n) mod p (n 64-bit limbs, n <= 6, a, b < p, p < 2^(64n-1));
 * inv = -p^-1 mod 2^64 (only its low word is used). Same contract and
 * results as cz_d_mont_mul. r may alias a or b. */
CZ_HD void cz_d_mont_mul32(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, uint64_t inv,
                           int n)
{
    const int N = 2 * n;
    uint32_t A[12], B[12], P[12], t[14];
    const uint32_t inv32 = (uint32_t)inv;
    CZ_UNROLL
    for (int j = 0; j < 12; j++) {
        if (j < N) {
            A[j] = (uint32_t)(a[j >> 1] >> (32 * (j & 1)));
            B[j] = (uint32_t)(b[j >> 1] >> (32 * (j & 1)));
            P[j] = (uint32_t)(p[j >> 1] >> (32 * (j & 1)));
        }
    }
    CZ_UNROLL
    for (int j = 0; j < 14; j++) t[j] = 0;
    CZ_UNROLL
    for (int i = 0; i < 12; i++) {
        if (i >= N) break;
        CZ32_CARRY_DECL
        const uint32_t bi = B[i];
        /* t += a·b_i: low halves at word j ... */
        CZ32_MAD_LO_CC(t[0], A[0], bi, t[0]);
        CZ_UNROLL
        for (int j = 1; j < 12; j++)
            if (j < N) CZ32_MADC_LO_CC(t[j], A[j], bi, t[j]);
        CZ32_ADDC_CC(t[N], t[N], 0u);
        CZ32_ADDC(t[N + 1], t[N + 1], 0u);
        /* ... high halves at word j + 1 */
        CZ32_MAD_HI_CC(t[1], A[0], bi, t[1]);
        CZ_UNROLL
        for (int j = 1; j < 12; j++)
            if (j < N) CZ32_MADC_HI_CC(t[j + 1], A[j], bi, t[j + 1]);
        CZ32_ADDC(t[N + 1], t[N + 1], 0u);
        /* t += m·p with m making word 0 vanish, then t >>= 32 */
        const uint32_t m = t[0] * inv32;
        CZ32_MAD_LO_CC(t[0], m, P[0], t[0]);
        CZ_UNROLL
        for (int j = 1; j < 12; j++)
            if (j < N) CZ32_MADC_LO_CC(t[j], m, P[j], t[j]);
        CZ32_ADDC_CC(t[N], t[N], 0u);
        CZ32_ADDC(t[N + 1], t[N + 1], 0u);
        CZ32_MAD_HI_CC(t[1], m, P[0], t[1]);
        CZ_UNROLL
        for (int j = 1; j < 12; j++)
            if (j < N) CZ32_MADC_HI_CC(t[j + 1], m, P[j], t[j + 1]);
        CZ32_ADDC(t[N + 1], t[N + 1], 0u);
        CZ_UNROLL
        for (int j = 0; j < 13; j++)
            if (j <= N) t[j] = t[j + 1];
        t[N + 1] = 0;
    }
    /* t < 2p: subtract p when t >= p or a word above N - 1 is set */
    uint64_t tt[6], d[6], br = 0;
    CZ_UNROLL
    for (int j = 0; j < 6; j++)
        if (j < n) tt[j] = (uint64_t)t[2 * j] | ((uint64_t)t[2 * j + 1] << 32);
    CZ_UNROLL
    for (int j = 0; j < 6; j++) {
        if (j < n) {
            uint64_t x = tt[j] - p[j] - br;
            br = (tt[j] < p[j]) | ((tt[j] == p[j]) & br);
            d[j] = x;
        }
    }
    uint64_t mask = (uint64_t)0 - (uint64_t)((t[N] != 0) | (br == 0));
    CZ_UNROLL
    for (int j = 0; j < 6; j++)
        if (j < n) r[j] = (d[j] & mask) | (tt[j] & ~mask);
}

#endif /* CUZK_CUDA_DEV_MUL32_H */
