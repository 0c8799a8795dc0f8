/*
 * G1 batch-affine additions on eight lanes with AVX-512 IFMA.
 *
 * Why: in a G1 MSM nearly all the time is the batch-affine bucket addition
 * (six Fp multiplications per point). The scalar MULX/ADX Montgomery
 * multiplication costs ~33 ns on the development machine (AMD EPYC, Zen 4);
 * eight of them side by side with VPMADD52{L,H}UQ cost ~10 ns each, so the
 * batch is computed eight additions at a time: lane l of group g holds
 * entry 8g + l, the prefix products of the batched inversion run as eight
 * interleaved chains, one scalar inversion serves all eight, and every
 * λ, x3, y3 is computed in the lanes.
 *
 * Representation ("x8"): eight Fp elements as eight 48-bit limbs each,
 * limb k of all lanes in one 512-bit register. 8 × 48 = 384 bits, so the
 * Montgomery radix stays R = 2^384 and the limbs are exactly the bits of
 * the cz_fp limbs (no conversion multiply, only a repacking). IFMA
 * multiplies 52-bit operands: products of 48-bit limbs split at bit 52,
 * so the high halves are kept in their own accumulators (u) and folded in
 * shifted left by 4 (52 - 48) when their column is reduced.
 * Values are kept lazily in [0, 2p): R > 4p (p < 2^381), so a Montgomery
 * product of a < 4p and b < 2p is < 2p without a final subtraction.
 * Stored results are made canonical (< p) before they go back to the
 * buckets, which the scalar code compares with cz_fp_eq.
 */
#include "msm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if CZ_MSM_HAVE_X8

#include <immintrin.h>

#define TGT __attribute__((target("avx512f,avx512ifma")))
#define M48 ((UINT64_C(1) << 48) - 1)

typedef union {
    __m512i v[8];        /* v[k]: limb k of the eight lanes */
    uint64_t u[8][8];    /* u[k][lane] */
} fx8;

/* Radix-2^48 constants, filled once by x8_init (from CZ_FP_MODULUS). */
static uint64_t P48[8], P2_48[8], ONE48[8], PINV48;
static bool x8_ok;

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

__attribute__((constructor)) static void x8_init(void)
{
    __builtin_cpu_init();
    x8_ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
    uint64_t p2[6], c = 0;
    for (int i = 0; i < 6; i++) {
        uint64_t v = CZ_FP_MODULUS[i];
        p2[i] = (v << 1) | c;
        c = v >> 63;
    }
    to48(P48, CZ_FP_MODULUS);
    to48(P2_48, p2);
    to48(ONE48, CZ_FP_ONE.l);
    /* -p^-1 mod 2^48 by Newton iteration on p mod 2^64 */
    uint64_t inv = 1;
    for (int i = 0; i < 7; i++) inv *= 2 - CZ_FP_MODULUS[0] * inv;
    PINV48 = (0 - inv) & M48;
}

bool cz__msm_x8_supported(void) { return x8_ok; }

/* r = a·b·2^-384 mod p, lazily reduced: a < 4p, b < 2p give r < 2p.
 * Operand scanning with the reduction of column i folded into round i. */
TGT static inline void x8_mul(fx8 *r, const fx8 *a, const fx8 *b)
{
    const __m512i M = _mm512_set1_epi64((long long)M48);
    const __m512i PI = _mm512_set1_epi64((long long)PINV48);
    const __m512i z = _mm512_setzero_si512();
    __m512i t[9], u[9];
#pragma GCC unroll 9
    for (int k = 0; k < 9; k++) t[k] = u[k] = z;
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        __m512i ai = a->v[i];
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], ai, b->v[j]);
            u[j + 1] = _mm512_madd52hi_epu64(u[j + 1], ai, b->v[j]);
        }
        /* column i complete: fold its high halves, m = t0·(-1/p) mod 2^48 */
        __m512i t0 = _mm512_add_epi64(t[0], _mm512_slli_epi64(u[0], 4));
        __m512i m = _mm512_and_si512(_mm512_madd52lo_epu64(z, t0, PI), M);
        t0 = _mm512_madd52lo_epu64(t0, m, _mm512_set1_epi64((long long)P48[0]));
        u[1] = _mm512_madd52hi_epu64(u[1], m, _mm512_set1_epi64((long long)P48[0]));
