/*
 * Batch-affine G1 and G2 bucket additions fourteen at a time, eight on AVX2 + FMA
 * lanes and six on MULX/ADX in one instruction stream (ff/fp_x4.h), for
 * CPUs without AVX-512 IFMA (AMD Zen 3 and older, most providers'
 * servers): the default there (cz__msm_lanes; CUZK_MSM_LANES=none turns it
 * off). On the development machine (Zen 4, IFMA ruled out with
 * CUZK_NO_IFMA) it takes 0.8× the CPU time of the scalar MULX flush
 * (BENCHMARKS.md "Lanes and MULX in one stream").
 *
 * Why both: a lane product alone (four groups of four lanes) was 1.2× a
 * MULX product's throughput, and the flush built on it lost that gain to
 * repacking every coordinate into lanes and back. The lanes use the
 * vector pipes and MULX the integer ones, so one block that interleaves
 * eight lane products with six MULX products finishes fourteen products
 * in ~0.5–0.7× the time of as many MULX products, and only eight of the
 * fourteen values are repacked. The block is ~3,700 instructions (25 KB),
 * near what the instruction caches hold (its first form, with eight MULX
 * products, was ~4,200 and fell past that edge on a later VM: fp_x4.h):
 * called once per group between the gathers and subtractions it was
 * evicted each time (~20 ns a product in place against 15 alone, and the
 * flush no faster than MULX), so the flush runs in phases, each a loop
 * over all groups, and the kernel calls come back to back.
 *
 * How: the batch-affine addition is five Fp products, a square and a few
 * subtractions. As the IFMA flush (msm_x8.c) does with eight lanes, the
 * batch is computed NL = 14 additions at a time: value l of group g is
 * entry NL·g + l (l < 8 in the lanes, the rest as six-limb elements), the
 * prefix products of the batched inversion run as NL interleaved
 * chains, one scalar inversion serves them all, and λ, x3, y3 and the
 * subtractions around them are computed value by value in their form.
 *
 * Values are plain integers under a bound written beside each step as a
 * multiple of p, both halves alike (the lanes in the lane form of fp_x4.h,
 * eight 48-bit limbs, R = 2^384; the MULX values as 384-bit integers), as
 * the G2 flush keeps all its values; the kernel takes operands past its
 * < 2p contract as the G2 section explains. den = x2 − x1 + 2p and num =
 * y2 − y1 + 2p (< 3p) only feed products, so they are left raw (w_sub_raw:
 * the lanes' limbs not carried), and the prefix products stay under
 * 1.45p, the inverses under 1.45p, λ under 1.37p and λ² under 1.2p;
 * x3 = λ² − x1 − x2 + 2p (< 3.2p) takes one normalisation and one
 * conditional subtraction of 2p; x1 − x3 + 4p feeds the product raw;
 * λ(x1 − x3 + 4p) − y1 + p (< 2.7p) takes one subtraction of 2p. x3 and
 * y3 then lie in [0, 2p), and the store's own reduction (f16_get_all)
 * makes them canonical for the buckets, whose x the scalar code compares
 * limb by limb. The gathers and stores move four lane values at a time
 * (f16_set_all, f16_get_all: limbs transposed in registers), which made
 * the G1 MSM ~5 % and the G2 MSM ~3 % faster than repacking value by
 * value. (An earlier form kept the MULX values canonical with
 * modular subtractions and x3 canonical in the lanes: three more
 * normalisations a group; measured in one process, this one is 0.5–1 %
 * faster.)
 *
 * The file is built without the auto-vectoriser (CMakeLists.txt): it
 * turned the MULX values' limb selects and copies into 128- and 256-bit
 * loads of limbs just written by 64-bit stores, which the core cannot
 * forward, and each such load waited for the stores to reach the cache.
 * Without it the G2 flush took 0.97–0.98× the CPU time, batch by batch in
 * one process (tools/flush-ab.sh); G1's change, 0.98–0.99×, was within
 * what the same code against itself reads (BENCHMARKS.md "Store
 * forwarding in the AVX2 flush").
 */
#include "msm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if CZ_MSM_HAVE_X16

#include <immintrin.h>

#include "ff/fp_x4.h"

#define TGT __attribute__((target("avx2,fma")))
#define M48 ((UINT64_C(1) << 48) - 1)
#define NG CZ_FP_X4_GROUPS  /* lane groups per call */
#define NS CZ_FP_X4_SCALARS /* MULX values per call */
#define NL CZ_FP_X16_N      /* values per call */

/* NL Fp values: value l < 4·NG is lane l % 4 of g[l / 4], the rest
 * s[l - 4·NG]. */
typedef cz__fp_x16 f16;

bool cz__msm_x16_supported(void) { return cz__fp_x4_supported(); }

/* Carry propagation of signed limbs (|limb| < 2^61) into 48-bit limbs, the
 * non-negative total's rest in the top limb. AVX2 has no 64-bit arithmetic
 * shift: t + 2^62 is non-negative, and its logical shift is 2^14 too big. */
TGT static inline void g_norm(cz__fp_x4 *r, __m256i t[8])
{
    const __m256i M = _mm256_set1_epi64x((long long)M48);
    const __m256i OFF = _mm256_set1_epi64x((long long)(UINT64_C(1) << 62));
    const __m256i C14 = _mm256_set1_epi64x(1 << 14);
#pragma GCC unroll 7
    for (int k = 0; k < 7; k++) {
        __m256i c = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_add_epi64(t[k], OFF), 48), C14);
        t[k + 1] = _mm256_add_epi64(t[k + 1], c);
        _mm256_store_si256((__m256i *)r->l[k], _mm256_and_si256(t[k], M));
    }
    _mm256_store_si256((__m256i *)r->l[7], t[7]);
}

/* One lane group: r = r − K where r >= K (normalised limbs in and out). */
TGT static inline void g_csub(cz__fp_x4 *r, const uint64_t K[8])
{
    __m256i t[8], v[8];
    cz__fp_x4 w;
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        v[k] = _mm256_load_si256((const __m256i *)r->l[k]);
        t[k] = _mm256_sub_epi64(v[k], _mm256_set1_epi64x((long long)K[k]));
    }
    g_norm(&w, t);
    /* keep r where r − K is negative (its top limb is) */
    __m256i keep = _mm256_cmpgt_epi64(_mm256_setzero_si256(), _mm256_load_si256((const __m256i *)w.l[7]));
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        _mm256_store_si256((__m256i *)r->l[k], _mm256_blendv_epi8(_mm256_load_si256((const __m256i *)w.l[k]), v[k], keep));
}

