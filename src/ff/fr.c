/* Fr, the 255-bit scalar field of BLS12-381. Generic parts: field_impl.h. */
#include "field_impl.h"
#include <errno.h>
#include <sys/random.h>

static const uint64_t fr_M[4] = {
    0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
static const uint64_t fr_M_MINUS_2[4] = {
    0xfffffffeffffffffULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
static const uint64_t fr_MINV = 0xfffffffeffffffffULL; /* -r^-1 mod 2^64 */
static const uint64_t fr_R2[4] = {
    0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL, 0x0748d9d99f59ff11ULL};
/* R^3 mod r (cz_fr_inv_var, as in fp.c). */
static const uint64_t fr_R3[4] = {
    0xc62c1807439b73afULL, 0x1b3e0d188cf06990ULL, 0x73d13c71c7b5f418ULL, 0x6e2a5bb9c8db33e9ULL};
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

#if CZ_HAVE_ADX_ASM
static const cz_adx_mod fr_ADX_MOD = {{
    0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL,
    0xfffffffeffffffffULL, 0}};
#endif

CZ_FIELD_IMPL(fr, 4, 32)

/* 7^((r-1)/2^32) in Montgomery form: a primitive 2^32-th root of unity. */
static const cz_fr fr_ROOT32 = {{
    0xb9b58d8c5f0e466aULL, 0x5b1b4c801819d7ecULL, 0x0af53ae352a31e64ULL, 0x5bf3adda19e9b27bULL}};

cz_status cz_fr_root_of_unity(cz_fr *r, unsigned k)
{
    if (k > CZ_FR_TWO_ADICITY) {
        /* a clamped root would silently be of the wrong order */
        *r = CZ_FR_ZERO;
        return CZ_ERR_INVALID_ARG;
    }
    cz_fr w = fr_ROOT32;
    for (unsigned i = k; i < CZ_FR_TWO_ADICITY; i++) cz_fr_sqr(&w, &w);
    *r = w;
    return CZ_OK;
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

/* ---- square roots ---------------------------------------------------------- */

/* r - 1 = 2^32·t, t odd. */
/* (t-1)/2 */
static const uint64_t fr_TM1_HALF[4] = {
    0x7fff2dff7fffffffULL, 0x04d0ec02a9ded201ULL, 0x94cebea4199cec04ULL, 0x0000000039f6d3a9ULL};
/* (r-1)/2 */
static const uint64_t fr_HALF[4] = {
    0x7fffffff80000000ULL, 0xa9ded2017fff2dffULL, 0x199cec0404d0ec02ULL, 0x39f6d3a994cebea4ULL};

int cz_fr_legendre(const cz_fr *a)
{
    /* Euler's criterion: a^((r-1)/2) is 0, 1 or -1. */
    cz_fr t;
    fr_pow_public(&t, a, fr_HALF, 4);
    if (cz_fr_is_zero(&t)) return 0;
    return cz_fr_is_one(&t) ? 1 : -1;
}

bool cz_fr_sqrt(cz_fr *r, const cz_fr *a)
{
    /* Constant-time Tonelli–Shanks (RFC 9380, appendix I.4) with S = 32 and
     * the non-residue 7, whose t-th power is the primitive 2^32-th root of
     * unity fr_ROOT32. The loop runs a fixed number of squarings and
     * selects with cmov, so timing does not depend on a. */
    cz_fr z, t, b, c, zt, tt;
    fr_pow_public(&z, a, fr_TM1_HALF, 4); /* a^((t-1)/2) */
    cz_fr_sqr(&t, &z);
    cz_fr_mul(&t, &t, a); /* a^t */
    cz_fr_mul(&z, &z, a); /* a^((t+1)/2) */
    b = t;
    c = fr_ROOT32;
    for (int i = 32; i >= 2; i--) {
        for (int j = 1; j <= i - 2; j++) cz_fr_sqr(&b, &b);
        uint64_t e = cz_fr_is_one(&b);
        cz_fr_mul(&zt, &z, &c);
        cz_fr_cmov(&z, &zt, &z, e);
        cz_fr_sqr(&c, &c);
        cz_fr_mul(&tt, &t, &c);
        cz_fr_cmov(&t, &tt, &t, e);
        b = t;
    }
    cz_fr_sqr(&b, &z);
    bool ok = cz_fr_eq(&b, a); /* before writing r: r may alias a */
    *r = z;
    return ok;
}

/* ---- decimal --------------------------------------------------------------- */

cz_status cz_fr_from_dec(cz_fr *r, const char *dec)
{
    if (!dec || !*dec) return CZ_ERR_FORMAT;
    /* Accumulate in 5 limbs: any value that spills into the fifth limb is
     * >= 2^256 > r, and stays so (it is rejected as soon as it does). */
    uint64_t acc[5] = {0};
    for (const char *s = dec; *s; s++) {
        if (*s < '0' || *s > '9') return CZ_ERR_FORMAT;
        uint64_t c = (uint64_t)(*s - '0');
        for (int i = 0; i < 5; i++) {
            cz_u128 p = (cz_u128)acc[i] * 10 + c;
            acc[i] = (uint64_t)p;
            c = (uint64_t)(p >> 64);
        }
        if (acc[4] || c) return CZ_ERR_NOT_CANONICAL;
    }
    return cz_fr_from_raw(r, acc);
}

void cz_fr_to_dec(char out[80], const cz_fr *a)
{
    uint64_t t[4];
    cz_fr_to_raw(t, a);
    char rev[80];
    size_t n = 0;
    /* divide by 10 repeatedly (variable time: decimal output is for public
     * values such as JSON proofs) */
    do {
        uint64_t rem = 0;
        for (int i = 3; i >= 0; i--) {
            cz_u128 cur = ((cz_u128)rem << 64) | t[i];
            t[i] = (uint64_t)(cur / 10);
            rem = (uint64_t)(cur % 10);
        }
        rev[n++] = (char)('0' + rem);
    } while (t[0] | t[1] | t[2] | t[3]);
    for (size_t i = 0; i < n; i++) out[i] = rev[n - 1 - i];
    out[n] = '\0';
}

/* ---- randomness ------------------------------------------------------------ */

cz_status cz_fr_random(cz_fr *r)
{
    /* 512 random bits reduced mod r (statistical distance ~2^-257 from
     * uniform); the seed material is wiped. */
    uint8_t buf[64];
    size_t got = 0;
    while (got < sizeof buf) {
        ssize_t k = getrandom(buf + got, sizeof buf - got, 0);
        if (k < 0) {
            if (errno == EINTR) continue;
            explicit_bzero(buf, sizeof buf);
            return CZ_ERR_IO;
        }
        got += (size_t)k;
    }
    cz_fr_from_uniform_bytes(r, buf);
    explicit_bzero(buf, sizeof buf);
    return CZ_OK;
}
