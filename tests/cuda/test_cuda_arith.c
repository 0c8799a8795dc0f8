/*
 * Host test of the CUDA backend's arithmetic (src/cuda/dev_arith.h), built
 * by gcc in every build (no GPU, no nvcc needed): the __host__ __device__
 * functions the kernels run are compared on random inputs with the CPU
 * library (cuzk/field.h, cuzk/curve.h), which is itself tested against GMP
 * and known-answer vectors. Edge values (0, 1, p - 1) and the special cases
 * of the point formulas (P + P, P + (-P), infinity on either side) are
 * covered explicitly. The host emulations of the CUDA intrinsics
 * (dev_intrin.h), which the shared code runs on the host, are checked
 * against independent definitions (128-bit products, bit loops); the
 * 32-bit carry-chain Montgomery multiplication (dev_mul32.h) against the
 * CPU's cz_fp_mul / cz_fr_mul.
 */
#include "testutil.h"
#include "cuda/dev_arith.h"
#include <string.h>

#ifdef CUZK_SANITIZED
#define ITERS 300
#define PITERS 20
#else
#define ITERS 3000
#define PITERS 200
#endif

static int setup(void **state)
{
    (void)state;
    cz_test_seed();
    return 0;
}

static void test_constants(void **state)
{
    (void)state;
    const uint64_t fp[6] = CZ_DEV_FP_P, fr[4] = CZ_DEV_FR_P;
    const uint64_t fp1[6] = CZ_DEV_FP_ONE, fr1[4] = CZ_DEV_FR_ONE;
    assert_memory_equal(fp, CZ_FP_MODULUS, sizeof fp);
    assert_memory_equal(fr, CZ_FR_MODULUS, sizeof fr);
    assert_memory_equal(fp1, CZ_FP_ONE.l, sizeof fp1);
    assert_memory_equal(fr1, CZ_FR_ONE.l, sizeof fr1);
    /* -m^-1 mod 2^64 */
    assert_true((uint64_t)(fp[0] * CZ_DEV_FP_INV) == UINT64_MAX);
    assert_true((uint64_t)(fr[0] * CZ_DEV_FR_INV) == UINT64_MAX);
}

/* ---- dev_intrin.h: the host emulations of the CUDA intrinsics, against
 * independent definitions (128-bit product, bit loops) ---------------------- */
static uint64_t ref_umul64hi(uint64_t a, uint64_t b) { return (uint64_t)(((unsigned __int128)a * b) >> 64); }
static int ref_popcll(uint64_t v)
{
    int n = 0;
    for (int i = 0; i < 64; i++) n += (int)((v >> i) & 1);
    return n;
}
static uint64_t ref_brevll(uint64_t v)
{
    uint64_t r = 0;
    for (int i = 0; i < 64; i++) r |= ((v >> i) & 1) << (63 - i);
    return r;
}

static void check_intrin_pair(uint64_t a, uint64_t b)
{
    assert_true(czh_umul64hi(a, b) == ref_umul64hi(a, b));
    assert_true(czh_umul64hi(b, a) == ref_umul64hi(a, b));
    assert_int_equal(czh_popcll(a), ref_popcll(a));
    assert_true(czh_brevll(a) == ref_brevll(a));
    /* the macros the shared code calls map to the emulations on the host */
    assert_true(CZ_UMUL64HI(a, b) == ref_umul64hi(a, b));
    assert_int_equal(CZ_POPCLL(a), ref_popcll(a));
    assert_true(CZ_BREVLL(a) == ref_brevll(a));
}

static void test_intrinsics(void **state)
{
    (void)state;
    uint64_t edge[4 + 3 * 64];
    size_t ne = 0;
    edge[ne++] = 0;
    edge[ne++] = 1;
    edge[ne++] = UINT64_MAX;
    edge[ne++] = UINT64_MAX - 1;
    for (int i = 0; i < 64; i++) {
        edge[ne++] = (uint64_t)1 << i;          /* single bits */
        edge[ne++] = ~((uint64_t)1 << i);       /* all ones but one */
        edge[ne++] = ((uint64_t)1 << i) - 1;    /* low masks */
    }
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++) check_intrin_pair(edge[i], edge[j]);
    for (int i = 0; i < 20 * ITERS; i++) {
        uint64_t a = cz_rng_u64(), b = cz_rng_u64();
        if (i & 1) a >>= (b & 63); /* short operands */
        check_intrin_pair(a, b);
        check_intrin_pair(a, edge[(size_t)i % ne]);
    }
    /* the atomic emulation: returns the old value, adds */
    uint32_t w = 0xfffffffeu;
    assert_int_equal(czh_atomic_add_u32(&w, 1), 0xfffffffeu);
    assert_int_equal(CZ_ATOMIC_ADD_U32(&w, 3), 0xffffffffu);
    assert_int_equal(w, 2);
    /* cz_d_mac (written once with CZ_UMUL64HI) against 128-bit arithmetic,
     * including the largest operands (a·b + c + d = 2^128 - 1) */
    for (int i = 0; i < 20 * ITERS; i++) {
        uint64_t a = i < (int)ne ? edge[i] : cz_rng_u64(), b = cz_rng_u64(), c = cz_rng_u64(), d = cz_rng_u64();
        if (i % 7 == 0) a = b = c = d = UINT64_MAX;
        unsigned __int128 t = (unsigned __int128)a * b + c + d;
        uint64_t hi, lo = cz_d_mac(a, b, c, d, &hi);
        assert_true(lo == (uint64_t)t && hi == (uint64_t)(t >> 64));
    }
}

