/*
 * Generic Montgomery arithmetic over N 64-bit limbs — portable C.
 *
 * Internal to src/ff. Every function is static inline and takes the limb
 * count N as an argument; callers pass a compile-time constant so the
 * compiler fully unrolls the loops (fp.c instantiates N = 6, fr.c N = 4).
 *
 * Contracts (all functions): inputs are fully reduced (< m), outputs are
 * fully reduced, out may alias any input, all code is constant time
 * (no branch or index depends on limb values).
 * The modulus must leave at least one spare top bit (m < 2^(64N-1)), true
 * for p (381 bits) and r (255 bits); add relies on it (no carry out).
 */
#ifndef CZ_FF_MONT_H
#define CZ_FF_MONT_H

#include <stdint.h>
#include <string.h>

typedef unsigned __int128 cz_u128;

/* r = a - m if a >= m else a (a < 2m, fits N limbs). */
static inline void cz_mont_reduce_once(uint64_t *r, const uint64_t *a, const uint64_t *m, int N)
{
    uint64_t t[8];
    uint64_t borrow = 0;
    for (int i = 0; i < N; i++) {
        cz_u128 d = (cz_u128)a[i] - m[i] - borrow;
        t[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    /* borrow = 1 means a < m: keep a. */
    uint64_t keep = 0 - borrow;
    for (int i = 0; i < N; i++)
        r[i] = (a[i] & keep) | (t[i] & ~keep);
}

static inline void cz_mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int N)
{
    uint64_t s[8];
    uint64_t c = 0;
    for (int i = 0; i < N; i++) {
        cz_u128 t = (cz_u128)a[i] + b[i] + c;
        s[i] = (uint64_t)t;
        c = (uint64_t)(t >> 64);
    }
    cz_mont_reduce_once(r, s, m, N);
}

static inline void cz_mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int N)
{
    uint64_t s[8];
    uint64_t borrow = 0;
    for (int i = 0; i < N; i++) {
        cz_u128 d = (cz_u128)a[i] - b[i] - borrow;
        s[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    uint64_t mask = 0 - borrow; /* add m back when a < b */
    uint64_t c = 0;
    for (int i = 0; i < N; i++) {
        cz_u128 t = (cz_u128)s[i] + (m[i] & mask) + c;
        r[i] = (uint64_t)t;
        c = (uint64_t)(t >> 64);
    }
}

static inline void cz_mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *m, int N)
{
    /* m - a, then force 0 when a == 0 (m - 0 = m is not reduced). */
    uint64_t nz = 0;
    for (int i = 0; i < N; i++) nz |= a[i];
    uint64_t mask = 0 - (uint64_t)((nz | (0 - nz)) >> 63);
    uint64_t borrow = 0;
    for (int i = 0; i < N; i++) {
        cz_u128 d = (cz_u128)m[i] - a[i] - borrow;
        r[i] = (uint64_t)d & mask;
        borrow = (uint64_t)(d >> 64) & 1;
    }
}

/* CIOS Montgomery multiplication: r = a·b·2^(-64N) mod m. */
static inline void cz_mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b,
                               const uint64_t *m, uint64_t minv, int N)
{
    uint64_t t[10] = {0};
    for (int i = 0; i < N; i++) {
        uint64_t c = 0;
        for (int j = 0; j < N; j++) {
            cz_u128 p = (cz_u128)a[j] * b[i] + t[j] + c;
            t[j] = (uint64_t)p;
            c = (uint64_t)(p >> 64);
        }
        cz_u128 s = (cz_u128)t[N] + c;
        t[N] = (uint64_t)s;
        t[N + 1] = (uint64_t)(s >> 64);

        uint64_t q = t[0] * minv;
        cz_u128 p = (cz_u128)q * m[0] + t[0];
        c = (uint64_t)(p >> 64);
        for (int j = 1; j < N; j++) {
            p = (cz_u128)q * m[j] + t[j] + c;
            t[j - 1] = (uint64_t)p;
            c = (uint64_t)(p >> 64);
        }
        s = (cz_u128)t[N] + c;
        t[N - 1] = (uint64_t)s;
        t[N] = t[N + 1] + (uint64_t)(s >> 64);
    }
    /* t < 2m and, with a spare top bit in m, t[N] == 0. */
    cz_mont_reduce_once(r, t, m, N);
}

/* Montgomery reduction of a single-width value: r = a·2^(-64N) mod m
 * (converts out of Montgomery form). */
static inline void cz_mont_from(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t minv, int N)
{
    uint64_t one[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    cz_mont_mul(r, a, one, m, minv, N);
}

static inline uint64_t cz_limbs_is_zero(const uint64_t *a, int N)
{
    uint64_t acc = 0;
    for (int i = 0; i < N; i++) acc |= a[i];
    return 1 ^ ((acc | (0 - acc)) >> 63);
}

static inline uint64_t cz_limbs_eq(const uint64_t *a, const uint64_t *b, int N)
{
    uint64_t acc = 0;
    for (int i = 0; i < N; i++) acc |= a[i] ^ b[i];
    return 1 ^ ((acc | (0 - acc)) >> 63);
}

/* 1 when a < b (canonical comparison), constant time. */
static inline uint64_t cz_limbs_lt(const uint64_t *a, const uint64_t *b, int N)
{
    uint64_t borrow = 0;
    for (int i = 0; i < N; i++) {
        cz_u128 d = (cz_u128)a[i] - b[i] - borrow;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

static inline void cz_limbs_cmov(uint64_t *r, const uint64_t *a, const uint64_t *b, uint64_t flag, int N)
{
    uint64_t mask = 0 - (flag & 1);
    for (int i = 0; i < N; i++) r[i] = (a[i] & ~mask) | (b[i] & mask);
}

#endif /* CZ_FF_MONT_H */
