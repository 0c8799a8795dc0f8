/*
 * NTT and quotient tests, all against naive references written here:
 *  - forward / inverse / coset forward / coset inverse against the O(n^2)
 *    definitions for every n = 2^0 .. 2^10, on every field back-end;
 *  - forward and coset forward at 2^11 .. 2^16 spot-checked at random
 *    indices by Horner evaluation (these sizes run the multi-pass
 *    cache-blocked paths and the tiled bit reversal);
 *  - inverse(forward(x)) = x and coset_inverse(coset_forward(x)) = x at 2^20
 *    (2^15 in sanitizer builds);
 *  - cz_quotient_h against naive polynomial arithmetic: A, B random of
 *    degree < m, A·B = H·Z + C by long division by Z = X^m − 1, a, b, c
 *    the Horner evaluations on the domain; the result must be H;
 *  - cz_quotient_odd_coset against Horner: A, B, C random of degree < m,
 *    a, b, c their evaluations on the domain, the result must be
 *    A·B − C evaluated at s·w^k (s = w_2m) for every k;
 *  - every result identical with a NULL pool and pools of 1, 2, 4 threads;
 *  - everything twice, on the AVX-512 IFMA kernels (where the CPU has
 *    them) and on the scalar ones, and the two bit-identical.
 */
#include "testutil.h"
#include "cuzk/ntt.h"
#include "poly/ntt_x8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CUZK_SANITIZED
#define ROUNDTRIP_LOG 15
#define SPOT_MAX_LOG 14
#define QUOT_NAIVE_MAX_LOG 9
#else
#define ROUNDTRIP_LOG 20
#define SPOT_MAX_LOG 16
#define QUOT_NAIVE_MAX_LOG 11
#endif

enum { NPOOLS = 4 };
static cz_pool *pools[NPOOLS]; /* NULL, 1, 2, 4 workers */
static const unsigned pool_threads[NPOOLS] = {0, 1, 2, 4};

static int setup(void **state)
{
    (void)state;
    pools[0] = NULL;
    for (int i = 1; i < NPOOLS; i++)
        if (cz_pool_create(&pools[i], pool_threads[i], "t-ntt") != CZ_OK) return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 1; i < NPOOLS; i++) cz_pool_destroy(pools[i]);
    return 0;
}

static cz_fr *alloc_fr(size_t n)
{
    cz_fr *p = malloc((n ? n : 1) * sizeof(cz_fr));
    assert_non_null(p);
    return p;
}

static void rand_vec(cz_fr *x, size_t n)
{
    for (size_t i = 0; i < n; i++) cz_rng_fr(&x[i]);
}

static void assert_fr_vec_equal(const cz_fr *x, const cz_fr *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!cz_fr_eq(&x[i], &y[i])) fail_msg("mismatch at index %zu of %zu", i, n);
    }
}

static void fr_pow_u(cz_fr *r, const cz_fr *a, uint64_t e)
{
    cz_fr_pow(r, a, &e, 1);
}

/* Horner: sum_i c[i] z^i */
static void horner(cz_fr *r, const cz_fr *c, size_t n, const cz_fr *z)
{
    cz_fr acc = CZ_FR_ZERO;
    for (size_t i = n; i-- > 0;) {
        cz_fr_mul(&acc, &acc, z);
        cz_fr_add(&acc, &acc, &c[i]);
    }
    *r = acc;
}

/* w = primitive n-th root; checks it really is one (w^n = 1, w^(n/2) != 1). */
static void root(cz_fr *w, unsigned L)
{
    cz_fr_root_of_unity(w, L);
    cz_fr t;
    fr_pow_u(&t, w, (uint64_t)1 << L);
    assert_true(cz_fr_is_one(&t));
    if (L > 0) {
        fr_pow_u(&t, w, (uint64_t)1 << (L - 1));
        assert_false(cz_fr_is_one(&t));
    }
}

