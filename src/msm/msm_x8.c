/*
 * Batch-affine bucket additions on eight lanes with AVX-512 IFMA, for G1
 * (Fp) and G2 (Fp2); the flush itself is msm_x8_flush.h, included twice.
 *
 * Why: in an MSM nearly all the time is the batch-affine bucket addition
 * (six field multiplications per point). The scalar MULX/ADX Montgomery
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
 * buckets, whose x the scalar code compares limb by limb.
 * G1 keeps den, num and the chain products lazy (< 2p, "mul-ready");
 * so does G2, whose Karatsuba products (sums < 4p on both sides) get one
 * or two conditional subtractions back under 2p (bounds at f2x8).
 */
#include "msm_internal.h"

#include <string.h>

#include "ff/fp_x4.h"

#if CZ_MSM_HAVE_X8

#include <immintrin.h>

#define TGT __attribute__((target("avx512f,avx512ifma")))
#define M48 ((UINT64_C(1) << 48) - 1)

typedef union {
    __m512i v[8];        /* v[k]: limb k of the eight lanes */
    uint64_t u[8][8];    /* u[k][lane] */
} fx8;

/* Radix-2^48 constants, filled once by x8_init (from CZ_FP_MODULUS). */
static uint64_t P48[8], P2_48[8], P4_48[8], ONE48[8], PINV48;
static bool x8_ok;

__attribute__((constructor)) static void x8_init(void)
{
    x8_ok = cz_ff_ifma_supported();
    uint64_t p2[6], c = 0;
    for (int i = 0; i < 6; i++) {
        uint64_t v = CZ_FP_MODULUS[i];
        p2[i] = (v << 1) | c;
        c = v >> 63;
    }
    cz__fp_to48(P48, CZ_FP_MODULUS);
    cz__fp_to48(P2_48, p2);
    uint64_t p4[6];
    c = 0;
    for (int i = 0; i < 6; i++) {
        p4[i] = (p2[i] << 1) | c;
        c = p2[i] >> 63;
    }
    cz__fp_to48(P4_48, p4);
    cz__fp_to48(ONE48, CZ_FP_ONE.l);
    /* -p^-1 mod 2^48 by Newton iteration on p mod 2^64 */
    uint64_t inv = 1;
    for (int i = 0; i < 7; i++) inv *= 2 - CZ_FP_MODULUS[0] * inv;
    PINV48 = (0 - inv) & M48;
}

bool cz__msm_x8_supported(void) { return x8_ok; }

/* One Montgomery round of x8_mul / x8_sqr: column 0 of (t, u) is complete
 * (t[k] + 2^4·u[k] is absolute column i + k); add m·p with
 * m = column 0 · (-1/p) mod 2^48, carry column 0 (now ≡ 0 mod 2^48) into
 * column 1 and shift the columns down by one. */
TGT static inline void x8_redc_round(__m512i t[9], __m512i u[9])
{
    const __m512i M = _mm512_set1_epi64((long long)M48);
    const __m512i PI = _mm512_set1_epi64((long long)PINV48);
    const __m512i z = _mm512_setzero_si512();
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
    t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t0, 48));
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        t[k] = t[k + 1];
        u[k] = u[k + 1];
    }
    t[8] = z;
    u[8] = z;
}

/* r = the eight columns left after the rounds, folded and normalised. */
TGT static inline void x8_fold(fx8 *r, const __m512i t[9], const __m512i u[9])
{
    const __m512i M = _mm512_set1_epi64((long long)M48);
    __m512i c = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        __m512i v = _mm512_add_epi64(_mm512_add_epi64(t[k], _mm512_slli_epi64(u[k], 4)), c);
        c = _mm512_srli_epi64(v, 48);
        r->v[k] = k < 7 ? _mm512_and_si512(v, M) : v;
    }
}

/* r = a·b·2^-384 mod p, lazily reduced: a < 4p, b < 2p give r < 2p.
 * Operand scanning with the reduction of column i folded into round i. */
TGT static inline void x8_mul(fx8 *r, const fx8 *a, const fx8 *b)
{
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
        x8_redc_round(t, u);
    }
    x8_fold(r, t, u);
}

/* r = a^2·2^-384 mod p, a < 2p gives r < 2p: the 28 cross products are
 * taken once against 2·a_j (72 IFMA products instead of 128), column i
 * still complete by round i (its terms come from rows <= i/2). */
