/*
 * Host test of the CUDA kernels' per-thread bodies (src/cuda/dev_algo.h):
 * each launch of kernels.cu is emulated by a loop over its thread indices,
 * in the same order of launches as the drivers in kernels.cu, and the
 * results are compared with the CPU library:
 *   - NTT forward / inverse / coset forward / coset inverse vs cz_ntt_*;
 *   - the 7-NTT Groth16 quotient vs cz_quotient_h, and the row check;
 *   - signed-digit recoding: sum d_w 2^(cw) == k (GMP) for every window;
 *   - the whole Pippenger pipeline (digits, counting sort into buckets,
 *     bucket sums, grouped running-sum reduction, tree folds, the scalar = 1
 *     batch path, Horner over windows) vs cz_msm_g1, for several windows;
 *   - density gather vs a naive compaction.
 * What this cannot check: the launch geometry, atomics, shared memory and
 * the device compiler; tools/device-check.sh does that on a GPU.
 */
#include "testutil.h"
#include "cuda/dev_algo.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include <stdlib.h>
#include <string.h>

#ifdef CUZK_SANITIZED
#define NTT_MAX_LOG 10
#define MSM_N 300
#else
#define NTT_MAX_LOG 12
#define MSM_N 1500
#endif

static int setup(void **state)
{
    (void)state;
    cz_test_seed();
    return 0;
}

/* ---- emulated NTT (mirrors czc_domain_build / czc_ntt in kernels.cu) ------- */
typedef struct {
    unsigned log_n;
    cz_fr *tw, *g_lo, *g_hi, *gi_lo, *gi_hi;
    cz_fr n_inv, one;
} emu_domain;

static void emu_domain_build(emu_domain *d, unsigned log_n)
{
    uint64_t n = (uint64_t)1 << log_n, ntw = n / 2 + 1;
    uint64_t nhi_tw = (ntw >> CZ_DEV_TAB_BITS) + 1, nhi = (n >> CZ_DEV_TAB_BITS) + 1;
    d->log_n = log_n;
    cz_fr w, g, gi, one = CZ_FR_ONE;
    d->one = one;
    cz_fr_root_of_unity(&w, log_n);
    cz_fr_from_u64(&g, 7);
    cz_fr_inv(&gi, &g);
    cz_fr_from_u64(&d->n_inv, n);
    cz_fr_inv(&d->n_inv, &d->n_inv);
    cz_fr *lo = malloc(CZ_DEV_TAB_LO * sizeof *lo), *hi = malloc(nhi_tw * sizeof *hi);
    cz_d_pow_tables(lo, CZ_DEV_TAB_LO, hi, nhi_tw, &w, &one);
    d->tw = malloc(ntw * sizeof(cz_fr));
    for (uint64_t j = 0; j < ntw; j++) cz_d_ntt_twiddle(d->tw, lo, hi, j);
    free(lo);
    free(hi);
    d->g_lo = malloc(CZ_DEV_TAB_LO * sizeof(cz_fr));
    d->gi_lo = malloc(CZ_DEV_TAB_LO * sizeof(cz_fr));
    d->g_hi = malloc(nhi * sizeof(cz_fr));
    d->gi_hi = malloc(nhi * sizeof(cz_fr));
    cz_d_pow_tables(d->g_lo, CZ_DEV_TAB_LO, d->g_hi, nhi, &g, &one);
    cz_d_pow_tables(d->gi_lo, CZ_DEV_TAB_LO, d->gi_hi, nhi, &gi, &one);
}

static void emu_domain_free(emu_domain *d)
{
    free(d->tw);
    free(d->g_lo);
    free(d->g_hi);
    free(d->gi_lo);
    free(d->gi_hi);
}

static void emu_transform(const emu_domain *d, cz_fr *x, bool inverse)
{
    uint64_t n = (uint64_t)1 << d->log_n;
    for (uint64_t i = 0; i < n; i++) cz_d_ntt_bitrev(x, d->log_n, i);
    for (unsigned s = 0; s < d->log_n; s++)
        for (uint64_t t = 0; t < n / 2; t++) cz_d_ntt_butterfly(x, d->tw, d->log_n, s, t, inverse);
}

enum { FWD, INV, CFWD, CINV };

static void emu_ntt(const emu_domain *d, cz_fr *x, int kind)
{
    uint64_t n = (uint64_t)1 << d->log_n;
    if (kind == CFWD)
        for (uint64_t i = 0; i < n; i++) cz_d_ntt_scale(x, d->g_lo, d->g_hi, &d->one, i);
    emu_transform(d, x, kind == INV || kind == CINV);
    if (kind == INV)
        for (uint64_t i = 0; i < n; i++) cz_d_ntt_scale(x, NULL, NULL, &d->n_inv, i);
    if (kind == CINV)
        for (uint64_t i = 0; i < n; i++) cz_d_ntt_scale(x, d->gi_lo, d->gi_hi, &d->n_inv, i);
}