static void f16_mul(f16 *r, const f16 *a, const f16 *b) { cz__fp_x16_mul(r, a, b); }
/* The squaring block (gen_fp_x4_avx2.py fp-sqr): 0.88× the product's time
 * on the Zen 4 (`cuzk bench field --only x16`: 14.6 against 16.6 ns); the
 * operand's lane limbs must be normalised, which every value squared here
 * is (a product's output or a w_sub). */
static void f16_sqr(f16 *r, const f16 *a) { cz__fp_x16_sqr(r, a); }

static inline void f16_set(f16 *a, unsigned l, const cz_fp *x) { cz__fp_x16_set(a, l, x); }

/* Four canonical values into one lane group at once: their six 64-bit
 * limbs transposed in registers (limb j of the four values in one
 * vector), then cut into the eight 48-bit limbs with shifts (the scalar
 * cz__fp_x4_set_lane, four times, took ~2.5 times the instructions: the
 * flush repacks every coordinate it gathers). */
TGT static inline void g_set4(cz__fp_x4 *r, const cz_fp *a0, const cz_fp *a1, const cz_fp *a2, const cz_fp *a3)
{
    const __m256i M = _mm256_set1_epi64x((long long)M48);
    __m256i r0 = _mm256_loadu_si256((const __m256i *)a0->l), r1 = _mm256_loadu_si256((const __m256i *)a1->l);
    __m256i r2 = _mm256_loadu_si256((const __m256i *)a2->l), r3 = _mm256_loadu_si256((const __m256i *)a3->l);
    __m256i t0 = _mm256_unpacklo_epi64(r0, r1), t1 = _mm256_unpackhi_epi64(r0, r1);
    __m256i t2 = _mm256_unpacklo_epi64(r2, r3), t3 = _mm256_unpackhi_epi64(r2, r3);
    __m256i L0 = _mm256_permute2x128_si256(t0, t2, 0x20), L2 = _mm256_permute2x128_si256(t0, t2, 0x31);
    __m256i L1 = _mm256_permute2x128_si256(t1, t3, 0x20), L3 = _mm256_permute2x128_si256(t1, t3, 0x31);
    __m256i u0 = _mm256_set_m128i(_mm_loadu_si128((const __m128i *)(a2->l + 4)), _mm_loadu_si128((const __m128i *)(a0->l + 4)));
    __m256i u1 = _mm256_set_m128i(_mm_loadu_si128((const __m128i *)(a3->l + 4)), _mm_loadu_si128((const __m128i *)(a1->l + 4)));
    __m256i L4 = _mm256_unpacklo_epi64(u0, u1), L5 = _mm256_unpackhi_epi64(u0, u1);
    __m256i *o = (__m256i *)r->l;
    _mm256_store_si256(o + 0, _mm256_and_si256(L0, M));
    _mm256_store_si256(o + 1, _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(L0, 48), _mm256_slli_epi64(L1, 16)), M));
    _mm256_store_si256(o + 2, _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(L1, 32), _mm256_slli_epi64(L2, 32)), M));
    _mm256_store_si256(o + 3, _mm256_srli_epi64(L2, 16));
    _mm256_store_si256(o + 4, _mm256_and_si256(L3, M));
    _mm256_store_si256(o + 5, _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(L3, 48), _mm256_slli_epi64(L4, 16)), M));
    _mm256_store_si256(o + 6, _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(L4, 32), _mm256_slli_epi64(L5, 32)), M));
    _mm256_store_si256(o + 7, _mm256_srli_epi64(L5, 16));
}

/* All NL values of a set from pointers to them (canonical). */
TGT static inline void f16_set_all(f16 *a, const cz_fp *const v[NL])
{
    for (unsigned k = 0; k < NG; k++) g_set4(&a->g[k], v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3]);
    for (unsigned l = 4 * NG; l < NL; l++) a->s[l - 4 * NG] = *v[l];
}
static inline void f16_get(cz_fp *x, const f16 *a, unsigned l) { cz__fp_x16_get(x, a, l); }

/* ---- values as bounded integers ----------------------------------------
 * The operations below treat both halves alike: a value is a plain
 * integer under a bound that the caller tracks as a multiple of p (the
 * MULX values as 384-bit integers, the lanes normalised unless an
 * operation says raw), and the kernel takes operands past its < 2p
 * contract as the G2 section below describes. Both flushes are built on
 * them. */
typedef struct {
    uint64_t l48[8];  /* normalised */
    uint64_t l48r[8]; /* redundant: limbs 0..6 in [2^48 - 1, 2^49), the top one less 1 */
    uint64_t l64[6];
} kmul;
/* p, 2p, 4p (8p went with the chains w_red replaced) */
enum { K1, K2, K4, NK };
static kmul KP[NK];

__attribute__((constructor)) static void x16_g2_init(void)
{
    uint64_t v[6];
    memcpy(v, CZ_FP_MODULUS, sizeof v);
    for (int i = 0; i < NK; i++) {
        kmul *k = &KP[i];
        memcpy(k->l64, v, sizeof v);
        cz__fp_to48(k->l48, v);
        /* borrow 1 from each limb into the one below: the same value */
        k->l48r[0] = k->l48[0] + (UINT64_C(1) << 48);
        for (int j = 1; j < 7; j++) k->l48r[j] = k->l48[j] + (UINT64_C(1) << 48) - 1;
        k->l48r[7] = k->l48[7] - 1;
        uint64_t c = 0;
        for (int j = 0; j < 6; j++) {
            uint64_t t = v[j];
            v[j] = (t << 1) | c;
            c = t >> 63;
        }
    }
}

/* Lane group: t = a + b, or a − b + K, limb by limb (not carried). */
TGT static inline void g_addl(__m256i t[8], const cz__fp_x4 *a, const cz__fp_x4 *b)
{
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        t[k] = _mm256_add_epi64(_mm256_load_si256((const __m256i *)a->l[k]),
                                _mm256_load_si256((const __m256i *)b->l[k]));
}
TGT static inline void g_subl(__m256i t[8], const cz__fp_x4 *a, const cz__fp_x4 *b, const uint64_t K[8])
{
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        t[k] = _mm256_sub_epi64(_mm256_add_epi64(_mm256_load_si256((const __m256i *)a->l[k]),
                                                 _mm256_set1_epi64x((long long)K[k])),
                                _mm256_load_si256((const __m256i *)b->l[k]));
}
TGT static inline void g_store(cz__fp_x4 *r, const __m256i t[8])
{
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) _mm256_store_si256((__m256i *)r->l[k], t[k]);
}