/* out[k] = scale · sum_i x[i] (shift · base^k)^i  (naive O(n^2)) */
static void naive_eval(cz_fr *out, const cz_fr *x, size_t n, const cz_fr *base, const cz_fr *shift,
                       const cz_fr *scale)
{
    cz_fr z = *shift;
    for (size_t k = 0; k < n; k++) {
        horner(&out[k], x, n, &z);
        cz_fr_mul(&out[k], &out[k], scale);
        cz_fr_mul(&z, &z, base);
    }
}

/* Applies fn with every pool to a copy of x; checks all agree; returns the
 * result in x. */
typedef void (*xform_fn)(cz_pool *, const cz_ntt_domain *, cz_fr *);

static void apply_all_pools(xform_fn fn, const cz_ntt_domain *d, cz_fr *x, size_t n)
{
    cz_fr *ref = alloc_fr(n), *t = alloc_fr(n);
    memcpy(ref, x, n * sizeof *x);
    fn(NULL, d, ref);
    for (int p = 1; p < NPOOLS; p++) {
        memcpy(t, x, n * sizeof *x);
        fn(pools[p], d, t);
        assert_fr_vec_equal(t, ref, n);
    }
    memcpy(x, ref, n * sizeof *x);
    free(ref);
    free(t);
}

static void naive_small(void **state)
{
    (void)state;
    cz_fr g, gi, one = CZ_FR_ONE;
    cz_fr_from_u64(&g, 7);
    cz_fr_inv(&gi, &g);
    for (unsigned L = 0; L <= 10; L++) {
        size_t n = (size_t)1 << L;
        cz_ntt_domain *d;
        assert_int_equal(cz_ntt_domain_create(&d, L, pools[L % NPOOLS]), CZ_OK);
        assert_int_equal(cz_ntt_domain_size(d), n);
        assert_int_equal(cz_ntt_domain_log_n(d), L);
        cz_fr w, wi, ninv, nf;
        root(&w, L);
        cz_fr_inv(&wi, &w);
        cz_fr_from_u64(&nf, n);
        cz_fr_inv(&ninv, &nf);
        cz_fr *x = alloc_fr(n), *y = alloc_fr(n), *ref = alloc_fr(n);
        rand_vec(x, n);

        /* forward: X[k] = sum x_i w^(ik) */
        memcpy(y, x, n * sizeof *x);
        apply_all_pools(cz_ntt_forward, d, y, n);
        naive_eval(ref, x, n, &w, &one, &one);
        assert_fr_vec_equal(y, ref, n);

        /* inverse: x_i = (1/n) sum X_k w^(-ik) */
        memcpy(y, x, n * sizeof *x);
        apply_all_pools(cz_ntt_inverse, d, y, n);
        naive_eval(ref, x, n, &wi, &one, &ninv);
        assert_fr_vec_equal(y, ref, n);

        /* coset forward: X[k] = sum x_i (g w^k)^i */
        memcpy(y, x, n * sizeof *x);
        apply_all_pools(cz_ntt_coset_forward, d, y, n);
        naive_eval(ref, x, n, &w, &g, &one);
        assert_fr_vec_equal(y, ref, n);

        /* coset inverse: x_i = g^-i (1/n) sum_k X_k w^(-ik) */
        memcpy(y, x, n * sizeof *x);
        apply_all_pools(cz_ntt_coset_inverse, d, y, n);
        naive_eval(ref, x, n, &wi, &one, &ninv);
        cz_fr gp = CZ_FR_ONE;
        for (size_t i = 0; i < n; i++) {
            cz_fr_mul(&ref[i], &ref[i], &gp);
            cz_fr_mul(&gp, &gp, &gi);
        }
        assert_fr_vec_equal(y, ref, n);

        free(x);
        free(y);
        free(ref);
        cz_ntt_domain_free(d);
    }
}

/* The transforms only use the public field API; run the small sizes on
 * every field back-end (portable, ADX) to be sure. The pools are idle
 * while the back-end switches. */
static void naive_small_backends(void **state)
{
    cz_for_each_backend(naive_small, state);
}

