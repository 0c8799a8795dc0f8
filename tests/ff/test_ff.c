/*
 * Field arithmetic (Fp, Fr, Fp2) checked against GMP.
 *
 * Every Fp/Fr operation is compared with mpz on edge values (0, 1, 2,
 * m-1, m-2, (m±1)/2, 2^k and 2^k±1 for every k, m-2^k, all-ones limbs
 * reduced, R and R^-1 mod m, ...) and on seeded random values, and every
 * test runs once per back-end (cz_for_each_backend). The portable and
 * MULX/ADX kernels are also compared directly with each other. Fp2 is
 * compared with a GMP model of a0 + a1·u (u^2 = -1).
 *
 * Reproduce a failure with CZ_SEED=<seed printed on stderr>.
 */
#include <stdio.h> /* before gmp.h (via testutil.h): enables gmp_fprintf */
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "ff/ff_internal.h"
#include "ff/mont.h"
#include "ff/fp_x4.h"
#include "ff/fr_x4.h"

#ifdef CUZK_SANITIZED
#define NRAND 150
#else
#define NRAND 1500
#endif

typedef union {
    cz_fp fp;
    cz_fr fr;
    uint64_t l[6];
} elem;

typedef void (*kern2)(uint64_t *, const uint64_t *, const uint64_t *);
typedef void (*kern1)(uint64_t *, const uint64_t *);

typedef struct {
    const char *name;
    int n, nbytes;
    const uint64_t *mod;
    void (*add)(elem *, const elem *, const elem *);
    void (*sub)(elem *, const elem *, const elem *);
    void (*mul)(elem *, const elem *, const elem *);
    void (*neg)(elem *, const elem *);
    void (*dbl)(elem *, const elem *);
    void (*sqr)(elem *, const elem *);
    void (*inv)(elem *, const elem *);
    void (*inv_var)(elem *, const elem *);
    void (*pow)(elem *, const elem *, const uint64_t *, size_t);
    bool (*sqrt)(elem *, const elem *);
    int (*legendre)(const elem *);
    bool (*eq)(const elem *, const elem *);
    bool (*is_zero)(const elem *);
    bool (*is_one)(const elem *);
    void (*cmov)(elem *, const elem *, const elem *, uint64_t);
    void (*from_u64)(elem *, uint64_t);
    cz_status (*from_raw)(elem *, const uint64_t *);
    void (*to_raw)(uint64_t *, const elem *);
    cz_status (*from_le)(elem *, const uint8_t *);
    cz_status (*from_be)(elem *, const uint8_t *);
    void (*to_le)(uint8_t *, const elem *);
    void (*to_be)(uint8_t *, const elem *);
    cz_status (*from_hex)(elem *, const char *);
    void (*to_hex)(char *, const elem *);
    void (*from_uniform)(elem *, const uint8_t *);
    kern2 mul_port, mul_adx;
    kern1 sqr_port, sqr_adx;
} field;

