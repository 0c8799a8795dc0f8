/*
 * The lane flushes of the MSM's batch-affine bucket additions, called
 * directly: G1 and G2, on AVX-512 IFMA lanes (msm_x8.c) and on AVX2 + MULX
 * (msm_x16.c), each where this CPU has it. A batch applies bucket[b] +=
 * ±P for distinct buckets; every result is checked against the same sum
 * in Jacobian coordinates (cz_gX_jac_add_affine, the curve code's
 * complete formulas, no batch inversion), and its coordinates limb by
 * limb, so a bucket left in a non-canonical form fails too (the MSM
 * compares bucket x's limb by limb).
 *
 * The batches hold every kind of entry the MSM hands a flush: plain
 * additions, negated points, doublings (P equal to the bucket), sizes
 * around the lane groups (1, 15, 16, 17, ...: padding in the last group)
 * up to the largest batch (CZ_MSM_MAX_BATCH), and a group whose values
 * sit where the flush's bounds are tightest: coordinates of p − 1 and
 * 0 are not curve points, so the batch takes points whose x or y is
 * small or close to p from a search over multiples of the generator.
 *
 * The MSM tests cover the flushes too, but through the planner: a G2 MSM
 * reaches a lane flush only with batches of 32 or more, which their small
 * edge cases never fill.
 */
#include "testutil.h"
#include "cuzk/curve.h"
#include "cuzk/msm.h"
#include "msm/msm_internal.h"
#include "ff/fp_x4.h" /* CZ_FP_X16_N, cz__fp_to48 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXN = CZ_MSM_MAX_BATCH };

#define DEFINE_FLUSH_CHECK(G, FE)                                                                 \
/* n entries over 2n buckets: entry i adds point i to bucket perm[i]; every                  */  \
/* fifth is negated, every seventh a doubling (its point a copy of its bucket).               */  \
static void G##_run(const char *name, void (*flush)(cz_##G##_affine *, const cz_msm_##G##_entry *, \
                                                    unsigned, void *),                            \
                    size_t (*scratch_of)(unsigned), const cz_##G##_affine *pool, size_t npool,   \
                    unsigned n)                                                                    \
{                                                                                                  \
    cz_##G##_affine *bk = malloc(2 * MAXN * sizeof *bk), *pts = malloc(MAXN * sizeof *pts);       \
    cz_##G##_affine *want = malloc(2 * MAXN * sizeof *want);                                      \
    cz_msm_##G##_entry *e = malloc(MAXN * sizeof *e);                                              \
    void *scr = malloc(scratch_of(MAXN));                                                          \
    assert_non_null(bk);                                                                           \
    assert_non_null(pts);                                                                          \
    assert_non_null(want);                                                                         \
    assert_non_null(e);                                                                            \
    assert_non_null(scr);                                                                          \
    unsigned nb = 2 * n;                                                                           \
    for (unsigned b = 0; b < nb; b++) bk[b] = pool[cz_rng_u64() % npool];                        \
    /* distinct buckets: a shuffled prefix of 0..nb-1 */                                          \
    unsigned *perm = malloc(nb * sizeof *perm);                                                    \
    assert_non_null(perm);                                                                         \
    for (unsigned b = 0; b < nb; b++) perm[b] = b;                                                 \
    for (unsigned b = nb; b > 1; b--) {                                                            \
        unsigned j = (unsigned)(cz_rng_u64() % b), t = perm[b - 1];                               \
        perm[b - 1] = perm[j];                                                                     \
        perm[j] = t;                                                                               \
    }                                                                                              \
    memcpy(want, bk, nb * sizeof *bk);                                                             \
    for (unsigned i = 0; i < n; i++) {                                                             \
        unsigned b = perm[i];                                                                      \
        e[i].b = b;                                                                                \
        e[i].neg = i % 5 == 1;                                                                     \
        e[i].dbl = i % 7 == 3;                                                                     \
        if (e[i].dbl) {                                                                            \
            /* P = B after the sign: the point is the bucket (or its negation) */                 \
            if (e[i].neg) cz_##G##_affine_neg(&pts[i], &bk[b]);                                    \
            else pts[i] = bk[b];                                                                   \
        } else {                                                                                   \
            do pts[i] = pool[cz_rng_u64() % npool];                                               \
            while (!memcmp(&pts[i].x, &bk[b].x, sizeof(FE)));                                     \
        }                                                                                          \
        e[i].p = &pts[i];                                                                          \
        cz_##G##_jac acc;                                                                          \
        cz_##G##_affine q = pts[i];                                                                \
        if (e[i].neg) cz_##G##_affine_neg(&q, &q);                                                 \
        cz_##G##_jac_from_affine(&acc, &bk[b]);                                                    \
        cz_##G##_jac_add_affine(&acc, &acc, &q);                                                   \
        cz_##G##_jac_to_affine(&want[b], &acc);                                                    \
    }                                                                                              \
    flush(bk, e, n, scr);                                                                          \
    for (unsigned b = 0; b < nb; b++)                                                              \
        if (memcmp(&bk[b].x, &want[b].x, sizeof(FE)) || memcmp(&bk[b].y, &want[b].y, sizeof(FE))) { \
            print_error("%s: n=%u bucket %u differs from the Jacobian sum\n", name, n, b);        \
            fail();                                                                                \
        }                                                                                          \
    free(perm);                                                                                    \
    free(bk);                                                                                      \
    free(pts);                                                                                     \
    free(want);                                                                                    \
    free(e);                                                                                       \
    free(scr);                                                                                     \
}                                                                                                  \
static void G##_sizes(const char *name, void (*flush)(cz_##G##_affine *, const cz_msm_##G##_entry *, \
                                                      unsigned, void *),                          \
                      size_t (*scratch_of)(unsigned), const cz_##G##_affine *pool, size_t npool) \
{                                                                                                  \
    static const unsigned sizes[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 255, 256, 257,   \
                                     MAXN - 1, MAXN};                                             \
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)                                    \
        for (int rep = 0; rep < 3; rep++) G##_run(name, flush, scratch_of, pool, npool, sizes[k]); \
}

