/*
 * cuzk — BLS12-381 base field Fp, scalar field Fr, and the towers
 * Fp2 = Fp[u]/(u^2+1), Fp6 = Fp2[v]/(v^3-(u+1)), Fp12 = Fp6[w]/(w^2-v).
 *
 * Representation: little-endian 64-bit limbs in Montgomery form
 * (a·R mod m, R = 2^384 for Fp, 2^256 for Fr), always fully reduced
 * (< modulus). Zero is all-zero limbs in both forms.
 *
 * Aliasing: every out argument may alias any input unless stated otherwise.
 *
 * Timing: add/sub/neg/dbl/mul/sqr/inv/pow/select are constant time in their
 * values. Functions ending in _var are variable time: use them only on
 * public data (the witness of a PoRep proof is public; r, s and the
 * toxic waste are not).
 *
 * Back-ends: mul and sqr run on a portable path (unsigned __int128) or an
 * x86-64 MULX/ADX path (inline asm), chosen at load time from CPUID. Both
 * are always built on x86-64; cz_ff_set_backend() forces one (tests run
 * every test on both). The choice is a global flag tested on each call
 * (a predicted branch, no indirect call).
 */
#ifndef CUZK_FIELD_H
#define CUZK_FIELD_H

#include "cuzk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { uint64_t l[6]; } cz_fp;
typedef struct { uint64_t l[4]; } cz_fr;
typedef struct { cz_fp c0, c1; } cz_fp2;          /* c0 + c1·u */
typedef struct { cz_fp2 c0, c1, c2; } cz_fp6;     /* c0 + c1·v + c2·v^2 */
typedef struct { cz_fp6 c0, c1; } cz_fp12;        /* c0 + c1·w */

/* ---- back-end selection ------------------------------------------------ */
typedef enum { CZ_FF_AUTO = 0, CZ_FF_PORTABLE = 1, CZ_FF_ADX = 2 } cz_ff_backend;
/* True when this CPU has BMI2 and ADX. */
bool cz_ff_adx_supported(void);
/* True when this CPU (and OS) has AVX-512F and AVX-512 IFMA, used by the
 * eight-lane MSM and NTT kernels, and neither CUZK_NO_SIMD (no SIMD path
 * at all) nor CUZK_NO_IFMA (only IFMA off: what an AMD Zen 3 runs) is set
 * in the environment. */
bool cz_ff_ifma_supported(void);
/* Force a back-end (CZ_FF_AUTO: best supported). Returns CZ_ERR_UNSUPPORTED
 * when ADX is requested on a CPU without it. Not thread safe: call before
 * starting worker threads. */
CZ_WUR cz_status cz_ff_set_backend(cz_ff_backend b);
/* The back-end in use now (never CZ_FF_AUTO). */
cz_ff_backend cz_ff_get_backend(void);
const char *cz_ff_backend_name(cz_ff_backend b);

/* ---- Fp ------------------------------------------------------------------ */
extern const cz_fp CZ_FP_ZERO, CZ_FP_ONE;      /* Montgomery form */
extern const uint64_t CZ_FP_MODULUS[6];        /* p, canonical limbs */

void cz_fp_add(cz_fp *r, const cz_fp *a, const cz_fp *b);
void cz_fp_sub(cz_fp *r, const cz_fp *a, const cz_fp *b);
void cz_fp_neg(cz_fp *r, const cz_fp *a);
void cz_fp_dbl(cz_fp *r, const cz_fp *a);
void cz_fp_mul(cz_fp *r, const cz_fp *a, const cz_fp *b);
void cz_fp_sqr(cz_fp *r, const cz_fp *a);
/* r = a^-1 (constant time); inverse of 0 is 0. */
void cz_fp_inv(cz_fp *r, const cz_fp *a);
/* r = a^-1, variable time (Bernstein–Yang safegcd, ~7x faster than
 * cz_fp_inv); inverse of 0 is 0. */
