/*
 * NTT kernels on eight lanes with AVX-512 IFMA (see ntt_x8.h).
 *
 * Representation: eight Fr elements as five 52-bit limbs each, limb k of
 * the eight lanes in one 512-bit register. The data keep cuzk's Montgomery
 * form (x·2^256); the IFMA Montgomery product divides by R' = 2^260, so
 * every constant operand (twiddle, scale) is taken as 16 times its cz_fr
 * value: M(x·2^256, 16·w·2^256) = x·w·2^256. The factor 16 costs nothing:
 * the 52-bit limbs of 16·w are cut from w's 64-bit limbs 4 bits lower.
 * Bounds: a product of a < 2r and b < 16r is < ab/2^260 + r < 2r
 * (32r < 2^260); every kernel writes canonical (< r) results, so the
 * scalar kernels of ntt.c can run any stage in between.
 * The 64-bit AoS elements are transposed to limb-major order with two
 * permutes and a blend per limb (strided twiddles are first assembled
 * from 256-bit loads).
 */
#include "ntt_x8.h"

#if CZ_NTT_HAVE_X8

#include <immintrin.h>

#define TGT __attribute__((target("avx512f,avx512ifma")))
#define M52 ((UINT64_C(1) << 52) - 1)

typedef struct {
    __m512i v[5];
} fr8;

static uint64_t R52[5], RINV52;

__attribute__((constructor)) static void ntt_x8_init(void)
{
    const uint64_t *q = CZ_FR_MODULUS;
    R52[0] = q[0] & M52;
    R52[1] = ((q[0] >> 52) | (q[1] << 12)) & M52;
    R52[2] = ((q[1] >> 40) | (q[2] << 24)) & M52;
    R52[3] = ((q[2] >> 28) | (q[3] << 36)) & M52;
    R52[4] = q[3] >> 16;
    uint64_t inv = 1;
    for (int i = 0; i < 7; i++) inv *= 2 - q[0] * inv;
    RINV52 = (0 - inv) & M52;
}

/* ---- transposition and radix conversion ----------------------------------- */

/* q[k] = 64-bit limb k of p[i·st], i < 8. Strided runs are assembled
 * from 256-bit loads (VPGATHERQQ cost ~15% of a transform on Zen 4). */
TGT static inline void ld_q(__m512i q[4], const cz_fr *p, ptrdiff_t st)
{
    __m512i z[4];
    if (st == 1) {
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) z[j] = _mm512_loadu_si512(p + 2 * j);
    } else {
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++)
            z[j] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const void *)(p + 2 * j * st))),
                                      _mm256_loadu_si256((const void *)(p + (2 * j + 1) * st)), 1);
    }
    /* z[j] = elements 2j, 2j+1 (four limbs each) */
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        const __m512i ix = _mm512_setr_epi64(k, 4 + k, 8 + k, 12 + k, k, 4 + k, 8 + k, 12 + k);
        __m512i lo = _mm512_permutex2var_epi64(z[0], ix, z[1]);
        __m512i hi = _mm512_permutex2var_epi64(z[2], ix, z[3]);
        q[k] = _mm512_mask_blend_epi64(0xF0, lo, hi);
    }
}

/* p[i] = lanes, i < 8 (contiguous). */
TGT static inline void st_q(cz_fr *p, const __m512i q[4])
{
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        const __m512i ia = _mm512_setr_epi64(2 * j, 8 + 2 * j, 0, 0, 2 * j + 1, 9 + 2 * j, 0, 0);
        const __m512i ib = _mm512_setr_epi64(0, 0, 2 * j, 8 + 2 * j, 0, 0, 2 * j + 1, 9 + 2 * j);
        __m512i a = _mm512_permutex2var_epi64(q[0], ia, q[1]);
        __m512i b = _mm512_permutex2var_epi64(q[2], ib, q[3]);
        _mm512_storeu_si512(p + 2 * j, _mm512_mask_blend_epi64(0xCC, a, b));
    }
}