#define WRAP(F)                                                                               \
    static void F##_add(elem *r, const elem *a, const elem *b) { cz_##F##_add(&r->F, &a->F, &b->F); } \
    static void F##_sub(elem *r, const elem *a, const elem *b) { cz_##F##_sub(&r->F, &a->F, &b->F); } \
    static void F##_mul(elem *r, const elem *a, const elem *b) { cz_##F##_mul(&r->F, &a->F, &b->F); } \
    static void F##_neg(elem *r, const elem *a) { cz_##F##_neg(&r->F, &a->F); }               \
    static void F##_dbl(elem *r, const elem *a) { cz_##F##_dbl(&r->F, &a->F); }               \
    static void F##_sqr(elem *r, const elem *a) { cz_##F##_sqr(&r->F, &a->F); }               \
    static void F##_inv(elem *r, const elem *a) { cz_##F##_inv(&r->F, &a->F); }               \
    static void F##_inv_var(elem *r, const elem *a) { cz_##F##_inv_var(&r->F, &a->F); }       \
    static void F##_pow(elem *r, const elem *a, const uint64_t *e, size_t n)                  \
    { cz_##F##_pow(&r->F, &a->F, e, n); }                                                     \
    static bool F##_sqrt(elem *r, const elem *a) { return cz_##F##_sqrt(&r->F, &a->F); }      \
    static int F##_legendre(const elem *a) { return cz_##F##_legendre(&a->F); }               \
    static bool F##_eq(const elem *a, const elem *b) { return cz_##F##_eq(&a->F, &b->F); }    \
    static bool F##_is_zero(const elem *a) { return cz_##F##_is_zero(&a->F); }                \
    static bool F##_is_one(const elem *a) { return cz_##F##_is_one(&a->F); }                  \
    static void F##_cmov(elem *r, const elem *a, const elem *b, uint64_t f)                   \
    { cz_##F##_cmov(&r->F, &a->F, &b->F, f); }                                                \
    static void F##_from_u64(elem *r, uint64_t v) { cz_##F##_from_u64(&r->F, v); }            \
    static cz_status F##_from_raw(elem *r, const uint64_t *l) { return cz_##F##_from_raw(&r->F, l); } \
    static void F##_to_raw(uint64_t *l, const elem *a) { cz_##F##_to_raw(l, &a->F); }         \
    static cz_status F##_from_le(elem *r, const uint8_t *b) { return cz_##F##_from_bytes_le(&r->F, b); } \
    static cz_status F##_from_be(elem *r, const uint8_t *b) { return cz_##F##_from_bytes_be(&r->F, b); } \
    static void F##_to_le(uint8_t *b, const elem *a) { cz_##F##_to_bytes_le(b, &a->F); }      \
    static void F##_to_be(uint8_t *b, const elem *a) { cz_##F##_to_bytes_be(b, &a->F); }      \
    static cz_status F##_from_hex(elem *r, const char *h) { return cz_##F##_from_hex(&r->F, h); } \
    static void F##_to_hex(char *h, const elem *a) { cz_##F##_to_hex(h, &a->F); }             \
    static void F##_from_uniform(elem *r, const uint8_t *b) { cz_##F##_from_uniform_bytes(&r->F, b); }

WRAP(fp)
WRAP(fr)

static field FIELDS[2];

static void init_fields(void)
{
    static int done;
    if (done) return;
    field fp = {"fp", 6, 48, CZ_FP_MODULUS, fp_add, fp_sub, fp_mul, fp_neg, fp_dbl, fp_sqr,
                fp_inv, fp_inv_var, fp_pow, fp_sqrt, fp_legendre, fp_eq, fp_is_zero, fp_is_one,
                fp_cmov, fp_from_u64, fp_from_raw, fp_to_raw, fp_from_le, fp_from_be, fp_to_le,
                fp_to_be, fp_from_hex, fp_to_hex, fp_from_uniform, cz__fp_mul_portable, NULL,
                cz__fp_sqr_portable, NULL};
    field fr = {"fr", 4, 32, CZ_FR_MODULUS, fr_add, fr_sub, fr_mul, fr_neg, fr_dbl, fr_sqr,
                fr_inv, fr_inv_var, fr_pow, fr_sqrt, fr_legendre, fr_eq, fr_is_zero, fr_is_one,
                fr_cmov, fr_from_u64, fr_from_raw, fr_to_raw, fr_from_le, fr_from_be, fr_to_le,
                fr_to_be, fr_from_hex, fr_to_hex, fr_from_uniform, cz__fr_mul_portable, NULL,
                cz__fr_sqr_portable, NULL};
#if CZ_HAVE_ADX_ASM
    fp.mul_adx = cz__fp_mul_adx;
    fp.sqr_adx = cz__fp_sqr_adx;
    fr.mul_adx = cz__fr_mul_adx;
    fr.sqr_adx = cz__fr_sqr_adx;
#endif
    FIELDS[0] = fp;
    FIELDS[1] = fr;
    done = 1;
}

/* ---- GMP glue ----------------------------------------------------------- */

static void modulus(mpz_t m, const field *f) { cz_mpz_from_limbs(m, f->mod, (size_t)f->n); }

static void to_mpz(mpz_t z, const field *f, const elem *a)
{
    uint64_t l[6];
    f->to_raw(l, a);
    cz_mpz_from_limbs(z, l, (size_t)f->n);
}

/* z must be reduced. */
static void from_mpz(elem *a, const field *f, const mpz_t z)
{
    uint64_t l[6];
    cz_mpz_to_limbs(l, (size_t)f->n, z);
    assert_int_equal(f->from_raw(a, l), CZ_OK);
}

static void assert_elem_mpz(const field *f, const elem *a, const mpz_t want, const char *op)
{
    mpz_t got;
    mpz_init(got);
    to_mpz(got, f, a);
    if (mpz_cmp(got, want) != 0) {
        gmp_fprintf(stderr, "%s %s [%s]: got %Zx want %Zx\n", f->name, op,
                    cz_ff_backend_name(cz_ff_get_backend()), got, want);
        fail();
    }
    mpz_clear(got);
}

/* Edge values (canonical, reduced) plus `nrand` random ones. */
static mpz_t *make_values(const field *f, size_t nrand, size_t *count)
{
    size_t cap = 64 * 6 * 4 + 64 + nrand, n = 0;
    mpz_t *v = malloc(cap * sizeof *v);
    assert_non_null(v);
    mpz_t m, t;
    mpz_inits(m, t, NULL);
    modulus(m, f);
    int bits = 64 * f->n;
#define PUSH(expr)                                                                            \
    do {                                                                                      \
        mpz_init(v[n]);                                                                       \
        expr;                                                                                 \
        mpz_mod(v[n], v[n], m);                                                               \
        n++;                                                                                  \
    } while (0)
    for (unsigned k = 0; k < 4; k++) PUSH(mpz_set_ui(v[n], k));
    for (unsigned k = 1; k <= 3; k++) PUSH(mpz_sub_ui(v[n], m, k));
    PUSH((mpz_sub_ui(v[n], m, 1), mpz_fdiv_q_2exp(v[n], v[n], 1)));     /* (m-1)/2 */
    PUSH((mpz_add_ui(v[n], m, 1), mpz_fdiv_q_2exp(v[n], v[n], 1)));     /* (m+1)/2 */
    PUSH(mpz_setbit(v[n], (mp_bitcnt_t)bits));                          /* R mod m */
    PUSH((mpz_setbit(t, (mp_bitcnt_t)bits), mpz_invert(v[n], t, m)));   /* R^-1 */
    PUSH((mpz_setbit(t, (mp_bitcnt_t)bits), mpz_mul(t, t, t), mpz_set(v[n], t))); /* R^2 */
    mpz_set_ui(t, 0);
    for (int k = 0; k < bits; k++) {
        PUSH(mpz_setbit(v[n], (mp_bitcnt_t)k));                         /* 2^k */
        PUSH((mpz_setbit(v[n], (mp_bitcnt_t)k), mpz_sub_ui(v[n], v[n], 1))); /* 2^k - 1 */
        PUSH((mpz_setbit(v[n], (mp_bitcnt_t)k), mpz_add_ui(v[n], v[n], 1))); /* 2^k + 1 */
        if (k % 3 == 0) PUSH((mpz_setbit(t, (mp_bitcnt_t)k), mpz_sub(v[n], m, t), mpz_clrbit(t, (mp_bitcnt_t)k)));
    }
    for (int i = 0; i < f->n; i++) { /* one all-ones limb, then all-ones below limb i */
        uint64_t l[6] = {0};
        l[i] = ~UINT64_C(0);
        PUSH(cz_mpz_from_limbs(v[n], l, (size_t)f->n));
        for (int j = 0; j <= i; j++) l[j] = ~UINT64_C(0);
        PUSH(cz_mpz_from_limbs(v[n], l, (size_t)f->n));
    }
    for (size_t i = 0; i < nrand; i++) {
        uint64_t l[8];
        for (int j = 0; j < 8; j++) l[j] = cz_rng_u64();
        PUSH(cz_mpz_from_limbs(v[n], l, 8));
    }
#undef PUSH
    assert_true(n <= cap);
    mpz_clears(m, t, NULL);
    *count = n;
    return v;
}

static void free_values(mpz_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) mpz_clear(v[i]);
    free(v);
}

/* ---- Fp / Fr operations vs GMP ---------------------------------------- */

static void binary_ops_body(void **state)
{
    (void)state;
    init_fields();
    for (int fi = 0; fi < 2; fi++) {
        const field *f = &FIELDS[fi];
        size_t n;
        mpz_t *v = make_values(f, 40, &n);
        mpz_t m, w;
        mpz_inits(m, w, NULL);
        modulus(m, f);
        elem *e = calloc(n, sizeof *e);
        assert_non_null(e);
        for (size_t i = 0; i < n; i++) from_mpz(&e[i], f, v[i]);
        /* every value against a spread subset (all the small ones, then a
         * stride through the rest); also the aliased forms r = a, r = b */
        for (size_t i = 0; i < n; i++) {
            for (size_t j = 0; j < n; j += (j < 16 ? 1 : 13)) {
                elem r, t;
                f->add(&r, &e[i], &e[j]);
                mpz_add(w, v[i], v[j]);
                mpz_mod(w, w, m);
                assert_elem_mpz(f, &r, w, "add");
                f->sub(&r, &e[i], &e[j]);
                mpz_sub(w, v[i], v[j]);
                mpz_mod(w, w, m);
                assert_elem_mpz(f, &r, w, "sub");
                f->mul(&r, &e[i], &e[j]);
                mpz_mul(w, v[i], v[j]);
                mpz_mod(w, w, m);
                assert_elem_mpz(f, &r, w, "mul");
                t = e[i];
                f->mul(&t, &t, &e[j]);
                assert_true(f->eq(&t, &r));
                t = e[j];
                f->mul(&t, &e[i], &t);
                assert_true(f->eq(&t, &r));
            }
        }
        free(e);
        mpz_clears(m, w, NULL);
        free_values(v, n);
    }
}

static void unary_ops_body(void **state)
{
    (void)state;
    init_fields();
    for (int fi = 0; fi < 2; fi++) {
        const field *f = &FIELDS[fi];
        size_t n;
        mpz_t *v = make_values(f, NRAND / 3, &n);
        mpz_t m, w, x, half;
        mpz_inits(m, w, x, half, NULL);
        modulus(m, f);
        mpz_sub_ui(half, m, 1);
        mpz_fdiv_q_2exp(half, half, 1);
        for (size_t i = 0; i < n; i++) {
            elem a, r, s;
            from_mpz(&a, f, v[i]);
            /* Montgomery representation: limbs hold x·R mod m */
            mpz_set_ui(w, 0);
            mpz_setbit(w, (mp_bitcnt_t)(64 * f->n));
            mpz_mul(w, w, v[i]);
            mpz_mod(w, w, m);
            cz_mpz_from_limbs(x, a.l, (size_t)f->n);
            assert_int_equal(mpz_cmp(x, w), 0);

            assert_int_equal(f->is_zero(&a), mpz_sgn(v[i]) == 0);
            assert_int_equal(f->is_one(&a), mpz_cmp_ui(v[i], 1) == 0);
            f->neg(&r, &a);
            mpz_neg(w, v[i]);
            mpz_mod(w, w, m);
            assert_elem_mpz(f, &r, w, "neg");
            f->dbl(&r, &a);
            mpz_mul_2exp(w, v[i], 1);
            mpz_mod(w, w, m);
            assert_elem_mpz(f, &r, w, "dbl");
            f->sqr(&r, &a);
            mpz_mul(w, v[i], v[i]);
            mpz_mod(w, w, m);
            assert_elem_mpz(f, &r, w, "sqr");
            s = a;
            f->sqr(&s, &s);
            assert_true(f->eq(&s, &r));
            /* inverses (0 -> 0) */
            if (mpz_sgn(v[i]) == 0) mpz_set_ui(w, 0);
            else assert_true(mpz_invert(w, v[i], m));
            f->inv(&r, &a);
            assert_elem_mpz(f, &r, w, "inv");
            f->inv_var(&r, &a);
            assert_elem_mpz(f, &r, w, "inv_var");
            s = a;
            f->inv_var(&s, &s);
            assert_true(f->eq(&s, &r));
            /* legendre and sqrt */
            int leg = mpz_legendre(v[i], m);
            assert_int_equal(f->legendre(&a), leg);
            s = a;
            bool ok = f->sqrt(&r, &a);
            assert_int_equal(ok, leg >= 0);
            if (ok) {
                f->sqr(&s, &r);
                assert_true(f->eq(&s, &a));
            }
            /* the square of a is always a square; its root is ±a */
            f->sqr(&s, &a);
            assert_true(f->sqrt(&r, &s));
            elem na;
            f->neg(&na, &a);
            assert_true(f->eq(&r, &a) || f->eq(&r, &na));
            assert_true(f->sqrt(&s, &s)); /* aliased */
            assert_true(f->eq(&s, &r));
            /* cmov */
            elem b;
            f->from_u64(&b, 12345);
            f->cmov(&r, &a, &b, 0);
            assert_true(f->eq(&r, &a));
            f->cmov(&r, &a, &b, 1);
            assert_true(f->eq(&r, &b));
        }
        mpz_clears(m, w, x, half, NULL);
        free_values(v, n);
    }
}

static void pow_ops_body(void **state)
{
    (void)state;
    init_fields();
    for (int fi = 0; fi < 2; fi++) {
        const field *f = &FIELDS[fi];
        mpz_t m, a, e, w;
        mpz_inits(m, a, e, w, NULL);
        modulus(m, f);
        for (int it = 0; it < NRAND / 10 + 8; it++) {
            uint64_t el[6] = {0};
            size_t ne = 1 + (size_t)(cz_rng_u64() % 6);
            for (size_t j = 0; j < ne; j++) el[j] = cz_rng_u64();
            switch (it) { /* edge exponents: 0, 1, 2, m-1, m-2, all ones */
            case 0: memset(el, 0, sizeof el); break;
            case 1: memset(el, 0, sizeof el); el[0] = 1; break;
            case 2: memset(el, 0, sizeof el); el[0] = 2; break;
            case 3: memcpy(el, f->mod, 8 * (size_t)f->n); el[0] -= 1; ne = (size_t)f->n; break;
            case 4: memcpy(el, f->mod, 8 * (size_t)f->n); el[0] -= 2; ne = (size_t)f->n; break;
            case 5: memset(el, 0xff, sizeof el); ne = 6; break;
            default: break;
            }
            elem x, r;
            uint64_t al[8];
            for (int j = 0; j < 8; j++) al[j] = cz_rng_u64();
            cz_mpz_from_limbs(a, al, 8);
            mpz_mod(a, a, m);
            if (it == 6) mpz_set_ui(a, 0);
            from_mpz(&x, f, a);
            cz_mpz_from_limbs(e, el, ne);
            mpz_powm(w, a, e, m);
            f->pow(&r, &x, el, ne);
            assert_elem_mpz(f, &r, w, "pow");
        }
        mpz_clears(m, a, e, w, NULL);
    }
}

static void conversions_body(void **state)
{
    (void)state;
    init_fields();
    for (int fi = 0; fi < 2; fi++) {
        const field *f = &FIELDS[fi];
        size_t n;
        mpz_t *v = make_values(f, NRAND / 5, &n);
        mpz_t m, w;
        mpz_inits(m, w, NULL);
        modulus(m, f);
        const int nb = f->nbytes;
        for (size_t i = 0; i < n; i++) {
            elem a, r;
            uint8_t le[48], be[48], want[48];
            from_mpz(&a, f, v[i]);
            /* bytes: compare with mpz_export (both byte orders) */
            memset(want, 0, sizeof want);
            size_t cnt;
            mpz_export(want + nb - (mpz_sizeinbase(v[i], 256) * (mpz_sgn(v[i]) != 0)), &cnt, 1, 1, 1, 0, v[i]);
            f->to_be(be, &a);
            assert_memory_equal(be, want, (size_t)nb);
            f->to_le(le, &a);
            for (int k = 0; k < nb; k++) assert_int_equal(le[k], want[nb - 1 - k]);
            assert_int_equal(f->from_be(&r, be), CZ_OK);
            assert_true(f->eq(&r, &a));
            assert_int_equal(f->from_le(&r, le), CZ_OK);
            assert_true(f->eq(&r, &a));
            /* hex: GMP's lower-case digits, zero-padded */
            char hex[100], ref[200];
            f->to_hex(hex, &a);
            gmp_snprintf(ref, sizeof ref, "0x%0*Zx", 2 * nb, v[i]);
            assert_string_equal(hex, ref);
            assert_int_equal(f->from_hex(&r, hex), CZ_OK);
            assert_true(f->eq(&r, &a));
            gmp_snprintf(ref, sizeof ref, "%ZX", v[i]); /* no prefix, upper case, unpadded */
            assert_int_equal(f->from_hex(&r, ref), CZ_OK);
            assert_true(f->eq(&r, &a));
            /* raw */
            uint64_t l[6], lw[6];
            f->to_raw(l, &a);
            cz_mpz_to_limbs(lw, (size_t)f->n, v[i]);
            assert_memory_equal(l, lw, 8 * (size_t)f->n);
        }
        /* small integers */
        for (uint64_t k = 0; k < 100; k++) {
            uint64_t x = k < 50 ? k : cz_rng_u64();
            elem a;
            f->from_u64(&a, x);
            mpz_set_ui(w, 0);
            mpz_import(w, 1, -1, 8, 0, 0, &x);
            assert_elem_mpz(f, &a, w, "from_u64");
        }
        mpz_clears(m, w, NULL);
        free_values(v, n);
    }
}

static void uniform_bytes_body(void **state)
{
    (void)state;
    init_fields();
    for (int fi = 0; fi < 2; fi++) {
        const field *f = &FIELDS[fi];
        mpz_t m, x, w;
        mpz_inits(m, x, w, NULL);
        modulus(m, f);
        for (int it = 0; it < NRAND; it++) {
            uint8_t in[64];
            cz_rng_bytes(in, 64);
            switch (it) {
            case 0: memset(in, 0, 64); break;
            case 1: memset(in, 0xff, 64); break;
            case 2: memset(in, 0, 32); break;         /* hi = 0: lo may be >= m */
            case 3: memset(in + 32, 0xff, 32); break; /* lo all ones */
            case 4: memset(in, 0xff, 32); break;      /* hi all ones */
            case 5: /* exactly m in the low half, and m·2^256 + m */
            case 6: {
                uint8_t mb[64] = {0};
                size_t cnt;
                mpz_export(mb, &cnt, 1, 1, 1, 0, m); /* big-endian, cnt bytes */
                memset(in, 0, 64);
                if (cnt <= 32) {
                    memcpy(in + 64 - cnt, mb, cnt);
                    if (it == 6) memcpy(in + 32 - cnt, mb, cnt);
                } else {
                    memcpy(in + 64 - cnt, mb, cnt);
                }
                break;
            }
            default: break;
            }
            mpz_import(x, 64, 1, 1, 1, 0, in); /* 512-bit big-endian */
            mpz_mod(w, x, m);
            elem r;
            f->from_uniform(&r, in);
            assert_elem_mpz(f, &r, w, "from_uniform_bytes");
        }
        mpz_clears(m, x, w, NULL);
    }
}

static void non_canonical_body(void **state)
{
    (void)state;
    init_fields();
    for (int fi = 0; fi < 2; fi++) {
        const field *f = &FIELDS[fi];
        const int nb = f->nbytes;
        mpz_t m, x;
        mpz_inits(m, x, NULL);
        modulus(m, f);
        for (int c = 0; c < 6; c++) {
            switch (c) {
            case 0: mpz_set(x, m); break;
            case 1: mpz_add_ui(x, m, 1); break;
            case 2: mpz_add_ui(x, m, 12345); break;
            case 3: mpz_mul_2exp(x, m, 1); break;
            case 4: mpz_set_ui(x, 0); mpz_setbit(x, (mp_bitcnt_t)(8 * nb)); mpz_sub_ui(x, x, 1); break;
            case 5: mpz_set_ui(x, 0); mpz_setbit(x, (mp_bitcnt_t)(8 * nb - 1)); break;
            }
            uint8_t be[48] = {0}, le[48];
            size_t cnt;
            mpz_export(be + nb - mpz_sizeinbase(x, 256), &cnt, 1, 1, 1, 0, x);
            for (int k = 0; k < nb; k++) le[k] = be[nb - 1 - k];
            elem r;
            assert_int_equal(f->from_be(&r, be), CZ_ERR_NOT_CANONICAL);
            assert_int_equal(f->from_le(&r, le), CZ_ERR_NOT_CANONICAL);
            uint64_t l[6];
            cz_mpz_to_limbs(l, (size_t)f->n, x);
            assert_int_equal(f->from_raw(&r, l), CZ_ERR_NOT_CANONICAL);
            char hex[200];
            gmp_snprintf(hex, sizeof hex, "0x%Zx", x);
            assert_int_equal(f->from_hex(&r, hex), CZ_ERR_NOT_CANONICAL);
        }
        /* malformed hex */
        elem r;
        char longhex[200];
        memset(longhex, '0', sizeof longhex);
        longhex[2 * nb + 1] = '\0'; /* one digit too many, even if all zero */
        assert_int_equal(f->from_hex(&r, longhex), CZ_ERR_FORMAT);
        assert_int_equal(f->from_hex(&r, ""), CZ_ERR_FORMAT);
        assert_int_equal(f->from_hex(&r, "0x"), CZ_ERR_FORMAT);
        assert_int_equal(f->from_hex(&r, "0x12g4"), CZ_ERR_FORMAT);
        assert_int_equal(f->from_hex(&r, " 12"), CZ_ERR_FORMAT);
        assert_int_equal(f->from_hex(&r, "0x1f"), CZ_OK);
        elem t;
        f->from_u64(&t, 31);
        assert_true(f->eq(&r, &t));
        mpz_clears(m, x, NULL);
    }
}

/* The MULX/ADX kernels against the portable ones, directly. */
static void kernels_cross_check(void **state)
{
    (void)state;
    init_fields();
    if (!cz_ff_adx_supported()) {
        fprintf(stderr, "note: no ADX on this CPU; kernel cross-check skipped\n");
        skip();
    }
    for (int fi = 0; fi < 2; fi++) {
        const field *f = &FIELDS[fi];
        assert_non_null(f->mul_adx);
        size_t n;
        mpz_t *v = make_values(f, 200, &n);
        /* Montgomery-form kernels accept any value < m: use the edge values
         * directly as limbs (so 0, 1, m-1, ... are tested in that form too) */
        uint64_t (*x)[6] = calloc(n, sizeof *x);
        assert_non_null(x);
        for (size_t i = 0; i < n; i++) cz_mpz_to_limbs(x[i], (size_t)f->n, v[i]);
        for (size_t i = 0; i < n; i++) {
            uint64_t r1[6], r2[6];
            f->sqr_port(r1, x[i]);
            f->sqr_adx(r2, x[i]);
            assert_memory_equal(r1, r2, 8 * (size_t)f->n);
            for (size_t j = 0; j < n; j++) {
                f->mul_port(r1, x[i], x[j]);
                f->mul_adx(r2, x[i], x[j]);
                assert_memory_equal(r1, r2, 8 * (size_t)f->n);
            }
        }
        /* random streams */
        for (int it = 0; it < 20 * NRAND; it++) {
            uint64_t a[6], b[6], r1[6], r2[6];
            elem ea, eb;
            memset(&ea, 0, sizeof ea);
            memset(&eb, 0, sizeof eb);
            uint8_t bytes[64];
            cz_rng_bytes(bytes, 64);
            f->from_uniform(&ea, bytes);
            cz_rng_bytes(bytes, 64);
            f->from_uniform(&eb, bytes);
            memcpy(a, ea.l, sizeof a);
            memcpy(b, eb.l, sizeof b);
            f->mul_port(r1, a, b);
            f->mul_adx(r2, a, b);
            assert_memory_equal(r1, r2, 8 * (size_t)f->n);
            f->sqr_port(r1, a);
            f->sqr_adx(r2, a);
            assert_memory_equal(r1, r2, 8 * (size_t)f->n);
            f->mul_adx(r2, a, a);
            assert_memory_equal(r1, r2, 8 * (size_t)f->n);
        }
        free(x);
        free_values(v, n);
    }
#if CZ_HAVE_ADX_ASM
    /* the Fp sum-of-two-products kernel (Fp2 multiplication) */
    for (int it = 0; it < 4 * NRAND; it++) {
        cz_fp2 a, b;
        cz_fp r1, r2;
        cz_rng_fp2(&a);
        cz_rng_fp2(&b);
        if (it < 16) { /* extremes: all coordinates 0 or p-1 */
            cz_fp pm1;
            cz_fp_neg(&pm1, &CZ_FP_ONE);
            a.c0 = (it & 1) ? pm1 : CZ_FP_ZERO;
            a.c1 = (it & 2) ? pm1 : CZ_FP_ZERO;
            b.c0 = (it & 4) ? pm1 : CZ_FP_ZERO;
            b.c1 = (it & 8) ? pm1 : CZ_FP_ZERO;
        }
        cz__fp_mulsum_portable(&r1, &a, &b);
        cz__fp_mulsum_adx(&r2, &a, &b);
        assert_memory_equal(r1.l, r2.l, sizeof r1.l);
        /* and against two multiplications and an addition */
        cz_fp t0, t1;
        cz__fp_mul_portable(t0.l, a.c0.l, b.c0.l);
        cz__fp_mul_portable(t1.l, a.c1.l, b.c1.l);
        cz_fp_add(&t0, &t0, &t1);
        assert_memory_equal(r1.l, t0.l, sizeof r1.l);
    }
#endif
}

/* Both variable-time inversion algorithms (safegcd, and the binary
 * Euclid fallback that cz_*_inv_var only takes if safegcd fails) against
 * GMP on plain integers, for both moduli. */
static void inverse_algorithms(void **state)
{
    (void)state;
    init_fields();
    for (int fi = 0; fi < 2; fi++) {
        const field *f = &FIELDS[fi];
        const int n = f->n;
        uint64_t minv = 1; /* -m^-1 mod 2^64 by Newton iteration */
        for (int i = 0; i < 6; i++) minv *= 2 - f->mod[0] * minv;
        minv = 0 - minv;
        size_t nv;
        mpz_t *v = make_values(f, NRAND / 3, &nv);
        mpz_t m, w, got;
        mpz_inits(m, w, got, NULL);
        modulus(m, f);
        for (size_t i = 0; i < nv; i++) {
            if (mpz_sgn(v[i]) == 0) continue;
            uint64_t x[6], y[6];
            cz_mpz_to_limbs(x, (size_t)n, v[i]);
            assert_true(mpz_invert(w, v[i], m));
            assert_int_equal(cz_safegcd_inv_var(y, x, f->mod, minv, n), 0);
            cz_mpz_from_limbs(got, y, (size_t)n);
            assert_int_equal(mpz_cmp(got, w), 0);
            cz_binary_inv_var(y, x, f->mod, minv, n);
            cz_mpz_from_limbs(got, y, (size_t)n);
            assert_int_equal(mpz_cmp(got, w), 0);
        }
        mpz_clears(m, w, got, NULL);
        free_values(v, nv);
    }
}

static void backend_selection(void **state)
{
    (void)state;
    cz_ff_backend saved = cz_ff_get_backend();
    assert_int_equal(cz_ff_set_backend(CZ_FF_AUTO), CZ_OK);
    assert_int_equal(cz_ff_get_backend(), cz_ff_adx_supported() ? CZ_FF_ADX : CZ_FF_PORTABLE);
    /* load-time default is the same as AUTO */
    assert_int_equal(saved, cz_ff_get_backend());
    assert_int_equal(cz_ff_set_backend(CZ_FF_PORTABLE), CZ_OK);
    assert_int_equal(cz_ff_get_backend(), CZ_FF_PORTABLE);
    assert_int_equal(cz_ff_set_backend(CZ_FF_ADX), cz_ff_adx_supported() ? CZ_OK : CZ_ERR_UNSUPPORTED);
    assert_int_equal(cz_ff_set_backend(saved), CZ_OK);
    assert_string_equal(cz_ff_backend_name(CZ_FF_ADX), "adx");
    assert_string_equal(cz_ff_backend_name(CZ_FF_PORTABLE), "portable");
    /* CUZK_NO_SIMD turns the IFMA kernels' CPU check off (restored after) */
    const char *prev = getenv("CUZK_NO_SIMD");
    char *keep = prev ? strdup(prev) : NULL;
    assert_int_equal(setenv("CUZK_NO_SIMD", "1", 1), 0);
    assert_false(cz_ff_ifma_supported());
    if (keep) {
        assert_int_equal(setenv("CUZK_NO_SIMD", keep, 1), 0);
        free(keep);
    } else {
        assert_int_equal(unsetenv("CUZK_NO_SIMD"), 0);
    }
}

/* ---- Fr specifics ------------------------------------------------------- */

static void fr_dec_body(void **state)
{
    (void)state;
    mpz_t m, x;
    mpz_inits(m, x, NULL);
    cz_mpz_from_limbs(m, CZ_FR_MODULUS, 4);
    init_fields();
    size_t n;
    mpz_t *v = make_values(&FIELDS[1], NRAND / 5, &n);
    for (size_t i = 0; i < n; i++) {
        cz_fr a, r;
        char dec[80], ref[200];
        from_mpz((elem *)&a, &FIELDS[1], v[i]);
        cz_fr_to_dec(dec, &a);
        gmp_snprintf(ref, sizeof ref, "%Zd", v[i]);
        assert_string_equal(dec, ref);
        assert_int_equal(cz_fr_from_dec(&r, ref), CZ_OK);
        assert_true(cz_fr_eq(&r, &a));
    }
    free_values(v, n);
    cz_fr r;
    char buf[400];
    assert_int_equal(cz_fr_from_dec(&r, "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000042"), CZ_OK);
    cz_fr t;
    cz_fr_from_u64(&t, 42);
    assert_true(cz_fr_eq(&r, &t));
    gmp_snprintf(buf, sizeof buf, "%Zd", m);
    assert_int_equal(cz_fr_from_dec(&r, buf), CZ_ERR_NOT_CANONICAL);
    mpz_sub_ui(x, m, 1);
    gmp_snprintf(buf, sizeof buf, "%Zd", x);
    assert_int_equal(cz_fr_from_dec(&r, buf), CZ_OK);
    mpz_set_ui(x, 0);
    mpz_setbit(x, 256);
    gmp_snprintf(buf, sizeof buf, "%Zd", x); /* 2^256: overflows 4 limbs exactly */
    assert_int_equal(cz_fr_from_dec(&r, buf), CZ_ERR_NOT_CANONICAL);
    mpz_setbit(x, 1000);
    gmp_snprintf(buf, sizeof buf, "%Zd", x);
    assert_int_equal(cz_fr_from_dec(&r, buf), CZ_ERR_NOT_CANONICAL);
    assert_int_equal(cz_fr_from_dec(&r, ""), CZ_ERR_FORMAT);
    assert_int_equal(cz_fr_from_dec(&r, "-1"), CZ_ERR_FORMAT);
    assert_int_equal(cz_fr_from_dec(&r, "12a"), CZ_ERR_FORMAT);
    assert_int_equal(cz_fr_from_dec(&r, "0x12"), CZ_ERR_FORMAT);
    assert_int_equal(cz_fr_from_dec(&r, " 1"), CZ_ERR_FORMAT);
    mpz_clears(m, x, NULL);
}

static void fr_roots_body(void **state)
{
    (void)state;
    mpz_t m, w, e;
    mpz_inits(m, w, e, NULL);
    cz_mpz_from_limbs(m, CZ_FR_MODULUS, 4);
    /* above the 2-adicity there is no such root: refused, not clamped */
    cz_fr none = CZ_FR_ONE;
    assert_int_equal(cz_fr_root_of_unity(&none, CZ_FR_TWO_ADICITY + 1), CZ_ERR_INVALID_ARG);
    assert_true(cz_fr_is_zero(&none));
    for (unsigned k = 0; k <= 32; k++) {
        cz_fr g, t;
        assert_int_equal(cz_fr_root_of_unity(&g, k), CZ_OK);
        /* independent value: 7^((r-1)/2^k) mod r */
        mpz_sub_ui(e, m, 1);
        mpz_fdiv_q_2exp(e, e, k);
        mpz_set_ui(w, 7);
        mpz_powm(w, w, e, m);
        assert_elem_mpz(&FIELDS[1], (const elem *)&g, w, "root_of_unity");
        /* exact order 2^k */
        t = g;
        for (unsigned i = 0; i + 1 < k; i++) cz_fr_sqr(&t, &t);
        if (k > 0) {
            assert_false(cz_fr_is_one(&t)); /* g^(2^(k-1)) = -1 */
            cz_fr one_neg;
            cz_fr_neg(&one_neg, &CZ_FR_ONE);
            assert_true(cz_fr_eq(&t, &one_neg));
            cz_fr_sqr(&t, &t);
        }
        assert_true(cz_fr_is_one(&t));
    }
    mpz_clears(m, w, e, NULL);
}

static void fr_batch_inv_body(void **state)
{
    (void)state;
    for (size_t n = 0; n < 40; n += 7) {
        cz_fr v[40], want[40], scratch[40];
        for (size_t i = 0; i < n; i++) {
            if (cz_rng_u64() % 4 == 0) v[i] = CZ_FR_ZERO;
            else cz_rng_fr(&v[i]);
            if (i == 1) v[i] = CZ_FR_ONE;
            cz_fr_inv(&want[i], &v[i]);
        }
        cz_fr_batch_inv_var(v, n, scratch);
        for (size_t i = 0; i < n; i++) assert_true(cz_fr_eq(&v[i], &want[i]));
    }
}

static void fr_random_test(void **state)
{
    (void)state;
    cz_fr a, b;
    assert_int_equal(cz_fr_random(&a), CZ_OK);
    assert_int_equal(cz_fr_random(&b), CZ_OK);
    assert_false(cz_fr_eq(&a, &b));
    uint8_t le[32];
    cz_fr_to_bytes_le(le, &a);
    cz_fr c;
    assert_int_equal(cz_fr_from_bytes_le(&c, le), CZ_OK); /* canonical: < r */
    assert_true(cz_fr_eq(&c, &a));
}

/* ---- Fp specifics ------------------------------------------------------- */

static void fp_sign_body(void **state)
{
    (void)state;
    init_fields();
    size_t n;
    mpz_t *v = make_values(&FIELDS[0], NRAND / 5, &n);
    mpz_t m, half;
    mpz_inits(m, half, NULL);
    cz_mpz_from_limbs(m, CZ_FP_MODULUS, 6);
    mpz_sub_ui(half, m, 1);
    mpz_fdiv_q_2exp(half, half, 1);
    for (size_t i = 0; i < n; i++) {
        cz_fp a;
        from_mpz((elem *)&a, &FIELDS[0], v[i]);
        assert_int_equal(cz_fp_is_odd(&a), mpz_odd_p(v[i]) != 0);
        assert_int_equal(cz_fp_is_lex_largest(&a), mpz_cmp(v[i], half) > 0);
    }
    mpz_clears(m, half, NULL);
    free_values(v, n);
}

/* ---- Fp2 vs a GMP model --------------------------------------------------- */

typedef struct {
    mpz_t c0, c1;
} mfp2;

static mpz_t P;

static void m2_init(mfp2 *a) { mpz_inits(a->c0, a->c1, NULL); }
static void m2_clear(mfp2 *a) { mpz_clears(a->c0, a->c1, NULL); }
static void m2_from(mfp2 *a, const cz_fp2 *x)
{
    to_mpz(a->c0, &FIELDS[0], (const elem *)&x->c0);
    to_mpz(a->c1, &FIELDS[0], (const elem *)&x->c1);
}
static void m2_mul(mfp2 *r, const mfp2 *a, const mfp2 *b)
{
    mpz_t t0, t1, t2;
    mpz_inits(t0, t1, t2, NULL);
    mpz_mul(t0, a->c0, b->c0);
    mpz_mul(t1, a->c1, b->c1);
    mpz_sub(t2, t0, t1);
    mpz_mul(t0, a->c0, b->c1);
    mpz_addmul(t0, a->c1, b->c0);
    mpz_mod(r->c0, t2, P);
    mpz_mod(r->c1, t0, P);
    mpz_clears(t0, t1, t2, NULL);
}
static void assert_fp2_model(const cz_fp2 *x, const mfp2 *want, const char *op)
{
    assert_elem_mpz(&FIELDS[0], (const elem *)&x->c0, want->c0, op);
    assert_elem_mpz(&FIELDS[0], (const elem *)&x->c1, want->c1, op);
}

static void fp2_body(void **state)
{
    (void)state;
    init_fields();
    mpz_init(P);
    cz_mpz_from_limbs(P, CZ_FP_MODULUS, 6);
    size_t n;
    mpz_t *v = make_values(&FIELDS[0], 0, &n);
    mfp2 ma, mb, mr, mt;
    m2_init(&ma);
    m2_init(&mb);
    m2_init(&mr);
    m2_init(&mt);
    mpz_t norm;
    mpz_init(norm);
    for (int it = 0; it < NRAND / 2; it++) {
        cz_fp2 a, b, r, t;
        cz_rng_fp2(&a);
        cz_rng_fp2(&b);
        if (it < 200) { /* mix edge coordinates in */
            from_mpz((elem *)&a.c0, &FIELDS[0], v[cz_rng_u64() % n]);
            if (it % 2) from_mpz((elem *)&a.c1, &FIELDS[0], v[cz_rng_u64() % n]);
            if (it % 3 == 0) a.c1 = CZ_FP_ZERO;
            if (it % 5 == 0) a.c0 = CZ_FP_ZERO;
        }
        m2_from(&ma, &a);
        m2_from(&mb, &b);
        /* mul, sqr */
        cz_fp2_mul(&r, &a, &b);
        m2_mul(&mr, &ma, &mb);
        assert_fp2_model(&r, &mr, "fp2_mul");
        t = a;
        cz_fp2_mul(&t, &t, &b);
        assert_true(cz_fp2_eq(&t, &r));
        cz_fp2_sqr(&r, &a);
        m2_mul(&mr, &ma, &ma);
        assert_fp2_model(&r, &mr, "fp2_sqr");
        /* add, sub, neg, dbl, conj, frobenius, mul_by_nonresidue, mul_fp */
        cz_fp2_add(&r, &a, &b);
        mpz_add(mr.c0, ma.c0, mb.c0); mpz_mod(mr.c0, mr.c0, P);
        mpz_add(mr.c1, ma.c1, mb.c1); mpz_mod(mr.c1, mr.c1, P);
        assert_fp2_model(&r, &mr, "fp2_add");
        cz_fp2_sub(&r, &a, &b);
        mpz_sub(mr.c0, ma.c0, mb.c0); mpz_mod(mr.c0, mr.c0, P);
        mpz_sub(mr.c1, ma.c1, mb.c1); mpz_mod(mr.c1, mr.c1, P);
        assert_fp2_model(&r, &mr, "fp2_sub");
        cz_fp2_neg(&r, &a);
        mpz_neg(mr.c0, ma.c0); mpz_mod(mr.c0, mr.c0, P);
        mpz_neg(mr.c1, ma.c1); mpz_mod(mr.c1, mr.c1, P);
        assert_fp2_model(&r, &mr, "fp2_neg");
        cz_fp2_dbl(&r, &a);
        mpz_mul_2exp(mr.c0, ma.c0, 1); mpz_mod(mr.c0, mr.c0, P);
        mpz_mul_2exp(mr.c1, ma.c1, 1); mpz_mod(mr.c1, mr.c1, P);
        assert_fp2_model(&r, &mr, "fp2_dbl");
        cz_fp2_conj(&r, &a);
        mpz_set(mr.c0, ma.c0);
        mpz_neg(mr.c1, ma.c1); mpz_mod(mr.c1, mr.c1, P);
        assert_fp2_model(&r, &mr, "fp2_conj");
        /* frobenius: a^p, computed in the model by square and multiply */
        {
            mpz_set_ui(mt.c0, 1);
            mpz_set_ui(mt.c1, 0);
            mfp2 base;
            m2_init(&base);
            mpz_set(base.c0, ma.c0);
            mpz_set(base.c1, ma.c1);
            if (it < 20)
                for (size_t bit = mpz_sizeinbase(P, 2); bit-- > 0;) {
                    m2_mul(&mt, &mt, &mt);
                    if (mpz_tstbit(P, bit)) m2_mul(&mt, &mt, &base);
                }
            else { mpz_set(mt.c0, mr.c0); mpz_set(mt.c1, mr.c1); } /* = conj */
            m2_clear(&base);
            cz_fp2_frobenius(&r, &a);
            assert_fp2_model(&r, &mt, "fp2_frobenius");
        }
        cz_fp2_mul_by_nonresidue(&r, &a);
        mpz_set_ui(mt.c0, 1);
        mpz_set_ui(mt.c1, 1);
        m2_mul(&mr, &ma, &mt);
        assert_fp2_model(&r, &mr, "fp2_mul_by_nonresidue");
        cz_fp2_mul_fp(&r, &a, &b.c0);
        mpz_mul(mr.c0, ma.c0, mb.c0); mpz_mod(mr.c0, mr.c0, P);
        mpz_mul(mr.c1, ma.c1, mb.c0); mpz_mod(mr.c1, mr.c1, P);
        assert_fp2_model(&r, &mr, "fp2_mul_fp");
        t = a;
        cz_fp2_mul_fp(&t, &t, &t.c0); /* b aliasing a component of r */
        mpz_mul(mr.c0, ma.c0, ma.c0); mpz_mod(mr.c0, mr.c0, P);
        mpz_mul(mr.c1, ma.c1, ma.c0); mpz_mod(mr.c1, mr.c1, P);
        assert_fp2_model(&t, &mr, "fp2_mul_fp aliased");
        /* inv: a·a^-1 = 1 in the model; 0 -> 0 */
        cz_fp2_inv(&r, &a);
        m2_from(&mt, &r);
        m2_mul(&mr, &ma, &mt);
        if (cz_fp2_is_zero(&a)) {
            assert_true(cz_fp2_is_zero(&r));
        } else {
            assert_int_equal(mpz_cmp_ui(mr.c0, 1), 0);
            assert_int_equal(mpz_cmp_ui(mr.c1, 0), 0);
        }
        /* the variable-time inverse gives the same element */
        cz_fp2_inv_var(&t, &a);
        assert_true(cz_fp2_eq(&t, &r));
        /* sqrt: a is a square iff its norm a0^2 + a1^2 is a square in Fp */
        mpz_mul(norm, ma.c0, ma.c0);
        mpz_addmul(norm, ma.c1, ma.c1);
        mpz_mod(norm, norm, P);
        {
            /* cz_fp2_norm against the model, also written over either
             * component of its own input */
            cz_fp nf;
            cz_fp2_norm(&nf, &a);
            assert_elem_mpz(&FIELDS[0], (const elem *)&nf, norm, "fp2_norm");
            t = a;
            cz_fp2_norm(&t.c0, &t);
            assert_elem_mpz(&FIELDS[0], (const elem *)&t.c0, norm, "fp2_norm into c0");
            t = a;
            cz_fp2_norm(&t.c1, &t);
            assert_elem_mpz(&FIELDS[0], (const elem *)&t.c1, norm, "fp2_norm into c1");
        }
        bool is_sq = mpz_legendre(norm, P) >= 0;
        bool ok = cz_fp2_sqrt(&r, &a);
        assert_int_equal(ok, is_sq);
        if (ok) {
            m2_from(&mt, &r);
            m2_mul(&mr, &mt, &mt);
            assert_int_equal(mpz_cmp(mr.c0, ma.c0), 0);
            assert_int_equal(mpz_cmp(mr.c1, ma.c1), 0);
        }
        /* squares always have a root (covers both branches of the algorithm) */
        cz_fp2_sqr(&t, &a);
        assert_true(cz_fp2_sqrt(&r, &t));
        cz_fp2 rs;
        cz_fp2_sqr(&rs, &r);
        assert_true(cz_fp2_eq(&rs, &t));
        assert_true(cz_fp2_sqrt(&t, &t)); /* aliased */
        assert_true(cz_fp2_eq(&t, &r));
        /* lex largest: c1 decides unless it is 0 */
        mpz_t half;
        mpz_init(half);
        mpz_sub_ui(half, P, 1);
        mpz_fdiv_q_2exp(half, half, 1);
        bool want = mpz_sgn(ma.c1) ? mpz_cmp(ma.c1, half) > 0 : mpz_cmp(ma.c0, half) > 0;
        assert_int_equal(cz_fp2_is_lex_largest(&a), want);
        mpz_clear(half);
        /* predicates and cmov */
        assert_int_equal(cz_fp2_is_zero(&a), mpz_sgn(ma.c0) == 0 && mpz_sgn(ma.c1) == 0);
        cz_fp2_cmov(&r, &a, &b, 1);
        assert_true(cz_fp2_eq(&r, &b));
        cz_fp2_cmov(&r, &a, &b, 0);
        assert_true(cz_fp2_eq(&r, &a));
    }
    /* special values: u (root of -1), -1, 1, 0 */
    cz_fp2 one = {CZ_FP_ONE, CZ_FP_ZERO}, u = {CZ_FP_ZERO, CZ_FP_ONE}, r, t;
    assert_true(cz_fp2_is_one(&one));
    cz_fp2_sqr(&t, &u);
    cz_fp2 m1;
    cz_fp2_neg(&m1, &one);
    assert_true(cz_fp2_eq(&t, &m1));
    assert_true(cz_fp2_sqrt(&r, &m1));
    cz_fp2_sqr(&t, &r);
    assert_true(cz_fp2_eq(&t, &m1));
    cz_fp2 z = {CZ_FP_ZERO, CZ_FP_ZERO};
    assert_true(cz_fp2_sqrt(&r, &z));
    assert_true(cz_fp2_is_zero(&r));
    m2_clear(&ma);
    m2_clear(&mb);
    m2_clear(&mr);
    m2_clear(&mt);
    mpz_clear(norm);
    free_values(v, n);
    mpz_clear(P);
}

/* ---- the fourteen-value Fp product, AVX2 + FMA lanes and MULX (ff/fp_x4.h),
 * vs GMP ------------------------------------------------------------------ */

enum { X4_LANES = CZ_FP_X16_N };

static void x4_pack_all(cz__fp_x16 *x, const cz_fp v[X4_LANES])
{
    for (unsigned l = 0; l < X4_LANES; l++) cz__fp_x16_set(x, l, &v[l]);
}

static void x4_unpack_all(cz_fp v[X4_LANES], const cz__fp_x16 *x)
{
    for (unsigned l = 0; l < X4_LANES; l++) cz__fp_x16_get(&v[l], x, l);
}

/* Products of every edge and random value against another one, and the
 * square of each (its own block), in every one of the fourteen places
 * (lanes and MULX slots), then chains x = y·x and y = y² (by either block)
 * that feed the lazily reduced form (< 2p) back in, the result written
 * over an input. */
static void fp_x4_lanes(void **state)
{
    (void)state;
    if (!cz__fp_x4_supported()) {
        fprintf(stderr, "fp_x4_lanes: no AVX2 + FMA here, skipped\n");
        skip();
    }
    init_fields();
    const field *f = &FIELDS[0];
    size_t n;
    mpz_t *v = make_values(f, NRAND, &n), m, w;
    mpz_inits(m, w, NULL);
    modulus(m, f);
    static cz__fp_x16 xa, xb, xs; /* static: 896 bytes each, aligned */
    cz_fp a[X4_LANES], b[X4_LANES], r[X4_LANES];
    /* every value in every place: shifted by one place per round */
    for (size_t sh = 0; sh < X4_LANES; sh++)
        for (size_t i = 0; i + X4_LANES <= n; i += X4_LANES) {
            size_t ja[X4_LANES], jb[X4_LANES];
            for (unsigned l = 0; l < X4_LANES; l++) {
                ja[l] = i + (l + sh) % X4_LANES;
                jb[l] = (7 * ja[l] + 3 + sh) % n;
                from_mpz((elem *)&a[l], f, v[ja[l]]);
                from_mpz((elem *)&b[l], f, v[jb[l]]);
            }
            x4_pack_all(&xa, a);
            x4_pack_all(&xb, b);
            cz__fp_x16_sqr(&xs, &xa);
            cz__fp_x16_mul(&xa, &xa, &xb);
            x4_unpack_all(r, &xa);
            for (unsigned l = 0; l < X4_LANES; l++) {
                mpz_mul(w, v[ja[l]], v[jb[l]]);
                mpz_mod(w, w, m);
                assert_elem_mpz(f, (const elem *)&r[l], w, l < 4 * CZ_FP_X4_GROUPS ? "x16 lane mul" : "x16 mulx mul");
            }
            x4_unpack_all(r, &xs);
            for (unsigned l = 0; l < X4_LANES; l++) {
                mpz_mul(w, v[ja[l]], v[ja[l]]);
                mpz_mod(w, w, m);
                assert_elem_mpz(f, (const elem *)&r[l], w, l < 4 * CZ_FP_X4_GROUPS ? "x16 lane sqr" : "x16 mulx sqr");
            }
        }
    /* chains from the last values (random ones) */
    mpz_t want[X4_LANES], y[X4_LANES];
    for (unsigned l = 0; l < X4_LANES; l++) {
        mpz_init_set(want[l], v[n - 1 - l]);
        mpz_init_set(y[l], v[n - 1 - X4_LANES - l]);
        from_mpz((elem *)&a[l], f, want[l]);
        from_mpz((elem *)&b[l], f, y[l]);
    }
    x4_pack_all(&xa, a);
    x4_pack_all(&xb, b);
    for (int step = 0; step < 300; step++) {
        cz__fp_x16_mul(&xa, &xb, &xa);
        for (unsigned l = 0; l < X4_LANES; l++) {
            mpz_mul(want[l], want[l], y[l]);
            mpz_mod(want[l], want[l], m);
        }
        if (step % 3 == 2) { /* squares too, by the product and by the square's block */
            if (step % 2) cz__fp_x16_sqr(&xb, &xb);
            else cz__fp_x16_mul(&xb, &xb, &xb);
            for (unsigned l = 0; l < X4_LANES; l++) {
                mpz_mul(y[l], y[l], y[l]);
                mpz_mod(y[l], y[l], m);
            }
        }
        x4_unpack_all(r, &xa);
        for (unsigned l = 0; l < X4_LANES; l++) assert_elem_mpz(f, (const elem *)&r[l], want[l], "x16 chain");
    }
    for (unsigned l = 0; l < X4_LANES; l++) mpz_clears(want[l], y[l], NULL);
    mpz_clears(m, w, NULL);
    free_values(v, n);
}

/* ---- the sixteen-value Fr product (ff/fr_x4.h) vs GMP ------------------ */

/* The raw (not yet canonical) value l of a product's result. */
static void fr_x16_raw(mpz_t z, const cz__fr_x16 *x, unsigned l)
{
    uint64_t q[4];
    if (l < 4 * CZ_FR_X4_GROUPS) {
        uint64_t o[6];
        for (int k = 0; k < 6; k++) {
            o[k] = x->g[l / 4].l[k][l % 4];
            assert_true(k == 5 ? o[k] < (UINT64_C(1) << 16) : o[k] <= CZ_FR_X4_M48);
        }
        cz__fr_from48(q, o);
    } else {
        memcpy(q, x->s[l - 4 * CZ_FR_X4_GROUPS].l, sizeof q);
    }
    cz_mpz_from_limbs(z, q, 4);
}

/* Every edge and random value against another one in every one of the
 * sixteen places, with the lanes' a operands also given as value + r (the
 * contract allows a < 2r there: a chained result); each raw result must
 * be under 2r, the canonical one a·b. Then chains x = x·y that feed the
 * results back in as a operands (the MULX ones made canonical first), y
 * changing every few steps. */
static void fr_x4_lanes(void **state)
{
    (void)state;
    if (!cz__fr_x4_supported()) {
        fprintf(stderr, "fr_x4_lanes: no AVX2 + FMA here, skipped\n");
        skip();
    }
    init_fields();
    const field *f = &FIELDS[1];
    size_t n;
    mpz_t *v = make_values(f, NRAND, &n), m, m2, w, raw;
    mpz_inits(m, m2, w, raw, NULL);
    modulus(m, f);
    mpz_mul_2exp(m2, m, 1);
    enum { L = CZ_FR_X16_N };
    static cz__fr_x16 xa, xb;
    cz_fr a, b, r;
    for (int plus_r = 0; plus_r < 2; plus_r++)
        for (size_t sh = 0; sh < L; sh++)
            for (size_t i = 0; i + L <= n; i += L) {
                size_t ja[L], jb[L];
                for (unsigned l = 0; l < L; l++) {
                    ja[l] = i + (l + sh) % L;
                    jb[l] = (7 * ja[l] + 3 + sh) % n;
                    from_mpz((elem *)&a, f, v[ja[l]]);
                    from_mpz((elem *)&b, f, v[jb[l]]);
                    if (plus_r && l < 4 * CZ_FR_X4_GROUPS) cz_limbs_add_nc(a.l, a.l, CZ_FR_MODULUS, 4); /* < 2r */
                    cz__fr_x16_set_a(&xa, l, &a);
                    cz__fr_x16_set_b(&xb, l, &b);
                }
                cz__fr_x16_mul(&xa, &xa, &xb);
                for (unsigned l = 0; l < L; l++) {
                    const char *what = l < 4 * CZ_FR_X4_GROUPS ? "fr x16 lane mul" : "fr x16 mulx mul";
                    fr_x16_raw(raw, &xa, l);
                    if (mpz_cmp(raw, m2) >= 0) fail_msg("%s: raw result not under 2r (place %u)", what, l);
                    cz__fr_x16_get(&r, &xa, l);
                    mpz_mul(w, v[ja[l]], v[jb[l]]);
                    mpz_mod(w, w, m);
                    assert_elem_mpz(f, (const elem *)&r, w, what);
                }
            }
    mpz_t want[L], y[L];
    for (unsigned l = 0; l < L; l++) {
        mpz_init_set(want[l], v[n - 1 - l]);
        mpz_init_set(y[l], v[n - 1 - L - l]);
        from_mpz((elem *)&a, f, want[l]);
        cz__fr_x16_set_a(&xa, l, &a);
    }
    for (int step = 0; step < 300; step++) {
        if (step % 4 == 0)
            for (unsigned l = 0; l < L; l++) {
                mpz_mul(y[l], y[l], y[l]);
                mpz_add_ui(y[l], y[l], (unsigned long)step);
                mpz_mod(y[l], y[l], m);
                from_mpz((elem *)&b, f, y[l]);
                cz__fr_x16_set_b(&xb, l, &b);
            }
        for (unsigned j = 0; j < CZ_FR_X4_SCALARS; j++) cz_mont_reduce_once(xa.s[j].l, xa.s[j].l, CZ_FR_MODULUS, 4);
        cz__fr_x16_mul(&xa, &xa, &xb);
        for (unsigned l = 0; l < L; l++) {
            mpz_mul(want[l], want[l], y[l]);
            mpz_mod(want[l], want[l], m);
            cz__fr_x16_get(&r, &xa, l);
            assert_elem_mpz(f, (const elem *)&r, want[l], "fr x16 chain");
        }
    }
    for (unsigned l = 0; l < L; l++) mpz_clears(want[l], y[l], NULL);
    mpz_clears(m, m2, w, raw, NULL);
    free_values(v, n);
}

/* The fourteen-value Fp product past its contract (< 2p on both sides), as
 * the G2 flush (msm/msm_x16.c) uses it: operands under A·p and B·p with
 * A·B < 87 (result < (0.102·A·B + 1)·p < 2^384) and A < 8.8 (a MULX row
 * adds a·b_i + q·p to an accumulator under a + p: (a + p)·2^64 must fit
 * its seven limbs; A = 9.5 loses a carry), and lane operands whose
 * limbs are not carried: up to 3·2^48 − 1 on one side (a difference
 * with a redundant constant) and 2^49 − 2 on the other (a sum of two
 * normalised values). Each case takes random operands and the largest
 * ones the case allows (every limb at its maximum, the top limb as large
 * as the bound permits), in every place; the result must be a·b·2^-384
 * mod p, under the bound, with normalised lane limbs. */
static void x16_put(cz__fp_x16 *x, unsigned l, mpz_t v, uint64_t limb_max, double bound_p, bool edge,
                    const mpz_t p)
{
    mpz_t lim, t;
    mpz_inits(lim, t, NULL);
    /* lim = floor(bound_p · p): the value must stay under it */
    mpz_set_d(t, bound_p * 1024.0);
    mpz_mul(lim, p, t);
    mpz_fdiv_q_2exp(lim, lim, 10);
    if (l < 4 * CZ_FP_X4_GROUPS) {
        uint64_t o[8];
        mpz_fdiv_q_2exp(t, lim, 336);
        uint64_t top_max = mpz_get_ui(t) - 4; /* the low limbs add under 4·2^336 */
        for (int k = 0; k < 7; k++) o[k] = edge ? limb_max : cz_rng_u64() % (limb_max + 1);
        o[7] = edge ? top_max : cz_rng_u64() % (top_max + 1);
        mpz_set_ui(v, 0);
        for (int k = 7; k >= 0; k--) {
            mpz_mul_2exp(v, v, 48);
            mpz_add_ui(v, v, o[k]);
        }
        for (int k = 0; k < 8; k++) x->g[l / 4].l[k][l % 4] = o[k];
    } else {
        if (edge) mpz_sub_ui(v, lim, 1);
        else {
            uint64_t r[6];
            for (int k = 0; k < 6; k++) r[k] = cz_rng_u64();
            cz_mpz_from_limbs(t, r, 6);
            mpz_mod(v, t, lim);
        }
        cz_mpz_to_limbs(x->s[l - 4 * CZ_FP_X4_GROUPS].l, 6, v);
    }
    assert_true(mpz_cmp(v, lim) < 0);
    mpz_clears(lim, t, NULL);
}

static void fp_x4_wide_operands(void **state)
{
    (void)state;
    if (!cz__fp_x4_supported()) {
        fprintf(stderr, "fp_x4_wide_operands: no AVX2 + FMA here, skipped\n");
        skip();
    }
    const uint64_t N48 = (UINT64_C(1) << 48) - 1;
    static const struct {
        uint64_t la, lb; /* lane limb maxima */
        double A, B;     /* value bounds, units of p */
    } cases[] = {
        {0, 0, 4.0, 4.0},       /* normalised (0: 2^48 - 1) */
        {0, 0, 8.8, 9.0},       /* A·B = 79.2 */
        {0, 0, 4.0, 9.8},       /* b may be any 384-bit value */
        {0, 0, 2.52, 8.77},
        {3, 2, 3.26, 4.0},      /* raw: 3·2^48 - 1 and 2^49 - 2 */
        {3, 2, 6.52, 4.52},
        {2, 2, 6.0, 4.52},
    };
    mpz_t p, rinv, va[X4_LANES], vb[X4_LANES], got, want, bound, t;
    mpz_inits(p, rinv, got, want, bound, t, NULL);
    cz_mpz_from_limbs(p, CZ_FP_MODULUS, 6);
    mpz_set_ui(rinv, 1);
    mpz_mul_2exp(rinv, rinv, 384);
    assert_true(mpz_invert(rinv, rinv, p));
    for (unsigned l = 0; l < X4_LANES; l++) mpz_inits(va[l], vb[l], NULL);
    static cz__fp_x16 xa, xb, xr;
    /* the cases past the end: the square, its operand under A·p with lane
     * limbs up to 2^48 − 1 or 2^49 − 2 (the contract's 2^49) */
    static const struct {
        uint64_t la;
        double A;
    } sq[] = {{0, 2.0}, {0, 4.0}, {2, 2.0}, {2, 4.0}};
    const size_t nmul = sizeof cases / sizeof cases[0];
    for (size_t c = 0; c < nmul + sizeof sq / sizeof sq[0]; c++) {
        const bool is_sqr = c >= nmul;
        const uint64_t cla = is_sqr ? sq[c - nmul].la : cases[c].la, clb = is_sqr ? 0 : cases[c].lb;
        const double cA = is_sqr ? sq[c - nmul].A : cases[c].A, cB = is_sqr ? cA : cases[c].B;
        uint64_t la = cla ? cla * (UINT64_C(1) << 48) - 1 - (cla == 2) : N48;
        uint64_t lb = clb ? clb * (UINT64_C(1) << 48) - 1 - (clb == 2) : N48;
        for (int round = 0; round < 200; round++) {
            bool edge = round < 2;
            for (unsigned l = 0; l < X4_LANES; l++) {
                /* round 1: the edge on one side, random on the other */
                x16_put(&xa, l, va[l], la, cA, edge && (round == 0 || is_sqr), p);
                if (is_sqr) mpz_set(vb[l], va[l]);
                else x16_put(&xb, l, vb[l], lb, cB, edge, p);
            }
            if (is_sqr) cz__fp_x16_sqr(&xr, &xa);
            else cz__fp_x16_mul(&xr, &xa, &xb);
            mpz_set_d(t, (0.102 * cA * cB + 1) * 1024.0);
            mpz_mul(bound, p, t);
            mpz_fdiv_q_2exp(bound, bound, 10);
            for (unsigned l = 0; l < X4_LANES; l++) {
                if (l < 4 * CZ_FP_X4_GROUPS) {
                    mpz_set_ui(got, 0);
                    for (int k = 7; k >= 0; k--) {
                        uint64_t o = xr.g[l / 4].l[k][l % 4];
                        assert_true(k == 7 || o <= N48);
                        mpz_mul_2exp(got, got, 48);
                        mpz_add_ui(got, got, o);
                    }
                } else {
                    cz_mpz_from_limbs(got, xr.s[l - 4 * CZ_FP_X4_GROUPS].l, 6);
                }
                mpz_mul(want, va[l], vb[l]);
                mpz_mul(want, want, rinv);
                mpz_mod(want, want, p);
                mpz_mod(t, got, p);
                if (mpz_cmp(t, want) != 0 || mpz_cmp(got, bound) >= 0) {
                    gmp_fprintf(stderr, "case %zu place %u: got %Zx (mod p %Zx) want %Zx, bound %Zx\n", c, l,
                                got, t, want, bound);
                    fail();
                }
            }
        }
    }
    for (unsigned l = 0; l < X4_LANES; l++) mpz_clears(va[l], vb[l], NULL);
    mpz_clears(p, rinv, got, want, bound, t, NULL);
}

#define BOTH(name)                                                                            \
    static void name(void **state) { cz_for_each_backend(name##_body, state); }
BOTH(binary_ops)
BOTH(unary_ops)
BOTH(pow_ops)
BOTH(conversions)
BOTH(uniform_bytes)
BOTH(non_canonical)
BOTH(fr_dec)
BOTH(fr_roots)
BOTH(fr_batch_inv)
BOTH(fp_sign)
BOTH(fp2)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(backend_selection),
        cmocka_unit_test(binary_ops),
        cmocka_unit_test(unary_ops),
        cmocka_unit_test(pow_ops),
        cmocka_unit_test(conversions),
        cmocka_unit_test(uniform_bytes),
        cmocka_unit_test(non_canonical),
        cmocka_unit_test(kernels_cross_check),
        cmocka_unit_test(inverse_algorithms),
        cmocka_unit_test(fr_dec),
        cmocka_unit_test(fr_roots),
        cmocka_unit_test(fr_batch_inv),
        cmocka_unit_test(fr_random_test),
        cmocka_unit_test(fp_sign),
        cmocka_unit_test(fp2),
        cmocka_unit_test(fp_x4_lanes),
        cmocka_unit_test(fp_x4_wide_operands),
        cmocka_unit_test(fr_x4_lanes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
