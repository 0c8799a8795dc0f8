/*
 * Batch-affine G1 bucket additions sixteen at a time, eight on AVX2 + FMA
 * lanes and eight on MULX/ADX in one instruction stream (ff/fp_x4.h), for
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
 * eight lane products with eight MULX products finishes sixteen products
 * in ~0.7× the time of sixteen MULX products, and only half the values
 * are repacked. The block is ~4,200 instructions (28 KB), near what the
 * instruction caches hold: called once per group between the gathers and
 * subtractions it was evicted each time (~20 ns a product in place
 * against 15 alone, and the flush no faster than MULX), so the flush runs
 * in phases, each a loop over all groups, and the kernel calls come back
 * to back.
 *
 * How: the batch-affine addition is six Fp products and a few
 * subtractions. As the IFMA flush (msm_x8.c) does with eight lanes, the
 * batch is computed sixteen additions at a time: value l of group g is
 * entry 16g + l (l < 8 in the lanes, the rest as six-limb elements), the
 * prefix products of the batched inversion run as sixteen interleaved
 * chains, one scalar inversion serves them all, and λ, x3, y3 and the
 * subtractions around them are computed value by value in their form.
 *
 * Lane values are the lane form of fp_x4.h (eight 48-bit limbs, R =
 * 2^384), lazily in [0, 2p) where they feed a product (the kernel's
 * contract: both operands < 2p); x3 and y3 are made canonical before they
 * go back to the buckets, whose x the scalar code compares limb by limb.
 * den = x2 − x1 + p and num = y2 − y1 + p are in (0, 2p);
 * λ² − x1 − x2 + 2p is in (0, 4p), which two conditional subtractions
 * (2p, then p) make canonical (x1 − x3 needs it in the lanes);
 * λ(x1 − x3 + p) − y1 + p is in (0, 3p): one subtraction of 2p, and the
 * store's own reduction (cz__fp_x16_get) does the last. The MULX values
 * are products < 2p or canonical: a subtraction reduces its first operand
 * once (its second is always canonical) and leaves a canonical result.
 */
#include "msm_internal.h"

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

/* Sixteen Fp values: value l < 4·NG is lane l % 4 of g[l / 4], the rest
 * s[l - 4·NG]. */
typedef cz__fp_x16 f16;

/* Radix-2^48 constants (from CZ_FP_MODULUS, CZ_FP_ONE). */
static uint64_t P48[8], P2_48[8];

__attribute__((constructor)) static void x16_init(void)
{
    cz__fp_x4 t;
    cz_fp p, p2;
    uint64_t c = 0;
    memcpy(p.l, CZ_FP_MODULUS, sizeof p.l);
    for (int i = 0; i < 6; i++) {
        uint64_t v = CZ_FP_MODULUS[i];
        p2.l[i] = (v << 1) | c;
        c = v >> 63;
    }
    /* set_lane only repacks the limbs: p and 2p themselves go through */
    cz__fp_x4_set_lane(&t, 0, &p);
    for (int k = 0; k < 8; k++) P48[k] = t.l[k][0];
    cz__fp_x4_set_lane(&t, 0, &p2);
    for (int k = 0; k < 8; k++) P2_48[k] = t.l[k][0];
}

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

/* Lanes: r = a − b + K (K: a multiple of p in radix 2^48, large enough
 * that the result is non-negative). MULX values: r = a − b mod p,
 * canonical; b canonical, a canonical or, when lazy, < 2p (a product). */
TGT static void f16_sub(f16 *r, const f16 *a, const f16 *b, const uint64_t K[8], bool lazy)
{
    for (int g = 0; g < NG; g++) {
        __m256i t[8];
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++)
            t[k] = _mm256_sub_epi64(
                _mm256_add_epi64(_mm256_load_si256((const __m256i *)a->g[g].l[k]),
                                 _mm256_set1_epi64x((long long)K[k])),
                _mm256_load_si256((const __m256i *)b->g[g].l[k]));
        g_norm(&r->g[g], t);
    }
    for (int j = 0; j < NS; j++) {
        cz_fp t;
        if (lazy) cz__fp_reduce_once(&t, a->s[j].l);
        else t = a->s[j];
        /* inline: the out-of-line cz_fp_sub was ~5 % of the MSM's time */
        cz_mont_sub(r->s[j].l, t.l, b->s[j].l, CZ_FP_MODULUS, 6);
    }
}

/* r = r − K where r >= K, lane by lane (the MULX values are canonical
 * where this is asked). */
TGT static void f16_csub(f16 *r, const uint64_t K[8])
{
    for (int g = 0; g < NG; g++) {
        __m256i t[8], v[8];
        cz__fp_x4 w;
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++) {
            v[k] = _mm256_load_si256((const __m256i *)r->g[g].l[k]);
            t[k] = _mm256_sub_epi64(v[k], _mm256_set1_epi64x((long long)K[k]));
        }
        g_norm(&w, t);
        /* keep r where r − K is negative (its top limb is) */
        __m256i keep = _mm256_cmpgt_epi64(_mm256_setzero_si256(), _mm256_load_si256((const __m256i *)w.l[7]));
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++)
            _mm256_store_si256((__m256i *)r->g[g].l[k],
                               _mm256_blendv_epi8(_mm256_load_si256((const __m256i *)w.l[k]), v[k], keep));
    }
}