/* forward: the pickers below */
static void pick_fp(cz_fp *r, int i);
static void pick_fr(cz_fr *r, int i);

/* dev_mul32.h (portable carry chains): bit-identical to the CPU's
 * cz_fp_mul / cz_fr_mul on random and edge inputs (0, 1, p - 1, and
 * operands with all-ones words), aliasing included */
static void test_mul32(void **state)
{
    (void)state;
    const uint64_t fp[6] = CZ_DEV_FP_P, fr[4] = CZ_DEV_FR_P;
    for (int i = 0; i < 4 * ITERS; i++) {
        cz_fp a, b, x, y;
        pick_fp(&a, i);
        pick_fp(&b, i / 11 + 7 * i);
        if (i % 13 == 5) { /* words 0xffffffff in the low limbs */
            a.l[0] = a.l[1] = UINT64_MAX;
            b.l[0] = 0xffffffff00000000ULL;
        }
        cz_fp_mul(&x, &a, &b);
        cz_d_mont_mul32(y.l, a.l, b.l, fp, CZ_DEV_FP_INV, 6);
        assert_memory_equal(&x, &y, sizeof x);
        y = a;
        cz_d_mont_mul32(y.l, y.l, y.l, fp, CZ_DEV_FP_INV, 6);
        cz_fp_sqr(&x, &a);
        assert_memory_equal(&x, &y, sizeof x);
        cz_fr c, d, u, v;
        pick_fr(&c, i);
        pick_fr(&d, i / 11 + 7 * i);
        if (i % 13 == 5) c.l[0] = c.l[2] = UINT64_MAX;
        cz_fr_mul(&u, &c, &d);
        cz_d_mont_mul32(v.l, c.l, d.l, fr, CZ_DEV_FR_INV, 4);
        assert_memory_equal(&u, &v, sizeof u);
        v = d;
        cz_d_mont_mul32(v.l, c.l, v.l, fr, CZ_DEV_FR_INV, 4);
        assert_memory_equal(&u, &v, sizeof u);
    }
}

/* random element, with edge values mixed in */
static void pick_fp(cz_fp *r, int i)
{
    switch (i % 11) {
    case 0: *r = CZ_FP_ZERO; break;
    case 1: *r = CZ_FP_ONE; break;
    case 2: memcpy(r->l, CZ_FP_MODULUS, sizeof r->l); r->l[0] -= 1; break; /* p - 1 */
    default: cz_rng_fp(r);
    }
}

static void pick_fr(cz_fr *r, int i)
{
    switch (i % 11) {
    case 0: *r = CZ_FR_ZERO; break;
    case 1: *r = CZ_FR_ONE; break;
    case 2: memcpy(r->l, CZ_FR_MODULUS, sizeof r->l); r->l[0] -= 1; break;
    default: cz_rng_fr(r);
    }
}