/* Larger sizes: the blocked multi-pass paths, spot-checked by Horner. */
static void spot_large(void **state)
{
    (void)state;
    cz_fr g;
    cz_fr_from_u64(&g, 7);
    for (unsigned L = 11; L <= SPOT_MAX_LOG; L++) {
        size_t n = (size_t)1 << L;
        cz_ntt_domain *d;
        assert_int_equal(cz_ntt_domain_create(&d, L, pools[2]), CZ_OK);
        cz_fr w;
        root(&w, L);
        cz_fr *x = alloc_fr(n), *y = alloc_fr(n), *z = alloc_fr(n);
        rand_vec(x, n);
        memcpy(y, x, n * sizeof *x);
        apply_all_pools(cz_ntt_forward, d, y, n);
        memcpy(z, x, n * sizeof *x);
        apply_all_pools(cz_ntt_coset_forward, d, z, n);
        for (int s = 0; s < 12; s++) {
            size_t k = s == 0 ? 0 : s == 1 ? n - 1 : s == 2 ? n / 2 : (size_t)(cz_rng_u64() % n);
            cz_fr pt, v;
            fr_pow_u(&pt, &w, k);
            horner(&v, x, n, &pt);
            if (!cz_fr_eq(&v, &y[k])) fail_msg("forward 2^%u wrong at %zu", L, k);
            cz_fr_mul(&pt, &pt, &g);
            horner(&v, x, n, &pt);
            if (!cz_fr_eq(&v, &z[k])) fail_msg("coset forward 2^%u wrong at %zu", L, k);
        }
        /* inverses undo them */
        apply_all_pools(cz_ntt_inverse, d, y, n);
        assert_fr_vec_equal(y, x, n);
        apply_all_pools(cz_ntt_coset_inverse, d, z, n);
        assert_fr_vec_equal(z, x, n);
        free(x);
        free(y);
        free(z);
        cz_ntt_domain_free(d);
    }
}

static void roundtrip_big(void **state)
{
    (void)state;
    unsigned L = ROUNDTRIP_LOG;
    size_t n = (size_t)1 << L;
    cz_ntt_domain *d;
    assert_int_equal(cz_ntt_domain_create(&d, L, pools[3]), CZ_OK);
    assert_true(cz_ntt_domain_memory(L) >= n / 2 * sizeof(cz_fr));
    cz_fr *x = alloc_fr(n), *y = alloc_fr(n), *y2 = alloc_fr(n);
    rand_vec(x, n);
    /* serial and threaded forward agree */
    memcpy(y, x, n * sizeof *x);
    memcpy(y2, x, n * sizeof *x);
    cz_ntt_forward(NULL, d, y);
    cz_ntt_forward(pools[2], d, y2);
    assert_fr_vec_equal(y, y2, n);
    /* spot check the forward transform */
    cz_fr w;
    root(&w, L);
    for (int s = 0; s < 3; s++) {
        size_t k = (size_t)(cz_rng_u64() % n);
        cz_fr pt, v;
        fr_pow_u(&pt, &w, k);
        horner(&v, x, n, &pt);
        assert_true(cz_fr_eq(&v, &y[k]));
    }
    cz_ntt_inverse(pools[1], d, y);
    assert_fr_vec_equal(y, x, n);
    memcpy(y, x, n * sizeof *x);
    cz_ntt_coset_forward(pools[3], d, y);
    cz_ntt_coset_inverse(NULL, d, y);
    assert_fr_vec_equal(y, x, n);
    free(x);
    free(y);
    free(y2);
    cz_ntt_domain_free(d);
}

/* naive quotient reference: returns H (m-1 coefficients, m >= 1), and
 * fills a, b, c with evaluations on the domain. */
