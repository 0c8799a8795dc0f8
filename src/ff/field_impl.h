/*
 * One body for the prime fields Fp and Fr (blst-style instantiation).
 *
 * CZ_FIELD_IMPL(fp, 6, NBYTES) defines, for the type cz_fp, every operation
 * declared in cuzk/field.h that does not depend on the specific prime:
 * add/sub/neg/dbl, mul/sqr (through the back-end dispatch in ff_dispatch.c),
 * predicates, cmov, pow, Fermat inversion, raw/byte/hex conversions.
 * The including file must define, before expanding the macro:
 *   static const uint64_t NAME_M[N], NAME_MINV, NAME_R2[N] (R^2 mod m),
 *   and the public CZ_<NAME>_ONE / CZ_<NAME>_MODULUS objects.
 */
#ifndef CZ_FF_FIELD_IMPL_H
#define CZ_FF_FIELD_IMPL_H

#include "cuzk/field.h"
#include "ff_internal.h"
#include "mont.h"
#include <string.h>

#define CZ_FIELD_IMPL(F, N, NBYTES)                                                  \
void cz_##F##_add(cz_##F *r, const cz_##F *a, const cz_##F *b)                      \
{ cz_mont_add(r->l, a->l, b->l, F##_M, N); }                                         \
void cz_##F##_sub(cz_##F *r, const cz_##F *a, const cz_##F *b)                      \
{ cz_mont_sub(r->l, a->l, b->l, F##_M, N); }                                         \
void cz_##F##_neg(cz_##F *r, const cz_##F *a) { cz_mont_neg(r->l, a->l, F##_M, N); } \
void cz_##F##_dbl(cz_##F *r, const cz_##F *a) { cz_mont_add(r->l, a->l, a->l, F##_M, N); } \
void cz_##F##_mul(cz_##F *r, const cz_##F *a, const cz_##F *b)                      \
{ cz__##F##_mul_fn(r->l, a->l, b->l); }                                              \
void cz_##F##_sqr(cz_##F *r, const cz_##F *a) { cz__##F##_sqr_fn(r->l, a->l); }     \
bool cz_##F##_is_zero(const cz_##F *a) { return cz_limbs_is_zero(a->l, N); }         \
bool cz_##F##_is_one(const cz_##F *a) { return cz_limbs_eq(a->l, CZ_##F##_one_limbs, N); } \
bool cz_##F##_eq(const cz_##F *a, const cz_##F *b) { return cz_limbs_eq(a->l, b->l, N); } \
void cz_##F##_cmov(cz_##F *r, const cz_##F *a, const cz_##F *b, uint64_t flag)       \
{ cz_limbs_cmov(r->l, a->l, b->l, flag, N); }                                        \
void cz_##F##_from_u64(cz_##F *r, uint64_t v)                                        \
{ uint64_t t[N] = {v}; cz__##F##_mul_fn(r->l, t, F##_R2); }                          \
cz_status cz_##F##_from_raw(cz_##F *r, const uint64_t limbs[N])                      \
{                                                                                    \
    if (!cz_limbs_lt(limbs, F##_M, N)) return CZ_ERR_NOT_CANONICAL;                  \
    cz__##F##_mul_fn(r->l, limbs, F##_R2);                                           \
    return CZ_OK;                                                                    \
}                                                                                    \
void cz_##F##_to_raw(uint64_t limbs[N], const cz_##F *a)                             \
{ cz_mont_from(limbs, a->l, F##_M, F##_MINV, N); }                                   \
cz_status cz_##F##_from_bytes_le(cz_##F *r, const uint8_t in[NBYTES])                \
{                                                                                    \
    uint64_t t[N] = {0};                                                             \
    for (int i = 0; i < NBYTES; i++) t[i / 8] |= (uint64_t)in[i] << (8 * (i % 8));   \
    return cz_##F##_from_raw(r, t);                                                  \
}                                                                                    \
cz_status cz_##F##_from_bytes_be(cz_##F *r, const uint8_t in[NBYTES])                \
{                                                                                    \
    uint8_t t[NBYTES];                                                               \
    for (int i = 0; i < NBYTES; i++) t[i] = in[NBYTES - 1 - i];                      \
    return cz_##F##_from_bytes_le(r, t);                                             \
}                                                                                    \
void cz_##F##_to_bytes_le(uint8_t out[NBYTES], const cz_##F *a)                      \
{                                                                                    \
    uint64_t t[N];                                                                   \
    cz_##F##_to_raw(t, a);                                                           \
    for (int i = 0; i < NBYTES; i++) out[i] = (uint8_t)(t[i / 8] >> (8 * (i % 8)));  \
}                                                                                    \
void cz_##F##_to_bytes_be(uint8_t out[NBYTES], const cz_##F *a)                      \
{                                                                                    \
    uint8_t t[NBYTES];                                                               \
    cz_##F##_to_bytes_le(t, a);                                                      \
    for (int i = 0; i < NBYTES; i++) out[i] = t[NBYTES - 1 - i];                     \
}                                                                                    \
cz_status cz_##F##_from_hex(cz_##F *r, const char *hex)                              \
{                                                                                    \
    uint8_t be[NBYTES];                                                              \
    cz_status st = cz__hex_to_be(be, NBYTES, hex);                                   \
    if (st != CZ_OK) return st;                                                      \
    return cz_##F##_from_bytes_be(r, be);                                            \
}                                                                                    \
void cz_##F##_to_hex(char out[2 * NBYTES + 3], const cz_##F *a)                                  \
{                                                                                    \
    uint8_t be[NBYTES];                                                              \
    cz_##F##_to_bytes_be(be, a);                                                     \
    cz__be_to_hex(out, be, NBYTES);                                                  \
}                                                                                    \
void cz_##F##_pow(cz_##F *r, const cz_##F *a, const uint64_t *e, size_t n)           \
{                                                                                    \
    /* Left-to-right square and multiply with a constant-time select:           */ \
    /* the same operations run whatever the bits of e are.                      */ \
    cz_##F acc, t, base = *a;                                                        \
    memcpy(acc.l, CZ_##F##_one_limbs, sizeof acc.l);                                 \
    for (size_t i = n; i-- > 0;) {                                                   \
        for (int b = 63; b >= 0; b--) {                                              \
            cz_##F##_sqr(&acc, &acc);                                                \
            cz_##F##_mul(&t, &acc, &base);                                           \
            cz_##F##_cmov(&acc, &acc, &t, (e[i] >> b) & 1);                          \
        }                                                                            \
    }                                                                                \
    *r = acc;                                                                        \
}                                                                                    \
void cz_##F##_inv(cz_##F *r, const cz_##F *a)                                        \
{ /* Fermat: a^(m-2); constant time, 0 -> 0. */                                      \
    cz_##F##_pow(r, a, F##_M_MINUS_2, N);                                            \
}                                                                                    \
void cz_##F##_from_uniform_bytes(cz_##F *r, const uint8_t in[64])                    \
{                                                                                    \
    /* x = hi·2^256 + lo with 256-bit halves read big-endian;              */       \
    /* x mod m = hi·(2^256 mod m) + lo mod m, all in Montgomery arithmetic. */       \
    uint64_t hi[N] = {0}, lo[N] = {0};                                               \
    for (int i = 0; i < 32; i++) {                                                   \
        hi[(31 - i) / 8] |= (uint64_t)in[i] << (8 * ((31 - i) % 8));                \
        lo[(31 - i) / 8] |= (uint64_t)in[32 + i] << (8 * ((31 - i) % 8));           \
    }                                                                                \
    cz_##F h, l;                                                                     \
    /* hi, lo < 2^256 may exceed m (Fr): reduce by Montgomery-multiplying  */       \
    /* with R^2 after a conditional subtraction chain; 2^256 < 4m for Fr,  */       \
    /* so multiply by R2 directly: mont_mul(x, R2) = x·R mod m needs only  */       \
    /* x < 2^(64N), which holds. */                                                  \
    cz__##F##_mul_fn(h.l, hi, F##_R2);                                               \
    cz__##F##_mul_fn(l.l, lo, F##_R2);                                               \
    cz_##F##_mul(&h, &h, &F##_TWO256);                                               \
    cz_##F##_add(r, &h, &l);                                                         \
    explicit_bzero(hi, sizeof hi); explicit_bzero(lo, sizeof lo);                    \
    explicit_bzero(&h, sizeof h); explicit_bzero(&l, sizeof l);                      \
}

#endif /* CZ_FF_FIELD_IMPL_H */