static void test_fp(void **state)
{
    (void)state;
    for (int i = 0; i < ITERS; i++) {
        cz_fp a, b, x, y;
        pick_fp(&a, i);
        pick_fp(&b, i / 11 + 3 * i);
        cz_fp_add(&x, &a, &b); cz_d_fp_add(&y, &a, &b); assert_memory_equal(&x, &y, sizeof x);
        cz_fp_sub(&x, &a, &b); cz_d_fp_sub(&y, &a, &b); assert_memory_equal(&x, &y, sizeof x);
        cz_fp_mul(&x, &a, &b); cz_d_fp_mul(&y, &a, &b); assert_memory_equal(&x, &y, sizeof x);
        cz_fp_sqr(&x, &a); cz_d_fp_sqr(&y, &a); assert_memory_equal(&x, &y, sizeof x);
        cz_fp_neg(&x, &a); cz_d_fp_neg(&y, &a); assert_memory_equal(&x, &y, sizeof x);
        cz_fp_dbl(&x, &a); cz_d_fp_dbl(&y, &a); assert_memory_equal(&x, &y, sizeof x);
        assert_int_equal(cz_fp_is_zero(&a), cz_d_fp_is_zero(&a));
        assert_int_equal(cz_fp_eq(&a, &b), cz_d_fp_eq(&a, &b));
        /* aliasing: out = in */
        y = a;
        cz_d_fp_mul(&y, &y, &y);
        cz_fp_sqr(&x, &a);
        assert_memory_equal(&x, &y, sizeof x);
    }
}

static void test_fr(void **state)
{
    (void)state;
    for (int i = 0; i < ITERS; i++) {
        cz_fr a, b, x, y;
        pick_fr(&a, i);
        pick_fr(&b, i / 11 + 5 * i);
        cz_fr_add(&x, &a, &b); cz_d_fr_add(&y, &a, &b); assert_memory_equal(&x, &y, sizeof x);
        cz_fr_sub(&x, &a, &b); cz_d_fr_sub(&y, &a, &b); assert_memory_equal(&x, &y, sizeof x);
        cz_fr_mul(&x, &a, &b); cz_d_fr_mul(&y, &a, &b); assert_memory_equal(&x, &y, sizeof x);
        cz_fr_neg(&x, &a); cz_d_fr_neg(&y, &a); assert_memory_equal(&x, &y, sizeof x);
        cz_scalar s1, s2;
        cz_scalar_from_fr(&s1, &a);
        cz_d_fr_from_mont(&s2, &a);
        assert_memory_equal(&s1, &s2, sizeof s1);
    }
}

static void test_fp2(void **state)
{
    (void)state;
    for (int i = 0; i < ITERS; i++) {
        cz_fp2 a, b, x, y;
        pick_fp(&a.c0, i);
        pick_fp(&a.c1, i + 1);
        pick_fp(&b.c0, i + 2);
        pick_fp(&b.c1, 7 * i);
        cz_fp2_add(&x, &a, &b); cz_d_fp2_add(&y, &a, &b); assert_memory_equal(&x, &y, sizeof x);
        cz_fp2_sub(&x, &a, &b); cz_d_fp2_sub(&y, &a, &b); assert_memory_equal(&x, &y, sizeof x);
        cz_fp2_mul(&x, &a, &b); cz_d_fp2_mul(&y, &a, &b); assert_memory_equal(&x, &y, sizeof x);
        cz_fp2_sqr(&x, &a); cz_d_fp2_sqr(&y, &a); assert_memory_equal(&x, &y, sizeof x);
        cz_fp2_neg(&x, &a); cz_d_fp2_neg(&y, &a); assert_memory_equal(&x, &y, sizeof x);
    }
}

