/*
 * Internal to src/ff: back-end function pointers and small helpers.
 *
 * cz__fp_mul_fn & co. point at the portable or the MULX/ADX kernels; they
 * are set once by cz_ff_set_backend() (or at load time to the best
 * supported). Kernels take raw limb arrays, inputs < m, output < m, and
 * allow out to alias inputs.
 */
#ifndef CZ_FF_INTERNAL_H
#define CZ_FF_INTERNAL_H

#include "cuzk/field.h"

typedef void (*cz_mul_fn)(uint64_t *r, const uint64_t *a, const uint64_t *b);
typedef void (*cz_sqr_fn)(uint64_t *r, const uint64_t *a);

extern cz_mul_fn cz__fp_mul_fn;
extern cz_sqr_fn cz__fp_sqr_fn;
extern cz_mul_fn cz__fr_mul_fn;
extern cz_sqr_fn cz__fr_sqr_fn;

/* Portable kernels (always built). */
void cz__fp_mul_portable(uint64_t *r, const uint64_t *a, const uint64_t *b);
void cz__fp_sqr_portable(uint64_t *r, const uint64_t *a);
void cz__fr_mul_portable(uint64_t *r, const uint64_t *a, const uint64_t *b);
void cz__fr_sqr_portable(uint64_t *r, const uint64_t *a);

extern const uint64_t CZ_fp_one_limbs[6];
extern const uint64_t CZ_fr_one_limbs[4];

/* Hex helpers: parse optional "0x" + up to 2n big-endian hex digits into n
 * bytes (left-padded with zeros); CZ_ERR_FORMAT on bad characters or length.
 * be_to_hex writes "0x" + 2n lower-case digits + NUL. */
cz_status cz__hex_to_be(uint8_t *out, size_t n, const char *hex);
void cz__be_to_hex(char *out, const uint8_t *in, size_t n);

#endif