/* Loads eight elements (p[i·st]); x16: as 16 times their value. */
TGT static inline void ld8(fr8 *r, const cz_fr *p, ptrdiff_t st, bool x16)
{
    const __m512i M = _mm512_set1_epi64((long long)M52);
    __m512i q[4];
    ld_q(q, p, st);
    if (!x16) {
        r->v[0] = _mm512_and_si512(q[0], M);
        r->v[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[0], 52), _mm512_slli_epi64(q[1], 12)), M);
        r->v[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[1], 40), _mm512_slli_epi64(q[2], 24)), M);
        r->v[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[2], 28), _mm512_slli_epi64(q[3], 36)), M);
        r->v[4] = _mm512_srli_epi64(q[3], 16);
    } else {
        r->v[0] = _mm512_and_si512(_mm512_slli_epi64(q[0], 4), M);
        r->v[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[0], 48), _mm512_slli_epi64(q[1], 16)), M);
        r->v[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[1], 36), _mm512_slli_epi64(q[2], 28)), M);
        r->v[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[2], 24), _mm512_slli_epi64(q[3], 40)), M);
        r->v[4] = _mm512_srli_epi64(q[3], 12);
    }
}

/* Stores eight canonical elements to p[0..8). */
TGT static inline void st8(cz_fr *p, const fr8 *a)
{
    const __m512i *l = a->v;
    __m512i q[4];
    q[0] = _mm512_or_si512(l[0], _mm512_slli_epi64(l[1], 52));
    q[1] = _mm512_or_si512(_mm512_srli_epi64(l[1], 12), _mm512_slli_epi64(l[2], 40));
    q[2] = _mm512_or_si512(_mm512_srli_epi64(l[2], 24), _mm512_slli_epi64(l[3], 28));
    q[3] = _mm512_or_si512(_mm512_srli_epi64(l[3], 36), _mm512_slli_epi64(l[4], 16));
    st_q(p, q);
}

/* Broadcast of 16·a (a canonical) to the eight lanes. */
TGT static inline void bc16(fr8 *r, const cz_fr *a)
{
    const uint64_t *q = a->l;
    uint64_t l[5];
    l[0] = (q[0] << 4) & M52;
    l[1] = ((q[0] >> 48) | (q[1] << 16)) & M52;
    l[2] = ((q[1] >> 36) | (q[2] << 28)) & M52;
    l[3] = ((q[2] >> 24) | (q[3] << 40)) & M52;
    l[4] = q[3] >> 12;
    for (int k = 0; k < 5; k++) r->v[k] = _mm512_set1_epi64((long long)l[k]);
}

/* ---- arithmetic ------------------------------------------------------------ */

/* r = a·b/2^260 mod r, < 2r for a < 2r, b < 16r (or a < r, b < 32r). */
TGT static inline void mul8(fr8 *res, const fr8 *a, const fr8 *b)
{
    const __m512i z = _mm512_setzero_si512();
    const __m512i RI = _mm512_set1_epi64((long long)RINV52);
    __m512i t[6];
#pragma GCC unroll 6
    for (int k = 0; k < 6; k++) t[k] = z;
#pragma GCC unroll 5
    for (int i = 0; i < 5; i++) {
        __m512i ai = a->v[i];
#pragma GCC unroll 5
        for (int j = 0; j < 5; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], ai, b->v[j]);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], ai, b->v[j]);
        }
        __m512i m = _mm512_madd52lo_epu64(z, t[0], RI);
#pragma GCC unroll 5
        for (int j = 0; j < 5; j++) {
            __m512i rj = _mm512_set1_epi64((long long)R52[j]);
            t[j] = _mm512_madd52lo_epu64(t[j], m, rj);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, rj);
        }
        /* t0 ≡ 0 mod 2^52: carry it up and shift the columns down */
        t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
#pragma GCC unroll 5
        for (int k = 0; k < 5; k++) t[k] = t[k + 1];
        t[5] = z;
    }
    const __m512i M = _mm512_set1_epi64((long long)M52);
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        t[k + 1] = _mm512_add_epi64(t[k + 1], _mm512_srli_epi64(t[k], 52));
        res->v[k] = _mm512_and_si512(t[k], M);
    }
    res->v[4] = t[4];
}

/* Signed carry propagation into 52-bit limbs (total non-negative). */
TGT static inline void norm8(fr8 *r, __m512i t[5])
{
    const __m512i M = _mm512_set1_epi64((long long)M52);
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        t[k + 1] = _mm512_add_epi64(t[k + 1], _mm512_srai_epi64(t[k], 52));
        r->v[k] = _mm512_and_si512(t[k], M);
    }
    r->v[4] = t[4];
}