DEFINE_FLUSH_CHECK(g1, cz_fp)
DEFINE_FLUSH_CHECK(g2, cz_fp2)

/* Random points, then points whose coordinates have extreme limbs: among
 * the multiples k·G for k < SEARCH, those with the largest and smallest
 * top limb of x and of y (for G2, of either Fp coordinate), which sit
 * nearest p and nearest 0. */
enum { NPOOL = 512, SEARCH = 4096, NEXT = 16 };

/* TOP(c, j): the top limb of coordinate c (for G2, of c0 or c1 by j) */
#define G1_TOP(c, j) ((void)(j), (c)->l[5])
#define G2_TOP(c, j) ((j) & 1 ? (c)->c1.l[5] : (c)->c0.l[5])
#define DEFINE_POOL(G, FE, TOP)                                                                   \
static void G##_pool(cz_##G##_affine *pool)                                                       \
{                                                                                                 \
    cz_##G##_jac g, p, *tmp = malloc(SEARCH * sizeof *tmp);                                      \
    cz_##G##_affine *all = malloc(SEARCH * sizeof *all);                                          \
    assert_non_null(tmp);                                                                         \
    assert_non_null(all);                                                                         \
    cz_##G##_generator_jac(&g);                                                                   \
    for (size_t i = 0; i < NPOOL - NEXT; i++) {                                                   \
        cz_fr k;                                                                                  \
        uint64_t l[4];                                                                            \
        cz_rng_fr(&k);                                                                            \
        cz_fr_to_raw(l, &k);                                                                      \
        cz_##G##_jac_mul_var(&tmp[i], &g, l, 4);                                                  \
    }                                                                                             \
    cz_##G##_batch_to_affine(pool, tmp, NPOOL - NEXT);                                            \
    p = g;                                                                                        \
    for (size_t i = 0; i < SEARCH; i++) {                                                         \
        tmp[i] = p;                                                                               \
        cz_##G##_jac_add(&p, &p, &g);                                                             \
    }                                                                                             \
    cz_##G##_batch_to_affine(all, tmp, SEARCH);                                                   \
    /* NEXT/4 each of: largest x, smallest x, largest y, smallest y (top limb) */                \
    for (int kind = 0; kind < 4; kind++)                                                          \
        for (int j = 0; j < NEXT / 4; j++) {                                                      \
            size_t best = 0;                                                                      \
            for (size_t i = 1; i < SEARCH; i++) {                                                 \
                const FE *a = kind < 2 ? &all[i].x : &all[i].y;                                   \
                const FE *b = kind < 2 ? &all[best].x : &all[best].y;                             \
                uint64_t ta = TOP(a, j), tb = TOP(b, j);                                          \
                if (kind & 1 ? ta < tb : ta > tb) best = i;                                       \
            }                                                                                     \
            pool[NPOOL - NEXT + kind * (NEXT / 4) + j] = all[best];                               \
            all[best] = all[0]; /* not picked twice (G itself takes its place) */              \
        }                                                                                         \
    free(tmp);                                                                                    \
    free(all);                                                                                    \
}