void cz_fp_inv_var(cz_fp *r, const cz_fp *a);
/* r = a^e, e given as n little-endian 64-bit limbs; constant time in a
 * and in e for a fixed n. */
void cz_fp_pow(cz_fp *r, const cz_fp *a, const uint64_t *e, size_t n);
/* r = sqrt(a) if a is a square (returns true); r unspecified otherwise.
 * Which of the two roots is returned is unspecified (use is_lex_largest
 * or is_odd to choose). Constant time. */
bool cz_fp_sqrt(cz_fp *r, const cz_fp *a);
/* Legendre symbol: 0 for a = 0, 1 for a nonzero square, -1 otherwise. */
int cz_fp_legendre(const cz_fp *a);
bool cz_fp_is_zero(const cz_fp *a);
bool cz_fp_is_one(const cz_fp *a);
bool cz_fp_eq(const cz_fp *a, const cz_fp *b);
/* r = flag ? b : a, constant time (flag is 0 or 1). */
void cz_fp_cmov(cz_fp *r, const cz_fp *a, const cz_fp *b, uint64_t flag);
void cz_fp_from_u64(cz_fp *r, uint64_t v);
/* Canonical (non-Montgomery) little-endian limbs <-> Montgomery form.
 * from_raw requires limbs < p (returns CZ_ERR_NOT_CANONICAL otherwise). */
CZ_WUR cz_status cz_fp_from_raw(cz_fp *r, const uint64_t limbs[6]);
void cz_fp_to_raw(uint64_t limbs[6], const cz_fp *a);
/* 48-byte big-endian canonical encoding (zcash order). */
CZ_WUR cz_status cz_fp_from_bytes_be(cz_fp *r, const uint8_t in[48]);
void cz_fp_to_bytes_be(uint8_t out[48], const cz_fp *a);
/* 48-byte little-endian canonical encoding. */
CZ_WUR cz_status cz_fp_from_bytes_le(cz_fp *r, const uint8_t in[48]);
void cz_fp_to_bytes_le(uint8_t out[48], const cz_fp *a);
/* Hex: optional "0x", big-endian digits, at most 96; value must be < p. */
CZ_WUR cz_status cz_fp_from_hex(cz_fp *r, const char *hex);
/* out receives "0x" + 96 lower-case digits + NUL (99 bytes). */
void cz_fp_to_hex(char out[99], const cz_fp *a);
/* Uniform element: 64 random bytes read as a 512-bit big-endian integer,
 * reduced mod p (statistical distance 2^-131). Constant time. */
void cz_fp_from_uniform_bytes(cz_fp *r, const uint8_t in[64]);
/* True when the canonical value of a is odd ("sign" for sqrt choice). */
bool cz_fp_is_odd(const cz_fp *a);
/* Lexicographic "larger" per zcash: a > (p-1)/2 in canonical form. */
bool cz_fp_is_lex_largest(const cz_fp *a);

/* ---- Fr ------------------------------------------------------------------ */
extern const cz_fr CZ_FR_ZERO, CZ_FR_ONE;
extern const uint64_t CZ_FR_MODULUS[4];        /* r, canonical limbs */

void cz_fr_add(cz_fr *r, const cz_fr *a, const cz_fr *b);
void cz_fr_sub(cz_fr *r, const cz_fr *a, const cz_fr *b);
void cz_fr_neg(cz_fr *r, const cz_fr *a);
void cz_fr_dbl(cz_fr *r, const cz_fr *a);
void cz_fr_mul(cz_fr *r, const cz_fr *a, const cz_fr *b);
void cz_fr_sqr(cz_fr *r, const cz_fr *a);
void cz_fr_inv(cz_fr *r, const cz_fr *a);
void cz_fr_inv_var(cz_fr *r, const cz_fr *a);
/* Montgomery batch inversion (one inversion + 3(n-1) mul); zeros stay 0.
 * scratch: n elements, must not alias v. Variable time. */
