/*
 * What the MSM tests share (test_msm.c, test_msm_tables.c).
 *
 * pools[t] (t threads in all: t - 1 workers and the caller; 0 and 1: NULL)
 * made by msm_test_setup and freed by msm_test_teardown (the group's
 * setup and teardown); r - 1 and small scalars for the edge cases.
 *
 * CZ_MSM_TEST_BASES(G) defines G##_bases(b, n, inf_every): n consecutive
 * multiples k0·G, (k0+1)·G, ... of the generator from a random k0 (all
 * distinct, cheap to make at any n), with the point at infinity every
 * inf_every entries (0: none), affine.
 */
#ifndef CZ_TEST_MSM_TESTUTIL_H
#define CZ_TEST_MSM_TESTUTIL_H

#include <stdlib.h>
#include <string.h>

static cz_pool *pools[5];

static int msm_test_setup(void **state)
{
    (void)state;
    cz_test_seed();
    if (cz_pool_create(&pools[2], 1, "msm2") != CZ_OK) return -1;
    if (cz_pool_create(&pools[4], 3, "msm4") != CZ_OK) return -1;
    return 0;
}

static int msm_test_teardown(void **state)
{
    (void)state;
    cz_pool_destroy(pools[2]);
    cz_pool_destroy(pools[4]);
    return 0;
}

static const uint64_t R_MINUS_1[4] = {0xffffffff00000000ULL, 0x53bda402fffe5bfeULL,
                                      0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

static inline void sc_u64(cz_scalar *s, uint64_t v)
{
    memset(s, 0, sizeof *s);
    s->l[0] = v;
}

#define CZ_MSM_TEST_BASES(G)                                                                  \
static void G##_bases(cz_##G##_affine *b, size_t n, int inf_every)                             \
{                                                                                              \
    cz_##G##_jac g, p, *tmp = malloc((n ? n : 1) * sizeof *tmp);                               \
    assert_non_null(tmp);                                                                      \
    uint64_t k0 = cz_rng_u64();                                                                \
    cz_##G##_generator_jac(&g);                                                                \
    cz_##G##_jac_mul_var(&p, &g, &k0, 1);                                                      \
    for (size_t i = 0; i < n; i++) {                                                           \
        tmp[i] = p;                                                                            \
        cz_##G##_jac_add(&p, &p, &g);                                                          \
    }                                                                                          \
    cz_##G##_batch_to_affine(b, tmp, n);                                                       \
    if (inf_every)                                                                             \
        for (size_t i = 0; i < n; i += (size_t)inf_every) cz_##G##_affine_set_infinity(&b[i]); \
    free(tmp);                                                                                 \
}

#endif