static void test_ntt(void **state)
{
    (void)state;
    for (unsigned log_n = 0; log_n <= NTT_MAX_LOG; log_n += (log_n < 4 ? 1 : 4)) {
        uint64_t n = (uint64_t)1 << log_n;
        emu_domain d;
        emu_domain_build(&d, log_n);
        cz_ntt_domain *cd;
        assert_int_equal(cz_ntt_domain_create(&cd, log_n, NULL), CZ_OK);
        cz_fr *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        for (int kind = FWD; kind <= CINV; kind++) {
            for (uint64_t i = 0; i < n; i++) cz_rng_fr(&x[i]);
            memcpy(y, x, n * sizeof *x);
            emu_ntt(&d, x, kind);
            switch (kind) {
            case FWD: cz_ntt_forward(NULL, cd, y); break;
            case INV: cz_ntt_inverse(NULL, cd, y); break;
            case CFWD: cz_ntt_coset_forward(NULL, cd, y); break;
            default: cz_ntt_coset_inverse(NULL, cd, y); break;
            }
            assert_memory_equal(x, y, n * sizeof *x);
        }
        free(x);
        free(y);
        cz_ntt_domain_free(cd);
        emu_domain_free(&d);
    }
}

/* mirrors czc_quotient: a, b, c -> iNTT, ·g^i/n, NTT; pointwise; iNTT, ·g^-i/n */
static void emu_quotient(const emu_domain *d, cz_fr *a, cz_fr *b, cz_fr *c)
{
    uint64_t n = (uint64_t)1 << d->log_n;
    cz_fr *v[3] = { a, b, c };
    for (int k = 0; k < 3; k++) {
        emu_transform(d, v[k], true);
        for (uint64_t i = 0; i < n; i++) cz_d_ntt_scale(v[k], d->g_lo, d->g_hi, &d->n_inv, i);
        emu_transform(d, v[k], false);
    }
    cz_fr gm, zinv, one = CZ_FR_ONE;
    cz_fr_from_u64(&gm, 7);
    uint64_t e = n;
    cz_fr_pow(&gm, &gm, &e, 1);
    cz_fr_sub(&zinv, &gm, &one);
    cz_fr_inv(&zinv, &zinv);
    for (uint64_t i = 0; i < n; i++) cz_d_quotient_pointwise(a, b, c, &zinv, i);
    emu_transform(d, a, true);
    for (uint64_t i = 0; i < n; i++) cz_d_ntt_scale(a, d->gi_lo, d->gi_hi, &d->n_inv, i);
}

static void test_quotient(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n <= NTT_MAX_LOG; log_n += 3) {
        uint64_t n = (uint64_t)1 << log_n;
        emu_domain d;
        emu_domain_build(&d, log_n);
        cz_ntt_domain *cd;
        assert_int_equal(cz_ntt_domain_create(&cd, log_n, NULL), CZ_OK);
        cz_fr *v[6];
        for (int k = 0; k < 6; k++) v[k] = malloc(n * sizeof(cz_fr));
        for (uint64_t i = 0; i < n; i++) {
            cz_rng_fr(&v[0][i]);
            cz_rng_fr(&v[1][i]);
            cz_fr_mul(&v[2][i], &v[0][i], &v[1][i]);
        }
        for (uint64_t i = 0; i < n; i++) assert_false(cz_d_row_unsatisfied(v[0], v[1], v[2], i));
        cz_fr_add(&v[2][n / 2], &v[2][n / 2], &CZ_FR_ONE);
        assert_true(cz_d_row_unsatisfied(v[0], v[1], v[2], n / 2));
        cz_fr_sub(&v[2][n / 2], &v[2][n / 2], &CZ_FR_ONE);
        for (int k = 0; k < 3; k++) memcpy(v[k + 3], v[k], n * sizeof(cz_fr));
        emu_quotient(&d, v[0], v[1], v[2]);
        cz_quotient_h(NULL, cd, v[3], v[4], v[5]);
        assert_memory_equal(v[0], v[3], n * sizeof(cz_fr));
        assert_true(cz_fr_is_zero(&v[0][n - 1]));
        for (int k = 0; k < 6; k++) free(v[k]);
        cz_ntt_domain_free(cd);
        emu_domain_free(&d);
    }
}

/* ---- digits --------------------------------------------------------------------- */
static void rand_scalar(cz_scalar *s)
{
    cz_fr f;
    cz_rng_fr(&f);
    cz_scalar_from_fr(s, &f);
}