#pragma GCC unroll 7
        for (int j = 1; j < 8; j++) {
            __m512i pj = _mm512_set1_epi64((long long)P48[j]);
            t[j] = _mm512_madd52lo_epu64(t[j], m, pj);
            u[j + 1] = _mm512_madd52hi_epu64(u[j + 1], m, pj);
        }
        /* t0 ≡ 0 mod 2^48 now: carry it into the next column, shift down */
        t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t0, 48));
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++) {
            t[k] = t[k + 1];
            u[k] = u[k + 1];
        }
        t[8] = z;
        u[8] = z;
    }
    __m512i c = z;
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        __m512i v = _mm512_add_epi64(_mm512_add_epi64(t[k], _mm512_slli_epi64(u[k], 4)), c);
        c = _mm512_srli_epi64(v, 48);
        r->v[k] = k < 7 ? _mm512_and_si512(v, M) : v;
    }
}

/* Carry propagation of signed limbs (each |limb| < 2^62) into 48-bit limbs;
 * the (non-negative) total ends in the top limb. */
TGT static inline void x8_norm(fx8 *r, __m512i t[8])
{
    const __m512i M = _mm512_set1_epi64((long long)M48);
#pragma GCC unroll 7
    for (int k = 0; k < 7; k++) {
        t[k + 1] = _mm512_add_epi64(t[k + 1], _mm512_srai_epi64(t[k], 48));
        r->v[k] = _mm512_and_si512(t[k], M);
    }
    r->v[7] = t[7];
}

/* r = a - b + K (K: a multiple of p in radix 2^48, large enough that the
 * result is non-negative). */
TGT static inline void x8_sub(fx8 *r, const fx8 *a, const fx8 *b, const uint64_t K[8])
{
    __m512i t[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        t[k] = _mm512_sub_epi64(_mm512_add_epi64(a->v[k], _mm512_set1_epi64((long long)K[k])),
                                b->v[k]);
    x8_norm(r, t);
}

/* r = r - K where r >= K, lane by lane. */
TGT static inline void x8_csub(fx8 *r, const uint64_t K[8])
{
    __m512i t[8];
    fx8 w;
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) t[k] = _mm512_sub_epi64(r->v[k], _mm512_set1_epi64((long long)K[k]));
    x8_norm(&w, t);
    __mmask8 keep = _mm512_cmplt_epi64_mask(w.v[7], _mm512_setzero_si512());
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) r->v[k] = _mm512_mask_mov_epi64(w.v[k], keep, r->v[k]);
}

/* [0, 4p) -> [0, p) */
TGT static inline void x8_canon(fx8 *r)
{
    x8_csub(r, P2_48);
    x8_csub(r, P48);
}

/* Loads the six limbs at base + idx[lane] + off (bytes) of each lane. */
TGT static inline void x8_gather(fx8 *r, __m512i idx, const unsigned char *base)
{
    const __m512i M = _mm512_set1_epi64((long long)M48);
    __m512i q[6];
#pragma GCC unroll 6
    for (int k = 0; k < 6; k++) q[k] = _mm512_i64gather_epi64(idx, (const void *)(base + 8 * k), 1);
    r->v[0] = _mm512_and_si512(q[0], M);
    r->v[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[0], 48), _mm512_slli_epi64(q[1], 16)), M);
    r->v[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[1], 32), _mm512_slli_epi64(q[2], 32)), M);
    r->v[3] = _mm512_srli_epi64(q[2], 16);
    r->v[4] = _mm512_and_si512(q[3], M);
    r->v[5] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[3], 48), _mm512_slli_epi64(q[4], 16)), M);
    r->v[6] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[4], 32), _mm512_slli_epi64(q[5], 32)), M);
    r->v[7] = _mm512_srli_epi64(q[5], 16);
}