TGT static inline void x8_sqr(fx8 *r, const fx8 *a)
{
    const __m512i z = _mm512_setzero_si512();
    __m512i t[9], u[9], a2[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) a2[k] = _mm512_add_epi64(a->v[k], a->v[k]);
#pragma GCC unroll 9
    for (int k = 0; k < 9; k++) t[k] = u[k] = z;
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        /* round i: t[k], u[k] hold absolute column i + k */
        __m512i ai = a->v[i];
        t[i] = _mm512_madd52lo_epu64(t[i], ai, ai);
        u[i + 1] = _mm512_madd52hi_epu64(u[i + 1], ai, ai);
#pragma GCC unroll 8
        for (int j = i + 1; j < 8; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], ai, a2[j]);
            u[j + 1] = _mm512_madd52hi_epu64(u[j + 1], ai, a2[j]);
        }
        x8_redc_round(t, u);
    }
    x8_fold(r, t, u);
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

/* r = a + b, not reduced */
TGT static inline void x8_add(fx8 *r, const fx8 *a, const fx8 *b)
{
    __m512i t[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) t[k] = _mm512_add_epi64(a->v[k], b->v[k]);
    x8_norm(r, t);
}

TGT static inline void x8_set(fx8 *r, const uint64_t K[8])
{
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) r->v[k] = _mm512_set1_epi64((long long)K[k]);
}

/* lanes in mask: p - a */
TGT static inline void x8_neg_mask(fx8 *a, __mmask8 mask)
{
    static const uint64_t Z[8];
    fx8 pv, t;
    x8_set(&pv, P48);
    x8_sub(&t, &pv, a, Z);
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) a->v[k] = _mm512_mask_mov_epi64(a->v[k], mask, t.v[k]);
}

/* lanes in mask: dst = src */
TGT static inline void x8_blend(fx8 *dst, const fx8 *src, __mmask8 mask)
{
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) dst->v[k] = _mm512_mask_mov_epi64(dst->v[k], mask, src->v[k]);
}

/* 8×8 transpose of 64-bit words: out[k][l] = in[l][k] (its own inverse).
 * Three rounds of two-source permutes; the loads and stores of the lanes
 * go through it instead of VPGATHERQQ / VPSCATTERQQ, which cost more than
 * the rest of the addition's data movement together on Zen 4. */
TGT static inline void x8_transpose(__m512i out[8], const __m512i in[8])
{
    __m512i t[8], u[8];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_epi64(in[2 * i], in[2 * i + 1]);     /* cols 0,2,4,6 */
        t[2 * i + 1] = _mm512_unpackhi_epi64(in[2 * i], in[2 * i + 1]); /* cols 1,3,5,7 */
    }
    const __m512i A = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), B = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    u[0] = _mm512_permutex2var_epi64(t[0], A, t[2]); /* rows 0-3: cols 0 | 4 */
    u[1] = _mm512_permutex2var_epi64(t[0], B, t[2]); /* cols 2 | 6 */
    u[2] = _mm512_permutex2var_epi64(t[1], A, t[3]); /* cols 1 | 5 */
    u[3] = _mm512_permutex2var_epi64(t[1], B, t[3]); /* cols 3 | 7 */
    u[4] = _mm512_permutex2var_epi64(t[4], A, t[6]); /* rows 4-7 */
    u[5] = _mm512_permutex2var_epi64(t[4], B, t[6]);
    u[6] = _mm512_permutex2var_epi64(t[5], A, t[7]);
    u[7] = _mm512_permutex2var_epi64(t[5], B, t[7]);
    const __m512i LO = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11), HI = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
    out[0] = _mm512_permutex2var_epi64(u[0], LO, u[4]);
    out[4] = _mm512_permutex2var_epi64(u[0], HI, u[4]);
    out[2] = _mm512_permutex2var_epi64(u[1], LO, u[5]);
    out[6] = _mm512_permutex2var_epi64(u[1], HI, u[5]);
    out[1] = _mm512_permutex2var_epi64(u[2], LO, u[6]);
    out[5] = _mm512_permutex2var_epi64(u[2], HI, u[6]);
    out[3] = _mm512_permutex2var_epi64(u[3], LO, u[7]);
    out[7] = _mm512_permutex2var_epi64(u[3], HI, u[7]);
}

