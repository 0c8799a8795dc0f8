/*
 * MSM table sets (cz_msm_gX_tables_*): precomputed multiples 2^(j·B)·P of
 * the bases. Every check is differential: the table MSM must give the
 * same group element as the plain cz_msm_gX (itself tested against naive
 * sums in test_msm.c) and, for small n, as a naive double-and-add sum
 * computed here. Covered: several table shapes (t tables of B bits, from
 * 32 × 8 to 2 × 128 and the degenerate 1 × 256), n = 1, small and
 * non-power-of-two n, edge scalars (0, 1, 2, r - 1, all-ones fields,
 * only the top field set, 2^256 - 1 which needs t·B >= 257), infinity
 * bases, every forced window up to B with both bucket kinds, with and
 * without the 0/1 split, the eight-lane (where the CPU has it) and the
 * scalar flush (opts.no_simd, what CUZK_NO_SIMD selects in the prover),
 * 1, 2 and 4 threads, density bitmaps (empty, full, sparse), the concat
 * form with table and plain segments mixed, the table contents
 * themselves, caller scratch of exactly the queried size, and the
 * refusals (t·B < 256, bad t or B, NULL arguments, mismatched n).
 */
#include "testutil.h"
#include "cuzk/msm.h"
#include <stdlib.h>
#include <string.h>
#include "msm_testutil.h"
#include "msm/msm_internal.h"

#ifdef CUZK_SANITIZED
#define LARGE_N 1500
#else
#define LARGE_N 6000
#endif



static void sc_fr(cz_scalar *s)
{
    cz_fr f;
    cz_rng_fr(&f);
    cz_msm_scalars_from_fr(s, &f, 1, NULL);
}

static void set_bit(cz_scalar *s, unsigned b) { s->l[b / 64] |= 1ULL << (b % 64); }

/* Scalar whose B-bit fields are all ones below bit `top` (the recoding's
 * every digit carries): bits [0, top) set. */
static void sc_ones_below(cz_scalar *s, unsigned top)
{
    memset(s, 0, sizeof *s);
    for (unsigned b = 0; b < top; b++) set_bit(s, b);
}

/* kind 0: random Fr; 1: a mix of edge values for a table shape of B bits
 * (every value below 2^255, so any valid shape serves it with tables) */
static void sc_fill(cz_scalar *s, size_t n, int kind, unsigned B)
{
    for (size_t i = 0; i < n; i++) {
        if (kind == 0) {
            sc_fr(&s[i]);
            continue;
        }
        unsigned top = 255 - (255 % B ? 255 % B : B); /* first bit of the top field */
        unsigned nf = 255 / B ? 255 / B : 1;            /* whole fields below bit 255 */
        switch (cz_rng_u64() % 12) {
        case 0: sc_u64(&s[i], 0); break;
        case 1: sc_u64(&s[i], 1); break;
        case 2: sc_u64(&s[i], 2); break;
        case 3: memcpy(s[i].l, R_MINUS_1, 32); break;
        case 4: sc_ones_below(&s[i], 255); break; /* 2^255 - 1: every field all ones */
        case 5: /* only the top field, random bits */
            memset(&s[i], 0, sizeof s[i]);
            for (unsigned b = top; b < 255; b++)
                if (cz_rng_u64() & 1) set_bit(&s[i], b);
            set_bit(&s[i], top);
            break;
        case 6: /* one field all ones, the rest zero */
            memset(&s[i], 0, sizeof s[i]);
            for (unsigned b = (unsigned)(cz_rng_u64() % nf) * B, e = b + B; b < e && b < 255; b++)
                set_bit(&s[i], b);
            break;
        case 7: /* one bit just below a field boundary (a carry into the next table) */
            memset(&s[i], 0, sizeof s[i]);
            set_bit(&s[i], B * (unsigned)(1 + cz_rng_u64() % nf) - 1 < 255 ? B * (unsigned)(1 + cz_rng_u64() % nf) - 1 : 254);
            break;
        case 8: sc_u64(&s[i], 2 + cz_rng_u64() % 1000); break;
        case 9: memset(&s[i], 0, sizeof s[i]); set_bit(&s[i], 254); break;
        default: sc_fr(&s[i]); break;
        }
    }
}

/* Table shapes: t tables of B bits (t·B >= 256). */
static const unsigned SHAPES[][2] = {
    {16, 16}, {18, 15}, {20, 13}, {22, 12}, {32, 8}, {8, 32}, {2, 128}, {1, 256}, {17, 16}, {13, 20},
};
#define NSHAPES (sizeof SHAPES / sizeof SHAPES[0])