/* ---- points: the same test body for G1 and G2 ------------------------------ */
#define POINT_TESTS(G)                                                                      \
    static void G##_random(cz_##G##_jac *j, cz_##G##_affine *a)                              \
    {                                                                                       \
        cz_##G##_jac g;                                                                     \
        cz_##G##_generator_jac(&g);                                                         \
        uint64_t k[4] = { cz_rng_u64(), cz_rng_u64(), cz_rng_u64(), cz_rng_u64() >> 2 };    \
        cz_##G##_jac_mul_var(j, &g, k, 4);                                                  \
        cz_##G##_jac_to_affine(a, j);                                                       \
    }                                                                                       \
    /* XYZZ made by the CPU library from a Jacobian point with Z != 1 */                  \
    static void G##_to_xyzz_cpu(cz_##G##_xyzz *r, const cz_##G##_jac *j)                    \
    {                                                                                       \
        cz_##G##_jac d;                                                                     \
        cz_##G##_jac_dbl(&d, j);                                                            \
        cz_##G##_jac_to_xyzz(r, &d);                                                        \
    }                                                                                       \
    static void G##_assert_eq(const cz_##G##_xyzz *dev, const cz_##G##_jac *ref)           \
    {                                                                                       \
        cz_##G##_jac j;                                                                     \
        cz_##G##_xyzz_to_jac(&j, dev);                                                      \
        assert_true(cz_##G##_jac_eq(&j, ref));                                              \
        if (!cz_##G##_jac_is_infinity(&j)) assert_true(cz_##G##_jac_is_on_curve(&j));       \
    }                                                                                       \
    static void test_##G(void **state)                                                      \
    {                                                                                       \
        (void)state;                                                                        \
        for (int i = 0; i < PITERS; i++) {                                                  \
            cz_##G##_jac pj, qj, ref, t;                                                    \
            cz_##G##_affine pa, qa, inf;                                                    \
            cz_##G##_xyzz px, qx, r;                                                        \
            G##_random(&pj, &pa);                                                           \
            G##_random(&qj, &qa);                                                           \
            cz_##G##_affine_set_infinity(&inf);                                             \
            cz_d_##G##_xyzz_from_affine(&px, &pa);                                          \
            /* a deeper representation of Q: 2Q - Q computed on the device side */        \
            cz_d_##G##_xyzz_from_affine(&qx, &qa);                                          \
            cz_d_##G##_xyzz_dbl(&qx, &qx);                                                  \
            cz_d_##G##_xyzz_add_affine(&qx, &qx, &qa, true);                                \
            G##_assert_eq(&qx, &qj);                                                        \
            /* add, madd, dbl */                                                            \
            cz_##G##_jac_add(&ref, &pj, &qj);                                               \
            cz_d_##G##_xyzz_add(&r, &px, &qx);                                              \
            G##_assert_eq(&r, &ref);                                                        \
            cz_d_##G##_xyzz_add_affine(&r, &qx, &pa, false);                                \
            G##_assert_eq(&r, &ref);                                                        \
            cz_##G##_jac_neg(&t, &pj);                                                      \
            cz_##G##_jac_add(&ref, &qj, &t);                                                \
            cz_d_##G##_xyzz_add_affine(&r, &qx, &pa, true);                                 \
            G##_assert_eq(&r, &ref);                                                        \
            cz_##G##_jac_dbl(&ref, &qj);                                                    \
            cz_d_##G##_xyzz_dbl(&r, &qx);                                                   \
            G##_assert_eq(&r, &ref);                                                        \
            /* special cases: P + P, P + (-P), infinity on either side */                 \
            cz_d_##G##_xyzz_add(&r, &qx, &qx);                                              \
            G##_assert_eq(&r, &ref);                                                        \
            cz_d_##G##_xyzz_add_affine(&r, &qx, &qa, false);                                \
            G##_assert_eq(&r, &ref);                                                        \
            cz_##G##_jac_set_infinity(&t);                                                  \
            cz_d_##G##_xyzz_add_affine(&r, &qx, &qa, true);                                 \
            G##_assert_eq(&r, &t);                                                          \
            cz_##G##_xyzz r2;                                                               \
            cz_d_##G##_xyzz_set_inf(&r2);                                                   \
            cz_d_##G##_xyzz_add_affine(&r, &r2, &pa, false);                                \
            G##_assert_eq(&r, &pj);                                                         \
            cz_d_##G##_xyzz_add(&r, &r2, &qx);                                              \
            G##_assert_eq(&r, &qj);                                                         \
            cz_d_##G##_xyzz_add(&r, &qx, &r2);                                              \
            G##_assert_eq(&r, &qj);                                                         \
            cz_d_##G##_xyzz_add_affine(&r, &qx, &inf, false);                               \
            G##_assert_eq(&r, &qj);                                                         \
            cz_d_##G##_xyzz_dbl(&r, &r2);                                                   \
            G##_assert_eq(&r, &t);                                                          \
            /* a CPU-made XYZZ operand (other Z scaling) */                                 \
            cz_##G##_xyzz cx;                                                               \
            G##_to_xyzz_cpu(&cx, &pj);                                                      \
            cz_##G##_jac_dbl(&t, &pj);                                                      \
            cz_##G##_jac_add(&ref, &t, &qj);                                                \
            cz_d_##G##_xyzz_add(&r, &cx, &qx);                                              \
            G##_assert_eq(&r, &ref);                                                        \
            /* small multiples */                                                           \
            uint32_t k = (uint32_t)cz_rng_u64() >> (i % 32);                                \
            uint64_t k64 = k;                                                               \
            cz_##G##_jac_mul_var(&ref, &qj, &k64, 1);                                       \
            cz_d_##G##_xyzz_mul_small(&r, &qx, k);                                          \
            G##_assert_eq(&r, &ref);                                                        \
        }                                                                                   \
    }

POINT_TESTS(g1)
POINT_TESTS(g2)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_intrinsics),
        cmocka_unit_test(test_mul32),
        cmocka_unit_test(test_fp),
        cmocka_unit_test(test_fr),
        cmocka_unit_test(test_fp2),
        cmocka_unit_test(test_g1),
        cmocka_unit_test(test_g2),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