static void make_quotient_case(unsigned L, cz_fr *a, cz_fr *b, cz_fr *c, cz_fr *H)
{
    size_t m = (size_t)1 << L;
    cz_fr *A = alloc_fr(m), *B = alloc_fr(m), *P = alloc_fr(2 * m), *C = alloc_fr(m);
    rand_vec(A, m);
    rand_vec(B, m);
    /* P = A·B, degree <= 2m-2 */
    for (size_t i = 0; i < 2 * m; i++) P[i] = CZ_FR_ZERO;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++) {
            cz_fr t;
            cz_fr_mul(&t, &A[i], &B[j]);
            cz_fr_add(&P[i + j], &P[i + j], &t);
        }
    /* long division by X^m - 1: X^m ≡ 1, so the top coefficient moves down */
    cz_fr *R = alloc_fr(2 * m);
    memcpy(R, P, 2 * m * sizeof *P);
    for (size_t i = 0; i + 1 < m; i++) H[i] = CZ_FR_ZERO;
    for (size_t k = 2 * m - 1; k >= m; k--) {
        H[k - m] = R[k]; /* k - m <= m - 1; R[2m-1] = 0 so H[m-1] is never set */
        cz_fr_add(&R[k - m], &R[k - m], &R[k]);
        R[k] = CZ_FR_ZERO;
    }
    memcpy(C, R, m * sizeof *C);
    /* sanity: H·(X^m - 1) + C == P */
    cz_fr *chk = alloc_fr(2 * m);
    for (size_t i = 0; i < 2 * m; i++) chk[i] = i < m ? C[i] : CZ_FR_ZERO;
    for (size_t i = 0; i + 1 < m; i++) {
        cz_fr_add(&chk[i + m], &chk[i + m], &H[i]);
        cz_fr_sub(&chk[i], &chk[i], &H[i]);
    }
    assert_fr_vec_equal(chk, P, 2 * m);
    /* evaluations on the domain (Horner, independent of the NTT) */
    cz_fr w, one = CZ_FR_ONE;
    root(&w, L);
    naive_eval(a, A, m, &w, &one, &one);
    naive_eval(b, B, m, &w, &one, &one);
    naive_eval(c, C, m, &w, &one, &one);
    free(A);
    free(B);
    free(P);
    free(C);
    free(R);
    free(chk);
}

static void quotient_naive(void **state)
{
    (void)state;
    for (unsigned L = 0; L <= QUOT_NAIVE_MAX_LOG; L++) {
        size_t m = (size_t)1 << L;
        cz_ntt_domain *d;
        assert_int_equal(cz_ntt_domain_create(&d, L, NULL), CZ_OK);
        cz_fr *a = alloc_fr(m), *b = alloc_fr(m), *c = alloc_fr(m), *H = alloc_fr(m);
        make_quotient_case(L, a, b, c, H);
        cz_fr *a2 = alloc_fr(m), *b2 = alloc_fr(m), *c2 = alloc_fr(m);
        for (int p = 0; p < NPOOLS; p++) {
            memcpy(a2, a, m * sizeof *a);
            memcpy(b2, b, m * sizeof *a);
            memcpy(c2, c, m * sizeof *a);
            cz_quotient_h(pools[p], d, a2, b2, c2);
            if (m > 1) assert_fr_vec_equal(a2, H, m - 1);
            if (!cz_fr_is_zero(&a2[m - 1])) fail_msg("top coefficient not zero (m = %zu)", m);
        }
        free(a);
        free(b);
        free(c);
        free(H);
        free(a2);
        free(b2);
        free(c2);
        cz_ntt_domain_free(d);
    }
}