/* Loads the six limbs at base + idx[lane] (bytes) of each lane. */
TGT static inline void x8_gather(fx8 *r, __m512i idx, const unsigned char *base)
{
    const __m512i M = _mm512_set1_epi64((long long)M48);
    long long ix[8];
    __m512i rows[8], q[8];
    _mm512_storeu_si512(ix, idx);
#pragma GCC unroll 8
    for (int l = 0; l < 8; l++) rows[l] = _mm512_maskz_loadu_epi64(0x3F, base + ix[l]);
    x8_transpose(q, rows);
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
 * for the lanes in mask (masked stores: the 16 bytes after each element
 * are not touched). */
TGT static inline void x8_scatter(const fx8 *a, __m512i idx, unsigned char *base, __mmask8 mask)
{
    const __m512i *l = a->v;
    __m512i q[8];
    q[0] = _mm512_or_si512(l[0], _mm512_slli_epi64(l[1], 48));
    q[1] = _mm512_or_si512(_mm512_srli_epi64(l[1], 16), _mm512_slli_epi64(l[2], 32));
    q[2] = _mm512_or_si512(_mm512_srli_epi64(l[2], 32), _mm512_slli_epi64(l[3], 16));
    q[3] = _mm512_or_si512(l[4], _mm512_slli_epi64(l[5], 48));
    q[4] = _mm512_or_si512(_mm512_srli_epi64(l[5], 16), _mm512_slli_epi64(l[6], 32));
    q[5] = _mm512_or_si512(_mm512_srli_epi64(l[6], 32), _mm512_slli_epi64(l[7], 16));
    q[6] = q[7] = _mm512_setzero_si512();
    long long ix[8];
    __m512i rows[8];
    _mm512_storeu_si512(ix, idx);
    x8_transpose(rows, q);
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++)
        if (mask >> j & 1) _mm512_mask_storeu_epi64(base + ix[j], 0x3F, rows[j]);
}

static void lane_get(cz_fp *r, const fx8 *a, int lane)
{
    uint64_t o[8];
    for (int k = 0; k < 8; k++) o[k] = a->u[k][lane];
    cz__fp_from48(r->l, o);
}

static void lane_set(fx8 *a, int lane, const cz_fp *x)
{
    uint64_t o[8];
    cz__fp_to48(o, x->l);
    for (int k = 0; k < 8; k++) a->u[k][lane] = o[k];
}


/* ---- G1: Fp lanes ------------------------------------------------------------
 * den = x2 - x1 + p and num = y2 - y1 + p are mul-ready (< 2p, < 3p as the
 * first factor); products stay < 2p; x3, y3 are made canonical. */
typedef fx8 f1x8;

TGT static inline void f1_gather(fx8 *r, __m512i idx, const unsigned char *base) { x8_gather(r, idx, base); }
TGT static inline void f1_scatter(const fx8 *a, __m512i idx, unsigned char *base, __mmask8 m)
{
    x8_scatter(a, idx, base, m);
}
TGT static inline void f1_neg_mask(fx8 *a, __mmask8 m) { x8_neg_mask(a, m); }
TGT static inline void f1_den(fx8 *d, const fx8 *x2, const fx8 *x1) { x8_sub(d, x2, x1, P48); }
TGT static inline void f1_num(fx8 *r, const fx8 *y2, const fx8 *y1) { x8_sub(r, y2, y1, P48); }
TGT static inline void f1_mul(fx8 *r, const fx8 *a, const fx8 *b) { x8_mul(r, a, b); }
TGT static inline void f1_one(fx8 *r) { x8_set(r, ONE48); }
TGT static inline void f1_blend(fx8 *d, const fx8 *s, __mmask8 m) { x8_blend(d, s, m); }
TGT static inline void f1_x3(fx8 *x3, const fx8 *lam, const fx8 *x1, const fx8 *x2)
{
    fx8 t;
    x8_sqr(x3, lam);
    x8_sub(&t, x3, x1, P48);
    x8_sub(x3, &t, x2, P48); /* (0, 4p) */
    x8_canon(x3);
}
TGT static inline void f1_y3(fx8 *y3, const fx8 *lam, const fx8 *x1, const fx8 *x3, const fx8 *y1)
{
    fx8 t;
    x8_sub(&t, x1, x3, P48); /* (0, 2p) */
    x8_mul(y3, lam, &t);
    x8_sub(y3, y3, y1, P48); /* (0, 3p) */
    x8_canon(y3);
}
static void f1_set(fx8 *a, int lane, const cz_fp *x) { lane_set(a, lane, x); }
/* batch inversion over the denominators themselves: pre = the chain so far */
TGT static inline void f1_bi_push(fx8 *pre, const fx8 *den, fx8 *acc)
{
    *pre = *acc;
    x8_mul(acc, acc, den);
}
TGT static inline void f1_bi_pop(const fx8 *pre, const fx8 *den, fx8 *iv, fx8 *ii)
{
    x8_mul(ii, iv, pre);
    x8_mul(iv, iv, den);
}

