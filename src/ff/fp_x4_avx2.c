/*
 * Four Fp Montgomery products on AVX2 + FMA lanes (contract: fp_x4.h).
 *
 * The limb product. For integers a, b < 2^48 held exactly as doubles,
 *   t  = fl(a·b + C1),     C1 = 1.5·2^100
 *   lo = fl(a·b + (CC − t)),  CC = C1 + C2, C2 = 1.5·2^52
 * a·b + C1 lies in [2^100, 2^101), where doubles are spaced 2^48, so
 * t = C1 + k·2^48 with k = a·b/2^48 rounded to nearest; CC − t =
 * C2 − k·2^48 is a multiple of 2^48 below 2^97, hence exact, and
 * a·b − k·2^48 is in [−2^47, 2^47], so a·b + (CC − t) lies in [2^52,
 * 2^53), where doubles are spaced 1: exact. Within one binade a double's
 * bit pattern is an integer plus its value, so bits(t) = bits(C1) + k and
 * bits(lo) = bits(C2) + (a·b − k·2^48): the two halves of the product
 * are added into 64-bit integer column sums as raw bit patterns, and the
 * known sum of the biases is taken off once per column (BIAS_ROUND,
 * BIAS_FOLD). Three FP operations and two integer additions per limb
 * product, against IFMA's two.
 *
 * The Montgomery product is operand scanning as x8_mul of the MSM's IFMA
 * flush: round i adds a_i·b into the columns, then m·p with m = column 0
 * · (−1/p) mod 2^48 (three 32×32 VPMULUDQ: the low 48 bits need no
 * doubles), carries column 0 (now ≡ 0 mod 2^48) into column 1 and shifts.
 * Column sums are signed (the low halves are); AVX2 has no 64-bit
 * arithmetic shift, so column 0 is offset by 2^62 before its logical
 * shift and the 2^14 this adds to the carry is part of the next column's
 * bias. R = 2^384 > 8p gives r < 2p for a, b < 2p with no subtraction,
 * as in the IFMA kernel.
 */
#include "fp_x4.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#define TGT __attribute__((target("avx2,fma")))
#define M48 ((UINT64_C(1) << 48) - 1)
#define OFF62 (UINT64_C(1) << 62)

static const double C1 = 0x1.8p100, C2 = 0x1.8p52, CC = 0x1.8p100 + 0x1.8p52, TWO52 = 0x1p52;

static uint64_t P48[8], PINV48;
static double PD[8];
static uint64_t BIAS_ROUND[8]; /* taken off column 0 before round i's m (incl. −2^62) */
static uint64_t BIAS_FOLD[8];  /* taken off the eight columns left at the end */
static bool x4_ok;

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void to48(uint64_t o[8], const uint64_t q[6])
{
    o[0] = q[0] & M48;
    o[1] = ((q[0] >> 48) | (q[1] << 16)) & M48;
    o[2] = ((q[1] >> 32) | (q[2] << 32)) & M48;
    o[3] = q[2] >> 16;
    o[4] = q[3] & M48;
    o[5] = ((q[3] >> 48) | (q[4] << 16)) & M48;
    o[6] = ((q[4] >> 32) | (q[5] << 32)) & M48;
    o[7] = q[5] >> 16;
}

static void from48(uint64_t q[6], const uint64_t o[8])
{
    q[0] = o[0] | (o[1] << 48);
    q[1] = (o[1] >> 16) | (o[2] << 32);
    q[2] = (o[2] >> 32) | (o[3] << 16);
    q[3] = o[4] | (o[5] << 48);
    q[4] = (o[5] >> 16) | (o[6] << 32);
    q[5] = (o[6] >> 32) | (o[7] << 16);
}

__attribute__((constructor)) static void x4_init(void)
{
    __builtin_cpu_init();
    x4_ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    to48(P48, CZ_FP_MODULUS);
    for (int j = 0; j < 8; j++) PD[j] = (double)P48[j];
    uint64_t inv = 1; /* p^-1 mod 2^64 by Newton iteration */
    for (int i = 0; i < 7; i++) inv *= 2 - CZ_FP_MODULUS[0] * inv;
    PINV48 = (0 - inv) & M48;
    /* The biases: replay x4_mul's additions on the bias constants alone. */
    const uint64_t bl = dbits(C2), bh = dbits(C1);
    uint64_t col[9] = {0};
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
            col[j] += bl;
            col[j + 1] += bh;
        }
        BIAS_ROUND[i] = col[0] - OFF62; /* everything but lo(m·p_0) */
        for (int j = 1; j < 8; j++) col[j] += bl;
        for (int j = 0; j < 8; j++) col[j + 1] += bh;
        col[1] += UINT64_C(1) << 14; /* the offset carried out of column 0 */
        for (int k = 0; k < 8; k++) col[k] = col[k + 1];
        col[8] = 0;
    }
    for (int k = 0; k < 8; k++) BIAS_FOLD[k] = col[k] - OFF62;
}

bool cz__fp_x4_supported(void) { return x4_ok; }

void cz__fp_x4_pack(cz__fp_x4 *r, const cz_fp a[4])
{
    for (int j = 0; j < 4; j++) {
        uint64_t o[8];
        to48(o, a[j].l);
        for (int k = 0; k < 8; k++) r->l[k][j] = o[k];
    }
}