static void quotient_odd_coset_naive(void **state)
{
    (void)state;
    for (unsigned L = 0; L <= QUOT_NAIVE_MAX_LOG; L++) {
        size_t m = (size_t)1 << L;
        cz_ntt_domain *d;
        assert_int_equal(cz_ntt_domain_create(&d, L, NULL), CZ_OK);
        cz_fr *P[3], *ev[3], *co[3];
        cz_fr w, s, one = CZ_FR_ONE;
        root(&w, L);
        root(&s, L + 1);
        for (int i = 0; i < 3; i++) {
            P[i] = alloc_fr(m);
            ev[i] = alloc_fr(m);
            co[i] = alloc_fr(m);
            rand_vec(P[i], m);
            naive_eval(ev[i], P[i], m, &w, &one, &one); /* on <w> */
            naive_eval(co[i], P[i], m, &w, &s, &one);   /* on s·<w> */
        }
        cz_fr *want = alloc_fr(m), *x[3];
        for (size_t k = 0; k < m; k++) {
            cz_fr_mul(&want[k], &co[0][k], &co[1][k]);
            cz_fr_sub(&want[k], &want[k], &co[2][k]);
        }
        for (int i = 0; i < 3; i++) x[i] = alloc_fr(m);
        for (int p = 0; p < NPOOLS; p++) {
            for (int i = 0; i < 3; i++) memcpy(x[i], ev[i], m * sizeof(cz_fr));
            cz_quotient_odd_coset(pools[p], d, x[0], x[1], x[2]);
            assert_fr_vec_equal(x[0], want, m);
        }
        for (int i = 0; i < 3; i++) {
            free(P[i]);
            free(ev[i]);
            free(co[i]);
            free(x[i]);
        }
        free(want);
        cz_ntt_domain_free(d);
    }
}

/* Larger quotient: a·b − c where c = a·b pointwise on the domain except for
 * a multiple of Z... i.e. any consistent witness; checked by the defining
 * identity at a random point z: A(z)·B(z) − C(z) = H(z)·(z^m − 1). */
static void quotient_identity(void **state)
{
    (void)state;
    unsigned L = SPOT_MAX_LOG;
    size_t m = (size_t)1 << L;
    cz_ntt_domain *d;
    assert_int_equal(cz_ntt_domain_create(&d, L, pools[2]), CZ_OK);
    cz_fr *a = alloc_fr(m), *b = alloc_fr(m), *c = alloc_fr(m), *ref = NULL;
    cz_fr *A = alloc_fr(m), *B = alloc_fr(m), *C = alloc_fr(m);
    /* witness-like: a, b random on the first 3/4 (zero-padded), c = a·b */
    size_t used = m - m / 4;
    for (size_t i = 0; i < m; i++) {
        if (i < used) {
            cz_rng_fr(&a[i]);
            cz_rng_fr(&b[i]);
        } else {
            a[i] = b[i] = CZ_FR_ZERO;
        }
        cz_fr_mul(&c[i], &a[i], &b[i]);
    }
    memcpy(A, a, m * sizeof *a);
    memcpy(B, b, m * sizeof *a);
    memcpy(C, c, m * sizeof *a);
    cz_ntt_inverse(NULL, d, A); /* coefficients (already tested above) */
    cz_ntt_inverse(NULL, d, B);
    cz_ntt_inverse(NULL, d, C);
    cz_fr *a2 = alloc_fr(m), *b2 = alloc_fr(m), *c2 = alloc_fr(m);
    for (int p = 0; p < NPOOLS; p++) {
        memcpy(a2, a, m * sizeof *a);
        memcpy(b2, b, m * sizeof *a);
        memcpy(c2, c, m * sizeof *a);
        cz_quotient_h(pools[p], d, a2, b2, c2);
        if (!ref) {
            ref = alloc_fr(m);
            memcpy(ref, a2, m * sizeof *a);
        } else {
            assert_fr_vec_equal(a2, ref, m);
        }
    }
    assert_true(cz_fr_is_zero(&ref[m - 1]));
    for (int s = 0; s < 4; s++) {
        cz_fr z, va, vb, vc, vh, zm, lhs, rhs;
        cz_rng_fr(&z);
        horner(&va, A, m, &z);
        horner(&vb, B, m, &z);
        horner(&vc, C, m, &z);
        horner(&vh, ref, m - 1, &z);
        fr_pow_u(&zm, &z, m);
        cz_fr_sub(&zm, &zm, &CZ_FR_ONE);
        cz_fr_mul(&lhs, &va, &vb);
        cz_fr_sub(&lhs, &lhs, &vc);
        cz_fr_mul(&rhs, &vh, &zm);
        assert_true(cz_fr_eq(&lhs, &rhs));
    }
    free(a);
    free(b);
    free(c);
    free(ref);
    free(A);
    free(B);
    free(C);
    free(a2);
    free(b2);
    free(c2);
    cz_ntt_domain_free(d);
}