DEFINE_POOL(g1, cz_fp, G1_TOP)
DEFINE_POOL(g2, cz_fp2, G2_TOP)

static void test_flush_g1(void **state)
{
    (void)state;
    cz_g1_affine *pool = malloc(NPOOL * sizeof *pool);
    assert_non_null(pool);
    g1_pool(pool);
    int ran = 0;
    if (cz__msm_x8_supported()) {
        g1_sizes("g1 x8", cz__msm_g1_flush_x8, cz__msm_g1_x8_scratch, pool, NPOOL);
        ran++;
    }
    if (cz__msm_x16_supported()) {
        g1_sizes("g1 x16", cz__msm_g1_flush_x16, cz__msm_g1_x16_scratch, pool, NPOOL);
        ran++;
    }
    /* the extreme points alone, so that whole lane groups hold them */
    if (cz__msm_x16_supported())
        g1_sizes("g1 x16 extremes", cz__msm_g1_flush_x16, cz__msm_g1_x16_scratch, pool + NPOOL - NEXT, NEXT);
    free(pool);
    if (!ran) {
        fprintf(stderr, "test_flush_g1: no lane flush on this CPU, skipped\n");
        skip();
    }
}

static void test_flush_g2(void **state)
{
    (void)state;
    cz_g2_affine *pool = malloc(NPOOL * sizeof *pool);
    assert_non_null(pool);
    g2_pool(pool);
    int ran = 0;
    if (cz__msm_x8_supported()) {
        g2_sizes("g2 x8", cz__msm_g2_flush_x8, cz__msm_g2_x8_scratch, pool, NPOOL);
        ran++;
    }
    if (cz__msm_x16_supported()) {
        g2_sizes("g2 x16", cz__msm_g2_flush_x16, cz__msm_g2_x16_scratch, pool, NPOOL);
        g2_sizes("g2 x16 extremes", cz__msm_g2_flush_x16, cz__msm_g2_x16_scratch, pool + NPOOL - NEXT, NEXT);
        ran++;
    }
    free(pool);
    if (!ran) {
        fprintf(stderr, "test_flush_g2: no lane flush on this CPU, skipped\n");
        skip();
    }
}

/* ---- w_red: any value under 2^384 into [0, 2p), congruent mod p ---------- */

/* a − b on six limbs; returns the borrow */
static unsigned sub6(uint64_t r[6], const uint64_t a[6], const uint64_t b[6])
{
    unsigned br = 0;
    for (int k = 0; k < 6; k++) {
        uint64_t d = a[k] - b[k] - br;
        br = (a[k] < b[k]) || (a[k] - b[k] < br);
        r[k] = d;
    }
    return br;
}

/* r = a + small; returns the carry out of 2^384 */
static unsigned add6(uint64_t r[6], const uint64_t a[6], uint64_t small)
{
    uint64_t c = small;
    for (int k = 0; k < 6; k++) {
        r[k] = a[k] + c;
        c = r[k] < c;
    }
    return (unsigned)c;
}

/* r = a + p; returns the carry out of 2^384 */
static unsigned add6p(uint64_t r[6], const uint64_t a[6])
{
    unsigned c = 0;
    for (int k = 0; k < 6; k++) {
        uint64_t s = a[k] + CZ_FP_MODULUS[k];
        unsigned c1 = s < a[k];
        r[k] = s + c;
        c = c1 | (r[k] < s);
    }
    return c;
}

