/* Fp, the 381-bit base field of BLS12-381. Generic parts: field_impl.h. */
#include "field_impl.h"
#include <stddef.h>

static const uint64_t fp_M[6] = {
    0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
    0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
static const uint64_t fp_M_MINUS_2[6] = {
    0xb9feffffffffaaa9ULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
    0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
static const uint64_t fp_MINV = 0x89f3fffcfffcfffdULL; /* -p^-1 mod 2^64 */
static const uint64_t fp_R2[6] = {
    0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
    0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL};
/* R^3 mod p: turns the plain inverse of a Montgomery limb pattern back into
 * Montgomery form (cz_fp_inv_var). */
static const uint64_t fp_R3[6] = {
    0xed48ac6bd94ca1e0ULL, 0x315f831e03a7adf8ULL, 0x9a53352a615e29ddULL,
    0x34c04e5e921e1761ULL, 0x2512d43565724728ULL, 0x0aa6346091755d4dULL};
/* 2^256 in Montgomery form (2^256·R mod p), for from_uniform_bytes. */
static const cz_fp fp_TWO256 = {{
    0x075b3cd7c5ce820fULL, 0x3ec6ba621c3edb0bULL, 0x168a13d82bff6bceULL,
    0x87663c4bf8c449d2ULL, 0x15f34c83ddc8d830ULL, 0x0f9628b49caa2e85ULL}};

const uint64_t CZ_fp_one_limbs[6] = {
    0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
    0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL};
const uint64_t CZ_FP_MODULUS[6] = {
    0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
    0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
const cz_fp CZ_FP_ZERO = {{0}};
const cz_fp CZ_FP_ONE = {{
    0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
    0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}};

#if CZ_HAVE_ADX_ASM
static const cz_adx_mod fp_ADX_MOD = {{
    0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
    0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL,
    0x89f3fffcfffcfffdULL, 0}};
#endif

CZ_FIELD_IMPL(fp, 6, 48)

/* (p+1)/4: p = 3 mod 4, so sqrt(a) = a^((p+1)/4) when a is a square. */
static const uint64_t fp_SQRT_EXP[6] = {
    0xee7fbfffffffeaabULL, 0x07aaffffac54ffffULL, 0xd9cc34a83dac3d89ULL,
    0xd91dd2e13ce144afULL, 0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL};
/* (p-1)/2 */
static const uint64_t fp_HALF[6] = {
    0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL,
    0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL};

bool cz_fp_sqrt(cz_fp *r, const cz_fp *a)
{
    cz_fp s, t;
    fp_pow_public(&s, a, fp_SQRT_EXP, 6);
    cz_fp_sqr(&t, &s);
    bool ok = cz_fp_eq(&t, a); /* before writing r: r may alias a */
    *r = s;
    return ok;
}

int cz_fp_legendre(const cz_fp *a)
{
    cz_fp t;
    fp_pow_public(&t, a, fp_HALF, 6);
    if (cz_fp_is_zero(&t)) return 0;
    return cz_fp_is_one(&t) ? 1 : -1;
}

bool cz_fp_is_odd(const cz_fp *a)
{
    uint64_t t[6];
    cz_fp_to_raw(t, a);
    return t[0] & 1;
}

bool cz_fp_is_lex_largest(const cz_fp *a)
{
    uint64_t t[6];
    cz_fp_to_raw(t, a);
    /* a > (p-1)/2  <=>  (p-1)/2 < a */
    return cz_limbs_lt(fp_HALF, t, 6);
}

/* r = a.c0·b.c0 + a.c1·b.c1: two products, one reduction (cz_fp2_mul).
 * The kernels read each cz_fp2 as 12 contiguous limbs. */
_Static_assert(sizeof(cz_fp2) == 96 && offsetof(cz_fp2, c1) == 48, "cz_fp2 layout");

void cz__fp_mulsum_portable(cz_fp *r, const cz_fp2 *a, const cz_fp2 *b)
{
    cz_mont_mulsum_sos(r->l, a->c0.l, b->c0.l, a->c1.l, b->c1.l, fp_M, fp_MINV, 6);
}

#if CZ_HAVE_ADX_ASM
void cz__fp_mulsum_adx(cz_fp *r, const cz_fp2 *a, const cz_fp2 *b)
{
    cz_adx_mont_mulsum6(r->l, a->c0.l, b->c0.l, &fp_ADX_MOD);
}
#endif

void cz__fp_mulsum(cz_fp *r, const cz_fp2 *a, const cz_fp2 *b)
{
#if CZ_HAVE_ADX_ASM
    if (CZ_FF_USE_ADX()) {
        cz_adx_mont_mulsum6(r->l, a->c0.l, b->c0.l, &fp_ADX_MOD);
        return;
    }
#endif
    cz__fp_mulsum_portable(r, a, b);
}
