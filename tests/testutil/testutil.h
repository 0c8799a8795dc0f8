/*
 * Shared test helpers: a seeded PRNG whose seed is printed (reproduce a
 * failure with CZ_SEED=<seed>), file loading from the vectors directory,
 * and GMP conversions for differential tests. Tests use cmocka.
 */
#ifndef CZ_TESTUTIL_H
#define CZ_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <gmp.h>
#include "cuzk/field.h"

/* Seed from $CZ_SEED or the clock; printed once to stderr. */
uint64_t cz_test_seed(void);
/* xoshiro256** seeded from cz_test_seed() (or cz_rng_seed). Not thread safe. */
void cz_rng_seed(uint64_t seed);
uint64_t cz_rng_u64(void);
void cz_rng_bytes(void *out, size_t n);
/* Random reduced elements (uniform enough for tests). */
void cz_rng_fp(cz_fp *r);
void cz_rng_fr(cz_fr *r);
void cz_rng_fp2(cz_fp2 *r);

/* Path of a file under tests/vectors ($CZ_VECTORS); static buffer. */
const char *cz_vector_path(const char *rel);
/* Whole file in a malloc'd buffer (caller frees); aborts the test on error. */
uint8_t *cz_read_file(const char *path, size_t *len);

/* A scratch directory for a cmocka group: cz_test_dir_make creates
 * /tmp/<prefix>XXXXXX into dir (cap bytes), cz_test_dir_remove deletes it
 * with everything in it. 0 on success (the group setup/teardown contract). */
int cz_test_dir_make(char *dir, size_t cap, const char *prefix);
int cz_test_dir_remove(const char *dir);

/* GMP <-> limbs (canonical little-endian 64-bit limbs). */
void cz_mpz_from_limbs(mpz_t z, const uint64_t *l, size_t n);
void cz_mpz_to_limbs(uint64_t *l, size_t n, const mpz_t z);

/* Run fn once per field back-end available on this CPU (portable, ADX),
 * printing which; restores the default afterwards. */
void cz_for_each_backend(void (*fn)(void **state), void **state);

#endif