/* r < 2p and v − r a multiple of p (at most 10 of them: v < 2^384). */
static void check_red(const uint64_t v[6], const uint64_t r[6], const char *what, unsigned slot)
{
    uint64_t twop[6], t[6], d[6];
    assert_int_equal(sub6(twop, CZ_FP_MODULUS, (const uint64_t[6]){0}), 0);
    for (int k = 5; k > 0; k--) twop[k] = (twop[k] << 1) | (twop[k - 1] >> 63);
    twop[0] <<= 1;
    if (!sub6(t, r, twop)) fail_msg("w_red(%s), value %u: result not under 2p", what, slot);
    if (sub6(d, v, r)) fail_msg("w_red(%s), value %u: result above the input", what, slot);
    for (int m = 0; m <= 10; m++) {
        bool zero = !(d[0] | d[1] | d[2] | d[3] | d[4] | d[5]);
        if (zero) return;
        if (sub6(d, d, CZ_FP_MODULUS)) break;
    }
    fail_msg("w_red(%s), value %u: input − result is not a multiple of p", what, slot);
}

/* every slot (the lanes and the MULX values) reduces v */
static void red_case(const uint64_t v[6], const char *what)
{
    uint64_t x[CZ_FP_X16_N][6];
    for (unsigned l = 0; l < CZ_FP_X16_N; l++) memcpy(x[l], v, 48);
    assert_true(cz__msm_x16_red(x));
    for (unsigned l = 0; l < CZ_FP_X16_N; l++) check_red(v, x[l], what, l);
}

/* Where the quotient estimate is closest to wrong: k·p + δ (the true
 * quotient steps there), and tops at multiples of the divisor p_top + 2
 * with the bits below all 0 or all 1, for the lanes' top (bit 336) and the
 * MULX values' (bit 331); then 2^384 − 1 and random values. */
static void test_red(void **state)
{
    (void)state;
    uint64_t probe[CZ_FP_X16_N][6] = {{0}};
    if (!cz__msm_x16_red(probe)) {
        fprintf(stderr, "test_red: no AVX2 lanes on this CPU, skipped\n");
        skip();
    }
    uint64_t v[6], kp[6] = {0};
    for (int k = 0; k <= 9; k++) {
        for (int dl = -3; dl <= 3; dl++) {
            /* v = k·p + dl, when it lies in [0, 2^384) */
            if (dl < 0 ? sub6(v, kp, (const uint64_t[6]){(uint64_t)-dl}) : add6(v, kp, (uint64_t)dl)) continue;
            red_case(v, "k·p + δ");
        }
        uint64_t n[6];
        if (add6p(n, kp)) break; /* (k + 1)·p past 2^384 */
        memcpy(kp, n, 48);
    }
    uint64_t p48[8];
    cz__fp_to48(p48, CZ_FP_MODULUS);
    const uint64_t ptop[2] = {p48[7] + 2, (CZ_FP_MODULUS[5] >> 11) + 2};
    const unsigned shift[2] = {336, 331};
    for (int side = 0; side < 2; side++)
        for (uint64_t k = 1; k <= 10; k++)
            for (int dt = -1; dt <= 1; dt++)
                for (int low = 0; low < 2; low++) {
                    uint64_t top = k * ptop[side] + (uint64_t)(int64_t)dt;
                    unsigned sh = shift[side];
                    /* v = top·2^sh + (low ? 2^sh − 1 : 0), if under 2^384 */
                    if (sh + 64 - (unsigned)__builtin_clzll(top) > 384) continue;
                    for (int j = 0; j < 6; j++) v[j] = low ? ~(uint64_t)0 : 0;
                    unsigned w = sh / 64, b = sh % 64;
                    for (unsigned j = w; j < 6; j++) v[j] = 0;
                    if (low && b) v[w] = (UINT64_C(1) << b) - 1;
                    else if (!low) v[w] = 0;
                    v[w] |= top << b;
                    if (w + 1 < 6 && b) v[w + 1] |= top >> (64 - b);
                    red_case(v, side ? "MULX top" : "lane top");
                }
    for (int j = 0; j < 6; j++) v[j] = ~(uint64_t)0;
    red_case(v, "2^384 − 1");
    uint64_t st = 0x243f6a8885a308d3u;
    for (int i = 0; i < 2000; i++) {
        for (int j = 0; j < 6; j++) {
            st ^= st << 13, st ^= st >> 7, st ^= st << 17;
            v[j] = st;
        }
        red_case(v, "random");
    }
}

int main(void)
{
    cz_test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flush_g1),
        cmocka_unit_test(test_flush_g2),
        cmocka_unit_test(test_red),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
