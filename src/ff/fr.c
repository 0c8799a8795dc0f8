/* Fr, the 255-bit scalar field of BLS12-381. Generic parts: field_impl.h. */
#include "field_impl.h"

static const uint64_t fr_M[4] = {
    0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
static const uint64_t fr_M_MINUS_2[4] = {
    0xfffffffeffffffffULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
static const uint64_t fr_MINV = 0xfffffffeffffffffULL; /* -r^-1 mod 2^64 */
static const uint64_t fr_R2[4] = {
    0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL, 0x0748d9d99f59ff11ULL};
/* 2^256 in Montgomery form: 2^256·R mod r = R^2 mod r. */
static const cz_fr fr_TWO256 = {{
    0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL, 0x0748d9d99f59ff11ULL}};

const uint64_t CZ_fr_one_limbs[4] = {
    0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL};
const uint64_t CZ_FR_MODULUS[4] = {
    0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
const cz_fr CZ_FR_ZERO = {{0}};
const cz_fr CZ_FR_ONE = {{
    0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL}};

void cz__fr_mul_portable(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    cz_mont_mul(r, a, b, fr_M, fr_MINV, 4);
}

void cz__fr_sqr_portable(uint64_t *r, const uint64_t *a)
{
    cz_mont_mul(r, a, a, fr_M, fr_MINV, 4);
}

CZ_FIELD_IMPL(fr, 4, 32)

/* 7^((r-1)/2^32) in Montgomery form: a primitive 2^32-th root of unity. */
static const cz_fr fr_ROOT32 = {{
    0xb9b58d8c5f0e466aULL, 0x5b1b4c801819d7ecULL, 0x0af53ae352a31e64ULL, 0x5bf3adda19e9b27bULL}};

void cz_fr_root_of_unity(cz_fr *r, unsigned k)
{
    cz_fr w = fr_ROOT32;
    if (k > 32) k = 32;
    for (unsigned i = k; i < 32; i++) cz_fr_sqr(&w, &w);
    *r = w;
}

void cz_fr_batch_inv_var(cz_fr *v, size_t n, cz_fr *scratch)
{
    /* prefix products of the nonzero entries, one inversion, back-substitute */
    cz_fr acc = CZ_FR_ONE;
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!cz_fr_is_zero(&v[i])) cz_fr_mul(&acc, &acc, &v[i]);
    }
    cz_fr_inv_var(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (cz_fr_is_zero(&v[i])) continue;
        cz_fr t;
        cz_fr_mul(&t, &acc, &scratch[i]);
        cz_fr_mul(&acc, &acc, &v[i]);
        v[i] = t;
    }
}

void cz_fr_inv_var(cz_fr *r, const cz_fr *a)
{
    /* TODO(ff): binary extended Euclid; Fermat for now. */
    cz_fr_inv(r, a);
}