/* MULX values: r = a + b; r = a − b + K (no carry leaves the six limbs:
 * every bound below is under 2^384, and a − b + K >= 0). */
static inline void s_add(f16 *r, const f16 *a, const f16 *b)
{
    for (int j = 0; j < NS; j++) cz_limbs_add_nc(r->s[j].l, a->s[j].l, b->s[j].l, 6);
}
static inline void s_sub(f16 *r, const f16 *a, const f16 *b, const kmul *K)
{
    for (int j = 0; j < NS; j++) {
        uint64_t t[6];
        cz_carry_t c = 0;
        cz_limbs_add_nc(t, a->s[j].l, K->l64, 6);
        for (int k = 0; k < 6; k++) CZ_SBB(c, t[k], b->s[j].l[k], &r->s[j].l[k]);
    }
}

/* r = a + b, the lanes normalised. */
TGT static void w_add(f16 *r, const f16 *a, const f16 *b)
{
    for (int g = 0; g < NG; g++) {
        __m256i t[8];
        g_addl(t, &a->g[g], &b->g[g]);
        g_norm(&r->g[g], t);
    }
    s_add(r, a, b);
}

/* r = a + b for a product only: the lanes' limbs (a and b normalised)
 * are left under 2^49. */
TGT static void w_add_raw(f16 *r, const f16 *a, const f16 *b)
{
    for (int g = 0; g < NG; g++) {
        __m256i t[8];
        g_addl(t, &a->g[g], &b->g[g]);
        g_store(&r->g[g], t);
    }
    s_add(r, a, b);
}

/* r = a − b + K, K = KP[ki] at least b's bound, the lanes normalised. */
TGT static void w_sub(f16 *r, const f16 *a, const f16 *b, int ki)
{
    for (int g = 0; g < NG; g++) {
        __m256i t[8];
        g_subl(t, &a->g[g], &b->g[g], KP[ki].l48);
        g_norm(&r->g[g], t);
    }
    s_sub(r, a, b, &KP[ki]);
}

/* r = a + b − c − d + K in one normalisation (b, d may be NULL: left
 * out; K = KP[ki] at least the bound of c + d). */
TGT static void w_lin(f16 *r, const f16 *a, const f16 *b, const f16 *c, const f16 *d, int ki)
{
    for (int g = 0; g < NG; g++) {
        __m256i t[8];
        g_subl(t, &a->g[g], &c->g[g], KP[ki].l48);
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++) {
            if (b) t[k] = _mm256_add_epi64(t[k], _mm256_load_si256((const __m256i *)b->g[g].l[k]));
            if (d) t[k] = _mm256_sub_epi64(t[k], _mm256_load_si256((const __m256i *)d->g[g].l[k]));
        }
        g_norm(&r->g[g], t);
    }
    for (int j = 0; j < NS; j++) {
        uint64_t t[6];
        cz_carry_t cy = 0;
        cz_limbs_add_nc(t, a->s[j].l, KP[ki].l64, 6);
        if (b) cz_limbs_add_nc(t, t, b->s[j].l, 6);
        /* The last pass writes r itself (limb k read before limb k is
         * written, so r may be any operand): a copy of t into r was
         * compiled as 128-bit moves, whose loads of t's 64-bit stores
         * could not be forwarded (a third of w_lin's time on an Emerald
         * Rapids Xeon). */
        uint64_t *o = d ? t : r->s[j].l;
        for (int k = 0; k < 6; k++) CZ_SBB(cy, t[k], c->s[j].l[k], &o[k]);
        if (d) {
            cy = 0;
            for (int k = 0; k < 6; k++) CZ_SBB(cy, t[k], d->s[j].l[k], &r->s[j].l[k]);
        }
    }
}

/* r = a − b + K for a product only: with K's redundant limbs and a, b
 * normalised, no lane limb goes negative (b's top limb under K's, a
 * bound with margin at each call) and all stay under 2^49.6. */
TGT static void w_sub_raw(f16 *r, const f16 *a, const f16 *b, int ki)
{
    for (int g = 0; g < NG; g++) {
        __m256i t[8];
        g_subl(t, &a->g[g], &b->g[g], KP[ki].l48r);
        g_store(&r->g[g], t);
    }
    s_sub(r, a, b, &KP[ki]);
}

/* r = r − K where r >= K, value by value (r normalised). */
TGT static void w_csub(f16 *r, int ki)
{
    for (int g = 0; g < NG; g++) g_csub(&r->g[g], KP[ki].l48);
    for (int j = 0; j < NS; j++) cz_mont_reduce_once(r->s[j].l, r->s[j].l, KP[ki].l64, 6);
}

/* r = r − q·p with q = floor(v_top / (p_top + 2)), per value: from any r
 * under 2^384 (lanes normalised) into [0, 2p), in one normalisation where
 * a chain of conditional subtractions (w_csub of 8p, 4p, 2p) took up to
 * three. Why q is right: with v_top = floor(v / 2^s) and p_top =
 * floor(p / 2^s), v/p > v_top/(p_top + 1) > v_top/(p_top + 2), so q <=
 * v/p and r >= 0; and v/p − v_top/(p_top + 2) < (v_top + 1)/p_top −
 * v_top/(p_top + 2), under 2^-40 here (v < 2^384, p_top >= 2^44), so
 * q >= floor(v/p) − 1 and r < 2p. The quotient is taken in doubles (the
 * operands exact below 2^53) with a reciprocal rounded down; the product's
 * own rounding may still land above v_top/(p_top + 2), by at most ~q·2^-52,
 * but v/p lies above that by v_top/((p_top + 1)(p_top + 2)), ~q/p_top,
 * so q <= v/p still holds. Lanes: s = 336, v_top the top limb (< 2^48;
 * p_top ~2^44.7, a margin ~100 times the rounding); q·p's limbs (q < 16,
 * under 2^52) are exact products of doubles. MULX values: s = 331, v_top
 * the top 53 bits (p_top ~2^49.7, a margin ~5 times the rounding). */
typedef struct {
    double inv_lane, inv_mulx; /* 1/(p_top + 2), rounded down */
    double p48[8];             /* p's 48-bit limbs as doubles */
} kred;
static kred KR;

