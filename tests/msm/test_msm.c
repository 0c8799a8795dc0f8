/*
 * MSM tests (G1 and G2): against a naive sum of scalar multiplications
 * (cz_gX_jac_mul_var), against a second, independent bucket algorithm
 * (unsigned digits, Jacobian buckets, no 0/1 split) at 2^16, and against the
 * algebraic identity sum k_i·(P0 + i·Q) = (sum k_i)·P0 + (sum i·k_i)·Q
 * computed with GMP. Every window size is forced in turn, with both bucket
 * representations; thread counts 1, 2, 4 must give the same point; the
 * density-filtered variant is checked against the dense one with the
 * unselected scalars zeroed; the concatenated variant (_concat) against one
 * call over the same points laid end to end.
 */
#include "testutil.h"
#include "cuzk/msm.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "msm_testutil.h"
#include "msm/msm_internal.h" /* cz__msm_lanes_pick, CZ_MSM_X16_MAX_RATIO */
#include "ff/fp_x4.h"         /* CZ_FP_X16_N */

#ifdef CUZK_SANITIZED
#define BIG_LOG 12
#define G1_MAXC 13
#define G2_MAXC 11
#else
#define BIG_LOG 16
#define G1_MAXC 16
#define G2_MAXC 14
#endif

/* Each check runs the default (AVX-512 IFMA lanes where the CPU has them)
 * and the scalar batch additions (no_simd). */
#define g1_SIMD_PATHS 2
#define g2_SIMD_PATHS 2


/* ---- scalars -------------------------------------------------------------- */


static void sc_fr(cz_scalar *s)
{
    cz_fr f;
    cz_rng_fr(&f);
    cz_msm_scalars_from_fr(s, &f, 1, NULL);
}

static void sc_full(cz_scalar *s)
{
    for (int i = 0; i < 4; i++) s->l[i] = cz_rng_u64();
}

/* kind: 0 random Fr, 1 random 256-bit, 2 mix of everything */
static void sc_fill(cz_scalar *s, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        if (kind == 0) { sc_fr(&s[i]); continue; }
        if (kind == 1) { sc_full(&s[i]); continue; }
        switch (cz_rng_u64() % 10) {
        case 0: sc_u64(&s[i], 0); break;
        case 1: sc_u64(&s[i], 1); break;
        case 2: memcpy(s[i].l, R_MINUS_1, 32); break;
        case 3: memset(s[i].l, 0xff, 32); break; /* 2^256 - 1 */
        case 4: sc_full(&s[i]); s[i].l[3] |= 3ULL << 62; break; /* >= 2^254 */
        case 5: sc_u64(&s[i], 2 + cz_rng_u64() % 100); break;
        case 6: sc_full(&s[i]); s[i].l[3] = (s[i].l[3] >> 2) | (1ULL << 61); break;
        default: sc_fr(&s[i]); break;
        }
    }
}

/* ---- per-group helpers (one body for G1 and G2) ---------------------------- */