static void domain_args(void **state)
{
    (void)state;
    cz_ntt_domain *d = (cz_ntt_domain *)1;
    assert_int_equal(cz_ntt_domain_create(&d, CZ_NTT_MAX_LOG_N + 1, NULL), CZ_ERR_INVALID_ARG);
    assert_null(d);
    assert_int_equal(cz_ntt_domain_create(NULL, 3, NULL), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_ntt_domain_memory(CZ_NTT_MAX_LOG_N + 1), 0);
    cz_ntt_domain_free(NULL);
}

/* The vector kernels (AVX-512 IFMA, or AVX2 + MULX in the ntt_avx2 group)
 * and the scalar ones give identical arrays for every transform and the
 * quotient (sizes that use every kernel: short
 * rows, one inner block, several outer passes). */
/* cz_fr_pointwise_mul on whichever kernels the group runs gives
 * cz_fr_mul's products: every count from 0 to 40 (runs of eight and
 * tails), then 1,000; random values, 0, 1, r - 1 and a = b. */
static void pointwise_mul_matches_fr_mul(void **state)
{
    (void)state;
    enum { N = 1000 };
    cz_fr *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *got = malloc(N * sizeof *got),
          *want = malloc(N * sizeof *want);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(got);
    assert_non_null(want);
    for (size_t i = 0; i < N; i++) {
        cz_rng_fr(&a[i]);
        cz_rng_fr(&b[i]);
    }
    cz_fr rm1 = {{CZ_FR_MODULUS[0] - 1, CZ_FR_MODULUS[1], CZ_FR_MODULUS[2], CZ_FR_MODULUS[3]}};
    memset(&a[3], 0, sizeof a[3]);
    a[5] = CZ_FR_ONE;
    a[9] = b[9] = rm1;
    b[10] = rm1;
    b[17] = a[17];
    for (size_t n = 0; n <= N; n = n < 40 ? n + 1 : N) {
        for (size_t i = 0; i < n; i++) cz_fr_mul(&want[i], &a[i], &b[i]);
        memcpy(got, a, n * sizeof *got);
        cz_fr_pointwise_mul(got, b, n);
        if (n && memcmp(got, want, n * sizeof *got) != 0) {
            print_error("pointwise products differ at n = %zu\n", n);
            fail();
        }
        memcpy(got, b, n * sizeof *got); /* a = b: squares */
        cz_fr_pointwise_mul(got, got, n);
        for (size_t i = 0; i < n; i++) {
            cz_fr sq;
            cz_fr_mul(&sq, &b[i], &b[i]);
            assert_memory_equal(&got[i], &sq, sizeof sq);
        }
        if (n == N) break;
    }
    free(a);
    free(b);
    free(got);
    free(want);
}