__attribute__((constructor)) static void x16_red_init(void)
{
    uint64_t p48[8];
    cz__fp_to48(p48, CZ_FP_MODULUS);
    for (int k = 0; k < 8; k++) KR.p48[k] = (double)p48[k];
    KR.inv_lane = nextafter(1.0 / (double)(p48[7] + 2), 0.0);
    KR.inv_mulx = nextafter(1.0 / (double)((CZ_FP_MODULUS[5] >> 11) + 2), 0.0);
}

TGT static inline void g_red(cz__fp_x4 *r)
{
    const __m256d E = _mm256_set1_pd(0x1p52);
    const __m256i EI = _mm256_castpd_si256(E);
    __m256i v7 = _mm256_load_si256((const __m256i *)r->l[7]);
    /* v7 < 2^52 as a double: its bits under 2^52's exponent are 2^52 + v7 */
    __m256d d7 = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(v7, EI)), E);
    __m256d q = _mm256_floor_pd(_mm256_mul_pd(d7, _mm256_set1_pd(KR.inv_lane)));
    __m256i t[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        /* q·p_k < 2^52: its bits under 2^52's exponent, less the exponent */
        __m256i qp = _mm256_sub_epi64(
            _mm256_castpd_si256(_mm256_fmadd_pd(q, _mm256_set1_pd(KR.p48[k]), E)), EI);
        t[k] = _mm256_sub_epi64(k == 7 ? v7 : _mm256_load_si256((const __m256i *)r->l[k]), qp);
    }
    g_norm(r, t);
}

static inline void s_red(cz_fp *x)
{
    uint64_t q = (uint64_t)floor((double)(x->l[5] >> 11) * KR.inv_mulx), c = 0, b = 0;
    for (int k = 0; k < 6; k++) {
        unsigned __int128 m = (unsigned __int128)q * CZ_FP_MODULUS[k] + c;
        c = (uint64_t)(m >> 64);
        uint64_t lo = (uint64_t)m, v = x->l[k];
        uint64_t d = v - lo - b;
        b = (v < lo) | ((v - lo) < b);
        x->l[k] = d;
    }
}

/* r (under 2^384) into [0, 2p), as above. */
TGT static void w_red(f16 *r)
{
    for (int g = 0; g < NG; g++) g_red(&r->g[g]);
    for (int j = 0; j < NS; j++) s_red(&r->s[j]);
}

bool cz__msm_x16_red(uint64_t (*v)[6])
{
    if (!cz__fp_x4_supported()) return false;
    _Alignas(64) f16 a;
    for (unsigned l = 0; l < NL; l++) {
        if (l < 4 * NG) {
            uint64_t o[8];
            cz__fp_to48(o, v[l]);
            for (int k = 0; k < 8; k++) a.g[l / 4].l[k][l % 4] = o[k];
        } else {
            memcpy(a.s[l - 4 * NG].l, v[l], 48);
        }
    }
    w_red(&a);
    for (unsigned l = 0; l < NL; l++) {
        if (l < 4 * NG) {
            uint64_t o[8];
            for (int k = 0; k < 8; k++) o[k] = a.g[l / 4].l[k][l % 4];
            cz__fp_from48(v[l], o);
        } else {
            memcpy(v[l], a.s[l - 4 * NG].l, 48);
        }
    }
    return true;
}

/* The NL values of a (under 2p, lanes normalised) made canonical and
 * written to v[l]: the lanes reduced in place (g_csub: a is dead after),
 * joined back into 64-bit limbs four values at a time and transposed in
 * registers, the reverse of f16_set_all; the MULX values as f16_get. */
TGT static inline void f16_get_all(cz_fp *const v[NL], f16 *a)
{
    for (unsigned k = 0; k < NG; k++) {
        g_csub(&a->g[k], KP[K1].l48);
        const __m256i *o = (const __m256i *)a->g[k].l;
        __m256i o0 = _mm256_load_si256(o), o1 = _mm256_load_si256(o + 1), o2 = _mm256_load_si256(o + 2);
        __m256i o3 = _mm256_load_si256(o + 3), o4 = _mm256_load_si256(o + 4), o5 = _mm256_load_si256(o + 5);
        __m256i o6 = _mm256_load_si256(o + 6), o7 = _mm256_load_si256(o + 7);
        __m256i Q0 = _mm256_or_si256(o0, _mm256_slli_epi64(o1, 48));
        __m256i Q1 = _mm256_or_si256(_mm256_srli_epi64(o1, 16), _mm256_slli_epi64(o2, 32));
        __m256i Q2 = _mm256_or_si256(_mm256_srli_epi64(o2, 32), _mm256_slli_epi64(o3, 16));
        __m256i Q3 = _mm256_or_si256(o4, _mm256_slli_epi64(o5, 48));
        __m256i Q4 = _mm256_or_si256(_mm256_srli_epi64(o5, 16), _mm256_slli_epi64(o6, 32));
        __m256i Q5 = _mm256_or_si256(_mm256_srli_epi64(o6, 32), _mm256_slli_epi64(o7, 16));
        /* Q_j holds limb j of values 0..3: transpose 4 × 4 (limbs 0..3) */
        __m256i t0 = _mm256_unpacklo_epi64(Q0, Q1), t1 = _mm256_unpackhi_epi64(Q0, Q1);
        __m256i t2 = _mm256_unpacklo_epi64(Q2, Q3), t3 = _mm256_unpackhi_epi64(Q2, Q3);
        __m256i u0 = _mm256_unpacklo_epi64(Q4, Q5), u1 = _mm256_unpackhi_epi64(Q4, Q5);
        _mm256_storeu_si256((__m256i *)v[4 * k]->l, _mm256_permute2x128_si256(t0, t2, 0x20));
        _mm256_storeu_si256((__m256i *)v[4 * k + 1]->l, _mm256_permute2x128_si256(t1, t3, 0x20));
        _mm256_storeu_si256((__m256i *)v[4 * k + 2]->l, _mm256_permute2x128_si256(t0, t2, 0x31));
        _mm256_storeu_si256((__m256i *)v[4 * k + 3]->l, _mm256_permute2x128_si256(t1, t3, 0x31));
        _mm_storeu_si128((__m128i *)(v[4 * k]->l + 4), _mm256_castsi256_si128(u0));
        _mm_storeu_si128((__m128i *)(v[4 * k + 1]->l + 4), _mm256_castsi256_si128(u1));
        _mm_storeu_si128((__m128i *)(v[4 * k + 2]->l + 4), _mm256_extracti128_si256(u0, 1));
        _mm_storeu_si128((__m128i *)(v[4 * k + 3]->l + 4), _mm256_extracti128_si256(u1, 1));
    }
    for (unsigned l = 4 * NG; l < NL; l++) f16_get(v[l], a, l);
}

