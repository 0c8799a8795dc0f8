/*
 * Helpers shared by the tests/ec tests: random scalars and points, the
 * naive reference scalar multiplication, and on-curve points outside the
 * prime-order subgroup. Header-only (each test is one translation unit).
 */
#ifndef CZ_EC_TEST_UTIL_H
#define CZ_EC_TEST_UTIL_H

#include <stdio.h>
#include <string.h>
#include "testutil.h"
#include "cuzk/curve.h"

#ifdef CUZK_SANITIZED
#define EC_ITERS(plain, san) (san)
#else
#define EC_ITERS(plain, san) (plain)
#endif

static inline void rng_scalar(cz_scalar *k)
{
    cz_fr f;
    cz_rng_fr(&f);
    cz_scalar_from_fr(k, &f);
}

/* x^3 + b for each group, written here from the curve definitions (not the
 * library's internals). */
static inline void t_g1_rhs(cz_fp *r, const cz_fp *x)
{
    cz_fp t, b;
    cz_fp_from_u64(&b, 4);
    cz_fp_sqr(&t, x);
    cz_fp_mul(&t, &t, x);
    cz_fp_add(r, &t, &b);
}

static inline void t_g2_rhs(cz_fp2 *r, const cz_fp2 *x)
{
    cz_fp2 t, b;
    cz_fp_from_u64(&b.c0, 4);
    b.c1 = b.c0;
    cz_fp2_sqr(&t, x);
    cz_fp2_mul(&t, &t, x);
    cz_fp2_add(r, &t, &b);
}

/* A random point of E(Fp) / E'(Fp2), cofactor not cleared: almost surely
 * outside the subgroup (the callers verify that with [r]P). */
static inline void t_g1_random_curve_point(cz_g1_affine *p)
{
    cz_fp rhs;
    do {
        cz_rng_fp(&p->x);
        t_g1_rhs(&rhs, &p->x);
    } while (!cz_fp_sqrt(&p->y, &rhs));
}

static inline void t_g2_random_curve_point(cz_g2_affine *p)
{
    cz_fp2 rhs;
    do {
        cz_rng_fp2(&p->x);
        t_g2_rhs(&rhs, &p->x);
    } while (!cz_fp2_sqrt(&p->y, &rhs));
}

/* Parse exactly 2n hex digits into n bytes; returns the end pointer. */
static inline const char *t_hex_bytes(uint8_t *out, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
    return s + 2 * n;
}

#endif