void cz__fp_x4_unpack(cz_fp r[4], const cz__fp_x4 *a)
{
    for (int j = 0; j < 4; j++) {
        uint64_t o[8], q[6], s[6], bw = 0;
        for (int k = 0; k < 8; k++) o[k] = a->l[k][j];
        from48(q, o);
        for (int i = 0; i < 6; i++) { /* s = q − p; keep q when it borrows */
            unsigned __int128 d = (unsigned __int128)q[i] - CZ_FP_MODULUS[i] - bw;
            s[i] = (uint64_t)d;
            bw = (uint64_t)(d >> 64) & 1;
        }
        memcpy(r[j].l, bw ? q : s, sizeof q);
    }
}

/* Exact double of each lane of v (< 2^52): v's bits under 2^52's exponent
 * are 2^52 + v. */
TGT static inline __m256d todbl(__m256i v)
{
    const __m256i e = _mm256_set1_epi64x((long long)dbits(TWO52));
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(v, e)), _mm256_set1_pd(TWO52));
}

/* The two halves of a·b, as biased bit patterns (see the top). */
#define SPLIT(a, b, hi, lo)                                                                        \
    do {                                                                                           \
        __m256d t_ = _mm256_fmadd_pd(a, b, vC1);                                                   \
        __m256d l_ = _mm256_fmadd_pd(a, b, _mm256_sub_pd(vCC, t_));                                \
        hi = _mm256_castpd_si256(t_);                                                              \
        lo = _mm256_castpd_si256(l_);                                                              \
    } while (0)

TGT void cz__fp_x4_mul(cz__fp_x4 *r, const cz__fp_x4 *a, const cz__fp_x4 *b)
{
    const __m256d vC1 = _mm256_set1_pd(C1), vCC = _mm256_set1_pd(CC);
    const __m256i M = _mm256_set1_epi64x((long long)M48);
    const __m256i PL = _mm256_set1_epi64x((long long)(PINV48 & 0xffffffffu));
    const __m256i PH = _mm256_set1_epi64x((long long)(PINV48 >> 32));
    __m256d db[8];
    __m256i t[9];
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) db[k] = todbl(_mm256_load_si256((const __m256i *)b->l[k]));
#pragma GCC unroll 9
    for (int k = 0; k < 9; k++) t[k] = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        __m256d ai = todbl(_mm256_load_si256((const __m256i *)a->l[i]));
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) {
            __m256i hi, lo;
            SPLIT(ai, db[j], hi, lo);
            t[j] = _mm256_add_epi64(t[j], lo);
            t[j + 1] = _mm256_add_epi64(t[j + 1], hi);
        }
        /* x = column 0 + 2^62; m = x·(−1/p) mod 2^48 from 32-bit halves */
        __m256i x = _mm256_sub_epi64(t[0], _mm256_set1_epi64x((long long)BIAS_ROUND[i]));
        __m256i m = _mm256_add_epi64(_mm256_mul_epu32(x, PH), _mm256_mul_epu32(_mm256_srli_epi64(x, 32), PL));
        m = _mm256_and_si256(_mm256_add_epi64(_mm256_mul_epu32(x, PL), _mm256_slli_epi64(m, 32)), M);
        __m256d md = todbl(m);
        {
            __m256i hi, lo;
            SPLIT(md, _mm256_set1_pd(PD[0]), hi, lo);
            /* column 0 + lo(m·p_0) ≡ 0 mod 2^48: carry it (2^14 of offset) */
            __m256i c0 = _mm256_add_epi64(_mm256_sub_epi64(x, _mm256_set1_epi64x((long long)dbits(C2))), lo);
            t[1] = _mm256_add_epi64(_mm256_add_epi64(t[1], hi), _mm256_srli_epi64(c0, 48));
        }
#pragma GCC unroll 7
        for (int j = 1; j < 8; j++) {
            __m256i hi, lo;
            SPLIT(md, _mm256_set1_pd(PD[j]), hi, lo);
            t[j] = _mm256_add_epi64(t[j], lo);
            t[j + 1] = _mm256_add_epi64(t[j + 1], hi);
        }
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++) t[k] = t[k + 1];
        t[8] = _mm256_setzero_si256();
    }
    /* the eight columns left, normalised into 48-bit limbs (the top one
     * keeps the rest); each column + 2^62 is non-negative */
    __m256i c = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        __m256i v = _mm256_add_epi64(_mm256_sub_epi64(t[k], _mm256_set1_epi64x((long long)BIAS_FOLD[k])), c);
        c = _mm256_sub_epi64(_mm256_srli_epi64(v, 48), _mm256_set1_epi64x(1 << 14));
        v = k < 7 ? _mm256_and_si256(v, M) : _mm256_sub_epi64(v, _mm256_set1_epi64x((long long)OFF62));
        _mm256_store_si256((__m256i *)r->l[k], v);
    }
}

#else /* not x86-64 with GCC or Clang */

bool cz__fp_x4_supported(void) { return false; }
void cz__fp_x4_pack(cz__fp_x4 *r, const cz_fp a[4]) { (void)r, (void)a; }
void cz__fp_x4_unpack(cz_fp r[4], const cz__fp_x4 *a) { (void)r, (void)a; }
void cz__fp_x4_mul(cz__fp_x4 *r, const cz__fp_x4 *a, const cz__fp_x4 *b) { (void)r, (void)a, (void)b; }

#endif