#define DEFINE_HELPERS(G)                                                                     \
CZ_MSM_TEST_BASES(G)                                                                           \
static void G##_naive(cz_##G##_jac *r, const cz_##G##_affine *b, const cz_scalar *s, size_t n) \
{                                                                                              \
    cz_##G##_jac_set_infinity(r);                                                              \
    for (size_t i = 0; i < n; i++) {                                                           \
        cz_##G##_jac p, t;                                                                     \
        cz_##G##_jac_from_affine(&p, &b[i]);                                                   \
        cz_##G##_jac_mul_var(&t, &p, s[i].l, 4);                                               \
        cz_##G##_jac_add(r, r, &t);                                                            \
    }                                                                                          \
}                                                                                              \
static void G##_check(const cz_##G##_jac *ref, const cz_##G##_affine *b, const cz_scalar *s,   \
                      size_t n, cz_pool *pool, unsigned c, cz_msm_buckets bk, bool no_split)   \
{                                                                                              \
    cz_msm_opts o = {0};                                                                       \
    cz_msm_info info;                                                                          \
    o.window = c;                                                                              \
    o.buckets = bk;                                                                            \
    o.no_split = no_split;                                                                     \
    o.info = &info;                                                                            \
    /* the eight-lane IFMA additions (where the CPU has them) and the        */                \
    /* scalar ones must both give the reference                               */                \
    for (int ns = 0; ns < (G##_SIMD_PATHS); ns++) {                                            \
        cz_##G##_jac r;                                                                        \
        o.no_simd = ns;                                                                        \
        assert_int_equal(cz_msm_##G(&r, b, s, n, pool, &o), CZ_OK);                            \
        if (!cz_##G##_jac_eq(&r, ref)) {                                                       \
            print_error(#G " mismatch: n=%zu c=%u(%u) buckets=%d split=%d threads=%u simd=%d\n", \
                        n, c, info.window, (int)bk, !no_split,                                 \
                        pool ? cz_pool_size(pool) + 1 : 1, (int)info.simd);                    \
            fail();                                                                            \
        }                                                                                      \
        assert_true(c == 0 || info.n_general == 0 || info.window == c);                        \
        assert_true(!ns || !info.simd);                                                        \
    }                                                                                          \
}                                                                                              \
/* every window size (1..maxc), both bucket kinds, with and without split */                   \
static void G##_check_all(const cz_##G##_affine *b, const cz_scalar *s, size_t n, unsigned maxc) \
{                                                                                              \
    cz_##G##_jac ref;                                                                          \
    G##_naive(&ref, b, s, n);                                                                  \
    G##_check(&ref, b, s, n, NULL, 0, CZ_MSM_BUCKETS_AUTO, false);                             \
    G##_check(&ref, b, s, n, pools[2], 0, CZ_MSM_BUCKETS_AUTO, false);                         \
    for (unsigned c = 1; c <= maxc; c++) {                                                     \
        G##_check(&ref, b, s, n, NULL, c, CZ_MSM_BUCKETS_XYZZ, c & 1);                         \
        G##_check(&ref, b, s, n, pools[c % 3 == 0 ? 4 : 2], c, CZ_MSM_BUCKETS_AFFINE,          \
                  !(c & 1));                                                                   \
        /* AUTO at a forced c mixes affine windows and XYZZ top windows */                     \
        if (c >= 6) G##_check(&ref, b, s, n, pools[2], c, CZ_MSM_BUCKETS_AUTO, false);          \
    }                                                                                          \
}

DEFINE_HELPERS(g1)
DEFINE_HELPERS(g2)

/* ---- tests ---------------------------------------------------------------- */

static void test_scalars_from_fr(void **state)
{
    (void)state;
    enum { N = 5000 };
    cz_fr *f = malloc(N * sizeof *f);
    cz_scalar *s = malloc(N * sizeof *s);
    assert_non_null(f);
    assert_non_null(s);
    for (size_t i = 0; i < N; i++) cz_rng_fr(&f[i]);
    cz_msm_scalars_from_fr(s, f, N, pools[2]);
    for (size_t i = 0; i < N; i++) {
        uint64_t t[4];
        cz_fr_to_raw(t, &f[i]);
        assert_memory_equal(t, s[i].l, 32);
    }
    /* in place */
    cz_msm_scalars_from_fr((cz_scalar *)f, f, N, pools[4]);
    assert_memory_equal(f, s, N * sizeof *s);
    free(f);
    free(s);
}

static void test_small_n(void **state)
{
    (void)state;
    cz_g1_affine b1[3];
    cz_g2_affine b2[3];
    cz_scalar s[3];
    g1_bases(b1, 3, 0);
    g2_bases(b2, 3, 0);
    for (size_t n = 0; n <= 3; n++) {
        for (int kind = 0; kind < 3; kind++) {
            sc_fill(s, n, kind);
            g1_check_all(b1, s, n, 8);
            g2_check_all(b2, s, n, 6);
        }
    }
    /* n = 0 with NULL arrays */
    cz_g1_jac r;
    assert_int_equal(cz_msm_g1(&r, NULL, NULL, 0, NULL, NULL), CZ_OK);
    assert_true(cz_g1_jac_is_infinity(&r));
    cz_msm_opts o = {.window = CZ_MSM_MAX_WINDOW + 1};
    assert_int_equal(cz_msm_g1(&r, b1, s, 3, NULL, &o), CZ_ERR_INVALID_ARG);
}

static void test_random_windows_g1(void **state)
{
    (void)state;
    size_t n = 200;
    cz_g1_affine *b = malloc(n * sizeof *b);
    cz_scalar *s = malloc(n * sizeof *s);
    g1_bases(b, n, 0);
    sc_fill(s, n, 0);
    g1_check_all(b, s, n, G1_MAXC);
    cz_g1_jac ref;
    g1_naive(&ref, b, s, n);
    g1_check(&ref, b, s, n, pools[4], 0, CZ_MSM_BUCKETS_AUTO, false);
    sc_fill(s, n, 2);
    g1_check_all(b, s, n, G1_MAXC);
    free(b);
    free(s);
}

static void test_random_windows_g2(void **state)
{
    (void)state;
    size_t n = 60;
    cz_g2_affine *b = malloc(n * sizeof *b);
    cz_scalar *s = malloc(n * sizeof *s);
    g2_bases(b, n, 0);
    sc_fill(s, n, 2);
    g2_check_all(b, s, n, G2_MAXC);
    free(b);
    free(s);
}

static void test_random_1024(void **state)
{
    (void)state;
    size_t n = 1024;
    cz_g1_affine *b = malloc(n * sizeof *b);
    cz_scalar *s = malloc(n * sizeof *s);
    g1_bases(b, n, 97);
    sc_fill(s, n, 1);
    cz_g1_jac ref;
    g1_naive(&ref, b, s, n);
    for (int t = 0; t <= 4; t++) {
        if (t == 3) continue;
        g1_check(&ref, b, s, n, pools[t], 0, CZ_MSM_BUCKETS_AUTO, false);
        g1_check(&ref, b, s, n, pools[t], 9, CZ_MSM_BUCKETS_AFFINE, false);
        g1_check(&ref, b, s, n, pools[t], 7, CZ_MSM_BUCKETS_XYZZ, false);
    }
    free(b);
    free(s);

    size_t n2 = 256;
    cz_g2_affine *b2 = malloc(n2 * sizeof *b2);
    s = malloc(n2 * sizeof *s);
    g2_bases(b2, n2, 31);
    sc_fill(s, n2, 2);
    cz_g2_jac ref2;
    g2_naive(&ref2, b2, s, n2);
    for (int t = 0; t <= 4; t++) {
        if (t == 3) continue;
        g2_check(&ref2, b2, s, n2, pools[t], 0, CZ_MSM_BUCKETS_AUTO, false);
        g2_check(&ref2, b2, s, n2, pools[t], 10, CZ_MSM_BUCKETS_AFFINE, true);
    }
    free(b2);
    free(s);
}

static void test_edge_cases(void **state)
{
    (void)state;
    enum { N = 64 };
    cz_g1_affine b[N];
    cz_g2_affine b2[N];
    cz_scalar s[N];
    g1_bases(b, N, 0);
    g2_bases(b2, N, 0);
    cz_g1_jac r;

    /* all zero: infinity */
    memset(s, 0, sizeof s);
    g1_check_all(b, s, N, 10);
    assert_int_equal(cz_msm_g1(&r, b, s, N, pools[2], NULL), CZ_OK);
    assert_true(cz_g1_jac_is_infinity(&r));
    /* all one: plain sum */
    for (int i = 0; i < N; i++) sc_u64(&s[i], 1);
    g1_check_all(b, s, N, 10);
    g2_check_all(b2, s, 16, 5);
    /* r - 1 everywhere, 2^256 - 1 everywhere (top digit carries) */
    for (int i = 0; i < N; i++) memcpy(s[i].l, R_MINUS_1, 32);
    g1_check_all(b, s, N, 12);
    memset(s, 0xff, sizeof s);
    g1_check_all(b, s, N, 12);
    g2_check_all(b2, s, 8, 8);
    /* one bit set at the top or at a window boundary */
    for (int i = 0; i < N; i++) {
        memset(&s[i], 0, sizeof s[i]);
        unsigned bit = 255 - (unsigned)(i % 40);
        s[i].l[bit / 64] = 1ULL << (bit % 64);
    }
    g1_check_all(b, s, N, 12);
    /* repeated points: the same base everywhere, random and equal scalars
     * (doublings and cancellations inside one bucket) */
    for (int i = 1; i < N; i++) b[i] = b[0];
    sc_fill(s, N, 2);
    g1_check_all(b, s, N, 12);
    for (int i = 0; i < N; i++) sc_u64(&s[i], i & 1 ? 5 : 7);
    g1_check_all(b, s, N, 12);
    /* P and -P alternating with equal scalars: everything cancels */
    for (int i = 1; i < N; i += 2) cz_g1_affine_neg(&b[i], &b[0]);
    for (int i = 0; i < N; i++) sc_u64(&s[i], 12345);
    g1_check_all(b, s, N, 12);
    assert_int_equal(cz_msm_g1(&r, b, s, N, NULL, NULL), CZ_OK);
    assert_true(cz_g1_jac_is_infinity(&r));
    /* infinity points among ordinary ones; all infinity */
    g1_bases(b, N, 3);
    sc_fill(s, N, 2);
    g1_check_all(b, s, N, 12);
    g2_bases(b2, N, 2);
    g2_check_all(b2, s, 24, 8);
    for (int i = 0; i < N; i++) cz_g1_affine_set_infinity(&b[i]);
    g1_check_all(b, s, N, 6);
}

/* Many points with the same scalar: every window sends them all to one
 * bucket, so the batch conflicts overflow the retry queue (affine buckets
 * fall back to XYZZ overflow buckets). Reference: s·(sum of the points). */
static void test_hammered_bucket(void **state)
{
    (void)state;
    enum { N = 1500 };
    cz_g1_affine *b = malloc(N * sizeof *b);
    cz_scalar *s = malloc(N * sizeof *s);
    assert_non_null(b);
    assert_non_null(s);
    g1_bases(b, N, 0);
    cz_g1_jac sum, ref, p;
    cz_g1_jac_set_infinity(&sum);
    for (int i = 0; i < N; i++) cz_g1_jac_add_affine(&sum, &sum, &b[i]);
    for (int round = 0; round < 3; round++) {
        cz_scalar k;
        if (round == 0) sc_u64(&k, 3);
        else if (round == 1) sc_fr(&k);
        else memset(k.l, 0xff, 32);
        for (int i = 0; i < N; i++) s[i] = k;
        cz_g1_jac_mul_var(&ref, &sum, k.l, 4);
        g1_check(&ref, b, s, N, NULL, 11, CZ_MSM_BUCKETS_AUTO, false);
        g1_check(&ref, b, s, N, pools[2], 12, CZ_MSM_BUCKETS_AFFINE, round == 0);
        g1_check(&ref, b, s, N, pools[4], 0, CZ_MSM_BUCKETS_AUTO, false);
        /* half the points negated: P and -P meet in the same bucket */
        for (int i = 0; i < N; i += 2) cz_g1_affine_neg(&b[i], &b[i]);
        cz_g1_jac_set_infinity(&p);
        for (int i = 0; i < N; i++) cz_g1_jac_add_affine(&p, &p, &b[i]);
        cz_g1_jac_mul_var(&ref, &p, k.l, 4);
        g1_check(&ref, b, s, N, NULL, 11, CZ_MSM_BUCKETS_AUTO, false);
        for (int i = 0; i < N; i += 2) cz_g1_affine_neg(&b[i], &b[i]);
    }
    free(b);
    free(s);
}

/* G2 counterpart of the repeated / opposite base cases of test_edge_cases
 * and of test_hammered_bucket: a batch-affine bucket addition P + B needs
 * the doubling formula when P == B and gives the identity when P == -B, and
 * G2 (Fp2 coordinates) has its own instance of that code. Every window
 * size, both bucket kinds (g2_check_all), and a forced affine window where
 * one bucket takes every point. */
static void test_g2_equal_and_opposite_in_bucket(void **state)
{
    (void)state;
    enum { N = 48, H = 600 };
    cz_g2_affine b2[N];
    cz_scalar s[N];
    cz_g2_jac r;
    g2_bases(b2, N, 0);
    /* P == B: the same base everywhere, random and equal scalars */
    for (int i = 1; i < N; i++) b2[i] = b2[0];
    sc_fill(s, N, 2);
    g2_check_all(b2, s, N, 8);
    for (int i = 0; i < N; i++) sc_u64(&s[i], i & 1 ? 5 : 7);
    g2_check_all(b2, s, N, 8);
    /* P == -B: P and -P alternating with equal scalars, everything cancels */
    for (int i = 1; i < N; i += 2) cz_g2_affine_neg(&b2[i], &b2[0]);
    for (int i = 0; i < N; i++) sc_u64(&s[i], 12345);
    g2_check_all(b2, s, N, 8);
    assert_int_equal(cz_msm_g2(&r, b2, s, N, NULL, NULL), CZ_OK);
    assert_true(cz_g2_jac_is_infinity(&r));

    /* one scalar for many distinct points: one bucket per window, so the
     * batch conflicts overflow; then half of them negated (P and -P meet) */
    cz_g2_affine *b = malloc(H * sizeof *b);
    cz_scalar *hs = malloc(H * sizeof *hs);
    assert_non_null(b);
    assert_non_null(hs);
    g2_bases(b, H, 0);
    cz_scalar k;
    sc_fr(&k);
    for (int i = 0; i < H; i++) hs[i] = k;
    for (int neg = 0; neg < 2; neg++) {
        if (neg)
            for (int i = 0; i < H; i += 2) cz_g2_affine_neg(&b[i], &b[i]);
        cz_g2_jac sum, ref;
        cz_g2_jac_set_infinity(&sum);
        for (int i = 0; i < H; i++) cz_g2_jac_add_affine(&sum, &sum, &b[i]);
        cz_g2_jac_mul_var(&ref, &sum, k.l, 4);
        g2_check(&ref, b, hs, H, NULL, 11, CZ_MSM_BUCKETS_AFFINE, false);
        g2_check(&ref, b, hs, H, pools[2], 12, CZ_MSM_BUCKETS_AFFINE, true);
    }
    free(b);
    free(hs);
}

/* Unsigned-digit bucket method with Jacobian buckets and no 0/1 split: an
 * independent second algorithm for the large test. */
static void g1_simple_buckets(cz_g1_jac *out, const cz_g1_affine *b, const cz_scalar *s, size_t n)
{
    enum { C = 11, K = 1 << C };
    cz_g1_jac *bk = malloc(K * sizeof *bk);
    assert_non_null(bk);
    cz_g1_jac_set_infinity(out);
    for (int w = (256 + C - 1) / C - 1; w >= 0; w--) {
        for (int d = 0; d < C; d++) cz_g1_jac_dbl(out, out);
        for (int k = 0; k < K; k++) cz_g1_jac_set_infinity(&bk[k]);
        for (size_t i = 0; i < n; i++) {
            unsigned pos = (unsigned)w * C, v = 0;
            for (unsigned j = 0; j < C && pos + j < 256; j++)
                v |= (unsigned)((s[i].l[(pos + j) / 64] >> ((pos + j) % 64)) & 1) << j;
            if (v) cz_g1_jac_add_affine(&bk[v], &bk[v], &b[i]);
        }
        cz_g1_jac run, tot;
        cz_g1_jac_set_infinity(&run);
        cz_g1_jac_set_infinity(&tot);
        for (int k = K - 1; k >= 1; k--) {
            cz_g1_jac_add(&run, &run, &bk[k]);
            cz_g1_jac_add(&tot, &tot, &run);
        }
        cz_g1_jac_add(out, out, &tot);
    }
    free(bk);
}

/* sum k_i·(P0 + i·Q) = (sum k_i)·P0 + (sum i·k_i)·Q, with sums mod r (GMP) */
static void g1_identity(cz_g1_jac *out, const cz_g1_jac *p0, const cz_g1_jac *q,
                        const cz_scalar *s, size_t n)
{
    mpz_t a, bsum, t, r;
    mpz_inits(a, bsum, t, r, NULL);
    cz_mpz_from_limbs(r, CZ_FR_MODULUS, 4);
    for (size_t i = 0; i < n; i++) {
        cz_mpz_from_limbs(t, s[i].l, 4);
        mpz_add(a, a, t);
        mpz_addmul_ui(bsum, t, (unsigned long)i);
    }
    mpz_mod(a, a, r);
    mpz_mod(bsum, bsum, r);
    uint64_t la[4], lb[4];
    cz_mpz_to_limbs(la, 4, a);
    cz_mpz_to_limbs(lb, 4, bsum);
    cz_g1_jac x, y;
    cz_g1_jac_mul_var(&x, p0, la, 4);
    cz_g1_jac_mul_var(&y, q, lb, 4);
    cz_g1_jac_add(out, &x, &y);
    mpz_clears(a, bsum, t, r, NULL);
}

static void test_large_g1(void **state)
{
    (void)state;
    size_t n = (size_t)1 << BIG_LOG;
    cz_g1_affine *b = malloc(n * sizeof *b);
    cz_g1_jac *tmp = malloc(n * sizeof *tmp);
    cz_scalar *s = malloc(n * sizeof *s);
    assert_non_null(b);
    assert_non_null(tmp);
    assert_non_null(s);
    cz_g1_jac g, p0, q, p;
    cz_g1_generator_jac(&g);
    uint64_t k0 = cz_rng_u64(), kq = cz_rng_u64();
    cz_g1_jac_mul_var(&p0, &g, &k0, 1);
    cz_g1_jac_mul_var(&q, &g, &kq, 1);
    p = p0;
    for (size_t i = 0; i < n; i++) {
        tmp[i] = p;
        cz_g1_jac_add(&p, &p, &q);
    }
    cz_g1_batch_to_affine(b, tmp, n);
    free(tmp);
    /* 30% zeros, 30% ones, the rest random Fr: the real workloads' shape */
    for (size_t i = 0; i < n; i++) {
        unsigned k = (unsigned)(cz_rng_u64() % 10);
        if (k < 3) sc_u64(&s[i], 0);
        else if (k < 6) sc_u64(&s[i], 1);
        else sc_fr(&s[i]);
    }
    cz_g1_jac ref, ref2, r;
    g1_identity(&ref, &p0, &q, s, n);
    g1_simple_buckets(&ref2, b, s, n);
    assert_true(cz_g1_jac_eq(&ref, &ref2));
    cz_msm_info info;
    cz_msm_opts o = {.info = &info};
    for (int t = 1; t <= 4; t *= 2) {
        assert_int_equal(cz_msm_g1(&r, b, s, n, pools[t], &o), CZ_OK);
        print_message("2^%d, %d threads: c=%u nwin=%u parts=%u affine=%d zero/one/general=%zu/%zu/%zu\n",
                      BIG_LOG, t, info.window, info.nwin, info.nparts, info.affine, info.n_zero,
                      info.n_one, info.n_general);
        assert_int_equal(info.simd, cz_msm_simd_available());
        assert_true(cz_g1_jac_eq(&r, &ref));
    }
    /* caller-provided scratch, exactly the queried size */
    size_t need = cz_msm_g1_scratch_size(n, pools[2], NULL);
    o.scratch = malloc(need);
    o.scratch_size = need;
    assert_int_equal(cz_msm_g1(&r, b, s, n, pools[2], &o), CZ_OK);
    assert_true(cz_g1_jac_eq(&r, &ref));
    o.scratch_size = need - 1;
    assert_int_equal(cz_msm_g1(&r, b, s, n, pools[2], &o), CZ_ERR_INVALID_ARG);
    free(o.scratch);
    free(b);
    free(s);
}

static void test_density(void **state)
{
    (void)state;
    enum { NS = 700 };
    uint64_t bm[(NS + 63) / 64 + 1];
    cz_scalar s[NS], sz[NS];
    cz_g1_affine full[NS], *comp = malloc(NS * sizeof *comp);
    cz_g2_affine full2[NS], *comp2 = malloc(NS * sizeof *comp2);
    g1_bases(full, NS, 0);
    g2_bases(full2, NS, 0);
    sc_fill(s, NS, 2);
    for (int round = 0; round < 3; round++) {
        memset(bm, 0, sizeof bm);
        /* round 0: ~40% density; 1: ~97%; 2: a long empty run + junk past NS */
        size_t nb = 0;
        for (size_t i = 0; i < NS; i++) {
            unsigned r = (unsigned)(cz_rng_u64() % 100);
            bool on = round == 0 ? r < 40 : round == 1 ? r < 97 : (i > 500 && r < 50);
            if (on) {
                bm[i / 64] |= 1ULL << (i % 64);
                comp[nb] = full[i];
                comp2[nb] = full2[i];
                nb++;
            }
            sz[i] = s[i];
            if (!on) memset(&sz[i], 0, sizeof sz[i]);
        }
        if (round == 2) bm[NS / 64] |= ~0ULL << (NS % 64); /* ignored bits */
        for (int t = 0; t <= 4; t += 2) {
            cz_g1_jac r, ref;
            assert_int_equal(cz_msm_g1(&ref, full, sz, NS, NULL, NULL), CZ_OK);
            assert_int_equal(cz_msm_g1_density(&r, comp, nb, s, NS, bm, pools[t], NULL), CZ_OK);
            assert_true(cz_g1_jac_eq(&r, &ref));
            cz_msm_opts o = {.window = 5, .buckets = CZ_MSM_BUCKETS_AFFINE};
            assert_int_equal(cz_msm_g1_density(&r, comp, nb, s, NS, bm, pools[t], &o), CZ_OK);
            assert_true(cz_g1_jac_eq(&r, &ref));
            cz_g2_jac r2, ref2;
            assert_int_equal(cz_msm_g2(&ref2, full2, sz, 200, NULL, NULL), CZ_OK);
            size_t nb2 = 0;
            for (size_t i = 0; i < 200; i++) nb2 += (bm[i / 64] >> (i % 64)) & 1;
            assert_int_equal(cz_msm_g2_density(&r2, comp2, nb2, s, 200, bm, pools[t], NULL), CZ_OK);
            assert_true(cz_g2_jac_eq(&r2, &ref2));
        }
        /* a popcount mismatch is refused */
        cz_g1_jac r;
        assert_int_equal(cz_msm_g1_density(&r, comp, nb + 1, s, NS, bm, NULL, NULL), CZ_ERR_MISMATCH);
        if (nb) assert_int_equal(cz_msm_g1_density(&r, comp, nb - 1, s, NS, bm, NULL, NULL), CZ_ERR_MISMATCH);
    }
    /* the naive reference for one density round */
    cz_g1_jac r, ref;
    size_t nb = 0;
    cz_scalar sel[NS];
    for (size_t i = 0; i < NS; i++)
        if ((bm[i / 64] >> (i % 64)) & 1) sel[nb++] = s[i];
    g1_naive(&ref, comp, sel, nb);
    assert_int_equal(cz_msm_g1_density(&r, comp, nb, s, NS, bm, pools[2], NULL), CZ_OK);
    assert_true(cz_g1_jac_eq(&r, &ref));
    free(comp);
    free(comp2);
}

/* cz_msm_gX_concat against cz_msm_gX over the same points laid end to end.
 * Each segment lives in its own allocation, so a pass that indexed one
 * segment's array with another's position (or ran past a segment's end)
 * would read other points or fault under ASan instead of passing by
 * accident; the cuts include empty segments and segments of one point,
 * and with 2 and 4 threads the split chunks and point ranges (n·i/4T)
 * fall inside segments. */
#define DEFINE_CONCAT(G)                                                                      \
static void G##_concat_case(const cz_##G##_affine *b, const cz_scalar *s, const size_t *cut,   \
                            size_t nseg, unsigned c, cz_msm_buckets bk)                        \
{                                                                                              \
    cz_msm_##G##_seg seg[CZ_MSM_MAX_SEGS];                                                     \
    size_t n = 0;                                                                              \
    for (size_t k = 0; k < nseg; k++) {                                                        \
        cz_##G##_affine *bk_ = cut[k] ? malloc(cut[k] * sizeof *bk_) : NULL;                   \
        cz_scalar *sk = cut[k] ? malloc(cut[k] * sizeof *sk) : NULL;                           \
        if (cut[k]) {                                                                          \
            assert_non_null(bk_);                                                              \
            assert_non_null(sk);                                                               \
            memcpy(bk_, b + n, cut[k] * sizeof *bk_);                                          \
            memcpy(sk, s + n, cut[k] * sizeof *sk);                                            \
        }                                                                                      \
        seg[k].bases = bk_;                                                                    \
        seg[k].scalars = sk;                                                                   \
        seg[k].n = cut[k];                                                                     \
        n += cut[k];                                                                           \
    }                                                                                          \
    cz_msm_opts o = {0};                                                                       \
    o.window = c;                                                                              \
    o.buckets = bk;                                                                            \
    for (int t = 1; t <= 4; t++) {                                                             \
        if (t == 3) continue;                                                                  \
        for (int ns = 0; ns < (G##_SIMD_PATHS); ns++) {                                        \
            cz_##G##_jac ref, r;                                                               \
            o.no_simd = ns;                                                                    \
            assert_int_equal(cz_msm_##G(&ref, b, s, n, pools[t], &o), CZ_OK);                  \
            assert_int_equal(cz_msm_##G##_concat(&r, seg, nseg, pools[t], &o), CZ_OK);         \
            if (!cz_##G##_jac_eq(&r, &ref)) {                                                  \
                print_error(#G " concat mismatch: n=%zu nseg=%zu c=%u buckets=%d threads=%d "  \
                            "no_simd=%d\n", n, nseg, c, (int)bk, t, ns);                       \
                fail();                                                                        \
            }                                                                                  \
        }                                                                                      \
    }                                                                                          \
    for (size_t k = 0; k < nseg; k++) {                                                        \
        free((void *)seg[k].bases);                                                            \
        free((void *)seg[k].scalars);                                                          \
    }                                                                                          \
}

DEFINE_CONCAT(g1)
DEFINE_CONCAT(g2)

static void test_concat(void **state)
{
    (void)state;
    enum { N = 1500 };
    cz_g1_affine *b = malloc(N * sizeof *b);
    cz_g2_affine *b2 = malloc(N * sizeof *b2);
    cz_scalar *s = malloc(N * sizeof *s);
    assert_non_null(b);
    assert_non_null(b2);
    assert_non_null(s);
    g1_bases(b, N, 97);
    g2_bases(b2, 300, 0);
    /* the prover's shape (two long segments), then every kind of cut */
    const size_t cuts[][CZ_MSM_MAX_SEGS] = {
        {1023, 477},
        {0, 1, 700, 0, 17, 1, 761, 0},
        {1500},
        {3, 3, 3, 3, 3, 3, 3, 1479},
    };
    const size_t ncut[] = {2, 8, 1, 8};
    for (int kind = 0; kind < 3; kind++) {
        sc_fill(s, N, kind);
        for (size_t i = 0; i < sizeof ncut / sizeof ncut[0]; i++) {
            g1_concat_case(b, s, cuts[i], ncut[i], 0, CZ_MSM_BUCKETS_AUTO);
            /* forced windows: XYZZ-only, affine with the lane reduction */
            g1_concat_case(b, s, cuts[i], ncut[i], 5, CZ_MSM_BUCKETS_XYZZ);
            g1_concat_case(b, s, cuts[i], ncut[i], 9, CZ_MSM_BUCKETS_AFFINE);
        }
    }
    /* G2: the same code instantiated for the other group */
    const size_t c2[] = {0, 150, 1, 149};
    sc_fill(s, 300, 2);
    g2_concat_case(b2, s, c2, 4, 0, CZ_MSM_BUCKETS_AUTO);
    g2_concat_case(b2, s, c2, 4, 7, CZ_MSM_BUCKETS_AFFINE);

    /* the naive sum, once, for the two-segment shape */
    cz_g1_jac ref, r;
    sc_fill(s, N, 0);
    g1_naive(&ref, b, s, 300);
    cz_msm_g1_seg two[2] = {{b, s, 200}, {b + 200, s + 200, 100}};
    assert_int_equal(cz_msm_g1_concat(&r, two, 2, pools[2], NULL), CZ_OK);
    assert_true(cz_g1_jac_eq(&r, &ref));

    /* no segment, empty segments with NULL arrays: infinity */
    cz_msm_g1_seg empty[2] = {{NULL, NULL, 0}, {NULL, NULL, 0}};
    assert_int_equal(cz_msm_g1_concat(&r, NULL, 0, NULL, NULL), CZ_OK);
    assert_true(cz_g1_jac_is_infinity(&r));
    assert_int_equal(cz_msm_g1_concat(&r, empty, 2, pools[2], NULL), CZ_OK);
    assert_true(cz_g1_jac_is_infinity(&r));
    /* refused: too many segments, NULL arrays with n > 0, NULL out */
    cz_msm_g1_seg many[CZ_MSM_MAX_SEGS + 1];
    for (size_t k = 0; k <= CZ_MSM_MAX_SEGS; k++) many[k] = (cz_msm_g1_seg){b + k, s + k, 1};
    assert_int_equal(cz_msm_g1_concat(&r, many, CZ_MSM_MAX_SEGS + 1, NULL, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_msm_g1_concat(&r, many, CZ_MSM_MAX_SEGS, NULL, NULL), CZ_OK);
    cz_msm_g1_seg bad[2] = {{b, s, 10}, {NULL, s, 5}};
    assert_int_equal(cz_msm_g1_concat(&r, bad, 2, NULL, NULL), CZ_ERR_INVALID_ARG);
    bad[1] = (cz_msm_g1_seg){b, NULL, 5};
    assert_int_equal(cz_msm_g1_concat(&r, bad, 2, NULL, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_msm_g1_concat(NULL, two, 2, NULL, NULL), CZ_ERR_INVALID_ARG);
    free(b);
    free(b2);
    free(s);
}

/* The lanes the environment asks for are the ones that run: CUZK_NO_SIMD
 * none; CUZK_MSM_LANES=avx2 the AVX2 + MULX flush wherever the CPU has
 * AVX2, FMA and ADX (test_msm_avx2 sets it with CUZK_NO_IFMA, so that it
 * really tests that flush); unset, IFMA where the CPU has it, else the
 * calibration decides and its ratio is reported. */
static void test_lanes_selection(void **state)
{
    (void)state;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cz_ff_adx_supported();
#else
    bool avx2 = false;
#endif
    const char *want = getenv("CUZK_MSM_LANES");
    if (want && !strcmp(want, "auto")) want = NULL;
    double ratio = 0;
    const char *name = cz_msm_lanes_chosen(&ratio);
    if (getenv("CUZK_NO_SIMD")) {
        assert_false(cz_msm_simd_available());
        assert_string_equal(name, "none");
    } else if (want && !strcmp(want, "avx2")) {
        assert_string_equal(name, avx2 ? "avx2" : "none");
        assert_true(ratio < 0); /* asked for: not measured */
    } else if (want && !strcmp(want, "none")) {
        assert_string_equal(name, "none");
    } else if (!want && cz_ff_ifma_supported()) {
        assert_string_equal(name, "ifma");
        assert_true(ratio < 0);
    } else if (!want && avx2) {
        assert_true(ratio > 0); /* measured */
        assert_string_equal(name, ratio <= CZ_MSM_X16_MAX_RATIO ? "avx2" : "none");
        print_message("AVX2 + MULX products: %.3f of MULX's time here: %s\n", ratio, name);
    } else if (!want) {
        assert_string_equal(name, "none");
    }
    assert_int_equal(cz_msm_simd_available(), strcmp(name, "none") != 0);
}

/* The rule without the CPU: IFMA first, then the AVX2 lanes only when
 * measured fast enough (an unmeasured, negative ratio never takes them). */
static void test_lanes_pick(void **state)
{
    (void)state;
    assert_int_equal(cz__msm_lanes_pick(true, true, 2.0), CZ_MSM_LANES_IFMA);
    assert_int_equal(cz__msm_lanes_pick(true, false, -1), CZ_MSM_LANES_IFMA);
    assert_int_equal(cz__msm_lanes_pick(false, true, 0.69), CZ_MSM_LANES_AVX2);
    assert_int_equal(cz__msm_lanes_pick(false, true, CZ_MSM_X16_MAX_RATIO), CZ_MSM_LANES_AVX2);
    assert_int_equal(cz__msm_lanes_pick(false, true, CZ_MSM_X16_MAX_RATIO + 0.01), CZ_MSM_LANES_NONE);
    assert_int_equal(cz__msm_lanes_pick(false, true, 1.0), CZ_MSM_LANES_NONE);
    assert_int_equal(cz__msm_lanes_pick(false, true, -1), CZ_MSM_LANES_NONE);
    assert_int_equal(cz__msm_lanes_pick(false, true, 0), CZ_MSM_LANES_NONE);
    assert_int_equal(cz__msm_lanes_pick(false, false, 0.5), CZ_MSM_LANES_NONE);
    /* a re-check turns none into avx2 on a fast reading only, and never
     * changes another choice */
    assert_int_equal(cz__msm_lanes_recheck(CZ_MSM_LANES_NONE, 0.51), CZ_MSM_LANES_AVX2);
    assert_int_equal(cz__msm_lanes_recheck(CZ_MSM_LANES_NONE, CZ_MSM_X16_MAX_RATIO), CZ_MSM_LANES_AVX2);
    assert_int_equal(cz__msm_lanes_recheck(CZ_MSM_LANES_NONE, CZ_MSM_X16_MAX_RATIO + 0.01), CZ_MSM_LANES_NONE);
    assert_int_equal(cz__msm_lanes_recheck(CZ_MSM_LANES_NONE, -1), CZ_MSM_LANES_NONE);
    assert_int_equal(cz__msm_lanes_recheck(CZ_MSM_LANES_AVX2, 2.0), CZ_MSM_LANES_AVX2);
    assert_int_equal(cz__msm_lanes_recheck(CZ_MSM_LANES_IFMA, 0.5), CZ_MSM_LANES_IFMA);
}

/* The batch an affine task fills: whole fourteen-value calls on the AVX2
 * lanes, the planner's size on the others. (The MSM tests that run on
 * the AVX2 lanes check that such batches sum right.) */
static void test_lanes_batch(void **state)
{
    (void)state;
    double r0;
    cz_msm_lanes k0 = cz__msm_lanes();
    (void)cz_msm_lanes_chosen(&r0);
    int left0 = cz__msm_lanes_rechecks_left();
    static const unsigned caps[] = {1024, 512, 256, 32, 14, 13, 1};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        unsigned c = caps[i];
        cz__msm_lanes_set_state(CZ_MSM_LANES_AVX2, 0, 0.5);
        unsigned b = cz__msm_lanes_batch(c);
        assert_true(b <= c && b > 0);
        assert_true(c < CZ_FP_X16_N ? b == c : b % CZ_FP_X16_N == 0 && c - b < CZ_FP_X16_N);
        cz__msm_lanes_set_state(CZ_MSM_LANES_NONE, 0, 1.0);
        assert_int_equal(cz__msm_lanes_batch(c), c);
        cz__msm_lanes_set_state(CZ_MSM_LANES_IFMA, 0, -1);
        assert_int_equal(cz__msm_lanes_batch(c), c);
    }
    cz__msm_lanes_set_state(CZ_MSM_LANES_AVX2, 0, 0.5);
    assert_int_equal(cz__msm_lanes_batch(1024), CZ_FP_X16_N == 14 ? 1022 : 1024 / CZ_FP_X16_N * CZ_FP_X16_N);
    cz__msm_lanes_set_state(k0, left0, r0);
}

/* A choice of none with re-checks left, as after a calibration in a slow
 * spell: MSMs started from two threads at once each take one reading
 * (never more than the re-checks left), every result stays right while
 * the choice may switch under them, and at the end the choice agrees
 * with the lowest reading. The planted first reading (100) is worse
 * than any real one, so a reading must have replaced it. */
typedef struct {
    const cz_g1_affine *b;
    const cz_scalar *s;
    size_t n;
    const cz_g1_jac *ref;
    int bad;
} recheck_job;

static void *recheck_thread(void *arg)
{
    recheck_job *j = arg;
    for (int i = 0; i < 3; i++) {
        cz_g1_jac r;
        if (cz_msm_g1(&r, j->b, j->s, j->n, NULL, NULL) != CZ_OK || !cz_g1_jac_eq(&r, j->ref)) j->bad++;
    }
    return NULL;
}

/* What the two tests of the measured choice share: the skip where there
 * is no measured choice to test (re-checks follow a measured choice
 * only), an MSM case with its naive sum, and the verdict after readings
 * that followed a planted first one of 100 (worse than any real one):
 * the lowest reading is a real one, and the choice agrees with it. */
static void skip_unless_measured(const char *test)
{
    const char *want = getenv("CUZK_MSM_LANES");
    if (!cz__msm_x16_supported() || getenv("CUZK_NO_SIMD") || (want && strcmp(want, "auto"))) {
        fprintf(stderr, "%s: no AVX2 + FMA + ADX here, or the lanes chosen by hand: skipped\n", test);
        skip();
    }
}

enum { LANES_N = 4096 };
typedef struct {
    cz_g1_affine *b;
    cz_scalar *s;
    cz_g1_jac ref;
} lanes_case;

static void lanes_case_make(lanes_case *c, int kind)
{
    c->b = malloc(LANES_N * sizeof *c->b);
    c->s = malloc(LANES_N * sizeof *c->s);
    assert_non_null(c->b);
    assert_non_null(c->s);
    g1_bases(c->b, LANES_N, kind);
    sc_fill(c->s, LANES_N, kind);
    g1_naive(&c->ref, c->b, c->s, LANES_N);
}

static void lanes_case_free(lanes_case *c)
{
    free(c->b);
    free(c->s);
}

static const char *lanes_verdict(double *r)
{
    const char *name = cz_msm_lanes_chosen(r);
    assert_true(*r > 0 && *r < 100.0);
    if (!strcmp(name, "avx2")) {
        assert_true(*r <= CZ_MSM_X16_MAX_RATIO);
        assert_int_equal(cz__msm_lanes_rechecks_left(), 0);
    } else {
        assert_string_equal(name, "none");
        assert_true(*r > CZ_MSM_X16_MAX_RATIO);
    }
    return name;
}

static void test_lanes_recheck(void **state)
{
    (void)state;
    skip_unless_measured("test_lanes_recheck");
    double r0;
    cz_msm_lanes k0 = cz__msm_lanes();
    (void)cz_msm_lanes_chosen(&r0);
    lanes_case c;
    lanes_case_make(&c, 0);
    cz__msm_lanes_set_state(CZ_MSM_LANES_NONE, 4, 100.0);
    recheck_job j[2] = {{c.b, c.s, LANES_N, &c.ref, 0}, {c.b, c.s, LANES_N, &c.ref, 0}};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, recheck_thread, &j[0]), 0);
    recheck_thread(&j[1]);
    pthread_join(t, NULL);
    assert_int_equal(j[0].bad + j[1].bad, 0);
    double r;
    const char *name = lanes_verdict(&r);
    print_message("re-check: %s at %.3f\n", name, r);
    cz__msm_lanes_set_state(k0, 0, r0);
    lanes_case_free(&c);
}

/* The periodic reading of a measured none: the rule alone, then with the
 * CPU: with none planned, or one an hour away, an MSM takes no reading;
 * with one due, the first MSM takes exactly one and plans the next a
 * period on (or, where the reading was fast, stops the readings with
 * the choice turned to avx2), and the next MSM takes none. The sums stay
 * right throughout. */
static void test_lanes_periodic(void **state)
{
    (void)state;
    assert_false(cz__msm_lanes_periodic_due(-1, 1000));
    assert_false(cz__msm_lanes_periodic_due(1000, 999));
    assert_true(cz__msm_lanes_periodic_due(1000, 1000));
    assert_true(cz__msm_lanes_periodic_due(1000, 5000));
    skip_unless_measured("test_lanes_periodic");
    double r0;
    cz_msm_lanes k0 = cz__msm_lanes();
    (void)cz_msm_lanes_chosen(&r0);
    double p0 = cz__msm_lanes_periodic_in();
    lanes_case c;
    lanes_case_make(&c, 1);
    cz_g1_jac r;
    cz__msm_lanes_set_state(CZ_MSM_LANES_NONE, 0, 100.0);
    static const double plans[2] = {-1, 3600};
    for (int i = 0; i < 2; i++) {
        cz__msm_lanes_set_periodic(plans[i]);
        int before = cz__msm_lanes_readings();
        assert_int_equal(cz_msm_g1(&r, c.b, c.s, LANES_N, NULL, NULL), CZ_OK);
        assert_true(cz_g1_jac_eq(&r, &c.ref));
        assert_int_equal(cz__msm_lanes_readings(), before);
        assert_string_equal(cz_msm_lanes_chosen(NULL), "none");
    }
    cz__msm_lanes_set_periodic(0);
    int before = cz__msm_lanes_readings();
    assert_int_equal(cz_msm_g1(&r, c.b, c.s, LANES_N, NULL, NULL), CZ_OK);
    assert_true(cz_g1_jac_eq(&r, &c.ref));
    assert_int_equal(cz__msm_lanes_readings(), before + 1);
    double rr;
    const char *name = lanes_verdict(&rr);
    if (!strcmp(name, "avx2")) assert_true(cz__msm_lanes_periodic_in() < 0);
    else assert_true(cz__msm_lanes_periodic_in() > CZ_MSM_X16_RECHECK_PERIOD_S - 10);
    assert_int_equal(cz_msm_g1(&r, c.b, c.s, LANES_N, NULL, NULL), CZ_OK);
    assert_true(cz_g1_jac_eq(&r, &c.ref));
    assert_int_equal(cz__msm_lanes_readings(), before + 1);
    print_message("periodic reading: %s at %.3f\n", name, rr);
    cz__msm_lanes_set_state(k0, 0, r0);
    cz__msm_lanes_set_periodic(p0);
    lanes_case_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lanes_selection),
        cmocka_unit_test(test_lanes_pick),
        cmocka_unit_test(test_lanes_batch),
        cmocka_unit_test(test_lanes_recheck),
        cmocka_unit_test(test_lanes_periodic),
        cmocka_unit_test(test_scalars_from_fr),
        cmocka_unit_test(test_small_n),
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_hammered_bucket),
        cmocka_unit_test(test_g2_equal_and_opposite_in_bucket),
        cmocka_unit_test(test_random_windows_g1),
        cmocka_unit_test(test_random_windows_g2),
        cmocka_unit_test(test_random_1024),
        cmocka_unit_test(test_density),
        cmocka_unit_test(test_concat),
        cmocka_unit_test(test_large_g1),
    };
    return cmocka_run_group_tests(tests, msm_test_setup, msm_test_teardown);
}