void cz_fr_batch_inv_var(cz_fr *v, size_t n, cz_fr *scratch);
void cz_fr_pow(cz_fr *r, const cz_fr *a, const uint64_t *e, size_t n);
/* As cz_fp_sqrt (constant-time Tonelli–Shanks, 2-adicity 32). */
bool cz_fr_sqrt(cz_fr *r, const cz_fr *a);
int cz_fr_legendre(const cz_fr *a);
bool cz_fr_is_zero(const cz_fr *a);
bool cz_fr_is_one(const cz_fr *a);
bool cz_fr_eq(const cz_fr *a, const cz_fr *b);
void cz_fr_cmov(cz_fr *r, const cz_fr *a, const cz_fr *b, uint64_t flag);
void cz_fr_from_u64(cz_fr *r, uint64_t v);
CZ_WUR cz_status cz_fr_from_raw(cz_fr *r, const uint64_t limbs[4]);
void cz_fr_to_raw(uint64_t limbs[4], const cz_fr *a);
/* 32-byte encodings of the canonical value. LE is Filecoin's Fr order. */
CZ_WUR cz_status cz_fr_from_bytes_le(cz_fr *r, const uint8_t in[32]);
void cz_fr_to_bytes_le(uint8_t out[32], const cz_fr *a);
CZ_WUR cz_status cz_fr_from_bytes_be(cz_fr *r, const uint8_t in[32]);
void cz_fr_to_bytes_be(uint8_t out[32], const cz_fr *a);
CZ_WUR cz_status cz_fr_from_hex(cz_fr *r, const char *hex);
/* out receives "0x" + 64 digits + NUL (67 bytes). */
void cz_fr_to_hex(char out[67], const cz_fr *a);
/* Decimal string (snarkjs JSON): digits only (no sign, space or prefix;
 * leading zeros allowed). CZ_ERR_FORMAT for anything else,
 * CZ_ERR_NOT_CANONICAL when the value is >= r. */
CZ_WUR cz_status cz_fr_from_dec(cz_fr *r, const char *dec);
/* out receives at most 78 digits + NUL, no leading zeros. Variable time. */
void cz_fr_to_dec(char out[80], const cz_fr *a);
/* As cz_fp_from_uniform_bytes: 512-bit big-endian integer mod r. */
void cz_fr_from_uniform_bytes(cz_fr *r, const uint8_t in[64]);
/* Uniform element from the OS CSPRNG: 64 bytes of getrandom() reduced
 * mod r (docs/design.md §7.3), the buffer wiped. CZ_ERR_IO if getrandom fails. */
CZ_WUR cz_status cz_fr_random(cz_fr *r);
/* Primitive 2^k-th root of unity in Fr, 0 <= k <= CZ_FR_TWO_ADICITY:
 * w_k = g^((r-1)/2^k) with g = 7, so w_k^2 = w_{k-1}. k above the
 * 2-adicity has no such root: CZ_ERR_INVALID_ARG and *r = 0 (never a
 * clamped, wrong root). Callers pass a k they have bounded already (a
 * domain within CZ_NTT_MAX_LOG_N), so the status is informational. */
#define CZ_FR_TWO_ADICITY 32
cz_status cz_fr_root_of_unity(cz_fr *r, unsigned k);