#define DEFINE_HELPERS(G)                                                                     \
CZ_MSM_TEST_BASES(G)                                                                           \
/* naive sum by double-and-add over the scalar's 256 bits, most significant first */              \
static void G##_naive(cz_##G##_jac *r, const cz_##G##_affine *b, const cz_scalar *s, size_t n) \
{                                                                                              \
    cz_##G##_jac_set_infinity(r);                                                              \
    for (size_t i = 0; i < n; i++) {                                                           \
        cz_##G##_jac acc;                                                                      \
        cz_##G##_jac_set_infinity(&acc);                                                       \
        for (int bit = 255; bit >= 0; bit--) {                                                 \
            cz_##G##_jac_dbl(&acc, &acc);                                                      \
            if ((s[i].l[bit / 64] >> (bit % 64)) & 1) cz_##G##_jac_add_affine(&acc, &acc, &b[i]); \
        }                                                                                      \
        cz_##G##_jac_add(r, r, &acc);                                                          \
    }                                                                                          \
}                                                                                              \
static cz_msm_##G##_tables *G##_build(const cz_##G##_affine *b, size_t n, unsigned t,          \
                                      unsigned B, cz_pool *pool)                               \
{                                                                                              \
    cz_msm_##G##_tables *tab = NULL;                                                           \
    cz_errbuf err = {{0}};                                                                     \
    assert_int_equal(cz_msm_##G##_tables_build(&tab, b, n, t, B, pool, &err), CZ_OK);          \
    assert_non_null(tab);                                                                      \
    assert_int_equal(cz_msm_##G##_tables_n(tab), n);                                           \
    assert_int_equal(cz_msm_##G##_tables_count(tab), t);                                       \
    assert_int_equal(cz_msm_##G##_tables_bits(tab), B);                                        \
    return tab;                                                                                \
}                                                                                              \
/* the table MSM at window c (0: automatic) and bucket kind bk, both flushes, against ref */  \
static void G##_check(const cz_##G##_jac *ref, const cz_msm_##G##_tables *tab,                 \
                      const cz_scalar *s, cz_pool *pool, unsigned c, cz_msm_buckets bk,        \
                      bool no_split, int want_tables)                                          \
{                                                                                              \
    cz_msm_opts o = {0};                                                                       \
    cz_msm_info info;                                                                          \
    o.window = c;                                                                              \
    o.buckets = bk;                                                                            \
    o.no_split = no_split;                                                                     \
    o.info = &info;                                                                            \
    for (int ns = 0; ns < 2; ns++) {                                                           \
        cz_##G##_jac r;                                                                        \
        o.no_simd = ns;                                                                        \
        assert_int_equal(cz_msm_##G##_tables_msm(&r, tab, s, pool, &o), CZ_OK);                \
        if (!cz_##G##_jac_eq(&r, ref)) {                                                       \
            print_error(#G " tables mismatch: n=%zu t=%u B=%u c=%u(%u) buckets=%d split=%d "   \
                        "threads=%u simd=%d tables=%u\n",                                      \
                        cz_msm_##G##_tables_n(tab), cz_msm_##G##_tables_count(tab),            \
                        cz_msm_##G##_tables_bits(tab), c, info.window, (int)bk, !no_split,     \
                        pool ? cz_pool_size(pool) + 1 : 1, (int)info.simd, info.tables);       \
            fail();                                                                            \
        }                                                                                      \
        assert_true(c == 0 || info.n_general == 0 || info.window == c);                        \
        assert_true(!ns || !info.simd);                                                        \
        if (want_tables >= 0 && info.n_general) assert_int_equal(info.tables, (unsigned)want_tables); \
    }                                                                                          \
}

DEFINE_HELPERS(g1)
DEFINE_HELPERS(g2)

/* Tables used for scalars of maxbits bits with shape (t, B): the tables j
 * with j·B <= maxbits, when the recoding fits (maxbits + 1 <= t·B). */
static unsigned tables_used(unsigned t, unsigned B, unsigned maxbits)
{
    if (maxbits + 1 > t * B) return 0;
    unsigned te = 1;
    while (te < t && te * B <= maxbits) te++;
    return te;
}

static unsigned max_bits(const cz_scalar *s, size_t n)
{
    unsigned m = 0;
    for (size_t i = 0; i < n; i++)
        for (int l = 3; l >= 0; l--)
            if (s[i].l[l]) {
                unsigned b = (unsigned)(64 * l + 64 - __builtin_clzll(s[i].l[l]));
                if (b > m) m = b;
                break;
            }
    return m;
}

/* ---- tests ---------------------------------------------------------------- */

/* Table j really is 2^(jB)·P: checked through the MSM of a one-hot scalar
 * vector against jac_mul_var, so a wrong table shows here by name. */
static void test_table_contents(void **state)
{
    (void)state;
    enum { N = 700 }; /* two build chunks, the second partial */
    cz_g1_affine *b = malloc(N * sizeof *b);
    cz_scalar *s = calloc(N, sizeof *s);
    assert_non_null(b);
    assert_non_null(s);
    g1_bases(b, N, 50);
    cz_msm_g1_tables *tab = g1_build(b, N, 16, 16, pools[2]);
    for (int round = 0; round < 6; round++) {
        size_t i = round == 0 ? 0 : round == 1 ? N - 1 : (size_t)(cz_rng_u64() % N);
        unsigned j = (unsigned)(cz_rng_u64() % 16);
        memset(s, 0, N * sizeof *s);
        set_bit(&s[i], 16 * j + (unsigned)(cz_rng_u64() % 16));
        cz_g1_jac ref, r, p;
        cz_g1_jac_from_affine(&p, &b[i]);
        cz_g1_jac_mul_var(&ref, &p, s[i].l, 4);
        assert_int_equal(cz_msm_g1_tables_msm(&r, tab, s, NULL, NULL), CZ_OK);
        assert_true(cz_g1_jac_eq(&r, &ref));
    }
    cz_msm_g1_tables_free(tab);
    free(b);
    free(s);
}

/* A set wrapped over a copy of a built set's points (what a table file
 * gives back) sums to the same point in both groups; its points are the
 * copy, used in place; wrap refuses what build refuses, and NULL points. */
#define WRAP_CHECK(G, N, T, B)                                                                   \
    do {                                                                                         \
        cz_##G##_affine *b = malloc((N) * sizeof *b);                                            \
        cz_scalar *s = malloc((N) * sizeof *s);                                                  \
        G##_bases(b, N, 7);                                                                      \
        sc_fill(s, N, 0, B);                                                                     \
        cz_msm_##G##_tables *built = G##_build(b, N, T, B, pools[2]), *wrapped = NULL;           \
        size_t bytes = ((T) - 1) * (size_t)(N) * sizeof(cz_##G##_affine);                         \
        cz_##G##_affine *copy = malloc(bytes);                                                   \
        memcpy(copy, cz_msm_##G##_tables_points(built), bytes);                                   \
        cz_errbuf err = {{0}};                                                                   \
        assert_int_equal(cz_msm_##G##_tables_wrap(&wrapped, b, N, T, B, copy, &err), CZ_OK);     \
        assert_ptr_equal(cz_msm_##G##_tables_points(wrapped), copy);                             \
        assert_int_equal(cz_msm_##G##_tables_count(wrapped), T);                                 \
        cz_##G##_jac r1, r2;                                                                     \
        assert_int_equal(cz_msm_##G##_tables_msm(&r1, built, s, pools[2], NULL), CZ_OK);         \
        assert_int_equal(cz_msm_##G##_tables_msm(&r2, wrapped, s, pools[2], NULL), CZ_OK);       \
        assert_true(cz_##G##_jac_eq(&r1, &r2));                                                  \
        /* a changed point changes the sum: the wrapped set reads the copy */                    \
        copy[(N) + 3] = b[0];                                                                    \
        assert_int_equal(cz_msm_##G##_tables_msm(&r2, wrapped, s, pools[2], NULL), CZ_OK);       \
        assert_false(cz_##G##_jac_eq(&r1, &r2));                                                 \
        cz_msm_##G##_tables_free(wrapped); /* frees neither bases nor points */                  \
        cz_msm_##G##_tables_free(built);                                                         \
        free(copy);                                                                              \
        free(b);                                                                                 \
        free(s);                                                                                 \
    } while (0)

static void test_wrap(void **state)
{
    (void)state;
    WRAP_CHECK(g1, 300, 8, 32);
    WRAP_CHECK(g2, 120, 16, 16);
    cz_g1_affine b[4];
    g1_bases(b, 4, 1);
    cz_msm_g1_tables *tab = (cz_msm_g1_tables *)(uintptr_t)1;
    cz_errbuf err = {{0}};
    assert_int_equal(cz_msm_g1_tables_wrap(&tab, b, 4, 16, 16, NULL, &err), CZ_ERR_INVALID_ARG);
    assert_null(tab);
    assert_non_null(strstr(err.msg, "points is NULL"));
    assert_int_equal(cz_msm_g1_tables_wrap(&tab, b, 4, 17, 15, b, &err), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "17·15 = 255"));
    assert_int_equal(cz_msm_g1_tables_wrap(&tab, b, 4, 1, 256, NULL, &err), CZ_OK); /* one table: no points */
    assert_null(cz_msm_g1_tables_points(tab));
    cz_msm_g1_tables_free(tab);
}

/* Small n against the naive double-and-add, every shape, edge scalars. */
static void test_small_naive(void **state)
{
    (void)state;
    enum { MAXN = 37 };
    cz_g1_affine b[MAXN];
    cz_g2_affine b2[MAXN];
    cz_scalar s[MAXN];
    g1_bases(b, MAXN, 11);
    g2_bases(b2, MAXN, 0);
    const size_t ns[] = {1, 2, 5, MAXN};
    for (size_t sh = 0; sh < NSHAPES; sh++) {
        unsigned t = SHAPES[sh][0], B = SHAPES[sh][1];
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            size_t n = ns[k];
            cz_msm_g1_tables *tab = g1_build(b, n, t, B, k & 1 ? pools[2] : NULL);
            for (int kind = 0; kind < 2; kind++) {
                sc_fill(s, n, kind, B);
                cz_g1_jac ref, plain;
                g1_naive(&ref, b, s, n);
                assert_int_equal(cz_msm_g1(&plain, b, s, n, NULL, NULL), CZ_OK);
                assert_true(cz_g1_jac_eq(&plain, &ref));
                g1_check(&ref, tab, s, NULL, 0, CZ_MSM_BUCKETS_AUTO, false, (int)tables_used(t, B, max_bits(s, n)));
                g1_check(&ref, tab, s, pools[2], 0, CZ_MSM_BUCKETS_AUTO, true, -1);
            }
            cz_msm_g1_tables_free(tab);
        }
        /* G2: the same code for the other group */
        size_t n = sh & 1 ? 5 : 9;
        cz_msm_g2_tables *tab2 = g2_build(b2, n, t, B, pools[2]);
        sc_fill(s, n, 1, B);
        cz_g2_jac ref2;
        g2_naive(&ref2, b2, s, n);
        g2_check(&ref2, tab2, s, NULL, 0, CZ_MSM_BUCKETS_AUTO, false, -1);
        g2_check(&ref2, tab2, s, pools[4], 0, CZ_MSM_BUCKETS_AFFINE, false, -1);
        cz_msm_g2_tables_free(tab2);
    }
}

/* Every forced window up to min(B, 16), both bucket kinds, with and without
 * the split, 1/2/4 threads: a window that divides B, one that does not (the
 * last window of each table narrower), c = B (one window). */
static void test_windows(void **state)
{
    (void)state;
    enum { N = 300 };
    cz_g1_affine *b = malloc(N * sizeof *b);
    cz_g2_affine *b2 = malloc(N * sizeof *b2);
    cz_scalar *s = malloc(N * sizeof *s);
    assert_non_null(b);
    assert_non_null(b2);
    assert_non_null(s);
    g1_bases(b, N, 41);
    g2_bases(b2, 64, 0);
    const unsigned shapes[][2] = {{16, 16}, {20, 13}, {8, 32}, {32, 8}};
    for (size_t sh = 0; sh < 4; sh++) {
        unsigned t = shapes[sh][0], B = shapes[sh][1];
        cz_msm_g1_tables *tab = g1_build(b, N, t, B, pools[4]);
        sc_fill(s, N, (int)(sh & 1), B);
        cz_g1_jac ref;
        assert_int_equal(cz_msm_g1(&ref, b, s, N, pools[2], NULL), CZ_OK);
        unsigned maxc = B < 16 ? B : 16;
#ifdef CUZK_SANITIZED
        if (maxc > 13) maxc = 13;
#endif
        for (unsigned c = 1; c <= maxc; c++) {
            g1_check(&ref, tab, s, NULL, c, CZ_MSM_BUCKETS_XYZZ, c & 1, -1);
            g1_check(&ref, tab, s, pools[c % 3 == 0 ? 4 : 2], c, CZ_MSM_BUCKETS_AFFINE, !(c & 1), -1);
            if (c >= 6) g1_check(&ref, tab, s, pools[2], c, CZ_MSM_BUCKETS_AUTO, false, -1);
        }
        cz_msm_g1_tables_free(tab);

        cz_msm_g2_tables *tab2 = g2_build(b2, 64, t, B, NULL);
        cz_g2_jac ref2;
        assert_int_equal(cz_msm_g2(&ref2, b2, s, 64, NULL, NULL), CZ_OK);
        for (unsigned c = 1; c <= (B < 11 ? B : 11); c += 2) {
            g2_check(&ref2, tab2, s, pools[2], c, CZ_MSM_BUCKETS_AFFINE, false, -1);
            g2_check(&ref2, tab2, s, NULL, c, CZ_MSM_BUCKETS_XYZZ, true, -1);
        }
        cz_msm_g2_tables_free(tab2);
    }
#ifndef CUZK_SANITIZED
    /* One window as wide as the field (what cz_msm_opts.tables_wide lets
     * the shape advice pick for H): 13 × 20 at c = 18, 19 and 20 (2^19
     * affine buckets a thread at c = 20), edge scalars and random ones. */
    {
        cz_msm_g1_tables *tab = g1_build(b, N, 13, 20, pools[4]);
        for (int kind = 0; kind < 2; kind++) {
            sc_fill(s, N, kind, 20);
            cz_g1_jac ref;
            assert_int_equal(cz_msm_g1(&ref, b, s, N, pools[2], NULL), CZ_OK);
            for (unsigned c = 18; c <= 20; c++)
                g1_check(&ref, tab, s, pools[2], c, CZ_MSM_BUCKETS_AFFINE, (c & 1) != 0, -1);
        }
        cz_msm_g1_tables_free(tab);
    }
#endif
    free(b);
    free(b2);
    free(s);
}

/* Edge scalar vectors: all zero, all one, all r - 1, all 2^255 - 1, all
 * 2^256 - 1 (needs t·B >= 257: a 16 × 16 set sums it without tables,
 * 17 × 16 with them), only the top field set, one bit per field boundary,
 * the same base everywhere (doublings and cancellations in a bucket). */
static void test_edge_scalars(void **state)
{
    (void)state;
    enum { N = 96 };
    cz_g1_affine b[N];
    cz_scalar s[N];
    g1_bases(b, N, 0);
    cz_msm_g1_tables *t16 = g1_build(b, N, 16, 16, NULL), *t17 = g1_build(b, N, 17, 16, NULL);
    cz_msm_g1_tables *t13 = g1_build(b, N, 20, 13, NULL);
    cz_g1_jac ref, r;
    for (int kind = 0; kind < 7; kind++) {
        for (int i = 0; i < N; i++) {
            switch (kind) {
            case 0: sc_u64(&s[i], 0); break;
            case 1: sc_u64(&s[i], 1); break;
            case 2: memcpy(s[i].l, R_MINUS_1, 32); break;
            case 3: sc_ones_below(&s[i], 255); break;
            case 4: memset(s[i].l, 0xff, 32); break;
            case 5: /* only the top 16-bit field (bits 240..254) */
                memset(&s[i], 0, sizeof s[i]);
                set_bit(&s[i], 240 + (unsigned)(i % 15));
                if (i & 1) set_bit(&s[i], 254);
                break;
            default: /* one bit at or just below a field boundary of 13 or 16 */
                memset(&s[i], 0, sizeof s[i]);
                set_bit(&s[i], (unsigned)(i % 2 ? 16 * (1 + i % 15) - (i % 4 == 1) : 13 * (1 + i % 19) - (i % 4 == 0)));
                break;
            }
        }
        g1_naive(&ref, b, s, N);
        assert_int_equal(cz_msm_g1(&r, b, s, N, NULL, NULL), CZ_OK);
        assert_true(cz_g1_jac_eq(&r, &ref));
        unsigned mb = max_bits(s, N);
        g1_check(&ref, t16, s, pools[2], 0, CZ_MSM_BUCKETS_AUTO, false, (int)tables_used(16, 16, mb));
        g1_check(&ref, t17, s, NULL, 0, CZ_MSM_BUCKETS_AUTO, false, (int)tables_used(17, 16, mb));
        g1_check(&ref, t13, s, pools[4], 9, CZ_MSM_BUCKETS_AFFINE, kind & 1, -1);
        g1_check(&ref, t16, s, NULL, 16, CZ_MSM_BUCKETS_AFFINE, false, -1);
        g1_check(&ref, t17, s, pools[2], 5, CZ_MSM_BUCKETS_XYZZ, true, -1);
    }
    /* 2^256 - 1 with 16 × 16: no tables; with 17 × 16: 17 tables */
    memset(s, 0xff, sizeof s);
    g1_naive(&ref, b, s, N);
    g1_check(&ref, t16, s, NULL, 0, CZ_MSM_BUCKETS_AUTO, false, 0);
    g1_check(&ref, t17, s, NULL, 0, CZ_MSM_BUCKETS_AUTO, false, 17);
    cz_msm_g1_tables_free(t16);
    cz_msm_g1_tables_free(t17);
    cz_msm_g1_tables_free(t13);

    /* the same base everywhere; then P and -P alternating with one scalar */
    for (int i = 1; i < N; i++) b[i] = b[0];
    cz_msm_g1_tables *tr = g1_build(b, N, 16, 16, pools[2]);
    sc_fill(s, N, 1, 16);
    g1_naive(&ref, b, s, N);
    g1_check(&ref, tr, s, pools[2], 0, CZ_MSM_BUCKETS_AUTO, false, -1);
    g1_check(&ref, tr, s, NULL, 12, CZ_MSM_BUCKETS_AFFINE, false, -1);
    cz_msm_g1_tables_free(tr);
    for (int i = 1; i < N; i += 2) cz_g1_affine_neg(&b[i], &b[0]);
    cz_msm_g1_tables *tn = g1_build(b, N, 16, 16, NULL);
    sc_fr(&s[0]);
    for (int i = 1; i < N; i++) s[i] = s[0];
    g1_naive(&ref, b, s, N);
    assert_true(cz_g1_jac_is_infinity(&ref)); /* N even: everything cancels */
    g1_check(&ref, tn, s, NULL, 0, CZ_MSM_BUCKETS_AUTO, false, 16);
    g1_check(&ref, tn, s, pools[2], 16, CZ_MSM_BUCKETS_AFFINE, false, 16);
    cz_msm_g1_tables_free(tn);
}

/* Random Fr scalars with the prover's shape (30% zeros, 30% ones) at a
 * few thousand points (not a power of two), against the plain MSM, on 1, 2
 * and 4 threads, automatic plan and a forced c = 16 (one window); the
 * caller-scratch contract; the plain MSM's info has tables = 0. */
static void test_large(void **state)
{
    (void)state;
    size_t n = LARGE_N;
    cz_g1_affine *b = malloc(n * sizeof *b);
    cz_scalar *s = malloc(n * sizeof *s);
    assert_non_null(b);
    assert_non_null(s);
    g1_bases(b, n, 997);
    for (size_t i = 0; i < n; i++) {
        unsigned k = (unsigned)(cz_rng_u64() % 10);
        if (k < 3) sc_u64(&s[i], 0);
        else if (k < 6) sc_u64(&s[i], 1);
        else sc_fr(&s[i]);
    }
    cz_g1_jac ref, r;
    cz_msm_info info;
    cz_msm_opts o = {.info = &info};
    assert_int_equal(cz_msm_g1(&ref, b, s, n, pools[2], &o), CZ_OK);
    assert_int_equal(info.tables, 0);
    const unsigned shapes[][2] = {{16, 16}, {13, 20}, {8, 32}};
    for (size_t sh = 0; sh < 3; sh++) {
        unsigned t = shapes[sh][0], B = shapes[sh][1];
        cz_msm_g1_tables *tab = g1_build(b, n, t, B, pools[4]);
        for (int th = 1; th <= 4; th *= 2) {
            g1_check(&ref, tab, s, pools[th], 0, CZ_MSM_BUCKETS_AUTO, false, (int)tables_used(t, B, max_bits(s, n)));
            assert_int_equal(cz_msm_g1_tables_msm(&r, tab, s, pools[th], &o), CZ_OK);
            print_message("n=%zu t=%u B=%u threads=%d: c=%u nwin=%u parts=%u general=%zu\n", n, t, B, th,
                          info.window, info.nwin, info.nparts, info.n_general);
        }
        g1_check(&ref, tab, s, pools[2], 16, CZ_MSM_BUCKETS_AUTO, false, -1);
        /* caller scratch: exactly the queried size, then one byte short */
        size_t need = cz_msm_g1_tables_scratch_size(n, t, B, pools[2], NULL);
        assert_true(need >= cz_msm_g1_scratch_size(n, pools[2], NULL));
        o.scratch = malloc(need);
        assert_non_null(o.scratch);
        o.scratch_size = need;
        assert_int_equal(cz_msm_g1_tables_msm(&r, tab, s, pools[2], &o), CZ_OK);
        assert_true(cz_g1_jac_eq(&r, &ref));
        assert_int_equal(info.scratch_bytes, need);
        o.scratch_size = need - 1;
        assert_int_equal(cz_msm_g1_tables_msm(&r, tab, s, pools[2], &o), CZ_ERR_INVALID_ARG);
        free(o.scratch);
        o.scratch = NULL;
        o.scratch_size = 0;
        cz_msm_g1_tables_free(tab);
    }
    free(b);
    free(s);
}

/* Density bitmaps: empty (no base), full, sparse (~30%), a long empty run
 * and junk bits past nscalars; the table set is built over the compacted
 * bases; against cz_msm_gX_density on the same bases. */
static void test_density(void **state)
{
    (void)state;
    enum { NS = 900 };
    uint64_t bm[(NS + 63) / 64 + 1];
    cz_scalar *s = malloc(NS * sizeof *s);
    cz_g1_affine *full = malloc(NS * sizeof *full), *comp = malloc(NS * sizeof *comp);
    cz_g2_affine *full2 = malloc(NS * sizeof *full2), *comp2 = malloc(NS * sizeof *comp2);
    assert_non_null(s);
    assert_non_null(full);
    assert_non_null(comp);
    assert_non_null(full2);
    assert_non_null(comp2);
    g1_bases(full, NS, 0);
    g2_bases(full2, 200, 0);
    sc_fill(s, NS, 1, 16);
    for (int round = 0; round < 4; round++) {
        memset(bm, 0, sizeof bm);
        size_t nb = 0, nb2 = 0;
        memcpy(comp, full, NS * sizeof *comp); /* the points past nb stay valid */
        for (size_t i = 0; i < NS; i++) {
            unsigned r = (unsigned)(cz_rng_u64() % 100);
            bool on = round == 0 ? false : round == 1 ? true : round == 2 ? r < 30 : (i > 600 && r < 50);
            if (!on) continue;
            bm[i / 64] |= 1ULL << (i % 64);
            comp[nb++] = full[i];
            if (i < 200) comp2[nb2++] = full2[i];
        }
        if (round == 3) bm[NS / 64] |= ~0ULL << (NS % 64); /* ignored bits */
        cz_msm_g1_tables *tab = g1_build(comp, nb, 16, 16, pools[2]);
        cz_msm_g1_tables *tab8 = g1_build(comp, nb, 8, 32, NULL);
        for (int t = 1; t <= 4; t *= 2) {
            for (int ns = 0; ns < 2; ns++) {
                cz_g1_jac ref, r;
                cz_msm_opts o = {.no_simd = ns};
                assert_int_equal(cz_msm_g1_density(&ref, comp, nb, s, NS, bm, NULL, NULL), CZ_OK);
                assert_int_equal(cz_msm_g1_tables_density(&r, tab, s, NS, bm, pools[t], &o), CZ_OK);
                assert_true(cz_g1_jac_eq(&r, &ref));
                o.window = 11;
                o.buckets = CZ_MSM_BUCKETS_AFFINE;
                assert_int_equal(cz_msm_g1_tables_density(&r, tab, s, NS, bm, pools[t], &o), CZ_OK);
                assert_true(cz_g1_jac_eq(&r, &ref));
                o.window = 0;
                o.buckets = CZ_MSM_BUCKETS_AUTO;
                assert_int_equal(cz_msm_g1_tables_density(&r, tab8, s, NS, bm, pools[t], &o), CZ_OK);
                assert_true(cz_g1_jac_eq(&r, &ref));
            }
            cz_g2_jac ref2, r2;
            cz_msm_g2_tables *tab2 = g2_build(comp2, nb2, 16, 16, NULL);
            assert_int_equal(cz_msm_g2_density(&ref2, comp2, nb2, s, 200, bm, NULL, NULL), CZ_OK);
            assert_int_equal(cz_msm_g2_tables_density(&r2, tab2, s, 200, bm, pools[t], NULL), CZ_OK);
            assert_true(cz_g2_jac_eq(&r2, &ref2));
            cz_msm_g2_tables_free(tab2);
        }
        /* shapes whose table count (18, 22, 13 used) the point ranges of
         * 2 and 4 threads cut inside a table: a range that starts inside
         * one table and runs into the next restarts its bitmap cursor */
        const unsigned odd[][2] = {{18, 15}, {22, 12}, {13, 20}};
        for (size_t sh = 0; sh < 3; sh++) {
            cz_msm_g1_tables *to = g1_build(comp, nb, odd[sh][0], odd[sh][1], pools[4]);
            cz_g1_jac ref, r;
            assert_int_equal(cz_msm_g1_density(&ref, comp, nb, s, NS, bm, NULL, NULL), CZ_OK);
            const unsigned cs[] = {0, 5, 7, 11};
            for (size_t ci = 0; ci < 4; ci++)
                for (int t = 2; t <= 4; t += 2) {
                    cz_msm_opts o = {.window = cs[ci], .no_simd = ci & 1};
                    assert_int_equal(cz_msm_g1_tables_density(&r, to, s, NS, bm, pools[t], &o), CZ_OK);
                    assert_true(cz_g1_jac_eq(&r, &ref));
                }
            cz_msm_g1_tables_free(to);
        }
        /* a popcount that does not match the set's n is refused */
        cz_g1_jac r;
        cz_msm_g1_tables *off = g1_build(comp, nb < NS ? nb + 1 : nb - 1, 16, 16, NULL);
        assert_int_equal(cz_msm_g1_tables_density(&r, off, s, NS, bm, NULL, NULL), CZ_ERR_MISMATCH);
        cz_msm_g1_tables_free(off);
        cz_msm_g1_tables_free(tab);
        cz_msm_g1_tables_free(tab8);
    }
    free(s);
    free(full);
    free(comp);
    free(full2);
    free(comp2);
}

/* The concat form: the prover's H + L shape (tables on both, on one, on
 * none, two shapes), empty segments, against cz_msm_gX_concat. */
static void test_concat(void **state)
{
    (void)state;
    enum { N = 1200 };
    cz_g1_affine *b = malloc(N * sizeof *b);
    cz_g2_affine *b2 = malloc(200 * sizeof *b2);
    cz_scalar *s = malloc(N * sizeof *s);
    assert_non_null(b);
    assert_non_null(b2);
    assert_non_null(s);
    g1_bases(b, N, 101);
    g2_bases(b2, 200, 0);
    sc_fill(s, N, 1, 16);
    const size_t cut[] = {700, 0, 1, 499};
    cz_msm_g1_seg seg[4];
    cz_msm_g1_tables *tab[4];
    size_t off = 0;
    for (int k = 0; k < 4; k++) {
        seg[k] = (cz_msm_g1_seg){b + off, s + off, cut[k]};
        tab[k] = g1_build(b + off, cut[k], k == 3 ? 8 : 16, k == 3 ? 32 : 16, pools[2]);
        off += cut[k];
    }
    const cz_msm_g1_tables *use[4];
    for (int mask = 0; mask < 16; mask++) {
        for (int k = 0; k < 4; k++) use[k] = (mask >> k) & 1 ? tab[k] : NULL;
        for (int t = 1; t <= 4; t *= 2) {
            for (int ns = 0; ns < 2; ns++) {
                cz_g1_jac ref, r;
                cz_msm_info info;
                cz_msm_opts o = {.no_simd = ns, .info = &info};
                assert_int_equal(cz_msm_g1_concat(&ref, seg, 4, pools[t], NULL), CZ_OK);
                assert_int_equal(cz_msm_g1_tables_concat(&r, seg, use, 4, pools[t], &o), CZ_OK);
                if (!cz_g1_jac_eq(&r, &ref)) {
                    print_error("concat tables mismatch: mask=%d threads=%d no_simd=%d c=%u\n", mask, t, ns,
                                info.window);
                    fail();
                }
                if (mask == 9) assert_int_equal(info.tables, 16);
                if (mask == 8) assert_int_equal(info.tables, 8);
                /* tables on segment 0 only: the plain segments are a run of
                 * their own, so the table run (the most points, whose plan
                 * info gives) has one window per table digit, at most two,
                 * not the plain segments' ceil(256/c) */
                if (mask == 1 && info.nwin > 2) {
                    print_error("tables on segment 0: %u windows at c = %u\n", info.nwin, info.window);
                    fail();
                }
                o.window = 9;
                assert_int_equal(cz_msm_g1_tables_concat(&r, seg, use, 4, pools[t], &o), CZ_OK);
                assert_true(cz_g1_jac_eq(&r, &ref));
            }
        }
    }
    /* NULL tabs: the plain concat; bases NULL in a segment with tables */
    cz_g1_jac ref, r;
    assert_int_equal(cz_msm_g1_concat(&ref, seg, 4, NULL, NULL), CZ_OK);
    assert_int_equal(cz_msm_g1_tables_concat(&r, seg, NULL, 4, NULL, NULL), CZ_OK);
    assert_true(cz_g1_jac_eq(&r, &ref));
    cz_msm_g1_seg seg0[4];
    memcpy(seg0, seg, sizeof seg);
    seg0[0].bases = NULL;
    const cz_msm_g1_tables *all[4] = {tab[0], tab[1], tab[2], tab[3]};
    assert_int_equal(cz_msm_g1_tables_concat(&r, seg0, all, 4, pools[2], NULL), CZ_OK);
    assert_true(cz_g1_jac_eq(&r, &ref));
    /* mismatches: other bases, other n */
    seg0[0].bases = b + 1;
    assert_int_equal(cz_msm_g1_tables_concat(&r, seg0, all, 4, NULL, NULL), CZ_ERR_MISMATCH);
    seg0[0].bases = b;
    seg0[0].n = 699;
    assert_int_equal(cz_msm_g1_tables_concat(&r, seg0, all, 4, NULL, NULL), CZ_ERR_MISMATCH);
    /* no segment: infinity */
    assert_int_equal(cz_msm_g1_tables_concat(&r, NULL, NULL, 0, NULL, NULL), CZ_OK);
    assert_true(cz_g1_jac_is_infinity(&r));
    for (int k = 0; k < 4; k++) cz_msm_g1_tables_free(tab[k]);

    /* G2: two segments, tables on the first */
    cz_msm_g2_seg s2[2] = {{b2, s, 120}, {b2 + 120, s + 120, 80}};
    cz_msm_g2_tables *t2 = g2_build(b2, 120, 16, 16, NULL);
    const cz_msm_g2_tables *u2[2] = {t2, NULL};
    cz_g2_jac ref2, r2;
    assert_int_equal(cz_msm_g2_concat(&ref2, s2, 2, pools[2], NULL), CZ_OK);
    assert_int_equal(cz_msm_g2_tables_concat(&r2, s2, u2, 2, pools[2], NULL), CZ_OK);
    assert_true(cz_g2_jac_eq(&r2, &ref2));
    cz_msm_g2_tables_free(t2);
    free(b);
    free(b2);
    free(s);
}

/* Refusals, with the message naming what is wrong; the byte count. */
static void test_refused(void **state)
{
    (void)state;
    cz_g1_affine b[4];
    cz_scalar s[4];
    g1_bases(b, 4, 0);
    sc_fill(s, 4, 0, 16);
    cz_msm_g1_tables *tab = (cz_msm_g1_tables *)(uintptr_t)1;
    cz_errbuf err = {{0}};
    /* t·B below 256: 17 × 15 = 255 (the recoding of a 255-bit scalar needs 256) */
    assert_int_equal(cz_msm_g1_tables_build(&tab, b, 4, 17, 15, NULL, &err), CZ_ERR_INVALID_ARG);
    assert_null(tab);
    assert_non_null(strstr(err.msg, "17·15 = 255"));
    assert_int_equal(cz_msm_g1_tables_build(&tab, b, 4, 0, 256, NULL, &err), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "t = 0"));
    assert_int_equal(cz_msm_g1_tables_build(&tab, b, 4, CZ_MSM_MAX_TABLES + 1, 8, NULL, &err), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "t = 33"));
    assert_int_equal(cz_msm_g1_tables_build(&tab, b, 4, 16, 0, NULL, &err), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "bits = 0"));
    assert_int_equal(cz_msm_g1_tables_build(&tab, b, 4, 1, 257, NULL, &err), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "bits = 257"));
    assert_int_equal(cz_msm_g1_tables_build(&tab, NULL, 4, 16, 16, NULL, &err), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "bases is NULL"));
    assert_int_equal(cz_msm_g1_tables_build(NULL, b, 4, 16, 16, NULL, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_msm_g2_tables_build(NULL, NULL, 0, 16, 16, NULL, NULL), CZ_ERR_INVALID_ARG);
    /* NULL err is fine; n = 0 with NULL bases builds an empty set */
    assert_int_equal(cz_msm_g1_tables_build(&tab, b, 4, 2, 100, NULL, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_msm_g1_tables_build(&tab, NULL, 0, 16, 16, NULL, NULL), CZ_OK);
    cz_g1_jac r;
    assert_int_equal(cz_msm_g1_tables_msm(&r, tab, NULL, NULL, NULL), CZ_OK);
    assert_true(cz_g1_jac_is_infinity(&r));
    cz_msm_g1_tables_free(tab);
    cz_msm_g1_tables_free(NULL);
    /* the MSM calls: NULL table set, NULL out, NULL scalars, bad window */
    tab = g1_build(b, 4, 16, 16, NULL);
    assert_int_equal(cz_msm_g1_tables_msm(&r, NULL, s, NULL, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_msm_g1_tables_msm(NULL, tab, s, NULL, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_msm_g1_tables_msm(&r, tab, NULL, NULL, NULL), CZ_ERR_INVALID_ARG);
    cz_msm_opts o = {.window = CZ_MSM_MAX_WINDOW + 1};
    assert_int_equal(cz_msm_g1_tables_msm(&r, tab, s, NULL, &o), CZ_ERR_INVALID_ARG);
    uint64_t bm = 0xf;
    assert_int_equal(cz_msm_g1_tables_density(&r, NULL, s, 4, &bm, NULL, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_msm_g1_tables_density(&r, tab, s, 4, NULL, NULL, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_msm_g1_tables_density(&r, tab, s, 0, &bm, NULL, NULL), CZ_ERR_MISMATCH);
    bm = 0x7;
    assert_int_equal(cz_msm_g1_tables_density(&r, tab, s, 4, &bm, NULL, NULL), CZ_ERR_MISMATCH);
    cz_msm_g1_tables_free(tab);
    /* bytes: t - 1 copies of n points, table 0 not copied; overflow */
    assert_int_equal(cz_msm_g1_tables_bytes(1000, 16) - cz_msm_g1_tables_bytes(1000, 1), 15 * 1000 * sizeof(cz_g1_affine));
    assert_int_equal(cz_msm_g2_tables_bytes(1000, 8) - cz_msm_g2_tables_bytes(0, 8), 7 * 1000 * sizeof(cz_g2_affine));
    assert_int_equal(cz_msm_g1_tables_bytes(SIZE_MAX / 64, 16), SIZE_MAX);
}

/* The shape advice: within the byte limit, t·bits >= 256, none when
 * nothing fits; printed for the sizes of the issue (a model, not a
 * measurement: what it suggests is in the log, not asserted). */
static void test_shape(void **state)
{
    (void)state;
    unsigned t = 0, bits = 0;
    assert_false(cz_msm_g1_tables_shape(1 << 16, NULL, NULL, 0, &t, &bits));
    assert_int_equal(t, 1);
    assert_int_equal(bits, 256);
    for (unsigned lg = 12; lg <= 22; lg += 2)
        for (int th = 1; th <= 2; th++) {
            size_t m = (size_t)1 << lg;
            cz_msm_opts o = {.no_simd = true};
            unsigned t1, b1, t2, b2;
            bool ok1 = cz_msm_g1_tables_shape(m, pools[th], &o, SIZE_MAX, &t1, &b1);
            bool ok2 = cz_msm_g2_tables_shape(m, pools[th], &o, SIZE_MAX, &t2, &b2);
            if (ok1) assert_true(t1 * b1 >= 256 && t1 <= CZ_MSM_MAX_TABLES);
            if (ok2) assert_true(t2 * b2 >= 256 && t2 <= CZ_MSM_MAX_TABLES);
            print_message("2^%u, %d thread(s), scalar: G1 %u x %u bits%s, G2 %u x %u bits%s\n", lg, th, t1, b1,
                          ok1 ? "" : " (none)", t2, b2, ok2 ? "" : " (none)");
            /* a limit below the suggestion's bytes gives a smaller set or none */
            if (ok1) {
                size_t lim = cz_msm_g1_tables_bytes(m, t1) - 1;
                unsigned t3, b3;
                if (cz_msm_g1_tables_shape(m, pools[th], &o, lim, &t3, &b3))
                    assert_true(cz_msm_g1_tables_bytes(m, t3) <= lim);
            }
        }
}

/* The wide shapes (cz_msm_opts.tables_wide) against the facts measured
 * on a Xeon with 260 MB of L3 (BENCHMARKS.md "Wide H tables where the
 * buckets fit the L3"): G1 at 2^20 points on 2 threads, 13 × 20 measured
 * 1.09-1.12x the plain MSM where 8 × 32 measured 0.99x, so a one-window
 * shape of 18-20 bits is advised there; at 2^16 (8 × 32: 1.23x) the
 * advice does not move; without the flag, or where the cache is unknown
 * or too small for the buckets, no shape is wider than 17 bits. */
static void test_shape_wide(void **state)
{
    (void)state;
    cz_msm_opts wide = {.tables_wide = true, .no_simd = true}, narrow = {.no_simd = true};
    unsigned t, bits, t0, b0;
    cz__msm_set_llc_bytes((size_t)256 << 20);
    assert_int_equal(cz__msm_llc_kb(2, sizeof(cz_g1_affine)), 20);
    assert_true(cz_msm_g1_tables_shape((size_t)1 << 20, pools[2], &wide, SIZE_MAX, &t, &bits));
    assert_true(bits >= 18 && bits <= 20 && t * bits >= 256);
    assert_false(cz_msm_g1_tables_shape((size_t)1 << 20, pools[2], &narrow, SIZE_MAX, &t, &bits) && bits > 17);
    assert_true(cz_msm_g1_tables_shape((size_t)1 << 16, pools[2], &wide, SIZE_MAX, &t, &bits));
    assert_true(cz_msm_g1_tables_shape((size_t)1 << 16, pools[2], &narrow, SIZE_MAX, &t0, &b0));
    assert_int_equal(t, t0);
    assert_int_equal(bits, b0);
    /* a byte limit below the wide set's size gives a smaller set or none */
    size_t lim = cz_msm_g1_tables_bytes((size_t)1 << 20, 13) - 1;
    if (cz_msm_g1_tables_shape((size_t)1 << 20, pools[2], &wide, lim, &t, &bits))
        assert_true(cz_msm_g1_tables_bytes((size_t)1 << 20, t) <= lim);
    /* 32 MB of L3 (an AMD CCX): 2 × 2^19 G1 buckets do not fit in half */
    cz__msm_set_llc_bytes((size_t)32 << 20);
    assert_true(cz__msm_llc_kb(2, sizeof(cz_g1_affine)) < 18);
    assert_false(cz_msm_g1_tables_shape((size_t)1 << 20, pools[2], &wide, SIZE_MAX, &t, &bits) && bits > 17);
    cz__msm_set_llc_bytes(0);
    assert_int_equal(cz__msm_llc_kb(2, sizeof(cz_g1_affine)), 0);
    assert_false(cz_msm_g1_tables_shape((size_t)1 << 20, pools[2], &wide, SIZE_MAX, &t, &bits) && bits > 17);
    cz__msm_set_llc_bytes(SIZE_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_table_contents),
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_small_naive),
        cmocka_unit_test(test_edge_scalars),
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_shape_wide),
        cmocka_unit_test(test_density),
        cmocka_unit_test(test_concat),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_shape),
    };
    return cmocka_run_group_tests(tests, msm_test_setup, msm_test_teardown);
}