/* Montgomery's batch inversion, NL chains side by side: for fac[g]
 * under F·p (F < 4; raw lanes allowed), pre[g] = 1/fac[g] for g < G, in
 * one scalar inversion. pre holds G + 1 values: the prefix products
 * pre[g] = fac[0]···fac[g−1] are built in it first, then walked down.
 * Bounds: the prefix products and the running inverse stay under B =
 * 1/(1 − 0.102·F) (each step < 0.102·B·F + 1), the results under 0.102·B²
 * + 1 (F = 3: 1.44p and 1.21p). Inlined: called out of line, the G1
 * MSM measured ~3 % slower on the Zen 4 (where its loops sat). */
static inline __attribute__((always_inline)) void f16_batch_inv(f16 *pre, const f16 *fac, unsigned G)
{
    for (unsigned l = 0; l < NL; l++) f16_set(&pre[0], l, &CZ_FP_ONE);
    for (unsigned g = 0; g < G; g++) f16_mul(&pre[g + 1], &pre[g], &fac[g]);
    /* one inversion for the NL chains (batched in scalar) */
    cz_fp a[NL], pa[NL], inv, ti;
    for (unsigned l = 0; l < NL; l++) f16_get(&a[l], &pre[G], l);
    pa[0] = a[0];
    for (unsigned l = 1; l < NL; l++) cz_fp_mul(&pa[l], &pa[l - 1], &a[l]);
    cz_fp_inv_var(&inv, &pa[NL - 1]);
    f16 iv;
    for (unsigned l = NL - 1; l > 0; l--) {
        cz_fp_mul(&ti, &inv, &pa[l - 1]);
        cz_fp_mul(&inv, &inv, &a[l]);
        f16_set(&iv, l, &ti);
    }
    f16_set(&iv, 0, &inv);
    /* 1/fac[g] = iv·pre[g], the chain walking down */
    for (unsigned g = G; g-- > 0;) {
        f16_mul(&pre[g], &iv, &pre[g]);
        f16_mul(&iv, &iv, &fac[g]);
    }
}

/* Scratch: per group of NL the prefix product, den, num, x1, y1, x2;
 * one more prefix product (the chains' end). */
size_t cz__msm_g1_x16_scratch(unsigned cap) { return (((size_t)cap + NL - 1) / NL * 6 + 1) * sizeof(f16) + 64; }

/* Aligned to a 64-byte line, as the kernel is (fp_x4_avx2.c), so that an
 * unrelated change cannot move its loops: at offsets 32 and 48 of a line
 * this function's G1 MSM took 5–10 % longer than at 0 and 16 on the Zen 4
 * (BENCHMARKS.md, "G2 on the AVX2 + MULX lanes"). */
