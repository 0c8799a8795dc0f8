/*
 * Sixteen Fr Montgomery products, eight on AVX2 + FMA lanes (two groups
 * of four) and eight MULX/ADX products, in one asm block (contract:
 * fr_x4.h). The lane arithmetic is fp_x4_avx2.c's with six limbs instead
 * of eight: each column's 48×48-bit limb products summed exactly in an
 * FMA chain and a lo sum, biased bit patterns added as integers, and
 * columns 0..5 finding the Montgomery digits; see that file for the
 * argument. One chain a column suffices here (at most eleven products,
 * all under 2^96: the generator checks). The asm block comes from
 * gen_fp_x4_avx2.py fr.
 */
#include "fr_x4.h"

#include <stddef.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#include "fr_x4_avx2_asm.h"
#include "x4_avx2.h"

#define TGT CZ_X4_TGT
#define NL 6 /* 48-bit limbs of a lane value */

/* The asm block's constants (offsets as in the generator), each 64-bit
 * value in all four lanes; then the MULX products' modulus block (r,
 * -1/r mod 2^64, 0). */
static _Alignas(32) uint64_t K[CZ_FR_X4_ASM_K_BYTES / 8];

_Static_assert(CZ_FR_X4_ASM_K_P == CZ_X4_K_P && CZ_FR_X4_ASM_K_BIAS_PRE == CZ_X4_K_BIAS_PRE(NL) &&
                   CZ_FR_X4_ASM_K_BIAS_COL6 == CZ_X4_K_BIAS_COL(NL) && CZ_FR_X4_ASM_K_OFF62 == CZ_X4_K_OFF62,
               "the generator's constant layout and x4_avx2.h disagree");

__attribute__((constructor)) static void fr_x4_init(void)
{
    uint64_t r48[NL];
    cz__fr_to48(r48, CZ_FR_MODULUS);
    uint64_t inv = 1; /* r^-1 mod 2^64 by Newton iteration */
    for (int i = 0; i < 7; i++) inv *= 2 - CZ_FR_MODULUS[0] * inv;
    cz__x4_fill_consts(K, NL, r48, (0 - inv) & CZ_FR_X4_M48, false, CZ_FR_X4_ASM_CHAINS, CZ_FR_X4_ASM_LO_SUMS);
    memcpy(K + CZ_FR_X4_ASM_K_MOD / 8, CZ_FR_MODULUS, 32);
    K[CZ_FR_X4_ASM_K_MOD / 8 + 4] = 0 - inv;
    K[CZ_FR_X4_ASM_K_MOD / 8 + 5] = 0;
}

/* Asked of the CPU each time, as cz__fp_x4_supported is. */
bool cz__fr_x4_supported(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cz_ff_adx_supported();
}

_Static_assert(CZ_FR_X4_GROUPS == CZ_FR_X4_ASM_GROUPS && CZ_FR_X4_SCALARS == CZ_FR_X4_ASM_SCALARS,
               "regenerate fr_x4_avx2_asm.h");
_Static_assert(offsetof(cz__fr_x16, s) == CZ_FR_X4_ASM_R_SCALAR && sizeof(cz_fr) == 32,
               "cz__fr_x16 must match the asm block's result layout");

TGT void cz__fr_x16_mul(cz__fr_x16 *r, const cz__fr_x16 *a, const cz__fr_x16 *b)
{
    /* the operands (lanes as doubles) are copied, so r may alias a or b;
     * room for each group's m behind them */
    _Alignas(32) double w[CZ_FR_X4_ASM_W_BYTES / 8];
    for (unsigned g = 0; g < CZ_FR_X4_GROUPS; g++)
        for (unsigned k = 0; k < NL; k++) {
            double *wg = w + g * CZ_FR_X4_ASM_W_GROUP / 8;
            _mm256_store_pd(wg + 4 * k, cz__x4_todbl(_mm256_load_si256((const __m256i *)a->g[g].l[k])));
            _mm256_store_pd(wg + 4 * NL + 4 * k, cz__x4_todbl(_mm256_load_si256((const __m256i *)b->g[g].l[k])));
        }
    char *ws = (char *)w + CZ_FR_X4_ASM_W_SCALAR;
    for (unsigned j = 0; j < CZ_FR_X4_SCALARS; j++) {
        memcpy(ws + 64 * j, a->s[j].l, 32);
        memcpy(ws + 64 * j + 32, b->s[j].l, 32);
    }
    uint64_t t0, t1, t2, t3, t4, lo, hi;
    /* aligned to a 64-byte line, as fp_x4_avx2.c's block is, so that
     * unrelated changes do not move it */
    __asm__ volatile(".p2align 6\n\t" CZ_FR_X4_ASM_BODY
                     : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
                       [lo] "=&r"(lo), [hi] "=&r"(hi)
                     : [w] "r"(w), [k] "r"(K), [r] "r"(r)
                     : "rdx", "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
                       "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

#else /* not x86-64 with GCC or Clang */

bool cz__fr_x4_supported(void) { return false; }
void cz__fr_x16_mul(cz__fr_x16 *r, const cz__fr_x16 *a, const cz__fr_x16 *b) { (void)r, (void)a, (void)b; }

#endif
