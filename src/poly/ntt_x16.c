/*
 * NTT kernels on the AVX2 + MULX block (ff/fr_x4.h), for CPUs without
 * AVX-512 IFMA: the same five operations as ntt_x8.c, sixteen Fr products
 * a call, eight in AVX2 + FMA lanes and eight on MULX in one instruction
 * stream. A four-limb MULX product is bound by its carry-flag
 * instructions, which the cores issue on two ports; the lanes run on the
 * vector pipes beside them (`cuzk bench field`: fr_mul_x16_hybrid 9.0 ns
 * a product against 16.4 ns for four MULX chains on a Zen 4 EPYC).
 *
 * Only the products go through the block: the additions and subtractions
 * stay the scalar ones (ntt_arith.h), and every kernel reads and writes
 * canonical elements, so results are bit-identical to the scalar
 * butterflies'. A twiddle or scale is the product's b operand (set_b:
 * shifted in the lanes), the data its a operand.
 *
 * Measured on the Zen 4 without IFMA (`cuzk bench ntt --log-n 20
 * --threads 1`): forward 204-212 ms against 217-219 ms scalar, inverse
 * 185-198 against 214-218, the two-thread quotient 618-632 against
 * 703-727 ms. The first version converted element by element and went
 * through the C reduction, which GCC vectorised into 128-bit loads of
 * just-stored limbs: both store-forwarding stalls, and no faster than the
 * scalar butterflies. What is left: this file's own code (the scalar
 * additions, the conversions) takes about four fifths of the block's own
 * time (`perf record`: 36 % of a transform against 46 %).
 */
#include "ntt_arith.h"
#include "ntt_x8.h"

#include <stdlib.h>
#include <string.h>

#include "ff/fr_x4.h"

#define NV CZ_FR_X16_N
#define NLANE (4 * CZ_FR_X4_GROUPS) /* the values in lanes: the first eight of a call */

bool cz__ntt_x16_supported(void)
{
    /* CUZK_NO_SIMD: every SIMD path off (cz_ff_ifma_supported reads it too) */
    return !getenv("CUZK_NO_SIMD") && cz__fr_x4_supported();
}

#if CZ_NTT_HAVE_X8

#include <immintrin.h>

#define TGT __attribute__((target("avx2,fma")))
#define M48 CZ_FR_X4_M48

/* Counts are multiples of 8, so every lane group read from a scratch
 * array (d, t below) was written first; GCC cannot see that m >= 8. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

static uint64_t R48[6]; /* r in 48-bit limbs */

__attribute__((constructor)) static void ntt_x16_init(void) { cz__fr_to48(R48, CZ_FR_MODULUS); }

/* Four elements (p[0], p[st], p[2st], p[3st]) into one lane group, limb
 * major, as vectors: a 4×4 transposition of their 64-bit limbs, then the
 * 48-bit limbs cut from them (shifted left 32 bits for a b operand).
 * Element-wise stores into the group would leave the block's 256-bit
 * loads waiting on store forwarding; these are whole-vector stores. */
TGT static inline void ld4(cz__fr_x4 *g, const cz_fr *p, ptrdiff_t st, bool shifted)
{
    const __m256i r0 = _mm256_loadu_si256((const __m256i *)p), r1 = _mm256_loadu_si256((const __m256i *)(p + st)),
                  r2 = _mm256_loadu_si256((const __m256i *)(p + 2 * st)),
                  r3 = _mm256_loadu_si256((const __m256i *)(p + 3 * st));
    const __m256i t0 = _mm256_unpacklo_epi64(r0, r1), t1 = _mm256_unpackhi_epi64(r0, r1),
                  t2 = _mm256_unpacklo_epi64(r2, r3), t3 = _mm256_unpackhi_epi64(r2, r3);
    const __m256i q0 = _mm256_permute2x128_si256(t0, t2, 0x20), q1 = _mm256_permute2x128_si256(t1, t3, 0x20),
                  q2 = _mm256_permute2x128_si256(t0, t2, 0x31), q3 = _mm256_permute2x128_si256(t1, t3, 0x31);
    const __m256i M = _mm256_set1_epi64x((long long)M48);
    __m256i o[6];
    if (!shifted) {
        o[0] = _mm256_and_si256(q0, M);
        o[1] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(q0, 48), _mm256_slli_epi64(q1, 16)), M);
        o[2] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(q1, 32), _mm256_slli_epi64(q2, 32)), M);
        o[3] = _mm256_srli_epi64(q2, 16);
        o[4] = _mm256_and_si256(q3, M);
        o[5] = _mm256_srli_epi64(q3, 48);
    } else { /* the limbs of q·2^32 (cz__fr_to48s) */
        o[0] = _mm256_and_si256(_mm256_slli_epi64(q0, 32), M);
        o[1] = _mm256_srli_epi64(q0, 16);
        o[2] = _mm256_and_si256(q1, M);
        o[3] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(q1, 48), _mm256_slli_epi64(q2, 16)), M);
        o[4] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(q2, 32), _mm256_slli_epi64(q3, 32)), M);
        o[5] = _mm256_srli_epi64(q3, 16);
    }