static void simd_matches_scalar(void **state)
{
    (void)state;
    if (!cz_ntt_simd_available()) {
        print_message("# no vector kernels in use on this CPU: scalar kernels only\n");
        skip();
    }
    const bool prev = cz_ntt_simd_enabled();
    static const unsigned logs[] = {3, 4, 6, 8, 9, 12, 14, 17};
    for (size_t li = 0; li < sizeof logs / sizeof logs[0]; li++) {
        unsigned L = logs[li];
        size_t n = (size_t)1 << L;
        cz_ntt_domain *d;
        assert_int_equal(cz_ntt_domain_create(&d, L, NULL), CZ_OK);
        cz_fr *x[2][3];
        for (int v = 0; v < 2; v++)
            for (int i = 0; i < 3; i++) assert_non_null(x[v][i] = malloc(n * sizeof(cz_fr)));
        for (int op = 0; op < 6; op++) {
            for (int i = 0; i < 3; i++)
                for (size_t j = 0; j < n; j++) cz_rng_fr(&x[0][i][j]);
            for (int i = 0; i < 3; i++) memcpy(x[1][i], x[0][i], n * sizeof(cz_fr));
            for (int v = 0; v < 2; v++) {
                cz_ntt_set_simd(v == 0);
                cz_pool *pool = pools[v ? 1 : NPOOLS - 1];
                switch (op) {
                case 0: cz_ntt_forward(pool, d, x[v][0]); break;
                case 1: cz_ntt_inverse(pool, d, x[v][0]); break;
                case 2: cz_ntt_coset_forward(pool, d, x[v][0]); break;
                case 3: cz_ntt_coset_inverse(pool, d, x[v][0]); break;
                case 4: cz_quotient_h(pool, d, x[v][0], x[v][1], x[v][2]); break;
                default: cz_quotient_odd_coset(pool, d, x[v][0], x[v][1], x[v][2]); break;
                }
            }
            cz_ntt_set_simd(prev);
            if (memcmp(x[0][0], x[1][0], n * sizeof(cz_fr)) != 0) {
                print_error("simd and scalar differ: op %d, n = 2^%u\n", op, L);
                fail();
            }
        }
        for (int v = 0; v < 2; v++)
            for (int i = 0; i < 3; i++) free(x[v][i]);
        cz_ntt_domain_free(d);
    }
}

/* The periodic re-reading of a measured "scalar" (cz__ntt_lanes_tick):
 * none planned or one an hour away, a transform takes no reading; one
 * due, the next transform takes exactly one, which never turns on
 * kernels the caller switched off, and either takes the AVX2 butterflies
 * (no reading planned after) or plans the next after a gap of one
 * second to a minute; the transform after takes none. Injected slow
 * readings double the gap up to the period; a fast one takes the AVX2
 * butterflies. Every round trip stays exact. Run once,
 * outside the three groups, since it changes the choice. */
