/*
 * Internal to src/ff (and the ff tests): back-end kernels and helpers.
 *
 * Back-end selection (see ff_dispatch.c): cz__ff_use_adx is set once, at
 * load time by a constructor (best supported) or by cz_ff_set_backend().
 * The public cz_fp_mul & co. test it and call a kernel directly (no
 * function pointer: see field_impl.h for why).
 *
 * Kernels take raw limb arrays in Montgomery form: inputs < m, output < m,
 * out may alias any input, constant time. The _adx kernels exist only on
 * x86-64 (CZ_HAVE_ADX_ASM) and must only run when cz_ff_adx_supported().
 */
#ifndef CZ_FF_INTERNAL_H
#define CZ_FF_INTERNAL_H

#include "cuzk/field.h"
#include "mont_adx.h"

/* 1 while the MULX/ADX kernels are selected. */
extern int cz__ff_use_adx;

/* Portable kernels (always built). */
void cz__fp_mul_portable(uint64_t *r, const uint64_t *a, const uint64_t *b);
void cz__fp_sqr_portable(uint64_t *r, const uint64_t *a);
void cz__fr_mul_portable(uint64_t *r, const uint64_t *a, const uint64_t *b);
void cz__fr_sqr_portable(uint64_t *r, const uint64_t *a);
/* r = a.c0·b.c0 + a.c1·b.c1 in Fp (Montgomery; the cz_fp2 is only a pair
 * here): two products, one reduction, for cz_fp2_mul. r may alias. */
void cz__fp_mulsum(cz_fp *r, const cz_fp2 *a, const cz_fp2 *b);
void cz__fp_mulsum_portable(cz_fp *r, const cz_fp2 *a, const cz_fp2 *b);
#if CZ_HAVE_ADX_ASM
void cz__fp_mulsum_adx(cz_fp *r, const cz_fp2 *a, const cz_fp2 *b);
#endif
#if CZ_HAVE_ADX_ASM
/* MULX/ADX kernels (x86-64 builds; run only when the CPU has BMI2+ADX). */
void cz__fp_mul_adx(uint64_t *r, const uint64_t *a, const uint64_t *b);
void cz__fp_sqr_adx(uint64_t *r, const uint64_t *a);
void cz__fr_mul_adx(uint64_t *r, const uint64_t *a, const uint64_t *b);
void cz__fr_sqr_adx(uint64_t *r, const uint64_t *a);
#endif

extern const uint64_t CZ_fp_one_limbs[6];
extern const uint64_t CZ_fr_one_limbs[4];

/* Hex helpers: parse optional "0x" + up to 2n big-endian hex digits into n
 * bytes (left-padded with zeros); CZ_ERR_FORMAT on bad characters or length.
 * be_to_hex writes "0x" + 2n lower-case digits + NUL. */
cz_status cz__hex_to_be(uint8_t *out, size_t n, const char *hex);
void cz__be_to_hex(char *out, const uint8_t *in, size_t n);

#endif