__attribute__((aligned(64))) void cz__msm_g1_flush_x16(cz_g1_affine *bk, const cz_msm_g1_entry *e, unsigned n, void *scratch)
{
    const unsigned G = (n + NL - 1) / NL;
    f16 *pre = (f16 *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    f16 *den = pre + G + 1, *num = den + G, *x1 = num + G, *y1 = x1 + G, *x2 = y1 + G;
    /* The work runs in phases, each a loop over the groups, so that the
     * products run back to back (G or 2G kernel calls in a row) and the
     * gathers and subtractions between them: one call per group between
     * other code evicted the ~4,200-instruction kernel from the
     * instruction caches (BENCHMARKS.md "Lanes and MULX in one stream"). Scratch is reused
     * as values die: pre[g] becomes 1/den[g], num[g] λ, den[g] λ² and
     * then y3, x2[g] x3, x1[g] x1 − x3. */
    /* gather: x1, y1, x2, den = x2 − x1, num = y2 − y1. The batch's
     * buckets and points were prefetched when they entered it, up to a
     * batch ago, and have left L1 since: the next group's lines are
     * fetched while this group is repacked. */
    for (unsigned g = 0; g < G; g++) {
        f16 y2;
        for (unsigned l = 0, i = NL * (g + 1); l < NL && i < n; l++, i++) {
            const char *bq = (const char *)&bk[e[i].b], *pq = (const char *)e[i].p;
            __builtin_prefetch(bq);
            __builtin_prefetch(bq + sizeof(cz_g1_affine) - 1);
            __builtin_prefetch(pq);
            __builtin_prefetch(pq + sizeof(cz_g1_affine) - 1);
        }
        const cz_fp *vx1[NL], *vy1[NL], *vx2[NL], *vy2[NL];
        cz_fp ny[NL];
        for (unsigned l = 0; l < NL; l++) {
            unsigned i = NL * g + l;
            const cz_msm_g1_entry *ei = &e[i < n ? i : 0];
            const cz_g1_affine *b = &bk[ei->b], *p = ei->p;
            vx1[l] = &b->x;
            vy1[l] = &b->y;
            vx2[l] = &p->x;
            vy2[l] = &p->y;
            if (i < n && ei->neg) {
                cz_fp_neg(&ny[l], &p->y);
                vy2[l] = &ny[l];
            }
        }
        f16_set_all(&x1[g], vx1);
        f16_set_all(&y1[g], vy1);
        f16_set_all(&x2[g], vx2);
        f16_set_all(&y2, vy2);
        /* raw: they only feed products */
        w_sub_raw(&den[g], &x2[g], &x1[g], K2);
        w_sub_raw(&num[g], &y2, &y1[g], K2);
        for (unsigned l = 0; l < NL; l++) {
            unsigned i = NL * g + l;
            if (i >= n) { /* padding: den = 1 keeps the chain invertible */
                f16_set(&den[g], l, &CZ_FP_ONE);
            } else if (e[i].dbl) { /* P = B: den = 2·y1, num = 3·x1², in scalar */
                const cz_g1_affine *b = &bk[e[i].b];
                cz_fp d, s, t;
                cz_fp_dbl(&d, &b->y);
                cz_fp_sqr(&t, &b->x);
                cz_fp_dbl(&s, &t);
                cz_fp_add(&s, &s, &t);
                f16_set(&den[g], l, &d);
                f16_set(&num[g], l, &s);
            }
        }
    }
    /* 1/den[g] into pre[g] (< 1.21p) */
    f16_batch_inv(pre, den, G);
    /* λ = num/den, then λ² in a loop of its own: the two blocks would
     * evict each other from the instruction caches call by call */
    for (unsigned g = 0; g < G; g++) f16_mul(&num[g], &num[g], &pre[g]);
    for (unsigned g = 0; g < G; g++) f16_sqr(&den[g], &num[g]);
    /* x3 = λ² − x1 − x2 (λ² < 1.2p: λ < 0.102·3·1.21 + 1 < 1.37p) in one
     * normalisation, then under 2p (the store makes it canonical); x1 − x3
     * + 4p, raw: it only feeds the product (4p: its top limb is above
     * x3's, which w_sub_raw needs) */
    for (unsigned g = 0; g < G; g++) {
        w_lin(&x2[g], &den[g], NULL, &x1[g], &x2[g], K2); /* (0, 3.2p) */
        w_csub(&x2[g], K2);                             /* [0, 2p) */
        w_sub_raw(&x1[g], &x1[g], &x2[g], K4);          /* (2p, 5p) */
    }
    /* y3 = λ(x1 − x3) < (0.102·1.37·5 + 1)p < 1.7p */
    for (unsigned g = 0; g < G; g++) f16_mul(&den[g], &num[g], &x1[g]);
    /* y3 − y1, and both coordinates back to the buckets */
    for (unsigned g = 0; g < G; g++) {
        w_sub(&den[g], &den[g], &y1[g], K1); /* (0, 2.7p) */
        w_csub(&den[g], K2);                 /* [0, 2p): the store makes it canonical */
        /* the next group's buckets, for writing: at c = 16 (3 MB of
         * buckets a task) their lines have left L1 and L2 since the
         * gather, and the stores stalled on them (G1 2^16 with tables, 2
         * threads: ~1 % of the MSM) */
        for (unsigned l = 0, i = NL * (g + 1); l < NL && i < n; l++, i++) {
            const char *bq = (const char *)&bk[e[i].b];
            __builtin_prefetch(bq, 1);
            __builtin_prefetch(bq + sizeof(cz_g1_affine) - 1, 1);
        }
        cz_fp pad[2], *vx[NL], *vy[NL];
        for (unsigned l = 0, i = NL * g; l < NL; l++, i++) {
            cz_g1_affine *b = i < n ? &bk[e[i].b] : NULL;
            vx[l] = b ? &b->x : &pad[0];
            vy[l] = b ? &b->y : &pad[1];
        }
        f16_get_all(vx, &x2[g]);
        f16_get_all(vy, &den[g]);
    }
}

/* ---- G2 ---------------------------------------------------------------
 *
 * Fp2 coordinates as two NL-value sets (c0 and c1), in the same
 * phases as G1's flush, and the batch inversion over the Fp norms N =
 * den0² + den1² with 1/den = conj(den)/N, as the scalar and IFMA flushes
 * do: 15 products an addition (the norm 2, which are squares, its chain 1,
 * the walk down 2, den/N 2, λ 3, λ² 2, λ(x1 − x3) 3), each NL at a time
 * in the AVX2 + MULX kernel or its squaring twin.
 *
 * Bounds. Unlike G1's (its den and num aside), every operation here
 * treats the MULX values as the lanes are treated: plain integers under a
 * bound, written at each step as a multiple of p. A sum or a difference is not reduced;
 * w_red (one subtraction of an estimated multiple of p) brings a value
 * back under 2p where the next step needs it, and only the stored
 * coordinates must end under 2p (the store makes them canonical). Five
 * w_red a group replaced ten conditional subtractions (w_csub of 8p, 4p,
 * 2p): 0.974–0.979× the G2 flush's time (tools/flush-ab.sh, BENCHMARKS.md
 * "Store forwarding in the AVX2 flush"). This takes the kernel
 * past the < 2p of its contract, which is safe as far as these bounds go
 * (test_ff's fp_x4_wide_operands checks each kind against GMP):
 *  - a product of a < A·p and b < B·p is < (0.102·A·B + 1)·p (p <
 *    0.102·2^384), so any A·B < 87 stays under 2^384, the six limbs of
 *    a MULX value and the eight of a lane; a MULX row adds a·b_i + q·p
 *    to an accumulator under a + p, which fits its seven limbs while
 *    a + p < 2^384: A < 8.8 for the first operand (all here are < 6.6);
 *  - a lane operand's limbs may be up to 2^49.6 on one side and 2^49 on
 *    the other: the FMA split (fp_x4_avx2.c) is exact for limb products
 *    below 2^99. So a sum that only feeds a product is left raw (its
 *    limbs added, not carried: w_add_raw), and so is a difference whose
 *    constant is written with every limb but the top one at or above 2^48
 *    (w_sub_raw), which needs the subtrahend's top limb under the
 *    constant's (a bound with margin).
 * Every other value has normalised lane limbs (g_norm).
 */

static inline void f2_16_set(f16 *c0, f16 *c1, unsigned l, const cz_fp2 *x)
{
    f16_set(c0, l, &x->c0);
    f16_set(c1, l, &x->c1);
}

/* Scratch: per group of NL the norm, den, num, x1, y1, x2 (two sets
 * each but the norm); G + 1 prefix products. */
size_t cz__msm_g2_x16_scratch(unsigned cap) { return (((size_t)cap + NL - 1) / NL * 12 + 1) * sizeof(f16) + 64; }

/* Aligned as G1's flush is, for the same reason. */
__attribute__((aligned(64))) void cz__msm_g2_flush_x16(cz_g2_affine *bk, const cz_msm_g2_entry *e, unsigned n, void *scratch)
{
    const unsigned G = (n + NL - 1) / NL;
    f16 *pre = (f16 *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    f16 *nr = pre + G + 1, *d0 = nr + G, *d1 = d0 + G, *n0 = d1 + G, *n1 = n0 + G;
    f16 *x10 = n1 + G, *x11 = x10 + G, *y10 = x11 + G, *y11 = y10 + G, *x20 = y11 + G, *x21 = x20 + G;
    /* Scratch is reused as values die (each phase says what it writes
     * where); each value's bound is in its comment, in units of p. */

    /* gather: x1, y1, x2 (canonical), den = x2 − x1 + p, num = y2 − y1 + p
     * (< 2); the next group's lines are fetched meanwhile (as in G1's) */
    for (unsigned g = 0; g < G; g++) {
        f16 y20, y21;
        for (unsigned l = 0, i = NL * (g + 1); l < NL && i < n; l++, i++) {
            const char *bq = (const char *)&bk[e[i].b], *pq = (const char *)e[i].p;
            for (unsigned o = 0; o < sizeof(cz_g2_affine); o += 64) {
                __builtin_prefetch(bq + o);
                __builtin_prefetch(pq + o);
            }
        }
        const cz_fp *v[8][NL];
        cz_fp2 ny[NL];
        for (unsigned l = 0; l < NL; l++) {
            unsigned i = NL * g + l;
            const cz_msm_g2_entry *ei = &e[i < n ? i : 0];
            const cz_g2_affine *b = &bk[ei->b], *p = ei->p;
            const cz_fp2 *y2 = &p->y;
            if (i < n && ei->neg) {
                cz_fp2_neg(&ny[l], &p->y);
                y2 = &ny[l];
            }
            v[0][l] = &b->x.c0, v[1][l] = &b->x.c1, v[2][l] = &b->y.c0, v[3][l] = &b->y.c1;
            v[4][l] = &p->x.c0, v[5][l] = &p->x.c1, v[6][l] = &y2->c0, v[7][l] = &y2->c1;
        }
        f16_set_all(&x10[g], v[0]);
        f16_set_all(&x11[g], v[1]);
        f16_set_all(&y10[g], v[2]);
        f16_set_all(&y11[g], v[3]);
        f16_set_all(&x20[g], v[4]);
        f16_set_all(&x21[g], v[5]);
        f16_set_all(&y20, v[6]);
        f16_set_all(&y21, v[7]);
        w_sub(&d0[g], &x20[g], &x10[g], K1);
        w_sub(&d1[g], &x21[g], &x11[g], K1);
        w_sub(&n0[g], &y20, &y10[g], K1);
        w_sub(&n1[g], &y21, &y11[g], K1);
        for (unsigned l = 0; l < NL; l++) {
            unsigned i = NL * g + l;
            if (i >= n) { /* padding: den = 1 keeps the chain invertible */
                static const cz_fp zero;
                f16_set(&d0[g], l, &CZ_FP_ONE);
                f16_set(&d1[g], l, &zero);
            } else if (e[i].dbl) { /* P = B: den = 2·y1, num = 3·x1², in scalar */
                const cz_g2_affine *b = &bk[e[i].b];
                cz_fp2 d, s, t;
                cz_fp2_dbl(&d, &b->y);
                cz_fp2_sqr(&t, &b->x);
                cz_fp2_dbl(&s, &t);
                cz_fp2_add(&s, &s, &t);
                f2_16_set(&d0[g], &d1[g], l, &d);
                f2_16_set(&n0[g], &n1[g], l, &s);
            }
        }
    }
    /* norms N = den0² + den1² (squares < 1.41, raw N < 2.82): den1² waits
     * in pre[g + 1], which the chain writes only after */
    for (unsigned g = 0; g < G; g++) {
        f16_sqr(&nr[g], &d0[g]);
        f16_sqr(&pre[g + 1], &d1[g]);
    }
    for (unsigned g = 0; g < G; g++) w_add_raw(&nr[g], &nr[g], &pre[g + 1]);
    /* 1/N_g into pre[g] (< 1.2p) */
    f16_batch_inv(pre, nr, G);
    /* 1/den = a − b·u with a = den0/N, b = den1/N, into d0, d1 (< 1.26) */
    for (unsigned g = 0; g < G; g++) {
        f16_mul(&d0[g], &d0[g], &pre[g]);
        f16_mul(&d1[g], &d1[g], &pre[g]);
    }
    /* λ = num·(a − b·u) = (n0·a + n1·b) + (n1·a − n0·b)·u, by Karatsuba:
     * t0 = n0·a, t1 = n1·b, t2 = (n0 + n1)(a − b); λ0 = t0 + t1, λ1 = t2 −
     * t0 + t1. The factors, raw: n0 + n1 (< 4) in nr, a − b + 2p (< 3.26)
     * in pre. */
    for (unsigned g = 0; g < G; g++) {
        w_add_raw(&nr[g], &n0[g], &n1[g]);
        w_sub_raw(&pre[g], &d0[g], &d1[g], K2);
    }
    for (unsigned g = 0; g < G; g++) {
        f16_mul(&pre[g], &nr[g], &pre[g]); /* t2 < 0.102·4·3.26 + 1 < 2.34 */
        f16_mul(&nr[g], &n0[g], &d0[g]);   /* t0 < 1.26 */
        f16_mul(&d0[g], &n1[g], &d1[g]);   /* t1 < 1.26 */
    }
    for (unsigned g = 0; g < G; g++) {
        w_add(&n0[g], &nr[g], &d0[g]);                  /* λ0 < 2.52 */
        w_lin(&n1[g], &pre[g], &d0[g], &nr[g], NULL, K2); /* λ1 < 5.6 */
        w_red(&n1[g]);                                    /* < 2 */
    }
    /* λ² = (λ0 + λ1)(λ0 − λ1) + 2·λ0·λ1·u: the factors, raw, in d0 (< 4.52)
     * and d1 (λ0 − λ1 + 4p < 6.52) */
    for (unsigned g = 0; g < G; g++) {
        w_add_raw(&d0[g], &n0[g], &n1[g]);
        w_sub_raw(&d1[g], &n0[g], &n1[g], K4);
    }
    for (unsigned g = 0; g < G; g++) {
        f16_mul(&nr[g], &d0[g], &d1[g]);  /* < 0.102·4.52·6.52 + 1 < 4.01 */
        f16_mul(&pre[g], &n0[g], &n1[g]); /* < 1.52 */
    }
    /* x3 = λ² − x1 − x2 (< 2) into x2; x1 − x3 + 2p (< 3) into x1 */
    for (unsigned g = 0; g < G; g++) {
        w_lin(&x20[g], &nr[g], NULL, &x10[g], &x20[g], K2);    /* < 6.01 */
        w_red(&x20[g]);                                         /* < 2 */
        w_lin(&x21[g], &pre[g], &pre[g], &x11[g], &x21[g], K2); /* < 5.04 */
        w_red(&x21[g]);
        w_sub(&x10[g], &x10[g], &x20[g], K2);
        w_sub(&x11[g], &x11[g], &x21[g], K2);
    }
    /* y = λ·(x1 − x3) by Karatsuba: t0 = λ0·s0, t1 = λ1·s1, t2 = (λ0 +
     * λ1)(s0 + s1), the sums raw in d0 (< 4.52) and d1 (< 6) */
    for (unsigned g = 0; g < G; g++) {
        w_add_raw(&d0[g], &n0[g], &n1[g]);
        w_add_raw(&d1[g], &x10[g], &x11[g]);
    }
    for (unsigned g = 0; g < G; g++) {
        f16_mul(&nr[g], &d0[g], &d1[g]);   /* t2 < 0.102·4.52·6 + 1 < 3.77 */
        f16_mul(&pre[g], &n0[g], &x10[g]); /* t0 < 1.77 */
        f16_mul(&d0[g], &n1[g], &x11[g]);  /* t1 < 1.62 */
    }
    /* y3 = y − y1 = (t0 − t1 − y1) + (t2 − t0 − t1 − y1)·u, each under 2p
     * for the store (which makes it canonical), and both coordinates back
     * to the buckets */
    for (unsigned g = 0; g < G; g++) {
        w_lin(&d1[g], &pre[g], NULL, &d0[g], &y10[g], K4); /* < 5.77 */
        w_red(&d1[g]);                                     /* < 2 */
        w_lin(&nr[g], &nr[g], NULL, &pre[g], &d0[g], K4); /* < 7.77 */
        w_sub(&nr[g], &nr[g], &y11[g], K1);               /* < 8.77 */
        w_red(&nr[g]);
        /* the next group's buckets, for writing, as in G1's (G2 2^16
         * with tables, 2 threads: ~2 % of the MSM) */
        for (unsigned l = 0, i = NL * (g + 1); l < NL && i < n; l++, i++) {
            const char *bq = (const char *)&bk[e[i].b];
            for (unsigned o = 0; o < sizeof(cz_g2_affine); o += 64) __builtin_prefetch(bq + o, 1);
            __builtin_prefetch(bq + sizeof(cz_g2_affine) - 1, 1);
        }
        cz_fp pad[4], *v[4][NL];
        for (unsigned l = 0, i = NL * g; l < NL; l++, i++) {
            cz_g2_affine *b = i < n ? &bk[e[i].b] : NULL;
            v[0][l] = b ? &b->x.c0 : &pad[0];
            v[1][l] = b ? &b->x.c1 : &pad[1];
            v[2][l] = b ? &b->y.c0 : &pad[2];
            v[3][l] = b ? &b->y.c1 : &pad[3];
        }
        f16_get_all(v[0], &x20[g]);
        f16_get_all(v[1], &x21[g]);
        f16_get_all(v[2], &d1[g]);
        f16_get_all(v[3], &nr[g]);
    }
}

/* ---- calibration (cz__msm_x16_time_ratio) ------------------------------
 *
 * Why measure instead of deciding from the CPU's name: the kernel counts on
 * the integer multiplier and the vector pipes running side by side, and
 * whether they do depends on the core. On the AMD Zen 4 development machine
 * the hybrid products took ~0.69x the time of as many MULX products (0.49x
 * on a later VM) and the G1 MSM ~0.8x; on an Intel Xeon (Sapphire Rapids, IFMA ruled out)
 * the kernel read 0.74x or ~1.05x, as the host loaded the sibling
 * hyperthread, and the MSM gained nothing either way; a core whose
 * micro-op cache is smaller than the kernel may lose more. Each side is
 * timed on independent products (as the flush's phases run them): REPS
 * passes of KCAL calls of the kernel, or of KCAL·NL MULX products, over
 * the same values (~0.3 ms a side); the sides
 * alternate ROUNDS times after one round that is not counted, and each
 * keeps its fastest round, so that a preemption during one round does not
 * decide. About 6 ms in all, once per process that runs an MSM. */
#define KCAL 8
#define ROUNDS 9
#define REPS 64

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double cz__msm_x16_time_ratio(void)
{
    if (!cz__fp_x4_supported()) return -1;
    /* the buffers are the call's own: MSMs on several threads may
     * re-check at once (cz__msm_lanes_begin) */
    typedef struct {
        f16 a[KCAL], b[KCAL], r[KCAL];
        cz_fp sa[KCAL * NL], sb[KCAL * NL], sr[KCAL * NL];
    } cal_bufs;
    cal_bufs *cb = aligned_alloc(64, (sizeof(cal_bufs) + 63) & ~(size_t)63);
    if (!cb) return -1;
    f16 *a = cb->a, *b = cb->b, *r = cb->r;
    cz_fp *sa = cb->sa, *sb = cb->sb, *sr = cb->sr;
    /* canonical values that are not small: x·R chains from two seeds */
    cz_fp x = CZ_FP_ONE, y = CZ_FP_ONE;
    cz_fp_add(&y, &y, &y);
    for (unsigned i = 0; i < KCAL * NL; i++) {
        cz_fp_mul(&x, &x, &y);
        cz_fp_add(&y, &y, &x);
        sa[i] = x;
        sb[i] = y;
        f16_set(&a[i / NL], i % NL, &x);
        f16_set(&b[i / NL], i % NL, &y);
    }
    double best_v = 1e300, best_s = 1e300;
    for (int round = 0; round <= ROUNDS; round++) {
        double t0 = now_ns();
        for (int rep = 0; rep < REPS; rep++)
            for (unsigned k = 0; k < KCAL; k++) f16_mul(&r[k], &a[k], &b[k]);
        double t1 = now_ns();
        for (int rep = 0; rep < REPS; rep++)
            for (unsigned i = 0; i < KCAL * NL; i++) cz_fp_mul(&sr[i], &sa[i], &sb[i]);
        double t2 = now_ns();
        if (round == 0) continue; /* caches and frequency settle */
        if (t1 - t0 < best_v) best_v = t1 - t0;
        if (t2 - t1 < best_s) best_s = t2 - t1;
    }
    /* the results must be used, or the scalar loop could go */
    volatile uint64_t sink = r[KCAL - 1].s[0].l[0] ^ sr[KCAL * NL - 1].l[0];
    (void)sink;
    free(cb);
    return best_s > 0 ? best_v / best_s : -1;
}

#else /* !CZ_MSM_HAVE_X16 */

double cz__msm_x16_time_ratio(void) { return -1; }

bool cz__msm_x16_supported(void) { return false; }
bool cz__msm_x16_red(uint64_t (*v)[6])
{
    (void)v;
    return false;
}
size_t cz__msm_g1_x16_scratch(unsigned cap)
{
    (void)cap;
    return 0;
}
void cz__msm_g1_flush_x16(cz_g1_affine *bk, const cz_msm_g1_entry *e, unsigned n, void *scratch)
{
    (void)bk, (void)e, (void)n, (void)scratch;
}
size_t cz__msm_g2_x16_scratch(unsigned cap)
{
    (void)cap;
    return 0;
}
void cz__msm_g2_flush_x16(cz_g2_affine *bk, const cz_msm_g2_entry *e, unsigned n, void *scratch)
{
    (void)bk, (void)e, (void)n, (void)scratch;
}

#endif
