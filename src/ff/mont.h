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

/* Carry primitives. On x86-64 the ADC/SBB intrinsics (base ISA, no -m
 * flag needed) give straight add-with-carry chains; the __int128 forms
 * make GCC juggle 128-bit temporaries and cost ~3x more. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
typedef unsigned char cz_carry_t;
#define CZ_ADC(c, a, b, out) ((c) = _addcarry_u64((c), (a), (b), (unsigned long long *)(out)))
#define CZ_SBB(c, a, b, out) ((c) = _subborrow_u64((c), (a), (b), (unsigned long long *)(out)))
#else
typedef uint64_t cz_carry_t;
#define CZ_ADC(c, a, b, out)                                                           \
    do {                                                                               \
        cz_u128 s_ = (cz_u128)(a) + (b) + (c);                                         \
        *(out) = (uint64_t)s_;                                                         \
        (c) = (uint64_t)(s_ >> 64);                                                    \
    } while (0)
#define CZ_SBB(c, a, b, out)                                                           \
    do {                                                                               \
        cz_u128 d_ = (cz_u128)(a) - (b) - (c);                                         \
        *(out) = (uint64_t)d_;                                                         \
        (c) = (uint64_t)(d_ >> 64) & 1;                                                \
    } while (0)
#endif

/* r = s + t over N limbs, the carry out dropped. On x86-64 the chain is
 * one asm block over register operands: written with the intrinsics, gcc
 * schedules the ANDs that form t (in cz_mont_sub: the modulus masked by
 * the borrow; the constant limbs come as immediates) into the middle of
 * the ADC chain, and since AND clobbers CF it saves and restores the carry
 * around every limb (SETB, ADD $0xff): that made cz_fp_sub ~22 % of the
 * scalar MSM's time. The asm forces every t[i] into a register first. */
static inline void cz_limbs_add_nc(uint64_t *r, const uint64_t *s, const uint64_t *t, int N)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (N == 6) {
        uint64_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], s4 = s[4], s5 = s[5];
        __asm__("addq %[t0], %[s0]\n\tadcq %[t1], %[s1]\n\tadcq %[t2], %[s2]\n\t"
                "adcq %[t3], %[s3]\n\tadcq %[t4], %[s4]\n\tadcq %[t5], %[s5]"
                : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [s4] "+r"(s4), [s5] "+r"(s5)
                : [t0] "r"(t[0]), [t1] "r"(t[1]), [t2] "r"(t[2]), [t3] "r"(t[3]), [t4] "r"(t[4]),
                  [t5] "r"(t[5])
                : "cc");
        r[0] = s0, r[1] = s1, r[2] = s2, r[3] = s3, r[4] = s4, r[5] = s5;
        return;
    }
    if (N == 4) {
        uint64_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
        __asm__("addq %[t0], %[s0]\n\tadcq %[t1], %[s1]\n\tadcq %[t2], %[s2]\n\tadcq %[t3], %[s3]"
                : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3)
                : [t0] "r"(t[0]), [t1] "r"(t[1]), [t2] "r"(t[2]), [t3] "r"(t[3])
                : "cc");
        r[0] = s0, r[1] = s1, r[2] = s2, r[3] = s3;
        return;
    }
#endif
    cz_carry_t c = 0;
    for (int i = 0; i < N; i++) CZ_ADC(c, s[i], t[i], &r[i]);
    (void)c;
}

/* r = a - m if a >= m else a (one conditional subtraction). */
static inline void cz_mont_reduce_once(uint64_t *r, const uint64_t *a, const uint64_t *m, int N)
{
    uint64_t t[8];
    cz_carry_t borrow = 0;
    for (int i = 0; i < N; i++) CZ_SBB(borrow, a[i], m[i], &t[i]);
    /* borrow = 1 means a < m: keep a. */
    uint64_t keep = 0 - (uint64_t)borrow;
    for (int i = 0; i < N; i++)
        r[i] = (a[i] & keep) | (t[i] & ~keep);
}