#pragma GCC unroll 6
    for (int k = 0; k < 6; k++) _mm256_store_si256((__m256i *)g->l[k], o[k]);
}

/* A lane group's four results (< 2r) to p[0..3], canonical: r is taken
 * off where it fits (the 48-bit limbs' signed carries offset by 2^62 for
 * AVX2's logical shift), then back to 64-bit limbs and transposed. */
TGT static inline void st4(cz_fr *p, const cz__fr_x4 *g)
{
    const __m256i M = _mm256_set1_epi64x((long long)M48);
    const __m256i OFF = _mm256_set1_epi64x((long long)(UINT64_C(1) << 62)), C14 = _mm256_set1_epi64x(1 << 14);
    __m256i o[6], t[6], c = _mm256_setzero_si256();
#pragma GCC unroll 6
    for (int k = 0; k < 6; k++) {
        o[k] = _mm256_load_si256((const __m256i *)g->l[k]);
        t[k] = _mm256_add_epi64(_mm256_sub_epi64(o[k], _mm256_set1_epi64x((long long)R48[k])), c);
        if (k < 5) {
            c = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_add_epi64(t[k], OFF), 48), C14);
            t[k] = _mm256_and_si256(t[k], M);
        }
    }
    /* o < r where o − r is negative: keep o */
    const __m256i keep = _mm256_cmpgt_epi64(_mm256_setzero_si256(), t[5]);
#pragma GCC unroll 6
    for (int k = 0; k < 6; k++) o[k] = _mm256_blendv_epi8(t[k], o[k], keep);
    const __m256i q0 = _mm256_or_si256(o[0], _mm256_slli_epi64(o[1], 48)),
                  q1 = _mm256_or_si256(_mm256_srli_epi64(o[1], 16), _mm256_slli_epi64(o[2], 32)),
                  q2 = _mm256_or_si256(_mm256_srli_epi64(o[2], 32), _mm256_slli_epi64(o[3], 16)),
                  q3 = _mm256_or_si256(o[4], _mm256_slli_epi64(o[5], 48));
    const __m256i t0 = _mm256_unpacklo_epi64(q0, q1), t1 = _mm256_unpackhi_epi64(q0, q1),
                  t2 = _mm256_unpacklo_epi64(q2, q3), t3 = _mm256_unpackhi_epi64(q2, q3);
    _mm256_storeu_si256((__m256i *)p, _mm256_permute2x128_si256(t0, t2, 0x20));
    _mm256_storeu_si256((__m256i *)(p + 1), _mm256_permute2x128_si256(t1, t3, 0x20));
    _mm256_storeu_si256((__m256i *)(p + 2), _mm256_permute2x128_si256(t0, t2, 0x31));
    _mm256_storeu_si256((__m256i *)(p + 3), _mm256_permute2x128_si256(t1, t3, 0x31));
}
/* Sixteen values p[i·st] (or eight at the end of a run: m = 8), the
 * first eight into the lanes; unused MULX places get zero. */
TGT static inline void put(cz__fr_x16 *x, const cz_fr *p, ptrdiff_t st, unsigned m, bool shifted)
{
    for (unsigned g = 0; g < CZ_FR_X4_GROUPS && 4 * g < m; g++) ld4(&x->g[g], p + (ptrdiff_t)(4 * g) * st, st, shifted);
    for (unsigned j = 0; j < CZ_FR_X4_SCALARS && NLANE + j < m; j++) x->s[j] = p[(ptrdiff_t)(NLANE + j) * st];
    if (m < NV) memset(x->s, 0, sizeof x->s);
}

