/*
 * One body for the prime fields Fp and Fr (blst-style instantiation).
 *
 * CZ_FIELD_IMPL(fp, 6, NBYTES) defines, for the type cz_fp, every operation
 * declared in cuzk/field.h that does not depend on the specific prime:
 * add/sub/neg/dbl, mul/sqr (back-end dispatch), the exported kernels,
 * predicates, cmov, pow, inversions, raw/byte/hex conversions and
 * from_uniform_bytes. The including file must define, before expanding:
 *   static const uint64_t F_M[N] (modulus), F_MINV (-m^-1 mod 2^64),
 *   F_R2[N] (R^2 mod m), F_R3[N] (R^3 mod m), F_M_MINUS_2[N];
 *   static const cz_F F_TWO256 (2^256 in Montgomery form);
 *   static const cz_adx_mod F_ADX_MOD ({m, minv, 0}, x86-64 only);
 *   CZ_F_one_limbs (ff_internal.h) and the public CZ_F_ONE / CZ_F_MODULUS.
 */
#ifndef CZ_FF_FIELD_IMPL_H
#define CZ_FF_FIELD_IMPL_H

#include "cuzk/field.h"
#include "ff_internal.h"
#include "mont.h"
#include "mont_adx.h"
#include <string.h>

/* Hot-path dispatch. Instead of calling mul/sqr through a function
 * pointer, cz_fp_mul tests one global flag (cz__ff_use_adx, set once at
 * load time) and calls a kernel directly: the branch always goes the same
 * way and is predicted for free, and the ADX kernel, being inline asm, is
 * expanded inside cz_fp_mul itself, so a field multiplication costs one
 * ordinary call and no indirect one. */