static void f16_mul(f16 *r, const f16 *a, const f16 *b) { cz__fp_x16_mul(r, a, b); }

static inline void f16_set(f16 *a, unsigned l, const cz_fp *x) { cz__fp_x16_set(a, l, x); }
static inline void f16_get(cz_fp *x, const f16 *a, unsigned l) { cz__fp_x16_get(x, a, l); }

/* Scratch: per group of sixteen the prefix product, den, num, x1, y1, x2;
 * one more prefix product (the chains' end). */
size_t cz__msm_g1_x16_scratch(unsigned cap) { return (((size_t)cap + NL - 1) / NL * 6 + 1) * sizeof(f16) + 64; }

void cz__msm_g1_flush_x16(cz_g1_affine *bk, const cz_msm_g1_entry *e, unsigned n, void *scratch)
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
    for (unsigned l = 0; l < NL; l++) f16_set(&pre[0], l, &CZ_FP_ONE);

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
        for (unsigned l = 0; l < NL; l++) {
            unsigned i = NL * g + l;
            const cz_msm_g1_entry *ei = &e[i < n ? i : 0];
            const cz_g1_affine *b = &bk[ei->b], *p = ei->p;
            cz_fp ny;
            f16_set(&x1[g], l, &b->x);
            f16_set(&y1[g], l, &b->y);
            f16_set(&x2[g], l, &p->x);
            if (i < n && ei->neg) cz_fp_neg(&ny, &p->y);
            else ny = p->y;
            f16_set(&y2, l, &ny);
        }
        f16_sub(&den[g], &x2[g], &x1[g], P48, false);
        f16_sub(&num[g], &y2, &y1[g], P48, false);
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
    /* the sixteen prefix-product chains (< 2p): pre[g] = den[0]···den[g-1] */
    for (unsigned g = 0; g < G; g++) f16_mul(&pre[g + 1], &pre[g], &den[g]);

    /* one inversion for the sixteen chains (batched in scalar) */
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

    /* 1/den[g] = iv·pre[g], the chain walking down */
    for (unsigned g = G; g-- > 0;) {
        f16_mul(&pre[g], &iv, &pre[g]);
        f16_mul(&iv, &iv, &den[g]);
    }
    /* λ = num/den, λ² */
    for (unsigned g = 0; g < G; g++) {
        f16_mul(&num[g], &num[g], &pre[g]);
        f16_mul(&den[g], &num[g], &num[g]);
    }
    /* x3 = λ² − x1 − x2 (canonical in the lanes too), x1 − x3 */
    for (unsigned g = 0; g < G; g++) {
        f16 t;
        f16_sub(&t, &den[g], &x1[g], P48, true);    /* (0, 3p) */
        f16_sub(&x2[g], &t, &x2[g], P48, false);    /* (0, 4p) */
        f16_csub(&x2[g], P2_48);
        f16_csub(&x2[g], P48);
        f16_sub(&x1[g], &x1[g], &x2[g], P48, false); /* (0, 2p) */
    }
    /* y3 = λ(x1 − x3) */
    for (unsigned g = 0; g < G; g++) f16_mul(&den[g], &num[g], &x1[g]);
    /* y3 − y1, and both coordinates back to the buckets */
    for (unsigned g = 0; g < G; g++) {
        f16_sub(&den[g], &den[g], &y1[g], P48, true); /* (0, 3p) */
        f16_csub(&den[g], P2_48);                     /* (0, 2p): the store makes it canonical */
        for (unsigned l = 0; l < NL; l++) {
            unsigned i = NL * g + l;
            if (i >= n) break;
            cz_g1_affine *b = &bk[e[i].b];
            f16_get(&b->x, &x2[g], l);
            f16_get(&b->y, &den[g], l);
        }
    }
}

/* ---- calibration (cz__msm_x16_time_ratio) ------------------------------
 *
 * Why measure instead of deciding from the CPU's name: the kernel counts on
 * the integer multiplier and the vector pipes running side by side, and
 * whether they do depends on the core. On the AMD Zen 4 development machine
 * sixteen hybrid products take ~0.69x the time of sixteen MULX products and
 * the G1 MSM ~0.8x; on an Intel Xeon (Sapphire Rapids, IFMA ruled out)
 * the kernel read 0.74x or ~1.05x, as the host loaded the sibling
 * hyperthread, and the MSM gained nothing either way; a core whose
 * micro-op cache is smaller than the kernel may lose more. Each side is
 * timed on independent products (as the flush's phases run them): REPS
 * passes of KCAL calls of the kernel, or of KCAL·16 MULX products, over
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
    static f16 a[KCAL], b[KCAL], r[KCAL];
    static cz_fp sa[KCAL * NL], sb[KCAL * NL], sr[KCAL * NL];
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
    return best_s > 0 ? best_v / best_s : -1;
}

#else /* !CZ_MSM_HAVE_X16 */

double cz__msm_x16_time_ratio(void) { return -1; }

bool cz__msm_x16_supported(void) { return false; }
size_t cz__msm_g1_x16_scratch(unsigned cap)
{
    (void)cap;
    return 0;
}
void cz__msm_g1_flush_x16(cz_g1_affine *bk, const cz_msm_g1_entry *e, unsigned n, void *scratch)
{
    (void)bk, (void)e, (void)n, (void)scratch;
}

#endif