/* m < 2^(64N-1): a + b < 2m fits N limbs, no carry out. */
static inline void cz_mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int N)
{
    uint64_t s[8];
    cz_carry_t c = 0;
    for (int i = 0; i < N; i++) CZ_ADC(c, a[i], b[i], &s[i]);
    cz_mont_reduce_once(r, s, m, N);
}

static inline void cz_mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int N)
{
    uint64_t s[8];
    cz_carry_t borrow = 0;
    for (int i = 0; i < N; i++) CZ_SBB(borrow, a[i], b[i], &s[i]);
    uint64_t mask = 0 - (uint64_t)borrow; /* add m back when a < b */
    uint64_t mm[8];
    for (int i = 0; i < N; i++) mm[i] = m[i] & mask;
    cz_limbs_add_nc(r, s, mm, N);
}

static inline void cz_mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *m, int N)
{
    /* m - a, then force 0 when a == 0 (m - 0 = m is not reduced). */
    uint64_t nz = 0;
    for (int i = 0; i < N; i++) nz |= a[i];
    uint64_t mask = 0 - (uint64_t)((nz | (0 - nz)) >> 63);
    cz_carry_t borrow = 0;
    uint64_t d[8];
    for (int i = 0; i < N; i++) CZ_SBB(borrow, m[i], a[i], &d[i]);
    for (int i = 0; i < N; i++) r[i] = d[i] & mask; /* after the chain: AND clobbers CF */
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

/* Montgomery reduction of a 2N-limb w < m·2^(64N): r = w·2^(-64N) mod m.
 * Row i adds q·m·2^(64i) so that w[i] becomes 0; `top` carries into the
 * next row's w[i+N]. w is clobbered. */
static inline void cz_mont_redc(uint64_t *r, uint64_t *w, const uint64_t *m, uint64_t minv, int N)
{
    uint64_t top = 0;
    for (int i = 0; i < N; i++) {
        uint64_t q = w[i] * minv;
        uint64_t cc = 0;
        for (int j = 0; j < N; j++) {
            cz_u128 p = (cz_u128)q * m[j] + w[i + j] + cc;
            w[i + j] = (uint64_t)p;
            cc = (uint64_t)(p >> 64);
        }
        cz_u128 s = (cz_u128)w[i + N] + cc + top;
        w[i + N] = (uint64_t)s;
        top = (uint64_t)(s >> 64);
    }
    /* result < 2m < 2^(64N): top is 0 here */
    cz_mont_reduce_once(r, w + N, m, N);
}

/* Montgomery multiplication by separated operand scanning: the full
 * 2N-limb product, then cz_mont_redc. With __int128 arithmetic this
 * compiles to shorter dependency chains than CIOS (Fp: 50 ns vs 71 ns here). */
static inline void cz_mont_mul_sos(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                   const uint64_t *m, uint64_t minv, int N)
{
    uint64_t w[16] = {0};
    for (int i = 0; i < N; i++) {
        uint64_t c = 0;
        for (int j = 0; j < N; j++) {
            cz_u128 p = (cz_u128)a[j] * b[i] + w[i + j] + c;
            w[i + j] = (uint64_t)p;
            c = (uint64_t)(p >> 64);
        }
        w[i + N] = c;
    }
    cz_mont_redc(r, w, m, minv, N);
}

/* r = (a·b + c·d)·2^(-64N) mod m, inputs < m: both products summed in
 * 2N limbs (2m^2 < m·2^(64N)), one reduction. */
static inline void cz_mont_mulsum_sos(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                      const uint64_t *c, const uint64_t *d,
                                      const uint64_t *m, uint64_t minv, int N)
{
    uint64_t w[16] = {0};
    for (int i = 0; i < N; i++) {
        uint64_t k = 0;
        for (int j = 0; j < N; j++) {
            cz_u128 p = (cz_u128)a[j] * b[i] + w[i + j] + k;
            w[i + j] = (uint64_t)p;
            k = (uint64_t)(p >> 64);
        }
        w[i + N] = k;
    }
    for (int i = 0; i < N; i++) {
        uint64_t k = 0;
        for (int j = 0; j < N; j++) {
            cz_u128 p = (cz_u128)c[j] * d[i] + w[i + j] + k;
            w[i + j] = (uint64_t)p;
            k = (uint64_t)(p >> 64);
        }
        /* propagate into the upper limbs (the sum stays below 2^(128N)) */
        for (int j = i + N; j < 2 * N; j++) { /* fixed count: constant time */
            cz_u128 s = (cz_u128)w[j] + k;
            w[j] = (uint64_t)s;
            k = (uint64_t)(s >> 64);
        }
    }
    cz_mont_redc(r, w, m, minv, N);
}

/* Dedicated Montgomery squaring: r = a^2·2^(-64N) mod m. The 2N-limb
 * square computes each cross product a_i·a_j (i < j) once and doubles
 * the sum (N(N-1)/2 + N multiplications instead of N^2), then N rows of
 * Montgomery reduction (separated operand scanning). */
static inline void cz_mont_sqr(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t minv, int N)
{
    uint64_t w[16] = {0};
    for (int i = 0; i < N; i++) {
        uint64_t c = 0;
        for (int j = i + 1; j < N; j++) {
            cz_u128 p = (cz_u128)a[i] * a[j] + w[i + j] + c;
            w[i + j] = (uint64_t)p;
            c = (uint64_t)(p >> 64);
        }
        w[i + N] = c;
    }
    /* double: a^2 < 2^(128N-2), so no bit leaves w[2N-1] */
    for (int k = 2 * N - 1; k > 0; k--) w[k] = (w[k] << 1) | (w[k - 1] >> 63);
    w[0] <<= 1;
    uint64_t c = 0;
    for (int i = 0; i < N; i++) {
        cz_u128 p = (cz_u128)a[i] * a[i];
        cz_u128 s = (cz_u128)w[2 * i] + (uint64_t)p + c;
        w[2 * i] = (uint64_t)s;
        s = (cz_u128)w[2 * i + 1] + (uint64_t)(p >> 64) + (uint64_t)(s >> 64);
        w[2 * i + 1] = (uint64_t)s;
        c = (uint64_t)(s >> 64);
    }
    cz_mont_redc(r, w, m, minv, N);
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

/* ---- variable-time helpers (public data only) ---------------------------- */

/* r = a - b over N limbs; returns the borrow. */
static inline uint64_t cz_limbs_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, int N)
{
    uint64_t borrow = 0;
    for (int i = 0; i < N; i++) {
        cz_u128 d = (cz_u128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

/* x = x·2^(-k) mod m for x < m, 1 <= k <= 63: add q·m with
 * q = x·minv mod 2^k so that the sum is divisible by 2^k, then shift
 * (one N×1 multiplication for k halvings). */
static inline void cz_mont_div2k_var(uint64_t *x, unsigned k, const uint64_t *m, uint64_t minv, int N)
{
    uint64_t q = (x[0] * minv) & ((UINT64_C(1) << k) - 1);
    uint64_t t[9];
    uint64_t c = 0;
    for (int i = 0; i < N; i++) {
        cz_u128 p = (cz_u128)q * m[i] + x[i] + c;
        t[i] = (uint64_t)p;
        c = (uint64_t)(p >> 64);
    }
    t[N] = c;
    for (int i = 0; i < N; i++) x[i] = (t[i] >> k) | (t[i + 1] << (64 - k));
    /* (x + q·m)/2^k < m(1 + 2^k)/2^k < 2m */
    cz_mont_reduce_once(x, x, m, N);
}

static inline unsigned cz_limbs_ctz_var(const uint64_t *a, int N)
{
    for (int i = 0; i < N; i++)
        if (a[i]) return (unsigned)(64 * i + __builtin_ctzll(a[i]));
    return (unsigned)(64 * N);
}

static inline void cz_limbs_shr_var(uint64_t *a, unsigned k, int N)
{
    unsigned w = k / 64, b = k % 64;
    for (int i = 0; i < N; i++) {
        uint64_t lo = (i + (int)w < N) ? a[i + w] : 0;
        uint64_t hi = (i + (int)w + 1 < N) ? a[i + w + 1] : 0;
        a[i] = b ? (lo >> b) | (hi << (64 - b)) : lo;
    }
}

static inline int cz_limbs_is_one_var(const uint64_t *a, int N)
{
    if (a[0] != 1) return 0;
    for (int i = 1; i < N; i++)
        if (a[i]) return 0;
    return 1;
}

/* r = a^-1 mod m for canonical 0 < a < m, m an odd prime, m < 2^(64N-1):
 * binary extended Euclid (Guide to ECC, alg. 2.22) on u = a, v = m with
 * x1·a = u, x2·a = v (mod m) kept invariant. Runs of trailing zeros are
 * stripped at once (cz_mont_div2k_var). Variable time. */
static inline void cz_binary_inv_var(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t minv, int N)
{
    uint64_t u[8], v[8], x1[8] = {1}, x2[8] = {0}, d[8];
    memcpy(u, a, 8 * (size_t)N);
    memcpy(v, m, 8 * (size_t)N);
    for (int i = 1; i < N; i++) x1[i] = 0;
    for (;;) {
        unsigned k = cz_limbs_ctz_var(u, N);
        if (k) {
            cz_limbs_shr_var(u, k, N);
            for (; k > 63; k -= 63) cz_mont_div2k_var(x1, 63, m, minv, N);
            cz_mont_div2k_var(x1, k, m, minv, N);
        }
        k = cz_limbs_ctz_var(v, N);
        if (k) {
            cz_limbs_shr_var(v, k, N);
            for (; k > 63; k -= 63) cz_mont_div2k_var(x2, 63, m, minv, N);
            cz_mont_div2k_var(x2, k, m, minv, N);
        }
        if (cz_limbs_is_one_var(u, N)) { memcpy(r, x1, 8 * (size_t)N); return; }
        if (cz_limbs_is_one_var(v, N)) { memcpy(r, x2, 8 * (size_t)N); return; }
        /* both odd and > 1, distinct (gcd = 1): the difference is even, > 0 */
        if (!cz_limbs_sub(d, u, v, N)) {
            memcpy(u, d, 8 * (size_t)N);
            cz_mont_sub(x1, x1, x2, m, N);
        } else {
            cz_limbs_sub(v, v, u, N);
            cz_mont_sub(x2, x2, x1, m, N);
        }
    }
}

/* ---- safegcd (Bernstein–Yang divsteps), variable time ---------------------
 *
 * Numbers are held in signed-62-bit-limb form: K int64 limbs, value =
 * sum l[k]·2^(62k), limbs 0..K-2 in [0, 2^62), the top limb signed. Each
 * outer round runs 62 divsteps on the low 62 bits of f and g (zero runs
 * skipped with ctz), giving a matrix T with |u|+|v|, |q|+|r| <= 2^62, then
 * applies it exactly to (f, g) and modulo m to (d, e). Invariants:
 * d·x = f, e·x = g (mod m); f stays odd; g reaches 0 with f = ±1.
 * About 10 rounds for 381 bits instead of ~500 bit steps. */

#define CZ_S62_MASK ((UINT64_C(1) << 62) - 1)
#define CZ_S62_MAXK 8

static inline void cz_s62_from_limbs(int64_t *o, const uint64_t *a, int N, int K)
{
    for (int k = 0; k < K; k++) {
        int bit = 62 * k, w = bit / 64, sh = bit % 64;
        uint64_t lo = w < N ? a[w] >> sh : 0;
        uint64_t hi = (sh && w + 1 < N) ? a[w + 1] << (64 - sh) : 0;
        o[k] = (int64_t)((lo | hi) & CZ_S62_MASK);
    }
}

/* o must be non-negative and < 2^(64N). */
static inline void cz_s62_to_limbs(uint64_t *a, const int64_t *o, int N, int K)
{
    for (int i = 0; i < N; i++) a[i] = 0;
    for (int k = 0; k < K; k++) {
        int bit = 62 * k, w = bit / 64, sh = bit % 64;
        uint64_t v = (uint64_t)o[k];
        if (w < N) a[w] |= v << sh;
        if (sh > 2 && w + 1 < N) a[w + 1] |= v >> (64 - sh);
    }
}

/* 62 divsteps on the low bits; delta as in Bernstein–Yang (starts at 1).
 * Returns T = [[u, v], [q, r]] with 2^62·(f', g') = T·(f, g). */
static inline void cz_divsteps62_var(int64_t *delta, uint64_t f, uint64_t g, int64_t t[4])
{
    uint64_t u = 1, v = 0, q = 0, r = 1;
    int64_t dl = *delta;
    int i = 62;
    for (;;) {
        /* g even: halve it (double the f row) — a run of steps at once */
        int z = __builtin_ctzll(g | (UINT64_C(1) << i));
        g >>= z;
        u <<= z;
        v <<= z;
        dl += z;
        i -= z;
        if (i == 0) break;
        /* g odd: if delta > 0 swap to (g, -f) and negate delta */
        if (dl > 0) {
            uint64_t tmp = f;
            f = g;
            g = 0 - tmp;
            tmp = u;
            u = q;
            q = 0 - tmp;
            tmp = v;
            v = r;
            r = 0 - tmp;
            dl = -dl;
        }
        /* g = (g + f)/2: the halving and delta + 1 happen at the loop top */
        g += f;
        q += u;
        r += v;
    }
    *delta = dl;
    t[0] = (int64_t)u;
    t[1] = (int64_t)v;
    t[2] = (int64_t)q;
    t[3] = (int64_t)r;
}

/* (f, g) = T·(f, g) / 2^62 exactly. */
static inline void cz_s62_update_fg(int64_t *f, int64_t *g, const int64_t t[4], int K)
{
    __int128 cf = (__int128)t[0] * f[0] + (__int128)t[1] * g[0];
    __int128 cg = (__int128)t[2] * f[0] + (__int128)t[3] * g[0];
    cf >>= 62; /* the low 62 bits are zero by construction */
    cg >>= 62;
    for (int k = 1; k < K; k++) {
        cf += (__int128)t[0] * f[k] + (__int128)t[1] * g[k];
        cg += (__int128)t[2] * f[k] + (__int128)t[3] * g[k];
        f[k - 1] = (int64_t)((uint64_t)cf & CZ_S62_MASK);
        g[k - 1] = (int64_t)((uint64_t)cg & CZ_S62_MASK);
        cf >>= 62;
        cg >>= 62;
    }
    f[K - 1] = (int64_t)cf;
    g[K - 1] = (int64_t)cg;
}

/* x = x + s·m (s = ±1) in s62 form, carries normalised. */
static inline void cz_s62_add_m(int64_t *x, const int64_t *m, int64_t s, int K)
{
    __int128 c = 0;
    for (int k = 0; k < K - 1; k++) {
        c += (__int128)x[k] + (__int128)s * m[k];
        x[k] = (int64_t)((uint64_t)c & CZ_S62_MASK);
        c >>= 62;
    }
    x[K - 1] = (int64_t)(c + x[K - 1] + (__int128)s * m[K - 1]);
}

/* (d, e) = T·(d, e) / 2^62 mod m, for d, e in [0, m); output in [0, m).
 * A multiple md·m (md < 2^62) is added so that the low 62 bits vanish:
 * the quotient lies in (-m, 2m) and one correction brings it to [0, m). */
static inline void cz_s62_update_de(int64_t *d, int64_t *e, const int64_t t[4], const int64_t *m,
                                    uint64_t minv62, int K)
{
    __int128 cd = (__int128)t[0] * d[0] + (__int128)t[1] * e[0];
    __int128 ce = (__int128)t[2] * d[0] + (__int128)t[3] * e[0];
    int64_t md = (int64_t)(((0 - (uint64_t)cd) * minv62) & CZ_S62_MASK);
    int64_t me = (int64_t)(((0 - (uint64_t)ce) * minv62) & CZ_S62_MASK);
    cd += (__int128)md * m[0];
    ce += (__int128)me * m[0];
    cd >>= 62;
    ce >>= 62;
    for (int k = 1; k < K; k++) {
        cd += (__int128)t[0] * d[k] + (__int128)t[1] * e[k] + (__int128)md * m[k];
        ce += (__int128)t[2] * d[k] + (__int128)t[3] * e[k] + (__int128)me * m[k];
        d[k - 1] = (int64_t)((uint64_t)cd & CZ_S62_MASK);
        e[k - 1] = (int64_t)((uint64_t)ce & CZ_S62_MASK);
        cd >>= 62;
        ce >>= 62;
    }
    d[K - 1] = (int64_t)cd;
    e[K - 1] = (int64_t)ce;
    for (int w = 0; w < 2; w++) {
        int64_t *x = w ? e : d;
        if (x[K - 1] < 0) {
            cz_s62_add_m(x, m, 1, K);
        } else {
            int64_t y[CZ_S62_MAXK];
            memcpy(y, x, sizeof(int64_t) * (size_t)K);
            cz_s62_add_m(y, m, -1, K);
            if (y[K - 1] >= 0) memcpy(x, y, sizeof(int64_t) * (size_t)K);
        }
    }
}

/* r = a^-1 mod m for canonical 0 < a < m, m odd prime < 2^(64N-1),
 * minv = -m^-1 mod 2^64. Returns 0 on success; 1 if the round cap was hit
 * (cannot happen for a prime m; the caller then falls back). */
static inline int cz_safegcd_inv_var(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t minv, int N)
{
    const int K = (64 * N) / 62 + 1;
    int64_t f[CZ_S62_MAXK], g[CZ_S62_MAXK], d[CZ_S62_MAXK] = {0}, e[CZ_S62_MAXK] = {0};
    int64_t ms[CZ_S62_MAXK], t[4], delta = 1;
    uint64_t minv62 = (0 - minv) & CZ_S62_MASK; /* m^-1 mod 2^62 */
    cz_s62_from_limbs(ms, m, N, K);
    cz_s62_from_limbs(f, m, N, K);
    cz_s62_from_limbs(g, a, N, K);
    e[0] = 1;
    for (int round = 0;; round++) {
        if (round > 40 * N) return 1;
        cz_divsteps62_var(&delta, (uint64_t)f[0], (uint64_t)g[0], t);
        cz_s62_update_fg(f, g, t, K);
        cz_s62_update_de(d, e, t, ms, minv62, K);
        int64_t nz = 0;
        for (int k = 0; k < K; k++) nz |= g[k];
        if (!nz) break;
    }
    /* f = ±1 and d·a = f: the inverse is ±d */
    if (f[K - 1] < 0) {
        int64_t z = 0;
        for (int k = 0; k < K; k++) z |= d[k];
        if (z) { /* d = m - d */
            for (int k = 0; k < K; k++) d[k] = -d[k];
            /* renormalise the negated limbs, then add m */
            cz_s62_add_m(d, ms, 0, K);
            cz_s62_add_m(d, ms, 1, K);
        }
    }
    cz_s62_to_limbs(r, d, N, K);
    return 0;
}

#endif /* CZ_FF_MONT_H */