/* ---- Fp2 ----------------------------------------------------------------- */
void cz_fp2_add(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b);
void cz_fp2_sub(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b);
void cz_fp2_neg(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_dbl(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_mul(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b);
void cz_fp2_sqr(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_conj(cz_fp2 *r, const cz_fp2 *a);
/* r = a·(u+1), the Fp6 non-residue. */
void cz_fp2_mul_by_nonresidue(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_mul_fp(cz_fp2 *r, const cz_fp2 *a, const cz_fp *b);
/* r = a0^2 + a1^2, the norm a·conj(a) (in Fp; nonzero for a != 0, since -1
 * is not a square mod p). Constant time. */
void cz_fp2_norm(cz_fp *r, const cz_fp2 *a);
/* Inverse of 0 is 0. Constant time. */
void cz_fp2_inv(cz_fp2 *r, const cz_fp2 *a);
/* Variable time (through cz_fp_inv_var, ~7x faster); inverse of 0 is 0. */
void cz_fp2_inv_var(cz_fp2 *r, const cz_fp2 *a);
/* r = a square root of a, true when a is a square; r unspecified
 * otherwise (Adj–Rodríguez-Henríquez, p = 3 mod 4). Constant time. */
bool cz_fp2_sqrt(cz_fp2 *r, const cz_fp2 *a);
bool cz_fp2_is_zero(const cz_fp2 *a);
bool cz_fp2_is_one(const cz_fp2 *a);
bool cz_fp2_eq(const cz_fp2 *a, const cz_fp2 *b);
void cz_fp2_cmov(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b, uint64_t flag);
/* Frobenius: a^p = conj(a). */
void cz_fp2_frobenius(cz_fp2 *r, const cz_fp2 *a);
/* zcash "lexicographically largest": compare c1 first, c0 if c1 == 0. */
bool cz_fp2_is_lex_largest(const cz_fp2 *a);

/* ---- Fp6 / Fp12 (cz_fp6_*, cz_fp12_*: see src/pairing/tower.c) ------------
 * Fp6 = Fp2[v]/(v^3 - (u+1)), Fp12 = Fp6[w]/(w^2 - v). Same contracts as
 * above (Montgomery form, out may alias inputs, constant time unless _var).
 * frobenius(a, k) = a^(p^k) for any k (reduced mod 6 resp. 12); its
 * coefficients are derived by tools/frobenius_coeffs.py. */
void cz_fp6_set_zero(cz_fp6 *r);
void cz_fp6_set_one(cz_fp6 *r);
bool cz_fp6_is_zero(const cz_fp6 *a);
void cz_fp6_add(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b);
void cz_fp6_sub(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b);
void cz_fp6_neg(cz_fp6 *r, const cz_fp6 *a);
void cz_fp6_mul(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b);
void cz_fp6_sqr(cz_fp6 *r, const cz_fp6 *a);
/* r = a^-1; inverse of 0 is 0. */
void cz_fp6_inv(cz_fp6 *r, const cz_fp6 *a);
/* r = a·v */
void cz_fp6_mul_by_nonresidue(cz_fp6 *r, const cz_fp6 *a);
void cz_fp6_frobenius(cz_fp6 *r, const cz_fp6 *a, unsigned power);
bool cz_fp6_eq(const cz_fp6 *a, const cz_fp6 *b);

void cz_fp12_set_one(cz_fp12 *r);
void cz_fp12_mul(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b);
void cz_fp12_sqr(cz_fp12 *r, const cz_fp12 *a);
/* Granger–Scott squaring; valid only in the cyclotomic subgroup. */
void cz_fp12_cyclotomic_sqr(cz_fp12 *r, const cz_fp12 *a);
/* r = a^-1; inverse of 0 is 0. */
void cz_fp12_inv(cz_fp12 *r, const cz_fp12 *a);
/* r = a^(p^6) = c0 - c1 w; equals a^-1 in the cyclotomic subgroup. */
void cz_fp12_conj(cz_fp12 *r, const cz_fp12 *a);
void cz_fp12_frobenius(cz_fp12 *r, const cz_fp12 *a, unsigned power);
/* r = a^e, e given as n little-endian 64-bit limbs; constant time in a and
 * in e for a fixed n (square and always multiply). */
void cz_fp12_pow(cz_fp12 *r, const cz_fp12 *a, const uint64_t *e, size_t n);
bool cz_fp12_eq(const cz_fp12 *a, const cz_fp12 *b);
bool cz_fp12_is_one(const cz_fp12 *a);
/* 576-byte encoding: the 12 Fp coefficients big-endian, in the order
 * c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1 (this is the order used by
 * tests/vectors/pairings.json; see its "order" note). */
void cz_fp12_to_bytes_be(uint8_t out[576], const cz_fp12 *a);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIELD_H */