/* Stores canonical lanes (limbs < 2^48) as six limbs at base + idx[lane]
 * for the lanes in mask. */
TGT static inline void x8_scatter(const fx8 *a, __m512i idx, unsigned char *base, __mmask8 mask)
{
    const __m512i *l = a->v;
    __m512i q[6];
    q[0] = _mm512_or_si512(l[0], _mm512_slli_epi64(l[1], 48));
    q[1] = _mm512_or_si512(_mm512_srli_epi64(l[1], 16), _mm512_slli_epi64(l[2], 32));
    q[2] = _mm512_or_si512(_mm512_srli_epi64(l[2], 32), _mm512_slli_epi64(l[3], 16));
    q[3] = _mm512_or_si512(l[4], _mm512_slli_epi64(l[5], 48));
    q[4] = _mm512_or_si512(_mm512_srli_epi64(l[5], 16), _mm512_slli_epi64(l[6], 32));
    q[5] = _mm512_or_si512(_mm512_srli_epi64(l[6], 32), _mm512_slli_epi64(l[7], 16));
#pragma GCC unroll 6
    for (int k = 0; k < 6; k++) _mm512_mask_i64scatter_epi64((void *)(base + 8 * k), mask, idx, q[k], 1);
}

static void lane_get(cz_fp *r, const fx8 *a, int lane)
{
    uint64_t o[8];
    for (int k = 0; k < 8; k++) o[k] = a->u[k][lane];
    from48(r->l, o);
}

static void lane_set(fx8 *a, int lane, const cz_fp *x)
{
    uint64_t o[8];
    to48(o, x->l);
    for (int k = 0; k < 8; k++) a->u[k][lane] = o[k];
}

size_t cz__msm_g1_x8_scratch(unsigned cap)
{
    /* per group: prefix product, den, num, x1, y1, x2 */
    return ((size_t)cap + 7) / 8 * 6 * sizeof(fx8) + 64;
}