/* [0, 2r) -> [0, r) */
TGT static inline void csub8(fr8 *a)
{
    __m512i t[5];
    fr8 w;
#pragma GCC unroll 5
    for (int k = 0; k < 5; k++) t[k] = _mm512_sub_epi64(a->v[k], _mm512_set1_epi64((long long)R52[k]));
    norm8(&w, t);
    __mmask8 keep = _mm512_cmplt_epi64_mask(w.v[4], _mm512_setzero_si512());
#pragma GCC unroll 5
    for (int k = 0; k < 5; k++) a->v[k] = _mm512_mask_mov_epi64(w.v[k], keep, a->v[k]);
}

/* canonical a + b */
TGT static inline void add8(fr8 *r, const fr8 *a, const fr8 *b)
{
    __m512i t[5];
#pragma GCC unroll 5
    for (int k = 0; k < 5; k++) t[k] = _mm512_add_epi64(a->v[k], b->v[k]);
    norm8(r, t);
    csub8(r);
}

/* a - b + r, in (0, 2r) for canonical a, b; canonical if canon */
TGT static inline void sub8(fr8 *r, const fr8 *a, const fr8 *b, bool canon)
{
    __m512i t[5];
#pragma GCC unroll 5
    for (int k = 0; k < 5; k++)
        t[k] = _mm512_sub_epi64(_mm512_add_epi64(a->v[k], _mm512_set1_epi64((long long)R52[k])), b->v[k]);
    norm8(r, t);
    if (canon) csub8(r);
}

/* ---- kernels ----------------------------------------------------------------- */

TGT void cz__ntt_x8_dif(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw, ptrdiff_t ts, bool inv)
{
    for (size_t c = 0; c < cnt; c += 8) {
        fr8 u, v, w, s, d;
        ld8(&u, p0 + c, 1, false);
        ld8(&v, p1 + c, 1, false);
        ld8(&w, tw + (ptrdiff_t)c * ts, ts, true);
        add8(&s, &u, &v);
        if (inv) sub8(&d, &v, &u, false);
        else sub8(&d, &u, &v, false);
        mul8(&d, &d, &w);
        csub8(&d);
        st8(p0 + c, &s);
        st8(p1 + c, &d);
    }
}

TGT void cz__ntt_x8_dit(cz_fr *p0, cz_fr *p1, size_t cnt, const cz_fr *tw, ptrdiff_t ts, bool inv)
{
    for (size_t c = 0; c < cnt; c += 8) {
        fr8 u, v, w, s, d;
        ld8(&v, p1 + c, 1, false);
        ld8(&w, tw + (ptrdiff_t)c * ts, ts, true);
        mul8(&v, &v, &w);
        csub8(&v);
        ld8(&u, p0 + c, 1, false);
        add8(&s, &u, &v);
        sub8(&d, &u, &v, true);
        st8(p0 + c, inv ? &d : &s);
        st8(p1 + c, inv ? &s : &d);
    }
}

TGT void cz__ntt_x8_scale(cz_fr *x, size_t cnt, const cz_fr *f)
{
    fr8 F;
    bc16(&F, f);
    for (size_t c = 0; c < cnt; c += 8) {
        fr8 a;
        ld8(&a, x + c, 1, false);
        mul8(&a, &a, &F);
        csub8(&a);
        st8(x + c, &a);
    }
}

TGT void cz__ntt_x8_scale_tab(cz_fr *const *xs, unsigned nx, size_t off, size_t cnt, const cz_fr *tl,
                              const cz_fr *f)
{
    fr8 F;
    bc16(&F, f);
    for (size_t c = 0; c < cnt; c += 8) {
        fr8 t;
        /* t = 16·tl·f (< 8.3r, see the bound above: a < r, b < 32r) */
        ld8(&t, tl + c, 1, true);
        mul8(&t, &t, &F);
        for (unsigned i = 0; i < nx; i++) {
            fr8 a;
            ld8(&a, xs[i] + off + c, 1, false);
            mul8(&a, &a, &t);
            csub8(&a);
            st8(xs[i] + off + c, &a);
        }
    }
}

TGT void cz__ntt_x8_mul(cz_fr *a, const cz_fr *b, size_t cnt)
{
    /* a·b needs one operand scaled by 16: b's limbs are cut 4 bits lower */
    for (size_t i = 0; i < cnt; i += 8) {
        fr8 x, y;
        ld8(&x, a + i, 1, false);
        ld8(&y, b + i, 1, true);
        mul8(&x, &x, &y);
        csub8(&x);
        st8(a + i, &x);
    }
}

#endif