static void test_digits(void **state)
{
    (void)state;
    mpz_t k, acc, t;
    mpz_inits(k, acc, t, NULL);
    for (int it = 0; it < 200; it++) {
        cz_scalar s;
        if (it == 0) { /* r - 1, the largest scalar */
            memcpy(s.l, CZ_FR_MODULUS, sizeof s.l);
            s.l[0] -= 1;
        } else if (it == 1) {
            memset(&s, 0xff, sizeof s);
            s.l[3] >>= 1; /* 2^255 - 1 */
        } else {
            rand_scalar(&s);
        }
        cz_mpz_from_limbs(k, s.l, 4);
        for (unsigned c = 1; c <= 20; c++) {
            unsigned nwin = cz_d_msm_nwin(c);
            mpz_set_ui(acc, 0);
            for (unsigned w = nwin; w-- > 0;) {
                int32_t d = cz_d_msm_digit(&s, w, c);
                assert_true(d >= -(1 << (c - 1)) && d <= (1 << (c - 1)));
                mpz_mul_2exp(acc, acc, c);
                if (d >= 0) mpz_add_ui(acc, acc, (unsigned long)d);
                else mpz_sub_ui(acc, acc, (unsigned long)-d);
            }
            assert_int_equal(mpz_cmp(acc, k), 0);
        }
    }
    mpz_clears(k, acc, t, NULL);
}

/* ---- emulated MSM (mirrors czc_msm_g1) ------------------------------------------- */
static void emu_msm(cz_g1_jac *out, const cz_g1_affine *bases, const cz_scalar *sc, size_t n, unsigned c,
                    size_t chunk, unsigned ones_threads)
{
    unsigned nwin = cz_d_msm_nwin(c);
    uint32_t nb = 1u << (c - 1);
    cz_g1_xyzz *buckets = malloc((size_t)nwin * nb * sizeof *buckets);
    for (size_t i = 0; i < (size_t)nwin * nb; i++) cz_d_g1_xyzz_set_inf(&buckets[i]);
    uint32_t *cnt = malloc((size_t)nwin * (nb + 1) * sizeof *cnt);
    uint32_t *sorted = malloc((size_t)nwin * chunk * sizeof *sorted);
    for (size_t base = 0; base < n; base += chunk) {
        size_t len = n - base < chunk ? n - base : chunk;
        memset(cnt, 0, (size_t)nwin * (nb + 1) * sizeof *cnt);
        /* count: one thread per point, all windows */
        for (size_t i = 0; i < len; i++) {
            if (cz_d_scalar_kind(&sc[base + i]) != 2) continue;
            for (unsigned w = 0; w < nwin; w++) {
                int32_t d = cz_d_msm_digit(&sc[base + i], w, c);
                if (d) cnt[(size_t)w * (nb + 1) + (uint32_t)abs(d) - 1]++;
            }
        }
        /* exclusive scan per window; cnt becomes the offsets, cursor a copy */
        uint32_t *cursor = malloc((size_t)nwin * (nb + 1) * sizeof *cursor);
        for (unsigned w = 0; w < nwin; w++) {
            uint32_t run = 0;
            for (uint32_t b = 0; b <= nb; b++) {
                uint32_t v = b < nb ? cnt[(size_t)w * (nb + 1) + b] : 0;
                cnt[(size_t)w * (nb + 1) + b] = run;
                run += v;
            }
        }
        memcpy(cursor, cnt, (size_t)nwin * (nb + 1) * sizeof *cursor);
        /* scatter (the device uses an atomic cursor: any order within a bucket) */
        for (size_t i = 0; i < len; i++) {
            if (cz_d_scalar_kind(&sc[base + i]) != 2) continue;
            for (unsigned w = 0; w < nwin; w++) {
                int32_t d = cz_d_msm_digit(&sc[base + i], w, c);
                if (!d) continue;
                uint32_t pos = cursor[(size_t)w * (nb + 1) + (uint32_t)abs(d) - 1]++;
                sorted[(size_t)w * chunk + pos] = (uint32_t)i | (d < 0 ? CZ_DEV_MSM_SIGN : 0);
            }
        }
        free(cursor);
        /* accumulate: one thread per (window, bucket) */
        for (unsigned w = 0; w < nwin; w++)
            for (uint32_t b = 0; b < nb; b++)
                cz_d_msm_bucket_sum(&buckets[(size_t)w * nb + b], sorted + (size_t)w * chunk,
                                    cnt[(size_t)w * (nb + 1) + b], cnt[(size_t)w * (nb + 1) + b + 1],
                                    bases + base);
    }
    /* reduce: G groups per window, then fold to one per window */
    uint32_t G = nb < 8 ? nb : 8, per = nb / G;
    cz_g1_xyzz *grp = malloc((size_t)nwin * G * sizeof *grp);
    for (unsigned w = 0; w < nwin; w++)
        for (uint32_t g = 0; g < G; g++)
            cz_d_msm_reduce_group(&grp[(size_t)w * G + g], buckets + (size_t)w * nb, g * per, (g + 1) * per);
    for (uint32_t half = G / 2; half >= 1; half /= 2)
        for (unsigned w = 0; w < nwin; w++)
            for (uint32_t i = 0; i < half; i++) cz_d_xyzz_fold(grp, G, half, w, i);
    cz_g1_xyzz *win = malloc(nwin * sizeof *win);
    for (unsigned w = 0; w < nwin; w++) win[w] = grp[(size_t)w * G];
    /* scalar = 1 path */
    cz_g1_xyzz *part = malloc(ones_threads * sizeof *part);
    for (unsigned t = 0; t < ones_threads; t++) cz_d_msm_ones(part, bases, sc, n, ones_threads, t);
    for (unsigned half = ones_threads / 2; half >= 1; half /= 2)
        for (unsigned i = 0; i < half; i++) cz_d_xyzz_fold(part, ones_threads, half, 0, i);
    cz_g1_xyzz res;
    cz_d_msm_combine(&res, win, nwin, c, &part[0]);
    cz_g1_xyzz_to_jac(out, &res);
    free(part);
    free(win);
    free(grp);
    free(sorted);
    free(cnt);
    free(buckets);
}