/* The m results to p[0..m-1], canonical. */
TGT static inline void take(cz_fr *p, const cz__fr_x16 *x, unsigned m)
{
    for (unsigned g = 0; g < CZ_FR_X4_GROUPS && 4 * g < m; g++) st4(p + 4 * g, &x->g[g]);
    for (unsigned j = 0; j < CZ_FR_X4_SCALARS && NLANE + j < m; j++)
        freduce(&p[NLANE + j], x->s[j].l);
}

#define STEP(c, cnt) ((cnt) - (c) < NV ? (unsigned)((cnt) - (c)) : (unsigned)NV)

TGT void cz__ntt_x16_dif(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw, ptrdiff_t ts, bool inv)
{
    cz__fr_x16 a, b;
    _Alignas(32) cz_fr d[NV];
    for (size_t c = 0; c < cnt; c += NV) {
        const unsigned m = STEP(c, cnt);
        for (unsigned l = 0; l < m; l++) {
            const cz_fr u = p0[c + l], v = p1[c + l];
            fadd(&p0[c + l], &u, &v);
            if (inv) fsub(&d[l], &v, &u);
            else fsub(&d[l], &u, &v);
        }
        put(&a, d, 1, m, false);
        put(&b, tw + (ptrdiff_t)c * ts, ts, m, true);
        cz__fr_x16_mul(&a, &a, &b);
        take(p1 + c, &a, m);
    }
}

TGT void cz__ntt_x16_dit(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw, ptrdiff_t ts, bool inv)
{
    cz__fr_x16 a, b;
    _Alignas(32) cz_fr t[NV];
    for (size_t c = 0; c < cnt; c += NV) {
        const unsigned m = STEP(c, cnt);
        put(&a, p1 + c, 1, m, false);
        put(&b, tw + (ptrdiff_t)c * ts, ts, m, true);
        cz__fr_x16_mul(&a, &a, &b);
        take(t, &a, m);
        for (unsigned l = 0; l < m; l++) {
            const cz_fr u = p0[c + l];
            fadd(inv ? &p1[c + l] : &p0[c + l], &u, &t[l]);
            fsub(inv ? &p0[c + l] : &p1[c + l], &u, &t[l]);
        }
    }
}

TGT void cz__ntt_x16_scale(cz_fr *x, size_t cnt, const cz_fr *f)
{
    cz__fr_x16 a, b;
    put(&b, f, 0, NV, true);
    for (size_t c = 0; c < cnt; c += NV) {
        const unsigned m = STEP(c, cnt);
        put(&a, x + c, 1, m, false);
        cz__fr_x16_mul(&a, &a, &b);
        take(x + c, &a, m);
    }
}

TGT void cz__ntt_x16_scale_tab(cz_fr *const *xs, unsigned nx, size_t off, size_t cnt, const cz_fr *tl,
                               const cz_fr *f)
{
    cz__fr_x16 a, b, fb;
    _Alignas(32) cz_fr t[NV];
    put(&fb, f, 0, NV, true);
    for (size_t c = 0; c < cnt; c += NV) {
        const unsigned m = STEP(c, cnt);
        /* t = tl·f, then every buffer times t */
        put(&a, tl + c, 1, m, false);
        cz__fr_x16_mul(&a, &a, &fb);
        take(t, &a, m);
        put(&b, t, 1, m, true);
        for (unsigned i = 0; i < nx; i++) {
            cz_fr *x = xs[i] + off + c;
            put(&a, x, 1, m, false);
            cz__fr_x16_mul(&a, &a, &b);
            take(x, &a, m);
        }
    }
}

TGT void cz__ntt_x16_mul(cz_fr *a, const cz_fr *b, size_t cnt)
{
    cz__fr_x16 x, y;
    for (size_t c = 0; c < cnt; c += NV) {
        const unsigned m = STEP(c, cnt);
        put(&x, a + c, 1, m, false);
        put(&y, b + c, 1, m, true);
        cz__fr_x16_mul(&x, &x, &y);
        take(a + c, &x, m);
    }
}

#endif
