#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t s[4];
static int seeded;

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t cz_test_seed(void)
{
    static uint64_t seed;
    static int have;
    if (!have) {
        const char *e = getenv("CZ_SEED");
        seed = e ? strtoull(e, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
        fprintf(stderr, "test seed: CZ_SEED=%llu\n", (unsigned long long)seed);
        have = 1;
    }
    return seed;
}

void cz_rng_seed(uint64_t seed)
{
    for (int i = 0; i < 4; i++) s[i] = splitmix(&seed);
    seeded = 1;
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t cz_rng_u64(void)
{
    if (!seeded) cz_rng_seed(cz_test_seed());
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void cz_rng_bytes(void *out, size_t n)
{
    uint8_t *p = out;
    while (n) {
        uint64_t v = cz_rng_u64();
        size_t k = n < 8 ? n : 8;
        memcpy(p, &v, k);
        p += k;
        n -= k;
    }
}

void cz_rng_fp(cz_fp *r)
{
    uint8_t b[64];
    cz_rng_bytes(b, 64);
    cz_fp_from_uniform_bytes(r, b);
}

void cz_rng_fr(cz_fr *r)
{
    uint8_t b[64];
    cz_rng_bytes(b, 64);
    cz_fr_from_uniform_bytes(r, b);
}

void cz_rng_fp2(cz_fp2 *r)
{
    cz_rng_fp(&r->c0);
    cz_rng_fp(&r->c1);
}

const char *cz_vector_path(const char *rel)
{
    static char buf[4096];
    const char *d = getenv("CZ_VECTORS");
    snprintf(buf, sizeof buf, "%s/%s", d ? d : "tests/vectors", rel);
    return buf;
}

uint8_t *cz_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        fail();
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

void cz_mpz_from_limbs(mpz_t z, const uint64_t *l, size_t n)
{
    mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, l);
}

void cz_mpz_to_limbs(uint64_t *l, size_t n, const mpz_t z)
{
    memset(l, 0, n * sizeof *l);
    size_t count = 0;
    assert_true(mpz_sizeinbase(z, 2) <= 64 * n);
    mpz_export(l, &count, -1, sizeof(uint64_t), 0, 0, z);
}

void cz_for_each_backend(void (*fn)(void **state), void **state)
{
    cz_ff_backend saved = cz_ff_get_backend();
    assert_int_equal(cz_ff_set_backend(CZ_FF_PORTABLE), CZ_OK);
    fn(state);
    if (cz_ff_adx_supported() && cz_ff_set_backend(CZ_FF_ADX) == CZ_OK)
        fn(state);
    else
        fprintf(stderr, "note: ADX back-end not available here; portable only\n");
    assert_int_equal(cz_ff_set_backend(saved), CZ_OK);
}

int cz_test_dir_make(char *dir, size_t cap, const char *prefix)
{
    if ((size_t)snprintf(dir, cap, "/tmp/%sXXXXXX", prefix) >= cap)
        return -1;
    return mkdtemp(dir) ? 0 : -1;
}

int cz_test_dir_remove(const char *dir)
{
    char cmd[600];
    if (!dir[0] || (size_t)snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir) >= sizeof cmd)
        return -1;
    return system(cmd) == 0 ? 0 : -1;
}