static void test_msm(void **state)
{
    (void)state;
    size_t n = MSM_N;
    cz_g1_affine *bases = malloc(n * sizeof *bases);
    cz_scalar *sc = malloc(n * sizeof *sc);
    cz_g1_jac g, p;
    cz_g1_generator_jac(&g);
    for (size_t i = 0; i < n; i++) {
        uint64_t k[4] = { cz_rng_u64(), cz_rng_u64(), cz_rng_u64(), cz_rng_u64() >> 2 };
        cz_g1_jac_mul_var(&p, &g, k, 4);
        cz_g1_jac_to_affine(&bases[i], &p);
    }
    cz_g1_affine_set_infinity(&bases[5]);
    bases[9] = bases[8]; /* equal points in one bucket: the doubling case */
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < n; i++) {
            unsigned r = (unsigned)(cz_rng_u64() % 10);
            if (round == 0 || r >= 4) rand_scalar(&sc[i]);
            else {
                memset(&sc[i], 0, sizeof sc[i]);
                sc[i].l[0] = r < 2 ? r : (r == 2 ? 2 : cz_rng_u64() % 100); /* 0, 1, small */
            }
        }
        sc[8] = sc[9];
        cz_g1_jac ref, got;
        assert_int_equal(cz_msm_g1(&ref, bases, sc, n, NULL, NULL), CZ_OK);
        unsigned cs[4] = { 1, 4, cz_d_msm_window(n), 9 };
        for (int k = 0; k < 4; k++) {
            emu_msm(&got, bases, sc, n, cs[k], round == 1 ? n / 3 + 1 : n, k == 0 ? 1 : 64);
            assert_true(cz_g1_jac_eq(&got, &ref));
        }
    }
    free(bases);
    free(sc);
}

static void test_gather(void **state)
{
    (void)state;
    size_t n = 1000, nw = (n + 63) / 64;
    uint64_t *bm = calloc(nw, sizeof *bm);
    uint32_t *prefix = malloc(nw * sizeof *prefix);
    cz_scalar *src = malloc(n * sizeof *src), *dst = calloc(n, sizeof *dst), *ref = calloc(n, sizeof *ref);
    for (size_t k = 0; k < n; k++) {
        rand_scalar(&src[k]);
        if (cz_rng_u64() % 3 == 0 || k == 63 || k == 64) bm[k / 64] |= 1ULL << (k % 64);
    }
    size_t cnt = 0;
    for (size_t w = 0; w < nw; w++) {
        prefix[w] = (uint32_t)cnt;
        cnt += (size_t)__builtin_popcountll(bm[w]);
    }
    size_t j = 0;
    for (size_t k = 0; k < n; k++)
        if ((bm[k / 64] >> (k % 64)) & 1) ref[j++] = src[k];
    for (size_t k = 0; k < n; k++) cz_d_gather_density(dst, src, bm, prefix, k);
    assert_int_equal(j, cnt);
    assert_memory_equal(dst, ref, n * sizeof *dst);
    free(bm);
    free(prefix);
    free(src);
    free(dst);
    free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ntt),
        cmocka_unit_test(test_quotient),
        cmocka_unit_test(test_digits),
        cmocka_unit_test(test_msm),
        cmocka_unit_test(test_gather),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