#define AFF cz_g1_affine
#define FE cz_fp
#define F(name) cz_fp_##name
#define ENTRY cz_msm_g1_entry
#define LX f1x8
#define L(name) f1_##name
#define FLUSH_NAME cz__msm_g1_flush_x8
#include "msm_x8_flush.h"
#undef AFF
#undef FE
#undef F
#undef ENTRY
#undef LX
#undef L
#undef FLUSH_NAME

/* ---- G2: Fp2 lanes -----------------------------------------------------------
 * Lane values are lazy, in [0, 2p); x3 and y3 are made canonical. Products
 * by Karatsuba (3 Fp products): with a, b < 2p the sums are < 4p, and a
 * product of two values < 4p is < 16p^2/R + p < 2.63p (p/R < 0.102), which
 * one or two conditional subtractions bring back under 2p. */
typedef struct {
    fx8 c0, c1;
} f2x8;

TGT static inline void f2_gather(f2x8 *r, __m512i idx, const unsigned char *base)
{
    x8_gather(&r->c0, idx, base);
    x8_gather(&r->c1, idx, base + sizeof(cz_fp));
}
TGT static inline void f2_scatter(const f2x8 *a, __m512i idx, unsigned char *base, __mmask8 m)
{
    x8_scatter(&a->c0, idx, base, m);
    x8_scatter(&a->c1, idx, base + sizeof(cz_fp), m);
}
TGT static inline void f2_neg_mask(f2x8 *a, __mmask8 m)
{
    x8_neg_mask(&a->c0, m);
    x8_neg_mask(&a->c1, m);
}
/* a - b in [0, 2p), for a <= 2p and b < 2p */
TGT static inline void f2_sub(f2x8 *r, const f2x8 *a, const f2x8 *b)
{
    x8_sub(&r->c0, &a->c0, &b->c0, P2_48); /* (0, 4p) */
    x8_csub(&r->c0, P2_48);
    x8_sub(&r->c1, &a->c1, &b->c1, P2_48);
    x8_csub(&r->c1, P2_48);
}
TGT static inline void f2_den(f2x8 *d, const f2x8 *x2, const f2x8 *x1) { f2_sub(d, x2, x1); }
TGT static inline void f2_num(f2x8 *r, const f2x8 *y2, const f2x8 *y1) { f2_sub(r, y2, y1); }
TGT static inline void f2_mul(f2x8 *r, const f2x8 *a, const f2x8 *b)
{
    fx8 t0, t1, t2, sa, sb, u;
    x8_mul(&t0, &a->c0, &b->c0); /* < 1.41p */
    x8_mul(&t1, &a->c1, &b->c1);
    x8_add(&sa, &a->c0, &a->c1); /* < 4p */
    x8_add(&sb, &b->c0, &b->c1);
    x8_mul(&t2, &sa, &sb);           /* < 2.63p */
    x8_sub(&r->c0, &t0, &t1, P2_48); /* (0.59p, 3.41p) */
    x8_csub(&r->c0, P2_48);
    x8_sub(&u, &t2, &t0, P2_48);     /* (0.59p, 4.63p) */
    x8_sub(&r->c1, &u, &t1, P48);    /* (0.18p, 5.63p) */
    x8_csub(&r->c1, P4_48);
    x8_csub(&r->c1, P2_48);
}
TGT static inline void f2_sqr(f2x8 *r, const f2x8 *a)
{
    fx8 s, d, m;
    x8_add(&s, &a->c0, &a->c1);          /* < 4p */
    x8_sub(&d, &a->c0, &a->c1, P2_48);   /* (0, 4p) */
    x8_mul(&r->c0, &s, &d);              /* (a0 + a1)(a0 - a1) < 2.63p */
    x8_csub(&r->c0, P2_48);
    x8_mul(&m, &a->c0, &a->c1);          /* < 1.41p */
    x8_add(&r->c1, &m, &m);              /* < 2.83p */
    x8_csub(&r->c1, P2_48);
}
TGT static inline void f2_one(f2x8 *r)
{
    x8_set(&r->c0, ONE48);
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) r->c1.v[k] = _mm512_setzero_si512();
}
TGT static inline void f2_blend(f2x8 *d, const f2x8 *s, __mmask8 m)
{
    x8_blend(&d->c0, &s->c0, m);
    x8_blend(&d->c1, &s->c1, m);
}
/* x3 = λ^2 - x1 - x2, canonical (x1, x2 canonical) */
TGT static inline void f2_x3(f2x8 *x3, const f2x8 *lam, const f2x8 *x1, const f2x8 *x2)
{
    f2x8 s;
    fx8 t;
    f2_sqr(&s, lam);
    x8_sub(&t, &s.c0, &x1->c0, P48);    /* (0, 3p) */
    x8_sub(&x3->c0, &t, &x2->c0, P48);  /* (0, 4p) */
    x8_canon(&x3->c0);
    x8_sub(&t, &s.c1, &x1->c1, P48);
    x8_sub(&x3->c1, &t, &x2->c1, P48);
    x8_canon(&x3->c1);
}
/* y3 = λ(x1 - x3) - y1, canonical */
TGT static inline void f2_y3(f2x8 *y3, const f2x8 *lam, const f2x8 *x1, const f2x8 *x3, const f2x8 *y1)
{
    f2x8 t, y;
    x8_sub(&t.c0, &x1->c0, &x3->c0, P48); /* (0, 2p) */
    x8_sub(&t.c1, &x1->c1, &x3->c1, P48);
    f2_mul(&y, lam, &t);
    x8_sub(&y3->c0, &y.c0, &y1->c0, P48);  /* (0, 3p) */
    x8_canon(&y3->c0);
    x8_sub(&y3->c1, &y.c1, &y1->c1, P48);
    x8_canon(&y3->c1);
}
static void f2_set(f2x8 *a, int lane, const cz_fp2 *x)
{
    lane_set(&a->c0, lane, &x->c0);
    lane_set(&a->c1, lane, &x->c1);
}
/* Batch inversion over the Fp norms N = den0^2 + den1^2, as the scalar
 * flush does (msm_impl.h): 1/den = conj(den)/N, so the chains and their
 * inverse are Fp lanes: 2 squarings + 5 products instead of 3 Karatsuba
 * products (9). pre->c0 holds the chain before this group, pre->c1 its
 * norms. Bounds: den < 2p, so each square < 2p and N < 4p, which either
 * operand of x8_mul may be when the other is < 2p (8p^2/R + p < 1.82p:
 * no conditional subtraction needed); 1/N < 2p; conj: 2p - den1/N in
 * (0, 2p]. */