#if CZ_HAVE_ADX_ASM
#define CZ_FF_USE_ADX() __builtin_expect(cz__ff_use_adx, 1)
#define CZ_FF_KERNELS(F, N)                                                          \
void cz__##F##_mul_portable(uint64_t *r, const uint64_t *a, const uint64_t *b)       \
{ cz_mont_mul_sos(r, a, b, F##_M, F##_MINV, N); }                                    \
void cz__##F##_sqr_portable(uint64_t *r, const uint64_t *a)                          \
{ cz_mont_sqr(r, a, F##_M, F##_MINV, N); }                                           \
void cz__##F##_mul_adx(uint64_t *r, const uint64_t *a, const uint64_t *b)            \
{ cz_adx_mont_mul##N(r, a, b, &F##_ADX_MOD); }                                   \
void cz__##F##_sqr_adx(uint64_t *r, const uint64_t *a)                               \
{ cz_adx_mont_sqr##N(r, a, &F##_ADX_MOD); }                                      \
static inline void F##_mul_k(uint64_t *r, const uint64_t *a, const uint64_t *b)      \
{                                                                                    \
    if (CZ_FF_USE_ADX()) cz_adx_mont_mul##N(r, a, b, &F##_ADX_MOD);              \
    else cz__##F##_mul_portable(r, a, b);                                            \
}                                                                                    \
static inline void F##_sqr_k(uint64_t *r, const uint64_t *a)                         \
{                                                                                    \
    if (CZ_FF_USE_ADX()) cz_adx_mont_sqr##N(r, a, &F##_ADX_MOD);                 \
    else cz__##F##_sqr_portable(r, a);                                               \
}
#else
#define CZ_FF_KERNELS(F, N)                                                          \
void cz__##F##_mul_portable(uint64_t *r, const uint64_t *a, const uint64_t *b)       \
{ cz_mont_mul_sos(r, a, b, F##_M, F##_MINV, N); }                                        \
void cz__##F##_sqr_portable(uint64_t *r, const uint64_t *a)                          \
{ cz_mont_sqr(r, a, F##_M, F##_MINV, N); }                                           \
static inline void F##_mul_k(uint64_t *r, const uint64_t *a, const uint64_t *b)      \
{ cz__##F##_mul_portable(r, a, b); }                                                 \
static inline void F##_sqr_k(uint64_t *r, const uint64_t *a)                         \
{ cz__##F##_sqr_portable(r, a); }
#endif

#define CZ_FIELD_IMPL(F, N, NBYTES)                                                  \
CZ_FF_KERNELS(F, N)                                                                  \
void cz_##F##_add(cz_##F *r, const cz_##F *a, const cz_##F *b)                      \
{ cz_mont_add(r->l, a->l, b->l, F##_M, N); }                                         \
void cz_##F##_sub(cz_##F *r, const cz_##F *a, const cz_##F *b)                      \
{ cz_mont_sub(r->l, a->l, b->l, F##_M, N); }                                         \
void cz_##F##_neg(cz_##F *r, const cz_##F *a) { cz_mont_neg(r->l, a->l, F##_M, N); } \
void cz_##F##_dbl(cz_##F *r, const cz_##F *a) { cz_mont_add(r->l, a->l, a->l, F##_M, N); } \
void cz_##F##_mul(cz_##F *r, const cz_##F *a, const cz_##F *b) { F##_mul_k(r->l, a->l, b->l); } \
void cz_##F##_sqr(cz_##F *r, const cz_##F *a) { F##_sqr_k(r->l, a->l); }             \
bool cz_##F##_is_zero(const cz_##F *a) { return cz_limbs_is_zero(a->l, N); }         \
bool cz_##F##_is_one(const cz_##F *a) { return cz_limbs_eq(a->l, CZ_##F##_one_limbs, N); } \
bool cz_##F##_eq(const cz_##F *a, const cz_##F *b) { return cz_limbs_eq(a->l, b->l, N); } \
void cz_##F##_cmov(cz_##F *r, const cz_##F *a, const cz_##F *b, uint64_t flag)       \
{ cz_limbs_cmov(r->l, a->l, b->l, flag, N); }                                        \
void cz_##F##_from_u64(cz_##F *r, uint64_t v)                                        \
{ uint64_t t[N] = {v}; F##_mul_k(r->l, t, F##_R2); } /* v < 2^64 < m */              \
cz_status cz_##F##_from_raw(cz_##F *r, const uint64_t limbs[N])                      \
{                                                                                    \
    if (!cz_limbs_lt(limbs, F##_M, N)) return CZ_ERR_NOT_CANONICAL;                  \
    F##_mul_k(r->l, limbs, F##_R2);                                                  \
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
void cz_##F##_to_hex(char out[2 * NBYTES + 3], const cz_##F *a)                      \
{                                                                                    \
    uint8_t be[NBYTES];                                                              \
    cz_##F##_to_bytes_be(be, a);                                                     \
    cz__be_to_hex(out, be, NBYTES);                                                  \
}                                                                                    \
void cz_##F##_pow(cz_##F *r, const cz_##F *a, const uint64_t *e, size_t n)           \
{                                                                                    \
    /* Fixed 4-bit window, left to right: 4 squarings and one multiplication */     \
    /* per nibble whatever its value, the table entry read by a full scan   */     \
    /* with cmov, so time and memory access pattern depend on n only.        */     \
    cz_##F tab[16], acc, t;                                                          \
    memcpy(tab[0].l, CZ_##F##_one_limbs, sizeof tab[0].l);                           \
    tab[1] = *a;                                                                     \
    for (int k = 2; k < 16; k++) F##_mul_k(tab[k].l, tab[k - 1].l, a->l);            \
    acc = tab[0];                                                                    \
    for (size_t i = n; i-- > 0;) {                                                   \
        for (int nib = 15; nib >= 0; nib--) {                                        \
            for (int s = 0; s < 4; s++) F##_sqr_k(acc.l, acc.l);                     \
            uint64_t w = (e[i] >> (4 * nib)) & 15;                                   \
            t = tab[0];                                                              \
            for (uint64_t k = 1; k < 16; k++)                                        \
                cz_limbs_cmov(t.l, t.l, tab[k].l, cz_limbs_eq(&k, &w, 1), N);        \
            F##_mul_k(acc.l, acc.l, t.l);                                            \
        }                                                                            \
    }                                                                                \
    *r = acc;                                                                        \
    explicit_bzero(tab, sizeof tab);                                                 \
    explicit_bzero(&t, sizeof t);                                                    \
    explicit_bzero(&acc, sizeof acc);                                                \
}                                                                                    \
/* r = a^e for a PUBLIC exponent (m-2, (m-1)/2, ...): fixed 4-bit window   */     \
/* with a direct table index. Operations and addresses depend on e only,   */     \
/* so this is still constant time in a; it saves cz_F_pow's table scans.   */     \
static void F##_pow_public(cz_##F *r, const cz_##F *a, const uint64_t *e, size_t n)  \
{                                                                                    \
    cz_##F tab[16], acc;                                                             \
    memcpy(tab[0].l, CZ_##F##_one_limbs, sizeof tab[0].l);                           \
    tab[1] = *a;                                                                     \
    for (int k = 2; k < 16; k++) F##_mul_k(tab[k].l, tab[k - 1].l, a->l);            \
    acc = tab[0];                                                                    \
    int started = 0;                                                                 \
    for (size_t i = n; i-- > 0;) {                                                   \
        for (int nib = 15; nib >= 0; nib--) {                                        \
            unsigned w = (unsigned)(e[i] >> (4 * nib)) & 15;                         \
            if (started)                                                             \
                for (int s = 0; s < 4; s++) F##_sqr_k(acc.l, acc.l);                 \
            if (w) {                                                                 \
                if (started) F##_mul_k(acc.l, acc.l, tab[w].l);                      \
                else acc = tab[w];                                                   \
                started = 1;                                                         \
            }                                                                        \
        }                                                                            \
    }                                                                                \
    *r = acc;                                                                        \
    explicit_bzero(tab, sizeof tab);                                                 \
    explicit_bzero(&acc, sizeof acc);                                                \
}                                                                                    \
void cz_##F##_inv(cz_##F *r, const cz_##F *a)                                        \
{ /* Fermat: a^(m-2); constant time, 0 -> 0. */                                      \
    F##_pow_public(r, a, F##_M_MINUS_2, N);                                          \
}                                                                                    \
void cz_##F##_inv_var(cz_##F *r, const cz_##F *a)                                    \
{                                                                                    \
    /* The limbs of a = x·R, read as an integer, are inverted by safegcd   */        \
    /* (binary Euclid as a never-taken fallback): y = (xR)^-1, then         */        \
    /* mont(y, R^3) = y·R^2 = x^-1·R.                                       */        \
    if (cz_limbs_is_zero(a->l, N)) { *r = *a; return; }                             \
    uint64_t y[N];                                                                   \
    if (cz_safegcd_inv_var(y, a->l, F##_M, F##_MINV, N))                             \
        cz_binary_inv_var(y, a->l, F##_M, F##_MINV, N);                              \
    F##_mul_k(r->l, y, F##_R3);                                                      \
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
    /* The kernels need inputs < m. A 256-bit half is < 3m for both     */          \
    /* fields (r > 2^254.8), so two conditional subtractions reduce it. */          \
    cz_mont_reduce_once(hi, hi, F##_M, N);                                           \
    cz_mont_reduce_once(hi, hi, F##_M, N);                                           \
    cz_mont_reduce_once(lo, lo, F##_M, N);                                           \
    cz_mont_reduce_once(lo, lo, F##_M, N);                                           \
    cz_##F h, l;                                                                     \
    F##_mul_k(h.l, hi, F##_R2);                                                      \
    F##_mul_k(l.l, lo, F##_R2);                                                      \
    F##_mul_k(h.l, h.l, F##_TWO256.l);                                               \
    cz_##F##_add(r, &h, &l);                                                         \
    explicit_bzero(hi, sizeof hi); explicit_bzero(lo, sizeof lo);                    \
    explicit_bzero(&h, sizeof h); explicit_bzero(&l, sizeof l);                      \
}

#endif /* CZ_FF_FIELD_IMPL_H */