TGT void cz__msm_g1_flush_x8(cz_g1_affine *bk, const cz_msm_g1_entry *e, unsigned n, void *scratch)
{
    const unsigned G = (n + 7) / 8;
    fx8 *pre = (fx8 *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    fx8 *den = pre + G, *num = den + G, *x1 = num + G, *y1 = x1 + G, *x2 = y1 + G;
    unsigned char *bbase = (unsigned char *)bk;
    const unsigned char *pbase = (const unsigned char *)e[0].p;
    fx8 acc;
    for (int k = 0; k < 8; k++) acc.v[k] = _mm512_set1_epi64((long long)ONE48[k]);

    /* forward: den, num and the prefix products, eight chains */
    for (unsigned g = 0; g < G; g++) {
        long long bi[8], pi[8];
        __mmask8 valid = 0, neg = 0, dbl = 0;
        for (int l = 0; l < 8; l++) {
            unsigned i = 8 * g + (unsigned)l;
            const cz_msm_g1_entry *ei = i < n ? &e[i] : &e[0];
            bi[l] = (long long)((size_t)ei->b * sizeof(cz_g1_affine));
            pi[l] = (long long)((const unsigned char *)ei->p - pbase);
            if (i < n) {
                valid |= (__mmask8)(1u << l);
                if (ei->neg) neg |= (__mmask8)(1u << l);
                if (ei->dbl) dbl |= (__mmask8)(1u << l);
            }
        }
        __m512i ib = _mm512_loadu_si512(bi), ip = _mm512_loadu_si512(pi);
        fx8 y2, t;
        x8_gather(&x1[g], ib, bbase);
        x8_gather(&y1[g], ib, bbase + sizeof(cz_fp));
        x8_gather(&x2[g], ip, pbase);
        x8_gather(&y2, ip, pbase + sizeof(cz_fp));
        if (neg) {
            /* -y2 = p - y2 (in [0, p], lazily fine) */
            fx8 pv;
            for (int k = 0; k < 8; k++) pv.v[k] = _mm512_set1_epi64((long long)P48[k]);
            static const uint64_t Z[8];
            x8_sub(&t, &pv, &y2, Z);
            for (int k = 0; k < 8; k++) y2.v[k] = _mm512_mask_mov_epi64(y2.v[k], neg, t.v[k]);
        }
        x8_sub(&den[g], &x2[g], &x1[g], P48); /* (0, 2p) */
        x8_sub(&num[g], &y2, &y1[g], P48);    /* (0, 2p] */
        if (valid != 0xff) {
            /* padding lanes: den = 1 keeps the chain invertible */
            for (int k = 0; k < 8; k++)
                den[g].v[k] = _mm512_mask_mov_epi64(_mm512_set1_epi64((long long)ONE48[k]), valid,
                                                    den[g].v[k]);
        }
        if (dbl) {
            /* doubling (P = B): den = 2·y1, num = 3·x1^2, done in scalar */
            for (int l = 0; l < 8; l++) {
                if (!(dbl >> l & 1)) continue;
                const cz_g1_affine *b = &bk[e[8 * g + (unsigned)l].b];
                cz_fp d, s, s3;
                cz_fp_dbl(&d, &b->y);
                cz_fp_sqr(&s, &b->x);
                cz_fp_dbl(&s3, &s);
                cz_fp_add(&s3, &s3, &s);
                lane_set(&den[g], l, &d);
                lane_set(&num[g], l, &s3);
            }
        }
        pre[g] = acc;
        x8_mul(&acc, &acc, &den[g]);
    }

    /* one inversion for the eight chains */
    cz_fp a[8], pa[8], inv, ti;
    for (int l = 0; l < 8; l++) {
        fx8 c = acc;
        x8_csub(&c, P48);
        lane_get(&a[l], &c, l);
    }
    pa[0] = a[0];
    for (int l = 1; l < 8; l++) cz_fp_mul(&pa[l], &pa[l - 1], &a[l]);
    cz_fp_inv_var(&inv, &pa[7]);
    fx8 iv;
    for (int l = 7; l > 0; l--) {
        cz_fp_mul(&ti, &inv, &pa[l - 1]);
        cz_fp_mul(&inv, &inv, &a[l]);
        lane_set(&iv, l, &ti);
    }
    lane_set(&iv, 0, &inv);

    /* backward: λ = num/den, x3 = λ^2 - x1 - x2, y3 = λ(x1 - x3) - y1 */
    for (unsigned g = G; g-- > 0;) {
        long long bi[8];
        __mmask8 valid = 0;
        for (int l = 0; l < 8; l++) {
            unsigned i = 8 * g + (unsigned)l;
            bi[l] = (long long)((size_t)(i < n ? e[i].b : e[0].b) * sizeof(cz_g1_affine));
            if (i < n) valid |= (__mmask8)(1u << l);
        }
        fx8 ii, lam, x3, y3, t;
        x8_mul(&ii, &iv, &pre[g]);
        x8_mul(&iv, &iv, &den[g]);
        x8_mul(&lam, &num[g], &ii);
        x8_mul(&x3, &lam, &lam);
        x8_sub(&t, &x3, &x1[g], P48);
        x8_sub(&x3, &t, &x2[g], P48); /* (0, 4p) */
        x8_canon(&x3);
        x8_sub(&t, &x1[g], &x3, P48); /* (0, 2p) */
        x8_mul(&y3, &lam, &t);
        x8_sub(&y3, &y3, &y1[g], P48); /* (0, 3p) */
        x8_canon(&y3);
        __m512i ib = _mm512_loadu_si512(bi);
        x8_scatter(&x3, ib, bbase, valid);
        x8_scatter(&y3, ib, bbase + sizeof(cz_fp), valid);
    }
}

#else /* !CZ_MSM_HAVE_X8 */

bool cz__msm_x8_supported(void) { return false; }
size_t cz__msm_g1_x8_scratch(unsigned cap)
{
    (void)cap;
    return 0;
}

#endif