static void lanes_periodic(void **state)
{
    (void)state;
    if (!cz__ntt_x16_supported()) {
        fprintf(stderr, "lanes_periodic: no AVX2 + MULX butterflies here: skipped\n");
        skip();
    }
    const int prev = cz__ntt_v_preferred();
    const bool was_on = cz_ntt_simd_enabled();
    enum { L = 10, N = 1 << L };
    cz_ntt_domain *d;
    assert_int_equal(cz_ntt_domain_create(&d, L, NULL), CZ_OK);
    cz_fr *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    assert_non_null(x);
    assert_non_null(y);
    rand_vec(x, N);
    memcpy(y, x, N * sizeof *x);
    assert_true(cz__ntt_v_force(CZ_NTT_V_NONE));
    const int r0 = cz__ntt_lanes_readings();
    cz_ntt_forward(NULL, d, x); /* none planned */
    cz__ntt_lanes_set_periodic(3600);
    cz_ntt_inverse(NULL, d, x); /* an hour away */
    assert_int_equal(cz__ntt_lanes_readings(), r0);
    assert_fr_vec_equal(x, y, N);

    cz_ntt_set_simd(false);
    cz__ntt_lanes_set_periodic(0);
    cz_ntt_coset_forward(NULL, d, x);
    assert_int_equal(cz__ntt_lanes_readings(), r0 + 1);
    assert_false(cz_ntt_simd_enabled());
    cz_ntt_coset_inverse(NULL, d, x);
    assert_int_equal(cz__ntt_lanes_readings(), r0 + 1);
    assert_fr_vec_equal(x, y, N);

    assert_true(cz__ntt_v_force(CZ_NTT_V_NONE)); /* the caller's switch-off lifted */
    cz__ntt_lanes_set_periodic(0);
    cz_ntt_forward(NULL, d, x);
    assert_int_equal(cz__ntt_lanes_readings(), r0 + 2);
    const double r = cz__ntt_lanes_last();
    assert_true(r > 0);
    if (cz_ntt_simd_enabled()) {
        assert_int_equal(cz__ntt_v_preferred(), CZ_NTT_V_AVX2);
        assert_true(cz__ntt_lanes_periodic_in() < 0);
        assert_true(r <= CZ_NTT_AVX2_MAX_RATIO);
    } else {
        assert_int_equal(cz__ntt_v_preferred(), CZ_NTT_V_NONE);
        /* the next one after a gap of one second to a minute */
        const double in = cz__ntt_lanes_periodic_in();
        assert_true(in > 0.5 && in <= CZ_NTT_RECHECK_PERIOD_S);
        assert_true(r > CZ_NTT_AVX2_MAX_RATIO);
    }
    cz_ntt_inverse(NULL, d, x);
    assert_int_equal(cz__ntt_lanes_readings(), r0 + 2);
    assert_fr_vec_equal(x, y, N);
    print_message("periodic reading: %s (read %.2f)\n", cz_ntt_simd_enabled() ? "avx2" : "scalar", r);

    /* slow readings (injected): each plans the next after the current
     * gap, which doubles up to the period and stays there; a fast one
     * then takes the AVX2 butterflies and plans nothing */
    assert_true(cz__ntt_v_force(CZ_NTT_V_NONE));
    double gap = cz__ntt_lanes_gap();
    assert_true(gap >= 1 && gap <= CZ_NTT_RECHECK_PERIOD_S);
    for (int i = 0; i < 8; i++) {
        cz__ntt_lanes_set_periodic(0);
        cz__ntt_lanes_inject(1.5);
        cz_ntt_forward(NULL, d, x);
        assert_int_equal(cz__ntt_v_preferred(), CZ_NTT_V_NONE);
        const double in = cz__ntt_lanes_periodic_in(), want = 2 * gap < CZ_NTT_RECHECK_PERIOD_S ? 2 * gap
                                                                                              : CZ_NTT_RECHECK_PERIOD_S;
        assert_true(in > gap - 0.5 && in <= gap + 0.01);
        assert_true(cz__ntt_lanes_gap() == want);
        gap = want;
    }
    assert_true(gap == CZ_NTT_RECHECK_PERIOD_S);
    cz__ntt_lanes_set_periodic(0);
    cz__ntt_lanes_inject(0.5);
    cz_ntt_inverse(NULL, d, x);
    assert_int_equal(cz__ntt_v_preferred(), CZ_NTT_V_AVX2);
    assert_true(cz__ntt_lanes_periodic_in() < 0);

    assert_true(cz__ntt_v_force(prev));
    cz_ntt_set_simd(was_on);
    free(x);
    free(y);
    cz_ntt_domain_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(domain_args),    cmocka_unit_test(naive_small_backends),
        cmocka_unit_test(spot_large),     cmocka_unit_test(roundtrip_big),
        cmocka_unit_test(quotient_naive), cmocka_unit_test(quotient_odd_coset_naive),
        cmocka_unit_test(quotient_identity),
        cmocka_unit_test(simd_matches_scalar), cmocka_unit_test(pointwise_mul_matches_fr_mul),
    };
    /* every test on the default kernels (AVX-512 IFMA where the CPU has
     * it), then again on the scalar ones */
    int rc = cmocka_run_group_tests_name("ntt_default", tests, setup, teardown);
    if (cz_ntt_simd_available()) {
        cz_ntt_set_simd(false);
        rc |= cmocka_run_group_tests_name("ntt_scalar", tests, setup, teardown);
        cz_ntt_set_simd(true);
    }
    /* and on the AVX2 + MULX butterflies where the CPU has AVX2 and FMA
     * (opt-in in production: CUZK_NTT_LANES=avx2) */
    const int prev = cz__ntt_v_preferred();
    if (cz__ntt_v_force(CZ_NTT_V_AVX2)) {
        rc |= cmocka_run_group_tests_name("ntt_avx2", tests, setup, teardown);
        assert_true(cz__ntt_v_force(prev));
    }
    const struct CMUnitTest once[] = {cmocka_unit_test(lanes_periodic)};
    rc |= cmocka_run_group_tests_name("ntt_lanes", once, NULL, NULL);
    return rc;
}