TGT static inline void f2_bi_push(f2x8 *pre, const f2x8 *den, fx8 *acc)
{
    fx8 s;
    x8_sqr(&pre->c1, &den->c0);
    x8_sqr(&s, &den->c1);
    x8_add(&pre->c1, &pre->c1, &s);
    pre->c0 = *acc;
    x8_mul(acc, acc, &pre->c1);
}
TGT static inline void f2_bi_pop(const f2x8 *pre, const f2x8 *den, fx8 *iv, f2x8 *ii)
{
    static const uint64_t Z[8];
    fx8 in, t, zero;
    x8_mul(&in, iv, &pre->c0);
    x8_mul(iv, iv, &pre->c1);
    x8_mul(&ii->c0, &den->c0, &in);
    x8_mul(&t, &den->c1, &in);
    x8_set(&zero, Z);
    x8_sub(&ii->c1, &zero, &t, P2_48);
}

#define AFF cz_g2_affine
#define FE cz_fp2
#define F(name) cz_fp2_##name
#define ENTRY cz_msm_g2_entry
#define LX f2x8
#define L(name) f2_##name
#define FLUSH_NAME cz__msm_g2_flush_x8
#include "msm_x8_flush.h"
#undef AFF
#undef FE
#undef F
#undef ENTRY
#undef LX
#undef L
#undef FLUSH_NAME

/* per group: prefix product, den, num, x1, y1, x2 */
size_t cz__msm_g1_x8_scratch(unsigned cap) { return ((size_t)cap + 7) / 8 * 6 * sizeof(f1x8) + 64; }
size_t cz__msm_g2_x8_scratch(unsigned cap) { return ((size_t)cap + 7) / 8 * 6 * sizeof(f2x8) + 64; }

#else /* !CZ_MSM_HAVE_X8 */

bool cz__msm_x8_supported(void) { return false; }
size_t cz__msm_g1_x8_scratch(unsigned cap)
{
    (void)cap;
    return 0;
}
size_t cz__msm_g2_x8_scratch(unsigned cap)
{
    (void)cap;
    return 0;
}

#endif
